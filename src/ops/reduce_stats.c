/* reduce_stats.c: var, std, norm, logsumexp (floating point; float32 data is
 * accumulated in double, float16 / bfloat16 read as float32, results rounded once).
 *
 * var / std: contiguous runs are cut into 512-element blocks whose mean and
 * sum of squared deviations are computed exactly as two passes over cached
 * data, then combined with Chan's update; column reductions use Welford's
 * update. Both are stable for data far from zero (no sum-of-squares
 * cancellation). norm (p = 1, 2) sums long contiguous runs as the float32 sum
 * does and short ones eight at a time in exact double lanes (AVX-512).
 * logsumexp keeps (max, sum of exp(x - max)) and rescales on merge; short
 * float32 runs go eight at a time and float64 exp runs in vectors on AVX-512;
 * infinities and NaN give PyTorch's results.
 * docs/numerics.md states the accuracy each path keeps. */
#include "reduce.h"
#include "vecmath.h"

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

/* AVX-512: contiguous runs shorter than NORM_SHORT (p = 1, 2), eight outputs at a time. Each run is
 * widened to double exactly (so its squares are exact and do not overflow) into double lanes,
 * 8 elements at a time, a zero-padded vector for the last ones; the lanes are added as nb_hsum8d adds, by
 * a transposing tree for eight runs, so a run's result does not depend on its neighbours. One horizontal
 * sum and one call per output cost more than the arithmetic of a run of 16. */
