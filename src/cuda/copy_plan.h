// copy_plan.h: plans one strided copy (nb_bk_copy) on the host. Dims of size 1
// are dropped and adjacent dims merged where both sides are dense across them,
// so a copy between matching layouts becomes one flat loop and a transpose or a
// broadcast indexes as few dims as possible. Host-only C++: the unit test
// (tests/cuda/test_copy_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_COPY_PLAN_H_
#define NABLA_CUDA_COPY_PLAN_H_

#include <cstdint>

#include "backend.h"

namespace nbcuda {

struct CopyPlan {
    int32_t dst_dtype, src_dtype, ndim;
    int64_t numel;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst_strides[NB_MAX_DIMS], src_strides[NB_MAX_DIMS];
    void* dst;
    const void* src;
    bool contiguous;  // one flat loop: ndim <= 1 with unit strides on both sides
};

// Fills pl from a; false for a request no kernel takes (bad dtype or ndim).
inline bool copy_plan(const nb_bk_copy& a, CopyPlan& pl) {
    if (a.ndim < 0 || a.ndim > NB_MAX_DIMS || a.dst_dtype < 0 || a.dst_dtype >= NB_BK_NUM_DTYPES ||
        a.src_dtype < 0 || a.src_dtype >= NB_BK_NUM_DTYPES)
        return false;
    pl.dst_dtype = a.dst_dtype, pl.src_dtype = a.src_dtype;
    pl.dst = a.dst, pl.src = a.src;
    pl.numel = 1;
    int nd = 0;
    for (int d = 0; d < a.ndim; d++) {
        pl.numel *= a.shape[d];
        if (a.shape[d] == 1) continue;
        const bool merge = nd > 0 && pl.dst_strides[nd - 1] == a.dst_strides[d] * a.shape[d] &&
                           pl.src_strides[nd - 1] == a.src_strides[d] * a.shape[d];
        const int k = merge ? nd - 1 : nd++;
        pl.shape[k] = merge ? pl.shape[k] * a.shape[d] : a.shape[d];
        pl.dst_strides[k] = a.dst_strides[d];
        pl.src_strides[k] = a.src_strides[d];
    }
    pl.ndim = nd;
    pl.contiguous = nd == 0 || (nd == 1 && pl.dst_strides[0] == 1 && pl.src_strides[0] == 1);
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_COPY_PLAN_H_
