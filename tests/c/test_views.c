/* test_views.c: view ops share storage, have the right geometry and values, and
 * writes through a view are seen by the base (version counter shared). */
#include "nbtest.h"

static const int64_t S234[3] = {2, 3, 4};

/* The handle's storage is base's storage. */
#define CHECK_SHARES(v, base) CHECK(nb_tensor_storage_data_ptr(v) == nb_tensor_storage_data_ptr(base))

TEST(test_view_and_inference) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *v = NULL, *w = NULL;
    const int64_t s46[2] = {4, 6}, sm14[2] = {-1, 4}, s0[1] = {-1};
    CHECK_OK(nb_tensor_view(t, s46, 2, &v));
    CHECK_SHAPE(v, 4, 6);
    CHECK_STRIDES(v, 6, 1);
    CHECK_SHARES(v, t);
    CHECK_EQ_INT(nb_tensor_storage_offset(v), 0);
    CHECK_OK(nb_tensor_view(t, sm14, 2, &w));
    CHECK_SHAPE(w, 6, 4);
    nb_tensor_release(w);
    CHECK_OK(nb_tensor_view(t, s0, 1, &w));
    CHECK_SHAPE(w, 24);
    double want[24];
    for (int i = 0; i < 24; i++) want[i] = i;
    CHECK_VALUES(w, want, 24);
    nb_tensor_release(w);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);  /* views hold the storage, not the base handle */
    nb_tensor_release(v);
    nb_tensor_release(t);
}

TEST(test_view_incompatible_strides_fails) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *tr = NULL, *out = NULL;
    CHECK_OK(nb_tensor_transpose(t, 0, 2, &tr));  /* [4, 3, 2], strides [1, 4, 12] */
    const int64_t flat[1] = {24};
    CHECK_STATUS(nb_tensor_view(tr, flat, 1, &out), NB_ERR_SHAPE, "view");
    CHECK_MSG("[24]");
    CHECK(out == NULL);
    /* Splitting a dim of a non-contiguous tensor is still a view. */
    const int64_t split[4] = {2, 2, 3, 2};
    CHECK_OK(nb_tensor_view(tr, split, 4, &out));
    CHECK_STRIDES(out, 2, 1, 4, 12);
    nb_tensor_release(out);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_reshape_views_when_possible_copies_otherwise) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *r = NULL, *tr = NULL, *c = NULL;
    const int64_t s6_4[2] = {6, 4}, flat[1] = {-1};
    CHECK_OK(nb_tensor_reshape(t, s6_4, 2, &r));
    CHECK_SHARES(r, t);
    nb_tensor_release(r);
    CHECK_OK(nb_tensor_transpose(t, 1, 2, &tr));  /* [2, 4, 3] */
    CHECK_OK(nb_tensor_reshape(tr, flat, 1, &c));
    CHECK(nb_tensor_storage_data_ptr(c) != nb_tensor_storage_data_ptr(t));
    CHECK_EQ_INT(nb_tensor_is_contiguous(c), 1);
    CHECK_SHAPE(c, 24);
    double want[24];
    for (int b = 0, k = 0; b < 2; b++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 3; i++) want[k++] = b * 12 + i * 4 + j;
    CHECK_VALUES(c, want, 24);
    nb_tensor_release(c);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_permute_and_transpose) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *p = NULL, *q = NULL, *tr = NULL;
    const int64_t dims[3] = {2, 0, 1}, neg[3] = {-1, 0, -2};
    CHECK_OK(nb_tensor_permute(t, dims, 3, &p));
    CHECK_SHAPE(p, 4, 2, 3);
    CHECK_STRIDES(p, 1, 12, 4);
    CHECK_SHARES(p, t);
    CHECK_EQ_INT(nb_tensor_is_contiguous(p), 0);
    CHECK_OK(nb_tensor_permute(t, neg, 3, &q));
    CHECK_SHAPE(q, 4, 2, 3);
    nb_tensor_release(q);
    CHECK_OK(nb_tensor_transpose(t, 0, 1, &tr));
    CHECK_SHAPE(tr, 3, 2, 4);
    CHECK_STRIDES(tr, 4, 12, 1);
    double want[24];
    for (int i = 0, k = 0; i < 3; i++)
        for (int b = 0; b < 2; b++)
            for (int j = 0; j < 4; j++) want[k++] = b * 12 + i * 4 + j;
    CHECK_VALUES(tr, want, 24);
    nb_tensor_release(tr);
    CHECK_OK(nb_tensor_transpose(t, -1, -1, &tr));  /* a no-op swap is still a view */
    CHECK_STRIDES(tr, 12, 4, 1);
    CHECK_EQ_INT(nb_tensor_is_contiguous(tr), 1);
    nb_tensor_release(tr);
    nb_tensor_release(p);
    nb_tensor_release(t);
}

