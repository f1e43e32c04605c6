// sort.cu: the CUDA sort family (nb_bk_sort, sort_plan.h) for every dtype.
//   - SORT: a bitonic network over (key, original index) pairs, so the result is
//     the stable sort and does not depend on the launch. Keys are the dtype's
//     bits mapped to an order-preserving unsigned integer of the same width
//     (sort_key), complemented for descending; kernels are templated on that
//     width only. Lines that fit a tile sort in one block's shared memory;
//     longer lines add global passes over the workspace for the strides >= tile.
//     Values are copied from the input at the sorted indices (bit for bit).
//   - GROUPS: a mark / scan pass (per block: thread sums and a sequential scan
//     of them; then a one-thread scan of the block totals, added back).
//   - GROUPS_WRITE: per group the first element and the count (the end of the
//     run minus its start, in two passes: no atomics); every element's group
//     into the inverse.
//   - SEARCH: one thread per value, a binary search of its line with PyTorch's
//     comparisons in the value's compute type (float, double or int64).
#include <type_traits>

#include "dtypes.cuh"
#include "kernels.h"
#include "launch.h"
#include "sort_plan.h"

namespace nbcuda {
namespace {

constexpr uint32_t kPadId = 0xFFFFFFFFu;

struct SortArgs {
    const char* in;
    char* values;
    int64_t* indices;
    uint32_t* ws_ids;  // global plans: lines * P indices, then the keys
    void* ws_keys;
    int64_t len, lines, k, in_ls, val_ls, idx_ls, P, tile;
    int32_t no, width, kind;
    uint64_t nan_above, flip;
    int64_t oshape[NB_MAX_DIMS], oin[NB_MAX_DIMS], oval[NB_MAX_DIMS], oidx[NB_MAX_DIMS];
};

__device__ __forceinline__ void line_offsets(const SortArgs& a, int64_t r, int64_t& io, int64_t& vo, int64_t& xo) {
    io = 0, vo = 0, xo = 0;
    for (int d = a.no - 1; d >= 0; d--) {
        const int64_t q = r % a.oshape[d];
        r /= a.oshape[d];
        io += q * a.oin[d], vo += q * a.oval[d], xo += q * a.oidx[d];
    }
}

template <typename K> __device__ __forceinline__ bool before(K ka, uint32_t ia, K kb, uint32_t ib) {
    return ka < kb || (ka == kb && ia < ib);
}

// Pair p of a stride-j step: its lower element (the partner is i + j).
__device__ __forceinline__ int64_t pair_low(int64_t p, int64_t j) { return 2 * j * (p / j) + p % j; }

// Position `pos` of a line sorts ascending in stage k unless (pos & k) is set.
template <typename K>
__device__ __forceinline__ void compare_swap(K* keys, uint32_t* ids, int64_t i, int64_t q, bool asc) {
    const K ki = keys[i], kq = keys[q];
    const uint32_t ii = ids[i], iq = ids[q];
    if (asc ? before(kq, iq, ki, ii) : before(ki, ii, kq, iq)) keys[i] = kq, keys[q] = ki, ids[i] = iq, ids[q] = ii;
}

// One block: stages k_first..k_last of the network on its tile in shared memory
// (strides below min(k, tile)), then the result to the outputs or the workspace.
template <typename K>
__global__ void tile_sort(SortArgs a, int64_t k_first, int64_t k_last, int from_ws, int to_out) {
    NB_DYNAMIC_SHARED(unsigned char, smem);
    uint32_t* ids = reinterpret_cast<uint32_t*>(smem);
    K* keys = reinterpret_cast<K*>(smem + a.tile * 4);
    K* ws_keys = static_cast<K*>(a.ws_keys);
    const int64_t base = (int64_t)blockIdx.x * a.tile;
    for (int64_t t = threadIdx.x; t < a.tile; t += blockDim.x) {
        const int64_t g = base + t, line = g / a.P, pos = g & (a.P - 1);
        if (from_ws) {
            ids[t] = a.ws_ids[g], keys[t] = ws_keys[g];
        } else if (line < a.lines && pos < a.len) {
            int64_t io, vo, xo;
            line_offsets(a, line, io, vo, xo);
            const uint64_t bits = reinterpret_cast<const K*>(a.in)[io + pos * a.in_ls];
            keys[t] = static_cast<K>(sort_key(bits, a.width, a.kind, a.nan_above) ^ a.flip);
            ids[t] = static_cast<uint32_t>(pos);
        } else {
            keys[t] = static_cast<K>(~K(0)), ids[t] = kPadId;
        }
    }
    for (int64_t k = k_first; k <= k_last; k *= 2) {
        for (int64_t j = (k < a.tile ? k : a.tile) / 2; j > 0; j /= 2) {
            __syncthreads();
            for (int64_t p = threadIdx.x; p < a.tile / 2; p += blockDim.x) {
                const int64_t i = pair_low(p, j);
                compare_swap(keys, ids, i, i + j, (((base + i) & (a.P - 1)) & k) == 0);
            }
        }
    }
    __syncthreads();
    for (int64_t t = threadIdx.x; t < a.tile; t += blockDim.x) {
        const int64_t g = base + t, line = g / a.P, pos = g & (a.P - 1);
        if (!to_out) {
            a.ws_ids[g] = ids[t], ws_keys[g] = keys[t];
        } else if (line < a.lines && pos < a.k) {
            int64_t io, vo, xo;
            line_offsets(a, line, io, vo, xo);
            const int64_t src = ids[t];
            if (a.values)
                reinterpret_cast<K*>(a.values)[vo + pos * a.val_ls] = reinterpret_cast<const K*>(a.in)[io + src * a.in_ls];
            if (a.indices) a.indices[xo + pos * a.idx_ls] = src;
        }
    }
}

// One global step (stage k, stride j >= tile) over every line in the workspace.
template <typename K> __global__ void global_step(SortArgs a, int64_t k, int64_t j) {
    const int64_t pairs = a.lines * a.P / 2;
    K* keys = static_cast<K*>(a.ws_keys);
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < pairs; p += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = pair_low(p, j);
        compare_swap(keys, a.ws_ids, i, i + j, ((i & (a.P - 1)) & k) == 0);
    }
}

template <typename K> cudaError_t sort_lines(const SortPlan& pl, const nb_bk_sort& b, cudaStream_t s) {
    SortArgs a{};
    a.in = static_cast<const char*>(b.in), a.values = static_cast<char*>(b.values);
    a.indices = static_cast<int64_t*>(b.indices);
    a.len = pl.len, a.lines = pl.lines, a.k = pl.k, a.in_ls = pl.in_ls, a.val_ls = pl.val_ls, a.idx_ls = pl.idx_ls;
    a.P = pl.padded, a.tile = pl.tile, a.no = pl.no;
    a.width = pl.key.width, a.kind = pl.key.kind, a.nan_above = pl.key.nan_above;
    a.flip = pl.descending ? sort_key_mask(pl.key.width) : 0;
    for (int d = 0; d < pl.no; d++) a.oshape[d] = pl.oshape[d], a.oin[d] = pl.oin[d], a.oval[d] = pl.oval[d], a.oidx[d] = pl.oidx[d];
    const size_t smem = sort_shared_bytes(pl);
    const unsigned blocks = static_cast<unsigned>(pl.blocks);
    if (!pl.global) return launch(tile_sort<K>, blocks, pl.threads, smem, s, a, int64_t(2), pl.padded, 0, 1);
    const int64_t total = pl.lines * pl.padded;
    if (b.workspace == nullptr || b.workspace_bytes < nb_bk_sort_workspace_bytes(NB_SK_SORT, pl.lines, pl.len, pl.key.width))
        return cudaErrorInvalidValue;
    a.ws_ids = static_cast<uint32_t*>(b.workspace);
    a.ws_keys = static_cast<char*>(b.workspace) + ((total * 4 + 7) / 8) * 8;
    cudaError_t err = launch(tile_sort<K>, blocks, pl.threads, smem, s, a, int64_t(2), pl.tile, 0, 0);
    for (int64_t k = 2 * pl.tile; k <= pl.padded && err == cudaSuccess; k *= 2) {
        for (int64_t j = k / 2; j >= pl.tile && err == cudaSuccess; j /= 2)
            err = launch(global_step<K>, grid_for(total / 2, kSortThreads), kSortThreads, 0, s, a, k, j);
        if (err == cudaSuccess)
            err = launch(tile_sort<K>, blocks, pl.threads, smem, s, a, k, k, 1, k == pl.padded ? 1 : 0);
    }
    return err;
}

// ---- groups (unique) ----

struct GroupArgs {
    const char* in;
    int64_t n;
    int64_t* group;
    int64_t* block_total;
    const int64_t* order;
    char* values;
    int64_t* counts;
    int64_t* inverse;
    int32_t width, kind;
    uint64_t nan_above;
};

template <typename K> __device__ __forceinline__ uint64_t key_at(const GroupArgs& a, int64_t j) {
    return sort_key(reinterpret_cast<const K*>(a.in)[j], a.width, a.kind, a.nan_above);
}

// Whether element j starts a new group (NaN never equals what precedes it).
template <typename K> __device__ __forceinline__ int64_t starts(const GroupArgs& a, int64_t j) {
    if (j == 0) return 0;
    const uint64_t kj = key_at<K>(a, j);
    return kj != key_at<K>(a, j - 1) || sort_key_is_nan(kj, a.width, a.kind);
}

// Per block (one tile): the inclusive count of starts within it, and its total.
template <typename K> __global__ void groups_scan(GroupArgs a) {
    __shared__ int64_t sums[kGroupsThreads];
    constexpr int64_t per = NB_BK_SORT_TILE / kGroupsThreads;
    const int64_t first = (int64_t)blockIdx.x * NB_BK_SORT_TILE + threadIdx.x * per;
    int64_t run = 0;
    for (int64_t j = first; j < first + per && j < a.n; j++) run += starts<K>(a, j);
    sums[threadIdx.x] = run;
    __syncthreads();
    if (threadIdx.x == 0) {
        int64_t acc = 0;
        for (int t = 0; t < kGroupsThreads; t++) {
            const int64_t v = sums[t];
            sums[t] = acc, acc += v;
        }
        a.block_total[blockIdx.x] = acc;
    }
    __syncthreads();
    run = sums[threadIdx.x];
    for (int64_t j = first; j < first + per && j < a.n; j++) a.group[j] = run += starts<K>(a, j);
}

// The block totals into exclusive offsets (one thread: a fixed order).
__global__ void groups_offsets(int64_t* block_total, int64_t blocks) {
    int64_t acc = 0;
    for (int64_t b = 0; b < blocks; b++) {
        const int64_t v = block_total[b];
        block_total[b] = acc, acc += v;
    }
}

__global__ void groups_add(GroupArgs a) {
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < a.n; j += (int64_t)gridDim.x * blockDim.x)
        a.group[j] += a.block_total[j / NB_BK_SORT_TILE];
}

