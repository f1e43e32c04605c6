/* test_device_runtime.c: streams, events, the current device and stream per
 * thread, pinned memory and non-blocking copies through the public ABI. On a
 * machine without CUDA: CPU streams and events, and every CUDA request failing
 * with NB_ERR_DEVICE and the reason. With CUDA: the same calls on the device,
 * copies, kernels on streams, cross-stream reuse and a steady state without
 * cudaMalloc. */
#include "nbtest.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

static int32_t cuda_count(void) {
    int32_t n = -1;
    CHECK_OK(nb_device_count(NB_CUDA, &n));
    return n;
}

/* ---- CPU: streams exist and are trivially ordered ---- */

TEST(test_cpu_streams) {
    nb_stream *s = NULL, *d = NULL, *cur = NULL;
    CHECK_OK(nb_stream_create(NB_CPU, 0, 0, &s));
    CHECK_OK(nb_stream_default(NB_CPU, 0, &d));
    CHECK_OK(nb_stream_current(NB_CPU, -1, &cur));
    CHECK(cur == d);
    CHECK(nb_stream_id(d) == 0 && nb_stream_id(s) > 0);
    CHECK_EQ_INT(nb_stream_device_type(s), NB_CPU);
    CHECK_EQ_INT(nb_stream_device_index(s), 0);
    CHECK(nb_stream_native_handle(s) == NULL);
    int32_t done = -1;
    CHECK_OK(nb_stream_query(s, &done));
    CHECK_EQ_INT(done, 1);
    CHECK_OK(nb_stream_synchronize(s));
    CHECK_OK(nb_stream_wait_stream(s, d));
    int32_t least = 7, greatest = 7;
    CHECK_OK(nb_stream_priority_range(NB_CPU, &least, &greatest));
    CHECK(least == 0 && greatest == 0);
    CHECK_OK(nb_stream_set_current(s));
    nb_stream* now = NULL;
    CHECK_OK(nb_stream_current(NB_CPU, 0, &now));
    CHECK(now == s);
    nb_stream_release(now);
    CHECK_OK(nb_stream_set_current(d));  /* back to the default; drops the reference it held */
    CHECK_EQ_INT(nb_stream_id(s), nb_stream_id(s));
    nb_stream_release(s);
    nb_stream_release(cur);
    nb_stream_release(d);  /* default streams ignore release */
    CHECK_OK(nb_stream_synchronize(d));
    nb_stream_release(NULL);
    nb_stream_retain(NULL);
}

