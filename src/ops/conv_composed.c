/* conv_composed.c: convolution on devices without convolution kernels (CUDA today).
 * The input is zero-padded once; for every group and kernel tap (i, j) the window
 * x_p[:, group, i dh :: sh, j dw :: sw] is a strided view, and the tap's weights
 * [Og, Cg] multiply it as one batched matmul. The input gradient adds each tap's
 * W^T go into the same windows of a zero padded tensor, then crops; the weight
 * gradient is go windows^T summed over the batch. G * kh * kw matmuls each. A
 * transposed convolution is the input gradient of the convolution it is the
 * adjoint of (its gradients are conv2d and the weight gradient, see nn_conv.c). */
#include "conv_composed.h"

#include "composed.h"

/* A new reference to a contiguous [N, C, H + pads, W + pads] copy of x in kd, zero-padded. */
static nb_tensor* padded(nb_cx* e, const conv_geom* g, const nb_tensor* x4, int32_t kd, int64_t pb, int64_t pr) {
    nb_tensor* c = cx_cast(e, x4, kd);
    if (e->st != NB_OK) return NULL;
    const int64_t pads[4] = {g->pl, pr, g->pt, pb};
    nb_tensor* r = NULL;
    const nb_status st = nb_pad(c, pads, 4, NB_PAD_CONSTANT, 0.0, NULL, &r);
    nb_tensor* k = cx_keep(e, st, r);
    if (k == NULL || k->contiguous) return k;
    nb_tensor* d = NULL;
    const nb_status st2 = nb_tensor_contiguous(k, &d);
    return cx_keep(e, st2, d);
}

/* The window of group gi and tap (i, j) of the contiguous padded input p: [N, Cg, OH, OW]. */
static nb_tensor* window(nb_cx* e, const conv_geom* g, const nb_tensor* p, int64_t gi, int64_t i, int64_t j) {
    if (e->st != NB_OK) return NULL;
    const int64_t Cg = g->C / g->groups, Hp = p->shape[2], Wp = p->shape[3];
    const int64_t shape[4] = {g->N, Cg, g->OH, g->OW};
    const int64_t strides[4] = {g->C * Hp * Wp, Hp * Wp, g->sh * Wp, g->sw};
    const int64_t off = nb_tensor_storage_offset(p) + gi * Cg * Hp * Wp + i * g->dh * Wp + j * g->dw;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_as_strided(p, shape, strides, 4, off, &r);
    return cx_keep(e, st, r);
}

/* The weights of group gi at tap (i, j) of the contiguous w4 [O, Cg, kh, kw]: [Og, Cg]. */
static nb_tensor* tap(nb_cx* e, const conv_geom* g, const nb_tensor* w4, int64_t gi, int64_t i, int64_t j) {
    if (e->st != NB_OK) return NULL;
    const int64_t Cg = g->C / g->groups, Og = g->O / g->groups;
    const int64_t shape[2] = {Og, Cg}, strides[2] = {Cg * g->kh * g->kw, g->kh * g->kw};
    const int64_t off = nb_tensor_storage_offset(w4) + gi * Og * Cg * g->kh * g->kw + i * g->kw + j;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_as_strided(w4, shape, strides, 2, off, &r);
    return cx_keep(e, st, r);
}

/* Channels [c0, c0 + n) of a contiguous [N, C, H, W] tensor t, as a view. */
static nb_tensor* channels(nb_cx* e, const nb_tensor* t, int64_t c0, int64_t n) {
    if (e->st != NB_OK) return NULL;
    const int64_t C = t->shape[1], HW = t->shape[2] * t->shape[3];
    const int64_t shape[4] = {t->shape[0], n, t->shape[2], t->shape[3]};
    const int64_t strides[4] = {C * HW, HW, t->shape[3], 1};
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_as_strided(t, shape, strides, 4, nb_tensor_storage_offset(t) + c0 * HW, &r);
    return cx_keep(e, st, r);
}

static nb_tensor* matmul(nb_cx* e, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_matmul(a, b, NULL, &r);
    return cx_keep(e, st, r);
}

static nb_tensor* zeros(nb_cx* e, const int64_t* shape, int32_t kd, const nb_tensor* like) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_full(shape, 4, 0.0, kd, like->storage->device_type, like->storage->device_index, &r);
    return cx_keep(e, st, r);
}


static nb_tensor* as4(nb_cx* e, const nb_tensor* t, const conv_geom* g, bool input_layout) {
    const int64_t shape[4] = {t->shape[0], t->shape[1], input_layout ? g->H : g->kh, input_layout ? g->W : g->kw};
    return cx_reshape(e, t, shape, 4);
}

/* The padded input's extra rows and columns after the data (bottom and right). */
static void trailing_pads(const conv_geom* g, int64_t* pb, int64_t* pr) {
    const int64_t need_h = (g->OH - 1) * g->sh + (g->kh - 1) * g->dh + 1;
    const int64_t need_w = (g->OW - 1) * g->sw + (g->kw - 1) * g->dw + 1;
    *pb = need_h - g->H - g->pt > 0 ? need_h - g->H - g->pt : 0;
    *pr = need_w - g->W - g->pl > 0 ? need_w - g->W - g->pl : 0;
}

