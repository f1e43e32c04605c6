/* random.c: generators and the elementwise random ops (rand, randn, randint,
 * uniform_, normal_, random_, bernoulli, dropout).
 *
 * A generator is (seed, offset). An op reserves a contiguous run of Philox
 * blocks from the offset (under the generator's mutex) and element i of its
 * result is a pure function of (seed, reserved base, i): see philox.h. So the
 * numbers never depend on the thread count, on how OpenMP splits the range, or
 * on the device, and a failed call (validation happens first) consumes nothing.
 *
 * Elements per block: 4 for values made from one 32-bit word (float32 and the
 * half types, bernoulli, dropout, integers with a span up to 2^16), 2 for values
 * made from 64 bits (float64, wider integer spans). Box-Muller pairs words
 * (w0, w1) and (w2, w3) of a block (float32), or the two 64-bit halves (float64).
 * The sampling ops (randperm, multinomial) are in random_sampling.c. */
#include "random.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define GENERATOR_MAGIC 0x726e6721u /* "rng!" */
#define GENERATOR_DEAD 0xdeadbeefu
#define DEFAULT_SEED UINT64_C(67280421310721) /* PyTorch's default_rng_seed_val */

struct nb_generator {
    uint32_t magic;
    int32_t is_default;
    pthread_mutex_t lock;
    uint64_t seed;
    uint64_t offset; /* in Philox blocks */
};

static nb_generator default_generator = {GENERATOR_MAGIC, 1, PTHREAD_MUTEX_INITIALIZER, DEFAULT_SEED, 0};

/* ---- generators ---- */

nb_status nb_rng_resolve(const char* op, nb_generator* gen, nb_generator** out) {
    if (gen == NULL) {
        *out = &default_generator;
        return NB_OK;
    }
    if (gen->magic != GENERATOR_MAGIC)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: generator %p is not a live nb_generator (released or corrupt)",
                        op, (void*)gen);
    *out = gen;
    return NB_OK;
}

nb_philox nb_rng_reserve(nb_generator* gen, uint64_t blocks) {
    pthread_mutex_lock(&gen->lock);
    nb_philox p = nb_philox_make(gen->seed, gen->offset);
    gen->offset += blocks;
    pthread_mutex_unlock(&gen->lock);
    return p;
}

NB_API nb_status nb_generator_create(uint64_t seed, nb_generator** out) {
    NB_CHECK_OUT("generator_create", out);
    nb_generator* g = malloc(sizeof *g);
    if (g == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "generator_create: out of memory");
    g->magic = GENERATOR_MAGIC;
    g->is_default = 0;
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        free(g);
        return nb_error(NB_ERR_INTERNAL, "generator_create: pthread_mutex_init failed");
    }
    g->seed = seed;
    g->offset = 0;
    *out = g;
    return NB_OK;
}

NB_API void nb_generator_release(nb_generator* gen) {
    if (gen == NULL || gen->magic != GENERATOR_MAGIC || gen->is_default) return;
    gen->magic = GENERATOR_DEAD;
    pthread_mutex_destroy(&gen->lock);
    free(gen);
}

NB_API nb_generator* nb_default_generator(void) { return &default_generator; }

NB_API nb_status nb_generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset) {
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve("generator_set_state", gen, &g);
    if (st != NB_OK) return st;
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->offset = offset;
    pthread_mutex_unlock(&g->lock);
    return NB_OK;
}

NB_API nb_status nb_generator_manual_seed(nb_generator* gen, uint64_t seed) {
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve("generator_manual_seed", gen, &g);
    return st != NB_OK ? st : nb_generator_set_state(g, seed, 0);
}

NB_API nb_status nb_manual_seed(uint64_t seed) { return nb_generator_set_state(&default_generator, seed, 0); }

