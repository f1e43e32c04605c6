/* conv_direct.h: direct float32 convolution, no column matrix.
 *
 * Each image (and group) is copied once, zero-padded, into a buffer whose rows
 * are Wp = OW + (kW - 1) dW wide. Output position p = oh * Wp + ow then reads
 * kernel tap k = (c, ki, kj) at p + off[k], off[k] = c * chs + ki dH Wp + kj dW:
 * the column matrix of im2col is a strided view of that buffer, never written.
 * A stride splits the buffer into phase planes so that this still holds (see
 * conv_direct.c).
 * Register-tiled kernels (conv_direct_kernels.c, built per x86-64 level) run
 * the GEMMs on it directly:
 *   forward  y[o][p]  = sum_k w[o][k] x[p + off[k]]   (vectors along p);
 *   weight   dw[o][k] = sum_p go[o][p] x[p + off[k]]  (vectors along o).
 * The input gradient of a stride-1 convolution is a forward convolution (conv.c
 * flips the weight), so it runs here too. Private to src/ops. */
#ifndef NABLA_OPS_CONV_DIRECT_H_
#define NABLA_OPS_CONV_DIRECT_H_

#include "../core/internal.h"
#include "conv.h"

/* The inner loops of one instruction-set level, and their register tiles. */
typedef struct {
    int mb;     /* forward: output channels per tile */
    int pb;     /* forward: positions per tile (a multiple of the vector width) */
    int kb;     /* weight gradient: kernel taps per tile */
    int ob;     /* weight gradient: output channels per tile (a multiple of the vector width) */
    /* out[i][p] = sum_k wpack[k][i] x[p + off[k]] for i < mb, p < P (a multiple of pb); out rows ldo apart. */
    void (*forward)(const float* x, const int32_t* off, int64_t K, const float* wpack, float* out, int64_t ldo,
                    int64_t P);
    /* dwT[k][o] += sum over output rows [oh0, oh1) and columns [0, OW) of x[oh Wp + ow + off[k]] goT[oh OW + ow][o],
     * for k < Kpad (a multiple of kb) and o < Opad (a multiple of ob). */
    void (*wgrad)(const float* x, const int32_t* off, int64_t Kpad, const float* goT, int64_t Opad, int64_t oh0,
                  int64_t oh1, int64_t OW, int64_t Wp, float* dwT);
} cd_kernels;

NB_INTERNAL extern const cd_kernels cd_kernels_x86_64_v3, cd_kernels_x86_64_v4;

/* Whether the direct kernels take geometry g (float32, strides up to 8, a CPU they were built for). */
NB_INTERNAL bool conv_direct_takes(const conv_geom* g);
/* y [N, O, OH, OW] = conv(x [N, C, H, W], w [O, C / groups, kh, kw]) + b (b optional), all contiguous. */
NB_INTERNAL nb_status conv_direct_forward(const char* op, const conv_geom* g, const float* x, const float* w,
                                          const float* b, float* y, int nthreads);
/* dw [O, C / groups, kh, kw] = the weight gradient from x [N, C, H, W] and go [N, O, OH, OW], contiguous. */
NB_INTERNAL nb_status conv_direct_wgrad(const char* op, const conv_geom* g, const float* x, const float* go,
                                        float* dw, int nthreads);

#endif /* NABLA_OPS_CONV_DIRECT_H_ */
