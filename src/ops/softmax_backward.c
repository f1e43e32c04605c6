/* softmax_backward.c: the fused gradients of softmax and log_softmax along one
 * dim, from the forward's result y and the output gradient g (PyTorch's
 * _softmax_backward_data / _log_softmax_backward_data):
 *   softmax:     gx = y (g - sum(g y))
 *   log_softmax: gx = g - exp(y) sum(g)
 * The front end plans once and calls the lines slot (lines_engine.c; CUDA:
 * src/cuda/lines.cu). For the CPU kernels below
 * g and y are cast to the compute dtype (float32; float64 stays float64; the
 * half types are rounded once at the end) and made contiguous, read as
 * [outer, L, inner]: one pass for the sums, one for the result. Rows (inner == 1)
 * or tiles of up to TILE inner positions are independent: threads never change a
 * result. Sums: 16 float lanes then double for float32 rows, double otherwise. */
#include "lines.h"

#define TILE NB_LINES_TILE

typedef struct {
    const char *g, *y;
    char* out;
    nb_lines l;
    bool f64, logsm;
} bw_plan;

/* One contiguous float32 row. */
NB_SIMD static void row_f32(const float* g, const float* y, float* o, int64_t n, bool logsm) {
    int64_t i;
    nb_v16f acc = {0};
    for (i = 0; i + 16 <= n; i += 16) acc += logsm ? nb_ld16f(g + i) : nb_ld16f(g + i) * nb_ld16f(y + i);
    const nb_v8d wide = nb_widen_sum(&acc);
    double s = 0;
    for (int k = 0; k < 8; k++) s += wide[k];
    for (; i < n; i++) s += logsm ? (double)g[i] : (double)g[i] * y[i];
    const float sf = (float)s;
    if (logsm) {
        for (i = 0; i + 16 <= n; i += 16) {
            const nb_v16f yv = nb_ld16f(y + i);
            nb_st16f(o + i, nb_ld16f(g + i) - nb_vexp16(&yv) * sf);
        }
        if (i < n) {
            const nb_v16f yv = nb_ld16f_tail(y + i, n - i, 0), e = nb_vexp16(&yv);
            for (int64_t k = 0; k < n - i; k++) o[i + k] = g[i + k] - e[k] * sf;
        }
    } else {
        for (i = 0; i + 16 <= n; i += 16) nb_st16f(o + i, nb_ld16f(y + i) * (nb_ld16f(g + i) - sf));
        for (; i < n; i++) o[i] = y[i] * (g[i] - sf);
    }
}

/* A tile of m <= TILE float32 columns (stride `inner` between rows). */
NB_SIMD static void cols_f32(const float* g, const float* y, float* o, int64_t len, int64_t inner, int64_t m,
                             bool logsm) {
    double s[TILE];
    _Alignas(64) float sf[TILE + 16];
    for (int64_t j = 0; j < m; j++) s[j] = 0;
    for (int64_t i = 0; i < len; i++) {
        const float *gr = g + i * inner, *yr = y + i * inner;
        if (logsm) for (int64_t j = 0; j < m; j++) s[j] += gr[j];
        else for (int64_t j = 0; j < m; j++) s[j] += (double)gr[j] * yr[j];
    }
    for (int64_t j = 0; j < m; j++) sf[j] = (float)s[j];
    for (int64_t i = 0; i < len; i++) {
        const float *gr = g + i * inner, *yr = y + i * inner;
        float* w = o + i * inner;
        if (!logsm) {
            for (int64_t j = 0; j < m; j++) w[j] = yr[j] * (gr[j] - sf[j]);
            continue;
        }
        int64_t j = 0;
        for (; j + 16 <= m; j += 16) {
            const nb_v16f yv = nb_ld16f(yr + j);
            nb_st16f(w + j, nb_ld16f(gr + j) - nb_vexp16(&yv) * nb_ld16f(sf + j));
        }
        if (j < m) {
            const nb_v16f yv = nb_ld16f_tail(yr + j, m - j, 0), e = nb_vexp16(&yv);
            for (int64_t k = 0; k < m - j; k++) w[j + k] = gr[j + k] - e[k] * sf[j + k];
        }
    }
}

/* float64: one line (stride s elements) at a time, libm's exp. */
static void line_f64(const double* g, const double* y, double* o, int64_t n, int64_t s, bool logsm) {
    double sum = 0;
    for (int64_t i = 0; i < n; i++) sum += logsm ? g[i * s] : g[i * s] * y[i * s];
    if (logsm) for (int64_t i = 0; i < n; i++) o[i * s] = g[i * s] - exp(y[i * s]) * sum;
    else for (int64_t i = 0; i < n; i++) o[i * s] = y[i * s] * (g[i * s] - sum);
}

static void run_item(const void* vp, int64_t item) {
    const bw_plan* p = vp;
    int64_t off, m;
    nb_lines_item(&p->l, item, &off, &m);
    if (p->f64) {
        const double *g = (const double*)p->g + off, *y = (const double*)p->y + off;
        double* o = (double*)p->out + off;
        const int64_t step = p->l.inner == 1 ? p->l.len : 1; /* from one line to the next */
        for (int64_t j = 0; j < m; j++)
            line_f64(g + j * step, y + j * step, o + j * step, p->l.len, p->l.inner, p->logsm);
    } else if (p->l.inner == 1) {
        for (int64_t r = 0; r < m; r++) {
            const int64_t o = off + r * p->l.len;
            row_f32((const float*)p->g + o, (const float*)p->y + o, (float*)p->out + o, p->l.len, p->logsm);
        }
    } else {
        cols_f32((const float*)p->g + off, (const float*)p->y + off, (float*)p->out + off, p->l.len, p->l.inner, m,
                 p->logsm);
    }
}

