/* linalg_decomp.c: formulas of the LAPACK ops (src/ops/lapack.c), PyTorch's for
 * real matrices, written with public ops so that they are recorded again under
 * create_graph:
 *   inv      gA = -X^T g X^T                       (X = A^-1; inv_ex too)
 *   det      gA = g det A^-T;  slogdet: gA = g_logabsdet A^-T
 *   solve    gB = solve(A^T, gX);  gA = -gB X^T    (left; X A = B mirrored; solve_ex too)
 *   solve_triangular  the same with A^T's triangle, gA masked to A's triangle
 *   cholesky gA = sym(L^-T Phi(L^T gL) L^-1), Phi: the lower triangle, diagonal halved
 *   qr       gA = (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T  (m >= n; m < n: on A's first m
 *               columns with gQ + Y gV^T, and gY = Q gV for the rest, R = [U | V], A = [X | Y])
 *   eigh     gA = V (diag(gL) + skew(V^T gV) / E) V^T,  E_ij = L_j - L_i
 *   svd      gA = U [(skew(U^T gU) / E) S + S (skew(V^T gV) / E) + diag(gS)] Vh
 *               + (I - U U^T) gU S^-1 Vh + U S^-1 gVh (I - V Vh),  E_ij = S_j^2 - S_i^2
 * (skew(X) = X - X^T; E's diagonal is set to 1, where skew is 0). A singular
 * matrix makes det's and slogdet's gradient fail as inv does. Vectors of U, V or
 * eigenvectors that no gradient reached are left out of the formulas, as PyTorch
 * leaves undefined gradients out, so repeated values divide nothing by zero. */
#include "../autograd.h"

static nb_tensor* bw_mm(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_matmul(x, y, NULL, &bw_r_));
}

static nb_tensor* bw_mt(nb_bw* b, const nb_tensor* x) {  /* the transpose of each matrix */
    return BW_OP(b, nb_tensor_transpose(x, -2, -1, &bw_r_));
}

static nb_tensor* bw_unsq(nb_bw* b, const nb_tensor* x, int64_t dim) {
    return BW_OP(b, nb_tensor_unsqueeze(x, dim, &bw_r_));
}

static nb_tensor* bw_inv(nb_bw* b, const nb_tensor* x) { return BW_OP(b, nb_linalg_inv(x, &bw_r_)); }

static nb_tensor* bw_skew(nb_bw* b, const nb_tensor* x) { return bw_sub(b, x, bw_mt(b, x)); }

/* E_ij = v_j - v_i over the last dim of v, with 1 on the diagonal. */
static nb_tensor* bw_gaps(nb_bw* b, const nb_tensor* v) {
    const int64_t n = v->shape[v->ndim - 1];
    nb_tensor* e = bw_sub(b, bw_unsq(b, v, -2), bw_unsq(b, v, -1));
    nb_tensor* eye = BW_OP(b, nb_eye(n, n, v->dtype, v->storage->device_type, v->storage->device_index, &bw_r_));
    return bw_add(b, e, eye);
}

static bool go_zero(const nb_bw* b, int32_t k) { return (b->go_zero >> k) & 1u; }

/* ---- inv: saved 0 = X ---- */

static nb_status inv_bw(nb_bw* b) {
    nb_tensor* xt = bw_mt(b, bw_saved(b, 0));
    bw_set(b, 0, bw_neg(b, bw_mm(b, bw_mm(b, xt, b->go[0]), xt)));
    return b->st;
}

/* inv and inv_ex (info: its second output, an integer one the node does not reach). */
static nb_status inv_record(const char* op, const nb_tensor* a, nb_tensor** out, nb_tensor** info) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, op, "LinalgInvExBackward0", inv_bw, NULL, 1, &a, info ? 2 : 1);
    if (st != NB_OK) return st;
    nb_tensor *y = NULL, *i = NULL;
    st = info ? nbi_linalg_inv_ex(a, &y, &i) : nbi_linalg_inv(a, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 0, y, 0);
    nb_tensor* results[2] = {y, i};
    nb_tensor** outs[2] = {out, info};
    return nb_ag_finish(&r, st, results, outs, info ? 2 : 1);
}

