/* test_threads.c: tensors created, viewed, copied and released on four threads at
 * once; a shared tensor retained and released concurrently; cross-thread releases;
 * thread-local error state. Live counts must return to baseline. */
#include "nbtest.h"

#include <pthread.h>

#define NTHREADS 4

static nb_tensor* shared;           /* a [4, 6] float32 tensor over external memory */
static atomic_int shared_deleter_calls;
static pthread_barrier_t barrier;

static void count_delete(void* payload) {
    atomic_fetch_add(&shared_deleter_calls, 1);
    free(payload);
}

/* One iteration on thread `id`; returns 0 at the first wrong result. */
static int work_once(int id, long i) {
    const int64_t s234[3] = {2, 3, 4}, s32[2] = {3, 2};
    nb_tensor *a = NULL, *v = NULL, *tr = NULL, *sel = NULL, *sl = NULL, *dst = NULL, *row = NULL;
    int ok = 1;
    const double start = (double)(id * 100 + i % 7);
    ok &= nb_arange(start, start + 24, 1, NB_F32, NB_CPU, 0, &a) == NB_OK;
    ok &= ok && nb_tensor_view(a, s234, 3, &v) == NB_OK;          /* v[b][r][c] = start + 12b + 4r + c */
    ok &= ok && nb_tensor_transpose(v, 0, 2, &tr) == NB_OK;       /* [4, 3, 2] */
    ok &= ok && nb_tensor_select(tr, 0, i % 4, &sel) == NB_OK;    /* [3, 2]: column c = i % 4 */
    ok &= ok && nb_tensor_slice(v, 2, 1, 4, 2, &sl) == NB_OK;     /* [2, 3, 2]: columns 1, 3 */
    ok &= ok && nb_empty(s32, 2, NB_F64, NB_CPU, 0, &dst) == NB_OK;
    ok &= ok && nb_tensor_copy_(dst, sel) == NB_OK;
    if (ok) {
        double got[6];
        ok &= nb_tensor_copy_to_host(dst, got, sizeof got) == NB_OK;
        for (int r = 0; ok && r < 3; r++)
            for (int b = 0; b < 2; b++) ok &= got[r * 2 + b] == start + 12 * b + 4 * r + (double)(i % 4);
        ok &= nb_tensor_numel(sl) == 12 && nb_tensor_storage_data_ptr(sl) == nb_tensor_storage_data_ptr(a);
    }
    /* The shared tensor: an extra reference and a view, both dropped again. */
    nb_tensor_retain(shared);
    ok &= ok && nb_tensor_select(shared, 0, id, &row) == NB_OK;
    if (ok) {
        float vals[6];
        ok &= nb_tensor_copy_to_host(row, vals, sizeof vals) == NB_OK;
        for (int k = 0; ok && k < 6; k++) ok &= vals[k] == (float)(id * 6 + k);
    }
    nb_tensor_release(shared);
    nb_tensor* handles[7] = {row, dst, sl, sel, tr, v, a};
    for (int k = 0; k < 7; k++) nb_tensor_release(handles[(k + i) % 7]);  /* varying orders */
    return ok;
}

static void* worker(void* arg) {
    const int id = (int)(intptr_t)arg;
    const long n = nbt_iters(20000, 2000);
    pthread_barrier_wait(&barrier);  /* start together */
    for (long i = 0; i < n; i++) {
        if (!work_once(id, i)) {
            nbt_fail(__FILE__, __LINE__, "thread %d: wrong result at iteration %ld: %s", id, i,
                     nb_last_error_message());
            break;
        }
    }
    return NULL;
}

TEST(test_concurrent_create_view_copy_release) {
    const nb_memory_stats before = nbt_stats();
    float* data = malloc(24 * sizeof *data);
    for (int k = 0; k < 24; k++) data[k] = (float)k;
    const int64_t s46[2] = {4, 6};
    atomic_store(&shared_deleter_calls, 0);
    CHECK_OK(nb_tensor_from_external(data, s46, NULL, 2, NB_F32, NB_CPU, 0, count_delete, data, &shared));
    pthread_t th[NTHREADS];
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    for (int k = 0; k < NTHREADS; k++) CHECK_EQ_INT(pthread_create(&th[k], NULL, worker, (void*)(intptr_t)k), 0);
    for (int k = 0; k < NTHREADS; k++) pthread_join(th[k], NULL);
    pthread_barrier_destroy(&barrier);
    CHECK_EQ_INT(nb_tensor_refcount(shared), 1);
    CHECK_EQ_INT(atomic_load(&shared_deleter_calls), 0);
    nb_tensor_release(shared);
    CHECK_EQ_INT(atomic_load(&shared_deleter_calls), 1);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    CHECK_EQ_INT(after.alloc_count - before.alloc_count, after.free_count - before.free_count);
}

/* ---- releases on another thread ---- */

#define HANDOFF 1000
static nb_tensor* handoff[HANDOFF];

