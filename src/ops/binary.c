/* binary.c: elementwise binary ops (arithmetic, comparison, logical, bitwise).
 * Each op is a descriptor for the shared front-end (core/elementwise.c) and one
 * CPU loop per compute dtype, generated from a scalar expression in x and y.
 * Integer division semantics follow PyTorch and Python: floor division and
 * remainder round toward -inf, division by zero raises, pow of a negative
 * integer exponent raises. */
#include "binary.h"

#include "../core/elementwise.h"
#include "../cpu/kernels.h" /* nb_cpu_convert_fn */
#include "nextafter_scalar.h"

#include <math.h>

/* The integer helpers are written once for signed and unsigned types. */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* One loop: contiguous, scalar-broadcast and general strided cases, so the common
 * ones vectorise. EXPR sees x, y and the op's constants (prologue PRE). */
#define BINARY_LOOP(NAME, T, OT, PRE, EXPR)                                                            \
    static void NAME(char* const* d, const int64_t* s, int64_t n, const void* vctx) {                  \
        nb_ew_ctx* ctx = (nb_ew_ctx*)vctx;                                                             \
        (void)ctx;                                                                                     \
        PRE;                                                                                           \
        const int64_t z = sizeof(T), oz = sizeof(OT);                                                  \
        OT* o = (OT*)d[0];                                                                             \
        const T* a = (const T*)d[1];                                                                   \
        const T* b = (const T*)d[2];                                                                   \
        if (s[0] == oz && s[1] == z && s[2] == z) {                                                    \
            for (int64_t i = 0; i < n; i++) { const T x = a[i], y = b[i]; o[i] = (OT)(EXPR); }         \
        } else if (s[0] == oz && s[1] == z && s[2] == 0) {                                             \
            const T y = b[0];                                                                          \
            for (int64_t i = 0; i < n; i++) { const T x = a[i]; o[i] = (OT)(EXPR); }                   \
        } else if (s[0] == oz && s[1] == 0 && s[2] == z) {                                             \
            const T x = a[0];                                                                          \
            for (int64_t i = 0; i < n; i++) { const T y = b[i]; o[i] = (OT)(EXPR); }                   \
        } else {                                                                                       \
            for (int64_t i = 0; i < n; i++) {                                                          \
                const T x = *(const T*)(d[1] + i * s[1]), y = *(const T*)(d[2] + i * s[2]);            \
                *(OT*)(d[0] + i * s[0]) = (OT)(EXPR);                                                  \
            }                                                                                          \
        }                                                                                              \
    }

#define NOTHING (void)0
#define ALPHA_F(T) const T al = (T)ctx->alpha
#define ALPHA_I(T) const T al = (T)ctx->ialpha

/* Families of dtypes an op supports: (C type, tag, nabla code). */
#define FLOATS(X, ...) X(float, f32, NB_F32, __VA_ARGS__) X(double, f64, NB_F64, __VA_ARGS__)
#define INTS(X, ...)                                                                                   \
    X(int8_t, i8, NB_I8, __VA_ARGS__) X(int16_t, i16, NB_I16, __VA_ARGS__)                             \
    X(int32_t, i32, NB_I32, __VA_ARGS__) X(int64_t, i64, NB_I64, __VA_ARGS__) X(uint8_t, u8, NB_U8, __VA_ARGS__)
#define BOOLS(X, ...) X(uint8_t, b8, NB_BOOL, __VA_ARGS__)

/* Defines OP_tag loops for a family with output type = input type, or bool. */
#define DEF_SAME(T, TAG, CODE, OP, PRE, EXPR) BINARY_LOOP(OP##_##TAG, T, T, PRE(T), EXPR)
#define DEF_BOOL(T, TAG, CODE, OP, PRE, EXPR) BINARY_LOOP(OP##_##TAG, T, uint8_t, PRE(T), EXPR)
#define ENTRY(T, TAG, CODE, OP, ...) [CODE] = OP##_##TAG,
#define NONE(T) NOTHING

/* ---- integer helpers (Python semantics, no UB) ---- */

