/* profiler.c: op calls, user ranges and allocator events, recorded per thread.
 *
 * A session runs from nb_profiler_start to nb_profiler_stop. Each thread that
 * records appends to a buffer of its own (registered once in a global list,
 * kept for the thread's life and cleared by the next start), under the
 * buffer's mutex, which only stop and start ever contend for. Op events are
 * opened at the generated entry point (dispatch.c) and closed when it returns;
 * with NB_PROFILE_CUDA an op on a CUDA tensor also records a timing event
 * before and after it on the current stream, read back at stop. Stop writes the
 * session as JSON (nb_profiler_events): frontends build their tables and traces
 * from that, so the core knows nothing of any trace format.
 *
 * With NB_PROFILE_STACK an op's start also asks the stack source a frontend set
 * (nb_profiler_set_stack_source) for its caller's stack, kept as text with the
 * event. The source is refcounted so that replacing it while another thread is
 * inside it is safe; only sessions with the flag ever touch it. */
#define _GNU_SOURCE
#include "profiler.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Atomic int32_t nb_prof_flags;

enum { EV_OP, EV_RANGE, EV_MEM };

typedef struct prof_ev {
    int32_t kind, device_type, device_index;
    const char* name;     /* ops: static; ranges: owned copy */
    char* args;           /* owned JSON members ("shapes":..,"dtypes":..) or NULL */
    char* stack;          /* owned: the stack source's text, frames separated by '\n'; or NULL */
    int64_t t0, t1;       /* ns since the session's start; t1 < 0 while open */
    int64_t bytes;        /* memory: + allocated, - freed */
    uintptr_t addr;
    nb_event* e0;         /* device timing events (CUDA ops) */
    nb_event* e1;
    void* stream;
} prof_ev;

typedef struct prof_buf {
    struct prof_buf* next;
    pthread_mutex_t lock;
    uint64_t session;
    int64_t tid;
    bool orphan;          /* its thread exited: the next start frees it */
    int64_t n, cap;
    prof_ev* ev;
} prof_buf;

static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static prof_buf* bufs;
static _Atomic uint64_t session;
static int64_t t_origin;
static char* result;            /* the last stopped session, as JSON */
static int64_t result_len;
static pthread_key_t buf_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Device time: one base event per CUDA device per session, synchronised when
 * recorded, so device timestamps share the host clock's origin. */
#define PROF_MAX_DEV 64
static nb_event* dev_base[PROF_MAX_DEV];
static int64_t dev_base_t[PROF_MAX_DEV];

static _Thread_local prof_buf* tls_buf;
/* User ranges stay balanced per thread whether or not a session records them. */
#define PROF_MAX_RANGES 256
static _Thread_local int32_t tls_depth;
static _Thread_local int64_t tls_range[PROF_MAX_RANGES]; /* token of the open range, -1: not recorded */

/* The stack source: one holder per nb_profiler_set_stack_source, freed (and its
 * payload destroyed) by whoever drops the last reference. */
typedef struct stack_src {
    nb_stack_source_fn fn;
    void* payload;
    nb_deleter_fn destroy;
    int64_t refs;
} stack_src;
static pthread_mutex_t src_lock = PTHREAD_MUTEX_INITIALIZER;
static stack_src* src;
static _Thread_local bool tls_in_source; /* ops the source calls get no stack of their own */

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void thread_gone(void* p) {
    prof_buf* b = p;
    pthread_mutex_lock(&b->lock);
    b->orphan = true;
    pthread_mutex_unlock(&b->lock);
}

static void make_key(void) { (void)pthread_key_create(&buf_key, thread_gone); }

static prof_buf* my_buf(void) {
    if (NB_LIKELY(tls_buf != NULL)) return tls_buf;
    prof_buf* b = calloc(1, sizeof *b);
    if (b == NULL) return NULL;
    pthread_mutex_init(&b->lock, NULL);
    b->tid = (int64_t)syscall(SYS_gettid);
    pthread_once(&key_once, make_key);
    pthread_setspecific(buf_key, b);
    pthread_mutex_lock(&prof_lock);
    b->session = atomic_load(&session);
    b->next = bufs;
    bufs = b;
    pthread_mutex_unlock(&prof_lock);
    tls_buf = b;
    return b;
}

