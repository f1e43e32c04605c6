/* norm_composed.c: the norms on devices without norm kernels (CUDA today), from the
 * mean/var reductions and elementwise ops every backend has. One geometry covers
 * the three: statistics over some dims of a reshape of x (layer_norm: the trailing
 * dims; batch_norm: all but the channels; group_norm: [N, G, rest]), parameters
 * broadcast per channel or over the trailing dims. Backward recomputes the
 * statistics, as the host kernels do. */
#include "norm_composed.h"

#include "composed.h"

#include <math.h>

static void copy_shape(int64_t* dst, const int64_t* src, int32_t n) {
    for (int32_t i = 0; i < n; i++) dst[i] = src[i];
}

nn_norm_geom nn_norm_geom_layer(const nb_tensor* x, int32_t ndim) {
    nn_norm_geom g = {.view_ndim = x->ndim, .nstat = 0, .pndim = ndim, .npdims = 0};
    copy_shape(g.view, x->shape, x->ndim);
    copy_shape(g.pshape, x->shape + x->ndim - ndim, ndim);
    for (int32_t d = 0; d < x->ndim; d++) {
        if (d < x->ndim - ndim) g.pdims[g.npdims++] = d;
        else g.stat[g.nstat++] = d;
    }
    return g;
}

nn_norm_geom nn_norm_geom_batch(const nb_tensor* x) {
    nn_norm_geom g = {.view_ndim = x->ndim, .nstat = 0, .pndim = x->ndim, .npdims = 0};
    copy_shape(g.view, x->shape, x->ndim);
    for (int32_t d = 0; d < x->ndim; d++) {
        g.pshape[d] = d == 1 ? x->shape[1] : 1;
        if (d != 1) g.stat[g.nstat++] = d, g.pdims[g.npdims++] = d;
    }
    return g;
}

nn_norm_geom nn_norm_geom_group(const nb_tensor* x, int64_t groups) {
    nn_norm_geom g = nn_norm_geom_batch(x);
    const int64_t N = x->shape[0];
    g.view_ndim = 3, g.nstat = 1;
    g.view[0] = N, g.view[1] = groups;
    g.view[2] = N * groups > 0 ? x->numel / (N * groups) : 0;
    g.stat[0] = 2;
    return g;
}

/* xhat = (xv - mean) * rstd in the view's shape, with rstd = 1 / sqrt(var + eps). */
static nb_tensor* normalized(nb_cx* e, nb_tensor* xv, const nn_norm_geom* g, double eps, nb_tensor** mean,
                             nb_tensor** var, nb_tensor** rstd) {
    *mean = cx_mean_dims(e, xv, g->stat, g->nstat);
    *var = cx_var_dims(e, xv, g->stat, g->nstat);
    *rstd = cx_unary(e, nb_rsqrt, cx_add(e, *var, cx_scalar(e, eps)));
    return cx_mul(e, cx_sub(e, xv, *mean), *rstd);
}

/* y * weight + bias, the parameters read in g->pshape. */
static nb_tensor* affine(nb_cx* e, nb_tensor* y, const nn_norm_geom* g, const nb_tensor* weight,
                         const nb_tensor* bias, int32_t kd) {
    if (weight != NULL) y = cx_mul(e, y, cx_reshape(e, cx_cast(e, weight, kd), g->pshape, g->pndim));
    if (bias != NULL) y = cx_add(e, y, cx_reshape(e, cx_cast(e, bias, kd), g->pshape, g->pndim));
    return y;
}

/* A new reference to r (owned by e) in *out, when out is wanted and nothing failed. */
static void take(nb_cx* e, nb_tensor* r, nb_tensor** out) {
    if (e->st == NB_OK && out != NULL) {
        nb_tensor_retain(r);
        *out = r;
    }
}

static nb_tensor* flat(nb_cx* e, nb_tensor* t) {
    const int64_t n = t != NULL ? t->numel : 0;
    return cx_reshape(e, t, &n, 1);
}