nb_status nb_agf_linalg_inv(const nb_tensor* a, nb_tensor** out) { return inv_record("linalg.inv", a, out, NULL); }

nb_status nb_agf_linalg_inv_ex(const nb_tensor* a, nb_tensor** inverse, nb_tensor** info) {
    NB_CHECK_OUT("linalg.inv_ex", info);
    return inv_record("linalg.inv", a, inverse, info);
}

/* ---- det, slogdet: saved 0 = A, 1 = det (det only) ---- */

static nb_status det_bw(nb_bw* b) {
    nb_tensor* g = bw_mul(b, b->go[0], bw_saved(b, 1));  /* g det */
    nb_tensor* it = bw_mt(b, bw_inv(b, bw_saved(b, 0)));
    bw_set(b, 0, bw_mul(b, bw_unsq(b, bw_unsq(b, g, -1), -1), it));
    return b->st;
}

nb_status nb_agf_linalg_det(const nb_tensor* a, nb_tensor** out) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "linalg.det", "LinalgDetBackward0", det_bw, NULL, 1, &a, 1);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, a);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_linalg_det(a, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

static nb_status slogdet_bw(nb_bw* b) {  /* the sign is piecewise constant */
    nb_tensor* it = bw_mt(b, bw_inv(b, bw_saved(b, 0)));
    bw_set(b, 0, bw_mul(b, bw_unsq(b, bw_unsq(b, b->go[1], -1), -1), it));
    return b->st;
}

nb_status nb_agf_linalg_slogdet(const nb_tensor* a, nb_tensor** sign, nb_tensor** logabsdet) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "linalg.slogdet", "LinalgSlogdetBackward0", slogdet_bw, NULL, 1, &a, 2);
    if (st != NB_OK) return st;
    st = nb_ag_save_input(&r, 0, a);
    nb_tensor *s = NULL, *l = NULL;
    if (st == NB_OK) st = nbi_linalg_slogdet(a, &s, &l);
    nb_tensor* results[2] = {s, l};
    nb_tensor** outs[2] = {sign, logabsdet};
    return nb_ag_finish(&r, st, results, outs, 2);
}

/* ---- solve: inputs 0 = A, 1 = B; ia[0] = left, ia[1] = B is a vector; saved 0 = A, 1 = X ---- */

static nb_status solve_bw(nb_bw* b) {
    const bool left = b->node->ia[0] != 0, vector = b->node->ia[1] != 0;
    nb_tensor *a = bw_saved(b, 0), *x = bw_saved(b, 1), *g = b->go[0];
    /* gB solves the transposed system; gA = -gB X^T (left) or -X^T gB, vectors as matrices */
    nb_tensor* gb = BW_OP(b, nb_linalg_solve(bw_mt(b, a), g, left, &bw_r_));
    if (bw_needs(b, 1)) bw_set(b, 1, gb);
    if (bw_needs(b, 0)) {
        const int64_t at = left ? -1 : -2;  /* vectors become columns (left) or rows */
        nb_tensor* gbm = vector ? bw_unsq(b, gb, at) : gb;
        nb_tensor* xm = vector ? bw_unsq(b, x, at) : x;
        bw_set(b, 0, bw_neg(b, left ? bw_mm(b, gbm, bw_mt(b, xm)) : bw_mm(b, bw_mt(b, xm), gbm)));
    }
    return b->st;
}

static nb_status solve_record(const char* op, const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** out,
                              nb_tensor** info) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, bt};
    nb_status st = nb_ag_begin(&r, op, "LinalgSolveExBackward0", solve_bw, NULL, 2, in, info ? 2 : 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = left != 0;
    nb_tensor *y = NULL, *i = NULL;
    st = info ? nbi_linalg_solve_ex(a, bt, left, &y, &i) : nbi_linalg_solve(a, bt, left, &y);
    if (st == NB_OK) r.node->ia[1] = nb_solve_rhs_is_vector(a, bt);  /* a and bt are valid once solve accepted them */
    if (st == NB_OK) st = nb_ag_save_input(&r, 0, a);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    nb_tensor* results[2] = {y, i};
    nb_tensor** outs[2] = {out, info};
    return nb_ag_finish(&r, st, results, outs, info ? 2 : 1);
}

