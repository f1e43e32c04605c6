/* gemm.h: batched, strided matrix multiply on the CPU,
 *     C[b] = alpha * A[b] @ B[b] + beta * C[b]   for every batch index b,
 * through OpenBLAS for float32/float64 and a blocked loop for integers (and for
 * any layout or size BLAS cannot take). The caller (src/ops/linalg.c) validates
 * shapes and dtypes, allocates C and makes A and B BLAS-compatible when needed.
 * An addend (addmm's input, linear's bias) either is in C already or is copied
 * into each block of C by the thread that then computes that block. */
#ifndef NABLA_CPU_GEMM_H_
#define NABLA_CPU_GEMM_H_

#include "../core/internal.h"

/* One operand: a rows x cols matrix per batch index; strides in elements. */
typedef struct nb_gemm_operand {
    char* data;                     /* the first element of batch 0 */
    int64_t rs, cs;                 /* row and column strides (free when that size is 1) */
    int64_t bstrides[NB_MAX_DIMS];  /* per batch dim; 0 broadcasts the operand */
} nb_gemm_operand;

typedef struct nb_gemm_problem {
    int32_t dtype;                  /* NB_F32, NB_F64 or an integer dtype (not bool) */
    int64_t M, N, K;
    int32_t bndim;                  /* batch dims, outermost first */
    int64_t bshape[NB_MAX_DIMS];
    nb_gemm_operand a, b, c;        /* a: M x K, b: K x N, c: M x N (c never overlaps a or b) */
    nb_gemm_operand in;             /* an addend broadcast to M x N (stride 0), or none: */
    int32_t in_dtype;               /* its dtype, or -1 when C already holds the addend or there is none */
    double alpha, beta;             /* floating dtypes */
    int64_t ialpha, ibeta;          /* integer dtypes (PyTorch truncates alpha and beta) */
    bool accumulate;                /* beta applies (beta != 0 and an addend, in C or in `in`) */
} nb_gemm_problem;

enum { NB_GEMM_NONE = 0, NB_GEMM_ROW = 1, NB_GEMM_COL = 2 };

/* How BLAS can read a rows x cols matrix with strides (rs, cs): row-major
 * (element (i, j) at i * ld + j), column-major (at i + j * ld), or not at all.
 * Strides of size-1 dims do not matter. ld is at least max(1, row or column
 * length), so the matrix never overlaps itself. */
static inline int nb_gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t* ld) {
    const int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= c1)) {
        *ld = rows <= 1 ? c1 : rs;
        return NB_GEMM_ROW;
    }
    if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= r1)) {
        *ld = cols <= 1 ? r1 : cs;
        return NB_GEMM_COL;
    }
    return NB_GEMM_NONE;
}

/* Largest dimension or leading dimension BLAS takes (scipy-openblas32 uses 32-bit ints). */
#define NB_GEMM_BLAS_MAX 2147483647LL

/* Runs the problem. Never fails: every dtype and layout has a path. */
NB_INTERNAL void nb_cpu_gemm(const nb_gemm_problem* p);

#endif /* NABLA_CPU_GEMM_H_ */
