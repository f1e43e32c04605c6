/* reduce.c: sum, mean, prod, amax, amin, all, any over a set of dims.
 *
 * Accuracy: float32 sums add blocks of 128 elements pairwise in float (three
 * roundings per lane at most) and accumulate the block sums in double; float64
 * sums are pairwise (an iterative binary-counter tree over 256-element leaves),
 * as NumPy's. Column reductions (outputs contiguous) accumulate in double.
 * Integers accumulate in int64 (wrapping, as PyTorch). float16 / bfloat16 are
 * read as float32 (sum and mean by kernels of their own that convert as they
 * load) and every result is rounded once into its dtype.
 * NaN propagates through amax / amin. */
#include "reduce.h"

#include <math.h>

#pragma GCC diagnostic ignored "-Wtype-limits"

enum { V_SUM = 0, V_MEAN = 1 };

#define ADD(v, e) ((v) += (e))
#define MUL(v, e) ((v) *= (e))
#define IMUL(v, e) ((v) = (int64_t)((uint64_t)(v) * (uint64_t)(int64_t)(e)))
#define IMAX(v, e) do { if ((e) > (v)) (v) = (e); } while (0)
#define IMIN(v, e) do { if ((e) < (v)) (v) = (e); } while (0)
#define AND(v, e) ((v) &= (uint8_t)((e) != 0))
#define OR(v, e) ((v) |= (uint8_t)((e) != 0))

#define STORE_F(p, v) \
    nb_red_store_f((p), c->out_dtype[0], c->variant == V_MEAN ? (double)(v) / (double)c->count : (double)(v))
#define STORE_I(p, v) nb_red_store_i((p), c->out_dtype[0], (int64_t)(v))
#define STORE_X(p, v) nb_red_store_f((p), c->out_dtype[0], (double)(v))

/* ---- sums ---- */

/* float32 (and float16 / bfloat16, read through LD16 and CV): blocks of 128 summed pairwise in
 * float lanes, and the last partial block's chunks of 16 pairwise too, block sums in double lanes.
 * NAME##_vec writes the lanes of the vector part of a contiguous run and returns where its scalar
 * tail starts (AVX512: the same arithmetic through AVX-512 loads and widening, equal bit for bit);
 * NAME adds lanes and tail to v. */
#define SUM_F32_LANES(NAME, T, LD16, CV, AVX512)                                                        \
    NB_INLINE int64_t NAME##_portable(const T* p, int64_t n, nb_v8d* lanes) {                          \
        nb_v8d acc = {0};                                                                              \
        int64_t i = 0;                                                                                 \
        for (; i + 128 <= n; i += 128) {                                                               \
            const T* q = p + i;                                                                        \
            nb_v16f a0 = LD16(q) + LD16(q + 16), a1 = LD16(q + 32) + LD16(q + 48);                     \
            nb_v16f a2 = LD16(q + 64) + LD16(q + 80), a3 = LD16(q + 96) + LD16(q + 112);               \
            const nb_v16f b = (a0 + a1) + (a2 + a3);                                                   \
            acc += nb_widen_sum(&b);                                                                   \
        }                                                                                              \
        const int64_t c = (n - i) >> 4; /* chunks of 16 in the partial block */                       \
        if (c > 0) {                                                                                   \
            const T* q = p + i;                                                                        \
            nb_v16f b = LD16(q);                                                                       \
            if (c >= 2) b += LD16(q + 16);                                                             \
            if (c >= 3) {                                                                              \
                nb_v16f d = LD16(q + 32);                                                              \
                if (c >= 4) d += LD16(q + 48);                                                         \
                b += d;                                                                                \
            }                                                                                          \
            if (c >= 5) {                                                                              \
                nb_v16f e = LD16(q + 64);                                                              \
                if (c >= 6) e += LD16(q + 80);                                                         \
                if (c >= 7) e += LD16(q + 96);                                                         \
                b += e;                                                                                \
            }                                                                                          \
            acc += nb_widen_sum(&b);                                                                   \
            i += c << 4;                                                                               \
        }                                                                                              \
        *lanes = acc;                                                                                  \
        return i;                                                                                      \
    }                                                                                                  \
    NB_INLINE int64_t NAME##_vec(const T* p, int64_t n, nb_v8d* lanes) {                               \
        if (n < 16 || !nb_red_avx512()) return NAME##_portable(p, n, lanes);                           \
        return AVX512(p, n, (double*)lanes);                                                           \
    }                                                                                                  \
    NB_INLINE double NAME(const T* p, int64_t n, int64_t s, double v) {                                \
        if (s != (int64_t)sizeof(T)) {                                                                 \
            for (int64_t i = 0; i < n; i++) v += CV(*(const T*)((const char*)p + i * s));              \
            return v;                                                                                  \
        }                                                                                              \
        nb_v8d acc;                                                                                    \
        int64_t i = NAME##_vec(p, n, &acc);                                                            \
        double r = nb_hsum8d(&acc);                                                                    \
        for (; i < n; i++) r += CV(p[i]);                                                              \
        return v + r;                                                                                  \
    }
