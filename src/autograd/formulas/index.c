/* index.c: formulas of the ops that read or write through indices. A read's
 * gradient writes back through the same indices into zeros, accumulating
 * (gather -> scatter_add, index_select -> index_add, index -> index_put with
 * accumulate); a write's gradient reads through them (scatter -> gather) and
 * clears the overwritten places of the target's gradient. All of these are ops
 * with formulas of their own, so the gradients are differentiable again.
 * Attributes: ia[0] = dim where the op has one. Arguments of BW_OP are
 * computed beforehand, so that a failed step's message is the one reported. */
#include "index.h"

#include <string.h>

/* A 0-dim zero of t's dtype (index_put wants the values in the target's dtype). */
nb_tensor* bw_zero_of(nb_bw* b, const nb_tensor* t) {
    return BW_OP(b, nb_scalar(0.0, 0, t->dtype, &bw_r_));
}

/* g (shaped like index) padded with zeros to `shape` (src may be larger than index). */
nb_tensor* bw_pad_to(nb_bw* b, nb_tensor* g, const nb_tensor_meta* m) {
    for (int32_t d = 0; g != NULL && d < g->ndim && d < m->ndim; d++) {
        if (g->shape[d] == m->shape[d]) continue;
        nb_tensor_meta big;
        nb_tensor_meta_of(g, &big);
        big.shape[d] = m->shape[d];
        const int64_t narrow[3] = {d, 0, g->shape[d]};
        g = bw_view_scatter(b, g, &big, NB_VIEW_NARROW, narrow);
    }
    return g;
}

nb_tensor* bw_gather(nb_bw* b, const nb_tensor* t, int64_t dim, const nb_tensor* index) {
    return BW_OP(b, nb_gather(t, dim, index, &bw_r_));
}

/* ---- gather ---- */

static nb_status gather_bw(nb_bw* b) {
    nb_tensor* index = bw_saved(b, 0);
    nb_tensor* z = bw_zeros_like_meta(b, &b->node->in_meta[0]);
    bw_set(b, 0, BW_OP(b, nb_scatter_add(z, b->node->ia[0], index, b->go[0], NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "gather", "GatherBackward0", gather_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    st = nb_ag_save_input(&r, 0, index);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_gather(x, dim, index, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- scatter, scatter_value, scatter_add: inputs 0 = x, 1 = src / value; saved 0 = index ---- */

/* go with the scattered places cleared: what reaches x through a scatter. */
static nb_tensor* bw_unscattered(nb_bw* b, const nb_tensor* go) {
    nb_tensor* index = bw_saved(b, 0);
    nb_tensor* zero = bw_zero_of(b, go);
    return BW_OP(b, nb_scatter_value(go, b->node->ia[0], index, zero, NULL, &bw_r_));
}

static nb_status scatter_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, bw_unscattered(b, go));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_pad_to(b, bw_gather(b, go, b->node->ia[0], bw_saved(b, 0)),
                                               &b->node->in_meta[1]));
    return b->st;
}

/* The value fills each scattered place once, duplicates or not: its gradient is
 * the sum of go over those places, go minus go with them cleared. */
static nb_status scatter_value_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* cleared = bw_unscattered(b, go);
    if (bw_needs(b, 0)) bw_set(b, 0, cleared);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_sum(b, bw_sub(b, go, cleared), NULL, 0, 0));
    return b->st;
}

static nb_status scatter_add_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, go);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_pad_to(b, bw_gather(b, go, b->node->ia[0], bw_saved(b, 0)),
                                               &b->node->in_meta[1]));
    return b->st;
}

typedef nb_status (*scatter_impl)(const nb_tensor*, int64_t, const nb_tensor*, const nb_tensor*, nb_tensor*,
                                  nb_tensor**);

