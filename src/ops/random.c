/* random.c: the elementwise random ops (rand, randn, randint, uniform_, normal_,
 * random_, bernoulli, dropout) and their kernels.
 *
 * A generator is (seed, offset) (random_generator.c). An op reserves a contiguous
 * run of Philox blocks from the offset and element i of its result is a pure
 * function of (seed, reserved base, i): see philox.h. So the numbers never depend
 * on the thread count, on how OpenMP splits the range, or on the device, and a
 * failed call (validation happens first) consumes nothing.
 *
 * Elements per block: 4 for values made from one 32-bit word (float32 and the
 * half types, bernoulli, dropout, integers with a span up to 2^16), 2 for values
 * made from 64 bits (float64, wider integer spans). Box-Muller pairs words
 * (w0, w1) and (w2, w3) of a block (float32), or the two 64-bit halves (float64).
 * The sampling ops (randperm, multinomial) are in random_sampling.c. */
#include "random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "philox_avx2.h"

/* ---- the driver ---- */

#define GRAIN 32768 /* elements per thread at least, as in cpu/loop.c */
#define CHUNK 2048  /* elements generated at a time before a dtype conversion */

/* Elements [begin, end) of the result into `dst` (the whole result, contiguous, of `dtype`). */
static void run_range(const nb_rng_dist* d, nb_rng_kernel fn, char* dst, int32_t dtype, int64_t begin, int64_t end) {
    const int64_t tsize = nb_dtype_sizes[dtype];
    if (dtype == d->compute) {
        fn(d, begin, end, dst + begin * tsize);
        return;
    }
    nb_convert_fn cvt = nb_cpu_convert_fn(d->compute, dtype);
    _Alignas(64) char buf[CHUNK * 8];
    for (int64_t i = begin; i < end; i += CHUNK) {
        int64_t j = end - i < CHUNK ? end : i + CHUNK;
        fn(d, i, j, buf);
        cvt(dst + i * tsize, 1, buf, 1, j - i);
    }
}

typedef struct {
    const nb_rng_dist* d;
    nb_rng_kernel fn;
    char* dst;
    int32_t dtype;
} gen_job;

static void gen_range(void* ctx, int64_t begin, int64_t end) {
    const gen_job* j = ctx;
    run_range(j->d, j->fn, j->dst, j->dtype, begin, end);
}

nb_status nb_rng_produce(const char* op, nb_tensor* target, const nb_rng_dist* d, nb_rng_kernel fn) {
    if (target->numel == 0) return NB_OK;
    if (nb_rng_device_has_slot(target)) return nb_rng_on_device(op, target, d);
    if (target->storage->device_type == NB_CPU && target->contiguous) {
        gen_job j = {d, fn, nb_tensor_data(target), target->dtype};
        nb_rng_parallel(target->numel, gen_range, &j, GRAIN);
        return NB_OK;
    }
    /* Strided or device targets: generate in logical (row-major) order, then copy. */
    nb_tensor* tmp;
    nb_status st = nb_tensor_new(op, target->shape, target->ndim, target->dtype, NB_CPU, 0, &tmp);
    if (st != NB_OK) return st;
    gen_job j = {d, fn, nb_tensor_data(tmp), tmp->dtype};
    nb_rng_parallel(tmp->numel, gen_range, &j, GRAIN);
    st = nb_copy_into(op, target, tmp);
    nb_tensor_release(tmp);
    return st;
}

/* ---- kernels: element e of the result comes from block e / EPB ----
 *
 * A kernel works through its range CHUNK elements at a time: the words of the
 * blocks covering the chunk go to a buffer (block-major, 16 or 8 blocks per
 * Philox call where possible), then a plain loop, which the compiler vectorises, maps
 * words to values. */

typedef struct {
    uint32_t w[2 * CHUNK + 16]; /* CHUNK elements span at most CHUNK / EPB + 2 blocks, EPB >= 2 */
    int64_t first;               /* index in w of the chunk's first element's first word */
    int64_t count;               /* words filled (whole blocks) */
} word_buf;

