/* sort.c: the ordering ops: sort, argsort, topk, unique.
 *
 * Every slice (slices in parallel) is sorted stably as (key, index) pairs: by
 * an LSD radix sort on order-preserving integer keys, or a merge sort for short
 * slices. NaN orders above every number (last ascending, first descending) and
 * -0.0 ties with 0.0, as in PyTorch. topk of a few elements streams each slice
 * through a heap instead. Tensors on a device go to its sort slot (sort_device.c). */
#include "sort_device.h"

#include <math.h>
#include <stdlib.h>

/* ---- sorting ---- */

/* Keys: float for f32/f16/bf16, double for f64, int64 for integers and bool. NaN
 * (x != x) orders after every number ascending and before them descending. */
#define ASC_BEFORE(a, b) ((a) < (b) || ((a) == (a) && (b) != (b)))
#define DESC_BEFORE(a, b) ((a) > (b) || ((a) != (a) && (b) == (b)))

#define SORT_KIND(K, TAG)                                                                               \
    typedef struct { K key; int64_t idx; } pair_##TAG;                                                  \
    static void merge_sort_##TAG(pair_##TAG* a, pair_##TAG* tmp, int64_t n, bool desc) {                \
        const int64_t RUN = 24;                                                                         \
        for (int64_t lo = 0; lo < n; lo += RUN) { /* stable insertion sort of short runs */             \
            int64_t hi = lo + RUN < n ? lo + RUN : n;                                                   \
            for (int64_t i = lo + 1; i < hi; i++) {                                                     \
                pair_##TAG v = a[i];                                                                    \
                int64_t j = i;                                                                          \
                if (desc) while (j > lo && DESC_BEFORE(v.key, a[j - 1].key)) { a[j] = a[j - 1]; j--; }  \
                else while (j > lo && ASC_BEFORE(v.key, a[j - 1].key)) { a[j] = a[j - 1]; j--; }        \
                a[j] = v;                                                                               \
            }                                                                                           \
        }                                                                                               \
        pair_##TAG *src = a, *dst = tmp;                                                                \
        for (int64_t w = RUN; w < n; w *= 2) {                                                          \
            for (int64_t lo = 0; lo < n; lo += 2 * w) {                                                 \
                int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;            \
                int64_t i = lo, j = mid, o = lo;                                                        \
                while (i < mid && j < hi) {                                                             \
                    bool right = desc ? DESC_BEFORE(src[j].key, src[i].key) : ASC_BEFORE(src[j].key, src[i].key); \
                    dst[o++] = right ? src[j++] : src[i++];                                             \
                }                                                                                       \
                while (i < mid) dst[o++] = src[i++];                                                    \
                while (j < hi) dst[o++] = src[j++];                                                     \
            }                                                                                           \
            pair_##TAG* t = src;                                                                        \
            src = dst, dst = t;                                                                         \
        }                                                                                               \
        if (src != a) memcpy(a, src, sizeof(pair_##TAG) * (size_t)n);                                   \
    }

SORT_KIND(float, f)
SORT_KIND(double, d)
SORT_KIND(int64_t, i)

/* topk with k much smaller than n: a heap of the k best seen so far (its root the
 * worst of them) under the total order (key, then index), so the result equals
 * the first k of the stable sort. Elements arrive in index order, so one whose
 * key merely equals the root's never displaces it: one key comparison decides. */
#define HEAP_KIND(TAG)                                                                                  \
    static inline bool better_##TAG(const pair_##TAG* x, const pair_##TAG* y, bool desc) {              \
        if (desc ? DESC_BEFORE(x->key, y->key) : ASC_BEFORE(x->key, y->key)) return true;               \
        if (desc ? DESC_BEFORE(y->key, x->key) : ASC_BEFORE(y->key, x->key)) return false;              \
        return x->idx < y->idx;                                                                         \
    }                                                                                                   \
    static void sift_##TAG(pair_##TAG* h, int64_t size, int64_t i, bool desc) {                         \
        for (;;) {                                                                                      \
            int64_t l = 2 * i + 1, r = l + 1, w = i;                                                    \
            if (l < size && better_##TAG(&h[w], &h[l], desc)) w = l;                                    \
            if (r < size && better_##TAG(&h[w], &h[r], desc)) w = r;                                    \
            if (w == i) return;                                                                         \
            pair_##TAG t = h[i];                                                                        \
            h[i] = h[w], h[w] = t, i = w;                                                               \
        }                                                                                               \
    }                                                                                                   \
    static void offer_##TAG(pair_##TAG* h, int64_t* size, int64_t k, const pair_##TAG* v, int64_t n,    \
                            bool desc) {                                                                \
        for (int64_t j = 0; j < n; j++) {                                                               \
            if (*size < k) {                                                                            \
                int64_t i = (*size)++;                                                                  \
                h[i] = v[j];                                                                            \
                while (i > 0 && better_##TAG(&h[(i - 1) / 2], &h[i], desc)) {                           \
                    pair_##TAG t = h[i];                                                                \
                    h[i] = h[(i - 1) / 2], h[(i - 1) / 2] = t, i = (i - 1) / 2;                         \
                }                                                                                       \
            } else if (desc ? DESC_BEFORE(v[j].key, h[0].key) : ASC_BEFORE(v[j].key, h[0].key)) {       \
                h[0] = v[j];                                                                            \
                sift_##TAG(h, k, 0, desc);                                                              \
            }                                                                                           \
        }                                                                                               \
    }                                                                                                   \
    static void drain_##TAG(pair_##TAG* h, int64_t k, bool desc) { /* best first */                     \
        for (int64_t size = k; size > 1; size--) {                                                      \
            pair_##TAG t = h[0];                                                                        \
            h[0] = h[size - 1], h[size - 1] = t;                                                        \
            sift_##TAG(h, size - 1, 0, desc);                                                           \
        }                                                                                               \
    }
