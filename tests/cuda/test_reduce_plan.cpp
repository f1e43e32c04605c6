// test_reduce_plan.cpp: the host-side planning of a CUDA reduction
// (src/cuda/reduce_plan.h): kept and reduced dims split and merged, reduced
// dims sorted by stride except for the index ops, the per-block / per-thread
// choice, 0-dim, empty and keepdim requests, rejected requests. Host-only.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/reduce_plan.h"

#include "plan_check.h"

static float in_buf[16], out_buf[16];
static int64_t idx_buf[16];

// A reduction of a tensor of shape/strides over mask; the output's strides per input dim.
static nb_bk_reduce request(int op, int ndim, const int64_t* shape, const int64_t* st, uint32_t mask,
                            const int64_t* ost) {
    nb_bk_reduce a;
    std::memset(&a, 0, sizeof a);
    a.name = "test", a.op = op, a.in_dtype = NB_F32, a.acc_dtype = NB_F32, a.ndim = ndim, a.mask = mask;
    a.nout = 1, a.in = in_buf, a.out[0] = out_buf, a.out_dtype[0] = NB_F32, a.out_dtype[1] = -1;
    for (int d = 0; d < ndim; d++) a.shape[d] = shape[d], a.in_strides[d] = st[d], a.out_strides[0][d] = ost[d];
    return a;
}

static nbcuda::RedPlan plan(const nb_bk_reduce& a, bool* ok = nullptr) {
    nbcuda::RedPlan pl;
    std::memset(&pl, 0, sizeof pl);
    const bool r = nbcuda::reduce_plan(a, pl);
    if (ok) *ok = r;
    return pl;
}

static void full_reduction_is_one_block() {
    const int64_t shape[3] = {4, 5, 6}, st[3] = {30, 6, 1}, ost[3] = {0, 0, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 3, shape, st, 7u, ost));
    CHECK(pl.outputs == 1 && pl.count == 120 && pl.nk == 0);
    CHECK(pl.nr == 1 && pl.rshape[0] == 120 && pl.rin[0] == 1);
    CHECK(pl.per_block);
}

static void rows_reduce_along_memory() {
    const int64_t shape[2] = {1000, 64}, st[2] = {64, 1}, ost[2] = {1, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 2, shape, st, 2u, ost));
    CHECK(pl.outputs == 1000 && pl.count == 64 && pl.nk == 1 && pl.kshape[0] == 1000 && pl.kin[0] == 64);
    CHECK(pl.kout[0][0] == 1 && pl.nr == 1 && pl.rin[0] == 1);
    CHECK(pl.per_block);
}

static void columns_take_a_thread_each() {
    const int64_t shape[2] = {64, 1000}, st[2] = {1000, 1}, ost[2] = {0, 1};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 2, shape, st, 1u, ost));
    CHECK(pl.outputs == 1000 && pl.count == 64 && pl.kin[0] == 1 && pl.rin[0] == 1000);
    CHECK(!pl.per_block);
    // a long column range goes back to a block per output
    const int64_t tall[2] = {100000, 1000};
    pl = plan(request(NB_RK_SUM, 2, tall, st, 1u, ost));
    CHECK(pl.per_block);
}

static void reduced_dims_sorted_and_merged() {
    // reduce dims 0 and 2 of a [2, 3, 4] tensor permuted so dim 2 has the largest stride
    const int64_t shape[3] = {2, 3, 4}, st[3] = {3, 1, 6}, ost[3] = {0, 1, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 3, shape, st, 5u, ost));
    CHECK(pl.count == 8 && pl.nr == 1 && pl.rshape[0] == 8 && pl.rin[0] == 3);  // (4, 6) then (2, 3) merge
    CHECK(pl.nk == 1 && pl.kshape[0] == 3 && pl.kin[0] == 1);
}

static void index_ops_keep_logical_order() {
    const int64_t shape[3] = {2, 3, 4}, st[3] = {3, 1, 6}, ost[3] = {0, 1, 0};
    nb_bk_reduce a = request(NB_RK_MAX, 3, shape, st, 5u, ost);
    a.nout = 2, a.out[1] = idx_buf, a.out_dtype[1] = NB_I64;
    for (int d = 0; d < 3; d++) a.out_strides[1][d] = ost[d];
    nbcuda::RedPlan pl = plan(a);
    CHECK(pl.nr == 2 && pl.rshape[0] == 2 && pl.rin[0] == 3 && pl.rshape[1] == 4 && pl.rin[1] == 6);
    CHECK(pl.nout == 2 && pl.out[1] == idx_buf && pl.kout[1][0] == 1);
}

