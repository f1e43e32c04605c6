/* collectives.c: the collectives and point-to-point calls, on MPI (CPU tensors) and NCCL (CUDA
 * tensors, nccl.c).
 *
 * Each one stages its tensors into contiguous buffers of the dtype that goes over the wire
 * (the tensor itself when it already is one; on MPI float16/bfloat16 reductions in float32, so
 * the sum is rounded once at the end), starts a nonblocking MPI request and hands out a work item,
 * or waits for it when the caller passed no work pointer. Results staged in a buffer are copied
 * back into the caller's tensor when the work finishes. On NCCL the call is queued on the current
 * stream instead (nccl.c says what differs). */
#include "nccl.h"

#include <stdlib.h>

/* PyTorch's ReduceOp numbering. */
enum { RED_SUM = 0, RED_AVG = 1, RED_PRODUCT = 2, RED_MIN = 3, RED_MAX = 4, RED_BAND = 5, RED_BOR = 6,
       RED_BXOR = 7 };
#define MPI_BAND_ ((MPI_Op)0x00000028) /* mpi_abi.h's MPI_BAND, MPI_BOR, MPI_BXOR */
#define MPI_BOR_ ((MPI_Op)0x00000029)
#define MPI_BXOR_ ((MPI_Op)0x0000002a)

static MPI_Datatype mpi_type(int32_t dtype) {
    switch (dtype) {
    case NB_F32: return MPI_FLOAT;
    case NB_F64: return MPI_DOUBLE;
    case NB_I16: return MPI_INT16_T;
    case NB_F16: case NB_BF16: return MPI_UINT16_T; /* only moved: reductions stage them in float32 */
    case NB_I8: return MPI_INT8_T;
    case NB_I32: return MPI_INT32_T;
    case NB_I64: return MPI_INT64_T;
    default: return MPI_UINT8_T; /* u8, bool */
    }
}

static bool is_float(int32_t d) { return d == NB_F32 || d == NB_F64 || d == NB_F16 || d == NB_BF16; }

/* The wire dtype of a reduction: on MPI float16/bfloat16 reduce in float32. */
static int32_t reduce_dtype(const nb_comm* c, int32_t d) {
    if (c->nccl != NULL) return nb_nccl_reduce_dtype(d);
    return d == NB_F16 || d == NB_BF16 ? NB_F32 : d;
}

static nb_status mpi_op(const char* op, int32_t red, int32_t dtype, MPI_Op* out) {
    static const char* names[] = {"SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"};
    bool b = dtype == NB_BOOL;
    switch (red) {
    case RED_SUM: *out = b ? MPI_MAX : MPI_SUM; return NB_OK;  /* bool: logical or, as PyTorch */
    case RED_PRODUCT: *out = b ? MPI_MIN : MPI_PROD; return NB_OK;
    case RED_MIN: *out = MPI_MIN; return NB_OK;
    case RED_MAX: *out = MPI_MAX; return NB_OK;
    case RED_AVG:
        if (!is_float(dtype)) break;
        *out = MPI_SUM;
        return NB_OK;
    case RED_BAND: case RED_BOR: case RED_BXOR:
        if (is_float(dtype)) break;
        *out = red == RED_BAND ? MPI_BAND_ : red == RED_BOR ? MPI_BOR_ : MPI_BXOR_;
        return NB_OK;
    default:
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: unknown reduce op %d", op, red);
    }
    return nb_error(NB_ERR_DTYPE, "%s: ReduceOp.%s is not supported for %s tensors", op, names[red],
                    nb_dtype_str(dtype));
}

/* A read-only destination is refused before anything else, the communicator included, as every
 * writer in nabla refuses it first. */
#define WRITABLE_FIRST(op, t)                        \
    do {                                             \
        if (nb_tensor_ok(t)) NB_CHECK_WRITABLE(op, t); \
    } while (0)

/* The reduction as MPI's (*mop) or NCCL's (*nop) op, by c's backend. */
static nb_status reduce_op(const char* op, const nb_comm* c, int32_t red, int32_t dtype, MPI_Op* mop,
                           ncclRedOp_t* nop) {
    return c->nccl != NULL ? nb_nccl_op(op, red, dtype, nop) : mpi_op(op, red, dtype, mop);
}

