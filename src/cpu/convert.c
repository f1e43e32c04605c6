/* convert.c: strided copy with dtype conversion, for every (src, dst) dtype pair.
 *
 * Floats convert with a single rounding to nearest even (float16/bfloat16 from
 * double through a float rounded to odd); integers through int64 (narrowing wraps, as in C and NumPy);
 * float -> integer truncates toward zero, with NaN and out-of-range values
 * mapping to INT64_MIN first (the x86 behaviour NumPy shows) instead of C's UB;
 * anything -> bool is "!= 0". */
#include "kernels.h"

#include <string.h>

/* bfloat16 <-> float inline (nb_bf16_to_float / nb_float_to_bf16 written so that
 * GCC vectorises the contiguous loops: autocast and the half matrix products
 * convert whole operands through here). Same results: exact widening; round to
 * nearest even, NaN kept quiet. */
static inline float bf16_load(uint16_t h) {
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint16_t bf16_store(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    const uint32_t nan = 0u - (uint32_t)((u & 0x7fffffffu) > 0x7f800000u);  /* all ones for NaN */
    const uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((r & ~nan) | (((u >> 16) | 0x40u) & nan));
}

#ifdef __FLT16_MAX__
/* IEEE binary16 through the compiler's _Float16: exact widening, round to
 * nearest even, NaN quieted with its payload's top bits (as nb_float_to_half). */
static inline float half_load(uint16_t h) {
    _Float16 f;
    memcpy(&f, &h, sizeof f);
    return (float)f;
}

static inline uint16_t half_store(float v) {
    const _Float16 f = (_Float16)v;
    uint16_t h;
    memcpy(&h, &f, sizeof h);
    return h;
}
#endif

static inline int64_t float_to_int(double v) {
    if (v >= -9.2233720368547758e18 && v < 9.2233720368547758e18) return (int64_t)v;
    return INT64_MIN;
}

#define TO_INT(v) _Generic((v), double: float_to_int(v), float: float_to_int(v), default: (int64_t)(v))

#define LOAD_f32(x) (x)
#define LOAD_f64(x) (x)
#ifdef __FLT16_MAX__ /* _Float16: F16C conversions in the AVX2 / AVX-512 clones */
#define LOAD_f16(x) half_load(x)
#else
#define LOAD_f16(x) nb_half_to_float(x)
#endif
#define LOAD_bf16(x) bf16_load(x)
#define LOAD_i8(x) (x)
#define LOAD_i16(x) (x)
#define LOAD_i32(x) (x)
#define LOAD_i64(x) (x)
#define LOAD_u8(x) (x)
#define LOAD_b8(x) (x)

#define STORE_f32(v) ((float)(v))
#define STORE_f64(v) ((double)(v))
/* float sources round once; wider sources go through double, rounded once too. */
#ifdef __FLT16_MAX__
#define STORE_f16(v) _Generic((v), float: half_store((float)(v)), default: nb_double_to_half((double)(v)))
#else
#define STORE_f16(v) _Generic((v), float: nb_float_to_half((float)(v)), default: nb_double_to_half((double)(v)))
#endif
#define STORE_bf16(v) _Generic((v), float: bf16_store((float)(v)), default: nb_double_to_bf16((double)(v)))
#define STORE_i8(v) ((int8_t)TO_INT(v))
#define STORE_i16(v) ((int16_t)TO_INT(v))
#define STORE_i32(v) ((int32_t)TO_INT(v))
#define STORE_i64(v) ((int64_t)TO_INT(v))
#define STORE_u8(v) ((uint8_t)TO_INT(v))
#define STORE_b8(v) ((uint8_t)((v) != 0))

/* (code, C type, tag) for every dtype, in code order; two copies for nesting. */
#define DTYPES_A(X, ...)                                                                     \
    X(float, f32, __VA_ARGS__) X(double, f64, __VA_ARGS__) X(uint16_t, f16, __VA_ARGS__)     \
    X(uint16_t, bf16, __VA_ARGS__) X(int8_t, i8, __VA_ARGS__) X(int16_t, i16, __VA_ARGS__)   \
    X(int32_t, i32, __VA_ARGS__) X(int64_t, i64, __VA_ARGS__) X(uint8_t, u8, __VA_ARGS__)    \
    X(uint8_t, b8, __VA_ARGS__)
#define DTYPES_B(X)                                                                          \
    X(float, f32) X(double, f64) X(uint16_t, f16) X(uint16_t, bf16) X(int8_t, i8)            \
    X(int16_t, i16) X(int32_t, i32) X(int64_t, i64) X(uint8_t, u8) X(uint8_t, b8)

/* Every pair is built for AVX-512, AVX2 and baseline, picked at load time (the
 * float <-> bfloat16 / float16 pairs gain most: wider vectors, F16C); GCC >= 11
 * on glibc x86-64, elsewhere the baseline build. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && defined(__GNUC__) && \
    !defined(__clang__) && __GNUC__ >= 11 && !defined(NB_NO_TARGET_CLONES)
#define CVT_CLONES __attribute__((target_clones(NB_CLONE_TARGETS)))
#else
#define CVT_CLONES
#endif

#define DEF_CVT(DT, DTAG, ST, STAG)                                                          \
    CVT_CLONES static void cvt_##STAG##_##DTAG(void* dst, int64_t ds, const void* src, int64_t ss,     \
                                    int64_t n) {                                           \
        DT* d = dst;                                                                       \
        const ST* s = src;                                                                 \
        if (ds == 1 && ss == 1) {                                                          \
            for (int64_t i = 0; i < n; i++) d[i] = STORE_##DTAG(LOAD_##STAG(s[i]));        \
        } else {                                                                           \
            for (int64_t i = 0; i < n; i++) d[i * ds] = STORE_##DTAG(LOAD_##STAG(s[i * ss])); \
        }                                                                                  \
    }
#define DEF_ROW(ST, STAG) DTYPES_A(DEF_CVT, ST, STAG)
DTYPES_B(DEF_ROW)

#define CVT_ENTRY(DT, DTAG, ST, STAG) cvt_##STAG##_##DTAG,
#define CVT_ROW(ST, STAG) {DTYPES_A(CVT_ENTRY, ST, STAG)},
/* convert_fns[src][dst] */
static const nb_convert_fn convert_fns[NB_NUM_DTYPES][NB_NUM_DTYPES] = {DTYPES_B(CVT_ROW)};

nb_convert_fn nb_cpu_convert_fn(int32_t src_dtype, int32_t dst_dtype) {
    return convert_fns[src_dtype][dst_dtype];
}

/* Drops size-1 dims and merges dims that are contiguous in both operands.
 * Returns the new ndim; writes innermost-last geometry into shape/ds/ss. */
static int32_t coalesce(const int64_t* shape, const int64_t* dst_strides, const int64_t* src_strides,
                        int32_t ndim, int64_t* out_shape, int64_t* ds, int64_t* ss) {
    int32_t n = 0;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] == 1) continue;
        if (n > 0 && ds[n - 1] == dst_strides[i] * shape[i] && ss[n - 1] == src_strides[i] * shape[i]) {
            out_shape[n - 1] *= shape[i];
            ds[n - 1] = dst_strides[i];
            ss[n - 1] = src_strides[i];
            continue;
        }
        out_shape[n] = shape[i];
        ds[n] = dst_strides[i];
        ss[n] = src_strides[i];
        n++;
    }
    return n;
}

