// index.cu: the CUDA index family (nb_bk_index, index_plan.h): gather (also
// index_select, take_along_dim and embedding), the scatter kernels (scatter,
// scatter_add, scatter_reduce, index_add), masked_fill, masked_select and
// advanced indexing (index, index_put) for every dtype. Writes are
// deterministic without float atomics: one thread per output element scans
// the indices along `dim` in order (index_put: one thread per element outside
// the indexed dims walks them in order), so duplicate indices combine in index
// order (a plain write keeps the last). Out-of-range indices claim the device
// error word (first error wins) instead of trapping.
#include "kernels.h"
#include "dtypes.cuh"
#include "index_plan.h"
#include "launch.cuh"

namespace nbcuda {
namespace {

// The op's name travels by value: the plan's `name` points to host memory.
struct OpName {
    char s[sizeof(DevError::op)];
};

__device__ void report_bad_at(DevError* err, const OpName& nm, int32_t dim, int64_t size, int64_t v) {
    if (atomicCAS(&err->flag, 0, kDevErrorIndex) != 0) return;
    for (size_t i = 0; i < sizeof nm.s; i++) err->op[i] = nm.s[i];
    err->dim = dim, err->index = v, err->size = size;
}

__device__ void report_bad(DevError* err, const nb_bk_index& a, const OpName& nm, int64_t v) {
    report_bad_at(err, nm, a.dim, a.dim_size, v);
}

__device__ __forceinline__ int64_t read_idx(const nb_bk_index& a, int64_t off) {
    return a.idx_dtype == NB_I32 ? static_cast<const int32_t*>(a.idx)[off] : static_cast<const int64_t*>(a.idx)[off];
}

// Element i of shape[ndim] (row-major) as offsets into idx, src and out; src
// skips dim `src_skip` (gather: the index value moves src along it), -1: none.
__device__ __forceinline__ void offsets(const nb_bk_index& a, int64_t i, int64_t* oi, int64_t* os, int64_t* oo,
                                       int src_skip = -1) {
    int64_t xi = 0, xs = 0, xo = 0;
    for (int d = a.ndim - 1; d >= 0; d--) {
        int64_t c = i % a.shape[d];
        i /= a.shape[d];
        xi += c * a.idx_strides[d], xo += c * a.out_strides[d];
        if (d != src_skip) xs += c * a.src_strides[d];
    }
    *oi = xi, *os = xs, *oo = xo;
}

__device__ __forceinline__ int64_t read_any(const void* p, int32_t dtype, int64_t off) {
    return dtype == NB_I32 ? static_cast<const int32_t*>(p)[off] : static_cast<const int64_t*>(p)[off];
}

// out[i] = src[i with dim -> idx[i]]
template <int Code> __global__ void gather_kernel(nb_bk_index a, OpName nm, int64_t n, DevError* err) {
    using T = typename Storage<Code>::type;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t oi, os, oo;
        offsets(a, i, &oi, &os, &oo, a.dim);
        int64_t v = read_idx(a, oi);
        if (!index_in_range(v, a.dim_size, a.wrap)) {
            report_bad(err, a, nm, v);
            continue;
        }
        if (v < 0) v += a.dim_size;
        static_cast<T*>(a.out)[oo] = static_cast<const T*>(a.src)[os + v * a.src_strides[a.dim]];
    }
}

// One thread per (element of shape with dim replaced by j in [0, dim_size)):
// combines, in index order, the src elements along dim whose index is j.
// out_strides[dim] is out's stride along the written dim.
template <int Code> __global__ void scatter_kernel(nb_bk_index a, OpName nm, int64_t n, DevError* err) {
    using T = typename Storage<Code>::type;
    const int64_t len = a.shape[a.dim];
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = t % a.dim_size, outer = t / a.dim_size;  // outer: shape with dim of size 1
        int64_t rem = outer, oi = 0, os = 0, oo = 0;
        for (int d = a.ndim - 1; d >= 0; d--) {
            if (d == a.dim) continue;
            int64_t c = rem % a.shape[d];
            rem /= a.shape[d];
            oi += c * a.idx_strides[d], os += c * a.src_strides[d], oo += c * a.out_strides[d];
        }
        T* o = static_cast<T*>(a.out) + oo + j * a.out_strides[a.dim];
        const T* s = static_cast<const T*>(a.src) + os;
        bool hit = false;
        double acc = 0;
        int64_t iacc = 0;
        T last{};
        for (int64_t k = 0; k < len; k++) {
            int64_t v = read_idx(a, oi + k * a.idx_strides[a.dim]);
            if (!index_in_range(v, a.dim_size, a.wrap)) {
                if (j == 0) report_bad(err, a, nm, v);  // one reporter per bad index
                continue;
            }
            if (v < 0) v += a.dim_size;
            if (v != j) continue;
            T x = s[k * a.src_strides[a.dim]];
            if (a.op == NB_IXK_SCATTER) {
                last = x, hit = true;
            } else if constexpr (is_float_code(Code)) {
                double y = load_f64<Code>(x);
                if (a.op == NB_IXK_SCATTER_ADD) {
                    acc = (hit ? acc : load_f64<Code>(*o)) + a.alpha * y;
                } else {
                    double cur = hit ? acc : load_f64<Code>(*o);
                    acc = a.reduce == NB_RK_PROD ? cur * y
                          : (cur != cur || y != y) ? (cur != cur ? cur : y)
                          : a.reduce == NB_RK_AMAX ? (y > cur ? y : cur) : (y < cur ? y : cur);
                }
                hit = true;
            } else {
                int64_t y = static_cast<int64_t>(x), cur = hit ? iacc : static_cast<int64_t>(*o);
                iacc = a.op == NB_IXK_SCATTER_ADD ? cur + static_cast<int64_t>(a.alpha) * y
                       : a.reduce == NB_RK_PROD ? cur * y
                       : a.reduce == NB_RK_AMAX ? (y > cur ? y : cur) : (y < cur ? y : cur);
                hit = true;
            }
        }
        if (!hit) continue;
        if (a.op == NB_IXK_SCATTER) *o = last;
        else if constexpr (is_float_code(Code)) *o = from_f64<Code>(acc);
        else *o = from_i64<Code>(iacc);
    }
}

