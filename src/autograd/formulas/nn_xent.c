/* nn_xent.c: formulas of nll_loss and cross_entropy, in differentiable ops so
 * that both are twice differentiable. With per-position target distribution q
 * (class dim cd) and output-gradient factor A:
 *     nll_loss:      d/dx = -A q
 *     cross_entropy: d/dx = A (softmax(x) sum_c q - q),  d/dtarget = -(1 - ls) w log_softmax(x) A
 * where q = w_c ((1 - ls) onehot(t) + ls / C) for class indices (A zero at
 * ignore_index) and w_c ((1 - ls) t + ls / C) for class probabilities.
 * Inputs and saved slots: 0 input, 1 target, 2 weight. ia[0] = reduction,
 * ia[1] = ignore_index; fa[0] = label smoothing, fa[1] = positions (N * d1 ...). */
#include "nn.h"

#include "../../ops/loss_device.h"

#define U(fn, t) bw_unary(b, fn, t)

static nb_tensor* saved_opt(nb_bw* b, int32_t slot) {
    return nb_saved_present(&b->node->saved[slot]) ? bw_saved(b, slot) : NULL;
}

/* [1, C, 1, ...] (ndim dims, C at cd). */
static void class_shape(int32_t ndim, int32_t cd, int64_t C, int64_t* shape) {
    for (int32_t d = 0; d < ndim; d++) shape[d] = d == cd ? C : 1;
}

/* The output gradient per position, broadcastable against x (class dim kept as 1). */
static nb_tensor* go_per_position(nb_bw* b, int32_t cd) {
    return b->node->ia[0] == NB_REDUCTION_NONE ? bw_unsqueeze(b, b->go[0], cd) : b->go[0];
}

/* Class-index targets: *q and *A (see the top). */
static void index_terms(nb_bw* b, const nb_tensor* x, const nb_tensor* t, const nb_tensor* w, double ls,
                        nb_tensor** q, nb_tensor** A) {
    *q = *A = NULL;
    if (b->st != NB_OK) return;
    const int32_t nd = x->ndim, cd = nd >= 2 ? 1 : 0;
    const int64_t C = x->shape[cd];
    int64_t cshape[NB_MAX_DIMS];
    class_shape(nd, cd, C, cshape);
    nb_tensor* ti = BW_OP(b, nb_tensor_to(t, NB_I64, x->storage->device_type, x->storage->device_index, 0, &bw_r_));
    nb_tensor* tu = bw_unsqueeze(b, ti, cd);
    nb_tensor* keep = BW_OP(b, nb_ne(tu, BW_OP(b, nb_scalar((double)b->node->ia[1], b->node->ia[1], NB_I64, &bw_r_)),
                                     NULL, &bw_r_));
    nb_tensor* cls = BW_OP(b, nb_arange(0, (double)C, 1, NB_I64, x->storage->device_type, x->storage->device_index,
                                        &bw_r_));
    nb_tensor* hit = BW_OP(b, nb_eq(tu, bw_reshape(b, cls, cshape, nd), NULL, &bw_r_));
    nb_tensor* onehot = BW_OP(b, nb_tensor_to(hit, x->dtype, x->storage->device_type, x->storage->device_index, 0,
                                              &bw_r_));
    nb_tensor* wc = w != NULL ? bw_reshape(b, w, cshape, nd) : NULL;
    nb_tensor* qq = ls == 0 ? onehot : bw_adds(b, bw_muls(b, onehot, 1.0 - ls), ls / (double)C);
    if (wc != NULL) qq = bw_mul(b, qq, wc);
    nb_tensor* a = bw_mul(b, go_per_position(b, cd), keep);
    if (b->node->ia[0] == NB_REDUCTION_MEAN) { /* the summed weight of the kept targets */
        nb_tensor* kept = wc != NULL ? bw_mul(b, bw_mul(b, onehot, wc), keep) : keep;
        a = bw_div(b, a, bw_sum(b, kept, NULL, 0, 0));
    }
    *q = qq, *A = a;
}

/* On a device with a loss kernel, outside create_graph and unless a probability target needs its gradient:
 * d/dx in one kernel. Returns false (nothing done) when the formula must compose instead. */
static bool fused_input_grad(nb_bw* b, bool logits, const nb_tensor* x, const nb_tensor* t, const nb_tensor* w) {
    if (b->st != NB_OK || (nb_dtype_is_floating(t->dtype) && bw_needs(b, 1)) || !nn_cls_fusable(x, t, w))
        return false;
    const nb_tensor* deps[2] = {x, b->go[0]};
    if (bw_recording(deps, 2)) return false;
    const char* op = logits ? "cross_entropy" : "nll_loss";
    bw_set(b, 0, BW_OP(b, nn_cls_loss_backward_fused(op, logits, b->go[0], x, t, w, b->node->ia[1],
                                                     (int32_t)b->node->ia[0], b->node->fa[0], &bw_r_)));
    return true;
}

/* ---- nll_loss ---- */

