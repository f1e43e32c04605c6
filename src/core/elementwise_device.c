/* elementwise_device.c: elementwise ops on a CUDA device. nb_ew_run has done
 * everything device independent (validation, promotion, broadcasting, the dst
 * checks); this file takes the op's kernel code (NB_BK_*), lays out the
 * operands (element strides, broadcast as stride 0; CPU scalars by value) and
 * queues one launch on the current stream, with no host synchronisation on the
 * fast path (operands already in the compute dtype, a writable target of the
 * result dtype). */
#include "elementwise.h"
#include "runtime.h"
#include "../cpu/kernels.h"

#include <string.h>

/* A CPU 0-dim operand (a Python number or a CPU scalar tensor) goes by value. */
static bool is_host_scalar(const nb_tensor* t) { return t->ndim == 0 && t->storage->device_type == NB_CPU; }

static void element_strides(const nb_tensor* t, int32_t ndim, int64_t* out) {
    for (int32_t d = 0; d < ndim; d++) {
        int32_t j = d - (ndim - t->ndim);
        out[d] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
}

nb_status nb_ew_run_device(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst,
                           const nb_ew_ctx* ctx, int32_t compute, const int64_t* shape, int32_t ndim,
                           int32_t device_index, nb_tensor** out) {
    const char* name = op->name;
    const int32_t n = op->nin;
    const int32_t code = op->code;  /* NB_BK_*, set from the manifest */
    const nb_backend* plugin;
    if (code < 0 || n > 2) return nb_not_implemented_on(name, NB_CUDA, NB_FAMILY_ELEMENTWISE);
    nb_status st = nb_backend_slot(name, NB_CUDA, NB_FAMILY_ELEMENTWISE, &plugin);
    if (st != NB_OK) return st;
    if (compute != NB_F32 && compute != NB_F64 && compute != NB_F16 && compute != NB_BF16)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented for '%s' on cuda yet", name,
                        nb_dtype_str(compute));
    const int32_t result = op->result == NB_EW_BOOL ? NB_BOOL : compute;

    nb_bk_ew args;
    memset(&args, 0, sizeof args);
    args.op = code, args.nin = n, args.dtype = compute, args.ndim = ndim;
    memcpy(args.shape, shape, sizeof(int64_t) * (size_t)ndim);
    if (ctx != NULL) args.alpha = ctx->alpha, args.beta = ctx->beta, args.gamma = ctx->gamma;
    else if (code == NB_BK_ADD || code == NB_BK_SUB) args.alpha = 1.0;

    /* Operands: host scalars by value; device tensors of another dtype are cast first (on the device). */
    nb_tensor* casted[2] = {NULL, NULL};
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        const nb_tensor* t = inputs[i];
        if (is_host_scalar(t)) {
            args.is_scalar[i] = 1;
            nb_cpu_convert_fn(t->dtype, NB_F64)(&args.scalar[i], 1, nb_tensor_data(t), 1, 1);
            continue;
        }
        if (t->dtype != compute) {
            if ((st = nb_tensor_to(t, compute, NB_CUDA, device_index, 0, &casted[i])) != NB_OK) break;
            t = casted[i];
        }
        args.in[i] = nb_tensor_data(t);
        element_strides(t, ndim, args.in_strides[i]);
    }

    /* The kernel writes the target when it can, else a temporary copied into it. */
    nb_tensor* target = dst;
    nb_tensor* computed = NULL;
    if (st == NB_OK && target == NULL)
        st = nb_tensor_new(name, shape, ndim, result, NB_CUDA, device_index, &target);
    if (st == NB_OK) {
        if (target->dtype == result && nb_ew_safe_to_write(target, inputs, n)) {
            computed = target;
            nb_tensor_retain(computed);
        } else {
            st = nb_tensor_new(name, shape, ndim, result, NB_CUDA, device_index, &computed);
        }
    }
    if (st == NB_OK && computed->numel > 0) {
        args.out = nb_tensor_data(computed);
        element_strides(computed, ndim, args.out_strides);
        void* stream = nb_stream_current_of(NB_CUDA, device_index)->native;
        st = plugin->elementwise(device_index, &args, stream);
        if (st != NB_OK) st = nb_error(st, "%s: %s", name, plugin->last_error());
        else if (computed != target) st = nb_copy_into(name, target, computed);
    }
    nb_tensor_release(computed);
    for (int32_t i = 0; i < n; i++) nb_tensor_release(casted[i]);
    return nb_op_finish(st, dst, target, out);
}