// out[i] = value where mask[i] (idx holds the bool mask)
template <int Code> __global__ void masked_fill_kernel(nb_bk_index a, int64_t n) {
    using T = typename Storage<Code>::type;
    T value;
    memcpy(&value, a.value, sizeof value);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t oi, os, oo;
        offsets(a, i, &oi, &os, &oo);
        if (static_cast<const uint8_t*>(a.idx)[oi]) static_cast<T*>(a.out)[oo] = value;
    }
}

// out[i] = src[i's offset + sum over j of idxs[j][i] * idxs[j].stride]
template <int Code> __global__ void index_kernel(nb_bk_index a, OpName nm, int64_t n, DevError* err) {
    using T = typename Storage<Code>::type;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t rem = i, os = 0, oo = 0, oi[NB_BK_INDEX_MAX_INDICES] = {0};
        for (int d = a.ndim - 1; d >= 0; d--) {
            int64_t c = rem % a.shape[d];
            rem /= a.shape[d];
            os += c * a.src_strides[d], oo += c * a.out_strides[d];
            for (int j = 0; j < a.nidx; j++) oi[j] += c * a.idxs[j].strides[d];
        }
        bool ok = true;
        for (int j = 0; j < a.nidx; j++) {
            const nb_bk_index_operand& x = a.idxs[j];
            int64_t v = read_any(x.data, x.dtype, oi[j]);
            if (!index_in_range(v, x.size, true)) {
                report_bad_at(err, nm, x.dim, x.size, v);
                ok = false;
                break;
            }
            os += (v < 0 ? v + x.size : v) * x.stride;
        }
        if (ok) static_cast<T*>(a.out)[oo] = static_cast<const T*>(a.src)[os];
    }
}

// One thread per element outside the broadcast index dims [bstart, bstart + bnd):
// walks those dims in row-major order and writes (or adds) src into out.
template <int Code> __global__ void index_put_kernel(nb_bk_index a, OpName nm, int64_t n, int64_t inner, DevError* err) {
    using T = typename Storage<Code>::type;
    const int bend = a.bstart + a.bnd;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t rem = t, os0 = 0, oo0 = 0;
        for (int d = a.ndim - 1; d >= 0; d--) {
            if (d >= a.bstart && d < bend) continue;
            int64_t c = rem % a.shape[d];
            rem /= a.shape[d];
            os0 += c * a.src_strides[d], oo0 += c * a.out_strides[d];
        }
        for (int64_t b = 0; b < inner; b++) {
            int64_t r = b, os = os0, oo = oo0, oi[NB_BK_INDEX_MAX_INDICES] = {0};
            for (int d = bend - 1; d >= a.bstart; d--) {
                int64_t c = r % a.shape[d];
                r /= a.shape[d];
                os += c * a.src_strides[d];
                for (int j = 0; j < a.nidx; j++) oi[j] += c * a.idxs[j].strides[d];
            }
            bool ok = true;
            for (int j = 0; j < a.nidx; j++) {
                const nb_bk_index_operand& x = a.idxs[j];
                int64_t v = read_any(x.data, x.dtype, oi[j]);
                if (!index_in_range(v, x.size, true)) {
                    if (t == 0) report_bad_at(err, nm, x.dim, x.size, v);  // one reporter per bad index
                    ok = false;
                    break;
                }
                oo += (v < 0 ? v + x.size : v) * x.stride;
            }
            if (!ok) continue;
            T* o = static_cast<T*>(a.out) + oo;
            const T x = static_cast<const T*>(a.src)[os];
            if (!a.accumulate) *o = x;
            else if constexpr (is_float_code(Code)) *o = from_f64<Code>(load_f64<Code>(*o) + load_f64<Code>(x));
            else *o = from_i64<Code>(static_cast<int64_t>(*o) + static_cast<int64_t>(x));
        }
    }
}

