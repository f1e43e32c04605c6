/* reduce_engine.c: argument checks, outputs and the CPU driver shared by every
 * reduction (see reduce.h).
 *
 * Geometry: dims of size 1 are dropped; kept dims (K) and reduced dims (R) are
 * each ordered by decreasing input stride (R keeps its logical order for index
 * ops) and coalesced. The innermost K dim is cut into tiles of m outputs; a
 * task is one tile at one position of the outer K dims. The kernel is handed
 * runs along the innermost R dim, so it sees both the "row" case (reduce along
 * contiguous memory, j outer) and the "column" case (outputs contiguous, i
 * outer: vectorised across outputs). */
#include "reduce.h"
#include "../alloc/cpu_allocator.h"
#include "../core/runtime.h"
#include "../cpu/kernels.h"

#include <math.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define GRAIN 32768           /* below this many input elements: one thread */
#define TILE_ROW 64           /* outputs per task when each reduces contiguous memory */
#define TILE_COL 1024         /* outputs per task when the outputs are contiguous */
#define ACC_BYTES 16384       /* accumulator block on a task's stack */
#define SPLIT_TASKS 8         /* fewer tasks than this: split the reduced range too */
#define CHUNK_WORK 65536      /* elements per chunk of a split reduced range */
#define MAX_CHUNKS 1024
#define MAX_PARTIAL_BYTES (8 << 20) /* caps the chunk count for wide tiles */
#define WIDE_FLOATS 4096      /* float16 / bfloat16 input widened per kernel call */

/* ---- argument checks ---- */

nb_status nb_red_dims(const char* op, const nb_tensor* t, const int64_t* dims, int32_t ndims, uint32_t* mask) {
    if (ndims < 0 || ndims > NB_MAX_DIMS)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: ndims must be in [0, %d], got %d", op, NB_MAX_DIMS,
                        (int)ndims);
    if (ndims > 0 && dims == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dims is NULL but ndims is %d", op, (int)ndims);
    if (ndims == 0) {
        *mask = t->ndim == 0 ? 0u : (uint32_t)((1ull << t->ndim) - 1);
        return NB_OK;
    }
    uint32_t m = 0;
    for (int32_t i = 0; i < ndims; i++) {
        int32_t d;
        nb_status st = nb_wrap_dim(op, dims[i], t->ndim, &d);
        if (st != NB_OK) return st;
        if (m & (1u << d))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims", op,
                            (int)d);
        m |= 1u << d;
    }
    *mask = t->ndim == 0 ? 0u : m;
    return NB_OK;
}

nb_status nb_red_check(const char* op, const nb_tensor* t, nb_tensor* dst, nb_tensor** out, int32_t family) {
    NB_CHECK_TENSOR(op, t);
    if (dst == NULL) NB_CHECK_OUT(op, out);
    else if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    else NB_CHECK_WRITABLE(op, dst);
    const nb_storage* s = t->storage;
    if (dst != NULL && (dst->storage->device_type != s->device_type || dst->storage->device_index != s->device_index))
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(s->device_type), (int)s->device_index);
    if (NB_LIKELY(s->device_type == NB_CPU)) return NB_OK;  /* the CPU runs every family today */
    const nb_backend* b;
    return nb_backend_slot(op, s->device_type, family, &b);
}

nb_status nb_red_check_dtype(const char* op, int32_t dtype) {
    if (dtype == -1 || nb_dtype_valid(dtype)) return NB_OK;
    return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d (expected -1 for the default or a NB_* dtype)", op,
                    (int)dtype);
}

int64_t nb_red_count(const nb_tensor* t, uint32_t mask) {
    int64_t n = 1;
    for (int32_t d = 0; d < t->ndim; d++)
        if (mask & (1u << d)) n *= t->shape[d];
    return n;
}

nb_status nb_red_check_nonempty(const char* op, const nb_tensor* t, uint32_t mask, bool all) {
    if (all && t->numel == 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s(): Expected reduction dim to be specified for input.numel() "
                        "== 0. Specify the reduction dim with the 'dim' argument.", op);
    for (int32_t d = 0; d < t->ndim; d++)
        if ((mask & (1u << d)) && t->shape[d] == 0)
            return nb_error(NB_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size (input shape %s).",
                            op, (int)d, nb_shape_str(t->shape, t->ndim));
    return NB_OK;
}