static void ev_clear(prof_ev* e) {
    if (e->kind == EV_RANGE) free((char*)e->name);
    free(e->args);
    free(e->stack);
    nb_event_release(e->e0);
    nb_event_release(e->e1);
}

/* Appends an event; returns its token (session << 32 | index), -1 when dropped. */
static int64_t push(const prof_ev* e) {
    prof_buf* b = my_buf();
    if (b == NULL) return -1;
    int64_t token = -1;
    pthread_mutex_lock(&b->lock);
    uint64_t s = atomic_load_explicit(&session, memory_order_relaxed);
    if (b->session == s && (b->n < b->cap || b->cap < (INT64_C(1) << 31))) {
        if (b->n == b->cap) {
            int64_t cap = b->cap ? 2 * b->cap : 1024;
            prof_ev* ev = realloc(b->ev, (size_t)cap * sizeof *ev);
            if (ev == NULL) goto out;
            b->ev = ev;
            b->cap = cap;
        }
        b->ev[b->n] = *e;
        token = (int64_t)(s << 32) | b->n;
        b->n++;
    }
out:
    pthread_mutex_unlock(&b->lock);
    return token;
}

/* Closes an open event; false when the session it belongs to has ended. */
static bool close_ev(int64_t token, nb_event* e1) {
    prof_buf* b = tls_buf;
    if (token < 0 || b == NULL) return false;
    bool ok = false;
    int64_t t1 = now_ns() - t_origin;
    pthread_mutex_lock(&b->lock);
    int64_t i = token & 0xffffffff;
    if (b->session == (uint64_t)token >> 32 && i < b->n) {
        b->ev[i].t1 = t1;
        b->ev[i].e1 = e1;
        ok = true;
    }
    pthread_mutex_unlock(&b->lock);
    return ok;
}

/* ---- JSON ---- */

typedef struct sbuf {
    char* p;
    int64_t n, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf* s, const char* fmt, ...) {
    if (s->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(s->p ? s->p + s->n : NULL, s->p ? (size_t)(s->cap - s->n) : 0, fmt, ap);
        va_end(ap);
        if (k < 0) { s->oom = true; return; }
        if (s->p && s->n + k < s->cap) { s->n += k; return; }
        int64_t cap = (s->cap ? 2 * s->cap : 128) + k;
        char* p = realloc(s->p, (size_t)cap);
        if (p == NULL) { s->oom = true; return; }
        s->p = p;
        s->cap = cap;
    }
}

static void sb_string(sbuf* s, const char* str) {
    if (strpbrk(str, "\"\\") == NULL) { /* the common case: one call; control characters below */
        bool plain = true;
        for (const unsigned char* c = (const unsigned char*)str; *c && plain; c++) plain = *c >= 0x20;
        if (plain) { sb_printf(s, "\"%s\"", str); return; }
    }
    sb_printf(s, "\"");
    for (const unsigned char* c = (const unsigned char*)str; *c; c++) {
        if (*c == '"' || *c == '\\') sb_printf(s, "\\%c", *c);
        else if (*c < 0x20) sb_printf(s, "\\u%04x", *c);
        else sb_printf(s, "%c", *c);
    }
    sb_printf(s, "\"");
}

/* Appends len bytes (no formatting: the per-op records are built from these). */
static void sb_put(sbuf* s, const char* str, size_t len) {
    if (s->oom) return;
    if (s->n + (int64_t)len + 1 > s->cap) {
        int64_t cap = (s->cap ? 2 * s->cap : 128) + (int64_t)len;
        char* p = realloc(s->p, (size_t)cap);
        if (p == NULL) { s->oom = true; return; }
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->n, str, len);
    s->n += (int64_t)len;
    s->p[s->n] = '\0';
}
#define SB_LIT(s, lit) sb_put((s), (lit), sizeof(lit) - 1)

