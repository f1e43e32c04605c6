/* unary.c: elementwise unary ops (math, activations, rounding, predicates) and
 * the ternary where. Each is a descriptor for the shared front-end
 * (core/elementwise.c) plus one CPU loop per compute dtype, generated from a
 * scalar expression in x; the float loops live in unary_float.c. Transcendental
 * ops on integer inputs compute in the default float dtype, as in PyTorch. */
#include "unary_float.h"

#include <math.h>

#pragma GCC diagnostic ignored "-Wtype-limits" /* expressions are shared by signed and unsigned types */

/* Integer and bool loops; AVX2 clone for the contiguous runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define NB_SIMD_LOOP _Pragma("omp simd")
#define NB_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
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
#define FENTRY(T, TAG, CODE, F, OP, ...) [CODE] = nb_unary_##OP##_##TAG,
#define IDENTITY(T, TAG, CODE, F, OP) UNARY_LOOP(OP##_##TAG, T, T, NOTHING, x)

/* ---- integer and bool loops (the float ones are in unary_float.c) ---- */
SINTS(DEF, neg, NOTHING, (T)(0 - (uint64_t)x))
UINTS(DEF, neg, NOTHING, (T)(0 - (uint64_t)x))
SINTS(DEF, abs, NOTHING, x < 0 ? (T)(0 - (uint64_t)x) : x)
UINTS(DEF, abs, NOTHING, x)
BOOLS(DEF, abs, NOTHING, x)
INTS(DEF, sign, NOTHING, (T)((x > 0) - (x < 0)))
BOOLS(DEF, sign, NOTHING, x)
INTS(DEF, relu, NOTHING, x > 0 ? x : 0)
INTS(DEF, square, NOTHING, (T)(x * x))
INTS(IDENTITY, floor)
INTS(IDENTITY, ceil)
INTS(IDENTITY, round)
INTS(IDENTITY, trunc)
INTS(DEF, bitwise_not, NOTHING, (T)~x)
BOOLS(DEF, bitwise_not, NOTHING, !x)
INTS(IDENTITY, nan_to_num)
BOOLS(IDENTITY, nan_to_num)
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

#define OPR(VAR, NAME, CODE, NIN, RESULT, TO_FLOAT, COND, RULE, ...)                                    \
    _Static_assert((CODE) == NB_BK_NONE || ((CODE) >= NB_BK_NUM_BINARY && (CODE) < NB_BK_NUM_OPS),         \
                   NAME ": not a unary kernel code");                                                    \
    static const nb_ew_op VAR = {NAME, CODE, NIN, RESULT, TO_FLOAT, COND, RULE, {__VA_ARGS__}};
#define OP(VAR, NAME, CODE, NIN, RESULT, TO_FLOAT, COND, ...) \
    OPR(VAR, NAME, CODE, NIN, RESULT, TO_FLOAT, COND, NB_EW_OUT_CAST, __VA_ARGS__)
/* PyTorch's unary_op ops: an out= tensor has the result's dtype exactly */
#define SAME(VAR, NAME, CODE, TO_FLOAT, ...) \
    OPR(VAR, NAME, CODE, 1, NB_EW_SAME, TO_FLOAT, false, NB_EW_OUT_SAME, __VA_ARGS__)
#define UNARY_FLOAT(OPNAME, CODE) OP(op_##OPNAME, #OPNAME, NB_BK_##CODE, 1, NB_EW_SAME, true, false, FLOATS(FENTRY, OPNAME))
#define UNARY_FLOAT_SAME(OPNAME, CODE) SAME(op_##OPNAME, #OPNAME, NB_BK_##CODE, true, FLOATS(FENTRY, OPNAME))

