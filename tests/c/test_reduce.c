/* test_reduce.c: the reduction family through the C ABI: values on a small
 * tensor, both outputs of nb_max_dim, out= destinations, every bad input
 * failing with a status and a message naming the op and the values (out
 * parameters untouched), and no leaked tensors. */
#include "nbtest.h"

static char sentinel_byte;
#define SENTINEL ((nb_tensor*)(void*)&sentinel_byte)
static nb_tensor *out, *out2;

#define FAILS(code, s1, s2, call)                 \
    do {                                          \
        out = out2 = SENTINEL;                    \
        CHECK_STATUS(call, code, s1);             \
        CHECK_MSG(s2);                            \
        CHECK(out == SENTINEL && out2 == SENTINEL); \
    } while (0)

static const int64_t S23[2] = {2, 3};

/* The values of t, which must have n elements. */
static void expect(nb_tensor* t, const double* want, int64_t n) {
    double got[16];
    CHECK_EQ_INT(nbt_values(t, got, 16), n);
    for (int64_t i = 0; i < n; i++) CHECK_EQ_DBL(got[i], want[i]);
    nb_tensor_release(t);
}

TEST(test_values) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);  /* [[0, 1, 2], [3, 4, 5]] */
    const int64_t d0 = 0, d1 = 1, both[2] = {-1, 0};
    CHECK_OK(nb_sum(t, NULL, 0, 0, -1, NULL, &out));
    expect(out, (double[]){15}, 1);
    CHECK_OK(nb_sum(t, &d0, 1, 0, -1, NULL, &out));
    expect(out, (double[]){3, 5, 7}, 3);
    CHECK_OK(nb_mean(t, &d1, 1, 1, -1, NULL, &out));
    CHECK_EQ_INT(nb_tensor_ndim(out), 2);
    expect(out, (double[]){1, 4}, 2);
    CHECK_OK(nb_prod(t, &d1, 1, 0, NB_I64, NULL, &out));
    CHECK_EQ_INT(nb_tensor_dtype(out), NB_I64);
    expect(out, (double[]){0, 60}, 2);
    CHECK_OK(nb_amax(t, both, 2, 0, NULL, &out));
    expect(out, (double[]){5}, 1);
    CHECK_OK(nb_amin(t, &d0, 1, 0, NULL, &out));
    expect(out, (double[]){0, 1, 2}, 3);
    CHECK_OK(nb_max_dim(t, 1, 0, NULL, NULL, &out, &out2));
    CHECK_EQ_INT(nb_tensor_dtype(out2), NB_I64);
    expect(out, (double[]){2, 5}, 2);
    expect(out2, (double[]){2, 2}, 2);
    CHECK_OK(nb_min_dim(t, 0, 1, NULL, NULL, &out, &out2));
    expect(out, (double[]){0, 1, 2}, 3);
    expect(out2, (double[]){0, 0, 0}, 3);
    CHECK_OK(nb_argmax(t, NULL, 0, NULL, &out));
    expect(out, (double[]){5}, 1);
    CHECK_OK(nb_argmin(t, &d1, 0, NULL, &out));
    expect(out, (double[]){0, 0}, 2);
    CHECK_OK(nb_var(t, &d1, 1, 1.0, 0, NULL, &out));
    expect(out, (double[]){1, 1}, 2);
    CHECK_OK(nb_std(t, &d0, 1, 0.0, 0, NULL, &out));
    expect(out, (double[]){1.5, 1.5, 1.5}, 3);
    CHECK_OK(nb_norm(t, 1.0, NULL, 0, 0, -1, NULL, &out));
    expect(out, (double[]){15}, 1);
    CHECK_OK(nb_norm(t, INFINITY, &d1, 1, 0, NB_F64, NULL, &out));
    expect(out, (double[]){2, 5}, 2);
    CHECK_OK(nb_all(t, &d1, 1, 0, NULL, &out));
    CHECK_EQ_INT(nb_tensor_dtype(out), NB_BOOL);
    expect(out, (double[]){0, 1}, 2);
    CHECK_OK(nb_any(t, NULL, 0, 0, NULL, &out));
    expect(out, (double[]){1}, 1);
    CHECK_OK(nb_cumsum(t, 1, -1, NULL, &out));
    expect(out, (double[]){0, 1, 3, 3, 7, 12}, 6);
    CHECK_OK(nb_cumprod(t, 0, NB_F64, NULL, &out));
    expect(out, (double[]){0, 1, 2, 0, 4, 10}, 6);
    CHECK_OK(nb_logsumexp(t, &d0, 1, 0, NULL, &out));
    double lse[3];
    CHECK_EQ_INT(nbt_values(out, lse, 3), 3);
    CHECK(fabs(lse[0] - (3 + log1p(exp(-3)))) < 1e-6);
    nb_tensor_release(out);
    CHECK_OK(nb_softmax(t, 1, -1, NULL, &out));
    double sm[6];
    CHECK_EQ_INT(nbt_values(out, sm, 6), 6);
    CHECK(fabs(sm[0] + sm[1] + sm[2] - 1) < 1e-6 && fabs(sm[2] - sm[5]) < 1e-7);
    nb_tensor_release(out);
    CHECK_OK(nb_log_softmax(t, 1, NB_F64, NULL, &out));
    CHECK_EQ_INT(nb_tensor_dtype(out), NB_F64);
    nb_tensor_release(out);
    nb_tensor_release(t);
}

