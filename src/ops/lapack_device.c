/* lapack_device.c: device tensors' linear algebra through the host (lapack_device.h). */
#include "lapack_device.h"

#include "../autograd/dispatch.h"

#include <string.h>

static bool on_cpu(const nb_tensor* t) { return t == NULL || t->storage->device_type == NB_CPU; }

nb_status nb_host_trip_begin(const char* op, const nb_tensor* a, const nb_tensor* b, nb_host_trip* trip, bool* go) {
    memset(trip, 0, sizeof *trip);
    *go = false;
    NB_CHECK_TENSOR(op, a);
    if (b) NB_CHECK_TENSOR(op, b);
    if (on_cpu(a) && on_cpu(b)) return NB_OK;
    if (b && (a->storage->device_type != b->storage->device_type ||
              a->storage->device_index != b->storage->device_index))
        return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found %s:%d and %s:%d",
                        op, nb_device_type_name(a->storage->device_type), (int)a->storage->device_index,
                        nb_device_type_name(b->storage->device_type), (int)b->storage->device_index);
    trip->device_type = a->storage->device_type;
    trip->device_index = a->storage->device_index;
    const nb_tensor* in[2] = {a, b};
    for (int i = 0; i < 2 && in[i]; i++) {
        nb_status st = nbi_tensor_to(in[i], in[i]->dtype, NB_CPU, 0, 0, &trip->host[i]);
        if (st != NB_OK) {
            nb_tensor_release(trip->host[0]);
            trip->host[0] = NULL;
            return st;
        }
    }
    *go = true;
    return NB_OK;
}

nb_status nb_host_trip_end(nb_host_trip* trip, nb_status st, nb_tensor** const* outs, nb_tensor* const* prev,
                           int nouts) {
    for (int i = 0; i < 2; i++) nb_tensor_release(trip->host[i]);
    if (st != NB_OK) return st;  /* the op wrote nothing */
    for (int i = 0; i < nouts && st == NB_OK; i++) {
        if (!outs[i] || !*outs[i]) continue;
        nb_tensor* moved = NULL;
        st = nbi_tensor_to(*outs[i], (*outs[i])->dtype, trip->device_type, trip->device_index, 0, &moved);
        if (st != NB_OK) break;
        nb_tensor_release(*outs[i]);
        *outs[i] = moved;
    }
    if (st != NB_OK)
        for (int i = 0; i < nouts; i++)
            if (outs[i]) {
                nb_tensor_release(*outs[i]);
                *outs[i] = prev[i];
            }
    return st;
}
