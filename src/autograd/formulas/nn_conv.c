/* nn_conv.c: formulas of the convolutions. The input gradient of conv2d is a
 * transposed convolution of the output gradient, the weight gradient a GEMM over
 * im2col(input) (the backward kernels nb_conv2d_backward_input / _weight);
 * conv1d runs them on a height-1 view; conv_transpose2d is the adjoint of conv2d,
 * so its input gradient is conv2d of the output gradient. The bias gradient is a
 * sum. Saved: 0 input, 1 weight. Attributes: ia[0..1] stride, ia[2..5] padding
 * (top, left, bottom, right), ia[6..7] dilation, ia[8] groups, ia[9..10]
 * transposed output_padding. */
#include "nn.h"

#include <string.h>

/* The 2-D backward of a convolution of x [N, C, H, W] with w [O, C/g, kH, kW] from go [N, O, OH, OW]. */
static void conv2d_grads(nb_bw* b, const nb_tensor* go, const nb_tensor* x, const nb_tensor* w,
                         const int64_t* in_hw, const int64_t* k_hw, bool need_x, bool need_w, nb_tensor** gx,
                         nb_tensor** gw) {
    const int64_t* a = b->node->ia;
    *gx = need_x ? BW_OP(b, nb_conv2d_backward_input(go, w, in_hw, a, a + 2, a + 6, a[8], NULL, &bw_r_)) : NULL;
    *gw = need_w ? BW_OP(b, nb_conv2d_backward_weight(go, x, k_hw, a, a + 2, a + 6, a[8], NULL, &bw_r_)) : NULL;
    const nb_tensor* deps[3] = {go, x, w};
    nb_tensor* res[2] = {*gx, *gw};
    if (need_x && need_w) bw_once(b, deps, 3, res, 2);
    else if (need_x || need_w) bw_once(b, deps, 3, need_x ? res : res + 1, 1);
}

static nb_status conv2d_bw(nb_bw* b) {
    const nb_tensor_meta* in = b->node->in_meta;
    nb_tensor* x = bw_needs(b, 1) ? bw_saved(b, 0) : NULL;
    nb_tensor* w = bw_needs(b, 0) ? bw_saved(b, 1) : NULL;
    nb_tensor *gx, *gw;
    conv2d_grads(b, b->go[0], x, w, in[0].shape + 2, in[1].shape + 2, bw_needs(b, 0), bw_needs(b, 1), &gx, &gw);
    bw_set(b, 0, gx);
    bw_set(b, 1, gw);
    if (bw_needs(b, 2)) bw_set(b, 2, bw_sum_except(b, b->go[0], 4, 1));
    return b->st;
}

/* Begins recording a convolution: the node with its attributes, input and weight saved when the other needs grad. */
static nb_status conv_begin(nb_ag_rec* r, const char* op, nb_backward_fn fn, const nb_tensor* input,
                            const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, const int64_t* attrs) {
    const nb_tensor* ins[3] = {input, weight, bias};
    nb_status st = nb_ag_begin(r, op, "ConvolutionBackward0", fn, dst, 3, ins, 1);
    if (st != NB_OK) return st;
    memcpy(r->node->ia, attrs, sizeof(int64_t) * 11);
    if (nb_ag_needs(r, 1)) st = nb_ag_save_input(r, 0, input);
    if (st == NB_OK && nb_ag_needs(r, 0)) st = nb_ag_save_input(r, 1, weight);
    return st;
}

nb_status nb_agf_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride,
                        const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst,
                        nb_tensor** out) {
    if (stride == NULL || padding == NULL || dilation == NULL)  /* the op reports it */
        return nbi_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
    const int64_t attrs[11] = {stride[0],   stride[1],   padding[0], padding[1], padding[2], padding[3],
                               dilation[0], dilation[1], groups,     0,          0};
    nb_ag_rec r;
    nb_status st = conv_begin(&r, "conv2d", conv2d_bw, input, weight, bias, dst, attrs);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, &y);
    if (r.node == NULL) return st;
    return nb_ag_finish1(&r, st, y, out);
}

