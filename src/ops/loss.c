/* loss.c: loss functions, forward.
 *
 * Classification (nll_loss, cross_entropy): input [C], [N, C] or [N, C, d1, ...]
 * with class-index targets (int64 or uint8) or, for cross_entropy, probability
 * targets shaped like the input. cross_entropy works from the logits with a
 * per-position log-sum-exp, never materialising log_softmax.
 *
 * Pointwise (mse, l1, smooth_l1, huber, binary_cross_entropy[_with_logits],
 * kl_div): operands are broadcast, made dense, and one pass computes each
 * element in double, writing it (reduction 'none') or summing it.
 *
 * Reductions: 0 none, 1 mean, 2 sum. float16/bfloat16 results are rounded from
 * the float32/double computation. */
#include "loss_composed.h"
#include "loss_device.h"
#include "nn_common.h"

#include "../core/elementwise.h"

#include <math.h>
#include <string.h>

/* ---- classification ---- */

typedef struct {
    int64_t N, C, S;  /* batch, classes, positions per item */
    int64_t ignore_index;
    double smoothing;
    bool logits;      /* cross_entropy: input is logits; nll_loss: log-probabilities */
} cls_geom;

/* e^x for float kernels in plain arithmetic, so that loops of it vectorize (Cephes' expf: Cody-Waite range
 * reduction and a degree-5 polynomial, about 1 ulp; n rounded with the 1.5 * 2^23 trick, since floorf does
 * not vectorize under the default -ftrapping-math). NaN propagates; x < -87.3 gives about 1e-38. */