/* MINUS_ONE(y): y is -1 of a signed type (MIN / -1 would trap; for uint8, (T)-1 is 255). */
#define MINUS_ONE(T, y) ((T)-1 < 0 && (y) == (T)-1)
#define INT_HELPERS(T, TAG, CODE, ...)                                                                 \
    static inline T h_floordiv_##TAG(T x, T y, nb_ew_ctx* ctx) {                                       \
        if (y == 0) { atomic_store(&ctx->error, NB_EW_ZERO_DIVISION); return 0; }                      \
        if (MINUS_ONE(T, y)) return (T)(0 - (uint64_t)x); /* wraps instead of trapping */              \
        T q = (T)(x / y);                                                                              \
        return (x % y != 0 && ((x < 0) != (y < 0))) ? (T)(q - 1) : q;                                  \
    }                                                                                                  \
    static inline T h_truncdiv_##TAG(T x, T y, nb_ew_ctx* ctx) {                                       \
        if (y == 0) { atomic_store(&ctx->error, NB_EW_ZERO_DIVISION); return 0; }                      \
        return MINUS_ONE(T, y) ? (T)(0 - (uint64_t)x) : (T)(x / y);                                    \
    }                                                                                                  \
    static inline T h_remainder_##TAG(T x, T y, nb_ew_ctx* ctx) {                                      \
        if (y == 0) { atomic_store(&ctx->error, NB_EW_ZERO_DIVISION); return 0; }                      \
        if (MINUS_ONE(T, y)) return 0;                                                                 \
        T m = (T)(x % y);                                                                              \
        return (m != 0 && ((y < 0) != (m < 0))) ? (T)(m + y) : m;                                      \
    }                                                                                                  \
    static inline T h_fmod_##TAG(T x, T y, nb_ew_ctx* ctx) {                                           \
        if (y == 0) { atomic_store(&ctx->error, NB_EW_ZERO_DIVISION); return 0; }                      \
        return MINUS_ONE(T, y) ? 0 : (T)(x % y);                                                       \
    }                                                                                                  \
    static inline T h_ipow_##TAG(T x, T y, nb_ew_ctx* ctx) {                                           \
        (void)ctx;                                                                                     \
        if (y < 0) /* as PyTorch: 1 and -1 stay exact, every other base gives 0 */                     \
            return x == 1 ? 1 : MINUS_ONE(T, x) ? ((y & 1) ? (T)-1 : 1) : 0;                           \
        uint64_t r = 1, base = (uint64_t)x, e = (uint64_t)y; /* wraps like PyTorch's integer pow */    \
        while (e) { if (e & 1) r *= base; base *= base; e >>= 1; }                                     \
        return (T)r;                                                                                   \
    }                                                                                                  \
    static inline T h_shl_##TAG(T x, T y) {                                                            \
        return (y < 0 || (uint64_t)y >= sizeof(T) * 8) ? 0 : (T)((uint64_t)x << y);                    \
    }                                                                                                  \
    static inline T h_shr_##TAG(T x, T y) {                                                            \
        if (y < 0 || (uint64_t)y >= sizeof(T) * 8) return (T)(x < 0 ? -1 : 0);                         \
        return (T)(x >> y);                                                                            \
    }
INTS(INT_HELPERS)

/* Python's floor division and modulo for floats (as NumPy's npy_divmod). */
static inline double floordiv_f(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
    if (div == 0) return copysign(0.0, a / b);
    double fl = floor(div);
    return div - fl > 0.5 ? fl + 1.0 : fl;
}

static inline double remainder_f(double a, double b) {
    double m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}

#define MAXF(x, y) ((x) != (x) || (y) != (y) ? (x) + (y) : (x) > (y) ? (x) : (y))
#define MINF(x, y) ((x) != (x) || (y) != (y) ? (x) + (y) : (x) < (y) ? (x) : (y))

/* ---- loops ---- */

