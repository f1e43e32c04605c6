// conv.cu: the CUDA convolution family (nb_bk_conv): 2-d convolution forward,
// input gradient and weight gradient as implicit GEMMs, one per group:
//
//   forward      y[o, (n, p, q)]  = sum_{(c, i, j)} w[o, (c, i, j)] x[(c, i, j), (n, p, q)]
//   input grad   dx[c, (n, h, w)] = sum_{(o, i, j)} w[(o, c, i, j)] dy[(o, i, j), (n, h, w)]
//   weight grad  dw[o, (c, i, j)] = sum_{(n, p, q)} dy[o, (n, p, q)] x[(n, p, q), (c, i, j)]
//
// The column matrix is never built: each block stages BK-deep slices of both
// operands in shared memory, gathering the input (or dy) elements a tap reads
// straight from the tensor through its strides (zero outside the padding; for the
// input gradient, dy[p] where h + pt - i dh = p sh, zero where the stride skips),
// and computes one BM x BN output tile, each thread TM x TN of it summed over k in
// a fixed order. The weight gradient cuts k = N * OH * OW into plan.splits slices
// whose partial tiles go to the workspace, then a second pass adds them in slice
// order: no atomics, results repeat bit for bit. float16/bfloat16 accumulate in
// float32, float64 in float64; every output is rounded once. float16/bfloat16 run
// on the tensor cores (conv_gemm_tc, wmma over the same slices) unless
// NABLA_TENSOR_CORES=0.
#include <mma.h>

#include <type_traits>

#include "dtypes.cuh"
#include "kernels.h"
#include "launch.cuh"