static inline float nn_expf(float x) {
    x = x < -87.3f ? -87.3f : x;
    x = x > 88.7f ? 88.7f : x;
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    n = n == n ? n : 0.0f;
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    const float p = ((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
                     1.6666665459e-1f) * r + 5.0000001201e-1f;
    const float e = p * r * r + r + 1.0f;
    const uint32_t bits = (uint32_t)((int32_t)n + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return e * scale;
}

#define LSE_BLOCK 64

/* Loss per position into loss[N*S] (may be NULL), summed into sums[0] (loss) and sums[1] (weights). Work is
 * split into (item, block of up to LSE_BLOCK positions); the log-sum-exp over classes is vectorized over the
 * classes when there is one position per item (S == 1), else over the positions of the block. Returns the
 * first out-of-range target, or INT64_MIN when all are valid. */
#define CLS_KERNEL(T, SUF, EXP)                                                                                 \
    /* lse[j] = log sum_c exp(x[c * S + j]) for the B positions of a block */                                   \
    NN_CLONES static void lse_##SUF(const T* x, int64_t C, int64_t S, int64_t B, double* lse) {                 \
        if (S == 1) {                                                                                           \
            T m = -(T)INFINITY, e = 0;                                                                          \
            _Pragma("omp simd reduction(max:m)") for (int64_t c = 0; c < C; c++) m = x[c] > m ? x[c] : m;       \
            _Pragma("omp simd reduction(+:e)") for (int64_t c = 0; c < C; c++) e += EXP(x[c] - m);              \
            lse[0] = (double)m + log((double)e);                                                                \
            return;                                                                                             \
        }                                                                                                       \
        T m[LSE_BLOCK], e[LSE_BLOCK];                                                                           \
        for (int64_t j = 0; j < B; j++) m[j] = -(T)INFINITY, e[j] = 0;                                          \
        for (int64_t c = 0; c < C; c++) {                                                                       \
            const T* xc = x + c * S;                                                                            \
            _Pragma("omp simd") for (int64_t j = 0; j < B; j++) m[j] = xc[j] > m[j] ? xc[j] : m[j];             \
        }                                                                                                       \
        for (int64_t c = 0; c < C; c++) {                                                                       \
            const T* xc = x + c * S;                                                                            \
            _Pragma("omp simd") for (int64_t j = 0; j < B; j++) e[j] += EXP(xc[j] - m[j]);                      \
        }                                                                                                       \
        for (int64_t j = 0; j < B; j++) lse[j] = (double)m[j] + log((double)e[j]);                              \
    }                                                                                                           \
    /* sum_c w_c (x_c - lse) t_c over classes at stride S; w and t optional (1), t smoothed as PyTorch does:  \
     * t_c (1 - ls) + ls / C. */                                                                               \
    NN_CLONES static double wdot_##SUF(const T* x, int64_t C, int64_t S, const T* w, const T* t, double lse,    \
                                       double ls) {                                                            \
        const double keep = 1 - ls, spread = ls / (double)C;                                                    \
        double acc = 0;                                                                                         \
        if (S == 1 && t == NULL && w == NULL) {                                                                 \
            _Pragma("omp simd reduction(+:acc)") for (int64_t c = 0; c < C; c++) acc += (double)x[c] - lse;     \
        } else if (S == 1 && t == NULL) {                                                                       \
            _Pragma("omp simd reduction(+:acc)") for (int64_t c = 0; c < C; c++)                                \
                acc += (double)w[c] * ((double)x[c] - lse);                                                     \
        } else if (S == 1 && w == NULL) {                                                                       \
            _Pragma("omp simd reduction(+:acc)") for (int64_t c = 0; c < C; c++)                                \
                acc += ((double)x[c] - lse) * ((double)t[c] * keep + spread);                                   \
        } else if (S == 1) {                                                                                    \
            _Pragma("omp simd reduction(+:acc)") for (int64_t c = 0; c < C; c++)                                \
                acc += (double)w[c] * ((double)x[c] - lse) * ((double)t[c] * keep + spread);                    \
        } else {                                                                                                \
            for (int64_t c = 0; c < C; c++)                                                                     \
                acc += (w != NULL ? (double)w[c] : 1.0) * ((double)x[c * S] - lse) *                            \
                       (t != NULL ? (double)t[c * S] * keep + spread : 1.0);                                    \
        }                                                                                                       \
        return acc;                                                                                             \
    }                                                                                                           \
    static int64_t cls_index_##SUF(const cls_geom* g, const T* x, const void* target, bool u8, const T* w,      \
                                   double* loss, double* sums, int nthreads) {                                  \
        const int64_t N = g->N, C = g->C, S = g->S, nb = (S + LSE_BLOCK - 1) / LSE_BLOCK;                       \
        double total = 0, wsum = 0;                                                                             \
        int64_t bad = INT64_MIN;                                                                                \
        _Pragma("omp parallel for schedule(dynamic, 16) reduction(+:total, wsum) num_threads(nthreads) if(nthreads > 1)") \
        for (int64_t task = 0; task < N * nb; task++) {                                                         \
            const int64_t n = task / nb, s0 = task % nb * LSE_BLOCK;                                            \
            const int64_t B = S - s0 < LSE_BLOCK ? S - s0 : LSE_BLOCK;                                          \
            double lse[LSE_BLOCK] = {0};                                                                        \
            if (g->logits) lse_##SUF(x + n * C * S + s0, C, S, B, lse);                                         \
            for (int64_t j = 0; j < B; j++) {                                                                   \
                const int64_t i = n * S + s0 + j;                                                               \
                const int64_t t = u8 ? (int64_t)((const uint8_t*)target)[i] : ((const int64_t*)target)[i];      \
                if (t == g->ignore_index) {                                                                     \
                    if (loss != NULL) loss[i] = 0;                                                              \
                    continue;                                                                                   \
                }                                                                                               \
                if (t < 0 || t >= C) {                                                                          \
                    _Pragma("omp critical(nn_loss_bad)") if (bad == INT64_MIN) bad = t;                          \
                    continue;                                                                                   \
                }                                                                                               \
                const T* xi = x + n * C * S + s0 + j;                                                           \
                const double wt = w != NULL ? (double)w[t] : 1.0;                                               \
                double l = -wt * ((double)xi[t * S] - lse[j]);                                                  \
                if (g->smoothing > 0) {                                                                         \
                    const double sm = -wdot_##SUF(xi, C, S, w, NULL, lse[j], 0.0);                              \
                    l = (1 - g->smoothing) * l + g->smoothing / (double)C * sm;                                 \
                }                                                                                               \
                if (loss != NULL) loss[i] = l;                                                                  \
                total += l;                                                                                     \
                wsum += wt;                                                                                     \
            }                                                                                                   \
        }                                                                                                       \
        sums[0] = total, sums[1] = wsum;                                                                        \
        return bad;                                                                                             \
    }                                                                                                           \
    static void cls_prob_##SUF(const cls_geom* g, const T* x, const T* target, const T* w, double* loss,         \
                               double* sums, int nthreads) {                                                    \
        const int64_t N = g->N, C = g->C, S = g->S, nb = (S + LSE_BLOCK - 1) / LSE_BLOCK;                       \
        double total = 0;                                                                                       \
        _Pragma("omp parallel for schedule(dynamic, 16) reduction(+:total) num_threads(nthreads) if(nthreads > 1)") \
        for (int64_t task = 0; task < N * nb; task++) {                                                         \
            const int64_t n = task / nb, s0 = task % nb * LSE_BLOCK;                                            \
            const int64_t B = S - s0 < LSE_BLOCK ? S - s0 : LSE_BLOCK;                                          \
            double lse[LSE_BLOCK];                                                                              \
            lse_##SUF(x + n * C * S + s0, C, S, B, lse);                                                        \
            for (int64_t j = 0; j < B; j++) {                                                                   \
                const int64_t i = n * S + s0 + j;                                                               \
                const T* xi = x + n * C * S + s0 + j;                                                           \
                const T* ti = target + n * C * S + s0 + j;                                                      \
                const double l = -wdot_##SUF(xi, C, S, w, ti, lse[j], g->smoothing);                            \
                if (loss != NULL) loss[i] = l;                                                                  \
                total += l;                                                                                     \
            }                                                                                                   \
        }                                                                                                       \
        sums[0] = total, sums[1] = (double)(N * S);                                                             \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
CLS_KERNEL(float, f32, nn_expf)
CLS_KERNEL(double, f64, exp)
#pragma GCC diagnostic pop

/* A double array of n values as a new tensor of `shape` in dtype kd. */
static nb_status from_doubles(const char* op, const double* v, const int64_t* shape, int32_t ndim, int32_t kd,
                              nb_tensor** out) {
    nb_tensor* r = NULL;
    nb_status st = nn_empty(op, shape, ndim, kd, &r);
    if (st != NB_OK) return st;
    if (kd == NB_F32) {
        float* p = nb_tensor_data(r);
        for (int64_t i = 0; i < r->numel; i++) p[i] = (float)v[i];
    } else {
        memcpy(nb_tensor_data(r), v, sizeof(double) * (size_t)r->numel);
    }
    *out = r;
    return NB_OK;
}

static nb_status classification(const char* op, bool logits, const nb_tensor* input, const nb_tensor* target,
                                const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double smoothing,
                                nb_tensor* dst, nb_tensor** out) {
    nb_status st;
    int32_t kd;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_handle(op, "target", target, false)) != NB_OK ||
        (st = nn_check_handle(op, "weight", weight, true)) != NB_OK || (st = nn_check_reduction(op, reduction)) != NB_OK)
        return st;
    const nb_tensor* placed[4] = {input, target, weight, dst};
    static const char* const placed_names[4] = {"input", "target", "weight", "out"};
    if ((st = nn_check_same_device(op, placed_names, placed, 4)) != NB_OK) return st;
    if (input->ndim < 1)
        return nb_error(NB_ERR_SHAPE, "%s: Expected 1 or more dimensions (got 0)", op);
    if ((st = nn_check_float(op, input, &kd)) != NB_OK) return st;
    if (!(smoothing >= 0.0 && smoothing <= 1.0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: label_smoothing must be between 0.0 and 1.0. Got: %g", op, smoothing);
    cls_geom g = {.ignore_index = ignore_index, .smoothing = smoothing, .logits = logits};
    const bool batched = input->ndim >= 2;
    g.N = batched ? input->shape[0] : 1;
    g.C = input->shape[batched ? 1 : 0];
    g.S = 1;
    for (int32_t d = 2; d < input->ndim; d++) g.S *= input->shape[d];
    const char* ishape = nb_shape_str(input->shape, input->ndim);
    const char* tshape = nb_shape_str(target->shape, target->ndim);
    const bool probs = logits && nb_dtype_is_floating(target->dtype);
    if (probs) {
        if (target->ndim != input->ndim || memcmp(target->shape, input->shape, sizeof(int64_t) * (size_t)input->ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "%s: expected a probability target of the input's shape %s, but got %s", op,
                            ishape, tshape);
        if (ignore_index != -100)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ignore_index is not supported for floating point target", op);
    } else {
        if (target->dtype != NB_I64 && target->dtype != NB_U8)
            return nb_error(NB_ERR_DTYPE, "%s: expected target dtype to be int64 or uint8 (or floating probabilities "
                            "for cross_entropy), but got %s", op, nb_dtype_str(target->dtype));
        if (!batched && target->ndim != 0)
            return nb_error(NB_ERR_SHAPE, "%s: expected a 0-D target for an unbatched input %s, but got %s", op, ishape,
                            tshape);
        if (batched && target->ndim >= 1 && target->shape[0] != input->shape[0])
            return nb_error(NB_ERR_SHAPE, "%s: Expected input batch_size (%lld) to match target batch_size (%lld).", op,
                            (long long)input->shape[0], (long long)target->shape[0]);
        bool ok = !batched || target->ndim == input->ndim - 1;
        for (int32_t d = 2; ok && d < input->ndim; d++) ok = target->shape[d - 1] == input->shape[d];
        if (!ok) {
            int64_t want[NB_MAX_DIMS];
            want[0] = input->shape[0];
            for (int32_t d = 2; d < input->ndim; d++) want[d - 1] = input->shape[d];
            return nb_error(NB_ERR_SHAPE, "%s: Expected target size %s, got %s", op,
                            nb_shape_str(want, input->ndim - 1), tshape);
        }
    }
    if (weight != NULL && (weight->ndim != 1 || weight->shape[0] != g.C))
        return nb_error(NB_ERR_SHAPE, "%s: weight tensor should be defined either for all %lld classes or no classes "
                        "but got weight tensor of shape: %s", op, (long long)g.C,
                        nb_shape_str(weight->shape, weight->ndim));
    if (weight != NULL && !nb_dtype_is_floating(weight->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected a floating-point weight, but got %s", op, nb_dtype_str(weight->dtype));

    nb_tensor *x = NULL, *t = NULL, *w = NULL, *result = NULL;
    if (input->storage->device_type != NB_CPU) { /* the device's loss kernel, else composed from its ops */
        st = nn_cls_fusable(input, target, weight)
                 ? nn_cls_loss_fused(op, logits, input, target, weight, ignore_index, reduction, smoothing, &result)
                 : nn_classification_loss_composed(op, logits, input, target, weight, ignore_index, reduction,
                                                   smoothing, kd, &result);
        return st == NB_OK ? nn_deliver(op, result, input->dtype, dst, out) : st;
    }
    double* loss = NULL;
    const int64_t npos = g.N * g.S;
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig(target, probs ? kd : target->dtype, &t)) != NB_OK ||
        (st = nn_contig_opt(weight, kd, &w)) != NB_OK)
        goto done;
    if (reduction == NN_RED_NONE && (loss = nn_alloc(sizeof(double) * (size_t)(npos > 0 ? npos : 1))) == NULL) {
        st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto done;
    }
    double sums[2] = {0, 0};
    int64_t bad = INT64_MIN;
    const int nthreads = nn_threads((double)npos * (double)g.C * (logits ? 8.0 : 1.0));
    const void* wp = w != NULL ? nb_tensor_data(w) : NULL;
    if (probs) {
        if (kd == NB_F32) cls_prob_f32(&g, nb_tensor_data(x), nb_tensor_data(t), wp, loss, sums, nthreads);
        else cls_prob_f64(&g, nb_tensor_data(x), nb_tensor_data(t), wp, loss, sums, nthreads);
    } else if (kd == NB_F32) {
        bad = cls_index_f32(&g, nb_tensor_data(x), nb_tensor_data(t), t->dtype == NB_U8, wp, loss, sums, nthreads);
    } else {
        bad = cls_index_f64(&g, nb_tensor_data(x), nb_tensor_data(t), t->dtype == NB_U8, wp, loss, sums, nthreads);
    }
    if (bad != INT64_MIN) {
        st = nb_error(NB_ERR_INDEX, "%s: Target %lld is out of bounds.", op, (long long)bad);
        goto done;
    }
    if (reduction == NN_RED_NONE) {
        int64_t shape[NB_MAX_DIMS];  /* the input's shape without the class dim */
        int32_t ndim = 0;
        if (batched) shape[ndim++] = g.N;
        for (int32_t d = 2; d < input->ndim; d++) shape[ndim++] = input->shape[d];
        st = from_doubles(op, loss, shape, ndim, kd, &result);
    } else {
        const double v = reduction == NN_RED_SUM ? sums[0] : sums[0] / sums[1];
        st = from_doubles(op, &v, NULL, 0, kd, &result);
    }
done:
    nn_free(loss);
    nn_release(x, t, w, NULL, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(result);
        return st;
    }
    return nn_deliver(op, result, input->dtype, dst, out);
}

nb_status nbi_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                             int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    return classification("nll_loss", false, input, target, weight, ignore_index, reduction, 0.0, dst, out);
}

nb_status nbi_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                                  int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst,
                                  nb_tensor** out) {
    return classification("cross_entropy", true, input, target, weight, ignore_index, reduction, label_smoothing, dst,
                          out);
}

