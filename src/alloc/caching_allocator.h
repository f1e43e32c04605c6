/* caching_allocator.h: the device-agnostic, stream-aware caching allocator.
 *
 * It talks to a device only through nb_ca_device (raw allocate/free and events),
 * so the same code serves CUDA device memory, pinned host memory and, in the
 * unit tests, a simulated device (sim_device.h). The file depends on nothing
 * but nabla.h (for nb_status) and pthreads: tests compile it directly.
 *
 * Policy (PyTorch's): sizes round up to 512 bytes; requests up to 1 MiB come
 * from 2 MiB segments (the small pool), larger ones from 20 MiB segments (the
 * large pool), and requests above 10 MiB get a segment of their own rounded up
 * to 2 MiB. Each stream has its own pair of pools; a block is found by best fit
 * (smallest size, then lowest address), split when the rest is worth keeping and
 * coalesced with free neighbours when freed. A block used on another stream
 * (nb_ca_record_stream) is reused only after events recorded on those streams at
 * free time have completed. */
#ifndef NABLA_CACHING_ALLOCATOR_H_
#define NABLA_CACHING_ALLOCATOR_H_

#include "nabla.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NB_CA_HIDDEN __attribute__((visibility("hidden")))

#define NB_CA_ROUND ((int64_t)512)
#define NB_CA_SMALL_SIZE ((int64_t)1 << 20)       /* largest request of the small pool */
#define NB_CA_SMALL_SEGMENT ((int64_t)2 << 20)
#define NB_CA_LARGE_SEGMENT ((int64_t)20 << 20)
#define NB_CA_MIN_LARGE_ALLOC ((int64_t)10 << 20) /* above this, a segment of its own */
#define NB_CA_ROUND_LARGE ((int64_t)2 << 20)

/* What the allocator needs from a device. Calls are made with the allocator's
 * lock held. Streams and events are the device's native handles. */
typedef struct nb_ca_device {
    void* ctx;
    /* NB_OK, NB_ERR_OUT_OF_MEMORY when the device is full, or another error. */
    nb_status (*raw_alloc)(void* ctx, int64_t nbytes, void** out);
    void (*raw_free)(void* ctx, void* ptr, int64_t nbytes);
    nb_status (*event_create)(void* ctx, void** out);
    void (*event_destroy)(void* ctx, void* event);
    nb_status (*event_record)(void* ctx, void* event, void* stream);
    /* 1 when the work before the event is done, 0 when pending, < 0 on error. */
    int (*event_query)(void* ctx, void* event);
    nb_status (*event_synchronize)(void* ctx, void* event);
    /* Why the last call on this thread failed (may be NULL). */
    const char* (*last_error)(void* ctx);
    /* 0: nb_ca_record_stream notes the stream and the event is recorded when the
     * block is freed (device memory, PyTorch's record_stream). 1: the event is
     * recorded at once (pinned host memory: each copy is one use, and the stream
     * handle need not outlive the call). */
    int record_at_use;
} nb_ca_device;

typedef struct nb_ca nb_ca;

/* Counters; "current" values with their peaks since creation or nb_ca_reset_peak.
 * allocated: blocks handed out; active: allocated + freed blocks still awaiting
 * events; reserved: segments obtained from the device; inactive_split: free bytes
 * in segments that also hold other blocks (fragmentation). */
typedef struct nb_ca_stats {
    int64_t allocated_bytes, peak_allocated_bytes;
    int64_t requested_bytes, peak_requested_bytes; /* what callers asked for, before rounding */
    int64_t active_bytes, peak_active_bytes;
    int64_t reserved_bytes, peak_reserved_bytes;
    int64_t inactive_split_bytes;
    int64_t allocated_blocks, active_blocks, segments, peak_segments;
    int64_t alloc_count, free_count;
    int64_t alloc_retries, oom_count;
    int64_t raw_alloc_count, raw_free_count;
    int64_t pending_events;
} nb_ca_stats;

/* name (e.g. "cuda:0") prefixes messages; the device struct is copied. NULL when
 * out of host memory. */
NB_CA_HIDDEN nb_ca* nb_ca_create(const nb_ca_device* dev, const char* name);
/* Waits for pending events and returns every segment to the device, live blocks included. */
NB_CA_HIDDEN void nb_ca_destroy(nb_ca* a);

/* A block of at least nbytes (>= 0) for use on stream. On failure *out is untouched
 * and msg holds the reason (for out of memory: the allocated / reserved /
 * fragmented breakdown and the largest free block). */
NB_CA_HIDDEN nb_status nb_ca_malloc(nb_ca* a, int64_t nbytes, void* stream, void** out, char* msg,
                                    size_t msg_cap);
/* Returns a block; false when ptr is not a live block of this allocator. */
NB_CA_HIDDEN int nb_ca_free(nb_ca* a, void* ptr);
/* ptr's block is used on stream too: a later free waits for that work. 0 when ptr is unknown. */
NB_CA_HIDDEN int nb_ca_record_stream(nb_ca* a, void* ptr, void* stream);
/* The size of ptr's block and the stream it was allocated on; 0 when unknown. */
NB_CA_HIDDEN int nb_ca_block_info(nb_ca* a, void* ptr, int64_t* size, void** stream);

/* Waits for pending events, then returns every fully free segment to the device. */
NB_CA_HIDDEN void nb_ca_empty_cache(nb_ca* a);
NB_CA_HIDDEN void nb_ca_get_stats(nb_ca* a, nb_ca_stats* out);
NB_CA_HIDDEN void nb_ca_reset_peak(nb_ca* a);
/* Largest free cached block (0 if none). */
NB_CA_HIDDEN int64_t nb_ca_largest_free(nb_ca* a);

/* Segments and blocks as JSON (PyTorch's snapshot field names) into buf (NUL-terminated
 * when cap > 0); returns the length the full text needs, excluding the NUL. */
NB_CA_HIDDEN int64_t nb_ca_snapshot_json(nb_ca* a, char* buf, int64_t cap);

/* Checks every internal invariant (blocks tile their segments, free neighbours are
 * coalesced, pools hold exactly the free blocks, statistics match a recount);
 * returns 1, or 0 with the first violation in msg. */
NB_CA_HIDDEN int nb_ca_check(nb_ca* a, char* msg, size_t msg_cap);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_CACHING_ALLOCATOR_H_ */
