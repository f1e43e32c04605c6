/* comm.h: communicators and work handles (private to src/distributed). */
#ifndef NABLA_DIST_COMM_H_
#define NABLA_DIST_COMM_H_

#include "loader.h"
#include "nccl_api.h"

#include <pthread.h>

#define NB_COMM_MAGIC 0x636f6d6du /* "comm" */
#define NB_WORK_MAGIC 0x776f726bu /* "work" */

struct nb_comm {
    uint32_t magic;
    atomic_int_fast64_t refcount;
    MPI_Comm mpi;        /* a duplicate of the parent: nabla's traffic never mixes with the caller's */
    int32_t rank, size;
    double timeout_s;    /* how long a wait lasts before it fails */
    bool debug;          /* NABLA_DISTRIBUTED_DEBUG=DETAIL: check shapes and dtypes across ranks */
    atomic_bool broken;  /* a wait timed out: requests may still write to their buffers */
    ncclComm_t nccl;     /* the NCCL communicator (CUDA tensors on device_index), or NULL (MPI, CPU tensors) */
    int32_t device_index;
    bool blocking_wait;  /* NCCL: a wait blocks the host until the work ends or times out (TORCH_NCCL_BLOCKING_WAIT) */
    atomic_bool aborted; /* NCCL: ncclCommAbort was called (the handle is gone) */
    atomic_int_fast64_t seq;         /* NCCL: the number of the last call queued */
    atomic_int_fast64_t failed_seq;  /* NCCL: calls from this number on failed (0: none) */
    _Atomic(char*) failure;          /* NCCL: why the communicator was aborted, for every later call */
};

/* What a finished request leaves to do, done by the thread that sees it finish. */
typedef struct nb_work_copy { nb_tensor* dst; nb_tensor* src; } nb_work_copy;

struct nb_work {
    uint32_t magic;
    const char* op;
    nb_comm* comm;           /* holds a reference */
    MPI_Request req;
    double deadline;         /* monotonic seconds */
    nb_status status;        /* NB_OK while pending or after success */
    char* message;           /* the failure's message, repeated by every later wait */
    bool done;
    atomic_int progress;     /* NB_PROGRESS_*: whether the progress thread owns req, and how it ended */
    int progress_rc;         /* MPI_Test's error code when it failed on the progress thread */
    nb_tensor* avg;          /* divided by the group size on completion (ReduceOp.AVG) */
    int32_t n_keep, n_copies;
    nb_tensor** keep;        /* buffers the request reads or writes, alive until it completes */
    nb_work_copy* copies;    /* staged results copied back into the caller's tensors */
    MPI_Count* counts;       /* all_to_all's counts and displacements */
    nb_event* event;         /* NCCL: recorded on the stream after the call (and its copies back) */
    void* p2p;               /* NCCL: the point-to-point plan of gather, scatter and all_to_all */
    int64_t seq;             /* NCCL: the call's number on its communicator */
    nb_work** parts;         /* MPI batch_isend_irecv: one work per send or receive, finished in order */
    int32_t n_parts;
};

/* The calling thread's current stream on c's CUDA device (NCCL communicators). */
NB_INTERNAL nb_stream* nb_comm_stream(const nb_comm* c);

/* After a timeout: the communicator refuses new work and MPI is not finalized. */
NB_INTERNAL void nb_comm_mark_broken(nb_comm* c);
/* The error for a NULL, released or broken communicator. */
NB_INTERNAL nb_status nb_comm_bad(const char* op, const nb_comm* c);
#define NB_CHECK_COMM(op, c) \
    do { if (NB_UNLIKELY((c) == NULL || (c)->magic != NB_COMM_MAGIC || atomic_load(&(c)->broken))) \
        return nb_comm_bad(op, c); } while (0)

/* Serialises MPI calls when the library gave less than MPI_THREAD_MULTIPLE. */
NB_INTERNAL void nb_mpi_lock(void);
NB_INTERNAL void nb_mpi_unlock(void);
NB_INTERNAL double nb_monotonic_s(void);

/* A pending work item on c for op, with room for n_keep buffers and n_copies copies. */
NB_INTERNAL nb_status nb_work_new(const char* op, nb_comm* c, int32_t n_keep, int32_t n_copies, nb_work** out);
/* Drives the request to completion or to the communicator's deadline, then finishes it. */
NB_INTERNAL nb_status nb_work_finish(nb_work* w);
/* Hands the work out (async) or waits for it and frees it (blocking, work == NULL). */
NB_INTERNAL nb_status nb_work_return(nb_work* w, nb_work** work);
/* Frees a work item whose request was never started. */
NB_INTERNAL void nb_work_discard(nb_work* w);

/* The progress thread (progress.c): it owns the requests of asynchronous work and tests them. */
enum { NB_PROGRESS_NONE, NB_PROGRESS_OWNED, NB_PROGRESS_DONE, NB_PROGRESS_FAILED };
/* Hands w's request to the thread (started on first use); false when it cannot take it. */
NB_INTERNAL bool nb_progress_add(nb_work* w);
/* Waits until the thread has seen w's request end, or w's deadline (the timeout error). */
NB_INTERNAL nb_status nb_progress_wait(nb_work* w);
/* Stops the thread before MPI_Finalize. */
NB_INTERNAL void nb_progress_stop(void);
/* The timeout error of op on c; marks c broken. */
NB_INTERNAL nb_status nb_comm_timeout(const char* op, nb_comm* c);

/* The NCCL watchdog (watchdog.c): a thread that watches every queued NCCL call (its event) and aborts the
 * communicator when one is still pending after the timeout or NCCL reports an asynchronous error. */
NB_INTERNAL void nb_watchdog_add(nb_comm* c, const char* op, nb_event* e, int64_t seq, double deadline);
NB_INTERNAL void nb_watchdog_stop(void);
/* Aborts c (once) for `why`, failing its calls from the first still pending on; the error of op on it. */
NB_INTERNAL nb_status nb_nccl_abort(const char* op, nb_comm* c, const char* why);
/* The error of op on c after nb_nccl_abort: the stored reason. */
NB_INTERNAL nb_status nb_nccl_failed(const char* op, const nb_comm* c);

/* The collectives, as numbered in debug-mode fingerprints. */
enum { NB_COLL_ALL_REDUCE, NB_COLL_BROADCAST, NB_COLL_REDUCE, NB_COLL_ALL_GATHER, NB_COLL_REDUCE_SCATTER,
       NB_COLL_GATHER, NB_COLL_SCATTER, NB_COLL_ALL_TO_ALL, NB_COLL_BARRIER, NB_COLL_COUNT };
NB_INTERNAL extern const char* const nb_coll_names[NB_COLL_COUNT];

/* Polls *req until it completes or the deadline passes (then the communicator is broken:
 * the request's buffers must stay allocated). The caller holds no MPI lock. */
NB_INTERNAL nb_status nb_mpi_wait(const char* op, nb_comm* c, MPI_Request* req, double deadline);

/* Debug mode: every rank's fingerprint of the call (op, root, dtype, shape) must agree. */
NB_INTERNAL nb_status nb_comm_check_peers(const char* op, nb_comm* c, int32_t code, int32_t root,
                                          const nb_tensor* t);

#endif
