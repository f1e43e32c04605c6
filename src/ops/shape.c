/* shape.c: ops that rearrange whole tensors: cat, stack, flip, roll, repeat,
 * tril/triu, and one_hot (the ordering ops are in sort.c).
 *
 * They are strided copies between views: a flip is a copy from a view with
 * negative strides, a roll two copies of narrowed views, a repeat one copy into
 * the first block of the output followed by block copies that double the filled
 * region along each dim. Large copies are split across OpenMP threads. On a
 * device the copies go to its copy kernel; repeat, tril/triu and one_hot are
 * composed in shape_device.c. */
#include "shape_common.h"
#include "shape_device.h"
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

/* dst = src (same shape); the parallel path when both are on the host in different storages,
 * else the device's copy kernel (nb_copy_into). */
static nb_status copy_views(const char* op, nb_tensor* dst, const nb_tensor* src) {
    if (dst->storage != src->storage && dst->storage->device_type == NB_CPU && src->storage->device_type == NB_CPU &&
        nb_same_shape(src, dst->shape, dst->ndim)) {
        par_copy(dst, src);
        return NB_OK;
    }
    return nb_copy_into(op, dst, src);
}

/* The output of an op with an optional destination: dst itself, or a new tensor. The result
 * dtype must cast to dst's (cat) or be it (same_dtype: tril/triu); a dst other than `input`
 * (an in-place op, which must fit) is resized to the result's shape, unless it overlaps one of
 * the inputs[n] the op reads (nb_resize_output). */
