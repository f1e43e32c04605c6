/* test_memory.c: lifetimes and allocator counters: live counts return to baseline,
 * the cache serves steady-state loops, peak/reset/empty_cache, and external deleters. */
#include "nbtest.h"

#define RING 64

TEST(test_many_tensors_return_to_baseline) {
    const long n = nbt_iters(1000000, 20000);
    const nb_memory_stats before = nbt_stats();
    const int64_t s34[2] = {3, 4};
    nb_tensor* base = nbt_iota(s34, 2, NB_F32);
    nb_tensor* ring[RING] = {NULL};
    for (long i = 0; i < n; i++) {
        nb_tensor* t = NULL;
        const int64_t len = 1 + i % 13;
        switch (i % 4) {
            case 0: CHECK_OK(nb_zeros(&len, 1, (int32_t)(i % 10), NB_CPU, 0, &t)); break;
            case 1: CHECK_OK(nb_tensor_transpose(base, 0, 1, &t)); break;
            case 2: CHECK_OK(nb_tensor_select(base, 1, -1, &t)); break;
            default: {  /* a view whose base handle goes first */
                nb_tensor* tmp = NULL;
                CHECK_OK(nb_full(&len, 1, 2.0, NB_F64, NB_CPU, 0, &tmp));
                CHECK_OK(nb_tensor_slice(tmp, 0, 0, len, 2, &t));
                nb_tensor_release(tmp);
            }
        }
        nb_tensor_release(ring[i % RING]);
        ring[i % RING] = t;
    }
    nb_memory_stats mid = nbt_stats();
    CHECK(mid.live_tensors > before.live_tensors);
    for (int k = 0; k < RING; k++) nb_tensor_release(ring[k]);
    CHECK_EQ_INT(nb_tensor_refcount(base), 1);
    nb_tensor_release(base);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    CHECK_EQ_INT(after.alloc_count - before.alloc_count, after.free_count - before.free_count);
}

/* One iteration of a typical loop body: the same sizes every time. */
static void loop_body(void) {
    const int64_t s[2] = {16, 16}, small[1] = {3};
    nb_tensor *a = NULL, *b = NULL, *tr = NULL, *c = NULL, *v = NULL;
    CHECK_OK(nb_zeros(s, 2, NB_F32, NB_CPU, 0, &a));
    CHECK_OK(nb_full(small, 1, 1.5, NB_I64, NB_CPU, 0, &b));
    CHECK_OK(nb_tensor_transpose(a, 0, 1, &tr));
    CHECK_OK(nb_tensor_clone(tr, &c));
    CHECK_OK(nb_tensor_select(c, 0, 3, &v));
    CHECK(nb_tensor_copy_(v, b) == NB_ERR_SHAPE);  /* [3] -> [16]: error paths too */
    CHECK_OK(nb_tensor_copy_(c, v));                /* [16] -> [16, 16] */
    nb_tensor_release(v);
    nb_tensor_release(c);
    nb_tensor_release(tr);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

TEST(test_steady_state_loop_makes_no_system_allocations) {
    loop_body();  /* the first iteration may reach the system allocator */
    const nb_memory_stats first = nbt_stats();
    const long n = nbt_iters(10000, 200);
    for (long i = 0; i < n; i++) loop_body();
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.system_alloc_count, first.system_alloc_count);
    CHECK(after.alloc_count > first.alloc_count);  /* ... served from the cache instead */
    CHECK_EQ_INT(after.allocated_bytes, first.allocated_bytes);
    CHECK_EQ_INT(after.cached_bytes, first.cached_bytes);
}

TEST(test_allocated_bytes_and_peak) {
    CHECK_OK(nb_memory_reset_peak(NB_CPU, 0));
    const nb_memory_stats before = nbt_stats();
    CHECK_EQ_INT(before.peak_allocated_bytes, before.allocated_bytes);
    const int64_t n = 1 << 18;  /* 1 MiB of float32 */
    nb_tensor* t = NULL;
    CHECK_OK(nb_empty(&n, 1, NB_F32, NB_CPU, 0, &t));
    const nb_memory_stats live = nbt_stats();
    const int64_t grown = live.allocated_bytes - before.allocated_bytes;
    /* The data plus the tensor and storage objects, each block rounded up to its size
     * class (at most 25% slack). */
    CHECK(grown >= (1 << 20) && grown <= (1 << 20) + (1 << 18) + 4096);
    CHECK(live.peak_allocated_bytes >= live.allocated_bytes);
    nb_tensor_release(t);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    CHECK_EQ_INT(after.peak_allocated_bytes, live.allocated_bytes);  /* the peak stays */
    CHECK_OK(nb_memory_reset_peak(NB_CPU, -1));
    const nb_memory_stats reset = nbt_stats();
    CHECK_EQ_INT(reset.peak_allocated_bytes, reset.allocated_bytes);
}

