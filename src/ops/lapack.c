/* lapack.c: linear algebra through LAPACK (scipy-openblas32): inv, solve, cholesky
 * (and their _ex forms), ldl_factor_ex / ldl_solve (Bunch-Kaufman), solve_triangular, det, slogdet, qr,
 * eigh and svd of float32 /
 * float64 matrices, batched over every leading dim. Each matrix is copied into a column-major buffer, factored in
 * place (lapack_kernels.h) and copied out; failures name the batch element and
 * LAPACK's position, in PyTorch's words, with NB_ERR_LINALG (LinAlgError). */
#include "../core/internal.h"
#include "../cpu/kernels.h"
#include "../cpu/lapack.h"
#include "lapack_device.h"
#include "../autograd/dispatch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T float
#define P s
#include "lapack_kernels.h"
#undef T
#undef P
#define T double
#define P d
#include "lapack_kernels.h"
#undef T
#undef P

/* A call of kernel NAME for the dtype (NB_F32 or NB_F64) on void* buffers. */
#define KERNEL(dtype, NAME, ...) ((dtype) == NB_F32 ? NAME##_s(__VA_ARGS__) : NAME##_d(__VA_ARGS__))

/* Checks shared by every op: a CPU tensor of float32/float64 matrices (square ones when asked). */
static nb_status check_input(const char* op, const nb_tensor* a, const char* name, bool square) {
    NB_CHECK_TENSOR(op, a);
    if (a->storage->device_type != NB_CPU)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: only CPU tensors are supported, got %s", op,
                        nb_device_type_name(a->storage->device_type));
    if (a->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: The input tensor %s must have at least 2 dimensions.", op, name);
    if (a->dtype == NB_F16 || a->dtype == NB_BF16)
        return nb_error(NB_ERR_DTYPE, "%s: Low precision dtypes not supported. Got %s", op,
                        nb_dtype_torch_name(a->dtype));
    if (a->dtype != NB_F32 && a->dtype != NB_F64)
        return nb_error(NB_ERR_DTYPE, "%s: Expected a floating point or complex tensor as input. Got %s", op,
                        nb_dtype_torch_name(a->dtype));
    if (square && a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return nb_error(NB_ERR_SHAPE, "%s: %s must be batches of square matrices, but they are %lld by %lld matrices",
                        op, name, (long long)a->shape[a->ndim - 2], (long long)a->shape[a->ndim - 1]);
    if (a->shape[a->ndim - 1] > INT32_MAX || a->shape[a->ndim - 2] > INT32_MAX)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: matrices of %s are too large for LAPACK's 32-bit sizes", op,
                        nb_shape_str(a->shape, a->ndim));
    return NB_OK;
}

/* The batch of a [..., m, n] tensor: a contiguous copy and its geometry. */
typedef struct {
    nb_tensor* t;
    const char* data;
    int64_t count, m, n, es;
    int32_t dtype, bndim;
    const int64_t* bshape;
    bool batched;  /* messages name the batch element */
} batch;

static nb_status open_batch(const nb_tensor* a, batch* b) {
    memset(b, 0, sizeof *b);
    nb_status st = nb_tensor_contiguous(a, &b->t);
    if (st != NB_OK) return st;
    b->data = nb_tensor_data(b->t);
    b->dtype = a->dtype;
    b->es = nb_dtype_sizes[a->dtype];
    b->bndim = a->ndim - 2;
    b->bshape = b->t->shape;  /* not a's: a may be a temporary (open_pair's expanded A) released before use */
    b->m = a->shape[a->ndim - 2];
    b->n = a->shape[a->ndim - 1];
    b->count = 1;
    for (int32_t i = 0; i < b->bndim; i++) b->count *= a->shape[i];
    b->batched = a->ndim > 2;
    return NB_OK;
}

/* The matrices a loop must visit: none when each one is empty and gives an empty result
 * (nothing to read or write), as PyTorch returns at once. The batch may then count up to
 * 2^63 - 1 matrices ([2^60, 0, 0] float is a valid tensor of no bytes); a result that an
 * empty matrix still has (det's 1, complete QR's identity Q) bounds the count by its
 * allocation, so those loops keep it. */
static int64_t matrices(const batch* b, bool empty) { return empty ? 0 : b->count; }

/* A new tensor of shape batch + dims (nd of them). */
static nb_status new_batched(const char* op, const batch* b, const int64_t* dims, int32_t nd, nb_tensor** out) {
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, b->bshape, sizeof(int64_t) * (size_t)b->bndim);
    if (nd > 0) memcpy(shape + b->bndim, dims, sizeof(int64_t) * (size_t)nd);  /* dims may be NULL then */
    return nb_tensor_new(op, shape, b->bndim + nd, b->dtype, NB_CPU, 0, out);
}

/* dst (column-major rows x cols) = src (row-major rows x cols), or the reverse with the
 * dims swapped: transposing a row-major matrix is converting it to column-major. */
static void transpose(const char* src, char* dst, int64_t rows, int64_t cols, int64_t es) {
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) memcpy(dst + (j * rows + i) * es, src + (i * cols + j) * es, (size_t)es);
}

/* "(Batch element 3): " for batched inputs, "" otherwise (thread-local). */
static const char* element(bool batched, int64_t i) {
    static _Thread_local char buf[48];
    if (!batched) return "";
    snprintf(buf, sizeof buf, "(Batch element %lld): ", (long long)i);
    return buf;
}

