/* norm_composed.c: layer_norm forward and backward on devices without norm kernels
 * (CUDA today), from the mean/var reductions and elementwise ops every backend has.
 * norm.c and norm_backward.c validate and keep every message; the statistics are
 * recomputed in backward, as the host kernels do. */
#include "norm_composed.h"

#include "composed.h"

/* The normalized dims (the last ndim) and the batch dims (the rest) of x. */
typedef struct {
    int64_t norm[NB_MAX_DIMS], batch[NB_MAX_DIMS];
    int32_t nnorm, nbatch;
} ln_dims;

static ln_dims dims_of(const nb_tensor* x, int32_t ndim) {
    ln_dims d = {.nnorm = 0, .nbatch = 0};
    for (int32_t i = 0; i < x->ndim; i++) {
        if (i < x->ndim - ndim) d.batch[d.nbatch++] = i;
        else d.norm[d.nnorm++] = i;
    }
    return d;
}

/* (x - mean) * rstd, and rstd = 1 / sqrt(var + eps), over the normalized dims. */
static nb_tensor* normalized(nb_cx* e, nb_tensor* x, const ln_dims* d, double eps, nb_tensor** rstd) {
    nb_tensor* mean = cx_mean_dims(e, x, d->norm, d->nnorm);
    *rstd = cx_unary(e, nb_rsqrt, cx_add(e, cx_var_dims(e, x, d->norm, d->nnorm), cx_scalar(e, eps)));
    return cx_mul(e, cx_sub(e, x, mean), *rstd);
}

/* A new reference to r (owned by e), or nothing once e failed. */
static nb_status take(nb_cx* e, nb_tensor* r, nb_tensor** out) {
    if (e->st == NB_OK && out != NULL) {
        nb_tensor_retain(r);
        *out = r;
    }
    return e->st;
}

nb_status nn_layer_norm_composed(const nb_tensor* input, int32_t ndim, const nb_tensor* weight,
                                 const nb_tensor* bias, double eps, int32_t kd, nb_tensor** out) {
    nb_cx e = NB_CX_INIT;
    const ln_dims d = dims_of(input, ndim);
    nb_tensor* rstd = NULL;
    nb_tensor* y = normalized(&e, cx_cast(&e, input, kd), &d, eps, &rstd);
    if (weight != NULL) y = cx_mul(&e, y, cx_cast(&e, weight, kd));
    if (bias != NULL) y = cx_add(&e, y, cx_cast(&e, bias, kd));
    nb_status st = take(&e, y, out);
    nb_cx_release(&e);
    return st;
}

/* Sum of t over the batch dims (t itself when there are none). */
static nb_tensor* over_batch(nb_cx* e, nb_tensor* t, const ln_dims* d) {
    return d->nbatch == 0 ? t : cx_sum_dims(e, t, d->batch, d->nbatch, false);
}

nb_status nn_layer_norm_backward_composed(const nb_tensor* go, const nb_tensor* input, int32_t ndim,
                                          const nb_tensor* weight, double eps, int32_t kd, nb_tensor** dx,
                                          nb_tensor** dw, nb_tensor** db) {
    nb_cx e = NB_CX_INIT;
    const ln_dims d = dims_of(input, ndim);
    nb_tensor* g = cx_cast(&e, go, kd);
    nb_tensor* rstd = NULL;
    nb_tensor* xhat = normalized(&e, cx_cast(&e, input, kd), &d, eps, &rstd);
    nb_tensor *gx = NULL, *gw = NULL, *gb = NULL;
    if (dw != NULL) gw = over_batch(&e, cx_mul(&e, g, xhat), &d);
    if (db != NULL) gb = over_batch(&e, g, &d);
    if (dx != NULL) { /* rstd (gh - mean(gh) - xhat mean(gh xhat)), gh = g w */
        nb_tensor* gh = weight != NULL ? cx_mul(&e, g, cx_cast(&e, weight, kd)) : g;
        nb_tensor* m1 = cx_mean_dims(&e, gh, d.norm, d.nnorm);
        nb_tensor* m2 = cx_mean_dims(&e, cx_mul(&e, gh, xhat), d.norm, d.nnorm);
        gx = cx_mul(&e, cx_sub(&e, cx_sub(&e, gh, m1), cx_mul(&e, xhat, m2)), rstd);
    }
    nb_status st = take(&e, gx, dx); /* all three or none: e's status is the same for each */
    take(&e, gw, dw);
    take(&e, gb, db);
    nb_cx_release(&e);
    return st;
}
