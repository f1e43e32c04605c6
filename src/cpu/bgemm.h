/* bgemm.h: nabla's own bfloat16 GEMM for CPUs with AVX512_BF16,
 *     C = alpha * A @ B + beta * C     (C row-major, A and B at any strides),
 * every product summed in float32 (vdpbf16ps: two steps of K per instruction)
 * and each result rounded to bfloat16 once, after alpha and beta.
 *
 * Goto/BLIS structure as sgemm.h: B packed into 48-column panels of K pairs
 * that stay in L2, A into 8-row panels of K pairs that stay in L1 (or read in
 * place where its rows run along K: the pairs' layout already). The sum of
 * an element runs in one order over K whatever block of C it is computed in,
 * so results do not depend on how the caller splits C between threads. */
#ifndef NABLA_CPU_BGEMM_H_
#define NABLA_CPU_BGEMM_H_

#include "../core/internal.h"

typedef struct nb_bgemm_args {
    int64_t M, N, K;
    float alpha, beta;   /* beta == 0 never reads C (NaN there does not propagate) */
    const uint16_t* a;   /* M x K bfloat16: element (i, k) at a[i * a_rs + k * a_cs] */
    int64_t a_rs, a_cs;
    const uint16_t* b;   /* K x N bfloat16: element (k, j) at b[k * b_rs + j * b_cs] */
    int64_t b_rs, b_cs;
    uint16_t* c;         /* M x N bfloat16: element (i, j) at c[i * ldc + j] */
    int64_t ldc;
} nb_bgemm_args;

#if defined(NB_HAVE_BGEMM_AVX512BF16)
/* Runs on the calling thread; false when it could not allocate its packing
 * buffers (C is then untouched). */
NB_INTERNAL bool nb_bgemm_avx512bf16(const nb_bgemm_args* g);
#endif

#endif /* NABLA_CPU_BGEMM_H_ */
