/* linalg.c: formulas of the matrix products. Every gradient is a matrix product
 * again, with transposes as views (the GEMM reads them in place), so it runs
 * wherever the products run and is differentiable itself. Gradients of batch
 * dims that broadcast come out in the broadcast shape; the engine sums them.
 * Saved slots: 0 = the first operand, 1 = the second (each only when the other
 * operand's gradient needs it). Arguments of BW_OP are computed beforehand, so
 * that a failed step's message is the one reported. */
#include "../autograd.h"

static nb_tensor* bw_mT(nb_bw* b, const nb_tensor* t) { return BW_OP(b, nb_tensor_transpose(t, -2, -1, &bw_r_)); }
static nb_tensor* bw_matmul(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_matmul(x, y, NULL, &bw_r_));
}
static nb_tensor* bw_unsqueeze(nb_bw* b, const nb_tensor* t, int64_t dim) {
    return BW_OP(b, nb_tensor_unsqueeze(t, dim, &bw_r_));
}
static nb_tensor* bw_squeeze(nb_bw* b, const nb_tensor* t, int64_t dim) {
    return BW_OP(b, nb_tensor_squeeze(t, &dim, 1, &bw_r_));
}
/* go made dense once when its matrix dims are broadcast (the gradient of a sum is
 * an expanded scalar): the GEMM cannot read stride 0 and would copy it per product. */
static nb_tensor* bw_gemm_ready(nb_bw* b, nb_tensor* go) {
    for (int32_t d = go->ndim > 2 ? go->ndim - 2 : 0; d < go->ndim; d++)
        if (go->strides[d] == 0 && go->shape[d] > 1) return BW_OP(b, nb_tensor_contiguous(go, &bw_r_));
    return go;
}

/* go scaled by s, skipping the multiply for s == 1. */
static nb_tensor* bw_scaled(nb_bw* b, nb_tensor* go, double s) { return s == 1.0 ? go : bw_muls(b, go, s); }

/* Records a product op of two operands (inputs a_at and a_at + 1 of n_in): saves
 * each operand the other's gradient needs. */
static nb_status begin_product(nb_ag_rec* r, const char* op, const char* node, nb_backward_fn bw, nb_tensor* dst,
                               int32_t n_in, const nb_tensor* const* in, int32_t a_at) {
    nb_status st = nb_ag_begin(r, op, node, bw, dst, n_in, in, 1);
    if (st != NB_OK) return st;
    if (nb_ag_needs(r, a_at + 1)) st = nb_ag_save_input(r, 0, in[a_at]);
    if (st == NB_OK && nb_ag_needs(r, a_at)) st = nb_ag_save_input(r, 1, in[a_at + 1]);
    if (st != NB_OK) nb_ag_end(r, st, NULL, 0);
    return st;
}

/* ---- matmul: every rank case of torch.matmul ---- */

/* A vector operand acts as a matrix (a: one row [1, K], b: one column [K, 1]);
 * go gains those dims back, and each gradient loses them again. When a has
 * batch dims and b has none, b's gradient folds the batch into the rows (one
 * GEMM instead of a batch of them and a sum). ia[0], ia[1]: the operands' ndims. */
static nb_status matmul_bw(nb_bw* b) {
    const bool a_vec = b->node->ia[0] == 1, b_vec = b->node->ia[1] == 1;
    nb_tensor* go = b->go[0];
    if (a_vec && b_vec) { /* dot: go is 0-dim */
        if (bw_needs(b, 0)) bw_set(b, 0, bw_mul(b, go, bw_saved(b, 1)));
        if (bw_needs(b, 1)) bw_set(b, 1, bw_mul(b, go, bw_saved(b, 0)));
        return b->st;
    }
    nb_tensor* g = b_vec ? bw_unsqueeze(b, go, -1) : bw_gemm_ready(b, go); /* [..., M, N] */
    if (a_vec) g = bw_unsqueeze(b, g, -2);
    if (bw_needs(b, 0)) {
        nb_tensor* B = bw_saved(b, 1);
        if (b_vec) B = bw_unsqueeze(b, B, -1);
        nb_tensor* ga = bw_matmul(b, g, bw_mT(b, B)); /* [..., M, K] */
        bw_set(b, 0, a_vec ? bw_squeeze(b, ga, -2) : ga);
    }
    if (bw_needs(b, 1)) {
        nb_tensor* A = bw_saved(b, 0);
        if (a_vec) A = bw_unsqueeze(b, A, 0);
        nb_tensor* gb;
        if (b->node->ia[1] <= 2 && A != NULL && A->ndim > 2) { /* fold the batch: [K, R] @ [R, N] */
            int64_t ka[2] = {-1, A->shape[A->ndim - 1]}, kg[2] = {-1, g->shape[g->ndim - 1]};
            gb = bw_matmul(b, bw_mT(b, bw_reshape(b, A, ka, 2)), bw_reshape(b, g, kg, 2));
        } else {
            gb = bw_matmul(b, bw_mT(b, A), g); /* [..., K, N] */
        }
        bw_set(b, 1, b_vec ? bw_squeeze(b, gb, -1) : gb);
    }
    return b->st;
}

