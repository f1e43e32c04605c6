/* softmax.c: softmax and log_softmax along one dim.
 *
 * The front end plans once and calls the lines slot (lines_engine.c); CUDA's
 * kernels are src/cuda/lines.cu. The CPU kernels below compute in float32
 * (float64 in float64) and read the input as [outer, L, inner]:
 *  - contiguous float32 / float64 as they are, contiguous float16 / bfloat16
 *    too (widened exactly: rows of up to 16 as they are loaded, longer rows
 *    and tiles into a per-thread float32 buffer) and rounded once as they
 *    are stored;
 *  - float16 / bfloat16 or strided float32 whose lines are the result's rows
 *    (a transposed input): lines gathered into float32 buffers (below);
 *  - anything else cast to float32 and made contiguous first.
 * A line is three passes: its max and the sum of exp(x - max), then the
 * line's factor (the log of the sum, or its reciprocal) rounded to float,
 * then the result (x - max) - factor or exp(x - max) * factor, the exps kept
 * from the second pass (in the float32 result, or the half types' buffer).
 * inner == 1: rows, their sums of 16 float lanes in double; work items are
 * blocks of rows, so short rows pay no call each. Otherwise tiles of up to
 * 256 inner positions are processed together, vectorised across the tile,
 * sums in float. A line's arithmetic never depends on the item, tile, group
 * or buffer it is in, so neither threads nor layouts change a result, and a
 * half type's result is the float32 result of its widened input, rounded.
 * x - max is NaN for a NaN element or a line of -inf: the sum and the line
 * then are NaN too. The exp is reduce.h's nb_vexp16 (about 1 ulp). */
#include "lines.h"
#include "vecmath.h" /* NB_VM_LN2HI / LO: fdlibm's split of ln 2 */
#include "../alloc/cpu_allocator.h"

#include <math.h>

#define TILE NB_LINES_TILE

/* ---- elements: float32, or float16 / bfloat16 widened exactly and rounded once on the way out ----
 * The dtype t is a constant wherever these are inlined (one kernel instance per dtype). */

NB_INLINE const void* at(const void* p, int64_t i, int32_t t) { return (const char*)p + i * (t == NB_F32 ? 4 : 2); }
NB_INLINE void* at_w(void* p, int64_t i, int32_t t) { return (char*)p + i * (t == NB_F32 ? 4 : 2); }

NB_INLINE nb_v16f ld16(const void* p, int32_t t) {
    if (t == NB_F32) return nb_ld16f(p);
    return t == NB_BF16 ? nb_ld16bf(p) : nb_ld16hf(p);
}

NB_INLINE float ld1(const void* p, int32_t t) {
    float f;
    uint16_t h;
    if (t == NB_F32) return memcpy(&f, p, sizeof f), f;
    memcpy(&h, p, sizeof h);
    return t == NB_BF16 ? nb_bf16f(h) : nb_f16f(h);
}

/* n < 16 elements, the other lanes `pad`. */
NB_INLINE nb_v16f ld_tail(const void* p, int64_t n, int32_t t, float pad) {
    if (t == NB_F32) return nb_ld16f_tail(p, n, pad);
    float b[16];
    for (int k = 0; k < 16; k++) b[k] = k < n ? ld1(at(p, k, t), t) : pad;
    return nb_ld16f(b);
}

/* bfloat16 rounded to nearest even, NaN kept quiet (nb_float_to_bf16's results), 16 lanes. */
NB_INLINE void st16bf(void* p, const nb_v16f* v) {
    const nb_v16u u = (nb_v16u)*v, r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const nb_v16i nan = *v != *v;
    const nb_v16u16 h =
        __builtin_convertvector((nb_v16u)(((nb_v16i)r & ~nan) | ((nb_v16i)((u >> 16) | 0x40u) & nan)), nb_v16u16);
    memcpy(p, &h, sizeof h);
}

/* float16 as nb_float_to_half: through _Float16 (F16C in the AVX2 / AVX-512 clones) where the compiler has it. */
NB_INLINE void st16hf(void* p, const nb_v16f* v) {
#ifdef __FLT16_MAX__
    const nb_v16hf h = __builtin_convertvector(*v, nb_v16hf);
    memcpy(p, &h, sizeof h);
#else
    uint16_t h[16];
    for (int k = 0; k < 16; k++) h[k] = nb_float_to_half((*v)[k]);
    memcpy(p, h, sizeof h);
#endif
}

NB_INLINE void st16(void* p, const nb_v16f* v, int32_t t) {
    if (t == NB_F32) nb_st16f(p, *v);
    else if (t == NB_BF16) st16bf(p, v);
    else st16hf(p, v);
}

/* The first n < 16 lanes of *v. */
NB_INLINE void st_tail(void* p, const nb_v16f* v, int64_t n, int32_t t) {
    if (t == NB_F32) {
        for (int64_t k = 0; k < n; k++) ((float*)p)[k] = (*v)[k];
        return;
    }
    uint16_t h[16];
    st16(h, v, t);
    memcpy(p, h, sizeof(uint16_t) * (size_t)n);
}

/* ---- the reductions of a line ----
 * Rows of up to 16 elements are one vector each; 16 such rows are done
 * together, their maxima and sums found by transposing trees (lane r of the
 * result belongs to row r), a few instructions a row instead of a chain of 4
 * steps each. The sums of a row's 16 lanes take the same tree alone or in a
 * group: ((w0 + w4) + (w2 + w6)) + ((w1 + w5) + (w3 + w7)), w the double sum
 * of the lower and upper 8 lanes (nb_hsum8d's order; as exact as a
 * sequential sum). NaN lanes never win the max (a NaN row is caught by x - max). */

#define VMAX(a, b) nb_sel16f((b) > (a), (b), (a))

