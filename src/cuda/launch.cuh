// launch.cuh: how every nabla kernel is launched, so the same source builds with
// nvcc and, for CI, as host C++ against the emulator (src/cuda/emu, -Demulate_cuda=true):
//
//   NB_LAUNCH(grid, block, smem_bytes, stream, kernel<T, Op>)(arg0, arg1, ...);
//   return cudaGetLastError();
//
// Dynamic shared memory is declared with NB_DYNAMIC_SHARED(float, buf) inside the
// kernel (an `extern __shared__` array has no host C++ equivalent). No other
// #ifdef belongs in a kernel body.
#ifndef NABLA_CUDA_LAUNCH_CUH_
#define NABLA_CUDA_LAUNCH_CUH_

#include <cuda_runtime.h>

#ifdef NABLA_CUDA_EMULATE
#define NB_LAUNCH(grid, block, smem, stream, ...) \
    ::nbemu::launcher((grid), (block), (smem), (stream), #__VA_ARGS__, __VA_ARGS__)
#define NB_DYNAMIC_SHARED(type, name) type* name = static_cast<type*>(::nbemu::dynamic_shared())
#else
#define NB_LAUNCH(grid, block, smem, stream, ...) __VA_ARGS__<<<(grid), (block), (smem), (stream)>>>
#define NB_DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif

#endif  // NABLA_CUDA_LAUNCH_CUH_
