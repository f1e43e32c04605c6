/* device_memory.c: CUDA memory through the caching allocator, pinned host memory,
 * non-blocking copies, and the few device kernels the core calls (fill, binary).
 *
 * Every CUDA device gets one caching allocator (src/alloc/caching_allocator.c)
 * over the plugin's raw cudaMalloc/cudaFree and events. Storages allocate on the
 * thread's current stream; a storage used on another stream is recorded with
 * nb_tensor_record_stream, and its memory is reused only after that work is done.
 * Pinned host memory has its own caching allocator whose uses (asynchronous
 * copies) are recorded as events when the copy is queued. */
#include "runtime.h"
#include "../alloc/caching_allocator.h"
#include "../alloc/cpu_allocator.h"

#include <stdio.h>
#include <string.h>

static const nb_backend* plugin;
static _Atomic(nb_ca*) device_allocs[NB_MAX_CUDA_DEVICES];
static _Atomic(nb_ca*) pinned_alloc;
static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local char message[1024];
static char pinned_stream_key;  /* the allocation "stream" of pinned blocks: no device stream equals it */

nb_backend nb_cuda_storage_backend;

/* ---- the caching allocator's view of a device ---- */

static int32_t ctx_index(void* ctx) { return (int32_t)(intptr_t)ctx; }

static nb_status dev_raw_alloc(void* ctx, int64_t n, void** out) { return plugin->alloc(ctx_index(ctx), n, out); }
static void dev_raw_free(void* ctx, void* p, int64_t n) { plugin->free(ctx_index(ctx), p, n); }
static nb_status dev_event_create(void* ctx, void** out) { return plugin->event_create(ctx_index(ctx), 0, out); }
static void dev_event_destroy(void* ctx, void* e) { plugin->event_destroy(ctx_index(ctx), e); }
static nb_status dev_event_record(void* ctx, void* e, void* stream) {
    return plugin->event_record(ctx_index(ctx), e, stream);
}
static int dev_event_query(void* ctx, void* e) {
    (void)ctx;
    int32_t done = 0;
    return plugin->event_query(e, &done) == NB_OK ? done : -1;
}
static nb_status dev_event_sync(void* ctx, void* e) {
    (void)ctx;
    return plugin->event_synchronize(e);
}
static const char* dev_last_error(void* ctx) {
    (void)ctx;
    return plugin->last_error();
}

static nb_ca* allocator_of(int32_t index) {
    nb_ca* a = atomic_load_explicit(&device_allocs[index], memory_order_acquire);
    if (NB_LIKELY(a != NULL)) return a;
    pthread_mutex_lock(&create_lock);
    if ((a = atomic_load(&device_allocs[index])) == NULL) {
        nb_ca_device dev = {(void*)(intptr_t)index, dev_raw_alloc, dev_raw_free, dev_event_create, dev_event_destroy,
                            dev_event_record, dev_event_query, dev_event_sync, dev_last_error, 0};
        char name[16];
        snprintf(name, sizeof name, "cuda:%d", (int)index);
        a = nb_ca_create(&dev, name);
        atomic_store_explicit(&device_allocs[index], a, memory_order_release);
    }
    pthread_mutex_unlock(&create_lock);
    return a;
}

/* ---- pinned host memory: events are created on the device of the stream they mark ---- */

typedef struct {
    void* native;
    int32_t device;
} pinned_event;

