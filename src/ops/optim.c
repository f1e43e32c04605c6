/* optim.c: the optimizers' update steps (SGD, Adam/AdamW, RMSprop, Adagrad), each
 * one fused pass over a parameter tensor and its state, in place; and the total
 * gradient norm with clipping (clip_grad_norm_) in one call over a list.
 * Formulas are PyTorch's single-tensor ones (torch/optim/ in PyTorch). Operands run as
 * they are when contiguous in f32/f64; otherwise through a contiguous f32/f64
 * copy that is written back, so strided, f16 and bf16 tensors work too. */
#include "nn_common.h"
#include "optim_composed.h"

#include <math.h>
#include <string.h>

#define OPT_MAX 5         /* param, grad and up to three state tensors */
#define OPT_CHUNK 16384   /* elements per OpenMP work item */

/* One operand: the caller's tensor, and the contiguous kernel-dtype tensor the kernel touches. */
typedef struct {
    nb_tensor* user;
    nb_tensor* work;
    bool written;
} opt_operand;

typedef struct {
    double lr, momentum, dampening, weight_decay;
    int nesterov, maximize, init_buf;
} sgd_ctx;

typedef struct {
    double lr, beta1, beta2, eps, weight_decay, step_size, bc2_sqrt;
    int decoupled, amsgrad, maximize;
} adam_ctx;

typedef struct {
    double lr, alpha, eps, weight_decay, momentum;
    int centered, maximize;
} rmsprop_ctx;

typedef struct {
    double clr, eps, weight_decay;
    int maximize;
} adagrad_ctx;

/* Kernels over [lo, hi) of contiguous arrays; v[0] = param, v[1] = grad, v[2..] = state (NULL when absent). */
typedef void (*opt_kernel)(void* const* v, int64_t lo, int64_t hi, const void* ctx);

#define OPT_KERNELS(T, SQRT, SFX)                                                                          \
    NN_CLONES static void sgd_##SFX(void* const* v, int64_t lo, int64_t hi, const void* vc) {             \
        const sgd_ctx* c = vc;                                                                             \
        T* p = v[0];                                                                                       \
        const T* gr = v[1];                                                                                \
        T* buf = v[2];                                                                                     \
        const T lr = (T)c->lr, mom = (T)c->momentum, damp = (T)(1.0 - c->dampening), wd = (T)c->weight_decay; \
        for (int64_t i = lo; i < hi; i++) {                                                                \
            T g = c->maximize ? -gr[i] : gr[i];                                                            \
            if (c->weight_decay != 0) g = g + wd * p[i];                                                   \
            if (c->momentum != 0) {                                                                        \
                T b = c->init_buf ? g : mom * buf[i] + damp * g;                                           \
                buf[i] = b;                                                                                \
                g = c->nesterov ? g + mom * b : b;                                                         \
            }                                                                                              \
            p[i] = p[i] - lr * g;                                                                          \
        }                                                                                                  \
    }                                                                                                      \
    NN_CLONES static void adam_##SFX(void* const* v, int64_t lo, int64_t hi, const void* vc) {            \
        const adam_ctx* c = vc;                                                                            \
        T* restrict p = v[0];                                                                              \
        T* restrict m = v[2];                                                                              \
        T* restrict s = v[3];                                                                              \
        T* restrict smax = v[4];                                                                           \
        const T* restrict gr = v[1];                                                                       \
        const T b1 = (T)(1.0 - c->beta1), b2 = (T)c->beta2, nb2 = (T)(1.0 - c->beta2), eps = (T)c->eps;    \
        const T wd = (T)c->weight_decay, decay = (T)(1.0 - c->lr * c->weight_decay);                       \
        const T step = (T)c->step_size, bc2 = (T)c->bc2_sqrt, sign = c->maximize ? (T)-1 : (T)1;           \
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
    NN_CLONES static void rmsprop_##SFX(void* const* v, int64_t lo, int64_t hi, const void* vc) {         \
        const rmsprop_ctx* c = vc;                                                                         \
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
    NN_CLONES static void adagrad_##SFX(void* const* v, int64_t lo, int64_t hi, const void* vc) {         \
        const adagrad_ctx* c = vc;                                                                         \
        T *p = v[0], *sum = v[2];                                                                          \
        const T* gr = v[1];                                                                                \
        const T clr = (T)c->clr, eps = (T)c->eps, wd = (T)c->weight_decay;                                 \
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

static void release_operands(opt_operand* o, int n) {
    for (int i = 0; i < n; i++) {
        nb_tensor_release(o[i].work);
        o[i].work = NULL;
    }
}

static bool on_host(const opt_operand* o) { return o[0].user->storage->device_type == NB_CPU; }