static void sb_int(sbuf* s, int64_t v) {
    char b[24];
    int i = (int)sizeof b;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do { b[--i] = (char)('0' + u % 10); u /= 10; } while (u);
    if (v < 0) b[--i] = '-';
    sb_put(s, b + i, sizeof b - (size_t)i);
}

static void sb_shape(sbuf* s, const nb_tensor* t) {
    SB_LIT(s, "[");
    for (int32_t d = 0; d < t->ndim; d++) {
        if (d) SB_LIT(s, ",");
        sb_int(s, t->shape[d]);
    }
    SB_LIT(s, "]");
}

/* The text, in a block of its size (an event's args live until the session's end), or NULL. */
static char* sb_fit(sbuf* s) {
    if (s->oom) {
        free(s->p);
        return NULL;
    }
    char* p = realloc(s->p, (size_t)s->n + 1);
    return p ? p : s->p;
}

/* '"shapes":[[2, 3],[]],"dtypes":["float32",""]' for an op's inputs (NULL: a missing one). */
static char* input_args(const nb_tensor* const* ts, int32_t n) {
    sbuf s = {0};
    SB_LIT(&s, "\"shapes\":[");
    for (int32_t i = 0; i < n; i++) {
        if (i) SB_LIT(&s, ",");
        if (nb_tensor_ok(ts[i])) sb_shape(&s, ts[i]);
        else SB_LIT(&s, "[]");
    }
    SB_LIT(&s, "],\"dtypes\":[");
    for (int32_t i = 0; i < n; i++) {
        if (i) SB_LIT(&s, ",");
        const char* name = nb_tensor_ok(ts[i]) ? nb_dtype_name(ts[i]->dtype) : ""; /* plain names */
        SB_LIT(&s, "\"");
        sb_put(&s, name, strlen(name));
        SB_LIT(&s, "\"");
    }
    SB_LIT(&s, "]");
    return sb_fit(&s);
}

/* ---- the stack source ---- */

static void src_unref(stack_src* h) {
    pthread_mutex_lock(&src_lock);
    bool last = --h->refs == 0;
    pthread_mutex_unlock(&src_lock);
    if (last) {
        if (h->destroy) h->destroy(h->payload);
        free(h);
    }
}

/* The calling thread's stack as the source reports it (owned), or NULL. */
static char* take_stack(void) {
    if (tls_in_source) return NULL;
    pthread_mutex_lock(&src_lock);
    stack_src* h = src;
    if (h) h->refs++;
    pthread_mutex_unlock(&src_lock);
    if (h == NULL) return NULL;
    tls_in_source = true;
    char small[2048];
    char* out = NULL;
    int64_t n = h->fn(h->payload, small, (int64_t)sizeof small);
    if (n > 0 && n < (int64_t)sizeof small) {
        small[n] = '\0';
        out = strdup(small);
    } else if (n > 0 && n < (INT64_C(1) << 30) && (out = malloc((size_t)n + 1)) != NULL) {
        int64_t m = h->fn(h->payload, out, n + 1); /* the frames may differ by now: keep what fits */
        if (m <= 0) {
            free(out);
            out = NULL;
        } else {
            out[m < n ? m : n] = '\0';
        }
    }
    tls_in_source = false;
    src_unref(h);
    return out;
}

/* ---- hooks ---- */

static nb_event* device_mark(int32_t index, void** stream_out) {
    if (index < 0 || index >= PROF_MAX_DEV) return NULL;
    nb_stream* st = NULL;
    nb_event* e = NULL;
    if (nb_stream_current(NB_CUDA, index, &st) != NB_OK) return NULL;
    if (nb_event_create(NB_CUDA, index, NB_EVENT_TIMING, &e) == NB_OK && nb_event_record(e, st) != NB_OK) {
        nb_event_release(e);
        e = NULL;
    }
    if (stream_out) *stream_out = nb_stream_native_handle(st);
    nb_stream_release(st);
    return e;
}

