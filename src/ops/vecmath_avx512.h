/* vecmath_avx512.h: AVX-512 exp, expm1, tanh, sigmoid, silu and sqrt (float32
 * and float64) and log (float32) on whole vectors, with the instructions plain C cannot ask for: vrndscale
 * (round to integer), vscalef (x 2^n with overflow, gradual underflow and one
 * rounding), vgetexp / vgetmant (exponent and mantissa, subnormals included).
 * Same methods and error bounds as vecmath.h (Cody-Waite reduction, Taylor or
 * Cephes polynomials); about half the instructions. Included by unary_float.c
 * inside its AVX-512 region. */
#include <immintrin.h>

#define NB_RNE (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define NB_PS(c) _mm512_set1_ps(c)
#define NB_PD(c) _mm512_set1_pd(c)

/* x = n ln2 + r; returns r, n in *n (a float holding an integer). */
static inline __m512 nb_reduce16(__m512 x, __m512* n) {
    *n = _mm512_roundscale_ps(_mm512_mul_ps(x, NB_PS(NB_VM_LOG2EF)), NB_RNE);
    return _mm512_fnmadd_ps(*n, NB_PS(NB_VM_LN2LO_F), _mm512_fnmadd_ps(*n, NB_PS(NB_VM_LN2HI_F), x));
}

/* (e^r - 1 - r) / r^2, Taylor to r^7 / 7!. */
static inline __m512 nb_expm1_q16(__m512 r) {
    __m512 q = _mm512_fmadd_ps(NB_PS(1.f / 5040), r, NB_PS(1.f / 720));
    q = _mm512_fmadd_ps(q, r, NB_PS(1.f / 120));
    q = _mm512_fmadd_ps(q, r, NB_PS(1.f / 24));
    q = _mm512_fmadd_ps(q, r, NB_PS(1.f / 6));
    return _mm512_fmadd_ps(q, r, NB_PS(0.5f));
}

/* exp: at most 1 ulp; max(lo, x) keeps NaN (vmaxps returns its second operand then). */
static inline __m512 nb_exp16(__m512 x) {
    x = _mm512_min_ps(NB_PS(88.8f), _mm512_max_ps(NB_PS(-104.f), x));
    __m512 n;
    const __m512 r = nb_reduce16(x, &n);
    const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), nb_expm1_q16(r), r);
    return _mm512_scalef_ps(_mm512_add_ps(p, NB_PS(1.f)), n);
}

/* expm1 = 2 (s p + (s - 1/2)), s = 2^(n-1), as vecmath.h. */
static inline __m512 nb_expm1_16(__m512 x) {
    const __m512 xc = _mm512_min_ps(NB_PS(88.8f), _mm512_max_ps(NB_PS(-18.f), x));
    __m512 n;
    const __m512 r = nb_reduce16(xc, &n);
    const __m512 p = _mm512_fmadd_ps(_mm512_mul_ps(r, r), nb_expm1_q16(r), r);
    const __m512 s = _mm512_scalef_ps(NB_PS(0.5f), n);
    const __m512 t = _mm512_fmadd_ps(s, p, _mm512_sub_ps(s, NB_PS(0.5f)));
    const __mmask16 tiny = _mm512_cmp_ps_mask(_mm512_abs_ps(x), NB_PS(0x1p-25f), _CMP_LT_OQ);
    return _mm512_mask_mov_ps(_mm512_add_ps(t, t), tiny, x);
}

/* tanh(|x|) = expm1(2|x|) / (expm1(2|x|) + 2) with x's sign: at most 2 ulp. */
static inline __m512 nb_tanh16(__m512 x) {
    const __m512 a = _mm512_min_ps(NB_PS(9.1f), _mm512_abs_ps(x)); /* NaN stays */
    const __m512 em = nb_expm1_16(_mm512_add_ps(a, a));
    const __m512 t = _mm512_div_ps(em, _mm512_add_ps(em, NB_PS(2.f)));
    const __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(t), sign));
}

/* log: x = 2^e m, m in [sqrt(1/2), sqrt(2)), Cephes' polynomial (vecmath.h). Zero,
 * negatives, inf and NaN (fpclass) take a slow path for their exact values. */
