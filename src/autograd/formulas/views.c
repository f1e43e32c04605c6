/* views.c: formulas of the view, copy and conversion functions of the core. A
 * view's gradient is the output gradient mapped back to the input's geometry:
 * reshaped, permuted back, summed over expanded dims (by the engine), or written
 * through the same view into zeros. */
#include "../autograd.h"

#include <string.h>

/* ---- writing a gradient through a view into zeros (itself differentiable) ---- */

static nb_status apply_view(int32_t kind, const int64_t* a, const nb_tensor* t, nb_tensor** out) {
    switch (kind) {
        case NB_VIEW_SLICE: return nb_tensor_slice(t, a[0], a[1], a[2], a[3], out);
        case NB_VIEW_SELECT: return nb_tensor_select(t, a[0], a[1], out);
        case NB_VIEW_NARROW: return nb_tensor_narrow(t, a[0], a[1], a[2], out);
        default: {
            int32_t nd = (int32_t)a[0];
            return nb_tensor_as_strided(t, a + 1, a + 1 + nd, nd, a[1 + 2 * nd], out);
        }
    }
}

static nb_status view_scatter_raw(const nb_tensor* grad, const nb_tensor_meta* in, int32_t kind, const int64_t* a,
                                  nb_tensor** out) {
    nb_tensor *z = NULL, *v = NULL;
    nb_status st = nb_zeros(in->shape, in->ndim, grad->dtype, in->device_type, in->device_index, &z);
    if (st == NB_OK) st = apply_view(kind, a, z, &v);
    if (st == NB_OK) st = nbi_tensor_copy_(v, grad);
    nb_tensor_release(v);
    if (st == NB_OK) *out = z;
    else nb_tensor_release(z);
    return st;
}

static nb_status view_scatter_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, apply_view((int32_t)b->node->ia[0], b->node->ia + 1, b->go[0], &bw_r_)));
    return b->st;
}

static int32_t view_attr_len(int32_t kind, const int64_t* a) {
    switch (kind) {
        case NB_VIEW_SLICE: return 4;
        case NB_VIEW_SELECT: return 2;
        case NB_VIEW_NARROW: return 3;
        default: return 2 + 2 * (int32_t)a[0];
    }
}

nb_tensor* bw_view_scatter(nb_bw* b, const nb_tensor* grad, const nb_tensor_meta* in, int32_t kind,
                           const int64_t* attrs) {
    if (b->st != NB_OK) return NULL;
    nb_tensor* res = NULL;
    nb_status st;
    if (!nb_ag_disabled && nb_ag_requires(grad)) { /* create_graph: record the scatter */
        nb_ag_rec r;
        st = nb_ag_begin(&r, "view_backward", "ViewScatterBackward0", view_scatter_bw, NULL, 1, &grad, 1);
        if (st == NB_OK) {
            r.node->ia[0] = kind;
            memcpy(r.node->ia + 1, attrs, sizeof(int64_t) * (size_t)view_attr_len(kind, attrs));
            st = view_scatter_raw(grad, in, kind, attrs, &res);
            st = nb_ag_end1(&r, st, res);
        }
    } else {
        st = view_scatter_raw(grad, in, kind, attrs, &res);
    }
    return bw_keep(b, st, res);
}

/* ---- recording a view ---- */

/* Ends a view op's recording: no node when the result is the input itself. */
static nb_status end_view(nb_ag_rec* r, nb_status st, const nb_tensor* t, nb_tensor* v, nb_tensor** out) {
    if (st == NB_OK && v == t) {
        nb_ag_end(r, NB_OK, NULL, 0);
        *out = v;
        return NB_OK;
    }
    st = nb_ag_end1(r, st, v);
    if (st != NB_OK) {
        nb_tensor_release(v);
        return st;
    }
    if (v->storage == t->storage) nb_ag_mark_view(v);
    *out = v;
    return NB_OK;
}

#define BEGIN(op, node, bw)                                                      \
    nb_ag_rec r;                                                                 \
    nb_status st = nb_ag_begin(&r, op, node, bw, NULL, 1, &t, 1);                \
    if (st != NB_OK) return st;                                                  \
    nb_tensor* v = NULL

/* Output gradient reshaped to the input's shape. */
static nb_status reshape_bw(nb_bw* b) {
    const nb_tensor_meta* m = &b->node->in_meta[0];
    bw_set(b, 0, bw_reshape(b, b->go[0], m->shape, m->ndim));
    return b->st;
}

