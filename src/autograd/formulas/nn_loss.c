/* nn_loss.c: formulas of the losses, all in differentiable ops (so the losses are
 * twice differentiable). Inputs: 0 input, 1 target, 2 weight, 3 pos_weight, all
 * saved in the same slots. ia[0] = reduction; fa[0] = beta / delta / label
 * smoothing; fa[1] = the element count the mean divides by. The gradient of a
 * weight is not implemented, as in PyTorch. */
#include "nn.h"

#include "../../core/elementwise.h"

#include <math.h>

#define U(fn, t) bw_unary(b, fn, t)

/* Records a loss with inputs ins[0..n): node, attributes, saved inputs, the mean's count. */
static nb_status loss_begin(nb_ag_rec* r, const char* op, const char* node, nb_backward_fn fn, nb_tensor* dst,
                            const nb_tensor* const* ins, int32_t n, int32_t reduction, double param) {
    nb_status st = nb_ag_begin(r, op, node, fn, dst, n, ins, 1);
    if (st != NB_OK) return st;
    r->node->ia[0] = reduction;
    r->node->fa[0] = param;
    const nb_tensor* present[4];
    int32_t np = 0;
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        st = nb_ag_save_input(r, i, ins[i]);
        if (ins[i] != NULL && nb_tensor_ok(ins[i])) present[np++] = ins[i];
    }
    int64_t shape[NB_MAX_DIMS];
    int32_t ndim = 0;
    double count = 1;
    if (st == NB_OK && nb_broadcast_shapes(op, present, np, shape, &ndim) == NB_OK)
        for (int32_t d = 0; d < ndim; d++) count *= (double)shape[d];
    nb_clear_error();
    r->node->fa[1] = count;
    return st;
}

static nb_tensor* saved_opt(nb_bw* b, int32_t slot) {
    return nb_saved_present(&b->node->saved[slot]) ? bw_saved(b, slot) : NULL;
}

/* The weights' gradients are not implemented: fails when one is asked for. */
static bool weights_unsupported(nb_bw* b, int32_t from, int32_t n_inputs) {
    for (int32_t i = from; i < n_inputs; i++)
        if (bw_needs(b, i) && b->st == NB_OK) {
            b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: the derivative for '%s' is not implemented.", b->node->name,
                             i == 2 ? "weight" : "pos_weight");
            return true;
        }
    return b->st != NB_OK;
}

/* The output gradient scaled for the reduction: the mean divides by `denom` (NULL: fa[1]). */
static nb_tensor* scaled_go(nb_bw* b, const nb_tensor* denom) {
    if (b->node->ia[0] != NB_REDUCTION_MEAN) return b->go[0];
    return denom != NULL ? bw_div(b, b->go[0], denom) : bw_muls(b, b->go[0], 1.0 / b->node->fa[1]);
}

/* gi[0] = g, gi[1] = -g (as needed). */
static nb_status set_pair(nb_bw* b, nb_tensor* g) {
    if (bw_needs(b, 0)) bw_set(b, 0, g);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_neg(b, g));
    return b->st;
}

/* ---- regression losses: d = input - target ---- */

/* g(d) * weight * scaled go, for mse / l1 / smooth_l1 / huber. */
static nb_status regression_bw(nb_bw* b, nb_tensor* (*dg)(nb_bw*, nb_tensor*), bool mean_by_weight) {
    if (weights_unsupported(b, 2, b->node->n_inputs)) return b->st;
    nb_tensor* w = b->node->n_inputs > 2 ? saved_opt(b, 2) : NULL;
    nb_tensor* g = dg(b, bw_sub(b, bw_saved(b, 0), bw_saved(b, 1)));
    if (w != NULL) g = bw_mul(b, g, w);
    return set_pair(b, bw_mul(b, g, scaled_go(b, mean_by_weight && w != NULL ? bw_sum(b, w, NULL, 0, 0) : NULL)));
}

