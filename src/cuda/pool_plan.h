// pool_plan.h: host-side planning and window arithmetic of the CUDA pooling
// family (pool.cu, nb_bk_pool in backend.h).
//   - pool_geometry: a plan checked and widened to three spatial dims (leading
//     dims of size 1, kernel 1, stride 1), so kernels always walk 3 nested
//     loops; flat spatial indices are unchanged by the widening.
//   - The window arithmetic (__host__ __device__): which input positions an
//     output cell reads, and, for the gathering backward, which output cells
//     read an input position.
// Host-only C++: the unit test (tests/cuda/test_pool_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_POOL_PLAN_H_
#define NABLA_CUDA_POOL_PLAN_H_

#include <cstdint>

#include "backend.h"

#if defined(__CUDACC__)
#define NB_POOL_HD __host__ __device__ __forceinline__
#else
#define NB_POOL_HD inline
#endif

namespace nbcuda {

constexpr int kPoolThreads = 256;
constexpr int64_t kPoolMaxBlocks = 65535;

// One spatial dim of a pooling.
struct PoolDim {
    int64_t in, out, k, s, p, d;
    int64_t xs, ys, is;  // strides of x, y and indices along it
};

// A plan with three spatial dims, outermost first.
struct PoolGeom {
    int32_t kind, backward, dtype, count_include_pad;
    int64_t divisor;
    int64_t batch[2];
    int64_t xb[2], yb[2], ib[2];  // batch strides of x, y and indices
    PoolDim dim[3];
    int64_t x_count, y_count;  // elements on each side
};

// Checks plan and widens it into g; false when it is malformed.
inline bool pool_geometry(const nb_bk_pool& a, PoolGeom* g) {
    if (a.nspatial < 1 || a.nspatial > 3 || a.kind < 0 || a.kind >= NB_PK_NUM) return false;
    if (a.batch[0] < 0 || a.batch[1] < 0) return false;
    if (a.backward && a.dtype == NB_I64) return false;
    if (a.dtype != NB_F32 && a.dtype != NB_F64 && a.dtype != NB_F16 && a.dtype != NB_BF16 && a.dtype != NB_I64)
        return false;
    if (a.dtype == NB_I64 && a.kind == NB_PK_ADAPTIVE_AVG) return false;
    if (a.kind == NB_PK_MAX && a.backward && a.indices == nullptr) return false;
    g->kind = a.kind, g->backward = a.backward, g->dtype = a.dtype, g->count_include_pad = a.count_include_pad;
    g->divisor = a.divisor;
    for (int b = 0; b < 2; b++) {
        g->batch[b] = a.batch[b];
        g->xb[b] = a.x_strides[b], g->yb[b] = a.y_strides[b], g->ib[b] = a.indices ? a.indices_strides[b] : 0;
    }
    const int lead = 3 - a.nspatial;
    g->x_count = a.batch[0] * a.batch[1], g->y_count = g->x_count;
    for (int i = 0; i < 3; i++) {
        PoolDim& d = g->dim[i];
        if (i < lead) {
            d = PoolDim{1, 1, 1, 1, 0, 1, 0, 0, 0};
            continue;
        }
        const int j = i - lead;
        d.in = a.in_size[j], d.out = a.out_size[j];
        d.k = a.kernel[j], d.s = a.stride[j], d.p = a.padding[j], d.d = a.dilation[j];
        d.xs = a.x_strides[2 + j], d.ys = a.y_strides[2 + j], d.is = a.indices ? a.indices_strides[2 + j] : 0;
        if (d.in < 0 || d.out < 0) return false;
        if (a.kind == NB_PK_ADAPTIVE_AVG) {
            d.k = 1, d.s = 1, d.p = 0, d.d = 1;
            if (d.in == 0 && d.out > 0) return false;
        } else if (a.kind == NB_PK_MAX && a.backward && d.k == 0) {
            d.s = 1, d.p = 0, d.d = 1;  // windows unknown: every cell is asked
        } else if (d.k < 1 || d.s < 1 || d.p < 0 || d.d < 1 || (a.kind == NB_PK_AVG && d.d != 1)) {
            return false;
        }
        g->x_count *= d.in, g->y_count *= d.out;
    }
    return true;
}

struct PoolLaunch {
    int64_t blocks;  // 0: nothing to launch
    int threads;
};

// One thread per element of n, at most kPoolMaxBlocks blocks (kernels loop over the rest).
inline PoolLaunch pool_launch(int64_t n) {
    PoolLaunch l{0, kPoolThreads};
    if (n <= 0) return l;
    const int64_t b = (n + kPoolThreads - 1) / kPoolThreads;
    l.blocks = b < kPoolMaxBlocks ? b : kPoolMaxBlocks;
    return l;
}

// The taps of a max window along one dim: in-range input positions lo, lo + d, ... < hi.
NB_POOL_HD void max_window(const PoolDim& d, int64_t o, int64_t* lo, int64_t* hi) {
    int64_t a = o * d.s - d.p;
    const int64_t end = a + (d.k - 1) * d.d + 1;
    while (a < 0) a += d.d;
    *lo = a;
    *hi = end < d.in ? end : d.in;
}

// An average window along one dim: [lo, hi) inside the input, and its size counting the padding.
NB_POOL_HD void avg_window(const PoolDim& d, int64_t o, int64_t* lo, int64_t* hi, int64_t* padded) {
    int64_t a = o * d.s - d.p;
    int64_t b = a + d.k < d.in + d.p ? a + d.k : d.in + d.p;
    *padded = b - a;
    *lo = a > 0 ? a : 0;
    *hi = b < d.in ? b : d.in;
}

// PyTorch's adaptive window of output cell o: [floor(o in / out), ceil((o + 1) in / out)).
NB_POOL_HD void adaptive_window(const PoolDim& d, int64_t o, int64_t* lo, int64_t* hi) {
    *lo = o * d.in / d.out;
    *hi = ((o + 1) * d.in + d.out - 1) / d.out;
}

// The output cells [lo, hi) whose window (max / avg: its span of (k - 1) d + 1
// positions; adaptive: the adaptive window) may contain input position i.
// Every cell reading i is in the range; callers check the rest. Kernel 0 (a max
// backward whose windows are unknown): every cell.
NB_POOL_HD void cells_reading(const PoolDim& d, int32_t kind, int64_t i, int64_t* lo, int64_t* hi) {
    if (d.k == 0) {
        *lo = 0, *hi = d.out;
        return;
    }
    if (kind == NB_PK_ADAPTIVE_AVG) {
        if (d.out == 0) {
            *lo = *hi = 0;
            return;
        }
        const int64_t a = i * d.out / d.in, b = ((i + 1) * d.out + d.in - 1) / d.in;
        *lo = a;
        *hi = b < d.out ? b : d.out;
        return;
    }
    const int64_t span = (d.k - 1) * d.d + 1, t = i + d.p;
    *lo = t < span ? 0 : (t - span) / d.s + 1;
    const int64_t b = t / d.s + 1;
    *hi = b < d.out ? b : d.out;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_POOL_PLAN_H_
