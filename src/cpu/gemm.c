/* gemm.c: the CPU matrix multiply behind matmul, mm, bmm, addmm, baddbmm, linear
 * and dot (see gemm.h).
 *
 * float32/float64 go to OpenBLAS's sgemm/dgemm with each operand passed as it
 * lies in memory: row-major (NoTrans) or column-major (Trans) with its leading
 * dimension; a column-major C is handled as C^T = B^T A^T. Batch dims are first
 * simplified (size-1 dims dropped, contiguous neighbours merged) and, when B is
 * the same matrix for every batch, folded into A's rows: (b, m, k) @ (k, n) is
 * one (b*m, k) @ (k, n) GEMM.
 *
 * Threads: OpenMP only. OpenBLAS runs single-threaded; the batches, and blocks
 * of C of each big GEMM, are spread over the OpenMP threads that nabla's
 * elementwise kernels also use. Letting OpenBLAS thread big GEMMs with its own
 * pthreads pool was measured to be no faster (2048^3 float32: 307 GFLOP/s
 * either way on 2 cores) while its workers, which spin for ~0.1 s after every
 * call, stalled the OpenMP work that followed by milliseconds.
 *
 * Integers (and any size or layout BLAS cannot take) use a blocked loop that
 * accumulates in int64 (float/double for floats); integer results wrap modulo
 * 2^bits as PyTorch's do.
 *
 * bfloat16 comes here only on CPUs with AVX512_BF16 (nb_cpu_gemm_native), for
 * nabla's own GEMM (bgemm_avx512bf16.c); elsewhere the caller converts half
 * operands to float32 first. */
#include "gemm.h"
#include "bgemm.h"
#include "capability.h"
#include "kernels.h"
#include "sgemm.h"

#include <cblas.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Below this much total work (multiply-adds) a parallel region costs more than it saves. */
#define PARALLEL_MIN_WORK 131072.0
/* A GEMM is split into blocks for several threads only while each block has this much work
 * (OpenBLAS's own rule for threading a GEMM: 64^3 multiply-adds per thread). */
#define SPLIT_MIN_WORK 262144.0

static int max_threads(void) {
#ifdef _OPENMP
    return omp_in_parallel() ? 1 : omp_get_max_threads();
#else
    return 1;
#endif
}

/* Element offset of operand o in batch b (row-major over the batch shape). */
static inline int64_t batch_offset(const nb_gemm_problem* p, const nb_gemm_operand* o, int64_t b) {
    int64_t off = 0;
    for (int32_t d = p->bndim - 1; d >= 0 && b > 0; d--) {
        const int64_t s = p->bshape[d];
        off += (b % s) * o->bstrides[d];
        b /= s;
    }
    return off;
}

/* Drops size-1 batch dims, merges neighbours every operand steps through
 * uniformly, then folds batch dims in which B does not change into A's and C's
 * rows, as long as the folded matrices stay readable by BLAS. */
static void simplify(nb_gemm_problem* p) {
    nb_gemm_operand* ops[4] = {&p->a, &p->b, &p->c, &p->in};
    const int nops = p->in_dtype >= 0 ? 4 : 3;
    int32_t n = 0;
    for (int32_t d = 0; d < p->bndim; d++) {
        const int64_t s = p->bshape[d];
        if (s == 1) continue;
        bool merge = n > 0;
        for (int k = 0; k < nops && merge; k++) merge = ops[k]->bstrides[n - 1] == ops[k]->bstrides[d] * s;
        if (merge) {
            p->bshape[n - 1] *= s;
            for (int k = 0; k < nops; k++) ops[k]->bstrides[n - 1] = ops[k]->bstrides[d];
            continue;
        }
        p->bshape[n] = s;
        for (int k = 0; k < nops; k++) ops[k]->bstrides[n] = ops[k]->bstrides[d];
        n++;
    }
    p->bndim = n;
    while (p->bndim > 0) {
        const int32_t d = p->bndim - 1;
        const int64_t s = p->bshape[d], as = p->a.bstrides[d], cs = p->c.bstrides[d];
        if (p->b.bstrides[d] != 0) break;
        /* with one row per batch the row stride is free: the batch stride becomes it */
        const int64_t ars = p->M == 1 ? as : p->a.rs, crs = p->M == 1 ? cs : p->c.rs;
        if (as != p->M * ars || cs != p->M * crs) break;
        const int64_t xs = p->in.bstrides[d], xrs = p->M == 1 ? xs : p->in.rs;
        if (p->in_dtype >= 0 && xs != p->M * xrs) break;
        int64_t ld;
        if ((nb_gemm_layout(p->M, p->K, p->a.rs, p->a.cs, &ld) != NB_GEMM_NONE &&
             nb_gemm_layout(p->M * s, p->K, ars, p->a.cs, &ld) == NB_GEMM_NONE) ||
            (nb_gemm_layout(p->M, p->N, p->c.rs, p->c.cs, &ld) != NB_GEMM_NONE &&
             nb_gemm_layout(p->M * s, p->N, crs, p->c.cs, &ld) == NB_GEMM_NONE))
            break;
        p->M *= s;
        p->a.rs = ars;
        p->c.rs = crs;
        p->in.rs = xrs;
        p->bndim--;
    }
}

