/* embedding_backward.c: embedding_dense_backward, the weight gradient of
 * embedding: grad_weight [V, D] = rows of grad_output [*indices.shape, D]
 * summed into the rows their indices name, in index order; the padding_idx row
 * zero; scale_grad_by_freq divides each term by its index's count. Validated
 * once here; a device with embedding kernels runs the fused path
 * (embedding_fused.c), anything else (the CPU, NABLA_EMBEDDING_FUSED=0) the
 * composition below: index_add of the rows (a scatter that adds in index order
 * on every backend), the counts by another index_add, the padding row masked
 * by a comparison with an arange, all on the operands' device. */
#include "composed.h"
#include "embedding_fused.h"
#include "nn_common.h"

#include "../autograd/dispatch.h"

static nb_tensor* cx_index_add(nb_cx* e, const nb_tensor* z, const nb_tensor* i, const nb_tensor* src) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_index_add(z, 0, i, src, 1.0, NULL, &r);
    return cx_keep(e, st, r);
}

/* value over shape, in like's dtype on its device. */
static nb_tensor* cx_full_on(nb_cx* e, const int64_t* shape, int32_t ndim, double value, const nb_tensor* like) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st =
        nb_full(shape, ndim, value, like->dtype, like->storage->device_type, like->storage->device_index, &r);
    return cx_keep(e, st, r);
}

static nb_tensor* cx_index_select(nb_cx* e, const nb_tensor* x, const nb_tensor* i) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_index_select(x, 0, i, &r);
    return cx_keep(e, st, r);
}

static nb_status composed(const nb_tensor* go, const nb_tensor* indices, int64_t V, int64_t pad, bool scale,
                          nb_tensor** out) {
    nb_cx e = NB_CX_INIT;
    const int64_t D = go->shape[go->ndim - 1];
    const int64_t rows_shape[2] = {-1, D}, flat_shape[1] = {-1}, col_shape[2] = {-1, 1}, w_shape[2] = {V, D};
    nb_tensor* g = cx_reshape(&e, go, rows_shape, 2);
    nb_tensor* i = cx_reshape(&e, indices, flat_shape, 1);
    if (scale) { /* each term times 1 / (its index's count) */
        const int64_t P = indices->numel;
        nb_tensor* counts = cx_index_add(&e, cx_full_on(&e, &V, 1, 0, go), i, cx_full_on(&e, &P, 1, 1, go));
        nb_tensor* inv = cx_unary(&e, nb_reciprocal, counts);
        g = cx_mul(&e, g, cx_reshape(&e, cx_index_select(&e, inv, i), col_shape, 2));
    }
    nb_tensor* gw = cx_index_add(&e, cx_full_on(&e, w_shape, 2, 0, go), i, g);
    if (pad >= 0) {
        nb_tensor* keep = cx_cast(&e, cx_ne(&e, cx_arange_on(&e, V, go), cx_iscalar(&e, pad)), go->dtype);
        gw = cx_mul(&e, gw, cx_reshape(&e, keep, col_shape, 2));
    }
    if (e.st == NB_OK) nb_tensor_retain(*out = gw);
    const nb_status st = e.st;
    nb_cx_release(&e);
    return st;
}

nb_status nbi_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights,
                                       int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst,
                                       nb_tensor** out) {
    static const char* op = "embedding_dense_backward";
    nb_status st;
    int32_t kd;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK ||
        (st = nn_check_handle(op, "grad_output", grad_output, false)) != NB_OK ||
        (st = nn_check_handle(op, "indices", indices, false)) != NB_OK)
        return st;
    const nb_tensor* placed[3] = {grad_output, indices, dst};
    static const char* const placed_names[3] = {"grad_output", "indices", "out"};
    if ((st = nn_check_same_device(op, placed_names, placed, 3)) != NB_OK) return st;
    if (indices->dtype != NB_I64 && indices->dtype != NB_I32)
        return nb_error(NB_ERR_DTYPE, "%s: expected indices of dtype int64 or int32, but got %s", op,
                        nb_dtype_str(indices->dtype));
    if ((st = nn_check_float(op, grad_output, &kd)) != NB_OK) return st;
    bool ok = grad_output->ndim == indices->ndim + 1;
    for (int32_t d = 0; ok && d < indices->ndim; d++) ok = grad_output->shape[d] == indices->shape[d];
    if (!ok)
        return nb_error(NB_ERR_SHAPE, "%s: expected grad_output of shape %s + [embedding_dim], but got %s", op,
                        nb_shape_str(indices->shape, indices->ndim),
                        nb_shape_str(grad_output->shape, grad_output->ndim));
    if (num_weights < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: num_weights must be non-negative, but got %lld", op,
                        (long long)num_weights);
    if (padding_idx >= num_weights)
        return nb_error(NB_ERR_INDEX, "%s: padding_idx (%lld) must be within num_embeddings (%lld)", op,
                        (long long)padding_idx, (long long)num_weights);
    if (grad_output->storage->device_type == NB_CPU) { /* every index checked before anything is summed */
        nb_tensor* idx = NULL;
        if ((st = nn_contig(indices, NB_I64, &idx)) != NB_OK) return st;
        const int64_t* ip = nb_tensor_data(idx);
        for (int64_t k = 0; k < idx->numel && st == NB_OK; k++)
            if (ip[k] < 0 || ip[k] >= num_weights)
                st = nb_error(NB_ERR_INDEX, "%s: index out of range in self (index %lld, num_embeddings %lld)", op,
                              (long long)ip[k], (long long)num_weights);
        nb_tensor_release(idx);
        if (st != NB_OK) return st;
    }
    nb_tensor* r = NULL;
    st = nn_embedding_fused_takes(grad_output)
             ? nn_embedding_backward_fused(op, grad_output, indices, num_weights, padding_idx,
                                           scale_grad_by_freq != 0, &r)
             : composed(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq != 0, &r);
    return st == NB_OK ? nn_deliver(op, r, grad_output->dtype, dst, out) : st;
}
