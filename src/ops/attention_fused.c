/* attention_fused.c: scaled_dot_product_attention through a device's fused
 * kernel (nb_bk_attention; on CUDA src/cuda/attention.cu): the plan's geometry,
 * which cases it covers, and the forward and backward launches. The [..., L, S]
 * weights are never materialised; the forward keeps the per-row logsumexp for the
 * backward, which recomputes them. Dropout reserves the Philox blocks nb_dropout
 * would for the weights, so the kept weights are the ones the composed path keeps. */
#include "attention.h"
#include "nn_common.h"
#include "random.h"
#include "../core/profiler.h"
#include "../core/runtime.h"

#include <stdlib.h>
#include <string.h>

static const char* const op = "scaled_dot_product_attention";

/* The strides of t aligned right against full[nd] (0 where t lacks a dim or has size 1
 * there); false when t has more dims or one that neither matches nor broadcasts. */
static bool align(const nb_tensor* t, const int64_t* full, int32_t nd, int64_t* strides) {
    if (t->ndim > nd) return false;
    for (int32_t i = 0; i < nd; i++) {
        const int32_t ti = i - (nd - t->ndim);
        if (ti < 0 || t->shape[ti] == 1) {
            strides[i] = 0;
        } else if (t->shape[ti] == full[i]) {
            strides[i] = t->strides[ti];
        } else {
            return false;
        }
    }
    return true;
}

/* The operand t as [batch..., rows, cols] of the plan (false: it does not fit). */
static bool operand(const nb_bk_attention* p, const nb_tensor* t, int64_t rows, int64_t cols,
                    nb_bk_attention_operand* o) {
    int64_t full[NB_BK_ATTENTION_MAX_BATCH + 2], strides[NB_BK_ATTENTION_MAX_BATCH + 2];
    memcpy(full, p->bshape, sizeof(int64_t) * (size_t)p->bndim);
    full[p->bndim] = rows, full[p->bndim + 1] = cols;
    if (!align(t, full, p->bndim + 2, strides)) return false;
    o->data = nb_tensor_data(t);
    memcpy(o->bstrides, strides, sizeof(int64_t) * (size_t)p->bndim);
    o->rs = strides[p->bndim], o->cs = strides[p->bndim + 1];
    return true;
}

/* Broadcasts the batch dims (all but the last two) of ts[n] into shape; false past max dims or on a mismatch. */
static bool batch_shape(const nb_tensor* const* ts, int32_t n, int64_t* shape, int32_t* ndim) {
    *ndim = 0;
    for (int32_t i = 0; i < n; i++)
        if (ts[i] != NULL && ts[i]->ndim - 2 > *ndim) *ndim = ts[i]->ndim - 2;
    if (*ndim > NB_BK_ATTENTION_MAX_BATCH) return false;
    for (int32_t d = 0; d < *ndim; d++) shape[d] = 1;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = ts[i];
        if (t == NULL) continue;
        const int32_t tb = t->ndim > 2 ? t->ndim - 2 : 0;
        for (int32_t d = 0; d < tb; d++) {
            const int64_t s = t->shape[d], at = *ndim - tb + d;
            if (s != 1 && shape[at] != 1 && shape[at] != s) return false;
            if (s != 1) shape[at] = s;
        }
    }
    return true;
}

static bool same_shape(const int64_t* a, int32_t an, const int64_t* b, int32_t bn) {
    return an == bn && memcmp(a, b, sizeof(int64_t) * (size_t)an) == 0;
}

