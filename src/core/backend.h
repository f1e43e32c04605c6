/* backend.h: the table a device backend fills in (CPU in-tree, CUDA as a plugin).
 * C and C++ compatible: the CUDA plugin (compiled by nvcc) includes it too. */
#ifndef NABLA_BACKEND_H_
#define NABLA_BACKEND_H_

#include "nabla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever nb_backend or nb_plugin_init_fn changes. */
#define NB_PLUGIN_ABI 12

/* Dtype codes run from 0 (NB_F32) to NB_BK_NUM_DTYPES - 1 (NB_BOOL). */
#define NB_BK_NUM_DTYPES 10

/* Elementwise kernels (nb_backend.elementwise): one code per kernel, NB_BK_* from
 * the manifest (abi/gen.py writes ew_codes.h), binary kernels below NB_BK_NUM_BINARY. */
#include "ew_codes.h"

/* The ternary select, outside the manifest's codes: out[i] = cond[i] ? in[0][i] : in[1][i]
 * for any dtype (a bit copy; scalars come as their bits in the dtype, in scalar_i64). */
#define NB_BK_WHERE NB_BK_NUM_OPS

/* The kernels that also run on integer and bool inputs (the rest are float only; an
 * integer input of those promotes to float before it gets here). Integers compute in
 * int64 and wrap; bool computes in int64 and stores != 0. */
#define NB_BK_INTEGER(X)                                                                                    \
    X(ADD) X(SUB) X(MUL) X(DIV_TRUNC) X(DIV_FLOOR) X(REMAINDER) X(FMOD) X(POW) X(MAXIMUM) X(MINIMUM) X(EQ)  \
    X(NE) X(LT) X(LE) X(GT) X(GE) X(LOGICAL_AND) X(LOGICAL_OR) X(LOGICAL_XOR) X(NEG) X(ABS) X(SIGN) X(RELU) \
    X(SQUARE) X(FLOOR) X(CEIL) X(ROUND) X(TRUNC) X(LOGICAL_NOT) X(ISNAN) X(ISINF) X(ISFINITE) X(CLAMP)      \
    NB_BK_INTEGER_ONLY(X)
/* The bitwise kernels: integer and bool inputs only (no float kernel). Shifts follow the
 * CPU's rules at the input's width; computed on int64 and narrowed they give the same bits. */
#define NB_BK_INTEGER_ONLY(X) \
    X(BITWISE_AND) X(BITWISE_OR) X(BITWISE_XOR) X(BITWISE_LEFT_SHIFT) X(BITWISE_RIGHT_SHIFT) X(BITWISE_NOT)
#define NB_BK_CASE_(NAME) case NB_BK_##NAME:
static inline int nb_bk_has_integer_kernel(int32_t op) {
    switch (op) {
    NB_BK_INTEGER(NB_BK_CASE_) return 1;
    default: return 0;
    }
}

/* One elementwise launch: out[i] = op(in[0][i], in[1][i]) over shape[ndim].
 * Inputs have dtype `dtype`: NB_F32, NB_F64, NB_F16 or NB_BF16 (half types compute
 * in float), or, for the kernels of nb_bk_has_integer_kernel, NB_I64 or NB_BOOL
 * (narrower integers are widened to int64 by the caller); NB_BK_WHERE takes any
 * dtype. The output has that dtype or bool. Pointers include the tensors'
 * offsets; strides count elements, 0 broadcasts. An input with is_scalar[i] set is
 * the value scalar[i] (integer kernels: scalar_i64[i], exact) and in[i] is unused. */
typedef struct nb_bk_ew {
    int32_t op, nin, dtype, ndim;
    int64_t shape[NB_MAX_DIMS];
    void* out;
    int64_t out_strides[NB_MAX_DIMS];
    const void* in[2];
    int64_t in_strides[2][NB_MAX_DIMS];
    int32_t is_scalar[2];
    double scalar[2];
    /* attributes: alpha (add/sub alpha, leaky_relu slope, elu alpha, softplus beta,
     * clamp min, nan_to_num nan), beta (softplus threshold, clamp max, posinf), gamma (neginf) */
    double alpha, beta, gamma;
    int64_t scalar_i64[2];              /* integer kernels: the scalars as int64; NB_BK_WHERE: their bits */
    const void* cond;                   /* NB_BK_WHERE: the bool condition and its strides */
    int64_t cond_strides[NB_MAX_DIMS];
} nb_bk_ew;

/* Kernel families. An op validates, promotes, broadcasts and sizes its outputs
 * once (src/ops, src/core), then hands a plan to its device's backend slot for
 * its family; nb_backend_slot (device.c) finds the slot or fails with
 * NB_ERR_NOT_IMPLEMENTED naming the op, the device and the family. */
enum {
    NB_FAMILY_COPY, NB_FAMILY_ELEMENTWISE, NB_FAMILY_REDUCE, NB_FAMILY_LINES, NB_FAMILY_GEMM, NB_FAMILY_CONV,
    NB_FAMILY_POOL, NB_FAMILY_NORM, NB_FAMILY_INDEX, NB_FAMILY_SORT, NB_FAMILY_RNG, NB_FAMILY_OPTIM,
    NB_FAMILY_LOSS, NB_FAMILY_ATTENTION, NB_FAMILY_EMBEDDING, NB_NUM_FAMILIES
};

/* One strided copy on one device: dst[i] = convert(src[i]) over shape[ndim],
 * any pair of the ten dtypes (the conversions of src/cpu/convert.c). Pointers
 * include the tensors' offsets; strides count elements; a src stride of 0
 * broadcasts. dst has no internal overlap and does not overlap src. */
