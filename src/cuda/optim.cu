// optim.cu: the multi-tensor kernels of the optim slot (nb_bk_optim): the optimizer
// steps, clip_grad_norm_'s norm and scaling, clip_grad_value_'s clamp and the
// GradScaler's unscale, over a list of tensors in a few launches (PyTorch's
// multi_tensor_apply). The tensors of one dtype go in batches of up to Cap per
// launch, their pointers and sizes passed by value in the kernel's arguments; each
// block takes a chunk of kChunk elements of one tensor (found by a binary search of
// the batch's chunk prefix), threads stride over it. float16 / bfloat16 / float32
// compute in float, float64 in double, with the CPU kernels' formulas (src/ops/optim.c).
// The norm is deterministic: per-chunk partials, then per tensor in chunk order,
// then one block over the tensors in a fixed tree; nothing is read back.
#include <cmath>

#include "fused_common.cuh"
#include "kernels.h"
#include "launch.h"

namespace nbcuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunk = NB_BK_OPTIM_CHUNK;
constexpr int kStepCap = 24;  // tensors per launch with five operands
constexpr int kListCap = 64;  // tensors per launch with one operand (under 4 KiB of arguments either way)

// Up to Cap tensors of one dtype with D operands each, as kernel arguments.
template <int D, int Cap>
struct Batch {
    int32_t n;
    int64_t chunks;            // chunks in the batch
    int64_t start[Cap + 1];    // tensor j has the batch's chunks [start[j], start[j + 1])
    int64_t numel[Cap];
    void* ptr[D][Cap];
    double s0[Cap], s1[Cap];   // per-tensor step scalars (step_size, bc2_sqrt)
    int64_t index[Cap];        // the tensor's position in the plan
    int64_t first[Cap];        // NORM: the tensor's first chunk among all the plan's chunks
};

struct Hyper {
    double lr, momentum, dampening, weight_decay, beta1, beta2, eps, alpha;
    int32_t nesterov, maximize, init_buffer, decoupled, amsgrad, centered;
};


template <int C> __device__ __forceinline__ void st(void* p, int64_t i, typename AccOf<C>::type v) {
    using T = typename Storage<C>::type;
    if constexpr (C == NB_F16) static_cast<T*>(p)[i] = __float2half_rn(v);
    else if constexpr (C == NB_BF16) static_cast<T*>(p)[i] = __float2bfloat16_rn(v);
    else static_cast<T*>(p)[i] = v;
}

