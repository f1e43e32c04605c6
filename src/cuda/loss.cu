// loss.cu: fused nll_loss and cross_entropy (nb_bk_loss), over class indices or
// (cross_entropy) class probabilities. input [N, C, S] contiguous, target [N, S]
// (indices) or [N, C, S] (probabilities). A block owns one position (n, s):
// cross_entropy keeps an online (max, sum of exp) per thread over the classes,
// merged by a fixed shared-memory tree, so log_softmax is never written; the
// position's loss and weight go to the workspace (and to out for reduction
// 'none'); one block then sums them in a fixed order (mean divides by the summed
// weights of the kept targets, as PyTorch; by N * S for probabilities). The
// backward writes
//     dx_c = A (softmax_c sum_k q_k - q_c)  (cross_entropy),   dx_c = -A q_c  (nll_loss)
// with q_c = w_c ((1 - ls) [c == t] + ls / C) (indices) or w_c ((1 - ls) t_c + ls / C)
// (probabilities) and A the output gradient of the position (zero where the
// target is ignored), one block per position. A target outside [0, C) claims
// the device error word and counts nothing.
#include "kernels.h"
#include "fused_common.cuh"
#include "launch.cuh"

namespace nbcuda {
namespace {

constexpr int kLossThreads = 256;

__device__ __forceinline__ float exp_acc(float x) { return expf(x); }
__device__ __forceinline__ double exp_acc(double x) { return exp(x); }

// The target of position i, or -1 when it counts nothing (ignored, or out of range: reported).
__device__ __forceinline__ int64_t target_at(const nb_bk_loss& a, int64_t i, const OpName& nm, DevError* err,
                                             bool report) {
    const int64_t t = a.target_dtype == NB_U8 ? static_cast<const uint8_t*>(a.target)[i]
                                              : static_cast<const int64_t*>(a.target)[i];
    if (t == a.ignore_index) return -1;
    if (t < 0 || t >= a.C) {
        if (report) claim_error(err, kDevErrorTarget, nm, t, a.C);
        return -1;
    }
    return t;
}

// The log-sum-exp over the classes of the position at x (stride S), every thread of the block getting it.
template <int Code> __device__ double block_lse(const nb_bk_loss& a, int64_t x0, double* sm, double* ss) {
    using A = typename AccOf<Code>::type;
    A m = -INFINITY, e = 0;
    for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x) {
        const A v = ld_acc<Code>(a.input, x0 + c * a.S);
        if (v > m) e = e * exp_acc(m - v) + 1, m = v;  // a first value: 0 * exp(-inf) + 1
        else if (!(v == -INFINITY)) e += exp_acc(v - m);  // NaN makes e NaN
    }
    const int t = threadIdx.x;
    sm[t] = m, ss[t] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            const double m1 = sm[t], m2 = sm[t + s], e1 = ss[t], e2 = ss[t + s];
            const double mm = m1 > m2 ? m1 : m2;
            sm[t] = m1 != m1 || m2 != m2 ? NAN : mm;
            ss[t] = (m1 == -INFINITY ? 0 : e1 * exp(m1 - mm)) + (m2 == -INFINITY ? 0 : e2 * exp(m2 - mm));
        }
        __syncthreads();
    }
    const double lse = sm[0] + log(ss[0]);
    __syncthreads();
    return lse;
}

// Sums v over the block by a fixed tree (blockDim.x a power of two).
__device__ double block_sum(double v, double* sh) {
    const int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    const double r = sh[0];
    __syncthreads();
    return r;
}

// The class weight w_c (1 without weights).
template <int Code> __device__ __forceinline__ double weight_at(const nb_bk_loss& a, int64_t c) {
    return a.weight ? static_cast<double>(ld_acc<Code>(a.weight, c)) : 1.0;
}

