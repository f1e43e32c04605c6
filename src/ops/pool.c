/* pool.c: 2-D pooling, forward: max_pool2d (optionally with int64 indices, flat
 * per input plane as PyTorch's), avg_pool2d and adaptive_avg_pool2d. Planes
 * (image x channel) are independent and split across OpenMP threads.
 * float16/bfloat16 compute in float32. Integers as PyTorch's CPU kernels take
 * them: max_pool2d every integer dtype, avg_pool2d int64 (dividing with
 * truncation), adaptive_avg_pool2d none; bool nowhere. */
#include "nn_common.h"
#include "pool_device.h"

#include <math.h>
#include <string.h>

typedef struct {
    int64_t planes, H, W, OH, OW;
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
} pool_geom;

#define MAX_POOL(T, SUF, LOWEST)                                                                                \
    /* One window (rows [h0, h1) step dh): its max, NaN winning, and the flat index of the first max. */     \
    static inline void max_window_##SUF(const pool_geom* g, const T* in, int64_t h0, int64_t h1, int64_t ow,   \
                                        T* best_out, int64_t* idx_out) {                                      \
        int64_t w0 = ow * g->sw - g->pw;                                                                       \
        const int64_t w1 = w0 + (g->kw - 1) * g->dw + 1 < g->W ? w0 + (g->kw - 1) * g->dw + 1 : g->W;          \
        while (w0 < 0) w0 += g->dw;                                                                            \
        int64_t best_i = h0 * g->W + w0;                                                                       \
        T best = LOWEST;                                                                                       \
        for (int64_t ih = h0; ih < h1; ih += g->dh)                                                            \
            for (int64_t iw = w0; iw < w1; iw += g->dw) {                                                      \
                const T v = in[ih * g->W + iw];                                                                \
                if (v > best || v != v) {                                                                      \
                    best = v;                                                                                  \
                    best_i = ih * g->W + iw;                                                                   \
                }                                                                                              \
            }                                                                                                  \
        *best_out = best;                                                                                      \
        if (idx_out != NULL) *idx_out = best_i;                                                                \
    }                                                                                                          \
                                                                                                               \
    /* Columns [lo, hi) of an output row whose windows lie inside the input: the same scan, tap by tap over   \
     * the whole row, with selects instead of branches so that it vectorises along ow. */                      \
    NN_CLONES static void max_row_##SUF(const pool_geom* g, const T* in, int64_t h0, int64_t h1, int64_t lo,    \
                                        int64_t hi, T* o, int64_t* oi) {                                      \
        const int64_t sw = g->sw;                                                                              \
        for (int64_t ow = lo; ow < hi; ow++) o[ow] = LOWEST;                                                   \
        if (oi != NULL)                                                                                        \
            for (int64_t ow = lo; ow < hi; ow++) oi[ow] = h0 * g->W + ow * sw - g->pw;                         \
        for (int64_t ih = h0; ih < h1; ih += g->dh)                                                            \
            for (int64_t kj = 0; kj < g->kw; kj++) {                                                           \
                const int64_t base = ih * g->W + kj * g->dw - g->pw;                                           \
                const T* row = in + base;                                                                      \
                if (oi == NULL) {                                                                              \
                    for (int64_t ow = lo; ow < hi; ow++) {                                                     \
                        const T v = row[ow * sw];                                                              \
                        o[ow] = (v > o[ow]) | (v != v) ? v : o[ow];                                            \
                    }                                                                                          \
                } else {                                                                                       \
                    for (int64_t ow = lo; ow < hi; ow++) {                                                     \
                        const T v = row[ow * sw];                                                              \
                        const bool take = (v > o[ow]) | (v != v);                                              \
                        o[ow] = take ? v : o[ow];                                                              \
                        oi[ow] = take ? base + ow * sw : oi[ow];                                               \
                    }                                                                                          \
                }                                                                                              \
            }                                                                                                  \
    }                                                                                                          \
                                                                                                               \
    static void max_pool_##SUF(const pool_geom* g, const T* x, T* y, int64_t* idx, int nthreads) {             \
        /* interior columns: ow sw - pw >= 0 and ow sw - pw + (kw - 1) dw < W */                                \
        int64_t lo = (g->pw + g->sw - 1) / g->sw;                                                              \
        int64_t hi = g->W - 1 - (g->kw - 1) * g->dw + g->pw < 0 ? 0                                            \
                     : (g->W - 1 - (g->kw - 1) * g->dw + g->pw) / g->sw + 1;                                    \
        hi = hi < g->OW ? hi : g->OW;                                                                          \
        lo = lo < hi ? lo : hi;                                                                                \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                    \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                           \
            const T* in = x + pl * g->H * g->W;                                                                \
            for (int64_t oh = 0; oh < g->OH; oh++) {                                                           \
                int64_t h0 = oh * g->sh - g->ph;                                                               \
                const int64_t h1 = h0 + (g->kh - 1) * g->dh + 1 < g->H ? h0 + (g->kh - 1) * g->dh + 1 : g->H;  \
                while (h0 < 0) h0 += g->dh;                                                                    \
                T* o = y + (pl * g->OH + oh) * g->OW;                                                          \
                int64_t* oi = idx != NULL ? idx + (pl * g->OH + oh) * g->OW : NULL;                            \
                for (int64_t ow = 0; ow < lo; ow++) max_window_##SUF(g, in, h0, h1, ow, o + ow, oi ? oi + ow : NULL); \
                for (int64_t ow = hi; ow < g->OW; ow++)                                                        \
                    max_window_##SUF(g, in, h0, h1, ow, o + ow, oi ? oi + ow : NULL);                          \
                max_row_##SUF(g, in, h0, h1, lo, hi, o, oi);                                                   \
            }                                                                                                  \
        }                                                                                                      \
    }

