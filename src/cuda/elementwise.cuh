// elementwise.cuh: the generic elementwise kernel family. One op is a scalar
// function of the compute type (float for f16/bf16); three kernels run it for
// the paths of ew_plan.h: ew_rows (dense or broadcast rows: offsets once per
// row, 16-byte vectors when the row starts are aligned; one flat run is a single
// row), ew_tile (a transposed input read through a 32x32 shared-memory tile) and
// ew_strided (per-element offsets; broadcast dims have stride 0). Grid-stride
// loops and 64-bit indices throughout. Integer and bool inputs (int64 storage,
// or bool) compute in int64 (ew_int.cuh) and take ew_contiguous (one flat run)
// and the strided kernel only.
#ifndef NABLA_CUDA_ELEMENTWISE_CUH_
#define NABLA_CUDA_ELEMENTWISE_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backend.h"
#include "ew_plan.h"
#include "ew_compare.cuh"
#include "ew_int.cuh"
#include "../ops/igamma_scalar.h"
#include "../ops/nextafter_scalar.h"
#include "launch.cuh"

namespace nbcuda {

struct Attrs {
    double alpha, beta, gamma;
    DevError* error;  // integer division: the device error word, or NULL
    int32_t op;       // the NB_BK_* code at run time (the shared bitwise kernel, ew_int.cuh)
};

template <typename T> struct Compute { using type = T; };
template <> struct Compute<__half> { using type = float; };
template <> struct Compute<__nv_bfloat16> { using type = float; };
template <> struct Compute<bool> { using type = int64_t; };

template <typename C> __device__ __forceinline__ C to_c(float x) { return x; }
template <typename C> __device__ __forceinline__ C to_c(double x) { return static_cast<C>(x); }
template <typename C> __device__ __forceinline__ C to_c(__half x) { return __half2float(x); }
template <typename C> __device__ __forceinline__ C to_c(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename C> __device__ __forceinline__ C to_c(int64_t x) { return x; }
template <typename C> __device__ __forceinline__ C to_c(bool x) { return x; }

template <typename T> __device__ __forceinline__ T from_c(float x) { return static_cast<T>(x); }
template <typename T> __device__ __forceinline__ T from_c(double x) { return static_cast<T>(x); }
template <> __device__ __forceinline__ __half from_c<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_c<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }
template <> __device__ __forceinline__ uint8_t from_c<uint8_t>(float x) { return x != 0; }
template <> __device__ __forceinline__ uint8_t from_c<uint8_t>(double x) { return x != 0; }
template <typename T> __device__ __forceinline__ T from_c(int64_t x) { return static_cast<T>(x); }  // bool: != 0

constexpr bool is_bool_op(int op) { return NB_BK_IS_BOOL(op); }
constexpr bool has_integer_kernel(int op) {
    switch (op) {
        NB_BK_INTEGER(NB_BK_CASE_) return true;
        default: return false;
    }
}
constexpr bool is_integer_only(int op) {
    switch (op) {
        NB_BK_INTEGER_ONLY(NB_BK_CASE_) return true;
        default: return false;
    }
}

// Python's floor division and modulo (as the CPU kernels and NumPy).
template <typename C> __device__ __forceinline__ C floordiv(C a, C b) {
    if (b == 0) return a / b;
    C mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return copysign(C(0), a / b);
    C fl = floor(div);
    return div - fl > C(0.5) ? fl + 1 : fl;
}

template <typename C> __device__ __forceinline__ C remainder(C a, C b) {
    C m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}

// sigmoid from e^-|x|, as the CPU kernels: 1 / (1 + e^-x) would flush to 0 where e^-x
// overflows (x < -88.7 in float32) instead of giving e^x's subnormals.
template <typename C> __device__ __forceinline__ C sigmoid(C x) {
    const C e = exp(-fabs(x));
    return x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e);
}

