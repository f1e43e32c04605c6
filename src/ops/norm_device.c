/* norm_device.c: nb_bk_norm plans for the norms on a device backend (see
 * norm_device.h): x and grad_output made contiguous on the device (a device copy
 * only when they are not), outputs allocated there, one slot call. */
#include "norm_device.h"

#include "../core/runtime.h"

#include <string.h>

static bool same_float(const nb_tensor* t, int32_t dtype) { return t == NULL || t->dtype == dtype; }

bool nn_norm_fusable(const nb_tensor* x, const nb_tensor* weight, const nb_tensor* bias,
                     const nb_tensor* running_mean, const nb_tensor* running_var) {
    const nb_backend* b = nb_backend_of(x->storage->device_type);
    if (x->storage->device_type == NB_CPU || b == NULL || b->norm == NULL || x->numel == 0) return false;
    if (!same_float(weight, x->dtype) || !same_float(bias, x->dtype)) return false;
    if (running_mean != NULL && running_var != NULL && running_mean->dtype != running_var->dtype) return false;
    const nb_tensor* rs[2] = {running_mean, running_var};
    for (int i = 0; i < 2; i++)
        if (rs[i] != NULL && (!rs[i]->contiguous || !nb_dtype_is_floating(rs[i]->dtype))) return false;
    return true;
}

/* [N, C, S] of x for kind k. */
static void geometry(const nn_norm_kind* k, const nb_tensor* x, nb_bk_norm* p) {
    p->kind = k->kind;
    if (k->kind == NB_NK_LAYER) {
        p->C = 1;
        for (int32_t d = x->ndim - k->ndim; d < x->ndim; d++) p->C *= x->shape[d];
        p->N = x->numel / p->C, p->S = 1;
        return;
    }
    p->N = x->shape[0], p->C = x->shape[1];
    p->S = x->numel / (p->N * p->C);
    p->groups = k->groups;
}

static nb_status run(const char* op, nb_bk_norm* p, int32_t dt, int32_t di, nb_tensor** workspace) {
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_NORM, &b);
    const int64_t bytes = nb_bk_norm_workspace_bytes(p->kind, p->backward, p->N, p->C);
    *workspace = NULL;
    if (st == NB_OK && bytes > 0 && (st = nb_tensor_new(op, &bytes, 1, NB_U8, dt, di, workspace)) == NB_OK) {
        p->workspace = nb_tensor_data(*workspace);
        p->workspace_bytes = bytes;
    }
    p->name = op;
    if (st == NB_OK && (st = b->norm(di, p, nb_stream_current_of(dt, di)->native)) != NB_OK)
        st = nb_error(st, "%s: %s", op, b->last_error());
    return st;
}

static const void* data_or_null(const nb_tensor* t) { return t != NULL ? nb_tensor_data(t) : NULL; }

nb_status nn_norm_fused(const char* op, const nn_norm_kind* k, const nb_tensor* x, const nb_tensor* weight,
                        const nb_tensor* bias, nb_tensor* running_mean, nb_tensor* running_var, bool training,
                        double momentum, double eps, nb_tensor** y) {
    const int32_t dt = x->storage->device_type, di = x->storage->device_index;
    nb_bk_norm p;
    memset(&p, 0, sizeof p);
    geometry(k, x, &p);
    nb_tensor *xc = NULL, *w = NULL, *b = NULL, *r = NULL, *ws = NULL;
    nb_status st = nn_contig(x, x->dtype, &xc);
    if (st == NB_OK) st = nn_contig_opt(weight, x->dtype, &w);
    if (st == NB_OK) st = nn_contig_opt(bias, x->dtype, &b);
    if (st == NB_OK) st = nb_tensor_new(op, x->shape, x->ndim, x->dtype, dt, di, &r);
    if (st == NB_OK) {
        p.dtype = x->dtype;
        p.training = training;
        p.eps = eps, p.momentum = momentum;
        p.x = nb_tensor_data(xc), p.y = nb_tensor_data(r);
        p.weight = data_or_null(w), p.bias = data_or_null(b);
        p.running_mean = running_mean != NULL ? nb_tensor_data(running_mean) : NULL;
        p.running_var = running_var != NULL ? nb_tensor_data(running_var) : NULL;
        p.running_dtype = running_mean != NULL ? running_mean->dtype : running_var != NULL ? running_var->dtype : NB_F32;
        st = run(op, &p, dt, di, &ws);
    }
    if (st == NB_OK && training && running_mean != NULL) nb_tensor_bump_version(running_mean);
    if (st == NB_OK && training && running_var != NULL) nb_tensor_bump_version(running_var);
    nn_release(xc, w, b, ws, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *y = r;
    return NB_OK;
}

nb_status nn_norm_backward_fused(const char* op, const nn_norm_kind* k, const nb_tensor* go, const nb_tensor* x,
                                 const nb_tensor* weight, double eps, nb_tensor** dx, nb_tensor** dw, nb_tensor** db) {
    const int32_t dt = x->storage->device_type, di = x->storage->device_index;
    nb_bk_norm p;
    memset(&p, 0, sizeof p);
    geometry(k, x, &p);
    const int64_t np = p.C; /* parameters: one per column (LAYER) or channel */
    nb_tensor *xc = NULL, *gc = NULL, *w = NULL, *rx = NULL, *rw = NULL, *rb = NULL, *ws = NULL;
    nb_status st = nn_contig(x, x->dtype, &xc);
    if (st == NB_OK) st = nn_contig(go, x->dtype, &gc);
    if (st == NB_OK) st = nn_contig_opt(weight, x->dtype, &w);
    if (st == NB_OK && dx != NULL) st = nb_tensor_new(op, x->shape, x->ndim, x->dtype, dt, di, &rx);
    if (st == NB_OK && dw != NULL) st = nb_tensor_new(op, &np, 1, x->dtype, dt, di, &rw);
    if (st == NB_OK && db != NULL) st = nb_tensor_new(op, &np, 1, x->dtype, dt, di, &rb);
    if (st == NB_OK) {
        p.backward = 1;
        p.dtype = x->dtype;
        p.eps = eps;
        p.x = nb_tensor_data(xc), p.grad = nb_tensor_data(gc), p.weight = data_or_null(w);
        p.y = rx != NULL ? nb_tensor_data(rx) : NULL;
        p.grad_weight = rw != NULL ? nb_tensor_data(rw) : NULL;
        p.grad_bias = rb != NULL ? nb_tensor_data(rb) : NULL;
        st = run(op, &p, dt, di, &ws);
    }
    nn_release(xc, gc, w, ws, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nn_release(rx, rw, rb, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    if (dx != NULL) *dx = rx;
    if (dw != NULL) *dw = rw;
    if (db != NULL) *db = rb;
    return NB_OK;
}
