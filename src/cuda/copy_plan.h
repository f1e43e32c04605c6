// copy_plan.h: plans one strided copy (nb_bk_copy) on the host and picks its
// kernel. The dims are collapsed (layout_plan.h: ordered by the destination's
// strides, size-1 dims dropped, dense runs merged); then:
//   MEMCPY   same dtype, one dense run on both sides: cudaMemcpyAsync;
//   ROWS     the destination's inner dim dense, the source's dense or broadcast
//            (stride 0): one div/mod per row, 16-byte accesses when every row
//            start is aligned; a flat converting copy is one row;
//   TILE     the source's unit-stride dim is another one (a transpose): 32x32
//            tiles through shared memory, so reads and writes are both dense;
//   GENERIC  anything else: per-element offsets.
// Host-only C++: the unit test (tests/cuda/test_copy_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_COPY_PLAN_H_
#define NABLA_CUDA_COPY_PLAN_H_

#include <cstdint>

#include "backend.h"
#include "layout_plan.h"

namespace nbcuda {

enum CopyPath { COPY_MEMCPY, COPY_ROWS, COPY_TILE, COPY_GENERIC };

// Tiles and rows shorter than this take the generic kernel (too little work per block).
constexpr int64_t kMinRow = 32;
constexpr int64_t kMinTileSide = 8;

struct CopyPlan {
    int32_t dst_dtype, src_dtype, ndim;
    int64_t numel;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst_strides[NB_MAX_DIMS], src_strides[NB_MAX_DIMS];
    void* dst;
    const void* src;
    bool contiguous;  // one flat run: ndim <= 1 with unit strides on both sides
    CopyPath path;
    bool vectorised;  // ROWS: 16-byte accesses (every row start 16-byte aligned on both sides)
    int32_t tile_dim;  // TILE: the source's unit-stride dim (the other tile side is the last dim)
    int64_t bytes;     // MEMCPY: the run's length in bytes
};

// Fills pl from a; false for a request no kernel takes (bad dtype or ndim).
inline bool copy_plan(const nb_bk_copy& a, CopyPlan& pl) {
    if (a.ndim < 0 || a.ndim > NB_MAX_DIMS || a.dst_dtype < 0 || a.dst_dtype >= NB_BK_NUM_DTYPES ||
        a.src_dtype < 0 || a.src_dtype >= NB_BK_NUM_DTYPES)
        return false;
    pl.dst_dtype = a.dst_dtype, pl.src_dtype = a.src_dtype;
    pl.dst = a.dst, pl.src = a.src;
    const int64_t* strides[2] = {a.dst_strides, a.src_strides};
    Layout<2> l;
    collapse<2>(a.ndim, a.shape, strides, l);
    pl.numel = l.numel;
    pl.ndim = l.ndim;
    for (int d = 0; d < l.ndim; d++)
        pl.shape[d] = l.shape[d], pl.dst_strides[d] = l.strides[0][d], pl.src_strides[d] = l.strides[1][d];
    const int nd = l.ndim, last = nd - 1;
    pl.contiguous = nd == 0 || (nd == 1 && pl.dst_strides[0] == 1 && pl.src_strides[0] == 1);
    pl.vectorised = false;
    pl.tile_dim = -1;
    pl.bytes = 0;
    const int64_t ds = dtype_bytes(a.dst_dtype), ss = dtype_bytes(a.src_dtype);
    if (pl.contiguous && a.dst_dtype == a.src_dtype) {
        pl.path = COPY_MEMCPY;
        pl.bytes = pl.numel * ds;
        return true;
    }
    const bool dst_inner_dense = nd == 0 || pl.dst_strides[last] == 1;
    if (pl.contiguous ||
        (dst_inner_dense && pl.shape[last] >= kMinRow && (pl.src_strides[last] == 1 || pl.src_strides[last] == 0))) {
        pl.path = COPY_ROWS;
        pl.vectorised = rows_aligned(l, 0, a.dst, ds, 16) &&
                        (nd == 0 || pl.src_strides[last] == 0 || rows_aligned(l, 1, a.src, ss, 16));
        return true;
    }
    if (nd >= 2 && dst_inner_dense && pl.shape[last] >= kMinTileSide && pl.src_strides[last] != 0) {
        for (int d = 0; d < last; d++)
            if (pl.src_strides[d] == 1 && pl.shape[d] >= kMinTileSide) {
                pl.path = COPY_TILE;
                pl.tile_dim = d;
                return true;
            }
    }
    pl.path = COPY_GENERIC;
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_COPY_PLAN_H_
