/* loader.c: dlopen of the MPI-5 standard ABI library (libmpi_abi.so.1). */
#include "loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

const nb_mpi_api* nb_mpi = NULL;
static nb_mpi_api api;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static char load_error[1024];

#define DEFAULT_MPI_LIBRARY "libmpi_abi.so.1"
#define HOW_TO_INSTALL "install MPI with `pip install mpich` (it ships libmpi_abi.so.1 and mpiexec) " \
                       "or set NABLA_MPI_LIBRARY to the path of an MPI-5 ABI library (libmpi_abi.so)"

static bool resolve(void* lib, const char* path) {
    struct { const char* name; void** slot; } table[] = {
#define SYM(n) {"MPI_" #n, (void**)&api.n}
        SYM(Initialized), SYM(Finalized), SYM(Init_thread), SYM(Finalize), SYM(Abort),
        SYM(Get_library_version), SYM(Error_string), SYM(Comm_dup), SYM(Comm_split), SYM(Comm_free),
        SYM(Comm_rank), SYM(Comm_size), SYM(Comm_set_errhandler), SYM(Test), SYM(Iallreduce_c),
        SYM(Ibcast_c), SYM(Ireduce_c), SYM(Iallgather_c), SYM(Ireduce_scatter_block_c), SYM(Igather_c),
        SYM(Iscatter_c), SYM(Ialltoallv_c), SYM(Isend_c), SYM(Irecv_c), SYM(Ibarrier),
#undef SYM
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        *table[i].slot = dlsym(lib, table[i].name);
        if (*table[i].slot == NULL) {
            snprintf(load_error, sizeof load_error, "%s lacks %s: it is not an MPI-5 ABI library (libmpi_abi.so); "
                     HOW_TO_INSTALL, path, table[i].name);
            return false;
        }
    }
    return true;
}

nb_status nb_mpi_load(const char* op, const char* path) {
    pthread_mutex_lock(&load_lock);
    if (nb_mpi == NULL) {
        const char* env = getenv("NABLA_MPI_LIBRARY");
        const char* chosen = path != NULL && path[0] ? path : env != NULL && env[0] ? env : DEFAULT_MPI_LIBRARY;
        /* RTLD_GLOBAL: MPI implementations open their own plugins that expect its symbols. */
        void* lib = dlopen(chosen, RTLD_NOW | RTLD_GLOBAL);
        if (lib == NULL) {
            const char* why = dlerror();
            snprintf(load_error, sizeof load_error, "MPI library not found (%s); " HOW_TO_INSTALL,
                     why ? why : chosen);
        } else if (resolve(lib, chosen)) {
            nb_mpi = &api;
        } else {
            dlclose(lib);
        }
    }
    nb_status st = nb_mpi != NULL ? NB_OK : nb_error(NB_ERR_BACKEND, "%s: %s", op, load_error);
    pthread_mutex_unlock(&load_lock);
    return st;
}

nb_status nb_mpi_check(const char* op, const char* what, int rc) {
    if (rc == MPI_SUCCESS) return NB_OK;
    char text[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    if (nb_mpi->Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "error code %d", rc);
    return nb_error(NB_ERR_BACKEND, "%s: %s failed: %s", op, what, text);
}
