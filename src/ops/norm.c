/* norm.c: normalization layers, forward: layer_norm, batch_norm (training with
 * batch statistics and the running-stat update, or evaluation with the running
 * stats) and group_norm. Statistics take one pass over x - shift (shift: the
 * first value, which keeps the sum of squares from cancelling), summed in blocks
 * in the kernel dtype with the blocks added in double; outputs are
 * (x - mean) * scale + shift. float16/bfloat16 compute in float32. */
#include "nn_common.h"
#include "norm_composed.h"
#include "norm_device.h"

#include <math.h>
#include <string.h>

#define BLOCK 2048

#define NORM_KERNELS(T, SUF)                                                                               \
    /* y = (x - m) * a + c (subtracting first keeps precision when |m| >> the spread) */                      \
    NN_CLONES static void scale_shift_##SUF(const T* x, T* y, int64_t n, T m, T a, T c) {                       \
        _Pragma("omp simd") for (int64_t i = 0; i < n; i++) y[i] = (x[i] - m) * a + c;                          \
    }                                                                                                           \
    /* Adds the sum and the sum of squares of x - shift to s1, s2 in one pass (shift: a sample value, against    \
     * cancellation). Four independent 64-byte accumulators per sum hide the add latency; blocks of BLOCK       \
     * elements are summed in T, the blocks in double. */                                                      \
    NN_CLONES static void moments_##SUF(const T* x, int64_t n, T shift, double* s1, double* s2) {             \
        typedef T V __attribute__((vector_size(64)));                                                          \
        enum { L = 64 / sizeof(T) };                                                                            \
        const V sh = (V){0} + shift;                                                                            \
        double t1 = 0, t2 = 0;                                                                                  \
        for (int64_t b = 0; b < n; b += BLOCK) {                                                                \
            const int64_t e = b + BLOCK < n ? b + BLOCK : n;                                                    \
            V a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, q0 = {0}, q1 = {0}, q2 = {0}, q3 = {0};                   \
            int64_t i = b;                                                                                      \
            for (; i + 4 * L <= e; i += 4 * L) {                                                                \
                V v0, v1, v2, v3;                                                                               \
                memcpy(&v0, x + i, sizeof v0), memcpy(&v1, x + i + L, sizeof v1);                               \
                memcpy(&v2, x + i + 2 * L, sizeof v2), memcpy(&v3, x + i + 3 * L, sizeof v3);                   \
                v0 -= sh, v1 -= sh, v2 -= sh, v3 -= sh;                                                         \
                a0 += v0, a1 += v1, a2 += v2, a3 += v3;                                                         \
                q0 += v0 * v0, q1 += v1 * v1, q2 += v2 * v2, q3 += v3 * v3;                                     \
            }                                                                                                   \
            const V av = (a0 + a1) + (a2 + a3), qv = (q0 + q1) + (q2 + q3);                                    \
            T a = 0, q = 0;                                                                                     \
            for (int k = 0; k < L; k++) a += av[k], q += qv[k];                                                 \
            for (; i < e; i++) {                                                                                \
                const T d = x[i] - shift;                                                                       \
                a += d, q += d * d;                                                                             \
            }                                                                                                   \
            t1 += (double)a, t2 += (double)q;                                                                   \
        }                                                                                                       \
        *s1 += t1, *s2 += t2;                                                                                   \
    }                                                                                                           \
    /* layer_norm rows: y = (x - mean) * rstd * w + b */                                                        \
    NN_CLONES static void layer_norm_rows_##SUF(const T* x, T* y, const T* w, const T* b, int64_t rows,          \
                                                int64_t D, double eps, double* stats) {                         \
        for (int64_t r = 0; r < rows; r++) {                                                                    \
            const T* xr = x + r * D;                                                                            \
            T* yr = y + r * D;                                                                                  \
            double s1 = 0, s2 = 0;                                                                              \
            moments_##SUF(xr, D, xr[0], &s1, &s2);                                                              \
            const double m1 = s1 / (double)D, var0 = s2 / (double)D - m1 * m1;                                  \
            const T mean = (T)((double)xr[0] + m1);                                                             \
            const T rstd = (T)(1.0 / sqrt((var0 > 0 ? var0 : 0) + eps));                                        \
            if (stats != NULL) stats[2 * r] = (double)mean, stats[2 * r + 1] = (double)rstd;                    \
            if (w != NULL && b != NULL) {                                                                       \
                _Pragma("omp simd") for (int64_t i = 0; i < D; i++) yr[i] = (xr[i] - mean) * rstd * w[i] + b[i]; \
            } else if (w != NULL) {                                                                             \
                _Pragma("omp simd") for (int64_t i = 0; i < D; i++) yr[i] = (xr[i] - mean) * rstd * w[i];       \
            } else if (b != NULL) {                                                                             \
                _Pragma("omp simd") for (int64_t i = 0; i < D; i++) yr[i] = (xr[i] - mean) * rstd + b[i];       \
            } else {                                                                                            \
                scale_shift_##SUF(xr, yr, D, mean, rstd, 0);                                                    \
            }                                                                                                   \
        }                                                                                                       \
    }                                                                                                           \
    static void layer_norm_##SUF(const T* x, T* y, const T* w, const T* b, int64_t rows, int64_t D, double eps, \
                                 int nthreads) {                                                                \
        const int64_t chunk = 16;                                                                               \
        const int64_t nchunks = (rows + chunk - 1) / chunk;                                                     \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                     \
        for (int64_t c = 0; c < nchunks; c++) {                                                                 \
            const int64_t r0 = c * chunk, n = rows - r0 < chunk ? rows - r0 : chunk;                            \
            layer_norm_rows_##SUF(x + r0 * D, y + r0 * D, w, b, n, D, eps, NULL);                               \
        }                                                                                                       \
    }                                                                                                           \
    /* batch_norm: x [N, C, S]; mean/invstd per channel computed here when training (else given). */          \
    static void batch_norm_##SUF(const T* x, T* y, int64_t N, int64_t C, int64_t S, bool training, double* mean, \
                                 double* var, const double* w, const double* b, double eps, int nthreads) {      \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                    \
        for (int64_t c = 0; c < C; c++) {                                                                       \
            if (training) {                                                                                     \
                double s1 = 0, s2 = 0;                                                                          \
                const T shift = x[c * S];                                                                       \
                for (int64_t n = 0; n < N; n++) moments_##SUF(x + (n * C + c) * S, S, shift, &s1, &s2);         \
                const double cnt = (double)(N * S), m1 = s1 / cnt, v = s2 / cnt - m1 * m1;                      \
                mean[c] = (double)shift + m1, var[c] = v > 0 ? v : 0;                                           \
            }                                                                                                   \
            const double invstd = 1.0 / sqrt(var[c] + eps);                                                     \
            const double a = invstd * (w != NULL ? w[c] : 1.0);                                                 \
            const double sh = b != NULL ? b[c] : 0.0;                                                           \
            for (int64_t n = 0; n < N; n++)                                                                     \
                scale_shift_##SUF(x + (n * C + c) * S, y + (n * C + c) * S, S, (T)mean[c], (T)a, (T)sh);        \
        }                                                                                                       \
    }                                                                                                           \
    /* group_norm: x [N, C, S], groups of C/G consecutive channels. */                                         \
    static void group_norm_##SUF(const T* x, T* y, int64_t N, int64_t C, int64_t S, int64_t G, const T* w,      \
                                 const T* b, double eps, int nthreads) {                                        \
        const int64_t Cg = C / G;                                                                               \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                    \
        for (int64_t ng = 0; ng < N * G; ng++) {                                                                \
            const T* xg = x + ng * Cg * S;                                                                      \
            T* yg = y + ng * Cg * S;                                                                            \
            double s1 = 0, s2 = 0;                                                                              \
            if (Cg * S > 0) moments_##SUF(xg, Cg * S, xg[0], &s1, &s2);                                         \
            const double m1 = Cg * S > 0 ? s1 / (double)(Cg * S) : 0, v0 = Cg * S > 0 ? s2 / (double)(Cg * S) - m1 * m1 : 0; \
            const double m = (Cg * S > 0 ? (double)xg[0] : 0) + m1, v = v0 > 0 ? v0 : 0;                        \
            const double rstd = 1.0 / sqrt(v + eps);                                                            \
            for (int64_t c = 0; c < Cg; c++) {                                                                  \
                const int64_t ch = ng % G * Cg + c;                                                             \
                const double a = rstd * (w != NULL ? (double)w[ch] : 1.0);                                      \
                scale_shift_##SUF(xg + c * S, yg + c * S, S, (T)m, (T)a, (T)(b != NULL ? (double)b[ch] : 0.0)); \
            }                                                                                                   \
        }                                                                                                       \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
NORM_KERNELS(float, f32)
NORM_KERNELS(double, f64)
#pragma GCC diagnostic pop

static const void* data_or_null(const nb_tensor* t) { return t != NULL ? nb_tensor_data(t) : NULL; }

/* ---- layer_norm ---- */

nb_status nbi_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim,
                               const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst,
                               nb_tensor** out) {
    static const char* op = "layer_norm";
    static const char* const names[4] = {"input", "weight", "bias", "out"};
    nb_status st;
    int32_t kd;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_handle(op, "weight", weight, true)) != NB_OK ||
        (st = nn_check_handle(op, "bias", bias, true)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[4]){input, weight, bias, dst}, 4)) != NB_OK)
        return st;
    if (ndim < 1 || normalized_shape == NULL)
        return nb_error(NB_ERR_SHAPE, "%s: Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                        "least one element, but got normalized_shape = []", op);
    if (ndim > NB_MAX_DIMS) return nb_error(NB_ERR_SHAPE, "%s: normalized_shape has %d dims", op, (int)ndim);
    const char* ns = nb_shape_str(normalized_shape, ndim);
    bool match = input->ndim >= ndim;
    for (int32_t i = 0; match && i < ndim; i++) match = input->shape[input->ndim - ndim + i] == normalized_shape[i];
    if (!match)
        return nb_error(NB_ERR_SHAPE, "%s: Given normalized_shape=%s, expected input with shape [*, %s, but got input "
                        "of size%s", op, ns, ns + 1, nb_shape_str(input->shape, input->ndim));
    const nb_tensor* params[2] = {weight, bias};
    static const char* const pnames[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++) {
        const nb_tensor* p = params[k];
        if (p == NULL) continue;
        if (p->ndim != ndim || memcmp(p->shape, normalized_shape, sizeof(int64_t) * (size_t)ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "%s: Expected %s to be of same shape as normalized_shape, but got %s of shape "
                            "%s and normalized_shape = %s", op, pnames[k], pnames[k], nb_shape_str(p->shape, p->ndim),
                            nb_shape_str(normalized_shape, ndim));
    }
    if ((st = nn_check_float(op, input, &kd)) != NB_OK || (st = nn_check_same_dtype(op, "weight", weight, input->dtype)) != NB_OK ||
        (st = nn_check_same_dtype(op, "bias", bias, input->dtype)) != NB_OK)
        return st;
    nb_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL;
    if (input->storage->device_type != NB_CPU) { /* the device's norm kernel, else composed from its ops */
        const nn_norm_kind k = {NB_NK_LAYER, ndim, 0};
        const nn_norm_geom g = nn_norm_geom_layer(input, ndim);
        st = nn_norm_fusable(input, weight, bias, NULL, NULL)
                 ? nn_norm_fused(op, &k, input, weight, bias, NULL, NULL, false, 0, eps, &y)
                 : nn_norm_composed(input, &g, weight, bias, eps, kd, &y, NULL, NULL);
        return st == NB_OK ? nn_deliver(op, y, input->dtype, dst, out) : st;
    }
    int64_t D = 1;
    for (int32_t i = 0; i < ndim; i++) D *= normalized_shape[i];
    const int64_t rows = D > 0 ? input->numel / D : 0;
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig_opt(weight, kd, &w)) != NB_OK ||
        (st = nn_contig_opt(bias, kd, &b)) != NB_OK ||
        (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                        (const nb_tensor*[3]){input, weight, bias}, 3, &y)) != NB_OK) {
        nn_release(x, w, b, y, NULL, NULL, NULL, NULL);
        return st;
    }
    if (rows > 0 && D > 0) {
        int nthreads = nn_threads((double)rows * (double)D);
        if (kd == NB_F32)
            layer_norm_f32(nb_tensor_data(x), nb_tensor_data(y), data_or_null(w), data_or_null(b), rows, D, eps, nthreads);
        else
            layer_norm_f64(nb_tensor_data(x), nb_tensor_data(y), data_or_null(w), data_or_null(b), rows, D, eps, nthreads);
    }
    nn_release(x, w, b, NULL, NULL, NULL, NULL, NULL);
    return nn_deliver(op, y, input->dtype, dst, out);
}

