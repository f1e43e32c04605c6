/* igamma.c: gradients of igamma / igammac (torch.special.gammainc / gammaincc).
 * As PyTorch, only x (input 1) is differentiable: d P(a, x)/dx = x^(a-1) e^-x / Gamma(a)
 * = -d Q(a, x)/dx; asking for a's gradient fails. The derivative is itself recorded
 * (its x-gradient is D ((a - 1) / x - 1)), so higher orders in x work. */
#include "../../ops/igamma.h"
#include "../autograd.h"

/* PyTorch's error for a's gradient (op: "igamma" or "igammac"). */
static nb_status not_in_a(nb_bw* b, const char* op) {
    return b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: the derivative for '%s: input' is not implemented.",
                            b->node->name, op);
}

/* ---- D = dP/dx, recorded when x requires grad ---- */

static nb_status igamma_dx_bw(nb_bw* b) {
    if (bw_needs(b, 0)) return not_in_a(b, "igamma");
    if (bw_needs(b, 1)) { /* go D ((a - 1) / x - 1) */
        nb_tensor* a = bw_saved(b, 0);
        nb_tensor* x = bw_saved(b, 1);
        nb_tensor* d = bw_saved(b, 2);
        nb_tensor* slope = bw_adds(b, bw_div(b, bw_adds(b, a, -1.0), x), -1.0);
        bw_set(b, 1, bw_mul(b, b->go[0], bw_mul(b, d, slope)));
    }
    return b->st;
}

static nb_status igamma_dx(const nb_tensor* a, const nb_tensor* x, nb_tensor** out) {
    if (nb_ag_disabled || !(nb_ag_requires(a) || nb_ag_requires(x))) return nb_igamma_dx_kernel(a, x, out);
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, x};
    nb_status st = nb_ag_begin(&r, "igamma", "IgammaGradBackward", igamma_dx_bw, NULL, 2, in, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, a);
    if (st == NB_OK) st = nb_ag_save_input(&r, 1, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nb_igamma_dx_kernel(a, x, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 2, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- igamma / igammac ---- */

static nb_status igamma_like_bw(nb_bw* b, const char* op, double sign) {
    if (bw_needs(b, 0)) return not_in_a(b, op);
    if (bw_needs(b, 1)) {
        nb_tensor* d = BW_OP(b, igamma_dx(bw_saved(b, 0), bw_saved(b, 1), &bw_r_));
        nb_tensor* g = bw_mul(b, b->go[0], d);
        bw_set(b, 1, sign > 0 ? g : bw_neg(b, g));
    }
    return b->st;
}
static nb_status igamma_bw(nb_bw* b) { return igamma_like_bw(b, "igamma", 1.0); }
static nb_status igammac_bw(nb_bw* b) { return igamma_like_bw(b, "igammac", -1.0); }

typedef nb_status (*igamma_impl)(const nb_tensor*, const nb_tensor*, nb_tensor*, nb_tensor**);

static nb_status record(const char* op, const char* node, nb_backward_fn bw, igamma_impl impl, const nb_tensor* a,
                        const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, x};
    nb_status st = nb_ag_begin(&r, op, node, bw, dst, 2, in, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, a);
    if (st == NB_OK) st = nb_ag_save_input(&r, 1, x);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = impl(a, x, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_igamma(const nb_tensor* a, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    return record("igamma", "IgammaBackward0", igamma_bw, nbi_igamma, a, x, dst, out);
}

nb_status nb_agf_igammac(const nb_tensor* a, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    return record("igammac", "IgammacBackward0", igammac_bw, nbi_igammac, a, x, dst, out);
}