/* The doubles of *v's lower and upper 8 lanes, added (nb_widen_sum's value):
 * converted as one 16-double vector, which GCC does in two 512-bit converts
 * (an 8-lane convert takes it four 128-bit ones and two inserts). */
typedef double v16d __attribute__((vector_size(128)));
NB_INLINE nb_v8d widen_sum(const nb_v16f* v) {
    const v16d d = __builtin_convertvector(*v, v16d);
    return __builtin_shufflevector(d, d, 0, 1, 2, 3, 4, 5, 6, 7) +
           __builtin_shufflevector(d, d, 8, 9, 10, 11, 12, 13, 14, 15);
}
#define UNROLL _Pragma("GCC unroll 16") /* the group's loops: registers, not arrays in memory */

/* The largest lane of *v. */
NB_INLINE float hmax16(const nb_v16f* v) {
    nb_v16f a = *v;
    a = VMAX(a, __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7));
    a = VMAX(a, __builtin_shufflevector(a, a, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11));
    a = VMAX(a, __builtin_shufflevector(a, a, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13));
    return a[1] > a[0] ? a[1] : a[0];
}

/* The sum of *v's lanes in double. */
NB_INLINE double hsum16(const nb_v16f* v) {
    nb_v8d w = widen_sum(v);
    w += __builtin_shufflevector(w, w, 4, 5, 6, 7, 0, 1, 2, 3);
    w += __builtin_shufflevector(w, w, 2, 3, 0, 1, 6, 7, 4, 5);
    return w[0] + w[1];
}

/* Lane r: the largest lane of v[r] (16 vectors), halves of pairs folded level by level. */
NB_INLINE nb_v16f tmax16(const nb_v16f* v) {
    nb_v16f u[8], t[4], s[2];
    UNROLL for (int i = 0; i < 8; i++) { /* rows 2i, 2i + 1: 8 lanes each */
        const nb_v16f a = v[2 * i], b = v[2 * i + 1];
        u[i] = VMAX(__builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23),
                    __builtin_shufflevector(a, b, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31));
    }
    UNROLL for (int i = 0; i < 4; i++) { /* 4 rows, 4 lanes each */
        const nb_v16f a = u[2 * i], b = u[2 * i + 1];
        t[i] = VMAX(__builtin_shufflevector(a, b, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27),
                    __builtin_shufflevector(a, b, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31));
    }
    UNROLL for (int i = 0; i < 2; i++) { /* 8 rows, 2 lanes each */
        const nb_v16f a = t[2 * i], b = t[2 * i + 1];
        s[i] = VMAX(__builtin_shufflevector(a, b, 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29),
                    __builtin_shufflevector(a, b, 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31));
    }
    return VMAX(__builtin_shufflevector(s[0], s[1], 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
                __builtin_shufflevector(s[0], s[1], 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31));
}

/* Rows 2i, 2i + 1 of a group: their widened sums w folded once (4 lanes each: w_k + w_k+4). */
NB_INLINE nb_v8d tsum_pair(const nb_v8d* a, const nb_v8d* b) {
    return __builtin_shufflevector(*a, *b, 0, 1, 2, 3, 8, 9, 10, 11) +
           __builtin_shufflevector(*a, *b, 4, 5, 6, 7, 12, 13, 14, 15);
}

/* The 16 rows' sums from the 8 pairs: lane r of s[0] (rows 0-7) and s[1] (rows 8-15). */
NB_INLINE void tsum_rest(const nb_v8d* p, nb_v8d* s) {
    nb_v8d q[4];
    UNROLL for (int i = 0; i < 4; i++) /* 4 rows, 2 lanes each */
        q[i] = __builtin_shufflevector(p[2 * i], p[2 * i + 1], 0, 1, 4, 5, 8, 9, 12, 13) +
               __builtin_shufflevector(p[2 * i], p[2 * i + 1], 2, 3, 6, 7, 10, 11, 14, 15);
    UNROLL for (int i = 0; i < 2; i++)
        s[i] = __builtin_shufflevector(q[2 * i], q[2 * i + 1], 0, 2, 4, 6, 8, 10, 12, 14) +
               __builtin_shufflevector(q[2 * i], q[2 * i + 1], 1, 3, 5, 7, 9, 11, 13, 15);
}

/* ---- the factors ---- */

/* log of 8 positive normal doubles (NaN stays NaN), branch-free so that 16
 * rows' logs are a few vector instructions: fdlibm's log (x = 2^k (1 + f),
 * 1 + f in [sqrt(1/2), sqrt(2)), s = f / (2 + f), log(1 + f) = f - f^2/2 +
 * s (f^2/2 + R(s^2)), R of degree 14) within 1 ulp, so its float rounding is
 * libm's but for doubles within an ulp of a tie. */
NB_INLINE nb_v8d vlog8(const nb_v8d* xp) {
    static const double lg[7] = {6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
                                 2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
                                 1.479819860511658591e-01};
    const nb_v8d x = *xp;
    const nb_v8l k = ((nb_v8l)x - 0x3fe6a09e667f3bcd) >> 52; /* the bits of sqrt(1/2) */
    const nb_v8d f = (nb_v8d)((nb_v8l)x - (k << 52)) - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
    const nb_v8d r = z * (lg[0] + w * (lg[2] + w * (lg[4] + w * lg[6]))) + w * (lg[1] + w * (lg[3] + w * lg[5]));
    const nb_v8d hfsq = 0.5 * f * f, dk = (nb_v8d)(k + 0x4338000000000000) - 0x1.8p52; /* k exactly */
    const nb_v8d y = dk * NB_VM_LN2HI - ((hfsq - (s * (hfsq + r) + dk * NB_VM_LN2LO)) - f);
    return nb_sel8d(x == x, y, x);
}

