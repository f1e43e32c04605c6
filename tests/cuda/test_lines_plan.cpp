// test_lines_plan.cpp: the host-side planning of a CUDA line op
// (src/cuda/lines_plan.h): line dims dropped and merged, the per-row /
// per-thread choice and threads per line, 0-dim and empty requests, the
// accumulation dtypes, rejected requests. Host-only.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/lines_plan.h"

#include "plan_check.h"

static float in_buf[16], aux_buf[16], out_buf[16];

// A line op over a tensor of shape/strides (in and out alike; aux too for backward ops).
static nb_bk_lines request(int op, int ndim, const int64_t* shape, const int64_t* st, int dim, int dtype = NB_F32) {
    nb_bk_lines a;
    std::memset(&a, 0, sizeof a);
    a.name = "test", a.op = op, a.in_dtype = dtype, a.out_dtype = dtype;
    a.acc_dtype = nbcuda::lines_acc_dtype(op, dtype), a.ndim = ndim, a.dim = dim;
    a.in = in_buf, a.out = out_buf, a.aux = nbcuda::lines_is_backward(op) ? aux_buf : nullptr;
    for (int d = 0; d < ndim; d++)
        a.shape[d] = shape[d], a.in_strides[d] = st[d], a.out_strides[d] = st[d], a.aux_strides[d] = st[d];
    return a;
}

static nbcuda::LinesPlan plan(const nb_bk_lines& a, bool* ok = nullptr) {
    nbcuda::LinesPlan pl;
    std::memset(&pl, 0, sizeof pl);
    const bool r = nbcuda::lines_plan(a, pl);
    if (ok) *ok = r;
    return pl;
}

static void last_dim_rows_are_per_row() {
    const int64_t shape[3] = {4, 5, 2000}, st[3] = {10000, 2000, 1};
    nbcuda::LinesPlan pl = plan(request(NB_LK_SOFTMAX, 3, shape, st, 2));
    CHECK(pl.len == 2000 && pl.lines == 20 && pl.in_ls == 1 && pl.out_ls == 1);
    CHECK(pl.no == 1 && pl.oshape[0] == 20 && pl.oin[0] == 2000 && pl.oout[0] == 2000);  // merged
    CHECK(pl.per_row && pl.tpr == nbcuda::kLinesThreads);
}

static void short_rows_take_a_warp() {
    const int64_t shape[2] = {1000, 20}, st[2] = {20, 1};
    nbcuda::LinesPlan pl = plan(request(NB_LK_LOG_SOFTMAX, 2, shape, st, 1));
    CHECK(pl.per_row && pl.tpr == 32 && pl.lines == 1000);
    const int64_t shape2[2] = {1000, 100}, st2[2] = {100, 1};
    CHECK(plan(request(NB_LK_CUMSUM, 2, shape2, st2, 1)).tpr == 128);
    const int64_t shape3[2] = {1000, 8}, st3[2] = {8, 1};
    CHECK(!plan(request(NB_LK_SOFTMAX, 2, shape3, st3, 1)).per_row);  // very short rows: a thread each
}

static void strided_dim_is_per_thread() {
    // softmax over dim 1 of [8, 300, 64]: lines are (8, 64) with 64 contiguous
    const int64_t shape[3] = {8, 300, 64}, st[3] = {19200, 64, 1};
    nbcuda::LinesPlan pl = plan(request(NB_LK_SOFTMAX, 3, shape, st, 1));
    CHECK(pl.len == 300 && pl.lines == 512 && pl.in_ls == 64 && pl.no == 2);
    CHECK(pl.oshape[0] == 8 && pl.oin[0] == 19200 && pl.oshape[1] == 64 && pl.oin[1] == 1);
    CHECK(pl.per_row);  // 512 lines are too few for a thread each
    const int64_t shape2[3] = {64, 300, 64}, st2[3] = {19200, 64, 1};
    nbcuda::LinesPlan p2 = plan(request(NB_LK_CUMPROD, 3, shape2, st2, 1));
    CHECK(!p2.per_row && p2.lines == 4096 && p2.tpr == 1);
}