/* The operands' tensors (NULL for absent ones), for the composed path. */
static void users(const opt_operand* o, int n, nb_tensor** v) {
    for (int i = 0; i < n; i++) v[i] = o[i].user;
}

/* Validates the operands (o[0] is the param; absent optional ones have user == NULL) and makes each a
 * contiguous tensor in the kernel dtype. */
static nb_status prepare(const char* op, const char* const* names, opt_operand* o, int n, int32_t* kd) {
    nb_status st;
    const nb_tensor* p = o[0].user;
    const nb_tensor* placed[OPT_MAX];
    for (int i = 0; i < n; i++) {
        if ((st = nn_check_handle(op, names[i], o[i].user, i >= 2)) != NB_OK) return st;
        placed[i] = o[i].user;
    }
    if ((st = nn_check_same_device(op, names, placed, n)) != NB_OK) return st;
    if ((st = nn_check_float(op, p, kd)) != NB_OK) return st;
    if (p->dtype == NB_F64) *kd = NB_F64;
    for (int i = 1; i < n; i++) {
        const nb_tensor* t = o[i].user;
        if (t == NULL) continue;
        if (t->dtype != p->dtype)
            return nb_error(NB_ERR_DTYPE, "%s: expected '%s' to have the param's dtype %s, but got %s", op, names[i],
                            nb_dtype_str(p->dtype), nb_dtype_str(t->dtype));
        if (t->ndim != p->ndim || memcmp(t->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "%s: expected '%s' of the param's shape %s, but got %s", op, names[i],
                            nb_shape_str(p->shape, p->ndim), nb_shape_str(t->shape, t->ndim));
        if (o[i].written && t->storage->data == p->storage->data && i != 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: '%s' shares memory with 'param'", op, names[i]);
    }
    if (!on_host(o)) return NB_OK; /* composed on the device from the operands themselves */
    for (int i = 0; i < n; i++)
        if (o[i].user != NULL && (st = nn_contig(o[i].user, *kd, &o[i].work)) != NB_OK) {
            release_operands(o, n);
            return st;
        }
    return NB_OK;
}

/* Runs the kernel over every element, writes back operands that went through a copy, bumps versions. */
static nb_status run(const char* op, opt_operand* o, int n, opt_kernel kernel, const void* ctx) {
    void* v[OPT_MAX] = {NULL};
    for (int i = 0; i < n; i++)
        if (o[i].work != NULL) v[i] = nb_tensor_data(o[i].work);
    const int64_t numel = o[0].work->numel, chunks = (numel + OPT_CHUNK - 1) / OPT_CHUNK;
    const int nthreads = nn_threads((double)numel);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t lo = c * OPT_CHUNK, hi = lo + OPT_CHUNK < numel ? lo + OPT_CHUNK : numel;
        kernel(v, lo, hi, ctx);
    }
#pragma GCC diagnostic pop
    nb_status st = NB_OK;
    for (int i = 0; i < n && st == NB_OK; i++) {
        if (o[i].user == NULL || !o[i].written) continue;
        if (o[i].work != o[i].user) st = nb_copy_into(op, o[i].user, o[i].work);
        nb_tensor_bump_version(o[i].user);
    }
    release_operands(o, n);
    return st;
}

#define KERNEL_FOR(kd, name) ((kd) == NB_F64 ? name##_f64 : name##_f32)

nb_status nbi_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr,
                             double momentum, double dampening, double weight_decay, int32_t nesterov,
                             int32_t maximize, int32_t init_buffer) {
    static const char* op = "sgd_step";
    static const char* const names[] = {"param", "grad", "momentum_buffer"};
    if (momentum != 0 && momentum_buffer == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: momentum %g needs a momentum_buffer", op, momentum);
    opt_operand o[3] = {{param, NULL, true}, {(nb_tensor*)grad, NULL, false},
                        {momentum != 0 ? momentum_buffer : NULL, NULL, true}};
    int32_t kd;
    nb_status st = prepare(op, names, o, 3, &kd);
    if (st != NB_OK) return st;
    if (!on_host(o)) {
        nb_tensor* v[3];
        users(o, 3, v);
        return nn_sgd_composed(v, kd, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
    }
    const sgd_ctx c = {lr, momentum, dampening, weight_decay, nesterov != 0, maximize != 0, init_buffer != 0};
    return run(op, o, 3, KERNEL_FOR(kd, sgd), &c);
}

nb_status nbi_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq,
                              nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2,
                              double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad,
                              int32_t maximize) {
    static const char* op = "adam_step";
    static const char* const names[] = {"param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
    if (exp_avg == NULL || exp_avg_sq == NULL || (amsgrad && max_exp_avg_sq == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: missing state: exp_avg and exp_avg_sq are required, and "
                        "max_exp_avg_sq with amsgrad", op);
    if (step < 1) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: step must be >= 1, got %lld", op, (long long)step);
    opt_operand o[5] = {{param, NULL, true}, {(nb_tensor*)grad, NULL, false}, {exp_avg, NULL, true},
                        {exp_avg_sq, NULL, true}, {amsgrad ? max_exp_avg_sq : NULL, NULL, true}};
    int32_t kd;
    nb_status st = prepare(op, names, o, 5, &kd);
    if (st != NB_OK) return st;
    const double bc1 = 1.0 - pow(beta1, (double)step), bc2 = 1.0 - pow(beta2, (double)step);
    if (!on_host(o)) {
        nb_tensor* v[5];
        users(o, 5, v);
        return nn_adam_composed(v, kd, lr, beta1, beta2, eps, weight_decay, lr / bc1, sqrt(bc2),
                                decoupled_weight_decay != 0, amsgrad != 0, maximize != 0);
    }
    const adam_ctx c = {lr, beta1, beta2, eps, weight_decay, lr / bc1, sqrt(bc2), decoupled_weight_decay != 0,
                        amsgrad != 0, maximize != 0};
    return run(op, o, 5, KERNEL_FOR(kd, adam), &c);
}

nb_status nbi_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg,
                                 nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay,
                                 double momentum, int32_t centered, int32_t maximize) {
    static const char* op = "rmsprop_step";
    static const char* const names[] = {"param", "grad", "square_avg", "grad_avg", "momentum_buffer"};
    if (square_avg == NULL || (centered && grad_avg == NULL) || (momentum > 0 && momentum_buffer == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: missing state: square_avg is required, grad_avg when centered "
                        "and momentum_buffer when momentum > 0", op);
    opt_operand o[5] = {{param, NULL, true}, {(nb_tensor*)grad, NULL, false}, {square_avg, NULL, true},
                        {centered ? grad_avg : NULL, NULL, true}, {momentum > 0 ? momentum_buffer : NULL, NULL, true}};
    int32_t kd;
    nb_status st = prepare(op, names, o, 5, &kd);
    if (st != NB_OK) return st;
    if (!on_host(o)) {
        nb_tensor* v[5];
        users(o, 5, v);
        return nn_rmsprop_composed(v, kd, lr, alpha, eps, weight_decay, momentum, centered != 0, maximize != 0);
    }
    const rmsprop_ctx c = {lr, alpha, eps, weight_decay, momentum, centered != 0, maximize != 0};
    return run(op, o, 5, KERNEL_FOR(kd, rmsprop), &c);
}

nb_status nbi_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step,
                                 double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    static const char* op = "adagrad_step";
    static const char* const names[] = {"param", "grad", "state_sum"};
    if (state_sum == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: state_sum is required", op);
    if (step < 1) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: step must be >= 1, got %lld", op, (long long)step);
    opt_operand o[3] = {{param, NULL, true}, {(nb_tensor*)grad, NULL, false}, {state_sum, NULL, true}};
    int32_t kd;
    nb_status st = prepare(op, names, o, 3, &kd);
    if (st != NB_OK) return st;
    const double clr = lr / (1.0 + (double)(step - 1) * lr_decay);
    if (!on_host(o)) {
        nb_tensor* v[3];
        users(o, 3, v);
        return nn_adagrad_composed(v, kd, clr, eps, weight_decay, maximize != 0);
    }
    const adagrad_ctx c = {clr, eps, weight_decay, maximize != 0};
    return run(op, o, 3, KERNEL_FOR(kd, adagrad), &c);
}

/* ---- gradient norm and clipping ---- */

/* sum |x|^p (p finite) or max |x| (p infinite) of one contiguous array, in double. */
static double norm_part(const nb_tensor* t, double p) {
    const int64_t n = t->numel;
    const bool is64 = t->dtype == NB_F64, inf = isinf(p), two = p == 2.0, one = p == 1.0;
    const void* data = nb_tensor_data(t);
    double acc = 0;
    const int nthreads = nn_threads((double)n);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
    if (inf) {
#pragma omp parallel for reduction(max : acc) schedule(static) num_threads(nthreads) if (nthreads > 1)
        for (int64_t i = 0; i < n; i++) {
            const double x = fabs(is64 ? ((const double*)data)[i] : (double)((const float*)data)[i]);
            if (x > acc || x != x) acc = x != x ? NAN : x;
        }
    } else {
#pragma omp parallel for reduction(+ : acc) schedule(static) num_threads(nthreads) if (nthreads > 1)
        for (int64_t i = 0; i < n; i++) {
            const double x = fabs(is64 ? ((const double*)data)[i] : (double)((const float*)data)[i]);
            acc += two ? x * x : one ? x : pow(x, p);
        }
    }
#pragma GCC diagnostic pop
    return acc;
}

/* The running total with one tensor's part: the max for p = inf; for p = 0 PyTorch's
 * norm of the per-tensor norms, i.e. the count of tensors with a non-zero entry. */
static double combine(double total, double part, double p) {
    if (isinf(p)) return (part > total || part != part) ? part : total;
    return total + (p == 0 ? (double)(part != 0) : part);
}

NB_API nb_status nb_clip_grad_norm_(nb_tensor* const* grads, int32_t n, double max_norm, double norm_type,
                                    int32_t error_if_nonfinite, nb_tensor** out) {
    static const char* op = "clip_grad_norm_";
    NB_CHECK_OUT(op, out);
    if (n < 0 || (n > 0 && grads == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected a list of %d tensors", op, (int)n);
    if (!(norm_type > 0) && !(norm_type == 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: norm_type must be >= 0, got %g", op, norm_type);
    int32_t dtype = NB_F32;
    nb_status st;
    for (int32_t i = 0; i < n; i++) {
        int32_t kd;
        static const char* const names[2] = {"grads", "grads"};
        if ((st = nn_check_handle(op, "grads", grads[i], false)) != NB_OK ||
            (st = nn_check_float(op, grads[i], &kd)) != NB_OK ||
            (st = nn_check_same_device(op, names, (const nb_tensor*[2]){grads[0], grads[i]}, 2)) != NB_OK)
            return st;
        if (i == 0) dtype = grads[0]->dtype;
    }
    const int32_t device_type = n > 0 ? grads[0]->storage->device_type : NB_CPU;
    const int32_t device_index = n > 0 ? grads[0]->storage->device_index : 0;
    /* Accumulate per tensor, then combine: inf -> max, 0 -> count of non-zeros, p -> (sum)^(1/p). */
    double total = 0;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* g = grads[i];
        double part;
        if (device_type != NB_CPU) { /* no norm kernel there: composed, one value read back per tensor */
            if ((st = nn_norm_part_composed(g, norm_type, &part)) != NB_OK) return st;
            total = combine(total, part, norm_type);
            continue;
        }
        nb_tensor* c = NULL;
        if ((st = nn_contig(g, g->dtype == NB_F64 ? NB_F64 : NB_F32, &c)) != NB_OK) return st;
        if (norm_type == 0) {
            part = 0;
            const int64_t m = c->numel;
            for (int64_t j = 0; j < m; j++)
                part += (c->dtype == NB_F64 ? ((double*)nb_tensor_data(c))[j] : ((float*)nb_tensor_data(c))[j]) != 0;
        } else {
            part = norm_part(c, norm_type);
        }
        nb_tensor_release(c);
        total = combine(total, part, norm_type);
    }
    if (!isinf(norm_type) && norm_type != 0 && norm_type != 1) total = pow(total, 1.0 / norm_type);
    if (error_if_nonfinite && !isfinite(total))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: The total norm of order %g for gradients from `parameters` is "
                        "non-finite, so it cannot be clipped. To disable this error and scale the gradients by the "
                        "non-finite norm anyway, set `error_if_nonfinite=False`", op, norm_type);
    nb_tensor* result = NULL;
    if ((st = nb_full(NULL, 0, total, dtype, NB_CPU, 0, &result)) != NB_OK) return st;
    nb_tensor* placed = NULL; /* the norm lives on the gradients' device, as in PyTorch */
    if (device_type != NB_CPU) {
        st = nb_tensor_to(result, dtype, device_type, device_index, 0, &placed);
        nb_tensor_release(result);
        if (st != NB_OK) return st;
        result = placed;
    }
    /* PyTorch's coefficient, computed in the norm's dtype: max_norm / (total + 1e-6), clamped to 1. */
    double rounded;
    nb_tensor_item_double(result, &rounded);
    const double coef = dtype == NB_F64 ? max_norm / (rounded + 1e-6) : (double)((float)max_norm / ((float)rounded + 1e-6f));
    if (coef < 1.0 || coef != coef) {
        nb_tensor* s = NULL;
        st = nb_scalar(coef, 0, NB_F64, &s);
        for (int32_t i = 0; i < n && st == NB_OK; i++) st = nb_mul(grads[i], s, grads[i], NULL);
        nb_tensor_release(s);
    }
    if (st != NB_OK) {
        nb_tensor_release(result);
        return st;
    }
    *out = result;
    return NB_OK;
}
