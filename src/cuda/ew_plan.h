// ew_plan.h: plans one elementwise launch on the host. Dims of size 1 are
// dropped and adjacent dims merged where every tensor operand is dense across
// them, so a broadcast-free contiguous op becomes one flat (vectorised) loop
// and a broadcast op indexes as few dims as possible. Host-only C++: the unit
// test (tests/cuda/test_ew_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_EW_PLAN_H_
#define NABLA_CUDA_EW_PLAN_H_

#include <cstdint>

#include "backend.h"

namespace nbcuda {

// The launch after dims are collapsed: strides in elements.
struct EwPlan {
    int32_t op, nin, dtype, ndim;
    int64_t numel;
    int64_t shape[NB_MAX_DIMS];
    int64_t out_strides[NB_MAX_DIMS];
    int64_t in_strides[2][NB_MAX_DIMS];
    void* out;
    const void* in[2];
    int32_t is_scalar[2];  // an absent second input counts as a scalar
    double scalar[2];
    double alpha, beta, gamma;
    bool contiguous;  // every tensor operand dense in the same order (ndim <= 1, stride 1)
    bool vectorised;  // contiguous and every pointer 16-byte aligned
};

// Fills pl from a (pl zeroed by the caller); strides of scalar inputs are ignored.
inline void ew_plan(const nb_bk_ew& a, EwPlan& pl) {
    pl.op = a.op, pl.nin = a.nin, pl.dtype = a.dtype;
    pl.out = a.out;
    pl.alpha = a.alpha, pl.beta = a.beta, pl.gamma = a.gamma;
    pl.numel = 1;
    for (int i = 0; i < 2; i++) {
        pl.in[i] = a.in[i];
        pl.is_scalar[i] = i < a.nin ? a.is_scalar[i] : 1;
        pl.scalar[i] = a.scalar[i];
    }
    int nd = 0;
    for (int d = 0; d < a.ndim; d++) {
        pl.numel *= a.shape[d];
        if (a.shape[d] == 1) continue;
        bool merge = nd > 0 && pl.out_strides[nd - 1] == a.out_strides[d] * a.shape[d];
        for (int i = 0; i < 2 && merge; i++)
            merge = pl.is_scalar[i] || pl.in_strides[i][nd - 1] == a.in_strides[i][d] * a.shape[d];
        const int k = merge ? nd - 1 : nd++;
        pl.shape[k] = merge ? pl.shape[k] * a.shape[d] : a.shape[d];
        pl.out_strides[k] = a.out_strides[d];
        for (int i = 0; i < 2; i++) pl.in_strides[i][k] = pl.is_scalar[i] ? 0 : a.in_strides[i][d];
    }
    pl.ndim = nd;
    pl.contiguous = nd == 0 || (nd == 1 && pl.out_strides[0] == 1 && (pl.is_scalar[0] || pl.in_strides[0][0] == 1) &&
                                (pl.is_scalar[1] || pl.in_strides[1][0] == 1));
    auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
    pl.vectorised = pl.contiguous && aligned(pl.out) && (pl.is_scalar[0] || aligned(pl.in[0])) &&
                    (pl.is_scalar[1] || aligned(pl.in[1]));
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_EW_PLAN_H_
