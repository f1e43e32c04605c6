// layout_plan.h: the dim collapsing shared by the copy and elementwise plans.
// Tensor 0 is the one written: dims of size 1 are dropped, the rest ordered by
// tensor 0's strides (outermost first, as a contiguous tensor has them; any order
// is correct for an elementwise map, and this one makes the writes the dense
// ones), then adjacent dims merged where every tensor is dense across them.
// Host-only C++ (tests/cuda/test_copy_plan.cpp, test_ew_plan.cpp).
#ifndef NABLA_CUDA_LAYOUT_PLAN_H_
#define NABLA_CUDA_LAYOUT_PLAN_H_

#include <cstdint>

#include "backend.h"

namespace nbcuda {

// K tensors over shape[ndim]: strides[k] in elements (0 broadcasts).
template <int K>
struct Layout {
    int32_t ndim;
    int64_t numel;
    int64_t shape[NB_MAX_DIMS];
    int64_t strides[K][NB_MAX_DIMS];
};

inline int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

// Elements of a dtype code (0 for a code outside nabla's ten).
inline int64_t dtype_bytes(int32_t code) {
    switch (code) {
        case NB_F64: case NB_I64: return 8;
        case NB_F32: case NB_I32: return 4;
        case NB_F16: case NB_BF16: case NB_I16: return 2;
        case NB_I8: case NB_U8: case NB_BOOL: return 1;
        default: return 0;
    }
}

// Collapses ndim dims of shape for K tensors (strides[k] = the k-th tensor's strides).
template <int K>
inline void collapse(int32_t ndim, const int64_t* shape, const int64_t* const* strides, Layout<K>& out) {
    int order[NB_MAX_DIMS];
    int n = 0;
    out.numel = 1;
    for (int d = 0; d < ndim; d++) {
        out.numel *= shape[d];
        if (shape[d] != 1) order[n++] = d;
    }
    // Stable insertion sort, larger |stride| of tensor 0 first; ties keep the next tensor's order.
    auto outer = [&](int x, int y) {  // x belongs before y
        for (int k = 0; k < K; k++) {
            const int64_t sx = abs64(strides[k][x]), sy = abs64(strides[k][y]);
            if (sx != sy) return sx > sy;
        }
        return false;
    };
    for (int i = 1; i < n; i++) {
        const int d = order[i];
        int j = i;
        for (; j > 0 && outer(d, order[j - 1]); j--) order[j] = order[j - 1];
        order[j] = d;
    }
    int nd = 0;
    for (int i = 0; i < n; i++) {
        const int d = order[i];
        bool merge = nd > 0;
        for (int k = 0; k < K && merge; k++) merge = out.strides[k][nd - 1] == strides[k][d] * shape[d];
        const int m = merge ? nd - 1 : nd++;
        out.shape[m] = merge ? out.shape[m] * shape[d] : shape[d];
        for (int k = 0; k < K; k++) out.strides[k][m] = strides[k][d];
    }
    out.ndim = nd;
}

// Whether a pointer plus every stride (in bytes) of the dims before the last keeps `align`.
template <int K>
inline bool rows_aligned(const Layout<K>& l, int k, const void* p, int64_t elem, int64_t align) {
    if (reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(align) != 0) return false;
    for (int d = 0; d + 1 < l.ndim; d++)
        if (abs64(l.strides[k][d]) * elem % align != 0) return false;
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_LAYOUT_PLAN_H_
