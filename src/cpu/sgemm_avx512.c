/* sgemm_avx512.c: nabla's float32 GEMM for AVX-512 (see sgemm.h). Built with
 * -march=x86-64-v4 in a library of its own; gemm.c calls it only when
 * nb_cpu_capability() says the CPU has AVX-512.
 *
 * Loops, outermost first (BLIS's names):
 *   mc: M in chunks of MC rows (bounds the shared A buffer)
 *   pc: K in steps of about KC; the threads pack A[mc, pc] together into
 *       8-row micro-panels, between the kernel sweeps of the step before
 *       (double-buffered: one barrier per step)
 *   jc: each thread's own columns in blocks of NC, packed into 48-column
 *       micro-panels that stay in that core's L2
 *   ir: 8-row micro-panels of A, each held in L1 while
 *   jr: the kernel sweeps the 48-column micro-panels of B.
 * The 8 x 48 kernel keeps 24 accumulators in zmm registers: per k, 3 vector
 * loads of B, 8 broadcasts of A, 24 FMAs. C is read and written once per pc
 * step; alpha and beta are applied there. */
#include "sgemm.h"
#include "pack_buffer.h"
#include "transpose8x8.h"

#include <immintrin.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define MR 8     /* rows of a micro-tile: broadcasts of A */
#define NR 48    /* columns of a micro-tile: three zmm of B */
#define KC 256   /* depth of one packed step */
#define NC 1056  /* columns of B per thread block: KC x NC floats = 1 MiB, within L2 */
#define MC 3072  /* rows of A per shared panel: MC x KC floats = 3 MiB */
#define PREFETCH_K 8 /* k steps ahead that the kernel prefetches B */

/* ---- packing ---- */

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* One micro-panel of A: rows [0, rows) of the MR-row block at a, depth kc, into
 * ap[k * MR + i]; rows past `rows` are zero. */
static void pack_a(const float* a, int64_t rs, int64_t cs, int64_t rows, int64_t kc, float* restrict ap) {
    int64_t k = 0;
    if (rows == MR && cs == 1) {
        for (; k + 8 <= kc; k += 8) nb_transpose8x8((const char*)(a + k), rs * 4, (char*)(ap + k * MR), MR * 4);
    } else if (rs == 1) {
        const __mmask8 m = (__mmask8)((1u << rows) - 1);
        for (; k < kc; k++) _mm256_store_ps(ap + k * MR, _mm256_maskz_loadu_ps(m, a + k * cs));
        return;
    }
    for (; k < kc; k++)
        for (int64_t i = 0; i < MR; i++) ap[k * MR + i] = i < rows ? a[i * rs + k * cs] : 0.0f;
}

/* Mask of the lanes of vector v (16 floats each) that hold one of `cols` columns. */
static inline __mmask16 lanes(int64_t cols, int v) {
    const int64_t n = cols - 16 * v;
    return (__mmask16)(n >= 16 ? 0xFFFF : n <= 0 ? 0 : (1u << n) - 1);
}

/* One micro-panel of a B whose columns are not contiguous: columns [0, cols)
 * at b, depth kc, into bp[k * w + j], w = 16 * ceil(cols / 16) <= NR; columns
 * past `cols` are zero. A column-major B goes through 8 x 8 transposes. */
static void pack_b_strided(const float* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, float* restrict bp) {
    const int64_t w = (cols + 15) / 16 * 16;
    int64_t k = 0;
    if (cols == w && rs == 1)
        for (; k + 8 <= kc; k += 8)
            for (int64_t j = 0; j < w; j += 8)
                nb_transpose8x8((const char*)(b + j * cs + k), cs * 4, (char*)(bp + k * w + j), w * 4);
    for (; k < kc; k++)
        for (int64_t j = 0; j < w; j++) bp[k * w + j] = j < cols ? b[k * rs + j * cs] : 0.0f;
}

/* A block of B: columns [0, cols) at b, depth kc, as consecutive micro-panels of
 * NR columns (the last one narrower), panel jr at bp + jr * kc. A row-major B is
 * copied row by row across the whole block, so the reads run along memory. */
static void pack_b_block(const float* b, int64_t rs, int64_t cs, int64_t cols, int64_t kc, float* restrict bp) {
    if (cs != 1) {
        for (int64_t jr = 0; jr < cols; jr += NR)
            pack_b_strided(b + jr * cs, rs, cs, min64(NR, cols - jr), kc, bp + jr * kc);
        return;
    }
    for (int64_t k = 0; k < kc; k++) {
        const float* s = b + k * rs;
        for (int64_t jr = 0; jr < cols; jr += NR) {
            const int64_t n = min64(NR, cols - jr), w = (n + 15) / 16 * 16;
            float* d = bp + jr * kc + k * w;
            if (n == NR) {
                _mm512_store_ps(d, _mm512_loadu_ps(s + jr));
                _mm512_store_ps(d + 16, _mm512_loadu_ps(s + jr + 16));
                _mm512_store_ps(d + 32, _mm512_loadu_ps(s + jr + 32));
            } else {
                for (int v = 0; v < w / 16; v++)
                    _mm512_store_ps(d + 16 * v, _mm512_maskz_loadu_ps(lanes(n, v), s + jr + 16 * v));
            }
        }
    }
}

