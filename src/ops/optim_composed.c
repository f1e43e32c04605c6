/* optim_composed.c: the optimizer steps on devices without optimizer kernels (CUDA
 * today), as PyTorch's single-tensor formulas in in-place elementwise ops (one
 * launch per op, not fused: CUDA part 2 fuses them). Operands in another dtype than
 * the kernel's go through a copy that is written back at the end. */
#include "optim_composed.h"

#include "composed.h"

#include <math.h>

#define OPT_MAX 5

/* The kd working copy of each operand (the operand itself when already kd). */
typedef struct {
    nb_tensor* const* user;
    nb_tensor* w[OPT_MAX];
    int32_t n;
    bool grad_was_on;
} opt_set;

static void begin(nb_cx* e, opt_set* s, nb_tensor* const* v, int32_t n, int32_t kd) {
    s->user = v, s->n = n;
    for (int32_t i = 0; i < n; i++) s->w[i] = v[i] != NULL ? cx_cast(e, v[i], kd) : NULL;
    s->grad_was_on = nb_set_grad_enabled(0) != 0;
}

/* Writes the copies back into the operands they came from (not the grad), restores grad mode. */
static nb_status end(nb_cx* e, opt_set* s) {
    nb_status st = e->st;
    for (int32_t i = 0; i < s->n && st == NB_OK; i++)
        if (i != 1 && s->user[i] != NULL && s->w[i] != s->user[i]) st = nb_tensor_copy_(s->user[i], s->w[i]);
    nb_set_grad_enabled(s->grad_was_on);
    nb_cx_release(e);
    return st;
}

/* In place: dst = a + alpha b (dst may be a). */
static void add_into(nb_cx* e, nb_tensor* dst, const nb_tensor* a, const nb_tensor* b, double alpha) {
    if (e->st == NB_OK) e->st = nb_add(a, b, alpha, dst, NULL);
}
static void scale_into(nb_cx* e, nb_tensor* dst, double s) {
    if (e->st == NB_OK) e->st = nb_mul(dst, cx_scalar(e, s), dst, NULL);
}
static void copy_into(nb_cx* e, nb_tensor* dst, const nb_tensor* src) {
    if (e->st == NB_OK) e->st = nb_tensor_copy_(dst, src);
}

/* The gradient with maximize and L2 weight decay applied (a new temporary). */
static nb_tensor* effective_grad(nb_cx* e, nb_tensor* p, nb_tensor* grad, bool maximize, double weight_decay) {
    nb_tensor* g = maximize ? cx_unary(e, nb_neg, grad) : grad;
    return weight_decay != 0 ? cx_add(e, g, cx_mul(e, p, cx_scalar(e, weight_decay))) : g;
}

nb_status nn_sgd_composed(nb_tensor* const* v, int32_t kd, double lr, double momentum, double dampening,
                          double weight_decay, bool nesterov, bool maximize, bool init_buffer) {
    nb_cx e = NB_CX_INIT;
    opt_set s;
    begin(&e, &s, v, 3, kd);
    nb_tensor *p = s.w[0], *buf = s.w[2];
    nb_tensor* g = effective_grad(&e, p, s.w[1], maximize, weight_decay);
    if (momentum != 0) {
        if (init_buffer) {
            copy_into(&e, buf, g);
        } else {
            scale_into(&e, buf, momentum);
            add_into(&e, buf, buf, g, 1.0 - dampening);
        }
        g = nesterov ? cx_add(&e, g, cx_mul(&e, buf, cx_scalar(&e, momentum))) : buf;
    }
    add_into(&e, p, p, g, -lr);
    return end(&e, &s);
}