void nb_cpu_copy(void* dst, const int64_t* dst_strides, int32_t dst_dtype, const void* src,
                 const int64_t* src_strides, int32_t src_dtype, const int64_t* shape, int32_t ndim) {
    int64_t numel = 1;
    for (int32_t i = 0; i < ndim; i++) numel *= shape[i];
    if (numel == 0) return;
    int64_t sh[NB_MAX_DIMS], ds[NB_MAX_DIMS], ss[NB_MAX_DIMS];
    int32_t n = coalesce(shape, dst_strides, src_strides, ndim, sh, ds, ss);
    const int64_t dsize = nb_dtype_sizes[dst_dtype], ssize = nb_dtype_sizes[src_dtype];
    if (n == 0) {  /* a single element */
        sh[0] = 1, ds[0] = 1, ss[0] = 1;
        n = 1;
    }
    nb_blocking_end_fn end_blocking = NULL;
    void* token = numel * dsize >= NB_BLOCKING_WORK_BYTES ? nb_blocking_begin(&end_blocking) : NULL;
    if (n == 1 && ds[0] == 1 && ss[0] == 1 && src_dtype == dst_dtype) {
        memcpy(dst, src, (size_t)(sh[0] * dsize));
        if (end_blocking) end_blocking(token);
        return;
    }
    nb_convert_fn fn = convert_fns[src_dtype][dst_dtype];
    const int64_t inner = sh[n - 1], inner_ds = ds[n - 1], inner_ss = ss[n - 1];
    int64_t idx[NB_MAX_DIMS] = {0};
    int64_t outer = numel / inner;
    char* d = dst;
    const char* s = src;
    for (int64_t o = 0; o < outer; o++) {
        fn(d, inner_ds, s, inner_ss, inner);
        for (int32_t k = n - 2; k >= 0; k--) {  /* advance the outer counter */
            d += ds[k] * dsize;
            s += ss[k] * ssize;
            if (++idx[k] < sh[k]) break;
            d -= ds[k] * dsize * sh[k];
            s -= ss[k] * ssize * sh[k];
            idx[k] = 0;
        }
    }
    if (end_blocking) end_blocking(token);
}

void nb_cpu_fill(void* dst, int32_t dtype, int64_t n, double fvalue, int64_t ivalue, bool is_int) {
    if (n <= 0) return;
    const int64_t size = nb_dtype_sizes[dtype];
    if (is_int) convert_fns[NB_I64][dtype](dst, 1, &ivalue, 1, 1);
    else convert_fns[NB_F64][dtype](dst, 1, &fvalue, 1, 1);
    /* Double the filled prefix until the buffer is full. */
    nb_blocking_end_fn end_blocking = NULL;
    void* token = n * size >= NB_BLOCKING_WORK_BYTES ? nb_blocking_begin(&end_blocking) : NULL;
    int64_t done = 1;
    while (done < n) {
        int64_t chunk = done < n - done ? done : n - done;
        memcpy((char*)dst + done * size, dst, (size_t)(chunk * size));
        done += chunk;
    }
    if (end_blocking) end_blocking(token);
}
