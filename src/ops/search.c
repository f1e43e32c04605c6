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

/* How many of the n elements at p (stride s bytes) are below v: a binary search that
 * branches while the range is long (the CPU speculates into the next probe's load, which
 * is likely a cache miss) and is branchless (a conditional move) over the last 4096. */
#define SEARCH_KIND(TAG, T, LOAD)                                                                   \
    static inline int64_t below_##TAG(const char* p, int64_t s, int64_t n, T v, bool right) {       \
        if (n == 0) return 0;                                                                       \
        int64_t base = 0;                                                                           \
        while (n > 4096) { /* see above */  \
            const int64_t half = n / 2;                                                             \
            const T e = LOAD(p + (base + half) * s);                                                \
            if (right ? !(e > v) : !(e >= v)) base += half, n -= half;                              \
            else n = half;                                                                          \
        }                                                                                           \
        while (n > 1) {                                                                             \
            const int64_t half = n / 2;                                                             \
            const T e = LOAD(p + (base + half) * s);                                                \
            base = (right ? !(e > v) : !(e >= v)) ? base + half : base;                             \
            n -= half;                                                                              \
        }                                                                                           \
        const T e = LOAD(p + base * s);                                                             \
        return base + (right ? !(e > v) : !(e >= v));                                               \
    }                                                                                               \
    /* Values [j0, j1) of the flattened values: one unravel per chunk, then a walk. */              \
    static void search_##TAG(const nb_tensor* sorted, const nb_tensor* values, bool right, void* out, \
                             bool i32, int64_t j0, int64_t j1) {                                    \
        const int32_t nd = values->ndim;                                                            \
        const int64_t es = nb_dtype_sizes[values->dtype], m = sorted->shape[sorted->ndim - 1];      \
        const int64_t ms = sorted->strides[sorted->ndim - 1] * es;                                  \
        const bool batched = sorted->ndim > 1;                                                      \
        const char* sbase = (const char*)sorted->storage->data + sorted->offset * es;               \
        const char* vbase = (const char*)values->storage->data + values->offset * es;               \
        int64_t idx[NB_MAX_DIMS], voff = 0, soff = 0, rem = j0;                                     \
        for (int32_t d = nd - 1; d >= 0; d--) {                                                     \
            idx[d] = rem % values->shape[d];                                                        \
            rem /= values->shape[d];                                                                \
            voff += idx[d] * values->strides[d];                                                    \
            if (batched && d < nd - 1) soff += idx[d] * sorted->strides[d];                         \
        }                                                                                           \
        for (int64_t j = j0; j < j1; j++) {                                                         \
            const int64_t r = below_##TAG(sbase + soff * es, ms, m, LOAD(vbase + voff * es), right); \
            if (i32) ((int32_t*)out)[j] = (int32_t)r;                                               \
            else ((int64_t*)out)[j] = r;                                                            \
            for (int32_t d = nd - 1; d >= 0; d--) { /* the next index, odometer style */            \
                voff += values->strides[d];                                                         \
                if (batched && d < nd - 1) soff += sorted->strides[d];                              \
                if (++idx[d] < values->shape[d]) break;                                             \
                voff -= values->shape[d] * values->strides[d];                                      \
                if (batched && d < nd - 1) soff -= values->shape[d] * sorted->strides[d];           \
                idx[d] = 0;                                                                         \
            }                                                                                       \
        }                                                                                           \
    }

#define LOAD_F32(p) (*(const float*)(p))
#define LOAD_F16(p) nb_half_to_float(*(const uint16_t*)(p))
#define LOAD_BF16(p) nb_bf16_to_float(*(const uint16_t*)(p))
#define LOAD_F64(p) (*(const double*)(p))
#define LOAD_I8(p) ((int64_t)*(const int8_t*)(p))
#define LOAD_I16(p) ((int64_t)*(const int16_t*)(p))
#define LOAD_I32(p) ((int64_t)*(const int32_t*)(p))
#define LOAD_I64(p) (*(const int64_t*)(p))
#define LOAD_U8(p) ((int64_t)*(const uint8_t*)(p))
SEARCH_KIND(f32, float, LOAD_F32)
SEARCH_KIND(f16, float, LOAD_F16)
SEARCH_KIND(bf16, float, LOAD_BF16)
SEARCH_KIND(f64, double, LOAD_F64)
SEARCH_KIND(i8, int64_t, LOAD_I8)
SEARCH_KIND(i16, int64_t, LOAD_I16)
SEARCH_KIND(i32, int64_t, LOAD_I32)
SEARCH_KIND(i64, int64_t, LOAD_I64)
SEARCH_KIND(u8, int64_t, LOAD_U8)

/* out (contiguous, values' shape) from sorted (1-d, or values' leading dims) on the CPU:
 * chunks of values in parallel, the work of a value counted as its search's steps (each
 * a likely cache miss once the line outgrows the caches). */
static void search_cpu(const nb_tensor* sorted, const nb_tensor* values, bool right, nb_tensor* out) {
    const int64_t total = values->numel, chunk = 256, chunks = (total + chunk - 1) / chunk;
    int64_t steps = 1;
    for (int64_t m = sorted->shape[sorted->ndim - 1]; m > 1; m /= 2) steps++;
    void* o = nb_tensor_data(out);
    const bool i32 = out->dtype == NB_I32;
    const int nt = nb_threads_for(total * steps * 64, chunks);
#pragma omp parallel for num_threads(nt) if (nt > 1) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
        const int64_t j0 = c * chunk, j1 = j0 + chunk < total ? j0 + chunk : total;
        switch (values->dtype) {
            case NB_F32: search_f32(sorted, values, right, o, i32, j0, j1); break;
            case NB_F16: search_f16(sorted, values, right, o, i32, j0, j1); break;
            case NB_BF16: search_bf16(sorted, values, right, o, i32, j0, j1); break;
            case NB_F64: search_f64(sorted, values, right, o, i32, j0, j1); break;
            case NB_I8: search_i8(sorted, values, right, o, i32, j0, j1); break;
            case NB_I16: search_i16(sorted, values, right, o, i32, j0, j1); break;
            case NB_I32: search_i32(sorted, values, right, o, i32, j0, j1); break;
            case NB_U8: search_u8(sorted, values, right, o, i32, j0, j1); break;
            default: search_i64(sorted, values, right, o, i32, j0, j1); break;
        }
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
