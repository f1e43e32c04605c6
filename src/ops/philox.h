/* philox.h: the Philox-4x32-10 counter-based generator (Salmon et al., "Parallel
 * random numbers: as easy as 1, 2, 3", SC'11; the Random123 reference).
 *
 * A block is philox(counter, key): four 32-bit words that depend only on the
 * 128-bit counter and the 64-bit key, so any element of a random tensor can be
 * computed on its own, by any thread, on any device. nabla's convention (what a
 * CUDA backend must reproduce to give the same numbers):
 *
 *   key     = (seed & 0xffffffff, seed >> 32)
 *   counter = (b & 0xffffffff, b >> 32, 0, 0) with b = generator offset + block index
 *
 * Header-only and free of libnabla types so that a CUDA kernel can include it. */
#ifndef NABLA_PHILOX_H_
#define NABLA_PHILOX_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define NB_PHILOX_FN static __host__ __device__ __forceinline__
#else
#define NB_PHILOX_FN static inline
#endif

#define NB_PHILOX_M0 0xD2511F53u
#define NB_PHILOX_M1 0xCD9E8D57u
#define NB_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define NB_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

/* One keyed stream position: the key words and the first block of an op's reservation. */
typedef struct nb_philox {
    uint32_t k0, k1;
    uint64_t base;
} nb_philox;

NB_PHILOX_FN nb_philox nb_philox_make(uint64_t seed, uint64_t base) {
    nb_philox p;
    p.k0 = (uint32_t)seed;
    p.k1 = (uint32_t)(seed >> 32);
    p.base = base;
    return p;
}

/* The raw bijection: out = Philox4x32-10(ctr, key). */
NB_PHILOX_FN void nb_philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4]) {
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += NB_PHILOX_W0;
            k1 += NB_PHILOX_W1;
        }
        const uint64_t p0 = (uint64_t)NB_PHILOX_M0 * c0, p1 = (uint64_t)NB_PHILOX_M1 * c2;
        const uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        const uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* Block `index` (relative to p->base) of the stream. */
NB_PHILOX_FN void nb_philox_block(const nb_philox* p, uint64_t index, uint32_t out[4]) {
    const uint64_t b = p->base + index;
    const uint32_t ctr[4] = {(uint32_t)b, (uint32_t)(b >> 32), 0u, 0u};
    nb_philox4x32_10(ctr, p->k0, p->k1, out);
}

/* Blocks index .. index+7 at once into out[j] (j = 0..7): the same words as eight
 * nb_philox_block calls, computed lane by lane so that they interleave (and vectorise). */
NB_PHILOX_FN void nb_philox_block8(const nb_philox* p, uint64_t index, uint32_t out[8][4]) {
    uint32_t c0[8], c1[8], c2[8], c3[8];
    for (int j = 0; j < 8; j++) {
        const uint64_t b = p->base + index + (uint64_t)j;
        c0[j] = (uint32_t)b, c1[j] = (uint32_t)(b >> 32), c2[j] = 0u, c3[j] = 0u;
    }
    uint32_t k0 = p->k0, k1 = p->k1;
    for (int r = 0; r < 10; r++) {
        if (r > 0) {
            k0 += NB_PHILOX_W0;
            k1 += NB_PHILOX_W1;
        }
        for (int j = 0; j < 8; j++) {
            const uint64_t p0 = (uint64_t)NB_PHILOX_M0 * c0[j], p1 = (uint64_t)NB_PHILOX_M1 * c2[j];
            const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[j] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3[j] ^ k1;
            c1[j] = (uint32_t)p1;
            c3[j] = (uint32_t)p0;
            c0[j] = n0;
            c2[j] = n2;
        }
    }
    for (int j = 0; j < 8; j++) out[j][0] = c0[j], out[j][1] = c1[j], out[j][2] = c2[j], out[j][3] = c3[j];
}

/* ---- words to numbers (shared with any device backend) ---- */

