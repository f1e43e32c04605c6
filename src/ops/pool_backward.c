/* pool_backward.c: gradients of the 2-D poolings with respect to their input.
 * Planes (image x channel) are independent and split across OpenMP threads;
 * each plane of the gradient is zeroed, then every output cell adds its
 * gradient to the input cells it read (max: its argmax; average: its window,
 * divided as the forward divided). float16/bfloat16 compute in float32. */
#include "nn_common.h"
#include "pool_device.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    int64_t planes, H, W, OH, OW;
    int64_t kh, kw, sh, sw, ph, pw;
    int64_t divisor;
    bool count_include_pad;
} pool_bw_geom;

#define POOL_BACKWARD(T, SUF)                                                                                    \
    static void max_pool_bw_##SUF(const pool_bw_geom* g, const T* go, const int64_t* idx, T* gi, int nthreads,  \
                                  int64_t* bad) {                                                                \
        const int64_t HW = g->H * g->W, OHW = g->OH * g->OW;                                                     \
        _Pragma("omp parallel for schedule(static) num_threads(nthreads) if(nthreads > 1)")                      \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                             \
            T* dst = gi + pl * HW;                                                                               \
            memset(dst, 0, sizeof(T) * (size_t)HW);                                                              \
            const T* src = go + pl * OHW;                                                                        \
            const int64_t* ix = idx + pl * OHW;                                                                  \
            for (int64_t i = 0; i < OHW; i++) {                                                                  \
                if (ix[i] < 0 || ix[i] >= HW) {                                                                  \
                    *bad = ix[i];                                                                                \
                    continue;                                                                                    \
                }                                                                                                \
                dst[ix[i]] += src[i];                                                                            \
            }                                                                                                    \
        }                                                                                                        \
    }                                                                                                            \
                                                                                                                 \
    static void avg_pool_bw_##SUF(const pool_bw_geom* g, const T* go, T* gi, int nthreads) {                    \
        const int64_t HW = g->H * g->W, OHW = g->OH * g->OW;                                                     \
        _Pragma("omp parallel for schedule(static) num_threads(nthreads) if(nthreads > 1)")                      \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                             \
            T* dst = gi + pl * HW;                                                                               \
            memset(dst, 0, sizeof(T) * (size_t)HW);                                                              \
            const T* src = go + pl * OHW;                                                                        \
            for (int64_t oh = 0; oh < g->OH; oh++)                                                               \
                for (int64_t ow = 0; ow < g->OW; ow++) {                                                         \
                    int64_t h0 = oh * g->sh - g->ph, w0 = ow * g->sw - g->pw;                                    \
                    int64_t h1 = h0 + g->kh < g->H + g->ph ? h0 + g->kh : g->H + g->ph;                          \
                    int64_t w1 = w0 + g->kw < g->W + g->pw ? w0 + g->kw : g->W + g->pw;                          \
                    const int64_t pool_size = (h1 - h0) * (w1 - w0);                                             \
                    h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;                                                  \
                    h1 = h1 < g->H ? h1 : g->H, w1 = w1 < g->W ? w1 : g->W;                                      \
                    if (h0 >= h1 || w0 >= w1) continue;                                                          \
                    const int64_t div = g->divisor != 0 ? g->divisor                                             \
                                        : g->count_include_pad ? pool_size                                       \
                                                               : (h1 - h0) * (w1 - w0);                          \
                    const T v = src[oh * g->OW + ow] / (T)div;                                                   \
                    for (int64_t ih = h0; ih < h1; ih++)                                                         \
                        for (int64_t iw = w0; iw < w1; iw++) dst[ih * g->W + iw] += v;                           \
                }                                                                                                \
        }                                                                                                        \
    }                                                                                                            \
                                                                                                                 \
    static void adaptive_avg_bw_##SUF(const pool_bw_geom* g, const T* go, T* gi, int nthreads) {                \
        const int64_t HW = g->H * g->W, OHW = g->OH * g->OW;                                                     \
        _Pragma("omp parallel for schedule(static) num_threads(nthreads) if(nthreads > 1)")                      \
        for (int64_t pl = 0; pl < g->planes; pl++) {                                                             \
            T* dst = gi + pl * HW;                                                                               \
            memset(dst, 0, sizeof(T) * (size_t)HW);                                                              \
            const T* src = go + pl * OHW;                                                                        \
            for (int64_t oh = 0; oh < g->OH; oh++) {                                                             \
                const int64_t h0 = oh * g->H / g->OH, h1 = ((oh + 1) * g->H + g->OH - 1) / g->OH;                \
                for (int64_t ow = 0; ow < g->OW; ow++) {                                                         \
                    const int64_t w0 = ow * g->W / g->OW, w1 = ((ow + 1) * g->W + g->OW - 1) / g->OW;            \
                    const T v = src[oh * g->OW + ow] / (T)((h1 - h0) * (w1 - w0));                               \
                    for (int64_t ih = h0; ih < h1; ih++)                                                         \
                        for (int64_t iw = w0; iw < w1; iw++) dst[ih * g->W + iw] += v;                           \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
POOL_BACKWARD(float, f32)
POOL_BACKWARD(double, f64)
#pragma GCC diagnostic pop

/* grad_output [N, C, OH, OW] floating and input_size (H, W) non-negative; fills the sizes of g. */
static nb_status bw_geometry(const char* op, const nb_tensor* go, const int64_t* input_size, nb_tensor* dst,
                             nb_tensor** out, int32_t* kd, pool_bw_geom* g) {
    nb_status st;
    static const char* const names[2] = {"grad_output", "out"};
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK ||
        (st = nn_check_handle(op, "grad_output", go, false)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[2]){go, dst}, 2)) != NB_OK ||
        (st = nn_check_array(op, "input_size", input_size)) != NB_OK)
        return st;
    if (go->ndim != 4)
        return nb_error(NB_ERR_SHAPE, "%s: expected grad_output with 4 dims [N, C, OH, OW], got %s", op,
                        nb_shape_str(go->shape, go->ndim));
    if ((st = nn_check_float(op, go, kd)) != NB_OK) return st;
    if (input_size[0] < 0 || input_size[1] < 0 || input_size[0] > INT32_MAX || input_size[1] > INT32_MAX)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: input_size must be in [0, 2^31), got (%lld, %lld)", op,
                        (long long)input_size[0], (long long)input_size[1]);
    memset(g, 0, sizeof *g);
    g->planes = go->shape[0] * go->shape[1], g->H = input_size[0], g->W = input_size[1];
    g->OH = go->shape[2], g->OW = go->shape[3];
    return NB_OK;
}

