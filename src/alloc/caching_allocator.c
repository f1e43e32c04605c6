/* caching_allocator.c: the stream-aware caching allocator (policy in the header).
 *
 * Data structures, all under one mutex per allocator (one per device):
 *   segment   memory obtained from the device; its blocks tile it in address order
 *             (block.prev/next);
 *   pool      the free blocks of one stream and one size class, in a treap keyed
 *             by (size, address), so best fit is one descent;
 *   live map  open-addressing hash from address to allocated block, so free() and
 *             record_stream() need only the pointer;
 *   pending   (event, block) pairs for blocks freed after use on other streams;
 *             queried at the next malloc, each block returning to its pool when
 *             its last event completes. Nothing ever waits for the whole device. */
#include "caching_allocator.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct segment segment;
typedef struct pool pool;

typedef struct block {
    char* ptr;
    int64_t size;
    int64_t requested;          /* bytes asked for (allocated blocks) */
    segment* seg;
    pool* pool;
    struct block *prev, *next;  /* neighbours in the segment */
    struct block *left, *right; /* treap links while in the pool */
    uint32_t prio;
    bool allocated;
    bool in_pool;
    bool leaked;                /* an event could not be recorded: never reused */
    int32_t event_count;        /* events that must complete before reuse */
    int32_t nuses, uses_cap;    /* other streams it was used on */
    void** uses;
    void* uses_inline[2];
} block;

struct pool {
    block* root;
    int64_t count;
    bool small;
    void* stream;
};

typedef struct stream_pools {
    void* stream;
    pool small, large;
} stream_pools;

struct segment {
    char* base;
    int64_t size;
    void* stream;
    bool small;
    block* head;
    segment *prev, *next;
};

typedef struct pending {
    void* event;
    block* b;
} pending;

struct nb_ca {
    pthread_mutex_t lock;
    nb_ca_device dev;
    char name[32];
    stream_pools** streams;
    int32_t nstreams, streams_cap;
    stream_pools* last;
    segment* segments;          /* doubly linked, newest first */
    block** live;               /* hash table of allocated blocks */
    size_t live_cap, live_count;
    pending* pend;
    int32_t npend, pend_cap;
    void** spare_events;
    int32_t nspare_events, spare_events_cap;
    block* spare_blocks;        /* recycled block structs, linked through next */
    nb_ca_stats stats;
};

/* ---- small helpers ---- */

static int64_t round_size(int64_t n) {
    return n < NB_CA_ROUND ? NB_CA_ROUND : (n + NB_CA_ROUND - 1) / NB_CA_ROUND * NB_CA_ROUND;
}

static int64_t segment_size(int64_t size) {
    if (size <= NB_CA_SMALL_SIZE) return NB_CA_SMALL_SEGMENT;
    if (size < NB_CA_MIN_LARGE_ALLOC) return NB_CA_LARGE_SEGMENT;
    return (size + NB_CA_ROUND_LARGE - 1) / NB_CA_ROUND_LARGE * NB_CA_ROUND_LARGE;
}

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

static void fmt_bytes(char* out, size_t cap, int64_t n) {
    static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024.0 && u < 4) v /= 1024.0, u++;
    if (u == 0) snprintf(out, cap, "%lld bytes", (long long)n);
    else snprintf(out, cap, "%.2f %s", v, units[u]);
}

static void set_msg(char* msg, size_t cap, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char* msg, size_t cap, const char* fmt, ...) {
    if (msg == NULL || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, cap, fmt, ap);
    va_end(ap);
}

static void bump(int64_t* cur, int64_t* peak, int64_t delta) {
    *cur += delta;
    if (*cur > *peak) *peak = *cur;
}

/* ---- block structs ---- */

static block* block_new(nb_ca* a) {
    block* b = a->spare_blocks;
    if (b != NULL) a->spare_blocks = b->next;
    else if ((b = malloc(sizeof *b)) == NULL) return NULL;
    memset(b, 0, sizeof *b);
    b->uses = b->uses_inline;
    b->uses_cap = 2;
    return b;
}

static void block_recycle(nb_ca* a, block* b) {
    if (b->uses != b->uses_inline) free(b->uses);
    b->next = a->spare_blocks;
    a->spare_blocks = b;
}

/* ---- pools: treaps keyed by (size, address) ---- */

static bool key_less(const block* x, const block* y) {
    return x->size < y->size || (x->size == y->size && x->ptr < y->ptr);
}

