/* test_creation.c: factories (empty, zeros, ones, full, full_int, arange, linspace, eye,
 * from_host, from_external), tensor metadata, and float16/bfloat16 rounding. */
#include "nbtest.h"

#define ALL_DTYPES {NB_F32, NB_F64, NB_F16, NB_BF16, NB_I8, NB_I16, NB_I32, NB_I64, NB_U8, NB_BOOL}

/* The bytes of the value 1 in each dtype, little-endian (dtype code order). */
static const uint8_t ONE_BYTES[10][8] = {
    {0x00, 0x00, 0x80, 0x3f}, {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}, {0x00, 0x3c}, {0x80, 0x3f},
    {1}, {1, 0}, {1, 0, 0, 0}, {1, 0, 0, 0, 0, 0, 0, 0}, {1}, {1},
};

TEST(test_metadata_of_a_new_tensor) {
    const int64_t shape[3] = {2, 3, 4};
    nb_tensor* t = NULL;
    CHECK_OK(nb_empty(shape, 3, NB_F32, NB_CPU, 0, &t));
    CHECK_EQ_INT(nb_tensor_ndim(t), 3);
    CHECK_SHAPE(t, 2, 3, 4);
    CHECK_STRIDES(t, 12, 4, 1);
    CHECK_EQ_INT(nb_tensor_numel(t), 24);
    CHECK_EQ_INT(nb_tensor_dtype(t), NB_F32);
    CHECK_EQ_INT(nb_tensor_is_contiguous(t), 1);
    CHECK_EQ_INT(nb_tensor_storage_offset(t), 0);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 96);
    CHECK_EQ_INT(nb_tensor_device_type(t), NB_CPU);
    CHECK_EQ_INT(nb_tensor_device_index(t), 0);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    CHECK_EQ_INT(nb_tensor_version(t), 0);
    CHECK(nb_tensor_data_ptr(t) != NULL);
    CHECK(nb_tensor_data_ptr(t) == nb_tensor_storage_data_ptr(t));
    nb_tensor_release(t);
    /* device_index -1 means "the default device" (0 for the CPU). */
    CHECK_OK(nb_empty(shape, 3, NB_I64, NB_CPU, -1, &t));
    CHECK_EQ_INT(nb_tensor_device_index(t), 0);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 192);
    nb_tensor_release(t);
}

TEST(test_zero_dim_tensor) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_full(NULL, 0, 3.5, NB_F32, NB_CPU, 0, &t));
    CHECK_EQ_INT(nb_tensor_ndim(t), 0);
    CHECK_EQ_INT(nb_tensor_numel(t), 1);
    CHECK_EQ_INT(nb_tensor_is_contiguous(t), 1);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 4);
    float f = 0;
    CHECK_OK(nb_tensor_copy_to_host(t, &f, 4));
    CHECK_EQ_DBL(f, 3.5);
    CHECK_EQ_DBL(*(const float*)nb_tensor_data_ptr(t), 3.5);
    double d = 0;
    CHECK_OK(nb_tensor_item_double(t, &d));
    CHECK_EQ_DBL(d, 3.5);
    nb_tensor_release(t);
}

TEST(test_empty_shapes) {
    const int64_t shape[3] = {2, 0, 3};
    nb_tensor* t = NULL;
    CHECK_OK(nb_zeros(shape, 3, NB_F64, NB_CPU, 0, &t));
    CHECK_EQ_INT(nb_tensor_numel(t), 0);
    CHECK_SHAPE(t, 2, 0, 3);
    CHECK_STRIDES(t, 3, 3, 1);  /* size-0 dims count as 1 for strides, as in PyTorch */
    CHECK_EQ_INT(nb_tensor_is_contiguous(t), 1);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 0);
    CHECK_OK(nb_tensor_copy_to_host(t, NULL, 0));
    nb_tensor_release(t);
    const int64_t zero = 0;
    CHECK_OK(nb_ones(&zero, 1, NB_BOOL, NB_CPU, 0, &t));
    CHECK_EQ_INT(nb_tensor_numel(t), 0);
    nb_tensor_release(t);
}

