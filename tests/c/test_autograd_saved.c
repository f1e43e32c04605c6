/* test_autograd_saved.c: what a graph's saved tensors allow after backward, and
 * when the graph is freed. A second backward through any node that saved
 * tensors fails with PyTorch's message (and nb_last_error_status agrees), for
 * every op family; nodes that saved nothing may run again. In-place updates
 * computed from the tensor they write (x.copy_(x * w), v.mul_(v * w) on a view)
 * leave no reference cycle: the live-object counts and the allocator's bytes
 * return to where they were, also when a leaf moves into its own graph's interior. */
#include "nbtest.h"

#define FREED "Trying to backward through the graph a second time (or directly access saved tensors after they " \
              "have already been freed). Saved intermediate values of the graph are freed when you call "         \
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "    \
              "graph a second time or if you need to access saved tensors after calling backward."

/* x: [4, 6] float64 with values from a fixed formula (distinct, no ties for sort/max). */
static nb_tensor* input(int requires_grad, double shift) {
    double v[24];
    for (int i = 0; i < 24; i++) v[i] = sin(1.7 * i + shift) + 0.01 * i;
    const int64_t shape[2] = {4, 6};
    nb_tensor* t = NULL;
    if (nb_tensor_from_host(v, shape, 2, NB_F64, NB_CPU, 0, &t) != NB_OK) return NULL;
    if (requires_grad && nb_tensor_set_requires_grad(t, 1) != NB_OK) {
        nb_tensor_release(t);
        return NULL;
    }
    return t;
}

static nb_tensor* ints(const int64_t* v, const int64_t* shape, int32_t ndim) {
    nb_tensor* t = NULL;
    return nb_tensor_from_host(v, shape, ndim, NB_I64, NB_CPU, 0, &t) == NB_OK ? t : NULL;
}

typedef nb_status (*op_fn)(nb_tensor* x, nb_tensor* w, nb_tensor** out);

