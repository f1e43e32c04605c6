// attention_tc.cu: the fused attention's float16 / bfloat16 kernels on the tensor
// cores (nvcuda::wmma, 16x16x16 tiles, float accumulators); NABLA_TENSOR_CORES=0
// keeps attention.cu's CUDA-core kernels for them.
//
// The loops are attention.cu's (FlashAttention-2: a forward pass per query tile,
// a dq pass per query tile writing delta, a dk/dv pass per key tile; no atomics,
// so results repeat bit for bit), with every product a warp's wmma over tiles held
// in shared memory in the operands' dtype. A block is 4 warps over 64 rows, 16
// (one fragment high) per warp; the other side streams in tiles of 64 rows (32 for
// head dims above 64, so the shared memory stays under 99 KiB). Head dims are
// padded with zeros to multiples of 16. Scores come out of the products in float
// into a per-warp scratch, where lanes 2r and 2r + 1 take row r (interleaved
// columns) for the scale, masks, softmax and dropout in float (attention.cuh's
// Scorer, so the same Philox draws); the weights (and dS) go back to the dtype as
// the next product's A operand. The forward's output accumulates in a per-warp
// float tile that the lanes rescale with the running max before each P V; the
// gradients accumulate in fragments across the whole loop.
#include <mma.h>

#include "attention.cuh"

namespace nbcuda {
namespace {

using namespace attn;
using namespace nvcuda;

constexpr int kRows = 16, kBlock = kWarps * kRows;  // a warp's rows (one fragment high), a block's
constexpr int kAlign = 128;                         // the dynamic shared memory is aligned up to this
// Rows of the streamed tile (keys in the forward and the dq pass, queries in the dk/dv pass).
template <int DMAX> __host__ __device__ constexpr int stream_rows() { return DMAX > 64 ? 32 : 64; }

template <typename T> using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
template <typename T, typename L> using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, L>;
using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Carves the block's shared memory into regions; every region is a multiple of 32
// bytes, so every fragment pointer is 32-byte aligned as wmma requires.
struct Carve {
    unsigned char* at;
    __device__ explicit Carve(unsigned char* raw)
        : at(reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(raw) + kAlign - 1) &
                                              ~static_cast<uintptr_t>(kAlign - 1))) {}
    template <typename X> __device__ X* take(size_t n) {
        X* r = reinterpret_cast<X*>(at);
        at += n * sizeof(X);
        return r;
    }
};

