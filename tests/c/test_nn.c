/* test_nn.c: the neural-network ops through the C ABI: values on small inputs
 * worked out by hand (or by a naive loop here), dst semantics, and bad inputs
 * failing with a status and a message while leaving *out untouched and leaking
 * nothing. Shapes stay small so the program runs quickly under valgrind. */
#include "nbtest.h"

static char sentinel_byte;
#define SENTINEL ((nb_tensor*)(void*)&sentinel_byte)

/* call must fail with `code`, a message containing s, and leave out untouched. */
#define FAILS(code, s, call)                \
    do {                                    \
        out = SENTINEL;                     \
        CHECK_STATUS(call, code, s);        \
        CHECK(out == SENTINEL);             \
    } while (0)

/* t's values within tol of want[0..n). */
#define CHECK_CLOSE(t, want, n, tol)                                                              \
    do {                                                                                          \
        static double nbt_g_[16384];                                                              \
        int64_t nbt_n_ = nbt_values((t), nbt_g_, 16384);                                          \
        CHECK_EQ_INT(nbt_n_, (n));                                                                \
        for (int64_t nbt_i_ = 0; nbt_i_ < nbt_n_ && nbt_i_ < (int64_t)(n); nbt_i_++)              \
            if (!(fabs(nbt_g_[nbt_i_] - (want)[nbt_i_]) <= (tol))) {                              \
                nbt_fail(__FILE__, __LINE__, "CHECK_CLOSE(%s)[%lld]: %.9g != %.9g", #t,           \
                         (long long)nbt_i_, nbt_g_[nbt_i_], (double)(want)[nbt_i_]);              \
                break;                                                                            \
            }                                                                                     \
    } while (0)

static const int64_t ONE2[2] = {1, 1}, ZERO2[2] = {0, 0}, ZERO4[4] = {0, 0, 0, 0};

static int64_t live(void) { return nbt_stats().live_tensors; }

TEST(test_conv2d_values_bias_padding_and_dst) {
    const int64_t s1133[4] = {1, 1, 3, 3}, s1122[4] = {1, 1, 2, 2}, s1[1] = {1};
    nb_tensor *x = nbt_iota(s1133, 4, NB_F32), *w = NULL, *b = NULL, *out = NULL;
    CHECK_OK(nb_ones(s1122, 4, NB_F32, NB_CPU, 0, &w));
    CHECK_OK(nb_full(s1, 1, 0.5, NB_F32, NB_CPU, 0, &b));
    CHECK_OK(nb_conv2d(x, w, b, ONE2, ZERO4, ONE2, 1, NULL, &out));
    CHECK_SHAPE(out, 1, 1, 2, 2);
    const double want[4] = {8.5, 12.5, 20.5, 24.5};
    CHECK_VALUES(out, want, 4);
    nb_tensor_release(out);
    /* padding (top 1, left 0, bottom 0, right 1): 3x3 output; stride 2 in W: 3x2 */
    const int64_t pad[4] = {1, 0, 0, 1}, stride[2] = {1, 2};
    CHECK_OK(nb_conv2d(x, w, NULL, stride, pad, ONE2, 1, NULL, &out));
    CHECK_SHAPE(out, 1, 1, 3, 2);
    const double want_pad[6] = {1, 2, 8, 7, 20, 13};
    CHECK_VALUES(out, want_pad, 6);
    nb_tensor_release(out);
    /* into a float64 dst: *out is a new reference to dst */
    nb_tensor* dst = NULL;
    CHECK_OK(nb_zeros(s1122, 4, NB_F64, NB_CPU, 0, &dst));
    const int64_t v0 = nb_tensor_version(dst);
    CHECK_OK(nb_conv2d(x, w, b, ONE2, ZERO4, ONE2, 1, dst, &out));
    CHECK(out == dst);
    CHECK_EQ_INT(nb_tensor_refcount(dst), 2);
    CHECK(nb_tensor_version(dst) > v0);
    CHECK_VALUES(dst, want, 4);
    nb_tensor_release(out);
    CHECK_OK(nb_conv2d(x, w, NULL, ONE2, ZERO4, ONE2, 1, dst, NULL)); /* out may be NULL with dst */
    const double want_nobias[4] = {8, 12, 20, 24};
    CHECK_VALUES(dst, want_nobias, 4);
    nb_tensor_release(dst);
    /* a contiguous float32 dst receives the result directly */
    CHECK_OK(nb_empty(s1122, 4, NB_F32, NB_CPU, 0, &dst));
    CHECK_OK(nb_conv2d(x, w, b, ONE2, ZERO4, ONE2, 1, dst, &out));
    CHECK(out == dst);
    CHECK_VALUES(dst, want, 4);
    CHECK_EQ_INT(nb_tensor_version(dst), 1);
    nb_tensor_release(out);
    nb_tensor_release(dst);
    nb_tensor_release(b);
    nb_tensor_release(w);
    nb_tensor_release(x);
}

