/* conv_fused.h: convolutions through a device's conv kernel (nb_bk_conv; on CUDA
 * src/cuda/conv.cu, implicit GEMMs), chosen over the composition of
 * conv_composed.c whenever it covers the operands (conv_fused.c). */
#ifndef NABLA_OPS_CONV_FUSED_H_
#define NABLA_OPS_CONV_FUSED_H_

#include "conv.h"
#include "nn_common.h"

/* Whether the conv kernel of a's device takes a pass of geometry g over a, b and bias (NULL allowed): a CUDA
 * device with a conv slot, one float dtype, a grid that fits, and NABLA_CONV_FUSED not "0". */
NB_INTERNAL bool nn_conv_fused_takes(const conv_geom* g, const nb_tensor* a, const nb_tensor* b,
                                     const nb_tensor* bias);

/* One pass of kind NB_CONV_* on geometry g (3-d operands are conv1d's [N, C, L] and [O, C / groups, k]):
 *   NB_CONV_FORWARD:      a = x, b = w -> y [N, O, OH, OW] (+ bias [O])
 *   NB_CONV_INPUT_GRAD:   a = dy, b = w -> dx [N, C, H, W] (+ bias [C]: a transposed convolution)
 *   NB_CONV_WEIGHT_GRAD:  a = dy, b = x -> dw [O, C / groups, kh, kw]
 * The result is a new contiguous tensor of a's dtype and device with shape[ndim]. */
NB_INTERNAL nb_status nn_conv_fused(const char* op, int32_t kind, const conv_geom* g, const nb_tensor* a,
                                    const nb_tensor* b, const nb_tensor* bias, const int64_t* shape, int32_t ndim,
                                    nb_tensor** out);

/* The transposed convolution of geometry g (as conv.c fills it for conv_transpose2d: x [N, C, H, W] ->
 * y [N, O, OH, OW], w [C, O / groups, kh, kw]): the input-gradient pass of the convolution it is the
 * adjoint of, plus the bias; nn_conv_fused_takes(g, x, w, bias) says whether it runs. */
NB_INTERNAL nb_status nn_conv_transpose_fused(const char* op, const conv_geom* g, const nb_tensor* x,
                                              const nb_tensor* w, const nb_tensor* bias, const int64_t* shape,
                                              int32_t ndim, nb_tensor** out);

#endif /* NABLA_OPS_CONV_FUSED_H_ */
