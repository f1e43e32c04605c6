/* softmax.c: softmax and log_softmax along one dim.
 *
 * The front end plans once and calls the lines slot (lines_engine.c); CUDA's
 * kernels are src/cuda/lines.cu. For the CPU kernels below the input is cast
 * (dtype argument; float16 / bfloat16 compute in float32 and are rounded once
 * at the end) and made contiguous, so it reads as [outer, L, inner], unless
 * its lines are the result's rows and it is float16 / bfloat16 or strided
 * float32: then they are gathered (below) and nothing is copied first. inner == 1: each row is three passes over cached data
 * (max; exp(x - max) and its sum; scale) with a 16-lane float32 exp. Otherwise
 * tiles of up to 256 inner positions are processed together, vectorised
 * across the tile. Rows and tiles are independent: threads never change a
 * result. A NaN in a row makes the row NaN, as does a row of -inf. The exp is
 * reduce.h's nb_vexp16 (about 1 ulp). */
#include "lines.h"
#include "../alloc/cpu_allocator.h"

#include <math.h>

#define TILE NB_LINES_TILE

NB_INLINE float hmax16(const nb_v16f* p) {
    const nb_v16f v = *p;
    float m = v[0];
    for (int k = 1; k < 16; k++) m = v[k] > m ? v[k] : m;
    return m;
}

NB_INLINE void st_tail(float* p, const nb_v16f* v, int64_t n) {
    for (int64_t k = 0; k < n; k++) p[k] = (*v)[k];
}

/* One contiguous float32 row. */
NB_SIMD static void row_f32(const float* x, float* o, int64_t n, bool logsm) {
    int64_t i;
    nb_v16f mv = (nb_v16f){0} - INFINITY;
    for (i = 0; i + 16 <= n; i += 16) {
        nb_v16f v = nb_ld16f(x + i);
        mv = nb_sel16f(v > mv, v, mv);
    }
    if (i < n) {
        nb_v16f v = nb_ld16f_tail(x + i, n - i, -INFINITY);
        mv = nb_sel16f(v > mv, v, mv);
    }
    const float mx = hmax16(&mv);
    nb_v16f sv = {0};
    for (i = 0; i + 16 <= n; i += 16) {
        const nb_v16f d = nb_ld16f(x + i) - mx;
        nb_v16f e = nb_vexp16(&d);
        sv += e;
        if (!logsm) nb_st16f(o + i, e);
    }
    if (i < n) {
        const nb_v16f d = nb_ld16f_tail(x + i, n - i, -INFINITY) - mx;
        nb_v16f e = nb_vexp16(&d);
        sv += e;
        if (!logsm) st_tail(o + i, &e, n - i);
    }
    /* x - max is NaN for a NaN element or a row of -inf: the sum then is NaN too. */
    double sum = 0;
    for (int k = 0; k < 16; k++) sum += sv[k];
    if (logsm) {
        const float ls = (float)log(sum);
        for (i = 0; i + 16 <= n; i += 16) nb_st16f(o + i, (nb_ld16f(x + i) - mx) - ls);
        for (; i < n; i++) o[i] = (x[i] - mx) - ls;
    } else {
        const float inv = (float)(1.0 / sum);
        for (i = 0; i + 16 <= n; i += 16) nb_st16f(o + i, nb_ld16f(o + i) * inv);
        for (; i < n; i++) o[i] *= inv;
    }
}