static nb_status op_mul(nb_tensor* x, nb_tensor* w, nb_tensor** out) { return nb_mul(x, w, NULL, out); }
static nb_status op_add(nb_tensor* x, nb_tensor* w, nb_tensor** out) { return nb_add(x, w, 1.0, NULL, out); }
static nb_status op_exp(nb_tensor* x, nb_tensor* w, nb_tensor** out) { (void)w; return nb_exp(x, NULL, out); }
static nb_status op_tanh(nb_tensor* x, nb_tensor* w, nb_tensor** out) { (void)w; return nb_tanh(x, NULL, out); }
static nb_status op_neg(nb_tensor* x, nb_tensor* w, nb_tensor** out) { (void)w; return nb_neg(x, NULL, out); }
static nb_status op_softmax(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    return nb_softmax(x, 1, -1, NULL, out);
}
static nb_status op_log_softmax(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    return nb_log_softmax(x, 1, -1, NULL, out);
}
static nb_status op_sort(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    nb_tensor* idx = NULL;
    nb_status st = nb_sort(x, 1, 0, 0, out, &idx);
    nb_tensor_release(idx);
    return st;
}
static nb_status op_topk(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    nb_tensor* idx = NULL;
    nb_status st = nb_topk(x, 2, 1, 1, 1, out, &idx);
    nb_tensor_release(idx);
    return st;
}
static nb_status op_matmul(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    nb_tensor* wt = NULL;
    nb_status st = nb_tensor_transpose(w, 0, 1, &wt);
    if (st == NB_OK) st = nb_matmul(x, wt, NULL, out);
    nb_tensor_release(wt);
    return st;
}
static nb_status op_gather(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t v[4] = {0, 5, 2, 3}, shape[2] = {4, 1};
    nb_tensor* idx = ints(v, shape, 2);
    nb_status st = nb_gather(x, 1, idx, out);
    nb_tensor_release(idx);
    return st;
}
static nb_status op_take_along_dim(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t v[4] = {1, 0, 4, 3}, shape[2] = {4, 1};
    nb_tensor* idx = ints(v, shape, 2);
    nb_status st = nb_take_along_dim(x, idx, 1, 1, out);
    nb_tensor_release(idx);
    return st;
}
static nb_status op_index_select(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t v[3] = {0, 2, 2}, shape[1] = {3};
    nb_tensor* idx = ints(v, shape, 1);
    nb_status st = nb_index_select(x, 1, idx, out);
    nb_tensor_release(idx);
    return st;
}
static nb_status op_cumprod(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    return nb_cumprod(x, 1, -1, NULL, out);
}
static nb_status op_cumsum(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    return nb_cumsum(x, 1, -1, NULL, out);
}
static nb_status op_prod(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t dim = 1;
    return nb_prod(x, &dim, 1, 0, -1, NULL, out);
}
static nb_status op_std(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t dim = 1;
    return nb_std(x, &dim, 1, 1.0, 0, NULL, out);
}
static nb_status op_layer_norm(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t shape = 6;
    return nb_layer_norm(x, &shape, 1, NULL, NULL, 1e-5, NULL, out);
}
static nb_status op_cross_entropy(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t v[4] = {0, 1, 2, 5}, shape[1] = {4};
    nb_tensor* target = ints(v, shape, 1);
    nb_status st = nb_cross_entropy(x, target, NULL, -100, 1, 0.0, NULL, out);
    nb_tensor_release(target);
    return st;
}
/* x as [1, 1, 4, 6] with the kernel w[:2, :2] as [1, 1, 2, 2]. */
static nb_status op_conv2d(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    const int64_t xs[4] = {1, 1, 4, 6}, ws[4] = {1, 1, 2, 2}, one[2] = {1, 1}, zero[4] = {0, 0, 0, 0};  /* padding: 4 sides */
    nb_tensor *x4 = NULL, *rows = NULL, *corner = NULL, *w4 = NULL;
    nb_status st = nb_tensor_reshape(x, xs, 4, &x4);
    if (st == NB_OK) st = nb_tensor_narrow(w, 0, 0, 2, &rows);
    if (st == NB_OK) st = nb_tensor_narrow(rows, 1, 0, 2, &corner);
    if (st == NB_OK) st = nb_tensor_reshape(corner, ws, 4, &w4);
    if (st == NB_OK) st = nb_conv2d(x4, w4, NULL, one, zero, one, 1, NULL, out);
    nb_tensor_release(x4), nb_tensor_release(rows), nb_tensor_release(corner), nb_tensor_release(w4);
    return st;
}
static nb_status op_max_pool2d(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    (void)w;
    const int64_t xs[4] = {1, 1, 4, 6}, k[2] = {2, 2}, zero[2] = {0, 0}, one[2] = {1, 1};
    nb_tensor* x4 = NULL;
    nb_status st = nb_tensor_reshape(x, xs, 4, &x4);
    if (st == NB_OK) st = nb_max_pool2d(x4, k, k, zero, one, 0, NULL, NULL, out);
    nb_tensor_release(x4);
    return st;
}
static nb_status op_attention(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    return nb_scaled_dot_product_attention(x, w, w, NULL, 0.0, 0, -1.0, NULL, out);
}
/* y = x * 1, then y[1:] *= w[1:]: a CopySlices node whose in-place op saved w and the old slice. */
static nb_status op_copy_slices(nb_tensor* x, nb_tensor* w, nb_tensor** out) {
    nb_tensor *one = NULL, *y = NULL, *v = NULL, *wv = NULL;
    nb_status st = nb_scalar(1.0, 1, NB_F64, &one);
    if (st == NB_OK) st = nb_mul(x, one, NULL, &y);
    if (st == NB_OK) st = nb_tensor_slice(y, 0, 1, 4, 1, &v);
    if (st == NB_OK) st = nb_tensor_slice(w, 0, 1, 4, 1, &wv);
    if (st == NB_OK) st = nb_mul(v, wv, v, NULL);
    nb_tensor_release(one), nb_tensor_release(v), nb_tensor_release(wv);
    if (st == NB_OK) *out = y;
    else nb_tensor_release(y);
    return st;
}

typedef struct {
    const char* name;
    op_fn fn;
    int saves; /* its graph holds saved tensors, so a second backward must fail */
} op_case;

