/* shape.c: ops that rearrange whole tensors (cat, stack, flip, roll, repeat,
 * tril/triu) and the ordering ops (sort, argsort, topk, unique).
 *
 * The rearranging ops are strided copies between views: a flip is a copy from
 * a view with negative strides, a roll two copies of narrowed views, a repeat
 * one copy into the first block of the output followed by block copies that
 * double the filled region along each dim. Large copies are split across
 * OpenMP threads. Sorting is a stable merge sort of (key, index) pairs per
 * slice, slices in parallel; NaN orders above every number, as in PyTorch. */
#include "shape_common.h"
#include "../core/elementwise.h"
#include "../cpu/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* dst = src for two CPU views of one shape that do not overlap; the outermost
 * dim of more than one element is split across threads when the copy is large. */
static void par_copy(const nb_tensor* dst, const nb_tensor* src) {
    if (dst->numel == 0) return;
    int32_t d = 0;
    while (d < dst->ndim - 1 && dst->shape[d] == 1) d++;
    const int64_t size = dst->ndim ? dst->shape[d] : 1;
    const int parts = nb_threads_for(dst->numel, size);
    const int64_t ds = nb_dtype_sizes[dst->dtype], ss = nb_dtype_sizes[src->dtype];
    char* dbase = nb_tensor_data(dst);
    const char* sbase = nb_tensor_data(src);
#pragma omp parallel for num_threads(parts) if (parts > 1)
    for (int p = 0; p < parts; p++) {
        int64_t begin = size * p / parts, end = size * (p + 1) / parts;
        int64_t shape[NB_MAX_DIMS];
        memcpy(shape, dst->shape, sizeof(int64_t) * (size_t)dst->ndim);
        if (dst->ndim) shape[d] = end - begin;
        int64_t doff = dst->ndim ? begin * dst->strides[d] : 0, soff = dst->ndim ? begin * src->strides[d] : 0;
        nb_cpu_copy(dbase + doff * ds, dst->strides, dst->dtype, sbase + soff * ss, src->strides, src->dtype, shape,
                    dst->ndim);
    }
}

/* dst = src (same shape); the parallel path when both are on the host in different storages. */
static nb_status copy_views(const char* op, nb_tensor* dst, const nb_tensor* src) {
    if (dst->storage != src->storage && dst->storage->device_type == NB_CPU && src->storage->device_type == NB_CPU &&
        nb_same_shape(src, dst->shape, dst->ndim)) {
        par_copy(dst, src);
        return NB_OK;
    }
    return nb_copy_into(op, dst, src);
}

/* The output of an op with an optional destination: dst itself, or a new tensor. */
static nb_status check_dst(const char* op, nb_tensor* dst, const int64_t* shape, int32_t ndim, int32_t dtype,
                           const nb_tensor* like) {
    if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    if (!nb_same_shape(dst, shape, ndim))
        return nb_error(NB_ERR_SHAPE, "%s: output with shape %s doesn't match the result shape %s", op,
                        nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
    if (!nb_can_cast(dtype, dst->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                        nb_dtype_str(dtype), nb_dtype_str(dst->dtype));
    if (dst->storage->device_type != like->storage->device_type ||
        dst->storage->device_index != like->storage->device_index)
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(like->storage->device_type), (int)like->storage->device_index);
    return nb_check_writable(op, dst);
}

/* Hands the result out: a new tensor, or a new reference to dst (out may then be NULL). */
static nb_status finish(nb_tensor* result, nb_tensor* dst, nb_tensor** out) {
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        if (out == NULL) return NB_OK;
        nb_tensor_retain(dst);
        *out = dst;
        return NB_OK;
    }
    *out = result;
    return NB_OK;
}

/* ---- cat / stack ---- */

static bool cat_skipped(const nb_tensor* t) { return t->ndim == 1 && t->shape[0] == 0; }

