/* unique.c: unique along a dim and unique_consecutive (the flattened unique is in
 * sort.c). The slices along dim are rows compared lexicographically, as PyTorch's
 * unique_dim does: ordered by the first element that is < or > (NaN is neither,
 * so it moves on to the next element), equal when every element is == (so a row
 * holding NaN equals no other row, and -0.0 equals 0.0). unique sorts the rows
 * stably by that order; unique_consecutive keeps their order. Runs of equal rows
 * become one output row (the first of the run). On a device the rows are grouped
 * on the host (one copy each way), then the values selected on the device. */
#include "sort_device.h"

#include <stdlib.h>

/* The rows as comparable numbers: doubles for float dtypes (exact for all four),
 * int64 for the others. */
typedef struct {
    const double* f;
    const int64_t* i;
    int64_t m;  /* elements per row */
} rows;

static int row_order(const rows* r, int64_t a, int64_t b) {  /* -1, 0, 1 (0 also when NaN undecided) */
    for (int64_t k = 0; k < r->m; k++) {
        if (r->f) {
            const double x = r->f[a * r->m + k], y = r->f[b * r->m + k];
            if (x < y) return -1;
            if (x > y) return 1;
        } else {
            const int64_t x = r->i[a * r->m + k], y = r->i[b * r->m + k];
            if (x != y) return x < y ? -1 : 1;
        }
    }
    return 0;
}

static bool row_equal(const rows* r, int64_t a, int64_t b) {
    for (int64_t k = 0; k < r->m; k++)
        if (r->f ? !(r->f[a * r->m + k] == r->f[b * r->m + k]) : r->i[a * r->m + k] != r->i[b * r->m + k])
            return false;
    return true;
}

/* Stable merge sort of idx[n] by row_order (tmp: n scratch). */
static void sort_rows(const rows* r, int64_t* idx, int64_t* tmp, int64_t n) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = row_order(r, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid) tmp[o++] = idx[i++];
            while (j < hi) tmp[o++] = idx[j++];
        }
        memcpy(idx, tmp, sizeof(int64_t) * (size_t)n);
    }
}

/* x with dim moved first, as a contiguous [n, m] tensor of doubles or int64. */
static nb_status load_rows(const nb_tensor* x, int32_t d, nb_tensor** out, rows* r) {
    int64_t perm[NB_MAX_DIMS];
    perm[0] = d;
    for (int32_t k = 0, j = 1; k < x->ndim; k++)
        if (k != d) perm[j++] = k;
    nb_tensor *moved = NULL, *conv = NULL;
    nb_status st = nb_tensor_permute(x, perm, x->ndim, &moved);
    const bool floating = nb_dtype_is_floating(x->dtype);
    if (st == NB_OK) st = nb_tensor_to(moved, floating ? NB_F64 : NB_I64, NB_CPU, 0, 0, &conv);
    if (st == NB_OK) st = nb_tensor_contiguous(conv, out);
    nb_tensor_release(conv);
    nb_tensor_release(moved);
    if (st != NB_OK) return st;
    r->f = floating ? nb_tensor_data(*out) : NULL;
    r->i = floating ? NULL : nb_tensor_data(*out);
    r->m = x->shape[d] ? (*out)->numel / x->shape[d] : 0;
    return NB_OK;
}

/* The host tensors *a, *b, *c replaced by copies on x's device. */
static nb_status to_device_of(const nb_tensor* x, nb_tensor** a, nb_tensor** b, nb_tensor** c) {
    nb_tensor** ts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        nb_tensor* moved = NULL;
        nb_status st = nb_tensor_to(*ts[i], (*ts[i])->dtype, x->storage->device_type, x->storage->device_index, 0,
                                    &moved);
        if (st != NB_OK) return st;
        nb_tensor_release(*ts[i]);
        *ts[i] = moved;
    }
    return NB_OK;
}

/* The rows of x along d grouped: values (the first row of each run, through
 * index_select), inverse ([n]) and counts. sorted: runs of the stable sort, else
 * runs in x's order. */