/* A naive reference for a grouped, strided, padded, dilated conv2d (float64). */
static void conv_ref(const double* x, const double* w, const double* b, double* y, int N, int C, int H, int W, int O,
                     int kh, int kw, int s, int p, int d, int G, int OH, int OW) {
    const int Cg = C / G, Og = O / G;
    for (int n = 0; n < N; n++)
        for (int o = 0; o < O; o++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    double acc = b[o];
                    const int g = o / Og;
                    for (int c = 0; c < Cg; c++)
                        for (int i = 0; i < kh; i++)
                            for (int j = 0; j < kw; j++) {
                                const int ih = oh * s - p + i * d, iw = ow * s - p + j * d;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                acc += x[((n * C + g * Cg + c) * H + ih) * W + iw] * w[((o * Cg + c) * kh + i) * kw + j];
                            }
                    y[((n * O + o) * OH + oh) * OW + ow] = acc;
                }
}

TEST(test_conv2d_threaded_matches_naive_loop) {
    enum { N = 3, C = 12, H = 14, W = 13, O = 16, K = 3, G = 2, S = 1, P = 1, D = 2 }; /* enough work for threads */
    enum { OH = (H + 2 * P - D * (K - 1) - 1) / S + 1, OW = (W + 2 * P - D * (K - 1) - 1) / S + 1 };
    static double x[N * C * H * W], w[O * (C / G) * K * K], b[O], want[N * O * OH * OW];
    for (int i = 0; i < N * C * H * W; i++) x[i] = (double)((i * 37) % 17) / 8.0 - 1.0;
    for (int i = 0; i < O * (C / G) * K * K; i++) w[i] = (double)((i * 11) % 13) / 6.0 - 1.0;
    for (int i = 0; i < O; i++) b[i] = i * 0.25;
    conv_ref(x, w, b, want, N, C, H, W, O, K, K, S, P, D, G, OH, OW);
    const int64_t sx[4] = {N, C, H, W}, sw[4] = {O, C / G, K, K}, sb[1] = {O};
    const int64_t st[2] = {S, S}, pad[4] = {P, P, P, P}, dil[2] = {D, D};
    for (int k = 0; k < 2; k++) {
        const int32_t dtype = k == 0 ? NB_F32 : NB_F64;
        nb_tensor *tx = nbt_tensor(x, sx, 4, dtype), *tw = nbt_tensor(w, sw, 4, dtype), *tb = nbt_tensor(b, sb, 1, dtype);
        nb_tensor* out = NULL;
        CHECK_OK(nb_conv2d(tx, tw, tb, st, pad, dil, G, NULL, &out));
        CHECK_SHAPE(out, N, O, OH, OW);
        CHECK_CLOSE(out, want, N * O * OH * OW, k == 0 ? 1e-4 : 1e-12);
        nb_tensor_release(out);
        nb_tensor_release(tx), nb_tensor_release(tw), nb_tensor_release(tb);
    }
}

