/* nabla.h: the public C ABI of nabla, a tensor runtime.
 *
 * GENERATED from abi/nabla.json by abi/gen.py: edit the manifest, then run
 * `python abi/gen.py write`. Pure C11; parseable by cffi and FFI generators.
 *
 * Conventions: every fallible function returns nb_status (0 = NB_OK) and puts a
 * message naming the function and its arguments in nb_last_error_message(),
 * per thread; on failure out-parameters are untouched. Tensor inputs are
 * borrowed; every tensor handed out is a new reference the caller releases with
 * nb_tensor_release(). Shapes and strides are int64_t, strides in elements.
 * "dst/out by convention": with dst NULL the op writes a new tensor to *out; with dst
 * non-NULL the result goes into dst (PyTorch's out=, in place when dst is an input) and
 * *out, which may then be NULL, receives a new reference to dst.
 */
#ifndef NABLA_H_
#define NABLA_H_

#include <stddef.h>
#include <stdint.h>

/* FFI generators may predefine NB_API as empty. */
#ifndef NB_API
#  if defined(_WIN32)
#    if defined(NB_BUILDING_LIBRARY)
#      define NB_API __declspec(dllexport)
#    else
#      define NB_API __declspec(dllimport)
#    endif
#  elif defined(__GNUC__)
#    define NB_API __attribute__((visibility("default")))
#  else
#    define NB_API
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define NB_VERSION_MAJOR 0
#define NB_VERSION_MINOR 1
#define NB_VERSION_PATCH 0
#define NB_VERSION_NUMBER 100

/* Maximum number of dimensions of a tensor. */
#define NB_MAX_DIMS 16

/* Status codes (nb_status). 0 is success; values are explicit and append-only. */
#define NB_OK                   0  /* success */
#define NB_ERR_INVALID_ARGUMENT 1  /* an argument is malformed (NULL pointer, negative size, bad step) */
#define NB_ERR_SHAPE            2  /* shapes are incompatible (broadcast, reshape, element counts) */
#define NB_ERR_DTYPE            3  /* a dtype is unknown or not supported by the operation */
#define NB_ERR_DEVICE           4  /* a device is unknown, unavailable, or devices do not match */
#define NB_ERR_INDEX            5  /* a dimension or index is out of range */
#define NB_ERR_OUT_OF_MEMORY    6  /* an allocation failed */
#define NB_ERR_NOT_IMPLEMENTED  7  /* the operation is not implemented for these arguments */
#define NB_ERR_AUTOGRAD         8  /* an autograd rule was violated */
#define NB_ERR_BACKEND          9  /* a device backend (CUDA) reported an error */
#define NB_ERR_ABI_VERSION      10  /* caller and library disagree on the ABI version */
#define NB_ERR_INTERNAL         11  /* an internal invariant failed (a bug in nabla) */
#define NB_ERR_LINALG           12  /* a linear-algebra routine failed on its input (a singular or not positive-definite matrix, no convergence): PyTorch's LinAlgError */

/* Element types (int32_t dtype codes). */
#define NB_F32  0  /* float32 */
#define NB_F64  1  /* float64 */
#define NB_F16  2  /* float16 (IEEE binary16) */
#define NB_BF16 3  /* bfloat16 */
#define NB_I8   4  /* int8 */
#define NB_I16  5  /* int16 */
#define NB_I32  6  /* int32 */
#define NB_I64  7  /* int64 */
#define NB_U8   8  /* uint8 */
#define NB_BOOL 9  /* bool (one byte, 0 or 1) */

/* Device types (int32_t); the values equal DLPack's DLDeviceType. */
#define NB_CPU       1  /* host memory */
#define NB_CUDA      2  /* CUDA device memory */
#define NB_CUDA_HOST 3  /* pinned host memory */

/* Rounding modes of nb_div (int32_t). */
#define NB_ROUND_NONE  0  /* true division */
#define NB_ROUND_TRUNC 1  /* round toward zero */
#define NB_ROUND_FLOOR 2  /* round toward negative infinity (Python's //) */

/* How a loss reduces over its elements (int32_t). */
#define NB_REDUCTION_NONE 0  /* one loss per element */
#define NB_REDUCTION_MEAN 1  /* the (weighted) mean */
#define NB_REDUCTION_SUM  2  /* the sum */

/* Padding modes of nb_pad (int32_t). */
#define NB_PAD_CONSTANT  0  /* a constant value (negative pads crop) */
#define NB_PAD_REFLECT   1  /* mirror without repeating the edge */
#define NB_PAD_REPLICATE 2  /* repeat the edge */
#define NB_PAD_CIRCULAR  3  /* wrap around */

/* Reductions of nb_scatter_reduce (int32_t); PyTorch's reduce strings. */
#define NB_SCATTER_SUM  0  /* "sum" */
#define NB_SCATTER_PROD 1  /* "prod" */
#define NB_SCATTER_MEAN 2  /* "mean" (integers divide rounding down) */
#define NB_SCATTER_AMAX 3  /* "amax" (NaN propagates) */
#define NB_SCATTER_AMIN 4  /* "amin" (NaN propagates) */

/* What nb_linalg_qr returns (int32_t); PyTorch's mode strings. */
#define NB_QR_REDUCED  0  /* "reduced": Q [m, k], R [k, n] with k = min(m, n) */
#define NB_QR_COMPLETE 1  /* "complete": Q [m, m], R [m, n] */
#define NB_QR_R        2  /* "r": R [k, n] only (Q is an empty tensor) */

/* Sentinel arguments, named for C code that would otherwise write bare numbers. */
#define NB_DTYPE_DEFAULT  (-1)  /* a dtype argument that asks for the op's default (a reduction's rule, the input's dtype) */
#define NB_DEVICE_CURRENT (-1)  /* a device_index meaning the thread's current device, where a function says so (nb_stream_create, ...) */
#define NB_IGNORE_INDEX   (-100)  /* PyTorch's default ignore_index of nb_nll_loss and nb_cross_entropy */

/* Flags of nb_event_create (int32_t bits). */
#define NB_EVENT_DEFAULT  0  /* no timing; waiting spins */
#define NB_EVENT_TIMING   1  /* records time, for nb_event_elapsed_time */
#define NB_EVENT_BLOCKING 2  /* nb_event_synchronize blocks the thread instead of spinning */

/* Flags of nb_profiler_start (int32_t bits). */
#define NB_PROFILE_SHAPES 1  /* record the shapes and dtypes of each op's tensor inputs */
#define NB_PROFILE_MEMORY 2  /* record storage allocations and frees (bytes, address, device) */
#define NB_PROFILE_CUDA   4  /* time ops on CUDA tensors on their stream with a pair of timing events */
#define NB_PROFILE_STACK  8  /* record, for each op call, the caller's stack as the stack source (nb_profiler_set_stack_source) reports it */

/* How a reduction collective combines the ranks' values (int32_t; PyTorch's ReduceOp numbering). */
#define NB_REDUCE_OP_SUM     0  /* sum (logical or for bool) */
#define NB_REDUCE_OP_AVG     1  /* mean over the group (floating dtypes) */
#define NB_REDUCE_OP_PRODUCT 2  /* product (logical and for bool) */
#define NB_REDUCE_OP_MIN     3  /* minimum */
#define NB_REDUCE_OP_MAX     4  /* maximum */
#define NB_REDUCE_OP_BAND    5  /* bitwise and (integer and bool dtypes) */
#define NB_REDUCE_OP_BOR     6  /* bitwise or (integer and bool dtypes) */
#define NB_REDUCE_OP_BXOR    7  /* bitwise xor (integer and bool dtypes) */

/* What one operation of nb_comm_batch_isend_irecv does (int32_t). */
#define NB_P2P_SEND 0  /* send the tensor to the peer */
#define NB_P2P_RECV 1  /* receive into the tensor from the peer */

/* A status code: NB_OK or one of NB_ERR_*. */
typedef int32_t nb_status;

/* An n-dimensional array: storage + dtype + shape + strides (elements) + offset. Atomically refcounted; views share storage. */
typedef struct nb_tensor nb_tensor;

/* An ordered queue of device work (a CUDA stream; on CPU every operation is already complete). Atomically refcounted (nb_stream_retain / nb_stream_release); default streams live as long as the process. The current stream is per thread and per device. */
typedef struct nb_stream nb_stream;

/* A marker in a stream's work, for waiting, ordering streams and timing (a CUDA event; on CPU it records the host clock). Atomically refcounted. */
typedef struct nb_event nb_event;

/* A random number generator: a seed and an offset into its Philox-4x32-10 stream. Each op reserves a run of blocks from the offset and element i of its result is computed from block offset + i / k alone (k = 4 for values from 32 bits, 2 for values from 64), keyed by the seed, so results do not depend on the thread count or the device (the convention is in src/ops/philox.h). Thread-safe; not refcounted; NULL wherever a generator is taken means the process default generator. */
typedef struct nb_generator nb_generator;

/* Releases memory handed to nb_tensor_from_external; called once, on whichever thread drops the last reference. */
typedef void (*nb_deleter_fn)(void* payload);

/* Allocator counters. Set struct_size to sizeof(nb_memory_stats) before the call; fields are only ever appended. */
typedef struct nb_memory_stats {
    uint32_t struct_size;  /* size of the struct the caller allocated */
    uint32_t reserved0;  /* padding; zero */
    int64_t allocated_bytes;  /* bytes in live blocks (rounded to their size class) */
    int64_t peak_allocated_bytes;  /* maximum of allocated_bytes since start or nb_memory_reset_peak */
    int64_t cached_bytes;  /* bytes held in free lists, ready for reuse */
    int64_t alloc_count;  /* allocations served */
    int64_t free_count;  /* blocks returned */
    int64_t system_alloc_count;  /* allocations that reached the system allocator */
    int64_t system_free_count;  /* blocks given back to the system allocator */
    int64_t live_tensors;  /* nb_tensor objects alive */
    int64_t live_storages;  /* storages alive */
    int64_t reserved_bytes;  /* bytes obtained from the system or device (allocated + cached) */
    int64_t peak_reserved_bytes;  /* maximum of reserved_bytes */
    int64_t active_bytes;  /* allocated bytes plus freed blocks still awaiting work on other streams */
    int64_t peak_active_bytes;  /* maximum of active_bytes */
    int64_t requested_bytes;  /* bytes callers asked for, before rounding (device allocators) */
    int64_t peak_requested_bytes;  /* maximum of requested_bytes */
    int64_t inactive_split_bytes;  /* free bytes in segments that also hold live blocks (fragmentation) */
    int64_t segment_count;  /* segments reserved from the device */
    int64_t alloc_retries;  /* allocations that had to release the cache and retry */
    int64_t oom_count;  /* allocations that failed for lack of memory */
    int64_t largest_free_block;  /* the largest cached free block */
} nb_memory_stats;

/* Called on the calling thread before work that may take long; returns a token for the matching end call (a binding releases its interpreter lock here). */
typedef void* (*nb_blocking_begin_fn)(void);

/* Called on the same thread after that work with the token begin returned. */
typedef void (*nb_blocking_end_fn)(void* token);

/* A node of the autograd graph (a tensor's grad_fn): the backward of one recorded op. Refcounted with nb_node_retain / nb_node_release. */
typedef struct nb_node nb_node;

/* A tensor hook: sees the gradient computed for a tensor during backward; may store a new reference in *replacement to use instead. Returns NB_OK or a status (message through nb_set_error), which aborts the backward pass. Runs on the thread that runs backward. */
typedef nb_status (*nb_grad_hook_fn)(void* payload, const nb_tensor* grad, nb_tensor** replacement);

/* A post-accumulate-grad hook: sees the leaf t (borrowed) right after its gradient was accumulated into .grad during backward. Returns NB_OK or a status (message through nb_set_error), which aborts the backward pass. Runs on the thread that runs backward. */
typedef nb_status (*nb_post_accumulate_hook_fn)(void* payload, nb_tensor* t);

/* A profiler stack source: writes the calling thread's call stack into buf as text, one frame per line (separated by '\n'), innermost first, NUL-terminated within cap bytes, and returns the full length without the NUL (as snprintf does; the core calls again with a larger buffer when it did not fit); a negative value or 0: no stack. Called on the thread that calls an op, at the op's start, while a session with NB_PROFILE_STACK runs; ops it calls itself are recorded without a stack. */
typedef int64_t (*nb_stack_source_fn)(void* payload, char* buf, int64_t cap);

/* A saved-tensor pack hook: sees each tensor an autograd node saves while its hooks are pushed (borrowed) and stores in *packed what the node keeps instead (retain t to keep the tensor itself). Returns NB_OK or a status (message through nb_set_error), which fails the op that saved it. Tensors saved while it runs are not packed again. */
typedef nb_status (*nb_saved_pack_fn)(void* payload, const nb_tensor* t, void** packed);

