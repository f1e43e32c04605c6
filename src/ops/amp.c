/* amp.c: the two steps of gradient scaling (PyTorch's _amp_foreach_non_finite_check_and_unscale_
 * and _amp_update_scale_), so every frontend can build a GradScaler without a host sync per
 * parameter: the flag and the scale stay in tensors on the gradients' device.
 *
 * On the CPU a contiguous gradient is unscaled and checked in one pass, a strided one goes
 * through public ops; on a device every gradient is one multi-tensor plan (optim_device.c). */
#include "optim_device.h"

#include <math.h>

static nb_status check_scalar_f32(const char* op, const char* arg, const nb_tensor* t, int32_t dtype,
                                  int32_t device_type, int32_t device_index) {
    if (!nb_tensor_ok(t)) return nb_bad_handle(op, arg, t);
    if (t->numel != 1)
        return nb_error(NB_ERR_SHAPE, "%s: %s must be a 1-element tensor, got shape %s", op, arg,
                        nb_shape_str(t->shape, t->ndim));
    if (t->dtype != dtype)
        return nb_error(NB_ERR_DTYPE, "%s: %s must be a %s tensor, got %s", op, arg, nb_dtype_name(dtype),
                        nb_dtype_name(t->dtype));
    if (t->storage->device_type != device_type || t->storage->device_index != device_index)
        return nb_error(NB_ERR_DEVICE, "%s: %s must be on %s:%d like the gradients, got %s:%d", op, arg,
                        nb_device_type_name(device_type), (int)device_index,
                        nb_device_type_name(t->storage->device_type), (int)t->storage->device_index);
    return NB_OK;
}

static bool is_float(int32_t dt) { return dt == NB_F32 || dt == NB_F64 || dt == NB_F16 || dt == NB_BF16; }

/* One pass over a contiguous CPU gradient: g *= inv (unless inv == 1), true when g held a non-finite value. */
static bool unscale_cpu(nb_tensor* g, float inv) {
    const int64_t n = g->numel;
    int bad = 0;
    void* p = nb_tensor_data(g);
    switch (g->dtype) {
    case NB_F32: {
        float* x = p;
#pragma omp parallel for reduction(| : bad) if (n > 65536)
        for (int64_t i = 0; i < n; i++) {
            bad |= !isfinite(x[i]);
            if (inv != 1.f) x[i] *= inv;
        }
        break;
    }
    case NB_F64: {
        double* x = p;
#pragma omp parallel for reduction(| : bad) if (n > 65536)
        for (int64_t i = 0; i < n; i++) {
            bad |= !isfinite(x[i]);
            if (inv != 1.f) x[i] *= (double)inv;
        }
        break;
    }
    default: { /* f16 / bf16: computed in float, as PyTorch's opmath */
        uint16_t* x = p;
        const bool half = g->dtype == NB_F16;
#pragma omp parallel for reduction(| : bad) if (n > 65536)
        for (int64_t i = 0; i < n; i++) {
            float v = half ? nb_half_to_float(x[i]) : nb_bf16_to_float(x[i]);
            bad |= !isfinite(v);
            if (inv != 1.f) x[i] = half ? nb_float_to_half(v * inv) : nb_float_to_bf16(v * inv);
        }
    }
    }
    return bad != 0;
}

/* found_inf = max(found_inf, any(!isfinite(g))); g *= inv_scale: device work only. */
static nb_status unscale_ops(nb_tensor* g, nb_tensor* found_inf, const nb_tensor* inv0d) {
    nb_tensor *fin = NULL, *bad = NULL, *any = NULL;
    nb_status st = nb_isfinite(g, NULL, &fin);
    if (st == NB_OK) st = nb_logical_not(fin, NULL, &bad);
    if (st == NB_OK) st = nb_any(bad, NULL, 0, 0, NULL, &any);
    if (st == NB_OK) st = nb_maximum(found_inf, any, found_inf, NULL);
    if (st == NB_OK) st = nb_mul(g, inv0d, g, NULL);
    nb_tensor_release(fin);
    nb_tensor_release(bad);
    nb_tensor_release(any);
    return st;
}

