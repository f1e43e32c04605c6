// test_ew_plan.cpp: the host-side planning of a CUDA elementwise launch
// (src/cuda/ew_plan.h): dim collapsing and ordering, broadcast strides,
// scalars, the path picked (contiguous, rows, tile, strided) and the vectorised
// decisions. Host-only: needs no GPU and no nvcc.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/ew_plan.h"

#include "plan_check.h"

alignas(16) static float buf[4][1024];

// A request over shape with the given element strides (out, a, b).
static nb_bk_ew request(int nin, int ndim, const int64_t* shape, const int64_t* so, const int64_t* sa,
                        const int64_t* sb) {
    nb_bk_ew a;
    std::memset(&a, 0, sizeof a);
    a.op = nin == 2 ? NB_BK_ADD : NB_BK_EXP;
    a.nin = nin, a.dtype = NB_F32, a.ndim = ndim;
    a.out = buf[0], a.in[0] = buf[1], a.in[1] = buf[2];
    for (int d = 0; d < ndim; d++) {
        a.shape[d] = shape[d], a.out_strides[d] = so[d], a.in_strides[0][d] = sa[d];
        a.in_strides[1][d] = sb ? sb[d] : 0;
    }
    return a;
}

static nbcuda::EwPlan plan(const nb_bk_ew& a) {
    nbcuda::EwPlan pl;
    std::memset(&pl, 0, sizeof pl);
    nbcuda::ew_plan(a, pl);
    return pl;
}

