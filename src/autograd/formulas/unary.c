/* unary.c: forward and backward formulas of the elementwise unary ops.
 * Conventions: saved slot 0 is the input x, slot 1 the result y. */
#include "../autograd.h"
#include "../../ops/binary.h"

#include <math.h>

#define LN2 0.69314718055994530942
#define LN10 2.30258509299404568402
#define TWO_OVER_SQRT_PI 1.12837916709551257390
#define INV_SQRT_2PI 0.39894228040143267794

typedef nb_status (*unary_impl)(const nb_tensor*, nb_tensor*, nb_tensor**);

/* Records a unary op whose backward needs x (save_x) and/or the result (save_y). */
static nb_status record_unary(const char* op, const char* node, nb_backward_fn bw, bool save_x, bool save_y,
                              unary_impl impl, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    if (save_x) st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = impl(x, dst, &y);
    if (st == NB_OK && save_y) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* One op: its backward computes gi[0] from go (b->go[0]), x and y. */
#define UNARY(NAME, NODE, SAVE_X, SAVE_Y, EXPR)                                                    \
    static nb_status NAME##_bw(nb_bw* b) {                                                         \
        nb_tensor* go = b->go[0];                                                                  \
        nb_tensor* x = (SAVE_X) ? bw_saved(b, 0) : NULL;                                           \
        nb_tensor* y = (SAVE_Y) ? bw_saved(b, 1) : NULL;                                           \
        (void)go, (void)x, (void)y;                                                                \
        bw_set(b, 0, (EXPR));                                                                      \
        return b->st;                                                                              \
    }                                                                                              \
    nb_status nb_agf_##NAME(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {                 \
        return record_unary(#NAME, NODE, NAME##_bw, SAVE_X, SAVE_Y, nbi_##NAME, x, dst, out);      \
    }

#define U(fn, t) bw_unary(b, fn, t)

UNARY(exp, "ExpBackward0", false, true, bw_mul(b, go, y))
UNARY(exp2, "Exp2Backward0", false, true, bw_mul(b, go, bw_muls(b, y, LN2)))
UNARY(expm1, "Expm1Backward0", false, true, bw_mul(b, go, bw_adds(b, y, 1.0)))
UNARY(log, "LogBackward0", true, false, bw_div(b, go, x))
UNARY(log2, "Log2Backward0", true, false, bw_div(b, go, bw_muls(b, x, LN2)))
UNARY(log10, "Log10Backward0", true, false, bw_div(b, go, bw_muls(b, x, LN10)))
UNARY(log1p, "Log1PBackward0", true, false, bw_div(b, go, bw_adds(b, x, 1.0)))
UNARY(sqrt, "SqrtBackward0", false, true, bw_div(b, go, bw_muls(b, y, 2.0)))
UNARY(rsqrt, "RsqrtBackward0", false, true, bw_mul(b, go, bw_muls(b, bw_mul(b, y, bw_mul(b, y, y)), -0.5)))
UNARY(sin, "SinBackward0", true, false, bw_mul(b, go, U(nb_cos, x)))
UNARY(cos, "CosBackward0", true, false, bw_mul(b, go, bw_neg(b, U(nb_sin, x))))
UNARY(tan, "TanBackward0", false, true, bw_mul(b, go, bw_adds(b, bw_mul(b, y, y), 1.0)))
UNARY(asin, "AsinBackward0", true, false, bw_div(b, go, U(nb_sqrt, bw_rsubs(b, 1.0, bw_mul(b, x, x)))))
UNARY(acos, "AcosBackward0", true, false,
      bw_neg(b, bw_div(b, go, U(nb_sqrt, bw_rsubs(b, 1.0, bw_mul(b, x, x))))))
UNARY(atan, "AtanBackward0", true, false, bw_div(b, go, bw_adds(b, bw_mul(b, x, x), 1.0)))
UNARY(sinh, "SinhBackward0", true, false, bw_mul(b, go, U(nb_cosh, x)))
UNARY(cosh, "CoshBackward0", true, false, bw_mul(b, go, U(nb_sinh, x)))
UNARY(tanh, "TanhBackward0", false, true, bw_mul(b, go, bw_rsubs(b, 1.0, bw_mul(b, y, y))))
UNARY(sigmoid, "SigmoidBackward0", false, true, bw_mul(b, go, bw_mul(b, y, bw_rsubs(b, 1.0, y))))
UNARY(erf, "ErfBackward0", true, false,
      bw_mul(b, go, bw_muls(b, U(nb_exp, bw_neg(b, bw_mul(b, x, x))), TWO_OVER_SQRT_PI)))