// q_c = w_c ((1 - ls) t_c + ls / C) of a probability target (element x0 + c S of the target).
template <int Code> __device__ __forceinline__ double prob_q(const nb_bk_loss& a, int64_t x0, int64_t c) {
    const double t = static_cast<double>(ld_acc<Code>(a.target, x0 + c * a.S));
    return weight_at<Code>(a, c) * ((1 - a.smoothing) * t + a.smoothing / a.C);
}

template <int Code>
__global__ void loss_forward(nb_bk_loss a, OpName nm, DevError* err) {
    __shared__ double sm[kLossThreads], ss[kLossThreads];
    double* ws = static_cast<double*>(a.workspace);
    const bool probs = a.kind == NB_XK_CROSS_ENTROPY_PROBS;
    const bool ce = a.kind == NB_XK_CROSS_ENTROPY || probs;
    for (int64_t i = blockIdx.x; i < a.N * a.S; i += gridDim.x) {
        const int64_t n = i / a.S, x0 = n * a.C * a.S + i % a.S;
        const int64_t t = probs ? 0 : target_at(a, i, nm, err, true);
        const double lse = ce && t >= 0 ? block_lse<Code>(a, x0, sm, ss) : 0.0;
        double l = 0, wt = 0;
        if (probs) {  // -sum_c q_c (x_c - lse), every position counting 1 towards the mean
            double part = 0;
            for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x)
                part += prob_q<Code>(a, x0, c) * (static_cast<double>(ld_acc<Code>(a.input, x0 + c * a.S)) - lse);
            l = -block_sum(part, sm), wt = 1;
        } else if (t >= 0) {
            wt = weight_at<Code>(a, t);
            l = -wt * (static_cast<double>(ld_acc<Code>(a.input, x0 + t * a.S)) - lse);
            if (a.smoothing > 0) {  // -sum_c w_c (x_c - lse)
                double part = 0;
                for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x)
                    part += weight_at<Code>(a, c) * (static_cast<double>(ld_acc<Code>(a.input, x0 + c * a.S)) - lse);
                l = (1 - a.smoothing) * l - a.smoothing / a.C * block_sum(part, sm);
            }
        }
        if (threadIdx.x == 0) {
            ws[2 * i] = l, ws[2 * i + 1] = wt;
            if (a.reduction == NB_REDUCTION_NONE) st_f64<Code>(a.out, i, l);
        }
    }
}

// One block: the totals of the workspace's pairs (forward), or of the kept targets' weights (backward).
template <int Code>
__global__ void loss_total(nb_bk_loss a, OpName nm, DevError* err) {
    __shared__ double sh[kLossThreads];
    double* ws = static_cast<double*>(a.workspace);
    const int64_t P = a.N * a.S;
    double l = 0, w = 0;
    for (int64_t i = threadIdx.x; i < P; i += blockDim.x) {
        if (!a.backward) {
            l += ws[2 * i], w += ws[2 * i + 1];
        } else {
            const int64_t t = target_at(a, i, nm, err, false);
            if (t >= 0) w += weight_at<Code>(a, t);
        }
    }
    l = block_sum(l, sh), w = block_sum(w, sh);
    if (threadIdx.x != 0) return;
    if (a.backward) ws[2 * P] = w;
    else st_f64<Code>(a.out, 0, a.reduction == NB_REDUCTION_SUM ? l : l / w);
}

// Probability targets: dx_c = A (softmax_c sum_k q_k - q_c), A / (N S) under mean.
template <int Code> __device__ void probs_backward(const nb_bk_loss& a, int64_t i, int64_t x0, double* sm,
                                                   double* ss) {
    double A = static_cast<double>(ld_acc<Code>(a.grad, a.reduction == NB_REDUCTION_NONE ? i : 0));
    if (a.reduction == NB_REDUCTION_MEAN) A /= static_cast<double>(a.N * a.S);
    const double lse = block_lse<Code>(a, x0, sm, ss);
    double part = 0;
    for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x) part += prob_q<Code>(a, x0, c);
    const double sumq = block_sum(part, sm);
    for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x) {
        const double p = exp(static_cast<double>(ld_acc<Code>(a.input, x0 + c * a.S)) - lse);
        st_f64<Code>(a.out, x0 + c * a.S, A * (p * sumq - prob_q<Code>(a, x0, c)));
    }
}

