// cuda_emu.h: CUDA's device side for host C++, force-included (-include) into
// every src/cuda source when the plugin is built with -Demulate_cuda=true. Test
// infrastructure only: it runs nabla's kernels on the CPU so CI exercises them.
//
// What it provides: the built-in index variables (per-thread values the block
// scheduler sets), __shared__ as per-OS-thread storage (a block runs on one OS
// thread, so that is per block), barriers and warp shuffles (emu_exec.cpp runs a
// block's threads as fibers), atomics, fast-math intrinsics, and the launch
// helper behind NB_LAUNCH (launch.cuh), and the tensor cores' nvcuda::wmma
// (emu_wmma.h). The toolkit's own headers supply dim3,
// the vector types and host __half / __nv_bfloat16 arithmetic.
//
// What it does not: a memory model weaker than sequential consistency (a missing
// __syncthreads between a write and another thread's read is not guaranteed to
// show), warp sizes other than 32, independent thread scheduling inside a warp
// beyond what barriers force, texture/surface objects, cooperative groups.
#ifndef NABLA_CUDA_EMU_H_
#define NABLA_CUDA_EMU_H_

#define NABLA_CUDA_EMULATE 1

#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

namespace nbemu {

// Trivially constructible on purpose: a thread_local with a constructor is read
// through a TLS wrapper call at every use.
struct Builtins {
    uint3 thread_idx, block_idx, block_dim, grid_dim;
};
// The running CUDA thread's indices; the block scheduler updates them at every switch.
extern thread_local Builtins builtins;

// ---- the block scheduler's services (emu_exec.cpp) ----
void sync_block();
int sync_block_count(int predicate);  // __syncthreads_count: how many threads passed a true predicate
void sync_warp(unsigned mask);
// Two-phase exchange through the warp's slots: publishes v, waits for the lanes
// in mask, returns the value lane src published, waits again.
unsigned long long warp_exchange(unsigned mask, unsigned long long v, int src);
unsigned warp_ballot(unsigned mask, int predicate);
unsigned lane_id();
void* dynamic_shared();

// ---- launches ----
using Thunk = void (*)(void* state);
// Checks the configuration (failing with a message as a GPU would) and queues the
// grid on stream; thunk(state) runs one CUDA thread; destroy(state) runs once after.
cudaError_t launch(const char* name, const void* func, dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                   Thunk thunk, void* state, void (*destroy)(void*), const void* const* pointers, int npointers);

template <class... P>
struct Launcher {
    void (*kernel)(P...);
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
    const char* name;

    using Args = std::tuple<std::decay_t<P>...>;
    struct State {
        void (*kernel)(P...);
        Args args;
    };
    // Each CUDA thread gets its own copy of the arguments, as kernel parameters are.
    static void run(void* p) {
        State* s = static_cast<State*>(p);
        std::apply(s->kernel, s->args);
    }
    static void destroy(void* p) { delete static_cast<State*>(p); }

    template <class... A>
    void operator()(A&&... a) const {
        static_assert(sizeof...(A) == sizeof...(P), "NB_LAUNCH: wrong number of kernel arguments");
        State* s = new State{kernel, Args(std::forward<A>(a)...)};
        const void* ptrs[sizeof...(P) + 1] = {};
        int n = 0;
        std::apply([&](const auto&... x) { ((collect(x, ptrs, n)), ...); }, s->args);
        launch(name, reinterpret_cast<const void*>(kernel), grid, block, smem, stream, &run, s, &destroy, ptrs, n);
    }

   private:
    template <class T>
    static void collect(const T& x, const void** ptrs, int& n) {
        if constexpr (std::is_pointer<T>::value) ptrs[n++] = static_cast<const void*>(x);
    }
};

template <class... P>
Launcher<P...> launcher(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, const char* name,
                        void (*kernel)(P...)) {
    return Launcher<P...>{kernel, grid, block, smem, stream, name};
}

template <class T>
unsigned long long to_bits(T v) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof v);
    return b;
}
template <class T>
T from_bits(unsigned long long b) {
    T v;
    std::memcpy(&v, &b, sizeof v);
    return v;
}