namespace nbcuda {
namespace {

using namespace nvcuda;

constexpr int BM = 64, BN = 64, BK = 16;
constexpr int TX = 16, TY = 16, kThreads = TX * TY;  // threads per block: TX columns x TY rows
constexpr int TM = BM / TY, TN = BN / TX;
constexpr int64_t kMaxGridYZ = 65535;
static_assert(kThreads % BN == 0, "a thread's B column stays the same over the k loop");

template <int Code> struct ConvAcc { using type = float; };
template <> struct ConvAcc<NB_F64> { using type = double; };

template <int Code> __device__ __forceinline__ typename ConvAcc<Code>::type load(const void* base, int64_t off) {
    const auto v = static_cast<const typename Storage<Code>::type*>(base)[off];
    if constexpr (Code == NB_F64) return v;
    else return load_f32<Code>(v);
}

template <int Code> __device__ __forceinline__ void store(void* base, int64_t off, typename ConvAcc<Code>::type v) {
    static_cast<typename Storage<Code>::type*>(base)[off] = from_f64<Code>(static_cast<double>(v));
}

// A staged element: the accumulation type as it is, the dtype (tensor cores) rounded (exact: it came from it).
template <int Code, typename S> __device__ __forceinline__ S to_smem(typename ConvAcc<Code>::type v) {
    if constexpr (std::is_same<S, typename Storage<Code>::type>::value) return from_f64<Code>(static_cast<double>(v));
    else return v;
}

// Splits t into (a, b, c) of sizes [*, nb, nc], row-major.
__device__ __forceinline__ void split3(int64_t t, int64_t nb, int64_t nc, int64_t* a, int64_t* b, int64_t* c) {
    *c = t % nc;
    t /= nc;
    *b = t % nb;
    *a = t / nb;
}

// The GEMM sizes of one group's pass.
struct Sizes {
    int64_t M, Ncol, K;
};

template <int Kind> __host__ __device__ __forceinline__ Sizes sizes(const nb_bk_conv& p) {
    const int64_t Cg = p.C / p.groups, Og = p.O / p.groups, taps = p.kh * p.kw;
    if (Kind == NB_CONV_FORWARD) return {Og, p.N * p.OH * p.OW, Cg * taps};
    if (Kind == NB_CONV_INPUT_GRAD) return {Cg, p.N * p.H * p.W, Og * taps};
    return {Og, Cg * taps, p.N * p.OH * p.OW};
}

// A's element (m, k) of group g: the weight (forward, input grad) or dy (weight grad).
template <int Code, int Kind>
__device__ __forceinline__ typename ConvAcc<Code>::type a_at(const nb_bk_conv& p, int64_t g, int64_t m, int64_t k) {
    int64_t u, i, j;
    if (Kind == NB_CONV_WEIGHT_GRAD) {  // k = (n, p, q)
        split3(k, p.OH, p.OW, &u, &i, &j);
        const int64_t o = g * (p.O / p.groups) + m;
        return load<Code>(p.dy.data, u * p.dy.s[0] + o * p.dy.s[1] + i * p.dy.s[2] + j * p.dy.s[3]);
    }
    split3(k, p.kh, p.kw, &u, &i, &j);  // k = (c or o within the group, i, j)
    const int64_t Og = p.O / p.groups;
    const int64_t o = g * Og + (Kind == NB_CONV_FORWARD ? m : u), c = Kind == NB_CONV_FORWARD ? u : m;
    return load<Code>(p.w.data, o * p.w.s[0] + c * p.w.s[1] + i * p.w.s[2] + j * p.w.s[3]);
}

// x[n, c, h, w] of group g's channel c, zero outside the tensor (the padding).
template <int Code>
__device__ __forceinline__ typename ConvAcc<Code>::type x_at(const nb_bk_conv& p, int64_t g, int64_t n, int64_t c,
                                                             int64_t op, int64_t oq, int64_t i, int64_t j) {
    const int64_t h = op * p.sh - p.pt + i * p.dh, w = oq * p.sw - p.pl + j * p.dw;
    if (h < 0 || h >= p.H || w < 0 || w >= p.W) return 0;
    const int64_t ch = g * (p.C / p.groups) + c;
    return load<Code>(p.x.data, n * p.x.s[0] + ch * p.x.s[1] + h * p.x.s[2] + w * p.x.s[3]);
}

// B's element (k, col) of group g; (c0, c1, c2) is col split as the kind's columns are.
template <int Code, int Kind>
__device__ __forceinline__ typename ConvAcc<Code>::type b_at(const nb_bk_conv& p, int64_t g, int64_t k, int64_t c0,
                                                             int64_t c1, int64_t c2) {
    int64_t u, i, j;
    if (Kind == NB_CONV_WEIGHT_GRAD) {  // k = (n, p, q), col = (c, i, j)
        split3(k, p.OH, p.OW, &u, &i, &j);
        return x_at<Code>(p, g, u, c0, i, j, c1, c2);
    }
    split3(k, p.kh, p.kw, &u, &i, &j);
    if (Kind == NB_CONV_FORWARD) return x_at<Code>(p, g, c0, u, c1, c2, i, j);  // k = (c, i, j), col = (n, p, q)
    // input grad: k = (o, i, j), col = (n, h, w); dy[n, o, r / sh, t / sw] where the tap lands on a stride
    const int64_t r = c1 + p.pt - i * p.dh, t = c2 + p.pl - j * p.dw;
    if (r < 0 || t < 0 || r % p.sh != 0 || t % p.sw != 0) return 0;
    const int64_t op = r / p.sh, oq = t / p.sw;
    if (op >= p.OH || oq >= p.OW) return 0;
    const int64_t o = g * (p.O / p.groups) + u;
    return load<Code>(p.dy.data, c0 * p.dy.s[0] + o * p.dy.s[1] + op * p.dy.s[2] + oq * p.dy.s[3]);
}

// Column col split as the kind's columns are: (n, p, q), (n, h, w) or (c, i, j).
template <int Kind> __device__ __forceinline__ void split_col(const nb_bk_conv& p, int64_t col, int64_t* c) {
    if (Kind == NB_CONV_FORWARD) split3(col, p.OH, p.OW, &c[0], &c[1], &c[2]);
    else if (Kind == NB_CONV_INPUT_GRAD) split3(col, p.H, p.W, &c[0], &c[1], &c[2]);
    else split3(col, p.kh, p.kw, &c[0], &c[1], &c[2]);
}

// Slice [k0, k0 + BK) of both operands into shared memory, zero outside the pass:
// As[kk][i] = A(m0 + i, k0 + kk), Bs[kk][jb] = B(k0 + kk, the thread's column jb), as S
// (the accumulation type, or the dtype itself for the tensor cores: exact).
template <int Code, int Kind, int LD, typename S>
__device__ __forceinline__ void stage(S (&As)[BK][LD], S (&Bs)[BK][LD], const nb_bk_conv& p, int64_t g, const Sizes& z,
                                      int64_t m0, int64_t k0, int64_t kend, int jb, bool col_ok, const int64_t* cb) {
    const int tid = threadIdx.y * TX + threadIdx.x;
    for (int e = tid; e < BM * BK; e += kThreads) {
        const int i = e / BK, kk = e % BK;
        const int64_t gm = m0 + i, gk = k0 + kk;
        As[kk][i] = to_smem<Code, S>((gm < z.M && gk < kend) ? a_at<Code, Kind>(p, g, gm, gk) : 0);
    }
    for (int e = tid; e < BK * BN; e += kThreads) {
        const int kk = e / BN;
        const int64_t gk = k0 + kk;
        Bs[kk][jb] = to_smem<Code, S>((col_ok && gk < kend) ? b_at<Code, Kind>(p, g, gk, cb[0], cb[1], cb[2]) : 0);
    }
}

// What every pass's block starts from: its group, slice, k range and output tile, and
// the thread's B column split once.
template <int Kind> struct TileJob {
    int64_t splits, g, slice, kbeg, kend, m0, n0;
    Sizes z;
    int jb;
    bool col_ok;
    int64_t cb[3] = {0, 0, 0};
    __device__ TileJob(const nb_bk_conv& p, int64_t kslice) {
        splits = Kind == NB_CONV_WEIGHT_GRAD ? p.splits : 1;
        g = blockIdx.z / splits, slice = blockIdx.z % splits;
        z = sizes<Kind>(p);
        kbeg = slice * kslice, kend = kbeg + kslice < z.K ? kbeg + kslice : z.K;
        m0 = static_cast<int64_t>(blockIdx.y) * BM, n0 = static_cast<int64_t>(blockIdx.x) * BN;
        jb = (threadIdx.y * TX + threadIdx.x) % BN;
        col_ok = n0 + jb < z.Ncol;
        if (col_ok) split_col<Kind>(p, n0 + jb, cb);
    }
};

// Writes the thread's outputs acc[i][j] = C(m0 + ty + i TY, n0 + tx + j TX), plus the
// bias, into the output (or, for a split weight gradient, its slice's partial).
template <int Code, int Kind, typename A>
__device__ __forceinline__ void write_tile(const nb_bk_conv& p, const TileJob<Kind>& t, const A (&acc)[TM][TN]) {
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t Cg = p.C / p.groups, Og = p.O / p.groups;
    for (int i = 0; i < TM; i++) {
        const int64_t m = t.m0 + ty + i * TY;
        if (m >= t.z.M) continue;
        const int64_t ch = t.g * (Kind == NB_CONV_INPUT_GRAD ? Cg : Og) + m;  // the output's channel
        const A b = p.bias != nullptr && Kind != NB_CONV_WEIGHT_GRAD ? load<Code>(p.bias, ch) : A(0);
        for (int j = 0; j < TN; j++) {
            const int64_t col = t.n0 + tx + j * TX;
            if (col >= t.z.Ncol) continue;
            if (Kind == NB_CONV_WEIGHT_GRAD) {  // dw [O, (c, i, j)], or this slice's partial in the workspace
                const int64_t at = ch * t.z.Ncol + col;
                if (t.splits == 1) store<Code>(p.out, at, acc[i][j]);
                else static_cast<A*>(p.workspace)[t.slice * p.O * t.z.Ncol + at] = acc[i][j];
                continue;
            }
            int64_t c[3];
            split_col<Kind>(p, col, c);
            const int64_t ch_count = Kind == NB_CONV_FORWARD ? p.O : p.C;
            const int64_t rows = Kind == NB_CONV_FORWARD ? p.OH : p.H, cols = Kind == NB_CONV_FORWARD ? p.OW : p.W;
            store<Code>(p.out, ((c[0] * ch_count + ch) * rows + c[1]) * cols + c[2], acc[i][j] + b);
        }
    }
}

// grid: (ceil(Ncol / BN), ceil(M / BM), groups * splits); block: (TX, TY).
template <int Code, int Kind> __global__ void __launch_bounds__(kThreads) conv_gemm(nb_bk_conv p, int64_t kslice) {
    using A = typename ConvAcc<Code>::type;
    __shared__ A As[BK][BM];  // k-major slices
    __shared__ A Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const TileJob<Kind> t(p, kslice);
    A acc[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) acc[i][j] = A(0);
    for (int64_t k0 = t.kbeg; k0 < t.kend; k0 += BK) {
        stage<Code, Kind>(As, Bs, p, t.g, t.z, t.m0, k0, t.kend, t.jb, t.col_ok, t.cb);
        __syncthreads();
        for (int kk = 0; kk < BK; kk++) {
            A av[TM], bv[TN];
            for (int i = 0; i < TM; i++) av[i] = As[kk][ty + i * TY];
            for (int j = 0; j < TN; j++) bv[j] = Bs[kk][tx + j * TX];
            for (int i = 0; i < TM; i++)
                for (int j = 0; j < TN; j++) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    write_tile<Code, Kind>(p, t, acc);
}

// The same pass on the tensor cores (float16 / bfloat16): the slices are staged in the
// dtype and each of the 8 warps multiplies a 16-row stripe of As by two 16-column tiles
// of Bs (wmma 16x16x16, float accumulators, k in order); the tile goes through shared
// memory to write_tile.
template <int Code, int Kind> __global__ void __launch_bounds__(kThreads) conv_gemm_tc(nb_bk_conv p, int64_t kslice) {
    using T = typename Storage<Code>::type;
    constexpr int LD = BM + 8, LC = BN + 4;  // padded rows: 16-byte multiples, fewer bank conflicts
    static_assert(BM == 4 * 16 && BN == 4 * 16 && kThreads == 8 * 32 && BK == 16, "8 warps of 1x2 fragments");
    __shared__ __align__(32) T As[BK][LD];
    __shared__ __align__(32) T Bs[BK][LD];
    __shared__ __align__(32) float Cs[BM][LC];
    const int warp = (threadIdx.y * TX + threadIdx.x) / 32, wm = warp / 2 * 16, wn = warp % 2 * 32;
    const TileJob<Kind> t(p, kslice);
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb;
    for (int f = 0; f < 2; f++) wmma::fill_fragment(acc[f], 0.0f);
    for (int64_t k0 = t.kbeg; k0 < t.kend; k0 += BK) {
        stage<Code, Kind>(As, Bs, p, t.g, t.z, t.m0, k0, t.kend, t.jb, t.col_ok, t.cb);
        __syncthreads();
        wmma::load_matrix_sync(fa, &As[0][wm], LD);  // A(m, k) at As[k][m]: column-major
        for (int f = 0; f < 2; f++) {
            wmma::load_matrix_sync(fb, &Bs[0][wn + 16 * f], LD);
            wmma::mma_sync(acc[f], fa, fb, acc[f]);
        }
        __syncthreads();
    }
    for (int f = 0; f < 2; f++) wmma::store_matrix_sync(&Cs[wm][wn + 16 * f], acc[f], LC, wmma::mem_row_major);
    __syncthreads();
    float out[TM][TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++) out[i][j] = Cs[threadIdx.y + i * TY][threadIdx.x + j * TX];
    write_tile<Code, Kind>(p, t, out);
}

// dw[t] = the sum of the slices' partials for element t, in slice order.
template <int Code> __global__ void conv_sum_slices(nb_bk_conv p, int64_t n) {
    using A = typename ConvAcc<Code>::type;
    const A* ws = static_cast<const A*>(p.workspace);
    for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < n;
         t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        A v = 0;
        for (int64_t s = 0; s < p.splits; s++) v += ws[s * n + t];
        store<Code>(p.out, t, v);
    }
}

template <int Code, int Kind> cudaError_t run(const nb_bk_conv& p, cudaStream_t stream) {
    const Sizes z = sizes<Kind>(p);
    const int64_t splits = Kind == NB_CONV_WEIGHT_GRAD ? p.splits : 1;
    if (z.M == 0 || z.Ncol == 0) return cudaSuccess;
    const int64_t gx = (z.Ncol + BN - 1) / BN, gy = (z.M + BM - 1) / BM, gz = p.groups * splits;
    if (splits < 1 || gx > 0x7fffffff || gy > kMaxGridYZ || gz > kMaxGridYZ) return cudaErrorInvalidConfiguration;
    if (splits > 1 && p.workspace == nullptr) return cudaErrorInvalidValue;
    // each slice a whole number of BK steps, so slices start on the same k as one pass would
    const int64_t kslice = ((z.K + splits - 1) / splits + BK - 1) / BK * BK;
    const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(gz));
    void (*conv_pass)(nb_bk_conv, int64_t) = conv_gemm<Code, Kind>;
    if constexpr (Code == NB_F16 || Code == NB_BF16)
        if (nb_cuda_tensor_cores()) conv_pass = conv_gemm_tc<Code, Kind>;
    NB_LAUNCH(grid, dim3(TX, TY), 0, stream, conv_pass)(p, kslice > 0 ? kslice : BK);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess || splits == 1) return err;
    const int64_t n = p.O * z.Ncol, threads = 256, blocks = (n + threads - 1) / threads;
    NB_LAUNCH(static_cast<unsigned>(blocks < 65535 ? blocks : 65535), threads, 0, stream, conv_sum_slices<Code>)(p, n);
    return cudaGetLastError();
}

template <int Code> cudaError_t run_kind(const nb_bk_conv& p, cudaStream_t stream) {
    switch (p.kind) {
        case NB_CONV_FORWARD: return run<Code, NB_CONV_FORWARD>(p, stream);
        case NB_CONV_INPUT_GRAD: return run<Code, NB_CONV_INPUT_GRAD>(p, stream);
        case NB_CONV_WEIGHT_GRAD: return run<Code, NB_CONV_WEIGHT_GRAD>(p, stream);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_conv(const nb_bk_conv* p, cudaStream_t stream) {
    using namespace nbcuda;
    if (p->groups < 1 || p->C % p->groups != 0 || p->O % p->groups != 0 || p->sh < 1 || p->sw < 1 || p->dh < 1 ||
        p->dw < 1)
        return cudaErrorInvalidValue;
    switch (p->dtype) {
        case NB_F32: return run_kind<NB_F32>(*p, stream);
        case NB_F64: return run_kind<NB_F64>(*p, stream);
        case NB_F16: return run_kind<NB_F16>(*p, stream);
        case NB_BF16: return run_kind<NB_BF16>(*p, stream);
        default: return cudaErrorInvalidValue;
    }
}
