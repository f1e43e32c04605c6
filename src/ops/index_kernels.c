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

/* Calls fn on each row along `inner` (-1: the last dim); rows split across threads when `parallel`. */
void nb_ix_run_rows(const nb_ix_iter* it, int32_t inner, bool parallel, nb_ix_row_fn fn, const void* ctx) {
    int64_t numel = 1;
    for (int32_t d = 0; d < it->ndim; d++) numel *= it->shape[d];
    if (numel == 0) return;
    if (inner < 0) inner = it->ndim - 1;
    int32_t od[NB_MAX_DIMS], no = 0;
    for (int32_t d = 0; d < it->ndim; d++)
        if (d != inner && it->shape[d] > 1) od[no++] = d;
    const int64_t n = inner >= 0 ? it->shape[inner] : 1, rows = numel / n;
    int64_t istr[NB_IX_MAX_OPS];
    for (int32_t k = 0; k < it->nops; k++) istr[k] = inner >= 0 ? it->strides[k][inner] : 0;
    const int nt = parallel ? nb_threads_for(numel, rows) : 1;
#pragma omp parallel for num_threads(nt) if (nt > 1)
    for (int p = 0; p < nt; p++) {
        int64_t begin = rows * p / nt, end = rows * (p + 1) / nt, idx[NB_MAX_DIMS], rem = begin;
        char* ptr[NB_IX_MAX_OPS];
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
}

/* ---- kernels: operand 0 is written, 1 is read, 2.. are index tensors ---- */

static inline int64_t index_offset(const nb_ix_ctx* c, char* const* p, const int64_t* s, int64_t i) {
    int64_t off = 0;
    for (int32_t j = 0; j < c->k; j++) {
        int64_t v = nb_load_index(p[2 + j] + i * s[2 + j], c->idx_dtype[j]);
        off += (v < 0 ? v + c->size[j] : v) * c->stride[j];
    }
    return off;
}

/* take: the indexed tensor is operand 1; put: operand 0. */
#define MOVE_KERNELS(T, SZ)                                                                          \
    static void take_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {          \
        const nb_ix_ctx* c = vctx;                                                                      \
        if (c->k == 1 && c->idx_dtype[0] == NB_I64) {                                                \
            const int64_t size = c->size[0], st = c->stride[0];                                      \
            for (int64_t i = 0; i < n; i++) {                                                        \
                int64_t v = *(const int64_t*)(p[2] + i * s[2]);                                      \
                *(T*)(p[0] + i * s[0]) = *(const T*)(p[1] + i * s[1] + (v < 0 ? v + size : v) * st); \
            }                                                                                        \
            return;                                                                                  \
        }                                                                                            \
        for (int64_t i = 0; i < n; i++)                                                              \
            *(T*)(p[0] + i * s[0]) = *(const T*)(p[1] + i * s[1] + index_offset(c, p, s, i));        \
    }                                                                                                \
    static void put_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {           \
        const nb_ix_ctx* c = vctx;                                                                      \
        for (int64_t i = 0; i < n; i++)                                                              \
            *(T*)(p[0] + i * s[0] + index_offset(c, p, s, i)) = *(const T*)(p[1] + i * s[1]);        \
    }                                                                                                \
    static void fill_##SZ(char* const* p, const int64_t* s, int64_t n, const void* vctx) {          \
        const T v = *(const T*)((const nb_ix_ctx*)vctx)->value;                                         \
        for (int64_t i = 0; i < n; i++)                                                              \
            if (*(const uint8_t*)(p[1] + i * s[1])) *(T*)(p[0] + i * s[0]) = v;                      \
    }
MOVE_KERNELS(uint8_t, 1)
MOVE_KERNELS(uint16_t, 2)
MOVE_KERNELS(uint32_t, 4)
MOVE_KERNELS(uint64_t, 8)

nb_ix_row_fn nb_ix_take_fn(int64_t es) { return es == 1 ? take_1 : es == 2 ? take_2 : es == 4 ? take_4 : take_8; }
nb_ix_row_fn nb_ix_put_fn(int64_t es) { return es == 1 ? put_1 : es == 2 ? put_2 : es == 4 ? put_4 : put_8; }
nb_ix_row_fn nb_ix_fill_fn(int64_t es) { return es == 1 ? fill_1 : es == 2 ? fill_2 : es == 4 ? fill_4 : fill_8; }

