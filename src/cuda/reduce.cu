// reduce.cu: the plugin's reduce entry (plans the launch, reduce_plan.h) and
// the sum, mean, prod, amax, amin, all and any kernels for every dtype.
#include "kernels.h"
#include "reduce.cuh"

namespace nbcuda {
namespace {

struct Basic {
    const RedPlan& pl;
    cudaStream_t s;
    template <int IC> cudaError_t operator()() const {
        switch (pl.op) {
            case NB_RK_SUM: case NB_RK_MEAN: return reduce_launch<SumOp<IC, false>>(pl, s);
            case NB_RK_PROD: return reduce_launch<SumOp<IC, true>>(pl, s);
            case NB_RK_AMAX: return reduce_launch<ExtOp<IC, true>>(pl, s);
            case NB_RK_AMIN: return reduce_launch<ExtOp<IC, false>>(pl, s);
            case NB_RK_ALL: return reduce_launch<LogicOp<IC, true>>(pl, s);
            case NB_RK_ANY: return reduce_launch<LogicOp<IC, false>>(pl, s);
            default: return cudaErrorInvalidValue;
        }
    }
};

}  // namespace

cudaError_t reduce_basic(const RedPlan& pl, cudaStream_t s) { return with_dtype(pl.in_dtype, Basic{pl, s}); }

}  // namespace nbcuda

cudaError_t nb_cuda_reduce(const nb_bk_reduce* args, cudaStream_t stream) {
    nbcuda::RedPlan pl;
    if (!nbcuda::reduce_plan(*args, pl)) return cudaErrorInvalidValue;
    // the input is read as acc_dtype, or float16 / bfloat16 widened to a float32 accumulation
    const bool readable = pl.in_dtype == pl.acc_dtype ||
                          (pl.acc_dtype == NB_F32 && (pl.in_dtype == NB_F16 || pl.in_dtype == NB_BF16));
    if (!readable) return cudaErrorInvalidValue;
    if (pl.outputs == 0) return cudaSuccess;
    switch (pl.op) {
        case NB_RK_MAX: case NB_RK_MIN: case NB_RK_VAR: case NB_RK_STD: case NB_RK_NORM: case NB_RK_LOGSUMEXP:
            return nbcuda::reduce_stats(pl, stream);
        default: return nbcuda::reduce_basic(pl, stream);
    }
}
