/* test_linalg.c: matrix products through the C ABI: values of mm / matmul (every
 * rank case) / bmm / mv / dot / addmm / baddbmm / linear / outer on contiguous
 * and transposed operands, integer and float16 inputs, dst semantics, and the
 * errors with their messages; nothing leaks on any path. */
#include "nbtest.h"

/* want[i, j] = sum_k a[i, k] * b[k, j] for row-major double arrays. */
static void ref_mm(const double* a, const double* b, double* want, int m, int k, int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
            want[i * n + j] = s;
        }
}

/* iota values 0..n-1 as doubles (what nbt_iota holds). */
static void iota(double* v, int n) {
    for (int i = 0; i < n; i++) v[i] = i;
}

TEST(test_mm_values) {
    const int64_t sa[2] = {2, 3}, sb[2] = {3, 4};
    int32_t dtypes[4] = {NB_F32, NB_F64, NB_I32, NB_I64};
    for (int d = 0; d < 4; d++) {
        nb_tensor *a = nbt_iota(sa, 2, dtypes[d]), *b = nbt_iota(sb, 2, dtypes[d]), *c = NULL;
        CHECK_OK(nb_mm(a, b, NULL, &c));
        CHECK_SHAPE(c, 2, 4);
        CHECK_EQ_INT(nb_tensor_dtype(c), dtypes[d]);
        CHECK_EQ_INT(nb_tensor_is_contiguous(c), 1);
        const double want[8] = {20, 23, 26, 29, 56, 68, 80, 92};
        CHECK_VALUES(c, want, 8);
        nb_tensor_release(c);
        nb_tensor_release(a);
        nb_tensor_release(b);
    }
}

TEST(test_mm_transposed_operands) {
    /* a^T @ b^T where a is [5, 4] and b is [3, 5]: both column-major views, read by BLAS in place */
    const int64_t sa[2] = {5, 4}, sb[2] = {3, 5};
    for (int32_t dt = NB_F32; dt <= NB_F64; dt++) {
        nb_tensor *a = nbt_iota(sa, 2, dt), *b = nbt_iota(sb, 2, dt), *at = NULL, *bt = NULL, *c = NULL;
        CHECK_OK(nb_tensor_transpose(a, 0, 1, &at));  /* [4, 5] */
        CHECK_OK(nb_tensor_transpose(b, 0, 1, &bt));  /* [5, 3] */
        CHECK_OK(nb_matmul(at, bt, NULL, &c));
        CHECK_SHAPE(c, 4, 3);
        double av[20], bv[15], atv[20], btv[15], want[12];
        iota(av, 20), iota(bv, 15);
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 5; k++) atv[i * 5 + k] = av[k * 4 + i];
        for (int k = 0; k < 5; k++)
            for (int j = 0; j < 3; j++) btv[k * 3 + j] = bv[j * 5 + k];
        ref_mm(atv, btv, want, 4, 5, 3);
        CHECK_VALUES(c, want, 12);
        nb_tensor_release(c);
        nb_tensor_release(at);
        nb_tensor_release(bt);
        nb_tensor_release(a);
        nb_tensor_release(b);
    }
}

