/* nccl_loader.c: finds NCCL (libnccl.so.2) at run time, for the future CUDA backend of nb_comm.
 * Only the loader exists so far: it reports whether NCCL can be used and its version. */
#include "../core/internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_NCCL_LIBRARY "libnccl.so.2"

static pthread_mutex_t nccl_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*get_version)(int*);
static char nccl_error[1024];

NB_API nb_status nb_comm_nccl_available(const char* library, int32_t* version) {
    const char* op = "nb_comm_nccl_available";
    pthread_mutex_lock(&nccl_lock);
    if (get_version == NULL) {
        const char* env = getenv("NABLA_NCCL_LIBRARY");
        const char* chosen = library != NULL && library[0] ? library
                             : env != NULL && env[0] ? env : DEFAULT_NCCL_LIBRARY;
        void* lib = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            const char* why = dlerror();
            snprintf(nccl_error, sizeof nccl_error, "NCCL not found (%s); install it with `pip install "
                     "nvidia-nccl-cu13` or set NABLA_NCCL_LIBRARY to the path of libnccl.so.2", why ? why : chosen);
        } else if ((get_version = (int (*)(int*))dlsym(lib, "ncclGetVersion")) == NULL) {
            snprintf(nccl_error, sizeof nccl_error, "%s lacks ncclGetVersion: it is not an NCCL library", chosen);
            dlclose(lib);
        }
    }
    nb_status st = NB_OK;
    int v = 0;
    if (get_version == NULL) st = nb_error(NB_ERR_BACKEND, "%s: %s", op, nccl_error);
    else if (get_version(&v) != 0) st = nb_error(NB_ERR_BACKEND, "%s: ncclGetVersion failed", op);
    pthread_mutex_unlock(&nccl_lock);
    if (st == NB_OK && version != NULL) *version = v;
    return st;
}
