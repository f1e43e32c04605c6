/* nn_norm.c: formulas of layer_norm, batch_norm and group_norm. With batch
 * statistics the gradients come from fused backward kernels that recompute the
 * statistics (nb_*_norm_backward: one pass for the sums, one to write); they are
 * once differentiable. batch_norm in evaluation mode is an affine map of the input
 * (running statistics are constants), written in differentiable ops.
 * Inputs: 0 input, 1 weight, 2 bias. Saved: 0 input, 1 weight. fa[0] = eps. */
#include "nn.h"

#include <string.h>

/* Runs a backward kernel filling the gradients the node needs, then marks them once differentiable. */
#define NORM_BW(b, CALL)                                                                             \
    do {                                                                                             \
        nb_tensor *gx_ = NULL, *gw_ = NULL, *gb_ = NULL;                                             \
        nb_tensor** gxp = bw_needs(b, 0) ? &gx_ : NULL;                                              \
        nb_tensor** gwp = bw_needs(b, 1) ? &gw_ : NULL;                                              \
        nb_tensor** gbp = bw_needs(b, 2) ? &gb_ : NULL;                                              \
        nb_status st_ = (b)->st == NB_OK ? (CALL) : (b)->st;                                         \
        nb_tensor* res_[3] = {bw_keep(b, st_, gx_), bw_keep(b, st_, gw_), bw_keep(b, st_, gb_)};    \
        const nb_tensor* deps_[3] = {b->go[0], x, w};                                                \
        nb_tensor* live_[3];                                                                         \
        int32_t n_ = 0;                                                                              \
        for (int k_ = 0; k_ < 3; k_++)                                                               \
            if (res_[k_] != NULL) live_[n_++] = res_[k_];                                            \
        bw_once(b, deps_, 3, live_, n_);                                                             \
        for (int k_ = 0; k_ < 3; k_++) bw_set(b, k_, res_[k_]);                                      \
    } while (0)

/* The input and weight as the kernels need them. */
#define NORM_OPERANDS(b)                                                                             \
    nb_tensor* x = bw_saved(b, 0);                                                                   \
    nb_tensor* w = nb_saved_present(&b->node->saved[1]) ? bw_saved(b, 1) : NULL

static nb_status record_norm(nb_ag_rec* r, const char* op, const char* node, nb_backward_fn fn,
                             const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst,
                             double eps) {
    const nb_tensor* ins[3] = {input, weight, bias};
    nb_status st = nb_ag_begin(r, op, node, fn, dst, 3, ins, 1);
    if (st != NB_OK) return st;
    r->node->fa[0] = eps;
    st = nb_ag_save_input(r, 0, input);
    if (st == NB_OK) st = nb_ag_save_input(r, 1, weight);
    return st;
}

/* ---- layer_norm: ia[0] = ndim, ia[1..] = normalized_shape ---- */

static nb_status layer_norm_bw(nb_bw* b) {
    NORM_OPERANDS(b);
    const int64_t* a = b->node->ia;
    NORM_BW(b, nb_layer_norm_backward(b->go[0], x, a + 1, (int32_t)a[0], w, b->node->fa[0], gwp, gbp, NULL, gxp));
    return b->st;
}

nb_status nb_agf_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim,
                            const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst,
                            nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = record_norm(&r, "layer_norm", "NativeLayerNormBackward0", layer_norm_bw, input, weight, bias, dst,
                               eps);
    if (r.node == NULL) return st;
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, &y);
    if (st == NB_OK) {  /* valid: at most NB_MAX_DIMS dims */
        r.node->ia[0] = ndim;
        memcpy(r.node->ia + 1, normalized_shape, sizeof(int64_t) * (size_t)ndim);
    }
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- group_norm: ia[0] = num_groups ---- */

static nb_status group_norm_bw(nb_bw* b) {
    NORM_OPERANDS(b);
    NORM_BW(b, nb_group_norm_backward(b->go[0], x, b->node->ia[0], w, b->node->fa[0], gwp, gbp, NULL, gxp));
    return b->st;
}