/* Copies the addend's block [m0:m1, n0:n1] of one batch into C (converting its
 * dtype), along C's contiguous direction. */
static void fill_block(const nb_gemm_problem* p, int64_t batch, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
    if (p->in_dtype < 0) return;
    const int64_t ces = nb_dtype_sizes[p->dtype], xes = nb_dtype_sizes[p->in_dtype];
    const nb_convert_fn fn = nb_cpu_convert_fn(p->in_dtype, p->dtype);
    char* c = p->c.data + (batch_offset(p, &p->c, batch) + m0 * p->c.rs + n0 * p->c.cs) * ces;
    const char* x = p->in.data + (batch_offset(p, &p->in, batch) + m0 * p->in.rs + n0 * p->in.cs) * xes;
    if (n1 - n0 == 1 || (p->c.cs == 1 && m1 - m0 > 1)) {
        for (int64_t i = 0; i < m1 - m0; i++) fn(c + i * p->c.rs * ces, p->c.cs, x + i * p->in.rs * xes, p->in.cs, n1 - n0);
    } else {
        for (int64_t j = 0; j < n1 - n0; j++) fn(c + j * p->c.cs * ces, p->c.rs, x + j * p->in.cs * xes, p->in.rs, m1 - m0);
    }
}

/* ---- OpenBLAS ---- */

typedef struct {
    bool swap;  /* computes C^T = B^T A^T (C is column-major) */
    CBLAS_TRANSPOSE ta, tb;
    blasint k, lda, ldb, ldc;
} blas_plan;

static bool fits(int64_t v) { return v <= NB_GEMM_BLAS_MAX; }

static bool blas_plan_make(const nb_gemm_problem* p, blas_plan* bp) {
    if ((p->dtype != NB_F32 && p->dtype != NB_F64) || p->K == 0) return false;
    int64_t M = p->M, N = p->N, K = p->K, ldc = 0, lda = 0, ldb = 0;
    int64_t ars = p->a.rs, acs = p->a.cs, brs = p->b.rs, bcs = p->b.cs, crs = p->c.rs, ccs = p->c.cs;
    const int lc = nb_gemm_layout(M, N, crs, ccs, &ldc);
    if (lc == NB_GEMM_NONE) return false;
    bp->swap = lc == NB_GEMM_COL;
    if (bp->swap) {  /* (C^T)[j, i] = sum_k (B^T)[j, k] (A^T)[k, i] */
        int64_t t;
        t = M, M = N, N = t;
        t = ars, ars = bcs, bcs = t;
        t = acs, acs = brs, brs = t;
        t = crs, crs = ccs, ccs = t;
        (void)nb_gemm_layout(M, N, crs, ccs, &ldc);
    }
    const int la = nb_gemm_layout(M, K, ars, acs, &lda), lb = nb_gemm_layout(K, N, brs, bcs, &ldb);
    if (la == NB_GEMM_NONE || lb == NB_GEMM_NONE) return false;
    if (!fits(M) || !fits(N) || !fits(K) || !fits(lda) || !fits(ldb) || !fits(ldc)) return false;
    bp->ta = la == NB_GEMM_ROW ? CblasNoTrans : CblasTrans;
    bp->tb = lb == NB_GEMM_ROW ? CblasNoTrans : CblasTrans;
    bp->k = (blasint)K, bp->lda = (blasint)lda, bp->ldb = (blasint)ldb, bp->ldc = (blasint)ldc;
    return true;
}

