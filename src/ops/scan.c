/* scan.c: cumsum and cumprod along one dim.
 *
 * The front end plans once and calls the lines slot (lines_engine.c; CUDA:
 * src/cuda/lines.cu). For the CPU kernels below the input is cast to the
 * kernel dtype and made contiguous, so it reads as [outer, L, inner]. Floats
 * accumulate in double (float32 data too, as PyTorch's CPU accumulate type) and each output is rounded once into the
 * result dtype; integers accumulate in int64 and wrap. With inner == 1 each
 * line is a sequential scan; otherwise a tile of up to 256 inner positions is
 * scanned together, vectorised across the tile. Lines and tiles are
 * independent, so threads never change a result. */
#include "lines.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#define TILE 256
#define GRAIN 32768

typedef struct {
    const char* x;
    char* out;
    int64_t outer, len, inner, ntiles;
    int32_t out_dtype;
    bool prod;
} scan_plan;

/* Writes n values (stride s bytes) of buf into out's dtype. */
static void store_f(char* p, int64_t s, const double* buf, int64_t n, int32_t dtype) {
    switch (dtype) {
        case NB_F32: for (int64_t k = 0; k < n; k++) *(float*)(p + k * s) = (float)buf[k]; break;
        case NB_F64: for (int64_t k = 0; k < n; k++) *(double*)(p + k * s) = buf[k]; break;
        default: for (int64_t k = 0; k < n; k++) nb_store_f64(p + k * s, dtype, buf[k]);
    }
}

static void store_i(char* p, int64_t s, const int64_t* buf, int64_t n, int32_t dtype) {
    if (dtype == NB_I64) {
        for (int64_t k = 0; k < n; k++) *(int64_t*)(p + k * s) = buf[k];
    } else {
        for (int64_t k = 0; k < n; k++) nb_store_i64(p + k * s, dtype, buf[k]);
    }
}

/* Item = one line (inner == 1) or one tile of one outer slice. */
#define SCAN_KERNEL(T, TAG, CODE, A, STORE)                                                              \
    static void scan_##TAG(const scan_plan* p, int64_t item) {                                         \
        A buf[TILE];                                                                                   \
        const int64_t osz = nb_dtype_sizes[p->out_dtype];                                              \
        if (p->inner == 1) {                                                                           \
            const T* x = (const T*)p->x + item * p->len;                                               \
            char* o = p->out + item * p->len * osz;                                                    \
            A acc = p->prod ? 1 : 0;                                                                   \
            for (int64_t i = 0; i < p->len; i += TILE) {                                               \
                int64_t n = p->len - i < TILE ? p->len - i : TILE;                                     \
                if (p->prod) for (int64_t k = 0; k < n; k++) buf[k] = acc = (A)(acc * (A)x[i + k]);   \
                else for (int64_t k = 0; k < n; k++) buf[k] = acc = (A)(acc + (A)x[i + k]);           \
                STORE(o + i * osz, osz, buf, n, p->out_dtype);                                         \
            }                                                                                          \
            return;                                                                                    \
        }                                                                                              \
        int64_t outer = item / p->ntiles, j0 = (item % p->ntiles) * TILE;                              \
        int64_t m = p->inner - j0 < TILE ? p->inner - j0 : TILE;                                       \
        const T* x = (const T*)p->x + outer * p->len * p->inner + j0;                                  \
        char* o = p->out + (outer * p->len * p->inner + j0) * osz;                                     \
        for (int64_t j = 0; j < m; j++) buf[j] = p->prod ? 1 : 0;                                      \
        for (int64_t i = 0; i < p->len; i++) {                                                         \
            const T* r = x + i * p->inner;                                                             \
            if (p->prod) for (int64_t j = 0; j < m; j++) buf[j] = (A)(buf[j] * (A)r[j]);               \
            else for (int64_t j = 0; j < m; j++) buf[j] = (A)(buf[j] + (A)r[j]);                       \
            STORE(o + i * p->inner * osz, osz, buf, m, p->out_dtype);                                  \
        }                                                                                              \
    }

SCAN_KERNEL(float, f32, NB_F32, double, store_f)
SCAN_KERNEL(double, f64, NB_F64, double, store_f)
#define INT_SCAN(T, TAG, CODE, ...) SCAN_KERNEL(T, TAG, CODE, int64_t, store_i)
NB_RED_INTS(INT_SCAN)

typedef void (*scan_fn)(const scan_plan*, int64_t);
#define ENTRY(T, TAG, CODE, ...) [CODE] = scan_##TAG,
static const scan_fn scan_k[NB_NUM_DTYPES] = {NB_RED_FLOATS(ENTRY) NB_RED_INTS(ENTRY)};