/* A tile of m <= TILE float32 columns (stride `inner` between rows). */
NB_SIMD static void cols_f32(const float* x, float* o, int64_t len, int64_t inner, int64_t m, bool logsm) {
    _Alignas(64) float mx[TILE], sm[TILE];
    for (int64_t j = 0; j < m; j++) mx[j] = -INFINITY, sm[j] = 0;
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * inner;
        for (int64_t j = 0; j < m; j++) mx[j] = r[j] > mx[j] ? r[j] : mx[j];
    }
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * inner;
        float* w = o + i * inner;
        int64_t j = 0;
        for (; j + 16 <= m; j += 16) {
            const nb_v16f d = nb_ld16f(r + j) - nb_ld16f(mx + j);
            nb_v16f e = nb_vexp16(&d);
            nb_st16f(sm + j, nb_ld16f(sm + j) + e);
            if (!logsm) nb_st16f(w + j, e);
        }
        if (j < m) {
            const nb_v16f d = nb_ld16f_tail(r + j, m - j, -INFINITY) - nb_ld16f_tail(mx + j, m - j, 0);
            nb_v16f e = nb_vexp16(&d);
            for (int64_t k = 0; k < m - j; k++) {
                sm[j + k] += e[k];
                if (!logsm) w[j + k] = e[k];
            }
        }
    }
    for (int64_t j = 0; j < m; j++) sm[j] = logsm ? logf(sm[j]) : 1.0f / sm[j];
    for (int64_t i = 0; i < len; i++) {
        const float* r = x + i * inner;
        float* w = o + i * inner;
        if (logsm) for (int64_t j = 0; j < m; j++) w[j] = (r[j] - mx[j]) - sm[j];
        else for (int64_t j = 0; j < m; j++) w[j] *= sm[j];
    }
}

/* float64: the same passes with libm's exp, one column (stride s elements) at a time for tiles. */
static void line_f64(const double* x, double* o, int64_t n, int64_t s, bool logsm) {
    double mx = -INFINITY, sum = 0;
    for (int64_t i = 0; i < n; i++) mx = x[i * s] > mx ? x[i * s] : mx;
    for (int64_t i = 0; i < n; i++) {
        double e = exp(x[i * s] - mx);
        sum += e;
        if (!logsm) o[i * s] = e;
    }
    if (logsm) {
        const double ls = log(sum);
        for (int64_t i = 0; i < n; i++) o[i * s] = (x[i * s] - mx) - ls;
    } else {
        const double inv = 1.0 / sum;
        for (int64_t i = 0; i < n; i++) o[i * s] *= inv;
    }
}

typedef struct {
    const char* x;
    char* out;
    nb_lines l;
    bool f64, logsm;
} sm_plan;

static void run_item(const void* vp, int64_t item) {
    const sm_plan* p = vp;
    int64_t off, m;
    nb_lines_item(&p->l, item, &off, &m);
    if (p->f64) {
        const double* x = (const double*)p->x + off;
        double* o = (double*)p->out + off;
        for (int64_t j = 0; j < m; j++) line_f64(x + j, o + j, p->l.len, p->l.inner, p->logsm);
    } else if (p->l.inner == 1) {
        row_f32((const float*)p->x + off, (float*)p->out + off, p->l.len, p->logsm);
    } else {
        cols_f32((const float*)p->x + off, (float*)p->out + off, p->l.len, p->l.inner, m, p->logsm);
    }
}

/* ---- strided float32, float16 / bfloat16 input: lines gathered into float32 ----
 * Groups of up to GATHER lines (in the output's order) are read into a
 * float32 buffer, GATHER_STEP elements of each line in turn (adjacent lines
 * of a transposed input share cache lines), then each buffered line is a
 * contiguous row_f32 and is stored into the contiguous output in its dtype.
 * Each line is computed on its own (row_f32's arithmetic, whatever the
 * layout), so neither the grouping nor the thread count changes a result. */
#define GATHER 16
#define GATHER_STEP 64
#define GATHER_MAX_FLOATS NB_LINES_GATHER_MAX /* per thread */

typedef struct {
    const char* x;
    char* out;
    int32_t dtype, ndim, dim;
    bool logsm;
    int64_t shape[NB_MAX_DIMS], xs[NB_MAX_DIMS]; /* input strides in bytes */
    int64_t len, inner, lines, group;
    int64_t pitch; /* floats from one buffered line to the next: len rounded up, plus a cache line against L1 aliasing */
    float* bufs;   /* group * pitch floats per thread */
} gather_plan;