/* The block C[m0:m1, n0:n1] of one batch: one single-threaded sgemm/dgemm call. */
static void blas_block(const nb_gemm_problem* p, const blas_plan* bp, int64_t batch, int64_t m0, int64_t m1,
                       int64_t n0, int64_t n1) {
    fill_block(p, batch, m0, m1, n0, n1);
    const int64_t es = nb_dtype_sizes[p->dtype];
    const char* a = p->a.data + (batch_offset(p, &p->a, batch) + m0 * p->a.rs) * es;
    const char* b = p->b.data + (batch_offset(p, &p->b, batch) + n0 * p->b.cs) * es;
    char* c = p->c.data + (batch_offset(p, &p->c, batch) + m0 * p->c.rs + n0 * p->c.cs) * es;
    blasint m = (blasint)(m1 - m0), n = (blasint)(n1 - n0);
    if (bp->swap) {
        const char* t = a;
        a = b, b = t;
        const blasint u = m;
        m = n, n = u;
    }
    const double beta = p->accumulate ? p->beta : 0.0;
    if (p->dtype == NB_F32)
        scipy_cblas_sgemm(CblasRowMajor, bp->ta, bp->tb, m, n, bp->k, (float)p->alpha, (const float*)a, bp->lda,
                          (const float*)b, bp->ldb, (float)beta, (float*)c, bp->ldc);
    else
        scipy_cblas_dgemm(CblasRowMajor, bp->ta, bp->tb, m, n, bp->k, p->alpha, (const double*)a, bp->lda,
                          (const double*)b, bp->ldb, beta, (double*)c, bp->ldc);
}

/* ---- nabla's own float32 GEMM (sgemm_avx512.c) ---- */

#if defined(NB_HAVE_SGEMM_AVX512)
/* Where it was measured to beat OpenBLAS: big products whose columns give every
 * thread at least eight 48-column panels (its threads split the columns). */
static bool own_sgemm_fits(const nb_gemm_problem* p, int threads) {
    return p->dtype == NB_F32 && nb_cpu_capability() >= NB_CPU_AVX512 && p->M >= 64 && p->K >= 128 &&
           p->N >= 384 * (int64_t)threads && (double)p->M * (double)p->N * (double)p->K >= 16777216.0;
}

/* Every batch in turn, each on all the threads; false (nothing written) when
 * the packing buffers could not be had. */
static bool own_sgemm_run(const nb_gemm_problem* p, const blas_plan* bp, int64_t nbatch, int threads) {
    for (int64_t b = 0; b < nbatch; b++) {
        fill_block(p, b, 0, p->M, 0, p->N);
        const float* a = (const float*)p->a.data + batch_offset(p, &p->a, b);
        const float* bm = (const float*)p->b.data + batch_offset(p, &p->b, b);
        nb_sgemm_args g = {
            .M = p->M, .N = p->N, .K = p->K, .alpha = (float)p->alpha,
            .beta = p->accumulate ? (float)p->beta : 0.0f,
            .a = a, .a_rs = p->a.rs, .a_cs = p->a.cs, .b = bm, .b_rs = p->b.rs, .b_cs = p->b.cs,
            .c = (float*)p->c.data + batch_offset(p, &p->c, b), .ldc = p->c.rs,
        };
        if (bp->swap) { /* C is column-major: C^T = B^T A^T */
            g.M = p->N, g.N = p->M;
            g.a = bm, g.a_rs = p->b.cs, g.a_cs = p->b.rs;
            g.b = a, g.b_rs = p->a.cs, g.b_cs = p->a.rs;
            g.ldc = p->c.cs;
        }
        if (!nb_sgemm_avx512(&g, threads)) {
            if (b == 0) return false;
            for (; b < nbatch; b++) blas_block(p, bp, b, 0, p->M, 0, p->N);
        }
    }
    return true;
}
#endif

