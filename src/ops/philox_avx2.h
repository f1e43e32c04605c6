/* philox_avx2.h: Philox-4x32-10 on AVX2, sixteen blocks per call (two interleaved
 * groups of eight lanes, to hide the multiply latency). Integer arithmetic only,
 * so the words equal nb_philox_block's exactly; the caller checks that the CPU has
 * AVX2 (__builtin_cpu_supports) before calling. Defines NB_PHILOX_AVX2 where
 * available (x86-64 with GCC or Clang). */
#ifndef NABLA_PHILOX_AVX2_H_
#define NABLA_PHILOX_AVX2_H_

#include "philox.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define NB_PHILOX_AVX2 1
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline void nb_avx2_counters(uint64_t b, __m256i* c0, __m256i* c1) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), bias = _mm256_set1_epi32(INT32_MIN);
    const __m256i lo = _mm256_set1_epi32((int)(uint32_t)b);
    *c0 = _mm256_add_epi32(lo, lanes);
    const __m256i wrapped = _mm256_cmpgt_epi32(_mm256_xor_si256(lo, bias), _mm256_xor_si256(*c0, bias)); /* -1: carry */
    *c1 = _mm256_sub_epi32(_mm256_set1_epi32((int)(uint32_t)(b >> 32)), wrapped);
}

AVX2 static inline void nb_avx2_round(__m256i* c0, __m256i* c1, __m256i* c2, __m256i* c3, __m256i k0, __m256i k1) {
    const __m256i m0 = _mm256_set1_epi32((int)NB_PHILOX_M0), m1 = _mm256_set1_epi32((int)NB_PHILOX_M1);
    const __m256i pe0 = _mm256_mul_epu32(*c0, m0), po0 = _mm256_mul_epu32(_mm256_srli_epi64(*c0, 32), m0);
    const __m256i pe1 = _mm256_mul_epu32(*c2, m1), po1 = _mm256_mul_epu32(_mm256_srli_epi64(*c2, 32), m1);
    const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(pe0, 32), po0, 0xAA);
    const __m256i lo0 = _mm256_blend_epi32(pe0, _mm256_slli_epi64(po0, 32), 0xAA);
    const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(pe1, 32), po1, 0xAA);
    const __m256i lo1 = _mm256_blend_epi32(pe1, _mm256_slli_epi64(po1, 32), 0xAA);
    *c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, *c1), k0);
    *c1 = lo1;
    *c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, *c3), k1);
    *c3 = lo0;
}

/* word k of lanes 0..7 -> out[lane][k] */
AVX2 static inline void nb_avx2_store(__m256i c0, __m256i c1, __m256i c2, __m256i c3, uint32_t* out) {
    const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpacklo_epi32(c2, c3);
    const __m256i t2 = _mm256_unpackhi_epi32(c0, c1), t3 = _mm256_unpackhi_epi32(c2, c3);
    const __m256i o0 = _mm256_unpacklo_epi64(t0, t1), o1 = _mm256_unpackhi_epi64(t0, t1);
    const __m256i o2 = _mm256_unpacklo_epi64(t2, t3), o3 = _mm256_unpackhi_epi64(t2, t3);
    _mm256_storeu_si256((__m256i*)(out + 0), _mm256_permute2x128_si256(o0, o1, 0x20));
    _mm256_storeu_si256((__m256i*)(out + 8), _mm256_permute2x128_si256(o2, o3, 0x20));
    _mm256_storeu_si256((__m256i*)(out + 16), _mm256_permute2x128_si256(o0, o1, 0x31));
    _mm256_storeu_si256((__m256i*)(out + 24), _mm256_permute2x128_si256(o2, o3, 0x31));
}

/* Blocks index .. index+15 of p's stream into out[16 * 4], block-major. */
AVX2 static void nb_philox_block16_avx2(const nb_philox* p, uint64_t index, uint32_t* out) {
    __m256i a0, a1, b0, b1, a2 = _mm256_setzero_si256(), a3 = a2, b2 = a2, b3 = a2;
    nb_avx2_counters(p->base + index, &a0, &a1);
    nb_avx2_counters(p->base + index + 8, &b0, &b1);
    __m256i k0 = _mm256_set1_epi32((int)p->k0), k1 = _mm256_set1_epi32((int)p->k1);
    const __m256i w0 = _mm256_set1_epi32((int)NB_PHILOX_W0), w1 = _mm256_set1_epi32((int)NB_PHILOX_W1);
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 = _mm256_add_epi32(k0, w0);
            k1 = _mm256_add_epi32(k1, w1);
        }
        nb_avx2_round(&a0, &a1, &a2, &a3, k0, k1);
        nb_avx2_round(&b0, &b1, &b2, &b3, k0, k1);
    }
    nb_avx2_store(a0, a1, a2, a3, out);
    nb_avx2_store(b0, b1, b2, b3, out + 32);
}

#undef AVX2
#endif

#endif /* NABLA_PHILOX_AVX2_H_ */
