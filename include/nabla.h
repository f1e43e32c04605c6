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

/* A status code: NB_OK or one of NB_ERR_*. */
typedef int32_t nb_status;

/* An n-dimensional array: storage + dtype + shape + strides (elements) + offset. Atomically refcounted; views share storage. */
typedef struct nb_tensor nb_tensor;

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
} nb_memory_stats;

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

/* Drops a reference; the last one frees the tensor (and its storage when no view remains). NULL-safe. */
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

/* ---- memory ---- */
/* Fills the counters of a device's allocator (fields up to out->struct_size). */
NB_API nb_status nb_memory_stats_get(int32_t device_type, int32_t device_index, nb_memory_stats* out);

/* Resets peak_allocated_bytes to the current allocated_bytes. */
NB_API nb_status nb_memory_reset_peak(int32_t device_type, int32_t device_index);

/* Returns cached free blocks to the system: the shared lists and the calling thread's cache (another live thread keeps at most 8 MiB cached until it exits). */
NB_API nb_status nb_memory_empty_cache(int32_t device_type, int32_t device_index);

/* ---- ops: binary ---- */
/* a + alpha * b, broadcast, with PyTorch's type promotion (bool: logical or). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out);

/* a - alpha * b (not for two bool tensors). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out);

/* a * b (bool: logical and). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a / b: true division (integers give the default float dtype) or rounded by NB_ROUND_TRUNC / NB_ROUND_FLOOR; integer division by zero fails. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst, nb_tensor** out);

/* floor(a / b), Python's //. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_floor_divide(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a - b * floor(a / b): the sign of b, Python's %. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* C's fmod: the sign of a. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a ** b (integers to negative integer powers fail). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Elementwise max; NaN propagates. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Elementwise min; NaN propagates. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* atan2(a, b) in radians (integers give the default float dtype). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a == b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_eq(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a != b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_ne(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a < b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_lt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a <= b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_le(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a > b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_gt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a >= b as bool, compared in the promoted dtype. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_ge(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) and (b != 0) as bool. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_logical_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) or (b != 0) as bool. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_logical_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* (a != 0) xor (b != 0) as bool. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_logical_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a & b on integer and bool tensors. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bitwise_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a | b on integer and bool tensors. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bitwise_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a ^ b on integer and bool tensors. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bitwise_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a << b on integers (shifts past the width give 0). With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bitwise_left_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* a >> b on integers, arithmetic for signed types. With dst non-NULL the result is written into dst (in-place when dst is an input; out=) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bitwise_right_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* ---- ops: linalg ---- */
/* torch.matmul: 1-D @ 1-D is a dot product (0-dim result), 2-D @ 2-D a matrix product, a 1-D operand gains a size-1 dim that is removed from the result, and batch dims (all but the last two) broadcast. Both operands must have the same dtype (no promotion); float16/bfloat16 accumulate in float32, integers wrap, bool is not supported. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Matrix product of two 2-D tensors [n, m] @ [m, p] -> [n, p], same dtype. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Batched matrix product [b, n, m] @ [b, m, p] -> [b, n, p] (no broadcasting), same dtype. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Matrix-vector product [n, m] @ [m] -> [n], same dtype. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out);

/* Dot product of two 1-D tensors of equal length and dtype -> 0-dim. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* Outer product of two 1-D tensors [n], [m] -> [n, m], computed as an elementwise product: dtypes promote, bool is allowed. With dst non-NULL the result is written into dst (shape [n, m]; any dtype the result casts to) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out);

/* beta * input + alpha * (mat1 @ mat2), input broadcast to [n, p]; beta == 0 ignores input (NaN included). Integer dtypes truncate alpha and beta. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out);

/* beta * input + alpha * bmm(batch1, batch2), input broadcast to [b, n, p]; beta == 0 ignores input. Integer dtypes truncate alpha and beta. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out);

/* torch.nn.functional.linear: matmul(input [*, in], weight.t()) with weight [out, in] (or [in]) plus bias (NULL for none) broadcast to the result; one dtype for all. With dst non-NULL the result is written into dst (its shape must be the result's and its dtype the operands'; out=, or in-place when dst is input) and *out, which may then be NULL, receives a new reference to dst. */
NB_API nb_status nb_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_H_ */
