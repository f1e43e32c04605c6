/* reduce_avx512.h: AVX-512 runs of the reduction kernels, written with
 * intrinsics where GCC's generic vectors lower badly (a max built from a
 * compare and a blend; float -> double widening as four 128-bit converts).
 *
 * They carry target("arch=x86-64-v4"), so GCC inlines them into the
 * x86-64-v4 clones of the NB_SIMD kernels; a caller takes them only when
 * nb_red_avx512() says so (the CPU has AVX-512 and NABLA_CPU_CAPABILITY does
 * not cap it), else the portable loop. max / min equal the portable loops';
 * the product rounds in another order (one rounding of a double product). */
#ifndef NABLA_OPS_REDUCE_AVX512_H_
#define NABLA_OPS_REDUCE_AVX512_H_

#include "../cpu/capability.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define NB_RED_HAVE_AVX512 1
#include <immintrin.h>

static inline bool nb_red_avx512(void) { return nb_cpu_capability_fast() >= NB_CPU_AVX512; }

#pragma GCC push_options
#pragma GCC target("arch=x86-64-v4")

/* max / min of p[0..n) (n >= 16 floats / 8 doubles) folded into v; NaN if
 * any is NaN. _mm512_max_ps(x, a) is x > a ? x : a, so a NaN in x leaves a
 * alone and is caught by the unordered compare. */
#define NB_EXT512(NAME, T, W, VT, MASK, KOR, LOAD, EXT, CMP, RED)                                              \
    static inline T NAME(const T* p, int64_t n, T v) {                                                 \
        VT a0 = LOAD(p), a1 = a0, a2 = a0, a3 = a0;                                                    \
        MASK nanv = CMP(a0, a0, _CMP_UNORD_Q); /* a pair is unordered when either is NaN */             \
        int64_t i = (W);                                                                               \
        for (; i + 4 * (W) <= n; i += 4 * (W)) {                                                       \
            const VT x0 = LOAD(p + i), x1 = LOAD(p + i + (W));                                         \
            const VT x2 = LOAD(p + i + 2 * (W)), x3 = LOAD(p + i + 3 * (W));                           \
            a0 = EXT(x0, a0), a1 = EXT(x1, a1), a2 = EXT(x2, a2), a3 = EXT(x3, a3);                    \
            nanv = KOR(nanv, KOR(CMP(x0, x1, _CMP_UNORD_Q), CMP(x2, x3, _CMP_UNORD_Q)));              \
        }                                                                                              \
        for (; i + (W) <= n; i += (W)) {                                                               \
            const VT x = LOAD(p + i);                                                                  \
            a0 = EXT(x, a0);                                                                           \
            nanv = KOR(nanv, CMP(x, x, _CMP_UNORD_Q));                                                 \
        }                                                                                              \
        a0 = EXT(EXT(a1, a0), EXT(a3, a2));                                                            \
        T r = RED(a0);                                                                                 \
        bool nan = nanv != 0;                                                                          \
        for (; i < n; i++) { const T e = p[i]; r = EXT##_1(e, r); nan |= e != e; }                     \
        if (nan || v != v) return (T)NAN;                                                              \
        return EXT##_1(r, v);                                                                          \
    }
#define nb_max512 _mm512_max_ps
#define nb_min512 _mm512_min_ps
#define nb_max512d _mm512_max_pd
#define nb_min512d _mm512_min_pd
#define nb_max512_1(e, v) ((e) > (v) ? (e) : (v))
#define nb_min512_1(e, v) ((e) < (v) ? (e) : (v))
#define nb_max512d_1 nb_max512_1
#define nb_min512d_1 nb_min512_1
NB_EXT512(nb_max_run_f32_avx512, float, 16, __m512, __mmask16, _kor_mask16, _mm512_loadu_ps, nb_max512, _mm512_cmp_ps_mask,
          _mm512_reduce_max_ps)
NB_EXT512(nb_min_run_f32_avx512, float, 16, __m512, __mmask16, _kor_mask16, _mm512_loadu_ps, nb_min512, _mm512_cmp_ps_mask,
          _mm512_reduce_min_ps)
NB_EXT512(nb_max_run_f64_avx512, double, 8, __m512d, __mmask8, _kor_mask8, _mm512_loadu_pd, nb_max512d, _mm512_cmp_pd_mask,
          _mm512_reduce_max_pd)
NB_EXT512(nb_min_run_f64_avx512, double, 8, __m512d, __mmask8, _kor_mask8, _mm512_loadu_pd, nb_min512d, _mm512_cmp_pd_mask,
          _mm512_reduce_min_pd)

/* The lanes of a product of p[0..n) floats in double (exact products, as the
 * portable loop), n >= 32: eight accumulators of 4 doubles, each widened by a
 * 256-bit vcvtps2pd. The 512-bit widening is the slower one on CPUs that split
 * 512-bit operations in two (AMD Zen 4: 15 against 24 floats per ns in L1,
 * where a float32 product reads 25 per ns from L3). Writes the 8 lanes
 * ((a0 a2)(a4 a6), (a1 a3)(a5 a7)); returns how many it read. */
static inline int64_t nb_prod_lanes_f32_avx512(const float* p, int64_t n, double* lanes) {
    __m256d a[8];
    for (int k = 0; k < 8; k++) a[k] = _mm256_cvtps_pd(_mm_loadu_ps(p + 4 * k)); /* 1.0 * x: x, so the same bits */
    int64_t i = 32;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 8; k++) a[k] = _mm256_mul_pd(a[k], _mm256_cvtps_pd(_mm_loadu_ps(p + i + 4 * k)));
    for (; i + 4 <= n; i += 4) a[0] = _mm256_mul_pd(a[0], _mm256_cvtps_pd(_mm_loadu_ps(p + i)));
    _mm256_storeu_pd(lanes, _mm256_mul_pd(_mm256_mul_pd(a[0], a[2]), _mm256_mul_pd(a[4], a[6])));
    _mm256_storeu_pd(lanes + 4, _mm256_mul_pd(_mm256_mul_pd(a[1], a[3]), _mm256_mul_pd(a[5], a[7])));
    return i;
}

