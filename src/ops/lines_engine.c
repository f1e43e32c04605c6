/* lines_engine.c: the lines family's slot (nb_bk_lines) as the front ends call
 * it, and the CPU table's slot.
 *
 * The front ends (softmax.c, softmax_backward.c, scan.c) prepare their tensors
 * per device and plan once here. On the CPU they hand over contiguous tensors
 * in the compute dtype (float32 / float64; a scan's integer input as it is), so
 * the CPU kernels keep their unit-stride loops; on CUDA they hand over the
 * tensors as they are (strided, float16 / bfloat16 read natively). */
#include "lines.h"
#include "../core/runtime.h"
#include "../cpu/kernels.h"

#include <string.h>

nb_status nb_lines_launch(const char* op, int32_t kind, int32_t dim, const nb_tensor* in, const nb_tensor* aux,
                          nb_tensor* out, int32_t acc_dtype) {
    const int32_t dev = in->storage->device_type, di = in->storage->device_index;
    if (in->numel == 0) return NB_OK;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dev, NB_FAMILY_LINES, &b);
    if (st != NB_OK) return st;
    nb_bk_lines pl;
    memset(&pl, 0, sizeof pl);
    pl.name = op, pl.op = kind, pl.in_dtype = in->dtype, pl.acc_dtype = acc_dtype, pl.out_dtype = out->dtype;
    pl.in = nb_tensor_data(in), pl.aux = aux ? nb_tensor_data(aux) : NULL, pl.out = nb_tensor_data(out);
    if (in->ndim == 0) { /* a 0-dim input is a line of one element */
        pl.ndim = 1, pl.dim = 0, pl.shape[0] = 1;
        pl.in_strides[0] = pl.aux_strides[0] = pl.out_strides[0] = 1;
    } else {
        pl.ndim = in->ndim, pl.dim = dim;
        memcpy(pl.shape, in->shape, sizeof(int64_t) * (size_t)in->ndim);
        memcpy(pl.in_strides, in->strides, sizeof(int64_t) * (size_t)in->ndim);
        if (aux) memcpy(pl.aux_strides, aux->strides, sizeof(int64_t) * (size_t)in->ndim);
        memcpy(pl.out_strides, out->strides, sizeof(int64_t) * (size_t)in->ndim);
    }
    if (dev == NB_CPU) return b->lines(di, &pl, NULL);
    st = b->lines(di, &pl, nb_stream_current_of(dev, di)->native);
    return st == NB_OK ? NB_OK : nb_error(st, "%s: %s", op, b->last_error());
}

nb_status nb_cpu_lines(int32_t device_index, const nb_bk_lines* p, void* stream) {
    (void)device_index, (void)stream;
    const bool backward = p->op == NB_LK_SOFTMAX_BACKWARD || p->op == NB_LK_LOG_SOFTMAX_BACKWARD;
    const bool forward = p->op == NB_LK_SOFTMAX || p->op == NB_LK_LOG_SOFTMAX; /* reads any strides */
    if (p->ndim < 1 || p->ndim > NB_MAX_DIMS || p->dim < 0 || p->dim >= p->ndim ||
        (!forward && !nb_lines_contiguous(p, p->in_strides)) || !nb_lines_contiguous(p, p->out_strides) ||
        (backward && (p->aux == NULL || !nb_lines_contiguous(p, p->aux_strides))))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the CPU lines kernels take contiguous tensors", p->name);
    switch (p->op) {
        case NB_LK_SOFTMAX: case NB_LK_LOG_SOFTMAX: return nb_cpu_softmax_lines(p);
        case NB_LK_SOFTMAX_BACKWARD: case NB_LK_LOG_SOFTMAX_BACKWARD: return nb_cpu_softmax_backward_lines(p);
        case NB_LK_CUMSUM: case NB_LK_CUMPROD: return nb_cpu_scan_lines(p);
        default: return nb_not_implemented_on(p->name, NB_CPU, NB_FAMILY_LINES);
    }
}