static void contiguous_collapses_to_one_dim() {
    const int64_t shape[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    nbcuda::EwPlan pl = plan(request(2, 3, shape, st, st, st));
    CHECK(pl.ndim == 1 && pl.shape[0] == 24 && pl.numel == 24);
    CHECK(pl.contiguous && pl.vectorised);
}

static void size_one_dims_drop_out() {
    const int64_t shape[4] = {1, 5, 1, 3}, st[4] = {99, 3, 77, 1};
    nbcuda::EwPlan pl = plan(request(1, 4, shape, st, st, nullptr));
    CHECK(pl.ndim == 1 && pl.shape[0] == 15 && pl.contiguous);
}

static void broadcast_keeps_the_broadcast_dim() {
    // (4, 5) + (5,): b's row has stride 0 across dim 0, so nothing merges
    const int64_t shape[2] = {4, 5}, so[2] = {5, 1}, sb[2] = {0, 1};
    nbcuda::EwPlan pl = plan(request(2, 2, shape, so, so, sb));
    CHECK(pl.ndim == 2 && pl.shape[0] == 4 && pl.shape[1] == 5);
    CHECK(pl.in_strides[1][0] == 0 && pl.in_strides[1][1] == 1 && pl.out_strides[0] == 5);
    CHECK(!pl.contiguous && !pl.vectorised);
}

static void broadcast_dims_merge_with_each_other() {
    // (2, 3, 4) + (4,): dims 0 and 1 merge (b has stride 0 in both)
    const int64_t shape[3] = {2, 3, 4}, so[3] = {12, 4, 1}, sb[3] = {0, 0, 1};
    nbcuda::EwPlan pl = plan(request(2, 3, shape, so, so, sb));
    CHECK(pl.ndim == 2 && pl.shape[0] == 6 && pl.shape[1] == 4 && pl.in_strides[1][0] == 0);
}

static void transposed_input_stays_strided() {
    const int64_t shape[2] = {3, 4}, so[2] = {4, 1}, sa[2] = {1, 3};
    nbcuda::EwPlan pl = plan(request(1, 2, shape, so, sa, nullptr));
    CHECK(pl.ndim == 2 && !pl.contiguous);
    CHECK(pl.in_strides[0][0] == 1 && pl.in_strides[0][1] == 3);
}

static void scalars_are_ignored_for_layout() {
    const int64_t shape[2] = {3, 4}, st[2] = {4, 1}, junk[2] = {7, 9};
    nb_bk_ew a = request(2, 2, shape, st, st, junk);
    a.is_scalar[1] = 1, a.scalar[1] = 2.5;
    nbcuda::EwPlan pl = plan(a);
    CHECK(pl.ndim == 1 && pl.contiguous && pl.vectorised && pl.is_scalar[1] && pl.scalar[1] == 2.5);
    CHECK(pl.in_strides[1][0] == 0);
}

static void unary_second_input_counts_as_scalar() {
    const int64_t shape[1] = {8}, st[1] = {1};
    nbcuda::EwPlan pl = plan(request(1, 1, shape, st, st, nullptr));
    CHECK(pl.is_scalar[1] == 1 && pl.contiguous);
}

static void misaligned_pointer_is_not_vectorised() {
    const int64_t shape[1] = {8}, st[1] = {1};
    nb_bk_ew a = request(2, 1, shape, st, st, st);
    a.in[1] = buf[2] + 1;
    nbcuda::EwPlan pl = plan(a);
    CHECK(pl.contiguous && !pl.vectorised);
}

static void zero_dim_and_empty() {
    nbcuda::EwPlan pl = plan(request(2, 0, nullptr, nullptr, nullptr, nullptr));
    CHECK(pl.ndim == 0 && pl.numel == 1 && pl.contiguous);
    const int64_t shape[2] = {0, 4}, st[2] = {4, 1};
    pl = plan(request(2, 2, shape, st, st, st));
    CHECK(pl.numel == 0);
}

static void attributes_pass_through() {
    const int64_t shape[1] = {8}, st[1] = {1};
    nb_bk_ew a = request(2, 1, shape, st, st, st);
    a.alpha = 0.5, a.beta = 2, a.gamma = -3, a.dtype = NB_BF16;
    nbcuda::EwPlan pl = plan(a);
    CHECK(pl.alpha == 0.5 && pl.beta == 2 && pl.gamma == -3 && pl.dtype == NB_BF16 && pl.op == NB_BK_ADD);
}

static void row_broadcast_takes_vectorised_rows() {
    // m [8, 64] + row [64]
    const int64_t shape[2] = {8, 64}, so[2] = {64, 1}, sb[2] = {0, 1};
    nbcuda::EwPlan pl = plan(request(2, 2, shape, so, so, sb));
    CHECK(pl.path == nbcuda::EW_ROWS && pl.vectorised && pl.ndim == 2);
    // m + col[:, None]: the column is one value per row
    const int64_t sc[2] = {1, 0};
    pl = plan(request(2, 2, shape, so, so, sc));
    CHECK(pl.path == nbcuda::EW_ROWS && pl.vectorised && pl.in_strides[1][1] == 0);
    // a slice of wider rows times a scalar
    const int64_t sa[2] = {80, 1};
    nb_bk_ew a = request(2, 2, shape, so, sa, sb);
    a.is_scalar[1] = 1;
    pl = plan(a);
    CHECK(pl.path == nbcuda::EW_ROWS && pl.vectorised);
}

static void odd_or_misaligned_rows_are_not_vectorised() {
    const int64_t shape[2] = {8, 33}, so[2] = {33, 1}, sb[2] = {0, 1};  // 132-byte rows
    nbcuda::EwPlan pl = plan(request(2, 2, shape, so, so, sb));
    CHECK(pl.path == nbcuda::EW_ROWS && !pl.vectorised);
    const int64_t shape2[2] = {8, 64}, so2[2] = {64, 1};
    nb_bk_ew a = request(2, 2, shape2, so2, so2, sb);
    a.in[1] = buf[2] + 1;  // the row itself misaligned
    pl = plan(a);
    CHECK(pl.path == nbcuda::EW_ROWS && !pl.vectorised);
    a = request(2, 2, shape2, so2, so2, sb);
    a.op = NB_BK_LT;  // a bool output needs 4-byte alignment for a 4-lane float vector
    a.out = reinterpret_cast<unsigned char*>(buf[0]) + 4;
    pl = plan(a);
    CHECK(pl.path == nbcuda::EW_ROWS && pl.vectorised);
    a.out = reinterpret_cast<unsigned char*>(buf[0]) + 2;
    pl = plan(a);
    CHECK(pl.path == nbcuda::EW_ROWS && !pl.vectorised);
}

static void transposed_inputs_take_the_tile() {
    const int64_t shape[2] = {40, 48}, so[2] = {48, 1}, st[2] = {1, 40};
    nbcuda::EwPlan pl = plan(request(1, 2, shape, so, st, nullptr));  // exp(m.t())
    CHECK(pl.path == nbcuda::EW_TILE && pl.tile_dim == 0 && pl.tiled[0] && !pl.tiled[1]);
    pl = plan(request(2, 2, shape, so, st, so));  // m.t() + n: only a goes through the tile
    CHECK(pl.path == nbcuda::EW_TILE && pl.tiled[0] && !pl.tiled[1]);
    pl = plan(request(2, 2, shape, so, so, st));
    CHECK(pl.path == nbcuda::EW_TILE && !pl.tiled[0] && pl.tiled[1]);
    pl = plan(request(2, 2, shape, so, st, st));
    CHECK(pl.path == nbcuda::EW_TILE && pl.tiled[0] && pl.tiled[1]);
    // a transposed out= with dense inputs: ordered by the output, the inputs are the transposed side
    pl = plan(request(2, 2, shape, st, so, so));
    CHECK(pl.path == nbcuda::EW_TILE && pl.out_strides[1] == 1 && pl.tiled[0] && pl.tiled[1]);
    // a 3-D permutation: out [10, 12, 16] dense, a is a permute of a dense [16, 12, 10]
    const int64_t s3[3] = {10, 12, 16}, o3[3] = {192, 16, 1}, p3[3] = {1, 10, 120};
    pl = plan(request(1, 3, s3, o3, p3, nullptr));
    CHECK(pl.path == nbcuda::EW_TILE && pl.ndim == 3 && pl.tile_dim == 0);
    // too small a side for a tile, or no unit stride at all: per-element offsets
    const int64_t thin[2] = {3, 48}, to[2] = {48, 1}, tt[2] = {1, 3};
    pl = plan(request(1, 2, thin, to, tt, nullptr));
    CHECK(pl.path == nbcuda::EW_STRIDED);
    const int64_t every_other[2] = {96, 2};
    pl = plan(request(1, 2, shape, so, every_other, nullptr));
    CHECK(pl.path == nbcuda::EW_STRIDED);
}

int main() {
    contiguous_collapses_to_one_dim();
    size_one_dims_drop_out();
    broadcast_keeps_the_broadcast_dim();
    broadcast_dims_merge_with_each_other();
    transposed_input_stays_strided();
    scalars_are_ignored_for_layout();
    unary_second_input_counts_as_scalar();
    misaligned_pointer_is_not_vectorised();
    zero_dim_and_empty();
    attributes_pass_through();
    row_broadcast_takes_vectorised_rows();
    odd_or_misaligned_rows_are_not_vectorised();
    transposed_inputs_take_the_tile();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