/* The gradient on a device: grad_output (and indices) read in place with their strides, the
 * gradient [N, C, H, W] new on its device, every element written by the kernel; then delivered. */
static nb_status backward_device(const char* op, nb_bk_pool* p, const nb_tensor* go, const nb_tensor* indices,
                                 const pool_bw_geom* g, nb_tensor* dst, nb_tensor** out) {
    const int64_t shape[4] = {go->shape[0], go->shape[1], g->H, g->W};
    nb_tensor* y = NULL;
    p->backward = 1;
    nb_status st = nn_pool_empty_like_device(op, go, shape, 4, go->dtype, &y);
    if (st == NB_OK) st = nn_pool_launch(op, p, y, go, indices);
    if (st != NB_OK) {
        nb_tensor_release(y);
        return st;
    }
    return nn_deliver(op, y, go->dtype, dst, out);
}

/* Allocates the gradient [N, C, H, W], runs the kernel call over contiguous operands, then `after` (also run
 * on failure) and delivers. */
#define RUN_BACKWARD(op, go, g, kd, dst, out, after, CALL32, CALL64)                                              \
    do {                                                                                                         \
        const int64_t shape[4] = {go->shape[0], go->shape[1], g.H, g.W};                                         \
        nb_tensor *gc = NULL, *y = NULL;                                                                         \
        nb_status st_ = nn_contig(go, kd, &gc);                                                                  \
        if (st_ == NB_OK) st_ = nn_output(op, shape, 4, kd, go->dtype, dst, &go, 1, &y);                         \
        if (st_ != NB_OK) {                                                                                      \
            nn_release(gc, y, NULL, NULL, NULL, NULL, NULL, NULL);                                               \
            y = NULL;                                                                                            \
            after;                                                                                               \
            return st_;                                                                                          \
        }                                                                                                        \
        const int nthreads = nn_threads((double)g.planes * (double)(g.H * g.W + g.OH * g.OW));                   \
        if (kd == NB_F32) CALL32;                                                                                \
        else CALL64;                                                                                             \
        nb_tensor_release(gc);                                                                                   \
        after;                                                                                                   \
        return nn_deliver(op, y, go->dtype, dst, out);                                                           \
    } while (0)

