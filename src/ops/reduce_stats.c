/* reduce_stats.c: var, std, norm, logsumexp (floating point; float32 data is
 * accumulated in double, float16 / bfloat16 read as float32, results rounded once).
 *
 * var / std: contiguous runs are cut into 512-element blocks whose mean and
 * sum of squared deviations are computed exactly as two passes over cached
 * data, then combined with Chan's update; column reductions use Welford's
 * update. Both are stable for data far from zero (no sum-of-squares
 * cancellation). logsumexp keeps (max, sum of exp(x - max)) and rescales on
 * merge; infinities and NaN give PyTorch's results. */
#include "reduce.h"

#include <math.h>

/* ---- var / std ---- */

enum { V_VAR = 0, V_STD = 1 };

typedef struct { double n, mean, m2; } var_acc;

NB_INLINE void chan(var_acc* a, double n, double mean, double m2) {
    if (n == 0) return;
    if (a->n == 0) { a->n = n, a->mean = mean, a->m2 = m2; return; }
    double tot = a->n + n, delta = mean - a->mean;
    a->mean += delta * (n / tot);
    a->m2 += m2 + delta * delta * (a->n * n / tot);
    a->n = tot;
}

#define ld8_f32 nb_ld8f_wide
#define ld8_f64 nb_ld8d

#define VAR_KERNEL(T, TAG)                                                                               \
    NB_INLINE void var_block_##TAG(var_acc* a, const T* p, int64_t n) {                                \
        nb_v8d s = {0};                                                                                \
        int64_t i = 0;                                                                                 \
        for (; i + 8 <= n; i += 8) s += ld8_##TAG(p + i);                                              \
        double sum = nb_hsum8d(&s);                                                                     \
        for (; i < n; i++) sum += p[i];                                                                \
        const double mean = sum / (double)n;                                                           \
        nb_v8d q = {0}, c = {0};                                                                       \
        for (i = 0; i + 8 <= n; i += 8) { nb_v8d d = ld8_##TAG(p + i) - mean; q += d * d; c += d; }    \
        double m2 = nb_hsum8d(&q), cs = nb_hsum8d(&c);                                                   \
        for (; i < n; i++) { double d = (double)p[i] - mean; m2 += d * d; cs += d; }                   \
        chan(a, (double)n, mean, m2 - cs * cs / (double)n); /* corrected two-pass */                   \
    }                                                                                                  \
    NB_INLINE void welford_##TAG(var_acc* a, double e) {                                               \
        a->n += 1;                                                                                     \
        double d = e - a->mean;                                                                        \
        a->mean += d / a->n;                                                                           \
        a->m2 += d * (e - a->mean);                                                                    \
    }                                                                                                  \
    NB_SIMD static void var_##TAG##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si,  \
                                          int64_t sj, int64_t idx0, const nb_red_ctx* c) {             \
        (void)idx0, (void)c;                                                                           \
        var_acc* a = acc;                                                                              \
        if (m == 1 || llabs(si) <= llabs(sj)) {                                                        \
            for (int64_t j = 0; j < m; j++) {                                                          \
                const char* p = x + j * sj;                                                            \
                if (si == (int64_t)sizeof(T)) {                                                        \
                    for (int64_t i = 0; i < n; i += 512)                                               \
                        var_block_##TAG(&a[j], (const T*)p + i, n - i < 512 ? n - i : 512);            \
                } else {                                                                               \
                    for (int64_t i = 0; i < n; i++) welford_##TAG(&a[j], *(const T*)(p + i * si));     \
                }                                                                                      \
            }                                                                                          \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                            \
                for (int64_t j = 0; j < m; j++) welford_##TAG(&a[j], *(const T*)(x + i * si + j * sj));  \
        }                                                                                              \
    }                                                                                                  \
    static const nb_red_kernel var_##TAG = {sizeof(var_acc), false, var_init, var_##TAG##_accum,       \
                                            var_merge, var_finish};