HEAP_KIND(f)
HEAP_KIND(d)
HEAP_KIND(i)

/* ---- radix sort, for all but short slices ---- */

/* Keys mapped to unsigned integers whose order is the sort order: floats by
 * their bits with the sign folded in (-0.0 as +0.0, every NaN as the largest
 * key), integers with the sign bit flipped; descending complements the key.
 * An LSD radix sort of 8-bit digits on (key - min key) is then stable, and
 * skips every digit that all keys share. */
typedef struct { uint64_t key; int64_t idx; } pair_r;

#define NAN_KEY32 0xFFFFFFFFull
#define NAN_KEY64 UINT64_MAX

static inline uint64_t key32(float x) {
    if (x != x) return NAN_KEY32;
    if (x == 0) x = 0;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x80000000u) ? (uint32_t)~u : (u | 0x80000000u);
}

static inline uint64_t key64(double x) {
    if (x != x) return NAN_KEY64;
    if (x == 0) x = 0;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}

static void load_radix(pair_r* out, const char* p, int64_t s, int64_t n, int32_t dtype, bool desc) {
    const uint64_t flip = desc ? UINT64_MAX : 0;
    switch (dtype) {
#define LOAD(CODE, T, EXPR)                                                                             \
    case CODE: for (int64_t i = 0; i < n; i++) { T v = *(const T*)(p + i * s); out[i].key = (EXPR) ^ flip; out[i].idx = i; } break;
        LOAD(NB_F32, float, key32(v))
        LOAD(NB_F16, uint16_t, key32(nb_half_to_float(v)))
        LOAD(NB_BF16, uint16_t, key32(nb_bf16_to_float(v)))
        LOAD(NB_F64, double, key64(v))
        LOAD(NB_I8, int8_t, (uint64_t)(uint8_t)(v ^ INT8_MIN))
        LOAD(NB_I16, int16_t, (uint64_t)(uint16_t)(v ^ INT16_MIN))
        LOAD(NB_I32, int32_t, (uint64_t)(uint32_t)(v ^ INT32_MIN))
        LOAD(NB_I64, int64_t, (uint64_t)v ^ 0x8000000000000000ull)
        LOAD(NB_U8, uint8_t, v)
        LOAD(NB_BOOL, uint8_t, v)
#undef LOAD
        default: break;
    }
}

static void radix_sort(pair_r* a, pair_r* tmp, int64_t n) {
    uint64_t lo = UINT64_MAX;
    for (int64_t i = 0; i < n; i++) lo = a[i].key < lo ? a[i].key : lo;
    int64_t count[8][256];
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = a[i].key - lo;
        for (int d = 0; d < 8; d++, k >>= 8) count[d][k & 255]++;
    }
    pair_r *src = a, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        bool shared = false;  /* one digit value for every key: nothing to reorder */
        for (int b = 0; b < 256 && !shared; b++) shared = count[d][b] == n;
        if (shared) continue;
        int64_t at = 0;
        for (int b = 0; b < 256; b++) {
            int64_t c = count[d][b];
            count[d][b] = at;
            at += c;
        }
        for (int64_t i = 0; i < n; i++) dst[count[d][((src[i].key - lo) >> (8 * d)) & 255]++] = src[i];
        pair_r* t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, sizeof(pair_r) * (size_t)n);
}