UNARY(erfc, "ErfcBackward0", true, false,
      bw_mul(b, go, bw_muls(b, U(nb_exp, bw_neg(b, bw_mul(b, x, x))), -TWO_OVER_SQRT_PI)))
UNARY(reciprocal, "ReciprocalBackward0", false, true, bw_neg(b, bw_mul(b, go, bw_mul(b, y, y))))
UNARY(neg, "NegBackward0", false, false, bw_neg(b, go))
UNARY(abs, "AbsBackward0", true, false, bw_mul(b, go, U(nb_sign, x)))
/* relu: one fused pass, unless the backward itself is recorded (create_graph) or runs on a device.
 * y is NULL when the saved result was freed or modified in place (b->st says which). */
UNARY(relu, "ReluBackward0", false, true,
      y == NULL ? NULL
      : !nb_grad_enabled() && go->storage->device_type == NB_CPU && y->storage->device_type == NB_CPU
          ? BW_OP(b, nb_relu_backward(go, y, &bw_r_))
          : bw_where(b, BW_OP(b, nb_le(y, bw_scalar(b, 0.0), NULL, &bw_r_)), bw_scalar(b, 0.0), go))
UNARY(square, "PowBackward0", true, false, bw_mul(b, go, bw_muls(b, x, 2.0)))
UNARY(sign, "SignBackward0", false, false, bw_zeros_like(b, go))
UNARY(floor, "FloorBackward0", false, false, bw_zeros_like(b, go))
UNARY(ceil, "CeilBackward0", false, false, bw_zeros_like(b, go))
UNARY(round, "RoundBackward0", false, false, bw_zeros_like(b, go))
UNARY(trunc, "TruncBackward0", false, false, bw_zeros_like(b, go))

/* silu: d/dx x s(x) = s (1 + x (1 - s)). */
UNARY(silu, "SiluBackward0", true, false, ({
          nb_tensor* s = U(nb_sigmoid, x);
          bw_mul(b, go, bw_mul(b, s, bw_adds(b, bw_mul(b, x, bw_rsubs(b, 1.0, s)), 1.0)));
      }))

/* ---- ops with attributes (kept in node->fa / node->ia) ---- */

/* gelu: the fused gelu_backward op, which differentiates again below. */
static nb_status gelu_bw(nb_bw* b) {
    bw_set(b, 0, BW_OP(b, nb_gelu_backward(b->go[0], bw_saved(b, 0), b->node->ia[0], NULL, &bw_r_)));
    return b->st;
}

/* gelu_backward (inputs 0 = g, 1 = x, both saved): dg = gelu_backward(gg, x), dx = gg g gelu''(x):
 *   exact: gelu'' = phi(x) (2 - x^2)
 *   tanh:  gelu'' = 2 s (1 - s) w' + x s (1 - s) ((1 - 2 s) w'^2 + w''), s = sigmoid(w),
 *          w = 2k (x + c x^3), w' = 2k (1 + 3c x^2), w'' = 12 k c x */
static nb_status gelu_backward_bw(nb_bw* b) {
    nb_tensor* gg = b->go[0];
    nb_tensor* x = bw_saved(b, 1);
    const int32_t approximate_tanh = b->node->ia[0];
    if (bw_needs(b, 0)) bw_set(b, 0, BW_OP(b, nb_gelu_backward(gg, x, approximate_tanh, NULL, &bw_r_)));
    if (!bw_needs(b, 1)) return b->st;
    nb_tensor* x2 = bw_mul(b, x, x);
    nb_tensor* d2;
    if (approximate_tanh) {
        const double k2 = 2 * 0.79788456080286535588, c = 0.044715;
        nb_tensor* s = U(nb_sigmoid, bw_muls(b, bw_mul(b, x, bw_adds(b, bw_muls(b, x2, c), 1.0)), k2));
        nb_tensor* ss = bw_mul(b, s, bw_rsubs(b, 1.0, s));
        nb_tensor* w1 = bw_muls(b, bw_adds(b, bw_muls(b, x2, 3 * c), 1.0), k2);
        nb_tensor* inner = bw_add(b, bw_mul(b, bw_rsubs(b, 1.0, bw_muls(b, s, 2.0)), bw_mul(b, w1, w1)),
                                  bw_muls(b, x, 6 * k2 * c));
        d2 = bw_add(b, bw_muls(b, bw_mul(b, ss, w1), 2.0), bw_mul(b, bw_mul(b, x, ss), inner));
    } else {
        nb_tensor* pdf = bw_muls(b, U(nb_exp, bw_muls(b, x2, -0.5)), INV_SQRT_2PI);
        d2 = bw_mul(b, pdf, bw_rsubs(b, 2.0, x2));
    }
    bw_set(b, 1, bw_mul(b, bw_mul(b, gg, bw_saved(b, 0)), d2));
    return b->st;
}

