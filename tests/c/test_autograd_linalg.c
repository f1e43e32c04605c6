/* test_autograd_linalg.c: the gradients of the matrix products, the indexing
 * ops and attention through the C ABI: exact values for small products, first
 * and second derivatives of every formula (run under valgrind: nothing leaks,
 * error paths included), and the errors for a modified saved index and a
 * second backward. */
#include "nbtest.h"

#include <math.h>

static nb_tensor* leaf(const double* v, const int64_t* shape, int32_t ndim) {
    nb_tensor* t = nbt_tensor(v, shape, ndim, NB_F64);
    CHECK_OK(nb_tensor_set_requires_grad(t, 1));
    return t;
}

/* A leaf of `shape` with values 0.1 * (i % 7) - 0.3 (distinct enough, exact in any order of sums). */
static nb_tensor* ramp(const int64_t* shape, int32_t ndim) {
    double v[256];
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) n *= shape[i];
    for (int64_t i = 0; i < n && i < 256; i++) v[i] = 0.1 * (double)(i % 7) - 0.3;
    return leaf(v, shape, ndim);
}

static nb_tensor* longs(const double* v, const int64_t* shape, int32_t ndim) {
    return nbt_tensor(v, shape, ndim, NB_I64);
}

static nb_tensor* sum_all(nb_tensor* t) {
    nb_tensor* s = NULL;
    CHECK_OK(nb_sum(t, NULL, 0, 0, -1, NULL, &s));
    return s;
}

/* d sum(y) / d leaves with create_graph, then the backward of the sum of those
 * gradients squared (second derivatives through every formula); releases y. */
static void first_and_second(nb_tensor* y, nb_tensor* const* leaves, int32_t n) {
    nb_tensor* loss = sum_all(y);
    nb_tensor* grads[8] = {NULL};
    CHECK_OK(nb_autograd_grad((nb_tensor* const*)&loss, NULL, 1, (nb_tensor* const*)leaves, n, 1, 1, 1,
                              grads));
    nb_tensor* total = NULL;
    for (int32_t i = 0; i < n; i++) {
        if (grads[i] == NULL || !nb_tensor_requires_grad(grads[i])) continue;
        nb_tensor *sq = NULL, *s = NULL, *acc = NULL;
        CHECK_OK(nb_mul(grads[i], grads[i], NULL, &sq));
        s = sum_all(sq);
        if (total == NULL) {
            total = s;
            s = NULL;
        } else {
            CHECK_OK(nb_add(total, s, 1.0, NULL, &acc));
            nb_tensor_release(total);
            total = acc;
        }
        nb_tensor_release(s);
        nb_tensor_release(sq);
    }
    if (total != NULL) CHECK_OK(nb_backward((nb_tensor* const*)&total, NULL, 1, 0, 0));
    nb_tensor_release(total);
    for (int32_t i = 0; i < n; i++) nb_tensor_release(grads[i]);
    nb_tensor_release(loss);
    nb_tensor_release(y);
}

static void release_all(nb_tensor** ts, int32_t n) {
    for (int32_t i = 0; i < n; i++) nb_tensor_release(ts[i]);
}

TEST(test_mm_gradient_values) {
    const double av[] = {1, 2, 3, 4}, bv[] = {5, 6, 7, 8};
    const int64_t s[] = {2, 2};
    nb_tensor *a = leaf(av, s, 2), *b = leaf(bv, s, 2), *y = NULL;
    CHECK_OK(nb_mm(a, b, NULL, &y));
    nb_tensor* loss = sum_all(y);
    CHECK_OK(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0));
    nb_tensor *ga = NULL, *gb = NULL;
    CHECK_OK(nb_tensor_get_grad(a, &ga));
    CHECK_OK(nb_tensor_get_grad(b, &gb));
    const double want_a[] = {11, 15, 11, 15}, want_b[] = {4, 4, 6, 6};  /* ones b^T, a^T ones */
    CHECK_VALUES(ga, want_a, 4);
    CHECK_VALUES(gb, want_b, 4);
    nb_tensor* all[] = {ga, gb, loss, y, a, b};
    release_all(all, 6);
}

TEST(test_linear_gradient_values) {
    const double xv[] = {1, 2, 3, 4, 5, 6}, wv[] = {1, 0, -1, 2, 1, 0}, bv[] = {0.5, -0.5};
    const int64_t sx[] = {2, 3}, sw[] = {2, 3}, sb[] = {2};
    nb_tensor *x = leaf(xv, sx, 2), *w = leaf(wv, sw, 2), *b = leaf(bv, sb, 1), *y = NULL;
    CHECK_OK(nb_linear(x, w, b, NULL, &y));
    nb_tensor* loss = sum_all(y);
    CHECK_OK(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0));
    nb_tensor *gx = NULL, *gw = NULL, *gb = NULL;
    CHECK_OK(nb_tensor_get_grad(x, &gx));
    CHECK_OK(nb_tensor_get_grad(w, &gw));
    CHECK_OK(nb_tensor_get_grad(b, &gb));
    const double want_x[] = {3, 1, -1, 3, 1, -1}, want_w[] = {5, 7, 9, 5, 7, 9}, want_b[] = {2, 2};
    CHECK_VALUES(gx, want_x, 6);
    CHECK_VALUES(gw, want_w, 6);
    CHECK_VALUES(gb, want_b, 2);
    nb_tensor* all[] = {gx, gw, gb, loss, y, x, w, b};
    release_all(all, 8);
}

