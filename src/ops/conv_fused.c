/* conv_fused.c: convolution passes through a device's conv kernel (nb_bk_conv; on
 * CUDA src/cuda/conv.cu): which operands it takes, the plan (operands read through
 * their strides, so transposed and sliced inputs need no copy; conv1d's 3-d
 * operands as height-1 ones), the weight gradient's reduction slices and their
 * workspace. Anything it does not take stays with conv_composed.c, and so does
 * everything when NABLA_CONV_FUSED=0. */
#include "conv_fused.h"
#include "../core/runtime.h"

#include <stdlib.h>
#include <string.h>

/* The kernel's output tile (src/cuda/conv.cu) and the grid's y / z limit. */
enum { TILE = 64, MAX_GRID = 65535 };

static bool float_dtype(int32_t d) { return d == NB_F32 || d == NB_F64 || d == NB_F16 || d == NB_BF16; }

bool nn_conv_fused_takes(const conv_geom* g, const nb_tensor* a, const nb_tensor* b, const nb_tensor* bias) {
    if (a->storage->device_type != NB_CUDA || nb_backend_of(NB_CUDA)->conv == NULL ||
        !nn_fused_enabled("NABLA_CONV_FUSED"))
        return false;
    if (!float_dtype(a->dtype) || b->dtype != a->dtype || (bias != NULL && bias->dtype != a->dtype)) return false;
    if (a->ndim < 3 || a->ndim > 4 || b->ndim != a->ndim) return false;
    const int64_t Cg = g->C / g->groups, Og = g->O / g->groups;
    return g->groups <= MAX_GRID && (Cg + TILE - 1) / TILE <= MAX_GRID && (Og + TILE - 1) / TILE <= MAX_GRID;
}

/* t as a 4-d operand: conv1d's [N, C, L] gets a height-1 dim of stride 0. */
static nb_bk_conv_operand operand(const nb_tensor* t) {
    nb_bk_conv_operand o;
    o.data = nb_tensor_data(t);
    if (t->ndim == 4) {
        memcpy(o.s, t->strides, sizeof o.s);
    } else {
        o.s[0] = t->strides[0], o.s[1] = t->strides[1], o.s[2] = 0, o.s[3] = t->strides[2];
    }
    return o;
}

/* Slices of the weight gradient's reduction over N * OH * OW: enough blocks to fill a large GPU when the
 * output tiles are few, each slice at least 1024 long. A function of the shape alone, so results repeat. */
static int64_t weight_splits(const conv_geom* g) {
    const int64_t K = g->N * g->OH * g->OW, Cg = g->C / g->groups, Og = g->O / g->groups;
    const int64_t tiles = ((Og + TILE - 1) / TILE) * ((Cg * g->kh * g->kw + TILE - 1) / TILE) * g->groups;
    int64_t s = 512 / tiles;
    if (s > K / 1024) s = K / 1024;
    if (s > 256) s = 256;
    if (s > MAX_GRID / g->groups) s = MAX_GRID / g->groups;
    return s < 1 ? 1 : s;
}

static nb_status launch(const char* op, const nb_bk_conv* p, int32_t device_index) {
    const nb_backend* be;
    nb_status st = nb_backend_slot(op, NB_CUDA, NB_FAMILY_CONV, &be);
    if (st != NB_OK) return st;
    st = be->conv(device_index, p, nb_stream_current_of(NB_CUDA, device_index)->native);
    return st == NB_OK ? NB_OK : nb_error(st, "%s: %s", op, be->last_error());
}

nb_status nn_conv_fused(const char* op, int32_t kind, const conv_geom* g, const nb_tensor* a, const nb_tensor* b,
                        const nb_tensor* bias, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    const int32_t dev = a->storage->device_index;
    nb_bk_conv p;
    memset(&p, 0, sizeof p);
    p.name = op, p.kind = kind, p.dtype = a->dtype;
    p.N = g->N, p.C = g->C, p.H = g->H, p.W = g->W, p.O = g->O, p.kh = g->kh, p.kw = g->kw, p.OH = g->OH;
    p.OW = g->OW, p.sh = g->sh, p.sw = g->sw, p.pt = g->pt, p.pl = g->pl, p.dh = g->dh, p.dw = g->dw;
    p.groups = g->groups;
    p.splits = 1;
    if (kind == NB_CONV_FORWARD) p.x = operand(a), p.w = operand(b);
    else if (kind == NB_CONV_INPUT_GRAD) p.dy = operand(a), p.w = operand(b);
    else p.dy = operand(a), p.x = operand(b);
    nb_tensor *bc = NULL, *ws = NULL, *y = NULL;
    nb_status st = NB_OK;
    if (bias != NULL) {  /* the kernel reads the bias densely */
        st = nb_tensor_contiguous(bias, &bc);
        if (st == NB_OK) p.bias = nb_tensor_data(bc);
    }
    if (st == NB_OK && kind == NB_CONV_WEIGHT_GRAD && (p.splits = weight_splits(g)) > 1) {
        const int64_t n = p.splits * g->O * (g->C / g->groups) * g->kh * g->kw;
        st = nb_tensor_new(op, &n, 1, a->dtype == NB_F64 ? NB_F64 : NB_F32, NB_CUDA, dev, &ws);
        if (st == NB_OK) p.workspace = nb_tensor_data(ws);
    }
    if (st == NB_OK) st = nb_tensor_new(op, shape, ndim, a->dtype, NB_CUDA, dev, &y);
    if (st == NB_OK) {
        p.out = nb_tensor_data(y);
        st = launch(op, &p, dev);
    }
    nb_tensor_release(bc);
    nb_tensor_release(ws);  /* the caching allocator keeps it for the stream until the kernels ran */
    if (st != NB_OK) {
        nb_tensor_release(y);
        return st;
    }
    *out = y;
    return NB_OK;
}

nb_status nn_conv_transpose_fused(const char* op, const conv_geom* g, const nb_tensor* x, const nb_tensor* w,
                                  const nb_tensor* bias, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    conv_geom t = *g;  /* the adjoint convolution: [N, O, OH, OW] -> [N, C, H, W], weight [C, O / groups, kh, kw] */
    t.C = g->O, t.O = g->C, t.H = g->OH, t.W = g->OW, t.OH = g->H, t.OW = g->W;
    return nn_conv_fused(op, NB_CONV_INPUT_GRAD, &t, x, w, bias, shape, ndim, out);
}
