/* nccl.h: the NCCL side of the collectives (nccl.c), private to src/distributed. */
#ifndef NABLA_DIST_NCCL_H_
#define NABLA_DIST_NCCL_H_

#include "comm.h"

/* c's stream as the native cudaStream_t NCCL takes. */
NB_INTERNAL void* nb_comm_native_stream(const nb_comm* c);
/* NCCL's type for a wire dtype; the wire dtype of a reduction (int16 in int32). */
NB_INTERNAL ncclDataType_t nb_nccl_type(int32_t dtype);
NB_INTERNAL int32_t nb_nccl_reduce_dtype(int32_t dtype);
/* PyTorch's ReduceOp as NCCL's (SUM of bools is a logical or); BAND/BOR/BXOR are refused. */
NB_INTERNAL nb_status nb_nccl_op(const char* op, int32_t red, int32_t dtype, ncclRedOp_t* out);
/* After the NCCL call (rc): queues the copies back, records the work's event, returns or finishes it. */
NB_INTERNAL nb_status nb_nccl_post(nb_work* w, const char* what, ncclResult_t rc, nb_work** work);
/* NCCL's asynchronous error of c (a failed collective on the device) as a status; it aborts c. */
NB_INTERNAL nb_status nb_nccl_async_error(const char* op, nb_comm* c);
/* "NCCL failed on rank r of n: <NCCL's text> (NCCL error e)". */
NB_INTERNAL void nb_nccl_error_text(char* buf, size_t cap, const nb_comm* c, ncclResult_t err);
/* Waits for c's stream on the host, failing on NCCL's asynchronous error or after c's timeout (which
 * aborts c: PyTorch's watchdog). */
NB_INTERNAL nb_status nb_nccl_wait_device(const char* op, nb_comm* c);
/* An NCCL work's wait: the current stream waits for it (the host too, in blocking-wait mode); it fails when
 * the watchdog aborted the communicator before the work ended. */
NB_INTERNAL nb_status nb_nccl_work_wait(nb_work* w);
NB_INTERNAL bool nb_nccl_work_failed(const nb_work* w);
/* ncclSend/ncclRecv of bytes in one group: slot i sends send_bytes[i] to send_to[i] and receives
 * recv_bytes[i] from recv_from[i] (a negative rank or zero bytes skips it). */
NB_INTERNAL ncclResult_t nb_nccl_group(const nb_comm* c, int32_t n, void* const* send, const int64_t* send_bytes,
                                       const int32_t* send_to, void* const* recv, const int64_t* recv_bytes,
                                       const int32_t* recv_from);

#endif