TEST(test_narrow) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *n = NULL;
    CHECK_OK(nb_tensor_narrow(t, 1, 1, 2, &n));
    CHECK_SHAPE(n, 2, 2, 4);
    CHECK_STRIDES(n, 12, 4, 1);
    CHECK_EQ_INT(nb_tensor_storage_offset(n), 4);
    CHECK_SHARES(n, t);
    CHECK(nb_tensor_data_ptr(n) == (char*)nb_tensor_storage_data_ptr(t) + 16);
    CHECK_EQ_INT(nb_tensor_is_contiguous(n), 0);
    nb_tensor_release(n);
    CHECK_OK(nb_tensor_narrow(t, -1, -2, 2, &n));  /* last two columns */
    CHECK_SHAPE(n, 2, 3, 2);
    CHECK_EQ_INT(nb_tensor_storage_offset(n), 2);
    const double want[12] = {2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23};
    CHECK_VALUES(n, want, 12);
    nb_tensor_release(n);
    CHECK_OK(nb_tensor_narrow(t, 0, 2, 0, &n));  /* empty at the end is allowed */
    CHECK_EQ_INT(nb_tensor_numel(n), 0);
    nb_tensor_release(n);
    CHECK_STATUS(nb_tensor_narrow(t, 1, 2, 2, &n), NB_ERR_SHAPE, "narrow");
    nb_tensor_release(t);
}

TEST(test_slice) {
    const int64_t ten[1] = {10};
    nb_tensor *t = nbt_iota(ten, 1, NB_I32), *s = NULL;
    CHECK_OK(nb_tensor_slice(t, 0, 1, 8, 2, &s));
    CHECK_SHAPE(s, 4);
    CHECK_STRIDES(s, 2);
    CHECK_EQ_INT(nb_tensor_storage_offset(s), 1);
    const double w1[4] = {1, 3, 5, 7};
    CHECK_VALUES(s, w1, 4);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_slice(t, 0, -3, 100, 1, &s));  /* negative start, end clamps */
    const double w2[3] = {7, 8, 9};
    CHECK_VALUES(s, w2, 3);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_slice(t, -1, -100, -5, 1, &s));  /* start clamps to 0; end -5 -> 5 */
    const double w3[5] = {0, 1, 2, 3, 4};
    CHECK_VALUES(s, w3, 5);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_slice(t, 0, 0, 10, 3, &s));
    const double w4[4] = {0, 3, 6, 9};
    CHECK_VALUES(s, w4, 4);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_slice(t, 0, 8, 2, 1, &s));  /* end before start: empty */
    CHECK_SHAPE(s, 0);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_slice(t, 0, 20, 30, 1, &s));  /* both beyond the end: empty */
    CHECK_SHAPE(s, 0);
    nb_tensor_release(s);
    /* A huge step takes just the first element (Python: range(10)[1:10:sys.maxsize]). */
    CHECK_OK(nb_tensor_slice(t, 0, 1, 10, INT64_MAX, &s));
    CHECK_SHAPE(s, 1);
    if (nb_tensor_numel(s) == 1) CHECK_VALUES(s, w1, 1);
    nb_tensor_release(s);
    /* A slice of a slice composes strides and offsets. */
    nb_tensor* s2 = NULL;
    CHECK_OK(nb_tensor_slice(t, 0, 1, 10, 2, &s));   /* 1 3 5 7 9 */
    CHECK_OK(nb_tensor_slice(s, 0, 1, 5, 2, &s2));   /* 3 7 */
    CHECK_STRIDES(s2, 4);
    CHECK_EQ_INT(nb_tensor_storage_offset(s2), 3);
    const double w5[2] = {3, 7};
    CHECK_VALUES(s2, w5, 2);
    nb_tensor_release(s2);
    nb_tensor_release(s);
    nb_tensor_release(t);
}

