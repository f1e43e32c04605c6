// pool.cu: the CUDA pooling family (nb_bk_pool, pool_plan.h): max, average and
// adaptive average pooling over 1 to 3 spatial dims and their gradients.
// Forward: one thread per output cell scans its window (max lets NaN win and
// records PyTorch's flat spatial index of the maximum). Backward: one thread
// per input element gathers from the output cells whose windows cover it, in
// increasing order (max: the cells whose saved index names it), so results are
// deterministic without float atomics. Kernels are templated on the dtype only
// (float16/bfloat16 accumulate in float32); kind and dims are run-time values.
// A saved index outside the input plane claims the device error word.
#include "kernels.h"
#include "dtypes.cuh"
#include "index_plan.h"
#include "launch.cuh"
#include "pool_plan.h"

namespace nbcuda {
namespace {

// The op's name travels by value: the plan's `name` points to host memory.
struct PoolName {
    char s[sizeof(DevError::op)];
};

template <int Code> struct PoolAcc { using type = float; };
template <> struct PoolAcc<NB_F64> { using type = double; };
template <> struct PoolAcc<NB_I64> { using type = int64_t; };

template <int Code> __device__ __forceinline__ typename PoolAcc<Code>::type to_acc(typename Storage<Code>::type v) {
    if constexpr (Code == NB_F16 || Code == NB_BF16) return load_f32<Code>(v);
    else return v;
}

template <int Code> __device__ __forceinline__ typename Storage<Code>::type from_acc(typename PoolAcc<Code>::type v) {
    if constexpr (Code == NB_F16 || Code == NB_BF16) return from_f64<Code>(static_cast<double>(v));
    else return v;
}

template <int Code> __device__ __forceinline__ typename PoolAcc<Code>::type lowest() {
    if constexpr (Code == NB_I64) return INT64_MIN;
    else return -INFINITY;
}

// Splits t (row-major over batch[0], batch[1], n[0], n[1], n[2]) into its batch index and spatial coordinates.
__device__ __forceinline__ void split(const PoolGeom& g, int64_t t, const int64_t* n, int64_t* b, int64_t* c) {
    for (int i = 2; i >= 0; i--) c[i] = t % n[i], t /= n[i];
    b[1] = t % g.batch[1], b[0] = t / g.batch[1];
}

template <int Code> __global__ void pool_forward_kernel(PoolGeom g, const void* xv, void* yv, int64_t* idx, int64_t n) {
    using T = typename Storage<Code>::type;
    using A = typename PoolAcc<Code>::type;
    const T* x = static_cast<const T*>(xv);
    T* y = static_cast<T*>(yv);
    const int64_t outs[3] = {g.dim[0].out, g.dim[1].out, g.dim[2].out};
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t b[2], o[3], lo[3], hi[3], padded[3];
        split(g, t, outs, b, o);
        const T* in = x + b[0] * g.xb[0] + b[1] * g.xb[1];
        const int64_t yo = b[0] * g.yb[0] + b[1] * g.yb[1] + o[0] * g.dim[0].ys + o[1] * g.dim[1].ys + o[2] * g.dim[2].ys;
        const PoolDim &d0 = g.dim[0], &d1 = g.dim[1], &d2 = g.dim[2];
        if (g.kind == NB_PK_MAX) {
            for (int i = 0; i < 3; i++) max_window(g.dim[i], o[i], lo + i, hi + i);
            A best = lowest<Code>();
            int64_t best_i = (lo[0] * d1.in + lo[1]) * d2.in + lo[2];
            for (int64_t i0 = lo[0]; i0 < hi[0]; i0 += d0.d)
                for (int64_t i1 = lo[1]; i1 < hi[1]; i1 += d1.d)
                    for (int64_t i2 = lo[2]; i2 < hi[2]; i2 += d2.d) {
                        const A v = to_acc<Code>(in[i0 * d0.xs + i1 * d1.xs + i2 * d2.xs]);
                        if (v > best || v != v) best = v, best_i = (i0 * d1.in + i1) * d2.in + i2;
                    }
            y[yo] = from_acc<Code>(best);
            if (idx) idx[b[0] * g.ib[0] + b[1] * g.ib[1] + o[0] * d0.is + o[1] * d1.is + o[2] * d2.is] = best_i;
            continue;
        }
        int64_t count = 1, padded_count = 1;
        for (int i = 0; i < 3; i++) {
            if (g.kind == NB_PK_AVG) avg_window(g.dim[i], o[i], lo + i, hi + i, padded + i);
            else adaptive_window(g.dim[i], o[i], lo + i, hi + i), padded[i] = hi[i] - lo[i];
            count *= hi[i] > lo[i] ? hi[i] - lo[i] : 0, padded_count *= padded[i];
        }
        if (count == 0) {
            y[yo] = from_acc<Code>(A(0));
            continue;
        }
        A sum = 0;
        for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
            for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
                for (int64_t i2 = lo[2]; i2 < hi[2]; i2++) sum += to_acc<Code>(in[i0 * d0.xs + i1 * d1.xs + i2 * d2.xs]);
        const int64_t div = g.kind == NB_PK_AVG && g.divisor ? g.divisor
                            : g.kind == NB_PK_AVG && g.count_include_pad ? padded_count : count;
        y[yo] = from_acc<Code>(sum / static_cast<A>(div));
    }
}

__device__ void report_bad_index(DevError* err, const PoolName& nm, int64_t v, int64_t plane) {
    if (atomicCAS(&err->flag, 0, kDevErrorIndex) != 0) return;
    for (size_t i = 0; i < sizeof nm.s; i++) err->op[i] = nm.s[i];
    err->dim = -1, err->index = v, err->size = plane;
}

template <int Code>
__global__ void pool_backward_kernel(PoolGeom g, void* xv, const void* yv, const int64_t* idx, int64_t n, PoolName nm,
                                     DevError* err) {
    using T = typename Storage<Code>::type;
    using A = typename PoolAcc<Code>::type;
    T* gx = static_cast<T*>(xv);
    const T* gy = static_cast<const T*>(yv);
    const int64_t ins[3] = {g.dim[0].in, g.dim[1].in, g.dim[2].in};
    const int64_t plane = ins[0] * ins[1] * ins[2];
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t b[2], c[3], lo[3], hi[3];
        split(g, t, ins, b, c);
        for (int i = 0; i < 3; i++) cells_reading(g.dim[i], g.kind, c[i], lo + i, hi + i);
        const int64_t flat = (c[0] * ins[1] + c[1]) * ins[2] + c[2];
        const T* go = gy + b[0] * g.yb[0] + b[1] * g.yb[1];
        const int64_t* gi = idx ? idx + b[0] * g.ib[0] + b[1] * g.ib[1] : nullptr;
        A acc = 0;
        for (int64_t o0 = lo[0]; o0 < hi[0]; o0++)
            for (int64_t o1 = lo[1]; o1 < hi[1]; o1++)
                for (int64_t o2 = lo[2]; o2 < hi[2]; o2++) {
                    const int64_t o[3] = {o0, o1, o2};
                    const A v = to_acc<Code>(go[o0 * g.dim[0].ys + o1 * g.dim[1].ys + o2 * g.dim[2].ys]);
                    if (g.kind == NB_PK_MAX) {
                        const int64_t at = gi[o0 * g.dim[0].is + o1 * g.dim[1].is + o2 * g.dim[2].is];
                        if (at < 0 || at >= plane) report_bad_index(err, nm, at, plane);
                        if (at == flat) acc += v;
                        continue;
                    }
                    int64_t count = 1, padded_count = 1;
                    bool inside = true;
                    for (int i = 0; i < 3; i++) {
                        int64_t wl, wh, padded;
                        if (g.kind == NB_PK_AVG) avg_window(g.dim[i], o[i], &wl, &wh, &padded);
                        else adaptive_window(g.dim[i], o[i], &wl, &wh), padded = wh - wl;
                        inside = inside && wl <= c[i] && c[i] < wh;
                        count *= wh - wl, padded_count *= padded;
                    }
                    if (!inside) continue;
                    const int64_t div = g.kind == NB_PK_AVG && g.divisor ? g.divisor
                                        : g.kind == NB_PK_AVG && g.count_include_pad ? padded_count : count;
                    acc += v / static_cast<A>(div);
                }
        gx[b[0] * g.xb[0] + b[1] * g.xb[1] + c[0] * g.dim[0].xs + c[1] * g.dim[1].xs + c[2] * g.dim[2].xs] =
            from_acc<Code>(acc);
    }
}

