/* loader.h: MPI, found at run time (libnabla has no MPI dependency). */
#ifndef NABLA_DIST_LOADER_H_
#define NABLA_DIST_LOADER_H_

#include "../core/internal.h"
#include "mpi_abi_min.h"

typedef struct nb_mpi_api {
    int (*Initialized)(int*);
    int (*Finalized)(int*);
    int (*Init_thread)(int*, char***, int, int*);
    int (*Finalize)(void);
    int (*Abort)(MPI_Comm, int);
    int (*Get_library_version)(char*, int*);
    int (*Error_string)(int, char*, int*);
    int (*Comm_dup)(MPI_Comm, MPI_Comm*);
    int (*Comm_split)(MPI_Comm, int, int, MPI_Comm*);
    int (*Comm_free)(MPI_Comm*);
    int (*Comm_rank)(MPI_Comm, int*);
    int (*Comm_size)(MPI_Comm, int*);
    int (*Comm_set_errhandler)(MPI_Comm, MPI_Errhandler);
    int (*Test)(MPI_Request*, int*, MPI_Status*);
    int (*Iallreduce_c)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request*);
    int (*Ibcast_c)(void*, MPI_Count, MPI_Datatype, int, MPI_Comm, MPI_Request*);
    int (*Ireduce_c)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request*);
    int (*Iallgather_c)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype, MPI_Comm,
                        MPI_Request*);
    int (*Ireduce_scatter_block_c)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request*);
    int (*Igather_c)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype, int, MPI_Comm,
                     MPI_Request*);
    int (*Iscatter_c)(const void*, MPI_Count, MPI_Datatype, void*, MPI_Count, MPI_Datatype, int, MPI_Comm,
                      MPI_Request*);
    int (*Ialltoallv_c)(const void*, const MPI_Count*, const MPI_Aint*, MPI_Datatype, void*, const MPI_Count*,
                        const MPI_Aint*, MPI_Datatype, MPI_Comm, MPI_Request*);
    int (*Isend_c)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
    int (*Irecv_c)(void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
    int (*Ibarrier)(MPI_Comm, MPI_Request*);
} nb_mpi_api;

/* The loaded library's functions, NULL before nb_mpi_load succeeded. */
NB_INTERNAL extern const nb_mpi_api* nb_mpi;

/* Opens the MPI library once per process: `path` when given, else $NABLA_MPI_LIBRARY,
 * else libmpi_abi.so.1 from the loader's search path. Thread-safe; later calls return the
 * first result (a different path after a success is ignored). */
NB_INTERNAL nb_status nb_mpi_load(const char* op, const char* path);
/* NB_OK for MPI_SUCCESS, else NB_ERR_BACKEND with op, what failed and MPI's own text. */
NB_INTERNAL nb_status nb_mpi_check(const char* op, const char* what, int rc);

#endif
