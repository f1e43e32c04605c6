// reduce.cuh: the reduction kernels (see reduce_plan.h for the launch shapes).
// An op is a struct over an accumulator: init, step (fold one element, with
// its flat index in the reduced range), combine (fold a partial), shfl (move
// a partial down a warp) and finish (write the outputs); with kChunk it also
// folds a whole 16-byte chunk at once (fold_chunk). Float16 / bfloat16
// accumulate in float, float32 in float, float64 in double, integers in int64
// (wrapping, as the CPU kernels). Every partial is combined in an order fixed
// by the launch shape, so results are identical from run to run.
#ifndef NABLA_CUDA_REDUCE_CUH_
#define NABLA_CUDA_REDUCE_CUH_

#include <cmath>
#include <type_traits>

#include "dtypes.cuh"
#include "launch.h"
#include "reduce_plan.h"

namespace nbcuda {

struct RedDims {
    int32_t nk, nr;
    int64_t kshape[NB_MAX_DIMS], kin[NB_MAX_DIMS], kout[2][NB_MAX_DIMS];
    int64_t rshape[NB_MAX_DIMS], rin[NB_MAX_DIMS];
};

struct RedOut {
    char* out[2];
    int32_t dtype[2];
    int64_t size[2];   // bytes per output element
    int64_t count;     // elements per output
    double p, correction;
    int32_t op;
};

template <typename V> __device__ __forceinline__ V shfl_down(V v, int off) {
    if constexpr (sizeof(V) < 4) return static_cast<V>(__shfl_down_sync(0xffffffffu, static_cast<int>(v), off));
    else return __shfl_down_sync(0xffffffffu, v, off);
}

// The float type a float dtype accumulates in.
template <int IC> using FloatAcc = typename std::conditional<IC == NB_F64, double, float>::type;

template <int IC, typename A> __device__ __forceinline__ A load_as(typename Storage<IC>::type x) {
    if constexpr (is_float_code(IC)) {
        if constexpr (std::is_same<A, double>::value) return load_f64<IC>(x);
        else return static_cast<A>(load_f32<IC>(x));
    } else {
        return static_cast<A>(x);
    }
}

__device__ __forceinline__ int64_t wrap_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
__device__ __forceinline__ int64_t wrap_mul(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// sum, mean (floats: sum / count), prod
template <int IC, bool Prod>
struct SumOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    static constexpr bool kFloat = is_float_code(IC);
    using Acc = typename std::conditional<kFloat, FloatAcc<IC>, int64_t>::type;
    __device__ static Acc init(const RedOut&) { return Prod ? Acc(1) : Acc(0); }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) {
        if constexpr (kFloat) return Prod ? a * b : a + b;
        else return Prod ? wrap_mul(a, b) : wrap_add(a, b);
    }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut& r) { return combine(a, load_as<IC, Acc>(x), r); }
    __device__ static Acc shfl(Acc a, int off) { return shfl_down(a, off); }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) {
        if constexpr (kFloat)
            store_f64(o0, r.dtype[0], r.op == NB_RK_MEAN ? static_cast<double>(a) / static_cast<double>(r.count)
                                                         : static_cast<double>(a));
        else store_i64(o0, r.dtype[0], a);
    }
};

// amax, amin: NaN propagates
template <int IC, bool Max>
struct ExtOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    static constexpr bool kFloat = is_float_code(IC);
    using Acc = typename std::conditional<kFloat, FloatAcc<IC>, T>::type;
    __device__ static Acc init(const RedOut&) {
        if constexpr (kFloat) return Max ? -Acc(INFINITY) : Acc(INFINITY);
        else if constexpr (std::is_signed<T>::value)
            return Max ? static_cast<T>(static_cast<uint64_t>(1) << (sizeof(T) * 8 - 1))
                       : static_cast<T>((static_cast<uint64_t>(1) << (sizeof(T) * 8 - 1)) - 1);
        else return Max ? T(0) : T(~T(0));
    }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) {
        if constexpr (kFloat) return ((Max ? b > a : b < a) || b != b) ? b : a;
        else return (Max ? b > a : b < a) ? b : a;
    }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut& r) { return combine(a, load_as<IC, Acc>(x), r); }
    __device__ static Acc shfl(Acc a, int off) { return shfl_down(a, off); }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) {
        if constexpr (kFloat) store_f64(o0, r.dtype[0], static_cast<double>(a));
        else store_i64(o0, r.dtype[0], static_cast<int64_t>(a));
    }
};

