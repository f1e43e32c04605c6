/* composed.h: ops composed from public ops, for devices that lack a kernel family.
 * An nb_cx collects the temporaries of one composition; each cx_ helper returns a
 * borrowed result owned by the nb_cx (NULL once any step failed: the first failure's
 * status sticks in cx->st), and nb_cx_release drops them all at the end. */
#ifndef NABLA_OPS_COMPOSED_H_
#define NABLA_OPS_COMPOSED_H_

#include "../core/internal.h"

typedef struct nb_cx {
    nb_status st;
    int32_t n;
    nb_tensor* tmp[64];
} nb_cx;

typedef nb_status (*nb_cx_binary_fn)(const nb_tensor*, const nb_tensor*, nb_tensor*, nb_tensor**);
typedef nb_status (*nb_cx_linear_fn)(const nb_tensor*, const nb_tensor*, double, nb_tensor*, nb_tensor**);
typedef nb_status (*nb_cx_unary_fn)(const nb_tensor*, nb_tensor*, nb_tensor**);

#define NB_CX_INIT {NB_OK, 0, {NULL}}
NB_INTERNAL void nb_cx_release(nb_cx* e);
NB_INTERNAL nb_tensor* cx_keep(nb_cx* e, nb_status st, nb_tensor* t);
NB_INTERNAL nb_tensor* cx_binary(nb_cx* e, nb_cx_binary_fn fn, const nb_tensor* a, const nb_tensor* b);
NB_INTERNAL nb_tensor* cx_linear(nb_cx* e, nb_cx_linear_fn fn, const nb_tensor* a, const nb_tensor* b);
NB_INTERNAL nb_tensor* cx_unary(nb_cx* e, nb_cx_unary_fn fn, const nb_tensor* x);
NB_INTERNAL nb_tensor* cx_divide(nb_cx* e, const nb_tensor* a, const nb_tensor* b);
NB_INTERNAL nb_tensor* cx_where(nb_cx* e, const nb_tensor* c, const nb_tensor* a, const nb_tensor* b);
NB_INTERNAL nb_tensor* cx_clamp_min(nb_cx* e, const nb_tensor* x, double lo);
NB_INTERNAL nb_tensor* cx_scalar(nb_cx* e, double v);
NB_INTERNAL nb_tensor* cx_iscalar(nb_cx* e, int64_t v);
NB_INTERNAL nb_tensor* cx_cast(nb_cx* e, const nb_tensor* x, int32_t dtype);
NB_INTERNAL nb_tensor* cx_unsqueeze(nb_cx* e, const nb_tensor* x, int64_t dim);
NB_INTERNAL nb_tensor* cx_reshape(nb_cx* e, const nb_tensor* x, const int64_t* shape, int32_t ndim);
NB_INTERNAL nb_tensor* cx_sum_dim(nb_cx* e, const nb_tensor* x, int64_t dim);
NB_INTERNAL nb_tensor* cx_log_softmax(nb_cx* e, const nb_tensor* x, int64_t dim);
NB_INTERNAL nb_tensor* cx_arange_on(nb_cx* e, int64_t n, const nb_tensor* like);
NB_INTERNAL nb_tensor* cx_mean_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n);  /* keepdim */
NB_INTERNAL nb_tensor* cx_sum_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n, bool keepdim);
NB_INTERNAL nb_tensor* cx_var_dims(nb_cx* e, const nb_tensor* x, const int64_t* dims, int32_t n);   /* biased, keepdim */

#define cx_sub(e, a, b) cx_linear(e, nb_sub, a, b)
#define cx_add(e, a, b) cx_linear(e, nb_add, a, b)
#define cx_mul(e, a, b) cx_binary(e, nb_mul, a, b)
#define cx_lt(e, a, b) cx_binary(e, nb_lt, a, b)
#define cx_eq(e, a, b) cx_binary(e, nb_eq, a, b)
#define cx_ne(e, a, b) cx_binary(e, nb_ne, a, b)
#define cx_lor(e, a, b) cx_binary(e, nb_logical_or, a, b)
#define cx_ge(e, a, b) cx_binary(e, nb_ge, a, b)

#endif  /* NABLA_OPS_COMPOSED_H_ */
