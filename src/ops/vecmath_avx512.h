/* vecmath_avx512.h: AVX-512 kernels on whole vectors: exp, expm1, tanh, sigmoid,
 * silu, elu, sqrt, rsqrt and log (float32 and float64) and erf and gelu (float32),
 * with
 * the instructions plain C cannot ask for: vrndscale (round to integer), vscalef
 * (x 2^n with overflow, gradual underflow and one rounding), vgetexp / vgetmant,
 * vrcp14 / vrsqrt14 estimates, vpermps tables. Cody-Waite reduction and fitted
 * polynomials; each kernel states its method and error (measured by
 * tests/test_vecmath.py). Included by unary_float.c inside its AVX-512 region, and with
 * NB_VM_NO_ARRAYS (the vector kernels only, not the array loops) by reduce_stats.c. */
#include <immintrin.h>

#define NB_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define NB_PS(c) _mm512_set1_ps(c)
#define NB_PD(c) _mm512_set1_pd(c)

/* x = n ln2 + r; returns r, n in *n (a float holding an integer). */
static inline __m512 nb_reduce16(__m512 x, __m512* n) {
    *n = _mm512_roundscale_ps(_mm512_mul_ps(x, NB_PS(NB_VM_LOG2EF)), NB_RNE);
    return _mm512_fnmadd_ps(*n, NB_PS(NB_VM_LN2LO_F), _mm512_fnmadd_ps(*n, NB_PS(NB_VM_LN2HI_F), x));
}

/* (e^r - 1 - r) / r^2 for |r| <= ln2/2: degree 4, least squares on Chebyshev nodes
 * (relative error of e^r: 0.7 ulp with float32 coefficients); exp uses it too. */
static inline __m512 nb_expm1_q16(__m512 r) {
    __m512 q = _mm512_fmadd_ps(NB_PS(0.0013751382939517498f), r, NB_PS(0.008368926122784615f));
    q = _mm512_fmadd_ps(q, r, NB_PS(0.04166953265666962f));
    q = _mm512_fmadd_ps(q, r, NB_PS(0.166665181517601f));
    return _mm512_fmadd_ps(q, r, NB_PS(0.49999988079071045f));
}

/* x clamped to [-c, c]; vmaxps / vminps return their second operand on NaN, so NaN stays. */
#define NB_CLAMP_ABS16(x, c) _mm512_min_ps(NB_PS(c), _mm512_max_ps(NB_PS(-(c)), x))

/* exp: e^r = 1 + r (1 + r q(r)) by Horner, 2^n by vscalef (overflow to inf, gradual
 * underflow, one rounding). At most 1 ulp. */
static inline __m512 nb_exp16(__m512 x) {
    __m512 n;
    const __m512 r = nb_reduce16(NB_CLAMP_ABS16(x, 104.f), &n);
    const __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(nb_expm1_q16(r), r, NB_PS(1.f)), r, NB_PS(1.f));
    return _mm512_scalef_ps(p, n);
}

/* expm1 = 2 (s p + (s - 1/2)), s = 2^(n-1), as vecmath.h. */
static inline __m512 nb_expm1_16(__m512 x) {
    __m512 n;
    const __m512 r = nb_reduce16(NB_CLAMP_ABS16(x, 88.8f), &n); /* expm1(-88.8) is -1 */
    const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), nb_expm1_q16(r), r);
    const __m512 s = _mm512_scalef_ps(NB_PS(0.5f), n);
    const __m512 t = _mm512_fmadd_ps(s, p, _mm512_sub_ps(s, NB_PS(0.5f)));
    const __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_abs_ps(x), NB_PS(0x1p-25f), _CMP_LT_OQ);
    return _mm512_mask_mov_ps(_mm512_add_ps(t, t), tiny, x);
}

/* tanh(a) = u / (u + 1) with u = expm1(2a) / 2, a = |x| <= 9.1, x's sign put back.
 * 2a = n ln2 + 2h, so u = S (h + h^2 q3(h)) + (S - 1) / 2 with S = 2^n and
 * q3(h) = 2 q(2h) (nb_expm1_q16's coefficients times powers of two: exact); no
 * clamps or tiny-x select needed (a subnormal a comes out within an ulp). At most 3 ulp. */