static nb_tensor* mse_dg(nb_bw* b, nb_tensor* d) { return bw_muls(b, d, 2.0); }
static nb_tensor* l1_dg(nb_bw* b, nb_tensor* d) { return U(nb_sign, d); }
static nb_tensor* smooth_l1_dg(nb_bw* b, nb_tensor* d) {
    const double beta = b->node->fa[0];
    if (beta == 0) return U(nb_sign, d);
    return BW_OP(b, nb_clamp(bw_muls(b, d, 1.0 / beta), -1.0, 1.0, NULL, &bw_r_));
}
static nb_tensor* huber_dg(nb_bw* b, nb_tensor* d) {
    const double delta = b->node->fa[0];
    return BW_OP(b, nb_clamp(d, -delta, delta, NULL, &bw_r_));
}

static nb_status mse_bw(nb_bw* b) { return regression_bw(b, mse_dg, true); }
static nb_status l1_bw(nb_bw* b) { return regression_bw(b, l1_dg, true); }
static nb_status smooth_l1_bw(nb_bw* b) { return regression_bw(b, smooth_l1_dg, false); }
static nb_status huber_bw(nb_bw* b) { return regression_bw(b, huber_dg, false); }

#define LOSS_FORWARD(OP, NODE, FN, N, REDUCTION, PARAM, CALL)                                    \
    do {                                                                                         \
        nb_ag_rec r;                                                                             \
        nb_status st = loss_begin(&r, OP, NODE, FN, dst, ins, N, REDUCTION, PARAM);              \
        if (r.node == NULL) return st;                                                           \
        nb_tensor* y = NULL;                                                                     \
        if (st == NB_OK) st = (CALL);                                                            \
        return nb_ag_finish1(&r, st, y, out);                                                    \
    } while (0)

nb_status nb_agf_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                          int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[3] = {input, target, weight};
    LOSS_FORWARD("mse_loss", "MseLossBackward0", mse_bw, 3, reduction, 0,
                 nbi_mse_loss(input, target, weight, reduction, dst, &y));
}

nb_status nb_agf_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                         int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[3] = {input, target, weight};
    LOSS_FORWARD("l1_loss", "L1LossBackward0", l1_bw, 3, reduction, 0,
                 nbi_l1_loss(input, target, weight, reduction, dst, &y));
}

nb_status nb_agf_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta,
                                nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[2] = {input, target};
    LOSS_FORWARD("smooth_l1_loss", "SmoothL1LossBackward0", smooth_l1_bw, 2, reduction, beta,
                 nbi_smooth_l1_loss(input, target, reduction, beta, dst, &y));
}

nb_status nb_agf_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                            int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[3] = {input, target, weight};
    LOSS_FORWARD("huber_loss", "HuberLossBackward0", huber_bw, 3, reduction, delta,
                 nbi_huber_loss(input, target, weight, reduction, delta, dst, &y));
}

/* ---- binary cross entropy ---- */

/* d/dx = w (x - t) / max(x (1 - x), 1e-12); d/dt = w (log(1 - x) - log(x)), the logs clamped at -100 as in the
 * forward. */
static nb_status bce_bw(nb_bw* b) {
    if (weights_unsupported(b, 2, 3)) return b->st;
    nb_tensor *x = bw_saved(b, 0), *t = bw_saved(b, 1), *w = saved_opt(b, 2);
    if (x == NULL || t == NULL) return b->st;
    nb_tensor* s = scaled_go(b, NULL);
    if (w != NULL) s = bw_mul(b, w, bw_expand(b, s, x->shape, x->ndim)); /* in x's dtype even for a 0-dim s */
    if (bw_needs(b, 0)) {
        nb_tensor* den = BW_OP(b, nb_clamp(bw_mul(b, x, bw_rsubs(b, 1.0, x)), 1e-12, INFINITY, NULL, &bw_r_));
        bw_set(b, 0, bw_mul(b, bw_div(b, bw_sub(b, x, t), den), s));
    }
    if (bw_needs(b, 1)) {
        nb_tensor* l1x = BW_OP(b, nb_clamp(U(nb_log1p, bw_neg(b, x)), -100.0, INFINITY, NULL, &bw_r_));
        nb_tensor* lx = BW_OP(b, nb_clamp(U(nb_log, x), -100.0, INFINITY, NULL, &bw_r_));
        bw_set(b, 1, bw_mul(b, bw_sub(b, l1x, lx), s));
    }
    return b->st;
}