/* The factors of 8 rows from their sums: log(sum) or 1 / sum, rounded to float. */
NB_INLINE nb_v8f factors8(const nb_v8d* sum, bool logsm) {
    return __builtin_convertvector(logsm ? vlog8(sum) : 1.0 / *sum, nb_v8f);
}

/* One row's factor (the same value as in factors8). */
NB_INLINE float factor(double sum, bool logsm) {
    const nb_v8d s = (nb_v8d){0} + sum;
    return logsm ? factors8(&s, true)[0] : (float)(1.0 / sum);
}

/* ---- rows (inner == 1) ----
 * x rows `xp` elements apart, o rows `op` apart, both of dtype t. */

/* 16 rows of n <= 16 elements, `avail` elements readable from x. A shorter
 * row is read as 16 (the excess masked) when they are readable, and written
 * as 16 when the excess falls on the group's later rows, which are written
 * after it (the group's rows are all read first, so x may be o). */
NB_INLINE void short_group(const void* x, int64_t xp, void* o, int64_t op, int32_t t, int64_t n, int64_t avail,
                           bool logsm) {
    const nb_v16i lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, in_row = lane < (int32_t)n;
    const nb_v16f pad = (nb_v16f){0} - INFINITY;
    nb_v16f v[16];
    UNROLL for (int r = 0; r < 16; r++) {
        const void* xr = at(x, r * xp, t);
        if (n == 16) v[r] = ld16(xr, t);
        else if (r * xp + 16 <= avail) v[r] = nb_sel16f(in_row, ld16(xr, t), pad);
        else v[r] = ld_tail(xr, n, t, -INFINITY);
    }
    const nb_v16f mx = tmax16(v);
    nb_v8d p[8], s[2];
    UNROLL for (int i = 0; i < 8; i++) {
        nb_v8d w[2];
        UNROLL for (int k = 0; k < 2; k++) {
            const int r = 2 * i + k;
            v[r] -= mx[r];
            const nb_v16f e = nb_vexp16(&v[r]);
            w[k] = widen_sum(&e);
            if (!logsm) v[r] = e; /* kept: x - max for log_softmax, the exp for softmax */
        }
        p[i] = tsum_pair(&w[0], &w[1]);
    }
    tsum_rest(p, s);
    const nb_v8f f0 = factors8(&s[0], logsm), f1 = factors8(&s[1], logsm);
    const nb_v16f f = __builtin_shufflevector(f0, f1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    UNROLL for (int r = 0; r < 16; r++) {
        const nb_v16f y = logsm ? v[r] - f[r] : v[r] * f[r];
        void* orow = at_w(o, r * op, t);
        if (n == 16 || r * op + 16 <= 15 * op + n) st16(orow, &y, t);
        else st_tail(orow, &y, n, t);
    }
}

/* One row of n <= 16 elements. */
NB_INLINE void short_row(const void* x, void* o, int32_t t, int64_t n, bool logsm) {
    const nb_v16f v = n == 16 ? ld16(x, t) : ld_tail(x, n, t, -INFINITY), d = v - hmax16(&v), e = nb_vexp16(&d);
    const float f = factor(hsum16(&e), logsm);
    const nb_v16f y = logsm ? d - f : e * f;
    if (n == 16) st16(o, &y, t);
    else st_tail(o, &y, n, t);
}

/* Longer rows of log_softmax are done 8 at a time, so that their logs are one
 * vlog8 (a half type's widened into a buffer of 8 rows when they are at most
 * 4096 long, one at a time past that); softmax's one at a time, where the
 * reciprocal's latency hides behind the next row. */
NB_INLINE int64_t log_batch(int32_t t, int64_t len) { return t == NB_F32 || len <= 4096 ? 8 : 1; }

/* n elements of dtype t widened into d. */
NB_INLINE void widen(const void* x, float* d, int64_t n, int32_t t) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const nb_v16f v = ld16(at(x, i, t), t);
        nb_st16f(d + i, v);
    }
    for (; i < n; i++) d[i] = ld1(at(x, i, t), t);
}

/* A longer row from floats (a half type's row widened first: three passes of
 * converting loads cost more), 16 lanes at a time: its max (NaN if the row
 * has one, reduce.h's run: the row is NaN either way) and its sum of exps,
 * the exps kept in e (o itself for float32). */
NB_INLINE double long_sum(const float* x, float* e, int64_t n, float* mx, bool logsm) {
    const float m = *mx = nb_max_run_f32(x, n, sizeof(float), -INFINITY);
    nb_v16f sv = {0};
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16) {
        const nb_v16f d = nb_ld16f(x + i) - m, ex = nb_vexp16(&d);
        sv += ex;
        if (!logsm) nb_st16f(e + i, ex);
    }
    if (i < n) {
        const nb_v16f d = nb_ld16f_tail(x + i, n - i, -INFINITY) - m, ex = nb_vexp16(&d);
        sv += ex;
        if (!logsm) st_tail(e + i, &ex, n - i, NB_F32);
    }
    return hsum16(&sv);
}

/* The longer row's last pass, f its factor. */
NB_INLINE void long_finish(const float* x, const float* e, void* o, int32_t t, int64_t n, float mx, float f,
                           bool logsm) {
    int64_t i;
    for (i = 0; i + 16 <= n; i += 16) {
        const nb_v16f y = logsm ? (nb_ld16f(x + i) - mx) - f : nb_ld16f(e + i) * f;
        st16(at_w(o, i, t), &y, t);
    }
    if (i < n) {
        const nb_v16f y = logsm ? (nb_ld16f_tail(x + i, n - i, 0) - mx) - f : nb_ld16f_tail(e + i, n - i, 0) * f;
        st_tail(at_w(o, i, t), &y, n - i, t);
    }
}