static inline __m512 nb_tanh16(__m512 x) {
    const __m512 a = _mm512_min_ps(NB_PS(9.1f), _mm512_abs_ps(x)); /* NaN stays */
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(a, NB_PS(2 * NB_VM_LOG2EF)), NB_RNE);
    const __m512 h = _mm512_fnmadd_ps(n, NB_PS(NB_VM_LN2LO_F / 2), _mm512_fnmadd_ps(n, NB_PS(NB_VM_LN2HI_F / 2), a));
    __m512 q = _mm512_fmadd_ps(NB_PS(32 * 0.0013751382939517498f), h, NB_PS(16 * 0.008368926122784615f));
    q = _mm512_fmadd_ps(q, h, NB_PS(8 * 0.04166953265666962f));
    q = _mm512_fmadd_ps(q, h, NB_PS(4 * 0.166665181517601f));
    q = _mm512_fmadd_ps(q, h, NB_PS(2 * 0.49999988079071045f));
    const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(h, h), q, h);
    const __m512 s = _mm512_scalef_ps(NB_PS(1.f), n);
    const __m512 u = _mm512_fmadd_ps(s, p, _mm512_fmadd_ps(s, NB_PS(0.5f), NB_PS(-0.5f)));
    const __m512 t = _mm512_div_ps(u, _mm512_add_ps(u, NB_PS(1.f)));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
}

/* erf: x + x P(x^2) for |x| < 0.921875 (P of degree 5); 1 - exp(Q(|x|)) with x's
 * sign above, Q of degree 7 fitted to log erfc on [0.921875, 4] (weighted by erfc,
 * so erf's absolute error is what is bounded); 1 past 4. Least-squares fits on
 * Chebyshev nodes, float32 coefficients; within 2 ulp. */
static inline __m512 nb_erf_small16(__m512 x) { /* |x| < 0.921875 */
    const __m512 s = _mm512_mul_ps(x, x);
    __m512 p = _mm512_fmadd_ps(NB_PS(-0.0005986210890114307f), s, NB_PS(0.004992183297872543f));
    p = _mm512_fmadd_ps(p, s, NB_PS(-0.026765864342451096f));
    p = _mm512_fmadd_ps(p, s, NB_PS(0.1128179281949997f));
    p = _mm512_fmadd_ps(p, s, NB_PS(-0.37612491846084595f));
    p = _mm512_fmadd_ps(p, s, NB_PS(0.12837915122509003f));
    return _mm512_fmadd_ps(x, p, x);
}
static inline __m512 nb_erf16(__m512 x) {
    const __m512 small = nb_erf_small16(x);
    const __m512 t = _mm512_min_ps(NB_PS(4.f), _mm512_abs_ps(x)); /* NaN stays */
    __m512 q = _mm512_fmadd_ps(NB_PS(-2.1380406906246208e-05f), t, NB_PS(0.0004376470751594752f));
    q = _mm512_fmadd_ps(q, t, NB_PS(-0.004185951314866543f));
    q = _mm512_fmadd_ps(q, t, NB_PS(0.025157248601317406f));
    q = _mm512_fmadd_ps(q, t, NB_PS(-0.10833650082349777f));
    q = _mm512_fmadd_ps(q, t, NB_PS(-0.6332974433898926f));
    q = _mm512_fmadd_ps(q, t, NB_PS(-1.1295385360717773f));
    q = _mm512_fmadd_ps(q, t, NB_PS(0.00017941946862265468f));
    const __m512 big = _mm512_sub_ps(NB_PS(1.f), nb_exp16(q));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u));
    const __m512 sbig = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(big), sign));
    return _mm512_mask_mov_ps(sbig, _mm512_cmp_ps_mask(t, NB_PS(0.921875f), _CMP_LT_OQ), small);
}

/* gelu(x) = x/2 erfc(-x / sqrt 2); nb_gelu_parts16 returns erfc(|x| / sqrt 2) = m 2^n and
 * e^(-x^2/2) = ex 2^n. With a = |x| / sqrt 2, erfc(a) = e^(-a^2) erfcx(a):
 * erfcx by a rational fit P/Q of degrees 4 and 5 on [0, 10.5] (relative error 6e-9,
 * 2.4e-8 with float32 coefficients; nothing cancels, a = 0 included); e^(-a^2) from
 * x^2 = xx + e exactly (FMA), by a Cody-Waite reduction that is exact for xx/2 (n ln2hi
 * is exact, and so is xx/2 - n ln2hi: fewer than 24 bits). So the relative error does
 * not grow in the negative tail: within 7 ulp (0.8 on average; the Horner chains of P
 * and Q round up to 3 ulp each) down to the underflow, where PyTorch's
 * x/2 (1 + erf(x / sqrt 2)) is 17% off at x = -5 and 0 from -5.5. x > 0: x/2 (2 - erfc(a)). */