nb_status nb_agf_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh,
                               nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {grad_output, input};
    nb_status st = nb_ag_begin(&r, "gelu_backward", "GeluBackwardBackward0", gelu_backward_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = approximate_tanh;
    st = nb_ag_save_input(&r, 0, grad_output);
    if (st == NB_OK) st = nb_ag_save_input(&r, 1, input);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_gelu_backward(grad_output, input, approximate_tanh, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "gelu", "GeluBackward0", gelu_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = approximate_tanh;
    st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_gelu(x, approximate_tanh, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* where(mask, go, go * factor) with mask = saved > 0. */
static nb_status slope_bw(nb_bw* b, nb_tensor* slope) {
    nb_tensor* go = b->go[0];
    nb_tensor* s = bw_saved(b, 0);
    bw_set(b, 0, bw_where(b, bw_cmp_gt0(b, s), go, bw_mul(b, go, slope)));
    return b->st;
}

static nb_status leaky_relu_bw(nb_bw* b) { return slope_bw(b, bw_scalar(b, b->node->fa[0])); }

nb_status nb_agf_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "leaky_relu", "LeakyReluBackward0", leaky_relu_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = negative_slope;
    st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_leaky_relu(x, negative_slope, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* elu: d/dx = 1 for x > 0, else y + alpha (from the result y). */
static nb_status elu_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* y = bw_saved(b, 0);
    nb_tensor* x = bw_saved(b, 1);
    bw_set(b, 0, bw_where(b, bw_cmp_gt0(b, x), go, bw_mul(b, go, bw_adds(b, y, b->node->fa[0]))));
    return b->st;
}

nb_status nb_agf_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "elu", "EluBackward0", elu_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = alpha;
    st = nb_ag_save_input(&r, 1, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_elu(x, alpha, dst, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 0, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* softplus: sigmoid(beta x) where beta x <= threshold, else 1. */
static nb_status softplus_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* x = bw_saved(b, 0);
    double beta = b->node->fa[0], threshold = b->node->fa[1];
    nb_tensor* bx = bw_muls(b, x, beta);
    nb_tensor* linear = BW_OP(b, nb_gt(bx, bw_scalar(b, threshold), NULL, &bw_r_));
    bw_set(b, 0, bw_where(b, linear, go, bw_mul(b, go, U(nb_sigmoid, bx))));
    return b->st;
}

nb_status nb_agf_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "softplus", "SoftplusBackward0", softplus_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = beta;
    r.node->fa[1] = threshold;
    st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_softplus(x, beta, threshold, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

static nb_status nan_to_num_bw(nb_bw* b) {
    bw_set(b, 0, bw_mul(b, b->go[0], U(nb_isfinite, bw_saved(b, 0))));
    return b->st;
}

nb_status nb_agf_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst,
                            nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "nan_to_num", "NanToNumBackward0", nan_to_num_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_nan_to_num(x, nan, posinf, neginf, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* clamp: the gradient passes where min <= x <= max. */
static nb_status clamp_bw(nb_bw* b) {
    nb_tensor* x = bw_saved(b, 0);
    nb_tensor* lo = BW_OP(b, nb_ge(x, bw_scalar(b, b->node->fa[0]), NULL, &bw_r_));
    nb_tensor* hi = BW_OP(b, nb_le(x, bw_scalar(b, b->node->fa[1]), NULL, &bw_r_));
    nb_tensor* inside = BW_OP(b, nb_logical_and(lo, hi, NULL, &bw_r_));
    bw_set(b, 0, bw_mul(b, b->go[0], inside));
    return b->st;
}

nb_status nb_agf_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "clamp", "ClampBackward1", clamp_bw, dst, 1, &x, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = min;
    r.node->fa[1] = max;
    st = nb_ag_save_input(&r, 0, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_clamp(x, min, max, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* where(c, a, b): inputs 0 = c (no gradient), 1 = a, 2 = b. */
static nb_status where_bw(nb_bw* b) {
    nb_tensor* c = bw_saved(b, 0);
    nb_tensor* zero = bw_scalar(b, 0.0);
    if (bw_needs(b, 1)) bw_set(b, 1, bw_where(b, c, b->go[0], zero));
    if (bw_needs(b, 2)) bw_set(b, 2, bw_where(b, c, zero, b->go[0]));
    return b->st;
}

nb_status nb_agf_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* bb, nb_tensor* dst,
                       nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[3] = {condition, a, bb};
    nb_status st = nb_ag_begin(&r, "where", "WhereBackward0", where_bw, dst, 3, in, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, condition);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_where(condition, a, bb, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}
