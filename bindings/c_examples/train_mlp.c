/* train_mlp.c: a multilayer perceptron trained from C, written only against nabla.h.
 *
 * Data: two interleaved spirals (256 points, 2 classes), generated here with a
 * fixed seed. Model: 2 -> 32 -> 32 -> 2 with tanh, cross-entropy loss, full-batch
 * Adam (nabla's fused nb_adam_step), 400 steps. Stated result: at least 97%
 * accuracy on the training points and on 256 held-out points drawn the same way
 * with fresh noise (the program fails below it); the loss starts near ln 2. The
 * trained weights are then saved to a safetensors file (nb_save), loaded back
 * (nb_load) and must give the same accuracy.
 *
 *     cc train_mlp.c $(python -m nabla.config --cflags --libs) -lm -o train_mlp
 */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <nabla.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nb_status st_ = (call);                                                                        \
        if (st_ != NB_OK) {                                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_), nb_last_error_message()); \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

enum { N = 256, IN = 2, HID = 32, OUT = 2, STEPS = 400, NPARAM = 6 };
static const char* const NAMES[NPARAM] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "fc3.weight", "fc3.bias"};
static const double REQUIRED_ACCURACY = 0.97;
static int32_t device_type = NB_CPU, device_index = 0; /* where the model trains */

/* "cpu", "cuda" or "cuda:N" into device_type / device_index; false for anything else. */
static int parse_device(const char* name) {
    if (strcmp(name, "cpu") == 0) return device_type = NB_CPU, device_index = 0, 1;
    if (strncmp(name, "cuda", 4) != 0 || (name[4] != '\0' && name[4] != ':')) return 0;
    char* end = NULL;
    device_type = NB_CUDA;
    device_index = name[4] == ':' ? (int32_t)strtol(name + 5, &end, 10) : 0;
    return name[4] == '\0' || (end != name + 5 && *end == '\0' && device_index >= 0);
}

/* t moved to the training device (t itself on the CPU); takes over the caller's reference. */
static nb_tensor* on_device(nb_tensor* t) {
    if (device_type == NB_CPU) return t;
    nb_tensor* moved = NULL;
    TRY(nb_tensor_to(t, nb_tensor_dtype(t), device_type, device_index, 0, &moved));
    nb_tensor_release(t);
    return moved;
}

/* xorshift64*: the data's own random numbers, uniform on [0, 1). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * 0x1p-53;
}

/* Two spirals: class c at angle theta + c pi, radius growing with theta, small noise. */
static void make_spirals(float* x, int64_t* y) {
    for (int i = 0; i < N; i++) {
        const int c = i % 2;
        const double t = (double)(i / 2) / (N / 2), theta = 3.5 * t * 3.14159265358979 + c * 3.14159265358979;
        x[2 * i] = (float)(t * cos(theta) + 0.03 * (uniform() - 0.5));
        x[2 * i + 1] = (float)(t * sin(theta) + 0.03 * (uniform() - 0.5));
        y[i] = c;
    }
}

/* A parameter of the given shape, uniform on [-1/sqrt(fan_in), 1/sqrt(fan_in)) as PyTorch's
 * nn.Linear initialises, requiring grad. */
static nb_tensor* parameter(const int64_t* shape, int32_t ndim, int64_t fan_in, nb_generator* gen) {
    nb_tensor* p = NULL;
    const double bound = 1.0 / sqrt((double)fan_in);
    TRY(nb_empty(shape, ndim, NB_F32, NB_CPU, 0, &p));
    TRY(nb_uniform_(p, -bound, bound, gen));
    p = on_device(p);
    TRY(nb_tensor_set_requires_grad(p, 1));
    return p;
}

/* logits [N, OUT] of the network for inputs x [N, IN]. */
static nb_tensor* forward(nb_tensor* x, nb_tensor* const* p) {
    nb_tensor *h = NULL, *a = NULL, *logits = NULL;
    TRY(nb_linear(x, p[0], p[1], NULL, &h));
    TRY(nb_tanh(h, NULL, &a));
    nb_tensor_release(h);
    TRY(nb_linear(a, p[2], p[3], NULL, &h));
    nb_tensor_release(a);
    TRY(nb_tanh(h, NULL, &a));
    nb_tensor_release(h);
    TRY(nb_linear(a, p[4], p[5], NULL, &logits));
    nb_tensor_release(a);
    return logits;
}

static double accuracy(nb_tensor* x, nb_tensor* const* p, nb_tensor* labels) {
    const int32_t prev = nb_set_grad_enabled(0); /* evaluation records no graph */
    nb_tensor* logits = forward(x, p);
    nb_set_grad_enabled(prev);
    nb_tensor *pred = NULL, *hit = NULL, *count = NULL;
    const int64_t dim = 1;
    int64_t correct = 0;
    TRY(nb_argmax(logits, &dim, 0, NULL, &pred));
    TRY(nb_eq(pred, labels, NULL, &hit));
    TRY(nb_sum(hit, NULL, 0, 0, NB_DTYPE_DEFAULT, NULL, &count));
    TRY(nb_tensor_item_int(count, &correct));
    nb_tensor_release(pred);
    nb_tensor_release(hit);
    nb_tensor_release(count);
    nb_tensor_release(logits);
    return (double)correct / N;
}

