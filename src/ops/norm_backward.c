/* norm_backward.c: gradients of layer_norm, batch_norm (training statistics) and
 * group_norm. Each recomputes the statistics of its group of values (one pass
 * over x - shift, as the forward), gathers the sums the input gradient needs
 * in the same pass over grad_output, then writes
 *     dx = rstd * (w go - mean(w go) - xhat * mean(w go xhat)),   xhat = (x - mean) * rstd
 * in a second pass. Sums are in double; float16/bfloat16 compute in float32. */
#include "nn_common.h"
#include "norm_composed.h"
#include "norm_device.h"

#include <math.h>
#include <string.h>

#ifdef _OPENMP
#define NN_THREAD_NUM() omp_get_thread_num()
#define NN_NUM_THREADS() omp_get_num_threads()
#else
#define NN_THREAD_NUM() 0
#define NN_NUM_THREADS() 1
#endif

#define NORM_BACKWARD(T, SUF)                                                                                    \
    /* Over n values: s[0] += x - x0, s[1] += (x - x0)^2, s[2] += go, s[3] += go (x - x0). */                    \
    NN_CLONES static void sums_##SUF(const T* x, const T* go, int64_t n, T x0, double* s) {                      \
        double a = 0, b = 0, c = 0, d = 0;                                                                       \
        _Pragma("omp simd reduction(+:a, b, c, d)") for (int64_t i = 0; i < n; i++) {                            \
            const double v = (double)(x[i] - x0), gv = (double)go[i];                                            \
            a += v, b += v * v, c += gv, d += gv * v;                                                            \
        }                                                                                                        \
        s[0] += a, s[1] += b, s[2] += c, s[3] += d;                                                              \
    }                                                                                                            \
    /* dx = a go + b x + c over n values. */                                                                     \
    NN_CLONES static void affine_##SUF(const T* x, const T* go, T* dx, int64_t n, T a, T b, T c) {               \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) dx[i] = a * go[i] + b * x[i] + c;                    \
    }                                                                                                            \
                                                                                                                 \
    /* rows x D. The row sums are in double; the second pass (dx, and dw, db accumulated per thread into acc:     \
     * 2 * D values of T per thread) runs in T. */                                                              \
    NN_CLONES static void layer_norm_bw_rows_##SUF(const T* x, const T* go, const T* w, T* dx, int64_t r0,     \
                                                   int64_t r1, int64_t D, double eps, T* dwa, T* dba) {        \
            for (int64_t r = r0; r < r1; r++) {                                                                  \
                const T* xr = x + r * D;                                                                         \
                const T* gr = go + r * D;                                                                        \
                const T x0 = xr[0];                                                                              \
                double s1 = 0, s2 = 0, sg = 0, sgx = 0;                                                          \
                if (w != NULL) {                                                                                 \
                    _Pragma("omp simd reduction(+:s1, s2, sg, sgx)") for (int64_t i = 0; i < D; i++) {           \
                        const T v = xr[i] - x0, gw = gr[i] * w[i];                                               \
                        s1 += v, s2 += v * v, sg += gw, sgx += gw * v;                                           \
                    }                                                                                            \
                } else {                                                                                         \
                    _Pragma("omp simd reduction(+:s1, s2, sg, sgx)") for (int64_t i = 0; i < D; i++) {           \
                        const T v = xr[i] - x0, g = gr[i];                                                       \
                        s1 += v, s2 += v * v, sg += g, sgx += g * v;                                             \
                    }                                                                                            \
                }                                                                                                \
                const double m1 = s1 / (double)D, var = s2 / (double)D - m1 * m1;                                \
                const double rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);                                       \
                const double sgxhat = (sgx - m1 * sg) * rstd; /* sum w go xhat */                                \
                /* dx = rstd w go + cx (x - x0) + c0,  xhat = (x - x0 - m1) rstd */                              \
                const T a = (T)rstd, cx = (T)(-rstd * rstd * sgxhat / (double)D);                                \
                const T c0 = (T)(-rstd * sg / (double)D + rstd * rstd * sgxhat / (double)D * m1);                \
                const T hm = (T)m1;                                                                              \
                T* dr = dx != NULL ? dx + r * D : NULL;                                                          \
                if (dr != NULL && w != NULL) {                                                                   \
                    _Pragma("omp simd") for (int64_t i = 0; i < D; i++) {                                        \
                        const T v = xr[i] - x0, g = gr[i];                                                       \
                        dr[i] = a * g * w[i] + cx * v + c0;                                                      \
                        dwa[i] += g * ((v - hm) * a), dba[i] += g;                                               \
                    }                                                                                            \
                } else if (dr != NULL) {                                                                         \
                    _Pragma("omp simd") for (int64_t i = 0; i < D; i++) {                                        \
                        const T v = xr[i] - x0, g = gr[i];                                                       \
                        dr[i] = a * g + cx * v + c0;                                                             \
                        dwa[i] += g * ((v - hm) * a), dba[i] += g;                                               \
                    }                                                                                            \
                } else {                                                                                         \
                    _Pragma("omp simd") for (int64_t i = 0; i < D; i++) {                                        \
                        const T v = xr[i] - x0, g = gr[i];                                                       \
                        dwa[i] += g * ((v - hm) * a), dba[i] += g;                                               \
                    }                                                                                            \
                }                                                                                                \
            }                                                                                                    \
    }                                                                                                            \
    static void layer_norm_bw_##SUF(const T* x, const T* go, const T* w, T* dx, int64_t rows, int64_t D,         \
                                    double eps, T* acc, int nthreads) {                                          \
        _Pragma("omp parallel num_threads(nthreads) if(nthreads > 1)") {                                         \
            const int64_t t = NN_THREAD_NUM(), nt = NN_NUM_THREADS();                                            \
            T* dwa = acc + t * 2 * D; /* zeroed by the caller */                                                 \
            layer_norm_bw_rows_##SUF(x, go, w, dx, rows * t / nt, rows * (t + 1) / nt, D, eps, dwa, dwa + D);    \
        }                                                                                                        \
    }                                                                                                            \
                                                                                                                 \
    /* Statistics over the (n, s) of each channel c of x [N, C, S]. */                                           \
    static void batch_norm_bw_##SUF(const T* x, const T* go, const T* w, T* dx, int64_t N, int64_t C, int64_t S, \
                                    double eps, double* dw, double* db, int nthreads) {                          \
        const double M = (double)(N * S);                                                                        \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                     \
        for (int64_t c = 0; c < C; c++) {                                                                        \
            const T x0 = x[c * S];                                                                               \
            double s[4] = {0, 0, 0, 0};                                                                          \
            for (int64_t n = 0; n < N; n++) sums_##SUF(x + (n * C + c) * S, go + (n * C + c) * S, S, x0, s);     \
            const double m1 = s[0] / M, var = s[1] / M - m1 * m1;                                                \
            const double mean = (double)x0 + m1, rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);                   \
            const double gxhat = (s[3] - m1 * s[2]) * rstd; /* sum go xhat */                                    \
            dw[c] = gxhat, db[c] = s[2];                                                                         \
            if (dx == NULL) continue;                                                                            \
            const double wc = w != NULL ? (double)w[c] : 1.0;                                                    \
            const double a = wc * rstd, b = -wc * rstd * rstd * gxhat / M;                                       \
            const double c0 = -wc * rstd * s[2] / M - b * mean;                                                  \
            for (int64_t n = 0; n < N; n++)                                                                      \
                affine_##SUF(x + (n * C + c) * S, go + (n * C + c) * S, dx + (n * C + c) * S, S, (T)a, (T)b,     \
                             (T)c0);                                                                             \
        }                                                                                                        \
    }                                                                                                            \
                                                                                                                 \
    /* Statistics over each group of Cg = C / G channels of an item of x [N, C, S]; per-(item, channel)          \
     * contributions to dw, db go to pw, pb [N, C]. */                                                           \
    static void group_norm_bw_##SUF(const T* x, const T* go, const T* w, T* dx, int64_t N, int64_t C, int64_t S, \
                                    int64_t G, double eps, double* pw, double* pb, int nthreads) {               \
        const int64_t Cg = C / G;                                                                                \
        const double M = (double)(Cg * S);                                                                       \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                     \
        for (int64_t ng = 0; ng < N * G; ng++) {                                                                 \
            const int64_t c0 = ng % G * Cg, n = ng / G;                                                          \
            const T* xg = x + ng * Cg * S;                                                                       \
            const T* gg = go + ng * Cg * S;                                                                      \
            const T x0 = xg[0];                                                                                  \
            double s1 = 0, s2 = 0, sg = 0, sgx = 0;                                                              \
            for (int64_t c = 0; c < Cg; c++) {                                                                   \
                double s[4] = {0, 0, 0, 0};                                                                      \
                sums_##SUF(xg + c * S, gg + c * S, S, x0, s);                                                    \
                const double wc = w != NULL ? (double)w[c0 + c] : 1.0;                                           \
                s1 += s[0], s2 += s[1], sg += wc * s[2], sgx += wc * s[3];                                       \
                pb[n * C + c0 + c] = s[2], pw[n * C + c0 + c] = s[3]; /* go sum, go (x - x0) sum, for now */     \
            }                                                                                                    \
            const double m1 = s1 / M, var = s2 / M - m1 * m1;                                                    \
            const double mean = (double)x0 + m1, rstd = 1.0 / sqrt((var > 0 ? var : 0) + eps);                   \
            const double sgxhat = (sgx - m1 * sg) * rstd;                                                        \
            for (int64_t c = 0; c < Cg; c++) {                                                                   \
                const int64_t ch = n * C + c0 + c;                                                               \
                pw[ch] = (pw[ch] - m1 * pb[ch]) * rstd;                                                          \
                if (dx == NULL) continue;                                                                        \
                const double wc = w != NULL ? (double)w[c0 + c] : 1.0;                                           \
                const double a = wc * rstd, b = -rstd * rstd * sgxhat / M;                                       \
                const double k = -rstd * sg / M - b * mean;                                                      \
                affine_##SUF(xg + c * S, gg + c * S, dx + ng * Cg * S + c * S, S, (T)a, (T)b, (T)k);             \
            }                                                                                                    \
        }                                                                                                        \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
NORM_BACKWARD(float, f32)
NORM_BACKWARD(double, f64)
#pragma GCC diagnostic pop

static const void* data_or_null(const nb_tensor* t) { return t != NULL ? nb_tensor_data(t) : NULL; }

/* The common checks: handles, grad_output of the input's shape and dtype, a floating input, weight's dtype. */
/* any_device: the op has a composed path off the host (all operands on one device). */
static nb_status check_common(const char* op, const nb_tensor* go, const nb_tensor* input, const nb_tensor* weight,
                              nb_tensor* dst, int32_t* kd, bool any_device) {
    static const char* const names[4] = {"grad_output", "input", "weight", "out"};
    nb_status (*check)(const char*, const char*, const nb_tensor*, bool) = any_device ? nn_check_handle : nn_check_tensor;
    nb_status st;
    if ((st = check(op, "grad_output", go, false)) != NB_OK || (st = check(op, "input", input, false)) != NB_OK ||
        (st = check(op, "weight", weight, true)) != NB_OK || (dst != NULL && (st = check(op, "out", dst, false)) != NB_OK) ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[4]){go, input, weight, dst}, 4)) != NB_OK)
        return st;
    if (go->ndim != input->ndim || memcmp(go->shape, input->shape, sizeof(int64_t) * (size_t)input->ndim) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: grad_output %s must have the input's shape %s", op,
                        nb_shape_str(go->shape, go->ndim), nb_shape_str(input->shape, input->ndim));
    if ((st = nn_check_float(op, input, kd)) != NB_OK || (st = nn_check_same_dtype(op, "grad_output", go, input->dtype)) != NB_OK ||
        (st = nn_check_same_dtype(op, "weight", weight, input->dtype)) != NB_OK)
        return st;
    return NB_OK;
}