static nb_status finish(nb_cx* e, nb_tensor* r, nb_tensor** out) {
    if (e->st == NB_OK) {
        nb_tensor_retain(r);
        *out = r;
    }
    const nb_status st = e->st;
    nb_cx_release(e);
    return st;
}

nb_status nn_conv_composed(const conv_geom* g, const nb_tensor* x, const nb_tensor* w, const nb_tensor* bias,
                           int32_t kd, nb_tensor** out) {
    nb_cx e = NB_CX_INIT; /* what lives through the whole call: the padded input, the weights, y */
    int64_t pb, pr;
    trailing_pads(g, &pb, &pr);
    nb_tensor* p = padded(&e, g, as4(&e, x, g, true), kd, pb, pr);
    nb_tensor* w4 = cx_cast(&e, as4(&e, w, g, false), kd);
    if (w4 != NULL && !w4->contiguous) {
        nb_tensor* c = NULL;
        const nb_status st = nb_tensor_contiguous(w4, &c);
        w4 = cx_keep(&e, st, c);
    }
    const int64_t G = g->groups, Og = g->O / G, Cg = g->C / G, L = g->OH * g->OW;
    const int64_t yshape[4] = {g->N, g->O, g->OH, g->OW};
    nb_tensor* y = zeros(&e, yshape, kd, x);
    const int64_t flat[3] = {g->N, Cg, L}, oflat[4] = {g->N, Og, g->OH, g->OW};
    for (int64_t gi = 0; gi < G && e.st == NB_OK; gi++) {
        nb_cx ge = NB_CX_INIT; /* one group's output view */
        nb_tensor* yg = channels(&ge, y, gi * Og, Og);
        for (int64_t i = 0; i < g->kh && ge.st == NB_OK; i++)
            for (int64_t j = 0; j < g->kw && ge.st == NB_OK; j++) {
                nb_cx t = NB_CX_INIT; /* one tap's temporaries */
                nb_tensor* win = cx_reshape(&t, window(&t, g, p, gi, i, j), flat, 3);
                nb_tensor* prod = cx_reshape(&t, matmul(&t, tap(&t, g, w4, gi, i, j), win), oflat, 4);
                if (t.st == NB_OK) t.st = nb_add(yg, prod, 1.0, yg, NULL);
                ge.st = t.st;
                nb_cx_release(&t);
            }
        e.st = ge.st;
        nb_cx_release(&ge);
    }
    if (bias != NULL) {
        const int64_t bshape[4] = {1, g->O, 1, 1};
        nb_tensor* b4 = cx_reshape(&e, cx_cast(&e, bias, kd), bshape, 4);
        if (e.st == NB_OK) e.st = nb_add(y, b4, 1.0, y, NULL);
    }
    return finish(&e, y, out);
}

static nb_tensor* transposed(nb_cx* e, const nb_tensor* t, int64_t d0, int64_t d1) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_transpose(t, d0, d1, &r);
    return cx_keep(e, st, r);
}

/* A contiguous kd copy of t (t itself when it is one already). */
static nb_tensor* dense(nb_cx* e, const nb_tensor* t, int32_t kd) {
    nb_tensor* c = cx_cast(e, t, kd);
    if (c == NULL || c->contiguous) return c;
    nb_tensor* d = NULL;
    const nb_status st = nb_tensor_contiguous(c, &d);
    return cx_keep(e, st, d);
}

