/* vecmath.h: branch-free float and double exp, float log1p and the sigmoid that
 * GCC vectorises inside `omp simd` loops (no calls, no tables, special values by
 * selects). unary_float.c inlines them into its AVX-512 loops (softplus,
 * gelu_tanh, log1p), where fmaf / fma are single instructions.
 *
 * Method (Cody & Waite): x = n ln2 + r with ln2 split in a high part with
 * trailing zero bits (n * LN2_HI is exact) and a low part, |r| <= ln2 / 2; a
 * polynomial in r; 2^n built in the exponent bits. Errors measured over dense
 * sweeps against float64 / long double references (tests/test_vecmath.py). */
#ifndef NB_OPS_VECMATH_H
#define NB_OPS_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Forced: a copy left out of line would be built for baseline x86-64, with fma a libm call. */
#define NB_VM static inline __attribute__((always_inline))

NB_VM float nb_vm_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
NB_VM uint32_t nb_vm_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
NB_VM double nb_vm_u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
NB_VM uint64_t nb_vm_d2u(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

#define NB_VM_LOG2EF 1.44269504088896341f
#define NB_VM_LN2HI_F 0.693145751953125f            /* 0x3f317200: n * this is exact for |n| < 2^8 */
#define NB_VM_LN2LO_F 1.428606765330187045e-06f
#define NB_VM_LOG2E 1.4426950408889634074
#define NB_VM_LN2HI 6.93147180369123816490e-01      /* fdlibm's split: 32 trailing zero bits */
#define NB_VM_LN2LO 1.90821492927058770002e-10

/* ---- float ---- */

/* e^r - 1 - r for |r| <= ln2/2: r^2 (1/2 + r/6 + ... + r^5/7!), Taylor, truncation < 2^-28 relative. */
NB_VM float nb_vm_expm1_poly_f(float r) {
    float p = 1.f / 5040;
    p = fmaf(p, r, 1.f / 720);
    p = fmaf(p, r, 1.f / 120);
    p = fmaf(p, r, 1.f / 24);
    p = fmaf(p, r, 1.f / 6);
    p = fmaf(p, r, 0.5f);
    return r * r * p;
}

/* n = round(x / ln2) (as a float and as an integer, through the 1.5 * 2^23 shift) and r = x - n ln2. */
NB_VM float nb_vm_reduce_f(float x, int32_t* n) {
    const float t = fmaf(x, NB_VM_LOG2EF, 0x1.8p23f);
    const float nf = t - 0x1.8p23f;
    *n = (int32_t)nb_vm_f2u(t) - 0x4B400000;
    return fmaf(nf, -NB_VM_LN2LO_F, fmaf(nf, -NB_VM_LN2HI_F, x));
}

/* exp: at most 1 ulp. 2^n is applied in two halves so that results in the
 * subnormal range are rounded once and exp(88.72) stays finite. */
NB_VM float nb_vm_expf(float x) {
    float xc = x > 88.8f ? 88.8f : x; /* NaN passes both clamps and propagates */
    xc = xc < -104.f ? -104.f : xc;
    int32_t n;
    const float r = nb_vm_reduce_f(xc, &n);
    const float p = 1.0f + (r + nb_vm_expm1_poly_f(r));
    const int32_t n1 = n >> 1, n2 = n - n1;
    return p * nb_vm_u2f((uint32_t)(n1 + 127) << 23) * nb_vm_u2f((uint32_t)(n2 + 127) << 23);
}

/* log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] plus e ln2: Cephes' logf
 * polynomial (degree 8 in f for (log(1+f) - f + f^2/2) / f^3). */
NB_VM float nb_vm_log_core_f(float e, float f) {
    float p = 7.0376836292e-2f;
    p = fmaf(p, f, -1.1514610310e-1f);
    p = fmaf(p, f, 1.1676998740e-1f);
    p = fmaf(p, f, -1.2420140846e-1f);
    p = fmaf(p, f, 1.4249322787e-1f);
    p = fmaf(p, f, -1.6668057665e-1f);
    p = fmaf(p, f, 2.0000714765e-1f);
    p = fmaf(p, f, -2.4999993993e-1f);
    p = fmaf(p, f, 3.3333331174e-1f);
    const float z = f * f;
    float y = fmaf(f * z, p, e * NB_VM_LN2LO_F);
    y = fmaf(-0.5f, z, y);
    return fmaf(e, NB_VM_LN2HI_F, f + y);
}

/* Splits u > 0 (normal) as 2^e m with m in [sqrt(1/2), sqrt(2)): returns m - 1 (exact). */
NB_VM float nb_vm_split_f(float u, int32_t* e) {
    const uint32_t b = nb_vm_f2u(u);
    *e = (int32_t)(b - 0x3f3504f3u) >> 23;
    return nb_vm_u2f(b - ((uint32_t)*e << 23)) - 1.0f;
}

/* log1p: u = 1 + x rounded, its rounding error c (Fast2Sum) folded into the
 * reduced argument: f = m - 1 + c 2^-e. At most 2 ulp. */
NB_VM float nb_vm_log1pf(float x) {
    const float u = 1.0f + x;
    const float c = x > 1.0f ? 1.0f - (u - x) : x - (u - 1.0f);
    int32_t e;
    float f = nb_vm_split_f(u, &e);
    const int32_t es = e > 100 ? 100 : e; /* c 2^-e is far below an ulp there */
    f = fmaf(c, nb_vm_u2f((uint32_t)(127 - es) << 23), f);
    const float y = nb_vm_log_core_f((float)e, f);
    const float special = x == -1.0f ? -INFINITY : x < -1.0f ? NAN : x + x;
    const float r = x > -1.0f && x < INFINITY ? y : special;
    return fabsf(x) < 0x1p-24f ? x : r; /* -0, subnormals, tiny x */
}

/* sigmoid from e = exp(-|x|): 1 / (1 + e) for x >= 0, e / (1 + e) below, so that
 * it does not flush to 0 where exp(-x) overflows. At most 3 ulp. */
NB_VM float nb_vm_sigmoid_from_expf(float e, float x) {
    const float s = 1.0f / (1.0f + e);
    return x >= 0 ? s : e * s;
}
NB_VM double nb_vm_sigmoid_from_exp(double e, double x) {
    const double s = 1.0 / (1.0 + e);
    return x >= 0 ? s : e * s;
}

/* ---- double ---- */

/* e^r - 1 - r for |r| <= ln2/2: Taylor to r^13 / 13!, truncation < 2^-58 relative. */
NB_VM double nb_vm_expm1_poly(double r) {
    double p = 1.0 / 6227020800.0;
    p = fma(p, r, 1.0 / 479001600.0);
    p = fma(p, r, 1.0 / 39916800.0);
    p = fma(p, r, 1.0 / 3628800.0);
    p = fma(p, r, 1.0 / 362880.0);
    p = fma(p, r, 1.0 / 40320.0);
    p = fma(p, r, 1.0 / 5040.0);
    p = fma(p, r, 1.0 / 720.0);
    p = fma(p, r, 1.0 / 120.0);
    p = fma(p, r, 1.0 / 24.0);
    p = fma(p, r, 1.0 / 6.0);
    p = fma(p, r, 0.5);
    return r * r * p;
}

NB_VM double nb_vm_reduce(double x, int64_t* n) {
    const double t = fma(x, NB_VM_LOG2E, 0x1.8p52);
    const double nf = t - 0x1.8p52;
    *n = (int64_t)(nb_vm_d2u(t) - nb_vm_d2u(0x1.8p52));
    return fma(nf, -NB_VM_LN2LO, fma(nf, -NB_VM_LN2HI, x));
}

/* exp in double, as expf above: at most 1 ulp. */
NB_VM double nb_vm_exp(double x) {
    double xc = x > 709.9 ? 709.9 : x;
    xc = xc < -746.0 ? -746.0 : xc;
    int64_t n;
    const double r = nb_vm_reduce(xc, &n);
    const double p = 1.0 + (r + nb_vm_expm1_poly(r));
    const int64_t n1 = n >> 1, n2 = n - n1;
    return p * nb_vm_u2d((uint64_t)(n1 + 1023) << 52) * nb_vm_u2d((uint64_t)(n2 + 1023) << 52);
}

#endif
