/* embedding_fused.c: the plan of the fused embedding backward (see
 * embedding_fused.h): grad_output made contiguous on the device (a device copy
 * only when it is not), the indices sorted stably with their positions on the
 * device (no host round trip), one slot call writing every row of the result. */
#include "embedding_fused.h"

#include "sort_device.h"
#include "../core/runtime.h"

#include <string.h>

static bool float_dtype(int32_t d) { return d == NB_F32 || d == NB_F64 || d == NB_F16 || d == NB_BF16; }

bool nn_embedding_fused_takes(const nb_tensor* grad_output) {
    const nb_backend* b = nb_backend_of(grad_output->storage->device_type);
    return grad_output->storage->device_type != NB_CPU && b != NULL && b->embedding != NULL && b->sort != NULL &&
           float_dtype(grad_output->dtype) && nn_fused_enabled("NABLA_EMBEDDING_FUSED");
}

nb_status nn_embedding_backward_fused(const char* op, const nb_tensor* grad_output, const nb_tensor* indices,
                                      int64_t V, int64_t padding_idx, bool scale_grad_by_freq, nb_tensor** out) {
    const int32_t dt = grad_output->storage->device_type, di = grad_output->storage->device_index;
    const int64_t D = grad_output->shape[grad_output->ndim - 1], P = indices->numel;
    const int64_t shape[2] = {V, D};
    nb_tensor *g = NULL, *idx = NULL, *sorted = NULL, *order = NULL, *r = NULL;
    nb_status st = nb_tensor_new(op, shape, 2, grad_output->dtype, dt, di, &r);
    if (st == NB_OK) st = nn_contig(grad_output, grad_output->dtype, &g);
    if (st == NB_OK) st = nn_contig(indices, indices->dtype, &idx);
    if (st == NB_OK && P > 0) st = nb_sortd_flat(op, idx, P, &sorted, &order);
    const nb_backend* b = NULL;
    if (st == NB_OK) st = nb_backend_slot(op, dt, NB_FAMILY_EMBEDDING, &b);
    if (st == NB_OK) {
        nb_bk_embedding p;
        memset(&p, 0, sizeof p);
        p.name = op;
        p.dtype = grad_output->dtype, p.index_dtype = indices->dtype;
        p.scale_grad_by_freq = scale_grad_by_freq;
        p.V = V, p.D = D, p.P = P, p.padding_idx = padding_idx;
        p.grad = nb_tensor_data(g);
        p.sorted = P > 0 ? nb_tensor_data(sorted) : NULL;
        p.order = P > 0 ? nb_tensor_data(order) : NULL;
        p.out = nb_tensor_data(r);
        if ((st = b->embedding(di, &p, nb_stream_current_of(dt, di)->native)) != NB_OK)
            st = nb_error(st, "%s: %s", op, b->last_error());
    }
    nn_release(g, idx, sorted, order, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}
