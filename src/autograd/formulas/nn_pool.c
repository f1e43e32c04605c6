/* nn_pool.c: formulas of the 2-D poolings, through their backward kernels
 * (nb_max_pool2d_backward, nb_avg_pool2d_backward, nb_adaptive_avg_pool2d_backward).
 * Each of these is linear in the output gradient, so a second derivative needs only
 * its adjoint: the forward pooling for the averages, a gather at the argmax
 * positions for max; under create_graph that adjoint is recorded as their node. */
#include "nn.h"
#include "../../ops/pool_device.h"

#include <string.h>

/* ---- the backward kernels as differentiable steps: y = kernel(go), whose gradient is adjoint(ggy) ---- */

typedef nb_status (*pool_kernel_fn)(const nb_node* n, const nb_tensor* go, const nb_tensor* idx, nb_tensor** out);

static nb_status max_kernel(const nb_node* n, const nb_tensor* go, const nb_tensor* idx, nb_tensor** out) {
    const int64_t* a = n->ia;
    return nn_max_pool2d_backward_window(go, idx, a + 12, a, a + 2, a + 4, a + 8, NULL, out);
}
static nb_status avg_kernel(const nb_node* n, const nb_tensor* go, const nb_tensor* idx, nb_tensor** out) {
    (void)idx;
    const int64_t* a = n->ia;
    return nb_avg_pool2d_backward(go, a + 12, a, a + 2, a + 4, (int32_t)a[6], a[7], NULL, out);
}
static nb_status adaptive_kernel(const nb_node* n, const nb_tensor* go, const nb_tensor* idx, nb_tensor** out) {
    (void)idx;
    return nb_adaptive_avg_pool2d_backward(go, n->ia + 12, NULL, out);
}

/* Adjoints (ia as the pooling's node; ia[14..15] the pooled size). */
static nb_status pool_kernel_bw(nb_bw* b) {
    const int64_t* a = b->node->ia;
    nb_tensor* gg = b->go[0];
    nb_tensor* r;
    switch (a[16]) {
    case 0: { /* max: gather ggy at the argmax positions, plane by plane */
        nb_tensor* idx = bw_saved(b, 0);
        const int64_t planes[3] = {idx ? idx->shape[0] : 0, idx ? idx->shape[1] : 0, -1};
        nb_tensor* flat = bw_reshape(b, gg, planes, 3);
        nb_tensor* iflat = bw_reshape(b, idx, planes, 3);
        r = BW_OP(b, nb_gather(flat, 2, iflat, &bw_r_));
        r = idx != NULL ? bw_reshape(b, r, idx->shape, 4) : NULL;
        break;
    }
    case 1: {
        const int32_t ceil_mode = 1; /* the pooled size decides; crop below when ceil adds a cell */
        r = BW_OP(b, nb_avg_pool2d(gg, a, a + 2, a + 4, ceil_mode, (int32_t)a[6], a[7], NULL, &bw_r_));
        for (int32_t d = 2; d < 4 && r != NULL; d++)
            if (r->shape[d] != a[14 + d - 2]) r = BW_OP(b, nb_tensor_narrow(r, d, 0, a[14 + d - 2], &bw_r_));
        break;
    }
    default: r = BW_OP(b, nb_adaptive_avg_pool2d(gg, a + 14, NULL, &bw_r_)); break;
    }
    bw_set(b, 0, r);
    return b->st;
}

/* Runs the pooling's backward kernel on go; records it (with its adjoint) when create_graph asks. */
static nb_tensor* bw_pool_kernel(nb_bw* b, pool_kernel_fn kernel, const nb_tensor* go, const nb_tensor* idx) {
    if (b->st != NB_OK) return NULL;
    nb_tensor* res = NULL;
    nb_status st;
    if (bw_recording(&go, 1)) {
        nb_ag_rec r;
        st = nb_ag_begin(&r, b->node->name, b->node->name, pool_kernel_bw, NULL, 1, &go, 1);
        if (st == NB_OK) {
            memcpy(r.node->ia, b->node->ia, sizeof(int64_t) * 17);
            if (idx != NULL) st = nb_ag_save_input(&r, 0, idx);
            if (st == NB_OK) st = kernel(b->node, go, idx, &res);
            st = nb_ag_end1(&r, st, res);
        }
    } else {
        st = kernel(b->node, go, idx, &res);
    }
    return bw_keep(b, st, res);
}