static inline __m512 nb_gelu_parts16(__m512 x, __m512* ex, __m512* n) {
    const __m512 ax = _mm512_min_ps(NB_PS(15.f), _mm512_abs_ps(x)); /* erfc(15 / sqrt 2) < 2^-160; NaN stays */
    const __m512 a = _mm512_mul_ps(ax, NB_PS(0.70710677f));
    __m512 p = _mm512_fmadd_ps(NB_PS(3.313959000e-02f), a, NB_PS(2.308493894e-01f));
    __m512 q = _mm512_fmadd_ps(NB_PS(5.873774912e-02f), a, NB_PS(4.091947368e-01f));
    p = _mm512_fmadd_ps(p, a, NB_PS(7.350202420e-01f));
    q = _mm512_fmadd_ps(q, a, NB_PS(1.331746308e+00f));
    p = _mm512_fmadd_ps(p, a, NB_PS(1.241666231e+00f));
    q = _mm512_fmadd_ps(q, a, NB_PS(2.409320834e+00f));
    p = _mm512_fmadd_ps(p, a, NB_PS(1.f));
    q = _mm512_fmadd_ps(q, a, NB_PS(2.370046018e+00f));
    q = _mm512_fmadd_ps(q, a, NB_PS(1.f));
    const __m512 xx = _mm512_mul_ps(ax, ax);
    const __m512 e = _mm512_fmsub_ps(ax, ax, xx); /* ax^2 - xx, exact */
    const __m512 s = _mm512_mul_ps(xx, NB_PS(0.5f));
    *n = _mm512_roundscale_ps(_mm512_mul_ps(s, NB_PS(-NB_VM_LOG2EF)), NB_RNE);
    __m512 r = _mm512_fnmsub_ps(*n, NB_PS(NB_VM_LN2HI_F), s); /* -s - n ln2hi, exact */
    r = _mm512_fnmadd_ps(e, NB_PS(0.5f), _mm512_fnmadd_ps(*n, NB_PS(NB_VM_LN2LO_F), r));
    *ex = _mm512_fmadd_ps(_mm512_fmadd_ps(nb_expm1_q16(r), r, NB_PS(1.f)), r, NB_PS(1.f)); /* e^(-x^2/2) 2^-n */
    return _mm512_div_ps(_mm512_mul_ps(*ex, p), q); /* erfc(|x| / sqrt 2) 2^-n */
}

static inline __m512 nb_gelu16(__m512 x) {
    __m512 ex, n;
    const __m512 m = nb_gelu_parts16(x, &ex, &n);
    const __m512 hx = _mm512_mul_ps(x, NB_PS(0.5f));
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    /* x <= 0: x/2 goes in before the scaling, so that a subnormal result rounds once */
    const __m512 v = _mm512_scalef_ps(_mm512_mask_mul_ps(m, (__mmask16)~pos, m, hx), n);
    const __m512 g = _mm512_mask_mul_ps(v, pos, _mm512_sub_ps(NB_PS(2.f), v), hx);
    /* x <= -15: -0 (x/2 times 0; NaN for -inf, as PyTorch's formula gives) */
    return _mm512_mask_mul_ps(g, _mm512_cmp_ps_mask(x, NB_PS(-15.f), _CMP_LE_OQ), hx, _mm512_setzero_ps());
}

/* gelu'(x) = Phi(x) + x phi(x) from the same parts: Phi(x) = erfc(-x / sqrt 2) / 2 and
 * phi(x) = e^(-x^2/2) / sqrt(2 pi), both scaled by 2^n together (x <= 0) or
 * 1 + (x phi(x) - erfc(x / sqrt 2) / 2) (x > 0). |x| >= 15: 1 or -0, times NaN for
 * infinities (x times 0), as PyTorch's formula. */
