/* linalg.c: matrix products: matmul (every rank case of torch.matmul), mm, bmm,
 * mv, dot, addmm, baddbmm, linear and outer.
 *
 * Each op validates its operands with PyTorch's rules and messages, then hands
 * one shape-agnostic description to run(): the result is
 *     beta * input + alpha * (a @ b)
 * over broadcast batch dims, where a is [..., M, K] or a vector [K] (one row),
 * b is [..., K, N] or a vector [K] (one column) and input, when given, is
 * broadcast to the result. run() allocates or checks the destination, copies an
 * operand only when BLAS cannot read its strides, and hands the plan to the
 * device's gemm slot (the CPU's is src/cpu/gemm.c). On the CPU float16 operands
 * are converted to float32 first (the result is rounded once at the end), and
 * so are bfloat16 ones unless the CPU has AVX512_BF16 (nb_cpu_gemm_native);
 * there, as on CUDA (cuBLAS or the own kernel), half operands are read as they
 * are, summed in float32 and the result stored as half, with no float32 copy.
 * Operands keep their own dtype: like PyTorch, matrix products do not promote
 * (outer, an elementwise product, does). */
#include "../core/internal.h"
#include "../core/runtime.h"
#include "../cpu/gemm.h"

#include <string.h>


static int64_t product(const int64_t* shape, int32_t n) {
    int64_t p = 1;
    for (int32_t i = 0; i < n; i++) p *= shape[i];
    return p;
}

/* What run() computes; filled by each op's validation. */
typedef struct mm_spec {
    const char* op;
    const nb_tensor* a;      /* [..., M, K] or [K] */
    const nb_tensor* b;      /* [..., K, N] or [K] */
    const nb_tensor* input;  /* broadcast to the result and scaled by beta; NULL: none */
    double beta, alpha;
    int32_t bndim, ondim;    /* broadcast batch shape, and the result's shape */
    int64_t bshape[NB_MAX_DIMS], oshape[NB_MAX_DIMS];
} mm_spec;

/* ---- validation helpers ---- */

static nb_status check_args(const char* op, const nb_tensor* const* ts, const char* const* names, int32_t n,
                            const nb_tensor* dst, nb_tensor** out) {
    if (dst == NULL) NB_CHECK_OUT(op, out);
    for (int32_t i = 0; i < n; i++)
        if (NB_UNLIKELY(!nb_tensor_ok(ts[i]))) return nb_bad_handle(op, names[i], ts[i]);
    if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
    if (dst != NULL) NB_CHECK_WRITABLE(op, dst);
    int32_t dt = ts[0]->storage->device_type, di = ts[0]->storage->device_index;
    for (int32_t i = 0; i <= n; i++) {
        const nb_tensor* t = i < n ? ts[i] : dst;
        if (t == NULL) continue;
        if (t->storage->device_type != dt || t->storage->device_index != di)
            return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found at least "
                            "two devices, %s:%d and %s:%d", op, nb_device_type_name(dt), (int)di,
                            nb_device_type_name(t->storage->device_type), (int)t->storage->device_index);
    }
    const nb_backend* b;
    return nb_backend_slot(op, dt, NB_FAMILY_GEMM, &b);
}

static nb_status check_not_bool(const char* op, const nb_tensor* t) {
    if (t->dtype == NB_BOOL)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: \"%s\" not implemented for 'Bool'", op, op);
    return NB_OK;
}

/* input must broadcast to shape without growing (PyTorch's expand). */
static nb_status check_expand(const char* op, const nb_tensor* t, const int64_t* shape, int32_t ndim) {
    if (t->ndim > ndim)
        return nb_error(NB_ERR_SHAPE, "%s: expand(%s, size=%s): the number of sizes provided (%d) must be greater "
                        "or equal to the number of dimensions in the tensor (%d)", op,
                        nb_shape_str(t->shape, t->ndim), nb_shape_str(shape, ndim), (int)ndim, (int)t->ndim);
    for (int32_t i = ndim - 1; i >= ndim - t->ndim; i--) {
        const int64_t have = t->shape[i - (ndim - t->ndim)];
        if (have != shape[i] && have != 1)
            return nb_error(NB_ERR_SHAPE, "%s: the expanded size of the tensor (%lld) must match the existing size "
                            "(%lld) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s", op,
                            (long long)shape[i], (long long)have, (int)i, nb_shape_str(shape, ndim),
                            nb_shape_str(t->shape, t->ndim));
    }
    return NB_OK;
}

