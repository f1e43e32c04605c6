/* elementwise_device.c: elementwise ops on a CUDA device. nb_ew_run has done
 * everything device independent (validation, promotion, broadcasting, the dst
 * checks); this file takes the op's kernel code (NB_BK_*), lays out the
 * operands (element strides, broadcast as stride 0; CPU scalars by value) and
 * queues one launch on the current stream, with no host synchronisation on the
 * fast path (operands already in the compute dtype, a writable target of the
 * result dtype). Integer ops run as int64 (bool as bool); where is its own kernel
 * (NB_BK_WHERE) for every dtype. */
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

static bool is_float(int32_t dtype) { return dtype == NB_F32 || dtype == NB_F64 || dtype == NB_F16 || dtype == NB_BF16; }

/* A host scalar operand by value: as double and int64 (the integer kernels' exact
 * value); for where, its bits in the kernel dtype. */
static void scalar_operand(const nb_tensor* t, bool where, int32_t kernel, nb_bk_ew* args, int32_t i) {
    const void* v = nb_tensor_data(t);
    args->is_scalar[i] = 1;
    if (where) {
        nb_cpu_convert_fn(t->dtype, kernel)(&args->scalar_i64[i], 1, v, 1, 1);
        return;
    }
    nb_cpu_convert_fn(t->dtype, NB_F64)(&args->scalar[i], 1, v, 1, 1);
    nb_cpu_convert_fn(t->dtype, NB_I64)(&args->scalar_i64[i], 1, v, 1, 1);
}

nb_status nb_ew_run_device(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst,
                           const nb_ew_ctx* ctx, int32_t compute, const int64_t* shape, int32_t ndim,
                           int32_t device_index, nb_tensor** out) {
    const char* name = op->name;
    const bool where = op->condition_first;     /* where(cond, a, b): a and b are the values */
    const int32_t n = where ? 2 : op->nin;
    const nb_tensor* const* values = inputs + (where ? 1 : 0);
    const int32_t code = where ? NB_BK_WHERE : op->code;  /* NB_BK_*, set from the manifest */
    const nb_backend* plugin;
    if (code < 0 || n > 2) return nb_not_implemented_on(name, NB_CUDA, NB_FAMILY_ELEMENTWISE);
    nb_status st = nb_backend_slot(name, NB_CUDA, NB_FAMILY_ELEMENTWISE, &plugin);
    if (st != NB_OK) return st;
    if (!where && !is_float(compute) && !nb_bk_has_integer_kernel(code))
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented for '%s' on cuda yet", name,
                        nb_dtype_str(compute));
    /* The kernel's dtype: where copies any; integers compute as int64 (narrower ones are
     * widened here and the result narrowed by the copy into the target), bool as bool. */
    const int32_t kernel = where || is_float(compute) || compute == NB_BOOL ? compute : NB_I64;
    const int32_t result = op->result == NB_EW_BOOL ? NB_BOOL : compute;
    const int32_t kernel_result = op->result == NB_EW_BOOL ? NB_BOOL : kernel;

    nb_bk_ew args;
    memset(&args, 0, sizeof args);
    args.op = code, args.nin = n, args.dtype = kernel, args.ndim = ndim;
    memcpy(args.shape, shape, sizeof(int64_t) * (size_t)ndim);
    if (ctx != NULL) args.alpha = ctx->alpha, args.beta = ctx->beta, args.gamma = ctx->gamma;
    else if (code == NB_BK_ADD || code == NB_BK_SUB) args.alpha = 1.0;

    /* Operands: host scalars by value; device tensors of another dtype are cast first (on the device). */
    nb_tensor* casted[3] = {NULL, NULL, NULL};
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        const nb_tensor* t = values[i];
        if (is_host_scalar(t)) {
            scalar_operand(t, where, kernel, &args, i);
            continue;
        }
        if (t->dtype != kernel) {
            if ((st = nb_tensor_to(t, kernel, NB_CUDA, device_index, 0, &casted[i])) != NB_OK) break;
            t = casted[i];
        }
        args.in[i] = nb_tensor_data(t);
        element_strides(t, ndim, args.in_strides[i]);
    }
    if (st == NB_OK && where) {
        const nb_tensor* c = inputs[0];
        if (c->storage->device_type != NB_CUDA &&
            (st = nb_tensor_to(c, NB_BOOL, NB_CUDA, device_index, 0, &casted[2])) == NB_OK)
            c = casted[2];
        if (st == NB_OK) {
            args.cond = nb_tensor_data(c);
            element_strides(c, ndim, args.cond_strides);
        }
    }

    /* The kernel writes the target when it can, else a temporary copied into it. */
    nb_tensor* target = dst;
    nb_tensor* computed = NULL;
    if (st == NB_OK && target == NULL)
        st = nb_tensor_new(name, shape, ndim, result, NB_CUDA, device_index, &target);
    if (st == NB_OK) {
        if (target->dtype == kernel_result && nb_ew_safe_to_write(target, inputs, op->nin)) {
            computed = target;
            nb_tensor_retain(computed);
        } else {
            st = nb_tensor_new(name, shape, ndim, kernel_result, NB_CUDA, device_index, &computed);
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
    for (int32_t i = 0; i < 3; i++) nb_tensor_release(casted[i]);
    return nb_op_finish(st, dst, target, out);
}
