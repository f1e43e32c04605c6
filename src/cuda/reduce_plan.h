// reduce_plan.h: plans one reduction (nb_bk_reduce) on the host. Size-1 dims
// are dropped; kept dims (K) and reduced dims (R) are each merged where memory
// allows. R is ordered by decreasing input stride, so the innermost reduced
// dim walks memory, except for MAX / MIN, whose index is the flat position in
// R's logical order. The launch shape depends only on shapes and strides, so
// each output's elements are combined in the same order on every run:
//   - per block: one block of kReduceThreads per output, thread t folding
//     elements t, t + kReduceThreads, ... then a fixed warp-shuffle tree; when
//     the reduced range is long or walks contiguous memory;
//   - per thread: one thread per output folding its range in order; when there
//     are many outputs, each reading a short or strided range (a column sum);
//   - split: few outputs over long ranges (with the core's workspace): each
//     range cut into `splits` chunks of `chunk` elements, a block per chunk
//     writing a partial, then a block per output combining its partials.
// Host-only C++: the unit test (tests/cuda/test_reduce_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_REDUCE_PLAN_H_
#define NABLA_CUDA_REDUCE_PLAN_H_

#include <cstdint>
#include <cstdlib>

#include "backend.h"

namespace nbcuda {

constexpr int kReduceThreads = 256;

struct RedPlan {
    int32_t op, in_dtype, acc_dtype, nout;
    int32_t out_dtype[2];
    const void* in;
    void* out[2];
    int64_t outputs;  // elements per output tensor (product of K)
    int64_t count;    // elements reduced into each (product of R; 0: empty reduction)
    int32_t nk, nr;
    int64_t kshape[NB_MAX_DIMS], kin[NB_MAX_DIMS], kout[2][NB_MAX_DIMS];  // outer to inner
    int64_t rshape[NB_MAX_DIMS], rin[NB_MAX_DIMS];                        // outer to inner
    double p, correction;
    bool per_block;
    void* workspace;  // split: partials (NB_BK_REDUCE_PARTIAL_BYTES each), else nullptr
    int64_t splits, chunk;
};

constexpr int64_t kSplitChunk = 16384;  // elements per chunk at least, before the split count is capped

// Fills pl from a; false for a request no kernel takes.
inline bool reduce_plan(const nb_bk_reduce& a, RedPlan& pl) {
    if (a.ndim < 0 || a.ndim > NB_MAX_DIMS || a.op < 0 || a.op >= NB_RK_NUM || a.nout < 1 || a.nout > 2 ||
        a.in_dtype < 0 || a.in_dtype >= NB_BK_NUM_DTYPES || a.acc_dtype < 0 || a.acc_dtype >= NB_BK_NUM_DTYPES)
        return false;
    pl.op = a.op, pl.in_dtype = a.in_dtype, pl.acc_dtype = a.acc_dtype, pl.nout = a.nout;
    pl.in = a.in, pl.p = a.p, pl.correction = a.correction;
    for (int o = 0; o < 2; o++) {
        pl.out[o] = o < a.nout ? a.out[o] : nullptr;
        pl.out_dtype[o] = o < a.nout ? a.out_dtype[o] : -1;
    }
    pl.outputs = 1, pl.count = 1, pl.nk = 0, pl.nr = 0;
    int64_t rsh[NB_MAX_DIMS], rst[NB_MAX_DIMS];
    int nr = 0;
    for (int d = 0; d < a.ndim; d++) {
        const bool red = (a.mask >> d) & 1u;
        if (red) pl.count *= a.shape[d];
        else pl.outputs *= a.shape[d];
        if (a.shape[d] == 1) continue;
        if (red) {
            rsh[nr] = a.shape[d], rst[nr] = a.in_strides[d], nr++;
            continue;
        }
        // merge into the previous kept dim when the input and every output are dense across both
        int k = pl.nk;
        bool merge = k > 0 && pl.kin[k - 1] == a.in_strides[d] * a.shape[d];
        for (int o = 0; o < a.nout && merge; o++)
            merge = !pl.out[o] || pl.kout[o][k - 1] == a.out_strides[o][d] * a.shape[d];
        if (merge) {
            pl.kshape[k - 1] *= a.shape[d];
        } else {
            pl.kshape[k] = a.shape[d];
            pl.nk = ++k;
        }
        pl.kin[k - 1] = a.in_strides[d];
        for (int o = 0; o < 2; o++) pl.kout[o][k - 1] = o < a.nout && pl.out[o] ? a.out_strides[o][d] : 0;
    }
    // R: stable sort by decreasing |stride| (not for MAX / MIN), then merge.
    const bool ordered = a.op == NB_RK_MAX || a.op == NB_RK_MIN;
    for (int i = 1; i < nr && !ordered; i++)
        for (int j = i; j > 0 && std::llabs(rst[j - 1]) < std::llabs(rst[j]); j--) {
            int64_t t = rst[j]; rst[j] = rst[j - 1]; rst[j - 1] = t;
            t = rsh[j]; rsh[j] = rsh[j - 1]; rsh[j - 1] = t;
        }
    for (int i = 0; i < nr; i++) {
        if (pl.nr > 0 && pl.rin[pl.nr - 1] == rst[i] * rsh[i]) {
            pl.rshape[pl.nr - 1] *= rsh[i];
            pl.rin[pl.nr - 1] = rst[i];
        } else {
            pl.rshape[pl.nr] = rsh[i], pl.rin[pl.nr] = rst[i], pl.nr++;
        }
    }
    // A block per output when its range is long, or walks memory while the outputs do not.
    const int64_t rstride = pl.nr > 0 ? std::llabs(pl.rin[pl.nr - 1]) : 0;
    const int64_t kstride = pl.nk > 0 ? std::llabs(pl.kin[pl.nk - 1]) : 0;
    pl.per_block = pl.count >= 4096 || pl.outputs < 64 ||
                   (pl.count >= 32 && (rstride == 1 || (pl.nk > 0 && rstride < kstride)));
    // Split when the core gave the workspace this shape asks for.
    const int64_t need = nb_bk_reduce_workspace_bytes(pl.outputs, pl.count);
    pl.workspace = nullptr, pl.splits = 1, pl.chunk = pl.count;
    if (need > 0 && a.workspace != nullptr && a.workspace_bytes >= need) {
        int64_t splits = (pl.count + kSplitChunk - 1) / kSplitChunk;
        if (splits > NB_BK_REDUCE_MAX_SPLIT) splits = NB_BK_REDUCE_MAX_SPLIT;
        pl.chunk = (pl.count + splits - 1) / splits;
        pl.splits = (pl.count + pl.chunk - 1) / pl.chunk;
        pl.workspace = a.workspace;
    }
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_REDUCE_PLAN_H_