static nb_status check_tensor(const char* op, const nb_comm* c, const char* arg, const nb_tensor* t, bool written) {
    if (!nb_tensor_ok(t)) return nb_bad_handle(op, arg, t);
    const int32_t type = t->storage->device_type, index = t->storage->device_index;
    if (c->nccl == NULL && type != NB_CPU)
        return nb_error(NB_ERR_DEVICE, "%s: the MPI backend takes CPU tensors; '%s' is on a CUDA device "
                        "(use backend \"nccl\" for CUDA tensors)", op, arg);
    if (c->nccl != NULL && (type != NB_CUDA || index != c->device_index))
        return nb_error(NB_ERR_DEVICE, "%s: this NCCL communicator takes tensors on cuda:%d; '%s' is on %s:%d", op,
                        c->device_index, arg, nb_device_type_name(type), index);
    if (written) NB_CHECK_WRITABLE(op, t);
    return NB_OK;
}

static nb_status check_rank(const char* op, const char* what, const nb_comm* c, int32_t r) {
    if (r < 0 || r >= c->size)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s rank %d is out of range for a group of %d", op, what, r,
                        c->size);
    return NB_OK;
}

static nb_status check_numel(const char* op, const nb_tensor* big, const char* big_name, const nb_tensor* small,
                             const char* small_name, int64_t factor) {
    if (big->numel != small->numel * factor)
        return nb_error(NB_ERR_SHAPE, "%s: '%s' (shape %s) must hold %lld times the elements of '%s' (shape %s)",
                        op, big_name, nb_shape_str(big->shape, big->ndim), (long long)factor, small_name,
                        nb_shape_str(small->shape, small->ndim));
    if (big->dtype != small->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: '%s' is %s but '%s' is %s", op, big_name, nb_dtype_str(big->dtype),
                        small_name, nb_dtype_str(small->dtype));
    return NB_OK;
}

static void keep(nb_work* w, nb_tensor* t) {
    nb_tensor_retain(t);
    w->keep[w->n_keep++] = t;
}

static void copy_back(nb_work* w, nb_tensor* dst, nb_tensor* src) {
    nb_tensor_retain(dst);
    nb_tensor_retain(src);
    w->copies[w->n_copies].dst = dst;
    w->copies[w->n_copies++].src = src;
}

/* A contiguous buffer of t's elements in dtype `wire`: t itself when it is one (and `fresh` is not
 * asked for), else a new tensor, filled from t when `fill`, copied back into t at the end when
 * `back`. Kept alive by w. */
static nb_status stage(const char* op, nb_work* w, nb_tensor* t, int32_t wire, bool fill, bool back, bool fresh,
                       nb_tensor** buf) {
    if (t->contiguous && t->dtype == wire && !fresh) {
        keep(w, t);
        if (back) nb_tensor_bump_version(t);
        *buf = t;
        return NB_OK;
    }
    nb_tensor* tmp;
    nb_status st = nb_tensor_new(op, t->shape, t->ndim, wire, t->storage->device_type, t->storage->device_index, &tmp);
    if (st == NB_OK && fill) st = nb_copy_into(op, tmp, t);
    if (st != NB_OK) {
        nb_tensor_release(tmp);
        return st;
    }
    keep(w, tmp);
    nb_tensor_release(tmp);
    if (back) copy_back(w, t, tmp);
    *buf = tmp;
    return NB_OK;
}

static void* data(const nb_tensor* t) { return t == NULL ? NULL : nb_tensor_data(t); }
static int64_t bytes(const nb_tensor* t) { return t->numel * nb_dtype_size(t->dtype); }
#define STREAM(c) nb_comm_native_stream(c)

/* Starts the request (rc is the MPI call's result) and returns or waits for the work. */
static nb_status post(nb_work* w, const char* what, int rc, nb_work** work) {
    nb_status st = nb_mpi_check(w->op, what, rc);
    if (st != NB_OK) {
        nb_work_discard(w);
        return st;
    }
    w->deadline = nb_monotonic_s() + w->comm->timeout_s;
    return nb_work_return(w, work);
}