/* ---- stores ---- */

void nb_store_f64(char* p, int32_t dtype, double v) {
    switch (dtype) {
        case NB_F32: *(float*)p = (float)v; break;
        case NB_F64: *(double*)p = v; break;
        case NB_F16: *(uint16_t*)p = nb_double_to_half(v); break;
        case NB_BF16: *(uint16_t*)p = nb_double_to_bf16(v); break;
        case NB_BOOL: *(uint8_t*)p = v != 0; break;
        default: {  /* float -> integer: only reached through an explicit dtype; truncate, defined for NaN */
            int64_t i = (v != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0) ? INT64_MIN
                                                                                                : (int64_t)v;
            nb_store_i64(p, dtype, i);
        }
    }
}

void nb_store_i64(char* p, int32_t dtype, int64_t v) {
    switch (dtype) {
        case NB_I8: *(int8_t*)p = (int8_t)v; break;
        case NB_I16: *(int16_t*)p = (int16_t)v; break;
        case NB_I32: *(int32_t*)p = (int32_t)v; break;
        case NB_I64: *(int64_t*)p = v; break;
        case NB_U8: *(uint8_t*)p = (uint8_t)v; break;
        case NB_BOOL: *(uint8_t*)p = v != 0; break;
        default: nb_store_f64(p, dtype, (double)v);
    }
}

/* ---- the driver ---- */

typedef struct {
    const nb_red_kernel* k;
    const nb_red_ctx* ctx;
    const char* x;
    char* out[2];
    int32_t nout, nko, nro;          /* outer K dims, outer R dims */
    int64_t ko_size[NB_MAX_DIMS], ko_xs[NB_MAX_DIMS], ko_os[2][NB_MAX_DIMS];
    int64_t ro_size[NB_MAX_DIMS], ro_xs[NB_MAX_DIMS];
    int64_t jsize, jxs, jos[2];      /* innermost K dim (tiled) */
    int64_t isize, ixs;              /* innermost R dim (runs) */
    int64_t rtotal;                  /* R positions per output (0: empty reduction) */
    int64_t tile, ntiles, ntasks, chunk, nchunks;
    int32_t half;                    /* NB_F16 / NB_BF16 input of a float32 kernel, else -1 */
} plan;

typedef struct { int64_t size, xs, os[2]; } dim_info;

/* Sorts by decreasing |input stride| (stable insertion sort), then merges neighbours. */
static int32_t order_and_coalesce(dim_info* d, int32_t n, int32_t nout, bool sort) {
    if (sort) {
        for (int32_t i = 1; i < n; i++) {
            dim_info v = d[i];
            int32_t j = i;
            while (j > 0 && llabs(d[j - 1].xs) < llabs(v.xs)) { d[j] = d[j - 1]; j--; }
            d[j] = v;
        }
    }
    int32_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (m > 0) {
            dim_info* o = &d[m - 1];
            bool merge = o->xs == d[i].xs * d[i].size;
            for (int32_t k = 0; k < nout && merge; k++) merge = o->os[k] == d[i].os[k] * d[i].size;
            if (merge) {
                o->size *= d[i].size;
                o->xs = d[i].xs;
                for (int32_t k = 0; k < nout; k++) o->os[k] = d[i].os[k];
                continue;
            }
        }
        d[m++] = d[i];
    }
    return m;
}

/* n float16 / bfloat16 elements at s (byte stride ss) -> floats at d (exact).
 * The contiguous loops are written apart so that they vectorise. */
NB_SIMD static void widen(float* restrict d, const char* restrict s, int64_t ss, int64_t n, int32_t dtype) {
    if (dtype == NB_BF16) {
        uint32_t* restrict u = (uint32_t*)d;
        if (ss == 2) {
            const uint16_t* h = (const uint16_t*)s;
            for (int64_t i = 0; i < n; i++) u[i] = (uint32_t)h[i] << 16;
        } else {
            for (int64_t i = 0; i < n; i++) u[i] = (uint32_t)*(const uint16_t*)(s + i * ss) << 16;
        }
        return;
    }
#ifdef __FLT16_MAX__
    if (ss == 2) {
        const _Float16* h = (const _Float16*)s;
        for (int64_t i = 0; i < n; i++) d[i] = (float)h[i];
    } else {
        for (int64_t i = 0; i < n; i++) d[i] = (float)*(const _Float16*)(s + i * ss);
    }
#else
    for (int64_t i = 0; i < n; i++) d[i] = nb_half_to_float(*(const uint16_t*)(s + i * ss));
#endif
}

