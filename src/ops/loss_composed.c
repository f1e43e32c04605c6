/* loss_composed.c: the losses on devices without loss kernels (CUDA today),
 * composed from the elementwise, reduction and line ops every backend has (the
 * helpers of composed.h). loss.c validates the arguments and keeps every message;
 * this computes the value only, in the kernel dtype, on the inputs' device. The
 * backward formulas (autograd/formulas/nn_loss.c, nn_xent.c) are public ops already. */
#include "loss_composed.h"

#include "composed.h"

#include <math.h>

/* |d| < p ? 0.5 d^2 / p : |d| - 0.5 p (smooth_l1) or p (|d| - 0.5 p) (huber; scale = p). */
static nb_tensor* piecewise(nb_cx* e, nb_tensor* d, double p, bool huber) {
    nb_tensor* z = cx_unary(e, nb_abs, d);
    nb_tensor* quad = cx_mul(e, cx_mul(e, z, z), cx_scalar(e, huber ? 0.5 : 0.5 / p));
    nb_tensor* lin = cx_sub(e, z, cx_scalar(e, 0.5 * p));
    if (huber) lin = cx_mul(e, lin, cx_scalar(e, p));
    return cx_where(e, cx_lt(e, z, cx_scalar(e, p)), quad, lin);
}