// all, any
template <int IC, bool All>
struct LogicOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    using Acc = uint8_t;
    __device__ static Acc init(const RedOut&) { return All ? 1 : 0; }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) { return All ? (a & b) : (a | b); }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut& r) {
        Acc nz;
        if constexpr (is_float_code(IC)) nz = load_f32<IC>(x) != 0.0f;
        else nz = x != 0;
        return combine(a, nz, r);
    }
    __device__ static Acc shfl(Acc a, int off) { return shfl_down(a, off); }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) { store_i64(o0, r.dtype[0], a); }
};

// max / min with the first index (argmax, argmin): a NaN beats every number, the first NaN wins
template <int IC, bool Max>
struct ArgOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    static constexpr bool kFloat = is_float_code(IC);
    using V = typename std::conditional<kFloat, FloatAcc<IC>, T>::type;
    struct Acc { V v; int64_t i; };
    __device__ static Acc init(const RedOut&) { return Acc{V(0), -1}; }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) {
        if (b.i < 0) return a;
        if (a.i < 0) return b;
        const bool an = a.v != a.v, bn = b.v != b.v;
        if (an || bn) return (an && bn) ? (b.i < a.i ? b : a) : (bn ? b : a);
        if (Max ? b.v > a.v : b.v < a.v) return b;
        if (b.v == a.v && b.i < a.i) return b;
        return a;
    }
    __device__ static Acc step(Acc a, T x, int64_t i, const RedOut& r) { return combine(a, Acc{load_as<IC, V>(x), i}, r); }
    __device__ static Acc shfl(Acc a, int off) { return Acc{shfl_down(a.v, off), shfl_down(a.i, off)}; }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char* o1) {
        if (o0) {
            if constexpr (kFloat) store_f64(o0, r.dtype[0], static_cast<double>(a.v));
            else store_i64(o0, r.dtype[0], static_cast<int64_t>(a.v));
        }
        if (o1) *reinterpret_cast<int64_t*>(o1) = a.i < 0 ? 0 : a.i;
    }
};

// var, std: Welford per thread, Chan's formula between partials
template <int IC>
struct VarOp {
    using T = typename Storage<IC>::type;
    using A = FloatAcc<IC>;
    struct Acc { double n; A mean, m2; };
    __device__ static Acc init(const RedOut&) { return Acc{0.0, A(0), A(0)}; }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) {
        if (b.n == 0) return a;
        if (a.n == 0) return b;
        const double tot = a.n + b.n;
        const A delta = b.mean - a.mean;
        a.mean += delta * static_cast<A>(b.n / tot);
        a.m2 += b.m2 + delta * delta * static_cast<A>(a.n * b.n / tot);
        a.n = tot;
        return a;
    }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut&) {
        const A e = load_as<IC, A>(x);
        a.n += 1;
        const A d = e - a.mean;
        a.mean += d / static_cast<A>(a.n);
        a.m2 += d * (e - a.mean);
        return a;
    }
    __device__ static Acc shfl(Acc a, int off) {
        return Acc{shfl_down(a.n, off), shfl_down(a.mean, off), shfl_down(a.m2, off)};
    }
    // A whole 16-byte chunk at once: its mean and squared deviations, then Chan's
    // formula with the running partial (one division per chunk, not per element).
    static constexpr bool kChunk = true;
    template <int V> __device__ static Acc fold_chunk(Acc a, const T (&x)[V], const RedOut&) {
        A e[V], t[V];
        for (int j = 0; j < V; j++) t[j] = e[j] = load_as<IC, A>(x[j]);
        for (int w = V / 2; w > 0; w >>= 1)
            for (int j = 0; j < w; j++) t[j] += t[j + w];
        const A mean = t[0] * (A(1) / A(V));  // V is a power of two: exact
        A m2 = A(0);
        for (int j = 0; j < V; j++) m2 += (e[j] - mean) * (e[j] - mean);
        if (a.n == 0) return Acc{static_cast<double>(V), mean, m2};
        const A na = static_cast<A>(a.n), w = A(V) / (na + A(V)), delta = mean - a.mean;
        a.mean += delta * w;
        a.m2 += m2 + delta * delta * na * w;
        a.n += V;
        return a;
    }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) {
        const double dof = a.n - r.correction;
        const double v = static_cast<double>(a.m2) / (dof > 0 ? dof : 0.0);
        store_f64(o0, r.dtype[0], r.op == NB_RK_STD ? sqrt(v) : v);
    }
};

