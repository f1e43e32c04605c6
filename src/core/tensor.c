/* tensor.c: storage and tensor objects: lifetime, refcounts, metadata queries. */
#include "internal.h"
#include "profiler.h"
#include "../alloc/cpu_allocator.h"

#include <string.h>

/* ---- storage ---- */

/* A small CPU storage is one block: this header (padded to keep data 64-byte
 * aligned) followed by the data, so creating a small tensor costs two allocations,
 * not three. Larger data gets its own block, so the header never pushes it into
 * the next size class. */
#define INLINE_HEADER ((sizeof(nb_storage) + 63) & ~(size_t)63)
#define INLINE_MAX_BYTES 1024

static void storage_init(nb_storage* s, void* data, int64_t nbytes, int32_t device_type, int32_t device_index) {
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->data = data;
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index;
    s->backend = NULL;
    s->deleter = NULL;
    s->payload = NULL;
    s->inline_data = false;
    s->inline_nbytes = 0;
    s->readonly = false;
    atomic_init(&s->exports, 0);
    nb_count_live(NB_LIVE_STORAGE, 1);
}

nb_status nb_storage_new(const char* op, int64_t nbytes, int32_t device_type, int32_t device_index,
                         nb_storage** out) {
    if (device_type == NB_CPU && nbytes <= INLINE_MAX_BYTES) {
        nb_storage* s = nb_cpu_alloc(INLINE_HEADER + (size_t)nbytes);
        if (s == NULL)
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %lld bytes on cpu", op,
                            (long long)nbytes);
        storage_init(s, (char*)s + INLINE_HEADER, nbytes, NB_CPU, 0);
        s->inline_data = true;
        s->inline_nbytes = nbytes;
        if (nb_prof_active()) nb_prof_memory(NB_CPU, 0, s->data, nbytes);
        *out = s;
        return NB_OK;
    }
    const nb_backend* backend = nb_backend_of(device_type);
    void* data = NULL;
    nb_status st = backend->alloc(device_index, nbytes, &data);
    if (st != NB_OK) {
        if (st == NB_ERR_OUT_OF_MEMORY)
            return nb_error(st, "%s: out of memory allocating %lld bytes on %s:%d: %s", op, (long long)nbytes,
                            nb_device_type_name(device_type), (int)device_index, backend->last_error());
        return nb_error(st, "%s: %s allocation of %lld bytes failed: %s", op, backend->name,
                        (long long)nbytes, backend->last_error());
    }
    nb_storage* s = nb_cpu_alloc(sizeof *s);
    if (s == NULL) {
        backend->free(device_index, data, nbytes);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a storage object", op);
    }
    storage_init(s, data, nbytes, device_type, device_index);
    s->backend = backend;
    if (nb_prof_active()) nb_prof_memory(device_type, device_index, data, nbytes);
    *out = s;
    return NB_OK;
}

