/* shape.c: formulas of cat, stack, flip, roll, repeat, tril and triu. Each
 * gradient rearranges go back (the same op, inverted) or takes the input's part
 * of it (a view); nothing is saved but attributes. */
#include "../autograd.h"

#include <stdlib.h>
#include <string.h>

/* ---- cat: input i gets go narrowed to its slice (extra: each input's size along dim, -1 when skipped) ---- */

static nb_status cat_bw(nb_bw* b) {
    const int64_t* sizes = b->node->extra;
    int64_t dim = b->node->ia[0], start = 0;
    for (int32_t i = 0; i < b->node->n_inputs; i++) {
        if (sizes[i] < 0) { /* a legacy empty 1-D input, skipped by cat */
            if (bw_needs(b, i)) bw_set(b, i, bw_zeros_like_meta(b, &b->node->in_meta[i]));
            continue;
        }
        if (bw_needs(b, i)) bw_set(b, i, BW_OP(b, nb_tensor_narrow(b->go[0], dim, start, sizes[i], &bw_r_)));
        start += sizes[i];
    }
    return b->st;
}

nb_status nb_agf_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (tensors == NULL) return nbi_cat(tensors, n, dim, dst, out);  /* its error; nothing to record */
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "cat", "CatBackward0", cat_bw, dst, n, tensors, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_cat(tensors, n, dim, dst, &y);
    if (st == NB_OK) { /* the inputs are valid now */
        int64_t* sizes = malloc(sizeof(int64_t) * (size_t)n);
        if (sizes == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "cat: out of memory for a graph node");
        int64_t d = dim < 0 ? dim + y->ndim : dim;
        for (int32_t i = 0; sizes != NULL && i < n; i++) {
            const nb_tensor* t = tensors[i];
            /* cat skips a legacy empty 1-D input unless every input is one; then dim may be any
             * value (PyTorch does not wrap it) and only a dim 0 addresses the input's size. */
            bool skipped = t->ndim == 1 && t->shape[0] == 0 && !(y->ndim == 1 && y->numel == 0 && d == 0);
            sizes[i] = skipped ? -1 : t->shape[d];
        }
        r.node->ia[0] = d;
        r.node->extra = sizes;
        r.node->extra_free = free;
    }
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- stack: input i gets go.select(dim, i) ---- */

static nb_status stack_bw(nb_bw* b) {
    for (int32_t i = 0; i < b->node->n_inputs; i++)
        if (bw_needs(b, i)) bw_set(b, i, BW_OP(b, nb_tensor_select(b->go[0], b->node->ia[0], i, &bw_r_)));
    return b->st;
}

nb_status nb_agf_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (tensors == NULL) return nbi_stack(tensors, n, dim, dst, out);  /* its error; nothing to record */
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "stack", "StackBackward0", stack_bw, dst, n, tensors, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_stack(tensors, n, dim, dst, &y);
    if (st == NB_OK) r.node->ia[0] = dim < 0 ? dim + y->ndim : dim;
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- flip / roll: the same op undone (ia: count, then the values) ---- */

static bool store_list(nb_node* n, int32_t at, const int64_t* v, int32_t count) {
    if (count < 0 || count > NB_MAX_DIMS || (count > 0 && v == NULL)) return false;
    n->ia[at] = count;
    if (count > 0) memcpy(n->ia + at + 1, v, sizeof(int64_t) * (size_t)count);
    return true;
}

static nb_status flip_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_flip(b->go[0], b->node->ia + 1, (int32_t)b->node->ia[0], &bw_r_)));
    return b->st;
}

nb_status nb_agf_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "flip", "FlipBackward0", flip_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_flip(x, dims, ndims, &y); /* validates dims: at most ndim of them once it succeeds */
    if (st == NB_OK) store_list(r.node, 0, dims, ndims);
    return nb_ag_finish1(&r, st, y, out);
}

/* ia: [0] = nshifts, [1..16] = -shifts, [17] = ndims, [18..] = dims */
static nb_status roll_bw(nb_bw* b) {
    const int64_t* a = b->node->ia;
    int32_t nd_at = 1 + NB_MAX_DIMS;
    bw_set(b, 0, BW_OP(b, nb_roll(b->go[0], a + 1, (int32_t)a[0], a + nd_at + 1, (int32_t)a[nd_at], &bw_r_)));
    return b->st;
}

nb_status nb_agf_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims,
                      nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "roll", "RollBackward0", roll_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_roll(x, shifts, nshifts, dims, ndims, &y);
    if (st == NB_OK && !(store_list(r.node, 0, shifts, nshifts) && store_list(r.node, 1 + NB_MAX_DIMS, dims, ndims)))
        st = nb_error(NB_ERR_NOT_IMPLEMENTED, "roll: the gradient supports at most %d shifts and dims", NB_MAX_DIMS);
    for (int32_t i = 0; st == NB_OK && i < nshifts; i++) r.node->ia[1 + i] = -shifts[i];
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- repeat: go summed over the copies (ia: [0] = n, [1..] = repeats) ---- */

/* Splits each dim that was tiled from a size > 1 into [copies, size] and sums the
 * copies; the engine sums the added leading dims and the ones tiled from size 1. */
static nb_status repeat_bw(nb_bw* b) {
    const nb_tensor_meta* in = &b->node->in_meta[0];
    int32_t n = (int32_t)b->node->ia[0], lead = n - in->ndim;
    nb_tensor* g = b->go[0];
    for (int32_t i = 0; i < n; i++)
        if (b->node->ia[1 + i] == 0) {  /* no copy at all: nothing reached the output */
            bw_set(b, 0, bw_zeros_like_meta(b, in));
            return b->st;
        }
    for (int32_t i = lead; i < n && b->st == NB_OK; i++) {
        int64_t reps = b->node->ia[1 + i], size = in->shape[i - lead];
        if (reps <= 1 || size <= 1) continue;
        int64_t shape[NB_MAX_DIMS + 1], di = i;
        for (int32_t d = 0, k = 0; d < n; d++) {
            if (d == i) shape[k++] = reps, shape[k++] = size;
            else shape[k++] = g->shape[d];
        }
        g = bw_sum(b, bw_reshape(b, g, shape, n + 1), &di, 1, 0);
    }
    bw_set(b, 0, g);
    return b->st;
}

nb_status nb_agf_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "repeat", "RepeatBackward0", repeat_bw, NULL, 1, &x, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_repeat(x, repeats, n, &y);
    if (st == NB_OK) store_list(r.node, 0, repeats, n);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- tril / triu: the same triangle of go (ia[0] = diagonal) ---- */

static nb_status tril_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_tril(b->go[0], b->node->ia[0], NULL, &bw_r_)));
    return b->st;
}

static nb_status triu_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_triu(b->go[0], b->node->ia[0], NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "tril", "TrilBackward0", tril_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = diagonal;
    nb_tensor* y = NULL;
    st = nbi_tril(x, diagonal, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "triu", "TriuBackward0", triu_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = diagonal;
    nb_tensor* y = NULL;
    st = nbi_triu(x, diagonal, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