static nb_status no_memory(const char* op) { return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for LAPACK's workspace", op); }

/* Scratch for one matrix: a rows x cols buffer of the dtype plus n pivots. */
static nb_status scratch(const char* op, const batch* b, int64_t elements, int64_t pivots, void** buf,
                         nb_lapack_int** ipiv) {
    *buf = malloc((size_t)(elements > 0 ? elements : 1) * (size_t)b->es);
    *ipiv = malloc(sizeof(nb_lapack_int) * (size_t)(pivots > 0 ? pivots : 1));
    if (*buf == NULL || *ipiv == NULL) {
        free(*buf), free(*ipiv);
        *buf = NULL, *ipiv = NULL;
        return no_memory(op);
    }
    return NB_OK;
}

/* The start of an op from square matrices to square matrices: the checks, the batch, the
 * result and one matrix of scratch with n pivots. On failure nothing is left to release. */
static nb_status open_square(const char* op, const nb_tensor* a, batch* b, nb_tensor** r, void** buf,
                             nb_lapack_int** ipiv) {
    *r = NULL, *buf = NULL, *ipiv = NULL;
    nb_status st = check_input(op, a, "A", true);
    if (st != NB_OK || (st = open_batch(a, b)) != NB_OK) return st;
    const int64_t sq[2] = {b->n, b->n};
    if ((st = new_batched(op, b, sq, 2, r)) == NB_OK && (st = scratch(op, b, b->n * b->n, b->n, buf, ipiv)) == NB_OK)
        return NB_OK;
    nb_tensor_release(*r), nb_tensor_release(b->t);
    *r = NULL;
    return st;
}

/* The info of the _ex ops: int32, one per matrix of the batch. */
static nb_status new_info(const char* op, const batch* b, nb_tensor** info) {
    nb_status st = nb_tensor_new(op, b->bshape, b->bndim, NB_I32, NB_CPU, 0, info);
    if (st == NB_OK) memset(nb_tensor_data(*info), 0, sizeof(int32_t) * (size_t)b->count);
    return st;
}

/* ---- inv, inv_ex ---- */

/* The inverse of each matrix. With info (inv_ex) a singular matrix is no error: its
 * position goes to info, and A X = I is solved from the LU factors anyway, as PyTorch's
 * inv_ex does (infinities and NaNs). */
static nb_status inverse(const char* op, const nb_tensor* a, nb_tensor** out, nb_tensor** info) {
    NB_CHECK_OUT(op, out);
    batch b;
    nb_tensor *r, *it = NULL;
    void *buf, *eye = NULL;
    nb_lapack_int* ipiv;
    nb_status st = open_square(op, a, &b, &r, &buf, &ipiv);
    if (st != NB_OK) return st;
    const int64_t n = b.n;
    if (info != NULL && (st = new_info(op, &b, &it)) == NB_OK && (eye = malloc((size_t)(n * n + 1) * (size_t)b.es)) == NULL)
        st = no_memory(op);
    for (int64_t i = 0; st == NB_OK && i < matrices(&b, n == 0); i++) {
        char* dst = (char*)nb_tensor_data(r) + i * n * n * b.es;
        transpose(b.data + i * n * n * b.es, buf, n, n, b.es);  /* A itself, so the pivots are PyTorch's */
        if (info != NULL) {
            memset(eye, 0, (size_t)(n * n * b.es));
            const double one = 1.0;
            for (int64_t j = 0; j < n; j++) nb_cpu_convert_fn(NB_F64, b.dtype)((char*)eye + (j * n + j) * b.es, 1, &one, 1, 1);
            ((int32_t*)nb_tensor_data(it))[i] = KERNEL(b.dtype, solve, (nb_lapack_int)n, (nb_lapack_int)n, buf, ipiv, eye, true);
            transpose(eye, dst, n, n, b.es);
            continue;
        }
        const int code = KERNEL(b.dtype, inv, (nb_lapack_int)n, buf, ipiv);
        if (code < 0) st = no_memory(op);
        else if (code > 0)
            st = nb_error(NB_ERR_LINALG, "%s: %sThe diagonal element %d is zero, the inversion could not be completed "
                          "because the input matrix is singular.", op, element(b.batched, i), code);
        else transpose(buf, dst, n, n, b.es);
    }
    free(buf), free(ipiv), free(eye);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(r), nb_tensor_release(it), st;
    *out = r;
    if (info != NULL) *info = it;
    return NB_OK;
}

nb_status nbi_linalg_inv(const nb_tensor* a, nb_tensor** out) {
    NB_CHECK_OUT("linalg.inv", out);
    NB_LINALG_ON_HOST("linalg.inv", a, NULL, nbi_linalg_inv(trip_in[0], out), out);
    return inverse("linalg.inv", a, out, NULL);
}

nb_status nbi_linalg_inv_ex(const nb_tensor* a, nb_tensor** inverse_, nb_tensor** info) {
    NB_CHECK_OUT("linalg.inv_ex", info);
    NB_LINALG_ON_HOST("linalg.inv", a, NULL, nbi_linalg_inv_ex(trip_in[0], inverse_, info), inverse_, info);
    return inverse("linalg.inv", a, inverse_, info);  /* PyTorch names inv in the checks */
}

/* ---- solve, solve_ex, solve_triangular ---- */

bool nb_solve_rhs_is_vector(const nb_tensor* a, const nb_tensor* b) {
    if (b->ndim == 1) return true;
    return b->ndim == a->ndim - 1 && memcmp(b->shape, a->shape, sizeof(int64_t) * (size_t)b->ndim) == 0;
}

/* The checks of B against A [..., n, n] for A X = B (left) or X A = B, B a batch of
 * matrices or (bm 1) vectors: the batch dims broadcast, giving the shapes A and B
 * expand to (nd batch dims) and the k columns (left) or rows of each B. */
static nb_status check_rhs(const char* op, const nb_tensor* a, const nb_tensor* bt, bool left, int32_t bm,
                           int64_t* ashape, int64_t* bshape, int32_t* nd_out, int64_t* k_out) {
    NB_CHECK_TENSOR(op, bt);
    if (bt->storage->device_type != NB_CPU)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: only CPU tensors are supported", op);
    if (bt->dtype != a->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Expected A and B to have the same dtype, but found A of type %s and B of "
                        "type %s instead", op, nb_dtype_torch_name(a->dtype), nb_dtype_torch_name(bt->dtype));
    const int64_t n = a->shape[a->ndim - 1];
    if (bm == 2 && bt->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: The input tensor B must have at least 2 dimensions.", op);
    const int64_t rows = bm == 1 ? bt->shape[bt->ndim - 1] : bt->shape[bt->ndim - (left ? 2 : 1)];
    const int64_t k = bm == 1 ? 1 : bt->shape[bt->ndim - (left ? 1 : 2)];
    if (rows != n)
        return nb_error(NB_ERR_SHAPE, "%s: Incompatible shapes of A and B for the equation %s (%lldx%lld and %lldx%lld)",
                        op, left ? "AX = B" : "XA = B", (long long)n, (long long)n,
                        (long long)(left ? rows : k), (long long)(left ? k : rows));
    const int32_t na = a->ndim - 2, nb = bt->ndim - bm, nd = na > nb ? na : nb;
    for (int32_t d = 0; d < nd; d++) {
        const int64_t sa = d >= nd - na ? a->shape[d - (nd - na)] : 1, sb = d >= nd - nb ? bt->shape[d - (nd - nb)] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nb_error(NB_ERR_SHAPE, "%s: The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d", op, (long long)sa, (long long)sb, (int)d);
        ashape[d] = bshape[d] = sa != 1 ? sa : sb;
    }
    ashape[nd] = n, ashape[nd + 1] = n;
    memcpy(bshape + nd, bt->shape + bt->ndim - bm, sizeof(int64_t) * (size_t)bm);
    *nd_out = nd, *k_out = k;
    return NB_OK;
}

/* A and B expanded to their broadcast shapes, as contiguous batches. */
static nb_status open_pair(const nb_tensor* a, const nb_tensor* bt, const int64_t* ashape, const int64_t* bshape,
                           int32_t nd, int32_t bm, batch* A, nb_tensor** B) {
    nb_tensor *ae = NULL, *be = NULL;
    nb_status st;
    if ((st = nb_tensor_expand(a, ashape, nd + 2, &ae)) == NB_OK && (st = nb_tensor_expand(bt, bshape, nd + bm, &be)) == NB_OK &&
        (st = open_batch(ae, A)) == NB_OK) {
        st = nb_tensor_contiguous(be, B);
        if (st != NB_OK) nb_tensor_release(A->t);
    }
    nb_tensor_release(ae), nb_tensor_release(be);
    return st;
}

static nb_status solve(const char* op, const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** out,
                       nb_tensor** info) {
    NB_CHECK_OUT(op, out);
    nb_status st = check_input(op, a, "A", true);
    if (st != NB_OK) return st;
    NB_CHECK_TENSOR(op, bt);
    const int64_t n = a->shape[a->ndim - 1];
    const int32_t bm = nb_solve_rhs_is_vector(a, bt) ? 1 : 2;
    int64_t ashape[NB_MAX_DIMS], bshape[NB_MAX_DIMS], k;
    int32_t nd;
    batch A;
    nb_tensor *Bt = NULL, *r = NULL, *it = NULL;
    if ((st = check_rhs(op, a, bt, left, bm, ashape, bshape, &nd, &k)) != NB_OK ||
        (st = open_pair(a, bt, ashape, bshape, nd, bm, &A, &Bt)) != NB_OK)
        return st;
    void *abuf = NULL, *bbuf = NULL;
    nb_lapack_int* ipiv = NULL;
    st = nb_tensor_new(op, bshape, nd + bm, a->dtype, NB_CPU, 0, &r);
    if (st == NB_OK && info != NULL) st = new_info(op, &A, &it);
    if (st == NB_OK) st = scratch(op, &A, n * n, n, &abuf, &ipiv);
    if (st == NB_OK && (bbuf = malloc((size_t)(n * k > 0 ? n * k : 1) * (size_t)A.es)) == NULL) st = no_memory(op);
    const char* bdata = st == NB_OK ? nb_tensor_data(Bt) : NULL;
    for (int64_t i = 0; st == NB_OK && i < matrices(&A, n == 0); i++) {
        const char* am = A.data + i * n * n * A.es;
        const char* bmat = bdata + i * n * k * A.es;
        char* xm = (char*)nb_tensor_data(r) + i * n * k * A.es;
        /* AX = B: A and B go column-major; XA = B is A^T X^T = B^T, which the row-major data already are */
        if (left) transpose(am, abuf, n, n, A.es), transpose(bmat, bbuf, n, k, A.es);
        else memcpy(abuf, am, (size_t)(n * n * A.es)), memcpy(bbuf, bmat, (size_t)(n * k * A.es));
        const int code = KERNEL(A.dtype, solve, (nb_lapack_int)n, (nb_lapack_int)k, abuf, ipiv, bbuf, info != NULL);
        if (code < 0) st = no_memory(op);
        else if (code > 0 && info == NULL)
            st = nb_error(NB_ERR_LINALG, "%s: %sThe solver failed because the input matrix is singular.", op,
                          element(nd > 0, i));
        else if (left) transpose(bbuf, xm, k, n, A.es);
        else memcpy(xm, bbuf, (size_t)(n * k * A.es));
        if (info != NULL && code > 0) ((int32_t*)nb_tensor_data(it))[i] = code;
    }
    free(abuf), free(bbuf), free(ipiv);
    nb_tensor_release(A.t), nb_tensor_release(Bt);
    if (st != NB_OK) return nb_tensor_release(r), nb_tensor_release(it), st;
    *out = r;
    if (info != NULL) *info = it;
    return NB_OK;
}

nb_status nbi_linalg_solve(const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** out) {
    NB_CHECK_OUT("linalg.solve", out);
    NB_LINALG_ON_HOST("linalg.solve", a, bt, nbi_linalg_solve(trip_in[0], trip_in[1], left, out), out);
    return solve("linalg.solve", a, bt, left, out, NULL);
}

nb_status nbi_linalg_solve_ex(const nb_tensor* a, const nb_tensor* bt, int32_t left, nb_tensor** result,
                              nb_tensor** info) {
    NB_CHECK_OUT("linalg.solve_ex", info);
    NB_LINALG_ON_HOST("linalg.solve", a, bt, nbi_linalg_solve_ex(trip_in[0], trip_in[1], left, result, info), result,
                      info);
    return solve("linalg.solve", a, bt, left, result, info);
}

nb_status nbi_linalg_solve_triangular(const nb_tensor* a, const nb_tensor* bt, int32_t upper, int32_t left,
                                      int32_t unitriangular, nb_tensor** out) {
    static const char* op = "linalg.solve_triangular";
    NB_CHECK_OUT(op, out);
    NB_LINALG_ON_HOST(op, a, bt, nbi_linalg_solve_triangular(trip_in[0], trip_in[1], upper, left, unitriangular, out),
                      out);
    nb_status st = check_input(op, a, "A", true);
    if (st != NB_OK) return st;
    int64_t ashape[NB_MAX_DIMS], bshape[NB_MAX_DIMS], k;
    int32_t nd;
    batch A;
    nb_tensor *Bt = NULL, *r = NULL;
    if ((st = check_rhs(op, a, bt, left, 2, ashape, bshape, &nd, &k)) != NB_OK ||
        (st = open_pair(a, bt, ashape, bshape, nd, 2, &A, &Bt)) != NB_OK)
        return st;
    const int64_t n = A.n;
    if ((st = nb_tensor_new(op, bshape, nd + 2, a->dtype, NB_CPU, 0, &r)) == NB_OK)
        memcpy(nb_tensor_data(r), nb_tensor_data(Bt), (size_t)(r->numel * A.es));
    /* Row-major data is the transpose in column-major: A X = B is X^T A^T = B^T with A^T's
     * triangle the other one, and X A = B is A^T X^T = B^T; trsm then runs in place on X^T. */
    const char side = left ? 'R' : 'L', uplo = upper ? 'L' : 'U';
    const int64_t rows = left ? k : n, cols = left ? n : k;
    for (int64_t i = 0; st == NB_OK && i < matrices(&A, n == 0 || k == 0); i++)
        KERNEL(A.dtype, trsolve, side, uplo, unitriangular != 0, (nb_lapack_int)rows, (nb_lapack_int)cols,
               (const void*)(A.data + i * n * n * A.es), (void*)((char*)nb_tensor_data(r) + i * n * k * A.es));
    nb_tensor_release(A.t), nb_tensor_release(Bt);
    if (st != NB_OK) return nb_tensor_release(r), st;
    *out = r;
    return NB_OK;
}

/* ---- det, slogdet ---- */

static nb_status determinant(const char* op, const nb_tensor* a, nb_tensor** det, nb_tensor** sign,
                             nb_tensor** logabs) {
    nb_status st = check_input(op, a, "A", true);
    batch b;
    if (st != NB_OK || (st = open_batch(a, &b)) != NB_OK) return st;
    const int64_t n = b.n;
    nb_tensor *d = NULL, *s = NULL, *l = NULL;
    void* buf = NULL;
    nb_lapack_int* ipiv = NULL;
    if (det != NULL) st = new_batched(op, &b, NULL, 0, &d);
    if (st == NB_OK && sign != NULL) st = new_batched(op, &b, NULL, 0, &s);
    if (st == NB_OK && sign != NULL) st = new_batched(op, &b, NULL, 0, &l);
    if (st == NB_OK) st = scratch(op, &b, n * n, n, &buf, &ipiv);
    for (int64_t i = 0; st == NB_OK && i < b.count; i++) {
        transpose(b.data + i * n * n * b.es, buf, n, n, b.es);
        double v[3];  /* det, sign, log|det| in the dtype (a float in the first bytes) */
        KERNEL(b.dtype, det, (nb_lapack_int)n, buf, ipiv, (void*)&v[0], (void*)&v[1], (void*)&v[2]);
        if (d) memcpy((char*)nb_tensor_data(d) + i * b.es, &v[0], (size_t)b.es);
        if (s) memcpy((char*)nb_tensor_data(s) + i * b.es, &v[1], (size_t)b.es);
        if (l) memcpy((char*)nb_tensor_data(l) + i * b.es, &v[2], (size_t)b.es);
    }
    free(buf), free(ipiv);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(d), nb_tensor_release(s), nb_tensor_release(l), st;
    if (det) *det = d;
    if (sign) *sign = s, *logabs = l;
    return NB_OK;
}

nb_status nbi_linalg_det(const nb_tensor* a, nb_tensor** out) {
    NB_CHECK_OUT("linalg.det", out);
    NB_LINALG_ON_HOST("linalg.det", a, NULL, nbi_linalg_det(trip_in[0], out), out);
    return determinant("linalg.det", a, out, NULL, NULL);
}

nb_status nbi_linalg_slogdet(const nb_tensor* a, nb_tensor** sign, nb_tensor** logabsdet) {
    NB_CHECK_OUT("linalg.slogdet", sign);
    NB_CHECK_OUT("linalg.slogdet", logabsdet);
    NB_LINALG_ON_HOST("linalg.slogdet", a, NULL, nbi_linalg_slogdet(trip_in[0], sign, logabsdet), sign, logabsdet);
    return determinant("linalg.slogdet", a, NULL, sign, logabsdet);
}

/* ---- cholesky, cholesky_ex ---- */

/* With info (cholesky_ex) a matrix that is not positive-definite is no error: the order
 * of its failing minor goes to info and the factor holds LAPACK's partial work. */
static nb_status cholesky(const char* op, const nb_tensor* a, int32_t upper, nb_tensor** out, nb_tensor** info) {
    NB_CHECK_OUT(op, out);
    batch b;
    nb_tensor *r, *it = NULL;
    void* buf;
    nb_lapack_int* ipiv;
    nb_status st = open_square(op, a, &b, &r, &buf, &ipiv);
    if (st != NB_OK) return st;
    if (info != NULL) st = new_info(op, &b, &it);
    const int64_t n = b.n;
    for (int64_t i = 0; st == NB_OK && i < matrices(&b, n == 0); i++) {
        /* the row-major data is A^T in column-major: its upper factor is the transpose of the lower one we want */
        memcpy(buf, b.data + i * n * n * b.es, (size_t)(n * n * b.es));
        const int code = KERNEL(b.dtype, cholesky, (nb_lapack_int)n, buf, !upper);
        if (code > 0 && info == NULL)
            st = nb_error(NB_ERR_LINALG, "%s: %sThe factorization could not be completed because the input is not "
                          "positive-definite (the leading minor of order %d is not positive-definite).", op,
                          element(b.batched, i), code);
        else memcpy((char*)nb_tensor_data(r) + i * n * n * b.es, buf, (size_t)(n * n * b.es));
        if (info != NULL) ((int32_t*)nb_tensor_data(it))[i] = code;
    }
    free(buf), free(ipiv);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(r), nb_tensor_release(it), st;
    *out = r;
    if (info != NULL) *info = it;
    return NB_OK;
}

nb_status nbi_linalg_cholesky(const nb_tensor* a, int32_t upper, nb_tensor** out) {
    NB_CHECK_OUT("linalg.cholesky", out);
    NB_LINALG_ON_HOST("linalg.cholesky", a, NULL, nbi_linalg_cholesky(trip_in[0], upper, out), out);
    return cholesky("linalg.cholesky", a, upper, out, NULL);
}

nb_status nbi_linalg_cholesky_ex(const nb_tensor* a, int32_t upper, nb_tensor** L, nb_tensor** info) {
    NB_CHECK_OUT("linalg.cholesky_ex", info);
    NB_LINALG_ON_HOST("linalg.cholesky", a, NULL, nbi_linalg_cholesky_ex(trip_in[0], upper, L, info), L, info);
    return cholesky("linalg.cholesky", a, upper, L, info);
}

/* ---- ldl_factor_ex, ldl_solve ---- */

/* A = L D L^T of each symmetric matrix (Bunch-Kaufman, LAPACK's pivots); a zero block of D
 * is no error: its position goes to info, as PyTorch's ldl_factor_ex. hermitian is the same
 * factorization for real dtypes. */
nb_status nbi_linalg_ldl_factor_ex(const nb_tensor* a, int32_t hermitian, nb_tensor** LD, nb_tensor** pivots,
                                   nb_tensor** info) {
    static const char* op = "linalg.ldl_factor_ex";
    (void)hermitian;
    NB_CHECK_OUT(op, LD);
    NB_CHECK_OUT(op, pivots);
    NB_CHECK_OUT(op, info);
    NB_LINALG_ON_HOST(op, a, NULL, nbi_linalg_ldl_factor_ex(trip_in[0], hermitian, LD, pivots, info), LD, pivots,
                      info);
    batch b;
    nb_tensor *r, *piv = NULL, *it = NULL;
    void* buf;
    nb_lapack_int* ipiv;
    nb_status st = open_square(op, a, &b, &r, &buf, &ipiv);
    if (st != NB_OK) return st;
    const int64_t n = b.n;
    if ((st = new_info(op, &b, &it)) == NB_OK)
        st = nb_tensor_new(op, b.t->shape, b.bndim + 1, NB_I32, NB_CPU, 0, &piv);
    for (int64_t i = 0; st == NB_OK && i < matrices(&b, n == 0); i++) {
        char* ld = (char*)nb_tensor_data(r) + i * n * n * b.es;
        transpose(b.data + i * n * n * b.es, buf, n, n, b.es);
        const int code = KERNEL(b.dtype, ldl, (nb_lapack_int)n, buf, ipiv);
        if (code < 0) st = no_memory(op);
        transpose(buf, ld, n, n, b.es);
        for (int64_t row = 0; row < n; row++)  /* the upper triangle holds LAPACK's untouched input: zero it */
            memset(ld + (row * n + row + 1) * b.es, 0, (size_t)((n - row - 1) * b.es));
        memcpy((int32_t*)nb_tensor_data(piv) + i * n, ipiv, sizeof(int32_t) * (size_t)n);
        ((int32_t*)nb_tensor_data(it))[i] = code > 0 ? code : 0;
    }
    free(buf), free(ipiv);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(r), nb_tensor_release(piv), nb_tensor_release(it), st;
    *LD = r, *pivots = piv, *info = it;
    return NB_OK;
}

/* The checks of ldl_solve (PyTorch's messages) and the broadcast batch shape of LD and B (nd dims). */
static nb_status check_ldl_solve(const char* op, const nb_tensor* ld, const nb_tensor* piv, const nb_tensor* bt,
                                 int64_t* shape, int32_t* nd_out) {
    nb_status st = check_input(op, ld, "A", true);
    if (st != NB_OK) return st;
    NB_CHECK_TENSOR(op, piv);
    NB_CHECK_TENSOR(op, bt);
    const int32_t pd = piv->dtype;
    if (pd == NB_F32 || pd == NB_F64 || pd == NB_F16 || pd == NB_BF16 || pd == NB_BOOL)
        return nb_error(NB_ERR_DTYPE, "%s: Expected pivots to be integers. Got %s", op, nb_dtype_torch_name(pd));
    if (piv->ndim != ld->ndim - 1 || memcmp(piv->shape, ld->shape, sizeof(int64_t) * (size_t)piv->ndim) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots "
                        "with shape %s instead", op, nb_shape_str(piv->shape, piv->ndim));
    if (bt->ndim < 2)
        return nb_error(NB_ERR_INDEX, "%s: Dimension out of range (expected to be in range of [-1, 0], but got -2)",
                        op);
    if (bt->dtype != ld->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Expected b and A to have the same dtype, but found b of type %s and A of "
                        "type %s instead.", op, nb_dtype_torch_name(bt->dtype), nb_dtype_torch_name(ld->dtype));
    const int64_t n = ld->shape[ld->ndim - 1], rows = bt->shape[bt->ndim - 2];
    if (rows != n)
        return nb_error(NB_ERR_SHAPE, "%s: Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is "
                        "%lld by %lld but each b matrix is %lld by %lld", op, (long long)n, (long long)n,
                        (long long)rows, (long long)bt->shape[bt->ndim - 1]);
    const int32_t na = ld->ndim - 2, nb = bt->ndim - 2, nd = na > nb ? na : nb;
    for (int32_t d = 0; d < nd; d++) {
        const int64_t sa = d >= nd - na ? ld->shape[d - (nd - na)] : 1, sb = d >= nd - nb ? bt->shape[d - (nd - nb)] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nb_error(NB_ERR_SHAPE, "%s: The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d", op, (long long)sa, (long long)sb, (int)d);
        shape[d] = sa != 1 ? sa : sb;
    }
    *nd_out = nd;
    return NB_OK;
}

/* t expanded to shape (nd dims) and made contiguous, as dtype on the CPU. */
static nb_status expanded(const nb_tensor* t, const int64_t* shape, int32_t nd, int32_t dtype, nb_tensor** out) {
    nb_tensor *e = NULL, *c = NULL;
    nb_status st = nb_tensor_expand(t, shape, nd, &e);
    if (st == NB_OK) st = nbi_tensor_to(e, dtype, NB_CPU, 0, 0, &c);
    if (st == NB_OK) st = nb_tensor_contiguous(c, out);
    nb_tensor_release(e), nb_tensor_release(c);
    return st;
}

/* Whether piv[0..n) is a pivot vector sytrf (lower) can return: p in [1, n] for a 1x1 block,
 * the same -p in [-n, -1] at k and k+1 for a 2x2 block. sytrs indexes rows by them. */
static int64_t bad_ldl_pivot(const int32_t* piv, int64_t n) {
    for (int64_t k = 0; k < n;) {
        const int64_t p = piv[k];
        if (p >= 1 && p <= n) k += 1;
        else if (p <= -1 && p >= -n && k + 1 < n && piv[k + 1] == p) k += 2;
        else return k;
    }
    return -1;
}

/* X with A X = B from ldl_factor_ex's LD and pivots of A; LD and B batch dims broadcast. */
nb_status nbi_linalg_ldl_solve(const nb_tensor* ld, const nb_tensor* piv, const nb_tensor* bt, int32_t hermitian,
                               nb_tensor** out) {
    static const char* op = "linalg.ldl_solve";
    (void)hermitian;
    NB_CHECK_OUT(op, out);
    NB_LINALG_ON_HOST(op, ld, bt, nbi_linalg_ldl_solve(trip_in[0], piv, trip_in[1], hermitian, out), out);
    int64_t shape[NB_MAX_DIMS];
    int32_t nd;
    nb_status st = check_ldl_solve(op, ld, piv, bt, shape, &nd);
    if (st != NB_OK) return st;
    const int64_t n = ld->shape[ld->ndim - 1], k = bt->shape[bt->ndim - 1];
    const int64_t es = nb_dtype_sizes[ld->dtype];
    int64_t count = 1;
    for (int32_t d = 0; d < nd; d++) count *= shape[d];
    nb_tensor *L = NULL, *P = NULL, *B = NULL, *r = NULL;
    void *abuf = NULL, *bbuf = NULL;
    shape[nd] = n, shape[nd + 1] = n;
    if ((st = expanded(ld, shape, nd + 2, ld->dtype, &L)) == NB_OK &&
        (st = expanded(piv, shape, nd + 1, NB_I32, &P)) == NB_OK) {
        shape[nd + 1] = k;
        if ((st = expanded(bt, shape, nd + 2, ld->dtype, &B)) == NB_OK)
            st = nb_tensor_new(op, shape, nd + 2, ld->dtype, NB_CPU, 0, &r);
    }
    if (st == NB_OK && ((abuf = malloc((size_t)(n * n > 0 ? n * n : 1) * (size_t)es)) == NULL ||
                        (bbuf = malloc((size_t)(n * k > 0 ? n * k : 1) * (size_t)es)) == NULL))
        st = no_memory(op);
    for (int64_t i = 0; st == NB_OK && n > 0 && k > 0 && i < count; i++) {
        const int32_t* ipiv = (const int32_t*)nb_tensor_data(P) + i * n;
        const int64_t bad = bad_ldl_pivot(ipiv, n);
        if (bad >= 0) {
            st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: pivots are not those of ldl_factor: pivots[..., %lld] = %d "
                          "(expected 1..%lld, or the same negative value at two consecutive places)", op,
                          (long long)bad, (int)ipiv[bad], (long long)n);
            break;
        }
        transpose((const char*)nb_tensor_data(L) + i * n * n * es, abuf, n, n, es);
        transpose((const char*)nb_tensor_data(B) + i * n * k * es, bbuf, n, k, es);
        KERNEL(ld->dtype, ldl_solve, (nb_lapack_int)n, (nb_lapack_int)k, abuf, (const nb_lapack_int*)ipiv, bbuf);
        transpose(bbuf, (char*)nb_tensor_data(r) + i * n * k * es, k, n, es);
    }
    free(abuf), free(bbuf);
    nb_tensor_release(L), nb_tensor_release(P), nb_tensor_release(B);
    if (st != NB_OK) return nb_tensor_release(r), st;
    *out = r;
    return NB_OK;
}

/* ---- qr ---- */

nb_status nbi_linalg_qr(const nb_tensor* a, int32_t mode, nb_tensor** q, nb_tensor** r) {
    static const char* op = "linalg.qr";
    NB_CHECK_OUT(op, q);
    NB_CHECK_OUT(op, r);
    NB_LINALG_ON_HOST(op, a, NULL, nbi_linalg_qr(trip_in[0], mode, q, r), q, r);
    if (mode != NB_QR_REDUCED && mode != NB_QR_COMPLETE && mode != NB_QR_R)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: mode must be NB_QR_REDUCED, NB_QR_COMPLETE or NB_QR_R, got %d",
                        op, (int)mode);
    nb_status st = check_input(op, a, "A", false);
    batch b;
    if (st != NB_OK || (st = open_batch(a, &b)) != NB_OK) return st;
    const int64_t m = b.m, n = b.n, k = m < n ? m : n;
    const int64_t qcols = mode == NB_QR_COMPLETE ? m : k, rrows = mode == NB_QR_COMPLETE ? m : k;
    const int64_t qdims[2] = {m, qcols}, rdims[2] = {rrows, n}, none = 0;
    nb_tensor *qt = NULL, *rt = NULL;
    void *abuf = NULL, *qbuf = NULL;
    nb_lapack_int* unused = NULL;
    st = mode == NB_QR_R ? nb_tensor_new(op, &none, 1, b.dtype, NB_CPU, 0, &qt) : new_batched(op, &b, qdims, 2, &qt);
    if (st == NB_OK) st = new_batched(op, &b, rdims, 2, &rt);
    if (st == NB_OK) st = scratch(op, &b, m * n, 0, &abuf, &unused);
    if (st == NB_OK && mode != NB_QR_R && (qbuf = malloc((size_t)(m * qcols > 0 ? m * qcols : 1) * (size_t)b.es)) == NULL)
        st = no_memory(op);
    for (int64_t i = 0; st == NB_OK && i < matrices(&b, m * qcols == 0 && rrows * n == 0); i++) {
        transpose(b.data + i * m * n * b.es, abuf, m, n, b.es);
        const int info = KERNEL(b.dtype, qr, (nb_lapack_int)m, (nb_lapack_int)n, abuf, qbuf, (nb_lapack_int)qcols);
        if (info != 0) {
            st = info < 0 ? no_memory(op) : nb_error(NB_ERR_INTERNAL, "%s: LAPACK failed (info %d)", op, info);
            break;
        }
        char* rm = (char*)nb_tensor_data(rt) + i * rrows * n * b.es;  /* R: the upper triangle, row-major */
        for (int64_t row = 0; row < rrows; row++)
            for (int64_t col = 0; col < n; col++) {
                char* e = rm + (row * n + col) * b.es;
                if (row <= col && row < m) memcpy(e, (char*)abuf + (col * m + row) * b.es, (size_t)b.es);
                else memset(e, 0, (size_t)b.es);
            }
        if (qbuf != NULL) transpose(qbuf, (char*)nb_tensor_data(qt) + i * m * qcols * b.es, qcols, m, b.es);
    }
    free(abuf), free(qbuf), free(unused);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(qt), nb_tensor_release(rt), st;
    *q = qt, *r = rt;
    return NB_OK;
}

