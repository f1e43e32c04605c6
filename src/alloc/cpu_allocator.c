/* cpu_allocator.c: host memory for tensors and runtime objects.
 *
 * Sizes round up to one of four classes per power of two (at most 25% slack);
 * a freed block goes onto its class's free list, so a steady loop that frees and
 * re-creates same-sized tensors never reaches malloc. The lists hold at most
 * CACHE_LIMIT bytes; past that, blocks go straight back to the system. Every
 * block is 64-byte aligned (cache line, AVX-512). */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "cpu_allocator.h"

#include <pthread.h>
#include <stdlib.h>

#define ALIGNMENT 64
#define MIN_BLOCK 64
#define NUM_CLASSES 240
#define CACHE_LIMIT ((int64_t)1 << 29) /* 512 MiB */

typedef struct free_block { struct free_block* next; } free_block;

typedef struct {
    pthread_mutex_t lock;
    free_block* head;
} __attribute__((aligned(64))) size_class;

static size_class classes[NUM_CLASSES];
static pthread_once_t classes_once = PTHREAD_ONCE_INIT;

static atomic_int_fast64_t allocated_bytes, peak_bytes, cached_bytes;
static atomic_int_fast64_t alloc_count, free_count, system_alloc_count, system_free_count;

static void init_classes(void) {
    for (int i = 0; i < NUM_CLASSES; i++) {
        pthread_mutex_init(&classes[i].lock, NULL);
        classes[i].head = NULL;
    }
}

/* Class index and rounded size: 64, then 2^k + j * 2^(k-2) for j = 1..4. */
static int size_class_of(size_t n, size_t* rounded) {
    if (n <= MIN_BLOCK) { *rounded = MIN_BLOCK; return 0; }
    int k = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* 2^k < n <= 2^(k+1) */
    size_t step = (size_t)1 << (k - 2);
    size_t j = (n - 1 - ((size_t)1 << k)) / step;              /* 0..3 */
    *rounded = ((size_t)1 << k) + (j + 1) * step;
    return 1 + (k - 6) * 4 + (int)j;
}

static size_t class_size(int c) {
    if (c == 0) return MIN_BLOCK;
    int k = (c - 1) / 4 + 6, j = (c - 1) % 4;
    return ((size_t)1 << k) + (size_t)(j + 1) * ((size_t)1 << (k - 2));
}

static void note_alloc(int64_t size) {
    int64_t now = atomic_fetch_add_explicit(&allocated_bytes, size, memory_order_relaxed) + size;
    int64_t peak = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
    while (now > peak &&
           !atomic_compare_exchange_weak_explicit(&peak_bytes, &peak, now, memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
    atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed);
}

void* nb_cpu_alloc(size_t nbytes) {
    size_t rounded;
    int c = size_class_of(nbytes, &rounded);
    if (c >= NUM_CLASSES || rounded < nbytes) return NULL; /* beyond any real machine */
    pthread_once(&classes_once, init_classes);
    size_class* sc = &classes[c];
    pthread_mutex_lock(&sc->lock);
    free_block* b = sc->head;
    if (b != NULL) sc->head = b->next;
    pthread_mutex_unlock(&sc->lock);
    if (b != NULL) {
        atomic_fetch_sub_explicit(&cached_bytes, (int64_t)rounded, memory_order_relaxed);
    } else {
        void* p = NULL;
        if (posix_memalign(&p, ALIGNMENT, rounded) != 0) {
            nb_cpu_empty_cache(); /* give the system our cache, then try once more */
            if (posix_memalign(&p, ALIGNMENT, rounded) != 0) return NULL;
        }
        atomic_fetch_add_explicit(&system_alloc_count, 1, memory_order_relaxed);
        b = p;
    }
    note_alloc((int64_t)rounded);
    return b;
}

void nb_cpu_free(void* ptr, size_t nbytes) {
    if (ptr == NULL) return;
    size_t rounded;
    int c = size_class_of(nbytes, &rounded);
    atomic_fetch_sub_explicit(&allocated_bytes, (int64_t)rounded, memory_order_relaxed);
    atomic_fetch_add_explicit(&free_count, 1, memory_order_relaxed);
    int64_t cached = atomic_fetch_add_explicit(&cached_bytes, (int64_t)rounded, memory_order_relaxed);
    if (cached + (int64_t)rounded > CACHE_LIMIT) {
        atomic_fetch_sub_explicit(&cached_bytes, (int64_t)rounded, memory_order_relaxed);
        atomic_fetch_add_explicit(&system_free_count, 1, memory_order_relaxed);
        free(ptr);
        return;
    }
    size_class* sc = &classes[c];
    free_block* b = ptr;
    pthread_mutex_lock(&sc->lock);
    b->next = sc->head;
    sc->head = b;
    pthread_mutex_unlock(&sc->lock);
}

void nb_cpu_empty_cache(void) {
    pthread_once(&classes_once, init_classes);
    for (int c = 0; c < NUM_CLASSES; c++) {
        size_class* sc = &classes[c];
        pthread_mutex_lock(&sc->lock);
        free_block* b = sc->head;
        sc->head = NULL;
        pthread_mutex_unlock(&sc->lock);
        while (b != NULL) {
            size_t rounded = class_size(c);
            free_block* next = b->next;
            free(b);
            atomic_fetch_sub_explicit(&cached_bytes, (int64_t)rounded, memory_order_relaxed);
            atomic_fetch_add_explicit(&system_free_count, 1, memory_order_relaxed);
            b = next;
        }
    }
}

void nb_cpu_reset_peak(void) {
    atomic_store_explicit(&peak_bytes, atomic_load_explicit(&allocated_bytes, memory_order_relaxed),
                          memory_order_relaxed);
}

void nb_cpu_stats(nb_memory_stats* out) {
    out->allocated_bytes = atomic_load_explicit(&allocated_bytes, memory_order_relaxed);
    out->peak_allocated_bytes = atomic_load_explicit(&peak_bytes, memory_order_relaxed);
    out->cached_bytes = atomic_load_explicit(&cached_bytes, memory_order_relaxed);
    out->alloc_count = atomic_load_explicit(&alloc_count, memory_order_relaxed);
    out->free_count = atomic_load_explicit(&free_count, memory_order_relaxed);
    out->system_alloc_count = atomic_load_explicit(&system_alloc_count, memory_order_relaxed);
    out->system_free_count = atomic_load_explicit(&system_free_count, memory_order_relaxed);
    out->live_tensors = nb_live_tensor_count();
    out->live_storages = nb_live_storage_count();
}
