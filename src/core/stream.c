/* stream.c: streams, events and the current device/stream of each thread.
 *
 * On CUDA every call goes to the plugin with the device index (the plugin makes
 * that device current for the call). On CPU streams and events exist so that
 * frontends have one code path: work is already complete when a call returns, and
 * events record the host clock, so elapsed time works too. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "runtime.h"
#include "../alloc/cpu_allocator.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static nb_stream cpu_default = {.magic = NB_STREAM_MAGIC, .device_type = NB_CPU, .is_default = true,
                                .error_lock = PTHREAD_MUTEX_INITIALIZER};
static nb_stream cuda_defaults[NB_MAX_CUDA_DEVICES];
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
static atomic_int_fast64_t next_stream_id = 1;

/* The thread's current device and streams (NULL: the default stream). The
 * references are dropped when the thread exits. */
static _Thread_local int32_t current_cuda_device;
static _Thread_local nb_stream* current_cuda[NB_MAX_CUDA_DEVICES];
static _Thread_local nb_stream* current_cpu;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void init_defaults(void) {
    for (int32_t i = 0; i < NB_MAX_CUDA_DEVICES; i++) {
        nb_stream* s = &cuda_defaults[i];
        s->magic = NB_STREAM_MAGIC;
        s->device_type = NB_CUDA;
        s->device_index = i;
        s->is_default = true;
        pthread_mutex_init(&s->error_lock, NULL);
    }
}

static void drop_current_streams(void* unused) {
    (void)unused;
    for (int32_t i = 0; i < NB_MAX_CUDA_DEVICES; i++) {
        nb_stream_release(current_cuda[i]);
        current_cuda[i] = NULL;
    }
    nb_stream_release(current_cpu);
    current_cpu = NULL;
}

