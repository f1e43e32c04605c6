/* shape.c: shape validation, stride math and dim wrapping, shared by every op. */
#include "internal.h"

/* The one storage-size rule, PyTorch's computeStorageNbytesContiguous made order-independent: the
 * product of the nonzero sizes, times the item size, must fit int64. A 0 in the shape does not
 * excuse a huge dim: [2^63 - 1, 6, 0, 6] is refused, so that reducing the 0 away, keepdim, the
 * contiguous strides of the shape and numel * itemsize never overflow for any tensor. */
nb_status nb_check_extent(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, int64_t* numel) {
    if (ndim < 0 || ndim > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ndim must be in [0, %d], got %d", op,
                        NB_MAX_DIMS, (int)ndim);
    if (shape == NULL && ndim > 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", op, (int)ndim);
    const int64_t itemsize = dtype < 0 ? 1 : nb_dtype_sizes[dtype];
    int64_t nonzero = 1, bytes;
    bool overflow = false, empty = false;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT,
                            "%s: trying to create tensor with negative dimension %lld: %s", op,
                            (long long)shape[i], nb_shape_str(shape, ndim));
        if (shape[i] == 0) empty = true;
        else overflow |= __builtin_mul_overflow(nonzero, shape[i], &nonzero);
    }
    if (overflow && !empty)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the element count of shape %s overflows int64",
                        op, nb_shape_str(shape, ndim));
    overflow |= __builtin_mul_overflow(nonzero, itemsize, &bytes);
    if (overflow && empty)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Storage size calculation overflowed with sizes=%s", op,
                        nb_shape_str(shape, ndim));
    if (overflow)
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: %s of %s needs more than 2^63 bytes", op,
                        nb_shape_str(shape, ndim), nb_dtype_str(dtype));
    *numel = empty ? 0 : nonzero;
    return NB_OK;
}

nb_status nb_check_shape(const char* op, const int64_t* shape, int32_t ndim, int64_t* numel) {
    return nb_check_extent(op, shape, ndim, -1, numel);
}

bool nb_extent_end(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t offset, int64_t* end) {
    if (offset < 0) return false;
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] == 0) {  /* reaches nothing, whatever the strides */
            *end = offset;
            return true;
        }
    int64_t last = offset, reach;
    bool overflow = false;
    for (int32_t i = 0; i < ndim; i++) {
        overflow |= strides[i] < 0;
        overflow |= __builtin_mul_overflow(shape[i] - 1, strides[i], &reach);
        overflow |= __builtin_add_overflow(last, reach, &last);
    }
    overflow |= __builtin_add_overflow(last, 1, end);
    return !overflow;
}

void nb_contiguous_strides(const int64_t* shape, int32_t ndim, int64_t* strides) {
    int64_t s = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 1 ? shape[i] : 1;
    }
}

bool nb_is_contiguous(const int64_t* shape, const int64_t* strides, int32_t ndim) {
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] == 0) return true;  /* no element: any strides will do */
    int64_t expected = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

