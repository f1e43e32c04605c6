/* test_checkpoint.c: nb_save / nb_save_buffer / nb_load / nb_load_buffer round trips
 * (every dtype, views, empty tensors, metadata) and crafted files refused with the
 * file and the tensor named, nothing leaked. */
#include "nbtest.h"

static char path[256];

static nb_tensor* iota(const int64_t* shape, int32_t ndim, int32_t dtype) {
    nb_tensor *f = NULL, *t = NULL;
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) n *= shape[i];
    CHECK_OK(nb_arange(0, (double)n, 1, NB_F64, NB_CPU, 0, &f));
    nb_tensor* r = NULL;
    CHECK_OK(nb_tensor_reshape(f, shape, ndim, &r));
    CHECK_OK(nb_tensor_to(r, dtype, NB_CPU, 0, 1, &t));
    nb_tensor_release(f);
    nb_tensor_release(r);
    return t;
}

static int same(const nb_tensor* a, const nb_tensor* b) {
    if (nb_tensor_dtype(a) != nb_tensor_dtype(b) || nb_tensor_ndim(a) != nb_tensor_ndim(b)) return 0;
    for (int32_t i = 0; i < nb_tensor_ndim(a); i++)
        if (nb_tensor_shape(a)[i] != nb_tensor_shape(b)[i]) return 0;
    int64_t n = nb_tensor_numel(a) * nb_dtype_size(nb_tensor_dtype(a));
    unsigned char *x = malloc((size_t)n + 1), *y = malloc((size_t)n + 1);
    CHECK_OK(nb_tensor_copy_to_host(a, x, n));
    CHECK_OK(nb_tensor_copy_to_host(b, y, n));
    int ok = memcmp(x, y, (size_t)n) == 0;
    free(x);
    free(y);
    return ok;
}

TEST(test_round_trip_every_dtype_through_a_file) {
    const nb_memory_stats before = nbt_stats();
    const int64_t s23[2] = {2, 3}, s0[2] = {0, 4};
    nb_tensor* t[NB_BOOL + 3];
    const char* names[NB_BOOL + 3];
    char name_buf[NB_BOOL + 3][16];
    for (int32_t d = 0; d <= NB_BOOL; d++) {
        t[d] = iota(s23, 2, d);
        snprintf(name_buf[d], sizeof name_buf[d], "t%d", (int)d);
        names[d] = name_buf[d];
    }
    nb_tensor* base = iota(s23, 2, NB_F32);
    CHECK_OK(nb_tensor_transpose(base, 0, 1, &t[NB_BOOL + 1]));  /* a strided view */
    nb_tensor_release(base);
    t[NB_BOOL + 2] = iota(s0, 2, NB_I64);                       /* empty */
    names[NB_BOOL + 1] = "view \"quoted\"\n";
    names[NB_BOOL + 2] = "empty";
    const char* keys[2] = {"format", "note"};
    const char* values[2] = {"pt", "caf\xc3\xa9"};
    CHECK_OK(nb_save(path, names, t, NB_BOOL + 3, keys, values, 2));
    nb_checkpoint* ck = NULL;
    CHECK_OK(nb_load(path, &ck));
    CHECK_EQ_INT(nb_checkpoint_count(ck), NB_BOOL + 3);
    for (int i = 0; i < NB_BOOL + 3; i++) {
        CHECK_STR(nb_checkpoint_name(ck, i), names[i]);
        nb_tensor* back = NULL;
        CHECK_OK(nb_checkpoint_tensor(ck, i, &back));
        CHECK(same(back, t[i]));
        nb_tensor_release(back);
    }
    CHECK_EQ_INT(nb_checkpoint_metadata_count(ck), 2);
    const char *k = NULL, *v = NULL;
    CHECK_OK(nb_checkpoint_metadata(ck, 1, &k, &v));
    CHECK_STR(k, "note");
    CHECK_STR(v, "caf\xc3\xa9");
    nb_tensor* got = NULL;
    CHECK_STATUS(nb_checkpoint_get(ck, "missing", &got), NB_ERR_INDEX, "has no tensor named 'missing'");
    CHECK(got == NULL);
    CHECK(nb_checkpoint_name(ck, 99) == NULL);
    CHECK_MSG("index 99 is out of range");
    nb_checkpoint_release(ck);
    for (int i = 0; i < NB_BOOL + 3; i++) nb_tensor_release(t[i]);
    remove(path);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
}

TEST(test_round_trip_through_a_buffer) {
    const int64_t s4[1] = {4};
    nb_tensor* a = iota(s4, 1, NB_BF16);
    const char* names[1] = {"a"};
    int64_t needed = 0;
    CHECK_OK(nb_save_buffer(names, &a, 1, NULL, NULL, 0, NULL, 0, &needed));
    CHECK_EQ_INT(needed % 8, 0);
    unsigned char* buf = malloc((size_t)needed);
    CHECK_STATUS(nb_save_buffer(names, &a, 1, NULL, NULL, 0, buf, needed - 1, &needed), NB_ERR_INVALID_ARGUMENT,
                 "the file needs");
    CHECK_OK(nb_save_buffer(names, &a, 1, NULL, NULL, 0, buf, needed, &needed));
    nb_checkpoint* ck = NULL;
    CHECK_OK(nb_load_buffer(buf, needed, "the test's buffer", &ck));
    nb_tensor* back = NULL;
    CHECK_OK(nb_checkpoint_get(ck, "a", &back));
    CHECK(same(a, back));
    nb_checkpoint_release(ck);
    /* a truncated copy names the buffer and the tensor */
    CHECK_STATUS(nb_load_buffer(buf, needed - 2, "the test's buffer", &ck), NB_ERR_INVALID_ARGUMENT,
                 "nb_load_buffer: the test's buffer is not a valid safetensors file: tensor 'a' ends at byte 8");
    free(buf);
    nb_tensor_release(back);
    nb_tensor_release(a);
}