TEST(test_zeros_and_ones_every_dtype) {
    const int32_t dtypes[10] = ALL_DTYPES;
    const int64_t shape[2] = {3, 5};
    for (int i = 0; i < 10; i++) {
        nb_tensor *z = NULL, *o = NULL;
        CHECK_OK(nb_zeros(shape, 2, dtypes[i], NB_CPU, 0, &z));
        CHECK_OK(nb_ones(shape, 2, dtypes[i], NB_CPU, 0, &o));
        CHECK_EQ_INT(nb_tensor_dtype(z), dtypes[i]);
        const int64_t size = nb_dtype_size(dtypes[i]);
        uint8_t buf[15 * 8];
        CHECK_OK(nb_tensor_copy_to_host(z, buf, 15 * size));
        for (int64_t k = 0; k < 15 * size; k++) CHECK_EQ_INT(buf[k], 0);
        CHECK_OK(nb_tensor_copy_to_host(o, buf, 15 * size));
        for (int64_t e = 0; e < 15; e++)
            CHECK(memcmp(buf + e * size, ONE_BYTES[dtypes[i]], (size_t)size) == 0);
        CHECK(memcmp(nb_tensor_data_ptr(o), buf, (size_t)(15 * size)) == 0);
        nb_tensor_release(z);
        nb_tensor_release(o);
    }
}

TEST(test_full_converts_value) {
    static const struct { double value; int32_t dtype; double want; } cases[] = {
        {2.5, NB_F32, 2.5}, {-3.75, NB_F64, -3.75}, {0.1, NB_F64, 0.1}, {2.5, NB_F16, 2.5},
        {-2.5, NB_BF16, -2.5}, {2.9, NB_I32, 2}, {-2.9, NB_I8, -2}, {1e12, NB_I64, 1e12},
        {200, NB_U8, 200}, {-7, NB_I16, -7}, {0.5, NB_BOOL, 1}, {-3, NB_BOOL, 1}, {0, NB_BOOL, 0},
    };
    const int64_t shape[1] = {5};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        nb_tensor* t = NULL;
        CHECK_OK(nb_full(shape, 1, cases[i].value, cases[i].dtype, NB_CPU, 0, &t));
        const double want[5] = {cases[i].want, cases[i].want, cases[i].want, cases[i].want, cases[i].want};
        CHECK_VALUES(t, want, 5);
        nb_tensor_release(t);
    }
    nb_tensor* t = NULL;  /* bool stores exactly byte 1 for true */
    CHECK_OK(nb_full(shape, 1, 7.0, NB_BOOL, NB_CPU, 0, &t));
    for (int k = 0; k < 5; k++) CHECK_EQ_INT(((const uint8_t*)nb_tensor_data_ptr(t))[k], 1);
    nb_tensor_release(t);
}

TEST(test_full_int_is_exact) {
    nb_tensor* t = NULL;
    const int64_t shape[1] = {3};
    CHECK_OK(nb_full_int(shape, 1, INT64_MAX, NB_I64, NB_CPU, 0, &t));
    int64_t v[3] = {0, 0, 0};
    CHECK_OK(nb_tensor_copy_to_host(t, v, sizeof v));
    for (int i = 0; i < 3; i++) CHECK(v[i] == INT64_MAX);
    int64_t item = 0;
    CHECK_STATUS(nb_tensor_item_int(t, &item), NB_ERR_INVALID_ARGUMENT, "3 elements");
    nb_tensor_release(t);
    CHECK_OK(nb_full_int(NULL, 0, INT64_MIN, NB_I64, NB_CPU, 0, &t));
    CHECK_OK(nb_tensor_item_int(t, &item));
    CHECK(item == INT64_MIN);
    nb_tensor_release(t);
    CHECK_OK(nb_full_int(NULL, 0, (INT64_C(1) << 62) + 1, NB_I64, NB_CPU, 0, &t));
    CHECK(*(const int64_t*)nb_tensor_data_ptr(t) == (INT64_C(1) << 62) + 1);
    nb_tensor_release(t);
    /* 2^53 + 1 to float64 rounds to nearest even: 2^53. */
    CHECK_OK(nb_full_int(NULL, 0, (INT64_C(1) << 53) + 1, NB_F64, NB_CPU, 0, &t));
    CHECK_EQ_DBL(*(const double*)nb_tensor_data_ptr(t), 9007199254740992.0);
    nb_tensor_release(t);
    CHECK_OK(nb_full_int(NULL, 0, -5, NB_I32, NB_CPU, 0, &t));
    CHECK_EQ_INT(*(const int32_t*)nb_tensor_data_ptr(t), -5);
    nb_tensor_release(t);
}