UNARY_FLOAT(exp, EXP) UNARY_FLOAT(exp2, EXP2) UNARY_FLOAT(expm1, EXPM1) UNARY_FLOAT(log, LOG)
UNARY_FLOAT(log2, LOG2) UNARY_FLOAT(log10, LOG10) UNARY_FLOAT(log1p, LOG1P) UNARY_FLOAT(sqrt, SQRT)
UNARY_FLOAT(rsqrt, RSQRT) UNARY_FLOAT(sin, SIN) UNARY_FLOAT(cos, COS) UNARY_FLOAT(tan, TAN) UNARY_FLOAT(asin, ASIN)
UNARY_FLOAT(acos, ACOS) UNARY_FLOAT(atan, ATAN) UNARY_FLOAT(sinh, SINH) UNARY_FLOAT(cosh, COSH)
UNARY_FLOAT(tanh, TANH) UNARY_FLOAT(sigmoid, SIGMOID) UNARY_FLOAT(erf, ERF) UNARY_FLOAT(erfc, ERFC)
UNARY_FLOAT(reciprocal, RECIPROCAL) UNARY_FLOAT_SAME(silu, SILU) UNARY_FLOAT_SAME(gelu, GELU)
UNARY_FLOAT_SAME(gelu_tanh, GELU_TANH) UNARY_FLOAT_SAME(softplus, SOFTPLUS) UNARY_FLOAT_SAME(elu, ELU)
SAME(op_leaky_relu, "leaky_relu", NB_BK_LEAKY_RELU, false, FLOATS(FENTRY, leaky_relu))
SAME(op_neg, "neg", NB_BK_NEG, false, FLOATS(FENTRY, neg) INTS(ENTRY, neg))
SAME(op_abs, "abs", NB_BK_ABS, false, FLOATS(FENTRY, abs) INTS(ENTRY, abs) BOOLS(ENTRY, abs))
SAME(op_sign, "sign", NB_BK_SIGN, false, FLOATS(FENTRY, sign) INTS(ENTRY, sign) BOOLS(ENTRY, sign))
SAME(op_relu, "relu", NB_BK_RELU, false, FLOATS(FENTRY, relu) INTS(ENTRY, relu))
OP(op_square, "square", NB_BK_SQUARE, 1, NB_EW_SAME, false, false, FLOATS(FENTRY, square) INTS(ENTRY, square))
SAME(op_floor, "floor", NB_BK_FLOOR, false, FLOATS(FENTRY, floor) INTS(ENTRY, floor))
SAME(op_ceil, "ceil", NB_BK_CEIL, false, FLOATS(FENTRY, ceil) INTS(ENTRY, ceil))
SAME(op_round, "round", NB_BK_ROUND, false, FLOATS(FENTRY, round) INTS(ENTRY, round))
SAME(op_trunc, "trunc", NB_BK_TRUNC, false, FLOATS(FENTRY, trunc) INTS(ENTRY, trunc))
SAME(op_bitwise_not, "bitwise_not", NB_BK_BITWISE_NOT, false, INTS(ENTRY, bitwise_not) BOOLS(ENTRY, bitwise_not))
OPR(op_nan_to_num, "nan_to_num", NB_BK_NAN_TO_NUM, 1, NB_EW_SAME, false, false, NB_EW_OUT_SAME_AS_INPUT, FLOATS(FENTRY, nan_to_num) INTS(ENTRY, nan_to_num) BOOLS(ENTRY, nan_to_num))
SAME(op_clamp, "clamp", NB_BK_CLAMP, false, FLOATS(FENTRY, clamp) INTS(ENTRY, clamp))
OP(op_logical_not, "logical_not", NB_BK_LOGICAL_NOT, 1, NB_EW_BOOL, false, false, ALL(ENTRY, logical_not))
OP(op_isnan, "isnan", NB_BK_ISNAN, 1, NB_EW_BOOL, false, false, ALL(ENTRY, isnan))
OP(op_isinf, "isinf", NB_BK_ISINF, 1, NB_EW_BOOL, false, false, ALL(ENTRY, isinf))
OP(op_isfinite, "isfinite", NB_BK_ISFINITE, 1, NB_EW_BOOL, false, false, ALL(ENTRY, isfinite))
OPR(op_where, "where", NB_BK_NONE, 3, NB_EW_SAME, false, true, NB_EW_OUT_WHERE, ALL(ENTRY, where))

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

/* gelu's fused gradient: two inputs (grad_output, input), a binary kernel code. Integer
 * inputs have no loop (an error, as in PyTorch); float16 / bfloat16 compute in float32. */
#define GRAD_OP(VAR, NAME, CODE, TAG)                                                                  \
    _Static_assert((CODE) < NB_BK_NUM_BINARY, NAME ": not a binary kernel code");                      \
    static const nb_ew_op VAR = {NAME, CODE, 2, NB_EW_SAME, false, false, NB_EW_OUT_CAST,               \
                                 {[NB_F32] = nb_unary_##TAG##_f32, [NB_F64] = nb_unary_##TAG##_f64}};
GRAD_OP(op_gelu_backward, "gelu_backward", NB_BK_GELU_BACKWARD, gelu_backward)
GRAD_OP(op_gelu_tanh_backward, "gelu_backward", NB_BK_GELU_TANH_BACKWARD, gelu_tanh_backward)

nb_status nbi_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh,
                            nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* in[2] = {grad_output, input};
    return nb_ew_run(approximate_tanh ? &op_gelu_tanh_backward : &op_gelu_backward, in, dst, NULL, out);
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