/* A wrapped native stream is used like nabla's own but never destroyed by nabla. */
TEST(test_streams_from_native_handles) {
    nb_stream* s = NULL;
    int dummy = 0;
    CHECK_STATUS(nb_stream_from_native(NB_CPU, 0, &dummy, &s), NB_ERR_INVALID_ARGUMENT, "nb_stream_from_native");
    CHECK(s == NULL);
    CHECK_STATUS(nb_stream_from_native(NB_CPU, 0, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "nb_stream_from_native");
    CHECK_OK(nb_stream_from_native(NB_CPU, 0, NULL, &s));
    CHECK(nb_stream_id(s) > 0 && nb_stream_native_handle(s) == NULL);
    CHECK_OK(nb_stream_synchronize(s));
    nb_stream_release(s);
    if (cuda_count() == 0) {
        CHECK_STATUS(nb_stream_from_native(NB_CUDA, 0, NULL, &s), NB_ERR_DEVICE, "nb_stream_from_native");
        return;
    }
    nb_stream *owner = NULL, *wrapped = NULL, *again = NULL;
    CHECK_OK(nb_stream_create(NB_CUDA, 0, 0, &owner));
    CHECK_OK(nb_stream_from_native(NB_CUDA, 0, nb_stream_native_handle(owner), &wrapped));
    CHECK(nb_stream_native_handle(wrapped) == nb_stream_native_handle(owner));
    CHECK(nb_stream_id(wrapped) != nb_stream_id(owner));
    CHECK_OK(nb_stream_set_current(wrapped));
    const int64_t n = 1 << 16;
    nb_tensor *x = NULL, *y = NULL;
    CHECK_OK(nb_full(&n, 1, 3.0, NB_F32, NB_CUDA, 0, &x));  /* queued on the owner's native stream */
    nb_stream* d = NULL;
    CHECK_OK(nb_stream_default(NB_CUDA, 0, &d));
    CHECK_OK(nb_stream_set_current(d));
    nb_stream_release(wrapped);  /* the native stream lives on: a second wrapper and the owner still work */
    CHECK_OK(nb_stream_from_native(NB_CUDA, 0, nb_stream_native_handle(owner), &again));
    CHECK_OK(nb_stream_wait_stream(d, again));
    CHECK_OK(nb_mul(x, x, NULL, &y));
    static float host[1 << 16];
    CHECK_OK(nb_tensor_copy_to_host(y, host, (int64_t)sizeof host));
    int wrong = 0;
    for (int64_t i = 0; i < n; i++) wrong += host[i] != 9.0f;
    CHECK_EQ_INT(wrong, 0);
    CHECK_OK(nb_stream_synchronize(owner));
    nb_stream_release(again);
    nb_stream_release(owner);
    nb_tensor_release(x);
    nb_tensor_release(y);
}

TEST(test_device_properties_as_json) {
    int64_t needed = -1;
    char buf[2048];
    CHECK_STATUS(nb_device_properties(NB_CPU, 0, buf, sizeof buf, &needed), NB_ERR_NOT_IMPLEMENTED,
                 "nb_device_properties");
    CHECK_STATUS(nb_device_properties(NB_CUDA, 0, buf, sizeof buf, NULL), NB_ERR_INVALID_ARGUMENT,
                 "nb_device_properties");
    CHECK_STATUS(nb_device_properties(NB_CUDA, 0, NULL, 8, &needed), NB_ERR_INVALID_ARGUMENT, "cap");
    if (cuda_count() == 0) {
        CHECK_STATUS(nb_device_properties(NB_CUDA, 0, buf, sizeof buf, &needed), NB_ERR_DEVICE,
                     "nb_device_properties");
        return;
    }
    CHECK_OK(nb_device_properties(NB_CUDA, 0, NULL, 0, &needed));  /* the length alone */
    CHECK(needed > 0 && needed < (int64_t)sizeof buf);
    CHECK_OK(nb_device_properties(NB_CUDA, -1, buf, sizeof buf, &needed));
    CHECK_EQ_INT((int64_t)strlen(buf), needed);
    CHECK(buf[0] == '{' && buf[needed - 1] == '}');
    CHECK(strstr(buf, "\"name\": \"") != NULL && strstr(buf, "\"multi_processor_count\": ") != NULL);
    char small[8];
    CHECK_OK(nb_device_properties(NB_CUDA, 0, small, sizeof small, &needed));  /* truncated, terminated */
    CHECK_EQ_INT((int64_t)strlen(small), 7);
    CHECK_STATUS(nb_device_properties(NB_CUDA, cuda_count(), buf, sizeof buf, &needed), NB_ERR_DEVICE,
                 "nb_device_properties");
}

TEST(test_cpu_events_time_the_host) {
    nb_event *a = NULL, *b = NULL, *plain = NULL;
    CHECK_OK(nb_event_create(NB_CPU, 0, NB_EVENT_TIMING, &a));
    CHECK_OK(nb_event_create(NB_CPU, -1, NB_EVENT_TIMING | NB_EVENT_BLOCKING, &b));
    CHECK_OK(nb_event_create(NB_CPU, 0, NB_EVENT_DEFAULT, &plain));
    double ms = -1;
    CHECK_STATUS(nb_event_elapsed_time(a, b, &ms), NB_ERR_INVALID_ARGUMENT, "must be recorded");
    CHECK_OK(nb_event_record(a, NULL));
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK_OK(nb_event_record(b, NULL));
    CHECK_OK(nb_event_synchronize(b));
    int32_t done = 0;
    CHECK_OK(nb_event_query(b, &done));
    CHECK_EQ_INT(done, 1);
    CHECK_OK(nb_event_elapsed_time(a, b, &ms));
    CHECK(ms >= 19.0 && ms < 2000.0);
    CHECK_STATUS(nb_event_elapsed_time(a, plain, &ms), NB_ERR_INVALID_ARGUMENT, "enable_timing");
    nb_stream* s = NULL;
    CHECK_OK(nb_stream_create(NB_CPU, 0, 0, &s));
    CHECK_OK(nb_stream_wait_event(s, plain));  /* never recorded: complete */
    CHECK_OK(nb_event_record(plain, s));
    CHECK_OK(nb_stream_wait_event(s, plain));
    CHECK(nb_event_native_handle(a) == NULL);
    nb_stream_release(s);
    nb_event_release(a);
    nb_event_release(b);
    nb_event_release(plain);
}

TEST(test_bad_handles_and_arguments) {
    nb_event* e = NULL;
    CHECK_STATUS(nb_event_create(NB_CPU, 0, 64, &e), NB_ERR_INVALID_ARGUMENT, "unknown flags");
    CHECK(e == NULL);
    CHECK_STATUS(nb_stream_synchronize(NULL), NB_ERR_INVALID_ARGUMENT, "nb_stream_synchronize: s is NULL");
    CHECK_STATUS(nb_event_record(NULL, NULL), NB_ERR_INVALID_ARGUMENT, "nb_event_record: e is NULL");
    CHECK_STATUS(nb_stream_create(NB_CPU, 1, 0, &(nb_stream*){NULL}), NB_ERR_DEVICE, "cpu device index");
    CHECK_STATUS(nb_stream_create(42, 0, 0, &(nb_stream*){NULL}), NB_ERR_DEVICE, "unknown device type");
    CHECK_STATUS(nb_stream_current(NB_CPU, 0, NULL), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_EQ_INT(nb_stream_id(NULL), -1);
    CHECK_EQ_INT(nb_stream_device_type(NULL), -1);
    int32_t cur = -1;
    CHECK_OK(nb_device_current(NB_CPU, &cur));
    CHECK_EQ_INT(cur, 0);
    CHECK_OK(nb_device_set_current(NB_CPU, 0));
    CHECK_OK(nb_device_synchronize(NB_CPU, 0));
    int64_t f = -1, t = -1;
    CHECK_STATUS(nb_device_memory_info(NB_CPU, 0, &f, &t), NB_ERR_NOT_IMPLEMENTED, "CUDA devices only");
    int64_t need = 0;
    CHECK_STATUS(nb_memory_snapshot(NB_CPU, 0, NULL, 0, &need), NB_ERR_NOT_IMPLEMENTED, "CUDA caching allocator");
    CHECK_STATUS(nb_memory_snapshot(NB_CPU, 0, NULL, 5, &need), NB_ERR_INVALID_ARGUMENT, "buf is NULL");
}

/* Each thread has its own current stream; a thread that exits drops its reference. */
static void* set_stream_in_thread(void* arg) {
    nb_stream* s = arg;
    CHECK_OK(nb_stream_set_current(s));
    nb_stream* cur = NULL;
    CHECK_OK(nb_stream_current(NB_CPU, 0, &cur));
    CHECK(cur == s);
    nb_stream_release(cur);
    return NULL;  /* exits with s current */
}

TEST(test_current_stream_is_per_thread) {
    nb_stream* s = NULL;
    CHECK_OK(nb_stream_create(NB_CPU, 0, 0, &s));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, set_stream_in_thread, s) == 0);
    pthread_join(th, NULL);
    nb_stream *mine = NULL, *d = NULL;
    CHECK_OK(nb_stream_current(NB_CPU, 0, &mine));
    CHECK_OK(nb_stream_default(NB_CPU, 0, &d));
    CHECK(mine == d);
    nb_stream_release(s);  /* the last reference: valgrind reports a leak if the thread kept one */
}

