/* test_shape.c: the shape and indexing families through the C ABI: values of
 * cat, stack, flip, roll, repeat, tril, sort, topk, unique, gather, scatter,
 * index_select, index_add, masks, nonzero, one_hot, index and index_put; their
 * errors (status, message, untouched outputs); and no tensor leaks on any path. */
#include "nbtest.h"

static const int64_t S23[2] = {2, 3};

static nb_tensor* ivec(const double* v, int64_t n) { return nbt_tensor(v, &n, 1, NB_I64); }

/* Live tensors now (the leak check every test ends with). */
static int64_t live(void) { return nbt_stats().live_tensors; }

TEST(test_cat_values_promotion_and_skipping) {
    int64_t before = live();
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b = NULL, *empty = NULL, *r = NULL;
    const int64_t s21[2] = {2, 1}, zero = 0;
    const double bv[2] = {10, 20};
    b = nbt_tensor(bv, s21, 2, NB_F64);
    CHECK_OK(nb_empty(&zero, 1, NB_I32, NB_CPU, 0, &empty));
    const nb_tensor* parts[3] = {a, empty, b};
    CHECK_OK(nb_cat(parts, 3, 1, NULL, &r));
    CHECK_SHAPE(r, 2, 4);
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F64);  /* the skipped tensor still takes part in promotion */
    const double want[8] = {0, 1, 2, 10, 3, 4, 5, 20};
    CHECK_VALUES(r, want, 8);
    nb_tensor_release(r);
    const nb_tensor* rows[2] = {a, a};
    CHECK_OK(nb_cat(rows, 2, -2, NULL, &r));
    CHECK_SHAPE(r, 4, 3);
    nb_tensor_release(r);
    /* into a destination */
    nb_tensor* dst = NULL;
    const int64_t s43[2] = {4, 3};
    CHECK_OK(nb_zeros(s43, 2, NB_F64, NB_CPU, 0, &dst));
    CHECK_OK(nb_cat(rows, 2, 0, dst, NULL));
    const double w2[12] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
    CHECK_VALUES(dst, w2, 12);
    nb_tensor_release(dst);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(empty);
    CHECK_EQ_INT(live(), before);
}

