/* bgemm_avx512bf16.c: nabla's bfloat16 GEMM for AVX512_BF16 (see bgemm.h).
 * Built with -march=x86-64-v4 -mavx512bf16 in a library of its own; gemm.c
 * calls it only when nb_cpu_capability() says the CPU has AVX512_BF16.
 *
 * vdpbf16ps multiplies pairs: lane j of acc += a[2p] * b[2p][j] + a[2p+1] * b[2p+1][j].
 * So both operands are packed as 32-bit words holding two consecutive steps
 * of K (the even one in the low half; an odd K pads the last pair with zero):
 *   A panel  ap[p * MR + i]      = (A[i][2p], A[i][2p+1])     8 rows
 *   B panel  bp[p * w + j]       = (B[2p][j], B[2p+1][j])     w = 16, 32 or 48 columns
 * and the 8 x 48 kernel keeps 24 float32 accumulators in zmm registers: per
 * pair, 3 vector loads of B, 8 broadcasts of A, 24 vdpbf16ps. An A whose rows
 * run along K holds the pairs already: with an even depth its full panels are
 * read in place (the kernel broadcasts from 8 rows), which saves packing A.
 *
 * Loops, outermost first: M in blocks of mc rows; K in steps of at most KC,
 * whose A panels are packed first; N in blocks of nc columns packed into B
 * panels within L2; 8-row A panels; 48-column B panels. When K takes several
 * steps, the float32 sums of a block of C wait between steps in a buffer (W)
 * of mc x N floats, so C is rounded once, at the last step, where alpha and
 * beta are applied. One call runs on the calling thread: gemm.c gives each
 * thread its own blocks of C, so the threads never wait for one another. */
#include "bgemm.h"
#include "pack_buffer.h"
#include "transpose8x8.h"

#include <immintrin.h>
#include <string.h>

#define MR 8         /* rows of a micro-tile: broadcasts of A */
#define NR 48        /* columns of a micro-tile: three zmm of B */
#define KC 2048      /* depth of one packed step: an A panel is 32 KiB */
#define MC 1024      /* rows of A per packed block */
#define B_BYTES (768 << 10)  /* a thread's packed block of B, within its L2 */
#define W_BYTES (16 << 20)   /* at most this much float32 for partial sums (fewer rows per block) */
#define PREFETCH_P 8 /* pairs ahead that the kernel prefetches B */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ---- packing ---- */

/* The pair of K steps (2p, 2p + 1) of a line whose steps are `step` apart; the
 * second is zero past depth kc. */
static inline uint32_t pair(const uint16_t* x, int64_t step, int64_t p, int64_t kc) {
    const uint32_t hi = 2 * p + 1 < kc ? x[(2 * p + 1) * step] : 0;
    return (uint32_t)x[2 * p * step] | hi << 16;
}

/* One A panel: rows [0, rows) of the MR-row block at a, depth kc, into
 * ap[p * MR + i]; rows past `rows` are zero. */
static void pack_a(const uint16_t* a, int64_t rs, int64_t cs, int64_t rows, int64_t kc, uint32_t* restrict ap) {
    const int64_t kp = (kc + 1) / 2;
    int64_t p = 0;
    if (rows == MR && cs == 1) {  /* rows along K: 8 x 8 word transposes */
        for (; p + 8 <= kc / 2; p += 8)
            nb_transpose8x8((const char*)(a + 2 * p), rs * 2, (char*)(ap + p * MR), MR * 4);
    } else if (rs == 1) {  /* columns along M: interleave two steps of K */
        const __mmask8 m = (__mmask8)((1u << rows) - 1);
        for (; p < kc / 2; p++) {
            const __m128i x0 = _mm_maskz_loadu_epi16(m, a + 2 * p * cs), x1 = _mm_maskz_loadu_epi16(m, a + (2 * p + 1) * cs);
            _mm_storeu_si128((__m128i_u*)(ap + p * MR), _mm_unpacklo_epi16(x0, x1));
            _mm_storeu_si128((__m128i_u*)(ap + p * MR + 4), _mm_unpackhi_epi16(x0, x1));
        }
    }
    for (; p < kp; p++)
        for (int64_t i = 0; i < MR; i++) ap[p * MR + i] = i < rows ? pair(a + i * rs, cs, p, kc) : 0;
}

/* Four full A panels stored along M (rs == 1) at once: each K step's 64 bytes of their 32 rows,
 * one cache line, are read together rather than a quarter at a time by four passes over K
 * (a step is a row of A^T, often 4 KiB or more from the next). Panel q goes to ap + q * MR * kp. */
