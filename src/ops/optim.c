/* optim.c: the optimizers' update steps (SGD, Adam/AdamW, RMSprop, Adagrad), in place, for
 * one parameter (nb_sgd_step ...) or a list of them in one call (nb_sgd_step_list ...,
 * PyTorch's foreach / fused optimizers). Formulas are PyTorch's single-tensor ones
 * (torch/optim/ in PyTorch). Every tensor of a list is checked before any is written.
 * On the CPU operands run as they are when contiguous in f32/f64, otherwise through a
 * contiguous f32/f64 copy written back, and the chunks of all the list's tensors share
 * one parallel loop; on a device the list is one multi-tensor plan (optim_device.c). */
#include "nn_common.h"
#include "optim_device.h"
#include "../autograd/autograd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_MAX NB_BK_OPTIM_OPERANDS /* param, grad and up to three state tensors */
#define OPT_CHUNK 16384              /* elements per OpenMP work item */

/* Kernels over [lo, hi) of contiguous arrays of tensor t of plan c; v[0] = param, v[1] = grad, v[2..] = state
 * (NULL when absent). */
typedef void (*opt_kernel)(void* const* v, int64_t lo, int64_t hi, const nb_bk_optim* c, int64_t t);

#define OPT_KERNELS(T, SQRT, SFX)                                                                          \
    NN_CLONES static void sgd_##SFX(void* const* v, int64_t lo, int64_t hi, const nb_bk_optim* c, int64_t t) {             \
        (void)t;                                                                                           \
        T* p = v[0];                                                                                       \
        const T* gr = v[1];                                                                                \
        T* buf = v[2];                                                                                     \
        const T lr = (T)c->lr, mom = (T)c->momentum, damp = (T)(1.0 - c->dampening), wd = (T)c->weight_decay; \
        for (int64_t i = lo; i < hi; i++) {                                                                \
            T g = c->maximize ? -gr[i] : gr[i];                                                            \
            if (c->weight_decay != 0) g = g + wd * p[i];                                                   \
            if (c->momentum != 0) {                                                                        \
                T b = c->init_buffer ? g : mom * buf[i] + damp * g;                                           \
                buf[i] = b;                                                                                \
                g = c->nesterov ? g + mom * b : b;                                                         \
            }                                                                                              \
            p[i] = p[i] - lr * g;                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    NN_CLONES static void adam_##SFX(void* const* v, int64_t lo, int64_t hi, const nb_bk_optim* c, int64_t t) {            \
        T* restrict p = v[0];                                                                              \
        T* restrict m = v[2];                                                                              \
        T* restrict s = v[3];                                                                              \
        T* restrict smax = v[4];                                                                           \
        const T* restrict gr = v[1];                                                                       \
        const T b1 = (T)(1.0 - c->beta1), b2 = (T)c->beta2, nb2 = (T)(1.0 - c->beta2), eps = (T)c->eps;    \
        const T wd = (T)c->weight_decay, decay = (T)(1.0 - c->lr * c->weight_decay);                       \
        const T step = (T)c->step_size[t], bc2 = (T)c->bc2_sqrt[t], sign = c->maximize ? (T)-1 : (T)1;           \
        const bool coupled = c->weight_decay != 0 && !c->decoupled;                                        \
        const T keep = c->weight_decay != 0 && c->decoupled ? decay : (T)1;                                \
        const T l2 = coupled ? wd : (T)0;                                                                  \
        if (!c->amsgrad) { /* the common case: flags folded into constants, so the loop vectorises */      \
            for (int64_t i = lo; i < hi; i++) {                                                            \
                const T pi = p[i];                                                                         \
                const T g = sign * gr[i] + l2 * pi;                                                        \
                const T mi = m[i] + b1 * (g - m[i]);                                                       \
                const T si = s[i] * b2 + nb2 * g * g;                                                      \
                m[i] = mi, s[i] = si;                                                                      \
                p[i] = pi * keep - step * (mi / (SQRT(si) / bc2 + eps));                                   \
            }                                                                                              \
            return;                                                                                        \
        }                                                                                                  \
        for (int64_t i = lo; i < hi; i++) {                                                                \
            const T pi = p[i];                                                                             \
            const T g = sign * gr[i] + l2 * pi;                                                            \
            const T mi = m[i] + b1 * (g - m[i]);                                                           \
            T si = s[i] * b2 + nb2 * g * g;                                                                \
            m[i] = mi, s[i] = si;                                                                          \
            if (!(smax[i] <= si)) si = smax[i] != smax[i] || smax[i] > si ? smax[i] : si;                  \
            smax[i] = si;                                                                                  \
            p[i] = pi * keep - step * (mi / (SQRT(si) / bc2 + eps));                                       \
        }                                                                                                  \
    }                                                                                                      \
    NN_CLONES static void rmsprop_##SFX(void* const* v, int64_t lo, int64_t hi, const nb_bk_optim* c, int64_t t) {         \
        (void)t;                                                                                           \
        T *p = v[0], *sq = v[2], *ga = v[3], *buf = v[4];                                                  \
        const T* gr = v[1];                                                                                \
        const T a = (T)c->alpha, na = (T)(1.0 - c->alpha), eps = (T)c->eps, wd = (T)c->weight_decay;       \
        const T lr = (T)c->lr, mom = (T)c->momentum;                                                       \
        for (int64_t i = lo; i < hi; i++) {                                                                \
            T g = c->maximize ? -gr[i] : gr[i];                                                            \
            if (c->weight_decay != 0) g = g + wd * p[i];                                                   \
            const T s = a * sq[i] + na * g * g;                                                            \
            sq[i] = s;                                                                                     \
            T avg;                                                                                         \
            if (c->centered) {                                                                             \
                const T gai = ga[i] + na * (g - ga[i]);                                                    \
                ga[i] = gai;                                                                               \
                avg = SQRT(s - gai * gai) + eps;                                                           \
            } else {                                                                                       \
                avg = SQRT(s) + eps;                                                                       \
            }                                                                                              \
            if (c->momentum > 0) {                                                                         \
                const T b = mom * buf[i] + g / avg;                                                        \
                buf[i] = b;                                                                                \
                p[i] = p[i] - lr * b;                                                                      \
            } else {                                                                                       \
                p[i] = p[i] - lr * (g / avg);                                                              \
            }                                                                                              \
        }                                                                                                  \
    }                                                                                                      \
    NN_CLONES static void adagrad_##SFX(void* const* v, int64_t lo, int64_t hi, const nb_bk_optim* c, int64_t t) {         \
        T *p = v[0], *sum = v[2];                                                                          \
        const T* gr = v[1];                                                                                \
        const T clr = (T)c->step_size[t], eps = (T)c->eps, wd = (T)c->weight_decay;                                 \
        for (int64_t i = lo; i < hi; i++) {                                                                \
            T g = c->maximize ? -gr[i] : gr[i];                                                            \
            if (c->weight_decay != 0) g = g + wd * p[i];                                                   \
            const T s = sum[i] + g * g;                                                                    \
            sum[i] = s;                                                                                    \
            p[i] = p[i] - clr * (g / (SQRT(s) + eps));                                                     \
        }                                                                                                  \
    }

