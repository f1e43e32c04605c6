// sort_plan.h: host-side planning of the CUDA sort family (sort.cu).
//   - Keys: every dtype maps to an unsigned integer of its own width whose order
//     is PyTorch's (floats: sign folded in, -0.0 as +0.0, every NaN the largest
//     key; signed integers: the sign bit flipped); descending complements it.
//     The kernels compare (key, original index) pairs, which makes every sort
//     stable and deterministic, so they are templated on the key width only.
//   - Lines: the dims other than `dim`, size-1 dims dropped and neighbours merged
//     where every tensor's memory allows (as lines_plan.h).
//   - Launch: each line padded to P, a power of two. P <= NB_BK_SORT_TILE: one
//     block sorts tile / P whole lines in shared memory with a bitonic network.
//     Longer lines: each tile is sorted in shared memory, then every bitonic
//     stage k > tile runs its strides j >= tile as global passes over the
//     workspace and its strides j < tile in shared memory.
// Host-only C++: tests/cuda/test_sort_plan.cpp builds it without a GPU.
#ifndef NABLA_CUDA_SORT_PLAN_H_
#define NABLA_CUDA_SORT_PLAN_H_

#include <cstdint>

#include "backend.h"

#if defined(__CUDACC__)
#define NB_SORT_HD __host__ __device__
#else
#define NB_SORT_HD
#endif