/* A saved-tensor unpack hook: stores in *out a new reference to the tensor that *packed stands for. Called each time backward reads the saved tensor, on the thread running backward; a status aborts the backward pass. */
typedef nb_status (*nb_saved_unpack_fn)(void* payload, void* packed, nb_tensor** out);

/* Frees a value a pack hook returned, when the node that saved it lets go of its saved tensors. */
typedef void (*nb_saved_free_fn)(void* payload, void* packed);

/* The backward of a custom function: given the gradients of its outputs (never NULL; zeros for outputs that got none), stores a new reference (or leaves NULL for none) in each grad_inputs[i]. Returns NB_OK or a status with a message set through nb_set_error. Runs on the thread that runs backward. */
typedef nb_status (*nb_custom_backward_fn)(void* payload, int32_t n_grad_outputs, nb_tensor* const* grad_outputs, int32_t n_grad_inputs, nb_tensor** grad_inputs);

/* Receives a warning (UTF-8 text, valid during the call) on the thread that raised it. Returns NB_OK, or a status (message through nb_set_error) that turns the warning into an error: the call that warned fails with it. */
typedef nb_status (*nb_warning_fn)(void* payload, const char* message);

/* A safetensors file opened by nb_load or nb_load_buffer: its header read and checked, its tensors read one by one on request. Released with nb_checkpoint_release; not shared between threads without a lock. */
typedef struct nb_checkpoint nb_checkpoint;

/* A communicator: a group of processes that run collectives together (MPI for CPU tensors, NCCL for CUDA tensors; see docs/distributed.md). Refcounted with nb_comm_retain / nb_comm_release; a released (destroyed) communicator is refused by every function. Any thread may use it. */
typedef struct nb_comm nb_comm;

/* An asynchronous collective or point-to-point transfer in flight: nb_work_wait, nb_work_test, then nb_work_release. Until it completes, the tensors it reads or writes must not be changed or read by the caller. */
typedef struct nb_work nb_work;

/* ---- version ---- */
/* The library's version as MAJOR*10000 + MINOR*100 + PATCH (compare with NB_VERSION_NUMBER). */
NB_API uint32_t nb_version(void);

/* The library's version as "MAJOR.MINOR.PATCH"; static storage. */
NB_API const char* nb_version_string(void);

/* The BLAS library nabla uses and its build configuration; static storage. */
NB_API const char* nb_blas_info(void);

/* ---- errors ---- */
/* The message of this thread's last failed call ("" if none); valid until the thread's next failing call. */
NB_API const char* nb_last_error_message(void);

/* The status of this thread's last failed call (NB_OK if none). */
NB_API nb_status nb_last_error_status(void);

/* Resets this thread's last status and message. */
NB_API void nb_clear_error(void);

/* ---- threads ---- */
/* Installs process-wide hooks called around work big enough to be worth another thread's time (large copies and kernels); NULL removes them. The work between the two calls touches no caller-owned object. */
NB_API void nb_set_blocking_hooks(nb_blocking_begin_fn begin, nb_blocking_end_fn end);

/* Sets the number of CPU threads for nabla's kernels, GEMM included (process-wide; OMP_NUM_THREADS sets the start value). */
NB_API nb_status nb_set_num_threads(int32_t n);

/* The number of CPU threads kernels use. */
NB_API int32_t nb_get_num_threads(void);

/* ---- errors ---- */
/* The constant's name ("NB_ERR_SHAPE"), or "NB_UNKNOWN_STATUS"; static storage. */
NB_API const char* nb_status_name(nb_status status);

/* ---- dtype ---- */
/* Bytes per element, or -1 for an unknown code. */
NB_API int64_t nb_dtype_size(int32_t dtype);

/* "float32", "int64", ...; NULL for an unknown code. */
NB_API const char* nb_dtype_name(int32_t dtype);

/* 1 for f32, f64, f16, bf16; 0 otherwise (unknown codes included). */
NB_API int32_t nb_dtype_is_floating(int32_t dtype);

/* PyTorch's promote_types: the smallest dtype both convert to safely; -1 for an unknown code. */
NB_API int32_t nb_promote_dtypes(int32_t a, int32_t b);

/* The dtype a binary op of a and b computes in (categories bool < integer < float; dimensioned tensors outrank 0-dim ones, which outrank scalars); -1 for a bad handle. */
NB_API int32_t nb_result_dtype(const nb_tensor* a, const nb_tensor* b);

/* Sets the floating dtype that scalar floats promote to (float32 at start); process-wide. */
NB_API nb_status nb_set_default_dtype(int32_t dtype);

/* The default floating dtype. */
NB_API int32_t nb_get_default_dtype(void);

/* ---- device ---- */
/* "cpu", "cuda", "cuda_host"; NULL for an unknown code. */
NB_API const char* nb_device_type_name(int32_t device_type);

/* Number of usable devices of a type (1 for CPU; 0 for CUDA when no driver, device or plugin is present). */
NB_API nb_status nb_device_count(int32_t device_type, int32_t* out);

/* Why a device type cannot be used ("" when it can); static storage. */
NB_API const char* nb_device_unavailable_reason(int32_t device_type);

/* ---- lifetime ---- */
/* Adds a reference. NULL-safe. */
NB_API void nb_tensor_retain(nb_tensor* t);

/* Drops a reference; the last one frees the tensor (and its storage when no view remains). NULL-safe. Handles are never silently reused: a released tensor's object stays quarantined (its memory not given to any other object) for at least the next 4096 handle releases on the releasing thread, so a stale handle passed to any function fails with NB_ERR_INVALID_ARGUMENT ("... is not a live nabla tensor: it was released") instead of reaching a newer tensor. A release of an already released handle changes nothing and is reported through the warning channel (nb_set_warning_handler; stderr without one), keeping the thread's last error. The same rule holds for nb_stream_release, nb_event_release and nb_generator_release. */
NB_API void nb_tensor_release(nb_tensor* t);

/* Current reference count (for tests and debugging); -1 for an invalid handle. */
NB_API int64_t nb_tensor_refcount(const nb_tensor* t);

/* ---- metadata ---- */
/* Number of dimensions; -1 (and a last error) for an invalid handle. */
NB_API int32_t nb_tensor_ndim(const nb_tensor* t);

/* ndim sizes, owned by the tensor; NULL for an invalid handle. */
NB_API const int64_t* nb_tensor_shape(const nb_tensor* t);

/* ndim strides in elements, owned by the tensor; NULL for an invalid handle. */
NB_API const int64_t* nb_tensor_strides(const nb_tensor* t);

/* dtype code; -1 for an invalid handle. */
NB_API int32_t nb_tensor_dtype(const nb_tensor* t);

/* device type; -1 for an invalid handle. */
NB_API int32_t nb_tensor_device_type(const nb_tensor* t);

/* device ordinal (0 for CPU); -1 for an invalid handle. */
NB_API int32_t nb_tensor_device_index(const nb_tensor* t);

/* Number of elements; -1 for an invalid handle. */
NB_API int64_t nb_tensor_numel(const nb_tensor* t);

/* 1 when row-major contiguous (size-1 dims ignored), else 0; -1 for an invalid handle. */
NB_API int32_t nb_tensor_is_contiguous(const nb_tensor* t);

/* Address of the first element (storage base + offset); NULL for an invalid handle. */
NB_API void* nb_tensor_data_ptr(const nb_tensor* t);

/* Offset of the first element in the storage, in elements; -1 for an invalid handle. */
NB_API int64_t nb_tensor_storage_offset(const nb_tensor* t);

/* Bytes of the underlying storage; -1 for an invalid handle. */
NB_API int64_t nb_tensor_storage_nbytes(const nb_tensor* t);

/* Base address of the storage (shared by all views of it); NULL for an invalid handle. */
NB_API void* nb_tensor_storage_data_ptr(const nb_tensor* t);

/* Version counter shared by a base and its views; in-place writes increment it. -1 for an invalid handle. */
NB_API int64_t nb_tensor_version(const nb_tensor* t);

/* ---- creation ---- */
/* A new contiguous tensor with uninitialised contents. */
NB_API nb_status nb_empty(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* A new tensor filled with 0. */
NB_API nb_status nb_zeros(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* A new tensor filled with 1. */
NB_API nb_status nb_ones(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* A new tensor filled with value converted to dtype (float16/bfloat16 round to nearest even). */
NB_API nb_status nb_full(const int64_t* shape, int32_t ndim, double value, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* As nb_full with an exact 64-bit integer value. */
NB_API nb_status nb_full_int(const int64_t* shape, int32_t ndim, int64_t value, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* 1-D values start, start+step, ... excluding end; ceil((end-start)/step) elements. */
NB_API nb_status nb_arange(double start, double end, double step, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* 1-D, steps values evenly spaced from start to end inclusive. */
NB_API nb_status nb_linspace(double start, double end, int64_t steps, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* A 2-D [n, m] tensor with ones on the diagonal. */
NB_API nb_status nb_eye(int64_t n, int64_t m, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* A new tensor holding a copy of row-major host data of the given dtype. */
NB_API nb_status nb_tensor_from_host(const void* data, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_tensor** out);

/* Wraps external memory without copying. strides (elements) may be NULL for row-major. deleter(payload) runs when the last reference goes; on failure it is not called and the caller keeps ownership. */
NB_API nb_status nb_tensor_from_external(void* data, const int64_t* shape, const int64_t* strides, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_deleter_fn deleter, void* payload, nb_tensor** out);

/* A 0-dim CPU tensor holding a language scalar (fvalue for floating dtypes, ivalue otherwise), marked as a wrapped number: it yields to tensors in type promotion and may combine with tensors on any device. */
NB_API nb_status nb_scalar(double fvalue, int64_t ivalue, int32_t dtype, nb_tensor** out);

/* ---- views ---- */
/* A view with a new shape (one size may be -1); fails if the strides cannot express it. */
NB_API nb_status nb_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out);

/* As nb_tensor_view when possible, otherwise a contiguous copy. */
NB_API nb_status nb_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out);

/* A view with dimensions reordered; dims is a permutation (negative values count from the end). */
NB_API nb_status nb_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out);

/* A view with two dimensions swapped. */
NB_API nb_status nb_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out);

/* A view of length elements of dim from start (start may be negative). */
NB_API nb_status nb_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length, nb_tensor** out);

/* A view of dim with Python slice semantics (negative start/end count from the end, out-of-range bounds clamp); step > 0. */
NB_API nb_status nb_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step, nb_tensor** out);

/* A view with dim removed at index (negative counts from the end). */
NB_API nb_status nb_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out);

/* A broadcast view (stride 0) to shape; -1 keeps a size; new leading dims may be added. */
NB_API nb_status nb_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out);

/* A view without size-1 dims: all of them when dims is NULL, else those listed that have size 1. */
NB_API nb_status nb_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out);

/* A view with a size-1 dim inserted at dim (in [-ndim-1, ndim]). */
NB_API nb_status nb_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out);

/* Dims start_dim..end_dim merged into one (a view when strides allow, else a copy). */
NB_API nb_status nb_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out);

/* A view of t's storage with explicit shape, strides and offset (elements); must stay inside the storage. */
NB_API nb_status nb_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, nb_tensor** out);

/* t itself (a new reference) when contiguous, else a contiguous copy. */
NB_API nb_status nb_tensor_contiguous(const nb_tensor* t, nb_tensor** out);

/* A copy with its own storage, laid out in t's memory order (a dense input keeps its strides; PyTorch's preserve_format). */
NB_API nb_status nb_tensor_clone(const nb_tensor* t, nb_tensor** out);

/* ---- copy ---- */
/* t converted to dtype and device (strides kept as by nb_tensor_clone); returns t itself when nothing changes and copy is 0. */
NB_API nb_status nb_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, nb_tensor** out);

/* Writes src into dst, broadcasting src to dst's shape and converting dtype (float16/bfloat16 round to nearest even). Bumps dst's version. */
NB_API nb_status nb_tensor_copy_(nb_tensor* dst, const nb_tensor* src);

/* Writes t's elements, row-major in t's dtype, to host memory of nbytes (must equal numel * element size). */
NB_API nb_status nb_tensor_copy_to_host(const nb_tensor* t, void* dst, int64_t nbytes);

/* The value of a one-element tensor as a double. */
NB_API nb_status nb_tensor_item_double(const nb_tensor* t, double* out);

/* The value of a one-element integer or bool tensor as an exact int64 (floats truncate toward zero). */
NB_API nb_status nb_tensor_item_int(const nb_tensor* t, int64_t* out);

/* PyTorch's resize_: gives t the shape with contiguous strides at its offset, growing its storage (bytes kept, every view follows) when it is too small; a tensor that already has the shape is unchanged. External memory cannot grow; a tensor that requires grad cannot be resized. */
NB_API nb_status nb_tensor_resize_(nb_tensor* t, const int64_t* shape, int32_t ndim);

