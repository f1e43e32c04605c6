// elementwise.cu: plans one elementwise launch. Dims of size 1 are dropped and
// adjacent dims merged where every tensor operand is dense across them, so a
// broadcast-free contiguous op becomes one flat (vectorised) loop and a
// broadcast op indexes as few dims as possible.
#include <cstring>

#include "elementwise.cuh"
#include "kernels.h"

namespace nbcuda {
namespace {

// Collapses args into pl (strides of scalar inputs are ignored).
void plan(const nb_bk_ew& a, EwPlan& pl) {
    pl.op = a.op, pl.nin = a.nin, pl.dtype = a.dtype;
    pl.out = a.out;
    pl.alpha = a.alpha, pl.beta = a.beta, pl.gamma = a.gamma;
    pl.numel = 1;
    for (int i = 0; i < 2; i++) {
        pl.in[i] = a.in[i];
        pl.is_scalar[i] = i < a.nin ? a.is_scalar[i] : 1;
        pl.scalar[i] = a.scalar[i];
    }
    int nd = 0;
    for (int d = 0; d < a.ndim; d++) {
        pl.numel *= a.shape[d];
        if (a.shape[d] == 1) continue;
        bool merge = nd > 0 && pl.out_strides[nd - 1] == a.out_strides[d] * a.shape[d];
        for (int i = 0; i < 2 && merge; i++)
            merge = pl.is_scalar[i] || pl.in_strides[i][nd - 1] == a.in_strides[i][d] * a.shape[d];
        if (merge) {
            pl.shape[nd - 1] *= a.shape[d];
            pl.out_strides[nd - 1] = a.out_strides[d];
            for (int i = 0; i < 2; i++) pl.in_strides[i][nd - 1] = pl.is_scalar[i] ? 0 : a.in_strides[i][d];
        } else {
            pl.shape[nd] = a.shape[d];
            pl.out_strides[nd] = a.out_strides[d];
            for (int i = 0; i < 2; i++) pl.in_strides[i][nd] = pl.is_scalar[i] ? 0 : a.in_strides[i][d];
            nd++;
        }
    }
    pl.ndim = nd;
    pl.contiguous = nd == 0 || (nd == 1 && pl.out_strides[0] == 1 && (pl.is_scalar[0] || pl.in_strides[0][0] == 1) &&
                                (pl.is_scalar[1] || pl.in_strides[1][0] == 1));
    auto aligned = [](const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; };
    pl.vectorised = pl.contiguous && aligned(pl.out) && (pl.is_scalar[0] || aligned(pl.in[0])) &&
                    (pl.is_scalar[1] || aligned(pl.in[1]));
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_elementwise(const nb_bk_ew* args, cudaStream_t stream) {
    if (args->op < 0 || args->op >= NB_BK_NUM_OPS || args->ndim < 0 || args->ndim > NB_MAX_DIMS ||
        args->nin != (args->op < NB_BK_NUM_BINARY ? 2 : 1))
        return cudaErrorInvalidValue;
    nbcuda::EwPlan pl;
    std::memset(&pl, 0, sizeof pl);
    nbcuda::plan(*args, pl);
    if (pl.numel == 0) return cudaSuccess;
    return args->op < NB_BK_NUM_BINARY ? nbcuda::ew_binary(pl, stream) : nbcuda::ew_unary(pl, stream);
}