int64_t nb_prof_op_begin(const char* name, const nb_tensor* const* inputs, int32_t n) {
    int32_t flags = atomic_load_explicit(&nb_prof_flags, memory_order_relaxed);
    if (!(flags & NB_PROF_ON)) return -1;
    prof_ev e = {.kind = EV_OP, .name = name, .t1 = -1, .device_type = NB_CPU};
    if (inputs == NULL) n = 0; /* a list op given no list: its own check reports it */
    for (int32_t i = 0; i < n; i++)
        if (nb_tensor_ok(inputs[i])) {
            e.device_type = inputs[i]->storage->device_type;
            e.device_index = inputs[i]->storage->device_index;
            break;
        }
    if (flags & NB_PROFILE_SHAPES) e.args = input_args(inputs, n);
    if (flags & NB_PROFILE_STACK) e.stack = take_stack();
    if ((flags & NB_PROFILE_CUDA) && e.device_type == NB_CUDA) e.e0 = device_mark(e.device_index, &e.stream);
    e.t0 = now_ns() - t_origin;
    int64_t token = push(&e);
    if (token < 0) ev_clear(&e);
    return token;
}

/* Appends '"out_shape":[..]' to the record's args (which exist when shapes are recorded). */
static void add_out_shape(prof_ev* e, const nb_tensor* result) {
    if (e->args == NULL || !nb_tensor_ok(result)) return;
    const int64_t n = (int64_t)strlen(e->args);
    sbuf s = {.p = e->args, .n = n, .cap = n + 1};  /* grown in place */
    e->args = NULL;
    SB_LIT(&s, ",\"out_shape\":");
    sb_shape(&s, result);
    e->args = sb_fit(&s);  /* NULL (the shapes dropped) only when memory ran out */
}

void nb_prof_op_end(int64_t token, nb_status status, const nb_tensor* result) {
    if (token < 0) return;
    nb_event* e1 = NULL;
    prof_buf* b = tls_buf;
    if (status == NB_OK && b != NULL) { /* a device event after the op's work (not after a failure: its message stays) */
        pthread_mutex_lock(&b->lock);
        int64_t i = token & 0xffffffff;
        bool live = b->session == (uint64_t)token >> 32 && i < b->n;
        bool dev = live && b->ev[i].e0 != NULL;
        int32_t index = dev ? b->ev[i].device_index : 0;
        if (live && result != NULL) add_out_shape(&b->ev[i], result);
        pthread_mutex_unlock(&b->lock);
        if (dev) e1 = device_mark(index, NULL);
    }
    if (!close_ev(token, e1)) nb_event_release(e1);
}

void nb_prof_memory(int32_t device_type, int32_t device_index, const void* ptr, int64_t bytes) {
    int32_t flags = atomic_load_explicit(&nb_prof_flags, memory_order_relaxed);
    if (!(flags & NB_PROF_ON) || !(flags & NB_PROFILE_MEMORY)) return;
    int64_t t = now_ns() - t_origin;
    prof_ev e = {.kind = EV_MEM, .name = "[memory]", .t0 = t, .t1 = t, .bytes = bytes, .addr = (uintptr_t)ptr,
                 .device_type = device_type, .device_index = device_index};
    push(&e);
}

/* ---- the ABI ---- */