#define RADIX_MIN 256 /* shorter slices: the merge sort (no histograms to clear) */

enum { KEY_F, KEY_D, KEY_I, KEY_R };
static int key_kind(int32_t dtype) {
    return dtype == NB_F64 ? KEY_D : nb_dtype_is_floating(dtype) ? KEY_F : KEY_I;
}
static size_t pair_size(int kind) {
    return kind == KEY_F ? sizeof(pair_f) : kind == KEY_D ? sizeof(pair_d) : kind == KEY_I ? sizeof(pair_i)
                                                                                           : sizeof(pair_r);
}

/* Loads n strided elements (byte stride s) of dtype as sort pairs. */
static void load_pairs(void* pairs, const char* p, int64_t s, int64_t n, int32_t dtype, int64_t first) {
    switch (dtype) {
#define LOAD(CODE, T, PT, EXPR)                                                                         \
    case CODE: for (int64_t i = 0; i < n; i++) { T v = *(const T*)(p + i * s); ((PT*)pairs)[i].key = EXPR; ((PT*)pairs)[i].idx = first + i; } break;
        LOAD(NB_F32, float, pair_f, v)
        LOAD(NB_F16, uint16_t, pair_f, nb_half_to_float(v))
        LOAD(NB_BF16, uint16_t, pair_f, nb_bf16_to_float(v))
        LOAD(NB_F64, double, pair_d, v)
        LOAD(NB_I8, int8_t, pair_i, v)
        LOAD(NB_I16, int16_t, pair_i, v)
        LOAD(NB_I32, int32_t, pair_i, v)
        LOAD(NB_I64, int64_t, pair_i, v)
        LOAD(NB_U8, uint8_t, pair_i, v)
        LOAD(NB_BOOL, uint8_t, pair_i, v)
#undef LOAD
        default: break;
    }
}

static void sort_pairs(void* pairs, void* tmp, int64_t n, int kind, bool desc) {
    if (kind == KEY_F) merge_sort_f(pairs, tmp, n, desc);
    else if (kind == KEY_D) merge_sort_d(pairs, tmp, n, desc);
    else merge_sort_i(pairs, tmp, n, desc);
}

static void offer_pairs(void* heap, int64_t* size, int64_t k, const void* v, int64_t n, int kind, bool desc) {
    if (kind == KEY_F) offer_f(heap, size, k, v, n, desc);
    else if (kind == KEY_D) offer_d(heap, size, k, v, n, desc);
    else offer_i(heap, size, k, v, n, desc);
}

static void drain_pairs(void* heap, int64_t k, int kind, bool desc) {
    if (kind == KEY_F) drain_f(heap, k, desc);
    else if (kind == KEY_D) drain_d(heap, k, desc);
    else drain_i(heap, k, desc);
}

static int64_t pair_idx(const void* pairs, int kind, int64_t j) {
    return kind == KEY_F ? ((const pair_f*)pairs)[j].idx : kind == KEY_D ? ((const pair_d*)pairs)[j].idx
           : kind == KEY_I ? ((const pair_i*)pairs)[j].idx : ((const pair_r*)pairs)[j].idx;
}

/* Sorts every slice of x along d and writes the first k of each into values
 * (x's dtype) and indices (int64), both contiguous with size k along d; either may be NULL. */
