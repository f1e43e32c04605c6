// norm.cu: fused layer_norm, batch_norm and group_norm, forward and backward
// (nb_bk_norm). x is [N, C, S], contiguous. A block owns one group of values
// (a row for layer_norm, an (item, group) for group_norm, a channel for
// batch_norm): one pass gathers shifted sums (shift: the group's first value,
// against cancellation) in the accumulator type (float for float32 / float16 /
// bfloat16, double for float64), a fixed shared-memory tree combines them (so
// results repeat bit for bit), and a second pass writes y or dx. Parameter
// gradients that sum across groups (layer_norm over rows, group_norm over
// items) are a second kernel, one thread per parameter summing in a fixed order
// in double; batch_norm's come from its channel's block.
#include "kernels.h"
#include "fused_common.cuh"
#include "launch.cuh"

namespace nbcuda {
namespace {

constexpr int kNormThreads = 256;


template <int Code, typename A> __device__ __forceinline__ void st(void* p, int64_t i, A v) {
    using T = typename Storage<Code>::type;
    if constexpr (Code == NB_F32 || Code == NB_F64) static_cast<T*>(p)[i] = static_cast<T>(v);
    else static_cast<T*>(p)[i] = from_f64<Code>(static_cast<double>(v));
}

// A run-time float dtype (the running statistics).
__device__ __forceinline__ double ld_any(const void* p, int32_t dtype, int64_t i) {
    switch (dtype) {
        case NB_F64: return static_cast<const double*>(p)[i];
        case NB_F16: return load_f64<NB_F16>(static_cast<const __half*>(p)[i]);
        case NB_BF16: return load_f64<NB_BF16>(static_cast<const __nv_bfloat16*>(p)[i]);
        default: return static_cast<const float*>(p)[i];
    }
}

// Element i of a run-time float dtype's array.
__device__ __forceinline__ void* at_any(void* p, int32_t dtype, int64_t i) {
    return static_cast<char*>(p) + i * (dtype == NB_F64 ? 8 : dtype == NB_F32 ? 4 : 2);
}

// Sums v[0..K) over the block (blockDim.x a power of two) by a fixed tree; every thread gets the totals.
template <typename A, int K> __device__ __forceinline__ void block_sum(A (&v)[K], A* smem) {
    const int t = threadIdx.x, n = blockDim.x;
    for (int k = 0; k < K; k++) smem[k * n + t] = v[k];
    __syncthreads();
    for (int s = n / 2; s > 0; s >>= 1) {
        if (t < s)
            for (int k = 0; k < K; k++) smem[k * n + t] += smem[k * n + t + s];
        __syncthreads();
    }
    for (int k = 0; k < K; k++) v[k] = smem[k * n];
    __syncthreads();
}

struct Moments {
    double m1, mean, rstd;  // m1: mean - shift
};

__device__ __forceinline__ Moments moments(double s1, double s2, double count, double shift, double eps) {
    Moments m;
    m.m1 = s1 / count;
    const double var = s2 / count - m.m1 * m.m1;
    m.mean = shift + m.m1;
    m.rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);
    return m;
}

// Segments of M = cg * S values, segment q starting at q * M: layer_norm rows (G = 1, cg = C, S = 1:
// parameter i) or group_norm groups (parameter (q % G) * cg + i / S).
struct Segments {
    int64_t count, G, cg, S, M;
    __device__ __forceinline__ int64_t param(int64_t q, int64_t i) const { return (q % G) * cg + i / S; }
};

template <int Code> __global__ void segment_forward(nb_bk_norm a, Segments g) {
    using A = typename AccOf<Code>::type;
    __shared__ A smem[2 * kNormThreads];
    for (int64_t q = blockIdx.x; q < g.count; q += gridDim.x) {
        const int64_t base = q * g.M;
        const A shift = ld_acc<Code>(a.x, base);
        A v[2] = {0, 0};
        for (int64_t i = threadIdx.x; i < g.M; i += blockDim.x) {
            const A d = ld_acc<Code>(a.x, base + i) - shift;
            v[0] += d, v[1] += d * d;
        }
        block_sum(v, smem);
        const Moments m = moments(v[0], v[1], static_cast<double>(g.M), shift, a.eps);
        const A mean = static_cast<A>(m.mean), rstd = static_cast<A>(m.rstd);
        for (int64_t i = threadIdx.x; i < g.M; i += blockDim.x) {
            const int64_t p = g.param(q, i);
            A y = (ld_acc<Code>(a.x, base + i) - mean) * rstd;
            if (a.weight) y = y * ld_acc<Code>(a.weight, p);
            if (a.bias) y = y + ld_acc<Code>(a.bias, p);
            st<Code>(a.y, base + i, y);
        }
    }
}

// Channel c of x [N, C, S]: element i of its N * S values.
__device__ __forceinline__ int64_t channel_at(const nb_bk_norm& a, int64_t c, int64_t i) {
    return ((i / a.S) * a.C + c) * a.S + i % a.S;
}

template <int Code> __global__ void batch_forward(nb_bk_norm a) {
    using A = typename AccOf<Code>::type;
    __shared__ A smem[2 * kNormThreads];
    const int64_t M = a.N * a.S;
    for (int64_t c = blockIdx.x; c < a.C; c += gridDim.x) {
        double mean, var;
        if (a.training) {
            const A shift = ld_acc<Code>(a.x, c * a.S);
            A v[2] = {0, 0};
            for (int64_t i = threadIdx.x; i < M; i += blockDim.x) {
                const A d = ld_acc<Code>(a.x, channel_at(a, c, i)) - shift;
                v[0] += d, v[1] += d * d;
            }
            block_sum(v, smem);
            const double m1 = static_cast<double>(v[0]) / M, v0 = static_cast<double>(v[1]) / M - m1 * m1;
            mean = static_cast<double>(shift) + m1, var = v0 > 0 ? v0 : 0;
            if (threadIdx.x == 0 && a.running_mean) {
                const double rm = ld_any(a.running_mean, a.running_dtype, c);
                store_f64(at_any(a.running_mean, a.running_dtype, c), a.running_dtype, (1 - a.momentum) * rm + a.momentum * mean);
            }
            if (threadIdx.x == 0 && a.running_var) {
                const double rv = ld_any(a.running_var, a.running_dtype, c);
                store_f64(at_any(a.running_var, a.running_dtype, c), a.running_dtype,
                          (1 - a.momentum) * rv + a.momentum * var * (M / (M - 1.0)));
            }
        } else {
            mean = ld_any(a.running_mean, a.running_dtype, c), var = ld_any(a.running_var, a.running_dtype, c);
        }
        const double invstd = 1.0 / sqrt(var + a.eps);
        const A scale = static_cast<A>(invstd * (a.weight ? static_cast<double>(ld_acc<Code>(a.weight, c)) : 1.0));
        const A shift = static_cast<A>(a.bias ? static_cast<double>(ld_acc<Code>(a.bias, c)) : 0.0), m = static_cast<A>(mean);
        for (int64_t i = threadIdx.x; i < M; i += blockDim.x) {
            const int64_t at = channel_at(a, c, i);
            st<Code>(a.y, at, (ld_acc<Code>(a.x, at) - m) * scale + shift);
        }
    }
}

// layer_norm backward, a block per row: dx, and the row's (mean, rstd) into the workspace.
template <int Code> __global__ void layer_backward(nb_bk_norm a) {
    using A = typename AccOf<Code>::type;
    __shared__ A smem[4 * kNormThreads];
    double* stats = static_cast<double*>(a.workspace);
    const int64_t D = a.C;
    for (int64_t r = blockIdx.x; r < a.N; r += gridDim.x) {
        const int64_t base = r * D;
        const A x0 = ld_acc<Code>(a.x, base);
        A v[4] = {0, 0, 0, 0};
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
            const A d = ld_acc<Code>(a.x, base + i) - x0;
            const A gw = ld_acc<Code>(a.grad, base + i) * (a.weight ? ld_acc<Code>(a.weight, i) : A(1));
            v[0] += d, v[1] += d * d, v[2] += gw, v[3] += gw * d;
        }
        block_sum(v, smem);
        const Moments m = moments(v[0], v[1], static_cast<double>(D), x0, a.eps);
        if (threadIdx.x == 0) stats[2 * r] = m.mean, stats[2 * r + 1] = m.rstd;
        if (!a.y) continue;
        const double sg = v[2], sgxhat = (v[3] - m.m1 * sg) * m.rstd;  // sum w go, sum w go xhat
        const A ca = static_cast<A>(m.rstd), cx = static_cast<A>(-m.rstd * m.rstd * sgxhat / D);
        const A c0 = static_cast<A>(-m.rstd * sg / D + m.rstd * m.rstd * sgxhat / D * m.m1);
        for (int64_t i = threadIdx.x; i < D; i += blockDim.x) {
            const A gw = ld_acc<Code>(a.grad, base + i) * (a.weight ? ld_acc<Code>(a.weight, i) : A(1));
            st<Code>(a.y, base + i, ca * gw + cx * (ld_acc<Code>(a.x, base + i) - x0) + c0);
        }
    }
}