/* A double array as a new tensor of `shape` in dtype. */
static nb_status from_doubles(const char* op, const double* v, const int64_t* shape, int32_t ndim, int32_t dtype,
                              nb_tensor** out) {
    nb_tensor* r = NULL;
    nb_status st = nn_empty(op, shape, ndim, NB_F64, &r);
    if (st != NB_OK) return st;
    memcpy(nb_tensor_data(r), v, sizeof(double) * (size_t)r->numel);
    return nn_deliver(op, r, dtype, NULL, out);
}

/* Delivers dx (when wanted), then the parameter gradients; on failure releases what it was handed. */
static nb_status finish(const char* op, nb_status st, nb_tensor* y, int32_t dtype, nb_tensor* dst, nb_tensor** out,
                        const double* dw, const double* db, const int64_t* pshape, int32_t pndim,
                        nb_tensor** grad_weight, nb_tensor** grad_bias) {
    nb_tensor *gw = NULL, *gb = NULL;
    if (st == NB_OK && grad_weight != NULL) st = from_doubles(op, dw, pshape, pndim, dtype, &gw);
    if (st == NB_OK && grad_bias != NULL) st = from_doubles(op, db, pshape, pndim, dtype, &gb);
    if (st == NB_OK && y != NULL) {
        st = nn_deliver(op, y, dtype, dst, out);
        y = NULL;
    }
    nb_tensor_release(y);
    if (st != NB_OK) {
        nn_release(gw, gb, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    if (grad_weight != NULL) *grad_weight = gw;
    if (grad_bias != NULL) *grad_bias = gb;
    return NB_OK;
}

/* A norm's backward on a device without norm kernels: composed, the parameter gradients in pshape, all
 * delivered in the input's dtype. */
static nb_status norm_backward_off_host(const char* op, const nn_norm_kind* kind, const nn_norm_geom* geom,
                                        const nb_tensor* go,
                                        const nb_tensor* input, const int64_t* pshape, int32_t pndim,
                                        const nb_tensor* weight, double eps, int32_t kd, bool want_dx,
                                        nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst,
                                        nb_tensor** out) {
    nb_tensor *dx = NULL, *dw = NULL, *db = NULL, *gw = NULL, *gb = NULL;
    nb_tensor **pdx = want_dx ? &dx : NULL, **pdw = grad_weight != NULL ? &dw : NULL;
    nb_tensor** pdb = grad_bias != NULL ? &db : NULL;
    nb_status st = nn_norm_fusable(input, weight, NULL, NULL, NULL)
                       ? nn_norm_backward_fused(op, kind, go, input, weight, eps, pdx, pdw, pdb)
                       : nn_norm_backward_composed(go, input, geom, weight, eps, kd, pdx, pdw, pdb);
    if (st == NB_OK && dw != NULL) st = nb_tensor_reshape(dw, pshape, pndim, &gw);
    if (st == NB_OK && db != NULL) st = nb_tensor_reshape(db, pshape, pndim, &gb);
    nn_release(dw, db, NULL, NULL, NULL, NULL, NULL, NULL);
    dw = db = NULL;
    if (st == NB_OK && gw != NULL) st = nn_contig(gw, input->dtype, &dw);
    if (st == NB_OK && gb != NULL) st = nn_contig(gb, input->dtype, &db);
    nn_release(gw, gb, NULL, NULL, NULL, NULL, NULL, NULL);
    if (st == NB_OK && dx != NULL) {
        st = nn_deliver(op, dx, input->dtype, dst, out);
        dx = NULL;
    }
    nb_tensor_release(dx);
    if (st != NB_OK) {
        nn_release(dw, db, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    if (grad_weight != NULL) *grad_weight = dw;
    if (grad_bias != NULL) *grad_bias = db;
    return NB_OK;
}

nb_status nbi_layer_norm_backward(const nb_tensor* grad_output, const nb_tensor* input,
                                  const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, double eps,
                                  nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "layer_norm_backward";
    int32_t kd;
    nb_status st = check_common(op, grad_output, input, weight, dst, &kd, true);
    if (st != NB_OK) return st;
    if (ndim < 1 || ndim > input->ndim || normalized_shape == NULL ||
        memcmp(normalized_shape, input->shape + input->ndim - ndim, sizeof(int64_t) * (size_t)ndim) != 0)
        return nb_error(NB_ERR_SHAPE, "%s: normalized_shape must be the trailing dims of the input %s", op,
                        nb_shape_str(input->shape, input->ndim));
    int64_t D = 1;
    for (int32_t i = 0; i < ndim; i++) D *= normalized_shape[i];
    if (weight != NULL && weight->numel != D)
        return nb_error(NB_ERR_SHAPE, "%s: weight %s must have normalized_shape %s", op,
                        nb_shape_str(weight->shape, weight->ndim), nb_shape_str(normalized_shape, ndim));
    const int64_t rows = D > 0 ? input->numel / D : 0;
    const bool want_dx = dst != NULL || out != NULL;
    if (input->storage->device_type != NB_CPU) {
        const nn_norm_kind k = {NB_NK_LAYER, ndim, 0};
        const nn_norm_geom g = nn_norm_geom_layer(input, ndim);
        return norm_backward_off_host(op, &k, &g, grad_output, input, normalized_shape, ndim, weight, eps, kd, want_dx,
                                      grad_weight, grad_bias, dst, out);
    }
    int nthreads = nn_threads((double)input->numel * 2);
    if (rows < nthreads) nthreads = rows > 0 ? (int)rows : 1;
    nb_tensor *x = NULL, *g = NULL, *w = NULL, *y = NULL;
    const size_t es = (size_t)nb_dtype_sizes[kd];
    double* tot = nn_alloc(sizeof(double) * (size_t)(2 * D + 1));
    void* acc = nn_alloc(es * (size_t)(2 * D * nthreads + 1));
    if (tot == NULL || acc == NULL) {
        nn_free(tot), nn_free(acc);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig(grad_output, kd, &g)) != NB_OK ||
        (st = nn_contig_opt(weight, kd, &w)) != NB_OK ||
        (want_dx && (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                                    (const nb_tensor*[3]){grad_output, input, weight}, 3, &y)) != NB_OK))
        goto done;
    memset(tot, 0, sizeof(double) * (size_t)(2 * D));
    memset(acc, 0, es * (size_t)(2 * D * nthreads));
    if (rows > 0 && D > 0) {
        if (kd == NB_F32)
            layer_norm_bw_f32(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL,
                              rows, D, eps, acc, nthreads);
        else
            layer_norm_bw_f64(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL,
                              rows, D, eps, acc, nthreads);
        for (int t = 0; t < nthreads; t++)
            for (int64_t i = 0; i < 2 * D; i++)
                tot[i] += kd == NB_F32 ? (double)((const float*)acc)[t * 2 * D + i] : ((const double*)acc)[t * 2 * D + i];
    }
done:
    nn_release(x, g, w, NULL, NULL, NULL, NULL, NULL);
    st = finish(op, st, y, input->dtype, dst, out, tot, tot + D, normalized_shape, ndim, grad_weight, grad_bias);
    nn_free(acc), nn_free(tot);
    return st;
}

/* [N, C, S] of an input with at least 2 dims. */
static nb_status channels(const char* op, const nb_tensor* input, int64_t* N, int64_t* C, int64_t* S) {
    if (input->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: expected input with at least 2 dims [N, C, *], got %s", op,
                        nb_shape_str(input->shape, input->ndim));
    *N = input->shape[0], *C = input->shape[1], *S = 1;
    for (int32_t d = 2; d < input->ndim; d++) *S *= input->shape[d];
    return NB_OK;
}

nb_status nbi_batch_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const nb_tensor* weight,
                                  double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst,
                                  nb_tensor** out) {
    static const char* op = "batch_norm_backward";
    int32_t kd;
    int64_t N = 0, C = 0, S = 0;
    nb_status st = check_common(op, grad_output, input, weight, dst, &kd, true);
    if (st == NB_OK) st = channels(op, input, &N, &C, &S);
    if (st != NB_OK) return st;
    if (weight != NULL && weight->numel != C)
        return nb_error(NB_ERR_SHAPE, "%s: weight should contain %lld elements not %lld", op, (long long)C,
                        (long long)weight->numel);
    const bool want_dx = dst != NULL || out != NULL;
    if (input->storage->device_type != NB_CPU) {
        const nn_norm_kind k = {NB_NK_BATCH, 0, 0};
        const nn_norm_geom geom = nn_norm_geom_batch(input);
        return norm_backward_off_host(op, &k, &geom, grad_output, input, &C, 1, weight, eps, kd, want_dx, grad_weight,
                                      grad_bias, dst, out);
    }
    nb_tensor *x = NULL, *g = NULL, *w = NULL, *y = NULL;
    double* acc = nn_alloc(sizeof(double) * (size_t)(2 * C + 1));
    if (acc == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    memset(acc, 0, sizeof(double) * (size_t)(2 * C + 1));
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig(grad_output, kd, &g)) != NB_OK ||
        (st = nn_contig_opt(weight, kd, &w)) != NB_OK ||
        (want_dx && (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                                    (const nb_tensor*[3]){grad_output, input, weight}, 3, &y)) != NB_OK))
        goto done;
    if (N * S > 0 && C > 0) {
        const int nthreads = nn_threads((double)input->numel * 2);
        if (kd == NB_F32)
            batch_norm_bw_f32(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL, N,
                              C, S, eps, acc, acc + C, nthreads);
        else
            batch_norm_bw_f64(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL, N,
                              C, S, eps, acc, acc + C, nthreads);
    }
