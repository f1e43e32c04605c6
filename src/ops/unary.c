/* unary.c: elementwise unary ops (math, activations, rounding, predicates) and
 * the ternary where. Each is a descriptor for the shared front-end
 * (core/elementwise.c) plus one CPU loop per compute dtype, generated from a
 * scalar expression in x. Transcendental ops on integer inputs compute in the
 * default float dtype, as in PyTorch. */
#include "../core/elementwise.h"

#include <math.h>

#pragma GCC diagnostic ignored "-Wtype-limits" /* expressions are shared by signed and unsigned types */

/* glibc's libmvec has SIMD variants of the float functions (at most 4 ulp from the
 * correctly rounded result, special values as in libm): declaring them lets the
 * contiguous loops below run 4 or 8 lanes per call instead of one. */
#if defined(NB_HAVE_LIBMVEC) && defined(__GLIBC__)
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
float expm1f(float);
#pragma omp declare simd notinbranch
float exp2f(float);
#pragma omp declare simd notinbranch
float logf(float);
#pragma omp declare simd notinbranch
float log2f(float);
#pragma omp declare simd notinbranch
float log10f(float);
#pragma omp declare simd notinbranch
float log1pf(float);
#pragma omp declare simd notinbranch
float sinf(float);
#pragma omp declare simd notinbranch
float cosf(float);
#pragma omp declare simd notinbranch
float tanf(float);
#pragma omp declare simd notinbranch
float asinf(float);
#pragma omp declare simd notinbranch
float acosf(float);
#pragma omp declare simd notinbranch
float atanf(float);
#pragma omp declare simd notinbranch
float sinhf(float);
#pragma omp declare simd notinbranch
float coshf(float);
#pragma omp declare simd notinbranch
float tanhf(float);
#pragma omp declare simd notinbranch
float erff(float);
#pragma omp declare simd notinbranch
float erfcf(float);
#define NB_SIMD_LOOP _Pragma("omp simd")
#define NB_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default"))) /* AVX2: 8 lanes */
#else
#define NB_SIMD_LOOP
#define NB_SIMD_CLONES
#endif

/* EXPR and PRE may name the input type as T and the output type as OT_. */
#define UNARY_LOOP(NAME, IT, OT, PRE, EXPR)                                                            \
    NB_SIMD_CLONES static void NAME(char* const* d, const int64_t* s, int64_t n, const void* vctx) {                  \
        typedef IT T;                                                                                  \
        const nb_ew_ctx* ctx = (const nb_ew_ctx*)vctx;                                                 \
        (void)ctx;                                                                                     \
        PRE;                                                                                           \
        if (s[0] == (int64_t)sizeof(OT) && s[1] == (int64_t)sizeof(T)) {                               \
            OT* o = (OT*)d[0];                                                                         \
            const T* a = (const T*)d[1];                                                               \
            NB_SIMD_LOOP                                                                               \
            for (int64_t i = 0; i < n; i++) { const T x = a[i]; (void)x; o[i] = (OT)(EXPR); }                   \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                          \
                const T x = *(const T*)(d[1] + i * s[1]);                                              \
                (void)x;                                                                               \
                *(OT*)(d[0] + i * s[0]) = (OT)(EXPR);                                                  \
            }                                                                                          \
        }                                                                                              \
    }

#define NOTHING (void)0
#define FLOATS(X, ...) X(float, f32, NB_F32, f, __VA_ARGS__) X(double, f64, NB_F64, , __VA_ARGS__)
#define SINTS(X, ...)                                                                                  \
    X(int8_t, i8, NB_I8, , __VA_ARGS__) X(int16_t, i16, NB_I16, , __VA_ARGS__)                         \
    X(int32_t, i32, NB_I32, , __VA_ARGS__) X(int64_t, i64, NB_I64, , __VA_ARGS__)
#define UINTS(X, ...) X(uint8_t, u8, NB_U8, , __VA_ARGS__)
#define INTS(X, ...) SINTS(X, __VA_ARGS__) UINTS(X, __VA_ARGS__)
#define BOOLS(X, ...) X(uint8_t, b8, NB_BOOL, , __VA_ARGS__)
#define ALL(X, ...) FLOATS(X, __VA_ARGS__) INTS(X, __VA_ARGS__) BOOLS(X, __VA_ARGS__)

/* F is the libm suffix ("f" for float): FN(F) pastes expf / exp. */
#define DEF(T, TAG, CODE, F, OP, PRE, EXPR) UNARY_LOOP(OP##_##TAG, T, T, PRE, EXPR)
#define DEF_BOOL(T, TAG, CODE, F, OP, PRE, EXPR) UNARY_LOOP(OP##_##TAG, T, uint8_t, PRE, EXPR)
#define ENTRY(T, TAG, CODE, F, OP, ...) [CODE] = OP##_##TAG,
#define MATH(T, TAG, CODE, F, OP, FN) UNARY_LOOP(OP##_##TAG, T, T, NOTHING, FN##F(x))

