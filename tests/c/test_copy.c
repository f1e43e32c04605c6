/* test_copy.c: copy_ (broadcasting, every dtype pair, strided and overlapping
 * operands, expanded destinations), nb_tensor_to, item_double/item_int, copy_to_host. */
#include "nbtest.h"

/* Small non-negative integers every dtype holds exactly (bool holds them as != 0). */
#define NV 6
static const double VALUES[NV] = {0, 1, 2, 5, 100, 127};

/* Encodes VALUES[i] in dtype by hand (independent of nabla's conversions). */
static void encode(int32_t dtype, int i, void* dst) {
    static const uint16_t f16[NV] = {0x0000, 0x3C00, 0x4000, 0x4500, 0x5640, 0x57F0};
    static const uint16_t bf16[NV] = {0x0000, 0x3F80, 0x4000, 0x40A0, 0x42C8, 0x42FE};
    const double v = VALUES[i];
    switch (dtype) {
        case NB_F32: { float x = (float)v; memcpy(dst, &x, 4); break; }
        case NB_F64: memcpy(dst, &v, 8); break;
        case NB_F16: memcpy(dst, &f16[i], 2); break;
        case NB_BF16: memcpy(dst, &bf16[i], 2); break;
        case NB_I8: { int8_t x = (int8_t)v; memcpy(dst, &x, 1); break; }
        case NB_I16: { int16_t x = (int16_t)v; memcpy(dst, &x, 2); break; }
        case NB_I32: { int32_t x = (int32_t)v; memcpy(dst, &x, 4); break; }
        case NB_I64: { int64_t x = (int64_t)v; memcpy(dst, &x, 8); break; }
        case NB_U8: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
        case NB_BOOL: { uint8_t x = v != 0; memcpy(dst, &x, 1); break; }
    }
}

TEST(test_copy_every_dtype_pair) {
    for (int32_t s = 0; s < 10; s++) {
        for (int32_t d = 0; d < 10; d++) {
            uint8_t src_bytes[NV * 8], want[NV * 8], got[NV * 8];
            const int64_t n = NV, size = nb_dtype_size(d);
            for (int i = 0; i < NV; i++) {
                encode(s, i, src_bytes + i * nb_dtype_size(s));
                /* The value the source holds (bool: 0/1), then encoded as the destination. */
                encode(d, (s == NB_BOOL && VALUES[i] != 0) ? 1 : i, want + i * size);
            }
            nb_tensor *src = NULL, *dst = NULL;
            CHECK_OK(nb_tensor_from_host(src_bytes, &n, 1, s, NB_CPU, 0, &src));
            CHECK_OK(nb_full(&n, 1, 33, d, NB_CPU, 0, &dst));
            CHECK_OK(nb_tensor_copy_(dst, src));
            CHECK_OK(nb_tensor_copy_to_host(dst, got, n * size));
            if (memcmp(got, want, (size_t)(n * size)) != 0)
                nbt_fail(__FILE__, __LINE__, "copy_ %s -> %s gave wrong bytes", nb_dtype_name(s),
                         nb_dtype_name(d));
            nb_tensor_release(src);
            nb_tensor_release(dst);
        }
    }
}

TEST(test_copy_to_bool_is_nonzero) {
    const double v[6] = {0, -0.0, 0.25, -3, 1e-30, NAN};
    const int64_t n = 6;
    nb_tensor *src = nbt_tensor(v, &n, 1, NB_F64), *dst = NULL;
    CHECK_OK(nb_zeros(&n, 1, NB_BOOL, NB_CPU, 0, &dst));
    CHECK_OK(nb_tensor_copy_(dst, src));
    const uint8_t want[6] = {0, 0, 1, 1, 1, 1};  /* NaN != 0 */
    CHECK(memcmp(nb_tensor_data_ptr(dst), want, 6) == 0);
    nb_tensor_release(src);
    nb_tensor_release(dst);
}