typedef struct nb_bk_copy {
    int32_t dst_dtype, src_dtype, ndim;
    int64_t shape[NB_MAX_DIMS];
    void* dst;
    int64_t dst_strides[NB_MAX_DIMS];
    const void* src;
    int64_t src_strides[NB_MAX_DIMS];
} nb_bk_copy;

/* Reductions (nb_bk_reduce.op). MAX / MIN write the value (out[0], may be NULL)
 * and the int64 index of its first occurrence in the reduced range, dims in
 * logical order (out[1]): max_dim, min_dim, argmax, argmin. */
enum {
    NB_RK_SUM, NB_RK_MEAN, NB_RK_PROD, NB_RK_AMAX, NB_RK_AMIN, NB_RK_ALL, NB_RK_ANY, NB_RK_MAX, NB_RK_MIN,
    NB_RK_VAR, NB_RK_STD, NB_RK_NORM, NB_RK_LOGSUMEXP, NB_RK_NUM
};

/* One reduction over the dims in `mask` of an input of shape[ndim]. The input
 * has dtype in_dtype; acc_dtype is the dtype the op computes in (NB_F32,
 * NB_F64, an integer or bool): in_dtype equals it, except that float16 and
 * bfloat16 inputs of a float32 reduction are read as they are (every
 * backend widens them itself; no float32 copy of the input is made). Outputs have out_dtype[o] (any
 * dtype; the index output int64) and strides given per input dim (entries of
 * reduced dims unused); out[o] NULL: not wanted. Every output element is
 * written, also over an empty reduced range (the op's identity: 0 for sum,
 * NaN for mean ...). Float results are rounded once into their dtype. */
typedef struct nb_bk_reduce {
    const char* name;      /* the op, for messages */
    int32_t op;            /* NB_RK_* */
    int32_t in_dtype, acc_dtype, ndim, nout;
    uint32_t mask;
    int64_t shape[NB_MAX_DIMS];
    const void* in;
    int64_t in_strides[NB_MAX_DIMS];
    void* out[2];
    int32_t out_dtype[2];
    int64_t out_strides[2][NB_MAX_DIMS];
    double p;              /* NORM: the order (0, 1, 2, inf, -inf or any other) */
    double correction;     /* VAR, STD: divide by max(0, n - correction) */
    /* Device scratch for splitting long reductions over several blocks (NULL on
     * the CPU): nb_bk_reduce_workspace_bytes(outputs, count) bytes, allocated by
     * the core on the device and given back after the launch (stream-ordered). */
    void* workspace;
    int64_t workspace_bytes;
} nb_bk_reduce;

/* Long reductions may be split into pieces over several blocks, each writing
 * one partial (at most NB_BK_REDUCE_PARTIAL_BYTES) that a second pass combines
 * in a fixed order: at most NB_BK_REDUCE_MAX_SPLIT pieces per output and
 * NB_BK_REDUCE_MAX_PARTIALS partials in all. A device asks for no more than
 * this bound; a smaller workspace only means it does not split. */
#define NB_BK_REDUCE_MAX_SPLIT 1024
#define NB_BK_REDUCE_MAX_PARTIALS (1 << 17)
#define NB_BK_REDUCE_PARTIAL_BYTES 32
static inline int64_t nb_bk_reduce_workspace_bytes(int64_t outputs, int64_t count) {
    if (outputs < 1 || count < 256 || outputs > NB_BK_REDUCE_MAX_PARTIALS / 2 || outputs * count < 65536) return 0;
    const int64_t partials = outputs * NB_BK_REDUCE_MAX_SPLIT;
    return (partials < NB_BK_REDUCE_MAX_PARTIALS ? partials : NB_BK_REDUCE_MAX_PARTIALS) * NB_BK_REDUCE_PARTIAL_BYTES;
}

/* Index kernels (nb_bk_index.op). */
enum {
    NB_IXK_GATHER,         /* out[i] = src[i with dim -> idx[i]]                  */
    NB_IXK_SCATTER,        /* out[i with dim -> idx[i]] = src[i]                  */
    NB_IXK_SCATTER_ADD,    /* out[i with dim -> idx[i]] += alpha * src[i]         */
    NB_IXK_SCATTER_REDUCE, /* out[...] = reduce(out[...], src[i]) (reduce below)  */
    NB_IXK_MASKED_FILL,    /* out[i] = value where mask[i] (mask: bool, in idx)   */
    NB_IXK_MASKED_SELECT,  /* out[k] = src[i] for the k-th set mask[i], row-major */
    NB_IXK_EMBEDDING_BACKWARD, /* out[r] = sum of src rows whose idx is r, in index order */
    NB_IXK_NUM,
    NB_IXK_INDEX = NB_IXK_NUM, /* out[i] = src[i moved by idxs[j][i] along idxs[j].dim, every j] */
    NB_IXK_INDEX_PUT           /* out[...] = src[i] (or += with accumulate), the same places     */
};

/* Up to this many index tensors in one INDEX / INDEX_PUT launch. */
#define NB_BK_INDEX_MAX_INDICES 8

/* One index tensor of advanced indexing, read with strides over the iteration shape. */
typedef struct nb_bk_index_operand {
    const void* data;          /* int64 or int32 */
    int32_t dtype;
    int32_t dim;               /* the dim of the indexed tensor it selects along (for messages) */
    int64_t size;              /* that dim's size; values in [-size, size) */
    int64_t stride;            /* that dim's stride in the indexed tensor (src for INDEX, out for INDEX_PUT) */
    int64_t strides[NB_MAX_DIMS];
} nb_bk_index_operand;