/* Splits t into keys < b (l) and keys > b (r); b itself is not in t. */
static void treap_split(block* t, const block* b, block** l, block** r) {
    while (t != NULL) {
        if (key_less(t, b)) {
            *l = t;
            l = &t->right;
            t = t->right;
        } else {
            *r = t;
            r = &t->left;
            t = t->left;
        }
    }
    *l = *r = NULL;
}

static block* treap_merge(block* l, block* r) {
    block* root = NULL;
    block** link = &root;
    while (l != NULL && r != NULL) {
        if (l->prio > r->prio) {
            *link = l;
            link = &l->right;
            l = l->right;
        } else {
            *link = r;
            link = &r->left;
            r = r->left;
        }
    }
    *link = l != NULL ? l : r;
    return root;
}

static void pool_insert(pool* p, block* b) {
    b->prio = (uint32_t)mix((uint64_t)(uintptr_t)b->ptr);
    block** link = &p->root;
    while (*link != NULL && (*link)->prio > b->prio) link = key_less(b, *link) ? &(*link)->left : &(*link)->right;
    treap_split(*link, b, &b->left, &b->right);
    *link = b;
    b->pool = p;
    b->in_pool = true;
    p->count++;
}

static void pool_remove(pool* p, block* b) {
    block** link = &p->root;
    while (*link != b) link = key_less(b, *link) ? &(*link)->left : &(*link)->right;
    *link = treap_merge(b->left, b->right);
    b->left = b->right = NULL;
    b->in_pool = false;
    p->count--;
}

/* Best fit: the smallest block of at least size, lowest address among equals. */
static block* pool_best_fit(pool* p, int64_t size) {
    block *best = NULL, *t = p->root;
    while (t != NULL) {
        if (t->size >= size) {
            best = t;
            t = t->left;
        } else {
            t = t->right;
        }
    }
    return best;
}

/* ---- the live map (address -> allocated block) ---- */

static size_t live_slot(const void* p, size_t mask) { return (size_t)mix((uint64_t)(uintptr_t)p) & mask; }

static bool live_grow(nb_ca* a) {
    size_t cap = a->live_cap ? a->live_cap * 2 : 256;
    block** slots = calloc(cap, sizeof *slots);
    if (slots == NULL) return false;
    for (size_t i = 0; i < a->live_cap; i++) {
        block* b = a->live[i];
        if (b == NULL) continue;
        size_t j = live_slot(b->ptr, cap - 1);
        while (slots[j] != NULL) j = (j + 1) & (cap - 1);
        slots[j] = b;
    }
    free(a->live);
    a->live = slots;
    a->live_cap = cap;
    return true;
}

static bool live_insert(nb_ca* a, block* b) {
    if ((a->live_count + 1) * 2 > a->live_cap && !live_grow(a)) return false;
    size_t mask = a->live_cap - 1, i = live_slot(b->ptr, mask);
    while (a->live[i] != NULL) i = (i + 1) & mask;
    a->live[i] = b;
    a->live_count++;
    return true;
}

static size_t live_find(const nb_ca* a, const void* ptr) {
    if (a->live_cap == 0) return SIZE_MAX;
    size_t mask = a->live_cap - 1, i = live_slot(ptr, mask);
    while (a->live[i] != NULL) {
        if (a->live[i]->ptr == ptr) return i;
        i = (i + 1) & mask;
    }
    return SIZE_MAX;
}

/* Removes slot i, shifting later entries of its probe run back (no tombstones). */
static void live_erase(nb_ca* a, size_t i) {
    size_t mask = a->live_cap - 1, j = i;
    for (;;) {
        j = (j + 1) & mask;
        block* b = a->live[j];
        if (b == NULL) break;
        size_t k = live_slot(b->ptr, mask);
        bool movable = i <= j ? (k <= i || k > j) : (k <= i && k > j);
        if (movable) {
            a->live[i] = b;
            i = j;
        }
    }
    a->live[i] = NULL;
    a->live_count--;
}

/* ---- streams ---- */

static stream_pools* pools_of(nb_ca* a, void* stream) {
    if (a->last != NULL && a->last->stream == stream) return a->last;
    for (int32_t i = 0; i < a->nstreams; i++)
        if (a->streams[i]->stream == stream) return a->last = a->streams[i];
    if (a->nstreams == a->streams_cap) {
        int32_t cap = a->streams_cap ? a->streams_cap * 2 : 4;
        stream_pools** grown = realloc(a->streams, (size_t)cap * sizeof *grown);
        if (grown == NULL) return NULL;
        a->streams = grown;
        a->streams_cap = cap;
    }
    stream_pools* sp = calloc(1, sizeof *sp);
    if (sp == NULL) return NULL;
    sp->stream = stream;
    sp->small = (pool){NULL, 0, true, stream};
    sp->large = (pool){NULL, 0, false, stream};
    a->streams[a->nstreams++] = sp;
    return a->last = sp;
}

