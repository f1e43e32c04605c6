/* conv.c: convolutions (conv1d, conv2d, conv_transpose2d), forward, and the
 * two backward kernels of conv2d (conv1d and conv_transpose2d reuse them).
 *
 * conv: im2col + GEMM. The output of an image is cut into tiles whose column
 * matrix (C/groups * kH * kW rows) fits in L2; each (image, group, tile) is one
 * task for an OpenMP thread, which builds its columns and calls OpenBLAS
 * single-threaded (nn_blas_serial_*). With stride 1 a tile is a band of output
 * rows: the input rows it needs are zero-padded once into a slab, so that every
 * column-matrix row is a single contiguous copy (conv_slab). Other strides
 * gather columns (im2col) and write straight into the output with ldc = OH * OW.
 * 1x1 convolutions with stride 1 and no padding skip im2col.
 *
 * conv_transpose: GEMM (weight^T x input) into columns, then col2im adds them
 * into the output; tasks are (image, group, block of output channels), which
 * write disjoint output planes.
 *
 * Backward: the input gradient is the transposed convolution of grad_output
 * (col2im); the weight gradient one GEMM per (image, group, tile) of
 * grad_output x im2col(input)^T, accumulated per thread, then summed.
 *
 * On a device, every convolution, transposed ones included, runs as the device's
 * implicit-GEMM kernels (conv_fused.c) where they take it, else as a composition
 * of device ops (conv_composed.c).
 *
 * float16/bfloat16 compute in float32. */
#include "conv.h"
#include "conv_composed.h"
#include "conv_fused.h"
#include "conv_direct.h"
#include "nn_common.h"

#include <cblas.h>
#include <limits.h>
#include <string.h>

#define TILE_ELEMS (256 * 1024) /* column-tile elements per thread: 1 MiB of float32 */

/* ---- kernels, generated for float and double ---- */