NB_API nb_status nb_generator_get_state(nb_generator* gen, uint64_t* seed, uint64_t* offset) {
    static const char* op = "generator_get_state";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (seed == NULL || offset == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: output pointer '%s' is NULL", op, seed ? "offset" : "seed");
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *offset = g->offset;
    pthread_mutex_unlock(&g->lock);
    return NB_OK;
}

NB_API nb_status nb_generator_seed(nb_generator* gen, uint64_t* out) {
    static const char* op = "generator_seed";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    NB_CHECK_OUT(op, out);
    uint64_t offset;
    return nb_generator_get_state(g, out, &offset);
}

/* ---- the parallel driver ---- */

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

void nb_rng_parallel(int64_t n, void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx, int64_t grain) {
    if (n <= 0) return;
#ifdef _OPENMP
    if (n >= 2 * grain && omp_get_max_threads() > 1 && !omp_in_parallel()) {
        const int64_t max_chunks = n / grain;
#pragma omp parallel
        {
            int64_t nt = omp_get_num_threads() < max_chunks ? omp_get_num_threads() : max_chunks;
            int64_t t = omp_get_thread_num();
            if (t < nt) fn(ctx, n * t / nt, n * (t + 1) / nt);
        }
        return;
    }
#endif
    (void)grain;
    fn(ctx, 0, n);
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

/* ---- kernels: element e of the result comes from block e / EPB ---- */

/* Runs BODY for each element e in [begin, end) with w[4] the words of its block
 * and k = e % EPB; o[e - begin] is where it goes. */
#define FOR_ELEMENTS(EPB, ...)                                                       \
    for (int64_t e = begin; e < end;) {                                               \
        uint32_t w[4];                                                                \
        nb_philox_block(&d->ph, (uint64_t)(e / (EPB)), w);                            \
        for (int64_t k = e % (EPB); k < (EPB) && e < end; k++, e++) { __VA_ARGS__; }         \
    }

/* Full runs of 8 blocks through nb_philox_block8 (vectorisable), the ragged ends
 * through FOR_ELEMENTS; BODY sees w[4] and k either way. */
#define FOR_ELEMENTS_FAST(EPB, ...)                                                  \
    do {                                                                              \
        int64_t head = (begin + 8 * (EPB) - 1) / (8 * (EPB)) * (8 * (EPB));           \
        int64_t tail = end / (8 * (EPB)) * (8 * (EPB));                               \
        if (head >= tail) {                                                           \
            FOR_ELEMENTS(EPB, __VA_ARGS__)                                                   \
            break;                                                                    \
        }                                                                             \
        const int64_t end0 = end;                                                     \
        end = head;                                                                   \
        FOR_ELEMENTS(EPB, __VA_ARGS__)                                                       \
        for (int64_t e = head; e < tail;) {                                           \
            uint32_t b8[4][8];                                                        \
            nb_philox_block8(&d->ph, (uint64_t)(e / (EPB)), b8);                      \
            for (int j = 0; j < 8; j++) {                                             \
                const uint32_t w[4] = {b8[0][j], b8[1][j], b8[2][j], b8[3][j]};       \
                for (int64_t k = 0; k < (EPB); k++, e++) { __VA_ARGS__; }                    \
            }                                                                         \
        }                                                                             \
        begin = tail, end = end0;                                                     \
        FOR_ELEMENTS(EPB, __VA_ARGS__)                                                       \
    } while (0)

/* Rounds a float to the half type `round` (exact afterwards), else leaves it. */
static inline float round_to(float x, int32_t round) {
    if (round == NB_F16) return nb_half_to_float(nb_float_to_half(x));
    if (round == NB_BF16) return nb_bf16_to_float(nb_float_to_bf16(x));
    return x;
}

static void k_uniform_f32(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    float* o = (float*)out - begin;
    const int shift = d->round == NB_F16 ? 21 : d->round == NB_BF16 ? 24 : 8; /* keep the type's digits */
    const float scale = d->round == NB_F16 ? 0x1p-11f : d->round == NB_BF16 ? 0x1p-8f : 0x1p-24f;
    const double from = d->a, range = d->b - d->a, to = d->b;
    const float from_f = round_to((float)from, d->round);
    if (from == 0 && to == 1) {
        FOR_ELEMENTS_FAST(4, o[e] = (float)(w[k] >> shift) * scale);
        return;
    }
    FOR_ELEMENTS(4, {
        float x = round_to((float)(from + (double)((float)(w[k] >> shift) * scale) * range), d->round);
        o[e] = (double)x >= to ? from_f : x; /* rounding may reach `to`: keep [from, to) */
    });
}

static void k_uniform_f64(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    double* o = (double*)out - begin;
    const double from = d->a, range = d->b - d->a, to = d->b;
    FOR_ELEMENTS_FAST(2, {
        double x = from + nb_u01_f64(w[2 * k], w[2 * k + 1]) * range;
        o[e] = x >= to ? from : x;
    });
}

/* Applies mean and std (in double, rounded once); the standard case stores z as is. */
static inline float scale_normal(float z, double mean, double std, bool standard) {
    return standard ? z : (float)(mean + std * (double)z);
}

static void k_normal_f32(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    float* o = (float*)out - begin;
    const double mean = d->a, std = d->b;
    const bool standard = mean == 0 && std == 1;
    for (int64_t e = begin; e < end;) {
        if (e % 4 == 0 && end - e >= 32) { /* eight whole blocks, vectorised */
            uint32_t w[4][8];
            float z[4][8];
            nb_philox_block8(&d->ph, (uint64_t)(e / 4), w);
            for (int j = 0; j < 8; j++) {
                nb_box_muller_f32(w[0][j], w[1][j], &z[0][j], &z[1][j]);
                nb_box_muller_f32(w[2][j], w[3][j], &z[2][j], &z[3][j]);
            }
            for (int j = 0; j < 8; j++)
                for (int k = 0; k < 4; k++) o[e + 4 * j + k] = scale_normal(z[k][j], mean, std, standard);
            e += 32;
            continue;
        }
        uint32_t w[4];
        float z[4];
        nb_philox_block(&d->ph, (uint64_t)(e / 4), w);
        nb_box_muller_f32(w[0], w[1], &z[0], &z[1]);
        nb_box_muller_f32(w[2], w[3], &z[2], &z[3]);
        for (int64_t k = e % 4; k < 4 && e < end; k++, e++) o[e] = scale_normal(z[k], mean, std, standard);
    }
}

/* float64: libm, one (u1, u2) pair of 53-bit uniforms per block. */
static void k_normal_f64(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    double* o = (double*)out - begin;
    const double mean = d->a, std = d->b, two_pi = 6.28318530717958647692;
    for (int64_t e = begin; e < end;) {
        uint32_t w[4];
        nb_philox_block(&d->ph, (uint64_t)(e / 2), w);
        const double r = sqrt(-2.0 * log(nb_u01_open_f64(w[0], w[1]))), theta = two_pi * nb_u01_f64(w[2], w[3]);
        const double z[2] = {r * cos(theta), r * sin(theta)};
        for (int64_t k = e % 2; k < 2 && e < end; k++, e++) o[e] = mean + std * z[k];
    }
}

/* low + [0, span) with span <= 2^16 from one word (bias <= span / 2^32). */
static void k_int_narrow(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    int64_t* o = (int64_t*)out - begin;
    const uint64_t low = (uint64_t)d->low, span = d->span;
    FOR_ELEMENTS_FAST(4, o[e] = (int64_t)(low + (((uint64_t)w[k] * span) >> 32)));
}

/* low + [0, span) from 64 bits; span 0 stands for 2^64. */
static void k_int_wide(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    int64_t* o = (int64_t*)out - begin;
    const uint64_t low = (uint64_t)d->low, span = d->span;
    FOR_ELEMENTS(2, {
        const uint64_t x = ((uint64_t)w[2 * k + 1] << 32) | w[2 * k];
        o[e] = (int64_t)(low + (span ? nb_mulhi64(x, span) : x));
    });
}

static void k_bernoulli_scalar(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    uint8_t* o = (uint8_t*)out - begin;
    const double p = d->a;
    FOR_ELEMENTS_FAST(4, o[e] = nb_u01_w32(w[k]) < p);
}

static void k_bernoulli_tensor(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {
    uint8_t* o = (uint8_t*)out - begin;
    const double* p = d->in;
    FOR_ELEMENTS_FAST(4, o[e] = nb_u01_w32(w[k]) < p[e]);
}

/* keep with probability q = 1 - p (the mask is bernoulli(1 - p) drawn from the same words) */
#define DROPOUT_KERNEL(NAME, T)                                                                   \
    static void NAME(const nb_rng_dist* d, int64_t begin, int64_t end, void* out) {              \
        T* o = (T*)out - begin;                                                                   \
        const T* x = d->in;                                                                       \
        const double q = d->a;                                                                    \
        const T scale = (T)d->b;                                                                  \
        FOR_ELEMENTS_FAST(4, o[e] = x[e] * (nb_u01_w32(w[k]) < q ? scale : (T)0));                \
    }
DROPOUT_KERNEL(k_dropout_f32, float)
DROPOUT_KERNEL(k_dropout_f64, double)

/* ---- shared validation ---- */

nb_status nb_rng_target(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                        int32_t device_index, nb_tensor* dst, nb_tensor** out, nb_tensor** target) {
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    const nb_backend* backend;
    if ((st = nb_device_resolve(op, device_type, &device_index, &backend)) != NB_OK) return st;
    if (dst == NULL) {
        NB_CHECK_OUT(op, out);
        return nb_tensor_new(op, shape, ndim, dtype, device_type, device_index, target);
    }
    if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "dst", dst);
    if (dst->ndim != ndim || memcmp(dst->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: the output has shape %s but the result has shape %s", op,
                        nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, ndim));
    if (dst->dtype != dtype)
        return nb_error(NB_ERR_DTYPE, "%s: dtype %s does not match the dtype of the output (%s)", op,
                        nb_dtype_str(dtype), nb_dtype_str(dst->dtype));
    if (dst->storage->device_type != device_type || dst->storage->device_index != device_index)
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the result was asked on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(device_type), (int)device_index);
    *target = dst;
    return NB_OK;
}

nb_status nb_rng_finish(nb_status st, nb_tensor* target, nb_tensor* dst, nb_tensor** out) {
    if (st != NB_OK) {
        if (dst == NULL) nb_tensor_release(target);
        return st;
    }
    if (dst == NULL) {
        *out = target;
        return NB_OK;
    }
    nb_tensor_bump_version(dst);
    if (out != NULL) {
        nb_tensor_retain(dst);
        *out = dst;
    }
    return NB_OK;
}

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

NB_API nb_status nb_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index,
                         nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    return create_float("rand", false, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index,
                          nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    return create_float("randn", true, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

/* Validates an in-place target and the generator. */
static nb_status inplace_args(const char* op, nb_tensor* t, nb_generator* gen, nb_generator** g) {
    NB_CHECK_TENSOR(op, t);
    return nb_rng_resolve(op, gen, g);
}

NB_API nb_status nb_uniform_(nb_tensor* t, double from, double to, nb_generator* gen) {
    static const char* op = "uniform_";
    nb_generator* g = NULL;
    nb_status st = inplace_args(op, t, gen, &g);
    if (st == NB_OK) st = need_float(op, t->dtype);
    if (st == NB_OK) st = check_uniform(op, from, to, t->dtype);
    if (st == NB_OK) st = fill_float(op, false, from, to, g, t);
    if (st == NB_OK) nb_tensor_bump_version(t);
    return st;
}

NB_API nb_status nb_normal_(nb_tensor* t, double mean, double std, nb_generator* gen) {
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
    d.low = low;
    d.span = (uint64_t)high - (uint64_t)low + 1; /* 0 for the full 2^64 */
    const bool narrow = d.span != 0 && d.span <= (UINT64_C(1) << 16);
    const int64_t epb = narrow ? 4 : 2;
    d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + epb - 1) / epb));
    return nb_rng_produce(op, target, &d, narrow ? k_int_narrow : k_int_wide);
}