// The scalar function of op in the compute type C (y unused by unary ops); bool ops return 0 or 1.
template <int Op, typename C>
__device__ __forceinline__ C apply(C x, C y, const Attrs& p) {
    if constexpr (is_compare_op(Op)) {
        return compare<Op, C>(x, y);
    } else if constexpr (std::is_integral<C>::value) {
        return apply_int<Op>(x, y, p.alpha, p.beta, p.error, p.op);
    } else {
    constexpr C kInf = C(INFINITY);
    if constexpr (Op == NB_BK_ADD) return x + C(p.alpha) * y;
    else if constexpr (Op == NB_BK_SUB) return x - C(p.alpha) * y;
    else if constexpr (Op == NB_BK_MUL) return x * y;
    else if constexpr (Op == NB_BK_DIV) return x / y;
    else if constexpr (Op == NB_BK_DIV_TRUNC) return trunc(x / y);
    // in double, as the CPU kernels: floor division must round at the same boundaries
    else if constexpr (Op == NB_BK_DIV_FLOOR) return C(floordiv<double>(x, y));
    else if constexpr (Op == NB_BK_REMAINDER) return C(remainder<double>(x, y));
    else if constexpr (Op == NB_BK_FMOD) return fmod(x, y);
    else if constexpr (Op == NB_BK_POW) return pow(x, y);
    else if constexpr (Op == NB_BK_MAXIMUM) return (x != x || y != y) ? x + y : x > y ? x : y;
    else if constexpr (Op == NB_BK_MINIMUM) return (x != x || y != y) ? x + y : x < y ? x : y;
    else if constexpr (Op == NB_BK_ATAN2) return atan2(x, y);
    // in double for every dtype, as the CPU kernels (igamma_scalar.h)
    else if constexpr (Op == NB_BK_IGAMMA) return C(nb_scalar_igamma(double(x), double(y)));
    else if constexpr (Op == NB_BK_IGAMMAC) return C(nb_scalar_igammac(double(x), double(y)));
    else if constexpr (Op == NB_BK_IGAMMA_DX) return C(nb_scalar_igamma_dx(double(x), double(y)));
    // alpha, beta: the stored format's fraction bits and smallest normal exponent (nextafter_scalar.h)
    else if constexpr (Op == NB_BK_NEXTAFTER)
        return C(nb_scalar_nextafter(double(x), double(y), int(p.alpha), int(p.beta)));
    // gelu's gradient: x = grad_output, y = input (as the CPU kernels: erfc, no 1 + erf cancellation)
    else if constexpr (Op == NB_BK_GELU_BACKWARD)
        return x * (C(0.5) * erfc(-y * C(0.70710678118654752440)) + y * exp(C(-0.5) * y * y) * C(0.39894228040143267794));
    else if constexpr (Op == NB_BK_GELU_TANH_BACKWARD) {
        const C k2 = C(2 * 0.79788456080286535588), c = C(0.044715);
        const C s = sigmoid(k2 * (y + c * y * y * y));
        return x * (s + y * s * (C(1) - s) * k2 * (C(1) + C(3) * c * y * y));
    } else if constexpr (Op == NB_BK_EXP) return exp(x);
    else if constexpr (Op == NB_BK_EXP2) return exp2(x);
    else if constexpr (Op == NB_BK_EXPM1) return expm1(x);
    else if constexpr (Op == NB_BK_LOG) return log(x);
    else if constexpr (Op == NB_BK_LOG2) return log2(x);
    else if constexpr (Op == NB_BK_LOG10) return log10(x);
    else if constexpr (Op == NB_BK_LOG1P) return log1p(x);
    else if constexpr (Op == NB_BK_SQRT) return sqrt(x);
    else if constexpr (Op == NB_BK_RSQRT) return rsqrt(x);
    else if constexpr (Op == NB_BK_SIN) return sin(x);
    else if constexpr (Op == NB_BK_COS) return cos(x);
    else if constexpr (Op == NB_BK_TAN) return tan(x);
    else if constexpr (Op == NB_BK_ASIN) return asin(x);
    else if constexpr (Op == NB_BK_ACOS) return acos(x);
    else if constexpr (Op == NB_BK_ATAN) return atan(x);
    else if constexpr (Op == NB_BK_SINH) return sinh(x);
    else if constexpr (Op == NB_BK_COSH) return cosh(x);
    else if constexpr (Op == NB_BK_TANH) return tanh(x);
    else if constexpr (Op == NB_BK_SIGMOID) return sigmoid(x);
    else if constexpr (Op == NB_BK_ERF) return erf(x);
    else if constexpr (Op == NB_BK_ERFC) return erfc(x);
    else if constexpr (Op == NB_BK_RECIPROCAL) return C(1) / x;
    else if constexpr (Op == NB_BK_SILU) return x * sigmoid(x);
    // as the CPU kernels: erfc(-x / sqrt 2) and x sigmoid(2u), not 1 + erf and 1 + tanh, which
    // cancel for negative x (gelu(-10) would be 0 instead of -7.6e-23)
    else if constexpr (Op == NB_BK_GELU) return C(0.5) * x * erfc(-x * C(0.70710678118654752440));
    else if constexpr (Op == NB_BK_GELU_TANH)
        return x * sigmoid(C(2 * 0.79788456080286535588) * (x + C(0.044715) * x * x * x));
    else if constexpr (Op == NB_BK_SOFTPLUS) {
        const C beta = C(p.alpha);
        return x * beta > C(p.beta) ? x : log1p(exp(beta * x)) / beta;
    } else if constexpr (Op == NB_BK_ELU) return x > 0 ? x : C(p.alpha) * expm1(x);
    else if constexpr (Op == NB_BK_LEAKY_RELU) return x > 0 ? x : x * C(p.alpha);
    else if constexpr (Op == NB_BK_NEG) return -x;
    else if constexpr (Op == NB_BK_ABS) return fabs(x);
    else if constexpr (Op == NB_BK_SIGN) return x != x ? x : C((x > 0) - (x < 0));
    else if constexpr (Op == NB_BK_RELU) return x != x ? x : x > 0 ? x : C(0);
    else if constexpr (Op == NB_BK_SQUARE) return x * x;
    else if constexpr (Op == NB_BK_FLOOR) return floor(x);
    else if constexpr (Op == NB_BK_CEIL) return ceil(x);
    else if constexpr (Op == NB_BK_ROUND) return rint(x);  // half to even
    else if constexpr (Op == NB_BK_TRUNC) return trunc(x);
    else if constexpr (Op == NB_BK_NAN_TO_NUM)
        return x != x ? C(p.alpha) : x == kInf ? C(p.beta) : x == -kInf ? C(p.gamma) : x;
    else if constexpr (Op == NB_BK_CLAMP) {
        const C lo = C(p.alpha), hi = C(p.beta);
        return x != x ? x : (x < lo ? lo : x) > hi ? hi : (x < lo ? lo : x);
    } else if constexpr (Op == NB_BK_ISNAN) return x != x;
    else if constexpr (Op == NB_BK_ISINF) return x == kInf || x == -kInf;
    else if constexpr (Op == NB_BK_ISFINITE) return isfinite(x);
    else if constexpr (Op == NB_BK_LOGICAL_NOT) return x == 0;
    else static_assert(Op < 0, "unknown elementwise op");
    }
}

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
    T v[N];
};

