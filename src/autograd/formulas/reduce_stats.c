/* reduce_stats.c: formulas of prod, var, std, norm and logsumexp, after
 * PyTorch's (prod_backward, var_backward, std_backward, norm_backward). Every
 * backward is written in differentiable ops, so they differentiate twice.
 * Saved: 0 = x, 1 = the result; dims in ia as reduce.c keeps them. */
#include "reduce_common.h"

#include <math.h>

/* Records a reduction whose backward needs x and the result. */
#define RECORD_XY(OP, NODE, BW, CALL)                                  \
    nb_ag_rec r;                                                       \
    nb_status st = nb_ag_begin(&r, OP, NODE, BW, dst, 1, &t, 1);       \
    if (st != NB_OK) return st;                                        \
    nb_ag_store_dims(r.node, dims, ndims);                             \
    st = nb_ag_save_input(&r, 0, t);                                   \
    nb_tensor* y = NULL;                                               \
    if (st == NB_OK) st = (CALL);                                      \
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);              \
    return nb_ag_finish1(&r, st, y, out)

/* ---- prod ---- */

/* prod over the reduced dims without dividing: each element's gradient is the
 * product of the others, the exclusive products from the left times those from
 * the right, computed with the reduced dims moved last and flattened. */
static nb_tensor* prod_others(nb_bw* b, const nb_tensor* x) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    bool reduced[NB_MAX_DIMS] = {false};
    for (int32_t d = 0; d < in->ndim; d++) reduced[d] = b->node->ia[0] == 0;
    for (int32_t i = 0; i < (int32_t)b->node->ia[0]; i++)
        reduced[b->node->ia[1 + i] < 0 ? b->node->ia[1 + i] + in->ndim : b->node->ia[1 + i]] = true;
    int64_t perm[NB_MAX_DIMS], inverse[NB_MAX_DIMS], flat[NB_MAX_DIMS + 1], moved[NB_MAX_DIMS];
    int32_t k = 0, nkept = 0;
    for (int32_t pass = 0; pass < 2; pass++)
        for (int32_t d = 0; d < in->ndim; d++)
            if (reduced[d] == (pass == 1)) {
                if (pass == 0) flat[nkept++] = in->shape[d];
                moved[k] = in->shape[d];
                perm[k++] = d;
            }
    for (int32_t d = 0; d < in->ndim; d++) inverse[perm[d]] = d;
    int64_t m = bw_reduced_count(b->node);
    flat[nkept] = m;
    nb_tensor* v = BW_OP(b, nb_tensor_permute(x, perm, in->ndim, &bw_r_));
    v = bw_reshape(b, v, flat, nkept + 1);
    int64_t last = nkept;
    nb_tensor* left = bw_exclusive_cumprod(b, v, last, m);
    nb_tensor* flipped = BW_OP(b, nb_flip(v, &last, 1, &bw_r_));
    nb_tensor* right = BW_OP(b, nb_flip(bw_exclusive_cumprod(b, flipped, last, m), &last, 1, &bw_r_));
    nb_tensor* others = bw_reshape(b, bw_mul(b, left, right), moved, in->ndim);
    return BW_OP(b, nb_tensor_permute(others, inverse, in->ndim, &bw_r_));
}

static nb_status prod_bw(nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    nb_tensor* go = bw_kd(b, b->go[0]);
    int64_t m = bw_reduced_count(b->node);
    if (m <= 1) { /* nothing else in the product (or nothing at all) */
        bw_set(b, 0, bw_expand(b, go, in->shape, in->ndim));
        return b->st;
    }
    nb_tensor* x = bw_saved(b, 0);
    if (!bw_has_zero(b, x)) bw_set(b, 0, bw_div(b, bw_mul(b, go, bw_kd(b, bw_saved(b, 1))), x));
    else bw_set(b, 0, bw_mul(b, go, prod_others(b, x)));
    return b->st;
}

nb_status nb_agf_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                      nb_tensor* dst, nb_tensor** out) {
    RECORD_XY("prod", "ProdBackward1", prod_bw, nbi_prod(t, dims, ndims, keepdim, dtype, dst, &y));
}

/* ---- var / std: var' = go 2 (x - mean) / (N - correction) ---- */

static nb_tensor* var_grad(nb_bw* b, const nb_tensor* go_kd, const nb_tensor* x) {
    double dof = (double)bw_reduced_count(b->node) - b->node->fa[0];
    nb_tensor* mean = BW_OP(b, nb_mean(x, b->node->ia + 1, (int32_t)b->node->ia[0], 1, -1, NULL, &bw_r_));
    return bw_mul(b, bw_muls(b, go_kd, 2.0 / dof), bw_sub(b, x, mean));
}

static nb_status var_bw(nb_bw* b) {
    bw_set(b, 0, var_grad(b, bw_kd(b, b->go[0]), bw_saved(b, 0)));
    return b->st;
}