/* Batch dims of a and b (all but their last two; none for a vector) broadcast
 * together; the result shape is the batch shape, then M unless a is a vector,
 * then N unless b is one. */
static nb_status plan_shapes(mm_spec* s) {
    const nb_tensor *a = s->a, *b = s->b;
    const int32_t na = a->ndim >= 2 ? a->ndim - 2 : 0, nb = b->ndim >= 2 ? b->ndim - 2 : 0;
    const int32_t n = na > nb ? na : nb;
    for (int32_t d = 0; d < n; d++) {
        const int32_t ia = d - (n - na), ib = d - (n - nb);
        const int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return nb_error(NB_ERR_SHAPE, "%s: the size of tensor a (%lld) must match the size of tensor b (%lld) at "
                            "non-singleton dimension %d", s->op, (long long)sa, (long long)sb, (int)d);
        s->bshape[d] = sa == 1 ? sb : sa;
    }
    s->bndim = n;
    memcpy(s->oshape, s->bshape, sizeof(int64_t) * (size_t)n);
    int32_t nd = n;
    if (a->ndim >= 2) s->oshape[nd++] = a->shape[a->ndim - 2];
    if (b->ndim >= 2) s->oshape[nd++] = b->shape[b->ndim - 1];
    s->ondim = nd;
    int64_t numel;
    return nb_check_shape(s->op, s->oshape, nd, &numel);
}

/* torch.matmul's checks, in its order, with the message of the path PyTorch takes
 * (dot for 1-D @ 1-D, mv for [..., K] @ [K], bmm when b is batched, else mm). */