static inline __m512 nb_gelu_grad16(__m512 x) {
    __m512 ex, n;
    const __m512 m = nb_gelu_parts16(x, &ex, &n);
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    const __m512 hm = _mm512_mul_ps(m, NB_PS(0.5f));
    const __m512 u = _mm512_fmadd_ps(_mm512_mul_ps(x, NB_PS(0.3989422804014327f)), ex,
                                     _mm512_mask_sub_ps(hm, pos, _mm512_setzero_ps(), hm));
    const __m512 v = _mm512_scalef_ps(u, n);
    const __m512 d = _mm512_mask_add_ps(v, pos, v, NB_PS(1.f));
    const __m512 z = _mm512_mul_ps(x, _mm512_setzero_ps());
    const __mmask16 far = _mm512_cmp_ps_mask(_mm512_abs_ps(x), NB_PS(15.f), _CMP_GE_OQ);
    return _mm512_mask_mov_ps(d, far, _mm512_mask_add_ps(z, pos, z, NB_PS(1.f)));
}

/* log as Intel's VML does it: r = 1/x estimated (vrcp14ps) and rounded to 5
 * fraction bits, so x r is exact in the FMA and f = x r - 1 is small (|f| < 2^-5.9);
 * log x = log1p(f) - log r with log r = E ln2 + log(1 + j/32) (E and j read off r's
 * bits, the 32 logarithms as float pairs in two vpermi2ps tables), log1p by Taylor
 * to f^5. Near 1, r rounds to exactly 1 and nothing cancels. Within 1.5 ulp.
 * Subnormal and huge x (r would leave the normal range) are scaled by 2^+-24 first;
 * zero, negatives, inf and NaN take their exact values. */
static inline __m512 nb_log16_core(__m512 x) {
    static const float H[32] = {
        0.0f, 0.0307716578f, 0.0606246218f, 0.0896121562f, 0.117783032f, 0.145182014f, 0.171850264f,
        0.197825745f, 0.223143548f, 0.247836158f, 0.271933705f, 0.295464218f, 0.318453729f, 0.340926588f,
        0.362905502f, 0.384411693f, 0.405465096f, 0.426084399f, 0.446287096f, 0.466089725f, 0.485507816f,
        0.504556f, 0.523248136f, 0.541597307f, 0.559615791f, 0.57731539f, 0.594707131f, 0.611801565f,
        0.628608644f, 0.645137966f, 0.66139847f, 0.677398801f};
    static const float L[32] = {
        0.0f, 8.42237391e-10f, 7.90594239e-12f, 2.53696197e-09f, 3.29869065e-09f, -3.66715991e-09f,
        -7.1457591e-09f, -1.41819567e-09f, 3.5408485e-09f, 6.22502361e-09f, 1.08690026e-08f, -4.76897544e-09f,
        1.96585526e-09f, -6.11041329e-10f, -8.62996785e-09f, 6.29100816e-09f, 1.18728893e-08f, -3.91242772e-09f,
        7.08169701e-09f, 4.43021442e-09f, -2.9457789e-10f, 1.05196989e-08f, 7.72099895e-09f, -2.4295618e-08f,
        -2.90854096e-09f, -2.50751917e-08f, -2.36391102e-08f, -2.35874573e-08f, 1.54137378e-08f,
        -4.30558389e-09f, 1.18436008e-08f, 2.27418919e-08f};
    const __m512i rb = _mm512_and_si512(_mm512_add_epi32(_mm512_castps_si512(_mm512_rcp14_ps(x)),
                                                         _mm512_set1_epi32(1 << 17)),
                                        _mm512_set1_epi32((int)0xFFFC0000u));
    const __m512 r = _mm512_castsi512_ps(rb);
    const __m512i j = _mm512_srli_epi32(rb, 18); /* vpermi2ps reads the low 5 bits */
    const __m512 e = _mm512_getexp_ps(r);
    const __m512 f = _mm512_fmsub_ps(x, r, NB_PS(1.f));
    __m512 p = _mm512_fmadd_ps(NB_PS(0.2f), f, NB_PS(-0.25f));
    p = _mm512_fmadd_ps(p, f, NB_PS(1.f / 3));
    const __m512 z = _mm512_mul_ps(f, f);
    const __m512 lo = _mm512_fmadd_ps(e, NB_PS(NB_VM_LN2LO_F), _mm512_permutex2var_ps(_mm512_loadu_ps(L), j,
                                                                                      _mm512_loadu_ps(L + 16)));
    __m512 y = _mm512_fmsub_ps(_mm512_mul_ps(f, z), p, lo);
    y = _mm512_fmadd_ps(NB_PS(-0.5f), z, y);
    const __m512 hi = _mm512_fnmsub_ps(e, NB_PS(NB_VM_LN2HI_F), _mm512_permutex2var_ps(_mm512_loadu_ps(H), j,
                                                                                      _mm512_loadu_ps(H + 16)));
    return _mm512_add_ps(hi, _mm512_add_ps(f, y));
}