static nb_status host_raw_alloc(void* ctx, int64_t n, void** out) {
    (void)ctx;
    return plugin->host_alloc(n, out);
}
static void host_raw_free(void* ctx, void* p, int64_t n) {
    (void)ctx, (void)n;
    plugin->host_free(p);
}
static nb_status host_event_create(void* ctx, void** out) {
    (void)ctx;
    pinned_event* e = nb_cpu_alloc(sizeof *e);
    if (e == NULL) return NB_ERR_OUT_OF_MEMORY;
    e->native = NULL;
    e->device = -1;
    *out = e;
    return NB_OK;
}
static void host_event_destroy(void* ctx, void* p) {
    (void)ctx;
    pinned_event* e = p;
    if (e->native != NULL) plugin->event_destroy(e->device, e->native);
    nb_cpu_free(e, sizeof *e);
}
/* stream is the nb_stream* the copy was queued on (alive for the call). */
static nb_status host_event_record(void* ctx, void* p, void* stream) {
    (void)ctx;
    pinned_event* e = p;
    const nb_stream* s = stream;
    if (e->native != NULL && e->device != s->device_index) {
        plugin->event_destroy(e->device, e->native);
        e->native = NULL;
    }
    nb_status st;
    if (e->native == NULL && (st = plugin->event_create(s->device_index, 0, &e->native)) != NB_OK) return st;
    e->device = s->device_index;
    return plugin->event_record(s->device_index, e->native, s->native);
}
static int host_event_query(void* ctx, void* p) {
    pinned_event* e = p;
    return e->native == NULL ? 1 : dev_event_query(ctx, e->native);
}
static nb_status host_event_sync(void* ctx, void* p) {
    pinned_event* e = p;
    return e->native == NULL ? NB_OK : dev_event_sync(ctx, e->native);
}

static nb_ca* pinned_allocator(void) {
    nb_ca* a = atomic_load_explicit(&pinned_alloc, memory_order_acquire);
    if (NB_LIKELY(a != NULL)) return a;
    pthread_mutex_lock(&create_lock);
    if ((a = atomic_load(&pinned_alloc)) == NULL) {
        nb_ca_device dev = {NULL, host_raw_alloc, host_raw_free, host_event_create, host_event_destroy,
                            host_event_record, host_event_query, host_event_sync, dev_last_error, 1};
        a = nb_ca_create(&dev, "pinned host memory");
        atomic_store_explicit(&pinned_alloc, a, memory_order_release);
    }
    pthread_mutex_unlock(&create_lock);
    return a;
}

/* ---- the table CUDA storages use ---- */

static void* current_native(int32_t index) { return nb_stream_current_of(NB_CUDA, index)->native; }

static nb_status storage_alloc(int32_t index, int64_t nbytes, void** out) {
    nb_ca* a = allocator_of(index);
    if (a == NULL) {
        snprintf(message, sizeof message, "out of host memory creating the allocator of cuda:%d", (int)index);
        return NB_ERR_OUT_OF_MEMORY;
    }
    return nb_ca_malloc(a, nbytes, current_native(index), out, message, sizeof message);
}

static void storage_free(int32_t index, void* ptr, int64_t nbytes) {
    (void)nbytes;
    nb_ca* a = atomic_load(&device_allocs[index]);
    if (a == NULL || !nb_ca_free(a, ptr)) {
        snprintf(message, sizeof message, "cuda:%d: freeing %p, which the caching allocator did not hand out",
                 (int)index, ptr);
        nb_stream_store_error(nb_stream_current_of(NB_CUDA, index), NB_ERR_INTERNAL, message);
    }
}

/* A blocking copy: queued on the current stream of the device that runs it, then waited for. */
static nb_status storage_copy(void* dst, int32_t dst_type, int32_t dst_index, const void* src, int32_t src_type,
                              int32_t src_index, int64_t nbytes) {
    if (nbytes == 0) return NB_OK;
    int32_t index = dst_type == NB_CUDA ? dst_index : src_index;
    (void)src_type;
    void* stream = current_native(index);
    nb_status st = plugin->copy_async(index, dst, src, nbytes, stream);
    if (st == NB_OK) {
        nb_blocking_end_fn end = NULL;
        void* token = nbytes >= NB_BLOCKING_WORK_BYTES ? nb_blocking_begin(&end) : NULL;
        st = plugin->stream_synchronize(index, stream);
        if (end) end(token);
    }
    if (st != NB_OK) snprintf(message, sizeof message, "%s", plugin->last_error());
    return st;
}

static nb_status storage_memset(void* dst, int32_t index, int value, int64_t nbytes) {
    unsigned char byte = (unsigned char)value;
    nb_status st = plugin->fill(index, dst, &byte, 1, nbytes, current_native(index));
    if (st != NB_OK) snprintf(message, sizeof message, "%s", plugin->last_error());
    return st;
}