/* ---- eigh ---- */

nb_status nbi_linalg_eigh(const nb_tensor* a, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    static const char* op = "linalg.eigh";
    NB_CHECK_OUT(op, eigenvalues);
    NB_LINALG_ON_HOST(op, a, NULL, nbi_linalg_eigh(trip_in[0], upper, eigenvalues, eigenvectors), eigenvalues,
                      eigenvectors);
    nb_status st = check_input(op, a, "A", true);
    batch b;
    if (st != NB_OK || (st = open_batch(a, &b)) != NB_OK) return st;
    const int64_t n = b.n, sq[2] = {n, n};
    nb_tensor *w = NULL, *v = NULL;
    void* buf = NULL;
    nb_lapack_int* unused = NULL;
    if ((st = new_batched(op, &b, &n, 1, &w)) == NB_OK && eigenvectors != NULL) st = new_batched(op, &b, sq, 2, &v);
    if (st == NB_OK) st = scratch(op, &b, n * n, 0, &buf, &unused);
    for (int64_t i = 0; st == NB_OK && i < matrices(&b, n == 0); i++) {
        /* the row-major data is A^T in column-major: its lower triangle is A's upper one */
        memcpy(buf, b.data + i * n * n * b.es, (size_t)(n * n * b.es));
        const int info = KERNEL(b.dtype, eigh, (nb_lapack_int)n, buf, (void*)((char*)nb_tensor_data(w) + i * n * b.es),
                                eigenvectors != NULL, !upper);
        if (info < 0) st = no_memory(op);
        else if (info > 0)
            st = nb_error(NB_ERR_LINALG, "%s: %sThe algorithm failed to converge because the input matrix is "
                          "ill-conditioned or has too many repeated eigenvalues (error code: %d).", op,
                          element(b.batched, i), info);
        else if (v != NULL) transpose(buf, (char*)nb_tensor_data(v) + i * n * n * b.es, n, n, b.es);
    }
    free(buf), free(unused);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(w), nb_tensor_release(v), st;
    *eigenvalues = w;
    if (eigenvectors != NULL) *eigenvectors = v;
    return NB_OK;
}

