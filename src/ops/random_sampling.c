/* random_sampling.c: randperm and multinomial, on the Philox streams of random.c.
 *
 * Both draw 64-bit values, two per Philox block: value v is the v % 2-th half of
 * block v / 2 of the op's reservation, so the result is the same for any thread
 * count. randperm is a Fisher-Yates shuffle (step i, from n-1 down to 1, swaps
 * element i with element floor(x_i * (i + 1) / 2^64)); multinomial with
 * replacement inverts each row's cumulative sums at one value per sample, and
 * without replacement keeps the num_samples smallest keys -log(u_c) / p_c (the
 * exponential race, which is sequential sampling without replacement). */
#include "random.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t value64(const uint32_t w[4], int64_t half) {
    return ((uint64_t)w[2 * half + 1] << 32) | w[2 * half];
}

/* ---- randperm ---- */

nb_status nbi_randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen,
                             nb_tensor* dst, nb_tensor** out) {
    static const char* op = "randperm";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (n < 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: n must be non-negative, got n=%lld", op, (long long)n);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    static const int64_t largest[NB_NUM_DTYPES] = {INT64_C(1) << 24, INT64_C(1) << 53, 2048, 256, INT8_MAX,
                                                   INT16_MAX, INT32_MAX, INT64_MAX, UINT8_MAX, 1};
    if (n > 0 && n - 1 > largest[dtype])
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: n=%lld is too large for dtype %s (its largest exact integer is %lld)",
                        op, (long long)n, nb_dtype_str(dtype), (long long)largest[dtype]);
    nb_tensor* target = NULL;
    if ((st = nb_rng_target(op, &n, 1, dtype, device_type, device_index, dst, out, &target)) != NB_OK) return st;
    const nb_philox ph = nb_rng_reserve(g, (uint64_t)(n + 1) / 2);
    nb_tensor* perm = target;
    const bool direct = target->storage->device_type == NB_CPU && target->contiguous && target->dtype == NB_I64;
    if (direct) {
        nb_tensor_retain(perm);
    } else if ((st = nb_tensor_new(op, &n, 1, NB_I64, NB_CPU, 0, &perm)) != NB_OK) {
        return nb_rng_finish(st, target, dst, out);
    }
    int64_t* a = nb_tensor_data(perm);
    for (int64_t i = 0; i < n; i++) a[i] = i;
    uint32_t w[4];
    uint64_t cached = UINT64_MAX;
    for (int64_t i = n - 1; i > 0; i--) {
        const uint64_t b = (uint64_t)i >> 1;
        if (b != cached) {
            nb_philox_block(&ph, b, w);
            cached = b;
        }
        const int64_t j = (int64_t)nb_mulhi64(value64(w, i & 1), (uint64_t)i + 1);
        const int64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    if (!direct) st = nb_copy_into(op, target, perm);
    nb_tensor_release(perm);
    return nb_rng_finish(st, target, dst, out);
}

/* ---- multinomial ---- */

typedef struct {
    const double* cdf;  /* rows x k cumulative sums (with replacement) or probabilities */
    int64_t k, ns;
    int64_t* out;       /* rows x ns */
    nb_philox ph;
    _Atomic int32_t status; /* set by a range that fails to allocate */
} mn_job;

/* With replacement: flat samples [begin, end); sample e of row e / ns uses value e. */
static void mn_with_replacement(void* ctx, int64_t begin, int64_t end) {
    const mn_job* j = ctx;
    uint32_t w[4];
    uint64_t cached = UINT64_MAX;
    for (int64_t e = begin; e < end; e++) {
        const uint64_t b = (uint64_t)e >> 1;
        if (b != cached) {
            nb_philox_block(&j->ph, b, w);
            cached = b;
        }
        const double* cdf = j->cdf + (e / j->ns) * j->k;
        const double u = (double)(value64(w, e & 1) >> 11) * 0x1p-53;
        const double x = u * cdf[j->k - 1];
        int64_t lo = 0, hi = j->k - 1; /* the first c with cdf[c] > x */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cdf[mid] > x) hi = mid;
            else lo = mid + 1;
        }
        while (lo > 0 && cdf[lo] == cdf[lo - 1]) lo--; /* x rounded up to the total: the last nonzero category */
        j->out[e] = lo;
    }
}

typedef struct {
    double key;
    int64_t index;
} keyed;

