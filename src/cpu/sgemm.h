/* sgemm.h: nabla's own float32 GEMM for AVX-512 CPUs,
 *     C = alpha * A @ B + beta * C     (C row-major, A and B at any strides),
 * for the large products where it beats OpenBLAS (see gemm.c for the choice).
 *
 * Goto/BLIS structure: B is packed into 48-column panels that stay in a core's
 * L2, A into 8-row panels (shared by the threads) that stay in L1 while a
 * register-tiled 8 x 48 kernel sweeps B's panels. The threads split C's
 * columns, so each packs only its own part of B; they pack A together. */
#ifndef NABLA_CPU_SGEMM_H_
#define NABLA_CPU_SGEMM_H_

#include "../core/internal.h"

typedef struct nb_sgemm_args {
    int64_t M, N, K;
    float alpha, beta;          /* beta == 0 never reads C (NaN there does not propagate) */
    const float* a;             /* M x K: element (i, k) at a[i * a_rs + k * a_cs] */
    int64_t a_rs, a_cs;
    const float* b;             /* K x N: element (k, j) at b[k * b_rs + j * b_cs] */
    int64_t b_rs, b_cs;
    float* c;                   /* M x N: element (i, j) at c[i * ldc + j] */
    int64_t ldc;
} nb_sgemm_args;

#if defined(NB_HAVE_SGEMM_AVX512)
/* Runs on up to `threads` OpenMP threads; false when it could not allocate its
 * packing buffers (C is then untouched and the caller falls back to BLAS). */
NB_INTERNAL bool nb_sgemm_avx512(const nb_sgemm_args* g, int threads);
#endif

#endif /* NABLA_CPU_SGEMM_H_ */