static nb_status unique_rows(const char* op, const nb_tensor* x, int32_t d, bool sorted, nb_tensor** values,
                             nb_tensor** inverse, nb_tensor** counts) {
    const int64_t n = x->shape[d];
    nb_tensor *data = NULL, *reps = NULL, *inv = NULL, *cnt = NULL;
    rows r = {0};
    nb_status st = load_rows(x, d, &data, &r);
    int64_t* idx = malloc(sizeof(int64_t) * (size_t)(2 * n + 1));
    if (st == NB_OK && idx == NULL)
        st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld rows", op, (long long)n);
    int64_t groups = 0;
    if (st == NB_OK) {
        for (int64_t j = 0; j < n; j++) idx[j] = j;
        if (sorted) sort_rows(&r, idx, idx + n, n);
        int64_t* start = idx + n;  /* the sorted position where each run starts */
        for (int64_t j = 0; j < n; j++)
            if (j == 0 || !row_equal(&r, idx[start[groups - 1]], idx[j])) start[groups++] = j;
        st = nb_tensor_new(op, &groups, 1, NB_I64, NB_CPU, 0, &reps);
        if (st == NB_OK) st = nb_tensor_new(op, &n, 1, NB_I64, NB_CPU, 0, &inv);
        if (st == NB_OK) st = nb_tensor_new(op, &groups, 1, NB_I64, NB_CPU, 0, &cnt);
        if (st == NB_OK) {
            int64_t *rp = nb_tensor_data(reps), *ip = nb_tensor_data(inv), *cp = nb_tensor_data(cnt);
            for (int64_t g = 0; g < groups; g++) {
                const int64_t end = g + 1 < groups ? start[g + 1] : n;
                rp[g] = idx[start[g]];
                cp[g] = end - start[g];
                for (int64_t j = start[g]; j < end; j++) ip[idx[j]] = g;
            }
            if (nb_sortd_on_device(x)) st = to_device_of(x, &reps, &inv, &cnt);
            if (st == NB_OK) st = nb_index_select(x, d, reps, values);
        }
    }
    free(idx);
    nb_tensor_release(data);
    nb_tensor_release(reps);
    if (st == NB_OK && inverse != NULL) *inverse = inv;
    else nb_tensor_release(inv);
    if (st == NB_OK && counts != NULL) *counts = cnt;
    else nb_tensor_release(cnt);
    return st;  /* on failure *values, *inverse and *counts are untouched */
}

/* Checks shared by both ops; *d receives the wrapped dim. */
static nb_status check_args(const char* op, const nb_tensor* x, int64_t dim, nb_tensor** values, int32_t* d) {
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, values);
    nb_status st;
    if (x->ndim == 0)
        return nb_error(NB_ERR_INDEX, "%s: Dimension specified as %lld but tensor has no dimensions", op,
                        (long long)dim);
    if ((st = nb_wrap_dim(op, dim, x->ndim, d)) != NB_OK) return st;
    if (x->numel == 0 && x->shape[*d] != 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: There are 0 sized dimensions, and they aren't selected, so "
                        "unique cannot be applied", op);
    return NB_OK;
}

nb_status nbi_unique_dim(const nb_tensor* x, int64_t dim, int32_t sorted, nb_tensor** values, nb_tensor** inverse,
                         nb_tensor** counts) {
    static const char* op = "unique_dim";
    (void)sorted;  /* the rows always come sorted, as PyTorch's do on the CPU */
    int32_t d;
    nb_status st = check_args(op, x, dim, values, &d);
    return st != NB_OK ? st : unique_rows(op, x, d, true, values, inverse, counts);
}

nb_status nbi_unique_consecutive(const nb_tensor* x, int64_t dim, int32_t has_dim, nb_tensor** values,
                                 nb_tensor** inverse, nb_tensor** counts) {
    static const char* op = "unique_consecutive";
    if (has_dim) {
        int32_t d;
        nb_status st = check_args(op, x, dim, values, &d);
        return st != NB_OK ? st : unique_rows(op, x, d, false, values, inverse, counts);
    }
    /* the flattened elements as one-element rows; inverse takes x's shape */
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, values);
    if (nb_sortd_on_device(x)) return nb_sortd_unique(op, x, false, values, inverse, counts);
    nb_status st;
    const int64_t flat_shape[1] = {x->numel};
    nb_tensor *flat = NULL, *v = NULL, *inv = NULL, *shaped = NULL, *cnt = NULL;
    if ((st = nb_tensor_reshape(x, flat_shape, 1, &flat)) != NB_OK) return st;
    st = unique_rows(op, flat, 0, false, &v, &inv, &cnt);
    if (st == NB_OK && inverse != NULL) st = nb_tensor_reshape(inv, x->shape, x->ndim, &shaped);
    nb_tensor_release(flat);
    nb_tensor_release(inv);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(cnt);
        return st;
    }
    *values = v;
    if (inverse != NULL) *inverse = shaped;
    if (counts != NULL) *counts = cnt;
    else nb_tensor_release(cnt);
    return NB_OK;
}