static void make_exit_key(void) { pthread_key_create(&exit_key, drop_current_streams); }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Validates a device (index -1: the thread's current one) and finds the plugin for CUDA. */
static nb_status resolve(const char* op, int32_t device_type, int32_t* device_index, const nb_backend** plugin) {
    if (device_type == NB_CUDA && *device_index == -1) *device_index = current_cuda_device;
    const nb_backend* b;
    nb_status st = nb_device_resolve(op, device_type, device_index, &b);
    if (st != NB_OK) return st;
    if (device_type == NB_CUDA && *device_index >= NB_MAX_CUDA_DEVICES)
        return nb_error(NB_ERR_DEVICE, "%s: nabla supports at most %d CUDA devices", op, NB_MAX_CUDA_DEVICES);
    *plugin = device_type == NB_CUDA ? nb_cuda_plugin() : NULL;
    pthread_once(&defaults_once, init_defaults);
    return NB_OK;
}

static nb_status plugin_error(const char* op, nb_status st, const nb_backend* p) {
    return nb_error(st, "%s: %s", op, p->last_error());
}

#define CHECK_STREAM(op, s)                                                                           \
    do {                                                                                              \
        if (NB_UNLIKELY((s) == NULL || (s)->magic != NB_STREAM_MAGIC))                                \
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: " #s " is %s", op,                          \
                            (s) == NULL ? "NULL" : (s)->magic == NB_TENSOR_DEAD ? "a released stream" \
                                                    : "not a live stream");                   \
    } while (0)
#define CHECK_EVENT(op, e)                                                                            \
    do {                                                                                              \
        if (NB_UNLIKELY((e) == NULL || (e)->magic != NB_EVENT_MAGIC))                                 \
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: " #e " is %s", op,                          \
                            (e) == NULL ? "NULL" : (e)->magic == NB_TENSOR_DEAD ? "a released event" \
                                                    : "not a live event");                    \
    } while (0)

/* ---- streams ---- */

nb_stream* nb_stream_current_of(int32_t device_type, int32_t device_index) {
    if (device_type == NB_CUDA) {
        pthread_once(&defaults_once, init_defaults);
        nb_stream* s = current_cuda[device_index];
        return s != NULL ? s : &cuda_defaults[device_index];
    }
    return current_cpu != NULL ? current_cpu : &cpu_default;
}

void nb_stream_store_error(nb_stream* s, nb_status status, const char* message) {
    pthread_mutex_lock(&s->error_lock);
    if (s->async_status == NB_OK) {
        s->async_status = status;
        snprintf(s->async_message, sizeof s->async_message, "%s", message);
    }
    pthread_mutex_unlock(&s->error_lock);
}

/* Reports (and clears) an error stored on s by asynchronous work. */
static nb_status take_stored_error(const char* op, nb_stream* s) {
    pthread_mutex_lock(&s->error_lock);
    nb_status st = s->async_status;
    char message[sizeof s->async_message];
    memcpy(message, s->async_message, sizeof message);
    s->async_status = NB_OK;
    pthread_mutex_unlock(&s->error_lock);
    if (st == NB_OK) return NB_OK;
    return nb_error(st, "%s: asynchronous work on %s:%d failed earlier: %s", op, nb_device_type_name(s->device_type),
                    (int)s->device_index, message);
}

/* A stream object over `native` (priority, id and error slot filled in); NULL when out of memory. */
static nb_stream* new_stream(int32_t device_type, int32_t device_index, int32_t priority, void* native, bool external) {
    nb_stream* s = nb_cpu_alloc(sizeof *s);
    if (s == NULL) return NULL;
    memset(s, 0, sizeof *s);
    s->magic = NB_STREAM_MAGIC;
    s->device_type = device_type;
    s->device_index = device_index;
    s->priority = priority;
    atomic_init(&s->refcount, 1);
    s->id = atomic_fetch_add(&next_stream_id, 1);
    s->native = native;
    s->external = external;
    pthread_mutex_init(&s->error_lock, NULL);
    return s;
}

NB_API nb_status nb_stream_create(int32_t device_type, int32_t device_index, int32_t priority, nb_stream** out) {
    static const char* op = "nb_stream_create";
    NB_CHECK_OUT(op, out);
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK) return st;
    void* native = NULL;
    if (p != NULL) {
        int32_t least = 0, greatest = 0;
        if ((st = p->stream_priority_range(&least, &greatest)) != NB_OK) return plugin_error(op, st, p);
        if (priority > least) priority = least;  /* CUDA clamps too */
        if (priority < greatest) priority = greatest;
        if ((st = p->stream_create(device_index, priority, &native)) != NB_OK) return plugin_error(op, st, p);
    } else {
        priority = 0;
    }
    nb_stream* s = new_stream(device_type, device_index, priority, native, false);
    if (s == NULL) {
        if (p != NULL) p->stream_destroy(device_index, native);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a stream object", op);
    }
    *out = s;
    return NB_OK;
}

NB_API nb_status nb_stream_from_native(int32_t device_type, int32_t device_index, void* native, nb_stream** out) {
    static const char* op = "nb_stream_from_native";
    NB_CHECK_OUT(op, out);
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK) return st;
    if (p == NULL && native != NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: a %s stream has no native handle (got %p); pass NULL", op,
                        nb_device_type_name(device_type), native);
    nb_stream* s = new_stream(device_type, device_index, 0, native, true);
    if (s == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a stream object", op);
    *out = s;
    return NB_OK;
}

NB_API void nb_stream_retain(nb_stream* s) {
    if (s != NULL && s->magic == NB_STREAM_MAGIC && !s->is_default)
        atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

NB_API void nb_stream_release(nb_stream* s) {
    if (s == NULL) return;
    if (s->magic != NB_STREAM_MAGIC) {
        nb_bad_release("nb_stream_release", "stream", s, s->magic);
        return;
    }
    if (s->is_default) return;
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    s->magic = NB_TENSOR_DEAD;
    if (s->device_type == NB_CUDA && !s->external) nb_cuda_plugin()->stream_destroy(s->device_index, s->native);
    pthread_mutex_destroy(&s->error_lock);
    nb_cpu_free_handle(s, sizeof *s);
}

NB_API nb_status nb_stream_default(int32_t device_type, int32_t device_index, nb_stream** out) {
    NB_CHECK_OUT("nb_stream_default", out);
    const nb_backend* p = NULL;
    nb_status st = resolve("nb_stream_default", device_type, &device_index, &p);
    if (st != NB_OK) return st;
    *out = device_type == NB_CUDA ? &cuda_defaults[device_index] : &cpu_default;
    return NB_OK;
}

NB_API nb_status nb_stream_current(int32_t device_type, int32_t device_index, nb_stream** out) {
    NB_CHECK_OUT("nb_stream_current", out);
    const nb_backend* p = NULL;
    nb_status st = resolve("nb_stream_current", device_type, &device_index, &p);
    if (st != NB_OK) return st;
    nb_stream* s = nb_stream_current_of(device_type, device_index);
    nb_stream_retain(s);
    *out = s;
    return NB_OK;
}

NB_API nb_status nb_stream_set_current(nb_stream* s) {
    CHECK_STREAM("nb_stream_set_current", s);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, (void*)1);  /* so that drop_current_streams runs at thread exit */
    nb_stream** slot = s->device_type == NB_CUDA ? &current_cuda[s->device_index] : &current_cpu;
    nb_stream* old = *slot;
    nb_stream_retain(s);
    *slot = s->is_default ? NULL : s;
    nb_stream_release(old);
    return NB_OK;
}

NB_API nb_status nb_stream_synchronize(nb_stream* s) {
    static const char* op = "nb_stream_synchronize";
    CHECK_STREAM(op, s);
    if (s->device_type == NB_CUDA) {
        const nb_backend* p = nb_cuda_plugin();
        nb_blocking_end_fn end = NULL;
        void* token = nb_blocking_begin(&end);
        nb_status st = p->stream_synchronize(s->device_index, s->native);
        if (end) end(token);
        if (st != NB_OK) return plugin_error(op, st, p);
    }
    return take_stored_error(op, s);
}

NB_API nb_status nb_stream_query(nb_stream* s, int32_t* done) {
    static const char* op = "nb_stream_query";
    CHECK_STREAM(op, s);
    NB_CHECK_OUT(op, done);
    int32_t d = 1;
    if (s->device_type == NB_CUDA) {
        const nb_backend* p = nb_cuda_plugin();
        nb_status st = p->stream_query(s->device_index, s->native, &d);
        if (st != NB_OK) return plugin_error(op, st, p);
    }
    nb_status st = take_stored_error(op, s);
    if (st == NB_OK) *done = d;
    return st;
}

static nb_status same_device(const char* op, int32_t t1, int32_t i1, int32_t t2, int32_t i2) {
    if (t1 == t2 && i1 == i2) return NB_OK;
    return nb_error(NB_ERR_DEVICE, "%s: the stream is on %s:%d but the event/stream it waits for is on %s:%d", op,
                    nb_device_type_name(t1), (int)i1, nb_device_type_name(t2), (int)i2);
}

NB_API nb_status nb_stream_wait_event(nb_stream* s, nb_event* e) {
    static const char* op = "nb_stream_wait_event";
    CHECK_STREAM(op, s);
    CHECK_EVENT(op, e);
    if (s->device_type != e->device_type)
        return same_device(op, s->device_type, s->device_index, e->device_type, e->device_index);
    if (s->device_type != NB_CUDA || !e->recorded) return NB_OK;
    const nb_backend* p = nb_cuda_plugin();
    nb_status st = p->stream_wait_event(s->device_index, s->native, e->native);  /* cross-device waits are fine */
    return st == NB_OK ? NB_OK : plugin_error(op, st, p);
}

NB_API nb_status nb_stream_wait_stream(nb_stream* s, nb_stream* other) {
    static const char* op = "nb_stream_wait_stream";
    CHECK_STREAM(op, s);
    CHECK_STREAM(op, other);
    if (s->device_type != other->device_type)
        return same_device(op, s->device_type, s->device_index, other->device_type, other->device_index);
    if (s->device_type != NB_CUDA || s == other) return NB_OK;
    nb_event* e = NULL;
    nb_status st = nb_event_create(NB_CUDA, other->device_index, NB_EVENT_DEFAULT, &e);
    if (st == NB_OK) st = nb_event_record(e, other);
    if (st == NB_OK) st = nb_stream_wait_event(s, e);
    nb_event_release(e);  /* CUDA keeps the dependency after the event is destroyed */
    return st;
}

NB_API void* nb_stream_native_handle(const nb_stream* s) {
    return s != NULL && s->magic == NB_STREAM_MAGIC ? s->native : NULL;
}

NB_API int64_t nb_stream_id(const nb_stream* s) {
    return s != NULL && s->magic == NB_STREAM_MAGIC ? s->id : -1;
}

NB_API int32_t nb_stream_device_type(const nb_stream* s) {
    return s != NULL && s->magic == NB_STREAM_MAGIC ? s->device_type : -1;
}

NB_API int32_t nb_stream_device_index(const nb_stream* s) {
    return s != NULL && s->magic == NB_STREAM_MAGIC ? s->device_index : -1;
}

NB_API int32_t nb_stream_priority(const nb_stream* s) {
    return s != NULL && s->magic == NB_STREAM_MAGIC ? s->priority : 0;
}

NB_API nb_status nb_stream_priority_range(int32_t device_type, int32_t* least, int32_t* greatest) {
    static const char* op = "nb_stream_priority_range";
    NB_CHECK_OUT(op, least);
    NB_CHECK_OUT(op, greatest);
    int32_t index = -1;
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &index, &p);
    if (st != NB_OK) return st;
    int32_t l = 0, g = 0;
    if (p != NULL && (st = p->stream_priority_range(&l, &g)) != NB_OK) return plugin_error(op, st, p);
    *least = l, *greatest = g;
    return NB_OK;
}

/* ---- events ---- */

NB_API nb_status nb_event_create(int32_t device_type, int32_t device_index, int32_t flags, nb_event** out) {
    static const char* op = "nb_event_create";
    NB_CHECK_OUT(op, out);
    if (flags & ~(NB_EVENT_TIMING | NB_EVENT_BLOCKING))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", op, (unsigned)flags);
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK) return st;
    void* native = NULL;
    if (p != NULL && (st = p->event_create(device_index, flags, &native)) != NB_OK) return plugin_error(op, st, p);
    nb_event* e = nb_cpu_alloc(sizeof *e);
    if (e == NULL) {
        if (p != NULL) p->event_destroy(device_index, native);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for an event object", op);
    }
    memset(e, 0, sizeof *e);
    e->magic = NB_EVENT_MAGIC;
    e->device_type = device_type;
    e->device_index = device_index;
    e->flags = flags;
    atomic_init(&e->refcount, 1);
    e->native = native;
    *out = e;
    return NB_OK;
}