static void var_init(void* acc, int64_t m, const nb_red_ctx* c) {
    (void)c;
    memset(acc, 0, sizeof(var_acc) * (size_t)m);
}

static void var_merge(void* acc, const void* later, int64_t m, const nb_red_ctx* c) {
    (void)c;
    var_acc* a = acc;
    const var_acc* b = later;
    for (int64_t j = 0; j < m; j++) chan(&a[j], b[j].n, b[j].mean, b[j].m2);
}

static void var_finish(const void* acc, int64_t m, char* const* out, const int64_t* os, const nb_red_ctx* c) {
    const var_acc* a = acc;
    for (int64_t j = 0; j < m; j++) {
        double dof = a[j].n - c->correction;
        double v = a[j].m2 / (dof > 0 ? dof : 0.0);
        nb_red_store_f(out[0] + j * os[0], c->out_dtype[0], c->variant == V_STD ? sqrt(v) : v);
    }
}

VAR_KERNEL(float, f32)
VAR_KERNEL(double, f64)

/* ---- norm ---- */

enum { N_ZERO, N_ONE, N_TWO, N_INF, N_NINF, N_P };

#define ADD_ABS(v, e) ((v) += fabs((double)(e)))
#define ADD_SQ(v, e) ((v) += (double)(e) * (double)(e))
#define ADD_NZ(v, e) ((v) += (e) != 0)
#define ADD_POW(v, e) ((v) += pow(fabs((double)(e)), c->p))
#define MAX_ABS(v, e) do { double a_ = fabs((double)(e)); if (a_ > (v) || a_ != a_) (v) = a_; } while (0)
#define MIN_ABS(v, e) do { double a_ = fabs((double)(e)); if (a_ < (v) || a_ != a_) (v) = a_; } while (0)
#define MERGE_ADD(a, b) ((a) += (b))
#define STORE_NORM(ptr, v) nb_red_store_f((ptr), c->out_dtype[0], c->variant == N_TWO ? sqrt(v) \
                                        : c->variant == N_P ? pow((v), 1.0 / c->p) : (v))

/* float64, p = 1 and p = 2 on contiguous data: double lanes. */
#define LANE_RUN(NAME, T, TAG, EXPR, STEP)                                                              \
    NB_INLINE double NAME(const T* p, int64_t n, int64_t s, double v) {                                \
        int64_t i = 0;                                                                                 \
        if (s == (int64_t)sizeof(T)) {                                                                 \
            nb_v8d a = {0}, b = {0};                                                                   \
            for (; i + 16 <= n; i += 16) {                                                             \
                nb_v8d x = ld8_##TAG(p + i), y = ld8_##TAG(p + i + 8);                                 \
                a += EXPR(x);                                                                          \
                b += EXPR(y);                                                                          \
            }                                                                                          \
            a += b;                                                                                    \
            v += nb_hsum8d(&a);                                                                     \
            for (; i < n; i++) STEP(v, p[i]);                                                          \
            return v;                                                                                  \
        }                                                                                              \
        for (; i < n; i++) { const T e = *(const T*)((const char*)p + i * s); STEP(v, e); }            \
        return v;                                                                                      \
    }
#define VABS(x) ((nb_v8d)((nb_v8l)(x) & ((nb_v8l){0} + INT64_MAX)))
#define VSQ(x) ((x) * (x))
#define VABS16(x) ((nb_v16f)((nb_v16i)(x) & ((nb_v16i){0} + INT32_MAX)))

/* float32, p = 1 and 2: |x| or x * x summed pairwise in float over 128-element
 * blocks (as the float32 sum), block sums in double lanes. */