// vector norms: p = 0 (count of non-zeros), 1, 2, inf, -inf, any other p
template <int IC>
struct NormOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    using Acc = FloatAcc<IC>;
    __device__ static Acc init(const RedOut& r) { return r.p == -INFINITY ? Acc(INFINITY) : Acc(0); }
    __device__ static Acc combine(Acc a, Acc b, const RedOut& r) {
        if (r.p == INFINITY) return (b > a || b != b) ? b : a;
        if (r.p == -INFINITY) return (b < a || b != b) ? b : a;
        return a + b;
    }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut& r) {
        const Acc e = fabs(load_as<IC, Acc>(x));
        if (r.p == 0) return a + Acc(e != 0);
        if (r.p == 1) return a + e;
        if (r.p == 2) return a + e * e;
        if (r.p == INFINITY || r.p == -INFINITY) return combine(a, e, r);
        return a + static_cast<Acc>(pow(static_cast<double>(e), r.p));
    }
    __device__ static Acc shfl(Acc a, int off) { return shfl_down(a, off); }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) {
        const double v = static_cast<double>(a);
        const bool general = r.p != 0 && r.p != 1 && r.p != 2 && r.p != INFINITY && r.p != -INFINITY;
        store_f64(o0, r.dtype[0], r.p == 2 ? sqrt(v) : general ? pow(v, 1.0 / r.p) : v);
    }
};

// logsumexp: (max, sum of exp(x - max)), folded as the CPU's lse_fold
template <int IC>
struct LseOp {
    using T = typename Storage<IC>::type;
    static constexpr bool kChunk = false;
    using A = FloatAcc<IC>;
    struct Acc { A mx, s; };
    __device__ static Acc init(const RedOut&) { return Acc{-A(INFINITY), A(0)}; }
    __device__ static Acc combine(Acc a, Acc b, const RedOut&) {
        if (b.mx != b.mx || a.mx != a.mx) return Acc{A(NAN), a.s};
        if (b.mx == -A(INFINITY)) return a;
        if (a.mx == -A(INFINITY)) return b;
        if (b.mx == A(INFINITY) || a.mx == A(INFINITY)) return Acc{A(INFINITY), a.s};
        if (b.mx > a.mx) return Acc{b.mx, a.s * A(exp(a.mx - b.mx)) + b.s};
        return Acc{a.mx, a.s + b.s * A(exp(b.mx - a.mx))};
    }
    __device__ static Acc step(Acc a, T x, int64_t, const RedOut& r) { return combine(a, Acc{load_as<IC, A>(x), A(1)}, r); }
    __device__ static Acc shfl(Acc a, int off) { return Acc{shfl_down(a.mx, off), shfl_down(a.s, off)}; }
    __device__ static void finish(Acc a, const RedOut& r, char* o0, char*) {
        const double mx = static_cast<double>(a.mx);
        store_f64(o0, r.dtype[0], isfinite(mx) ? mx + log(static_cast<double>(a.s)) : mx);
    }
};