NB_INLINE float load_f(const char* p, int32_t dtype) {
    uint16_t h;
    if (dtype == NB_F32) { float f; memcpy(&f, p, sizeof f); return f; }
    memcpy(&h, p, sizeof h);
    if (dtype == NB_F16) return nb_half_to_float(h);
    const uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Rounds to nearest even as nb_float_to_bf16 (NaN kept quiet), inline for the store loop. */
NB_INLINE uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Input byte offset of line q (lines numbered in the output's row-major order, dim left out). */
static int64_t line_offset(const gather_plan* p, int64_t q) {
    int64_t off = 0;
    for (int32_t d = p->ndim - 1; d >= 0; d--) {
        if (d == p->dim) continue;
        off += (q % p->shape[d]) * p->xs[d];
        q /= p->shape[d];
    }
    return off;
}

NB_SIMD static void gather_group(const gather_plan* p, int64_t q0, int64_t g, float* buf) {
    const int64_t len = p->len, sl = p->xs[p->dim], pitch = p->pitch;
    const char* src[GATHER];
    for (int64_t k = 0; k < g; k++) src[k] = p->x + line_offset(p, q0 + k);
    const int64_t isz = nb_dtype_sizes[p->dtype];
    bool adjacent = g > 1 && llabs(sl) > isz;
    for (int64_t k = 1; k < g && adjacent; k++) adjacent = src[k] - src[0] == k * isz;
    if (adjacent) {
        /* adjacent lines (a transposed input): a row of the group at a time, so
         * that each cache line is read once even when the rows alias in L1 */
        for (int64_t i = 0; i < len; i++) {
            const char* r = src[0] + i * sl;
            if (p->dtype == NB_BF16)
                for (int64_t k = 0; k < g; k++) buf[k * pitch + i] = load_f(r + 2 * k, NB_BF16);
            else if (p->dtype == NB_F32)
                for (int64_t k = 0; k < g; k++) buf[k * pitch + i] = load_f(r + 4 * k, NB_F32);
            else
                for (int64_t k = 0; k < g; k++) buf[k * pitch + i] = load_f(r + 2 * k, NB_F16);
        }
        return;
    }
    for (int64_t i0 = 0; i0 < len; i0 += GATHER_STEP) {
        const int64_t ie = len - i0 < GATHER_STEP ? len : i0 + GATHER_STEP;
        for (int64_t k = 0; k < g; k++) {
            float* d = buf + k * pitch;
            const char* s = src[k];
            if (p->dtype == NB_BF16 && sl == 2) { /* contiguous lines: a loop GCC vectorises */
                const uint16_t* h = (const uint16_t*)s;
                uint32_t* u = (uint32_t*)d;
                for (int64_t i = i0; i < ie; i++) u[i] = (uint32_t)h[i] << 16;
            } else if (p->dtype == NB_F32 && sl == 4) {
                memcpy(d + i0, (const float*)s + i0, sizeof(float) * (size_t)(ie - i0));
            } else if (p->dtype == NB_BF16) {
                for (int64_t i = i0; i < ie; i++) d[i] = load_f(s + i * sl, NB_BF16);
            } else if (p->dtype == NB_F32) {
                for (int64_t i = i0; i < ie; i++) d[i] = load_f(s + i * sl, NB_F32);
            } else {
                for (int64_t i = i0; i < ie; i++) d[i] = load_f(s + i * sl, NB_F16);
            }
        }
    }
}

/* Line q of the output: row_f32's result in b, stored with stride `inner` elements. */
NB_SIMD static void store_line(const gather_plan* p, int64_t q, const float* b) {
    const int64_t o = q / p->inner, j = q % p->inner, st = p->inner, len = p->len;
    const int64_t first = o * len * p->inner + j;
    if (p->dtype == NB_F32) {
        float* w = (float*)p->out + first;
        for (int64_t i = 0; i < len; i++) w[i * st] = b[i];
    } else if (p->dtype == NB_BF16 && st == 1) {
        uint16_t* w = (uint16_t*)p->out + first;
        for (int64_t i = 0; i < len; i++) w[i] = to_bf16(b[i]);
    } else if (p->dtype == NB_BF16) {
        uint16_t* w = (uint16_t*)p->out + first;
        for (int64_t i = 0; i < len; i++) w[i * st] = to_bf16(b[i]);
    } else {
        uint16_t* w = (uint16_t*)p->out + first;
        for (int64_t i = 0; i < len; i++) w[i * st] = nb_float_to_half(b[i]);
    }
}

static void gather_item(const gather_plan* p, int64_t item, float* buf) {
    const int64_t q0 = item * p->group, g = p->lines - q0 < p->group ? p->lines - q0 : p->group;
    gather_group(p, q0, g, buf);
    for (int64_t k = 0; k < g; k++) {
        float* b = buf + k * p->pitch;
        row_f32(b, b, p->len, p->logsm);
        store_line(p, q0 + k, b);
    }
}

/* The plan's input is not a contiguous float32 / float64 tensor: gathered
 * lines when they fit the buffers (returns false when they do not). */
static bool softmax_gathered(const nb_bk_lines* pl, int64_t numel, nb_status* st) {
    gather_plan p = {.x = pl->in, .out = pl->out, .dtype = pl->in_dtype, .ndim = pl->ndim, .dim = pl->dim,
                     .logsm = pl->op == NB_LK_LOG_SOFTMAX};
    const int64_t isz = nb_dtype_sizes[pl->in_dtype];
    for (int32_t d = 0; d < pl->ndim; d++) p.shape[d] = pl->shape[d], p.xs[d] = pl->in_strides[d] * isz;
    const nb_lines l0 = nb_lines_along(pl->shape, pl->ndim, pl->dim);
    p.len = l0.len, p.inner = l0.inner, p.lines = numel / l0.len;
    if (p.len > GATHER_MAX_FLOATS) return false;
    p.pitch = (p.len + 15) / 16 * 16 + 16;
    p.group = GATHER_MAX_FLOATS / p.pitch < GATHER ? GATHER_MAX_FLOATS / p.pitch : GATHER;
    if (p.group < 1) p.group = 1;
    const int64_t items = (p.lines + p.group - 1) / p.group;
    int nthreads = 1;
#ifdef _OPENMP
    const bool par = numel >= NB_LINES_GRAIN && items > 1 && omp_get_max_threads() > 1 && !omp_in_parallel();
    if (par) nthreads = omp_get_max_threads();
#endif
    const size_t per = (size_t)(p.group * p.pitch), bytes = per * sizeof(float) * (size_t)nthreads;
    p.bufs = nb_cpu_alloc(bytes);
    if (p.bufs == NULL) {
        *st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes of line buffers", pl->name, bytes);
        return true;
    }
#ifdef _OPENMP
    if (par) {
#pragma omp parallel num_threads(nthreads)
        {
            float* buf = p.bufs + per * (size_t)omp_get_thread_num();
#pragma omp for schedule(dynamic, NB_GRAB(items))
            for (int64_t it = 0; it < items; it++) gather_item(&p, it, buf);
        }
    } else
#endif
    {
        for (int64_t it = 0; it < items; it++) gather_item(&p, it, p.bufs);
    }
    nb_cpu_free(p.bufs, bytes);
    *st = NB_OK;
    return true;
}

nb_status nb_cpu_softmax_lines(const nb_bk_lines* pl) {
    if (pl->out_dtype != pl->in_dtype ||
        (pl->in_dtype != NB_F32 && pl->in_dtype != NB_F64 && pl->in_dtype != NB_F16 && pl->in_dtype != NB_BF16))
        return nb_error(NB_ERR_DTYPE, "%s: the CPU kernel takes float32, float64, float16 or bfloat16, got %s",
                        pl->name, nb_dtype_str(pl->in_dtype));
    int64_t numel = 1;
    for (int32_t i = 0; i < pl->ndim; i++) numel *= pl->shape[i];
    nb_status st;
    if (!nb_lines_contiguous(pl, pl->in_strides) || (pl->in_dtype != NB_F32 && pl->in_dtype != NB_F64)) {
        if (pl->in_dtype != NB_F64 && softmax_gathered(pl, numel, &st)) return st;
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: no CPU kernel for this %s input", pl->name,
                        nb_dtype_str(pl->in_dtype));
    }
    const sm_plan p = {.x = pl->in, .out = pl->out, .f64 = pl->in_dtype == NB_F64,
                       .logsm = pl->op == NB_LK_LOG_SOFTMAX, .l = nb_lines_along(pl->shape, pl->ndim, pl->dim)};
    nb_lines_run(&p.l, numel, run_item, &p);
    return NB_OK;
}

/* Whether the CPU gathers t's lines along d: they are the rows of the result
 * (d is the last dim of size > 1) and not too long; results whose lines are
 * strided go to the column kernel, which writes whole rows of a tile. */
static bool gather_fits(const nb_tensor* t, int32_t d) {
    if (t->ndim == 0) return true;
    for (int32_t i = d + 1; i < t->ndim; i++)
        if (t->shape[i] != 1) return false;
    return t->shape[d] <= NB_LINES_GATHER_MAX;
}

/* The CPU kernels read contiguous float32 / float64, and float16 / bfloat16 or
 * strided float32 through line buffers (others are cast up and made
 * contiguous); CUDA reads the input as it is and computes half types in float32. */
static nb_status softmax_impl(const char* op, bool logsm, const nb_tensor* t, int64_t dim, int32_t dtype,
                              nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, t, dst, out, NB_FAMILY_LINES);
    if (st != NB_OK || (st = nb_red_check_dtype(op, dtype)) != NB_OK) return st;
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, t->ndim, &d)) != NB_OK) return st;
    const int32_t result = dtype >= 0 ? dtype : t->dtype;
    if (!nb_dtype_is_floating(result))
        return nb_error(NB_ERR_DTYPE, "%s: not implemented for '%s' (pass a floating point dtype)", op,
                        nb_dtype_str(result));
    const int32_t dev = t->storage->device_type, di = t->storage->device_index;
    if (dst != NULL && (st = nb_check_dst(op, dst, &t, 1, t->shape, t->ndim, result, dev)) != NB_OK) return st;
    const bool cpu = dev == NB_CPU;
    /* the CPU kernel reads float16 / bfloat16 and strided float32 lines itself (gathered) */
    const bool gathered = cpu && result == t->dtype && gather_fits(t, d) &&
                          (t->dtype == NB_F16 || t->dtype == NB_BF16 || (t->dtype == NB_F32 && !t->contiguous));
    const int32_t in = !cpu || gathered ? result : result == NB_F64 ? NB_F64 : NB_F32;
    nb_tensor *cast = NULL, *x = NULL, *computed = NULL, *target = NULL;
    if (t->dtype != in) st = nb_tensor_to(t, in, dev, di, 0, &cast);
    if (st == NB_OK && cpu && !gathered) st = nb_tensor_contiguous(cast ? cast : t, &x);
    else if (st == NB_OK) nb_tensor_retain(x = cast ? cast : (nb_tensor*)t);
    nb_tensor_release(cast);
    /* the kernel writes `computed` (dtype in; contiguous on the CPU); target is the result */
    if (st == NB_OK && dst != NULL) nb_tensor_retain(target = dst);
    else if (st == NB_OK) st = nb_tensor_new(op, t->shape, t->ndim, result, dev, di, &target);
    if (st == NB_OK) {
        if (target->dtype == in && (target->contiguous || !cpu) && target->storage != x->storage &&
            (dst == NULL || dst->storage != t->storage))
            nb_tensor_retain(computed = target);
        else
            st = nb_tensor_new(op, t->shape, t->ndim, in, dev, di, &computed);
    }
    if (st == NB_OK)
        st = nb_lines_launch(op, logsm ? NB_LK_LOG_SOFTMAX : NB_LK_SOFTMAX, d, x, NULL, computed,
                             in == NB_F64 ? NB_F64 : NB_F32);
    if (st == NB_OK && computed != target) st = nb_copy_into(op, target, computed);
    nb_tensor_release(computed);
    nb_tensor_release(x);
    if (st != NB_OK) {
        nb_tensor_release(target);
        return st;
    }
    if (dst != NULL) {
        nb_tensor_bump_version(dst);
        if (out == NULL) {
            nb_tensor_release(target);
            return NB_OK;
        }
    }
    *out = target;
    return NB_OK;
}

nb_status nbi_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return softmax_impl("softmax", false, t, dim, dtype, dst, out);
}

nb_status nbi_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    return softmax_impl("log_softmax", true, t, dim, dtype, dst, out);
}