nb_status nb_agf_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    BEGIN("view", "ViewBackward0", reshape_bw);
    st = nbi_tensor_view(t, shape, ndim, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    BEGIN("reshape", "ViewBackward0", reshape_bw);
    st = nbi_tensor_reshape(t, shape, ndim, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out) {
    BEGIN("flatten", "ViewBackward0", reshape_bw);
    st = nbi_tensor_flatten(t, start_dim, end_dim, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    BEGIN("squeeze", "SqueezeBackward0", reshape_bw);
    st = nbi_tensor_squeeze(t, dims, ndims, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out) {
    BEGIN("unsqueeze", "UnsqueezeBackward0", reshape_bw);
    st = nbi_tensor_unsqueeze(t, dim, &v);
    return end_view(&r, st, t, v, out);
}

/* expand: the engine sums the gradient back over the expanded dims. */
static nb_status identity_bw(nb_bw* b) {
    bw_set(b, 0, b->go[0]);
    return b->st;
}

nb_status nb_agf_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    BEGIN("expand", "ExpandBackward0", identity_bw);
    st = nbi_tensor_expand(t, shape, ndim, &v);
    return end_view(&r, st, t, v, out);
}

static nb_status permute_bw(nb_bw* b) {
    int32_t nd = (int32_t)b->node->ia[0];
    int64_t inverse[NB_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) inverse[b->node->ia[1 + i]] = i;
    bw_set(b, 0, BW_OP(b, nb_tensor_permute(b->go[0], inverse, nd, &bw_r_)));
    return b->st;
}

nb_status nb_agf_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out) {
    BEGIN("permute", "PermuteBackward0", permute_bw);
    st = nbi_tensor_permute(t, dims, ndim, &v);
    if (st == NB_OK) { /* dims are valid now: keep them wrapped */
        r.node->ia[0] = ndim;
        for (int32_t i = 0; i < ndim; i++) r.node->ia[1 + i] = dims[i] < 0 ? dims[i] + ndim : dims[i];
    }
    return end_view(&r, st, t, v, out);
}

static nb_status transpose_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_tensor_transpose(b->go[0], b->node->ia[0], b->node->ia[1], &bw_r_)));
    return b->st;
}

nb_status nb_agf_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out) {
    BEGIN("transpose", "TransposeBackward0", transpose_bw);
    r.node->ia[0] = dim0;
    r.node->ia[1] = dim1;
    st = nbi_tensor_transpose(t, dim0, dim1, &v);
    return end_view(&r, st, t, v, out);
}

/* narrow / slice / select / as_strided: scatter into zeros through the same view. */
static nb_status scatter_bw(nb_bw* b) {
    bw_set(b, 0, bw_view_scatter(b, b->go[0], &b->node->in_meta[0], (int32_t)b->node->ia[0], b->node->ia + 1));
    return b->st;
}

