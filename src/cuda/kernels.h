// kernels.h: the CUDA kernels the plugin exposes (fill, elementwise binary).
#ifndef NABLA_CUDA_KERNELS_H_
#define NABLA_CUDA_KERNELS_H_

#include <cuda_runtime.h>
#include <cstdint>

// dst[i] = pattern for count elements of pattern_size (1, 2, 4 or 8) bytes; queued on stream.
cudaError_t nb_cuda_fill(void* dst, const void* pattern, int32_t pattern_size, int64_t count, cudaStream_t stream);
// out = a op b (NB_BK_*), n contiguous elements of dtype NB_F32 or NB_F64; queued on stream.
cudaError_t nb_cuda_binary(int32_t op, int32_t dtype, void* out, const void* a, const void* b, int64_t n,
                           cudaStream_t stream);

#endif  // NABLA_CUDA_KERNELS_H_