#define CONV_KERNELS(T, SUF, GEMM)                                                                               \
    /* cols[Kg x tt] for output positions [p0, p0 + tt) of the Cg channels starting at x. */                   \
    static void im2col_##SUF(const conv_geom* g, const T* x, int64_t Cg, int64_t p0, int64_t tt, T* cols) {    \
        const int64_t H = g->H, W = g->W, OW = g->OW, sw = g->sw;                                              \
        for (int64_t c = 0; c < Cg; c++)                                                                       \
            for (int64_t ki = 0; ki < g->kh; ki++)                                                             \
                for (int64_t kj = 0; kj < g->kw; kj++) {                                                       \
                    T* dst = cols + ((c * g->kh + ki) * g->kw + kj) * tt;                                      \
                    const T* plane = x + c * H * W;                                                            \
                    int64_t oh = p0 / OW, ow = p0 % OW;                                                        \
                    for (int64_t p = 0; p < tt; ow = 0, oh++) {                                                \
                        int64_t n = OW - ow < tt - p ? OW - ow : tt - p;                                       \
                        const int64_t ih = oh * g->sh - g->pt + ki * g->dh;                                    \
                        T* d = dst + p;                                                                        \
                        p += n;                                                                                \
                        if (ih < 0 || ih >= H) {                                                               \
                            memset(d, 0, sizeof(T) * (size_t)n);                                               \
                            continue;                                                                          \
                        }                                                                                      \
                        const T* row = plane + ih * W;                                                         \
                        const int64_t iw0 = ow * sw - g->pl + kj * g->dw;                                      \
                        int64_t lo = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;                                      \
                        int64_t hi = iw0 >= W ? 0 : (W - iw0 + sw - 1) / sw;                                   \
                        lo = lo < n ? lo : n;                                                                  \
                        hi = hi < n ? hi : n;                                                                  \
                        hi = hi > lo ? hi : lo;                                                                \
                        if (lo > 0) memset(d, 0, sizeof(T) * (size_t)lo);                                      \
                        if (sw == 1) {                                                                         \
                            memcpy(d + lo, row + iw0 + lo, sizeof(T) * (size_t)(hi - lo));                     \
                        } else {                                                                               \
                            for (int64_t q = lo; q < hi; q++) d[q] = row[iw0 + q * sw];                        \
                        }                                                                                      \
                        if (hi < n) memset(d + hi, 0, sizeof(T) * (size_t)(n - hi));                           \
                    }                                                                                          \
                }                                                                                              \
    }                                                                                                          \
                                                                                                               \
    /* Stride 1: the input rows a tile of output rows needs are copied once, zero-padded, into a slab of width   \
     * Wp = OW + (kW - 1) * dW; each column-matrix row is then one contiguous copy from the slab, and the GEMM     \
     * computes Wp columns per output row, of which the first OW are kept (plus bias). */                        \
    static void conv_slab_##SUF(const conv_geom* g, const T* xg, const T* wg, const T* bg, T* yg, int64_t oh0,      \
                                int64_t rows, T* scratch) {                                                     \
        const int64_t Cg = g->C / g->groups, Og = g->O / g->groups, kh = g->kh, kw = g->kw, W = g->W;          \
        const int64_t Wp = g->OW + (kw - 1) * g->dw, R = rows + (kh - 1) * g->dh, tail = (kw - 1) * g->dw;      \
        const int64_t chs = R * Wp + tail, TT = rows * Wp, Kg = Cg * kh * kw, pl = g->pl, pr = Wp - pl - W;    \
        T* slab = scratch;                                                                                     \
        T* cols = slab + Cg * chs;                                                                             \
        T* tmp = cols + Kg * TT;                                                                               \
        for (int64_t c = 0; c < Cg; c++) {                                                                     \
            T* sc = slab + c * chs;                                                                            \
            for (int64_t r = 0; r < R; r++) {                                                                  \
                const int64_t ih = oh0 - g->pt + r;                                                            \
                T* d = sc + r * Wp;                                                                            \
                if (ih < 0 || ih >= g->H) {                                                                    \
                    memset(d, 0, sizeof(T) * (size_t)Wp);                                                      \
                    continue;                                                                                  \
                }                                                                                              \
                if (pl > 0) memset(d, 0, sizeof(T) * (size_t)pl);                                              \
                memcpy(d + pl, xg + (c * g->H + ih) * W, sizeof(T) * (size_t)W);                               \
                if (pr > 0) memset(d + pl + W, 0, sizeof(T) * (size_t)pr);                                     \
            }                                                                                                  \
            if (tail > 0) memset(sc + R * Wp, 0, sizeof(T) * (size_t)tail);                                    \
            for (int64_t ki = 0; ki < kh; ki++)                                                                \
                for (int64_t kj = 0; kj < kw; kj++)                                                            \
                    memcpy(cols + ((c * kh + ki) * kw + kj) * TT, sc + ki * g->dh * Wp + kj * g->dw,           \
                           sizeof(T) * (size_t)TT);                                                            \
        }                                                                                                      \
        GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)Og, (int)TT, (int)Kg, 1, wg, (int)Kg, cols, (int)TT, \
             0, tmp, (int)TT);                                                                                 \
        for (int64_t o = 0; o < Og; o++) {                                                                     \
            const T bo = bg != NULL ? bg[o] : 0;                                                               \
            for (int64_t r = 0; r < rows; r++) {                                                               \
                T* dst = yg + (o * g->OH + oh0 + r) * g->OW;                                                   \
                const T* src = tmp + o * TT + r * Wp;                                                          \
                for (int64_t q = 0; q < g->OW; q++) dst[q] = src[q] + bo;                                      \
            }                                                                                                  \
        }                                                                                                      \
    }                                                                                                          \
                                                                                                               \
    /* tile: output positions per task, or output rows per task for the stride-1 slab path; scratch: per-thread  \
     * buffers of `per_thread` elements. */                                                                    \
    static void conv_forward_##SUF(const conv_geom* g, const T* x, const T* w, const T* b, T* y, T* scratch,   \
                                   int64_t per_thread, int64_t tile, bool slab, int nthreads) {                \
        const int64_t G = g->groups, Cg = g->C / G, Og = g->O / G, HW = g->OH * g->OW;                         \
        const int64_t Kg = Cg * g->kh * g->kw, span = slab ? g->OH : HW, ntiles = (span + tile - 1) / tile;    \
        const int64_t ntasks = g->N * G * ntiles;                                                              \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                   \
        for (int64_t task = 0; task < ntasks; task++) {                                                        \
            const int64_t n = task / (G * ntiles), gi = task / ntiles % G, t0 = task % ntiles * tile;          \
            const int64_t tt = span - t0 < tile ? span - t0 : tile;                                            \
            const T* xg = x + (n * g->C + gi * Cg) * g->H * g->W;                                              \
            const T* wg = w + gi * Og * Kg;                                                                    \
            const T* bg = b != NULL ? b + gi * Og : NULL;                                                      \
            T* yimg = y + (n * g->O + gi * Og) * HW;                                                           \
            T* mine = scratch != NULL ? scratch + (int64_t)NN_THREAD_NUM() * per_thread : NULL;                \
            if (slab && Kg > 0) {                                                                              \
                conv_slab_##SUF(g, xg, wg, bg, yimg, t0, tt, mine);                                            \
                continue;                                                                                      \
            }                                                                                                  \
            T* yg = yimg + t0;                                                                                 \
            if (Kg == 0) {                                                                                     \
                for (int64_t o = 0; o < Og; o++)                                                               \
                    for (int64_t q = 0; q < tt; q++) yg[o * HW + q] = 0;                                       \
            } else if (g->direct) {                                                                            \
                GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)Og, (int)tt, (int)Kg, 1, wg, (int)Kg,      \
                     xg + t0, (int)HW, 0, yg, (int)HW);                                                        \
            } else {                                                                                           \
                im2col_##SUF(g, xg, Cg, t0, tt, mine);                                                         \
                GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)Og, (int)tt, (int)Kg, 1, wg, (int)Kg,      \
                     mine, (int)tt, 0, yg, (int)HW);                                                           \
            }                                                                                                  \
            if (bg != NULL)                                                                                    \
                for (int64_t o = 0; o < Og; o++) {                                                             \
                    T* row = yg + o * HW;                                                                      \
                    for (int64_t q = 0; q < tt; q++) row[q] += bg[o];                                          \
                }                                                                                              \
        }                                                                                                      \
    }                                                                                                          \
                                                                                                               \
    /* Adds cols[rows x tt] (rows = channels [c0, c1) x kh x kw of group gi, image n) into y. */              \
    static void col2im_##SUF(const conv_geom* g, const T* cols, int64_t c0, int64_t c1, int64_t p0, int64_t tt,  \
                             T* yplanes) {                                                                     \
        const int64_t kk = g->kh * g->kw, OHW = g->OH * g->OW;                                                 \
        for (int64_t r = 0; r < (c1 - c0) * kk; r++) {                                                         \
            const int64_t co = r / kk, ki = r % kk / g->kw, kj = r % g->kw;                                    \
            T* plane = yplanes + co * OHW;                                                                     \
            const T* src = cols + r * tt;                                                                      \
            int64_t ih = p0 / g->W, iw = p0 % g->W;                                                            \
            for (int64_t q = 0; q < tt; iw = 0, ih++) {                                                        \
                const int64_t n = g->W - iw < tt - q ? g->W - iw : tt - q;                                     \
                const int64_t oh = ih * g->sh - g->pt + ki * g->dh;                                            \
                if (oh >= 0 && oh < g->OH) {                                                                   \
                    T* row = plane + oh * g->OW;                                                               \
                    for (int64_t j = 0; j < n; j++) {                                                          \
                        const int64_t ow = (iw + j) * g->sw - g->pl + kj * g->dw;                              \
                        if (ow >= 0 && ow < g->OW) row[ow] += src[q + j];                                      \
                    }                                                                                          \
                }                                                                                              \
                q += n;                                                                                        \
            }                                                                                                  \
        }                                                                                                      \
    }                                                                                                          \
                                                                                                               \
    static void conv_transpose_##SUF(const conv_geom* g, const T* x, const T* w, const T* b, T* y, T* scratch, \
                                     int64_t tile, int64_t block, int nthreads) {                              \
        const int64_t G = g->groups, Cg = g->C / G, Og = g->O / G, HWin = g->H * g->W;                         \
        const int64_t kk = g->kh * g->kw, OHW = g->OH * g->OW, nblocks = (Og + block - 1) / block;             \
        const int64_t ntasks = g->N * G * nblocks;                                                             \
        _Pragma("omp parallel for schedule(dynamic) num_threads(nthreads) if(nthreads > 1)")                   \
        for (int64_t task = 0; task < ntasks; task++) {                                                        \
            const int64_t n = task / (G * nblocks), gi = task / nblocks % G, c0 = task % nblocks * block;      \
            const int64_t c1 = c0 + block < Og ? c0 + block : Og;                                              \
            T* yplanes = y + (n * g->O + gi * Og + c0) * OHW;                                                  \
            for (int64_t c = c0; c < c1; c++) {                                                                \
                const T v = b != NULL ? b[gi * Og + c] : 0;                                                    \
                T* plane = yplanes + (c - c0) * OHW;                                                           \
                for (int64_t i = 0; i < OHW; i++) plane[i] = v;                                                \
            }                                                                                                  \
            if (Cg == 0) continue;                                                                             \
            int tid = NN_THREAD_NUM();                                                                         \
            T* cols = scratch + (int64_t)tid * block * kk * tile;                                              \
            const T* xg = x + (n * g->C + gi * Cg) * HWin;                                                     \
            const T* wg = w + gi * Cg * Og * kk + c0 * kk;                                                     \
            for (int64_t p0 = 0; p0 < HWin; p0 += tile) {                                                      \
                const int64_t tt = HWin - p0 < tile ? HWin - p0 : tile;                                        \
                GEMM(CblasRowMajor, CblasTrans, CblasNoTrans, (int)((c1 - c0) * kk), (int)tt, (int)Cg, 1, wg,  \
                     (int)(Og * kk), xg + p0, (int)HWin, 0, cols, (int)tt);                                    \
                col2im_##SUF(g, cols, c0, c1, p0, tt, yplanes);                                                \
            }                                                                                                  \
        }                                                                                                      \
    }

