// lines_plan.h: plans one line op (nb_bk_lines: softmax, log_softmax, their
// backward, cumsum, cumprod) on the host. The dims other than `dim` are the
// lines: size-1 dims are dropped and neighbours merged where every tensor's
// memory allows. Two launch shapes, fixed by shapes and strides alone, so each
// line is combined in the same order on every run:
//   - per row: a group of `tpr` threads per line (a power of two, 32 for short
//     lines up to kLinesThreads), kLinesThreads / tpr lines per block; when the
//     input's line is contiguous, or there are too few lines to fill threads;
//   - per thread: one thread per line walking it in order, neighbouring threads
//     on neighbouring lines (the contiguous positions of a strided dim).
// The kernels read and write one dtype (in_dtype == out_dtype) and accumulate in
// acc_dtype: float32 for float16 / bfloat16 / float32, float64, or int64 for the
// integer scans. Host-only C++: tests/cuda/test_lines_plan.cpp builds it without a GPU.
#ifndef NABLA_CUDA_LINES_PLAN_H_
#define NABLA_CUDA_LINES_PLAN_H_

#include <cstdint>

#include "backend.h"

namespace nbcuda {

constexpr int kLinesThreads = 256;
constexpr int64_t kLinesPerThreadMin = 2048;  // strided lines at least, for a thread per line
constexpr int64_t kLinesShort = 16;           // strided lines this short always take a thread each

struct LinesPlan {
    int32_t op, dtype, acc_dtype;
    const void* in;
    const void* aux;  // backward ops: the forward's output, else nullptr
    void* out;
    int64_t len;      // elements per line (0: nothing to do)
    int64_t lines;    // number of lines (0: nothing to do)
    int64_t in_ls, aux_ls, out_ls;  // strides along the line
    int32_t no;       // line dims, outer to inner
    int64_t oshape[NB_MAX_DIMS], oin[NB_MAX_DIMS], oaux[NB_MAX_DIMS], oout[NB_MAX_DIMS];
    bool per_row;
    int tpr;          // per row: threads per line
};

inline bool lines_is_backward(int op) { return op == NB_LK_SOFTMAX_BACKWARD || op == NB_LK_LOG_SOFTMAX_BACKWARD; }
inline bool lines_is_scan(int op) { return op == NB_LK_CUMSUM || op == NB_LK_CUMPROD; }

// The accumulation dtype the kernels take for dtype (-1: none).
inline int32_t lines_acc_dtype(int32_t op, int32_t dtype) {
    switch (dtype) {
        case NB_F16: case NB_BF16: case NB_F32: return NB_F32;
        case NB_F64: return NB_F64;
        case NB_I64: return lines_is_scan(op) ? NB_I64 : -1;
        default: return -1;
    }
}

// Threads per line: the smallest power of two >= len, in [32, kLinesThreads].
inline int lines_tpr(int64_t len) {
    int t = 32;
    while (t < kLinesThreads && t < len) t *= 2;
    return t;
}

// Fills pl from a; false for a request no kernel takes.
inline bool lines_plan(const nb_bk_lines& a, LinesPlan& pl) {
    if (a.op < 0 || a.op >= NB_LK_NUM || a.op == NB_LK_LOGCUMSUMEXP || a.ndim < 1 || a.ndim > NB_MAX_DIMS ||
        a.dim < 0 || a.dim >= a.ndim || a.in_dtype != a.out_dtype || a.in == nullptr || a.out == nullptr ||
        lines_acc_dtype(a.op, a.in_dtype) < 0 || a.acc_dtype != lines_acc_dtype(a.op, a.in_dtype))
        return false;
    const bool bw = lines_is_backward(a.op);
    if (bw && a.aux == nullptr) return false;
    pl.op = a.op, pl.dtype = a.in_dtype, pl.acc_dtype = a.acc_dtype;
    pl.in = a.in, pl.aux = bw ? a.aux : nullptr, pl.out = a.out;
    pl.len = a.shape[a.dim], pl.lines = 1, pl.no = 0;
    pl.in_ls = a.in_strides[a.dim], pl.aux_ls = bw ? a.aux_strides[a.dim] : 0, pl.out_ls = a.out_strides[a.dim];
    for (int d = 0; d < a.ndim; d++) {
        if (a.shape[d] < 0) return false;
        if (d == a.dim) continue;
        pl.lines *= a.shape[d];
        if (a.shape[d] == 1) continue;
        const int64_t ai = bw ? a.aux_strides[d] : 0;
        const int k = pl.no - 1;
        if (k >= 0 && pl.oin[k] == a.in_strides[d] * a.shape[d] && pl.oaux[k] == ai * a.shape[d] &&
            pl.oout[k] == a.out_strides[d] * a.shape[d]) {  // merges into the outer neighbour
            pl.oshape[k] *= a.shape[d], pl.oin[k] = a.in_strides[d], pl.oaux[k] = ai, pl.oout[k] = a.out_strides[d];
            continue;
        }
        pl.oshape[pl.no] = a.shape[d], pl.oin[pl.no] = a.in_strides[d], pl.oaux[pl.no] = ai;
        pl.oout[pl.no] = a.out_strides[d], pl.no++;
    }
    if (pl.len == 0) pl.lines = 0;
    pl.per_row = pl.len > kLinesShort && (pl.in_ls == 1 || pl.lines < kLinesPerThreadMin);
    pl.tpr = pl.per_row ? lines_tpr(pl.len) : 1;
    return true;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_LINES_PLAN_H_