// out[16][16 nn] (float, ld ldo) = a[16][16 nd] b[16 nn][16 nd]^T: a warp's scores.
template <typename T>
__device__ __forceinline__ void product_nt(float* out, int ldo, const T* a, const T* b, int ld, int nn, int nd) {
    FragA<T> fa;
    FragB<T, wmma::col_major> fb;
    Acc acc;
    for (int n = 0; n < nn; n++) {
        wmma::fill_fragment(acc, 0.0f);
        for (int d = 0; d < nd; d++) {
            wmma::load_matrix_sync(fa, a + d * 16, ld);
            wmma::load_matrix_sync(fb, b + n * 16 * ld + d * 16, ld);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::store_matrix_sync(out + n * 16, acc, ldo, wmma::mem_row_major);
    }
}

// acc[n] += a[16][16 nk] b[16 nk][16 n] for n < nn (a: ld lda, b: row-major, ld ldb), k in order.
template <int N, typename T>
__device__ __forceinline__ void product_nn(Acc (&acc)[N], const T* a, int lda, const T* b, int ldb, int nn, int nk) {
    FragA<T> fa;
    FragB<T, wmma::row_major> fb;
    for (int k = 0; k < nk; k++) {
        wmma::load_matrix_sync(fa, a + k * 16, lda);
#pragma unroll
        for (int n = 0; n < N; n++) {
            if (n >= nn) break;
            wmma::load_matrix_sync(fb, b + k * 16 * ldb + n * 16, ldb);
            wmma::mma_sync(acc[n], fa, fb, acc[n]);
        }
    }
}

template <int N> __device__ __forceinline__ void clear(Acc (&acc)[N]) {
#pragma unroll
    for (int n = 0; n < N; n++) wmma::fill_fragment(acc[n], 0.0f);
}

// dst[row0 + r][c0 + c] = tile[r][c] * f for a 16x16 float tile, inside rows x cols;
// lanes 2r and 2r + 1 write the halves of row r (f: the lane's row factor).
template <int Code>
__device__ __forceinline__ void store_block(void* base, const nb_bk_attention_operand& o, int64_t boff, int64_t row0,
                                            int64_t rows, int64_t c0, int64_t cols, const float* tile, int ldt,
                                            float f) {
    typename Storage<Code>::type* dst = static_cast<typename Storage<Code>::type*>(base) + boff;
    const int lane = threadIdx.x & 31, r = lane >> 1, h = lane & 1;
    if (row0 + r >= rows) return;
    for (int c = h * 8; c < h * 8 + 8; c++)
        if (c0 + c < cols) dst[(row0 + r) * o.rs + (c0 + c) * o.cs] = store_acc<Code>(tile[r * ldt + c] * f);
}

// The warp's rows of a result from its fragments acc[n < nn], through the float scratch [16][ldt].
template <int Code, int N>
__device__ __forceinline__ void store_frags(void* base, const nb_bk_attention_operand& o, int64_t boff, int64_t row0,
                                            int64_t rows, int64_t cols, const Acc (&acc)[N], int nn, float* scratch,
                                            int ldt, float f) {
#pragma unroll
    for (int n = 0; n < N; n++) {
        if (n >= nn) break;
        wmma::store_matrix_sync(scratch, acc[n], ldt, wmma::mem_row_major);
        __syncwarp();
        store_block<Code>(base, o, boff, row0, rows, n * 16, cols, scratch, ldt, f);
        __syncwarp();
    }
}

template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_forward_tc(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    constexpr int NT = stream_rows<DMAX>(), lds = NT + 4, ldp = NT + 8;
    const int ldo = w + 4, lane = threadIdx.x & 31, warp = threadIdx.x >> 5, r = lane >> 1, h = lane & 1;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    Carve sm(raw);
    T* qs = sm.take<T>(kBlock * ld);                                          // [64][ld] query rows
    T* ks = sm.take<T>(NT * ld);                                              // [NT][ld] a key tile
    T* vs = sm.take<T>(NT * ld);                                              // [NT][ld] its values
    float* ss = sm.take<float>(kWarps * kRows * lds) + warp * kRows * lds;    // [16][lds] the warp's scores
    T* ps = sm.take<T>(kWarps * kRows * ldp) + warp * kRows * ldp;            // [16][ldp] its weights
    float* os = sm.take<float>(kWarps * kRows * ldo) + warp * kRows * ldo;    // [16][ldo] its output
    const int64_t tiles = (p.L + kBlock - 1) / kBlock, b = blockIdx.x / tiles, i0 = (blockIdx.x % tiles) * kBlock;
    const int64_t i = i0 + warp * kRows + r;  // this lane's query row
    const Scorer<Code> sc(p, b);
    const T* k = batch_base<Code>(p, p.k, b);
    const T* v = batch_base<Code>(p, p.v, b);
    load_tile<Code>(qs, kBlock, ld, w, batch_base<Code>(p, p.q, b) + i0 * p.q.rs, p.q.rs, p.q.cs, p.L - i0, p.E);
    for (int c = lane; c < kRows * ldo; c += 32) os[c] = 0;
    const int nE = static_cast<int>((p.E + 15) / 16), nV = static_cast<int>((p.Ev + 15) / 16);
    const int64_t keys = p.is_causal && i0 + kBlock < p.S ? i0 + kBlock : p.S;  // later keys see no row here
    float m = -INFINITY, l = 0;  // the row's running max; this lane's part of its sum
    for (int64_t j0 = 0; j0 < keys; j0 += NT) {
        __syncthreads();  // the previous tile is consumed (and the query tile loaded)
        load_pair<Code>(ks, vs, NT, ld, w, k, p.k, p.E, v, p.v, p.Ev, j0, p.S);
        __syncthreads();
        product_nt(ss, lds, qs + warp * kRows * ld, ks, ld, NT / 16, nE);
        __syncwarp();
        float x[NT / 2], tmax = -INFINITY;
#pragma unroll
        for (int t = 0; t < NT / 2; t++) {
            const int c = h + 2 * t;
            x[t] = sc.score(ss[r * lds + c], i, j0 + c);
            tmax = fmaxf(tmax, x[t]);
        }
        const float m_new = fmaxf(m, fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1)));
        const float base = m_new == -INFINITY ? 0.0f : m_new;  // all masked so far: every weight is 0
        const float alpha = exp_acc(m - base);
        l *= alpha;
        m = m_new;
#pragma unroll
        for (int t = 0; t < NT / 2; t++) {
            const int c = h + 2 * t;
            const float e = exp_acc(x[t] - base);
            l += e;
            ps[r * ldp + c] = store_acc<Code>(e == 0 ? 0.0f : e * sc.keep(i, j0 + c));
        }
        for (int c = h; c < nV * 16; c += 2) os[r * ldo + c] *= alpha;
        __syncwarp();
        Acc o[DMAX / 16];
#pragma unroll
        for (int n = 0; n < DMAX / 16; n++)
            if (n < nV) wmma::load_matrix_sync(o[n], os + n * 16, ldo, wmma::mem_row_major);
        product_nn(o, ps, ldp, vs, ld, nV, NT / 16);
#pragma unroll
        for (int n = 0; n < DMAX / 16; n++)
            if (n < nV) wmma::store_matrix_sync(os + n * 16, o[n], ldo, wmma::mem_row_major);
    }
    __syncwarp();
    const float sum = l + __shfl_xor_sync(0xffffffffu, l, 1);
    if (h == 0 && i < p.L) static_cast<float*>(p.lse)[b * p.L + i] = sum > 0 ? m + log_acc(sum) : -INFINITY;
    const int64_t boff = batch_offset(p, p.out, b);
    for (int n = 0; n < nV; n++)
        store_block<Code>(p.out.data, p.out, boff, i0 + warp * kRows, p.L, n * 16, p.Ev, os + n * 16, ldo,
                          sum > 0 ? 1.0f / sum : 0.0f);
}