nb_status nb_agf_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, b};
    nb_status st = begin_product(&r, "matmul", "MmBackward0", matmul_bw, dst, 2, in, 0);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_matmul(a, b, dst, &y);
    if (st == NB_OK) { /* valid operands now; the name is PyTorch's for the path matmul takes */
        r.node->ia[0] = a->ndim;
        r.node->ia[1] = b->ndim;
        r.node->name = a->ndim == 1 && b->ndim == 1 ? "DotBackward0"
                       : b->ndim == 1              ? "MvBackward0"
                       : a->ndim > 2 || b->ndim > 2 ? "BmmBackward0"
                                                    : "MmBackward0";
    }
    return nb_ag_finish1(&r, st, y, out);
}

/* ---- mm, bmm, mv, dot ---- */

typedef nb_status (*product_impl)(const nb_tensor*, const nb_tensor*, nb_tensor*, nb_tensor**);

static nb_status record_product(const char* op, const char* node, nb_backward_fn bw, product_impl impl,
                                const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[2] = {a, b};
    nb_status st = begin_product(&r, op, node, bw, dst, 2, in, 0);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = impl(a, b, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

/* a @ b with a, b matrices or batches of them: ga = go b^T, gb = a^T go, scaled by alpha. */
static void product_grads(nb_bw* b, int32_t a_at, product_impl mm, double alpha) {
    nb_tensor* go = alpha == 1.0 ? bw_gemm_ready(b, b->go[0]) : bw_muls(b, b->go[0], alpha);
    if (bw_needs(b, a_at)) {
        nb_tensor* bt = bw_mT(b, bw_saved(b, 1));
        bw_set(b, a_at, BW_OP(b, mm(go, bt, NULL, &bw_r_)));
    }
    if (bw_needs(b, a_at + 1)) {
        nb_tensor* at = bw_mT(b, bw_saved(b, 0));
        bw_set(b, a_at + 1, BW_OP(b, mm(at, go, NULL, &bw_r_)));
    }
}

static nb_status mm_bw(nb_bw* b) {
    product_grads(b, 0, nb_mm, 1.0);
    return b->st;
}
static nb_status bmm_bw(nb_bw* b) {
    product_grads(b, 0, nb_bmm, 1.0);
    return b->st;
}

nb_status nb_agf_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_product("mm", "MmBackward0", mm_bw, nbi_mm, a, b, dst, out);
}

nb_status nb_agf_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_product("bmm", "BmmBackward0", bmm_bw, nbi_bmm, a, b, dst, out);
}

/* a [n, m] @ v [m]: ga = go v^T (an outer product), gv = a^T go. */
static nb_status mv_bw(nb_bw* b) {
    nb_tensor* go = b->go[0];
    if (bw_needs(b, 0)) bw_set(b, 0, bw_mul(b, bw_unsqueeze(b, go, 1), bw_saved(b, 1)));
    if (bw_needs(b, 1)) {
        nb_tensor* at = bw_mT(b, bw_saved(b, 0));
        bw_set(b, 1, BW_OP(b, nb_mv(at, go, NULL, &bw_r_)));
    }
    return b->st;
}

nb_status nb_agf_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    return record_product("mv", "MvBackward0", mv_bw, nbi_mv, a, v, dst, out);
}

static nb_status dot_bw(nb_bw* b) {
    if (bw_needs(b, 0)) bw_set(b, 0, bw_mul(b, b->go[0], bw_saved(b, 1)));
    if (bw_needs(b, 1)) bw_set(b, 1, bw_mul(b, b->go[0], bw_saved(b, 0)));
    return b->st;
}

nb_status nb_agf_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    return record_product("dot", "DotBackward0", dot_bw, nbi_dot, a, b, dst, out);
}

/* outer is a broadcast product of a[:, None] and b, as in PyTorch: its
 * implementation composes recorded ops, so the graph holds MulBackward0. */
nb_status nb_agf_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (dst != NULL) /* never in place: the result is 2-D, the operands 1-D */
        return nb_error(NB_ERR_AUTOGRAD, "outer(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.");
    return nbi_outer(a, b, dst, out);
}

/* ---- addmm, baddbmm: beta * input + alpha * (mat1 @ mat2) ---- */

