/* nccl_api.h: the part of NCCL's API nabla calls, declared here (libnabla has no NCCL or CUDA
 * build dependency; the library is opened at run time). Values as in NCCL 2.x's nccl.h. */
#ifndef NABLA_DIST_NCCL_API_H_
#define NABLA_DIST_NCCL_API_H_

#include "../core/internal.h"

typedef struct ncclComm* ncclComm_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef int ncclResult_t;                   /* ncclSuccess = 0, ncclInProgress = 7 */
typedef int ncclDataType_t;
typedef int ncclRedOp_t;
typedef void* nb_cuda_stream;               /* cudaStream_t */

enum { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
       ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9 };
#define NCCL_IN_PROGRESS 7           /* ncclInProgress: not an error */
enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };

typedef struct nb_nccl_api {
    ncclResult_t (*GetVersion)(int*);
    const char* (*GetErrorString)(ncclResult_t);
    ncclResult_t (*GetUniqueId)(ncclUniqueId*);
    ncclResult_t (*CommInitRank)(ncclComm_t*, int, ncclUniqueId, int);
    ncclResult_t (*CommDestroy)(ncclComm_t);
    ncclResult_t (*CommAbort)(ncclComm_t);
    ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t*);
    ncclResult_t (*AllReduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*Broadcast)(const void*, void*, size_t, ncclDataType_t, int, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*Reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*AllGather)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*ReduceScatter)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                  nb_cuda_stream);
    ncclResult_t (*Send)(const void*, size_t, ncclDataType_t, int, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*Recv)(void*, size_t, ncclDataType_t, int, ncclComm_t, nb_cuda_stream);
    ncclResult_t (*GroupStart)(void);
    ncclResult_t (*GroupEnd)(void);
} nb_nccl_api;

/* The loaded library's functions, NULL before nb_nccl_load succeeded. */
NB_INTERNAL extern const nb_nccl_api* nb_nccl;

/* Opens NCCL once per process: `path` when given, else $NABLA_NCCL_LIBRARY, else libnccl.so.2
 * from the loader's search path. Thread-safe; later calls return the first result. */
NB_INTERNAL nb_status nb_nccl_load(const char* op, const char* path);
/* NB_OK for ncclSuccess, else NB_ERR_BACKEND with op, what failed and NCCL's own text. */
NB_INTERNAL nb_status nb_nccl_check(const char* op, const char* what, ncclResult_t rc);

#endif