// The backward passes' shared memory: the block's two 64-row tiles a and b, the
// streamed tiles xs and ys ([NT][ld] each), and the warp's float scores and dP
// ([16][NT + 4]) and dtype tiles dS and P * keep ([16][NT + 8]; the dq pass has no pz).
template <typename T, int NT> struct BackwardTiles {
    T *a, *b, *xs, *ys, *ds, *pz;
    float *ss, *dps;
    __device__ BackwardTiles(unsigned char* raw, int ld) {
        const int warp = threadIdx.x >> 5;
        Carve sm(raw);
        a = sm.take<T>(kBlock * ld), b = sm.take<T>(kBlock * ld);
        xs = sm.take<T>(NT * ld), ys = sm.take<T>(NT * ld);
        ss = sm.take<float>(kWarps * kRows * (NT + 4)) + warp * kRows * (NT + 4);
        dps = sm.take<float>(kWarps * kRows * (NT + 4)) + warp * kRows * (NT + 4);
        ds = sm.take<T>(kWarps * kRows * (NT + 8)) + warp * kRows * (NT + 8);
        pz = sm.take<T>(kWarps * kRows * (NT + 8)) + warp * kRows * (NT + 8);
    }
};

// The backward's step over a streamed tile: rows [r0, r0 + NT) of x (E columns) and y
// (Ev columns) into xs and ys, then the warp's products ss = a xs^T and dps = b ys^T.
template <int Code, int NT, typename T>
__device__ __forceinline__ void stream_products(const nb_bk_attention& p, int ld, int w, T* xs, T* ys, const T* x,
                                                const nb_bk_attention_operand& ox, const T* y,
                                                const nb_bk_attention_operand& oy, int64_t r0, int64_t rows,
                                                const T* a, const T* b, float* ss, float* dps, int lds) {
    __syncthreads();  // the previous tile is consumed
    load_pair<Code>(xs, ys, NT, ld, w, x, ox, p.E, y, oy, p.Ev, r0, rows);
    __syncthreads();
    product_nt(ss, lds, a, xs, ld, NT / 16, static_cast<int>((p.E + 15) / 16));
    product_nt(dps, lds, b, ys, ld, NT / 16, static_cast<int>((p.Ev + 15) / 16));
    __syncwarp();
}

