// test_reduce_plan.cpp: the host-side planning of a CUDA reduction
// (src/cuda/reduce_plan.h): kept and reduced dims split and merged, reduced
// dims sorted by stride except for the index ops, the rows / cols / generic
// choice with its group, vector width, pieces and alignment, 0-dim, empty and
// keepdim requests, rejected requests. Host-only.
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../src/cuda/reduce_plan.h"

#include "plan_check.h"

alignas(16) static float in_buf[16];
static float out_buf[16];
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

static void full_reduction_is_one_row() {
    const int64_t shape[3] = {4, 5, 6}, st[3] = {30, 6, 1}, ost[3] = {0, 0, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 3, shape, st, 7u, ost));
    CHECK(pl.outputs == 1 && pl.count == 120 && pl.nk == 0);
    CHECK(pl.nr == 1 && pl.rshape[0] == 120 && pl.rin[0] == 1);
    CHECK(pl.kind == nbcuda::kRedRows && pl.vec == 4 && pl.group == 32 && pl.splits == 1);
    CHECK(pl.workspace == nullptr);
}

static void rows_reduce_along_memory() {
    const int64_t shape[2] = {1000, 64}, st[2] = {64, 1}, ost[2] = {1, 0};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 2, shape, st, 2u, ost));
    CHECK(pl.outputs == 1000 && pl.count == 64 && pl.nk == 1 && pl.kshape[0] == 1000 && pl.kin[0] == 64);
    CHECK(pl.kout[0][0] == 1 && pl.nr == 1 && pl.rin[0] == 1);
    CHECK(pl.kind == nbcuda::kRedRows && pl.group == 32);
    // long rows, few of them: a block per row
    const int64_t wide[2] = {1000, 8192}, wst[2] = {8192, 1};
    pl = plan(request(NB_RK_SUM, 2, wide, wst, 2u, ost));
    CHECK(pl.kind == nbcuda::kRedRows && pl.group == nbcuda::kReduceThreads && pl.splits == 1);
    // enough rows to fill the GPU with a warp each
    const int64_t square[2] = {8192, 8192};
    pl = plan(request(NB_RK_VAR, 2, square, wst, 2u, ost));
    CHECK(pl.kind == nbcuda::kRedRows && pl.group == 32 && pl.splits == 1);
    // short rows: the generic thread per output
    const int64_t narrow[2] = {1000, 7}, nst[2] = {7, 1};
    pl = plan(request(NB_RK_SUM, 2, narrow, nst, 2u, ost));
    CHECK(pl.kind == nbcuda::kRedGeneric && !pl.per_block);
}

static void chunk_width_follows_the_dtype() {
    const int64_t shape[1] = {4096}, st[1] = {1}, ost[1] = {0};
    const int32_t dtypes[5] = {NB_F64, NB_F16, NB_BF16, NB_U8, NB_I64};
    const int32_t vecs[5] = {2, 8, 8, 16, 2};
    for (int i = 0; i < 5; i++) {
        nb_bk_reduce a = request(NB_RK_AMAX, 1, shape, st, 1u, ost);
        a.in_dtype = a.acc_dtype = dtypes[i];
        if (dtypes[i] == NB_F16 || dtypes[i] == NB_BF16) a.acc_dtype = NB_F32;
        CHECK(plan(a).kind == nbcuda::kRedRows && plan(a).vec == vecs[i]);
    }
}

