/* bg_thread.h: the background threads of src/distributed (the MPI progress thread, the NCCL watchdog): a
 * thread started on first use that works through a list guarded by its mutex, and stops once for good. */
#ifndef NABLA_DIST_BG_THREAD_H_
#define NABLA_DIST_BG_THREAD_H_

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    pthread_mutex_t mu;    /* guards the thread's list and the flags */
    pthread_cond_t wake;   /* the thread: work arrived or stop */
    pthread_t thread;
    bool running, stopping;
} nb_bg_thread;

#define NB_BG_THREAD_INIT {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER}

/* With t->mu held: starts the thread if needed and makes room for one more item of `size` bytes in *items
 * (n used of *cap); false when stopping or out of resources. */
static inline bool nb_bg_reserve(nb_bg_thread* t, void* (*fn)(void*), void** items, int64_t n, int64_t* cap,
                                 size_t size) {
    bool ok = !t->stopping;
    if (ok && !t->running) ok = t->running = pthread_create(&t->thread, NULL, fn, NULL) == 0;
    if (ok && n == *cap) {
        int64_t grown_cap = *cap ? 2 * *cap : 16;
        void* grown = realloc(*items, (size_t)grown_cap * size);
        if ((ok = grown != NULL)) *items = grown, *cap = grown_cap;
    }
    return ok;
}

/* The thread's body: while there are items (*n_items, guarded by t->mu), run round() with t->mu held, then
 * sleep interval_ns unlocked (none when round() returns true: more work is waiting); idle on t->wake. */
static inline void nb_bg_loop(nb_bg_thread* t, const int64_t* n_items, bool (*round)(void), long interval_ns) {
    pthread_mutex_lock(&t->mu);
    while (!t->stopping) {
        if (*n_items == 0) {
            pthread_cond_wait(&t->wake, &t->mu);
            continue;
        }
        if (round() || *n_items == 0) continue;
        pthread_mutex_unlock(&t->mu);
        nanosleep(&(struct timespec){0, interval_ns}, NULL);
        pthread_mutex_lock(&t->mu);
    }
    pthread_mutex_unlock(&t->mu);
}

/* Stops the thread for good and joins it; returns with t->mu held, for the caller to empty its list. */
static inline void nb_bg_stop(nb_bg_thread* t) {
    pthread_mutex_lock(&t->mu);
    bool joining = t->running;
    t->stopping = true;
    if (joining) pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->mu);
    if (joining) pthread_join(t->thread, NULL);
    pthread_mutex_lock(&t->mu);
    t->running = false;
}

#endif