#define AVG_POOL(T, SUF)                                                                                       \
    static void avg_pool_##SUF(const pool_geom* g, const T* x, T* y, bool count_include_pad, int64_t divisor,   \
                               int nthreads) {                                                                 \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                    \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                           \
            const T* in = x + pl * g->H * g->W;                                                                \
            T* o = y + pl * g->OH * g->OW;                                                                     \
            for (int64_t oh = 0; oh < g->OH; oh++)                                                             \
                for (int64_t ow = 0; ow < g->OW; ow++) {                                                       \
                    int64_t h0 = oh * g->sh - g->ph, w0 = ow * g->sw - g->pw;                                  \
                    int64_t h1 = h0 + g->kh < g->H + g->ph ? h0 + g->kh : g->H + g->ph;                        \
                    int64_t w1 = w0 + g->kw < g->W + g->pw ? w0 + g->kw : g->W + g->pw;                        \
                    const int64_t pool_size = (h1 - h0) * (w1 - w0);                                           \
                    h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;                                                \
                    h1 = h1 < g->H ? h1 : g->H, w1 = w1 < g->W ? w1 : g->W;                                    \
                    if (h0 >= h1 || w0 >= w1) {                                                                \
                        o[oh * g->OW + ow] = 0;                                                                \
                        continue;                                                                              \
                    }                                                                                          \
                    T sum = 0;                                                                                 \
                    for (int64_t ih = h0; ih < h1; ih++)                                                       \
                        for (int64_t iw = w0; iw < w1; iw++) sum += in[ih * g->W + iw];                        \
                    const int64_t div = divisor != 0 ? divisor                                                 \
                                        : count_include_pad ? pool_size                                        \
                                                            : (h1 - h0) * (w1 - w0);                           \
                    o[oh * g->OW + ow] = sum / (T)div;                                                         \
                }                                                                                              \
        }                                                                                                      \
    }