/* dst += alpha * src, in the dtype's own arithmetic (float16/bfloat16 through float). */
#define ACC_KERNEL(NAME, T, CT, LOAD, STORE, ALPHA)                                                 \
    static void NAME(char* const* p, const int64_t* s, int64_t n, const void* vctx) {               \
        const nb_ix_ctx* c = vctx;                                                                      \
        const CT a = ALPHA;                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                            \
            T* d = (T*)(p[0] + i * s[0] + index_offset(c, p, s, i));                                 \
            *d = STORE((CT)(LOAD(*d) + LOAD(*(const T*)(p[1] + i * s[1])) * a));                     \
        }                                                                                            \
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
    nb_ix_run_rows(&it, -1, true, check_kernel, &c);
    if (!atomic_load(&c.bad)) return NB_OK;
    atomic_store(&c.bad, 0);  /* a serial pass finds the first bad value in row-major order */
    nb_ix_run_rows(&it, -1, false, check_kernel, &c);
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

/* Visits elements [begin, end) in row-major order and counts the set mask bytes;
 * copies their src elements to out and their coordinates to coords when given. */
static int64_t walk(const nb_ix_walk* w, int64_t begin, int64_t end, char* out, int64_t* coords) {
    int64_t idx[NB_MAX_DIMS], rem = begin, cnt = 0;
    const char *m = w->mask, *s = w->src;
    if (begin >= end) return 0;  /* also keeps empty shapes out of the unravelling below */
    for (int32_t d = w->ndim - 1; d >= 0; d--) {
        idx[d] = rem % w->shape[d];
        rem /= w->shape[d];
        m += idx[d] * w->ms[d];
        s += idx[d] * w->ss[d];
    }
    for (int64_t e = begin; e < end; e++) {
        if (*m) {
            if (out) memcpy(out + cnt * w->es, s, (size_t)w->es);
            if (coords) memcpy(coords + cnt * w->ndim, idx, sizeof(int64_t) * (size_t)w->ndim);
            cnt++;
        }
        for (int32_t d = w->ndim - 1; d >= 0; d--) {
            m += w->ms[d], s += w->ss[d];
            if (++idx[d] < w->shape[d]) break;
            m -= w->ms[d] * w->shape[d], s -= w->ss[d] * w->shape[d];
            idx[d] = 0;
        }
    }
    return cnt;
}

/* The elements of w->src where the mask is set (select) or the mask's coordinates
 * (nonzero): a count pass and a fill pass over the same chunks, in parallel. */
nb_status nb_ix_walk_collect(const char* op, const nb_ix_walk* w, int32_t dtype, bool coords, nb_tensor** out) {
    int64_t numel = 1;
    for (int32_t d = 0; d < w->ndim; d++) numel *= w->shape[d];
    const int nt = nb_threads_for(numel, numel);
    int64_t* counts = calloc((size_t)nt + 1, sizeof(int64_t));
    if (counts == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
#pragma omp parallel for num_threads(nt) if (nt > 1)
    for (int p = 0; p < nt; p++) counts[p + 1] = walk(w, numel * p / nt, numel * (p + 1) / nt, NULL, NULL);
    for (int p = 0; p < nt; p++) counts[p + 1] += counts[p];
    int64_t shape[2] = {counts[nt], w->ndim};
    nb_tensor* r;
    nb_status st = nb_tensor_new(op, shape, coords ? 2 : 1, dtype, NB_CPU, 0, &r);
    if (st == NB_OK && counts[nt] > 0) {
        char* base = nb_tensor_data(r);
#pragma omp parallel for num_threads(nt) if (nt > 1)
        for (int p = 0; p < nt; p++)
            walk(w, numel * p / nt, numel * (p + 1) / nt, coords ? NULL : base + counts[p] * w->es,
                 coords ? (int64_t*)base + counts[p] * w->ndim : NULL);
    }
    free(counts);
    if (st == NB_OK) *out = r;
    return st;
}