TEST(test_conv1d_and_transpose) {
    const int64_t s113[3] = {1, 1, 3}, s112[3] = {1, 1, 2};
    nb_tensor *x = nbt_iota(s113, 3, NB_F64), *w = NULL, *out = NULL;
    CHECK_OK(nb_ones(s112, 3, NB_F64, NB_CPU, 0, &w));
    CHECK_OK(nb_conv1d(x, w, NULL, 1, 1, 2, 1, 1, NULL, &out)); /* 'same'-style uneven padding: left 1, right 2 */
    CHECK_SHAPE(out, 1, 1, 5);
    const double want1[5] = {0, 1, 3, 2, 0};
    CHECK_VALUES(out, want1, 5);
    nb_tensor_release(out);
    nb_tensor_release(x);
    nb_tensor_release(w);
    /* transposed: [[1, 2], [3, 4]] with a 2x2 kernel of ones */
    const int64_t s1122[4] = {1, 1, 2, 2};
    const double xv[4] = {1, 2, 3, 4};
    x = nbt_tensor(xv, s1122, 4, NB_F32);
    CHECK_OK(nb_ones(s1122, 4, NB_F32, NB_CPU, 0, &w));
    CHECK_OK(nb_conv_transpose2d(x, w, NULL, ONE2, ZERO2, ZERO2, ONE2, 1, NULL, &out));
    CHECK_SHAPE(out, 1, 1, 3, 3);
    const double want2[9] = {1, 3, 2, 4, 10, 6, 3, 7, 4};
    CHECK_VALUES(out, want2, 9);
    nb_tensor_release(out);
    const int64_t two[2] = {2, 2};
    CHECK_OK(nb_conv_transpose2d(x, w, NULL, two, ZERO2, ONE2, ONE2, 1, NULL, &out)); /* stride 2, output_padding 1 */
    CHECK_SHAPE(out, 1, 1, 5, 5);
    const double want3[25] = {1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4, 4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0};
    CHECK_VALUES(out, want3, 25);
    nb_tensor_release(out);
    nb_tensor_release(x);
    nb_tensor_release(w);
}

TEST(test_pooling) {
    const int64_t s1144[4] = {1, 1, 4, 4}, k2[2] = {2, 2}, out11[2] = {1, 1}, out12[2] = {1, 2};
    nb_tensor *x = nbt_iota(s1144, 4, NB_F32), *out = NULL, *idx = NULL;
    CHECK_OK(nb_max_pool2d(x, k2, NULL, ZERO2, NULL, 0, &idx, NULL, &out));
    const double want_max[4] = {5, 7, 13, 15};
    CHECK_VALUES(out, want_max, 4);
    CHECK_EQ_INT(nb_tensor_dtype(idx), NB_I64);
    CHECK_VALUES(idx, want_max, 4); /* flat indices equal the iota values */
    nb_tensor_release(out);
    nb_tensor_release(idx);
    const int64_t k3[2] = {3, 3};
    CHECK_OK(nb_max_pool2d(x, k3, k2, ONE2, ONE2, 0, NULL, NULL, &out)); /* padded, no indices */
    CHECK_SHAPE(out, 1, 1, 2, 2);
    const double want_pad[4] = {5, 7, 13, 15};
    CHECK_VALUES(out, want_pad, 4);
    nb_tensor_release(out);
    CHECK_OK(nb_max_pool2d(x, k3, k2, ONE2, ONE2, 1, NULL, NULL, &out)); /* ceil_mode adds a last partial window */
    CHECK_SHAPE(out, 1, 1, 3, 3);
    const double want_ceil[9] = {5, 7, 7, 13, 15, 15, 13, 15, 15};
    CHECK_VALUES(out, want_ceil, 9);
    nb_tensor_release(out);
    CHECK_OK(nb_avg_pool2d(x, k2, NULL, ZERO2, 0, 1, 0, NULL, &out));
    const double want_avg[4] = {2.5, 4.5, 10.5, 12.5};
    CHECK_VALUES(out, want_avg, 4);
    nb_tensor_release(out);
    CHECK_OK(nb_avg_pool2d(x, k2, k2, ONE2, 0, 0, 0, NULL, &out)); /* padding not counted */
    const double want_nopad[9] = {0, 1.5, 3, 6, 7.5, 9, 12, 13.5, 15};
    CHECK_VALUES(out, want_nopad, 9);
    nb_tensor_release(out);
    CHECK_OK(nb_avg_pool2d(x, k2, k2, ONE2, 0, 1, 2, NULL, &out)); /* divisor_override 2 */
    const double want_div[9] = {0, 1.5, 1.5, 6, 15, 9, 6, 13.5, 7.5};
    CHECK_VALUES(out, want_div, 9);
    nb_tensor_release(out);
    CHECK_OK(nb_adaptive_avg_pool2d(x, out11, NULL, &out));
    const double want_mean[1] = {7.5};
    CHECK_VALUES(out, want_mean, 1);
    nb_tensor_release(out);
    CHECK_OK(nb_adaptive_avg_pool2d(x, out12, NULL, &out));
    const double want_halves[2] = {6.5, 8.5};
    CHECK_VALUES(out, want_halves, 2);
    nb_tensor_release(out);
    nb_tensor_release(x);
}