static inline __m512 nb_log16(__m512 x) {
    __m512 res = nb_log16_core(x);
    /* outside [2^-126, 2^125] (zero, subnormal, negative, huge, inf, NaN): one unsigned compare of the bits */
    const __mmask16 odd = _mm512_cmpgt_epu32_mask(
        _mm512_sub_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(0x00800000)), _mm512_set1_epi32(0x7E000000 - 0x00800000));
    if (odd) {
        const __mmask16 sub = _mm512_fpclass_ps_mask(x, 0x20), huge = _mm512_cmp_ps_mask(x, NB_PS(0x1p125f), _CMP_GT_OQ);
        __m512 k = _mm512_mask_mov_ps(_mm512_setzero_ps(), sub, NB_PS(-24.f));
        k = _mm512_mask_mov_ps(k, huge & ~_mm512_fpclass_ps_mask(x, 0x08), NB_PS(24.f));
        const __m512 scaled = nb_log16_core(_mm512_scalef_ps(x, _mm512_sub_ps(_mm512_setzero_ps(), k)));
        const __m512 fixed = _mm512_fmadd_ps(k, NB_PS(NB_VM_LN2HI_F), _mm512_fmadd_ps(k, NB_PS(NB_VM_LN2LO_F), scaled));
        res = _mm512_mask_mov_ps(res, _mm512_cmp_ps_mask(k, _mm512_setzero_ps(), _CMP_NEQ_OQ), fixed);
        const __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ);
        const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
        res = _mm512_mask_add_ps(res, _mm512_fpclass_ps_mask(x, 0x01 | 0x08 | 0x80), x, x); /* +inf, NaN */
        res = _mm512_mask_mov_ps(res, neg, NB_PS(NAN));
        res = _mm512_mask_mov_ps(res, zero, NB_PS(-INFINITY));
    }
    return res;
}

/* log in float64: x = 2^e m with m in [3/4, 3/2) (vgetmant), m c - 1 = f with c the
 * reciprocal of the centre of m's 1/16-wide interval (13 intervals, the one around
 * 1 with c = 1, so log(1 + tiny) loses nothing), log x = e ln2 - log c + log1p(f),
 * |f| <= 1/24, log1p by Taylor to f^12 (truncation < 2^-56). Within 2 ulp. */
static inline __m512d nb_log8(__m512d x) {
    static const double C[16] = {1.3333333333333333, 1.2307692307692308, 1.1428571428571428, 1.0666666666666667,
                                 1.0, 0.9411764705882353, 0.8888888888888888, 0.8421052631578947, 0.8,
                                 0.7619047619047619, 0.7272727272727273, 0.6956521739130435, 0.6666666666666666,
                                 1.0, 1.0, 1.0};
    static const double L[16] = {-0.28768207245178085, -0.20763936477824455, -0.13353139262452257,
                                 -0.06453852113757116, 0.0, 0.060624621816434854, 0.11778303565638351,
                                 0.17185025692665928, 0.2231435513142097, 0.2719337154836418,
                                 0.3184537311185346, 0.3629054936893685, 0.40546510810816444, 0.0, 0.0, 0.0};
    const __m512d m = _mm512_getmant_pd(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_src);
    __m512d e = _mm512_getexp_pd(x);
    e = _mm512_mask_add_pd(e, _mm512_cmp_pd_mask(m, NB_PD(1.0), _CMP_LT_OQ), e, NB_PD(1.0));
    const __m512i j = _mm512_cvttpd_epi64(_mm512_mul_pd(_mm512_sub_pd(m, NB_PD(0.71875)), NB_PD(16.0)));
    const __m512d c = _mm512_permutex2var_pd(_mm512_loadu_pd(C), j, _mm512_loadu_pd(C + 8));
    const __m512d mlc = _mm512_permutex2var_pd(_mm512_loadu_pd(L), j, _mm512_loadu_pd(L + 8));
    const __m512d f = _mm512_fmadd_pd(m, c, NB_PD(-1.0));
    __m512d p = NB_PD(-1.0 / 12);
    for (int k = 11; k >= 3; k--) p = _mm512_fmadd_pd(p, f, NB_PD((k % 2 ? 1.0 : -1.0) / k));
    const __m512d z = _mm512_mul_pd(f, f);
    __m512d y = _mm512_fmadd_pd(_mm512_mul_pd(f, z), p, _mm512_mul_pd(e, NB_PD(NB_VM_LN2LO)));
    y = _mm512_fmadd_pd(NB_PD(-0.5), z, y);
    __m512d res = _mm512_add_pd(_mm512_fmadd_pd(e, NB_PD(NB_VM_LN2HI), mlc), _mm512_add_pd(f, y));
    const __mmask8 special = _mm512_fpclass_pd_mask(x, 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x40 | 0x80);
    if (special) {
        const __mmask8 zero = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_EQ_OQ);
        const __mmask8 neg = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_LT_OQ);
        res = _mm512_mask_add_pd(res, special, x, x); /* +inf, NaN */
        res = _mm512_mask_mov_pd(res, neg, NB_PD(NAN));
        res = _mm512_mask_mov_pd(res, zero, NB_PD(-INFINITY));
    }
    return res;
}

