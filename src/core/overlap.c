/* overlap.c: whether two tensors share memory, by PyTorch's MemOverlap rules. Every op that
 * writes a tensor which may also be one of its inputs asks here: copies (read the source aside
 * first), out= resizing (refused while the out tensor overlaps an input) and cat (refused). */
#include "internal.h"

/* The bytes [lo, hi) of t's storage that its elements occupy (any stride signs: stack views of
 * flip have negative ones). t has elements. */
static void byte_range(const nb_tensor* t, int64_t* lo, int64_t* hi) {
    int64_t first = t->offset, last = t->offset;
    for (int32_t i = 0; i < t->ndim; i++) {
        const int64_t reach = (t->shape[i] - 1) * t->strides[i];  /* within the storage: no overflow */
        if (reach < 0) first += reach;
        else last += reach;
    }
    const int64_t size = nb_dtype_sizes[t->dtype];
    *lo = first * size;
    *hi = (last + 1) * size;
}

bool nb_tensors_overlap(const nb_tensor* a, const nb_tensor* b) {
    if (a->storage != b->storage || a->numel == 0 || b->numel == 0) return false;
    int64_t a_lo, a_hi, b_lo, b_hi;
    byte_range(a, &a_lo, &a_hi);
    byte_range(b, &b_lo, &b_hi);
    return a_lo < b_hi && b_lo < a_hi;
}

nb_overlap nb_overlap_status(const nb_tensor* a, const nb_tensor* b) {
    if (a == b) return NB_OVERLAP_FULL;
    if (a->numel == 0 || b->numel == 0) return NB_OVERLAP_NO;
    if (!nb_is_dense(a->shape, a->strides, a->ndim) || !nb_is_dense(b->shape, b->strides, b->ndim))
        return NB_OVERLAP_TOO_HARD;
    if (a->storage != b->storage) return NB_OVERLAP_NO;
    const int64_t a_lo = a->offset * nb_dtype_sizes[a->dtype], a_hi = a_lo + a->numel * nb_dtype_sizes[a->dtype];
    const int64_t b_lo = b->offset * nb_dtype_sizes[b->dtype], b_hi = b_lo + b->numel * nb_dtype_sizes[b->dtype];
    if (a_lo == b_lo && a_hi == b_hi)
        return a->ndim == b->ndim && memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0
                   ? NB_OVERLAP_FULL : NB_OVERLAP_PARTIAL;
    return a_lo < b_hi && b_lo < a_hi ? NB_OVERLAP_PARTIAL : NB_OVERLAP_NO;
}

nb_status nb_overlap_error(const char* op) {
    return nb_error(NB_ERR_INVALID_ARGUMENT,
                    "%s: unsupported operation: some elements of the input tensor and the written-to tensor refer "
                    "to a single memory location. Please clone() the tensor before performing the operation.", op);
}

nb_status nb_check_no_overlap(const char* op, const nb_tensor* written, const nb_tensor* input) {
    const nb_overlap o = nb_overlap_status(written, input);
    return o == NB_OVERLAP_FULL || o == NB_OVERLAP_PARTIAL ? nb_overlap_error(op) : NB_OK;
}
