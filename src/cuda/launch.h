// launch.h: the one place the plugin's copy and reduce kernels are launched,
// through NB_LAUNCH (launch.cuh), so they run on a GPU and on the emulator alike.
#ifndef NABLA_CUDA_LAUNCH_H_
#define NABLA_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "launch.cuh"

namespace nbcuda {

// Queues kernel<<<grid, block, smem, stream>>>(args...) and returns the launch's error.
template <typename... Params, typename... Args>
inline cudaError_t launch(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                          cudaStream_t stream, Args... args) {
    NB_LAUNCH(grid, block, smem, stream, kernel)(args...);
    return cudaGetLastError();
}

// Blocks for a grid-stride loop over `work` items of `threads` threads each (capped: the loops stride).
inline unsigned grid_for(int64_t work, int threads) {
    int64_t b = (work + threads - 1) / threads;
    if (b < 1) b = 1;
    return static_cast<unsigned>(b < 65535 * 8 ? b : 65535 * 8);
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_LAUNCH_H_
