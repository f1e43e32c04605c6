/* index_kernels.h: the CPU machinery of the indexing family (index.c): a row
 * driver over up to 2 + NB_MAX_DIMS strided operands, the take/put/fill/
 * accumulate kernels that run on it, index range checks, and the mask walker
 * behind masked_select and nonzero. */
#ifndef NABLA_OPS_INDEX_KERNELS_H_
#define NABLA_OPS_INDEX_KERNELS_H_

#include "shape_common.h"

#define NB_IX_MAX_OPS (2 + NB_MAX_DIMS)

/* A row kernel: n elements, operand k at p[k] with byte stride s[k]. Operand 0
 * is written, 1 is read, 2.. are index tensors (int64 or int32). */
typedef void (*nb_ix_row_fn)(char* const* p, const int64_t* s, int64_t n, const void* ctx);

typedef struct {
    int32_t nops, ndim;
    int64_t shape[NB_MAX_DIMS];
    char* base[NB_IX_MAX_OPS];
    int64_t strides[NB_IX_MAX_OPS][NB_MAX_DIMS]; /* bytes */
} nb_ix_iter;

/* Attributes the kernels read. */
typedef struct {
    int32_t k;                      /* index operands */
    int32_t idx_dtype[NB_MAX_DIMS]; /* NB_I64 or NB_I32 */
    bool all_i64;                   /* every idx_dtype is NB_I64 (a fast path; false is always safe) */
    bool wrap;                      /* negative indices count from the end (else they are out of range) */
    int64_t size[NB_MAX_DIMS];      /* size of the indexed dim (negative indices wrap) */
    int64_t stride[NB_MAX_DIMS];    /* its byte stride in the indexed tensor */
    double alpha;                   /* accumulating puts: dst += alpha * src */
    const char* value;              /* masked_fill: the fill value's bytes */
    /* index checks */
    int64_t lo, hi;
    _Atomic int bad;
    int64_t bad_value;
} nb_ix_ctx;

NB_INTERNAL void nb_ix_iter_init(nb_ix_iter* it, const int64_t* shape, int32_t ndim);
/* Adds operand t: map[d] names t's dim for iteration dim d, or -1 for stride 0. */
NB_INTERNAL void nb_ix_iter_add(nb_ix_iter* it, const nb_tensor* t, const int32_t* map);
/* Calls fn on each row along `inner` (-1: the last dim). `split` says what may run
 * in parallel: NB_IX_ANY (every row is independent: equal chunks of rows), a
 * bitmask of dims (blocks along one of them never touch the same output: the
 * longest such dim is cut into one block per thread, each walked in row-major
 * order), or 0 (serial, row-major). */
#define NB_IX_ANY UINT32_MAX
NB_INTERNAL void nb_ix_run_rows(const nb_ix_iter* it, int32_t inner, uint32_t split, nb_ix_row_fn fn, const void* ctx);
/* Every dim of an ndim-dim iteration but `except` (-1: none), as a split mask. */
static inline uint32_t nb_ix_dims_except(int32_t ndim, int32_t except) {
    uint32_t all = ndim >= 32 ? UINT32_MAX : (1u << ndim) - 1u;
    return except >= 0 ? all & ~(1u << except) : all;
}

/* out[i] = src[i + offset(indices)] (take), dst[i + offset(indices)] = src[i] (put),
 * dst[i] = value where mask[i] (fill): by element size in bytes. take checks its
 * indices as it goes and sets ctx->bad on a bad one (the caller then reports it
 * with nb_ix_check_values); put and the accumulators expect checked indices. */
NB_INTERNAL nb_ix_row_fn nb_ix_take_fn(int64_t es);
NB_INTERNAL nb_ix_row_fn nb_ix_put_fn(int64_t es);
NB_INTERNAL nb_ix_row_fn nb_ix_fill_fn(int64_t es);
/* dst[i + offset(indices)] += alpha * src[i], by dtype. */
NB_INTERNAL extern const nb_ix_row_fn nb_ix_acc_fns[NB_NUM_DTYPES];
/* dst[i + offset(indices)] = dst * src, max(dst, src), min(dst, src) (NaN wins), by dtype. */
NB_INTERNAL extern const nb_ix_row_fn nb_ix_prod_fns[NB_NUM_DTYPES];
NB_INTERNAL extern const nb_ix_row_fn nb_ix_amax_fns[NB_NUM_DTYPES];
NB_INTERNAL extern const nb_ix_row_fn nb_ix_amin_fns[NB_NUM_DTYPES];

/* Every value of idx lies in [-size, size) (allow_negative) or [0, size); else
 * NB_ERR_INDEX naming the first bad value in row-major order. */
NB_INTERNAL nb_status nb_ix_check_values(const char* op, const nb_tensor* idx, int64_t size, int32_t dim,
                                         bool allow_negative);
/* Operand map for t broadcast (right-aligned) to ndim iteration dims. */
NB_INTERNAL void nb_ix_bcast_map(const nb_tensor* t, int32_t ndim, int32_t* map);

/* A walk over a shape with a byte mask and a source, both strided in bytes. */
typedef struct {
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    const char* mask;
    const char* src;
    int64_t ms[NB_MAX_DIMS], ss[NB_MAX_DIMS]; /* bytes */
    int64_t es;
} nb_ix_walk;

/* The 1-D tensor (dtype) of the source elements where the mask is set, or with
 * coords the [n, ndim] int64 coordinates of the set mask elements. */
NB_INTERNAL nb_status nb_ix_walk_collect(const char* op, const nb_ix_walk* w, int32_t dtype, bool coords,
                                         nb_tensor** out);

#endif /* NABLA_OPS_INDEX_KERNELS_H_ */
