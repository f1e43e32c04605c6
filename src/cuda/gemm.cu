// gemm.cu: nabla's own tiled GEMM (see nb_bk_gemm in backend.h), the path used
// when cuBLAS is absent or NABLA_CUBLAS=0:
//     C[b] = alpha * A[b] @ B[b] + beta * addend[b]
// for float32, float64, float16 and bfloat16 operands (f16/bf16 accumulate in
// f32, f64 in f64). Operands are read through their row/column/batch strides,
// so transposed, sliced and broadcast operands need no copy. Each block computes
// one BM x BN tile of C from BK-deep slices of A and B staged in shared memory;
// each thread owns TM x TN outputs and sums over k in a fixed order
// (deterministic, no atomics). Integer dtypes (int8/16/32/64, uint8) take
// gemm_int: the same tiling, products summed in int64 and wrapping (computed in
// uint64, where overflow is defined), alpha and beta as int64, the result
// narrowed once, as the CPU kernels and PyTorch's. It is one kernel for the five
// dtypes: the dtype only changes the tile loads and the final store (a uniform
// switch, off the inner loop), which keeps the compile time of one instance.
#include "dtypes.cuh"
#include "kernels.h"
#include "launch.cuh"

namespace nbcuda {
namespace {

constexpr int BM = 64, BN = 64, BK = 16;
constexpr int TX = 16, TY = 16;  // threads per block: TX columns x TY rows
constexpr int TM = BM / TY, TN = BN / TX;
constexpr int MAX_GRID_Z = 65535;

template <typename Acc> __device__ __forceinline__ Acc load_any(const char* p, int32_t code) {
    switch (code) {
        case NB_F64: return static_cast<Acc>(*reinterpret_cast<const double*>(p));
        case NB_F16: return static_cast<Acc>(__half2float(*reinterpret_cast<const __half*>(p)));
        case NB_BF16: return static_cast<Acc>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
        default: return static_cast<Acc>(*reinterpret_cast<const float*>(p));
    }
}

template <int Code, typename Acc> __device__ __forceinline__ Acc load_acc(typename Storage<Code>::type x) {
    if constexpr (sizeof(Acc) == 8) return static_cast<Acc>(load_f64<Code>(x));
    else return static_cast<Acc>(load_f32<Code>(x));
}

__device__ __forceinline__ int64_t batch_offset(const nb_bk_gemm& p, const nb_bk_gemm_operand& o, int64_t b) {
    int64_t off = 0;
    for (int32_t d = p.bndim - 1; d >= 0 && b > 0; d--) {
        off += (b % p.bshape[d]) * o.bstrides[d];
        b /= p.bshape[d];
    }
    return off;
}

// grid: (ceil(N / BN), ceil(M / BM), min(batches, 65535)); block: (TX, TY).
template <int Code, typename Acc> __global__ void gemm_tiled(nb_bk_gemm p, int64_t nbatch) {
    using T = typename Storage<Code>::type;
    __shared__ Acc As[BK][BM];  // A's tile, k-major
    __shared__ Acc Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int64_t m0 = static_cast<int64_t>(blockIdx.y) * BM, n0 = static_cast<int64_t>(blockIdx.x) * BN;
    const Acc alpha = static_cast<Acc>(p.alpha), beta = static_cast<Acc>(p.beta);
    for (int64_t b = blockIdx.z; b < nbatch; b += gridDim.z) {
        const T* A = reinterpret_cast<const T*>(p.a.data) + batch_offset(p, p.a, b);
        const T* B = reinterpret_cast<const T*>(p.b.data) + batch_offset(p, p.b, b);
        Acc acc[TM][TN];
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++) acc[i][j] = Acc(0);
        for (int64_t k0 = 0; k0 < p.K; k0 += BK) {
            for (int e = tid; e < BM * BK; e += TX * TY) {
                const int i = e / BK, kk = e % BK;  // consecutive threads walk k: A is often row-major
                const int64_t gm = m0 + i, gk = k0 + kk;
                As[kk][i] = (gm < p.M && gk < p.K) ? load_acc<Code, Acc>(A[gm * p.a.rs + gk * p.a.cs])
                                                   : Acc(0);
            }
            for (int e = tid; e < BK * BN; e += TX * TY) {
                const int kk = e / BN, j = e % BN;  // consecutive threads walk n: B is often row-major
                const int64_t gk = k0 + kk, gn = n0 + j;
                Bs[kk][j] = (gk < p.K && gn < p.N) ? load_acc<Code, Acc>(B[gk * p.b.rs + gn * p.b.cs])
                                                   : Acc(0);
            }
            __syncthreads();
            for (int kk = 0; kk < BK; kk++) {
                Acc av[TM], bv[TN];
                for (int i = 0; i < TM; i++) av[i] = As[kk][ty + i * TY];
                for (int j = 0; j < TN; j++) bv[j] = Bs[kk][tx + j * TX];
                for (int i = 0; i < TM; i++)
                    for (int j = 0; j < TN; j++) acc[i][j] += av[i] * bv[j];
            }
            __syncthreads();
        }
        T* C = reinterpret_cast<T*>(p.c.data) + batch_offset(p, p.c, b);
        const char* in = p.in_dtype >= 0 ? p.in.data : nullptr;
        const int64_t in_off = in ? batch_offset(p, p.in, b) : 0;
        const int64_t in_size = p.in_dtype == NB_F64 ? 8 : p.in_dtype == NB_F32 ? 4 : 2;
        for (int i = 0; i < TM; i++) {
            const int64_t gm = m0 + ty + i * TY;
            if (gm >= p.M) continue;
            for (int j = 0; j < TN; j++) {
                const int64_t gn = n0 + tx + j * TX;
                if (gn >= p.N) continue;
                T* c = C + gm * p.c.rs + gn * p.c.cs;
                Acc v = alpha * acc[i][j];
                if (p.accumulate) {  // beta == 0 never reads the addend (NaN there stays out)
                    const Acc add = in ? load_any<Acc>(in + (in_off + gm * p.in.rs + gn * p.in.cs) * in_size, p.in_dtype)
                                       : load_acc<Code, Acc>(*c);
                    v += beta * add;
                }
                *c = from_f64<Code>(static_cast<double>(v));
            }
        }
    }
}

template <int Code, typename Acc> cudaError_t launch(const nb_bk_gemm& p, int64_t nbatch, cudaStream_t s) {
    const int64_t gx = (p.N + BN - 1) / BN, gy = (p.M + BM - 1) / BM;
    if (gx > 2147483647LL || gy > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                    static_cast<unsigned>(nbatch < MAX_GRID_Z ? nbatch : MAX_GRID_Z));
    NB_LAUNCH(grid, dim3(TX, TY), 0, s, gemm_tiled<Code, Acc>)(p, nbatch);
    return cudaGetLastError();
}


// An integer addend element of any integer dtype (run-time code) as int64.
__device__ __forceinline__ int64_t load_int_any(const char* p, int32_t code) {
    switch (code) {
        case NB_I8: return *reinterpret_cast<const int8_t*>(p);
        case NB_I16: return *reinterpret_cast<const int16_t*>(p);
        case NB_I32: return *reinterpret_cast<const int32_t*>(p);
        case NB_I64: return *reinterpret_cast<const int64_t*>(p);
        default: return *reinterpret_cast<const uint8_t*>(p);  // NB_U8, NB_BOOL
    }
}

__host__ __device__ constexpr int64_t int_code_size(int32_t code) {
    return code == NB_I64 ? 8 : code == NB_I32 ? 4 : code == NB_I16 ? 2 : 1;
}

// Stores v narrowed (wrapping) to the integer dtype `code`.
__device__ __forceinline__ void store_int_any(char* p, int32_t code, int64_t v) {
    switch (code) {
        case NB_I8: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
        case NB_I16: *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
        case NB_I32: *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
        case NB_I64: *reinterpret_cast<int64_t*>(p) = v; break;
        default: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    }
}

// The integer kernel: gemm_tiled's grid and tiles with uint64 accumulators (wrapping sums).
__global__ void gemm_int(nb_bk_gemm p, int64_t nbatch) {
    const int32_t code = p.dtype;
    const int64_t size = int_code_size(code);
    __shared__ uint64_t As[BK][BM];
    __shared__ uint64_t Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TX + tx;
    const int64_t m0 = static_cast<int64_t>(blockIdx.y) * BM, n0 = static_cast<int64_t>(blockIdx.x) * BN;
    const uint64_t alpha = static_cast<uint64_t>(p.ialpha), beta = static_cast<uint64_t>(p.ibeta);
    for (int64_t b = blockIdx.z; b < nbatch; b += gridDim.z) {
        const char* A = p.a.data + batch_offset(p, p.a, b) * size;
        const char* B = p.b.data + batch_offset(p, p.b, b) * size;
        uint64_t acc[TM][TN];
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++) acc[i][j] = 0;
        for (int64_t k0 = 0; k0 < p.K; k0 += BK) {
            for (int e = tid; e < BM * BK; e += TX * TY) {
                const int i = e / BK, kk = e % BK;
                const int64_t gm = m0 + i, gk = k0 + kk;
                As[kk][i] = (gm < p.M && gk < p.K) ? static_cast<uint64_t>(load_int_any(A + (gm * p.a.rs + gk * p.a.cs) * size, code)) : 0;
            }
            for (int e = tid; e < BK * BN; e += TX * TY) {
                const int kk = e / BN, j = e % BN;
                const int64_t gk = k0 + kk, gn = n0 + j;
                Bs[kk][j] = (gk < p.K && gn < p.N) ? static_cast<uint64_t>(load_int_any(B + (gk * p.b.rs + gn * p.b.cs) * size, code)) : 0;
            }
            __syncthreads();
            for (int kk = 0; kk < BK; kk++) {
                uint64_t av[TM], bv[TN];
                for (int i = 0; i < TM; i++) av[i] = As[kk][ty + i * TY];
                for (int j = 0; j < TN; j++) bv[j] = Bs[kk][tx + j * TX];
                for (int i = 0; i < TM; i++)
                    for (int j = 0; j < TN; j++) acc[i][j] += av[i] * bv[j];
            }
            __syncthreads();
        }
        char* C = p.c.data + batch_offset(p, p.c, b) * size;
        const char* in = p.in_dtype >= 0 ? p.in.data : nullptr;
        const int64_t in_off = in ? batch_offset(p, p.in, b) : 0, in_size = int_code_size(p.in_dtype);
        for (int i = 0; i < TM; i++) {
            const int64_t gm = m0 + ty + i * TY;
            if (gm >= p.M) continue;
            for (int j = 0; j < TN; j++) {
                const int64_t gn = n0 + tx + j * TX;
                if (gn >= p.N) continue;
                char* c = C + (gm * p.c.rs + gn * p.c.cs) * size;
                uint64_t v = alpha * acc[i][j];
                if (p.accumulate) {
                    const int64_t add = in ? load_int_any(in + (in_off + gm * p.in.rs + gn * p.in.cs) * in_size, p.in_dtype)
                                           : load_int_any(c, code);
                    v += beta * static_cast<uint64_t>(add);
                }
                store_int_any(c, code, static_cast<int64_t>(v));  // narrowing wraps
            }
        }
    }
}