/* PyTorch's resize_output, the rule for out= tensors: nothing when t has the shape; otherwise a warning when t had elements (see nb_set_warning_handler), then nb_tensor_resize_. Every op with a dst parameter applies it to a dst that is not one of its inputs. */
NB_API nb_status nb_tensor_resize_output(nb_tensor* t, const int64_t* shape, int32_t ndim);

/* ---- dlpack ---- */
/* Exports t through DLPack: *out receives a DLManagedTensorVersioned* (include/nabla/dlpack.h; void* here so this header stays free of C enums) that keeps t's memory alive until its deleter runs; the consumer calls the deleter once, from any thread. device_type -1 keeps t's device, otherwise the tensor goes to (device_type, device_index). copy: 1 always copies, 0 never (fails with NB_ERR_DEVICE when the device differs), -1 copies only to change device. flags carry DLPACK_FLAG_BITMASK_IS_COPIED for a copy and DLPACK_FLAG_BITMASK_READ_ONLY for a shared read-only tensor. Strides are always set; data points at the first element and byte_offset is 0. */
NB_API nb_status nb_tensor_to_dlpack_versioned(const nb_tensor* t, int32_t device_type, int32_t device_index, int32_t copy, void** out);

/* As nb_tensor_to_dlpack_versioned, producing the legacy DLManagedTensor* (no version, no flags); a read-only tensor can only be exported this way as a copy. */
NB_API nb_status nb_tensor_to_dlpack(const nb_tensor* t, int32_t device_type, int32_t device_index, int32_t copy, void** out);

/* Wraps a DLManagedTensorVersioned* without copying. On success nabla owns it and calls its deleter when the last reference goes, on whichever thread that is; on failure the caller keeps it. A major version other than 1 fails with NB_ERR_ABI_VERSION; DLPACK_FLAG_BITMASK_READ_ONLY makes the tensor read-only. Takes every nabla dtype (bool as kDLBool 8 bits, bfloat16 as kDLBfloat 16) on cpu, cuda and cuda_host; NULL strides mean row-major; negative strides are refused. */
NB_API nb_status nb_tensor_from_dlpack_versioned(void* managed, nb_tensor** out);

/* As nb_tensor_from_dlpack_versioned for the legacy DLManagedTensor*. */
NB_API nb_status nb_tensor_from_dlpack(void* managed, nb_tensor** out);

/* 1 when t's memory was imported read-only (every in-place write into it, and every op given it as dst, fails with NB_ERR_INVALID_ARGUMENT), else 0; -1 for an invalid handle. */
NB_API int32_t nb_tensor_is_readonly(const nb_tensor* t);

/* ---- shared memory ---- */
/* Moves t's storage (so every view of it) into shared memory that another process can map through nb_tensor_shared_fd; the values are kept. A no-op when already shared; cpu tensors only. Not safe while another thread uses the same storage. */
NB_API nb_status nb_tensor_share_memory_(nb_tensor* t);

/* 1 when t's storage is in shared memory, else 0; -1 for an invalid handle. */
NB_API int32_t nb_tensor_is_shared(const nb_tensor* t);

/* The file descriptor behind a shared tensor's storage (an anonymous memfd of at least nb_tensor_storage_nbytes bytes). It stays owned by the storage and open while it lives: dup it to keep it longer. */
NB_API nb_status nb_tensor_shared_fd(const nb_tensor* t, int32_t* out);

/* A new contiguous cpu tensor in shared memory, uninitialised. */
NB_API nb_status nb_empty_shared(const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out);

/* Maps the storage of nbytes that another process shared through fd (see nb_tensor_shared_fd) and views it with shape, strides and storage_offset (elements), which must stay inside nbytes. The tensor keeps its own duplicate of fd; the caller still owns fd. Writes on either side are seen by the other. */
NB_API nb_status nb_tensor_from_shared_fd(int32_t fd, int64_t nbytes, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, int32_t dtype, int32_t readonly, nb_tensor** out);

/* ---- memory ---- */
/* Fills the counters of a device's allocator (fields up to out->struct_size). NB_CUDA_HOST (device_index ignored) reads the pinned host memory pool: zeros before its first allocation and on machines without CUDA. */
NB_API nb_status nb_memory_stats_get(int32_t device_type, int32_t device_index, nb_memory_stats* out);

/* Resets peak_allocated_bytes to the current allocated_bytes (NB_CUDA_HOST: of the pinned host memory pool). */
NB_API nb_status nb_memory_reset_peak(int32_t device_type, int32_t device_index);

/* Returns cached free blocks to the system: the shared lists and the calling thread's cache (another live thread keeps at most 8 MiB cached until it exits). */
NB_API nb_status nb_memory_empty_cache(int32_t device_type, int32_t device_index);

/* The segments and blocks of a device's caching allocator as JSON (PyTorch's snapshot field names: address, total_size, stream, segment_type, blocks with size, requested_size, state). Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
NB_API nb_status nb_memory_snapshot(int32_t device_type, int32_t device_index, char* buf, int64_t cap, int64_t* needed);

/* Marks t's memory as used by work on stream: when the last reference goes, the memory is reused only after the work queued on stream so far has finished. A no-op on CPU. */
NB_API nb_status nb_tensor_record_stream(nb_tensor* t, nb_stream* stream);

/* A copy of the CPU tensor t in page-locked (pinned) host memory, which non-blocking copies to and from CUDA need; t itself (a new reference) when already pinned. */
NB_API nb_status nb_tensor_pin_memory(const nb_tensor* t, nb_tensor** out);

/* 1 when t's memory is pinned host memory, else 0; -1 for an invalid handle. */
NB_API int32_t nb_tensor_is_pinned(const nb_tensor* t);

/* As nb_tensor_to; with non_blocking, a same-dtype copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once (a device-to-host result is then allocated in pinned memory); otherwise the copy completes before the call returns. */
NB_API nb_status nb_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking, nb_tensor** out);

/* As nb_tensor_copy_; with non_blocking, a same-dtype contiguous copy between pinned host memory and a CUDA device is queued on the current stream and the call returns at once. */
NB_API nb_status nb_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking);

/* ---- stream ---- */
/* A new stream on a device (index -1: the current device). Lower priority numbers run first (nb_stream_priority_range); 0 is the default. On CPU a stream exists but every operation on it is already complete. */
NB_API nb_status nb_stream_create(int32_t device_type, int32_t device_index, int32_t priority, nb_stream** out);

/* A stream object over a native stream made outside nabla (a cudaStream_t of another library, e.g. PyTorch's or CuPy's; NULL is the legacy default stream; index -1: the current device): nabla queues work on it and waits on it but never destroys it, so the caller keeps the native stream alive while the object is used. On CPU native must be NULL. */
NB_API nb_status nb_stream_from_native(int32_t device_type, int32_t device_index, void* native, nb_stream** out);

/* Adds a reference. NULL-safe. */
NB_API void nb_stream_retain(nb_stream* s);

/* Drops a reference; the last one destroys the stream after its queued work. NULL-safe; default streams are never destroyed. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
NB_API void nb_stream_release(nb_stream* s);

/* The device's default stream (a new reference). */
NB_API nb_status nb_stream_default(int32_t device_type, int32_t device_index, nb_stream** out);

/* The calling thread's current stream on a device (a new reference): the default stream until nb_stream_set_current. */
NB_API nb_status nb_stream_current(int32_t device_type, int32_t device_index, nb_stream** out);

/* Makes s the calling thread's current stream on its device; work nabla queues for that device from this thread goes there. */
NB_API nb_status nb_stream_set_current(nb_stream* s);

/* Waits until the work queued on s has finished; reports an error that asynchronous work on s raised since the last synchronisation. */
NB_API nb_status nb_stream_synchronize(nb_stream* s);

/* Sets *done to 1 when all work queued on s has finished, else 0; never waits. */
NB_API nb_status nb_stream_query(nb_stream* s, int32_t* done);

/* Work queued on s after this call waits for e (host does not wait). An event never recorded is complete. */
NB_API nb_status nb_stream_wait_event(nb_stream* s, nb_event* e);

/* Work queued on s after this call waits for the work queued on other so far (host does not wait). */
NB_API nb_status nb_stream_wait_stream(nb_stream* s, nb_stream* other);

/* The backend's handle (a cudaStream_t; NULL for CUDA's default stream and on CPU). */
NB_API void* nb_stream_native_handle(const nb_stream* s);

/* A number unique to the stream within its device (0 for the default stream); -1 for an invalid handle. */
NB_API int64_t nb_stream_id(const nb_stream* s);

/* The stream's device type; -1 for an invalid handle. */
NB_API int32_t nb_stream_device_type(const nb_stream* s);

/* The stream's device index; -1 for an invalid handle. */
NB_API int32_t nb_stream_device_index(const nb_stream* s);

/* The stream's priority (0 for default streams and on CPU). */
NB_API int32_t nb_stream_priority(const nb_stream* s);

/* The priorities streams may have: from least (0) to greatest (a negative number on CUDA; 0 on CPU). */
NB_API nb_status nb_stream_priority_range(int32_t device_type, int32_t* least, int32_t* greatest);

/* ---- event ---- */
/* A new event on a device (index -1: the current device); flags are NB_EVENT_* bits. */
NB_API nb_status nb_event_create(int32_t device_type, int32_t device_index, int32_t flags, nb_event** out);

/* Adds a reference. NULL-safe. */
NB_API void nb_event_retain(nb_event* e);

/* Drops a reference; the last one destroys the event. NULL-safe. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
NB_API void nb_event_release(nb_event* e);

/* Captures the work queued on s so far (NULL: the current stream of e's device); e completes when it has finished. */
NB_API nb_status nb_event_record(nb_event* e, nb_stream* s);

/* Sets *done to 1 when the work e captured has finished (or e was never recorded), else 0; never waits. */
NB_API nb_status nb_event_query(nb_event* e, int32_t* done);

/* Waits until the work e captured has finished. */
NB_API nb_status nb_event_synchronize(nb_event* e);

/* Milliseconds between two recorded, completed events created with NB_EVENT_TIMING. */
NB_API nb_status nb_event_elapsed_time(nb_event* start, nb_event* end, double* ms);

/* The backend's handle (a cudaEvent_t; NULL on CPU). */
NB_API void* nb_event_native_handle(const nb_event* e);

/* ---- profiler ---- */
/* Starts a profiling session (process-wide): every op call from then on is recorded per thread with its name and host start/end time, plus what the NB_PROFILE_* flags ask for. Fails when a session is already running. Events of the previous session are dropped. */
NB_API nb_status nb_profiler_start(int32_t flags);

/* Ends the session and keeps its events for nb_profiler_events (waits for the device events of CUDA ops). Fails when no session runs. */
NB_API nb_status nb_profiler_stop(void);

/* The running session's NB_PROFILE_* flags; 0 when none runs (also 0 for a session started with no flags: use it as a flag set, not a state). */
NB_API int32_t nb_profiler_enabled(void);

/* The last stopped session as JSON: {"events": [{"kind": "op"|"range"|"memory", "name", "tid", "ts_ns", "dur_ns", "device": "cpu:0", optional "shapes", "dtypes", "stack" (list of strings, innermost frame first), "bytes" (negative: freed), "addr", "device_ts_us", "device_dur_us", "stream"}], "duration_ns"}; times in ns from the session's start. Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
NB_API nb_status nb_profiler_events(char* buf, int64_t cap, int64_t* needed);

/* Opens a user range on the calling thread (recorded when a session runs; copied). Ranges nest, up to 256 deep. */
NB_API nb_status nb_profiler_range_push(const char* name);

/* Closes the calling thread's innermost range; fails when none is open. */
NB_API nb_status nb_profiler_range_pop(void);

/* Sets the process-wide stack source that sessions started with NB_PROFILE_STACK call at each op's start (a frontend reports its language's call stack); the text is kept with the op event and written as its "stack" (a list of lines) by nb_profiler_events. fn NULL clears it. destroy(payload) (may be NULL) runs once the source is replaced or cleared and no call to it is in progress. */
NB_API nb_status nb_profiler_set_stack_source(nb_stack_source_fn fn, void* payload, nb_deleter_fn destroy);

/* ---- autocast ---- */
/* Turns autocast on or off for ops on a device type (NB_CPU or NB_CUDA) on the calling thread. While on, an op whose manifest entry has an "autocast" policy casts its floating-point inputs on that device (float64 excepted) first: "lower" to the autocast dtype, "fp32" to float32, "promote" to the widest of them; ops it calls run without autocast, and so does backward. */
NB_API nb_status nb_autocast_set_enabled(int32_t device_type, int32_t enabled);