#define NORM_SHORT 128
#if NB_RED_HAVE_AVX512
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define LD8_f32(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
#define LD8_f64(p) _mm512_loadu_pd(p)
#define LD8Z_f32(k, p) _mm512_cvtps_pd(_mm256_maskz_loadu_ps((k), (p)))
#define LD8Z_f64(k, p) _mm512_maskz_loadu_pd((k), (p))
#define SQ8(v, x) _mm512_fmadd_pd((x), (x), (v))
#define ABS8(v, x) _mm512_add_pd((v), _mm512_abs_pd(x))

/* Lane r = the sum of v[r]'s lanes, added in nb_hsum8d's order (lanes k and k + 4, then k + 2, then
 * k + 1): pairs of vectors are folded by 256-bit, then 128-bit halves, then unpacked. Taking v in the
 * order 0 2 4 6 | 1 3 5 7 leaves the sums in order. */
static inline __m512d nb_hsum8x8(const __m512d* v) {
    static const int ord[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    __m512d b[4];
    for (int k = 0; k < 4; k++) {
        const __m512d x = v[ord[2 * k]], y = v[ord[2 * k + 1]];
        b[k] = _mm512_add_pd(_mm512_shuffle_f64x2(x, y, 0x44), _mm512_shuffle_f64x2(x, y, 0xEE));
    }
    const __m512d c0 = _mm512_add_pd(_mm512_shuffle_f64x2(b[0], b[1], 0x88), _mm512_shuffle_f64x2(b[0], b[1], 0xDD));
    const __m512d c1 = _mm512_add_pd(_mm512_shuffle_f64x2(b[2], b[3], 0x88), _mm512_shuffle_f64x2(b[2], b[3], 0xDD));
    return _mm512_add_pd(_mm512_unpacklo_pd(c0, c1), _mm512_unpackhi_pd(c0, c1));
}

#define NORM_ROWS512(NAME, T, TAG, STEP)                                                                \
    static inline __m512d NAME##_lanes(const T* p, int64_t nv, __mmask8 tail) {                        \
        __m512d v = _mm512_setzero_pd();                                                               \
        for (int64_t i = 0; i < nv; i += 8) v = STEP(v, LD8_##TAG(p + i));                             \
        return tail ? STEP(v, LD8Z_##TAG(tail, p + nv)) : v;                                           \
    }                                                                                                  \
    /* Runs up to 32 long: NAME##_lanes on eight of them interleaved (8 chains of adds, not 2 or 4). */ \
    static void NAME##_short(double* a, int64_t m, const char* x, int64_t nv, __mmask8 tail, int64_t sj) { \
        for (int64_t j = 0; j + 8 <= m; j += 8) {                                                      \
            const T* r[8];                                                                             \
            __m512d v[8];                                                                              \
            for (int k = 0; k < 8; k++) r[k] = (const T*)(x + (j + k) * sj), v[k] = _mm512_setzero_pd(); \
            for (int64_t i = 0; i < nv; i += 8)                                                        \
                for (int k = 0; k < 8; k++) v[k] = STEP(v[k], LD8_##TAG(r[k] + i));                   \
            if (tail)                                                                                  \
                for (int k = 0; k < 8; k++) v[k] = STEP(v[k], LD8Z_##TAG(tail, r[k] + nv));            \
            _mm512_storeu_pd(a + j, _mm512_add_pd(_mm512_loadu_pd(a + j), nb_hsum8x8(v)));             \
        }                                                                                              \
    }                                                                                                  \
    /* Longer runs one after the other, in memory order (streams best from DRAM). */                  \
    static void NAME##_long(double* a, int64_t m, const char* x, int64_t nv, __mmask8 tail, int64_t sj) { \
        for (int64_t j = 0; j + 8 <= m; j += 8) {                                                      \
            __m512d v[8];                                                                              \
            for (int k = 0; k < 8; k++) v[k] = NAME##_lanes((const T*)(x + (j + k) * sj), nv, tail);   \
            _mm512_storeu_pd(a + j, _mm512_add_pd(_mm512_loadu_pd(a + j), nb_hsum8x8(v)));             \
        }                                                                                              \
    }                                                                                                  \
    static void NAME(double* a, int64_t m, const char* x, int64_t n, int64_t sj) {                     \
        const int64_t nv = n - n % 8;                                                                  \
        const __mmask8 tail = (__mmask8)((1u << (n % 8)) - 1);                                         \
        (n <= 32 ? NAME##_short : NAME##_long)(a, m, x, nv, tail, sj);                                 \
        for (int64_t j = m - m % 8; j < m; j++) {                                                      \
            const __m512d v = NAME##_lanes((const T*)(x + j * sj), nv, tail);                          \
            nb_v8d s;                                                                                  \
            memcpy(&s, &v, sizeof s);                                                                  \
            a[j] += nb_hsum8d(&s);                                                                     \
        }                                                                                              \
    }
NORM_ROWS512(n1_rows_f32_avx512, float, f32, ABS8)
NORM_ROWS512(n2_rows_f32_avx512, float, f32, SQ8)
NORM_ROWS512(n1_rows_f64_avx512, double, f64, ABS8)
NORM_ROWS512(n2_rows_f64_avx512, double, f64, SQ8)
#pragma GCC pop_options

/* ROWS(a, m, x, n, si, sj): the rows path where it applies (true), else false for the kernel's loops. */
#define NORM_ROWS(NAME, T)                                                                              \
    static bool NAME(double* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) {         \
        if (si != (int64_t)sizeof(T) || n >= NORM_SHORT || (m > 1 && llabs(sj) < llabs(si)) || !nb_red_avx512()) \
            return false;                                                                              \
        NAME##_avx512(a, m, x, n, sj);                                                                 \
        return true;                                                                                   \
    }
NORM_ROWS(n1_rows_f32, float)
NORM_ROWS(n2_rows_f32, float)
NORM_ROWS(n1_rows_f64, double)
NORM_ROWS(n2_rows_f64, double)
#else
#define n1_rows_f32 NO_ROWS
#define n2_rows_f32 NO_ROWS
#define n1_rows_f64 NO_ROWS
#define n2_rows_f64 NO_ROWS
#endif
#define NO_ROWS(a, m, x, n, si, sj) false

/* Every norm's results: the root of the sum for p = 2, its 1/p-th power for other p; contiguous
 * float32, float64 and bfloat16 results in loops that vectorise, 256 roots at a time (a scalar root
 * and store per output cost as much as summing a short row). */
NB_SIMD static void norm_finish(const void* acc, int64_t m, char* const* out, const int64_t* os,
                                const nb_red_ctx* c) {
    const double* a = acc;
    const bool root = c->variant == N_TWO;
    for (int64_t j0 = 0; j0 < m; j0 += 256) {
        const int64_t nj = m - j0 < 256 ? m - j0 : 256;
        double r[256];
        if (root) for (int64_t j = 0; j < nj; j++) r[j] = sqrt(a[j0 + j]);
        if (c->variant == N_P ||
            !nb_red_store_run_f(out[0] + j0 * os[0], os[0], c->out_dtype[0], root ? r : a + j0, nj, 1.0))
            for (int64_t j = j0; j < j0 + nj; j++) STORE_NORM(out[0] + j * os[0], a[j]);
    }
}

/* A norm kernel: SCALAR_KERNEL's loops (NAME##_base) behind the rows path ROWS, and norm_finish. */
#define NORM_KERNEL(NAME, T, INITV, RUN, STEP, MERGE, ROWS)                                             \
    SCALAR_KERNEL(NAME##_base, T, double, INITV, RUN, STEP, MERGE, STORE_NORM)                         \
    static void NAME##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj,   \
                             int64_t idx0, const nb_red_ctx* c) {                                      \
        if (!ROWS((double*)acc, m, x, n, si, sj)) NAME##_base.accum(acc, m, x, n, si, sj, idx0, c);    \
    }                                                                                                  \
    static const nb_red_kernel NAME = {sizeof(double), false, NAME##_base_init, NAME##_accum,          \
                                       NAME##_base_merge, norm_finish};

#define NORM_KERNELS(T, TAG, CODE, ...)                                                                 \
    STEP_RUN(n0_run_##TAG, T, double, ADD_NZ)                                                          \
    STEP_RUN(ninf_run_##TAG, T, double, MAX_ABS)                                                       \
    STEP_RUN(nninf_run_##TAG, T, double, MIN_ABS)                                                      \
    NORM_KERNEL(norm0_##TAG, T, 0.0, n0_run_##TAG, ADD_NZ, MERGE_ADD, NO_ROWS)                         \
    NORM_KERNEL(norm1_##TAG, T, 0.0, n1_run_##TAG, ADD_ABS, MERGE_ADD, n1_rows_##TAG)                  \
    NORM_KERNEL(norm2_##TAG, T, 0.0, n2_run_##TAG, ADD_SQ, MERGE_ADD, n2_rows_##TAG)                   \
    NORM_KERNEL(norminf_##TAG, T, 0.0, ninf_run_##TAG, MAX_ABS, MAX_ABS, NO_ROWS)                      \
    NORM_KERNEL(normninf_##TAG, T, INFINITY, nninf_run_##TAG, MIN_ABS, MIN_ABS, NO_ROWS)

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
NORM_KERNEL(normp_f32, float, 0.0, np_run_f32, ADD_POW, MERGE_ADD, NO_ROWS)
NORM_KERNEL(normp_f64, double, 0.0, np_run_f64, ADD_POW, MERGE_ADD, NO_ROWS)

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

/* float64 runs: the sum of exp(x - max) with vecmath_avx512.h's nb_exp8 (at most 1 ulp) in four chains
 * of double lanes, the tail padded with -inf (exp gives 0); libm's exp one element at a time elsewhere.
 * float64 columns: the same exp over 8 columns at a time, a chain of adds per column. */
#if NB_RED_HAVE_AVX512
#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")
#define NB_VM_NO_ARRAYS
#include "vecmath_avx512.h"
static double lse_expsum_f64_avx512(const double* p, int64_t n, double mx) {
    const __m512d m = _mm512_set1_pd(mx);
    __m512d s[4];
    for (int k = 0; k < 4; k++) s[k] = _mm512_setzero_pd();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++)
            s[k] = _mm512_add_pd(s[k], nb_exp8(_mm512_sub_pd(_mm512_loadu_pd(p + i + 8 * k), m)));
    for (; i + 8 <= n; i += 8) s[0] = _mm512_add_pd(s[0], nb_exp8(_mm512_sub_pd(_mm512_loadu_pd(p + i), m)));
    if (i < n) {
        const __m512d x = _mm512_mask_loadu_pd(_mm512_set1_pd(-INFINITY), (__mmask8)((1u << (n - i)) - 1), p + i);
        s[1] = _mm512_add_pd(s[1], nb_exp8(_mm512_sub_pd(x, m)));
    }
    const __m512d t = _mm512_add_pd(_mm512_add_pd(s[0], s[1]), _mm512_add_pd(s[2], s[3]));
    nb_v8d v;
    memcpy(&v, &t, sizeof v);
    return nb_hsum8d(&v);
}
static void lse_colsum_f64_avx512(double* sd, const double* mx, const char* x, int64_t n, int64_t si) {
    const __m512d m = _mm512_loadu_pd(mx);
    __m512d s = _mm512_setzero_pd();
    for (int64_t i = 0; i < n; i++)
        s = _mm512_add_pd(s, nb_exp8(_mm512_sub_pd(_mm512_loadu_pd((const double*)(x + i * si)), m)));
    _mm512_storeu_pd(sd, s);
}

/* float32 runs shorter than LSE_SHORT, eight at a time, with lse_run_f32's arithmetic (so its results):
 * a run's max (NaN found by unordered compares), exp(x - max) summed in one block of float lanes, the
 * tail padded with -inf; the block widened to double and the eight runs' lanes added by nb_hsum8x8 as
 * nb_hsum8d adds one run's. Per run, a horizontal max and sum cost more than the run's exps. */
#define LSE_SHORT 128
static inline __m512d lse_lanes_f32_avx512(const float* p, int64_t n, float* mx) {
    const __mmask16 tail = (__mmask16)((1u << (n % 16)) - 1);
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const int64_t nv = n - n % 16;
    __m512 vm = ninf;
    __mmask16 nan = 0;
    for (int64_t i = 0; i < nv; i += 16) {
        const __m512 x = _mm512_loadu_ps(p + i);
        vm = _mm512_max_ps(x, vm), nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    }
    const __m512 xt = _mm512_mask_loadu_ps(ninf, tail, p + nv);
    vm = _mm512_max_ps(xt, vm), nan |= _mm512_cmp_ps_mask(xt, xt, _CMP_UNORD_Q);
    *mx = nan ? NAN : _mm512_reduce_max_ps(vm);
    const nb_v16f m = (nb_v16f){0} + *mx;
    nb_v16f blk = {0};
    for (int64_t i = 0; i < nv; i += 16) {
        const nb_v16f d = nb_ld16f(p + i) - m;
        blk += nb_vexp16(&d);
    }
    if (tail) {
        const nb_v16f d = (nb_v16f)xt - m;
        blk += nb_vexp16(&d);
    }
    const __m512 b = (__m512)blk;
    return _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(b)),
                         _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(b), 1))));
}
static void lse_rows_f32_avx512(lse_acc* a, int64_t m, const char* x, int64_t n, int64_t sj) {
    for (int64_t j = 0; j + 8 <= m; j += 8) {
        float mx[8];
        __m512d v[8];
        for (int k = 0; k < 8; k++) v[k] = lse_lanes_f32_avx512((const float*)(x + (j + k) * sj), n, &mx[k]);
        double s[8];
        _mm512_storeu_pd(s, nb_hsum8x8(v));
        for (int k = 0; k < 8; k++) lse_fold(&a[j + k], mx[k], s[k]);
    }
}
#pragma GCC pop_options
/* Rows done by the AVX-512 path (a multiple of 8; 0: none). */
NB_INLINE int64_t lse_rows_f32(lse_acc* a, int64_t m, const char* x, int64_t n, int64_t sj) {
    if (n >= LSE_SHORT || m < 8 || !nb_red_avx512()) return 0;
    lse_rows_f32_avx512(a, m, x, n, sj);
    return m - m % 8;
}
#else
#define lse_colsum_f64_avx512(sd, mx, x, n, si) ((void)0)
#define lse_rows_f32(a, m, x, n, sj) ((int64_t)0)
#endif
#define lse_rows_f64(a, m, x, n, sj) ((int64_t)0)
NB_INLINE double lse_expsum_f64(const double* p, int64_t n, double mx) {
#if NB_RED_HAVE_AVX512
    if (nb_red_avx512()) return lse_expsum_f64_avx512(p, n, mx);
#endif
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += exp(p[i] - mx);
    return s;
}
NB_INLINE void lse_run_f64(lse_acc* a, const double* p, int64_t n) {
    const double mx = nb_max_run_f64(p, n, sizeof(double), -INFINITY);
    lse_fold(a, mx, isfinite(mx) ? lse_expsum_f64(p, n, mx) : 0.0);
}

/* float32 columns: exp(x - max) of 16 columns in float lanes, summed in float over 8 rows at a time and
 * in double across them (as the row case's blocks), into sd[0..16). */
NB_INLINE void lse_colsum_f32(double* sd, const float* mx, const char* x, int64_t n, int64_t si) {
    const nb_v16f vm = nb_ld16f(mx);
    nb_v8d lo = {0}, hi = {0};
    int64_t i = 0;
    while (i < n) {
        nb_v16f blk = {0};
        for (int k = 0; k < 8 && i < n; k++, i++) {
            const nb_v16f d = nb_ld16f((const float*)(x + i * si)) - vm;
            blk += nb_vexp16(&d);
        }
        lo += nb_widen_lo(&blk);
        hi += nb_widen_hi(&blk);
    }
    for (int k = 0; k < 8; k++) sd[k] = lo[k], sd[8 + k] = hi[k];
}

/* Columns (outputs contiguous; float64 on AVX-512 only): per 256 columns, the column max over the
 * block's rows, then COLSUM's sums of exp(x - max) for W columns at a time, libm's exp for the columns
 * left over. A column whose max is not finite gets its result from lse_fold alone. */
#define LSE_COLS 256
#define LSE_COLS_KERNEL(T, TAG, W, COLSUM, OK)                                                          \
    NB_INLINE bool lse_cols_##TAG(lse_acc* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) { \
        if (sj != (int64_t)sizeof(T) || m < (W) || !(OK)) return false;                                \
        for (int64_t j0 = 0; j0 < m; j0 += LSE_COLS) {                                                 \
            const int64_t mw = m - j0 < LSE_COLS ? m - j0 : LSE_COLS, mv = mw - mw % (W);              \
            const char* x0 = x + j0 * (int64_t)sizeof(T);                                              \
            T mx[LSE_COLS];                                                                            \
            double sd[LSE_COLS];                                                                       \
            for (int64_t j = 0; j < mw; j++) mx[j] = -INFINITY, sd[j] = 0;                             \
            for (int64_t i = 0; i < n; i++) {                                                          \
                const T* r = (const T*)(x0 + i * si);                                                  \
                for (int64_t j = 0; j < mw; j++) FMAX(mx[j], r[j]);                                    \
            }                                                                                          \
            for (int64_t j = 0; j < mv; j += (W)) COLSUM(sd + j, mx + j, x0 + j * (int64_t)sizeof(T), n, si); \
            for (int64_t j = mv; j < mw; j++)                                                          \
                if (isfinite(mx[j]))                                                                   \
                    for (int64_t i = 0; i < n; i++) sd[j] += exp((double)((const T*)(x0 + i * si))[j] - mx[j]); \
            for (int64_t j = 0; j < mw; j++) lse_fold(&a[j0 + j], mx[j], sd[j]);                       \
        }                                                                                              \
        return true;                                                                                   \
    }
LSE_COLS_KERNEL(float, f32, 16, lse_colsum_f32, true)
LSE_COLS_KERNEL(double, f64, 8, lse_colsum_f64_avx512, nb_red_avx512())

#define LSE_KERNEL(T, TAG, CODE, ...)                                                                   \
    NB_SIMD static void lse_##TAG##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si,  \
                                          int64_t sj, int64_t idx0, const nb_red_ctx* c) {             \
        (void)idx0, (void)c;                                                                           \
        lse_acc* a = acc;                                                                              \
        if (m == 1 || llabs(si) <= llabs(sj)) {                                                        \
            for (int64_t j = si == (int64_t)sizeof(T) ? lse_rows_##TAG(a, m, x, n, sj) : 0; j < m; j++) { \
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
