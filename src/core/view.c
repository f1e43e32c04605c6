/* view.c: ops that return views (new geometry over the same storage, no copy),
 * plus contiguous/clone/reshape, which copy only when a view is impossible. */
#include "internal.h"

#include <string.h>

#define VIEW_PROLOGUE(op, t, out) NB_CHECK_TENSOR(op, t); NB_CHECK_OUT(op, out)

static nb_status make_view(const char* op, const nb_tensor* t, const int64_t* shape,
                           const int64_t* strides, int32_t ndim, int64_t offset, nb_tensor** out) {
    nb_status st = nb_tensor_make(op, t->storage, t->dtype, shape, strides, ndim, offset, out);
    if (st == NB_OK) { /* autograd rebases the history of the root when a view is written in place */
        nb_tensor* base = t->base != NULL ? t->base : (nb_tensor*)t;
        nb_tensor_retain(base);
        (*out)->base = base;
    }
    return st;
}

/* The elements t's storage holds. */
static int64_t storage_elements(const nb_tensor* t) {
    return t->storage->nbytes / nb_dtype_sizes[t->dtype];
}

/* t's offset moved by index * stride elements. A view with elements always lands inside t's
 * storage; one without may not (the index may be an empty dim's size, an empty tensor's strides
 * may be huge) and then keeps t's offset, so every offset stays within [0, storage elements]. */
static int64_t moved_offset(const nb_tensor* t, int64_t index, int64_t stride) {
    int64_t delta, offset;
    if (__builtin_mul_overflow(index, stride, &delta) || __builtin_add_overflow(t->offset, delta, &offset) ||
        offset < 0 || offset > storage_elements(t))
        return t->offset;
    return offset;
}

/* PyTorch's a * b for a view's stride; it can only overflow for a dim of at most one element of
 * an empty tensor, whose stride addresses nothing: then `fallback` keeps it non-negative. */
static int64_t scaled_stride(int64_t a, int64_t b, int64_t fallback) {
    int64_t s;
    return __builtin_mul_overflow(a, b, &s) ? fallback : s;
}

nb_status nbi_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    static const char* op = "view";
    VIEW_PROLOGUE(op, t, out);
    int64_t resolved[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    nb_status st = nb_infer_shape(op, shape, ndim, t->numel, resolved);
    if (st != NB_OK) return st;
    if (!nb_view_strides(t->shape, t->strides, t->ndim, resolved, ndim, strides))
        return nb_error(NB_ERR_SHAPE,
                        "%s: view size %s is not compatible with input tensor's size %s and stride %s "
                        "(at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
                        op, nb_shape_str(resolved, ndim), nb_shape_str(t->shape, t->ndim),
                        nb_shape_str(t->strides, t->ndim));
    return make_view(op, t, resolved, strides, ndim, t->offset, out);
}