/* Attributes: ia[0..1] kernel, ia[2..3] stride, ia[4..5] padding, ia[6] count_include_pad, ia[7] divisor,
 * ia[8..9] dilation (max), ia[12..13] the input's (H, W), ia[14..15] the output's, ia[16] the kind (0 max, 1 avg, 2 adaptive). */
static void store_sizes(nb_node* n, const nb_tensor* input, const nb_tensor* y, int64_t kind) {
    n->ia[12] = input->shape[2], n->ia[13] = input->shape[3];
    n->ia[14] = y->shape[2], n->ia[15] = y->shape[3];
    n->ia[16] = kind;
}

/* ---- max_pool2d: saved 0 = the argmax indices ---- */

static nb_status max_pool2d_bw(nb_bw* b) {
    bw_set(b, 0, bw_pool_kernel(b, max_kernel, b->go[0], bw_saved(b, 0)));
    return b->st;
}

nb_status nb_agf_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride,
                            const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices,
                            nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "max_pool2d", "MaxPool2DWithIndicesBackward0", max_pool2d_bw, dst, 1, &input, 1);
    if (st != NB_OK) return st;
    nb_tensor *y = NULL, *idx = NULL;
    st = nbi_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, &idx, dst, &y);
    if (st == NB_OK) {  /* the op checked the arrays */
        int64_t* a = r.node->ia;
        const int64_t* s = stride != NULL ? stride : kernel_size;
        a[0] = kernel_size[0], a[1] = kernel_size[1], a[2] = s[0], a[3] = s[1], a[4] = padding[0], a[5] = padding[1];
        a[8] = dilation != NULL ? dilation[0] : 1, a[9] = dilation != NULL ? dilation[1] : 1;
        store_sizes(r.node, input, y, 0);
        st = nb_ag_save_input(&r, 0, idx);
    }
    st = nb_ag_finish1(&r, st, y, out);
    if (st == NB_OK && indices != NULL) *indices = idx;
    else nb_tensor_release(idx);
    return st;
}

/* ---- avg_pool2d ---- */

static nb_status avg_pool2d_bw(nb_bw* b) {
    bw_set(b, 0, bw_pool_kernel(b, avg_kernel, b->go[0], NULL));
    return b->st;
}

nb_status nb_agf_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride,
                            const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad,
                            int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "avg_pool2d", "AvgPool2DBackward0", avg_pool2d_bw, dst, 1, &input, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst, &y);
    if (st == NB_OK) {  /* the op checked the arrays */
        int64_t* a = r.node->ia;
        const int64_t* s = stride != NULL ? stride : kernel_size;
        a[0] = kernel_size[0], a[1] = kernel_size[1], a[2] = s[0], a[3] = s[1], a[4] = padding[0], a[5] = padding[1];
        a[6] = count_include_pad != 0, a[7] = divisor_override;
        store_sizes(r.node, input, y, 1);
    }
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- adaptive_avg_pool2d ---- */

static nb_status adaptive_avg_pool2d_bw(nb_bw* b) {
    bw_set(b, 0, bw_pool_kernel(b, adaptive_kernel, b->go[0], NULL));
    return b->st;
}

nb_status nb_agf_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst,
                                     nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", adaptive_avg_pool2d_bw, dst,
                               1, &input, 1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_adaptive_avg_pool2d(input, output_size, dst, &y);
    if (st == NB_OK) store_sizes(r.node, input, y, 2);
    return nb_ag_finish1(&r, st, y, out);
}
