// ew_int.cuh: the elementwise ops on integers and bool, in int64. Arithmetic wraps
// (it runs in uint64, where overflow is defined), as PyTorch's and the CPU kernels'.
// Division or remainder by zero cannot raise from a kernel: it gives -1 (the
// quotient) or the dividend (the remainder), as PyTorch's CUDA kernels return a
// value, and claims the device error word (index_plan.h), so the next
// synchronising call raises the CPU's ZeroDivisionError. INT64_MIN / -1 wraps.
// Comparisons and logical ops are ew_compare.cuh's, shared with the float kernels.
// The bitwise ops (NB_BK_INTEGER_ONLY) have no float kernel; the binary ones share one
// kernel instance (kBitwiseBinary) that takes the op at run time: they only move bits,
// so a uniform switch costs nothing next to the memory traffic, and it saves the
// compile time of four more instances per dtype and path.
#ifndef NABLA_CUDA_EW_INT_CUH_
#define NABLA_CUDA_EW_INT_CUH_

#include <cuda_runtime.h>

#include <cstdint>

#include "backend.h"
#include "index_plan.h"

namespace nbcuda {

__device__ __forceinline__ int64_t wrap_add(int64_t x, int64_t y) {
    return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
__device__ __forceinline__ int64_t wrap_mul(int64_t x, int64_t y) {
    return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
__device__ __forceinline__ int64_t wrap_neg(int64_t x) { return static_cast<int64_t>(0 - static_cast<uint64_t>(x)); }

__device__ __forceinline__ int64_t div_trunc(int64_t x, int64_t y) {
    if (y == 0) return -1;
    if (y == -1) return wrap_neg(x);  // INT64_MIN / -1 traps on the CPU
    return x / y;
}
__device__ __forceinline__ int64_t mod_trunc(int64_t x, int64_t y) {
    if (y == 0) return x;
    if (y == -1) return 0;
    return x % y;
}
__device__ __forceinline__ int64_t div_floor(int64_t x, int64_t y) {
    const int64_t q = div_trunc(x, y);
    return y != 0 && mod_trunc(x, y) != 0 && ((x < 0) != (y < 0)) ? q - 1 : q;
}
__device__ __forceinline__ int64_t mod_floor(int64_t x, int64_t y) {
    const int64_t r = mod_trunc(x, y);
    return y != 0 && r != 0 && ((r < 0) != (y < 0)) ? r + y : r;
}

// x ** y by squaring (wrapping); a negative exponent leaves 1 / x ** |y| truncated.
__device__ __forceinline__ int64_t int_pow(int64_t x, int64_t y) {
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    int64_t r = 1;
    while (y > 0) {
        if (y & 1) r = wrap_mul(r, x);
        x = wrap_mul(x, x);
        y >>= 1;
    }
    return r;
}

// The clamp bounds (float attributes) on an integer: compared exactly, as the CPU kernel.
__device__ __forceinline__ int64_t int_clamp(int64_t x, double lo, double hi) {
    const double v = static_cast<double>(x);
    if (v < lo) x = static_cast<int64_t>(lo);
    if (static_cast<double>(x) > hi) x = static_cast<int64_t>(hi);
    return x;
}

// Shifts as the CPU kernels (PyTorch's rules): a count outside [0, 64) shifts everything
// out: 0 to the left, the sign to the right. On int64 and narrowed to the input's width
// this gives that width's result, since narrowing keeps the low bits.
__device__ __forceinline__ int64_t shift_left(int64_t x, int64_t y) {
    return (y < 0 || y >= 64) ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << y);
}
__device__ __forceinline__ int64_t shift_right(int64_t x, int64_t y) {
    return (y < 0 || y >= 64) ? (x < 0 ? -1 : 0) : x >> y;
}

constexpr int kBitwiseBinary = NB_BK_BITWISE_AND;

__device__ __forceinline__ int64_t bitwise_binary(int64_t x, int64_t y, int32_t op) {
    switch (op) {
        case NB_BK_BITWISE_OR: return x | y;
        case NB_BK_BITWISE_XOR: return x ^ y;
        case NB_BK_BITWISE_LEFT_SHIFT: return shift_left(x, y);
        case NB_BK_BITWISE_RIGHT_SHIFT: return shift_right(x, y);
        default: return x & y;
    }
}

// A zero divisor: the first one claims the word with the kernel's code (err NULL: not reported).
template <int Op> __device__ __forceinline__ void report_zero_division(DevError* err) {
    if (err != nullptr && atomicCAS(&err->flag, 0, kDevErrorZeroDivision) == 0) err->dim = Op;
}

template <int Op>
__device__ __forceinline__ int64_t apply_int(int64_t x, int64_t y, double alpha, double beta, DevError* err,
                                             int32_t op) {
    if constexpr (Op == NB_BK_DIV_TRUNC || Op == NB_BK_DIV_FLOOR || Op == NB_BK_REMAINDER || Op == NB_BK_FMOD)
        if (y == 0) report_zero_division<Op>(err);
    if constexpr (Op == kBitwiseBinary) return bitwise_binary(x, y, op);  // the op at run time
    else if constexpr (Op == NB_BK_ADD) return wrap_add(x, wrap_mul(static_cast<int64_t>(alpha), y));
    else if constexpr (Op == NB_BK_SUB) return wrap_add(x, wrap_neg(wrap_mul(static_cast<int64_t>(alpha), y)));
    else if constexpr (Op == NB_BK_MUL) return wrap_mul(x, y);
    else if constexpr (Op == NB_BK_DIV_TRUNC) return div_trunc(x, y);
    else if constexpr (Op == NB_BK_DIV_FLOOR) return div_floor(x, y);
    else if constexpr (Op == NB_BK_REMAINDER) return mod_floor(x, y);
    else if constexpr (Op == NB_BK_FMOD) return mod_trunc(x, y);
    else if constexpr (Op == NB_BK_POW) return int_pow(x, y);
    else if constexpr (Op == NB_BK_MAXIMUM) return x > y ? x : y;
    else if constexpr (Op == NB_BK_MINIMUM) return x < y ? x : y;
    else if constexpr (Op == NB_BK_NEG) return wrap_neg(x);
    else if constexpr (Op == NB_BK_ABS) return x < 0 ? wrap_neg(x) : x;
    else if constexpr (Op == NB_BK_SIGN) return (x > 0) - (x < 0);
    else if constexpr (Op == NB_BK_RELU) return x > 0 ? x : 0;
    else if constexpr (Op == NB_BK_SQUARE) return wrap_mul(x, x);
    else if constexpr (Op == NB_BK_FLOOR || Op == NB_BK_CEIL || Op == NB_BK_ROUND || Op == NB_BK_TRUNC) return x;
    else if constexpr (Op == NB_BK_LOGICAL_NOT) return x == 0;
    else if constexpr (Op == NB_BK_ISNAN || Op == NB_BK_ISINF) return 0;
    else if constexpr (Op == NB_BK_ISFINITE) return 1;
    else if constexpr (Op == NB_BK_CLAMP) return int_clamp(x, alpha, beta);
    else if constexpr (Op == NB_BK_BITWISE_NOT) return ~x;  // bool takes LOGICAL_NOT (elementwise.cuh)
    else static_assert(Op < 0, "no integer kernel for this op (nb_bk_has_integer_kernel)");
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_EW_INT_CUH_