// dq for one query tile: dS = P (dP * keep - delta), dq = scale * dS k; also writes delta.
template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_backward_dq_tc(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    constexpr int NT = stream_rows<DMAX>(), lds = NT + 4, ldp = NT + 8;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, r = lane >> 1, h = lane & 1;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    const BackwardTiles<T, NT> sm(raw, ld);  // a: query rows, b: their grad_out rows; keys and values stream
    T *qs = sm.a, *gs = sm.b, *ks = sm.xs, *vs = sm.ys, *dss = sm.ds;
    float *ss = sm.ss, *dps = sm.dps;
    const int64_t tiles = (p.L + kBlock - 1) / kBlock, b = blockIdx.x / tiles, i0 = (blockIdx.x % tiles) * kBlock;
    const int64_t i = i0 + warp * kRows + r;
    const Scorer<Code> sc(p, b);
    const T* k = batch_base<Code>(p, p.k, b);
    const T* v = batch_base<Code>(p, p.v, b);
    const T* go = batch_base<Code>(p, p.grad_out, b);
    const T* out = batch_base<Code>(p, p.out, b);
    load_pair<Code>(qs, gs, kBlock, ld, w, batch_base<Code>(p, p.q, b), p.q, p.E, go, p.grad_out, p.Ev, i0, p.L);
    float part = 0;  // delta = rowsum(grad_out * out), over the lane pair
    if (i < p.L)
        for (int64_t c = h; c < p.Ev; c += 2)
            part += load_acc<Code>(go[i * p.grad_out.rs + c * p.grad_out.cs]) * load_acc<Code>(out[i * p.out.rs + c * p.out.cs]);
    const float row_delta = part + __shfl_xor_sync(0xffffffffu, part, 1);
    const float row_lse = i < p.L ? static_cast<const float*>(p.lse)[b * p.L + i] : -INFINITY;
    if (h == 0 && i < p.L) static_cast<float*>(p.delta)[b * p.L + i] = row_delta;
    const int nE = static_cast<int>((p.E + 15) / 16);
    const int64_t keys = p.is_causal && i0 + kBlock < p.S ? i0 + kBlock : p.S;
    Acc dq[DMAX / 16];
    clear(dq);
    for (int64_t j0 = 0; j0 < keys; j0 += NT) {
        stream_products<Code, NT>(p, ld, w, ks, vs, k, p.k, v, p.v, j0, p.S, qs + warp * kRows * ld,
                                  gs + warp * kRows * ld, ss, dps, lds);
#pragma unroll
        for (int t = 0; t < NT / 2; t++) {
            const int c = h + 2 * t;
            const float pr = weight(sc.score(ss[r * lds + c], i, j0 + c), row_lse);
            dss[r * ldp + c] = store_acc<Code>(pr == 0 ? 0.0f : pr * (dps[r * lds + c] * sc.keep(i, j0 + c) - row_delta));
        }
        __syncwarp();
        product_nn(dq, dss, ldp, ks, ld, nE, NT / 16);
    }
    store_frags<Code>(p.dq.data, p.dq, batch_offset(p, p.dq, b), i0 + warp * kRows, p.L, p.E, dq, nE, ss, lds,
                      static_cast<float>(p.scale));
}

