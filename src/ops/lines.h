/* lines.h: kernels that work on every line of a tensor along one dim (softmax and
 * its gradient). A contiguous tensor is read as [outer, len, inner]; the work
 * items are blocks of whole rows (inner == 1; about NB_LINES_ROW_BLOCK elements,
 * so that short rows do not pay a call each) or tiles of up to NB_LINES_TILE
 * inner positions, so items are independent and threads never change a result. */
#ifndef NABLA_OPS_LINES_H_
#define NABLA_OPS_LINES_H_

#include "reduce.h" /* the vector loads, stores and runs its kernels share */

#ifdef _OPENMP
#include <omp.h>
#endif

#define NB_LINES_TILE 256
#define NB_LINES_ROW_BLOCK 4096 /* elements of short rows per work item */
#define NB_LINES_GRAIN 16384 /* elements before threads pay off */
/* The longest line the CPU softmax reads strided or as float16 / bfloat16
 * (gathered into float32 buffers); longer ones are cast and copied first. */
#define NB_LINES_GATHER_MAX (1 << 20)

typedef struct nb_lines {
    int64_t len, inner, outer;
    int64_t rows;  /* inner == 1: rows per item */
    int64_t tile;  /* inner > 1: inner positions per item */
    int64_t ntiles, items;
} nb_lines;

/* Tiles of `tile` inner positions (inner > 1). */
static inline void nb_lines_set_tile(nb_lines* l, int64_t tile) {
    if (l->inner == 1) return;
    l->tile = tile;
    l->ntiles = (l->inner + tile - 1) / tile;
    l->items = l->outer * l->ntiles;
}

static inline nb_lines nb_lines_along(const int64_t* shape, int32_t ndim, int32_t d) {
    nb_lines l = {.len = 1, .inner = 1, .outer = 1};
    for (int32_t i = 0; i < ndim; i++) {
        if (i < d) l.outer *= shape[i];
        else if (i == d) l.len = shape[i];
        else l.inner *= shape[i];
    }
    l.rows = l.len >= NB_LINES_ROW_BLOCK || l.len == 0 ? 1 : NB_LINES_ROW_BLOCK / l.len; /* len 0: nothing runs */
    l.items = (l.outer + l.rows - 1) / l.rows;
    nb_lines_set_tile(&l, NB_LINES_TILE);
    return l;
}

/* Row-major strides for the plan's shape. */
static inline bool nb_lines_contiguous(const nb_bk_lines* p, const int64_t* strides) {
    int64_t s = 1;
    for (int32_t d = p->ndim - 1; d >= 0; d--) {
        if (p->shape[d] != 1 && strides[d] != s) return false;
        s *= p->shape[d];
    }
    return true;
}

/* The offset of item's first element and how many rows (inner == 1) or inner positions it covers. */
static inline void nb_lines_item(const nb_lines* l, int64_t item, int64_t* off, int64_t* m) {
    if (l->inner == 1) {
        const int64_t r0 = item * l->rows;
        *off = r0 * l->len;
        *m = l->outer - r0 < l->rows ? l->outer - r0 : l->rows;
        return;
    }
    const int64_t outer = item / l->ntiles, j0 = (item % l->ntiles) * l->tile;
    *off = outer * l->len * l->inner + j0;
    *m = l->inner - j0 < l->tile ? l->inner - j0 : l->tile;
}

/* fn(plan, item) for every item, across threads when there are numel >= NB_LINES_GRAIN elements.
 * Each thread takes one run of neighbouring items, the same run every call
 * (items are alike): its lines stay in its own caches from call to call, and
 * two threads never work on adjacent tiles of the same rows at once, which
 * slows both down (2 threads on [4096, 256] along dim 0: dynamic turns 1.4x
 * slower than static runs). */
static inline void nb_lines_run(const nb_lines* l, int64_t numel, void (*fn)(const void*, int64_t),
                                const void* plan) {
    const int64_t items = l->items;
#ifdef _OPENMP
    if (numel >= NB_LINES_GRAIN && items > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
        for (int64_t it = 0; it < items; it++) fn(plan, it);
        return;
    }
#endif
    (void)numel;
    for (int64_t it = 0; it < items; it++) fn(plan, it);
}

/* The lines slot (lines_engine.c): out = op(in[, aux]) along dim (wrapped; any for
 * a 0-dim in), planned from the tensors' shapes and strides and run on in's
 * device (on its current stream). Nothing runs for an empty in. */
NB_INTERNAL nb_status nb_lines_launch(const char* op, int32_t kind, int32_t dim, const nb_tensor* in,
                                      const nb_tensor* aux, nb_tensor* out, int32_t acc_dtype);

/* The CPU kernels behind the CPU table's lines slot; plans with contiguous tensors
 * of the compute dtype (float32 / float64; a scan's out in any dtype). */
NB_INTERNAL nb_status nb_cpu_softmax_lines(const nb_bk_lines* plan);
NB_INTERNAL nb_status nb_cpu_softmax_backward_lines(const nb_bk_lines* plan);
NB_INTERNAL nb_status nb_cpu_scan_lines(const nb_bk_lines* plan);

#endif /* NABLA_OPS_LINES_H_ */
