/* index_kernels.c: the row driver and kernels of the indexing family (see
 * index_kernels.h). Reads run rows in parallel; index checks run a parallel
 * pass and, only on failure, a serial one to name the first bad index. */
#include "index_kernels.h"

#include <stdlib.h>

/* ---- the row driver ---- */

void nb_ix_iter_init(nb_ix_iter* it, const int64_t* shape, int32_t ndim) {
    memset(it, 0, sizeof *it);
    it->ndim = ndim;
    memcpy(it->shape, shape, sizeof(int64_t) * (size_t)ndim);
}

/* Adds an operand: t's data with byte strides over the iteration dims, where
 * map[d] names t's dim for iteration dim d, or -1 for stride 0. */
void nb_ix_iter_add(nb_ix_iter* it, const nb_tensor* t, const int32_t* map) {
    int32_t k = it->nops++;
    const int64_t es = nb_dtype_sizes[t->dtype];
    it->base[k] = nb_tensor_data(t);
    for (int32_t d = 0; d < it->ndim; d++) it->strides[k][d] = map[d] < 0 ? 0 : t->strides[map[d]] * es;
}

/* Rows [begin, end) of the iteration, serially; rows run along `inner`. */
static void rows_range(const nb_ix_iter* it, int32_t inner, nb_ix_row_fn fn, const void* ctx, int64_t begin,
                       int64_t end) {
    int32_t od[NB_MAX_DIMS], no = 0;
    for (int32_t d = 0; d < it->ndim; d++)
        if (d != inner && it->shape[d] > 1) od[no++] = d;
    const int64_t n = inner >= 0 ? it->shape[inner] : 1;
    int64_t istr[NB_IX_MAX_OPS], idx[NB_MAX_DIMS], rem = begin;
    char* ptr[NB_IX_MAX_OPS];
    for (int32_t k = 0; k < it->nops; k++) istr[k] = inner >= 0 ? it->strides[k][inner] : 0;
    for (int32_t j = no - 1; j >= 0; j--) {
        idx[j] = rem % it->shape[od[j]];
        rem /= it->shape[od[j]];
    }
    for (int32_t k = 0; k < it->nops; k++) {
        ptr[k] = it->base[k];
        for (int32_t j = 0; j < no; j++) ptr[k] += idx[j] * it->strides[k][od[j]];
    }
    for (int64_t r = begin; r < end; r++) {
        fn(ptr, istr, n, ctx);
        for (int32_t j = no - 1; j >= 0; j--) {
            const int32_t d = od[j];
            for (int32_t k = 0; k < it->nops; k++) ptr[k] += it->strides[k][d];
            if (++idx[j] < it->shape[d]) break;
            for (int32_t k = 0; k < it->nops; k++) ptr[k] -= it->strides[k][d] * it->shape[d];
            idx[j] = 0;
        }
    }
}

void nb_ix_run_rows(const nb_ix_iter* it, int32_t inner, uint32_t split, nb_ix_row_fn fn, const void* ctx) {
    int64_t numel = 1;
    for (int32_t d = 0; d < it->ndim; d++) numel *= it->shape[d];
    if (numel == 0) return;
    if (inner < 0) inner = it->ndim - 1;
    const int64_t rows = numel / (inner >= 0 ? it->shape[inner] : 1);
    if (split == NB_IX_ANY) {  /* rows are independent: equal chunks of rows */
        const int nt = nb_threads_for(numel, rows);
#pragma omp parallel for num_threads(nt) if (nt > 1)
        for (int p = 0; p < nt; p++) rows_range(it, inner, fn, ctx, rows * p / nt, rows * (p + 1) / nt);
        return;
    }
    int32_t by = -1;  /* the longest dim whose blocks are independent */
    for (int32_t d = 0; d < it->ndim; d++)
        if ((split >> d & 1u) && it->shape[d] > 1 && (by < 0 || it->shape[d] > it->shape[by])) by = d;
    const int nt = by < 0 ? 1 : nb_threads_for(numel, it->shape[by]);
    if (nt <= 1) {
        rows_range(it, inner, fn, ctx, 0, rows);
        return;
    }
#pragma omp parallel for num_threads(nt)
    for (int p = 0; p < nt; p++) {
        nb_ix_iter sub = *it;
        const int64_t begin = it->shape[by] * p / nt, end = it->shape[by] * (p + 1) / nt;
        sub.shape[by] = end - begin;
        for (int32_t k = 0; k < it->nops; k++) sub.base[k] += begin * it->strides[k][by];
        int64_t sub_rows = 1;
        for (int32_t d = 0; d < sub.ndim; d++) sub_rows *= d == inner ? 1 : sub.shape[d];
        if (end > begin) rows_range(&sub, inner, fn, ctx, 0, sub_rows);
    }
}