TEST(test_select) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *s = NULL;
    CHECK_OK(nb_tensor_select(t, -1, -1, &s));
    CHECK_SHAPE(s, 2, 3);
    CHECK_STRIDES(s, 12, 4);
    CHECK_EQ_INT(nb_tensor_storage_offset(s), 3);
    const double w[6] = {3, 7, 11, 15, 19, 23};
    CHECK_VALUES(s, w, 6);
    nb_tensor_release(s);
    CHECK_OK(nb_tensor_select(t, 0, -2, &s));  /* -2 is index 0 of 2 */
    CHECK_SHAPE(s, 3, 4);
    CHECK_EQ_INT(nb_tensor_storage_offset(s), 0);
    CHECK_EQ_INT(nb_tensor_is_contiguous(s), 1);
    nb_tensor* e = NULL;  /* selecting down to 0-dim */
    const int64_t four[1] = {4};
    nb_tensor* row = nbt_iota(four, 1, NB_F64);
    CHECK_OK(nb_tensor_select(row, 0, 2, &e));
    CHECK_EQ_INT(nb_tensor_ndim(e), 0);
    double d = -1;
    CHECK_OK(nb_tensor_item_double(e, &d));
    CHECK_EQ_DBL(d, 2);
    nb_tensor_release(e);
    nb_tensor_release(row);
    nb_tensor_release(s);
    nb_tensor_release(t);
}

TEST(test_expand) {
    const double v[3] = {10, 20, 30};
    const int64_t s31[2] = {3, 1};
    nb_tensor *t = nbt_tensor(v, s31, 2, NB_F32), *e = NULL;
    const int64_t target[3] = {2, 3, 4}, keep[3] = {2, -1, 4};
    CHECK_OK(nb_tensor_expand(t, target, 3, &e));
    CHECK_SHAPE(e, 2, 3, 4);
    CHECK_STRIDES(e, 0, 1, 0);
    CHECK_SHARES(e, t);
    CHECK_EQ_INT(nb_tensor_is_contiguous(e), 0);
    double want[24];
    for (int i = 0; i < 24; i++) want[i] = 10 * (1 + (i / 4) % 3);
    CHECK_VALUES(e, want, 24);
    nb_tensor_release(e);
    CHECK_OK(nb_tensor_expand(t, keep, 3, &e));
    CHECK_SHAPE(e, 2, 3, 4);
    CHECK_STRIDES(e, 0, 1, 0);
    nb_tensor_release(e);
    const int64_t bad[2] = {4, 4};
    CHECK_STATUS(nb_tensor_expand(t, bad, 2, &e), NB_ERR_SHAPE, "expand");
    nb_tensor_release(t);
}

TEST(test_squeeze_and_unsqueeze) {
    const int64_t s[4] = {1, 3, 1, 2};
    nb_tensor *t = nbt_iota(s, 4, NB_F32), *q = NULL;
    CHECK_OK(nb_tensor_squeeze(t, NULL, 0, &q));
    CHECK_SHAPE(q, 3, 2);
    CHECK_STRIDES(q, 2, 1);
    CHECK_SHARES(q, t);
    nb_tensor_release(q);
    const int64_t d0[1] = {0}, d1[1] = {1}, dm2[2] = {-2, 0};
    CHECK_OK(nb_tensor_squeeze(t, d0, 1, &q));
    CHECK_SHAPE(q, 3, 1, 2);
    nb_tensor_release(q);
    CHECK_OK(nb_tensor_squeeze(t, d1, 1, &q));  /* size 3: left alone */
    CHECK_SHAPE(q, 1, 3, 1, 2);
    nb_tensor_release(q);
    CHECK_OK(nb_tensor_squeeze(t, dm2, 2, &q));
    CHECK_SHAPE(q, 3, 2);
    nb_tensor_release(q);
    nb_tensor_release(t);

    const int64_t s23[2] = {2, 3};
    nb_tensor *u = nbt_iota(s23, 2, NB_F32), *w = NULL;
    CHECK_OK(nb_tensor_unsqueeze(u, 0, &w));
    CHECK_SHAPE(w, 1, 2, 3);
    CHECK_STRIDES(w, 6, 3, 1);
    nb_tensor_release(w);
    CHECK_OK(nb_tensor_unsqueeze(u, 1, &w));
    CHECK_SHAPE(w, 2, 1, 3);
    CHECK_STRIDES(w, 3, 3, 1);
    nb_tensor_release(w);
    CHECK_OK(nb_tensor_unsqueeze(u, -1, &w));
    CHECK_SHAPE(w, 2, 3, 1);
    CHECK_STRIDES(w, 3, 1, 1);
    CHECK_EQ_INT(nb_tensor_is_contiguous(w), 1);
    CHECK_SHARES(w, u);
    nb_tensor_release(w);
    nb_tensor_release(u);
}