/* ---- freeing into pools ---- */

static bool free_in_pool(const block* b) { return b != NULL && b->in_pool; }

/* A block nobody uses any more goes back to its pool, merged with free neighbours. */
static void return_block(nb_ca* a, block* b, pool* p) {
    a->stats.active_bytes -= b->size;
    a->stats.active_blocks--;
    block* prev = b->prev;
    if (free_in_pool(prev)) {
        pool_remove(p, prev);
        prev->size += b->size;
        prev->next = b->next;
        if (b->next != NULL) b->next->prev = prev;
        block_recycle(a, b);
        b = prev;
    }
    block* next = b->next;
    if (free_in_pool(next)) {
        pool_remove(p, next);
        b->size += next->size;
        b->next = next->next;
        if (next->next != NULL) next->next->prev = b;
        block_recycle(a, next);
    }
    pool_insert(p, b);
}

static void event_release(nb_ca* a, void* ev) {
    if (a->nspare_events == a->spare_events_cap) {
        int32_t cap = a->spare_events_cap ? a->spare_events_cap * 2 : 8;
        void** grown = realloc(a->spare_events, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            a->dev.event_destroy(a->dev.ctx, ev);
            return;
        }
        a->spare_events = grown;
        a->spare_events_cap = cap;
    }
    a->spare_events[a->nspare_events++] = ev;
}

/* Returns the blocks whose events have completed; with wait, waits for all of them. */
static void process_events(nb_ca* a, bool wait) {
    int32_t kept = 0;
    for (int32_t i = 0; i < a->npend; i++) {
        pending e = a->pend[i];
        bool done = wait ? (a->dev.event_synchronize(a->dev.ctx, e.event), true)
                         : a->dev.event_query(a->dev.ctx, e.event) != 0; /* an error counts as done */
        if (!done) {
            a->pend[kept++] = e;
            continue;
        }
        event_release(a, e.event);
        if (--e.b->event_count == 0 && !e.b->leaked) return_block(a, e.b, e.b->pool);
    }
    a->npend = kept;
    a->stats.pending_events = kept;
}

static bool push_pending(nb_ca* a, void* ev, block* b) {
    if (a->npend == a->pend_cap) {
        int32_t cap = a->pend_cap ? a->pend_cap * 2 : 16;
        pending* grown = realloc(a->pend, (size_t)cap * sizeof *grown);
        if (grown == NULL) return false;
        a->pend = grown;
        a->pend_cap = cap;
    }
    a->pend[a->npend++] = (pending){ev, b};
    a->stats.pending_events = a->npend;
    return true;
}

/* An event from the pool, recorded on stream; NULL when the device refuses. */
static void* record_event(nb_ca* a, void* stream) {
    void* ev = NULL;
    if (a->nspare_events > 0) ev = a->spare_events[--a->nspare_events];
    else if (a->dev.event_create(a->dev.ctx, &ev) != NB_OK) return NULL;
    if (a->dev.event_record(a->dev.ctx, ev, stream) != NB_OK) {
        event_release(a, ev);
        return NULL;
    }
    return ev;
}

/* b was used on other streams: it waits for an event on each (recorded now, or at
 * use in record_at_use mode, when uses[] holds the events). */
static void defer_free(nb_ca* a, block* b) {
    for (int32_t i = 0; i < b->nuses; i++) {
        void* ev = a->dev.record_at_use ? b->uses[i] : record_event(a, b->uses[i]);
        if (ev == NULL || !push_pending(a, ev, b)) {
            if (ev != NULL) event_release(a, ev);
            b->leaked = true;  /* no way to know when the other stream is done: never reuse */
            continue;
        }
        b->event_count++;
    }
    b->nuses = 0;
    if (b->event_count == 0 && !b->leaked) return_block(a, b, b->pool);
}

/* ---- segments ---- */

static void segment_unlink(nb_ca* a, segment* s) {
    if (s->prev != NULL) s->prev->next = s->next;
    else a->segments = s->next;
    if (s->next != NULL) s->next->prev = s->prev;
}

static void release_segment(nb_ca* a, segment* s) {
    a->dev.raw_free(a->dev.ctx, s->base, s->size);
    a->stats.raw_free_count++;
    a->stats.reserved_bytes -= s->size;
    a->stats.segments--;
    segment_unlink(a, s);
    for (block* b = s->head; b != NULL;) {
        block* next = b->next;
        block_recycle(a, b);
        b = next;
    }
    free(s);
}

