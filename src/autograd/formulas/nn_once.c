/* nn_once.c: helpers of the neural-network formulas (see nn.h). */
#include "nn.h"

static nb_status once_bw(nb_bw* b) {
    return b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: trying to differentiate twice a gradient that a backward "
                            "kernel computed (it is only once differentiable)", b->node->name);
}

void bw_once(nb_bw* b, const nb_tensor* const* deps, int32_t ndeps, nb_tensor* const* results, int32_t n) {
    if (b->st != NB_OK || !bw_recording(deps, ndeps)) return;
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, b->node->name, b->node->name, once_bw, NULL, ndeps, deps, n);
    if (st == NB_OK) st = nb_ag_end(&r, NB_OK, results, n);
    if (st != NB_OK) b->st = st;
}

nb_tensor* bw_unsqueeze(nb_bw* b, const nb_tensor* t, int64_t dim) {
    return BW_OP(b, nb_tensor_unsqueeze(t, dim, &bw_r_));
}

nb_tensor* bw_sum_except(nb_bw* b, const nb_tensor* t, int32_t ndim, int32_t keep) {
    if (b->st != NB_OK) return NULL;
    int64_t dims[NB_MAX_DIMS];
    int32_t nd = 0;
    for (int32_t d = 0; d < ndim; d++)
        if (d != keep) dims[nd++] = d;
    if (nd == 0) return BW_OP(b, nb_tensor_view(t, t->shape, t->ndim, &bw_r_));
    return bw_sum(b, t, dims, nd, 0);
}