/* NCCL point-to-point slots of a gather, scatter, all_to_all, send, recv (one per rank) or batch (one per op). */
typedef struct {
    void** send;
    void** recv;
    int64_t *send_bytes, *recv_bytes;
    int32_t *send_to, *recv_from;
    int32_t n;
} p2p_plan;

/* A plan of n empty slots, owned by w. */
static nb_status p2p_new(const char* op, nb_work* w, int32_t n_slots, p2p_plan** out) {
    const size_t n = (size_t)n_slots;
    char* block = calloc(1, sizeof(p2p_plan) + n * (2 * sizeof(void*) + 2 * sizeof(int64_t) + 2 * sizeof(int32_t)));
    if (block == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    p2p_plan* p = (p2p_plan*)block;
    p->n = n_slots;
    p->send = (void**)(p + 1), p->recv = p->send + n;
    p->send_bytes = (int64_t*)(p->recv + n), p->recv_bytes = p->send_bytes + n;
    p->send_to = (int32_t*)(p->recv_bytes + n), p->recv_from = p->send_to + n;
    for (size_t i = 0; i < n; i++) p->send_to[i] = p->recv_from[i] = -1;
    w->p2p = block;
    *out = p;
    return NB_OK;
}

static nb_status p2p_post(nb_work* w, const p2p_plan* p, nb_work** work) {
    return nb_nccl_post(w, "ncclSend/ncclRecv", nb_nccl_group(w->comm, p->n, p->send, p->send_bytes,
                                                              p->send_to, p->recv, p->recv_bytes, p->recv_from), work);
}

#define BEGIN(code, root, t, n_keep, n_copies)                                 \
    nb_status st = nb_comm_check_peers(op, c, code, root, t);                  \
    nb_work* w = NULL;                                                         \
    if (st == NB_OK) st = nb_work_new(op, c, n_keep, n_copies, &w);            \
    if (st != NB_OK) return st
#define FAIL_IF(st) do { if ((st) != NB_OK) { nb_work_discard(w); return st; } } while (0)
#define CALL(fn, ...) (nb_mpi_lock(), rc = nb_mpi->fn(__VA_ARGS__), nb_mpi_unlock(), rc)

NB_API nb_status nb_comm_all_reduce(nb_comm* c, nb_tensor* t, int32_t red, nb_work** work) {
    const char* op = "all_reduce";
    WRITABLE_FIRST(op, t);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "tensor", t, true);
    MPI_Op mop = MPI_SUM;
    ncclRedOp_t nop = ncclSum;
    if (st0 == NB_OK) st0 = reduce_op(op, c, red, t->dtype, &mop, &nop);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_ALL_REDUCE, red, t, 1, 1);
    nb_tensor* buf;
    int32_t wire = reduce_dtype(c, t->dtype);
    FAIL_IF(st = stage(op, w, t, wire, true, true, false, &buf));
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclAllReduce", nb_nccl->AllReduce(data(buf), data(buf), (size_t)buf->numel,
                                                                   nb_nccl_type(wire), nop, c->nccl, STREAM(c)), work);
    if (red == RED_AVG) nb_tensor_retain(w->avg = buf);
    int rc;
    return post(w, "MPI_Iallreduce", CALL(Iallreduce_c, MPI_IN_PLACE, data(buf), buf->numel, mpi_type(wire), mop,
                                          c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_broadcast(nb_comm* c, nb_tensor* t, int32_t root, nb_work** work) {
    const char* op = "broadcast";
    WRITABLE_FIRST(op, t);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "tensor", t, true);
    if (st0 == NB_OK) st0 = check_rank(op, "root", c, root);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_BROADCAST, root, t, 1, 1);
    nb_tensor* buf;
    bool is_root = c->rank == root;
    FAIL_IF(st = stage(op, w, t, t->dtype, is_root, !is_root, false, &buf));
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclBroadcast", nb_nccl->Broadcast(data(buf), data(buf), (size_t)bytes(buf), ncclUint8,
                                                                   root, c->nccl, STREAM(c)), work);
    int rc;
    return post(w, "MPI_Ibcast", CALL(Ibcast_c, data(buf), buf->numel, mpi_type(t->dtype), root, c->mpi, &w->req),
                work);
}

