/* nn_misc.c: formulas of embedding, embedding_dense_backward and pad.
 * embedding: embedding_dense_backward (the output gradient rows summed into the
 * rows of the weight they came from, rows at padding_idx left out), whose own
 * gradient gathers the rows back. pad: constant padding is
 * undone by the opposite pad (a crop, or zeros where the forward cropped); the
 * other modes read input cells several times, so the gradient is summed back
 * dim by dim with index_add over each output position's source index. Both are
 * made of differentiable ops. */
#include "nn.h"

#include <stdlib.h>

/* ---- embedding: saved 0 = indices; ia[0] = padding_idx ---- */

static nb_status embedding_bw(nb_bw* b) {
    const nb_tensor_meta* wm = &b->node->in_meta[0];
    nb_tensor* idx = bw_saved(b, 0);
    bw_set(b, 0, BW_OP(b, nb_embedding_dense_backward(b->go[0], idx, wm->shape[0], b->node->ia[0], 0, NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst,
                           nb_tensor** out) {
    const nb_tensor* ins[2] = {weight, indices};
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "embedding", "EmbeddingBackward0", embedding_bw, dst, 2, ins, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = padding_idx;
    st = nb_ag_save_input(&r, 0, indices);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_embedding(weight, indices, padding_idx, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- embedding_dense_backward: saved 0 = indices; ia[0] = padding_idx ---- */

/* The rows of gg at the indices (zero where an index is padding_idx); the frequency scaling is ignored, as
 * PyTorch's embedding_dense_double_backward does. */
static nb_status embedding_dense_bw(nb_bw* b) {
    nb_tensor* idx = bw_saved(b, 0);
    nb_tensor* g = BW_OP(b, nb_embedding(b->go[0], idx, -1, NULL, &bw_r_));
    if (b->node->ia[0] >= 0 && b->st == NB_OK) {
        nb_tensor* pad = BW_OP(b, nb_scalar((double)b->node->ia[0], b->node->ia[0], NB_I64, &bw_r_));
        nb_tensor* keep = BW_OP(b, nb_ne(idx, pad, NULL, &bw_r_));
        g = bw_mul(b, g, bw_unsqueeze(b, keep, idx != NULL ? idx->ndim : 0));
    }
    bw_set(b, 0, g);
    return b->st;
}

nb_status nb_agf_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights,
                                          int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst,
                                          nb_tensor** out) {
    const nb_tensor* ins[2] = {grad_output, indices};
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "embedding_dense_backward", "EmbeddingDenseBackward0", embedding_dense_bw, dst, 2,
                               ins, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = padding_idx;
    st = nb_ag_save_input(&r, 0, indices);
    nb_tensor* y = NULL;
    if (st == NB_OK)
        st = nbi_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- pad: ia[0] = mode, ia[1] = npad, ia[2..] = pad ---- */

/* As the forward's source index: position o of a dim of `size` padded by (before, after). */
static int64_t pad_source(int64_t mode, int64_t o, int64_t size, int64_t before, int64_t after) {
    int64_t i = o - before;
    switch (mode) {
    case NB_PAD_REFLECT:
        if (i < 0) i = -i;
        if (i >= size) i = 2 * (size - 1) - i;
        return i;
    case NB_PAD_REPLICATE: return i < 0 ? 0 : i >= size ? size - 1 : i;
    default: {  /* circular over the part negative pads keep */
        const int64_t start = before < 0 ? -before : 0;
        const int64_t kept = size - start - (after < 0 ? -after : 0);
        int64_t k = (o - (before > 0 ? before : 0)) % kept;
        if (k < 0) k += kept;
        return start + k;
    }
    }
}

static nb_status pad_bw(nb_bw* b) {
    const int64_t* a = b->node->ia;
    const nb_tensor_meta* in = &b->node->in_meta[0];
    const int32_t npad = (int32_t)a[1];
    nb_tensor* g = b->go[0];
    if (a[0] == NB_PAD_CONSTANT) {
        int64_t neg[2 * NB_MAX_DIMS];
        for (int32_t i = 0; i < npad; i++) neg[i] = -a[2 + i];
        bw_set(b, 0, BW_OP(b, nb_pad(g, neg, npad, NB_PAD_CONSTANT, 0.0, NULL, &bw_r_)));
        return b->st;
    }
    for (int32_t k = 0; k < npad / 2 && b->st == NB_OK; k++) {
        const int32_t d = in->ndim - 1 - k;
        const int64_t before = a[2 + 2 * k], after = a[3 + 2 * k], size = in->shape[d], n = g->shape[d];
        int64_t* src = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
        if (src == NULL) return b->st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", b->node->name);
        for (int64_t o = 0; o < n; o++) src[o] = pad_source(a[0], o, size, before, after);
        nb_tensor* idx = BW_OP(b, nb_tensor_from_host(src, &n, 1, NB_I64, in->device_type, in->device_index, &bw_r_));
        free(src);
        int64_t shape[NB_MAX_DIMS];
        for (int32_t j = 0; j < g->ndim; j++) shape[j] = j == d ? size : g->shape[j];
        nb_tensor* z = BW_OP(b, nb_zeros(shape, g->ndim, g->dtype, in->device_type, in->device_index, &bw_r_));
        g = BW_OP(b, nb_index_add(z, d, idx, g, 1.0, NULL, &bw_r_));
        if (g == NULL) break;
    }
    bw_set(b, 0, g);
    return b->st;
}

nb_status nb_agf_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value,
                     nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "pad", mode == NB_PAD_CONSTANT ? "ConstantPadNdBackward0" : "PadBackward0", pad_bw,
                               dst, 1, &input, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_pad(input, pad, npad, mode, value, dst, &y);
    if (st == NB_OK) {  /* valid: npad / 2 <= the input's dims */
        r.node->ia[0] = mode, r.node->ia[1] = npad;
        for (int32_t i = 0; i < npad; i++) r.node->ia[2 + i] = pad[i];
    }
    return nb_ag_finish1(&r, st, y, out);
}