// The tensor of the batch's chunk c: the last j with start[j] <= c (tensors without elements own no chunk).
template <int D, int Cap> __device__ __forceinline__ int locate(const Batch<D, Cap>& b, int64_t c) {
    int lo = 0, hi = b.n - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (b.start[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// Calls f(j, lo, hi) for each chunk of the batch this block takes (grid-stride).
template <int D, int Cap, typename F> __device__ __forceinline__ void for_chunks(const Batch<D, Cap>& b, F&& f) {
    for (int64_t c = blockIdx.x; c < b.chunks; c += gridDim.x) {
        const int j = locate(b, c);
        const int64_t lo = (c - b.start[j]) * kChunk, hi = lo + kChunk < b.numel[j] ? lo + kChunk : b.numel[j];
        f(j, c, lo, hi);
    }
}

// ---- the optimizer steps ----

template <int C, int Op>
__global__ void step_kernel(Batch<NB_BK_OPTIM_OPERANDS, kStepCap> b, Hyper h) {
    using A = typename AccOf<C>::type;
    for_chunks(b, [&](int j, int64_t, int64_t lo, int64_t hi) {
        void *p = b.ptr[0][j], *s2 = b.ptr[2][j], *s3 = b.ptr[3][j], *s4 = b.ptr[4][j];
        const void* gr = b.ptr[1][j];
        const A sign = h.maximize ? A(-1) : A(1), wd = A(h.weight_decay), eps = A(h.eps);
        for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            const A pi = ld_acc<C>(p, i);
            if constexpr (Op == NB_OPK_SGD) {
                const A mom = A(h.momentum), damp = A(1.0 - h.dampening);
                A g = sign * ld_acc<C>(gr, i);
                if (h.weight_decay != 0) g = g + wd * pi;
                if (h.momentum != 0) {
                    const A bi = h.init_buffer ? g : mom * ld_acc<C>(s2, i) + damp * g;
                    st<C>(s2, i, bi);
                    g = h.nesterov ? g + mom * bi : bi;
                }
                st<C>(p, i, pi - A(h.lr) * g);
            } else if constexpr (Op == NB_OPK_ADAM) {
                const A b1 = A(1.0 - h.beta1), b2 = A(h.beta2), nb2 = A(1.0 - h.beta2);
                const A keep = h.weight_decay != 0 && h.decoupled ? A(1.0 - h.lr * h.weight_decay) : A(1);
                const A l2 = h.weight_decay != 0 && !h.decoupled ? wd : A(0);
                const A step = A(b.s0[j]), bc2 = A(b.s1[j]);
                const A g = sign * ld_acc<C>(gr, i) + l2 * pi;
                const A m0 = ld_acc<C>(s2, i), mi = m0 + b1 * (g - m0);
                A si = ld_acc<C>(s3, i) * b2 + nb2 * g * g;
                st<C>(s2, i, mi);
                st<C>(s3, i, si);
                if (h.amsgrad) {
                    const A mx = ld_acc<C>(s4, i);
                    if (!(mx <= si)) si = mx != mx || mx > si ? mx : si;  // the maximum, NaN kept
                    st<C>(s4, i, si);
                }
                st<C>(p, i, pi * keep - step * (mi / (sqrt(si) / bc2 + eps)));
            } else if constexpr (Op == NB_OPK_RMSPROP) {
                const A a = A(h.alpha), na = A(1.0 - h.alpha);
                A g = sign * ld_acc<C>(gr, i);
                if (h.weight_decay != 0) g = g + wd * pi;
                const A s = a * ld_acc<C>(s2, i) + na * g * g;
                st<C>(s2, i, s);
                A avg;
                if (h.centered) {
                    const A g0 = ld_acc<C>(s3, i), gai = g0 + na * (g - g0);
                    st<C>(s3, i, gai);
                    avg = sqrt(s - gai * gai) + eps;
                } else {
                    avg = sqrt(s) + eps;
                }
                if (h.momentum > 0) {
                    const A bi = A(h.momentum) * ld_acc<C>(s4, i) + g / avg;
                    st<C>(s4, i, bi);
                    st<C>(p, i, pi - A(h.lr) * bi);
                } else {
                    st<C>(p, i, pi - A(h.lr) * (g / avg));
                }
            } else {  // NB_OPK_ADAGRAD
                A g = sign * ld_acc<C>(gr, i);
                if (h.weight_decay != 0) g = g + wd * pi;
                const A s = ld_acc<C>(s2, i) + g * g;
                st<C>(s2, i, s);
                st<C>(p, i, pi - A(b.s0[j]) * (g / (sqrt(s) + eps)));
            }
        }
    });
}

// ---- clip_grad_norm_: partials per chunk, parts per tensor, the total ----

enum { kNormP, kNorm0, kNorm1, kNorm2, kNormInf };

__device__ __forceinline__ double max_nan(double a, double b) { return (b > a || b != b) ? b : a; }

// Combines two partial sums of one tensor (the max for inf).
template <int Mode> __device__ __forceinline__ double merge(double a, double b) {
    if constexpr (Mode == kNormInf) return max_nan(a, b);
    else return a + b;
}

// Sums a block's values in sh[0..kThreads) into sh[0] in a fixed order.
template <int Mode> __device__ void block_merge(double* sh) {
    for (int off = kThreads / 2; off > 0; off >>= 1) {
        __syncthreads();
        if (static_cast<int>(threadIdx.x) < off) sh[threadIdx.x] = merge<Mode>(sh[threadIdx.x], sh[threadIdx.x + off]);
    }
    __syncthreads();
}

template <int C, int Mode>
__global__ void norm_partials(Batch<1, kListCap> b, double p, double* partials) {
    __shared__ double sh[kThreads];
    for_chunks(b, [&](int j, int64_t c, int64_t lo, int64_t hi) {
        double acc = 0;
        for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            const double x = fabs(static_cast<double>(ld_acc<C>(b.ptr[0][j], i)));
            if constexpr (Mode == kNormInf) acc = max_nan(acc, x);
            else if constexpr (Mode == kNorm0) acc += x != 0;
            else if constexpr (Mode == kNorm1) acc += x;
            else if constexpr (Mode == kNorm2) acc += x * x;
            else acc += pow(x, p);
        }
        sh[threadIdx.x] = acc;
        block_merge<Mode>(sh);
        if (threadIdx.x == 0) partials[b.first[j] + (c - b.start[j])] = sh[0];
    });
}

// One thread per tensor of the batch: its chunks' partials in order.
template <int Mode>
__global__ void norm_parts(Batch<1, kListCap> b, const double* partials, double* parts) {
    const int j = threadIdx.x;
    if (j >= b.n) return;
    double acc = 0;
    for (int64_t c = b.first[j], e = c + (b.start[j + 1] - b.start[j]); c < e; c++) acc = merge<Mode>(acc, partials[c]);
    parts[b.index[j]] = acc;
}

__device__ double load_any(const void* p, int32_t dtype) {
    switch (dtype) {
        case NB_F64: return *static_cast<const double*>(p);
        case NB_F16: return load_f64<NB_F16>(*static_cast<const __half*>(p));
        case NB_BF16: return load_f64<NB_BF16>(*static_cast<const __nv_bfloat16*>(p));
        default: return *static_cast<const float*>(p);
    }
}

// One block: the total over the tensors' parts (inf: the max; 0: the count of non-zero parts), its root,
// stored rounded into total; the coefficient from the rounded value, in the norm's dtype, into coef.
template <int Mode>
__global__ void norm_total(int64_t count, double p, double max_norm, const double* parts, void* total,
                           int32_t total_dtype, double* coef) {
    __shared__ double sh[kThreads];
    double acc = 0;
    for (int64_t i = threadIdx.x; i < count; i += blockDim.x)
        acc = Mode == kNorm0 ? acc + (parts[i] != 0) : merge<Mode>(acc, parts[i]);
    sh[threadIdx.x] = acc;
    block_merge<Mode>(sh);
    if (threadIdx.x != 0) return;
    double t = sh[0];
    if (Mode == kNorm2) t = sqrt(t);
    else if (Mode == kNormP) t = pow(t, 1.0 / p);
    store_f64(total, total_dtype, t);
    const double r = load_any(total, total_dtype);
    double k = total_dtype == NB_F64 ? max_norm / (r + 1e-6)
                                     : static_cast<double>(static_cast<float>(max_norm) / (static_cast<float>(r) + 1e-6f));
    if (isinf(max_norm) && max_norm > 0) k = 1;  // measuring only
    *coef = k;
}

// ---- one operand: scale, clamp, unscale ----

template <int C>
__global__ void scale_kernel(Batch<1, kListCap> b, const double* coef) {
    using A = typename AccOf<C>::type;
    const double k = *coef;
    if (!(k < 1.0 || k != k)) return;
    for_chunks(b, [&](int j, int64_t, int64_t lo, int64_t hi) {
        for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) st<C>(b.ptr[0][j], i, ld_acc<C>(b.ptr[0][j], i) * A(k));
    });
}