/* One index kernel over an iteration shape[ndim]. Pointers include the tensors'
 * offsets; strides count elements. `dim` is the indexed dim: along it, out (put
 * kernels) or src (take kernels) has `dim_size` elements and the iteration walks
 * idx instead. idx (int64 or int32; bool for masks) is read with idx_strides;
 * a value outside [-dim_size, dim_size) (or [0, dim_size) without wrap) is an
 * error the device reports at the next sync with `name` (see the plugin's
 * device error word). index_select/index_add/embedding are gather/scatter_add
 * with idx strides 0 outside dim. */
typedef struct nb_bk_index {
    const char* name;      /* the op, for messages */
    int32_t op;            /* NB_IXK_* */
    int32_t dtype, idx_dtype, ndim, dim, wrap;
    int32_t reduce;        /* SCATTER_REDUCE: NB_RK_PROD, NB_RK_AMAX or NB_RK_AMIN */
    int64_t shape[NB_MAX_DIMS];
    int64_t dim_size;
    void* out;
    int64_t out_strides[NB_MAX_DIMS];
    const void* src;
    int64_t src_strides[NB_MAX_DIMS];
    const void* idx;
    int64_t idx_strides[NB_MAX_DIMS];
    double alpha;          /* SCATTER_ADD */
    uint8_t value[8];      /* MASKED_FILL: the fill value's bytes in dtype */
    int64_t padding_idx;   /* EMBEDDING_BACKWARD: rows with this index add nothing (-1: none) */
    /* INDEX, INDEX_PUT: shape is the result of x[indices]; the dims [bstart, bstart + bnd)
     * are the broadcast index dims (out / src strides 0 there for the indexed tensor),
     * idxs[nidx] the index tensors. INDEX_PUT runs one thread per element outside those
     * dims, walking them in row-major order, so duplicates resolve in index order
     * (the last write wins; accumulate adds in that order). */
    int32_t nidx, bstart, bnd, accumulate;
    nb_bk_index_operand idxs[NB_BK_INDEX_MAX_INDICES];
} nb_bk_index;

/* GEMM (mm, bmm, addmm, baddbmm, matmul's cases, linear, mv, dot):
 *     C[b] = alpha * A[b] @ B[b] + beta * addend[b]   over broadcast batch dims.
 * Operands are in the compute dtype (f16/bf16 arrive as f32 on the CPU; the CUDA
 * backend takes them as they are and accumulates in f32). Pointers include
 * the tensors' offsets; strides count elements. */
typedef struct nb_bk_gemm_operand {
    char* data;                     /* the first element of batch 0 */
    int64_t rs, cs;                 /* row and column strides (free when that size is 1) */
    int64_t bstrides[NB_MAX_DIMS];  /* per batch dim; 0 broadcasts the operand */
} nb_bk_gemm_operand;

typedef struct nb_bk_gemm {
    int32_t dtype;                  /* NB_F32, NB_F64, NB_F16, NB_BF16 or an integer dtype (not bool) */
    int64_t M, N, K;
    int32_t bndim;                  /* batch dims, outermost first */
    int64_t bshape[NB_MAX_DIMS];
    nb_bk_gemm_operand a, b, c;     /* a: M x K, b: K x N, c: M x N (c never overlaps a or b) */
    nb_bk_gemm_operand in;          /* an addend broadcast to M x N (stride 0), or none: */
    int32_t in_dtype;               /* its dtype, or -1 when C already holds the addend or there is none */
    double alpha, beta;             /* floating dtypes */
    int64_t ialpha, ibeta;          /* integer dtypes (PyTorch truncates alpha and beta) */
    int32_t accumulate;             /* nonzero: beta applies (beta != 0 and an addend, in C or in `in`) */
} nb_bk_gemm;

/* Line ops (nb_bk_lines.op): each line of the tensor along `dim` is computed
 * independently. Backward ops read grad_output as `in` and the forward's
 * output as `aux`; the scans' gradients are composed by the front end. */
enum {
    NB_LK_SOFTMAX, NB_LK_LOG_SOFTMAX, NB_LK_SOFTMAX_BACKWARD, NB_LK_LOG_SOFTMAX_BACKWARD,
    NB_LK_CUMSUM, NB_LK_CUMPROD, NB_LK_LOGCUMSUMEXP, NB_LK_NUM
};

/* One line op over tensors of shape[ndim] (ndim >= 1; a 0-dim input is planned
 * as shape {1}), strides in elements, data pointers already offset. in and aux
 * have in_dtype; the op computes in acc_dtype (float16 / bfloat16 in float32,
 * integers of cumsum / cumprod in int64) and rounds each result once into
 * out_dtype. Empty tensors are not planned. */
typedef struct nb_bk_lines {
    const char* name;      /* the op, for messages */
    int32_t op;            /* NB_LK_* */
    int32_t in_dtype, acc_dtype, out_dtype, ndim, dim;
    int64_t shape[NB_MAX_DIMS];
    const void* in;        /* the input, or grad_output for a backward op */
    int64_t in_strides[NB_MAX_DIMS];
    const void* aux;       /* backward: the forward's output; NULL otherwise */
    int64_t aux_strides[NB_MAX_DIMS];
    void* out;
    int64_t out_strides[NB_MAX_DIMS];
} nb_bk_lines;

/* Pooling kinds (nb_bk_pool.kind). */
enum { NB_PK_MAX, NB_PK_AVG, NB_PK_ADAPTIVE_AVG, NB_PK_NUM };