#ifdef _OPENMP
#define NN_THREAD_NUM() omp_get_thread_num()
#else
#define NN_THREAD_NUM() 0
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
CONV_KERNELS(float, f32, scipy_cblas_sgemm)
CONV_KERNELS(double, f64, scipy_cblas_dgemm)
#pragma GCC diagnostic pop

/* Weight gradient: dW_g[Og x Kg] = sum over images and tiles of go_g[Og x tt] cols[Kg x tt]^T. Each thread
 * accumulates into its own dW (acc + tid * O * Kg), summed into dw at the end; static scheduling gives every
 * thread the same tasks on every call, so the sums do not change from run to run. */
#define CONV_WGRAD(T, SUF, GEMM)                                                                                 \
    static void conv_wgrad_##SUF(const conv_geom* g, const T* x, const T* go, T* dw, T* scratch,                 \
                                 int64_t per_thread, int64_t tile, int nthreads) {                               \
        const int64_t G = g->groups, Cg = g->C / G, Og = g->O / G, HW = g->OH * g->OW;                           \
        const int64_t Kg = Cg * g->kh * g->kw, WN = g->O * Kg, ntiles = (HW + tile - 1) / tile;                  \
        const int64_t ntasks = g->N * G * ntiles;                                                                \
        for (int64_t i = 0; i < nthreads * WN; i++) scratch[(i / WN) * per_thread + i % WN] = 0;                 \
        _Pragma("omp parallel for schedule(static)  num_threads(nthreads) if(nthreads > 1)")                     \
        for (int64_t task = 0; task < ntasks; task++) {                                                          \
            const int64_t n = task / (G * ntiles), gi = task / ntiles % G, t0 = task % ntiles * tile;            \
            const int64_t tt = HW - t0 < tile ? HW - t0 : tile;                                                  \
            T* acc = scratch + (int64_t)NN_THREAD_NUM() * per_thread;                                            \
            const T* xg = x + (n * g->C + gi * Cg) * g->H * g->W;                                                \
            const T* gog = go + (n * g->O + gi * Og) * HW + t0;                                                  \
            const T* cols = xg + t0;                                                                             \
            int64_t ld = HW;                                                                                     \
            if (!g->direct) {                                                                                    \
                im2col_##SUF(g, xg, Cg, t0, tt, acc + WN);                                                       \
                cols = acc + WN, ld = tt;                                                                        \
            }                                                                                                    \
            GEMM(CblasRowMajor, CblasNoTrans, CblasTrans, (int)Og, (int)Kg, (int)tt, 1, gog, (int)HW, cols,      \
                 (int)ld, 1, acc + gi * Og * Kg, (int)Kg);                                                       \
        }                                                                                                        \
        for (int64_t i = 0; i < WN; i++) {                                                                       \
            T v = 0;                                                                                             \
            for (int t = 0; t < nthreads; t++) v += scratch[t * per_thread + i];                                 \
            dw[i] = v;                                                                                           \
        }                                                                                                        \
    }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
CONV_WGRAD(float, f32, scipy_cblas_sgemm)
CONV_WGRAD(double, f64, scipy_cblas_dgemm)
#pragma GCC diagnostic pop

/* ---- validation ---- */

static const char* const input_layout[3] = {"", "[N, C, L]", "[N, C, H, W]"};
static const char* const weight_layout[3] = {"", "[C_out, C_in / groups, kW]", "[C_out, C_in / groups, kH, kW]"};

/* "(5 x 5)" for sd values. */
static const char* sizes_str(const int64_t* v, int sd, char* buf, size_t cap) {
    if (sd == 1) snprintf(buf, cap, "(%lld)", (long long)v[0]);
    else snprintf(buf, cap, "(%lld x %lld)", (long long)v[0], (long long)v[1]);
    return buf;
}