/* [0, 1) with 24 random bits: every value exact in float. */
NB_PHILOX_FN float nb_u01_f32(uint32_t w) { return (float)(w >> 8) * 0x1p-24f; }
/* (0, 1]: safe for log. */
NB_PHILOX_FN float nb_u01_open_f32(uint32_t w) { return (float)((w >> 8) + 1u) * 0x1p-24f; }
/* [0, 1) with 53 random bits from two words. */
NB_PHILOX_FN double nb_u01_f64(uint32_t lo, uint32_t hi) {
    return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1p-53;
}
NB_PHILOX_FN double nb_u01_open_f64(uint32_t lo, uint32_t hi) {
    return (double)(((((uint64_t)hi << 32) | lo) >> 11) + 1u) * 0x1p-53;
}
/* [0, 1) from all 32 bits, in double (for comparisons against a probability). */
NB_PHILOX_FN double nb_u01_w32(uint32_t w) { return (double)w * 0x1p-32; }

/* ---- Box-Muller in float without libm: plain float arithmetic in a fixed order,
 * so that it vectorises and any device evaluating the same expressions (no FMA
 * contraction) gets the same bits. Errors are a few ulp. ---- */

NB_PHILOX_FN uint32_t nb_f32_to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
NB_PHILOX_FN float nb_bits_to_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* -2 ln(u) for u in (0, 1]: u = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m from the
 * atanh series. Branch-free (integer selects) so that loops over it vectorise. */
NB_PHILOX_FN float nb_neg2log_f32(float u) {
    const uint32_t bits = nb_f32_to_bits(u), mant = bits & 0x7fffffu;
    const uint32_t big = mant > 0x3504f3u; /* m > sqrt(2): use m / 2 and e + 1 */
    const float m = nb_bits_to_f32(mant | (0x3f800000u - (big << 23)));
    const float fe = (float)((int32_t)(bits >> 23) - 127 + (int32_t)big);
    const float t = (m - 1.0f) / (m + 1.0f), t2 = t * t;
    const float series = 1.0f + t2 * (0.333333343f + t2 * (0.2f + t2 * (0.142857149f + t2 * 0.111111112f)));
    const float ln_m = 2.0f * t * series;
    return -2.0f * (fe * 0.693145752f + (fe * 1.42860677e-06f + ln_m)); /* ln 2 split in two */
}

/* sin and cos of 2 pi (w >> 8) / 2^24: the top two bits pick the quadrant, the
 * next 22 the angle inside it, evaluated by Taylor polynomials on [0, pi/2);
 * the quadrant swaps and negates them through bit operations. */
NB_PHILOX_FN void nb_sincos_2pi_f32(uint32_t w, float* s, float* c) {
    const uint32_t q = w >> 30;
    const float x = (float)(int32_t)((w >> 8) & 0x3fffffu) * 0x1p-22f * 1.57079637f, x2 = x * x;
    const float sn = x * (1.0f - x2 * 0.166666672f * (1.0f - x2 * 0.0500000007f * (1.0f - x2 * 0.0238095243f *
                     (1.0f - x2 * 0.0138888890f * (1.0f - x2 * 0.00909090880f)))));
    const float cs = 1.0f - x2 * 0.5f * (1.0f - x2 * 0.0833333358f * (1.0f - x2 * 0.0333333351f * (1.0f - x2 *
                     0.0178571437f * (1.0f - x2 * 0.0111111114f * (1.0f - x2 * 0.00757575734f)))));
    const uint32_t swap = 0u - (q & 1u), sb = nb_f32_to_bits(sn), cb = nb_f32_to_bits(cs);
    const uint32_t ss = (sb & ~swap) | (cb & swap), cc = (cb & ~swap) | (sb & swap);
    *s = nb_bits_to_f32(ss ^ ((q & 2u) << 30));
    *c = nb_bits_to_f32(cc ^ (((q + 1u) & 2u) << 30));
}

/* Two standard normals from two words: z0 = r cos(theta), z1 = r sin(theta). */
NB_PHILOX_FN void nb_box_muller_f32(uint32_t w0, uint32_t w1, float* z0, float* z1) {
    const float r = sqrtf(nb_neg2log_f32(nb_u01_open_f32(w0)));
    float s, c;
    nb_sincos_2pi_f32(w1, &s, &c);
    *z0 = r * c;
    *z1 = r * s;
}

#endif /* NABLA_PHILOX_H_ */
