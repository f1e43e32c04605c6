// reduce_plan.h: plans one reduction (nb_bk_reduce) on the host. Size-1 dims
// are dropped; kept dims (K) and reduced dims (R) are each merged where memory
// allows. R is ordered by decreasing input stride, so the innermost reduced
// dim walks memory, except for MAX / MIN, whose index is the flat position in
// R's logical order. The launch shape, and with it the order in which each
// output's elements are combined, depends only on shapes and strides (never
// on the data's alignment or the GPU), so results repeat bit for bit:
//   - rows (R is one contiguous range): a warp or a block of kReduceThreads per
//     output ("group"). The range is cut into 16-byte chunks of `vec` elements;
//     thread t of the group folds chunks t, t + group, ... (16-byte loads when
//     the row is aligned, the same arithmetic from scalar loads when not), lane
//     j of its accumulators taking element j of each chunk; then the lanes, the
//     warp and the block combine in fixed trees. Few long rows are cut into
//     `splits` pieces of `chunk` chunks, one group each, into the workspace;
//   - cols (the innermost kept dim is contiguous, R strided: a column sum): a
//     thread holds `vec` adjacent outputs as lanes; a block has `bx` threads
//     across outputs and 256 / bx along R, thread y folding R positions y,
//     y + 256 / bx, ... of its piece, then a fixed tree over y. Few columns:
//     R is cut into `splits` pieces of `chunk` positions (blockIdx.y);
//   - split pieces (rows, cols) leave partial p of output o at ws[p * outputs + o];
//     a second pass folds them in order with `fin_group` threads per output;
//   - generic (anything else): per block (one block per output, thread t
//     folding elements t, t + kReduceThreads, ...; long or contiguous ranges),
//     per thread (one thread per output folding its range in order; many short
//     or strided ranges), or split (few outputs over long ranges: each range cut
//     into `splits` chunks of `chunk` elements, a block per chunk writing a
//     partial, then a block per output combining them).
// Host-only C++: the unit test (tests/cuda/test_reduce_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_REDUCE_PLAN_H_
#define NABLA_CUDA_REDUCE_PLAN_H_

#include <cstdint>
#include <cstdlib>

#include "backend.h"

namespace nbcuda {

constexpr int kReduceThreads = 256;

enum RedKind : int32_t { kRedGeneric, kRedRows, kRedCols };

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
    int32_t kind;     // RedKind
    bool per_block;   // generic: a block per output, else a thread per output
    void* workspace;  // split: partials (NB_BK_REDUCE_PARTIAL_BYTES each), else nullptr
    int64_t splits;   // pieces per output (1: no split)
    int64_t chunk;    // per piece: generic elements, rows 16-byte chunks, cols R positions
    int32_t vec;      // rows, cols: elements per 16-byte chunk
    int32_t group;    // rows: threads per output (32 or kReduceThreads)
    int32_t bx;       // cols: threads across outputs in a block (a power of two <= 32)
    int32_t fin_group;  // rows, cols split: threads per output in the second pass (1, 32 or kReduceThreads)
    bool aligned;     // cols: each thread's `vec` inputs start 16-byte aligned at every R position
};

constexpr int64_t kSplitChunk = 16384;   // generic split: elements per chunk at least, before the count is capped
constexpr int64_t kGenericMaxSplit = 256;  // generic split: chunks per output at most (a thread each to finish)
constexpr int64_t kFillThreads = int64_t(1) << 18;  // threads that fill a large GPU (132 SMs x 2048)
constexpr int64_t kMinChunksPerThread = 4;  // rows split: each thread folds this many chunks at least
constexpr int64_t kMinRowsPerThread = 16;   // cols split: each thread folds this many R positions at least

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline int64_t dtype_bytes(int32_t code) {
    static const int64_t kSizes[NB_BK_NUM_DTYPES] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1};
    return kSizes[code];
}

// Pieces for a range of `units` folded by `threads` threads per piece, `base`
// threads in all without splitting, with `outputs` outputs: enough to fill the
// GPU, each thread folding `min_per_thread` units at least, within the
// workspace's bounds; 1 when splitting does not pay or no workspace fits.
inline int64_t split_count(const nb_bk_reduce& a, int64_t outputs, int64_t units, int64_t threads, int64_t base,
                           int64_t min_per_thread) {
    int64_t s = ceil_div(kFillThreads, base);
    const int64_t most = units / (threads * min_per_thread);
    if (s > most) s = most;
    if (s > NB_BK_REDUCE_MAX_SPLIT) s = NB_BK_REDUCE_MAX_SPLIT;
    if (s > NB_BK_REDUCE_MAX_PARTIALS / outputs) s = NB_BK_REDUCE_MAX_PARTIALS / outputs;
    if (s < 2 || a.workspace == nullptr || a.workspace_bytes < outputs * s * NB_BK_REDUCE_PARTIAL_BYTES) return 1;
    return s;
}