/* x = n ln2 + r, and (e^r - 1 - r) / r^2 in float64 by a degree-9 Chebyshev fit
 * (mpmath.chebyfit on [-ln2/2, ln2/2]: 0.15 ulp of e^r). */
static inline __m512d nb_reduce8(__m512d x, __m512d* n) {
    *n = _mm512_roundscale_pd(_mm512_mul_pd(x, NB_PD(NB_VM_LOG2E)), NB_RNE);
    return _mm512_fnmadd_pd(*n, NB_PD(NB_VM_LN2LO), _mm512_fnmadd_pd(*n, NB_PD(NB_VM_LN2HI), x));
}
static inline __m512d nb_expm1_q8(__m512d r) {
    static const double c[] = {2.510038549551032e-08, 2.7620088445409746e-07, 2.7557268459997064e-06,
                               2.4801521295954376e-05, 0.00019841269863053618, 0.0013888888917213717,
                               0.008333333333330062, 0.04166666666662413, 0.16666666666666669,
                               0.5000000000000001};
    __m512d q = NB_PD(c[0]);
    for (int k = 1; k < 10; k++) q = _mm512_fmadd_pd(q, r, NB_PD(c[k]));
    return q;
}

/* exp, expm1 and tanh in float64, as the float32 ones: at most 1, 1 and 2 ulp. */
static inline __m512d nb_exp8(__m512d x) {
    x = _mm512_min_pd(NB_PD(709.9), _mm512_max_pd(NB_PD(-746.0), x));
    __m512d n;
    const __m512d r = nb_reduce8(x, &n);
    const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), nb_expm1_q8(r), r);
    return _mm512_scalef_pd(_mm512_add_pd(p, NB_PD(1.0)), n);
}

static inline __m512d nb_expm1_8(__m512d x) {
    const __m512d xc = _mm512_min_pd(NB_PD(709.9), _mm512_max_pd(NB_PD(-40.0), x));
    __m512d n;
    const __m512d r = nb_reduce8(xc, &n);
    const __m512d p = _mm512_fmadd_pd(_mm512_mul_pd(r, r), nb_expm1_q8(r), r);
    const __m512d s = _mm512_scalef_pd(NB_PD(0.5), n);
    const __m512d t = _mm512_fmadd_pd(s, p, _mm512_sub_pd(s, NB_PD(0.5)));
    const __mmask8 tiny = _mm512_cmp_pd_mask(_mm512_abs_pd(x), NB_PD(0x1p-54), _CMP_LT_OQ);
    return _mm512_mask_mov_pd(_mm512_add_pd(t, t), tiny, x);
}

static inline __m512d nb_tanh8(__m512d x) {
    const __m512d a = _mm512_min_pd(NB_PD(19.1), _mm512_abs_pd(x));
    const __m512d em = nb_expm1_8(_mm512_add_pd(a, a));
    const __m512d t = _mm512_div_pd(em, _mm512_add_pd(em, NB_PD(2.0)));
    const __m512i sign = _mm512_and_si512(_mm512_castpd_si512(x), _mm512_set1_epi64((long long)0x8000000000000000ull));
    return _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(t), sign));
}

/* sqrt from the reciprocal square root estimate (14 bits), twice the throughput
 * of vsqrtps / vsqrtpd: y = x r, e = x - y^2, y += e r / 2 (one Markstein step,
 * within 1 ulp, mostly correctly rounded); float64 first refines r twice with
 * r *= 3/2 - x r^2 / 2. +-0, +inf and subnormals (which the estimate flushes)
 * take the exact instruction; negatives and NaN give NaN through the estimate. */