OPT_KERNELS(float, sqrtf, f32)
OPT_KERNELS(double, sqrt, f64)

static opt_kernel kernel_for(int32_t op, int32_t kd) {
    static const opt_kernel table[2][4] = {{sgd_f32, adam_f32, rmsprop_f32, adagrad_f32},
                                           {sgd_f64, adam_f64, rmsprop_f64, adagrad_f64}};
    return table[kd == NB_F64][op];
}

/* One step over count tensors: operand k of tensor i is v[k][i] (v[k] NULL: operand k absent). */
typedef struct {
    const char* op;
    bool list;                         /* messages name list elements ('grads[2]') */
    int n;                             /* operands */
    const char* const* names;          /* per operand: the single op's names, or the list's */
    nb_tensor* const* v[OPT_MAX];
    int64_t count;
    nb_bk_optim h;                     /* the kind, hyperparameters and per-tensor step scalars */
} step_args;

static const char* arg_name(const step_args* a, int k, int64_t i, char* buf, size_t cap) {
    if (!a->list) return a->names[k];
    snprintf(buf, cap, "%s[%lld]", a->names[k], (long long)i);
    return buf;
}

/* The checks of tensor i against params[0] (first): handles, device, dtype, shape, aliasing, writability. */
static nb_status check_tensor(const step_args* a, int64_t i, const nb_tensor* first) {
    char nm[2][64];
    const char* op = a->op;
    nb_status st;
    const nb_tensor* p = a->v[0][i];
    for (int k = 0; k < a->n; k++) {
        const nb_tensor* t = a->v[k] ? a->v[k][i] : NULL;
        const char* name = arg_name(a, k, i, nm[0], sizeof nm[0]);
        if (a->v[k] == NULL) continue;
        if ((st = nn_check_handle(op, name, t, false)) != NB_OK) return st;
        if (t->storage->device_type != first->storage->device_type ||
            t->storage->device_index != first->storage->device_index)
            return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found '%s' on %s:%d "
                            "and '%s' on %s:%d", op, arg_name(a, 0, 0, nm[1], sizeof nm[1]),
                            nb_device_type_name(first->storage->device_type), (int)first->storage->device_index, name,
                            nb_device_type_name(t->storage->device_type), (int)t->storage->device_index);
    }
    int32_t kd;
    if ((st = nn_check_float(op, p, &kd)) != NB_OK) return st;
    for (int k = 1; k < a->n; k++) {
        const nb_tensor* t = a->v[k] ? a->v[k][i] : NULL;
        if (t == NULL) continue;
        const char* name = arg_name(a, k, i, nm[0], sizeof nm[0]);
        if (t->dtype != p->dtype)
            return nb_error(NB_ERR_DTYPE, "%s: expected '%s' to have the param's dtype %s, but got %s", op, name,
                            nb_dtype_str(p->dtype), nb_dtype_str(t->dtype));
        if (t->ndim != p->ndim || memcmp(t->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "%s: expected '%s' of the param's shape %s, but got %s", op, name,
                            nb_shape_str(p->shape, p->ndim), nb_shape_str(t->shape, t->ndim));
        if (k != 1 && t->storage->data == p->storage->data)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: '%s' shares memory with '%s'", op, name,
                            arg_name(a, 0, i, nm[1], sizeof nm[1]));
    }
    for (int k = 0; k < a->n; k++) { /* what the dispatch layer checks for a single op's written tensors */
        const nb_tensor* t = a->v[k] && k != 1 ? a->v[k][i] : NULL;
        if (t == NULL) continue;
        if (t->storage->readonly) return nb_readonly_error(op, arg_name(a, k, i, nm[0], sizeof nm[0]));
        if (!nb_ag_disabled && nb_ag_requires(t)) return nb_ag_nondifferentiable_write(op);
    }
    return NB_OK;
}