// layer_norm's dw, db: a thread per column summing over the rows in order, in double.
template <int Code> __global__ void layer_param_grads(nb_bk_norm a) {
    const double* stats = static_cast<const double*>(a.workspace);
    for (int64_t d = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; d < a.C; d += (int64_t)gridDim.x * blockDim.x) {
        double dw = 0, db = 0;
        for (int64_t r = 0; r < a.N; r++) {
            const double g = ld_acc<Code>(a.grad, r * a.C + d);
            dw += g * ((ld_acc<Code>(a.x, r * a.C + d) - stats[2 * r]) * stats[2 * r + 1]);
            db += g;
        }
        if (a.grad_weight) st<Code>(a.grad_weight, d, dw);
        if (a.grad_bias) st<Code>(a.grad_bias, d, db);
    }
}

// group_norm backward, a block per (item, group): per channel sums of go and go (x - x0) go to the
// workspace (as go xhat once the statistics are known), then dx.
template <int Code> __global__ void group_backward(nb_bk_norm a, Segments g) {
    using A = typename AccOf<Code>::type;
    __shared__ A smem[4 * kNormThreads];
    double* part = static_cast<double*>(a.workspace);  // [N * C] pairs (go xhat, go)
    for (int64_t q = blockIdx.x; q < g.count; q += gridDim.x) {
        const int64_t base = q * g.M, n = q / g.G, c0 = (q % g.G) * g.cg;
        const A x0 = ld_acc<Code>(a.x, base);
        double s1 = 0, s2 = 0, sg = 0, sgx = 0;
        for (int64_t c = 0; c < g.cg; c++) {
            A v[4] = {0, 0, 0, 0};
            for (int64_t i = threadIdx.x; i < g.S; i += blockDim.x) {
                const A d = ld_acc<Code>(a.x, base + c * g.S + i) - x0, go = ld_acc<Code>(a.grad, base + c * g.S + i);
                v[0] += d, v[1] += d * d, v[2] += go, v[3] += go * d;
            }
            block_sum(v, smem);
            const double wc = a.weight ? static_cast<double>(ld_acc<Code>(a.weight, c0 + c)) : 1.0;
            s1 += v[0], s2 += v[1], sg += wc * v[2], sgx += wc * v[3];
            if (threadIdx.x == 0) part[2 * (n * a.C + c0 + c)] = v[3], part[2 * (n * a.C + c0 + c) + 1] = v[2];
        }
        const Moments m = moments(s1, s2, static_cast<double>(g.M), x0, a.eps);
        const double sgxhat = (sgx - m.m1 * sg) * m.rstd;
        if (threadIdx.x == 0)
            for (int64_t c = 0; c < g.cg; c++) {
                double* p = part + 2 * (n * a.C + c0 + c);
                p[0] = (p[0] - m.m1 * p[1]) * m.rstd;
            }
        if (!a.y) continue;
        const double b = -m.rstd * m.rstd * sgxhat / g.M, k = -m.rstd * sg / g.M - b * m.mean;
        for (int64_t i = threadIdx.x; i < g.M; i += blockDim.x) {
            const double wc = a.weight ? static_cast<double>(ld_acc<Code>(a.weight, c0 + i / g.S)) : 1.0;
            const A ca = static_cast<A>(wc * m.rstd);
            st<Code>(a.y, base + i, ca * ld_acc<Code>(a.grad, base + i) + static_cast<A>(b) * ld_acc<Code>(a.x, base + i) +
                                        static_cast<A>(k));
        }
    }
}

