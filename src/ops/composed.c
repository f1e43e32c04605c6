/* composed.c: the helpers of ops composed from public ops (composed.h). */
#include "composed.h"

#include <math.h>

void nb_cx_release(nb_cx* e) {
    for (int32_t i = 0; i < e->n; i++) nb_tensor_release(e->tmp[i]);
    e->n = 0;
}

/* Takes t (the result of a call made before this one: never pass the call itself as an
 * argument beside t, as C leaves the order in which arguments are read open). */
nb_tensor* cx_keep(nb_cx* e, nb_status st, nb_tensor* t) {
    if (st != NB_OK) {
        if (e->st == NB_OK) e->st = st;
        return NULL;
    }
    if (e->n == (int32_t)(sizeof e->tmp / sizeof e->tmp[0])) { /* a bug in a composition below */
        nb_tensor_release(t);
        e->st = nb_error(NB_ERR_INTERNAL, "loss: composition uses too many temporaries");
        return NULL;
    }
    e->tmp[e->n++] = t;
    return t;
}


nb_tensor* cx_binary(nb_cx* e, nb_cx_binary_fn fn, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(a, b, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_linear(nb_cx* e, nb_cx_linear_fn fn, const nb_tensor* a, const nb_tensor* b) { /* a +- b */
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(a, b, 1.0, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_unary(nb_cx* e, nb_cx_unary_fn fn, const nb_tensor* x) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = fn(x, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_divide(nb_cx* e, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_div(a, b, NB_ROUND_NONE, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_where(nb_cx* e, const nb_tensor* c, const nb_tensor* a, const nb_tensor* b) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_where(c, a, b, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_clamp_min(nb_cx* e, const nb_tensor* x, double lo) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_clamp(x, lo, INFINITY, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_scalar(nb_cx* e, double v) { /* a wrapped number: takes the other operand's dtype and device */
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_scalar(v, (int64_t)v, NB_F64, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_iscalar(nb_cx* e, int64_t v) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_scalar((double)v, v, NB_I64, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_cast(nb_cx* e, const nb_tensor* x, int32_t dtype) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_to(x, dtype, x->storage->device_type, x->storage->device_index, 0, &r);
    return cx_keep(e, st, r);
}

nb_tensor* cx_unsqueeze(nb_cx* e, const nb_tensor* x, int64_t dim) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_unsqueeze(x, dim, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_reshape(nb_cx* e, const nb_tensor* x, const int64_t* shape, int32_t ndim) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_tensor_reshape(x, shape, ndim, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_sum_dim(nb_cx* e, const nb_tensor* x, int64_t dim) { /* dim < 0: everything */
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_sum(x, dim >= 0 ? &dim : NULL, dim >= 0 ? 1 : 0, 0, -1, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_log_softmax(nb_cx* e, const nb_tensor* x, int64_t dim) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_log_softmax(x, dim, -1, NULL, &r);
    return cx_keep(e, st, r);
}
nb_tensor* cx_arange_on(nb_cx* e, int64_t n, const nb_tensor* like) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_arange(0, (double)n, 1, NB_I64, like->storage->device_type, like->storage->device_index, &r);
    return cx_keep(e, st, r);
}

nb_tensor* cx_sum_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n, bool keepdim) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_sum(x, dims, n, keepdim, -1, NULL, &r);
    return cx_keep(e, st, r);
}

nb_tensor* cx_mean_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_mean(x, dims, n, 1, -1, NULL, &r);
    return cx_keep(e, st, r);
}

nb_tensor* cx_var_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n) {
    if (e->st != NB_OK) return NULL;
    nb_tensor* r = NULL;
    const nb_status st = nb_var(x, dims, n, 0.0, 1, NULL, &r);
    return cx_keep(e, st, r);
}