#define NB_AS_IS(x) (x)
SUM_F32_LANES(sum_f32_run, float, nb_ld16f, NB_AS_IS, nb_sum_lanes_f32_avx512)

/* Short contiguous rows (a row tile of m >= 8 outputs, runs of at most ROWS_MAX): eight rows at a
 * time, their lanes (VEC) folded by one transpose tree (FOLD8) instead of eight horizontal folds,
 * then each row's scalar tail (STEP) and the fold into its accumulator (MERGE): a row's result has
 * the bits RUN gives it alone. Rows past the last group of eight go through RUN. */
#define ROWS_MAX 512
#define ROWS8(NAME, T, VEC, RUN, FOLD8, STEP, MERGE)                                                    \
    NB_INLINE bool NAME(double* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) {      \
        if (si != (int64_t)sizeof(T) || m < 8 || n > ROWS_MAX) return false;                           \
        int64_t j = 0;                                                                                 \
        for (; j + 8 <= m; j += 8) {                                                                   \
            nb_v8d lanes[8];                                                                           \
            double f[8];                                                                               \
            int64_t done = 0;                                                                          \
            for (int r = 0; r < 8; r++) done = VEC((const T*)(x + (j + r) * sj), n, &lanes[r]);        \
            FOLD8(lanes, f);                                                                           \
            for (int r = 0; r < 8; r++) {                                                              \
                const T* p = (const T*)(x + (j + r) * sj);                                             \
                double v = f[r];                                                                       \
                for (int64_t i = done; i < n; i++) { const T e = p[i]; STEP(v, e); }                   \
                MERGE(a[j + r], v);                                                                    \
            }                                                                                          \
        }                                                                                              \
        for (; j < m; j++) a[j] = RUN((const T*)(x + j * sj), n, si, a[j]);                            \
        return true;                                                                                   \
    }

/* float64: pairwise over 256-element leaves, combined by a binary counter (no recursion). */
NB_INLINE double sum_f64_leaf(const double* p, int64_t n) {
    nb_v8d a = {0}, b = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) { a += nb_ld8d(p + i); b += nb_ld8d(p + i + 8); }
    a += b;
    double r = nb_hsum8d(&a);
    for (; i < n; i++) r += p[i];
    return r;
}

NB_INLINE double sum_f64_run(const double* p, int64_t n, int64_t s, double v) {
    if (s != (int64_t)sizeof(double)) {
        for (int64_t i = 0; i < n; i++) v += *(const double*)((const char*)p + i * s);
        return v;
    }
    double stack[64];
    int top = 0;
    uint64_t blocks = 0;
    for (int64_t i = 0; i < n; i += 256) {
        double r = sum_f64_leaf(p + i, n - i < 256 ? n - i : 256);
        for (uint64_t k = blocks++; k & 1; k >>= 1) r = stack[--top] + r;
        stack[top++] = r;
    }
    double r = 0;
    while (top > 0) r = stack[--top] + r;
    return v + r;
}

/* Columns of a contiguous [n, m] block with m < 16 (an outer-dim sum with few
 * outputs): the flat data is summed in lanes of period P = lcm(m, W), so lane
 * l of super-row offset o belongs to column o % m. float32 lanes are flushed
 * into double every 8 super-rows. */
