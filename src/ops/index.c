/* index.c: ops that read or write through index tensors: gather, scatter,
 * scatter_add, index_select, index_add, masked_fill, masked_select, nonzero,
 * take_along_dim, and advanced indexing (index, index_put).
 *
 * Every read through an index is one kernel ("take": out[i] = src[offset of
 * index values]) and every write one more ("put": assign or accumulate). Both
 * run on a row driver: the src/dst operand carries stride 0 along the indexed
 * dims and each index operand supplies the offset there. Writes check every
 * index before the first write, so a failed in-place op leaves its target
 * untouched; reads check as they go and drop their result on a bad index. Reads
 * run rows in parallel; writes run in blocks along a dim they can never collide
 * on (any dim but the scattered one; for index_put a dim no index touches), each
 * block in row-major order, so duplicate indices resolve as "the last write
 * wins", as in NumPy.
 *
 * On a device the same validation and outputs feed nb_bk_index plans
 * (index_device.c): index tensors live on the input's device (advanced
 * indexing also takes them from the host, as PyTorch does), and an
 * out-of-range index is reported at the next synchronising call, as
 * IndexError in PyTorch's wording, after the kernels skipped it. */
#include "index_kernels.h"
#include "index_device.h"
#include "../core/elementwise.h"
#include "../cpu/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nb_status check_index_dtype(const char* op, const nb_tensor* idx) {
    if (idx->dtype == NB_I64 || idx->dtype == NB_I32) return NB_OK;
    return nb_error(NB_ERR_DTYPE, "%s(): Expected dtype int32 or int64 for index, but got %s", op,
                    nb_dtype_str(idx->dtype));
}

static int32_t nonempty(int32_t ndim) { return ndim > 0 ? ndim : 1; }

/* After a take: the error for an index the kernel flagged, or that an empty result never read. */
static nb_status take_verdict(const char* op, const nb_ix_ctx* c, const nb_tensor* result, const nb_tensor* idx,
                              int64_t size, int32_t dim, bool wrap) {
    if (result->numel != 0 && !atomic_load(&c->bad)) return NB_OK;
    nb_status st = nb_ix_check_values(op, idx, size, dim, wrap);
    if (st == NB_OK && atomic_load(&c->bad) && c->k == 1)
        st = nb_error(NB_ERR_INTERNAL, "%s: an index was flagged out of range but none is", op);
    return st;
}

/* *t replaced by a clone when it shares storage with `target` (read before target is written). */
static nb_status unalias(const char* op, const nb_tensor** t, nb_tensor** owned, const nb_tensor* target) {
    (void)op;
    if (*t == NULL || (*t)->storage != target->storage) return NB_OK;
    nb_status st = nb_tensor_clone(*t, owned);
    if (st == NB_OK) *t = *owned;
    return st;
}

/* The tensor an in-place capable op writes: dst (x itself in place; out= otherwise, of x's
 * dtype and resized to x's shape, as PyTorch does, unless it overlaps one of the inputs[n] the
 * op reads), or a fresh copy of x. */
static nb_status open_target(const char* op, const nb_tensor* x, const nb_tensor* const* inputs, int32_t n,
                             nb_tensor* dst, nb_tensor** target) {
    if (dst == NULL) return nb_tensor_new_like(op, x, x->dtype, x->storage->device_type, x->storage->device_index, target);
    if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    NB_CHECK_WRITABLE(op, dst);
    if (dst != x && dst->dtype != x->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Expected out tensor to have dtype %s, but got %s instead", op,
                        nb_dtype_cpp_name(x->dtype), nb_dtype_cpp_name(dst->dtype));
    nb_status st = nb_ixd_same_device(op, x, dst);
    if (st == NB_OK) st = nb_check_writable(op, dst);
    if (st == NB_OK && dst != x) st = nb_resize_output(op, dst, inputs, n, x->shape, x->ndim);
    if (st == NB_OK) *target = dst;
    return st;
}

static nb_status close_target(const char* op, nb_status st, const nb_tensor* x, nb_tensor* target, nb_tensor* dst,
                              nb_tensor** out) {
    (void)op, (void)x;
    if (st != NB_OK) {
        if (target != dst) nb_tensor_release(target);
        return st;
    }
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        if (out == NULL) return NB_OK;
        nb_tensor_retain(dst);
    }
    *out = target;
    return NB_OK;
}

/* ---- gather / scatter ---- */

/* A new tensor r of `shape` with r[...] = x[... index[...] along dim d ...]: xmap and
 * imap give, per dim of r, the dim of x and of index it walks (-1: none). */
static nb_status take(const char* op, const nb_tensor* x, const nb_tensor* index, int32_t d, const int64_t* shape,
                      int32_t ndim, const int32_t* xmap, const int32_t* imap, nb_tensor** out) {
    const int64_t size = x->ndim ? x->shape[d] : 1;
    nb_tensor* r;
    nb_status st = nb_tensor_new(op, shape, ndim, x->dtype, x->storage->device_type, x->storage->device_index, &r);
    if (st != NB_OK) return st;
    if (nb_ixd_on_device(x)) {
        if ((st = nb_ixd_take(op, r, x, index, d, xmap, imap)) == NB_OK) *out = r;
        else nb_tensor_release(r);
        return st;
    }
    int32_t own[NB_MAX_DIMS] = {0};
    for (int32_t i = 0; i < ndim; i++) own[i] = i;
    nb_ix_iter it;
    nb_ix_iter_init(&it, shape, ndim);
    nb_ix_iter_add(&it, r, own);
    nb_ix_iter_add(&it, x, xmap);
    nb_ix_iter_add(&it, index, imap);
    const int64_t es = nb_dtype_sizes[x->dtype];
    nb_ix_ctx c = {.k = 1, .idx_dtype = {index->dtype}, .size = {size}, .stride = {x->ndim ? x->strides[d] * es : 0}};
    nb_ix_run_rows(&it, -1, NB_IX_ANY, nb_ix_take_fn(es), &c);
    if ((st = take_verdict(op, &c, r, index, size, d, false)) != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

nb_status nbi_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    static const char* op = "gather";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, index);
    NB_CHECK_OUT(op, out);
    nb_status st;
    int32_t d;
    if ((st = nb_ixd_same_device(op, x, index)) || (st = check_index_dtype(op, index)) ||
        (st = nb_wrap_dim(op, dim, x->ndim, &d)))
        return st;
    if (nonempty(x->ndim) != nonempty(index->ndim))
        return nb_error(NB_ERR_SHAPE, "%s: Index tensor must have the same number of dimensions as input tensor "
                        "(got %d and %d)", op, (int)index->ndim, (int)x->ndim);
    for (int32_t i = 0; i < index->ndim && x->ndim; i++)
        if (i != d && index->shape[i] > x->shape[i])
            return nb_error(NB_ERR_SHAPE, "%s: Size does not match at dimension %d expected index %s to be no larger "
                            "than self %s apart from dimension %d", op, (int)i, nb_shape_str(index->shape, index->ndim),
                            nb_shape_str(x->shape, x->ndim), (int)d);
    int32_t own[NB_MAX_DIMS] = {0}, xmap[NB_MAX_DIMS] = {0};
    for (int32_t i = 0; i < index->ndim; i++) own[i] = i, xmap[i] = (i == d || !x->ndim) ? -1 : i;
    return take(op, x, index, d, index->shape, index->ndim, xmap, own, out);
}