/* Up to this many spatial dims in one pooling plan. */
#define NB_BK_POOL_MAX_SPATIAL 3

/* One pooling launch over planes [N, C] and `nspatial` (1 to 3) spatial dims.
 * x is the input side (forward: the input, read; backward: grad_input, written
 * whole), y the output side (forward: the output, written; backward:
 * grad_output, read); indices (int64, y's shape) are the flat spatial positions
 * of the maxima within x's plane, as PyTorch's (2-d: h * W + w): written by a
 * forward max (NULL: not wanted), read by its backward. Pointers include the
 * tensors' offsets; strides count elements, N and C first, then the spatial
 * dims. The front end has validated everything and computed out_size (ceil_mode
 * included); for ADAPTIVE_AVG kernel/stride/padding/dilation are unused; a
 * backward max with kernel 0 along a dim does not know its windows there (every
 * output cell's index is compared, slower).
 * dtype: the x and y dtype, NB_F32, NB_F64, NB_F16 or NB_BF16 (half types
 * accumulate in float32), or NB_I64 for a forward max or avg (integer
 * division truncates). Max pooling lets NaN win; average divides by divisor
 * when non-zero, else by the window size with (count_include_pad) or without
 * the padding. A backward writes every element of x exactly once. */
typedef struct nb_bk_pool {
    const char* name;      /* the op, for messages */
    int32_t kind;          /* NB_PK_* */
    int32_t backward;      /* nonzero: the gradient with respect to the input */
    int32_t dtype, nspatial;
    int32_t count_include_pad;
    int64_t divisor;       /* 0: none */
    int64_t batch[2];      /* N, C */
    int64_t in_size[NB_BK_POOL_MAX_SPATIAL], out_size[NB_BK_POOL_MAX_SPATIAL];
    int64_t kernel[NB_BK_POOL_MAX_SPATIAL], stride[NB_BK_POOL_MAX_SPATIAL];
    int64_t padding[NB_BK_POOL_MAX_SPATIAL], dilation[NB_BK_POOL_MAX_SPATIAL];
    void* x;
    int64_t x_strides[2 + NB_BK_POOL_MAX_SPATIAL];
    void* y;
    int64_t y_strides[2 + NB_BK_POOL_MAX_SPATIAL];
    void* indices;
    int64_t indices_strides[2 + NB_BK_POOL_MAX_SPATIAL];
} nb_bk_pool;

/* Sort kernels (nb_bk_sort.op). */
enum {
    NB_SK_SORT,          /* each line along dim sorted: its first k values and int64 indices */
    NB_SK_GROUPS,        /* group[j]: how many of in[1..j] differ from their predecessor */
    NB_SK_GROUPS_WRITE,  /* per group: its value, its count, and every element's group (inverse) */
    NB_SK_SEARCH,        /* searchsorted: each value's insertion point in its sorted line */
    NB_SK_NUM
};

/* Lines whose length rounded up to a power of two is at most this many elements
 * sort in one block's shared memory; longer lines sort through the workspace. */
#define NB_BK_SORT_TILE 2048

static inline int64_t nb_bk_sort_pow2(int64_t n) {
    int64_t p = 1;
    while (p < n) p *= 2;
    return p;
}

/* Device workspace a sort plan needs (0: none): SORT, lines of len elements of
 * elem_size bytes longer than the tile: a padded (key, index) pair per element;
 * GROUPS over len elements: one int64 per block of the scan. */
static inline int64_t nb_bk_sort_workspace_bytes(int32_t op, int64_t lines, int64_t len, int64_t elem_size) {
    if (op == NB_SK_GROUPS) return ((len + NB_BK_SORT_TILE - 1) / NB_BK_SORT_TILE) * 8;
    if (op != NB_SK_SORT || lines <= 0 || len <= 0) return 0;
    const int64_t p = nb_bk_sort_pow2(len);
    return p <= NB_BK_SORT_TILE ? 0 : lines * p * (elem_size + 4) + 8;
}

/* One sort kernel. Keys order as in PyTorch: NaN above every number (last
 * ascending, first descending), -0.0 equal to 0.0; ties keep their order (the
 * sort is always stable), descending too.
 *   SORT: over shape[ndim] (ndim >= 1; a 0-dim input is planned as shape {1}),
 *     each line along dim (shape[dim] >= 1) sorted; values (dtype, may be NULL)
 *     and indices (int64, may be NULL) get the first k (1 <= k <= shape[dim]) of
 *     each line, with strides per dim (along dim: position in the sorted line).
 *   GROUPS: in is n >= 1 contiguous elements (sorted for unique); group[j] (int64)
 *     counts the j' <= j where in[j'] != in[j' - 1] (NaN differs from itself, as
 *     in PyTorch's unique); groups = group[n - 1] + 1.
 *   GROUPS_WRITE: from in and group as above and order (in's position in the
 *     original input of each element, NULL: the identity): values[g] (dtype,
 *     contiguous) the first element of group g, counts[g] (int64, may be NULL)
 *     its size, inverse[order[j]] = group[j] (int64, contiguous, may be NULL).
 *   SEARCH: over shape[ndim] (the values' shape, ndim >= 1; dim = ndim - 1), for
 *     every element of values (read, dtype) the number of elements of its line of
 *     in (n >= 0 of them, sorted ascending, dtype) that are below it, as PyTorch
 *     counts: s with !(s >= v), or !(s > v) with right (a NaN value: n); written to
 *     indices (index_dtype: NB_I64 or NB_I32). The line of a value starts at the
 *     in_strides of its dims before the last (0 for one line shared by all) and
 *     steps by in_strides[dim].
 * Pointers include offsets; strides count elements. */