#define SUM_COLS_SMALL(NAME, T, VT, W, LD, FLUSH, CV)                                                        \
    NB_INLINE bool NAME(double* a, int64_t m, const char* xb, int64_t n, int64_t si, int64_t sj) {     \
        if (m >= 16 || sj != (int64_t)sizeof(T) || si != m * (int64_t)sizeof(T) || n * m < 256) return false; \
        const T* x = (const T*)xb;                                                                     \
        int64_t g = (W), r = m;                                                                        \
        while (r) { int64_t q = g % r; g = r; r = q; }                                                 \
        const int64_t P = (W) / g * m, nv = P / (W), total = n * m; /* nv = m / g < 16 */              \
        nb_v8d acc[32];                                                                                \
        memset(acc, 0, sizeof acc);                                                                    \
        int64_t i = 0;                                                                                 \
        while (i + P <= total) {                                                                       \
            VT f[16];                                                                                  \
            for (int64_t v = 0; v < nv; v++) f[v] = LD(x + i + (W) * v);                               \
            i += P;                                                                                    \
            for (int rows = 1; rows < 8 && i + P <= total; rows++, i += P)                             \
                for (int64_t v = 0; v < nv; v++) f[v] += LD(x + i + (W) * v);                          \
            for (int64_t v = 0; v < nv; v++) FLUSH(acc, v, f[v]);                                      \
        }                                                                                              \
        for (int64_t v = 0; v < nv; v++)                                                               \
            for (int k = 0; k < (W); k++) a[((W) * v + k) % m] += acc[((W) / 8) * v + k / 8][k % 8];  \
        for (int64_t k = 0; i < total; i++, k++) a[k % m] += CV(x[i]);                                 \
        return true;                                                                                   \
    }
#define FLUSH_F32(acc, v, f)                                                                          \
    do {                                                                                               \
        const nb_v16f f_ = (f);                                                                        \
        acc[2 * (v)] += nb_widen_lo(&f_);                                                              \
        acc[2 * (v) + 1] += nb_widen_hi(&f_);                                                          \
    } while (0)
#define FLUSH_F64(acc, v, f) (acc[(v)] += (f))
SUM_COLS_SMALL(sum_cols_small_f32, float, nb_v16f, 16, nb_ld16f, FLUSH_F32, NB_AS_IS)
SUM_COLS_SMALL(sum_cols_small_f64, double, nb_v8d, 8, nb_ld8d, FLUSH_F64, NB_AS_IS)

/* 16 contiguous float32 columns down n rows (rows s floats apart): SUM_COLS's arithmetic, in the
 * same order, with the 16 double sums held in two registers instead of memory. */
NB_INLINE void sum_cols16_f32(double* a, const float* x, int64_t n, int64_t s) {
    nb_v8d lo = nb_ld8d(a), hi = nb_ld8d(a + 8);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float* r = x + i * s;
        const nb_v16f g = (nb_ld16f(r) + nb_ld16f(r + s)) + (nb_ld16f(r + 2 * s) + nb_ld16f(r + 3 * s));
        lo += nb_widen_lo(&g), hi += nb_widen_hi(&g);
    }
    for (; i < n; i++) {
        const nb_v16f g = nb_ld16f(x + i * s);
        lo += nb_widen_lo(&g), hi += nb_widen_hi(&g);
    }
    memcpy(a, &lo, sizeof lo);
    memcpy(a + 8, &hi, sizeof hi);
}

/* Contiguous columns (m >= 16): rows are added four at a time, pairwise in the
 * input type, and the group sums accumulate in double (float32: one widening
 * per four elements instead of one per element). */
