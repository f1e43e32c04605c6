/* softmax.c: formulas of softmax and log_softmax and of their fused backward
 * ops. The forward ones save only the result y (so their in-place forms need no
 * copy of the input) and call the fused kernels:
 *   softmax:     gx = softmax_backward(go, y)     = y (go - sum(go y))
 *   log_softmax: gx = log_softmax_backward(go, y) = go - exp(y) sum(go)
 * The backward ops have formulas of their own (in elementwise ops and sums), so
 * softmax and log_softmax differentiate twice and more. ia[0] = dim (wrapped). */
#include "../autograd.h"

static nb_status softmax_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_softmax_backward(b->go[0], bw_saved(b, 0), b->node->ia[0], NULL, &bw_r_)));
    return b->st;
}

static nb_status log_softmax_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_log_softmax_backward(b->go[0], bw_saved(b, 0), b->node->ia[0], NULL, &bw_r_)));
    return b->st;
}

typedef nb_status (*softmax_impl)(const nb_tensor*, int64_t, int32_t, nb_tensor*, nb_tensor**);

static nb_status record_softmax(const char* op, const char* node, nb_backward_fn bw, softmax_impl impl,
                                const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = impl(t, dim, dtype, dst, &y);
    if (st == NB_OK) { /* valid now: a 0-dim input takes dim 0 or -1 */
        r.node->ia[0] = y->ndim == 0 ? 0 : (dim < 0 ? dim + y->ndim : dim);
        st = nb_ag_save_output(&r, 0, y, 0);
    }
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return record_softmax("softmax", "SoftmaxBackward0", softmax_bw, nbi_softmax, t, dim, dtype, dst, out);
}

nb_status nb_agf_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return record_softmax("log_softmax", "LogSoftmaxBackward0", log_softmax_bw, nbi_log_softmax, t, dim, dtype, dst,
                          out);
}

/* ---- the backward ops: inputs 0 = g, 1 = y (both saved, same slots) ----
 * softmax_backward, gx = y (g - sum(g y)):
 *   dg = softmax_backward(gg, y);  dy = gg (g - sum(g y)) - g sum(gg y)
 * log_softmax_backward, gx = g - exp(y) sum(g):
 *   dg = gg - sum(gg exp(y));      dy = -gg exp(y) sum(g) */

static nb_status softmax_backward_bw(nb_bw* b) {
    nb_tensor* gg = b->go[0];
    nb_tensor* g = bw_saved(b, 0);
    nb_tensor* y = bw_saved(b, 1);
    int64_t dim = b->node->ia[0];
    if (bw_needs(b, 0)) bw_set(b, 0, BW_OP(b, nb_softmax_backward(gg, y, dim, NULL, &bw_r_)));
    if (bw_needs(b, 1)) {
        nb_tensor* gy = bw_sum(b, bw_mul(b, g, y), &dim, 1, 1);
        nb_tensor* ggy = bw_sum(b, bw_mul(b, gg, y), &dim, 1, 1);
        bw_set(b, 1, bw_sub(b, bw_mul(b, gg, bw_sub(b, g, gy)), bw_mul(b, g, ggy)));
    }
    return b->st;
}

static nb_status log_softmax_backward_bw(nb_bw* b) {
    nb_tensor* gg = b->go[0];
    int64_t dim = b->node->ia[0];
    nb_tensor* e = bw_unary(b, nb_exp, bw_saved(b, 1));
    if (bw_needs(b, 0)) bw_set(b, 0, bw_sub(b, gg, bw_sum(b, bw_mul(b, gg, e), &dim, 1, 1)));
    if (bw_needs(b, 1)) {
        nb_tensor* total = bw_sum(b, bw_saved(b, 0), &dim, 1, 1);
        bw_set(b, 1, bw_neg(b, bw_mul(b, bw_mul(b, gg, e), total)));
    }
    return b->st;
}

typedef nb_status (*backward_impl)(const nb_tensor*, const nb_tensor*, int64_t, nb_tensor*, nb_tensor**);

static nb_status record_backward(const char* op, const char* node, nb_backward_fn bw, backward_impl impl,
                                 const nb_tensor* g, const nb_tensor* y, int64_t dim, nb_tensor* dst,
                                 nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {g, y};
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, g);
    if (st == NB_OK) st = nb_ag_save_input(&r, 1, y);
    nb_tensor* res = NULL;
    if (st == NB_OK) st = impl(g, y, dim, dst, &res);
    if (st == NB_OK) r.node->ia[0] = res->ndim == 0 ? 0 : (dim < 0 ? dim + res->ndim : dim);
    return nb_ag_finish1(&r, st, res, out);
}

nb_status nb_agf_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst,
                                  nb_tensor** out) {
    return record_backward("softmax_backward", "SoftmaxBackwardDataBackward0", softmax_backward_bw,
                           nbi_softmax_backward, grad_output, output, dim, dst, out);
}

nb_status nb_agf_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim,
                                      nb_tensor* dst, nb_tensor** out) {
    return record_backward("log_softmax_backward", "LogSoftmaxBackwardDataBackward0", log_softmax_backward_bw,
                           nbi_log_softmax_backward, grad_output, output, dim, dst, out);
}