static nb_status cat_impl(const char* op, const nb_tensor* const* ts, int32_t n, int64_t dim, nb_tensor* dst,
                          nb_tensor** out) {
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (n < 0 || (ts == NULL && n > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensors is NULL or its count (%d) is negative", op, (int)n);
    if (n == 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected a non-empty list of Tensors", op);
    for (int32_t i = 0; i < n; i++)
        if (!nb_tensor_ok(ts[i])) {
            char name[32];
            snprintf(name, sizeof name, "tensors[%d]", (int)i);
            return nb_bad_handle(op, name, ts[i]);
        }
    int32_t ref = -1, dtype = ts[0]->dtype;
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = ts[i];
        if (t->ndim == 0)
            return nb_error(NB_ERR_SHAPE, "%s: zero-dimensional tensor (at position %d) cannot be concatenated", op,
                            (int)i);
        if (t->storage->device_type != ts[0]->storage->device_type ||
            t->storage->device_index != ts[0]->storage->device_index)
            return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found %s:%d and %s:%d",
                            op, nb_device_type_name(ts[0]->storage->device_type), (int)ts[0]->storage->device_index,
                            nb_device_type_name(t->storage->device_type), (int)t->storage->device_index);
        dtype = nb_promote_types(dtype, t->dtype);
        if (ref < 0 && !cat_skipped(t)) ref = i;
    }
    int64_t shape[NB_MAX_DIMS] = {0};
    int32_t ndim = 1, d = 0;
    if (ref >= 0) {  /* else every input is a legacy empty 1-D tensor: the result is one too */
        const nb_tensor* r = ts[ref];
        nb_status st = nb_wrap_dim(op, dim, r->ndim, &d);
        if (st != NB_OK) return st;
        ndim = r->ndim;
        memcpy(shape, r->shape, sizeof(int64_t) * (size_t)ndim);
        int64_t total = 0;
        for (int32_t i = 0; i < n; i++) {
            const nb_tensor* t = ts[i];
            if (cat_skipped(t)) continue;
            if (t->ndim != ndim)
                return nb_error(NB_ERR_SHAPE, "%s: Tensors must have same number of dimensions: got %d and %d", op,
                                (int)ndim, (int)t->ndim);
            for (int32_t k = 0; k < ndim; k++)
                if (k != d && t->shape[k] != r->shape[k])
                    return nb_error(NB_ERR_SHAPE,
                                    "%s: Sizes of tensors must match except in dimension %d. Expected size %lld but "
                                    "got size %lld for tensor number %d in the list (shapes %s and %s).",
                                    op, (int)d, (long long)r->shape[k], (long long)t->shape[k], (int)i,
                                    nb_shape_str(r->shape, ndim), nb_shape_str(t->shape, ndim));
            if (__builtin_add_overflow(total, t->shape[d], &total))
                return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the concatenated size overflows int64", op);
        }
        shape[d] = total;
        int64_t numel;
        st = nb_check_shape(op, shape, ndim, &numel);
        if (st != NB_OK) return st;
    }
    nb_status st;
    if (dst != NULL && (st = check_dst(op, dst, shape, ndim, dtype, ts[0])) != NB_OK) return st;
    bool aliased = false;  /* dst shares memory with an input: build the result aside first */
    for (int32_t i = 0; dst != NULL && i < n; i++) aliased |= ts[i]->storage == dst->storage;
    nb_tensor* target = dst;
    if (dst == NULL || aliased) {
        st = nb_tensor_new(op, shape, ndim, dst ? dst->dtype : dtype, ts[0]->storage->device_type,
                           ts[0]->storage->device_index, &target);
        if (st != NB_OK) return st;
    }
    int64_t offset = 0;
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        if (cat_skipped(ts[i])) continue;
        nb_tensor piece;
        nb_local_narrow(&piece, target, d, offset, ts[i]->shape[d]);
        offset += ts[i]->shape[d];
        st = copy_views(op, &piece, ts[i]);
    }
    if (st == NB_OK && aliased) st = nb_copy_into(op, dst, target);
    if (st != NB_OK || aliased) {
        if (target != dst) nb_tensor_release(target);
        if (st != NB_OK) return st;
    }
    return finish(target, dst, out);
}