/* 1 when autocast is on for the device type on the calling thread, else 0. */
NB_API int32_t nb_autocast_is_enabled(int32_t device_type);

/* The low-precision dtype of a device type's autocast on the calling thread: NB_BF16 or NB_F16 (defaults: bfloat16 on CPU, float16 on CUDA). */
NB_API nb_status nb_autocast_set_dtype(int32_t device_type, int32_t dtype);

/* The calling thread's autocast dtype for a device type (-1 for a device type without autocast). */
NB_API int32_t nb_autocast_get_dtype(int32_t device_type);

/* Whether casts of leaf tensors that require grad (the weights) are cached on the calling thread until nb_autocast_clear_cache, so a weight is cast once per autocast region. On by default. */
NB_API void nb_autocast_set_cache_enabled(int32_t enabled);

/* 1 when the calling thread caches autocast weight casts. */
NB_API int32_t nb_autocast_is_cache_enabled(void);

/* Counts entering an autocast region on the calling thread; returns the new depth. */
NB_API int32_t nb_autocast_increment_nesting(void);

/* Counts leaving an autocast region; returns the new depth (never below 0). A frontend clears the cache when it reaches 0. */
NB_API int32_t nb_autocast_decrement_nesting(void);

/* Releases the calling thread's cached weight casts. */
NB_API void nb_autocast_clear_cache(void);

/* ---- device runtime ---- */
/* The calling thread's current device index of a type (0 at start). */
NB_API nb_status nb_device_current(int32_t device_type, int32_t* out);

/* Sets the calling thread's current device of a type; index -1 means the current one is kept. */
NB_API nb_status nb_device_set_current(int32_t device_type, int32_t device_index);

/* Waits until all work queued on the device, on every stream, has finished; reports errors of asynchronous work. */
NB_API nb_status nb_device_synchronize(int32_t device_type, int32_t device_index);

/* The device's free and total memory as its driver reports them. */
NB_API nb_status nb_device_memory_info(int32_t device_type, int32_t device_index, int64_t* free_bytes, int64_t* total_bytes);

/* The device's properties as one JSON object with PyTorch's field names (name, major, minor, total_memory, multi_processor_count, warp_size, L2_cache_size, uuid, ...); index -1: the current device. CUDA only. Writes at most cap bytes including a terminating NUL (buf may be NULL when cap is 0) and the full length, without the NUL, to *needed. */
NB_API nb_status nb_device_properties(int32_t device_type, int32_t device_index, char* buf, int64_t cap, int64_t* needed);

/* ---- errors ---- */
/* Sets this thread's last error (for callbacks that report a failure to the library); returns status. */
NB_API nb_status nb_set_error(int32_t status, const char* message);

/* Installs the process-wide handler of warnings (PyTorch's TORCH_WARN: an out= tensor resized, ...); NULL restores the default, which prints them to stderr. */
NB_API void nb_set_warning_handler(nb_warning_fn fn, void* payload);

/* ---- autograd ---- */
/* 1 when operations on this thread record the autograd graph (grad mode), else 0. */
NB_API int32_t nb_grad_enabled(void);

/* Turns grad mode on or off for this thread; returns the previous setting (no_grad / enable_grad). */
NB_API int32_t nb_set_grad_enabled(int32_t enabled);

/* 1 inside inference mode on this thread. */
NB_API int32_t nb_inference_mode_enabled(void);

/* Inference mode on or off for this thread (grad mode is off inside it); returns the previous setting. */
NB_API int32_t nb_set_inference_mode(int32_t enabled);

/* 1 when anomaly detection is on (process-wide). */
NB_API int32_t nb_anomaly_mode_enabled(void);

/* Anomaly detection: backward fails with NB_ERR_AUTOGRAD naming the node whose gradient contains NaN. Returns the previous setting. */
NB_API int32_t nb_set_anomaly_mode(int32_t enabled);

/* 1 if gradients are computed for t (a leaf marked so, or the result of a recorded op), 0 if not, -1 for an invalid handle. */
NB_API int32_t nb_tensor_requires_grad(const nb_tensor* t);

/* Marks a leaf as requiring grad (floating dtypes only); fails for non-leaves when turning it off. */
NB_API nb_status nb_tensor_set_requires_grad(nb_tensor* t, int32_t requires_grad);

/* 1 if t has no grad_fn (created by the user or with grad off), 0 if it is the result of a recorded op, -1 for an invalid handle. */
NB_API int32_t nb_tensor_is_leaf(const nb_tensor* t);

/* *grad = a new reference to t's accumulated gradient (leaves, or non-leaves after nb_tensor_retain_grad), or NULL when there is none. */
NB_API nb_status nb_tensor_get_grad(const nb_tensor* t, nb_tensor** grad);

/* Replaces t's gradient (NULL clears it); grad must match t's shape, dtype and device. */
NB_API nb_status nb_tensor_set_grad(nb_tensor* t, const nb_tensor* grad);

/* Keeps the gradient of a non-leaf after backward (a no-op for leaves). */
NB_API nb_status nb_tensor_retain_grad(nb_tensor* t);

/* 1 after nb_tensor_retain_grad on a non-leaf, else 0; -1 for an invalid handle. */
NB_API int32_t nb_tensor_retains_grad(const nb_tensor* t);

/* A new tensor sharing t's storage (and version counter) with no autograd history. */
NB_API nb_status nb_tensor_detach(const nb_tensor* t, nb_tensor** out);

/* Cuts t from the graph in place: it becomes a leaf that does not require grad. */
NB_API nb_status nb_tensor_detach_(nb_tensor* t);

/* *out = a new reference to the node that produced t, or NULL for a leaf. */
NB_API nb_status nb_tensor_grad_fn(const nb_tensor* t, nb_node** out);

/* Which output of its grad_fn t is (0 for leaves); -1 for an invalid handle. */
NB_API int32_t nb_tensor_output_nr(const nb_tensor* t);

/* Takes a reference to a node (NULL-safe). */
NB_API void nb_node_retain(nb_node* node);

/* Drops a reference to a node (NULL-safe); the graph behind it goes when the last one does. */
NB_API void nb_node_release(nb_node* node);

/* The node's name, as PyTorch names them ("MulBackward0", "AccumulateGrad"); NULL for NULL. */
NB_API const char* nb_node_name(const nb_node* node);

/* How many inputs the node's op had (its next functions); -1 for NULL. */
NB_API int32_t nb_node_num_next(const nb_node* node);

/* The node input i's gradient flows to (a new reference, or NULL when that input needs none) and which of its outputs it is. */
NB_API nb_status nb_node_next(const nb_node* node, int32_t i, nb_node** next, int32_t* input_nr);

/* Adds a hook that sees (and may replace) t's gradient during backward; t must require grad. destroy(payload) runs when the hook is removed or its tensor/node goes, on that thread. *id identifies it for nb_tensor_remove_hook. */
NB_API nb_status nb_tensor_register_hook(nb_tensor* t, nb_grad_hook_fn fn, void* payload, nb_deleter_fn destroy, int64_t* id);

/* Removes a hook added by nb_tensor_register_hook or nb_tensor_register_post_accumulate_grad_hook (a no-op when it is already gone). */
NB_API nb_status nb_tensor_remove_hook(nb_tensor* t, int64_t id);

/* Adds a hook called with t after backward accumulated t's gradient into .grad (not by nb_autograd_grad); t must be a leaf that requires grad. Hooks run in registration order, after the tensor hooks and the accumulation. destroy(payload) runs when the hook is removed or t goes. *id identifies it for nb_tensor_remove_hook. */
NB_API nb_status nb_tensor_register_post_accumulate_grad_hook(nb_tensor* t, nb_post_accumulate_hook_fn fn, void* payload, nb_deleter_fn destroy, int64_t* id);

/* For an in-place change a binding makes outside nabla's ops (PyTorch's in-place view ops t_, squeeze_, as_strided_, ...): while grad mode is on, refuses a leaf that requires grad and a view of a leaf that requires grad with PyTorch's messages (prefixed by op); then increments t's version counter, as an in-place op does. */
NB_API nb_status nb_tensor_mark_inplace(nb_tensor* t, const char* op);

/* Pushes saved-tensor hooks for this thread (torch.autograd.graph.saved_tensors_hooks): until the matching pop, every tensor an autograd node saves goes through pack, and backward reads it back through unpack; the innermost push applies. free_packed (may be NULL) frees each packed value; destroy(payload) (may be NULL) runs once the hooks are popped and no graph saved with them remains. Saved tensors kept through hooks are not checked against in-place writes. Fails with NB_ERR_AUTOGRAD while hooks are disabled (nb_saved_tensors_hooks_disable). */
NB_API nb_status nb_saved_tensors_hooks_push(nb_saved_pack_fn pack, nb_saved_unpack_fn unpack, nb_saved_free_fn free_packed, void* payload, nb_deleter_fn destroy);

/* Pops this thread's innermost saved-tensor hooks; NB_ERR_AUTOGRAD when none are pushed. */
NB_API nb_status nb_saved_tensors_hooks_pop(void);

/* Forbids saved-tensor hooks on this thread: later pushes fail with NB_ERR_AUTOGRAD and this message (torch.autograd.graph.disable_saved_tensors_hooks); fails with the message itself when hooks are pushed already. NULL allows them again. */
NB_API nb_status nb_saved_tensors_hooks_disable(const char* message);

/* The message saved-tensor hooks are disabled with on this thread, or NULL when they are allowed. */
NB_API const char* nb_saved_tensors_hooks_disabled_message(void);

/* Computes the gradients of outputs[n] (seeded with grad_outputs[i], or 1 for one-element outputs when grad_outputs or its entry is NULL) and accumulates them into the leaves' .grad. Without retain_graph the saved tensors of the graph are freed; create_graph records the backward pass itself for higher-order gradients. */
NB_API nb_status nb_backward(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n, int32_t retain_graph, int32_t create_graph);

/* PyTorch's t.backward(gradient, retain_graph, create_graph): nb_backward of the one tensor t, seeded with grad (NULL: 1, for a one-element t). */
NB_API nb_status nb_tensor_backward(nb_tensor* t, nb_tensor* grad, int32_t retain_graph, int32_t create_graph);

/* The gradients of outputs with respect to inputs[n_inputs], written as new references to grads[n_inputs] (NULL for an input the outputs do not depend on, which is an error unless allow_unused); .grad fields are left untouched. */
NB_API nb_status nb_autograd_grad(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n, nb_tensor* const* inputs, int32_t n_inputs, int32_t retain_graph, int32_t create_graph, int32_t allow_unused, nb_tensor** grads);

/* Records a custom function: outputs (computed by the caller with grad mode off) get a node named name whose backward calls fn(payload, ...). non_differentiable[n_outputs] (may be NULL) marks outputs that get no history. Nothing is recorded when grad mode is off or no input requires grad; destroy(payload) then runs at once. */
NB_API nb_status nb_autograd_function_record(const char* name, const nb_tensor* const* inputs, int32_t n_inputs, nb_tensor* const* outputs, int32_t n_outputs, const int32_t* non_differentiable, nb_custom_backward_fn fn, void* payload, nb_deleter_fn destroy);

/* ---- checkpoint ---- */
/* Writes n named tensors (any device, any layout; stored contiguous, little-endian) and n_meta string pairs of metadata to path in the safetensors format, which PyTorch's and the safetensors package's readers take. Names are unique UTF-8, not "__metadata__". The file is written beside path under a temporary name, flushed and renamed over path, so a failure leaves the old file as it was. */
NB_API nb_status nb_save(const char* path, const char* const* names, nb_tensor* const* tensors, int64_t n, const char* const* meta_keys, const char* const* meta_values, int64_t n_meta);

/* nb_save into memory: sets *needed to the file's size in bytes and, when buf is non-NULL, writes the file to buf (cap must be at least *needed). Call with buf NULL to size the buffer. */
NB_API nb_status nb_save_buffer(const char* const* names, nb_tensor* const* tensors, int64_t n, const char* const* meta_keys, const char* const* meta_values, int64_t n_meta, void* buf, int64_t cap, int64_t* needed);

/* Opens a safetensors file: reads its header and checks every entry (dtype, shape, sizes without overflow, offsets inside the data section, no overlaps, unique names) before any tensor is made; errors name the file and the tensor. Tensor bytes are read later, one tensor at a time (nb_checkpoint_tensor), so memory holds one copy of what is asked for. The file stays open until nb_checkpoint_release. */
NB_API nb_status nb_load(const char* path, nb_checkpoint** out);

/* nb_load over a file already in memory (nbytes bytes); name (NULL: "the buffer") stands for it in messages. data is borrowed: it must stay valid and unchanged until nb_checkpoint_release. */
NB_API nb_status nb_load_buffer(const void* data, int64_t nbytes, const char* name, nb_checkpoint** out);