/* ---- pointwise losses ---- */

enum { PW_MSE = NN_PW_MSE, PW_L1 = NN_PW_L1, PW_SMOOTH_L1 = NN_PW_SMOOTH_L1, PW_HUBER = NN_PW_HUBER, PW_BCE = NN_PW_BCE,
       PW_BCE_LOGITS = NN_PW_BCE_LOGITS, PW_KL = NN_PW_KL, PW_KL_LOG = NN_PW_KL_LOG };

static inline double pw_value(int kind, double x, double t, double w, double pw, double p) {
    switch (kind) {
    case PW_MSE: return (x - t) * (x - t);
    case PW_L1: return fabs(x - t);
    case PW_SMOOTH_L1: {
        const double z = fabs(x - t);
        return p == 0 ? z : z < p ? 0.5 * z * z / p : z - 0.5 * p;
    }
    case PW_HUBER: {
        const double z = fabs(x - t);
        return z < p ? 0.5 * z * z : p * (z - 0.5 * p);
    }
    case PW_BCE: {
        const double lx = log(x) > -100 ? log(x) : -100, l1x = log1p(-x) > -100 ? log1p(-x) : -100;
        return w * ((t - 1) * l1x - t * lx);
    }
    case PW_BCE_LOGITS: {
        const double lw = 1 + (pw - 1) * t;  /* log_sigmoid(x) = -(log1p(exp(-|x|)) + max(-x, 0)) */
        return w * ((1 - t) * x + lw * (log1p(exp(-fabs(x))) + (x < 0 ? -x : 0)));
    }
    case PW_KL: return (t == 0 ? 0.0 : t * log(t)) - t * x;
    default: return exp(t) * (t - x); /* PW_KL_LOG */
    }
}