/* Everything of the plan that the inputs decide; false when the kernel does not cover them. */
static bool geometry(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* mask,
                     double dropout_p, nb_bk_attention* p) {
    memset(p, 0, sizeof *p);
    p->name = op;
    p->dtype = q->dtype;
    p->L = q->shape[q->ndim - 2], p->S = k->shape[k->ndim - 2];
    p->E = q->shape[q->ndim - 1], p->Ev = v->shape[v->ndim - 1];
    p->mask_dtype = mask == NULL ? -1 : mask->dtype;
    const nb_tensor* const all[3] = {q, k, v};
    if (!batch_shape(all, 3, p->bshape, &p->bndim)) return false;
    int64_t batch = 1;
    for (int32_t i = 0; i < p->bndim; i++) batch *= p->bshape[i];
    if (batch == 0 || p->L == 0 || p->S == 0 || p->E > NB_BK_ATTENTION_MAX_HEAD_DIM || p->E < 1 ||
        p->Ev > NB_BK_ATTENTION_MAX_HEAD_DIM || p->Ev < 1)
        return false;
    if (mask != NULL && mask->dtype != NB_BOOL && mask->dtype != q->dtype) return false;
    if (dropout_p > 0) { /* the weights the composed path drops have the batch shape of q, k and the mask */
        const nb_tensor* const scores[3] = {q, k, mask};
        int64_t ws[NB_MAX_DIMS];
        int32_t wn;
        if (!batch_shape(scores, 3, ws, &wn) || !same_shape(ws, wn, p->bshape, p->bndim)) return false;
    }
    return operand(p, q, p->L, p->E, &p->q) && operand(p, k, p->S, p->E, &p->k) && operand(p, v, p->S, p->Ev, &p->v) &&
           (mask == NULL || operand(p, mask, p->L, p->S, &p->mask));
}

static bool on_device(const nb_tensor* t, int32_t device_index) {
    return t == NULL || (t->storage->device_type == NB_CUDA && t->storage->device_index == device_index);
}

bool nb_sdpa_fused_covers(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask,
                          double dropout_p) {
    const int32_t dev = q->storage->device_index;
    if (q->storage->device_type != NB_CUDA || !on_device(k, dev) || !on_device(v, dev) || !on_device(attn_mask, dev))
        return false;
    if (nb_backend_of(NB_CUDA)->attention == NULL || !nn_fused_enabled("NABLA_SDPA_FUSED")) return false;
    nb_bk_attention p;
    return geometry(q, k, v, attn_mask, dropout_p, &p);
}

/* A new contiguous tensor [batch..., a] or [batch..., a, b] (b < 0: none) on t's device. */
static nb_status batch_tensor(const nb_bk_attention* p, const nb_tensor* t, int64_t a, int64_t b, int32_t dtype,
                              nb_tensor** out) {
    int64_t shape[NB_BK_ATTENTION_MAX_BATCH + 2];
    memcpy(shape, p->bshape, sizeof(int64_t) * (size_t)p->bndim);
    shape[p->bndim] = a, shape[p->bndim + 1] = b;
    return nb_tensor_new(op, shape, p->bndim + (b < 0 ? 1 : 2), dtype, NB_CUDA, t->storage->device_index, out);
}

static nb_status launch(const nb_bk_attention* p, int32_t device_index, const nb_tensor* const* inputs, int32_t n) {
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, NB_CUDA, NB_FAMILY_ATTENTION, &b);
    if (st != NB_OK) return st;
    const char* name = p->backward ? "_scaled_dot_product_flash_attention_backward"
                                   : "_scaled_dot_product_flash_attention";
    const int64_t prof = nb_prof_active() ? nb_prof_op_begin(name, inputs, n) : -1;
    st = b->attention(device_index, p, nb_stream_current_of(NB_CUDA, device_index)->native);
    if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    if (prof >= 0) nb_prof_op_end(prof, st, NULL);
    return st;
}

static int32_t lse_dtype(int32_t dtype) { return dtype == NB_F64 ? NB_F64 : NB_F32; }