nb_status nb_agf_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                                      int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[3] = {input, target, weight};
    LOSS_FORWARD("binary_cross_entropy", "BinaryCrossEntropyBackward0", bce_bw, 3, reduction, 0,
                 nbi_binary_cross_entropy(input, target, weight, reduction, dst, &y));
}

/* With l = 1 + (pw - 1) t: d/dx = w (l sigmoid(x) - pw t); d/dt = w ((pw - 1) softplus(x) - pw x) (w (-x) without
 * pos_weight). */
static nb_status bce_logits_bw(nb_bw* b) {
    if (weights_unsupported(b, 2, 4)) return b->st;
    nb_tensor *x = bw_saved(b, 0), *t = bw_saved(b, 1), *w = saved_opt(b, 2), *pw = saved_opt(b, 3);
    if (x == NULL || t == NULL) return b->st;
    nb_tensor* s = scaled_go(b, NULL);
    if (w != NULL) s = bw_mul(b, w, bw_expand(b, s, x->shape, x->ndim));
    if (bw_needs(b, 0)) {
        nb_tensor* sig = U(nb_sigmoid, x);
        nb_tensor* d = pw == NULL ? bw_sub(b, sig, t)
                                  : bw_sub(b, bw_mul(b, sig, bw_adds(b, bw_mul(b, bw_adds(b, pw, -1.0), t), 1.0)),
                                           bw_mul(b, pw, t));
        bw_set(b, 0, bw_mul(b, d, s));
    }
    if (bw_needs(b, 1)) {
        nb_tensor* d = pw == NULL ? bw_neg(b, x)
                                  : bw_sub(b, bw_mul(b, bw_adds(b, pw, -1.0),
                                                     BW_OP(b, nb_softplus(x, 1.0, 20.0, NULL, &bw_r_))),
                                           bw_mul(b, pw, x));
        bw_set(b, 1, bw_mul(b, d, s));
    }
    return b->st;
}

nb_status nb_agf_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target,
                                                  const nb_tensor* weight, const nb_tensor* pos_weight,
                                                  int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[4] = {input, target, weight, pos_weight};
    LOSS_FORWARD("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", bce_logits_bw, 4,
                 reduction, 0, nbi_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst,
                                                                    &y));
}

/* ---- kl_div: ia[1] = log_target ---- */

/* t (log t - x) (0 where t = 0): d/dx = -t, d/dt = log t + 1 - x (0 where t = 0).
 * log_target, e^t (t - x): d/dx = -e^t, d/dt = e^t (t - x + 1). */
static nb_status kl_div_bw(nb_bw* b) {
    nb_tensor *x = bw_saved(b, 0), *t = bw_saved(b, 1);
    nb_tensor* s = scaled_go(b, NULL);
    const bool log_target = b->node->ia[1] != 0;
    nb_tensor* p = log_target ? U(nb_exp, t) : t;
    if (bw_needs(b, 0) && b->st == NB_OK) {
        /* -p s has target's shape (x is absent from it): expanded to the broadcast shape, which
         * the engine then sums back to input's shape */
        const nb_tensor* xt[2] = {x, t};
        int64_t shape[NB_MAX_DIMS];
        int32_t ndim = 0;
        nb_status st = nb_broadcast_shapes("kl_div", xt, 2, shape, &ndim);
        if (st != NB_OK) return bw_fail(b, st);
        bw_set(b, 0, bw_expand(b, bw_neg(b, bw_mul(b, p, s)), shape, ndim));
    }
    if (bw_needs(b, 1)) {
        nb_tensor* d;
        if (log_target) {
            d = bw_mul(b, p, bw_adds(b, bw_sub(b, t, x), 1.0));
        } else {
            nb_tensor* pos = bw_cmp_gt0(b, t);
            d = bw_where(b, pos, bw_sub(b, bw_adds(b, U(nb_log, t), 1.0), x), bw_scalar(b, 0.0));
        }
        bw_set(b, 1, bw_mul(b, d, s));
    }
    return b->st;
}

nb_status nb_agf_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target,
                        nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ins[2] = {input, target};
    nb_ag_rec r;
    nb_status st = loss_begin(&r, "kl_div", "KlDivBackward0", kl_div_bw, dst, ins, 2, reduction, 0);
    if (r.node == NULL) return st;
    r.node->ia[1] = log_target != 0;
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_kl_div(input, target, reduction, log_target, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
