// where.cu: out = cond ? a : b (NB_BK_WHERE) for any dtype: a copy of bits, so one
// kernel per element size. The four operands' dims are collapsed together
// (layout_plan.h); a scalar a or b comes as its bits in the dtype.
#include <cstdint>
#include <cstring>

#include "kernels.h"
#include "launch.cuh"
#include "layout_plan.h"

namespace nbcuda {

struct WhereDims {
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    int64_t s[4][NB_MAX_DIMS];  // out, cond, a, b (elements; a scalar's are 0)
};

template <typename T>
__global__ void where_kernel(T* __restrict__ out, const uint8_t* __restrict__ cond, const T* __restrict__ a,
                             const T* __restrict__ b, int32_t sa, int32_t sb, T va, T vb, int64_t n, WhereDims d) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t rem = i, off[4] = {0, 0, 0, 0};
        for (int k = d.ndim - 1; k >= 0; k--) {
            const int64_t idx = rem % d.shape[k];
            rem /= d.shape[k];
            for (int t = 0; t < 4; t++) off[t] += idx * d.s[t][k];
        }
        out[off[0]] = cond[off[1]] ? (sa ? va : a[off[2]]) : (sb ? vb : b[off[3]]);
    }
}

template <typename T>
cudaError_t where_launch(const nb_bk_ew& w, cudaStream_t stream) {
    int64_t zeros[NB_MAX_DIMS] = {0};
    const int64_t* strides[4] = {w.out_strides, w.cond_strides, w.is_scalar[0] ? zeros : w.in_strides[0],
                                 w.is_scalar[1] ? zeros : w.in_strides[1]};
    Layout<4> l;
    collapse<4>(w.ndim, w.shape, strides, l);
    if (l.numel == 0) return cudaSuccess;
    WhereDims d;
    d.ndim = l.ndim;
    for (int k = 0; k < l.ndim; k++) {
        d.shape[k] = l.shape[k];
        for (int t = 0; t < 4; t++) d.s[t][k] = l.strides[t][k];
    }
    T va, vb;  // the scalars' bits, in the low bytes (little-endian, as every CUDA host)
    std::memcpy(&va, &w.scalar_i64[0], sizeof(T));
    std::memcpy(&vb, &w.scalar_i64[1], sizeof(T));
    int64_t blocks = (l.numel + 255) / 256;
    if (blocks > 65535 * 8) blocks = 65535 * 8;
    NB_LAUNCH(static_cast<int>(blocks), 256, 0, stream, where_kernel<T>)(
        static_cast<T*>(w.out), static_cast<const uint8_t*>(w.cond), static_cast<const T*>(w.in[0]),
        static_cast<const T*>(w.in[1]), w.is_scalar[0], w.is_scalar[1], va, vb, l.numel, d);
    return cudaGetLastError();
}

}  // namespace nbcuda

cudaError_t nb_cuda_where(const nb_bk_ew* w, cudaStream_t stream) {
    switch (nbcuda::dtype_bytes(w->dtype)) {
        case 1: return nbcuda::where_launch<uint8_t>(*w, stream);
        case 2: return nbcuda::where_launch<uint16_t>(*w, stream);
        case 4: return nbcuda::where_launch<uint32_t>(*w, stream);
        case 8: return nbcuda::where_launch<uint64_t>(*w, stream);
        default: return cudaErrorInvalidValue;
    }
}
