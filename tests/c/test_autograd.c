/* test_autograd.c: the autograd ABI from C — backward, functional grad, grad
 * mode, hooks and custom functions as closures, version and leaf errors, four
 * threads running their own backward, and no tensor left behind. */
#include "nbtest.h"

#include <pthread.h>

static nb_tensor* vec(const double* v, int64_t n, int requires_grad) {
    nb_tensor* t = NULL;
    if (nb_tensor_from_host(v, &n, 1, NB_F64, NB_CPU, 0, &t) != NB_OK) return NULL;
    if (requires_grad && nb_tensor_set_requires_grad(t, 1) != NB_OK) {
        nb_tensor_release(t);
        return NULL;
    }
    return t;
}

static double at(const nb_tensor* t, int64_t i) {
    double v[16] = {0};
    int64_t n = nb_tensor_numel(t);
    if (n > 16 || nb_tensor_copy_to_host(t, v, n * 8) != NB_OK) return NAN;
    return v[i];
}

static int64_t live_tensors(void) {
    nb_memory_stats s = {.struct_size = sizeof s};
    return nb_memory_stats_get(NB_CPU, 0, &s) == NB_OK ? s.live_tensors : -1;
}

/* sum(x * x) */
static nb_tensor* sum_of_squares(const nb_tensor* x) {
    nb_tensor *sq = NULL, *s = NULL;
    if (nb_mul(x, x, NULL, &sq) == NB_OK) nb_sum(sq, NULL, 0, 0, -1, NULL, &s);
    nb_tensor_release(sq);
    return s;
}

