// cublas_abi.h: the few cuBLAS entry points nabla calls, declared from cuBLAS's
// documented ABI (the toolkit on a build machine may lack cublas_v2.h, and the
// plugin never links cuBLAS: gemm_cublas.cu finds it at run time). Enum values
// are cuBLAS's own; cudaDataType_t comes from the toolkit's library_types.h.
#ifndef NABLA_CUDA_CUBLAS_ABI_H_
#define NABLA_CUDA_CUBLAS_ABI_H_

#include <cuda_runtime.h>
#include <library_types.h>

extern "C" {

typedef struct cublasContext* cublasHandle_t;
typedef int nb_cublasStatus_t;  // CUBLAS_STATUS_SUCCESS = 0
enum { NB_CUBLAS_STATUS_SUCCESS = 0, NB_CUBLAS_STATUS_NOT_SUPPORTED = 15 };
enum { NB_CUBLAS_OP_N = 0, NB_CUBLAS_OP_T = 1 };                          // cublasOperation_t
enum { NB_CUBLAS_DEFAULT_MATH = 0, NB_CUBLAS_PEDANTIC_MATH = 2 };           // cublasMath_t
enum { NB_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16 };         // a cublasMath_t flag
enum { NB_CUBLAS_COMPUTE_32F = 68, NB_CUBLAS_COMPUTE_64F = 70 };           // cublasComputeType_t
enum { NB_CUBLAS_GEMM_DEFAULT = -1 };                                      // cublasGemmAlgo_t

typedef nb_cublasStatus_t (*nb_cublasCreate_fn)(cublasHandle_t* handle);
typedef nb_cublasStatus_t (*nb_cublasDestroy_fn)(cublasHandle_t handle);
typedef nb_cublasStatus_t (*nb_cublasSetStream_fn)(cublasHandle_t handle, cudaStream_t stream);
typedef nb_cublasStatus_t (*nb_cublasSetMathMode_fn)(cublasHandle_t handle, int mode);
typedef nb_cublasStatus_t (*nb_cublasGemmEx_fn)(
    cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* A,
    cudaDataType_t Atype, int lda, const void* B, cudaDataType_t Btype, int ldb, const void* beta, void* C,
    cudaDataType_t Ctype, int ldc, int computeType, int algo);
typedef nb_cublasStatus_t (*nb_cublasGemmStridedBatchedEx_fn)(
    cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void* alpha, const void* A,
    cudaDataType_t Atype, int lda, long long strideA, const void* B, cudaDataType_t Btype, int ldb,
    long long strideB, const void* beta, void* C, cudaDataType_t Ctype, int ldc, long long strideC,
    int batchCount, int computeType, int algo);

// The emulator's stand-in (src/cuda/emu/emu_cublas.cpp): the symbol of that name, or NULL.
void* nbemu_cublas_symbol(const char* name);

}  // extern "C"

#endif  // NABLA_CUDA_CUBLAS_ABI_H_