/* How scatter_impl combines src into the target: a plain write, or a reduction. */
enum { SCATTER_PUT = -1 }; /* else one of NB_SCATTER_SUM .. NB_SCATTER_AMIN */

static nb_status scatter_run(const nb_tensor* target, const nb_tensor* src, const char* value, const nb_tensor* index,
                             int32_t d, nb_ix_row_fn fn);
static nb_status scatter_mean(const char* op, nb_tensor* target, const nb_tensor* index, int32_t d, bool include_self);

/* The bytes of a reduction's identity in dtype: 0 (sum, mean), 1 (prod), the lowest
 * value (amax: -inf for floats) or the highest (amin). */
static void reduce_identity(int32_t dtype, int32_t mode, char* buf) {
    if (mode == NB_SCATTER_SUM || mode == NB_SCATTER_MEAN || mode == NB_SCATTER_PROD || nb_dtype_is_floating(dtype)) {
        const double v = mode == NB_SCATTER_PROD ? 1 : mode == NB_SCATTER_AMAX ? -INFINITY
                       : mode == NB_SCATTER_AMIN ? INFINITY : 0;
        nb_cpu_convert_fn(NB_F64, dtype)(buf, 1, &v, 1, 1);
        return;
    }
    const bool low = mode == NB_SCATTER_AMAX;
    switch (dtype) {
    case NB_I8: *(int8_t*)buf = low ? INT8_MIN : INT8_MAX; break;
    case NB_I16: *(int16_t*)buf = low ? INT16_MIN : INT16_MAX; break;
    case NB_I32: *(int32_t*)buf = low ? INT32_MIN : INT32_MAX; break;
    case NB_I64: *(int64_t*)buf = low ? INT64_MIN : INT64_MAX; break;
    default: *(uint8_t*)buf = low ? 0 : (dtype == NB_BOOL ? 1 : UINT8_MAX); break;  /* uint8, bool */
    }
}

/* self[index[i][j]][j] = src[i][j] (dim 0), or reduced into it (mode: SCATTER_PUT or
 * NB_SCATTER_*; include_self false: the scattered places start from the reduction's
 * identity); src NULL: the 0-dim value. */
static nb_status scatter_impl(const char* op, const nb_tensor* x, int64_t dim, const nb_tensor* index,
                              const nb_tensor* src, const nb_tensor* value, int32_t mode, bool include_self,
                              nb_tensor* dst, nb_tensor** out) {
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, index);
    if (value == NULL) NB_CHECK_TENSOR(op, src);
    else NB_CHECK_TENSOR(op, value);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && nb_tensor_ok(dst)) NB_CHECK_WRITABLE(op, dst);
    nb_status st;
    int32_t d;
    const nb_tensor* other = src ? src : value;
    if ((st = nb_ixd_same_device(op, x, index)) || (st = nb_ixd_same_device(op, x, src)) ||
        (st = check_index_dtype(op, index)) || (st = nb_wrap_dim(op, dim, x->ndim, &d)))
        return st;
    if (nonempty(x->ndim) != nonempty(index->ndim))
        return nb_error(NB_ERR_SHAPE, "%s: Index tensor must have the same number of dimensions as self tensor "
                        "(got %d and %d)", op, (int)index->ndim, (int)x->ndim);
    if (src != NULL) {
        if (nonempty(src->ndim) != nonempty(index->ndim))
            return nb_error(NB_ERR_SHAPE, "%s: Index tensor must have the same number of dimensions as src tensor "
                            "(got %d and %d)", op, (int)index->ndim, (int)src->ndim);
        if (src->dtype != x->dtype)
            return nb_error(NB_ERR_DTYPE, "%s(): Expected self.dtype to be equal to src.dtype (got %s and %s)", op,
                            nb_dtype_str(x->dtype), nb_dtype_str(src->dtype));
    } else if (value->ndim != 0) {
        return nb_error(NB_ERR_SHAPE, "%s: the value must be a 0-dim tensor or a number, got shape %s", op,
                        nb_shape_str(value->shape, value->ndim));
    }
    for (int32_t i = 0; i < index->ndim; i++) {
        bool self_ok = i == d || !x->ndim || index->shape[i] <= x->shape[i];
        bool src_ok = src == NULL || !src->ndim || index->shape[i] <= src->shape[i];
        if (self_ok && src_ok) continue;
        if (src == NULL)
            return nb_error(NB_ERR_SHAPE, "%s: Expected index %s to be no larger than self %s apart from dimension %d",
                            op, nb_shape_str(index->shape, index->ndim), nb_shape_str(x->shape, x->ndim), (int)d);
        return nb_error(NB_ERR_SHAPE, "%s: Expected index %s to be no larger than self %s apart from dimension %d and "
                        "to be no larger size than src %s", op, nb_shape_str(index->shape, index->ndim),
                        nb_shape_str(x->shape, x->ndim), (int)d, nb_shape_str(src->shape, src->ndim));
    }
    if (mode == NB_SCATTER_MEAN && x->dtype == NB_BOOL)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: \"scatter_gather_tensor_cpu_reduce_mean\" not implemented for "
                        "'Bool'", op);
    const int64_t size = x->ndim ? x->shape[d] : 1;
    const bool device = nb_ixd_on_device(x);
    if (!device && (st = nb_ix_check_values(op, index, size, d, false)) != NB_OK) return st;
    nb_tensor *target = NULL, *src_copy = NULL, *index_copy = NULL;
    const nb_tensor* inputs[3] = {x, index, other};
    if ((st = open_target(op, x, inputs, 3, dst, &target)) != NB_OK) return st;
    if ((st = unalias(op, &src, &src_copy, target)) == NB_OK && (st = unalias(op, &index, &index_copy, target)) == NB_OK &&
        target != x)
        st = nb_copy_into(op, target, x);
    char buf[8];
    if (st == NB_OK && src == NULL)  /* the value, converted, becomes a stride-0 operand */
        st = nb_ixd_value_bytes(op, value, x->dtype, buf);
    if (st == NB_OK && index->numel > 0 && mode != SCATTER_PUT && !include_self) {
        /* the scattered places start from the identity: 0 (sum, mean), 1 (prod), -inf / +inf (amax / amin) */
        char ibuf[8];
        reduce_identity(x->dtype, mode, ibuf);
        st = device ? nb_ixd_scatter(op, target, NULL, ibuf, index, d, SCATTER_PUT, 1)
                    : scatter_run(target, NULL, ibuf, index, d, nb_ix_put_fn(nb_dtype_sizes[x->dtype]));
    }
    if (st == NB_OK && index->numel > 0 && device) {
        st = nb_ixd_scatter(op, target, src, buf, index, d, mode, 1);
    } else if (st == NB_OK && index->numel > 0) {
        const nb_ix_row_fn fn = mode == SCATTER_PUT ? nb_ix_put_fn(nb_dtype_sizes[x->dtype])
                              : mode == NB_SCATTER_PROD ? nb_ix_prod_fns[x->dtype]
                              : mode == NB_SCATTER_AMAX ? nb_ix_amax_fns[x->dtype]
                              : mode == NB_SCATTER_AMIN ? nb_ix_amin_fns[x->dtype] : nb_ix_acc_fns[x->dtype];
        st = scatter_run(target, src, buf, index, d, fn);
    }
    if (st == NB_OK && mode == NB_SCATTER_MEAN) st = scatter_mean(op, target, index, d, include_self);
    nb_tensor_release(src_copy);
    nb_tensor_release(index_copy);
    return close_target(op, st, x, target, dst, out);
}