#ifdef NB_PHILOX_AVX2
/* AVX2 Philox (philox_avx2.h) when the CPU has it, unless NABLA_RNG_NO_SIMD=1 (the
 * tests compare both paths: the words are the same integers either way). */
static bool use_avx2(void) {
    static _Atomic int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        const char* off = getenv("NABLA_RNG_NO_SIMD");
        v = __builtin_cpu_supports("avx2") && !(off != NULL && off[0] != '\0' && strcmp(off, "0") != 0);
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v != 0;
}
#endif

static void fill_words(const nb_philox* ph, int64_t begin, int64_t end, int64_t epb, word_buf* buf) {
    const uint64_t b0 = (uint64_t)(begin / epb), b1 = (uint64_t)((end - 1) / epb) + 1;
    uint64_t b = b0;
#ifdef NB_PHILOX_AVX2
    if (b1 - b0 >= 16 && use_avx2())
        for (; b + 16 <= b1; b += 16) nb_philox_block16_avx2(ph, b, buf->w + 4 * (b - b0));
#endif
    for (; b + 8 <= b1; b += 8) nb_philox_block8(ph, b, (uint32_t(*)[4])(buf->w + 4 * (b - b0)));
    for (; b < b1; b++) nb_philox_block(ph, b, buf->w + 4 * (b - b0));
    buf->first = (begin - (int64_t)b0 * epb) * (4 / epb);
    buf->count = (int64_t)(b1 - b0) * 4;
}

/* Defines kernel NAME over T outputs: the body (the variadic part) runs per chunk of
 * n elements with w (element i's first word is w[i * 4 / EPB]) and writes oc[i];
 * (PRE), in parentheses, runs once. */