nb_status nb_agf_linalg_solve(const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** out) {
    return solve_record("linalg.solve", a, bt, left, out, NULL);
}

nb_status nb_agf_linalg_solve_ex(const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** result,
                                 nb_tensor** info) {
    NB_CHECK_OUT("linalg.solve_ex", info);
    return solve_record("linalg.solve", a, bt, left, result, info);
}

/* ---- solve_triangular: inputs 0 = A, 1 = B; ia = upper, left, unitriangular; saved 0 = A, 1 = X ---- */

static nb_status solve_triangular_bw(nb_bw* b) {
    const int32_t upper = (int32_t)b->node->ia[0], left = (int32_t)b->node->ia[1], unit = (int32_t)b->node->ia[2];
    nb_tensor *a = bw_saved(b, 0), *x = bw_saved(b, 1);
    nb_tensor* gb = BW_OP(b, nb_linalg_solve_triangular(bw_mt(b, a), b->go[0], !upper, left, unit, &bw_r_));
    if (bw_needs(b, 1)) bw_set(b, 1, gb);
    if (bw_needs(b, 0)) {  /* only A's triangle was read (without its diagonal when unit) */
        nb_tensor* ga = bw_neg(b, left ? bw_mm(b, gb, bw_mt(b, x)) : bw_mm(b, bw_mt(b, x), gb));
        bw_set(b, 0, upper ? BW_OP(b, nb_triu(ga, unit, NULL, &bw_r_)) : BW_OP(b, nb_tril(ga, -unit, NULL, &bw_r_)));
    }
    return b->st;
}

nb_status nb_agf_linalg_solve_triangular(const nb_tensor* a, const nb_tensor* bt, int32_t upper, int32_t left,
                                         int32_t unitriangular, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, bt};
    nb_status st = nb_ag_begin(&r, "linalg.solve_triangular", "LinalgSolveTriangularBackward0", solve_triangular_bw,
                               NULL, 2, in, 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = upper != 0, r.node->ia[1] = left != 0, r.node->ia[2] = unitriangular != 0;
    st = nb_ag_save_input(&r, 0, a);
    nb_tensor* y = NULL;
    if (st == NB_OK) st = nbi_linalg_solve_triangular(a, bt, upper, left, unitriangular, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, y, 0);
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- cholesky: ia[0] = upper; saved 0 = the factor ---- */

static nb_status cholesky_bw(nb_bw* b) {
    const bool upper = b->node->ia[0] != 0;
    nb_tensor *l = bw_saved(b, 0), *gl = b->go[0];
    if (upper) l = bw_mt(b, l), gl = bw_mt(b, gl);
    nb_tensor* phi = BW_OP(b, nb_tril(bw_mm(b, bw_mt(b, l), gl), 0, NULL, &bw_r_));
    nb_tensor* eye = l ? BW_OP(b, nb_eye(l->shape[l->ndim - 1], l->shape[l->ndim - 1], l->dtype,
                                        l->storage->device_type, l->storage->device_index, &bw_r_)) : NULL;
    phi = bw_sub(b, phi, bw_mul(b, bw_muls(b, phi, 0.5), eye));  /* the diagonal halved */
    nb_tensor* y = BW_OP(b, nb_linalg_solve(bw_mt(b, l), phi, 1, &bw_r_));  /* L^-T Phi */
    nb_tensor* x = BW_OP(b, nb_linalg_solve(l, y, 0, &bw_r_));             /* ... L^-1 */
    bw_set(b, 0, bw_muls(b, bw_add(b, x, bw_mt(b, x)), 0.5));
    return b->st;
}

static nb_status cholesky_record(const char* op, const nb_tensor* a, int32_t upper, nb_tensor** out,
                                 nb_tensor** info) {
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, op, "LinalgCholeskyExBackward0", cholesky_bw, NULL, 1, &a, info ? 2 : 1);
    if (st != NB_OK) return st;
    r.node->ia[0] = upper != 0;
    nb_tensor *y = NULL, *i = NULL;
    st = info ? nbi_linalg_cholesky_ex(a, upper, &y, &i) : nbi_linalg_cholesky(a, upper, &y);
    if (st == NB_OK) st = nb_ag_save_output(&r, 0, y, 0);
    nb_tensor* results[2] = {y, i};
    nb_tensor** outs[2] = {out, info};
    return nb_ag_finish(&r, st, results, outs, info ? 2 : 1);
}

