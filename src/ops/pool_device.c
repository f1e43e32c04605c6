/* pool_device.c: nb_bk_pool plans for the pooling family on a device backend
 * (see pool_device.h). */
#include "pool_device.h"
#include "../core/runtime.h"

#include <string.h>

static void operand(const nb_tensor* t, void** data, int64_t* strides) {
    *data = nb_tensor_data(t);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
}

nb_status nn_pool_launch(const char* op, nb_bk_pool* p, const nb_tensor* x, const nb_tensor* y,
                         const nb_tensor* indices) {
    const int32_t dt = x->storage->device_type, di = x->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_POOL, &b);
    if (st != NB_OK) return st;
    p->name = op;
    p->dtype = x->dtype;
    p->nspatial = x->ndim - 2;
    p->batch[0] = x->shape[0], p->batch[1] = x->shape[1];
    for (int32_t i = 0; i < p->nspatial; i++) p->in_size[i] = x->shape[2 + i], p->out_size[i] = y->shape[2 + i];
    operand(x, &p->x, p->x_strides);
    operand(y, &p->y, p->y_strides);
    if (indices != NULL) operand(indices, &p->indices, p->indices_strides);
    st = b->pool(di, p, nb_stream_current_of(dt, di)->native);
    if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    return st;
}

nb_status nn_pool_empty_like_device(const char* op, const nb_tensor* like, const int64_t* shape, int32_t ndim,
                                    int32_t dtype, nb_tensor** out) {
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    return nb_tensor_new(op, shape, ndim, dtype, like->storage->device_type, like->storage->device_index, out);
}
