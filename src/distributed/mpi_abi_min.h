/* mpi_abi_min.h: the few declarations of the MPI-5 standard ABI that nabla uses.
 *
 * In the standard ABI (MPI 5.0, chapter 20) predefined handles are fixed integer
 * constants and every type has a fixed size, so nabla needs no MPI at build time: it
 * dlopens libmpi_abi.so.1 at run time (loader.c) and calls through the pointers below.
 * Values copied from the mpi_abi.h that the `mpich` 5.0.2 wheel installs; they are fixed by
 * the standard, not by MPICH. */
#ifndef NABLA_MPI_ABI_MIN_H_
#define NABLA_MPI_ABI_MIN_H_

#include <stdint.h>

typedef struct MPI_ABI_Comm* MPI_Comm;
typedef struct MPI_ABI_Datatype* MPI_Datatype;
typedef struct MPI_ABI_Op* MPI_Op;
typedef struct MPI_ABI_Request* MPI_Request;
typedef struct MPI_ABI_Errhandler* MPI_Errhandler;
typedef intptr_t MPI_Aint;
typedef int64_t MPI_Count;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} MPI_Status;

#define MPI_COMM_NULL ((MPI_Comm)0x00000100)
#define MPI_COMM_WORLD ((MPI_Comm)0x00000101)
#define MPI_REQUEST_NULL ((MPI_Request)0x00000180)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)0x00000143)
#define MPI_SUM ((MPI_Op)0x00000021)
#define MPI_MIN ((MPI_Op)0x00000022)
#define MPI_MAX ((MPI_Op)0x00000023)
#define MPI_PROD ((MPI_Op)0x00000024)
#define MPI_FLOAT ((MPI_Datatype)0x00000210)
#define MPI_DOUBLE ((MPI_Datatype)0x00000214)
#define MPI_INT8_T ((MPI_Datatype)0x00000240)
#define MPI_UINT8_T ((MPI_Datatype)0x00000241)
#define MPI_INT16_T ((MPI_Datatype)0x00000248)
#define MPI_UINT16_T ((MPI_Datatype)0x00000249)
#define MPI_INT32_T ((MPI_Datatype)0x00000250)
#define MPI_INT64_T ((MPI_Datatype)0x00000258)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_IN_PLACE ((void*)1)
#define MPI_SUCCESS 0
#define MPI_UNDEFINED (-32766)
#define MPI_THREAD_MULTIPLE 4096
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 8192

#endif