TEST(test_cat_errors) {
    int64_t before = live();
    nb_tensor *a = nbt_iota(S23, 2, NB_F32), *b = NULL, *s = NULL, *r = NULL;
    const int64_t s24[2] = {2, 4};
    b = nbt_iota(s24, 2, NB_F32);
    CHECK_OK(nb_scalar(1, 0, NB_F32, &s));
    const nb_tensor* bad_size[2] = {a, b};
    CHECK_STATUS(nb_cat(bad_size, 2, 0, NULL, &r), NB_ERR_SHAPE,
                 "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1");
    CHECK(r == NULL);
    const nb_tensor* with_scalar[2] = {a, s};
    CHECK_STATUS(nb_cat(with_scalar, 2, 0, NULL, &r), NB_ERR_SHAPE, "zero-dimensional tensor (at position 1)");
    CHECK_STATUS(nb_cat(bad_size, 2, 2, NULL, &r), NB_ERR_INDEX, "dimension out of range");
    CHECK_STATUS(nb_cat(bad_size, 0, 0, NULL, &r), NB_ERR_INVALID_ARGUMENT, "expected a non-empty list of Tensors");
    CHECK_STATUS(nb_cat(NULL, 2, 0, NULL, &r), NB_ERR_INVALID_ARGUMENT, "tensors is NULL");
    const nb_tensor* with_null[2] = {a, NULL};
    CHECK_STATUS(nb_cat(with_null, 2, 0, NULL, &r), NB_ERR_INVALID_ARGUMENT, "tensors[1]");
    CHECK_STATUS(nb_cat(bad_size, 2, 1, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "output pointer");
    const nb_tensor* same[2] = {a, a};
    nb_tensor* wrong = NULL;
    CHECK_OK(nb_zeros(S23, 2, NB_I64, NB_CPU, 0, &wrong));  /* (an out= of another shape is resized) */
    CHECK_STATUS(nb_cat(same, 2, 0, wrong, NULL), NB_ERR_DTYPE, "result type float32 can't be cast to the desired "
                 "output type int64");
    CHECK_STATUS(nb_stack(bad_size, 2, 0, NULL, &r), NB_ERR_SHAPE,
                 "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1");
    CHECK(r == NULL);
    nb_tensor_release(wrong);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(s);
    CHECK_EQ_INT(live(), before);
}

TEST(test_stack_flip_roll_repeat_tril) {
    int64_t before = live();
    nb_tensor *a = nbt_iota(S23, 2, NB_I32), *r = NULL;
    const nb_tensor* two[2] = {a, a};
    CHECK_OK(nb_stack(two, 2, 2, NULL, &r));
    CHECK_SHAPE(r, 2, 3, 2);
    const double st[12] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5};
    CHECK_VALUES(r, st, 12);
    nb_tensor_release(r);
    const int64_t dims[2] = {0, 1};
    CHECK_OK(nb_flip(a, dims, 2, &r));
    const double fl[6] = {5, 4, 3, 2, 1, 0};
    CHECK_VALUES(r, fl, 6);
    nb_tensor_release(r);
    CHECK_STATUS(nb_flip(a, (const int64_t[]){1, -1}, 2, &r), NB_ERR_INVALID_ARGUMENT, "dim 1 appears multiple times");
    const int64_t shift = 1, dim1 = 1;
    CHECK_OK(nb_roll(a, &shift, 1, &dim1, 1, &r));
    const double ro[6] = {2, 0, 1, 5, 3, 4};
    CHECK_VALUES(r, ro, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_roll(a, &shift, 1, NULL, 0, &r));  /* flattened */
    const double rf[6] = {5, 0, 1, 2, 3, 4};
    CHECK_VALUES(r, rf, 6);
    nb_tensor_release(r);
    const int64_t reps[3] = {1, 2, 1};
    CHECK_OK(nb_repeat(a, reps, 3, &r));
    CHECK_SHAPE(r, 1, 4, 3);
    const double rp[12] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
    CHECK_VALUES(r, rp, 12);
    nb_tensor_release(r);
    CHECK_STATUS(nb_repeat(a, reps, 1, &r), NB_ERR_SHAPE, "Number of dimensions of repeat dims");
    CHECK_OK(nb_tril(a, 0, NULL, &r));
    const double tl[6] = {0, 0, 0, 3, 4, 0};
    CHECK_VALUES(r, tl, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_triu(a, 1, a, NULL));  /* in place */
    const double tu[6] = {0, 1, 2, 0, 0, 5};
    CHECK_VALUES(a, tu, 6);
    nb_tensor_release(a);
    CHECK_EQ_INT(live(), before);
}

TEST(test_sort_topk_unique) {
    int64_t before = live();
    const double v[6] = {3, NAN, 1, 3, -2, 0};
    const int64_t n6 = 6;
    nb_tensor *x = nbt_tensor(v, &n6, 1, NB_F32), *vals = NULL, *idx = NULL;
    CHECK_OK(nb_sort(x, 0, 0, 1, &vals, &idx));
    const double wi[6] = {4, 5, 2, 0, 3, 1};  /* stable; NaN last */
    CHECK_VALUES(idx, wi, 6);
    double got[6];
    CHECK_EQ_INT(nbt_values(vals, got, 6), 6);
    CHECK(isnan(got[5]) && got[0] == -2 && got[4] == 3);
    nb_tensor_release(vals);
    nb_tensor_release(idx);
    CHECK_OK(nb_topk(x, 2, 0, 1, 1, &vals, &idx));
    const double tk[2] = {1, 0};  /* NaN counts as the largest */
    CHECK_VALUES(idx, tk, 2);
    nb_tensor_release(vals);
    nb_tensor_release(idx);
    vals = idx = NULL;
    CHECK_STATUS(nb_topk(x, 7, 0, 1, 1, &vals, &idx), NB_ERR_INVALID_ARGUMENT, "selected index k out of range");
    CHECK(vals == NULL && idx == NULL);
    CHECK_STATUS(nb_sort(x, 0, 0, 1, &vals, NULL), NB_ERR_INVALID_ARGUMENT, "output pointer");
    CHECK(vals == NULL);
    const double u[7] = {2, 1, 2, 5, 1, 1, 0};
    const int64_t n7 = 7;
    nb_tensor *y = nbt_tensor(u, &n7, 1, NB_I16), *inv = NULL, *cnt = NULL;
    CHECK_OK(nb_unique(y, 1, &vals, &inv, &cnt));
    const double uv[4] = {0, 1, 2, 5}, ui[7] = {2, 1, 2, 3, 1, 1, 0}, uc[4] = {1, 3, 2, 1};
    CHECK_EQ_INT(nb_tensor_dtype(vals), NB_I16);
    CHECK_VALUES(vals, uv, 4);
    CHECK_VALUES(inv, ui, 7);
    CHECK_VALUES(cnt, uc, 4);
    nb_tensor_release(vals);
    nb_tensor_release(inv);
    nb_tensor_release(cnt);
    CHECK_OK(nb_unique(y, 1, &vals, NULL, NULL));
    nb_tensor_release(vals);
    nb_tensor_release(x);
    nb_tensor_release(y);
    CHECK_EQ_INT(live(), before);
}

