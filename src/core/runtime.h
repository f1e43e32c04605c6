/* runtime.h: streams, events and device memory inside the core (stream.c,
 * device_memory.c). CUDA reaches the core only through the plugin's nb_backend
 * table; no CUDA type appears here. */
#ifndef NABLA_RUNTIME_H_
#define NABLA_RUNTIME_H_

#include "internal.h"

#include <pthread.h>

#define NB_MAX_CUDA_DEVICES 64
#define NB_STREAM_MAGIC 0x6e627374u /* "nbst" */
#define NB_EVENT_MAGIC 0x6e626576u  /* "nbev" */

struct nb_stream {
    uint32_t magic;
    int32_t device_type;
    int32_t device_index;
    int32_t priority;
    atomic_int_fast64_t refcount;
    int64_t id;            /* 0 for default streams */
    void* native;          /* cudaStream_t; NULL for CUDA's default stream and on CPU */
    bool is_default;       /* static, never destroyed */
    bool external;         /* wraps a native stream made outside nabla: never destroyed by nabla */
    pthread_mutex_t error_lock;
    nb_status async_status; /* an error of asynchronous work, reported at the next sync */
    char async_message[384];
};

struct nb_event {
    uint32_t magic;
    int32_t device_type;
    int32_t device_index;
    int32_t flags;
    atomic_int_fast64_t refcount;
    void* native;          /* cudaEvent_t; NULL on CPU */
    bool recorded;
    double host_ms;        /* CPU: the clock when recorded */
};

/* ---- the CUDA plugin (device.c) ---- */

/* The plugin's table (raw device memory, streams, events, kernels); NULL until a
 * CUDA request loaded it successfully. */
NB_INTERNAL const nb_backend* nb_cuda_plugin(void);

/* ---- streams (stream.c) ---- */

/* The calling thread's current stream on a device (borrowed; never NULL for a
 * valid device). */
NB_INTERNAL nb_stream* nb_stream_current_of(int32_t device_type, int32_t device_index);
/* Keeps the first error of asynchronous work on s until the next synchronisation. */
NB_INTERNAL void nb_stream_store_error(nb_stream* s, nb_status status, const char* message);

/* ---- device memory (device_memory.c) ---- */

/* The table CUDA storages use: memory from the per-device caching allocator on
 * the current stream, copies on the current stream. */
NB_INTERNAL extern nb_backend nb_cuda_storage_backend;
/* Builds nb_cuda_storage_backend around the plugin's table (at plugin load). */
NB_INTERNAL void nb_cuda_memory_init(const nb_backend* plugin);
NB_INTERNAL void nb_cuda_memory_stats(int32_t device_index, nb_memory_stats* out);
NB_INTERNAL void nb_cuda_memory_reset_peak(int32_t device_index);
/* The pinned host memory pool's counters (zeros before its first allocation) and peak reset. */
NB_INTERNAL void nb_pinned_memory_stats(nb_memory_stats* out);
NB_INTERNAL void nb_pinned_memory_reset_peak(void);
NB_INTERNAL void nb_cuda_memory_empty_cache(int32_t device_index);
/* Fills a contiguous device tensor with one element's bytes (a kernel on the current stream). */
NB_INTERNAL nb_status nb_device_fill(const char* op, nb_tensor* t, const void* pattern);

#endif /* NABLA_RUNTIME_H_ */