static inline __m512 nb_log16(__m512 x) {
    __m512 e = _mm512_getexp_ps(x);
    __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    const __mmask16 big = _mm512_cmp_ps_mask(m, NB_PS(1.41421356f), _CMP_GT_OQ);
    m = _mm512_mask_mul_ps(m, big, m, NB_PS(0.5f));
    e = _mm512_mask_add_ps(e, big, e, NB_PS(1.f));
    const __m512 f = _mm512_sub_ps(m, NB_PS(1.f));
    __m512 p = _mm512_fmadd_ps(NB_PS(7.0376836292e-2f), f, NB_PS(-1.1514610310e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(1.1676998740e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(-1.2420140846e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(1.4249322787e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(-1.6668057665e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(2.0000714765e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(-2.4999993993e-1f));
    p = _mm512_fmadd_ps(p, f, NB_PS(3.3333331174e-1f));
    const __m512 z = _mm512_mul_ps(f, f);
    __m512 y = _mm512_fmadd_ps(_mm512_mul_ps(f, z), p, _mm512_mul_ps(e, NB_PS(NB_VM_LN2LO_F)));
    y = _mm512_fmadd_ps(NB_PS(-0.5f), z, y);
    __m512 res = _mm512_fmadd_ps(e, NB_PS(NB_VM_LN2HI_F), _mm512_add_ps(f, y));
    /* QNaN, +-0, +inf, -inf, negative, SNaN */
    const __mmask16 special = _mm512_fpclass_ps_mask(x, 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x40 | 0x80);
    if (special) {
        const __m512 zero_to = NB_PS(-INFINITY), neg_to = NB_PS(NAN);
        const __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ);
        const __mmask16 neg = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
        res = _mm512_mask_add_ps(res, special, x, x); /* +inf, NaN */
        res = _mm512_mask_mov_ps(res, neg, neg_to);
        res = _mm512_mask_mov_ps(res, zero, zero_to);
    }
    return res;
}

/* x = n ln2 + r and (e^r - 1 - r) / r^2 in float64, Taylor to r^13 / 13!. */
static inline __m512d nb_reduce8(__m512d x, __m512d* n) {
    *n = _mm512_roundscale_pd(_mm512_mul_pd(x, NB_PD(NB_VM_LOG2E)), NB_RNE);
    return _mm512_fnmadd_pd(*n, NB_PD(NB_VM_LN2LO), _mm512_fnmadd_pd(*n, NB_PD(NB_VM_LN2HI), x));
}
static inline __m512d nb_expm1_q8(__m512d r) {
    static const double c[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
                               1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,       1.0 / 720.0,
                               1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,          0.5};
    __m512d q = NB_PD(c[0]);
    for (int k = 1; k < 12; k++) q = _mm512_fmadd_pd(q, r, NB_PD(c[k]));
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

/* o[0..n) = F(a[0..n)) over whole vectors and a masked tail. */
#define NB_ARRAY16(NAME, F)                                                                           \
    static void NAME(float* o, const float* a, int64_t n) {                                           \
        int64_t i = 0;                                                                                 \
        for (; i + 16 <= n; i += 16) _mm512_storeu_ps(o + i, F(_mm512_loadu_ps(a + i)));              \
        if (i < n) {                                                                                   \
            const __mmask16 m = (__mmask16)((1u << (n - i)) - 1);                                      \
            _mm512_mask_storeu_ps(o + i, m, F(_mm512_maskz_loadu_ps(m, a + i)));                       \
        }                                                                                              \
    }
#define NB_ARRAY8(NAME, F)                                                                            \
    static void NAME(double* o, const double* a, int64_t n) {                                         \
        int64_t i = 0;                                                                                 \
        for (; i + 8 <= n; i += 8) _mm512_storeu_pd(o + i, F(_mm512_loadu_pd(a + i)));               \
        if (i < n) {                                                                                   \
            const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);                                       \
            _mm512_mask_storeu_pd(o + i, m, F(_mm512_maskz_loadu_pd(m, a + i)));                       \
        }                                                                                              \
    }

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

NB_ARRAY16(nb_exp_f32_avx512, nb_exp16)
NB_ARRAY16(nb_expm1_f32_avx512, nb_expm1_16)
NB_ARRAY16(nb_tanh_f32_avx512, nb_tanh16)
NB_ARRAY16(nb_log_f32_avx512, nb_log16)
NB_ARRAY16(nb_sigmoid_f32_avx512, nb_sigmoid16)
NB_ARRAY16(nb_silu_f32_avx512, nb_silu16)
NB_ARRAY16(nb_sqrt_f32_avx512, nb_sqrt16)
NB_ARRAY8(nb_exp_f64_avx512, nb_exp8)
NB_ARRAY8(nb_expm1_f64_avx512, nb_expm1_8)
NB_ARRAY8(nb_tanh_f64_avx512, nb_tanh8)
NB_ARRAY8(nb_sqrt_f64_avx512, nb_sqrt8)
NB_ARRAY8(nb_sigmoid_f64_avx512, nb_sigmoid8)
NB_ARRAY8(nb_silu_f64_avx512, nb_silu8)