#define SUM_COLS(NAME, T, SMALL)                                                                        \
    NB_INLINE bool NAME(double* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) {      \
        if (SMALL(a, m, x, n, si, sj)) return true;                                                    \
        if (sj != (int64_t)sizeof(T) || m < 16) return false;                                          \
        int64_t i = 0;                                                                                 \
        if (m == 16 && sizeof(T) == 4) { /* a dim of 16 after the reduced one: kept in registers */   \
            sum_cols16_f32(a, (const float*)(const void*)x, n, si / (int64_t)sizeof(T));               \
            return true;                                                                               \
        }                                                                                              \
        for (; i + 4 <= n; i += 4) {                                                                   \
            const T* r0 = (const T*)(x + i * si);                                                      \
            const T* r1 = (const T*)(x + (i + 1) * si);                                                \
            const T* r2 = (const T*)(x + (i + 2) * si);                                                \
            const T* r3 = (const T*)(x + (i + 3) * si);                                                \
            for (int64_t j = 0; j < m; j++) a[j] += (double)((r0[j] + r1[j]) + (r2[j] + r3[j]));       \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            const T* r = (const T*)(x + i * si);                                                       \
            for (int64_t j = 0; j < m; j++) a[j] += (double)r[j];                                      \
        }                                                                                              \
        return true;                                                                                   \
    }
SUM_COLS(sum_cols_f32, float, sum_cols_small_f32)
SUM_COLS(sum_cols_f64, double, sum_cols_small_f64)

STEP_RUN(sum_i_run_i8, int8_t, int64_t, ADD)
STEP_RUN(sum_i_run_i16, int16_t, int64_t, ADD)
STEP_RUN(sum_i_run_i32, int32_t, int64_t, ADD)
STEP_RUN(sum_i_run_i64, int64_t, int64_t, ADD)
STEP_RUN(sum_i_run_u8, uint8_t, int64_t, ADD)
STEP_RUN(sum_i_run_b8, uint8_t, int64_t, ADD)

#define DADD(v, e) ((v) += (double)(e))
/* Sum and mean results as runs: mean divides in double, then rounds once (as STORE_F). */
#define SUM_FINISH(a, m, out, os, c) \
    nb_red_store_run_f((out)[0], (os)[0], (c)->out_dtype[0], (a), (m), (c)->variant == V_MEAN ? (double)(c)->count : 1.0)
ROWS8(sum_rows_f32, float, sum_f32_run_vec, sum_f32_run, nb_hsum8d_x8, DADD, ADD)
SCALAR_KERNEL_RC(sum_f32, float, double, 0.0, sum_f32_run, DADD, ADD, STORE_F, sum_rows_f32, sum_cols_f32,
                 SUM_FINISH)
SCALAR_KERNEL_X(sum_f64, double, double, 0.0, sum_f64_run, DADD, ADD, STORE_F, sum_cols_f64)

/* float16 / bfloat16 read as they are (the engine's widening copy skipped): the float32 run above
 * through a converting load, and contiguous columns eight rows at a time, added pairwise in float
 * lanes, into double accumulators. */
