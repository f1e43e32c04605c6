/* custom_function.c: a differentiable operation defined in C and trained through.
 *
 * softsign(x) = x / (1 + |x|) is computed with grad mode off, then recorded with
 * nb_autograd_function_record: its backward, g / (1 + |x|)^2, is a C closure
 * (function pointer + payload + destructor). A one-parameter model
 * y = softsign(w * x) is fitted to data made with w = 3 by plain gradient descent.
 *
 *   cc custom_function.c $(python -m nabla.config --cflags --libs) -o custom_function
 */
#include <nabla.h>

#include <stdio.h>
#include <stdlib.h>

#define TRY(call)                                                                        \
    do {                                                                                 \
        nb_status st_ = (call);                                                          \
        if (st_ != NB_OK) {                                                              \
            fprintf(stderr, "%s failed: %s\n", #call, nb_last_error_message());           \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

/* The payload: 1 + |x|, kept from the forward for the backward. */
static void release_payload(void* payload) { nb_tensor_release(payload); }

static nb_status softsign_backward(void* payload, int32_t n_grad_outputs, nb_tensor* const* grad_outputs,
                                   int32_t n_grad_inputs, nb_tensor** grad_inputs) {
    (void)n_grad_outputs, (void)n_grad_inputs;
    nb_tensor* denom = payload;
    nb_tensor* sq = NULL;
    nb_status st = nb_mul(denom, denom, NULL, &sq);
    if (st == NB_OK) st = nb_div(grad_outputs[0], sq, NB_ROUND_NONE, NULL, &grad_inputs[0]);
    nb_tensor_release(sq);
    return st;
}

static nb_tensor* softsign(nb_tensor* x) {
    nb_tensor *a = NULL, *one = NULL, *denom = NULL, *y = NULL;
    int32_t prev = nb_set_grad_enabled(0);
    TRY(nb_abs(x, NULL, &a));
    TRY(nb_scalar(1.0, 1, NB_F32, &one));
    TRY(nb_add(a, one, 1.0, NULL, &denom));
    TRY(nb_div(x, denom, NB_ROUND_NONE, NULL, &y));
    nb_set_grad_enabled(prev);
    nb_tensor_release(a);
    nb_tensor_release(one);
    /* denom now belongs to the node; release_payload drops it with the graph. */
    TRY(nb_autograd_function_record("Softsign", (const nb_tensor* const*)&x, 1, &y, 1, NULL, softsign_backward,
                                    denom, release_payload));
    return y;
}

int main(void) {
    enum { N = 64 };
    float xs[N], ys[N];
    for (int i = 0; i < N; i++) {
        xs[i] = -2.0f + 4.0f * (float)i / (N - 1);
        ys[i] = 3.0f * xs[i] / (1.0f + (3.0f * xs[i] < 0 ? -3.0f * xs[i] : 3.0f * xs[i]));
    }
    int64_t n = N, one_elem = 1;
    float w0 = 0.5f;
    nb_tensor *x = NULL, *target = NULL, *w = NULL;
    TRY(nb_tensor_from_host(xs, &n, 1, NB_F32, NB_CPU, 0, &x));
    TRY(nb_tensor_from_host(ys, &n, 1, NB_F32, NB_CPU, 0, &target));
    TRY(nb_tensor_from_host(&w0, &one_elem, 1, NB_F32, NB_CPU, 0, &w));
    TRY(nb_tensor_set_requires_grad(w, 1));
    for (int step = 0; step <= 200; step++) {
        nb_tensor *wx = NULL, *y = NULL, *diff = NULL, *sq = NULL, *loss = NULL, *grad = NULL;
        TRY(nb_mul(w, x, NULL, &wx));
        y = softsign(wx);
        TRY(nb_sub(y, target, 1.0, NULL, &diff));
        TRY(nb_mul(diff, diff, NULL, &sq));
        TRY(nb_mean(sq, NULL, 0, 0, -1, NULL, &loss));
        TRY(nb_backward((nb_tensor* const*)&loss, NULL, 1, 0, 0));
        TRY(nb_tensor_get_grad(w, &grad));
        int32_t prev = nb_set_grad_enabled(0);
        TRY(nb_sub(w, grad, 2.0, w, NULL)); /* w -= lr * grad */
        nb_set_grad_enabled(prev);
        TRY(nb_tensor_set_grad(w, NULL));
        double l = 0, wv = 0;
        TRY(nb_tensor_item_double(loss, &l));
        TRY(nb_tensor_item_double(w, &wv));
        if (step % 50 == 0) printf("step %3d  loss %.6f  w %.4f\n", step, l, wv);
        nb_tensor_release(grad);
        nb_tensor_release(loss);
        nb_tensor_release(sq);
        nb_tensor_release(diff);
        nb_tensor_release(y);
        nb_tensor_release(wx);
    }
    double wv = 0;
    TRY(nb_tensor_item_double(w, &wv));
    printf("fitted w = %.4f (data made with w = 3)\n", wv);
    nb_tensor_release(w);
    nb_tensor_release(target);
    nb_tensor_release(x);
    return wv > 2.9 && wv < 3.1 ? 0 : 1;
}