/* Waits for pending frees, then gives every fully free segment back. */
static void release_cached(nb_ca* a) {
    process_events(a, true);
    segment* s = a->segments;
    while (s != NULL) {
        segment* next = s->next;
        block* h = s->head;
        if (h->in_pool && h->next == NULL) {
            pool_remove(h->pool, h);
            release_segment(a, s);
        }
        s = next;
    }
}

/* A new segment of size bytes for pool p; returns its single block, not in the pool. */
static nb_status new_segment(nb_ca* a, pool* p, int64_t size, block** out, char* msg, size_t cap) {
    void* mem = NULL;
    nb_status st = a->dev.raw_alloc(a->dev.ctx, size, &mem);
    if (st != NB_OK) return st;
    segment* s = malloc(sizeof *s);
    block* b = block_new(a);
    if (s == NULL || b == NULL) {
        free(s);
        if (b != NULL) block_recycle(a, b);
        a->dev.raw_free(a->dev.ctx, mem, size);
        set_msg(msg, cap, "%s: out of host memory for allocator bookkeeping", a->name);
        return NB_ERR_INTERNAL;
    }
    a->stats.raw_alloc_count++;
    bump(&a->stats.reserved_bytes, &a->stats.peak_reserved_bytes, size);
    bump(&a->stats.segments, &a->stats.peak_segments, 1);
    *s = (segment){(char*)mem, size, p->stream, p->small, b, NULL, a->segments};
    if (a->segments != NULL) a->segments->prev = s;
    a->segments = s;
    b->ptr = (char*)mem;
    b->size = size;
    b->seg = s;
    b->pool = p;
    *out = b;
    return NB_OK;
}

/* Free cached bytes: total, block count, largest. */
static void free_summary(nb_ca* a, int64_t* total, int64_t* count, int64_t* largest) {
    *total = *count = *largest = 0;
    for (segment* s = a->segments; s != NULL; s = s->next)
        for (block* b = s->head; b != NULL; b = b->next)
            if (b->in_pool) {
                *total += b->size;
                (*count)++;
                if (b->size > *largest) *largest = b->size;
            }
}

static void oom_message(nb_ca* a, int64_t nbytes, int64_t seg, char* msg, size_t cap) {
    int64_t free_total, free_count, largest;
    free_summary(a, &free_total, &free_count, &largest);
    char req[32], alloc[32], res[32], frag[32], big[32], wait[32], segs[32];
    fmt_bytes(req, sizeof req, nbytes);
    fmt_bytes(alloc, sizeof alloc, a->stats.allocated_bytes);
    fmt_bytes(res, sizeof res, a->stats.reserved_bytes);
    fmt_bytes(frag, sizeof frag, free_total);
    fmt_bytes(big, sizeof big, largest);
    fmt_bytes(wait, sizeof wait, a->stats.active_bytes - a->stats.allocated_bytes);
    fmt_bytes(segs, sizeof segs, seg);
    const char* why = a->dev.last_error != NULL ? a->dev.last_error(a->dev.ctx) : NULL;
    set_msg(msg, cap,
            "%s out of memory: tried to allocate %s; %s allocated, %s reserved, of which %s is free but "
            "fragmented over %lld block%s (largest free block %s) and %s is waiting on other streams; the "
            "device refused a new %s segment after the cache was emptied%s%s",
            a->name, req, alloc, res, frag, (long long)free_count, free_count == 1 ? "" : "s", big, wait,
            segs, why && why[0] ? ": " : "", why ? why : "");
}

/* ---- public entry points ---- */

nb_ca* nb_ca_create(const nb_ca_device* dev, const char* name) {
    nb_ca* a = calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    pthread_mutex_init(&a->lock, NULL);
    a->dev = *dev;
    snprintf(a->name, sizeof a->name, "%s", name ? name : "device");
    return a;
}