TEST(test_gather_scatter_values) {
    int64_t before = live();
    nb_tensor *x = nbt_iota(S23, 2, NB_F32), *r = NULL;
    const double iv[4] = {1, 0, 2, 2};
    const int64_t s22[2] = {2, 2};
    nb_tensor* index = nbt_tensor(iv, s22, 2, NB_I64);
    CHECK_OK(nb_gather(x, 1, index, &r));
    const double g[4] = {1, 0, 5, 5};
    CHECK_VALUES(r, g, 4);
    nb_tensor_release(r);
    nb_tensor *src = nbt_iota(s22, 2, NB_F32), *zeros = NULL, *val = NULL;
    CHECK_OK(nb_zeros(S23, 2, NB_F32, NB_CPU, 0, &zeros));
    CHECK_OK(nb_scatter(zeros, 1, index, src, NULL, &r));
    const double sc[6] = {1, 0, 0, 0, 0, 3};  /* row 1: index 2 twice, the last write wins */
    CHECK_VALUES(r, sc, 6);
    nb_tensor_release(r);
    CHECK_OK(nb_scatter_add(zeros, 1, index, src, zeros, NULL));
    const double sa[6] = {1, 0, 0, 0, 0, 5};
    CHECK_VALUES(zeros, sa, 6);
    CHECK_OK(nb_scalar(7, 0, NB_F64, &val));
    const double rows[2] = {1, 0};
    nb_tensor* index0 = nbt_tensor(rows, (const int64_t[]){1, 2}, 2, NB_I32);
    CHECK_OK(nb_scatter_value(zeros, 0, index0, val, NULL, &r));
    nb_tensor_release(index0);
    const double sv[6] = {1, 7, 0, 7, 0, 5};
    CHECK_VALUES(r, sv, 6);
    nb_tensor_release(r);
    nb_tensor_release(val);
    nb_tensor_release(src);
    nb_tensor_release(zeros);
    nb_tensor_release(index);
    nb_tensor_release(x);
    CHECK_EQ_INT(live(), before);
}