// group_norm's dw, db: a thread per channel summing the items' parts in order.
template <int Code> __global__ void group_param_grads(nb_bk_norm a) {
    const double* part = static_cast<const double*>(a.workspace);
    for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < a.C; c += (int64_t)gridDim.x * blockDim.x) {
        double dw = 0, db = 0;
        for (int64_t n = 0; n < a.N; n++) dw += part[2 * (n * a.C + c)], db += part[2 * (n * a.C + c) + 1];
        if (a.grad_weight) st<Code>(a.grad_weight, c, dw);
        if (a.grad_bias) st<Code>(a.grad_bias, c, db);
    }
}

// batch_norm backward, a block per channel: dw, db and dx from one pass of sums.
template <int Code> __global__ void batch_backward(nb_bk_norm a) {
    using A = typename AccOf<Code>::type;
    __shared__ A smem[4 * kNormThreads];
    const int64_t M = a.N * a.S;
    for (int64_t c = blockIdx.x; c < a.C; c += gridDim.x) {
        const A x0 = ld_acc<Code>(a.x, c * a.S);
        A v[4] = {0, 0, 0, 0};
        for (int64_t i = threadIdx.x; i < M; i += blockDim.x) {
            const int64_t at = channel_at(a, c, i);
            const A d = ld_acc<Code>(a.x, at) - x0, go = ld_acc<Code>(a.grad, at);
            v[0] += d, v[1] += d * d, v[2] += go, v[3] += go * d;
        }
        block_sum(v, smem);
        const Moments m = moments(v[0], v[1], static_cast<double>(M), x0, a.eps);
        const double sg = v[2], gxhat = (v[3] - m.m1 * sg) * m.rstd;
        if (threadIdx.x == 0 && a.grad_weight) st<Code>(a.grad_weight, c, gxhat);
        if (threadIdx.x == 0 && a.grad_bias) st<Code>(a.grad_bias, c, sg);
        if (!a.y) continue;
        const double wc = a.weight ? static_cast<double>(ld_acc<Code>(a.weight, c)) : 1.0;
        const double ca = wc * m.rstd, b = -wc * m.rstd * m.rstd * gxhat / M, k = -wc * m.rstd * sg / M - b * m.mean;
        for (int64_t i = threadIdx.x; i < M; i += blockDim.x) {
            const int64_t at = channel_at(a, c, i);
            st<Code>(a.y, at, static_cast<A>(ca) * ld_acc<Code>(a.grad, at) + static_cast<A>(b) * ld_acc<Code>(a.x, at) +
                                  static_cast<A>(k));
        }
    }
}