NB_API nb_status nb_comm_reduce(nb_comm* c, nb_tensor* t, int32_t root, int32_t red, nb_work** work) {
    const char* op = "reduce";
    WRITABLE_FIRST(op, t);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "tensor", t, true);
    MPI_Op mop = MPI_SUM;
    ncclRedOp_t nop = ncclSum;
    if (st0 == NB_OK) st0 = check_rank(op, "root", c, root);
    if (st0 == NB_OK) st0 = reduce_op(op, c, red, t->dtype, &mop, &nop);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_REDUCE, root, t, 1, 1);
    nb_tensor* buf;
    bool is_root = c->rank == root;
    int32_t wire = reduce_dtype(c, t->dtype);
    FAIL_IF(st = stage(op, w, t, wire, true, is_root, false, &buf));
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclReduce", nb_nccl->Reduce(data(buf), data(buf), (size_t)buf->numel,
                                                             nb_nccl_type(wire), nop, root, c->nccl, STREAM(c)), work);
    if (red == RED_AVG && is_root) nb_tensor_retain(w->avg = buf);
    int rc;
    return post(w, "MPI_Ireduce", CALL(Ireduce_c, is_root ? MPI_IN_PLACE : data(buf), is_root ? data(buf) : NULL,
                                       buf->numel, mpi_type(wire), mop, root, c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_all_gather(nb_comm* c, nb_tensor* out, const nb_tensor* in, nb_work** work) {
    const char* op = "all_gather";
    WRITABLE_FIRST(op, out);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "output", out, true);
    if (st0 == NB_OK) st0 = check_tensor(op, c, "input", in, false);
    if (st0 == NB_OK) st0 = check_numel(op, out, "output", in, "input", c->size);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_ALL_GATHER, 0, in, 2, 1);
    nb_tensor *ibuf, *obuf;
    bool overlap = nb_tensors_overlap(out, in);
    FAIL_IF(st = stage(op, w, (nb_tensor*)in, in->dtype, true, false, overlap, &ibuf));
    FAIL_IF(st = stage(op, w, out, out->dtype, false, true, false, &obuf));
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclAllGather", nb_nccl->AllGather(data(ibuf), data(obuf), (size_t)bytes(ibuf), ncclUint8,
                                                                   c->nccl, STREAM(c)), work);
    MPI_Datatype ty = mpi_type(in->dtype);
    int rc;
    return post(w, "MPI_Iallgather", CALL(Iallgather_c, data(ibuf), ibuf->numel, ty, data(obuf), ibuf->numel, ty,
                                          c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_all_gather_list(nb_comm* c, nb_tensor* const* outs, int32_t n, const nb_tensor* in,
                                         nb_work** work) {
    const char* op = "all_gather";
    NB_CHECK_COMM(op, c);
    if (outs == NULL || n != c->size)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the output list must hold one tensor per rank (%d), got %d", op,
                        c->size, outs == NULL ? 0 : n);
    nb_status st0 = check_tensor(op, c, "input", in, false);
    for (int32_t i = 0; st0 == NB_OK && i < n; i++) {
        st0 = check_tensor(op, c, "output", outs[i], true);
        if (st0 == NB_OK) st0 = check_numel(op, outs[i], "output", in, "input", 1);
    }
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_ALL_GATHER, 0, in, 2, n);
    nb_tensor *ibuf, *obuf;
    int64_t shape = in->numel * n;
    FAIL_IF(st = stage(op, w, (nb_tensor*)in, in->dtype, true, false, false, &ibuf));
    FAIL_IF(st = nb_tensor_new(op, &shape, 1, in->dtype, in->storage->device_type, in->storage->device_index, &obuf));
    keep(w, obuf);
    nb_tensor_release(obuf);
    for (int32_t i = 0; i < n; i++) {
        nb_tensor* chunk;
        int64_t strides[NB_MAX_DIMS];
        nb_contiguous_strides(outs[i]->shape, outs[i]->ndim, strides);
        FAIL_IF(st = nb_tensor_make(op, obuf->storage, in->dtype, outs[i]->shape, strides, outs[i]->ndim,
                                    obuf->offset + i * in->numel, &chunk));
        copy_back(w, outs[i], chunk);
        nb_tensor_release(chunk);
    }
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclAllGather", nb_nccl->AllGather(data(ibuf), data(obuf), (size_t)bytes(ibuf), ncclUint8,
                                                                   c->nccl, STREAM(c)), work);
    MPI_Datatype ty = mpi_type(in->dtype);
    int rc;
    return post(w, "MPI_Iallgather", CALL(Iallgather_c, data(ibuf), ibuf->numel, ty, data(obuf), ibuf->numel, ty,
                                          c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_reduce_scatter(nb_comm* c, nb_tensor* out, const nb_tensor* in, int32_t red,
                                        nb_work** work) {
    const char* op = "reduce_scatter";
    WRITABLE_FIRST(op, out);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "output", out, true);
    MPI_Op mop = MPI_SUM;
    ncclRedOp_t nop = ncclSum;
    if (st0 == NB_OK) st0 = check_tensor(op, c, "input", in, false);
    if (st0 == NB_OK) st0 = check_numel(op, in, "input", out, "output", c->size);
    if (st0 == NB_OK) st0 = reduce_op(op, c, red, out->dtype, &mop, &nop);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_REDUCE_SCATTER, red, out, 2, 1);
    nb_tensor *ibuf, *obuf;
    int32_t wire = reduce_dtype(c, out->dtype);
    FAIL_IF(st = stage(op, w, (nb_tensor*)in, wire, true, false, nb_tensors_overlap(out, in), &ibuf));
    FAIL_IF(st = stage(op, w, out, wire, false, true, false, &obuf));
    if (c->nccl != NULL)
        return nb_nccl_post(w, "ncclReduceScatter",
                            nb_nccl->ReduceScatter(data(ibuf), data(obuf), (size_t)obuf->numel, nb_nccl_type(wire), nop,
                                                   c->nccl, STREAM(c)), work);
    if (red == RED_AVG) nb_tensor_retain(w->avg = obuf);
    int rc;
    return post(w, "MPI_Ireduce_scatter_block", CALL(Ireduce_scatter_block_c, data(ibuf), data(obuf), obuf->numel,
                                                     mpi_type(wire), mop, c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_gather(nb_comm* c, nb_tensor* out, const nb_tensor* in, int32_t root, nb_work** work) {
    const char* op = "gather";
    WRITABLE_FIRST(op, out);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "input", in, false);
    bool is_root = c->rank == root;
    if (st0 == NB_OK) st0 = check_rank(op, "root", c, root);
    if (st0 == NB_OK && is_root) st0 = check_tensor(op, c, "output", out, true);
    if (st0 == NB_OK && is_root) st0 = check_numel(op, out, "output", in, "input", c->size);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_GATHER, root, in, 2, 1);
    nb_tensor *ibuf, *obuf = NULL;
    FAIL_IF(st = stage(op, w, (nb_tensor*)in, in->dtype, true, false, is_root && nb_tensors_overlap(out, in), &ibuf));
    if (is_root) FAIL_IF(st = stage(op, w, out, out->dtype, false, true, false, &obuf));
    if (c->nccl != NULL) {  /* every rank sends to root, which receives each rank's piece in order */
        p2p_plan* p;
        FAIL_IF(st = p2p_new(op, w, c->size, &p));
        p->send[0] = data(ibuf), p->send_bytes[0] = bytes(ibuf), p->send_to[0] = root;
        for (int32_t r = 0; is_root && r < c->size; r++)
            p->recv[r] = (char*)data(obuf) + r * bytes(ibuf), p->recv_bytes[r] = bytes(ibuf), p->recv_from[r] = r;
        return p2p_post(w, p, work);
    }
    MPI_Datatype ty = mpi_type(in->dtype);
    int rc;
    return post(w, "MPI_Igather", CALL(Igather_c, data(ibuf), ibuf->numel, ty, data(obuf), ibuf->numel, ty, root,
                                       c->mpi, &w->req), work);
}

NB_API nb_status nb_comm_scatter(nb_comm* c, nb_tensor* out, const nb_tensor* in, int32_t root, nb_work** work) {
    const char* op = "scatter";
    WRITABLE_FIRST(op, out);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "output", out, true);
    bool is_root = c->rank == root;
    if (st0 == NB_OK) st0 = check_rank(op, "root", c, root);
    if (st0 == NB_OK && is_root) st0 = check_tensor(op, c, "input", in, false);
    if (st0 == NB_OK && is_root) st0 = check_numel(op, in, "input", out, "output", c->size);
    if (st0 != NB_OK) return st0;
    BEGIN(NB_COLL_SCATTER, root, out, 2, 1);
    nb_tensor *ibuf = NULL, *obuf;
    if (is_root)
        FAIL_IF(st = stage(op, w, (nb_tensor*)in, in->dtype, true, false, nb_tensors_overlap(out, in), &ibuf));
    FAIL_IF(st = stage(op, w, out, out->dtype, false, true, false, &obuf));
    if (c->nccl != NULL) {  /* root sends piece r to rank r; every rank receives its piece from root */
        p2p_plan* p;
        FAIL_IF(st = p2p_new(op, w, c->size, &p));
        for (int32_t r = 0; is_root && r < c->size; r++)
            p->send[r] = (char*)data(ibuf) + r * bytes(obuf), p->send_bytes[r] = bytes(obuf), p->send_to[r] = r;
        p->recv[0] = data(obuf), p->recv_bytes[0] = bytes(obuf), p->recv_from[0] = root;
        return p2p_post(w, p, work);
    }
    MPI_Datatype ty = mpi_type(out->dtype);
    int rc;
    return post(w, "MPI_Iscatter", CALL(Iscatter_c, data(ibuf), obuf->numel, ty, data(obuf), obuf->numel, ty, root,
                                        c->mpi, &w->req), work);
}