TEST(test_cpu_memory_stats_have_the_new_fields) {
    nb_tensor* t = NULL;
    const int64_t n = 1000;
    CHECK_OK(nb_empty(&n, 1, NB_F32, NB_CPU, 0, &t));
    nb_memory_stats s = nbt_stats();
    CHECK_EQ_INT(s.reserved_bytes, s.allocated_bytes + s.cached_bytes);
    CHECK_EQ_INT(s.active_bytes, s.allocated_bytes);
    CHECK(s.peak_reserved_bytes >= s.peak_allocated_bytes);
    nb_stream* d = NULL;
    CHECK_OK(nb_stream_default(NB_CPU, 0, &d));
    CHECK_OK(nb_tensor_record_stream(t, d));  /* a no-op on CPU */
    CHECK_EQ_INT(nb_tensor_is_pinned(t), 0);
    CHECK_EQ_INT(nb_tensor_is_pinned(NULL), -1);
    nb_tensor *u = NULL, *v = NULL;
    CHECK_OK(nb_tensor_to_v2(t, NB_F64, NB_CPU, 0, 0, 1, &u));  /* non_blocking on CPU: an ordinary copy */
    CHECK_EQ_INT(nb_tensor_dtype(u), NB_F64);
    CHECK_OK(nb_tensor_to_v2(t, NB_F32, NB_CPU, 0, 0, 1, &v));
    CHECK(v == t);
    CHECK_OK(nb_tensor_copy_v2_(u, t, 1));
    nb_tensor_release(v);
    nb_tensor_release(u);
    nb_tensor_release(t);
}

