/* scatter_reduce.c: the formula of nb_scatter_reduce, PyTorch's
 * scatter_reduce_backward written with public ops (so it is recorded under
 * create_graph). Inputs 0 = x, 1 = src; ia[0] = dim, ia[1] = reduce,
 * ia[2] = include_self; saved 0 = index, 1 = x, 2 = src, 3 = the result.
 *
 * sum:  x gets go, src gets go gathered.
 * mean: both divided by N, the number of values averaged at each place.
 * amax / amin: go is shared evenly among the values (x's and src's) equal to the result.
 * prod: go * (product of the others), computed without dividing by a zero:
 *       x's zeros are masked to 1 and the product redone; a src value that is the only
 *       zero at its place gets the product of the rest, again redone without it.
 * include_self false: x's gradient is cleared where values were scattered. */
#include "index.h"

#define DT(t) (t)->storage->device_type, (t)->storage->device_index

static nb_tensor* bw_eq(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_eq(x, y, NULL, &bw_r_));
}

/* t as x's dtype (a bool mask becomes 0 / 1). */
static nb_tensor* bw_as(nb_bw* b, const nb_tensor* t, const nb_tensor* like) {
    return BW_OP(b, nb_tensor_to(t, like->dtype, DT(like), 0, &bw_r_));
}

static nb_tensor* bw_scatter_add(nb_bw* b, const nb_tensor* x, int64_t dim, const nb_tensor* index,
                                 const nb_tensor* src) {
    return BW_OP(b, nb_scatter_add(x, dim, index, src, NULL, &bw_r_));
}

static nb_tensor* bw_fill(nb_bw* b, const nb_tensor* x, const nb_tensor* mask, double v) {
    nb_tensor* value = BW_OP(b, nb_scalar(v, (int64_t)v, x->dtype, &bw_r_));
    return BW_OP(b, nb_masked_fill(x, mask, value, NULL, &bw_r_));
}

static nb_tensor* bw_prod_again(nb_bw* b, const nb_tensor* x, const nb_tensor* index, const nb_tensor* src) {
    const int64_t* a = b->node->ia;
    return BW_OP(b, nb_scatter_reduce(x, a[0], index, src, NB_SCATTER_PROD, (int32_t)a[2], NULL, &bw_r_));
}

/* The part of src the index reaches (src may be larger than index). */
static nb_tensor* bw_index_part(nb_bw* b, nb_tensor* src, const nb_tensor* index) {
    for (int32_t d = 0; src != NULL && d < src->ndim && d < index->ndim; d++)
        if (src->shape[d] != index->shape[d]) src = BW_OP(b, nb_tensor_narrow(src, d, 0, index->shape[d], &bw_r_));
    return src;
}

static nb_status scatter_reduce_bw(nb_bw* b) {
    const int64_t dim = b->node->ia[0], reduce = b->node->ia[1];
    const bool include_self = b->node->ia[2] != 0;
    nb_tensor* go = b->go[0];
    nb_tensor* index = bw_saved(b, 0);
    nb_tensor *gx = NULL, *gs = NULL;
    if (reduce == NB_SCATTER_SUM) {
        gx = go;
        gs = bw_gather(b, go, dim, index);
    } else if (reduce == NB_SCATTER_MEAN) {
        nb_tensor* ones = BW_OP(b, nb_ones(index->shape, index->ndim, go->dtype, DT(go), &bw_r_));
        nb_tensor* n = BW_OP(b, nb_full(go->shape, go->ndim, include_self ? 1.0 : 0.0, go->dtype, DT(go), &bw_r_));
        n = bw_scatter_add(b, n, dim, index, ones);
        n = bw_fill(b, n, bw_eq(b, n, bw_zero_of(b, n)), 1.0);
        gx = bw_div(b, go, n);
        gs = bw_div(b, bw_gather(b, go, dim, index), bw_gather(b, n, dim, index));
    } else if (reduce == NB_SCATTER_AMAX || reduce == NB_SCATTER_AMIN) {
        nb_tensor *x = bw_saved(b, 1), *result = bw_saved(b, 3);
        nb_tensor* src = bw_index_part(b, bw_saved(b, 2), index);
        nb_tensor* value = bw_gather(b, result, dim, index);
        nb_tensor *x_hit = bw_eq(b, x, result), *src_hit = bw_eq(b, src, value);
        nb_tensor* n = bw_scatter_add(b, bw_as(b, x_hit, go), dim, index, bw_as(b, src_hit, go));
        nb_tensor* shared = bw_div(b, go, n);
        gx = bw_mul(b, x_hit, shared);
        gs = bw_mul(b, src_hit, bw_gather(b, shared, dim, index));
    } else {  /* prod */
        nb_tensor *x = bw_saved(b, 1), *result = bw_saved(b, 3);
        nb_tensor* src = bw_index_part(b, bw_saved(b, 2), index);
        nb_tensor* zero = bw_zero_of(b, x);
        if (bw_needs(b, 0)) {
            nb_tensor* masked_x = bw_fill(b, x, bw_eq(b, x, zero), 1.0);
            gx = bw_div(b, bw_mul(b, go, bw_prod_again(b, masked_x, index, src)), masked_x);
        }
        if (bw_needs(b, 1)) {
            nb_tensor* src_zero = bw_eq(b, src, zero);
            nb_tensor* zeros_here = bw_scatter_add(b, bw_zeros_like(b, x), dim, index, bw_as(b, src_zero, x));
            nb_tensor* one = BW_OP(b, nb_scalar(1.0, 1, x->dtype, &bw_r_));
            nb_tensor* single = BW_OP(b, nb_eq(bw_gather(b, zeros_here, dim, index), one, NULL, &bw_r_));
            single = BW_OP(b, nb_logical_and(src_zero, single, NULL, &bw_r_));
            nb_tensor* without = bw_prod_again(b, x, index, bw_fill(b, src, single, 1.0));
            nb_tensor* lone = bw_gather(b, bw_mul(b, go, without), dim, index);
            nb_tensor* others = bw_div(b, bw_gather(b, bw_mul(b, go, result), dim, index),
                                       bw_fill(b, src, src_zero, 1.0));
            gs = bw_where(b, single, lone, others);
        }
    }
    if (bw_needs(b, 0) && gx != NULL && !include_self)
        gx = BW_OP(b, nb_scatter_value(gx, dim, index, bw_zero_of(b, gx), NULL, &bw_r_));
    if (bw_needs(b, 0)) bw_set(b, 0, gx);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_pad_to(b, gs, &b->node->in_meta[1]));
    return b->st;
}

nb_status nb_agf_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                                int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {x, src};
    nb_status st = nb_ag_begin(&r, "scatter_reduce", "ScatterReduceBackward0", scatter_reduce_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    r.node->ia[1] = reduce;
    r.node->ia[2] = include_self != 0;
    const bool values = reduce != NB_SCATTER_SUM && reduce != NB_SCATTER_MEAN;  /* the formula reads x, src, result */
    st = nb_ag_save_input(&r, 0, index);
    if (st == NB_OK && values) st = nb_ag_save_input(&r, 1, x);
    if (st == NB_OK && values) st = nb_ag_save_input(&r, 2, src);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_scatter_reduce(x, dim, index, src, reduce, include_self, dst, &y);
    if (st == NB_OK && values) st = nb_ag_save_output(&r, 3, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}