NB_API void nb_event_retain(nb_event* e) {
    if (e != NULL && e->magic == NB_EVENT_MAGIC) atomic_fetch_add_explicit(&e->refcount, 1, memory_order_relaxed);
}

NB_API void nb_event_release(nb_event* e) {
    if (e == NULL) return;
    if (e->magic != NB_EVENT_MAGIC) {
        nb_bad_release("nb_event_release", "event", e, e->magic);
        return;
    }
    if (atomic_fetch_sub_explicit(&e->refcount, 1, memory_order_acq_rel) != 1) return;
    e->magic = NB_TENSOR_DEAD;
    if (e->device_type == NB_CUDA) nb_cuda_plugin()->event_destroy(e->device_index, e->native);
    nb_cpu_free_handle(e, sizeof *e);
}

NB_API nb_status nb_event_record(nb_event* e, nb_stream* s) {
    static const char* op = "nb_event_record";
    CHECK_EVENT(op, e);
    if (s == NULL) s = nb_stream_current_of(e->device_type, e->device_index);
    CHECK_STREAM(op, s);
    if (s->device_type != e->device_type || s->device_index != e->device_index)
        return nb_error(NB_ERR_DEVICE, "%s: event device %s:%d does not match recording stream's device %s:%d", op,
                        nb_device_type_name(e->device_type), (int)e->device_index,
                        nb_device_type_name(s->device_type), (int)s->device_index);
    if (e->device_type == NB_CUDA) {
        const nb_backend* p = nb_cuda_plugin();
        nb_status st = p->event_record(e->device_index, e->native, s->native);
        if (st != NB_OK) return plugin_error(op, st, p);
    } else {
        e->host_ms = now_ms();
    }
    e->recorded = true;
    return NB_OK;
}

