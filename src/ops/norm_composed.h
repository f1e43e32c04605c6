/* norm_composed.h: layer_norm and its backward composed from reductions and
 * elementwise ops, for devices without norm kernels (norm_composed.c). */
#ifndef NABLA_OPS_NORM_COMPOSED_H_
#define NABLA_OPS_NORM_COMPOSED_H_

#include "nn_common.h"

/* y = (x - mean) / sqrt(var + eps) * weight + bias over the last ndim dims of the
 * validated input, in dtype kd on its device (weight and bias optional). */
NB_INTERNAL nb_status nn_layer_norm_composed(const nb_tensor* input, int32_t ndim, const nb_tensor* weight,
                                             const nb_tensor* bias, double eps, int32_t kd, nb_tensor** out);
/* The gradients of nn_layer_norm_composed's input (dx), weight (dw) and bias (db)
 * for grad_output go, in kd; each pointer may be NULL when not wanted. */
NB_INTERNAL nb_status nn_layer_norm_backward_composed(const nb_tensor* go, const nb_tensor* input, int32_t ndim,
                                                      const nb_tensor* weight, double eps, int32_t kd, nb_tensor** dx,
                                                      nb_tensor** dw, nb_tensor** db);

#endif  /* NABLA_OPS_NORM_COMPOSED_H_ */
