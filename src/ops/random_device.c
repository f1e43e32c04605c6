/* random_device.c: the random fills on a device backend with an rng slot (CUDA):
 * one nb_bk_rng plan per call, the target written in place with its strides and
 * inputs (bernoulli's p, dropout's x) read in place, so nothing crosses to or from
 * the host; the backend reproduces the CPU kernels' numbers (random.c). */
#include "random.h"

#include "../core/runtime.h"

#include <string.h>

bool nb_rng_device_has_slot(const nb_tensor* target) {
    if (target->storage->device_type == NB_CPU) return false;
    const nb_backend* b = nb_backend_of(target->storage->device_type);
    return b != NULL && b->rng != NULL;
}

/* in's strides broadcast to ndim dims (trailing dims aligned; size 1 reads stride 0). */
static void broadcast_strides(const nb_tensor* in, int32_t ndim, int64_t* strides) {
    for (int32_t d = 0; d < ndim; d++) {
        const int32_t k = d - (ndim - in->ndim);
        strides[d] = k < 0 || in->shape[k] == 1 ? 0 : in->strides[k];
    }
}

nb_status nb_rng_on_device(const char* op, nb_tensor* target, const nb_rng_dist* d) {
    const int32_t dt = target->storage->device_type, di = target->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_RNG, &b);
    if (st != NB_OK) return st;
    nb_bk_rng p;
    memset(&p, 0, sizeof p);
    p.kind = d->kind;
    p.dtype = target->dtype;
    p.ndim = target->ndim > 0 ? target->ndim : 1;
    for (int32_t k = 0; k < p.ndim; k++) {
        p.shape[k] = target->ndim > 0 ? target->shape[k] : 1;
        p.out_strides[k] = target->ndim > 0 ? target->strides[k] : 0;
    }
    p.out = nb_tensor_data(target);
    if (d->in_t != NULL) {
        p.in = nb_tensor_data(d->in_t);
        p.in_dtype = d->in_t->dtype;
        if (target->ndim > 0) broadcast_strides(d->in_t, target->ndim, p.in_strides);
    }
    p.key[0] = d->ph.k0, p.key[1] = d->ph.k1;
    p.base = d->ph.base;
    p.a = d->a, p.b = d->b;
    p.low = d->low, p.span = d->span;
    st = b->rng(di, &p, nb_stream_current_of(dt, di)->native);
    if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    return st;
}
