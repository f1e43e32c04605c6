/* optim_device.c: a list of tensors on a device as one nb_bk_optim plan (see optim_device.h):
 * the backend groups the tensors by dtype and covers each group in a few launches. */
#include "optim_device.h"
#include "../core/runtime.h"

#include <stdlib.h>

nb_status nn_mt_run(const char* op, nb_bk_optim* p, nb_tensor* const* const* v, int n, const bool* written,
                    int64_t count) {
    if (count == 0) return NB_OK;
    const int32_t dt = v[0][0]->storage->device_type, di = v[0][0]->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_OPTIM, &b);
    if (st != NB_OK) return st;
    /* work[k * count + i]: the contiguous tensor the kernels touch; ptr alike; then dtypes and sizes */
    nb_tensor** work = calloc((size_t)(n * count), sizeof *work);
    void** ptr = calloc((size_t)(n * count), sizeof *ptr);
    int32_t* dtypes = malloc(sizeof(int32_t) * (size_t)count);
    int64_t* numel = malloc(sizeof(int64_t) * (size_t)count);
    if (work == NULL || ptr == NULL || dtypes == NULL || numel == NULL) {
        free(work), free(ptr), free(dtypes), free(numel);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    for (int k = 0; k < n && st == NB_OK; k++) {
        p->data[k] = v[k] != NULL ? ptr + k * count : NULL;
        for (int64_t i = 0; v[k] != NULL && i < count && st == NB_OK; i++) {
            nb_tensor* t = v[k][i];
            if (t->contiguous) {
                nb_tensor_retain(t);
                work[k * count + i] = t;
            } else if ((st = nb_tensor_new(op, t->shape, t->ndim, t->dtype, dt, di, &work[k * count + i])) == NB_OK) {
                st = nb_copy_into(op, work[k * count + i], t); /* queued on the device */
            }
            if (st == NB_OK) ptr[k * count + i] = nb_tensor_data(work[k * count + i]);
        }
    }
    for (int k = n; k < NB_BK_OPTIM_OPERANDS; k++) p->data[k] = NULL;
    for (int64_t i = 0; i < count; i++) dtypes[i] = v[0][i]->dtype, numel[i] = v[0][i]->numel;
    if (st == NB_OK) {
        p->name = op, p->count = count, p->dtypes = dtypes, p->numel = numel;
        st = b->optim(di, p, nb_stream_current_of(dt, di)->native);
        if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    }
    for (int k = 0; k < n && st == NB_OK; k++)
        for (int64_t i = 0; v[k] != NULL && written[k] && i < count && st == NB_OK; i++) {
            if (work[k * count + i] != v[k][i]) st = nb_copy_into(op, v[k][i], work[k * count + i]);
            nb_tensor_bump_version(v[k][i]);
        }
    for (int64_t i = 0; i < n * count; i++) nb_tensor_release(work[i]);
    free(work), free(ptr), free(dtypes), free(numel);
    return st;
}