static void columns_fold_across_threads() {
    const int64_t shape[2] = {64, 1000}, st[2] = {1000, 1}, ost[2] = {0, 1};
    nbcuda::RedPlan pl = plan(request(NB_RK_SUM, 2, shape, st, 1u, ost));
    CHECK(pl.outputs == 1000 && pl.count == 64 && pl.kin[0] == 1 && pl.rin[0] == 1000);
    CHECK(pl.kind == nbcuda::kRedCols && pl.vec == 4 && pl.bx == 32 && pl.splits == 1 && pl.aligned);
    CHECK(nbcuda::cols_blocks(pl) == 8);  // 250 vectors of 4 columns, 32 per block
    // a view one element in: no 16-byte loads (the same arithmetic from scalar ones)
    nb_bk_reduce a = request(NB_RK_SUM, 2, shape, st, 1u, ost);
    a.in = in_buf + 1;
    CHECK(plan(a).kind == nbcuda::kRedCols && !plan(a).aligned);
    // rows of 1001: vectors start misaligned on most rows
    const int64_t odd[2] = {1001, 1};
    CHECK(!plan(request(NB_RK_SUM, 2, shape, odd, 1u, ost)).aligned);
    // two columns: one vector, so a block is one thread wide and 256 deep
    const int64_t two[2] = {5000, 2}, tst[2] = {2, 1};
    pl = plan(request(NB_RK_SUM, 2, two, tst, 1u, ost));
    CHECK(pl.kind == nbcuda::kRedCols && pl.bx == 1 && nbcuda::cols_blocks(pl) == 1);
    // a transposed input's rows are columns; neither dim contiguous: generic
    const int64_t tr[2] = {1, 64};
    CHECK(plan(request(NB_RK_SUM, 2, shape, tr, 2u, ost)).kind == nbcuda::kRedCols);
    const int64_t gap[2] = {2000, 2};
    CHECK(plan(request(NB_RK_SUM, 2, shape, gap, 1u, ost)).kind == nbcuda::kRedGeneric);
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
    static std::vector<char> ws(NB_BK_REDUCE_MAX_PARTIALS * NB_BK_REDUCE_PARTIAL_BYTES);
    const int64_t shape[2] = {2, 1000000}, st[2] = {1000000, 1}, ost[2] = {1, 0};
    nb_bk_reduce a = request(NB_RK_SUM, 2, shape, st, 2u, ost);
    nbcuda::RedPlan pl = plan(a);
    // no workspace: a block per row
    CHECK(pl.kind == nbcuda::kRedRows && pl.workspace == nullptr && pl.splits == 1 && pl.group == 256);
    a.workspace = ws.data(), a.workspace_bytes = nb_bk_reduce_workspace_bytes(2, 1000000);
    CHECK(a.workspace_bytes == 2 * NB_BK_REDUCE_MAX_SPLIT * NB_BK_REDUCE_PARTIAL_BYTES);
    pl = plan(a);
    // 250000 chunks; 244 pieces leave each thread 4 chunks at least
    CHECK(pl.workspace == ws.data() && pl.splits == 244 && pl.chunk == 1025 && pl.fin_group == 32);
    CHECK(pl.splits * pl.chunk >= 250000 && (pl.splits - 1) * pl.chunk < 250000);
    // a full reduction of 2^33 elements: 1024 pieces (a block each fills the GPU), a block to finish
    const int64_t huge[1] = {int64_t(1) << 33}, st1[1] = {1}, ost1[1] = {0};
    a = request(NB_RK_SUM, 1, huge, st1, 1u, ost1);
    a.workspace = ws.data(), a.workspace_bytes = nb_bk_reduce_workspace_bytes(1, huge[0]);
    pl = plan(a);
    CHECK(pl.kind == nbcuda::kRedRows && pl.splits == 1024 && pl.chunk == (int64_t(1) << 21));
    CHECK(pl.fin_group == nbcuda::kReduceThreads);
    // too small a workspace: no split
    a.workspace_bytes = 8;
    CHECK(plan(a).workspace == nullptr && plan(a).splits == 1);
    // 8192 columns of 8192: 64 blocks across, R cut into 16 pieces of 512 rows (2^17 partials)
    const int64_t sq[2] = {8192, 8192}, sst[2] = {8192, 1}, cost[2] = {0, 1};
    a = request(NB_RK_SUM, 2, sq, sst, 1u, cost);
    a.workspace = ws.data(), a.workspace_bytes = nb_bk_reduce_workspace_bytes(8192, 8192);
    CHECK(a.workspace_bytes == NB_BK_REDUCE_MAX_PARTIALS * NB_BK_REDUCE_PARTIAL_BYTES);
    pl = plan(a);
    CHECK(pl.kind == nbcuda::kRedCols && pl.bx == 32 && nbcuda::cols_blocks(pl) == 64);
    CHECK(pl.splits == 16 && pl.chunk == 512 && pl.fin_group == 1 && pl.workspace == ws.data());
    // generic layouts (neither rows nor cols) split few long ranges as before
    const int64_t gst[2] = {2000000, 2};
    a = request(NB_RK_SUM, 2, shape, gst, 2u, ost);
    a.workspace = ws.data(), a.workspace_bytes = nb_bk_reduce_workspace_bytes(2, 1000000);
    pl = plan(a);
    CHECK(pl.kind == nbcuda::kRedGeneric && pl.workspace == ws.data() && pl.splits == 62 && pl.chunk == 16130);
    // the bound: nothing for short ranges, small totals or outputs enough to fill the GPU alone
    CHECK(nb_bk_reduce_workspace_bytes(1, 1000) == 0 && nb_bk_reduce_workspace_bytes(4, 255) == 0);
    CHECK(nb_bk_reduce_workspace_bytes((1 << 16) + 1, 1 << 16) == 0 && nb_bk_reduce_workspace_bytes(16, 1000) == 0);
    CHECK(nb_bk_reduce_workspace_bytes(65, 1000000) == 65 * NB_BK_REDUCE_MAX_SPLIT * NB_BK_REDUCE_PARTIAL_BYTES);
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
    full_reduction_is_one_row();
    rows_reduce_along_memory();
    chunk_width_follows_the_dtype();
    columns_fold_across_threads();
    reduced_dims_sorted_and_merged();
    index_ops_keep_logical_order();
    kept_dims_merge_when_outputs_are_dense();
    zero_dim_empty_and_no_outputs();
    long_ranges_split_with_a_workspace();
    bad_requests_are_refused();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