static nb_status sort_slices(const char* op, const nb_tensor* x, int32_t d, bool desc, int64_t k, nb_tensor* values,
                             nb_tensor* indices) {
    const int32_t nd = x->ndim;
    const int64_t n = nd ? x->shape[d] : 1, xs = nd ? x->strides[d] : 0;
    const nb_tensor* o = values ? values : indices;
    if (o->numel == 0) return NB_OK;
    const int64_t slices = o->numel / k, es = nb_dtype_sizes[x->dtype];
    const int64_t BLOCK = 2048;
    const bool use_heap = k < n && k <= n / 8;  /* topk of a few: a heap instead of a full sort */
    const int kind = !use_heap && n >= RADIX_MIN ? KEY_R : key_kind(x->dtype);
    const size_t psize = pair_size(kind);
    const int nt = nb_threads_for(x->numel, slices);
    _Atomic int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        void* pairs = malloc(psize * (size_t)(use_heap ? k + BLOCK : n * 2));
        if (pairs == NULL) failed = 1;
#pragma omp for schedule(static)
        for (int64_t s = 0; s < slices; s++) {
            if (pairs == NULL) continue;
            int64_t rem = s, xoff = x->offset, voff = values ? values->offset : 0, ioff = indices ? indices->offset : 0;
            for (int32_t i = nd - 1; i >= 0; i--) {  /* unravel s over every dim but d */
                if (i == d) continue;
                int64_t c = rem % x->shape[i];
                rem /= x->shape[i];
                xoff += c * x->strides[i];
                if (values) voff += c * values->strides[i];
                if (indices) ioff += c * indices->strides[i];
            }
            const char* xp = (const char*)x->storage->data + xoff * es;
            if (use_heap) {  /* stream the slice through a block buffer into the heap */
                int64_t size = 0;
                void* block = (char*)pairs + psize * (size_t)k;
                for (int64_t b = 0; b < n; b += BLOCK) {
                    const int64_t cnt = n - b < BLOCK ? n - b : BLOCK;
                    load_pairs(block, xp + b * xs * es, xs * es, cnt, x->dtype, b);
                    offer_pairs(pairs, &size, k, block, cnt, kind, desc);
                }
                drain_pairs(pairs, k, kind, desc);
            } else if (kind == KEY_R) {
                load_radix(pairs, xp, xs * es, n, x->dtype, desc);
                radix_sort(pairs, (pair_r*)pairs + n, n);
            } else {
                load_pairs(pairs, xp, xs * es, n, x->dtype, 0);
                sort_pairs(pairs, (char*)pairs + psize * (size_t)n, n, kind, desc);
            }
            const int64_t vs = values && nd ? values->strides[d] : 0, is = indices && nd ? indices->strides[d] : 0;
            for (int64_t j = 0; j < k; j++) {
                int64_t src = pair_idx(pairs, kind, j);
                if (values)
                    memcpy((char*)values->storage->data + (voff + j * vs) * es, xp + src * xs * es, (size_t)es);
                if (indices) ((int64_t*)indices->storage->data)[ioff + j * is] = src;
            }
        }
        free(pairs);
    }
    return failed ? nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for sort buffers of %lld elements", op,
                             (long long)n)
                  : NB_OK;
}

/* values/indices (either may be NULL): the first k of each sorted slice of x along dim. */
static nb_status sort_impl(const char* op, const nb_tensor* x, int64_t dim, bool desc, int64_t k, bool k_given,
                           nb_tensor** values, nb_tensor** indices) {
    NB_CHECK_TENSOR(op, x);
    if (values == NULL && indices == NULL) NB_CHECK_OUT(op, values);
    nb_status st;
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, x->ndim, &d)) != NB_OK) return st;
    const int64_t n = x->ndim ? x->shape[d] : 1;
    if (!k_given) k = n;
    if (k < 0 || k > n) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: selected index k out of range (k = %lld, size %lld)", op,
                                        (long long)k, (long long)n);
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (x->ndim) shape[d] = k;
    const int32_t dt = x->storage->device_type, di = x->storage->device_index;
    nb_tensor *v = NULL, *i = NULL;
    if (values && (st = nb_tensor_new(op, shape, x->ndim, x->dtype, dt, di, &v)) != NB_OK) return st;
    if (indices && (st = nb_tensor_new(op, shape, x->ndim, NB_I64, dt, di, &i)) != NB_OK) {
        nb_tensor_release(v);
        return st;
    }
    if (k > 0) st = dt == NB_CPU ? sort_slices(op, x, d, desc, k, v, i) : nb_sortd_lines(op, x, d, desc, k, v, i);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(i);
        return st;
    }
    if (values) *values = v;
    if (indices) *indices = i;
    return NB_OK;
}

nb_status nbi_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values,
                         nb_tensor** indices) {
    (void)stable;  /* the sort is always stable */
    NB_CHECK_OUT("sort", values);
    NB_CHECK_OUT("sort", indices);
    return sort_impl("sort", x, dim, descending != 0, 0, false, values, indices);
}

nb_status nbi_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out) {
    (void)stable;
    NB_CHECK_OUT("argsort", out);
    return sort_impl("argsort", x, dim, descending != 0, 0, false, NULL, out);
}