nb_status nn_conv_backward_input_composed(const conv_geom* g, const nb_tensor* go, const nb_tensor* w, int32_t kd,
                                          nb_tensor** out) {
    nb_cx e = NB_CX_INIT; /* the padded gradient, go and the weights */
    int64_t pb, pr;
    trailing_pads(g, &pb, &pr);
    const int64_t G = g->groups, Og = g->O / G, Cg = g->C / G, L = g->OH * g->OW;
    const int64_t pshape[4] = {g->N, g->C, g->H + g->pt + pb, g->W + g->pl + pr};
    nb_tensor* p = zeros(&e, pshape, kd, go);
    nb_tensor* g4 = dense(&e, go, kd);
    nb_tensor* w4 = dense(&e, w, kd);
    const int64_t gflat[3] = {g->N, Og, L}, cshape[4] = {g->N, Cg, g->OH, g->OW};
    for (int64_t gi = 0; gi < G && e.st == NB_OK; gi++) {
        nb_cx ge = NB_CX_INIT;
        nb_tensor* gog = cx_reshape(&ge, channels(&ge, g4, gi * Og, Og), gflat, 3);
        for (int64_t i = 0; i < g->kh && ge.st == NB_OK; i++)
            for (int64_t j = 0; j < g->kw && ge.st == NB_OK; j++) {
                nb_cx t = NB_CX_INIT;
                nb_tensor* part = cx_reshape(&t, matmul(&t, transposed(&t, tap(&t, g, w4, gi, i, j), 0, 1), gog),
                                             cshape, 4);
                nb_tensor* win = window(&t, g, p, gi, i, j);
                if (t.st == NB_OK) t.st = nb_add(win, part, 1.0, win, NULL);
                ge.st = t.st;
                nb_cx_release(&t);
            }
        e.st = ge.st;
        nb_cx_release(&ge);
    }
    /* crop the padding: [N, C, H, W] at (pt, pl) */
    nb_tensor* crop = NULL;
    if (e.st == NB_OK) {
        const int64_t shape[4] = {g->N, g->C, g->H, g->W};
        const int64_t strides[4] = {pshape[1] * pshape[2] * pshape[3], pshape[2] * pshape[3], pshape[3], 1};
        nb_tensor* v = NULL;
        nb_status st = nb_tensor_as_strided(p, shape, strides, 4,
                                            nb_tensor_storage_offset(p) + g->pt * pshape[3] + g->pl, &v);
        if (st == NB_OK) st = nb_tensor_contiguous(v, &crop);
        nb_tensor_release(v);
        e.st = st;
    }
    const nb_status st = e.st;
    nb_cx_release(&e);
    if (st == NB_OK) *out = crop;
    return st;
}

nb_status nn_conv_backward_weight_composed(const conv_geom* g, const nb_tensor* go, const nb_tensor* x, int32_t kd,
                                           nb_tensor** out) {
    nb_cx e = NB_CX_INIT;
    int64_t pb, pr;
    trailing_pads(g, &pb, &pr);
    const int64_t G = g->groups, Og = g->O / G, Cg = g->C / G, L = g->OH * g->OW;
    nb_tensor* p = padded(&e, g, x, kd, pb, pr);
    nb_tensor* g4 = dense(&e, go, kd);
    const int64_t wshape[4] = {g->O, Cg, g->kh, g->kw};
    nb_tensor* dw = zeros(&e, wshape, kd, go);
    const int64_t gflat[3] = {g->N, Og, L}, xflat[3] = {g->N, Cg, L};
    const int64_t batch = 0;
    for (int64_t gi = 0; gi < G && e.st == NB_OK; gi++) {
        nb_cx ge = NB_CX_INIT;
        nb_tensor* gog = cx_reshape(&ge, channels(&ge, g4, gi * Og, Og), gflat, 3);
        for (int64_t i = 0; i < g->kh && ge.st == NB_OK; i++)
            for (int64_t j = 0; j < g->kw && ge.st == NB_OK; j++) {
                nb_cx t = NB_CX_INIT; /* [N, Og, L] @ [N, L, Cg], summed over N */
                nb_tensor* win = transposed(&t, cx_reshape(&t, window(&t, g, p, gi, i, j), xflat, 3), 1, 2);
                nb_tensor* prod = matmul(&t, gog, win);
                nb_tensor* sum = cx_sum_dims(&t, prod, &batch, 1, false);
                nb_tensor* dst = tap(&t, g, dw, gi, i, j);
                if (t.st == NB_OK) t.st = nb_tensor_copy_(dst, sum);
                ge.st = t.st;
                nb_cx_release(&t);
            }
        e.st = ge.st;
        nb_cx_release(&ge);
    }
    return finish(&e, dw, out);
}

nb_status nn_conv_transpose_composed(const conv_geom* g, const nb_tensor* x, const nb_tensor* w,
                                     const nb_tensor* bias, int32_t kd, nb_tensor** out) {
    /* the adjoint convolution: input [N, O, OH, OW] -> output [N, C, H, W], weight [C, O / groups, kh, kw] */
    conv_geom t = *g;
    t.C = g->O, t.O = g->C, t.H = g->OH, t.W = g->OW, t.OH = g->H, t.OW = g->W;
    nb_cx e = NB_CX_INIT;
    const int64_t xshape[4] = {g->N, g->C, g->H, g->W}, wshape[4] = {g->C, g->O / g->groups, g->kh, g->kw};
    nb_tensor* x4 = cx_reshape(&e, x, xshape, 4);
    nb_tensor* w4 = cx_reshape(&e, w, wshape, 4);
    nb_tensor* y = NULL;
    if (e.st == NB_OK) e.st = nn_conv_backward_input_composed(&t, x4, w4, kd, &y);
    if (e.st == NB_OK && bias != NULL) {
        const int64_t bshape[4] = {1, g->O, 1, 1};
        nb_tensor* b4 = cx_reshape(&e, cx_cast(&e, bias, kd), bshape, 4);
        if (e.st == NB_OK) e.st = nb_add(y, b4, 1.0, y, NULL);
    }
    const nb_status st = e.st;
    nb_cx_release(&e);
    if (st == NB_OK) *out = y;
    else nb_tensor_release(y);
    return st;
}
