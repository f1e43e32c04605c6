/* test_autograd_reduce.c: gradients of reductions, softmax, shape ops, sort and
 * dropout through the C ABI: values of .grad after nb_backward, a second
 * derivative through nb_autograd_grad(create_graph), the errors of out= with
 * grad and of the fused softmax backward, and (under valgrind) no leaks on any
 * of these paths, graphs with node attributes included. */
#include "nbtest.h"

static const int64_t S23[2] = {2, 3};

/* A float64 leaf that requires grad. */
static nb_tensor* leaf(const double* v, const int64_t* shape, int32_t ndim) {
    nb_tensor* t = nbt_tensor(v, shape, ndim, NB_F64);
    CHECK_OK(nb_tensor_set_requires_grad(t, 1));
    return t;
}

/* Backward from y with all-ones gradient; returns x's .grad (a new reference). */
static nb_tensor* grad_of(nb_tensor* y, nb_tensor* x) {
    nb_tensor *ones = NULL, *g = NULL;
    int64_t shape[16];
    int32_t nd = nb_tensor_ndim(y);
    for (int32_t d = 0; d < nd; d++) shape[d] = nb_tensor_shape(y)[d];
    CHECK_OK(nb_ones(shape, nd, nb_tensor_dtype(y), NB_CPU, 0, &ones));
    CHECK_OK(nb_backward((nb_tensor* const*)&y, (nb_tensor* const*)&ones, 1, 0, 0));
    CHECK_OK(nb_tensor_get_grad(x, &g));
    nb_tensor_release(ones);
    return g;
}

TEST(test_prod_with_a_zero_and_cat) {
    nb_tensor* x = leaf((double[]){2, 0, 3, 4, 5, 6}, S23, 2);
    nb_tensor *y = NULL, *s = NULL;
    const int64_t d1 = 1;
    CHECK_OK(nb_prod(x, &d1, 1, 0, -1, NULL, &y));  /* [0, 120] */
    nb_tensor* g = grad_of(y, x);
    CHECK_VALUES(g, ((double[]){0, 6, 0, 30, 24, 20}), 6);
    nb_tensor_release(g);
    nb_tensor_release(y);
    nb_tensor* a = leaf((double[]){1, 2}, (int64_t[]){2}, 1);
    nb_tensor* parts[3] = {a, x, a};
    nb_tensor* flat = NULL;
    CHECK_OK(nb_tensor_reshape(x, (int64_t[]){6}, 1, &flat));
    parts[1] = flat;
    CHECK_OK(nb_cat((const nb_tensor* const*)parts, 3, 0, NULL, &y));
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &s));
    g = grad_of(s, a);
    CHECK_VALUES(g, ((double[]){2, 2}), 2);  /* a appears twice */
    nb_tensor_release(g);
    nb_tensor_release(s);
    nb_tensor_release(y);
    nb_tensor_release(flat);
    nb_tensor_release(a);
    nb_tensor_release(x);
}

TEST(test_max_dim_sort_and_dropout) {
    nb_tensor* x = leaf((double[]){1, 5, 5, 4, 2, 3}, S23, 2);
    nb_tensor *v = NULL, *i = NULL;
    CHECK_OK(nb_max_dim(x, 1, 0, NULL, NULL, &v, &i));
    CHECK_EQ_INT(nb_tensor_requires_grad(i), 0);
    nb_tensor* g = grad_of(v, x);
    CHECK_VALUES(g, ((double[]){0, 1, 0, 1, 0, 0}), 6);
    nb_tensor_release(g);
    nb_tensor_release(v);
    nb_tensor_release(i);
    CHECK_OK(nb_tensor_set_grad(x, NULL));
    CHECK_OK(nb_sort(x, 1, 1, 1, &v, &i));  /* descending, stable: indices [[1, 2, 0], [0, 2, 1]] */
    nb_tensor *w = NULL, *s = NULL, *weights = nbt_tensor((double[]){1, 2, 3, 4, 5, 6}, S23, 2, NB_F64);
    CHECK_OK(nb_mul(v, weights, NULL, &w));
    CHECK_OK(nb_sum(w, NULL, 0, 0, -1, NULL, &s));
    g = grad_of(s, x);
    CHECK_VALUES(g, ((double[]){3, 1, 2, 4, 6, 5}), 6);
    CHECK_OK(nb_tensor_set_grad(x, NULL));
    nb_tensor_release(g);
    nb_tensor_release(s);
    nb_tensor_release(w);
    nb_tensor_release(weights);
    nb_tensor_release(v);
    nb_tensor_release(i);
    CHECK_OK(nb_generator_manual_seed(NULL, 1));
    CHECK_OK(nb_dropout(x, 0.5, 1, NULL, NULL, &v));
    g = grad_of(v, x);
    double gv[6], yv[6];
    CHECK_EQ_INT(nbt_values(g, gv, 6), 6);
    CHECK_EQ_INT(nbt_values(v, yv, 6), 6);
    for (int k = 0; k < 6; k++) CHECK(gv[k] == (yv[k] != 0 ? 2.0 : 0.0));
    nb_tensor_release(g);
    nb_tensor_release(v);
    nb_tensor_release(x);
}

