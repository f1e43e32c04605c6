/* copy.c: copy_ (broadcast + dtype conversion + device transfer), to, item,
 * copy_to_host. Strided and converting copies run on the tensors' device (the
 * backend's copy slot); a transfer between host and device moves dense bytes
 * and leaves the layout and the conversion to the device. */
#include "internal.h"
#include "runtime.h"
#include "../cpu/kernels.h"

#include <string.h>

/* Strides that broadcast src (shape/strides) to dst_shape, or an error. */
static nb_status broadcast_strides(const char* op, const nb_tensor* src, const int64_t* dst_shape,
                                   int32_t dst_ndim, int64_t* strides) {
    if (src->ndim > dst_ndim) goto mismatch;
    for (int32_t i = 0; i < dst_ndim; i++) {
        int32_t j = i - (dst_ndim - src->ndim);
        if (j < 0) { strides[i] = 0; continue; }
        if (src->shape[j] == dst_shape[i]) strides[i] = src->strides[j];
        else if (src->shape[j] == 1) strides[i] = 0;
        else goto mismatch;
    }
    return NB_OK;
mismatch:
    return nb_error(NB_ERR_SHAPE, "%s: source shape %s cannot be broadcast to destination shape %s",
                    op, nb_shape_str(src->shape, src->ndim), nb_shape_str(dst_shape, dst_ndim));
}

/* A copy within one device (not the CPU) through its backend's copy slot, queued on the current stream. */
static nb_status device_copy(const char* op, nb_tensor* dst, const nb_tensor* src, const int64_t* src_strides) {
    const int32_t dev = dst->storage->device_type, index = dst->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dev, NB_FAMILY_COPY, &b);
    if (st != NB_OK) return st;
    nb_bk_copy plan;
    plan.dst_dtype = dst->dtype, plan.src_dtype = src->dtype, plan.ndim = dst->ndim;
    plan.dst = nb_tensor_data(dst), plan.src = nb_tensor_data(src);
    memcpy(plan.shape, dst->shape, sizeof(int64_t) * (size_t)dst->ndim);
    memcpy(plan.dst_strides, dst->strides, sizeof(int64_t) * (size_t)dst->ndim);
    memcpy(plan.src_strides, src_strides, sizeof(int64_t) * (size_t)dst->ndim);
    st = b->copy_strided(index, &plan, nb_stream_current_of(dev, index)->native);
    return st == NB_OK ? NB_OK : nb_error(st, "%s: %s copy failed: %s", op, b->name, b->last_error());
}

nb_status nb_copy_into(const char* op, nb_tensor* dst, const nb_tensor* src) {
    int64_t src_strides[NB_MAX_DIMS];
    nb_status st = broadcast_strides(op, src, dst->shape, dst->ndim, src_strides);
    if (st != NB_OK || dst->numel == 0) return st;
    for (int32_t i = 0; i < dst->ndim; i++)
        if (dst->strides[i] == 0 && dst->shape[i] > 1)
            return nb_error(NB_ERR_INVALID_ARGUMENT,
                            "%s: more than one element of the written-to tensor (shape %s, strides %s) "
                            "refers to a single memory location; clone() it first",
                            op, nb_shape_str(dst->shape, dst->ndim), nb_shape_str(dst->strides, dst->ndim));
    if (nb_tensors_overlap(dst, src)) {  /* read everything before writing anything */
        nb_tensor* tmp;
        if ((st = nb_tensor_new(op, src->shape, src->ndim, src->dtype, src->storage->device_type,
                                src->storage->device_index, &tmp)) != NB_OK) return st;
        st = nb_copy_into(op, tmp, src);
        if (st == NB_OK) st = nb_copy_into(op, dst, tmp);
        nb_tensor_release(tmp);
        return st;
    }
    const int32_t sdev = src->storage->device_type, ddev = dst->storage->device_type;
    if (NB_LIKELY(sdev == NB_CPU && ddev == NB_CPU)) {  /* the CPU backend's copy slot, called directly */
        nb_cpu_copy(nb_tensor_data(dst), dst->strides, dst->dtype, nb_tensor_data(src), src_strides,
                    src->dtype, dst->shape, dst->ndim);
        return NB_OK;
    }
    if (sdev == ddev && src->storage->device_index == dst->storage->device_index)
        return device_copy(op, dst, src, src_strides);
    /* A transfer: same-dtype dense copies go straight through the backend. */
    if (src->contiguous && src->numel == dst->numel && dst->contiguous && src->dtype == dst->dtype) {
        const nb_backend* b = nb_backend_of(sdev == NB_CPU ? ddev : sdev);
        st = b->copy(nb_tensor_data(dst), ddev, dst->storage->device_index, nb_tensor_data(src), sdev,
                    src->storage->device_index, dst->numel * nb_dtype_sizes[dst->dtype]);
        return st == NB_OK ? NB_OK : nb_error(st, "%s: %s copy failed: %s", op, b->name, b->last_error());
    }
    /* Otherwise the bytes travel dense in the source dtype (src's own shape, so a
     * broadcast stays small) and the destination's device lays them out. */
    nb_tensor* dense = NULL;
    nb_tensor* moved = NULL;
    st = src->contiguous ? (nb_tensor_retain((nb_tensor*)src), dense = (nb_tensor*)src, NB_OK)
                         : nb_tensor_new(op, src->shape, src->ndim, src->dtype, sdev, src->storage->device_index,
                                         &dense);
    if (st == NB_OK && dense != src) st = nb_copy_into(op, dense, src);
    if (st == NB_OK)
        st = nb_tensor_new(op, src->shape, src->ndim, src->dtype, ddev, dst->storage->device_index, &moved);
    if (st == NB_OK) st = nb_copy_into(op, moved, dense);  /* dense, same dtype: the transfer above */
    if (st == NB_OK) st = nb_copy_into(op, dst, moved);    /* same device */
    nb_tensor_release(moved);
    nb_tensor_release(dense);
    return st;
}