// Threads for groups of `len` values: a power of two from 32 to kNormThreads.
int threads_for(int64_t len) {
    int t = 32;
    while (t < kNormThreads && t < len) t *= 2;
    return t;
}

unsigned blocks_for(int64_t groups) { return static_cast<unsigned>(groups < 65535 * 8 ? groups : 65535 * 8); }

template <int Code> cudaError_t launch(const nb_bk_norm& a, cudaStream_t s) {
    if (a.kind == NB_NK_BATCH) {
        const int t = threads_for(a.N * a.S);
        if (a.backward) NB_LAUNCH(dim3(blocks_for(a.C)), dim3(t), 0, s, batch_backward<Code>)(a);
        else NB_LAUNCH(dim3(blocks_for(a.C)), dim3(t), 0, s, batch_forward<Code>)(a);
        return cudaGetLastError();
    }
    const bool layer = a.kind == NB_NK_LAYER;
    Segments g;
    g.G = layer ? 1 : a.groups;
    g.cg = layer ? a.C : a.C / a.groups;
    g.S = layer ? 1 : a.S;
    g.M = g.cg * g.S;
    g.count = layer ? a.N : a.N * a.groups;
    if (!a.backward) {
        NB_LAUNCH(dim3(blocks_for(g.count)), dim3(threads_for(g.M)), 0, s, segment_forward<Code>)(a, g);
        return cudaGetLastError();
    }
    const bool params = a.grad_weight || a.grad_bias;
    const unsigned pblocks = static_cast<unsigned>((a.C + kNormThreads - 1) / kNormThreads);
    if (layer) {
        NB_LAUNCH(dim3(blocks_for(g.count)), dim3(threads_for(g.M)), 0, s, layer_backward<Code>)(a);
        if (params && cudaPeekAtLastError() == cudaSuccess)
            NB_LAUNCH(dim3(pblocks), dim3(kNormThreads), 0, s, layer_param_grads<Code>)(a);
    } else {
        NB_LAUNCH(dim3(blocks_for(g.count)), dim3(threads_for(g.S)), 0, s, group_backward<Code>)(a, g);
        if (params && cudaPeekAtLastError() == cudaSuccess)
            NB_LAUNCH(dim3(pblocks), dim3(kNormThreads), 0, s, group_param_grads<Code>)(a);
    }
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_norm(const nb_bk_norm* args, cudaStream_t stream) {
    if (args->N * args->C * args->S == 0) return cudaSuccess;
    switch (args->dtype) {
        case NB_F32: return nbcuda::launch<NB_F32>(*args, stream);
        case NB_F64: return nbcuda::launch<NB_F64>(*args, stream);
        case NB_F16: return nbcuda::launch<NB_F16>(*args, stream);
        case NB_BF16: return nbcuda::launch<NB_BF16>(*args, stream);
        default: return cudaErrorInvalidValue;
    }
}