TEST(test_empty_cache) {
    const int64_t n = 100000;
    for (int i = 0; i < 4; i++) {
        nb_tensor* t = NULL;
        CHECK_OK(nb_zeros(&n, 1, NB_F64, NB_CPU, 0, &t));
        nb_tensor_release(t);
    }
    const nb_memory_stats before = nbt_stats();
    CHECK(before.cached_bytes >= n * 8);
    CHECK_OK(nb_memory_empty_cache(NB_CPU, 0));
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.cached_bytes, 0);
    CHECK(after.system_free_count > before.system_free_count);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    /* The next allocation of that size goes back to the system. */
    nb_tensor* t = NULL;
    CHECK_OK(nb_zeros(&n, 1, NB_F64, NB_CPU, 0, &t));
    CHECK(nbt_stats().system_alloc_count > after.system_alloc_count);
    nb_tensor_release(t);
}

/* ---- external memory ---- */

static int deleter_calls;
static void* deleted_payload;

static void free_payload(void* payload) {
    deleter_calls++;
    deleted_payload = payload;
    free(payload);
}

/* An external 2x3 float32 tensor over a malloc'd buffer that free_payload frees. */
static nb_tensor* external_tensor(float** data_out) {
    float* data = malloc(6 * sizeof *data);
    for (int i = 0; i < 6; i++) data[i] = (float)i;
    const int64_t shape[2] = {2, 3};
    nb_tensor* t = NULL;
    CHECK_OK(nb_tensor_from_external(data, shape, NULL, 2, NB_F32, NB_CPU, 0, free_payload, data, &t));
    *data_out = data;
    return t;
}

TEST(test_external_deleter_runs_once_after_last_view) {
    /* orders[k] lists which of {base, v1, v2} is released first, second, third. */
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const nb_memory_stats before = nbt_stats();
    for (int k = 0; k < 6; k++) {
        float* data = NULL;
        nb_tensor* h[3] = {external_tensor(&data), NULL, NULL};
        CHECK_OK(nb_tensor_transpose(h[0], 0, 1, &h[1]));
        CHECK_OK(nb_tensor_select(h[1], 0, 2, &h[2]));  /* a view of a view: column 2 */
        const double col2[2] = {2, 5};
        CHECK_VALUES(h[2], col2, 2);
        deleter_calls = 0;
        deleted_payload = NULL;
        for (int r = 0; r < 3; r++) {
            nb_tensor_release(h[orders[k][r]]);
            CHECK_EQ_INT(deleter_calls, r == 2 ? 1 : 0);
        }
        CHECK(deleted_payload == (void*)data);
    }
    /* Extra references: retained twice, released three times. */
    float* data = NULL;
    nb_tensor* t = external_tensor(&data);
    deleter_calls = 0;
    nb_tensor_retain(t);
    nb_tensor_retain(t);
    nb_tensor_release(t);
    nb_tensor_release(t);
    CHECK_EQ_INT(deleter_calls, 0);
    nb_tensor_release(t);
    CHECK_EQ_INT(deleter_calls, 1);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
}

TEST(test_external_deleter_not_called_on_failure) {
    float* data = malloc(6 * sizeof *data);
    const int64_t shape[2] = {2, 3}, neg_shape[2] = {2, -3}, neg_strides[2] = {-3, 1};
    const nb_memory_stats before = nbt_stats();
    deleter_calls = 0;
    nb_tensor* t = NULL;
    CHECK_STATUS(nb_tensor_from_external(data, shape, NULL, 2, 42, NB_CPU, 0, free_payload, data, &t),
                 NB_ERR_DTYPE, "42");
    CHECK_STATUS(nb_tensor_from_external(data, neg_shape, NULL, 2, NB_F32, NB_CPU, 0, free_payload, data, &t),
                 NB_ERR_INVALID_ARGUMENT, "-3");
    CHECK_STATUS(nb_tensor_from_external(data, shape, neg_strides, 2, NB_F32, NB_CPU, 0, free_payload, data, &t),
                 NB_ERR_INVALID_ARGUMENT, "strides");
    CHECK_STATUS(nb_tensor_from_external(data, shape, NULL, 2, NB_F32, 99, 0, free_payload, data, &t),
                 NB_ERR_DEVICE, "99");
    CHECK_STATUS(nb_tensor_from_external(data, shape, NULL, 2, NB_F32, NB_CPU, 0, free_payload, data, NULL),
                 NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_tensor_from_external(data, shape, NULL, 17, NB_F32, NB_CPU, 0, free_payload, data, &t),
                 NB_ERR_INVALID_ARGUMENT, "17");
    CHECK(t == NULL);
    CHECK_EQ_INT(deleter_calls, 0);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    free(data);  /* the caller kept ownership */
}

TEST(test_external_without_deleter) {
    double data[4] = {1, 2, 3, 4};
    const int64_t n = 4;
    nb_tensor *t = NULL, *v = NULL;
    CHECK_OK(nb_tensor_from_external(data, &n, NULL, 1, NB_F64, NB_CPU, 0, NULL, NULL, &t));
    CHECK_OK(nb_tensor_slice(t, 0, 1, 4, 2, &v));
    nb_tensor_release(t);
    const double want[2] = {2, 4};
    CHECK_VALUES(v, want, 2);  /* the view keeps the storage alive */
    nb_tensor_release(v);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_many_tensors_return_to_baseline);
    RUN(test_steady_state_loop_makes_no_system_allocations);
    RUN(test_allocated_bytes_and_peak);
    RUN(test_empty_cache);
    RUN(test_external_deleter_runs_once_after_last_view);
    RUN(test_external_deleter_not_called_on_failure);
    RUN(test_external_without_deleter);
    return NBT_END();
}