// Operand i is a tensor (in[i]) or a value (scalar[i]); O is T, or uint8_t for bool ops.
template <typename T, typename O, int Op, int Nin>
__global__ void ew_contiguous(O* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int32_t sa,
                              int32_t sb, typename Compute<T>::type ca, typename Compute<T>::type cb, Attrs p, int64_t n, bool vectorised) {
    using C = typename Compute<T>::type;
    constexpr int N = 16 / sizeof(T);
    const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    int64_t tail = 0;
    if (vectorised) {
        const int64_t nv = n / N;
        for (int64_t v = tid; v < nv; v += step) {
            Vec<T, N> xa, xb;
            if (!sa) xa = reinterpret_cast<const Vec<T, N>*>(a)[v];
            if (Nin == 2 && !sb) xb = reinterpret_cast<const Vec<T, N>*>(b)[v];
            Vec<O, N> r;
#pragma unroll
            for (int k = 0; k < N; k++) {
                C x = sa ? ca : to_c<C>(xa.v[k]);
                C y = Nin == 2 ? (sb ? cb : to_c<C>(xb.v[k])) : C(0);
                r.v[k] = from_c<O>(apply<Op, C>(x, y, p));
            }
            reinterpret_cast<Vec<O, N>*>(out)[v] = r;
        }
        tail = nv * N;
    }
    for (int64_t i = tail + tid; i < n; i += step) {
        C x = sa ? ca : to_c<C>(a[i]);
        C y = Nin == 2 ? (sb ? cb : to_c<C>(b[i])) : C(0);
        out[i] = from_c<O>(apply<Op, C>(x, y, p));
    }
}

struct Strides {
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    int64_t s[3][NB_MAX_DIMS];  // out, a, b
};

