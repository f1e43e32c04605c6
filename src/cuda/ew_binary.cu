// ew_binary.cu: the binary elementwise ops (arithmetic, comparisons, logical).
#include "elementwise.cuh"

namespace nbcuda {

cudaError_t ew_binary(const EwPlan& pl, cudaStream_t s) {
    switch (pl.op) {
#define CASE(OP) \
    case OP: return ew_launch<OP, 2>(pl, s);
        CASE(NB_BK_ADD) CASE(NB_BK_SUB) CASE(NB_BK_MUL) CASE(NB_BK_DIV) CASE(NB_BK_DIV_TRUNC) CASE(NB_BK_DIV_FLOOR)
        CASE(NB_BK_REMAINDER) CASE(NB_BK_FMOD) CASE(NB_BK_POW) CASE(NB_BK_MAXIMUM) CASE(NB_BK_MINIMUM)
        CASE(NB_BK_ATAN2) CASE(NB_BK_EQ) CASE(NB_BK_NE) CASE(NB_BK_LT) CASE(NB_BK_LE) CASE(NB_BK_GT) CASE(NB_BK_GE)
        CASE(NB_BK_LOGICAL_AND) CASE(NB_BK_LOGICAL_OR) CASE(NB_BK_LOGICAL_XOR)
#undef CASE
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace nbcuda