/* ---- kernels: operand 0 is written, 1 is read, 2.. are index tensors ---- */

/* The byte offset index value v gives along indexed dim j. With check (reads,
 * whose output is discarded on failure), an out-of-range v flags the context and
 * reads element 0 instead; writes are checked before they start. */
static inline int64_t term(const nb_ix_ctx* c, int32_t j, int64_t v, bool check) {
    const int64_t size = c->size[j];
    if (c->wrap && v < 0) v += size;  /* unchecked writes only ever see wrap-checked values */
    if (check && NB_UNLIKELY((uint64_t)v >= (uint64_t)size)) {
        atomic_store_explicit(&((nb_ix_ctx*)c)->bad, 1, memory_order_relaxed);
        return 0;
    }
    return v * c->stride[j];
}

static inline int64_t index_offset(const nb_ix_ctx* c, char* const* p, const int64_t* s, int64_t i, bool check) {
    int64_t off = 0;
    for (int32_t j = 0; j < c->k; j++) off += term(c, j, nb_load_index(p[2 + j] + i * s[2 + j], c->idx_dtype[j]), check);
    return off;
}

/* An indexed dim of size 0 (every index is then out of range, and there is no
 * element to fall back on): flags the context for the caller's error. */
static inline bool empty_dim(const nb_ix_ctx* c) {
    for (int32_t j = 0; j < c->k; j++)
        if (c->size[j] == 0) {
            atomic_store_explicit(&((nb_ix_ctx*)c)->bad, 1, memory_order_relaxed);
            return true;
        }
    return false;
}

/* True when no index operand moves along this row: one offset serves all of it. */
static inline bool const_index(const nb_ix_ctx* c, const int64_t* s) {
    for (int32_t j = 0; j < c->k; j++)
        if (s[2 + j] != 0) return false;
    return true;
}

/* Runs BODY for i in [0, n) with off the byte offset the index operands give
 * element i; the common cases (one offset for the whole row, one int64 index,
 * int64 indices only) get their own loops, with the context's fields in locals
 * (stores through T* could otherwise alias them and force reloads). */
#define INDEXED_LOOP(CHECK, BODY)                                                                       \
    if (const_index(c, s)) {                                                                            \
        const int64_t off = index_offset(c, p, s, 0, CHECK);                                            \
        for (int64_t i = 0; i < n; i++) { BODY; }                                                       \
    } else if (c->k == 1 && c->idx_dtype[0] == NB_I64) {                                                \
        const int64_t size = c->size[0], stride = c->stride[0], is = s[2], wrap = c->wrap ? size : 0;   \
        const char* ip = p[2];                                                                          \
        bool bad = false;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                               \
            int64_t v = *(const int64_t*)(ip + i * is);                                                 \
            v += (v >> 63) & wrap; /* negative: from the end, when allowed */                           \
            if (CHECK && NB_UNLIKELY((uint64_t)v >= (uint64_t)size)) bad = true, v = 0;                 \
            const int64_t off = v * stride;                                                             \
            BODY;                                                                                       \
        }                                                                                               \
        if (CHECK && bad) atomic_store_explicit(&((nb_ix_ctx*)c)->bad, 1, memory_order_relaxed);        \
    } else if (c->all_i64) {                                                                            \
        const int32_t k = c->k;                                                                         \
        int64_t size[NB_MAX_DIMS], stride[NB_MAX_DIMS];                                                 \
        for (int32_t j = 0; j < k; j++) size[j] = c->size[j], stride[j] = c->stride[j];                 \
        const bool wrap = c->wrap;                                                                      \
        bool bad = false;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                               \
            int64_t off = 0;                                                                            \
            for (int32_t j = 0; j < k; j++) {                                                           \
                int64_t v = *(const int64_t*)(p[2 + j] + i * s[2 + j]);                                 \
                v += (v >> 63) & (wrap ? size[j] : 0);                                                  \
                if (CHECK && NB_UNLIKELY((uint64_t)v >= (uint64_t)size[j])) bad = true, v = 0;          \
                off += v * stride[j];                                                                   \
            }                                                                                           \
            BODY;                                                                                       \
        }                                                                                               \
        if (CHECK && bad) atomic_store_explicit(&((nb_ix_ctx*)c)->bad, 1, memory_order_relaxed);        \
    } else {                                                                                            \
        for (int64_t i = 0; i < n; i++) { const int64_t off = index_offset(c, p, s, i, CHECK); BODY; }  \
    }