// out[k] = src[i] for the k-th set mask[i] (idx: the bool mask), i row-major over
// shape. One block: each thread counts a contiguous chunk, the counts are
// prefix-summed in shared memory, then each thread copies its chunk in order.
template <int Code> __global__ void masked_select_kernel(nb_bk_index a, int64_t n) {
    using T = typename Storage<Code>::type;
    __shared__ int64_t counts[kIndexThreads];
    const int64_t chunk = (n + blockDim.x - 1) / blockDim.x;
    const int64_t lo = threadIdx.x * chunk, hi = lo + chunk < n ? lo + chunk : n;
    const uint8_t* mask = static_cast<const uint8_t*>(a.idx);
    int64_t cnt = 0;
    for (int64_t i = lo; i < hi; i++) {
        int64_t oi, os, oo;
        offsets(a, i, &oi, &os, &oo);
        cnt += mask[oi] != 0;
    }
    counts[threadIdx.x] = cnt;
    __syncthreads();
    int64_t k = 0;
    for (unsigned t = 0; t < threadIdx.x; t++) k += counts[t];
    for (int64_t i = lo; i < hi; i++) {
        int64_t oi, os, oo;
        offsets(a, i, &oi, &os, &oo);
        if (!mask[oi]) continue;
        static_cast<T*>(a.out)[k * a.out_strides[0]] = static_cast<const T*>(a.src)[os];
        k++;
    }
}

struct Launch {
    const nb_bk_index& a;
    DevError* err;
    cudaStream_t s;
    template <int Code> cudaError_t operator()() const {
        OpName nm{};
        for (size_t i = 0; a.name && a.name[i] && i < sizeof nm.s - 1; i++) nm.s[i] = a.name[i];
        int64_t n = 1;
        for (int d = 0; d < a.ndim; d++) n *= a.shape[d];
        if (a.op == NB_IXK_SCATTER || a.op == NB_IXK_SCATTER_ADD || a.op == NB_IXK_SCATTER_REDUCE) {
            n = a.shape[a.dim] == 0 ? 0 : n / a.shape[a.dim] * a.dim_size;
            IndexLaunch l = index_launch(n);
            if (!l.blocks) return cudaSuccess;
            NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, scatter_kernel<Code>)(a, nm, n, err);
        } else if (a.op == NB_IXK_GATHER) {
            IndexLaunch l = index_launch(n);
            if (!l.blocks) return cudaSuccess;
            NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, gather_kernel<Code>)(a, nm, n, err);
        } else if (a.op == NB_IXK_MASKED_FILL) {
            IndexLaunch l = index_launch(n);
            if (!l.blocks) return cudaSuccess;
            NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, masked_fill_kernel<Code>)(a, n);
        } else if (a.op == NB_IXK_INDEX) {
            if (a.nidx < 1 || a.nidx > NB_BK_INDEX_MAX_INDICES) return cudaErrorInvalidValue;
            IndexLaunch l = index_launch(n);
            if (!l.blocks) return cudaSuccess;
            NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, index_kernel<Code>)(a, nm, n, err);
        } else if (a.op == NB_IXK_INDEX_PUT) {
            if (a.nidx < 1 || a.nidx > NB_BK_INDEX_MAX_INDICES || a.bstart < 0 || a.bnd < 0 ||
                a.bstart + a.bnd > a.ndim)
                return cudaErrorInvalidValue;
            int64_t inner = 1;
            for (int d = a.bstart; d < a.bstart + a.bnd; d++) inner *= a.shape[d];
            if (n == 0) return cudaSuccess;
            int64_t outer = n / inner;
            IndexLaunch l = index_launch(outer);
            if (!l.blocks) return cudaSuccess;
            NB_LAUNCH(dim3((unsigned)l.blocks), dim3(l.threads), 0, s, index_put_kernel<Code>)(a, nm, outer, inner, err);
        } else if (a.op == NB_IXK_MASKED_SELECT) {
            if (n == 0) return cudaSuccess;
            NB_LAUNCH(dim3(1), dim3(kIndexThreads), 0, s, masked_select_kernel<Code>)(a, n);
        } else {
            return cudaErrorNotSupported;
        }
        return cudaGetLastError();
    }
};

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_index(const nb_bk_index* args, void* device_error, cudaStream_t stream) {
    if (args->ndim < 0 || args->ndim > NB_MAX_DIMS || (args->ndim > 0 && (args->dim < 0 || args->dim >= args->ndim)))
        return cudaErrorInvalidValue;
    if (args->ndim == 0) return cudaErrorInvalidValue;  // the front end views 0-dim operands as [1]
    return nbcuda::with_dtype(args->dtype,
                              nbcuda::Launch{*args, static_cast<nbcuda::DevError*>(device_error), stream});
}
