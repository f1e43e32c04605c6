/* elementwise.h: the shared front-end of every elementwise op: validation, type
 * promotion, broadcasting, the destination (new, in-place or out=), dtype
 * casts, then the CPU driver. An op is a descriptor plus its kernels. */
#ifndef NABLA_ELEMENTWISE_H_
#define NABLA_ELEMENTWISE_H_

#include "internal.h"
#include "../cpu/loop.h"

enum { NB_EW_SAME = 0, NB_EW_BOOL = 1 };

/* What an out= tensor's dtype must be (PyTorch's TensorIterator configurations): the result
 * must cast to it, or be it (unary_op's check_all_same_dtype; nan_to_num's and where's own
 * checks, with their messages). */
enum { NB_EW_OUT_CAST = 0, NB_EW_OUT_SAME, NB_EW_OUT_SAME_AS_INPUT, NB_EW_OUT_WHERE };

typedef struct nb_ew_op {
    const char* name;
    int32_t code;                    /* NB_BK_* (ew_codes.h): the backends' kernel; NB_BK_NONE: CPU only */
    int32_t nin;                     /* inputs: 1, 2 or 3 */
    int32_t result;                  /* NB_EW_SAME: the compute dtype; NB_EW_BOOL: bool */
    bool ints_to_float;              /* integer/bool inputs compute in the default float dtype */
    bool condition_first;            /* input 0 is a bool mask, outside promotion (where) */
    int32_t out_rule;                /* NB_EW_OUT_*: the dtype an out= tensor may have */
    nb_loop_fn cpu[NB_NUM_DTYPES];   /* by compute dtype; float16/bfloat16 compute as float32 */
} nb_ew_op;

enum { NB_EW_OK = 0, NB_EW_ZERO_DIVISION = 1 };

/* Attributes a kernel may read, and an error it may raise (the last one wins). */
typedef struct nb_ew_ctx {
    double alpha;
    double beta;
    double gamma;
    int64_t ialpha;
    _Atomic int32_t error;  /* NB_EW_* */
} nb_ew_ctx;

/* Runs op on inputs (broadcast together). With dst non-NULL the result is written
 * into dst (in-place when dst is an input: its shape must be the broadcast shape;
 * out= otherwise: resized to it) and *out, unless NULL, is a new reference to dst. */
NB_INTERNAL nb_status nb_ew_run(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst,
                                nb_ew_ctx* ctx, nb_tensor** out);

/* Broadcast shape of n tensors, PyTorch's message on mismatch. */
NB_INTERNAL nb_status nb_broadcast_shapes(const char* op, const nb_tensor* const* ts, int32_t n, int64_t* shape,
                                          int32_t* ndim);
/* Whether dst may be written directly: no input shares its memory, except as an exact alias. */
NB_INTERNAL bool nb_ew_safe_to_write(const nb_tensor* dst, const nb_tensor* const* in, int32_t n);
/* The device half of nb_ew_run, after validation, promotion and broadcasting:
 * queues the op's kernel (elementwise_device.c). */
NB_INTERNAL nb_status nb_ew_run_device(const nb_ew_op* op, const nb_tensor* const* inputs, nb_tensor* dst,
                                       const nb_ew_ctx* ctx, int32_t compute, const int64_t* shape, int32_t ndim,
                                       int32_t device_index, nb_tensor** out);

#endif /* NABLA_ELEMENTWISE_H_ */
