/* reduce_arg.c: formulas of the extremum reductions. amax / amin split the
 * gradient evenly among the elements equal to the result (NaNs count as equal to
 * a NaN result), as PyTorch does; max(dim) / min(dim) give it to the returned
 * index only. Saved: amax/amin 0 = x, 1 = the result; max/min(dim) 0 = indices. */
#include "reduce_common.h"

/* go_k * mask / count(mask) with mask = (x == y) | isnan(x) over the reduced dims. */
static nb_status spread_bw(nb_bw* b) {
    nb_tensor* x = bw_saved(b, 0);
    nb_tensor* y = bw_kd(b, bw_saved(b, 1));
    nb_tensor* hit = BW_OP(b, nb_eq(x, y, NULL, &bw_r_));
    hit = BW_OP(b, nb_logical_or(hit, bw_unary(b, nb_isnan, x), NULL, &bw_r_));
    nb_tensor* share = bw_div(b, bw_kd(b, b->go[0]), bw_sum_reduced(b, hit));
    bw_set(b, 0, bw_mul(b, share, hit));
    return b->st;
}

typedef nb_status (*reduce_impl)(const nb_tensor*, const int64_t*, int32_t, int32_t, nb_tensor*, nb_tensor**);

static nb_status record_spread(const char* op, const char* node, reduce_impl impl, const nb_tensor* t,
                               const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                               nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, op, node, spread_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    st = nb_ag_save_input(&r, 0, t);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = impl(t, dims, ndims, keepdim, dst, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                      nb_tensor** out) {
    return record_spread("amax", "AmaxBackward0", nbi_amax, t, dims, ndims, keepdim, dst, out);
}

nb_status nb_agf_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                      nb_tensor** out) {
    return record_spread("amin", "AminBackward0", nbi_amin, t, dims, ndims, keepdim, dst, out);
}

/* go at the saved index along dim, zero elsewhere. A plain backward scatters go
 * into zeros (one pass); under create_graph it is where(arange(n) == index, go, 0),
 * which differentiates in go through where alone. */
static nb_status select_bw(nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    if (in->ndim == 0) {
        bw_set(b, 0, b->go[0]);
        return b->st;
    }
    int64_t dim = b->node->ia[1] < 0 ? b->node->ia[1] + in->ndim : b->node->ia[1];
    nb_tensor* go = bw_kd(b, b->go[0]);
    nb_tensor* index = bw_kd(b, bw_saved(b, 0));
    if (nb_ag_disabled) {
        nb_tensor* z = BW_OP(b, nb_zeros(in->shape, in->ndim, b->go[0]->dtype, in->device_type, in->device_index,
                                         &bw_r_));
        bw_set(b, 0, BW_OP(b, nb_scatter(z, dim, index, go, z, &bw_r_)));
        return b->st;
    }
    int64_t shape[NB_MAX_DIMS];
    for (int32_t d = 0; d < in->ndim; d++) shape[d] = d == dim ? in->shape[d] : 1;
    nb_tensor* pos = BW_OP(b, nb_arange(0, (double)in->shape[dim], 1, NB_I64, in->device_type, in->device_index,
                                        &bw_r_));
    nb_tensor* hit = BW_OP(b, nb_eq(bw_reshape(b, pos, shape, in->ndim), index, NULL, &bw_r_));
    bw_set(b, 0, bw_where(b, hit, go, bw_scalar(b, 0.0)));
    return b->st;
}

typedef nb_status (*dim_impl)(const nb_tensor*, int64_t, int32_t, nb_tensor*, nb_tensor*, nb_tensor**, nb_tensor**);

static nb_status record_select(const char* op, const char* node, dim_impl impl, const nb_tensor* t, int64_t dim,
                               int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values,
                               nb_tensor** indices) {
    if ((values == NULL && dst_values == NULL) || (indices == NULL && dst_indices == NULL))
        return impl(t, dim, keepdim, dst_values, dst_indices, values, indices); /* its own error */
    nb_ag_rec r;
    /* Only the values get history: the node has one output. */
    nb_status st = nb_ag_begin(&r, op, node, select_bw, dst_values != NULL ? dst_values : dst_indices, 1, &t, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = 1;
    r.node->ia[1] = dim;
    nb_tensor *v = NULL, *i = NULL;
    st = impl(t, dim, keepdim, dst_values, dst_indices, &v, &i);
    if (st == NB_OK) st = nb_ag_save_input(&r, 0, i);
    st = nb_ag_end1(&r, st, v);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(i);
        return st;
    }
    if (values != NULL) *values = v;
    else nb_tensor_release(v);
    if (indices != NULL) *indices = i;
    else nb_tensor_release(i);
    return NB_OK;
}

nb_status nb_agf_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values,
                         nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    return record_select("max", "MaxBackward0", nbi_max_dim, t, dim, keepdim, dst_values, dst_indices, values,
                         indices);
}

nb_status nb_agf_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values,
                         nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    return record_select("min", "MinBackward0", nbi_min_dim, t, dim, keepdim, dst_values, dst_indices, values,
                         indices);
}