static inline __m512 nb_sqrt16(__m512 x) {
    const __m512 r = _mm512_rsqrt14_ps(x);
    __m512 y = _mm512_mul_ps(x, r);
    const __m512 e = _mm512_fnmadd_ps(y, y, x);
    y = _mm512_fmadd_ps(e, _mm512_mul_ps(r, NB_PS(0.5f)), y);
    const __mmask16 special = _mm512_fpclass_ps_mask(x, 0x02 | 0x04 | 0x08 | 0x20);
    return special ? _mm512_mask_sqrt_ps(y, special, x) : y;
}

static inline __m512d nb_sqrt8(__m512d x) {
    __m512d r = _mm512_rsqrt14_pd(x);
    const __m512d hx = _mm512_mul_pd(x, NB_PD(0.5));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(hx, r), r, NB_PD(1.5)));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(hx, r), r, NB_PD(1.5)));
    __m512d y = _mm512_mul_pd(x, r);
    const __m512d e = _mm512_fnmadd_pd(y, y, x);
    y = _mm512_fmadd_pd(e, _mm512_mul_pd(r, NB_PD(0.5)), y);
    const __mmask8 special = _mm512_fpclass_pd_mask(x, 0x02 | 0x04 | 0x08 | 0x20);
    return special ? _mm512_mask_sqrt_pd(y, special, x) : y;
}

/* o[0..n) = F(a[0..n)) over whole vectors and a masked tail; PRE may read ctx. */
#define NB_ARRAY16(NAME, PRE, F)                                                                      \
    static void NAME(float* o, const float* a, int64_t n, const nb_ew_ctx* ctx) {                     \
        (void)ctx;                                                                                     \
        PRE;                                                                                           \
        int64_t i = 0;                                                                                 \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, F(_mm512_loadu_ps(a + i)));              \
        if (i < n) {                                                                                   \
            const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                      \
            _mm512_mask_storeu_ps(o + i, m, F(_mm512_maskz_loadu_ps(m, a + i)));                       \
        }                                                                                              \
    }
#define NB_ARRAY8(NAME, PRE, F)                                                                       \
    static void NAME(double* o, const double* a, int64_t n, const nb_ew_ctx* ctx) {                   \
        (void)ctx;                                                                                     \
        PRE;                                                                                           \
        int64_t i = 0;                                                                                 \
        for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, F(_mm512_loadu_pd(a + i)));               \
        if (i < n) {                                                                                   \
            const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);                                       \
            _mm512_mask_storeu_pd(o + i, m, F(_mm512_maskz_loadu_pd(m, a + i)));                       \
        }                                                                                              \
    }

/* rsqrt: the estimate refined by Newton steps r *= 3/2 - x r^2 / 2 (one for float32,
 * two for float64: within 2 ulp); +-0, +inf and subnormals take 1 / sqrt(x). */
static inline __m512 nb_rsqrt16(__m512 x) {
    __m512 r = _mm512_rsqrt14_ps(x);
    r = _mm512_mul_ps(r, _mm512_fnmadd_ps(_mm512_mul_ps(_mm512_mul_ps(x, NB_PS(0.5f)), r), r, NB_PS(1.5f)));
    const __mmask16 special = _mm512_fpclass_ps_mask(x, 0x02 | 0x04 | 0x08 | 0x20);
    return special ? _mm512_mask_div_ps(r, special, NB_PS(1.f), _mm512_sqrt_ps(x)) : r;
}
static inline __m512d nb_rsqrt8(__m512d x) {
    __m512d r = _mm512_rsqrt14_pd(x);
    const __m512d hx = _mm512_mul_pd(x, NB_PD(0.5));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(hx, r), r, NB_PD(1.5)));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(hx, r), r, NB_PD(1.5)));
    r = _mm512_mul_pd(r, _mm512_fnmadd_pd(_mm512_mul_pd(hx, r), r, NB_PD(1.5)));
    const __mmask8 special = _mm512_fpclass_pd_mask(x, 0x02 | 0x04 | 0x08 | 0x20);
    return special ? _mm512_mask_div_pd(r, special, NB_PD(1.0), _mm512_sqrt_pd(x)) : r;
}