// Each group's first element (and its start in counts), every element's group.
template <typename K> __global__ void groups_write_start(GroupArgs a) {
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < a.n; j += (int64_t)gridDim.x * blockDim.x) {
        const int64_t g = a.group[j];
        if (j == 0 || a.group[j - 1] != g) {
            reinterpret_cast<K*>(a.values)[g] = reinterpret_cast<const K*>(a.in)[j];
            if (a.counts) a.counts[g] = j;
        }
        if (a.inverse) a.inverse[a.order ? a.order[j] : j] = g;
    }
}

// counts[g]: the end of its run minus the start groups_write_start left there.
__global__ void groups_write_counts(GroupArgs a) {
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < a.n; j += (int64_t)gridDim.x * blockDim.x) {
        const int64_t g = a.group[j];
        if (j == a.n - 1 || a.group[j + 1] != g) a.counts[g] = j + 1 - a.counts[g];
    }
}

template <typename K> cudaError_t groups(const nb_bk_sort& b, const SortKey& key, cudaStream_t s) {
    GroupArgs a{};
    a.in = static_cast<const char*>(b.in), a.n = b.n, a.group = b.group, a.order = b.order;
    a.values = static_cast<char*>(b.values), a.counts = b.counts, a.inverse = static_cast<int64_t*>(b.indices);
    a.width = key.width, a.kind = key.kind, a.nan_above = key.nan_above;
    const unsigned grid = grid_for(a.n, kSortThreads);
    if (b.op == NB_SK_GROUPS) {
        const int64_t blocks = groups_blocks(a.n);
        if (b.workspace == nullptr || b.workspace_bytes < nb_bk_sort_workspace_bytes(NB_SK_GROUPS, 1, a.n, key.width))
            return cudaErrorInvalidValue;
        a.block_total = static_cast<int64_t*>(b.workspace);
        cudaError_t err = launch(groups_scan<K>, static_cast<unsigned>(blocks), kGroupsThreads, 0, s, a);
        if (err == cudaSuccess && blocks > 1) err = launch(groups_offsets, 1, 1, 0, s, a.block_total, blocks);
        if (err == cudaSuccess && blocks > 1) err = launch(groups_add, grid, kSortThreads, 0, s, a);
        return err;
    }
    if (a.values == nullptr) return cudaErrorInvalidValue;
    cudaError_t err = launch(groups_write_start<K>, grid, kSortThreads, 0, s, a);
    if (err == cudaSuccess && a.counts) err = launch(groups_write_counts, grid, kSortThreads, 0, s, a);
    return err;
}