TEST(test_norms) {
    const int64_t s24[2] = {2, 4}, s4[1] = {4}, s21[2] = {2, 1}, s1[1] = {1};
    const double xv[8] = {1, 2, 3, 4, 2, 2, 2, 2};
    nb_tensor *x = nbt_tensor(xv, s24, 2, NB_F64), *out = NULL, *w = NULL;
    CHECK_OK(nb_layer_norm(x, s4, 1, NULL, NULL, 1e-12, NULL, &out));
    const double r = 1 / sqrt(1.25);
    const double want_ln[8] = {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r, 0, 0, 0, 0};
    CHECK_CLOSE(out, want_ln, 8, 1e-9);
    nb_tensor_release(out);
    CHECK_OK(nb_full(s4, 1, 2.0, NB_F64, NB_CPU, 0, &w));
    CHECK_OK(nb_layer_norm(x, s4, 1, w, w, 1e-12, NULL, &out));
    const double want_aff[8] = {2 - 3 * r, 2 - r, 2 + r, 2 + 3 * r, 2, 2, 2, 2};
    CHECK_CLOSE(out, want_aff, 8, 1e-9);
    nb_tensor_release(out);
    nb_tensor_release(w);
    /* group_norm with 2 groups of 2 channels: [1, 2 | 3, 4] and [2, 2 | 2, 2] */
    /* in place: dst is the input itself */
    nb_tensor* copy = NULL;
    CHECK_OK(nb_tensor_clone(x, &copy));
    CHECK_OK(nb_layer_norm(copy, s4, 1, NULL, NULL, 1e-12, copy, NULL));
    CHECK_CLOSE(copy, want_ln, 8, 1e-9);
    nb_tensor_release(copy);
    CHECK_OK(nb_group_norm(x, 2, NULL, NULL, 1e-12, NULL, &out));
    const double want_gn[8] = {-1, 1, -1, 1, 0, 0, 0, 0};
    CHECK_CLOSE(out, want_gn, 8, 1e-9);
    nb_tensor_release(out);
    nb_tensor_release(x);
    /* batch_norm training on [[1], [3]]: mean 2, biased var 1, unbiased 2 */
    const double bv[2] = {1, 3};
    nb_tensor *xb = nbt_tensor(bv, s21, 2, NB_F32), *rm = NULL, *rv = NULL;
    CHECK_OK(nb_zeros(s1, 1, NB_F32, NB_CPU, 0, &rm));
    CHECK_OK(nb_ones(s1, 1, NB_F64, NB_CPU, 0, &rv)); /* running stats may have another float dtype */
    const int64_t v0 = nb_tensor_version(rm);
    CHECK_OK(nb_batch_norm(xb, rm, rv, NULL, NULL, 1, 0.5, 0.0, NULL, &out));
    const double want_bn[2] = {-1, 1}, want_rm[1] = {1}, want_rv[1] = {1.5};
    CHECK_VALUES(out, want_bn, 2);
    CHECK_VALUES(rm, want_rm, 1);
    CHECK_VALUES(rv, want_rv, 1);
    CHECK_EQ_INT(nb_tensor_version(rm), v0 + 1);
    nb_tensor_release(out);
    CHECK_OK(nb_batch_norm(xb, rm, rv, NULL, NULL, 0, 0.5, 0.0, NULL, &out)); /* eval: (x - 1) / sqrt(1.5) */
    const double want_eval[2] = {0, 2 / sqrt(1.5)};
    CHECK_CLOSE(out, want_eval, 2, 1e-6);
    CHECK_VALUES(rm, want_rm, 1);
    nb_tensor_release(out);
    nb_tensor_release(rm), nb_tensor_release(rv), nb_tensor_release(xb);
}

