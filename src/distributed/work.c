/* work.c: work handles: a nonblocking MPI request, polled to completion with a deadline, and
 * what its completion leaves to do (copy staged results back, divide for ReduceOp.AVG). */
#include "nccl.h"
#include "../alloc/cpu_allocator.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

nb_status nb_comm_timeout(const char* op, nb_comm* c) {
    nb_comm_mark_broken(c);
    return nb_error(NB_ERR_BACKEND, "%s: timed out after %g s waiting for the other ranks (rank %d of %d): a rank "
                    "died, hangs, or called a different collective; the process group is now unusable", op,
                    c->timeout_s, c->rank, c->size);
}

nb_status nb_mpi_wait(const char* op, nb_comm* c, MPI_Request* req, double deadline) {
    nb_blocking_end_fn end = NULL;
    void* token = NULL;
    bool blocking = false;
    nb_status st = NB_OK;
    double start = 0;
    for (int64_t spins = 0;; spins++) {
        int flag = 0;
        nb_mpi_lock();
        int rc = nb_mpi->Test(req, &flag, MPI_STATUS_IGNORE);
        nb_mpi_unlock();
        if (rc != MPI_SUCCESS) { st = nb_mpi_check(op, "MPI_Test", rc); break; }
        if (flag) break;
        if (!blocking) {  /* lets Python threads run while this one waits */
            token = nb_blocking_begin(&end);
            blocking = true;
            start = nb_monotonic_s();
        }
        /* MPI moves a request along only inside its calls, so the waiter polls: first by spinning (a
         * collective's rounds are microseconds apart), then yielding the core between polls (with more
         * ranks than cores a spinning waiter starves the rank it waits for), after 20 ms sleeping. */
        if ((spins & 15) != 0) continue;
        double now = nb_monotonic_s();
        if (now > deadline) {
            st = nb_comm_timeout(op, c);
            break;
        }
        if (now - start > 0.02) nanosleep(&(struct timespec){0, 50000}, NULL);
        else if (now - start > 1e-4) sched_yield();
    }
    if (blocking && end) end(token);
    return st;
}