nb_status nbi_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                            nb_tensor* dst, nb_tensor** out) {
    return scatter_impl("scatter", x, dim, index, src, NULL, SCATTER_PUT, true, dst, out);
}

nb_status nbi_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value,
                                  nb_tensor* dst, nb_tensor** out) {
    return scatter_impl("scatter", x, dim, index, NULL, value, SCATTER_PUT, true, dst, out);
}

nb_status nbi_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                                nb_tensor* dst, nb_tensor** out) {
    return scatter_impl("scatter_add", x, dim, index, src, NULL, NB_SCATTER_SUM, true, dst, out);
}

nb_status nbi_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src,
                             int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "scatter_reduce";
    if (reduce < NB_SCATTER_SUM || reduce > NB_SCATTER_AMIN)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: reduce argument must be either sum, prod, mean, amax or amin, "
                        "got code %d", op, (int)reduce);
    return scatter_impl(op, x, dim, index, src, NULL, reduce, include_self != 0, dst, out);
}

/* Runs fn over index's shape: operand 0 the target (its dim d moved by the index), 1 src or
 * the stride-0 value at `value`, 2 the index. Parallel over every dim but d: no two
 * threads touch one place. */
static nb_status scatter_run(const nb_tensor* target, const nb_tensor* src, const char* value, const nb_tensor* index,
                             int32_t d, nb_ix_row_fn fn) {
    const int64_t es = nb_dtype_sizes[target->dtype];
    nb_ix_iter it;
    nb_ix_iter_init(&it, index->shape, index->ndim);
    int32_t own[NB_MAX_DIMS] = {0}, tmap[NB_MAX_DIMS] = {0}, smap[NB_MAX_DIMS] = {0};
    for (int32_t i = 0; i < index->ndim; i++) {
        own[i] = i;
        tmap[i] = (i == d || !target->ndim) ? -1 : i;
        smap[i] = src && src->ndim ? i : -1;
    }
    nb_ix_iter_add(&it, target, tmap);
    if (src) nb_ix_iter_add(&it, src, smap);
    else it.base[it.nops++] = (char*)value;  /* strides stay 0 */
    nb_ix_iter_add(&it, index, own);
    nb_ix_ctx c = {.k = 1, .idx_dtype = {index->dtype}, .size = {target->ndim ? target->shape[d] : 1},
                   .stride = {target->ndim ? target->strides[d] * es : 0}, .alpha = 1};
    nb_ix_run_rows(&it, -1, index->ndim ? nb_ix_dims_except(index->ndim, d) : 0, fn, &c);
    return NB_OK;
}

/* mean = sum / count: count is how many values reached each place (plus one for the
 * place's own, with include_self); places nothing reached keep their value. Integers
 * divide rounding down, as PyTorch does. */
/* On a device, whose elementwise kernels are floating-point: counts and quotients in
 * float64 (exact for counts and for integers below 2^53), floored for integer targets. */
static nb_status scatter_mean_device(const char* op, nb_tensor* target, const nb_tensor* index, int32_t d,
                                     bool include_self) {
    nb_tensor *count = NULL, *one = NULL, *wide = NULL;
    const bool floating = nb_dtype_is_floating(target->dtype);
    nb_status st = nb_full(target->shape, target->ndim, include_self ? 1 : 0, NB_F64, target->storage->device_type,
                           target->storage->device_index, &count);
    const double unit = 1;
    if (st == NB_OK) st = nb_ixd_scatter(op, count, NULL, (const char*)&unit, index, d, NB_SCATTER_SUM, 1);
    if (st == NB_OK) st = nb_scalar(1, 0, NB_F64, &one);
    if (st == NB_OK) st = nb_maximum(count, one, count, NULL);  /* dividing by 1 leaves the untouched places */
    if (st == NB_OK && floating) st = nb_div(target, count, NB_ROUND_NONE, target, NULL);
    if (st == NB_OK && !floating) st = nb_tensor_to(target, NB_F64, target->storage->device_type,
                                                    target->storage->device_index, 1, &wide);
    if (st == NB_OK && !floating) st = nb_div(wide, count, NB_ROUND_FLOOR, wide, NULL);
    if (st == NB_OK && !floating) st = nb_copy_into(op, target, wide);
    nb_tensor_release(wide);
    nb_tensor_release(one);
    nb_tensor_release(count);
    return st;
}