static void pack_a_cols4(const uint16_t* a, int64_t cs, int64_t kc, int64_t kp, uint32_t* restrict ap) {
    int64_t p = 0;
    for (; p < kc / 2; p++) {
        const uint16_t* r0 = a + 2 * p * cs;
        for (int q = 0; q < 4; q++) {
            const __m128i x0 = _mm_loadu_si128((const __m128i_u*)(r0 + 8 * q));
            const __m128i x1 = _mm_loadu_si128((const __m128i_u*)(r0 + cs + 8 * q));
            uint32_t* d = ap + q * MR * kp + p * MR;
            _mm_storeu_si128((__m128i_u*)d, _mm_unpacklo_epi16(x0, x1));
            _mm_storeu_si128((__m128i_u*)(d + 4), _mm_unpackhi_epi16(x0, x1));
        }
    }
    for (; p < kp; p++)
        for (int64_t i = 0; i < 4 * MR; i++) ap[i / MR * MR * kp + p * MR + i % MR] = pair(a + i, cs, p, kc);
}

/* Mask of the lanes of vector v (16 columns each) that hold one of `cols` columns. */
static inline __mmask16 lanes(int64_t cols, int v) {
    const int64_t n = cols - 16 * v;
    return (__mmask16)(n >= 16 ? 0xFFFF : n <= 0 ? 0 : (1u << n) - 1);
}

/* Two rows of B (steps 2p and 2p + 1; r1 NULL: zero) of 16 columns, as pairs. */
static inline __m512i interleave_rows(const uint16_t* r0, const uint16_t* r1, __mmask16 m) {
    const __m512i x0 = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r0));
    if (r1 == NULL) return x0;
    return _mm512_or_si512(x0, _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, r1)), 16));
}

/* One B panel whose columns are not contiguous: columns [0, cols) at b, depth
 * kc, into bp[p * w + j], w = 16 * ceil(cols / 16) <= NR; columns past `cols`
 * are zero. Columns along K (a transposed B) go through 8 x 8 transposes. */
static void pack_b_strided(const uint16_t* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, uint32_t* restrict bp) {
    const int64_t w = (cols + 15) / 16 * 16, kp = (kc + 1) / 2;
    int64_t p = 0;
    if (cols == w && rs == 1)
        for (; p + 8 <= kc / 2; p += 8)
            for (int64_t j = 0; j < w; j += 8)
                nb_transpose8x8((const char*)(b + j * cs + 2 * p), cs * 2, (char*)(bp + p * w + j), w * 4);
    for (; p < kp; p++)
        for (int64_t j = 0; j < w; j++) bp[p * w + j] = j < cols ? pair(b + j * cs, rs, p, kc) : 0;
}

/* A block of B: columns [0, cols) at b, depth kc, as consecutive panels of NR
 * columns (the last one narrower), the panel of column jr at bp + jr * kp. A
 * row-major B is read two rows at a time across the whole block, so the reads
 * run along memory. */
static void pack_b_block(const uint16_t* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, uint32_t* restrict bp) {
    const int64_t kp = (kc + 1) / 2;
    if (cs != 1) {
        for (int64_t jr = 0; jr < cols; jr += NR)
            pack_b_strided(b + jr * cs, rs, cs, min64(NR, cols - jr), kc, bp + jr * kp);
        return;
    }
    for (int64_t p = 0; p < kp; p++) {
        const uint16_t* r0 = b + 2 * p * rs;
        const uint16_t* r1 = 2 * p + 1 < kc ? r0 + rs : NULL;
        for (int64_t jr = 0; jr < cols; jr += NR) {
            const int64_t n = min64(NR, cols - jr), w = (n + 15) / 16 * 16;
            uint32_t* d = bp + jr * kp + p * w;
            for (int v = 0; v < w / 16; v++)
                _mm512_store_si512(d + 16 * v, interleave_rows(r0 + jr + 16 * v, r1 ? r1 + jr + 16 * v : NULL, lanes(n, v)));
        }
    }
}

/* ---- the micro-kernel ---- */

/* Where a micro-tile's sums go: W (float32, between steps of K) or, at the
 * last step, C (rounded to bfloat16 once, after alpha and beta). */
typedef struct {
    uint16_t* c;
    int64_t ldc;
    float* w;
    int64_t ldw;
    bool first, last;  /* the first step starts from zero, later ones from W */
    float alpha, beta;
} tile_out;

/* 16 bfloat16 (masked lanes zero) widened to float32: exact. */
static inline __m512 bf16x16_load(__mmask16 m, const uint16_t* p) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p)), 16));
}