/* Products down n rows of contiguous float32 columns (rows si floats apart) into
 * a[0..m) double accumulators, m >= 4: strips of 64 columns kept in 16 registers
 * of 4 doubles (256-bit widening, as above), then 4; each column multiplied in
 * row order, as the portable loop. Returns how many columns it did. */
static inline int64_t nb_prod_cols_f32_avx512(double* a, int64_t m, const float* x, int64_t n, int64_t si) {
    int64_t j = 0;
    for (; j + 64 <= m; j += 64) {
        __m256d p[16];
        for (int k = 0; k < 16; k++) p[k] = _mm256_loadu_pd(a + j + 4 * k);
        for (int64_t i = 0; i < n; i++) {
            const float* r = x + i * si + j;
            for (int k = 0; k < 16; k++) p[k] = _mm256_mul_pd(p[k], _mm256_cvtps_pd(_mm_loadu_ps(r + 4 * k)));
        }
        for (int k = 0; k < 16; k++) _mm256_storeu_pd(a + j + 4 * k, p[k]);
    }
    for (; j + 4 <= m; j += 4) {
        __m256d p = _mm256_loadu_pd(a + j);
        for (int64_t i = 0; i < n; i++) p = _mm256_mul_pd(p, _mm256_cvtps_pd(_mm_loadu_ps(x + i * si + j)));
        _mm256_storeu_pd(a + j, p);
    }
    return j;
}

/* float16 / bfloat16 sums read as they are: 16 values to floats in one or two instructions (GCC's
 * generic vectors split the widening into 128-bit pieces), then the portable loops' arithmetic in the
 * same order, so the sums equal theirs. */
static inline __m512 nb_ld16bf_512(const uint16_t* p) {
    const __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(u, 16));
}
static inline __m512 nb_ld16hf_512(const uint16_t* p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)p)); }
/* The lanes of a contiguous run's sum (sum_*_run's portable arithmetic in the same order: blocks
 * of 128 pairwise in float lanes, the partial block's chunks of 16 pairwise too, block sums in
 * double lanes), n >= 16; returns how many elements it read. Written in 256-bit halves (lanes 0-7
 * and 8-15 of each 16): measured 15-20% faster than 512-bit loads on data in L3 or memory (Zen 4),
 * loaded in address order (NB_LOADS_IN_ORDER); the same additions, so the same bits. */
static inline __m256 nb_ld8f_256(const float* p) { return _mm256_loadu_ps(p); }
static inline __m256 nb_ld8bf_256(const uint16_t* p) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p)), 16));
}
static inline __m256 nb_ld8hf_256(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)p)); }
/* Adds the block sums (lanes 0-7 in s0, 8-15 in s1) into the double lanes 0-3 and 4-7. */
static inline void nb_widen_add_256(__m256d* acc0, __m256d* acc1, __m256 s0, __m256 s1) {
    *acc0 = _mm256_add_pd(*acc0, _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(s0)),
                                               _mm256_cvtps_pd(_mm256_castps256_ps128(s1))));
    *acc1 = _mm256_add_pd(*acc1, _mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(s0, 1)),
                                               _mm256_cvtps_pd(_mm256_extractf128_ps(s1, 1))));
}
/* An empty asm with a memory clobber: the loads before it stay before it. GCC -O3 otherwise
 * schedules a block's 16 loads in a scrambled order (the last line first), which a streaming
 * read pays for: 64 MB on huge pages took 4.3-4.5 ms so, 2.1 ms in address order (Zen 4,
 * one thread; PyTorch's loop 1.8-2.1 ms). */
