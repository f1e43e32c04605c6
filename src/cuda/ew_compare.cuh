// ew_compare.cuh: comparisons and logical ops, the same expression for every compute
// type (float or the int64 of integer kernels); they return 0 or 1.
#ifndef NABLA_CUDA_EW_COMPARE_CUH_
#define NABLA_CUDA_EW_COMPARE_CUH_

#include <cuda_runtime.h>

#include "backend.h"

namespace nbcuda {

__host__ __device__ constexpr bool is_compare_op(int op) {
    return op == NB_BK_EQ || op == NB_BK_NE || op == NB_BK_LT || op == NB_BK_LE || op == NB_BK_GT ||
           op == NB_BK_GE || op == NB_BK_LOGICAL_AND || op == NB_BK_LOGICAL_OR || op == NB_BK_LOGICAL_XOR;
}

template <int Op, typename C>
__device__ __forceinline__ C compare(C x, C y) {
    if constexpr (Op == NB_BK_EQ) return x == y;
    else if constexpr (Op == NB_BK_NE) return x != y;
    else if constexpr (Op == NB_BK_LT) return x < y;
    else if constexpr (Op == NB_BK_LE) return x <= y;
    else if constexpr (Op == NB_BK_GT) return x > y;
    else if constexpr (Op == NB_BK_GE) return x >= y;
    else if constexpr (Op == NB_BK_LOGICAL_AND) return (x != 0) && (y != 0);
    else if constexpr (Op == NB_BK_LOGICAL_OR) return (x != 0) || (y != 0);
    else if constexpr (Op == NB_BK_LOGICAL_XOR) return (x != 0) != (y != 0);
    else static_assert(Op < 0, "not a comparison or logical op");
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_EW_COMPARE_CUH_