/* A longer row of dtype t (e: a row of buffer for a half type). */
NB_INLINE void long_row(const void* x, void* o, float* e, int64_t len, bool logsm, int32_t t) {
    const float* xf = t == NB_F32 ? x : e;
    float* ef = t == NB_F32 ? o : e;
    float mx;
    if (t != NB_F32) widen(x, e, len, t);
    const double sum = long_sum(xf, ef, len, &mx, logsm);
    long_finish(xf, ef, o, t, len, mx, factor(sum, logsm), logsm);
}

/* Up to log_batch longer rows of log_softmax, their logs at once; returns how many. */
NB_INLINE int64_t long_log_rows(const void* x, int64_t xp, void* o, int64_t op, float* e, int64_t len,
                                int64_t rows, int32_t t) {
    const int64_t b = rows < log_batch(t, len) ? rows : log_batch(t, len);
    float mx[8];
    nb_v8d sum = (nb_v8d){0} + 1.0; /* lanes past b: log 1 */
    for (int64_t k = 0; k < b; k++) {
        const float* xr = t == NB_F32 ? at(x, k * xp, t) : e + k * len;
        if (t != NB_F32) widen(at(x, k * xp, t), e + k * len, len, t);
        sum[k] = long_sum(xr, NULL, len, &mx[k], true);
    }
    const nb_v8f f = factors8(&sum, true);
    for (int64_t k = 0; k < b; k++) {
        const float* xr = t == NB_F32 ? at(x, k * xp, t) : e + k * len;
        long_finish(xr, NULL, at_w(o, k * op, t), t, len, mx[k], f[k], true);
    }
    return b;
}

/* Groups of 16 short rows (len <= 16) take the transposing trees above, and
 * are compiled for AVX-512 only: lowered to narrower vectors, 16 unrolled rows
 * are code the size of the rest of this file, each clone taking minutes to
 * compile. Elsewhere short rows run one at a time; as the group's trees and a
 * lone row's reductions add in the same order, the results are the same bits.
 * Returns the rows done (a multiple of 16). */
#if NB_RED_HAVE_AVX512
/* One function per dtype, row length (16, or any shorter) and op: each its own registers. */
#define GROUPS(T, NAME, N, LOG)                                                                            \
    __attribute__((target("arch=x86-64-v4"))) static int64_t NAME(const void* x, int64_t xp, void* o,     \
                                                                  int64_t op, int64_t len, int64_t rows) { \
        int64_t r = 0;                                                                                    \
        for (; r + 16 <= rows; r += 16)                                                                   \
            short_group(at(x, r * xp, T), xp, at_w(o, r * op, T), op, T, N, (rows - 1 - r) * xp + len, LOG); \
        return r;                                                                                         \
    }