/* ---- batch_norm ---- */

/* A per-channel parameter (optional) of C elements, as doubles (owned by the caller, freed with nn_free). */
static nb_status channel_param(const char* op, const char* name, const nb_tensor* t, int64_t C, double** out) {
    *out = NULL;
    if (t == NULL) return NB_OK;
    if (t->numel != C)
        return nb_error(NB_ERR_SHAPE, "%s: %s should contain %lld elements not %lld", op, name, (long long)C,
                        (long long)t->numel);
    if (!nb_dtype_is_floating(t->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected %s to be a floating-point tensor, but got %s", op, name,
                        nb_dtype_str(t->dtype));
    double* v = nn_alloc(sizeof(double) * (size_t)(C > 0 ? C : 1));
    if (v == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    nb_tensor* c = NULL;
    nb_status st = nn_contig(t, NB_F64, &c);
    if (st != NB_OK) {
        nn_free(v);
        return st;
    }
    memcpy(v, nb_tensor_data(c), sizeof(double) * (size_t)C);
    nb_tensor_release(c);
    *out = v;
    return NB_OK;
}

/* running = (1 - momentum) * running + momentum * value, written back in place. */
static nb_status update_running(const char* op, nb_tensor* running, const double* value, double momentum, int64_t C) {
    nb_tensor* cur = NULL;
    nb_status st = nn_contig(running, NB_F64, &cur);
    if (st != NB_OK) return st;
    nb_tensor* upd = NULL;
    if ((st = nn_empty(op, &C, 1, NB_F64, &upd)) != NB_OK) {
        nb_tensor_release(cur);
        return st;
    }
    const double* r = nb_tensor_data(cur);
    double* u = nb_tensor_data(upd);
    for (int64_t c = 0; c < C; c++) u[c] = (1 - momentum) * r[c] + momentum * value[c];
    nb_tensor* view = NULL;  /* running may have any shape with C elements */
    if ((st = nb_tensor_view(upd, running->shape, running->ndim, &view)) == NB_OK) {
        st = nb_copy_into(op, running, view);
        if (st == NB_OK) nb_tensor_bump_version(running);
    }
    nn_release(cur, upd, view, NULL, NULL, NULL, NULL, NULL);
    return st;
}

/* running = (1 - momentum) running + momentum value, in place on the running tensor's device. */
static nb_status update_running_on_device(nb_tensor* running, const nb_tensor* value, double momentum) {
    nb_tensor *keep = NULL, *v = NULL;
    nb_status st = nb_scalar(1.0 - momentum, 0, NB_F64, &keep);
    if (st == NB_OK) st = nb_tensor_reshape(value, running->shape, running->ndim, &v);
    if (st == NB_OK) st = nb_mul(running, keep, running, NULL);
    if (st == NB_OK) st = nb_add(running, v, momentum, running, NULL);
    nb_tensor_release(keep), nb_tensor_release(v);
    return st;
}

/* batch_norm off the host, after nbi_batch_norm's checks: the parameters' sizes and dtypes are checked here
 * (the host path reads them), then the composed norm; batch statistics update the running ones. */
static nb_status batch_norm_off_host(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var,
                                     const nb_tensor* weight, const nb_tensor* bias, bool batch_stats, double momentum,
                                     double eps, int32_t kd, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "batch_norm";
    const int64_t C = input->shape[1];
    const nb_tensor* params[4] = {running_mean, running_var, weight, bias};
    static const char* const pnames[4] = {"running_mean", "running_var", "weight", "bias"};
    for (int k = 0; k < 4; k++) {
        if (params[k] == NULL) continue;
        if (params[k]->numel != C)
            return nb_error(NB_ERR_SHAPE, "%s: %s should contain %lld elements not %lld", op, pnames[k], (long long)C,
                            (long long)params[k]->numel);
        if (!nb_dtype_is_floating(params[k]->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: expected %s to be a floating-point tensor, but got %s", op, pnames[k],
                            nb_dtype_str(params[k]->dtype));
    }
    nb_tensor *y = NULL, *mean = NULL, *var = NULL;
    if (nn_norm_fusable(input, weight, bias, running_mean, running_var)) { /* one kernel, running stats included */
        const nn_norm_kind k = {NB_NK_BATCH, 0, 0};
        nb_status st = nn_norm_fused(op, &k, input, weight, bias, running_mean, running_var, batch_stats, momentum,
                                     eps, &y);
        return st == NB_OK ? nn_deliver(op, y, input->dtype, dst, out) : st;
    }
    const nn_norm_geom g = nn_norm_geom_batch(input);
    nb_status st = batch_stats ? nn_norm_composed(input, &g, weight, bias, eps, kd, &y, &mean, &var)
                               : nn_norm_with_stats_composed(input, &g, running_mean, running_var, weight, bias, eps,
                                                             kd, &y);
    if (st == NB_OK && batch_stats && running_mean != NULL) st = update_running_on_device(running_mean, mean, momentum);
    if (st == NB_OK && batch_stats && running_var != NULL) st = update_running_on_device(running_var, var, momentum);
    nb_tensor_release(mean), nb_tensor_release(var);
    if (st != NB_OK) {
        nb_tensor_release(y);
        return st;
    }
    return nn_deliver(op, y, input->dtype, dst, out);
}

nb_status nbi_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var,
                               const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum,
                               double eps, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "batch_norm";
    static const char* const names[6] = {"input", "running_mean", "running_var", "weight", "bias", "out"};
    nb_status st;
    int32_t kd;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_handle(op, "running_mean", running_mean, true)) != NB_OK ||
        (st = nn_check_handle(op, "running_var", running_var, true)) != NB_OK ||
        (st = nn_check_handle(op, "weight", weight, true)) != NB_OK ||
        (st = nn_check_handle(op, "bias", bias, true)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[6]){input, running_mean, running_var, weight, bias, dst},
                                   6)) != NB_OK)
        return st;
    if (training && running_mean != NULL) NB_CHECK_WRITABLE(op, running_mean);
    if (training && running_var != NULL) NB_CHECK_WRITABLE(op, running_var);
    if (input->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: expected input with at least 2 dims [N, C, *], got %s", op,
                        nb_shape_str(input->shape, input->ndim));
    if ((st = nn_check_float(op, input, &kd)) != NB_OK) return st;
    if (!training && (running_mean == NULL || running_var == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s must be defined in evaluation mode", op,
                        running_mean == NULL ? "running_mean" : "running_var");
    const int64_t N = input->shape[0], C = input->shape[1];
    const int64_t S = C > 0 && N > 0 ? input->numel / (N * C) : 0;
    int64_t spatial = 1;
    for (int32_t d = 2; d < input->ndim; d++) spatial *= input->shape[d];
    if (training && N * spatial == 1)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Expected more than 1 value per channel when training, got input "
                        "size %s", op, nb_shape_str(input->shape, input->ndim));
    if (input->storage->device_type != NB_CPU)
        return batch_norm_off_host(input, running_mean, running_var, weight, bias, training && N * spatial > 0, momentum,
                                   eps, kd, dst, out);
    double *rm = NULL, *rv = NULL, *w = NULL, *b = NULL, *mean = NULL, *var = NULL;
    nb_tensor *x = NULL, *y = NULL;
    if ((st = channel_param(op, "running_mean", running_mean, C, &rm)) != NB_OK ||
        (st = channel_param(op, "running_var", running_var, C, &rv)) != NB_OK ||
        (st = channel_param(op, "weight", weight, C, &w)) != NB_OK ||
        (st = channel_param(op, "bias", bias, C, &b)) != NB_OK)
        goto done;
    mean = nn_alloc(sizeof(double) * (size_t)(C + 1)), var = nn_alloc(sizeof(double) * (size_t)(C + 1));
    if (mean == NULL || var == NULL) {
        st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto done;
    }
    if (!training) memcpy(mean, rm, sizeof(double) * (size_t)C), memcpy(var, rv, sizeof(double) * (size_t)C);
    if ((st = nn_contig(input, kd, &x)) != NB_OK ||
        (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                        (const nb_tensor*[5]){input, weight, bias, running_mean, running_var}, 5, &y)) != NB_OK)
        goto done;
    const bool batch_stats = training && N * spatial > 0;
    if (N * S > 0) {
        int nthreads = nn_threads((double)input->numel);
        if (kd == NB_F32)
            batch_norm_f32(nb_tensor_data(x), nb_tensor_data(y), N, C, S, batch_stats, mean, var, w, b, eps, nthreads);
        else
            batch_norm_f64(nb_tensor_data(x), nb_tensor_data(y), N, C, S, batch_stats, mean, var, w, b, eps, nthreads);
    }
    if (batch_stats) {
        const double n = (double)(N * spatial);
        for (int64_t c = 0; c < C; c++) var[c] *= n / (n - 1);  /* unbiased, for the running estimate */
        if (running_mean != NULL && (st = update_running(op, running_mean, mean, momentum, C)) != NB_OK) goto done;
        if (running_var != NULL && (st = update_running(op, running_var, var, momentum, C)) != NB_OK) goto done;
    }
