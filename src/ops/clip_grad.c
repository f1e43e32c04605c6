/* clip_grad.c: gradient clipping over a list (PyTorch's nn.utils.clip_grad_norm_ and
 * clip_grad_value_). On the CPU the norm is summed per tensor in double and the
 * gradients scaled with one mul each; on a device the norm, the coefficient and the
 * scaling stay on the device as multi-tensor plans (optim_device.c), so nothing is read
 * back unless error_if_nonfinite asks for the norm. */
#include "nn_common.h"
#include "optim_device.h"
#include "../autograd/autograd.h"

#include <math.h>
#include <stdlib.h>

/* sum |x|^p (p finite) or max |x| (p infinite) of one contiguous array, in double. */
static double norm_part(const nb_tensor* t, double p) {
    const int64_t n = t->numel;
    const bool is64 = t->dtype == NB_F64, inf = isinf(p), two = p == 2.0, one = p == 1.0;
    const void* data = nb_tensor_data(t);
    double acc = 0;
    const int nthreads = nn_threads((double)n);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
    if (inf) {
#pragma omp parallel for reduction(max : acc) schedule(static) num_threads(nthreads) if (nthreads > 1)
        for (int64_t i = 0; i < n; i++) {
            const double x = fabs(is64 ? ((const double*)data)[i] : (double)((const float*)data)[i]);
            if (x > acc || x != x) acc = x != x ? NAN : x;
        }
    } else {
#pragma omp parallel for reduction(+ : acc) schedule(static) num_threads(nthreads) if (nthreads > 1)
        for (int64_t i = 0; i < n; i++) {
            const double x = fabs(is64 ? ((const double*)data)[i] : (double)((const float*)data)[i]);
            acc += p == 0 ? (double)(x != 0) : two ? x * x : one ? x : pow(x, p);
        }
    }
#pragma GCC diagnostic pop
    return acc;
}

/* The running total with one tensor's part: the max for p = inf; for p = 0 PyTorch's
 * norm of the per-tensor norms, i.e. the count of tensors with a non-zero entry. */
static double combine(double total, double part, double p) {
    if (isinf(p)) return (part > total || part != part) ? part : total;
    return total + (p == 0 ? (double)(part != 0) : part);
}

static nb_status nonfinite(const char* op, double norm_type) {
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: The total norm of order %g for gradients from `parameters` is "
                    "non-finite, so it cannot be clipped. To disable this error and scale the gradients by the "
                    "non-finite norm anyway, set `error_if_nonfinite=False`", op, norm_type);
}

