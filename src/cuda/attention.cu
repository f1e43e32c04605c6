// attention.cu: fused scaled-dot-product attention (nb_bk_attention), in the
// manner of FlashAttention-2 on the CUDA cores: every float dtype, and float16 /
// bfloat16 with NABLA_TENSOR_CORES=0 (else attention_tc.cu takes those).
//
// A block is 4 warps over a tile of 32 "rows" (query rows in the forward and in
// the dq pass, key rows in the dk/dv pass); warp w owns 8 of them and its 32
// lanes stream over the other side 32 at a time (lane j: key j of a key tile,
// or query j of a query tile). Tiles sit in shared memory as the accumulation
// type (float; double for float64) with a padded row stride, so a lane's own
// row is read with 16-byte loads without bank conflicts and the owned rows are
// read as broadcasts. Softmax is online (running max per row, each lane's
// partial sum rescaled with it, summed over the warp at the end); the output
// and every gradient accumulate in registers. The backward recomputes the
// weights from q, k and the saved logsumexp: a dq pass per query tile (which
// also writes delta = rowsum(grad_out * out)), then a dk/dv pass per key tile
// reading it. No atomics: results repeat bit for bit. Dropout draws each kept
// weight from the Philox word nb_dropout would use for it (philox.h).
#include "attention.cuh"

namespace nbcuda {
namespace {

using namespace attn;
constexpr int kOwn = 8, kTile = kWarps * kOwn;
static_assert(kTile == 32, "a tile is one warp's lanes wide");

// Four consecutive shared-memory values (16-byte aligned) into o.
__device__ __forceinline__ void ld4(const float* p, float* o) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    o[0] = t.x, o[1] = t.y, o[2] = t.z, o[3] = t.w;
}
__device__ __forceinline__ void ld4(const double* p, double* o) {
    const double2 a = *reinterpret_cast<const double2*>(p), b = *reinterpret_cast<const double2*>(p + 2);
    o[0] = a.x, o[1] = a.y, o[2] = b.x, o[3] = b.y;
}

// dots[r] = own[r] . mine over n columns (a multiple of 4): the warp's 8 owned rows
// (stride ld, read as broadcasts) against this lane's row.
template <typename A>
__device__ __forceinline__ void dot_rows(const A* own, const A* mine, int ld, int n, A* dots) {
#pragma unroll
    for (int r = 0; r < kOwn; r++) dots[r] = 0;
    for (int d = 0; d < n; d += 4) {
        A m[4];
        ld4(mine + d, m);
#pragma unroll
        for (int r = 0; r < kOwn; r++) {
            A o[4];
            ld4(own + r * ld + d, o);
            dots[r] = fma(o[0], m[0], fma(o[1], m[1], fma(o[2], m[2], fma(o[3], m[3], dots[r]))));
        }
    }
}

// acc[r][t] += sum over the 32 streamed rows j of coef[j][r] * src[j][lane + 32 t],
// for the column chunks t below n (coef: [32][kOwn], src: [32][ld]).
template <typename A, int C>
__device__ __forceinline__ void accumulate(A (&acc)[kOwn][C], const A* coef, const A* src, int ld, int n) {
    const int lane = threadIdx.x & 31;
    for (int j = 0; j < 32; j++) {
        A c[kOwn];
        ld4(coef + j * kOwn, c);
        ld4(coef + j * kOwn + 4, c + 4);
#pragma unroll
        for (int t = 0; t < C; t++) {
            if (32 * t >= n) break;
            const A s = src[j * ld + lane + 32 * t];
#pragma unroll
            for (int r = 0; r < kOwn; r++) acc[r][t] = fma(c[r], s, acc[r][t]);
        }
    }
}

template <typename A, int C> __device__ __forceinline__ void clear(A (&acc)[kOwn][C]) {
#pragma unroll
    for (int r = 0; r < kOwn; r++)
#pragma unroll
        for (int t = 0; t < C; t++) acc[r][t] = 0;
}

// dst[row0 + r][lane + 32 t] = acc[r][t] * factor[r] for the rows below rows and columns below cols.
template <int Code, int C>
__device__ __forceinline__ void store_rows(void* base, const nb_bk_attention_operand& o, int64_t boff, int64_t row0,
                                           int64_t rows, int64_t cols, const typename AttnAcc<Code>::type (&acc)[kOwn][C],
                                           const typename AttnAcc<Code>::type* factor) {
    typename Storage<Code>::type* dst = static_cast<typename Storage<Code>::type*>(base) + boff;
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int r = 0; r < kOwn; r++) {
        if (row0 + r >= rows) continue;
#pragma unroll
        for (int t = 0; t < C; t++) {
            const int64_t c = lane + 32 * t;
            if (c < cols) dst[(row0 + r) * o.rs + c * o.cs] = store_acc<Code>(acc[r][t] * factor[r]);
        }
    }
}

