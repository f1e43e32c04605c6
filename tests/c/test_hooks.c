/* test_hooks.c: the blocking hooks bracket big work on the calling thread, pair
 * up, and stay out of O(1) calls and small ops. */
#include "nbtest.h"

static int begins, ends, token_mismatches;
static int the_token;

static void* on_begin(void) {
    begins++;
    return &the_token;
}

static void on_end(void* token) {
    ends++;
    if (token != &the_token) token_mismatches++;
}

static nb_tensor* ones(int64_t n) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_ones(&n, 1, NB_F32, NB_CPU, 0, &t));
    return t;
}

TEST(test_small_work_calls_no_hook) {
    nb_tensor *a = ones(8), *b = ones(8), *c = NULL, *v = NULL;
    begins = ends = 0;
    nb_set_blocking_hooks(on_begin, on_end);
    CHECK_OK(nb_add(a, b, 1.0, NULL, &c));
    CHECK_OK(nb_tensor_transpose(a, 0, 0, &v));
    nb_set_blocking_hooks(NULL, NULL);
    CHECK_EQ_INT(begins, 0);
    CHECK_EQ_INT(ends, 0);
    nb_tensor_release(v);
    nb_tensor_release(c);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

TEST(test_big_work_is_bracketed) {
    const int64_t n = INT64_C(1) << 20;
    nb_tensor *a = ones(n), *b = ones(n), *c = NULL, *d = NULL;
    begins = ends = token_mismatches = 0;
    nb_set_blocking_hooks(on_begin, on_end);
    CHECK_OK(nb_add(a, b, 1.0, NULL, &c));       /* the elementwise driver */
    CHECK(begins >= 1);
    int after_add = begins;
    CHECK_OK(nb_tensor_to(a, NB_F64, NB_CPU, 0, 0, &d));  /* a converting copy */
    CHECK(begins > after_add);
    nb_set_blocking_hooks(NULL, NULL);
    CHECK_EQ_INT(begins, ends);
    CHECK_EQ_INT(token_mismatches, 0);
    const float* values = nb_tensor_data_ptr(c);
    CHECK(values[0] == 2.0f && values[n - 1] == 2.0f);
    nb_tensor_release(d);
    nb_tensor_release(c);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

TEST(test_half_installed_hooks_are_ignored) {
    const int64_t n = INT64_C(1) << 20;
    nb_tensor *a = ones(n), *c = NULL;
    begins = ends = 0;
    nb_set_blocking_hooks(on_begin, NULL);  /* a begin without an end would never pair up */
    CHECK_OK(nb_add(a, a, 1.0, NULL, &c));
    nb_set_blocking_hooks(NULL, NULL);
    CHECK_EQ_INT(begins, 0);
    nb_tensor_release(c);
    nb_tensor_release(a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_small_work_calls_no_hook);
    RUN(test_big_work_is_bracketed);
    RUN(test_half_installed_hooks_are_ignored);
    return NBT_END();
}