NB_API nb_status nb_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    return cat_impl("cat", tensors, n, dim, dst, out);
}

NB_API nb_status nb_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "stack";
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (n < 0 || (tensors == NULL && n > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensors is NULL or its count (%d) is negative", op, (int)n);
    if (n == 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: stack expects a non-empty TensorList", op);
    for (int32_t i = 0; i < n; i++)
        if (!nb_tensor_ok(tensors[i])) {
            char name[32];
            snprintf(name, sizeof name, "tensors[%d]", (int)i);
            return nb_bad_handle(op, name, tensors[i]);
        }
    const nb_tensor* first = tensors[0];
    for (int32_t i = 1; i < n; i++)
        if (!nb_same_shape(tensors[i], first->shape, first->ndim))
            return nb_error(NB_ERR_SHAPE, "%s: stack expects each tensor to be equal size, but got %s at entry 0 and %s "
                            "at entry %d", op, nb_shape_str(first->shape, first->ndim),
                            nb_shape_str(tensors[i]->shape, tensors[i]->ndim), (int)i);
    if (first->ndim >= NB_MAX_DIMS)
        return nb_error(NB_ERR_SHAPE, "%s: a tensor can have at most %d dims", op, NB_MAX_DIMS);
    int32_t d;
    nb_status st = nb_wrap_dim(op, dim, first->ndim + 1, &d);
    if (st != NB_OK) return st;
    nb_tensor** views = malloc(sizeof(nb_tensor*) * (size_t)n);
    if (views == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    int32_t made = 0;
    for (; made < n && st == NB_OK; made++) st = nb_tensor_unsqueeze(tensors[made], d, &views[made]);
    if (st != NB_OK) made--;  /* the failed call produced nothing */
    if (st == NB_OK) st = cat_impl(op, (const nb_tensor* const*)views, n, d, dst, out);
    for (int32_t i = 0; i < made; i++) nb_tensor_release(views[i]);
    free(views);
    return st;
}

/* ---- flip / roll / repeat ---- */

NB_API nb_status nb_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    static const char* op = "flip";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    if (ndims < 0 || ndims > NB_MAX_DIMS || (dims == NULL && ndims > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dims must be an array of at most %d dims, got %d", op,
                        NB_MAX_DIMS, (int)ndims);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    bool seen[NB_MAX_DIMS] = {false};
    int64_t strides[NB_MAX_DIMS], offset = x->offset;
    memcpy(strides, x->strides, sizeof(int64_t) * (size_t)x->ndim);
    for (int32_t i = 0; i < ndims; i++) {
        int32_t d;
        if ((st = nb_wrap_dim(op, dims[i], x->ndim, &d)) != NB_OK) return st;
        if (seen[d]) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims", op, (int)d);
        seen[d] = true;
        if (x->ndim == 0 || x->shape[d] == 0) continue;
        offset += (x->shape[d] - 1) * x->strides[d];
        strides[d] = -x->strides[d];
    }
    nb_tensor* r;
    if ((st = nb_tensor_new_like(op, x, x->dtype, NB_CPU, 0, &r)) != NB_OK) return st;
    nb_tensor flipped;
    nb_local_view(&flipped, x, x->shape, strides, x->ndim, offset);
    par_copy(r, &flipped);
    *out = r;
    return NB_OK;
}

/* dst = src rolled by shift along d (both shaped alike, distinct storages). */
static void roll_dim(nb_tensor* dst, const nb_tensor* src, int32_t d, int64_t shift) {
    const int64_t size = src->shape[d];
    int64_t s = size ? shift % size : 0;
    if (s < 0) s += size;
    if (s == 0) {
        par_copy(dst, src);
        return;
    }
    nb_tensor a, b;
    nb_local_narrow(&a, dst, d, s, size - s);
    nb_local_narrow(&b, src, d, 0, size - s);
    par_copy(&a, &b);
    nb_local_narrow(&a, dst, d, 0, s);
    nb_local_narrow(&b, src, d, size - s, s);
    par_copy(&a, &b);
}

NB_API nb_status nb_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims,
                         int32_t ndims, nb_tensor** out) {
    static const char* op = "roll";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    if (nshifts <= 0 || shifts == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: `shifts` required", op);
    if (ndims < 0 || (dims == NULL && ndims > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dims is NULL with %d dims", op, (int)ndims);
    if (ndims == 0 && nshifts == 1) {  /* roll the flattened tensor, then restore the shape */
        nb_tensor* r;
        if ((st = nb_tensor_new(op, x->shape, x->ndim, x->dtype, NB_CPU, 0, &r)) != NB_OK) return st;
        int64_t one = x->numel, unit = 1;
        nb_tensor src, dst;
        nb_tensor* flat = NULL;
        if (x->contiguous) {
            nb_local_view(&src, x, &one, &unit, 1, x->offset);
        } else if ((st = nb_tensor_contiguous(x, &flat)) == NB_OK) {
            nb_local_view(&src, flat, &one, &unit, 1, flat->offset);
        }
        if (st == NB_OK) {
            nb_local_view(&dst, r, &one, &unit, 1, 0);
            roll_dim(&dst, &src, 0, shifts[0]);
        }
        nb_tensor_release(flat);
        if (st != NB_OK) {
            nb_tensor_release(r);
            return st;
        }
        *out = r;
        return NB_OK;
    }
    if (nshifts != ndims)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: shifts and dimensions must align. shifts: %d, dims:%d", op,
                        (int)nshifts, (int)ndims);
    int32_t wrapped[NB_MAX_DIMS * 4];
    if (ndims > NB_MAX_DIMS * 4) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: too many dims (%d)", op, (int)ndims);
    for (int32_t i = 0; i < ndims; i++)
        if ((st = nb_wrap_dim(op, dims[i], x->ndim, &wrapped[i])) != NB_OK) return st;
    nb_tensor *cur = NULL, *next = NULL;
    for (int32_t i = 0; i < ndims; i++) {  /* one pass per dim; only the first reads x */
        if ((st = nb_tensor_new_like(op, x, x->dtype, NB_CPU, 0, &next)) != NB_OK) break;
        if (x->ndim == 0) par_copy(next, x);
        else roll_dim(next, cur ? cur : x, wrapped[i], shifts[i]);
        nb_tensor_release(cur);
        cur = next;
    }
    if (st != NB_OK) {
        nb_tensor_release(cur);
        return st;
    }
    *out = cur;
    return NB_OK;
}

NB_API nb_status nb_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    static const char* op = "repeat";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    if (n < x->ndim || (repeats == NULL && n > 0))
        return nb_error(NB_ERR_SHAPE, "%s: Number of dimensions of repeat dims can not be smaller than number of "
                        "dimensions of tensor", op);
    if (n > NB_MAX_DIMS)
        return nb_error(NB_ERR_SHAPE, "%s: a tensor can have at most %d dims, got %d repeats", op, NB_MAX_DIMS, (int)n);
    const int32_t lead = n - x->ndim;
    int64_t in_shape[NB_MAX_DIMS], in_strides[NB_MAX_DIMS], shape[NB_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        in_shape[i] = i < lead ? 1 : x->shape[i - lead];
        in_strides[i] = i < lead ? 0 : x->strides[i - lead];
        if (__builtin_mul_overflow(in_shape[i], repeats[i], &shape[i]))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the repeated size overflows int64", op);
    }
    for (int32_t i = 0; i < n; i++)
        if (shape[i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Trying to create tensor with negative dimension %lld: %s", op,
                            (long long)shape[i], nb_shape_str(shape, n));
    int64_t numel;
    if ((st = nb_check_shape(op, shape, n, &numel)) != NB_OK) return st;
    nb_tensor* r;
    if ((st = nb_tensor_new(op, shape, n, x->dtype, NB_CPU, 0, &r)) != NB_OK) return st;
    if (numel > 0) {
        /* the first block, then double the filled region along each dim, innermost first */
        nb_tensor block, src;
        nb_local_view(&src, x, in_shape, in_strides, n, x->offset);
        nb_local_view(&block, r, in_shape, r->strides, n, 0);
        par_copy(&block, &src);
        int64_t region[NB_MAX_DIMS];
        memcpy(region, in_shape, sizeof region);
        for (int32_t d = n - 1; d >= 0; d--) {
            for (int64_t filled = 1; filled < repeats[d];) {
                int64_t k = filled < repeats[d] - filled ? filled : repeats[d] - filled;
                region[d] = k * in_shape[d];
                nb_local_view(&block, r, region, r->strides, n, filled * in_shape[d] * r->strides[d]);
                nb_local_view(&src, r, region, r->strides, n, 0);
                par_copy(&block, &src);
                filled += k;
            }
            region[d] = shape[d];
        }
    }
    *out = r;
    return NB_OK;
}

/* ---- tril / triu ---- */

static nb_status tri(const char* op, const nb_tensor* x, int64_t k, bool lower, nb_tensor* dst, nb_tensor** out) {
    NB_CHECK_TENSOR(op, x);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    if (x->ndim < 2) return nb_error(NB_ERR_SHAPE, "%s: input tensor must have at least 2 dimensions", op);
    if (dst != NULL && (st = check_dst(op, dst, x->shape, x->ndim, x->dtype, x)) != NB_OK) return st;
    nb_tensor* r = dst;
    if (r == NULL && (st = nb_tensor_new_like(op, x, x->dtype, NB_CPU, 0, &r)) != NB_OK) return st;
    if (r != x && (st = dst ? nb_copy_into(op, r, x) : copy_views(op, r, x)) != NB_OK) {
        if (dst == NULL) nb_tensor_release(r);
        return st;
    }
    const int32_t nd = r->ndim;
    const int64_t rows = r->shape[nd - 2], cols = r->shape[nd - 1];
    const int64_t rs = r->strides[nd - 2], cs = r->strides[nd - 1], es = nb_dtype_sizes[r->dtype];
    const int64_t total = cols ? r->numel / cols : 0;
    char* base = nb_tensor_data(r);
    const int nt = nb_threads_for(r->numel, total);
#pragma omp parallel for num_threads(nt) if (nt > 1)
    for (int64_t t = 0; t < total; t++) {  /* one matrix row per iteration */
        int64_t i = t % rows, b = t / rows, off = i * rs;
        for (int32_t d = nd - 3; d >= 0; d--) {
            off += (b % r->shape[d]) * r->strides[d];
            b /= r->shape[d];
        }
        int64_t lo = lower ? i + k + 1 : 0, hi = lower ? cols : i + k;
        if (lo < 0) lo = 0;
        if (hi > cols) hi = cols;
        if (lo >= hi) continue;
        char* p = base + (off + lo * cs) * es;
        if (cs == 1) {
            memset(p, 0, (size_t)((hi - lo) * es));
        } else {
            for (int64_t j = lo; j < hi; j++, p += cs * es) memset(p, 0, (size_t)es);
        }
    }
    return finish(r, dst, out);
}

NB_API nb_status nb_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    return tri("tril", x, diagonal, true, dst, out);
}

NB_API nb_status nb_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    return tri("triu", x, diagonal, false, dst, out);
}

/* ---- sorting ---- */

/* Keys: float for f32/f16/bf16, double for f64, int64 for integers and bool. NaN
 * (x != x) orders after every number ascending and before them descending. */
#define ASC_BEFORE(a, b) ((a) < (b) || ((a) == (a) && (b) != (b)))
#define DESC_BEFORE(a, b) ((a) > (b) || ((a) != (a) && (b) == (b)))

#define SORT_KIND(K, TAG)                                                                                 \
    typedef struct { K key; int64_t idx; } pair_##TAG;                                                    \
    static void merge_sort_##TAG(pair_##TAG* a, pair_##TAG* tmp, int64_t n, bool desc) {                  \
        const int64_t RUN = 24;                                                                            \
        for (int64_t lo = 0; lo < n; lo += RUN) { /* stable insertion sort of short runs */              \
            int64_t hi = lo + RUN < n ? lo + RUN : n;                                                      \
            for (int64_t i = lo + 1; i < hi; i++) {                                                        \
                pair_##TAG v = a[i];                                                                       \
                int64_t j = i;                                                                             \
                if (desc) while (j > lo && DESC_BEFORE(v.key, a[j - 1].key)) { a[j] = a[j - 1]; j--; }     \
                else while (j > lo && ASC_BEFORE(v.key, a[j - 1].key)) { a[j] = a[j - 1]; j--; }           \
                a[j] = v;                                                                                  \
            }                                                                                              \
        }                                                                                                  \
        pair_##TAG *src = a, *dst = tmp;                                                                   \
        for (int64_t w = RUN; w < n; w *= 2) {                                                             \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                                    \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;               \
                int64_t i = lo, j = mid, o = lo;                                                           \
                while (i < mid && j < hi) {                                                                \
                    bool right = desc ? DESC_BEFORE(src[j].key, src[i].key) : ASC_BEFORE(src[j].key, src[i].key); \
                    dst[o++] = right ? src[j++] : src[i++];                                                \
                }                                                                                          \
                while (i < mid) dst[o++] = src[i++];                                                       \
                while (j < hi) dst[o++] = src[j++];                                                        \
            }                                                                                              \
            pair_##TAG* t = src;                                                                           \
            src = dst, dst = t;                                                                            \
        }                                                                                                  \
        if (src != a) memcpy(a, src, sizeof(pair_##TAG) * (size_t)n);                                      \
    }

SORT_KIND(float, f)
SORT_KIND(double, d)
SORT_KIND(int64_t, i)

enum { KEY_F, KEY_D, KEY_I };
static int key_kind(int32_t dtype) {
    return dtype == NB_F64 ? KEY_D : nb_dtype_is_floating(dtype) ? KEY_F : KEY_I;
}
static size_t pair_size(int kind) {
    return kind == KEY_F ? sizeof(pair_f) : kind == KEY_D ? sizeof(pair_d) : sizeof(pair_i);
}

/* Loads n strided elements (byte stride s) of dtype as sort pairs. */
static void load_pairs(void* pairs, const char* p, int64_t s, int64_t n, int32_t dtype) {
    switch (dtype) {
#define LOAD(CODE, T, PT, EXPR) \
    case CODE: for (int64_t i = 0; i < n; i++) { T v = *(const T*)(p + i * s); ((PT*)pairs)[i].key = EXPR; ((PT*)pairs)[i].idx = i; } break;
        LOAD(NB_F32, float, pair_f, v)
        LOAD(NB_F16, uint16_t, pair_f, nb_half_to_float(v))
        LOAD(NB_BF16, uint16_t, pair_f, nb_bf16_to_float(v))
        LOAD(NB_F64, double, pair_d, v)
        LOAD(NB_I8, int8_t, pair_i, v)
        LOAD(NB_I16, int16_t, pair_i, v)
        LOAD(NB_I32, int32_t, pair_i, v)
        LOAD(NB_I64, int64_t, pair_i, v)
        LOAD(NB_U8, uint8_t, pair_i, v)
        LOAD(NB_BOOL, uint8_t, pair_i, v)
#undef LOAD
        default: break;
    }
}

static void sort_pairs(void* pairs, void* tmp, int64_t n, int kind, bool desc) {
    if (kind == KEY_F) merge_sort_f(pairs, tmp, n, desc);
    else if (kind == KEY_D) merge_sort_d(pairs, tmp, n, desc);
    else merge_sort_i(pairs, tmp, n, desc);
}

static int64_t pair_idx(const void* pairs, int kind, int64_t j) {
    return kind == KEY_F ? ((const pair_f*)pairs)[j].idx : kind == KEY_D ? ((const pair_d*)pairs)[j].idx
                                                                         : ((const pair_i*)pairs)[j].idx;
}

/* Sorts every slice of x along d and writes the first k of each into values
 * (x's dtype) and indices (int64), both contiguous with size k along d; either may be NULL. */
static nb_status sort_slices(const char* op, const nb_tensor* x, int32_t d, bool desc, int64_t k, nb_tensor* values,
                             nb_tensor* indices) {
    const int32_t nd = x->ndim;
    const int64_t n = nd ? x->shape[d] : 1, xs = nd ? x->strides[d] : 0;
    const nb_tensor* o = values ? values : indices;
    if (o->numel == 0) return NB_OK;
    const int64_t slices = o->numel / k, es = nb_dtype_sizes[x->dtype];
    const int kind = key_kind(x->dtype);
    const size_t psize = pair_size(kind);
    const int nt = nb_threads_for(x->numel, slices);
    _Atomic int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        void* pairs = malloc(psize * (size_t)n * 2);
        if (pairs == NULL) failed = 1;
#pragma omp for schedule(static)
        for (int64_t s = 0; s < slices; s++) {
            if (pairs == NULL) continue;
            int64_t rem = s, xoff = x->offset, voff = values ? values->offset : 0, ioff = indices ? indices->offset : 0;
            for (int32_t i = nd - 1; i >= 0; i--) {  /* unravel s over every dim but d */
                if (i == d) continue;
                int64_t c = rem % x->shape[i];
                rem /= x->shape[i];
                xoff += c * x->strides[i];
                if (values) voff += c * values->strides[i];
                if (indices) ioff += c * indices->strides[i];
            }
            const char* xp = (const char*)x->storage->data + xoff * es;
            load_pairs(pairs, xp, xs * es, n, x->dtype);
            sort_pairs(pairs, (char*)pairs + psize * (size_t)n, n, kind, desc);
            const int64_t vs = values && nd ? values->strides[d] : 0, is = indices && nd ? indices->strides[d] : 0;
            for (int64_t j = 0; j < k; j++) {
                int64_t src = pair_idx(pairs, kind, j);
                if (values)
                    memcpy((char*)values->storage->data + (voff + j * vs) * es, xp + src * xs * es, (size_t)es);
                if (indices) ((int64_t*)indices->storage->data)[ioff + j * is] = src;
            }
        }
        free(pairs);
    }
    return failed ? nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for sort buffers of %lld elements", op,
                             (long long)n)
                  : NB_OK;
}