TEST(backward_accumulates_into_the_leaf) {
    const double v[3] = {1, 2, 3};
    nb_tensor* x = vec(v, 3, 1);
    nb_tensor* y = sum_of_squares(x);
    CHECK(nb_tensor_requires_grad(y) == 1 && nb_tensor_is_leaf(y) == 0);
    nb_node* fn = NULL;
    CHECK_OK(nb_tensor_grad_fn(y, &fn));
    CHECK_STR(nb_node_name(fn), "SumBackward1");
    nb_node_release(fn);
    CHECK_OK(nb_backward((nb_tensor* const*)&y, NULL, 1, 1, 0));
    CHECK_OK(nb_backward((nb_tensor* const*)&y, NULL, 1, 0, 0));
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(x, &g));
    for (int i = 0; i < 3; i++) CHECK_EQ_DBL(at(g, i), 4 * v[i]);
    CHECK_STATUS(nb_backward((nb_tensor* const*)&y, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "second time");
    nb_tensor_release(g);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(functional_grad_leaves_dot_grad_alone_and_keeps_out_params_on_error) {
    const double v[2] = {0.5, -1.5};
    nb_tensor* x = vec(v, 2, 1);
    nb_tensor* y = sum_of_squares(x);
    nb_tensor* grads[1] = {NULL};
    CHECK_OK(nb_autograd_grad((nb_tensor* const*)&y, NULL, 1, (nb_tensor* const*)&x, 1, 1, 0, 0, grads));
    CHECK_EQ_DBL(at(grads[0], 1), -3.0);
    nb_tensor* g = (nb_tensor*)1;
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK(g == NULL);
    nb_tensor* untouched[1] = {(nb_tensor*)0x1};
    nb_tensor* other = vec(v, 2, 1);
    CHECK_STATUS(nb_autograd_grad((nb_tensor* const*)&y, NULL, 1, (nb_tensor* const*)&other, 1, 0, 0, 0,
                                  untouched), NB_ERR_AUTOGRAD, "not have been used");
    CHECK(untouched[0] == (nb_tensor*)0x1);
    nb_tensor_release(other);
    nb_tensor_release(grads[0]);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(errors_name_the_problem) {
    const double v[3] = {1, 2, 3};
    nb_tensor* x = vec(v, 3, 1);
    nb_tensor* y = NULL;
    CHECK_OK(nb_mul(x, x, NULL, &y));
    CHECK_STATUS(nb_backward((nb_tensor* const*)&y, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "scalar outputs");
    CHECK_STATUS(nb_mul(x, x, x, NULL), NB_ERR_AUTOGRAD, "leaf Variable");
    nb_tensor* e = NULL;
    CHECK_OK(nb_exp(x, NULL, &e));
    CHECK_OK(nb_add(e, e, 1.0, e, NULL)); /* in place on the saved output of exp */
    nb_tensor* s = NULL;
    CHECK_OK(nb_sum(e, NULL, 0, 0, -1, NULL, &s));
    CHECK_STATUS(nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0), NB_ERR_AUTOGRAD,
                 "output 0 of ExpBackward0, is at version 1; expected version 0");
    nb_tensor* plain = vec(v, 3, 0);
    CHECK_STATUS(nb_backward((nb_tensor* const*)&plain, NULL, 1, 0, 0), NB_ERR_AUTOGRAD, "does not require grad");
    CHECK_STATUS(nb_backward(NULL, NULL, 1, 0, 0), NB_ERR_INVALID_ARGUMENT, "output");
    nb_tensor* dead[1] = {NULL};
    CHECK_STATUS(nb_backward((nb_tensor* const*)dead, NULL, 1, 0, 0), NB_ERR_INVALID_ARGUMENT, "NULL");
    nb_tensor_release(plain);
    nb_tensor_release(s);
    nb_tensor_release(e);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(grad_mode_is_a_per_thread_switch) {
    const double v[1] = {2};
    nb_tensor* x = vec(v, 1, 1);
    int32_t prev = nb_set_grad_enabled(0);
    CHECK(prev == 1 && nb_grad_enabled() == 0);
    nb_tensor* y = NULL;
    CHECK_OK(nb_mul(x, x, NULL, &y));
    CHECK(nb_tensor_requires_grad(y) == 0);
    CHECK_OK(nb_mul(x, x, x, NULL)); /* in place on a leaf is allowed with grad off */
    nb_set_grad_enabled(prev);
    CHECK_EQ_DBL(at(x, 0), 4.0);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

/* ---- closures ---- */

static atomic_int destroyed;
static void count_destroy(void* payload) {
    (void)payload;
    atomic_fetch_add(&destroyed, 1);
}

/* A hook doubling the gradient. */
static nb_status double_it(void* payload, const nb_tensor* grad, nb_tensor** replacement) {
    (void)payload;
    nb_tensor* two = NULL;
    nb_status st = nb_scalar(2.0, 2, NB_F64, &two);
    if (st == NB_OK) st = nb_mul(grad, two, NULL, replacement);
    nb_tensor_release(two);
    return st;
}

TEST(hooks_replace_gradients_and_release_their_payload) {
    atomic_store(&destroyed, 0);
    const double v[2] = {1, 2};
    nb_tensor* x = vec(v, 2, 1);
    int64_t id = 0;
    CHECK_OK(nb_tensor_register_hook(x, double_it, NULL, count_destroy, &id));
    nb_tensor* y = sum_of_squares(x);
    CHECK_OK(nb_backward((nb_tensor* const*)&y, NULL, 1, 0, 0));
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK_EQ_DBL(at(g, 1), 8.0);
    CHECK_OK(nb_tensor_remove_hook(x, id));
    CHECK_EQ_INT(atomic_load(&destroyed), 1);
    nb_tensor_release(g);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

/* A post-accumulate hook: an SGD step on the leaf (x -= 0.5 * x.grad), then .grad cleared. */
static nb_status sgd_step(void* payload, nb_tensor* x) {
    int* calls = payload;
    (*calls)++;
    nb_tensor* g = NULL;
    nb_status st = nb_tensor_get_grad(x, &g);
    if (st == NB_OK && g == NULL) st = nb_set_error(NB_ERR_AUTOGRAD, "no grad");
    if (st == NB_OK) st = nb_sub(x, g, 0.5, x, NULL); /* backward runs with grad mode off */
    if (st == NB_OK) st = nb_tensor_set_grad(x, NULL);
    nb_tensor_release(g);
    return st;
}

TEST(post_accumulate_hooks_see_the_accumulated_grad) {
    atomic_store(&destroyed, 0);
    const double v[2] = {1, 2};
    nb_tensor* x = vec(v, 2, 1);
    int calls = 0;
    int64_t id = 0;
    CHECK_OK(nb_tensor_register_post_accumulate_grad_hook(x, sgd_step, &calls, count_destroy, &id));
    nb_tensor* y = sum_of_squares(x); /* grad 2x: x becomes x - x = 0 */
    CHECK_STATUS(nb_tensor_register_post_accumulate_grad_hook(y, sgd_step, NULL, NULL, NULL), NB_ERR_AUTOGRAD,
                 "non-leaf");
    CHECK_OK(nb_backward((nb_tensor* const*)&y, NULL, 1, 0, 0));
    CHECK_EQ_INT(calls, 1);
    CHECK_EQ_DBL(at(x, 0), 0.0);
    CHECK_EQ_DBL(at(x, 1), 0.0);
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK(g == NULL);
    CHECK_OK(nb_tensor_remove_hook(x, id));
    CHECK_EQ_INT(atomic_load(&destroyed), 1);
    nb_tensor* plain = vec(v, 2, 0);
    CHECK_STATUS(nb_tensor_register_post_accumulate_grad_hook(plain, sgd_step, NULL, NULL, NULL), NB_ERR_AUTOGRAD,
                 "doesn't require gradient");
    nb_tensor_release(plain);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(mark_inplace_bumps_the_version_and_refuses_leaves_that_require_grad) {
    const double v[2] = {1, 2};
    nb_tensor* x = vec(v, 2, 0);
    nb_tensor* view = NULL;
    CHECK_OK(nb_tensor_unsqueeze(x, 0, &view));
    CHECK_OK(nb_tensor_mark_inplace(view, "unsqueeze_"));
    CHECK(nb_tensor_version(x) == 1); /* the counter is the storage's */
    nb_tensor_release(view);
    nb_tensor* leaf = vec(v, 2, 1);
    CHECK_STATUS(nb_tensor_mark_inplace(leaf, "t_"), NB_ERR_AUTOGRAD, "t_: a leaf Variable that requires grad");
    CHECK_OK(nb_tensor_unsqueeze(leaf, 0, &view));
    CHECK_STATUS(nb_tensor_mark_inplace(view, "t_"), NB_ERR_AUTOGRAD, "a view of a leaf Variable");
    int32_t prev = nb_set_grad_enabled(0);
    CHECK_OK(nb_tensor_mark_inplace(leaf, "t_")); /* allowed under no_grad */
    nb_set_grad_enabled(prev);
    CHECK(nb_tensor_version(leaf) == 1);
    nb_tensor_release(view);
    nb_tensor_release(leaf);
    nb_tensor_release(x);
}

/* A custom function y = x^3 whose backward (3 x^2 g) is written in C. */
typedef struct cube_ctx {
    nb_tensor* x;
} cube_ctx;

static void cube_destroy(void* payload) {
    cube_ctx* c = payload;
    nb_tensor_release(c->x);
    free(c);
    atomic_fetch_add(&destroyed, 1);
}

static nb_status cube_backward(void* payload, int32_t n_go, nb_tensor* const* go, int32_t n_gi, nb_tensor** gi) {
    cube_ctx* c = payload;
    if (n_go != 1 || n_gi != 1) return nb_set_error(NB_ERR_INTERNAL, "cube: unexpected arity");
    nb_tensor *sq = NULL, *three = NULL, *t = NULL;
    nb_status st = nb_mul(c->x, c->x, NULL, &sq);
    if (st == NB_OK) st = nb_scalar(3.0, 3, NB_F64, &three);
    if (st == NB_OK) st = nb_mul(sq, three, NULL, &t);
    if (st == NB_OK) st = nb_mul(t, go[0], NULL, &gi[0]);
    nb_tensor_release(sq);
    nb_tensor_release(three);
    nb_tensor_release(t);
    return st;
}

static nb_status failing_backward(void* payload, int32_t n_go, nb_tensor* const* go, int32_t n_gi, nb_tensor** gi) {
    (void)payload, (void)n_go, (void)go, (void)n_gi, (void)gi;
    return nb_set_error(NB_ERR_INVALID_ARGUMENT, "failing: refused on purpose");
}

static nb_tensor* cube(nb_tensor* x, nb_custom_backward_fn bw) {
    nb_tensor *sq = NULL, *y = NULL;
    int32_t prev = nb_set_grad_enabled(0); /* the forward is not recorded */
    nb_mul(x, x, NULL, &sq);
    nb_mul(sq, x, NULL, &y);
    nb_set_grad_enabled(prev);
    nb_tensor_release(sq);
    cube_ctx* c = malloc(sizeof *c);
    nb_tensor_retain(x);
    c->x = x;
    if (nb_autograd_function_record("Cube", (const nb_tensor* const*)&x, 1, &y, 1, NULL, bw, c, cube_destroy) != NB_OK) {
        nb_tensor_release(y);
        return NULL;
    }
    return y;
}

TEST(custom_function_in_c) {
    atomic_store(&destroyed, 0);
    const double v[2] = {2, -1};
    nb_tensor* x = vec(v, 2, 1);
    nb_tensor* y = cube(x, cube_backward);
    nb_node* fn = NULL;
    CHECK_OK(nb_tensor_grad_fn(y, &fn));
    CHECK_STR(nb_node_name(fn), "CubeBackward");
    nb_node_release(fn);
    nb_tensor* s = NULL;
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &s));
    CHECK_OK(nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0));
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(x, &g));
    CHECK_EQ_DBL(at(g, 0), 12.0);
    CHECK_EQ_DBL(at(g, 1), 3.0);
    nb_tensor_release(s);
    nb_tensor_release(y);
    CHECK_EQ_INT(atomic_load(&destroyed), 1); /* the graph went with its output */
    nb_tensor* z = cube(x, failing_backward);
    CHECK_OK(nb_sum(z, NULL, 0, 0, -1, NULL, &s));
    CHECK_STATUS(nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0), NB_ERR_INVALID_ARGUMENT, "on purpose");
    nb_tensor_release(s);
    nb_tensor_release(z);
    nb_tensor_release(g);
    nb_tensor_release(x);
}

/* ---- threads ---- */

typedef struct worker {
    nb_tensor* w;
    double seed;
    int iters;
    int failures;
} worker;

static void* run_worker(void* arg) {
    worker* k = arg;
    const double v[4] = {k->seed, k->seed + 1, k->seed + 2, k->seed + 3};
    nb_tensor* x = vec(v, 4, 0);
    for (int i = 0; i < k->iters; i++) {
        nb_tensor *p = NULL, *t = NULL, *s = NULL;
        if (nb_mul(x, k->w, NULL, &p) != NB_OK || nb_tanh(p, NULL, &t) != NB_OK ||
            nb_sum(t, NULL, 0, 0, -1, NULL, &s) != NB_OK || nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0))
            k->failures++;
        nb_tensor_release(s);
        nb_tensor_release(t);
        nb_tensor_release(p);
    }
    nb_tensor_release(x);
    return NULL;
}

