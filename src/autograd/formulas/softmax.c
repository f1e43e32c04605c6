/* softmax.c: formulas of softmax and log_softmax, from the saved result y
 * (slot 0) alone, so the in-place forms need no copy of the input. ia[0] = dim.
 *   softmax:     gx = y (go - sum(go y))
 *   log_softmax: gx = go - exp(y) sum(go)
 * Both in differentiable ops: they differentiate twice. */
#include "../autograd.h"

static nb_status softmax_bw(nb_bw* b) {
    nb_tensor* y = bw_saved(b, 0);
    nb_tensor* go = b->go[0];
    int64_t dim = b->node->ia[0];
    nb_tensor* dot = bw_sum(b, bw_mul(b, go, y), &dim, 1, 1);
    bw_set(b, 0, bw_mul(b, y, bw_sub(b, go, dot)));
    return b->st;
}

static nb_status log_softmax_bw(nb_bw* b) {
    nb_tensor* y = bw_saved(b, 0);
    nb_tensor* go = b->go[0];
    int64_t dim = b->node->ia[0];
    nb_tensor* total = bw_sum(b, go, &dim, 1, 1);
    bw_set(b, 0, bw_sub(b, go, bw_mul(b, bw_unary(b, nb_exp, y), total)));
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
