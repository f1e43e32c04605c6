/* loss_composed.c: the pointwise losses on devices without loss kernels (CUDA
 * today), composed from the elementwise and reduction ops every backend has.
 * loss.c validates the arguments and keeps every message; this computes the value
 * only, in the kernel dtype, on the inputs' device. The backward formulas
 * (autograd/formulas/nn_loss.c) are written in public ops and run there as is. */
#include "loss_composed.h"

#include <math.h>

/* Temporaries of one composition, released together; the first failure sticks. */
typedef struct {
    nb_status st;
    int32_t n;
    nb_tensor* tmp[40];
} expr;

/* Takes t (the result of a call made before this one: never pass the call itself as an
 * argument beside t, as C leaves the order in which arguments are read open). */
static nb_tensor* keep(expr* e, nb_status st, nb_tensor* t) {
    if (st != NB_OK) {
        if (e->st == NB_OK) e->st = st;
        return NULL;
    }
    if (e->n == (int32_t)(sizeof e->tmp / sizeof e->tmp[0])) { /* a bug in a composition below */
        nb_tensor_release(t);
        e->st = nb_error(NB_ERR_INTERNAL, "loss: composition uses too many temporaries");
        return NULL;
    }
    e->tmp[e->n++] = t;
    return t;
}

typedef nb_status (*binary_fn)(const nb_tensor*, const nb_tensor*, nb_tensor*, nb_tensor**);
typedef nb_status (*linear_fn)(const nb_tensor*, const nb_tensor*, double, nb_tensor*, nb_tensor**);
typedef nb_status (*unary_fn)(const nb_tensor*, nb_tensor*, nb_tensor**);

static nb_tensor* binary(expr* e, binary_fn fn, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(a, b, NULL, &r);
    return keep(e, st, r);
}
static nb_tensor* linear(expr* e, linear_fn fn, const nb_tensor* a, const nb_tensor* b) { /* a +- b */
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(a, b, 1.0, NULL, &r);
    return keep(e, st, r);
}
static nb_tensor* unary(expr* e, unary_fn fn, const nb_tensor* x) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(x, NULL, &r);
    return keep(e, st, r);
}
#define sub(e, a, b) linear(e, nb_sub, a, b)
#define add(e, a, b) linear(e, nb_add, a, b)
#define mul(e, a, b) binary(e, nb_mul, a, b)
#define lt(e, a, b) binary(e, nb_lt, a, b)
#define eq(e, a, b) binary(e, nb_eq, a, b)
static nb_tensor* where(expr* e, const nb_tensor* c, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_where(c, a, b, NULL, &r);
    return keep(e, st, r);
}
static nb_tensor* clamp_min(expr* e, const nb_tensor* x, double lo) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_clamp(x, lo, INFINITY, NULL, &r);
    return keep(e, st, r);
}
static nb_tensor* scalar(expr* e, double v) { /* a wrapped number: takes the other operand's dtype and device */
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_scalar(v, (int64_t)v, NB_F64, &r);
    return keep(e, st, r);
}
static nb_tensor* cast(expr* e, const nb_tensor* x, int32_t dtype) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_to(x, dtype, x->storage->device_type, x->storage->device_index, 0, &r);
    return keep(e, st, r);
}

/* |d| < p ? 0.5 d^2 / p : |d| - 0.5 p (smooth_l1) or p (|d| - 0.5 p) (huber; scale = p). */
static nb_tensor* piecewise(expr* e, nb_tensor* d, double p, bool huber) {
    nb_tensor* z = unary(e, nb_abs, d);
    nb_tensor* quad = mul(e, mul(e, z, z), scalar(e, huber ? 0.5 : 0.5 / p));
    nb_tensor* lin = sub(e, z, scalar(e, 0.5 * p));
    if (huber) lin = mul(e, lin, scalar(e, p));
    return where(e, lt(e, z, scalar(e, p)), quad, lin);
}