/* A contiguous copy of t (reshape's fallback and contiguous()). */
static nb_status contiguous_copy(const char* op, const nb_tensor* t, nb_tensor** out) {
    nb_tensor* r;
    nb_status st = nb_tensor_new(op, t->shape, t->ndim, t->dtype, t->storage->device_type,
                                 t->storage->device_index, &r);
    if (st != NB_OK) return st;
    if ((st = nb_copy_into(op, r, t)) != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

nb_status nbi_tensor_contiguous(const nb_tensor* t, nb_tensor** out) {
    VIEW_PROLOGUE("contiguous", t, out);
    if (t->contiguous) {
        nb_tensor_retain((nb_tensor*)t);
        *out = (nb_tensor*)t;
        return NB_OK;
    }
    return contiguous_copy("contiguous", t, out);
}

nb_status nbi_tensor_clone(const nb_tensor* t, nb_tensor** out) {
    static const char* op = "clone";
    VIEW_PROLOGUE(op, t, out);
    nb_tensor* r;
    nb_status st = nb_tensor_new_like(op, t, t->dtype, t->storage->device_type, t->storage->device_index, &r);
    if (st != NB_OK) return st;
    if ((st = nb_copy_into(op, r, t)) != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

/* A view when the strides allow, else a copy laid out as resolved_shape. */
static nb_status reshape_resolved(const char* op, const nb_tensor* t, const int64_t* shape, int32_t ndim,
                                  nb_tensor** out) {
    int64_t strides[NB_MAX_DIMS];
    if (nb_view_strides(t->shape, t->strides, t->ndim, shape, ndim, strides))
        return make_view(op, t, shape, strides, ndim, t->offset, out);
    nb_tensor* copy;
    nb_status st = contiguous_copy(op, t, &copy);
    if (st != NB_OK) return st;
    nb_contiguous_strides(shape, ndim, strides);
    st = make_view(op, copy, shape, strides, ndim, 0, out);
    nb_tensor_release(copy);
    return st;
}

nb_status nbi_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    static const char* op = "reshape";
    VIEW_PROLOGUE(op, t, out);
    int64_t resolved[NB_MAX_DIMS];
    nb_status st = nb_infer_shape(op, shape, ndim, t->numel, resolved);
    if (st != NB_OK) return st;
    return reshape_resolved(op, t, resolved, ndim, out);
}

nb_status nbi_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out) {
    static const char* op = "flatten";
    VIEW_PROLOGUE(op, t, out);
    int32_t s, e;
    nb_status st;
    if ((st = nb_wrap_dim(op, start_dim, t->ndim, &s)) != NB_OK) return st;
    if ((st = nb_wrap_dim(op, end_dim, t->ndim, &e)) != NB_OK) return st;
    if (s > e)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: start_dim (%lld) cannot come after end_dim (%lld)", op,
                        (long long)start_dim, (long long)end_dim);
    if (t->ndim == 0) {
        const int64_t one = 1;
        return reshape_resolved(op, t, &one, 1, out);
    }
    int64_t shape[NB_MAX_DIMS];
    int32_t n = 0;
    for (int32_t i = 0; i < s; i++) shape[n++] = t->shape[i];
    int64_t merged = 1;
    for (int32_t i = s; i <= e; i++) merged *= t->shape[i];
    shape[n++] = merged;
    for (int32_t i = e + 1; i < t->ndim; i++) shape[n++] = t->shape[i];
    return reshape_resolved(op, t, shape, n, out);
}

nb_status nbi_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out) {
    static const char* op = "permute";
    VIEW_PROLOGUE(op, t, out);
    if (ndim != t->ndim || (dims == NULL && ndim > 0))
        return nb_error(NB_ERR_SHAPE,
                        "%s: number of dims don't match: input.dim() = %d is not equal to len(dims) = %d",
                        op, (int)t->ndim, (int)ndim);
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    bool seen[NB_MAX_DIMS] = {false};
    for (int32_t i = 0; i < ndim; i++) {
        int32_t d;
        nb_status st = nb_wrap_dim(op, dims[i], t->ndim, &d);
        if (st != NB_OK) return st;
        if (seen[d])
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: duplicate dims are not allowed, got %s", op,
                            nb_shape_str(dims, ndim));
        seen[d] = true;
        shape[i] = t->shape[d];
        strides[i] = t->strides[d];
    }
    return make_view(op, t, shape, strides, ndim, t->offset, out);
}

nb_status nbi_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out) {
    static const char* op = "transpose";
    VIEW_PROLOGUE(op, t, out);
    int32_t a, b;
    nb_status st;
    if ((st = nb_wrap_dim(op, dim0, t->ndim, &a)) != NB_OK) return st;
    if ((st = nb_wrap_dim(op, dim1, t->ndim, &b)) != NB_OK) return st;
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    if (t->ndim > 0) {
        shape[a] = t->shape[b], shape[b] = t->shape[a];
        strides[a] = t->strides[b], strides[b] = t->strides[a];
    }
    return make_view(op, t, shape, strides, t->ndim, t->offset, out);
}

/* dim of size `length` starting at `start` with `step`, all already in range. */
static nb_status restrict_dim(const char* op, const nb_tensor* t, int32_t d, int64_t start, int64_t length,
                              int64_t step, nb_tensor** out) {
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    shape[d] = length;
    strides[d] = scaled_stride(t->strides[d], step, t->strides[d]);
    return make_view(op, t, shape, strides, t->ndim, moved_offset(t, start, t->strides[d]), out);
}