/* 16 floats rounded to nearest even bfloat16, NaN kept quiet (vcvtneps2bf16:
 * nabla's float -> bfloat16 conversion, but subnormals become zero, as in
 * vdpbf16ps's sums). */
static inline __m256i bf16x16_round(__m512 x) { return (__m256i)_mm512_cvtneps_pbh(x); }

/* Where a micro-tile's A pairs are: a packed panel (the pair p of row i at
 * word p * MR + i), or A itself when its rows run along K (the pair at byte
 * i * rs + 4 p; rows past `rows` are never read there, so only full panels). */
typedef struct {
    const char* a;
    int64_t rs;  /* bytes between rows; 0: a packed panel */
} a_pairs;

static inline uint32_t load_u32(const char* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The rows x cols micro-tile (cols <= 16 * V): A^T bp over kp pairs, added to
 * W's sums unless first, stored to W or (last) to C. */
static inline __attribute__((always_inline)) void kernel(const int V, const bool packed, int64_t kp, a_pairs A,
                                                         const uint32_t* restrict bp, const tile_out* o,
                                                         int64_t rows, int64_t cols) {
    const char* ap = A.a;
    const int64_t ars = packed ? 4 : A.rs, aps = packed ? 4 * MR : 4;
    const int w = 16 * V;
    __mmask16 m[3];
    __m512 acc[MR][3];
#pragma GCC unroll 3
    for (int v = 0; v < V; v++) m[v] = lanes(cols, v);
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < V; v++)
            acc[i][v] = !o->first && i < rows ? _mm512_maskz_loadu_ps(m[v], o->w + i * o->ldw + 16 * v)
                                              : _mm512_setzero_ps();
    if (o->last)
        for (int64_t i = 0; i < rows; i++)
            for (int v = 0; v < V; v += 2) _mm_prefetch((const char*)(o->c + i * o->ldc + 16 * v), _MM_HINT_T0);
    for (int64_t p = 0; p < kp; p++) {
        __m512i b[3];
#pragma GCC unroll 3
        for (int v = 0; v < V; v++) {
            b[v] = _mm512_load_si512(bp + 16 * v);
            _mm_prefetch((const char*)(bp + PREFETCH_P * w + 16 * v), _MM_HINT_T0);
        }
#pragma GCC unroll 2
        for (int i = 0; i < MR; i += 4) {
            __m512i a[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) a[r] = _mm512_set1_epi32((int)load_u32(ap + (i + r) * ars));
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++)
#pragma GCC unroll 3
                for (int v = 0; v < V; v++)
                    acc[i + r][v] = _mm512_dpbf16_ps(acc[i + r][v], (__m512bh)a[r], (__m512bh)b[v]);
        }
        ap += aps;
        bp += w;
    }
    if (!o->last) {
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++)
            if (i < rows)
#pragma GCC unroll 3
                for (int v = 0; v < V; v++) _mm512_mask_storeu_ps(o->w + i * o->ldw + 16 * v, m[v], acc[i][v]);
        return;
    }
    const __m512 va = _mm512_set1_ps(o->alpha), vb = _mm512_set1_ps(o->beta);
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
        if (i < rows)
#pragma GCC unroll 3
            for (int v = 0; v < V; v++) {
                uint16_t* r = o->c + i * o->ldc + 16 * v;
                __m512 out = _mm512_mul_ps(acc[i][v], va);
                if (o->beta != 0.0f) out = _mm512_fmadd_ps(vb, bf16x16_load(m[v], r), out);
                _mm256_mask_storeu_epi16(r, m[v], bf16x16_round(out));
            }
}

#define KERNEL_OF_WIDTH(V, PACKED, NAME)                                                                    \
    static void NAME(int64_t kp, a_pairs A, const uint32_t* bp, const tile_out* o, int64_t rows, int64_t cols) { \
        kernel(V, PACKED, kp, A, bp, o, rows, cols);                                                        \
    }
KERNEL_OF_WIDTH(1, true, kernel1)
KERNEL_OF_WIDTH(2, true, kernel2)
KERNEL_OF_WIDTH(3, true, kernel3)
KERNEL_OF_WIDTH(1, false, kernel1_direct)
KERNEL_OF_WIDTH(2, false, kernel2_direct)
KERNEL_OF_WIDTH(3, false, kernel3_direct)

typedef void (*kernel_fn)(int64_t, a_pairs, const uint32_t*, const tile_out*, int64_t, int64_t);
static const kernel_fn kernels[2][4] = {{NULL, kernel1, kernel2, kernel3},
                                        {NULL, kernel1_direct, kernel2_direct, kernel3_direct}};

/* ---- the driver ---- */

