/* test_basics.c: version, status names, the dtype table, device queries, BLAS info. */
#include "nbtest.h"

TEST(test_version) {
    CHECK_EQ_INT(nb_version(), NB_VERSION_NUMBER);
    CHECK_EQ_INT(NB_VERSION_NUMBER, NB_VERSION_MAJOR * 10000 + NB_VERSION_MINOR * 100 + NB_VERSION_PATCH);
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", NB_VERSION_MAJOR, NB_VERSION_MINOR, NB_VERSION_PATCH);
    CHECK_STR(nb_version_string(), want);
    CHECK(nb_version_string() == nb_version_string());  /* static storage */
}

TEST(test_status_names) {
    static const char* const names[] = {
        "NB_OK", "NB_ERR_INVALID_ARGUMENT", "NB_ERR_SHAPE", "NB_ERR_DTYPE", "NB_ERR_DEVICE",
        "NB_ERR_INDEX", "NB_ERR_OUT_OF_MEMORY", "NB_ERR_NOT_IMPLEMENTED", "NB_ERR_AUTOGRAD",
        "NB_ERR_BACKEND", "NB_ERR_ABI_VERSION", "NB_ERR_INTERNAL", "NB_ERR_LINALG",
    };
    const nb_status codes[] = {
        NB_OK, NB_ERR_INVALID_ARGUMENT, NB_ERR_SHAPE, NB_ERR_DTYPE, NB_ERR_DEVICE, NB_ERR_INDEX,
        NB_ERR_OUT_OF_MEMORY, NB_ERR_NOT_IMPLEMENTED, NB_ERR_AUTOGRAD, NB_ERR_BACKEND,
        NB_ERR_ABI_VERSION, NB_ERR_INTERNAL, NB_ERR_LINALG,
    };
    for (int i = 0; i < 13; i++) {
        CHECK_EQ_INT(codes[i], i);  /* values are explicit and append-only */
        CHECK_STR(nb_status_name(codes[i]), names[i]);
    }
    CHECK_STR(nb_status_name(-1), "NB_UNKNOWN_STATUS");
    CHECK_STR(nb_status_name(13), "NB_UNKNOWN_STATUS");
    CHECK_STR(nb_status_name(INT32_MIN), "NB_UNKNOWN_STATUS");
    CHECK_STR(nb_status_name(INT32_MAX), "NB_UNKNOWN_STATUS");
}

TEST(test_dtype_table) {
    static const struct { int32_t code; int64_t size; const char* name; int32_t floating; } dtypes[] = {
        {NB_F32, 4, "float32", 1}, {NB_F64, 8, "float64", 1}, {NB_F16, 2, "float16", 1},
        {NB_BF16, 2, "bfloat16", 1}, {NB_I8, 1, "int8", 0}, {NB_I16, 2, "int16", 0},
        {NB_I32, 4, "int32", 0}, {NB_I64, 8, "int64", 0}, {NB_U8, 1, "uint8", 0},
        {NB_BOOL, 1, "bool", 0},
    };
    for (int i = 0; i < 10; i++) {
        CHECK_EQ_INT(dtypes[i].code, i);
        CHECK_EQ_INT(nb_dtype_size(dtypes[i].code), dtypes[i].size);
        CHECK_STR(nb_dtype_name(dtypes[i].code), dtypes[i].name);
        CHECK_EQ_INT(nb_dtype_is_floating(dtypes[i].code), dtypes[i].floating);
    }
}

TEST(test_dtype_unknown_codes) {
    const int32_t bad[] = {-1, 10, 11, 255, INT32_MIN, INT32_MAX};
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(nb_dtype_size(bad[i]), -1);
        CHECK(nb_dtype_name(bad[i]) == NULL);
        CHECK_EQ_INT(nb_dtype_is_floating(bad[i]), 0);
    }
}