typedef struct nb_bk_sort {
    const char* name;      /* the op, for messages */
    int32_t op;            /* NB_SK_* */
    int32_t dtype, ndim, dim;
    int32_t descending;    /* SORT */
    int64_t k;             /* SORT */
    int64_t n;             /* GROUPS, GROUPS_WRITE */
    int64_t shape[NB_MAX_DIMS];
    const void* in;
    int64_t in_strides[NB_MAX_DIMS];
    void* values;
    int64_t values_strides[NB_MAX_DIMS];
    void* indices;         /* SORT: the indices; GROUPS_WRITE: the inverse */
    int64_t indices_strides[NB_MAX_DIMS];
    int64_t* group;        /* GROUPS: written; GROUPS_WRITE: read */
    const int64_t* order;  /* GROUPS_WRITE */
    int64_t* counts;       /* GROUPS_WRITE */
    void* workspace;       /* nb_bk_sort_workspace_bytes(...) bytes of device memory, or NULL when 0 */
    int64_t workspace_bytes;
    int32_t right;         /* SEARCH */
    int32_t index_dtype;   /* SEARCH: NB_I64 or NB_I32 */
} nb_bk_sort;

/* Fused scaled-dot-product attention (nb_backend.attention), over a batch of
 * bndim broadcast dims (at most NB_BK_ATTENTION_MAX_BATCH) flattened row-major to B:
 *   q [B, L, E], k [B, S, E], v [B, S, Ev], out [B, L, Ev], 1 <= E, Ev <= NB_BK_ATTENTION_MAX_HEAD_DIM
 *   out = (softmax(q k^T * scale + mask) * keep) v,  lse [B, L] = logsumexp of each row's scores
 * A query row whose keys are all masked gets out 0 and lse -inf. The forward writes
 * out and lse; the backward reads q, k, v, mask, out, lse and grad_out and writes dq,
 * dk, dv whole in the batch shape (the caller sums broadcast dims), with delta [B, L]
 * = rowsum(grad_out * out) as scratch. lse and delta are contiguous, float (double
 * for NB_F64). Dropout keeps weight e (row-major over [B, L, S]) when word e % 4 of
 * Philox block offset + e / 4 (key seed) is below ceil((1 - p) 2^32), scaled by
 * 1 / (1 - p): the draws nb_dropout makes for a tensor of that shape. */
#define NB_BK_ATTENTION_MAX_BATCH 4
#define NB_BK_ATTENTION_MAX_HEAD_DIM 128

typedef struct nb_bk_attention_operand {
    void* data;                                    /* the first element of batch 0 */
    int64_t rs, cs;                                /* row and column strides (elements) */
    int64_t bstrides[NB_BK_ATTENTION_MAX_BATCH];   /* per batch dim; 0 broadcasts */
} nb_bk_attention_operand;

typedef struct nb_bk_attention {
    const char* name;          /* the op, for messages */
    int32_t backward;          /* 0: forward, 1: the gradients */
    int32_t dtype;             /* every operand but mask, lse, delta: NB_F32, NB_F64, NB_F16 or NB_BF16 */
    int32_t mask_dtype;        /* NB_BOOL (true: take part), dtype (added to the scaled scores), or -1: none */
    int32_t is_causal;         /* query i sees keys 0..i (top-left: tril(ones(L, S))) */
    int32_t bndim;
    int64_t bshape[NB_BK_ATTENTION_MAX_BATCH];
    int64_t L, S, E, Ev;
    double scale;
    double dropout_p;          /* 0: none */
    uint64_t seed, offset;     /* the Philox key and first block of the dropout */
    nb_bk_attention_operand q, k, v, out, mask;    /* mask rows [L, S] */
    void* lse;
    nb_bk_attention_operand grad_out, dq, dk, dv;  /* backward */
    void* delta;               /* backward */
} nb_bk_attention;
/* Random distributions (nb_bk_rng.kind), each as src/ops/random.c makes it. */
enum {
    NB_RNGK_UNIFORM,   /* [a, b): float64 from 53 bits (2 per block), else float32 rounded into dtype (4) */
    NB_RNGK_NORMAL,    /* mean a, std b: Box-Muller, float64 with the math library (2), float32 with philox.h (4) */
    NB_RNGK_INT,       /* low + [0, span): span <= 2^16 from one word (4), else 64 bits (2); span 0 is 2^64 */
    NB_RNGK_BERNOULLI, /* w * 2^-32 < p: p = a, or in[e] when in is not NULL (4) */
    NB_RNGK_DROPOUT,   /* in[e] * (bernoulli(a) ? b : 0), in float32 (float64 for a float64 input) (4) */
    NB_RNGK_NUM
};

/* One random fill: element e of shape[ndim] (row-major) comes from Philox block
 * base + e / k of key (k per kind above) with random.c's transform, converted
 * into dtype with the CPU's conversions, so the numbers are the CPU's bits.
 * out (and in: a float dtype, broadcast by stride 0) are strided; pointers
 * include offsets. in never overlaps out except as the same element. */
typedef struct nb_bk_rng {
    int32_t kind;          /* NB_RNGK_* */
    int32_t dtype, in_dtype, ndim;
    int64_t shape[NB_MAX_DIMS];
    void* out;
    int64_t out_strides[NB_MAX_DIMS];
    const void* in;
    int64_t in_strides[NB_MAX_DIMS];
    uint32_t key[2];
    uint64_t base;
    double a, b;
    int64_t low;
    uint64_t span;
} nb_bk_rng;

