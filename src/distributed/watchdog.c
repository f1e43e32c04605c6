/* watchdog.c: the NCCL watchdog (PyTorch's ProcessGroupNCCL watchdog). An NCCL call returns once it is
 * queued on a stream, so a peer that never joins leaves the device waiting for good and nothing on the
 * host notices. Every queued call's event is handed to this thread, which queries it every few
 * milliseconds: a call still pending past its communicator's timeout, or an asynchronous NCCL error,
 * aborts the communicator (ncclCommAbort makes the device's waits return), and every pending and later
 * call on it fails with the stored reason. */
#include "bg_thread.h"
#include "nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define INTERVAL_NS 10000000L  /* 10 ms between rounds */

typedef struct {
    nb_comm* comm;     /* holds a reference */
    const char* op;
    nb_event* event;   /* holds a reference: recorded right after the call */
    int64_t seq;
    double start, deadline;
} entry;

static nb_bg_thread bg = NB_BG_THREAD_INIT;
static entry* items;  /* guarded by bg.mu */
static int64_t n_items, cap_items;

static void drop(int64_t i) {
    nb_event_release(items[i].event);
    nb_comm_release(items[i].comm);
    items[i] = items[--n_items];
}

static bool pending(const entry* e) {
    int32_t done = 1;
    return nb_event_query(e->event, &done) == NB_OK && !done;
}

/* Aborts c once for `why`: its calls from the first still pending on, and every later one, fail. bg.mu held. */
static nb_status abort_locked(const char* op, nb_comm* c, const char* why) {
    int64_t first = atomic_load(&c->seq) + 1;
    for (int64_t i = 0; i < n_items; i++)
        if (items[i].comm == c && items[i].seq < first && pending(&items[i])) first = items[i].seq;
    int_fast64_t none = 0;
    atomic_compare_exchange_strong(&c->failed_seq, &none, first);
    size_t len = strlen(why) + 1;
    char *copy = malloc(len), *unset = NULL;
    if (copy != NULL) memcpy(copy, why, len);
    if (copy == NULL || !atomic_compare_exchange_strong(&c->failure, &unset, copy)) free(copy);
    atomic_store(&c->broken, true);  /* refused from now on, before the handle goes */
    if (!atomic_exchange(&c->aborted, true)) nb_nccl->CommAbort(c->nccl);
    return nb_nccl_failed(op, c);
}

nb_status nb_nccl_abort(const char* op, nb_comm* c, const char* why) {
    pthread_mutex_lock(&bg.mu);
    nb_status st = abort_locked(op, c, why);
    pthread_mutex_unlock(&bg.mu);
    return st;
}

nb_status nb_nccl_failed(const char* op, const nb_comm* c) {
    const char* why = atomic_load(&((nb_comm*)c)->failure);
    return nb_error(NB_ERR_BACKEND, "%s: %s; the process group is now unusable", op,
                    why != NULL ? why : "the NCCL communicator was aborted");
}

/* One round; bg.mu held. False: sleep before the next. */
static bool check_all(void) {
    const double now = nb_monotonic_s();
    for (int64_t i = 0; i < n_items;) {
        entry* e = &items[i];
        nb_comm* c = e->comm;
        if (atomic_load(&c->aborted) || !pending(e)) {
            drop(i);
            continue;
        }
        char why[512];
        ncclResult_t err = 0;
        nb_nccl->CommGetAsyncError(c->nccl, &err);
        if (err != 0 && err != NCCL_IN_PROGRESS) {
            nb_nccl_error_text(why, sizeof why, c, err);
        } else if (now > e->deadline) {
            snprintf(why, sizeof why, "%s timed out on rank %d of %d: the NCCL watchdog found it still running after "
                     "%.1f s (timeout %g s; a rank died, hangs or called a different collective) and aborted the "
                     "communicator", e->op, c->rank, c->size, now - e->start, c->timeout_s);
        } else {
            i++;
            continue;
        }
        abort_locked(e->op, c, why);
        drop(i);
    }
    return false;
}

static void* run(void* arg) {
    (void)arg;
    nb_bg_loop(&bg, &n_items, check_all, INTERVAL_NS);
    return NULL;
}

void nb_watchdog_add(nb_comm* c, const char* op, nb_event* e, int64_t seq, double deadline) {
    pthread_mutex_lock(&bg.mu);
    if (nb_bg_reserve(&bg, run, (void**)&items, n_items, &cap_items, sizeof *items)) {  /* otherwise unwatched: the waits and the barrier still see NCCL's errors */
        nb_comm_retain(c);
        nb_event_retain(e);
        items[n_items++] = (entry){c, op, e, seq, nb_monotonic_s(), deadline};
        if (n_items == 1) pthread_cond_signal(&bg.wake);
    }
    pthread_mutex_unlock(&bg.mu);
}

void nb_watchdog_stop(void) {
    nb_bg_stop(&bg);
    while (n_items > 0) drop(n_items - 1);
    free(items);
    items = NULL, cap_items = 0;
    pthread_mutex_unlock(&bg.mu);
}
