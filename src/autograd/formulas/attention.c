/* attention.c: the formula of scaled_dot_product_attention. With the attention
 * weights P = softmax(S), S = q k^T * scale + mask, and the dropout's scale mask
 * D (result = (P D) v):
 *   dv = (P D)^T go,   dP = (go v^T) D,   dS = P (dP - rowsum(dP P)),
 *   dq = dS k * scale, dk = dS^T q * scale, dmask = dS (a float mask).
 * All of it is ops, so it is differentiable again; under create_graph P is
 * recomputed from q and k with recorded ops, so that its history is in the graph.
 * Inputs: 0 = q, 1 = k, 2 = v, 3 = attn_mask (may be NULL). Saved: the inputs in
 * the same slots, 4 = P, 5 = D, 6 = the result. ia[0] = is_causal, ia[1] = has a mask, ia[2] =
 * has dropout; fa[0] = the scale. On CUDA, what the fused kernel covers records
 * ScaledDotProductFlashAttentionBackward0 instead, whose first-order backward is
 * the fused kernel's (below). */
#include "../autograd.h"
#include "../../ops/attention.h"

#include <math.h>
#include <string.h>

static nb_tensor* bw_mT(nb_bw* b, const nb_tensor* t) { return BW_OP(b, nb_tensor_transpose(t, -2, -1, &bw_r_)); }
static nb_tensor* bw_matmul(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_matmul(x, y, NULL, &bw_r_));
}

/* s with -inf where keep is false (keep broadcasts). */
static nb_tensor* bw_mask_out(nb_bw* b, nb_tensor* s, const nb_tensor* keep) {
    nb_tensor* drop = BW_OP(b, nb_logical_not(keep, NULL, &bw_r_));
    nb_tensor* neg_inf = bw_scalar(b, -INFINITY);
    return BW_OP(b, nb_masked_fill(s, drop, neg_inf, NULL, &bw_r_));
}

/* P from q and k through recorded ops: exp(S - c) / rowsum(exp(S - c)) is the
 * softmax for any constant c (the row max, without history), derivatives included. */
static nb_tensor* recompute_weights(nb_bw* b, nb_tensor* q, nb_tensor* k, nb_tensor* mask) {
    nb_tensor* s = bw_muls(b, bw_matmul(b, q, bw_mT(b, k)), b->node->fa[0]);
    if (b->st != NB_OK) return NULL;
    if (b->node->ia[0]) {
        const int64_t shape[2] = {s->shape[s->ndim - 2], s->shape[s->ndim - 1]};
        nb_tensor* ones = BW_OP(b, nb_ones(shape, 2, NB_BOOL, s->storage->device_type, s->storage->device_index,
                                           &bw_r_));
        nb_tensor* causal = BW_OP(b, nb_tril(ones, 0, NULL, &bw_r_));
        s = bw_mask_out(b, s, causal);
    }
    if (mask != NULL) s = mask->dtype == NB_BOOL ? bw_mask_out(b, s, mask) : bw_add(b, s, mask);
    int64_t last = -1;
    nb_tensor* fixed = BW_OP(b, nb_tensor_detach(s, &bw_r_));
    nb_tensor* c = BW_OP(b, nb_amax(fixed, &last, 1, 1, NULL, &bw_r_));
    nb_tensor* e = bw_unary(b, nb_exp, bw_sub(b, s, c));
    return bw_div(b, e, bw_sum(b, e, &last, 1, 1));
}

/* dS through recorded ops (create_graph). */
static nb_tensor* ds_recorded(nb_bw* b, nb_tensor* go, nb_tensor* v, nb_tensor* p, nb_tensor* d) {
    nb_tensor* dp = bw_matmul(b, go, bw_mT(b, v)); /* [..., L, S] */
    if (d != NULL) dp = bw_mul(b, dp, d);
    int64_t last = -1;
    return bw_mul(b, p, bw_sub(b, dp, bw_sum(b, bw_mul(b, dp, p), &last, 1, 1)));
}

/* dS in the first-order pass: the row sums come from the output, rowsum(dP P) =
 * rowsum(go out) (an [..., L, Ev] product instead of an [..., L, S] one), and the
 * [..., L, S] steps run in place on go v^T, which nothing else holds. */
