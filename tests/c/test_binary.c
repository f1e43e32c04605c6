/* test_binary.c: the elementwise binary ops from C: values, broadcasting, integer
 * division semantics, type promotion with wrapped scalars (nb_scalar) and 0-dim
 * tensors, the dst argument (in-place with out=NULL, out= returning a new
 * reference), every error path with its status and message, *out left untouched on
 * failure, and no leaked handles or bytes on any path.
 *
 * test_released_handle passes a released (freed but allocator-cached) handle on
 * purpose; skip it under memory checkers with --skip=test_released_handle. */
#include "nbtest.h"

static char sentinel_byte;
#define SENTINEL ((nb_tensor*)(void*)&sentinel_byte)
static nb_tensor* out;

/* call must fail with status `code`; the message contains s1 and s2; out untouched. */
#define FAILS(code, s1, s2, call)     \
    do {                              \
        out = SENTINEL;               \
        CHECK_STATUS(call, code, s1); \
        CHECK_MSG(s2);                \
        CHECK(out == SENTINEL);       \
    } while (0)

static const int64_t S23[2] = {2, 3}, S3[1] = {3}, S4[1] = {4};

static nb_tensor* vec(const double* v, int64_t n, int32_t dtype) {
    const int64_t shape[1] = {n};
    return nbt_tensor(v, shape, 1, dtype);
}

static nb_tensor* scalar_f(double v) {
    nb_tensor* s = NULL;
    CHECK_OK(nb_scalar(v, 0, NB_F64, &s));
    return s;
}

static nb_tensor* scalar_i(int64_t v) {
    nb_tensor* s = NULL;
    CHECK_OK(nb_scalar(0, v, NB_I64, &s));
    return s;
}

