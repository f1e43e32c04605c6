// ew_binary.cu: the binary elementwise ops (arithmetic, comparisons, logical).
#include "elementwise.cuh"

namespace nbcuda {

#define ENTRY(NAME) &ew_launch<NB_BK_##NAME, 2>,
static const EwLaunchFn kBinary[] = {NB_BK_BINARY(ENTRY)};
#undef ENTRY
static_assert(sizeof kBinary / sizeof kBinary[0] == NB_BK_NUM_BINARY,
              "one binary kernel per code of ew_codes.h");

cudaError_t ew_binary(const EwPlan& pl, cudaStream_t s) {
    if (pl.op < 0 || pl.op >= NB_BK_NUM_BINARY) return cudaErrorInvalidValue;
    return kBinary[pl.op](pl, s);
}

}  // namespace nbcuda
