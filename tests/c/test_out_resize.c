/* test_out_resize.c: out= tensors of another shape are resized (PyTorch's resize_output)
 * with a warning through nb_set_warning_handler when they had elements; a handler can
 * turn the warning into an error; in-place ops must still fit; nb_tensor_resize_ grows
 * storage under every view and refuses external memory; nothing leaks. */
#include "nbtest.h"

static int warnings_seen;
static char last_warning[1024];
static nb_status warning_status;  /* what the handler returns */

static nb_status record_warning(void* payload, const char* message) {
    (void)payload;
    warnings_seen++;
    snprintf(last_warning, sizeof last_warning, "%s", message);
    if (warning_status != NB_OK) return nb_set_error(warning_status, "warnings are errors here");
    return NB_OK;
}

static void reset_warnings(void) {
    warnings_seen = 0;
    last_warning[0] = '\0';
    warning_status = NB_OK;
}

static const int64_t S23[2] = {2, 3}, S5[1] = {5}, S0[1] = {0}, S3[1] = {3};

TEST(test_out_of_another_shape_is_resized_with_a_warning) {
    reset_warnings();
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *dst = NULL, *r = NULL;
    CHECK_OK(nb_zeros(S5, 1, NB_F32, NB_CPU, 0, &dst));
    CHECK_OK(nb_add(a, a, 1.0, dst, &r));
    CHECK(r == dst);
    CHECK_SHAPE(dst, 2, 3);
    CHECK_EQ_INT(nb_tensor_is_contiguous(dst), 1);
    const double want[6] = {0, 2, 4, 6, 8, 10};
    CHECK_VALUES(dst, want, 6);
    CHECK_EQ_INT(warnings_seen, 1);
    CHECK(strstr(last_warning, "An output with one or more elements was resized since it had shape [5], which "
                               "does not match the required output shape [2, 3]") != NULL);
    nb_tensor_release(r);
    nb_tensor_release(dst);
    /* an empty out tensor is resized silently; one of the right shape is left alone */
    nb_tensor* b = nbt_iota((const int64_t[]){3, 2}, 2, NB_F32);
    CHECK_OK(nb_empty(S0, 1, NB_F32, NB_CPU, 0, &dst));
    CHECK_OK(nb_mm(a, b, dst, NULL));
    CHECK_SHAPE(dst, 2, 2);
    const int64_t* strides = nb_tensor_strides(dst);
    CHECK_OK(nb_mm(a, b, dst, NULL));
    CHECK(nb_tensor_strides(dst) == strides && strides[0] == 2);
    CHECK_EQ_INT(warnings_seen, 1);
    nb_tensor_release(dst);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

TEST(test_every_family_resizes) {
    reset_warnings();
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b = nbt_iota((const int64_t[]){3, 2}, 2, NB_F32), *dst = NULL;
    const int64_t d1 = 1;
    const nb_tensor* pair[2] = {a, a};
#define RESIZES(call, ...)                                       \
    do {                                                         \
        CHECK_OK(nb_zeros(S5, 1, NB_F32, NB_CPU, 0, &dst));      \
        CHECK_OK(call);                                          \
        CHECK_SHAPE(dst, __VA_ARGS__);                           \
        nb_tensor_release(dst);                                  \
    } while (0)
    RESIZES(nb_exp(a, dst, NULL), 2, 3);
    RESIZES(nb_sum(a, &d1, 1, 0, -1, dst, NULL), 2);
    RESIZES(nb_cumsum(a, 1, -1, dst, NULL), 2, 3);
    RESIZES(nb_softmax(a, 1, -1, dst, NULL), 2, 3);
    RESIZES(nb_mm(a, b, dst, NULL), 2, 2);
    RESIZES(nb_cat(pair, 2, 0, dst, NULL), 4, 3);
    RESIZES(nb_tril(a, 0, dst, NULL), 2, 3);
    CHECK_EQ_INT(warnings_seen, 7);
    nb_tensor_release(a);
    nb_tensor_release(b);
#undef RESIZES
}

TEST(test_in_place_must_fit) {
    reset_warnings();
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *small = NULL, *out = NULL;
    CHECK_OK(nb_zeros(S3, 1, NB_F32, NB_CPU, 0, &small));
    CHECK_STATUS(nb_add(small, a, 1.0, small, &out), NB_ERR_SHAPE,
                 "add: output with shape [3] doesn't match the broadcast shape [2, 3]");
    CHECK(out == NULL);
    CHECK_SHAPE(small, 3);
    CHECK_EQ_INT(warnings_seen, 0);
    nb_tensor_release(small);
    nb_tensor_release(a);
}

TEST(test_a_warning_turned_into_an_error_fails_the_op) {
    reset_warnings();
    warning_status = NB_ERR_INVALID_ARGUMENT;
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *dst = NULL, *out = NULL;
    CHECK_OK(nb_zeros(S5, 1, NB_F32, NB_CPU, 0, &dst));
    int64_t v0 = nb_tensor_version(dst);
    CHECK_STATUS(nb_neg(a, dst, &out), NB_ERR_INVALID_ARGUMENT, "warnings are errors here");
    CHECK(out == NULL);
    CHECK_SHAPE(dst, 5);  /* untouched */
    CHECK_EQ_INT(nb_tensor_version(dst), v0);
    /* a dtype error comes first: no warning, no resize */
    reset_warnings();
    nb_tensor* ints = NULL;
    CHECK_OK(nb_zeros(S5, 1, NB_I64, NB_CPU, 0, &ints));
    CHECK_STATUS(nb_exp(a, ints, NULL), NB_ERR_DTYPE, "can't be cast");
    CHECK_STATUS(nb_neg(a, ints, NULL), NB_ERR_DTYPE, "neg: Found dtype Long but expected Float");
    CHECK_SHAPE(ints, 5);
    CHECK_EQ_INT(warnings_seen, 0);
    nb_tensor_release(ints);
    nb_tensor_release(dst);
    nb_tensor_release(a);
}

TEST(test_resize_grows_storage_under_views) {
    nb_tensor *base = nbt_iota(S5, 1, NB_F32), *view = NULL;
    CHECK_OK(nb_tensor_narrow(base, 0, 2, 2, &view));  /* elements 2, 3 */
    CHECK_OK(nb_tensor_resize_(view, S23, 2));           /* needs 2 + 6 elements: the storage grows */
    CHECK_SHAPE(view, 2, 3);
    CHECK_EQ_INT(nb_tensor_storage_offset(view), 2);
    CHECK(nb_tensor_storage_nbytes(base) >= 8 * 4);
    CHECK(nb_tensor_storage_data_ptr(base) == nb_tensor_storage_data_ptr(view));
    const double kept[5] = {0, 1, 2, 3, 4};  /* the old bytes moved with the storage */
    CHECK_VALUES(base, kept, 5);
    CHECK_OK(nb_tensor_resize_(view, S0, 1));  /* shrinking never moves data */
    CHECK_SHAPE(view, 0);
    nb_tensor_release(view);
    nb_tensor_release(base);
    /* a big storage (data in its own block) grows as well */
    const int64_t big[1] = {4096}, bigger[1] = {10000};
    CHECK_OK(nb_zeros(big, 1, NB_F64, NB_CPU, 0, &base));
    CHECK_OK(nb_tensor_resize_(base, bigger, 1));
    CHECK_SHAPE(base, 10000);
    nb_tensor_release(base);
}

TEST(test_resize_refuses) {
    float data[4] = {1, 2, 3, 4};
    const int64_t s4[1] = {4}, s2[1] = {2};
    nb_tensor *ext = NULL, *leaf = NULL;
    CHECK_OK(nb_tensor_from_external(data, s4, NULL, 1, NB_F32, NB_CPU, 0, NULL, NULL, &ext));
    CHECK_OK(nb_tensor_resize_(ext, s2, 1));  /* shrinking external memory is fine */
    CHECK_STATUS(nb_tensor_resize_(ext, S5, 1), NB_ERR_INVALID_ARGUMENT,
                 "resize_: Trying to resize storage that is not resizable");
    CHECK_SHAPE(ext, 2);
    const int64_t neg[1] = {-1};
    CHECK_STATUS(nb_tensor_resize_(ext, neg, 1), NB_ERR_INVALID_ARGUMENT, "-1");
    CHECK_OK(nb_zeros(s4, 1, NB_F32, NB_CPU, 0, &leaf));
    CHECK_OK(nb_tensor_set_requires_grad(leaf, 1));
    CHECK_STATUS(nb_tensor_resize_(leaf, S5, 1), NB_ERR_AUTOGRAD, "cannot resize variables that require grad");
    nb_tensor_release(leaf);
    nb_tensor_release(ext);
}

/* An out= tensor that must grow while it is (or overlaps) one of the op's inputs is refused with
 * PyTorch's message, before anything is resized or written: resizing it first changed the input
 * under the op (cat read the grown shape: heap overflow or a hang; scatter read indices it had not
 * checked). cat refuses any overlap, as PyTorch's cat does. */
TEST(test_out_overlapping_an_input_is_refused_before_resizing) {
    reset_warnings();
    static const char* msg = "some elements of the input tensor and the written-to tensor refer to a single memory location";
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b = nbt_iota(S23, 2, NB_F32), *r = (nb_tensor*)0x1;
    const double a_values[6] = {0, 1, 2, 3, 4, 5};
    const nb_tensor* ab[2] = {a, b};
    const nb_tensor* ba[2] = {b, a};
    CHECK_STATUS(nb_cat(ab, 2, 0, a, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_MSG("cat: unsupported operation");
    CHECK_STATUS(nb_cat(ba, 2, 1, a, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_STATUS(nb_stack(ab, 2, 0, a, &r), NB_ERR_INVALID_ARGUMENT, msg);
    /* cat refuses an out tensor that overlaps an input even when no resize is needed (PyTorch) */
    nb_tensor *flat = NULL, *half = NULL, *row = NULL;
    const int64_t s12[1] = {12}, s6[1] = {6};
    CHECK_OK(nb_zeros(s12, 1, NB_F32, NB_CPU, 0, &flat));
    CHECK_OK(nb_tensor_narrow(flat, 0, 3, 6, &half));  /* elements 3..8 */
    CHECK_OK(nb_tensor_narrow(flat, 0, 0, 6, &row));   /* elements 0..5: overlaps half */
    const nb_tensor* half_twice[2] = {half, half};
    CHECK_STATUS(nb_cat(half_twice, 2, 0, flat, &r), NB_ERR_INVALID_ARGUMENT, msg);
    const nb_tensor* one_half[1] = {half};
    CHECK_STATUS(nb_cat(one_half, 1, 0, row, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_SHAPE(a, 2, 3);
    CHECK_VALUES(a, a_values, 6);
    CHECK_SHAPE(flat, 12);
    CHECK_SHAPE(row, 6);
    /* every family: an overlapping out of another shape is refused and left as it was */
    nb_tensor* v = NULL;
    CHECK_OK(nb_tensor_view(a, s6, 1, &v));  /* a's memory, another shape */
    CHECK_STATUS(nb_add(a, b, 1.0, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_MSG("add:");
    CHECK_STATUS(nb_exp(a, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    const int64_t d1 = 1;
    CHECK_STATUS(nb_sum(a, &d1, 1, 0, -1, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_STATUS(nb_softmax(a, 1, -1, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_STATUS(nb_cumsum(a, 1, -1, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_STATUS(nb_tril(a, 0, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    nb_tensor* bt = NULL;
    CHECK_OK(nb_tensor_transpose(b, 0, 1, &bt));  /* [3, 2]: a @ bt is [2, 2] */
    CHECK_STATUS(nb_mm(a, bt, v, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_SHAPE(v, 6);
    CHECK_VALUES(a, a_values, 6);
    CHECK_EQ_INT(warnings_seen, 0);  /* refused before the resize warning */
    /* scatter into its own index tensor: the indices were checked at their old shape */
    const int64_t s5[1] = {5}, s2[1] = {2};
    nb_tensor *x = NULL, *idx = NULL, *src = NULL;
    CHECK_OK(nb_zeros(s5, 1, NB_I64, NB_CPU, 0, &x));
    CHECK_OK(nb_zeros(s2, 1, NB_I64, NB_CPU, 0, &idx));
    CHECK_OK(nb_ones(s2, 1, NB_I64, NB_CPU, 0, &src));
    CHECK_STATUS(nb_scatter(x, 0, idx, src, idx, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_STATUS(nb_index_add(x, 0, idx, src, 1.0, idx, &r), NB_ERR_INVALID_ARGUMENT, msg);
    CHECK_SHAPE(idx, 2);
    CHECK(r == (nb_tensor*)0x1);
    /* an out tensor that shares the storage but not the memory is still resized, as before */
    nb_tensor *tail = NULL, *head = NULL;
    CHECK_OK(nb_tensor_narrow(flat, 0, 6, 2, &tail));  /* elements 6, 7: after the 3 of head */
    CHECK_OK(nb_tensor_narrow(flat, 0, 0, 3, &head));
    nb_tensor* iota3 = nbt_iota(S3, 1, NB_F32);
    CHECK_OK(nb_tensor_copy_(head, iota3));
    nb_tensor_release(iota3);
    CHECK_OK(nb_add(head, head, 1.0, tail, NULL));
    CHECK_SHAPE(tail, 3);
    CHECK_EQ_INT(nb_tensor_storage_offset(tail), 6);
    const double doubled[3] = {0, 2, 4};
    CHECK_VALUES(tail, doubled, 3);
    CHECK_EQ_INT(warnings_seen, 1);
    nb_tensor_release(head);
    nb_tensor_release(tail);
    nb_tensor_release(src);
    nb_tensor_release(idx);
    nb_tensor_release(x);
    nb_tensor_release(bt);
    nb_tensor_release(v);
    nb_tensor_release(row);
    nb_tensor_release(half);
    nb_tensor_release(flat);
    nb_tensor_release(b);
    nb_tensor_release(a);
}

/* A zero-element view may sit at the end of its storage; resizing it grows the storage from that
 * offset with overflow-checked arithmetic for every dtype (1-byte ones overflowed unnoticed). */
TEST(test_resize_of_an_empty_view_checks_its_extent) {
    const int32_t dtypes[4] = {NB_I8, NB_U8, NB_BOOL, NB_F64};
    for (int k = 0; k < 4; k++) {
        nb_tensor *base = NULL, *v = NULL;
        const int64_t s4[1] = {4}, zero[1] = {0}, one[1] = {1}, huge[1] = {INT64_MAX};
        CHECK_OK(nb_zeros(s4, 1, dtypes[k], NB_CPU, 0, &base));
        CHECK_STATUS(nb_tensor_as_strided(base, zero, one, 1, INT64_MAX - 2, &v), NB_ERR_INVALID_ARGUMENT,
                     "storage offset 9223372036854775805 is out of bounds for a storage of 4 elements");
        CHECK(v == NULL);
        CHECK_OK(nb_tensor_as_strided(base, zero, one, 1, 4, &v));  /* one past the end: allowed */
        CHECK_OK(nb_tensor_resize_(v, S3, 1));
        CHECK_EQ_INT(nb_tensor_storage_offset(v), 4);
        CHECK(nb_tensor_storage_nbytes(base) >= 7 * nb_dtype_size(dtypes[k]));
        CHECK_STATUS(nb_tensor_resize_(v, huge, 1), NB_ERR_OUT_OF_MEMORY, "needs more than 2^63 bytes");
        CHECK_SHAPE(v, 3);
        nb_tensor_release(v);
        nb_tensor_release(base);
    }
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    nb_set_warning_handler(record_warning, NULL);
    nb_memory_stats before = nbt_stats();
    RUN(test_out_of_another_shape_is_resized_with_a_warning);
    RUN(test_every_family_resizes);
    RUN(test_in_place_must_fit);
    RUN(test_a_warning_turned_into_an_error_fails_the_op);
    RUN(test_resize_grows_storage_under_views);
    RUN(test_resize_refuses);
    RUN(test_out_overlapping_an_input_is_refused_before_resizing);
    RUN(test_resize_of_an_empty_view_checks_its_extent);
    CHECK_EQ_INT(nbt_stats().live_tensors, before.live_tensors);
    nb_set_warning_handler(NULL, NULL);
    return NBT_END();
}