nb_status nb_cpu_scan_lines(const nb_bk_lines* pl) {
    const int32_t in = pl->in_dtype;
    if (in < 0 || in >= NB_NUM_DTYPES || scan_k[in] == NULL || !nb_dtype_valid(pl->out_dtype))
        return nb_error(NB_ERR_DTYPE, "%s: no CPU kernel for %s", pl->name, nb_dtype_str(in));
    scan_plan p = {.x = pl->in, .out = pl->out, .outer = 1, .len = 1, .inner = 1, .out_dtype = pl->out_dtype,
                   .prod = pl->op == NB_LK_CUMPROD};
    for (int32_t i = 0; i < pl->ndim; i++) {
        if (i < pl->dim) p.outer *= pl->shape[i];
        else if (i == pl->dim) p.len = pl->shape[i];
        else p.inner *= pl->shape[i];
    }
    p.ntiles = (p.inner + TILE - 1) / TILE;
    const int64_t items = p.inner == 1 ? p.outer : p.outer * p.ntiles;
    scan_fn fn = scan_k[in];
#ifdef _OPENMP
    if (p.outer * p.len * p.inner >= GRAIN && items > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
        for (int64_t it = 0; it < items; it++) fn(&p, it);
        return NB_OK;
    }
#endif
    for (int64_t it = 0; it < items; it++) fn(&p, it);
    return NB_OK;
}

/* The CPU kernels read the input contiguous in the kernel dtype and write the
 * result dtype. CUDA reads it as it is in the compute dtype (floats: the result
 * dtype; integers: int64, cast into the result after). */
static nb_status scan(const char* op, bool prod, const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst,
                      nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_LINES);
    if (st != NB_OK || (st = nb_red_check_dtype(op, dtype)) != NB_OK) return st;
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, t->ndim, &d)) != NB_OK) return st;
    if (dtype < 0 && dst != NULL) dtype = dst->dtype;
    int32_t result = dtype >= 0 ? dtype : nb_dtype_is_floating(t->dtype) ? t->dtype : NB_I64;
    const int32_t dev = t->storage->device_type, di = t->storage->device_index;
    const bool cpu = dev == NB_CPU;
    if (result == NB_BOOL)  /* PyTorch has no bool kernel (a dtype= or out= of bool) */
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: \"%s_out_%s\" not implemented for 'Bool'", op, op,
                        cpu ? "cpu" : "cuda");
    int32_t in;
    if (!cpu) in = nb_dtype_is_floating(result) ? result : NB_I64;
    else if (nb_dtype_is_floating(result)) in = result == NB_F64 ? NB_F64 : NB_F32;
    else in = nb_dtype_is_floating(t->dtype) ? result : t->dtype;
    /* the kernel writes `computed` (CPU: the result dtype; CUDA: in) */
    const int32_t written = cpu ? result : in;
    if (dst != NULL && (st = nb_check_dst(op, dst, &t, 1, t->shape, t->ndim, result, dev)) != NB_OK) return st;
    nb_tensor *cast = NULL, *x = NULL, *target = NULL;
    if (t->dtype != in) st = nb_tensor_to(t, in, dev, di, 0, &cast);
    if (st == NB_OK && cpu) st = nb_tensor_contiguous(cast ? cast : t, &x);
    else if (st == NB_OK) nb_tensor_retain(x = cast ? cast : (nb_tensor*)t);
    nb_tensor_release(cast);
    if (st == NB_OK) {
        if (dst != NULL && dst->dtype == written && (dst->contiguous || !cpu) && dst->storage != t->storage &&
            dst->storage != x->storage)
            nb_tensor_retain(target = dst);
        else
            st = nb_tensor_new(op, t->shape, t->ndim, written, dev, di, &target);
    }
    if (st == NB_OK)
        st = nb_lines_launch(op, prod ? NB_LK_CUMPROD : NB_LK_CUMSUM, d, x, NULL, target,
                             nb_dtype_is_floating(in) ? (cpu || in == NB_F64 ? NB_F64 : NB_F32) : NB_I64);
    if (st == NB_OK && dst == NULL && target->dtype != result) { /* CUDA's integer scans: int64 into the result */
        nb_tensor* r = NULL;
        st = nb_tensor_to(target, result, dev, di, 0, &r);
        nb_tensor_release(target);
        target = r;
    }
    if (st == NB_OK && dst != NULL && target != dst) st = nb_copy_into(op, dst, target);
    nb_tensor_release(x);
    if (st != NB_OK) {
        nb_tensor_release(target);
        return st;
    }
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        nb_tensor_release(target);
        if (out == NULL) return NB_OK;
        nb_tensor_retain(target = dst);
    }
    *out = target;
    return NB_OK;
}

nb_status nbi_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return scan("cumsum", false, t, dim, dtype, dst, out);
}

nb_status nbi_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return scan("cumprod", true, t, dim, dtype, dst, out);
}