static void release_all(nb_tensor** w, int64_t n) {
    for (int64_t i = 0; i < n; i++) nb_tensor_release(w[i]);
}

typedef struct {
    int64_t t, lo, hi;
} opt_item;

/* The host path: contiguous kernel-dtype work tensors for every operand, one parallel loop over the chunks of
 * all tensors, then copies written back and versions bumped. */
static nb_status run_host(const step_args* a) {
    const int n = a->n;
    const int64_t count = a->count;
    nb_tensor** w = calloc((size_t)(count * n), sizeof *w);
    int64_t items = 0, total = 0;
    for (int64_t i = 0; i < count; i++) {
        const int64_t m = a->v[0][i]->numel;
        items += (m + OPT_CHUNK - 1) / OPT_CHUNK, total += m;
    }
    opt_item* it = malloc((size_t)(items > 0 ? items : 1) * sizeof *it);
    if (w == NULL || it == NULL) {
        free(w), free(it);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op);
    }
    nb_status st = NB_OK;
    int64_t j = 0;
    for (int64_t i = 0; i < count && st == NB_OK; i++) {
        const int32_t kd = a->v[0][i]->dtype == NB_F64 ? NB_F64 : NB_F32;
        for (int k = 0; k < n && st == NB_OK; k++)
            if (a->v[k] != NULL) st = nn_contig(a->v[k][i], kd, &w[i * n + k]);
        for (int64_t lo = 0, m = a->v[0][i]->numel; lo < m; lo += OPT_CHUNK)
            it[j++] = (opt_item){i, lo, lo + OPT_CHUNK < m ? lo + OPT_CHUNK : m};
    }
    if (st == NB_OK) {
        const nb_bk_optim* h = &a->h;
        nb_tensor* const* wc = w;
        const int nthreads = nn_threads((double)total);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && items > 1)
        for (int64_t c = 0; c < items; c++) {
            const int64_t t = it[c].t;
            void* v[OPT_MAX] = {NULL};
            for (int k = 0; k < n; k++)
                if (wc[t * n + k] != NULL) v[k] = nb_tensor_data(wc[t * n + k]);
            kernel_for(h->op, wc[t * n]->dtype)(v, it[c].lo, it[c].hi, h, t);
        }
