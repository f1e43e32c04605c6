/* unary_float.c: the float32 / float64 loops of the unary ops, built three times
 * (AVX-512 with 512-bit vectors, AVX2 + FMA, baseline x86-64) and picked at run
 * time, and the fused gradients of gelu (o = g gelu'(x)) alike. The AVX-512 build runs
 * vecmath_avx512.h's whole-vector kernels (exp, expm1, tanh, log, sigmoid, silu, elu,
 * sqrt, rsqrt, float32 erf, gelu and gelu's gradient) and inlines
 * vecmath.h's exp and log1p elsewhere; the other functions, and all of them in
 * the AVX2 and baseline builds, come from glibc's vector math library (libmvec)
 * through `omp declare simd`, 16, 8 or 4 float lanes per call. Strided operands
 * are gathered into a block on the stack so that they run the same vector code.
 *
 * NABLA_CPU_CAPABILITY=avx2 or =default caps the choice (the tests run every build). */
#include "unary_float.h"
#include "vecmath.h"
#include "../cpu/capability.h"

#include <math.h>

#if defined(NB_HAVE_LIBMVEC) && defined(__GLIBC__)
#define NB_SIMD_DECL(F) _Pragma("omp declare simd notinbranch") float F##f(float); \
    _Pragma("omp declare simd notinbranch") double F(double);
NB_SIMD_DECL(exp) NB_SIMD_DECL(expm1) NB_SIMD_DECL(exp2) NB_SIMD_DECL(log) NB_SIMD_DECL(log2)
NB_SIMD_DECL(log10) NB_SIMD_DECL(log1p) NB_SIMD_DECL(sin) NB_SIMD_DECL(cos) NB_SIMD_DECL(tan)
NB_SIMD_DECL(asin) NB_SIMD_DECL(acos) NB_SIMD_DECL(atan) NB_SIMD_DECL(sinh) NB_SIMD_DECL(cosh)
NB_SIMD_DECL(tanh) NB_SIMD_DECL(erf) NB_SIMD_DECL(erfc)
#define NB_SIMD_LOOP _Pragma("omp simd")
#else
#define NB_SIMD_LOOP
#endif

#define NOTHING (void)0
#define BLOCK 256 /* elements of a strided run handled at once */
static const double SQRT_HALF = 0.70710678118654752440, SQRT_2_OVER_PI = 0.79788456080286535588,
                    INV_SQRT_2PI = 0.39894228040143267794;

/* libm's float or double function for the type of v. */
#define LIBM(F, v) _Generic((v), float: F##f, default: F)(v)
/* vecmath.h's exp and log1p in the AVX-512 build (where they beat libmvec), libm
 * (libmvec) otherwise. */
#define V_EXP(v) (NB_AVX512 ? _Generic((v), float: nb_vm_expf, default: nb_vm_exp)(v) : LIBM(exp, v))
#define V_LOG1P(v) (NB_AVX512 ? _Generic((v), float: nb_vm_log1pf, default: log1p)(v) : LIBM(log1p, v))
#define V_SIGMOID(v) _Generic((v), float: nb_vm_sigmoid_from_expf, default: nb_vm_sigmoid_from_exp)( \
    V_EXP(-LIBM(fabs, v)), v)

/* RUN(o, a, m, T, ARG) computes o[0..m) from a[0..m), both contiguous. */
#define EXPR_RUN(o, a, m, T, EXPR) \
    NB_SIMD_LOOP for (int64_t i = 0; i < (m); i++) { const T x = (a)[i]; (o)[i] = (T)(EXPR); }
#define CALL_RUN(o, a, m, T, FN) FN(o, a, m, ctx)

/* A loop over contiguous runs directly (EXPR and PRE may name the element type as T),, over strided ones block by block through a buffer. */
#define UNARY_BLOCKED(NAME, TYPE, PRE, RUN, ARG)                                                         \
    static void NB_V(NAME)(char* const* d, const int64_t* s, int64_t n, const void* vctx) {           \
        typedef TYPE T;                                                                                \
        const nb_ew_ctx* ctx = (const nb_ew_ctx*)vctx;                                                 \
        (void)ctx;                                                                                     \
        PRE;                                                                                           \
        const int64_t so = s[0], si = s[1];                                                            \
        if (so == (int64_t)sizeof(T) && si == (int64_t)sizeof(T)) {                                    \
            RUN((T*)d[0], (const T*)d[1], n, T, ARG);                                                  \
            return;                                                                                    \
        }                                                                                              \
        T buf[BLOCK];                                                                                  \
        for (int64_t i0 = 0; i0 < n; i0 += BLOCK) {                                                    \
            const int64_t m = n - i0 < BLOCK ? n - i0 : BLOCK;                                         \
            const char* ip = d[1] + i0 * si;                                                           \
            char* op = d[0] + i0 * so;                                                                 \
            if (si % (int64_t)sizeof(T) == 0) { /* element strides: vector gathers where there are */  \
                const T* src = (const T*)ip;                                                           \
                const int64_t st = si / (int64_t)sizeof(T);                                            \
                NB_SIMD_LOOP for (int64_t i = 0; i < m; i++) buf[i] = src[i * st];                     \
            } else {                                                                                   \
                for (int64_t i = 0; i < m; i++) memcpy(&buf[i], ip + i * si, sizeof(T));               \
            }                                                                                          \
            T* o = so == (int64_t)sizeof(T) ? (T*)op : buf;                                            \
            RUN(o, buf, m, T, ARG);                                                                    \
            if (o == buf)                                                                              \
                for (int64_t i = 0; i < m; i++) memcpy(op + i * so, &buf[i], sizeof(T));               \
        }                                                                                              \
    }