static nb_status scatter_mean(const char* op, nb_tensor* target, const nb_tensor* index, int32_t d, bool include_self) {
    if (nb_ixd_on_device(target)) return scatter_mean_device(op, target, index, d, include_self);
    nb_tensor *count = NULL, *one = NULL;
    nb_status st = nb_full_int(target->shape, target->ndim, include_self ? 1 : 0, NB_I64, NB_CPU, 0, &count);
    const int64_t unit = 1;
    if (st == NB_OK) st = scatter_run(count, NULL, (const char*)&unit, index, d, nb_ix_acc_fns[NB_I64]);
    if (st == NB_OK) st = nb_scalar(0, 1, NB_I64, &one);
    if (st == NB_OK) st = nb_maximum(count, one, count, NULL);  /* dividing by 1 leaves the untouched places */
    if (st == NB_OK)
        st = nb_div(target, count, nb_dtype_is_floating(target->dtype) ? NB_ROUND_NONE : NB_ROUND_FLOOR, target, NULL);
    nb_tensor_release(one);
    nb_tensor_release(count);
    return st;
}

/* ---- index_select / index_add / take_along_dim ---- */

nb_status nbi_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    static const char* op = "index_select";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, index);
    NB_CHECK_OUT(op, out);
    nb_status st;
    int32_t d;
    if ((st = nb_ixd_same_device(op, x, index)) || (st = check_index_dtype(op, index)) ||
        (st = nb_wrap_dim(op, dim, x->ndim, &d)))
        return st;
    if (index->ndim > 1)
        return nb_error(NB_ERR_INDEX, "%s(): Index is supposed to be a vector, got shape %s", op,
                        nb_shape_str(index->shape, index->ndim));
    if (x->ndim == 0 && index->numel != 1)
        return nb_error(NB_ERR_INDEX, "%s(): Index to scalar can have only 1 value, got %lld value(s)", op,
                        (long long)index->numel);
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (x->ndim) shape[d] = index->numel;
    int32_t xmap[NB_MAX_DIMS] = {0}, imap[NB_MAX_DIMS] = {0};
    for (int32_t i = 0; i < x->ndim; i++) xmap[i] = i == d ? -1 : i, imap[i] = (i == d && index->ndim) ? 0 : -1;
    return take(op, x, index, d, shape, x->ndim, xmap, imap, out);
}

nb_status nbi_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source,
                              double alpha, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "index_add";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, index);
    NB_CHECK_TENSOR(op, source);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && nb_tensor_ok(dst)) NB_CHECK_WRITABLE(op, dst);
    nb_status st;
    int32_t d;
    if ((st = nb_ixd_same_device(op, x, index)) || (st = nb_ixd_same_device(op, x, source)) ||
        (st = check_index_dtype(op, index)) || (st = nb_wrap_dim(op, dim, x->ndim, &d)))
        return st;
    if (index->ndim > 1)
        return nb_error(NB_ERR_INDEX, "%s_(): Index is supposed to be a vector, got shape %s", op,
                        nb_shape_str(index->shape, index->ndim));
    if (source->dtype != x->dtype)
        return nb_error(NB_ERR_DTYPE, "%s_(): self (%s) and source (%s) must have the same scalar type", op,
                        nb_dtype_str(x->dtype), nb_dtype_str(source->dtype));
    bool same = nonempty(source->ndim) == nonempty(x->ndim);
    for (int32_t i = 0; same && i < x->ndim && source->ndim; i++) same = i == d || source->shape[i] == x->shape[i];
    if (!same)
        return nb_error(NB_ERR_SHAPE, "%s_(): source tensor shape must match self tensor shape, excluding the specified "
                        "dimension. Got self.shape = %s source.shape = %s", op, nb_shape_str(x->shape, x->ndim),
                        nb_shape_str(source->shape, source->ndim));
    const int64_t along = source->ndim ? source->shape[d] : 1;
    if (index->numel != along)
        return nb_error(NB_ERR_SHAPE, "%s_(): Number of indices (%lld) should be equal to source.size(dim): (%lld), "
                        "for dim: %d", op, (long long)index->numel, (long long)along, (int)d);
    const int64_t size = x->ndim ? x->shape[d] : 1;
    if (!nb_ixd_on_device(x) && (st = nb_ix_check_values(op, index, size, d, false)) != NB_OK) return st;
    nb_tensor *target = NULL, *src_copy = NULL, *index_copy = NULL;
    const nb_tensor* inputs[3] = {x, index, source};
    if ((st = open_target(op, x, inputs, 3, dst, &target)) != NB_OK) return st;
    if ((st = unalias(op, &source, &src_copy, target)) == NB_OK &&
        (st = unalias(op, &index, &index_copy, target)) == NB_OK && target != x)
        st = nb_copy_into(op, target, x);
    if (st == NB_OK && nb_ixd_on_device(x)) {
        st = nb_ixd_index_add(op, target, source, index, d, alpha);
    } else if (st == NB_OK) {
        nb_ix_iter it;
        nb_ix_iter_init(&it, source->shape, source->ndim);
        int32_t own[NB_MAX_DIMS] = {0}, tmap[NB_MAX_DIMS] = {0}, imap[NB_MAX_DIMS] = {0};
        for (int32_t i = 0; i < source->ndim; i++)
            own[i] = i, tmap[i] = (i == d || !target->ndim) ? -1 : i, imap[i] = (i == d && index->ndim) ? 0 : -1;
        nb_ix_iter_add(&it, target, tmap);
        nb_ix_iter_add(&it, source, own);
        nb_ix_iter_add(&it, index, imap);
        const int64_t es = nb_dtype_sizes[x->dtype];
        nb_ix_ctx c = {.k = 1, .idx_dtype = {index->dtype}, .size = {size},
                    .stride = {target->ndim ? target->strides[d] * es : 0}, .alpha = alpha};
        nb_ix_run_rows(&it, -1, source->ndim ? nb_ix_dims_except(source->ndim, d) : 0, nb_ix_acc_fns[x->dtype], &c);
    }
    nb_tensor_release(src_copy);
    nb_tensor_release(index_copy);
    return close_target(op, st, x, target, dst, out);
}

/* take_along_dim runs the public gather (so autograd records it); its errors name
 * take_along_dim, not the gather underneath. */
static nb_status gather_as(const char* op, const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    nb_status st = nb_gather(x, dim, index, out);
    static const char prefix[] = "gather: ";
    const char* msg = nb_last_error_message();
    if (st != NB_OK && strncmp(msg, prefix, sizeof prefix - 1) == 0) {
        char rest[512];
        snprintf(rest, sizeof rest, "%s", msg + sizeof prefix - 1);
        nb_error(st, "%s: %s", op, rest);
    }
    return st;
}