__device__ __forceinline__ void output_offsets(const RedDims& d, int64_t o, int64_t& in, int64_t& o0, int64_t& o1) {
    if (d.nk == 1) {  // o < kshape[0]: no division
        in = o * d.kin[0], o0 = o * d.kout[0][0], o1 = o * d.kout[1][0];
        return;
    }
    in = o0 = o1 = 0;
    for (int k = d.nk - 1; k >= 0; k--) {
        const int64_t idx = o % d.kshape[k];
        o /= d.kshape[k];
        in += idx * d.kin[k];
        o0 += idx * d.kout[0][k];
        o1 += idx * d.kout[1][k];
    }
}

__device__ __forceinline__ int64_t reduced_offset(const RedDims& d, int64_t r) {
    if (d.nr == 1) return r * d.rin[0];
    int64_t off = 0;
    for (int k = d.nr - 1; k >= 0; k--) {
        off += (r % d.rshape[k]) * d.rin[k];
        r /= d.rshape[k];
    }
    return off;
}

template <class Op>
__device__ __forceinline__ void finish_output(typename Op::Acc a, const RedOut& r, int64_t o0, int64_t o1) {
    Op::finish(a, r, r.out[0] ? r.out[0] + o0 * r.size[0] : nullptr, r.out[1] ? r.out[1] + o1 * r.size[1] : nullptr);
}

// Combines the block's partials: a warp-shuffle tree in each warp, then one over
// the warps' results (blockDim.x == kReduceThreads). The result is in thread 0.
template <class Op>
__device__ __forceinline__ typename Op::Acc block_combine(typename Op::Acc a, const RedOut& r,
                                                          typename Op::Acc* partial) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) a = Op::combine(a, Op::shfl(a, off), r);
    if (lane == 0) partial[warp] = a;
    __syncthreads();
    if (warp == 0) {
        a = lane < kReduceThreads / 32 ? partial[lane] : Op::init(r);
        for (int off = 16; off > 0; off >>= 1) a = Op::combine(a, Op::shfl(a, off), r);
    }
    __syncthreads();  // partial is reused by the block's next output
    return a;
}

// One block per output: strided fold per thread, then block_combine.
template <class Op>
__global__ void reduce_per_block(const typename Op::T* __restrict__ in, RedDims d, RedOut r, int64_t outputs) {
    using Acc = typename Op::Acc;
    __shared__ Acc partial[kReduceThreads / 32];
    for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
        int64_t ioff, o0, o1;
        output_offsets(d, o, ioff, o0, o1);
        const typename Op::T* x = in + ioff;
        Acc a = Op::init(r);
        for (int64_t i = threadIdx.x; i < r.count; i += blockDim.x) a = Op::step(a, x[reduced_offset(d, i)], i, r);
        a = block_combine<Op>(a, r, partial);
        if (threadIdx.x == 0) finish_output<Op>(a, r, o0, o1);
    }
}

// Split, first pass: block b folds chunk b % splits of output b / splits into ws[b].
template <class Op>
__global__ void reduce_split_partial(const typename Op::T* __restrict__ in, RedDims d, RedOut r, int64_t splits,
                                     int64_t chunk, typename Op::Acc* __restrict__ ws) {
    using Acc = typename Op::Acc;
    __shared__ Acc partial[kReduceThreads / 32];
    const int64_t b = blockIdx.x, o = b / splits, lo = (b % splits) * chunk;
    const int64_t hi = lo + chunk < r.count ? lo + chunk : r.count;
    int64_t ioff, o0, o1;
    output_offsets(d, o, ioff, o0, o1);
    const typename Op::T* x = in + ioff;
    Acc a = Op::init(r);
    for (int64_t i = lo + threadIdx.x; i < hi; i += blockDim.x) a = Op::step(a, x[reduced_offset(d, i)], i, r);
    a = block_combine<Op>(a, r, partial);
    if (threadIdx.x == 0) ws[b] = a;
}