/* The raw 16-bit pattern a float64 value converts to in float16/bfloat16 (through
 * nb_tensor_to: nb_full would refuse values that overflow, as PyTorch does). */
static uint16_t bits16(double value, int32_t dtype) {
    nb_tensor *t = NULL, *r = NULL;
    uint16_t out = 0xdead;
    if (nb_full(NULL, 0, value, NB_F64, NB_CPU, 0, &t) != NB_OK || nb_tensor_to(t, dtype, NB_CPU, 0, 0, &r) != NB_OK) {
        CHECK(!"conversion failed");
        nb_tensor_release(t);
        return out;
    }
    memcpy(&out, nb_tensor_data_ptr(r), 2);
    nb_tensor_release(r);
    nb_tensor_release(t);
    return out;
}

/* float16: 1 sign, 5 exponent (bias 15), 10 fraction bits. In [1, 2) the spacing is
 * 2^-10, so 1 + 2^-11 is exactly halfway between 0x3C00 and 0x3C01. */
TEST(test_float16_rounding) {
    static const struct { double value; uint16_t want; } cases[] = {
        {1.0, 0x3C00},
        {1 + 0x1p-10, 0x3C01},                /* exact */
        {1 + 0x1p-11, 0x3C00},                /* tie between 0x3C00 (even) and 0x3C01: down */
        {1 + 3 * 0x1p-11, 0x3C02},            /* tie between 0x3C01 (odd) and 0x3C02: up, = 1 + 2^-9 */
        {1 + 0x1p-11 + 0x1p-20, 0x3C01},      /* just above the tie (exact in float32 too) */
        {1 + 0x1p-11 - 0x1p-20, 0x3C00},      /* just below the tie */
        {-(1 + 3 * 0x1p-11), 0xBC02},         /* sign-symmetric */
        {2049, 0x6800},                       /* spacing 2 at 2^11: tie 2048 (even) / 2050 */
        {2051, 0x6802},                       /* tie 2050 (0x6801, odd) / 2052 */
        {65504, 0x7BFF},                      /* largest finite: (2 - 2^-10) * 2^15 */
        {65519, 0x7BFF},                      /* below the tie at 65520: down */
        {65520, 0x7C00},                      /* tie 65504 (odd fraction 0x3FF) / 2^16: up = +inf */
        {-65520, 0xFC00},
        {1e6, 0x7C00},
        {INFINITY, 0x7C00},
        {-INFINITY, 0xFC00},
        {0.0, 0x0000},
        {-0.0, 0x8000},
        {0x1p-14, 0x0400},                    /* smallest normal */
        {0x1p-24, 0x0001},                    /* smallest subnormal (spacing 2^-24 below 2^-14) */
        {1023 * 0x1p-24, 0x03FF},             /* largest subnormal */
        {1023.5 * 0x1p-24, 0x0400},           /* tie 0x03FF (odd) / 0x0400: up into the normals */
        {0x1p-25, 0x0000},                    /* tie 0 (even) / 2^-24: down to +0 */
        {-0x1p-25, 0x8000},                   /* ... and to -0 */
        {3 * 0x1p-25, 0x0002},                /* tie 1 (odd) / 2 units: up */
        {0x1p-25 + 0x1p-35, 0x0001},          /* above the tie */
        {0x1p-26, 0x0000},
        {-0x1p-24, 0x8001},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = bits16(cases[i].value, NB_F16);
        if (got != cases[i].want)
            nbt_fail(__FILE__, __LINE__, "float16(%a) = 0x%04X, want 0x%04X", cases[i].value, got,
                     cases[i].want);
    }
    uint16_t nan = bits16(NAN, NB_F16);
    CHECK((nan & 0x7C00) == 0x7C00 && (nan & 0x03FF) != 0);
}