nb_status nb_storage_wrap(const char* op, void* data, int64_t nbytes, int32_t device_type,
                          int32_t device_index, nb_deleter_fn deleter, void* payload, nb_storage** out) {
    nb_storage* s = nb_cpu_alloc(sizeof *s);
    if (s == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a storage object", op);
    storage_init(s, data, nbytes, device_type, device_index);
    s->deleter = deleter;
    s->payload = payload;
    *out = s;
    return NB_OK;
}

/* Drops one reference. The sole owner skips the atomic RMW: nobody else can
 * retain an object that only the caller references. */
static inline bool drop_last(atomic_int_fast64_t* refcount) {
    if (atomic_load_explicit(refcount, memory_order_acquire) == 1) return true;
    return atomic_fetch_sub_explicit(refcount, 1, memory_order_acq_rel) == 1;
}

void nb_storage_release(nb_storage* s) {
    if (!drop_last(&s->refcount)) return;
    nb_count_live(NB_LIVE_STORAGE, -1);
    if (nb_prof_active() && (s->backend != NULL || s->inline_data))
        nb_prof_memory(s->device_type, s->device_index, s->data, -s->nbytes);
    /* An inline storage may have had its data moved out since (share_memory_ sets a deleter; a resize
     * moves it to a block of its own). */
    if (s->deleter != NULL) s->deleter(s->payload);
    else if (s->data != nb_storage_inline_tail(s) && s->backend != NULL)
        s->backend->free(s->device_index, s->data, s->nbytes);
    nb_cpu_free(s, s->inline_data ? INLINE_HEADER + (size_t)s->inline_nbytes : sizeof *s);
}

void* nb_storage_inline_tail(const nb_storage* s) {
    return s->inline_data ? (char*)s + INLINE_HEADER : NULL;
}

nb_status nb_storage_grow(const char* op, nb_storage* s, int64_t nbytes) {
    if (nbytes <= s->nbytes) return NB_OK;
    if (s->deleter != NULL || (s->backend == NULL && !s->inline_data))  /* external or shared: not nabla's to move */
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Trying to resize storage that is not resizable", op);
    if (atomic_load(&s->exports) > 0)  /* a DLPack consumer holds the current address */
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Trying to resize storage that is not resizable (its memory "
                        "is exported through DLPack)", op);
    const nb_backend* backend = nb_backend_of(s->device_type);
    void* data = NULL;
    nb_status st = backend->alloc(s->device_index, nbytes, &data);
    if (st != NB_OK)
        return nb_error(st, "%s: out of memory resizing a storage to %lld bytes on %s:%d", op, (long long)nbytes,
                        nb_device_type_name(s->device_type), (int)s->device_index);
    if (s->nbytes > 0 &&
        (st = backend->copy(data, s->device_type, s->device_index, s->data, s->device_type, s->device_index,
                            s->nbytes)) != NB_OK) {
        backend->free(s->device_index, data, nbytes);
        return nb_error(st, "%s: copying a storage while resizing it failed: %s", op, backend->last_error());
    }
    if (nb_prof_active()) {
        nb_prof_memory(s->device_type, s->device_index, data, nbytes);
        nb_prof_memory(s->device_type, s->device_index, s->data, -s->nbytes);
    }
    if (s->data != nb_storage_inline_tail(s) && s->backend != NULL) s->backend->free(s->device_index, s->data, s->nbytes);
    s->data = data;
    s->nbytes = nbytes;
    s->backend = backend;
    return NB_OK;
}

/* ---- tensors ---- */

/* A tensor over storage; `steal` hands the caller's storage reference to the tensor. The shape
 * has passed nb_check_extent, which gave numel. */
static nb_status tensor_make(const char* op, nb_storage* storage, bool steal, int32_t dtype, const int64_t* shape,
                             const int64_t* strides, int32_t ndim, int64_t offset, int64_t numel, nb_tensor** out) {
    nb_tensor* t = nb_cpu_alloc(sizeof *t);
    if (t == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a tensor object", op);
    t->magic = NB_TENSOR_MAGIC;
    t->dtype = dtype;
    atomic_init(&t->refcount, 1);
    if (!steal) atomic_fetch_add_explicit(&storage->refcount, 1, memory_order_relaxed);
    t->storage = storage;
    t->offset = offset;
    t->ndim = ndim;
    for (int32_t i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
    }
    t->numel = numel;
    t->contiguous = nb_is_contiguous(shape, strides, ndim);
    t->wrapped_number = 0;
    t->ag = NULL;
    t->base = NULL;
    nb_count_live(NB_LIVE_TENSOR, 1);
    *out = t;
    return NB_OK;
}

nb_status nb_tensor_make(const char* op, nb_storage* storage, int32_t dtype, const int64_t* shape,
                         const int64_t* strides, int32_t ndim, int64_t offset, nb_tensor** out) {
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, dtype, &numel);
    if (st != NB_OK) return st;
    return tensor_make(op, storage, false, dtype, shape, strides, ndim, offset, numel, out);
}

nb_status nb_tensor_new(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype,
                        int32_t device_type, int32_t device_index, nb_tensor** out) {
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, dtype, &numel);
    if (st != NB_OK) return st;
    nb_storage* s;
    if ((st = nb_storage_new(op, numel * nb_dtype_sizes[dtype], device_type, device_index, &s)) != NB_OK) return st;
    int64_t strides[NB_MAX_DIMS];
    nb_contiguous_strides(shape, ndim, strides);
    st = tensor_make(op, s, true, dtype, shape, strides, ndim, 0, numel, out);
    if (st != NB_OK) nb_storage_release(s);
    return st;
}

