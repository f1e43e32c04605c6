/* dtype.c: the dtype table and float16 / bfloat16 conversions (round to nearest even). */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const int64_t nb_dtype_sizes[NB_NUM_DTYPES] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1};

static const char* const dtype_names[NB_NUM_DTYPES] = {
    "float32", "float64", "float16", "bfloat16", "int8",
    "int16",   "int32",   "int64",   "uint8",    "bool",
};

NB_API int64_t nb_dtype_size(int32_t dtype) {
    return nb_dtype_valid(dtype) ? nb_dtype_sizes[dtype] : -1;
}

NB_API const char* nb_dtype_name(int32_t dtype) {
    return nb_dtype_valid(dtype) ? dtype_names[dtype] : NULL;
}

NB_API int32_t nb_dtype_is_floating(int32_t dtype) {
    return dtype == NB_F32 || dtype == NB_F64 || dtype == NB_F16 || dtype == NB_BF16;
}

const char* nb_dtype_str(int32_t dtype) {
    static _Thread_local char buf[4][32];
    static _Thread_local int next;
    if (nb_dtype_valid(dtype)) return dtype_names[dtype];
    char* b = buf[next];
    next = (next + 1) % 4;
    snprintf(b, sizeof buf[0], "dtype(%d)", (int)dtype);
    return b;
}

/* PyTorch spells dtypes in its messages as C++ types ("float != double") or as
 * ScalarType names ("Float and Double"). */
const char* nb_dtype_cpp_name(int32_t dtype) {
    static const char* const names[NB_NUM_DTYPES] = {
        "float", "double", "c10::Half", "c10::BFloat16", "signed char", "short int", "int", "long int",
        "unsigned char", "bool"};
    return nb_dtype_valid(dtype) ? names[dtype] : nb_dtype_str(dtype);
}

const char* nb_dtype_torch_name(int32_t dtype) {
    static const char* const names[NB_NUM_DTYPES] = {
        "Float", "Double", "Half", "BFloat16", "Char", "Short", "Int", "Long", "Byte", "Bool"};
    return nb_dtype_valid(dtype) ? names[dtype] : nb_dtype_str(dtype);
}

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float nb_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return u2f(sign | 0x7f800000u | (man << 13));   /* inf / nan */
    if (exp != 0) return u2f(sign | ((exp + 112) << 23) | (man << 13));
    if (man == 0) return u2f(sign);                                  /* +-0 */
    float v = (float)man * 5.9604644775390625e-08f;                  /* subnormal: man * 2^-24 */
    return sign ? -v : v;
}

uint16_t nb_float_to_half(float f) {
    uint32_t u = f2u(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u)  /* inf or nan (nan keeps a quiet payload bit) */
        return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u | ((a >> 13) & 0x3ffu) : 0u);
    if (a >= 0x477ff000u) return sign | 0x7c00u;  /* rounds past 65504: inf */
    if (a < 0x38800000u) {                         /* below 2^-14: subnormal or zero */
        /* Adding 0.5 makes the FPU round the mantissa at the half's subnormal ulp. */
        float v = u2f(a) + 0.5f;
        return sign | (uint16_t)(f2u(v) - 0x3f000000u);
    }
    uint32_t odd = (a >> 13) & 1u;
    a += 0xc8000fffu + odd;  /* rebias exponent (-112 << 23) and round to nearest even */
    return sign | (uint16_t)(a >> 13);
}

/* double -> float rounding to odd: truncate, then set the last bit if anything
 * was lost. A second rounding from this float to a format with at most 11
 * significant bits then equals a single correct rounding from the double. */
static float round_to_odd(double d) {
    float f = (float)d;
    if (isnan(d) || (double)f == d) return f;
    if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);  /* toward zero (inf becomes FLT_MAX) */
    uint32_t u = f2u(f) | 1u;
    return u2f(u);
}

uint16_t nb_double_to_half(double d) { return nb_float_to_half(round_to_odd(d)); }
uint16_t nb_double_to_bf16(double d) { return nb_float_to_bf16(round_to_odd(d)); }

float nb_bf16_to_float(uint16_t h) { return u2f((uint32_t)h << 16); }

uint16_t nb_float_to_bf16(float f) {
    uint32_t u = f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);  /* quiet nan */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

bool nb_value_fits(double v, int32_t dtype) {
    static const double lo[NB_NUM_DTYPES] = {-3.4028234663852886e38, -1.7976931348623157e308, -65504.0,
                                             -3.3895313892515355e38, -128, -32768, -2147483648.0,
                                             -9223372036854775808.0, -255, 0};
    static const double hi[NB_NUM_DTYPES] = {3.4028234663852886e38, 1.7976931348623157e308, 65504.0,
                                             3.3895313892515355e38, 127, 32767, 2147483647.0,
                                             9223372036854775807.0, 255, 1};
    if (dtype == NB_BOOL || dtype == NB_F64) return true;
    if (nb_dtype_is_floating(dtype) && !isfinite(v)) return true;
    return v >= lo[dtype] && v <= hi[dtype];
}