NB_API nb_status nb_profiler_start(int32_t flags) {
    if (flags & ~(NB_PROFILE_SHAPES | NB_PROFILE_MEMORY | NB_PROFILE_CUDA | NB_PROFILE_STACK))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_start: unknown flags %#x", (unsigned)flags);
    pthread_mutex_lock(&prof_lock);
    if (atomic_load(&nb_prof_flags) != 0) {
        pthread_mutex_unlock(&prof_lock);
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "profiler_start: the profiler is already running (one session at a time; stop it first)");
    }
    uint64_t s = atomic_load(&session) + 1;
    if (s >= (UINT64_C(1) << 31)) s = 1;
    atomic_store(&session, s);
    for (prof_buf **pb = &bufs, *b; (b = *pb) != NULL;) {
        pthread_mutex_lock(&b->lock);
        for (int64_t i = 0; i < b->n; i++) ev_clear(&b->ev[i]);
        b->n = 0;
        b->session = s;
        bool orphan = b->orphan;
        pthread_mutex_unlock(&b->lock);
        if (orphan) {
            *pb = b->next;
            pthread_mutex_destroy(&b->lock);
            free(b->ev);
            free(b);
        } else {
            pb = &b->next;
        }
    }
    for (int i = 0; i < PROF_MAX_DEV; i++) {
        nb_event_release(dev_base[i]);
        dev_base[i] = NULL;
    }
    free(result);
    result = NULL;
    result_len = 0;
    t_origin = now_ns();
    atomic_store(&nb_prof_flags, flags | NB_PROF_ON);
    pthread_mutex_unlock(&prof_lock);
    return NB_OK;
}

/* Device microseconds of an event relative to the session's origin (-1: unknown). */
static double device_us(int32_t index, nb_event* e) {
    if (e == NULL || index < 0 || index >= PROF_MAX_DEV) return -1;
    if (dev_base[index] == NULL) { /* the first device event of the session: anchor this device's clock */
        if (nb_event_synchronize(e) != NB_OK) return -1;
        dev_base[index] = e;
        nb_event_retain(e);
        dev_base_t[index] = now_ns() - t_origin;
    }
    double ms = 0;
    if (nb_event_synchronize(e) != NB_OK || nb_event_elapsed_time(dev_base[index], e, &ms) != NB_OK) return -1;
    return (double)dev_base_t[index] / 1e3 + ms * 1e3;
}

static void write_event(sbuf* s, int64_t tid, const prof_ev* e, int64_t t_end) {
    static const char* kinds[] = {"op", "range", "memory"};
    sb_printf(s, "{\"kind\":\"%s\",\"name\":", kinds[e->kind]);
    sb_string(s, e->name);
    sb_printf(s, ",\"tid\":%" PRId64 ",\"ts_ns\":%" PRId64 ",\"dur_ns\":%" PRId64 ",\"device\":\"%s:%d\"", tid,
              e->t0, (e->t1 < 0 ? t_end : e->t1) - e->t0, nb_device_type_name(e->device_type), (int)e->device_index);
    if (e->kind == EV_MEM) sb_printf(s, ",\"bytes\":%" PRId64 ",\"addr\":%" PRIuPTR, e->bytes, e->addr);
    if (e->args) sb_printf(s, ",%s", e->args);
    if (e->stack) { /* one JSON string per line */
        sb_printf(s, ",\"stack\":[");
        const char* line = e->stack;
        for (bool first = true; *line; first = false) {
            const char* nl = strchr(line, '\n');
            size_t len = nl ? (size_t)(nl - line) : strlen(line);
            char* copy = strndup(line, len);
            if (copy == NULL) { s->oom = true; break; }
            if (!first) sb_printf(s, ",");
            sb_string(s, copy);
            free(copy);
            line += len + (nl != NULL);
        }
        sb_printf(s, "]");
    }
    if (e->e0 && e->e1) {
        double d0 = device_us(e->device_index, e->e0), d1 = device_us(e->device_index, e->e1);
        if (d0 >= 0 && d1 >= d0)
            sb_printf(s, ",\"device_ts_us\":%.3f,\"device_dur_us\":%.3f,\"stream\":%" PRIuPTR, d0, d1 - d0,
                      (uintptr_t)e->stream);
    }
    sb_printf(s, "}");
}