/* ---- without CUDA: every request says why ---- */

TEST(test_cuda_requests_fail_with_the_reason) {
    if (cuda_count() > 0) {
        SKIP("a CUDA device is available; this checks the machine without one");
        return;
    }
    const char* why = nb_device_unavailable_reason(NB_CUDA);
    CHECK(why != NULL && why[0] != '\0');
    nb_stream* s = NULL;
    nb_event* e = NULL;
    CHECK_STATUS(nb_stream_create(NB_CUDA, 0, 0, &s), NB_ERR_DEVICE, "CUDA is not available");
    CHECK_STATUS(nb_stream_create(NB_CUDA, -1, 0, &s), NB_ERR_DEVICE, why);
    CHECK_STATUS(nb_stream_current(NB_CUDA, -1, &s), NB_ERR_DEVICE, "CUDA is not available");
    CHECK_STATUS(nb_event_create(NB_CUDA, 0, 0, &e), NB_ERR_DEVICE, "CUDA is not available");
    CHECK(s == NULL && e == NULL);
    int32_t cur = -1;
    CHECK_STATUS(nb_device_current(NB_CUDA, &cur), NB_ERR_DEVICE, "CUDA is not available");
    CHECK_STATUS(nb_device_set_current(NB_CUDA, 0), NB_ERR_DEVICE, "CUDA is not available");
    CHECK_STATUS(nb_device_synchronize(NB_CUDA, 0), NB_ERR_DEVICE, "CUDA is not available");
    int64_t f, t, need;
    CHECK_STATUS(nb_device_memory_info(NB_CUDA, 0, &f, &t), NB_ERR_DEVICE, "CUDA is not available");
    CHECK_STATUS(nb_memory_snapshot(NB_CUDA, 0, NULL, 0, &need), NB_ERR_DEVICE, "CUDA is not available");
    nb_memory_stats ms = {.struct_size = sizeof ms};
    CHECK_STATUS(nb_memory_stats_get(NB_CUDA, 0, &ms), NB_ERR_DEVICE, "CUDA is not available");
    nb_tensor *x = NULL, *p = NULL;
    const int64_t n = 4;
    CHECK_OK(nb_zeros(&n, 1, NB_F32, NB_CPU, 0, &x));
    CHECK_STATUS(nb_tensor_pin_memory(x, &p), NB_ERR_DEVICE, "pinned memory needs CUDA");
    CHECK_STATUS(nb_tensor_to_v2(x, NB_F32, NB_CUDA, 0, 0, 1, &p), NB_ERR_DEVICE, "CUDA is not available");
    CHECK(p == NULL);
    nb_tensor_release(x);
}

/* ---- with CUDA: the same calls on the device ---- */