nb_status nb_agf_linalg_cholesky(const nb_tensor* a, int32_t upper, nb_tensor** out) {
    return cholesky_record("linalg.cholesky", a, upper, out, NULL);
}

nb_status nb_agf_linalg_cholesky_ex(const nb_tensor* a, int32_t upper, nb_tensor** L, nb_tensor** info) {
    NB_CHECK_OUT("linalg.cholesky_ex", info);
    return cholesky_record("linalg.cholesky", a, upper, L, info);
}

/* ---- qr: outputs 0 = Q, 1 = R; ia[0] = mode; saved 0 = Q, 1 = R ---- */

/* gX of X = Q R with R square: (gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T,
 * copyltu(M) = tril(M) + tril(M, -1)^T (M's lower triangle made symmetric). */
static nb_tensor* qr_square_bw(nb_bw* b, const nb_tensor* q, const nb_tensor* r, const nb_tensor* gq,
                               const nb_tensor* gr) {
    nb_tensor* m = bw_sub(b, bw_mm(b, r, bw_mt(b, gr)), bw_mm(b, bw_mt(b, gq), q));
    nb_tensor* sym = bw_add(b, BW_OP(b, nb_tril(m, 0, NULL, &bw_r_)), bw_mt(b, BW_OP(b, nb_tril(m, -1, NULL, &bw_r_))));
    nb_tensor* x = bw_add(b, gq, bw_mm(b, q, sym));
    return BW_OP(b, nb_linalg_solve_triangular(bw_mt(b, r), x, 0, 0, 0, &bw_r_));  /* x R^-T */
}

