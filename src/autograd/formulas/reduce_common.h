/* reduce_common.h: small functions shared by the formulas of reductions, scans and
 * softmax. Reductions keep their dims as reduce.c does: ia[0] = ndims (0: every
 * dim), ia[1..] = the dims; input 0's metadata gives the shapes. */
#ifndef NABLA_FORMULAS_REDUCE_COMMON_H_
#define NABLA_FORMULAS_REDUCE_COMMON_H_

#include "../autograd.h"

/* Defined in reduce.c. */
NB_INTERNAL nb_tensor* bw_keepdim(nb_bw* b, const nb_tensor* go, const nb_tensor_meta* in, const int64_t* ia);
NB_INTERNAL nb_tensor* bw_unreduce(nb_bw* b, const nb_tensor* go);
NB_INTERNAL void nb_ag_store_dims(nb_node* n, const int64_t* dims, int32_t ndims);

/* t (a reduction's output, or go) reshaped to the keepdim shape of input 0. */
static inline nb_tensor* bw_kd(nb_bw* b, const nb_tensor* t) {
    return bw_keepdim(b, t, &b->node->in_meta[0], b->node->ia);
}

/* Sum over the reduced dims, kept as size 1. */
static inline nb_tensor* bw_sum_reduced(nb_bw* b, const nb_tensor* t) {
    return bw_sum(b, t, b->node->ia + 1, (int32_t)b->node->ia[0], 1);
}

/* Number of elements each output of the reduction combines. */
static inline int64_t bw_reduced_count(const nb_node* n) {
    const nb_tensor_meta* in = &n->in_meta[0];
    int64_t count = 1;
    if (n->ia[0] == 0) {
        for (int32_t d = 0; d < in->ndim; d++) count *= in->shape[d];
        return count;
    }
    for (int32_t i = 0; i < (int32_t)n->ia[0]; i++) {
        int64_t d = n->ia[1 + i] < 0 ? n->ia[1 + i] + in->ndim : n->ia[1 + i];
        if (d >= 0 && d < in->ndim) count *= in->shape[d];
    }
    return count;
}

/* Whether t has an element equal to zero (read back: a data-dependent branch, as
 * PyTorch's formulas for prod and cumprod take); false once b has failed. */
static inline bool bw_has_zero(nb_bw* b, const nb_tensor* t) {
    nb_tensor* z = BW_OP(b, nb_eq(t, bw_scalar(b, 0.0), NULL, &bw_r_));
    nb_tensor* any = BW_OP(b, nb_any(z, NULL, 0, 0, NULL, &bw_r_));
    int64_t v = 0;
    if (b->st == NB_OK) b->st = nb_tensor_item_int(any, &v);
    return b->st == NB_OK && v != 0;
}

/* Ones of t's shape with size 1 along dim, in t's dtype and on its device. */
static inline nb_tensor* bw_ones_slab(nb_bw* b, const nb_tensor* t, int64_t dim) {
    if (b->st != NB_OK) return NULL;
    int64_t shape[NB_MAX_DIMS];
    for (int32_t d = 0; d < t->ndim; d++) shape[d] = d == dim ? 1 : t->shape[d];
    return BW_OP(b, nb_ones(shape, t->ndim, t->dtype, t->storage->device_type, t->storage->device_index, &bw_r_));
}

/* t shifted by one along dim (size n >= 1), a one coming in: [1, t0, ..., t(n-2)]. */
static inline nb_tensor* bw_shift_in_one(nb_bw* b, const nb_tensor* t, int64_t dim, int64_t n) {
    nb_tensor* parts[2] = {bw_ones_slab(b, t, dim), BW_OP(b, nb_tensor_narrow(t, dim, 0, n - 1, &bw_r_))};
    return BW_OP(b, nb_cat((const nb_tensor* const*)parts, 2, dim, NULL, &bw_r_));
}

/* Exclusive cumulative product along dim (size n >= 1): [1, t0, t0 t1, ...]. */
static inline nb_tensor* bw_exclusive_cumprod(nb_bw* b, const nb_tensor* t, int64_t dim, int64_t n) {
    return BW_OP(b, nb_cumprod(bw_shift_in_one(b, t, dim, n), dim, -1, NULL, &bw_r_));
}

/* Cumulative sum from the end along dim: out[i] = sum_{k >= i} t[k]. Off the CPU
 * (where flip has no kernel yet) as sum - cumsum + t, each op on the device. */
static inline nb_tensor* bw_reverse_cumsum(nb_bw* b, const nb_tensor* t, int64_t dim) {
    if (b->st == NB_OK && t->storage->device_type != NB_CPU) {
        nb_tensor* total = bw_sum(b, t, &dim, 1, 1);
        nb_tensor* c = BW_OP(b, nb_cumsum(t, dim, -1, NULL, &bw_r_));
        return bw_add(b, bw_sub(b, total, c), t);
    }
    nb_tensor* f = BW_OP(b, nb_flip(t, &dim, 1, &bw_r_));
    nb_tensor* c = BW_OP(b, nb_cumsum(f, dim, -1, NULL, &bw_r_));
    return BW_OP(b, nb_flip(c, &dim, 1, &bw_r_));
}

#endif /* NABLA_FORMULAS_REDUCE_COMMON_H_ */
