/* resize.c: PyTorch's resize_ and resize_output, the out= rule shared by every op that
 * writes into a caller's tensor: an out tensor of another shape is resized (with a
 * deprecation warning when it had elements) instead of refused. */
#include "internal.h"

nb_status nb_resize(const char* op, nb_tensor* t, const int64_t* shape, int32_t ndim) {
    NB_CHECK_WRITABLE(op, t);
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, t->dtype, &numel);
    if (st != NB_OK) return st;
    if (nb_same_shape(t, shape, ndim)) return NB_OK;
    if (nb_tensor_requires_grad(t) == 1)
        return nb_error(NB_ERR_AUTOGRAD, "%s: cannot resize variables that require grad", op);
    int64_t strides[NB_MAX_DIMS];
    nb_contiguous_strides(shape, ndim, strides);
    if (numel > 0) {  /* the storage must reach one past the highest element of the new geometry */
        int64_t end, nbytes;
        if (!nb_extent_end(shape, strides, ndim, t->offset, &end) ||
            __builtin_mul_overflow(end, nb_dtype_sizes[t->dtype], &nbytes))
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: %s of %s needs more than 2^63 bytes (at storage offset %lld)",
                            op, nb_shape_str(shape, ndim), nb_dtype_str(t->dtype), (long long)t->offset);
        if ((st = nb_storage_grow(op, t->storage, nbytes)) != NB_OK) return st;
    }
    t->ndim = ndim;
    for (int32_t i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
    }
    t->numel = numel;
    t->contiguous = 1;
    return NB_OK;
}

nb_status nb_resize_output(const char* op, nb_tensor* dst, const nb_tensor* const* inputs, int32_t n,
                           const int64_t* shape, int32_t ndim) {
    if (nb_same_shape(dst, shape, ndim)) return NB_OK;
    NB_CHECK_WRITABLE(op, dst);
    for (int32_t i = 0; i < n; i++)
        if (inputs[i] != NULL && (inputs[i] == dst || nb_tensors_overlap(dst, inputs[i]))) return nb_overlap_error(op);
    if (dst->numel != 0) {
        nb_status st = nb_warn(
            "An output with one or more elements was resized since it had shape %s, which does not match the "
            "required output shape %s. This behavior is deprecated, and in a future release outputs will not be "
            "resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
            "inplace, to zero elements with t.resize_(0).",
            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
        if (st != NB_OK) return st;
    }
    return nb_resize(op, dst, shape, ndim);
}

NB_API nb_status nb_tensor_resize_(nb_tensor* t, const int64_t* shape, int32_t ndim) {
    static const char* op = "resize_";
    NB_CHECK_TENSOR(op, t);
    return nb_resize(op, t, shape, ndim);
}

NB_API nb_status nb_tensor_resize_output(nb_tensor* t, const int64_t* shape, int32_t ndim) {
    static const char* op = "resize_output";
    NB_CHECK_TENSOR(op, t);
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, t->dtype, &numel);
    if (st != NB_OK) return st;
    return nb_resize_output(op, t, NULL, 0, shape, ndim);  /* a binding's op has already computed its result */
}
