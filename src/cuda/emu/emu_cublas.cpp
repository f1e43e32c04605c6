// emu_cublas.cpp: the emulator's stand-in for cuBLAS (test only). It offers the
// entry points nabla calls (cublas_abi.h), checks their arguments as cuBLAS
// documents them, and runs a plain column-major GEMM on the handle's stream
// worker, so the plugin's cuBLAS calling path (transposes, leading dimensions,
// batch strides, alpha/beta) is tested without a GPU. It tests nabla's calls,
// not cuBLAS.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <library_types.h>

#include <cstring>

#include "../cublas_abi.h"
#include "emu_internal.h"

struct cublasContext {
    cudaStream_t stream = nullptr;
};

namespace {

constexpr int OK = NB_CUBLAS_STATUS_SUCCESS, INVALID_VALUE = 7, NOT_INITIALIZED = 1;

double load(const char* p, cudaDataType_t t) {
    switch (t) {
        case CUDA_R_64F: { double v; std::memcpy(&v, p, 8); return v; }
        case CUDA_R_16F: { __half v; std::memcpy(&v, p, 2); return __half2float(v); }
        case CUDA_R_16BF: { __nv_bfloat16 v; std::memcpy(&v, p, 2); return __bfloat162float(v); }
        default: { float v; std::memcpy(&v, p, 4); return v; }
    }
}

void store(char* p, cudaDataType_t t, double v) {
    switch (t) {
        case CUDA_R_64F: std::memcpy(p, &v, 8); break;
        case CUDA_R_16F: { __half h = __double2half(v); std::memcpy(p, &h, 2); break; }
        case CUDA_R_16BF: { __nv_bfloat16 h = __double2bfloat16(v); std::memcpy(p, &h, 2); break; }
        default: { float f = static_cast<float>(v); std::memcpy(p, &f, 4); break; }
    }
}

size_t size_of(cudaDataType_t t) { return t == CUDA_R_64F ? 8 : t == CUDA_R_32F ? 4 : 2; }

int create(cublasHandle_t* h) {
    if (h == nullptr) return INVALID_VALUE;
    *h = new cublasContext;
    return OK;
}
int destroy(cublasHandle_t h) {
    if (h == nullptr) return NOT_INITIALIZED;
    delete h;
    return OK;
}
int set_stream(cublasHandle_t h, cudaStream_t s) {
    if (h == nullptr) return NOT_INITIALIZED;
    h->stream = s;
    return OK;
}
int set_math_mode(cublasHandle_t h, int mode) {
    if (h == nullptr) return NOT_INITIALIZED;
    const int base = mode & ~NB_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;  // cublasMath_t: 0..3, plus the flag
    return base >= 0 && base <= 3 ? OK : INVALID_VALUE;
}

// C[b] (m x n, column-major) = alpha op(A[b]) op(B[b]) + beta C[b]; sums in
// float for COMPUTE_32F (as the f32 accumulation cuBLAS does), double for 64F.
int gemm(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A, cudaDataType_t at,
         int lda, long long sa, const void* B, cudaDataType_t bt, int ldb, long long sb, const void* beta, void* C,
         cudaDataType_t ct, int ldc, long long sc, int batch, int compute, int) {
    if (h == nullptr) return NOT_INITIALIZED;
    const int arows = ta == NB_CUBLAS_OP_N ? m : k, brows = tb == NB_CUBLAS_OP_N ? k : n;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (arows > 1 ? arows : 1) || ldb < (brows > 1 ? brows : 1) ||
        ldc < (m > 1 ? m : 1) || (ta != 0 && ta != 1) || (tb != 0 && tb != 1) || at != bt || at != ct ||
        (compute != NB_CUBLAS_COMPUTE_32F && compute != NB_CUBLAS_COMPUTE_64F) ||
        ((compute == NB_CUBLAS_COMPUTE_64F) != (at == CUDA_R_64F)))
        return INVALID_VALUE;
    const bool f64 = compute == NB_CUBLAS_COMPUTE_64F;
    const double al = f64 ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
    const double be = f64 ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
    nbemu::Stream* s = nbemu::resolve(h->stream);
    if (s == nullptr) return INVALID_VALUE;
    const char* a = static_cast<const char*>(A);
    const char* b = static_cast<const char*>(B);
    char* c = static_cast<char*>(C);
    const size_t es = size_of(at);
    nbemu::enqueue(s, [=] {
        for (long long bi = 0; bi < batch; bi++)
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double accd = 0;
                    float accf = 0;
                    for (int l = 0; l < k; l++) {
                        const long long ai = ta == NB_CUBLAS_OP_N ? i + (long long)l * lda : l + (long long)i * lda;
                        const long long bj = tb == NB_CUBLAS_OP_N ? l + (long long)j * ldb : j + (long long)l * ldb;
                        const double x = load(a + (bi * sa + ai) * es, at), y = load(b + (bi * sb + bj) * es, bt);
                        if (f64) accd += x * y;
                        else accf += static_cast<float>(x) * static_cast<float>(y);
                    }
                    char* out = c + (bi * sc + i + (long long)j * ldc) * es;
                    double v = f64 ? al * accd : static_cast<double>(static_cast<float>(al) * accf);
                    if (be != 0) v += be * load(out, ct);  // beta == 0: C is not read
                    store(out, ct, v);
                }
    });
    return OK;
}

// cublasGemmEx: one matrix, the strided-batched GEMM with a batch of one.
int gemm_one(cublasHandle_t h, int ta, int tb, int m, int n, int k, const void* alpha, const void* A, cudaDataType_t at,
             int lda, const void* B, cudaDataType_t bt, int ldb, const void* beta, void* C, cudaDataType_t ct, int ldc,
             int compute, int algo) {
    return gemm(h, ta, tb, m, n, k, alpha, A, at, lda, 0, B, bt, ldb, 0, beta, C, ct, ldc, 0, 1, compute, algo);
}

}  // namespace

extern "C" void* nbemu_cublas_symbol(const char* name) {
    if (std::strcmp(name, "cublasCreate_v2") == 0) return reinterpret_cast<void*>(&create);
    if (std::strcmp(name, "cublasDestroy_v2") == 0) return reinterpret_cast<void*>(&destroy);
    if (std::strcmp(name, "cublasSetStream_v2") == 0) return reinterpret_cast<void*>(&set_stream);
    if (std::strcmp(name, "cublasSetMathMode") == 0) return reinterpret_cast<void*>(&set_math_mode);
    if (std::strcmp(name, "cublasGemmStridedBatchedEx") == 0) return reinterpret_cast<void*>(&gemm);
    if (std::strcmp(name, "cublasGemmEx") == 0) return reinterpret_cast<void*>(&gemm_one);
    return nullptr;
}