nb_status nb_tensor_new_like(const char* op, const nb_tensor* t, int32_t dtype, int32_t device_type,
                             int32_t device_index, nb_tensor** out) {
    if (t->contiguous || t->numel == 0)
        return nb_tensor_new(op, t->shape, t->ndim, dtype, device_type, device_index, out);
    int64_t strides[NB_MAX_DIMS], numel;
    nb_strides_like(t->shape, t->strides, t->ndim, strides);
    nb_status st = nb_check_extent(op, t->shape, t->ndim, dtype, &numel);  /* dtype may be wider than t's */
    if (st != NB_OK) return st;
    nb_storage* s;
    if ((st = nb_storage_new(op, numel * nb_dtype_sizes[dtype], device_type, device_index, &s)) != NB_OK) return st;
    st = tensor_make(op, s, true, dtype, t->shape, strides, t->ndim, 0, numel, out);
    if (st != NB_OK) nb_storage_release(s);
    return st;
}

nb_status nb_check_dst(const char* op, nb_tensor* dst, const nb_tensor* const* inputs, int32_t n, const int64_t* shape,
                       int32_t ndim, int32_t dtype, int32_t device_type) {
    NB_CHECK_WRITABLE(op, dst);
    if (dst->storage->device_type != device_type)
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(device_type));
    for (int32_t i = 0; i < n; i++)
        if (dst == inputs[i] && !nb_same_shape(dst, shape, ndim))
            return nb_error(NB_ERR_SHAPE, "%s: the out tensor has shape %s but the result has shape %s", op,
                            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
    if (dst->dtype != dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Expected out tensor to have dtype %s, but got %s instead", op,
                        nb_dtype_cpp_name(dtype), nb_dtype_cpp_name(dst->dtype));
    return nb_resize_output(op, dst, inputs, n, shape, ndim);
}

nb_status nb_op_finish(nb_status st, nb_tensor* dst, nb_tensor* target, nb_tensor** out) {
    if (st != NB_OK) {
        if (dst == NULL) nb_tensor_release(target);
        return st;
    }
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        if (out == NULL) return NB_OK;
        nb_tensor_retain(dst);
    }
    *out = target;
    return NB_OK;
}

void nb_tensor_bump_version(nb_tensor* t) {
    atomic_fetch_add_explicit(&t->storage->version, 1, memory_order_relaxed);
}

NB_API void nb_tensor_retain(nb_tensor* t) {
    if (nb_tensor_ok(t)) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
}

NB_API void nb_tensor_release(nb_tensor* t) {
    if (t == NULL) return;
    if (NB_UNLIKELY(t->magic != NB_TENSOR_MAGIC)) {
        nb_bad_release("nb_tensor_release", "tensor", t, t->magic);
        return;
    }
    if (!drop_last(&t->refcount)) return;
    t->magic = NB_TENSOR_DEAD;
    if (t->ag != NULL) nb_ag_meta_free(t->ag);
    nb_tensor_release(t->base);
    nb_storage_release(t->storage);
    nb_cpu_free_handle(t, sizeof *t);
    nb_count_live(NB_LIVE_TENSOR, -1);
}

/* Metadata getters return a sentinel (and set the last error) for a bad handle. */
#define GETTER(type, name, sentinel, expr)                                          \
    NB_API type nb_tensor_##name(const nb_tensor* t) {                             \
        if (NB_UNLIKELY(!nb_tensor_ok(t))) {                                       \
            nb_bad_handle("nb_tensor_" #name, "t", t);                             \
            return sentinel;                                                       \
        }                                                                          \
        return expr;                                                               \
    }

GETTER(int64_t, refcount, -1, (int64_t)atomic_load_explicit(&((nb_tensor*)t)->refcount, memory_order_relaxed))
GETTER(int32_t, ndim, -1, t->ndim)
GETTER(const int64_t*, shape, NULL, t->shape)
GETTER(const int64_t*, strides, NULL, t->strides)
GETTER(int32_t, dtype, -1, t->dtype)
GETTER(int32_t, device_type, -1, t->storage->device_type)
GETTER(int32_t, device_index, -1, t->storage->device_index)
GETTER(int64_t, numel, -1, t->numel)
GETTER(int32_t, is_contiguous, -1, t->contiguous)
GETTER(void*, data_ptr, NULL, nb_tensor_data(t))
GETTER(int64_t, storage_offset, -1, t->offset)
GETTER(int64_t, storage_nbytes, -1, t->storage->nbytes)
GETTER(void*, storage_data_ptr, NULL, t->storage->data)
GETTER(int64_t, version, -1, (int64_t)atomic_load_explicit(&t->storage->version, memory_order_relaxed))