void nb_ca_destroy(nb_ca* a) {
    if (a == NULL) return;
    process_events(a, true);
    for (segment* s = a->segments; s != NULL && a->dev.record_at_use; s = s->next)
        for (block* b = s->head; b != NULL; b = b->next)  /* live blocks' use events */
            for (int32_t i = 0; i < b->nuses; i++) a->dev.event_destroy(a->dev.ctx, b->uses[i]);
    while (a->segments != NULL) release_segment(a, a->segments);  /* block structs go with them */
    for (int32_t i = 0; i < a->nspare_events; i++) a->dev.event_destroy(a->dev.ctx, a->spare_events[i]);
    while (a->spare_blocks != NULL) {
        block* b = a->spare_blocks;
        a->spare_blocks = b->next;
        free(b);
    }
    for (int32_t i = 0; i < a->nstreams; i++) free(a->streams[i]);
    free(a->streams);
    free(a->live);
    free(a->pend);
    free(a->spare_events);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

nb_status nb_ca_malloc(nb_ca* a, int64_t nbytes, void* stream, void** out, char* msg, size_t cap) {
    if (nbytes < 0) {
        set_msg(msg, cap, "%s: negative allocation size %lld", a->name, (long long)nbytes);
        return NB_ERR_INVALID_ARGUMENT;
    }
    if (nbytes > INT64_MAX / 2) {
        char req[32];
        fmt_bytes(req, sizeof req, nbytes);
        set_msg(msg, cap, "%s out of memory: tried to allocate %s", a->name, req);
        return NB_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&a->lock);
    if (a->npend > 0) process_events(a, false);
    const int64_t size = round_size(nbytes);
    stream_pools* sp = pools_of(a, stream);
    if (sp == NULL) {
        pthread_mutex_unlock(&a->lock);
        set_msg(msg, cap, "%s: out of host memory for allocator bookkeeping", a->name);
        return NB_ERR_OUT_OF_MEMORY;
    }
    pool* p = size <= NB_CA_SMALL_SIZE ? &sp->small : &sp->large;
    block* b = pool_best_fit(p, size);
    nb_status st = NB_OK;
    if (b != NULL) {
        pool_remove(p, b);
    } else {
        const int64_t seg = segment_size(size);
        st = new_segment(a, p, seg, &b, msg, cap);
        if (st == NB_ERR_OUT_OF_MEMORY) {  /* give cached segments back and try once more */
            a->stats.alloc_retries++;
            release_cached(a);
            st = new_segment(a, p, seg, &b, msg, cap);
        }
        if (st != NB_OK) {
            if (st == NB_ERR_OUT_OF_MEMORY) {
                a->stats.oom_count++;
                oom_message(a, nbytes, seg, msg, cap);
            } else if (st != NB_ERR_INTERNAL) {
                const char* why = a->dev.last_error != NULL ? a->dev.last_error(a->dev.ctx) : NULL;
                set_msg(msg, cap, "%s: the device failed to allocate memory: %s", a->name, why ? why : "unknown error");
            }
            pthread_mutex_unlock(&a->lock);
            return st;
        }
    }
    const int64_t rest = b->size - size;
    if (p->small ? rest >= NB_CA_ROUND : rest > NB_CA_SMALL_SIZE) {
        block* r = block_new(a);
        if (r != NULL) {  /* without a struct for the rest, hand out the whole block */
            r->ptr = b->ptr + size;
            r->size = rest;
            r->seg = b->seg;
            r->prev = b;
            r->next = b->next;
            if (b->next != NULL) b->next->prev = r;
            b->next = r;
            b->size = size;
            pool_insert(p, r);
        }
    }
    if (!live_insert(a, b)) {
        a->stats.active_bytes += b->size, a->stats.active_blocks++;
        return_block(a, b, p);  /* back to the pool, merged with the split rest */
        pthread_mutex_unlock(&a->lock);
        set_msg(msg, cap, "%s: out of host memory for allocator bookkeeping", a->name);
        return NB_ERR_OUT_OF_MEMORY;
    }
    b->allocated = true;
    b->requested = nbytes;
    b->pool = p;
    bump(&a->stats.allocated_bytes, &a->stats.peak_allocated_bytes, b->size);
    bump(&a->stats.requested_bytes, &a->stats.peak_requested_bytes, nbytes);
    bump(&a->stats.active_bytes, &a->stats.peak_active_bytes, b->size);
    a->stats.allocated_blocks++;
    a->stats.active_blocks++;
    a->stats.alloc_count++;
    *out = b->ptr;
    pthread_mutex_unlock(&a->lock);
    return NB_OK;
}

int nb_ca_free(nb_ca* a, void* ptr) {
    if (ptr == NULL) return 0;
    pthread_mutex_lock(&a->lock);
    size_t i = live_find(a, ptr);
    if (i == SIZE_MAX) {
        pthread_mutex_unlock(&a->lock);
        return 0;
    }
    block* b = a->live[i];
    live_erase(a, i);
    b->allocated = false;
    a->stats.allocated_bytes -= b->size;
    a->stats.requested_bytes -= b->requested;
    a->stats.allocated_blocks--;
    a->stats.free_count++;
    if (b->nuses > 0 || b->leaked) defer_free(a, b);
    else return_block(a, b, b->pool);
    pthread_mutex_unlock(&a->lock);
    return 1;
}

int nb_ca_record_stream(nb_ca* a, void* ptr, void* stream) {
    pthread_mutex_lock(&a->lock);
    size_t i = live_find(a, ptr);
    int ok = i != SIZE_MAX;
    if (ok) {
        block* b = a->live[i];
        bool known = !a->dev.record_at_use && stream == b->seg->stream;
        for (int32_t k = 0; k < b->nuses && !known && !a->dev.record_at_use; k++) known = b->uses[k] == stream;
        if (!known && b->nuses == b->uses_cap) {
            int32_t ncap = b->uses_cap * 2;
            void** grown = malloc((size_t)ncap * sizeof *grown);
            if (grown == NULL) {
                ok = 0;
            } else {
                memcpy(grown, b->uses, (size_t)b->nuses * sizeof *grown);
                if (b->uses != b->uses_inline) free(b->uses);
                b->uses = grown;
                b->uses_cap = ncap;
            }
        }
        if (!known && ok) {
            void* entry = stream;
            if (a->dev.record_at_use && (entry = record_event(a, stream)) == NULL) {
                b->leaked = true;  /* freed later, never reused */
                ok = 0;
            }
            if (entry != NULL) b->uses[b->nuses++] = entry;
        }
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
}

int nb_ca_block_info(nb_ca* a, void* ptr, int64_t* size, void** stream) {
    pthread_mutex_lock(&a->lock);
    size_t i = live_find(a, ptr);
    if (i != SIZE_MAX) {
        if (size != NULL) *size = a->live[i]->size;
        if (stream != NULL) *stream = a->live[i]->seg->stream;
    }
    pthread_mutex_unlock(&a->lock);
    return i != SIZE_MAX;
}

void nb_ca_empty_cache(nb_ca* a) {
    pthread_mutex_lock(&a->lock);
    release_cached(a);
    pthread_mutex_unlock(&a->lock);
}

static int64_t inactive_split(const nb_ca* a) {
    int64_t n = 0;
    for (segment* s = a->segments; s != NULL; s = s->next)
        if (s->head->next != NULL)
            for (block* b = s->head; b != NULL; b = b->next)
                if (b->in_pool) n += b->size;
    return n;
}

void nb_ca_get_stats(nb_ca* a, nb_ca_stats* out) {
    pthread_mutex_lock(&a->lock);
    *out = a->stats;
    out->inactive_split_bytes = inactive_split(a);
    pthread_mutex_unlock(&a->lock);
}

void nb_ca_reset_peak(nb_ca* a) {
    pthread_mutex_lock(&a->lock);
    nb_ca_stats* s = &a->stats;
    s->peak_allocated_bytes = s->allocated_bytes;
    s->peak_requested_bytes = s->requested_bytes;
    s->peak_active_bytes = s->active_bytes;
    s->peak_reserved_bytes = s->reserved_bytes;
    s->peak_segments = s->segments;
    pthread_mutex_unlock(&a->lock);
}

int64_t nb_ca_largest_free(nb_ca* a) {
    int64_t total, count, largest;
    pthread_mutex_lock(&a->lock);
    free_summary(a, &total, &count, &largest);
    pthread_mutex_unlock(&a->lock);
    return largest;
}

/* ---- snapshot ---- */

typedef struct {
    char* buf;
    int64_t cap, len;
} jbuf;

static void jput(jbuf* j, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void jput(jbuf* j, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int64_t room = j->len < j->cap ? j->cap - j->len : 0;
    int n = vsnprintf(room > 0 ? j->buf + j->len : NULL, (size_t)room, fmt, ap);
    va_end(ap);
    if (n > 0) j->len += n;
}

static int cmp_segment(const void* x, const void* y) {
    const segment *s = *(segment* const*)x, *t = *(segment* const*)y;
    return s->base < t->base ? -1 : s->base > t->base;
}

/* Segments sorted by address (NULL when out of host memory); *n gets the count. */
static segment** sorted_segments(const nb_ca* a, int64_t* n) {
    int64_t count = 0;
    for (segment* s = a->segments; s != NULL; s = s->next) count++;
    segment** v = malloc((size_t)(count ? count : 1) * sizeof *v);
    if (v == NULL) return NULL;
    count = 0;
    for (segment* s = a->segments; s != NULL; s = s->next) v[count++] = s;
    qsort(v, (size_t)count, sizeof *v, cmp_segment);
    *n = count;
    return v;
}

static const char* block_state(const block* b) {
    if (b->allocated) return "active_allocated";
    if (b->in_pool) return "inactive";
    return "active_pending_free";
}

int64_t nb_ca_snapshot_json(nb_ca* a, char* buf, int64_t cap) {
    jbuf j = {buf, cap, 0};
    pthread_mutex_lock(&a->lock);
    nb_ca_stats st = a->stats;
    st.inactive_split_bytes = inactive_split(a);
    int64_t free_total, free_count, largest;
    free_summary(a, &free_total, &free_count, &largest);
    jput(&j, "{\"device\": \"%s\", \"stats\": {\"allocated_bytes\": %lld, \"reserved_bytes\": %lld, "
             "\"active_bytes\": %lld, \"inactive_split_bytes\": %lld, \"largest_free_block\": %lld, "
             "\"segments\": %lld, \"raw_alloc_count\": %lld, \"raw_free_count\": %lld}, \"segments\": [",
         a->name, (long long)st.allocated_bytes, (long long)st.reserved_bytes, (long long)st.active_bytes,
         (long long)st.inactive_split_bytes, (long long)largest, (long long)st.segments,
         (long long)st.raw_alloc_count, (long long)st.raw_free_count);
    int64_t n = 0;
    segment** segs = sorted_segments(a, &n);
    for (int64_t i = 0; segs != NULL && i < n; i++) {
        segment* s = segs[i];
        int64_t allocated = 0, active = 0, requested = 0;
        for (block* b = s->head; b != NULL; b = b->next) {
            if (b->allocated) allocated += b->size, requested += b->requested;
            if (!b->in_pool) active += b->size;
        }
        jput(&j, "%s\n  {\"address\": %llu, \"total_size\": %lld, \"stream\": %llu, \"segment_type\": \"%s\", "
                 "\"allocated_size\": %lld, \"active_size\": %lld, \"requested_size\": %lld, \"blocks\": [",
             i ? "," : "", (unsigned long long)(uintptr_t)s->base, (long long)s->size,
             (unsigned long long)(uintptr_t)s->stream, s->small ? "small" : "large", (long long)allocated,
             (long long)active, (long long)requested);
        for (block* b = s->head; b != NULL; b = b->next)
            jput(&j, "%s{\"address\": %llu, \"size\": %lld, \"requested_size\": %lld, \"state\": \"%s\"}",
                 b == s->head ? "" : ", ", (unsigned long long)(uintptr_t)b->ptr, (long long)b->size,
                 (long long)(b->allocated ? b->requested : 0), block_state(b));
        jput(&j, "]}");
    }
    free(segs);
    jput(&j, "\n]}\n");
    pthread_mutex_unlock(&a->lock);
    return j.len;
}

/* ---- invariants (for tests) ---- */

#define FAIL(...) do { set_msg(msg, cap, __VA_ARGS__); return 0; } while (0)

/* In-order walk of a treap: keys strictly increase, priorities form a heap,
 * every node belongs to p; counts the nodes. */
static int check_treap(const block* t, const pool* p, const block** prev, int64_t* count, char* msg, size_t cap) {
    if (t == NULL) return 1;
    if ((t->left && t->left->prio > t->prio) || (t->right && t->right->prio > t->prio))
        FAIL("treap heap order broken at %p", (void*)t->ptr);
    if (!check_treap(t->left, p, prev, count, msg, cap)) return 0;
    if (*prev != NULL && !key_less(*prev, t)) FAIL("pool order broken at %p", (void*)t->ptr);
    if (!t->in_pool || t->pool != p || t->allocated || t->event_count != 0)
        FAIL("block %p in a pool is not a plain free block of that pool", (void*)t->ptr);
    if (t->seg->small != p->small || t->seg->stream != p->stream)
        FAIL("block %p sits in another stream's or size class's pool", (void*)t->ptr);
    *prev = t;
    (*count)++;
    return check_treap(t->right, p, prev, count, msg, cap);
}

static int check_locked(nb_ca* a, char* msg, size_t cap) {
    int64_t allocated = 0, allocated_blocks = 0, active = 0, active_blocks = 0, reserved = 0, nsegs = 0;
    int64_t requested = 0, free_blocks = 0, waiting = 0;
    for (segment* s = a->segments; s != NULL; s = s->next) {
        nsegs++;
        reserved += s->size;
        if (s->next != NULL && s->next->prev != s) FAIL("segment list links broken");
        char* at = s->base;
        if (s->head == NULL || s->head->prev != NULL) FAIL("segment %p has a bad first block", (void*)s->base);
        for (block* b = s->head; b != NULL; b = b->next) {
            if (b->ptr != at) FAIL("block %p does not follow its neighbour (gap or overlap)", (void*)b->ptr);
            if (b->size <= 0 || b->size % NB_CA_ROUND != 0) FAIL("block %p has size %lld", (void*)b->ptr, (long long)b->size);
            if (b->seg != s) FAIL("block %p points at another segment", (void*)b->ptr);
            if (b->next != NULL && b->next->prev != b) FAIL("block links broken after %p", (void*)b->ptr);
            if (b->in_pool && b->next != NULL && b->next->in_pool)
                FAIL("free neighbours %p and %p are not coalesced", (void*)b->ptr, (void*)b->next->ptr);
            int states = (int)b->allocated + (int)b->in_pool + (int)(b->event_count > 0 || b->leaked);
            if (states != 1 && !(b->allocated && b->leaked))
                FAIL("block %p is in %d states at once", (void*)b->ptr, states);
            if (b->allocated) {
                size_t i = live_find(a, b->ptr);
                if (i == SIZE_MAX || a->live[i] != b) FAIL("allocated block %p is missing from the live map", (void*)b->ptr);
                if (b->requested > b->size) FAIL("block %p is smaller than its request", (void*)b->ptr);
                allocated += b->size, requested += b->requested, allocated_blocks++;
            }
            if (!b->in_pool) active += b->size, active_blocks++;
            else free_blocks++;
            if (!b->allocated && !b->in_pool) waiting += b->event_count;
            at += b->size;
        }
        if (at != s->base + s->size) FAIL("blocks of segment %p do not add up to its size", (void*)s->base);
    }
    int64_t nseg_sorted = 0;
    segment** v = sorted_segments(a, &nseg_sorted);
    for (int64_t i = 1; v != NULL && i < nseg_sorted; i++)
        if (v[i - 1]->base + v[i - 1]->size > v[i]->base) {
            free(v);
            FAIL("segments overlap");
        }
    free(v);
    int64_t pooled = 0;
    for (int32_t i = 0; i < a->nstreams; i++) {
        const pool* ps[2] = {&a->streams[i]->small, &a->streams[i]->large};
        for (int k = 0; k < 2; k++) {
            const block* prev = NULL;
            int64_t n = 0;
            if (!check_treap(ps[k]->root, ps[k], &prev, &n, msg, cap)) return 0;
            if (n != ps[k]->count) FAIL("pool count %lld but %lld blocks", (long long)ps[k]->count, (long long)n);
            pooled += n;
        }
    }
    const nb_ca_stats* st = &a->stats;
    if (pooled != free_blocks) FAIL("%lld free blocks but %lld in pools", (long long)free_blocks, (long long)pooled);
    if (waiting != a->npend) FAIL("%lld event waits but %d pending events", (long long)waiting, (int)a->npend);
    if ((int64_t)a->live_count != allocated_blocks) FAIL("live map holds %zu blocks, segments %lld", a->live_count, (long long)allocated_blocks);
    if (st->allocated_bytes != allocated || st->allocated_blocks != allocated_blocks)
        FAIL("allocated stats %lld/%lld, recount %lld/%lld", (long long)st->allocated_bytes,
             (long long)st->allocated_blocks, (long long)allocated, (long long)allocated_blocks);
    if (st->requested_bytes != requested) FAIL("requested stats %lld, recount %lld", (long long)st->requested_bytes, (long long)requested);
    if (st->active_bytes != active || st->active_blocks != active_blocks)
        FAIL("active stats %lld/%lld, recount %lld/%lld", (long long)st->active_bytes, (long long)st->active_blocks,
             (long long)active, (long long)active_blocks);
    if (st->reserved_bytes != reserved || st->segments != nsegs)
        FAIL("reserved stats %lld in %lld segments, recount %lld in %lld", (long long)st->reserved_bytes,
             (long long)st->segments, (long long)reserved, (long long)nsegs);
    if (st->peak_allocated_bytes < st->allocated_bytes || st->peak_reserved_bytes < st->reserved_bytes ||
        st->peak_active_bytes < st->active_bytes || st->allocated_bytes > st->active_bytes ||
        st->active_bytes > st->reserved_bytes)
        FAIL("statistics out of order (peaks, allocated <= active <= reserved)");
    if (st->raw_alloc_count - st->raw_free_count != nsegs) FAIL("raw allocation counts do not match the segments");
    return 1;
}

int nb_ca_check(nb_ca* a, char* msg, size_t cap) {
    pthread_mutex_lock(&a->lock);
    int ok = check_locked(a, msg, cap);
    pthread_mutex_unlock(&a->lock);
    return ok;
}
