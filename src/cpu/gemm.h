/* gemm.h: batched, strided matrix multiply on the CPU,
 *     C[b] = alpha * A[b] @ B[b] + beta * C[b]   for every batch index b,
 * through OpenBLAS for float32/float64, nabla's own GEMM for bfloat16 (on CPUs
 * with AVX512_BF16) and a blocked loop for integers (and for any layout or size
 * BLAS cannot take). The caller (src/ops/linalg.c) validates
 * shapes and dtypes, allocates C and makes A and B BLAS-compatible when needed.
 * An addend (addmm's input, linear's bias) either is in C already or is copied
 * into each block of C by the thread that then computes that block. */
#ifndef NABLA_CPU_GEMM_H_
#define NABLA_CPU_GEMM_H_

#include "../core/internal.h"

/* The plan is the backend's (backend.h); these names are the CPU kernel's. */
typedef nb_bk_gemm_operand nb_gemm_operand;
typedef nb_bk_gemm nb_gemm_problem;

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

/* Runs the problem: every dtype the caller passes and every layout has a path.
 * Fails (NB_ERR_OUT_OF_MEMORY) only when a bfloat16 product cannot have its
 * packing memory. */
NB_INTERNAL nb_status nb_cpu_gemm(const nb_gemm_problem* p);
/* Whether the CPU multiplies half-precision operands of this dtype as they
 * are, for an M x N result: bfloat16 on CPUs with AVX512_BF16 (summed in
 * float32, rounded once), but for dot products (1 x 1), which sdot does
 * faster. Otherwise the caller converts float16/bfloat16 operands to float32. */
NB_INTERNAL bool nb_cpu_gemm_native(int32_t dtype, int64_t M, int64_t N);
/* The CPU table's gemm slot (f32, f64, integers and, where native, bf16). */
NB_INTERNAL nb_status nb_cpu_gemm_slot(int32_t device_index, const nb_bk_gemm* plan, void* stream);

#endif /* NABLA_CPU_GEMM_H_ */