#define PW_KERNEL(T, SUF)                                                                                       \
    static double pw_##SUF(int kind, int64_t n, const T* x, const T* t, const T* w, const T* pw, double p, T* y, \
                           double* wsum_out, bool* out_of_range, int nthreads) {                                \
        double total = 0, wsum = 0;                                                                             \
        bool bad = false;                                                                                       \
        _Pragma("omp parallel for schedule(static) reduction(+:total, wsum) reduction(||:bad) num_threads(nthreads) if(nthreads > 1)") \
        for (int64_t i = 0; i < n; i++) {                                                                       \
            const double xi = (double)x[i], wi = w != NULL ? (double)w[i] : 1.0;                                \
            if (kind == PW_BCE && !(xi >= 0 && xi <= 1)) bad = true;                                            \
            double v = pw_value(kind, xi, (double)t[i], wi, pw != NULL ? (double)pw[i] : 1.0, p);               \
            if (kind != PW_BCE && kind != PW_BCE_LOGITS) v *= wi;                                               \
            if (y != NULL) y[i] = (T)v;                                                                         \
            total += v;                                                                                         \
            wsum += wi;                                                                                         \
        }                                                                                                       \
        *out_of_range = bad;                                                                                    \
        *wsum_out = wsum;                                                                                       \
        return total;                                                                                           \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
PW_KERNEL(float, f32)
PW_KERNEL(double, f64)
#pragma GCC diagnostic pop

static const char* const pw_names[] = {"input", "target", "weight", "pos_weight"};

/* ops[0..3]: input, target, weight, pos_weight (the last two optional). same_shape: target must match input
 * exactly, and the weights broadcast to the input's shape. same_dtype: target must have the input's dtype.
 * The regression losses take an elementwise weight of exactly the input's shape. */
static nb_status pointwise(const char* op, int kind, const nb_tensor* const* ops, bool same_shape, bool same_dtype,
                           int32_t reduction, double p, nb_tensor* dst, nb_tensor** out) {
    nb_status st;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_reduction(op, reduction)) != NB_OK)
        return st;
    for (int i = 0; i < 4; i++)
        if ((st = nn_check_handle(op, pw_names[i], ops[i], i >= 2)) != NB_OK) return st;
    const nb_tensor* placed[5] = {ops[0], ops[1], ops[2], ops[3], dst};
    static const char* const placed_names[5] = {"input", "target", "weight", "pos_weight", "out"};
    if ((st = nn_check_same_device(op, placed_names, placed, 5)) != NB_OK) return st;
    const nb_tensor *input = ops[0], *target = ops[1];
    if (same_dtype && target->dtype != input->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: Found dtype %s but expected %s", op, nb_dtype_str(target->dtype),
                        nb_dtype_str(input->dtype));
    const int32_t dtype = nb_promote_types(input->dtype, target->dtype);
    const int32_t kd = nn_kernel_dtype(dtype);
    if (kd < 0) return nb_error(NB_ERR_DTYPE, "%s: not implemented for '%s'", op, nb_dtype_str(dtype));
    if (same_shape && (target->ndim != input->ndim ||
                       memcmp(target->shape, input->shape, sizeof(int64_t) * (size_t)input->ndim) != 0))
        return nb_error(NB_ERR_SHAPE, "%s: target size %s must be the same as input size %s", op,
                        nb_shape_str(target->shape, target->ndim), nb_shape_str(input->shape, input->ndim));
    const bool regression = kind == PW_MSE || kind == PW_L1 || kind == PW_HUBER;
    if (regression && ops[2] != NULL &&
        (ops[2]->ndim != input->ndim || memcmp(ops[2]->shape, input->shape, sizeof(int64_t) * (size_t)input->ndim) != 0))
        return nb_error(NB_ERR_SHAPE, "%s: Weights and input must have the same size (weight %s, input %s).", op,
                        nb_shape_str(ops[2]->shape, ops[2]->ndim), nb_shape_str(input->shape, input->ndim));
    const nb_tensor* present[4];
    int np = 0;
    for (int i = 0; i < 4; i++)
        if (ops[i] != NULL) present[np++] = ops[i];
    int64_t shape[NB_MAX_DIMS];
    int32_t ndim;
    if ((st = nb_broadcast_shapes(op, present, np, shape, &ndim)) != NB_OK) return st;
    if (same_shape && (ndim != input->ndim || memcmp(shape, input->shape, sizeof(int64_t) * (size_t)ndim) != 0))
        return nb_error(NB_ERR_SHAPE, "%s: weights of shape %s and %s must broadcast to the input size %s", op,
                        ops[2] ? nb_shape_str(ops[2]->shape, ops[2]->ndim) : "[]",
                        ops[3] ? nb_shape_str(ops[3]->shape, ops[3]->ndim) : "[]", nb_shape_str(input->shape, input->ndim));
    nb_tensor* y = NULL;
    if (input->storage->device_type != NB_CPU) { /* no loss kernels there: composed from elementwise ops */
        st = nn_pointwise_loss_composed(op, kind, ops, reduction, p, kd, &y);
        return st == NB_OK ? nn_deliver(op, y, dtype, dst, out) : st;
    }
    nb_tensor* dense[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4 && st == NB_OK; i++) {
        if (ops[i] == NULL) continue;
        nb_tensor* view = NULL;
        st = nb_tensor_expand(ops[i], shape, ndim, &view);
        if (st == NB_OK) st = nn_contig(view, kd, &dense[i]);
        nb_tensor_release(view);
    }
    if (st == NB_OK && reduction == NN_RED_NONE) st = nn_empty(op, shape, ndim, kd, &y);
    if (st != NB_OK) {
        nn_release(dense[0], dense[1], dense[2], dense[3], y, NULL, NULL, NULL);
        return st;
    }
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; d++) n *= shape[d];
    const void* d2 = dense[2] ? nb_tensor_data(dense[2]) : NULL;
    const void* d3 = dense[3] ? nb_tensor_data(dense[3]) : NULL;
    void* yp = y != NULL ? nb_tensor_data(y) : NULL;
    bool out_of_range = false;
    const int nthreads = nn_threads((double)n * 4);
    double wsum = 0;
    const double total = kd == NB_F32 ? pw_f32(kind, n, nb_tensor_data(dense[0]), nb_tensor_data(dense[1]), d2, d3, p,
                                               yp, &wsum, &out_of_range, nthreads)
                                      : pw_f64(kind, n, nb_tensor_data(dense[0]), nb_tensor_data(dense[1]), d2, d3, p,
                                               yp, &wsum, &out_of_range, nthreads);
    nn_release(dense[0], dense[1], dense[2], dense[3], NULL, NULL, NULL, NULL);
    if (out_of_range) {
        nb_tensor_release(y);
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: all elements of input should be between 0 and 1", op);
    }
    if (reduction != NN_RED_NONE) {
        /* weighted mse / l1: the mean divides by the summed weights (PyTorch's Python-level weighting) */
        const bool by_weight = ops[2] != NULL && (kind == PW_MSE || kind == PW_L1);
        const double v = reduction == NN_RED_MEAN && by_weight ? total / wsum : nn_reduce(total, n, reduction);
        if ((st = from_doubles(op, &v, NULL, 0, kd, &y)) != NB_OK) return st;
    }
    return nn_deliver(op, y, dtype, dst, out);
}