nb_status nb_agf_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length, nb_tensor** out) {
    BEGIN("narrow", "SliceBackward0", scatter_bw);
    int64_t* a = r.node->ia;
    a[0] = NB_VIEW_NARROW, a[1] = dim, a[2] = start, a[3] = length;
    st = nbi_tensor_narrow(t, dim, start, length, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step,
                              nb_tensor** out) {
    BEGIN("slice", "SliceBackward0", scatter_bw);
    int64_t* a = r.node->ia;
    a[0] = NB_VIEW_SLICE, a[1] = dim, a[2] = start, a[3] = end, a[4] = step;
    st = nbi_tensor_slice(t, dim, start, end, step, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out) {
    BEGIN("select", "SelectBackward0", scatter_bw);
    int64_t* a = r.node->ia;
    a[0] = NB_VIEW_SELECT, a[1] = dim, a[2] = index;
    st = nbi_tensor_select(t, dim, index, &v);
    return end_view(&r, st, t, v, out);
}

/* as_strided addresses storage: its gradient is defined for inputs that are
 * contiguous (every storage element is one input element, as for fresh results);
 * overlapping outputs (stride 0) accumulate through index_add. */
static nb_status as_strided_bw(nb_bw* b) {
    const nb_tensor_meta* m = &b->node->in_meta[0];
    const int64_t* a = b->node->ia + 1;
    int32_t nd = (int32_t)a[0];
    int64_t numel = 1;
    for (int32_t i = 0; i < m->ndim; i++) numel *= m->shape[i];
    /* storage index of each output element, relative to the input's first element */
    nb_tensor* idx = BW_OP(b, nb_full(NULL, 0, (double)a[1 + 2 * nd], NB_I64, m->device_type, m->device_index,
                                      &bw_r_));
    for (int32_t d = 0; d < nd && b->st == NB_OK; d++) {
        int64_t shape[NB_MAX_DIMS];
        for (int32_t k = 0; k < nd; k++) shape[k] = 1;
        shape[d] = a[1 + d];
        nb_tensor* ar = BW_OP(b, nb_arange(0, (double)a[1 + d], 1, NB_I64, m->device_type, m->device_index, &bw_r_));
        nb_tensor* step = BW_OP(b, nb_scalar(0, a[1 + nd + d], NB_I64, &bw_r_));
        nb_tensor* term = BW_OP(b, nb_mul(bw_reshape(b, ar, shape, nd), step, NULL, &bw_r_));
        idx = bw_add(b, idx, term);
    }
    int64_t flat = -1;
    idx = bw_expand(b, idx, a + 1, nd);
    nb_tensor* idx_flat = bw_reshape(b, idx, &flat, 1);
    nb_tensor* go_flat = bw_reshape(b, b->go[0], &flat, 1);
    nb_tensor* z = BW_OP(b, nb_zeros(&numel, 1, b->go[0]->dtype, m->device_type, m->device_index, &bw_r_));
    nb_tensor* acc = BW_OP(b, nb_index_add(z, 0, idx_flat, go_flat, 1.0, NULL, &bw_r_));
    bw_set(b, 0, bw_reshape(b, acc, m->shape, m->ndim));
    return b->st;
}

nb_status nb_agf_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides, int32_t ndim,
                                   int64_t storage_offset, nb_tensor** out) {
    if (nb_tensor_ok(t) && !t->contiguous)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "as_strided: the gradient is only defined for a contiguous input "
                        "here (got strides %s); call .contiguous() first", nb_shape_str(t->strides, t->ndim));
    BEGIN("as_strided", "AsStridedBackward0", as_strided_bw);
    if (ndim >= 0 && ndim <= NB_MAX_DIMS && shape != NULL && strides != NULL) {
        int64_t* a = r.node->ia + 1;
        r.node->ia[0] = NB_VIEW_AS_STRIDED;
        a[0] = ndim;
        memcpy(a + 1, shape, sizeof(int64_t) * (size_t)ndim);
        memcpy(a + 1 + ndim, strides, sizeof(int64_t) * (size_t)ndim);
        a[1 + 2 * ndim] = (storage_offset < 0 ? t->offset : storage_offset) - t->offset;
    }
    st = nbi_tensor_as_strided(t, shape, strides, ndim, storage_offset, &v);
    return end_view(&r, st, t, v, out);
}

/* ---- copies ---- */

nb_status nb_agf_tensor_contiguous(const nb_tensor* t, nb_tensor** out) {
    BEGIN("contiguous", "CloneBackward0", identity_bw);
    st = nbi_tensor_contiguous(t, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_clone(const nb_tensor* t, nb_tensor** out) {
    BEGIN("clone", "CloneBackward0", identity_bw);
    st = nbi_tensor_clone(t, &v);
    return end_view(&r, st, t, v, out);
}

/* to(): the engine converts the gradient back to the input's dtype and device. */
nb_status nb_agf_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy,
                           nb_tensor** out) {
    BEGIN("to", "ToCopyBackward0", identity_bw);
    st = nbi_tensor_to(t, dtype, device_type, device_index, copy, &v);
    return end_view(&r, st, t, v, out);
}

/* copy_(dst, src): dst's old value gets no gradient; src gets the output's. */
static nb_status copy_bw(nb_bw* b) {
    if (bw_needs(b, 1)) bw_set(b, 1, b->go[0]);
    return b->st;
}

nb_status nb_agf_tensor_copy_(nb_tensor* dst, const nb_tensor* src) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {dst, src};
    nb_status st = nb_ag_begin(&r, "copy_", "CopyBackwards", copy_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    st = nbi_tensor_copy_(dst, src);
    return nb_ag_end(&r, st, &dst, 1);
}

nb_status nb_agf_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index,
                              int32_t copy, int32_t non_blocking, nb_tensor** out) {
    BEGIN("to", "ToCopyBackward0", identity_bw);
    st = nbi_tensor_to_v2(t, dtype, device_type, device_index, copy, non_blocking, &v);
    return end_view(&r, st, t, v, out);
}

nb_status nb_agf_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {dst, src};
    nb_status st = nb_ag_begin(&r, "copy_", "CopyBackwards", copy_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    st = nbi_tensor_copy_v2_(dst, src, non_blocking);
    return nb_ag_end(&r, st, &dst, 1);
}