TEST(test_matmul_rank_cases) {
    const int64_t s3[1] = {3}, s23[2] = {2, 3}, s34[2] = {3, 4}, s223[3] = {2, 2, 3}, s1234[4] = {1, 2, 3, 4};
    nb_tensor *v = nbt_iota(s3, 1, NB_F64), *m23 = nbt_iota(s23, 2, NB_F64), *m34 = nbt_iota(s34, 2, NB_F64);
    nb_tensor *b223 = nbt_iota(s223, 3, NB_F64), *b1234 = nbt_iota(s1234, 4, NB_F64), *r = NULL;
    CHECK_OK(nb_matmul(v, v, NULL, &r));  /* dot: 0 + 1 + 4 */
    CHECK_EQ_INT(nb_tensor_ndim(r), 0);
    const double dot[1] = {5};
    CHECK_VALUES(r, dot, 1);
    nb_tensor_release(r);
    CHECK_OK(nb_matmul(m23, v, NULL, &r));  /* [2] */
    CHECK_SHAPE(r, 2);
    const double mv[2] = {5, 14};
    CHECK_VALUES(r, mv, 2);
    nb_tensor_release(r);
    CHECK_OK(nb_matmul(v, m34, NULL, &r));  /* [4]: row 0..2 of m34 weighted 0, 1, 2 */
    CHECK_SHAPE(r, 4);
    const double vm[4] = {20, 23, 26, 29};
    CHECK_VALUES(r, vm, 4);
    nb_tensor_release(r);
    CHECK_OK(nb_matmul(b223, m34, NULL, &r));  /* [2, 2, 4]: folds into one [4, 3] @ [3, 4] */
    CHECK_SHAPE(r, 2, 2, 4);
    double av[12], bv[12], want[16];
    iota(av, 12), iota(bv, 12);
    ref_mm(av, bv, want, 4, 3, 4);
    CHECK_VALUES(r, want, 16);
    nb_tensor_release(r);
    CHECK_OK(nb_matmul(b223, b1234, NULL, &r));  /* batch [2] x [1, 2] -> [1, 2] */
    CHECK_SHAPE(r, 1, 2, 2, 4);
    double bw[24], want2[16];
    iota(bw, 24);
    for (int bi = 0; bi < 2; bi++) ref_mm(av + 6 * bi, bw + 12 * bi, want2 + 8 * bi, 2, 3, 4);
    CHECK_VALUES(r, want2, 16);
    nb_tensor_release(r);
    CHECK_STATUS(nb_bmm(b223, b223, NULL, &r), NB_ERR_SHAPE, "[2, 3] but got: [2, 2].");  /* K mismatch */
    nb_tensor_release(v);
    nb_tensor_release(m23);
    nb_tensor_release(m34);
    nb_tensor_release(b223);
    nb_tensor_release(b1234);
}

TEST(test_addmm_and_linear) {
    const int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s4[1] = {4}, s43[2] = {4, 3};
    nb_tensor *a = nbt_iota(s23, 2, NB_F32), *b = nbt_iota(s34, 2, NB_F32), *bias = nbt_iota(s4, 1, NB_F32);
    nb_tensor *w = nbt_iota(s43, 2, NB_F32), *r = NULL;
    CHECK_OK(nb_addmm(bias, a, b, 0.5, 2.0, NULL, &r));  /* 0.5 * bias + 2 * a @ b */
    const double want[8] = {40, 46.5, 53, 59.5, 112, 136.5, 161, 185.5};
    CHECK_VALUES(r, want, 8);
    /* in place: r = 1 * r + 1 * (a @ b) */
    CHECK_OK(nb_addmm(r, a, b, 1.0, 1.0, r, NULL));
    const double want2[8] = {60, 69.5, 79, 88.5, 168, 204.5, 241, 277.5};
    CHECK_VALUES(r, want2, 8);
    nb_tensor_release(r);
    /* linear: a @ w^T + bias, w = [4, 3] */
    CHECK_OK(nb_linear(a, w, bias, NULL, &r));
    CHECK_SHAPE(r, 2, 4);
    const double lin[8] = {5, 15, 25, 35, 14, 51, 88, 125};
    CHECK_VALUES(r, lin, 8);
    nb_tensor_release(r);
    CHECK_OK(nb_linear(a, w, NULL, NULL, &r));
    const double lin0[8] = {5, 14, 23, 32, 14, 50, 86, 122};
    CHECK_VALUES(r, lin0, 8);
    nb_tensor_release(r);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(bias);
    nb_tensor_release(w);
}

