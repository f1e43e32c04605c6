// dtypes.cuh: nabla's dtype codes as device types, and the conversions of
// src/cpu/convert.c on the device: floats round once to nearest even; integers
// go through int64 (narrowing wraps); float -> integer truncates toward zero,
// NaN and out-of-range values giving INT64_MIN first (as the CPU kernels and
// NumPy on x86); anything -> bool is != 0.
#ifndef NABLA_CUDA_DTYPES_CUH_
#define NABLA_CUDA_DTYPES_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "backend.h"

namespace nbcuda {

template <int Code> struct Storage;
template <> struct Storage<NB_F32> { using type = float; };
template <> struct Storage<NB_F64> { using type = double; };
template <> struct Storage<NB_F16> { using type = __half; };
template <> struct Storage<NB_BF16> { using type = __nv_bfloat16; };
template <> struct Storage<NB_I8> { using type = int8_t; };
template <> struct Storage<NB_I16> { using type = int16_t; };
template <> struct Storage<NB_I32> { using type = int32_t; };
template <> struct Storage<NB_I64> { using type = int64_t; };
template <> struct Storage<NB_U8> { using type = uint8_t; };
template <> struct Storage<NB_BOOL> { using type = uint8_t; };

__host__ __device__ constexpr bool is_float_code(int c) { return c == NB_F32 || c == NB_F64 || c == NB_F16 || c == NB_BF16; }

// A float dtype's value as double (exact).
template <int Code> __device__ __forceinline__ double load_f64(typename Storage<Code>::type x) {
    if constexpr (Code == NB_F16) return static_cast<double>(__half2float(x));
    else if constexpr (Code == NB_BF16) return static_cast<double>(__bfloat162float(x));
    else return static_cast<double>(x);
}

// A float dtype's value in float (exact except for float64, which rounds).
template <int Code> __device__ __forceinline__ float load_f32(typename Storage<Code>::type x) {
    if constexpr (Code == NB_F16) return __half2float(x);
    else if constexpr (Code == NB_BF16) return __bfloat162float(x);
    else return static_cast<float>(x);
}

__device__ __forceinline__ int64_t float_to_int(double v) {
    return (v >= -9.2233720368547758e18 && v < 9.2233720368547758e18) ? static_cast<int64_t>(v) : INT64_MIN;
}

template <int Code> __device__ __forceinline__ typename Storage<Code>::type from_f64(double v) {
    using T = typename Storage<Code>::type;
    if constexpr (Code == NB_F16) return __double2half(v);
    else if constexpr (Code == NB_BF16) return __double2bfloat16(v);
    else if constexpr (Code == NB_F32 || Code == NB_F64) return static_cast<T>(v);
    else if constexpr (Code == NB_BOOL) return v != 0;
    else return static_cast<T>(float_to_int(v));
}

template <int Code> __device__ __forceinline__ typename Storage<Code>::type from_i64(int64_t v) {
    using T = typename Storage<Code>::type;
    if constexpr (Code == NB_F16) return __double2half(static_cast<double>(v));  // as the CPU: through double
    else if constexpr (Code == NB_BF16) return __double2bfloat16(static_cast<double>(v));
    else if constexpr (Code == NB_BOOL) return v != 0;
    else return static_cast<T>(v);
}

// dst = convert(src) between any two dtypes.
template <int DC, int SC>
__device__ __forceinline__ typename Storage<DC>::type convert(typename Storage<SC>::type x) {
    if constexpr (DC == SC) return x;
    else if constexpr (is_float_code(SC)) return from_f64<DC>(load_f64<SC>(x));
    else return from_i64<DC>(static_cast<int64_t>(x));
}

// Stores a float result into an element of dtype (run-time code), rounded once.
__device__ __forceinline__ void store_f64(void* p, int32_t dtype, double v) {
    switch (dtype) {
        case NB_F32: *static_cast<float*>(p) = from_f64<NB_F32>(v); break;
        case NB_F64: *static_cast<double*>(p) = v; break;
        case NB_F16: *static_cast<__half*>(p) = from_f64<NB_F16>(v); break;
        case NB_BF16: *static_cast<__nv_bfloat16*>(p) = from_f64<NB_BF16>(v); break;
        case NB_I8: *static_cast<int8_t*>(p) = from_f64<NB_I8>(v); break;
        case NB_I16: *static_cast<int16_t*>(p) = from_f64<NB_I16>(v); break;
        case NB_I32: *static_cast<int32_t*>(p) = from_f64<NB_I32>(v); break;
        case NB_I64: *static_cast<int64_t*>(p) = from_f64<NB_I64>(v); break;
        default: *static_cast<uint8_t*>(p) = dtype == NB_BOOL ? from_f64<NB_BOOL>(v) : from_f64<NB_U8>(v);
    }
}

// Stores an integer result into an element of dtype (run-time code).
__device__ __forceinline__ void store_i64(void* p, int32_t dtype, int64_t v) {
    switch (dtype) {
        case NB_F32: *static_cast<float*>(p) = from_i64<NB_F32>(v); break;
        case NB_F64: *static_cast<double*>(p) = from_i64<NB_F64>(v); break;
        case NB_F16: *static_cast<__half*>(p) = from_i64<NB_F16>(v); break;
        case NB_BF16: *static_cast<__nv_bfloat16*>(p) = from_i64<NB_BF16>(v); break;
        case NB_I8: *static_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
        case NB_I16: *static_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
        case NB_I32: *static_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
        case NB_I64: *static_cast<int64_t*>(p) = v; break;
        default: *static_cast<uint8_t*>(p) = dtype == NB_BOOL ? (v != 0) : static_cast<uint8_t>(v);
    }
}

// Calls f.template operator()<Code>() for a run-time dtype code.
template <typename F> __host__ __forceinline__ cudaError_t with_dtype(int32_t code, F&& f) {
    switch (code) {
        case NB_F32: return f.template operator()<NB_F32>();
        case NB_F64: return f.template operator()<NB_F64>();
        case NB_F16: return f.template operator()<NB_F16>();
        case NB_BF16: return f.template operator()<NB_BF16>();
        case NB_I8: return f.template operator()<NB_I8>();
        case NB_I16: return f.template operator()<NB_I16>();
        case NB_I32: return f.template operator()<NB_I32>();
        case NB_I64: return f.template operator()<NB_I64>();
        case NB_U8: return f.template operator()<NB_U8>();
        case NB_BOOL: return f.template operator()<NB_BOOL>();
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_DTYPES_CUH_