/* Every grads[i] a live floating-point tensor on grads[0]'s device; written ones writable, not requiring grad. */
static nb_status check_list(const char* op, nb_tensor* const* grads, int32_t n, bool written) {
    if (n < 0 || (n > 0 && grads == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected a list of %d tensors", op, (int)n);
    nb_status st;
    static const char* const names[2] = {"grads", "grads"};
    for (int32_t i = 0; i < n; i++) {
        int32_t kd;
        if ((st = nn_check_handle(op, "grads", grads[i], false)) != NB_OK ||
            (st = nn_check_float(op, grads[i], &kd)) != NB_OK ||
            (st = nn_check_same_device(op, names, (const nb_tensor*[2]){grads[0], grads[i]}, 2)) != NB_OK)
            return st;
        if (written && grads[i]->storage->readonly) return nb_readonly_error(op, "grads");
        if (written && !nb_ag_disabled && nb_ag_requires(grads[i])) return nb_ag_nondifferentiable_write(op);
    }
    return NB_OK;
}

/* The host path: the norm in double, then one mul per gradient when clipping applies. */
static nb_status clip_host(const char* op, nb_tensor* const* grads, int32_t n, double max_norm, double norm_type,
                           int32_t error_if_nonfinite, int32_t dtype, nb_tensor** out) {
    nb_status st;
    double total = 0;
    for (int32_t i = 0; i < n; i++) {
        nb_tensor* c = NULL;
        if ((st = nn_contig(grads[i], grads[i]->dtype == NB_F64 ? NB_F64 : NB_F32, &c)) != NB_OK) return st;
        total = combine(total, norm_part(c, norm_type), norm_type);
        nb_tensor_release(c);
    }
    if (!isinf(norm_type) && norm_type != 0 && norm_type != 1) total = pow(total, 1.0 / norm_type);
    if (error_if_nonfinite && !isfinite(total)) return nonfinite(op, norm_type);
    nb_tensor* result = NULL;
    if ((st = nb_full(NULL, 0, total, dtype, NB_CPU, 0, &result)) != NB_OK) return st;
    /* PyTorch's coefficient, computed in the norm's dtype: max_norm / (total + 1e-6), clamped to 1. */
    double rounded;
    nb_tensor_item_double(result, &rounded);
    const double coef = dtype == NB_F64 ? max_norm / (rounded + 1e-6) : (double)((float)max_norm / ((float)rounded + 1e-6f));
    if ((coef < 1.0 || coef != coef) && !(isinf(max_norm) && max_norm > 0)) {
        nb_tensor* s = NULL;
        st = nb_scalar(coef, 0, NB_F64, &s);
        for (int32_t i = 0; i < n && st == NB_OK; i++) st = nb_mul(grads[i], s, grads[i], NULL);
        nb_tensor_release(s);
    }
    if (st != NB_OK) {
        nb_tensor_release(result);
        return st;
    }
    *out = result;
    return NB_OK;
}

/* The device path: NORM writes the 0-dim norm and the coefficient into the workspace, SCALE reads it there. */
static nb_status clip_device(const char* op, nb_tensor* const* grads, int32_t n, double max_norm, double norm_type,
                             int32_t error_if_nonfinite, int32_t dtype, nb_tensor** out) {
    const int32_t dt = grads[0]->storage->device_type, di = grads[0]->storage->device_index;
    int64_t* numel = malloc(sizeof(int64_t) * (size_t)n);
    if (numel == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    for (int32_t i = 0; i < n; i++) numel[i] = grads[i]->numel;
    int64_t bytes = nb_bk_optim_workspace_bytes(numel, n);
    free(numel);
    nb_tensor *result = NULL, *ws = NULL;
    nb_status st = nb_tensor_new(op, NULL, 0, dtype, dt, di, &result);
    if (st == NB_OK) st = nb_tensor_new(op, &bytes, 1, NB_U8, dt, di, &ws);
    nb_bk_optim p = {0};
    p.op = NB_OPK_NORM, p.p = norm_type, p.max_norm = max_norm, p.total_dtype = dtype;
    if (st == NB_OK) {
        p.total = nb_tensor_data(result), p.workspace = nb_tensor_data(ws), p.workspace_bytes = bytes;
        static const bool reads[1] = {false}, writes[1] = {true};
        st = nn_mt_run(op, &p, &grads, 1, reads, n);
        double norm = 0;
        if (st == NB_OK && error_if_nonfinite && (st = nb_tensor_item_double(result, &norm)) == NB_OK &&
            !isfinite(norm))
            st = nonfinite(op, norm_type);
        p.op = NB_OPK_SCALE;
        if (st == NB_OK && !(isinf(max_norm) && max_norm > 0)) st = nn_mt_run(op, &p, &grads, 1, writes, n);
    }
    nb_tensor_release(ws); /* reused only by later work on this stream */
    if (st != NB_OK) {
        nb_tensor_release(result);
        return st;
    }
    *out = result;
    return NB_OK;
}

NB_API nb_status nb_clip_grad_norm_(nb_tensor* const* grads, int32_t n, double max_norm, double norm_type,
                                    int32_t error_if_nonfinite, nb_tensor** out) {
    static const char* op = "clip_grad_norm_";
    NB_CHECK_OUT(op, out);
    if (!(norm_type > 0) && !(norm_type == 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: norm_type must be >= 0, got %g", op, norm_type);
    nb_status st = check_list(op, grads, n, true);
    if (st != NB_OK) return st;
    const int32_t dtype = n > 0 ? grads[0]->dtype : NB_F32;
    if (n > 0 && grads[0]->storage->device_type != NB_CPU)
        return clip_device(op, grads, n, max_norm, norm_type, error_if_nonfinite, dtype, out);
    return clip_host(op, grads, n, max_norm, norm_type, error_if_nonfinite, dtype, out);
}

NB_API nb_status nb_clip_grad_value_(nb_tensor* const* grads, int32_t n, double clip_value) {
    static const char* op = "clip_grad_value_";
    nb_status st = check_list(op, grads, n, true);
    if (st != NB_OK || n == 0) return st;
    if (grads[0]->storage->device_type != NB_CPU) {
        nb_bk_optim p = {0};
        p.op = NB_OPK_CLAMP, p.clip = clip_value;
        static const bool writes[1] = {true};
        return nn_mt_run(op, &p, &grads, 1, writes, n);
    }
    for (int32_t i = 0; i < n && st == NB_OK; i++) st = nb_clamp(grads[i], -clip_value, clip_value, grads[i], NULL);
    return st;
}
