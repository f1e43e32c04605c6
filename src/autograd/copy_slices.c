/* copy_slices.c: in-place writes through views (PyTorch's CopySlices).
 *
 * When an in-place op f writes into a view v of a base B, B's values change, so
 * B's history must change: B gets a CopySlices node whose backward takes B's
 * gradient, runs f's backward on the part of it under v, puts the gradient for
 * v's old values back into that part and passes the rest through to B's old
 * history. v then gets a fresh grad_fn: "the view of B's new history". Views of
 * B made earlier are refreshed the same way when they are next used (their
 * version tells that the storage moved on). Geometry is kept relative to B,
 * which must be contiguous. */
#include "autograd.h"

#include <stdlib.h>
#include <string.h>

/* ia layout for both nodes: [kind, nd, shape[nd], strides[nd], offset]; CopySlices
 * keeps the index of dst among f's inputs in fa[0]. */
static void store_geometry(nb_node* n, const nb_tensor* view) {
    const nb_tensor* base = view->base;
    int32_t nd = view->ndim;
    n->ia[0] = NB_VIEW_AS_STRIDED;
    n->ia[1] = nd;
    memcpy(n->ia + 2, view->shape, sizeof(int64_t) * (size_t)nd);
    memcpy(n->ia + 2 + nd, view->strides, sizeof(int64_t) * (size_t)nd);
    n->ia[2 + 2 * nd] = view->offset - base->offset;
}

static nb_status copy_slices_bw(nb_bw* b) {
    nb_node* c = b->node;
    nb_node* f = c->inner;
    int32_t k = (int32_t)c->fa[0];
    const int64_t* g = c->ia + 1; /* nd, shape, strides, offset */
    int32_t nd = (int32_t)g[0];
    /* A fresh contiguous copy of the base's gradient, and the region under the view. */
    nb_tensor* result = bw_add(b, bw_zeros_like_meta(b, &c->out_meta[0]), b->go[0]);
    nb_tensor* region = BW_OP(b, nb_tensor_as_strided(result, g + 1, g + 1 + nd, nd, g[1 + 2 * nd], &bw_r_));
    nb_tensor* fgo = BW_OP(b, nb_tensor_clone(region, &bw_r_)); /* f's gradients must not alias the region */
    if (b->st != NB_OK) return b->st;
    nb_tensor** fgi = calloc((size_t)f->n_inputs, sizeof *fgi);
    if (fgi == NULL) return b->st = nb_error(NB_ERR_OUT_OF_MEMORY, "CopySlices: out of memory");
    nb_bw fb = {.node = f, .go = &fgo, .gi = fgi};
    bw_begin(&fb);
    nb_status st = f->backward(&fb);
    if (st == NB_OK) st = fb.st;
    else if (st == fb.st && fb.msg[0] != '\0') nb_error(st, "%s", fb.msg);
    bw_end(&fb);
    /* The view's old values: their gradient goes back into the region (zero when none). */
    nb_tensor* old = NULL;
    if (st == NB_OK && fgi[k] != NULL) st = nb_ag_conform(f->name, k, fgi[k], &f->in_meta[k], &old);
    if (st == NB_OK) {
        if (old != NULL) st = nb_tensor_copy_(region, old);
        else st = nb_tensor_copy_(region, bw_scalar(b, 0.0));
    }
    nb_tensor_release(old);
    for (int32_t i = 0, j = 1; i < f->n_inputs; i++) {
        if (i == k) continue;
        if (st == NB_OK && fgi[i] != NULL && bw_needs(b, j)) bw_set(b, j, fgi[i]);
        j++;
    }
    for (int32_t i = 0; i < f->n_inputs; i++) nb_tensor_release(fgi[i]);
    free(fgi);
    if (st != NB_OK) return bw_fail(b, st);
    if (bw_needs(b, 0)) bw_set(b, 0, result);
    return b->st;
}

nb_status nb_ag_view_refresh(nb_tensor* view) {
    nb_tensor* base = view->base;
    if (!nb_ag_requires(base) || !base->contiguous) return NB_OK; /* nothing newer to point at */
    nb_node* v = nb_node_new("AsStridedBackward0", nb_ag_view_scatter_backward, 1, 1);
    if (v == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd: out of memory for a graph node");
    nb_status st = nb_ag_gradient_edge(base, &v->next[0]);
    if (st == NB_OK) {
        nb_tensor_meta_of(base, &v->in_meta[0]);
        store_geometry(v, view);
        st = nb_ag_attach(v, view, 0);
    }
    nb_node_release(v);
    if (st == NB_OK) nb_ag_mark_view(view);
    return st;
}

nb_status nb_ag_copy_slices(nb_node* f, int32_t dst_input, nb_tensor* dst) {
    nb_tensor* base = dst->base;
    nb_node* c = nb_node_new("CopySlices", copy_slices_bw, f->n_inputs, 1);
    if (c == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd: out of memory for a graph node");
    nb_status st = NB_OK;
    if (nb_ag_requires(base)) {
        st = nb_ag_gradient_edge(base, &c->next[0]);
        nb_tensor_meta_of(base, &c->in_meta[0]);
    }
    for (int32_t i = 0, j = 1; i < f->n_inputs; i++) { /* f's other inputs become CopySlices' inputs 1.. */
        if (i == dst_input) continue;
        c->next[j] = f->next[i];
        nb_node_retain(c->next[j].node);
        c->in_meta[j++] = f->in_meta[i];
    }
    nb_node_retain(f);
    c->inner = f;
    c->fa[0] = dst_input;
    store_geometry(c, dst);
    if (st == NB_OK) st = nb_ag_attach(c, base, 0);
    nb_node_release(c);
    if (st == NB_OK) st = nb_ag_view_refresh(dst);
    return st;
}