struct SearchArgs {
    const char* in;
    const char* values;
    void* out;
    int64_t n, total, in_step;
    int32_t nd, right, out_i32;
    int64_t shape[NB_MAX_DIMS], sin[NB_MAX_DIMS], sval[NB_MAX_DIMS], sout[NB_MAX_DIMS];
};

// The type a value compares in: float for the float dtypes but float64, double for it, int64 for integers.
template <int Code>
using SearchType = typename std::conditional<Code == NB_F64, double,
                   typename std::conditional<is_float_code(Code), float, int64_t>::type>::type;

template <int Code> __device__ __forceinline__ SearchType<Code> search_load(const char* p) {
    const auto x = *reinterpret_cast<const typename Storage<Code>::type*>(p);
    if constexpr (Code == NB_F64) return x;
    else if constexpr (is_float_code(Code)) return load_f32<Code>(x);
    else return static_cast<int64_t>(x);
}

template <int Code> __global__ void search_values(SearchArgs a) {
    constexpr int64_t es = sizeof(typename Storage<Code>::type);
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < a.total; j += (int64_t)gridDim.x * blockDim.x) {
        int64_t rem = j, so = 0, vo = 0, oo = 0;
        for (int d = a.nd - 1; d >= 0; d--) {
            const int64_t q = rem % a.shape[d];
            rem /= a.shape[d];
            so += q * a.sin[d], vo += q * a.sval[d], oo += q * a.sout[d];
        }
        const SearchType<Code> v = search_load<Code>(a.values + vo * es);
        const char* line = a.in + so * es;
        int64_t lo = 0, hi = a.n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            const SearchType<Code> e = search_load<Code>(line + mid * a.in_step * es);
            if (a.right ? !(e > v) : !(e >= v)) lo = mid + 1;
            else hi = mid;
        }
        if (a.out_i32) static_cast<int32_t*>(a.out)[oo] = static_cast<int32_t>(lo);
        else static_cast<int64_t*>(a.out)[oo] = lo;
    }
}