#define NB_UNPAREN(...) __VA_ARGS__
#define KERNEL(NAME, T, EPB, PRE, ...)                                                             \
    static void NAME(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {               \
        NB_UNPAREN PRE;                                                                            \
        word_buf buf;                                                                              \
        for (int64_t c = begin; c < end; c += CHUNK) {                                             \
            const int64_t n = end - c < CHUNK ? end - c : CHUNK;                                   \
            fill_words(&d->ph, c, c + n, (EPB), &buf);                                             \
            const uint32_t* w = buf.w + buf.first;                                                 \
            T* oc = (T*)out + (c - begin);                                                         \
            (void)w, (void)oc;                                                                     \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    }

/* Rounds a float to the half type `round` (exact afterwards), else leaves it. */
static inline float round_to(float x, int32_t round) {
    if (round == NB_F16) return nb_half_to_float(nb_float_to_half(x));
    if (round == NB_BF16) return nb_bf16_to_float(nb_float_to_bf16(x));
    return x;
}

/* u * range + from in double, rounded once (and to the half type); rounding may
 * reach `to`, which goes back to `from` so that the range stays [from, to). */
KERNEL(k_uniform_f32, float, 4,
       (const int shift = d->round == NB_F16 ? 21 : d->round == NB_BF16 ? 24 : 8; /* the type's digits */
        const float scale = d->round == NB_F16 ? 0x1p-11f : d->round == NB_BF16 ? 0x1p-8f : 0x1p-24f;
        const double from = d->a, range = d->b - d->a, to = d->b;
        const float from_f = round_to((float)from, d->round);
        const bool unit = from == 0 && to == 1),
       if (unit) {
           for (int64_t i = 0; i < n; i++) oc[i] = (float)(int32_t)(w[i] >> shift) * scale;
       } else {
           for (int64_t i = 0; i < n; i++) {
               float x = round_to((float)(from + (double)((float)(int32_t)(w[i] >> shift) * scale) * range), d->round);
               oc[i] = (double)x >= to ? from_f : x;
           }
       })

KERNEL(k_uniform_f64, double, 2, (const double from = d->a, range = d->b - d->a, to = d->b),
       for (int64_t i = 0; i < n; i++) {
           const double x = from + nb_u01_f64(w[2 * i], w[2 * i + 1]) * range;
           oc[i] = x >= to ? from : x;
       })

/* Square roots of n floats in place: sqrtps where available (IEEE sqrt is correctly
 * rounded, so the result is sqrtf's; libm's sqrtf keeps loops from vectorising). */
static void sqrt_in_place(float* x, int64_t n) {
    int64_t i = 0;
#if defined(__SSE2__)
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(x + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
    for (; i < n; i++) x[i] = sqrtf(x[i]);
}

/* -2 ln(u1), sin and cos of every pair of words (vectorised; on x86-64 also
 * compiled for AVX2 and picked at load time: the same IEEE operations, no FMA). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void box_muller_pass(const uint32_t* restrict w, int64_t pairs, float* restrict r, float* restrict sn,
                            float* restrict cs) {
    for (int64_t m = 0; m < pairs; m++) {
        r[m] = nb_neg2log_f32(nb_u01_open_f32(w[2 * m]));
        nb_sincos_2pi_f32(w[2 * m + 1], &sn[m], &cs[m]);
    }
}

/* nb_box_muller_f32 over every pair of words in the buffer, split in passes so
 * that each vectorises; then the chunk's elements (scaled in double and rounded
 * once unless standard). */
KERNEL(k_normal_f32, float, 4,
       (const double mean = d->a, std = d->b; const bool standard = mean == 0 && std == 1;
        float z[CHUNK + 8]; float r[CHUNK / 2 + 4]; float sn[CHUNK / 2 + 4]; float cs[CHUNK / 2 + 4]),
       const int64_t pairs = buf.count / 2;
       box_muller_pass(buf.w, pairs, r, sn, cs);
       sqrt_in_place(r, pairs);
       for (int64_t m = 0; m < pairs; m++) z[2 * m] = r[m] * cs[m], z[2 * m + 1] = r[m] * sn[m];
       const float* zc = z + buf.first;
       if (standard) {
           for (int64_t i = 0; i < n; i++) oc[i] = zc[i];
       } else {
           for (int64_t i = 0; i < n; i++) oc[i] = (float)(mean + std * (double)zc[i]);
       })

/* float64: libm, one (u1, u2) pair of 53-bit uniforms per block. */
KERNEL(k_normal_f64, double, 2,
       (const double mean = d->a, std = d->b, two_pi = 6.28318530717958647692; double z[CHUNK + 8]),
       for (int64_t m = 0; m < buf.count; m += 4) {
           const double r = sqrt(-2.0 * log(nb_u01_open_f64(buf.w[m], buf.w[m + 1])));
           const double theta = two_pi * nb_u01_f64(buf.w[m + 2], buf.w[m + 3]);
           z[m / 2] = r * cos(theta);
           z[m / 2 + 1] = r * sin(theta);
       }
       const double* zc = z + buf.first / 2;
       for (int64_t i = 0; i < n; i++) oc[i] = mean + std * zc[i];)

/* low + [0, span) with span <= 2^16 from one word (bias <= span / 2^32). */
KERNEL(k_int_narrow, int64_t, 4, (const uint64_t low = (uint64_t)d->low, span = d->span),
       for (int64_t i = 0; i < n; i++) oc[i] = (int64_t)(low + (((uint64_t)w[i] * span) >> 32));)

/* low + [0, span) from 64 bits; span 0 stands for 2^64. */
KERNEL(k_int_wide, int64_t, 2, (const uint64_t low = (uint64_t)d->low, span = d->span),
       for (int64_t i = 0; i < n; i++) {
           const uint64_t x = ((uint64_t)w[2 * i + 1] << 32) | w[2 * i];
           oc[i] = (int64_t)(low + (span ? nb_mulhi64(x, span) : x));
       })

/* w * 2^-32 < p, as an integer comparison: w < ceil(p * 2^32) (always true when that is 2^32). */
static inline uint64_t threshold(double p) { return (uint64_t)ceil(p * 0x1p32); }

KERNEL(k_bernoulli_scalar, uint8_t, 4, (const uint64_t thr = threshold(d->a)),
       if (thr > UINT32_MAX) {
           memset(oc, 1, (size_t)n);
       } else {
           const uint32_t t32 = (uint32_t)thr;
           for (int64_t i = 0; i < n; i++) oc[i] = w[i] < t32;
       })

KERNEL(k_bernoulli_tensor, uint8_t, 4, (const double* p = (const double*)d->in + begin),
       for (int64_t i = 0; i < n; i++) oc[i] = nb_u01_w32(w[i]) < p[c - begin + i];)

/* keep with probability q = 1 - p: the mask is bernoulli(1 - p) of the same words */
#define DROPOUT_KERNEL(NAME, T)                                                                    \
    KERNEL(NAME, T, 4, (const T* x = (const T*)d->in + begin; const uint64_t thr = threshold(d->a); \
                        const T scale = (T)d->b),                                                  \
           const T* xc = x + (c - begin);                                                          \
           if (thr > UINT32_MAX) {                                                                 \
               for (int64_t i = 0; i < n; i++) oc[i] = xc[i] * scale;                              \
           } else {                                                                                \
               const uint32_t t32 = (uint32_t)thr;                                                 \
               for (int64_t i = 0; i < n; i++) oc[i] = xc[i] * (w[i] < t32 ? scale : (T)0);        \
           })
DROPOUT_KERNEL(k_dropout_f32, float)
DROPOUT_KERNEL(k_dropout_f64, double)

static nb_status need_float(const char* op, int32_t dtype) {
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    if (!nb_dtype_is_floating(dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected a floating point dtype, got %s", op, nb_dtype_str(dtype));
    return NB_OK;
}

static const double FLOAT_MAX[4] = {3.4028234663852886e38, 1.7976931348623157e308, 65504.0, 3.3895313892515355e38};

/* Fills target (validated, floating) with uniform [a, b) or normal (mean a, std b) values. */
static nb_status fill_float(const char* op, bool normal, double a, double b, nb_generator* g, nb_tensor* target) {
    nb_rng_dist d = {0};
    const bool f64 = target->dtype == NB_F64;
    d.compute = f64 ? NB_F64 : NB_F32;
    d.round = target->dtype;
    d.a = a, d.b = b;
    d.kind = normal ? NB_RNGK_NORMAL : NB_RNGK_UNIFORM;
    const int64_t epb = f64 ? 2 : 4;
    d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + epb - 1) / epb));
    nb_rng_kernel fn = normal ? (f64 ? k_normal_f64 : k_normal_f32) : (f64 ? k_uniform_f64 : k_uniform_f32);
    return nb_rng_produce(op, target, &d, fn);
}

static nb_status check_uniform(const char* op, double from, double to, int32_t dtype) {
    if (!isfinite(from) || !isfinite(to))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects from and to to be finite, but got from=%g, to=%g",
                        op, from, to);
    if (from > to)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects to return a [from, to) range, but found from=%g > to=%g",
                        op, from, to);
    if (to - from > FLOAT_MAX[dtype])
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects to - from <= %g (the largest %s), but got from=%g, to=%g",
                        op, FLOAT_MAX[dtype], nb_dtype_str(dtype), from, to);
    return NB_OK;
}