#define HALF_SUMS(TAG, LD16, CV)                                                                        \
    SUM_F32_LANES(sum_##TAG##_run, uint16_t, LD16, CV, nb_sum_lanes_##TAG##_avx512)                    \
    SUM_COLS_SMALL(sum_cols_small_##TAG, uint16_t, nb_v16f, 16, LD16, FLUSH_F32, CV)                   \
    NB_INLINE bool sum_cols_##TAG(double* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) { \
        if (sum_cols_small_##TAG(a, m, x, n, si, sj)) return true;                                     \
        if (sj != 2 || m < 16) return false;                                                           \
        int64_t i = 0;                                                                                 \
        for (; i + 8 <= n; i += 8) {                                                                   \
            const uint16_t* r[8];                                                                      \
            for (int k = 0; k < 8; k++) r[k] = (const uint16_t*)(x + (i + k) * si);                    \
            int64_t j = 0;                                                                             \
            if (nb_red_avx512())                                                                       \
                for (; j + 16 <= m; j += 16) nb_sum_cols8_##TAG##_avx512(a, r, j);                     \
            for (; j + 16 <= m; j += 16) {                                                             \
                const nb_v16f s = ((LD16(r[0] + j) + LD16(r[1] + j)) + (LD16(r[2] + j) + LD16(r[3] + j))) + \
                                  ((LD16(r[4] + j) + LD16(r[5] + j)) + (LD16(r[6] + j) + LD16(r[7] + j)));  \
                nb_v8d lo = nb_ld8d(a + j) + nb_widen_lo(&s), hi = nb_ld8d(a + j + 8) + nb_widen_hi(&s); \
                memcpy(a + j, &lo, sizeof lo);                                                         \
                memcpy(a + j + 8, &hi, sizeof hi);                                                     \
            }                                                                                          \
            for (; j < m; j++)                                                                         \
                a[j] += (double)(((CV(r[0][j]) + CV(r[1][j])) + (CV(r[2][j]) + CV(r[3][j]))) +         \
                                 ((CV(r[4][j]) + CV(r[5][j])) + (CV(r[6][j]) + CV(r[7][j]))));         \
        }                                                                                              \
        for (; i < n; i++) {                                                                           \
            const uint16_t* r = (const uint16_t*)(x + i * si);                                         \
            for (int64_t j = 0; j < m; j++) a[j] += (double)CV(r[j]);                                  \
        }                                                                                              \
        return true;                                                                                   \
    }
HALF_SUMS(bf16, nb_ld16bf, nb_bf16f)
HALF_SUMS(f16, nb_ld16hf, nb_f16f)
#define BF16ADD(v, e) ((v) += (double)nb_bf16f(e))
#define F16ADD(v, e) ((v) += (double)nb_f16f(e))
ROWS8(sum_rows_bf16, uint16_t, sum_bf16_run_vec, sum_bf16_run, nb_hsum8d_x8, BF16ADD, ADD)
ROWS8(sum_rows_f16, uint16_t, sum_f16_run_vec, sum_f16_run, nb_hsum8d_x8, F16ADD, ADD)
SCALAR_KERNEL_RC(sum_bf16, uint16_t, double, 0.0, sum_bf16_run, BF16ADD, ADD, STORE_F, sum_rows_bf16, sum_cols_bf16,
                 SUM_FINISH)
SCALAR_KERNEL_RC(sum_f16, uint16_t, double, 0.0, sum_f16_run, F16ADD, ADD, STORE_F, sum_rows_f16, sum_cols_f16,
                 SUM_FINISH)
#define SUM_INT(T, TAG, CODE, ...) SCALAR_KERNEL(sum_##TAG, T, int64_t, 0, sum_i_run_##TAG, ADD, ADD, STORE_I)
NB_RED_INTS(SUM_INT)

/* ---- products (float in double, integers wrapping in int64) ---- */

#define PROD_RUNS(T, TAG, CODE, ...) STEP_RUN(prod_run_##TAG, T, int64_t, IMUL)
NB_RED_INTS(PROD_RUNS)
/* Contiguous float products: 16 double lanes, multiplied together at the end. */
#define PROD_LANES(NAME, T, LD8)                                                                        \
    NB_INLINE double NAME(const T* p, int64_t n, int64_t s, double v) {                                \
        int64_t i = 0;                                                                                 \
        if (s == (int64_t)sizeof(T)) {                                                                 \
            nb_v8d a = (nb_v8d){0} + 1.0, b = a;                                                       \
            for (; i + 16 <= n; i += 16) { a *= LD8(p + i); b *= LD8(p + i + 8); }                      \
            a *= b;                                                                                    \
            v *= ((a[0] * a[4]) * (a[2] * a[6])) * ((a[1] * a[5]) * (a[3] * a[7]));                    \
            for (; i < n; i++) v *= p[i];                                                              \
            return v;                                                                                  \
        }                                                                                              \
        for (; i < n; i++) v *= *(const T*)((const char*)p + i * s);                                   \
        return v;                                                                                      \
    }
PROD_LANES(prod_run_f64, double, nb_ld8d)
/* Contiguous float32 products: the 8 double lanes of a run's vector part (AVX-512 CPUs: eight
 * accumulators of 256-bit widened floats; else two of 8 lanes), multiplied in nb_hmul8d's order,
 * then the tail. */
NB_INLINE int64_t prod_f32_vec(const float* p, int64_t n, nb_v8d* lanes) {
    if (n >= 32 && nb_red_avx512()) return nb_prod_lanes_f32_avx512(p, n, (double*)lanes);
    nb_v8d a = (nb_v8d){0} + 1.0, b = a;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) { a *= nb_ld8f_wide(p + i); b *= nb_ld8f_wide(p + i + 8); }
    *lanes = a * b;
    return i;
}
NB_INLINE double prod_run_f32(const float* p, int64_t n, int64_t s, double v) {
    if (s != (int64_t)sizeof(float)) {
        for (int64_t i = 0; i < n; i++) v *= *(const float*)((const char*)p + i * s);
        return v;
    }
    nb_v8d lanes;
    int64_t i = prod_f32_vec(p, n, &lanes);
    double r = nb_hmul8d(&lanes);
    for (; i < n; i++) r *= p[i];
    return v * r;
}
ROWS8(prod_rows_f32, float, prod_f32_vec, prod_run_f32, nb_hmul8d_x8, MUL, MUL)
/* Contiguous float32 columns on AVX-512 CPUs: kept in registers down the rows (the generic loop
 * loads and stores each accumulator per row, and GCC widens its generic vectors 2 floats at a
 * time), each column multiplied in row order as the generic loop, so the same bits. */
NB_INLINE bool prod_cols_f32(double* a, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj) {
    if (sj != (int64_t)sizeof(float) || m < 4 || si % (int64_t)sizeof(float) || !nb_red_avx512()) return false;
    const float* xf = (const float*)x;
    const int64_t j = nb_prod_cols_f32_avx512(a, m, xf, n, si / (int64_t)sizeof(float));
    for (int64_t k = j; k < m; k++) {
        double v = a[k];
        for (int64_t i = 0; i < n; i++) v *= (double)xf[i * (si / (int64_t)sizeof(float)) + k];
        a[k] = v;
    }
    return true;
}
SCALAR_KERNEL_RC(prod_f32, float, double, 1.0, prod_run_f32, MUL, MUL, STORE_X, prod_rows_f32, prod_cols_f32,
                 NB_FINISH_RUN)
SCALAR_KERNEL_RC(prod_f64, double, double, 1.0, prod_run_f64, MUL, MUL, STORE_X, NB_NO_COLS, NB_NO_COLS,
                 NB_FINISH_RUN)
#define PROD_INT(T, TAG, CODE, ...) SCALAR_KERNEL(prod_##TAG, T, int64_t, 1, prod_run_##TAG, IMUL, IMUL, STORE_I)
NB_RED_INTS(PROD_INT)

/* ---- amax / amin ---- */

#define max_run_f32 nb_max_run_f32
#define min_run_f32 nb_min_run_f32
#define max_run_f64 nb_max_run_f64
#define min_run_f64 nb_min_run_f64
/* float32 max / min results as runs: copied into float32 outputs, rounded into bfloat16 ones (exact
 * for bfloat16 input, whose extremes are bfloat16 values). */
NB_INLINE bool ext_finish_f32(const float* a, int64_t m, char* const* out, const int64_t* os, const nb_red_ctx* c) {
    const int32_t dt = c->out_dtype[0];
    if (dt == NB_F32 && os[0] == 4) {
        memcpy(out[0], a, (size_t)m * sizeof(float));
        return true;
    }
    if (dt != NB_BF16 || os[0] != 2) return false;
    uint16_t* o = (uint16_t*)out[0];
    for (int64_t j = 0; j < m; j++) {
        uint32_t u;
        memcpy(&u, &a[j], sizeof u);
        o[j] = nb_bf16_of_bits(u);
    }
    return true;
}
SCALAR_KERNEL_RC(amax_f32, float, float, -INFINITY, max_run_f32, FMAX, FMAX, STORE_X, NB_NO_COLS, NB_NO_COLS,
                 ext_finish_f32)
SCALAR_KERNEL_RC(amin_f32, float, float, INFINITY, min_run_f32, FMIN, FMIN, STORE_X, NB_NO_COLS, NB_NO_COLS,
                 ext_finish_f32)
SCALAR_KERNEL(amax_f64, double, double, -INFINITY, max_run_f64, FMAX, FMAX, STORE_X)
SCALAR_KERNEL(amin_f64, double, double, INFINITY, min_run_f64, FMIN, FMIN, STORE_X)
#define TMIN(T) ((T)-1 < 0 ? (T)((uint64_t)1 << (sizeof(T) * 8 - 1)) : (T)0)
#define TMAX(T) ((T)-1 < 0 ? (T)(((uint64_t)1 << (sizeof(T) * 8 - 1)) - 1) : (T)-1)
#define EXT_INT(T, TAG, CODE, ...)                                                                      \
    STEP_RUN(max_run_##TAG, T, T, IMAX)                                                                \
    STEP_RUN(min_run_##TAG, T, T, IMIN)                                                                \
    SCALAR_KERNEL(amax_##TAG, T, T, TMIN(T), max_run_##TAG, IMAX, IMAX, STORE_I)                       \
    SCALAR_KERNEL(amin_##TAG, T, T, TMAX(T), min_run_##TAG, IMIN, IMIN, STORE_I)
NB_RED_INTS(EXT_INT)

/* ---- all / any (bool results; uint8 for uint8 input, as PyTorch) ---- */

#define LOGIC(T, TAG, CODE, ...)                                                                        \
    STEP_RUN(all_run_##TAG, T, uint8_t, AND)                                                           \
    STEP_RUN(any_run_##TAG, T, uint8_t, OR)                                                            \
    SCALAR_KERNEL(all_##TAG, T, uint8_t, 1, all_run_##TAG, AND, AND, STORE_I)                          \
    SCALAR_KERNEL(any_##TAG, T, uint8_t, 0, any_run_##TAG, OR, OR, STORE_I)
NB_RED_FLOATS(LOGIC)
NB_RED_INTS(LOGIC)

/* ---- kernel tables by input dtype ---- */

#define ENTRY(T, TAG, CODE, OP) [CODE] = &OP##_##TAG,
static const nb_red_kernel* const sum_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, sum) NB_RED_INTS(ENTRY, sum)};
static const nb_red_kernel* const prod_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, prod) NB_RED_INTS(ENTRY, prod)};
static const nb_red_kernel* const amax_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, amax) NB_RED_INTS(ENTRY, amax)};
static const nb_red_kernel* const amin_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, amin) NB_RED_INTS(ENTRY, amin)};
static const nb_red_kernel* const all_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, all) NB_RED_INTS(ENTRY, all)};
static const nb_red_kernel* const any_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY, any) NB_RED_INTS(ENTRY, any)};