#define GROUPS_PER_DTYPE(T)                                                                                \
    GROUPS(NB_##T, groups16_##T, 16, false)                                                               \
    GROUPS(NB_##T, log_groups16_##T, 16, true)                                                            \
    GROUPS(NB_##T, groups_##T, len, false)                                                                \
    GROUPS(NB_##T, log_groups_##T, len, true)                                                             \
    static int64_t short_groups_##T(const void* x, int64_t xp, void* o, int64_t op, int64_t len, int64_t rows, \
                                    bool logsm) {                                                         \
        if (len == 16) return (logsm ? log_groups16_##T : groups16_##T)(x, xp, o, op, len, rows);         \
        return (logsm ? log_groups_##T : groups_##T)(x, xp, o, op, len, rows);                            \
    }
GROUPS_PER_DTYPE(F32)
GROUPS_PER_DTYPE(BF16)
GROUPS_PER_DTYPE(F16)
#undef GROUPS_PER_DTYPE
#undef GROUPS

static int64_t short_groups(const void* x, int64_t xp, void* o, int64_t op, int32_t t, int64_t len, int64_t rows,
                            bool logsm) {
    if (rows < 16 || !nb_red_avx512()) return 0;
    if (t == NB_F32) return short_groups_F32(x, xp, o, op, len, rows, logsm);
    if (t == NB_BF16) return short_groups_BF16(x, xp, o, op, len, rows, logsm);
    return short_groups_F16(x, xp, o, op, len, rows, logsm);
}
#else
static int64_t short_groups(const void* x, int64_t xp, void* o, int64_t op, int32_t t, int64_t len, int64_t rows,
                            bool logsm) {
    (void)x, (void)xp, (void)o, (void)op, (void)t, (void)len, (void)rows, (void)logsm;
    return 0;
}
#endif

NB_INLINE void rows_k(const void* x, int64_t xp, void* o, int64_t op, float* e, int64_t len, int64_t rows,
                      bool logsm, int32_t t) {
    int64_t r = 0;
    if (len <= 16) {
        r = short_groups(x, xp, o, op, t, len, rows, logsm);
        for (; r < rows; r++) short_row(at(x, r * xp, t), at_w(o, r * op, t), t, len, logsm);
    } else if (logsm) {
        while (r < rows) r += long_log_rows(at(x, r * xp, t), xp, at_w(o, r * op, t), op, e, len, rows - r, t);
    } else {
        for (; r < rows; r++) long_row(at(x, r * xp, t), at_w(o, r * op, t), e, len, false, t);
    }
}

/* An instance of a kernel per dtype, each its own function (one big function would spill the exp's constants). */
#define PER_DTYPE(KERNEL, NAME, PARAMS, ...)                                                             \
    NB_SIMD static void NAME##_f32 PARAMS { KERNEL(__VA_ARGS__, NB_F32); }                             \
    NB_SIMD static void NAME##_bf16 PARAMS { KERNEL(__VA_ARGS__, NB_BF16); }                           \
    NB_SIMD static void NAME##_f16 PARAMS { KERNEL(__VA_ARGS__, NB_F16); }

PER_DTYPE(rows_k, rows,
          (const void* x, int64_t xp, void* o, int64_t op, float* e, int64_t len, int64_t rows, bool logsm), x, xp,
          o, op, e, len, rows, logsm)

/* `rows` rows of len elements of dtype t (rows xp / op elements apart in x / o;
 * e: the half types' buffer, log_batch rows of len floats for rows longer than 16). */
static void rows_run(const void* x, int64_t xp, void* o, int64_t op, float* e, int32_t t, int64_t len, int64_t rows,
                     bool logsm) {
    if (t == NB_F32) rows_f32(x, xp, o, op, e, len, rows, logsm);
    else if (t == NB_BF16) rows_bf16(x, xp, o, op, e, len, rows, logsm);
    else rows_f16(x, xp, o, op, e, len, rows, logsm);
}

/* ---- tiles (inner > 1) ----
 * m <= TILE columns `inner` elements apart between rows, in float: a column's
 * max, its sum of exps in float row by row, then the factor (logs in double,
 * rounded once). With a buffer e (half types, and float32 rows far apart:
 * BUFFER_ROWS_APART), the tile is copied (widened) into it first, m floats a
 * row, and its exps kept there; otherwise float32 reads x and keeps the exps
 * in o. */
NB_INLINE void cols_k(const void* xin, void* o, float* e, int64_t len, int64_t inner, int64_t m, bool logsm,
                      int32_t t) {
    const float* x = xin;
    int64_t xs = inner; /* floats from a row of x to the next */
    if (e != NULL) {
        for (int64_t i = 0; i < len; i++) widen(at(xin, i * inner, t), e + i * m, m, t);
        x = e, xs = m;
    } else {
        e = o;
    }
    _Alignas(64) float mx[TILE], sm[TILE];
    int64_t j;
    for (j = 0; j < m; j++) mx[j] = -INFINITY, sm[j] = 0;
    for (; j < TILE && j % 8; j++) sm[j] = 1; /* read (unused) by the logs below */
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * xs;
        for (j = 0; j < m; j++) mx[j] = r[j] > mx[j] ? r[j] : mx[j];
    }
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * xs;
        float* w = e + i * xs;
        for (j = 0; j + 16 <= m; j += 16) {
            const nb_v16f d = nb_ld16f(r + j) - nb_ld16f(mx + j), ex = nb_vexp16(&d);
            nb_st16f(sm + j, nb_ld16f(sm + j) + ex);
            if (!logsm) nb_st16f(w + j, ex);
        }
        if (j < m) {
            const nb_v16f d = nb_ld16f_tail(r + j, m - j, -INFINITY) - nb_ld16f_tail(mx + j, m - j, 0);
            const nb_v16f ex = nb_vexp16(&d);
            for (int64_t k = 0; k < m - j; k++) {
                sm[j + k] += ex[k];
                if (!logsm) w[j + k] = ex[k];
            }
        }
    }
    if (logsm) /* logs of the float sums in double, 8 at a time, rounded once */
        for (j = 0; j < m; j += 8) {
            const nb_v8d s = nb_ld8f_wide(sm + j);
            const nb_v8f l = __builtin_convertvector(vlog8(&s), nb_v8f);
            memcpy(sm + j, &l, sizeof l);
        }
    else
        for (j = 0; j < m; j++) sm[j] = 1.0f / sm[j];
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * xs;
        const float* w = e + i * xs;
        void* out = at_w(o, i * inner, t);
        for (j = 0; j + 16 <= m; j += 16) {
            const nb_v16f y = logsm ? (nb_ld16f(r + j) - nb_ld16f(mx + j)) - nb_ld16f(sm + j)
                                    : nb_ld16f(w + j) * nb_ld16f(sm + j);
            st16(at_w(out, j, t), &y, t);
        }
        if (j < m) {
            const int64_t k = m - j;
            const nb_v16f f = nb_ld16f_tail(sm + j, k, 0);
            const nb_v16f y = logsm ? (nb_ld16f_tail(r + j, k, 0) - nb_ld16f_tail(mx + j, k, 0)) - f
                                    : nb_ld16f_tail(w + j, k, 0) * f;
            st_tail(at_w(out, j, t), &y, m - j, t);
        }
    }
}

/* cols_k with m a constant for the common narrow tile of 16 (a dim of 16 after the line's): loops of one vector. */
NB_INLINE void cols_m(const void* x, void* o, float* e, int64_t len, int64_t inner, int64_t m, bool logsm, int32_t t) {
    if (m == 16) cols_k(x, o, e, len, inner, 16, logsm, t);
    else cols_k(x, o, e, len, inner, m, logsm, t);
}

PER_DTYPE(cols_m, cols, (const void* x, void* o, float* e, int64_t len, int64_t inner, int64_t m, bool logsm),
          x, o, e, len, inner, m, logsm)

/* A tile of dtype t; e: its buffer (len x m floats), or NULL. */
static void cols_run(const void* x, void* o, float* e, int32_t t, int64_t len, int64_t inner, int64_t m, bool logsm) {
    if (t == NB_F32) cols_f32(x, o, e, len, inner, m, logsm);
    else if (t == NB_BF16) cols_bf16(x, o, e, len, inner, m, logsm);
    else cols_f16(x, o, e, len, inner, m, logsm);
}

/* float64: the same passes with libm's exp, one line (stride s elements) at a time. */
static void line_f64(const double* x, double* o, int64_t n, int64_t s, bool logsm) {
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; i++) mx = x[i * s] > mx ? x[i * s] : mx;
    for (int64_t i = 0; i < n; i++) {
        double e = exp(x[i * s] - mx);
        sum += e;
        if (!logsm) o[i * s] = e;
    }
    if (logsm) {
        const double ls = log(sum);
        for (int64_t i = 0; i < n; i++) o[i * s] = (x[i * s] - mx) - ls;
    } else {
        const double inv = 1.0 / sum;
        for (int64_t i = 0; i < n; i++) o[i * s] *= inv;
    }
}

/* ---- float32 buffers per thread ---- */
typedef void (*buffered_fn)(const void* plan, int64_t item, float* buf);

/* fn(plan, item, buf) for every item, buf `per` floats of the running thread's
 * own (threads and their runs of items as nb_lines_run). */
static nb_status run_buffered(int64_t numel, int64_t items, size_t per, buffered_fn fn, const void* plan,
                              const char* name) {
    int nthreads = 1;
#ifdef _OPENMP
    const bool par = numel >= NB_LINES_GRAIN && items > 1 && omp_get_max_threads() > 1 && !omp_in_parallel();
    if (par) nthreads = omp_get_max_threads();
#endif
    const size_t bytes = per * sizeof(float) * (size_t)nthreads;
    float* bufs = nb_cpu_alloc(bytes);
    if (bufs == NULL)
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes of line buffers", name, bytes);
#ifdef _OPENMP
    if (par) {
#pragma omp parallel num_threads(nthreads)
        {
            float* buf = bufs + per * (size_t)omp_get_thread_num();
#pragma omp for schedule(static)
            for (int64_t it = 0; it < items; it++) fn(plan, it, buf);
        }
    } else
#endif
    {
        for (int64_t it = 0; it < items; it++) fn(plan, it, bufs);
    }
    nb_cpu_free(bufs, bytes);
    return NB_OK;
}

/* ---- contiguous input ---- */
typedef struct {
    const char* x;
    char* out;
    nb_lines l;
    int32_t dtype;
    bool logsm, buffered; /* buffered: a tile is copied into the thread's buffer */
} line_plan;

#define TILE_MIN_ITEMS 8 /* tiles narrow down to 64 columns to make this many items for threads */
/* float32 tiles of lines at least BUFFER_MIN_LEN long whose rows are at least BUFFER_ROWS_APART
 * elements apart are copied into a buffer: a power-of-two row pitch puts a column of rows in a
 * few cache sets (rows 1 KiB apart: a 16-column tile of 4096 rows gets 1/16 of L2 and L1's sets),
 * so that the three passes over it went to L3 or memory at speeds that changed with where the
 * pages landed. The copy is read once, in order, and the buffer's rows are adjacent. Shorter
 * lines' tiles stay in L2 as they are, and the copy would only cost a pass. */
#define BUFFER_ROWS_APART 64
#define BUFFER_MIN_LEN 256
/* A tile's buffer, 1 MiB, the size of a core's L2. */
#define TILE_BUFFER_FLOATS (1 << 18)

/* The lines of a contiguous input and the floats of buffer an item needs (0:
 * none): a half type's row longer than 16, or a tile of up to TILE columns
 * over the line, narrower for lines longer than 1024 (TILE_BUFFER_FLOATS, 16
 * columns at least), buffered for a half type or rows BUFFER_ROWS_APART (a
 * buffer must fit in NB_LINES_GATHER_MAX floats: a half type's goes through
 * the cast path otherwise, a float32 tile runs in place). */
static nb_lines plan_lines(const int64_t* shape, int32_t ndim, int32_t d, int32_t dtype, int64_t* floats) {
    nb_lines l = nb_lines_along(shape, ndim, d);
    const bool half = dtype == NB_F16 || dtype == NB_BF16;
    *floats = 0;
    if (l.inner == 1 || l.len == 0) { /* nothing runs for len 0 */
        *floats = half && l.len > 16 ? l.len * log_batch(dtype, l.len) : 0;
        return l;
    }
    int64_t tile = TILE_BUFFER_FLOATS / l.len / 16 * 16;
    tile = tile < 16 ? 16 : tile > TILE ? TILE : tile;
    while (tile > 64 && l.outer * ((l.inner + tile - 1) / tile) < TILE_MIN_ITEMS) tile = (tile / 2 + 15) / 16 * 16;
    nb_lines_set_tile(&l, tile);
    const int64_t m = l.inner < tile ? l.inner : tile;
    if (half || (l.inner >= BUFFER_ROWS_APART && l.len >= BUFFER_MIN_LEN && l.len * m <= NB_LINES_GATHER_MAX))
        *floats = l.len * m;
    return l;
}

static void line_item(const void* vp, int64_t item, float* buf) {
    const line_plan* p = vp;
    const int64_t len = p->l.len, inner = p->l.inner;
    int64_t off, m;
    nb_lines_item(&p->l, item, &off, &m);
    if (p->dtype == NB_F64) {
        const double* x = (const double*)p->x + off;
        double* o = (double*)p->out + off;
        const int64_t step = inner == 1 ? len : 1; /* from one line to the next */
        for (int64_t j = 0; j < m; j++) line_f64(x + j * step, o + j * step, len, inner, p->logsm);
    } else if (inner == 1) {
        rows_run(at(p->x, off, p->dtype), len, at_w(p->out, off, p->dtype), len, buf, p->dtype, len, m, p->logsm);
    } else {
        cols_run(at(p->x, off, p->dtype), at_w(p->out, off, p->dtype), p->buffered ? buf : NULL, p->dtype, len, inner,
                 m, p->logsm);
    }
}

/* A contiguous plan (false when the half types' buffers would not fit). */
static bool softmax_contiguous(const nb_bk_lines* pl, int64_t numel, nb_status* st) {
    int64_t floats;
    const nb_lines l = plan_lines(pl->shape, pl->ndim, pl->dim, pl->in_dtype, &floats);
    const line_plan p = {.x = pl->in, .out = pl->out, .dtype = pl->in_dtype, .logsm = pl->op == NB_LK_LOG_SOFTMAX,
                         .l = l, .buffered = l.inner > 1 && floats > 0};
    if (floats > NB_LINES_GATHER_MAX) return false;
    *st = run_buffered(numel, p.l.items, (size_t)floats, line_item, &p, pl->name);
    return true;
}

/* ---- strided float32, float16 / bfloat16 input: lines gathered into float32 ----
 * For lines that are the result's rows (every dim after the line's has size
 * 1). Groups of up to GATHER lines (in the output's order) are read into a
 * float32 buffer, GATHER_STEP elements of each line in turn (adjacent lines
 * of a transposed input share cache lines), then the buffered lines are run
 * as float32 rows in place and stored into the contiguous output in its dtype. */
#define GATHER 16
#define GATHER_STEP 64
#define GATHER_MAX_FLOATS NB_LINES_GATHER_MAX /* per thread */

typedef struct {
    const char* x;
    char* out;
    int32_t dtype, ndim, dim;
    bool logsm;
    int64_t shape[NB_MAX_DIMS], xs[NB_MAX_DIMS]; /* input strides in bytes */
    int64_t len, lines, group;
    int64_t pitch; /* floats from a buffered line to the next: len rounded up, a cache line more against L1 aliasing */
} gather_plan;

/* Input byte offset of line q (lines numbered in the output's row-major order, dim left out). */
static int64_t line_offset(const gather_plan* p, int64_t q) {
    int64_t off = 0;
    for (int32_t d = p->ndim - 1; d >= 0; d--) {
        if (d == p->dim) continue;
        off += (q % p->shape[d]) * p->xs[d];
        q /= p->shape[d];
    }
    return off;
}

NB_INLINE void gather_k(const gather_plan* p, int64_t q0, int64_t g, float* buf, int32_t t) {
    const int64_t len = p->len, sl = p->xs[p->dim], pitch = p->pitch, isz = t == NB_F32 ? 4 : 2;
    const char* src[GATHER];
    for (int64_t k = 0; k < g; k++) src[k] = p->x + line_offset(p, q0 + k);
    bool adjacent = g > 1 && llabs(sl) > isz;
    for (int64_t k = 1; k < g && adjacent; k++) adjacent = src[k] - src[0] == k * isz;
    if (adjacent) {
        /* adjacent lines (a transposed input): a row of the group at a time, so
         * that each cache line is read once even when the rows alias in L1 */
        for (int64_t i = 0; i < len; i++)
            for (int64_t k = 0; k < g; k++) buf[k * pitch + i] = ld1(src[0] + i * sl + k * isz, t);
        return;
    }
    for (int64_t i0 = 0; i0 < len; i0 += GATHER_STEP) {
        const int64_t ie = len - i0 < GATHER_STEP ? len : i0 + GATHER_STEP;
        for (int64_t k = 0; k < g; k++) {
            float* d = buf + k * pitch;
            int64_t i = i0;
            if (sl == isz) /* contiguous lines */
                for (; i + 16 <= ie; i += 16) {
                    const nb_v16f v = ld16(src[k] + i * isz, t);
                    nb_st16f(d + i, v);
                }
            for (; i < ie; i++) d[i] = ld1(src[k] + i * sl, t);
        }
    }
}

NB_SIMD static void gather_group(const gather_plan* p, int64_t q0, int64_t g, float* buf) {
    if (p->dtype == NB_F32) gather_k(p, q0, g, buf, NB_F32);
    else if (p->dtype == NB_BF16) gather_k(p, q0, g, buf, NB_BF16);
    else gather_k(p, q0, g, buf, NB_F16);
}

/* Buffered rows of float32 results (pitch floats apart) stored as g rows of len in dtype t. */
NB_SIMD static void store_rows(const float* buf, int64_t pitch, void* o, int32_t t, int64_t len, int64_t g) {
    for (int64_t k = 0; k < g; k++) {
        const float* b = buf + k * pitch;
        void* w = at_w(o, k * len, t);
        int64_t i = 0;
        for (; i + 16 <= len; i += 16) {
            const nb_v16f v = nb_ld16f(b + i);
            st16(at_w(w, i, t), &v, t);
        }
        if (i < len) {
            const nb_v16f v = nb_ld16f_tail(b + i, len - i, 0);
            st_tail(at_w(w, i, t), &v, len - i, t);
        }
    }
}

static void gather_item(const void* vp, int64_t item, float* buf) {
    const gather_plan* p = vp;
    const int64_t q0 = item * p->group, g = p->lines - q0 < p->group ? p->lines - q0 : p->group;
    gather_group(p, q0, g, buf);
    rows_run(buf, p->pitch, buf, p->pitch, NULL, NB_F32, p->len, g, p->logsm);
    store_rows(buf, p->pitch, at_w(p->out, q0 * p->len, p->dtype), p->dtype, p->len, g);
}

/* The plan's lines gathered when they fit the buffers (returns false when they do not). */
static bool softmax_gathered(const nb_bk_lines* pl, int64_t numel, nb_status* st) {
    gather_plan p = {.x = pl->in, .out = pl->out, .dtype = pl->in_dtype, .ndim = pl->ndim, .dim = pl->dim,
                     .logsm = pl->op == NB_LK_LOG_SOFTMAX};
    const int64_t isz = nb_dtype_sizes[pl->in_dtype];
    for (int32_t d = 0; d < pl->ndim; d++) p.shape[d] = pl->shape[d], p.xs[d] = pl->in_strides[d] * isz;
    const nb_lines l0 = nb_lines_along(pl->shape, pl->ndim, pl->dim);
    if (l0.inner != 1 || l0.len > GATHER_MAX_FLOATS) return false;
    p.len = l0.len, p.lines = numel / l0.len;
    p.pitch = (p.len + 15) / 16 * 16 + 16;
    p.group = GATHER_MAX_FLOATS / p.pitch < GATHER ? GATHER_MAX_FLOATS / p.pitch : GATHER;
    if (p.group < 1) p.group = 1;
    const int64_t items = (p.lines + p.group - 1) / p.group;
    *st = run_buffered(numel, items, (size_t)(p.group * p.pitch), gather_item, &p, pl->name);
    return true;
}

nb_status nb_cpu_softmax_lines(const nb_bk_lines* pl) {
    if (pl->out_dtype != pl->in_dtype ||
        (pl->in_dtype != NB_F32 && pl->in_dtype != NB_F64 && pl->in_dtype != NB_F16 && pl->in_dtype != NB_BF16))
        return nb_error(NB_ERR_DTYPE, "%s: the CPU kernel takes float32, float64, float16 or bfloat16, got %s",
                        pl->name, nb_dtype_str(pl->in_dtype));
    int64_t numel = 1;
    for (int32_t i = 0; i < pl->ndim; i++) numel *= pl->shape[i];
    nb_status st;
    if (nb_lines_contiguous(pl, pl->in_strides) && softmax_contiguous(pl, numel, &st)) return st;
    if (pl->in_dtype != NB_F64 && softmax_gathered(pl, numel, &st)) return st;
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: no CPU kernel for this %s input", pl->name,
                    nb_dtype_str(pl->in_dtype));
}