NB_API nb_status nb_event_query(nb_event* e, int32_t* done) {
    static const char* op = "nb_event_query";
    CHECK_EVENT(op, e);
    NB_CHECK_OUT(op, done);
    int32_t d = 1;
    if (e->device_type == NB_CUDA && e->recorded) {
        const nb_backend* p = nb_cuda_plugin();
        nb_status st = p->event_query(e->native, &d);
        if (st != NB_OK) return plugin_error(op, st, p);
    }
    *done = d;
    return NB_OK;
}

NB_API nb_status nb_event_synchronize(nb_event* e) {
    static const char* op = "nb_event_synchronize";
    CHECK_EVENT(op, e);
    if (e->device_type != NB_CUDA || !e->recorded) return NB_OK;
    const nb_backend* p = nb_cuda_plugin();
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);
    nb_status st = p->event_synchronize(e->native);
    if (end) end(token);
    return st == NB_OK ? NB_OK : plugin_error(op, st, p);
}

NB_API nb_status nb_event_elapsed_time(nb_event* start, nb_event* end, double* ms) {
    static const char* op = "nb_event_elapsed_time";
    CHECK_EVENT(op, start);
    CHECK_EVENT(op, end);
    NB_CHECK_OUT(op, ms);
    if (!(start->flags & NB_EVENT_TIMING) || !(end->flags & NB_EVENT_TIMING))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: both events must be created with enable_timing=True "
                        "(NB_EVENT_TIMING)", op);
    if (!start->recorded || !end->recorded)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: both events must be recorded before calculating elapsed time", op);
    if (start->device_type != end->device_type || start->device_index != end->device_index)
        return nb_error(NB_ERR_DEVICE, "%s: the events are on different devices", op);
    if (start->device_type != NB_CUDA) {
        *ms = end->host_ms - start->host_ms;
        return NB_OK;
    }
    const nb_backend* p = nb_cuda_plugin();
    float t = 0;
    nb_status st = p->event_elapsed(start->native, end->native, &t);
    if (st != NB_OK) return plugin_error(op, st, p);
    *ms = t;
    return NB_OK;
}