// Split, second pass: block o combines its splits (<= kReduceThreads) partials in order and finishes.
template <class Op>
__global__ void reduce_split_finish(RedDims d, RedOut r, int64_t splits, const typename Op::Acc* __restrict__ ws) {
    using Acc = typename Op::Acc;
    __shared__ Acc partial[kReduceThreads / 32];
    const int64_t o = blockIdx.x;
    Acc a = threadIdx.x < splits ? ws[o * splits + threadIdx.x] : Op::init(r);
    a = block_combine<Op>(a, r, partial);
    if (threadIdx.x == 0) {
        int64_t ioff, o0, o1;
        output_offsets(d, o, ioff, o0, o1);
        finish_output<Op>(a, r, o0, o1);
    }
}

// One thread per output, folding its range in order.
template <class Op>
__global__ void reduce_per_thread(const typename Op::T* __restrict__ in, RedDims d, RedOut r, int64_t outputs) {
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < outputs; o += step) {
        int64_t ioff, o0, o1;
        output_offsets(d, o, ioff, o0, o1);
        const typename Op::T* x = in + ioff;
        typename Op::Acc a = Op::init(r);
        for (int64_t i = 0; i < r.count; i++) a = Op::step(a, x[reduced_offset(d, i)], i, r);
        finish_output<Op>(a, r, o0, o1);
    }
}

// ---- rows, cols and the second pass over their pieces (reduce_plan.h) ----

template <bool Vector, typename T, int V> __device__ __forceinline__ void load_chunk(T (&x)[V], const T* p) {
    if constexpr (Vector) {  // p is 16-byte aligned
        const uint4 raw = *reinterpret_cast<const uint4*>(p);
        memcpy(static_cast<void*>(x), &raw, sizeof raw);
    } else {
        for (int j = 0; j < V; j++) x[j] = p[j];
    }
}

// A thread's accumulators over 16-byte chunks: lane j folds element j of each
// chunk (or, for ops with kChunk, lane 0 folds whole chunks); `result` combines
// the lanes in a fixed tree.
template <class Op, int V>
struct Lanes {
    using Acc = typename Op::Acc;
    using T = typename Op::T;
    Acc a[V];
    __device__ __forceinline__ void init(const RedOut& r) {
        for (int j = 0; j < V; j++) a[j] = Op::init(r);
    }
    __device__ __forceinline__ void fold(const T (&x)[V], int64_t i0, const RedOut& r) {
        if constexpr (Op::kChunk) a[0] = Op::template fold_chunk<V>(a[0], x, r);
        else
            for (int j = 0; j < V; j++) a[j] = Op::step(a[j], x[j], i0 + j, r);
    }
    __device__ __forceinline__ void fold_first(const T (&x)[V], int n, int64_t i0, const RedOut& r) {
        for (int j = 0; j < n; j++) a[Op::kChunk ? 0 : j] = Op::step(a[Op::kChunk ? 0 : j], x[j], i0 + j, r);
    }
    __device__ __forceinline__ Acc result(const RedOut& r) {
        if constexpr (!Op::kChunk)
            for (int w = V / 2; w > 0; w >>= 1)
                for (int j = 0; j < w; j++) a[j] = Op::combine(a[j], a[j + w], r);
        return a[0];
    }
};

// Combines the partials of a group of 1, 32 or kReduceThreads threads (a warp
// or the block; group-uniform). The result is in the group's first thread.
template <class Op>
__device__ __forceinline__ typename Op::Acc group_combine(typename Op::Acc a, int group, const RedOut& r,
                                                          typename Op::Acc* partial) {
    if (group == 1) return a;
    if (group == kReduceThreads) return block_combine<Op>(a, r, partial);
    for (int off = 16; off > 0; off >>= 1) a = Op::combine(a, Op::shfl(a, off), r);
    return a;
}