static nb_status qr_bw(nb_bw* b) {
    if (b->node->ia[0] == NB_QR_R)
        return b->st = nb_error(NB_ERR_AUTOGRAD, "The derivative of linalg.qr depends on Q, which is not computed when "
                                "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                                "through linalg.qr.");
    nb_tensor *q = bw_saved(b, 0), *r = bw_saved(b, 1), *gq = b->go[0], *gr = b->go[1];
    if (b->st != NB_OK) return b->st;
    const int64_t m = q->shape[q->ndim - 2], n = r->shape[r->ndim - 1];
    if (b->node->ia[0] == NB_QR_COMPLETE && m > n)
        return b->st = nb_error(NB_ERR_AUTOGRAD, "The QR decomposition is not differentiable when mode='complete' and "
                                "nrows > ncols.");
    if (m >= n) {
        bw_set(b, 0, qr_square_bw(b, q, r, gq, gr));
        return b->st;
    }
    /* A = [X | Y] with X = Q U square and Y = Q V: Y's part of R feeds Q's gradient */
    nb_tensor* u = BW_OP(b, nb_tensor_narrow(r, -1, 0, m, &bw_r_));
    nb_tensor* v = BW_OP(b, nb_tensor_narrow(r, -1, m, n - m, &bw_r_));
    nb_tensor* gu = BW_OP(b, nb_tensor_narrow(gr, -1, 0, m, &bw_r_));
    nb_tensor* gv = BW_OP(b, nb_tensor_narrow(gr, -1, m, n - m, &bw_r_));
    nb_tensor* gq2 = bw_add(b, gq, bw_mm(b, bw_mm(b, q, v), bw_mt(b, gv)));
    const nb_tensor* parts[2] = {qr_square_bw(b, q, u, gq2, gu), bw_mm(b, q, gv)};
    if (b->st == NB_OK) bw_set(b, 0, BW_OP(b, nb_cat(parts, 2, -1, NULL, &bw_r_)));
    return b->st;
}

nb_status nb_agf_linalg_qr(const nb_tensor* a, int32_t mode, nb_tensor** q, nb_tensor** r) {
    NB_CHECK_OUT("linalg.qr", q);  /* as the kernel checks them: it is called with the formula's own */
    NB_CHECK_OUT("linalg.qr", r);
    nb_ag_rec rec;
    nb_status st = nb_ag_begin(&rec, "linalg.qr", "LinalgQrBackward0", qr_bw, NULL, 1, &a, 2);
    if (st != NB_OK) return st;
    rec.node->ia[0] = mode;
    nb_tensor *qt = NULL, *rt = NULL;
    st = nbi_linalg_qr(a, mode, &qt, &rt);
    if (st == NB_OK) st = nb_ag_save_output(&rec, 0, qt, 0);
    if (st == NB_OK) st = nb_ag_save_output(&rec, 1, rt, 1);
    nb_tensor* results[2] = {qt, rt};
    nb_tensor** outs[2] = {q, r};
    return nb_ag_finish(&rec, st, results, outs, 2);
}

/* ---- eigh: saved 0 = eigenvalues, 1 = eigenvectors (always computed when recording) ---- */

static nb_status eigh_bw(nb_bw* b) {
    nb_tensor *l = bw_saved(b, 0), *v = bw_saved(b, 1);
    if (b->st != NB_OK) return b->st;  /* freed by an earlier backward, or modified in place */
    const int64_t n = l->shape[l->ndim - 1];
    nb_tensor* eye = BW_OP(b, nb_eye(n, n, l->dtype, l->storage->device_type, l->storage->device_index, &bw_r_));
    nb_tensor* inner = bw_mul(b, bw_unsq(b, b->go[0], -1), eye);  /* diag(gL) */
    if (!go_zero(b, 1)) {  /* (saved eigenvectors reach it under create_graph too) */
        nb_tensor* w = bw_muls(b, bw_skew(b, bw_mm(b, bw_mt(b, v), b->go[1])), 0.5);
        inner = bw_add(b, inner, bw_div(b, w, bw_gaps(b, l)));
    }
    bw_set(b, 0, bw_mm(b, bw_mm(b, v, inner), bw_mt(b, v)));
    return b->st;
}

nb_status nb_agf_linalg_eigh(const nb_tensor* a, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    NB_CHECK_OUT("linalg.eigh", eigenvalues);  /* the kernel below writes to a local */
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "linalg.eigh", "LinalgEighBackward0", eigh_bw, NULL, 1, &a, 2);
    if (st != NB_OK) return st;
    nb_tensor *w = NULL, *v = NULL;
    st = nbi_linalg_eigh(a, upper, &w, &v);
    if (st == NB_OK) st = nb_ag_save_output(&r, 0, w, 0);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, v, 1);
    if (eigenvectors == NULL) {  /* eigvalsh: the vectors served the formula only */
        if (st == NB_OK) nb_tensor_meta_of(v, &r.node->out_meta[1]);
        st = nb_ag_end1(&r, st, w);
        nb_tensor_release(v);
        if (st == NB_OK) *eigenvalues = w;
        else nb_tensor_release(w);
        return st;
    }
    nb_tensor* results[2] = {w, v};
    nb_tensor** outs[2] = {eigenvalues, eigenvectors};
    return nb_ag_finish(&r, st, results, outs, 2);
}

/* ---- svd: outputs 0 = U, 1 = S, 2 = Vh; ia[0] = full_matrices;
 * saved 0 = U, 1 = S, 2 = Vh (reduced: narrowed to k columns / rows when full) ---- */

