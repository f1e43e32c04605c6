/* conv_direct_kernels.c: the register-tiled inner loops of the direct
 * convolution (see conv_direct.h). Built once per x86-64 level by meson with
 * -march set and CD_LEVEL naming the table (cd_kernels_x86_64_v3: AVX2 + FMA,
 * 8 lanes; cd_kernels_x86_64_v4: AVX-512, 16 lanes); conv_direct.c picks the
 * table the CPU runs. Accumulators stay in registers for a whole reduction:
 * forward tiles are MB channels x NB vectors of positions, weight-gradient tiles
 * KB taps x OV vectors of channels, sized so that the tile, the loaded operands
 * and one broadcast fit the register file (32 zmm / 16 ymm). */
#include "conv_direct.h"

#if defined(__AVX512F__)
#define LANES 16
enum { MB = 8, NB = 3, KB = 12, OV = 2 };
#else
#define LANES 8
enum { MB = 4, NB = 3, KB = 6, OV = 2 };
#endif

typedef float vf __attribute__((vector_size(LANES * 4)));
typedef float vfu __attribute__((vector_size(LANES * 4), aligned(4)));  /* unaligned loads and stores */

#define LOAD(p) ((vf)(*(const vfu*)(p)))
#define STORE(p, v) (*(vfu*)(p) = (v))
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static void forward(const float* x, const int32_t* off, int64_t K, const float* wpack, float* out, int64_t ldo,
                    int64_t P) {
    for (int64_t p = 0; p < P; p += NB * LANES) {
        vf acc[MB][NB];
#pragma GCC unroll 16
        for (int i = 0; i < MB; i++)
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++) acc[i][j] = (vf){0};
        const float* xp = x + p;
        const float* wk = wpack;
        for (int64_t k = 0; k < K; k++, wk += MB) {
            const float* s = xp + off[k];
            vf xv[NB];
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++) xv[j] = LOAD(s + j * LANES);
#pragma GCC unroll 16
            for (int i = 0; i < MB; i++) {
                const float w = wk[i];
#pragma GCC unroll 4
                for (int j = 0; j < NB; j++) acc[i][j] += xv[j] * w;
            }
        }
#pragma GCC unroll 16
        for (int i = 0; i < MB; i++)
#pragma GCC unroll 4
            for (int j = 0; j < NB; j++) STORE(out + i * ldo + p + j * LANES, acc[i][j]);
    }
}

static void wgrad(const float* x, const int32_t* off, int64_t Kpad, const float* goT, int64_t Opad, int64_t oh0,
                  int64_t oh1, int64_t OW, int64_t Wp, float* dwT) {
    for (int64_t kb = 0; kb < Kpad; kb += KB) {
        const int32_t* o = off + kb;
        for (int64_t ob = 0; ob < Opad; ob += OV * LANES) {
            vf acc[KB][OV];
            float* d = dwT + kb * Opad + ob;
#pragma GCC unroll 16
            for (int i = 0; i < KB; i++)
#pragma GCC unroll 4
                for (int j = 0; j < OV; j++) acc[i][j] = LOAD(d + i * Opad + j * LANES);
            for (int64_t oh = oh0; oh < oh1; oh++) {
                const float* xr = x + oh * Wp;
                const float* gr = goT + oh * OW * Opad + ob;
                for (int64_t ow = 0; ow < OW; ow++, gr += Opad) {
                    vf gv[OV];
#pragma GCC unroll 4
                    for (int j = 0; j < OV; j++) gv[j] = LOAD(gr + j * LANES);
                    const float* xs = xr + ow;
#pragma GCC unroll 16
                    for (int i = 0; i < KB; i++) {
                        const float xv = xs[o[i]];
#pragma GCC unroll 4
                        for (int j = 0; j < OV; j++) acc[i][j] += gv[j] * xv;
                    }
                }
            }
#pragma GCC unroll 16
            for (int i = 0; i < KB; i++)
#pragma GCC unroll 4
                for (int j = 0; j < OV; j++) STORE(d + i * Opad + j * LANES, acc[i][j]);
        }
    }
}

const cd_kernels CAT(cd_kernels_, CD_LEVEL) = {MB, NB * LANES, KB, OV * LANES, forward, wgrad};
