// copy.cu: strided copies with conversion between any two dtypes on one
// device (nb_backend.copy_strided). copy_plan.h collapses the dims and picks
// the path: cudaMemcpyAsync for a same-dtype dense run; copy_rows for a dense
// destination row (a flat copy is one row), 16-byte loads and stores and
// several per thread; copy_tile for a transpose, through a padded 32x32 tile of
// shared memory; copy_kernel, per-element offsets, for the rest. Grid-stride
// loops and 64-bit indices throughout.
#include "copy_plan.h"
#include "dtypes.cuh"
#include "kernels.h"
#include "launch.h"

namespace nbcuda {
namespace {

constexpr int kCopyThreads = 256;
constexpr int kRowUnroll = 4;  // vectors (or elements) in flight per thread
constexpr int kTile = 32, kTileRows = 8;

struct CopyDims {
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst[NB_MAX_DIMS], src[NB_MAX_DIMS];
};

template <int DC, int SC>
__global__ void copy_kernel(typename Storage<DC>::type* __restrict__ dst,
                            const typename Storage<SC>::type* __restrict__ src, int64_t n, CopyDims dims) {
    const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
        int64_t rem = i, od = 0, os = 0;
        for (int d = dims.ndim - 1; d >= 0; d--) {
            const int64_t idx = rem % dims.shape[d];
            rem /= dims.shape[d];
            od += idx * dims.dst[d];
            os += idx * dims.src[d];
        }
        dst[od] = convert<DC, SC>(src[os]);
    }
}

// N elements of T, 16-byte aligned: sizeof(T) * N is a multiple of 16, one or more 16-byte accesses.
template <typename T, int N>
struct alignas(16) Chunk {
    T v[N];
};

// Rows of the destination (dims before the last: shape and strides), each `inner` long and dense;
// the source row is dense (src_inner 1) or one value (0).
struct RowDims {
    int32_t nouter;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst[NB_MAX_DIMS], src[NB_MAX_DIMS];
    int64_t inner, tiles_per_row, ntiles;
    int32_t src_inner;
};

// One block per tile of a row (blockDim.x * N * kRowUnroll elements); the row's offsets
// are computed once per tile. With vec, N elements move as one Chunk on each side.
template <int DC, int SC>
__global__ void copy_rows(typename Storage<DC>::type* __restrict__ dst,
                          const typename Storage<SC>::type* __restrict__ src, bool vec, RowDims rd) {
    using D = typename Storage<DC>::type;
    using S = typename Storage<SC>::type;
    constexpr int N = 16 / (sizeof(D) < sizeof(S) ? sizeof(D) : sizeof(S));
    const int64_t width = static_cast<int64_t>(blockDim.x) * kRowUnroll * (vec ? N : 1);
    for (int64_t t = blockIdx.x; t < rd.ntiles; t += gridDim.x) {
        const int64_t row = t / rd.tiles_per_row, col0 = (t - row * rd.tiles_per_row) * width;
        int64_t rem = row, od = 0, os = 0;
        for (int d = rd.nouter - 1; d >= 0; d--) {
            const int64_t idx = rem % rd.shape[d];
            rem /= rd.shape[d];
            od += idx * rd.dst[d];
            os += idx * rd.src[d];
        }
        D* drow = dst + od;
        const S* srow = src + os;
        if (!rd.src_inner) {  // one source value fills the row
            const D v = convert<DC, SC>(srow[0]);
            const int64_t end = col0 + width < rd.inner ? col0 + width : rd.inner;
            for (int64_t c = col0 + threadIdx.x; c < end; c += blockDim.x) drow[c] = v;
            continue;
        }
        if (vec) {
            Chunk<S, N> x[kRowUnroll];
#pragma unroll
            for (int k = 0; k < kRowUnroll; k++) {
                const int64_t c = col0 + (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * N;
                if (c + N <= rd.inner) x[k] = *reinterpret_cast<const Chunk<S, N>*>(srow + c);
            }
#pragma unroll
            for (int k = 0; k < kRowUnroll; k++) {
                const int64_t c = col0 + (static_cast<int64_t>(k) * blockDim.x + threadIdx.x) * N;
                if (c + N > rd.inner) continue;
                Chunk<D, N> y;
#pragma unroll
                for (int e = 0; e < N; e++) y.v[e] = convert<DC, SC>(x[k].v[e]);
                *reinterpret_cast<Chunk<D, N>*>(drow + c) = y;
            }
            if (col0 + width >= rd.inner)  // the row's last tile: the elements after its last whole chunk
                for (int64_t c = rd.inner / N * N + threadIdx.x; c < rd.inner; c += blockDim.x)
                    drow[c] = convert<DC, SC>(srow[c]);
            continue;
        }
        S x[kRowUnroll];
#pragma unroll
        for (int k = 0; k < kRowUnroll; k++) {
            const int64_t c = col0 + static_cast<int64_t>(k) * blockDim.x + threadIdx.x;
            if (c < rd.inner) x[k] = srow[c];
        }
#pragma unroll
        for (int k = 0; k < kRowUnroll; k++) {
            const int64_t c = col0 + static_cast<int64_t>(k) * blockDim.x + threadIdx.x;
            if (c < rd.inner) drow[c] = convert<DC, SC>(x[k]);
        }
    }
}

// A batch of 2-D transposes: dims j (the source's unit stride) and l (the destination's
// last, unit stride); the other dims are the batch, decomposed once per tile.
struct TileDims {
    int32_t nbatch;
    int64_t shape[NB_MAX_DIMS];
    int64_t dst[NB_MAX_DIMS], src[NB_MAX_DIMS];
    int64_t nj, nl, dst_j, src_l;
    int64_t tiles_j, tiles_l, ntiles;
};

// Block (32, 8): reads with lanes along j, writes with lanes along l; the +1 column
// keeps the column reads of the tile free of bank conflicts.
template <int DC, int SC>
__global__ void copy_tile(typename Storage<DC>::type* __restrict__ dst,
                          const typename Storage<SC>::type* __restrict__ src, TileDims td) {
    using S = typename Storage<SC>::type;
    alignas(16) __shared__ unsigned char raw[kTile * (kTile + 1) * sizeof(S)];
    S* tile = reinterpret_cast<S*>(raw);
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int64_t t = blockIdx.x; t < td.ntiles; t += gridDim.x) {
        int64_t rem = t;
        const int64_t l0 = rem % td.tiles_l * kTile;
        rem /= td.tiles_l;
        const int64_t j0 = rem % td.tiles_j * kTile;
        rem /= td.tiles_j;
        int64_t od = 0, os = 0;
        for (int d = td.nbatch - 1; d >= 0; d--) {
            const int64_t idx = rem % td.shape[d];
            rem /= td.shape[d];
            od += idx * td.dst[d];
            os += idx * td.src[d];
        }
        for (int r = ty; r < kTile; r += kTileRows)
            if (j0 + tx < td.nj && l0 + r < td.nl) tile[r * (kTile + 1) + tx] = src[os + j0 + tx + (l0 + r) * td.src_l];
        __syncthreads();
        for (int r = ty; r < kTile; r += kTileRows)
            if (j0 + r < td.nj && l0 + tx < td.nl)
                dst[od + (j0 + r) * td.dst_j + l0 + tx] = convert<DC, SC>(tile[tx * (kTile + 1) + r]);
        __syncthreads();  // the tile is rewritten by the next iteration
    }
}

template <int DC>
struct FromSource {
    const CopyPlan& pl;
    cudaStream_t stream;
    template <int SC> cudaError_t operator()() const {
        using D = typename Storage<DC>::type;
        using S = typename Storage<SC>::type;
        D* dst = static_cast<D*>(pl.dst);
        const S* src = static_cast<const S*>(pl.src);
        const int nd = pl.ndim;
        if (pl.path == COPY_ROWS) {
            constexpr int N = 16 / (sizeof(D) < sizeof(S) ? sizeof(D) : sizeof(S));
            RowDims rd;
            rd.nouter = nd > 0 ? nd - 1 : 0;
            for (int d = 0; d < rd.nouter; d++)
                rd.shape[d] = pl.shape[d], rd.dst[d] = pl.dst_strides[d], rd.src[d] = pl.src_strides[d];
            rd.inner = nd > 0 ? pl.shape[nd - 1] : 1;
            rd.src_inner = nd > 0 ? static_cast<int32_t>(pl.src_strides[nd - 1]) : 1;
            // threads: enough to cover a row in one tile, in whole warps, at most kCopyThreads
            const int64_t per_thread = kRowUnroll * (pl.vectorised ? N : 1);
            int64_t threads = (rd.inner + per_thread - 1) / per_thread;
            threads = threads < 32 ? 32 : threads > kCopyThreads ? kCopyThreads : (threads + 31) / 32 * 32;
            const int64_t width = threads * per_thread;
            rd.tiles_per_row = (rd.inner + width - 1) / width;
            rd.ntiles = rd.tiles_per_row * (pl.numel / rd.inner);
            return launch(&copy_rows<DC, SC>, grid_for(rd.ntiles, 1), static_cast<unsigned>(threads), 0, stream,
                          dst, src, pl.vectorised, rd);
        }
        if (pl.path == COPY_TILE) {
            TileDims td;
            td.nbatch = 0;
            for (int d = 0; d < nd - 1; d++) {
                if (d == pl.tile_dim) continue;
                td.shape[td.nbatch] = pl.shape[d], td.dst[td.nbatch] = pl.dst_strides[d];
                td.src[td.nbatch++] = pl.src_strides[d];
            }
            td.nj = pl.shape[pl.tile_dim], td.nl = pl.shape[nd - 1];
            td.dst_j = pl.dst_strides[pl.tile_dim], td.src_l = pl.src_strides[nd - 1];
            td.tiles_j = (td.nj + kTile - 1) / kTile, td.tiles_l = (td.nl + kTile - 1) / kTile;
            td.ntiles = td.tiles_j * td.tiles_l * (pl.numel / (td.nj * td.nl));
            NB_LAUNCH(grid_for(td.ntiles, 1), dim3(kTile, kTileRows), 0, stream, copy_tile<DC, SC>)(dst, src, td);
            return cudaGetLastError();
        }
        CopyDims dims;
        dims.ndim = nd;
        for (int d = 0; d < nd; d++)
            dims.shape[d] = pl.shape[d], dims.dst[d] = pl.dst_strides[d], dims.src[d] = pl.src_strides[d];
        return launch(&copy_kernel<DC, SC>, grid_for(pl.numel, kCopyThreads), kCopyThreads, 0, stream, dst, src,
                      pl.numel, dims);
    }
};

struct ToDest {
    const CopyPlan& pl;
    cudaStream_t stream;
    template <int DC> cudaError_t operator()() const { return with_dtype(pl.src_dtype, FromSource<DC>{pl, stream}); }
};

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_copy_strided(const nb_bk_copy* args, cudaStream_t stream) {
    nbcuda::CopyPlan pl;
    if (!nbcuda::copy_plan(*args, pl)) return cudaErrorInvalidValue;
    if (pl.numel == 0) return cudaSuccess;
    if (pl.path == nbcuda::COPY_MEMCPY)  // the copy engine's own path: at the device's copy bandwidth
        return cudaMemcpyAsync(pl.dst, pl.src, static_cast<size_t>(pl.bytes), cudaMemcpyDeviceToDevice, stream);
    return nbcuda::with_dtype(pl.dst_dtype, nbcuda::ToDest{pl, stream});
}