static nb_tensor* value(expr* e, int kind, nb_tensor* const* in, double p) {
    nb_tensor *x = in[0], *t = in[1], *w = in[2], *pw = in[3];
    nb_tensor* v = NULL;
    switch (kind) {
    case NN_PW_MSE: {
        nb_tensor* d = sub(e, x, t);
        v = mul(e, d, d);
        break;
    }
    case NN_PW_L1: v = unary(e, nb_abs, sub(e, x, t)); break;
    case NN_PW_SMOOTH_L1:
        v = p == 0 ? unary(e, nb_abs, sub(e, x, t)) : piecewise(e, sub(e, x, t), p, false);
        break;
    case NN_PW_HUBER: v = piecewise(e, sub(e, x, t), p, true); break;
    case NN_PW_BCE: { /* (t - 1) max(log1p(-x), -100) - t max(log x, -100) */
        nb_tensor* lx = clamp_min(e, unary(e, nb_log, x), -100);
        nb_tensor* l1x = clamp_min(e, unary(e, nb_log1p, unary(e, nb_neg, x)), -100);
        v = sub(e, mul(e, sub(e, t, scalar(e, 1)), l1x), mul(e, t, lx));
        break;
    }
    case NN_PW_BCE_LOGITS: { /* (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + relu(-x)) */
        nb_tensor* soft = add(e, unary(e, nb_log1p, unary(e, nb_exp, unary(e, nb_neg, unary(e, nb_abs, x)))),
                              unary(e, nb_relu, unary(e, nb_neg, x)));
        if (pw != NULL) soft = mul(e, soft, add(e, scalar(e, 1), mul(e, sub(e, pw, scalar(e, 1)), t)));
        v = add(e, mul(e, sub(e, scalar(e, 1), t), x), soft);
        break;
    }
    case NN_PW_KL: { /* xlogy(t, t) - t x */
        nb_tensor* zero = scalar(e, 0);
        nb_tensor* tlogt = where(e, eq(e, t, zero), zero, mul(e, t, unary(e, nb_log, t)));
        v = sub(e, tlogt, mul(e, t, x));
        break;
    }
    default: v = mul(e, unary(e, nb_exp, t), sub(e, t, x)); /* NN_PW_KL_LOG */
    }
    return w != NULL ? mul(e, v, w) : v;
}

/* binary_cross_entropy's range check: one device-to-host read, as the error must be raised here. */
static nb_status bce_range(const char* op, const nb_tensor* x) {
    nb_tensor *lo = NULL, *hi = NULL, *ok = NULL, *all = NULL, *zero = NULL, *one = NULL;
    nb_status st = nb_scalar(0, 0, NB_F64, &zero);
    if (st == NB_OK) st = nb_scalar(1, 1, NB_F64, &one);
    if (st == NB_OK) st = nb_ge(x, zero, NULL, &lo);
    if (st == NB_OK) st = nb_le(x, one, NULL, &hi);
    if (st == NB_OK) st = nb_logical_and(lo, hi, NULL, &ok);
    if (st == NB_OK) st = nb_all(ok, NULL, 0, 0, NULL, &all);
    int64_t good = 0;
    if (st == NB_OK) st = nb_tensor_item_int(all, &good);
    nb_tensor_release(zero), nb_tensor_release(one), nb_tensor_release(lo), nb_tensor_release(hi);
    nb_tensor_release(ok), nb_tensor_release(all);
    if (st == NB_OK && !good) st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: all elements of input should be between 0 and 1", op);
    return st;
}

nb_status nn_pointwise_loss_composed(const char* op, int kind, const nb_tensor* const* ops, int32_t reduction,
                                     double p, int32_t kd, nb_tensor** out) {
    nb_status st = kind == NN_PW_BCE ? bce_range(op, ops[0]) : NB_OK;
    if (st != NB_OK) return st;
    expr e = {NB_OK, 0, {NULL}};
    nb_tensor* in[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if (ops[i] != NULL) in[i] = cast(&e, ops[i], kd);
    nb_tensor* v = value(&e, kind, in, p);
    nb_tensor* result = NULL;
    if (e.st == NB_OK) {
        if (reduction == NN_RED_NONE) {
            nb_tensor_retain(v);
            result = v;
        } else {
            /* weighted mse / l1: the mean divides by the summed weights (as the host kernel) */
            const bool by_weight = in[2] != NULL && (kind == NN_PW_MSE || kind == NN_PW_L1);
            nb_tensor* total = NULL;
            st = reduction == NN_RED_MEAN && !by_weight ? nb_mean(v, NULL, 0, 0, -1, NULL, &result)
                                                        : nb_sum(v, NULL, 0, 0, -1, NULL, &total);
            if (st == NB_OK && total != NULL) {
                if (reduction == NN_RED_MEAN) {
                    nb_tensor* wsum = NULL;
                    st = nb_sum(in[2], NULL, 0, 0, -1, NULL, &wsum);
                    if (st == NB_OK) st = nb_div(total, wsum, NB_ROUND_NONE, NULL, &result);
                    nb_tensor_release(wsum);
                } else {
                    nb_tensor_retain(total);
                    result = total;
                }
            }
            nb_tensor_release(total);
        }
    } else {
        st = e.st;
    }
    for (int32_t i = 0; i < e.n; i++) nb_tensor_release(e.tmp[i]);
    if (st == NB_OK) *out = result;
    return st;
}