#define ADAPTIVE_AVG(T, SUF)                                                                                   \
    static void adaptive_avg_##SUF(const pool_geom* g, const T* x, T* y, int nthreads) {                       \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                    \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                           \
            const T* in = x + pl * g->H * g->W;                                                                \
            T* o = y + pl * g->OH * g->OW;                                                                     \
            for (int64_t oh = 0; oh < g->OH; oh++) {                                                           \
                const int64_t h0 = oh * g->H / g->OH, h1 = ((oh + 1) * g->H + g->OH - 1) / g->OH;              \
                for (int64_t ow = 0; ow < g->OW; ow++) {                                                       \
                    const int64_t w0 = ow * g->W / g->OW, w1 = ((ow + 1) * g->W + g->OW - 1) / g->OW;          \
                    T sum = 0;                                                                                 \
                    for (int64_t ih = h0; ih < h1; ih++)                                                       \
                        for (int64_t iw = w0; iw < w1; iw++) sum += in[ih * g->W + iw];                        \
                    o[oh * g->OW + ow] = sum / (T)((h1 - h0) * (w1 - w0));                                     \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
MAX_POOL(float, f32, -INFINITY)
MAX_POOL(double, f64, -INFINITY)
MAX_POOL(int8_t, i8, INT8_MIN)
MAX_POOL(int16_t, i16, INT16_MIN)
MAX_POOL(int32_t, i32, INT32_MIN)
MAX_POOL(int64_t, i64, INT64_MIN)
MAX_POOL(uint8_t, u8, 0)
AVG_POOL(float, f32)
AVG_POOL(double, f64)
AVG_POOL(int64_t, i64)  /* integer division truncates, as PyTorch's */
ADAPTIVE_AVG(float, f32)
ADAPTIVE_AVG(double, f64)
#pragma GCC diagnostic pop

/* Common checks: handles on one device, a 4-D input of a dtype the op takes: floats (computed as
 * *kd, float32 or float64), and the integer dtypes in `ints` (bit per dtype code,
 * computed in their own type); others are PyTorch's NotImplementedError. */
static nb_status pool_input(const char* op, const nb_tensor* input, nb_tensor* dst, nb_tensor** out, uint32_t ints,
                            int32_t* kd) {
    nb_status st;
    static const char* const names[2] = {"input", "out"};
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK ||
        (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[2]){input, dst}, 2)) != NB_OK)
        return st;
    if (input->ndim != 4)
        return nb_error(NB_ERR_SHAPE, "%s: expected input with 4 dims [N, C, H, W], got %s", op,
                        nb_shape_str(input->shape, input->ndim));
    if (nb_dtype_is_floating(input->dtype)) return nn_check_float(op, input, kd);
    if (!((ints >> input->dtype) & 1u))
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: \"%s\" not implemented for '%s'", op, op,
                        nb_dtype_torch_name(input->dtype));
    *kd = input->dtype;
    return NB_OK;
}

#define INTS_ALL ((1u << NB_I8) | (1u << NB_I16) | (1u << NB_I32) | (1u << NB_I64) | (1u << NB_U8))

/* kernel/stride/padding/dilation checks and the output size, as PyTorch's pool2d_shape_check. */
static nb_status pool_geometry(const char* op, const nb_tensor* input, const int64_t* k, const int64_t* s,
                               const int64_t* p, const int64_t* d, bool ceil_mode, pool_geom* g) {
    nb_status st;
    if ((st = nn_check_array(op, "kernel_size", k)) != NB_OK || (st = nn_check_array(op, "padding", p)) != NB_OK)
        return st;
    if (s == NULL) s = k;
    static const int64_t one[2] = {1, 1};
    if (d == NULL) d = one;
    if (k[0] <= 0 || k[1] <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: kernel size should be greater than zero, but got kH: %lld kW: %lld",
                        op, (long long)k[0], (long long)k[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: stride should be greater than zero, but got dH: %lld dW: %lld", op,
                        (long long)s[0], (long long)s[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: dilation should be greater than zero, but got dilationH: %lld dilationW: %lld", op,
                        (long long)d[0], (long long)d[1]);
    for (int i = 0; i < 2; i++)  /* keeps the size arithmetic far from overflow */
        if (k[i] > INT32_MAX || s[i] > INT32_MAX || p[i] > INT32_MAX || d[i] > INT32_MAX)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: kernel_size, stride, padding and dilation must be below 2^31",
                            op);
    if (p[0] < 0 || p[1] < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: pad must be non-negative, but got padH = %lld, padW = %lld", op,
                        (long long)p[0], (long long)p[1]);
    if (p[0] > k[0] / 2 || p[1] > k[1] / 2)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: pad should be smaller than or equal to half of kernel size, but got padW = %lld, padH = "
                        "%lld, kW = %lld, kH = %lld", op, (long long)p[1], (long long)p[0], (long long)k[1],
                        (long long)k[0]);
    const int64_t* sh = input->shape;
    if (sh[1] == 0 || sh[2] == 0 || sh[3] == 0)
        return nb_error(NB_ERR_SHAPE,
                        "%s: expected a 4-D input [N, C, H, W] with non-zero C, H, W (N may be 0), but got %s", op,
                        nb_shape_str(sh, 4));
    memset(g, 0, sizeof *g);
    g->planes = sh[0] * sh[1], g->H = sh[2], g->W = sh[3];
    g->kh = k[0], g->kw = k[1], g->sh = s[0], g->sw = s[1], g->ph = p[0], g->pw = p[1], g->dh = d[0], g->dw = d[1];
    g->OH = nn_pool_out(g->H, k[0], p[0], s[0], d[0], ceil_mode);
    g->OW = nn_pool_out(g->W, k[1], p[1], s[1], d[1], ceil_mode);
    if (g->OH < 1 || g->OW < 1)
        return nb_error(NB_ERR_SHAPE, "%s: Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
                        "Output size is too small", op, (long long)sh[1], (long long)g->H, (long long)g->W,
                        (long long)sh[1], (long long)g->OH, (long long)g->OW);
    return NB_OK;
}