/* bfloat16: the top half of a float32 (8 exponent bits, 7 fraction bits). In [1, 2)
 * the spacing is 2^-7, so 1 + 2^-8 is halfway between 0x3F80 and 0x3F81. */
TEST(test_bfloat16_rounding) {
    static const struct { double value; uint16_t want; } cases[] = {
        {1.0, 0x3F80},
        {1 + 0x1p-7, 0x3F81},
        {1 + 0x1p-8, 0x3F80},                 /* tie 0x3F80 (even) / 0x3F81: down */
        {1 + 3 * 0x1p-8, 0x3F82},             /* tie 0x3F81 (odd) / 0x3F82: up */
        {1 + 0x1p-8 + 0x1p-20, 0x3F81},
        {1 + 0x1p-8 - 0x1p-20, 0x3F80},
        {-(1 + 3 * 0x1p-8), 0xBF82},
        {257, 0x4380},                        /* spacing 2 at 2^8: tie 256 (even) / 258 */
        {259, 0x4382},
        {(2 - 0x1p-7) * 0x1p127, 0x7F7F},     /* largest finite */
        {(2 - 0x1p-8) * 0x1p127, 0x7F80},     /* tie 0x7F7F (odd) / 2^128: up = +inf */
        {-(2 - 0x1p-8) * 0x1p127, 0xFF80},
        {1e39, 0x7F80},
        {INFINITY, 0x7F80},
        {-0.0, 0x8000},
        {0x1p-126, 0x0080},                   /* smallest normal */
        {0x1p-133, 0x0001},                   /* smallest subnormal */
        {0x1p-134, 0x0000},                   /* tie 0 (even) / 2^-133: down */
        {3 * 0x1p-134, 0x0002},               /* tie 1 (odd) / 2: up */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = bits16(cases[i].value, NB_BF16);
        if (got != cases[i].want)
            nbt_fail(__FILE__, __LINE__, "bfloat16(%a) = 0x%04X, want 0x%04X", cases[i].value, got,
                     cases[i].want);
    }
    uint16_t nan = bits16(NAN, NB_BF16);
    CHECK((nan & 0x7F80) == 0x7F80 && (nan & 0x007F) != 0);
}

/* nb_full takes a double and promises round-to-nearest-even into float16/bfloat16.
 * Rounding to float32 first and then to 16 bits is double rounding: it turns a value
 * just above (or below) a 16-bit tie into an exact tie and then rounds the wrong way. */