nb_status nbi_max_pool2d_backward(const nb_tensor* grad_output, const nb_tensor* indices, const int64_t* input_size,
                                  nb_tensor* dst, nb_tensor** out) {
    return nn_max_pool2d_backward_window(grad_output, indices, input_size, NULL, NULL, NULL, NULL, dst, out);
}

nb_status nn_max_pool2d_backward_window(const nb_tensor* grad_output, const nb_tensor* indices,
                                        const int64_t* input_size, const int64_t* kernel_size, const int64_t* stride,
                                        const int64_t* padding, const int64_t* dilation, nb_tensor* dst,
                                        nb_tensor** out) {
    static const char* op = "max_pool2d_backward";
    int32_t kd;
    pool_bw_geom g;
    nb_status st = bw_geometry(op, grad_output, input_size, dst, out, &kd, &g);
    if (st == NB_OK) st = nn_check_handle(op, "indices", indices, false);
    static const char* const names[2] = {"grad_output", "indices"};
    if (st == NB_OK) st = nn_check_same_device(op, names, (const nb_tensor*[2]){grad_output, indices}, 2);
    if (st != NB_OK) return st;
    if (indices->dtype != NB_I64 || indices->ndim != 4 ||
        memcmp(indices->shape, grad_output->shape, 4 * sizeof(int64_t)) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: expected int64 indices of grad_output's shape %s, got %s %s", op,
                        nb_shape_str(grad_output->shape, 4), nb_dtype_str(indices->dtype),
                        nb_shape_str(indices->shape, indices->ndim));
    if (nn_pool_on_device(grad_output)) {
        nb_bk_pool p;
        memset(&p, 0, sizeof p);
        p.kind = NB_PK_MAX;
        if (kernel_size != NULL)  /* else kernel 0: every output cell is asked for its index */
            for (int i = 0; i < 2; i++)
                p.kernel[i] = kernel_size[i], p.stride[i] = stride[i], p.padding[i] = padding[i],
                p.dilation[i] = dilation[i];
        return backward_device(op, &p, grad_output, indices, &g, dst, out);
    }
    nb_tensor* ic = NULL;
    if ((st = nn_contig(indices, NB_I64, &ic)) != NB_OK) return st;
    int64_t bad = 0;
    const int64_t* ip = nb_tensor_data(ic);
    RUN_BACKWARD(op, grad_output, g, kd, dst, out,
                 ({
                     nb_tensor_release(ic);
                     if (y != NULL && bad != 0) {
                         nb_tensor_release(y);
                         return nb_error(NB_ERR_INDEX, "%s: index %lld is out of range for an input plane of %lld x "
                                         "%lld", op, (long long)bad, (long long)g.H, (long long)g.W);
                     }
                 }),
                 max_pool_bw_f32(&g, nb_tensor_data(gc), ip, nb_tensor_data(y), nthreads, &bad),
                 max_pool_bw_f64(&g, nb_tensor_data(gc), ip, nb_tensor_data(y), nthreads, &bad));
}