FLOATS(DEF_SAME, add, ALPHA_F, x + al * y)
INTS(DEF_SAME, add, ALPHA_I, x + al * y)
BOOLS(DEF_SAME, add, NONE, x | y)
FLOATS(DEF_SAME, sub, ALPHA_F, x - al * y)
INTS(DEF_SAME, sub, ALPHA_I, x - al * y)
FLOATS(DEF_SAME, mul, NONE, x * y)
INTS(DEF_SAME, mul, NONE, x * y)
BOOLS(DEF_SAME, mul, NONE, x & y)
FLOATS(DEF_SAME, div, NONE, x / y)
FLOATS(DEF_SAME, divtrunc, NONE, trunc((double)x / (double)y))
FLOATS(DEF_SAME, divfloor, NONE, floordiv_f(x, y))
FLOATS(DEF_SAME, remainder, NONE, remainder_f(x, y))
FLOATS(DEF_SAME, fmod, NONE, fmod((double)x, (double)y))
FLOATS(DEF_SAME, pow, NONE, pow((double)x, (double)y))
FLOATS(DEF_SAME, maximum, NONE, MAXF(x, y))
FLOATS(DEF_SAME, minimum, NONE, MINF(x, y))
FLOATS(DEF_SAME, atan2, NONE, atan2((double)x, (double)y))
/* alpha, beta: the result format's fraction bits and smallest normal exponent (float16 computes as float32) */
FLOATS(DEF_SAME, nextafter, NONE, nb_scalar_nextafter((double)x, (double)y, (int)ctx->alpha, (int)ctx->beta))
#define INT_CALL(T, TAG, CODE, OP, FN) BINARY_LOOP(OP##_##TAG, T, T, NOTHING, h_##FN##_##TAG(x, y, ctx))
INTS(INT_CALL, divtrunc, truncdiv)
INTS(INT_CALL, divfloor, floordiv)
INTS(INT_CALL, remainder, remainder)
INTS(INT_CALL, fmod, fmod)
INTS(INT_CALL, pow, ipow)
#define INT_CALL2(T, TAG, CODE, OP, FN) BINARY_LOOP(OP##_##TAG, T, T, NOTHING, h_##FN##_##TAG(x, y))
INTS(INT_CALL2, shl, shl)
INTS(INT_CALL2, shr, shr)
INTS(DEF_SAME, maximum, NONE, x > y ? x : y)
INTS(DEF_SAME, minimum, NONE, x < y ? x : y)
BOOLS(DEF_SAME, maximum, NONE, x | y)
BOOLS(DEF_SAME, minimum, NONE, x & y)
INTS(DEF_SAME, band, NONE, x & y)
INTS(DEF_SAME, bor, NONE, x | y)
INTS(DEF_SAME, bxor, NONE, x ^ y)
BOOLS(DEF_SAME, band, NONE, x & y)
BOOLS(DEF_SAME, bor, NONE, x | y)
BOOLS(DEF_SAME, bxor, NONE, x ^ y)

#define ALL(X, ...) FLOATS(X, __VA_ARGS__) INTS(X, __VA_ARGS__) BOOLS(X, __VA_ARGS__)
ALL(DEF_BOOL, eq, NONE, x == y)
ALL(DEF_BOOL, ne, NONE, x != y)
ALL(DEF_BOOL, lt, NONE, x < y)
ALL(DEF_BOOL, le, NONE, x <= y)
ALL(DEF_BOOL, gt, NONE, x > y)
ALL(DEF_BOOL, ge, NONE, x >= y)
ALL(DEF_BOOL, land, NONE, (x != 0) & (y != 0))
ALL(DEF_BOOL, lor, NONE, (x != 0) | (y != 0))
ALL(DEF_BOOL, lxor, NONE, (x != 0) ^ (y != 0))
FLOATS(DEF_SAME, relubw, NONE, y <= 0 ? 0 : x) /* x: the gradient, y: relu's result (NaN passes it) */

/* ---- descriptors ---- */

#define OP(VAR, NAME, CODE, RESULT, TO_FLOAT, ...)                                                  \
    _Static_assert((CODE) < NB_BK_NUM_BINARY, NAME ": not a binary kernel code");                      \
    static const nb_ew_op VAR = {NAME, CODE, 2, RESULT, TO_FLOAT, false, NB_EW_OUT_CAST, {__VA_ARGS__}};