#define F32_BLOCK_RUN(NAME, EXPR, STEP)                                                                 \
    NB_INLINE double NAME(const float* p, int64_t n, int64_t s, double v) {                            \
        int64_t i = 0;                                                                                 \
        if (s != (int64_t)sizeof(float)) {                                                             \
            for (; i < n; i++) { const float e = *(const float*)((const char*)p + i * s); STEP(v, e); } \
            return v;                                                                                  \
        }                                                                                              \
        nb_v8d acc = {0};                                                                              \
        for (; i + 128 <= n; i += 128) {                                                               \
            nb_v16f x[8];                                                                              \
            for (int k = 0; k < 8; k++) { x[k] = nb_ld16f(p + i + 16 * k); x[k] = EXPR(x[k]); }          \
            const nb_v16f b = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));       \
            acc += nb_widen_sum(&b);                                                                   \
        }                                                                                              \
        for (; i + 16 <= n; i += 16) { nb_v16f b = nb_ld16f(p + i); b = EXPR(b); acc += nb_widen_sum(&b); } \
        v += nb_hsum8d(&acc);                                                                          \
        for (; i < n; i++) STEP(v, p[i]);                                                              \
        return v;                                                                                      \
    }
F32_BLOCK_RUN(n1_run_f32, VABS16, ADD_ABS)
F32_BLOCK_RUN(n2_run_f32, VSQ, ADD_SQ)

LANE_RUN(n1_run_f64, double, f64, VABS, ADD_ABS)
LANE_RUN(n2_run_f64, double, f64, VSQ, ADD_SQ)

