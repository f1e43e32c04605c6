/* binary.h: elementwise binary kernels the library uses outside the ABI. */
#ifndef NABLA_OPS_BINARY_H_
#define NABLA_OPS_BINARY_H_

#include "../core/internal.h"

/* out = grad where relu's result is > 0 or NaN, else 0, in one pass (floating, host memory): ReluBackward0 when
 * no graph of the backward is recorded. */
NB_INTERNAL nb_status nb_relu_backward(const nb_tensor* grad, const nb_tensor* result, nb_tensor** out);

#endif /* NABLA_OPS_BINARY_H_ */