TEST(four_threads_run_their_own_backward_into_one_leaf) {
    const double wv[4] = {0.1, -0.2, 0.3, 0.05};
    nb_tensor* w = vec(wv, 4, 1);
    int iters = nbt_iters(200, 20);
    worker k[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        k[i] = (worker){.w = w, .seed = 0.25 * i, .iters = iters};
        pthread_create(&th[i], NULL, run_worker, &k[i]);
    }
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    nb_tensor* g = NULL;
    CHECK_OK(nb_tensor_get_grad(w, &g));
    for (int j = 0; j < 4; j++) {
        double expected = 0;
        for (int i = 0; i < 4; i++) {
            double xv = 0.25 * i + j, t = tanh(xv * wv[j]);
            expected += iters * xv * (1 - t * t);
        }
        CHECK(fabs(at(g, j) - expected) < 1e-9 * fabs(expected) + 1e-12);
    }
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(k[i].failures, 0);
    nb_tensor_release(g);
    nb_tensor_release(w);
}

TEST(training_steps_leave_no_tensor_behind) {
    const double wv[3] = {0.5, -0.5, 0.25}, xv[3] = {1, 2, 3};
    nb_tensor* w = vec(wv, 3, 1);
    nb_tensor* x = vec(xv, 3, 0);
    int64_t base = live_tensors();
    for (int i = 0; i < nbt_iters(1000, 50); i++) {
        nb_tensor *p = NULL, *t = NULL, *s = NULL, *g = NULL;
        CHECK_OK(nb_mul(x, w, NULL, &p));
        CHECK_OK(nb_sigmoid(p, NULL, &t));
        CHECK_OK(nb_sum(t, NULL, 0, 0, -1, NULL, &s));
        CHECK_OK(nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0));
        CHECK_OK(nb_tensor_get_grad(w, &g));
        int32_t prev = nb_set_grad_enabled(0);
        CHECK_OK(nb_sub(w, g, 0.1, w, NULL));
        nb_set_grad_enabled(prev);
        CHECK_OK(nb_tensor_set_grad(w, NULL));
        nb_tensor_release(g);
        nb_tensor_release(s);
        nb_tensor_release(t);
        nb_tensor_release(p);
    }
    CHECK_EQ_INT(live_tensors(), base);
    nb_tensor_release(x);
    nb_tensor_release(w);
}

