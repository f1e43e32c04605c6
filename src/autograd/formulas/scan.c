/* scan.c: formulas of cumsum and cumprod. ia[0] = dim as given (wrapped when
 * used). cumprod saves 0 = x, 1 = the result. */
#include "reduce_common.h"

/* dim wrapped for input 0; -1 for a 0-dim input (whose scan is the identity). */
static int64_t scan_dim(const nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    if (in->ndim == 0) return -1;
    return b->node->ia[0] < 0 ? b->node->ia[0] + in->ndim : b->node->ia[0];
}

/* cumsum: the gradient is the cumulative sum of go from the end. */
static nb_status cumsum_bw(nb_bw* b) {
    int64_t dim = scan_dim(b);
    bw_set(b, 0, dim < 0 ? b->go[0] : bw_reverse_cumsum(b, b->go[0], dim));
    return b->st;
}

nb_status nb_agf_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "cumsum", "CumsumBackward0", cumsum_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    nb_tensor* y = NULL;
    st = nbi_cumsum(t, dim, dtype, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* cumprod, after PyTorch's cumprod_backward: with w = go y, the gradient of x_i is
 * sum_{k >= i} w_k / x_i when no x is zero. With zeros (z1 the first along a
 * line): positions before z1 keep that form (y is zero from z1 on); z1 itself
 * gets prod_{j < z1} x_j * sum_{z1 <= k < z2} go_k prod_{z1 < j <= k} x_j; later
 * positions get zero. Written in masks, so it is correct for one derivative; the
 * zero case is not the second derivative (as PyTorch's fast path). */
static nb_tensor* cumprod_with_zeros(nb_bw* b, const nb_tensor* go, const nb_tensor* x, const nb_tensor* y,
                                     const nb_tensor* w, int64_t dim) {
    nb_tensor* zero = bw_scalar(b, 0.0);
    nb_tensor* one = bw_scalar(b, 1.0);
    nb_tensor* is_zero = BW_OP(b, nb_eq(x, zero, NULL, &bw_r_));
    nb_tensor* zeros_so_far = BW_OP(b, nb_cumsum(is_zero, dim, -1, NULL, &bw_r_));
    nb_tensor* before = BW_OP(b, nb_eq(zeros_so_far, zero, NULL, &bw_r_));
    nb_tensor* one_zero = BW_OP(b, nb_eq(zeros_so_far, one, NULL, &bw_r_));
    nb_tensor* first = BW_OP(b, nb_logical_and(is_zero, one_zero, NULL, &bw_r_));
    nb_tensor* nonzero = BW_OP(b, nb_logical_not(is_zero, NULL, &bw_r_));
    nb_tensor* between = BW_OP(b, nb_logical_and(one_zero, nonzero, NULL, &bw_r_));
    /* before z1 */
    nb_tensor* head = bw_div(b, bw_reverse_cumsum(b, w, dim), bw_where(b, before, x, one));
    /* at z1 */
    nb_tensor* run = BW_OP(b, nb_cumprod(bw_where(b, between, x, one), dim, -1, NULL, &bw_r_));
    nb_tensor* tail = bw_sum(b, bw_mul(b, run, bw_where(b, one_zero, go, zero)), &dim, 1, 1);
    nb_tensor* at_first = bw_mul(b, tail, bw_shift_in_one(b, y, dim, b->node->in_meta[0].shape[dim]));
    return bw_where(b, before, head, bw_where(b, first, at_first, zero));
}

static nb_status cumprod_bw(nb_bw* b) {
    int64_t dim = scan_dim(b);
    const nb_tensor_meta* in = &b->node->in_meta[0];
    if (dim < 0 || in->shape[dim] <= 1) {
        bw_set(b, 0, b->go[0]);
        return b->st;
    }
    nb_tensor* x = bw_saved(b, 0);
    nb_tensor* y = bw_saved(b, 1);
    nb_tensor* w = bw_mul(b, b->go[0], y);
    if (!bw_has_zero(b, x)) bw_set(b, 0, bw_div(b, bw_reverse_cumsum(b, w, dim), x));
    else bw_set(b, 0, cumprod_with_zeros(b, b->go[0], x, y, w, dim));
    return b->st;
}

nb_status nb_agf_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "cumprod", "CumprodBackward0", cumprod_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    st = nb_ag_save_input(&r, 0, t);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_cumprod(t, dim, dtype, dst, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}