static nb_tensor* value(nb_cx* e, int kind, nb_tensor* const* in, double p) {
    nb_tensor *x = in[0], *t = in[1], *w = in[2], *pw = in[3];
    nb_tensor* v = NULL;
    switch (kind) {
    case NN_PW_MSE: {
        nb_tensor* d = cx_sub(e, x, t);
        v = cx_mul(e, d, d);
        break;
    }
    case NN_PW_L1: v = cx_unary(e, nb_abs, cx_sub(e, x, t)); break;
    case NN_PW_SMOOTH_L1:
        v = p == 0 ? cx_unary(e, nb_abs, cx_sub(e, x, t)) : piecewise(e, cx_sub(e, x, t), p, false);
        break;
    case NN_PW_HUBER: v = piecewise(e, cx_sub(e, x, t), p, true); break;
    case NN_PW_BCE: { /* (t - 1) max(log1p(-x), -100) - t max(log x, -100) */
        nb_tensor* lx = cx_clamp_min(e, cx_unary(e, nb_log, x), -100);
        nb_tensor* l1x = cx_clamp_min(e, cx_unary(e, nb_log1p, cx_unary(e, nb_neg, x)), -100);
        v = cx_sub(e, cx_mul(e, cx_sub(e, t, cx_scalar(e, 1)), l1x), cx_mul(e, t, lx));
        break;
    }
    case NN_PW_BCE_LOGITS: { /* (1 - t) x + (1 + (pw - 1) t) (log1p(exp(-|x|)) + relu(-x)) */
        nb_tensor* soft = cx_add(e, cx_unary(e, nb_log1p, cx_unary(e, nb_exp, cx_unary(e, nb_neg, cx_unary(e, nb_abs, x)))),
                              cx_unary(e, nb_relu, cx_unary(e, nb_neg, x)));
        if (pw != NULL) soft = cx_mul(e, soft, cx_add(e, cx_scalar(e, 1), cx_mul(e, cx_sub(e, pw, cx_scalar(e, 1)), t)));
        v = cx_add(e, cx_mul(e, cx_sub(e, cx_scalar(e, 1), t), x), soft);
        break;
    }
    case NN_PW_KL: { /* xlogy(t, t) - t x */
        nb_tensor* zero = cx_scalar(e, 0);
        nb_tensor* tlogt = cx_where(e, cx_eq(e, t, zero), zero, cx_mul(e, t, cx_unary(e, nb_log, t)));
        v = cx_sub(e, tlogt, cx_mul(e, t, x));
        break;
    }
    default: v = cx_mul(e, cx_unary(e, nb_exp, t), cx_sub(e, t, x)); /* NN_PW_KL_LOG */
    }
    return w != NULL ? cx_mul(e, v, w) : v;
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
    nb_cx e = NB_CX_INIT;
    nb_tensor* in[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if (ops[i] != NULL) in[i] = cx_cast(&e, ops[i], kd);
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
    nb_cx_release(&e);
    if (st == NB_OK) *out = result;
    return st;
}

/* A class-index target outside [0, C) (and not ignore_index): its value, read back to name it. */
static nb_status index_range(const char* op, nb_cx* e, nb_tensor* t, nb_tensor* kept, int64_t C) {
    nb_tensor* bad = cx_binary(e, nb_logical_and, kept, cx_lor(e, cx_lt(e, t, cx_iscalar(e, 0)), cx_ge(e, t, cx_iscalar(e, C))));
    nb_tensor* any = NULL;
    if (e->st == NB_OK) e->st = nb_any(bad, NULL, 0, 0, NULL, &any);
    int64_t found = 0;
    if (e->st == NB_OK) e->st = nb_tensor_item_int(any, &found);
    nb_tensor_release(any);
    if (e->st != NB_OK || !found) return e->st;
    nb_tensor* values = NULL;
    int64_t first = 0;
    nb_status st = nb_masked_select(t, bad, &values);
    if (st == NB_OK) st = nb_tensor_copy_to_host(values, &first, sizeof first);
    nb_tensor_release(values);
    return st != NB_OK ? st : nb_error(NB_ERR_INDEX, "%s: Target %lld is out of bounds.", op, (long long)first);
}

nb_status nn_classification_loss_composed(const char* op, bool logits, const nb_tensor* input, const nb_tensor* target,
                                          const nb_tensor* weight, int64_t ignore_index, int32_t reduction,
                                          double smoothing, int32_t kd, nb_tensor** out) {
    nb_cx e = NB_CX_INIT;
    const int32_t nd = input->ndim, cd = nd >= 2 ? 1 : 0;
    const int64_t C = input->shape[cd];
    int64_t cshape[NB_MAX_DIMS]; /* [1, C, 1, ...]: the weight along the class dim */
    for (int32_t d = 0; d < nd; d++) cshape[d] = d == cd ? C : 1;
    const bool probs = logits && nb_dtype_is_floating(target->dtype);
    nb_tensor* x = cx_cast(&e, input, kd);
    nb_tensor* logp = logits ? cx_log_softmax(&e, x, cd) : x;
    nb_tensor* wc = weight != NULL ? cx_reshape(&e, cx_cast(&e, weight, kd), cshape, nd) : NULL;
    nb_tensor *q, *kept = NULL, *denom = NULL;
    if (probs) { /* q = w ((1 - ls) t + ls / C) */
        q = cx_cast(&e, target, kd);
    } else {     /* q = w ((1 - ls) onehot(t) + ls / C); positions at ignore_index count for nothing */
        nb_tensor* t = cx_cast(&e, target, NB_I64);
        kept = cx_ne(&e, t, cx_iscalar(&e, ignore_index));
        nb_status st = e.st == NB_OK ? index_range(op, &e, t, kept, C) : e.st;
        if (st != NB_OK && e.st == NB_OK) e.st = st;
        nb_tensor* tu = cx_unsqueeze(&e, t, cd);
        q = cx_cast(&e, cx_eq(&e, tu, cx_reshape(&e, cx_arange_on(&e, C, input), cshape, nd)), kd);
        kept = cx_cast(&e, kept, kd);
        if (reduction == NN_RED_MEAN) /* PyTorch's mean: over the summed weights of the kept targets */
            denom = cx_sum_dim(&e, cx_mul(&e, wc != NULL ? cx_mul(&e, q, wc) : q, cx_unsqueeze(&e, kept, cd)), -1);
    }
    if (smoothing != 0) q = cx_add(&e, cx_mul(&e, q, cx_scalar(&e, 1.0 - smoothing)), cx_scalar(&e, smoothing / (double)C));
    if (wc != NULL) q = cx_mul(&e, q, wc);
    nb_tensor* loss = cx_unary(&e, nb_neg, cx_sum_dim(&e, cx_mul(&e, q, logp), cd)); /* per position */
    if (kept != NULL) loss = cx_mul(&e, loss, kept);
    nb_tensor* result = loss;
    if (reduction != NN_RED_NONE) {
        result = cx_sum_dim(&e, loss, -1);
        if (reduction == NN_RED_MEAN)
            result = denom != NULL ? cx_divide(&e, result, denom)
                                   : cx_mul(&e, result, cx_scalar(&e, C > 0 ? (double)C / (double)input->numel : NAN));
    }
    nb_status st = e.st;
    if (st == NB_OK) nb_tensor_retain(result);
    nb_cx_release(&e);
    if (st == NB_OK) *out = result;
    return st;
}
