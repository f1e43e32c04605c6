/* test_random.c: generator lifetime and state, the documented Philox stream,
 * reproducibility (seeds, states, dst, threads sharing a generator), and the
 * error paths of the random ops. */
#include "nbtest.h"
#include "../../src/ops/philox.h" /* the stream convention is public: a CUDA backend reproduces it */

#include <nabla/dlpack.h>
#include <pthread.h>

static const int64_t S1000[1] = {1000};

/* n values of a 1-D float tensor as doubles. */
static void values_of(const nb_tensor* t, double* out, int64_t n) { CHECK_EQ_INT(nbt_values(t, out, n), n); }

static nb_tensor* rand_f32(nb_generator* g, int64_t n) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_rand(&n, 1, NB_F32, NB_CPU, 0, g, NULL, &t));
    return t;
}

TEST(test_philox_known_answers) {
    uint32_t out[4];
    const uint32_t zero[4] = {0, 0, 0, 0}, ones[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    const uint32_t pi[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    nb_philox4x32_10(zero, 0, 0, out);
    CHECK(out[0] == 0x6627e8d5u && out[1] == 0xe169c58du && out[2] == 0xbc57ac4cu && out[3] == 0x9b00dbd8u);
    nb_philox4x32_10(ones, 0xffffffffu, 0xffffffffu, out);
    CHECK(out[0] == 0x408f276du && out[1] == 0x41c83b0eu && out[2] == 0xa20bc7c6u && out[3] == 0x6d5451fdu);
    nb_philox4x32_10(pi, 0xa4093822u, 0x299f31d0u, out);
    CHECK(out[0] == 0xd16cfe09u && out[1] == 0x94fdccebu && out[2] == 0x5001e420u && out[3] == 0x24126ea1u);
    /* the 8-wide form gives the same words */
    nb_philox p = nb_philox_make(UINT64_C(0x123456789abcdef), UINT64_C(0xfffffffffffffffd));
    uint32_t b8[8][4];
    nb_philox_block8(&p, 0, b8);
    for (int j = 0; j < 8; j++) {
        nb_philox_block(&p, (uint64_t)j, out);
        for (int k = 0; k < 4; k++) CHECK(out[k] == b8[j][k]);
    }
}

TEST(test_generator_lifetime_and_state) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(42, &g));
    CHECK(g != NULL && g != nb_default_generator());
    uint64_t seed = 0, offset = 1;
    CHECK_OK(nb_generator_get_state(g, &seed, &offset));
    CHECK_EQ_INT(seed, 42);
    CHECK_EQ_INT(offset, 0);
    nb_tensor* t = rand_f32(g, 10); /* 10 float32 values: 3 blocks of 4 words */
    CHECK_OK(nb_generator_get_state(g, &seed, &offset));
    CHECK_EQ_INT(offset, 3);
    nb_tensor_release(t);
    CHECK_OK(nb_generator_set_state(g, 7, 100));
    CHECK_OK(nb_generator_seed(g, &seed));
    CHECK_EQ_INT(seed, 7);
    CHECK_OK(nb_generator_manual_seed(g, 9));
    CHECK_OK(nb_generator_get_state(g, &seed, &offset));
    CHECK(seed == 9 && offset == 0);
    nb_generator_release(g);
    nb_generator_release(NULL);                   /* NULL-safe */
    nb_generator_release(nb_default_generator()); /* the default is never freed */
    CHECK_OK(nb_manual_seed(UINT64_C(67280421310721)));
    CHECK_OK(nb_generator_seed(NULL, &seed));     /* NULL: the default generator */
    CHECK(seed == UINT64_C(67280421310721));
    CHECK_OK(nb_generator_seed(nb_default_generator(), &seed));
    CHECK(seed == UINT64_C(67280421310721));
    CHECK_STATUS(nb_generator_create(1, NULL), NB_ERR_INVALID_ARGUMENT, "generator_create");
    CHECK_STATUS(nb_generator_seed(NULL, NULL), NB_ERR_INVALID_ARGUMENT, "generator_seed");
    CHECK_STATUS(nb_generator_get_state(NULL, &seed, NULL), NB_ERR_INVALID_ARGUMENT, "offset");
}