static nb_status check_normal(const char* op, double mean, double std) {
    if (!(std >= 0) || !isfinite(std))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects std >= 0.0 and finite, but found std %g", op, std);
    if (!isfinite(mean)) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects a finite mean, but found %g", op, mean);
    return NB_OK;
}

static nb_status create_float(const char* op, bool normal, const int64_t* shape, int32_t ndim, int32_t dtype,
                              int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst,
                              nb_tensor** out) {
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st == NB_OK) st = need_float(op, dtype);
    nb_tensor* target = NULL;
    if (st == NB_OK) st = nb_rng_target(op, shape, ndim, dtype, device_type, device_index, dst, out, &target);
    if (st != NB_OK) return st;
    return nb_rng_finish(fill_float(op, normal, 0.0, 1.0, g, target), target, dst, out);
}

nb_status nbi_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index,
                         nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    return create_float("rand", false, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

nb_status nbi_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index,
                          nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    return create_float("randn", true, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

/* Validates an in-place target and the generator. */
static nb_status inplace_args(const char* op, nb_tensor* t, nb_generator* gen, nb_generator** g) {
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_WRITABLE(op, t);
    return nb_rng_resolve(op, gen, g);
}

nb_status nbi_uniform_(nb_tensor* t, double from, double to, nb_generator* gen) {
    static const char* op = "uniform_";
    nb_generator* g = NULL;
    nb_status st = inplace_args(op, t, gen, &g);
    if (st == NB_OK) st = need_float(op, t->dtype);
    if (st == NB_OK) st = check_uniform(op, from, to, t->dtype);
    if (st == NB_OK) st = fill_float(op, false, from, to, g, t);
    if (st == NB_OK) nb_tensor_bump_version(t);
    return st;
}

nb_status nbi_normal_(nb_tensor* t, double mean, double std, nb_generator* gen) {
    static const char* op = "normal_";
    nb_generator* g = NULL;
    nb_status st = inplace_args(op, t, gen, &g);
    if (st == NB_OK) st = need_float(op, t->dtype);
    if (st == NB_OK) st = check_normal(op, mean, std);
    if (st == NB_OK) st = fill_float(op, true, mean, std, g, t);
    if (st == NB_OK) nb_tensor_bump_version(t);
    return st;
}

/* ---- integers ---- */

/* The integers a dtype holds exactly: [lo, hi]. */
static void int_bounds(int32_t dtype, int64_t* lo, int64_t* hi) {
    static const int64_t L[NB_NUM_DTYPES] = {-(INT64_C(1) << 24), -(INT64_C(1) << 53), -2048, -256, INT8_MIN,
                                             INT16_MIN, INT32_MIN, INT64_MIN, 0, 0};
    static const int64_t H[NB_NUM_DTYPES] = {INT64_C(1) << 24, INT64_C(1) << 53, 2048, 256, INT8_MAX,
                                             INT16_MAX, INT32_MAX, INT64_MAX, UINT8_MAX, 1};
    *lo = L[dtype], *hi = H[dtype];
}

/* Fills target with integers uniform on [low, high] (inclusive). */
static nb_status fill_int(const char* op, int64_t low, int64_t high, nb_generator* g, nb_tensor* target) {
    int64_t lo, hi;
    int_bounds(target->dtype, &lo, &hi);
    if (low < lo || low > hi)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: from=%lld is out of bounds for %s [%lld, %lld]", op,
                        (long long)low, nb_dtype_str(target->dtype), (long long)lo, (long long)hi);
    if (high < lo || high > hi)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: to - 1 = %lld is out of bounds for %s [%lld, %lld]", op,
                        (long long)high, nb_dtype_str(target->dtype), (long long)lo, (long long)hi);
    nb_rng_dist d = {0};
    d.compute = NB_I64;
    d.kind = NB_RNGK_INT;
    d.low = low;
    d.span = (uint64_t)high - (uint64_t)low + 1; /* 0 for the full 2^64 */
    const bool narrow = d.span != 0 && d.span <= (UINT64_C(1) << 16);
    const int64_t epb = narrow ? 4 : 2;
    d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + epb - 1) / epb));
    return nb_rng_produce(op, target, &d, narrow ? k_int_narrow : k_int_wide);
}

