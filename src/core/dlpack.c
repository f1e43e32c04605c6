/* dlpack.c: zero-copy exchange through DLPack (include/nabla/dlpack.h), versioned
 * and legacy, and the read-only flag that an import may carry.
 *
 * Export hands out a struct that holds a reference to the tensor: the memory
 * stays alive until the consumer calls the deleter, from any thread. Import
 * wraps the producer's memory in a storage whose last release calls the
 * producer's deleter, from whichever thread drops nabla's last reference. */
#include "internal.h"
#include "nabla/dlpack.h"
#include "../alloc/cpu_allocator.h"

_Static_assert(NB_CPU == kDLCPU && NB_CUDA == kDLCUDA && NB_CUDA_HOST == kDLCUDAHost,
               "nabla's device codes are DLPack's");

static const DLDataType dl_dtypes[NB_NUM_DTYPES] = {
    [NB_F32] = {kDLFloat, 32, 1}, [NB_F64] = {kDLFloat, 64, 1},  [NB_F16] = {kDLFloat, 16, 1},
    [NB_BF16] = {kDLBfloat, 16, 1}, [NB_I8] = {kDLInt, 8, 1},    [NB_I16] = {kDLInt, 16, 1},
    [NB_I32] = {kDLInt, 32, 1},   [NB_I64] = {kDLInt, 64, 1},    [NB_U8] = {kDLUInt, 8, 1},
    [NB_BOOL] = {kDLBool, 8, 1},
};

nb_status nb_readonly_error(const char* op, const char* arg) {
    return nb_error(NB_ERR_INVALID_ARGUMENT,
                    "%s: cannot write into '%s': the tensor is read-only (its memory was imported with "
                    "DLPack's read-only flag); clone() it to get a writable copy", op, arg);
}

/* ---- export ---- */

/* One block per export: the managed struct first (the deleters cast back to it),
 * then the reference that keeps the memory alive (an alias without history) and the
 * geometry it points at. */
typedef struct {
    union {
        DLManagedTensorVersioned versioned;
        DLManagedTensor legacy;
    } m;
    nb_tensor* tensor;
    int64_t shape[NB_MAX_DIMS];
    int64_t strides[NB_MAX_DIMS];
} exported;

static void exported_free(exported* e) {
    atomic_fetch_sub(&e->tensor->storage->exports, 1);
    nb_tensor_release(e->tensor);
    nb_cpu_free(e, sizeof *e);
}
static void delete_versioned(DLManagedTensorVersioned* m) { exported_free((exported*)m); }
static void delete_legacy(DLManagedTensor* m) { exported_free((exported*)m); }

static void fill_dltensor(DLTensor* d, exported* e) {
    nb_tensor* t = e->tensor;
    for (int32_t i = 0; i < t->ndim; i++) {
        e->shape[i] = t->shape[i];
        e->strides[i] = t->strides[i];  /* always given: consumers need not guess */
    }
    d->data = nb_tensor_data(t);  /* the first element, as NumPy and PyTorch export */
    d->byte_offset = 0;
    d->device.device_type = (DLDeviceType)t->storage->device_type;
    d->device.device_id = t->storage->device_index;
    d->ndim = t->ndim;
    d->dtype = dl_dtypes[t->dtype];
    d->shape = e->shape;
    d->strides = e->strides;
}