#pragma GCC diagnostic pop
        for (int64_t i = 0; i < count && st == NB_OK; i++)
            for (int k = 0; k < n && st == NB_OK; k++) {
                nb_tensor* user = a->v[k] && k != 1 ? a->v[k][i] : NULL;
                if (user == NULL) continue;
                if (w[i * n + k] != user) st = nb_copy_into(a->op, user, w[i * n + k]);
                nb_tensor_bump_version(user);
            }
    }
    release_all(w, count * n);
    free(w), free(it);
    return st;
}

/* Checks every tensor, then runs the step on the host or as one plan on the device. */
static nb_status run_step(step_args* a) {
    if (a->count < 0 || (a->count > 0 && (a->v[0] == NULL || a->v[1] == NULL)))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected lists of %lld params and grads", a->op,
                        (long long)a->count);
    if (a->count == 0) return NB_OK;
    nb_status st = nn_check_handle(a->op, a->list ? "params[0]" : a->names[0], a->v[0][0], false);
    for (int64_t i = 0; i < a->count && st == NB_OK; i++) st = check_tensor(a, i, a->v[0][0]);
    if (st != NB_OK) return st;
    if (a->v[0][0]->storage->device_type == NB_CPU) return run_host(a);
    static const bool written[OPT_MAX] = {true, false, true, true, true};
    return nn_mt_run(a->op, &a->h, a->v, a->n, written, a->count);
}

