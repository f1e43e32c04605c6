/* softmax.c: softmax and log_softmax along one dim.
 *
 * The front end plans once and calls the lines slot (lines_engine.c); CUDA's
 * kernels are src/cuda/lines.cu. For the CPU kernels below the input is cast
 * (dtype argument; float16 / bfloat16 compute in float32 and are rounded once
 * at the end) and made contiguous, so it reads as
 * [outer, L, inner]. inner == 1: each row is three passes over cached data
 * (max; exp(x - max) and its sum; scale) with a 16-lane float32 exp. Otherwise
 * tiles of up to 256 inner positions are processed together, vectorised
 * across the tile. Rows and tiles are independent: threads never change a
 * result. A NaN in a row makes the row NaN, as does a row of -inf. The exp is
 * reduce.h's nb_vexp16 (about 1 ulp). */
#include "lines.h"

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

nb_status nb_cpu_softmax_lines(const nb_bk_lines* pl) {
    if ((pl->in_dtype != NB_F32 && pl->in_dtype != NB_F64) || pl->out_dtype != pl->in_dtype)
        return nb_error(NB_ERR_DTYPE, "%s: the CPU kernel takes float32 or float64, got %s", pl->name,
                        nb_dtype_str(pl->in_dtype));
    int64_t numel = 1;
    for (int32_t i = 0; i < pl->ndim; i++) numel *= pl->shape[i];
    const sm_plan p = {.x = pl->in, .out = pl->out, .f64 = pl->in_dtype == NB_F64,
                       .logsm = pl->op == NB_LK_LOG_SOFTMAX, .l = nb_lines_along(pl->shape, pl->ndim, pl->dim)};
    nb_lines_run(&p.l, numel, run_item, &p);
    return NB_OK;
}

/* The CPU kernels read contiguous float32 / float64 (the half types cast up);
 * CUDA reads the input as it is and computes half types in float32. */
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
    const int32_t in = !cpu ? result : result == NB_F64 ? NB_F64 : NB_F32;
    nb_tensor *cast = NULL, *x = NULL, *computed = NULL, *target = NULL;
    if (t->dtype != in) st = nb_tensor_to(t, in, dev, di, 0, &cast);
    if (st == NB_OK && cpu) st = nb_tensor_contiguous(cast ? cast : t, &x);
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