done:
    nn_free(rm), nn_free(rv), nn_free(w), nn_free(b), nn_free(mean), nn_free(var);
    nb_tensor_release(x);
    if (st != NB_OK) {
        nb_tensor_release(y);
        return st;
    }
    return nn_deliver(op, y, input->dtype, dst, out);
}

/* ---- group_norm ---- */

nb_status nbi_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight,
                               const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "group_norm";
    static const char* const names[4] = {"input", "weight", "bias", "out"};
    nb_status st;
    int32_t kd;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_handle(op, "weight", weight, true)) != NB_OK ||
        (st = nn_check_handle(op, "bias", bias, true)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[4]){input, weight, bias, dst}, 4)) != NB_OK)
        return st;
    if (input->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: Expected at least 2 dimensions for input tensor but received %d", op,
                        (int)input->ndim);
    if (num_groups <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: num_groups must be positive, but got num_groups=%lld", op,
                        (long long)num_groups);
    const int64_t N = input->shape[0], C = input->shape[1];
    const char* ishape = nb_shape_str(input->shape, input->ndim);
    if (C % num_groups != 0)
        return nb_error(NB_ERR_SHAPE, "%s: Expected number of channels in input to be divisible by num_groups, but got "
                        "input of shape %s and num_groups=%lld", op, ishape, (long long)num_groups);
    const nb_tensor* params[2] = {weight, bias};
    static const char* const pnames[2] = {"weight", "bias"};
    for (int k = 0; k < 2; k++)
        if (params[k] != NULL && (params[k]->ndim != 1 || params[k]->shape[0] != C))
            return nb_error(NB_ERR_SHAPE, "%s: Expected %s to be a vector of size equal to the number of channels in "
                            "input, but got %s of shape %s and input of shape %s", op, pnames[k], pnames[k],
                            nb_shape_str(params[k]->shape, params[k]->ndim), ishape);
    if ((st = nn_check_float(op, input, &kd)) != NB_OK || (st = nn_check_same_dtype(op, "weight", weight, input->dtype)) != NB_OK ||
        (st = nn_check_same_dtype(op, "bias", bias, input->dtype)) != NB_OK)
        return st;
    const int64_t S = N > 0 && C > 0 ? input->numel / (N * C) : 0;
    nb_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL;
    if (input->storage->device_type != NB_CPU) { /* the device's norm kernel, else composed from its ops */
        const nn_norm_kind k = {NB_NK_GROUP, 0, num_groups};
        const nn_norm_geom g = nn_norm_geom_group(input, num_groups);
        st = nn_norm_fusable(input, weight, bias, NULL, NULL)
                 ? nn_norm_fused(op, &k, input, weight, bias, NULL, NULL, false, 0, eps, &y)
                 : nn_norm_composed(input, &g, weight, bias, eps, kd, &y, NULL, NULL);
        return st == NB_OK ? nn_deliver(op, y, input->dtype, dst, out) : st;
    }
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig_opt(weight, kd, &w)) != NB_OK ||
        (st = nn_contig_opt(bias, kd, &b)) != NB_OK ||
        (st = nn_output(op, input->shape, input->ndim, kd, input->dtype, dst,
                        (const nb_tensor*[3]){input, weight, bias}, 3, &y)) != NB_OK) {
        nn_release(x, w, b, y, NULL, NULL, NULL, NULL);
        return st;
    }
    if (input->numel > 0) {
        int nthreads = nn_threads((double)input->numel);
        if (kd == NB_F32)
            group_norm_f32(nb_tensor_data(x), nb_tensor_data(y), N, C, S, num_groups, data_or_null(w),
                           data_or_null(b), eps, nthreads);
        else
            group_norm_f64(nb_tensor_data(x), nb_tensor_data(y), N, C, S, num_groups, data_or_null(w),
                           data_or_null(b), eps, nthreads);
    }
    nn_release(x, w, b, NULL, NULL, NULL, NULL, NULL);
    return nn_deliver(op, y, input->dtype, dst, out);
}