template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_forward(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    using A = typename AttnAcc<Code>::type;
    constexpr int C = DMAX / 32;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    A* qs = reinterpret_cast<A*>(raw);  // [32][ld] the block's query rows
    A* ks = qs + kTile * ld;            // [32][ld] a key tile
    A* vs = ks + kTile * ld;            // [32][ld] its values
    A* ps = vs + kTile * ld;            // [warps][32 keys][8 rows] the weights, key-major
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tiles = (p.L + kTile - 1) / kTile, b = blockIdx.x / tiles, i0 = (blockIdx.x % tiles) * kTile;
    const Scorer<Code> sc(p, b);
    const T* q = batch_base<Code>(p, p.q, b);
    const T* k = batch_base<Code>(p, p.k, b);
    const T* v = batch_base<Code>(p, p.v, b);
    load_tile<Code>(qs, kTile, ld, w, q + i0 * p.q.rs, p.q.rs, p.q.cs, p.L - i0, p.E);
    const int64_t keys = p.is_causal && i0 + kTile < p.S ? i0 + kTile : p.S;  // later keys see no row here
    const int n_qk = static_cast<int>((p.E + 3) & ~3LL), n_v = static_cast<int>(p.Ev);
    A m[kOwn], l[kOwn], acc[kOwn][C];
    clear(acc);
#pragma unroll
    for (int r = 0; r < kOwn; r++) m[r] = -INFINITY, l[r] = 0;
    A* my_p = ps + warp * 32 * kOwn;
    for (int64_t j0 = 0; j0 < keys; j0 += kTile) {
        __syncthreads();  // the previous tile is consumed (and the query tile loaded)
        load_pair<Code>(ks, vs, kTile, ld, w, k, p.k, p.E, v, p.v, p.Ev, j0, p.S);
        __syncthreads();
        A s[kOwn];
        dot_rows(qs + warp * kOwn * ld, ks + lane * ld, ld, n_qk, s);
        const int64_t j = j0 + lane;
#pragma unroll
        for (int r = 0; r < kOwn; r++) {
            const int64_t i = i0 + warp * kOwn + r;
            const A x = sc.score(s[r], i, j);
            const A m_new = fmax(m[r], warp_max(x));
            const A base = m_new == -INFINITY ? A(0) : m_new;  // all masked so far: every weight is 0
            const A alpha = exp_acc(m[r] - base), e = exp_acc(x - base);
            l[r] = l[r] * alpha + e;
            m[r] = m_new;
#pragma unroll
            for (int t = 0; t < C; t++) acc[r][t] *= alpha;
            my_p[lane * kOwn + r] = e * sc.keep(i, j);
        }
        __syncwarp();
        accumulate(acc, my_p, vs, ld, n_v);  // the next tile's __syncthreads orders the rewrite of my_p
    }
    A* lse = static_cast<A*>(p.lse) + b * p.L;
    A inv[kOwn];
#pragma unroll
    for (int r = 0; r < kOwn; r++) {
        const A sum = warp_sum(l[r]);
        const int64_t i = i0 + warp * kOwn + r;
        inv[r] = sum > 0 ? A(1) / sum : A(0);
        if (lane == 0 && i < p.L) lse[i] = sum > 0 ? m[r] + log_acc(sum) : A(-INFINITY);
    }
    store_rows<Code>(p.out.data, p.out, batch_offset(p, p.out, b), i0 + warp * kOwn, p.L, p.Ev, acc, inv);
}