/* values/indices (either may be NULL): the first k of each sorted slice of x along dim. */
static nb_status sort_impl(const char* op, const nb_tensor* x, int64_t dim, bool desc, int64_t k, bool k_given,
                           nb_tensor** values, nb_tensor** indices) {
    NB_CHECK_TENSOR(op, x);
    if (values == NULL && indices == NULL) NB_CHECK_OUT(op, values);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, x->ndim, &d)) != NB_OK) return st;
    const int64_t n = x->ndim ? x->shape[d] : 1;
    if (!k_given) k = n;
    if (k < 0 || k > n) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: selected index k out of range (k = %lld, size %lld)", op,
                                        (long long)k, (long long)n);
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (x->ndim) shape[d] = k;
    nb_tensor *v = NULL, *i = NULL;
    if (values && (st = nb_tensor_new(op, shape, x->ndim, x->dtype, NB_CPU, 0, &v)) != NB_OK) return st;
    if (indices && (st = nb_tensor_new(op, shape, x->ndim, NB_I64, NB_CPU, 0, &i)) != NB_OK) {
        nb_tensor_release(v);
        return st;
    }
    if (k > 0 && (st = sort_slices(op, x, d, desc, k, v, i)) != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(i);
        return st;
    }
    if (values) *values = v;
    if (indices) *indices = i;
    return NB_OK;
}