nb_status nbi_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim,
                                   nb_tensor** out) {
    static const char* op = "take_along_dim";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, indices);
    NB_CHECK_OUT(op, out);
    if (indices->dtype != NB_I64)
        return nb_error(NB_ERR_DTYPE, "torch.take_along_dim(): dtype of indices should be Long but got %s",
                        nb_dtype_str(indices->dtype));
    nb_tensor *a = NULL, *b = NULL;
    nb_status st;
    if (!has_dim) {  /* along the flattened input */
        const int64_t flat = -1;
        if ((st = nb_tensor_reshape(x, &flat, 1, &a)) == NB_OK && (st = nb_tensor_reshape(indices, &flat, 1, &b)) == NB_OK)
            st = gather_as(op, a, 0, b, out);
        nb_tensor_release(a);
        nb_tensor_release(b);
        return st;
    }
    if (x->ndim != indices->ndim)
        return nb_error(NB_ERR_SHAPE, "torch.take_along_dim(): input and indices should have the same number of "
                        "dimensions, but got %d dimensions for input, and %d dimensions for indices",
                        (int)x->ndim, (int)indices->ndim);
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, x->ndim, &d)) != NB_OK) return st;
    int64_t ishape[NB_MAX_DIMS], xshape[NB_MAX_DIMS];
    for (int32_t i = 0; i < x->ndim; i++) {  /* broadcast every dim but d */
        int64_t p = i == d ? indices->shape[i] : x->shape[i], q = indices->shape[i];
        if (p != q && p != 1 && q != 1)
            return nb_error(NB_ERR_SHAPE, "%s: the shape of input %s and of indices %s cannot be broadcast apart from "
                            "dimension %d", op, nb_shape_str(x->shape, x->ndim),
                            nb_shape_str(indices->shape, indices->ndim), (int)d);
        ishape[i] = p == 1 ? q : p;
        xshape[i] = i == d ? x->shape[i] : ishape[i];
    }
    if ((st = nb_tensor_expand(x, xshape, x->ndim, &a)) == NB_OK &&
        (st = nb_tensor_expand(indices, ishape, x->ndim, &b)) == NB_OK)
        st = gather_as(op, a, d, b, out);
    nb_tensor_release(a);
    nb_tensor_release(b);
    return st;
}

/* ---- masks: masked_fill, masked_select, nonzero ---- */

nb_status nbi_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst,
                                nb_tensor** out) {
    static const char* op = "masked_fill";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, mask);
    NB_CHECK_TENSOR(op, value);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && nb_tensor_ok(dst)) NB_CHECK_WRITABLE(op, dst);
    nb_status st;
    if ((st = nb_ixd_same_device(op, x, mask))) return st;
    if (value->ndim == 0 && nb_ixd_on_device(value) && (st = nb_ixd_same_device(op, x, value))) return st;
    if (mask->dtype != NB_BOOL)
        return nb_error(NB_ERR_DTYPE, "%s_ only supports boolean masks, but got mask with dtype %s", op,
                        nb_dtype_str(mask->dtype));
    if (value->ndim != 0)
        return nb_error(NB_ERR_SHAPE, "%s_ only supports a 0-dimensional value tensor, but got tensor with %d "
                        "dimension(s).", op, (int)value->ndim);
    int64_t shape[NB_MAX_DIMS];
    int32_t nd;
    const nb_tensor* pair[2] = {x, mask};
    if ((st = nb_broadcast_shapes(op, pair, 2, shape, &nd)) != NB_OK) return st;
    nb_tensor *target = dst, *mask_copy = NULL;
    if (dst != NULL) {
        if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
        NB_CHECK_WRITABLE(op, dst);
        if (dst == x && !nb_same_shape(dst, shape, nd))
            return nb_error(NB_ERR_SHAPE, "%s: output with shape %s doesn't match the broadcast shape %s", op,
                            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, nd));
        const nb_tensor* inputs[3] = {x, mask, value};
        if ((st = nb_ixd_same_device(op, x, dst)) || (st = nb_check_writable(op, dst)) ||
            (dst != x && (st = nb_resize_output(op, dst, inputs, 3, shape, nd))))
            return st;
    } else if ((st = nb_tensor_new(op, shape, nd, x->dtype, x->storage->device_type, x->storage->device_index,
                                   &target)) != NB_OK) {
        return st;
    }
    char buf[8];
    st = nb_ixd_value_bytes(op, value, target->dtype, buf);
    if (st == NB_OK && (st = unalias(op, &mask, &mask_copy, target)) == NB_OK && target != x)
        st = nb_copy_into(op, target, x);
    if (st == NB_OK && nb_ixd_on_device(x)) {
        st = nb_ixd_masked_fill(op, target, mask, shape, nd, buf);
    } else if (st == NB_OK) {
        nb_ix_iter it;
        nb_ix_iter_init(&it, shape, nd);
        int32_t own[NB_MAX_DIMS] = {0}, mmap[NB_MAX_DIMS] = {0};
        for (int32_t i = 0; i < nd; i++) own[i] = i;
        nb_ix_bcast_map(mask, nd, mmap);
        nb_ix_iter_add(&it, target, own);
        nb_ix_iter_add(&it, mask, mmap);
        nb_ix_ctx c = {.value = buf};
        nb_ix_run_rows(&it, -1, NB_IX_ANY, nb_ix_fill_fn(nb_dtype_sizes[target->dtype]), &c);
    }
    nb_tensor_release(mask_copy);
    return close_target(op, st, x, target, dst, out);
}

nb_status nbi_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out) {
    static const char* op = "masked_select";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, mask);
    NB_CHECK_OUT(op, out);
    nb_status st;
    if ((st = nb_ixd_same_device(op, x, mask))) return st;
    if (mask->dtype != NB_BOOL)
        return nb_error(NB_ERR_DTYPE, "%s: expected BoolTensor for mask, but got %s", op, nb_dtype_str(mask->dtype));
    nb_ix_walk w = {.es = nb_dtype_sizes[x->dtype], .mask = nb_tensor_data(mask), .src = nb_tensor_data(x)};
    const nb_tensor* pair[2] = {x, mask};
    if ((st = nb_broadcast_shapes(op, pair, 2, w.shape, &w.ndim)) != NB_OK) return st;
    if (nb_ixd_on_device(x)) return nb_ixd_masked_select(op, x, mask, w.shape, w.ndim, out);
    int32_t xmap[NB_MAX_DIMS] = {0}, mmap[NB_MAX_DIMS] = {0};
    nb_ix_bcast_map(x, w.ndim, xmap);
    nb_ix_bcast_map(mask, w.ndim, mmap);
    for (int32_t d = 0; d < w.ndim; d++) {
        w.ss[d] = xmap[d] < 0 ? 0 : x->strides[xmap[d]] * w.es;
        w.ms[d] = mmap[d] < 0 ? 0 : mask->strides[mmap[d]];
    }
    return nb_ix_walk_collect(op, &w, x->dtype, false, out);
}