/* take: the indexed tensor is operand 1; put: operand 0. */
#define MOVE_KERNELS(T, SZ)                                                                             \
    static void take_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {              \
        const nb_ix_ctx* c = vctx;                                                                      \
        if (empty_dim(c)) return; /* every index is out of range: read nothing */                       \
        if (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T) && const_index(c, s)) { /* a row */ \
            memcpy(p[0], p[1] + index_offset(c, p, s, 0, true), (size_t)n * sizeof(T));                 \
            return;                                                                                     \
        }                                                                                               \
        INDEXED_LOOP(true, *(T*)(p[0] + i * s[0]) = *(const T*)(p[1] + i * s[1] + off))                 \
    }                                                                                                   \
    static void put_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {               \
        const nb_ix_ctx* c = vctx;                                                                      \
        INDEXED_LOOP(false, *(T*)(p[0] + i * s[0] + off) = *(const T*)(p[1] + i * s[1]))                \
    }                                                                                                   \
    static void fill_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {              \
        const T v = *(const T*)((const nb_ix_ctx*)vctx)->value;                                         \
        for (int64_t i = 0; i < n; i++)                                                                 \
            if (*(const uint8_t*)(p[1] + i * s[1])) *(T*)(p[0] + i * s[0]) = v;                         \
    }
MOVE_KERNELS(uint8_t, 1)
MOVE_KERNELS(uint16_t, 2)
MOVE_KERNELS(uint32_t, 4)
MOVE_KERNELS(uint64_t, 8)

nb_ix_row_fn nb_ix_take_fn(int64_t es) { return es == 1 ? take_1 : es == 2 ? take_2 : es == 4 ? take_4 : take_8; }
nb_ix_row_fn nb_ix_put_fn(int64_t es) { return es == 1 ? put_1 : es == 2 ? put_2 : es == 4 ? put_4 : put_8; }
nb_ix_row_fn nb_ix_fill_fn(int64_t es) { return es == 1 ? fill_1 : es == 2 ? fill_2 : es == 4 ? fill_4 : fill_8; }

/* dst += alpha * src, in the dtype's own arithmetic (float16/bfloat16 through float). */
#define ACC_KERNEL(NAME, T, CT, LOAD, STORE, ALPHA)                                                     \
    static void NAME(char* const* p, const int64_t* s, int64_t n, const void* vctx) {                   \
        const nb_ix_ctx* c = vctx;                                                                      \
        const CT a = ALPHA;                                                                             \
        INDEXED_LOOP(false, T* d = (T*)(p[0] + i * s[0] + off);                                         \
                     *d = STORE((CT)(LOAD(*d) + LOAD(*(const T*)(p[1] + i * s[1])) * a)))               \
    }
#define ID(x) (x)
ACC_KERNEL(acc_f32, float, float, ID, ID, (float)c->alpha)
ACC_KERNEL(acc_f64, double, double, ID, ID, c->alpha)
ACC_KERNEL(acc_f16, uint16_t, float, nb_half_to_float, nb_float_to_half, (float)c->alpha)
ACC_KERNEL(acc_bf16, uint16_t, float, nb_bf16_to_float, nb_float_to_bf16, (float)c->alpha)
ACC_KERNEL(acc_i8, int8_t, int64_t, ID, (int8_t), (int64_t)c->alpha)
ACC_KERNEL(acc_i16, int16_t, int64_t, ID, (int16_t), (int64_t)c->alpha)
ACC_KERNEL(acc_i32, int32_t, int64_t, ID, (int32_t), (int64_t)c->alpha)
ACC_KERNEL(acc_i64, int64_t, int64_t, ID, ID, (int64_t)c->alpha)
ACC_KERNEL(acc_u8, uint8_t, int64_t, ID, (uint8_t), (int64_t)c->alpha)
ACC_KERNEL(acc_b8, uint8_t, int64_t, ID, (uint8_t)!!, (int64_t)(c->alpha != 0))
const nb_ix_row_fn nb_ix_acc_fns[NB_NUM_DTYPES] = {acc_f32, acc_f64, acc_f16, acc_bf16, acc_i8,
                                             acc_i16, acc_i32, acc_i64, acc_u8,  acc_b8};

