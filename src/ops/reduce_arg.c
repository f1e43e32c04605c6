/* reduce_arg.c: max / min along a dim with their int64 indices, argmax, argmin.
 *
 * The reduced dims keep their logical order, so an index is the flat position
 * in the reduced range (argmax over every dim: the index into the flattened
 * tensor). Ties keep the first index; a NaN beats every number and the first
 * NaN wins, as PyTorch. Partials of a split range merge in order, so "first"
 * holds across chunks too. */
#include "reduce.h"

#include <math.h>

#pragma GCC diagnostic ignored "-Wtype-limits"

#define FBETTER_MAX(e, b) ((e) > (b) || ((e) != (e) && (b) == (b)))
#define FBETTER_MIN(e, b) ((e) < (b) || ((e) != (e) && (b) == (b)))
#define IBETTER_MAX(e, b) ((e) > (b))
#define IBETTER_MIN(e, b) ((e) < (b))

/* First index of v (or of a NaN when v is NaN) in q[n]; v is known to occur. */
#define FIND_VEC(NAME, T, VT, MT, W, LD, WORDS)                                                          \
    NB_INLINE int64_t NAME(const T* q, int64_t n, T v) {                                               \
        int64_t k = 0;                                                                                 \
        const VT vv = (VT){0} + v;                                                                     \
        if (v == v) {                                                                                  \
            for (; k + (W) <= n; k += (W)) {                                                           \
                const nb_v8l w = (nb_v8l)(LD(q + k) == vv);                                            \
                if (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) break;                      \
            }                                                                                          \
            while (k < n && q[k] != v) k++;                                                            \
        } else {                                                                                       \
            for (; k + (W) <= n; k += (W)) {                                                           \
                const VT x = LD(q + k);                                                                \
                const nb_v8l w = (nb_v8l)(x != x);                                                     \
                if (w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) break;                      \
            }                                                                                          \
            while (k < n && q[k] == q[k]) k++;                                                         \
        }                                                                                              \
        return k;                                                                                      \
    }
FIND_VEC(find_f32, float, nb_v16f, nb_v16i, 16, nb_ld16f, 8)
FIND_VEC(find_f64, double, nb_v8d, nb_v8l, 8, nb_ld8d, 8)
#define FIND_SCALAR(NAME, T)                                                                             \
    NB_INLINE int64_t NAME(const T* q, int64_t n, T v) {                                               \
        int64_t k = 0;                                                                                 \
        while (k < n && q[k] != v) k++;                                                                \
        return k;                                                                                      \
    }