// cols: blocks across the outputs, for each piece of R.
inline int64_t cols_blocks(const RedPlan& pl) {
    const int64_t cols = pl.kshape[pl.nk - 1];
    return ceil_div(pl.outputs / cols * ceil_div(cols, pl.vec), pl.bx);
}

// Threads per output for the second pass over `splits` partials each.
inline int32_t finish_group(int64_t splits) { return splits >= 256 ? kReduceThreads : splits >= 32 ? 32 : 1; }

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
    pl.workspace = nullptr, pl.splits = 1, pl.chunk = pl.count, pl.kind = kRedGeneric, pl.per_block = false;
    pl.vec = static_cast<int32_t>(16 / dtype_bytes(pl.in_dtype)), pl.group = kReduceThreads, pl.bx = 1;
    pl.fin_group = 1, pl.aligned = false;
    if (pl.outputs == 0) return true;
    // rows: one contiguous reduced range per output
    if (pl.count >= 32 && pl.nr == 1 && pl.rin[0] == 1) {
        pl.kind = kRedRows;
        const int64_t chunks = ceil_div(pl.count, pl.vec);
        pl.group = pl.outputs * 32 >= kFillThreads || chunks < 2 * kReduceThreads ? 32 : kReduceThreads;
        pl.chunk = chunks;
        if (pl.group == kReduceThreads && pl.outputs * kReduceThreads < kFillThreads) {
            const int64_t s = split_count(a, pl.outputs, chunks, kReduceThreads, pl.outputs * kReduceThreads,
                                          kMinChunksPerThread);
            if (s > 1) {
                pl.chunk = ceil_div(chunks, s);
                pl.splits = ceil_div(chunks, pl.chunk);
            }
        }
    }
    // cols: the innermost kept dim walks memory and R does not
    bool strided_r = pl.nr > 0;
    for (int k = 0; k < pl.nr; k++) strided_r = strided_r && std::llabs(pl.rin[k]) != 1;
    if (pl.kind == kRedGeneric && pl.count >= 2 && pl.nk > 0 && pl.kin[pl.nk - 1] == 1 && strided_r) {
        pl.kind = kRedCols;
        const int64_t cols = pl.kshape[pl.nk - 1];
        const int64_t vecs = pl.outputs / cols * ceil_div(cols, pl.vec);
        while (pl.bx < 32 && pl.bx < vecs) pl.bx *= 2;
        const int64_t ys = kReduceThreads / pl.bx;
        const int64_t base = cols_blocks(pl) * kReduceThreads;
        const int64_t s = split_count(a, pl.outputs, pl.count, ys, base, kMinRowsPerThread);
        if (s > 1) {
            pl.chunk = ceil_div(pl.count, s);
            pl.splits = ceil_div(pl.count, pl.chunk);
        }
        pl.aligned = reinterpret_cast<uintptr_t>(pl.in) % 16 == 0;
        for (int k = 0; k + 1 < pl.nk; k++) pl.aligned = pl.aligned && pl.kin[k] % pl.vec == 0;
        for (int k = 0; k < pl.nr; k++) pl.aligned = pl.aligned && pl.rin[k] % pl.vec == 0;
    }
    if (pl.kind != kRedGeneric) {
        if (pl.splits > 1) pl.workspace = a.workspace;
        pl.fin_group = finish_group(pl.splits);
        return true;
    }
    // generic: a block per output when its range is long, or walks memory while the outputs do not
    const int64_t rstride = pl.nr > 0 ? std::llabs(pl.rin[pl.nr - 1]) : 0;
    const int64_t kstride = pl.nk > 0 ? std::llabs(pl.kin[pl.nk - 1]) : 0;
    pl.per_block = pl.count >= 4096 || pl.outputs < 64 ||
                   (pl.count >= 32 && (rstride == 1 || (pl.nk > 0 && rstride < kstride)));
    // split few outputs over long ranges when the core gave a workspace for it
    if (pl.outputs <= 64 && pl.count >= 65536 && a.workspace != nullptr &&
        a.workspace_bytes >= pl.outputs * kGenericMaxSplit * NB_BK_REDUCE_PARTIAL_BYTES) {
        int64_t splits = ceil_div(pl.count, kSplitChunk);
        if (splits > kGenericMaxSplit) splits = kGenericMaxSplit;
        pl.chunk = ceil_div(pl.count, splits);
        pl.splits = ceil_div(pl.count, pl.chunk);
        pl.workspace = a.workspace;
    }
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_REDUCE_PLAN_H_