static nb_status check_matmul(mm_spec* s) {
    const char* op = s->op;
    const nb_tensor *a = s->a, *b = s->b;
    const int32_t da = a->ndim, db = b->ndim;
    if (da == 0 || db == 0)
        return nb_error(NB_ERR_SHAPE, "%s: both arguments to %s need to be at least 1D, but they are %dD and %dD", op,
                        op, (int)da, (int)db);
    const int64_t ka = a->shape[da - 1], kb = b->shape[db == 1 ? 0 : db - 2];
    nb_status st;
    if (da == 1 && db == 1) {
        if (a->dtype != b->dtype)
            return nb_error(NB_ERR_DTYPE, "%s: dot : expected both vectors to have same dtype, but found %s and %s", op,
                            nb_dtype_torch_name(a->dtype), nb_dtype_torch_name(b->dtype));
        if (ka != kb)
            return nb_error(NB_ERR_SHAPE, "%s: inconsistent tensor size, expected tensor [%lld] and src [%lld] to have "
                            "the same number of elements, but got %lld and %lld elements respectively", op,
                            (long long)ka, (long long)kb, (long long)ka, (long long)kb);
        s->bndim = s->ondim = 0;
    } else {
        if ((st = plan_shapes(s)) != NB_OK) return st;
        const int64_t rows = product(a->shape, da - 1), nbatch = product(s->bshape, s->bndim);
        if (ka != kb) {
            if (db >= 3)
                return nb_error(NB_ERR_SHAPE, "%s: expected size for first two dimensions of batch2 tensor to be: "
                                "[%lld, %lld] but got: [%lld, %lld].", op, (long long)nbatch, (long long)ka,
                                (long long)nbatch, (long long)kb);
            if (db == 2)
                return nb_error(NB_ERR_SHAPE, "%s: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                                op, (long long)rows, (long long)ka, (long long)kb, (long long)b->shape[1]);
            return nb_error(NB_ERR_SHAPE, "%s: size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)", op,
                            (long long)rows, (long long)rows, (long long)ka, (long long)kb);
        }
        if (a->dtype != b->dtype) {
            if (db >= 3)
                return nb_error(NB_ERR_DTYPE, "%s: expected scalar type %s but found %s", op, nb_dtype_torch_name(a->dtype),
                                nb_dtype_torch_name(b->dtype));
            if (db == 1)
                return nb_error(NB_ERR_DTYPE, "%s: addmv input tensors must have the same dtype, but got %s, %s, and %s",
                                op, nb_dtype_torch_name(b->dtype), nb_dtype_torch_name(a->dtype), nb_dtype_torch_name(b->dtype));
            return nb_error(NB_ERR_DTYPE, "%s: expected m1 and m2 to have the same dtype, but got: %s != %s", op,
                            nb_dtype_cpp_name(a->dtype), nb_dtype_cpp_name(b->dtype));
        }
    }
    return check_not_bool(op, a);
}

/* ---- running ---- */

static bool same_view(const nb_tensor* x, const nb_tensor* y) {
    return x->storage == y->storage && x->offset == y->offset && x->dtype == y->dtype && x->ndim == y->ndim &&
           memcmp(x->shape, y->shape, sizeof(int64_t) * (size_t)x->ndim) == 0 &&
           memcmp(x->strides, y->strides, sizeof(int64_t) * (size_t)x->ndim) == 0;
}

/* The matrix of operand t (a vector is one row when it is a, one column when b). */
static void matrix_of(const nb_tensor* t, bool is_a, int64_t* rows, int64_t* cols, int64_t* rs, int64_t* cs) {
    const int32_t nd = t->ndim;
    if (nd == 1) {
        *rows = is_a ? 1 : t->shape[0], *cols = is_a ? t->shape[0] : 1;
        *rs = is_a ? 0 : t->strides[0], *cs = is_a ? t->strides[0] : 0;
    } else {
        *rows = t->shape[nd - 2], *cols = t->shape[nd - 1];
        *rs = t->strides[nd - 2], *cs = t->strides[nd - 1];
    }
}

static bool blas_readable(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
    int64_t ld;
    return nb_gemm_layout(rows, cols, rs, cs, &ld) != NB_GEMM_NONE && ld <= NB_GEMM_BLAS_MAX;
}

/* t in the compute dtype and, for BLAS, with strides BLAS can read (a new reference). */
static nb_status prepare_operand(const nb_tensor* t, int32_t compute, bool is_a, nb_tensor** out) {
    const int32_t dev = t->storage->device_type, di = t->storage->device_index;
    nb_tensor* cur = (nb_tensor*)t;
    nb_tensor_retain(cur);
    nb_status st = NB_OK;
    if (t->dtype != compute) {
        nb_tensor_release(cur);
        if ((st = nb_tensor_to(t, compute, dev, di, 0, &cur)) != NB_OK) return st;
    }
    if (nb_dtype_is_floating(compute)) {
        int64_t rows, cols, rs, cs;
        matrix_of(cur, is_a, &rows, &cols, &rs, &cs);
        if (!blas_readable(rows, cols, rs, cs)) {
            nb_tensor* c = NULL;
            st = nb_tensor_contiguous(cur, &c);
            nb_tensor_release(cur);
            cur = c;
        }
    }
    if (st == NB_OK) *out = cur;
    return st;
}

/* The kernel may write the result straight into c (no staging copy). */
static bool writable_directly(const nb_tensor* c, int32_t compute, const mm_spec* s) {
    if (c->dtype != compute || c->storage == s->a->storage || c->storage == s->b->storage) return false;
    for (int32_t d = 0; d < s->bndim; d++)
        if (c->shape[d] > 1 && c->strides[d] == 0) return false;
    const bool a_vec = s->a->ndim == 1, b_vec = s->b->ndim == 1;
    const int64_t rows = a_vec ? 1 : s->oshape[s->bndim], cols = b_vec ? 1 : s->oshape[s->ondim - 1];
    const int64_t rs = a_vec ? 0 : c->strides[s->bndim], cs = b_vec ? 0 : c->strides[c->ndim - 1];
    return blas_readable(rows, cols, rs, cs);
}

static void operand_geometry(const nb_tensor* t, bool is_a, int32_t bndim, nb_gemm_operand* o) {
    int64_t rows, cols;
    o->data = nb_tensor_data(t);
    matrix_of(t, is_a, &rows, &cols, &o->rs, &o->cs);
    const int32_t tb = t->ndim >= 2 ? t->ndim - 2 : 0;  /* t's batch dims, right-aligned */
    for (int32_t d = 0; d < bndim; d++) {
        const int32_t j = d - (bndim - tb);
        o->bstrides[d] = (j >= 0 && t->shape[j] != 1) ? t->strides[j] : 0;
    }
}

/* The addend (shape broadcastable to the result) as an operand of the result's geometry. */
static void addend_geometry(const mm_spec* s, bool a_vec, bool b_vec, nb_gemm_operand* o, int32_t* dtype) {
    const nb_tensor* t = s->input;
    int64_t st[NB_MAX_DIMS];
    for (int32_t d = 0; d < s->ondim; d++) {
        const int32_t j = d - (s->ondim - t->ndim);
        st[d] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
    o->data = nb_tensor_data(t);
    o->rs = a_vec ? 0 : st[s->bndim];
    o->cs = b_vec ? 0 : st[s->ondim - 1];
    for (int32_t d = 0; d < s->bndim; d++) o->bstrides[d] = st[d];
    *dtype = t->dtype;
}

static nb_status to_int64(const char* op, const char* name, double v, int64_t* out) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s (%g) cannot be converted to an integer without overflow", op,
                        name, v);
    *out = (int64_t)v;
    return NB_OK;
}