static const double SQRT_HALF = 0.70710678118654752440, SQRT_2_OVER_PI = 0.79788456080286535588;

/* ---- float math (ints compute as the default float) ---- */
FLOATS(MATH, exp, exp)
FLOATS(MATH, exp2, exp2)
FLOATS(MATH, expm1, expm1)
FLOATS(MATH, log, log)
FLOATS(MATH, log2, log2)
FLOATS(MATH, log10, log10)
FLOATS(MATH, log1p, log1p)
FLOATS(MATH, sqrt, sqrt)
FLOATS(MATH, sin, sin)
FLOATS(MATH, cos, cos)
FLOATS(MATH, tan, tan)
FLOATS(MATH, asin, asin)
FLOATS(MATH, acos, acos)
FLOATS(MATH, atan, atan)
FLOATS(MATH, sinh, sinh)
FLOATS(MATH, cosh, cosh)
FLOATS(MATH, tanh, tanh)
FLOATS(MATH, erf, erf)
FLOATS(MATH, erfc, erfc)
/* In the input's precision (float calls the vectorised float functions): a few ulp. */
#define EXP_T(v) _Generic((v), float: expf, default: exp)(v)
#define SQRT_T(v) _Generic((v), float: sqrtf, default: sqrt)(v)
FLOATS(DEF, rsqrt, NOTHING, (T)1 / SQRT_T(x))
FLOATS(DEF, reciprocal, NOTHING, 1 / x)
FLOATS(DEF, sigmoid, NOTHING, (T)1 / ((T)1 + EXP_T(-x)))
FLOATS(DEF, silu, NOTHING, x / ((T)1 + EXP_T(-x)))
FLOATS(DEF, gelu, NOTHING, 0.5 * x * (1 + erf(x * SQRT_HALF)))
FLOATS(DEF, gelu_tanh, NOTHING, 0.5 * x * (1 + tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))))
FLOATS(DEF, softplus, const double beta = ctx->alpha; const double threshold = ctx->beta,
       x * beta > threshold ? (double)x : log1p(exp(beta * x)) / beta)
FLOATS(DEF, elu, const double alpha = ctx->alpha, x > 0 ? (double)x : alpha * expm1((double)x))

/* ---- same-dtype ops on floats and integers ---- */
FLOATS(DEF, neg, NOTHING, -x)
SINTS(DEF, neg, NOTHING, (T)(0 - (uint64_t)x))
UINTS(DEF, neg, NOTHING, (T)(0 - (uint64_t)x))
FLOATS(DEF, abs, NOTHING, fabs((double)x))
SINTS(DEF, abs, NOTHING, x < 0 ? (T)(0 - (uint64_t)x) : x)
UINTS(DEF, abs, NOTHING, x)
BOOLS(DEF, abs, NOTHING, x)
FLOATS(DEF, sign, NOTHING, x != x ? x : (T)((x > 0) - (x < 0)))
INTS(DEF, sign, NOTHING, (T)((x > 0) - (x < 0)))
BOOLS(DEF, sign, NOTHING, x)
FLOATS(DEF, relu, NOTHING, x != x ? x : x > 0 ? x : 0)
INTS(DEF, relu, NOTHING, x > 0 ? x : 0)
FLOATS(DEF, leaky_relu, const T slope = (T)ctx->alpha, x > 0 ? x : x * slope)
FLOATS(DEF, square, NOTHING, x * x)
INTS(DEF, square, NOTHING, (T)(x * x))
FLOATS(MATH, floor, floor)
FLOATS(MATH, ceil, ceil)
FLOATS(MATH, round, rint) /* half to even, as PyTorch and NumPy */
FLOATS(MATH, trunc, trunc)
#define IDENTITY(T, TAG, CODE, F, OP) UNARY_LOOP(OP##_##TAG, T, T, NOTHING, x)
INTS(IDENTITY, floor)
INTS(IDENTITY, ceil)
INTS(IDENTITY, round)
INTS(IDENTITY, trunc)
INTS(DEF, bitwise_not, NOTHING, (T)~x)
BOOLS(DEF, bitwise_not, NOTHING, !x)
FLOATS(DEF, nan_to_num, const T vnan = (T)ctx->alpha; const T vpos = (T)ctx->beta; const T vneg = (T)ctx->gamma,
       x != x ? vnan : x == (T)INFINITY ? vpos : x == (T)-INFINITY ? vneg : x)