/* The number of tensors, in header order; -1 (and the last error) for a bad handle. */
NB_API int64_t nb_checkpoint_count(const nb_checkpoint* ck);

/* The name of tensor i (0 <= i < count), valid until nb_checkpoint_release; NULL (and the last error) for a bad handle or index. */
NB_API const char* nb_checkpoint_name(const nb_checkpoint* ck, int64_t i);

/* Reads tensor i into a new contiguous CPU tensor. */
NB_API nb_status nb_checkpoint_tensor(const nb_checkpoint* ck, int64_t i, nb_tensor** out);

/* Reads the tensor called name into a new contiguous CPU tensor; NB_ERR_INDEX when there is none. */
NB_API nb_status nb_checkpoint_get(const nb_checkpoint* ck, const char* name, nb_tensor** out);

/* The number of __metadata__ pairs; -1 (and the last error) for a bad handle. */
NB_API int64_t nb_checkpoint_metadata_count(const nb_checkpoint* ck);

/* Metadata pair i (UTF-8, valid until nb_checkpoint_release). */
NB_API nb_status nb_checkpoint_metadata(const nb_checkpoint* ck, int64_t i, const char** key, const char** value);

/* Closes the file and frees the checkpoint; tensors read from it stay valid. NULL-safe; a double release is warned about, as for nb_tensor_release. */
NB_API void nb_checkpoint_release(nb_checkpoint* ck);

/* ---- distributed ---- */
/* NB_OK when the MPI library can be loaded: library (NULL: $NABLA_MPI_LIBRARY, else libmpi_abi.so.1 from the loader's search path), an MPI-5 standard ABI library such as the `mpich` wheel's. Otherwise NB_ERR_BACKEND with what was tried and how to install MPI. The first successful load stays for the process. */
NB_API nb_status nb_comm_available(const char* library);

/* Initialises MPI (with MPI_THREAD_MULTIPLE when the library offers it; calls are serialised otherwise) unless the caller already did, and returns a communicator over a duplicate of MPI_COMM_WORLD. Collective over all processes. timeout_s bounds every later wait: a collective that does not complete in time fails with NB_ERR_BACKEND and leaves the communicator unusable. With NABLA_DISTRIBUTED_DEBUG=DETAIL (or TORCH_DISTRIBUTED_DEBUG=DETAIL) in the environment, every collective first checks that all ranks called the same collective with the same root, dtype and shape, failing on every rank with a message that names the mismatch. */
NB_API nb_status nb_comm_init_mpi(const char* library, double timeout_s, nb_comm** out);

/* A sub-group: the ranks of parent that pass the same color, ordered by key then parent rank (MPI_Comm_split). Collective over parent. A negative color makes the caller a non-member: *out is set to NULL. */
NB_API nb_status nb_comm_split(nb_comm* parent, int32_t color, int32_t key, nb_comm** out);

/* The caller's rank in c; -1 (and the last error) for a bad handle. */
NB_API int32_t nb_comm_rank(const nb_comm* c);

/* The number of ranks in c; -1 (and the last error) for a bad handle. */
NB_API int32_t nb_comm_size(const nb_comm* c);

/* Sets how long later waits on c last before failing (positive seconds). */
NB_API nb_status nb_comm_set_timeout(nb_comm* c, double timeout_s);

/* Adds a reference. NULL-safe. */
NB_API void nb_comm_retain(nb_comm* c);

/* Drops a reference; the last one frees the MPI communicator (not collective). NULL-safe; a released handle is refused, and a double release warned about, as for nb_tensor_release. */
NB_API void nb_comm_release(nb_comm* c);

/* Shuts MPI down (MPI_Finalize) if nabla's loader started it and nobody did yet; call once at process exit after the last collective. Fails, leaving MPI running, after a collective timed out (exit the process instead). NB_OK when MPI was never loaded. */
NB_API nb_status nb_comm_finalize(void);

/* Stops every process of c's job with exit code `code` (MPI_Abort); returns only if that fails. */
NB_API nb_status nb_comm_abort(nb_comm* c, int32_t code);

/* Replaces t, on every rank, by the reduction (NB_REDUCE_OP_*) of all ranks' t. float16 and bfloat16 are reduced in float32 and rounded once. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_all_reduce(nb_comm* c, nb_tensor* t, int32_t op, nb_work** work);

/* Copies root's t into t on every other rank. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_broadcast(nb_comm* c, nb_tensor* t, int32_t root, nb_work** work);

/* As nb_comm_all_reduce, but only root's t receives the result; the others' t are left as they were. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_reduce(nb_comm* c, nb_tensor* t, int32_t root, int32_t op, nb_work** work);

/* Concatenates every rank's input, in rank order, into output on every rank; output holds size times input's elements, of input's dtype (PyTorch's all_gather_into_tensor). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_all_gather(nb_comm* c, nb_tensor* output, const nb_tensor* input, nb_work** work);

/* As nb_comm_all_gather into n == size tensors, each of input's element count and dtype: outputs[r] receives rank r's input. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_all_gather_list(nb_comm* c, nb_tensor* const* outputs, int32_t n, const nb_tensor* input, nb_work** work);

/* Reduces every rank's input (size times output's elements) and gives rank r the r-th equal piece in output (PyTorch's reduce_scatter_tensor). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_reduce_scatter(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t op, nb_work** work);

/* Concatenates every rank's input, in rank order, into output on root (size times input's elements); output is ignored elsewhere and may be NULL. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_gather(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t root, nb_work** work);

/* Gives rank r the r-th equal piece of root's input (size times output's elements) in output; input is ignored elsewhere and may be NULL. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_scatter(nb_comm* c, nb_tensor* output, const nb_tensor* input, int32_t root, nb_work** work);

/* Rank r sends the r-th piece of input (split along dim 0 by input_splits, in rows; NULL: size equal pieces) to every rank and receives theirs into the pieces of output (output_splits); n_splits is the group size, or 0 when both are NULL, in rank order (PyTorch's all_to_all_single). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_all_to_all(nb_comm* c, nb_tensor* output, const nb_tensor* input, const int64_t* output_splits, const int64_t* input_splits, int32_t n_splits, nb_work** work);

/* Sends t to rank dst, matched by a nb_comm_recv with the same tag. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_send(nb_comm* c, const nb_tensor* t, int32_t dst, int32_t tag, nb_work** work);

/* Receives into t what rank src sent with tag (the same element count and dtype). When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_recv(nb_comm* c, nb_tensor* t, int32_t src, int32_t tag, nb_work** work);

/* Starts n sends and receives as one batch (PyTorch's batch_isend_irecv): operation i sends tensors[i] to (kinds[i] == NB_P2P_SEND) or receives it from (NB_P2P_RECV) rank peers[i], with tag tags[i] (tags NULL: 0). On NCCL every operation goes into one ncclGroupStart/ncclGroupEnd, so a ring of sends and receives cannot deadlock; on MPI each is a nonblocking request. One work handle covers them all (its wait finishes every operation, in order, and reports the first failure); when work is NULL the call waits for completion (and fails after the communicator's timeout). Tensors of any dtype and layout; a received tensor is updated in place. */
NB_API nb_status nb_comm_batch_isend_irecv(nb_comm* c, int32_t n, const int32_t* kinds, nb_tensor* const* tensors, const int32_t* peers, const int32_t* tags, nb_work** work);

/* Completes once every rank of c has called it. When work is NULL the call waits for completion (and fails after the communicator's timeout); otherwise it starts the transfer and stores a work handle in *work. CPU tensors of any dtype and layout; a tensor written to is updated in place (through a contiguous copy when it is strided or of another wire dtype). */
NB_API nb_status nb_comm_barrier(nb_comm* c, nb_work** work);

/* Waits until the work completes (or the communicator's timeout passes) and reports its result; later calls report the same result. */
NB_API nb_status nb_work_wait(nb_work* w);

/* Sets *done to 1 when the work has completed (then reports its result, as nb_work_wait), else 0; never waits. nabla's progress thread moves asynchronous work along while the caller computes (MPI advances a transfer only inside MPI calls); NABLA_DISTRIBUTED_PROGRESS=0 switches it off, and then only waits and tests move it. */
NB_API nb_status nb_work_test(nb_work* w, int32_t* done);

/* Frees a work handle, first waiting for it when it has not completed (its error, if any, is dropped). NULL-safe. */
NB_API void nb_work_release(nb_work* w);

/* NB_OK when NCCL can be loaded: library (NULL: $NABLA_NCCL_LIBRARY, else libnccl.so.2 from the loader's search path); stores its version (e.g. 22703 for 2.27.3) in *version when version is non-NULL. Otherwise NB_ERR_BACKEND with what was tried and how to install NCCL. */
NB_API nb_status nb_comm_nccl_available(const char* library, int32_t* version);

/* A communicator over NCCL for CUDA tensors on device device_index (-1: the current CUDA device), with bootstrap's ranks (an MPI communicator: rank 0 makes NCCL's unique id and bootstrap broadcasts it). Collective over bootstrap; NCCL from library (NULL: as nb_comm_nccl_available). On it every collective and point-to-point call takes contiguous or strided tensors on that device, queues its work on the calling thread's current stream and returns without waiting for the device; a work handle's wait makes the current stream wait for it (the host does not block), and barrier first waits for the device. Reductions run in the tensor's dtype (int16 in int32); ReduceOp BAND, BOR and BXOR are refused. NCCL has no tags: sends to a peer match its receives in order. A failure NCCL reports asynchronously (ncclCommGetAsyncError) is returned by the next wait, test, blocking call or barrier on it, and the communicator is refused from then on. A watchdog thread (PyTorch's) watches every queued call: one still running after the communicator's timeout (nb_comm_set_timeout), or an asynchronous NCCL error, aborts the communicator (ncclCommAbort), and every pending or later call on it fails with NB_ERR_BACKEND naming the call, the rank and the time it ran. With TORCH_NCCL_BLOCKING_WAIT=1 (or NABLA_NCCL_BLOCKING_WAIT=1) set when the communicator is made, a wait (and a blocking call) blocks the host until the device finished the work or the timeout passed. */
NB_API nb_status nb_comm_init_nccl(nb_comm* bootstrap, const char* library, int32_t device_index, nb_comm** out);

/* ---- ops: amp ---- */
/* Gradient unscaling for mixed precision (PyTorch's _amp_foreach_non_finite_check_and_unscale_): multiplies each of the n floating-point gradients in place by inv_scale (a 1-element float32 tensor) and sets found_inf (a 1-element float32 tensor, not cleared) to 1 when any of them holds an inf or NaN. All tensors on one device; nothing is read back to the host, so a device queues the work. Bad input changes no gradient. */
NB_API nb_status nb_amp_foreach_non_finite_check_and_unscale_(nb_tensor* const* grads, int32_t n, nb_tensor* found_inf, const nb_tensor* inv_scale);

/* The loss scale's update (PyTorch's _amp_update_scale_), in place on the device: when found_inf is non-zero, scale *= backoff_factor and growth_tracker = 0; else growth_tracker + 1 successful steps, and at growth_interval of them scale *= growth_factor (kept when that overflows) and growth_tracker = 0. scale and found_inf: 1-element float32 tensors; growth_tracker: 1-element int32. */
NB_API nb_status nb_amp_update_scale_(nb_tensor* scale, nb_tensor* growth_tracker, const nb_tensor* found_inf, double growth_factor, double backoff_factor, int64_t growth_interval);

/* ---- ops: attention ---- */
/* softmax(q k^T * scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev]; attn_mask NULL, bool (true = attend) or float (added); is_causal masks keys after each query; scale NaN = 1/sqrt(E); dropout on the weights from gen (NULL = default generator). */
NB_API nb_status nb_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out);

/* ---- ops: binary ---- */
/* a + alpha * b, broadcast, with PyTorch's type promotion (bool: logical or). dst/out by convention. */
NB_API nb_status nb_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out);

/* a - alpha * b (not for bool operands). dst/out by convention. */
NB_API nb_status nb_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out);

/* a * b (bool: logical and). dst/out by convention. */
NB_API nb_status nb_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a / b: true division (integers give the default float dtype) or rounded by NB_ROUND_TRUNC / NB_ROUND_FLOOR; integer division by zero fails. dst/out by convention. */
NB_API nb_status nb_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst, nb_tensor** out);

