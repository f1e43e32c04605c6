/* test_errors.c: bad inputs fail with the right status and a message that names the
 * function and the offending values, leave out-parameters untouched, and leak nothing.
 *
 * test_released_handle reads a released (freed but allocator-cached) handle on purpose;
 * skip it under memory checkers with --skip=test_released_handle. */
#include "nbtest.h"

static char sentinel_byte;
#define SENTINEL ((nb_tensor*)(void*)&sentinel_byte)
static nb_tensor* out;  /* every failing call writes (or rather, must not write) here */

/* call must fail with status `code`; the message contains s1 and s2; out untouched. */
#define FAILS(code, s1, s2, call)                 \
    do {                                          \
        out = SENTINEL;                           \
        CHECK_STATUS(call, code, s1);             \
        CHECK_MSG(s2);                            \
        CHECK(out == SENTINEL);                   \
    } while (0)

static const int64_t S23[2] = {2, 3};

TEST(test_negative_sizes) {
    const int64_t neg[2] = {2, -3}, m2[1] = {-2};
    const float data[4] = {0};
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", "-3", nb_zeros(neg, 2, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "empty", "-2", nb_empty(m2, 1, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "ones", "-3", nb_ones(neg, 2, NB_I8, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "full", "-3", nb_full(neg, 2, 1.5, NB_F64, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "full", "-2", nb_full_int(m2, 1, 7, NB_I64, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_host", "-2", nb_tensor_from_host(data, m2, 1, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_external", "-3",
          nb_tensor_from_external((void*)data, neg, NULL, 2, NB_F32, NB_CPU, 0, NULL, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "eye", "n=-1", nb_eye(-1, 2, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "eye", "m=-7", nb_eye(2, -7, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "linspace", "-4", nb_linspace(0, 1, -4, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "arange", "step", nb_arange(0, 1, 0, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "arange", "-1", nb_arange(0, -1, 1, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "arange", "inf", nb_arange(0, INFINITY, 1, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "-2",
          nb_tensor_as_strided(t, m2, m2, 1, 0, &out));
    const int64_t vneg[2] = {-2, 3};
    FAILS(NB_ERR_SHAPE, "view", "-2", nb_tensor_view(t, vneg, 2, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "narrow", "-1", nb_tensor_narrow(t, 1, 0, -1, &out));
    nb_tensor_release(t);
}

TEST(test_element_count_mismatch) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    const int64_t s42[2] = {4, 2}, two_inferred[2] = {-1, -1}, m14[2] = {-1, 4};
    FAILS(NB_ERR_SHAPE, "reshape", "[4, 2]", nb_tensor_reshape(t, s42, 2, &out));
    CHECK_MSG("6");
    FAILS(NB_ERR_SHAPE, "view", "[4, 2]", nb_tensor_view(t, s42, 2, &out));
    FAILS(NB_ERR_SHAPE, "view", "only one dimension", nb_tensor_view(t, two_inferred, 2, &out));
    FAILS(NB_ERR_SHAPE, "reshape", "[-1, 4]", nb_tensor_reshape(t, m14, 2, &out));
    nb_tensor_release(t);
}

TEST(test_out_of_range_dims_and_indices) {
    nb_tensor *t = nbt_iota(S23, 2, NB_F32), *scalar = NULL;
    CHECK_OK(nb_zeros(NULL, 0, NB_F32, NB_CPU, 0, &scalar));
    const int64_t dup[2] = {0, 0}, bad[2] = {0, 2}, sq[1] = {2};
    FAILS(NB_ERR_INDEX, "transpose", "got 2", nb_tensor_transpose(t, 0, 2, &out));
    FAILS(NB_ERR_INDEX, "transpose", "-3", nb_tensor_transpose(t, -3, 0, &out));
    FAILS(NB_ERR_INDEX, "select", "index 3", nb_tensor_select(t, 1, 3, &out));
    CHECK_MSG("size 3");
    FAILS(NB_ERR_INDEX, "select", "-3", nb_tensor_select(t, 0, -3, &out));
    FAILS(NB_ERR_INDEX, "select", "0-dim", nb_tensor_select(scalar, 0, 0, &out));
    FAILS(NB_ERR_INDEX, "narrow", "5", nb_tensor_narrow(t, 5, 0, 1, &out));
    FAILS(NB_ERR_INDEX, "narrow", "4", nb_tensor_narrow(t, 1, 4, 0, &out));
    FAILS(NB_ERR_INDEX, "slice", "2", nb_tensor_slice(t, 2, 0, 1, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "slice", "0", nb_tensor_slice(t, 0, 0, 1, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "slice", "-1", nb_tensor_slice(t, 0, 0, 1, -1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "permute", "duplicate", nb_tensor_permute(t, dup, 2, &out));
    FAILS(NB_ERR_INDEX, "permute", "2", nb_tensor_permute(t, bad, 2, &out));
    FAILS(NB_ERR_SHAPE, "permute", "3", nb_tensor_permute(t, (const int64_t[3]){0, 1, 2}, 3, &out));
    FAILS(NB_ERR_INDEX, "unsqueeze", "3", nb_tensor_unsqueeze(t, 3, &out));
    FAILS(NB_ERR_INDEX, "unsqueeze", "-4", nb_tensor_unsqueeze(t, -4, &out));
    FAILS(NB_ERR_INDEX, "squeeze", "2", nb_tensor_squeeze(t, sq, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "flatten", "start_dim", nb_tensor_flatten(t, 1, 0, &out));
    FAILS(NB_ERR_INDEX, "flatten", "5", nb_tensor_flatten(t, 0, 5, &out));
    nb_tensor_release(scalar);
    nb_tensor_release(t);
}

TEST(test_element_count_overflow) {
    const int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40}, huge3[2] = {INT64_C(1) << 62, 4};
    const int64_t bytes_overflow[1] = {INT64_C(1) << 61}, too_big[1] = {INT64_C(1) << 50};
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", "overflows", nb_zeros(huge, 2, NB_F32, NB_CPU, 0, &out));
    CHECK_MSG("1099511627776");
    FAILS(NB_ERR_INVALID_ARGUMENT, "empty", "overflows", nb_empty(huge3, 2, NB_I8, NB_CPU, 0, &out));
    /* 2^61 float64 elements fit int64, their 2^64 bytes do not. */
    FAILS(NB_ERR_OUT_OF_MEMORY, "zeros", "2305843009213693952",
          nb_zeros(bytes_overflow, 1, NB_F64, NB_CPU, 0, &out));
    /* 4 PiB is a valid size no machine has. */
    FAILS(NB_ERR_OUT_OF_MEMORY, "empty", "4503599627370496", nb_empty(too_big, 1, NB_F32, NB_CPU, 0, &out));
    nb_tensor* one = NULL;
    const int64_t n1 = 1, big_stride[2] = {INT64_MAX, 1}, two[2] = {2, 2};
    CHECK_OK(nb_zeros(&n1, 1, NB_F32, NB_CPU, 0, &one));
    FAILS(NB_ERR_INVALID_ARGUMENT, "expand", "overflows", nb_tensor_expand(one, huge, 2, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "out of bounds",
          nb_tensor_as_strided(one, two, big_stride, 2, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "arange", "overflow", nb_arange(0, 1e300, 1, NB_F32, NB_CPU, 0, &out));
    nb_tensor_release(one);
}

/* PyTorch's storage-size rule, made order-independent: the product of the nonzero sizes, times the
 * item size, must fit int64 whatever numel is. A shape like [2^63 - 1, 6, 0, 6] used to be created;
 * reducing its 0 away then segfaulted (mean) or reported numel -4 (sum, keepdim). Every path that
 * makes a shape is held to it: factories, resize, views, as_strided, external memory. */
TEST(test_a_zero_does_not_excuse_a_huge_dim) {
    const int64_t s1[4] = {INT64_MAX, 6, 0, 6}, s2[3] = {4, INT64_MAX, 0}, s3[3] = {0, INT64_C(1) << 62, 4};
    const int64_t s4[2] = {INT64_C(1) << 61, 0};  /* 2^61 items fit int64; 2^61 float64 bytes do not */
    const char* why = "Storage size calculation overflowed";
    FAILS(NB_ERR_INVALID_ARGUMENT, "empty", why, nb_empty(s1, 4, NB_F64, NB_CPU, 0, &out));
    CHECK_MSG("[9223372036854775807, 6, 0, 6]");
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", why, nb_zeros(s2, 3, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "full", why, nb_full(s3, 3, 1.0, NB_I8, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "empty", why, nb_empty(s4, 2, NB_F64, NB_CPU, 0, &out));
    nb_tensor *e = NULL, *one = NULL, *r = NULL;
    CHECK_OK(nb_empty(s4, 2, NB_I8, NB_CPU, 0, &e));  /* 2^61 one-byte items: allowed */
    CHECK_EQ_INT(nb_tensor_numel(e), 0);
    FAILS(NB_ERR_INVALID_ARGUMENT, "resize_", why, nb_tensor_resize_(e, s2, 3));
    CHECK_SHAPE(e, INT64_C(1) << 61, 0);
    const int64_t s0[1] = {0}, s1x[1] = {1};
    nb_tensor* empty = NULL;
    CHECK_OK(nb_empty(s0, 1, NB_F32, NB_CPU, 0, &empty));
    FAILS(NB_ERR_INVALID_ARGUMENT, "view", why, nb_tensor_view(empty, s2, 3, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "reshape", why, nb_tensor_reshape(empty, s2, 3, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", why, nb_tensor_as_strided(empty, s2, (const int64_t[]){0, 0, 0}, 3, 0, &out));
    CHECK_OK(nb_zeros(s1x, 1, NB_F32, NB_CPU, 0, &one));
    FAILS(NB_ERR_INVALID_ARGUMENT, "expand", why, nb_tensor_expand(one, (const int64_t[]){0, INT64_C(1) << 62}, 2, &out));
    float data[1];
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_external", why,
          nb_tensor_from_external(data, s2, NULL, 3, NB_F32, NB_CPU, 0, NULL, NULL, &out));
    /* reducing away the 0 of a legal shape fails cleanly when the result is too big, and never
     * reports a negative size */
    const int64_t d1 = 1;
    nb_tensor* e32 = NULL;
    CHECK_OK(nb_empty((const int64_t[]){INT64_C(1) << 60, 0}, 2, NB_F32, NB_CPU, 0, &e32));
    CHECK_STATUS(nb_sum(e32, &d1, 1, 0, -1, NULL, &r), NB_ERR_OUT_OF_MEMORY, "sum");  /* 2^62 bytes: no machine */
    CHECK(r == NULL);
    CHECK_STATUS(nb_sum(e32, &d1, 1, 1, -1, NULL, &r), NB_ERR_OUT_OF_MEMORY, "sum");  /* keepdim: [2^60, 1] */
    CHECK(r == NULL);
    nb_tensor_release(e32);
    nb_tensor* small = NULL;
    CHECK_OK(nb_empty((const int64_t[]){3, 0, 5}, 3, NB_F32, NB_CPU, 0, &small));
    CHECK_OK(nb_sum(small, &d1, 1, 1, -1, NULL, &r));
    CHECK_SHAPE(r, 3, 1, 5);
    CHECK_EQ_INT(nb_tensor_numel(r), 15);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(r), 60);
    nb_tensor_release(r);
    /* an index into a size-0 dim is out of range */
    nb_tensor* idx = NULL;
    CHECK_OK(nb_zeros(s1x, 1, NB_I64, NB_CPU, 0, &idx));
    const nb_tensor* indices[2] = {NULL, idx};
    FAILS(NB_ERR_INDEX, "index", "index 0 is out of bounds for dimension 1 with size 0",
          nb_index(small, indices, 2, &out));
    FAILS(NB_ERR_INDEX, "select", "out of bounds", nb_tensor_select(small, 1, 0, &out));
    nb_tensor_release(idx);
    nb_tensor_release(small);
    nb_tensor_release(one);
    nb_tensor_release(empty);
    nb_tensor_release(e);
}

TEST(test_ndim_out_of_range) {
    int64_t ones17[17];
    for (int i = 0; i < 17; i++) ones17[i] = 1;
    nb_tensor* t = NULL;
    CHECK_OK(nb_zeros(ones17, NB_MAX_DIMS, NB_F32, NB_CPU, 0, &t));  /* 16 dims is fine */
    FAILS(NB_ERR_SHAPE, "unsqueeze", "16", nb_tensor_unsqueeze(t, 0, &out));
    nb_tensor_release(t);
    t = nbt_iota(S23, 2, NB_F32);
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", "17", nb_zeros(ones17, 17, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", "-1", nb_zeros(ones17, -1, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_host", "17", nb_tensor_from_host(ones17, ones17, 17, NB_I64, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "view", "17", nb_tensor_view(t, ones17, 17, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "reshape", "17", nb_tensor_reshape(t, ones17, 17, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "17", nb_tensor_as_strided(t, ones17, ones17, 17, 0, &out));
    /* expand: any sensible status, but the message must give the limit, 16. */
    out = SENTINEL;
    nb_clear_error();
    nb_status st = nb_tensor_expand(t, ones17, 17, &out);
    CHECK(st == NB_ERR_INVALID_ARGUMENT || st == NB_ERR_SHAPE);
    CHECK_MSG("expand");
    CHECK_MSG("16");
    CHECK(out == SENTINEL);
    nb_tensor_release(t);
}

TEST(test_unknown_dtype_codes) {
    const float data[6] = {0};
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    FAILS(NB_ERR_DTYPE, "zeros", "10", nb_zeros(S23, 2, 10, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "zeros", "-1", nb_zeros(S23, 2, -1, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "full", "99", nb_full(S23, 2, 1, 99, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "arange", "12", nb_arange(0, 4, 1, 12, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "linspace", "12", nb_linspace(0, 4, 3, 12, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "eye", "-3", nb_eye(2, 2, -3, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "from_host", "10", nb_tensor_from_host(data, S23, 2, 10, NB_CPU, 0, &out));
    FAILS(NB_ERR_DTYPE, "from_external", "42",
          nb_tensor_from_external((void*)data, S23, NULL, 2, 42, NB_CPU, 0, NULL, NULL, &out));
    FAILS(NB_ERR_DTYPE, "to", "42", nb_tensor_to(t, 42, NB_CPU, 0, 0, &out));
    nb_tensor_release(t);
}

TEST(test_unknown_devices) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    FAILS(NB_ERR_DEVICE, "zeros", "99", nb_zeros(S23, 2, NB_F32, 99, 0, &out));
    FAILS(NB_ERR_DEVICE, "zeros", "device type 0", nb_zeros(S23, 2, NB_F32, 0, 0, &out));
    FAILS(NB_ERR_DEVICE, "ones", "got 1", nb_ones(S23, 2, NB_F32, NB_CPU, 1, &out));
    FAILS(NB_ERR_NOT_IMPLEMENTED, "empty", "cuda_host", nb_empty(S23, 2, NB_F32, NB_CUDA_HOST, 0, &out));
    FAILS(NB_ERR_DEVICE, "to", "99", nb_tensor_to(t, NB_F32, 99, 0, 0, &out));
    nb_memory_stats stats = {.struct_size = sizeof stats};
    FAILS(NB_ERR_DEVICE, "nb_memory_stats_get", "99", nb_memory_stats_get(99, 0, &stats));
    FAILS(NB_ERR_DEVICE, "nb_memory_empty_cache", "99", nb_memory_empty_cache(99, 0));
    FAILS(NB_ERR_DEVICE, "nb_memory_reset_peak", "99", nb_memory_reset_peak(99, 0));
    nb_tensor_release(t);
}

/* 1-D factories build on the CPU and then move; a bad device must still be reported
 * as an error of the factory the caller called. */
TEST(test_device_errors_name_the_factory) {
    FAILS(NB_ERR_DEVICE, "arange", "99", nb_arange(0, 4, 1, NB_F32, 99, 0, &out));
    FAILS(NB_ERR_DEVICE, "linspace", "99", nb_linspace(0, 4, 3, NB_F32, 99, 0, &out));
    FAILS(NB_ERR_DEVICE, "eye", "99", nb_eye(2, 2, NB_F32, 99, 0, &out));
    FAILS(NB_ERR_DEVICE, "arange", "got 3", nb_arange(0, 4, 1, NB_F32, NB_CPU, 3, &out));
}

TEST(test_cuda_when_unavailable) {
    int32_t n = 0;
    CHECK_OK(nb_device_count(NB_CUDA, &n));
    const float data[6] = {0};
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    if (n == 0) {
        FAILS(NB_ERR_DEVICE, "zeros", "CUDA", nb_zeros(S23, 2, NB_F32, NB_CUDA, 0, &out));
        CHECK_MSG(nb_device_unavailable_reason(NB_CUDA));
        FAILS(NB_ERR_DEVICE, "from_host", "CUDA", nb_tensor_from_host(data, S23, 2, NB_F32, NB_CUDA, 0, &out));
        FAILS(NB_ERR_DEVICE, "to", "CUDA", nb_tensor_to(t, NB_F32, NB_CUDA, 0, 0, &out));
        /* (that the message names arange is test_device_errors_name_the_factory's job) */
        FAILS(NB_ERR_DEVICE, "CUDA", "CUDA", nb_arange(0, 4, 1, NB_F32, NB_CUDA, 0, &out));
    } else {
        FAILS(NB_ERR_DEVICE, "zeros", "invalid CUDA device index", nb_zeros(S23, 2, NB_F32, NB_CUDA, n, &out));
    }
    nb_tensor_release(t);
}

TEST(test_null_handles) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    const int64_t s6[1] = {6}, d01[2] = {1, 0}, st[2] = {1, 1};
    double d = 5;
    int64_t i = 5;
    char buf[24];
    FAILS(NB_ERR_INVALID_ARGUMENT, "view", "NULL", nb_tensor_view(NULL, s6, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "reshape", "NULL", nb_tensor_reshape(NULL, s6, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "permute", "NULL", nb_tensor_permute(NULL, d01, 2, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "transpose", "NULL", nb_tensor_transpose(NULL, 0, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "narrow", "NULL", nb_tensor_narrow(NULL, 0, 0, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "slice", "NULL", nb_tensor_slice(NULL, 0, 0, 1, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "select", "NULL", nb_tensor_select(NULL, 0, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "expand", "NULL", nb_tensor_expand(NULL, s6, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "squeeze", "NULL", nb_tensor_squeeze(NULL, NULL, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "unsqueeze", "NULL", nb_tensor_unsqueeze(NULL, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "flatten", "NULL", nb_tensor_flatten(NULL, 0, -1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "NULL", nb_tensor_as_strided(NULL, s6, st, 1, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "contiguous", "NULL", nb_tensor_contiguous(NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "clone", "NULL", nb_tensor_clone(NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "to", "NULL", nb_tensor_to(NULL, NB_F32, NB_CPU, 0, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "copy_", "'dst'", nb_tensor_copy_(NULL, t));
    FAILS(NB_ERR_INVALID_ARGUMENT, "copy_", "'src'", nb_tensor_copy_(t, NULL));
    FAILS(NB_ERR_INVALID_ARGUMENT, "copy_to_host", "NULL", nb_tensor_copy_to_host(NULL, buf, 24));
    FAILS(NB_ERR_INVALID_ARGUMENT, "item", "NULL", nb_tensor_item_double(NULL, &d));
    FAILS(NB_ERR_INVALID_ARGUMENT, "item", "NULL", nb_tensor_item_int(NULL, &i));
    CHECK_EQ_DBL(d, 5);
    CHECK_EQ_INT(i, 5);
    CHECK_EQ_INT(nb_tensor_version(t), 0);
    nb_tensor_retain(NULL);  /* NULL-safe */
    nb_tensor_release(NULL);
    nb_tensor_release(t);
}

/* Each call runs in a child process: a NULL out pointer must not crash. */
#define NULL_OUT(name, call) CHECK_NO_CRASH(CHECK_STATUS(call, NB_ERR_INVALID_ARGUMENT, name); CHECK_MSG("NULL"))

TEST(test_null_out_pointers) {
    nb_tensor *t = nbt_iota(S23, 2, NB_F32), *s = NULL, *elem = NULL;
    const int64_t s6[1] = {6};
    const float data[6] = {0};
    CHECK_OK(nb_tensor_select(t, 0, 0, &s));
    CHECK_OK(nb_tensor_select(s, 0, 0, &elem));  /* a 0-dim element */
    NULL_OUT("zeros", nb_zeros(S23, 2, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("empty", nb_empty(S23, 2, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("ones", nb_ones(S23, 2, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("full", nb_full(S23, 2, 1, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("full", nb_full_int(S23, 2, 1, NB_I32, NB_CPU, 0, NULL));
    NULL_OUT("arange", nb_arange(0, 3, 1, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("linspace", nb_linspace(0, 3, 3, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("eye", nb_eye(2, 2, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("from_host", nb_tensor_from_host(data, S23, 2, NB_F32, NB_CPU, 0, NULL));
    NULL_OUT("from_external", nb_tensor_from_external((void*)data, S23, NULL, 2, NB_F32, NB_CPU, 0, NULL, NULL, NULL));
    NULL_OUT("view", nb_tensor_view(t, s6, 1, NULL));
    NULL_OUT("reshape", nb_tensor_reshape(t, s6, 1, NULL));
    NULL_OUT("transpose", nb_tensor_transpose(t, 0, 1, NULL));
    NULL_OUT("select", nb_tensor_select(t, 0, 0, NULL));
    NULL_OUT("contiguous", nb_tensor_contiguous(t, NULL));
    NULL_OUT("clone", nb_tensor_clone(t, NULL));
    NULL_OUT("to", nb_tensor_to(t, NB_F64, NB_CPU, 0, 0, NULL));
    NULL_OUT("item", nb_tensor_item_double(elem, NULL));
    NULL_OUT("item", nb_tensor_item_int(elem, NULL));
    NULL_OUT("nb_device_count", nb_device_count(NB_CPU, NULL));
    NULL_OUT("nb_memory_stats_get", nb_memory_stats_get(NB_CPU, 0, NULL));
    nb_memory_stats tiny = {.struct_size = 0};
    CHECK_STATUS(nb_memory_stats_get(NB_CPU, 0, &tiny), NB_ERR_ABI_VERSION, "struct_size");
    nb_tensor_release(elem);
    nb_tensor_release(s);
    nb_tensor_release(t);
}

TEST(test_other_bad_arguments) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    FAILS(NB_ERR_INVALID_ARGUMENT, "zeros", "shape is NULL", nb_zeros(NULL, 2, NB_F32, NB_CPU, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_host", "data is NULL",
          nb_tensor_from_host(NULL, S23, 2, NB_F32, NB_CPU, 0, &out));
    CHECK_MSG("24");
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_external", "data is NULL",
          nb_tensor_from_external(NULL, S23, NULL, 2, NB_F32, NB_CPU, 0, NULL, NULL, &out));
    const int64_t neg_st[2] = {-3, 1};
    float buf[6];
    FAILS(NB_ERR_INVALID_ARGUMENT, "from_external", "negative strides",
          nb_tensor_from_external(buf, S23, neg_st, 2, NB_F32, NB_CPU, 0, NULL, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "-1", nb_tensor_as_strided(t, S23, S23, 2, -1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "as_strided", "strides is NULL", nb_tensor_as_strided(t, S23, NULL, 2, 0, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "copy_to_host", "24", nb_tensor_copy_to_host(t, buf, 23));
    FAILS(NB_ERR_INVALID_ARGUMENT, "item", "6 elements", nb_tensor_item_double(t, (double*)buf));
    nb_tensor_release(t);
}

/* An op built on another reports errors under its own name (take_along_dim runs gather). */
TEST(test_composite_ops_name_themselves) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    const int64_t bad[2] = {7, 0}, col[2] = {2, 1}, flat[1] = {2};
    nb_tensor *idx = NULL, *idx_flat = NULL;
    CHECK_OK(nb_tensor_from_host(bad, col, 2, NB_I64, NB_CPU, 0, &idx));
    CHECK_OK(nb_tensor_from_host(bad, flat, 1, NB_I64, NB_CPU, 0, &idx_flat));
    FAILS(NB_ERR_INDEX, "take_along_dim: index 7 is out of bounds for dimension 1 with size 3", "",
          nb_take_along_dim(t, idx, 1, 1, &out));
    FAILS(NB_ERR_INDEX, "take_along_dim: index 7 is out of bounds for dimension 0 with size 6", "",
          nb_take_along_dim(t, idx_flat, 0, 0, &out));
    CHECK(strncmp(nb_last_error_message(), "take_along_dim: ", 16) == 0);
    FAILS(NB_ERR_INDEX, "gather: index 7 is out of bounds", "", nb_gather(t, 1, idx, &out)); /* gather keeps its own */
    nb_tensor_release(idx);
    nb_tensor_release(idx_flat);
    nb_tensor_release(t);
}

TEST(test_null_getters_return_sentinels) {
    nb_clear_error();
    CHECK_EQ_INT(nb_tensor_ndim(NULL), -1);
    CHECK_EQ_INT(nb_last_error_status(), NB_ERR_INVALID_ARGUMENT);
    CHECK_MSG("nb_tensor_ndim");
    CHECK_MSG("NULL");
    CHECK(nb_tensor_shape(NULL) == NULL);
    CHECK_MSG("nb_tensor_shape");
    CHECK(nb_tensor_strides(NULL) == NULL);
    CHECK_EQ_INT(nb_tensor_dtype(NULL), -1);
    CHECK_EQ_INT(nb_tensor_device_type(NULL), -1);
    CHECK_EQ_INT(nb_tensor_device_index(NULL), -1);
    CHECK_EQ_INT(nb_tensor_numel(NULL), -1);
    CHECK_EQ_INT(nb_tensor_is_contiguous(NULL), -1);
    CHECK(nb_tensor_data_ptr(NULL) == NULL);
    CHECK_EQ_INT(nb_tensor_storage_offset(NULL), -1);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(NULL), -1);
    CHECK(nb_tensor_storage_data_ptr(NULL) == NULL);
    CHECK_EQ_INT(nb_tensor_version(NULL), -1);
    CHECK_EQ_INT(nb_tensor_refcount(NULL), -1);
    CHECK_MSG("nb_tensor_refcount");
}

TEST(test_clear_error) {
    nb_tensor* t = NULL;
    CHECK(nb_zeros(NULL, 1, NB_F32, NB_CPU, 0, &t) != NB_OK);
    CHECK(nb_last_error_status() != NB_OK);
    CHECK(nb_last_error_message()[0] != '\0');
    nb_clear_error();
    CHECK_EQ_INT(nb_last_error_status(), NB_OK);
    CHECK_STR(nb_last_error_message(), "");
    CHECK_OK(nb_zeros(NULL, 0, NB_F32, NB_CPU, 0, &t));  /* success leaves the (empty) error alone */
    CHECK_EQ_INT(nb_last_error_status(), NB_OK);
    CHECK_STR(nb_last_error_message(), "");
    nb_tensor_release(t);
}

/* A released handle: freed, but its block is still in nabla's allocator cache, so
 * reading it is defined from the process's point of view and must be detected. */
TEST(test_released_handle) {
    nb_tensor* t = nbt_iota(S23, 2, NB_F32);
    nb_tensor_retain(t);
    nb_tensor_release(t);
    nb_tensor_release(t);  /* the last reference */
    CHECK_EQ_INT(nb_tensor_ndim(t), -1);
    CHECK_EQ_INT(nb_last_error_status(), NB_ERR_INVALID_ARGUMENT);
    CHECK_MSG("not a live nabla tensor");
    CHECK_EQ_INT(nb_tensor_numel(t), -1);
    CHECK_EQ_INT(nb_tensor_refcount(t), -1);
    const int64_t s6[1] = {6};
    FAILS(NB_ERR_INVALID_ARGUMENT, "view", "released", nb_tensor_view(t, s6, 1, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "clone", "released", nb_tensor_clone(t, &out));
    nb_tensor_retain(t);   /* ignored */
    nb_tensor_release(t);  /* ignored: no double free */
    nb_memory_stats s = nbt_stats();
    CHECK(s.live_tensors >= 0);
}

TEST(test_no_leaks_on_error_paths) {
    nb_tensor *t = nbt_iota(S23, 2, NB_F32), *tr = NULL, *e = NULL;
    const int64_t s42[2] = {4, 2}, s6[1] = {6}, s223[3] = {2, 2, 3};
    CHECK_OK(nb_tensor_transpose(t, 0, 1, &tr));
    CHECK_OK(nb_tensor_expand(t, s223, 3, &e));
    const nb_memory_stats before = nbt_stats();
    for (int rep = 0; rep < 3; rep++) {
        out = SENTINEL;
        CHECK(nb_tensor_reshape(tr, s42, 2, &out) != NB_OK);
        CHECK(nb_tensor_view(tr, s6, 1, &out) != NB_OK);
        CHECK(nb_tensor_from_host(NULL, S23, 2, NB_F32, NB_CPU, 0, &out) != NB_OK);
        CHECK(nb_arange(0, 5, 1, NB_F32, 99, 0, &out) != NB_OK);
        CHECK(nb_linspace(0, 5, 5, NB_F32, NB_CPU, 7, &out) != NB_OK);
        CHECK(nb_eye(3, 3, NB_F32, 99, 0, &out) != NB_OK);
        CHECK(nb_tensor_copy_(e, t) != NB_OK);
        CHECK(nb_tensor_copy_(t, e) != NB_OK);
        CHECK(nb_tensor_to(tr, NB_F32, 99, 0, 1, &out) != NB_OK);
        CHECK(nb_zeros(s42, 2, NB_F32, NB_CUDA_HOST, 0, &out) != NB_OK);
        CHECK(nb_tensor_item_int(tr, NULL) != NB_OK);
        CHECK(out == SENTINEL);
    }
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
    CHECK_EQ_INT(after.allocated_bytes, before.allocated_bytes);
    nb_tensor_release(e);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_negative_sizes);
    RUN(test_element_count_mismatch);
    RUN(test_out_of_range_dims_and_indices);
    RUN(test_element_count_overflow);
    RUN(test_a_zero_does_not_excuse_a_huge_dim);
    RUN(test_ndim_out_of_range);
    RUN(test_unknown_dtype_codes);
    RUN(test_unknown_devices);
    RUN(test_device_errors_name_the_factory);
    RUN(test_cuda_when_unavailable);
    RUN(test_null_handles);
    RUN(test_null_out_pointers);
    RUN(test_other_bad_arguments);
    RUN(test_composite_ops_name_themselves);
    RUN(test_null_getters_return_sentinels);
    RUN(test_clear_error);
    RUN(test_released_handle);
    RUN(test_no_leaks_on_error_paths);
    return NBT_END();
}