NB_API nb_status nb_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype,
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

NB_API nb_status nb_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen) {
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

NB_API nb_status nb_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
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
    d.a = p;
    d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + 3) / 4));
    return nb_rng_finish(nb_rng_produce(op, target, &d, k_bernoulli_scalar), target, dst, out);
}

NB_API nb_status nb_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
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
    } else if (dst->storage->device_type != p->storage->device_type ||
               dst->storage->device_index != p->storage->device_index) {
        st = nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but p is on %s:%d", op,
                      nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                      nb_device_type_name(p->storage->device_type), (int)p->storage->device_index);
    } else {
        target = dst;
    }
    if (st != NB_OK) return st;
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
        d.in = nb_tensor_data(probs);
        d.ph = nb_rng_reserve(g, (uint64_t)((target->numel + 3) / 4));
        st = nb_rng_produce(op, target, &d, k_bernoulli_tensor);
    }
    nb_tensor_release(probs);
    return nb_rng_finish(st, target, dst, out);
}

/* ---- dropout ---- */

NB_API nb_status nb_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst,
                            nb_tensor** out) {
    static const char* op = "dropout";
    NB_CHECK_TENSOR(op, x);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(op, "dst", dst);
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (!(p >= 0 && p <= 1))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: probability has to be between 0 and 1, but got %g", op, p);
    if (!nb_dtype_is_floating(x->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected a floating point input, got %s", op, nb_dtype_str(x->dtype));
    if (dst != NULL) {
        if (dst->ndim != x->ndim || memcmp(dst->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "%s: the output has shape %s but the input has shape %s", op,
                            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(x->shape, x->ndim));
        if (!nb_dtype_is_floating(dst->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s", op,
                            nb_dtype_str(x->dtype), nb_dtype_str(dst->dtype));
        if (dst->storage->device_type != x->storage->device_type ||
            dst->storage->device_index != x->storage->device_index)
            return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                            nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                            nb_device_type_name(x->storage->device_type), (int)x->storage->device_index);
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