TEST(test_products_first_and_second_derivatives) {
    const int64_t s3[] = {2, 3, 4}, s4[] = {4}, s43[] = {4, 3}, s34[] = {3, 4}, s2[] = {2, 1, 2}, s242[] = {2, 4, 2};
    nb_tensor *a = ramp(s3, 3), *v = ramp(s4, 1), *w = ramp(s34, 2), *c = ramp(s43, 2), *i = ramp(s2, 3);
    nb_tensor *b = ramp(s242, 3), *bias = ramp(s4 + 0, 0), *y = NULL, *wt = NULL;
    nb_tensor* ab[] = {a, v};
    CHECK_OK(nb_matmul(a, v, NULL, &y));           /* batch @ vector */
    first_and_second(y, ab, 2);
    nb_tensor* vb[] = {v, b};
    CHECK_OK(nb_matmul(v, b, NULL, &y));           /* vector @ batch */
    first_and_second(y, vb, 2);
    nb_tensor* ac[] = {a, c};
    CHECK_OK(nb_matmul(a, c, NULL, &y));           /* batch @ matrix: folded */
    first_and_second(y, ac, 2);
    nb_tensor* lin[] = {a, w, bias};
    CHECK_OK(nb_linear(a, w, bias, NULL, &y));     /* [2, 3, 4] x [3, 4]^T + 0-dim bias */
    first_and_second(y, lin, 3);
    CHECK_OK(nb_tensor_transpose(c, 0, 1, &wt));
    nb_tensor* mm[] = {c};
    CHECK_OK(nb_mm(wt, c, NULL, &y));                /* a transposed view of c times c */
    first_and_second(y, mm, 1);
    nb_tensor* add[] = {i, a, b};
    CHECK_OK(nb_baddbmm(i, a, b, 0.5, 2.0, NULL, &y));  /* input [2, 1, 2] broadcast to [2, 3, 2] */
    first_and_second(y, add, 3);
    nb_tensor* mv[] = {w, v};
    CHECK_OK(nb_mv(w, v, NULL, &y));
    first_and_second(y, mv, 2);
    nb_tensor* dot[] = {v};
    CHECK_OK(nb_dot(v, v, NULL, &y));
    first_and_second(y, dot, 1);
    CHECK_OK(nb_outer(v, v, NULL, &y));
    first_and_second(y, dot, 1);
    nb_tensor* all[] = {wt, a, v, w, c, i, b, bias};
    release_all(all, 8);
}

TEST(test_indexing_first_and_second_derivatives) {
    const int64_t s[] = {3, 4}, si[] = {2, 4}, s1[] = {3}, s0[] = {1};
    const double iv[] = {0, 2, 1, 0, 2, 1, 0, 1}, rows[] = {2, 0, 2}, mv[] = {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1};
    nb_tensor *x = ramp(s, 2), *src = ramp(si, 2), *index = longs(iv, si, 2), *r = longs(rows, s1, 1);
    nb_tensor *m64 = nbt_tensor(mv, s, 2, NB_F64), *mask = NULL, *y = NULL, *value = NULL, *cols = NULL;
    CHECK_OK(nb_tensor_to(m64, NB_BOOL, NB_CPU, 0, 0, &mask));
    CHECK_OK(nb_scalar(0.25, 0, NB_F64, &value));
    CHECK_OK(nb_tensor_set_requires_grad(value, 1));
    nb_tensor* xs[] = {x, src};
    nb_tensor* xv[] = {x, value};
    CHECK_OK(nb_gather(x, 0, index, &y));
    first_and_second(y, xs, 1);
    CHECK_OK(nb_scatter(x, 0, index, src, NULL, &y));
    first_and_second(y, xs, 2);
    CHECK_OK(nb_scatter_value(x, 0, index, value, NULL, &y));
    first_and_second(y, xv, 2);
    CHECK_OK(nb_scatter_add(x, 0, index, src, NULL, &y));
    first_and_second(y, xs, 2);
    CHECK_OK(nb_index_select(x, 1, r, &y));
    first_and_second(y, xs, 1);
    CHECK_OK(nb_tensor_narrow(src, 0, 0, 1, &cols));  /* [1, 4] */
    nb_tensor* xc[] = {x, cols};
    nb_tensor* one = longs(rows + 1, s0, 1);
    CHECK_OK(nb_index_add(x, 0, one, cols, 2.0, NULL, &y));
    first_and_second(y, xc, 2);
    CHECK_OK(nb_masked_fill(x, mask, value, NULL, &y));
    first_and_second(y, xv, 2);
    CHECK_OK(nb_masked_select(x, mask, &y));
    first_and_second(y, xs, 1);
    CHECK_OK(nb_take_along_dim(x, index, 0, 1, &y));
    first_and_second(y, xs, 1);
    const nb_tensor* adv[] = {mask};
    CHECK_OK(nb_index(x, adv, 1, &y));
    first_and_second(y, xs, 1);
    const nb_tensor* pair[] = {r, NULL};
    CHECK_OK(nb_index(x, pair, 2, &y));
    first_and_second(y, xs, 1);
    nb_tensor* xr[] = {x, cols};
    CHECK_OK(nb_index_put(x, pair, 1, cols, 1, NULL, &y));  /* rows 2, 0, 2 += cols (duplicates add) */
    first_and_second(y, xr, 2);
    CHECK_OK(nb_index_put(x, pair, 1, cols, 0, NULL, &y));
    first_and_second(y, xr, 2);
    nb_tensor* all[] = {one, cols, value, mask, m64, r, index, src, x};
    release_all(all, 9);
}