TEST(test_flatten) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *f = NULL, *tr = NULL;
    CHECK_OK(nb_tensor_flatten(t, 0, -1, &f));
    CHECK_SHAPE(f, 24);
    CHECK_SHARES(f, t);
    nb_tensor_release(f);
    CHECK_OK(nb_tensor_flatten(t, 1, 2, &f));
    CHECK_SHAPE(f, 2, 12);
    CHECK_SHARES(f, t);
    nb_tensor_release(f);
    CHECK_OK(nb_tensor_transpose(t, 0, 1, &tr));
    CHECK_OK(nb_tensor_flatten(tr, 0, 1, &f));  /* [3, 2] with strides 4, 12 cannot merge */
    CHECK_SHAPE(f, 6, 4);
    CHECK(nb_tensor_storage_data_ptr(f) != nb_tensor_storage_data_ptr(t));
    nb_tensor_release(f);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_as_strided) {
    const int64_t n24[1] = {24};
    nb_tensor *t = nbt_iota(n24, 1, NB_F32), *a = NULL;
    const int64_t shape[2] = {3, 3}, strides[2] = {1, 1};  /* sliding windows */
    CHECK_OK(nb_tensor_as_strided(t, shape, strides, 2, 2, &a));
    CHECK_SHARES(a, t);
    CHECK_EQ_INT(nb_tensor_storage_offset(a), 2);
    const double w[9] = {2, 3, 4, 3, 4, 5, 4, 5, 6};
    CHECK_VALUES(a, w, 9);
    nb_tensor_release(a);
    const int64_t last[1] = {1}, one[1] = {1};
    CHECK_OK(nb_tensor_as_strided(t, last, one, 1, 23, &a));  /* the very last element */
    nb_tensor_release(a);
    const int64_t big[2] = {5, 5}, big_st[2] = {5, 1};
    a = NULL;
    CHECK_STATUS(nb_tensor_as_strided(t, big, big_st, 2, 0, &a), NB_ERR_INVALID_ARGUMENT, "out of bounds");
    CHECK(a == NULL);
    CHECK_STATUS(nb_tensor_as_strided(t, last, one, 1, 24, &a), NB_ERR_INVALID_ARGUMENT, "24");
    CHECK(a == NULL);
    nb_tensor_release(t);
}

TEST(test_size_one_dims_do_not_affect_contiguity) {
    const int64_t n6[1] = {6}, shape[3] = {2, 1, 3}, strides[3] = {3, 1000, 1}, flat[1] = {-1};
    nb_tensor *t = nbt_iota(n6, 1, NB_I16), *a = NULL, *v = NULL;
    CHECK_OK(nb_tensor_as_strided(t, shape, strides, 3, 0, &a));
    CHECK_EQ_INT(nb_tensor_is_contiguous(a), 1);
    CHECK_OK(nb_tensor_view(a, flat, 1, &v));
    CHECK_SHARES(v, t);
    const double want[6] = {0, 1, 2, 3, 4, 5};
    CHECK_VALUES(v, want, 6);
    nb_tensor_release(v);
    nb_tensor_release(a);
    nb_tensor_release(t);
}

TEST(test_zero_dim_views) {
    nb_tensor *s = NULL, *v = NULL;
    CHECK_OK(nb_full(NULL, 0, 4.5, NB_F64, NB_CPU, 0, &s));
    const int64_t m1[1] = {-1}, ones[2] = {1, 1}, s23[2] = {2, 3};
    CHECK_OK(nb_tensor_view(s, m1, 1, &v));
    CHECK_SHAPE(v, 1);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_reshape(s, ones, 2, &v));
    CHECK_SHAPE(v, 1, 1);
    CHECK_SHARES(v, s);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_flatten(s, 0, -1, &v));
    CHECK_SHAPE(v, 1);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_unsqueeze(s, -1, &v));
    CHECK_SHAPE(v, 1);
    CHECK_STRIDES(v, 1);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_expand(s, s23, 2, &v));
    CHECK_STRIDES(v, 0, 0);
    const double want[6] = {4.5, 4.5, 4.5, 4.5, 4.5, 4.5};
    CHECK_VALUES(v, want, 6);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_transpose(s, 0, -1, &v));
    CHECK_EQ_INT(nb_tensor_ndim(v), 0);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_permute(s, NULL, 0, &v));
    CHECK_EQ_INT(nb_tensor_ndim(v), 0);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_squeeze(s, NULL, 0, &v));
    CHECK_EQ_INT(nb_tensor_ndim(v), 0);
    nb_tensor_release(v);
    nb_tensor_release(s);
}

