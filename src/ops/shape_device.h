/* shape_device.h: the shape ops of shape.c on a device backend, composed of the
 * device's copy, elementwise and index kernels (no kernels of their own): flip
 * and roll are strided copies (shape.c, through nb_copy_into), these are the
 * rest. Results live on the input's device; launches go on the current stream. */
#ifndef NABLA_OPS_SHAPE_DEVICE_H_
#define NABLA_OPS_SHAPE_DEVICE_H_

#include "shape_common.h"

/* r (shape[n], contiguous, on x's device) = x viewed as in_shape/in_strides (n dims) repeated
 * repeats[d] times along each dim: one copy from a stride-0 expanded view when it fits in
 * NB_MAX_DIMS dims, else a copy of the first block and copies that double the filled region. */
nb_status nb_shd_repeat(const char* op, nb_tensor* r, const nb_tensor* x, const int64_t* in_shape,
                        const int64_t* in_strides, const int64_t* repeats, int32_t n);

/* Zeroes r's elements above (lower: tril) or below (triu) diagonal k of its last two dims, in
 * place: a bool mask of the last two dims built from two aranges, then a masked fill. */
nb_status nb_shd_tri_zero(const char* op, nb_tensor* r, int64_t k, bool lower);

/* one_hot of an int64 tensor on a device: x's min and max read back once (the class checks
 * raise the CPU's errors), then eq(x[..., None], arange(num_classes)) as int64. */
nb_status nb_shd_one_hot(const char* op, const nb_tensor* x, int64_t num_classes, nb_tensor** out);

#endif /* NABLA_OPS_SHAPE_DEVICE_H_ */