NB_API nb_status nb_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values,
                         nb_tensor** indices) {
    (void)stable;  /* the sort is always stable */
    NB_CHECK_OUT("sort", values);
    NB_CHECK_OUT("sort", indices);
    return sort_impl("sort", x, dim, descending != 0, 0, false, values, indices);
}

NB_API nb_status nb_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out) {
    (void)stable;
    NB_CHECK_OUT("argsort", out);
    return sort_impl("argsort", x, dim, descending != 0, 0, false, NULL, out);
}

NB_API nb_status nb_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted,
                         nb_tensor** values, nb_tensor** indices) {
    (void)sorted;  /* results always come sorted */
    NB_CHECK_OUT("topk", values);
    NB_CHECK_OUT("topk", indices);
    return sort_impl("topk", x, dim, largest != 0, k, true, values, indices);
}

/* ---- unique ---- */

static bool pair_key_differs(const void* pairs, int kind, int64_t a, int64_t b) {
    /* NaN != NaN: every NaN is its own value, as in PyTorch */
    if (kind == KEY_F) return ((const pair_f*)pairs)[a].key != ((const pair_f*)pairs)[b].key;
    if (kind == KEY_D) return ((const pair_d*)pairs)[a].key != ((const pair_d*)pairs)[b].key;
    return ((const pair_i*)pairs)[a].key != ((const pair_i*)pairs)[b].key;
}