/* copy: 1 always, 0 never, -1 when the device asks for it. device_type -1: t's own device. */
static nb_status export_tensor(const char* op, const nb_tensor* t, int32_t device_type, int32_t device_index,
                               int32_t copy, bool versioned, void** out) {
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_OUT(op, out);
    if (copy < -1 || copy > 1)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: copy must be 1 (always), 0 (never) or -1 (if needed), got %d",
                        op, (int)copy);
    const nb_storage* s = t->storage;
    nb_status st;
    if (device_type == -1) {
        device_type = s->device_type;
        device_index = s->device_index;
    } else {
        const nb_backend* backend;
        if ((st = nb_device_resolve(op, device_type, &device_index, &backend)) != NB_OK) return st;
    }
    const bool moves = device_type != s->device_type || device_index != s->device_index;
    if (moves && copy == 0)
        return nb_error(NB_ERR_DEVICE, "%s: the tensor is on %s:%d; exporting it to %s:%d needs a copy, which copy=0 forbids",
                        op, nb_device_type_name(s->device_type), (int)s->device_index,
                        nb_device_type_name(device_type), (int)device_index);
    const bool copied = copy == 1 || moves;
    if (s->readonly && !versioned && !copied)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: cannot export a read-only tensor as a legacy DLManagedTensor, which cannot signal "
                        "read-only; use the versioned form (DLPack >= 1.0) or a copy", op);
    /* The capsule keeps the data alive through an alias without autograd state: t itself
     * would bring its history along (and a view its base), and a graph that saved the
     * importer's tensor would then hold itself through the capsule (x.pow_(y) where x is
     * a view and y came back from x's export). */
    nb_tensor *moved = NULL, *src = NULL;
    if (copied && (st = nb_tensor_to(t, t->dtype, device_type, device_index, 1, &moved)) != NB_OK) return st;
    const nb_tensor* from = copied ? moved : t;
    st = nb_tensor_make(op, from->storage, from->dtype, from->shape, from->strides, from->ndim, from->offset, &src);
    nb_tensor_release(moved);
    if (st != NB_OK) return st;
    exported* e = nb_cpu_alloc(sizeof *e);
    if (e == NULL) {
        nb_tensor_release(src);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the DLPack struct", op);
    }
    e->tensor = src;
    atomic_fetch_add(&src->storage->exports, 1);  /* pins the address handed out (resize, share_memory_) */
    if (versioned) {
        DLManagedTensorVersioned* m = &e->m.versioned;
        m->version.major = DLPACK_MAJOR_VERSION;
        m->version.minor = DLPACK_MINOR_VERSION;
        m->manager_ctx = e;
        m->deleter = delete_versioned;
        m->flags = (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0) |
                   (!copied && s->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
        fill_dltensor(&m->dl_tensor, e);
    } else {
        DLManagedTensor* m = &e->m.legacy;
        m->manager_ctx = e;
        m->deleter = delete_legacy;
        fill_dltensor(&m->dl_tensor, e);
    }
    *out = &e->m;
    return NB_OK;
}

NB_API nb_status nb_tensor_to_dlpack_versioned(const nb_tensor* t, int32_t device_type, int32_t device_index,
                                               int32_t copy, void** out) {
    return export_tensor("to_dlpack_versioned", t, device_type, device_index, copy, true, out);
}

NB_API nb_status nb_tensor_to_dlpack(const nb_tensor* t, int32_t device_type, int32_t device_index, int32_t copy,
                                     void** out) {
    return export_tensor("to_dlpack", t, device_type, device_index, copy, false, out);
}

/* ---- import ---- */

static void release_versioned(void* payload) {
    DLManagedTensorVersioned* m = payload;
    if (m->deleter != NULL) m->deleter(m);
}

static void release_legacy(void* payload) {
    DLManagedTensor* m = payload;
    if (m->deleter != NULL) m->deleter(m);
}

static const char* dl_code_name(uint8_t code) {
    static const char* names[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
    return code < sizeof names / sizeof names[0] ? names[code] : "float8/6/4 or unknown";
}

static const char* dl_device_name(int32_t type) {
    switch (type) {
        case kDLOpenCL: return "OpenCL";
        case kDLVulkan: return "Vulkan";
        case kDLMetal: return "Metal";
        case kDLVPI: return "VPI";
        case kDLROCM: return "ROCm";
        case kDLROCMHost: return "ROCm host";
        case kDLExtDev: return "extension device";
        case kDLCUDAManaged: return "CUDA managed";
        case kDLOneAPI: return "oneAPI";
        case kDLWebGPU: return "WebGPU";
        case kDLHexagon: return "Hexagon";
        case kDLMAIA: return "MAIA";
        default: return "unknown";
    }
}

/* The byte offset plus the bytes the geometry reaches must fit int64, as a storage offset and size
 * must. Shapes or strides nb_wrap_external refuses anyway (negative ones, an overflowing extent) are
 * left to it, as is an empty tensor, which reaches nothing past its offset. */
static nb_status dl_check_offset_extent(const char* op, const DLTensor* d, int32_t dtype) {
    int64_t strides[NB_MAX_DIMS];
    for (int32_t i = 0; i < d->ndim; i++)
        if (d->shape[i] <= 0 || (d->strides != NULL && d->strides[i] < 0)) return NB_OK;
    if (d->strides != NULL)
        memcpy(strides, d->strides, sizeof(int64_t) * (size_t)d->ndim);
    else
        nb_contiguous_strides(d->shape, d->ndim, strides);
    int64_t span, nbytes, end;
    if (!nb_extent_end(d->shape, strides, d->ndim, 0, &span) ||
        __builtin_mul_overflow(span, nb_dtype_sizes[dtype], &nbytes))
        return NB_OK;
    if (__builtin_add_overflow(nbytes, (int64_t)d->byte_offset, &end))
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: byte_offset %llu plus the %lld bytes that sizes %s reach does not fit int64", op,
                        (unsigned long long)d->byte_offset, (long long)nbytes, nb_shape_str(d->shape, d->ndim));
    return NB_OK;
}

