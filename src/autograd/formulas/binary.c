/* binary.c: forward and backward formulas of the elementwise binary ops.
 * Gradients come out in the broadcast shape; the engine sums them down to each
 * input's shape. Saved slots: 0 = a, 1 = b, 2 = the result. */
#include "../autograd.h"

typedef nb_status (*binary_impl)(const nb_tensor*, const nb_tensor*, nb_tensor*, nb_tensor**);

/* Saves a when the gradient of b needs it (need_a_for_b), b likewise, the result if asked. */
static nb_status record_binary(const char* op, const char* node, nb_backward_fn bw, bool save_a, bool save_b,
                               bool save_y, binary_impl impl, const nb_tensor* a, const nb_tensor* b,
                               nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, b};
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    if (save_a) st = nb_ag_save_input(&r, 0, a);
    if (st == NB_OK && save_b) st = nb_ag_save_input(&r, 1, b);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = impl(a, b, dst, &y);
    if (st == NB_OK && save_y) st = nb_ag_save_output(&r, 2, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- add / sub (alpha) ---- */

static nb_status add_bw(nb_bw* b) {
    double alpha = b->node->fa[0];
    if (bw_needs(b, 0)) bw_set(b, 0, b->go[0]);
    if (bw_needs(b, 1)) bw_set(b, 1, alpha == 1.0 ? b->go[0] : bw_muls(b, b->go[0], alpha));
    return b->st;
}

static nb_status add_like(const char* op, const char* node, double alpha, double sign, const nb_tensor* a,
                          const nb_tensor* b, nb_tensor* dst, nb_tensor** out,
                          nb_status (*impl)(const nb_tensor*, const nb_tensor*, double, nb_tensor*, nb_tensor**)) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, b};
    nb_status st = nb_ag_begin(&r, op, node, add_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = sign * alpha;
    nb_tensor* y = NULL;
    st = impl(a, b, alpha, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    return add_like("add", "AddBackward0", alpha, 1.0, a, b, dst, out, nbi_add);
}

nb_status nb_agf_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    return add_like("sub", "SubBackward0", alpha, -1.0, a, b, dst, out, nbi_sub);
}

/* ---- mul / div ---- */

static nb_status mul_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, bw_mul(b, go, bw_saved(b, 1)));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_mul(b, go, bw_saved(b, 0)));
    return b->st;
}

nb_status nb_agf_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_binary("mul", "MulBackward0", mul_bw, nb_ag_requires(b), nb_ag_requires(a), false, nbi_mul, a, b,
                         dst, out);
}

static nb_status div_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* d = bw_saved(b, 1);
    if (b->node->ia[0] != NB_ROUND_NONE) { /* rounded division: piecewise constant */
        for (int32_t i = 0; i < 2; i++)
            if (bw_needs(b, i)) bw_set(b, i, bw_zeros_like_meta(b, &b->node->in_meta[i]));
        return b->st;
    }
    if (bw_needs(b, 0)) bw_set(b, 0, bw_div(b, go, d));
    if (bw_needs(b, 1)) { /* -go a / d^2 */
        nb_tensor* a = bw_saved(b, 0);
        bw_set(b, 1, bw_neg(b, bw_div(b, bw_mul(b, go, a), bw_mul(b, d, d))));
    }
    return b->st;
}

nb_status nb_agf_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst,
                     nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, b};
    nb_status st = nb_ag_begin(&r, "div", "DivBackward0", div_bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = rounding_mode;
    if (nb_ag_needs(&r, 1)) st = nb_ag_save_input(&r, 0, a);
    if (st == NB_OK) st = nb_ag_save_input(&r, 1, b);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_div(a, b, rounding_mode, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- remainder / fmod: a - b * round(a / b) ---- */

static nb_status rounded_rest_bw(nb_bw* b, int32_t rounding) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, go);
    if (bw_needs(b, 1)) {
        nb_tensor* q = BW_OP(b, nb_div(bw_saved(b, 0), bw_saved(b, 1), rounding, NULL, &bw_r_));
        bw_set(b, 1, bw_neg(b, bw_mul(b, go, q)));
    }
    return b->st;
}
static nb_status remainder_bw(nb_bw* b) { return rounded_rest_bw(b, NB_ROUND_FLOOR); }
static nb_status fmod_bw(nb_bw* b) { return rounded_rest_bw(b, NB_ROUND_TRUNC); }

