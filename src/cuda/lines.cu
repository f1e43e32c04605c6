// lines.cu: the plugin's lines entry (plans the launch, lines_plan.h) and the
// softmax, log_softmax, their backward, cumsum and cumprod kernels for float16,
// bfloat16, float32, float64 (and int64 for the scans).
//
// Per row, a group of tpr threads shares a line:
//   - softmax / log_softmax: one read pass keeping an online (max, sum of
//     exp(x - max)) per thread, a fixed tree over the group in shared memory,
//     then a write pass;
//   - backward: a read pass summing g y (softmax) or g (log_softmax), the same
//     tree, then a write pass;
//   - scans: chunks of tpr * kScanPer elements; each thread scans its kScanPer
//     consecutive elements, a Hillis-Steele scan over the threads' totals gives
//     their prefixes, and a carry runs from chunk to chunk.
// Per thread, a thread walks its line in order (softmax: the same online pass,
// then the write pass). Every combination order is fixed by the launch shape.
#include "dtypes.cuh"
#include "kernels.h"
#include "launch.h"
#include "lines_plan.h"

#include <cmath>

namespace nbcuda {
namespace {

constexpr int kScanPer = 4;  // consecutive elements per thread in a scan chunk

template <int C> struct AccOf { using type = float; };
template <> struct AccOf<NB_F64> { using type = double; };
template <> struct AccOf<NB_I64> { using type = int64_t; };

template <int C> __device__ __forceinline__ typename AccOf<C>::type ld(const typename Storage<C>::type* p) {
    using A = typename AccOf<C>::type;
    if constexpr (C == NB_F16 || C == NB_BF16) return load_f32<C>(*p);
    else return static_cast<A>(*p);
}

template <int C> __device__ __forceinline__ void st(typename Storage<C>::type* p, typename AccOf<C>::type v) {
    if constexpr (C == NB_F16) *p = __float2half_rn(v);
    else if constexpr (C == NB_BF16) *p = __float2bfloat16_rn(v);
    else *p = v;
}

__device__ __forceinline__ float ex(float x) { return expf(x); }
__device__ __forceinline__ double ex(double x) { return exp(x); }
__device__ __forceinline__ float lg(float x) { return logf(x); }
__device__ __forceinline__ double lg(double x) { return log(x); }

// Line dims and strides, by value in the kernels' arguments.
struct LineArgs {
    const void* in;
    const void* aux;
    void* out;
    int64_t len, lines, in_ls, aux_ls, out_ls;
    int32_t no, tpr;
    int64_t oshape[NB_MAX_DIMS], oin[NB_MAX_DIMS], oaux[NB_MAX_DIMS], oout[NB_MAX_DIMS];
};

__device__ __forceinline__ void line_offsets(const LineArgs& a, int64_t r, int64_t& io, int64_t& ao, int64_t& oo) {
    io = 0, ao = 0, oo = 0;
    for (int k = a.no - 1; k >= 0; k--) {
        const int64_t q = r % a.oshape[k];
        r /= a.oshape[k];
        io += q * a.oin[k], ao += q * a.oaux[k], oo += q * a.oout[k];
    }
}

// (max, sum of exp(x - max)) with one more element; -inf adds nothing.
template <typename A> __device__ __forceinline__ void online_step(A& m, A& s, A x) {
    if (x > m) {
        s = s * ex(m - x) + A(1);  // m == -inf: s is 0 and exp(-inf) is 0
        m = x;
    } else if (x != -INFINITY) {
        s += ex(x - m);  // NaN x: s becomes NaN
    }
}

// A partial (mi, s) rescaled to the max m. A partial that saw only -inf (and NaN) has s 0 (or NaN, kept).
template <typename A> __device__ __forceinline__ A rescale(A s, A mi, A m) {
    return mi == -INFINITY ? (s == A(0) ? A(0) : s) : s * ex(mi - m);
}

// A max of +inf is NaN - +inf for every element (as x - max on the CPU): the line is NaN.
template <typename A> __device__ __forceinline__ A finish_sum(A m, A s) { return m == INFINITY ? A(NAN) : s; }

// One output of softmax (exp(x - m) k, k = 1 / sum) or log_softmax (x - m - k, k = log(sum)).
template <int C, bool Log>
__device__ __forceinline__ void softmax_write(const typename Storage<C>::type* x, typename Storage<C>::type* o,
                                              typename AccOf<C>::type m, typename AccOf<C>::type k) {
    using A = typename AccOf<C>::type;
    const A v = ld<C>(x);
    st<C>(o, Log ? (v - m) - k : ex(v - m) * k);
}

template <int C, int Op>
__device__ __forceinline__ typename AccOf<C>::type bw_term(const typename Storage<C>::type* g,
                                                           const typename Storage<C>::type* y) {
    if constexpr (Op == NB_LK_SOFTMAX_BACKWARD) return ld<C>(g) * ld<C>(y);
    else return ld<C>(g);
}

template <int C, int Op>
__device__ __forceinline__ void bw_write(const typename Storage<C>::type* g, const typename Storage<C>::type* y,
                                         typename Storage<C>::type* o, typename AccOf<C>::type s) {
    if constexpr (Op == NB_LK_SOFTMAX_BACKWARD) st<C>(o, ld<C>(y) * (ld<C>(g) - s));
    else st<C>(o, ld<C>(g) - ex(ld<C>(y)) * s);
}

template <int Op, typename A> __device__ __forceinline__ A scan_op(A a, A b) {
    if constexpr (Op == NB_LK_CUMPROD) return a * b;
    else return a + b;
}

template <int Op, typename A> __device__ __forceinline__ A scan_id() { return Op == NB_LK_CUMPROD ? A(1) : A(0); }

// ---- per row: a group of a.tpr threads per line ----

template <int C, int Op>
__global__ void lines_per_row(LineArgs a) {
    using T = typename Storage<C>::type;
    using A = typename AccOf<C>::type;
    __shared__ A sh0[kLinesThreads];
    __shared__ A sh1[kLinesThreads];
    const int tpr = a.tpr, tid = threadIdx.x, lane = tid % tpr, base = tid - lane;
    const int64_t rpb = kLinesThreads / tpr, groups = (a.lines + rpb - 1) / rpb;
    // every thread of the block runs the same iterations (the barriers), idle ones past the last line
    for (int64_t gi = blockIdx.x; gi < groups; gi += gridDim.x) {
        const int64_t r = gi * rpb + tid / tpr;
        const bool active = r < a.lines;
        int64_t io = 0, ao = 0, oo = 0;
        if (active) line_offsets(a, r, io, ao, oo);
        const T* x = static_cast<const T*>(a.in) + io;
        T* o = static_cast<T*>(a.out) + oo;
        if constexpr (Op == NB_LK_SOFTMAX || Op == NB_LK_LOG_SOFTMAX) {
            A m = -INFINITY, s = 0;
            if (active)
                for (int64_t i = lane; i < a.len; i += tpr) online_step(m, s, ld<C>(x + i * a.in_ls));
            sh0[tid] = m, sh1[tid] = s;
            __syncthreads();
            for (int off = tpr / 2; off > 0; off >>= 1) {
                if (lane < off) {
                    const A m1 = sh0[tid], m2 = sh0[tid + off];
                    const A mm = m2 > m1 ? m2 : m1;
                    sh1[tid] = rescale(sh1[tid], m1, mm) + rescale(sh1[tid + off], m2, mm);
                    sh0[tid] = mm;  // never NaN: a NaN element makes the sum NaN instead
                }
                __syncthreads();
            }
            m = sh0[base], s = finish_sum(sh0[base], sh1[base]);
            __syncthreads();  // sh0 / sh1 are reused by the next group
            const A k = Op == NB_LK_LOG_SOFTMAX ? lg(s) : A(1) / s;
            if (active)
                for (int64_t i = lane; i < a.len; i += tpr)
                    softmax_write<C, Op == NB_LK_LOG_SOFTMAX>(x + i * a.in_ls, o + i * a.out_ls, m, k);
        } else if constexpr (Op == NB_LK_SOFTMAX_BACKWARD || Op == NB_LK_LOG_SOFTMAX_BACKWARD) {
            const T* y = static_cast<const T*>(a.aux) + ao;
            A s = 0;
            if (active)
                for (int64_t i = lane; i < a.len; i += tpr) s += bw_term<C, Op>(x + i * a.in_ls, y + i * a.aux_ls);
            sh0[tid] = s;
            __syncthreads();
            for (int off = tpr / 2; off > 0; off >>= 1) {
                if (lane < off) sh0[tid] += sh0[tid + off];
                __syncthreads();
            }
            s = sh0[base];
            __syncthreads();
            if (active)
                for (int64_t i = lane; i < a.len; i += tpr)
                    bw_write<C, Op>(x + i * a.in_ls, y + i * a.aux_ls, o + i * a.out_ls, s);
        } else {  // cumsum / cumprod
            A carry = scan_id<Op, A>();
            for (int64_t c0 = 0; c0 < a.len; c0 += static_cast<int64_t>(tpr) * kScanPer) {
                const int64_t i0 = c0 + static_cast<int64_t>(lane) * kScanPer;
                A v[kScanPer];
                A acc = scan_id<Op, A>();
                for (int k = 0; k < kScanPer; k++) {
                    if (active && i0 + k < a.len) acc = scan_op<Op>(acc, ld<C>(x + (i0 + k) * a.in_ls));
                    v[k] = acc;
                }
                sh0[tid] = acc;
                __syncthreads();
                for (int off = 1; off < tpr; off <<= 1) {
                    const A left = lane >= off ? sh0[tid - off] : scan_id<Op, A>();
                    __syncthreads();
                    sh0[tid] = scan_op<Op>(left, sh0[tid]);
                    __syncthreads();
                }
                const A before = scan_op<Op>(carry, lane > 0 ? sh0[tid - 1] : scan_id<Op, A>());
                if (active)
                    for (int k = 0; k < kScanPer && i0 + k < a.len; k++)
                        st<C>(o + (i0 + k) * a.out_ls, scan_op<Op>(before, v[k]));
                carry = scan_op<Op>(carry, sh0[base + tpr - 1]);
                __syncthreads();
            }
        }
    }
}

// ---- per thread: one line each, in order ----

template <int C, int Op>
__global__ void lines_per_thread(LineArgs a) {
    using T = typename Storage<C>::type;
    using A = typename AccOf<C>::type;
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < a.lines; r += step) {
        int64_t io, ao, oo;
        line_offsets(a, r, io, ao, oo);
        const T* x = static_cast<const T*>(a.in) + io;
        T* o = static_cast<T*>(a.out) + oo;
        if constexpr (Op == NB_LK_SOFTMAX || Op == NB_LK_LOG_SOFTMAX) {
            A m = -INFINITY, s = 0;
            for (int64_t i = 0; i < a.len; i++) online_step(m, s, ld<C>(x + i * a.in_ls));
            s = finish_sum(m, s);
            const A k = Op == NB_LK_LOG_SOFTMAX ? lg(s) : A(1) / s;
            for (int64_t i = 0; i < a.len; i++)
                softmax_write<C, Op == NB_LK_LOG_SOFTMAX>(x + i * a.in_ls, o + i * a.out_ls, m, k);
        } else if constexpr (Op == NB_LK_SOFTMAX_BACKWARD || Op == NB_LK_LOG_SOFTMAX_BACKWARD) {
            const T* y = static_cast<const T*>(a.aux) + ao;
            A s = 0;
            for (int64_t i = 0; i < a.len; i++) s += bw_term<C, Op>(x + i * a.in_ls, y + i * a.aux_ls);
            for (int64_t i = 0; i < a.len; i++) bw_write<C, Op>(x + i * a.in_ls, y + i * a.aux_ls, o + i * a.out_ls, s);
        } else {
            A acc = scan_id<Op, A>();
            for (int64_t i = 0; i < a.len; i++) {
                acc = scan_op<Op>(acc, ld<C>(x + i * a.in_ls));
                st<C>(o + i * a.out_ls, acc);
            }
        }
    }
}

template <int C, int Op>
cudaError_t lines_launch(const LinesPlan& pl, cudaStream_t stream) {
    LineArgs a;
    a.in = pl.in, a.aux = pl.aux, a.out = pl.out;
    a.len = pl.len, a.lines = pl.lines, a.in_ls = pl.in_ls, a.aux_ls = pl.aux_ls, a.out_ls = pl.out_ls;
    a.no = pl.no, a.tpr = pl.tpr;
    for (int k = 0; k < NB_MAX_DIMS; k++) {
        const bool used = k < pl.no;
        a.oshape[k] = used ? pl.oshape[k] : 1, a.oin[k] = used ? pl.oin[k] : 0;
        a.oaux[k] = used ? pl.oaux[k] : 0, a.oout[k] = used ? pl.oout[k] : 0;
    }
    if (pl.per_row) {
        const int64_t rpb = kLinesThreads / pl.tpr;
        return launch(&lines_per_row<C, Op>, grid_for((pl.lines + rpb - 1) / rpb, 1), kLinesThreads, 0, stream, a);
    }
    return launch(&lines_per_thread<C, Op>, grid_for(pl.lines, kLinesThreads), kLinesThreads, 0, stream, a);
}

template <int C>
cudaError_t lines_op(const LinesPlan& pl, cudaStream_t s) {
    switch (pl.op) {
        case NB_LK_CUMSUM: return lines_launch<C, NB_LK_CUMSUM>(pl, s);
        case NB_LK_CUMPROD: return lines_launch<C, NB_LK_CUMPROD>(pl, s);
        default: break;
    }
    if constexpr (C == NB_I64) {
        return cudaErrorInvalidValue;
    } else {
        switch (pl.op) {
            case NB_LK_SOFTMAX: return lines_launch<C, NB_LK_SOFTMAX>(pl, s);
            case NB_LK_LOG_SOFTMAX: return lines_launch<C, NB_LK_LOG_SOFTMAX>(pl, s);
            case NB_LK_SOFTMAX_BACKWARD: return lines_launch<C, NB_LK_SOFTMAX_BACKWARD>(pl, s);
            case NB_LK_LOG_SOFTMAX_BACKWARD: return lines_launch<C, NB_LK_LOG_SOFTMAX_BACKWARD>(pl, s);
            default: return cudaErrorInvalidValue;
        }
    }
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_lines(const nb_bk_lines* args, cudaStream_t stream) {
    nbcuda::LinesPlan pl;
    if (!nbcuda::lines_plan(*args, pl)) return cudaErrorInvalidValue;
    if (pl.lines == 0 || pl.len == 0) return cudaSuccess;
    switch (pl.dtype) {
        case NB_F32: return nbcuda::lines_op<NB_F32>(pl, stream);
        case NB_F64: return nbcuda::lines_op<NB_F64>(pl, stream);
        case NB_F16: return nbcuda::lines_op<NB_F16>(pl, stream);
        case NB_BF16: return nbcuda::lines_op<NB_BF16>(pl, stream);
        case NB_I64: return nbcuda::lines_op<NB_I64>(pl, stream);
        default: return cudaErrorInvalidValue;
    }
}
