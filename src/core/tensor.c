/* tensor.c: storage and tensor objects: lifetime, refcounts, metadata queries. */
#include "internal.h"
#include "../alloc/cpu_allocator.h"

#include <string.h>

static atomic_int_fast64_t live_tensors;
static atomic_int_fast64_t live_storages;

int64_t nb_live_tensor_count(void) { return atomic_load_explicit(&live_tensors, memory_order_relaxed); }
int64_t nb_live_storage_count(void) { return atomic_load_explicit(&live_storages, memory_order_relaxed); }

/* ---- storage ---- */

static nb_storage* storage_struct_new(void) {
    nb_storage* s = nb_cpu_alloc(sizeof *s);
    if (s == NULL) return NULL;
    atomic_init(&s->refcount, 1);
    atomic_init(&s->version, 0);
    s->deleter = NULL;
    s->payload = NULL;
    s->backend = NULL;
    atomic_fetch_add_explicit(&live_storages, 1, memory_order_relaxed);
    return s;
}

nb_status nb_storage_new(const char* op, int64_t nbytes, int32_t device_type, int32_t device_index,
                         nb_storage** out) {
    const nb_backend* backend = nb_backend_of(device_type);
    nb_storage* s = storage_struct_new();
    if (s == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a storage object", op);
    void* data = NULL;
    nb_status st = backend->alloc(device_index, nbytes, &data);
    if (st != NB_OK) {
        nb_cpu_free(s, sizeof *s);
        atomic_fetch_sub_explicit(&live_storages, 1, memory_order_relaxed);
        if (st == NB_ERR_OUT_OF_MEMORY)
            return nb_error(st, "%s: out of memory allocating %lld bytes on %s:%d", op,
                            (long long)nbytes, nb_device_type_name(device_type), (int)device_index);
        return nb_error(st, "%s: %s allocation of %lld bytes failed: %s", op, backend->name,
                        (long long)nbytes, backend->last_error());
    }
    s->data = data;
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index;
    s->backend = backend;
    *out = s;
    return NB_OK;
}

nb_status nb_storage_wrap(const char* op, void* data, int64_t nbytes, int32_t device_type,
                          int32_t device_index, nb_deleter_fn deleter, void* payload, nb_storage** out) {
    nb_storage* s = storage_struct_new();
    if (s == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a storage object", op);
    s->data = data;
    s->nbytes = nbytes;
    s->device_type = device_type;
    s->device_index = device_index;
    s->deleter = deleter;
    s->payload = payload;
    *out = s;
    return NB_OK;
}

void nb_storage_release(nb_storage* s) {
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    if (s->deleter != NULL) s->deleter(s->payload);
    else if (s->backend != NULL) s->backend->free(s->device_index, s->data, s->nbytes);
    nb_cpu_free(s, sizeof *s);
    atomic_fetch_sub_explicit(&live_storages, 1, memory_order_relaxed);
}

/* ---- tensors ---- */

nb_status nb_tensor_make(const char* op, nb_storage* storage, int32_t dtype, const int64_t* shape,
                         const int64_t* strides, int32_t ndim, int64_t offset, nb_tensor** out) {
    nb_tensor* t = nb_cpu_alloc(sizeof *t);
    if (t == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a tensor object", op);
    t->magic = NB_TENSOR_MAGIC;
    t->dtype = dtype;
    atomic_init(&t->refcount, 1);
    atomic_fetch_add_explicit(&storage->refcount, 1, memory_order_relaxed);
    t->storage = storage;
    t->offset = offset;
    t->ndim = ndim;
    int64_t numel = 1;
    for (int32_t i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
        numel *= shape[i];
    }
    t->numel = numel;
    t->contiguous = nb_is_contiguous(shape, strides, ndim);
    atomic_fetch_add_explicit(&live_tensors, 1, memory_order_relaxed);
    *out = t;
    return NB_OK;
}

nb_status nb_tensor_new(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype,
                        int32_t device_type, int32_t device_index, nb_tensor** out) {
    int64_t numel = 1;
    for (int32_t i = 0; i < ndim; i++) numel *= shape[i];
    int64_t nbytes;
    if (__builtin_mul_overflow(numel, nb_dtype_sizes[dtype], &nbytes))
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: %s of %s needs more than 2^63 bytes", op,
                        nb_shape_str(shape, ndim), nb_dtype_str(dtype));
    nb_storage* s;
    nb_status st = nb_storage_new(op, nbytes, device_type, device_index, &s);
    if (st != NB_OK) return st;
    int64_t strides[NB_MAX_DIMS];
    nb_contiguous_strides(shape, ndim, strides);
    st = nb_tensor_make(op, s, dtype, shape, strides, ndim, 0, out);
    nb_storage_release(s);  /* the tensor holds its own reference */
    return st;
}

void nb_tensor_bump_version(nb_tensor* t) {
    atomic_fetch_add_explicit(&t->storage->version, 1, memory_order_relaxed);
}

NB_API void nb_tensor_retain(nb_tensor* t) {
    if (nb_tensor_ok(t)) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
}

NB_API void nb_tensor_release(nb_tensor* t) {
    if (t == NULL || t->magic != NB_TENSOR_MAGIC) return;
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
    t->magic = NB_TENSOR_DEAD;
    nb_storage_release(t->storage);
    nb_cpu_free(t, sizeof *t);
    atomic_fetch_sub_explicit(&live_tensors, 1, memory_order_relaxed);
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
