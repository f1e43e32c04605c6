/* unary_float.h: the float32 / float64 loops of the unary ops (unary_float.c),
 * one nb_unary_<op>_f32 / _f64 per op, each dispatching to the instruction set
 * of the CPU. unary.c puts them in its op descriptors. */
#ifndef NABLA_OPS_UNARY_FLOAT_H_
#define NABLA_OPS_UNARY_FLOAT_H_

#include "../core/elementwise.h"

#define NB_UNARY_FLOAT_OPS(X)                                                                         \
    X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) X(rsqrt) X(sin) X(cos) X(tan)      \
    X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(sigmoid) X(erf) X(erfc) X(reciprocal) X(silu)      \
    X(gelu) X(gelu_tanh) X(softplus) X(elu) X(leaky_relu) X(neg) X(abs) X(sign) X(relu) X(square)        \
    X(floor) X(ceil) X(round) X(trunc) X(nan_to_num) X(clamp)

#define NB_UNARY_FLOAT_DECLARE(OP)                                                                    \
    NB_INTERNAL void nb_unary_##OP##_f32(char* const* d, const int64_t* s, int64_t n, const void* ctx); \
    NB_INTERNAL void nb_unary_##OP##_f64(char* const* d, const int64_t* s, int64_t n, const void* ctx);
NB_UNARY_FLOAT_OPS(NB_UNARY_FLOAT_DECLARE)

/* The fused gradients, two inputs (d[1] = grad_output, d[2] = x): o = g f'(x). */
#define NB_UNARY_FLOAT_GRADS(X) X(gelu_backward) X(gelu_tanh_backward)
NB_UNARY_FLOAT_GRADS(NB_UNARY_FLOAT_DECLARE)

#endif