static int keyed_cmp(const void* pa, const void* pb) {
    const keyed *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Without replacement: rows [begin, end); category c of row r uses value r * k + c. */
static void mn_without_replacement(void* ctx, int64_t begin, int64_t end) {
    mn_job* j = ctx;
    const int64_t k = j->k, ns = j->ns;
    keyed* keys = malloc(sizeof(keyed) * (size_t)k);
    if (keys == NULL) {
        atomic_store(&j->status, NB_ERR_OUT_OF_MEMORY);
        return;
    }
    for (int64_t r = begin; r < end; r++) {
        const double* p = j->cdf + r * k;
        uint32_t w[4];
        uint64_t cached = UINT64_MAX;
        for (int64_t c = 0; c < k; c++) {
            const uint64_t v = (uint64_t)(r * k + c), b = v >> 1;
            if (b != cached) {
                nb_philox_block(&j->ph, b, w);
                cached = b;
            }
            const double u = (double)((value64(w, (int64_t)(v & 1)) >> 11) + 1) * 0x1p-53; /* (0, 1] */
            keys[c].key = p[c] > 0 ? -log(u) / p[c] : INFINITY;
            keys[c].index = c;
        }
        if (ns == 1) {
            int64_t best = 0;
            for (int64_t c = 1; c < k; c++)
                if (keys[c].key < keys[best].key) best = c;
            j->out[r] = best;
        } else {
            qsort(keys, (size_t)k, sizeof(keyed), keyed_cmp);
            for (int64_t s = 0; s < ns; s++) j->out[r * ns + s] = keys[s].index;
        }
    }
    free(keys);
}

nb_status nbi_multinomial(const nb_tensor* probs, int64_t num_samples, int32_t replacement, nb_generator* gen,
                                nb_tensor* dst, nb_tensor** out) {
    static const char* op = "multinomial";
    NB_CHECK_TENSOR(op, probs);
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (probs->ndim != 1 && probs->ndim != 2)
        return nb_error(NB_ERR_SHAPE, "%s: prob_dist must be 1 or 2 dim, got shape %s", op,
                        nb_shape_str(probs->shape, probs->ndim));
    if (!nb_dtype_is_floating(probs->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: only supports floating-point dtypes for input, got %s", op,
                        nb_dtype_str(probs->dtype));
    const int64_t k = probs->shape[probs->ndim - 1], rows = probs->ndim == 2 ? probs->shape[0] : 1;
    if (num_samples <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: cannot sample n_sample <= 0 samples (n_sample=%lld)", op,
                        (long long)num_samples);
    if (k == 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the probability tensor has no categories", op);
    if (!replacement && num_samples > k)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
                        "(n_sample=%lld, categories=%lld)", op, (long long)num_samples, (long long)k);
    const int64_t shape[2] = {rows, num_samples};
    const int32_t ndim = probs->ndim;
    nb_tensor* target = NULL;
    st = nb_rng_target(op, ndim == 2 ? shape : shape + 1, ndim, NB_I64, probs->storage->device_type,
                       probs->storage->device_index, dst, out, &target);
    if (st != NB_OK) return st;

    const int64_t pshape[2] = {rows, k};
    nb_tensor *p = NULL, *result = NULL;
    st = nb_tensor_new(op, pshape, 2, NB_F64, NB_CPU, 0, &p);
    if (st == NB_OK) st = nb_copy_into(op, p, probs); /* a 1-D input broadcasts to one row */
    double* v = st == NB_OK ? nb_tensor_data(p) : NULL;
    for (int64_t r = 0; st == NB_OK && r < rows; r++) {
        double sum = 0;
        for (int64_t c = 0; c < k; c++) {
            const double x = v[r * k + c];
            if (!(x >= 0) || !isfinite(x)) {
                st = nb_error(NB_ERR_INVALID_ARGUMENT,
                              "%s: probability tensor contains either inf, nan or element < 0 (found %g in row %lld, "
                              "category %lld)", op, x, (long long)r, (long long)c);
                break;
            }
            sum += x;
            if (replacement) v[r * k + c] = sum; /* cumulative sums for the inversion */
        }
        if (st == NB_OK && !(sum > 0))
            st = nb_error(NB_ERR_INVALID_ARGUMENT,
                          "%s: invalid multinomial distribution (sum of probabilities <= 0) in row %lld", op,
                          (long long)r);
    }
    const bool direct = target->storage->device_type == NB_CPU && target->contiguous;
    if (st == NB_OK) {
        if (direct) {
            result = target;
            nb_tensor_retain(result);
        } else {
            st = nb_tensor_new(op, target->shape, target->ndim, NB_I64, NB_CPU, 0, &result);
        }
    }
    if (st == NB_OK) {
        const int64_t values = replacement ? rows * num_samples : rows * k;
        mn_job j = {v, k, num_samples, nb_tensor_data(result), nb_rng_reserve(g, (uint64_t)(values + 1) / 2), NB_OK};
        if (replacement) {
            nb_rng_parallel(rows * num_samples, mn_with_replacement, &j, 16384);
        } else {
            nb_rng_parallel(rows, mn_without_replacement, &j, k >= 4096 ? 1 : 4096 / k + 1);
        }
        if (atomic_load(&j.status) != NB_OK) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld sort keys", op, (long long)k);
        if (st == NB_OK && !direct) st = nb_copy_into(op, target, result);
    }
    nb_tensor_release(result);
    nb_tensor_release(p);
    return nb_rng_finish(st, target, dst, out);
}