TEST(test_gather_scatter_errors_leave_outputs_untouched) {
    int64_t before = live();
    nb_tensor *x = nbt_iota(S23, 2, NB_F32), *r = NULL;
    const double bad[2] = {0, 5};
    const int64_t s12[2] = {1, 2};
    nb_tensor* index = nbt_tensor(bad, s12, 2, NB_I64);
    CHECK_STATUS(nb_gather(x, 1, index, &r), NB_ERR_INDEX, "index 5 is out of bounds for dimension 1 with size 3");
    CHECK(r == NULL);
    nb_tensor* src = nbt_iota(s12, 2, NB_F32);
    CHECK_STATUS(nb_scatter(x, 1, index, src, x, NULL), NB_ERR_INDEX, "index 5 is out of bounds for dimension 1");
    const double same[6] = {0, 1, 2, 3, 4, 5};
    CHECK_VALUES(x, same, 6);  /* nothing written */
    nb_tensor* f64 = nbt_iota(s12, 2, NB_F64);
    const double ok[2] = {0, 1};
    nb_tensor* good = nbt_tensor(ok, s12, 2, NB_I64);
    CHECK_STATUS(nb_scatter(x, 1, good, f64, NULL, &r), NB_ERR_DTYPE, "Expected self.dtype to be equal to src.dtype");
    nb_tensor* fidx = nbt_tensor(ok, s12, 2, NB_F32);
    CHECK_STATUS(nb_gather(x, 1, fidx, &r), NB_ERR_DTYPE, "Expected dtype int32 or int64 for index");
    const int64_t n1 = 2;
    nb_tensor* flat = nbt_tensor(ok, &n1, 1, NB_I64);
    CHECK_STATUS(nb_gather(x, 1, flat, &r), NB_ERR_SHAPE, "same number of dimensions as input tensor");
    CHECK_STATUS(nb_index_select(x, 1, index, &r), NB_ERR_INDEX, "Index is supposed to be a vector");
    CHECK_STATUS(nb_gather(NULL, 1, flat, &r), NB_ERR_INVALID_ARGUMENT, "is NULL");
    CHECK(r == NULL);
    nb_tensor_release(fidx);
    nb_tensor_release(flat);
    nb_tensor_release(good);
    nb_tensor_release(f64);
    nb_tensor_release(src);
    nb_tensor_release(index);
    nb_tensor_release(x);
    CHECK_EQ_INT(live(), before);
}

TEST(test_index_select_index_add_masks) {
    int64_t before = live();
    nb_tensor *x = nbt_iota(S23, 2, NB_I64), *r = NULL;
    const double iv[3] = {2, 0, 2};
    nb_tensor* index = ivec(iv, 3);
    CHECK_OK(nb_index_select(x, 1, index, &r));
    const double is[6] = {2, 0, 2, 5, 3, 5};
    CHECK_VALUES(r, is, 6);
    CHECK_OK(nb_index_add(x, 1, index, r, 2, x, NULL));  /* x[:, index] += 2 * r, duplicates accumulate */
    const double ia[6] = {0, 1, 2 + 4 + 4, 3 + 6, 4, 5 + 10 + 10};
    CHECK_VALUES(x, ia, 6);
    nb_tensor_release(r);
    const double mv[3] = {1, 0, 1};
    const int64_t n3 = 3;
    nb_tensor *mask = nbt_tensor(mv, &n3, 1, NB_BOOL), *value = NULL, *sel = NULL, *nz = NULL;
    CHECK_OK(nb_scalar(-1, 0, NB_F64, &value));
    CHECK_OK(nb_masked_fill(x, mask, value, NULL, &r));
    const double mf[6] = {-1, 1, -1, -1, 4, -1};
    CHECK_VALUES(r, mf, 6);
    CHECK_OK(nb_masked_select(x, mask, &sel));
    const double ms[4] = {0, 10, 9, 25};
    CHECK_VALUES(sel, ms, 4);
    CHECK_OK(nb_nonzero(r, &nz));
    CHECK_SHAPE(nz, 6, 2);
    CHECK_STATUS(nb_masked_fill(x, x, value, NULL, &r), NB_ERR_DTYPE, "only supports boolean masks");
    CHECK_STATUS(nb_masked_fill(x, mask, mask, NULL, &r), NB_ERR_SHAPE, "0-dimensional value tensor");
    nb_tensor* oh = NULL;
    CHECK_OK(nb_one_hot(index, -1, &oh));
    CHECK_SHAPE(oh, 3, 3);
    const double ohv[9] = {0, 0, 1, 1, 0, 0, 0, 0, 1};
    CHECK_VALUES(oh, ohv, 9);
    nb_tensor_release(oh);
    oh = NULL;
    CHECK_STATUS(nb_one_hot(index, 2, &oh), NB_ERR_INVALID_ARGUMENT, "Class values must be smaller than num_classes.");
    CHECK(oh == NULL);
    nb_tensor_release(nz);
    nb_tensor *scalar = NULL, *yes = NULL, *picked = NULL;  /* 0-dim inputs: no coordinates, a new dim */
    CHECK_OK(nb_full(NULL, 0, 2.5, NB_F32, NB_CPU, 0, &scalar));
    CHECK_OK(nb_nonzero(scalar, &nz));
    CHECK_SHAPE(nz, 1, 0);
    nb_tensor_release(nz);
    CHECK_OK(nb_full_int(NULL, 0, 1, NB_BOOL, NB_CPU, 0, &yes));
    const nb_tensor* yes_index[1] = {yes};
    CHECK_OK(nb_index(scalar, yes_index, 1, &picked));
    CHECK_SHAPE(picked, 1);
    const double pv[1] = {2.5};
    CHECK_VALUES(picked, pv, 1);
    nb_tensor_release(picked);
    CHECK_OK(nb_masked_select(scalar, yes, &picked));
    CHECK_VALUES(picked, pv, 1);
    nb_tensor_release(picked);
    nb_tensor_release(yes);
    nb_tensor_release(scalar);
    nb_tensor_release(sel);
    nb_tensor_release(r);
    nb_tensor_release(value);
    nb_tensor_release(mask);
    nb_tensor_release(index);
    nb_tensor_release(x);
    CHECK_EQ_INT(live(), before);
}