static nb_tensor* ds_first_order(nb_bw* b, nb_tensor* go, nb_tensor* v, nb_tensor* p, nb_tensor* d) {
    int64_t last = -1;
    nb_tensor* rows = bw_sum(b, bw_mul(b, go, bw_saved(b, 6)), &last, 1, 1); /* [..., L, 1] */
    nb_tensor* ds = bw_matmul(b, go, bw_mT(b, v));
    if (b->st != NB_OK) return NULL;
    nb_status st = NB_OK;
    if (d != NULL) st = nb_mul(ds, d, ds, NULL);
    if (st == NB_OK) st = nb_sub(ds, rows, 1.0, ds, NULL);
    if (st == NB_OK) st = nb_mul(ds, p, ds, NULL);
    if (st != NB_OK) b->st = st;
    return b->st == NB_OK ? ds : NULL;
}

/* The gradients from the weights p and the dropout's scale mask d (NULL: none). */
static nb_status sdpa_grads(nb_bw* b, nb_tensor* q, nb_tensor* k, nb_tensor* v, nb_tensor* p, nb_tensor* d,
                            bool first_order) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 2)) bw_set(b, 2, bw_matmul(b, bw_mT(b, d != NULL ? bw_mul(b, p, d) : p), go));
    if (!bw_needs(b, 0) && !bw_needs(b, 1) && !bw_needs(b, 3)) return b->st;
    nb_tensor* ds = first_order ? ds_first_order(b, go, v, p, d) : ds_recorded(b, go, v, p, d);
    if (bw_needs(b, 3)) bw_set(b, 3, ds);
    ds = bw_muls(b, ds, b->node->fa[0]);
    if (bw_needs(b, 0)) bw_set(b, 0, bw_matmul(b, ds, k));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_matmul(b, bw_mT(b, ds), q));
    return b->st;
}

static nb_status sdpa_bw(nb_bw* b) {
    const int64_t* ia = b->node->ia;
    const bool first_order = nb_ag_disabled;
    nb_tensor *q = bw_saved(b, 0), *k = bw_saved(b, 1), *v = bw_saved(b, 2);
    nb_tensor* mask = ia[1] ? bw_saved(b, 3) : NULL;
    nb_tensor* d = ia[2] ? bw_saved(b, 5) : NULL;
    nb_tensor* p = first_order ? bw_saved(b, 4) : recompute_weights(b, q, k, mask);
    return sdpa_grads(b, q, k, v, p, d, first_order);
}

/* ---- the fused kernel's node (src/ops/attention_fused.c) ----
 * Saved: 0..3 as above, 4 = the logsumexp per row, 6 = the result; ia[0..2] as
 * above, ia[3], ia[4] = the dropout's Philox seed and first block; fa[0] = the
 * scale, fa[1] = dropout_p. The mask never requires grad here. */

/* The dropout's scale mask [..., L, S] of the forward: nb_dropout of ones from the
 * generator state the forward drew from makes the same draws. */
static nb_tensor* fused_keep(nb_bw* b, const nb_tensor* out, const nb_tensor* k) {
    const int64_t* ia = b->node->ia;
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, out->shape, sizeof(int64_t) * (size_t)out->ndim);
    shape[out->ndim - 1] = k->shape[k->ndim - 2];
    nb_tensor* ones = BW_OP(b, nb_ones(shape, out->ndim, out->dtype, out->storage->device_type,
                                       out->storage->device_index, &bw_r_));
    nb_generator* gen = NULL;
    if (b->st == NB_OK) {
        nb_status st = nb_generator_create((uint64_t)ia[3], &gen);
        if (st == NB_OK) st = nb_generator_set_state(gen, (uint64_t)ia[3], (uint64_t)ia[4]);
        if (st != NB_OK) bw_fail(b, st);
    }
    nb_tensor* keep = BW_OP(b, nb_dropout(ones, b->node->fa[1], 1, gen, NULL, &bw_r_));
    nb_generator_release(gen);
    return keep;
}