TEST(test_out_destinations) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    const int64_t two = 2, three = 3;
    nb_tensor *v = NULL, *i = NULL, *s = NULL;
    CHECK_OK(nb_empty(&two, 1, NB_F32, NB_CPU, 0, &v));
    CHECK_OK(nb_empty(&two, 1, NB_I64, NB_CPU, 0, &i));
    CHECK_OK(nb_empty(&three, 1, NB_F64, NB_CPU, 0, &s));
    /* dst given, out pointers NULL: the results land in dst */
    CHECK_OK(nb_max_dim(t, 1, 0, v, i, NULL, NULL));
    double got[3];
    nbt_values(v, got, 3);
    CHECK_EQ_DBL(got[1], 5);
    nbt_values(i, got, 3);
    CHECK_EQ_DBL(got[0], 2);
    /* sum takes dst's dtype; *out is a new reference to dst */
    const int64_t d0 = 0;
    CHECK_OK(nb_sum(t, &d0, 1, 0, -1, s, &out));
    CHECK(out == s);
    CHECK_EQ_INT(nb_tensor_refcount(s), 2);
    nb_tensor_release(out);
    nbt_values(s, got, 3);
    CHECK_EQ_DBL(got[2], 7);
    /* in place */
    nb_tensor* c = NULL;
    CHECK_OK(nb_tensor_clone(t, &c));
    CHECK_OK(nb_cumsum(c, 1, -1, c, NULL));
    CHECK_OK(nb_softmax(c, 0, -1, c, NULL));
    nb_tensor_release(c);
    nb_tensor_release(v);
    nb_tensor_release(i);
    nb_tensor_release(s);
    nb_tensor_release(t);
}