nb_status nbi_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted,
                         nb_tensor** values, nb_tensor** indices) {
    (void)sorted;  /* results always come sorted */
    NB_CHECK_OUT("topk", values);
    NB_CHECK_OUT("topk", indices);
    return sort_impl("topk", x, dim, largest != 0, k, true, values, indices);
}

/* ---- unique ---- */

/* Whether sorted element a starts a new value after b. NaN != NaN: every NaN is
 * its own value, as in PyTorch (nan_key: the radix key of NaN, for float dtypes). */
static bool pair_key_differs(const void* pairs, int kind, int64_t a, int64_t b, bool floating, uint64_t nan_key) {
    if (kind == KEY_F) return ((const pair_f*)pairs)[a].key != ((const pair_f*)pairs)[b].key;
    if (kind == KEY_D) return ((const pair_d*)pairs)[a].key != ((const pair_d*)pairs)[b].key;
    if (kind == KEY_I) return ((const pair_i*)pairs)[a].key != ((const pair_i*)pairs)[b].key;
    const uint64_t ka = ((const pair_r*)pairs)[a].key;
    return ka != ((const pair_r*)pairs)[b].key || (floating && ka == nan_key);
}

nb_status nbi_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse,
                           nb_tensor** counts) {
    static const char* op = "unique";
    (void)sorted;  /* the values always come sorted */
    NB_CHECK_TENSOR(op, x);
    NB_CHECK_OUT(op, values);
    if (nb_sortd_on_device(x)) return nb_sortd_unique(op, x, true, values, inverse, counts);
    nb_status st;
    nb_tensor* c;
    if ((st = nb_tensor_contiguous(x, &c)) != NB_OK) return st;
    const int64_t n = c->numel, es = nb_dtype_sizes[x->dtype];
    const int kind = n >= RADIX_MIN ? KEY_R : key_kind(x->dtype);
    const size_t psize = pair_size(kind);
    void* pairs = malloc(psize * (size_t)(n > 0 ? n : 1) * 2);
    int64_t* first = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));  /* sorted position of each group's start */
    nb_tensor *v = NULL, *inv = NULL, *cnt = NULL;
    if (pairs == NULL || first == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %lld elements", op, (long long)n);
    int64_t groups = 0;
    if (st == NB_OK && n > 0) {
        const char* data = nb_tensor_data(c);
        if (kind == KEY_R) {
            load_radix(pairs, data, es, n, x->dtype, false);
            radix_sort(pairs, (pair_r*)pairs + n, n);
        } else {
            load_pairs(pairs, data, es, n, x->dtype, 0);
            sort_pairs(pairs, (char*)pairs + psize * (size_t)n, n, kind, false);
        }
        const bool floating = nb_dtype_is_floating(x->dtype);
        const uint64_t nan_key = x->dtype == NB_F64 ? NAN_KEY64 : NAN_KEY32;
        for (int64_t j = 0; j < n; j++)
            if (j == 0 || pair_key_differs(pairs, kind, j, j - 1, floating, nan_key)) first[groups++] = j;
    }
    if (st == NB_OK) st = nb_tensor_new(op, &groups, 1, x->dtype, NB_CPU, 0, &v);
    if (st == NB_OK && inverse) st = nb_tensor_new(op, x->shape, x->ndim, NB_I64, NB_CPU, 0, &inv);
    if (st == NB_OK && counts) st = nb_tensor_new(op, &groups, 1, NB_I64, NB_CPU, 0, &cnt);
    if (st == NB_OK) {
        const char* data = n ? nb_tensor_data(c) : NULL;
        for (int64_t g = 0; g < groups; g++) {
            int64_t end = g + 1 < groups ? first[g + 1] : n;
            memcpy((char*)nb_tensor_data(v) + g * es, data + pair_idx(pairs, kind, first[g]) * es, (size_t)es);
            if (cnt) ((int64_t*)nb_tensor_data(cnt))[g] = end - first[g];
            if (inv)
                for (int64_t j = first[g]; j < end; j++) ((int64_t*)nb_tensor_data(inv))[pair_idx(pairs, kind, j)] = g;
        }
    }
    free(pairs);
    free(first);
    nb_tensor_release(c);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(inv);
        nb_tensor_release(cnt);
        return st;
    }
    *values = v;
    if (inverse) *inverse = inv;
    if (counts) *counts = cnt;
    return NB_OK;
}
