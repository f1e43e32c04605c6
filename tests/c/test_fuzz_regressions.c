/* test_fuzz_regressions.c: minimised reproducers of what tests/fuzz/fuzz_abi.c found,
 * one test each, named for the call that crashed. */
#include "nbtest.h"

#include <nabla/dlpack.h>

/* linalg.solve with autograd recorded read B's shape before validating it. */
TEST(test_solve_with_a_null_operand_and_grad) {
    int64_t s[2] = {2, 2};
    nb_tensor *a = NULL, *r = NULL, *info = NULL;
    CHECK_OK(nb_ones(s, 2, NB_F32, NB_CPU, 0, &a));
    CHECK_OK(nb_tensor_set_requires_grad(a, 1));
    CHECK_STATUS(nb_linalg_solve_ex(a, NULL, 1, &r, &info), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_linalg_solve(a, NULL, 0, &r), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_linalg_solve(NULL, a, 1, &r), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK(r == NULL && info == NULL);
    nb_tensor_release(a);
}

/* LAPACK's gesdd never returned on an infinity and refused a NaN (reported as out of
 * memory); PyTorch's LinAlgError for both. */
TEST(test_svd_of_a_non_finite_matrix) {
    static const float bad[] = {INFINITY, -INFINITY, NAN};
    for (int k = 0; k < 3; k++) {
        float v[15];
        for (int i = 0; i < 15; i++) v[i] = (float)(i % 4) - 1.5f;
        v[3 * k] = bad[k];
        int64_t s[2] = {3, 5};
        nb_tensor *a = NULL, *u = NULL, *sv = NULL, *vh = NULL;
        CHECK_OK(nb_tensor_from_host(v, s, 2, NB_F32, NB_CPU, 0, &a));
        CHECK_STATUS(nb_linalg_svd(a, 1, &u, &sv, &vh), NB_ERR_LINALG, "non-finite values");
        CHECK_STATUS(nb_linalg_svd(a, 0, NULL, &sv, NULL), NB_ERR_LINALG, "non-finite values");
        CHECK(u == NULL && sv == NULL && vh == NULL);
        nb_tensor_release(a);
    }
}

/* relu's backward read its saved result without checking that it was still valid. */
TEST(test_relu_backward_after_its_result_was_written_in_place) {
    int64_t s[2] = {2, 3};
    nb_tensor *x = NULL, *y = NULL, *z = NULL;
    CHECK_OK(nb_ones(s, 2, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_OK(nb_relu(x, NULL, &y));
    CHECK_OK(nb_tensor_copy_(y, y));
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &z));
    nb_tensor* outs[1] = {z};
    CHECK_STATUS(nb_backward(outs, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "ReluBackward0");
    nb_tensor_release(z), nb_tensor_release(y), nb_tensor_release(x);
}

static int64_t live_tensors(void) {
    nb_memory_stats m;
    memset(&m, 0, sizeof m);
    m.struct_size = sizeof m;
    return nb_memory_stats_get(NB_CPU, 0, &m) == NB_OK ? m.live_tensors : -1;
}

/* A view marked requires_grad is a leaf; writing into a view of it in place was
 * accepted and left the leaf in a reference cycle (PyTorch refuses it). */
TEST(test_in_place_into_a_view_of_a_leaf_view) {
    int64_t s[3] = {2, 4, 4};
    int64_t before = live_tensors();
    nb_tensor *b = NULL, *p = NULL, *v = NULL, *y = NULL;
    CHECK_OK(nb_ones(s, 3, NB_F32, NB_CPU, 0, &b));
    CHECK_OK(nb_tensor_transpose(b, 1, 2, &p));
    CHECK_OK(nb_tensor_set_requires_grad(p, 1));
    CHECK_OK(nb_tensor_transpose(p, 1, 2, &v));
    CHECK_STATUS(nb_cumprod(v, 1, -1, v, &y), NB_ERR_AUTOGRAD, "a view of a leaf Variable that requires grad");
    CHECK_STATUS(nb_exp(v, v, &y), NB_ERR_AUTOGRAD, "a view of a leaf Variable that requires grad");
    CHECK(y == NULL);
    nb_tensor_release(v), nb_tensor_release(p), nb_tensor_release(b);
    CHECK_EQ_INT(live_tensors(), before);
}

/* dropout with grad recorded stored its result through a NULL out. */
TEST(test_dropout_with_a_null_out) {
    int64_t s[1] = {4};
    nb_tensor* x = NULL;
    CHECK_OK(nb_ones(s, 1, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_STATUS(nb_dropout(x, 0.5, 0, NULL, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "dropout");
    CHECK_STATUS(nb_dropout(x, 0.5, 1, NULL, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "dropout");
    nb_tensor_release(x);
}

/* svd's and eigh's backward read the shapes of saved results that a first backward
 * without retain_graph had freed. */
TEST(test_second_backward_through_svd_and_eigh) {
    float v[6] = {1, 2, 3, 4, 5, 7};
    int64_t s[2] = {3, 2}, sq[2] = {2, 2};
    for (int which = 0; which < 2; which++) {
        nb_tensor *a = NULL, *u = NULL, *sv = NULL, *vh = NULL, *z = NULL;
        CHECK_OK(nb_tensor_from_host(v, which ? sq : s, 2, NB_F32, NB_CPU, 0, &a));
        CHECK_OK(nb_tensor_set_requires_grad(a, 1));
        if (which == 0) CHECK_OK(nb_linalg_svd(a, 0, &u, &sv, &vh));
        else CHECK_OK(nb_linalg_eigh(a, 0, &sv, &u));
        CHECK_OK(nb_sum(u, NULL, 0, 0, -1, NULL, &z));
        nb_tensor* outs[1] = {z};
        CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
        CHECK_STATUS(nb_backward(outs, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "second time");
        nb_tensor_release(z), nb_tensor_release(u), nb_tensor_release(sv), nb_tensor_release(vh);
        nb_tensor_release(a);
    }
}

/* A DLPack byte_offset of 2^63 passed the pointer-wrap check; offsets, like storage
 * offsets, must fit int64 together with the extent. */
TEST(test_dlpack_byte_offset_past_int64) {
    float buf[4] = {0};
    int64_t shape[1] = {2};
    const uint64_t offsets[2] = {(uint64_t)1 << 63, (uint64_t)INT64_MAX - 4};
    for (int k = 0; k < 2; k++) {
        DLManagedTensor m;
        memset(&m, 0, sizeof m);
        m.dl_tensor.data = buf;
        m.dl_tensor.device.device_type = kDLCPU;
        m.dl_tensor.ndim = 1;
        m.dl_tensor.dtype.code = kDLFloat, m.dl_tensor.dtype.bits = 32, m.dl_tensor.dtype.lanes = 1;
        m.dl_tensor.shape = shape;
        m.dl_tensor.byte_offset = offsets[k];
        nb_tensor* t = NULL;
        CHECK_STATUS(nb_tensor_from_dlpack(&m, &t), NB_ERR_INVALID_ARGUMENT, k == 0 ? "9223372036854775808" : "int64");
        CHECK(t == NULL);
    }
}

/* repeat with a 0 count: RepeatBackward0 summed a [2, 3, 0, 0] gradient into [1, 1, 2]
 * (NB_ERR_INTERNAL); PyTorch gives zeros. */
TEST(test_repeat_backward_with_a_zero_count) {
    int64_t s[3] = {1, 1, 2}, reps[4] = {2, 3, 0, 0};
    nb_tensor *x = NULL, *y = NULL, *z = NULL, *g = NULL;
    CHECK_OK(nb_ones(s, 3, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_OK(nb_repeat(x, reps, 4, &y));
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &z));
    nb_tensor* outs[1] = {z};
    CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK_SHAPE(g, 1, 1, 2);
    static const double zeros[2] = {0, 0};
    CHECK_VALUES(g, zeros, 2);
    nb_tensor_release(g), nb_tensor_release(z), nb_tensor_release(y), nb_tensor_release(x);
}

/* batch_norm takes a weight and bias of shape [1, 1, C]; their gradients came out as [C]
 * (NB_ERR_INTERNAL), in training and in evaluation. */
TEST(test_batch_norm_backward_with_a_3d_weight) {
    float xv[6] = {1, 2, 4, -1, 0.5f, 3};
    int64_t s[2] = {2, 3}, c[1] = {3}, wshape[3] = {1, 1, 3};
    for (int training = 0; training < 2; training++) {
        nb_tensor *x = NULL, *w = NULL, *b = NULL, *rm = NULL, *rv = NULL, *y = NULL, *z = NULL, *gw = NULL,
                  *gb = NULL;
        CHECK_OK(nb_tensor_from_host(xv, s, 2, NB_F32, NB_CPU, 0, &x));
        CHECK_OK(nb_full(wshape, 3, 2.0, NB_F32, NB_CPU, 0, &w));
        CHECK_OK(nb_full(wshape, 3, 0.5, NB_F32, NB_CPU, 0, &b));
        CHECK_OK(nb_zeros(c, 1, NB_F32, NB_CPU, 0, &rm));
        CHECK_OK(nb_ones(c, 1, NB_F32, NB_CPU, 0, &rv));
        CHECK_OK(nb_tensor_set_requires_grad(w, 1));
        CHECK_OK(nb_tensor_set_requires_grad(b, 1));
        CHECK_OK(nb_batch_norm(x, rm, rv, w, b, training, 0.1, 1e-5, NULL, &y));
        CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &z));
        nb_tensor* outs[1] = {z};
        CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
        CHECK_OK(nb_tensor_get_grad(w, &gw));
        CHECK_OK(nb_tensor_get_grad(b, &gb));
        CHECK_SHAPE(gw, 1, 1, 3);
        CHECK_SHAPE(gb, 1, 1, 3);
        static const double twos[3] = {2, 2, 2};
        CHECK_VALUES(gb, twos, 3);
        nb_tensor_release(gw), nb_tensor_release(gb), nb_tensor_release(z), nb_tensor_release(y);
        nb_tensor_release(rm), nb_tensor_release(rv), nb_tensor_release(b), nb_tensor_release(w), nb_tensor_release(x);
    }
}

/* cat of empty 1-D tensors only, with grad: any dim is accepted (as in PyTorch) and the
 * formula read shape[64]. */
TEST(test_cat_of_empty_1d_tensors_with_grad) {
    int64_t s[1] = {0};
    nb_tensor *a = NULL, *b = NULL, *y = NULL, *z = NULL, *g = NULL;
    CHECK_OK(nb_zeros(s, 1, NB_F32, NB_CPU, 0, &a));
    CHECK_OK(nb_zeros(s, 1, NB_F32, NB_CPU, 0, &b));
    CHECK_OK(nb_tensor_set_requires_grad(a, 1));
    const nb_tensor* ins[2] = {a, b};
    CHECK_OK(nb_cat(ins, 2, 64, NULL, &y));
    CHECK_SHAPE(y, 0);
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &z));
    nb_tensor* outs[1] = {z};
    CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
    CHECK_OK(nb_tensor_get_grad(a, &g));
    CHECK_SHAPE(g, 0);
    nb_tensor_release(g), nb_tensor_release(z), nb_tensor_release(y), nb_tensor_release(b), nb_tensor_release(a);
}

/* kl_div of input [2] and target [2, 1]: input's gradient had target's shape, not
 * summed over the broadcast; PyTorch: -sum over rows of target, here [-1, -1]. */
TEST(test_kl_div_backward_with_a_broadcast_target) {
    int64_t si[1] = {2}, st[2] = {2, 1};
    float tv[2] = {0.25f, 0.75f};
    nb_tensor *x = NULL, *t = NULL, *y = NULL, *g = NULL;
    CHECK_OK(nb_zeros(si, 1, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_from_host(tv, st, 2, NB_F32, NB_CPU, 0, &t));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_OK(nb_kl_div(x, t, NB_REDUCTION_SUM, 0, NULL, &y));
    nb_tensor* outs[1] = {y};
    CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK_SHAPE(g, 2);
    static const double want[2] = {-1, -1};
    CHECK_VALUES(g, want, 2);
    nb_tensor_release(g), nb_tensor_release(y), nb_tensor_release(t), nb_tensor_release(x);
}

/* copy_ into a view of a base whose other view is a leaf that requires grad: the base got
 * a CopySlices over the leaf's AccumulateGrad, which held the leaf, which held the base. */
TEST(test_copy_into_a_view_next_to_a_leaf_view) {
    int64_t s[1] = {4};
    int64_t before = live_tensors();
    nb_tensor *b = NULL, *v = NULL, *w = NULL, *y = NULL, *z = NULL, *g = NULL, *three = NULL;
    CHECK_OK(nb_ones(s, 1, NB_F32, NB_CPU, 0, &b));
    CHECK_OK(nb_tensor_narrow(b, 0, 0, 2, &v));
    CHECK_OK(nb_tensor_narrow(b, 0, 2, 2, &w));
    CHECK_OK(nb_tensor_set_requires_grad(v, 1));
    CHECK_OK(nb_scalar(3.0, 0, NB_F32, &three));
    CHECK_OK(nb_mul(v, three, NULL, &y));
    CHECK_OK(nb_tensor_copy_(w, y));
    CHECK_OK(nb_pow(w, three, w, NULL));  /* in place on the view, through the same history */
    CHECK_OK(nb_sum(b, NULL, 0, 0, -1, NULL, &z));
    nb_tensor* outs[1] = {z};
    CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
    CHECK_OK(nb_tensor_get_grad(v, &g));
    /* v stays a leaf; it reaches sum(b) through w = (3 v)^3 only: 81 v^2 = 81 at v = 1 */
    static const double want[2] = {81, 81};
    CHECK_VALUES(g, want, 2);
    nb_tensor_release(g), nb_tensor_release(z), nb_tensor_release(y), nb_tensor_release(three);
    nb_tensor_release(w), nb_tensor_release(v), nb_tensor_release(b);
    CHECK_EQ_INT(live_tensors(), before);
}

/* svd with grad recorded and S NULL (or U without Vh) stored S through the NULL pointer. */
TEST(test_svd_with_grad_and_a_null_s) {
    int64_t sh[2] = {3, 2};
    nb_tensor *a = NULL, *u = NULL, *vh = NULL;
    CHECK_OK(nb_ones(sh, 2, NB_F32, NB_CPU, 0, &a));
    CHECK_OK(nb_tensor_set_requires_grad(a, 1));
    CHECK_STATUS(nb_linalg_svd(a, 0, NULL, NULL, &vh), NB_ERR_INVALID_ARGUMENT, "linalg.svd");
    CHECK_STATUS(nb_linalg_svd(a, 0, &u, NULL, &vh), NB_ERR_INVALID_ARGUMENT, "linalg.svd");
    CHECK(u == NULL && vh == NULL);
    nb_tensor_release(a);
}

/* A capsule with a negative stride was accepted when another dim was empty. */
TEST(test_dlpack_negative_stride_without_elements) {
    float buf[4] = {0};
    int64_t shape[2] = {0, 3}, strides[2] = {3, -1};
    DLManagedTensor m;
    memset(&m, 0, sizeof m);
    m.dl_tensor.data = buf;
    m.dl_tensor.device.device_type = kDLCPU;
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype.code = kDLFloat, m.dl_tensor.dtype.bits = 32, m.dl_tensor.dtype.lanes = 1;
    m.dl_tensor.shape = shape;
    m.dl_tensor.strides = strides;
    nb_tensor* t = NULL;
    CHECK_STATUS(nb_tensor_from_dlpack(&m, &t), NB_ERR_INVALID_ARGUMENT, "negative strides");
    CHECK(t == NULL);
}

/* cat/stack with grad recorded (out= requires grad) read a NULL tensor list. */
TEST(test_cat_and_stack_of_a_null_list_into_a_grad_out) {
    int64_t s1[1] = {2};
    nb_tensor *x = NULL, *y = NULL, *out = NULL;
    CHECK_OK(nb_ones(s1, 1, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_OK(nb_mul(x, x, NULL, &y));
    CHECK(nb_cat(NULL, 3, 0, y, &out) != NB_OK);
    CHECK(nb_stack(NULL, 3, 0, y, &out) != NB_OK);
    CHECK(out == NULL && nb_last_error_message()[0] != '\0');
    nb_tensor_release(y), nb_tensor_release(x);
}

/* A DLPack export held the exported tensor itself, history and all: a graph that saved the
 * importer's tensor then held itself through the capsule once the exporter took that graph
 * as its history in place (b.pow_ through a view, x.copy_(e * w) with e imported from x). */
static nb_tensor* import_of(const nb_tensor* t) {
    void* cap = NULL;
    nb_tensor* e = NULL;
    if (nb_tensor_to_dlpack_versioned(t, -1, 0, 0, &cap) != NB_OK || nb_tensor_from_dlpack_versioned(cap, &e) != NB_OK)
        nbt_fail(__FILE__, __LINE__, "DLPack round trip: %s", nb_last_error_message());
    return e;
}

TEST(test_pow_into_a_view_with_its_own_export_as_base) {
    int64_t s[2] = {2, 3};
    int64_t before = live_tensors();
    nb_tensor *x = NULL, *two = NULL, *B = NULL, *v = NULL, *z = NULL, *g = NULL;
    CHECK_OK(nb_ones(s, 2, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_tensor_set_requires_grad(x, 1));
    CHECK_OK(nb_scalar(2.0, 0, NB_F32, &two));
    CHECK_OK(nb_mul(x, two, NULL, &B));
    CHECK_OK(nb_tensor_transpose(B, 0, 1, &v));
    nb_tensor* a = import_of(v);  /* shares v's memory, no history */
    CHECK_OK(nb_pow(a, v, v, NULL));  /* v = a^v in place: 2^2 */
    static const double four[6] = {4, 4, 4, 4, 4, 4};
    CHECK_VALUES(B, four, 6);
    CHECK_OK(nb_sum(B, NULL, 0, 0, -1, NULL, &z));
    nb_tensor* outs[1] = {z};
    CHECK_OK(nb_backward(outs, NULL, 1, 1, 0));  /* through CopySlices into x; the graph kept */
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK_SHAPE(g, 2, 3);
    nb_tensor_release(g), nb_tensor_release(z), nb_tensor_release(a), nb_tensor_release(v);
    nb_tensor_release(B), nb_tensor_release(two), nb_tensor_release(x);
    CHECK_EQ_INT(live_tensors(), before);
}

TEST(test_copy_into_a_tensor_from_its_own_export) {
    int64_t s[1] = {3};
    int64_t before = live_tensors();
    for (int into_view = 0; into_view < 2; into_view++) {
        nb_tensor *B = NULL, *w = NULL, *y = NULL, *v = NULL, *z = NULL, *g = NULL;
        CHECK_OK(nb_full(s, 1, 3.0, NB_F32, NB_CPU, 0, &B));  /* plain data, exported before it has a history */
        CHECK_OK(nb_full(s, 1, 2.0, NB_F32, NB_CPU, 0, &w));
        CHECK_OK(nb_tensor_set_requires_grad(w, 1));
        nb_tensor* e = import_of(B);
        CHECK_OK(nb_mul(e, w, NULL, &y));  /* saves e: its storage holds the capsule */
        if (into_view) CHECK_OK(nb_tensor_narrow(B, 0, 0, 3, &v));
        CHECK_OK(nb_tensor_copy_(into_view ? v : B, y));
        static const double six[3] = {6, 6, 6};
        CHECK_VALUES(B, six, 3);
        CHECK_OK(nb_sum(B, NULL, 0, 0, -1, NULL, &z));
        nb_tensor* outs[1] = {z};
        CHECK_OK(nb_backward(outs, NULL, 1, 1, 0));  /* retain_graph: the saved tensors stay */
        CHECK_OK(nb_tensor_get_grad(w, &g));
        CHECK_SHAPE(g, 3);
        nb_tensor_release(g), nb_tensor_release(z), nb_tensor_release(v), nb_tensor_release(y);
        nb_tensor_release(e), nb_tensor_release(w), nb_tensor_release(B);
    }
    CHECK_EQ_INT(live_tensors(), before);
}

/* A batch of 2^60 empty matrices is a valid tensor of no bytes: the LAPACK loops visited
 * every matrix (~forever); PyTorch returns the empty result at once. */
TEST(test_linalg_of_a_huge_batch_of_empty_matrices) {
    int64_t one[3] = {1, 0, 0}, huge[3] = {(int64_t)1 << 60, 0, 0};
    nb_tensor *z = NULL, *a = NULL, *r = NULL, *r2 = NULL;
    CHECK_OK(nb_zeros(one, 3, NB_F32, NB_CPU, 0, &z));
    CHECK_OK(nb_tensor_expand(z, huge, 3, &a));
#define EMPTY_RESULT(call, ...)                                     \
    do {                                                            \
        r = r2 = NULL;                                              \
        CHECK_OK(call);                                             \
        CHECK_SHAPE(r, __VA_ARGS__);                                \
        nb_tensor_release(r), nb_tensor_release(r2);                \
    } while (0)
    const int64_t h = huge[0];
    EMPTY_RESULT(nb_linalg_inv(a, &r), h, 0, 0);
    EMPTY_RESULT(nb_linalg_cholesky(a, 0, &r), h, 0, 0);
    EMPTY_RESULT(nb_linalg_solve(a, a, 1, &r), h, 0, 0);
    EMPTY_RESULT(nb_linalg_solve_triangular(a, a, 1, 1, 0, &r), h, 0, 0);
    EMPTY_RESULT(nb_linalg_qr(a, NB_QR_REDUCED, &r, &r2), h, 0, 0);
    EMPTY_RESULT(nb_linalg_eigh(a, 0, &r, &r2), h, 0);
#undef EMPTY_RESULT
    r = NULL;
    /* det has one value per matrix: 2^60 of them is out of memory, refused at once */
    CHECK_STATUS(nb_linalg_det(a, &r), NB_ERR_OUT_OF_MEMORY, "linalg.det");
    nb_tensor_release(a), nb_tensor_release(z);
    /* A small batch of empty matrices still gets det's 1 and the complete QR's identity. */
    int64_t few[3] = {2, 0, 0}, tall[3] = {2, 2, 0};
    CHECK_OK(nb_zeros(few, 3, NB_F64, NB_CPU, 0, &a));
    CHECK_OK(nb_linalg_det(a, &r));
    static const double ones[2] = {1, 1};
    CHECK_VALUES(r, ones, 2);
    nb_tensor_release(r), nb_tensor_release(a);
    CHECK_OK(nb_zeros(tall, 3, NB_F64, NB_CPU, 0, &a));
    CHECK_OK(nb_linalg_qr(a, NB_QR_COMPLETE, &r, &r2));
    static const double eye2[8] = {1, 0, 0, 1, 1, 0, 0, 1};
    CHECK_VALUES(r, eye2, 8);
    nb_tensor_release(r), nb_tensor_release(r2), nb_tensor_release(a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_solve_with_a_null_operand_and_grad);
    RUN(test_svd_of_a_non_finite_matrix);
    RUN(test_relu_backward_after_its_result_was_written_in_place);
    RUN(test_in_place_into_a_view_of_a_leaf_view);
    RUN(test_dropout_with_a_null_out);
    RUN(test_second_backward_through_svd_and_eigh);
    RUN(test_dlpack_byte_offset_past_int64);
    RUN(test_repeat_backward_with_a_zero_count);
    RUN(test_batch_norm_backward_with_a_3d_weight);
    RUN(test_cat_of_empty_1d_tensors_with_grad);
    RUN(test_kl_div_backward_with_a_broadcast_target);
    RUN(test_copy_into_a_view_next_to_a_leaf_view);
    RUN(test_svd_with_grad_and_a_null_s);
    RUN(test_dlpack_negative_stride_without_elements);
    RUN(test_cat_and_stack_of_a_null_list_into_a_grad_out);
    RUN(test_pow_into_a_view_with_its_own_export_as_base);
    RUN(test_copy_into_a_tensor_from_its_own_export);
    RUN(test_linalg_of_a_huge_batch_of_empty_matrices);
    return NBT_END();
}