#define NORM_KERNELS(T, TAG, CODE, ...)                                                                 \
    STEP_RUN(n0_run_##TAG, T, double, ADD_NZ)                                                          \
    STEP_RUN(ninf_run_##TAG, T, double, MAX_ABS)                                                       \
    STEP_RUN(nninf_run_##TAG, T, double, MIN_ABS)                                                      \
    SCALAR_KERNEL(norm0_##TAG, T, double, 0.0, n0_run_##TAG, ADD_NZ, MERGE_ADD, STORE_NORM)            \
    SCALAR_KERNEL(norm1_##TAG, T, double, 0.0, n1_run_##TAG, ADD_ABS, MERGE_ADD, STORE_NORM)           \
    SCALAR_KERNEL(norm2_##TAG, T, double, 0.0, n2_run_##TAG, ADD_SQ, MERGE_ADD, STORE_NORM)            \
    SCALAR_KERNEL(norminf_##TAG, T, double, 0.0, ninf_run_##TAG, MAX_ABS, MAX_ABS, STORE_NORM)         \
    SCALAR_KERNEL(normninf_##TAG, T, double, INFINITY, nninf_run_##TAG, MIN_ABS, MIN_ABS, STORE_NORM)

/* The general p reads c->p inside the step, so it has its own run. */
#define NORMP_KERNEL(T, TAG, CODE, ...)                                                                 \
    NB_INLINE double np_run_##TAG##_impl(const T* p, int64_t n, int64_t s, double v, const nb_red_ctx* c) { \
        for (int64_t i = 0; i < n; i++) { const T e = *(const T*)((const char*)p + i * s); ADD_POW(v, e); } \
        return v;                                                                                      \
    }
NB_RED_FLOATS(NORM_KERNELS)
NB_RED_FLOATS(NORMP_KERNEL)
#define np_run_f32(p, n, s, v) np_run_f32_impl((p), (n), (s), (v), c)
#define np_run_f64(p, n, s, v) np_run_f64_impl((p), (n), (s), (v), c)
SCALAR_KERNEL(normp_f32, float, double, 0.0, np_run_f32, ADD_POW, MERGE_ADD, STORE_NORM)
SCALAR_KERNEL(normp_f64, double, double, 0.0, np_run_f64, ADD_POW, MERGE_ADD, STORE_NORM)

static const nb_red_kernel* const norm_k[6][2] = {
    [N_ZERO] = {&norm0_f32, &norm0_f64}, [N_ONE] = {&norm1_f32, &norm1_f64}, [N_TWO] = {&norm2_f32, &norm2_f64},
    [N_INF] = {&norminf_f32, &norminf_f64}, [N_NINF] = {&normninf_f32, &normninf_f64},
    [N_P] = {&normp_f32, &normp_f64},
};

/* ---- logsumexp ---- */

typedef struct { double mx, s; } lse_acc;

/* Folds (m, s) = a part's max and its sum of exp(x - m) into a. */
NB_INLINE void lse_fold(lse_acc* a, double m, double s) {
    if (m != m || a->mx != a->mx) { a->mx = NAN; return; }
    if (m == -INFINITY) return;
    if (a->mx == -INFINITY) { a->mx = m, a->s = s; return; }
    if (m == INFINITY || a->mx == INFINITY) { a->mx = INFINITY; return; }
    if (m > a->mx) a->s = a->s * exp(a->mx - m) + s, a->mx = m;
    else a->s += s * exp(m - a->mx);
}

/* A contiguous float32 run: vector max, then sum of exp(x - max) with
 * reduce.h's exp in float lanes over 128-element blocks, block sums in double. */
NB_INLINE void lse_run_f32(lse_acc* a, const float* p, int64_t n) {
    const float mx = nb_max_run_f32(p, n, sizeof(float), -INFINITY);
    double s = 0;
    if (isfinite(mx)) {
        nb_v8d acc = {0};
        int64_t i = 0;
        nb_v16f blk = {0};
        for (int k = 1; i + 16 <= n; i += 16, k++) {
            const nb_v16f d = nb_ld16f(p + i) - mx;
            blk += nb_vexp16(&d);
            if ((k & 7) == 0) { acc += nb_widen_sum(&blk); blk = (nb_v16f){0}; }
        }
        if (i < n) {
            const nb_v16f d = nb_ld16f_tail(p + i, n - i, -INFINITY) - mx;
            blk += nb_vexp16(&d);
        }
        acc += nb_widen_sum(&blk);
        s = nb_hsum8d(&acc);
    }
    lse_fold(a, mx, s);
}
NB_INLINE void lse_run_f64(lse_acc* a, const double* p, int64_t n) {
    double mx = -INFINITY, s = 0;
    for (int64_t i = 0; i < n; i++) if (p[i] > mx || p[i] != p[i]) mx = p[i];
    if (isfinite(mx))
        for (int64_t i = 0; i < n; i++) s += exp(p[i] - mx);
    lse_fold(a, mx, s);
}

/* float32 columns (outputs contiguous): per 256 columns, the column max over
 * the block's rows, then exp(x - max) in float lanes, summed in float over 8
 * rows at a time and in double across them (as the row case's blocks). A
 * column whose max is not finite gets its result from lse_fold alone. */
#define LSE_COLS 256
NB_INLINE bool lse_cols_f32(lse_acc* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) {
    if (sj != (int64_t)sizeof(float) || m < 16) return false;
    for (int64_t j0 = 0; j0 < m; j0 += LSE_COLS) {
        const int64_t mw = m - j0 < LSE_COLS ? m - j0 : LSE_COLS, mv = mw - mw % 16;
        float mx[LSE_COLS];
        double sd[LSE_COLS];
        for (int64_t j = 0; j < mw; j++) mx[j] = -INFINITY, sd[j] = 0;
        for (int64_t i = 0; i < n; i++) {
            const float* r = (const float*)(x + i * si) + j0;
            for (int64_t j = 0; j < mw; j++) FMAX(mx[j], r[j]);
        }
        for (int64_t j = 0; j < mv; j += 16) {
            const nb_v16f vm = nb_ld16f(mx + j);
            nb_v8d lo = {0}, hi = {0};
            int64_t i = 0;
            while (i < n) {
                nb_v16f blk = {0};
                for (int k = 0; k < 8 && i < n; k++, i++) {
                    const nb_v16f d = nb_ld16f((const float*)(x + i * si) + j0 + j) - vm;
                    blk += nb_vexp16(&d);
                }
                lo += nb_widen_lo(&blk);
                hi += nb_widen_hi(&blk);
            }
            for (int k = 0; k < 8; k++) sd[j + k] = lo[k], sd[j + 8 + k] = hi[k];
        }
        for (int64_t j = mv; j < mw; j++)
            if (isfinite(mx[j]))
                for (int64_t i = 0; i < n; i++) sd[j] += exp((double)((const float*)(x + i * si))[j0 + j] - mx[j]);
        for (int64_t j = 0; j < mw; j++) lse_fold(&a[j0 + j], mx[j], sd[j]);
    }
    return true;
}
#define lse_cols_f64(a, m, x, n, si, sj) false

#define LSE_KERNEL(T, TAG, CODE, ...)                                                                   \
    NB_SIMD static void lse_##TAG##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si,  \
                                          int64_t sj, int64_t idx0, const nb_red_ctx* c) {             \
        (void)idx0, (void)c;                                                                           \
        lse_acc* a = acc;                                                                              \
        if (m == 1 || llabs(si) <= llabs(sj)) {                                                        \
            for (int64_t j = 0; j < m; j++) {                                                          \
                const char* p = x + j * sj;                                                            \
                if (si == (int64_t)sizeof(T)) {                                                        \
                    lse_run_##TAG(&a[j], (const T*)p, n);                                              \
                    continue;                                                                          \
                }                                                                                      \
                double mx = -INFINITY, s = 0;                                                          \
                for (int64_t i = 0; i < n; i++) {                                                      \
                    double e = *(const T*)(p + i * si);                                                \
                    if (e > mx || e != e) mx = e;                                                      \
                }                                                                                      \
                if (isfinite(mx))                                                                      \
                    for (int64_t i = 0; i < n; i++) s += exp((double)*(const T*)(p + i * si) - mx);    \
                lse_fold(&a[j], mx, s);                                                                \
            }                                                                                          \
        } else if (!lse_cols_##TAG(a, m, x, n, si, sj)) {                                              \
            for (int64_t i = 0; i < n; i++)                                                            \
                for (int64_t j = 0; j < m; j++) lse_fold(&a[j], *(const T*)(x + i * si + j * sj), 1.0);  \
        }                                                                                              \
    }                                                                                                  \
    static const nb_red_kernel lse_##TAG = {sizeof(lse_acc), false, lse_init, lse_##TAG##_accum,       \
                                            lse_merge, lse_finish};

static void lse_init(void* acc, int64_t m, const nb_red_ctx* c) {
    (void)c;
    lse_acc* a = acc;
    for (int64_t j = 0; j < m; j++) a[j].mx = -INFINITY, a[j].s = 0;
}

static void lse_merge(void* acc, const void* later, int64_t m, const nb_red_ctx* c) {
    (void)c;
    lse_acc* a = acc;
    const lse_acc* b = later;
    for (int64_t j = 0; j < m; j++) lse_fold(&a[j], b[j].mx, b[j].s);
}

static void lse_finish(const void* acc, int64_t m, char* const* out, const int64_t* os, const nb_red_ctx* c) {
    const lse_acc* a = acc;
    for (int64_t j = 0; j < m; j++) {
        double v = isfinite(a[j].mx) ? a[j].mx + log(a[j].s) : a[j].mx;
        nb_red_store_f(out[0] + j * os[0], c->out_dtype[0], v);
    }
}

NB_RED_FLOATS(LSE_KERNEL)

const nb_red_kernel* nb_red_cpu_stats(int32_t op, int32_t dtype, nb_red_ctx* ctx) {
    if (dtype != NB_F32 && dtype != NB_F64) return NULL;
    const bool f64 = dtype == NB_F64;
    switch (op) {
        case NB_RK_VAR: case NB_RK_STD:
            ctx->variant = op == NB_RK_STD ? V_STD : V_VAR;
            return f64 ? &var_f64 : &var_f32;
        case NB_RK_NORM: {
            const double p = ctx->p;
            ctx->variant = p == 0 ? N_ZERO : p == 1 ? N_ONE : p == 2 ? N_TWO : p == INFINITY ? N_INF
                         : p == -INFINITY ? N_NINF : N_P;
            return norm_k[ctx->variant][f64];
        }
        case NB_RK_LOGSUMEXP: return f64 ? &lse_f64 : &lse_f32;
        default: return NULL;
    }
}

/* ---- the ABI ---- */

static nb_status var_std(const char* op, int32_t rk, const nb_tensor* t, const int64_t* dims, int32_t ndims,
                         double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK) return st;
    if (!nb_dtype_is_floating(t->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: std and var only support floating point and complex dtypes (got %s)", op,
                        nb_dtype_str(t->dtype));
    if (correction != correction)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: correction must be a number, got nan", op);
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dims, ndims, &mask)) != NB_OK) return st;
    int32_t in = t->dtype == NB_F64 ? NB_F64 : NB_F32;
    if (dst != NULL && !nb_dtype_is_floating(dst->dtype))  /* any floating out= takes the result */
        return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                        nb_dtype_torch_name(t->dtype), nb_dtype_torch_name(dst->dtype));
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 1,
                     .out_dtype = {dst != NULL ? dst->dtype : t->dtype}, .dst = {dst}, .out = {out},
                     .op = rk, .correction = correction};
    return nb_red_run(&c);
}