/* Element counts and offsets of all_to_all's pieces: split sizes in rows of dim 0, or equal pieces. */
static nb_status split_counts(const char* op, const char* name, const nb_tensor* t, const int64_t* splits,
                              int32_t size, MPI_Count* counts, MPI_Aint* displs) {
    int64_t rows = t->ndim == 0 ? 1 : t->shape[0], row = rows == 0 ? 0 : t->numel / rows, total = 0;
    for (int32_t r = 0; r < size; r++) {
        int64_t n = splits != NULL ? splits[r] : rows / size;
        if (n < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s split size %lld is negative", op, name, (long long)n);
        counts[r] = n * row;
        displs[r] = (MPI_Aint)(total * row);
        total += n;
    }
    if (total != rows || (splits == NULL && rows % size != 0))
        return nb_error(NB_ERR_SHAPE, "%s: %s of shape %s cannot be split into %s along dim 0 for %d ranks", op, name,
                        nb_shape_str(t->shape, t->ndim), splits ? "those split sizes" : "equal pieces", size);
    return NB_OK;
}

NB_API nb_status nb_comm_all_to_all(nb_comm* c, nb_tensor* out, const nb_tensor* in, const int64_t* out_splits,
                                    const int64_t* in_splits, int32_t n_splits, nb_work** work) {
    const char* op = "all_to_all";
    WRITABLE_FIRST(op, out);
    NB_CHECK_COMM(op, c);
    nb_status st0 = check_tensor(op, c, "output", out, true);
    if (st0 == NB_OK && (out_splits != NULL || in_splits != NULL) && n_splits != c->size)
        st0 = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: split sizes must have one entry per rank (%d), got %d", op,
                       c->size, n_splits);
    if (st0 == NB_OK) st0 = check_tensor(op, c, "input", in, false);
    if (st0 == NB_OK && out->dtype != in->dtype)
        st0 = nb_error(NB_ERR_DTYPE, "%s: 'output' is %s but 'input' is %s", op, nb_dtype_str(out->dtype),
                       nb_dtype_str(in->dtype));
    if (st0 != NB_OK) return st0;
    bool equal = out_splits == NULL && in_splits == NULL;
    BEGIN(NB_COLL_ALL_TO_ALL, 0, equal ? in : NULL, 2, 1);
    int32_t n = c->size;
    void* block = malloc(4 * sizeof(int64_t) * (size_t)n);
    if (block == NULL) FAIL_IF(st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op));
    w->counts = block;
    MPI_Count *scount = block, *rcount = scount + n;
    MPI_Aint *sdispl = (MPI_Aint*)(rcount + n), *rdispl = sdispl + n;
    FAIL_IF(st = split_counts(op, "input", in, in_splits, n, scount, sdispl));
    FAIL_IF(st = split_counts(op, "output", out, out_splits, n, rcount, rdispl));
    nb_tensor *ibuf, *obuf;
    FAIL_IF(st = stage(op, w, (nb_tensor*)in, in->dtype, true, false, nb_tensors_overlap(out, in), &ibuf));
    FAIL_IF(st = stage(op, w, out, out->dtype, false, true, false, &obuf));
    if (c->nccl != NULL) {  /* one send and one receive per peer, in one group */
        p2p_plan* p;
        FAIL_IF(st = p2p_new(op, w, c->size, &p));
        const int64_t es = nb_dtype_size(in->dtype);
        for (int32_t r = 0; r < n; r++) {
            p->send[r] = (char*)data(ibuf) + sdispl[r] * es, p->send_bytes[r] = scount[r] * es, p->send_to[r] = r;
            p->recv[r] = (char*)data(obuf) + rdispl[r] * es, p->recv_bytes[r] = rcount[r] * es, p->recv_from[r] = r;
        }
        return p2p_post(w, p, work);
    }
    MPI_Datatype ty = mpi_type(in->dtype);
    int rc;
    return post(w, "MPI_Ialltoallv", CALL(Ialltoallv_c, data(ibuf), scount, sdispl, ty, data(obuf), rcount, rdispl,
                                          ty, c->mpi, &w->req), work);
}