NB_API nb_status nb_profiler_stop(void) {
    pthread_mutex_lock(&prof_lock);
    if (atomic_load(&nb_prof_flags) == 0) {
        pthread_mutex_unlock(&prof_lock);
        return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_stop: the profiler is not running");
    }
    atomic_store(&nb_prof_flags, 0);
    int64_t t_end = now_ns() - t_origin;
    sbuf s = {0};
    sb_printf(&s, "{\"events\":[");
    bool first = true;
    for (prof_buf* b = bufs; b != NULL; b = b->next) {
        pthread_mutex_lock(&b->lock);
        for (int64_t i = 0; i < b->n; i++) {
            if (!first) sb_printf(&s, ",\n");
            first = false;
            write_event(&s, b->tid, &b->ev[i], t_end);
            ev_clear(&b->ev[i]);
        }
        b->n = 0;
        pthread_mutex_unlock(&b->lock);
    }
    sb_printf(&s, "],\"duration_ns\":%" PRId64 "}", t_end);
    free(result);
    result = s.oom ? NULL : s.p;
    result_len = s.oom ? 0 : s.n;
    if (s.oom) free(s.p);
    pthread_mutex_unlock(&prof_lock);
    if (s.oom) return nb_error(NB_ERR_OUT_OF_MEMORY, "profiler_stop: out of memory writing the events");
    return NB_OK;
}

NB_API int32_t nb_profiler_enabled(void) {
    return atomic_load_explicit(&nb_prof_flags, memory_order_relaxed) & ~NB_PROF_ON;
}

NB_API nb_status nb_profiler_events(char* buf, int64_t cap, int64_t* needed) {
    if (needed == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_events: needed is NULL");
    if (cap < 0 || (buf == NULL && cap > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_events: buf is NULL or cap (%" PRId64 ") negative", cap);
    pthread_mutex_lock(&prof_lock);
    const char* text = result ? result : "{\"events\":[],\"duration_ns\":0}";
    int64_t len = result ? result_len : (int64_t)strlen(text);
    if (cap > 0) {
        int64_t k = len < cap - 1 ? len : cap - 1;
        memcpy(buf, text, (size_t)k);
        buf[k] = '\0';
    }
    *needed = len;
    pthread_mutex_unlock(&prof_lock);
    return NB_OK;
}

NB_API nb_status nb_profiler_range_push(const char* name) {
    if (name == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_range_push: name is NULL");
    if (tls_depth >= PROF_MAX_RANGES)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_range_push: more than %d nested ranges", PROF_MAX_RANGES);
    int64_t token = -1;
    if (atomic_load_explicit(&nb_prof_flags, memory_order_relaxed) & NB_PROF_ON) {
        char* copy = strdup(name);
        if (copy == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "profiler_range_push: out of memory");
        prof_ev e = {.kind = EV_RANGE, .name = copy, .t1 = -1, .device_type = NB_CPU, .t0 = now_ns() - t_origin};
        if ((token = push(&e)) < 0) free(copy);
    }
    tls_range[tls_depth++] = token;
    return NB_OK;
}

NB_API nb_status nb_profiler_range_pop(void) {
    if (tls_depth == 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "profiler_range_pop: no range is open on this thread");
    close_ev(tls_range[--tls_depth], NULL);
    return NB_OK;
}

bool nb_prof_node_begin(const char* node_name) {
    char name[160];
    snprintf(name, sizeof name, "autograd::engine::evaluate_function: %s", node_name);
    return nb_profiler_range_push(name) == NB_OK;
}

NB_API nb_status nb_profiler_set_stack_source(nb_stack_source_fn fn, void* payload, nb_deleter_fn destroy) {
    stack_src* h = NULL;
    if (fn != NULL) {
        h = calloc(1, sizeof *h);
        if (h == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "profiler_set_stack_source: out of memory");
        *h = (stack_src){.fn = fn, .payload = payload, .destroy = destroy, .refs = 1};
    }
    pthread_mutex_lock(&src_lock);
    stack_src* old = src;
    src = h;
    pthread_mutex_unlock(&src_lock);
    if (old) src_unref(old);
    return NB_OK;
}