/* The same for the two-input gradient loops (o = f(g, x)): RUN(o, g, a, m, T, ARG). */
#define BINARY_BLOCKED(NAME, TYPE, RUN, ARG)                                                            \
    static void NB_V(NAME)(char* const* d, const int64_t* s, int64_t n, const void* vctx) {           \
        typedef TYPE T;                                                                                \
        (void)vctx;                                                                                    \
        const int64_t z = (int64_t)sizeof(T);                                                          \
        if (s[0] == z && s[1] == z && s[2] == z) {                                                     \
            RUN((T*)d[0], (const T*)d[1], (const T*)d[2], n, T, ARG);                                  \
            return;                                                                                    \
        }                                                                                              \
        T gb[BLOCK], xb[BLOCK], ob[BLOCK];                                                             \
        for (int64_t i0 = 0; i0 < n; i0 += BLOCK) {                                                    \
            const int64_t m = n - i0 < BLOCK ? n - i0 : BLOCK;                                         \
            for (int64_t i = 0; i < m; i++) {                                                          \
                memcpy(&gb[i], d[1] + (i0 + i) * s[1], sizeof(T));                                     \
                memcpy(&xb[i], d[2] + (i0 + i) * s[2], sizeof(T));                                     \
            }                                                                                          \
            RUN(ob, gb, xb, m, T, ARG);                                                                \
            for (int64_t i = 0; i < m; i++) memcpy(d[0] + (i0 + i) * s[0], &ob[i], sizeof(T));         \
        }                                                                                              \
    }
#define EXPR2_RUN(o, g, a, m, T, EXPR) \
    NB_SIMD_LOOP for (int64_t i = 0; i < (m); i++) { const T x = (a)[i]; (o)[i] = (g)[i] * (T)(EXPR); }
#define CALL2_RUN(o, g, a, m, T, FN) FN(o, g, a, m)
#define GRAD(T, TAG, OP, EXPR) BINARY_BLOCKED(OP##_##TAG, T, EXPR2_RUN, EXPR)

#define FLOATS(X, ...) X(float, f32, __VA_ARGS__) X(double, f64, __VA_ARGS__)
#define LOOP(T, TAG, OP, PRE, EXPR) UNARY_BLOCKED(OP##_##TAG, T, PRE, EXPR_RUN, EXPR)
#define MATH(T, TAG, OP, EXPR) LOOP(T, TAG, OP, NOTHING, EXPR)

#define ARRAYS(OP, F32, F64) \
    UNARY_BLOCKED(OP##_f32, float, NOTHING, CALL_RUN, F32) UNARY_BLOCKED(OP##_f64, double, NOTHING, CALL_RUN, F64)

#define NB_AVX512 0
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) /* GCC's target pragmas */
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi,bmi2,lzcnt,popcnt,f16c,prefer-vector-width=512")
#include "vecmath_avx512.h"
#undef NB_AVX512
#define NB_AVX512 1
#define NB_V(name) name##_avx512
#include "unary_float_loops.h"
#undef NB_V
#undef NB_AVX512
#define NB_AVX512 0
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi,bmi2,lzcnt,popcnt,f16c")
#define NB_V(name) name##_avx2
#include "unary_float_loops.h"
#undef NB_V
#pragma GCC pop_options
#define NB_HAVE_VARIANTS 1
#endif

#define NB_V(name) name##_base
#include "unary_float_loops.h"
#undef NB_V

/* 2: AVX-512, 1: AVX2 + FMA, 0: baseline (src/cpu/capability.h; NABLA_CPU_CAPABILITY caps it). */
static int isa_level(void) {
#ifdef NB_HAVE_VARIANTS
    const int level = nb_cpu_capability();
    return level > NB_CPU_AVX512 ? NB_CPU_AVX512 : level;
#else
    return 0;
#endif
}

#ifdef NB_HAVE_VARIANTS
#define DISPATCH_TAG(NAME)                                                                            \
    void nb_unary_##NAME(char* const* d, const int64_t* s, int64_t n, const void* ctx) {               \
        switch (isa_level()) {                                                                         \
            case 2: NAME##_avx512(d, s, n, ctx); return;                                               \
            case 1: NAME##_avx2(d, s, n, ctx); return;                                                 \
            default: NAME##_base(d, s, n, ctx); return;                                                \
        }                                                                                              \
    }
#else
#define DISPATCH_TAG(NAME)                                                                            \
    void nb_unary_##NAME(char* const* d, const int64_t* s, int64_t n, const void* ctx) {               \
        NAME##_base(d, s, n, ctx);                                                                     \
    }
#endif
#define DISPATCH(OP) DISPATCH_TAG(OP##_f32) DISPATCH_TAG(OP##_f64)
NB_UNARY_FLOAT_OPS(DISPATCH)
NB_UNARY_FLOAT_GRADS(DISPATCH)