// dq for one query tile: dS = P (dP * keep - delta), dq = scale * dS k; also writes delta.
template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_backward_dq(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    using A = typename AttnAcc<Code>::type;
    constexpr int C = DMAX / 32;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    A* qs = reinterpret_cast<A*>(raw);  // [32][ld] query rows
    A* gs = qs + kTile * ld;            // [32][ld] their grad_out rows
    A* ks = gs + kTile * ld;            // [32][ld] a key tile
    A* vs = ks + kTile * ld;            // [32][ld] its values
    A* dss = vs + kTile * ld;           // [warps][32 keys][8 rows] dS, key-major
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tiles = (p.L + kTile - 1) / kTile, b = blockIdx.x / tiles, i0 = (blockIdx.x % tiles) * kTile;
    const Scorer<Code> sc(p, b);
    const T* q = batch_base<Code>(p, p.q, b);
    const T* k = batch_base<Code>(p, p.k, b);
    const T* v = batch_base<Code>(p, p.v, b);
    const T* go = batch_base<Code>(p, p.grad_out, b);
    const T* out = batch_base<Code>(p, p.out, b);
    const A* lse = static_cast<const A*>(p.lse) + b * p.L;
    A* delta = static_cast<A*>(p.delta) + b * p.L;
    load_pair<Code>(qs, gs, kTile, ld, w, q, p.q, p.E, go, p.grad_out, p.Ev, i0, p.L);
    A row_lse[kOwn], row_delta[kOwn];
#pragma unroll
    for (int r = 0; r < kOwn; r++) {  // delta = rowsum(grad_out * out), over the warp's lanes
        const int64_t i = i0 + warp * kOwn + r;
        A part = 0;
        if (i < p.L)
            for (int64_t c = lane; c < p.Ev; c += 32)
                part += load_acc<Code>(go[i * p.grad_out.rs + c * p.grad_out.cs]) *
                        load_acc<Code>(out[i * p.out.rs + c * p.out.cs]);
        row_delta[r] = warp_sum(part);
        row_lse[r] = i < p.L ? lse[i] : A(-INFINITY);
        if (lane == 0 && i < p.L) delta[i] = row_delta[r];
    }
    const int64_t keys = p.is_causal && i0 + kTile < p.S ? i0 + kTile : p.S;
    const int n_qk = static_cast<int>((p.E + 3) & ~3LL), n_v = static_cast<int>((p.Ev + 3) & ~3LL);
    A acc[kOwn][C];
    clear(acc);
    A* my_ds = dss + warp * 32 * kOwn;
    for (int64_t j0 = 0; j0 < keys; j0 += kTile) {
        __syncthreads();
        load_pair<Code>(ks, vs, kTile, ld, w, k, p.k, p.E, v, p.v, p.Ev, j0, p.S);
        __syncthreads();
        A s[kOwn], dp[kOwn];
        dot_rows(qs + warp * kOwn * ld, ks + lane * ld, ld, n_qk, s);
        dot_rows(gs + warp * kOwn * ld, vs + lane * ld, ld, n_v, dp);
        const int64_t j = j0 + lane;
#pragma unroll
        for (int r = 0; r < kOwn; r++) {
            const int64_t i = i0 + warp * kOwn + r;
            const A pr = weight(sc.score(s[r], i, j), row_lse[r]);
            my_ds[lane * kOwn + r] = pr == 0 ? A(0) : pr * (dp[r] * sc.keep(i, j) - row_delta[r]);
        }
        __syncwarp();
        accumulate(acc, my_ds, ks, ld, static_cast<int>(p.E));
    }
    A scale[kOwn];
#pragma unroll
    for (int r = 0; r < kOwn; r++) scale[r] = static_cast<A>(p.scale);
    store_rows<Code>(p.dq.data, p.dq, batch_offset(p, p.dq, b), i0 + warp * kOwn, p.L, p.E, acc, scale);
}