template <typename T, typename O, int Op, int Nin>
__global__ void ew_strided(O* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int32_t sa,
                           int32_t sb, typename Compute<T>::type ca, typename Compute<T>::type cb, Attrs p, int64_t n, Strides st) {
    using C = typename Compute<T>::type;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t rem = i, oo = 0, oa = 0, ob = 0;
        for (int d = st.ndim - 1; d >= 0; d--) {
            const int64_t idx = rem % st.shape[d];
            rem /= st.shape[d];
            oo += idx * st.s[0][d];
            oa += idx * st.s[1][d];
            ob += idx * st.s[2][d];
        }
        C x = sa ? ca : to_c<C>(a[oa]);
        C y = Nin == 2 ? (sb ? cb : to_c<C>(b[ob])) : C(0);
        out[oo] = from_c<O>(apply<Op, C>(x, y, p));
    }
}

constexpr int kEwThreads = 256;
// Vectors (or elements) in flight per thread in ew_rows: 16 elements of a 2- or 4-byte
// type in 16-byte vectors, 8 of a double (each unrolled copy inlines the op once more).
template <typename T, bool Vector> __host__ __device__ constexpr int ew_unroll() { return Vector && sizeof(T) <= 2 ? 2 : 4; }
constexpr int kEwTile = 32, kEwTileRows = 8;

// Rows of the output (the dims before the last: shape and strides of out, a, b), each
// `inner` long; a tensor input is dense along a row or one value per row (bcast).
struct RowDims {
    int32_t nouter;
    int64_t shape[NB_MAX_DIMS];
    int64_t s[3][NB_MAX_DIMS];
    int64_t inner, tiles_per_row, ntiles;
    int32_t bcast[2];
};

