/* nccl_loader.c: finds NCCL (libnccl.so.2) at run time for the CUDA backend of nb_comm. */
#include "nccl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_NCCL_LIBRARY "libnccl.so.2"

static pthread_mutex_t nccl_lock = PTHREAD_MUTEX_INITIALIZER;
static nb_nccl_api api;
static bool loaded;
static char nccl_error[1024];
const nb_nccl_api* nb_nccl;

static bool resolve(void* lib, const char* chosen) {
    static const struct { const char* name; size_t offset; } symbols[] = {
#define SYM(field) {"nccl" #field, offsetof(nb_nccl_api, field)}
        SYM(GetVersion), SYM(GetErrorString), SYM(GetUniqueId), SYM(CommInitRank), SYM(CommDestroy),
        SYM(CommAbort), SYM(CommGetAsyncError), SYM(AllReduce), SYM(Broadcast), SYM(Reduce), SYM(AllGather),
        SYM(ReduceScatter), SYM(Send), SYM(Recv), SYM(GroupStart), SYM(GroupEnd),
#undef SYM
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void* f = dlsym(lib, symbols[i].name);
        if (f == NULL) {
            snprintf(nccl_error, sizeof nccl_error, "%s lacks %s: it is not an NCCL library (2.12 or newer)", chosen,
                     symbols[i].name);
            return false;
        }
        memcpy((char*)&api + symbols[i].offset, &f, sizeof f);
    }
    return true;
}

nb_status nb_nccl_load(const char* op, const char* path) {
    pthread_mutex_lock(&nccl_lock);
    if (!loaded) {
        const char* env = getenv("NABLA_NCCL_LIBRARY");
        const char* chosen = path != NULL && path[0] ? path : env != NULL && env[0] ? env : DEFAULT_NCCL_LIBRARY;
        void* lib = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            const char* why = dlerror();
            snprintf(nccl_error, sizeof nccl_error, "NCCL not found (%s); install it with `pip install "
                     "nvidia-nccl-cu13` or set NABLA_NCCL_LIBRARY to the path of libnccl.so.2", why ? why : chosen);
        } else if (!resolve(lib, chosen)) {
            dlclose(lib);
        } else {
            loaded = true;
            nb_nccl = &api;
        }
    }
    nb_status st = loaded ? NB_OK : nb_error(NB_ERR_BACKEND, "%s: %s", op, nccl_error);
    pthread_mutex_unlock(&nccl_lock);
    return st;
}

nb_status nb_nccl_check(const char* op, const char* what, ncclResult_t rc) {
    if (rc == 0) return NB_OK;
    const char* text = nb_nccl != NULL ? nb_nccl->GetErrorString(rc) : NULL;
    return nb_error(NB_ERR_BACKEND, "%s: %s failed: %s (NCCL error %d)", op, what, text ? text : "unknown error", rc);
}

NB_API nb_status nb_comm_nccl_available(const char* library, int32_t* version) {
    const char* op = "nb_comm_nccl_available";
    nb_status st = nb_nccl_load(op, library);
    int v = 0;
    if (st == NB_OK) st = nb_nccl_check(op, "ncclGetVersion", nb_nccl->GetVersion(&v));
    if (st == NB_OK && version != NULL) *version = v;
    return st;
}
