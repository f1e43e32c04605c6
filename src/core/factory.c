/* factory.c: tensor creation: empty, zeros, ones, full, arange, linspace, eye,
 * from host data (copied) and from external memory (wrapped, no copy). */
#include "internal.h"
#include "runtime.h"
#include "../alloc/cpu_allocator.h"
#include "../cpu/kernels.h"

#include <math.h>
#include <string.h>

/* Validates shape, dtype and device, then allocates an uninitialised tensor. */
static nb_status create(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype,
                        int32_t device_type, int32_t device_index, nb_tensor** out) {
    NB_CHECK_OUT(op, out);
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    if (NB_UNLIKELY(!nb_dtype_valid(dtype)))
        return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    const nb_backend* backend;
    if ((st = nb_device_resolve(op, device_type, &device_index, &backend)) != NB_OK) return st;
    return nb_tensor_new(op, shape, ndim, dtype, device_type, device_index, out);
}

/* Fills a fresh contiguous tensor; device tensors are filled on the host and copied. */
static nb_status fill(const char* op, nb_tensor* t, double fvalue, int64_t ivalue, bool is_int) {
    if (t->storage->device_type == NB_CPU) {
        nb_cpu_fill(nb_tensor_data(t), t->dtype, t->numel, fvalue, ivalue, is_int);
        return NB_OK;
    }
    if (nb_backend_of(t->storage->device_type)->fill != NULL) {  /* a fill kernel on the device */
        uint64_t pattern = 0;
        nb_cpu_fill(&pattern, t->dtype, 1, fvalue, ivalue, is_int);
        return nb_device_fill(op, t, &pattern);
    }
    int64_t nbytes = t->numel * nb_dtype_sizes[t->dtype];
    void* host = nb_cpu_alloc((size_t)nbytes);
    if (host == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory staging %lld bytes", op, (long long)nbytes);
    nb_cpu_fill(host, t->dtype, t->numel, fvalue, ivalue, is_int);
    const nb_backend* b = nb_backend_of(t->storage->device_type);
    nb_status st = b->copy(nb_tensor_data(t), t->storage->device_type, t->storage->device_index, host, NB_CPU, 0, nbytes);
    nb_cpu_free(host, (size_t)nbytes);
    return st == NB_OK ? NB_OK : nb_error(st, "%s: copy to %s failed: %s", op, b->name, b->last_error());
}

static nb_status create_filled(const char* op, const int64_t* shape, int32_t ndim, double fvalue,
                               int64_t ivalue, bool is_int, int32_t dtype, int32_t device_type,
                               int32_t device_index, nb_tensor** out) {
    NB_CHECK_OUT(op, out);
    nb_tensor* t;
    nb_status st = create(op, shape, ndim, dtype, device_type, device_index, &t);
    if (st != NB_OK) return st;
    if ((st = fill(op, t, fvalue, ivalue, is_int)) != NB_OK) {
        nb_tensor_release(t);
        return st;
    }
    *out = t;
    return NB_OK;
}

NB_API nb_status nb_empty(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                          int32_t device_index, nb_tensor** out) {
    return create("empty", shape, ndim, dtype, device_type, device_index, out);
}

NB_API nb_status nb_zeros(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                          int32_t device_index, nb_tensor** out) {
    NB_CHECK_OUT("zeros", out);
    nb_tensor* t;
    nb_status st = create("zeros", shape, ndim, dtype, device_type, device_index, &t);
    if (st != NB_OK) return st;
    const nb_backend* b = nb_backend_of(t->storage->device_type);
    if ((st = b->memset(nb_tensor_data(t), t->storage->device_index, 0, t->numel * nb_dtype_sizes[dtype])) != NB_OK) {
        nb_tensor_release(t);
        return nb_error(st, "zeros: %s memset failed: %s", b->name, b->last_error());
    }
    *out = t;
    return NB_OK;
}

NB_API nb_status nb_ones(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                         int32_t device_index, nb_tensor** out) {
    return create_filled("ones", shape, ndim, 1.0, 1, true, dtype, device_type, device_index, out);
}

static nb_status check_fits(const char* op, double fvalue, int64_t ivalue, bool is_int, int32_t dtype) {
    if (!nb_dtype_valid(dtype) || (is_int && dtype == NB_I64) || nb_value_fits(is_int ? (double)ivalue : fvalue, dtype))
        return NB_OK;
    if (is_int)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: value %lld cannot be converted to type %s without overflow",
                        op, (long long)ivalue, nb_dtype_str(dtype));
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: value %g cannot be converted to type %s without overflow", op,
                    fvalue, nb_dtype_str(dtype));
}

NB_API nb_status nb_full(const int64_t* shape, int32_t ndim, double value, int32_t dtype,
                         int32_t device_type, int32_t device_index, nb_tensor** out) {
    nb_status st = check_fits("full", value, 0, false, dtype);
    if (st != NB_OK) return st;
    return create_filled("full", shape, ndim, value, 0, false, dtype, device_type, device_index, out);
}