// One block per tile of a row (blockDim.x * N * unroll elements): the row's offsets are
// computed once per tile, then every load of the tile is issued before the first store.
template <typename T, typename O, int Op, int Nin, bool Vector>
__global__ void ew_rows(O* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int32_t sa,
                        int32_t sb, typename Compute<T>::type ca, typename Compute<T>::type cb, Attrs p, RowDims rd) {
    using C = typename Compute<T>::type;
    constexpr int N = Vector ? 16 / sizeof(T) : 1, kEwUnroll = ew_unroll<T, Vector>();
    const int64_t width = static_cast<int64_t>(blockDim.x) * kEwUnroll * N;
    for (int64_t t = blockIdx.x; t < rd.ntiles; t += gridDim.x) {
        const int64_t row = t / rd.tiles_per_row, col0 = (t - row * rd.tiles_per_row) * width;
        int64_t rem = row, oo = 0, oa = 0, ob = 0;
        for (int d = rd.nouter - 1; d >= 0; d--) {
            const int64_t idx = rem % rd.shape[d];
            rem /= rd.shape[d];
            oo += idx * rd.s[0][d];
            oa += idx * rd.s[1][d];
            ob += idx * rd.s[2][d];
        }
        O* orow = out + oo;
        const T* arow = a + oa;
        const T* brow = b + ob;
        // a scalar or a broadcast input is one value for the whole row (a unary op's b: none)
        const bool ra = sa || rd.bcast[0], rb = Nin != 2 || sb || rd.bcast[1];
        const C row_a = sa ? ca : rd.bcast[0] ? to_c<C>(arow[0]) : C(0);
        const C row_b = Nin == 2 ? (sb ? cb : rd.bcast[1] ? to_c<C>(brow[0]) : C(0)) : C(0);
        Vec<T, N> xa[kEwUnroll], xb[kEwUnroll];
#pragma unroll
        for (int k = 0; k < kEwUnroll; k++) {
            const int64_t c = col0 + (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * N;
            if (c + N > rd.inner) continue;
            if (!ra) xa[k] = *reinterpret_cast<const Vec<T, N>*>(arow + c);
            if (!rb) xb[k] = *reinterpret_cast<const Vec<T, N>*>(brow + c);
        }
#pragma unroll
        for (int k = 0; k < kEwUnroll; k++) {
            const int64_t c = col0 + (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * N;
            if (c + N > rd.inner) continue;
            Vec<O, N> r;
#pragma unroll
            for (int e = 0; e < N; e++) {
                const C x = ra ? row_a : to_c<C>(xa[k].v[e]);
                const C y = rb ? row_b : to_c<C>(xb[k].v[e]);
                r.v[e] = from_c<O>(apply<Op, C>(x, y, p));
            }
            *reinterpret_cast<Vec<O, N>*>(orow + c) = r;
        }
        if (N > 1 && col0 + width >= rd.inner)  // the row's last tile: the elements after its last whole vector
            for (int64_t c = rd.inner / N * N + threadIdx.x; c < rd.inner; c += blockDim.x) {
                const C x = ra ? row_a : to_c<C>(arow[c]);
                const C y = rb ? row_b : to_c<C>(brow[c]);
                orow[c] = from_c<O>(apply<Op, C>(x, y, p));
            }
    }
}

// A batch of 2-D tiles over dims j (a tiled input's unit stride) and l (the output's
// last, unit stride); the other dims are the batch, decomposed once per tile.
struct TileDims {
    int32_t nbatch;
    int64_t shape[NB_MAX_DIMS];
    int64_t s[3][NB_MAX_DIMS];
    int64_t nj, nl;
    int64_t sj[3], sl[3];  // out, a, b along j and l (sl[0] == 1)
    int64_t tiles_j, tiles_l, ntiles;
    int32_t tiled[2];
};

// Block (32, 8). A tiled input is read with lanes along j into tile[l][j]; the output is
// written with lanes along l, reading tile[l][j] down a column (the +1 pad keeps that
// free of bank conflicts); other inputs are read at the output's positions.
template <typename T, typename O, int Op, int Nin>
__global__ void ew_tile(O* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int32_t sa,
                        int32_t sb, typename Compute<T>::type ca, typename Compute<T>::type cb, Attrs p, TileDims td) {
    using C = typename Compute<T>::type;
    __shared__ C tile[Nin][kEwTile][kEwTile + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const T* in[2] = {a, b};
    for (int64_t t = blockIdx.x; t < td.ntiles; t += gridDim.x) {
        int64_t rem = t;
        const int64_t l0 = rem % td.tiles_l * kEwTile;
        rem /= td.tiles_l;
        const int64_t j0 = rem % td.tiles_j * kEwTile;
        rem /= td.tiles_j;
        int64_t off[3] = {0, 0, 0};
        for (int d = td.nbatch - 1; d >= 0; d--) {
            const int64_t idx = rem % td.shape[d];
            rem /= td.shape[d];
            for (int k = 0; k < 3; k++) off[k] += idx * td.s[k][d];
        }
#pragma unroll
        for (int i = 0; i < Nin; i++) {
            if (!td.tiled[i]) continue;
            for (int r = ty; r < kEwTile; r += kEwTileRows)
                if (j0 + tx < td.nj && l0 + r < td.nl)
                    tile[i][r][tx] = to_c<C>(in[i][off[1 + i] + j0 + tx + (l0 + r) * td.sl[1 + i]]);
        }
        __syncthreads();
        for (int r = ty; r < kEwTile; r += kEwTileRows) {
            const int64_t j = j0 + r, l = l0 + tx;
            if (j >= td.nj || l >= td.nl) continue;
            const C x = sa ? ca : td.tiled[0] ? tile[0][tx][r] : to_c<C>(a[off[1] + j * td.sj[1] + l * td.sl[1]]);
            C y = C(0);
            if (Nin == 2) y = sb ? cb : td.tiled[1] ? tile[Nin - 1][tx][r] : to_c<C>(b[off[2] + j * td.sj[2] + l * td.sl[2]]);
            out[off[0] + j * td.sj[0] + l] = from_c<O>(apply<Op, C>(x, y, p));
        }
        __syncthreads();  // the tile is rewritten by the next iteration
    }
}

inline int ew_blocks(int64_t work) {
    int64_t b = (work + kEwThreads - 1) / kEwThreads;
    if (b < 1) b = 1;
    return static_cast<int>(b < 65535 * 8 ? b : 65535 * 8);
}

// A scalar operand in the kernel's compute type (integer kernels: exact, from scalar_i64).
template <typename T> inline typename Compute<T>::type scalar_arg(const EwPlan& pl, int i) {
    using C = typename Compute<T>::type;
    if constexpr (std::is_integral<C>::value) return pl.scalar_i64[i];
    else return C(pl.scalar[i]);
}

inline Strides strides_of(const EwPlan& pl) {
    Strides st;
    st.ndim = pl.ndim;
    for (int d = 0; d < pl.ndim; d++) {
        st.shape[d] = pl.shape[d];
        st.s[0][d] = pl.out_strides[d];
        st.s[1][d] = pl.in_strides[0][d];
        st.s[2][d] = pl.in_strides[1][d];
    }
    return st;
}

// Integer and bool kernels: the contiguous kernel for one flat run, else the strided one.
template <typename T, int Op, int Nin>
cudaError_t ew_launch_integer(const EwPlan& pl, cudaStream_t stream) {
    if constexpr (!has_integer_kernel(Op)) {
        return cudaErrorInvalidValue;
    } else if constexpr (Op == NB_BK_BITWISE_NOT && std::is_same<T, bool>::value) {
        return ew_launch_integer<bool, NB_BK_LOGICAL_NOT, Nin>(pl, stream);  // ~ on bool is not
    } else {
        using O = typename std::conditional<is_bool_op(Op), uint8_t, T>::type;
        O* out = static_cast<O*>(pl.out);
        const T* a = static_cast<const T*>(pl.in[0]);
        const T* b = static_cast<const T*>(pl.in[1]);
        const Attrs p{pl.alpha, pl.beta, pl.gamma, pl.error, pl.op};
        if (pl.path == EW_CONTIGUOUS) {
            constexpr int N = 16 / sizeof(T);
            NB_LAUNCH(ew_blocks(pl.vectorised ? pl.numel / N + 1 : pl.numel), kEwThreads, 0, stream,
                      ew_contiguous<T, O, Op, Nin>)(out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0),
                                                    scalar_arg<T>(pl, 1), p, pl.numel, pl.vectorised);
        } else {
            NB_LAUNCH(ew_blocks(pl.numel), kEwThreads, 0, stream, ew_strided<T, O, Op, Nin>)(
                out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0), scalar_arg<T>(pl, 1), p, pl.numel,
                strides_of(pl));
        }
        return cudaGetLastError();
    }
}

// ew_rows over the rows rd (shape, strides and broadcast flags filled in): threads enough
// to cover a row in one tile, in whole warps, at most kEwThreads.
template <typename T, typename O, int Op, int Nin>
void ew_launch_rows(const EwPlan& pl, RowDims& rd, cudaStream_t stream) {
    O* out = static_cast<O*>(pl.out);
    const T* a = static_cast<const T*>(pl.in[0]);
    const T* b = static_cast<const T*>(pl.in[1]);
    const Attrs p{pl.alpha, pl.beta, pl.gamma, nullptr, pl.op};
    const int64_t per_thread = pl.vectorised ? ew_unroll<T, true>() * (16 / sizeof(T)) : ew_unroll<T, false>();
    int64_t threads = (rd.inner + per_thread - 1) / per_thread;
    threads = threads > kEwThreads ? kEwThreads : (threads + 31) / 32 * 32;
    const int64_t width = threads * per_thread;
    rd.tiles_per_row = (rd.inner + width - 1) / width;
    rd.ntiles = rd.tiles_per_row * (pl.numel / rd.inner);
    const int blocks = static_cast<int>(rd.ntiles < 65535 * 8 ? rd.ntiles : 65535 * 8);
    if (pl.vectorised)
        NB_LAUNCH(blocks, static_cast<unsigned>(threads), 0, stream, ew_rows<T, O, Op, Nin, true>)(
            out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0), scalar_arg<T>(pl, 1), p, rd);
    else
        NB_LAUNCH(blocks, static_cast<unsigned>(threads), 0, stream, ew_rows<T, O, Op, Nin, false>)(
            out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0), scalar_arg<T>(pl, 1), p, rd);
}