/* floor(a / b), Python's //. dst/out by convention. */
NB_API nb_status nb_floor_divide(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a - b * floor(a / b): the sign of b, Python's %. dst/out by convention. */
NB_API nb_status nb_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* C's fmod: the sign of a. dst/out by convention. */
NB_API nb_status nb_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a ** b; for integers a negative scalar exponent fails and negative tensor exponents give 0 (except for bases 1 and -1), as in PyTorch. dst/out by convention. */
NB_API nb_status nb_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Elementwise max; NaN propagates. dst/out by convention. */
NB_API nb_status nb_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Elementwise min; NaN propagates. dst/out by convention. */
NB_API nb_status nb_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* atan2(a, b) in radians (integers give the default float dtype). dst/out by convention. */
NB_API nb_status nb_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* The regularised lower incomplete gamma function P(a, b) (torch.special.gammainc), floating inputs only, float64-accurate; NaN where a < 0 or b < 0. Differentiable in b only, as PyTorch. dst/out by convention. */
NB_API nb_status nb_igamma(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* The regularised upper incomplete gamma function Q(a, b) = 1 - P(a, b) (torch.special.gammaincc), computed without the cancellation. dst/out by convention. */
NB_API nb_status nb_igammac(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* The next value after a toward b in the result dtype (floating only; float16 and bfloat16 step in their own precision). dst/out by convention. */
NB_API nb_status nb_nextafter(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a == b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_eq(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a != b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_ne(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a < b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_lt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a <= b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_le(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a > b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_gt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a >= b as bool, compared in the promoted dtype. dst/out by convention. */
NB_API nb_status nb_ge(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) and (b != 0) as bool. dst/out by convention. */
NB_API nb_status nb_logical_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) or (b != 0) as bool. dst/out by convention. */
NB_API nb_status nb_logical_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) xor (b != 0) as bool. dst/out by convention. */
NB_API nb_status nb_logical_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a & b on integer and bool tensors. dst/out by convention. */
NB_API nb_status nb_bitwise_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a | b on integer and bool tensors. dst/out by convention. */
NB_API nb_status nb_bitwise_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a ^ b on integer and bool tensors. dst/out by convention. */
NB_API nb_status nb_bitwise_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a << b on integers (shifts past the width give 0). dst/out by convention. */
NB_API nb_status nb_bitwise_left_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a >> b on integers, arithmetic for signed types. dst/out by convention. */
NB_API nb_status nb_bitwise_right_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* ---- ops: index ---- */
/* out[i][j] = x[index[i][j]][j] (dim 0): index (int64 or int32) has x's ndim and is no larger than x apart from dim; out has index's shape. */
NB_API nb_status nb_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out);

/* A copy of x with x[index[i][j]][j] = src[i][j] (dim 0); src has x's dtype. Duplicate indices: the last write wins. dst/out by convention. */
NB_API nb_status nb_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out);

/* nb_scatter with a 0-dim value (converted to x's dtype) in place of src. dst/out by convention. */
NB_API nb_status nb_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value, nb_tensor* dst, nb_tensor** out);

/* A copy of x with x[index[i][j]][j] += src[i][j] (dim 0); duplicates accumulate. dst/out by convention. */
NB_API nb_status nb_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out);

/* PyTorch's scatter_reduce: a copy of x with each src[i][j] reduced into x[index[i][j]][j] (dim 0) by reduce (NB_SCATTER_*); src has x's dtype and index's rank. include_self 0: the places that receive values start from the reduction's identity instead of x's value (mean then counts only the values received); places that receive nothing keep x's value. dst/out by convention. */
NB_API nb_status nb_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out);

/* The entries of x at the positions of the 1-D int64/int32 index along dim. */
NB_API nb_status nb_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out);

/* A copy of x with x.select(dim, index[i]) += alpha * source.select(dim, i); duplicates accumulate. dst/out by convention. */
NB_API nb_status nb_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source, double alpha, nb_tensor* dst, nb_tensor** out);

/* x with the elements where the bool mask (broadcast) is true set to the 0-dim value (converted to x's dtype). dst/out by convention. */
NB_API nb_status nb_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst, nb_tensor** out);

/* The 1-D tensor of the elements of x (broadcast with the bool mask) where mask is true, in row-major order. */
NB_API nb_status nb_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out);

/* The [n, ndim] int64 coordinates of the nonzero elements of x in row-major order (NaN counts as nonzero). */
NB_API nb_status nb_nonzero(const nb_tensor* x, nb_tensor** out);

/* Gathers along dim after broadcasting x and the int64 indices apart from dim; with has_dim 0, along the flattened x. */
NB_API nb_status nb_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim, nb_tensor** out);

/* The int64 one-hot encoding of the int64 class values x: shape x.shape + [num_classes]; num_classes -1 infers max + 1. */
NB_API nb_status nb_one_hot(const nb_tensor* x, int64_t num_classes, nb_tensor** out);

/* Advanced indexing x[indices]: one entry per leading dim, NULL for a full slice, else an int64/int32 index or a bool/uint8 mask (one dim per mask dim). Index tensors broadcast together; their shape replaces the indexed dims, or leads the result when a full slice separates them (NumPy's rule). Negative indices count from the end. */
NB_API nb_status nb_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out);

/* x[indices] = values (broadcast to the indexing result; x's dtype), or += with accumulate; duplicate indices without accumulate: the last write wins. Indices as in nb_index. dst/out by convention. */
NB_API nb_status nb_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out);

/* ---- ops: linalg ---- */
/* torch.matmul: 1-D @ 1-D is a dot product (0-dim result), 2-D @ 2-D a matrix product, a 1-D operand gains a size-1 dim that is removed from the result, and batch dims (all but the last two) broadcast. Both operands must have the same dtype (no promotion); float16/bfloat16 accumulate in float32, integers wrap, bool is not supported. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Matrix product of two 2-D tensors [n, m] @ [m, p] -> [n, p], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Batched matrix product [b, n, m] @ [b, m, p] -> [b, n, p] (no broadcasting), same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Matrix-vector product [n, m] @ [m] -> [n], same dtype. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out);

/* Dot product of two 1-D tensors of equal length and dtype -> 0-dim. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Outer product of two 1-D tensors [n], [m] -> [n, m], computed as an elementwise product: dtypes promote, bool is allowed. dst/out by convention; dst has shape [n, m] and any dtype the result casts to. */
NB_API nb_status nb_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* beta * input + alpha * (mat1 @ mat2), input broadcast to [n, p]; beta == 0 ignores input (NaN included). Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out);

/* beta * input + alpha * bmm(batch1, batch2), input broadcast to [b, n, p]; beta == 0 ignores input. Integer dtypes truncate alpha and beta. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out);

/* torch.nn.functional.linear: matmul(input [*, in], weight.t()) with weight [out, in] (or [in]) plus bias (NULL for none) broadcast to the result; one dtype for all. dst/out by convention; dst must have the result's shape and the operands' dtype. */
NB_API nb_status nb_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out);

/* ---- ops: linalg_decomp ---- */
/* The inverse of each square float32/float64 matrix of A [..., n, n] (LU with partial pivoting). A singular matrix fails with NB_ERR_LINALG naming the zero diagonal element of U (and the batch element). */
NB_API nb_status nb_linalg_inv(const nb_tensor* A, nb_tensor** out);

/* X with A X = B (left 1) or X A = B (left 0) for square A [..., n, n]; B is [..., n, k] (left) or [..., k, n], or a vector [..., n] when 1-D or shaped like A without its last dim (PyTorch's rule); batch dims broadcast. A singular A fails with NB_ERR_LINALG. */
NB_API nb_status nb_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out);

/* The determinant of each square matrix of A [..., n, n], from its LU factors (0 for a singular one). */
NB_API nb_status nb_linalg_det(const nb_tensor* A, nb_tensor** out);

/* The sign (-1, 0 or 1) and log|det| (-inf for a singular matrix) of each square matrix of A. */
NB_API nb_status nb_linalg_slogdet(const nb_tensor* A, nb_tensor** sign, nb_tensor** logabsdet);

/* The Cholesky factor L (A = L L^T; upper 1: U with A = U^T U) of each symmetric positive-definite matrix of A, read from its lower triangle (upper 1: the upper one); the other triangle of the result is zero. A matrix that is not positive-definite fails with NB_ERR_LINALG naming the leading minor. */
NB_API nb_status nb_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out);

/* A [..., m, n] = Q R (Householder, LAPACK's signs) with Q orthonormal and R upper triangular; mode NB_QR_REDUCED, NB_QR_COMPLETE or NB_QR_R (Q then empty). Differentiable in modes reduced and complete (the latter when m <= n), as in PyTorch. */
NB_API nb_status nb_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R);

/* Eigenvalues (ascending, [..., n]) and, when eigenvectors is non-NULL, orthonormal eigenvectors (the columns of [..., n, n]) of each symmetric matrix of A, read from its lower triangle (upper 1: the upper one). No convergence fails with NB_ERR_LINALG. */
NB_API nb_status nb_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors);

/* A [..., m, n] = U diag(S) Vh (divide and conquer): S [..., k] descending with k = min(m, n), U [..., m, k] and Vh [..., k, n] (full_matrices: [..., m, m] and [..., n, n]); U and Vh both NULL: singular values only. An empty matrix has identity U / Vh, as in PyTorch. */
NB_API nb_status nb_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh);

/* nb_linalg_inv without failing on the values: info (int32, A's batch shape) is 0, or for a singular matrix the position of the zero diagonal element of U, whose inverse then holds the infinities and NaNs of solving A X = I from its LU factors (as PyTorch's inv_ex). */
NB_API nb_status nb_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info);

/* nb_linalg_solve without failing on the values: info (int32, the broadcast batch shape) is 0, or for a singular A the position of the zero diagonal element of U (the result then holds infinities and NaNs). */
NB_API nb_status nb_linalg_solve_ex(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** result, nb_tensor** info);

/* nb_linalg_cholesky without failing on the values: info (int32, A's batch shape) is 0, or the order of the leading minor that is not positive-definite (the factor then holds LAPACK's partial work). */
NB_API nb_status nb_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info);

/* X with A X = B (left 1) or X A = B (left 0), reading only the upper (upper 1) or lower triangle of A [..., n, n] (unitriangular 1: ones assumed on its diagonal); B is [..., n, k] (left) or [..., k, n], batch dims broadcast. A zero on the diagonal gives infinities and NaNs, not an error (BLAS trsm, as PyTorch). */
NB_API nb_status nb_linalg_solve_triangular(const nb_tensor* A, const nb_tensor* B, int32_t upper, int32_t left, int32_t unitriangular, nb_tensor** out);

/* The Bunch-Kaufman factorization A = L D L^T of each symmetric float32/float64 matrix of A [..., n, n], read from its lower triangle (LAPACK's sytrf, lower; hermitian is the same for real dtypes): LD [..., n, n] holds L below the diagonal and the 1x1 / 2x2 blocks of D on and next to it (zero above), pivots (int32 [..., n]) LAPACK's 1-based interchanges (negative for a 2x2 block), info (int32, A's batch shape) 0 or the position of a zero diagonal block of D, as PyTorch's ldl_factor_ex. */
NB_API nb_status nb_linalg_ldl_factor_ex(const nb_tensor* A, int32_t hermitian, nb_tensor** LD, nb_tensor** pivots, nb_tensor** info);

/* X with A X = B from nb_linalg_ldl_factor_ex's LD [..., n, n] and pivots [..., n] (any integer dtype) of A (LAPACK's sytrs); B is [..., n, k] of LD's dtype, batch dims broadcast. */
NB_API nb_status nb_linalg_ldl_solve(const nb_tensor* LD, const nb_tensor* pivots, const nb_tensor* B, int32_t hermitian, nb_tensor** out);

/* ---- ops: nn ---- */
/* 1-D convolution (cross-correlation) of input [N, C_in, L] with weight [C_out, C_in / groups, kW] plus optional bias [C_out]; zero padding may differ on the two sides (PyTorch's padding='same'). Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
NB_API nb_status nb_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out);

/* 2-D convolution of input [N, C_in, H, W] with weight [C_out, C_in / groups, kH, kW] plus optional bias [C_out]. stride[2] and dilation[2] are (H, W); padding[4] is (top, left, bottom, right), zeros. Floating dtypes; input, weight and bias share one dtype. dst/out by convention. */
NB_API nb_status nb_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out);

/* Transposed 2-D convolution of input [N, C_in, H, W] with weight [C_in, C_out / groups, kH, kW] plus optional bias [C_out]; stride, padding, output_padding and dilation are (H, W) pairs; output size (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1. dst/out by convention. */
NB_API nb_status nb_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out);

/* Max pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size, dilation NULL meaning 1; padding counts as -inf and NaN wins. When indices is not NULL it receives an int64 tensor of the argmax positions, flat within each input plane (h * W + w). dst/out by convention. */
NB_API nb_status nb_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices, nb_tensor* dst, nb_tensor** out);

/* Average pooling over input [N, C, H, W] (floating); (H, W) pairs, stride NULL meaning kernel_size. The divisor is divisor_override when non-zero, else the window size with (count_include_pad) or without the zero padding. dst/out by convention. */
NB_API nb_status nb_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out);