/* The storage layer's own message (allocation), else the plugin's (a kernel family's). */
static const char* storage_last_error(void) { return message[0] != '\0' ? message : plugin->last_error(); }

void nb_cuda_memory_init(const nb_backend* p) {
    plugin = p;
    nb_cuda_storage_backend = *p;
    nb_cuda_storage_backend.alloc = storage_alloc;
    nb_cuda_storage_backend.free = storage_free;
    nb_cuda_storage_backend.copy = storage_copy;
    nb_cuda_storage_backend.memset = storage_memset;
    nb_cuda_storage_backend.last_error = storage_last_error;
}

/* ---- statistics ---- */

/* The counters of one caching allocator (zeros while it does not exist yet). */
static void allocator_stats(nb_ca* a, nb_memory_stats* out) {
    nb_memory_stats cpu = {0};
    nb_cpu_stats(&cpu);
    memset(out, 0, sizeof *out);
    out->live_tensors = cpu.live_tensors;  /* object counts are process-wide */
    out->live_storages = cpu.live_storages;
    if (a == NULL) return;  /* nothing allocated through it yet */
    nb_ca_stats s;
    nb_ca_get_stats(a, &s);
    out->allocated_bytes = s.allocated_bytes;
    out->peak_allocated_bytes = s.peak_allocated_bytes;
    out->cached_bytes = s.reserved_bytes - s.active_bytes;
    out->alloc_count = s.alloc_count;
    out->free_count = s.free_count;
    out->system_alloc_count = s.raw_alloc_count;
    out->system_free_count = s.raw_free_count;
    out->reserved_bytes = s.reserved_bytes;
    out->peak_reserved_bytes = s.peak_reserved_bytes;
    out->active_bytes = s.active_bytes;
    out->peak_active_bytes = s.peak_active_bytes;
    out->requested_bytes = s.requested_bytes;
    out->peak_requested_bytes = s.peak_requested_bytes;
    out->inactive_split_bytes = s.inactive_split_bytes;
    out->segment_count = s.segments;
    out->alloc_retries = s.alloc_retries;
    out->oom_count = s.oom_count;
    out->largest_free_block = nb_ca_largest_free(a);
}

void nb_cuda_memory_stats(int32_t index, nb_memory_stats* out) { allocator_stats(atomic_load(&device_allocs[index]), out); }

void nb_cuda_memory_reset_peak(int32_t index) {
    nb_ca* a = atomic_load(&device_allocs[index]);
    if (a != NULL) nb_ca_reset_peak(a);
}

void nb_pinned_memory_stats(nb_memory_stats* out) { allocator_stats(atomic_load(&pinned_alloc), out); }

void nb_pinned_memory_reset_peak(void) {
    nb_ca* a = atomic_load(&pinned_alloc);
    if (a != NULL) nb_ca_reset_peak(a);
}

void nb_cuda_memory_empty_cache(int32_t index) {
    nb_ca* a = atomic_load(&device_allocs[index]);
    if (a != NULL) nb_ca_empty_cache(a);
    nb_ca* h = atomic_load(&pinned_alloc);
    if (h != NULL) nb_ca_empty_cache(h);
}