/* A file with the given header text and n zero bytes of data. */
static void write_file(const char* header, int64_t n) {
    FILE* f = fopen(path, "wb");
    uint64_t len = strlen(header);
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(len >> (8 * i));
    fwrite(le, 1, 8, f);
    fwrite(header, 1, len, f);
    for (int64_t i = 0; i < n; i++) fputc(0, f);
    fclose(f);
}

TEST(test_crafted_files_are_refused_naming_file_and_tensor) {
    static const struct { const char* header; const char* why; } cases[] = {
        {"{\"evil\":{\"dtype\":\"F64\",\"shape\":[9223372036854775807,6,0,6],\"data_offsets\":[0,0]}}",
         "tensor 'evil' of shape [9223372036854775807,6,0,6] and dtype float64: Storage size calculation overflowed"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[18446744073709551619],\"data_offsets\":[0,16]}}",
         "Storage size calculation overflowed"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[18446744073709551616,18446744073709551620]}}",
         "tensor 'evil' ends at byte 18446744073709551620 of a data section of 16 bytes"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}", "which do not hold its 4 bytes"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", "expected a list of integers"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,Infinity]}}", "expected [begin, end] integers"},
        {"{\"evil\":{\"dtype\":\"F8_E4M3\",\"shape\":[1],\"data_offsets\":[0,1]}}", "tensor 'evil' has an invalid entry"},
        {"{\"evil\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
         "17 dims"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
         "tensors 'a' and 'b' overlap: data_offsets [0, 8] and [4, 12]"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
         "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", "tensor 'a' appears twice"},
        {"{\"__metadata__\":5}", "__metadata__ is 5, not a JSON object"},
        {"{\"__metadata__\":{\"k\":1}}", "__metadata__ value of 'k' is 1, not a string"},
        {"[1, 2]", "the header is not a JSON object"},
        {"{\"a\":", "the header is not valid JSON (unexpected end of the header"},
        {"{\"a\\u0000\":{}}", "not valid JSON (a NUL character in a string"},
        {"{\"\xff\":{}}", "not valid JSON (it is not UTF-8 text)"},
    };
    const nb_memory_stats before = nbt_stats();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(cases[i].header, 16);
        nb_checkpoint* ck = NULL;
        CHECK_STATUS(nb_load(path, &ck), NB_ERR_INVALID_ARGUMENT, cases[i].why);
        CHECK_MSG("is not a valid safetensors file");
        CHECK_MSG(path);
        CHECK(ck == NULL);
    }
    nb_checkpoint* ck = NULL;
    FILE* f = fopen(path, "wb");
    fputs("\x10\x00\x00", f);
    fclose(f);
    CHECK_STATUS(nb_load(path, &ck), NB_ERR_INVALID_ARGUMENT, "fewer than the 8-byte header length");
    write_file("{}", 0);
    f = fopen(path, "r+b");
    const unsigned char huge[8] = {0, 0, 0, 0, 0, 1, 0, 0}; /* header length 2^40 */
    fwrite(huge, 1, 8, f);
    fclose(f);
    CHECK_STATUS(nb_load(path, &ck), NB_ERR_INVALID_ARGUMENT, "too large");
    CHECK_STATUS(nb_load("/nonexistent/x.safetensors", &ck), NB_ERR_INVALID_ARGUMENT, "cannot open");
    remove(path);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
}

TEST(test_bad_arguments) {
    const int64_t s2[1] = {2};
    nb_tensor* a = iota(s2, 1, NB_F32);
    nb_tensor* two[2] = {a, a};
    const char* dup[2] = {"x", "x"};
    const char* reserved[1] = {"__metadata__"};
    CHECK_STATUS(nb_save(path, dup, two, 2, NULL, NULL, 0), NB_ERR_INVALID_ARGUMENT, "tensor name 'x' appears twice");
    CHECK_STATUS(nb_save(path, reserved, two, 1, NULL, NULL, 0), NB_ERR_INVALID_ARGUMENT, "reserved");
    CHECK_STATUS(nb_save("/nonexistent/dir/x.safetensors", dup, two, 1, NULL, NULL, 0), NB_ERR_INVALID_ARGUMENT,
                 "cannot create a temporary file");
    nb_tensor* gone = iota(s2, 1, NB_F32);
    nb_tensor_release(gone);
    CHECK_STATUS(nb_save(path, dup, &gone, 1, NULL, NULL, 0), NB_ERR_INVALID_ARGUMENT, "tensor 'x' is not a live");
    CHECK_EQ_INT(nb_checkpoint_count(NULL), -1);
    CHECK_MSG("checkpoint is NULL");
    nb_tensor_release(a);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    const char* tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/test_checkpoint_%ld.safetensors", tmp ? tmp : "/tmp", (long)getpid());
    RUN(test_round_trip_every_dtype_through_a_file);
    RUN(test_round_trip_through_a_buffer);
    RUN(test_crafted_files_are_refused_naming_file_and_tensor);
    RUN(test_bad_arguments);
    return NBT_END();
}