nb_status nbi_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length,
                                  nb_tensor** out) {
    static const char* op = "narrow";
    VIEW_PROLOGUE(op, t, out);
    if (t->ndim == 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: cannot be applied to a 0-dim tensor", op);
    int32_t d;
    nb_status st = nb_wrap_dim(op, dim, t->ndim, &d);
    if (st != NB_OK) return st;
    const int64_t size = t->shape[d];
    if (length < 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: length must be non-negative, got %lld", op, (long long)length);
    if (start < -size || start > size)
        return nb_error(NB_ERR_INDEX, "%s: start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                        op, (long long)-size, (long long)size, (long long)start);
    if (start < 0) start += size;
    if (start > size - length)
        return nb_error(NB_ERR_SHAPE, "%s: start (%lld) + length (%lld) exceeds dimension size (%lld)", op,
                        (long long)start, (long long)length, (long long)size);
    return restrict_dim(op, t, d, start, length, 1, out);
}

nb_status nbi_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step,
                                 nb_tensor** out) {
    static const char* op = "slice";
    VIEW_PROLOGUE(op, t, out);
    if (t->ndim == 0) return nb_error(NB_ERR_INDEX, "%s: cannot be applied to a 0-dim tensor", op);
    if (step <= 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: step must be greater than zero, got %lld", op, (long long)step);
    int32_t d;
    nb_status st = nb_wrap_dim(op, dim, t->ndim, &d);
    if (st != NB_OK) return st;
    const int64_t size = t->shape[d];
    if (start < 0) start = start < -size ? 0 : start + size;
    if (end < 0) end = end < -size ? 0 : end + size;
    if (start > size) start = size;
    if (end > size) end = size;
    if (end < start) end = start;
    int64_t length = end > start ? (end - start - 1) / step + 1 : 0;  /* no overflow for huge steps */
    return restrict_dim(op, t, d, start, length, step, out);
}

nb_status nbi_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out) {
    static const char* op = "select";
    VIEW_PROLOGUE(op, t, out);
    if (t->ndim == 0) return nb_error(NB_ERR_INDEX, "%s: invalid index of a 0-dim tensor", op);
    int32_t d;
    nb_status st = nb_wrap_dim(op, dim, t->ndim, &d);
    if (st != NB_OK) return st;
    const int64_t size = t->shape[d];
    if (index < -size || index >= size)
        return nb_error(NB_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op,
                        (long long)index, (int)d, (long long)size);
    if (index < 0) index += size;
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    int32_t n = 0;
    for (int32_t i = 0; i < t->ndim; i++) {
        if (i == d) continue;
        shape[n] = t->shape[i];
        strides[n++] = t->strides[i];
    }
    return make_view(op, t, shape, strides, n, moved_offset(t, index, t->strides[d]), out);
}

nb_status nbi_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    static const char* op = "expand";
    VIEW_PROLOGUE(op, t, out);
    if (ndim > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: a tensor can have at most %d dims, got %d sizes", op,
                        NB_MAX_DIMS, (int)ndim);
    if (ndim < t->ndim || (shape == NULL && ndim > 0))
        return nb_error(NB_ERR_SHAPE,
                        "%s: the number of sizes provided (%d) must be greater or equal to the number of "
                        "dimensions in the tensor (%d)", op, (int)ndim, (int)t->ndim);
    int64_t new_shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    for (int32_t i = ndim - 1; i >= 0; i--) {
        int32_t j = i - (ndim - t->ndim);  /* matching input dim, or < 0 for a new leading dim */
        int64_t want = shape[i];
        if (j < 0) {
            if (want < 0)
                return nb_error(NB_ERR_SHAPE, "%s: the expanded size of the tensor (%lld) isn't allowed in a "
                                "leading, non-existing dimension %d", op, (long long)want, (int)i);
            new_shape[i] = want;
            strides[i] = 0;
            continue;
        }
        if (want == -1) want = t->shape[j];
        if (want == t->shape[j]) {
            new_shape[i] = want;
            strides[i] = t->strides[j];
        } else if (t->shape[j] == 1 && want >= 0) {
            new_shape[i] = want;
            strides[i] = 0;
        } else {
            return nb_error(NB_ERR_SHAPE,
                            "%s: the expanded size of the tensor (%lld) must match the existing size (%lld) at "
                            "non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                            op, (long long)want, (long long)t->shape[j], (int)i, nb_shape_str(shape, ndim),
                            nb_shape_str(t->shape, t->ndim));
        }
    }
    int64_t numel;
    nb_status st = nb_check_shape(op, new_shape, ndim, &numel);
    if (st != NB_OK) return st;
    return make_view(op, t, new_shape, strides, ndim, t->offset, out);
}

nb_status nbi_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    static const char* op = "squeeze";
    VIEW_PROLOGUE(op, t, out);
    if (ndims < 0 || ndims > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: number of dims must be in [0, %d], got %d", op, NB_MAX_DIMS,
                        (int)ndims);
    bool drop[NB_MAX_DIMS] = {false};
    if (dims == NULL) {
        for (int32_t i = 0; i < t->ndim; i++) drop[i] = t->shape[i] == 1;
    } else {
        for (int32_t k = 0; k < ndims; k++) {
            int32_t d;
            nb_status st = nb_wrap_dim(op, dims[k], t->ndim, &d);
            if (st != NB_OK) return st;
            for (int32_t j = 0; j < k; j++) {
                int32_t e;
                nb_wrap_dim(op, dims[j], t->ndim, &e);
                if (e == d)
                    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims",
                                    op, (int)d);
            }
            if (t->ndim > 0) drop[d] = t->shape[d] == 1;
        }
    }
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    int32_t n = 0;
    for (int32_t i = 0; i < t->ndim; i++) {
        if (drop[i]) continue;
        shape[n] = t->shape[i];
        strides[n++] = t->strides[i];
    }
    return make_view(op, t, shape, strides, n, t->offset, out);
}