namespace nbcuda {

constexpr int kSortThreads = 256;       // at most, per block
constexpr int kGroupsThreads = 256;     // GROUPS: threads per block, each on tile / threads elements

enum SortKeyKind : int32_t { kKeyUnsigned, kKeySigned, kKeyFloat };

struct SortKey {
    int32_t width;      // bytes: 1, 2, 4 or 8 (0: not a dtype the kernels take)
    int32_t kind;       // SortKeyKind
    uint64_t nan_above; // kKeyFloat: magnitudes (bits without the sign) above this are NaN
};

inline SortKey sort_key_of(int32_t dtype) {
    switch (dtype) {
        case NB_F32: return {4, kKeyFloat, 0x7f800000ull};
        case NB_F64: return {8, kKeyFloat, 0x7ff0000000000000ull};
        case NB_F16: return {2, kKeyFloat, 0x7c00ull};
        case NB_BF16: return {2, kKeyFloat, 0x7f80ull};
        case NB_I8: return {1, kKeySigned, 0};
        case NB_I16: return {2, kKeySigned, 0};
        case NB_I32: return {4, kKeySigned, 0};
        case NB_I64: return {8, kKeySigned, 0};
        case NB_U8: case NB_BOOL: return {1, kKeyUnsigned, 0};
        default: return {0, kKeyUnsigned, 0};
    }
}

NB_SORT_HD inline uint64_t sort_key_mask(int32_t width) { return width >= 8 ? ~0ull : (1ull << (8 * width)) - 1; }

// The ascending key of an element whose bits (zero-extended) are `bits`.
NB_SORT_HD inline uint64_t sort_key(uint64_t bits, int32_t width, int32_t kind, uint64_t nan_above) {
    const uint64_t sign = 1ull << (8 * width - 1), mask = sort_key_mask(width);
    if (kind == kKeyUnsigned) return bits;
    if (kind == kKeySigned) return bits ^ sign;
    const uint64_t mag = bits & ~sign & mask;
    if (mag > nan_above) return mask;  // every NaN: above +inf
    if (mag == 0) return sign;         // -0.0 and +0.0
    return (bits & sign) ? (~bits & mask) : (bits | sign);
}

// Whether key is the one every NaN maps to (kKeyFloat only).
NB_SORT_HD inline bool sort_key_is_nan(uint64_t key, int32_t width, int32_t kind) {
    return kind == kKeyFloat && key == sort_key_mask(width);
}

struct SortPlan {
    SortKey key;
    bool descending;
    int64_t len, lines, k;             // elements per line, lines, leading sorted elements written
    int64_t in_ls, val_ls, idx_ls;     // strides along the line
    int32_t no;                        // line dims, outer to inner
    int64_t oshape[NB_MAX_DIMS], oin[NB_MAX_DIMS], oval[NB_MAX_DIMS], oidx[NB_MAX_DIMS];
    int64_t padded;                    // P: len rounded up to a power of two
    int64_t tile;                      // elements one block sorts in shared memory
    int threads;                       // per block
    int64_t blocks;                    // lines * P / tile, rounded up
    bool global;                       // P > tile: global passes over the workspace
};

// Shared memory of one block: a uint32 index and a key per tile element.
inline size_t sort_shared_bytes(const SortPlan& pl) { return (size_t)pl.tile * (4 + (size_t)pl.key.width); }

// Fills pl from a (op NB_SK_SORT); false for a request no kernel takes. A
// global plan needs nb_bk_sort_workspace_bytes(NB_SK_SORT, lines, len, width).
inline bool sort_plan(const nb_bk_sort& a, SortPlan& pl) {
    pl = SortPlan{};
    pl.key = sort_key_of(a.dtype);
    if (a.op != NB_SK_SORT || pl.key.width == 0 || a.ndim < 1 || a.ndim > NB_MAX_DIMS || a.dim < 0 ||
        a.dim >= a.ndim || a.in == nullptr || (a.values == nullptr && a.indices == nullptr))
        return false;
    pl.descending = a.descending != 0;
    pl.len = a.shape[a.dim], pl.k = a.k, pl.lines = 1;
    if (pl.len < 1 || pl.k < 1 || pl.k > pl.len || pl.len > INT32_MAX) return false;
    pl.in_ls = a.in_strides[a.dim];
    pl.val_ls = a.values ? a.values_strides[a.dim] : 0;
    pl.idx_ls = a.indices ? a.indices_strides[a.dim] : 0;
    for (int d = 0; d < a.ndim; d++) {
        if (a.shape[d] < 0) return false;
        if (d == a.dim) continue;
        pl.lines *= a.shape[d];
        if (a.shape[d] == 1) continue;
        const int64_t vs = a.values ? a.values_strides[d] : 0, is = a.indices ? a.indices_strides[d] : 0;
        const int k = pl.no - 1;
        if (k >= 0 && pl.oin[k] == a.in_strides[d] * a.shape[d] && pl.oval[k] == vs * a.shape[d] &&
            pl.oidx[k] == is * a.shape[d]) {  // merges into the outer neighbour
            pl.oshape[k] *= a.shape[d], pl.oin[k] = a.in_strides[d], pl.oval[k] = vs, pl.oidx[k] = is;
            continue;
        }
        pl.oshape[pl.no] = a.shape[d], pl.oin[pl.no] = a.in_strides[d], pl.oval[pl.no] = vs, pl.oidx[pl.no] = is;
        pl.no++;
    }
    if (pl.lines == 0) return true;  // blocks 0: nothing to do
    pl.padded = nb_bk_sort_pow2(pl.len);
    pl.global = pl.padded > NB_BK_SORT_TILE;
    if (pl.global) {
        pl.tile = NB_BK_SORT_TILE;
    } else {  // whole lines per block, as many as fit (and no more than there are)
        const int64_t per = NB_BK_SORT_TILE / pl.padded;
        pl.tile = pl.padded * (pl.lines < per ? nb_bk_sort_pow2(pl.lines) : per);
        if (pl.tile < 2) pl.tile = 2;
    }
    pl.threads = (int)(pl.tile / 2 < kSortThreads ? pl.tile / 2 : kSortThreads);
    pl.blocks = (pl.lines * pl.padded + pl.tile - 1) / pl.tile;
    return true;
}

// GROUPS / GROUPS_WRITE: blocks of the scan over n elements (one tile each).
inline int64_t groups_blocks(int64_t n) { return (n + NB_BK_SORT_TILE - 1) / NB_BK_SORT_TILE; }

}  // namespace nbcuda

#endif  // NABLA_CUDA_SORT_PLAN_H_
