/* progress.c: the progress thread. MPI moves a nonblocking collective along only inside MPI calls, so
 * a bucket's all-reduce started from a gradient hook would sit idle until its wait. Asynchronous work
 * is handed to this thread, which tests every outstanding request, sleeping briefly between rounds
 * (a spinning poller would take a core from backward on a loaded machine), and wakes the waiters of
 * the requests it completes. Waiters never call MPI_Test on a request the thread owns. Results do not
 * depend on timing: the thread only calls MPI_Test. */
#include "comm.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define DEFAULT_INTERVAL_US 50

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;       /* the thread: work arrived or stop */
static pthread_cond_t finished;   /* waiters: some owned request ended */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static nb_work** items;           /* owned, outstanding work; guarded by mu */
static int64_t n_items, cap_items;
static pthread_t thread;
static bool running, stopping;
static long interval_ns = DEFAULT_INTERVAL_US * 1000;

static void init_conds(void) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &a);
    pthread_cond_init(&finished, &a);
    pthread_condattr_destroy(&a);
    const char* env = getenv("NABLA_PROGRESS_INTERVAL_US");
    if (env != NULL && atol(env) > 0) interval_ns = atol(env) * 1000;
}

static void remove_at(int64_t i) { items[i] = items[--n_items]; }

/* One round over the owned requests; returns whether any ended. Called with mu held. */
static bool poll_round(void) {
    bool any = false;
    for (int64_t i = 0; i < n_items;) {
        nb_work* w = items[i];
        int flag = 0;
        nb_mpi_lock();
        int rc = nb_mpi->Test(&w->req, &flag, MPI_STATUS_IGNORE);
        nb_mpi_unlock();
        if (rc != MPI_SUCCESS || flag) {
            w->progress_rc = rc;
            atomic_store(&w->progress, rc == MPI_SUCCESS ? NB_PROGRESS_DONE : NB_PROGRESS_FAILED);
            remove_at(i);
            any = true;
        } else {
            i++;
        }
    }
    return any;
}

static void* run(void* arg) {
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!stopping) {
        if (n_items == 0) {
            pthread_cond_wait(&wake, &mu);
            continue;
        }
        if (poll_round()) pthread_cond_broadcast(&finished);
        if (n_items == 0) continue;
        pthread_mutex_unlock(&mu);
        nanosleep(&(struct timespec){0, interval_ns}, NULL);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

bool nb_progress_add(nb_work* w) {
    pthread_once(&once, init_conds);
    pthread_mutex_lock(&mu);
    bool ok = !stopping;
    if (ok && !running) ok = running = pthread_create(&thread, NULL, run, NULL) == 0;
    if (ok && n_items == cap_items) {
        int64_t cap = cap_items ? 2 * cap_items : 16;
        nb_work** grown = realloc(items, (size_t)cap * sizeof *grown);
        if ((ok = grown != NULL)) items = grown, cap_items = cap;
    }
    if (ok) {
        atomic_store(&w->progress, NB_PROGRESS_OWNED);
        items[n_items++] = w;
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&mu);
    return ok;  /* false: the caller polls the request itself, as without the thread */
}

static struct timespec abs_time(double s) {
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    return ts;
}

nb_status nb_progress_wait(nb_work* w) {
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);  /* lets Python threads run while this one waits */
    bool timed_out = false;
    pthread_mutex_lock(&mu);
    while (atomic_load(&w->progress) == NB_PROGRESS_OWNED) {
        if (nb_monotonic_s() > w->deadline) {  /* abandoned: its buffers stay allocated for good */
            for (int64_t i = 0; i < n_items; i++)
                if (items[i] == w) remove_at(i);
            atomic_store(&w->progress, NB_PROGRESS_NONE);
            timed_out = true;
            break;
        }
        struct timespec until = abs_time(w->deadline + 1e-3);
        pthread_cond_timedwait(&finished, &mu, &until);
    }
    pthread_mutex_unlock(&mu);
    if (end) end(token);
    if (timed_out) return nb_comm_timeout(w->op, w->comm);
    if (atomic_load(&w->progress) == NB_PROGRESS_FAILED) return nb_mpi_check(w->op, "MPI_Test", w->progress_rc);
    return NB_OK;
}

void nb_progress_stop(void) {
    pthread_mutex_lock(&mu);
    bool joining = running;
    stopping = true;
    if (running) pthread_cond_signal(&wake);
    pthread_mutex_unlock(&mu);
    if (joining) pthread_join(thread, NULL);
    pthread_mutex_lock(&mu);
    running = false;
    pthread_mutex_unlock(&mu);
}