/* Normalisations (nb_bk_norm.kind) over x [N, C, S], contiguous: statistics per
 * row of C (LAYER, S = 1, parameters per column), per (n, group) of C / groups
 * channels (GROUP) or per channel (BATCH); parameters per channel otherwise. */
enum { NB_NK_LAYER, NB_NK_BATCH, NB_NK_GROUP, NB_NK_NUM };

/* One norm, forward (y = (x - mean) rstd w + b) or backward (dx, dw, db from grad).
 * Statistics are one pass of shifted sums (shift: the group's first value), in
 * float32 for float32/float16/bfloat16 and float64 for float64; mean and biased
 * var, rstd = 1 / sqrt(var + eps). BATCH: training takes batch statistics and,
 * when running_mean / running_var are given (contiguous, C each, running_dtype),
 * updates them with momentum (unbiased var); evaluation reads them instead.
 * Backward always recomputes the batch statistics (the forward saved none). x,
 * y, grad, weight, bias, grad_weight, grad_bias have dtype (weight, bias, y,
 * grad_weight, grad_bias NULL: none / not wanted). workspace:
 * nb_bk_norm_workspace_bytes(...) bytes of device memory. */
typedef struct nb_bk_norm {
    const char* name;      /* the op, for messages */
    int32_t kind;          /* NB_NK_* */
    int32_t backward, training, dtype, running_dtype;
    int64_t N, C, S, groups;
    double eps, momentum;
    const void* x;
    const void* weight;
    const void* bias;
    const void* grad;      /* backward: grad_output, x's shape */
    void* y;               /* forward: the output; backward: grad_input */
    void* running_mean;
    void* running_var;
    void* grad_weight;
    void* grad_bias;
    void* workspace;
    int64_t workspace_bytes;
} nb_bk_norm;

/* Device scratch a norm plan needs: per-row statistics (LAYER backward) or
 * per-(n, channel) sums (GROUP backward), 16 bytes each. */
static inline int64_t nb_bk_norm_workspace_bytes(int32_t kind, int32_t backward, int64_t N, int64_t C) {
    if (!backward || kind == NB_NK_BATCH) return 0;
    return (kind == NB_NK_LAYER ? N : N * C) * 16;
}

/* Classification losses (nb_bk_loss.kind) over input [N, C, S] (contiguous;
 * class c of position (n, s) at (n * C + c) * S + s) and class-index targets
 * [N, S] (int64 or uint8): NLL reads log-probabilities, CROSS_ENTROPY logits
 * (log_softmax per position, label smoothing as PyTorch). CROSS_ENTROPY_PROBS
 * reads a probability target [N, C, S] (contiguous, in dtype): the loss of a
 * position is -sum_c w_c t'_c log_softmax(x)_c with t' = (1 - ls) t + ls / C;
 * ignore_index does not apply and mean divides by N * S. */
enum { NB_XK_NLL, NB_XK_CROSS_ENTROPY, NB_XK_CROSS_ENTROPY_PROBS, NB_XK_NUM };

/* One classification loss, forward or backward. Positions whose target is
 * ignore_index count nothing; a target outside [0, C) claims the device error
 * word ("<name>: Target 7 is out of bounds.") and counts nothing. Forward: out
 * is [N * S] (reduction none) or one value (sum, or mean: over the summed
 * weights of the kept targets), in dtype. Backward: grad_input [N, C, S] from
 * grad (grad_output: [N * S] or one value), in dtype. Sums run in float64 in a
 * fixed order (deterministic). workspace: nb_bk_loss_workspace_bytes(...). */
typedef struct nb_bk_loss {
    const char* name;      /* the op, for messages */
    int32_t kind;          /* NB_XK_* */
    int32_t backward, dtype, target_dtype, reduction;
    int64_t N, C, S;
    int64_t ignore_index;
    double smoothing;
    const void* input;
    const void* target;
    const void* weight;    /* [C] in dtype, or NULL */
    const void* grad;
    void* out;             /* forward: the loss; backward: grad_input */
    void* workspace;
    int64_t workspace_bytes;
} nb_bk_loss;

/* Two float64 per position plus two totals. */
static inline int64_t nb_bk_loss_workspace_bytes(int64_t N, int64_t S) { return (2 * N * S + 4) * 8; }

/* Fused embedding backward (nb_backend.embedding): grad_weight [V, D] (contiguous,
 * every row written) from grad [P, D] (contiguous) and the P indices sorted
 * stably (sorted, index_dtype NB_I64 or NB_I32) with their positions (order,
 * int64): row r sums grad[order[k]] over the run of k with sorted[k] == r, in k
 * (that is, index) order, in float32 (float64 for NB_F64); with
 * scale_grad_by_freq each term is divided by the run's length; the row at
 * padding_idx (negative: none) gets zeros. dtype NB_F32, NB_F64, NB_F16 or
 * NB_BF16. An index outside [0, V) claims the device error word ("<name>: index
 * out of range in self (index 7, num_embeddings 5)"). No atomics: the result
 * repeats bit for bit. */