template <int C>
__global__ void clamp_kernel(Batch<1, kListCap> b, double clip) {
    using A = typename AccOf<C>::type;
    const A lo_v = A(-clip), hi_v = A(clip);
    for_chunks(b, [&](int j, int64_t, int64_t lo, int64_t hi) {
        for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            A v = ld_acc<C>(b.ptr[0][j], i);
            if (v == v) v = (v < lo_v ? lo_v : v) > hi_v ? hi_v : (v < lo_v ? lo_v : v);  // min(max(v, lo), hi)
            st<C>(b.ptr[0][j], i, v);
        }
    });
}

template <int C>
__global__ void unscale_kernel(Batch<1, kListCap> b, float* found_inf, const float* inv_scale) {
    using A = typename AccOf<C>::type;
    const float inv = *inv_scale;
    for_chunks(b, [&](int j, int64_t, int64_t lo, int64_t hi) {
        bool bad = false;
        for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
            const A v = ld_acc<C>(b.ptr[0][j], i);
            bad |= !isfinite(v);
            if (inv != 1.f) st<C>(b.ptr[0][j], i, v * A(inv));
        }
        if (bad) *found_inf = 1.f;  // every writer stores the same value
    });
}

// ---- host side ----

int64_t chunks_of(int64_t numel) { return (numel + kChunk - 1) / kChunk; }