// Folds a row's full chunks c, c + group, ... below fe into acc; returns the first c at or past fe.
template <bool Vector, class Op, int V>
__device__ __forceinline__ int64_t fold_chunks(Lanes<Op, V>& acc, const typename Op::T* x, int64_t c, int64_t fe,
                                               int group, const RedOut& r) {
    using T = typename Op::T;
    for (; c + 3 * group < fe; c += 4 * group) {  // four loads in flight, folded in order
        T v[4][V];
        for (int u = 0; u < 4; u++) load_chunk<Vector>(v[u], x + (c + u * group) * V);
        for (int u = 0; u < 4; u++) acc.fold(v[u], (c + u * group) * V, r);
    }
    for (; c < fe; c += group) {
        T v[V];
        load_chunk<Vector>(v, x + c * V);
        acc.fold(v, c * V, r);
    }
    return c;
}

// Rows: a group per (output, piece); piece p of a row covers its 16-byte chunks
// [p * chunk, (p + 1) * chunk). Writes the output, or with ws the piece's partial.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads)
reduce_rows(const typename Op::T* __restrict__ in, RedDims d, RedOut r, int64_t outputs, int64_t splits,
            int64_t chunk, int32_t group, typename Op::Acc* __restrict__ ws) {
    using T = typename Op::T;
    using Acc = typename Op::Acc;
    constexpr int V = 16 / sizeof(T);
    __shared__ Acc partial[kReduceThreads / 32];
    const int64_t per_block = kReduceThreads / group, items = outputs * splits;
    const int64_t chunks = (r.count + V - 1) / V, full = r.count / V;
    const int t = static_cast<int>(threadIdx.x) % group;
    for (int64_t w = static_cast<int64_t>(blockIdx.x) * per_block + threadIdx.x / group; w < items;
         w += static_cast<int64_t>(gridDim.x) * per_block) {
        const int64_t o = w / splits, piece = w % splits;
        int64_t ioff, o0, o1;
        output_offsets(d, o, ioff, o0, o1);
        const T* x = in + ioff;
        const int64_t cb = piece * chunk, ce = cb + chunk < chunks ? cb + chunk : chunks, fe = ce < full ? ce : full;
        Lanes<Op, V> acc;
        acc.init(r);
        // 16-byte loads where the row is aligned; the same arithmetic from scalar loads where not
        const int64_t c = reinterpret_cast<uintptr_t>(x) % 16 == 0 ? fold_chunks<true>(acc, x, cb + t, fe, group, r)
                                                                    : fold_chunks<false>(acc, x, cb + t, fe, group, r);
        if (c < ce) {  // the row's last, partial chunk
            T v[V];
            const int n = static_cast<int>(r.count - c * V);
            for (int j = 0; j < n; j++) v[j] = x[c * V + j];
            acc.fold_first(v, n, c * V, r);
        }
        Acc a = group_combine<Op>(acc.result(r), group, r, partial);
        if (t == 0) {
            if (ws) ws[piece * outputs + o] = a;
            else finish_output<Op>(a, r, o0, o1);
        }
    }
}