/* Whether the CPU gathers t's lines along d: they are the rows of the result
 * (d is the last dim of size > 1) and not too long; results whose lines are
 * strided go to the column kernel, which writes whole rows of a tile. */
static bool gather_fits(const nb_tensor* t, int32_t d) {
    if (t->ndim == 0) return true;
    for (int32_t i = d + 1; i < t->ndim; i++)
        if (t->shape[i] != 1) return false;
    return t->shape[d] <= NB_LINES_GATHER_MAX;
}

/* Whether the CPU kernel reads t as it is along d: contiguous float16 /
 * bfloat16 whose buffers fit, or float16 / bfloat16 / strided float32 lines
 * that gather_fits. */
static bool read_in_place(const nb_tensor* t, int32_t d) {
    const bool half = t->dtype == NB_F16 || t->dtype == NB_BF16;
    if (!half && (t->dtype != NB_F32 || t->contiguous)) return false;
    int64_t floats;
    if (half && t->contiguous && (plan_lines(t->shape, t->ndim, d, t->dtype, &floats), floats <= NB_LINES_GATHER_MAX))
        return true;
    return gather_fits(t, d);
}

/* The CPU kernels read contiguous float32 / float64, and float16 / bfloat16 or
 * strided float32 through float32 buffers (others are cast up and made
 * contiguous); CUDA reads the input as it is and computes half types in float32. */
