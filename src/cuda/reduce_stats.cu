// reduce_stats.cu: max / min with their first index (every dtype), var, std,
// norm and logsumexp (float dtypes).
#include "reduce.cuh"

namespace nbcuda {
namespace {

struct Stats {
    const RedPlan& pl;
    cudaStream_t s;
    template <int IC> cudaError_t operator()() const {
        if (pl.op == NB_RK_MAX) return reduce_launch<ArgOp<IC, true>>(pl, s);
        if (pl.op == NB_RK_MIN) return reduce_launch<ArgOp<IC, false>>(pl, s);
        if constexpr (is_float_code(IC)) {
            switch (pl.op) {
                case NB_RK_VAR: case NB_RK_STD: return reduce_launch<VarOp<IC>>(pl, s);
                case NB_RK_NORM: return reduce_launch<NormOp<IC>>(pl, s);
                case NB_RK_LOGSUMEXP: return reduce_launch<LseOp<IC>>(pl, s);
                default: break;
            }
        }
        return cudaErrorInvalidValue;
    }
};

}  // namespace

cudaError_t reduce_stats(const RedPlan& pl, cudaStream_t s) { return with_dtype(pl.in_dtype, Stats{pl, s}); }

}  // namespace nbcuda