TEST(test_softmax_second_derivative) {
    nb_tensor* x = leaf((double[]){0.5, -1, 2, 0, 1, 3}, S23, 2);
    nb_tensor *y = NULL, *sel = NULL, *gx = NULL, *s = NULL, *ggx = NULL;
    CHECK_OK(nb_softmax(x, 1, -1, NULL, &y));
    CHECK_OK(nb_tensor_select(y, 1, 0, &sel));
    nb_tensor* gout = nbt_tensor((double[]){1, 1}, (int64_t[]){2}, 1, NB_F64);
    CHECK_OK(nb_autograd_grad((nb_tensor* const*)&sel, (nb_tensor* const*)&gout, 1,
                              (nb_tensor* const*)&x, 1, 1, 1, 0, &gx));
    CHECK_EQ_INT(nb_tensor_requires_grad(gx), 1);
    CHECK_OK(nb_sum(gx, NULL, 0, 0, -1, NULL, &s));  /* sum of a softmax gradient is 0 */
    double sv;
    CHECK_EQ_INT(nbt_values(s, &sv, 1), 1);
    CHECK(fabs(sv) < 1e-12);
    nb_tensor* sq = NULL;
    CHECK_OK(nb_mul(gx, gx, NULL, &sq));
    nb_tensor_release(s);
    CHECK_OK(nb_sum(sq, NULL, 0, 0, -1, NULL, &s));
    CHECK_OK(nb_autograd_grad((nb_tensor* const*)&s, NULL, 1, (nb_tensor* const*)&x, 1, 0, 0, 0, &ggx));
    CHECK_EQ_INT(nb_tensor_numel(ggx), 6);
    nb_tensor_release(ggx);
    nb_tensor_release(sq);
    nb_tensor_release(s);
    nb_tensor_release(gx);
    nb_tensor_release(gout);
    nb_tensor_release(sel);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(test_errors) {
    nb_tensor* x = leaf((double[]){1, 2, 3, 4, 5, 6}, S23, 2);
    nb_tensor *dst = NULL, *out = NULL, *y = NULL;
    CHECK_OK(nb_zeros((int64_t[]){4, 3}, 2, NB_F64, NB_CPU, 0, &dst));
    nb_tensor* parts[2] = {x, x};
    CHECK_STATUS(nb_cat((const nb_tensor* const*)parts, 2, 0, dst, &out), NB_ERR_AUTOGRAD, "cat(): functions with out=");
    CHECK(out == NULL);
    CHECK_STATUS(nb_cumsum(x, 0, -1, x, NULL), NB_ERR_AUTOGRAD, "leaf Variable that requires grad");
    CHECK_OK(nb_softmax(x, 1, -1, NULL, &y));
    CHECK_STATUS(nb_softmax_backward(dst, y, 1, NULL, &out), NB_ERR_SHAPE,
                 "softmax_backward: grad_output has shape [4, 3] but output has shape [2, 3]");
    CHECK_STATUS(nb_log_softmax_backward(y, y, 2, NULL, &out), NB_ERR_INDEX, "log_softmax_backward");
    CHECK(out == NULL);
    nb_tensor_release(y);
    nb_tensor_release(dst);
    nb_tensor_release(x);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_prod_with_a_zero_and_cat);
    RUN(test_max_dim_sort_and_dropout);
    RUN(test_softmax_second_derivative);
    RUN(test_errors);
    return NBT_END();
}