// Cols: a block covers `bx` column vectors (V adjacent outputs along the
// innermost kept dim each) at one piece [p * chunk, (p + 1) * chunk) of R;
// thread (x, y) folds R positions y, y + ys, ... of the piece, then a fixed
// tree over y combines each lane. Writes the outputs, or with ws the partials.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads)
reduce_cols(const typename Op::T* __restrict__ in, RedDims d, RedOut r, int64_t outputs, int64_t splits,
            int64_t chunk, int32_t bx, bool aligned, typename Op::Acc* __restrict__ ws) {
    using T = typename Op::T;
    using Acc = typename Op::Acc;
    constexpr int V = 16 / sizeof(T);
    __shared__ Acc buf[kReduceThreads];
    const int tx = static_cast<int>(threadIdx.x) % bx, ty = static_cast<int>(threadIdx.x) / bx;
    const int ys = kReduceThreads / bx;
    const int64_t cols = d.kshape[d.nk - 1], per_plane = (cols + V - 1) / V, vecs = outputs / cols * per_plane;
    const int64_t xblocks = (vecs + bx - 1) / bx, items = xblocks * splits;
    const int64_t os0 = d.kout[0][d.nk - 1], os1 = d.kout[1][d.nk - 1];
    for (int64_t b = blockIdx.x; b < items; b += gridDim.x) {
        const int64_t piece = b / xblocks, g = (b % xblocks) * bx + tx;
        const int64_t lo = piece * chunk, hi = lo + chunk < r.count ? lo + chunk : r.count;
        int64_t o = 0, ioff = 0, o0 = 0, o1 = 0;
        int n = 0;
        if (g < vecs) {
            const int64_t c0 = (g % per_plane) * V;
            o = g / per_plane * cols + c0;
            n = cols - c0 < V ? static_cast<int>(cols - c0) : V;
            output_offsets(d, o, ioff, o0, o1);
        }
        const T* x = in + ioff;
        Acc a[V];
        for (int j = 0; j < V; j++) a[j] = Op::init(r);
        int64_t i = lo + ty;
        if (n == V && aligned) {
            for (; i + 3 * ys < hi; i += 4 * ys) {  // four loads in flight, folded in order
                T v[4][V];
                for (int u = 0; u < 4; u++) load_chunk<true>(v[u], x + reduced_offset(d, i + u * ys));
                for (int u = 0; u < 4; u++)
                    for (int j = 0; j < V; j++) a[j] = Op::step(a[j], v[u][j], i + u * ys, r);
            }
            for (; i < hi; i += ys) {
                T v[V];
                load_chunk<true>(v, x + reduced_offset(d, i));
                for (int j = 0; j < V; j++) a[j] = Op::step(a[j], v[j], i, r);
            }
        } else if (n > 0) {
            for (; i < hi; i += ys) {
                const T* p = x + reduced_offset(d, i);
                for (int j = 0; j < n; j++) a[j] = Op::step(a[j], p[j], i, r);
            }
        }
        for (int j = 0; j < V; j++) {
            buf[threadIdx.x] = a[j];
            __syncthreads();
            for (int h = ys / 2; h > 0; h >>= 1) {
                if (ty < h) buf[threadIdx.x] = Op::combine(buf[threadIdx.x], buf[threadIdx.x + h * bx], r);
                __syncthreads();
            }
            if (ty == 0 && j < n) {
                if (ws) ws[piece * outputs + o + j] = buf[threadIdx.x];
                else finish_output<Op>(buf[threadIdx.x], r, o0 + j * os0, o1 + j * os1);
            }
            __syncthreads();
        }
    }
}

// Second pass: `group` threads per output fold its pieces' partials
// ws[p * outputs + o], thread t taking p = t, t + group, ... in order.
template <class Op>
__global__ void __launch_bounds__(kReduceThreads)
reduce_finish(RedDims d, RedOut r, int64_t outputs, int64_t splits, int32_t group,
              const typename Op::Acc* __restrict__ ws) {
    using Acc = typename Op::Acc;
    __shared__ Acc partial[kReduceThreads / 32];
    const int64_t per_block = kReduceThreads / group;
    const int t = static_cast<int>(threadIdx.x) % group;
    // the loop bound is uniform over each group (a warp, the block, or one thread)
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * per_block + threadIdx.x / group; o < outputs;
         o += static_cast<int64_t>(gridDim.x) * per_block) {
        Acc a = Op::init(r);
        for (int64_t p = t; p < splits; p += group) a = Op::combine(a, ws[p * outputs + o], r);
        a = group_combine<Op>(a, group, r, partial);
        if (t == 0) {
            int64_t ioff, o0, o1;
            output_offsets(d, o, ioff, o0, o1);
            finish_output<Op>(a, r, o0, o1);
        }
    }
}