OP(op_add, "add", NB_BK_ADD, NB_EW_SAME, false, ALL(ENTRY, add))
OP(op_sub, "sub", NB_BK_SUB, NB_EW_SAME, false, FLOATS(ENTRY, sub) INTS(ENTRY, sub))
OP(op_mul, "mul", NB_BK_MUL, NB_EW_SAME, false, ALL(ENTRY, mul))
OP(op_div, "div", NB_BK_DIV, NB_EW_SAME, true, FLOATS(ENTRY, div))
OP(op_div_trunc, "div", NB_BK_DIV_TRUNC, NB_EW_SAME, false, FLOATS(ENTRY, divtrunc) INTS(ENTRY, divtrunc))
OP(op_div_floor, "div", NB_BK_DIV_FLOOR, NB_EW_SAME, false, FLOATS(ENTRY, divfloor) INTS(ENTRY, divfloor))
OP(op_floor_divide, "floor_divide", NB_BK_DIV_FLOOR, NB_EW_SAME, false, FLOATS(ENTRY, divfloor) INTS(ENTRY, divfloor))
OP(op_remainder, "remainder", NB_BK_REMAINDER, NB_EW_SAME, false, FLOATS(ENTRY, remainder) INTS(ENTRY, remainder))
OP(op_fmod, "fmod", NB_BK_FMOD, NB_EW_SAME, false, FLOATS(ENTRY, fmod) INTS(ENTRY, fmod))
OP(op_pow, "pow", NB_BK_POW, NB_EW_SAME, false, FLOATS(ENTRY, pow) INTS(ENTRY, pow))
OP(op_maximum, "maximum", NB_BK_MAXIMUM, NB_EW_SAME, false, ALL(ENTRY, maximum))
OP(op_minimum, "minimum", NB_BK_MINIMUM, NB_EW_SAME, false, ALL(ENTRY, minimum))
OP(op_atan2, "atan2", NB_BK_ATAN2, NB_EW_SAME, true, FLOATS(ENTRY, atan2))
OP(op_nextafter, "nextafter", NB_BK_NEXTAFTER, NB_EW_SAME, false, FLOATS(ENTRY, nextafter))
OP(op_eq, "eq", NB_BK_EQ, NB_EW_BOOL, false, ALL(ENTRY, eq))
OP(op_ne, "ne", NB_BK_NE, NB_EW_BOOL, false, ALL(ENTRY, ne))
OP(op_lt, "lt", NB_BK_LT, NB_EW_BOOL, false, ALL(ENTRY, lt))
OP(op_le, "le", NB_BK_LE, NB_EW_BOOL, false, ALL(ENTRY, le))
OP(op_gt, "gt", NB_BK_GT, NB_EW_BOOL, false, ALL(ENTRY, gt))
OP(op_ge, "ge", NB_BK_GE, NB_EW_BOOL, false, ALL(ENTRY, ge))
OP(op_logical_and, "logical_and", NB_BK_LOGICAL_AND, NB_EW_BOOL, false, ALL(ENTRY, land))
OP(op_logical_or, "logical_or", NB_BK_LOGICAL_OR, NB_EW_BOOL, false, ALL(ENTRY, lor))
OP(op_logical_xor, "logical_xor", NB_BK_LOGICAL_XOR, NB_EW_BOOL, false, ALL(ENTRY, lxor))
OP(op_bitwise_and, "bitwise_and", NB_BK_BITWISE_AND, NB_EW_SAME, false, INTS(ENTRY, band) BOOLS(ENTRY, band))
OP(op_bitwise_or, "bitwise_or", NB_BK_BITWISE_OR, NB_EW_SAME, false, INTS(ENTRY, bor) BOOLS(ENTRY, bor))
OP(op_bitwise_xor, "bitwise_xor", NB_BK_BITWISE_XOR, NB_EW_SAME, false, INTS(ENTRY, bxor) BOOLS(ENTRY, bxor))
OP(op_shl, "bitwise_left_shift", NB_BK_BITWISE_LEFT_SHIFT, NB_EW_SAME, false, INTS(ENTRY, shl))
OP(op_shr, "bitwise_right_shift", NB_BK_BITWISE_RIGHT_SHIFT, NB_EW_SAME, false, INTS(ENTRY, shr))
OP(op_relu_backward, "relu_backward", NB_BK_NONE, NB_EW_SAME, false, FLOATS(ENTRY, relubw))

/* ---- the ABI ---- */

static nb_status run2(const nb_ew_op* op, const nb_tensor* a, const nb_tensor* b, nb_ew_ctx* ctx, nb_tensor* dst,
                      nb_tensor** out) {
    const nb_tensor* in[2] = {a, b};
    return nb_ew_run(op, in, dst, ctx, out);
}

/* For integer results alpha must be an integer the result dtype holds (PyTorch:
 * "For integral input tensors, argument alpha must not be a floating point number"). */
static nb_status with_alpha(const nb_ew_op* op, const nb_tensor* a, const nb_tensor* b, double alpha,
                            nb_tensor* dst, nb_tensor** out) {
    nb_ew_ctx ctx = {.alpha = alpha, .ialpha = (int64_t)alpha};
    if (alpha != 1.0 && nb_tensor_ok(a) && nb_tensor_ok(b)) {
        const nb_tensor* in[2] = {a, b};
        int32_t result = nb_result_type(in, 2);
        if (!nb_dtype_is_floating(result)) {
            if (alpha != (double)(int64_t)alpha)
                return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: for integral input tensors, argument alpha must not "
                                "be a floating point number (got %g)", op->name, alpha);
            if (!nb_value_fits(alpha, result))
                return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: alpha %lld cannot be converted to type %s without "
                                "overflow", op->name, (long long)ctx.ialpha, nb_dtype_str(result));
        }
    }
    return run2(op, a, b, &ctx, dst, out);
}

