/* sort.c: formulas of sort and topk. The values are x's elements at the
 * returned indices, so the gradient scatters go back to them along dim
 * (zeros elsewhere). Saved: 0 = the indices; ia[0] = dim. */
#include "../autograd.h"

static nb_status take_bw(nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    if (in->ndim == 0) {
        bw_set(b, 0, b->go[0]);
        return b->st;
    }
    nb_tensor* z = BW_OP(b, nb_zeros(in->shape, in->ndim, b->go[0]->dtype, in->device_type, in->device_index,
                                     &bw_r_));
    bw_set(b, 0, BW_OP(b, nb_scatter(z, b->node->ia[0], bw_saved(b, 0), b->go[0], z, &bw_r_)));
    return b->st;
}

/* Ends the recording of an op with (values, indices): only the values get history. */
static nb_status finish_pair(nb_ag_rec* r, nb_status st, nb_tensor* v, nb_tensor* i, nb_tensor** values,
                             nb_tensor** indices) {
    if (st == NB_OK) st = nb_ag_save_input(r, 0, i);
    st = nb_ag_end1(r, st, v);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(i);
        return st;
    }
    *values = v;
    *indices = i;
    return NB_OK;
}

nb_status nb_agf_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values,
                      nb_tensor** indices) {
    if (values == NULL || indices == NULL) return nbi_sort(x, dim, descending, stable, values, indices);
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "sort", "SortBackward0", take_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    nb_tensor *v = NULL, *i = NULL;
    st = nbi_sort(x, dim, descending, stable, &v, &i);
    return finish_pair(&r, st, v, i, values, indices);
}

nb_status nb_agf_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted,
                      nb_tensor** values, nb_tensor** indices) {
    if (values == NULL || indices == NULL) return nbi_topk(x, k, dim, largest, sorted, values, indices);
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "topk", "TopkBackward0", take_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    nb_tensor *v = NULL, *i = NULL;
    st = nbi_topk(x, k, dim, largest, sorted, &v, &i);
    return finish_pair(&r, st, v, i, values, indices);
}