/* float16 / bfloat16 are read as float32 (exactly). */
static int32_t widened(int32_t dtype) { return dtype == NB_F16 || dtype == NB_BF16 ? NB_F32 : dtype; }

const nb_red_kernel* nb_red_cpu_basic(int32_t op, int32_t dtype, nb_red_ctx* ctx) {
    ctx->variant = op == NB_RK_MEAN ? V_MEAN : V_SUM;
    switch (op) {
        case NB_RK_SUM: case NB_RK_MEAN: return sum_k[dtype];
        case NB_RK_PROD: return prod_k[dtype];
        case NB_RK_AMAX: return amax_k[dtype];
        case NB_RK_AMIN: return amin_k[dtype];
        case NB_RK_ALL: return all_k[dtype];
        case NB_RK_ANY: return any_k[dtype];
        default: return NULL;
    }
}

const nb_red_kernel* nb_red_cpu_half(int32_t op, int32_t dtype, nb_red_ctx* ctx) {
    if (op != NB_RK_SUM && op != NB_RK_MEAN) return NULL;
    ctx->variant = op == NB_RK_MEAN ? V_MEAN : V_SUM;
    return dtype == NB_BF16 ? &sum_bf16 : dtype == NB_F16 ? &sum_f16 : NULL;
}

/* ---- the ABI ---- */