TEST(test_integer_and_half) {
    const int64_t s[2] = {1, 3}, st[2] = {3, 1};
    const double big[3] = {100, 100, 100}, ones[3] = {1, 1, 1};
    nb_tensor *a = nbt_tensor(big, s, 2, NB_I8), *b = nbt_tensor(big, st, 2, NB_I8), *r = NULL;
    CHECK_OK(nb_mm(a, b, NULL, &r));  /* 30000 mod 256 = 48, as int8 */
    const double wrapped[1] = {48};
    CHECK_VALUES(r, wrapped, 1);
    nb_tensor_release(r);
    nb_tensor_release(a);
    nb_tensor_release(b);
    const double h[3] = {2048, 1, 1};  /* float16 partial sums would stay at 2048 */
    a = nbt_tensor(h, s, 2, NB_F16);
    b = nbt_tensor(ones, st, 2, NB_F16);
    CHECK_OK(nb_mm(a, b, NULL, &r));
    CHECK_EQ_INT(nb_tensor_dtype(r), NB_F16);
    const double sum[1] = {2050};
    CHECK_VALUES(r, sum, 1);
    nb_tensor_release(r);
    nb_tensor_release(a);
    nb_tensor_release(b);
}

TEST(test_dot_mv_outer_baddbmm) {
    const int64_t s3[1] = {3}, s2[1] = {2}, s23[2] = {2, 3}, s223[3] = {2, 2, 3}, s232[3] = {2, 3, 2};
    nb_tensor *v = nbt_iota(s3, 1, NB_F64), *u = nbt_iota(s2, 1, NB_F64), *m = nbt_iota(s23, 2, NB_F64), *r = NULL;
    CHECK_OK(nb_dot(v, v, NULL, &r));
    const double d[1] = {5};
    CHECK_VALUES(r, d, 1);
    nb_tensor_release(r);
    CHECK_OK(nb_mv(m, v, NULL, &r));
    const double mv[2] = {5, 14};
    CHECK_VALUES(r, mv, 2);
    nb_tensor_release(r);
    CHECK_OK(nb_outer(u, v, NULL, &r));
    CHECK_SHAPE(r, 2, 3);
    const double o[6] = {0, 0, 0, 0, 1, 2};
    CHECK_VALUES(r, o, 6);
    nb_tensor_release(r);
    nb_tensor *b1 = nbt_iota(s223, 3, NB_F64), *b2 = nbt_iota(s232, 3, NB_F64), *in = NULL;
    const int64_t s22[2] = {2, 2};
    CHECK_OK(nb_zeros(s22, 2, NB_F64, NB_CPU, 0, &in));
    CHECK_OK(nb_baddbmm(in, b1, b2, 1.0, 1.0, NULL, &r));
    CHECK_SHAPE(r, 2, 2, 2);
    double av[12], want[8];
    iota(av, 12);
    for (int bi = 0; bi < 2; bi++) ref_mm(av + 6 * bi, av + 6 * bi, want + 4 * bi, 2, 3, 2);
    CHECK_VALUES(r, want, 8);
    nb_tensor_release(r);
    nb_tensor_release(in);
    nb_tensor_release(b1);
    nb_tensor_release(b2);
    nb_tensor_release(v);
    nb_tensor_release(u);
    nb_tensor_release(m);
}

TEST(test_dst) {
    const int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s24[2] = {2, 4}, s25[2] = {2, 5};
    nb_tensor *a = nbt_iota(s23, 2, NB_F32), *b = nbt_iota(s34, 2, NB_F32), *dst = NULL, *r = NULL, *bad = NULL;
    CHECK_OK(nb_zeros(s24, 2, NB_F32, NB_CPU, 0, &dst));
    int64_t v0 = nb_tensor_version(dst);
    CHECK_OK(nb_matmul(a, b, dst, NULL));  /* out may be NULL with dst */
    CHECK(nb_tensor_version(dst) > v0);
    CHECK_OK(nb_matmul(a, b, dst, &r));
    CHECK(r == dst);
    CHECK_EQ_INT(nb_tensor_refcount(dst), 2);
    nb_tensor_release(r);
    const double want[8] = {20, 23, 26, 29, 56, 68, 80, 92};
    CHECK_VALUES(dst, want, 8);
    CHECK_OK(nb_zeros(s25, 2, NB_F32, NB_CPU, 0, &bad));
    CHECK_OK(nb_mm(a, b, bad, NULL));  /* out= of another shape: resized, with a warning (test_out_resize.c) */
    CHECK_SHAPE(bad, 2, 4);
    CHECK_VALUES(bad, want, 8);
    nb_tensor_release(bad);
    CHECK_OK(nb_zeros(s24, 2, NB_F64, NB_CPU, 0, &bad));
    CHECK_STATUS(nb_mm(a, b, bad, NULL), NB_ERR_DTYPE, "Expected out tensor to have dtype float, but got double instead");
    nb_tensor_release(bad);
    nb_tensor_release(dst);
    nb_tensor_release(a);
    nb_tensor_release(b);
}