TEST(test_losses) {
    const int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3};
    const double logits[6] = {0, 0, 0, 1, 2, 3}, tv[2] = {2, 0};
    nb_tensor *x = nbt_tensor(logits, s23, 2, NB_F64), *t = nbt_tensor(tv, s2, 1, NB_I64), *out = NULL;
    const double lse2 = log(exp(1.0) + exp(2.0) + exp(3.0));
    CHECK_OK(nb_cross_entropy(x, t, NULL, -100, 0, 0.0, NULL, &out));
    const double want_none[2] = {log(3.0), lse2 - 1};
    CHECK_CLOSE(out, want_none, 2, 1e-12);
    nb_tensor_release(out);
    CHECK_OK(nb_cross_entropy(x, t, NULL, 0, 1, 0.0, NULL, &out)); /* class 0 ignored: the mean is row 0 alone */
    CHECK_CLOSE(out, want_none, 1, 1e-12);
    CHECK_EQ_INT(nb_tensor_ndim(out), 0);
    nb_tensor_release(out);
    CHECK_OK(nb_nll_loss(x, t, NULL, -100, 2, NULL, &out)); /* -(x[0, 2] + x[1, 0]) */
    const double want_nll[1] = {-1};
    CHECK_VALUES(out, want_nll, 1);
    nb_tensor_release(out);
    const double pv[3] = {0.5, 1.0, 2.0}, qv[3] = {1.0, 1.0, 0.0};
    nb_tensor *p = nbt_tensor(pv, s3, 1, NB_F32), *q = nbt_tensor(qv, s3, 1, NB_F32);
    CHECK_OK(nb_mse_loss(p, q, NULL, 2, NULL, &out));
    const double want_mse[1] = {4.25};
    CHECK_VALUES(out, want_mse, 1);
    nb_tensor_release(out);
    CHECK_OK(nb_l1_loss(p, q, NULL, 0, NULL, &out));
    const double want_l1[3] = {0.5, 0, 2};
    CHECK_VALUES(out, want_l1, 3);
    nb_tensor_release(out);
    CHECK_OK(nb_smooth_l1_loss(p, q, 0, 1.0, NULL, &out));
    const double want_sl1[3] = {0.125, 0, 1.5};
    CHECK_VALUES(out, want_sl1, 3);
    nb_tensor_release(out);
    CHECK_OK(nb_huber_loss(p, q, NULL, 0, 0.5, NULL, &out));
    const double want_hub[3] = {0.125, 0, 0.875};
    CHECK_VALUES(out, want_hub, 3);
    nb_tensor_release(out);
    const double bx[2] = {0.5, 1.0}, bt[2] = {1.0, 0.0};
    nb_tensor *bxi = nbt_tensor(bx, s2, 1, NB_F64), *bti = nbt_tensor(bt, s2, 1, NB_F64);
    CHECK_OK(nb_binary_cross_entropy(bxi, bti, NULL, 0, NULL, &out)); /* log(1 - 1) clamps at -100 */
    const double want_bce[2] = {log(2.0), 100};
    CHECK_CLOSE(out, want_bce, 2, 1e-12);
    nb_tensor_release(out);
    CHECK_OK(nb_binary_cross_entropy_with_logits(bti, bti, NULL, NULL, 0, NULL, &out));
    const double want_bcel[2] = {log1p(exp(-1.0)), log(2.0)};
    CHECK_CLOSE(out, want_bcel, 2, 1e-12);
    nb_tensor_release(out);
    CHECK_OK(nb_kl_div(bti, bxi, 0, 0, NULL, &out)); /* target (log target - input) */
    const double want_kl[2] = {0.5 * (log(0.5) - 1), 0};
    CHECK_CLOSE(out, want_kl, 2, 1e-12);
    nb_tensor_release(out);
    nb_tensor_release(bxi), nb_tensor_release(bti), nb_tensor_release(p), nb_tensor_release(q);
    nb_tensor_release(x), nb_tensor_release(t);
}

