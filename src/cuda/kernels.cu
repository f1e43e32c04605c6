// kernels.cu: the fill kernel (grid-stride loops, 64-bit indices) and the tensor-core switch.
#include "kernels.h"

#include <cstdlib>
#include <cstring>

#include "backend.h"
#include "launch.cuh"

namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) {
    int64_t b = (n + kThreads - 1) / kThreads;
    return static_cast<int>(b < 65535 * 8 ? b : 65535 * 8);
}

template <typename T>
__global__ void fill_kernel(T* dst, T value, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = value;
}

template <typename T>
cudaError_t launch_fill(void* dst, const void* pattern, int64_t n, cudaStream_t stream) {
    T value;
    std::memcpy(&value, pattern, sizeof value);
    NB_LAUNCH(blocks_for(n), kThreads, 0, stream, fill_kernel<T>)(static_cast<T*>(dst), value, n);
    return cudaGetLastError();
}

}  // namespace

cudaError_t nb_cuda_fill(void* dst, const void* pattern, int32_t pattern_size, int64_t count, cudaStream_t stream) {
    switch (pattern_size) {
        case 1: {
            unsigned char byte;
            std::memcpy(&byte, pattern, 1);
            return cudaMemsetAsync(dst, byte, static_cast<size_t>(count), stream);
        }
        case 2: return launch_fill<uint16_t>(dst, pattern, count, stream);
        case 4: return launch_fill<uint32_t>(dst, pattern, count, stream);
        case 8: return launch_fill<uint64_t>(dst, pattern, count, stream);
        default: return cudaErrorInvalidValue;
    }
}

bool nb_cuda_tensor_cores() {
    const char* env = std::getenv("NABLA_TENSOR_CORES");
    return env == nullptr || std::strcmp(env, "0") != 0;
}