/* Adaptive average pooling of input [N, C, H, W] to output_size[2] = (OH, OW): cell i averages rows floor(i * H / OH) to ceil((i + 1) * H / OH), likewise columns. dst/out by convention. */
NB_API nb_status nb_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst, nb_tensor** out);

/* Layer normalization over the trailing dims normalized_shape[ndim]: (x - mean) / sqrt(var + eps) (biased variance) times weight plus bias, both optional and shaped normalized_shape, in the input's dtype. dst/out by convention. */
NB_API nb_status nb_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out);

/* Batch normalization of input [N, C, *] per channel. training: batch statistics (biased variance), and running_mean / running_var (optional, C elements) are updated in place as (1 - momentum) * running + momentum * batch stat (unbiased variance). Otherwise the running stats (required) are used. weight and bias optional [C]. dst/out by convention. */
NB_API nb_status nb_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var, const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum, double eps, nb_tensor* dst, nb_tensor** out);

/* Group normalization of input [N, C, *]: statistics over each of num_groups groups of C / num_groups channels (and all positions) per item, then per-channel weight and bias (optional [C]). dst/out by convention. */
NB_API nb_status nb_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out);

/* Negative log-likelihood of log-probabilities input [C], [N, C] or [N, C, d1, ...] at class-index target (int64 or uint8; [], [N] or [N, d1, ...]), times weight[class] (optional [C]); targets equal to ignore_index count nothing. reduction: NB_REDUCTION_NONE, _MEAN (divided by the summed weights) or _SUM. Out-of-range targets fail with NB_ERR_INDEX. dst/out by convention. */
NB_API nb_status nb_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out);

/* Cross entropy of logits input (class dim 1, or 0 when unbatched) against class indices (as nb_nll_loss on log_softmax) or, for a floating target shaped like the input, class probabilities (mean divides by the number of positions). label_smoothing in [0, 1] mixes in the uniform distribution as PyTorch does. reduction: NB_REDUCTION_NONE, _MEAN or _SUM. dst/out by convention. */
NB_API nb_status nb_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out);

/* (input - target)^2, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights), in the promoted floating dtype; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out);

/* |input - target|, broadcast, times weight (optional, the input's shape; the mean then divides by the summed weights); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out);

/* 0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta (beta >= 0; 0 gives L1); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out);

/* 0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta) (delta > 0), times weight (optional, the input's shape; the mean divides by the element count); reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out);

/* -weight (target log(input) + (1 - target) log(1 - input)) with the logs clamped at -100; input in [0, 1], target of the input's shape and dtype, weight (optional) broadcast to it; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out);

/* -weight (pos_weight target log(sigmoid(x)) + (1 - target) log(1 - sigmoid(x))), computed stably from the logits x; target of the input's shape, weight and pos_weight (optional) broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM. dst/out by convention. */
NB_API nb_status nb_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out);

/* Pointwise KL divergence with input as log-probabilities: target (log(target) - input), 0 where target is 0; with log_target, exp(target) (target - input). Broadcast; reduction NB_REDUCTION_NONE / _MEAN / _SUM ('batchmean' is sum / batch size). dst/out by convention. */
NB_API nb_status nb_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out);

/* Rows of weight [num_embeddings, dim] (any dtype) at indices (int64 or int32, any shape): output indices.shape + [dim]. Indices out of range fail with NB_ERR_INDEX. padding_idx (negative for none) only affects the gradient. dst/out by convention. */
NB_API nb_status nb_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst, nb_tensor** out);

/* Pads the last npad / 2 dims by pad = (last before, last after, second-to-last before, ...) as PyTorch's F.pad. mode NB_PAD_CONSTANT (value, converted to the dtype; negative pads crop), NB_PAD_REFLECT, NB_PAD_REPLICATE or NB_PAD_CIRCULAR (these three: the last 1-3 dims of a tensor with one or two more dims). Any dtype. dst/out by convention. */
NB_API nb_status nb_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value, nb_tensor* dst, nb_tensor** out);

/* ---- ops: nn_backward ---- */
/* Gradient of nb_conv2d with respect to its input [N, C, H, W] (input_size = (H, W)), from grad_output [N, C_out, OH, OW] and weight [C_out, C / groups, kH, kW]; attributes as nb_conv2d (padding[4]). Computed as a transposed convolution (col2im). dst/out by convention. */
NB_API nb_status nb_conv2d_backward_input(const nb_tensor* grad_output, const nb_tensor* weight, const int64_t* input_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out);

/* Gradient of nb_conv2d with respect to its weight [C_out, C / groups, kH, kW] (kernel_size = (kH, kW)), from grad_output [N, C_out, OH, OW] and input [N, C, H, W]; attributes as nb_conv2d. One GEMM over im2col(input) per image tile. dst/out by convention. */
NB_API nb_status nb_conv2d_backward_weight(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out);

/* Gradient of nb_max_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)): grad_output [N, C, OH, OW] summed into the argmax positions indices (int64, as nb_max_pool2d returns them). dst/out by convention. */
NB_API nb_status nb_max_pool2d_backward(const nb_tensor* grad_output, const nb_tensor* indices, const int64_t* input_size, nb_tensor* dst, nb_tensor** out);

/* Gradient of nb_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]; attributes as nb_avg_pool2d (stride NULL meaning kernel_size; ceil_mode is implied by OH, OW). dst/out by convention. */
NB_API nb_status nb_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out);

/* Gradient of nb_adaptive_avg_pool2d with respect to its input [N, C, H, W] (input_size = (H, W)) from grad_output [N, C, OH, OW]. dst/out by convention. */
NB_API nb_status nb_adaptive_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, nb_tensor* dst, nb_tensor** out);

/* Gradients of nb_layer_norm from grad_output (the input's shape), recomputing the statistics of input: the input gradient into dst/out (by convention; out NULL and dst NULL: not computed), and when not NULL grad_weight and grad_bias (shaped normalized_shape, as if weight and bias were given). weight optional. */
NB_API nb_status nb_layer_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out);

/* Gradients of nb_batch_norm in training mode (batch statistics, recomputed from input [N, C, *]) from grad_output (the input's shape): the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
NB_API nb_status nb_batch_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out);

/* Gradients of nb_group_norm from grad_output (the input's shape), recomputing the statistics of input [N, C, *]: the input gradient into dst/out (by convention; both NULL: not computed), and when not NULL grad_weight and grad_bias ([C]). weight optional [C]. */
NB_API nb_status nb_group_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out);

/* Gradient of nb_embedding with respect to its weight: [num_weights, dim] in grad_output's (float) dtype, the rows of grad_output [*indices.shape, dim] summed into the rows their indices (int64 or int32) name, in index order; the padding_idx row (negative for none) stays zero; with scale_grad_by_freq each row's terms are divided by how often its index occurs. On CUDA one deterministic kernel after a stable sort of the indices; an index out of range fails with NB_ERR_INDEX (on a device at the next synchronising call). Differentiable in grad_output (the rows gathered back, frequency scaling ignored, as PyTorch). dst/out by convention. */
NB_API nb_status nb_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst, nb_tensor** out);

/* The gradient of nb_gelu at input from the output gradient (PyTorch's gelu_backward), fused: grad_output * (Phi(x) + x phi(x)), or the derivative of the tanh approximation when approximate_tanh is 1. Floating inputs, broadcast together and promoted; float16 / bfloat16 compute in float32. dst/out by convention. */
NB_API nb_status nb_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out);

/* ---- ops: optim ---- */
/* One SGD step in place, PyTorch's formula: g = grad (negated with maximize) + weight_decay * param; with momentum != 0, buf = g when init_buffer (the first step) else momentum * buf + (1 - dampening) * g, and g = g + momentum * buf (nesterov) or buf; param -= lr * g. momentum_buffer (param's shape and dtype) may be NULL when momentum is 0. Floating dtypes; strided operands work through a copy. Bumps the versions of what it writes. */
NB_API nb_status nb_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer);

/* One Adam (AdamW with decoupled_weight_decay) step in place at step >= 1 (already counted), PyTorch's formula: weight decay scales param by 1 - lr * weight_decay (decoupled) or adds weight_decay * param to the gradient; exp_avg lerps to g by 1 - beta1, exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) g^2; with amsgrad, max_exp_avg_sq (else may be NULL) keeps the running maximum and is used instead; param -= lr / (1 - beta1^step) * exp_avg / (sqrt(v) / sqrt(1 - beta2^step) + eps). All operands share param's shape and dtype. */
NB_API nb_status nb_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq, nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize);

/* One RMSprop step in place, PyTorch's formula: square_avg = alpha * square_avg + (1 - alpha) g^2; centered: grad_avg lerps to g by 1 - alpha and avg = sqrt(square_avg - grad_avg^2) + eps, else sqrt(square_avg) + eps; with momentum > 0, buf = momentum * buf + g / avg and param -= lr * buf, else param -= lr * g / avg. grad_avg and momentum_buffer may be NULL when unused. */
NB_API nb_status nb_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg, nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize);

/* One Adagrad step in place at step >= 1 (already counted), PyTorch's formula: clr = lr / (1 + (step - 1) lr_decay); state_sum += g^2; param -= clr * g / (sqrt(state_sum) + eps). */
NB_API nb_status nb_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize);

/* nb_sgd_step over count parameters at once (PyTorch's fused / foreach SGD): params[i] with grads[i] and momentum_buffers[i] (the list may be NULL when momentum is 0); init_buffer applies to every buffer. Same formula and messages as nb_sgd_step; dtypes may differ between parameters (each parameter's state has its dtype); all tensors on one device. Every tensor is checked before any is written, so bad input changes nothing. */
NB_API nb_status nb_sgd_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* momentum_buffers, int64_t count, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer);

/* nb_adam_step over count parameters at once (PyTorch's _fused_adam_: each parameter has its own step count, steps[i] >= 1, already counted); max_exp_avg_sqs may be NULL without amsgrad. Same formula and messages as nb_adam_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
NB_API nb_status nb_adam_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* exp_avgs, nb_tensor* const* exp_avg_sqs, nb_tensor* const* max_exp_avg_sqs, const int64_t* steps, int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize);

/* nb_rmsprop_step over count parameters at once; grad_avgs may be NULL unless centered, momentum_buffers unless momentum > 0. Same formula and messages as nb_rmsprop_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
NB_API nb_status nb_rmsprop_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* square_avgs, nb_tensor* const* grad_avgs, nb_tensor* const* momentum_buffers, int64_t count, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize);

/* nb_adagrad_step over count parameters at once, each at its own step count steps[i] >= 1 (already counted). Same formula and messages as nb_adagrad_step; dtypes may differ between parameters; all tensors on one device; every tensor is checked before any is written. */
NB_API nb_status nb_adagrad_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* state_sums, const int64_t* steps, int64_t count, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize);

/* The norm of order norm_type (> 0, 0 or inf) of all n tensors taken together, as a 0-dim tensor of the first one's dtype (float32 for none); when max_norm / (norm + 1e-6) < 1 every tensor is multiplied by it in place (PyTorch's clip_grad_norm_; max_norm = inf only measures). A non-finite norm fails with error_if_nonfinite. On a device the norm and the scaling stay there (a few multi-tensor launches, nothing read back) unless error_if_nonfinite, which reads the norm. */
NB_API nb_status nb_clip_grad_norm_(nb_tensor* const* grads, int32_t n, double max_norm, double norm_type, int32_t error_if_nonfinite, nb_tensor** out);

/* Clamps every element of the n floating-point tensors to [-clip_value, clip_value] in place (PyTorch's clip_grad_value_; NaN stays NaN). All tensors on one device; a device runs it without reading anything back. */
NB_API nb_status nb_clip_grad_value_(nb_tensor* const* grads, int32_t n, double clip_value);

/* ---- ops: random ---- */
/* A new generator with the given seed and offset 0; release it with nb_generator_release. */
NB_API nb_status nb_generator_create(uint64_t seed, nb_generator** out);

/* Frees a generator made by nb_generator_create. NULL-safe; does nothing to the default generator. A released handle is refused, and a double release warned about, as for nb_tensor_release. */
NB_API void nb_generator_release(nb_generator* gen);

/* The process default generator (seed 67280421310721 at start, as PyTorch's); static, never released. */
NB_API nb_generator* nb_default_generator(void);

/* Seeds the default generator (offset back to 0). */
NB_API nb_status nb_manual_seed(uint64_t seed);

/* Sets the seed and rewinds the offset to 0 (gen NULL: the default generator). */
NB_API nb_status nb_generator_manual_seed(nb_generator* gen, uint64_t seed);

/* The generator's seed (PyTorch's initial_seed). */
NB_API nb_status nb_generator_seed(nb_generator* gen, uint64_t* out);