TEST(test_add_mul_div_eq_broadcast) {
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *r = NULL;  /* [[0 1 2] [3 4 5]] */
    const double bv[3] = {1, 2, 4};
    nb_tensor* b = vec(bv, 3, NB_F32);
    CHECK_OK(nb_add(a, b, 1.0, NULL, &r));
    CHECK_SHAPE(r, 2, 3);
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F32);
    CHECK_EQ_INT(nb_tensor_is_contiguous(r), 1);
    const double sum[6] = {1, 3, 6, 4, 6, 9};
    CHECK_VALUES(r, sum, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_sub(a, b, 2.5, NULL, &r));  /* a - 2.5 b */
    const double diff[6] = {-2.5, -4, -8, 0.5, -1, -5};
    CHECK_VALUES(r, diff, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_mul(b, a, NULL, &r));
    const double prod[6] = {0, 2, 8, 3, 8, 20};
    CHECK_VALUES(r, prod, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_div(a, b, NB_ROUND_NONE, NULL, &r));
    const double quot[6] = {0, 0.5, 0.5, 3, 2, 1.25};
    CHECK_VALUES(r, quot, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_eq(a, b, NULL, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_BOOL);
    const double eq[6] = {0, 0, 0, 0, 0, 0};
    CHECK_VALUES(r, eq, 6);
    nb_tensor_release(r);
    const int64_t s21[2] = {2, 1};  /* [2, 1] float64 against [2, 3] float32: compared in float64 */
    const double cv[2] = {3, 4};
    nb_tensor* col = nbt_tensor(cv, s21, 2, NB_F64);
    CHECK_OK(nb_eq(col, a, NULL, &r));
    CHECK_SHAPE(r, 2, 3);
    const double eq2[6] = {0, 0, 0, 0, 1, 0};
    CHECK_VALUES(r, eq2, 6);
    nb_tensor_release(r);
    nb_tensor* e = NULL;  /* an empty operand gives an empty result */
    const int64_t s03[2] = {0, 3};
    CHECK_OK(nb_zeros(s03, 2, NB_F32, NB_CPU, 0, &e));
    CHECK_OK(nb_mul(e, b, NULL, &r));
    CHECK_SHAPE(r, 0, 3);
    nb_tensor_release(r);
    nb_tensor_release(e);
    nb_tensor_release(col);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

TEST(test_integer_division_semantics) {
    const double xv[4] = {-7, 7, -7, 7}, yv[4] = {2, -2, -2, 2};
    nb_tensor *x = vec(xv, 4, NB_I32), *y = vec(yv, 4, NB_I32), *r = NULL;
    const double fl[4] = {-4, -4, 3, 3}, tr[4] = {-3, -3, 3, 3}, rem[4] = {1, -1, -1, 1}, fm[4] = {-1, 1, -1, 1};
    CHECK_OK(nb_div(x, y, NB_ROUND_FLOOR, NULL, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_I32);
    CHECK_VALUES(r, fl, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_floor_divide(x, y, NULL, &r));
    CHECK_VALUES(r, fl, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_div(x, y, NB_ROUND_TRUNC, NULL, &r));
    CHECK_VALUES(r, tr, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_remainder(x, y, NULL, &r));
    CHECK_VALUES(r, rem, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_fmod(x, y, NULL, &r));
    CHECK_VALUES(r, fm, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_div(x, y, NB_ROUND_NONE, NULL, &r));  /* true division: the default float dtype */
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F32);
    const double q[4] = {-3.5, -3.5, 3.5, 3.5};
    CHECK_VALUES(r, q, 4);
    nb_tensor_release(r);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(test_uint8_division_by_255) {
    const double xv[3] = {135, 255, 7}, yv[3] = {255, 255, 255};
    nb_tensor *x = vec(xv, 3, NB_U8), *y = vec(yv, 3, NB_U8), *r = NULL;
    const double q[3] = {0, 1, 0}, m[3] = {135, 0, 7};
    CHECK_OK(nb_floor_divide(x, y, NULL, &r));
    CHECK_VALUES(r, q, 3);
    nb_tensor_release(r);
    CHECK_OK(nb_remainder(x, y, NULL, &r));
    CHECK_VALUES(r, m, 3);
    nb_tensor_release(r);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

TEST(test_scalar_promotion) {
    const double iv[3] = {1, 2, 3};
    nb_tensor *i = vec(iv, 3, NB_I32), *half = scalar_f(2.5), *big = scalar_i(300), *one = scalar_i(1), *r = NULL;
    CHECK_EQ_INT(nb_tensor_ndim(half), 0);
    CHECK_EQ_INT(nb_result_dtype(i, half), NB_F32);  /* a wrapped float yields to the tensor: float32 */
    CHECK_OK(nb_add(i, half, 1.0, NULL, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F32);
    const double s[3] = {3.5, 4.5, 5.5};
    CHECK_VALUES(r, s, 3);
    nb_tensor_release(r);
    CHECK_OK(nb_sub(half, i, 1.0, NULL, &r));  /* the scalar on the left */
    const double d[3] = {1.5, 0.5, -0.5};
    CHECK_VALUES(r, d, 3);
    nb_tensor_release(r);
    const double uv[3] = {0, 1, 200};
    nb_tensor* u = vec(uv, 3, NB_U8);
    CHECK_OK(nb_add(u, big, 1.0, NULL, &r));  /* uint8: 300 wraps to 44 */
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_U8);
    const double w[3] = {44, 45, 244};
    CHECK_VALUES(r, w, 3);
    nb_tensor_release(r);
    const double bv[2] = {1, 0};
    nb_tensor *b = vec(bv, 2, NB_BOOL), *z64 = NULL;
    CHECK_EQ_INT(nb_result_dtype(b, one), NB_I64);
    CHECK_OK(nb_full(NULL, 0, 0.5, NB_F64, NB_CPU, 0, &z64));  /* a 0-dim tensor, not a wrapped number */
    CHECK_EQ_INT(nb_result_dtype(i, z64), NB_F64);
    CHECK_EQ_INT(nb_result_dtype(z64, one), NB_F64);
    CHECK_EQ_INT(nb_result_dtype(half, one), NB_F64);  /* scalars alone keep their own types */
    CHECK_EQ_INT(nb_promote_dtypes(NB_U8, NB_I8), NB_I16);
    CHECK_EQ_INT(nb_promote_dtypes(NB_F16, NB_BF16), NB_F32);
    CHECK_EQ_INT(nb_promote_dtypes(NB_BOOL, NB_U8), NB_U8);
    CHECK_EQ_INT(nb_promote_dtypes(NB_I64, NB_F16), NB_F16);
    nb_clear_error();
    CHECK_EQ_INT(nb_promote_dtypes(NB_I8, 42), -1);
    CHECK_EQ_INT(nb_last_error_status(), NB_ERR_DTYPE);
    CHECK_MSG("42");
    CHECK_EQ_INT(nb_result_dtype(i, NULL), -1);
    CHECK_MSG("NULL");
    CHECK_OK(nb_set_default_dtype(NB_F64));
    CHECK_EQ_INT(nb_result_dtype(i, half), NB_F64);
    CHECK_OK(nb_div(i, i, NB_ROUND_NONE, NULL, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F64);
    nb_tensor_release(r);
    CHECK_STATUS(nb_set_default_dtype(NB_I32), NB_ERR_DTYPE, "default");
    CHECK_EQ_INT(nb_get_default_dtype(), NB_F64);
    CHECK_OK(nb_set_default_dtype(NB_F32));
    CHECK_EQ_INT(nb_tensor_refcount(half), 1);  /* the ops took no lasting reference */
    nb_tensor_release(z64);
    nb_tensor_release(b);
    nb_tensor_release(u);
    nb_tensor_release(one);
    nb_tensor_release(big);
    nb_tensor_release(half);
    nb_tensor_release(i);
}

TEST(test_dst_in_place_and_out) {
    nb_tensor *t = nbt_iota(S23, 2, NB_F32), *b = NULL, *o = NULL, *r = NULL;
    const double bv[3] = {10, 20, 30};
    b = vec(bv, 3, NB_F32);
    const int64_t v0 = nb_tensor_version(t);
    CHECK_OK(nb_add(t, b, 1.0, t, NULL));  /* in-place, out = NULL */
    const double s[6] = {10, 21, 32, 13, 24, 35};
    CHECK_VALUES(t, s, 6);
    CHECK_EQ_INT(nb_tensor_version(t), v0 + 1);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    CHECK_OK(nb_mul(t, b, t, &r));  /* in-place with out: a new reference to t */
    CHECK(r == t);
    CHECK_EQ_INT(nb_tensor_refcount(t), 2);
    nb_tensor_release(r);
    CHECK_OK(nb_empty(S23, 2, NB_F64, NB_CPU, 0, &o));  /* out= of a wider dtype */
    r = NULL;
    CHECK_OK(nb_sub(t, b, 1.0, o, &r));
    CHECK(r == o);
    CHECK_EQ_INT(nb_tensor_refcount(o), 2);
    CHECK_EQ_INT(nb_tensor_version(o), 1);
    const double d[6] = {90, 400, 930, 120, 460, 1020};
    CHECK_VALUES(o, d, 6);
    nb_tensor_release(r);
    nb_tensor* oi = NULL;  /* comparison results cast into an int32 out */
    CHECK_OK(nb_empty(S23, 2, NB_I32, NB_CPU, 0, &oi));
    CHECK_OK(nb_gt(o, b, oi, NULL));
    const double g[6] = {1, 1, 1, 1, 1, 1};
    CHECK_VALUES(oi, g, 6);
    nb_tensor_release(oi);
    nb_tensor *x = nbt_iota(S4, 1, NB_I64), *head = NULL, *tail = NULL;  /* x[1:] += x[:-1] */
    CHECK_OK(nb_tensor_narrow(x, 0, 0, 3, &head));
    CHECK_OK(nb_tensor_narrow(x, 0, 1, 3, &tail));
    CHECK_OK(nb_add(tail, head, 1.0, tail, NULL));
    const double xs[4] = {0, 1, 3, 5};  /* as if the input were read first */
    CHECK_VALUES(x, xs, 4);
    CHECK_EQ_INT(nb_tensor_version(x), 1);
    nb_tensor_release(tail);
    nb_tensor_release(head);
    nb_tensor_release(x);
    nb_tensor_release(o);
    nb_tensor_release(b);
    nb_tensor_release(t);
}

TEST(test_error_paths) {
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b4 = nbt_iota(S4, 1, NB_F32), *i = nbt_iota(S3, 1, NB_I32);
    nb_tensor *zi = NULL, *dst3 = NULL, *dsti = NULL, *bt = NULL, *e = NULL, *one = NULL;
    CHECK_OK(nb_zeros(S3, 1, NB_I32, NB_CPU, 0, &zi));
    CHECK_OK(nb_empty(S3, 1, NB_F32, NB_CPU, 0, &dst3));
    CHECK_OK(nb_empty(S23, 2, NB_I32, NB_CPU, 0, &dsti));
    CHECK_OK(nb_ones(S3, 1, NB_BOOL, NB_CPU, 0, &bt));
    CHECK_OK(nb_zeros(NULL, 0, NB_F32, NB_CPU, 0, &one));
    CHECK_OK(nb_tensor_expand(one, S23, 2, &e));
    FAILS(NB_ERR_SHAPE, "add", "shapes [2, 3] and [4]", nb_add(a, b4, 1.0, NULL, &out));
    FAILS(NB_ERR_SHAPE, "mul", "non-singleton dimension 1", nb_mul(a, b4, NULL, &out));
    FAILS(NB_ERR_SHAPE, "add", "output with shape [3] doesn't match the broadcast shape [2, 3]",
          nb_add(dst3, a, 1.0, dst3, &out));  /* in place: dst must fit (out= is resized) */
    FAILS(NB_ERR_DTYPE, "add", "result type float32 can't be cast to the desired output type int32",
          nb_add(a, a, 1.0, dsti, &out));
    FAILS(NB_ERR_DTYPE, "div", "can't be cast", nb_div(i, i, NB_ROUND_NONE, i, &out));
    CHECK_EQ_INT(nb_tensor_version(i), 0);  /* a refused destination is not touched */
    FAILS(NB_ERR_INVALID_ARGUMENT, "add", "tensor 'a' is NULL", nb_add(NULL, a, 1.0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "eq", "tensor 'b' is NULL", nb_eq(a, NULL, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "mul", "output pointer", nb_mul(a, a, NULL, NULL));
    FAILS(NB_ERR_INVALID_ARGUMENT, "div", "rounding_mode", nb_div(a, a, 7, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "div", "rounding_mode", nb_div(a, a, -1, a, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "floor_divide", "ZeroDivisionError", nb_floor_divide(i, zi, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "remainder", "ZeroDivisionError", nb_remainder(i, zi, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "div", "ZeroDivisionError", nb_div(i, zi, NB_ROUND_TRUNC, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "fmod", "ZeroDivisionError", nb_fmod(i, zi, i, &out));
    nb_tensor* m1 = scalar_i(-1);
    FAILS(NB_ERR_INVALID_ARGUMENT, "pow", "negative integer powers", nb_pow(i, m1, NULL, &out));
    nb_tensor_release(m1);
    FAILS(NB_ERR_DTYPE, "bitwise_and", "not implemented for 'float32'", nb_bitwise_and(a, a, NULL, &out));
    FAILS(NB_ERR_DTYPE, "bitwise_left_shift", "not implemented for 'bool'",
          nb_bitwise_left_shift(bt, bt, NULL, &out));
    FAILS(NB_ERR_DTYPE, "sub", "two bool tensors", nb_sub(bt, bt, 1.0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "add", "alpha", nb_add(i, i, 0.5, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "sub", "alpha", nb_sub(i, i, 1.5, i, &out));
    CHECK(nb_add(a, a, 1.0, e, &out) != NB_OK);  /* an expanded destination */
    CHECK_MSG("more than one element");
    CHECK(out == SENTINEL);
    nb_tensor_release(e);
    nb_tensor_release(one);
    nb_tensor_release(bt);
    nb_tensor_release(dsti);
    nb_tensor_release(dst3);
    nb_tensor_release(zi);
    nb_tensor_release(i);
    nb_tensor_release(b4);
    nb_tensor_release(a);
}

TEST(test_released_handle) {
    nb_tensor *a = nbt_iota(S3, 1, NB_F32), *gone = nbt_iota(S3, 1, NB_F32);
    nb_tensor_release(gone);
    FAILS(NB_ERR_INVALID_ARGUMENT, "add", "not a live nabla tensor", nb_add(gone, a, 1.0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "mul", "tensor 'b'", nb_mul(a, gone, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "eq", "tensor 'out'", nb_eq(a, a, gone, &out));
    nb_tensor_release(a);
}

TEST(test_no_leaks_on_error_paths) {
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b4 = nbt_iota(S4, 1, NB_F32), *i8 = nbt_iota(S3, 1, NB_I8);
    nb_tensor *z32 = NULL, *dsti = NULL, *half = scalar_f(0.5);
    CHECK_OK(nb_zeros(S3, 1, NB_I32, NB_CPU, 0, &z32));
    CHECK_OK(nb_empty(S23, 2, NB_I32, NB_CPU, 0, &dsti));
    const nb_memory_stats before = nbt_stats();
    for (int rep = 0; rep < 5; rep++) {
        out = SENTINEL;
        CHECK(nb_add(a, b4, 1.0, NULL, &out) != NB_OK);
        CHECK(nb_add(a, a, 1.0, dsti, &out) != NB_OK);
        CHECK(nb_floor_divide(i8, z32, NULL, &out) != NB_OK);  /* fails in the kernel, after casting i8 */
        CHECK(nb_remainder(i8, z32, i8, &out) != NB_OK);        /* ... into a temporary for dst */
        CHECK(nb_pow(i8, z32, NULL, &out) == NB_OK);            /* x ** 0 works */
        nb_tensor_release(out);
        out = SENTINEL;
        CHECK(nb_div(a, a, 3, NULL, &out) != NB_OK);
        CHECK(nb_add(i8, i8, 0.5, NULL, &out) != NB_OK);
        CHECK(nb_bitwise_or(a, half, NULL, &out) != NB_OK);
        CHECK(nb_mul(NULL, a, NULL, &out) != NB_OK);
        CHECK(out == SENTINEL);
    }
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    nb_tensor_release(half);
    nb_tensor_release(dsti);
    nb_tensor_release(z32);
    nb_tensor_release(i8);
    nb_tensor_release(b4);
    nb_tensor_release(a);
}

TEST(test_large_threaded) {
    const int64_t n = nbt_iters(300000, 70000), shape[1] = {n};
    nb_tensor *x = NULL, *y = NULL, *r = NULL, *zero = NULL;
    CHECK_OK(nb_arange(0, (double)n, 1, NB_I64, NB_CPU, 0, &x));
    CHECK_OK(nb_full_int(shape, 1, 3, NB_I64, NB_CPU, 0, &y));
    CHECK_OK(nb_remainder(x, y, NULL, &r));
    nb_tensor *last = NULL, *first = NULL;
    CHECK_OK(nb_tensor_select(r, 0, n - 1, &last));
    CHECK_OK(nb_tensor_select(r, 0, 0, &first));
    int64_t v = -1;
    CHECK_OK(nb_tensor_item_int(last, &v));
    CHECK_EQ_INT(v, (n - 1) % 3);
    CHECK_OK(nb_tensor_item_int(first, &v));
    CHECK_EQ_INT(v, 0);
    nb_tensor_release(first);
    nb_tensor_release(last);
    nb_tensor_release(r);
    CHECK_OK(nb_zeros(NULL, 0, NB_I64, NB_CPU, 0, &zero));  /* x // 0-dim zero fails from every thread */
    FAILS(NB_ERR_INVALID_ARGUMENT, "floor_divide", "ZeroDivisionError", nb_floor_divide(x, zero, NULL, &out));
    nb_tensor_release(zero);
    nb_tensor_release(y);
    nb_tensor_release(x);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_add_mul_div_eq_broadcast);
    RUN(test_integer_division_semantics);
    RUN(test_uint8_division_by_255);
    RUN(test_scalar_promotion);
    RUN(test_dst_in_place_and_out);
    RUN(test_error_paths);
    RUN(test_released_handle);
    RUN(test_no_leaks_on_error_paths);
    RUN(test_large_threaded);
    return NBT_END();
}