/* ---- bfloat16: nabla's own GEMM (bgemm_avx512bf16.c) ---- */

bool nb_cpu_gemm_native(int32_t dtype, int64_t M, int64_t N) {
#if defined(NB_HAVE_BGEMM_AVX512BF16)
    return dtype == NB_BF16 && (M > 1 || N > 1) && nb_cpu_capability() >= NB_CPU_AVX512_BF16;
#else
    (void)dtype, (void)M, (void)N;
    return false;
#endif
}

#if defined(NB_HAVE_BGEMM_AVX512BF16)
/* The block C[m0:m1, n0:n1] of one batch on the calling thread; false (C
 * untouched but for the addend) when the packing memory could not be had. */
static bool bgemm_block(const nb_gemm_problem* p, const void* ctx, int64_t batch, int64_t m0, int64_t m1, int64_t n0,
                        int64_t n1) {
    (void)ctx;
    fill_block(p, batch, m0, m1, n0, n1);
    const uint16_t* a = (const uint16_t*)p->a.data + batch_offset(p, &p->a, batch) + m0 * p->a.rs;
    const uint16_t* b = (const uint16_t*)p->b.data + batch_offset(p, &p->b, batch) + n0 * p->b.cs;
    nb_bgemm_args g = {
        .M = m1 - m0, .N = n1 - n0, .K = p->K, .alpha = (float)p->alpha,
        .beta = p->accumulate ? (float)p->beta : 0.0f,
        .a = a, .a_rs = p->a.rs, .a_cs = p->a.cs, .b = b, .b_rs = p->b.rs, .b_cs = p->b.cs,
        .c = (uint16_t*)p->c.data + batch_offset(p, &p->c, batch) + m0 * p->c.rs + n0 * p->c.cs,
    };
    /* C^T = B^T A^T for a column-major C, and for a contiguous column (a matrix-vector
     * product; C^T's one row needs no row stride): the kernel's tiles are 8 rows by
     * 16-48 columns, so one row wastes less than one column */
    const int layout = nb_gemm_layout(p->M, p->N, p->c.rs, p->c.cs, &g.ldc);
    if (layout == NB_GEMM_COL || (g.N == 1 && g.M > 1 && p->c.rs == 1)) {
        g.M = n1 - n0, g.N = m1 - m0;
        g.a = b, g.a_rs = p->b.cs, g.a_cs = p->b.rs;
        g.b = a, g.b_rs = p->a.cs, g.b_cs = p->a.rs;
    }
    return nb_bgemm_avx512bf16(&g);
}
#endif

