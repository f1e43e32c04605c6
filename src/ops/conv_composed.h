/* conv_composed.h: conv1d/conv2d forward and their input and weight gradients
 * composed from pad, strided windows and batched matmuls, for devices without
 * convolution kernels (conv_composed.c). conv.c validates and fills the geometry. */
#ifndef NABLA_OPS_CONV_COMPOSED_H_
#define NABLA_OPS_CONV_COMPOSED_H_

#include "conv.h"
#include "nn_common.h"

/* y [N, O, OH, OW] of x [N, C, H, W] and w [O, C / groups, kh, kw] (bias optional), in kd. */
NB_INTERNAL nb_status nn_conv_composed(const conv_geom* g, const nb_tensor* x, const nb_tensor* w,
                                       const nb_tensor* bias, int32_t kd, nb_tensor** out);
/* dx [N, C, H, W] for grad_output go [N, O, OH, OW]. */
NB_INTERNAL nb_status nn_conv_backward_input_composed(const conv_geom* g, const nb_tensor* go, const nb_tensor* w,
                                                      int32_t kd, nb_tensor** out);
/* dw [O, C / groups, kh, kw]. */
NB_INTERNAL nb_status nn_conv_backward_weight_composed(const conv_geom* g, const nb_tensor* go, const nb_tensor* x,
                                                       int32_t kd, nb_tensor** out);

/* The transposed convolution of geometry g (as conv.c fills it for conv_transpose2d: x [N, C, H, W] -> y
 * [N, O, OH, OW], w [C, O / groups, kh, kw]): the input gradient of the convolution it is the adjoint of,
 * plus the bias. */
NB_INTERNAL nb_status nn_conv_transpose_composed(const conv_geom* g, const nb_tensor* x, const nb_tensor* w,
                                                 const nb_tensor* bias, int32_t kd, nb_tensor** out);

#endif  /* NABLA_OPS_CONV_COMPOSED_H_ */