static nb_status check_peer(const char* op, const nb_comm* c, int32_t peer, int32_t tag) {
    nb_status st = check_rank(op, "peer", c, peer);
    if (st == NB_OK && peer == c->rank)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: invalid peer rank %d: it is the rank of the current process", op,
                      peer);
    if (st == NB_OK && tag < 0)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tag must be non-negative, got %d", op, tag);
    return st;
}

NB_API nb_status nb_comm_send(nb_comm* c, const nb_tensor* t, int32_t dst, int32_t tag, nb_work** work) {
    const char* op = "send";
    NB_CHECK_COMM(op, c);
    nb_status st = check_tensor(op, c, "tensor", t, false);
    if (st == NB_OK) st = check_peer(op, c, dst, tag);
    nb_work* w = NULL;
    if (st == NB_OK) st = nb_work_new(op, c, 1, 0, &w);
    if (st != NB_OK) return st;
    nb_tensor* buf;
    FAIL_IF(st = stage(op, w, (nb_tensor*)t, t->dtype, true, false, false, &buf));
    if (c->nccl != NULL) {  /* NCCL has no tags: sends to a peer match its receives in order */
        p2p_plan* p;
        FAIL_IF(st = p2p_new(op, w, c->size, &p));
        p->send[0] = data(buf), p->send_bytes[0] = bytes(buf), p->send_to[0] = dst;
        return p2p_post(w, p, work);
    }
    int rc;
    return post(w, "MPI_Isend", CALL(Isend_c, data(buf), buf->numel, mpi_type(t->dtype), dst, tag, c->mpi, &w->req),
                work);
}