/* ---- the micro-kernel ---- */

/* C[0:rows, 0:cols] = alpha * ap^T bp + beta * C for a panel of V vectors
 * (cols <= 16 * V); beta == 0 leaves C unread. */
static inline __attribute__((always_inline)) void kernel(const int V, int64_t kc, const float* restrict ap,
                                                         const float* restrict bp, float* restrict c, int64_t ldc,
                                                         int64_t rows, int64_t cols, float alpha, float beta) {
    const int w = 16 * V;
    __m512 acc[MR][3];
    for (int i = 0; i < MR; i++) acc[i][0] = acc[i][1] = acc[i][2] = _mm512_setzero_ps();
    for (int64_t i = 0; i < rows; i++)
        for (int v = 0; v < V; v++) _mm_prefetch((const char*)(c + i * ldc + 16 * v), _MM_HINT_T0);
    for (int64_t k = 0; k < kc; k++) {
        __m512 b[3];
#pragma GCC unroll 3
        for (int v = 0; v < V; v++) {
            b[v] = _mm512_load_ps(bp + 16 * v);
            _mm_prefetch((const char*)(bp + PREFETCH_K * w + 16 * v), _MM_HINT_T0);
        }
#pragma GCC unroll 2
        for (int i = 0; i < MR; i += 4) {
            __m512 a[4];
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++) a[r] = _mm512_set1_ps(ap[i + r]);
#pragma GCC unroll 4
            for (int r = 0; r < 4; r++)
#pragma GCC unroll 3
                for (int v = 0; v < V; v++) acc[i + r][v] = _mm512_fmadd_ps(a[r], b[v], acc[i + r][v]);
        }
        ap += MR;
        bp += w;
    }
    const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
    if (rows == MR && cols == w) {
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            float* r = c + i * ldc;
#pragma GCC unroll 3
            for (int v = 0; v < V; v++) {
                __m512 out = _mm512_mul_ps(acc[i][v], va);
                if (beta != 0.0f) out = _mm512_fmadd_ps(vb, _mm512_loadu_ps(r + 16 * v), out);
                _mm512_storeu_ps(r + 16 * v, out);
            }
        }
        return;
    }
    float tile[MR][NR] __attribute__((aligned(64)));
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < V; v++) _mm512_store_ps(&tile[i][16 * v], acc[i][v]);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            const float out = alpha * tile[i][j];
            c[i * ldc + j] = beta != 0.0f ? out + beta * c[i * ldc + j] : out;
        }
}

#define KERNEL_OF_WIDTH(V)                                                                                     \
    static void kernel##V(int64_t kc, const float* ap, const float* bp, float* c, int64_t ldc, int64_t rows, \
                          int64_t cols, float alpha, float beta) {                                           \
        kernel(V, kc, ap, bp, c, ldc, rows, cols, alpha, beta);                                              \
    }
KERNEL_OF_WIDTH(1)
KERNEL_OF_WIDTH(2)
KERNEL_OF_WIDTH(3)

typedef void (*kernel_fn)(int64_t, const float*, const float*, float*, int64_t, int64_t, int64_t, float, float);
static const kernel_fn kernels[4] = {NULL, kernel1, kernel2, kernel3};

/* ---- the driver ---- */

/* One step of the mc/pc loops: rows [mc, mc + mrows) of A, depth [pc, pc + kc). */
typedef struct {
    int64_t mc, mrows, mpanels, pc, kc;
} step_info;

static step_info step_at(const nb_sgemm_args* g, int64_t ksteps, int64_t index) {
    step_info st;
    const int64_t s = index % ksteps;
    st.mc = index / ksteps * MC;
    st.mrows = min64(MC, g->M - st.mc);
    st.mpanels = (st.mrows + MR - 1) / MR;
    st.pc = g->K * s / ksteps;
    st.kc = g->K * (s + 1) / ksteps - st.pc;
    return st;
}

/* A thread's share of one step's A panels. They are packed a few at a time
 * between the kernel sweeps of the step before, so the packing is spread over
 * the step instead of holding the other threads at the step's barrier. */
typedef struct {
    const nb_sgemm_args* g;
    step_info st;
    float* dst;
    int64_t next, end; /* panels [next, end) are still to pack */
} a_packer;

