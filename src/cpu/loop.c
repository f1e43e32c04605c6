/* loop.c: the CPU driver for elementwise kernels over N strided operands.
 *
 * Dims are coalesced first (size-1 dims dropped, neighbours merged where every
 * operand is contiguous across them), so a contiguous or broadcast-scalar operand
 * reaches the kernel as one long inner run. Above GRAIN elements the index range
 * is split into equal chunks across OpenMP threads; small tensors never start
 * a parallel region. */
#include "loop.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define GRAIN 32768

typedef struct {
    int32_t nops, ndim;
    int64_t shape[NB_MAX_DIMS];                  /* innermost last */
    int64_t strides[NB_LOOP_MAX_OPS][NB_MAX_DIMS]; /* bytes */
} geometry;

static void coalesce(geometry* g, const int64_t* shape, int32_t ndim,
                     const int64_t strides[][NB_MAX_DIMS], int32_t nops) {
    g->nops = nops;
    int32_t n = 0;
    for (int32_t d = 0; d < ndim; d++) {
        if (shape[d] == 1) continue;
        bool merge = n > 0;
        for (int32_t k = 0; k < nops && merge; k++)
            merge = g->strides[k][n - 1] == strides[k][d] * shape[d];
        if (merge) {
            g->shape[n - 1] *= shape[d];
            for (int32_t k = 0; k < nops; k++) g->strides[k][n - 1] = strides[k][d];
            continue;
        }
        g->shape[n] = shape[d];
        for (int32_t k = 0; k < nops; k++) g->strides[k][n] = strides[k][d];
        n++;
    }
    if (n == 0) {  /* a single element */
        g->shape[0] = 1;
        for (int32_t k = 0; k < nops; k++) g->strides[k][0] = 0;
        n = 1;
    }
    g->ndim = n;
}

/* Runs the kernel over linear indices [begin, end) of the coalesced geometry. */
static void run_range(const geometry* g, char* const* base, nb_loop_fn fn, const void* ctx, int64_t begin,
                      int64_t end) {
    const int32_t nd = g->ndim, inner = nd - 1;
    int64_t idx[NB_MAX_DIMS];
    char* ptr[NB_LOOP_MAX_OPS];
    int64_t inner_strides[NB_LOOP_MAX_OPS];
    int64_t rem = begin;
    for (int32_t d = nd - 1; d >= 0; d--) {
        idx[d] = rem % g->shape[d];
        rem /= g->shape[d];
    }
    for (int32_t k = 0; k < g->nops; k++) {
        ptr[k] = base[k];
        for (int32_t d = 0; d < nd; d++) ptr[k] += idx[d] * g->strides[k][d];
        inner_strides[k] = g->strides[k][inner];
    }
    int64_t left = end - begin;
    while (left > 0) {
        int64_t n = g->shape[inner] - idx[inner];
        if (n > left) n = left;
        fn(ptr, inner_strides, n, ctx);
        left -= n;
        if (left == 0) break;
        /* the row is done: back to its start, then step the outer counter */
        for (int32_t k = 0; k < g->nops; k++) ptr[k] -= idx[inner] * g->strides[k][inner];
        idx[inner] = 0;
        for (int32_t d = inner - 1; d >= 0; d--) {
            for (int32_t k = 0; k < g->nops; k++) ptr[k] += g->strides[k][d];
            if (++idx[d] < g->shape[d]) break;
            for (int32_t k = 0; k < g->nops; k++) ptr[k] -= g->strides[k][d] * g->shape[d];
            idx[d] = 0;
        }
    }
}

void nb_cpu_loop(int32_t nops, char* const* base, const int64_t strides[][NB_MAX_DIMS], const int64_t* shape,
                 int32_t ndim, nb_loop_fn fn, const void* ctx) {
    int64_t numel = 1;
    for (int32_t d = 0; d < ndim; d++) numel *= shape[d];
    if (numel == 0) return;
    geometry g;
    coalesce(&g, shape, ndim, strides, nops);
    if (numel < 2 * GRAIN) {
        run_range(&g, base, fn, ctx, 0, numel);
        return;
    }
    nb_blocking_end_fn end_blocking;
    void* token = nb_blocking_begin(&end_blocking);
#ifdef _OPENMP
    if (omp_get_max_threads() > 1 && !omp_in_parallel()) {
        int64_t max_chunks = numel / GRAIN;
#pragma omp parallel
        {
            int64_t nt = omp_get_num_threads() < max_chunks ? omp_get_num_threads() : max_chunks;
            int64_t t = omp_get_thread_num();
            if (t < nt) {
                int64_t begin = numel * t / nt, end = numel * (t + 1) / nt;
                run_range(&g, base, fn, ctx, begin, end);
            }
        }
    } else
#endif
    {
        run_range(&g, base, fn, ctx, 0, numel);
    }
    if (end_blocking) end_blocking(token);
}