/* The kernel's accum over a float16 / bfloat16 block (n positions of stride si
 * by m outputs of stride sj), widened to float32 a few thousand elements at a
 * time into a buffer: one output's run at a time (row case; accumulators are
 * arrays of acc_size), or rows of m contiguous outputs (column case). No
 * whole-tensor float32 copy is made. */
static void accum_widened(const plan* p, void* acc, int64_t m, const char* x, int64_t n, int64_t idx0) {
    _Alignas(64) float buf[WIDE_FLOATS];
    const int64_t si = p->ixs, sj = p->jxs, fs = (int64_t)sizeof(float);
    if (m == 1 || llabs(si) <= llabs(sj)) {
        if (m > 1 && n <= WIDE_FLOATS / 8) {  /* short rows: several per call, for the kernels' row groups */
            const int64_t rows = WIDE_FLOATS / n;
            for (int64_t j0 = 0; j0 < m; j0 += rows) {
                const int64_t nr = m - j0 < rows ? m - j0 : rows;
                for (int64_t r = 0; r < nr; r++) widen(buf + r * n, x + (j0 + r) * sj, si, n, p->half);
                p->k->accum((char*)acc + j0 * p->k->acc_size, nr, (const char*)buf, n, fs, n * fs, idx0, p->ctx);
            }
            return;
        }
        for (int64_t j = 0; j < m; j++) {
            void* a = (char*)acc + j * p->k->acc_size;
            for (int64_t i0 = 0; i0 < n; i0 += WIDE_FLOATS) {
                const int64_t ni = n - i0 < WIDE_FLOATS ? n - i0 : WIDE_FLOATS;
                widen(buf, x + j * sj + i0 * si, si, ni, p->half);
                p->k->accum(a, 1, (const char*)buf, ni, fs, fs, idx0 + i0, p->ctx);
            }
        }
        return;
    }
    const int64_t step = WIDE_FLOATS / m;  /* m <= TILE_COL */
    for (int64_t i0 = 0; i0 < n; i0 += step) {
        const int64_t ni = n - i0 < step ? n - i0 : step;
        for (int64_t i = 0; i < ni; i++) widen(buf + i * m, x + (i0 + i) * si, sj, m, p->half);
        p->k->accum(acc, m, (const char*)buf, ni, m * fs, fs, idx0 + i0, p->ctx);
    }
}

/* Folds R positions [rb, re) of the task at x0 into acc (m accumulators). */
static void accum_range(const plan* p, void* acc, int64_t m, const char* x0, int64_t rb, int64_t re) {
    if (rb >= re) return;
    int64_t idx[NB_MAX_DIMS];
    int64_t i = rb % p->isize, q = rb / p->isize;
    const char* ptr = x0 + i * p->ixs;
    for (int32_t d = p->nro - 1; d >= 0; d--) {
        idx[d] = q % p->ro_size[d];
        q /= p->ro_size[d];
        ptr += idx[d] * p->ro_xs[d];
    }
    while (rb < re) {
        int64_t n = p->isize - i < re - rb ? p->isize - i : re - rb;
        if (p->half >= 0) accum_widened(p, acc, m, ptr, n, rb);
        else p->k->accum(acc, m, ptr, n, p->ixs, p->jxs, rb, p->ctx);
        rb += n;
        if (rb >= re) break;
        ptr -= i * p->ixs;
        i = 0;
        for (int32_t d = p->nro - 1; d >= 0; d--) {
            ptr += p->ro_xs[d];
            if (++idx[d] < p->ro_size[d]) break;
            ptr -= p->ro_xs[d] * p->ro_size[d];
            idx[d] = 0;
        }
    }
}