/* One step of the loops: rows [m0, m0 + mrows) of A, depth [pc, pc + kc);
 * every step but a block's last has an even depth, so pairs never straddle
 * two steps. */
typedef struct {
    int64_t m0, mrows, pc, kc;
} step_info;

static step_info step_at(const nb_bgemm_args* g, int64_t mc, int64_t ksteps, int64_t m0, int64_t s) {
    const int64_t pairs = (g->K + 1) / 2;
    step_info st = {.m0 = m0, .mrows = min64(mc, g->M - m0), .pc = 2 * (pairs * s / ksteps)};
    st.kc = s + 1 == ksteps ? g->K - st.pc : 2 * (pairs * (s + 1) / ksteps) - st.pc;
    return st;
}

/* One step: its A panels packed, then each block of nc columns of B packed and
 * swept by every A panel. */
static void run_step(const nb_bgemm_args* g, step_info st, int64_t nc, uint32_t* apanels, uint32_t* bblock,
                     float* w) {
    const int64_t kp = (st.kc + 1) / 2, mpanels = (st.mrows + MR - 1) / MR;
    /* A's rows along K with an even depth hold the pairs already: its full
     * panels are read in place, and only a last partial one is packed */
    const bool direct = g->a_cs == 1 && st.kc % 2 == 0;
    const int64_t first_packed = direct ? st.mrows / MR : 0;
    int64_t p0 = first_packed;
    if (g->a_rs == 1 && !direct)
        for (; p0 + 4 <= st.mrows / MR; p0 += 4)
            pack_a_cols4(g->a + st.m0 + p0 * MR + st.pc * g->a_cs, g->a_cs, st.kc, kp, apanels + p0 * MR * kp);
    for (int64_t p = p0; p < mpanels; p++)
        pack_a(g->a + (st.m0 + p * MR) * g->a_rs + st.pc * g->a_cs, g->a_rs, g->a_cs, min64(MR, st.mrows - p * MR),
               st.kc, apanels + p * MR * kp);
    tile_out o = {.ldc = g->ldc, .ldw = g->N, .first = st.pc == 0, .last = st.pc + st.kc == g->K,
                  .alpha = g->alpha, .beta = g->beta};
    for (int64_t jc = 0; jc < g->N; jc += nc) {
        const int64_t ncols = min64(nc, g->N - jc);
        pack_b_block(g->b + st.pc * g->b_rs + jc * g->b_cs, g->b_rs, g->b_cs, ncols, st.kc, bblock);
        for (int64_t p = 0; p < mpanels; p++) {
            const int64_t i = st.m0 + p * MR, rows = min64(MR, g->M - i);
            const bool in_place = p < first_packed;
            const a_pairs A = in_place ? (a_pairs){(const char*)(g->a + i * g->a_rs + st.pc), g->a_rs * 2}
                                       : (a_pairs){(const char*)(apanels + p * MR * kp), 0};
            for (int64_t jr = 0; jr < ncols; jr += NR) {
                const int64_t cols = min64(NR, ncols - jr);
                o.c = g->c + i * g->ldc + jc + jr;
                o.w = w + (i - st.m0) * g->N + jc + jr;
                kernels[in_place][(cols + 15) / 16](kp, A, bblock + jr * kp, &o, rows, cols);
            }
        }
    }
}

static size_t round16(size_t words) { return (words + 15) / 16 * 16; }

bool nb_bgemm_avx512bf16(const nb_bgemm_args* g) {
    if (g->M == 0 || g->N == 0) return true;
    const int64_t ksteps = max64(1, (g->K + KC - 1) / KC);
    const int64_t mc = ksteps > 1 ? min64(MC, max64(MR, W_BYTES / 4 / g->N / MR * MR)) : MC;
    const int64_t kp = (min64(g->K, KC) + 1) / 2 + 1;  /* a step's pairs, at most (uneven splits: one more) */
    const int64_t nc = max64(NR, B_BYTES / 4 / kp / NR * NR);
    const size_t a_words = round16((size_t)((min64(g->M, mc) + MR - 1) / MR * MR * kp));
    const size_t b_words = round16((size_t)(nc * kp)), w_words = ksteps > 1 ? (size_t)(mc * g->N) : 0;
    uint32_t* buf = nb_pack_buffer((a_words + b_words + w_words) * 4);
    if (!buf) return false;
    for (int64_t m0 = 0; m0 < g->M; m0 += mc)
        for (int64_t s = 0; s < ksteps; s++)
            run_step(g, step_at(g, mc, ksteps, m0, s), nc, buf, buf + a_words, (float*)(buf + a_words + b_words));
    return true;
}