nb_status nb_cpu_softmax_backward_lines(const nb_bk_lines* pl) {
    if ((pl->in_dtype != NB_F32 && pl->in_dtype != NB_F64) || pl->out_dtype != pl->in_dtype)
        return nb_error(NB_ERR_DTYPE, "%s: the CPU kernel takes float32 or float64, got %s", pl->name,
                        nb_dtype_str(pl->in_dtype));
    int64_t numel = 1;
    for (int32_t i = 0; i < pl->ndim; i++) numel *= pl->shape[i];
    const bw_plan p = {.g = pl->in, .y = pl->aux, .out = pl->out, .f64 = pl->in_dtype == NB_F64,
                       .logsm = pl->op == NB_LK_LOG_SOFTMAX_BACKWARD,
                       .l = nb_lines_along(pl->shape, pl->ndim, pl->dim)};
    nb_lines_run(&p.l, numel, run_item, &p);
    return NB_OK;
}

/* t in dtype `in` (a new reference): contiguous for the CPU kernels, as it is for CUDA's. */
static nb_status compute_copy(const nb_tensor* t, int32_t in, nb_tensor** out) {
    const int32_t dev = t->storage->device_type;
    nb_tensor* cast = NULL;
    nb_status st = t->dtype != in ? nb_tensor_to(t, in, dev, t->storage->device_index, 0, &cast) : NB_OK;
    if (st == NB_OK && dev == NB_CPU) st = nb_tensor_contiguous(cast ? cast : t, out);
    else if (st == NB_OK) nb_tensor_retain(*out = cast ? cast : (nb_tensor*)t);
    nb_tensor_release(cast);
    return st;
}

static nb_status backward_impl(const char* op, bool logsm, const nb_tensor* g, const nb_tensor* y, int64_t dim,
                               nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_red_check(op, y, dst, out, NB_FAMILY_LINES);
    if (st != NB_OK) return st;
    NB_CHECK_TENSOR(op, g);
    if (g->storage->device_type != y->storage->device_type || g->storage->device_index != y->storage->device_index)
        return nb_error(NB_ERR_DEVICE, "%s: grad_output is on %s:%d but output is on %s:%d", op,
                        nb_device_type_name(g->storage->device_type), (int)g->storage->device_index,
                        nb_device_type_name(y->storage->device_type), (int)y->storage->device_index);
    if (g->ndim != y->ndim || memcmp(g->shape, y->shape, sizeof(int64_t) * (size_t)y->ndim) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: grad_output has shape %s but output has shape %s", op,
                        nb_shape_str(g->shape, g->ndim), nb_shape_str(y->shape, y->ndim));
    if (!nb_dtype_is_floating(y->dtype) || g->dtype != y->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: expected grad_output and output of one floating dtype, got %s and %s", op,
                        nb_dtype_str(g->dtype), nb_dtype_str(y->dtype));
    int32_t d;
    if ((st = nb_wrap_dim(op, dim, y->ndim, &d)) != NB_OK) return st;
    const int32_t dev = y->storage->device_type, di = y->storage->device_index;
    const bool cpu = dev == NB_CPU;
    const nb_tensor* inputs[2] = {g, y};
    if (dst != NULL && (st = nb_check_dst(op, dst, inputs, 2, y->shape, y->ndim, y->dtype, dev)) != NB_OK) return st;
    const int32_t in = !cpu ? y->dtype : y->dtype == NB_F64 ? NB_F64 : NB_F32;
    nb_tensor *gc = NULL, *yc = NULL, *computed = NULL, *target = NULL;
    st = compute_copy(g, in, &gc);
    if (st == NB_OK) st = compute_copy(y, in, &yc);
    if (st == NB_OK && dst != NULL) target = dst;
    else if (st == NB_OK) st = nb_tensor_new(op, y->shape, y->ndim, y->dtype, dev, di, &target);
    if (st == NB_OK) { /* write the result in place unless it overlaps an input read later */
        if (target->dtype == in && (target->contiguous || !cpu) && target->storage != gc->storage &&
            target->storage != yc->storage)
            nb_tensor_retain(computed = target);
        else
            st = nb_tensor_new(op, y->shape, y->ndim, in, dev, di, &computed);
    }
    if (st == NB_OK)
        st = nb_lines_launch(op, logsm ? NB_LK_LOG_SOFTMAX_BACKWARD : NB_LK_SOFTMAX_BACKWARD, d, gc, yc, computed,
                             in == NB_F64 ? NB_F64 : NB_F32);
    if (st == NB_OK && computed != target) st = nb_copy_into(op, target, computed);
    nb_tensor_release(computed);
    nb_tensor_release(gc);
    nb_tensor_release(yc);
    return nb_op_finish(st, dst, target, out);
}

nb_status nbi_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst,
                               nb_tensor** out) {
    return backward_impl("softmax_backward", false, grad_output, output, dim, dst, out);
}

nb_status nbi_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim,
                                   nb_tensor* dst, nb_tensor** out) {
    return backward_impl("log_softmax_backward", true, grad_output, output, dim, dst, out);
}