INTS(IDENTITY, nan_to_num)
BOOLS(IDENTITY, nan_to_num)
/* min(max(x, lo), hi): with lo > hi every element becomes hi, as in PyTorch */
FLOATS(DEF, clamp, const T lo = (T)ctx->alpha; const T hi = (T)ctx->beta,
       x != x ? x : (x < lo ? lo : x) > hi ? hi : (x < lo ? lo : x))
INTS(DEF, clamp, const double lo = ctx->alpha; const double hi = ctx->beta,
     (double)x < lo ? ((double)(T)lo > hi ? (T)hi : (T)lo) : (double)x > hi ? (T)hi : x)

/* ---- predicates (bool results) ---- */
ALL(DEF_BOOL, logical_not, NOTHING, x == 0)
FLOATS(DEF_BOOL, isnan, NOTHING, x != x)
FLOATS(DEF_BOOL, isinf, NOTHING, x == (T)INFINITY || x == (T)-INFINITY)
FLOATS(DEF_BOOL, isfinite, NOTHING, isfinite(x))
INTS(DEF_BOOL, isnan, NOTHING, 0)
INTS(DEF_BOOL, isinf, NOTHING, 0)
INTS(DEF_BOOL, isfinite, NOTHING, 1)
BOOLS(DEF_BOOL, isnan, NOTHING, 0)
BOOLS(DEF_BOOL, isinf, NOTHING, 0)
BOOLS(DEF_BOOL, isfinite, NOTHING, 1)

/* ---- where(cond, a, b): operand 1 is the bool condition ---- */
#define WHERE_LOOP(T, TAG, CODE, F, OP)                                                                \
    static void where_##TAG(char* const* d, const int64_t* s, int64_t n, const void* ctx) {            \
        (void)ctx;                                                                                     \
        for (int64_t i = 0; i < n; i++)                                                                \
            *(T*)(d[0] + i * s[0]) = *(const uint8_t*)(d[1] + i * s[1]) ? *(const T*)(d[2] + i * s[2]) \
                                                                        : *(const T*)(d[3] + i * s[3]); \
    }
ALL(WHERE_LOOP, where)

/* ---- descriptors ---- */

#define OPR(VAR, NAME, NIN, RESULT, TO_FLOAT, COND, RULE, ...) \
    static const nb_ew_op VAR = {NAME, NIN, RESULT, TO_FLOAT, COND, RULE, {__VA_ARGS__}};
#define OP(VAR, NAME, NIN, RESULT, TO_FLOAT, COND, ...) OPR(VAR, NAME, NIN, RESULT, TO_FLOAT, COND, NB_EW_OUT_CAST, __VA_ARGS__)
/* PyTorch's unary_op ops: an out= tensor has the result's dtype exactly */
#define SAME(VAR, NAME, TO_FLOAT, ...) OPR(VAR, NAME, 1, NB_EW_SAME, TO_FLOAT, false, NB_EW_OUT_SAME, __VA_ARGS__)
#define UNARY_FLOAT(OPNAME) OP(op_##OPNAME, #OPNAME, 1, NB_EW_SAME, true, false, FLOATS(ENTRY, OPNAME))
#define UNARY_FLOAT_SAME(OPNAME) SAME(op_##OPNAME, #OPNAME, true, FLOATS(ENTRY, OPNAME))