NB_API nb_status nb_full_int(const int64_t* shape, int32_t ndim, int64_t value, int32_t dtype,
                             int32_t device_type, int32_t device_index, nb_tensor** out) {
    nb_status st = check_fits("full", 0.0, value, true, dtype);
    if (st != NB_OK) return st;
    return create_filled("full", shape, ndim, 0.0, value, true, dtype, device_type, device_index, out);
}

/* Hands out a tensor computed on the host, moved to the (already validated) device. */
static nb_status place(nb_tensor* t, int32_t device_type, int32_t device_index, nb_tensor** out) {
    if (device_type == NB_CPU) {
        *out = t;
        return NB_OK;
    }
    nb_tensor* moved = NULL;
    nb_status st = nb_tensor_to(t, t->dtype, device_type, device_index, 0, &moved);
    nb_tensor_release(t);
    if (st == NB_OK) *out = moved;
    return st;
}

/* Creates a 1-D tensor of n elements computed on the host by gen(i), then moved. */
typedef double (*gen_fn)(const double* params, int64_t i);

static nb_status create_1d(const char* op, int64_t n, int32_t dtype, int32_t device_type,
                           int32_t device_index, gen_fn gen, const double* params, nb_tensor** out) {
    const nb_backend* backend;
    nb_status st = nb_device_resolve(op, device_type, &device_index, &backend);
    if (st != NB_OK) return st;
    nb_tensor* t;
    if ((st = create(op, &n, 1, dtype, NB_CPU, 0, &t)) != NB_OK) return st;
    /* Compute in double, store through the f64 -> dtype conversion, one block at a time. */
    double block[256];
    nb_convert_fn cvt = nb_cpu_convert_fn(NB_F64, dtype);
    char* dst = nb_tensor_data(t);
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t k = 0; k < m; k++) block[k] = gen(params, i + k);
        cvt(dst + i * nb_dtype_sizes[dtype], 1, block, 1, m);
    }
    return place(t, device_type, device_index, out);
}

static double arange_at(const double* p, int64_t i) { return p[0] + (double)i * p[1]; }

NB_API nb_status nb_arange(double start, double end, double step, int32_t dtype, int32_t device_type,
                           int32_t device_index, nb_tensor** out) {
    static const char* op = "arange";
    NB_CHECK_OUT(op, out);
    if (!isfinite(start) || !isfinite(end))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: unsupported range: %g -> %g", op, start, end);
    if (step == 0 || !isfinite(step))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: step must be nonzero and finite, got %g", op, step);
    if ((step > 0 && end < start) || (step < 0 && end > start))
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: upper bound and larger bound inconsistent with step sign (start %g, end %g, step %g)",
                        op, start, end, step);
    double count = ceil((end - start) / step);
    if (count >= 9.2e18)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %g elements overflow int64", op, count);
    const double params[2] = {start, step};
    return create_1d(op, (int64_t)count, dtype, device_type, device_index, arange_at, params, out);
}

/* PyTorch's symmetric formula: the first half counts up from start, the second
 * half down from end, so both endpoints are exact. Each value is one fused
 * multiply-add, rounded once, as in PyTorch's vectorised CPU builds. */
static double linspace_at(const double* p, int64_t i) {
    const double start = p[0], end = p[1], step = p[2];
    const int64_t steps = (int64_t)p[3];
    if (steps == 1) return start;
    return i < steps / 2 ? fma(step, (double)i, start) : fma(-step, (double)(steps - 1 - i), end);
}

/* float32 in float arithmetic, as PyTorch's kernel, so the values agree to the bit. */
static double linspace_f32_at(const double* p, int64_t i) {
    const float start = (float)p[0], end = (float)p[1];
    const int64_t steps = (int64_t)p[3];
    if (steps == 1) return start;
    const float step = (end - start) / (float)(steps - 1);
    return i < steps / 2 ? fmaf(step, (float)i, start) : fmaf(-step, (float)(steps - 1 - i), end);
}

NB_API nb_status nb_linspace(double start, double end, int64_t steps, int32_t dtype, int32_t device_type,
                             int32_t device_index, nb_tensor** out) {
    static const char* op = "linspace";
    NB_CHECK_OUT(op, out);
    if (steps < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: number of steps must be non-negative, got %lld", op,
                        (long long)steps);
    const double params[4] = {start, end, steps > 1 ? (end - start) / (double)(steps - 1) : 0.0,
                              (double)steps};
    return create_1d(op, steps, dtype, device_type, device_index, dtype == NB_F32 ? linspace_f32_at : linspace_at,
                     params, out);
}