nb_status nbi_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        nb_tensor* dst, nb_tensor** out) {
    return var_std("var", NB_RK_VAR, t, dims, ndims, correction, keepdim, dst, out);
}

nb_status nbi_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim,
                        nb_tensor* dst, nb_tensor** out) {
    return var_std("std", NB_RK_STD, t, dims, ndims, correction, keepdim, dst, out);
}

nb_status nbi_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim,
                         int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "norm";
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK || (st = nb_red_check_dtype(op, dtype)) != NB_OK) return st;
    if (!nb_dtype_is_floating(t->dtype))
        return nb_error(NB_ERR_DTYPE, "norm: expected a floating point tensor as input, got %s",
                        nb_dtype_str(t->dtype));
    if (dtype >= 0 && !nb_dtype_is_floating(dtype))
        return nb_error(NB_ERR_DTYPE, "norm: dtype should be floating point, got %s", nb_dtype_str(dtype));
    if (p != p) return nb_error(NB_ERR_INVALID_ARGUMENT, "norm: the order p must be a number, got nan");
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dims, ndims, &mask)) != NB_OK) return st;
    if (t->numel == 0 && nb_red_count(t, mask) == 0 && (p < 0 || p == INFINITY))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "norm: linalg.vector_norm cannot compute the %g norm on an empty "
                        "tensor because the operation does not have an identity", p);
    int32_t result = dtype >= 0 ? dtype : t->dtype;
    int32_t in = result == NB_F64 ? NB_F64 : NB_F32;
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 1,
                     .out_dtype = {result}, .dst = {dst}, .out = {out}, .op = NB_RK_NORM, .p = p};
    return nb_red_run(&c);
}

nb_status nbi_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                              nb_tensor** out) {
    static const char* op = "logsumexp";
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK) return st;
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dims, ndims, &mask)) != NB_OK) return st;
    int32_t result = nb_dtype_is_floating(t->dtype) ? t->dtype : nb_default_float();
    if (dst != NULL && !nb_dtype_is_floating(dst->dtype))
        return nb_error(NB_ERR_DTYPE, "%s(): Expected floating point type for result tensor, but got: %s", op,
                        nb_dtype_torch_name(dst->dtype));
    if (dst != NULL) result = dst->dtype;  /* any floating out= takes the result */
    int32_t in = result == NB_F64 ? NB_F64 : NB_F32;
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 1,
                     .out_dtype = {result}, .dst = {dst}, .out = {out}, .op = NB_RK_LOGSUMEXP};
    return nb_red_run(&c);
}