// dk and dv for one key tile: dv = (P keep)^T grad_out, dk = scale * dS^T q, over the query tiles.
template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_backward_dkdv(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    using A = typename AttnAcc<Code>::type;
    constexpr int C = DMAX / 32;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    A* ks = reinterpret_cast<A*>(raw);  // [32][ld] the block's key rows
    A* vs = ks + kTile * ld;            // [32][ld] their values
    A* qs = vs + kTile * ld;            // [32][ld] a query tile
    A* gs = qs + kTile * ld;            // [32][ld] its grad_out rows
    A* pzs = gs + kTile * ld;           // [warps][32 queries][8 keys] P * keep, query-major
    A* dss = pzs + kWarps * 32 * kOwn;  // [warps][32 queries][8 keys] dS
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int64_t tiles = (p.S + kTile - 1) / kTile, b = blockIdx.x / tiles, j0 = (blockIdx.x % tiles) * kTile;
    const Scorer<Code> sc(p, b);
    const T* q = batch_base<Code>(p, p.q, b);
    const T* k = batch_base<Code>(p, p.k, b);
    const T* v = batch_base<Code>(p, p.v, b);
    const T* go = batch_base<Code>(p, p.grad_out, b);
    const A* lse = static_cast<const A*>(p.lse) + b * p.L;
    const A* delta = static_cast<const A*>(p.delta) + b * p.L;
    load_pair<Code>(ks, vs, kTile, ld, w, k, p.k, p.E, v, p.v, p.Ev, j0, p.S);
    const int n_qk = static_cast<int>((p.E + 3) & ~3LL), n_v = static_cast<int>((p.Ev + 3) & ~3LL);
    A dk[kOwn][C], dv[kOwn][C];
    clear(dk);
    clear(dv);
    A *my_pz = pzs + warp * 32 * kOwn, *my_ds = dss + warp * 32 * kOwn;
    for (int64_t i0 = p.is_causal ? j0 / kTile * kTile : 0; i0 < p.L; i0 += kTile) {  // causal: earlier rows see none
        __syncthreads();
        load_pair<Code>(qs, gs, kTile, ld, w, q, p.q, p.E, go, p.grad_out, p.Ev, i0, p.L);
        __syncthreads();
        A s[kOwn], dp[kOwn];
        dot_rows(ks + warp * kOwn * ld, qs + lane * ld, ld, n_qk, s);
        dot_rows(vs + warp * kOwn * ld, gs + lane * ld, ld, n_v, dp);
        const int64_t i = i0 + lane;
        const A row_lse = i < p.L ? lse[i] : A(-INFINITY), row_delta = i < p.L ? delta[i] : A(0);
#pragma unroll
        for (int c = 0; c < kOwn; c++) {
            const int64_t j = j0 + warp * kOwn + c;
            const A pr = weight(sc.score(s[c], i, j), row_lse);
            const A z = pr == 0 ? A(0) : sc.keep(i, j);
            my_pz[lane * kOwn + c] = pr * z;
            my_ds[lane * kOwn + c] = pr == 0 ? A(0) : pr * (dp[c] * z - row_delta);
        }
        __syncwarp();
        accumulate(dv, my_pz, gs, ld, static_cast<int>(p.Ev));
        accumulate(dk, my_ds, qs, ld, static_cast<int>(p.E));
    }
    A scale[kOwn], one[kOwn];
#pragma unroll
    for (int r = 0; r < kOwn; r++) scale[r] = static_cast<A>(p.scale), one[r] = 1;
    store_rows<Code>(p.dk.data, p.dk, batch_offset(p, p.dk, b), j0 + warp * kOwn, p.S, p.E, dk, scale);
    store_rows<Code>(p.dv.data, p.dv, batch_offset(p, p.dv, b), j0 + warp * kOwn, p.S, p.Ev, dv, one);
}

template <int Code, int DMAX> cudaError_t run(const nb_bk_attention& p, cudaStream_t stream) {
    using A = typename AttnAcc<Code>::type;
    const int64_t d = p.E > p.Ev ? p.E : p.Ev;
    const int w = static_cast<int>((d + 31) / 32 * 32), ld = w + 4;  // ld % 32 == 4: conflict-free 16-byte rows
    int64_t batch = 1;
    for (int i = 0; i < p.bndim; i++) batch *= p.bshape[i];
    const int64_t qtiles = (p.L + kTile - 1) / kTile, ktiles = (p.S + kTile - 1) / kTile;
    const size_t tile = sizeof(A) * kTile * ld, own = sizeof(A) * kWarps * 32 * kOwn;
    if (!p.backward) return launch(attention_forward<Code, DMAX>, batch * qtiles, 3 * tile + own, stream, p, ld, w);
    cudaError_t err = launch(attention_backward_dq<Code, DMAX>, batch * qtiles, 4 * tile + own, stream, p, ld, w);
    if (err != cudaSuccess) return err;
    return launch(attention_backward_dkdv<Code, DMAX>, batch * ktiles, 4 * tile + 2 * own, stream, p, ld, w);
}

template <int Code> cudaError_t run_dtype(const nb_bk_attention& p, cudaStream_t stream) {
    const int64_t d = p.E > p.Ev ? p.E : p.Ev;
    return d <= 64 ? run<Code, 64>(p, stream) : run<Code, 128>(p, stream);
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_attention(const nb_bk_attention* p, cudaStream_t stream) {
    using namespace nbcuda;
    if (p->E < 1 || p->Ev < 1 || p->E > NB_BK_ATTENTION_MAX_HEAD_DIM || p->Ev > NB_BK_ATTENTION_MAX_HEAD_DIM ||
        p->bndim < 0 || p->bndim > NB_BK_ATTENTION_MAX_BATCH)
        return cudaErrorInvalidValue;
    switch (p->dtype) {
        case NB_F32: return run_dtype<NB_F32>(*p, stream);
        case NB_F64: return run_dtype<NB_F64>(*p, stream);
        case NB_F16: return nb_cuda_tensor_cores() ? nb_cuda_attention_tc(p, stream) : run_dtype<NB_F16>(*p, stream);
        case NB_BF16: return nb_cuda_tensor_cores() ? nb_cuda_attention_tc(p, stream) : run_dtype<NB_BF16>(*p, stream);
        default: return cudaErrorInvalidValue;
    }
}