TEST(test_errors) {
    const int64_t s23[2] = {2, 3}, s45[2] = {4, 5}, s3[1] = {3};
    nb_tensor *a = nbt_iota(s23, 2, NB_F32), *b = nbt_iota(s45, 2, NB_F32), *v = nbt_iota(s3, 1, NB_F32);
    nb_tensor *d = nbt_iota(s45, 2, NB_F64), *s = NULL, *r = NULL;
    const int64_t s34[2] = {3, 4};
    nb_tensor *d34 = nbt_iota(s34, 2, NB_F64), *bl = nbt_iota(s23, 2, NB_BOOL), *bl2 = nbt_iota(s34, 2, NB_BOOL);
    CHECK_OK(nb_scalar(1.0, 0, NB_F32, &s));
    nb_memory_stats before = nbt_stats();
    CHECK_STATUS(nb_mm(a, b, NULL, &r), NB_ERR_SHAPE, "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    CHECK_STATUS(nb_matmul(a, b, NULL, &r), NB_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    CHECK_STATUS(nb_mm(v, b, NULL, &r), NB_ERR_SHAPE, "self must be a matrix");
    CHECK_STATUS(nb_mm(a, d, NULL, &r), NB_ERR_SHAPE, "cannot be multiplied");
    CHECK_STATUS(nb_mm(a, d34, NULL, &r), NB_ERR_DTYPE,
                 "expected m1 and m2 to have the same dtype, but got: float != double");
    CHECK_STATUS(nb_matmul(s, v, NULL, &r), NB_ERR_SHAPE,
                 "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
    CHECK_STATUS(nb_matmul(bl, bl2, NULL, &r), NB_ERR_NOT_IMPLEMENTED, "not implemented for 'Bool'");
    CHECK_STATUS(nb_mm(a, d34, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "output pointer");
    CHECK_STATUS(nb_mm(NULL, d34, NULL, &r), NB_ERR_INVALID_ARGUMENT, "mm");
    CHECK_STATUS(nb_linear(a, b, NULL, NULL, &r), NB_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)");
    CHECK_STATUS(nb_addmm(v, a, d34, 1.0, 1.0, NULL, &r), NB_ERR_DTYPE, "self and mat2 must have the same dtype");
    CHECK(r == NULL);
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);  /* failures leak nothing */
    nb_tensor_release(d34);
    nb_tensor_release(bl);
    nb_tensor_release(bl2);
    nb_tensor_release(s);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(v);
    nb_tensor_release(d);
}

TEST(test_no_leaks) {
    const int64_t s[3] = {3, 8, 8};
    nb_memory_stats before = nbt_stats();
    for (long i = 0; i < nbt_iters(200, 10); i++) {
        nb_tensor *a = nbt_iota(s, 3, NB_F16), *t = NULL, *r = NULL;
        CHECK_OK(nb_tensor_transpose(a, 1, 2, &t));
        CHECK_OK(nb_matmul(a, t, NULL, &r));  /* float16: converted operands and a float32 staging result */
        nb_tensor_release(r);
        nb_tensor_release(t);
        nb_tensor_release(a);
    }
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_mm_values);
    RUN(test_mm_transposed_operands);
    RUN(test_matmul_rank_cases);
    RUN(test_addmm_and_linear);
    RUN(test_integer_and_half);
    RUN(test_dot_mv_outer_baddbmm);
    RUN(test_dst);
    RUN(test_errors);
    RUN(test_no_leaks);
    return NBT_END();
}