TEST(test_advanced_index_and_put) {
    int64_t before = live();
    const int64_t s345[3] = {3, 4, 5};
    nb_tensor *x = nbt_iota(s345, 3, NB_F32), *r = NULL;
    const double i0[2] = {2, 0}, i2[2] = {-1, 1};
    nb_tensor *a = ivec(i0, 2), *b = ivec(i2, 2);
    const nb_tensor* adjacent[2] = {NULL, a};  /* x[:, [2, 0]] */
    CHECK_OK(nb_index(x, adjacent, 2, &r));
    CHECK_SHAPE(r, 3, 2, 5);
    nb_tensor_release(r);
    const nb_tensor* separated[3] = {a, NULL, b};  /* x[[2, 0], :, [-1, 1]]: the index dims lead */
    CHECK_OK(nb_index(x, separated, 3, &r));
    CHECK_SHAPE(r, 2, 4);
    const double sep[8] = {44, 49, 54, 59, 1, 6, 11, 16};
    CHECK_VALUES(r, sep, 8);
    nb_tensor_release(r);
    const double mv[4] = {1, 0, 0, 1};
    const int64_t n4 = 4;
    nb_tensor* mask = nbt_tensor(mv, &n4, 1, NB_BOOL);
    const nb_tensor* masked[2] = {NULL, mask};
    CHECK_OK(nb_index(x, masked, 2, &r));
    CHECK_SHAPE(r, 3, 2, 5);
    nb_tensor_release(r);
    r = NULL;
    /* errors */
    const double oob[1] = {3};
    nb_tensor* c = ivec(oob, 1);
    const nb_tensor* bad[1] = {c};
    CHECK_STATUS(nb_index(x, bad, 1, &r), NB_ERR_INDEX, "index 3 is out of bounds for dimension 0 with size 3");
    const nb_tensor* wrong_mask[1] = {mask};
    CHECK_STATUS(nb_index(x, wrong_mask, 1, &r), NB_ERR_INDEX,
                 "The shape of the mask [4] at index 0 does not match the shape of the indexed tensor [3, 4, 5] at index 0");
    const double three[3] = {0, 1, 2};
    nb_tensor* d = ivec(three, 3);
    const nb_tensor* mismatch[2] = {a, d};
    CHECK_STATUS(nb_index(x, mismatch, 2, &r), NB_ERR_INDEX,
                 "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
    const nb_tensor* many[4] = {a, NULL, NULL, b};
    CHECK_STATUS(nb_index(x, many, 4, &r), NB_ERR_INDEX, "too many indices for tensor of dimension 3");
    const nb_tensor* floats[1] = {x};
    CHECK_STATUS(nb_index(x, floats, 1, &r), NB_ERR_INDEX, "tensors used as indices must be long");
    CHECK(r == NULL);
    /* index_put: x[[2, 0], :, [-1, 1]] = value, then += with accumulate */
    nb_tensor* value = NULL;
    CHECK_OK(nb_scalar(100, 0, NB_F32, &value));
    nb_tensor* v32 = NULL;
    CHECK_OK(nb_tensor_to(value, NB_F32, NB_CPU, 0, 1, &v32));
    CHECK_OK(nb_index_put(x, separated, 3, v32, 0, x, NULL));
    CHECK_OK(nb_index_put(x, separated, 3, v32, 1, x, NULL));
    CHECK_OK(nb_index(x, separated, 3, &r));
    double got[8];
    CHECK_EQ_INT(nbt_values(r, got, 8), 8);
    for (int i = 0; i < 8; i++) CHECK_EQ_DBL(got[i], 200);
    nb_tensor_release(r);
    r = NULL;
    nb_tensor* f64 = NULL;
    CHECK_OK(nb_tensor_to(value, NB_F64, NB_CPU, 0, 1, &f64));
    CHECK_STATUS(nb_index_put(x, separated, 3, f64, 0, NULL, &r), NB_ERR_DTYPE, "Index put requires the source and destination dtypes match");
    CHECK_STATUS(nb_index_put(x, bad, 1, v32, 0, x, NULL), NB_ERR_INDEX, "index 3 is out of bounds");
    CHECK(r == NULL);
    nb_tensor_release(f64);
    nb_tensor_release(v32);
    nb_tensor_release(value);
    nb_tensor_release(c);
    nb_tensor_release(d);
    nb_tensor_release(mask);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(x);
    CHECK_EQ_INT(live(), before);
}

TEST(test_large_ops_run_in_parallel_and_agree) {
    int64_t before = live();
    const int64_t shape[2] = {600, 500};
    nb_tensor *x = nbt_iota(shape, 2, NB_F64), *t = NULL, *r = NULL, *back = NULL;
    CHECK_OK(nb_tensor_transpose(x, 0, 1, &t));
    const int64_t dims[1] = {1};
    CHECK_OK(nb_flip(t, dims, 1, &r));
    CHECK_OK(nb_flip(r, dims, 1, &back));
    double v0[4];
    nb_tensor *row = NULL, *row2 = NULL;
    CHECK_OK(nb_tensor_select(back, 0, 7, &row));
    CHECK_OK(nb_tensor_select(t, 0, 7, &row2));
    nb_tensor* eq = NULL;
    CHECK_OK(nb_eq(row, row2, NULL, &eq));
    nb_tensor* nz = NULL;
    CHECK_OK(nb_nonzero(eq, &nz));
    CHECK_SHAPE(nz, 600, 1);
    (void)v0;
    nb_tensor *vals = NULL, *idx = NULL;
    CHECK_OK(nb_sort(t, 1, 1, 1, &vals, &idx));
    double first[1];
    nb_tensor* corner = NULL;
    CHECK_OK(nb_tensor_select(vals, 1, 0, &corner));
    nb_tensor* c0 = NULL;
    CHECK_OK(nb_tensor_select(corner, 0, 0, &c0));
    CHECK_EQ_INT(nbt_values(c0, first, 1), 1);
    CHECK_EQ_DBL(first[0], 599 * 500);  /* descending along the transposed rows */
    nb_tensor_release(c0);
    nb_tensor_release(corner);
    nb_tensor_release(vals);
    nb_tensor_release(idx);
    nb_tensor_release(nz);
    nb_tensor_release(eq);
    nb_tensor_release(row);
    nb_tensor_release(row2);
    nb_tensor_release(back);
    nb_tensor_release(r);
    nb_tensor_release(t);
    nb_tensor_release(x);
    CHECK_EQ_INT(live(), before);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_cat_values_promotion_and_skipping);
    RUN(test_cat_errors);
    RUN(test_stack_flip_roll_repeat_tril);
    RUN(test_sort_topk_unique);
    RUN(test_gather_scatter_values);
    RUN(test_gather_scatter_errors_leave_outputs_untouched);
    RUN(test_index_select_index_add_masks);
    RUN(test_advanced_index_and_put);
    RUN(test_large_ops_run_in_parallel_and_agree);
    return NBT_END();
}