static void a_packer_start(a_packer* q, const nb_sgemm_args* g, step_info st, float* dst, int t, int nt) {
    q->g = g;
    q->st = st;
    q->dst = dst;
    q->next = st.mpanels * t / nt;
    q->end = st.mpanels * (t + 1) / nt;
}

static void a_packer_pack_until(a_packer* q, int64_t panels_left) {
    const nb_sgemm_args* g = q->g;
    for (; q->end - q->next > panels_left; q->next++) {
        const int64_t p = q->next;
        pack_a(g->a + (q->st.mc + p * MR) * g->a_rs + q->st.pc * g->a_cs, g->a_rs, g->a_cs,
               min64(MR, q->st.mrows - p * MR), q->st.kc, q->dst + p * MR * q->st.kc);
    }
}

static inline void barrier(int nt) {
#ifdef _OPENMP
    if (nt > 1) {
#pragma omp barrier
    }
#else
    (void)nt;
#endif
}

/* Work of one thread: its own columns of C, and its share of the A packing. */
static void run_thread(const nb_sgemm_args* g, int t, int nt, float* apanel[2], float* bblock) {
    const int64_t N = g->N, vectors = (N + 15) / 16;
    const int64_t j0 = min64(N, vectors * t / nt * 16), j1 = min64(N, vectors * (t + 1) / nt * 16);
    const int64_t ksteps = (g->K + KC - 1) / KC, steps = (g->M + MC - 1) / MC * ksteps;
    const int64_t jblocks = (j1 - j0 + NC - 1) / NC;
    a_packer next;
    a_packer_start(&next, g, step_at(g, ksteps, 0), apanel[0], t, nt);
    a_packer_pack_until(&next, 0);
    barrier(nt);
    for (int64_t index = 0; index < steps; index++) {
        const step_info st = step_at(g, ksteps, index);
        const float* ap = apanel[index & 1];
        if (index + 1 < steps) a_packer_start(&next, g, step_at(g, ksteps, index + 1), apanel[(index + 1) & 1], t, nt);
        else next.next = next.end = 0;
        const int64_t share = next.end - next.next, sweeps = jblocks * st.mpanels;
        const float beta = st.pc == 0 ? g->beta : 1.0f, alpha = g->alpha;
        int64_t sweep = 0;
        for (int64_t jc = j0; jc < j1; jc += NC) {
            const int64_t ncols = min64(NC, j1 - jc);
            pack_b_block(g->b + st.pc * g->b_rs + jc * g->b_cs, g->b_rs, g->b_cs, ncols, st.kc, bblock);
            for (int64_t p = 0; p < st.mpanels; p++, sweep++) {
                const int64_t i = st.mc + p * MR, rows = min64(MR, g->M - i);
                /* the next A micro-panel, prefetched into L2 a slice per kernel call */
                const char* a_next = (const char*)(ap + (p + 1) * MR * st.kc);
                const int64_t a_lines = p + 1 < st.mpanels ? MR * st.kc * 4 / 64 : 0;
                const int64_t slices = (ncols + NR - 1) / NR, per_slice = (a_lines + slices - 1) / slices;
                int64_t line = 0;
                for (int64_t jr = 0; jr < ncols; jr += NR) {
                    const int64_t cols = min64(NR, ncols - jr);
                    for (const int64_t e = min64(a_lines, line + per_slice); line < e; line++)
                        _mm_prefetch(a_next + line * 64, _MM_HINT_T1);
                    kernels[(cols + 15) / 16](st.kc, ap + p * MR * st.kc, bblock + jr * st.kc,
                                              g->c + i * g->ldc + jc + jr, g->ldc, rows, cols, alpha, beta);
                }
                a_packer_pack_until(&next, share - share * (sweep + 1) / sweeps);
            }
        }
        barrier(nt);
    }
}

bool nb_sgemm_avx512(const nb_sgemm_args* g, int threads) {
    const int64_t vectors = (g->N + 15) / 16;
    int nt = threads < 1 ? 1 : threads;
    if (nt > vectors) nt = (int)vectors;
    const int64_t kmax = min64(g->K, KC), mmax = (min64(g->M, MC) + MR - 1) / MR * MR;
    const size_t a_floats = (size_t)(mmax * kmax), b_floats = (size_t)(kmax * NC);
    float* buf = nb_pack_buffer((2 * a_floats + (size_t)nt * b_floats) * sizeof(float));
    if (!buf) return false;
    float* apanel[2] = {buf, buf + a_floats};
    float* bblocks = buf + 2 * a_floats;
#ifdef _OPENMP
    if (nt > 1) {
#pragma omp parallel num_threads(nt)
        {
            const int t = omp_get_thread_num(), n = omp_get_num_threads();
            run_thread(g, t, n, apanel, bblocks + (size_t)t * b_floats);
        }
        return true;
    }
#endif
    run_thread(g, 0, 1, apanel, bblocks);
    return true;
}