TEST(test_cuda_streams_events_and_kernels) {
    if (cuda_count() == 0) {
        SKIP("no CUDA device");
        return;
    }
    nb_stream *s = NULL, *hi = NULL;
    int32_t least = 0, greatest = 0;
    CHECK_OK(nb_stream_priority_range(NB_CUDA, &least, &greatest));
    CHECK(greatest <= least);
    CHECK_OK(nb_stream_create(NB_CUDA, 0, 0, &s));
    CHECK_OK(nb_stream_create(NB_CUDA, 0, greatest, &hi));
    CHECK_EQ_INT(nb_stream_priority(hi), greatest);
    CHECK(nb_stream_native_handle(s) != NULL);
    nb_event *a = NULL, *b = NULL;
    CHECK_OK(nb_event_create(NB_CUDA, 0, NB_EVENT_TIMING, &a));
    CHECK_OK(nb_event_create(NB_CUDA, 0, NB_EVENT_TIMING, &b));
    CHECK_OK(nb_stream_set_current(s));
    CHECK_OK(nb_event_record(a, NULL));
    const int64_t n = 1 << 22;
    nb_tensor *x = NULL, *y = NULL, *z = NULL;
    CHECK_OK(nb_full(&n, 1, 1.5, NB_F32, NB_CUDA, 0, &x));  /* fill kernel on s */
    CHECK_OK(nb_full(&n, 1, 2.0, NB_F32, NB_CUDA, 0, &y));
    CHECK_OK(nb_add(x, y, 1.0, NULL, &z));                   /* binary kernel on s */
    CHECK_OK(nb_event_record(b, NULL));
    CHECK_OK(nb_stream_wait_event(hi, b));
    CHECK_OK(nb_event_synchronize(b));
    double ms = -1;
    CHECK_OK(nb_event_elapsed_time(a, b, &ms));
    CHECK(ms > 0);
    double v = 0;
    nb_tensor* last = NULL;
    CHECK_OK(nb_tensor_select(z, 0, n - 1, &last));
    CHECK_OK(nb_tensor_item_double(last, &v));
    CHECK_EQ_DBL(v, 3.5);
    int32_t done = 0;
    CHECK_OK(nb_stream_synchronize(s));
    CHECK_OK(nb_stream_query(s, &done));
    CHECK_EQ_INT(done, 1);
    nb_stream* d = NULL;
    CHECK_OK(nb_stream_default(NB_CUDA, 0, &d));
    CHECK_OK(nb_stream_set_current(d));
    nb_tensor_release(last);
    nb_tensor_release(z);
    nb_tensor_release(y);
    nb_tensor_release(x);
    nb_event_release(a);
    nb_event_release(b);
    nb_stream_release(hi);
    nb_stream_release(s);
    CHECK_OK(nb_device_synchronize(NB_CUDA, 0));
}

TEST(test_cuda_steady_state_makes_no_cudamalloc) {
    if (cuda_count() == 0) {
        SKIP("no CUDA device");
        return;
    }
    nb_memory_stats before = {.struct_size = sizeof before}, after = {.struct_size = sizeof after};
    const int64_t sizes[] = {1, 1000, 1 << 18, 3 << 20, 12 << 20};
    for (int it = 0; it < 50; it++) {
        nb_tensor* t[5] = {NULL};
        for (int i = 0; i < 5; i++) CHECK_OK(nb_empty(&sizes[i], 1, NB_F32, NB_CUDA, 0, &t[i]));
        for (int i = 0; i < 5; i++) nb_tensor_release(t[i]);
        if (it == 0) CHECK_OK(nb_memory_stats_get(NB_CUDA, 0, &before));
    }
    CHECK_OK(nb_memory_stats_get(NB_CUDA, 0, &after));
    CHECK_EQ_INT(after.system_alloc_count, before.system_alloc_count);
    CHECK_EQ_INT(after.alloc_count - before.alloc_count, 49 * 5);
    CHECK(after.reserved_bytes >= after.allocated_bytes);
    int64_t need = 0;
    CHECK_OK(nb_memory_snapshot(NB_CUDA, 0, NULL, 0, &need));
    CHECK(need > 0);
    CHECK_OK(nb_memory_empty_cache(NB_CUDA, 0));
}