/* Coordinates of the nonzero elements of x (any dtype; NaN counts as nonzero). */
static nb_status nonzero_impl(const char* op, const nb_tensor* x, nb_tensor** out) {
    if (nb_ixd_on_device(x)) return nb_ixd_nonzero(op, x, out);
    nb_status st;
    nb_tensor *mask = NULL, *zero = NULL;
    if (x->dtype != NB_BOOL) {
        if ((st = nb_scalar(0, 0, NB_I64, &zero)) == NB_OK) st = nb_ne(x, zero, NULL, &mask);
        nb_tensor_release(zero);
        if (st != NB_OK) return st;
    }
    const nb_tensor* m = mask ? mask : x;
    nb_ix_walk w = {.ndim = m->ndim, .es = 1, .mask = nb_tensor_data(m), .src = nb_tensor_data(m)};
    for (int32_t d = 0; d < m->ndim; d++) w.shape[d] = m->shape[d], w.ms[d] = w.ss[d] = m->strides[d];
    st = nb_ix_walk_collect(op, &w, NB_I64, true, out);
    nb_tensor_release(mask);
    return st;
}

nb_status nbi_nonzero(const nb_tensor* x, nb_tensor** out) {
    NB_CHECK_TENSOR("nonzero", x);
    NB_CHECK_OUT("nonzero", out);
    return nonzero_impl("nonzero", x, out);
}

/* ---- advanced indexing ---- */

/* How x[indices] maps onto x: index tensors (bool masks expanded into one long
 * index per masked dim) broadcast together to bshape, which replaces the
 * indexed dims in the result where they are adjacent, or leads it when a full
 * slice separates them (NumPy's rule). 0-dim masks index a new size-1 dim. */
typedef struct {
    int32_t k, nins, src_ndim, bnd, ndim, bstart;
    nb_tensor* idx[NB_MAX_DIMS];     /* owned references */
    int32_t pos[NB_MAX_DIMS];        /* the source dim each index tensor indexes */
    int32_t ins[NB_MAX_DIMS];        /* dims inserted for 0-dim masks, in order */
    int64_t src_shape[NB_MAX_DIMS];  /* x with those dims inserted */
    int64_t bshape[NB_MAX_DIMS];
    int64_t shape[NB_MAX_DIMS];      /* the result */
    int32_t map[NB_MAX_DIMS];        /* result dim -> source dim, -1 inside bshape */
} plan_t;

static void plan_free(plan_t* p) {
    for (int32_t j = 0; j < p->k; j++) nb_tensor_release(p->idx[j]);
    p->k = 0;
}

static nb_status too_many(const char* op, const nb_tensor* x) {
    return nb_error(NB_ERR_INDEX, "%s: too many indices for tensor of dimension %d", op, (int)x->ndim);
}

/* Adds the index tensors of one mask (its nonzero coordinates, one column per dim). */
static nb_status plan_mask(const char* op, plan_t* p, const nb_tensor* x, const nb_tensor* mask, int32_t* cur) {
    nb_tensor *m1 = NULL, *nz = NULL;
    nb_status st = NB_OK;
    if (mask->ndim == 0) {  /* x[True]: a new dim of size 1, indexed by a 1-element mask */
        if (p->src_ndim >= NB_MAX_DIMS) return nb_error(NB_ERR_INDEX, "%s: a tensor can have at most %d dims", op, NB_MAX_DIMS);
        memmove(p->src_shape + *cur + 1, p->src_shape + *cur, sizeof(int64_t) * (size_t)(p->src_ndim - *cur));
        p->src_shape[*cur] = 1;
        p->src_ndim++;
        p->ins[p->nins++] = *cur;
        const int64_t one = 1;
        if ((st = nb_tensor_view(mask, &one, 1, &m1)) != NB_OK) return st;
        mask = m1;
    }
    if (*cur + mask->ndim > p->src_ndim) st = too_many(op, x);
    for (int32_t j = 0; st == NB_OK && j < mask->ndim; j++)
        if (mask->shape[j] != p->src_shape[*cur + j])
            st = nb_error(NB_ERR_INDEX, "%s: The shape of the mask %s at index %d does not match the shape of the "
                          "indexed tensor %s at index %d", op, nb_shape_str(mask->shape, mask->ndim), (int)j,
                          nb_shape_str(p->src_shape, p->src_ndim), (int)(*cur + j));
    if (st == NB_OK) st = nonzero_impl(op, mask, &nz);
    for (int32_t j = 0; st == NB_OK && j < mask->ndim; j++) {
        const int64_t stride = mask->ndim;
        st = nb_tensor_make(op, nz->storage, NB_I64, nz->shape, &stride, 1, nz->offset + j, &p->idx[p->k]);
        if (st == NB_OK) p->pos[p->k++] = *cur + j;
    }
    *cur += mask->ndim;
    nb_tensor_release(nz);
    nb_tensor_release(m1);
    return st;
}

