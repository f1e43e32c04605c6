/* pending_reduce_shape.c: forward formulas not written yet: these ops refuse to record. */
#include "../autograd.h"

nb_status nb_agf_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)keepdim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "prod: the gradient of this op is not implemented yet");
}

nb_status nb_agf_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)keepdim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "amax: the gradient of this op is not implemented yet");
}

nb_status nb_agf_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)keepdim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "amin: the gradient of this op is not implemented yet");
}

nb_status nb_agf_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    (void)t;
    (void)dim;
    (void)keepdim;
    (void)dst_values;
    (void)dst_indices;
    (void)values;
    (void)indices;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "max_dim: the gradient of this op is not implemented yet");
}

nb_status nb_agf_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    (void)t;
    (void)dim;
    (void)keepdim;
    (void)dst_values;
    (void)dst_indices;
    (void)values;
    (void)indices;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "min_dim: the gradient of this op is not implemented yet");
}

nb_status nb_agf_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)correction;
    (void)keepdim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "var: the gradient of this op is not implemented yet");
}

nb_status nb_agf_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)correction;
    (void)keepdim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "std: the gradient of this op is not implemented yet");
}

nb_status nb_agf_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)p;
    (void)dims;
    (void)ndims;
    (void)keepdim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "norm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dims;
    (void)ndims;
    (void)keepdim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "logsumexp: the gradient of this op is not implemented yet");
}

nb_status nb_agf_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "cumsum: the gradient of this op is not implemented yet");
}

nb_status nb_agf_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "cumprod: the gradient of this op is not implemented yet");
}

nb_status nb_agf_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "softmax: the gradient of this op is not implemented yet");
}

nb_status nb_agf_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    (void)t;
    (void)dim;
    (void)dtype;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "log_softmax: the gradient of this op is not implemented yet");
}

nb_status nb_agf_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    (void)tensors;
    (void)n;
    (void)dim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "cat: the gradient of this op is not implemented yet");
}

nb_status nb_agf_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    (void)tensors;
    (void)n;
    (void)dim;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "stack: the gradient of this op is not implemented yet");
}

nb_status nb_agf_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    (void)x;
    (void)dims;
    (void)ndims;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "flip: the gradient of this op is not implemented yet");
}

nb_status nb_agf_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    (void)x;
    (void)shifts;
    (void)nshifts;
    (void)dims;
    (void)ndims;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "roll: the gradient of this op is not implemented yet");
}

nb_status nb_agf_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    (void)x;
    (void)repeats;
    (void)n;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "repeat: the gradient of this op is not implemented yet");
}

nb_status nb_agf_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)diagonal;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "tril: the gradient of this op is not implemented yet");
}

nb_status nb_agf_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)diagonal;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "triu: the gradient of this op is not implemented yet");
}

nb_status nb_agf_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values, nb_tensor** indices) {
    (void)x;
    (void)dim;
    (void)descending;
    (void)stable;
    (void)values;
    (void)indices;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "sort: the gradient of this op is not implemented yet");
}

nb_status nb_agf_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted, nb_tensor** values, nb_tensor** indices) {
    (void)x;
    (void)k;
    (void)dim;
    (void)largest;
    (void)sorted;
    (void)values;
    (void)indices;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "topk: the gradient of this op is not implemented yet");
}