bool nb_is_dense(const int64_t* shape, const int64_t* strides, int32_t ndim) {
    int32_t order[NB_MAX_DIMS], n = 0;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == 0) return false;
        if (shape[i] == 1) continue;
        int32_t j = n++;  /* insertion sort by stride, ascending */
        while (j > 0 && strides[order[j - 1]] > strides[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    int64_t expected = 1;
    for (int32_t k = 0; k < n; k++) {
        if (strides[order[k]] != expected) return false;
        expected *= shape[order[k]];
    }
    return true;
}

/* PyTorch's infer_dense_strides: contiguous strides laid out in the order of the
 * input's strides (innermost = smallest stride), so a copy keeps the memory order. */
void nb_strides_like(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t* out) {
    if (nb_is_dense(shape, strides, ndim)) {
        for (int32_t i = 0; i < ndim; i++) out[i] = strides[i];
        return;
    }
    int32_t perm[NB_MAX_DIMS];
    for (int32_t i = 0; i < ndim; i++) perm[i] = ndim - 1 - i;
    for (int32_t i = 1; i < ndim; i++) {
        for (int32_t d1 = i, d0 = i - 1; d0 >= 0; d0--) {
            int32_t a = perm[d0], b = perm[d1], cmp = 0;
            if (strides[a] != 0 && strides[b] != 0)
                cmp = strides[a] < strides[b] ? -1 : strides[a] > strides[b] ? 1 : shape[a] > shape[b] ? 1 : 0;
            if (cmp > 0) {
                perm[d0] = b, perm[d1] = a;
                d1 = d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    int64_t s = 1;
    for (int32_t i = 0; i < ndim; i++) {
        out[perm[i]] = s;
        s *= shape[perm[i]] > 1 ? shape[perm[i]] : 1;
    }
}

nb_status nb_wrap_dim(const char* op, int64_t dim, int32_t ndim, int32_t* out) {
    int64_t n = ndim > 0 ? ndim : 1;
    if (dim < -n || dim >= n)
        return nb_error(NB_ERR_INDEX,
                        "%s: dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                        op, (long long)-n, (long long)(n - 1), (long long)dim);
    *out = (int32_t)(dim < 0 ? dim + n : dim);
    return NB_OK;
}

nb_status nb_infer_shape(const char* op, const int64_t* shape, int32_t ndim, int64_t numel,
                         int64_t* resolved) {
    if (ndim < 0 || ndim > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ndim must be in [0, %d], got %d", op,
                        NB_MAX_DIMS, (int)ndim);
    if (shape == NULL && ndim > 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", op, (int)ndim);
    int32_t infer = -1;
    int64_t known = 1;
    bool overflow = false;
    for (int32_t i = 0; i < ndim; i++) {
        resolved[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0)
                return nb_error(NB_ERR_SHAPE, "%s: only one dimension can be inferred, got shape %s",
                                op, nb_shape_str(shape, ndim));
            infer = i;
        } else if (shape[i] < 0) {
            return nb_error(NB_ERR_SHAPE, "%s: invalid shape dimension %lld in %s", op,
                            (long long)shape[i], nb_shape_str(shape, ndim));
        } else {
            overflow |= __builtin_mul_overflow(known, shape[i], &known);
        }
    }
    if (infer >= 0 && known != 0 && !overflow && numel % known == 0) {
        resolved[infer] = numel / known;
        return NB_OK;
    }
    if (infer < 0 && !overflow && known == numel) return NB_OK;
    int64_t n;
    nb_status st = infer < 0 ? nb_check_shape(op, shape, ndim, &n) : NB_OK;  /* a size that can exist at all */
    if (st != NB_OK) return st;
    return nb_error(NB_ERR_SHAPE, "%s: shape '%s' is invalid for input of size %lld", op,
                    nb_shape_str(shape, ndim), (long long)numel);
}

/* PyTorch's computeStride: walk the old dims in chunks that are contiguous among
 * themselves and match each chunk to a run of new dims with the same element count. */
bool nb_view_strides(const int64_t* shape, const int64_t* strides, int32_t ndim,
                     const int64_t* new_shape, int32_t new_ndim, int64_t* new_strides) {
    int64_t numel = 1;
    for (int32_t i = 0; i < ndim; i++) numel *= shape[i];
    if (numel == 0) {
        nb_contiguous_strides(new_shape, new_ndim, new_strides);
        return true;
    }
    if (ndim == 0) {  /* a scalar: every new dim has size 1 */
        for (int32_t i = 0; i < new_ndim; i++) new_strides[i] = 1;
        return true;
    }
    int32_t view_d = new_ndim - 1;
    int64_t chunk_base_stride = strides[ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        tensor_numel *= shape[d];
        if (d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
                new_strides[view_d] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) {
                chunk_base_stride = strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}
