// attention.cuh: what the two fused attention implementations share: the CUDA-core
// kernels (attention.cu) and the tensor-core ones for float16/bfloat16
// (attention_tc.cu). Both run blocks of 4 warps; this has the element conversions,
// warp reductions, tile loads, batch addressing, the Scorer (scale, causal and
// explicit masks, the dropout's Philox draws) and the launch helper.
#ifndef NABLA_CUDA_ATTENTION_CUH_
#define NABLA_CUDA_ATTENTION_CUH_

#include <type_traits>

#include "kernels.h"
#include "dtypes.cuh"
#include "launch.cuh"
#include "../ops/philox.h"

namespace nbcuda {
namespace attn {

constexpr int kWarps = 4, kThreads = kWarps * 32;
constexpr size_t kDefaultSmem = 48 * 1024;

template <int Code> struct AttnAcc { using type = float; };
template <> struct AttnAcc<NB_F64> { using type = double; };

// An element in the accumulation type, and back into its dtype (one rounding).
template <int Code> __device__ __forceinline__ typename AttnAcc<Code>::type load_acc(typename Storage<Code>::type x) {
    if constexpr (Code == NB_F64) return x;
    else return load_f32<Code>(x);
}
template <int Code> __device__ __forceinline__ typename Storage<Code>::type store_acc(typename AttnAcc<Code>::type v) {
    if constexpr (Code == NB_F16) return __float2half_rn(v);
    else if constexpr (Code == NB_BF16) return __float2bfloat16_rn(v);
    else return v;
}

__device__ __forceinline__ float exp_acc(float x) { return expf(x); }
__device__ __forceinline__ double exp_acc(double x) { return exp(x); }
__device__ __forceinline__ float log_acc(float x) { return logf(x); }
__device__ __forceinline__ double log_acc(double x) { return log(x); }

template <typename A> __device__ __forceinline__ A warp_max(A v) {
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
template <typename A> __device__ __forceinline__ A warp_sum(A v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Element x of a tile of type D: as it is (D the storage type) or in the accumulation type.
template <int Code, typename D> __device__ __forceinline__ D to_tile(typename Storage<Code>::type x) {
    if constexpr (std::is_same<D, typename Storage<Code>::type>::value) return x;
    else return load_acc<Code>(x);
}

// Rows [0, rows) x columns [0, cols) of a strided operand into an [n][ld] tile of
// width w (zeros elsewhere, so padded products add nothing).
template <int Code, typename D>
__device__ __forceinline__ void load_tile(D* tile, int n, int ld, int w, const typename Storage<Code>::type* src,
                                          int64_t rs, int64_t cs, int64_t rows, int64_t cols) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const D zero = to_tile<Code, D>(store_acc<Code>(0));
    for (int r = warp; r < n; r += kWarps)  // a warp per row, lanes along it: coalesced for cs == 1
        for (int c = lane; c < w; c += 32)
            tile[r * ld + c] = r < rows && c < cols ? to_tile<Code, D>(src[r * rs + c * cs]) : zero;
}

// Rows [r0, r0 + n) of two operands that share their rows (k and v, or q and grad_out) as tiles.
template <int Code, typename D>
__device__ __forceinline__ void load_pair(D* ta, D* tb, int n, int ld, int w, const typename Storage<Code>::type* a,
                                          const nb_bk_attention_operand& oa, int64_t ca,
                                          const typename Storage<Code>::type* b, const nb_bk_attention_operand& ob,
                                          int64_t cb, int64_t r0, int64_t rows) {
    load_tile<Code>(ta, n, ld, w, a + r0 * oa.rs, oa.rs, oa.cs, rows - r0, ca);
    load_tile<Code>(tb, n, ld, w, b + r0 * ob.rs, ob.rs, ob.cs, rows - r0, cb);
}

__device__ __forceinline__ int64_t batch_offset(const nb_bk_attention& p, const nb_bk_attention_operand& o,
                                                int64_t b) {
    int64_t off = 0;
    for (int i = p.bndim - 1; i >= 0; i--) {
        off += (b % p.bshape[i]) * o.bstrides[i];
        b /= p.bshape[i];
    }
    return off;
}

// Batch b's first element of operand o.
template <int Code>
__device__ __forceinline__ const typename Storage<Code>::type* batch_base(const nb_bk_attention& p,
                                                                         const nb_bk_attention_operand& o, int64_t b) {
    return static_cast<const typename Storage<Code>::type*>(o.data) + batch_offset(p, o, b);
}

// What every kernel needs about batch b to score and drop weights (copied out of
// the plan so that no thread takes the address of a kernel parameter).
template <int Code> struct Scorer {
    using T = typename Storage<Code>::type;
    using A = typename AttnAcc<Code>::type;
    int64_t L, S, mask_rs, mask_cs;
    const char* mask;     // batch b's mask (elements: bool or T), NULL: none
    bool causal, mask_bool, dropout;
    A scale, inv_keep;
    int64_t row0;         // b * L * S: batch b's first weight, row-major over [B, L, S]
    nb_philox ph;
    uint64_t threshold;   // a weight is kept when its word is below this (2^32: all)

    __device__ Scorer(const nb_bk_attention& p, int64_t b) {
        L = p.L, S = p.S, mask_rs = p.mask.rs, mask_cs = p.mask.cs;
        mask_bool = p.mask_dtype == NB_BOOL;
        mask = p.mask_dtype < 0 ? nullptr
                                : static_cast<const char*>(p.mask.data) +
                                      batch_offset(p, p.mask, b) * (mask_bool ? 1 : static_cast<int64_t>(sizeof(T)));
        causal = p.is_causal != 0, dropout = p.dropout_p > 0;
        scale = static_cast<A>(p.scale);
        inv_keep = p.dropout_p < 1 ? static_cast<A>(1.0 / (1.0 - p.dropout_p)) : A(0);
        row0 = b * p.L * p.S;
        ph = nb_philox_make(p.seed, p.offset);
        threshold = static_cast<uint64_t>(ceil((1.0 - p.dropout_p) * 0x1p32));
    }
    // The scaled, masked score of query i and key j from their dot product (-inf: no part).
    __device__ __forceinline__ A score(A dot, int64_t i, int64_t j) const {
        if (i >= L || j >= S || (causal && j > i)) return -INFINITY;
        A s = dot * scale;
        if (mask != nullptr) {
            const int64_t at = i * mask_rs + j * mask_cs;
            if (mask_bool) {
                if (!reinterpret_cast<const uint8_t*>(mask)[at]) return -INFINITY;
            } else {
                s += load_acc<Code>(reinterpret_cast<const T*>(mask)[at]);
            }
        }
        return s;
    }
    // The dropout's factor for weight (i, j): 0 or 1 / (1 - p); 1 without dropout.
    __device__ __forceinline__ A keep(int64_t i, int64_t j) const {
        if (!dropout) return A(1);
        const uint64_t e = static_cast<uint64_t>(row0 + i * S + j);
        uint32_t w[4];
        nb_philox_block(&ph, e / 4, w);
        const uint32_t r = e % 4, word = r == 0 ? w[0] : r == 1 ? w[1] : r == 2 ? w[2] : w[3];  // no local array
        return word < threshold ? inv_keep : A(0);
    }
};

// The weight of a score given its row's logsumexp (0 for a fully masked row).
template <typename A> __device__ __forceinline__ A weight(A x, A lse) {
    return x == -INFINITY || lse == -INFINITY ? A(0) : exp_acc(x - lse);
}

// Runs kernel(p, ld, w) on blocks blocks of kThreads, raising the shared-memory limit when smem needs it.
template <typename K>
cudaError_t launch(K kernel, int64_t blocks, size_t smem, cudaStream_t stream, const nb_bk_attention& p, int ld,
                   int w) {
    if (blocks <= 0) return cudaSuccess;
    if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
    if (smem > kDefaultSmem) {
        cudaError_t err = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        if (err != cudaSuccess) return err;
    }
    NB_LAUNCH(static_cast<unsigned>(blocks), kThreads, smem, stream, kernel)(p, ld, w);
    return cudaGetLastError();
}

}  // namespace attn
}  // namespace nbcuda

#endif  // NABLA_CUDA_ATTENTION_CUH_