nb_status nbi_amp_foreach_non_finite_check_and_unscale_(nb_tensor* const* grads, int32_t n, nb_tensor* found_inf,
                                                         const nb_tensor* inv_scale) {
    static const char* op = "amp_foreach_non_finite_check_and_unscale_";
    if (n < 0 || (n > 0 && grads == NULL))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected a list of %d tensors", op, (int)n);
    NB_CHECK_TENSOR(op, found_inf);
    const int32_t dt = found_inf->storage->device_type, di = found_inf->storage->device_index;
    nb_status st;
    if ((st = check_scalar_f32(op, "found_inf", found_inf, NB_F32, dt, di)) != NB_OK ||
        (st = check_scalar_f32(op, "inv_scale", inv_scale, NB_F32, dt, di)) != NB_OK)
        return st;
    NB_CHECK_WRITABLE(op, found_inf);
    for (int32_t i = 0; i < n; i++) { /* all checks first: on failure no gradient has changed */
        const nb_tensor* g = grads[i];
        if (!nb_tensor_ok(g)) return nb_bad_handle(op, "grads", g);
        if (!is_float(g->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: gradients must be floating point, but gradient %d is %s", op, (int)i,
                            nb_dtype_name(g->dtype));
        if (g->storage->device_type != dt || g->storage->device_index != di)
            return nb_error(NB_ERR_DEVICE, "%s: gradient %d is on %s:%d, found_inf on %s:%d", op, (int)i,
                            nb_device_type_name(g->storage->device_type), (int)g->storage->device_index,
                            nb_device_type_name(dt), (int)di);
        NB_CHECK_WRITABLE(op, g);
    }
    if (dt == NB_CPU) {
        const float inv = *(const float*)nb_tensor_data(inv_scale);
        float* flag = nb_tensor_data(found_inf);
        nb_tensor* inv0d = NULL;
        for (int32_t i = 0; i < n && st == NB_OK; i++) {
            nb_tensor* g = grads[i];
            if (g->contiguous) {
                if (unscale_cpu(g, inv)) *flag = 1.f;
                continue;
            }
            if (inv0d == NULL && (st = nb_tensor_view(inv_scale, NULL, 0, &inv0d)) != NB_OK) break;
            st = unscale_ops(g, found_inf, inv0d);
        }
        nb_tensor_release(inv0d);
        return st;
    }
    nb_bk_optim p = {0}; /* a device: one multi-tensor plan over every gradient */
    p.op = NB_OPK_UNSCALE, p.found_inf = nb_tensor_data(found_inf), p.inv_scale = nb_tensor_data(inv_scale);
    static const bool writes[1] = {true};
    st = nn_mt_run(op, &p, &grads, 1, writes, n);
    if (st == NB_OK) nb_tensor_bump_version(found_inf);
    return st;
}

/* The device form of update_scale: where() over the three scalars, queued on the device. */
static nb_status update_ops(nb_tensor* scale, nb_tensor* tracker, const nb_tensor* found_inf, double growth_factor,
                            double backoff_factor, int64_t growth_interval) {
    nb_tensor *found = NULL, *succ = NULL, *grow = NULL, *notfound = NULL, *reached = NULL, *grown = NULL,
              *fin = NULL, *ok = NULL, *backed = NULL, *zero = NULL, *one = NULL, *interval = NULL, *reset = NULL,
              *s1 = NULL, *gf = NULL, *bf = NULL, *izero = NULL;
    const int32_t dt = scale->storage->device_type, di = scale->storage->device_index;
    nb_status st = nb_full(NULL, 0, 0, NB_F32, dt, di, &zero);
    if (st == NB_OK) st = nb_gt(found_inf, zero, NULL, &found);
    if (st == NB_OK) st = nb_full(NULL, 0, 1, NB_I32, dt, di, &one);
    if (st == NB_OK) st = nb_add(tracker, one, 1, NULL, &succ);
    if (st == NB_OK) st = nb_full(NULL, 0, (double)growth_interval, NB_I32, dt, di, &interval);
    if (st == NB_OK) st = nb_eq(succ, interval, NULL, &reached);
    if (st == NB_OK) st = nb_logical_not(found, NULL, &notfound);
    if (st == NB_OK) st = nb_logical_and(notfound, reached, NULL, &grow);
    if (st == NB_OK) st = nb_full(NULL, 0, growth_factor, NB_F64, dt, di, &gf); /* scale * factor in double */
    if (st == NB_OK) st = nb_full(NULL, 0, backoff_factor, NB_F64, dt, di, &bf);
    if (st == NB_OK) st = nb_mul(scale, gf, NULL, &grown);
    if (st == NB_OK) st = nb_isfinite(grown, NULL, &fin);
    if (st == NB_OK) st = nb_logical_and(grow, fin, NULL, &ok);
    if (st == NB_OK) st = nb_mul(scale, bf, NULL, &backed);
    if (st == NB_OK) st = nb_where(ok, grown, scale, NULL, &s1);
    if (st == NB_OK) st = nb_where(found, backed, s1, scale, NULL);
    if (st == NB_OK) st = nb_logical_or(found, grow, NULL, &reset);
    if (st == NB_OK) st = nb_full(NULL, 0, 0, NB_I32, dt, di, &izero);
    if (st == NB_OK) st = nb_where(reset, izero, succ, tracker, NULL);
    nb_tensor* all[] = {found, succ, grow, notfound, reached, grown, fin, ok, backed, zero, one, interval, reset, s1, gf, bf,
                        izero};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) nb_tensor_release(all[i]);
    return st;
}

nb_status nbi_amp_update_scale_(nb_tensor* scale, nb_tensor* growth_tracker, const nb_tensor* found_inf,
                                double growth_factor, double backoff_factor, int64_t growth_interval) {
    static const char* op = "amp_update_scale_";
    NB_CHECK_TENSOR(op, scale);
    const int32_t dt = scale->storage->device_type, di = scale->storage->device_index;
    nb_status st;
    if ((st = check_scalar_f32(op, "scale", scale, NB_F32, dt, di)) != NB_OK ||
        (st = check_scalar_f32(op, "growth_tracker", growth_tracker, NB_I32, dt, di)) != NB_OK ||
        (st = check_scalar_f32(op, "found_inf", found_inf, NB_F32, dt, di)) != NB_OK)
        return st;
    if (!(growth_factor > 1.0) || !(backoff_factor > 0.0 && backoff_factor < 1.0) || growth_interval <= 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT,
                        "%s: expected growth_factor > 1, 0 < backoff_factor < 1 and growth_interval > 0, got %g, %g, "
                        "%lld", op, growth_factor, backoff_factor, (long long)growth_interval);
    NB_CHECK_WRITABLE(op, scale);
    NB_CHECK_WRITABLE(op, growth_tracker);
    if (dt != NB_CPU) return update_ops(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
    float* s = nb_tensor_data(scale);
    int32_t* tr = nb_tensor_data(growth_tracker);
    if (*(const float*)nb_tensor_data(found_inf) != 0.f) { /* PyTorch's _amp_update_scale_ */
        *s = (float)(*s * backoff_factor);
        *tr = 0;
    } else {
        int32_t successful = *tr + 1;
        if (successful == growth_interval) {
            float grown = (float)(*s * growth_factor);
            if (isfinite(grown)) *s = grown;
            *tr = 0;
        } else {
            *tr = successful;
        }
    }
    return NB_OK;
}