int main(int argc, char** argv) {
    if (argc > 2 || (argc == 2 && !parse_device(argv[1]))) {
        fprintf(stderr, "usage: %s [cpu|cuda|cuda:N]\n", argv[0]);
        return 2;
    }
    static float xs[N * IN], xs_test[N * IN];
    static int64_t ys[N], ys_test[N];
    make_spirals(xs, ys);
    make_spirals(xs_test, ys_test); /* the same curves, fresh noise */
    const int64_t xshape[2] = {N, IN}, yshape[1] = {N};
    nb_tensor *x = NULL, *labels = NULL, *x_test = NULL, *labels_test = NULL;
    TRY(nb_tensor_from_host(xs, xshape, 2, NB_F32, device_type, device_index, &x));
    TRY(nb_tensor_from_host(ys, yshape, 1, NB_I64, device_type, device_index, &labels));
    TRY(nb_tensor_from_host(xs_test, xshape, 2, NB_F32, device_type, device_index, &x_test));
    TRY(nb_tensor_from_host(ys_test, yshape, 1, NB_I64, device_type, device_index, &labels_test));

    nb_generator* gen = NULL;
    TRY(nb_generator_create(0, &gen));
    const int64_t w1[2] = {HID, IN}, b1[1] = {HID}, w2[2] = {HID, HID}, w3[2] = {OUT, HID}, b3[1] = {OUT};
    nb_tensor* p[NPARAM] = {parameter(w1, 2, IN, gen),  parameter(b1, 1, IN, gen),  parameter(w2, 2, HID, gen),
                            parameter(b1, 1, HID, gen), parameter(w3, 2, HID, gen), parameter(b3, 1, HID, gen)};
    /* Adam's two moment buffers per parameter, zeros of its shape. */
    nb_tensor *m[NPARAM], *v[NPARAM];
    for (int i = 0; i < NPARAM; i++) {
        TRY(nb_zeros(nb_tensor_shape(p[i]), nb_tensor_ndim(p[i]), NB_F32, device_type, device_index, &m[i]));
        TRY(nb_zeros(nb_tensor_shape(p[i]), nb_tensor_ndim(p[i]), NB_F32, device_type, device_index, &v[i]));
    }

    /* NB_TEST_QUICK set (the test suite's valgrind run): 40 steps, and the loss need only fall. */
    const int quick = getenv("NB_TEST_QUICK") != NULL;
    const int steps = quick ? 40 : STEPS;
    const double required = quick ? 0.0 : REQUIRED_ACCURACY;
    double first_loss = 0, loss_value = 0;
    for (int step = 1; step <= steps; step++) {
        nb_tensor* logits = forward(x, p);
        nb_tensor* loss = NULL;
        TRY(nb_cross_entropy(logits, labels, NULL, NB_IGNORE_INDEX, NB_REDUCTION_MEAN, 0.0, NULL, &loss));
        const int report = step == 1 || step == steps || step % (quick ? 10 : 100) == 0;
        if (report) TRY(nb_tensor_item_double(loss, &loss_value)); /* the only read of the device */
        if (step == 1) first_loss = loss_value;
        /* Gradients as new tensors (the .grad fields stay empty), then one fused step each. */
        nb_tensor* grads[NPARAM] = {NULL};
        TRY(nb_autograd_grad(&loss, NULL, 1, p, NPARAM, 0, 0, 0, grads));
        const int32_t prev = nb_set_grad_enabled(0); /* updates are not recorded (PyTorch's no_grad) */
        for (int i = 0; i < NPARAM; i++) {
            TRY(nb_adam_step(p[i], grads[i], m[i], v[i], NULL, step, 0.02, 0.9, 0.999, 1e-8, 0.0, 0, 0, 0));
            nb_tensor_release(grads[i]);
        }
        nb_set_grad_enabled(prev);
        if (report) printf("step %3d  loss %.6f\n", step, loss_value);
        nb_tensor_release(loss);
        nb_tensor_release(logits);
    }

    const double acc = accuracy(x, p, labels), acc_test = accuracy(x_test, p, labels_test);
    printf("on %s: loss %.4f -> %.4f; accuracy %.1f%% on the training points, %.1f%% held out (required: %.0f%%)\n",
           argc == 2 ? argv[1] : "cpu", first_loss, loss_value, 100 * acc, 100 * acc_test, 100 * required);

    /* A checkpoint: the weights by name, plus a note; then the same model read back from it. */
    char path[512];
    const char* tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/train_mlp_%ld.safetensors", tmp ? tmp : "/tmp", (long)getpid());
    const char* meta_keys[1] = {"steps"};
    const char* meta_values[1] = {"400"};
    TRY(nb_save(path, NAMES, p, NPARAM, meta_keys, meta_values, 1));
    nb_checkpoint* ck = NULL;
    TRY(nb_load(path, &ck));
    nb_tensor* loaded[NPARAM];
    for (int i = 0; i < NPARAM; i++) {
        TRY(nb_checkpoint_get(ck, NAMES[i], &loaded[i]));
        loaded[i] = on_device(loaded[i]);
    }
    nb_checkpoint_release(ck);
    remove(path);
    const double acc_loaded = accuracy(x_test, loaded, labels_test);
    printf("reloaded from %s: %.1f%% held out\n", path, 100 * acc_loaded);

    for (int i = 0; i < NPARAM; i++) {
        nb_tensor_release(p[i]);
        nb_tensor_release(loaded[i]);
        nb_tensor_release(m[i]);
        nb_tensor_release(v[i]);
    }
    nb_tensor_release(x);
    nb_tensor_release(labels);
    nb_tensor_release(x_test);
    nb_tensor_release(labels_test);
    nb_generator_release(gen);
    return acc >= required && acc_test >= required && loss_value < first_loss && acc_loaded == acc_test ? 0 : 1;
}