static nb_status plan_build(const char* op, const nb_tensor* x, const nb_tensor* const* indices, int32_t n, plan_t* p) {
    memset(p, 0, sizeof *p);
    p->src_ndim = x->ndim;
    memcpy(p->src_shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (n < 0 || (indices == NULL && n > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: indices is NULL or its count (%d) is negative", op, (int)n);
    nb_status st = NB_OK;
    int32_t cur = 0;
    for (int32_t i = 0; i < n && st == NB_OK; i++) {
        const nb_tensor* t = indices[i];
        if (t == NULL) {  /* a full slice */
            st = cur < p->src_ndim ? NB_OK : too_many(op, x);
            cur++;
        } else if (!nb_tensor_ok(t)) {
            char name[32];
            snprintf(name, sizeof name, "indices[%d]", (int)i);
            st = nb_bad_handle(op, name, t);
        } else if (nb_ixd_on_device(t) && (st = nb_ixd_same_device(op, x, t)) != NB_OK) {
        } else if (t->dtype == NB_BOOL || t->dtype == NB_U8) {
            st = plan_mask(op, p, x, t, &cur);
        } else if (t->dtype == NB_I64 || t->dtype == NB_I32) {
            if (cur >= p->src_ndim) {
                st = too_many(op, x);
            } else {
                nb_tensor_retain((nb_tensor*)t);
                p->idx[p->k] = (nb_tensor*)t;
                p->pos[p->k++] = cur++;
            }
        } else {
            st = nb_error(NB_ERR_INDEX, "%s: tensors used as indices must be long, int, byte or bool tensors (got %s)",
                          op, nb_dtype_str(t->dtype));
        }
    }
    for (int32_t j = 0; st == NB_OK && j < p->k; j++) {  /* host indices of a device tensor move there */
        const nb_tensor* use;
        nb_tensor* moved;
        if ((st = nb_ixd_to_device_of(p->idx[j], x, &use, &moved)) == NB_OK && moved != NULL) {
            nb_tensor_release(p->idx[j]);
            p->idx[j] = moved;
        }
    }
    for (int32_t j = 0; st == NB_OK && j < p->k; j++) {  /* broadcast the index tensors together */
        const nb_tensor* t = p->idx[j];
        if (t->ndim > p->bnd) {
            memmove(p->bshape + (t->ndim - p->bnd), p->bshape, sizeof(int64_t) * (size_t)p->bnd);
            for (int32_t d = 0; d < t->ndim - p->bnd; d++) p->bshape[d] = 1;
            p->bnd = t->ndim;
        }
        for (int32_t a = 0; a < t->ndim; a++) {
            int64_t* b = &p->bshape[p->bnd - t->ndim + a];
            if (t->shape[a] == *b || t->shape[a] == 1) continue;
            if (*b == 1) {
                *b = t->shape[a];
                continue;
            }
            char shapes[512];
            size_t len = 0;
            for (int32_t i = 0; i < p->k && len < sizeof shapes - 64; i++)
                len += (size_t)snprintf(shapes + len, sizeof shapes - len, "%s%s", i ? ", " : "",
                                        nb_shape_str(p->idx[i]->shape, p->idx[i]->ndim));
            st = nb_error(NB_ERR_INDEX, "%s: shape mismatch: indexing tensors could not be broadcast together with "
                          "shapes %s", op, shapes);
            break;
        }
    }
    if (st == NB_OK) {
        bool indexed[NB_MAX_DIMS] = {false};
        for (int32_t j = 0; j < p->k; j++) indexed[p->pos[j]] = true;
        const bool adjacent = p->k == 0 || p->pos[p->k - 1] - p->pos[0] == p->k - 1;
        const int32_t first = adjacent && p->k ? p->pos[0] : 0;
        int32_t nd = 0;
        for (int32_t d = 0; d < first; d++) p->map[nd] = d, p->shape[nd++] = p->src_shape[d];
        p->bstart = nd;
        if (nd + p->bnd > NB_MAX_DIMS) st = nb_error(NB_ERR_INDEX, "%s: the result would have more than %d dims", op, NB_MAX_DIMS);
        for (int32_t j = 0; st == NB_OK && j < p->bnd; j++) p->map[nd] = -1, p->shape[nd++] = p->bshape[j];
        for (int32_t d = first; st == NB_OK && d < p->src_ndim; d++) {
            if (indexed[d]) continue;
            if (nd >= NB_MAX_DIMS) {
                st = nb_error(NB_ERR_INDEX, "%s: the result would have more than %d dims", op, NB_MAX_DIMS);
                break;
            }
            p->map[nd] = d, p->shape[nd++] = p->src_shape[d];
        }
        p->ndim = nd;
    }
    if (st != NB_OK) plan_free(p);
    return st;
}

/* t (shaped like x) with the plan's inserted dims, as a stack view. */
static void plan_view(const plan_t* p, const nb_tensor* t, nb_tensor* v) {
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    int32_t nd = t->ndim;
    memcpy(shape, t->shape, sizeof(int64_t) * (size_t)nd);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)nd);
    for (int32_t i = 0; i < p->nins; i++) {
        int32_t at = p->ins[i];
        memmove(shape + at + 1, shape + at, sizeof(int64_t) * (size_t)(nd - at));
        memmove(strides + at + 1, strides + at, sizeof(int64_t) * (size_t)(nd - at));
        shape[at] = 1, strides[at] = 0;
        nd++;
    }
    nb_local_view(v, t, shape, strides, nd, t->offset);
}

/* Operands 2.. (the index tensors) and the kernel context for indexing `src` (a plan view). */
static void plan_operands(const plan_t* p, nb_ix_iter* it, const nb_tensor* src, nb_ix_ctx* c) {
    const int64_t es = nb_dtype_sizes[src->dtype];
    c->k = p->k;
    c->all_i64 = true;
    c->wrap = true;  /* advanced indices count from the end when negative */
    for (int32_t j = 0; j < p->k; j++) {
        const nb_tensor* t = p->idx[j];
        int32_t map[NB_MAX_DIMS] = {0};
        for (int32_t r = 0; r < p->ndim; r++) {
            int32_t b = r - p->bstart, a = b - (p->bnd - t->ndim);
            map[r] = (b < 0 || b >= p->bnd || a < 0 || t->shape[a] == 1) ? -1 : a;
        }
        nb_ix_iter_add(it, t, map);
        c->idx_dtype[j] = t->dtype;
        c->all_i64 &= t->dtype == NB_I64;
        c->size[j] = src->shape[p->pos[j]];
        c->stride[j] = src->strides[p->pos[j]] * es;
    }
}

/* The plan for the device kernels over view v (a plan view): *vstrides, v's stride per result dim. */
static void plan_device(const plan_t* p, const nb_tensor* v, nb_ixd_adv* a, int64_t* vstrides) {
    a->ndim = p->ndim, a->bstart = p->bstart, a->bnd = p->bnd, a->k = p->k;
    memcpy(a->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim);
    for (int32_t r = 0; r < p->ndim; r++) vstrides[r] = p->map[r] >= 0 ? v->strides[p->map[r]] : 0;
    for (int32_t j = 0; j < p->k; j++) {
        const nb_tensor* t = p->idx[j];
        a->idx[j] = t;
        a->pos[j] = p->pos[j];
        a->size[j] = v->shape[p->pos[j]];
        a->stride[j] = v->strides[p->pos[j]];
        for (int32_t r = 0; r < p->ndim; r++) {
            int32_t b = r - p->bstart, i = b - (p->bnd - t->ndim);
            a->idx_map[j][r] = (b < 0 || b >= p->bnd || i < 0 || t->shape[i] == 1) ? -1 : i;
        }
    }
}

nb_status nbi_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out) {
    static const char* op = "index";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, out);
    nb_status st;
    plan_t p;
    if ((st = plan_build(op, x, indices, n, &p)) != NB_OK) return st;
    nb_tensor* r;
    if ((st = nb_tensor_new(op, p.shape, p.ndim, x->dtype, x->storage->device_type, x->storage->device_index,
                            &r)) == NB_OK && nb_ixd_on_device(x)) {
        nb_tensor xv;
        plan_view(&p, x, &xv);
        nb_ixd_adv a;
        int64_t xs[NB_MAX_DIMS];
        plan_device(&p, &xv, &a, xs);
        st = p.k ? nb_ixd_index(op, &a, r, &xv, xs) : nb_copy_into(op, r, &xv);
        if (st == NB_OK) *out = r;
        else nb_tensor_release(r);
    } else if (st == NB_OK) {
        nb_tensor xv;
        plan_view(&p, x, &xv);
        nb_ix_iter it;
        nb_ix_iter_init(&it, p.shape, p.ndim);
        int32_t own[NB_MAX_DIMS] = {0};
        for (int32_t i = 0; i < p.ndim; i++) own[i] = i;
        nb_ix_iter_add(&it, r, own);
        nb_ix_iter_add(&it, &xv, p.map);
        nb_ix_ctx c = {.wrap = true};
        plan_operands(&p, &it, &xv, &c);
        nb_ix_run_rows(&it, -1, NB_IX_ANY, nb_ix_take_fn(nb_dtype_sizes[x->dtype]), &c);
        for (int32_t j = 0; st == NB_OK && j < p.k; j++)
            st = take_verdict(op, &c, r, p.idx[j], p.src_shape[p.pos[j]], p.pos[j], true);
        if (st == NB_OK && atomic_load(&c.bad))
            st = nb_error(NB_ERR_INTERNAL, "%s: an index was flagged out of range but none is", op);
        if (st == NB_OK) *out = r;
        else nb_tensor_release(r);
    }
    plan_free(&p);
    return st;
}

