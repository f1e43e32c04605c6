/* backend.h: the table a device backend fills in (CPU in-tree, CUDA as a plugin).
 * C and C++ compatible: the CUDA plugin (compiled by nvcc) includes it too. */
#ifndef NABLA_BACKEND_H_
#define NABLA_BACKEND_H_

#include "nabla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever nb_backend or nb_plugin_init_fn changes. */
#define NB_PLUGIN_ABI 1

typedef struct nb_backend {
    const char* name;
    nb_status (*alloc)(int32_t device_index, int64_t nbytes, void** out);
    void (*free)(int32_t device_index, void* ptr, int64_t nbytes);
    /* Copies nbytes; each side's device type says where it lives. */
    nb_status (*copy)(void* dst, int32_t dst_device_type, const void* src, int32_t src_device_type,
                      int64_t nbytes);
    nb_status (*memset)(void* dst, int value, int64_t nbytes);
    /* The message behind the last failed call on this thread. */
    const char* (*last_error)(void);
} nb_backend;

/* Exported by a plugin as "nb_plugin_init". Fills *backend and *device_count; on
 * failure writes why into reason (e.g. "no CUDA driver found"). */
typedef nb_status (*nb_plugin_init_fn)(uint32_t plugin_abi, nb_backend* backend,
                                       int32_t* device_count, char* reason, size_t reason_cap);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_BACKEND_H_ */
