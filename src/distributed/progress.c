/* progress.c: the progress thread. MPI moves a nonblocking collective along only inside MPI calls, so
 * a bucket's all-reduce started from a gradient hook would sit idle until its wait. Asynchronous work
 * is handed to this thread, which tests every outstanding request, sleeping briefly between rounds
 * (a spinning poller would take a core from backward on a loaded machine). A waiter takes its request
 * back and polls it itself, so no request is ever tested by two threads. Results do not depend on
 * timing: the thread only calls MPI_Test. */
#include "bg_thread.h"
#include "comm.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_INTERVAL_US 50
#define BUSY_TEST_S 1e-6   /* an MPI_Test this long did work: more may be waiting */

static nb_bg_thread bg = NB_BG_THREAD_INIT;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static nb_work** items;           /* owned, outstanding work; guarded by bg.mu */
static int64_t n_items, cap_items;
static bool disabled;

static long interval_ns = DEFAULT_INTERVAL_US * 1000;

static void init_once(void) {
    const char* env = getenv("NABLA_PROGRESS_INTERVAL_US");
    if (env != NULL && atol(env) > 0) interval_ns = atol(env) * 1000;
    env = getenv("NABLA_DISTRIBUTED_PROGRESS");  /* "0": no thread (to measure what it brings) */
    disabled = env != NULL && strcmp(env, "0") == 0;
}

static void remove_at(int64_t i) { items[i] = items[--n_items]; }

/* One round over the owned requests; true when a test took long enough to have moved data (MPI copies a
 * large message piece by piece inside its calls), so the next round should follow at once. Called with
 * bg.mu held. */
static bool poll_round(void) {
    bool busy = false;
    for (int64_t i = 0; i < n_items;) {
        nb_work* w = items[i];
        int flag = 0;
        double t0 = nb_monotonic_s();
        nb_mpi_lock();
        int rc = nb_mpi->Test(&w->req, &flag, MPI_STATUS_IGNORE);
        nb_mpi_unlock();
        if (nb_monotonic_s() - t0 > BUSY_TEST_S) busy = true;
        if (rc != MPI_SUCCESS || flag) {
            w->progress_rc = rc;
            atomic_store(&w->progress, rc == MPI_SUCCESS ? NB_PROGRESS_DONE : NB_PROGRESS_FAILED);
            remove_at(i);
        } else {
            i++;
        }
    }
    return busy;
}

static void* run(void* arg) {
    (void)arg;
    nb_bg_loop(&bg, &n_items, poll_round, interval_ns);
    return NULL;
}

bool nb_progress_add(nb_work* w) {
    pthread_once(&once, init_once);
    pthread_mutex_lock(&bg.mu);
    bool ok = !disabled && nb_bg_reserve(&bg, run, (void**)&items, n_items, &cap_items, sizeof *items);
    if (ok) {
        atomic_store(&w->progress, NB_PROGRESS_OWNED);
        items[n_items++] = w;
        pthread_cond_signal(&bg.wake);
    }
    pthread_mutex_unlock(&bg.mu);
    return ok;  /* false: the caller polls the request itself, as without the thread */
}

nb_status nb_progress_wait(nb_work* w) {
    /* The waiter takes the request back and polls it itself, as a blocking call does: with nothing else
     * to do, spinning finishes a large transfer sooner than the thread's paced rounds. */
    pthread_mutex_lock(&bg.mu);
    if (atomic_load(&w->progress) == NB_PROGRESS_OWNED) {
        for (int64_t i = 0; i < n_items; i++)
            if (items[i] == w) {
                remove_at(i);
                break;
            }
        atomic_store(&w->progress, NB_PROGRESS_NONE);
    }
    pthread_mutex_unlock(&bg.mu);
    switch (atomic_load(&w->progress)) {
    case NB_PROGRESS_DONE: return NB_OK;
    case NB_PROGRESS_FAILED: return nb_mpi_check(w->op, "MPI_Test", w->progress_rc);
    default: return nb_mpi_wait(w->op, w->comm, &w->req, w->deadline);
    }
}

void nb_progress_stop(void) {
    nb_bg_stop(&bg);
    pthread_mutex_unlock(&bg.mu);
}