template <class T>
T atomic_update(T* p, T (*f)(T, T), T v) {  // CAS loop for types without a native fetch-op
    T old, assumed;
    __atomic_load(p, &old, __ATOMIC_SEQ_CST);
    do {
        assumed = old;
        T want = f(assumed, v);
        if (__atomic_compare_exchange(p, &old, &want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
    } while (true);
    return assumed;
}

}  // namespace nbemu

// ---- built-in variables ----
#define threadIdx (::nbemu::builtins.thread_idx)
#define blockIdx (::nbemu::builtins.block_idx)
#define blockDim (::nbemu::builtins.block_dim)
#define gridDim (::nbemu::builtins.grid_dim)
#define warpSize 32

// Static shared memory: one copy per OS thread, which runs one block at a time.
#undef __shared__
#define __shared__ thread_local
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif

// ---- barriers, warps ----
inline void __syncthreads() { ::nbemu::sync_block(); }
inline int __syncthreads_count(int p) { return ::nbemu::sync_block_count(p); }
inline int __syncthreads_and(int p) { return ::nbemu::sync_block_count(p) == (int)(blockDim.x * blockDim.y * blockDim.z); }
inline int __syncthreads_or(int p) { return ::nbemu::sync_block_count(p) != 0; }
inline void __syncwarp(unsigned mask = 0xffffffffu) { ::nbemu::sync_warp(mask); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline unsigned __activemask() { return 0xffffffffu; }
inline unsigned __ballot_sync(unsigned mask, int p) { return ::nbemu::warp_ballot(mask, p); }
inline int __all_sync(unsigned mask, int p) { return (::nbemu::warp_ballot(mask, p) & mask) == mask; }
inline int __any_sync(unsigned mask, int p) { return (::nbemu::warp_ballot(mask, p) & mask) != 0; }

// Shuffles within segments of `width` lanes; a source outside the segment reads the caller's own value.
template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = 32) {
    const int lane = (int)::nbemu::lane_id(), base = lane & ~(width - 1);
    return ::nbemu::from_bits<T>(::nbemu::warp_exchange(mask, ::nbemu::to_bits(v), base + (src & (width - 1))));
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    const int lane = (int)::nbemu::lane_id(), base = lane & ~(width - 1), src = lane - (int)delta;
    return ::nbemu::from_bits<T>(::nbemu::warp_exchange(mask, ::nbemu::to_bits(v), src < base ? lane : src));
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
    const int lane = (int)::nbemu::lane_id(), base = lane & ~(width - 1), src = lane + (int)delta;
    return ::nbemu::from_bits<T>(::nbemu::warp_exchange(mask, ::nbemu::to_bits(v), src >= base + width ? lane : src));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
    const int lane = (int)::nbemu::lane_id(), base = lane & ~(width - 1), src = lane ^ lane_mask;
    return ::nbemu::from_bits<T>(::nbemu::warp_exchange(mask, ::nbemu::to_bits(v), src >= base + width ? lane : src));
}

// ---- atomics (sequentially consistent: stronger than CUDA's relaxed ones) ----
#define NBEMU_ATOMIC_INT(T)                                                                                     \
    inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }                        \
    inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }                        \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }                        \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }                          \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }                        \
    inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }                      \
    inline T atomicCAS(T* p, T cmp, T v) {                                                                       \
        __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                     \
        return cmp;                                                                                             \
    }                                                                                                           \
    inline T atomicMax(T* p, T v) {                                                                              \
        return ::nbemu::atomic_update<T>(p, [](T a, T b) { return a > b ? a : b; }, v);                        \
    }                                                                                                           \
    inline T atomicMin(T* p, T v) {                                                                              \
        return ::nbemu::atomic_update<T>(p, [](T a, T b) { return a < b ? a : b; }, v);                        \
    }
NBEMU_ATOMIC_INT(int)
NBEMU_ATOMIC_INT(unsigned int)
NBEMU_ATOMIC_INT(unsigned long long)
NBEMU_ATOMIC_INT(long long)
#undef NBEMU_ATOMIC_INT
inline float atomicAdd(float* p, float v) { return ::nbemu::atomic_update<float>(p, [](float a, float b) { return a + b; }, v); }
inline double atomicAdd(double* p, double v) {
    return ::nbemu::atomic_update<double>(p, [](double a, double b) { return a + b; }, v);
}
inline float atomicExch(float* p, float v) {
    float old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
inline float atomicMax(float* p, float v) { return ::nbemu::atomic_update<float>(p, [](float a, float b) { return a > b ? a : b; }, v); }
inline float atomicMin(float* p, float v) { return ::nbemu::atomic_update<float>(p, [](float a, float b) { return a < b ? a : b; }, v); }

// ---- loads, intrinsics, the classification functions CUDA has unqualified ----
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;
template <class T>
inline T __ldg(const T* p) { return *p; }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __powf(float x, float y) { return std::pow(x, y); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline int __float_as_int(float x) { return ::nbemu::from_bits<int>(::nbemu::to_bits(x)); }
inline unsigned __float_as_uint(float x) { return ::nbemu::from_bits<unsigned>(::nbemu::to_bits(x)); }
inline float __int_as_float(int x) { return ::nbemu::from_bits<float>(::nbemu::to_bits(x)); }
inline float __uint_as_float(unsigned x) { return ::nbemu::from_bits<float>(::nbemu::to_bits(x)); }
inline long long __double_as_longlong(double x) { return ::nbemu::from_bits<long long>(::nbemu::to_bits(x)); }
inline double __longlong_as_double(long long x) { return ::nbemu::from_bits<double>(::nbemu::to_bits(x)); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }

#include "emu_wmma.h"  // nvcuda::wmma

#endif  // NABLA_CUDA_EMU_H_