template <int Code> cudaError_t launch(const nb_bk_pool& a, const PoolGeom& g, DevError* err, cudaStream_t s) {
    if (!g.backward) {
        const PoolLaunch l = pool_launch(g.y_count);
        if (!l.blocks) return cudaSuccess;
        NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, pool_forward_kernel<Code>)(
            g, a.x, a.y, static_cast<int64_t*>(a.indices), g.y_count);
    } else if constexpr (Code != NB_I64) {
        const PoolLaunch l = pool_launch(g.x_count);
        if (!l.blocks) return cudaSuccess;
        PoolName nm{};
        for (size_t i = 0; a.name && a.name[i] && i < sizeof nm.s - 1; i++) nm.s[i] = a.name[i];
        NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, pool_backward_kernel<Code>)(
            g, a.x, a.y, static_cast<const int64_t*>(a.indices), g.x_count, nm, err);
    }
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_pool(const nb_bk_pool* args, void* device_error, cudaStream_t stream) {
    nbcuda::PoolGeom g;
    if (!nbcuda::pool_geometry(*args, &g)) return cudaErrorInvalidValue;
    nbcuda::DevError* err = static_cast<nbcuda::DevError*>(device_error);
    switch (args->dtype) {
        case NB_F32: return nbcuda::launch<NB_F32>(*args, g, err, stream);
        case NB_F64: return nbcuda::launch<NB_F64>(*args, g, err, stream);
        case NB_F16: return nbcuda::launch<NB_F16>(*args, g, err, stream);
        case NB_BF16: return nbcuda::launch<NB_BF16>(*args, g, err, stream);
        default: return nbcuda::launch<NB_I64>(*args, g, err, stream);
    }
}