TEST(test_rand_is_the_documented_stream) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(UINT64_C(0xfeedface12345678), &g));
    nb_tensor* t = rand_f32(g, 1000);
    double v[1000];
    values_of(t, v, 1000);
    nb_philox p = nb_philox_make(UINT64_C(0xfeedface12345678), 0);
    for (int64_t i = 0; i < 1000; i++) {
        uint32_t w[4];
        nb_philox_block(&p, (uint64_t)(i / 4), w);
        if (v[i] != (double)nb_u01_f32(w[i % 4])) {
            CHECK_EQ_DBL(v[i], nb_u01_f32(w[i % 4]));
            break;
        }
    }
    nb_tensor_release(t);
    nb_generator_release(g);
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* IEEE sqrt (correctly rounded, like sqrtf) without linking libm */
static float sqrt_ieee(float x) { return _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x))); }

/* nb_box_muller_f32 with sqrt_ieee for sqrtf */
static void box_muller_ref(uint32_t w0, uint32_t w1, float* z0, float* z1) {
    const float r = sqrt_ieee(nb_neg2log_f32(nb_u01_open_f32(w0)));
    float s, c;
    nb_sincos_2pi_f32(w1, &s, &c);
    *z0 = r * c;
    *z1 = r * s;
}

/* randn float32 is nb_box_muller_f32 of the stream, bit for bit: the library's
 * vectorised passes (SSE, AVX2) round exactly like this scalar reference, which is
 * what a device backend evaluating the same expressions must reproduce. */
TEST(test_randn_float32_is_the_scalar_reference_bit_for_bit) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(2718281828, &g));
    enum { N = 20001 };
    int64_t n = N;
    nb_tensor* t = NULL;
    CHECK_OK(nb_randn(&n, 1, NB_F32, NB_CPU, 0, g, NULL, &t));
    static float got[N];
    CHECK_OK(nb_tensor_copy_to_host(t, got, sizeof got));
    nb_philox p = nb_philox_make(2718281828, 0);
    int bad = 0;
    for (int64_t b = 0; b * 4 < N && bad < 3; b++) {
        uint32_t w[4];
        float z[4];
        nb_philox_block(&p, (uint64_t)b, w);
        box_muller_ref(w[0], w[1], &z[0], &z[1]);
        box_muller_ref(w[2], w[3], &z[2], &z[3]);
        for (int k = 0; k < 4 && b * 4 + k < N; k++)
            if (memcmp(&z[k], &got[b * 4 + k], sizeof(float)) != 0) {
                CHECK_EQ_DBL(got[b * 4 + k], z[k]);
                bad++;
            }
    }
    nb_tensor_release(t);
    nb_generator_release(g);
}
#endif