cudaError_t launch_int(const nb_bk_gemm& p, int64_t nbatch, cudaStream_t s) {
    const int64_t gx = (p.N + BN - 1) / BN, gy = (p.M + BM - 1) / BM;
    if (gx > 2147483647LL || gy > 65535) return cudaErrorInvalidConfiguration;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                    static_cast<unsigned>(nbatch < MAX_GRID_Z ? nbatch : MAX_GRID_Z));
    NB_LAUNCH(grid, dim3(TX, TY), 0, s, gemm_int)(p, nbatch);
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

bool nb_cuda_gemm_supported(int32_t dtype) {
    return dtype == NB_F32 || dtype == NB_F64 || dtype == NB_F16 || dtype == NB_BF16 || dtype == NB_I8 ||
           dtype == NB_I16 || dtype == NB_I32 || dtype == NB_I64 || dtype == NB_U8;
}

cudaError_t nb_cuda_gemm_tiled(const nb_bk_gemm* p, cudaStream_t stream) {
    int64_t nbatch = 1;
    for (int32_t d = 0; d < p->bndim; d++) nbatch *= p->bshape[d];
    if (p->M == 0 || p->N == 0 || nbatch == 0) return cudaSuccess;
    switch (p->dtype) {
        case NB_F32: return nbcuda::launch<NB_F32, float>(*p, nbatch, stream);
        case NB_F64: return nbcuda::launch<NB_F64, double>(*p, nbatch, stream);
        case NB_F16: return nbcuda::launch<NB_F16, float>(*p, nbatch, stream);
        case NB_BF16: return nbcuda::launch<NB_BF16, float>(*p, nbatch, stream);
        case NB_I8:
        case NB_I16:
        case NB_I32:
        case NB_I64:
        case NB_U8: return nbcuda::launch_int(*p, nbatch, stream);
        default: return cudaErrorNotSupported;
    }
}
