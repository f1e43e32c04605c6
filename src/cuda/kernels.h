// kernels.h: the CUDA kernels the plugin exposes (fill, elementwise, copy, reduce).
#ifndef NABLA_CUDA_KERNELS_H_
#define NABLA_CUDA_KERNELS_H_

#include <cuda_runtime.h>
#include <cstdint>

#include "backend.h"

// dst[i] = pattern for count elements of pattern_size (1, 2, 4 or 8) bytes; queued on stream.
cudaError_t nb_cuda_fill(void* dst, const void* pattern, int32_t pattern_size, int64_t count, cudaStream_t stream);
// One elementwise op (see nb_bk_ew in backend.h); queued on stream. device_error: the device's
// error word (index_plan.h) where integer division reports a zero divisor, or NULL.
cudaError_t nb_cuda_elementwise(const nb_bk_ew* args, void* device_error, cudaStream_t stream);
cudaError_t nb_cuda_where(const nb_bk_ew* args, cudaStream_t stream);  // op NB_BK_WHERE (where.cu)
// One strided copy with conversion (see nb_bk_copy); queued on stream.
cudaError_t nb_cuda_copy_strided(const nb_bk_copy* args, cudaStream_t stream);
// One reduction (see nb_bk_reduce); queued on stream.
cudaError_t nb_cuda_reduce(const nb_bk_reduce* args, cudaStream_t stream);
// One index kernel (see nb_bk_index); out-of-range indices are recorded in the
// device's error word (index_plan.h DevError, in device memory); queued on stream.
cudaError_t nb_cuda_index(const nb_bk_index* args, void* device_error, cudaStream_t stream);

// One pooling kernel (see nb_bk_pool, pool_plan.h); saved max indices outside
// the input plane are recorded in the device error word; queued on stream.
cudaError_t nb_cuda_pool(const nb_bk_pool* args, void* device_error, cudaStream_t stream);

// Whether the CUDA GEMM takes dtype (the float dtypes and the integers but bool).
bool nb_cuda_gemm_supported(int32_t dtype);
// One GEMM (see nb_bk_gemm) through nabla's own tiled kernel; queued on stream.
cudaError_t nb_cuda_gemm_tiled(const nb_bk_gemm* args, cudaStream_t stream);
// One GEMM through cuBLAS when it loads (and NABLA_CUBLAS is not 0), else the tiled kernel.
cudaError_t nb_cuda_gemm(const nb_bk_gemm* args, cudaStream_t stream);

// One line op (see nb_bk_lines; in_dtype == out_dtype, lines_plan.h); queued on stream.
cudaError_t nb_cuda_lines(const nb_bk_lines* args, cudaStream_t stream);

// One sort kernel (see nb_bk_sort, sort_plan.h); queued on stream.
cudaError_t nb_cuda_sort(const nb_bk_sort* args, cudaStream_t stream);

// One convolution pass as an implicit GEMM: forward, input or weight gradient (see nb_bk_conv); queued on stream.
cudaError_t nb_cuda_conv(const nb_bk_conv* args, cudaStream_t stream);

// Fused scaled-dot-product attention, forward or backward (see nb_bk_attention); queued on stream.
cudaError_t nb_cuda_attention(const nb_bk_attention* args, cudaStream_t stream);
// Its tensor-core (wmma) kernels for float16 / bfloat16 (attention_tc.cu).
cudaError_t nb_cuda_attention_tc(const nb_bk_attention* args, cudaStream_t stream);

// Whether the float16 / bfloat16 attention and convolution kernels use the tensor
// cores: yes unless NABLA_TENSOR_CORES=0, read per call so a program (or a test)
// can switch paths.
bool nb_cuda_tensor_cores();
// One random fill (see nb_bk_rng); a bernoulli probability outside [0, 1] is recorded
// in the device error word; queued on stream.
cudaError_t nb_cuda_rng(const nb_bk_rng* args, void* device_error, cudaStream_t stream);

// One fused normalisation, forward or backward (see nb_bk_norm); queued on stream.
cudaError_t nb_cuda_norm(const nb_bk_norm* args, cudaStream_t stream);

// One fused classification loss, forward or backward (see nb_bk_loss); class targets
// out of range are recorded in the device error word; queued on stream.
cudaError_t nb_cuda_loss(const nb_bk_loss* args, void* device_error, cudaStream_t stream);

// One fused embedding backward (see nb_bk_embedding); indices out of range are recorded
// in the device error word; queued on stream.
cudaError_t nb_cuda_embedding(const nb_bk_embedding* args, void* device_error, cudaStream_t stream);

// One multi-tensor plan (see nb_bk_optim; optim.cu); queued on stream.
cudaError_t nb_cuda_optim(const nb_bk_optim* args, cudaStream_t stream);

#endif  // NABLA_CUDA_KERNELS_H_