TEST(test_same_seed_same_numbers_and_state_replay) {
    nb_generator *a = NULL, *b = NULL;
    CHECK_OK(nb_generator_create(5, &a));
    CHECK_OK(nb_generator_create(5, &b));
    nb_tensor *x = NULL, *y = NULL;
    CHECK_OK(nb_randn(S1000, 1, NB_F64, NB_CPU, 0, a, NULL, &x));
    CHECK_OK(nb_randn(S1000, 1, NB_F64, NB_CPU, 0, b, NULL, &y));
    double vx[1000], vy[1000];
    values_of(x, vx, 1000);
    values_of(y, vy, 1000);
    CHECK_VALUES(y, vx, 1000);
    uint64_t seed, offset;
    CHECK_OK(nb_generator_get_state(a, &seed, &offset));
    nb_tensor *r1 = NULL, *r2 = NULL;
    CHECK_OK(nb_randint(-50, 50, S1000, 1, NB_I32, NB_CPU, 0, a, NULL, &r1));
    CHECK_OK(nb_generator_set_state(a, seed, offset));
    CHECK_OK(nb_randint(-50, 50, S1000, 1, NB_I32, NB_CPU, 0, a, NULL, &r2));
    double v1[1000];
    values_of(r1, v1, 1000);
    CHECK_VALUES(r2, v1, 1000);
    for (int i = 0; i < 1000; i++) CHECK(v1[i] >= -50 && v1[i] < 50);
    /* different seeds differ */
    CHECK_OK(nb_generator_manual_seed(b, 6));
    nb_tensor* z = NULL;
    CHECK_OK(nb_randn(S1000, 1, NB_F64, NB_CPU, 0, b, NULL, &z));
    double vz[1000];
    values_of(z, vz, 1000);
    CHECK(memcmp(vx, vz, sizeof vx) != 0);
    nb_tensor_release(x), nb_tensor_release(y), nb_tensor_release(z);
    nb_tensor_release(r1), nb_tensor_release(r2);
    nb_generator_release(a);
    nb_generator_release(b);
}

TEST(test_dst_and_in_place) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(11, &g));
    nb_tensor *dst = NULL, *out = NULL, *fresh = NULL;
    const int64_t s23[2] = {2, 3};
    CHECK_OK(nb_empty(s23, 2, NB_F32, NB_CPU, 0, &dst));
    int64_t version = nb_tensor_version(dst);
    CHECK_OK(nb_rand(s23, 2, NB_F32, NB_CPU, 0, g, dst, &out));
    CHECK(out == dst);
    CHECK_EQ_INT(nb_tensor_refcount(dst), 2);
    CHECK(nb_tensor_version(dst) > version);
    nb_tensor_release(out);
    CHECK_OK(nb_rand(s23, 2, NB_F32, NB_CPU, 0, g, dst, NULL)); /* out may be NULL with dst */
    CHECK_OK(nb_generator_manual_seed(g, 11));
    CHECK_OK(nb_rand(s23, 2, NB_F32, NB_CPU, 0, g, NULL, &fresh));
    CHECK_OK(nb_generator_manual_seed(g, 11));
    CHECK_OK(nb_uniform_(dst, 0, 1, g)); /* uniform_(0, 1) is rand */
    double want[6];
    values_of(fresh, want, 6);
    CHECK_VALUES(dst, want, 6);
    CHECK_OK(nb_normal_(dst, 3.0, 0.0, g)); /* std 0: exactly the mean */
    const double threes[6] = {3, 3, 3, 3, 3, 3};
    CHECK_VALUES(dst, threes, 6);
    nb_tensor* ints = NULL;
    CHECK_OK(nb_empty(s23, 2, NB_I8, NB_CPU, 0, &ints));
    CHECK_OK(nb_random_(ints, 4, 4, g)); /* [4, 4] inclusive */
    const double fours[6] = {4, 4, 4, 4, 4, 4};
    CHECK_VALUES(ints, fours, 6);
    CHECK_OK(nb_random_(ints, INT8_MIN, INT8_MAX, g)); /* the whole range */
    CHECK_STATUS(nb_rand(s23, 2, NB_F64, NB_CPU, 0, g, dst, &out), NB_ERR_DTYPE, "does not match");
    CHECK_OK(nb_rand(S1000, 1, NB_F32, NB_CPU, 0, g, dst, NULL));  /* resized without a warning, as PyTorch */
    CHECK_SHAPE(dst, 1000);
    nb_tensor_release(ints);
    nb_tensor_release(fresh);
    nb_tensor_release(dst);
    nb_generator_release(g);
}