static nb_status record_scatter(const char* op, const char* node, nb_backward_fn bw, scatter_impl impl,
                                const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                                nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {x, src};
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    st = nb_ag_save_input(&r, 0, index);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = impl(x, dim, index, src, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                         nb_tensor* dst, nb_tensor** out) {
    return record_scatter("scatter", "ScatterBackward0", scatter_bw, nbi_scatter, x, dim, index, src, dst, out);
}

nb_status nb_agf_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value,
                               nb_tensor* dst, nb_tensor** out) {
    return record_scatter("scatter", "ScatterBackward1", scatter_value_bw, nbi_scatter_value, x, dim, index, value,
                          dst, out);
}

nb_status nb_agf_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                             nb_tensor* dst, nb_tensor** out) {
    return record_scatter("scatter_add", "ScatterAddBackward0", scatter_add_bw, nbi_scatter_add, x, dim, index, src,
                          dst, out);
}

/* ---- index_select, index_add: saved 0 = index ---- */

static nb_status index_select_bw(nb_bw* b) {
    nb_tensor* index = bw_saved(b, 0);
    nb_tensor* z = bw_zeros_like_meta(b, &b->node->in_meta[0]);
    bw_set(b, 0, BW_OP(b, nb_index_add(z, b->node->ia[0], index, b->go[0], 1.0, NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "index_select", "IndexSelectBackward0", index_select_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    st = nb_ag_save_input(&r, 0, index);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_index_select(x, dim, index, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* Inputs 0 = x, 1 = source; fa[0] = alpha. */
static nb_status index_add_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, go);
    if (bw_needs(b, 1)) {
        nb_tensor* index = bw_saved(b, 0);
        nb_tensor* g = BW_OP(b, nb_index_select(go, b->node->ia[0], index, &bw_r_));
        bw_set(b, 1, b->node->fa[0] == 1.0 ? g : bw_muls(b, g, b->node->fa[0]));
    }
    return b->st;
}

nb_status nb_agf_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source,
                           double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {x, source};
    nb_status st = nb_ag_begin(&r, "index_add", "IndexAddBackward0", index_add_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = dim;
    r.node->fa[0] = alpha;
    st = nb_ag_save_input(&r, 0, index);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_index_add(x, dim, index, source, alpha, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* take_along_dim is a gather after broadcasting (PyTorch composes it so too): its
 * implementation calls the recorded ops, so the graph holds GatherBackward0. */
nb_status nb_agf_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim,
                                nb_tensor** out) {
    return nbi_take_along_dim(x, indices, dim, has_dim, out);
}

/* ---- masked_fill, masked_select: saved 0 = mask ---- */

/* Inputs 0 = x, 1 = the 0-dim value, which receives the sum of go where the mask holds. */
static nb_status masked_fill_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* mask = bw_saved(b, 0);
    nb_tensor* zero = bw_zero_of(b, go);
    nb_tensor* cleared = BW_OP(b, nb_masked_fill(go, mask, zero, NULL, &bw_r_));
    if (bw_needs(b, 0)) bw_set(b, 0, cleared);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_sum(b, bw_sub(b, go, cleared), NULL, 0, 0));
    return b->st;
}

nb_status nb_agf_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst,
                             nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {x, value};
    nb_status st = nb_ag_begin(&r, "masked_fill", "MaskedFillBackward0", masked_fill_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, mask);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_masked_fill(x, mask, value, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* go (1-D) put back where the mask, broadcast with x to ia[1..ia[0]], holds. */
static nb_status masked_select_bw(nb_bw* b) {
    const int32_t nd = (int32_t)b->node->ia[0];
    const int64_t* shape = b->node->ia + 1;
    nb_tensor_meta m = b->node->in_meta[0];
    m.ndim = nd;
    memcpy(m.shape, shape, sizeof(int64_t) * (size_t)nd);
    nb_tensor* z = bw_zeros_like_meta(b, &m);
    const nb_tensor* mask = bw_expand(b, bw_saved(b, 0), shape, nd);
    bw_set(b, 0, BW_OP(b, nb_index_put(z, &mask, 1, b->go[0], 0, NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "masked_select", "MaskedSelectBackward0", masked_select_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, mask);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_masked_select(x, mask, &y);
    if (st == NB_OK) { /* the shapes broadcast (the op checked it) */
        const int32_t nd = x->ndim > mask->ndim ? x->ndim : mask->ndim;
        r.node->ia[0] = nd;
        for (int32_t d = 0; d < nd; d++) {
            const int32_t i = d - (nd - x->ndim), j = d - (nd - mask->ndim);
            const int64_t sx = i >= 0 ? x->shape[i] : 1, sm = j >= 0 ? mask->shape[j] : 1;
            r.node->ia[1 + d] = sx == 1 ? sm : sx;
        }
    }
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- advanced indexing: index, index_put ---- */

/* The index entries go into saved slots: ia[0] = n, ia[1 + i] = the slot of
 * entry i (-1: a full slice). */
static nb_status save_indices(nb_ag_rec* r, const nb_tensor* const* indices, int32_t n) {
    if (n < 0 || n > NB_MAX_DIMS || (indices == NULL && n > 0)) return NB_OK; /* invalid: the op reports it */
    int32_t slot = 0;
    nb_status st = NB_OK;
    r->node->ia[0] = n;
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        r->node->ia[1 + i] = indices[i] == NULL ? -1 : slot;
        if (indices[i] == NULL) continue;
        if (slot == NB_AG_MAX_SAVED)
            return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: the gradient supports at most %d index tensors, got more",
                            r->op, NB_AG_MAX_SAVED);
        st = nb_ag_save_input(r, slot++, indices[i]);
    }
    return st;
}

/* The saved entries in order (NULL for full slices); false once a step failed. */
static bool saved_indices(nb_bw* b, const nb_tensor** idx, int32_t* n) {
    *n = (int32_t)b->node->ia[0];
    for (int32_t i = 0; i < *n; i++) {
        const int64_t slot = b->node->ia[1 + i];
        idx[i] = slot < 0 ? NULL : bw_saved(b, (int32_t)slot);
    }
    return b->st == NB_OK;
}

static nb_status index_bw(nb_bw* b) {
    const nb_tensor* idx[NB_MAX_DIMS];
    int32_t n;
    if (!saved_indices(b, idx, &n)) return b->st;
    nb_tensor* z = bw_zeros_like_meta(b, &b->node->in_meta[0]);
    bw_set(b, 0, BW_OP(b, nb_index_put(z, idx, n, b->go[0], 1, NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "index", "IndexBackward0", index_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    st = save_indices(&r, indices, n);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_index(x, indices, n, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* Inputs 0 = x, 1 = values (broadcast to the indexing result: the engine sums);
 * ia[NB_MAX_DIMS + 1] = accumulate. */
static nb_status index_put_bw(nb_bw* b) {
    const nb_tensor* idx[NB_MAX_DIMS];
    int32_t n;
    if (!saved_indices(b, idx, &n)) return b->st;
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0) && b->node->ia[NB_MAX_DIMS + 1]) {
        bw_set(b, 0, go);
    } else if (bw_needs(b, 0)) {
        nb_tensor* zero = bw_zero_of(b, go);
        bw_set(b, 0, BW_OP(b, nb_index_put(go, idx, n, zero, 0, NULL, &bw_r_)));
    }
    if (bw_needs(b, 1)) bw_set(b, 1, BW_OP(b, nb_index(go, idx, n, &bw_r_)));
    return b->st;
}

nb_status nb_agf_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values,
                           int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {x, values};
    nb_status st = nb_ag_begin(&r, "index_put", "IndexPutBackward0", index_put_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[NB_MAX_DIMS + 1] = accumulate;
    st = save_indices(&r, indices, n);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_index_put(x, indices, n, values, accumulate, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