/* Checks the tensors and the sd-dimensional attributes (pads: sd before, then sd after). */
static nb_status conv_check(const char* op, int sd, bool transposed, const nb_tensor* input, const nb_tensor* weight,
                            const nb_tensor* bias, const int64_t* stride, const int64_t* pads, const int64_t* outpad,
                            const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out,
                            int32_t* kdtype, conv_geom* g) {
    nb_status st;
    static const char* const names[4] = {"input", "weight", "bias", "out"};
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_handle(op, "weight", weight, false)) != NB_OK ||
        (st = nn_check_handle(op, "bias", bias, true)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[4]){input, weight, bias, dst}, 4)) != NB_OK)
        return st;
    if (input->ndim != sd + 2)
        return nb_error(NB_ERR_SHAPE, "%s: expected input with %d dims %s, got %s", op, sd + 2, input_layout[sd],
                        nb_shape_str(input->shape, input->ndim));
    if (weight->ndim != sd + 2)
        return nb_error(NB_ERR_SHAPE, "%s: expected weight with %d dims %s, got %s", op, sd + 2,
                        transposed ? (sd == 1 ? "[C_in, C_out / groups, kW]" : "[C_in, C_out / groups, kH, kW]")
                                   : weight_layout[sd],
                        nb_shape_str(weight->shape, weight->ndim));
    if ((st = nn_check_float(op, input, kdtype)) != NB_OK) return st;
    if (weight->dtype != input->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: input type (%s) and weight type (%s) should be the same", op,
                        nb_dtype_str(input->dtype), nb_dtype_str(weight->dtype));
    if (bias != NULL && bias->dtype != input->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: input type (%s) and bias type (%s) should be the same", op,
                        nb_dtype_str(input->dtype), nb_dtype_str(bias->dtype));
    for (int i = 0; i < sd; i++) {
        if (stride[i] <= 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: non-positive stride is not supported", op);
        if (pads[i] < 0 || pads[sd + i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative padding is not supported", op);
        if (dilation[i] <= 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: non-positive dilation is not supported", op);
        if (outpad != NULL && outpad[i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative output_padding is not supported", op);
    }
    if (groups <= 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: non-positive groups is not supported", op);
    for (int i = 0; i < sd; i++)  /* keeps the size arithmetic below far from overflow */
        if (stride[i] > INT_MAX || pads[i] > INT_MAX || pads[sd + i] > INT_MAX || dilation[i] > INT_MAX ||
            (outpad != NULL && outpad[i] > INT_MAX))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: stride, padding, dilation and output_padding must be below "
                            "2^31", op);
    const char* wshape = nb_shape_str(weight->shape, weight->ndim);
    const char* ishape = nb_shape_str(input->shape, input->ndim);
    if (weight->shape[0] % groups != 0)
        return nb_error(NB_ERR_SHAPE,
                        "%s: Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight "
                        "of size %s instead", op, (long long)groups, (long long)groups, wshape);
    const int64_t C = input->shape[1];
    const int64_t expect_c = transposed ? weight->shape[0] : weight->shape[1] * groups;
    if (C != expect_c)
        return nb_error(NB_ERR_SHAPE,
                        "%s: Given %s=%lld, weight of size %s, expected input%s to have %lld channels, but got %lld "
                        "channels instead", op, transposed ? "transposed" : "groups",
                        (long long)(transposed ? 1 : groups), wshape, ishape, (long long)expect_c, (long long)C);
    const int64_t O = transposed ? weight->shape[1] * groups : weight->shape[0];
    if (bias != NULL && (bias->ndim != 1 || bias->shape[0] != O))
        return nb_error(NB_ERR_SHAPE,
                        "%s: Given weight of size %s, expected bias to be 1-dimensional with %lld elements, but got "
                        "bias of size %s instead", op, wshape, (long long)O, nb_shape_str(bias->shape, bias->ndim));
    int64_t in[2], k[2], outsz[2], padded[2], eff[2];
    char b1[64], b2[64];
    for (int i = 0; i < sd; i++) {
        in[i] = input->shape[2 + i];
        k[i] = weight->shape[2 + i];
        if (k[i] <= 0)
            return nb_error(NB_ERR_SHAPE, "%s: expected a positive kernel size, but got weight of size %s", op, wshape);
        eff[i] = (k[i] - 1) * dilation[i] + 1;
        padded[i] = in[i] + pads[i] + pads[sd + i];
    }
    if (!transposed) {
        for (int i = 0; i < sd; i++)
            if (padded[i] < eff[i])
                return nb_error(NB_ERR_SHAPE,
                                "%s: Calculated padded input size per channel: %s. Kernel size: %s. Kernel size can't "
                                "be greater than actual input size", op, sizes_str(padded, sd, b1, sizeof b1),
                                sizes_str(eff, sd, b2, sizeof b2));
        for (int i = 0; i < sd; i++) outsz[i] = (padded[i] - eff[i]) / stride[i] + 1;
    } else {
        bool small = false;
        for (int i = 0; i < sd; i++) {
            if (outpad[i] >= stride[i] && outpad[i] >= dilation[i]) {
                if (sd == 2)
                    return nb_error(NB_ERR_INVALID_ARGUMENT,
                                    "%s: output padding must be smaller than either stride or dilation, but got "
                                    "output_padding_height: %lld output_padding_width: %lld stride_height: %lld "
                                    "stride_width: %lld dilation_height: %lld dilation_width: %lld", op,
                                    (long long)outpad[0], (long long)outpad[1], (long long)stride[0],
                                    (long long)stride[1], (long long)dilation[0], (long long)dilation[1]);
            }
            outsz[i] = (in[i] - 1) * stride[i] - pads[i] - pads[sd + i] + eff[i] + outpad[i];
            small |= outsz[i] < 0;
        }
        if (small)
            return nb_error(NB_ERR_SHAPE,
                            "%s: Given input size per channel: %s. Calculated output size per channel: %s. Output "
                            "size is too small", op, sizes_str(in, sd, b1, sizeof b1),
                            sizes_str(outsz, sd, b2, sizeof b2));
    }
    memset(g, 0, sizeof *g);
    g->N = input->shape[0], g->C = C, g->O = O, g->groups = groups;
    g->H = sd == 2 ? in[0] : 1, g->W = in[sd - 1];
    g->kh = sd == 2 ? k[0] : 1, g->kw = k[sd - 1];
    g->OH = sd == 2 ? outsz[0] : 1, g->OW = outsz[sd - 1];
    g->sh = sd == 2 ? stride[0] : 1, g->sw = stride[sd - 1];
    g->pt = sd == 2 ? pads[0] : 0, g->pl = pads[sd - 1];
    g->dh = sd == 2 ? dilation[0] : 1, g->dw = dilation[sd - 1];
    g->direct = !transposed && g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1;
    for (int i = 0; i < 2 * sd; i++) g->direct &= pads[i] == 0;
    /* OpenBLAS takes 32-bit sizes */
    const int64_t Kg = transposed ? g->O / groups * g->kh * g->kw : C / groups * g->kh * g->kw;
    const int64_t big = g->OH * g->OW > g->H * g->W ? g->OH * g->OW : g->H * g->W;
    if (Kg > INT_MAX || big > INT_MAX || g->O > INT_MAX || C > INT_MAX)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: sizes beyond 2^31 elements per image are not supported (input %s, "
                        "weight %s)", op, ishape, wshape);
    return NB_OK;
}

/* ---- drivers ---- */

/* Runs the transposed kernel for geometry g (x: [N, C, H, W] -> y: [N, O, OH, OW], all contiguous in kd). */
static nb_status transpose_into(const char* op, const conv_geom* g, int32_t kd, const void* x, const void* w,
                                const void* b, void* y) {
    const int64_t G = g->groups, HWin = g->H * g->W, HW = g->OH * g->OW;
    if (g->N == 0 || g->O == 0 || HW == 0) return NB_OK;
    const double flops = (double)g->N * (double)g->O * (double)HW * (double)(g->C / G) * (double)(g->kh * g->kw);
    int nthreads = nn_threads(flops / 8);
    const int64_t Og = g->O / G, kk = g->kh * g->kw;
    const int64_t want = 2 * (int64_t)nthreads;  /* tasks wanted: split channels when images are few */
    const int64_t per = g->N * G >= want ? 1 : (want + g->N * G - 1) / (g->N * G);
    const int64_t block = (Og + per - 1) / per;
    int64_t tile = TILE_ELEMS / (block * kk);
    tile = tile < 64 ? 64 : tile - tile % 16;
    tile = tile > HWin ? (HWin > 0 ? HWin : 1) : tile;
    const int64_t ntasks = g->N * G * ((Og + block - 1) / block);
    if (ntasks < nthreads) nthreads = (int)ntasks;
    void* scratch = NULL;
    if (g->C > 0 && (scratch = nn_alloc((size_t)(nthreads * block * kk * tile * nb_dtype_sizes[kd]))) == NULL)
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the column buffers", op);
    if (nthreads > 1) nn_blas_serial_begin();
    if (kd == NB_F32) conv_transpose_f32(g, x, w, b, y, scratch, tile, block, nthreads);
    else conv_transpose_f64(g, x, w, b, y, scratch, tile, block, nthreads);
    if (nthreads > 1) nn_blas_serial_end();
    nn_free(scratch);
    return NB_OK;
}

static nb_status run_conv(const char* op, int sd, bool transposed, const nb_tensor* input, const nb_tensor* weight,
                          const nb_tensor* bias, const int64_t* stride, const int64_t* pads, const int64_t* outpad,
                          const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    conv_geom g;
    int32_t kd;
    nb_status st = conv_check(op, sd, transposed, input, weight, bias, stride, pads, outpad, dilation, groups, dst,
                              out, &kd, &g);
    if (st != NB_OK) return st;
    int64_t shape[4] = {g.N, g.O, g.OH, g.OW};
    if (sd == 1) shape[2] = g.OW;
    nb_tensor *x = NULL, *w = NULL, *b = NULL, *y = NULL;
    if (input->storage->device_type != NB_CPU && nn_conv_fused_takes(&g, input, weight, bias)) {
        st = transposed ? nn_conv_transpose_fused(op, &g, input, weight, bias, shape, sd + 2, &y)
                        : nn_conv_fused(op, NB_CONV_FORWARD, &g, input, weight, bias, shape, sd + 2, &y);
        return st == NB_OK ? nn_deliver(op, y, input->dtype, dst, out) : st;
    }
    if (input->storage->device_type != NB_CPU) { /* not taken by the device's kernels: composed */
        st = transposed ? nn_conv_transpose_composed(&g, input, weight, bias, kd, &y)
                        : nn_conv_composed(&g, input, weight, bias, kd, &y);
        if (st == NB_OK) st = nb_tensor_reshape(y, shape, sd + 2, &x);
        nb_tensor_release(y);
        return st == NB_OK ? nn_deliver(op, x, input->dtype, dst, out) : st;
    }
    if ((st = nn_contig(input, kd, &x)) != NB_OK || (st = nn_contig(weight, kd, &w)) != NB_OK ||
        (st = nn_contig_opt(bias, kd, &b)) != NB_OK ||
        (st = nn_output(op, shape, sd + 2, kd, input->dtype, dst, (const nb_tensor*[3]){input, weight, bias}, 3,
                        &y)) != NB_OK) {
        nn_release(x, w, b, y, NULL, NULL, NULL, NULL);
        return st;
    }
    const int64_t esize = nb_dtype_sizes[kd];
    const int64_t G = g.groups, HW = g.OH * g.OW;
    const double flops = (double)g.N * (double)g.O * (double)HW * (double)(g.C / G) * (double)(g.kh * g.kw);
    int nthreads = nn_threads(flops / 8);
    void* scratch = NULL;
    int64_t tile = 0, per_thread = 0;
    bool slab = false;
    if (g.N > 0 && g.O > 0 && HW > 0) {
        if (transposed) {
            const void* bp = b != NULL ? nb_tensor_data(b) : NULL;
            st = transpose_into(op, &g, kd, nb_tensor_data(x), nb_tensor_data(w), bp, nb_tensor_data(y));
            const int32_t result_dtype = input->dtype;
            nn_release(x, w, b, st != NB_OK ? y : NULL, NULL, NULL, NULL, NULL);
            return st != NB_OK ? st : nn_deliver(op, y, result_dtype, dst, out);
        }
        if (kd == NB_F32 && conv_direct_takes(&g)) {
            st = conv_direct_forward(op, &g, nb_tensor_data(x), nb_tensor_data(w),
                                     b != NULL ? nb_tensor_data(b) : NULL, nb_tensor_data(y), nthreads);
            const int32_t result_dtype = input->dtype;
            nn_release(x, w, b, st != NB_OK ? y : NULL, NULL, NULL, NULL, NULL);
            return st != NB_OK ? st : nn_deliver(op, y, result_dtype, dst, out);
        }
        {
            const int64_t Kg = g.C / G * g.kh * g.kw, Og = g.O / G;
            slab = !g.direct && g.sh == 1 && g.sw == 1 && Kg > 0;
            const int64_t Wp = g.OW + (g.kw - 1) * g.dw, span = slab ? g.OH : HW;
            if (slab) {  /* tiles of whole output rows */
                tile = TILE_ELEMS / (Kg * Wp);
                tile = tile < 1 ? 1 : tile > g.OH ? g.OH : tile;
            } else {
                tile = Kg > 0 ? TILE_ELEMS / Kg : HW;
                tile = tile < 64 ? 64 : tile - tile % 16;
                tile = g.direct || tile > HW ? HW : tile;
            }
            if (g.N * G * ((span + tile - 1) / tile) < nthreads) {  /* few images: smaller tiles, one per thread */
                const int64_t per_image = (nthreads + g.N * G - 1) / (g.N * G);
                tile = (span + per_image - 1) / per_image;
            }
            if (slab) {
                const int64_t R = tile + (g.kh - 1) * g.dh, TT = tile * Wp;
                per_thread = (g.C / G) * (R * Wp + (g.kw - 1) * g.dw) + Kg * TT + Og * TT;
            } else {
                per_thread = g.direct ? 0 : Kg * tile;
            }
            const int64_t ntasks = g.N * G * ((span + tile - 1) / tile);
            if (ntasks < nthreads) nthreads = (int)ntasks;
            if (per_thread > 0) scratch = nn_alloc((size_t)(nthreads * per_thread * esize));
        }
        if (scratch == NULL && per_thread > 0) {
            nn_release(x, w, b, y, NULL, NULL, NULL, NULL);
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the column buffers", op);
        }
        if (nthreads > 1) nn_blas_serial_begin();
        const void* bp = b != NULL ? nb_tensor_data(b) : NULL;
        if (kd == NB_F32)
            conv_forward_f32(&g, nb_tensor_data(x), nb_tensor_data(w), bp, nb_tensor_data(y), scratch, per_thread,
                             tile, slab, nthreads);
        else
            conv_forward_f64(&g, nb_tensor_data(x), nb_tensor_data(w), bp, nb_tensor_data(y), scratch, per_thread,
                             tile, slab, nthreads);
        if (nthreads > 1) nn_blas_serial_end();
        nn_free(scratch);
    }
    const int32_t result_dtype = input->dtype;
    nn_release(x, w, b, NULL, NULL, NULL, NULL, NULL);
    return nn_deliver(op, y, result_dtype, dst, out);
}

nb_status nbi_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride,
                           int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups,
                           nb_tensor* dst, nb_tensor** out) {
    const int64_t s[1] = {stride}, p[2] = {padding_left, padding_right}, d[1] = {dilation};
    return run_conv("conv1d", 1, false, input, weight, bias, s, p, NULL, d, groups, dst, out);
}

nb_status nbi_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias,
                           const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups,
                           nb_tensor* dst, nb_tensor** out) {
    static const char* op = "conv2d";
    nb_status st;
    if ((st = nn_check_array(op, "stride", stride)) != NB_OK || (st = nn_check_array(op, "padding", padding)) != NB_OK ||
        (st = nn_check_array(op, "dilation", dilation)) != NB_OK)
        return st;
    return run_conv(op, 2, false, input, weight, bias, stride, padding, NULL, dilation, groups, dst, out);
}

nb_status nbi_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias,
                                     const int64_t* stride, const int64_t* padding, const int64_t* output_padding,
                                     const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "conv_transpose2d";
    nb_status st;
    if ((st = nn_check_array(op, "stride", stride)) != NB_OK || (st = nn_check_array(op, "padding", padding)) != NB_OK ||
        (st = nn_check_array(op, "output_padding", output_padding)) != NB_OK ||
        (st = nn_check_array(op, "dilation", dilation)) != NB_OK)
        return st;
    const int64_t pads[4] = {padding[0], padding[1], padding[0], padding[1]};
    return run_conv(op, 2, true, input, weight, bias, stride, pads, output_padding, dilation, groups, dst, out);
}

/* ---- backward ---- */

/* Checks of the backward ops: grad_output [N, O, OH, OW] and `other` (weight or input) 4-D floating tensors of
 * one dtype, positive attributes; fills g for the forward convolution they belong to, with OH, OW taken from
 * grad_output (which must fit: at most the forward's output size). */
static nb_status backward_check(const char* op, const nb_tensor* go, const nb_tensor* other, const char* other_name,
                                const int64_t* in_size, const int64_t* ksize, const int64_t C, const int64_t* stride,
                                const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst,
                                nb_tensor** out, int32_t* kd, conv_geom* g) {
    nb_status st;
    const char* placed_names[3] = {"grad_output", other_name, "out"};
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "grad_output", go, false)) != NB_OK ||
        (st = nn_check_handle(op, other_name, other, false)) != NB_OK ||
        (st = nn_check_same_device(op, placed_names, (const nb_tensor*[3]){go, other, dst}, 3)) != NB_OK)
        return st;
    const char* names[5] = {"input_size", "kernel_size", "stride", "padding", "dilation"};
    const int64_t* arrays[5] = {in_size, ksize, stride, padding, dilation};
    for (int i = 0; i < 5; i++)
        if ((st = nn_check_array(op, names[i], arrays[i])) != NB_OK) return st;
    if (go->ndim != 4 || other->ndim != 4)
        return nb_error(NB_ERR_SHAPE, "%s: expected 4-D grad_output and %s, got %s and %s", op, other_name,
                        nb_shape_str(go->shape, go->ndim), nb_shape_str(other->shape, other->ndim));
    if ((st = nn_check_float(op, go, kd)) != NB_OK) return st;
    if (other->dtype != go->dtype)
        return nb_error(NB_ERR_DTYPE, "%s: grad_output type (%s) and %s type (%s) should be the same", op,
                        nb_dtype_str(go->dtype), other_name, nb_dtype_str(other->dtype));
    const int64_t O = go->shape[1];
    if (groups <= 0 || C % groups != 0 || O % groups != 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: groups=%lld must be positive and divide %lld input and %lld "
                        "output channels", op, (long long)groups, (long long)C, (long long)O);
    for (int i = 0; i < 2; i++) {
        if (stride[i] <= 0 || dilation[i] <= 0 || ksize[i] <= 0 || in_size[i] < 0 || padding[i] < 0 ||
            padding[2 + i] < 0 || stride[i] > INT_MAX || dilation[i] > INT_MAX || ksize[i] > INT_MAX ||
            in_size[i] > INT_MAX || padding[i] > INT_MAX || padding[2 + i] > INT_MAX)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: stride, dilation and kernel size must be positive, sizes "
                            "and padding non-negative, all below 2^31", op);
        const int64_t span = in_size[i] + padding[i] + padding[2 + i] - (ksize[i] - 1) * dilation[i] - 1;
        const int64_t full = span < 0 ? 0 : span / stride[i] + 1;
        if (go->shape[2 + i] > full)
            return nb_error(NB_ERR_SHAPE, "%s: grad_output %s is larger than the convolution's output (%lld at most "
                            "in dim %d)", op, nb_shape_str(go->shape, 4), (long long)full, 2 + i);
    }
    memset(g, 0, sizeof *g);
    g->N = go->shape[0], g->C = C, g->O = O, g->groups = groups;
    g->H = in_size[0], g->W = in_size[1], g->kh = ksize[0], g->kw = ksize[1];
    g->OH = go->shape[2], g->OW = go->shape[3];
    g->sh = stride[0], g->sw = stride[1], g->pt = padding[0], g->pl = padding[1];
    g->dh = dilation[0], g->dw = dilation[1];
    g->direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->pt == 0 && g->pl == 0 &&
                g->OH == g->H && g->OW == g->W;
    const int64_t Kg = C / groups * g->kh * g->kw;
    if (Kg > INT_MAX || g->H * g->W > INT_MAX || g->OH * g->OW > INT_MAX || O > INT_MAX || C > INT_MAX)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: sizes beyond 2^31 elements per image are not supported", op);
    return NB_OK;
}

