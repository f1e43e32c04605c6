// fused_common.cuh: pieces the fused kernels share (loss.cu, embedding.cu,
// norm.cu, optim.cu): the op's name carried by value into the kernel, the claim
// of the device error word, float loads in the accumulation type (float32 for
// float32 / float16 / bfloat16, float64 for float64) and the float dispatch.
#ifndef NABLA_CUDA_FUSED_COMMON_CUH_
#define NABLA_CUDA_FUSED_COMMON_CUH_

#include <type_traits>

#include "dtypes.cuh"
#include "index_plan.h"

namespace nbcuda {

// The op's name by value: a plan's `name` points to host memory.
struct OpName {
    char s[sizeof(DevError::op)];
};

inline OpName op_name(const char* name) {
    OpName nm{};
    for (size_t i = 0; name && name[i] && i < sizeof nm.s - 1; i++) nm.s[i] = name[i];
    return nm;
}

// Claims the error word with flag (first failing thread wins) and records what it saw.
__device__ __forceinline__ void claim_error(DevError* err, int32_t flag, const OpName& nm, int64_t index,
                                            int64_t size) {
    if (atomicCAS(&err->flag, 0, flag) != 0) return;
    int k = 0;
    for (; nm.s[k] && k < static_cast<int>(sizeof err->op) - 1; k++) err->op[k] = nm.s[k];
    err->op[k] = 0;
    err->index = index, err->size = size;
}

template <int Code> struct AccOf { using type = float; };
template <> struct AccOf<NB_F64> { using type = double; };

// Element i of a float array of dtype Code in its accumulation type.
template <int Code> __device__ __forceinline__ typename AccOf<Code>::type ld_acc(const void* p, int64_t i) {
    using T = typename Storage<Code>::type;
    if constexpr (Code == NB_F64) return static_cast<const T*>(p)[i];
    else return load_f32<Code>(static_cast<const T*>(p)[i]);
}

template <int Code> __device__ __forceinline__ void st_f64(void* p, int64_t i, double v) {
    static_cast<typename Storage<Code>::type*>(p)[i] = from_f64<Code>(v);
}

// Calls f(std::integral_constant<int, Code>{}) for a float dtype; other dtypes are invalid.
template <typename F> cudaError_t by_float_dtype(int32_t dtype, F&& f) {
    switch (dtype) {
        case NB_F32: return f(std::integral_constant<int, NB_F32>{});
        case NB_F64: return f(std::integral_constant<int, NB_F64>{});
        case NB_F16: return f(std::integral_constant<int, NB_F16>{});
        case NB_BF16: return f(std::integral_constant<int, NB_BF16>{});
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_FUSED_COMMON_CUH_