/* Input and output addresses of a task's first element; m = its tile's width. */
static const char* task_base(const plan* p, int64_t task, char** out, int64_t* m) {
    int64_t tile = task % p->ntiles, q = task / p->ntiles;
    const char* x = p->x + tile * p->tile * p->jxs;
    for (int32_t o = 0; o < p->nout; o++) out[o] = p->out[o] ? p->out[o] + tile * p->tile * p->jos[o] : NULL;
    for (int32_t d = p->nko - 1; d >= 0; d--) {
        int64_t k = q % p->ko_size[d];
        q /= p->ko_size[d];
        x += k * p->ko_xs[d];
        for (int32_t o = 0; o < p->nout; o++)
            if (out[o]) out[o] += k * p->ko_os[o][d];
    }
    int64_t left = p->jsize - tile * p->tile;
    *m = left < p->tile ? left : p->tile;
    return x;
}

static void run_task(const plan* p, int64_t task) {
    _Alignas(64) unsigned char acc[ACC_BYTES];
    char* out[2];
    int64_t m;
    const char* x = task_base(p, task, out, &m);
    p->k->init(acc, m, p->ctx);
    accum_range(p, acc, m, x, 0, p->rtotal);
    p->k->finish(acc, m, out, p->jos, p->ctx);
}

static void run_chunk(const plan* p, int64_t item, unsigned char* partials) {
    int64_t task = item / p->nchunks, chunk = item % p->nchunks;
    char* out[2];
    int64_t m;
    const char* x = task_base(p, task, out, &m);
    void* acc = partials + (size_t)item * (size_t)(p->tile * p->k->acc_size);
    p->k->init(acc, m, p->ctx);
    int64_t rb = chunk * p->chunk, re = rb + p->chunk < p->rtotal ? rb + p->chunk : p->rtotal;
    accum_range(p, acc, m, x, rb, re);
}

static void finish_chunks(const plan* p, int64_t task, unsigned char* partials) {
    char* out[2];
    int64_t m;
    task_base(p, task, out, &m);
    const size_t slot = (size_t)(p->tile * p->k->acc_size);
    unsigned char* first = partials + (size_t)(task * p->nchunks) * slot;
    for (int64_t c = 1; c < p->nchunks; c++) p->k->merge(first, first + (size_t)c * slot, m, p->ctx);
    p->k->finish(first, m, out, p->jos, p->ctx);
}

static bool use_threads(int64_t work, int64_t items) {
#ifdef _OPENMP
    return work >= GRAIN && items > 1 && omp_get_max_threads() > 1 && !omp_in_parallel();
#else
    (void)work, (void)items;
    return false;
#endif
}