nb_status nbi_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    return with_alpha(&op_add, a, b, alpha, dst, out);
}

nb_status nbi_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_tensor_ok(a) && nb_tensor_ok(b) && (a->dtype == NB_BOOL || b->dtype == NB_BOOL))
        return nb_error(NB_ERR_DTYPE, "sub: subtraction, the `-` operator, with %s is not supported. %s",
                        a->dtype == b->dtype ? "two bool tensors" : "a bool tensor",
                        a->dtype == b->dtype ? "Use the `^` or `logical_xor()` operator instead."
                                             : "If you are trying to invert a mask, use the `~` or `logical_not()` "
                                               "operator instead.");
    return with_alpha(&op_sub, a, b, alpha, dst, out);
}

nb_status nbi_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst,
                        nb_tensor** out) {
    switch (rounding_mode) {
        case NB_ROUND_NONE: return run2(&op_div, a, b, NULL, dst, out);
        case NB_ROUND_TRUNC: return run2(&op_div_trunc, a, b, NULL, dst, out);
        case NB_ROUND_FLOOR: return run2(&op_div_floor, a, b, NULL, dst, out);
        default:
            return nb_error(NB_ERR_INVALID_ARGUMENT, "div: expected rounding_mode to be NB_ROUND_NONE, "
                            "NB_ROUND_TRUNC or NB_ROUND_FLOOR, got %d", (int)rounding_mode);
    }
}

#define SIMPLE(FN, OPVAR)                                                                          \
    nb_status FN(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {            \
        return run2(&OPVAR, a, b, NULL, dst, out);                                                     \
    }
SIMPLE(nbi_mul, op_mul)
SIMPLE(nbi_floor_divide, op_floor_divide)
SIMPLE(nbi_remainder, op_remainder)
SIMPLE(nbi_fmod, op_fmod)
/* A negative scalar exponent of an integer base fails before any cast (as in
 * PyTorch); negative tensor exponents give 0 except for bases 1 and -1. */
nb_status nbi_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_tensor_ok(a) && nb_tensor_ok(b) && b->wrapped_number && !nb_dtype_is_floating(b->dtype)) {
        const nb_tensor* in[2] = {a, b};
        int64_t exponent = 0;
        nb_cpu_convert_fn(b->dtype, NB_I64)(&exponent, 1, nb_tensor_data(b), 1, 1);
        if (exponent < 0 && !nb_dtype_is_floating(nb_result_type(in, 2)))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "pow: Integers to negative integer powers are not allowed.");
    }
    return run2(&op_pow, a, b, NULL, dst, out);
}
SIMPLE(nbi_maximum, op_maximum)
SIMPLE(nbi_minimum, op_minimum)
SIMPLE(nbi_atan2, op_atan2)

/* The result dtype decides the step (float16 and bfloat16 compute as float32), as PyTorch. */
nb_status nbi_nextafter(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ew_ctx ctx = {.alpha = 23, .beta = -126};
    if (nb_tensor_ok(a) && nb_tensor_ok(b)) {
        const nb_tensor* in[2] = {a, b};
        switch (nb_result_type(in, 2)) {
            case NB_F64: ctx.alpha = 52, ctx.beta = -1022; break;
            case NB_F16: ctx.alpha = 10, ctx.beta = -14; break;
            case NB_BF16: ctx.alpha = 7, ctx.beta = -126; break;
            default: break;
        }
    }
    return run2(&op_nextafter, a, b, &ctx, dst, out);
}
SIMPLE(nbi_eq, op_eq)
SIMPLE(nbi_ne, op_ne)
SIMPLE(nbi_lt, op_lt)
SIMPLE(nbi_le, op_le)
SIMPLE(nbi_gt, op_gt)
SIMPLE(nbi_ge, op_ge)
SIMPLE(nbi_logical_and, op_logical_and)
SIMPLE(nbi_logical_or, op_logical_or)
SIMPLE(nbi_logical_xor, op_logical_xor)
SIMPLE(nbi_bitwise_and, op_bitwise_and)
SIMPLE(nbi_bitwise_or, op_bitwise_or)
SIMPLE(nbi_bitwise_xor, op_bitwise_xor)
SIMPLE(nbi_bitwise_left_shift, op_shl)
SIMPLE(nbi_bitwise_right_shift, op_shr)

nb_status nb_relu_backward(const nb_tensor* grad, const nb_tensor* result, nb_tensor** out) {
    return run2(&op_relu_backward, grad, result, NULL, NULL, out);
}