/* dst (or a new tensor) = beta * input + alpha * (a @ b), after validation. */
static nb_status run(const mm_spec* s, nb_tensor* dst, nb_tensor** out) {
    const char* op = s->op;
    const int32_t dtype = s->a->dtype;
    const int32_t dev = s->a->storage->device_type, di = s->a->storage->device_index;
    const bool half = dtype == NB_F16 || dtype == NB_BF16;
    const int64_t rows = s->a->ndim == 1 ? 1 : s->a->shape[s->a->ndim - 2];
    const int64_t cols = s->b->ndim == 1 ? 1 : s->b->shape[s->b->ndim - 1];
    const int32_t compute = (half && dev == NB_CPU && !nb_cpu_gemm_native(dtype, rows, cols)) ? NB_F32 : dtype;
    const bool floating = nb_dtype_is_floating(dtype);
    nb_gemm_problem p;
    p.alpha = s->alpha, p.beta = s->beta, p.ialpha = 1, p.ibeta = 0;
    nb_status st;
    if (!floating && ((st = to_int64(op, "alpha", s->alpha, &p.ialpha)) != NB_OK ||
                      (s->input != NULL && (st = to_int64(op, "beta", s->beta, &p.ibeta)) != NB_OK)))
        return st;
    p.accumulate = s->input != NULL && (floating ? s->beta != 0 : p.ibeta != 0);
    if (dst != NULL) {
        bool in_place = dst == s->a || dst == s->b || dst == s->input;  /* addmm_, baddbmm_ */
        if (in_place && !nb_same_shape(dst, s->oshape, s->ondim))
            return nb_error(NB_ERR_SHAPE, "%s: output with shape %s doesn't match the result shape %s", op,
                            nb_shape_str(dst->shape, dst->ndim), nb_shape_str(s->oshape, s->ondim));
        if (dst->dtype != dtype && strcmp(op, "dot") == 0)  /* PyTorch's words differ by op */
            return nb_error(NB_ERR_DTYPE, "dot: result dtype %s does not match input dtype %s",
                            nb_dtype_torch_name(dst->dtype), nb_dtype_torch_name(dtype));
        if (dst->dtype != dtype && strcmp(op, "mv") == 0)
            return nb_error(NB_ERR_DTYPE, "mv: addmv input tensors must have the same dtype, but got %s, %s, and %s",
                            nb_dtype_torch_name(dst->dtype), nb_dtype_torch_name(dtype), nb_dtype_torch_name(dtype));
        if (dst->dtype != dtype)
            return nb_error(NB_ERR_DTYPE, "%s: Expected out tensor to have dtype %s, but got %s instead", op,
                            nb_dtype_cpp_name(dtype), nb_dtype_cpp_name(dst->dtype));
        const nb_tensor* inputs[3] = {s->a, s->b, s->input};
        if ((st = nb_resize_output(op, dst, inputs, 3, s->oshape, s->ondim)) != NB_OK) return st;
    }
    const nb_backend* bk;
    if ((st = nb_backend_slot(op, dev, NB_FAMILY_GEMM, &bk)) != NB_OK) return st;
    nb_tensor* target = dst;
    if (target == NULL && (st = nb_tensor_new(op, s->oshape, s->ondim, dtype, dev, di, &target)) != NB_OK)
        return st;
    nb_tensor *a = NULL, *b = NULL, *c = NULL;
    if (target->numel > 0) {
        st = prepare_operand(s->a, compute, true, &a);
        if (st == NB_OK) st = prepare_operand(s->b, compute, false, &b);
        if (st == NB_OK) {
            if (writable_directly(target, compute, s)) {
                c = target;
                nb_tensor_retain(c);
            } else {
                st = nb_tensor_new(op, s->oshape, s->ondim, compute, dev, di, &c);
            }
        }
        /* The addend goes into C block by block inside the kernel (in parallel, cache-hot), unless
         * it is C itself or shares C's memory, when it is copied first. */
        bool addend_in_kernel = false;
        if (st == NB_OK && p.accumulate && !same_view(c, s->input)) {
            if (s->input->storage == c->storage)
                st = nb_copy_into(op, c, s->input);
            else
                addend_in_kernel = true;
        }
        memset(&p.in, 0, sizeof p.in);
        p.in_dtype = -1;
        if (addend_in_kernel) addend_geometry(s, a->ndim == 1, b->ndim == 1, &p.in, &p.in_dtype);
        if (st == NB_OK) {
            p.dtype = compute;
            p.M = a->ndim == 1 ? 1 : a->shape[a->ndim - 2];
            p.K = a->shape[a->ndim - 1];
            p.N = b->ndim == 1 ? 1 : b->shape[b->ndim - 1];
            p.bndim = s->bndim;
            memcpy(p.bshape, s->bshape, sizeof(int64_t) * (size_t)s->bndim);
            operand_geometry(a, true, s->bndim, &p.a);
            operand_geometry(b, false, s->bndim, &p.b);
            p.c.data = nb_tensor_data(c);
            p.c.rs = a->ndim == 1 ? 0 : c->strides[s->bndim];
            p.c.cs = b->ndim == 1 ? 0 : c->strides[c->ndim - 1];
            for (int32_t d = 0; d < s->bndim; d++) p.c.bstrides[d] = c->shape[d] == 1 ? 0 : c->strides[d];
            st = bk->gemm(di, &p, dev == NB_CPU ? NULL : nb_stream_current_of(dev, di)->native);
            if (st != NB_OK) st = nb_error(st, "%s: %s", op, bk->last_error());
            if (st == NB_OK && c != target) st = nb_copy_into(op, target, c);
        }
    }
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(c);
    return nb_op_finish(st, dst, target, out);
}

