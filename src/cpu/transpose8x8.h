/* transpose8x8.h: an 8 x 8 transpose of 32-bit elements in AVX registers, for
 * the packing of nabla's own GEMMs (sgemm_avx512.c: floats, bgemm_avx512bf16.c:
 * pairs of bfloat16). Include only in files built for AVX2 or above. */
#ifndef NABLA_CPU_TRANSPOSE8X8_H_
#define NABLA_CPU_TRANSPOSE8X8_H_

#include <immintrin.h>
#include <stdint.h>

/* Row r of the source (8 elements at byte address s + r * ss, any alignment)
 * becomes column r of the destination (row t at byte address d + t * ds). */
static inline void nb_transpose8x8(const char* s, int64_t ss, char* d, int64_t ds) {
    __m256 r[8], t[8], u[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i_u*)(s + i * ss)));
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_si256((__m256i_u*)(d + i * ds), _mm256_castps_si256(_mm256_permute2f128_ps(u[i], u[i + 4], 0x20)));
        _mm256_storeu_si256((__m256i_u*)(d + (i + 4) * ds),
                            _mm256_castps_si256(_mm256_permute2f128_ps(u[i], u[i + 4], 0x31)));
    }
}

#endif /* NABLA_CPU_TRANSPOSE8X8_H_ */