TEST(test_contiguous_and_clone) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *c = NULL, *tr = NULL;
    CHECK_OK(nb_tensor_contiguous(t, &c));
    CHECK(c == t);  /* already contiguous: the same handle, one more reference */
    CHECK_EQ_INT(nb_tensor_refcount(t), 2);
    nb_tensor_release(c);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    CHECK_OK(nb_tensor_transpose(t, 0, 2, &tr));
    CHECK_OK(nb_tensor_contiguous(tr, &c));
    CHECK(c != tr);
    CHECK_EQ_INT(nb_tensor_is_contiguous(c), 1);
    CHECK_SHAPE(c, 4, 3, 2);
    CHECK_STRIDES(c, 6, 2, 1);
    CHECK(nb_tensor_storage_data_ptr(c) != nb_tensor_storage_data_ptr(t));
    double want[24];
    for (int k = 0, j = 0; j < 4; j++)
        for (int i = 0; i < 3; i++)
            for (int b = 0; b < 2; b++) want[k++] = b * 12 + i * 4 + j;
    CHECK_VALUES(c, want, 24);
    nb_tensor_release(c);
    nb_tensor* cl = NULL;
    CHECK_OK(nb_tensor_clone(t, &cl));
    CHECK(cl != t);
    CHECK(nb_tensor_storage_data_ptr(cl) != nb_tensor_storage_data_ptr(t));
    nb_tensor* zero = NULL;
    CHECK_OK(nb_zeros(NULL, 0, NB_F32, NB_CPU, 0, &zero));
    CHECK_OK(nb_tensor_copy_(cl, zero));  /* the clone is independent */
    double v0 = -1;
    nb_tensor* elem5 = NULL;
    CHECK_OK(nb_tensor_as_strided(t, NULL, NULL, 0, 5, &elem5));
    CHECK_OK(nb_tensor_item_double(elem5, &v0));
    CHECK_EQ_DBL(v0, 5);
    CHECK_EQ_INT(nb_tensor_version(t), 0);
    nb_tensor_release(elem5);
    nb_tensor_release(zero);
    nb_tensor_release(cl);
    nb_tensor_release(tr);
    nb_tensor_release(t);
}

TEST(test_write_through_view_bumps_shared_version) {
    nb_tensor *t = nbt_iota(S234, 3, NB_F32), *row = NULL, *other = NULL, *src = NULL;
    CHECK_OK(nb_zeros(S234, 3, NB_F32, NB_CPU, 0, &other));
    CHECK_OK(nb_tensor_select(t, 0, 1, &row));  /* t[1], shape [3, 4] */
    const int64_t v0 = nb_tensor_version(t);
    CHECK_EQ_INT(nb_tensor_version(row), v0);
    CHECK_OK(nb_full(NULL, 0, -1, NB_F64, NB_CPU, 0, &src));
    CHECK_OK(nb_tensor_copy_(row, src));
    CHECK_EQ_INT(nb_tensor_version(t), v0 + 1);
    CHECK_EQ_INT(nb_tensor_version(row), v0 + 1);
    CHECK_EQ_INT(nb_tensor_version(other), 0);
    double want[24];
    for (int i = 0; i < 24; i++) want[i] = i < 12 ? i : -1;
    CHECK_VALUES(t, want, 24);
    CHECK_OK(nb_tensor_copy_(t, src));  /* writing the base bumps what the view sees */
    CHECK_EQ_INT(nb_tensor_version(row), v0 + 2);
    nb_tensor_release(src);
    nb_tensor_release(row);
    nb_tensor_release(other);
    nb_tensor_release(t);
}

/* Every view keeps sane metadata: offset within [0, storage elements], strides >= 0. */
static void check_sane(const nb_tensor* v, int64_t capacity) {
    CHECK(nb_tensor_storage_offset(v) >= 0 && nb_tensor_storage_offset(v) <= capacity);
    for (int32_t i = 0; i < nb_tensor_ndim(v); i++) CHECK(nb_tensor_strides(v)[i] >= 0);
    CHECK(nb_tensor_numel(v) >= 0);
}

