/* reduce.h: the shared engine of the reduction family (reduce_engine.c).
 *
 * An op is a kernel over accumulators: init, accum (fold a strided block of
 * input into m accumulators), merge (fold a later partial into an earlier one)
 * and finish (write m results). The engine validates arguments, casts the
 * input to the kernel's dtype, allocates or checks the outputs, orders and
 * coalesces dims, and drives the kernel over tiles of outputs with OpenMP.
 *
 * Determinism: how the work is cut depends only on shapes, never on the thread
 * count. Tasks own whole outputs; when there are too few outputs to share out,
 * the reduced range is split into fixed-size chunks whose partials are merged
 * in chunk order. Threads only decide who computes which task or chunk. */
#ifndef NABLA_OPS_REDUCE_H_
#define NABLA_OPS_REDUCE_H_

#include "../core/elementwise.h"
#include "reduce_avx512.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Let the compiler fuse a * b + c into FMA where the target has it (about 20%
 * on the exp polynomial). Results then depend on the CPU's instruction set,
 * never on the thread count. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

/* Multi-versioned hot loops (AVX-512 / AVX2 / baseline, chosen at load time by
 * an ifunc): GCC >= 11 on glibc x86-64 only; elsewhere the baseline build. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__GNUC__) && \
    !defined(__clang__) && __GNUC__ >= 11 && !defined(NB_NO_TARGET_CLONES)
#define NB_SIMD __attribute__((target_clones(NB_CLONE_TARGETS)))
#else
#define NB_SIMD
#endif
#define NB_INLINE static inline __attribute__((always_inline))

/* Fixed-width vectors (unaligned loads go through memcpy). Helpers take
 * vectors by pointer or are macros: a 64-byte vector parameter makes GCC print
 * an ABI note that no pragma silences. */