template <typename T, int Op, int Nin>
cudaError_t ew_launch_typed(const EwPlan& pl, cudaStream_t stream) {
    using O = typename std::conditional<is_bool_op(Op), uint8_t, T>::type;
    O* out = static_cast<O*>(pl.out);
    const T* a = static_cast<const T*>(pl.in[0]);
    const T* b = static_cast<const T*>(pl.in[1]);
    const Attrs p{pl.alpha, pl.beta, pl.gamma, nullptr, pl.op};
    const int nd = pl.ndim;
    if (pl.path == EW_CONTIGUOUS) {  // one row of numel elements; every tensor operand dense
        RowDims rd;
        rd.nouter = 0;
        rd.inner = pl.numel;
        rd.bcast[0] = rd.bcast[1] = 0;
        ew_launch_rows<T, O, Op, Nin>(pl, rd, stream);
    } else if (pl.path == EW_ROWS) {
        RowDims rd;
        rd.nouter = nd - 1;
        for (int d = 0; d < rd.nouter; d++) {
            rd.shape[d] = pl.shape[d];
            rd.s[0][d] = pl.out_strides[d];
            rd.s[1][d] = pl.in_strides[0][d];
            rd.s[2][d] = pl.in_strides[1][d];
        }
        rd.inner = pl.shape[nd - 1];
        for (int i = 0; i < 2; i++) rd.bcast[i] = !pl.is_scalar[i] && pl.in_strides[i][nd - 1] == 0;
        ew_launch_rows<T, O, Op, Nin>(pl, rd, stream);
    } else if (pl.path == EW_TILE) {
        TileDims td;
        td.nbatch = 0;
        for (int d = 0; d < nd - 1; d++) {
            if (d == pl.tile_dim) continue;
            td.shape[td.nbatch] = pl.shape[d];
            td.s[0][td.nbatch] = pl.out_strides[d];
            td.s[1][td.nbatch] = pl.in_strides[0][d];
            td.s[2][td.nbatch++] = pl.in_strides[1][d];
        }
        const int j = pl.tile_dim, l = nd - 1;
        td.nj = pl.shape[j], td.nl = pl.shape[l];
        td.sj[0] = pl.out_strides[j], td.sl[0] = pl.out_strides[l];
        for (int i = 0; i < 2; i++) {
            td.sj[1 + i] = pl.in_strides[i][j], td.sl[1 + i] = pl.in_strides[i][l];
            td.tiled[i] = pl.tiled[i];
        }
        td.tiles_j = (td.nj + kEwTile - 1) / kEwTile, td.tiles_l = (td.nl + kEwTile - 1) / kEwTile;
        td.ntiles = td.tiles_j * td.tiles_l * (pl.numel / (td.nj * td.nl));
        const int blocks = static_cast<int>(td.ntiles < 65535 * 8 ? td.ntiles : 65535 * 8);
        NB_LAUNCH(blocks, dim3(kEwTile, kEwTileRows), 0, stream, ew_tile<T, O, Op, Nin>)(
            out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0), scalar_arg<T>(pl, 1), p, td);
    } else {
        NB_LAUNCH(ew_blocks(pl.numel), kEwThreads, 0, stream, ew_strided<T, O, Op, Nin>)(
            out, a, b, pl.is_scalar[0], pl.is_scalar[1], scalar_arg<T>(pl, 0), scalar_arg<T>(pl, 1), p, pl.numel,
            strides_of(pl));
    }
    return cudaGetLastError();
}