typedef struct nb_bk_embedding {
    const char* name;      /* the op, for messages */
    int32_t dtype, index_dtype;
    int32_t scale_grad_by_freq;
    int64_t V, D, P;
    int64_t padding_idx;
    const void* grad;
    const void* sorted;
    const int64_t* order;
    void* out;
} nb_bk_embedding;
/* Multi-tensor kernels (nb_bk_optim.op): one plan covers a list of tensors. */
enum {
    NB_OPK_SGD, NB_OPK_ADAM, NB_OPK_RMSPROP, NB_OPK_ADAGRAD, /* the optimizer steps (src/ops/optim.c formulas) */
    NB_OPK_NORM,    /* clip_grad_norm_'s total norm into `total`, its clip coefficient into the workspace */
    NB_OPK_SCALE,   /* t *= coef (from a NORM plan's workspace) where coef < 1 or NaN */
    NB_OPK_CLAMP,   /* t = clamp(t, -clip, clip), NaN kept */
    NB_OPK_UNSCALE, /* t *= *inv_scale; *found_inf = 1 when t held an inf or NaN */
    NB_OPK_NUM
};

/* Operands per tensor: param (or the one tensor of NORM..UNSCALE), grad, up to three states. */
#define NB_BK_OPTIM_OPERANDS 5
/* NORM sums this many elements per partial (a fixed split: the result does not depend on the launch). */
#define NB_BK_OPTIM_CHUNK 16384

/* The workspace a NORM plan needs: the coefficient, a part per tensor and a partial per chunk (doubles). */
static inline int64_t nb_bk_optim_workspace_bytes(const int64_t* numel, int64_t count) {
    int64_t chunks = 0;
    for (int64_t i = 0; i < count; i++) chunks += (numel[i] + NB_BK_OPTIM_CHUNK - 1) / NB_BK_OPTIM_CHUNK;
    return 8 * (1 + count + chunks);
}

/* One multi-tensor plan over count tensors. Tensor i has numel[i] elements in dtypes[i]
 * (NB_F32, NB_F64, NB_F16 or NB_BF16; f16 / bf16 compute in float32, f64 in double),
 * shared by all its operands; data[k][i] is operand k of tensor i, contiguous, on the
 * device (data[k] NULL: operand k is absent). Steps: data[0] param, data[1] grad,
 * data[2..4] the state in the order of the single-tensor op's parameters (SGD:
 * momentum_buffer; ADAM: exp_avg, exp_avg_sq, max_exp_avg_sq; RMSPROP: square_avg,
 * grad_avg, momentum_buffer; ADAGRAD: state_sum). The rest use data[0] only.
 * Tensors of different dtypes may be mixed (the backend groups them); no two written
 * operands overlap. Host arrays are read before the call returns. */
typedef struct nb_bk_optim {
    const char* name;          /* the op, for messages */
    int32_t op;                /* NB_OPK_* */
    int64_t count;
    const int32_t* dtypes;     /* [count] */
    const int64_t* numel;      /* [count] */
    void* const* data[NB_BK_OPTIM_OPERANDS];
    /* steps: per tensor, ADAM: lr / (1 - beta1^step) and sqrt(1 - beta2^step); ADAGRAD (step_size only):
     * lr / (1 + (step - 1) lr_decay) */
    const double* step_size;   /* [count] */
    const double* bc2_sqrt;    /* [count] */
    double lr, momentum, dampening, weight_decay, beta1, beta2, eps, alpha;
    int32_t nesterov, maximize, init_buffer, decoupled, amsgrad, centered;
    /* NORM: order p (> 0, 0 or inf); total (0-dim, total_dtype) receives the norm and the workspace's first
     * double the coefficient max_norm / (total + 1e-6) computed in total_dtype (max_norm = inf: 1). */
    double p, max_norm;
    void* total;
    int32_t total_dtype;
    double clip;               /* CLAMP */
    float* found_inf;          /* UNSCALE: float32 device scalars */
    const float* inv_scale;
    /* NORM writes, SCALE reads: nb_bk_optim_workspace_bytes(numel, count) bytes of device memory. */
    void* workspace;
    int64_t workspace_bytes;
} nb_bk_optim;

/* One 2-d convolution pass (nb_backend.conv) of geometry
 *   x [N, C, H, W], w [O, C / groups, kh, kw], y [N, O, OH, OW],
 *   y[n, o, p, q] = bias[o] + sum_{c, i, j} w[o, c, i, j] x[n, c, p sh - pt + i dh, q sw - pl + j dw]
 * (rows and columns outside x read 0). kind says which operand is computed from the
 * other two: NB_CONV_FORWARD writes y from x, w (and bias); NB_CONV_INPUT_GRAD writes
 * dx [N, C, H, W] from dy and w (plus bias[c] when given: a transposed convolution's
 * forward); NB_CONV_WEIGHT_GRAD writes dw [O, C / groups, kh, kw] from dy and x. Inputs
 * are read through their strides (elements; any layout), the output is contiguous.
 * Every operand has dtype (a float type; half types accumulate in float32). The weight
 * gradient reduces over N * OH * OW in `splits` fixed slices whose partial sums go to
 * workspace (splits * O * C / groups * kh * kw of float, double for NB_F64; unused
 * when splits is 1) and are added in slice order: no atomics, results repeat bit for bit. */
enum { NB_CONV_FORWARD, NB_CONV_INPUT_GRAD, NB_CONV_WEIGHT_GRAD };

typedef struct nb_bk_conv_operand {
    void* data;         /* the element at index 0 */
    int64_t s[4];       /* strides of the 4 dims */
} nb_bk_conv_operand;

