/* conv_direct.c: the drivers of the direct convolution (see
 * conv_direct.h): choosing the kernels for this CPU, padding images, packing
 * weights and gradients into the kernels' layouts, and the OpenMP tasks. */
#include "conv_direct.h"

#include "nn_common.h"
#include "../cpu/capability.h"

#include <limits.h>
#include <string.h>

#ifdef _OPENMP
#define CD_THREAD() omp_get_thread_num()
#else
#define CD_THREAD() 0
#endif

/* ---- kernel choice ---- */

/* The kernels of the best level this process may use (src/cpu/capability.h); NULL: the im2col path. */
static const cd_kernels* kernels(void) {
#if defined(NB_HAVE_CONV_DIRECT)
    switch (nb_cpu_capability()) {
        case NB_CPU_AVX512_BF16:
        case NB_CPU_AVX512: return &cd_kernels_x86_64_v4;
        case NB_CPU_AVX2: return &cd_kernels_x86_64_v3;
        default: return NULL;
    }
#else
    return NULL;
#endif
}

/* ---- layout of one padded image ----
 *
 * Stride s splits the zero-padded image into s_h x s_w phase planes: plane (a, b) holds padded rows a, a + s_h, ...
 * and columns b, b + s_w, ... Tap (ki, kj) of output (oh, ow) reads padded row oh s_h + ki d_h, that is row
 * oh + qi of plane a = ki d_h mod s_h, qi = ki d_h / s_h (columns alike): every tap is again a fixed offset from
 * position p = oh Wp + ow of a plane, and the kernels run unchanged. Stride 1 has one plane: the padded image. */

typedef struct {
    int64_t Cg, Og, K;      /* channels and output channels per group, taps K = Cg kh kw */
    int64_t Wp, R, chs;     /* plane row width, rows, floats per channel of a plane */
    int64_t xlen;           /* floats per padded image */
    bool used[64];          /* planes a s_w + b that some tap reads (strides up to 8 x 8) */
} cd_layout;

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static void layout_of(const conv_geom* g, int64_t pb, cd_layout* l) {
    l->Cg = g->C / g->groups, l->Og = g->O / g->groups, l->K = l->Cg * g->kh * g->kw;
    const int64_t qh = (g->kh - 1) * g->dh / g->sh, qw = (g->kw - 1) * g->dw / g->sw;  /* farthest tap in a plane */
    l->Wp = g->OW + qw, l->R = g->OH + qh;
    l->chs = l->R * l->Wp + qw;
    l->xlen = round_up(g->sh * g->sw * l->Cg * l->chs + pb + 64, 16);  /* a tile reads up to pb positions on */
    memset(l->used, 0, sizeof l->used);
    for (int64_t ki = 0; ki < g->kh; ki++)
        for (int64_t kj = 0; kj < g->kw; kj++) l->used[ki * g->dh % g->sh * g->sw + kj * g->dw % g->sw] = true;
}

bool conv_direct_takes(const conv_geom* g) {
    if (g->sh > 8 || g->sw > 8 || g->direct || g->groups <= 0 || g->OH <= 0 || g->OW <= 0 || g->C <= 0) return false;
    cd_layout l;
    layout_of(g, 64, &l);
    return l.K > 0 && l.xlen < INT_MAX / 2 && kernels() != NULL;
}

/* Channels [0, Cg) of an image (xg, [Cg, H, W]) zero-padded into the planes of buf (l->xlen floats). */
static void pad_image(const conv_geom* g, const cd_layout* l, const float* xg, float* buf) {
    const int64_t W = g->W, Wp = l->Wp, sh = g->sh, sw = g->sw, plane = l->Cg * l->chs;
    for (int64_t a = 0; a < sh; a++)
        for (int64_t b = 0; b < sw; b++) {
            float* pb = buf + (a * sw + b) * plane;
            if (!l->used[a * sw + b]) continue;
            /* columns j with input column j sw + b - pl in [0, W) */
            const int64_t j0 = g->pl - b <= 0 ? 0 : (g->pl - b + sw - 1) / sw;
            int64_t j1 = W + g->pl - b <= 0 ? 0 : (W + g->pl - b + sw - 1) / sw;
            j1 = j1 < Wp ? j1 : Wp;
            for (int64_t c = 0; c < l->Cg; c++) {
                float* ch = pb + c * l->chs;
                for (int64_t r = 0; r < l->R; r++) {
                    float* d = ch + r * Wp;
                    const int64_t ih = r * sh + a - g->pt;
                    if (ih < 0 || ih >= g->H || j0 >= j1) {
                        memset(d, 0, sizeof(float) * (size_t)Wp);
                        continue;
                    }
                    const float* src = xg + (c * g->H + ih) * W + b - g->pl;
                    memset(d, 0, sizeof(float) * (size_t)j0);
                    if (sw == 1) memcpy(d + j0, src + j0, sizeof(float) * (size_t)(j1 - j0));
                    else for (int64_t j = j0; j < j1; j++) d[j] = src[j * sw];
                    memset(d + j1, 0, sizeof(float) * (size_t)(Wp - j1));
                }
                memset(ch + l->R * Wp, 0, sizeof(float) * (size_t)(l->chs - l->R * Wp));
            }
        }
    const int64_t end = sh * sw * plane;
    memset(buf + end, 0, sizeof(float) * (size_t)(l->xlen - end));
}