/* ---- the ABI ---- */

#define ARGS(...) (const nb_tensor* const[]){__VA_ARGS__}
#define NAMES(...) (const char* const[]){__VA_ARGS__}

nb_status nbi_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "matmul", .a = a, .b = b, .alpha = 1};
    nb_status st = check_args(s.op, ARGS(a, b), NAMES("a", "b"), 2, dst, out);
    if (st == NB_OK) st = check_matmul(&s);
    return st == NB_OK ? run(&s, dst, out) : st;
}

nb_status nbi_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "mm", .a = a, .b = b, .alpha = 1};
    nb_status st = check_args(s.op, ARGS(a, b), NAMES("a", "b"), 2, dst, out);
    if (st != NB_OK) return st;
    if (a->ndim != 2) return nb_error(NB_ERR_SHAPE, "mm: self must be a matrix");
    if (b->ndim != 2) return nb_error(NB_ERR_SHAPE, "mm: mat2 must be a matrix");
    if (a->shape[1] != b->shape[0])
        return nb_error(NB_ERR_SHAPE, "mm: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        (long long)a->shape[0], (long long)a->shape[1], (long long)b->shape[0], (long long)b->shape[1]);
    if (a->dtype != b->dtype)
        return nb_error(NB_ERR_DTYPE, "mm: expected m1 and m2 to have the same dtype, but got: %s != %s",
                        nb_dtype_cpp_name(a->dtype), nb_dtype_cpp_name(b->dtype));
    if ((st = check_not_bool(s.op, a)) != NB_OK || (st = plan_shapes(&s)) != NB_OK) return st;
    return run(&s, dst, out);
}

/* bmm and baddbmm: two 3-D operands with equal batch sizes. */
static nb_status check_bmm(mm_spec* s) {
    const nb_tensor *a = s->a, *b = s->b;
    if (a->ndim != 3) return nb_error(NB_ERR_SHAPE, "%s: batch1 must be a 3D tensor", s->op);
    if (b->ndim != 3) return nb_error(NB_ERR_SHAPE, "%s: batch2 must be a 3D tensor", s->op);
    if (b->shape[0] != a->shape[0] || b->shape[1] != a->shape[2])
        return nb_error(NB_ERR_SHAPE, "%s: expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] "
                        "but got: [%lld, %lld].", s->op, (long long)a->shape[0], (long long)a->shape[2],
                        (long long)b->shape[0], (long long)b->shape[1]);
    return NB_OK;
}