TEST(test_sampling_ops) {
    nb_tensor *perm = NULL, *probs = NULL, *idx = NULL, *bern = NULL, *x = NULL, *y = NULL;
    CHECK_OK(nb_randperm(100, NB_I64, NB_CPU, 0, NULL, NULL, &perm));
    double v[100];
    values_of(perm, v, 100);
    int seen[100] = {0};
    for (int i = 0; i < 100; i++) seen[(int)v[i]]++;
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(seen[i], 1);
    const double w[4] = {0, 0, 2, 0};
    const int64_t s4[1] = {4};
    probs = nbt_tensor(w, s4, 1, NB_F32);
    CHECK_OK(nb_multinomial(probs, 5, 1, NULL, NULL, &idx));
    const double twos[5] = {2, 2, 2, 2, 2};
    CHECK_VALUES(idx, twos, 5);
    CHECK_EQ_INT(nb_tensor_dtype(idx), NB_I64);
    CHECK_STATUS(nb_bernoulli(probs, NULL, NULL, &bern), NB_ERR_INVALID_ARGUMENT, "p=2"); /* out of [0, 1] */
    CHECK(bern == NULL);
    nb_tensor_release(idx);
    const double p[4] = {0, 1, 1, 0};
    nb_tensor* pt = nbt_tensor(p, s4, 1, NB_F64);
    CHECK_OK(nb_bernoulli(pt, NULL, NULL, &bern));
    CHECK_VALUES(bern, p, 4);
    x = nbt_tensor(p, s4, 1, NB_F32);
    CHECK_OK(nb_dropout(x, 0.5, 0, NULL, NULL, &y)); /* not training: x itself */
    CHECK(y == x);
    CHECK_EQ_INT(nb_tensor_refcount(x), 2);
    nb_tensor_release(y);
    CHECK_OK(nb_dropout(x, 1.0, 1, NULL, NULL, &y)); /* p = 1: zeros */
    const double zeros[4] = {0, 0, 0, 0};
    CHECK_VALUES(y, zeros, 4);
    nb_tensor_release(y);
    CHECK_OK(nb_dropout(x, 0.0, 1, NULL, x, NULL)); /* p = 0 in place: unchanged */
    CHECK_VALUES(x, p, 4);
    nb_tensor_release(x);
    nb_tensor_release(pt);
    nb_tensor_release(bern);
    nb_tensor_release(probs);
    nb_tensor_release(perm);
}

