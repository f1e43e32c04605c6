// ew_plan.h: plans one elementwise launch on the host and picks its kernel.
// The dims are collapsed (layout_plan.h: ordered by the output's strides, size-1
// dims dropped, dims merged where every tensor operand is dense across them);
// then:
//   CONTIGUOUS  one flat run for every operand: 16-byte vectors when aligned;
//   ROWS        the output's inner dim dense and every tensor input's dense or
//               broadcast (stride 0) along it, e.g. m + row or m + col[:, None]:
//               one div/mod per row, 16-byte vectors when every row start is aligned;
//   TILE        an input's unit-stride dim is not the output's (m.t() * 2):
//               32x32 tiles through shared memory, reads and writes both dense;
//   STRIDED     anything else: per-element offsets.
// Host-only C++: the unit test (tests/cuda/test_ew_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_EW_PLAN_H_
#define NABLA_CUDA_EW_PLAN_H_

#include <cstdint>

#include "backend.h"
#include "layout_plan.h"

namespace nbcuda {

enum EwPath { EW_CONTIGUOUS, EW_ROWS, EW_TILE, EW_STRIDED };

// Rows and tile sides shorter than this take the strided kernel (too little work per block).
constexpr int64_t kEwMinRow = 32;
constexpr int64_t kEwMinTileSide = 8;

// The launch after dims are collapsed: strides in elements.
struct DevError;  // index_plan.h

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
    int64_t scalar_i64[2];  // integer kernels: the scalars, exact
    double alpha, beta, gamma;
    bool contiguous;  // every tensor operand dense in the same order (ndim <= 1, stride 1)
    bool vectorised;  // CONTIGUOUS or ROWS with 16-byte accesses: every (row) start aligned
    EwPath path;
    int32_t tile_dim;   // TILE: the dim a tiled input has unit stride along (the other side is the last)
    int32_t tiled[2];   // TILE: input i goes through the shared-memory tile
    DevError* error;    // integer division: where a zero divisor is reported (NULL: not reported)
};

// Fills pl from a (pl zeroed by the caller); strides of scalar inputs are ignored.
inline void ew_plan(const nb_bk_ew& a, EwPlan& pl) {
    pl.op = a.op, pl.nin = a.nin, pl.dtype = a.dtype;
    pl.out = a.out;
    pl.alpha = a.alpha, pl.beta = a.beta, pl.gamma = a.gamma;
    for (int i = 0; i < 2; i++) {
        pl.in[i] = a.in[i];
        pl.is_scalar[i] = i < a.nin ? a.is_scalar[i] : 1;
        pl.scalar[i] = a.scalar[i];
        pl.scalar_i64[i] = a.scalar_i64[i];
    }
    int64_t zeros[NB_MAX_DIMS] = {0};
    const int64_t* strides[3] = {a.out_strides, pl.is_scalar[0] ? zeros : a.in_strides[0],
                                 pl.is_scalar[1] ? zeros : a.in_strides[1]};
    Layout<3> l;
    collapse<3>(a.ndim, a.shape, strides, l);
    pl.numel = l.numel;
    const int nd = pl.ndim = l.ndim, last = nd - 1;
    for (int d = 0; d < nd; d++) {
        pl.shape[d] = l.shape[d];
        pl.out_strides[d] = l.strides[0][d];
        for (int i = 0; i < 2; i++) pl.in_strides[i][d] = l.strides[1 + i][d];
    }
    pl.tile_dim = -1;
    pl.tiled[0] = pl.tiled[1] = 0;
    pl.contiguous = nd == 0 || (nd == 1 && pl.out_strides[0] == 1 && (pl.is_scalar[0] || pl.in_strides[0][0] == 1) &&
                                (pl.is_scalar[1] || pl.in_strides[1][0] == 1));
    const int64_t elem = dtype_bytes(a.dtype), out_elem = NB_BK_IS_BOOL(a.op) ? 1 : elem;
    const int64_t lanes = elem > 0 ? 16 / elem : 1;  // elements per 16-byte input vector
    // every tensor operand dense along the last dim keeps 16-byte vectors at each row start
    auto aligned = [&](bool only_dense) {
        if (!rows_aligned(l, 0, pl.out, out_elem, lanes * out_elem)) return false;
        for (int i = 0; i < 2; i++)
            if (!pl.is_scalar[i] && (!only_dense || nd == 0 || pl.in_strides[i][last] != 0) &&
                !rows_aligned(l, 1 + i, pl.in[i], elem, 16))
                return false;
        return true;
    };
    if (pl.contiguous) {
        pl.path = EW_CONTIGUOUS;
        pl.vectorised = aligned(false);
        return;
    }
    pl.vectorised = false;
    bool rows = pl.out_strides[last] == 1 && pl.shape[last] >= kEwMinRow;
    for (int i = 0; i < 2 && rows; i++)
        rows = pl.is_scalar[i] || pl.in_strides[i][last] == 0 || pl.in_strides[i][last] == 1;
    if (rows) {
        pl.path = EW_ROWS;
        pl.vectorised = aligned(true);
        return;
    }
    pl.path = EW_STRIDED;
    if (nd < 2 || pl.out_strides[last] != 1 || pl.shape[last] < kEwMinTileSide) return;
    for (int i = 0; i < 2; i++) {
        const int64_t s = pl.in_strides[i][last];
        if (pl.is_scalar[i] || s == 0 || s == 1) continue;
        for (int d = 0; d < last && pl.tile_dim < 0; d++)
            if (pl.in_strides[i][d] == 1 && pl.shape[d] >= kEwMinTileSide) pl.tile_dim = d;
        if (pl.tile_dim < 0) continue;
        pl.path = EW_TILE;
        for (int k = 0; k < 2; k++)  // every input with the same unit-stride dim shares the tile path
            pl.tiled[k] = !pl.is_scalar[k] && pl.in_strides[k][pl.tile_dim] == 1 && pl.in_strides[k][last] != 0 &&
                          pl.in_strides[k][last] != 1;
        return;
    }
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_EW_PLAN_H_