/* copy_ promises round-to-nearest-even into float16/bfloat16; converting through
 * float32 first rounds twice (see test_creation's single-rounding test for nb_full). */
TEST(test_copy_to_half_rounds_once) {
    const int64_t n1 = 1;
    const double f[1] = {1 + 0x1p-11 + 0x1p-40};  /* above the float16 tie: 0x3C01 */
    const int64_t i[1] = {16842753};                /* 2^24 + 2^16 + 1: above the bfloat16 tie */
    nb_tensor *src = NULL, *dst = NULL;
    CHECK_OK(nb_tensor_from_host(f, &n1, 1, NB_F64, NB_CPU, 0, &src));
    CHECK_OK(nb_empty(&n1, 1, NB_F16, NB_CPU, 0, &dst));
    CHECK_OK(nb_tensor_copy_(dst, src));
    CHECK_EQ_INT(*(const uint16_t*)nb_tensor_data_ptr(dst), 0x3C01);
    nb_tensor_release(dst);
    nb_tensor_release(src);
    /* bfloat16 spacing at 2^24 is 2^17, so 2^24 + 2^16 + 1 rounds up to 2^24 + 2^17 (0x4B81);
     * via float32 it becomes 2^24 + 2^16, an exact tie that goes to even 0x4B80. */
    CHECK_OK(nb_tensor_from_host(i, &n1, 1, NB_I64, NB_CPU, 0, &src));
    CHECK_OK(nb_empty(&n1, 1, NB_BF16, NB_CPU, 0, &dst));
    CHECK_OK(nb_tensor_copy_(dst, src));
    CHECK_EQ_INT(*(const uint16_t*)nb_tensor_data_ptr(dst), 0x4B81);
    nb_tensor_release(dst);
    nb_tensor_release(src);
}

TEST(test_copy_broadcasts) {
    const int64_t s23[2] = {2, 3}, s3[1] = {3}, s21[2] = {2, 1}, s13[2] = {1, 3};
    const double row[3] = {1, 2, 3}, col[2] = {10, 20};
    nb_tensor *dst = NULL, *a = nbt_tensor(row, s3, 1, NB_F32), *b = nbt_tensor(col, s21, 2, NB_I32);
    nb_tensor *c = nbt_tensor(row, s13, 2, NB_F64), *scalar = NULL;
    CHECK_OK(nb_zeros(s23, 2, NB_F64, NB_CPU, 0, &dst));
    CHECK_OK(nb_tensor_copy_(dst, a));
    const double w1[6] = {1, 2, 3, 1, 2, 3};
    CHECK_VALUES(dst, w1, 6);
    CHECK_OK(nb_tensor_copy_(dst, b));
    const double w2[6] = {10, 10, 10, 20, 20, 20};
    CHECK_VALUES(dst, w2, 6);
    CHECK_OK(nb_tensor_copy_(dst, c));
    CHECK_VALUES(dst, w1, 6);
    CHECK_OK(nb_full(NULL, 0, 7, NB_U8, NB_CPU, 0, &scalar));
    CHECK_OK(nb_tensor_copy_(dst, scalar));
    const double w3[6] = {7, 7, 7, 7, 7, 7};
    CHECK_VALUES(dst, w3, 6);
    CHECK_EQ_INT(nb_tensor_version(dst), 4);
    /* [2, 1] does not broadcast to [3]: destination shape never changes. */
    nb_tensor* d3 = NULL;
    CHECK_OK(nb_zeros(s3, 1, NB_F32, NB_CPU, 0, &d3));
    CHECK_STATUS(nb_tensor_copy_(d3, b), NB_ERR_SHAPE, "[2, 1]");
    CHECK_STATUS(nb_tensor_copy_(d3, dst), NB_ERR_SHAPE, "[2, 3]");
    CHECK_EQ_INT(nb_tensor_version(d3), 0);  /* no bump on failure */
    nb_tensor_release(d3);
    nb_tensor_release(scalar);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(c);
    nb_tensor_release(dst);
}