#define NB_LOADS_IN_ORDER() __asm__ volatile("" ::: "memory")
#define NB_SUM_LANES512(NAME, T, LD)                                                                   \
    static inline int64_t NAME(const T* p, int64_t n, double* lanes) {                                 \
        __m256d acc0 = _mm256_setzero_pd(), acc1 = acc0;                                               \
        int64_t i = 0;                                                                                 \
        for (; i + 128 <= n; i += 128) {                                                               \
            __m256 v[2][8]; /* [half][k]: elements 16k + 8 half ... + 8 */                              \
            for (int k = 0; k < 8; k++) {                                                              \
                v[0][k] = LD(p + i + 16 * k);                                                          \
                v[1][k] = LD(p + i + 16 * k + 8);                                                      \
                NB_LOADS_IN_ORDER();                                                                   \
            }                                                                                          \
            __m256 s[2];                                                                               \
            for (int h = 0; h < 2; h++) {                                                              \
                const __m256 a0 = _mm256_add_ps(v[h][0], v[h][1]), a1 = _mm256_add_ps(v[h][2], v[h][3]); \
                const __m256 a2 = _mm256_add_ps(v[h][4], v[h][5]), a3 = _mm256_add_ps(v[h][6], v[h][7]); \
                s[h] = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));                    \
            }                                                                                          \
            nb_widen_add_256(&acc0, &acc1, s[0], s[1]);                                                \
        }                                                                                              \
        const int64_t c = (n - i) >> 4;                                                                \
        if (c > 0) {                                                                                   \
            __m256 s[2];                                                                               \
            for (int h = 0; h < 2; h++) {                                                              \
                const T* q = p + i + 8 * h;                                                            \
                __m256 b = LD(q);                                                                      \
                if (c >= 2) b = _mm256_add_ps(b, LD(q + 16));                                          \
                if (c >= 3) b = _mm256_add_ps(b, c >= 4 ? _mm256_add_ps(LD(q + 32), LD(q + 48)) : LD(q + 32)); \
                if (c >= 5) {                                                                          \
                    __m256 e = LD(q + 64);                                                             \
                    if (c >= 6) e = _mm256_add_ps(e, LD(q + 80));                                      \
                    if (c >= 7) e = _mm256_add_ps(e, LD(q + 96));                                      \
                    b = _mm256_add_ps(b, e);                                                           \
                }                                                                                      \
                s[h] = b;                                                                              \
            }                                                                                          \
            nb_widen_add_256(&acc0, &acc1, s[0], s[1]);                                                \
            i += c << 4;                                                                               \
        }                                                                                              \
        _mm256_storeu_pd(lanes, acc0);                                                                 \
        _mm256_storeu_pd(lanes + 4, acc1);                                                             \
        return i;                                                                                      \
    }
NB_SUM_LANES512(nb_sum_lanes_f32_avx512, float, nb_ld8f_256)
NB_SUM_LANES512(nb_sum_lanes_bf16_avx512, uint16_t, nb_ld8bf_256)
NB_SUM_LANES512(nb_sum_lanes_f16_avx512, uint16_t, nb_ld8hf_256)
/* Eight rows of 16 contiguous columns added pairwise in float lanes, into 16 double accumulators. */
#define NB_SUM_COLS8_HALF512(NAME, LD)                                                                 \
    static inline void NAME(double* a, const uint16_t* const* r, int64_t j) {                          \
        const __m512 s = _mm512_add_ps(                                                                \
            _mm512_add_ps(_mm512_add_ps(LD(r[0] + j), LD(r[1] + j)), _mm512_add_ps(LD(r[2] + j), LD(r[3] + j))), \
            _mm512_add_ps(_mm512_add_ps(LD(r[4] + j), LD(r[5] + j)), _mm512_add_ps(LD(r[6] + j), LD(r[7] + j)))); \
        const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(s), 1));            \
        _mm512_storeu_pd(a + j, _mm512_add_pd(_mm512_loadu_pd(a + j), _mm512_cvtps_pd(_mm512_castps512_ps256(s)))); \
        _mm512_storeu_pd(a + j + 8, _mm512_add_pd(_mm512_loadu_pd(a + j + 8), _mm512_cvtps_pd(hi)));    \
    }
NB_SUM_COLS8_HALF512(nb_sum_cols8_bf16_avx512, nb_ld16bf_512)
NB_SUM_COLS8_HALF512(nb_sum_cols8_f16_avx512, nb_ld16hf_512)

#pragma GCC pop_options

#else
#define NB_RED_HAVE_AVX512 0
static inline bool nb_red_avx512(void) { return false; }
#define nb_max_run_f32_avx512(p, n, v) (v)
#define nb_min_run_f32_avx512(p, n, v) (v)
#define nb_max_run_f64_avx512(p, n, v) (v)
#define nb_min_run_f64_avx512(p, n, v) (v)
#define nb_prod_lanes_f32_avx512(p, n, lanes) ((int64_t)0)
#define nb_prod_cols_f32_avx512(a, m, x, n, si) ((int64_t)0)
#define nb_sum_lanes_f32_avx512(p, n, lanes) ((int64_t)0)
#define nb_sum_lanes_bf16_avx512(p, n, lanes) ((int64_t)0)
#define nb_sum_lanes_f16_avx512(p, n, lanes) ((int64_t)0)
#define nb_sum_cols8_bf16_avx512(a, r, j) ((void)0)
#define nb_sum_cols8_f16_avx512(a, r, j) ((void)0)
#endif

#endif /* NABLA_OPS_REDUCE_AVX512_H_ */