/* Runs k over the plan's input (of the kernel's dtype) into its outputs. */
/* native: k reads the input's dtype itself (no widening of float16 / bfloat16 blocks). */
static nb_status red_exec(const nb_bk_reduce* pl, const nb_red_kernel* k, const nb_red_ctx* ctx, bool native) {
    const char* op = pl->name;
    const int32_t nout = pl->nout;
    dim_info kd[NB_MAX_DIMS], rd[NB_MAX_DIMS];
    int32_t nk = 0, nr = 0;
    bool empty = false;
    const int64_t xsz = nb_dtype_sizes[pl->in_dtype];
    for (int32_t d = 0; d < pl->ndim; d++) {
        bool red = (pl->mask >> d) & 1u;
        int64_t os[2] = {0, 0};
        for (int32_t o = 0; o < nout && !red; o++)
            if (pl->out[o]) os[o] = pl->out_strides[o][d] * nb_dtype_sizes[pl->out_dtype[o]];
        if (pl->shape[d] == 0) {
            if (!red) return NB_OK;  /* no outputs */
            empty = true;
        }
        if (pl->shape[d] == 1) continue;
        dim_info di = {pl->shape[d], pl->in_strides[d] * xsz, {os[0], os[1]}};
        if (red) rd[nr++] = di;
        else kd[nk++] = di;
    }
    nk = order_and_coalesce(kd, nk, nout, true);
    nr = order_and_coalesce(rd, nr, 0, !k->ordered);

    plan p;
    memset(&p, 0, sizeof p);
    p.k = k, p.ctx = ctx, p.x = pl->in, p.nout = nout;
    p.half = pl->in_dtype != pl->acc_dtype && !native ? pl->in_dtype : -1;
    for (int32_t o = 0; o < nout; o++) p.out[o] = pl->out[o];
    p.jsize = 1;
    if (nk > 0) {
        p.jsize = kd[nk - 1].size, p.jxs = kd[nk - 1].xs;
        p.jos[0] = kd[nk - 1].os[0], p.jos[1] = kd[nk - 1].os[1];
    }
    p.nko = nk > 0 ? nk - 1 : 0;
    for (int32_t d = 0; d < p.nko; d++) {
        p.ko_size[d] = kd[d].size, p.ko_xs[d] = kd[d].xs;
        p.ko_os[0][d] = kd[d].os[0], p.ko_os[1][d] = kd[d].os[1];
    }
    p.isize = 1;
    if (nr > 0) p.isize = rd[nr - 1].size, p.ixs = rd[nr - 1].xs;
    /* Nothing to reduce (reduced dims of size 1): one element per output, taken
     * as a column block (its stride is never stepped) so kernels run across the
     * outputs' contiguous dim instead of one call per output. */
    if (nr == 0 && nk > 0) p.ixs = 2 * llabs(p.jxs) + 1;
    p.nro = nr > 0 ? nr - 1 : 0;
    int64_t router = 1;
    for (int32_t d = 0; d < p.nro; d++) p.ro_size[d] = rd[d].size, p.ro_xs[d] = rd[d].xs, router *= rd[d].size;
    p.rtotal = empty ? 0 : router * p.isize;

    bool column = nk > 0 && llabs(p.jxs) < llabs(p.ixs);
    int64_t kouter = 1;
    for (int32_t d = 0; d < p.nko; d++) kouter *= p.ko_size[d];
    int64_t tile = column ? TILE_COL : TILE_ROW;
    if (tile * k->acc_size > ACC_BYTES) tile = ACC_BYTES / k->acc_size;
    /* Rows: narrower tiles before splitting rows into chunks, so that a task
     * streams whole rows (a chunk of each of 64 rows is 64 short streams). */
    if (!column && kouter * ((p.jsize + tile - 1) / tile) < SPLIT_TASKS) {
        const int64_t want = (SPLIT_TASKS + kouter - 1) / kouter;
        tile = p.jsize >= want ? (p.jsize + want - 1) / want : 1;
    }
    p.tile = p.jsize < tile ? p.jsize : tile;
    p.ntiles = (p.jsize + p.tile - 1) / p.tile;
    p.ntasks = kouter * p.ntiles;
    int64_t work = 1;
    for (int32_t d = 0; d < pl->ndim; d++) work *= pl->shape[d];

    /* Few tasks over a long reduced range: chunks of a fixed size (shape-only). */
    int64_t chunk = CHUNK_WORK / p.tile;
    if (chunk < 256) chunk = 256;
    if (p.ntasks < SPLIT_TASKS && p.rtotal >= 2 * chunk) {
        int64_t max_chunks = MAX_PARTIAL_BYTES / (p.ntasks * p.tile * k->acc_size);
        if (max_chunks > MAX_CHUNKS) max_chunks = MAX_CHUNKS;
        if (max_chunks < 2) max_chunks = 2;
        if ((p.rtotal + chunk - 1) / chunk > max_chunks) chunk = (p.rtotal + max_chunks - 1) / max_chunks;
        p.chunk = chunk;
        p.nchunks = (p.rtotal + chunk - 1) / chunk;
        const int64_t items = p.ntasks * p.nchunks;
        const size_t bytes = (size_t)items * (size_t)(p.tile * k->acc_size);
        unsigned char* partials = nb_cpu_alloc(bytes);
        if (partials == NULL)
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes of partial results", op, bytes);
        if (use_threads(work, items)) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
            for (int64_t it = 0; it < items; it++) run_chunk(&p, it, partials);
        } else {
            for (int64_t it = 0; it < items; it++) run_chunk(&p, it, partials);
        }
        for (int64_t t = 0; t < p.ntasks; t++) finish_chunks(&p, t, partials);
        nb_cpu_free(partials, bytes);
        return NB_OK;
    }
    if (use_threads(work, p.ntasks)) {
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
        for (int64_t t = 0; t < p.ntasks; t++) run_task(&p, t);
    } else {
        for (int64_t t = 0; t < p.ntasks; t++) run_task(&p, t);
    }
    return NB_OK;
}