NB_API void* nb_event_native_handle(const nb_event* e) {
    return e != NULL && e->magic == NB_EVENT_MAGIC ? e->native : NULL;
}

/* ---- the current device ---- */

NB_API nb_status nb_device_current(int32_t device_type, int32_t* out) {
    NB_CHECK_OUT("nb_device_current", out);
    if (device_type == NB_CPU) {
        *out = 0;
        return NB_OK;
    }
    int32_t index = -1;
    const nb_backend* p = NULL;
    nb_status st = resolve("nb_device_current", device_type, &index, &p);
    if (st != NB_OK) return st;
    *out = index;
    return NB_OK;
}

NB_API nb_status nb_device_set_current(int32_t device_type, int32_t device_index) {
    const nb_backend* p = NULL;
    nb_status st = resolve("nb_device_set_current", device_type, &device_index, &p);
    if (st != NB_OK) return st;
    if (device_type == NB_CUDA) current_cuda_device = device_index;
    return NB_OK;
}

NB_API nb_status nb_device_synchronize(int32_t device_type, int32_t device_index) {
    static const char* op = "nb_device_synchronize";
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK || p == NULL) return st;
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);
    st = p->device_synchronize(device_index);
    if (end) end(token);
    if (st != NB_OK) return plugin_error(op, st, p);
    if ((st = take_stored_error(op, &cuda_defaults[device_index])) != NB_OK) return st;
    nb_stream* cur = nb_stream_current_of(NB_CUDA, device_index);
    return cur == &cuda_defaults[device_index] ? NB_OK : take_stored_error(op, cur);
}

NB_API nb_status nb_device_properties(int32_t device_type, int32_t device_index, char* buf, int64_t cap,
                                      int64_t* needed) {
    static const char* op = "nb_device_properties";
    NB_CHECK_OUT(op, needed);
    if (cap < 0 || (buf == NULL && cap != 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: buf is NULL with cap %lld (cap must be 0 then, and never negative)",
                        op, (long long)cap);
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK) return st;
    if (p == NULL || p->device_properties == NULL)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: device properties are available for CUDA devices only", op);
    char json[2048];
    if ((st = p->device_properties(device_index, json, sizeof json)) != NB_OK) return plugin_error(op, st, p);
    const size_t len = strlen(json);
    *needed = (int64_t)len;
    if (cap > 0) {
        const size_t n = len < (size_t)cap - 1 ? len : (size_t)cap - 1;
        memcpy(buf, json, n);
        buf[n] = '\0';
    }
    return NB_OK;
}

NB_API nb_status nb_device_memory_info(int32_t device_type, int32_t device_index, int64_t* free_bytes,
                                       int64_t* total_bytes) {
    static const char* op = "nb_device_memory_info";
    NB_CHECK_OUT(op, free_bytes);
    NB_CHECK_OUT(op, total_bytes);
    const nb_backend* p = NULL;
    nb_status st = resolve(op, device_type, &device_index, &p);
    if (st != NB_OK) return st;
    if (p == NULL)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: memory information is available for CUDA devices only", op);
    int64_t f = 0, t = 0;
    if ((st = p->mem_info(device_index, &f, &t)) != NB_OK) return plugin_error(op, st, p);
    *free_bytes = f, *total_bytes = t;
    return NB_OK;
}