NB_API nb_status nb_comm_recv(nb_comm* c, nb_tensor* t, int32_t src, int32_t tag, nb_work** work) {
    const char* op = "recv";
    WRITABLE_FIRST(op, t);
    NB_CHECK_COMM(op, c);
    nb_status st = check_tensor(op, c, "tensor", t, true);
    if (st == NB_OK) st = check_peer(op, c, src, tag);
    nb_work* w = NULL;
    if (st == NB_OK) st = nb_work_new(op, c, 1, 1, &w);
    if (st != NB_OK) return st;
    nb_tensor* buf;
    FAIL_IF(st = stage(op, w, t, t->dtype, false, true, false, &buf));
    if (c->nccl != NULL) {
        p2p_plan* p;
        FAIL_IF(st = p2p_new(op, w, c->size, &p));
        p->recv[0] = data(buf), p->recv_bytes[0] = bytes(buf), p->recv_from[0] = src;
        return p2p_post(w, p, work);
    }
    int rc;
    return post(w, "MPI_Irecv", CALL(Irecv_c, data(buf), buf->numel, mpi_type(t->dtype), src, tag, c->mpi, &w->req),
                work);
}

NB_API nb_status nb_comm_barrier(nb_comm* c, nb_work** work) {
    const char* op = "barrier";
    NB_CHECK_COMM(op, c);
    /* NCCL: the device's queued work ends first (as PyTorch's barrier waits for the device), within the timeout. */
    if (c->nccl != NULL) {
        nb_status synced = nb_nccl_wait_device(op, c);
        if (synced != NB_OK) return synced;
    }
    BEGIN(NB_COLL_BARRIER, 0, NULL, 0, 0);
    int rc;
    return post(w, "MPI_Ibarrier", CALL(Ibarrier, c->mpi, &w->req), work);
}