/* The whole state: seed and offset (in Philox blocks of 4 x 32 bits). Restoring it with nb_generator_set_state replays the same numbers. */
NB_API nb_status nb_generator_get_state(nb_generator* gen, uint64_t* seed, uint64_t* offset);

/* Restores a state from nb_generator_get_state. */
NB_API nb_status nb_generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset);

/* Uniform values on [0, 1) in a floating dtype (float16/bfloat16 get values exact in their precision). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
NB_API nb_status nb_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* Standard normal values (Box-Muller) in a floating dtype (float16/bfloat16 computed as float32 and rounded). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
NB_API nb_status nb_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* Integers uniform on [low, high) in any dtype that holds both bounds exactly (floats: within +-2^mantissa digits). gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
NB_API nb_status nb_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* A random permutation of 0 .. n-1 (Fisher-Yates on the generator's stream), 1-D. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
NB_API nb_status nb_randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* Fills a floating tensor in place with values uniform on [from, to) (from <= to, both finite). Bumps t's version. gen NULL means the default generator. */
NB_API nb_status nb_uniform_(nb_tensor* t, double from, double to, nb_generator* gen);

/* Fills a floating tensor in place with normal values (std >= 0). Bumps t's version. gen NULL means the default generator. */
NB_API nb_status nb_normal_(nb_tensor* t, double mean, double std, nb_generator* gen);

/* Fills t in place with integers uniform on [low, high_inclusive] (inclusive, so a dtype's whole range is expressible; PyTorch's random_(from, to) is [from, to - 1]). Bumps t's version. gen NULL means the default generator. */
NB_API nb_status nb_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen);

/* 1 with probability p[i], else 0, in p's shape and (floating) dtype; every p[i] must be in [0, 1]. With dst non-NULL, p broadcasts to dst's shape and the 0/1 values take dst's dtype; dst/out otherwise by convention. gen NULL means the default generator. */
NB_API nb_status nb_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* 1 with probability p (in [0, 1]), else 0, in any dtype. gen NULL means the default generator. dst/out by convention; dst's shape, dtype and device must match the request. */
NB_API nb_status nb_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* int64 category indices drawn from each row of probs (1-D [k] or 2-D [rows, k]; non-negative finite weights, not necessarily normalised, each row summing > 0): shape [num_samples] or [rows, num_samples]. Without replacement, num_samples <= k and zero-weight categories come only after every positive one. gen NULL means the default generator. dst/out by convention. */
NB_API nb_status nb_multinomial(const nb_tensor* probs, int64_t num_samples, int32_t replacement, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* Training (train != 0): each element of a floating x is zeroed with probability p and the rest are scaled by 1/(1-p), so the expectation is kept; p = 1 gives zeros (x * 0). The keep mask is bernoulli(1 - p) from the same stream. Not training: x itself (a new reference), or a copy into dst. dst must have x's shape and a floating dtype (dst == x is in-place). gen NULL means the default generator. Differentiable: the gradient is go times the same scaled mask (the identity when not training or p = 0). */
NB_API nb_status nb_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst, nb_tensor** out);

/* ---- ops: reduce ---- */
/* Sum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default. float32 sums are pairwise in float inside 128-element blocks and accumulate in double; float64 sums are pairwise; float16/bfloat16 accumulate as float32 and round once. The sum of nothing is 0. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* Mean over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Floating point only (an integer input needs a floating dtype). Accumulates as nb_sum; the mean of nothing is NaN. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* Product over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1. dtype (-1: default; else out's dtype when dst is given) is the result dtype, the input is cast to it first. Integer and bool inputs give int64 by default (wrapping); floats multiply in double. The product of nothing is 1. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* Maximum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Minimum over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1; the input's dtype; NaN propagates. Reducing an empty dim fails (no identity). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* PyTorch's max(t, dim, keepdim): two results, the maximum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
NB_API nb_status nb_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices);

/* PyTorch's min(t, dim, keepdim): two results, the minimum values along dim (the input's dtype) into *values and their int64 indices into *indices (the first occurrence; a NaN wins and propagates). dst_values / dst_indices, when non-NULL, receive the results (out=) and the matching out pointer may then be NULL. Reducing an empty dim fails. */
NB_API nb_status nb_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices);

/* int64 index of the first maximum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the maximum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_argmax(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* int64 index of the first minimum along *dim, or into the flattened tensor when dim is NULL (keepdim then gives all dims size 1); a NaN counts as the minimum. Not for bool; an empty reduction fails. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_argmin(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Variance over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Standard deviation over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, dividing by max(0, N - correction) (1: unbiased, 0: population). Floating point only; computed in double with a stable (blocked two-pass / Welford + Chan) update. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Vector p-norm over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: p = 2 (Frobenius over every dim), 1, INFINITY (max |x|), -INFINITY (min |x|), 0 (count of non-zeros) or any other p ((sum |x|^p)^(1/p)). Floating point input; dtype (-1: the input's) is the result dtype. The inf / negative norms of an empty reduction fail. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* log(sum(exp(x))) over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1, computed stably (max shifted, in double). Integer inputs give the default float dtype; the result of nothing is -inf. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Whether every element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). True for nothing. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_all(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Whether any element is non-zero over dims[ndims] (negative dims wrap, no duplicates; ndims 0 = every dim, and dims may then be NULL), keepdim keeps them as size 1: bool (uint8 for uint8 input, as PyTorch). False for nothing. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_any(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out);

/* Cumulative sum along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* Cumulative product along dim (same shape). dtype (-1: default; else out's dtype when dst is given) is the result dtype, integers and bool give int64 by default; floats accumulate in double and each output is rounded once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* exp(x) / sum(exp(x)) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* x - log(sum(exp(x))) along dim, computed stably (max shifted). dtype (-1: the input's) casts the input first and must be floating point; float16 / bfloat16 compute in float32 and round once. dst may be t itself (in place). dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out);

/* ---- ops: shape ---- */
/* Concatenates n tensors along dim (PyTorch's torch.cat): shapes must match except along dim; the dtype is the promotion of all inputs; 1-D empty tensors are skipped (PyTorch's legacy rule). dst/out by convention. */
NB_API nb_status nb_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out);

/* Stacks n tensors of one shape along a new dim (in [-ndim-1, ndim]). dst/out by convention. */
NB_API nb_status nb_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out);

/* A copy of x with the order of elements reversed along each of dims (no duplicates). */
NB_API nb_status nb_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out);

/* A copy of x with elements shifted circularly by shifts[i] along dims[i]; with ndims 0 and one shift, along the flattened tensor. */
NB_API nb_status nb_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims, nb_tensor** out);

/* Tensor.repeat: x tiled repeats[i] times along each dim (n >= x's ndim; extra leading repeats add dims). */
NB_API nb_status nb_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out);

/* The lower triangle of the last two dims (elements with col - row <= diagonal), zeros elsewhere. dst/out by convention. */
NB_API nb_status nb_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out);

/* The upper triangle of the last two dims (elements with col - row >= diagonal), zeros elsewhere. dst/out by convention. */
NB_API nb_status nb_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out);

/* Sorts x along dim: *values (x's dtype) and *indices (int64). The sort is always stable; NaN orders above every number (last ascending, first descending), as in PyTorch. */
NB_API nb_status nb_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values, nb_tensor** indices);

/* The int64 indices that sort x along dim (the indices of nb_sort). */
NB_API nb_status nb_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out);

/* For each element of values, its insertion point in sorted_sequence's last dim (sorted ascending) that keeps it sorted: the count of elements below it (< value; <= with right), by binary search. sorted_sequence is 1-d (one line for all values) or has values' leading dims; same dtype (not bool) and device. *out: int64 (int32 with out_int32), shaped as values. NaN values go last, as in PyTorch. */
NB_API nb_status nb_searchsorted(const nb_tensor* sorted_sequence, const nb_tensor* values, int32_t right, int32_t out_int32, nb_tensor** out);

/* The k largest (or smallest) elements along dim and their int64 indices, always sorted; ties keep the earlier index first. */
NB_API nb_status nb_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted, nb_tensor** values, nb_tensor** indices);

/* The distinct values of the flattened x, sorted (every NaN is distinct, as in PyTorch); inverse (x's shape, int64: each element's position in values) and counts (int64) are computed only when their pointers are non-NULL. */
NB_API nb_status nb_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts);

/* PyTorch's unique(dim=): the distinct slices of x along dim, sorted lexicographically (by the first element that is < or >; slices holding NaN equal no other); inverse (int64 [x.shape[dim]]: each slice's position in values) and counts (int64) are computed only when their pointers are non-NULL. A zero-sized dim other than dim is an error, as in PyTorch. */
NB_API nb_status nb_unique_dim(const nb_tensor* x, int64_t dim, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts);

/* PyTorch's unique_consecutive: x with each run of equal consecutive elements (has_dim 0: of the flattened x; else slices along dim) reduced to one; inverse (int64, x's shape, or [x.shape[dim]] with a dim) and counts (int64) are computed only when their pointers are non-NULL. */
NB_API nb_status nb_unique_consecutive(const nb_tensor* x, int64_t dim, int32_t has_dim, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts);

/* ---- ops: softmax_backward ---- */
/* The gradient of softmax along dim from its result output and the output gradient (PyTorch's _softmax_backward_data): output * (grad_output - sum(grad_output * output, dim)), fused. grad_output and output have one shape and one floating dtype (the result's); float16 / bfloat16 compute in float32. dst/out by convention; dst must have the result's shape and dtype. */
NB_API nb_status nb_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out);

/* The gradient of log_softmax along dim from its result output and the output gradient (PyTorch's _log_softmax_backward_data): grad_output - exp(output) * sum(grad_output, dim), fused. Shapes, dtypes and dst as nb_softmax_backward. */
NB_API nb_status nb_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out);

/* ---- ops: unary ---- */
/* e^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* 2^x, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_exp2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* e^x - 1, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* natural log, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* log base 2, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* log base 10, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* log(1 + x), elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* square root, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_sqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* 1 / sqrt(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_sin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_cos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* arcsine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* arccosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* arctangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_atan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* hyperbolic sine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* hyperbolic cosine, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* hyperbolic tangent, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_tanh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* 1 / (1 + e^-x), elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_sigmoid(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* error function, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_erf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* 1 - erf(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_erfc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* 1 / x, elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* x * sigmoid(x), elementwise (integers compute in the default float dtype). dst/out by convention. */
NB_API nb_status nb_silu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* GELU: x * Phi(x), or its tanh approximation when approximate_tanh is 1. dst/out by convention. */
NB_API nb_status nb_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out);

/* x if x > 0 else negative_slope * x (floating dtypes). dst/out by convention. */
NB_API nb_status nb_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out);

/* x if x > 0 else alpha * (e^x - 1). dst/out by convention. */
NB_API nb_status nb_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out);

/* log(1 + e^(beta x)) / beta, or x where beta x > threshold. dst/out by convention. */
NB_API nb_status nb_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out);

/* -x, elementwise. dst/out by convention. */
NB_API nb_status nb_neg(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* |x|, elementwise. dst/out by convention. */
NB_API nb_status nb_abs(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* -1, 0 or 1 (NaN stays NaN), elementwise. dst/out by convention. */
NB_API nb_status nb_sign(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* max(x, 0), elementwise. dst/out by convention. */
NB_API nb_status nb_relu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* x * x, elementwise. dst/out by convention. */
NB_API nb_status nb_square(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* round toward -inf (integers unchanged), elementwise. dst/out by convention. */
NB_API nb_status nb_floor(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* round toward +inf, elementwise. dst/out by convention. */
NB_API nb_status nb_ceil(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* round half to even, elementwise. dst/out by convention. */
NB_API nb_status nb_round(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* round toward zero, elementwise. dst/out by convention. */
NB_API nb_status nb_trunc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* ~x on integers, not on bool, elementwise. dst/out by convention. */
NB_API nb_status nb_bitwise_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* x == 0 as bool, elementwise. dst/out by convention. */
NB_API nb_status nb_logical_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* NaN test as bool, elementwise. dst/out by convention. */
NB_API nb_status nb_isnan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* infinity test as bool, elementwise. dst/out by convention. */
NB_API nb_status nb_isinf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* finite test as bool, elementwise. dst/out by convention. */
NB_API nb_status nb_isfinite(const nb_tensor* x, nb_tensor* dst, nb_tensor** out);

/* Replaces NaN, +inf and -inf in floating tensors by the given values. dst/out by convention. */
NB_API nb_status nb_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst, nb_tensor** out);

/* min(max(x, min), max); pass -inf / +inf for a missing bound. dst/out by convention. */
NB_API nb_status nb_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out);

/* a where the bool condition holds, else b; the three broadcast, a and b promote. dst/out by convention. */
NB_API nb_status nb_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_H_ */