nb_status nn_norm_composed(const nb_tensor* x, const nn_norm_geom* g, const nb_tensor* weight, const nb_tensor* bias,
                           double eps, int32_t kd, nb_tensor** out, nb_tensor** mean_out, nb_tensor** var_out) {
    nb_cx e = NB_CX_INIT;
    nb_tensor *mean = NULL, *var = NULL, *rstd = NULL;
    nb_tensor* xhat = normalized(&e, cx_reshape(&e, cx_cast(&e, x, kd), g->view, g->view_ndim), g, eps, &mean, &var,
                                 &rstd);
    nb_tensor* y = affine(&e, cx_reshape(&e, xhat, x->shape, x->ndim), g, weight, bias, kd);
    if (var_out != NULL && e.st == NB_OK) { /* unbiased: n / (n - 1) for the n values of each statistic */
        const double n = mean->numel > 0 ? (double)x->numel / (double)mean->numel : 0;
        var = cx_mul(&e, var, cx_scalar(&e, n > 1 ? n / (n - 1) : (double)NAN));
    }
    take(&e, y, out);
    if (mean_out != NULL) take(&e, flat(&e, mean), mean_out);
    if (var_out != NULL) take(&e, flat(&e, var), var_out);
    const nb_status st = e.st;
    nb_cx_release(&e);
    return st;
}

nb_status nn_norm_with_stats_composed(const nb_tensor* x, const nn_norm_geom* g, const nb_tensor* mean,
                                      const nb_tensor* var, const nb_tensor* weight, const nb_tensor* bias,
                                      double eps, int32_t kd, nb_tensor** out) {
    nb_cx e = NB_CX_INIT;
    nb_tensor* m = cx_reshape(&e, cx_cast(&e, mean, kd), g->pshape, g->pndim);
    nb_tensor* rstd = cx_unary(&e, nb_rsqrt, cx_add(&e, cx_reshape(&e, cx_cast(&e, var, kd), g->pshape, g->pndim),
                                                     cx_scalar(&e, eps)));
    nb_tensor* y = affine(&e, cx_mul(&e, cx_sub(&e, cx_cast(&e, x, kd), m), rstd), g, weight, bias, kd);
    take(&e, y, out);
    const nb_status st = e.st;
    nb_cx_release(&e);
    return st;
}

/* Sum of t over g->pdims, flattened (t itself when there are none). */
static nb_tensor* param_grad(nb_cx* e, nb_tensor* t, const nn_norm_geom* g) {
    return flat(e, g->npdims == 0 ? t : cx_sum_dims(e, t, g->pdims, g->npdims, false));
}

nb_status nn_norm_backward_composed(const nb_tensor* go, const nb_tensor* x, const nn_norm_geom* g,
                                    const nb_tensor* weight, double eps, int32_t kd, nb_tensor** dx, nb_tensor** dw,
                                    nb_tensor** db) {
    nb_cx e = NB_CX_INIT;
    nb_tensor* gk = cx_cast(&e, go, kd);
    nb_tensor *mean = NULL, *var = NULL, *rstd = NULL;
    nb_tensor* xhat_v = normalized(&e, cx_reshape(&e, cx_cast(&e, x, kd), g->view, g->view_ndim), g, eps, &mean,
                                   &var, &rstd);
    nb_tensor* xhat = cx_reshape(&e, xhat_v, x->shape, x->ndim);
    if (dw != NULL) take(&e, param_grad(&e, cx_mul(&e, gk, xhat), g), dw);
    if (db != NULL) take(&e, param_grad(&e, gk, g), db);
    if (dx != NULL) { /* rstd (gh - mean(gh) - xhat mean(gh xhat)), gh = go weight, in the view */
        nb_tensor* gh = weight != NULL ? cx_mul(&e, gk, cx_reshape(&e, cx_cast(&e, weight, kd), g->pshape, g->pndim))
                                       : gk;
        nb_tensor* ghv = cx_reshape(&e, gh, g->view, g->view_ndim);
        nb_tensor* m1 = cx_mean_dims(&e, ghv, g->stat, g->nstat);
        nb_tensor* m2 = cx_mean_dims(&e, cx_mul(&e, ghv, xhat_v), g->stat, g->nstat);
        nb_tensor* gxv = cx_mul(&e, cx_sub(&e, cx_sub(&e, ghv, m1), cx_mul(&e, xhat_v, m2)), rstd);
        take(&e, cx_reshape(&e, gxv, x->shape, x->ndim), dx);
    }
    const nb_status st = e.st;
    if (st != NB_OK) { /* nothing half-delivered */
        if (dw != NULL && *dw != NULL) nb_tensor_release(*dw), *dw = NULL;
        if (db != NULL && *db != NULL) nb_tensor_release(*db), *db = NULL;
    }
    nb_cx_release(&e);
    return st;
}
