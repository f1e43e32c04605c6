/* internal.h: the core's private types and helpers (never installed). */
#ifndef NABLA_INTERNAL_H_
#define NABLA_INTERNAL_H_

#define NB_BUILDING_LIBRARY 1
#include "nabla.h"
#include "backend.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define NB_INTERNAL __attribute__((visibility("hidden")))
#define NB_LIKELY(x) __builtin_expect(!!(x), 1)

/* The instruction sets hot loops are cloned for (target_clones, picked at load
 * time): AVX-512, AVX2 and baseline. The sanitizer build (NB_SANITIZER_CLONES)
 * keeps the AVX-512 and baseline clones: the AVX2 one never runs on a machine
 * with AVX-512, and compiling it under ASan cost a third of that build. */
#ifdef NB_SANITIZER_CLONES
#define NB_CLONE_TARGETS "arch=x86-64-v4", "default"
#else
#define NB_CLONE_TARGETS "arch=x86-64-v4", "arch=x86-64-v3", "default"
#endif
#define NB_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define NB_NUM_DTYPES 10
#define NB_TENSOR_MAGIC 0x6e61626cu /* "nabl": a live handle */
#define NB_TENSOR_DEAD 0xdeadbeefu  /* written on release, to catch reuse of a dead handle */
/* A released handle object stays recognisable (dead magic, memory not reused) for at least this many
 * later handle releases on the same thread (cpu_allocator.c's quarantine). */
#define NB_HANDLE_QUARANTINE 4096

/* ---- errors (error.c) ---- */

