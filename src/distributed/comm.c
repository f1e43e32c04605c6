/* comm.c: communicator lifetime (MPI world, splits), the MPI lock and debug-mode checks. */
#include "comm.h"
#include "../alloc/cpu_allocator.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

const char* const nb_coll_names[NB_COLL_COUNT] = {
    "all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "gather", "scatter", "all_to_all",
    "barrier",
};

static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
static bool serialise; /* the library gave less than MPI_THREAD_MULTIPLE */
static atomic_bool any_broken;

void nb_mpi_lock(void) { if (serialise) pthread_mutex_lock(&mpi_lock); }
void nb_mpi_unlock(void) { if (serialise) pthread_mutex_unlock(&mpi_lock); }

double nb_monotonic_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

nb_status nb_comm_bad(const char* op, const nb_comm* c) {
    if (c == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: communicator is NULL", op);
    if (c->magic == NB_TENSOR_DEAD)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: communicator %p was destroyed", op, (const void*)c);
    if (c->magic != NB_COMM_MAGIC)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %p is not a live nb_comm", op, (const void*)c);
    const char* why = atomic_load(&((nb_comm*)c)->failure);
    if (why != NULL)
        return nb_error(NB_ERR_BACKEND, "%s: the communicator is unusable: NCCL failed in an earlier call: %s", op, why);
    if (c->nccl != NULL)
        return nb_error(NB_ERR_BACKEND, "%s: the communicator is unusable: NCCL failed in an earlier call (or an "
                        "MPI wait timed out after %g s)", op, c->timeout_s);
    return nb_error(NB_ERR_BACKEND, "%s: the communicator is unusable: an earlier collective timed out after %g s "
                    "(a rank died, hangs or called a different collective)", op, c->timeout_s);
}

static bool debug_from_env(void) {
    const char* names[] = {"NABLA_DISTRIBUTED_DEBUG", "TORCH_DISTRIBUTED_DEBUG"};
    for (int i = 0; i < 2; i++) {
        const char* v = getenv(names[i]);
        if (v != NULL && strcmp(v, "DETAIL") == 0) return true;
    }
    return false;
}

/* A communicator over a duplicate of parent (MPI_Comm_dup is collective over parent). */
static nb_status wrap(const char* op, MPI_Comm mc, double timeout_s, nb_comm** out) {
    nb_status st = nb_mpi_check(op, "MPI_Comm_set_errhandler", nb_mpi->Comm_set_errhandler(mc, MPI_ERRORS_RETURN));
    nb_comm* c = st == NB_OK ? nb_cpu_alloc(sizeof *c) : NULL;
    if (st == NB_OK && c == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    if (st != NB_OK) {
        nb_mpi->Comm_free(&mc);
        return st;
    }
    memset(c, 0, sizeof *c);
    int rank = 0, size = 1;
    nb_mpi->Comm_rank(mc, &rank);
    nb_mpi->Comm_size(mc, &size);
    c->magic = NB_COMM_MAGIC;
    atomic_init(&c->refcount, 1);
    atomic_init(&c->broken, false);
    atomic_init(&c->aborted, false);
    atomic_init(&c->seq, 0);
    atomic_init(&c->failed_seq, 0);
    atomic_init(&c->failure, NULL);
    c->mpi = mc, c->rank = rank, c->size = size, c->timeout_s = timeout_s, c->debug = debug_from_env();
    *out = c;
    return NB_OK;
}

static nb_status check_timeout(const char* op, double timeout_s) {
    if (!(timeout_s > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: timeout must be positive seconds, got %g", op, timeout_s);
    return NB_OK;
}

NB_API nb_status nb_comm_init_mpi(const char* library, double timeout_s, nb_comm** out) {
    const char* op = "nb_comm_init_mpi";
    NB_CHECK_OUT(op, out);
    nb_status st = check_timeout(op, timeout_s);
    if (st == NB_OK) st = nb_mpi_load(op, library);
    if (st != NB_OK) return st;
    int inited = 0, finalized = 0;
    nb_mpi->Initialized(&inited);
    nb_mpi->Finalized(&finalized);
    if (finalized) return nb_error(NB_ERR_BACKEND, "%s: MPI was finalized in this process; it cannot start again", op);
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);  /* collective: waits for the other ranks */
    if (!inited) {
        int provided = 0;
        st = nb_mpi_check(op, "MPI_Init_thread", nb_mpi->Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
        serialise = provided < MPI_THREAD_MULTIPLE;
    }
    MPI_Comm mc;
    if (st == NB_OK) {
        nb_mpi_lock();
        st = nb_mpi_check(op, "MPI_Comm_dup", nb_mpi->Comm_dup(MPI_COMM_WORLD, &mc));
        nb_mpi_unlock();
    }
    if (end) end(token);
    return st == NB_OK ? wrap(op, mc, timeout_s, out) : st;
}

NB_API nb_status nb_comm_split(nb_comm* parent, int32_t color, int32_t key, nb_comm** out) {
    const char* op = "nb_comm_split";
    NB_CHECK_COMM(op, parent);
    NB_CHECK_OUT(op, out);
    MPI_Comm mc = MPI_COMM_NULL;
    nb_mpi_lock();
    nb_status st = nb_mpi_check(op, "MPI_Comm_split",
                                nb_mpi->Comm_split(parent->mpi, color < 0 ? MPI_UNDEFINED : color, key, &mc));
    nb_mpi_unlock();
    if (st != NB_OK) return st;
    if (mc == MPI_COMM_NULL) {  /* this rank is not a member */
        *out = NULL;
        return NB_OK;
    }
    return wrap(op, mc, parent->timeout_s, out);
}

NB_API int32_t nb_comm_rank(const nb_comm* c) {
    if (c == NULL || c->magic != NB_COMM_MAGIC) return nb_comm_bad("nb_comm_rank", c), -1;
    return c->rank;
}

NB_API int32_t nb_comm_size(const nb_comm* c) {
    if (c == NULL || c->magic != NB_COMM_MAGIC) return nb_comm_bad("nb_comm_size", c), -1;
    return c->size;
}

NB_API nb_status nb_comm_set_timeout(nb_comm* c, double timeout_s) {
    const char* op = "nb_comm_set_timeout";
    NB_CHECK_COMM(op, c);
    nb_status st = check_timeout(op, timeout_s);
    if (st == NB_OK) c->timeout_s = timeout_s;
    return st;
}

NB_API void nb_comm_retain(nb_comm* c) {
    if (c != NULL && c->magic == NB_COMM_MAGIC) atomic_fetch_add(&c->refcount, 1);
}

NB_API void nb_comm_release(nb_comm* c) {
    if (c == NULL) return;
    if (c->magic != NB_COMM_MAGIC) {
        nb_bad_release("nb_comm_release", "communicator", c, c->magic);
        return;
    }
    if (atomic_fetch_sub(&c->refcount, 1) != 1) return;
    c->magic = NB_TENSOR_DEAD;
    if (c->nccl != NULL && !atomic_load(&c->aborted))
        (atomic_load(&c->broken) ? nb_nccl->CommAbort : nb_nccl->CommDestroy)(c->nccl);
    free(atomic_load(&c->failure));
    /* An MPI wait that timed out leaves requests that still use it (MPI_Comm_free could hang); NCCL's own
     * failure leaves MPI as it was. */
    if (atomic_load(&c->broken) && (c->nccl == NULL || atomic_load(&any_broken))) {
        atomic_store(&any_broken, true);
    } else {
        int finalized = 0;  /* a handle that outlives MPI_Finalize (freed at interpreter exit) */
        nb_mpi->Finalized(&finalized);
        nb_mpi_lock();
        if (!finalized) nb_mpi->Comm_free(&c->mpi);
        nb_mpi_unlock();
    }
    nb_cpu_free_handle(c, sizeof *c);
}

NB_API nb_status nb_comm_finalize(void) {
    const char* op = "nb_comm_finalize";
    if (nb_mpi == NULL) return NB_OK;
    int inited = 0, finalized = 0;
    nb_mpi->Initialized(&inited);
    nb_mpi->Finalized(&finalized);
    if (!inited || finalized) return NB_OK;
    if (atomic_load(&any_broken))  /* MPI_Finalize would wait for requests that never end */
        return nb_error(NB_ERR_BACKEND, "%s: a collective timed out, so MPI cannot shut down cleanly; "
                        "exit the process (mpiexec then stops the other ranks)", op);
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);  /* waits for every rank: other threads (a store server) run */
    nb_progress_stop();
    nb_watchdog_stop();
    nb_status st = nb_mpi_check(op, "MPI_Finalize", nb_mpi->Finalize());
    if (end) end(token);
    return st;
}

NB_API nb_status nb_comm_available(const char* library) {
    return nb_mpi_load("nb_comm_available", library);
}

NB_API nb_status nb_comm_abort(nb_comm* c, int32_t code) {
    const char* op = "nb_comm_abort";
    if (c == NULL || c->magic != NB_COMM_MAGIC) return nb_comm_bad(op, c);
    fflush(stdout);
    fflush(stderr);
    return nb_mpi_check(op, "MPI_Abort", nb_mpi->Abort(c->mpi, code));
}

void nb_comm_mark_broken(nb_comm* c) {
    atomic_store(&c->broken, true);
    atomic_store(&any_broken, true);
}

/* ---- debug mode ---- */

enum { FP_CODE, FP_ROOT, FP_DTYPE, FP_NDIM, FP_SHAPE, FP_LEN = FP_SHAPE + NB_MAX_DIMS };

static const char* describe(const int64_t* fp) {
    static _Thread_local char buf[4][256];
    static _Thread_local int next;
    char* b = buf[next++ & 3];
    if (fp[FP_NDIM] < 0) snprintf(b, 256, "no tensor");
    else snprintf(b, 256, "a %s tensor of shape %s", nb_dtype_str((int32_t)fp[FP_DTYPE]),
                  nb_shape_str(fp + FP_SHAPE, (int32_t)fp[FP_NDIM]));
    return b;
}

static nb_status compare(const char* op, const int64_t* all, int32_t size) {
    const int64_t* r0 = all;
    for (int32_t r = 1; r < size; r++) {
        const int64_t* fp = all + (int64_t)r * FP_LEN;
        const char* why = " (checked because NABLA_DISTRIBUTED_DEBUG=DETAIL)";
        if (fp[FP_CODE] != r0[FP_CODE])
            return nb_error(NB_ERR_INVALID_ARGUMENT,
                            "%s: collective mismatch: rank %d called %s while rank 0 called %s%s",
                            op, r, nb_coll_names[fp[FP_CODE]], nb_coll_names[r0[FP_CODE]], why);
        if (fp[FP_ROOT] != r0[FP_ROOT])
            return nb_error(NB_ERR_INVALID_ARGUMENT,
                            "%s: root mismatch: rank %d passed root %lld while rank 0 passed %lld%s",
                            op, r, (long long)fp[FP_ROOT], (long long)r0[FP_ROOT], why);
        if (memcmp(fp + FP_DTYPE, r0 + FP_DTYPE, sizeof(int64_t) * (FP_LEN - FP_DTYPE)) != 0)
            return nb_error(fp[FP_DTYPE] != r0[FP_DTYPE] ? NB_ERR_DTYPE : NB_ERR_SHAPE,
                            "%s: tensor mismatch: rank %d passed %s while rank 0 passed %s%s",
                            op, r, describe(fp), describe(r0), why);
    }
    return NB_OK;
}

nb_status nb_comm_check_peers(const char* op, nb_comm* c, int32_t code, int32_t root, const nb_tensor* t) {
    if (!c->debug || c->size == 1) return NB_OK;
    /* On the heap: after a timeout the request may still write here, so the buffer is then kept. */
    int64_t* buf = calloc((size_t)(c->size + 1) * FP_LEN, sizeof(int64_t));
    if (buf == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    int64_t* mine = buf + (int64_t)c->size * FP_LEN;
    mine[FP_CODE] = code, mine[FP_ROOT] = root, mine[FP_DTYPE] = -1, mine[FP_NDIM] = -1;
    if (t != NULL) {
        mine[FP_DTYPE] = t->dtype, mine[FP_NDIM] = t->ndim;
        memcpy(mine + FP_SHAPE, t->shape, sizeof(int64_t) * (size_t)t->ndim);
    }
    MPI_Request req;
    nb_mpi_lock();
    nb_status st = nb_mpi_check(op, "MPI_Iallgather", nb_mpi->Iallgather_c(mine, FP_LEN, MPI_INT64_T, buf, FP_LEN,
                                                                           MPI_INT64_T, c->mpi, &req));
    nb_mpi_unlock();
    if (st == NB_OK) st = nb_mpi_wait(op, c, &req, nb_monotonic_s() + c->timeout_s);
    if (st == NB_OK) st = compare(op, buf, c->size);
    if (!atomic_load(&c->broken)) free(buf);
    return st;
}