TEST(test_half_rounding_from_double_is_single_rounding) {
    static const struct { double value; int32_t dtype; uint16_t want; const char* why; } cases[] = {
        /* Above the tie 1 + 2^-11, so nearest is 0x3C01. Via float32 (24-bit significand)
         * it becomes exactly 1 + 2^-11, which then ties to even 0x3C00. */
        {1 + 0x1p-11 + 0x1p-40, NB_F16, 0x3C01, "1 + 2^-11 + 2^-40"},
        /* Below the overflow tie 65520, so nearest is 65504 (0x7BFF). Via float32 (spacing
         * 2^-8 there) it becomes 65520 and overflows to inf. */
        {65520 - 0x1p-20, NB_F16, 0x7BFF, "65520 - 2^-20"},
        /* Above the tie 1 + 2^-8, so nearest is 0x3F81; via float32 it ties down to 0x3F80. */
        {1 + 0x1p-8 + 0x1p-40, NB_BF16, 0x3F81, "1 + 2^-8 + 2^-40"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t got = bits16(cases[i].value, cases[i].dtype);
        if (got != cases[i].want)
            nbt_fail(__FILE__, __LINE__, "%s(%s) = 0x%04X, want 0x%04X (double rounding through float32)",
                     nb_dtype_name(cases[i].dtype), cases[i].why, got, cases[i].want);
    }
}

TEST(test_half_values_read_back) {
    const uint16_t h[6] = {0x0001, 0x03FF, 0x7BFF, 0xFC00, 0x3C01, 0x8000};
    const double want_h[6] = {0x1p-24, 1023 * 0x1p-24, 65504, -INFINITY, 1 + 0x1p-10, -0.0};
    const uint16_t b[4] = {0x0001, 0x7F7F, 0x3F81, 0xC2C8};
    const double want_b[4] = {0x1p-133, (2 - 0x1p-7) * 0x1p127, 1 + 0x1p-7, -100};
    const int64_t n6 = 6, n4 = 4;
    nb_tensor* t = NULL;
    CHECK_OK(nb_tensor_from_host(h, &n6, 1, NB_F16, NB_CPU, 0, &t));
    CHECK_VALUES(t, want_h, 6);
    nb_tensor_release(t);
    CHECK_OK(nb_tensor_from_host(b, &n4, 1, NB_BF16, NB_CPU, 0, &t));
    CHECK_VALUES(t, want_b, 4);
    nb_tensor_release(t);
}

TEST(test_arange) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_arange(0, 1, 0.1, NB_F64, NB_CPU, 0, &t));
    CHECK_SHAPE(t, 10);
    double v[10];
    CHECK_OK(nb_tensor_copy_to_host(t, v, sizeof v));
    for (int i = 0; i < 10; i++) CHECK(v[i] - 0.1 * i < 1e-12 && 0.1 * i - v[i] < 1e-12);
    CHECK_EQ_DBL(v[0], 0.0);
    nb_tensor_release(t);
    CHECK_OK(nb_arange(0, 10, 3, NB_I64, NB_CPU, 0, &t));
    const double w1[4] = {0, 3, 6, 9};
    CHECK_VALUES(t, w1, 4);
    CHECK_EQ_INT(nb_tensor_dtype(t), NB_I64);
    nb_tensor_release(t);
    CHECK_OK(nb_arange(5, 0, -1.5, NB_F32, NB_CPU, 0, &t));  /* ceil(5 / 1.5) = 4 */
    const double w2[4] = {5, 3.5, 2, 0.5};
    CHECK_VALUES(t, w2, 4);
    nb_tensor_release(t);
    CHECK_OK(nb_arange(1, 1, 1, NB_I32, NB_CPU, 0, &t));
    CHECK_SHAPE(t, 0);
    nb_tensor_release(t);
    CHECK_OK(nb_arange(-3, 2, 2, NB_I8, NB_CPU, 0, &t));
    const double w3[3] = {-3, -1, 1};
    CHECK_VALUES(t, w3, 3);
    nb_tensor_release(t);
}

TEST(test_linspace) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_linspace(0, 1, 5, NB_F64, NB_CPU, 0, &t));
    const double w1[5] = {0, 0.25, 0.5, 0.75, 1};
    CHECK_VALUES(t, w1, 5);
    nb_tensor_release(t);
    /* Endpoints are exact even when the step is not representable. */
    CHECK_OK(nb_linspace(-1, 0.3, 7, NB_F64, NB_CPU, 0, &t));
    double v[7];
    CHECK_OK(nb_tensor_copy_to_host(t, v, sizeof v));
    CHECK_EQ_DBL(v[0], -1);
    CHECK_EQ_DBL(v[6], 0.3);
    for (int i = 1; i < 7; i++) CHECK(v[i] > v[i - 1]);
    nb_tensor_release(t);
    CHECK_OK(nb_linspace(0.1, 0.7, 4, NB_F32, NB_CPU, 0, &t));
    float f[4];
    CHECK_OK(nb_tensor_copy_to_host(t, f, sizeof f));
    CHECK_EQ_DBL(f[0], 0.1f);
    CHECK_EQ_DBL(f[3], 0.7f);
    nb_tensor_release(t);
    CHECK_OK(nb_linspace(2, 9, 0, NB_F32, NB_CPU, 0, &t));
    CHECK_SHAPE(t, 0);
    nb_tensor_release(t);
    /* One step gives [start], as in NumPy and PyTorch. */
    CHECK_OK(nb_linspace(3, 10, 1, NB_F64, NB_CPU, 0, &t));
    const double w2[1] = {3};
    CHECK_VALUES(t, w2, 1);
    nb_tensor_release(t);
}