struct SearchLaunch {
    const SearchArgs& a;
    cudaStream_t s;
    template <int Code> cudaError_t operator()() const {
        return launch(search_values<Code>, grid_for(a.total, kSortThreads), kSortThreads, 0, s, a);
    }
};

cudaError_t search(const nb_bk_sort& b, cudaStream_t s) {
    if (b.ndim < 1 || b.ndim > NB_MAX_DIMS || b.dim != b.ndim - 1 || b.n < 0 || b.in == nullptr ||
        b.values == nullptr || b.indices == nullptr || (b.index_dtype != NB_I64 && b.index_dtype != NB_I32))
        return cudaErrorInvalidValue;
    SearchArgs a{};
    a.in = static_cast<const char*>(b.in), a.values = static_cast<const char*>(b.values), a.out = b.indices;
    a.n = b.n, a.in_step = b.in_strides[b.dim], a.nd = b.ndim, a.right = b.right, a.out_i32 = b.index_dtype == NB_I32;
    a.total = 1;
    for (int d = 0; d < b.ndim; d++) {
        a.shape[d] = b.shape[d], a.sval[d] = b.values_strides[d], a.sout[d] = b.indices_strides[d];
        a.sin[d] = d < b.dim ? b.in_strides[d] : 0;
        a.total *= b.shape[d];
    }
    if (a.total == 0) return cudaSuccess;
    return with_dtype(b.dtype, SearchLaunch{a, s});
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_sort(const nb_bk_sort* args, cudaStream_t stream) {
    using namespace nbcuda;
    if (args->op == NB_SK_SEARCH) return search(*args, stream);
    const SortKey key = sort_key_of(args->dtype);
    if (args->op == NB_SK_SORT) {
        SortPlan pl;
        if (!sort_plan(*args, pl)) return cudaErrorInvalidValue;
        if (pl.blocks == 0) return cudaSuccess;
        switch (key.width) {
            case 1: return sort_lines<uint8_t>(pl, *args, stream);
            case 2: return sort_lines<uint16_t>(pl, *args, stream);
            case 4: return sort_lines<uint32_t>(pl, *args, stream);
            default: return sort_lines<uint64_t>(pl, *args, stream);
        }
    }
    if ((args->op != NB_SK_GROUPS && args->op != NB_SK_GROUPS_WRITE) || key.width == 0 || args->in == nullptr ||
        args->group == nullptr)
        return cudaErrorInvalidValue;
    if (args->n <= 0) return cudaSuccess;
    switch (key.width) {
        case 1: return groups<uint8_t>(*args, key, stream);
        case 2: return groups<uint16_t>(*args, key, stream);
        case 4: return groups<uint32_t>(*args, key, stream);
        default: return groups<uint64_t>(*args, key, stream);
    }
}
