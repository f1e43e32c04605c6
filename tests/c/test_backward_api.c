/* test_backward_api.c: the C calls a training loop makes, written as a C programmer writes
 * them: nb_backward(&loss, ...) and parameter arrays with no casts, the one-tensor
 * nb_tensor_backward, named sentinels. tests/test_c_programs.py also compiles this file
 * with -pedantic-errors, so a signature that needs a cast again fails there. */
#include "nbtest.h"

static nb_tensor* leaf(double value) {
    const int64_t s2[1] = {2};
    nb_tensor* t = NULL;
    CHECK_OK(nb_full(s2, 1, value, NB_F32, NB_CPU, 0, &t));
    CHECK_OK(nb_tensor_set_requires_grad(t, 1));
    return t;
}

/* loss = sum(w * x) */
static nb_tensor* loss_of(nb_tensor* w, nb_tensor* x) {
    nb_tensor *p = NULL, *s = NULL;
    CHECK_OK(nb_mul(w, x, NULL, &p));
    CHECK_OK(nb_sum(p, NULL, 0, 0, NB_DTYPE_DEFAULT, NULL, &s));
    nb_tensor_release(p);
    return s;
}

static double grad0(nb_tensor* t) {
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(t, &g));
    double v = -1;
    nb_tensor* first = NULL;
    const int64_t zero = 0;
    CHECK_OK(nb_tensor_select(g, 0, zero, &first));
    CHECK_OK(nb_tensor_item_double(first, &v));
    nb_tensor_release(first);
    nb_tensor_release(g);
    return v;
}

TEST(test_backward_takes_the_address_of_a_loss) {
    nb_tensor *w = leaf(3), *x = leaf(5);
    nb_tensor* loss = loss_of(w, x);
    CHECK_OK(nb_backward(&loss, NULL, 1, 0, 0));
    CHECK_EQ_DBL(grad0(w), 5.0);
    nb_tensor_release(loss);
    loss = loss_of(w, x);
    CHECK_OK(nb_tensor_backward(loss, NULL, 0, 0));  /* accumulates, as PyTorch's loss.backward() */
    CHECK_EQ_DBL(grad0(w), 10.0);
    CHECK_STATUS(nb_tensor_backward(loss, NULL, 0, 0), NB_ERR_AUTOGRAD, "second time");
    CHECK_STATUS(nb_tensor_backward(NULL, NULL, 0, 0), NB_ERR_INVALID_ARGUMENT, "backward");
    nb_tensor_release(loss);
    nb_tensor_release(w);
    nb_tensor_release(x);
}

TEST(test_grad_takes_a_parameter_array) {
    nb_tensor* params[2] = {leaf(3), leaf(5)};
    nb_tensor* loss = loss_of(params[0], params[1]);
    nb_tensor* grads[2] = {NULL, NULL};
    CHECK_OK(nb_autograd_grad(&loss, NULL, 1, params, 2, 0, 0, 0, grads));
    double g = 0;
    nb_tensor* first = NULL;
    CHECK_OK(nb_tensor_select(grads[1], 0, 0, &first));
    CHECK_OK(nb_tensor_item_double(first, &g));
    CHECK_EQ_DBL(g, 3.0);
    nb_tensor_release(first);
    for (int i = 0; i < 2; i++) {
        nb_tensor_release(grads[i]);
        nb_tensor_release(params[i]);
    }
    nb_tensor_release(loss);
}

TEST(test_sentinels_have_their_values) {
    CHECK_EQ_INT(NB_DTYPE_DEFAULT, -1);
    CHECK_EQ_INT(NB_DEVICE_CURRENT, -1);
    CHECK_EQ_INT(NB_IGNORE_INDEX, -100);
    CHECK_EQ_INT(-NB_IGNORE_INDEX, 100);  /* parenthesised: a negative constant stays one operand */
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_backward_takes_the_address_of_a_loss);
    RUN(test_grad_takes_a_parameter_array);
    RUN(test_sentinels_have_their_values);
    return NBT_END();
}