static nb_status softmax_impl(const char* op, bool logsm, const nb_tensor* t, int64_t dim, int32_t dtype,
                              nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_LINES);
    if (st != NB_OK || (st = nb_red_check_dtype(op, dtype)) != NB_OK) return st;
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, t->ndim, &d)) != NB_OK) return st;
    const int32_t result = dtype >= 0 ? dtype : t->dtype;
    if (!nb_dtype_is_floating(result))
        return nb_error(NB_ERR_DTYPE, "%s: not implemented for '%s' (pass a floating point dtype)", op,
                        nb_dtype_str(result));
    const int32_t dev = t->storage->device_type, di = t->storage->device_index;
    if (dst != NULL && (st = nb_check_dst(op, dst, &t, 1, t->shape, t->ndim, result, dev)) != NB_OK) return st;
    const bool cpu = dev == NB_CPU;
    const bool gathered = cpu && result == t->dtype && read_in_place(t, d);
    const int32_t in = !cpu || gathered ? result : result == NB_F64 ? NB_F64 : NB_F32;
    nb_tensor *cast = NULL, *x = NULL, *computed = NULL, *target = NULL;
    if (t->dtype != in) st = nb_tensor_to(t, in, dev, di, 0, &cast);
    if (st == NB_OK && cpu && !gathered) st = nb_tensor_contiguous(cast ? cast : t, &x);
    else if (st == NB_OK) nb_tensor_retain(x = cast ? cast : (nb_tensor*)t);
    nb_tensor_release(cast);
    /* the kernel writes `computed` (dtype in; contiguous on the CPU); target is the result */
    if (st == NB_OK && dst != NULL) nb_tensor_retain(target = dst);
    else if (st == NB_OK) st = nb_tensor_new(op, t->shape, t->ndim, result, dev, di, &target);
    if (st == NB_OK) {
        if (target->dtype == in && (target->contiguous || !cpu) && target->storage != x->storage &&
            (dst == NULL || dst->storage != t->storage))
            nb_tensor_retain(computed = target);
        else
            st = nb_tensor_new(op, t->shape, t->ndim, in, dev, di, &computed);
    }
    if (st == NB_OK)
        st = nb_lines_launch(op, logsm ? NB_LK_LOG_SOFTMAX : NB_LK_SOFTMAX, d, x, NULL, computed,
                             in == NB_F64 ? NB_F64 : NB_F32);
    if (st == NB_OK && computed != target) st = nb_copy_into(op, target, computed);
    nb_tensor_release(computed);
    nb_tensor_release(x);
    if (st != NB_OK) {
        nb_tensor_release(target);
        return st;
    }
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        if (out == NULL) {
            nb_tensor_release(target);
            return NB_OK;
        }
    }
    *out = target;
    return NB_OK;
}

nb_status nbi_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return softmax_impl("softmax", false, t, dim, dtype, dst, out);
}

nb_status nbi_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return softmax_impl("log_softmax", true, t, dim, dtype, dst, out);
}