nb_status nbi_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype,
                            int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst,
                            nb_tensor** out) {
    static const char* op = "randint";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    if (low >= high)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects 'low' to be less than 'high', but got low=%lld >= high=%lld",
                        op, (long long)low, (long long)high);
    nb_tensor* target = NULL;
    if ((st = nb_rng_target(op, shape, ndim, dtype, device_type, device_index, dst, out, &target)) != NB_OK) return st;
    return nb_rng_finish(fill_int(op, low, high - 1, g, target), target, dst, out);
}

nb_status nbi_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen) {
    static const char* op = "random_";
    nb_generator* g = NULL;
    nb_status st = inplace_args(op, t, gen, &g);
    if (st != NB_OK) return st;
    if (low > high_inclusive)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                        op, (long long)low, (long long)high_inclusive + 1);
    if ((st = fill_int(op, low, high_inclusive, g, t)) == NB_OK) nb_tensor_bump_version(t);
    return st;
}

/* ---- bernoulli ---- */

static nb_status check_p(const char* op, double p) {
    if (!(p >= 0 && p <= 1))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expects p to be in [0, 1], but got p=%g", op, p);
    return NB_OK;
}

nb_status nbi_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                                     int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "bernoulli";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st == NB_OK) st = check_p(op, p);
    if (st == NB_OK && !nb_dtype_valid(dtype)) st = nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    nb_tensor* target = NULL;
    if (st == NB_OK) st = nb_rng_target(op, shape, ndim, dtype, device_type, device_index, dst, out, &target);
    if (st != NB_OK) return st;
    nb_rng_dist d = {0};
    d.compute = NB_U8;
    d.kind = NB_RNGK_BERNOULLI;
    d.a = p;
    d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + 3) / 4));
    return nb_rng_finish(nb_rng_produce(op, target, &d, k_bernoulli_scalar), target, dst, out);
}

