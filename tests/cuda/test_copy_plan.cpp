// test_copy_plan.cpp: the host-side planning of a CUDA strided copy
// (src/cuda/copy_plan.h): dim collapsing and ordering, the path picked
// (memcpy, rows, tile, generic) and when rows are vectorised, transposes,
// broadcasts, 0-dim and empty copies, rejected requests. Host-only: needs no
// GPU and no nvcc.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/copy_plan.h"

#include "plan_check.h"

alignas(16) static float dst_buf[64], src_buf[64];

static nb_bk_copy request(int ndim, const int64_t* shape, const int64_t* sd, const int64_t* ss) {
    nb_bk_copy a;
    std::memset(&a, 0, sizeof a);
    a.dst_dtype = NB_F16, a.src_dtype = NB_F32, a.ndim = ndim;
    a.dst = dst_buf, a.src = src_buf;
    for (int d = 0; d < ndim; d++) a.shape[d] = shape[d], a.dst_strides[d] = sd[d], a.src_strides[d] = ss[d];
    return a;
}

static nbcuda::CopyPlan plan(const nb_bk_copy& a, bool* ok = nullptr) {
    nbcuda::CopyPlan pl;
    std::memset(&pl, 0, sizeof pl);
    const bool r = nbcuda::copy_plan(a, pl);
    if (ok) *ok = r;
    return pl;
}

