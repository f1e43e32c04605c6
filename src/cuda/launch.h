// launch.h: the one place the plugin's own kernels (copy, reduce) are launched,
// so every launch goes through a single helper (an emulated device can take it
// over with one change).
#ifndef NABLA_CUDA_LAUNCH_H_
#define NABLA_CUDA_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace nbcuda {

// Queues kernel<<<grid, block, smem, stream>>>(args...) and returns the launch's error.
template <typename... Params, typename... Args>
inline cudaError_t launch(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                          cudaStream_t stream, Args... args) {
    kernel<<<grid, block, smem, stream>>>(args...);
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