nb_status nb_work_new(const char* op, nb_comm* c, int32_t n_keep, int32_t n_copies, nb_work** out) {
    nb_work* w = nb_cpu_alloc(sizeof *w);
    nb_tensor** keep = calloc((size_t)n_keep + 1, sizeof *keep);
    nb_work_copy* copies = calloc((size_t)n_copies + 1, sizeof *copies);
    if (w == NULL || keep == NULL || copies == NULL) {
        nb_cpu_free(w, sizeof *w), free(keep), free(copies);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    memset(w, 0, sizeof *w);
    w->magic = NB_WORK_MAGIC;
    w->op = op;
    w->comm = c;
    nb_comm_retain(c);
    w->req = MPI_REQUEST_NULL;
    atomic_init(&w->progress, NB_PROGRESS_NONE);
    w->keep = keep, w->copies = copies;
    *out = w;
    return NB_OK;
}

static void work_free(nb_work* w) {
    for (int32_t i = 0; i < w->n_keep; i++) nb_tensor_release(w->keep[i]);
    for (int32_t i = 0; i < w->n_copies; i++) {
        nb_tensor_release(w->copies[i].dst);
        nb_tensor_release(w->copies[i].src);
    }
    for (int32_t i = 0; i < w->n_parts; i++) nb_work_release(w->parts[i]);
    nb_tensor_release(w->avg);
    nb_event_release(w->event);
    nb_comm_release(w->comm);
    free(w->keep), free(w->copies), free(w->counts), free(w->p2p), free(w->message), free(w->parts);
    w->magic = NB_TENSOR_DEAD;
    nb_cpu_free_handle(w, sizeof *w);
}

void nb_work_discard(nb_work* w) { work_free(w); }

static void divide(nb_tensor* t, int64_t n) {
    int64_t count = t->numel;
    if (t->dtype == NB_F64) {
        double* p = nb_tensor_data(t);
        for (int64_t i = 0; i < count; i++) p[i] /= (double)n;
    } else {  /* f32: AVG stages f16 and bf16 in f32 too */
        float* p = nb_tensor_data(t);
        for (int64_t i = 0; i < count; i++) p[i] /= (float)n;
    }
}

/* Records st (and the thread's message) as w's result, repeated by every later wait. */
static nb_status settle(nb_work* w, nb_status st) {
    w->done = true;
    w->status = st;
    if (st != NB_OK) {
        const char* m = nb_last_error_message();
        size_t len = m ? strlen(m) + 1 : 0;
        free(w->message);
        if ((w->message = len ? malloc(len) : NULL) != NULL) memcpy(w->message, m, len);
    }
    return st;
}

nb_status nb_work_finish(nb_work* w) {
    /* NCCL: a wait only ordered the stream; the watchdog may abort the call after it */
    if (w->done && w->status == NB_OK && w->event != NULL && nb_nccl_work_failed(w))
        return settle(w, nb_nccl_failed(w->op, w->comm));
    if (w->done) {
        if (w->status != NB_OK) nb_error(w->status, "%s", w->message ? w->message : "collective failed");
        return w->status;
    }
    nb_status st = atomic_load(&w->progress) != NB_PROGRESS_NONE ? nb_progress_wait(w)
                   : w->req == MPI_REQUEST_NULL ? NB_OK : nb_mpi_wait(w->op, w->comm, &w->req, w->deadline);
    for (int32_t i = 0; i < w->n_parts; i++) {  /* every part ends, even after one failed */
        nb_status part = nb_work_finish(w->parts[i]);
        if (st == NB_OK) st = part;
    }
    if (st == NB_OK && w->event != NULL) st = nb_nccl_work_wait(w);
    else if (st == NB_OK && w->comm->nccl != NULL) st = nb_nccl_async_error(w->op, w->comm);
    if (st == NB_OK && w->avg != NULL) divide(w->avg, w->comm->size);
    for (int32_t i = 0; st == NB_OK && i < w->n_copies; i++) {
        st = nb_copy_into(w->op, w->copies[i].dst, w->copies[i].src);
        if (st == NB_OK) nb_tensor_bump_version(w->copies[i].dst);
    }
    settle(w, st);
    if (atomic_load(&w->comm->broken) && st != NB_OK) {
        /* the request may still write into its buffers: keep them (and the work's copies) for good */
        w->n_keep = 0, w->n_copies = 0, w->avg = NULL;
    }
    return st;
}

nb_status nb_work_return(nb_work* w, nb_work** work) {
    if (work != NULL) {
        if (w->req != MPI_REQUEST_NULL) nb_progress_add(w);  /* moves it along while the caller works */
        *work = w;
        return NB_OK;
    }
    nb_status st = nb_work_finish(w);
    work_free(w);
    return st;
}

static nb_status check_work(const char* op, const nb_work* w) {
    if (w == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: work is NULL", op);
    if (w->magic != NB_WORK_MAGIC)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %p is not a live nb_work (released?)", op, (const void*)w);
    return NB_OK;
}

NB_API nb_status nb_work_wait(nb_work* w) {
    nb_status st = check_work("nb_work_wait", w);
    return st == NB_OK ? nb_work_finish(w) : st;
}

NB_API nb_status nb_work_test(nb_work* w, int32_t* done) {
    const char* op = "nb_work_test";
    nb_status st = check_work(op, w);
    if (st != NB_OK) return st;
    NB_CHECK_OUT(op, done);
    if (w->event != NULL) {  /* even after a wait: it only ordered the caller's stream */
        if ((st = nb_event_query(w->event, done)) != NB_OK) return st;
        if (!*done && !nb_nccl_work_failed(w)) return NB_OK;  /* a failed one reports the watchdog's error */
    } else if (!w->done && w->n_parts > 0) {
        for (int32_t i = 0; i < w->n_parts; i++)
            if ((st = nb_work_test(w->parts[i], done)) != NB_OK || !*done) return st;
    } else if (!w->done && atomic_load(&w->progress) == NB_PROGRESS_OWNED) {
        if (nb_monotonic_s() <= w->deadline) {
            *done = 0;
            return NB_OK;
        }
    } else if (!w->done && atomic_load(&w->progress) == NB_PROGRESS_NONE && w->req != MPI_REQUEST_NULL) {
        int flag = 0;
        nb_mpi_lock();
        int rc = nb_mpi->Test(&w->req, &flag, MPI_STATUS_IGNORE);
        nb_mpi_unlock();
        if (rc != MPI_SUCCESS) return nb_mpi_check(w->op, "MPI_Test", rc);
        if (!flag) {
            if (nb_monotonic_s() <= w->deadline) {
                *done = 0;
                return NB_OK;
            }
            return nb_work_finish(w);  /* reports the timeout */
        }
    }
    st = nb_work_finish(w);
    if (st == NB_OK) *done = 1;
    return st;
}

NB_API void nb_work_release(nb_work* w) {
    if (w == NULL) return;
    if (w->magic != NB_WORK_MAGIC) {
        nb_bad_release("nb_work_release", "work", w, w->magic);
        return;
    }
    /* MPI owns the buffers until the request ends: finish it first (errors are dropped, as
     * PyTorch drops those of a Work nobody waits on). */
    if (!w->done) nb_work_finish(w);
    work_free(w);
}