static void contiguous_is_one_flat_loop() {
    const int64_t shape[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    nbcuda::CopyPlan pl = plan(request(3, shape, st, st));
    CHECK(pl.ndim == 1 && pl.shape[0] == 24 && pl.numel == 24 && pl.contiguous);
    CHECK(pl.dst_dtype == NB_F16 && pl.src_dtype == NB_F32 && pl.dst == dst_buf && pl.src == src_buf);
}

static void transpose_keeps_two_dims() {
    const int64_t shape[2] = {3, 4}, sd[2] = {4, 1}, ss[2] = {1, 3};  // dst = src.T made contiguous
    nbcuda::CopyPlan pl = plan(request(2, shape, sd, ss));
    CHECK(pl.ndim == 2 && !pl.contiguous);
    CHECK(pl.shape[0] == 3 && pl.shape[1] == 4 && pl.src_strides[0] == 1 && pl.src_strides[1] == 3);
}

static void broadcast_source_merges_its_zero_dims() {
    const int64_t shape[3] = {2, 3, 4}, sd[3] = {12, 4, 1}, ss[3] = {0, 0, 1};
    nbcuda::CopyPlan pl = plan(request(3, shape, sd, ss));
    CHECK(pl.ndim == 2 && pl.shape[0] == 6 && pl.shape[1] == 4);
    CHECK(pl.src_strides[0] == 0 && pl.src_strides[1] == 1 && pl.dst_strides[0] == 4 && !pl.contiguous);
}

static void size_one_dims_drop_out() {
    const int64_t shape[4] = {1, 5, 1, 2}, sd[4] = {99, 2, 7, 1}, ss[4] = {3, 5, 8, 2};
    nbcuda::CopyPlan pl = plan(request(4, shape, sd, ss));
    CHECK(pl.ndim == 2 && pl.shape[0] == 5 && pl.shape[1] == 2 && pl.numel == 10);
    CHECK(pl.src_strides[0] == 5 && pl.src_strides[1] == 2 && pl.dst_strides[0] == 2);
    const int64_t ss2[4] = {3, 4, 8, 2};  // the two dims left are dense across each other on both sides
    pl = plan(request(4, shape, sd, ss2));
    CHECK(pl.ndim == 1 && pl.shape[0] == 10 && pl.src_strides[0] == 2 && pl.dst_strides[0] == 1);
}

static void strided_source_dims_merge() {
    const int64_t shape[2] = {4, 8}, sd[2] = {8, 1}, ss[2] = {16, 2};  // every other element
    nbcuda::CopyPlan pl = plan(request(2, shape, sd, ss));
    CHECK(pl.ndim == 1 && pl.shape[0] == 32 && pl.src_strides[0] == 2 && !pl.contiguous);
}

static void zero_dim_and_empty() {
    nbcuda::CopyPlan pl = plan(request(0, nullptr, nullptr, nullptr));
    CHECK(pl.ndim == 0 && pl.numel == 1 && pl.contiguous);
    const int64_t shape[2] = {0, 4}, st[2] = {4, 1};
    pl = plan(request(2, shape, st, st));
    CHECK(pl.numel == 0);
}

static void bad_requests_are_refused() {
    const int64_t shape[1] = {4}, st[1] = {1};
    bool ok = true;
    nb_bk_copy a = request(1, shape, st, st);
    a.dst_dtype = NB_BK_NUM_DTYPES;
    plan(a, &ok);
    CHECK(!ok);
    a = request(1, shape, st, st);
    a.ndim = NB_MAX_DIMS + 1;
    plan(a, &ok);
    CHECK(!ok);
    a = request(1, shape, st, st);
    a.src_dtype = -1;
    plan(a, &ok);
    CHECK(!ok);
}

static nb_bk_copy same_dtype(nb_bk_copy a) {
    a.dst_dtype = a.src_dtype = NB_F32;
    return a;
}

static void same_dtype_dense_run_is_a_memcpy() {
    const int64_t shape[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    nbcuda::CopyPlan pl = plan(same_dtype(request(3, shape, st, st)));
    CHECK(pl.path == nbcuda::COPY_MEMCPY && pl.bytes == 24 * 4);
    // both sides transposed alike: ordered by the destination's strides, one dense run again
    const int64_t shape2[2] = {4, 3}, t[2] = {1, 4};
    pl = plan(same_dtype(request(2, shape2, t, t)));
    CHECK(pl.path == nbcuda::COPY_MEMCPY && pl.ndim == 1 && pl.bytes == 12 * 4);
    pl = plan(same_dtype(request(0, nullptr, nullptr, nullptr)));
    CHECK(pl.path == nbcuda::COPY_MEMCPY && pl.bytes == 4);
    // a strided source is no dense run
    const int64_t shape3[1] = {8}, sd[1] = {1}, ss[1] = {2};
    pl = plan(same_dtype(request(1, shape3, sd, ss)));
    CHECK(pl.path == nbcuda::COPY_GENERIC);
}

static void converting_dense_run_is_one_vectorised_row() {
    const int64_t shape[2] = {4, 16}, st[2] = {16, 1};
    nbcuda::CopyPlan pl = plan(request(2, shape, st, st));
    CHECK(pl.path == nbcuda::COPY_ROWS && pl.vectorised && pl.ndim == 1);
    nb_bk_copy a = request(2, shape, st, st);
    a.src = src_buf + 1;  // a misaligned offset: rows still, element by element
    pl = plan(a);
    CHECK(pl.path == nbcuda::COPY_ROWS && !pl.vectorised);
    pl = plan(request(0, nullptr, nullptr, nullptr));
    CHECK(pl.path == nbcuda::COPY_ROWS && pl.numel == 1);
}

static void dense_rows_and_broadcast_rows() {
    const int64_t shape[2] = {3, 40}, sd[2] = {40, 1}, ss[2] = {48, 1};  // a slice of wider rows
    nbcuda::CopyPlan pl = plan(request(2, shape, sd, ss));
    CHECK(pl.path == nbcuda::COPY_ROWS && pl.ndim == 2 && pl.vectorised);  // 80 and 192 bytes per row
    const int64_t sd_odd[2] = {41, 1};  // f16 rows of 82 bytes: starts not 16-byte aligned
    pl = plan(request(2, shape, sd_odd, ss));
    CHECK(pl.path == nbcuda::COPY_ROWS && !pl.vectorised);
    const int64_t row[2] = {0, 1};  // one source row expanded
    pl = plan(request(2, shape, sd, row));
    CHECK(pl.path == nbcuda::COPY_ROWS && pl.vectorised && pl.src_strides[0] == 0);
    const int64_t shape_short[2] = {3, 5}, sd_short[2] = {5, 1};  // rows too short for a block
    pl = plan(request(2, shape_short, sd_short, row));
    CHECK(pl.path == nbcuda::COPY_GENERIC);
}

static void transposes_take_the_tile() {
    const int64_t shape[2] = {40, 50}, sd[2] = {50, 1}, ss[2] = {1, 40};
    nbcuda::CopyPlan pl = plan(request(2, shape, sd, ss));
    CHECK(pl.path == nbcuda::COPY_TILE && pl.tile_dim == 0);
    // a transposed destination: ordered by its strides, the source is the transposed side
    pl = plan(request(2, shape, ss, sd));
    CHECK(pl.path == nbcuda::COPY_TILE && pl.tile_dim == 0 && pl.dst_strides[1] == 1 && pl.src_strides[0] == 1);
    // a 3-D permutation: dst [10, 12, 16] dense, src = a permute of a dense [16, 12, 10]
    const int64_t s3[3] = {10, 12, 16}, d3[3] = {192, 16, 1}, p3[3] = {1, 10, 120};
    pl = plan(request(3, s3, d3, p3));
    CHECK(pl.path == nbcuda::COPY_TILE && pl.ndim == 3 && pl.tile_dim == 0);
    // too narrow for a tile
    const int64_t thin[2] = {3, 50}, tsd[2] = {50, 1}, tss[2] = {1, 3};
    pl = plan(request(2, thin, tsd, tss));
    CHECK(pl.path == nbcuda::COPY_GENERIC);
}

int main() {
    contiguous_is_one_flat_loop();
    transpose_keeps_two_dims();
    broadcast_source_merges_its_zero_dims();
    size_one_dims_drop_out();
    strided_source_dims_merge();
    zero_dim_and_empty();
    bad_requests_are_refused();
    same_dtype_dense_run_is_a_memcpy();
    converting_dense_run_is_one_vectorised_row();
    dense_rows_and_broadcast_rows();
    transposes_take_the_tile();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