// dk and dv for one key tile: dv = (P keep)^T grad_out, dk = scale * dS^T q, over the query tiles.
template <int Code, int DMAX>
__global__ void __launch_bounds__(kThreads) attention_backward_dkdv_tc(nb_bk_attention p, int ld, int w) {
    using T = typename Storage<Code>::type;
    NB_DYNAMIC_SHARED(unsigned char, raw);
    constexpr int NT = stream_rows<DMAX>(), lds = NT + 4, ldp = NT + 8;
    const BackwardTiles<T, NT> sm(raw, ld);  // a: the block's key rows, b: their values; queries stream
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, r = lane >> 1, h = lane & 1;
    T *ks = sm.a, *vs = sm.b, *qs = sm.xs, *gs = sm.ys, *pzs = sm.pz, *dss = sm.ds;
    float *ss = sm.ss, *dps = sm.dps;  // [16 keys][lds], the rest [16 keys][ldp]
    const int64_t tiles = (p.S + kBlock - 1) / kBlock, b = blockIdx.x / tiles, j0 = (blockIdx.x % tiles) * kBlock;
    const int64_t j = j0 + warp * kRows + r;  // this lane's key
    const Scorer<Code> sc(p, b);
    const T* q = batch_base<Code>(p, p.q, b);
    const T* go = batch_base<Code>(p, p.grad_out, b);
    const float* lse = static_cast<const float*>(p.lse) + b * p.L;
    const float* delta = static_cast<const float*>(p.delta) + b * p.L;
    load_pair<Code>(ks, vs, kBlock, ld, w, batch_base<Code>(p, p.k, b), p.k, p.E, batch_base<Code>(p, p.v, b), p.v,
                    p.Ev, j0, p.S);
    const int nE = static_cast<int>((p.E + 15) / 16), nV = static_cast<int>((p.Ev + 15) / 16);
    Acc dk[DMAX / 16], dv[DMAX / 16];
    clear(dk);
    clear(dv);
    for (int64_t i0 = p.is_causal ? j0 / NT * NT : 0; i0 < p.L; i0 += NT) {  // causal: earlier rows see none
        stream_products<Code, NT>(p, ld, w, qs, gs, q, p.q, go, p.grad_out, i0, p.L, ks + warp * kRows * ld,
                                  vs + warp * kRows * ld, ss, dps, lds);
#pragma unroll
        for (int t = 0; t < NT / 2; t++) {
            const int c = h + 2 * t;
            const int64_t i = i0 + c;
            const float pr = weight(sc.score(ss[r * lds + c], i, j), i < p.L ? lse[i] : -INFINITY);
            const float z = pr == 0 ? 0.0f : sc.keep(i, j);
            pzs[r * ldp + c] = store_acc<Code>(pr * z);
            dss[r * ldp + c] = store_acc<Code>(pr == 0 ? 0.0f : pr * (dps[r * lds + c] * z - delta[i]));
        }
        __syncwarp();
        product_nn(dv, pzs, ldp, gs, ld, nV, NT / 16);
        product_nn(dk, dss, ldp, qs, ld, nE, NT / 16);
    }
    const int64_t row0 = j0 + warp * kRows;
    store_frags<Code>(p.dk.data, p.dk, batch_offset(p, p.dk, b), row0, p.S, p.E, dk, nE, ss, lds,
                      static_cast<float>(p.scale));
    store_frags<Code>(p.dv.data, p.dv, batch_offset(p, p.dv, b), row0, p.S, p.Ev, dv, nV, ss, lds, 1.0f);
}

template <int Code, int DMAX> cudaError_t run(const nb_bk_attention& p, cudaStream_t stream) {
    using T = typename Storage<Code>::type;
    constexpr int NT = stream_rows<DMAX>(), lds = NT + 4, ldp = NT + 8;
    const int64_t d = p.E > p.Ev ? p.E : p.Ev;
    const int w = static_cast<int>((d + 15) / 16 * 16), ld = w + 8;  // rows stay 16-byte multiples
    int64_t batch = 1;
    for (int i = 0; i < p.bndim; i++) batch *= p.bshape[i];
    const int64_t qtiles = (p.L + kBlock - 1) / kBlock, ktiles = (p.S + kBlock - 1) / kBlock;
    const size_t row = sizeof(T) * ld, scores = sizeof(float) * kWarps * kRows * lds;
    const size_t weights = sizeof(T) * kWarps * kRows * ldp, outs = sizeof(float) * kWarps * kRows * (w + 4);
    if (!p.backward)
        return launch(attention_forward_tc<Code, DMAX>, batch * qtiles,
                      kAlign + row * (kBlock + 2 * NT) + scores + weights + outs, stream, p, ld, w);
    const size_t both = kAlign + row * (2 * kBlock + 2 * NT) + 2 * scores + weights;
    cudaError_t err = launch(attention_backward_dq_tc<Code, DMAX>, batch * qtiles, both, stream, p, ld, w);
    if (err != cudaSuccess) return err;
    return launch(attention_backward_dkdv_tc<Code, DMAX>, batch * ktiles, both + weights, stream, p, ld, w);
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_attention_tc(const nb_bk_attention* p, cudaStream_t stream) {
    using namespace nbcuda;  // nb_cuda_attention checked the plan
    const bool wide = (p->E > p->Ev ? p->E : p->Ev) > 64;
    switch (p->dtype) {
        case NB_F16: return wide ? run<NB_F16, 128>(*p, stream) : run<NB_F16, 64>(*p, stream);
        case NB_BF16: return wide ? run<NB_BF16, 128>(*p, stream) : run<NB_BF16, 64>(*p, stream);
        default: return cudaErrorInvalidValue;
    }
}