nb_status nb_agf_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight,
                            const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = record_norm(&r, "group_norm", "NativeGroupNormBackward0", group_norm_bw, input, weight, bias, dst,
                               eps);
    if (r.node == NULL) return st;
    r.node->ia[0] = num_groups;
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_group_norm(input, num_groups, weight, bias, eps, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- batch_norm: ia[0] = training; evaluation saves 2 = running mean, 3 = 1 / sqrt(running var + eps) ---- */

/* The forward takes a weight and bias of any shape with C elements ([1, 1, C] too); their
 * gradients come out as [C] and take that shape back. */
static nb_status channel_grads_as_inputs(nb_bw* b) {
    for (int32_t i = 1; i <= 2 && b->st == NB_OK; i++) {
        const nb_tensor_meta* m = &b->node->in_meta[i];
        const nb_tensor* g = b->gi[i];
        if (g != NULL && g->ndim != m->ndim) bw_set(b, i, bw_reshape(b, g, m->shape, m->ndim));
    }
    return b->st;
}

static nb_status batch_norm_bw(nb_bw* b) {
    NORM_OPERANDS(b);
    if (b->node->ia[0]) {
        NORM_BW(b, nb_batch_norm_backward(b->go[0], x, w, b->node->fa[0], gwp, gbp, NULL, gxp));
        return channel_grads_as_inputs(b);
    }
    /* y = (x - mean) * invstd * w + b, per channel (dim 1); the shape is the saved input's
     * (in_meta[0] is only filled when the input needs a gradient) */
    if (b->st != NB_OK) return b->st;
    const int32_t nd = x->ndim;
    int64_t cshape[NB_MAX_DIMS];
    for (int32_t d = 0; d < nd; d++) cshape[d] = d == 1 ? x->shape[1] : 1;
    nb_tensor* go = b->go[0];
    nb_tensor* invstd = bw_reshape(b, bw_saved(b, 3), cshape, nd);
    if (bw_needs(b, 0)) {
        nb_tensor* scale = w != NULL ? bw_mul(b, invstd, bw_reshape(b, w, cshape, nd)) : invstd;
        bw_set(b, 0, bw_mul(b, go, scale));
    }
    if (bw_needs(b, 1)) {
        nb_tensor* xhat = bw_mul(b, bw_sub(b, x, bw_reshape(b, bw_saved(b, 2), cshape, nd)), invstd);
        bw_set(b, 1, bw_sum_except(b, bw_mul(b, go, xhat), nd, 1));
    }
    if (bw_needs(b, 2)) bw_set(b, 2, bw_sum_except(b, go, nd, 1));
    return channel_grads_as_inputs(b);
}

nb_status nb_agf_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var,
                            const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum,
                            double eps, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = record_norm(&r, "batch_norm", "NativeBatchNormBackward0", batch_norm_bw, input, weight, bias, dst,
                               eps);
    if (r.node == NULL) return st;
    r.node->ia[0] = training != 0;
    if (st == NB_OK && !training && running_mean != NULL && running_var != NULL) {
        /* copies of the statistics as they are now: a later training step updates them in place */
        nb_tensor *m = NULL, *v = NULL, *e = NULL, *inv = NULL;
        st = nb_tensor_clone(running_mean, &m);
        if (st == NB_OK) st = nb_scalar(eps, 0, NB_F64, &e);
        if (st == NB_OK) st = nb_add(running_var, e, 1.0, NULL, &v);
        if (st == NB_OK) st = nb_rsqrt(v, NULL, &inv);
        if (st == NB_OK) {
            r.node->saved[2] = (nb_saved){.t = m, .version = 0, .output_nr = -1};
            r.node->saved[3] = (nb_saved){.t = inv, .version = 0, .output_nr = -1};
            r.node->n_saved = 4;
            m = inv = NULL;
        }
        nb_tensor_release(m), nb_tensor_release(v), nb_tensor_release(e), nb_tensor_release(inv);
    }
    nb_tensor* y = NULL;
    if (st == NB_OK)
        st = nbi_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
