// rng.cu: the random fills of nb_bk_rng (uniform, normal, integers, bernoulli,
// dropout) on the device, bit for bit the CPU's (src/ops/random.c): element e of
// the result (row-major) comes from Philox block base + e / k (philox.h), through
// the same transform, evaluated with the same IEEE operations in the same order.
// This file is compiled without FMA contraction (-fmad=false) so that a * b + c
// rounds twice, as on the host. One thread per Philox block writes its k elements
// straight into the (strided) target; nothing goes through the host.
//
// Contract: float32, float16, bfloat16 (uniform, normal), the integers, bernoulli
// and dropout are bitwise the CPU's. float64 normal uses the device's log, sin and
// cos (CUDA: within 1-2 ulp of glibc's), so its values may differ from the CPU's
// in the last bits on a GPU (bitwise on the emulated device, which runs glibc).
#include "kernels.h"
#include "dtypes.cuh"
#include "index_plan.h"
#include "launch.cuh"
#include "../ops/philox.h"

namespace nbcuda {
namespace {

constexpr int kRngThreads = 256;

// The element offset of flat (row-major) index e in a tensor of shape / strides.
__device__ __forceinline__ int64_t offset_of(const nb_bk_rng& a, const int64_t* strides, int64_t e) {
    if (a.ndim == 1) return e * strides[0];
    int64_t off = 0;
    for (int d = a.ndim - 1; d >= 0; d--) {
        const int64_t i = e % a.shape[d];
        e /= a.shape[d];
        off += i * strides[d];
    }
    return off;
}

__device__ __forceinline__ double load_float(const void* p, int32_t dtype, int64_t i) {
    switch (dtype) {
        case NB_F64: return static_cast<const double*>(p)[i];
        case NB_F16: return load_f64<NB_F16>(static_cast<const __half*>(p)[i]);
        case NB_BF16: return load_f64<NB_BF16>(static_cast<const __nv_bfloat16*>(p)[i]);
        default: return static_cast<const float*>(p)[i];
    }
}

__device__ __forceinline__ void* out_at(const nb_bk_rng& a, int64_t e) {
    static_assert(NB_BK_NUM_DTYPES == 10, "dtype sizes below");
    const int size = a.dtype == NB_F64 || a.dtype == NB_I64 ? 8 : a.dtype == NB_F32 || a.dtype == NB_I32 ? 4
                     : a.dtype == NB_F16 || a.dtype == NB_BF16 || a.dtype == NB_I16 ? 2 : 1;
    return static_cast<char*>(a.out) + offset_of(a, a.out_strides, e) * size;
}

// random.c's round_to: a float made exact in the half type `dtype` (else kept).
__device__ __forceinline__ float round_to(float x, int32_t dtype) {
    if (dtype == NB_F16) return __half2float(__float2half_rn(x));
    if (dtype == NB_BF16) return __bfloat162float(__float2bfloat16_rn(x));
    return x;
}

// random.c's threshold(p): w * 2^-32 < p  <=>  w < ceil(p * 2^32).
__device__ __forceinline__ uint64_t threshold(double p) { return static_cast<uint64_t>(ceil(p * 0x1p32)); }

// Element j (0 .. 3) of a float32 block: k_uniform_f32.
__device__ __forceinline__ float uniform_f32(const nb_bk_rng& a, uint32_t w) {
    const int shift = a.dtype == NB_F16 ? 21 : a.dtype == NB_BF16 ? 24 : 8;
    const float scale = a.dtype == NB_F16 ? 0x1p-11f : a.dtype == NB_BF16 ? 0x1p-8f : 0x1p-24f;
    const float u = static_cast<float>(static_cast<int32_t>(w >> shift)) * scale;
    if (a.a == 0 && a.b == 1) return u;
    const float x = round_to(static_cast<float>(a.a + static_cast<double>(u) * (a.b - a.a)), a.dtype);
    return static_cast<double>(x) >= a.b ? round_to(static_cast<float>(a.a), a.dtype) : x;
}

// The four float32 normals of a block: k_normal_f32 (words paired (0, 1), (2, 3); cos first).
__device__ __forceinline__ void normal_f32(const nb_bk_rng& a, const uint32_t w[4], float z[4]) {
    for (int m = 0; m < 2; m++) {
        const float r = sqrtf(nb_neg2log_f32(nb_u01_open_f32(w[2 * m])));
        float s, c;
        nb_sincos_2pi_f32(w[2 * m + 1], &s, &c);
        z[2 * m] = r * c, z[2 * m + 1] = r * s;
    }
    if (a.a == 0 && a.b == 1) return;
    for (int j = 0; j < 4; j++) z[j] = static_cast<float>(a.a + a.b * static_cast<double>(z[j]));
}

// The two float64 normals of a block: k_normal_f64.
__device__ __forceinline__ void normal_f64(const nb_bk_rng& a, const uint32_t w[4], double z[2]) {
    const double r = sqrt(-2.0 * log(nb_u01_open_f64(w[0], w[1])));
    const double theta = 6.28318530717958647692 * nb_u01_f64(w[2], w[3]);
    z[0] = a.a + a.b * (r * cos(theta));
    z[1] = a.a + a.b * (r * sin(theta));
}

template <int Kind>
__global__ void rng_kernel(nb_bk_rng a, int64_t n, int64_t per_block, uint64_t blocks, DevError* err) {
    const nb_philox ph = {a.key[0], a.key[1], a.base};
    for (uint64_t blk = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; blk < blocks;
         blk += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t w[4];
        nb_philox_block(&ph, blk, w);
        const int64_t e0 = static_cast<int64_t>(blk) * per_block;
        const int count = static_cast<int>(n - e0 < per_block ? n - e0 : per_block);
        if constexpr (Kind == NB_RNGK_UNIFORM) {
            for (int j = 0; j < count; j++) {
                if (a.dtype == NB_F64) {
                    const double x = a.a + nb_u01_f64(w[2 * j], w[2 * j + 1]) * (a.b - a.a);
                    *static_cast<double*>(out_at(a, e0 + j)) = x >= a.b ? a.a : x;
                } else {
                    store_f64(out_at(a, e0 + j), a.dtype, uniform_f32(a, w[j]));
                }
            }
        } else if constexpr (Kind == NB_RNGK_NORMAL) {
            if (a.dtype == NB_F64) {
                double z[2];
                normal_f64(a, w, z);
                for (int j = 0; j < count; j++) *static_cast<double*>(out_at(a, e0 + j)) = z[j];
            } else {
                float z[4];
                normal_f32(a, w, z);
                for (int j = 0; j < count; j++) store_f64(out_at(a, e0 + j), a.dtype, z[j]);
            }
        } else if constexpr (Kind == NB_RNGK_INT) {
            for (int j = 0; j < count; j++) {
                uint64_t v;
                if (per_block == 4) {
                    v = (static_cast<uint64_t>(w[j]) * a.span) >> 32;
                } else {
                    const uint64_t x = (static_cast<uint64_t>(w[2 * j + 1]) << 32) | w[2 * j];
                    v = a.span ? __umul64hi(x, a.span) : x;
                }
                store_i64(out_at(a, e0 + j), a.dtype, static_cast<int64_t>(static_cast<uint64_t>(a.low) + v));
            }
        } else if constexpr (Kind == NB_RNGK_BERNOULLI) {
            for (int j = 0; j < count; j++) {
                bool hit;
                if (a.in) {
                    const double p = load_float(a.in, a.in_dtype, offset_of(a, a.in_strides, e0 + j));
                    if (!(p >= 0 && p <= 1) && atomicCAS(&err->flag, 0, kDevErrorProbability) == 0)
                        err->index = e0 + j, err->size = __double_as_longlong(p);
                    hit = nb_u01_w32(w[j]) < p;
                } else {
                    const uint64_t thr = threshold(a.a);
                    hit = thr > UINT32_MAX || w[j] < static_cast<uint32_t>(thr);
                }
                store_i64(out_at(a, e0 + j), a.dtype, hit);
            }
        } else {  // NB_RNGK_DROPOUT: x * scale or x * 0, in the input's compute type
            const uint64_t thr = threshold(a.a);
            for (int j = 0; j < count; j++) {
                const bool keep = thr > UINT32_MAX || w[j] < static_cast<uint32_t>(thr);
                const double x = load_float(a.in, a.in_dtype, offset_of(a, a.in_strides, e0 + j));
                if (a.in_dtype == NB_F64) {
                    store_f64(out_at(a, e0 + j), a.dtype, x * (keep ? a.b : 0.0));
                } else {
                    const float xf = static_cast<float>(x), scale = static_cast<float>(a.b);
                    store_f64(out_at(a, e0 + j), a.dtype, xf * (keep ? scale : 0.0f));
                }
            }
        }
    }
}

// Elements per Philox block: random.c's EPB for each kind and dtype.
int64_t per_block(const nb_bk_rng& a) {
    switch (a.kind) {
        case NB_RNGK_UNIFORM:
        case NB_RNGK_NORMAL: return a.dtype == NB_F64 ? 2 : 4;
        case NB_RNGK_INT: return a.span != 0 && a.span <= (UINT64_C(1) << 16) ? 4 : 2;
        default: return 4;
    }
}

template <int Kind> cudaError_t launch(const nb_bk_rng& a, int64_t n, DevError* err, cudaStream_t s) {
    const int64_t k = per_block(a);
    const uint64_t blocks = static_cast<uint64_t>((n + k - 1) / k);
    int64_t grid = static_cast<int64_t>((blocks + kRngThreads - 1) / kRngThreads);
    grid = grid < 65535 * 8 ? grid : 65535 * 8;
    NB_LAUNCH(dim3(static_cast<unsigned>(grid)), dim3(kRngThreads), 0, s, rng_kernel<Kind>)(a, n, k, blocks, err);
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_rng(const nb_bk_rng* args, void* device_error, cudaStream_t stream) {
    int64_t n = 1;
    for (int32_t d = 0; d < args->ndim; d++) n *= args->shape[d];
    if (n == 0) return cudaSuccess;
    nbcuda::DevError* err = static_cast<nbcuda::DevError*>(device_error);
    switch (args->kind) {
        case NB_RNGK_UNIFORM: return nbcuda::launch<NB_RNGK_UNIFORM>(*args, n, err, stream);
        case NB_RNGK_NORMAL: return nbcuda::launch<NB_RNGK_NORMAL>(*args, n, err, stream);
        case NB_RNGK_INT: return nbcuda::launch<NB_RNGK_INT>(*args, n, err, stream);
        case NB_RNGK_BERNOULLI: return nbcuda::launch<NB_RNGK_BERNOULLI>(*args, n, err, stream);
        case NB_RNGK_DROPOUT: return nbcuda::launch<NB_RNGK_DROPOUT>(*args, n, err, stream);
        default: return cudaErrorInvalidValue;
    }
}
