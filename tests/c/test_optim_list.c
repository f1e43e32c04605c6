/* test_optim_list.c: the optimizer steps over lists (nb_*_step_list) and the clipping ops
 * from C: a list call equals the single-tensor calls bit for bit (mixed dtypes, a strided
 * parameter, an empty one); bad input (a NULL list or element, a negative count, a
 * released handle, mismatched shapes and dtypes, a step below 1, a missing state list, a
 * tensor on another device) fails with the op's message and changes no tensor, the bad
 * one being the last; writing into a leaf that requires grad is refused; no leaks. */
#include "nbtest.h"

enum { N = 3 };

/* The list used throughout: a [2, 3] float32, a [3, 2] float64 viewed transposed, an empty float32. */
static void make(nb_tensor** t, int32_t seed) {
    const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s0[1] = {0};
    double v[6];
    for (int i = 0; i < 6; i++) v[i] = (i - 2.5 + seed) / 4.0;
    t[0] = nbt_tensor(v, s23, 2, NB_F32);
    nb_tensor* base = nbt_tensor(v, s32, 2, NB_F64);
    CHECK_OK(nb_tensor_transpose(base, 0, 1, &t[1]));
    nb_tensor_release(base);
    t[2] = nbt_tensor(v, s0, 1, NB_F32);
}

static void release(nb_tensor** t, int n) {
    for (int i = 0; i < n; i++) nb_tensor_release(t[i]);
}

/* Equal element for element (NaN where the other has NaN: Adagrad's sum may start negative). */
static void check_same(nb_tensor* const* a, nb_tensor* const* b, int n) {
    for (int i = 0; i < n; i++) {
        double x[8], y[8];
        const int64_t nx = nbt_values(a[i], x, 8), ny = nbt_values(b[i], y, 8);
        CHECK_EQ_INT(nx, ny);
        for (int64_t j = 0; j < nx && j < ny; j++) CHECK(x[j] == y[j] || (x[j] != x[j] && y[j] != y[j]));
    }
}

TEST(test_list_calls_equal_single_calls) {
    nb_memory_stats before = nbt_stats();
    nb_tensor *p[N], *g[N], *m[N], *v[N], *q[N], *qm[N], *qv[N];
    make(p, 0), make(g, 1), make(m, 2), make(v, 3), make(q, 0), make(qm, 2), make(qv, 3);
    const int64_t steps[N] = {1, 4, 2};
    CHECK_OK(nb_adam_step_list(p, (const nb_tensor* const*)g, m, v, NULL, steps, N, 0.01, 0.9, 0.999, 1e-8, 0.1, 1,
                               0, 0));
    for (int i = 0; i < N; i++)
        CHECK_OK(nb_adam_step(q[i], g[i], qm[i], qv[i], NULL, steps[i], 0.01, 0.9, 0.999, 1e-8, 0.1, 1, 0, 0));
    check_same(p, q, N);
    check_same(m, qm, N);
    check_same(v, qv, N);
    CHECK_OK(nb_sgd_step_list(p, (const nb_tensor* const*)g, m, N, 0.1, 0.9, 0.1, 0.01, 0, 1, 1));
    for (int i = 0; i < N; i++) CHECK_OK(nb_sgd_step(q[i], g[i], qm[i], 0.1, 0.9, 0.1, 0.01, 0, 1, 1));
    check_same(p, q, N);
    check_same(m, qm, N);
    CHECK_OK(nb_rmsprop_step_list(p, (const nb_tensor* const*)g, v, NULL, m, N, 0.01, 0.99, 1e-8, 0, 0.5, 0, 0));
    for (int i = 0; i < N; i++) CHECK_OK(nb_rmsprop_step(q[i], g[i], qv[i], NULL, qm[i], 0.01, 0.99, 1e-8, 0, 0.5, 0, 0));
    check_same(p, q, N);
    check_same(v, qv, N);
    CHECK_OK(nb_adagrad_step_list(p, (const nb_tensor* const*)g, m, steps, N, 0.1, 0.01, 1e-10, 0, 1));
    for (int i = 0; i < N; i++) CHECK_OK(nb_adagrad_step(q[i], g[i], qm[i], steps[i], 0.1, 0.01, 1e-10, 0, 1));
    check_same(p, q, N);
    check_same(m, qm, N);
    CHECK_OK(nb_sgd_step_list(NULL, NULL, NULL, 0, 0.1, 0, 0, 0, 0, 0, 0)); /* an empty list does nothing */
    CHECK_OK(nb_clip_grad_value_(g, N, 0.3));
    double x[8];
    CHECK_EQ_INT(nbt_values(g[0], x, 8), 6);
    CHECK_EQ_DBL(x[0], (double)-0.3f); /* clamped in float32 */
    CHECK_EQ_DBL(x[5], (double)0.3f);
    CHECK_EQ_DBL(x[2], 0.125);          /* inside: kept */
    release(p, N), release(g, N), release(m, N), release(v, N), release(q, N), release(qm, N), release(qv, N);
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
}

/* The call fails with status and a message containing msg, and p[0] (never the bad tensor) is unchanged. */
#define CHECK_REFUSED(call, status, msg)                 \
    do {                                                 \
        double before_[8], after_[8];                    \
        nbt_values(p[0], before_, 8);                    \
        CHECK_STATUS(call, status, msg);                 \
        nbt_values(p[0], after_, 8);                     \
        for (int j_ = 0; j_ < 6; j_++) CHECK_EQ_DBL(before_[j_], after_[j_]); \
    } while (0)