TEST(test_copy_from_non_contiguous_sources) {
    const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s8[1] = {8}, s4[1] = {4};
    nb_tensor *t = nbt_iota(s23, 2, NB_F32), *tr = NULL, *dst = NULL;
    CHECK_OK(nb_tensor_transpose(t, 0, 1, &tr));
    CHECK_OK(nb_zeros(s32, 2, NB_F64, NB_CPU, 0, &dst));  /* with a dtype conversion */
    CHECK_OK(nb_tensor_copy_(dst, tr));
    const double w1[6] = {0, 3, 1, 4, 2, 5};
    CHECK_VALUES(dst, w1, 6);
    nb_tensor_release(dst);
    CHECK_OK(nb_zeros(s32, 2, NB_F32, NB_CPU, 0, &dst));  /* same dtype */
    CHECK_OK(nb_tensor_copy_(dst, tr));
    CHECK_VALUES(dst, w1, 6);
    nb_tensor_release(dst);
    nb_tensor *r = nbt_iota(s8, 1, NB_I64), *sl = NULL;
    CHECK_OK(nb_tensor_slice(r, 0, 1, 8, 2, &sl));  /* 1 3 5 7 */
    CHECK_OK(nb_zeros(s4, 1, NB_I16, NB_CPU, 0, &dst));
    CHECK_OK(nb_tensor_copy_(dst, sl));
    const double w2[4] = {1, 3, 5, 7};
    CHECK_VALUES(dst, w2, 4);
    int64_t host64[4];
    CHECK_OK(nb_tensor_copy_to_host(sl, host64, sizeof host64));  /* strided -> row-major */
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(host64[i], 2 * i + 1);
    /* A strided destination: write -1 into every other element of r. */
    nb_tensor* minus = NULL;
    CHECK_OK(nb_full(s4, 1, -1, NB_I16, NB_CPU, 0, &minus));
    CHECK_OK(nb_tensor_copy_(sl, minus));
    const double w3[8] = {0, -1, 2, -1, 4, -1, 6, -1};
    CHECK_VALUES(r, w3, 8);
    nb_tensor_release(minus);
    nb_tensor_release(sl);
    nb_tensor_release(dst);
    nb_tensor_release(r);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_overlapping_copy_reads_source_first) {
    const int64_t s6[1] = {6};
    nb_tensor *x = nbt_iota(s6, 1, NB_F32), *lo = NULL, *hi = NULL;
    CHECK_OK(nb_tensor_slice(x, 0, 0, 4, 1, &lo));  /* x[0:4] */
    CHECK_OK(nb_tensor_slice(x, 0, 1, 5, 1, &hi));  /* x[1:5] */
    CHECK_OK(nb_tensor_copy_(hi, lo));              /* x[1:5] = x[0:4] */
    const double w1[6] = {0, 0, 1, 2, 3, 5};
    CHECK_VALUES(x, w1, 6);
    nb_tensor_release(lo);
    nb_tensor_release(hi);
    nb_tensor_release(x);
    x = nbt_iota(s6, 1, NB_F32);
    CHECK_OK(nb_tensor_slice(x, 0, 0, 4, 1, &lo));
    CHECK_OK(nb_tensor_slice(x, 0, 1, 5, 1, &hi));
    CHECK_OK(nb_tensor_copy_(lo, hi));              /* x[0:4] = x[1:5] */
    const double w2[6] = {1, 2, 3, 4, 4, 5};
    CHECK_VALUES(x, w2, 6);
    nb_tensor_release(lo);
    nb_tensor_release(hi);
    nb_tensor_release(x);
    /* In-place transpose: x = x.T on a square matrix. */
    const int64_t s33[2] = {3, 3};
    nb_tensor *m = nbt_iota(s33, 2, NB_I32), *mt = NULL;
    CHECK_OK(nb_tensor_transpose(m, 0, 1, &mt));
    CHECK_OK(nb_tensor_copy_(m, mt));
    const double w3[9] = {0, 3, 6, 1, 4, 7, 2, 5, 8};
    CHECK_VALUES(m, w3, 9);
    nb_tensor_release(mt);
    nb_tensor_release(m);
}