template <int Code>
__global__ void loss_backward(nb_bk_loss a, OpName nm, DevError* err) {
    __shared__ double sm[kLossThreads], ss[kLossThreads];
    const double* ws = static_cast<const double*>(a.workspace);
    const bool ce = a.kind == NB_XK_CROSS_ENTROPY;
    const double ls = ce ? a.smoothing : 0.0;
    for (int64_t i = blockIdx.x; i < a.N * a.S; i += gridDim.x) {
        const int64_t n = i / a.S, x0 = n * a.C * a.S + i % a.S;
        if (a.kind == NB_XK_CROSS_ENTROPY_PROBS) {
            probs_backward<Code>(a, i, x0, sm, ss);
            continue;
        }
        const int64_t t = target_at(a, i, nm, err, true);
        double A = 0;
        if (t >= 0) {
            A = static_cast<double>(ld_acc<Code>(a.grad, a.reduction == NB_REDUCTION_NONE ? i : 0));
            if (a.reduction == NB_REDUCTION_MEAN) A /= ws[2 * a.N * a.S];
        }
        const double lse = ce ? block_lse<Code>(a, x0, sm, ss) : 0.0;
        double wsum = 0;  // sum_c w_c, for sum_k q_k under smoothing
        if (ce && ls > 0) {
            double part = 0;
            for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x) part += weight_at<Code>(a, c);
            wsum = block_sum(part, sm);
        }
        const double wt = t >= 0 ? weight_at<Code>(a, t) : 1.0;
        const double sumq = (1 - ls) * wt + ls / a.C * wsum;
        for (int64_t c = threadIdx.x; c < a.C; c += blockDim.x) {
            const double q = weight_at<Code>(a, c) * ((1 - ls) * (c == t) + ls / a.C);
            double g;
            if (ce) {
                const double p = exp(static_cast<double>(ld_acc<Code>(a.input, x0 + c * a.S)) - lse);
                g = A * (p * sumq - q);
            } else {
                g = -A * q;
            }
            st_f64<Code>(a.out, x0 + c * a.S, A == 0 ? 0.0 : g);
        }
    }
}

int threads_for(int64_t C) {
    int t = 32;
    while (t < kLossThreads && t < C) t *= 2;
    return t;
}

template <int Code> cudaError_t launch(const nb_bk_loss& a, DevError* err, cudaStream_t s) {
    const OpName nm = op_name(a.name);
    const int64_t P = a.N * a.S;
    const unsigned blocks = static_cast<unsigned>(P < 65535 * 8 ? P : 65535 * 8);
    const int t = threads_for(a.C);
    if (!a.backward) {
        NB_LAUNCH(dim3(blocks), dim3(t), 0, s, loss_forward<Code>)(a, nm, err);
        if (a.reduction != NB_REDUCTION_NONE && cudaPeekAtLastError() == cudaSuccess)
            NB_LAUNCH(dim3(1), dim3(kLossThreads), 0, s, loss_total<Code>)(a, nm, err);
        return cudaGetLastError();
    }
    if (a.reduction == NB_REDUCTION_MEAN && a.kind != NB_XK_CROSS_ENTROPY_PROBS) {  // the kept targets' weight
        NB_LAUNCH(dim3(1), dim3(kLossThreads), 0, s, loss_total<Code>)(a, nm, err);
        if (cudaPeekAtLastError() != cudaSuccess) return cudaGetLastError();
    }
    NB_LAUNCH(dim3(blocks), dim3(t), 0, s, loss_backward<Code>)(a, nm, err);
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_loss(const nb_bk_loss* args, void* device_error, cudaStream_t stream) {
    nbcuda::DevError* err = static_cast<nbcuda::DevError*>(device_error);
    return nbcuda::by_float_dtype(args->dtype, [&](auto code) {
        return nbcuda::launch<decltype(code)::value>(*args, err, stream);
    });
}