/* dst may take the kernel's results directly: right dtype, no internal overlap, no shared memory with the input. */
static bool writable_directly(const nb_tensor* dst, int32_t dtype, const nb_tensor* in, const nb_tensor* other) {
    if (dst->dtype != dtype || dst->storage == in->storage || (other && other->storage == dst->storage)) return false;
    for (int32_t d = 0; d < dst->ndim; d++)
        if (dst->strides[d] == 0 && dst->shape[d] > 1) return false;
    return true;
}

/* The CPU kernel of a plan and the ctx it reads. */
static const nb_red_kernel* cpu_kernel(const nb_bk_reduce* pl, nb_red_ctx* ctx) {
    switch (pl->op) {
        case NB_RK_MAX: case NB_RK_MIN: return nb_red_cpu_arg(pl->op, pl->acc_dtype);
        case NB_RK_VAR: case NB_RK_STD: case NB_RK_NORM: case NB_RK_LOGSUMEXP:
            return nb_red_cpu_stats(pl->op, pl->acc_dtype, ctx);
        default: return nb_red_cpu_basic(pl->op, pl->acc_dtype, ctx);
    }
}

nb_status nb_cpu_reduce(int32_t device_index, const nb_bk_reduce* pl, void* stream) {
    (void)device_index, (void)stream;
    nb_red_ctx ctx = {.count = 1, .out_dtype = {pl->out_dtype[0], pl->nout > 1 ? pl->out_dtype[1] : -1},
                      .p = pl->p, .correction = pl->correction};
    for (int32_t d = 0; d < pl->ndim; d++)
        if ((pl->mask >> d) & 1u) ctx.count *= pl->shape[d];
    const nb_red_kernel* k = pl->op >= 0 && pl->op < NB_RK_NUM && nb_dtype_valid(pl->acc_dtype)
                                 ? cpu_kernel(pl, &ctx) : NULL;
    const bool half_in = pl->acc_dtype == NB_F32 && (pl->in_dtype == NB_F16 || pl->in_dtype == NB_BF16);
    if (k == NULL || (pl->in_dtype != pl->acc_dtype && !half_in))
        return nb_error(NB_ERR_INTERNAL, "%s: no cpu reduce kernel %d for %s input computing in %s", pl->name,
                        (int)pl->op, nb_dtype_str(pl->in_dtype), nb_dtype_str(pl->acc_dtype));
    const nb_red_kernel* own = half_in ? nb_red_cpu_half(pl->op, pl->in_dtype, &ctx) : NULL;
    return red_exec(pl, own ? own : k, &ctx, own != NULL);
}

/* Every backend reads float16 / bfloat16 as they are for a float32 reduction
 * (exact; the CPU widens blocks of them as it goes). */
static bool read_natively(const nb_tensor* t, int32_t acc) {
    return t->dtype == acc || (acc == NB_F32 && (t->dtype == NB_F16 || t->dtype == NB_BF16));
}