static nb_status flash_bw(nb_bw* b) {
    const int64_t* ia = b->node->ia;
    nb_tensor *q = bw_saved(b, 0), *k = bw_saved(b, 1), *v = bw_saved(b, 2), *out = bw_saved(b, 6);
    nb_tensor* mask = ia[1] ? bw_saved(b, 3) : NULL;
    if (b->st != NB_OK) return b->st;
    if (!nb_ag_disabled) { /* create_graph: the composed formula, differentiable again */
        nb_tensor* d = ia[2] ? fused_keep(b, out, k) : NULL;
        return sdpa_grads(b, q, k, v, recompute_weights(b, q, k, mask), d, false);
    }
    const uint64_t rng[2] = {(uint64_t)ia[3], (uint64_t)ia[4]};
    nb_tensor* g[3] = {NULL, NULL, NULL};
    nb_status st = nb_sdpa_fused_backward(q, k, v, mask, out, bw_saved(b, 4), b->go[0], (int32_t)ia[0],
                                          b->node->fa[0], b->node->fa[1], rng, &g[0], &g[1], &g[2]);
    for (int32_t i = 0; i < 3; i++) {
        nb_tensor* t = bw_keep(b, st, g[i]);
        if (bw_needs(b, i)) bw_set(b, i, t);
    }
    return b->st;
}

static nb_status record_fused(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask,
                              double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[4] = {q, k, v, attn_mask};
    nb_status st = nb_ag_begin(&r, "scaled_dot_product_attention", "ScaledDotProductFlashAttentionBackward0",
                               flash_bw, NULL, 4, in, 1);
    if (st != NB_OK) return st;
    for (int32_t i = 0; i < 4 && st == NB_OK; i++) st = nb_ag_save_input(&r, i, in[i]);
    nb_tensor *y = NULL, *lse = NULL;
    uint64_t rng[2] = {0, 0};
    if (st == NB_OK) st = nb_sdpa_fused_forward(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, &y, &lse, rng);
    if (st == NB_OK) {
        r.node->fa[0] = nb_sdpa_scale(q, scale);
        r.node->fa[1] = dropout_p;
        r.node->ia[0] = is_causal;
        r.node->ia[1] = attn_mask != NULL;
        r.node->ia[2] = dropout_p > 0;
        r.node->ia[3] = (int64_t)rng[0];
        r.node->ia[4] = (int64_t)rng[1];
        st = nb_ag_save_input(&r, 4, lse);
        if (st == NB_OK) st = nb_ag_save_output(&r, 6, y, 0);
    }
    nb_tensor_release(lse);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                              const nb_tensor* attn_mask, double dropout_p, int32_t is_causal,
                                              double scale, nb_generator* gen, nb_tensor** out) {
    nb_status st = nb_sdpa_check(q, k, v, attn_mask, dropout_p, is_causal);
    if (st != NB_OK) return st;
    if (!nb_ag_requires(attn_mask) && nb_sdpa_fused_covers(q, k, v, attn_mask, dropout_p))
        return record_fused(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
    nb_ag_rec r;
    const nb_tensor* in[4] = {q, k, v, attn_mask};
    st = nb_ag_begin(&r, "scaled_dot_product_attention", "ScaledDotProductAttentionBackward0", sdpa_bw, NULL, 4,
                     in, 1);
    if (st != NB_OK) return st;
    for (int32_t i = 0; i < 4 && st == NB_OK; i++) st = nb_ag_save_input(&r, i, in[i]);
    nb_tensor *y = NULL, *p = NULL, *d = NULL;
    if (st == NB_OK) st = nb_sdpa_forward(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, &y, &p, &d);
    if (st == NB_OK) {
        r.node->fa[0] = nb_sdpa_scale(q, scale);
        r.node->ia[0] = is_causal;
        r.node->ia[1] = attn_mask != NULL;
        r.node->ia[2] = d != NULL;
        st = nb_ag_save_input(&r, 4, p);
        if (st == NB_OK) st = nb_ag_save_input(&r, 5, d);
        if (st == NB_OK) st = nb_ag_save_output(&r, 6, y, 0);
    }
    nb_tensor_release(p);
    nb_tensor_release(d);
    return nb_ag_finish1(&r, st, y, out);
}