static int64_t gcd(int64_t a, int64_t b) {
    while (b != 0) {
        const int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* Splits an M x N result into pieces blocks (pm x pn, pm * pn == pieces) whose
 * sides are as even as possible: each block packs its rows of A and columns of
 * B, so the smallest sum of block sides packs least. Steps are multiples of 16
 * (the BLAS kernels' register blocking) unless the side is shorter. */
static void tile_grid(int64_t M, int64_t N, int64_t pieces, int64_t* mstep, int64_t* nstep) {
    int64_t best_pm = 1, best_cost = INT64_MAX;
    for (int64_t pm = pieces; pm >= 1; pm--) {  /* ties go to splitting rows: measured a little faster */
        if (pieces % pm != 0) continue;
        const int64_t pn = pieces / pm, cost = (M + pm - 1) / pm + (N + pn - 1) / pn;
        if (cost < best_cost) best_cost = cost, best_pm = pm;
    }
    const int64_t pm = best_pm, pn = pieces / best_pm;
    *mstep = (M + pm - 1) / pm;
    *nstep = (N + pn - 1) / pn;
    if (pm > 1) *mstep = (*mstep + 15) / 16 * 16;
    if (pn > 1) *nstep = (*nstep + 15) / 16 * 16;
}

/* One block of C, single-threaded: false when it could not run (out of memory). */
typedef bool (*block_fn)(const nb_gemm_problem* p, const void* ctx, int64_t batch, int64_t m0, int64_t m1,
                         int64_t n0, int64_t n1);

static bool blas_block_fn(const nb_gemm_problem* p, const void* ctx, int64_t batch, int64_t m0, int64_t m1,
                          int64_t n0, int64_t n1) {
    blas_block(p, (const blas_plan*)ctx, batch, m0, m1, n0, n1);
    return true;
}

/* Every batch, and every block of a big GEMM, is one single-threaded call
 * (BLAS, or nabla's bfloat16 GEMM) on an OpenMP thread (OpenBLAS's own threads
 * are switched off, see nb_gemm_init): nabla's elementwise kernels use the same
 * OpenMP threads, so no second pool spins while they run, and no thread waits
 * for another before the end. The number of blocks per GEMM makes the work
 * units a multiple of the thread count when each block stays big enough. */
static bool run_blocks(const nb_gemm_problem* p, int64_t nbatch, block_fn fn, const void* ctx) {
    const double mnk = (double)p->M * (double)p->N * (double)(p->K > 0 ? p->K : 1);
    const int threads = max_threads();
    int64_t pieces = 1;
    if (threads > 1 && mnk * (double)nbatch >= PARALLEL_MIN_WORK) {
        pieces = threads / gcd(nbatch, threads);
        while (pieces > 1 && mnk / (double)pieces < SPLIT_MIN_WORK) pieces--;
    }
    int64_t mstep = p->M, nstep = p->N;
    if (pieces > 1) tile_grid(p->M, p->N, pieces, &mstep, &nstep);
    const int64_t pm = (p->M + mstep - 1) / mstep, pn = (p->N + nstep - 1) / nstep, per = pm * pn;
    const int64_t units = nbatch * per;
    bool ok = true;
#ifdef _OPENMP
    if (units > 1 && threads > 1 && mnk * (double)nbatch >= PARALLEL_MIN_WORK) {
#pragma omp parallel for schedule(static) reduction(&& : ok)
        for (int64_t u = 0; u < units; u++) {
            const int64_t b = u / per, i = (u % per) / pn, j = u % pn;
            const int64_t m0 = i * mstep, n0 = j * nstep;
            ok = fn(p, ctx, b, m0, m0 + mstep < p->M ? m0 + mstep : p->M, n0,
                    n0 + nstep < p->N ? n0 + nstep : p->N) && ok;
        }
        return ok;
    }
#endif
    for (int64_t b = 0; b < nbatch && ok; b++) ok = fn(p, ctx, b, 0, p->M, 0, p->N);
    return ok;
}

static void blas_run(const nb_gemm_problem* p, const blas_plan* bp, int64_t nbatch) {
#if defined(NB_HAVE_SGEMM_AVX512)
    if (own_sgemm_fits(p, max_threads()) && own_sgemm_run(p, bp, nbatch, max_threads())) return;
#endif
    (void)run_blocks(p, nbatch, blas_block_fn, bp);
}

/* 1 x 1 results (dot products, batched or not): sdot/ddot, which beat a 1 x 1 GEMM. */
static void dot_one(const nb_gemm_problem* p, int64_t batch) {
    fill_block(p, batch, 0, 1, 0, 1);
    const int64_t es = nb_dtype_sizes[p->dtype];
    const char* a = p->a.data + batch_offset(p, &p->a, batch) * es;
    const char* b = p->b.data + batch_offset(p, &p->b, batch) * es;
    char* c = p->c.data + batch_offset(p, &p->c, batch) * es;
    const blasint k = (blasint)p->K, ia = p->K > 1 ? (blasint)p->a.cs : 1, ib = p->K > 1 ? (blasint)p->b.rs : 1;
    if (p->dtype == NB_F32) {
        const float d = p->alpha * scipy_cblas_sdot(k, (const float*)a, ia, (const float*)b, ib);
        *(float*)c = p->accumulate ? d + (float)p->beta * *(float*)c : d;
    } else {
        const double d = p->alpha * scipy_cblas_ddot(k, (const double*)a, ia, (const double*)b, ib);
        *(double*)c = p->accumulate ? d + p->beta * *(double*)c : d;
    }
}

static void dot_run(const nb_gemm_problem* p, int64_t nbatch) {
#ifdef _OPENMP
    if (nbatch > 1 && (double)p->K * (double)nbatch >= PARALLEL_MIN_WORK && max_threads() > 1) {
#pragma omp parallel for schedule(static)
        for (int64_t b = 0; b < nbatch; b++) dot_one(p, b);
        return;
    }
#endif
    for (int64_t b = 0; b < nbatch; b++) dot_one(p, b);
}

#ifdef _OPENMP
/* OpenBLAS (a pthreads build) would otherwise thread each call with its own
 * pool, whose workers spin for a while after every call and starve the OpenMP
 * threads that run next (measured: 64 us of batched products took 1-8 ms right
 * after a big GEMM). */
__attribute__((constructor)) static void nb_gemm_init(void) { scipy_openblas_set_num_threads(1); }
#endif

/* ---- the blocked loop ---- */

#define MB 16   /* rows of C per work unit */
#define NBLK 128 /* columns of C per tile */
#define KB 64   /* depth per packed panel of B */

typedef void (*generic_fn)(const nb_gemm_problem* p, const char* a, const char* b, char* c, int64_t i0, int64_t i1);

/* Rows [i0, i1) of one batch's C. acc holds a MB x NBLK tile of C in ACC; bp a
 * KB x NBLK panel of B converted to ACC, so the inner loop is contiguous. */
#define GENERIC(TAG, T, ACC, ALPHA, BETA)                                                                  \
    static void generic_##TAG(const nb_gemm_problem* p, const char* a8, const char* b8, char* c8, int64_t i0, \
                              int64_t i1) {                                                                \
        const T* A = (const T*)a8;                                                                         \
        const T* B = (const T*)b8;                                                                         \
        T* C = (T*)c8;                                                                                     \
        const int64_t N = p->N, K = p->K;                                                                  \
        const int64_t ars = p->a.rs, acs = p->a.cs, brs = p->b.rs, bcs = p->b.cs, crs = p->c.rs,           \
                      ccs = p->c.cs;                                                                       \
        const ACC alpha = (ACC)(ALPHA), beta = (ACC)(BETA);                                                \
        ACC acc[MB][NBLK];                                                                                 \
        ACC bp[KB][NBLK];                                                                                  \
        for (int64_t j0 = 0; j0 < N; j0 += NBLK) {                                                         \
            const int64_t nb = N - j0 < NBLK ? N - j0 : NBLK;                                              \
            for (int64_t i = 0; i < i1 - i0; i++)                                                          \
                for (int64_t j = 0; j < nb; j++) acc[i][j] = 0;                                            \
            for (int64_t k0 = 0; k0 < K; k0 += KB) {                                                       \
                const int64_t kb = K - k0 < KB ? K - k0 : KB;                                              \
                for (int64_t k = 0; k < kb; k++)                                                           \
                    for (int64_t j = 0; j < nb; j++) bp[k][j] = (ACC)B[(k0 + k) * brs + (j0 + j) * bcs];   \
                for (int64_t i = i0; i < i1; i++) {                                                        \
                    ACC* restrict row = acc[i - i0];                                                       \
                    const T* ap = A + i * ars + k0 * acs;                                                  \
                    for (int64_t k = 0; k < kb; k++) {                                                     \
                        const ACC av = (ACC)ap[k * acs];                                                   \
                        const ACC* restrict br = bp[k];                                                    \
                        for (int64_t j = 0; j < nb; j++) row[j] += av * br[j];                             \
                    }                                                                                      \
                }                                                                                          \
            }                                                                                              \
            for (int64_t i = i0; i < i1; i++)                                                              \
                for (int64_t j = 0; j < nb; j++) {                                                         \
                    T* cp = C + i * crs + (j0 + j) * ccs;                                                  \
                    ACC v = K > 0 ? alpha * acc[i - i0][j] : (ACC)0;                                       \
                    if (p->accumulate) v += beta * (ACC)*cp;                                               \
                    *cp = (T)v;                                                                            \
                }                                                                                          \
        }                                                                                                  \
    }

GENERIC(f32, float, float, p->alpha, p->beta)
GENERIC(f64, double, double, p->alpha, p->beta)
GENERIC(i8, int8_t, int64_t, p->ialpha, p->ibeta)
GENERIC(i16, int16_t, int64_t, p->ialpha, p->ibeta)
GENERIC(i32, int32_t, int64_t, p->ialpha, p->ibeta)
GENERIC(i64, int64_t, int64_t, p->ialpha, p->ibeta)
GENERIC(u8, uint8_t, int64_t, p->ialpha, p->ibeta)

static const generic_fn generic_fns[NB_NUM_DTYPES] = {
    [NB_F32] = generic_f32, [NB_F64] = generic_f64, [NB_I8] = generic_i8, [NB_I16] = generic_i16,
    [NB_I32] = generic_i32, [NB_I64] = generic_i64, [NB_U8] = generic_u8,
};

static void generic_unit(const nb_gemm_problem* p, generic_fn fn, int64_t mblocks, int64_t u) {
    const int64_t es = nb_dtype_sizes[p->dtype];
    const int64_t batch = u / mblocks, i0 = (u % mblocks) * MB, i1 = i0 + MB < p->M ? i0 + MB : p->M;
    fill_block(p, batch, i0, i1, 0, p->N);
    fn(p, p->a.data + batch_offset(p, &p->a, batch) * es, p->b.data + batch_offset(p, &p->b, batch) * es,
       p->c.data + batch_offset(p, &p->c, batch) * es, i0, i1);
}

static void generic_run(const nb_gemm_problem* p, int64_t nbatch) {
    const generic_fn fn = generic_fns[p->dtype];
    if (fn == NULL) return;  /* the caller rejects other dtypes */
    const int64_t mblocks = (p->M + MB - 1) / MB, units = nbatch * mblocks;
    const double work = (double)p->M * (double)p->N * ((double)p->K + 1.0) * (double)nbatch;
#ifdef _OPENMP
    if (units > 1 && work >= PARALLEL_MIN_WORK && max_threads() > 1) {
#pragma omp parallel for schedule(static)
        for (int64_t u = 0; u < units; u++) generic_unit(p, fn, mblocks, u);
        return;
    }
#else
    (void)work;
#endif
    for (int64_t u = 0; u < units; u++) generic_unit(p, fn, mblocks, u);
}

nb_status nb_cpu_gemm(const nb_gemm_problem* in) {
    if (in->M == 0 || in->N == 0) return NB_OK;
    nb_gemm_problem p = *in;
    simplify(&p);
    int64_t nbatch = 1;
    for (int32_t d = 0; d < p.bndim; d++) nbatch *= p.bshape[d];
    if (nbatch == 0) return NB_OK;
    /* ~1 MFLOP and up is worth another thread's time: let a binding drop its lock. */
    nb_blocking_end_fn end_blocking = NULL;
    void* token = (double)nbatch * (double)p.M * (double)p.N * (double)(p.K > 0 ? p.K : 1) >= 5e5
                      ? nb_blocking_begin(&end_blocking) : NULL;
    nb_status st = NB_OK;
    blas_plan bp;
#if defined(NB_HAVE_BGEMM_AVX512BF16)
    if (p.dtype == NB_BF16)
        st = run_blocks(&p, nbatch, bgemm_block, NULL) ? NB_OK : NB_ERR_OUT_OF_MEMORY;
    else
#endif
    if (!blas_plan_make(&p, &bp))
        generic_run(&p, nbatch);
    else if (p.M == 1 && p.N == 1 && (p.K == 1 || (p.a.cs >= 1 && p.b.rs >= 1)))
        dot_run(&p, nbatch);
    else
        blas_run(&p, &bp, nbatch);
    if (end_blocking) end_blocking(token);
    return st;
}

nb_status nb_cpu_gemm_slot(int32_t device_index, const nb_bk_gemm* plan, void* stream) {
    (void)device_index, (void)stream;
    return nb_cpu_gemm(plan);
}