TEST(test_bad_inputs) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    nb_tensor* it = nbt_iota(S23, 2, NB_I32);
    nb_tensor* bt = NULL;
    CHECK_OK(nb_tensor_to(t, NB_BOOL, NB_CPU, 0, 0, &bt));
    const int64_t d5 = 5, dup[2] = {1, -1}, d1 = 1, z[2] = {2, 0}, two = 2;
    nb_tensor *e = NULL, *wrong = NULL;
    CHECK_OK(nb_zeros(z, 2, NB_F32, NB_CPU, 0, &e));
    CHECK_OK(nb_empty(&two, 1, NB_F64, NB_CPU, 0, &wrong));
    FAILS(NB_ERR_INVALID_ARGUMENT, "sum", "'t' is NULL", nb_sum(NULL, NULL, 0, 0, -1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "mean", "'out' is NULL", nb_mean(t, NULL, 0, 0, -1, NULL, NULL));
    FAILS(NB_ERR_INDEX, "prod", "got 5", nb_prod(t, &d5, 1, 0, -1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "amax", "dim 1 appears multiple times", nb_amax(t, dup, 2, 0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "amin", "ndims is 3", nb_amin(t, NULL, 3, 0, NULL, &out));
    FAILS(NB_ERR_DTYPE, "sum", "dtype code 77", nb_sum(t, NULL, 0, 0, 77, NULL, &out));
    FAILS(NB_ERR_DTYPE, "mean", "Got: Int", nb_mean(it, NULL, 0, 0, -1, NULL, &out));
    FAILS(NB_ERR_DTYPE, "var", "int32", nb_var(it, NULL, 0, 1.0, 0, NULL, &out));
    FAILS(NB_ERR_DTYPE, "std", "int32", nb_std(it, NULL, 0, 1.0, 0, NULL, &out));
    FAILS(NB_ERR_DTYPE, "norm", "int32", nb_norm(it, 2.0, NULL, 0, 0, -1, NULL, &out));
    FAILS(NB_ERR_DTYPE, "argmax", "bool", nb_argmax(bt, NULL, 0, NULL, &out));
    FAILS(NB_ERR_DTYPE, "softmax", "int32", nb_softmax(it, 0, -1, NULL, &out));
    FAILS(NB_ERR_INDEX, "log_softmax", "got 5", nb_log_softmax(t, 5, -1, NULL, &out));
    FAILS(NB_ERR_INDEX, "cumsum", "got -3", nb_cumsum(t, -3, -1, NULL, &out));
    FAILS(NB_ERR_INDEX, "max", "got 5", nb_max_dim(t, 5, 0, NULL, NULL, &out, &out2));
    FAILS(NB_ERR_INVALID_ARGUMENT, "min", "'indices' is NULL", nb_min_dim(t, 0, 0, NULL, NULL, &out, NULL));
    FAILS(NB_ERR_INDEX, "amax", "dim 1 to have non-zero size", nb_amax(e, &d1, 1, 0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "argmin", "numel() == 0", nb_argmin(e, NULL, 0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "norm", "inf norm on an empty", nb_norm(e, INFINITY, NULL, 0, 0, -1, NULL, &out));
    FAILS(NB_ERR_DTYPE, "sum", "Expected out tensor to have dtype float, but got double instead",
          nb_sum(t, NULL, 0, 0, NB_F32, wrong, &out));  /* (an out= of another shape is resized: test_out_resize.c) */
    FAILS(NB_ERR_DTYPE, "amax", "got Float for input's dtype and Double for out's dtype",
          nb_amax(t, &d1, 1, 0, wrong, &out));
    FAILS(NB_ERR_DTYPE, "max", "dtype long int, but got double instead", nb_max_dim(t, 1, 0, NULL, wrong, &out, &out2));
    FAILS(NB_ERR_INVALID_ARGUMENT, "logsumexp", "'out' is NULL", nb_logsumexp(t, NULL, 0, 0, NULL, NULL));
    FAILS(NB_ERR_DTYPE, "cumprod", "dtype code -5", nb_cumprod(t, 0, -5, NULL, &out));
    nb_tensor_release(wrong);
    nb_tensor_release(e);
    nb_tensor_release(bt);
    nb_tensor_release(it);
    nb_tensor_release(t);
}

TEST(test_no_leaks) {
    const nb_memory_stats before = nbt_stats();
    const int64_t big[1] = {200000}, d0 = 0;
    for (int k = 0; k < 3; k++) {
        nb_tensor* t = nbt_iota(big, 1, NB_F32);
        CHECK_OK(nb_sum(t, NULL, 0, 0, -1, NULL, &out));  /* split into chunks: partial buffers */
        nb_tensor_release(out);
        CHECK_OK(nb_max_dim(t, 0, 1, NULL, NULL, &out, &out2));
        nb_tensor_release(out);
        nb_tensor_release(out2);
        CHECK_OK(nb_var(t, &d0, 1, 1.0, 0, NULL, &out));
        nb_tensor_release(out);
        CHECK_STATUS(nb_sum(t, &d0, 1, 0, 99, NULL, &out), NB_ERR_DTYPE, "sum");
        nb_tensor_release(t);
    }
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_values);
    RUN(test_out_destinations);
    RUN(test_bad_inputs);
    RUN(test_no_leaks);
    return NBT_END();
}