static nb_status index_put_impl(const char* op, const nb_tensor* x, const nb_tensor* const* indices, int32_t n,
                                const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out);

nb_status nbi_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values,
                              int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "index_put";
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_TENSOR(op, values);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && nb_tensor_ok(dst)) NB_CHECK_WRITABLE(op, dst);
    nb_status st;
    const bool device = nb_ixd_on_device(x);
    nb_tensor* moved_values = NULL;  /* a 0-dim host value of a device tensor moves there, as in PyTorch */
    if (device && values->ndim == 0 && !nb_ixd_on_device(values) &&
        (st = nb_ixd_to_device_of(values, x, &values, &moved_values)) != NB_OK)
        return st;
    if ((st = nb_ixd_same_device(op, x, values)) != NB_OK) {
        nb_tensor_release(moved_values);
        return st;
    }
    st = index_put_impl(op, x, indices, n, values, accumulate, dst, out);
    nb_tensor_release(moved_values);
    return st;
}

static nb_status index_put_impl(const char* op, const nb_tensor* x, const nb_tensor* const* indices, int32_t n,
                                const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    nb_status st;
    const bool device = nb_ixd_on_device(x);
    if (values->dtype != x->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Index put requires the source and destination dtypes match, got %s for the "
                        "destination and %s for the source.", op, nb_dtype_str(x->dtype), nb_dtype_str(values->dtype));
    plan_t p;
    if ((st = plan_build(op, x, indices, n, &p)) != NB_OK) return st;
    for (int32_t j = 0; st == NB_OK && !device && j < p.k; j++)  /* every index before the first write */
        st = nb_ix_check_values(op, p.idx[j], p.src_shape[p.pos[j]], p.pos[j], true);
    bool fits = values->ndim <= p.ndim;
    for (int32_t i = 0; fits && i < values->ndim; i++) {
        int64_t v = values->shape[values->ndim - 1 - i], want = p.shape[p.ndim - 1 - i];
        fits = v == want || v == 1;
    }
    nb_tensor *target = NULL, *values_copy = NULL;
    if (st == NB_OK && !fits)
        st = nb_error(NB_ERR_SHAPE, "%s: shape mismatch: value tensor of shape %s cannot be broadcast to indexing "
                      "result of shape %s", op, nb_shape_str(values->shape, values->ndim), nb_shape_str(p.shape, p.ndim));
    const nb_tensor* inputs[2 + NB_MAX_DIMS] = {x, values};  /* and the index tensors, read after the resize */
    for (int32_t j = 0; j < p.k; j++) inputs[2 + j] = p.idx[j];
    if (st == NB_OK) st = open_target(op, x, inputs, 2 + p.k, dst, &target);
    if (st != NB_OK) {
        plan_free(&p);
        return st;
    }
    st = unalias(op, &values, &values_copy, target);
    for (int32_t j = 0; st == NB_OK && j < p.k; j++) {
        const nb_tensor* t = p.idx[j];
        nb_tensor* copy = NULL;
        if ((st = unalias(op, &t, &copy, target)) == NB_OK && copy != NULL) {
            nb_tensor_release(p.idx[j]);
            p.idx[j] = copy;
        }
    }
    if (st == NB_OK && target != x) st = nb_copy_into(op, target, x);
    if (st == NB_OK && device && p.k == 0) {
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: no index tensors given", op);
    } else if (st == NB_OK && device) {
        nb_tensor tv;
        plan_view(&p, target, &tv);
        nb_ixd_adv a;
        int64_t ts[NB_MAX_DIMS], vs[NB_MAX_DIMS];
        plan_device(&p, &tv, &a, ts);
        int32_t vmap[NB_MAX_DIMS] = {0};
        nb_ix_bcast_map(values, p.ndim, vmap);
        for (int32_t r = 0; r < p.ndim; r++) vs[r] = vmap[r] >= 0 ? values->strides[vmap[r]] : 0;
        st = nb_ixd_index_put(op, &a, target, ts, values, vs, accumulate != 0);
    } else if (st == NB_OK) {
        nb_tensor tv;
        plan_view(&p, target, &tv);
        nb_ix_iter it;
        nb_ix_iter_init(&it, p.shape, p.ndim);
        int32_t vmap[NB_MAX_DIMS] = {0};
        nb_ix_bcast_map(values, p.ndim, vmap);
        nb_ix_iter_add(&it, &tv, p.map);
        nb_ix_iter_add(&it, values, vmap);
        nb_ix_ctx c = {.alpha = 1};
        plan_operands(&p, &it, &tv, &c);
        uint32_t split = 0;  /* blocks along a dim of x that no index touches never write the same element */
        for (int32_t r = 0; r < p.ndim; r++) split |= p.map[r] >= 0 ? 1u << r : 0u;
        nb_ix_run_rows(&it, -1, split, accumulate ? nb_ix_acc_fns[x->dtype] : nb_ix_put_fn(nb_dtype_sizes[x->dtype]), &c);
    }
    nb_tensor_release(values_copy);
    plan_free(&p);
    return close_target(op, st, x, target, dst, out);
}