UNARY_FLOAT(exp) UNARY_FLOAT(exp2) UNARY_FLOAT(expm1) UNARY_FLOAT(log) UNARY_FLOAT(log2) UNARY_FLOAT(log10)
UNARY_FLOAT(log1p) UNARY_FLOAT(sqrt) UNARY_FLOAT(rsqrt) UNARY_FLOAT(sin) UNARY_FLOAT(cos) UNARY_FLOAT(tan)
UNARY_FLOAT(asin) UNARY_FLOAT(acos) UNARY_FLOAT(atan) UNARY_FLOAT(sinh) UNARY_FLOAT(cosh) UNARY_FLOAT(tanh)
UNARY_FLOAT(sigmoid) UNARY_FLOAT(erf) UNARY_FLOAT(erfc) UNARY_FLOAT(reciprocal) UNARY_FLOAT_SAME(silu)
UNARY_FLOAT_SAME(gelu) UNARY_FLOAT_SAME(gelu_tanh) UNARY_FLOAT_SAME(softplus) UNARY_FLOAT_SAME(elu)
SAME(op_leaky_relu, "leaky_relu", false, FLOATS(ENTRY, leaky_relu))
SAME(op_neg, "neg", false, FLOATS(ENTRY, neg) INTS(ENTRY, neg))
SAME(op_abs, "abs", false, FLOATS(ENTRY, abs) INTS(ENTRY, abs) BOOLS(ENTRY, abs))
SAME(op_sign, "sign", false, ALL(ENTRY, sign))
SAME(op_relu, "relu", false, FLOATS(ENTRY, relu) INTS(ENTRY, relu))
OP(op_square, "square", 1, NB_EW_SAME, false, false, FLOATS(ENTRY, square) INTS(ENTRY, square))
SAME(op_floor, "floor", false, FLOATS(ENTRY, floor) INTS(ENTRY, floor))
SAME(op_ceil, "ceil", false, FLOATS(ENTRY, ceil) INTS(ENTRY, ceil))
SAME(op_round, "round", false, FLOATS(ENTRY, round) INTS(ENTRY, round))
SAME(op_trunc, "trunc", false, FLOATS(ENTRY, trunc) INTS(ENTRY, trunc))
SAME(op_bitwise_not, "bitwise_not", false, INTS(ENTRY, bitwise_not) BOOLS(ENTRY, bitwise_not))
OPR(op_nan_to_num, "nan_to_num", 1, NB_EW_SAME, false, false, NB_EW_OUT_SAME_AS_INPUT, ALL(ENTRY, nan_to_num))
SAME(op_clamp, "clamp", false, FLOATS(ENTRY, clamp) INTS(ENTRY, clamp))
OP(op_logical_not, "logical_not", 1, NB_EW_BOOL, false, false, ALL(ENTRY, logical_not))
OP(op_isnan, "isnan", 1, NB_EW_BOOL, false, false, ALL(ENTRY, isnan))
OP(op_isinf, "isinf", 1, NB_EW_BOOL, false, false, ALL(ENTRY, isinf))
OP(op_isfinite, "isfinite", 1, NB_EW_BOOL, false, false, ALL(ENTRY, isfinite))
OPR(op_where, "where", 3, NB_EW_SAME, false, true, NB_EW_OUT_WHERE, ALL(ENTRY, where))

/* ---- the ABI ---- */

static nb_status run1(const nb_ew_op* op, const nb_tensor* x, nb_ew_ctx* ctx, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* in[1] = {x};
    return nb_ew_run(op, in, dst, ctx, out);
}

#define SIMPLE(NAME)                                                                         \
    nb_status nbi_##NAME(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {             \
        return run1(&op_##NAME, x, NULL, dst, out);                                         \
    }
SIMPLE(exp) SIMPLE(exp2) SIMPLE(expm1) SIMPLE(log) SIMPLE(log2) SIMPLE(log10) SIMPLE(log1p) SIMPLE(sqrt)
SIMPLE(rsqrt) SIMPLE(sin) SIMPLE(cos) SIMPLE(tan) SIMPLE(asin) SIMPLE(acos) SIMPLE(atan) SIMPLE(sinh)
SIMPLE(cosh) SIMPLE(tanh) SIMPLE(sigmoid) SIMPLE(erf) SIMPLE(erfc) SIMPLE(reciprocal) SIMPLE(silu)
SIMPLE(neg) SIMPLE(abs) SIMPLE(sign) SIMPLE(relu) SIMPLE(square) SIMPLE(floor) SIMPLE(ceil) SIMPLE(round)
SIMPLE(trunc) SIMPLE(bitwise_not) SIMPLE(logical_not) SIMPLE(isnan) SIMPLE(isinf) SIMPLE(isfinite)

nb_status nbi_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    return run1(approximate_tanh ? &op_gelu_tanh : &op_gelu, x, NULL, dst, out);
}

nb_status nbi_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out) {
    nb_ew_ctx ctx = {.alpha = negative_slope};
    return run1(&op_leaky_relu, x, &ctx, dst, out);
}

nb_status nbi_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ew_ctx ctx = {.alpha = alpha};
    return run1(&op_elu, x, &ctx, dst, out);
}

nb_status nbi_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    if (beta == 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "softplus: beta must be nonzero");
    nb_ew_ctx ctx = {.alpha = beta, .beta = threshold};
    return run1(&op_softplus, x, &ctx, dst, out);
}

nb_status nbi_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst,
                               nb_tensor** out) {
    nb_ew_ctx ctx = {.alpha = nan, .beta = posinf, .gamma = neginf};
    return run1(&op_nan_to_num, x, &ctx, dst, out);
}

nb_status nbi_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out) {
    if (min != min || max != max) return nb_error(NB_ERR_INVALID_ARGUMENT, "clamp: bounds must not be NaN");
    nb_ew_ctx ctx = {.alpha = min, .beta = max};  /* min > max gives max everywhere, as in PyTorch */
    return run1(&op_clamp, x, &ctx, dst, out);
}

nb_status nbi_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* b, nb_tensor* dst,
                          nb_tensor** out) {
    const nb_tensor* in[3] = {condition, a, b};
    return nb_ew_run(&op_where, in, dst, NULL, out);
}