/* dst = F(dst, src) for scatter_reduce's prod, amax and amin, by dtype. amax / amin
 * let NaN win from either side, as PyTorch does. */
#define REDUCE_KERNEL(NAME, T, CT, LOAD, STORE, F)                                                      \
    static void NAME(char* const* p, const int64_t* s, int64_t n, const void* vctx) {                   \
        const nb_ix_ctx* c = vctx;                                                                      \
        INDEXED_LOOP(false, T* d = (T*)(p[0] + i * s[0] + off); const CT a = LOAD(*d);                  \
                     const CT b = LOAD(*(const T*)(p[1] + i * s[1])); *d = STORE((CT)F(a, b)))          \
    }
#define R_MUL(a, b) ((a) * (b))
#define R_MAX(a, b) ((b) != (b) || (b) > (a) ? (b) : (a))
#define R_MIN(a, b) ((b) != (b) || (b) < (a) ? (b) : (a))
#define R_BOOL(v) (uint8_t)((v) != 0)
#define REDUCE_KERNELS(OP, F)                                                                           \
    REDUCE_KERNEL(OP##_f32, float, float, ID, ID, F)                                                    \
    REDUCE_KERNEL(OP##_f64, double, double, ID, ID, F)                                                  \
    REDUCE_KERNEL(OP##_f16, uint16_t, float, nb_half_to_float, nb_float_to_half, F)                     \
    REDUCE_KERNEL(OP##_bf16, uint16_t, float, nb_bf16_to_float, nb_float_to_bf16, F)                    \
    REDUCE_KERNEL(OP##_i8, int8_t, int64_t, ID, (int8_t), F)                                            \
    REDUCE_KERNEL(OP##_i16, int16_t, int64_t, ID, (int16_t), F)                                         \
    REDUCE_KERNEL(OP##_i32, int32_t, int64_t, ID, (int32_t), F)                                         \
    REDUCE_KERNEL(OP##_i64, int64_t, int64_t, ID, ID, F)                                                \
    REDUCE_KERNEL(OP##_u8, uint8_t, int64_t, ID, (uint8_t), F)                                          \
    REDUCE_KERNEL(OP##_b8, uint8_t, int64_t, ID, R_BOOL, F)                                             \
    const nb_ix_row_fn nb_ix_##OP##_fns[NB_NUM_DTYPES] = {OP##_f32, OP##_f64, OP##_f16, OP##_bf16, OP##_i8, \
                                                          OP##_i16, OP##_i32, OP##_i64, OP##_u8,  OP##_b8};
REDUCE_KERNELS(prod, R_MUL)
REDUCE_KERNELS(amax, R_MAX)
REDUCE_KERNELS(amin, R_MIN)

/* Flags the first index outside [lo, hi) (operand 0; int64 or int32 by k's dtype slot 0). */
static void check_kernel(char* const* p, const int64_t* s, int64_t n, const void* vctx) {
    nb_ix_ctx* c = (nb_ix_ctx*)vctx;
    if (atomic_load_explicit(&c->bad, memory_order_relaxed)) return;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = nb_load_index(p[0] + i * s[0], c->idx_dtype[0]);
        if (v < c->lo || v >= c->hi) {
            if (!atomic_exchange(&c->bad, 1)) c->bad_value = v;
            return;
        }
    }
}

/* Every value of idx lies in [-size, size) (allow_negative) or [0, size); else the error for dim. */
nb_status nb_ix_check_values(const char* op, const nb_tensor* idx, int64_t size, int32_t dim,
                                    bool allow_negative) {
    nb_ix_iter it;
    nb_ix_iter_init(&it, idx->shape, idx->ndim);
    int32_t map[NB_MAX_DIMS] = {0};
    for (int32_t d = 0; d < idx->ndim; d++) map[d] = d;
    nb_ix_iter_add(&it, idx, map);
    nb_ix_ctx c = {.idx_dtype = {idx->dtype}, .lo = allow_negative ? -size : 0, .hi = size};
    nb_ix_run_rows(&it, -1, NB_IX_ANY, check_kernel, &c);
    if (!atomic_load(&c.bad)) return NB_OK;
    atomic_store(&c.bad, 0);  /* a serial pass finds the first bad value in row-major order */
    nb_ix_run_rows(&it, -1, 0, check_kernel, &c);
    return nb_error(NB_ERR_INDEX, "%s: index %lld is out of bounds for dimension %d with size %lld", op,
                    (long long)c.bad_value, (int)dim, (long long)size);
}

/* ---- masks: masked_fill, masked_select, nonzero ---- */

/* Operand t broadcast (right-aligned) to ndim iteration dims. */
void nb_ix_bcast_map(const nb_tensor* t, int32_t ndim, int32_t* map) {
    for (int32_t d = 0; d < ndim; d++) {
        int32_t j = d - (ndim - t->ndim);
        map[d] = (j < 0 || t->shape[j] == 1) ? -1 : j;
    }
}

/* Visits rows [begin, end) of the last dim in row-major order and counts the set
 * mask bytes; copies their src elements to out and their coordinates to coords
 * when given. */
static int64_t walk(const nb_ix_walk* w, int64_t begin, int64_t end, char* out, int64_t* coords) {
    const int32_t nd = w->ndim, last = nd - 1;
    const int64_t n = nd ? w->shape[last] : 1, ms = nd ? w->ms[last] : 0, ss = nd ? w->ss[last] : 0, es = w->es;
    int64_t idx[NB_MAX_DIMS], rem = begin, cnt = 0;
    const char *m = w->mask, *s = w->src;
    if (begin >= end) return 0;  /* also keeps empty shapes out of the unravelling below */
    for (int32_t d = last - 1; d >= 0; d--) {
        idx[d] = rem % w->shape[d];
        rem /= w->shape[d];
        m += idx[d] * w->ms[d];
        s += idx[d] * w->ss[d];
    }
    for (int64_t r = begin; r < end; r++) {
        if (coords) {
            for (int64_t j = 0; j < n; j++)
                if (m[j * ms]) {
                    int64_t* c = coords + cnt++ * nd;
                    for (int32_t d = 0; d < last; d++) c[d] = idx[d];
                    if (nd) c[last] = j;  /* a 0-dim mask has no coordinates to write */
                }
        } else if (out) {
            switch (es) {
#define SELECT(T) for (int64_t j = 0; j < n; j++) if (m[j * ms]) ((T*)out)[cnt++] = *(const T*)(s + j * ss); break;
                case 1: SELECT(uint8_t)
                case 2: SELECT(uint16_t)
                case 4: SELECT(uint32_t)
                default: SELECT(uint64_t)
#undef SELECT
            }
        } else {
            for (int64_t j = 0; j < n; j++) cnt += m[j * ms] != 0;
        }
        for (int32_t d = last - 1; d >= 0; d--) {
            m += w->ms[d], s += w->ss[d];
            if (++idx[d] < w->shape[d]) break;
            m -= w->ms[d] * w->shape[d], s -= w->ss[d] * w->shape[d];
            idx[d] = 0;
        }
    }
    return cnt;
}

/* The elements of w->src where the mask is set (select) or the mask's coordinates
 * (nonzero): a count pass and a fill pass over the same chunks of rows, in parallel. */
nb_status nb_ix_walk_collect(const char* op, const nb_ix_walk* w, int32_t dtype, bool coords, nb_tensor** out) {
    int64_t numel = 1;
    for (int32_t d = 0; d < w->ndim; d++) numel *= w->shape[d];
    const int64_t rows = w->ndim && w->shape[w->ndim - 1] ? numel / w->shape[w->ndim - 1] : (w->ndim ? 0 : 1);
    const int nt = nb_threads_for(numel, rows);
    int64_t* counts = calloc((size_t)nt + 1, sizeof(int64_t));
    if (counts == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
#pragma omp parallel for num_threads(nt) if (nt > 1)
    for (int p = 0; p < nt; p++) counts[p + 1] = walk(w, rows * p / nt, rows * (p + 1) / nt, NULL, NULL);
    for (int p = 0; p < nt; p++) counts[p + 1] += counts[p];
    int64_t shape[2] = {counts[nt], w->ndim};
    nb_tensor* r;
    nb_status st = nb_tensor_new(op, shape, coords ? 2 : 1, dtype, NB_CPU, 0, &r);
    if (st == NB_OK && counts[nt] > 0) {
        char* base = nb_tensor_data(r);
#pragma omp parallel for num_threads(nt) if (nt > 1)
        for (int p = 0; p < nt; p++)
            walk(w, rows * p / nt, rows * (p + 1) / nt, coords ? NULL : base + counts[p] * w->es,
                 coords ? (int64_t*)base + counts[p] * w->ndim : NULL);
    }
    free(counts);
    if (st == NB_OK) *out = r;
    return st;
}
