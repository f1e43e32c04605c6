/* elementwise.c: one validated path shared by every elementwise op (see elementwise.h). */
#include "elementwise.h"
#include "runtime.h"

#include <string.h>

static const char* const tensor_names[NB_LOOP_MAX_OPS] = {"a", "b", "c", "d"};

nb_status nb_broadcast_shapes(const char* op, const nb_tensor* const* ts, int32_t n, int64_t* shape,
                              int32_t* ndim) {
    if (n > NB_LOOP_MAX_OPS)
        return nb_error(NB_ERR_INTERNAL, "%s: broadcasting supports at most %d tensors, got %d", op, NB_LOOP_MAX_OPS,
                        (int)n);
    int32_t nd = 0;
    for (int32_t i = 0; i < n; i++) nd = ts[i]->ndim > nd ? ts[i]->ndim : nd;
    for (int32_t d = 0; d < nd; d++) shape[d] = 1;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = ts[i];
        for (int32_t j = 0; j < t->ndim; j++) {
            int32_t d = nd - t->ndim + j;
            int64_t s = t->shape[j];
            if (s == shape[d] || s == 1) continue;
            if (shape[d] == 1) {
                shape[d] = s;
                continue;
            }
            int32_t k = 0;  /* the earlier operand that set this size */
            while (k < i && !(ts[k]->ndim > nd - 1 - d && ts[k]->shape[ts[k]->ndim - nd + d] == shape[d])) k++;
            return nb_error(NB_ERR_SHAPE,
                            "%s: the size of tensor %s (%lld) must match the size of tensor %s (%lld) at "
                            "non-singleton dimension %d (shapes %s and %s)",
                            op, tensor_names[k], (long long)shape[d], tensor_names[i], (long long)s, (int)d,
                            nb_shape_str(ts[k]->shape, ts[k]->ndim), nb_shape_str(t->shape, t->ndim));
        }
    }
    *ndim = nd;
    return NB_OK;
}

bool nb_can_cast(int32_t from, int32_t to) {
    if (nb_dtype_is_floating(from) && !nb_dtype_is_floating(to)) return false;
    if (from != NB_BOOL && to == NB_BOOL) return false;
    return true;
}

/* Byte strides that broadcast t (right-aligned) to shape[ndim]. */
static void broadcast_byte_strides(const nb_tensor* t, int32_t ndim, int64_t* out) {
    const int64_t size = nb_dtype_sizes[t->dtype];
    for (int32_t d = 0; d < ndim; d++) {
        int32_t j = d - (ndim - t->ndim);
        out[d] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j] * size;
    }
}

/* dst may be written directly only if no input shares its memory, except as an exact alias. */
bool nb_ew_safe_to_write(const nb_tensor* dst, const nb_tensor* const* in, int32_t n) {
    for (int32_t d = 0; d < dst->ndim; d++)
        if (dst->strides[d] == 0 && dst->shape[d] > 1) return false;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = in[i];
        if (t->storage != dst->storage) continue;
        bool alias = t->offset == dst->offset && t->ndim == dst->ndim && t->dtype == dst->dtype &&
                     memcmp(t->shape, dst->shape, sizeof(int64_t) * (size_t)t->ndim) == 0 &&
                     memcmp(t->strides, dst->strides, sizeof(int64_t) * (size_t)t->ndim) == 0;
        if (!alias) return false;
    }
    return true;
}

static nb_status check_devices(const char* op, const nb_tensor* const* in, int32_t n, const nb_tensor* dst,
                               int32_t* device_type, int32_t* device_index) {
    int32_t dt = -1, di = 0;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = in[i];
        if (t->wrapped_number || (t->ndim == 0 && t->storage->device_type == NB_CPU)) continue;
        if (dt < 0) {
            dt = t->storage->device_type, di = t->storage->device_index;
        } else if (t->storage->device_type != dt || t->storage->device_index != di) {
            return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found %s:%d and %s:%d",
                            op, nb_device_type_name(dt), (int)di, nb_device_type_name(t->storage->device_type),
                            (int)t->storage->device_index);
        }
    }
    if (dt < 0) dt = in[0]->storage->device_type, di = in[0]->storage->device_index;
    if (dst != NULL && (dst->storage->device_type != dt || dst->storage->device_index != di))
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the inputs are on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(dt), (int)di);
    if (dt != NB_CPU && dt != NB_CUDA)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet", op, nb_device_type_name(dt));
    *device_type = dt, *device_index = di;
    return NB_OK;
}

/* PyTorch's out= rules for dst: an input written in place must have the broadcast shape; the
 * result dtype must cast to dst's (or equal it, for ops that say so); then any other dst is
 * resized to the broadcast shape. */
