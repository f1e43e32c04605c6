/* backend.h: the table a device backend fills in (CPU in-tree, CUDA as a plugin).
 * C and C++ compatible: the CUDA plugin (compiled by nvcc) includes it too. */
#ifndef NABLA_BACKEND_H_
#define NABLA_BACKEND_H_

#include "nabla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever nb_backend or nb_plugin_init_fn changes. */
#define NB_PLUGIN_ABI 3

/* Elementwise kernels (nb_backend.elementwise): one code per kernel, NB_BK_* from
 * the manifest (abi/gen.py writes ew_codes.h), binary kernels below NB_BK_NUM_BINARY. */
#include "ew_codes.h"

/* One elementwise launch: out[i] = op(in[0][i], in[1][i]) over shape[ndim].
 * Inputs have dtype `dtype` (NB_F32, NB_F64, NB_F16 or NB_BF16; half types
 * compute in float), the output that dtype or bool. Pointers include the
 * tensors' offsets; strides count elements, 0 broadcasts. An input with
 * is_scalar[i] set is the value scalar[i] and in[i] is unused. */
typedef struct nb_bk_ew {
    int32_t op, nin, dtype, ndim;
    int64_t shape[NB_MAX_DIMS];
    void* out;
    int64_t out_strides[NB_MAX_DIMS];
    const void* in[2];
    int64_t in_strides[2][NB_MAX_DIMS];
    int32_t is_scalar[2];
    double scalar[2];
    /* attributes: alpha (add/sub alpha, leaky_relu slope, elu alpha, softplus beta,
     * clamp min, nan_to_num nan), beta (softplus threshold, clamp max, posinf), gamma (neginf) */
    double alpha, beta, gamma;
} nb_bk_ew;

/* A device backend. The CPU table fills only the first block; the CUDA plugin
 * fills everything. Streams and events are the backend's native handles (NULL is
 * the default stream); every call that takes a device index makes that device
 * current for the call. */
typedef struct nb_backend {
    const char* name;
    /* Raw device memory (for CUDA: what the caching allocator carves up). */
    nb_status (*alloc)(int32_t device_index, int64_t nbytes, void** out);
    void (*free)(int32_t device_index, void* ptr, int64_t nbytes);
    /* Copies nbytes and returns when done; each side's device type and index say where it lives. */
    nb_status (*copy)(void* dst, int32_t dst_device_type, int32_t dst_device_index, const void* src,
                      int32_t src_device_type, int32_t src_device_index, int64_t nbytes);
    nb_status (*memset)(void* dst, int32_t device_index, int value, int64_t nbytes);
    /* The message behind the last failed call on this thread. */
    const char* (*last_error)(void);

    /* ---- device runtime (NULL for CPU) ---- */
    nb_status (*device_synchronize)(int32_t device_index);
    nb_status (*mem_info)(int32_t device_index, int64_t* free_bytes, int64_t* total_bytes);
    nb_status (*stream_create)(int32_t device_index, int32_t priority, void** out);
    void (*stream_destroy)(int32_t device_index, void* stream);
    nb_status (*stream_priority_range)(int32_t* least, int32_t* greatest);
    nb_status (*stream_synchronize)(int32_t device_index, void* stream);
    nb_status (*stream_query)(int32_t device_index, void* stream, int32_t* done);
    nb_status (*stream_wait_event)(int32_t device_index, void* stream, void* event);
    /* flags: NB_EVENT_* bits */
    nb_status (*event_create)(int32_t device_index, int32_t flags, void** out);
    void (*event_destroy)(int32_t device_index, void* event);
    nb_status (*event_record)(int32_t device_index, void* event, void* stream);
    nb_status (*event_query)(void* event, int32_t* done);
    nb_status (*event_synchronize)(void* event);
    nb_status (*event_elapsed)(void* start, void* end, float* ms);
    /* Queues a copy on stream and returns (device_index: the device that runs it). */
    nb_status (*copy_async)(int32_t device_index, void* dst, const void* src, int64_t nbytes, void* stream);
    /* Page-locked host memory. */
    nb_status (*host_alloc)(int64_t nbytes, void** out);
    void (*host_free)(void* ptr);
    /* Kernels, queued on stream: dst[i] = pattern (pattern_size 1, 2, 4 or 8 bytes) for
     * count elements; one elementwise op (nb_bk_ew) with no host synchronisation. */
    nb_status (*fill)(int32_t device_index, void* dst, const void* pattern, int32_t pattern_size, int64_t count,
                      void* stream);
    nb_status (*elementwise)(int32_t device_index, const nb_bk_ew* args, void* stream);
} nb_backend;

/* Exported by a plugin as "nb_plugin_init". Fills *backend and *device_count; on
 * failure writes why into reason (e.g. "no CUDA driver found"). */
typedef nb_status (*nb_plugin_init_fn)(uint32_t plugin_abi, nb_backend* backend,
                                       int32_t* device_count, char* reason, size_t reason_cap);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_BACKEND_H_ */