NB_API nb_status nb_memory_snapshot(int32_t device_type, int32_t device_index, char* buf, int64_t cap,
                                    int64_t* needed) {
    static const char* op = "nb_memory_snapshot";
    NB_CHECK_OUT(op, needed);
    if (cap < 0 || (buf == NULL && cap > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: buf is NULL or cap (%lld) is negative", op, (long long)cap);
    const nb_backend* b;
    if (device_type == NB_CUDA && device_index == -1) nb_device_current(NB_CUDA, &device_index);
    nb_status st = nb_device_resolve(op, device_type, &device_index, &b);
    if (st != NB_OK) return st;
    if (device_type != NB_CUDA)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: snapshots exist for the CUDA caching allocator only", op);
    nb_ca* a = allocator_of(device_index);
    if (a == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of host memory", op);
    *needed = nb_ca_snapshot_json(a, buf, cap);
    return NB_OK;
}

/* ---- streams of storages, pinned tensors, non-blocking copies ---- */

static void pinned_deleter(void* data) {
    nb_ca* a = atomic_load(&pinned_alloc);
    if (a != NULL) nb_ca_free(a, data);
}

static bool is_pinned(const nb_tensor* t) { return t->storage->deleter == pinned_deleter; }

NB_API int32_t nb_tensor_is_pinned(const nb_tensor* t) {
    if (!nb_tensor_ok(t)) {
        nb_bad_handle("nb_tensor_is_pinned", "t", t);
        return -1;
    }
    return is_pinned(t);
}

NB_API nb_status nb_tensor_record_stream(nb_tensor* t, nb_stream* stream) {
    static const char* op = "record_stream";
    NB_CHECK_TENSOR(op, t);
    if (stream == NULL || stream->magic != NB_STREAM_MAGIC)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: stream is not a live stream", op);
    const nb_storage* s = t->storage;
    if (stream->device_type != s->device_type || (s->device_type == NB_CUDA && stream->device_index != s->device_index))
        return nb_error(NB_ERR_DEVICE, "%s: the tensor is on %s:%d but the stream on %s:%d", op,
                        nb_device_type_name(s->device_type), (int)s->device_index,
                        nb_device_type_name(stream->device_type), (int)stream->device_index);
    if (s->device_type != NB_CUDA) return NB_OK;  /* CPU work is complete when an op returns */
    nb_ca* a = atomic_load(&device_allocs[s->device_index]);
    if (s->backend != &nb_cuda_storage_backend || a == NULL || !nb_ca_record_stream(a, s->data, stream->native))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the tensor's memory does not come from nabla's caching "
                        "allocator (external memory is not tracked)", op);
    return NB_OK;
}

/* A contiguous CPU tensor in pinned memory. */
static nb_status pinned_empty(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out) {
    int32_t count = 0;
    nb_status st = nb_device_count(NB_CUDA, &count);
    if (st != NB_OK) return st;
    if (count == 0)
        return nb_error(NB_ERR_DEVICE, "%s: pinned memory needs CUDA, which is not available: %s", op,
                        nb_device_unavailable_reason(NB_CUDA));
    int64_t numel;
    if ((st = nb_check_extent(op, shape, ndim, dtype, &numel)) != NB_OK) return st;  /* dtype may be wider than t's */
    const int64_t nbytes = numel * nb_dtype_sizes[dtype];
    nb_ca* a = pinned_allocator();
    void* data = NULL;
    if (a == NULL || (st = nb_ca_malloc(a, nbytes, &pinned_stream_key, &data, message, sizeof message)) != NB_OK)
        return nb_error(a == NULL ? NB_ERR_OUT_OF_MEMORY : st, "%s: %s", op, a == NULL ? "out of host memory" : message);
    nb_storage* s = NULL;
    if ((st = nb_storage_wrap(op, data, nbytes, NB_CPU, 0, pinned_deleter, data, &s)) != NB_OK) {
        nb_ca_free(a, data);
        return st;
    }
    int64_t strides[NB_MAX_DIMS];
    nb_contiguous_strides(shape, ndim, strides);
    st = nb_tensor_make(op, s, dtype, shape, strides, ndim, 0, out);
    nb_storage_release(s);
    return st;
}

NB_API nb_status nb_tensor_pin_memory(const nb_tensor* t, nb_tensor** out) {
    static const char* op = "pin_memory";
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_OUT(op, out);
    if (t->storage->device_type != NB_CPU)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: cannot pin '%s' memory: only dense CPU tensors can be pinned",
                        op, nb_device_type_name(t->storage->device_type));
    if (is_pinned(t)) {
        nb_tensor_retain((nb_tensor*)t);
        *out = (nb_tensor*)t;
        return NB_OK;
    }
    nb_tensor* p = NULL;
    nb_status st = pinned_empty(op, t->shape, t->ndim, t->dtype, &p);
    if (st == NB_OK && (st = nb_copy_into(op, p, t)) != NB_OK) nb_tensor_release(p);
    if (st == NB_OK) *out = p;
    return st;
}

/* dst = src queued on the current stream of the CUDA side, when the host side is
 * pinned (or both are on CUDA); false when the copy must be blocking. */
static bool can_copy_async(const nb_tensor* dst, const nb_tensor* src) {
    const nb_storage *ds = dst->storage, *ss = src->storage;
    if (dst->dtype != src->dtype || !dst->contiguous || !src->contiguous || dst->numel != src->numel) return false;
    if (dst->ndim != src->ndim || memcmp(dst->shape, src->shape, sizeof(int64_t) * (size_t)dst->ndim) != 0) return false;
    bool dcuda = ds->device_type == NB_CUDA, scuda = ss->device_type == NB_CUDA;
    if (dcuda && scuda) return true;
    return (dcuda && is_pinned(src)) || (scuda && is_pinned(dst));
}

static nb_status copy_async(const char* op, nb_tensor* dst, const nb_tensor* src) {
    const nb_tensor* dev = dst->storage->device_type == NB_CUDA ? dst : src;
    const int32_t index = dev->storage->device_index;
    nb_stream* stream = nb_stream_current_of(NB_CUDA, index);
    const int64_t nbytes = dst->numel * nb_dtype_sizes[dst->dtype];
    if (nbytes == 0) return NB_OK;
    nb_status st = plugin->copy_async(index, nb_tensor_data(dst), nb_tensor_data(src), nbytes, stream->native);
    if (st != NB_OK) return nb_error(st, "%s: %s", op, plugin->last_error());
    const nb_tensor* host = is_pinned(dst) ? dst : is_pinned(src) ? src : NULL;
    if (host != NULL && !nb_ca_record_stream(atomic_load(&pinned_alloc), host->storage->data, stream)) {
        /* no event: the pinned block cannot be tracked, so wait here instead */
        if ((st = plugin->stream_synchronize(index, stream->native)) != NB_OK)
            return nb_error(st, "%s: %s", op, plugin->last_error());
    }
    return NB_OK;
}

nb_status nbi_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking) {
    static const char* op = "copy_";
    if (!non_blocking || !nb_tensor_ok(dst) || !nb_tensor_ok(src) || !can_copy_async(dst, src))
        return nb_tensor_copy_(dst, src);
    nb_status st = copy_async(op, dst, src);
    if (st == NB_OK) nb_tensor_bump_version(dst);
    return st;
}