nb_status nb_agf_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    bool nb_ = nb_ag_requires(b);
    return record_binary("remainder", "RemainderBackward0", remainder_bw, nb_, nb_, false, nbi_remainder, a, b, dst,
                         out);
}

nb_status nb_agf_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    bool nb_ = nb_ag_requires(b);
    return record_binary("fmod", "FmodBackward0", fmod_bw, nb_, nb_, false, nbi_fmod, a, b, dst, out);
}

/* ---- pow ---- */

static nb_status pow_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* a = bw_saved(b, 0);
    nb_tensor* e = bw_saved(b, 1);
    nb_tensor* zero = bw_scalar(b, 0.0);
    if (bw_needs(b, 0)) { /* e a^(e-1), 0 where e == 0 */
        nb_tensor* d = bw_mul(b, e, BW_OP(b, nb_pow(a, bw_adds(b, e, -1.0), NULL, &bw_r_)));
        nb_tensor* e0 = BW_OP(b, nb_eq(e, zero, NULL, &bw_r_));
        bw_set(b, 0, bw_mul(b, go, bw_where(b, e0, zero, d)));
    }
    if (bw_needs(b, 1)) { /* a^e log a, 0 where a == 0 and e >= 0 */
        nb_tensor* y = bw_saved(b, 2);
        nb_tensor* d = bw_mul(b, y, bw_unary(b, nb_log, a));
        nb_tensor* a0 = BW_OP(b, nb_eq(a, zero, NULL, &bw_r_));
        nb_tensor* e_nonneg = BW_OP(b, nb_ge(e, zero, NULL, &bw_r_));
        nb_tensor* mask = BW_OP(b, nb_logical_and(a0, e_nonneg, NULL, &bw_r_));
        bw_set(b, 1, bw_mul(b, go, bw_where(b, mask, zero, d)));
    }
    return b->st;
}

nb_status nb_agf_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_binary("pow", "PowBackward1", pow_bw, true, true, nb_ag_requires(b), nbi_pow, a, b, dst, out);
}

/* ---- maximum / minimum: the gradient goes to the chosen side, split evenly on ties ---- */

static nb_status extremum_bw(nb_bw* b, nb_status (*a_wins)(const nb_tensor*, const nb_tensor*, nb_tensor*,
                                                            nb_tensor**)) {
    nb_tensor* go = b->go[0];
    nb_tensor* a = bw_saved(b, 0);
    nb_tensor* c = bw_saved(b, 1);
    nb_tensor* half = bw_muls(b, go, 0.5);
    nb_tensor* tie = BW_OP(b, nb_eq(a, c, NULL, &bw_r_));
    nb_tensor* zero = bw_scalar(b, 0.0);
    nb_tensor* win = BW_OP(b, a_wins(a, c, NULL, &bw_r_));
    if (bw_needs(b, 0)) bw_set(b, 0, bw_where(b, tie, half, bw_where(b, win, go, zero)));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_where(b, tie, half, bw_where(b, win, zero, go)));
    return b->st;
}
static nb_status maximum_bw(nb_bw* b) { return extremum_bw(b, nb_gt); }
static nb_status minimum_bw(nb_bw* b) { return extremum_bw(b, nb_lt); }

nb_status nb_agf_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_binary("maximum", "MaximumBackward0", maximum_bw, true, true, false, nbi_maximum, a, b, dst, out);
}

nb_status nb_agf_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_binary("minimum", "MinimumBackward0", minimum_bw, true, true, false, nbi_minimum, a, b, dst, out);
}

/* ---- atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2) ---- */

static nb_status atan2_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    nb_tensor* a = bw_saved(b, 0);
    nb_tensor* c = bw_saved(b, 1);
    nb_tensor* r2 = bw_add(b, bw_mul(b, a, a), bw_mul(b, c, c));
    nb_tensor* g = bw_div(b, go, r2);
    if (bw_needs(b, 0)) bw_set(b, 0, bw_mul(b, g, c));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_neg(b, bw_mul(b, g, a)));
    return b->st;
}

nb_status nb_agf_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_binary("atan2", "Atan2Backward0", atan2_bw, true, true, false, nbi_atan2, a, b, dst, out);
}