/* conv1d: the 2-D kernels on views of height 1. */
static nb_status conv1d_bw(nb_bw* b) {
    const nb_tensor_meta* in = b->node->in_meta;
    nb_tensor* go = bw_unsqueeze(b, b->go[0], 2);
    nb_tensor* x = bw_needs(b, 1) ? bw_unsqueeze(b, bw_saved(b, 0), 2) : NULL;
    nb_tensor* w = bw_needs(b, 0) ? bw_unsqueeze(b, bw_saved(b, 1), 2) : NULL;
    const int64_t in_hw[2] = {1, in[0].shape[2]}, k_hw[2] = {1, in[1].shape[2]};
    nb_tensor *gx, *gw;
    conv2d_grads(b, go, x, w, in_hw, k_hw, bw_needs(b, 0), bw_needs(b, 1), &gx, &gw);
    if (gx != NULL) bw_set(b, 0, bw_reshape(b, gx, in[0].shape, 3));
    if (gw != NULL) bw_set(b, 1, bw_reshape(b, gw, in[1].shape, 3));
    if (bw_needs(b, 2)) bw_set(b, 2, bw_sum_except(b, b->go[0], 3, 1));
    return b->st;
}

nb_status nb_agf_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride,
                        int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst,
                        nb_tensor** out) {
    const int64_t attrs[11] = {1, stride, 0, padding_left, 0, padding_right, 1, dilation, groups, 0, 0};
    nb_ag_rec r;
    nb_status st = conv_begin(&r, "conv1d", conv1d_bw, input, weight, bias, dst, attrs);
    nb_tensor* y = NULL;
    if (st == NB_OK)
        st = nbi_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, &y);
    if (r.node == NULL) return st;
    return nb_ag_finish1(&r, st, y, out);
}

/* conv_transpose2d(x, w) is the adjoint of conv2d(., w): its input gradient is conv2d(go, w) (cropped when
 * output_padding made the output longer than a stride covers), its weight gradient conv2d's weight gradient
 * with the roles of input and output exchanged. */
static nb_status conv_transpose2d_bw(nb_bw* b) {
    const nb_tensor_meta* in = b->node->in_meta;
    const int64_t* a = b->node->ia;
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) {
        nb_tensor* w = bw_saved(b, 1);
        nb_tensor* gx = BW_OP(b, nb_conv2d(go, w, NULL, a, a + 2, a + 6, a[8], NULL, &bw_r_));
        for (int32_t d = 2; d < 4 && gx != NULL; d++)
            if (gx->shape[d] != in[0].shape[d]) gx = BW_OP(b, nb_tensor_narrow(gx, d, 0, in[0].shape[d], &bw_r_));
        bw_set(b, 0, gx);
    }
    if (bw_needs(b, 1)) {
        nb_tensor* x = bw_saved(b, 0);
        nb_tensor* gw = BW_OP(b, nb_conv2d_backward_weight(x, go, in[1].shape + 2, a, a + 2, a + 6, a[8], NULL,
                                                           &bw_r_));
        const nb_tensor* deps[2] = {go, x};
        bw_once(b, deps, 2, &gw, 1);
        bw_set(b, 1, gw);
    }
    if (bw_needs(b, 2)) bw_set(b, 2, bw_sum_except(b, go, 4, 1));
    return b->st;
}

nb_status nb_agf_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias,
                                  const int64_t* stride, const int64_t* padding, const int64_t* output_padding,
                                  const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (stride == NULL || padding == NULL || output_padding == NULL || dilation == NULL)
        return nbi_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
    const int64_t attrs[11] = {stride[0],   stride[1],   padding[0], padding[1],        padding[0],       padding[1],
                               dilation[0], dilation[1], groups,     output_padding[0], output_padding[1]};
    nb_ag_rec r;
    nb_status st = conv_begin(&r, "conv_transpose2d", conv_transpose2d_bw, input, weight, bias, dst, attrs);
    nb_tensor* y = NULL;
    if (st == NB_OK)
        st = nbi_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, &y);
    if (r.node == NULL) return st;
    return nb_ag_finish1(&r, st, y, out);
}
