/* autograd_expression.c: reverse-mode gradients of a small expression, from C.
 *
 *     f(x, w) = sum(tanh(x * w) + x^2 / 2)     x [3, 4], w [4] (broadcast over rows)
 *
 * nb_backward fills x.grad and w.grad; the program checks them against the
 * derivatives written by hand:
 *
 *     df/dx = w (1 - tanh(x w)^2) + x
 *     df/dw = sum over rows of x (1 - tanh(x w)^2)   (the broadcast is summed back)
 *
 *     cc autograd_expression.c $(python -m nabla.config --cflags --libs) -lm -o autograd_expression
 */
#include <nabla.h>

#include <math.h>
#include <stdio.h>

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nb_status st_ = (call);                                                                        \
        if (st_ != NB_OK) {                                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_), nb_last_error_message()); \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

enum { R = 3, C = 4 };

/* Largest relative difference between a gradient tensor and expected values. */
static double max_rel_err(const nb_tensor* g, const float* want, int n) {
    float got[R * C];
    if (nb_tensor_copy_to_host(g, got, (int64_t)n * (int64_t)sizeof(float)) != NB_OK) return INFINITY;
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const double e = fabs((double)got[i] - want[i]) / (fabs(want[i]) + 1e-6);
        if (e > worst) worst = e;
    }
    return worst;
}

int main(void) {
    float xs[R * C], ws[C];
    for (int i = 0; i < R * C; i++) xs[i] = (float)((i % 7) - 3) * 0.25f;
    for (int j = 0; j < C; j++) ws[j] = 0.5f - 0.3f * (float)j;
    const int64_t xshape[2] = {R, C}, wshape[1] = {C};
    nb_tensor *x = NULL, *w = NULL;
    TRY(nb_tensor_from_host(xs, xshape, 2, NB_F32, NB_CPU, 0, &x));
    TRY(nb_tensor_from_host(ws, wshape, 1, NB_F32, NB_CPU, 0, &w));
    TRY(nb_tensor_set_requires_grad(x, 1));
    TRY(nb_tensor_set_requires_grad(w, 1));

    /* The forward pass records a graph because x and w require grad. */
    nb_tensor *xw = NULL, *t = NULL, *sq = NULL, *terms = NULL, *f = NULL;
    TRY(nb_mul(x, w, NULL, &xw));                 /* [3, 4], w broadcast */
    TRY(nb_tanh(xw, NULL, &t));
    TRY(nb_square(x, NULL, &sq));
    TRY(nb_add(t, sq, 0.5, NULL, &terms));        /* t + 0.5 * sq */
    TRY(nb_sum(terms, NULL, 0, 0, -1, NULL, &f)); /* every dim: a 0-dim result */
    double value = 0;
    TRY(nb_tensor_item_double(f, &value));

    /* Backward from the scalar f (grad_outputs NULL means ones). */
    TRY(nb_backward((nb_tensor* const*)&f, NULL, 1, 0, 0));
    nb_tensor *gx = NULL, *gw = NULL;
    TRY(nb_tensor_get_grad(x, &gx));
    TRY(nb_tensor_get_grad(w, &gw));

    /* The same derivatives by hand, in double. */
    float want_x[R * C], want_w[C] = {0};
    double want_f = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            const double xv = xs[i * C + j], th = tanh(xv * ws[j]);
            want_f += th + 0.5 * xv * xv;
            want_x[i * C + j] = (float)(ws[j] * (1 - th * th) + xv);
            want_w[j] += (float)(xv * (1 - th * th));
        }
    const double ex = max_rel_err(gx, want_x, R * C), ew = max_rel_err(gw, want_w, C);
    printf("f(x, w) = %.6f (by hand %.6f)\n", value, want_f);
    printf("df/dx: largest relative error %.2e over %d elements\n", ex, R * C);
    printf("df/dw: largest relative error %.2e over %d elements (the broadcast summed back)\n", ew, C);
    const int ok = ex < 1e-5 && ew < 1e-5 && fabs(value - want_f) < 1e-5 * fabs(want_f);
    printf("%s\n", ok ? "gradients match" : "GRADIENTS DIFFER");

    nb_tensor* all[] = {gw, gx, f, terms, sq, t, xw, w, x};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) nb_tensor_release(all[i]);
    return ok ? 0 : 1;
}