nb_status nbi_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "bernoulli";
    NB_CHECK_TENSOR(op, p);
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (!nb_dtype_is_floating(p->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected a floating point probability tensor, got %s", op,
                        nb_dtype_str(p->dtype));
    nb_tensor* target = NULL;
    if (dst == NULL) {
        st = nb_rng_target(op, p->shape, p->ndim, p->dtype, p->storage->device_type, p->storage->device_index, NULL,
                           out, &target);
    } else if (!nb_tensor_ok(dst)) {
        st = nb_bad_handle(op, "dst", dst);
    } else if (dst->storage->readonly) {
        st = nb_readonly_error(op, "dst");
    } else if (dst->storage->device_type != p->storage->device_type ||
               dst->storage->device_index != p->storage->device_index) {
        st = nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but p is on %s:%d", op,
                      nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                      nb_device_type_name(p->storage->device_type), (int)p->storage->device_index);
    } else {
        target = dst;
    }
    if (st != NB_OK) return st;
    if (nb_rng_device_has_slot(target)) { /* p read in place; a value outside [0, 1] fails at the next sync */
        nb_rng_dist d = {0};
        d.kind = NB_RNGK_BERNOULLI;
        d.in_t = p;
        const bool aliased = target->storage == p->storage;
        nb_tensor* pc = NULL; /* p overlapping the target other than element for element: a copy */
        if (aliased && !(target->offset == p->offset && target->dtype == p->dtype && target->ndim == p->ndim &&
                         memcmp(target->strides, p->strides, sizeof(int64_t) * (size_t)p->ndim) == 0 &&
                         memcmp(target->shape, p->shape, sizeof(int64_t) * (size_t)p->ndim) == 0))
            st = nb_tensor_clone(p, &pc), d.in_t = pc;
        if (st == NB_OK) {
            d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + 3) / 4));
            st = nb_rng_produce(op, target, &d, k_bernoulli_tensor);
        }
        nb_tensor_release(pc);
        return nb_rng_finish(st, target, dst, out);
    }
    /* p broadcast to the result's shape, as contiguous doubles on the host */
    nb_tensor* probs = NULL;
    st = nb_tensor_new(op, target->shape, target->ndim, NB_F64, NB_CPU, 0, &probs);
    if (st == NB_OK) st = nb_copy_into(op, probs, p);
    if (st == NB_OK) {
        const double* v = nb_tensor_data(probs);
        for (int64_t i = 0; i < probs->numel; i++)
            if (!(v[i] >= 0 && v[i] <= 1)) {
                st = nb_error(NB_ERR_INVALID_ARGUMENT,
                              "%s: expects all elements of p to be in [0, 1], but found p=%g at flat index %lld", op,
                              v[i], (long long)i);
                break;
            }
    }
    if (st == NB_OK) {
        nb_rng_dist d = {0};
        d.compute = NB_U8;
        d.kind = NB_RNGK_BERNOULLI;
        d.in = nb_tensor_data(probs);
        d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + 3) / 4));
        st = nb_rng_produce(op, target, &d, k_bernoulli_tensor);
    }
    nb_tensor_release(probs);
    return nb_rng_finish(st, target, dst, out);
}

/* ---- dropout ---- */