static nb_status check_dst(const char* op, nb_tensor* dst, const nb_tensor* input, const nb_tensor* const* inputs,
                           int32_t n, const int64_t* shape, int32_t ndim, int32_t dtype, bool same_dtype,
                           const nb_tensor* like) {
    if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    NB_CHECK_WRITABLE(op, dst);
    if (dst == input && !nb_same_shape(dst, shape, ndim))
        return nb_error(NB_ERR_SHAPE, "%s: output with shape %s doesn't match the result shape %s", op,
                        nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
    if (same_dtype && dst->dtype != dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Expected out tensor to have dtype %s, but got %s instead", op,
                        nb_dtype_cpp_name(dtype), nb_dtype_cpp_name(dst->dtype));
    if (!nb_can_cast(dtype, dst->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                        nb_dtype_str(dtype), nb_dtype_str(dst->dtype));
    if (dst->storage->device_type != like->storage->device_type ||
        dst->storage->device_index != like->storage->device_index)
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(like->storage->device_type), (int)like->storage->device_index);
    nb_status st = nb_check_writable(op, dst);
    return st != NB_OK ? st : nb_resize_output(op, dst, inputs, n, shape, ndim);
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
    if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    for (int32_t i = 0; dst != NULL && ref >= 0 && i < n; i++)  /* PyTorch's assert_no_overlap */
        if ((st = nb_check_no_overlap(op, dst, ts[i])) != NB_OK) return st;
    if (dst != NULL && (st = check_dst(op, dst, NULL, ts, n, shape, ndim, dtype, false, ts[0])) != NB_OK) return st;
    bool aliased = false;  /* dst shares a storage with an input (layouts too hard to compare): build the result aside */
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

nb_status nbi_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    return cat_impl("cat", tensors, n, dim, dst, out);
}

nb_status nbi_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
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

nb_status nbi_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    static const char* op = "flip";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    if (ndims < 0 || ndims > NB_MAX_DIMS || (dims == NULL && ndims > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dims must be an array of at most %d dims, got %d", op,
                        NB_MAX_DIMS, (int)ndims);
    nb_status st;
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
    if ((st = nb_tensor_new_like(op, x, x->dtype, x->storage->device_type, x->storage->device_index, &r)) != NB_OK)
        return st;
    nb_tensor flipped;
    nb_local_view(&flipped, x, x->shape, strides, x->ndim, offset);
    if ((st = copy_views(op, r, &flipped)) != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

/* dst = src rolled by shift along d (both shaped alike, distinct storages). */
static nb_status roll_dim(const char* op, nb_tensor* dst, const nb_tensor* src, int32_t d, int64_t shift) {
    const int64_t size = src->shape[d];
    int64_t s = size ? shift % size : 0;
    if (s < 0) s += size;
    if (s == 0) return copy_views(op, dst, src);
    nb_tensor a, b;
    nb_local_narrow(&a, dst, d, s, size - s);
    nb_local_narrow(&b, src, d, 0, size - s);
    nb_status st = copy_views(op, &a, &b);
    nb_local_narrow(&a, dst, d, 0, s);
    nb_local_narrow(&b, src, d, size - s, s);
    return st != NB_OK ? st : copy_views(op, &a, &b);
}

nb_status nbi_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims,
                         int32_t ndims, nb_tensor** out) {
    static const char* op = "roll";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st;
    const int32_t dev = x->storage->device_type, di = x->storage->device_index;
    if (nshifts <= 0 || shifts == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: `shifts` required", op);
    if (ndims < 0 || (dims == NULL && ndims > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dims is NULL with %d dims", op, (int)ndims);
    if (ndims == 0 && nshifts == 1) {  /* roll the flattened tensor, then restore the shape */
        nb_tensor* r;
        if ((st = nb_tensor_new(op, x->shape, x->ndim, x->dtype, dev, di, &r)) != NB_OK) return st;
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
            st = roll_dim(op, &dst, &src, 0, shifts[0]);
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
        if ((st = nb_tensor_new_like(op, x, x->dtype, dev, di, &next)) != NB_OK) break;
        st = x->ndim == 0 ? copy_views(op, next, x) : roll_dim(op, next, cur ? cur : x, wrapped[i], shifts[i]);
        nb_tensor_release(cur);
        cur = next;
        if (st != NB_OK) break;
    }
    if (st != NB_OK) {
        nb_tensor_release(cur);
        return st;
    }
    *out = cur;
    return NB_OK;
}

nb_status nbi_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    static const char* op = "repeat";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st;
    if (n < x->ndim || (repeats == NULL && n > 0))
        return nb_error(NB_ERR_SHAPE, "%s: Number of dimensions of repeat dims can not be smaller than number of "
                        "dimensions of tensor (%d repeats for shape %s)", op, (int)n, nb_shape_str(x->shape, x->ndim));
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
    if ((st = nb_tensor_new(op, shape, n, x->dtype, x->storage->device_type, x->storage->device_index, &r)) != NB_OK)
        return st;
    if (x->storage->device_type != NB_CPU) {
        if ((st = nb_shd_repeat(op, r, x, in_shape, in_strides, repeats, n)) != NB_OK) {
            nb_tensor_release(r);
            return st;
        }
    } else if (numel > 0) {
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
    nb_status st;
    if (x->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: input tensor must have at least 2 dimensions (got shape %s)", op,
                        nb_shape_str(x->shape, x->ndim));
    if (dst != NULL && (st = check_dst(op, dst, x, &x, 1, x->shape, x->ndim, x->dtype, true, x)) != NB_OK) return st;
    nb_tensor* r = dst;
    if (r == NULL &&
        (st = nb_tensor_new_like(op, x, x->dtype, x->storage->device_type, x->storage->device_index, &r)) != NB_OK)
        return st;
    if (r != x && (st = dst ? nb_copy_into(op, r, x) : copy_views(op, r, x)) != NB_OK) {
        if (dst == NULL) nb_tensor_release(r);
        return st;
    }
    if (r->storage->device_type != NB_CPU) {
        if ((st = nb_shd_tri_zero(op, r, k, lower)) != NB_OK) {
            if (dst == NULL) nb_tensor_release(r);
            return st;
        }
        return finish(r, dst, out);
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

nb_status nbi_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    return tri("tril", x, diagonal, true, dst, out);
}

nb_status nbi_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    return tri("triu", x, diagonal, false, dst, out);
}

/* ---- one_hot ---- */

nb_status nbi_one_hot(const nb_tensor* x, int64_t num_classes, nb_tensor** out) {
    static const char* op = "one_hot";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st = NB_OK;
    if (x->dtype != NB_I64)
        return nb_error(NB_ERR_DTYPE, "%s is only applicable to index tensor of type LongTensor (got %s).", op,
                        nb_dtype_str(x->dtype));
    if (x->ndim >= NB_MAX_DIMS) return nb_error(NB_ERR_SHAPE, "%s: a tensor can have at most %d dims", op, NB_MAX_DIMS);
    if (num_classes < -1) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: num_classes should be positive", op);
    if (num_classes == -1 && x->numel == 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Can not infer total number of classes from empty tensor.", op);
    if (x->storage->device_type != NB_CPU) return nb_shd_one_hot(op, x, num_classes, out);
    nb_tensor* c;
    if ((st = nb_tensor_contiguous(x, &c)) != NB_OK) return st;
    const int64_t* v = nb_tensor_data(c);
    const int64_t n = c->numel;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    const int nt = nb_threads_for(n, n);
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(min : lo) reduction(max : hi)
    for (int64_t i = 0; i < n; i++) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (n > 0 && lo < 0) st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Class values must be non-negative.", op);
    if (num_classes == -1 && st == NB_OK) num_classes = hi + 1;
    if (st == NB_OK && n > 0 && hi >= num_classes)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Class values must be smaller than num_classes.", op);
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    shape[x->ndim] = num_classes;
    nb_tensor* r = NULL;
    if (st == NB_OK) st = nb_zeros(shape, x->ndim + 1, NB_I64, NB_CPU, 0, &r);
    if (st == NB_OK) {
        int64_t* o = nb_tensor_data(r);
#pragma omp parallel for num_threads(nt) if (nt > 1)
        for (int64_t i = 0; i < n; i++) o[i * num_classes + v[i]] = 1;
        *out = r;
    }
    nb_tensor_release(c);
    return st;
}