/* A forward pooling on a device: the input read in place with its strides (the narrow integers
 * widened to int64 first), the output (and indices) new on its device, then delivered. */
static nb_status pool_forward_device(const char* op, nb_bk_pool* p, const nb_tensor* input, int64_t oh, int64_t ow,
                                     nb_tensor** indices, nb_tensor* dst, nb_tensor** out) {
    const int32_t cd = nb_dtype_is_floating(input->dtype) ? input->dtype : NB_I64;
    const int64_t shape[4] = {input->shape[0], input->shape[1], oh, ow};
    nb_tensor *x = NULL, *y = NULL, *idx = NULL;
    nb_status st = NB_OK;
    if (cd != input->dtype) st = nn_contig(input, cd, &x);
    if (st == NB_OK) st = nn_pool_empty_like_device(op, input, shape, 4, cd, &y);
    if (st == NB_OK && indices != NULL) st = nn_pool_empty_like_device(op, input, shape, 4, NB_I64, &idx);
    if (st == NB_OK) st = nn_pool_launch(op, p, x != NULL ? x : input, y, idx);
    nb_tensor_release(x);
    if (st != NB_OK) {
        nn_release(y, idx, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    if ((st = nn_deliver(op, y, input->dtype, dst, out)) != NB_OK) {
        nb_tensor_release(idx);
        return st;
    }
    if (indices != NULL) *indices = idx;
    return NB_OK;
}

/* The window attributes of a 2-D plan. */
static void plan_window(nb_bk_pool* p, int32_t kind, const pool_geom* g) {
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->kernel[0] = g->kh, p->kernel[1] = g->kw, p->stride[0] = g->sh, p->stride[1] = g->sw;
    p->padding[0] = g->ph, p->padding[1] = g->pw, p->dilation[0] = g->dh, p->dilation[1] = g->dw;
}

nb_status nbi_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride,
                               const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices,
                               nb_tensor* dst, nb_tensor** out) {
    static const char* op = "max_pool2d";
    int32_t kd;
    pool_geom g;
    nb_status st = pool_input(op, input, dst, out, INTS_ALL, &kd);
    if (st == NB_OK) st = pool_geometry(op, input, kernel_size, stride, padding, dilation, ceil_mode != 0, &g);
    if (st != NB_OK) return st;
    if (nn_pool_on_device(input)) {
        nb_bk_pool p;
        plan_window(&p, NB_PK_MAX, &g);
        return pool_forward_device(op, &p, input, g.OH, g.OW, indices, dst, out);
    }
    const int64_t shape[4] = {input->shape[0], input->shape[1], g.OH, g.OW};
    nb_tensor *x = NULL, *y = NULL, *idx = NULL;
    if ((st = nn_contig(input, kd, &x)) != NB_OK ||
        (st = nn_output(op, shape, 4, kd, input->dtype, dst, &input, 1, &y)) != NB_OK ||
        (indices != NULL && (st = nn_empty(op, shape, 4, NB_I64, &idx)) != NB_OK)) {
        nn_release(x, y, idx, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    int nthreads = nn_threads((double)g.planes * (double)(g.OH * g.OW) * (double)(g.kh * g.kw));
    int64_t* ip = idx != NULL ? nb_tensor_data(idx) : NULL;
    void *xp = nb_tensor_data(x), *yp = nb_tensor_data(y);
    switch (kd) {
    case NB_F32: max_pool_f32(&g, xp, yp, ip, nthreads); break;
    case NB_F64: max_pool_f64(&g, xp, yp, ip, nthreads); break;
    case NB_I8: max_pool_i8(&g, xp, yp, ip, nthreads); break;
    case NB_I16: max_pool_i16(&g, xp, yp, ip, nthreads); break;
    case NB_I32: max_pool_i32(&g, xp, yp, ip, nthreads); break;
    case NB_I64: max_pool_i64(&g, xp, yp, ip, nthreads); break;
    default: max_pool_u8(&g, xp, yp, ip, nthreads); break;
    }
    nb_tensor_release(x);
    if ((st = nn_deliver(op, y, input->dtype, dst, out)) != NB_OK) {
        nb_tensor_release(idx);
        return st;
    }
    if (indices != NULL) *indices = idx;
    return NB_OK;
}

nb_status nbi_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride,
                               const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad,
                               int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "avg_pool2d";
    int32_t kd;
    pool_geom g;
    nb_status st = pool_input(op, input, dst, out, 1u << NB_I64, &kd);
    if (st == NB_OK) st = pool_geometry(op, input, kernel_size, stride, padding, NULL, ceil_mode != 0, &g);
    if (st != NB_OK) return st;
    if (divisor_override < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: divisor must be positive (or 0 for none), got %lld", op,
                        (long long)divisor_override);
    if (nn_pool_on_device(input)) {
        nb_bk_pool p;
        plan_window(&p, NB_PK_AVG, &g);
        p.count_include_pad = count_include_pad != 0, p.divisor = divisor_override;
        return pool_forward_device(op, &p, input, g.OH, g.OW, NULL, dst, out);
    }
    const int64_t shape[4] = {input->shape[0], input->shape[1], g.OH, g.OW};
    nb_tensor *x = NULL, *y = NULL;
    if ((st = nn_contig(input, kd, &x)) != NB_OK ||
        (st = nn_output(op, shape, 4, kd, input->dtype, dst, &input, 1, &y)) != NB_OK) {
        nn_release(x, y, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    int nthreads = nn_threads((double)g.planes * (double)(g.OH * g.OW) * (double)(g.kh * g.kw));
    void *xp = nb_tensor_data(x), *yp = nb_tensor_data(y);
    const bool include = count_include_pad != 0;
    if (kd == NB_F32) avg_pool_f32(&g, xp, yp, include, divisor_override, nthreads);
    else if (kd == NB_F64) avg_pool_f64(&g, xp, yp, include, divisor_override, nthreads);
    else avg_pool_i64(&g, xp, yp, include, divisor_override, nthreads);
    nb_tensor_release(x);
    return nn_deliver(op, y, input->dtype, dst, out);
}

nb_status nbi_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst,
                                        nb_tensor** out) {
    static const char* op = "adaptive_avg_pool2d";
    int32_t kd;
    nb_status st = pool_input(op, input, dst, out, 0, &kd);
    if (st == NB_OK) st = nn_check_array(op, "output_size", output_size);
    if (st != NB_OK) return st;
    if (output_size[0] < 0 || output_size[1] < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: elements of output_size must be greater than or equal to 0 but received {%lld, %lld}", op,
                        (long long)output_size[0], (long long)output_size[1]);
    if (output_size[0] > INT32_MAX || output_size[1] > INT32_MAX)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: output_size must be below 2^31, got {%lld, %lld}", op,
                        (long long)output_size[0], (long long)output_size[1]);
    pool_geom g;
    memset(&g, 0, sizeof g);
    g.planes = input->shape[0] * input->shape[1], g.H = input->shape[2], g.W = input->shape[3];
    g.OH = output_size[0], g.OW = output_size[1];
    for (int d = 2; d < 4; d++)
        if (input->shape[d] == 0 && output_size[d - 2] > 0)
            return nb_error(NB_ERR_SHAPE,
                            "%s: expected input to have non-zero size for non-batch dimensions, but input has sizes %s "
                            "with dimension %d being empty", op, nb_shape_str(input->shape, 4), d);
    if (nn_pool_on_device(input)) {
        nb_bk_pool p;
        plan_window(&p, NB_PK_ADAPTIVE_AVG, &g);
        return pool_forward_device(op, &p, input, g.OH, g.OW, NULL, dst, out);
    }
    const int64_t shape[4] = {input->shape[0], input->shape[1], g.OH, g.OW};
    nb_tensor *x = NULL, *y = NULL;
    if ((st = nn_contig(input, kd, &x)) != NB_OK ||
        (st = nn_output(op, shape, 4, kd, input->dtype, dst, &input, 1, &y)) != NB_OK) {
        nn_release(x, y, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    if (g.OH > 0 && g.OW > 0) {
        int nthreads = nn_threads((double)g.planes * (double)(g.H * g.W));
        if (kd == NB_F32) adaptive_avg_f32(&g, nb_tensor_data(x), nb_tensor_data(y), nthreads);
        else adaptive_avg_f64(&g, nb_tensor_data(x), nb_tensor_data(y), nthreads);
    }
    nb_tensor_release(x);
    return nn_deliver(op, y, input->dtype, dst, out);
}