/* MPI: one request per operation, kept as the parts of one work and finished in order. */
static nb_status batch_mpi(const char* op, nb_comm* c, int32_t n, const int32_t* kinds, nb_tensor* const* tensors,
                           const int32_t* peers, const int32_t* tags, nb_work** work) {
    nb_work* w = NULL;
    nb_status st = nb_work_new(op, c, 0, 0, &w);
    if (st != NB_OK) return st;
    if ((w->parts = calloc((size_t)n, sizeof *w->parts)) == NULL)
        FAIL_IF(st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op));
    for (int32_t i = 0; i < n; i++, w->n_parts++) {
        const int32_t tag = tags != NULL ? tags[i] : 0;
        FAIL_IF(st = kinds[i] == NB_P2P_SEND ? nb_comm_send(c, tensors[i], peers[i], tag, &w->parts[i])
                                             : nb_comm_recv(c, tensors[i], peers[i], tag, &w->parts[i]));
    }
    return nb_work_return(w, work);
}

NB_API nb_status nb_comm_batch_isend_irecv(nb_comm* c, int32_t n, const int32_t* kinds, nb_tensor* const* tensors,
                                           const int32_t* peers, const int32_t* tags, nb_work** work) {
    const char* op = "batch_isend_irecv";
    NB_CHECK_COMM(op, c);
    if (n < 1 || kinds == NULL || tensors == NULL || peers == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected a non-empty list of sends and receives, got %d", op,
                        kinds == NULL || tensors == NULL || peers == NULL ? 0 : n);
    int32_t n_recv = 0;
    for (int32_t i = 0; i < n; i++) {
        if (kinds[i] != NB_P2P_SEND && kinds[i] != NB_P2P_RECV)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: operation %d is %d, neither NB_P2P_SEND (0) nor NB_P2P_RECV "
                            "(1)", op, i, kinds[i]);
        nb_status st = check_tensor(op, c, "tensor", tensors[i], kinds[i] == NB_P2P_RECV);
        if (st == NB_OK) st = check_peer(op, c, peers[i], tags != NULL ? tags[i] : 0);
        if (st != NB_OK) return st;
        n_recv += kinds[i] == NB_P2P_RECV;
    }
    if (c->nccl == NULL) return batch_mpi(op, c, n, kinds, tensors, peers, tags, work);
    /* NCCL: every send and receive in one ncclGroupStart/End, so a ring of them cannot deadlock */
    nb_work* w = NULL;
    nb_status st = nb_work_new(op, c, n, n_recv, &w);
    if (st != NB_OK) return st;
    p2p_plan* p;
    FAIL_IF(st = p2p_new(op, w, n, &p));
    for (int32_t i = 0; i < n; i++) {
        const bool is_send = kinds[i] == NB_P2P_SEND;
        nb_tensor* buf;
        FAIL_IF(st = stage(op, w, tensors[i], tensors[i]->dtype, is_send, !is_send, false, &buf));
        if (is_send) p->send[i] = data(buf), p->send_bytes[i] = bytes(buf), p->send_to[i] = peers[i];
        else p->recv[i] = data(buf), p->recv_bytes[i] = bytes(buf), p->recv_from[i] = peers[i];
    }
    return p2p_post(w, p, work);
}
