/* conv.h: the geometry of one convolution, shared by the im2col + GEMM kernels
 * (conv.c) and the direct stride-1 kernels (conv_direct.c). Private to src/ops. */
#ifndef NABLA_OPS_CONV_H_
#define NABLA_OPS_CONV_H_

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t N, C, H, W;     /* input */
    int64_t O, kh, kw;      /* output channels, kernel */
    int64_t OH, OW;         /* output */
    int64_t sh, sw, pt, pl; /* stride, padding before (top, left) */
    int64_t dh, dw;         /* dilation */
    int64_t oph, opw;       /* transposed: output padding */
    int64_t groups;
    bool direct;            /* 1x1, stride 1, no padding: the input is its own column matrix */
} conv_geom;

#endif /* NABLA_OPS_CONV_H_ */