static void kept_dims_merge_when_outputs_are_dense() {
    const int64_t shape[3] = {5, 6, 7}, st[3] = {42, 7, 1}, ost[3] = {6, 1, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_AMAX, 3, shape, st, 4u, ost));
    CHECK(pl.nk == 1 && pl.kshape[0] == 30 && pl.kin[0] == 7 && pl.kout[0][0] == 1);
    // a strided output keeps the dims apart
    const int64_t ost2[3] = {12, 1, 0};
    pl = plan(request(NB_RK_AMAX, 3, shape, st, 4u, ost2));
    CHECK(pl.nk == 2 && pl.kshape[0] == 5 && pl.kout[0][0] == 12 && pl.kshape[1] == 6);
}

static void zero_dim_empty_and_no_outputs() {
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 0, nullptr, nullptr, 0u, nullptr));
    CHECK(pl.outputs == 1 && pl.count == 1 && pl.nk == 0 && pl.nr == 0);
    const int64_t shape[2] = {3, 0}, st[2] = {1, 1}, ost[2] = {1, 0};
    pl = plan(request(NB_RK_SUM, 2, shape, st, 2u, ost));
    CHECK(pl.outputs == 3 && pl.count == 0);
    pl = plan(request(NB_RK_SUM, 2, shape, st, 1u, ost));
    CHECK(pl.outputs == 0 && pl.count == 3);
}

static void long_ranges_split_with_a_workspace() {
    static char ws[64 * NB_BK_REDUCE_MAX_SPLIT * NB_BK_REDUCE_PARTIAL_BYTES];
    const int64_t shape[2] = {2, 1000000}, st[2] = {1000000, 1}, ost[2] = {1, 0};
    nb_bk_reduce a = request(NB_RK_SUM, 2, shape, st, 2u, ost);
    nbcuda::RedPlan pl = plan(a);
    CHECK(pl.workspace == nullptr && pl.splits == 1 && pl.per_block);  // no workspace: a block per output
    a.workspace = ws, a.workspace_bytes = nb_bk_reduce_workspace_bytes(2, 1000000);
    CHECK(a.workspace_bytes == 2 * NB_BK_REDUCE_MAX_SPLIT * NB_BK_REDUCE_PARTIAL_BYTES);
    pl = plan(a);
    CHECK(pl.workspace == ws && pl.splits == 62 && pl.chunk == 16130);  // ceil(1e6 / 16384) chunks
    CHECK(pl.splits * pl.chunk >= pl.count && (pl.splits - 1) * pl.chunk < pl.count);
    const int64_t huge[1] = {int64_t(1) << 33}, st1[1] = {1}, ost1[1] = {0};
    a = request(NB_RK_SUM, 1, huge, st1, 1u, ost1);
    a.workspace = ws, a.workspace_bytes = nb_bk_reduce_workspace_bytes(1, huge[0]);
    pl = plan(a);
    CHECK(pl.splits == NB_BK_REDUCE_MAX_SPLIT && pl.chunk == (int64_t(1) << 25));
    // too small a workspace, or too many outputs, or a short range: no split
    a.workspace_bytes = 8;
    CHECK(plan(a).workspace == nullptr);
    CHECK(nb_bk_reduce_workspace_bytes(65, 1000000) == 0 && nb_bk_reduce_workspace_bytes(1, 1000) == 0);
}

static void bad_requests_are_refused() {
    const int64_t shape[1] = {4}, st[1] = {1}, ost[1] = {0};
    bool ok = true;
    nb_bk_reduce a = request(NB_RK_NUM, 1, shape, st, 1u, ost);
    plan(a, &ok);
    CHECK(!ok);
    a = request(NB_RK_SUM, 1, shape, st, 1u, ost);
    a.nout = 3;
    plan(a, &ok);
    CHECK(!ok);
    a = request(NB_RK_SUM, 1, shape, st, 1u, ost);
    a.in_dtype = NB_BK_NUM_DTYPES;
    plan(a, &ok);
    CHECK(!ok);
}

int main() {
    full_reduction_is_one_block();
    rows_reduce_along_memory();
    columns_take_a_thread_each();
    reduced_dims_sorted_and_merged();
    index_ops_keep_logical_order();
    kept_dims_merge_when_outputs_are_dense();
    zero_dim_empty_and_no_outputs();
    long_ranges_split_with_a_workspace();
    bad_requests_are_refused();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