/* elu: x where x > 0, alpha expm1(x) elsewhere; expm1 is skipped when no lane needs it. */
static inline __m512 nb_elu16(__m512 x, __m512 alpha) {
    const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    if (pos == 0xFFFF) return x;
    return _mm512_mask_mov_ps(_mm512_mul_ps(alpha, nb_expm1_16(x)), pos, x);
}
static inline __m512d nb_elu8(__m512d x, __m512d alpha) {
    const __mmask8 pos = _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_GT_OQ);
    if (pos == 0xFF) return x;
    return _mm512_mask_mov_pd(_mm512_mul_pd(alpha, nb_expm1_8(x)), pos, x);
}
#define NB_ELU16(v) nb_elu16(v, alpha)
#define NB_ELU8(v) nb_elu8(v, alpha)

/* sigmoid as vecmath.h: 1 / (1 + e) or e / (1 + e) with e = exp(-|x|); silu = x sigmoid(x). */
static inline __m512 nb_sigmoid16(__m512 x) {
    const __m512 e = nb_exp16(_mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(x)));
    const __m512 s = _mm512_div_ps(NB_PS(1.f), _mm512_add_ps(NB_PS(1.f), e));
    return _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ), e, s);
}
static inline __m512 nb_silu16(__m512 x) { return _mm512_mul_ps(x, nb_sigmoid16(x)); }
static inline __m512d nb_sigmoid8(__m512d x) {
    const __m512d e = nb_exp8(_mm512_sub_pd(_mm512_setzero_pd(), _mm512_abs_pd(x)));
    const __m512d s = _mm512_div_pd(NB_PD(1.0), _mm512_add_pd(NB_PD(1.0), e));
    return _mm512_mask_mul_pd(s, _mm512_cmp_pd_mask(x, _mm512_setzero_pd(), _CMP_NGE_UQ), e, s);
}
static inline __m512d nb_silu8(__m512d x) { return _mm512_mul_pd(x, nb_sigmoid8(x)); }

#ifndef NB_VM_NO_ARRAYS
NB_ARRAY16(nb_exp_f32_avx512, (void)0, nb_exp16)
NB_ARRAY16(nb_expm1_f32_avx512, (void)0, nb_expm1_16)
NB_ARRAY16(nb_tanh_f32_avx512, (void)0, nb_tanh16)
NB_ARRAY16(nb_log_f32_avx512, (void)0, nb_log16)
NB_ARRAY16(nb_erf_f32_avx512, (void)0, nb_erf16)
NB_ARRAY16(nb_gelu_f32_avx512, (void)0, nb_gelu16)
/* o = g gelu'(x) over contiguous runs. */
static void nb_gelu_backward_f32_avx512(float* o, const float* g, const float* a, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(o + i, _mm512_mul_ps(_mm512_loadu_ps(g + i), nb_gelu_grad16(_mm512_loadu_ps(a + i))));
    if (i < n) {
        const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(o + i, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, g + i),
                                                      nb_gelu_grad16(_mm512_maskz_loadu_ps(m, a + i))));
    }
}
NB_ARRAY16(nb_sigmoid_f32_avx512, (void)0, nb_sigmoid16)
NB_ARRAY16(nb_silu_f32_avx512, (void)0, nb_silu16)
NB_ARRAY16(nb_sqrt_f32_avx512, (void)0, nb_sqrt16)
NB_ARRAY8(nb_exp_f64_avx512, (void)0, nb_exp8)
NB_ARRAY8(nb_log_f64_avx512, (void)0, nb_log8)
NB_ARRAY8(nb_expm1_f64_avx512, (void)0, nb_expm1_8)
NB_ARRAY8(nb_tanh_f64_avx512, (void)0, nb_tanh8)
NB_ARRAY8(nb_sqrt_f64_avx512, (void)0, nb_sqrt8)
NB_ARRAY16(nb_rsqrt_f32_avx512, (void)0, nb_rsqrt16)
NB_ARRAY8(nb_rsqrt_f64_avx512, (void)0, nb_rsqrt8)
NB_ARRAY16(nb_elu_f32_avx512, const __m512 alpha = _mm512_set1_ps((float)ctx->alpha), NB_ELU16)
NB_ARRAY8(nb_elu_f64_avx512, const __m512d alpha = _mm512_set1_pd(ctx->alpha), NB_ELU8)
NB_ARRAY8(nb_sigmoid_f64_avx512, (void)0, nb_sigmoid8)
NB_ARRAY8(nb_silu_f64_avx512, (void)0, nb_silu8)
#endif