static const op_case CASES[] = {
    {"mul", op_mul, 1},          {"exp", op_exp, 1},
    {"tanh", op_tanh, 1},        {"softmax", op_softmax, 1},
    {"log_softmax", op_log_softmax, 1}, {"sort", op_sort, 1},
    {"topk", op_topk, 1},        {"matmul", op_matmul, 1},
    {"gather", op_gather, 1},    {"take_along_dim", op_take_along_dim, 1},
    {"index_select", op_index_select, 1}, {"cumprod", op_cumprod, 1},
    {"prod", op_prod, 1},        {"std", op_std, 1},
    {"layer_norm", op_layer_norm, 1}, {"cross_entropy", op_cross_entropy, 1},
    {"conv2d", op_conv2d, 1},    {"max_pool2d", op_max_pool2d, 1},
    {"scaled_dot_product_attention", op_attention, 1}, {"copy_slices", op_copy_slices, 1},
    {"add", op_add, 0},          {"neg", op_neg, 0},
    {"cumsum", op_cumsum, 0},
};

static nb_tensor* summed(const op_case* c, nb_tensor* x, nb_tensor* w) {
    nb_tensor *y = NULL, *s = NULL;
    nb_status st = c->fn(x, w, &y);
    if (st != NB_OK) printf("  %s: %s\n", c->name, nb_last_error_message());
    if (st == NB_OK) st = nb_sum(y, NULL, 0, 0, -1, NULL, &s);
    nb_tensor_release(y);
    return s;
}

TEST(second_backward_fails_for_every_node_that_saved_tensors) {
    nb_memory_stats before = nbt_stats();
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const op_case* c = &CASES[i];
        nb_tensor* x = input(1, 0.0);
        nb_tensor* w = input(1, 0.5);
        nb_tensor* s = summed(c, x, w);
        CHECK(s != NULL);
        nb_tensor* roots[1] = {s};
        CHECK_OK(nb_backward(roots, NULL, 1, 0, 0));
        if (c->saves) {
            nb_clear_error();
            nb_status st = nb_backward(roots, NULL, 1, 0, 0);
            if (st != NB_ERR_AUTOGRAD || nb_last_error_status() != NB_ERR_AUTOGRAD ||
                strcmp(nb_last_error_message(), FREED) != 0)
                printf("  %s: status %d, last status %d, message \"%s\"\n", c->name, (int)st,
                       (int)nb_last_error_status(), nb_last_error_message());
            CHECK_STATUS(nb_backward(roots, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, FREED);
            CHECK_STR(nb_last_error_message(), FREED);
        } else {
            CHECK_OK(nb_backward(roots, NULL, 1, 0, 0)); /* nothing saved: PyTorch runs it again too */
        }
        nb_tensor_release(s), nb_tensor_release(x), nb_tensor_release(w);
    }
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
}

TEST(retain_graph_keeps_saved_tensors_for_one_more_pass) {
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        nb_tensor* x = input(1, 0.0);
        nb_tensor* w = input(1, 0.5);
        nb_tensor* s = summed(&CASES[i], x, w);
        nb_tensor* roots[1] = {s};
        CHECK_OK(nb_backward(roots, NULL, 1, 1, 0));
        CHECK_OK(nb_backward(roots, NULL, 1, 0, 0)); /* the retained graph runs once more, then is freed */
        if (CASES[i].saves) CHECK_STATUS(nb_backward(roots, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, FREED);
        nb_tensor_release(s), nb_tensor_release(x), nb_tensor_release(w);
    }
}

TEST(functional_grad_frees_saved_tensors_too) {
    nb_tensor* x = input(1, 0.0);
    nb_tensor* s = summed(&CASES[3], x, NULL); /* softmax */
    nb_tensor* roots[1] = {s};
    nb_tensor* ins[1] = {x};
    nb_tensor* g = NULL;
    CHECK_OK(nb_autograd_grad(roots, NULL, 1, ins, 1, 0, 0, 0, &g));
    nb_tensor* g2 = NULL;
    CHECK_STATUS(nb_autograd_grad(roots, NULL, 1, ins, 1, 0, 0, 0, &g2), NB_ERR_AUTOGRAD, FREED);
    CHECK(g2 == NULL);
    nb_tensor_release(g), nb_tensor_release(s), nb_tensor_release(x);
}

/* ---- in-place updates computed from themselves ---- */