nb_status nbi_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "bmm", .a = a, .b = b, .alpha = 1};
    nb_status st = check_args(s.op, ARGS(a, b), NAMES("a", "b"), 2, dst, out);
    if (st != NB_OK || (st = check_bmm(&s)) != NB_OK) return st;
    if (a->dtype != b->dtype)
        return nb_error(NB_ERR_DTYPE, "bmm: expected scalar type %s but found %s", nb_dtype_torch_name(a->dtype),
                        nb_dtype_torch_name(b->dtype));
    if ((st = check_not_bool(s.op, a)) != NB_OK || (st = plan_shapes(&s)) != NB_OK) return st;
    return run(&s, dst, out);
}

nb_status nbi_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "mv", .a = a, .b = v, .alpha = 1};
    nb_status st = check_args(s.op, ARGS(a, v), NAMES("a", "v"), 2, dst, out);
    if (st != NB_OK) return st;
    if (a->ndim != 2 || v->ndim != 1)
        return nb_error(NB_ERR_SHAPE, "mv: vector + matrix @ vector expected, got 1, %d, %d", (int)a->ndim,
                        (int)v->ndim);
    if (a->shape[1] != v->shape[0])
        return nb_error(NB_ERR_SHAPE, "mv: size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                        (long long)a->shape[0], (long long)a->shape[0], (long long)a->shape[1], (long long)v->shape[0]);
    if (a->dtype != v->dtype)
        return nb_error(NB_ERR_DTYPE, "mv: addmv input tensors must have the same dtype, but got %s, %s, and %s",
                        nb_dtype_torch_name(v->dtype), nb_dtype_torch_name(a->dtype), nb_dtype_torch_name(v->dtype));
    if ((st = check_not_bool(s.op, a)) != NB_OK || (st = plan_shapes(&s)) != NB_OK) return st;
    return run(&s, dst, out);
}

nb_status nbi_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "dot", .a = a, .b = b, .alpha = 1};
    nb_status st = check_args(s.op, ARGS(a, b), NAMES("a", "b"), 2, dst, out);
    if (st != NB_OK) return st;
    if (a->ndim != 1 || b->ndim != 1)
        return nb_error(NB_ERR_SHAPE, "dot: 1D tensors expected, but got %dD and %dD tensors", (int)a->ndim,
                        (int)b->ndim);
    if ((st = check_matmul(&s)) != NB_OK) return st;
    return run(&s, dst, out);
}

nb_status nbi_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta,
                          double alpha, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "addmm", .a = mat1, .b = mat2, .input = input, .beta = beta, .alpha = alpha};
    nb_status st = check_args(s.op, ARGS(input, mat1, mat2), NAMES("input", "mat1", "mat2"), 3, dst, out);
    if (st != NB_OK) return st;
    if (mat1->ndim != 2) return nb_error(NB_ERR_SHAPE, "addmm: mat1 must be a matrix, got %d-D tensor", (int)mat1->ndim);
    if (mat2->ndim != 2) return nb_error(NB_ERR_SHAPE, "addmm: mat2 must be a matrix, got %d-D tensor", (int)mat2->ndim);
    if (input->dtype != mat2->dtype)
        return nb_error(NB_ERR_DTYPE, "addmm: self and mat2 must have the same dtype, but got %s and %s",
                        nb_dtype_torch_name(input->dtype), nb_dtype_torch_name(mat2->dtype));
    if (mat1->dtype != mat2->dtype)
        return nb_error(NB_ERR_DTYPE, "addmm: mat1 and mat2 must have the same dtype, but got %s and %s",
                        nb_dtype_torch_name(mat1->dtype), nb_dtype_torch_name(mat2->dtype));
    if (mat1->shape[1] != mat2->shape[0])
        return nb_error(NB_ERR_SHAPE, "addmm: mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)",
                        (long long)mat1->shape[0], (long long)mat1->shape[1], (long long)mat2->shape[0],
                        (long long)mat2->shape[1]);
    if ((st = plan_shapes(&s)) != NB_OK || (st = check_expand(s.op, input, s.oshape, s.ondim)) != NB_OK ||
        (st = check_not_bool(s.op, mat1)) != NB_OK)
        return st;
    return run(&s, dst, out);
}

