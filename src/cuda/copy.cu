// copy.cu: strided copies with conversion between any two dtypes on one
// device (nb_backend.copy_strided). copy_plan.h collapses the dims; the kernel
// is a grid-stride loop with 64-bit indices, flat when both sides are
// contiguous, else turning the flat index into per-side offsets (a source
// stride of 0 broadcasts).
#include "copy_plan.h"
#include "dtypes.cuh"
#include "kernels.h"
#include "launch.h"

namespace nbcuda {
namespace {

constexpr int kCopyThreads = 256;

struct CopyDims {
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst[NB_MAX_DIMS], src[NB_MAX_DIMS];
};

template <int DC, int SC>
__global__ void copy_kernel(typename Storage<DC>::type* __restrict__ dst,
                            const typename Storage<SC>::type* __restrict__ src, int64_t n, bool flat,
                            CopyDims dims) {
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (flat) {
        for (; i < n; i += step) dst[i] = convert<DC, SC>(src[i]);
        return;
    }
    for (; i < n; i += step) {
        int64_t rem = i, od = 0, os = 0;
        for (int d = dims.ndim - 1; d >= 0; d--) {
            const int64_t idx = rem % dims.shape[d];
            rem /= dims.shape[d];
            od += idx * dims.dst[d];
            os += idx * dims.src[d];
        }
        dst[od] = convert<DC, SC>(src[os]);
    }
}

template <int DC>
struct FromSource {
    const CopyPlan& pl;
    cudaStream_t stream;
    template <int SC> cudaError_t operator()() const {
        CopyDims dims;
        dims.ndim = pl.ndim;
        for (int d = 0; d < pl.ndim; d++)
            dims.shape[d] = pl.shape[d], dims.dst[d] = pl.dst_strides[d], dims.src[d] = pl.src_strides[d];
        return launch(&copy_kernel<DC, SC>, grid_for(pl.numel, kCopyThreads), kCopyThreads, 0, stream,
                      static_cast<typename Storage<DC>::type*>(pl.dst),
                      static_cast<const typename Storage<SC>::type*>(pl.src), pl.numel, pl.contiguous, dims);
    }
};

struct ToDest {
    const CopyPlan& pl;
    cudaStream_t stream;
    template <int DC> cudaError_t operator()() const { return with_dtype(pl.src_dtype, FromSource<DC>{pl, stream}); }
};

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_copy_strided(const nb_bk_copy* args, cudaStream_t stream) {
    nbcuda::CopyPlan pl;
    if (!nbcuda::copy_plan(*args, pl)) return cudaErrorInvalidValue;
    if (pl.numel == 0) return cudaSuccess;
    return nbcuda::with_dtype(pl.dst_dtype, nbcuda::ToDest{pl, stream});
}
