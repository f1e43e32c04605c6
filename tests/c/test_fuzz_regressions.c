/* test_fuzz_regressions.c: minimised reproducers of what tests/fuzz/fuzz_abi.c found,
 * one test each, named for the call that crashed. */
#include "nbtest.h"

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
    const nb_tensor* outs[1] = {z};
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
        const nb_tensor* outs[1] = {z};
        CHECK_OK(nb_backward(outs, NULL, 1, 0, 0));
        CHECK_STATUS(nb_backward(outs, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "second time");
        nb_tensor_release(z), nb_tensor_release(u), nb_tensor_release(sv), nb_tensor_release(vh);
        nb_tensor_release(a);
    }
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_solve_with_a_null_operand_and_grad);
    RUN(test_svd_of_a_non_finite_matrix);
    RUN(test_relu_backward_after_its_result_was_written_in_place);
    RUN(test_in_place_into_a_view_of_a_leaf_view);
    RUN(test_dropout_with_a_null_out);
    RUN(test_second_backward_through_svd_and_eigh);
    return NBT_END();
}