TEST(test_errors) {
    nb_tensor* out = NULL;
    const int64_t neg[1] = {-2}, s3[1] = {3};
    uint64_t fake_storage[8] = {0}; /* not a generator: its magic word is wrong */
    nb_generator* fake = (nb_generator*)(void*)fake_storage;
    CHECK_STATUS(nb_rand(s3, 1, NB_F32, NB_CPU, 0, fake, NULL, &out), NB_ERR_INVALID_ARGUMENT, "generator");
    CHECK_STATUS(nb_generator_manual_seed(fake, 1), NB_ERR_INVALID_ARGUMENT, "generator");
    CHECK_STATUS(nb_rand(s3, 1, NB_F32, NB_CPU, 0, NULL, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "rand");
    CHECK_STATUS(nb_rand(neg, 1, NB_F32, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "negative dimension -2");
    CHECK_STATUS(nb_rand(s3, 1, NB_I32, NB_CPU, 0, NULL, NULL, &out), NB_ERR_DTYPE, "rand: expected a floating point");
    CHECK_STATUS(nb_randn(s3, 1, 99, NB_CPU, 0, NULL, NULL, &out), NB_ERR_DTYPE, "99");
    CHECK_STATUS(nb_rand(s3, 1, NB_F32, 42, 0, NULL, NULL, &out), NB_ERR_DEVICE, "rand");
    CHECK_STATUS(nb_randint(5, 5, s3, 1, NB_I64, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT,
                 "low=5 >= high=5");
    CHECK_STATUS(nb_randint(0, 129, s3, 1, NB_I8, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT,
                 "128 is out of bounds for int8");
    CHECK_STATUS(nb_randperm(-3, NB_I64, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "n=-3");
    CHECK_STATUS(nb_randperm(257, NB_U8, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "too large");
    CHECK_STATUS(nb_bernoulli_scalar(1.5, s3, 1, NB_F32, NB_CPU, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT,
                 "p=1.5");
    CHECK_STATUS(nb_uniform_(NULL, 0, 1, NULL), NB_ERR_INVALID_ARGUMENT, "uniform_");
    nb_tensor *t = NULL, *ti = NULL;
    CHECK_OK(nb_zeros(s3, 1, NB_F32, NB_CPU, 0, &t));
    CHECK_OK(nb_zeros(s3, 1, NB_I64, NB_CPU, 0, &ti));
    CHECK_STATUS(nb_uniform_(t, 1, 0, NULL), NB_ERR_INVALID_ARGUMENT, "from=1 > to=0");
    CHECK_STATUS(nb_uniform_(ti, 0, 1, NULL), NB_ERR_DTYPE, "uniform_");
    CHECK_STATUS(nb_normal_(t, 0, -1, NULL), NB_ERR_INVALID_ARGUMENT, "std");
    CHECK_STATUS(nb_random_(t, 3, 2, NULL), NB_ERR_INVALID_ARGUMENT, "from=3 >= to=3");
    CHECK_STATUS(nb_bernoulli(ti, NULL, NULL, &out), NB_ERR_DTYPE, "bernoulli");
    CHECK_STATUS(nb_multinomial(ti, 1, 1, NULL, NULL, &out), NB_ERR_DTYPE, "multinomial");
    CHECK_STATUS(nb_multinomial(t, 1, 1, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "sum of probabilities");
    CHECK_STATUS(nb_multinomial(t, 4, 0, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "without replacement");
    CHECK_STATUS(nb_multinomial(t, 0, 1, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "n_sample <= 0");
    CHECK_STATUS(nb_dropout(t, 1.5, 1, NULL, NULL, &out), NB_ERR_INVALID_ARGUMENT, "between 0 and 1");
    CHECK_STATUS(nb_dropout(ti, 0.5, 1, NULL, NULL, &out), NB_ERR_DTYPE, "floating point");
    CHECK_STATUS(nb_dropout(t, 0.5, 1, NULL, ti, NULL), NB_ERR_DTYPE, "can't be cast");
    CHECK(out == NULL); /* untouched by every failure */
    nb_tensor_release(t);
    nb_tensor_release(ti);
}

typedef struct {
    nb_generator* g;
    int iters;
} worker_args;

static void* worker(void* p) {
    worker_args* a = p;
    for (int i = 0; i < a->iters; i++) {
        nb_tensor* t = rand_f32(a->g, 400); /* 100 blocks each */
        nb_tensor_release(t);
    }
    return NULL;
}

TEST(test_threads_share_a_generator) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(3, &g));
    const int iters = (int)nbt_iters(200, 10);
    worker_args args = {g, iters};
    pthread_t th[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&th[i], NULL, worker, &args) == 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    uint64_t seed, offset;
    CHECK_OK(nb_generator_get_state(g, &seed, &offset));
    CHECK_EQ_INT(offset, 4 * iters * 100);
    nb_generator_release(g);
}

TEST(test_no_leaks) {
    nb_memory_stats before = nbt_stats();
    for (int i = 0; i < 20; i++) {
        nb_tensor* t = rand_f32(NULL, 100);
        nb_tensor* u = NULL;
        CHECK_OK(nb_dropout(t, 0.5, 1, NULL, NULL, &u));
        nb_tensor* s = NULL;
        CHECK_OK(nb_tensor_transpose(t, 0, 0, &s));
        CHECK_OK(nb_normal_(s, 0, 1, NULL));
        nb_tensor_release(s);
        nb_tensor_release(u);
        nb_tensor_release(t);
    }
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
}

/* A released generator is recognised (its slot is kept for generators only, with the
 * magic word cleared): every call fails cleanly instead of reading freed memory. */
TEST(test_released_generator_is_refused) {
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(5, &g));
    nb_generator_release(g);
    uint64_t seed = 0, offset = 0;
    nb_tensor* out = NULL;
    const int64_t s3[1] = {3};
    CHECK_STATUS(nb_generator_manual_seed(g, 1), NB_ERR_INVALID_ARGUMENT, "generator_manual_seed: generator was released");
    CHECK_STATUS(nb_generator_set_state(g, 1, 2), NB_ERR_INVALID_ARGUMENT, "generator_set_state: generator was released");
    CHECK_STATUS(nb_generator_get_state(g, &seed, &offset), NB_ERR_INVALID_ARGUMENT,
                 "generator_get_state: generator was released");
    CHECK_STATUS(nb_generator_seed(g, &seed), NB_ERR_INVALID_ARGUMENT, "generator_seed: generator was released");
    CHECK_STATUS(nb_rand(s3, 1, NB_F32, NB_CPU, 0, g, NULL, &out), NB_ERR_INVALID_ARGUMENT, "generator was released");
    CHECK_STATUS(nb_randperm(4, NB_I64, NB_CPU, 0, g, NULL, &out), NB_ERR_INVALID_ARGUMENT, "generator was released");
    CHECK(out == NULL && seed == 0 && offset == 0);
    nb_generator_release(g); /* a second release is a no-op */
    uint64_t fake_storage[8] = {0}; /* never a generator: told apart from a released one */
    CHECK_STATUS(nb_generator_manual_seed((nb_generator*)(void*)fake_storage, 1), NB_ERR_INVALID_ARGUMENT,
                 "not a live nb_generator");
}

/* A released generator's memory went back to the shared allocator: other objects of its
 * size reused it, or emptying the cache freed it, and a stale handle then read (or
 * seeded, or released) whatever lived there. Its slot now stays a generator's. */
TEST(test_released_generator_slot_is_not_reused_by_other_objects) {
    nb_generator *g = NULL, *h = NULL;
    CHECK_OK(nb_generator_create(5, &g));
    nb_generator_release(g);
    const int64_t s1[1] = {1};
    for (int i = 0; i < 64; i++) {  /* small objects of every kind, then the cache emptied */
        nb_tensor *t = NULL, *v = NULL;
        CHECK_OK(nb_zeros(s1, 1, NB_F32, NB_CPU, 0, &t));
        CHECK_OK(nb_tensor_view(t, s1, 1, &v));
        void* cap = NULL;
        CHECK_OK(nb_tensor_to_dlpack(v, -1, 0, 0, &cap));
        ((DLManagedTensor*)cap)->deleter((DLManagedTensor*)cap);
        nb_tensor_release(v), nb_tensor_release(t);
    }
    CHECK_OK(nb_memory_empty_cache(NB_CPU, 0));
    CHECK_STATUS(nb_generator_manual_seed(g, 1), NB_ERR_INVALID_ARGUMENT, "generator was released");
    nb_generator_release(g);  /* still a no-op */
    /* A new generator may take the slot: it starts from its own seed, whatever the old one did. */
    CHECK_OK(nb_generator_create(9, &h));
    uint64_t seed = 0, offset = 7;
    CHECK_OK(nb_generator_get_state(h, &seed, &offset));
    CHECK(seed == 9 && offset == 0);
    nb_generator_release(h);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_philox_known_answers);
    RUN(test_generator_lifetime_and_state);
    RUN(test_rand_is_the_documented_stream);
#if defined(__SSE2__)
    RUN(test_randn_float32_is_the_scalar_reference_bit_for_bit);
#endif
    RUN(test_same_seed_same_numbers_and_state_replay);
    RUN(test_dst_and_in_place);
    RUN(test_sampling_ops);
    RUN(test_errors);
    RUN(test_released_generator_is_refused);
    RUN(test_released_generator_slot_is_not_reused_by_other_objects);
    RUN(test_threads_share_a_generator);
    RUN(test_no_leaks);
    return NBT_END();
}