nb_status nbi_tensor_copy_(nb_tensor* dst, const nb_tensor* src) {
    static const char* op = "copy_";
    NB_CHECK_TENSOR(op, dst);
    NB_CHECK_TENSOR(op, src);
    NB_CHECK_WRITABLE(op, dst);
    nb_status st = nb_copy_into(op, dst, src);
    if (st == NB_OK) nb_tensor_bump_version(dst);
    return st;
}

nb_status nbi_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index,
                              int32_t copy, nb_tensor** out) {
    static const char* op = "to";
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_OUT(op, out);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    const nb_backend* backend;
    nb_status st = nb_device_resolve(op, device_type, &device_index, &backend);
    if (st != NB_OK) return st;
    if (!copy && dtype == t->dtype && device_type == t->storage->device_type &&
        device_index == t->storage->device_index) {
        nb_tensor_retain((nb_tensor*)t);
        *out = (nb_tensor*)t;
        return NB_OK;
    }
    nb_tensor* r;
    if ((st = nb_tensor_new_like(op, t, dtype, device_type, device_index, &r)) != NB_OK) return st;
    if ((st = nb_copy_into(op, r, t)) != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

/* A stack-held contiguous CPU tensor over caller memory: no allocation, no refcount traffic. */
static void host_view(nb_tensor* t, nb_storage* s, void* data, const nb_tensor* like) {
    memset(s, 0, sizeof *s);
    s->data = data;
    s->device_type = NB_CPU;
    memset(t, 0, sizeof *t);
    t->magic = NB_TENSOR_MAGIC;
    t->dtype = like->dtype;
    t->storage = s;
    t->ndim = like->ndim;
    t->numel = like->numel;
    t->contiguous = 1;
    memcpy(t->shape, like->shape, sizeof(int64_t) * (size_t)like->ndim);
    nb_contiguous_strides(like->shape, like->ndim, t->strides);
}

NB_API nb_status nb_tensor_copy_to_host(const nb_tensor* t, void* dst, int64_t nbytes) {
    static const char* op = "copy_to_host";
    NB_CHECK_TENSOR(op, t);
    int64_t need = t->numel * nb_dtype_sizes[t->dtype];
    if (nbytes != need)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensor of shape %s and dtype %s needs %lld bytes, got %lld",
                        op, nb_shape_str(t->shape, t->ndim), nb_dtype_str(t->dtype), (long long)need,
                        (long long)nbytes);
    if (need == 0) return NB_OK;
    if (dst == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: destination is NULL", op);
    nb_tensor view;
    nb_storage storage;
    host_view(&view, &storage, dst, t);
    return nb_copy_into(op, &view, t);
}

/* Reads a one-element tensor into a host value of dtype `as` (F64 or I64). */
static nb_status item_as(const char* op, const nb_tensor* t, int32_t as, void* out) {
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_OUT(op, out);
    if (t->numel != 1)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: a Tensor with %lld elements cannot be converted to Scalar",
                        op, (long long)t->numel);
    char raw[8];
    const void* src = nb_tensor_data(t);
    if (t->storage->device_type != NB_CPU) {
        const nb_backend* b = nb_backend_of(t->storage->device_type);
        nb_status st = b->copy(raw, NB_CPU, 0, src, t->storage->device_type, t->storage->device_index, nb_dtype_sizes[t->dtype]);
        if (st != NB_OK) return nb_error(st, "%s: copy from %s failed: %s", op, b->name, b->last_error());
        src = raw;
    }
    nb_cpu_convert_fn(t->dtype, as)(out, 1, src, 1, 1);
    return NB_OK;
}

NB_API nb_status nb_tensor_item_double(const nb_tensor* t, double* out) {
    return item_as("item", t, NB_F64, out);
}

NB_API nb_status nb_tensor_item_int(const nb_tensor* t, int64_t* out) {
    return item_as("item", t, NB_I64, out);
}
