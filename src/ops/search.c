/* search.c: searchsorted (bucketize, histogram and isin build on it in Python).
 *
 * For each value, its insertion point in its sorted line: a binary search that
 * counts the line's elements below the value with PyTorch's comparisons, s with
 * !(s >= v) (or !(s > v) for right), so a NaN value lands after every element and
 * -0.0 ties with 0.0. Values run in parallel. Floats compare in float (double for
 * float64), integers in int64. Tensors on a device go to the sort slot
 * (NB_SK_SEARCH, sort_device.c). */
#include "index_device.h"
#include "sort_device.h"

/* How many of the n elements at p (stride s bytes) are below v. */
#define SEARCH_KIND(TAG, T, LOAD)                                                                   \
    static int64_t below_##TAG(const char* p, int64_t s, int64_t n, T v, bool right) {              \
        int64_t lo = 0, hi = n;                                                                     \
        while (lo < hi) {                                                                           \
            const int64_t mid = lo + (hi - lo) / 2;                                                 \
            const T e = LOAD(p + mid * s);                                                          \
            if (right ? !(e > v) : !(e >= v)) lo = mid + 1;                                         \
            else hi = mid;                                                                          \
        }                                                                                           \
        return lo;                                                                                  \
    }

#define LOAD_F32(p) (*(const float*)(p))
#define LOAD_F16(p) nb_half_to_float(*(const uint16_t*)(p))
#define LOAD_BF16(p) nb_bf16_to_float(*(const uint16_t*)(p))
#define LOAD_F64(p) (*(const double*)(p))
SEARCH_KIND(f32, float, LOAD_F32)
SEARCH_KIND(f16, float, LOAD_F16)
SEARCH_KIND(bf16, float, LOAD_BF16)
SEARCH_KIND(f64, double, LOAD_F64)

static inline int64_t load_int(const char* p, int32_t dtype) {
    switch (dtype) {
        case NB_I8: return *(const int8_t*)p;
        case NB_I16: return *(const int16_t*)p;
        case NB_I32: return *(const int32_t*)p;
        case NB_U8: return *(const uint8_t*)p;
        default: return *(const int64_t*)p;
    }
}

static int64_t below_int(const char* p, int64_t s, int64_t n, int64_t v, bool right, int32_t dtype) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2, e = load_int(p + mid * s, dtype);
        if (right ? e <= v : e < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int64_t below(const char* line, int64_t s, int64_t n, const char* v, bool right, int32_t dtype) {
    switch (dtype) {
        case NB_F32: return below_f32(line, s, n, LOAD_F32(v), right);
        case NB_F16: return below_f16(line, s, n, LOAD_F16(v), right);
        case NB_BF16: return below_bf16(line, s, n, LOAD_BF16(v), right);
        case NB_F64: return below_f64(line, s, n, LOAD_F64(v), right);
        default: return below_int(line, s, n, load_int(v, dtype), right, dtype);
    }
}

/* out (contiguous, values' shape) from sorted (1-d, or values' leading dims) on the CPU. */
static void search_cpu(const nb_tensor* sorted, const nb_tensor* values, bool right, nb_tensor* out) {
    const int32_t nd = values->ndim, dt = values->dtype;
    const int64_t es = nb_dtype_sizes[dt], total = values->numel;
    const int64_t m = sorted->shape[sorted->ndim - 1], ms = sorted->strides[sorted->ndim - 1] * es;
    const bool batched = sorted->ndim > 1;
    const char* sbase = (const char*)sorted->storage->data + sorted->offset * es;
    const char* vbase = (const char*)values->storage->data + values->offset * es;
    char* obase = (char*)nb_tensor_data(out);
    const bool i32 = out->dtype == NB_I32;
    const int nt = nb_threads_for(total * 16, total);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (int64_t j = 0; j < total; j++) {
        int64_t rem = j, voff = 0, soff = 0;
        for (int32_t d = nd - 1; d >= 0; d--) {  /* unravel j over values' dims */
            const int64_t c = rem % values->shape[d];
            rem /= values->shape[d];
            voff += c * values->strides[d];
            if (batched && d < nd - 1) soff += c * sorted->strides[d];
        }
        const int64_t r = below(sbase + soff * es, ms, m, vbase + voff * es, right, dt);
        if (i32) ((int32_t*)obase)[j] = (int32_t)r;
        else ((int64_t*)obase)[j] = r;
    }
}

/* PyTorch's rules for the two shapes. */
static nb_status check_shapes(const char* op, const nb_tensor* sorted, const nb_tensor* values) {
    if (sorted->ndim == 0)
        return nb_error(NB_ERR_SHAPE, "%s: boundaries tensor should have positive dimension, but got 0 dimension",
                        op);
    if (sorted->ndim == 1) return NB_OK;
    if (values->ndim == 0)
        return nb_error(NB_ERR_SHAPE, "%s: input value can be a scalar only when boundaries tensor dimension is 1, "
                        "but we got boundaries tensor dim(%d) and input value's dim(0) numel(1)", op,
                        (int)sorted->ndim);
    bool match = values->ndim == sorted->ndim;
    for (int32_t d = 0; match && d < sorted->ndim - 1; d++) match = values->shape[d] == sorted->shape[d];
    if (!match)
        return nb_error(NB_ERR_SHAPE, "%s: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we got boundaries tensor %s and "
                        "input value tensor %s", op, nb_shape_str(sorted->shape, sorted->ndim),
                        nb_shape_str(values->shape, values->ndim));
    return NB_OK;
}

nb_status nbi_searchsorted(const nb_tensor* sorted, const nb_tensor* values, int32_t right, int32_t out_int32,
                           nb_tensor** out) {
    static const char* op = "searchsorted";
    NB_CHECK_TENSOR(op, sorted);
    NB_CHECK_TENSOR(op, values);
    NB_CHECK_OUT(op, out);
    nb_status st = check_shapes(op, sorted, values);
    if (st != NB_OK) return st;
    if (sorted->dtype != values->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: boundaries tensor dtype %s and input value tensor dtype %s differ "
                        "(promote both to a common dtype first)", op, nb_dtype_str(sorted->dtype),
                        nb_dtype_str(values->dtype));
    if (values->dtype == NB_BOOL)
        return nb_error(NB_ERR_DTYPE, "%s: \"searchsorted_out_cpu\" not implemented for 'Bool'", op);
    const int32_t dt = values->storage->device_type, di = values->storage->device_index;
    if ((st = nb_ixd_same_device(op, values, sorted)) != NB_OK) return st;
    nb_tensor* o = NULL;
    if ((st = nb_tensor_new(op, values->shape, values->ndim, out_int32 ? NB_I32 : NB_I64, dt, di, &o)) != NB_OK)
        return st;
    if (o->numel > 0) {
        if (dt == NB_CPU) search_cpu(sorted, values, right != 0, o);
        else st = nb_sortd_search(op, sorted, values, right != 0, o);
    }
    if (st != NB_OK) {
        nb_tensor_release(o);
        return st;
    }
    *out = o;
    return NB_OK;
}