static void* release_all(void* arg) {
    (void)arg;
    for (int k = 0; k < HANDOFF; k++) nb_tensor_release(handoff[k]);
    return NULL;
}

TEST(test_release_on_another_thread) {
    const nb_memory_stats before = nbt_stats();
    nb_tensor* base = NULL;
    const int64_t n = 300;
    CHECK_OK(nb_zeros(&n, 1, NB_I32, NB_CPU, 0, &base));
    for (int k = 0; k < HANDOFF; k++) {
        if (k % 2) CHECK_OK(nb_tensor_slice(base, 0, k % 300, 300, 1, &handoff[k]));
        else CHECK_OK(nb_full(&n, 1, k, NB_F64, NB_CPU, 0, &handoff[k]));
    }
    nb_tensor_release(base);  /* the slices on the other thread hold its storage */
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, release_all, NULL), 0);
    pthread_join(th, NULL);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    /* Blocks freed on the exited thread are reusable (or gone): allocate again here. */
    nb_tensor* again = NULL;
    CHECK_OK(nb_full(&n, 1, 1, NB_F64, NB_CPU, 0, &again));
    nb_tensor_release(again);
}

/* ---- thread-local errors ---- */

static void* error_worker(void* arg) {
    const int id = (int)(intptr_t)arg;
    const long n = nbt_iters(500, 50);
    char want[32];
    snprintf(want, sizeof want, "%d", -(1000 + id));
    for (long i = 0; i < n; i++) {
        const int64_t shape[1] = {-(1000 + id)};
        nb_tensor* out = NULL;
        nb_status st = nb_zeros(shape, 1, NB_F32, NB_CPU, 0, &out);
        pthread_barrier_wait(&barrier);  /* every thread has failed; now each reads its own */
        if (st != NB_ERR_INVALID_ARGUMENT || nb_last_error_status() != NB_ERR_INVALID_ARGUMENT ||
            strstr(nb_last_error_message(), want) == NULL) {
            nbt_fail(__FILE__, __LINE__, "thread %d sees \"%s\"", id, nb_last_error_message());
        }
        pthread_barrier_wait(&barrier);
        if (id % 2) nb_clear_error();  /* clearing on one thread leaves the others alone */
        pthread_barrier_wait(&barrier);
        if ((id % 2) != (nb_last_error_message()[0] == '\0'))
            nbt_fail(__FILE__, __LINE__, "thread %d: clear_error crossed threads", id);
    }
    return NULL;
}

TEST(test_error_state_is_thread_local) {
    nb_tensor* out = NULL;
    CHECK_STATUS(nb_zeros(NULL, 0, 77, NB_CPU, 0, &out), NB_ERR_DTYPE, "77");
    pthread_t th[NTHREADS];
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    for (int k = 0; k < NTHREADS; k++) CHECK_EQ_INT(pthread_create(&th[k], NULL, error_worker, (void*)(intptr_t)k), 0);
    for (int k = 0; k < NTHREADS; k++) pthread_join(th[k], NULL);
    pthread_barrier_destroy(&barrier);
    CHECK_EQ_INT(nb_last_error_status(), NB_ERR_DTYPE);  /* the main thread's error is intact */
    CHECK_MSG("77");
}

/* ---- empty_cache while another thread holds cached blocks ---- */

static void* cache_holder(void* arg) {
    (void)arg;
    const int64_t n = 1000;
    for (int k = 0; k < 8; k++) {
        nb_tensor* t = NULL;
        if (nb_zeros(&n, 1, NB_F32, NB_CPU, 0, &t) == NB_OK) nb_tensor_release(t);
    }
    pthread_barrier_wait(&barrier);  /* 1: blocks are cached */
    pthread_barrier_wait(&barrier);  /* 2: main has emptied the cache and checked */
    return NULL;
}

/* nb_memory_empty_cache returns the shared lists and the calling thread's cache;
 * a live thread keeps at most 8 MiB cached, and hands it over when it exits. */
TEST(test_empty_cache_and_other_threads) {
    pthread_t th;
    pthread_barrier_init(&barrier, NULL, 2);
    CHECK_EQ_INT(pthread_create(&th, NULL, cache_holder, NULL), 0);
    pthread_barrier_wait(&barrier);
    CHECK_OK(nb_memory_empty_cache(NB_CPU, 0));
    int64_t held = nbt_stats().cached_bytes;
    CHECK(held > 0 && held <= (INT64_C(8) << 20));  /* only the live thread's own cache */
    pthread_barrier_wait(&barrier);
    pthread_join(th, NULL);  /* its cache moves to the shared lists at exit */
    CHECK_OK(nb_memory_empty_cache(NB_CPU, 0));
    CHECK_EQ_INT(nbt_stats().cached_bytes, 0);
    pthread_barrier_destroy(&barrier);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_concurrent_create_view_copy_release);
    RUN(test_release_on_another_thread);
    RUN(test_error_state_is_thread_local);
    RUN(test_empty_cache_and_other_threads);
    return NBT_END();
}