/* Views of empty tensors: an index may be an empty dim's size and strides may be huge (as_strided
 * takes any for a tensor without elements), so offset and stride arithmetic overflowed into
 * negative strides and offsets near INT64_MIN. They are computed with overflow checks now; where
 * PyTorch's value would leave the storage (or wrap), a view without elements keeps its base's. */
TEST(test_views_of_empty_tensors_keep_sane_metadata) {
    nb_tensor *base = NULL, *e = NULL, *v = NULL;
    const int64_t s4[1] = {4}, s02[2] = {0, 2}, huge[2] = {1, INT64_MAX};
    CHECK_OK(nb_zeros(s4, 1, NB_I8, NB_CPU, 0, &base));
    CHECK_OK(nb_tensor_as_strided(base, s02, huge, 2, 4, &e));  /* no element: any strides, offset <= 4 */
    check_sane(e, 4);
    CHECK_STATUS(nb_tensor_as_strided(base, s02, huge, 2, 5, &v), NB_ERR_INVALID_ARGUMENT,
                 "storage offset 5 is out of bounds for a storage of 4 elements");
    CHECK_OK(nb_tensor_narrow(e, 1, 2, 0, &v));  /* offset 4 + 2 * INT64_MAX */
    check_sane(v, 4);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_slice(e, 1, 1, 2, 1, &v));
    check_sane(v, 4);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_slice(e, 1, 0, 2, 3, &v));  /* stride INT64_MAX * 3 */
    check_sane(v, 4);
    CHECK_SHAPE(v, 0, 1);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_select(e, 1, 1, &v));
    check_sane(v, 4);
    CHECK_SHAPE(v, 0);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_unsqueeze(e, 1, &v));  /* stride 2 * INT64_MAX */
    check_sane(v, 4);
    nb_tensor_release(v);
    const int64_t flat[1] = {0};
    CHECK_OK(nb_tensor_view(e, flat, 1, &v));
    check_sane(v, 4);
    CHECK_STRIDES(v, 1);
    /* resizing such a view (what an out= op does) grows the storage from a sane offset */
    CHECK_OK(nb_tensor_resize_(v, s4, 1));
    CHECK_EQ_INT(nb_tensor_storage_offset(v), 4);
    CHECK(nb_tensor_storage_nbytes(base) >= 8);
    nb_tensor_release(v);
    nb_tensor_release(e);
    /* ordinary empty views keep PyTorch's values where they lie in the storage */
    nb_tensor* z = NULL;
    const int64_t s30[2] = {3, 0};
    CHECK_OK(nb_zeros((const int64_t[]){3, 4}, 2, NB_F32, NB_CPU, 0, &z));
    CHECK_OK(nb_tensor_narrow(z, 1, 4, 0, &v));  /* torch: offset 4, strides (4, 1) */
    CHECK_EQ_INT(nb_tensor_storage_offset(v), 4);
    CHECK_STRIDES(v, 4, 1);
    nb_tensor_release(v);
    CHECK_OK(nb_tensor_slice(z, 0, 3, 3, 2, &v));  /* torch: offset 12, strides (8, 1) */
    CHECK_EQ_INT(nb_tensor_storage_offset(v), 12);
    CHECK_STRIDES(v, 8, 1);
    nb_tensor_release(v);
    nb_tensor_release(z);
    CHECK_OK(nb_zeros(s30, 2, NB_F32, NB_CPU, 0, &z));
    CHECK_OK(nb_tensor_select(z, 0, 2, &v));  /* torch: offset 2, past a storage of 0 elements */
    check_sane(v, 0);
    CHECK_EQ_INT(nb_tensor_storage_offset(v), 0);
    nb_tensor_release(v);
    nb_tensor_release(z);
    nb_tensor_release(base);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_view_and_inference);
    RUN(test_view_incompatible_strides_fails);
    RUN(test_reshape_views_when_possible_copies_otherwise);
    RUN(test_permute_and_transpose);
    RUN(test_narrow);
    RUN(test_slice);
    RUN(test_select);
    RUN(test_expand);
    RUN(test_squeeze_and_unsqueeze);
    RUN(test_flatten);
    RUN(test_as_strided);
    RUN(test_size_one_dims_do_not_affect_contiguity);
    RUN(test_zero_dim_views);
    RUN(test_contiguous_and_clone);
    RUN(test_write_through_view_bumps_shared_version);
    RUN(test_views_of_empty_tensors_keep_sane_metadata);
    return NBT_END();
}