static void transposed_input_keeps_its_strides() {
    // a [3000, 40] view of a [40, 3000] tensor, softmax over dim 0 (contiguous in memory)
    const int64_t shape[2] = {3000, 40}, st[2] = {1, 3000};
    nb_bk_lines a = request(NB_LK_SOFTMAX, 2, shape, st, 0);
    a.out_strides[0] = 40, a.out_strides[1] = 1;  // a fresh contiguous output
    nbcuda::LinesPlan pl = plan(a);
    CHECK(pl.in_ls == 1 && pl.out_ls == 40 && pl.no == 1 && pl.oin[0] == 3000 && pl.oout[0] == 1);
    CHECK(pl.per_row && pl.tpr == nbcuda::kLinesThreads);
}

static void unit_dims_and_0dim() {
    const int64_t shape[4] = {1, 7, 1, 3}, st[4] = {21, 3, 3, 1};
    nbcuda::LinesPlan pl = plan(request(NB_LK_CUMSUM, 4, shape, st, 1));
    CHECK(pl.len == 7 && pl.lines == 3 && pl.no == 1 && pl.oshape[0] == 3 && pl.in_ls == 3);
    const int64_t one[1] = {1}, s1[1] = {1};  // a 0-dim input arrives as shape {1}
    nbcuda::LinesPlan p0 = plan(request(NB_LK_SOFTMAX, 1, one, s1, 0));
    CHECK(p0.len == 1 && p0.lines == 1 && p0.no == 0);
}

static void empty_plans_nothing() {
    const int64_t shape[2] = {0, 5}, st[2] = {5, 1};
    bool ok = false;
    nbcuda::LinesPlan pl = plan(request(NB_LK_SOFTMAX, 2, shape, st, 1), &ok);
    CHECK(ok && pl.lines == 0);
    nbcuda::LinesPlan p2 = plan(request(NB_LK_SOFTMAX, 2, shape, st, 0), &ok);
    CHECK(ok && p2.len == 0 && p2.lines == 0);
}

static void accumulation_dtypes() {
    CHECK(nbcuda::lines_acc_dtype(NB_LK_SOFTMAX, NB_F16) == NB_F32);
    CHECK(nbcuda::lines_acc_dtype(NB_LK_SOFTMAX, NB_BF16) == NB_F32);
    CHECK(nbcuda::lines_acc_dtype(NB_LK_CUMSUM, NB_F64) == NB_F64);
    CHECK(nbcuda::lines_acc_dtype(NB_LK_CUMPROD, NB_I64) == NB_I64);
    CHECK(nbcuda::lines_acc_dtype(NB_LK_SOFTMAX, NB_I64) == -1);
    CHECK(nbcuda::lines_acc_dtype(NB_LK_CUMSUM, NB_I32) == -1);
}

static void rejected() {
    const int64_t shape[2] = {4, 5}, st[2] = {5, 1};
    bool ok = true;
    nb_bk_lines a = request(NB_LK_SOFTMAX, 2, shape, st, 2);
    plan(a, &ok);
    CHECK(!ok);  // dim out of range
    a = request(NB_LK_SOFTMAX, 2, shape, st, 1);
    a.out_dtype = NB_F16;
    plan(a, &ok);
    CHECK(!ok);  // one dtype in and out
    a = request(NB_LK_SOFTMAX, 2, shape, st, 1, NB_F16);
    a.acc_dtype = NB_F16;
    plan(a, &ok);
    CHECK(!ok);  // half types accumulate in float32
    a = request(NB_LK_SOFTMAX_BACKWARD, 2, shape, st, 1);
    a.aux = nullptr;
    plan(a, &ok);
    CHECK(!ok);  // backward needs the forward's output
    a = request(NB_LK_LOGCUMSUMEXP, 2, shape, st, 1);
    a.acc_dtype = NB_F32;
    plan(a, &ok);
    CHECK(!ok);  // no kernel
    a = request(NB_LK_SOFTMAX, 0, shape, st, 0);
    plan(a, &ok);
    CHECK(!ok);
}

int main() {
    last_dim_rows_are_per_row();
    short_rows_take_a_warp();
    strided_dim_is_per_thread();
    transposed_input_keeps_its_strides();
    unit_dims_and_0dim();
    empty_plans_nothing();
    accumulation_dtypes();
    rejected();
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
