// index_plan.h: host-side pieces of the CUDA index family (index.cu).
//   - The device error word: a kernel that meets an out-of-range index claims
//     the word with one atomic compare-and-swap on `flag` (first error wins) and
//     then writes what it saw; the plugin reads it back at its next synchronising
//     call, reports NB_ERR_INDEX in PyTorch's wording and clears it, so the
//     device stays usable (no device-side assert).
//     An integer division by zero (elementwise div/remainder/fmod kernels) claims
//     it the same way with flag kDevErrorZeroDivision and the kernel code in
//     `dim`: reported as NB_ERR_INVALID_ARGUMENT, the CPU's ZeroDivisionError.
//   - Launch shapes: one thread per iteration element, grid-stride capped.
// Host-only C++: the unit test (tests/cuda/test_index_plan.cpp) builds it without a GPU.
#ifndef NABLA_CUDA_INDEX_PLAN_H_
#define NABLA_CUDA_INDEX_PLAN_H_

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "backend.h"

#if defined(__CUDACC__)
#define NB_IX_HD __host__ __device__
#else
#define NB_IX_HD
#endif

namespace nbcuda {

constexpr int kIndexThreads = 256;
constexpr int64_t kIndexMaxBlocks = 65535;

// What claimed the word (its flag). A probability outside [0, 1] (bernoulli's p
// tensor) keeps the flat index in `index` and the value's bits in `size`; a class
// target out of range (the fused losses) keeps the target in `index`; an embedding
// index out of range (the fused embedding backward) the index and num_embeddings.
constexpr int32_t kDevErrorIndex = 1, kDevErrorZeroDivision = 2, kDevErrorProbability = 3, kDevErrorTarget = 4,
                  kDevErrorEmbedding = 5;

// Lives in device memory, one per device; all zero means "no error".
struct DevError {
    int32_t flag;   // 0 free, else the kind of the first failing thread (kDevError*)
    int32_t dim;    // the indexed dim; for a zero division the kernel's NB_BK_* code
    int64_t index;  // the bad value as read
    int64_t size;   // the dim's size
    char op[32];    // the op's name, truncated
};

// Copies the op name into the word (device side does the same byte loop).
inline void dev_error_fill(DevError* e, const char* op, int32_t dim, int64_t index, int64_t size) {
    int i = 0;
    for (; op && op[i] && i < (int)sizeof e->op - 1; i++) e->op[i] = op[i];
    e->op[i] = 0;
    e->dim = dim;
    e->index = index;
    e->size = size;
}

// The message for a claimed word: "index_select: index 7 is out of bounds for
// dimension 0 with size 5". Returns false (and writes nothing) when the flag is clear.
inline bool dev_error_message(const DevError& e, char* buf, size_t cap) {
    if (!e.flag) return false;
    if (e.flag == kDevErrorZeroDivision) {
        const char* op = e.dim == NB_BK_REMAINDER ? "remainder" : e.dim == NB_BK_FMOD ? "fmod" : "div";
        snprintf(buf, cap, "%s: ZeroDivisionError (integer division by zero)", op);
        return true;
    }
    if (e.flag == kDevErrorProbability) {
        double p;
        std::memcpy(&p, &e.size, sizeof p);
        snprintf(buf, cap, "bernoulli: expects all elements of p to be in [0, 1], but found p=%g at flat index %lld", p,
                 (long long)e.index);
        return true;
    }
    if (e.flag == kDevErrorTarget) {
        snprintf(buf, cap, "%s: Target %lld is out of bounds.", e.op, (long long)e.index);
        return true;
    }
    if (e.flag == kDevErrorEmbedding) {
        snprintf(buf, cap, "%s: index out of range in self (index %lld, num_embeddings %lld)", e.op,
                 (long long)e.index, (long long)e.size);
        return true;
    }
    if (e.dim < 0)  // a flat position within a plane (the pooling gradients' saved indices)
        snprintf(buf, cap, "%s: index %lld is out of range for an input plane of %lld elements", e.op,
                 (long long)e.index, (long long)e.size);
    else
        snprintf(buf, cap, "%s: index %lld is out of bounds for dimension %d with size %lld", e.op,
                 (long long)e.index, (int)e.dim, (long long)e.size);
    return true;
}

// The status a claimed word reports.
inline nb_status dev_error_status(const DevError& e) {
    return e.flag == kDevErrorZeroDivision || e.flag == kDevErrorProbability ? NB_ERR_INVALID_ARGUMENT : NB_ERR_INDEX;
}

// Whether v indexes a dim of `size` (negative values count from the end when wrap).
NB_IX_HD inline bool index_in_range(int64_t v, int64_t size, bool wrap) {
    return v < size && (v >= 0 || (wrap && v >= -size));
}

struct IndexLaunch {
    int64_t blocks;  // 0: nothing to launch
    int threads;
};

// One thread per element of n, at most kIndexMaxBlocks blocks (kernels loop over the rest).
inline IndexLaunch index_launch(int64_t n) {
    IndexLaunch l{0, kIndexThreads};
    if (n <= 0) return l;
    int64_t b = (n + kIndexThreads - 1) / kIndexThreads;
    l.blocks = b < kIndexMaxBlocks ? b : kIndexMaxBlocks;
    return l;
}

}  // namespace nbcuda

#endif  // NABLA_CUDA_INDEX_PLAN_H_