typedef struct nb_bk_conv {
    const char* name;   /* the op, for messages */
    int32_t kind;       /* NB_CONV_* */
    int32_t dtype;      /* NB_F32, NB_F64, NB_F16 or NB_BF16 */
    int64_t N, C, H, W, O, kh, kw, OH, OW;
    int64_t sh, sw, pt, pl, dh, dw, groups;
    nb_bk_conv_operand x, w, dy;  /* the inputs the kind reads */
    const void* bias;   /* contiguous [O] (forward) or [C] (input gradient), or NULL */
    void* out;          /* contiguous y, dx or dw */
    int64_t splits;     /* weight gradient: >= 1 */
    void* workspace;
} nb_bk_conv;


/* A device backend. The CPU table fills only the first block; the CUDA plugin
 * fills everything. Streams and events are the backend's native handles (NULL is
 * the default stream); every call that takes a device index makes that device
 * current for the call. */
typedef struct nb_backend {
    const char* name;
    /* Raw device memory (for CUDA: what the caching allocator carves up). */
    nb_status (*alloc)(int32_t device_index, int64_t nbytes, void** out);
    void (*free)(int32_t device_index, void* ptr, int64_t nbytes);
    /* Copies nbytes and returns when done; each side's device type and index say where it lives. */
    nb_status (*copy)(void* dst, int32_t dst_device_type, int32_t dst_device_index, const void* src,
                      int32_t src_device_type, int32_t src_device_index, int64_t nbytes);
    nb_status (*memset)(void* dst, int32_t device_index, int value, int64_t nbytes);
    /* The message behind the last failed call on this thread. */
    const char* (*last_error)(void);

    /* ---- device runtime (NULL for CPU) ---- */
    nb_status (*device_synchronize)(int32_t device_index);
    nb_status (*mem_info)(int32_t device_index, int64_t* free_bytes, int64_t* total_bytes);
    /* The device's properties as one JSON object with PyTorch's field names (name, major,
     * minor, total_memory, multi_processor_count, ...), NUL-terminated in buf. */
    nb_status (*device_properties)(int32_t device_index, char* buf, size_t cap);
    nb_status (*stream_create)(int32_t device_index, int32_t priority, void** out);
    void (*stream_destroy)(int32_t device_index, void* stream);
    nb_status (*stream_priority_range)(int32_t* least, int32_t* greatest);
    nb_status (*stream_synchronize)(int32_t device_index, void* stream);
    nb_status (*stream_query)(int32_t device_index, void* stream, int32_t* done);
    nb_status (*stream_wait_event)(int32_t device_index, void* stream, void* event);
    /* flags: NB_EVENT_* bits */
    nb_status (*event_create)(int32_t device_index, int32_t flags, void** out);
    void (*event_destroy)(int32_t device_index, void* event);
    nb_status (*event_record)(int32_t device_index, void* event, void* stream);
    nb_status (*event_query)(void* event, int32_t* done);
    nb_status (*event_synchronize)(void* event);
    nb_status (*event_elapsed)(void* start, void* end, float* ms);
    /* Queues a copy on stream and returns (device_index: the device that runs it). */
    nb_status (*copy_async)(int32_t device_index, void* dst, const void* src, int64_t nbytes, void* stream);
    /* Page-locked host memory. */
    nb_status (*host_alloc)(int64_t nbytes, void** out);
    void (*host_free)(void* ptr);
    /* Kernels, queued on stream: dst[i] = pattern (pattern_size 1, 2, 4 or 8 bytes) for
     * count elements; one elementwise op (nb_bk_ew) with no host synchronisation. */
    nb_status (*fill)(int32_t device_index, void* dst, const void* pattern, int32_t pattern_size, int64_t count,
                      void* stream);
    nb_status (*elementwise)(int32_t device_index, const nb_bk_ew* args, void* stream);

    /* ---- kernel families (NULL: none on this backend; see nb_backend_slot) ----
     * Each is queued on stream (ignored by the CPU, which runs it before
     * returning) and does no host synchronisation. The CPU table fills copy
     * and reduce; its elementwise kernels are run by the elementwise engine. */
    nb_status (*copy_strided)(int32_t device_index, const nb_bk_copy* plan, void* stream);
    nb_status (*reduce)(int32_t device_index, const nb_bk_reduce* plan, void* stream);
    nb_status (*lines)(int32_t device_index, const struct nb_bk_lines* plan, void* stream);
    nb_status (*gemm)(int32_t device_index, const struct nb_bk_gemm* plan, void* stream);
    nb_status (*conv)(int32_t device_index, const struct nb_bk_conv* plan, void* stream);
    nb_status (*pool)(int32_t device_index, const struct nb_bk_pool* plan, void* stream);
    nb_status (*norm)(int32_t device_index, const struct nb_bk_norm* plan, void* stream);
    nb_status (*index)(int32_t device_index, const struct nb_bk_index* plan, void* stream);
    nb_status (*sort)(int32_t device_index, const struct nb_bk_sort* plan, void* stream);
    nb_status (*rng)(int32_t device_index, const struct nb_bk_rng* plan, void* stream);
    nb_status (*optim)(int32_t device_index, const struct nb_bk_optim* plan, void* stream);
    nb_status (*loss)(int32_t device_index, const struct nb_bk_loss* plan, void* stream);
    nb_status (*attention)(int32_t device_index, const struct nb_bk_attention* plan, void* stream);
    nb_status (*embedding)(int32_t device_index, const struct nb_bk_embedding* plan, void* stream);
} nb_backend;

/* Exported by a plugin as "nb_plugin_init". Fills *backend and *device_count; on
 * failure writes why into reason (e.g. "no CUDA driver found"). */
typedef nb_status (*nb_plugin_init_fn)(uint32_t plugin_abi, nb_backend* backend,
                                       int32_t* device_count, char* reason, size_t reason_cap);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_BACKEND_H_ */