done:
    nn_release(x, g, w, NULL, NULL, NULL, NULL, NULL);
    st = finish(op, st, y, input->dtype, dst, out, acc, acc + C, &C, 1, grad_weight, grad_bias);
    nn_free(acc);
    return st;
}

nb_status nbi_group_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, int64_t num_groups,
                                  const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias,
                                  nb_tensor* dst, nb_tensor** out) {
    static const char* op = "group_norm_backward";
    int32_t kd;
    int64_t N = 0, C = 0, S = 0;
    nb_status st = check_common(op, grad_output, input, weight, dst, &kd, true);
    if (st == NB_OK) st = channels(op, input, &N, &C, &S);
    if (st != NB_OK) return st;
    if (num_groups <= 0 || C % num_groups != 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: num_groups=%lld must be positive and divide the %lld channels",
                        op, (long long)num_groups, (long long)C);
    if (weight != NULL && weight->numel != C)
        return nb_error(NB_ERR_SHAPE, "%s: weight should contain %lld elements not %lld", op, (long long)C,
                        (long long)weight->numel);
    const bool want_dx = dst != NULL || out != NULL;
    if (input->storage->device_type != NB_CPU) {
        const nn_norm_kind k = {NB_NK_GROUP, 0, num_groups};
        const nn_norm_geom geom = nn_norm_geom_group(input, num_groups);
        return norm_backward_off_host(op, &k, &geom, grad_output, input, &C, 1, weight, eps, kd, want_dx, grad_weight,
                                      grad_bias, dst, out);
    }
    nb_tensor *x = NULL, *g = NULL, *w = NULL, *y = NULL;
    double* acc = nn_alloc(sizeof(double) * (size_t)(2 * N * C + 2 * C + 1));
    if (acc == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    double *pw = acc, *pb = acc + N * C, *tot = acc + 2 * N * C;
    memset(tot, 0, sizeof(double) * (size_t)(2 * C));
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig(grad_output, kd, &g)) != NB_OK ||
        (st = nn_contig_opt(weight, kd, &w)) != NB_OK ||
        (want_dx && (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                                    (const nb_tensor*[3]){grad_output, input, weight}, 3, &y)) != NB_OK))
        goto done;
    if (N * C > 0 && S > 0) {
        const int nthreads = nn_threads((double)input->numel * 2);
        if (kd == NB_F32)
            group_norm_bw_f32(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL, N,
                              C, S, num_groups, eps, pw, pb, nthreads);
        else
            group_norm_bw_f64(nb_tensor_data(x), nb_tensor_data(g), data_or_null(w), y ? nb_tensor_data(y) : NULL, N,
                              C, S, num_groups, eps, pw, pb, nthreads);
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < C; c++) tot[c] += pw[n * C + c], tot[C + c] += pb[n * C + c];
    } else if (y != NULL) {
        memset(nb_tensor_data(y), 0, (size_t)(y->numel * nb_dtype_sizes[kd]));
    }
done:
    nn_release(x, g, w, NULL, NULL, NULL, NULL, NULL);
    st = finish(op, st, y, input->dtype, dst, out, tot, tot + C, &C, 1, grad_weight, grad_bias);
    nn_free(acc);
    return st;
}