#define INT_HELPERS(T, TAG, CODE, ...)                                                                  \
    FIND_SCALAR(find_##TAG, T)                                                                         \
    STEP_RUN(imax_run_##TAG, T, T, IMAX_STEP)                                                          \
    STEP_RUN(imin_run_##TAG, T, T, IMIN_STEP)
#define IMAX_STEP(v, e) do { if ((e) > (v)) (v) = (e); } while (0)
#define IMIN_STEP(v, e) do { if ((e) < (v)) (v) = (e); } while (0)
NB_RED_INTS(INT_HELPERS)
#define fmax_run_f32 nb_max_run_f32
#define fmin_run_f32 nb_min_run_f32
#define fmax_run_f64 nb_max_run_f64
#define fmin_run_f64 nb_min_run_f64

/* One kernel: accumulator {value, index} per output; index -1 = nothing seen yet.
 * A contiguous run of 32 or more is two vector passes: its max (min), then the
 * first position holding it. */
#define ARG_KERNEL(NAME, T, BETTER, STOREV, RUN, FIND)                                                   \
    typedef struct { T v; int64_t i; } NAME##_acc;                                                      \
    static void NAME##_init(void* acc, int64_t m, const nb_red_ctx* c) {                              \
        (void)c;                                                                                       \
        NAME##_acc* a = acc;                                                                           \
        for (int64_t j = 0; j < m; j++) a[j].v = 0, a[j].i = -1;                                        \
    }                                                                                                  \
    NB_SIMD static void NAME##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si,       \
                                     int64_t sj, int64_t idx0, const nb_red_ctx* c) {                  \
        (void)c;                                                                                       \
        NAME##_acc* a = acc;                                                                           \
        if (n <= 0) return;                                                                            \
        if (m == 1 || llabs(si) <= llabs(sj)) {                                                        \
            for (int64_t j = 0; j < m; j++) {                                                          \
                const char* p = x + j * sj;                                                            \
                if (si == (int64_t)sizeof(T) && n >= 32) {                                             \
                    const T* q = (const T*)p;                                                          \
                    const T rv = RUN(q, n, si, q[0]);                                                  \
                    const int64_t k = FIND(q, n, rv);                                                  \
                    if (a[j].i < 0 || BETTER(rv, a[j].v)) a[j].v = rv, a[j].i = idx0 + k;              \
                    continue;                                                                          \
                }                                                                                      \
                T bv = a[j].v;                                                                         \
                int64_t bi = a[j].i, i = 0;                                                            \
                if (bi < 0) bv = *(const T*)p, bi = idx0, i = 1;                                       \
                if (si == (int64_t)sizeof(T)) {                                                        \
                    const T* q = (const T*)p;                                                          \
                    for (; i < n; i++) if (BETTER(q[i], bv)) bv = q[i], bi = idx0 + i;                 \
                } else {                                                                               \
                    for (; i < n; i++) {                                                               \
                        const T e = *(const T*)(p + i * si);                                           \
                        if (BETTER(e, bv)) bv = e, bi = idx0 + i;                                      \
                    }                                                                                  \
                }                                                                                      \
                a[j].v = bv, a[j].i = bi;                                                              \
            }                                                                                          \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                          \
                const char* r = x + i * si;                                                            \
                for (int64_t j = 0; j < m; j++) {                                                      \
                    const T e = *(const T*)(r + j * sj);                                               \
                    if (a[j].i < 0 || BETTER(e, a[j].v)) a[j].v = e, a[j].i = idx0 + i;                 \
                }                                                                                      \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
    static void NAME##_merge(void* acc, const void* later, int64_t m, const nb_red_ctx* c) {           \
        (void)c;                                                                                       \
        NAME##_acc* a = acc;                                                                           \
        const NAME##_acc* b = later;                                                                   \
        for (int64_t j = 0; j < m; j++)                                                                \
            if (b[j].i >= 0 && (a[j].i < 0 || BETTER(b[j].v, a[j].v))) a[j] = b[j];                    \
    }                                                                                                  \
    static void NAME##_finish(const void* acc, int64_t m, char* const* out, const int64_t* os,         \
                              const nb_red_ctx* c) {                                                   \
        const NAME##_acc* a = acc;                                                                     \
        for (int64_t j = 0; j < m; j++) {                                                              \
            if (out[0]) STOREV(out[0] + j * os[0], c->out_dtype[0], a[j].v);                           \
            if (out[1]) *(int64_t*)(out[1] + j * os[1]) = a[j].i < 0 ? 0 : a[j].i;                     \
        }                                                                                              \
    }                                                                                                  \
    static const nb_red_kernel NAME = {sizeof(NAME##_acc), true, NAME##_init, NAME##_accum,            \
                                       NAME##_merge, NAME##_finish};

#define STORE_F(p, d, v) nb_red_store_f((p), (d), (double)(v))
#define STORE_I(p, d, v) nb_red_store_i((p), (d), (int64_t)(v))
#define FKERNELS(T, TAG, CODE, ...)                                                                     \
    ARG_KERNEL(max_##TAG, T, FBETTER_MAX, STORE_F, fmax_run_##TAG, find_##TAG)                         \
    ARG_KERNEL(min_##TAG, T, FBETTER_MIN, STORE_F, fmin_run_##TAG, find_##TAG)
#define IKERNELS(T, TAG, CODE, ...)                                                                     \
    ARG_KERNEL(max_##TAG, T, IBETTER_MAX, STORE_I, imax_run_##TAG, find_##TAG)                         \
    ARG_KERNEL(min_##TAG, T, IBETTER_MIN, STORE_I, imin_run_##TAG, find_##TAG)
NB_RED_FLOATS(FKERNELS)
NB_RED_INTS(IKERNELS)

#define ENTRY(T, TAG, CODE, OP) [CODE] = &OP##_##TAG,
static const nb_red_kernel* const max_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, max) NB_RED_INTS(ENTRY, max)};
static const nb_red_kernel* const min_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, min) NB_RED_INTS(ENTRY, min)};

const nb_red_kernel* nb_red_cpu_arg(int32_t op, int32_t dtype) {
    return op == NB_RK_MAX ? max_k[dtype] : op == NB_RK_MIN ? min_k[dtype] : NULL;
}

static int32_t widened(int32_t dtype) { return dtype == NB_F16 || dtype == NB_BF16 ? NB_F32 : dtype; }

static nb_status with_indices(const char* op, int32_t rk, const nb_tensor* t, int64_t dim,
                              int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values,
                              nb_tensor** indices) {
    NB_CHECK_TENSOR(op, t);
    if (dst_values == NULL) NB_CHECK_OUT(op, values);
    else if (!nb_tensor_ok(dst_values)) return nb_bad_handle(op, "dst_values", dst_values);
    else NB_CHECK_WRITABLE(op, dst_values);
    if (dst_indices == NULL) NB_CHECK_OUT(op, indices);
    else if (!nb_tensor_ok(dst_indices)) return nb_bad_handle(op, "dst_indices", dst_indices);
    else NB_CHECK_WRITABLE(op, dst_indices);
    if (dst_values != NULL && dst_values == dst_indices)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the values and indices outputs are the same tensor", op);
    nb_status st = nb_red_check(op, t, dst_values ? dst_values : dst_indices, values ? values : indices,
                                NB_FAMILY_REDUCE);
    if (st != NB_OK) return st;
    uint32_t mask;
    if ((st = nb_red_dims(op, t, &dim, 1, &mask)) != NB_OK) return st;
    if ((st = nb_red_check_nonempty(op, t, mask, false)) != NB_OK) return st;
    int32_t in = widened(t->dtype);
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 2,
                     .out_dtype = {t->dtype, NB_I64}, .dst = {dst_values, dst_indices}, .out = {values, indices},
                     .op = rk};
    return nb_red_run(&c);
}

nb_status nbi_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values,
                            nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    return with_indices("max", NB_RK_MAX, t, dim, keepdim, dst_values, dst_indices, values, indices);
}

nb_status nbi_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values,
                            nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    return with_indices("min", NB_RK_MIN, t, dim, keepdim, dst_values, dst_indices, values, indices);
}

static nb_status arg(const char* op, int32_t rk, const nb_tensor* t, const int64_t* dim, int32_t keepdim,
                     nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK) return st;
    if (t->dtype == NB_BOOL) return nb_error(NB_ERR_DTYPE, "%s(): does not support bool input", op);
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dim, dim != NULL, &mask)) != NB_OK) return st;
    if ((st = nb_red_check_nonempty(op, t, mask, dim == NULL)) != NB_OK) return st;
    int32_t in = widened(t->dtype);
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 2,
                     .out_dtype = {t->dtype, NB_I64}, .dst = {NULL, dst}, .out = {NULL, out}, .op = rk};
    return nb_red_run(&c);
}

nb_status nbi_argmax(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    return arg("argmax", NB_RK_MAX, t, dim, keepdim, dst, out);
}

nb_status nbi_argmin(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    return arg("argmin", NB_RK_MIN, t, dim, keepdim, dst, out);
}