/* cat and stack of 999 inputs: the formula keeps one temporary per input, far past
 * the inline temporaries (a sequence model's 999 outputs, an episode's log-probs). */
TEST(cat_and_stack_of_999_inputs_backpropagate_to_each) {
    enum { N = 999 };
    static nb_tensor* xs[N];
    int64_t base = live_tensors();
    for (int i = 0; i < N; i++) {
        const double v[2] = {i, -i};
        xs[i] = vec(v, 2, 1);
    }
    nb_tensor *c = NULL, *st = NULL, *sc = NULL, *ss = NULL, *loss = NULL, *g = NULL;
    CHECK_OK(nb_cat((const nb_tensor* const*)xs, N, 0, NULL, &c));
    CHECK_OK(nb_stack((const nb_tensor* const*)xs, N, 1, NULL, &st));
    CHECK_EQ_INT(nb_tensor_shape(st)[1], N);
    sc = sum_of_squares(c); /* d/dx = 2x */
    CHECK_OK(nb_sum(st, NULL, 0, 0, -1, NULL, &ss)); /* d/dx = 1 */
    CHECK_OK(nb_add(sc, ss, 1.0, NULL, &loss));
    CHECK_OK(nb_backward(&loss, NULL, 1, 0, 0));
    for (int i = 0; i < N; i += 141) {
        CHECK_OK(nb_tensor_get_grad(xs[i], &g));
        CHECK_EQ_DBL(at(g, 0), 2.0 * i + 1);
        CHECK_EQ_DBL(at(g, 1), -2.0 * i + 1);
        nb_tensor_release(g);
    }
    nb_tensor_release(loss);
    nb_tensor_release(ss);
    nb_tensor_release(sc);
    nb_tensor_release(st);
    nb_tensor_release(c);
    for (int i = 0; i < N; i++) nb_tensor_release(xs[i]);
    CHECK_EQ_INT(live_tensors(), base);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(backward_accumulates_into_the_leaf);
    RUN(functional_grad_leaves_dot_grad_alone_and_keeps_out_params_on_error);
    RUN(errors_name_the_problem);
    RUN(grad_mode_is_a_per_thread_switch);
    RUN(hooks_replace_gradients_and_release_their_payload);
    RUN(post_accumulate_hooks_see_the_accumulated_grad);
    RUN(mark_inplace_bumps_the_version_and_refuses_leaves_that_require_grad);
    RUN(custom_function_in_c);
    RUN(four_threads_run_their_own_backward_into_one_leaf);
    RUN(training_steps_leave_no_tensor_behind);
    RUN(cat_and_stack_of_999_inputs_backpropagate_to_each);
    return NBT_END();
}