#pragma GCC diagnostic ignored "-Wpsabi" /* vector returns of always-inline helpers */
typedef float nb_v16f __attribute__((vector_size(64)));
typedef double nb_v8d __attribute__((vector_size(64)));
typedef float nb_v8f __attribute__((vector_size(32)));
typedef int32_t nb_v16i __attribute__((vector_size(64)));
typedef int64_t nb_v8l __attribute__((vector_size(64)));
NB_INLINE nb_v16f nb_ld16f(const float* p) { nb_v16f v; memcpy(&v, p, sizeof v); return v; }
NB_INLINE nb_v8d nb_ld8d(const double* p) { nb_v8d v; memcpy(&v, p, sizeof v); return v; }
/* 8 floats widened to doubles. */
NB_INLINE nb_v8d nb_ld8f_wide(const float* p) {
    nb_v8f v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, nb_v8d);
}
/* 16 bfloat16 / float16 values (their bits) as floats (exact), and one of them. */
typedef uint16_t nb_v16u16 __attribute__((vector_size(32)));
typedef uint32_t nb_v16u __attribute__((vector_size(64)));
NB_INLINE nb_v16f nb_ld16bf(const uint16_t* p) {
    nb_v16u16 h;
    memcpy(&h, p, sizeof h);
    return (nb_v16f)(__builtin_convertvector(h, nb_v16u) << 16);
}
NB_INLINE float nb_bf16f(uint16_t h) {
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
#ifdef __FLT16_MAX__
typedef _Float16 nb_v16hf __attribute__((vector_size(32)));
NB_INLINE nb_v16f nb_ld16hf(const uint16_t* p) {
    nb_v16hf h;
    memcpy(&h, p, sizeof h);
    return __builtin_convertvector(h, nb_v16f);
}
NB_INLINE float nb_f16f(uint16_t h) {
    _Float16 x;
    memcpy(&x, &h, sizeof x);
    return (float)x;
}
#else
NB_INLINE float nb_f16f(uint16_t h) { return nb_half_to_float(h); }
NB_INLINE nb_v16f nb_ld16hf(const uint16_t* p) {
    float f[16];
    for (int k = 0; k < 16; k++) f[k] = nb_half_to_float(p[k]);
    return nb_ld16f(f);
}
#endif
#define nb_st16f(p, v) do { nb_v16f st_ = (v); memcpy((p), &st_, sizeof st_); } while (0)
/* Lane-wise select: m ? a : b, with m a comparison result (all ones / zeros).
 * Note: write one vector comparison per expression; GCC lowers an OR of two
 * comparisons of 64-byte vectors to scalar code. */
#define nb_sel16f(m, a, b) ((nb_v16f)(((nb_v16i)(a) & (m)) | ((nb_v16i)(b) & ~(m))))
#define nb_sel8d(m, a, b) ((nb_v8d)(((nb_v8l)(a) & (m)) | ((nb_v8l)(b) & ~(m))))
/* *v -> the sum of its halves as doubles, lane by lane. */
NB_INLINE nb_v8d nb_widen_sum(const nb_v16f* v) {
    nb_v8f lo, hi;
    memcpy(&lo, v, sizeof lo);
    memcpy(&hi, (const char*)v + sizeof lo, sizeof hi);
    return __builtin_convertvector(lo, nb_v8d) + __builtin_convertvector(hi, nb_v8d);
}
NB_INLINE nb_v8d nb_widen_lo(const nb_v16f* v) {
    nb_v8f lo;
    memcpy(&lo, v, sizeof lo);
    return __builtin_convertvector(lo, nb_v8d);
}
NB_INLINE nb_v8d nb_widen_hi(const nb_v16f* v) {
    nb_v8f hi;
    memcpy(&hi, (const char*)v + sizeof hi, sizeof hi);
    return __builtin_convertvector(hi, nb_v8d);
}
NB_INLINE double nb_hsum8d(const nb_v8d* p) {
    const nb_v8d v = *p;
    return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

/* The horizontal sums (OP +) or products (OP *) of eight vectors of double
 * lanes, each in nb_hsum8d's order, so that a row reduced in a group of eight
 * gives the bits it gives alone: out[r] = (v[r] folded). A transpose tree:
 * three levels of two shuffles and one OP per pair of vectors. */
#define NB_HFOLD8X8(NAME, OP)                                                                          \
    NB_INLINE void NAME(const nb_v8d* v, double* out) {                                                \
        const nb_v8l l1a = {0, 1, 2, 3, 8, 9, 10, 11}, l1b = {4, 5, 6, 7, 12, 13, 14, 15};             \
        const nb_v8l l2a = {0, 1, 8, 9, 4, 5, 12, 13}, l2b = {2, 3, 10, 11, 6, 7, 14, 15};             \
        const nb_v8l l3a = {0, 8, 2, 10, 4, 12, 6, 14}, l3b = {1, 9, 3, 11, 5, 13, 7, 15};             \
        nb_v8d t[4], u[2];                                                                             \
        for (int k = 0; k < 4; k++)                                                                    \
            t[k] = __builtin_shuffle(v[2 * k], v[2 * k + 1], l1a) OP __builtin_shuffle(v[2 * k], v[2 * k + 1], l1b); \
        for (int k = 0; k < 2; k++)                                                                    \
            u[k] = __builtin_shuffle(t[2 * k], t[2 * k + 1], l2a) OP __builtin_shuffle(t[2 * k], t[2 * k + 1], l2b); \
        const nb_v8d w = __builtin_shuffle(u[0], u[1], l3a) OP __builtin_shuffle(u[0], u[1], l3b);    \
        static const int row[8] = {0, 4, 2, 6, 1, 5, 3, 7}; /* lane -> row */                          \
        for (int l = 0; l < 8; l++) out[row[l]] = w[l];                                                \
    }
NB_HFOLD8X8(nb_hsum8d_x8, +)
NB_HFOLD8X8(nb_hmul8d_x8, *)
NB_INLINE double nb_hmul8d(const nb_v8d* p) {
    const nb_v8d v = *p;
    return ((v[0] * v[4]) * (v[2] * v[6])) * ((v[1] * v[5]) * (v[3] * v[7]));
}

/* exp on 16 float lanes (Cephes' expf polynomial, about 1 ulp). Lanes below
 * -87.3 give 0 (no subnormal results), NaN stays NaN; inputs above 88.7 are
 * clamped (softmax and logsumexp only pass x - max <= 0). */
NB_INLINE nb_v16f nb_vexp16(const nb_v16f* xp) {
    nb_v16f x = *xp;
    const nb_v16i under = x < -87.33654f;
    x = nb_sel16f(x > 88.7f, (nb_v16f){0} + 88.7f, x);
    x = nb_sel16f(under, (nb_v16f){0} - 87.0f, x);
    const nb_v16f magic = (nb_v16f){0} + 12582912.0f;  /* 1.5 * 2^23: round to nearest integer */
    nb_v16f n = (x * 1.44269504088896341f + magic) - magic;
    nb_v16f r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    nb_v16f p = r * 1.9875691500E-4f + 1.3981999507E-3f;
    p = p * r + 8.3334519073E-3f;
    p = p * r + 4.1665795894E-2f;
    p = p * r + 1.6666665459E-1f;
    p = p * r + 5.0000001201E-1f;
    p = p * (r * r) + r + 1.0f;
    nb_v16i e = (__builtin_convertvector(n, nb_v16i) + 127) << 23;
    nb_v16f y = p * (nb_v16f)e;
    return nb_sel16f(under, (nb_v16f){0}, y);
}

/* Loads n < 16 floats into a vector padded with `pad`. */
NB_INLINE nb_v16f nb_ld16f_tail(const float* p, int64_t n, float pad) {
    float b[16];
    for (int k = 0; k < 16; k++) b[k] = k < n ? p[k] : pad;
    return nb_ld16f(b);
}

#define FMAX(v, e) do { if ((e) > (v) || (e) != (e)) (v) = (e); } while (0)
#define FMIN(v, e) do { if ((e) < (v) || (e) != (e)) (v) = (e); } while (0)
/* A float max / min run: NaN tracked apart (one mask per vector), the values
 * folded into four vector accumulators by selects (AVX-512: reduce_avx512.h's
 * run); NAME(p, n, stride, v) folds into v and returns it (NaN if any). The
 * scalar folds are branch-free selects too: a compare-and-branch per element
 * mispredicts on unordered data. */
#define FEXT_RUN(NAME, T, VT, MT, W, LD, SEL, AVX512, OP)                                                       \
    NB_INLINE T NAME(const T* p, int64_t n, int64_t s, T v) {                                          \
        int64_t i = 0;                                                                                 \
        bool has_nan = v != v;                                                                         \
        if (s == (int64_t)sizeof(T) && n >= 4 * (W) && nb_red_avx512()) return AVX512(p, n, v);       \
        if (s == (int64_t)sizeof(T) && n >= (W)) {                                                     \
            VT a[4];                                                                                   \
            MT nan[4];                                                                                 \
            a[0] = a[1] = a[2] = a[3] = LD(p); /* max and min are idempotent */                        \
            nan[0] = a[0] != a[0];                                                                     \
            nan[1] = nan[2] = nan[3] = nan[0] & 0;                                                     \
            for (i = (W); i + 4 * (W) <= n; i += 4 * (W))                                              \
                for (int k = 0; k < 4; k++) {                                                          \
                    const VT x = LD(p + i + k * (W));                                                  \
                    a[k] = SEL(x OP a[k], x, a[k]);                                                    \
                    nan[k] |= x != x;                                                                  \
                }                                                                                      \
            for (; i + (W) <= n; i += (W)) {                                                           \
                const VT x = LD(p + i);                                                                \
                a[0] = SEL(x OP a[0], x, a[0]);                                                        \
                nan[0] |= x != x;                                                                      \
            }                                                                                          \
            for (int k = 1; k < 4; k++) {                                                              \
                a[0] = SEL(a[k] OP a[0], a[k], a[0]);                                                  \
                nan[0] |= nan[k];                                                                      \
            }                                                                                          \
            for (int k = 0; k < (W); k++) { const T e = a[0][k]; v = e OP v ? e : v; has_nan |= nan[0][k] != 0; } \
        }                                                                                              \
        if (s == (int64_t)sizeof(T)) {                                                                 \
            for (; i < n; i++) { const T e = p[i]; v = e OP v ? e : v; has_nan |= e != e; }            \
        } else {                                                                                       \
            for (; i < n; i++) {                                                                       \
                const T e = *(const T*)((const char*)p + i * s);                                       \
                v = e OP v ? e : v;                                                                    \
                has_nan |= e != e;                                                                     \
            }                                                                                          \
        }                                                                                              \
        return has_nan ? (T)NAN : v;                                                                   \
    }
FEXT_RUN(nb_max_run_f32, float, nb_v16f, nb_v16i, 16, nb_ld16f, nb_sel16f, nb_max_run_f32_avx512, >)
FEXT_RUN(nb_min_run_f32, float, nb_v16f, nb_v16i, 16, nb_ld16f, nb_sel16f, nb_min_run_f32_avx512, <)
FEXT_RUN(nb_max_run_f64, double, nb_v8d, nb_v8l, 8, nb_ld8d, nb_sel8d, nb_max_run_f64_avx512, >)
FEXT_RUN(nb_min_run_f64, double, nb_v8d, nb_v8l, 8, nb_ld8d, nb_sel8d, nb_min_run_f64_avx512, <)

/* Attributes a kernel reads. */
typedef struct nb_red_ctx {
    int64_t count;      /* input elements per output */
    int32_t variant;    /* op-specific: mean vs sum, std vs var, the norm's kind */
    int32_t out_dtype[2];
    double p;           /* norm order */
    double correction;  /* var / std */
} nb_red_ctx;

typedef void (*nb_red_init_fn)(void* acc, int64_t m, const nb_red_ctx* c);
/* Folds x[i*si + j*sj] (bytes) for i < n into accumulator j < m; the element
 * at i has flat index idx0 + i in the reduced range (index ops). */
typedef void (*nb_red_accum_fn)(void* acc, int64_t m, const char* x, int64_t n, int64_t si, int64_t sj,
                                int64_t idx0, const nb_red_ctx* c);
/* acc = acc (+) later, for m accumulators laid out alike. */
typedef void (*nb_red_merge_fn)(void* acc, const void* later, int64_t m, const nb_red_ctx* c);
/* Writes result j of output o at out[o] + j * os[o] (bytes); out[o] may be NULL (not wanted). */
typedef void (*nb_red_finish_fn)(const void* acc, int64_t m, char* const* out, const int64_t* os,
                                 const nb_red_ctx* c);

typedef struct nb_red_kernel {
    int32_t acc_size;  /* bytes per accumulator; a block of m may use any layout */
    bool ordered;      /* reduced dims keep their logical order (flat indices) */
    nb_red_init_fn init;
    nb_red_accum_fn accum;
    nb_red_merge_fn merge;
    nb_red_finish_fn finish;
} nb_red_kernel;

/* One reduction call, filled in by an op's entry point; nb_red_run plans it for
 * the input's device and hands it to that backend's reduce slot (NB_RK_*). */
typedef struct nb_red_call {
    const char* name;
    const nb_tensor* t;
    uint32_t mask;         /* reduced dims of t */
    bool keepdim;
    int32_t in_dtype;      /* the op's compute dtype (nb_bk_reduce.acc_dtype): t is cast to it first */
    int32_t nout;          /* 1 or 2 */
    int32_t out_dtype[2];
    nb_tensor* dst[2];     /* out= targets, or NULL */
    nb_tensor** out[2];    /* receive new references; NULL allowed with a dst */
    int32_t op;            /* NB_RK_* */
    double p;              /* norm order */
    double correction;     /* var / std */
} nb_red_call;

/* dims[ndims] -> a mask of dims of t (ndims 0: every dim); range and duplicate errors. */
NB_INTERNAL nb_status nb_red_dims(const char* op, const nb_tensor* t, const int64_t* dims, int32_t ndims,
                                  uint32_t* mask);
/* Checks handles, out pointers, that dst is on t's device (NB_ERR_DEVICE) and that
 * t's backend has kernels of family (NB_FAMILY_REDUCE, or NB_FAMILY_LINES for the
 * softmax and scan ops); first step of every entry point. */
NB_INTERNAL nb_status nb_red_check(const char* op, const nb_tensor* t, nb_tensor* dst, nb_tensor** out,
                                   int32_t family);
/* Input elements per output for a mask. */
NB_INTERNAL int64_t nb_red_count(const nb_tensor* t, uint32_t mask);
/* Errors for ops without an identity over an empty reduction (PyTorch's wording). */
NB_INTERNAL nb_status nb_red_check_nonempty(const char* op, const nb_tensor* t, uint32_t mask, bool all);
/* The dtype code check: -1 (default) or a valid code. */
NB_INTERNAL nb_status nb_red_check_dtype(const char* op, int32_t dtype);
/* Runs the call: cast, outputs on t's device, the backend's kernel, out= copies. */
NB_INTERNAL nb_status nb_red_run(nb_red_call* c);

/* The CPU kernels of a plan's op for its acc_dtype (NULL: none), and the ctx
 * fields they read (variant), one getter per file of kernels. */
NB_INTERNAL const nb_red_kernel* nb_red_cpu_basic(int32_t op, int32_t dtype, nb_red_ctx* ctx);  /* reduce.c */
NB_INTERNAL const nb_red_kernel* nb_red_cpu_arg(int32_t op, int32_t dtype);                     /* reduce_arg.c */
NB_INTERNAL const nb_red_kernel* nb_red_cpu_stats(int32_t op, int32_t dtype, nb_red_ctx* ctx);  /* reduce_stats.c */
/* A kernel that reads float16 / bfloat16 input itself for a float32 op (NULL: the engine widens
 * blocks of it for the float32 kernel). */
NB_INTERNAL const nb_red_kernel* nb_red_cpu_half(int32_t op, int32_t in_dtype, nb_red_ctx* ctx); /* reduce.c */

/* Stores a value into an element of any dtype (float16/bfloat16 rounded once). */
NB_INTERNAL void nb_store_f64(char* p, int32_t dtype, double v);
NB_INTERNAL void nb_store_i64(char* p, int32_t dtype, int64_t v);
/* Their inline fronts for the kernels' finish loops: float32, float64 and int64
 * results are written without a call (one per output counts when each output
 * reduces a handful of elements). */
NB_INLINE void nb_red_store_f(char* p, int32_t dtype, double v) {
    if (dtype == NB_F32) { const float f = (float)v; memcpy(p, &f, sizeof f); }
    else if (dtype == NB_F64) memcpy(p, &v, sizeof v);
    else nb_store_f64(p, dtype, v);
}
NB_INLINE void nb_red_store_i(char* p, int32_t dtype, int64_t v) {
    if (dtype == NB_I64) memcpy(p, &v, sizeof v);
    else nb_store_i64(p, dtype, v);
}

/* A float's bits rounded to bfloat16 (nearest, ties to even; NaN stays a quiet NaN), as
 * nb_float_to_bf16, inline so that store loops vectorise. */
NB_INLINE uint16_t nb_bf16_of_bits(uint32_t u) {
    const uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u;
    return (uint16_t)(nan ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* m results in double (each divided by div) written as dtype at out, byte stride os, in one
 * vectorisable loop when the outputs are contiguous float32, float64 or bfloat16 (bfloat16:
 * rounded once, through a float rounded to odd, as nb_double_to_bf16). Returns false for any
 * other layout or dtype: the caller stores one result at a time. */
NB_INLINE double nb_red_div(double v, double div) { return v / div; }
NB_INLINE double nb_red_as_is(double v, double div) { (void)div; return v; }
#define NB_RED_STORE_RUN(NAME, VALUE)                                                                  \
    NB_INLINE void NAME(char* out, int32_t dtype, const double* a, int64_t m, double div) {            \
        if (dtype == NB_F64) {                                                                         \
            double* o = (double*)out;                                                                  \
            for (int64_t j = 0; j < m; j++) o[j] = VALUE(a[j], div);                                   \
        } else if (dtype == NB_F32) {                                                                  \
            float* o = (float*)out;                                                                    \
            for (int64_t j = 0; j < m; j++) o[j] = (float)VALUE(a[j], div);                            \
        } else {                                                                                       \
            uint16_t* o = (uint16_t*)out;                                                              \
            for (int64_t j = 0; j < m; j++) {                                                          \
                const double d = VALUE(a[j], div);                                                     \
                const float f = (float)d;                                                              \
                uint32_t u;                                                                            \
                memcpy(&u, &f, sizeof u);                                                              \
                const uint32_t inexact = (double)f != d && d == d, away = fabs((double)f) > fabs(d);   \
                o[j] = nb_bf16_of_bits(inexact ? (u - away) | 1u : u); /* a float rounded to odd */    \
            }                                                                                          \
        }                                                                                              \
    }
NB_RED_STORE_RUN(nb_red_store_run_div, nb_red_div)
NB_RED_STORE_RUN(nb_red_store_run_as_is, nb_red_as_is)
NB_INLINE bool nb_red_store_run_f(char* out, int64_t os, int32_t dtype, const double* a, int64_t m, double div) {
    if ((dtype != NB_F64 && dtype != NB_F32 && dtype != NB_BF16) || os != (int64_t)nb_dtype_sizes[dtype]) return false;
    if (div == 1.0) nb_red_store_run_as_is(out, dtype, a, m, div);  /* no division: it is the slow part */
    else nb_red_store_run_div(out, dtype, a, m, div);
    return true;
}
/* A FINISH for double accumulators stored as they are. */
#define NB_FINISH_RUN(a, m, out, os, c) nb_red_store_run_f((out)[0], (os)[0], (c)->out_dtype[0], (a), (m), 1.0)
#define NB_NO_FINISH(a, m, out, os, c) false

/* A kernel with one scalar accumulator of type A per output, input type T.
 * RUN(p, n, s, v): folds n elements at p (byte stride s) into v, returns it.
 * STEP(v, e): folds one element into v.  MERGE(a, b): a = a (+) b.
 * COLS(a, m, x, n, si, sj): an optional special case of the column loop;
 * returns true when it handled the block (NB_NO_COLS: never). ROWS(a, m, x,
 * n, si, sj): the same for the row loop (several short rows at once).
 * FINISH(a, m, out, os, c): an optional run store of the m results; returns
 * true when it wrote them (NB_NO_FINISH: never). */
#define NB_NO_COLS(a, m, x, n, si, sj) false
#define SCALAR_KERNEL(NAME, T, A, INITV, RUN, STEP, MERGE, STORE)                                        \
    SCALAR_KERNEL_X(NAME, T, A, INITV, RUN, STEP, MERGE, STORE, NB_NO_COLS)
#define SCALAR_KERNEL_X(NAME, T, A, INITV, RUN, STEP, MERGE, STORE, COLS)                                \
    SCALAR_KERNEL_RC(NAME, T, A, INITV, RUN, STEP, MERGE, STORE, NB_NO_COLS, COLS, NB_NO_FINISH)
#define SCALAR_KERNEL_RC(NAME, T, A, INITV, RUN, STEP, MERGE, STORE, ROWS, COLS, FINISH)                 \
    static void NAME##_init(void* acc, int64_t m, const nb_red_ctx* c) {                              \
        (void)c;                                                                                       \
        A* a = acc;                                                                                    \
        for (int64_t j = 0; j < m; j++) a[j] = (INITV);                                                \
    }                                                                                                  \
    NB_SIMD static void NAME##_accum(void* acc, int64_t m, const char* x, int64_t n, int64_t si,       \
                                     int64_t sj, int64_t idx0, const nb_red_ctx* c) {                  \
        (void)idx0, (void)c;                                                                           \
        A* a = acc;                                                                                    \
        if (m == 1 || llabs(si) <= llabs(sj)) {                                                        \
            if (!ROWS(a, m, x, n, si, sj))                                                             \
                for (int64_t j = 0; j < m; j++) a[j] = RUN((const T*)(x + j * sj), n, si, a[j]);       \
        } else if (COLS(a, m, x, n, si, sj)) {                                                         \
        } else if (sj == (int64_t)sizeof(T)) {                                                         \
            for (int64_t i = 0; i < n; i++) {                                                          \
                const T* r = (const T*)(x + i * si);                                                   \
                for (int64_t j = 0; j < m; j++) { A v = a[j]; const T e = r[j]; STEP(v, e); a[j] = v; }  \
            }                                                                                          \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++)                                                            \
                for (int64_t j = 0; j < m; j++) {                                                      \
                    A v = a[j];                                                                        \
                    const T e = *(const T*)(x + i * si + j * sj);                                      \
                    STEP(v, e);                                                                        \
                    a[j] = v;                                                                          \
                }                                                                                      \
        }                                                                                              \
    }                                                                                                  \
    static void NAME##_merge(void* acc, const void* later, int64_t m, const nb_red_ctx* c) {           \
        (void)c;                                                                                       \
        A* a = acc;                                                                                    \
        const A* b = later;                                                                            \
        for (int64_t j = 0; j < m; j++) MERGE(a[j], b[j]);                                             \
    }                                                                                                  \
    NB_SIMD static void NAME##_finish(const void* acc, int64_t m, char* const* out, const int64_t* os,  \
                                      const nb_red_ctx* c) {                                           \
        const A* a = acc;                                                                              \
        if (FINISH(a, m, out, os, c)) return;                                                          \
        for (int64_t j = 0; j < m; j++) STORE(out[0] + j * os[0], a[j]);                               \
    }                                                                                                  \
    static const nb_red_kernel NAME = {sizeof(A), false, NAME##_init, NAME##_accum, NAME##_merge,      \
                                       NAME##_finish};

/* A RUN from a STEP: contiguous and strided loops. */
#define STEP_RUN(NAME, T, A, STEP)                                                                     \
    NB_INLINE A NAME(const T* p, int64_t n, int64_t s, A v) {                                          \
        if (s == (int64_t)sizeof(T)) {                                                                 \
            for (int64_t i = 0; i < n; i++) { const T e = p[i]; STEP(v, e); }                          \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++) { const T e = *(const T*)((const char*)p + i * s); STEP(v, e); } \
        }                                                                                              \
        return v;                                                                                      \
    }

/* Dtype families for kernel tables: (C type, tag, code). */
#define NB_RED_FLOATS(X, ...) X(float, f32, NB_F32, __VA_ARGS__) X(double, f64, NB_F64, __VA_ARGS__)
#define NB_RED_INTS(X, ...)                                                                          \
    X(int8_t, i8, NB_I8, __VA_ARGS__) X(int16_t, i16, NB_I16, __VA_ARGS__)                           \
    X(int32_t, i32, NB_I32, __VA_ARGS__) X(int64_t, i64, NB_I64, __VA_ARGS__)                        \
    X(uint8_t, u8, NB_U8, __VA_ARGS__) X(uint8_t, b8, NB_BOOL, __VA_ARGS__)

#endif /* NABLA_OPS_REDUCE_H_ */
