/* nextafter_scalar.h: the next representable value after x toward y in a binary floating format
 * with `mant` fraction bits and smallest normal exponent `emin` (float16 10/-14, bfloat16 7/-126,
 * float32 23/-126, float64 52/-1022), for x and y representable in it. Computed in double, where
 * every step is exact; past the largest finite value it gives a value that rounds to infinity.
 * Shared by the CPU kernels (src/ops/binary.c) and the CUDA ones (src/cuda/elementwise.cuh). */
#ifndef NABLA_NEXTAFTER_SCALAR_H_
#define NABLA_NEXTAFTER_SCALAR_H_

#include <math.h>

#if defined(__CUDACC__)
#define NB_NEXTAFTER_FN static __host__ __device__ inline
#else
#define NB_NEXTAFTER_FN static inline
#endif

NB_NEXTAFTER_FN double nb_scalar_nextafter(double x, double y, int mant, int emin) {
    if (x != x || y != y) return x + y;
    if (x == y) return y;
    if (x == 0) return copysign(ldexp(1.0, emin - mant), y); /* the smallest subnormal, toward y */
    if (isinf(x)) return copysign(ldexp(2.0 - ldexp(1.0, -mant), 1 - emin), x); /* the largest finite */
    int e;
    frexp(x, &e);
    e -= 1; /* |x| in [2^e, 2^(e+1)) */
    if (e < emin) e = emin;
    double ulp = ldexp(1.0, e - mant);
    const int toward_zero = (y > x) != (x > 0);
    if (toward_zero && fabs(x) == ldexp(1.0, e) && e > emin) ulp *= 0.5; /* the binade below is finer */
    return x + (y > x ? ulp : -ulp);
}

#endif /* NABLA_NEXTAFTER_SCALAR_H_ */
