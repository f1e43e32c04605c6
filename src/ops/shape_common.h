/* shape_common.h: helpers shared by the shape (shape.c) and indexing (index.c)
 * families: stack-held views, argument checks, and the row driver that the
 * gather/scatter kernels run on. */
#ifndef NABLA_OPS_SHAPE_COMMON_H_
#define NABLA_OPS_SHAPE_COMMON_H_

#include "../core/internal.h"

#include <stdio.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define NB_SHAPE_GRAIN 32768

/* Threads worth starting for `work` elements split into at most max_parts pieces. */
static inline int nb_threads_for(int64_t work, int64_t max_parts) {
#ifdef _OPENMP
    if (work < 2 * NB_SHAPE_GRAIN || omp_in_parallel()) return 1;
    int64_t t = omp_get_max_threads();
    if (t > work / NB_SHAPE_GRAIN) t = work / NB_SHAPE_GRAIN;
    if (t > max_parts) t = max_parts;
    return t < 1 ? 1 : (int)t;
#else
    (void)work, (void)max_parts;
    return 1;
#endif
}

/* A view of t's storage with new geometry, held on the stack: no allocation and
 * no reference, so it may only be passed to calls that neither retain nor
 * release it (nb_copy_into, nb_cpu_copy, the kernels here). */
static inline void nb_local_view(nb_tensor* v, const nb_tensor* t, const int64_t* shape, const int64_t* strides,
                                 int32_t ndim, int64_t offset) {
    *v = *t;
    v->ndim = ndim;
    v->offset = offset;
    v->wrapped_number = 0;
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) {
        v->shape[i] = shape[i];
        v->strides[i] = strides[i];
        n *= shape[i];
    }
    v->numel = n;
    v->contiguous = nb_is_contiguous(shape, strides, ndim);
}

/* t restricted to [start, start + length) along dim d (a stack view). */
static inline void nb_local_narrow(nb_tensor* v, const nb_tensor* t, int32_t d, int64_t start, int64_t length) {
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    shape[d] = length;
    nb_local_view(v, t, shape, t->strides, t->ndim, t->offset + start * t->strides[d]);
}

/* The kernels here run on the host only. */
static inline nb_status nb_require_cpu(const char* op, const nb_tensor* t) {
    if (NB_LIKELY(t->storage->device_type == NB_CPU)) return NB_OK;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s yet (only cpu kernels exist)", op,
                    nb_device_type_name(t->storage->device_type));
}

/* A tensor written in place must not have two elements on one memory location. */
static inline nb_status nb_check_writable(const char* op, const nb_tensor* t) {
    for (int32_t d = 0; d < t->ndim; d++)
        if (t->strides[d] == 0 && t->shape[d] > 1)
            return nb_error(NB_ERR_INVALID_ARGUMENT,
                            "%s: unsupported operation: more than one element of the written-to tensor refers to a "
                            "single memory location. Please clone() the tensor before performing the operation.", op);
    return NB_OK;
}

/* Reads index element p (int64 or int32). */
static inline int64_t nb_load_index(const char* p, int32_t dtype) {
    return dtype == NB_I64 ? *(const int64_t*)p : (int64_t)*(const int32_t*)p;
}

#endif /* NABLA_OPS_SHAPE_COMMON_H_ */