nb_status nn_adam_composed(nb_tensor* const* v, int32_t kd, double lr, double beta1, double beta2, double eps,
                           double weight_decay, double step_size, double bc2_sqrt, bool decoupled, bool amsgrad,
                           bool maximize) {
    nb_cx e = NB_CX_INIT;
    opt_set s;
    begin(&e, &s, v, 5, kd);
    nb_tensor *p = s.w[0], *m = s.w[2], *sq = s.w[3], *smax = s.w[4];
    nb_tensor* g = effective_grad(&e, p, s.w[1], maximize, decoupled ? 0.0 : weight_decay);
    add_into(&e, m, m, cx_sub(&e, g, m), 1.0 - beta1);
    scale_into(&e, sq, beta2);
    add_into(&e, sq, sq, cx_mul(&e, g, g), 1.0 - beta2);
    nb_tensor* second = sq;
    if (amsgrad) {
        if (e.st == NB_OK) e.st = nb_maximum(smax, sq, smax, NULL);
        second = smax;
    }
    nb_tensor* denom = cx_add(&e, cx_mul(&e, cx_unary(&e, nb_sqrt, second), cx_scalar(&e, 1.0 / bc2_sqrt)),
                              cx_scalar(&e, eps));
    if (decoupled && weight_decay != 0) scale_into(&e, p, 1.0 - lr * weight_decay);
    add_into(&e, p, p, cx_divide(&e, m, denom), -step_size);
    return end(&e, &s);
}

nb_status nn_rmsprop_composed(nb_tensor* const* v, int32_t kd, double lr, double alpha, double eps,
                              double weight_decay, double momentum, bool centered, bool maximize) {
    nb_cx e = NB_CX_INIT;
    opt_set s;
    begin(&e, &s, v, 5, kd);
    nb_tensor *p = s.w[0], *sq = s.w[2], *ga = s.w[3], *buf = s.w[4];
    nb_tensor* g = effective_grad(&e, p, s.w[1], maximize, weight_decay);
    scale_into(&e, sq, alpha);
    add_into(&e, sq, sq, cx_mul(&e, g, g), 1.0 - alpha);
    nb_tensor* var = sq;
    if (centered) {
        add_into(&e, ga, ga, cx_sub(&e, g, ga), 1.0 - alpha);
        var = cx_sub(&e, sq, cx_mul(&e, ga, ga));
    }
    nb_tensor* step = cx_divide(&e, g, cx_add(&e, cx_unary(&e, nb_sqrt, var), cx_scalar(&e, eps)));
    if (momentum > 0) {
        scale_into(&e, buf, momentum);
        add_into(&e, buf, buf, step, 1.0);
        step = buf;
    }
    add_into(&e, p, p, step, -lr);
    return end(&e, &s);
}

nb_status nn_adagrad_composed(nb_tensor* const* v, int32_t kd, double clr, double eps, double weight_decay,
                              bool maximize) {
    nb_cx e = NB_CX_INIT;
    opt_set s;
    begin(&e, &s, v, 3, kd);
    nb_tensor *p = s.w[0], *sum = s.w[2];
    nb_tensor* g = effective_grad(&e, p, s.w[1], maximize, weight_decay);
    add_into(&e, sum, sum, cx_mul(&e, g, g), 1.0);
    add_into(&e, p, p, cx_divide(&e, g, cx_add(&e, cx_unary(&e, nb_sqrt, sum), cx_scalar(&e, eps))), -clr);
    return end(&e, &s);
}

nb_status nn_norm_part_composed(const nb_tensor* g, double p, double* out) {
    nb_cx e = NB_CX_INIT;
    nb_tensor* a = cx_unary(&e, nb_abs, cx_cast(&e, g, g->dtype == NB_F64 ? NB_F64 : NB_F32));
    nb_tensor* part = NULL;
    *out = 0; /* the max of nothing: no contribution */
    if (e.st == NB_OK && !(isinf(p) && a->numel == 0)) {
        if (isinf(p)) {
            e.st = nb_amax(a, NULL, 0, 0, NULL, &part);
        } else {
            nb_tensor* terms = p == 0 ? cx_cast(&e, cx_ne(&e, a, cx_scalar(&e, 0)), NB_F64)
                                      : p == 1 ? a : p == 2 ? cx_mul(&e, a, a)
                                                            : cx_binary(&e, nb_pow, a, cx_scalar(&e, p));
            if (e.st == NB_OK) e.st = nb_sum(terms, NULL, 0, 0, NB_F64, NULL, &part);
        }
    }
    if (e.st == NB_OK && part != NULL) e.st = nb_tensor_item_double(part, out);
    nb_tensor_release(part);
    nb_status st = e.st;
    nb_cx_release(&e);
    return st;
}