TEST(test_embedding_and_pad) {
    const int64_t s32[2] = {3, 2}, s2[1] = {2}, s13[2] = {1, 3};
    const double iv[2] = {2, 0};
    nb_tensor *w = nbt_iota(s32, 2, NB_F32), *idx = nbt_tensor(iv, s2, 1, NB_I32), *out = NULL;
    CHECK_OK(nb_embedding(w, idx, -1, NULL, &out));
    CHECK_SHAPE(out, 2, 2);
    const double want_emb[4] = {4, 5, 0, 1};
    CHECK_VALUES(out, want_emb, 4);
    nb_tensor_release(out);
    nb_tensor_release(idx);
    nb_tensor_release(w);
    nb_tensor* x = nbt_iota(s13, 2, NB_I64);
    const int64_t p12[2] = {1, 2}, pm[2] = {-1, 2};
    CHECK_OK(nb_pad(x, p12, 2, 0, 9, NULL, &out));
    const double want_c[6] = {9, 0, 1, 2, 9, 9};
    CHECK_VALUES(out, want_c, 6);
    nb_tensor_release(out);
    CHECK_OK(nb_pad(x, p12, 2, 1, 0, NULL, &out));
    const double want_r[6] = {1, 0, 1, 2, 1, 0};
    CHECK_VALUES(out, want_r, 6);
    nb_tensor_release(out);
    CHECK_OK(nb_pad(x, p12, 2, 2, 0, NULL, &out));
    const double want_e[6] = {0, 0, 1, 2, 2, 2};
    CHECK_VALUES(out, want_e, 6);
    nb_tensor_release(out);
    CHECK_OK(nb_pad(x, pm, 2, 3, 0, NULL, &out)); /* circular after cropping one: [1, 2, 1, 2] */
    const double want_w[4] = {1, 2, 1, 2};
    CHECK_VALUES(out, want_w, 4);
    nb_tensor_release(out);
    nb_tensor_release(x);
}