unsigned grid_of(int64_t chunks) { return static_cast<unsigned>(chunks < 65535 * 8 ? (chunks > 0 ? chunks : 1) : 65535 * 8); }

// Calls each(batch) for the plan's tensors of dtype code, Cap at a time, in plan order.
template <int D, int Cap, typename L>
cudaError_t for_batches(const nb_bk_optim* p, int32_t code, L&& each) {
    Batch<D, Cap> b{};
    int64_t base = 0;  // chunks of the tensors before i, every dtype
    for (int64_t i = 0; i < p->count; i++) {
        const int64_t nc = chunks_of(p->numel[i]);
        if (p->dtypes[i] == code) {
            const int j = b.n++;
            b.numel[j] = p->numel[i], b.index[j] = i, b.first[j] = base;
            for (int k = 0; k < D; k++) b.ptr[k][j] = p->data[k] ? p->data[k][i] : nullptr;
            b.s0[j] = p->step_size ? p->step_size[i] : 0, b.s1[j] = p->bc2_sqrt ? p->bc2_sqrt[i] : 0;
            b.chunks += nc, b.start[j + 1] = b.chunks;
            if (b.n == Cap) {
                cudaError_t err = each(b);
                if (err != cudaSuccess) return err;
                b = Batch<D, Cap>{};
            }
        }
        base += nc;
    }
    return b.n > 0 ? each(b) : cudaSuccess;
}

using StepBatch = Batch<NB_BK_OPTIM_OPERANDS, kStepCap>;
using ListBatch = Batch<1, kListCap>;

template <int C, int Op> cudaError_t steps(const nb_bk_optim* p, cudaStream_t s) {
    const Hyper h{p->lr, p->momentum, p->dampening, p->weight_decay, p->beta1, p->beta2, p->eps, p->alpha,
                  p->nesterov, p->maximize, p->init_buffer, p->decoupled, p->amsgrad, p->centered};
    return for_batches<NB_BK_OPTIM_OPERANDS, kStepCap>(p, C, [&](const StepBatch& b) {
        return b.chunks == 0 ? cudaSuccess : launch(step_kernel<C, Op>, grid_of(b.chunks), kThreads, 0, s, b, h);
    });
}

template <int C, int Mode> cudaError_t norm(const nb_bk_optim* p, cudaStream_t s) {
    double* ws = static_cast<double*>(p->workspace);
    double *parts = ws + 1, *partials = ws + 1 + p->count;
    return for_batches<1, kListCap>(p, C, [&](const ListBatch& b) {
        cudaError_t err = b.chunks == 0 ? cudaSuccess
                                        : launch(norm_partials<C, Mode>, grid_of(b.chunks), kThreads, 0, s, b, p->p,
                                                 partials);
        return err != cudaSuccess ? err : launch(norm_parts<Mode>, 1, kListCap, 0, s, b,
                                                 static_cast<const double*>(partials), parts);
    });
}