NB_API nb_status nb_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse,
                           nb_tensor** counts) {
    static const char* op = "unique";
    (void)sorted;  /* the values always come sorted */
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, values);
    nb_status st = nb_require_cpu(op, x);
    if (st != NB_OK) return st;
    nb_tensor* c;
    if ((st = nb_tensor_contiguous(x, &c)) != NB_OK) return st;
    const int64_t n = c->numel, es = nb_dtype_sizes[x->dtype];
    const int kind = key_kind(x->dtype);
    const size_t psize = pair_size(kind);
    void* pairs = malloc(psize * (size_t)(n > 0 ? n : 1) * 2);
    int64_t* first = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));  /* sorted position of each group's start */
    nb_tensor *v = NULL, *inv = NULL, *cnt = NULL;
    if (pairs == NULL || first == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld elements", op, (long long)n);
    int64_t groups = 0;
    if (st == NB_OK && n > 0) {
        const char* data = nb_tensor_data(c);
        load_pairs(pairs, data, es, n, x->dtype);
        sort_pairs(pairs, (char*)pairs + psize * (size_t)n, n, kind, false);
        for (int64_t j = 0; j < n; j++)
            if (j == 0 || pair_key_differs(pairs, kind, j, j - 1)) first[groups++] = j;
    }
    if (st == NB_OK) st = nb_tensor_new(op, &groups, 1, x->dtype, NB_CPU, 0, &v);
    if (st == NB_OK && inverse) st = nb_tensor_new(op, x->shape, x->ndim, NB_I64, NB_CPU, 0, &inv);
    if (st == NB_OK && counts) st = nb_tensor_new(op, &groups, 1, NB_I64, NB_CPU, 0, &cnt);
    if (st == NB_OK) {
        const char* data = n ? nb_tensor_data(c) : NULL;
        for (int64_t g = 0; g < groups; g++) {
            int64_t end = g + 1 < groups ? first[g + 1] : n;
            memcpy((char*)nb_tensor_data(v) + g * es, data + pair_idx(pairs, kind, first[g]) * es, (size_t)es);
            if (cnt) ((int64_t*)nb_tensor_data(cnt))[g] = end - first[g];
            if (inv)
                for (int64_t j = first[g]; j < end; j++) ((int64_t*)nb_tensor_data(inv))[pair_idx(pairs, kind, j)] = g;
        }
    }
    free(pairs);
    free(first);
    nb_tensor_release(c);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(inv);
        nb_tensor_release(cnt);
        return st;
    }
    *values = v;
    if (inverse) *inverse = inv;
    if (counts) *counts = cnt;
    return NB_OK;
}