template <int Op, int Nin>
cudaError_t ew_launch(const EwPlan& pl, cudaStream_t stream) {
    if constexpr (is_integer_only(Op) && Nin == 2 && Op != kBitwiseBinary) {
        return ew_launch<kBitwiseBinary, 2>(pl, stream);  // one instance for the binary bitwise ops
    } else if constexpr (is_integer_only(Op)) {
        switch (pl.dtype) {
            case NB_I64: return ew_launch_integer<int64_t, Op, Nin>(pl, stream);
            case NB_BOOL: return ew_launch_integer<bool, Op, Nin>(pl, stream);
            default: return cudaErrorInvalidValue;
        }
    } else {
        switch (pl.dtype) {
            case NB_F32: return ew_launch_typed<float, Op, Nin>(pl, stream);
            case NB_F64: return ew_launch_typed<double, Op, Nin>(pl, stream);
            case NB_F16: return ew_launch_typed<__half, Op, Nin>(pl, stream);
            case NB_BF16: return ew_launch_typed<__nv_bfloat16, Op, Nin>(pl, stream);
            case NB_I64: return ew_launch_integer<int64_t, Op, Nin>(pl, stream);
            case NB_BOOL: return ew_launch_integer<bool, Op, Nin>(pl, stream);
            default: return cudaErrorInvalidValue;
        }
    }
}

using EwLaunchFn = cudaError_t (*)(const EwPlan&, cudaStream_t);

// Per-family dispatch (ew_binary.cu, ew_unary.cu), split so the two compile in parallel:
// tables indexed by the code (unary: code - NB_BK_NUM_BINARY), built from ew_codes.h.
cudaError_t ew_binary(const EwPlan& pl, cudaStream_t stream);
cudaError_t ew_unary(const EwPlan& pl, cudaStream_t stream);

}  // namespace nbcuda

#endif  // NABLA_CUDA_ELEMENTWISE_CUH_