/* off[k] for the taps k = (c, ki, kj); entries [K, n) repeat off[0] (tiles past K are discarded). */
static void tap_offsets(const conv_geom* g, const cd_layout* l, int32_t* off, int64_t n) {
    int64_t k = 0;
    for (int64_t c = 0; c < l->Cg; c++)
        for (int64_t ki = 0; ki < g->kh; ki++)
            for (int64_t kj = 0; kj < g->kw; kj++) {
                const int64_t a = ki * g->dh % g->sh, b = kj * g->dw % g->sw;
                const int64_t qi = ki * g->dh / g->sh, qj = kj * g->dw / g->sw;
                off[k++] = (int32_t)(((a * g->sw + b) * l->Cg + c) * l->chs + qi * l->Wp + qj);
            }
    for (; k < n; k++) off[k] = off[0];
}

/* ---- forward ---- */

#define CHUNK 2048 /* positions per forward kernel call */

nb_status conv_direct_forward(const char* op, const conv_geom* g, const float* x, const float* w, const float* b,
                              float* y, int nthreads) {
    const cd_kernels* kern = kernels();
    cd_layout l;
    layout_of(g, kern->pb, &l);
    const int64_t G = g->groups, mb = kern->mb, nob = (l.Og + mb - 1) / mb, OHW = g->OH * g->OW;
    /* tasks: (image, group, range of channel tiles); split the tiles when images are fewer than 2 per thread */
    const int64_t images = g->N * G, want = 2 * (int64_t)nthreads;
    const int64_t splits = images >= want ? 1 : ((want + images - 1) / images < nob ? (want + images - 1) / images : nob);
    const int64_t per_split = (nob + splits - 1) / splits, ntasks = images * splits;
    if (ntasks < nthreads) nthreads = (int)ntasks;
    /* output rows per kernel call: about CHUNK positions, so the results stay in cache for the crop */
    int64_t rows = CHUNK / l.Wp;
    rows = rows < 1 ? 1 : rows > g->OH ? g->OH : rows;
    const int64_t chunk = round_up(rows * l.Wp, kern->pb);
    const int64_t per_thread = l.xlen + mb * chunk;
    const size_t bytes = sizeof(float) * (size_t)(G * nob * l.K * mb + nthreads * per_thread) +
                         sizeof(int32_t) * (size_t)l.K;
    float* wpack = nn_alloc(bytes);
    if (wpack == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the padded images", op);
    float* scratch = wpack + G * nob * l.K * mb;
    int32_t* off = (int32_t*)(scratch + nthreads * per_thread);
    tap_offsets(g, &l, off, l.K);
    /* wpack[gi][tile][k][i] = w[gi Og + tile mb + i][k], zero past Og */
    for (int64_t gi = 0; gi < G; gi++)
        for (int64_t t = 0; t < nob; t++)
            for (int64_t k = 0; k < l.K; k++)
                for (int64_t i = 0; i < mb; i++) {
                    const int64_t o = t * mb + i;
                    wpack[((gi * nob + t) * l.K + k) * mb + i] = o < l.Og ? w[(gi * l.Og + o) * l.K + k] : 0.0f;
                }
#pragma omp parallel for schedule(dynamic) num_threads(nthreads) if (nthreads > 1)
    for (int64_t task = 0; task < ntasks; task++) {
        const int64_t img = task / splits, n = img / G, gi = img % G;
        const int64_t t0 = task % splits * per_split, t1 = t0 + per_split < nob ? t0 + per_split : nob;
        float* xbuf = scratch + (int64_t)CD_THREAD() * per_thread;
        float* tmp = xbuf + l.xlen;
        if (t0 >= t1) continue;
        pad_image(g, &l, x + (n * g->C + gi * l.Cg) * g->H * g->W, xbuf);
        for (int64_t oh0 = 0; oh0 < g->OH; oh0 += rows) {
            const int64_t oh1 = oh0 + rows < g->OH ? oh0 + rows : g->OH;
            const int64_t npos = round_up((oh1 - oh0) * l.Wp, kern->pb);
            for (int64_t t = t0; t < t1; t++) {
                kern->forward(xbuf + oh0 * l.Wp, off, l.K, wpack + (gi * nob + t) * l.K * mb, tmp, chunk, npos);
                for (int64_t i = 0; i < mb && t * mb + i < l.Og; i++) {  /* keep OW of each Wp columns, add bias */
                    const int64_t o = gi * l.Og + t * mb + i;
                    const float bo = b != NULL ? b[o] : 0.0f;
                    float* dst = y + (n * g->O + o) * OHW;
                    for (int64_t oh = oh0; oh < oh1; oh++) {
                        const float* src = tmp + i * chunk + (oh - oh0) * l.Wp;
                        for (int64_t ow = 0; ow < g->OW; ow++) dst[oh * g->OW + ow] = src[ow] + bo;
                    }
                }
            }
        }
    }
    nn_free(wpack);
    return NB_OK;
}

/* ---- weight gradient ---- */

nb_status conv_direct_wgrad(const char* op, const conv_geom* g, const float* x, const float* go, float* dw,
                            int nthreads) {
    const cd_kernels* kern = kernels();
    cd_layout l;
    layout_of(g, kern->pb, &l);
    const int64_t G = g->groups, Kpad = round_up(l.K, kern->kb), Opad = round_up(l.Og, kern->ob);
    const int64_t OHW = g->OH * g->OW, acc_len = G * Kpad * Opad, ntasks = g->N * G;
    if (ntasks < nthreads) nthreads = (int)ntasks;
    /* rows per kernel call: the gradient rows they read stay within about 16 KiB */
    int64_t rows = 4096 / (g->OW * Opad);
    rows = rows < 1 ? 1 : rows;
    const int64_t per_thread = acc_len + l.xlen + OHW * Opad;
    const size_t bytes = sizeof(float) * (size_t)(nthreads * per_thread) + sizeof(int32_t) * (size_t)Kpad;
    float* scratch = nn_alloc(bytes);
    if (scratch == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the padded images", op);
    int32_t* off = (int32_t*)(scratch + nthreads * per_thread);
    tap_offsets(g, &l, off, Kpad);
    for (int t = 0; t < nthreads; t++) memset(scratch + t * per_thread, 0, sizeof(float) * (size_t)acc_len);
    /* static: each thread sums the same images on every call, so the result does not change from run to run */
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (int64_t task = 0; task < ntasks; task++) {
        const int64_t n = task / G, gi = task % G;
        float* acc = scratch + (int64_t)CD_THREAD() * per_thread;
        float* xbuf = acc + acc_len;
        float* goT = xbuf + l.xlen;
        pad_image(g, &l, x + (n * g->C + gi * l.Cg) * g->H * g->W, xbuf);
        const float* gog = go + (n * g->O + gi * l.Og) * OHW;
        for (int64_t q0 = 0; q0 < OHW; q0 += 16) {  /* goT[q][o] = go[o][q], zero past Og; 16 rows at a time */
            const int64_t q1 = q0 + 16 < OHW ? q0 + 16 : OHW;
            for (int64_t o = 0; o < l.Og; o++)
                for (int64_t q = q0; q < q1; q++) goT[q * Opad + o] = gog[o * OHW + q];
            for (int64_t q = q0; q < q1; q++)
                for (int64_t o = l.Og; o < Opad; o++) goT[q * Opad + o] = 0.0f;
        }
        for (int64_t oh = 0; oh < g->OH; oh += rows)
            kern->wgrad(xbuf, off, Kpad, goT, Opad, oh, oh + rows < g->OH ? oh + rows : g->OH, g->OW, l.Wp,
                        acc + gi * Kpad * Opad);
    }
    for (int64_t gi = 0; gi < G; gi++)
        for (int64_t o = 0; o < l.Og; o++)
            for (int64_t k = 0; k < l.K; k++) {
                float v = 0.0f;
                for (int t = 0; t < nthreads; t++) v += scratch[t * per_thread + (gi * Kpad + k) * Opad + o];
                dw[(gi * l.Og + o) * l.K + k] = v;
            }
    nn_free(scratch);
    return NB_OK;
}