static nb_status check_out(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst, int32_t result,
                           const int64_t* shape, int32_t ndim) {
    const char* name = op->name;
    bool in_place = false;
    for (int32_t i = 0; i < op->nin; i++) in_place |= inputs[i] == dst;
    if (in_place && !nb_same_shape(dst, shape, ndim))
        return nb_error(NB_ERR_SHAPE, "%s: output with shape %s doesn't match the broadcast shape %s", name,
                        nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
    switch (dst->dtype == result ? NB_EW_OUT_CAST : op->out_rule) {
    case NB_EW_OUT_SAME:
        return nb_error(NB_ERR_DTYPE, "%s: Found dtype %s but expected %s", name, nb_dtype_torch_name(dst->dtype),
                        nb_dtype_torch_name(result));
    case NB_EW_OUT_SAME_AS_INPUT:
        return nb_error(NB_ERR_DTYPE, "%s: dtype of out: %s should be same as input: %s", name,
                        nb_dtype_torch_name(dst->dtype), nb_dtype_torch_name(result));
    case NB_EW_OUT_WHERE:
        return nb_error(NB_ERR_DTYPE, "%s: Expected out type to be %s but got %s", name,
                        nb_dtype_torch_name(result), nb_dtype_torch_name(dst->dtype));
    default:
        if (!nb_can_cast(result, dst->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", name,
                            nb_dtype_str(result), nb_dtype_str(dst->dtype));
    }
    return nb_resize_output(name, dst, inputs, op->nin, shape, ndim);
}

nb_status nb_ew_run(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst, nb_ew_ctx* ctx,
                    nb_tensor** out) {
    const char* name = op->name;
    const int32_t n = op->nin;
    if (dst == NULL) NB_CHECK_OUT(name, out);  /* with dst, out may be NULL */
    for (int32_t i = 0; i < n; i++)
        if (NB_UNLIKELY(!nb_tensor_ok(inputs[i]))) return nb_bad_handle(name, tensor_names[i], inputs[i]);
    if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(name, "out", dst);
    if (dst != NULL) NB_CHECK_WRITABLE(name, dst);

    const int32_t first = op->condition_first ? 1 : 0;  /* inputs that take part in promotion */
    if (first && inputs[0]->dtype != NB_BOOL)
        return nb_error(NB_ERR_DTYPE, "%s: expected condition to be a boolean tensor, but got a tensor with dtype %s",
                        name, nb_dtype_str(inputs[0]->dtype));
    int32_t compute = nb_result_type(inputs + first, n - first);
    if (op->ints_to_float && !nb_dtype_is_floating(compute)) compute = nb_default_float();
    const int32_t kernel_dtype = (compute == NB_F16 || compute == NB_BF16) ? NB_F32 : compute;
    nb_loop_fn fn = op->cpu[kernel_dtype];
    if (fn == NULL)
        return nb_error(NB_ERR_DTYPE, "%s: not implemented for '%s'", name, nb_dtype_str(compute));
    const int32_t result = op->result == NB_EW_BOOL ? NB_BOOL : compute;
    const int32_t kernel_out = op->result == NB_EW_BOOL ? NB_BOOL : kernel_dtype;

    int64_t shape[NB_MAX_DIMS];
    int32_t ndim;
    nb_status st = nb_broadcast_shapes(name, inputs, n, shape, &ndim);
    if (st != NB_OK) return st;
    int32_t device_type = NB_CPU, device_index = 0;
    if ((st = check_devices(name, inputs, n, dst, &device_type, &device_index)) != NB_OK) return st;
    if (dst != NULL && (st = check_out(op, inputs, dst, result, shape, ndim)) != NB_OK) return st;
    if (device_type == NB_CUDA)
        return nb_ew_run_device(op, inputs, dst, ctx, compute, shape, ndim, device_index, out);

    /* Temporaries: inputs cast to the kernel dtype, and the kernel's output when it cannot go straight to the target. */
    nb_tensor* casted[NB_LOOP_MAX_OPS] = {NULL};
    const nb_tensor* operand[NB_LOOP_MAX_OPS];
    nb_tensor* target = dst;
    nb_tensor* computed = NULL;
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        operand[i] = inputs[i];
        if (i >= first && inputs[i]->dtype != kernel_dtype) {
            st = nb_tensor_to(inputs[i], kernel_dtype, NB_CPU, 0, 0, &casted[i]);
            operand[i] = casted[i];
        }
    }
    if (st == NB_OK && target == NULL) st = nb_tensor_new(name, shape, ndim, result, device_type, device_index, &target);
    if (st == NB_OK) {
        if (target->dtype == kernel_out && nb_ew_safe_to_write(target, inputs, n)) {
            computed = target;
            nb_tensor_retain(computed);
        } else {
            st = nb_tensor_new(name, shape, ndim, kernel_out, device_type, device_index, &computed);
        }
    }
    if (st == NB_OK) {
        char* base[NB_LOOP_MAX_OPS];
        int64_t strides[NB_LOOP_MAX_OPS][NB_MAX_DIMS];
        base[0] = nb_tensor_data(computed);
        broadcast_byte_strides(computed, ndim, strides[0]);
        for (int32_t i = 0; i < n; i++) {
            base[i + 1] = nb_tensor_data(operand[i]);
            broadcast_byte_strides(operand[i], ndim, strides[i + 1]);
        }
        nb_ew_ctx local = {0};
        if (ctx == NULL) ctx = &local;
        nb_cpu_loop(n + 1, base, strides, shape, ndim, fn, ctx);
        int32_t err = atomic_load(&ctx->error);
        if (err == NB_EW_ZERO_DIVISION)
            st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ZeroDivisionError (integer division by zero)", name);
        else if (computed != target)
            st = nb_copy_into(name, target, computed);
    }
    nb_tensor_release(computed);
    for (int32_t i = 0; i < n; i++) nb_tensor_release(casted[i]);
    return nb_op_finish(st, dst, target, out);
}