/* Inputs: 0 = input (broadcast: the engine sums its gradient), 1, 2 = the operands.
 * fa[0] = beta, fa[1] = alpha. */
static void add_product_grads(nb_bw* b, product_impl mm) {
    if (bw_needs(b, 0)) bw_set(b, 0, bw_scaled(b, b->go[0], b->node->fa[0]));
    product_grads(b, 1, mm, b->node->fa[1]);
}
static nb_status addmm_bw(nb_bw* b) {
    add_product_grads(b, nb_mm);
    return b->st;
}
static nb_status baddbmm_bw(nb_bw* b) {
    add_product_grads(b, nb_bmm);
    return b->st;
}

typedef nb_status (*add_product_impl)(const nb_tensor*, const nb_tensor*, const nb_tensor*, double, double,
                                      nb_tensor*, nb_tensor**);

static nb_status record_add_product(const char* op, const char* node, nb_backward_fn bw, add_product_impl impl,
                                    const nb_tensor* input, const nb_tensor* m1, const nb_tensor* m2, double beta,
                                    double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[3] = {input, m1, m2};
    nb_status st = begin_product(&r, op, node, bw, dst, 3, in, 1);
    if (st != NB_OK) return st;
    r.node->fa[0] = beta;
    r.node->fa[1] = alpha;
    nb_tensor* y = NULL;
    st = impl(input, m1, m2, beta, alpha, dst, &y);
    return nb_ag_finish1(&r, st, y, out);
}

nb_status nb_agf_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta,
                       double alpha, nb_tensor* dst, nb_tensor** out) {
    return record_add_product("addmm", "AddmmBackward0", addmm_bw, nbi_addmm, input, mat1, mat2, beta, alpha, dst,
                              out);
}

nb_status nb_agf_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta,
                         double alpha, nb_tensor* dst, nb_tensor** out) {
    return record_add_product("baddbmm", "BaddbmmBackward0", baddbmm_bw, nbi_baddbmm, input, batch1, batch2, beta,
                              alpha, dst, out);
}

/* ---- linear: input [*, in] @ weight^T (weight [out, in] or [in]) + bias ---- */

/* Inputs: 0 = input, 1 = weight, 2 = bias (its gradient is go, summed by the
 * engine). Saved: 0 = input, 1 = weight. ia[0], ia[1]: their ndims. The weight's
 * gradient folds the leading dims of input into the rows of one GEMM:
 * go^T [out, R] @ input [R, in]. */
static nb_status linear_bw(nb_bw* b) {
    const int64_t x_ndim = b->node->ia[0];
    const bool w_vec = b->node->ia[1] == 1;
    nb_tensor* go = w_vec ? b->go[0] : bw_gemm_ready(b, b->go[0]);
    if (bw_needs(b, 0)) {
        nb_tensor* w = bw_saved(b, 1);
        bw_set(b, 0, w_vec ? bw_mul(b, bw_unsqueeze(b, go, -1), w) : bw_matmul(b, go, w));
    }
    if (bw_needs(b, 1)) {
        nb_tensor* x = bw_saved(b, 0);
        nb_tensor* gw;
        if (x_ndim == 1) { /* go [out] (or 0-dim) times x [in] */
            gw = w_vec ? bw_mul(b, go, x) : bw_mul(b, bw_unsqueeze(b, go, 1), x);
        } else {
            if (x_ndim > 2 && x != NULL) {
                int64_t kx[2] = {-1, x->shape[x->ndim - 1]}, kg[2] = {-1, go->shape[go->ndim - 1]};
                x = bw_reshape(b, x, kx, 2);
                go = bw_reshape(b, go, kg, w_vec ? 1 : 2);
            }
            if (w_vec) {
                nb_tensor* xt = bw_mT(b, x);
                gw = BW_OP(b, nb_mv(xt, go, NULL, &bw_r_));
            } else {
                gw = bw_matmul(b, bw_mT(b, go), x);
            }
        }
        bw_set(b, 1, gw);
    }
    if (b->node->n_inputs > 2 && bw_needs(b, 2)) bw_set(b, 2, b->go[0]);
    return b->st;
}

nb_status nb_agf_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst,
                        nb_tensor** out) {
    nb_ag_rec r;
    const nb_tensor* in[3] = {input, weight, bias};
    nb_status st = begin_product(&r, "linear", "LinearBackward0", linear_bw, dst, bias != NULL ? 3 : 2, in, 0);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    st = nbi_linear(input, weight, bias, dst, &y);
    if (st == NB_OK) {
        r.node->ia[0] = input->ndim;
        r.node->ia[1] = weight->ndim;
    }
    return nb_ag_finish1(&r, st, y, out);
}