nb_status nbi_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta,
                            double alpha, nb_tensor* dst, nb_tensor** out) {
    mm_spec s = {.op = "baddbmm", .a = batch1, .b = batch2, .input = input, .beta = beta, .alpha = alpha};
    nb_status st = check_args(s.op, ARGS(input, batch1, batch2), NAMES("input", "batch1", "batch2"), 3, dst, out);
    if (st != NB_OK || (st = check_bmm(&s)) != NB_OK) return st;
    if (input->dtype != batch1->dtype)
        return nb_error(NB_ERR_DTYPE, "baddbmm: input dtypes must be the same, got: input %s, batch1: %s, batch2: %s",
                        nb_dtype_cpp_name(input->dtype), nb_dtype_cpp_name(batch1->dtype), nb_dtype_cpp_name(batch2->dtype));
    if (batch1->dtype != batch2->dtype)
        return nb_error(NB_ERR_DTYPE, "baddbmm: expected scalar type %s but found %s", nb_dtype_torch_name(batch1->dtype),
                        nb_dtype_torch_name(batch2->dtype));
    if ((st = plan_shapes(&s)) != NB_OK || (st = check_expand(s.op, input, s.oshape, s.ondim)) != NB_OK ||
        (st = check_not_bool(s.op, batch1)) != NB_OK)
        return st;
    return run(&s, dst, out);
}

nb_status nbi_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst,
                           nb_tensor** out) {
    static const char* op = "linear";
    nb_status st = check_args(op, ARGS(input, weight), NAMES("input", "weight"), 2, dst, out);
    if (st != NB_OK) return st;
    if (bias != NULL && (st = check_args(op, ARGS(input, bias), NAMES("input", "bias"), 2, dst, out)) != NB_OK)
        return st;
    if (input->ndim == 0 || weight->ndim == 0)
        return nb_error(NB_ERR_SHAPE, "linear: both arguments to linear need to be at least 1D, but they are %dD and %dD",
                        (int)input->ndim, (int)weight->ndim);
    if (weight->ndim > 2)
        return nb_error(NB_ERR_SHAPE, "linear: t() expects a tensor with <= 2 dimensions, but self is %dD",
                        (int)weight->ndim);
    nb_tensor* wt = NULL;  /* weight.t(): [in, out], a view */
    if (weight->ndim == 2) {
        if ((st = nb_tensor_transpose(weight, 0, 1, &wt)) != NB_OK) return st;
    } else {
        wt = (nb_tensor*)weight;
        nb_tensor_retain(wt);
    }
    mm_spec s = {.op = op, .a = input, .b = wt, .input = bias, .beta = 1, .alpha = 1};
    st = check_matmul(&s);
    if (st == NB_OK && bias != NULL) {
        if (bias->dtype != weight->dtype)
            st = nb_error(NB_ERR_DTYPE, "linear: self and mat2 must have the same dtype, but got %s and %s",
                          nb_dtype_torch_name(bias->dtype), nb_dtype_torch_name(weight->dtype));
        else
            st = check_expand(op, bias, s.oshape, s.ondim);
    }
    if (st == NB_OK) st = run(&s, dst, out);
    nb_tensor_release(wt);
    return st;
}

nb_status nbi_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    static const char* op = "outer";
    nb_status st = check_args(op, ARGS(a, b), NAMES("a", "b"), 2, dst, out);
    if (st != NB_OK) return st;
    if (a->ndim != 1) return nb_error(NB_ERR_SHAPE, "outer: expected 1-D argument self, but got %d-D", (int)a->ndim);
    if (b->ndim != 1) return nb_error(NB_ERR_SHAPE, "outer: expected 1-D argument vec2, but got %d-D", (int)b->ndim);
    nb_tensor* column = NULL;  /* a as [n, 1]: outer is a broadcast product, with mul's type promotion */
    if ((st = nb_tensor_unsqueeze(a, 1, &column)) != NB_OK) return st;
    st = nb_mul(column, b, dst, out);
    nb_tensor_release(column);
    return st;
}
