/* nn_common.c: helpers shared by the neural-network kernels (see nn_common.h). */
#include "nn_common.h"

#include "../alloc/cpu_allocator.h"
#include "../core/elementwise.h"

#include <cblas.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

nb_status nn_check_handle(const char* op, const char* arg, const nb_tensor* t, bool optional) {
    if (t == NULL && optional) return NB_OK;
    if (NB_UNLIKELY(!nb_tensor_ok(t))) return nb_bad_handle(op, arg, t);
    return NB_OK;
}

nb_status nn_check_same_device(const char* op, const char* const* names, const nb_tensor* const* ts, int32_t n) {
    const nb_tensor* first = NULL;
    const char* first_name = NULL;
    for (int32_t i = 0; i < n; i++) {
        if (ts[i] == NULL) continue;
        if (first == NULL) {
            first = ts[i], first_name = names[i];
        } else if (ts[i]->storage->device_type != first->storage->device_type ||
                   ts[i]->storage->device_index != first->storage->device_index) {
            return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found '%s' on %s:%d "
                            "and '%s' on %s:%d", op, first_name, nb_device_type_name(first->storage->device_type),
                            (int)first->storage->device_index, names[i], nb_device_type_name(ts[i]->storage->device_type),
                            (int)ts[i]->storage->device_index);
        }
    }
    return NB_OK;
}

nb_status nn_check_tensor(const char* op, const char* arg, const nb_tensor* t, bool optional) {
    if (t == NULL && optional) return NB_OK;
    if (NB_UNLIKELY(!nb_tensor_ok(t))) return nb_bad_handle(op, arg, t);
    if (t->storage->device_type != NB_CPU)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet (only cpu kernels exist); '%s' is on %s:%d",
                        op, nb_device_type_name(t->storage->device_type), arg,
                        nb_device_type_name(t->storage->device_type), (int)t->storage->device_index);
    return NB_OK;
}

nb_status nn_check_float(const char* op, const nb_tensor* input, int32_t* kernel_dtype) {
    int32_t k = nn_kernel_dtype(input->dtype);
    if (k < 0) return nb_error(NB_ERR_DTYPE, "%s: not implemented for '%s'", op, nb_dtype_str(input->dtype));
    *kernel_dtype = k;
    return NB_OK;
}

nb_status nn_check_same_dtype(const char* op, const char* arg, const nb_tensor* t, int32_t dtype) {
    if (t == NULL || t->dtype == dtype) return NB_OK;
    return nb_error(NB_ERR_DTYPE, "%s: expected %s to have dtype %s (the input's), but got %s", op, arg,
                    nb_dtype_str(dtype), nb_dtype_str(t->dtype));
}

nb_status nn_check_array(const char* op, const char* arg, const void* p) {
    if (p != NULL) return NB_OK;
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", op, arg);
}

static nb_status check_out(const char* op, const nb_tensor* dst, nb_tensor** out, bool host_only) {
    if (dst == NULL) {
        NB_CHECK_OUT(op, out);
        return NB_OK;
    }
    nb_status st = host_only ? nn_check_tensor(op, "out", dst, false) : nn_check_handle(op, "out", dst, false);
    if (st == NB_OK) NB_CHECK_WRITABLE(op, dst);
    return st;
}

nb_status nn_check_out(const char* op, const nb_tensor* dst, nb_tensor** out) { return check_out(op, dst, out, true); }

nb_status nn_check_out_any_device(const char* op, const nb_tensor* dst, nb_tensor** out) {
    return check_out(op, dst, out, false);
}

nb_status nn_empty(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out) {
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    return nb_tensor_new(op, shape, ndim, dtype, NB_CPU, 0, out);
}

nb_status nn_contig(const nb_tensor* t, int32_t dtype, nb_tensor** out) {
    if (t->dtype == dtype && t->contiguous) {
        nb_tensor_retain((nb_tensor*)t);
        *out = (nb_tensor*)t;
        return NB_OK;
    }
    nb_tensor* r = NULL;
    nb_status st = nb_tensor_new("contiguous", t->shape, t->ndim, dtype, t->storage->device_type,
                                 t->storage->device_index, &r);
    if (st == NB_OK && (st = nb_copy_into("contiguous", r, t)) != NB_OK) {
        nb_tensor_release(r);
        r = NULL;
    }
    if (st == NB_OK) *out = r;
    return st;
}

nb_status nn_contig_opt(const nb_tensor* t, int32_t dtype, nb_tensor** out) {
    if (t == NULL) {
        *out = NULL;
        return NB_OK;
    }
    return nn_contig(t, dtype, out);
}