TEST(test_attention_first_and_second_derivatives) {
    const int64_t sq[] = {2, 3, 4}, sk[] = {2, 3, 4}, sv[] = {2, 3, 2}, sm[] = {3, 3};
    nb_tensor *q = ramp(sq, 3), *k = ramp(sk, 3), *v = ramp(sv, 3), *m = ramp(sm, 2), *y = NULL;
    nb_generator* gen = NULL;
    CHECK_OK(nb_generator_create(3, &gen));
    nb_tensor* qkvm[] = {q, k, v, m};
    CHECK_OK(nb_scaled_dot_product_attention(q, k, v, NULL, 0.0, 1, NAN, NULL, &y));
    first_and_second(y, qkvm, 3);
    CHECK_OK(nb_scaled_dot_product_attention(q, k, v, m, 0.5, 0, 0.3, gen, &y));
    first_and_second(y, qkvm, 4);
    nb_generator_release(gen);
    nb_tensor* all[] = {q, k, v, m};
    release_all(all, 4);
}

TEST(test_modified_saved_index_fails_cleanly) {
    const int64_t s[] = {3, 4}, s1[] = {2};
    const double rows[] = {0, 1};
    nb_tensor *x = ramp(s, 2), *r = longs(rows, s1, 1), *y = NULL, *one = NULL;
    CHECK_OK(nb_index_select(x, 0, r, &y));
    CHECK_OK(nb_scalar(1, 1, NB_I64, &one));
    CHECK_OK(nb_add(r, one, 1.0, r, NULL));
    nb_tensor* loss = sum_all(y);
    CHECK_STATUS(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0), NB_ERR_AUTOGRAD,
                 "modified by an inplace operation");
    nb_tensor* all[] = {loss, one, y, r, x};
    release_all(all, 5);
}

TEST(test_second_backward_without_retain_graph) {
    const int64_t s[] = {3, 4}, s1[] = {2};
    const double rows[] = {0, 2};
    nb_tensor *x = ramp(s, 2), *r = longs(rows, s1, 1), *y = NULL;
    const nb_tensor* idx[] = {r};
    CHECK_OK(nb_index(x, idx, 1, &y));
    nb_tensor* loss = sum_all(y);
    CHECK_OK(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0));
    CHECK_STATUS(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "a second time");
    nb_tensor* all[] = {loss, y, r, x};
    release_all(all, 4);
}

TEST(test_forward_errors_record_nothing) {
    const int64_t s23[] = {2, 3}, s1[] = {1};
    const double bad[] = {7};
    nb_tensor *a = ramp(s23, 2), *r = longs(bad, s1, 1), *y = NULL;
    CHECK_STATUS(nb_matmul(a, a, NULL, &y), NB_ERR_SHAPE, "cannot be multiplied");
    CHECK_STATUS(nb_linear(a, r, NULL, NULL, &y), NB_ERR_SHAPE, "size mismatch");
    CHECK_STATUS(nb_index_select(a, 0, r, &y), NB_ERR_INDEX, "");
    const nb_tensor* idx[] = {r};
    CHECK_STATUS(nb_index_put(a, idx, 1, a, 0, NULL, &y), NB_ERR_INDEX, "");
    CHECK_STATUS(nb_scaled_dot_product_attention(a, a, r, NULL, 0.0, 0, NAN, NULL, &y), NB_ERR_SHAPE,
                 "scaled_dot_product_attention");
    CHECK(y == NULL);
    nb_tensor* all[] = {r, a};
    release_all(all, 2);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_mm_gradient_values);
    RUN(test_linear_gradient_values);
    RUN(test_products_first_and_second_derivatives);
    RUN(test_indexing_first_and_second_derivatives);
    RUN(test_attention_first_and_second_derivatives);
    RUN(test_modified_saved_index_fails_cleanly);
    RUN(test_second_backward_without_retain_graph);
    RUN(test_forward_errors_record_nothing);
    return NBT_END();
}
