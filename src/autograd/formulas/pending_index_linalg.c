/* pending_index_linalg.c: forward formulas not written yet: these ops refuse to record. */
#include "../autograd.h"

nb_status nb_agf_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    (void)q;
    (void)k;
    (void)v;
    (void)attn_mask;
    (void)dropout_p;
    (void)is_causal;
    (void)scale;
    (void)gen;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "scaled_dot_product_attention: the gradient of this op is not implemented yet");
}

nb_status nb_agf_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "gather: the gradient of this op is not implemented yet");
}

nb_status nb_agf_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)src;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "scatter: the gradient of this op is not implemented yet");
}

nb_status nb_agf_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)value;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "scatter_value: the gradient of this op is not implemented yet");
}

nb_status nb_agf_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)src;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "scatter_add: the gradient of this op is not implemented yet");
}

nb_status nb_agf_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "index_select: the gradient of this op is not implemented yet");
}

nb_status nb_agf_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source, double alpha, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)dim;
    (void)index;
    (void)source;
    (void)alpha;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "index_add: the gradient of this op is not implemented yet");
}

nb_status nb_agf_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)mask;
    (void)value;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "masked_fill: the gradient of this op is not implemented yet");
}

nb_status nb_agf_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out) {
    (void)x;
    (void)mask;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "masked_select: the gradient of this op is not implemented yet");
}

nb_status nb_agf_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim, nb_tensor** out) {
    (void)x;
    (void)indices;
    (void)dim;
    (void)has_dim;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "take_along_dim: the gradient of this op is not implemented yet");
}

nb_status nb_agf_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out) {
    (void)x;
    (void)indices;
    (void)n;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "index: the gradient of this op is not implemented yet");
}

nb_status nb_agf_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    (void)x;
    (void)indices;
    (void)n;
    (void)values;
    (void)accumulate;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "index_put: the gradient of this op is not implemented yet");
}

nb_status nb_agf_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)b;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "matmul: the gradient of this op is not implemented yet");
}

nb_status nb_agf_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)b;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "mm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)b;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "bmm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)v;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "mv: the gradient of this op is not implemented yet");
}

nb_status nb_agf_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)b;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "dot: the gradient of this op is not implemented yet");
}

nb_status nb_agf_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    (void)a;
    (void)b;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "outer: the gradient of this op is not implemented yet");
}

nb_status nb_agf_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)mat1;
    (void)mat2;
    (void)beta;
    (void)alpha;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "addmm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)batch1;
    (void)batch2;
    (void)beta;
    (void)alpha;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "baddbmm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)weight;
    (void)bias;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "linear: the gradient of this op is not implemented yet");
}