static nb_status nll_loss_bw(nb_bw* b) {
    if (bw_needs(b, 2)) {
        b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: the derivative for 'weight' is not implemented.", b->node->name);
        return b->st;
    }
    nb_tensor *x = bw_saved(b, 0), *t = bw_saved(b, 1), *w = saved_opt(b, 2);
    if (x == NULL || t == NULL || fused_input_grad(b, false, x, t, w)) return b->st;
    nb_tensor *q, *A;
    index_terms(b, x, t, w, 0.0, &q, &A);
    bw_set(b, 0, bw_neg(b, bw_mul(b, q, A)));
    return b->st;
}

static nb_status class_begin(nb_ag_rec* r, const char* op, const char* node, nb_backward_fn fn,
                             const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                             int64_t ignore_index, int32_t reduction, double ls, nb_tensor* dst) {
    const nb_tensor* ins[3] = {input, target, weight};
    nb_status st = nb_ag_begin(r, op, node, fn, dst, 3, ins, 1);
    if (st != NB_OK) return st;
    r->node->ia[0] = reduction, r->node->ia[1] = ignore_index;
    r->node->fa[0] = ls;
    const bool batched = nb_tensor_ok(input) && input->ndim >= 2;
    r->node->fa[1] = batched && input->shape[1] > 0 ? (double)(input->numel / input->shape[1]) : 1.0;
    for (int32_t i = 0; i < 3 && st == NB_OK; i++) st = nb_ag_save_input(r, i, ins[i]);
    return st;
}

nb_status nb_agf_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                          int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = class_begin(&r, "nll_loss", "NllLossBackward0", nll_loss_bw, input, target, weight, ignore_index,
                               reduction, 0.0, dst);
    if (r.node == NULL) return st;
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_nll_loss(input, target, weight, ignore_index, reduction, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- cross_entropy ---- */

/* softmax and (when logp is not NULL) log_softmax of x along cd. Under create_graph they are composed of
 * differentiable elementwise ops and sums (the max shift is a constant: softmax does not depend on it). */
static void softmax_terms(nb_bw* b, const nb_tensor* x, int32_t cd, nb_tensor** p, nb_tensor** logp) {
    const int64_t dim = cd;
    if (!bw_recording(&x, 1)) {
        *p = BW_OP(b, nb_softmax(x, dim, -1, NULL, &bw_r_));
        if (logp != NULL) *logp = BW_OP(b, nb_log_softmax(x, dim, -1, NULL, &bw_r_));
        return;
    }
    nb_tensor* m = BW_OP(b, nbi_amax(x, &dim, 1, 1, NULL, &bw_r_));
    nb_tensor* z = bw_sub(b, x, m);
    nb_tensor* e = U(nb_exp, z);
    nb_tensor* s = bw_sum(b, e, &dim, 1, 1);
    *p = bw_div(b, e, s);
    if (logp != NULL) *logp = bw_sub(b, z, U(nb_log, s));
}

static nb_status cross_entropy_bw(nb_bw* b) {
    if (bw_needs(b, 2)) {
        b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: the derivative for 'weight' is not implemented.", b->node->name);
        return b->st;
    }
    nb_tensor *x = bw_saved(b, 0), *t = bw_saved(b, 1), *w = saved_opt(b, 2);
    if (x == NULL || t == NULL || fused_input_grad(b, true, x, t, w)) return b->st;
    const int32_t nd = x->ndim, cd = nd >= 2 ? 1 : 0;
    const int64_t C = x->shape[cd];
    const double ls = b->node->fa[0];
    const bool probs = nb_dtype_is_floating(t->dtype);
    nb_tensor *q, *A, *p, *logp = NULL;
    nb_tensor* wc = NULL;
    if (probs) {
        int64_t cshape[NB_MAX_DIMS];
        class_shape(nd, cd, C, cshape);
        wc = w != NULL ? bw_reshape(b, w, cshape, nd) : NULL;
        q = ls == 0 ? t : bw_adds(b, bw_muls(b, t, 1.0 - ls), ls / (double)C);
        if (wc != NULL) q = bw_mul(b, q, wc);
        A = go_per_position(b, cd);
        if (b->node->ia[0] == NB_REDUCTION_MEAN) A = bw_muls(b, A, 1.0 / b->node->fa[1]);
    } else {
        index_terms(b, x, t, w, ls, &q, &A);
    }
    softmax_terms(b, x, cd, &p, probs && bw_needs(b, 1) ? &logp : NULL);
    if (bw_needs(b, 0)) {
        const int64_t dim = cd;
        /* sum_c q is 1 for class indices without weights (and A is 0 at ignored targets) */
        nb_tensor* pq = w == NULL && !probs ? p : bw_mul(b, p, bw_sum(b, q, &dim, 1, 1));
        bw_set(b, 0, bw_mul(b, bw_sub(b, pq, q), A));
    }
    if (probs && bw_needs(b, 1)) {
        nb_tensor* g = bw_muls(b, bw_mul(b, logp, A), -(1.0 - ls));
        bw_set(b, 1, wc != NULL ? bw_mul(b, g, wc) : g);
    }
    return b->st;
}

nb_status nb_agf_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                               int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst,
                               nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = class_begin(&r, "cross_entropy", "CrossEntropyLossBackward0", cross_entropy_bw, input, target,
                               weight, ignore_index, reduction, label_smoothing, dst);
    if (r.node == NULL) return st;
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
