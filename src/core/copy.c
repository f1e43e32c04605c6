/* copy.c: copy_ (broadcast + dtype conversion + device transfer), to, item,
 * copy_to_host. Device memory is staged through host buffers until the CUDA
 * backend has its own strided kernels. */
#include "internal.h"
#include "../alloc/cpu_allocator.h"
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

/* Elements from the first to one past the last addressed element (strides >= 0). */
static int64_t span_elements(const int64_t* shape, const int64_t* strides, int32_t ndim) {
    int64_t last = 0;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == 0) return 0;
        last += (shape[i] - 1) * strides[i];
    }
    return last + 1;
}

/* Host copy of a device tensor's addressed span; *host points at its first element. */
static nb_status stage_in(const char* op, const nb_tensor* t, int64_t span, void** host) {
    int64_t nbytes = span * nb_dtype_sizes[t->dtype];
    void* buf = nb_cpu_alloc((size_t)nbytes);
    if (buf == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory staging %lld bytes", op, (long long)nbytes);
    const nb_backend* b = nb_backend_of(t->storage->device_type);
    nb_status st = b->copy(buf, NB_CPU, 0, nb_tensor_data(t), t->storage->device_type, t->storage->device_index, nbytes);
    if (st != NB_OK) {
        nb_cpu_free(buf, (size_t)nbytes);
        return nb_error(st, "%s: copy from %s failed: %s", op, b->name, b->last_error());
    }
    *host = buf;
    return NB_OK;
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
    if (NB_LIKELY(sdev == NB_CPU && ddev == NB_CPU)) {
        nb_cpu_copy(nb_tensor_data(dst), dst->strides, dst->dtype, nb_tensor_data(src), src_strides,
                    src->dtype, dst->shape, dst->ndim);
        return NB_OK;
    }
    /* A device is involved: same-dtype dense copies go straight through the backend. */
    const int64_t dsize = nb_dtype_sizes[dst->dtype];
    bool src_dense = src->contiguous && src->numel == dst->numel;
    if (src_dense && dst->contiguous && src->dtype == dst->dtype) {
        const nb_backend* b = nb_backend_of(sdev == NB_CPU ? ddev : sdev);
        st = b->copy(nb_tensor_data(dst), ddev, dst->storage->device_index, nb_tensor_data(src), sdev,
                    src->storage->device_index, dst->numel * dsize);
        return st == NB_OK ? NB_OK : nb_error(st, "%s: %s copy failed: %s", op, b->name, b->last_error());
    }
    /* General case: bring src's span to the host, convert on the host, send back. */
    void* src_host = nb_tensor_data(src);
    int64_t src_span = span_elements(dst->shape, src_strides, dst->ndim);
    if (sdev != NB_CPU && (st = stage_in(op, src, src_span, &src_host)) != NB_OK) return st;
    int64_t dst_span = span_elements(dst->shape, dst->strides, dst->ndim);
    void* dst_host = nb_tensor_data(dst);
    if (ddev != NB_CPU) {
        if (dst->contiguous) {
            dst_host = nb_cpu_alloc((size_t)(dst_span * dsize));
            if (dst_host == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory staging", op);
        } else {
            st = stage_in(op, dst, dst_span, &dst_host);  /* keep the gaps' contents */
        }
    }
    if (st == NB_OK) {
        nb_cpu_copy(dst_host, dst->strides, dst->dtype, src_host, src_strides, src->dtype, dst->shape,
                    dst->ndim);
        if (ddev != NB_CPU) {
            const nb_backend* b = nb_backend_of(ddev);
            st = b->copy(nb_tensor_data(dst), ddev, dst->storage->device_index, dst_host, NB_CPU, 0, dst_span * dsize);
            if (st != NB_OK) st = nb_error(st, "%s: copy to %s failed: %s", op, b->name, b->last_error());
        }
    }
    if (ddev != NB_CPU && dst_host != NULL) nb_cpu_free(dst_host, (size_t)(dst_span * dsize));
    if (sdev != NB_CPU) nb_cpu_free(src_host, (size_t)(src_span * nb_dtype_sizes[src->dtype]));
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