TEST(test_copy_into_expanded_destination_fails) {
    const int64_t s13[2] = {1, 3}, s23[2] = {2, 3};
    nb_tensor *base = NULL, *e = NULL, *src = NULL;
    CHECK_OK(nb_zeros(s13, 2, NB_F32, NB_CPU, 0, &base));
    CHECK_OK(nb_tensor_expand(base, s23, 2, &e));
    CHECK_OK(nb_ones(s23, 2, NB_F32, NB_CPU, 0, &src));
    CHECK_STATUS(nb_tensor_copy_(e, src), NB_ERR_INVALID_ARGUMENT, "copy_");
    CHECK_MSG("[0, 1]");  /* names the offending strides */
    const double zeros[3] = {0, 0, 0};
    CHECK_VALUES(base, zeros, 3);
    CHECK_EQ_INT(nb_tensor_version(base), 0);
    nb_tensor_release(src);
    nb_tensor_release(e);
    nb_tensor_release(base);
}

TEST(test_to) {
    const int64_t s23[2] = {2, 3};
    nb_tensor *t = nbt_iota(s23, 2, NB_F32), *r = NULL;
    CHECK_OK(nb_tensor_to(t, NB_F32, NB_CPU, 0, 0, &r));
    CHECK(r == t);
    CHECK_EQ_INT(nb_tensor_refcount(t), 2);
    nb_tensor_release(r);
    CHECK_OK(nb_tensor_to(t, NB_F32, NB_CPU, -1, 0, &r));  /* -1: the default index, same device */
    CHECK(r == t);
    nb_tensor_release(r);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    CHECK_OK(nb_tensor_to(t, NB_F32, NB_CPU, 0, 1, &r));  /* copy = 1 forces a new tensor */
    CHECK(r != t);
    CHECK(nb_tensor_storage_data_ptr(r) != nb_tensor_storage_data_ptr(t));
    nb_tensor_release(r);
    CHECK_OK(nb_tensor_to(t, NB_I8, NB_CPU, 0, 0, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_I8);
    const int8_t w[6] = {0, 1, 2, 3, 4, 5};
    CHECK(memcmp(nb_tensor_data_ptr(r), w, 6) == 0);
    nb_tensor_release(r);
    nb_tensor* tr = NULL;  /* a dense transposed input keeps its strides (preserve_format) */
    CHECK_OK(nb_tensor_transpose(t, 0, 1, &tr));
    CHECK_OK(nb_tensor_to(tr, NB_F64, NB_CPU, 0, 0, &r));
    CHECK_EQ_INT(nb_tensor_is_contiguous(r), 0);
    CHECK_SHAPE(r, 3, 2);
    CHECK_STRIDES(r, 1, 3);
    const double storage_order[6] = {0, 1, 2, 3, 4, 5};
    CHECK(memcmp(nb_tensor_data_ptr(r), storage_order, sizeof storage_order) == 0);
    nb_tensor_release(r);
    nb_tensor* sl = NULL;  /* a strided (non-dense) input comes out dense, in its memory order */
    CHECK_OK(nb_tensor_slice(tr, 0, 0, 3, 2, &sl));
    CHECK_OK(nb_tensor_to(sl, NB_F64, NB_CPU, 0, 0, &r));  /* sl = [[0, 3], [2, 5]], strides (2, 3) */
    CHECK_SHAPE(r, 2, 2);
    CHECK_STRIDES(r, 1, 2);
    const double ws[4] = {0, 2, 3, 5};
    CHECK(memcmp(nb_tensor_data_ptr(r), ws, sizeof ws) == 0);
    nb_tensor_release(r);
    nb_tensor_release(sl);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_item) {
    nb_tensor* t = NULL;
    double d = 0;
    int64_t i = 0;
    CHECK_OK(nb_full(NULL, 0, 1, NB_BOOL, NB_CPU, 0, &t));
    CHECK_OK(nb_tensor_item_double(t, &d));
    CHECK_EQ_DBL(d, 1);
    CHECK_OK(nb_tensor_item_int(t, &i));
    CHECK_EQ_INT(i, 1);
    nb_tensor_release(t);
    const int64_t big = (INT64_C(1) << 62) + 1, one[2] = {1, 1};
    CHECK_OK(nb_full_int(one, 2, big, NB_I64, NB_CPU, 0, &t));  /* shape [1, 1] works too */
    CHECK_OK(nb_tensor_item_int(t, &i));
    CHECK(i == big);
    CHECK_OK(nb_tensor_item_double(t, &d));
    CHECK_EQ_DBL(d, 0x1p62);  /* nearest double */
    nb_tensor_release(t);
    static const struct { double v; int32_t dtype; int64_t want; } trunc[] = {
        {2.75, NB_F32, 2}, {-2.75, NB_F32, -2}, {-0.5, NB_F64, 0}, {1e15 + 0.5, NB_F64, 1000000000000000},
        {2.5, NB_F16, 2}, {-3.5, NB_BF16, -3},
    };
    for (size_t k = 0; k < sizeof trunc / sizeof trunc[0]; k++) {
        CHECK_OK(nb_full(NULL, 0, trunc[k].v, trunc[k].dtype, NB_CPU, 0, &t));
        i = 12345;
        CHECK_OK(nb_tensor_item_int(t, &i));
        CHECK_EQ_INT(i, trunc[k].want);
        nb_tensor_release(t);
    }
    CHECK_OK(nb_full_int(NULL, 0, -200, NB_I16, NB_CPU, 0, &t));
    CHECK_OK(nb_tensor_item_double(t, &d));
    CHECK_EQ_DBL(d, -200);
    nb_tensor_release(t);
    const int64_t n3 = 3;
    CHECK_OK(nb_zeros(&n3, 1, NB_F32, NB_CPU, 0, &t));
    d = 42;
    CHECK_STATUS(nb_tensor_item_double(t, &d), NB_ERR_INVALID_ARGUMENT, "3 elements");
    CHECK_EQ_DBL(d, 42);
    nb_tensor_release(t);
}

TEST(test_copy_to_host_checks_size) {
    const int64_t s23[2] = {2, 3};
    nb_tensor* t = nbt_iota(s23, 2, NB_I32);
    int32_t buf[7] = {-1, -1, -1, -1, -1, -1, -1};
    CHECK_STATUS(nb_tensor_copy_to_host(t, buf, 20), NB_ERR_INVALID_ARGUMENT, "24");
    CHECK_MSG("20");
    CHECK_STATUS(nb_tensor_copy_to_host(t, buf, 28), NB_ERR_INVALID_ARGUMENT, "28");
    CHECK_STATUS(nb_tensor_copy_to_host(t, NULL, 24), NB_ERR_INVALID_ARGUMENT, "copy_to_host");
    for (int i = 0; i < 7; i++) CHECK_EQ_INT(buf[i], -1);
    CHECK_OK(nb_tensor_copy_to_host(t, buf, 24));
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(buf[i], i);
    CHECK_EQ_INT(buf[6], -1);
    nb_tensor_release(t);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_copy_every_dtype_pair);
    RUN(test_copy_to_bool_is_nonzero);
    RUN(test_copy_to_half_rounds_once);
    RUN(test_copy_broadcasts);
    RUN(test_copy_from_non_contiguous_sources);
    RUN(test_overlapping_copy_reads_source_first);
    RUN(test_copy_into_expanded_destination_fails);
    RUN(test_to);
    RUN(test_item);
    RUN(test_copy_to_host_checks_size);
    return NBT_END();
}
