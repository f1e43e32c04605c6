/* reduce.c: formulas of the reductions. A reduction's gradient is the output
 * gradient put back on the reduced dims (kept as size 1) and broadcast over
 * them. Attributes: ia[0] = ndims (0: all dims), ia[1..] = the dims, fa[0] = the
 * element count per output for means. */
#include "../autograd.h"

/* Marks the reduced dims of an input with ndim dims. */
static void reduced_mask(const int64_t* ia, int32_t ndim, bool* mask) {
    int32_t nd = (int32_t)ia[0];
    for (int32_t d = 0; d < ndim; d++) mask[d] = nd == 0;
    for (int32_t i = 0; i < nd; i++) {
        int64_t d = ia[1 + i] < 0 ? ia[1 + i] + ndim : ia[1 + i];
        if (d >= 0 && d < ndim) mask[d] = true;
    }
}

/* go reshaped to the keepdim shape of the reduction (a no-op with keepdim). */
NB_INTERNAL nb_tensor* bw_keepdim(nb_bw* b, const nb_tensor* go, const nb_tensor_meta* in, const int64_t* ia);
nb_tensor* bw_keepdim(nb_bw* b, const nb_tensor* go, const nb_tensor_meta* in, const int64_t* ia) {
    bool mask[NB_MAX_DIMS];
    reduced_mask(ia, in->ndim, mask);
    int64_t shape[NB_MAX_DIMS];
    for (int32_t d = 0; d < in->ndim; d++) shape[d] = mask[d] ? 1 : in->shape[d];
    return bw_reshape(b, go, shape, in->ndim);
}

/* go broadcast back over the reduced dims of input 0. */
NB_INTERNAL nb_tensor* bw_unreduce(nb_bw* b, const nb_tensor* go);
nb_tensor* bw_unreduce(nb_bw* b, const nb_tensor* go) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    return bw_expand(b, bw_keepdim(b, go, in, b->node->ia), in->shape, in->ndim);
}

/* Stores the dims attribute; returns false when they do not fit (invalid: the op reports it). */
NB_INTERNAL void nb_ag_store_dims(nb_node* n, const int64_t* dims, int32_t ndims);
void nb_ag_store_dims(nb_node* n, const int64_t* dims, int32_t ndims) {
    if (dims == NULL || ndims < 0 || ndims > NB_MAX_DIMS) ndims = 0;
    n->ia[0] = ndims;
    for (int32_t i = 0; i < ndims; i++) n->ia[1 + i] = dims[i];
}

static nb_status sum_bw(nb_bw* b) {
    bw_set(b, 0, bw_unreduce(b, b->go[0]));
    return b->st;
}

nb_status nb_agf_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                     nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "sum", "SumBackward1", sum_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    nb_tensor* y = NULL;
    st = nbi_sum(t, dims, ndims, keepdim, dtype, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

static nb_status mean_bw(nb_bw* b) {
    bw_set(b, 0, bw_muls(b, bw_unreduce(b, b->go[0]), 1.0 / b->node->fa[0]));
    return b->st;
}

nb_status nb_agf_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                      nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "mean", "MeanBackward1", mean_bw, dst, 1, &t, 1);
    if (st != NB_OK) return st;
    nb_ag_store_dims(r.node, dims, ndims);
    nb_tensor* y = NULL;
    st = nbi_mean(t, dims, ndims, keepdim, dtype, dst, &y);
    if (st == NB_OK) r.node->fa[0] = y->numel > 0 ? (double)t->numel / (double)y->numel : 1.0;
    return nb_ag_finish1(&r, st, y, out);
}