TEST(test_bad_inputs_fail_cleanly) {
    const int64_t s4[4] = {2, 3, 5, 5}, w4[4] = {4, 3, 3, 3}, wbad[4] = {4, 2, 3, 3}, s3[3] = {3, 28, 28};
    const int64_t big[4] = {4, 3, 7, 7}, s2[2] = {3, 5}, s1[1] = {3}, k2[2] = {2, 2}, one[1] = {1};
    nb_tensor *x = NULL, *w = NULL, *wb = NULL, *x3 = NULL, *wbig = NULL, *logits = NULL, *tf = NULL, *ti = NULL;
    nb_tensor *wd = NULL, *dst = NULL, *bad = NULL, *out = NULL;
    CHECK_OK(nb_ones(s4, 4, NB_F32, NB_CPU, 0, &x));
    CHECK_OK(nb_ones(w4, 4, NB_F32, NB_CPU, 0, &w));
    CHECK_OK(nb_ones(w4, 4, NB_F64, NB_CPU, 0, &wd));
    CHECK_OK(nb_ones(wbad, 4, NB_F32, NB_CPU, 0, &wb));
    CHECK_OK(nb_ones(s3, 3, NB_F32, NB_CPU, 0, &x3));
    CHECK_OK(nb_ones(big, 4, NB_F32, NB_CPU, 0, &wbig));
    CHECK_OK(nb_zeros(s2, 2, NB_F32, NB_CPU, 0, &logits));
    CHECK_OK(nb_zeros(s1, 1, NB_F32, NB_CPU, 0, &tf));
    CHECK_OK(nb_full_int(s1, 1, 7, NB_I64, NB_CPU, 0, &ti));
    CHECK_OK(nb_zeros(one, 1, NB_I64, NB_CPU, 0, &dst));
    CHECK_OK(nb_full(s1, 1, 1.5, NB_F32, NB_CPU, 0, &bad));
    const int64_t before = live();
    FAILS(NB_ERR_SHAPE, "conv2d: expected input with 4 dims [N, C, H, W], got [3, 28, 28]",
          nb_conv2d(x3, w, NULL, ONE2, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "expected input[2, 3, 5, 5] to have 2 channels, but got 3 channels instead",
          nb_conv2d(x, wb, NULL, ONE2, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "conv2d: Given groups=3, expected weight to be divisible by 3 at dimension 0",
          nb_conv2d(x, w, NULL, ONE2, ZERO4, ONE2, 3, NULL, &out));
    FAILS(NB_ERR_SHAPE, "Kernel size can't be greater than actual input size",
          nb_conv2d(x, wbig, NULL, ONE2, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_DTYPE, "conv2d: input type (float32) and weight type (float64) should be the same",
          nb_conv2d(x, wd, NULL, ONE2, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "conv2d: argument 'stride' is NULL",
          nb_conv2d(x, w, NULL, NULL, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "conv2d: tensor 'weight' is NULL",
          nb_conv2d(x, NULL, NULL, ONE2, ZERO4, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "conv2d: output pointer 'out' is NULL",
          nb_conv2d(x, w, NULL, ONE2, ZERO4, ONE2, 1, NULL, NULL));
    FAILS(NB_ERR_DTYPE, "conv2d: result type float32 can't be cast to the desired output type int64",
          nb_conv2d(x, w, NULL, ONE2, ZERO4, ONE2, 1, dst, &out));
    FAILS(NB_ERR_SHAPE, "conv_transpose2d: Given transposed=1, weight of size [4, 2, 3, 3]",
          nb_conv_transpose2d(x, wb, NULL, ONE2, ZERO2, ZERO2, ONE2, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "conv1d: expected input with 3 dims [N, C, L], got [2, 3, 5, 5]",
          nb_conv1d(x, w, NULL, 1, 0, 0, 1, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "max_pool2d: expected input with 4 dims", nb_max_pool2d(x3, k2, NULL, ZERO2, NULL, 0, NULL, NULL, &out));
    const int64_t k3[2] = {3, 3}, p2[2] = {2, 2};
    FAILS(NB_ERR_INVALID_ARGUMENT, "pad should be smaller than or equal to half of kernel size",
          nb_max_pool2d(x, k3, NULL, p2, NULL, 0, NULL, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "avg_pool2d: argument 'kernel_size' is NULL",
          nb_avg_pool2d(x, NULL, NULL, ZERO2, 0, 1, 0, NULL, &out));
    const int64_t ns[1] = {4};
    FAILS(NB_ERR_SHAPE, "layer_norm: Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3, 5, 5]",
          nb_layer_norm(x, ns, 1, NULL, NULL, 1e-5, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "batch_norm: running_mean must be defined in evaluation mode",
          nb_batch_norm(x, NULL, NULL, NULL, NULL, 0, 0.1, 1e-5, NULL, &out));
    FAILS(NB_ERR_SHAPE, "group_norm: Expected number of channels in input to be divisible by num_groups",
          nb_group_norm(x, 2, NULL, NULL, 1e-5, NULL, &out));
    FAILS(NB_ERR_INDEX, "cross_entropy: Target 7 is out of bounds.",
          nb_cross_entropy(logits, ti, NULL, -100, 1, 0.0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "nll_loss: 5 is not a valid value for reduction",
          nb_nll_loss(logits, ti, NULL, -100, 5, NULL, &out));
    FAILS(NB_ERR_DTYPE, "nll_loss: expected target dtype to be int64 or uint8",
          nb_nll_loss(logits, tf, NULL, -100, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "mse_loss: the size of tensor a (5) must match the size of tensor b (3)",
          nb_mse_loss(logits, tf, NULL, 1, NULL, &out));
    FAILS(NB_ERR_SHAPE, "binary_cross_entropy: target size [3] must be the same as input size [3, 5]",
          nb_binary_cross_entropy(logits, tf, NULL, 1, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "binary_cross_entropy: all elements of input should be between 0 and 1",
          nb_binary_cross_entropy(bad, tf, NULL, 1, NULL, &out));
    FAILS(NB_ERR_INDEX, "embedding: index out of range in self", nb_embedding(logits, ti, -1, NULL, &out));
    FAILS(NB_ERR_NOT_IMPLEMENTED, "pad: Padding size 2 is not supported for 4D input tensor.",
          nb_pad(x, k2, 2, 1, 0, NULL, &out));
    FAILS(NB_ERR_INVALID_ARGUMENT, "pad: Padding length must be divisible by 2", nb_pad(x, k2, 1, 0, 0, NULL, &out));
    CHECK_EQ_INT(live(), before);
    nb_tensor_release(x), nb_tensor_release(w), nb_tensor_release(wd), nb_tensor_release(wb);
    nb_tensor_release(x3), nb_tensor_release(wbig), nb_tensor_release(logits), nb_tensor_release(tf);
    nb_tensor_release(ti), nb_tensor_release(dst), nb_tensor_release(bad);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_conv2d_values_bias_padding_and_dst);
    RUN(test_conv2d_threaded_matches_naive_loop);
    RUN(test_conv1d_and_transpose);
    RUN(test_pooling);
    RUN(test_norms);
    RUN(test_losses);
    RUN(test_embedding_and_pad);
    RUN(test_bad_inputs_fail_cleanly);
    return NBT_END();
}