/* Stride 1: the input gradient is the forward convolution of grad_output with the weight flipped spatially and
 * its channel dims exchanged per group (padding d (k - 1) - p), which runs the faster forward path. */
static nb_status input_grad_stride1(const char* op, const conv_geom* g, const nb_tensor* grad_output,
                                    const nb_tensor* weight, const int64_t* padding, const int64_t* dilation,
                                    int32_t kd, nb_tensor* dst, nb_tensor** out) {
    const int64_t G = g->groups, Og = g->O / G, Cg = g->C / G, kh = g->kh, kw = g->kw;
    const int64_t fshape[4] = {g->C, Og, kh, kw};
    nb_tensor *w = NULL, *wf = NULL;
    nb_status st = nn_contig(weight, kd, &w);
    if (st == NB_OK) st = nn_empty(op, fshape, 4, kd, &wf);
    if (st != NB_OK) {
        nn_release(w, wf, NULL, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    const size_t es = (size_t)nb_dtype_sizes[kd];
    const char* src = nb_tensor_data(w);
    char* dstw = nb_tensor_data(wf);
    for (int64_t gi = 0; gi < G; gi++)  /* wf[gi Cg + c, o, kh-1-i, kw-1-j] = w[gi Og + o, c, i, j] */
        for (int64_t o = 0; o < Og; o++)
            for (int64_t c = 0; c < Cg; c++)
                for (int64_t i = 0; i < kh; i++)
                    for (int64_t j = 0; j < kw; j++)
                        memcpy(dstw + ((((gi * Cg + c) * Og + o) * kh + (kh - 1 - i)) * kw + (kw - 1 - j)) * es,
                               src + ((((gi * Og + o) * Cg + c) * kh + i) * kw + j) * es, es);
    nb_tensor_release(w);
    if (kd != weight->dtype) {  /* back to the operands' dtype: the forward checks that they agree */
        nb_tensor* cast = NULL;
        st = nb_tensor_new(op, fshape, 4, weight->dtype, NB_CPU, 0, &cast);
        if (st == NB_OK) st = nb_copy_into(op, cast, wf);
        nb_tensor_release(wf);
        wf = cast;
        if (st != NB_OK) {
            nb_tensor_release(wf);
            return st;
        }
    }
    const int64_t eh = (kh - 1) * dilation[0], ew = (kw - 1) * dilation[1], one[2] = {1, 1};
    const int64_t pads[4] = {eh - padding[0], ew - padding[1], eh - padding[2], ew - padding[3]};
    st = run_conv(op, 2, false, grad_output, wf, NULL, one, pads, NULL, dilation, G, dst, out);
    nb_tensor_release(wf);
    return st;
}

nb_status nbi_conv2d_backward_input(const nb_tensor* grad_output, const nb_tensor* weight, const int64_t* input_size,
                                    const int64_t* stride, const int64_t* padding, const int64_t* dilation,
                                    int64_t groups, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "conv2d_backward_input";
    conv_geom g;
    int32_t kd;
    nb_status st = nn_check_handle(op, "weight", weight, false);
    if (st != NB_OK) return st;
    if (weight->ndim != 4)
        return nb_error(NB_ERR_SHAPE, "%s: expected weight with 4 dims [C_out, C_in / groups, kH, kW], got %s", op,
                        nb_shape_str(weight->shape, weight->ndim));
    if ((st = backward_check(op, grad_output, weight, "weight", input_size, weight->shape + 2,
                             weight->shape[1] * groups, stride, padding, dilation, groups, dst, out, &kd, &g)) != NB_OK)
        return st;
    if (weight->shape[0] != g.O)
        return nb_error(NB_ERR_SHAPE, "%s: weight %s does not match grad_output %s", op,
                        nb_shape_str(weight->shape, 4), nb_shape_str(grad_output->shape, 4));
    if (weight->storage->device_type != NB_CPU) { /* the device's kernels, else composed */
        nb_tensor* y = NULL;
        const int64_t shape[4] = {g.N, g.C, g.H, g.W};
        st = nn_conv_fused_takes(&g, grad_output, weight, NULL)
                 ? nn_conv_fused(op, NB_CONV_INPUT_GRAD, &g, grad_output, weight, NULL, shape, 4, &y)
                 : nn_conv_backward_input_composed(&g, grad_output, weight, kd, &y);
        return st == NB_OK ? nn_deliver(op, y, grad_output->dtype, dst, out) : st;
    }
    if (g.sh == 1 && g.sw == 1 && g.OH == g.H + padding[0] + padding[2] - (g.kh - 1) * g.dh &&
        g.OW == g.W + padding[1] + padding[3] - (g.kw - 1) * g.dw && padding[0] <= (g.kh - 1) * g.dh &&
        padding[2] <= (g.kh - 1) * g.dh && padding[1] <= (g.kw - 1) * g.dw && padding[3] <= (g.kw - 1) * g.dw)
        return input_grad_stride1(op, &g, grad_output, weight, padding, dilation, kd, dst, out);
    const int64_t shape[4] = {g.N, g.C, g.H, g.W};
    nb_tensor *go = NULL, *w = NULL, *y = NULL;
    if ((st = nn_contig(grad_output, kd, &go)) != NB_OK || (st = nn_contig(weight, kd, &w)) != NB_OK ||
        (st = nn_output(op, shape, 4, kd, grad_output->dtype, dst, (const nb_tensor*[2]){grad_output, weight}, 2,
                        &y)) != NB_OK) {
        nn_release(go, w, y, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    /* the transposed convolution of grad_output: its input is [N, O, OH, OW], its output [N, C, H, W] */
    conv_geom t = g;
    t.C = g.O, t.O = g.C, t.H = g.OH, t.W = g.OW, t.OH = g.H, t.OW = g.W;
    if (t.N > 0 && t.O > 0 && t.OH * t.OW > 0)
        st = transpose_into(op, &t, kd, nb_tensor_data(go), nb_tensor_data(w), NULL, nb_tensor_data(y));
    nn_release(go, w, st != NB_OK ? y : NULL, NULL, NULL, NULL, NULL, NULL);
    return st != NB_OK ? st : nn_deliver(op, y, grad_output->dtype, dst, out);
}

nb_status nbi_conv2d_backward_weight(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* kernel_size,
                                     const int64_t* stride, const int64_t* padding, const int64_t* dilation,
                                     int64_t groups, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "conv2d_backward_weight";
    conv_geom g;
    int32_t kd;
    nb_status st = nn_check_handle(op, "input", input, false);
    if (st != NB_OK) return st;
    if (input->ndim != 4)
        return nb_error(NB_ERR_SHAPE, "%s: expected input with 4 dims [N, C, H, W], got %s", op,
                        nb_shape_str(input->shape, input->ndim));
    if ((st = backward_check(op, grad_output, input, "input", input->shape + 2, kernel_size, input->shape[1], stride,
                             padding, dilation, groups, dst, out, &kd, &g)) != NB_OK)
        return st;
    if (input->shape[0] != g.N)
        return nb_error(NB_ERR_SHAPE, "%s: input %s and grad_output %s have different batch sizes", op,
                        nb_shape_str(input->shape, 4), nb_shape_str(grad_output->shape, 4));
    if (input->storage->device_type != NB_CPU) { /* the device's kernels, else composed */
        nb_tensor* r = NULL;
        const int64_t shape[4] = {g.O, g.C / groups, g.kh, g.kw};
        st = nn_conv_fused_takes(&g, grad_output, input, NULL)
                 ? nn_conv_fused(op, NB_CONV_WEIGHT_GRAD, &g, grad_output, input, NULL, shape, 4, &r)
                 : nn_conv_backward_weight_composed(&g, grad_output, input, kd, &r);
        return st == NB_OK ? nn_deliver(op, r, grad_output->dtype, dst, out) : st;
    }
    const int64_t G = groups, Kg = g.C / G * g.kh * g.kw, HW = g.OH * g.OW;
    const int64_t shape[4] = {g.O, g.C / G, g.kh, g.kw};
    nb_tensor *go = NULL, *x = NULL, *y = NULL;
    if ((st = nn_contig(grad_output, kd, &go)) != NB_OK || (st = nn_contig(input, kd, &x)) != NB_OK ||
        (st = nn_output(op, shape, 4, kd, grad_output->dtype, dst, (const nb_tensor*[2]){grad_output, input}, 2,
                        &y)) != NB_OK) {
        nn_release(go, x, y, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    const int64_t WN = g.O * Kg;
    if (WN > 0 && (g.N == 0 || HW == 0)) {
        memset(nb_tensor_data(y), 0, (size_t)(WN * nb_dtype_sizes[kd]));
    } else if (WN > 0 && kd == NB_F32 && conv_direct_takes(&g)) {
        const double flops = (double)g.N * (double)g.O * (double)HW * (double)Kg;
        st = conv_direct_wgrad(op, &g, nb_tensor_data(x), nb_tensor_data(go), nb_tensor_data(y), nn_threads(flops / 8));
    } else if (WN > 0) {
        const double flops = (double)g.N * (double)g.O * (double)HW * (double)Kg;
        int nthreads = nn_threads(flops / 8);
        int64_t tile = g.direct ? HW : TILE_ELEMS / Kg;
        tile = g.direct ? tile : tile < 64 ? 64 : tile - tile % 16;
        tile = tile > HW ? HW : tile;
        const int64_t ntasks = g.N * G * ((HW + tile - 1) / tile);
        if (ntasks < nthreads) nthreads = (int)ntasks;
        const int64_t per_thread = WN + (g.direct ? 0 : Kg * tile);
        void* scratch = nn_alloc((size_t)(nthreads * per_thread * nb_dtype_sizes[kd]));
        if (scratch == NULL) {
            nn_release(go, x, y, NULL, NULL, NULL, NULL, NULL);
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the column buffers", op);
        }
        if (nthreads > 1) nn_blas_serial_begin();
        if (kd == NB_F32)
            conv_wgrad_f32(&g, nb_tensor_data(x), nb_tensor_data(go), nb_tensor_data(y), scratch, per_thread, tile,
                           nthreads);
        else
            conv_wgrad_f64(&g, nb_tensor_data(x), nb_tensor_data(go), nb_tensor_data(y), scratch, per_thread, tile,
                           nthreads);
        if (nthreads > 1) nn_blas_serial_end();
        nn_free(scratch);
    }
    nn_release(go, x, st != NB_OK ? y : NULL, NULL, NULL, NULL, NULL, NULL);
    return st != NB_OK ? st : nn_deliver(op, y, grad_output->dtype, dst, out);
}