TEST(test_list_bad_input_changes_nothing) {
    nb_memory_stats before = nbt_stats();
    nb_tensor *p[N], *g[N], *m[N], *v[N];
    make(p, 0), make(g, 1), make(m, 2), make(v, 3);
    const nb_tensor* const* cg = (const nb_tensor* const*)g;
    const int64_t steps[N] = {1, 1, 1}, bad_steps[N] = {1, 1, 0};
    CHECK_REFUSED(nb_sgd_step_list(p, NULL, NULL, N, 0.1, 0, 0, 0, 0, 0, 0), NB_ERR_INVALID_ARGUMENT,
                  "sgd_step_list: expected lists of 3 params and grads");
    CHECK_REFUSED(nb_sgd_step_list(p, cg, NULL, -1, 0.1, 0, 0, 0, 0, 0, 0), NB_ERR_INVALID_ARGUMENT, "-1 params");
    CHECK_REFUSED(nb_sgd_step_list(p, cg, NULL, N, 0.1, 0.9, 0, 0, 0, 0, 0), NB_ERR_INVALID_ARGUMENT,
                  "sgd_step_list: momentum 0.9 needs a momentum_buffer");
    CHECK_REFUSED(nb_adam_step_list(p, cg, m, v, NULL, NULL, N, 0.1, 0.9, 0.999, 1e-8, 0, 0, 0, 0),
                  NB_ERR_INVALID_ARGUMENT, "adam_step_list: steps is NULL");
    CHECK_REFUSED(nb_adam_step_list(p, cg, m, v, NULL, bad_steps, N, 0.1, 0.9, 0.999, 1e-8, 0, 0, 0, 0),
                  NB_ERR_INVALID_ARGUMENT, "adam_step_list: step must be >= 1, got 0");
    CHECK_REFUSED(nb_adam_step_list(p, cg, m, v, NULL, steps, N, 0.1, 0.9, 0.999, 1e-8, 0, 0, 1, 0),
                  NB_ERR_INVALID_ARGUMENT, "max_exp_avg_sq with amsgrad");
    CHECK_REFUSED(nb_rmsprop_step_list(p, cg, v, NULL, NULL, N, 0.1, 0.99, 1e-8, 0, 0, 1, 0),
                  NB_ERR_INVALID_ARGUMENT, "grad_avg when centered");
    nb_tensor* held = v[2];
    v[2] = NULL; /* a NULL element */
    CHECK_REFUSED(nb_adagrad_step_list(p, cg, v, steps, N, 0.1, 0, 1e-10, 0, 0), NB_ERR_INVALID_ARGUMENT,
                  "state_sums[2]");
    const int64_t s4[1] = {4}, s0[1] = {0};
    CHECK_OK(nb_empty(s4, 1, NB_F32, NB_CPU, 0, &v[2]));
    CHECK_REFUSED(nb_adagrad_step_list(p, cg, v, steps, N, 0.1, 0, 1e-10, 0, 0), NB_ERR_SHAPE,
                  "adagrad_step_list: expected 'state_sums[2]' of the param's shape [0], but got [4]");
    nb_tensor_release(v[2]);
    CHECK_OK(nb_empty(s0, 1, NB_F64, NB_CPU, 0, &v[2]));
    CHECK_REFUSED(nb_adagrad_step_list(p, cg, v, steps, N, 0.1, 0, 1e-10, 0, 0), NB_ERR_DTYPE,
                  "expected 'state_sums[2]' to have the param's dtype float32, but got float64");
    nb_tensor_release(v[2]);
    CHECK_OK(nb_empty(s0, 1, NB_F32, NB_CPU, 0, &v[2]));
    nb_tensor_release(v[2]); /* a released handle */
    CHECK_REFUSED(nb_adagrad_step_list(p, cg, v, steps, N, 0.1, 0, 1e-10, 0, 0), NB_ERR_INVALID_ARGUMENT,
                  "state_sums[2]");
    v[2] = held;
    CHECK_REFUSED(nb_sgd_step_list(p, cg, p, N, 0.1, 0.9, 0, 0, 0, 0, 0), NB_ERR_INVALID_ARGUMENT,
                  "'momentum_buffers[0]' shares memory with 'params[0]'");
    CHECK_OK(nb_tensor_set_requires_grad(p[2], 1));
    CHECK_REFUSED(nb_sgd_step_list(p, cg, NULL, N, 0.1, 0, 0, 0, 0, 0, 0), NB_ERR_AUTOGRAD,
                  "sgd_step_list: the operation is not differentiable");
    nb_set_grad_enabled(0);
    CHECK_OK(nb_sgd_step_list(p, cg, NULL, N, 0.1, 0, 0, 0, 0, 0, 0)); /* under no_grad, as optimizers run */
    nb_set_grad_enabled(1);
    CHECK_STATUS(nb_clip_grad_value_(NULL, 2, 1.0), NB_ERR_INVALID_ARGUMENT, "clip_grad_value_: expected a list");
    int32_t devices = 0;
    if (nb_device_count(NB_CUDA, &devices) == NB_OK && devices > 0) { /* the last tensor on another device */
        nb_tensor* dev = NULL;
        CHECK_OK(nb_tensor_to(g[2], NB_F32, NB_CUDA, 0, 0, &dev));
        nb_tensor* held_g = g[2];
        g[2] = dev;
        CHECK_REFUSED(nb_sgd_step_list(p, cg, NULL, N, 0.1, 0, 0, 0, 0, 0, 0), NB_ERR_DEVICE,
                      "sgd_step_list: expected all tensors to be on the same device, but found 'params[0]' on cpu:0 "
                      "and 'grads[2]' on cuda:0");
        g[2] = held_g;
        nb_tensor_release(dev);
    }
    release(p, N), release(g, N), release(m, N), release(v, N);
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_list_calls_equal_single_calls);
    RUN(test_list_bad_input_changes_nothing);
    return NBT_END();
}