nb_status nbi_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out) {
    static const char* op = "unsqueeze";
    VIEW_PROLOGUE(op, t, out);
    if (t->ndim >= NB_MAX_DIMS)
        return nb_error(NB_ERR_SHAPE, "%s: a tensor can have at most %d dims", op, NB_MAX_DIMS);
    int32_t d;
    nb_status st = nb_wrap_dim(op, dim, t->ndim + 1, &d);
    if (st != NB_OK) return st;
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    for (int32_t i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            shape[i] = 1;
            strides[i] = d < t->ndim ? scaled_stride(t->shape[d], t->strides[d], t->strides[d]) : 1;
            continue;
        }
        shape[i] = t->shape[j];
        strides[i] = t->strides[j++];
    }
    return make_view(op, t, shape, strides, t->ndim + 1, t->offset, out);
}

nb_status nbi_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides,
                                      int32_t ndim, int64_t storage_offset, nb_tensor** out) {
    static const char* op = "as_strided";
    VIEW_PROLOGUE(op, t, out);
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    if (strides == NULL && ndim > 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: strides is NULL", op);
    if (storage_offset < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: storage offset must be non-negative, got %lld", op,
                        (long long)storage_offset);
    for (int32_t i = 0; i < ndim; i++)
        if (strides[i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative strides are not supported, got %s", op,
                            nb_shape_str(strides, ndim));
    /* Even without elements the offset must lie within the storage, so that a later resize (out=) or
     * view of it starts from a sane place; the extent is computed with overflow checks for every dtype. */
    const int64_t capacity = storage_elements(t);
    int64_t end = 0;
    const bool overflow = !nb_extent_end(shape, strides, ndim, storage_offset, &end);
    if (numel == 0 && end > capacity)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: storage offset %lld is out of bounds for a storage of %lld elements",
                        op, (long long)storage_offset, (long long)capacity);
    if (overflow)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: sizes %s, strides %s and storage offset %lld reach past element 2^63 - 1, out of bounds "
                        "for a storage of %lld elements", op, nb_shape_str(shape, ndim), nb_shape_str(strides, ndim),
                        (long long)storage_offset, (long long)capacity);
    if (end > capacity)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: sizes %s, strides %s and storage offset %lld reach element %lld, out of bounds "
                        "for a storage of %lld elements", op, nb_shape_str(shape, ndim), nb_shape_str(strides, ndim),
                        (long long)storage_offset, (long long)(end - 1), (long long)capacity);
    return make_view(op, t, shape, strides, ndim, storage_offset, out);
}