nb_status nbi_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                             int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ops[4] = {input, target, weight, NULL};
    return pointwise("mse_loss", PW_MSE, ops, false, false, reduction, 0, dst, out);
}

nb_status nbi_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                             int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ops[4] = {input, target, weight, NULL};
    return pointwise("l1_loss", PW_L1, ops, false, false, reduction, 0, dst, out);
}

nb_status nbi_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta,
                                   nb_tensor* dst, nb_tensor** out) {
    if (!(beta >= 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "smooth_l1_loss: smooth_l1_loss does not support negative values for beta.");
    const nb_tensor* ops[4] = {input, target, NULL, NULL};
    return pointwise("smooth_l1_loss", PW_SMOOTH_L1, ops, false, false, reduction, beta, dst, out);
}

nb_status nbi_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                               int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    if (!(delta > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "huber_loss: huber_loss does not support non-positive values for delta.");
    const nb_tensor* ops[4] = {input, target, weight, NULL};
    return pointwise("huber_loss", PW_HUBER, ops, false, false, reduction, delta, dst, out);
}

nb_status nbi_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight,
                                         int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ops[4] = {input, target, weight, NULL};
    return pointwise("binary_cross_entropy", PW_BCE, ops, true, true, reduction, 0, dst, out);
}

nb_status nbi_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target,
                                                     const nb_tensor* weight, const nb_tensor* pos_weight,
                                                     int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ops[4] = {input, target, weight, pos_weight};
    return pointwise("binary_cross_entropy_with_logits", PW_BCE_LOGITS, ops, true, false, reduction, 0, dst, out);
}

nb_status nbi_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target,
                           nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* ops[4] = {input, target, NULL, NULL};
    return pointwise("kl_div", log_target ? PW_KL_LOG : PW_KL, ops, false, false, reduction, 0, dst, out);
}
