/* sim_device.c: the simulated device behind the caching allocator's tests. */
#include "sim_device.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define SIM_BASE ((uintptr_t)1 << 40) /* fake addresses, never dereferenced */
#define SIM_ALIGN ((uintptr_t)2 << 20)

typedef struct sim_stream {
    int64_t queued, done;  /* work items submitted and finished */
} sim_stream;

typedef struct sim_event {
    int stream;            /* -1 until recorded */
    int64_t ticket;        /* work items before it on that stream */
} sim_event;

struct nb_sim_device {
    pthread_mutex_t lock;  /* the allocator serialises its calls, but tests drive streams from other threads */
    int64_t capacity;
    uintptr_t next_addr;
    int fail_next;
    sim_stream streams[NB_SIM_MAX_STREAMS];
    nb_sim_counts counts;
};

static _Thread_local char sim_error[128];

static int stream_index(const void* stream) {
    /* handles are 1-based so that stream 0's handle is not NULL */
    intptr_t i = (intptr_t)(uintptr_t)stream - 1;
    return i >= 0 && i < NB_SIM_MAX_STREAMS ? (int)i : -1;
}

static nb_status sim_raw_alloc(void* ctx, int64_t nbytes, void** out) {
    nb_sim_device* sim = ctx;
    pthread_mutex_lock(&sim->lock);
    nb_status st = NB_OK;
    if (sim->fail_next > 0 || sim->counts.in_use_bytes + nbytes > sim->capacity) {
        if (sim->fail_next > 0) sim->fail_next--;
        sim->counts.raw_alloc_failed++;
        snprintf(sim_error, sizeof sim_error, "simulated device: %lld of %lld bytes in use",
                 (long long)sim->counts.in_use_bytes, (long long)sim->capacity);
        st = NB_ERR_OUT_OF_MEMORY;
    } else {
        *out = (void*)sim->next_addr;
        sim->next_addr += ((uintptr_t)nbytes + SIM_ALIGN - 1) / SIM_ALIGN * SIM_ALIGN;
        sim->counts.in_use_bytes += nbytes;
        sim->counts.raw_alloc++;
    }
    pthread_mutex_unlock(&sim->lock);
    return st;
}

static void sim_raw_free(void* ctx, void* ptr, int64_t nbytes) {
    nb_sim_device* sim = ctx;
    (void)ptr;
    pthread_mutex_lock(&sim->lock);
    sim->counts.in_use_bytes -= nbytes;
    sim->counts.raw_free++;
    pthread_mutex_unlock(&sim->lock);
}

static nb_status sim_event_create(void* ctx, void** out) {
    nb_sim_device* sim = ctx;
    sim_event* e = malloc(sizeof *e);
    if (e == NULL) return NB_ERR_OUT_OF_MEMORY;
    e->stream = -1;
    e->ticket = 0;
    pthread_mutex_lock(&sim->lock);
    sim->counts.event_create++;
    pthread_mutex_unlock(&sim->lock);
    *out = e;
    return NB_OK;
}

static void sim_event_destroy(void* ctx, void* event) {
    nb_sim_device* sim = ctx;
    pthread_mutex_lock(&sim->lock);
    sim->counts.event_destroy++;
    pthread_mutex_unlock(&sim->lock);
    free(event);
}

static nb_status sim_event_record(void* ctx, void* event, void* stream) {
    nb_sim_device* sim = ctx;
    int i = stream_index(stream);
    if (i < 0) {
        snprintf(sim_error, sizeof sim_error, "simulated device: unknown stream %p", stream);
        return NB_ERR_BACKEND;
    }
    sim_event* e = event;
    pthread_mutex_lock(&sim->lock);
    e->stream = i;
    e->ticket = sim->streams[i].queued;
    sim->counts.event_record++;
    pthread_mutex_unlock(&sim->lock);
    return NB_OK;
}

static int sim_event_query(void* ctx, void* event) {
    nb_sim_device* sim = ctx;
    sim_event* e = event;
    pthread_mutex_lock(&sim->lock);
    sim->counts.event_query++;
    int done = e->stream < 0 || sim->streams[e->stream].done >= e->ticket;
    pthread_mutex_unlock(&sim->lock);
    return done;
}

/* Waiting on an event runs its stream up to the event. */
static nb_status sim_event_synchronize(void* ctx, void* event) {
    nb_sim_device* sim = ctx;
    sim_event* e = event;
    pthread_mutex_lock(&sim->lock);
    sim->counts.event_sync++;
    if (e->stream >= 0 && sim->streams[e->stream].done < e->ticket) sim->streams[e->stream].done = e->ticket;
    pthread_mutex_unlock(&sim->lock);
    return NB_OK;
}

static const char* sim_last_error(void* ctx) {
    (void)ctx;
    return sim_error;
}

nb_sim_device* nb_sim_create(int64_t capacity_bytes) {
    nb_sim_device* sim = calloc(1, sizeof *sim);
    if (sim == NULL) return NULL;
    pthread_mutex_init(&sim->lock, NULL);
    sim->capacity = capacity_bytes;
    sim->next_addr = SIM_BASE;
    return sim;
}

void nb_sim_destroy(nb_sim_device* sim) {
    if (sim == NULL) return;
    pthread_mutex_destroy(&sim->lock);
    free(sim);
}

nb_ca_device nb_sim_interface(nb_sim_device* sim) {
    nb_ca_device d = {sim, sim_raw_alloc, sim_raw_free, sim_event_create, sim_event_destroy,
                      sim_event_record, sim_event_query, sim_event_synchronize, sim_last_error, 0};
    return d;
}

void* nb_sim_stream(nb_sim_device* sim, int i) {
    (void)sim;
    return (void*)(uintptr_t)(i + 1);
}

void nb_sim_launch(nb_sim_device* sim, void* stream) {
    int i = stream_index(stream);
    if (i < 0) return;
    pthread_mutex_lock(&sim->lock);
    sim->streams[i].queued++;
    pthread_mutex_unlock(&sim->lock);
}

void nb_sim_complete(nb_sim_device* sim, void* stream) {
    int i = stream_index(stream);
    if (i < 0) return;
    pthread_mutex_lock(&sim->lock);
    sim->streams[i].done = sim->streams[i].queued;
    pthread_mutex_unlock(&sim->lock);
}

void nb_sim_fail_next(nb_sim_device* sim, int n) {
    pthread_mutex_lock(&sim->lock);
    sim->fail_next = n;
    pthread_mutex_unlock(&sim->lock);
}

void nb_sim_set_capacity(nb_sim_device* sim, int64_t capacity_bytes) {
    pthread_mutex_lock(&sim->lock);
    sim->capacity = capacity_bytes;
    pthread_mutex_unlock(&sim->lock);
}

nb_sim_counts nb_sim_get_counts(nb_sim_device* sim) {
    pthread_mutex_lock(&sim->lock);
    nb_sim_counts c = sim->counts;
    pthread_mutex_unlock(&sim->lock);
    return c;
}
