// ew_unary.cu: the unary elementwise ops (math, activations, rounding, predicates).
#include "elementwise.cuh"

namespace nbcuda {

cudaError_t ew_unary(const EwPlan& pl, cudaStream_t s) {
    switch (pl.op) {
#define CASE(OP) \
    case OP: return ew_launch<OP, 1>(pl, s);
        CASE(NB_BK_EXP) CASE(NB_BK_EXP2) CASE(NB_BK_EXPM1) CASE(NB_BK_LOG) CASE(NB_BK_LOG2) CASE(NB_BK_LOG10)
        CASE(NB_BK_LOG1P) CASE(NB_BK_SQRT) CASE(NB_BK_RSQRT) CASE(NB_BK_SIN) CASE(NB_BK_COS) CASE(NB_BK_TAN)
        CASE(NB_BK_ASIN) CASE(NB_BK_ACOS) CASE(NB_BK_ATAN) CASE(NB_BK_SINH) CASE(NB_BK_COSH) CASE(NB_BK_TANH)
        CASE(NB_BK_SIGMOID) CASE(NB_BK_ERF) CASE(NB_BK_ERFC) CASE(NB_BK_RECIPROCAL) CASE(NB_BK_SILU)
        CASE(NB_BK_GELU) CASE(NB_BK_GELU_TANH) CASE(NB_BK_SOFTPLUS) CASE(NB_BK_ELU) CASE(NB_BK_LEAKY_RELU)
        CASE(NB_BK_NEG) CASE(NB_BK_ABS) CASE(NB_BK_SIGN) CASE(NB_BK_RELU) CASE(NB_BK_SQUARE) CASE(NB_BK_FLOOR)
        CASE(NB_BK_CEIL) CASE(NB_BK_ROUND) CASE(NB_BK_TRUNC) CASE(NB_BK_NAN_TO_NUM) CASE(NB_BK_CLAMP)
        CASE(NB_BK_ISNAN) CASE(NB_BK_ISINF) CASE(NB_BK_ISFINITE) CASE(NB_BK_LOGICAL_NOT)
#undef CASE
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace nbcuda