TEST(test_cuda_cross_stream_reuse_waits_for_the_other_stream) {
    if (cuda_count() == 0) {
        SKIP("no CUDA device");
        return;
    }
    nb_stream* side = NULL;
    CHECK_OK(nb_stream_create(NB_CUDA, 0, 0, &side));
    const int64_t n = 1 << 20;
    nb_tensor* x = NULL;
    CHECK_OK(nb_empty(&n, 1, NB_F32, NB_CUDA, 0, &x));
    void* p = nb_tensor_data_ptr(x);
    CHECK_OK(nb_tensor_record_stream(x, side));
    CHECK_OK(nb_stream_set_current(side));
    nb_tensor *big = NULL, *big2 = NULL;
    const int64_t m = 1 << 26;
    CHECK_OK(nb_full(&m, 1, 1.0, NB_F32, NB_CUDA, 0, &big));  /* keep side busy */
    CHECK_OK(nb_full(&m, 1, 2.0, NB_F32, NB_CUDA, 0, &big2));
    nb_stream* d = NULL;
    CHECK_OK(nb_stream_default(NB_CUDA, 0, &d));
    CHECK_OK(nb_stream_set_current(d));
    nb_tensor_release(x);   /* an event is recorded on side */
    CHECK_OK(nb_stream_synchronize(side));
    nb_tensor* y = NULL;
    CHECK_OK(nb_empty(&n, 1, NB_F32, NB_CUDA, 0, &y));
    CHECK(nb_tensor_data_ptr(y) == p);  /* reused once side finished */
    nb_tensor_release(y);
    nb_tensor_release(big);
    nb_tensor_release(big2);
    nb_stream_release(side);
}

TEST(test_cuda_pinned_memory_and_non_blocking_copies) {
    if (cuda_count() == 0) {
        SKIP("no CUDA device");
        return;
    }
    const int64_t n = 1 << 20;
    nb_tensor *h = NULL, *pinned = NULL, *dev = NULL, *back = NULL, *again = NULL;
    CHECK_OK(nb_arange(0, (double)n, 1, NB_F32, NB_CPU, 0, &h));
    CHECK_OK(nb_tensor_pin_memory(h, &pinned));
    CHECK_EQ_INT(nb_tensor_is_pinned(pinned), 1);
    CHECK_OK(nb_tensor_pin_memory(pinned, &again));
    CHECK(again == pinned);
    CHECK_OK(nb_tensor_to_v2(pinned, NB_F32, NB_CUDA, 0, 0, 1, &dev));
    CHECK_OK(nb_tensor_to_v2(dev, NB_F32, NB_CPU, 0, 0, 1, &back));
    CHECK_EQ_INT(nb_tensor_is_pinned(back), 1);  /* a non-blocking device-to-host result is pinned */
    CHECK_OK(nb_device_synchronize(NB_CUDA, 0));
    const float* got = nb_tensor_data_ptr(back);
    CHECK(got[0] == 0.0f && got[n - 1] == (float)(n - 1));
    nb_tensor_release(pinned);  /* returned to the pinned cache only after the copy's event */
    nb_tensor_release(again);
    nb_tensor_release(back);
    nb_tensor_release(dev);
    nb_tensor_release(h);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_cpu_streams);
    RUN(test_streams_from_native_handles);
    RUN(test_device_properties_as_json);
    RUN(test_cpu_events_time_the_host);
    RUN(test_bad_handles_and_arguments);
    RUN(test_current_stream_is_per_thread);
    RUN(test_cpu_memory_stats_have_the_new_fields);
    RUN(test_cuda_requests_fail_with_the_reason);
    RUN(test_cuda_streams_events_and_kernels);
    RUN(test_cuda_steady_state_makes_no_cudamalloc);
    RUN(test_cuda_cross_stream_reuse_waits_for_the_other_stream);
    RUN(test_cuda_pinned_memory_and_non_blocking_copies);
    return NBT_END();
}
