/* pending_nn.c: forward formulas not written yet: these ops refuse to record. */
#include "../autograd.h"

nb_status nb_agf_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)weight;
    (void)bias;
    (void)stride;
    (void)padding_left;
    (void)padding_right;
    (void)dilation;
    (void)groups;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "conv1d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)weight;
    (void)bias;
    (void)stride;
    (void)padding;
    (void)dilation;
    (void)groups;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "conv2d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)weight;
    (void)bias;
    (void)stride;
    (void)padding;
    (void)output_padding;
    (void)dilation;
    (void)groups;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "conv_transpose2d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)kernel_size;
    (void)stride;
    (void)padding;
    (void)dilation;
    (void)ceil_mode;
    (void)indices;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "max_pool2d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)kernel_size;
    (void)stride;
    (void)padding;
    (void)ceil_mode;
    (void)count_include_pad;
    (void)divisor_override;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "avg_pool2d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)output_size;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "adaptive_avg_pool2d: the gradient of this op is not implemented yet");
}

nb_status nb_agf_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)normalized_shape;
    (void)ndim;
    (void)weight;
    (void)bias;
    (void)eps;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "layer_norm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var, const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum, double eps, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)running_mean;
    (void)running_var;
    (void)weight;
    (void)bias;
    (void)training;
    (void)momentum;
    (void)eps;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "batch_norm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)num_groups;
    (void)weight;
    (void)bias;
    (void)eps;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "group_norm: the gradient of this op is not implemented yet");
}

nb_status nb_agf_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)ignore_index;
    (void)reduction;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "nll_loss: the gradient of this op is not implemented yet");
}

nb_status nb_agf_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)ignore_index;
    (void)reduction;
    (void)label_smoothing;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "cross_entropy: the gradient of this op is not implemented yet");
}

nb_status nb_agf_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)reduction;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "mse_loss: the gradient of this op is not implemented yet");
}

nb_status nb_agf_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)reduction;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "l1_loss: the gradient of this op is not implemented yet");
}

nb_status nb_agf_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)reduction;
    (void)beta;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "smooth_l1_loss: the gradient of this op is not implemented yet");
}

nb_status nb_agf_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)reduction;
    (void)delta;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "huber_loss: the gradient of this op is not implemented yet");
}

nb_status nb_agf_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)reduction;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "binary_cross_entropy: the gradient of this op is not implemented yet");
}

nb_status nb_agf_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)weight;
    (void)pos_weight;
    (void)reduction;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "binary_cross_entropy_with_logits: the gradient of this op is not implemented yet");
}

nb_status nb_agf_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)target;
    (void)reduction;
    (void)log_target;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "kl_div: the gradient of this op is not implemented yet");
}

nb_status nb_agf_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst, nb_tensor** out) {
    (void)weight;
    (void)indices;
    (void)padding_idx;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "embedding: the gradient of this op is not implemented yet");
}

nb_status nb_agf_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value, nb_tensor* dst, nb_tensor** out) {
    (void)input;
    (void)pad;
    (void)npad;
    (void)mode;
    (void)value;
    (void)dst;
    (void)out;
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "pad: the gradient of this op is not implemented yet");
}