static nb_status svd_bw(nb_bw* b) {
    nb_tensor *u = bw_saved(b, 0), *s = bw_saved(b, 1), *vh = bw_saved(b, 2);
    if (b->st != NB_OK) return b->st;  /* freed by an earlier backward, or modified in place */
    /* U and Vh may get gradients without being handed out: as saved outputs, under create_graph */
    const bool vectors = !(go_zero(b, 0) && go_zero(b, 2));
    nb_tensor* gs = b->go[1];
    if (!vectors) {  /* U diag(gS) Vh */
        bw_set(b, 0, bw_mm(b, bw_mul(b, u, bw_unsq(b, gs, -2)), vh));
        return b->st;
    }
    if (b->node->ia[0])
        return b->st = nb_error(NB_ERR_NOT_IMPLEMENTED, "linalg.svd: the derivative of U and Vh is not implemented "
                                "with full_matrices=True; use full_matrices=False");
    nb_tensor *gu = b->go[0], *gvh = b->go[2];
    const int64_t m = u->shape[u->ndim - 2], n = vh->shape[vh->ndim - 1], k = s->shape[s->ndim - 1];
    nb_tensor *srow = bw_unsq(b, s, -2), *scol = bw_unsq(b, s, -1);  /* S scaling columns / rows */
    nb_tensor* e = bw_gaps(b, bw_mul(b, s, s));
    nb_tensor* uhgu = bw_mm(b, bw_mt(b, u), gu);
    nb_tensor* vhgv = bw_mm(b, vh, bw_mt(b, gvh));
    nb_tensor* inner = bw_add(b, bw_mul(b, bw_div(b, bw_skew(b, uhgu), e), srow),
                              bw_mul(b, scol, bw_div(b, bw_skew(b, vhgv), e)));
    inner = bw_add(b, inner, bw_mul(b, bw_unsq(b, gs, -1), BW_OP(b, nb_eye(k, k, s->dtype, s->storage->device_type,
                                                                          s->storage->device_index, &bw_r_))));
    nb_tensor* ga = bw_mm(b, bw_mm(b, u, inner), vh);
    if (m > k)  /* (I - U U^T) gU S^-1 Vh */
        ga = bw_add(b, ga, bw_mm(b, bw_div(b, bw_sub(b, gu, bw_mm(b, u, uhgu)), srow), vh));
    if (n > k)  /* U S^-1 gVh (I - V Vh) */
        ga = bw_add(b, ga, bw_mm(b, u, bw_div(b, bw_sub(b, gvh, bw_mm(b, bw_mm(b, gvh, bw_mt(b, vh)), vh)), scol)));
    bw_set(b, 0, ga);
    return b->st;
}

nb_status nb_agf_linalg_svd(const nb_tensor* a, int32_t full_matrices, nb_tensor** u, nb_tensor** s,
                            nb_tensor** vh) {
    /* The out-parameters as the kernel checks them: the formula calls it with its own. */
    NB_CHECK_OUT("linalg.svd", s);
    if ((u == NULL) != (vh == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "linalg.svd: U and Vh are asked for together (both NULL: singular values only)");
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "linalg.svd", "LinalgSvdBackward0", svd_bw, NULL, 1, &a, 3);
    if (st != NB_OK) return st;
    const bool vectors = u != NULL;
    r.node->ia[0] = vectors && full_matrices;
    nb_tensor *ut = NULL, *stt = NULL, *vt = NULL, *ur = NULL, *vr = NULL;
    st = nbi_linalg_svd(a, vectors && full_matrices, &ut, &stt, &vt);  /* the vectors serve the formula */
    const int64_t k = stt != NULL ? stt->shape[stt->ndim - 1] : 0;
    if (st == NB_OK) st = nb_tensor_narrow(ut, -1, 0, k, &ur);
    if (st == NB_OK) st = nb_tensor_narrow(vt, -2, 0, k, &vr);
    if (st == NB_OK) st = nb_ag_save_output(&r, 0, ur, 0);
    if (st == NB_OK) st = nb_ag_save_output(&r, 1, stt, 1);
    if (st == NB_OK) st = nb_ag_save_output(&r, 2, vr, 2);
    nb_tensor_release(ur), nb_tensor_release(vr);
    if (!vectors) {  /* svdvals: S alone is handed out (output 1); U and Vh served the formula */
        if (st == NB_OK) nb_tensor_meta_of(ut, &r.node->out_meta[0]), nb_tensor_meta_of(vt, &r.node->out_meta[2]);
        nb_tensor* results[3] = {NULL, stt, NULL};
        st = nb_ag_end(&r, st, results, 3);
        nb_tensor_release(ut), nb_tensor_release(vt);
        if (st == NB_OK) *s = stt;
        else nb_tensor_release(stt);
        return st;
    }
    nb_tensor* results[3] = {ut, stt, vt};
    nb_tensor** outs[3] = {u, s, vh};
    return nb_ag_finish(&r, st, results, outs, 3);
}