nb_status nbi_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index,
                                 int32_t copy, int32_t non_blocking, nb_tensor** out) {
    static const char* op = "to";
    if (!non_blocking || !nb_tensor_ok(t) || out == NULL || dtype != t->dtype || !t->contiguous)
        return nb_tensor_to(t, dtype, device_type, device_index, copy, out);
    const int32_t from = t->storage->device_type;
    if (device_type == NB_CUDA && device_index == -1) nb_device_current(NB_CUDA, &device_index);
    const bool same = device_type == from && (from != NB_CUDA || device_index == t->storage->device_index);
    const bool to_cuda_from_pinned = device_type == NB_CUDA && is_pinned(t);
    const bool from_cuda = from == NB_CUDA && (device_type == NB_CPU || device_type == NB_CUDA);
    if (same || !(to_cuda_from_pinned || from_cuda)) return nb_tensor_to(t, dtype, device_type, device_index, copy, out);
    nb_tensor* dst = NULL;
    nb_status st = device_type == NB_CPU ? pinned_empty(op, t->shape, t->ndim, dtype, &dst)
                                         : nb_empty(t->shape, t->ndim, dtype, device_type, device_index, &dst);
    if (st == NB_OK && (st = copy_async(op, dst, t)) != NB_OK) nb_tensor_release(dst);
    if (st == NB_OK) *out = dst;
    return st;
}

/* ---- kernels the core calls ---- */

nb_status nb_device_fill(const char* op, nb_tensor* t, const void* pattern) {
    const int32_t index = t->storage->device_index;
    nb_status st = plugin->fill(index, nb_tensor_data(t), pattern, (int32_t)nb_dtype_sizes[t->dtype], t->numel,
                                current_native(index));
    return st == NB_OK ? NB_OK : nb_error(st, "%s: %s", op, plugin->last_error());
}