/* sum, mean, prod: the result dtype is dtype, else out's dtype, else int64 for integers / bool. */
static nb_status sum_like(const char* op, int32_t rk, const nb_tensor* t,
                          const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst,
                          nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK || (st = nb_red_check_dtype(op, dtype)) != NB_OK) return st;
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dims, ndims, &mask)) != NB_OK) return st;
    if (rk == NB_RK_MEAN) {  /* PyTorch: a floating dtype or input; out= takes any dtype the input casts to */
        int32_t d = dtype >= 0 ? dtype : t->dtype;
        if (!nb_dtype_is_floating(d))
            return nb_error(NB_ERR_DTYPE, "mean(): could not infer output dtype. %s dtype must be either a floating "
                            "point or complex dtype. Got: %s", dtype >= 0 ? "Optional" : "Input",
                            nb_dtype_torch_name(d));
        if (dtype < 0 && dst != NULL && !nb_can_cast(t->dtype, dst->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                            nb_dtype_torch_name(t->dtype), nb_dtype_torch_name(dst->dtype));
    }
    if (dtype < 0 && dst != NULL) dtype = dst->dtype;
    int32_t result = dtype >= 0 ? dtype : nb_dtype_is_floating(t->dtype) ? t->dtype : NB_I64;
    int32_t in;
    if (nb_dtype_is_floating(result)) in = result == NB_F64 ? NB_F64 : NB_F32;
    else if (result == NB_BOOL) in = NB_BOOL;
    else in = nb_dtype_is_floating(t->dtype) ? result : t->dtype;
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 1,
                     .out_dtype = {result}, .dst = {dst}, .out = {out}, .op = rk};
    return nb_red_run(&c);
}