/* On a device: x read in place (a copy first when it overlaps the target other than element for element). */
static nb_status dropout_on_device(const char* op, const nb_tensor* x, double p, nb_generator* g, nb_tensor* target) {
    nb_rng_dist d = {0};
    d.kind = NB_RNGK_DROPOUT;
    d.a = 1.0 - p;
    d.b = p < 1 ? 1.0 / (1.0 - p) : 0.0;
    d.in_t = x;
    nb_tensor* xc = NULL;
    nb_status st = NB_OK;
    const bool same = target == x || (target->offset == x->offset && target->dtype == x->dtype && target->contiguous &&
                                      x->contiguous);
    if (target->storage == x->storage && !same) st = nb_tensor_clone(x, &xc), d.in_t = xc;
    if (st == NB_OK) {
        d.ph = nb_rng_reserve(g, (uint64_t)((x->numel + 3) / 4));
        st = nb_rng_produce(op, target, &d, NULL);
    }
    nb_tensor_release(xc);
    return st;
}

nb_status nbi_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst,
                            nb_tensor** out) {
    static const char* op = "dropout";
    NB_CHECK_TENSOR(op, x);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(op, "dst", dst);
    if (dst != NULL) NB_CHECK_WRITABLE(op, dst);
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (!(p >= 0 && p <= 1))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: probability has to be between 0 and 1, but got %g", op, p);
    if (!nb_dtype_is_floating(x->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected a floating point input, got %s", op, nb_dtype_str(x->dtype));
    if (dst != NULL) {
        if (!nb_dtype_is_floating(dst->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                            nb_dtype_str(x->dtype), nb_dtype_str(dst->dtype));
        if (dst->storage->device_type != x->storage->device_type ||
            dst->storage->device_index != x->storage->device_index)
            return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                            nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                            nb_device_type_name(x->storage->device_type), (int)x->storage->device_index);
        if ((st = nb_resize_output(op, dst, &x, 1, x->shape, x->ndim)) != NB_OK) return st;  /* x itself always fits */
    }
    nb_tensor* target = dst;
    if (!train) { /* the identity: x itself, or a copy into dst */
        if (dst == NULL) {
            nb_tensor_retain((nb_tensor*)x);
            *out = (nb_tensor*)x;
            return NB_OK;
        }
        return nb_rng_finish(dst == x ? NB_OK : nb_copy_into(op, dst, x), dst, dst, out);
    }
    if (dst == NULL &&
        (st = nb_tensor_new(op, x->shape, x->ndim, x->dtype, x->storage->device_type, x->storage->device_index,
                            &target)) != NB_OK)
        return st;
    /* the input as contiguous host values of the compute dtype: x itself when it already is one
     * (an exact alias of the output is fine: element e is read before it is written) */
    const int32_t compute = x->dtype == NB_F64 ? NB_F64 : NB_F32;
    if (nb_rng_device_has_slot(target)) return nb_rng_finish(dropout_on_device(op, x, p, g, target), target, dst, out);
    const bool usable = x->storage->device_type == NB_CPU && x->contiguous && x->dtype == compute &&
                        (target->storage != x->storage || (target == x) ||
                         (target->offset == x->offset && target->contiguous && target->dtype == x->dtype));
    nb_tensor* xc = (nb_tensor*)x;
    if (usable) {
        nb_tensor_retain(xc);
    } else {
        st = nb_tensor_new(op, x->shape, x->ndim, compute, NB_CPU, 0, &xc);
        if (st == NB_OK && (st = nb_copy_into(op, xc, x)) != NB_OK) nb_tensor_release(xc);
        if (st != NB_OK) return nb_rng_finish(st, target, dst, out);
    }
    nb_rng_dist d = {0};
    d.compute = compute;
    d.in = nb_tensor_data(xc);
    d.a = 1.0 - p;
    d.b = p < 1 ? 1.0 / (1.0 - p) : 0.0;
    d.ph = nb_rng_reserve(g, (uint64_t)((x->numel + 3) / 4));
    st = nb_rng_produce(op, target, &d, compute == NB_F64 ? k_dropout_f64 : k_dropout_f32);
    nb_tensor_release(xc);
    return nb_rng_finish(st, target, dst, out);
}