nb_status nn_output(const char* op, const int64_t* shape, int32_t ndim, int32_t kd, int32_t dtype, nb_tensor* dst,
                    const nb_tensor* const* inputs, int32_t n, nb_tensor** y) {
    bool direct = dst != NULL && dst->dtype == kd && dtype == kd && dst->contiguous && dst->ndim == ndim &&
                  memcmp(dst->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0;
    for (int32_t i = 0; direct && i < n; i++) direct = inputs[i] == NULL || inputs[i]->storage != dst->storage;
    if (!direct) return nn_empty(op, shape, ndim, kd, y);
    nb_tensor_retain(dst);
    *y = dst;
    return NB_OK;
}

nb_status nn_deliver(const char* op, nb_tensor* result, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_status st = NB_OK;
    if (result == dst) {  /* computed in place by nn_output's choice */
        nb_tensor_release(result);
        nb_tensor_bump_version(dst);
        if (out != NULL) {
            nb_tensor_retain(dst);
            *out = dst;
        }
        return NB_OK;
    }
    if (dst == NULL) {
        if (result->dtype != dtype) {
            nb_tensor* converted = NULL;
            st = nn_contig(result, dtype, &converted);
            nb_tensor_release(result);
            if (st != NB_OK) return st;
            result = converted;
        }
        *out = result;
        return NB_OK;
    }
    st = nb_can_cast(dtype, dst->dtype)
             ? nb_resize_output(op, dst, NULL, 0, result->shape, result->ndim)  /* the inputs are read already */
             : nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                        nb_dtype_str(dtype), nb_dtype_str(dst->dtype));
    if (st != NB_OK) {
        /* reported below */
    } else if (dtype != result->dtype && dst->dtype != dtype) {
        /* round through the result dtype (float16 results are float16 values wherever they land) */
        nb_tensor* rounded = NULL;
        st = nn_contig(result, dtype, &rounded);
        if (st == NB_OK) st = nb_copy_into(op, dst, rounded);
        nb_tensor_release(rounded);
    } else {
        st = nb_copy_into(op, dst, result);
    }
    nb_tensor_release(result);
    if (st != NB_OK) return st;
    nb_tensor_bump_version(dst);
    if (out != NULL) {
        nb_tensor_retain(dst);
        *out = dst;
    }
    return NB_OK;
}

void nn_release(nb_tensor* a, nb_tensor* b, nb_tensor* c, nb_tensor* d, nb_tensor* e, nb_tensor* f,
                nb_tensor* g, nb_tensor* h) {
    nb_tensor_release(a), nb_tensor_release(b), nb_tensor_release(c), nb_tensor_release(d);
    nb_tensor_release(e), nb_tensor_release(f), nb_tensor_release(g), nb_tensor_release(h);
}

bool nn_fused_enabled(const char* env) {
    const char* v = getenv(env);
    return v == NULL || strcmp(v, "0") != 0;
}

/* A 64-byte header in front of the block remembers its size (the allocator wants it back). */
void* nn_alloc(size_t bytes) {
    char* p = nb_cpu_alloc(bytes + 64);
    if (p == NULL) return NULL;
    memcpy(p, &bytes, sizeof bytes);
    return p + 64;
}

void nn_free(void* p) {
    if (p == NULL) return;
    char* base = (char*)p - 64;
    size_t bytes;
    memcpy(&bytes, base, sizeof bytes);
    nb_cpu_free(base, bytes + 64);
}

static pthread_mutex_t blas_lock = PTHREAD_MUTEX_INITIALIZER;
static int blas_depth, blas_saved_threads;

void nn_blas_serial_begin(void) {
    pthread_mutex_lock(&blas_lock);
    if (blas_depth++ == 0) {
        blas_saved_threads = scipy_openblas_get_num_threads();
        if (blas_saved_threads != 1) scipy_openblas_set_num_threads(1);
    }
    pthread_mutex_unlock(&blas_lock);
}

void nn_blas_serial_end(void) {
    pthread_mutex_lock(&blas_lock);
    if (--blas_depth == 0 && blas_saved_threads != 1) scipy_openblas_set_num_threads(blas_saved_threads);
    pthread_mutex_unlock(&blas_lock);
}

nb_status nn_check_reduction(const char* op, int32_t reduction) {
    if (reduction == NN_RED_NONE || reduction == NN_RED_MEAN || reduction == NN_RED_SUM) return NB_OK;
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %d is not a valid value for reduction (0 none, 1 mean, 2 sum)", op,
                    (int)reduction);
}

int64_t nn_pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
    int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
    int64_t q = num / stride;
    if ((num % stride != 0) && ((num < 0) != (stride < 0))) q--; /* floor division */
    int64_t out = q + 1;
    if (ceil_mode && (out - 1) * stride >= in + pad) out--;
    return out;
}