static nb_status import_dltensor(const char* op, const DLTensor* d, bool readonly, nb_deleter_fn release,
                                 void* payload, nb_tensor** out) {
    NB_CHECK_OUT(op, out);
    int32_t dtype = -1;
    for (int32_t i = 0; i < NB_NUM_DTYPES; i++)
        if (dl_dtypes[i].code == d->dtype.code && dl_dtypes[i].bits == d->dtype.bits &&
            dl_dtypes[i].lanes == d->dtype.lanes)
            dtype = i;
    nb_status st;
    if (dtype < 0)
        return nb_error(NB_ERR_DTYPE, "%s: unsupported DLPack dtype (code %u: %s, %u bits, %u lanes)", op,
                        (unsigned)d->dtype.code, dl_code_name(d->dtype.code), (unsigned)d->dtype.bits,
                        (unsigned)d->dtype.lanes);
    const int32_t device_type = (int32_t)d->device.device_type;
    if (device_type != kDLCPU && device_type != kDLCUDA && device_type != kDLCUDAHost)
        return nb_error(NB_ERR_DEVICE, "%s: unsupported DLPack device type %d (%s); nabla takes cpu, cuda and cuda_host",
                        op, (int)device_type, dl_device_name(device_type));
    if (d->ndim < 0 || d->ndim > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %d dims; nabla supports 0 to %d", op, (int)d->ndim, NB_MAX_DIMS);
    if (d->ndim > 0 && d->shape == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: shape is NULL for %d dims", op, (int)d->ndim);
    /* The producer's numbers are untrusted: the offset must not wrap the pointer around (to before
     * the buffer); nb_wrap_external checks the shape, the strides' reach and the end the same way. */
    if (d->byte_offset > UINTPTR_MAX - (uintptr_t)d->data)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: byte_offset %llu wraps the data pointer %p around the address space",
                        op, (unsigned long long)d->byte_offset, d->data);
    for (int32_t i = 0; d->strides != NULL && i < d->ndim; i++)  /* also without elements: a layout nabla never makes */
        if (d->strides[i] < 0 && d->shape[i] > 1)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative strides are not supported, got %s", op,
                            nb_shape_str(d->strides, d->ndim));
    if (d->byte_offset > (uint64_t)INT64_MAX)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: byte_offset %llu does not fit int64", op,
                        (unsigned long long)d->byte_offset);
    st = dl_check_offset_extent(op, d, dtype);
    if (st != NB_OK) return st;
    char* data = (char*)((uintptr_t)d->data + (uintptr_t)d->byte_offset);
    if ((uintptr_t)data % (uintptr_t)nb_dtype_sizes[dtype] != 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: data at %p is not aligned to its %d-byte elements", op,
                        (void*)data, (int)nb_dtype_sizes[dtype]);
    nb_tensor* t;
    st = nb_wrap_external(op, data, d->shape, d->strides, d->ndim, dtype, device_type,
                                    d->device.device_id, release, payload, &t);
    if (st != NB_OK) return st;
    t->storage->readonly = readonly;
    *out = t;
    return NB_OK;
}

NB_API nb_status nb_tensor_from_dlpack_versioned(void* managed, nb_tensor** out) {
    static const char* op = "from_dlpack";
    if (managed == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the DLManagedTensorVersioned is NULL", op);
    DLManagedTensorVersioned* m = managed;
    if (m->version.major != DLPACK_MAJOR_VERSION)  /* no other field may be read */
        return nb_error(NB_ERR_ABI_VERSION, "%s: DLPack %u.%u is not supported (nabla reads major version %d)", op,
                        (unsigned)m->version.major, (unsigned)m->version.minor, DLPACK_MAJOR_VERSION);
    return import_dltensor(op, &m->dl_tensor, (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0, release_versioned,
                           m, out);
}

NB_API nb_status nb_tensor_from_dlpack(void* managed, nb_tensor** out) {
    static const char* op = "from_dlpack";
    if (managed == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the DLManagedTensor is NULL", op);
    DLManagedTensor* m = managed;
    return import_dltensor(op, &m->dl_tensor, false, release_legacy, m, out);
}

NB_API int32_t nb_tensor_is_readonly(const nb_tensor* t) {
    if (NB_UNLIKELY(!nb_tensor_ok(t))) {
        nb_bad_handle("nb_tensor_is_readonly", "t", t);
        return -1;
    }
    return t->storage->readonly;
}