nb_status nbi_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                        nb_tensor* dst, nb_tensor** out) {
    return sum_like("sum", NB_RK_SUM, t, dims, ndims, keepdim, dtype, dst, out);
}

nb_status nbi_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                         nb_tensor* dst, nb_tensor** out) {
    return sum_like("mean", NB_RK_MEAN, t, dims, ndims, keepdim, dtype, dst, out);
}

nb_status nbi_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype,
                         nb_tensor* dst, nb_tensor** out) {
    return sum_like("prod", NB_RK_PROD, t, dims, ndims, keepdim, dtype, dst, out);
}

/* amax, amin, all, any: no dtype argument; the result keeps the input dtype (all / any: bool, or uint8). */
static nb_status same_type(const char* op, int32_t rk, bool logical, const nb_tensor* t,
                           const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_REDUCE);
    if (st != NB_OK) return st;
    uint32_t mask;
    if ((st = nb_red_dims(op, t, dims, ndims, &mask)) != NB_OK) return st;
    if (!logical && (st = nb_red_check_nonempty(op, t, mask, ndims == 0)) != NB_OK) return st;
    int32_t result = !logical ? t->dtype : t->dtype == NB_U8 ? NB_U8 : NB_BOOL;
    if (dst != NULL && logical && (dst->dtype == NB_U8 || dst->dtype == NB_BOOL)) {
        result = dst->dtype;  /* all / any write bool or uint8 out= tensors, whatever the input */
    } else if (dst != NULL && dst->dtype != result) {
        if (logical)
            return nb_error(NB_ERR_DTYPE, "%s only supports bool tensor for result, got: %s", op,
                            nb_dtype_torch_name(dst->dtype));
        return nb_error(NB_ERR_DTYPE, "%s: Expected the dtype for input and out to match, but got %s for input's "
                        "dtype and %s for out's dtype.", op, nb_dtype_torch_name(t->dtype),
                        nb_dtype_torch_name(dst->dtype));
    }
    int32_t in = widened(t->dtype);
    nb_red_call c = {.name = op, .t = t, .mask = mask, .keepdim = keepdim != 0, .in_dtype = in, .nout = 1,
                     .out_dtype = {result}, .dst = {dst}, .out = {out}, .op = rk};
    return nb_red_run(&c);
}

nb_status nbi_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                         nb_tensor** out) {
    return same_type("amax", NB_RK_AMAX, false, t, dims, ndims, keepdim, dst, out);
}

nb_status nbi_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                         nb_tensor** out) {
    return same_type("amin", NB_RK_AMIN, false, t, dims, ndims, keepdim, dst, out);
}

nb_status nbi_all(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                        nb_tensor** out) {
    return same_type("all", NB_RK_ALL, true, t, dims, ndims, keepdim, dst, out);
}

nb_status nbi_any(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst,
                        nb_tensor** out) {
    return same_type("any", NB_RK_ANY, true, t, dims, ndims, keepdim, dst, out);
}