template <class Op>
cudaError_t reduce_launch(const RedPlan& pl, cudaStream_t stream) {
    RedDims d;
    d.nk = pl.nk, d.nr = pl.nr;
    for (int k = 0; k < pl.nk; k++) {
        d.kshape[k] = pl.kshape[k], d.kin[k] = pl.kin[k];
        d.kout[0][k] = pl.kout[0][k], d.kout[1][k] = pl.kout[1][k];
    }
    for (int k = 0; k < pl.nr; k++) d.rshape[k] = pl.rshape[k], d.rin[k] = pl.rin[k];
    RedOut r;
    for (int o = 0; o < 2; o++) {
        r.out[o] = static_cast<char*>(pl.out[o]);
        r.dtype[o] = pl.out_dtype[o];
        r.size[o] = o == 1 ? 8 : 0;
    }
    static const int64_t kSizes[NB_BK_NUM_DTYPES] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1};
    if (r.out[0]) r.size[0] = kSizes[pl.out_dtype[0]];
    if (r.out[1]) r.size[1] = kSizes[pl.out_dtype[1]];
    r.count = pl.count, r.p = pl.p, r.correction = pl.correction, r.op = pl.op;
    const auto* in = static_cast<const typename Op::T*>(pl.in);
    static_assert(sizeof(typename Op::Acc) <= NB_BK_REDUCE_PARTIAL_BYTES, "a partial fits the workspace");
    static_assert(kGenericMaxSplit <= kReduceThreads, "the second pass reads one partial per thread");
    using Acc = typename Op::Acc;
    auto* ws = static_cast<Acc*>(pl.workspace);
    if (pl.kind == kRedRows || pl.kind == kRedCols) {
        cudaError_t err;
        if (pl.kind == kRedRows)
            err = launch(&reduce_rows<Op>, grid_for(pl.outputs * pl.splits, kReduceThreads / pl.group),
                         kReduceThreads, 0, stream, in, d, r, pl.outputs, pl.splits, pl.chunk, pl.group, ws);
        else
            err = launch(&reduce_cols<Op>, grid_for(cols_blocks(pl) * pl.splits, 1), kReduceThreads, 0, stream, in,
                         d, r, pl.outputs, pl.splits, pl.chunk, pl.bx, pl.aligned, ws);
        if (err != cudaSuccess || ws == nullptr) return err;
        return launch(&reduce_finish<Op>, grid_for(pl.outputs, kReduceThreads / pl.fin_group), kReduceThreads, 0,
                      stream, d, r, pl.outputs, pl.splits, pl.fin_group, static_cast<const Acc*>(ws));
    }
    if (pl.workspace != nullptr) {
        cudaError_t err = launch(&reduce_split_partial<Op>, static_cast<unsigned>(pl.outputs * pl.splits),
                                 kReduceThreads, 0, stream, in, d, r, pl.splits, pl.chunk, ws);
        if (err != cudaSuccess) return err;
        return launch(&reduce_split_finish<Op>, static_cast<unsigned>(pl.outputs), kReduceThreads, 0, stream, d, r,
                      pl.splits, static_cast<const typename Op::Acc*>(ws));
    }
    if (pl.per_block)
        return launch(&reduce_per_block<Op>, grid_for(pl.outputs, 1), kReduceThreads, 0, stream, in, d, r,
                      pl.outputs);
    return launch(&reduce_per_thread<Op>, grid_for(pl.outputs, kReduceThreads), kReduceThreads, 0, stream, in, d,
                  r, pl.outputs);
}

// Per-family dispatch (reduce.cu: sum, mean, prod, amax, amin, all, any;
// reduce_stats.cu: max / min with indices, var, std, norm, logsumexp), split so the two compile in parallel.
cudaError_t reduce_basic(const RedPlan& pl, cudaStream_t stream);
cudaError_t reduce_stats(const RedPlan& pl, cudaStream_t stream);

}  // namespace nbcuda

#endif  // NABLA_CUDA_REDUCE_CUH_
