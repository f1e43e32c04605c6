// elementwise.cu: the plugin's elementwise entry: checks the request, plans the
// launch (ew_plan.h) and hands it to the binary or unary family; where has its own kernel.
#include <cstring>

#include "elementwise.cuh"
#include "kernels.h"

cudaError_t nb_cuda_elementwise(const nb_bk_ew* args, void* device_error, cudaStream_t stream) {
    if (args->op == NB_BK_WHERE)
        return args->nin == 2 && args->ndim >= 0 && args->ndim <= NB_MAX_DIMS ? nb_cuda_where(args, stream)
                                                                               : cudaErrorInvalidValue;
    if (args->op < 0 || args->op >= NB_BK_NUM_OPS || args->ndim < 0 || args->ndim > NB_MAX_DIMS ||
        args->nin != (args->op < NB_BK_NUM_BINARY ? 2 : 1))
        return cudaErrorInvalidValue;
    nbcuda::EwPlan pl;
    std::memset(&pl, 0, sizeof pl);
    nbcuda::ew_plan(*args, pl);
    pl.error = static_cast<nbcuda::DevError*>(device_error);
    if (pl.numel == 0) return cudaSuccess;
    return args->op < NB_BK_NUM_BINARY ? nbcuda::ew_binary(pl, stream) : nbcuda::ew_unary(pl, stream);
}