NB_API nb_status nb_eye(int64_t n, int64_t m, int32_t dtype, int32_t device_type, int32_t device_index,
                        nb_tensor** out) {
    static const char* op = "eye";
    NB_CHECK_OUT(op, out);
    if (n < 0 || m < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: n and m must be non-negative, got n=%lld, m=%lld", op,
                        (long long)n, (long long)m);
    const int64_t shape[2] = {n, m};
    const nb_backend* backend;
    nb_status st = nb_device_resolve(op, device_type, &device_index, &backend);
    if (st != NB_OK) return st;
    nb_tensor* t;
    if ((st = create(op, shape, 2, dtype, NB_CPU, 0, &t)) != NB_OK) return st;
    const int64_t size = nb_dtype_sizes[dtype];
    char* data = nb_tensor_data(t);
    memset(data, 0, (size_t)(n * m * size));
    char one[8];
    nb_cpu_fill(one, dtype, 1, 1.0, 1, true);
    for (int64_t i = 0; i < (n < m ? n : m); i++) memcpy(data + (i * m + i) * size, one, (size_t)size);
    return place(t, device_type, device_index, out);
}

NB_API nb_status nb_tensor_from_host(const void* data, const int64_t* shape, int32_t ndim, int32_t dtype,
                                     int32_t device_type, int32_t device_index, nb_tensor** out) {
    static const char* op = "from_host";
    NB_CHECK_OUT(op, out);
    nb_tensor* t;
    nb_status st = create(op, shape, ndim, dtype, device_type, device_index, &t);
    if (st != NB_OK) return st;
    int64_t nbytes = t->numel * nb_dtype_sizes[dtype];
    if (nbytes > 0) {
        if (data == NULL) {
            nb_tensor_release(t);
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: data is NULL for %lld bytes", op, (long long)nbytes);
        }
        const nb_backend* b = nb_backend_of(t->storage->device_type);
        if ((st = b->copy(nb_tensor_data(t), t->storage->device_type, t->storage->device_index, data, NB_CPU, 0, nbytes)) != NB_OK) {
            nb_tensor_release(t);
            return nb_error(st, "%s: copy to %s failed: %s", op, b->name, b->last_error());
        }
    }
    *out = t;
    return NB_OK;
}

NB_API nb_status nb_tensor_from_external(void* data, const int64_t* shape, const int64_t* strides,
                                         int32_t ndim, int32_t dtype, int32_t device_type,
                                         int32_t device_index, nb_deleter_fn deleter, void* payload,
                                         nb_tensor** out) {
    return nb_wrap_external("from_external", data, shape, strides, ndim, dtype, device_type, device_index,
                            deleter, payload, out);
}

nb_status nb_wrap_external(const char* op, void* data, const int64_t* shape, const int64_t* strides, int32_t ndim,
                           int32_t dtype, int32_t device_type, int32_t device_index, nb_deleter_fn deleter,
                           void* payload, nb_tensor** out) {
    NB_CHECK_OUT(op, out);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, dtype, &numel);
    if (st != NB_OK) return st;
    const nb_backend* backend;
    if ((st = nb_device_resolve(op, device_type, &device_index, &backend)) != NB_OK) return st;
    if (data == NULL && numel > 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: data is NULL", op);
    int64_t st_buf[NB_MAX_DIMS];
    bool negative = false;
    for (int32_t i = 0; strides != NULL && i < ndim; i++) negative |= strides[i] < 0;
    if (negative && numel > 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative strides are not supported, got %s", op,
                        nb_shape_str(strides, ndim));
    if (strides == NULL || negative) {  /* an empty tensor's strides address nothing: contiguous ones will do */
        nb_contiguous_strides(shape, ndim, st_buf);
        strides = st_buf;
    }
    /* The memory the geometry reaches, as as_strided checks it: bytes that fit int64 and an end that
     * does not wrap around the address space. */
    int64_t span, nbytes;
    if (!nb_extent_end(shape, strides, ndim, 0, &span) || __builtin_mul_overflow(span, nb_dtype_sizes[dtype], &nbytes))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: sizes %s with strides %s reach past 2^63 - 1 bytes", op,
                        nb_shape_str(shape, ndim), nb_shape_str(strides, ndim));
    if ((uint64_t)nbytes > UINTPTR_MAX - (uintptr_t)data)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %lld bytes from %p wrap around the address space", op,
                        (long long)nbytes, data);
    nb_storage* s;
    if ((st = nb_storage_wrap(op, data, nbytes, device_type, device_index, deleter, payload, &s)) != NB_OK) return st;
    st = nb_tensor_make(op, s, dtype, shape, strides, ndim, 0, out);
    if (st != NB_OK) {
        s->deleter = NULL;  /* on failure the caller keeps ownership */
    }
    nb_storage_release(s);
    return st;
}

NB_API nb_status nb_scalar(double fvalue, int64_t ivalue, int32_t dtype, nb_tensor** out) {
    static const char* op = "scalar";
    NB_CHECK_OUT(op, out);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    nb_tensor* t;
    nb_status st = nb_tensor_new(op, NULL, 0, dtype, NB_CPU, 0, &t);
    if (st != NB_OK) return st;
    bool is_int = !nb_dtype_is_floating(dtype);
    nb_cpu_fill(nb_tensor_data(t), dtype, 1, fvalue, ivalue, is_int);
    t->wrapped_number = 1;
    *out = t;
    return NB_OK;
}
