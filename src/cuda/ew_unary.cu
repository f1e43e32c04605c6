// ew_unary.cu: the unary elementwise ops (math, activations, rounding, predicates).
#include "elementwise.cuh"

namespace nbcuda {

#define ENTRY(NAME) &ew_launch<NB_BK_##NAME, 1>,
static const EwLaunchFn kUnary[] = {NB_BK_UNARY(ENTRY)};
#undef ENTRY
static_assert(sizeof kUnary / sizeof kUnary[0] == NB_BK_NUM_OPS - NB_BK_NUM_BINARY,
              "one unary kernel per code of ew_codes.h");

cudaError_t ew_unary(const EwPlan& pl, cudaStream_t s) {
    if (pl.op < NB_BK_NUM_BINARY || pl.op >= NB_BK_NUM_OPS) return cudaErrorInvalidValue;
    return kUnary[pl.op - NB_BK_NUM_BINARY](pl, s);
}

}  // namespace nbcuda