nb_status nb_red_run(nb_red_call* c) {
    const char* op = c->name;
    const nb_tensor* t = c->t;
    const int32_t dev = t->storage->device_type, di = t->storage->device_index;
    int64_t shape[NB_MAX_DIMS];
    int32_t nd = 0;
    for (int32_t d = 0; d < t->ndim; d++) {
        bool red = (c->mask >> d) & 1u;
        if (red && c->keepdim) shape[nd++] = 1;
        else if (!red) shape[nd++] = t->shape[d];
    }
    for (int32_t o = 0; o < c->nout; o++) {
        nb_tensor* dst = c->dst[o];
        if (dst == NULL) continue;
        if (dst->storage->device_type != dev || dst->storage->device_index != di)
            return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the input is on %s:%d", op,
                            nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                            nb_device_type_name(dev), (int)di);
        if (dst == t && !nb_same_shape(dst, shape, nd))
            return nb_error(NB_ERR_SHAPE, "%s: the out tensor has shape %s but the result has shape %s", op,
                            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(shape, nd));
        if (dst->dtype != c->out_dtype[o])
            return nb_error(NB_ERR_DTYPE, "%s: Expected out tensor to have dtype %s, but got %s instead", op,
                            nb_dtype_cpp_name(c->out_dtype[o]), nb_dtype_cpp_name(dst->dtype));
    }
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dev, NB_FAMILY_REDUCE, &b);
    if (st != NB_OK) return st;
    for (int32_t o = 0; o < c->nout; o++) {
        st = c->dst[o] == NULL ? NB_OK : nb_resize_output(op, c->dst[o], &c->t, 1, shape, nd);
        if (st != NB_OK) return st;
    }

    nb_tensor* x = NULL;
    nb_tensor* target[2] = {NULL, NULL};
    if (!read_natively(t, c->in_dtype)) st = nb_tensor_to(t, c->in_dtype, dev, di, 0, &x);
    else nb_tensor_retain(x = (nb_tensor*)t);
    for (int32_t o = 0; o < c->nout && st == NB_OK; o++) {
        nb_tensor* dst = c->dst[o];
        if (dst != NULL && writable_directly(dst, c->out_dtype[o], t, c->dst[1 - o]))
            nb_tensor_retain(target[o] = dst);
        else if (c->out[o] != NULL || dst != NULL)
            st = nb_tensor_new(op, shape, nd, c->out_dtype[o], dev, di, &target[o]);
    }
    if (st == NB_OK) {
        nb_bk_reduce pl;
        pl.name = op, pl.op = c->op, pl.in_dtype = x->dtype, pl.acc_dtype = c->in_dtype, pl.ndim = x->ndim;
        pl.nout = c->nout, pl.mask = c->mask, pl.in = nb_tensor_data(x), pl.p = c->p, pl.correction = c->correction;
        memcpy(pl.shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
        memcpy(pl.in_strides, x->strides, sizeof(int64_t) * (size_t)x->ndim);
        for (int32_t o = 0; o < 2; o++) {
            pl.out[o] = o < c->nout && target[o] ? nb_tensor_data(target[o]) : NULL;
            pl.out_dtype[o] = o < c->nout ? c->out_dtype[o] : -1;
            if (pl.out[o] == NULL) continue;
            for (int32_t d = 0, od = 0; d < x->ndim; d++) {
                const bool red = (c->mask >> d) & 1u;
                pl.out_strides[o][d] = red ? 0 : target[o]->strides[od];
                od += !red || c->keepdim;
            }
        }
        pl.workspace = NULL, pl.workspace_bytes = 0;
        if (dev == NB_CPU) {
            st = b->reduce(di, &pl, NULL);
        } else {
            int64_t outputs = 1, count = 1;
            for (int32_t d = 0; d < x->ndim; d++) *(((c->mask >> d) & 1u) ? &count : &outputs) *= x->shape[d];
            nb_tensor* ws = NULL;
            int64_t bytes = nb_bk_reduce_workspace_bytes(outputs, count);
            if (bytes > 0 && (st = nb_tensor_new(op, &bytes, 1, NB_U8, dev, di, &ws)) == NB_OK)
                pl.workspace = nb_tensor_data(ws), pl.workspace_bytes = bytes;
            if (st == NB_OK) {
                st = b->reduce(di, &pl, nb_stream_current_of(dev, di)->native);
                if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
            }
            nb_tensor_release(ws);  /* reused only by later work on this stream */
        }
    }
    for (int32_t o = 0; o < c->nout && st == NB_OK; o++)
        if (c->dst[o] != NULL && target[o] != c->dst[o]) st = nb_copy_into(op, c->dst[o], target[o]);
    nb_tensor_release(x);
    if (st != NB_OK) {
        for (int32_t o = 0; o < c->nout; o++) nb_tensor_release(target[o]);
        return st;
    }
    for (int32_t o = 0; o < c->nout; o++) {
        nb_tensor* dst = c->dst[o];
        if (dst != NULL) {  /* target is dst itself (one extra reference) or a temporary copied into it */
            nb_tensor_bump_version(dst);
            nb_tensor_release(target[o]);
            if (c->out[o] != NULL) {
                nb_tensor_retain(dst);
                *c->out[o] = dst;
            }
        } else if (c->out[o] != NULL) {
            *c->out[o] = target[o];
        }
    }
    return NB_OK;
}