TEST(test_eye) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_eye(3, 4, NB_F32, NB_CPU, 0, &t));
    CHECK_SHAPE(t, 3, 4);
    const double w[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    CHECK_VALUES(t, w, 12);
    nb_tensor_release(t);
    CHECK_OK(nb_eye(3, 2, NB_BOOL, NB_CPU, 0, &t));
    const uint8_t wb[6] = {1, 0, 0, 1, 0, 0};
    CHECK(memcmp(nb_tensor_data_ptr(t), wb, 6) == 0);
    nb_tensor_release(t);
    CHECK_OK(nb_eye(0, 3, NB_I64, NB_CPU, 0, &t));
    CHECK_SHAPE(t, 0, 3);
    nb_tensor_release(t);
}

TEST(test_from_host_copies) {
    int16_t data[6] = {1, -2, 3, -4, 5, 32767};
    const int64_t shape[2] = {2, 3};
    nb_tensor* t = NULL;
    CHECK_OK(nb_tensor_from_host(data, shape, 2, NB_I16, NB_CPU, 0, &t));
    CHECK(nb_tensor_data_ptr(t) != (void*)data);
    CHECK(memcmp(nb_tensor_data_ptr(t), data, sizeof data) == 0);
    data[0] = 99;  /* the tensor holds its own copy */
    const double w[6] = {1, -2, 3, -4, 5, 32767};
    CHECK_VALUES(t, w, 6);
    nb_tensor_release(t);
    const double d[2] = {0.5, -1e300};
    CHECK_OK(nb_tensor_from_host(d, shape, 1, NB_F64, NB_CPU, 0, &t));  /* shape [2] */
    CHECK_VALUES(t, d, 2);
    nb_tensor_release(t);
    const uint8_t b[3] = {0, 1, 1};
    const int64_t n3 = 3;
    CHECK_OK(nb_tensor_from_host(b, &n3, 1, NB_BOOL, NB_CPU, 0, &t));
    const double wb[3] = {0, 1, 1};
    CHECK_VALUES(t, wb, 3);
    nb_tensor_release(t);
    const int64_t zero = 0;  /* no bytes to copy: NULL data is fine */
    CHECK_OK(nb_tensor_from_host(NULL, &zero, 1, NB_U8, NB_CPU, 0, &t));
    CHECK_EQ_INT(nb_tensor_numel(t), 0);
    nb_tensor_release(t);
}

TEST(test_from_external_wraps_without_copy) {
    float buf[6] = {0, 1, 2, 3, 4, 5};
    const int64_t shape[2] = {2, 3};
    nb_tensor* t = NULL;
    CHECK_OK(nb_tensor_from_external(buf, shape, NULL, 2, NB_F32, NB_CPU, 0, NULL, NULL, &t));
    CHECK(nb_tensor_data_ptr(t) == (void*)buf);
    CHECK(nb_tensor_storage_data_ptr(t) == (void*)buf);
    CHECK_STRIDES(t, 3, 1);
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 24);
    buf[4] = 40;  /* visible through the tensor */
    const double w[6] = {0, 1, 2, 3, 40, 5};
    CHECK_VALUES(t, w, 6);
    nb_tensor_release(t);
    /* Column-major strides: element (i, j) is buf[i + 2 j]. */
    const int64_t cm[2] = {1, 2};
    CHECK_OK(nb_tensor_from_external(buf, shape, cm, 2, NB_F32, NB_CPU, 0, NULL, NULL, &t));
    CHECK_EQ_INT(nb_tensor_is_contiguous(t), 0);
    CHECK_STRIDES(t, 1, 2);
    const double wc[6] = {0, 2, 40, 1, 3, 5};
    CHECK_VALUES(t, wc, 6);
    nb_tensor_release(t);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_metadata_of_a_new_tensor);
    RUN(test_zero_dim_tensor);
    RUN(test_empty_shapes);
    RUN(test_zeros_and_ones_every_dtype);
    RUN(test_full_converts_value);
    RUN(test_full_int_is_exact);
    RUN(test_float16_rounding);
    RUN(test_bfloat16_rounding);
    RUN(test_half_rounding_from_double_is_single_rounding);
    RUN(test_half_values_read_back);
    RUN(test_arange);
    RUN(test_linspace);
    RUN(test_eye);
    RUN(test_from_host_copies);
    RUN(test_from_external_wraps_without_copy);
    return NBT_END();
}