/* Per-tensor step scalars of Adam (lr / bias corrections) and Adagrad (the decayed lr), from steps[i] >= 1. */
static nb_status step_scalars(step_args* a, const int64_t* steps, double lr, double decay, double* buf) {
    if (a->count > 0 && steps == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: steps is NULL", a->op);
    for (int64_t i = 0; i < a->count; i++) {
        if (steps[i] < 1)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: step must be >= 1, got %lld", a->op, (long long)steps[i]);
        const double s = (double)steps[i];
        if (a->h.op == NB_OPK_ADAM) {
            buf[i] = lr / (1.0 - pow(a->h.beta1, s));
            buf[a->count + i] = sqrt(1.0 - pow(a->h.beta2, s));
        } else {
            buf[i] = lr / (1.0 + (s - 1) * decay);
        }
    }
    a->h.step_size = buf, a->h.bc2_sqrt = buf + a->count;
    return NB_OK;
}

/* Runs a step that needs per-tensor scalars (a stack buffer for a few tensors). */
static nb_status run_with_steps(step_args* a, const int64_t* steps, double lr, double decay) {
    double small[16];
    double* buf = a->count <= 8 ? small : malloc(sizeof(double) * (size_t)(2 * a->count));
    if (buf == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", a->op);
    nb_status st = step_scalars(a, steps, lr, decay, buf);
    if (st == NB_OK) st = run_step(a);
    if (buf != small) free(buf);
    return st;
}

static const char* const sgd_names[] = {"param", "grad", "momentum_buffer"};
static const char* const sgd_lists[] = {"params", "grads", "momentum_buffers"};
static const char* const adam_names[] = {"param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
static const char* const adam_lists[] = {"params", "grads", "exp_avgs", "exp_avg_sqs", "max_exp_avg_sqs"};
static const char* const rmsprop_names[] = {"param", "grad", "square_avg", "grad_avg", "momentum_buffer"};
static const char* const rmsprop_lists[] = {"params", "grads", "square_avgs", "grad_avgs", "momentum_buffers"};
static const char* const adagrad_names[] = {"param", "grad", "state_sum"};
static const char* const adagrad_lists[] = {"params", "grads", "state_sums"};

static nb_status sgd(const char* op, bool list, nb_tensor* const* params, const nb_tensor* const* grads,
                     nb_tensor* const* bufs, int64_t count, double lr, double momentum, double dampening,
                     double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    if (momentum != 0 && bufs == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: momentum %g needs a momentum_buffer", op, momentum);
    step_args a = {op, list, 3, list ? sgd_lists : sgd_names,
                   {params, (nb_tensor* const*)grads, momentum != 0 ? bufs : NULL}, count, {0}};
    a.h.op = NB_OPK_SGD, a.h.lr = lr, a.h.momentum = momentum, a.h.dampening = dampening;
    a.h.weight_decay = weight_decay, a.h.nesterov = nesterov != 0, a.h.maximize = maximize != 0;
    a.h.init_buffer = init_buffer != 0;
    return run_step(&a);
}

static nb_status adam(const char* op, bool list, nb_tensor* const* params, const nb_tensor* const* grads,
                      nb_tensor* const* m, nb_tensor* const* v, nb_tensor* const* vmax, const int64_t* steps,
                      int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay,
                      int32_t decoupled, int32_t amsgrad, int32_t maximize) {
    if (m == NULL || v == NULL || (amsgrad && vmax == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: missing state: exp_avg and exp_avg_sq are required, and "
                        "max_exp_avg_sq with amsgrad", op);
    step_args a = {op, list, 5, list ? adam_lists : adam_names,
                   {params, (nb_tensor* const*)grads, m, v, amsgrad ? vmax : NULL}, count, {0}};
    a.h.op = NB_OPK_ADAM, a.h.lr = lr, a.h.beta1 = beta1, a.h.beta2 = beta2, a.h.eps = eps;
    a.h.weight_decay = weight_decay, a.h.decoupled = decoupled != 0, a.h.amsgrad = amsgrad != 0;
    a.h.maximize = maximize != 0;
    return run_with_steps(&a, steps, lr, 0);
}

static nb_status rmsprop(const char* op, bool list, nb_tensor* const* params, const nb_tensor* const* grads,
                         nb_tensor* const* sq, nb_tensor* const* ga, nb_tensor* const* bufs, int64_t count, double lr,
                         double alpha, double eps, double weight_decay, double momentum, int32_t centered,
                         int32_t maximize) {
    if (sq == NULL || (centered && ga == NULL) || (momentum > 0 && bufs == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: missing state: square_avg is required, grad_avg when centered "
                        "and momentum_buffer when momentum > 0", op);
    step_args a = {op, list, 5, list ? rmsprop_lists : rmsprop_names,
                   {params, (nb_tensor* const*)grads, sq, centered ? ga : NULL, momentum > 0 ? bufs : NULL}, count,
                   {0}};
    a.h.op = NB_OPK_RMSPROP, a.h.lr = lr, a.h.alpha = alpha, a.h.eps = eps, a.h.weight_decay = weight_decay;
    a.h.momentum = momentum, a.h.centered = centered != 0, a.h.maximize = maximize != 0;
    return run_step(&a);
}

static nb_status adagrad(const char* op, bool list, nb_tensor* const* params, const nb_tensor* const* grads,
                         nb_tensor* const* sums, const int64_t* steps, int64_t count, double lr, double lr_decay,
                         double eps, double weight_decay, int32_t maximize) {
    if (sums == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: state_sum is required", op);
    step_args a = {op, list, 3, list ? adagrad_lists : adagrad_names, {params, (nb_tensor* const*)grads, sums},
                   count, {0}};
    a.h.op = NB_OPK_ADAGRAD, a.h.eps = eps, a.h.weight_decay = weight_decay, a.h.maximize = maximize != 0;
    return run_with_steps(&a, steps, lr, lr_decay);
}

/* ---- the public entry points: one tensor (a list of one), or lists ---- */

#define ONE(t) ((nb_tensor* const[]){(nb_tensor*)(t)})
#define ONE_OPT(t) ((t) != NULL ? ONE(t) : NULL)

nb_status nbi_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr,
                       double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize,
                       int32_t init_buffer) {
    return sgd("sgd_step", false, ONE(param), (const nb_tensor* const*)ONE(grad), ONE_OPT(momentum_buffer), 1, lr,
               momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
}

nb_status nbi_sgd_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* momentum_buffers,
                            int64_t count, double lr, double momentum, double dampening, double weight_decay,
                            int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    return sgd("sgd_step_list", true, params, grads, momentum_buffers, count, lr, momentum, dampening, weight_decay,
               nesterov, maximize, init_buffer);
}

nb_status nbi_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq,
                        nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps,
                        double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    return adam("adam_step", false, ONE(param), (const nb_tensor* const*)ONE(grad), ONE_OPT(exp_avg),
                ONE_OPT(exp_avg_sq), ONE_OPT(max_exp_avg_sq), &step, 1, lr, beta1, beta2, eps, weight_decay,
                decoupled_weight_decay, amsgrad, maximize);
}

nb_status nbi_adam_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* exp_avgs,
                             nb_tensor* const* exp_avg_sqs, nb_tensor* const* max_exp_avg_sqs, const int64_t* steps,
                             int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay,
                             int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    return adam("adam_step_list", true, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, count, lr,
                beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
}

nb_status nbi_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg,
                           nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay,
                           double momentum, int32_t centered, int32_t maximize) {
    return rmsprop("rmsprop_step", false, ONE(param), (const nb_tensor* const*)ONE(grad), ONE_OPT(square_avg),
                   ONE_OPT(grad_avg), ONE_OPT(momentum_buffer), 1, lr, alpha, eps, weight_decay, momentum, centered,
                   maximize);
}

nb_status nbi_rmsprop_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* square_avgs,
                                nb_tensor* const* grad_avgs, nb_tensor* const* momentum_buffers, int64_t count,
                                double lr, double alpha, double eps, double weight_decay, double momentum,
                                int32_t centered, int32_t maximize) {
    return rmsprop("rmsprop_step_list", true, params, grads, square_avgs, grad_avgs, momentum_buffers, count, lr,
                   alpha, eps, weight_decay, momentum, centered, maximize);
}

nb_status nbi_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step, double lr,
                           double lr_decay, double eps, double weight_decay, int32_t maximize) {
    return adagrad("adagrad_step", false, ONE(param), (const nb_tensor* const*)ONE(grad), ONE_OPT(state_sum), &step, 1,
                   lr, lr_decay, eps, weight_decay, maximize);
}

nb_status nbi_adagrad_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* state_sums,
                                const int64_t* steps, int64_t count, double lr, double lr_decay, double eps,
                                double weight_decay, int32_t maximize) {
    return adagrad("adagrad_step_list", true, params, grads, state_sums, steps, count, lr, lr_decay, eps,
                   weight_decay, maximize);
}