/* Records status + printf-style message for this thread; returns status. */
NB_INTERNAL nb_status nb_error(nb_status status, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "[2, 3]" in a thread-local ring buffer: valid for the next few calls. */
NB_INTERNAL const char* nb_shape_str(const int64_t* shape, int32_t ndim);

/* Brackets long work (see nb_set_blocking_hooks): token = nb_blocking_begin(&end) ...
 * if (end) end(token). Only for work that touches no caller-visible object. */
NB_INTERNAL void* nb_blocking_begin(nb_blocking_end_fn* end);
#define NB_BLOCKING_WORK_BYTES ((int64_t)1 << 20) /* ~100 us of memory traffic */

/* ---- dtypes (dtype.c) ---- */

NB_INTERNAL extern const int64_t nb_dtype_sizes[NB_NUM_DTYPES];
static inline bool nb_dtype_valid(int32_t d) { return d >= 0 && d < NB_NUM_DTYPES; }
NB_INTERNAL float nb_half_to_float(uint16_t h);
NB_INTERNAL uint16_t nb_float_to_half(float f);
NB_INTERNAL float nb_bf16_to_float(uint16_t h);
NB_INTERNAL uint16_t nb_float_to_bf16(float f);
/* Single correct rounding from double (through float rounded to odd). */
NB_INTERNAL uint16_t nb_double_to_half(double d);
NB_INTERNAL uint16_t nb_double_to_bf16(double d);
/* PyTorch's overflow rule for a scalar converted to dtype: within [lowest, max]
 * for signed and float types (NaN and inf pass for floats), within [-max, max]
 * for unsigned ones (negative values wrap), anything for bool. */
NB_INTERNAL bool nb_value_fits(double v, int32_t dtype);
/* "float32" or "dtype(42)" for unknown codes (thread-local buffer). */
NB_INTERNAL const char* nb_dtype_str(int32_t dtype);
/* PyTorch's spellings for messages that mirror its own: "long int", "c10::Half" (C++
 * types) and "Long", "Half" (ScalarType names). */
NB_INTERNAL const char* nb_dtype_cpp_name(int32_t dtype);
NB_INTERNAL const char* nb_dtype_torch_name(int32_t dtype);
/* PyTorch's can_cast: no float -> integer, no non-bool -> bool (elementwise.c). */
NB_INTERNAL bool nb_can_cast(int32_t from, int32_t to);

/* ---- storage and tensors (tensor.c) ---- */

struct nb_backend;
struct nb_ag_meta;

typedef struct nb_storage {
    atomic_int_fast64_t refcount;
    atomic_int_fast64_t version;     /* shared by every view: counts in-place writes */
    void* data;
    int64_t nbytes;
    int32_t device_type;
    int32_t device_index;
    const struct nb_backend* backend; /* frees data when not external */
    nb_deleter_fn deleter;           /* external memory: deleter(payload) */
    void* payload;
    bool inline_data;                /* CPU: the header block has a data tail of inline_nbytes */
    int64_t inline_nbytes;           /* the tail's size (data may have moved out since: resize, share_memory_) */
    bool readonly;                   /* imported read-only (DLPack flag): in-place writes fail */
    atomic_int_fast32_t exports;     /* live DLPack exports: their consumers hold data, so it cannot move */
} nb_storage;

struct nb_tensor {
    uint32_t magic;
    int32_t dtype;
    atomic_int_fast64_t refcount;
    nb_storage* storage;
    int64_t offset;  /* elements */
    int64_t numel;
    int32_t ndim;
    int16_t contiguous;
    int16_t wrapped_number;  /* a Python-style scalar: lowest priority in type promotion */
    int64_t shape[NB_MAX_DIMS];
    int64_t strides[NB_MAX_DIMS];
    struct nb_ag_meta* ag;   /* autograd state; NULL for tensors that never took part */
    struct nb_tensor* base;  /* a view's root tensor (holds a reference); NULL when not a view */
};

static inline bool nb_tensor_ok(const nb_tensor* t) {
    return t != NULL && t->magic == NB_TENSOR_MAGIC;
}
/* The error for a NULL or released handle passed as argument `arg` of `op`. */
NB_INTERNAL nb_status nb_bad_handle(const char* op, const char* arg, const nb_tensor* t);
/* Reports the release of a handle whose magic word is not `live` (released already, or never a handle of
 * that kind) through the warning channel; `kind` names it ("tensor", "stream", ...). */
NB_INTERNAL void nb_bad_release(const char* fn, const char* kind, const void* h, uint32_t magic);

#define NB_CHECK_TENSOR(op, t) \
    do { if (NB_UNLIKELY(!nb_tensor_ok(t))) return nb_bad_handle(op, #t, t); } while (0)
#define NB_CHECK_OUT(op, out) \
    do { if (NB_UNLIKELY((out) == NULL)) \
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: output pointer '" #out "' is NULL", op); } while (0)

static inline void* nb_tensor_data(const nb_tensor* t) {
    return (char*)t->storage->data + t->offset * nb_dtype_sizes[t->dtype];
}

/* Allocates storage of nbytes on a device (validated by the caller). */
NB_INTERNAL nb_status nb_storage_new(const char* op, int64_t nbytes, int32_t device_type,
                                     int32_t device_index, nb_storage** out);
/* Storage over memory nabla does not own; deleter(payload) runs at the end (may be NULL). */
NB_INTERNAL nb_status nb_storage_wrap(const char* op, void* data, int64_t nbytes, int32_t device_type,
                                      int32_t device_index, nb_deleter_fn deleter, void* payload,
                                      nb_storage** out);
NB_INTERNAL void nb_storage_release(nb_storage* s);
/* The data tail of an inline storage's block, or NULL: data elsewhere is freed on its own. */
NB_INTERNAL void* nb_storage_inline_tail(const nb_storage* s);
/* Grows s to at least nbytes, keeping its bytes (PyTorch's storage resize): the data moves to a
 * new block that every view sees. External memory cannot grow. */
NB_INTERNAL nb_status nb_storage_grow(const char* op, nb_storage* s, int64_t nbytes);
/* nb_tensor_from_external with the caller's op name in messages (factory.c). */
NB_INTERNAL nb_status nb_wrap_external(const char* op, void* data, const int64_t* shape, const int64_t* strides,
                                       int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index,
                                       nb_deleter_fn deleter, void* payload, nb_tensor** out);
/* A tensor over `storage` (takes a reference to it) with the given geometry. */
NB_INTERNAL nb_status nb_tensor_make(const char* op, nb_storage* storage, int32_t dtype,
                                     const int64_t* shape, const int64_t* strides,
                                     int32_t ndim, int64_t offset, nb_tensor** out);
/* A contiguous tensor with fresh, uninitialised storage; shape already validated. */
NB_INTERNAL nb_status nb_tensor_new(const char* op, const int64_t* shape, int32_t ndim,
                                    int32_t dtype, int32_t device_type, int32_t device_index,
                                    nb_tensor** out);
/* A fresh tensor shaped like t, in t's memory order (PyTorch's preserve_format). */
NB_INTERNAL nb_status nb_tensor_new_like(const char* op, const nb_tensor* t, int32_t dtype, int32_t device_type,
                                         int32_t device_index, nb_tensor** out);
NB_INTERNAL void nb_tensor_bump_version(nb_tensor* t);
/* The common end of an op that computed into target (which is dst when given): on
 * failure drops a target it made; on success bumps dst's version and hands out a
 * reference (none when dst is given and out is NULL). */
/* dst takes a result of this shape, dtype and device (PyTorch's messages): the dtype and
 * device must be the result's; a dst of another shape is resized (nb_resize_output) unless
 * it is one of the op's inputs[n] (an in-place op, which must fit) or overlaps one. */
NB_INTERNAL nb_status nb_check_dst(const char* op, nb_tensor* dst, const nb_tensor* const* inputs, int32_t n,
                                   const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type);
NB_INTERNAL nb_status nb_op_finish(nb_status st, nb_tensor* dst, nb_tensor* target, nb_tensor** out);
/* ---- memory overlap (overlap.c) ---- */

/* PyTorch's MemOverlapStatus. */
typedef enum { NB_OVERLAP_NO, NB_OVERLAP_FULL, NB_OVERLAP_PARTIAL, NB_OVERLAP_TOO_HARD } nb_overlap;
/* True when a and b have elements and their byte ranges in one storage intersect. */
NB_INTERNAL bool nb_tensors_overlap(const nb_tensor* a, const nb_tensor* b);
/* PyTorch's get_overlap_status: FULL for the same tensor or the same dense memory with the same
 * strides, NO when either is empty or the memory is disjoint, TOO_HARD when a layout is not dense. */
NB_INTERNAL nb_overlap nb_overlap_status(const nb_tensor* a, const nb_tensor* b);
/* PyTorch's assert_no_overlap: fails (with its message) on a FULL or PARTIAL overlap. */
NB_INTERNAL nb_status nb_check_no_overlap(const char* op, const nb_tensor* written, const nb_tensor* input);
/* PyTorch's message for a written-to tensor that shares memory with an input. */
NB_INTERNAL nb_status nb_overlap_error(const char* op);

/* ---- out= (resize.c) ---- */

/* PyTorch's resize_output for the tensor an out= op writes: nothing when it already has
 * `shape`; otherwise a warning when it had elements (nb_warn; it may fail the op), then
 * nb_resize. Callers check the dtype and device first, and refuse a dst that is one of the
 * op's inputs (an in-place op must fit). inputs[n] are the tensors the op reads (NULL entries
 * skipped): a dst that must change shape while it shares memory with one of them is refused,
 * since resizing would change that input under the op (or move the memory it reads). */
NB_INTERNAL nb_status nb_resize_output(const char* op, nb_tensor* dst, const nb_tensor* const* inputs, int32_t n,
                                       const int64_t* shape, int32_t ndim);
/* PyTorch's resize_: new contiguous geometry at the same offset, the storage grown if needed
 * (its bytes kept); a tensor that already has `shape` keeps its strides. */
NB_INTERNAL nb_status nb_resize(const char* op, nb_tensor* t, const int64_t* shape, int32_t ndim);
/* True when shape[ndim] is a's shape. */
static inline bool nb_same_shape(const nb_tensor* a, const int64_t* shape, int32_t ndim) {
    return a->ndim == ndim && (ndim == 0 || memcmp(a->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0);
}

/* ---- linear algebra (src/ops/lapack.c) ---- */

/* linalg.solve's B is a batch of vectors: 1-D, or shaped like A without its last dim (PyTorch's rule). */
NB_INTERNAL bool nb_solve_rhs_is_vector(const nb_tensor* a, const nb_tensor* b);

/* ---- warnings (warning.c) ---- */

/* Reports a warning through the handler (nb_set_warning_handler; stderr without one). A
 * handler may turn it into an error: its status comes back and the caller fails with it. */
NB_INTERNAL nb_status nb_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/* The error for an in-place write into a read-only tensor (see NB_CHECK_WRITABLE). */
NB_INTERNAL nb_status nb_readonly_error(const char* op, const char* arg);
/* Every function that writes into a caller's tensor checks it first (dlpack.c). */
#define NB_CHECK_WRITABLE(op, t) \
    do { if (NB_UNLIKELY((t)->storage->readonly)) return nb_readonly_error(op, #t); } while (0)

/* ---- shape math (shape.c) ---- */

/* Validates a shape for a tensor of dtype (NULL only if ndim == 0, ndim in range, sizes >= 0, and
 * the product of the nonzero sizes times the item size fits int64, whatever numel is); writes the
 * element count. Every tensor nabla makes passes it (nb_tensor_make, nb_tensor_new, nb_resize). */
NB_INTERNAL nb_status nb_check_extent(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype,
                                      int64_t* numel);
/* nb_check_extent before the dtype is known (one-byte items). */
NB_INTERNAL nb_status nb_check_shape(const char* op, const int64_t* shape, int32_t ndim,
                                     int64_t* numel);
/* One past the highest element that (shape, strides) reaches from element `offset`, computed with
 * overflow checks; *end = offset when the shape has no element. False on overflow or a negative
 * stride or offset. (as_strided, resize, DLPack and external memory check their bounds with it.) */
NB_INTERNAL bool nb_extent_end(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t offset,
                               int64_t* end);
NB_INTERNAL void nb_contiguous_strides(const int64_t* shape, int32_t ndim, int64_t* strides);
NB_INTERNAL bool nb_is_contiguous(const int64_t* shape, const int64_t* strides, int32_t ndim);
/* True when the strides are a permutation of a contiguous layout (non-overlapping, no gaps). */
NB_INTERNAL bool nb_is_dense(const int64_t* shape, const int64_t* strides, int32_t ndim);
/* Strides for a fresh copy that keeps t's memory order (PyTorch's preserve_format). */
NB_INTERNAL void nb_strides_like(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t* out);
/* Wraps a possibly negative dim into [0, ndim); 0-dim tensors accept -1 and 0. */
NB_INTERNAL nb_status nb_wrap_dim(const char* op, int64_t dim, int32_t ndim, int32_t* out);
/* Strides for viewing (shape, strides) as new_shape without copying; false if impossible. */
NB_INTERNAL bool nb_view_strides(const int64_t* shape, const int64_t* strides, int32_t ndim,
                                 const int64_t* new_shape, int32_t new_ndim, int64_t* new_strides);
/* Resolves a single -1 in `shape` against numel into `resolved`. */
NB_INTERNAL nb_status nb_infer_shape(const char* op, const int64_t* shape, int32_t ndim,
                                     int64_t numel, int64_t* resolved);

/* ---- type promotion (promote.c) ---- */

NB_INTERNAL int32_t nb_promote_types(int32_t a, int32_t b);
/* PyTorch's result_type over tensor operands (wrapped numbers and 0-dim tensors yield). */
NB_INTERNAL int32_t nb_result_type(const nb_tensor* const* operands, int32_t n);
/* The process-wide default floating dtype (what Python floats become). */
NB_INTERNAL int32_t nb_default_float(void);

/* ---- devices and backends (device.c) ---- */


NB_INTERNAL extern const nb_backend nb_cpu_backend;
/* Validates (device_type, device_index), resolving index -1; finds the backend. */
NB_INTERNAL nb_status nb_device_resolve(const char* op, int32_t device_type, int32_t* device_index,
                                        const nb_backend** out);
NB_INTERNAL const nb_backend* nb_backend_of(int32_t device_type);
/* The backend of device_type when it has a kernel slot for family (NB_FAMILY_*);
 * else NB_ERR_NOT_IMPLEMENTED "<op>: not implemented on <device> (no <family> kernel)",
 * the one message every op gives for a missing kernel family. */
NB_INTERNAL nb_status nb_backend_slot(const char* op, int32_t device_type, int32_t family, const nb_backend** out);
NB_INTERNAL nb_status nb_not_implemented_on(const char* op, int32_t device_type, int32_t family);

/* ---- copying (copy.c) ---- */

/* dst = src, src broadcast to dst's shape, converting dtype, across devices. */
NB_INTERNAL nb_status nb_copy_into(const char* op, nb_tensor* dst, const nb_tensor* src);

/* ---- autograd (src/autograd) ---- */

NB_INTERNAL void nb_ag_meta_free(struct nb_ag_meta* m);

/* The op implementations behind the generated public entry points. */
#include "../autograd/dispatch.h"

#endif /* NABLA_INTERNAL_H_ */