TEST(test_device_type_names) {
    CHECK_EQ_INT(NB_CPU, 1);  /* DLPack's kDLCPU, kDLCUDA, kDLCUDAHost */
    CHECK_EQ_INT(NB_CUDA, 2);
    CHECK_EQ_INT(NB_CUDA_HOST, 3);
    CHECK_STR(nb_device_type_name(NB_CPU), "cpu");
    CHECK_STR(nb_device_type_name(NB_CUDA), "cuda");
    CHECK_STR(nb_device_type_name(NB_CUDA_HOST), "cuda_host");
    CHECK(nb_device_type_name(0) == NULL);
    CHECK(nb_device_type_name(4) == NULL);
    CHECK(nb_device_type_name(-1) == NULL);
}

TEST(test_device_count_cpu) {
    int32_t n = -7;
    CHECK_OK(nb_device_count(NB_CPU, &n));
    CHECK_EQ_INT(n, 1);
    CHECK_STR(nb_device_unavailable_reason(NB_CPU), "");
}

TEST(test_device_count_cuda) {
    int32_t n = -7;
    CHECK_OK(nb_device_count(NB_CUDA, &n));
    CHECK(n >= 0);
    const char* reason = nb_device_unavailable_reason(NB_CUDA);
    CHECK(reason != NULL);
    if (reason == NULL) return;
    if (n == 0) {
        CHECK(reason[0] != '\0');
        printf("note: CUDA unavailable: %s\n", reason);
    } else {
        CHECK_STR(reason, "");
        printf("note: %d CUDA device(s)\n", (int)n);
    }
    int32_t again = -7;  /* stable across calls */
    CHECK_OK(nb_device_count(NB_CUDA, &again));
    CHECK_EQ_INT(again, n);
}

TEST(test_device_count_other_types) {
    int32_t n = -7;
    CHECK_OK(nb_device_count(NB_CUDA_HOST, &n));
    CHECK(n >= 0);
    n = -7;
    CHECK_STATUS(nb_device_count(99, &n), NB_ERR_DEVICE, "99");
    CHECK_MSG("nb_device_count");
    CHECK_EQ_INT(n, -7);  /* untouched on failure */
    CHECK_STATUS(nb_device_count(NB_CPU, NULL), NB_ERR_INVALID_ARGUMENT, "NULL");
    const char* r = nb_device_unavailable_reason(99);
    CHECK(r != NULL && r[0] != '\0');
}

TEST(test_blas_info) {
    const char* info = nb_blas_info();
    CHECK(info != NULL);
    if (info != NULL) printf("note: BLAS: %s\n", info);
}

TEST(test_memory_stats_struct) {
    nb_memory_stats s;
    memset(&s, 0xff, sizeof s);
    s.struct_size = sizeof s;
    CHECK_OK(nb_memory_stats_get(NB_CPU, 0, &s));
    CHECK_EQ_INT(s.struct_size, sizeof s);
    CHECK(s.allocated_bytes >= 0 && s.cached_bytes >= 0 && s.live_tensors >= 0);
    CHECK(s.peak_allocated_bytes >= s.allocated_bytes);
    /* An older, shorter struct: only its fields are written. */
    struct { uint32_t struct_size, reserved0; int64_t allocated_bytes; int64_t canary; } old;
    old.struct_size = 16;
    old.reserved0 = 0;
    old.canary = 0x5a5a5a5a;
    CHECK_OK(nb_memory_stats_get(NB_CPU, 0, (nb_memory_stats*)&old));
    CHECK_EQ_INT(old.struct_size, 16);
    CHECK_EQ_INT(old.canary, 0x5a5a5a5a);
    /* A newer, longer struct: fields nabla does not know stay as they were. */
    struct { nb_memory_stats s; int64_t newer_field; } big;
    memset(&big, 0, sizeof big);
    big.s.struct_size = sizeof big;
    big.newer_field = 0x5a5a5a5a;
    CHECK_OK(nb_memory_stats_get(NB_CPU, 0, &big.s));
    CHECK_EQ_INT(big.s.struct_size, sizeof big);
    CHECK_EQ_INT(big.newer_field, 0x5a5a5a5a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_version);
    RUN(test_status_names);
    RUN(test_dtype_table);
    RUN(test_dtype_unknown_codes);
    RUN(test_device_type_names);
    RUN(test_device_count_cpu);
    RUN(test_device_count_cuda);
    RUN(test_device_count_other_types);
    RUN(test_blas_info);
    RUN(test_memory_stats_struct);
    return NBT_END();
}