nb_status nb_agf_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                     nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "var", "VarBackward0", var_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    r.node->fa[0] = correction;
    st = nb_ag_save_input(&r, 0, t);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_var(t, dims, ndims, correction, keepdim, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* std: var's gradient with go / (2 std), zero where std is zero. */
static nb_status std_bw(nb_bw* b) {
    nb_tensor* y = bw_kd(b, bw_saved(b, 1));
    nb_tensor* zero = bw_scalar(b, 0.0);
    nb_tensor* y0 = BW_OP(b, nb_eq(y, zero, NULL, &bw_r_));
    nb_tensor* gvar = bw_where(b, y0, zero, bw_div(b, bw_kd(b, b->go[0]), bw_muls(b, y, 2.0)));
    bw_set(b, 0, var_grad(b, gvar, bw_saved(b, 0)));
    return b->st;
}

nb_status nb_agf_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                     nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "std", "StdBackward0", std_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    r.node->fa[0] = correction;
    st = nb_ag_save_input(&r, 0, t);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_std(t, dims, ndims, correction, keepdim, dst, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- norm (fa[0] = p) ---- */

/* where(t == 0, 0, v) */
static nb_tensor* zero_where_zero(nb_bw* b, const nb_tensor* t, const nb_tensor* v) {
    nb_tensor* zero = bw_scalar(b, 0.0);
    return bw_where(b, BW_OP(b, nb_eq(t, zero, NULL, &bw_r_)), zero, v);
}

static nb_tensor* pow_s(nb_bw* b, const nb_tensor* t, double e) {
    return BW_OP(b, nb_pow(t, bw_scalar(b, e), NULL, &bw_r_));
}

static nb_status norm_bw(nb_bw* b) {
    double p = b->node->fa[0];
    nb_tensor* go = bw_kd(b, b->go[0]);
    nb_tensor* x = bw_saved(b, 0);
    nb_tensor* n = bw_kd(b, bw_saved(b, 1));
    nb_tensor* g;
    if (p == 0.0) {
        g = bw_zeros_like(b, x);
    } else if (p == 1.0) {
        g = bw_mul(b, bw_unary(b, nb_sign, x), go);
    } else if (p == 2.0) {
        g = bw_mul(b, x, zero_where_zero(b, n, bw_div(b, go, n)));
    } else if (isinf(p)) { /* amax / amin of |x|: split among the hits, NaNs included */
        nb_tensor* ax = bw_unary(b, nb_abs, x);
        nb_tensor* hit = BW_OP(b, nb_eq(ax, n, NULL, &bw_r_));
        hit = BW_OP(b, nb_logical_or(hit, bw_unary(b, nb_isnan, ax), NULL, &bw_r_));
        nb_tensor* share = bw_mul(b, bw_div(b, go, bw_sum_reduced(b, hit)), hit);
        g = bw_mul(b, bw_unary(b, nb_sign, x), share);
    } else if (p < 1.0) {
        nb_tensor* scaled = zero_where_zero(b, x, bw_mul(b, bw_unary(b, nb_sign, x),
                                                         pow_s(b, bw_unary(b, nb_abs, x), p - 1.0)));
        g = bw_mul(b, bw_mul(b, scaled, go), pow_s(b, n, 1.0 - p));
    } else if (p < 2.0) {
        nb_tensor* s = bw_mul(b, bw_unary(b, nb_sign, x), pow_s(b, bw_unary(b, nb_abs, x), p - 1.0));
        g = bw_mul(b, s, zero_where_zero(b, n, bw_div(b, go, pow_s(b, n, p - 1.0))));
    } else {
        nb_tensor* s = bw_mul(b, x, pow_s(b, bw_unary(b, nb_abs, x), p - 2.0));
        g = bw_mul(b, s, zero_where_zero(b, n, bw_div(b, go, pow_s(b, n, p - 1.0))));
    }
    bw_set(b, 0, g);
    return b->st;
}

nb_status nb_agf_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim,
                      int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "norm", "NormBackward1", norm_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    r.node->fa[0] = p;
    st = nb_ag_save_input(&r, 0, t);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_norm(t, p, dims, ndims, keepdim, dtype, dst, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- logsumexp: go exp(x - y), which is go softmax(x) over the reduced dims ---- */

/* Through the fused softmax when the reduced dims are one dim or all of them. */
static nb_status logsumexp_bw(nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    int32_t nd = (int32_t)b->node->ia[0];
    nb_tensor* x = bw_saved(b, 0);
    nb_tensor* e;
    if (in->ndim >= 1 && (nd == 1 || nd == 0 || nd == in->ndim)) {
        int64_t flat = -1;
        bool flatten = nd != 1 && in->ndim > 1; /* every dim of a tensor with several */
        nb_tensor* v = flatten ? bw_reshape(b, x, &flat, 1) : x;
        e = BW_OP(b, nb_softmax(v, nd == 1 ? b->node->ia[1] : 0, -1, NULL, &bw_r_));
        if (flatten) e = bw_reshape(b, e, in->shape, in->ndim);
    } else {
        e = bw_unary(b, nb_exp, bw_sub(b, x, bw_kd(b, bw_saved(b, 1))));
    }
    bw_set(b, 0, bw_mul(b, bw_kd(b, b->go[0]), e));
    return b->st;
}

nb_status nb_agf_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                           nb_tensor** out) {
    RECORD_XY("logsumexp", "LogsumexpBackward0", logsumexp_bw, nbi_logsumexp(t, dims, ndims, keepdim, dst, &y));
}