enum { SELF_COPY, VIEW_MUL, VIEW_COPY_EXP, SELF_COPY_EXP };

/* One iteration: x (plain, or a non-leaf made from a leaf a), w requires grad;
 * pattern 0: x.copy_(x * w); 1: v = x[1:], v.mul_(v * w); 2: v.copy_(v.exp() * w);
 * 3: x.copy_(x.exp() * w). With `backward`, a backward of sum(x), which patterns 0
 * and 1 refuse (mul saved what they overwrote). Without it the graph is only dropped:
 * a backward frees saved tensors, so only then does a cycle through them show. */
static void in_place_iteration(int pattern, int from_leaf, int backward) {
    nb_tensor* a = input(from_leaf, 0.0);
    nb_tensor* x = NULL;
    nb_tensor* one = NULL;
    CHECK_OK(nb_scalar(1.0, 1, NB_F64, &one));
    if (from_leaf) CHECK_OK(nb_mul(a, one, NULL, &x));
    else nb_tensor_retain(x = a);
    nb_tensor* w = input(1, 0.5);
    nb_tensor *v = NULL, *wv = NULL, *e = NULL, *p = NULL;
    if (pattern == VIEW_MUL || pattern == VIEW_COPY_EXP) {
        CHECK_OK(nb_tensor_slice(x, 0, 1, 4, 1, &v));
        CHECK_OK(nb_tensor_slice(w, 0, 1, 4, 1, &wv));
    } else {
        nb_tensor_retain(v = x);
        nb_tensor_retain(wv = w);
    }
    if (pattern == SELF_COPY || pattern == VIEW_MUL) {
        CHECK_OK(nb_mul(v, wv, NULL, &p));
        if (pattern == SELF_COPY) CHECK_OK(nb_tensor_copy_(v, p));
        else CHECK_OK(nb_mul(v, p, v, NULL));
    } else {
        CHECK_OK(nb_exp(v, NULL, &e));
        CHECK_OK(nb_mul(e, wv, NULL, &p));
        CHECK_OK(nb_tensor_copy_(v, p));
    }
    nb_tensor* s = NULL;
    CHECK_OK(nb_sum(x, NULL, 0, 0, -1, NULL, &s));
    nb_tensor* roots[1] = {s};
    if (!backward) {
    } else if (pattern == SELF_COPY || pattern == VIEW_MUL) { /* x (or v) was saved by mul, then overwritten */
        CHECK_STATUS(nb_backward(roots, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "is at version 1; expected version 0");
    } else {
        CHECK_OK(nb_backward(roots, NULL, 1, 0, 0));
    }
    nb_tensor_release(s), nb_tensor_release(p), nb_tensor_release(e), nb_tensor_release(wv), nb_tensor_release(v);
    nb_tensor_release(w), nb_tensor_release(one), nb_tensor_release(x), nb_tensor_release(a);
}

TEST(in_place_updates_from_themselves_leave_no_cycle) {
    const int iters = (int)nbt_iters(200, 20);
    for (int pattern = SELF_COPY; pattern <= SELF_COPY_EXP; pattern++) {
        for (int variant = 0; variant < 4; variant++) {
            int from_leaf = variant & 1, backward = variant >> 1;
            in_place_iteration(pattern, from_leaf, backward); /* warms the allocator's caches */
            nb_memory_stats before = nbt_stats();
            for (int i = 0; i < iters; i++) in_place_iteration(pattern, from_leaf, backward);
            nb_memory_stats after = nbt_stats();
            if (after.live_tensors != before.live_tensors)
                printf("  pattern %d, from_leaf %d, backward %d: %lld tensors left\n", pattern, from_leaf, backward,
                       (long long)(after.live_tensors - before.live_tensors));
            CHECK_EQ_INT(after.live_tensors, before.live_tensors);
            CHECK_EQ_INT(after.live_storages, before.live_storages);
            CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
        }
    }
}

/* A leaf used by a graph (saved by mul, or only an edge to its accumulator), then
 * requires_grad off and written in place from that graph: it moves into the graph's
 * interior. Nothing of it stays alive, and a backward into its old accumulator fails
 * as in PyTorch. */
static void leaf_moved_iteration(int saved, int backward) {
    nb_tensor* w = input(1, 0.25);
    nb_tensor *two = NULL, *y = NULL, *s = NULL;
    CHECK_OK(nb_scalar(2.0, 2, NB_F64, &two));
    CHECK_OK(nb_mul(w, saved ? w : two, NULL, &y));
    CHECK_OK(nb_tensor_set_requires_grad(w, 0));
    CHECK_OK(nb_tensor_copy_(w, y));
    CHECK_EQ_INT(nb_tensor_is_leaf(w), 0);
    if (backward) {
        CHECK_OK(nb_sum(w, NULL, 0, 0, -1, NULL, &s));
        nb_tensor* roots[1] = {s};
        if (saved) CHECK_STATUS(nb_backward(roots, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "is at version 1");
        else CHECK_STATUS(nb_backward(roots, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "moved into the graph interior");
    }
    nb_tensor_release(s), nb_tensor_release(y), nb_tensor_release(two), nb_tensor_release(w);
}

TEST(leaf_moved_into_its_own_graph_leaves_no_cycle) {
    const int iters = (int)nbt_iters(100, 10);
    for (int variant = 0; variant < 4; variant++) {
        int saved = variant & 1, backward = variant >> 1;
        leaf_moved_iteration(saved, backward);
        nb_memory_stats before = nbt_stats();
        for (int i = 0; i < iters; i++) leaf_moved_iteration(saved, backward);
        nb_memory_stats after = nbt_stats();
        CHECK_EQ_INT(after.live_tensors, before.live_tensors);
        CHECK_EQ_INT(after.live_storages, before.live_storages);
        CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    }
}

/* d/dw sum(x) after x.copy_(exp(x) * w) with x = a * 1: exp(a); d/da: exp(a) * w. */
TEST(in_place_update_from_itself_has_the_right_gradient) {
    nb_tensor* a = input(1, 0.0);
    nb_tensor* w = input(1, 0.5);
    nb_tensor *one = NULL, *x = NULL, *e = NULL, *p = NULL, *s = NULL;
    CHECK_OK(nb_scalar(1.0, 1, NB_F64, &one));
    CHECK_OK(nb_mul(a, one, NULL, &x));
    CHECK_OK(nb_exp(x, NULL, &e));
    CHECK_OK(nb_mul(e, w, NULL, &p));
    CHECK_OK(nb_tensor_copy_(x, p));
    CHECK_OK(nb_sum(x, NULL, 0, 0, -1, NULL, &s));
    nb_tensor* roots[1] = {s};
    CHECK_OK(nb_backward(roots, NULL, 1, 0, 0));
    nb_tensor *ga = NULL, *gw = NULL;
    CHECK_OK(nb_tensor_get_grad(a, &ga));
    CHECK_OK(nb_tensor_get_grad(w, &gw));
    double av[24], wv[24], gav[24], gwv[24];
    CHECK_OK(nb_tensor_copy_to_host(a, av, sizeof av));
    CHECK_OK(nb_tensor_copy_to_host(w, wv, sizeof wv));
    CHECK_OK(nb_tensor_copy_to_host(ga, gav, sizeof gav));
    CHECK_OK(nb_tensor_copy_to_host(gw, gwv, sizeof gwv));
    for (int i = 0; i < 24; i++) {
        CHECK(fabs(gwv[i] - exp(av[i])) <= 1e-12 * exp(av[i]));
        CHECK(fabs(gav[i] - exp(av[i]) * wv[i]) <= 1e-12 * fabs(exp(av[i]) * wv[i]) + 1e-15);
    }
    nb_tensor_release(ga), nb_tensor_release(gw), nb_tensor_release(s), nb_tensor_release(p);
    nb_tensor_release(e), nb_tensor_release(x), nb_tensor_release(one), nb_tensor_release(w), nb_tensor_release(a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(second_backward_fails_for_every_node_that_saved_tensors);
    RUN(retain_graph_keeps_saved_tensors_for_one_more_pass);
    RUN(functional_grad_frees_saved_tensors_too);
    RUN(in_place_updates_from_themselves_leave_no_cycle);
    RUN(in_place_update_from_itself_has_the_right_gradient);
    RUN(leaf_moved_into_its_own_graph_leaves_no_cycle);
    return NBT_END();
}