nb_status nb_sdpa_fused_forward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale,
                                nb_generator* gen, nb_tensor** out, nb_tensor** lse, uint64_t rng[2]) {
    nb_bk_attention p;
    if (!geometry(q, k, v, attn_mask, dropout_p, &p))
        return nb_error(NB_ERR_INTERNAL, "%s: the fused kernel does not cover these arguments", op);
    p.is_causal = is_causal != 0;
    p.scale = nb_sdpa_scale(q, scale);
    p.dropout_p = dropout_p;
    nb_generator* g = NULL;
    nb_status st = dropout_p > 0 ? nb_rng_resolve("dropout", gen, &g) : NB_OK;  /* the composed path's message */
    nb_tensor *o = NULL, *l = NULL;
    if (st == NB_OK) st = batch_tensor(&p, q, p.L, p.Ev, q->dtype, &o);
    if (st == NB_OK) st = batch_tensor(&p, q, p.L, -1, lse_dtype(q->dtype), &l);
    if (st == NB_OK) {
        (void)operand(&p, o, p.L, p.Ev, &p.out);
        p.lse = nb_tensor_data(l);
        if (g != NULL) { /* the blocks nb_dropout reserves for the [batch..., L, S] weights */
            int64_t weights = p.L * p.S;
            for (int32_t i = 0; i < p.bndim; i++) weights *= p.bshape[i];
            const nb_philox ph = nb_rng_reserve(g, (uint64_t)((weights + 3) / 4));
            p.seed = ((uint64_t)ph.k1 << 32) | ph.k0, p.offset = ph.base;
        }
        const nb_tensor* const inputs[4] = {q, k, v, attn_mask};
        st = launch(&p, q->storage->device_index, inputs, 4);
    }
    if (st != NB_OK) {
        nb_tensor_release(o);
        nb_tensor_release(l);
        return st;
    }
    if (rng != NULL) rng[0] = p.seed, rng[1] = p.offset;
    *out = o;
    *lse = l;
    return NB_OK;
}

nb_status nb_sdpa_fused_backward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                 const nb_tensor* attn_mask, const nb_tensor* out, const nb_tensor* lse,
                                 const nb_tensor* grad_out, int32_t is_causal, double scale, double dropout_p,
                                 const uint64_t rng[2], nb_tensor** dq, nb_tensor** dk, nb_tensor** dv) {
    nb_bk_attention p;
    if (!geometry(q, k, v, attn_mask, dropout_p, &p))
        return nb_error(NB_ERR_INTERNAL, "%s: the fused kernel does not cover these arguments", op);
    p.backward = 1;
    p.is_causal = is_causal != 0;
    p.scale = scale;
    p.dropout_p = dropout_p;
    p.seed = rng[0], p.offset = rng[1];
    p.lse = nb_tensor_data(lse);
    nb_tensor *go = NULL, *delta = NULL, *g[3] = {NULL, NULL, NULL};
    nb_status st = NB_OK;
    if (grad_out->dtype == q->dtype && on_device(grad_out, q->storage->device_index)) {
        nb_tensor_retain((nb_tensor*)grad_out);
        go = (nb_tensor*)grad_out;
    } else {
        st = nb_tensor_to(grad_out, q->dtype, NB_CUDA, q->storage->device_index, 0, &go);
    }
    if (st == NB_OK && (!operand(&p, out, p.L, p.Ev, &p.out) || !operand(&p, go, p.L, p.Ev, &p.grad_out)))
        st = nb_error(NB_ERR_SHAPE, "%s: the gradient %s does not fit the output %s", op,
                      nb_shape_str(go->shape, go->ndim), nb_shape_str(out->shape, out->ndim));
    if (st == NB_OK) st = batch_tensor(&p, q, p.L, -1, lse_dtype(q->dtype), &delta);
    if (st == NB_OK) st = batch_tensor(&p, q, p.L, p.E, q->dtype, &g[0]);
    if (st == NB_OK) st = batch_tensor(&p, q, p.S, p.E, q->dtype, &g[1]);
    if (st == NB_OK) st = batch_tensor(&p, q, p.S, p.Ev, q->dtype, &g[2]);
    if (st == NB_OK) {
        p.delta = nb_tensor_data(delta);
        nb_bk_attention_operand* const ops[3] = {&p.dq, &p.dk, &p.dv};
        for (int32_t i = 0; i < 3; i++) (void)operand(&p, g[i], g[i]->shape[p.bndim], g[i]->shape[p.bndim + 1], ops[i]);
        const nb_tensor* const inputs[5] = {go, q, k, v, attn_mask};
        st = launch(&p, q->storage->device_index, inputs, 5);
    }
    nb_tensor_release(delta);
    nb_tensor_release(go);
    if (st != NB_OK) {
        for (int32_t i = 0; i < 3; i++) nb_tensor_release(g[i]);
        return st;
    }
    *dq = g[0], *dk = g[1], *dv = g[2];
    return NB_OK;
}
