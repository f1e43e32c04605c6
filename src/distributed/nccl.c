/* nccl.c: communicators over NCCL for CUDA tensors, bootstrapped through MPI (rank 0 makes the
 * unique id, MPI broadcasts it), and what the collectives of collectives.c do differently on
 * them: the call is queued on the caller's current stream of the communicator's device, results
 * staged in a buffer are copied back on that stream right away, and the work handle is an event
 * recorded after them (waiting on it makes the caller's current stream wait; the host does not). */
#include "nccl.h"

#include "../core/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

nb_stream* nb_comm_stream(const nb_comm* c) { return nb_stream_current_of(NB_CUDA, c->device_index); }

void* nb_comm_native_stream(const nb_comm* c) { return nb_comm_stream(c)->native; }

static bool env_on(const char* name) {
    const char* v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

NB_API nb_status nb_comm_init_nccl(nb_comm* bootstrap, const char* library, int32_t device_index, nb_comm** out) {
    const char* op = "nb_comm_init_nccl";
    NB_CHECK_COMM(op, bootstrap);
    NB_CHECK_OUT(op, out);
    if (bootstrap->nccl != NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the bootstrap communicator must be an MPI one", op);
    int32_t count = 0;
    nb_status st = nb_device_count(NB_CUDA, &count);
    if (st == NB_OK && count == 0)
        st = nb_error(NB_ERR_DEVICE, "%s: the NCCL backend needs a CUDA device: %s", op,
                      nb_device_unavailable_reason(NB_CUDA));
    if (st == NB_OK && device_index < 0) st = nb_device_current(NB_CUDA, &device_index);
    if (st == NB_OK && device_index >= count)
        st = nb_error(NB_ERR_DEVICE, "%s: CUDA device %d does not exist (%d device%s)", op, device_index, count,
                      count == 1 ? "" : "s");
    if (st == NB_OK) st = nb_nccl_load(op, library);
    /* Makes the device current for this thread's CUDA runtime: NCCL binds the communicator to it. */
    if (st == NB_OK) st = nb_device_synchronize(NB_CUDA, device_index);
    if (st != NB_OK) return st;

    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (bootstrap->rank == 0) st = nb_nccl_check(op, "ncclGetUniqueId", nb_nccl->GetUniqueId(&id));
    /* Every rank takes part in the broadcast, so a failure on rank 0 reaches the others as a zero id. */
    MPI_Request req;
    nb_mpi_lock();
    nb_status bst = nb_mpi_check(op, "MPI_Ibcast", nb_mpi->Ibcast_c(&id, sizeof id, MPI_UINT8_T, 0, bootstrap->mpi,
                                                                   &req));
    nb_mpi_unlock();
    if (bst == NB_OK) bst = nb_mpi_wait(op, bootstrap, &req, nb_monotonic_s() + bootstrap->timeout_s);
    if (st == NB_OK) st = bst;
    static const ncclUniqueId zero;
    if (st == NB_OK && memcmp(&id, &zero, sizeof id) == 0)
        st = nb_error(NB_ERR_BACKEND, "%s: rank 0 could not make an NCCL unique id", op);
    nb_comm* c = NULL;
    if (st == NB_OK) st = nb_comm_split(bootstrap, 0, bootstrap->rank, &c);  /* its own MPI duplicate */
    if (st != NB_OK) return st;
    ncclComm_t nc = NULL;
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);  /* waits for every rank to join */
    st = nb_nccl_check(op, "ncclCommInitRank", nb_nccl->CommInitRank(&nc, c->size, id, c->rank));
    if (end) end(token);
    if (st != NB_OK) {
        nb_comm_release(c);
        return st;
    }
    c->nccl = nc, c->device_index = device_index;
    c->debug = bootstrap->debug;  /* the split read the environment anew */
    c->blocking_wait = env_on("TORCH_NCCL_BLOCKING_WAIT") || env_on("NABLA_NCCL_BLOCKING_WAIT");
    *out = c;
    return NB_OK;
}

ncclDataType_t nb_nccl_type(int32_t dtype) {
    switch (dtype) {
    case NB_F32: return ncclFloat32;
    case NB_F64: return ncclFloat64;
    case NB_F16: return ncclFloat16;
    case NB_BF16: return ncclBfloat16;
    case NB_I8: return ncclInt8;
    case NB_I32: return ncclInt32;
    case NB_I64: return ncclInt64;
    default: return ncclUint8; /* u8, bool; int16 reduces staged in int32 and moves as bytes */
    }
}

int32_t nb_nccl_reduce_dtype(int32_t dtype) { return dtype == NB_I16 ? NB_I32 : dtype; }

nb_status nb_nccl_op(const char* op, int32_t red, int32_t dtype, ncclRedOp_t* out) {
    static const char* names[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"};
    const bool b = dtype == NB_BOOL, fp = dtype == NB_F32 || dtype == NB_F64 || dtype == NB_F16 || dtype == NB_BF16;
    switch (red) {
    case 0: *out = b ? ncclMax : ncclSum; return NB_OK;  /* bool: logical or, as PyTorch */
    case 1:
        if (!fp) break;
        *out = ncclAvg;
        return NB_OK;
    case 2: *out = b ? ncclMin : ncclProd; return NB_OK;
    case 3: *out = ncclMin; return NB_OK;
    case 4: *out = ncclMax; return NB_OK;
    case 5: case 6: case 7:
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ReduceOp.%s is not supported by the NCCL backend", op,
                        names[red]);
    default:
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: unknown reduce op %d", op, red);
    }
    return nb_error(NB_ERR_DTYPE, "%s: ReduceOp.%s is not supported for %s tensors", op, names[red],
                    nb_dtype_str(dtype));
}

nb_status nb_nccl_post(nb_work* w, const char* what, ncclResult_t rc, nb_work** work) {
    nb_status st = nb_nccl_check(w->op, what, rc);
    for (int32_t i = 0; st == NB_OK && i < w->n_copies; i++) {  /* queued behind the collective */
        st = nb_copy_into(w->op, w->copies[i].dst, w->copies[i].src);
        if (st == NB_OK) nb_tensor_bump_version(w->copies[i].dst);
    }
    for (int32_t i = 0; i < w->n_copies; i++) {
        nb_tensor_release(w->copies[i].dst);
        nb_tensor_release(w->copies[i].src);
    }
    w->n_copies = 0;
    /* The event marks the call's end: an async work's wait makes the caller's stream of that moment wait for
     * it, and the watchdog queries it. */
    nb_comm* c = w->comm;
    if (st == NB_OK) st = nb_event_create(NB_CUDA, c->device_index, 0, &w->event);
    if (st == NB_OK) st = nb_event_record(w->event, nb_comm_stream(c));
    if (st != NB_OK) {
        nb_work_discard(w);
        return st;
    }
    w->seq = atomic_fetch_add(&c->seq, 1) + 1;
    w->deadline = nb_monotonic_s() + c->timeout_s;
    nb_watchdog_add(c, w->op, w->event, w->seq, w->deadline);
    return nb_work_return(w, work);
}

void nb_nccl_error_text(char* buf, size_t cap, const nb_comm* c, ncclResult_t err) {
    const char* text = nb_nccl->GetErrorString(err);
    snprintf(buf, cap, "NCCL failed on rank %d of %d: %s (NCCL error %d)", c->rank, c->size,
             text ? text : "unknown error", err);
}

nb_status nb_nccl_async_error(const char* op, nb_comm* c) {
    if (atomic_load(&c->aborted)) return nb_nccl_failed(op, c);
    ncclResult_t err = 0;
    nb_status st = nb_nccl_check(op, "ncclCommGetAsyncError", nb_nccl->CommGetAsyncError(c->nccl, &err));
    if (st != NB_OK || err == 0 || err == NCCL_IN_PROGRESS) return st;
    char why[512];  /* MPI itself is fine: only this communicator is refused */
    nb_nccl_error_text(why, sizeof why, c, err);
    return nb_nccl_abort(op, c, why);
}

static bool failed(const nb_comm* c, int64_t seq) {
    const int64_t first = atomic_load(&((nb_comm*)c)->failed_seq);
    return first != 0 && seq >= first;
}

bool nb_nccl_work_failed(const nb_work* w) { return failed(w->comm, w->seq); }

/* Polls the host until e (or, e NULL, c's stream) is done, c failed, or the deadline passed (which aborts
 * c: PyTorch's watchdog, for waits that block the host). */
static nb_status host_wait(const char* op, nb_comm* c, nb_event* e, int64_t seq, double deadline) {
    nb_stream* s = nb_comm_stream(c);
    const double start = nb_monotonic_s();
    nb_blocking_end_fn end = NULL;
    void* token = nb_blocking_begin(&end);
    nb_status st;
    for (;;) {
        int32_t done = 0;
        st = e != NULL ? nb_event_query(e, &done) : nb_stream_query(s, &done);
        if (st != NB_OK || (st = nb_nccl_async_error(op, c)) != NB_OK || done) break;
        if (failed(c, seq)) {
            st = nb_nccl_failed(op, c);
            break;
        }
        const double now = nb_monotonic_s();
        if (now > deadline) {
            char why[512];
            snprintf(why, sizeof why, "%s timed out on rank %d of %d after waiting %.1f s for the device's NCCL work "
                     "(timeout %g s; a rank died, hangs or called a different collective); the communicator was "
                     "aborted", op, c->rank, c->size, now - start, c->timeout_s);
            st = nb_nccl_abort(op, c, why);
            break;
        }
        nanosleep(&(struct timespec){0, now - start < 0.01 ? 20000 : 1000000}, NULL);
    }
    if (end) end(token);
    return st;
}

nb_status nb_nccl_wait_device(const char* op, nb_comm* c) {
    return host_wait(op, c, NULL, atomic_load(&c->seq), nb_monotonic_s() + c->timeout_s);
}

nb_status nb_nccl_work_wait(nb_work* w) {
    nb_comm* c = w->comm;
    nb_status st = c->blocking_wait ? host_wait(w->op, c, w->event, w->seq, w->deadline) : NB_OK;
    if (st == NB_OK && failed(c, w->seq)) st = nb_nccl_failed(w->op, c);
    /* the caller's current stream waits for the call's stream; the host does not */
    if (st == NB_OK) st = nb_stream_wait_event(nb_comm_stream(c), w->event);
    if (st == NB_OK) st = nb_nccl_async_error(w->op, c);
    return st;
}

/* One group of point-to-point calls: ranks[i] < 0 skips slot i. */
ncclResult_t nb_nccl_group(const nb_comm* c, int32_t n, void* const* send, const int64_t* send_bytes,
                           const int32_t* send_to, void* const* recv, const int64_t* recv_bytes,
                           const int32_t* recv_from) {
    void* s = nb_comm_native_stream(c);
    ncclResult_t rc = nb_nccl->GroupStart();
    for (int32_t i = 0; rc == 0 && i < n; i++) {
        if (send != NULL && send_to[i] >= 0 && send_bytes[i] > 0)
            rc = nb_nccl->Send(send[i], (size_t)send_bytes[i], ncclUint8, send_to[i], c->nccl, s);
        if (rc == 0 && recv != NULL && recv_from[i] >= 0 && recv_bytes[i] > 0)
            rc = nb_nccl->Recv(recv[i], (size_t)recv_bytes[i], ncclUint8, recv_from[i], c->nccl, s);
    }
    ncclResult_t end = nb_nccl->GroupEnd();
    return rc != 0 ? rc : end;
}