int norm_mode(double p) {
    return std::isinf(p) ? kNormInf : p == 0 ? kNorm0 : p == 1 ? kNorm1 : p == 2 ? kNorm2 : kNormP;
}

template <int C> cudaError_t run_dtype(const nb_bk_optim* p, cudaStream_t s) {
    switch (p->op) {
        case NB_OPK_SGD: return steps<C, NB_OPK_SGD>(p, s);
        case NB_OPK_ADAM: return steps<C, NB_OPK_ADAM>(p, s);
        case NB_OPK_RMSPROP: return steps<C, NB_OPK_RMSPROP>(p, s);
        case NB_OPK_ADAGRAD: return steps<C, NB_OPK_ADAGRAD>(p, s);
        case NB_OPK_NORM:
            switch (norm_mode(p->p)) {
                case kNormInf: return norm<C, kNormInf>(p, s);
                case kNorm0: return norm<C, kNorm0>(p, s);
                case kNorm1: return norm<C, kNorm1>(p, s);
                case kNorm2: return norm<C, kNorm2>(p, s);
                default: return norm<C, kNormP>(p, s);
            }
        default: break;
    }
    return for_batches<1, kListCap>(p, C, [&](const ListBatch& b) {
        if (b.chunks == 0) return cudaSuccess;
        if (p->op == NB_OPK_SCALE)
            return launch(scale_kernel<C>, grid_of(b.chunks), kThreads, 0, s, b,
                          static_cast<const double*>(p->workspace));
        if (p->op == NB_OPK_CLAMP) return launch(clamp_kernel<C>, grid_of(b.chunks), kThreads, 0, s, b, p->clip);
        return launch(unscale_kernel<C>, grid_of(b.chunks), kThreads, 0, s, b, p->found_inf, p->inv_scale);
    });
}

template <int Mode> cudaError_t total(const nb_bk_optim* p, cudaStream_t s) {
    double* ws = static_cast<double*>(p->workspace);
    return launch(norm_total<Mode>, 1, kThreads, 0, s, p->count, p->p, p->max_norm, static_cast<const double*>(ws + 1),
                  p->total, p->total_dtype, ws);
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_optim(const nb_bk_optim* p, cudaStream_t stream) {
    using namespace nbcuda;
    if (p->op < 0 || p->op >= NB_OPK_NUM) return cudaErrorInvalidValue;
    bool has[4] = {false, false, false, false};  // F32, F64, F16, BF16 (codes 0..3)
    for (int64_t i = 0; i < p->count; i++) {
        if (p->dtypes[i] < NB_F32 || p->dtypes[i] > NB_BF16) return cudaErrorInvalidValue;
        has[p->dtypes[i]] = true;
    }
    cudaError_t err = cudaSuccess;
    if (has[NB_F32] && err == cudaSuccess) err = run_dtype<NB_F32>(p, stream);
    if (has[NB_F64] && err == cudaSuccess) err = run_dtype<NB_F64>(p, stream);
    if (has[NB_F16] && err == cudaSuccess) err = run_dtype<NB_F16>(p, stream);
    if (has[NB_BF16] && err == cudaSuccess) err = run_dtype<NB_BF16>(p, stream);
    if (err != cudaSuccess || p->op != NB_OPK_NORM) return err;
    switch (norm_mode(p->p)) {
        case kNormInf: return total<kNormInf>(p, stream);
        case kNorm0: return total<kNorm0>(p, stream);
        case kNorm1: return total<kNorm1>(p, stream);
        case kNorm2: return total<kNorm2>(p, stream);
        default: return total<kNormP>(p, stream);
    }
}