/* ---- svd ---- */

/* An identity in each matrix of t (the U or V of an empty matrix, as PyTorch gives). */
static void fill_identity(nb_tensor* t, int64_t es) {
    const int64_t r = t->shape[t->ndim - 2], c = t->shape[t->ndim - 1], count = r * c != 0 ? t->numel / (r * c) : 0;
    char* p = nb_tensor_data(t);
    memset(p, 0, (size_t)(t->numel * es));
    const double one = 1.0;
    for (int64_t i = 0; i < count; i++)
        for (int64_t j = 0; j < r && j < c; j++)
            nb_cpu_convert_fn(NB_F64, t->dtype)(p + (i * r * c + j * c + j) * es, 1, &one, 1, 1);
}

/* Whether count float32/float64 values are all finite. */
static bool all_finite(const void* p, int64_t count, int32_t dtype) {
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(dtype == NB_F32 ? (double)((const float*)p)[i] : ((const double*)p)[i])) return false;
    return true;
}

nb_status nbi_linalg_svd(const nb_tensor* a, int32_t full_matrices, nb_tensor** u, nb_tensor** s, nb_tensor** vh) {
    static const char* op = "linalg.svd";
    NB_CHECK_OUT(op, s);
    if ((u == NULL) != (vh == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: U and Vh are asked for together (both NULL: singular values only)",
                        op);
    NB_LINALG_ON_HOST(op, a, NULL, nbi_linalg_svd(trip_in[0], full_matrices, u, s, vh), u, s, vh);
    nb_status st = check_input(op, a, "A", false);
    batch b;
    if (st != NB_OK || (st = open_batch(a, &b)) != NB_OK) return st;
    const int64_t m = b.m, n = b.n, k = m < n ? m : n;
    const bool vectors = u != NULL, full = vectors && full_matrices;
    const int64_t ucols = full ? m : k, vrows = full ? n : k;
    const int64_t udims[2] = {m, ucols}, vdims[2] = {vrows, n};
    nb_tensor *ut = NULL, *st_ = NULL, *vt = NULL;
    void *abuf = NULL, *ubuf = NULL, *vbuf = NULL;
    nb_lapack_int* unused = NULL;
    st = new_batched(op, &b, &k, 1, &st_);
    if (st == NB_OK && vectors) st = new_batched(op, &b, udims, 2, &ut);
    if (st == NB_OK && vectors) st = new_batched(op, &b, vdims, 2, &vt);
    if (st == NB_OK) st = scratch(op, &b, m * n, 0, &abuf, &unused);
    if (st == NB_OK && vectors && ((ubuf = malloc((size_t)(m * ucols + 1) * (size_t)b.es)) == NULL ||
                                   (vbuf = malloc((size_t)(vrows * n + 1) * (size_t)b.es)) == NULL))
        st = no_memory(op);
    if (st == NB_OK && vectors && k == 0) fill_identity(ut, b.es), fill_identity(vt, b.es);
    for (int64_t i = 0; st == NB_OK && k > 0 && i < b.count; i++) {
        transpose(b.data + i * m * n * b.es, abuf, m, n, b.es);
        if (!all_finite(abuf, m * n, b.dtype)) {  /* gesdd loops forever on an infinity and refuses a NaN */
            st = nb_error(NB_ERR_LINALG, "%s: %sThe algorithm failed to converge because the input matrix contained "
                          "non-finite values.", op, element(b.batched, i));
            break;
        }
        const int info = KERNEL(b.dtype, svd, (nb_lapack_int)m, (nb_lapack_int)n, abuf,
                                (void*)((char*)nb_tensor_data(st_) + i * k * b.es), ubuf, vbuf, !vectors ? 'N' : full ? 'A' : 'S');
        if (info < 0) st = no_memory(op);
        else if (info > 0)
            st = nb_error(NB_ERR_LINALG, "%s: %sThe algorithm failed to converge because the input matrix is "
                          "ill-conditioned or has too many repeated singular values (error code: %d).", op,
                          element(b.batched, i), info);
        else if (vectors) {
            transpose(ubuf, (char*)nb_tensor_data(ut) + i * m * ucols * b.es, ucols, m, b.es);
            transpose(vbuf, (char*)nb_tensor_data(vt) + i * vrows * n * b.es, n, vrows, b.es);
        }
    }
    free(abuf), free(ubuf), free(vbuf), free(unused);
    nb_tensor_release(b.t);
    if (st != NB_OK) return nb_tensor_release(ut), nb_tensor_release(st_), nb_tensor_release(vt), st;
    *s = st_;
    if (vectors) *u = ut, *vh = vt;
    return NB_OK;
}