nb_status nbi_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, const int64_t* kernel_size,
                                  const int64_t* stride, const int64_t* padding, int32_t count_include_pad,
                                  int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "avg_pool2d_backward";
    int32_t kd;
    pool_bw_geom g;
    nb_status st = bw_geometry(op, grad_output, input_size, dst, out, &kd, &g);
    if (st == NB_OK) st = nn_check_array(op, "kernel_size", kernel_size);
    if (st == NB_OK) st = nn_check_array(op, "padding", padding);
    if (st != NB_OK) return st;
    if (stride == NULL) stride = kernel_size;
    for (int i = 0; i < 2; i++)
        if (kernel_size[i] <= 0 || stride[i] <= 0 || padding[i] < 0 || kernel_size[i] > INT32_MAX ||
            stride[i] > INT32_MAX || padding[i] > kernel_size[i] / 2)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: kernel_size and stride must be positive and padding at most "
                            "half the kernel size, got kernel (%lld, %lld), stride (%lld, %lld), padding (%lld, %lld)",
                            op, (long long)kernel_size[0], (long long)kernel_size[1], (long long)stride[0],
                            (long long)stride[1], (long long)padding[0], (long long)padding[1]);
    if (divisor_override < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: divisor must be positive (or 0 for none), got %lld", op,
                        (long long)divisor_override);
    /* grad_output must be the forward's output: its size with or without ceil_mode (the call does not say which) */
    int64_t want[2][2];
    for (int i = 0; i < 2; i++)
        for (int ceil = 0; ceil < 2; ceil++) want[i][ceil] = nn_pool_out(input_size[i], kernel_size[i], padding[i],
                                                                          stride[i], 1, ceil);
    const int64_t oh = grad_output->shape[2], ow = grad_output->shape[3];
    if (!((oh == want[0][0] && ow == want[1][0]) || (oh == want[0][1] && ow == want[1][1]))) {
        char alt[64] = "";
        if (want[0][1] != want[0][0] || want[1][1] != want[1][0])
            snprintf(alt, sizeof alt, ", or %lld x %lld with ceil_mode", (long long)want[0][1], (long long)want[1][1]);
        return nb_error(NB_ERR_SHAPE, "%s: grad_output %s does not fit the output of avg_pool2d on an input of %lld x "
                        "%lld with kernel (%lld, %lld), stride (%lld, %lld) and padding (%lld, %lld): its last two sizes "
                        "must be %lld x %lld%s", op, nb_shape_str(grad_output->shape, 4), (long long)input_size[0],
                        (long long)input_size[1], (long long)kernel_size[0], (long long)kernel_size[1],
                        (long long)stride[0], (long long)stride[1], (long long)padding[0], (long long)padding[1],
                        (long long)want[0][0], (long long)want[1][0], alt);
    }
    g.kh = kernel_size[0], g.kw = kernel_size[1], g.sh = stride[0], g.sw = stride[1];
    g.ph = padding[0], g.pw = padding[1];
    g.divisor = divisor_override, g.count_include_pad = count_include_pad != 0;
    if (nn_pool_on_device(grad_output)) {
        nb_bk_pool p;
        memset(&p, 0, sizeof p);
        p.kind = NB_PK_AVG, p.count_include_pad = g.count_include_pad, p.divisor = g.divisor;
        for (int i = 0; i < 2; i++)
            p.kernel[i] = kernel_size[i], p.stride[i] = stride[i], p.padding[i] = padding[i], p.dilation[i] = 1;
        return backward_device(op, &p, grad_output, NULL, &g, dst, out);
    }
    RUN_BACKWARD(op, grad_output, g, kd, dst, out, (void)0,
                 avg_pool_bw_f32(&g, nb_tensor_data(gc), nb_tensor_data(y), nthreads),
                 avg_pool_bw_f64(&g, nb_tensor_data(gc), nb_tensor_data(y), nthreads));
}

nb_status nbi_adaptive_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, nb_tensor* dst,
                                           nb_tensor** out) {
    static const char* op = "adaptive_avg_pool2d_backward";
    int32_t kd;
    pool_bw_geom g;
    nb_status st = bw_geometry(op, grad_output, input_size, dst, out, &kd, &g);
    if (st != NB_OK) return st;
    if ((g.H == 0 || g.W == 0) && g.OH * g.OW > 0)
        return nb_error(NB_ERR_SHAPE, "%s: an empty input plane cannot have an output of %lld x %lld", op,
                        (long long)g.OH, (long long)g.OW);
    if (nn_pool_on_device(grad_output)) {
        nb_bk_pool p;
        memset(&p, 0, sizeof p);
        p.kind = NB_PK_ADAPTIVE_AVG;
        return backward_device(op, &p, grad_output, NULL, &g, dst, out);
    }
    RUN_BACKWARD(op, grad_output, g, kd, dst, out, (void)0,
                 adaptive_avg_bw_f32(&g, nb_tensor_data(gc), nb_tensor_data(y), nthreads),
                 adaptive_avg_bw_f64(&g, nb_tensor_data(gc), nb_tensor_data(y), nthreads));
}
