/* nn_misc.c: formulas of embedding and pad.
 * embedding: the output gradient rows summed into the rows of the weight they
 * came from (index_add), rows at padding_idx left out. pad: constant padding is
 * undone by the opposite pad (a crop, or zeros where the forward cropped); the
 * other modes read input cells several times, so the gradient is summed back
 * dim by dim with index_add over each output position's source index. Both are
 * made of differentiable ops. */
#include "nn.h"

#include <stdlib.h>

/* ---- embedding: saved 0 = indices; ia[0] = padding_idx ---- */

/* [V, 1] of ones with a zero at row pad, on the weight's device in its gradient's dtype
 * (made on the host: it needs no integer kernels on the device). */
static nb_tensor* padding_rows(nb_bw* b, const nb_tensor_meta* wm, int64_t pad) {
    const int64_t shape[2] = {wm->shape[0], 1};
    nb_tensor* host = BW_OP(b, nb_full(shape, 2, 1.0, NB_F64, NB_CPU, 0, &bw_r_));
    if (host == NULL) return NULL;
    ((double*)nb_tensor_data(host))[pad] = 0;
    return BW_OP(b, nb_tensor_to(host, wm->dtype, wm->device_type, wm->device_index, 0, &bw_r_));
}

static nb_status embedding_bw(nb_bw* b) {
    const nb_tensor_meta* wm = &b->node->in_meta[0];
    nb_tensor* idx = bw_saved(b, 0);
    const int64_t dim = wm->shape[1];
    const int64_t rows_shape[2] = {-1, dim}, flat_shape[1] = {-1};
    nb_tensor* g = bw_reshape(b, b->go[0], rows_shape, 2);
    nb_tensor* i = bw_reshape(b, idx, flat_shape, 1);
    nb_tensor_meta zm = *wm;
    zm.dtype = g != NULL ? g->dtype : wm->dtype;
    nb_tensor* z = bw_zeros_like_meta(b, &zm);
    nb_tensor* gw = BW_OP(b, nb_index_add(z, 0, i, g, 1.0, NULL, &bw_r_));
    if (b->node->ia[0] >= 0 && b->st == NB_OK) gw = bw_mul(b, gw, padding_rows(b, &zm, b->node->ia[0]));
    bw_set(b, 0, gw);
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
