/* nnmisc.c: embedding (a bounds-checked row lookup; padding_idx only matters to
 * the gradient) and pad (constant, reflect, replicate, circular), forward. Both
 * move bytes, so every dtype works. */
#include "nn_common.h"
#include "index_device.h"

#include <string.h>

/* ---- embedding ---- */

/* On a device: a gather of weight's rows (an out-of-range index is reported at the next
 * synchronising call, as the index kernels do). shape: indices' shape and D. */
static nb_status embedding_device(const char* op, const nb_tensor* weight, const nb_tensor* indices,
                                  const int64_t* shape, nb_tensor* dst, nb_tensor** out) {
    nb_status st = nb_ixd_same_device(op, weight, indices);
    if (st == NB_OK && dst != NULL) st = nb_ixd_same_device(op, weight, dst);
    if (st != NB_OK) return st;
    const int64_t one = 1;
    const int32_t n = indices->ndim ? indices->ndim : 1;  /* 0-dim indices are viewed as [1] */
    int64_t rshape[NB_MAX_DIMS];
    memcpy(rshape, shape, sizeof(int64_t) * (size_t)indices->ndim);
    if (!indices->ndim) rshape[0] = 1;
    rshape[n] = weight->shape[1];
    nb_tensor *idx = NULL, *r = NULL, *y = NULL;
    int32_t xmap[NB_MAX_DIMS], imap[NB_MAX_DIMS];
    for (int32_t i = 0; i <= n; i++) xmap[i] = i == n ? 1 : -1, imap[i] = i == n ? -1 : i;
    st = indices->ndim ? (nb_tensor_retain((nb_tensor*)indices), idx = (nb_tensor*)indices, NB_OK)
                       : nb_tensor_view(indices, &one, 1, &idx);
    if (st == NB_OK)
        st = nb_tensor_new(op, rshape, n + 1, weight->dtype, weight->storage->device_type,
                           weight->storage->device_index, &r);
    if (st == NB_OK) st = nb_ixd_take(op, r, weight, idx, 0, xmap, imap);
    if (st == NB_OK && !indices->ndim) st = nb_tensor_view(r, shape, 1, &y);
    else if (st == NB_OK) nb_tensor_retain(y = r);
    nb_tensor_release(idx);
    nb_tensor_release(r);
    return st == NB_OK ? nn_deliver(op, y, weight->dtype, dst, out) : st;
}

nb_status nbi_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst,
                              nb_tensor** out) {
    static const char* op = "embedding";
    nb_status st;
    if (nb_tensor_ok(weight) && nb_ixd_on_device(weight)) {  /* the device checks come with the kernel */
        if (dst == NULL && out == NULL) return nn_check_out(op, dst, out);
        if (!nb_tensor_ok(indices)) return nb_bad_handle(op, "indices", indices);
        if (dst != NULL && !nb_tensor_ok(dst)) return nb_bad_handle(op, "out", dst);
        if (dst != NULL) NB_CHECK_WRITABLE(op, dst);
    } else if ((st = nn_check_out(op, dst, out)) != NB_OK ||
               (st = nn_check_tensor(op, "weight", weight, false)) != NB_OK ||
               (st = nn_check_tensor(op, "indices", indices, false)) != NB_OK) {
        return st;
    }
    if (weight->ndim != 2)
        return nb_error(NB_ERR_SHAPE, "%s: 'weight' must be 2-D, but got weight of size %s", op,
                        nb_shape_str(weight->shape, weight->ndim));
    if (indices->dtype != NB_I64 && indices->dtype != NB_I32)
        return nb_error(NB_ERR_DTYPE, "%s: expected indices of dtype int64 or int32, but got %s", op,
                        nb_dtype_str(indices->dtype));
    const int64_t V = weight->shape[0], D = weight->shape[1];
    if (padding_idx >= V)
        return nb_error(NB_ERR_INDEX, "%s: padding_idx (%lld) must be within num_embeddings (%lld)", op,
                        (long long)padding_idx, (long long)V);
    if (indices->ndim + 1 > NB_MAX_DIMS)
        return nb_error(NB_ERR_SHAPE, "%s: indices of %d dims give more than %d dims", op, (int)indices->ndim,
                        NB_MAX_DIMS);
    int64_t shape[NB_MAX_DIMS];
    memcpy(shape, indices->shape, sizeof(int64_t) * (size_t)indices->ndim);
    shape[indices->ndim] = D;
    if (nb_ixd_on_device(weight)) return embedding_device(op, weight, indices, shape, dst, out);
    nb_tensor *w = NULL, *idx = NULL, *y = NULL;
    if ((st = nn_contig(weight, weight->dtype, &w)) != NB_OK || (st = nn_contig(indices, NB_I64, &idx)) != NB_OK ||
        (st = nn_output(op, shape, indices->ndim + 1, weight->dtype, weight->dtype, dst,
                        (const nb_tensor*[2]){weight, indices}, 2, &y)) != NB_OK) {
        nn_release(w, idx, y, NULL, NULL, NULL, NULL, NULL);
        return st;
    }
    const int64_t* ip = nb_tensor_data(idx);
    const int64_t n = idx->numel;
    for (int64_t i = 0; i < n; i++)
        if (ip[i] < 0 || ip[i] >= V) {
            st = nb_error(NB_ERR_INDEX, "%s: index out of range in self (index %lld, num_embeddings %lld)", op,
                          (long long)ip[i], (long long)V);
            nn_release(w, idx, y, NULL, NULL, NULL, NULL, NULL);
            return st;
        }
    const size_t row = (size_t)(D * nb_dtype_sizes[weight->dtype]);
    const char* src = nb_tensor_data(w);
    char* dstp = nb_tensor_data(y);
    const int nthreads = nn_threads((double)n * (double)row / 16);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (int64_t i = 0; i < n; i++) memcpy(dstp + (size_t)i * row, src + (size_t)ip[i] * row, row);
#pragma GCC diagnostic pop
    nn_release(w, idx, NULL, NULL, NULL, NULL, NULL, NULL);
    return nn_deliver(op, y, weight->dtype, dst, out);
}

/* ---- pad ---- */

enum { PAD_CONSTANT = NB_PAD_CONSTANT, PAD_REFLECT = NB_PAD_REFLECT, PAD_REPLICATE = NB_PAD_REPLICATE,
       PAD_CIRCULAR = NB_PAD_CIRCULAR };
static const char* const dim_letters = "WHD";

/* Validates and fills the output shape. */
static nb_status pad_check(const char* op, const nb_tensor* x, const int64_t* pad, int32_t npad, int32_t mode,
                           int64_t* shape) {
    const int32_t ndim = x->ndim, nd = npad / 2;
    if (npad < 0 || npad % 2 != 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Padding length must be divisible by 2", op);
    if (nd > ndim)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Padding length should be less than or equal to two times the input "
                        "dimension but got padding length %d and input of dimension %d", op, (int)npad, (int)ndim);
    if (npad > 0 && pad == NULL) return nn_check_array(op, "pad", pad);
    if (mode < 0 || mode > 3)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: unknown padding mode %d (0 constant, 1 reflect, 2 replicate, 3 "
                        "circular)", op, (int)mode);
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)ndim);
    if (mode != PAD_CONSTANT) {
        if (!(npad == 2 || npad == 4 || npad == 6) || (ndim != nd + 1 && ndim != nd + 2))
            return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: Padding size %d is not supported for %dD input tensor.", op,
                            (int)npad, (int)ndim);
        if (mode != PAD_CIRCULAR)
            for (int32_t d = ndim == nd + 2 ? 1 : 0; d < ndim; d++)
                if (x->shape[d] == 0)
                    return nb_error(NB_ERR_SHAPE, "%s: Expected %dD or %dD (batch mode) tensor with possibly 0 batch size "
                                    "and other non-zero dimensions for input, but got: %s", op, (int)nd + 1, (int)nd + 2,
                                    nb_shape_str(x->shape, ndim));
    }
    for (int32_t i = 0; i < nd; i++) {
        const int32_t d = ndim - 1 - i;
        const int64_t before = pad[2 * i], after = pad[2 * i + 1], size = x->shape[d];
        if (before > ((int64_t)1 << 60) || before < -((int64_t)1 << 60) || after > ((int64_t)1 << 60) ||
            after < -((int64_t)1 << 60))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: padding (%lld, %lld) is out of range", op, (long long)before,
                            (long long)after);
        const int64_t o = size + before + after;
        if (mode == PAD_REFLECT && (before >= size || after >= size))
            return nb_error(NB_ERR_SHAPE, "%s: Argument #4: Padding size should be less than the corresponding input "
                            "dimension, but got: padding (%lld, %lld) at dimension %d of input %s", op, (long long)before,
                            (long long)after, (int)d, nb_shape_str(x->shape, ndim));
        const int64_t kept = size + (before < 0 ? before : 0) + (after < 0 ? after : 0);  /* after cropping */
        if (mode == PAD_CIRCULAR) {
            if (o < 0 || (o > 0 && kept <= 0))  /* nothing left to wrap around */
                return nb_error(NB_ERR_SHAPE, "%s: Negative padding value is resulting in an empty dimension", op);
            if (before > size || after > size || (o > 0 && (before > kept || after > kept)))
                return nb_error(NB_ERR_SHAPE, "%s: Padding value causes wrapping around more than once.", op);
        }
        if ((mode == PAD_REFLECT || mode == PAD_REPLICATE) && o < (npad == 2 ? 1 : 0))  /* PyTorch's pad1d wants 1 */
            return nb_error(NB_ERR_SHAPE, "%s: input (%c: %lld) is too small. Calculated output %c: %lld", op,
                            dim_letters[i], (long long)size, dim_letters[i], (long long)o);
        if (o < 0)
            return nb_error(NB_ERR_SHAPE, "%s: The input size %lld, plus negative padding %lld and %lld resulted in a "
                            "negative output size, which is invalid. Check dimension %d of your input.", op,
                            (long long)size, (long long)before, (long long)after, (int)d);
        if (mode == PAD_CONSTANT && kept < 0)
            return nb_error(NB_ERR_SHAPE, "%s: negative padding (%lld, %lld) removes more than the %lld elements of "
                            "dimension %d", op, (long long)before, (long long)after, (long long)size, (int)d);
        shape[d] = o;
    }
    return NB_OK;
}

/* Source index of output position o along a dim of `size` padded by (before, after); -1: the fill value. */
static int64_t pad_source(int32_t mode, int64_t o, int64_t size, int64_t before, int64_t after) {
    int64_t i = o - before;
    switch (mode) {
    case PAD_CONSTANT: return i >= 0 && i < size ? i : -1;
    case PAD_REFLECT:
        if (i < 0) i = -i;
        if (i >= size) i = 2 * (size - 1) - i;
        return i;
    case PAD_REPLICATE: return i < 0 ? 0 : i >= size ? size - 1 : i;
    default: {  /* circular over the part negative pads keep */
        const int64_t start = before < 0 ? -before : 0;
        const int64_t kept = size - start - (after < 0 ? -after : 0);
        int64_t k = (o - (before > 0 ? before : 0)) % kept;
        if (k < 0) k += kept;
        return start + k;
    }
    }
}

static inline void copy_elem(char* d, const char* s, int64_t es) {
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    default: memcpy(d, s, 8); break;
    }
}

/* One padded dim off the host: the rows of t along d picked by the source map (index_select), positions
 * the map marks -1 set to value. A new reference in *out; consumes nothing. */
static nb_status pad_dim_on_device(const char* op, const nb_tensor* t, int32_t d, const int64_t* map, int64_t n,
                                   double value, nb_tensor** out) {
    int64_t* safe = nn_alloc(sizeof(int64_t) * (size_t)(n + 1));
    uint8_t* hole = nn_alloc((size_t)(n + 1));
    if (safe == NULL || hole == NULL) {
        nn_free(safe), nn_free(hole);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    bool holes = false;
    for (int64_t o = 0; o < n; o++) {
        hole[o] = map[o] < 0;
        holes |= hole[o];
        safe[o] = map[o] < 0 ? 0 : map[o];
    }
    const int32_t dt = t->storage->device_type, di = t->storage->device_index;
    nb_tensor *index = NULL, *picked = NULL, *mask = NULL, *fill = NULL, *view = NULL;
    nb_status st = nb_tensor_from_host(safe, &n, 1, NB_I64, dt, di, &index);
    if (st == NB_OK) st = nb_index_select(t, d, index, &picked);
    if (st == NB_OK && holes) { /* where(hole along d, value, picked) */
        int64_t mshape[NB_MAX_DIMS];
        for (int32_t k = 0; k < t->ndim; k++) mshape[k] = k == d ? n : 1;
        st = nb_tensor_from_host(hole, &n, 1, NB_BOOL, dt, di, &mask);
        if (st == NB_OK) st = nb_tensor_view(mask, mshape, t->ndim, &view);
        if (st == NB_OK) st = nb_full(NULL, 0, value, t->dtype, NB_CPU, 0, &fill);
        nb_tensor* r = NULL;
        if (st == NB_OK) st = nb_where(view, fill, picked, NULL, &r);
        if (st == NB_OK) nb_tensor_release(picked), picked = r;
    }
    nn_free(safe), nn_free(hole);
    nn_release(index, mask, fill, view, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(picked);
        return st;
    }
    *out = picked;
    return NB_OK;
}

/* pad off the host: one gather per padded dim (from the last), or the fill alone when nothing is kept. */
static nb_status pad_on_device(const char* op, const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode,
                               double value, const int64_t* shape, nb_tensor* dst, nb_tensor** out) {
    const int32_t ndim = input->ndim, nd = npad / 2;
    int64_t numel = 1;
    for (int32_t d = 0; d < ndim; d++) numel *= shape[d];
    nb_tensor* t = (nb_tensor*)input;
    nb_tensor_retain(t);
    nb_status st = NB_OK;
    if (input->numel == 0 || numel == 0) { /* nothing to gather from (or into) */
        nb_tensor_release(t), t = NULL;
        st = nb_full(shape, ndim, value, input->dtype, input->storage->device_type, input->storage->device_index, &t);
    }
    for (int32_t i = 0; i < nd && st == NB_OK && input->numel > 0 && numel > 0; i++) {
        const int32_t d = ndim - 1 - i;
        int64_t* map = nn_alloc(sizeof(int64_t) * (size_t)(shape[d] + 1));
        if (map == NULL) {
            st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
            break;
        }
        for (int64_t o = 0; o < shape[d]; o++) map[o] = pad_source(mode, o, input->shape[d], pad[2 * i], pad[2 * i + 1]);
        nb_tensor* next = NULL;
        st = pad_dim_on_device(op, t, d, map, shape[d], value, &next);
        nn_free(map);
        if (st == NB_OK) nb_tensor_release(t), t = next;
    }
    if (st != NB_OK) {
        nb_tensor_release(t);
        return st;
    }
    return nn_deliver(op, t, input->dtype, dst, out);
}

nb_status nbi_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value,
                        nb_tensor* dst, nb_tensor** out) {
    static const char* op = "pad";
    static const char* const names[2] = {"input", "out"};
    nb_status st;
    if ((st = nn_check_out_any_device(op, dst, out)) != NB_OK || (st = nn_check_handle(op, "input", input, false)) != NB_OK ||
        (st = nn_check_same_device(op, names, (const nb_tensor*[2]){input, dst}, 2)) != NB_OK)
        return st;
    int64_t shape[NB_MAX_DIMS];
    if ((st = pad_check(op, input, pad, npad, mode, shape)) != NB_OK) return st;
    if (input->storage->device_type != NB_CPU) return pad_on_device(op, input, pad, npad, mode, value, shape, dst, out);
    const int32_t ndim = input->ndim, nd = npad / 2;
    const int64_t es = nb_dtype_sizes[input->dtype];
    nb_tensor *x = NULL, *y = NULL, *fill = NULL;
    int64_t* maps = NULL;
    const int64_t one = 1;
    if ((st = nn_contig(input, input->dtype, &x)) != NB_OK ||
        (st = nn_output(op, shape, ndim, input->dtype, input->dtype, dst, &input, 1, &y)) != NB_OK ||
        (st = nb_full(&one, 1, value, input->dtype, NB_CPU, 0, &fill)) != NB_OK)
        goto done;
    if (y->numel == 0) goto done;
    /* index maps of the padded dims, concatenated; offsets[d] into maps */
    int64_t offsets[NB_MAX_DIMS + 1], total = 0;
    for (int32_t d = 0; d < ndim; d++) offsets[d] = total, total += d >= ndim - nd ? shape[d] : 0;
    if ((maps = nn_alloc(sizeof(int64_t) * (size_t)(total + 1))) == NULL) {
        st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
        goto done;
    }
    for (int32_t d = ndim - nd; d < ndim; d++) {
        const int32_t i = ndim - 1 - d;
        for (int64_t o = 0; o < shape[d]; o++)
            maps[offsets[d] + o] = pad_source(mode, o, input->shape[d], pad[2 * i], pad[2 * i + 1]);
    }
    int64_t in_strides[NB_MAX_DIMS];
    nb_contiguous_strides(input->shape, ndim, in_strides);
    const int64_t W = ndim > 0 ? shape[ndim - 1] : 1;
    const int64_t rows = ndim > 0 ? y->numel / W : 1;
    const bool last_padded = nd > 0;
    const int64_t* lmap = last_padded ? maps + offsets[ndim - 1] : NULL;
    const char* fv = nb_tensor_data(fill);
    const char* xs = nb_tensor_data(x);
    char* ys = nb_tensor_data(y);
    /* the longest run of the last dim that maps to consecutive sources */
    int64_t run0 = 0, run1 = 0;
    if (last_padded) {
        for (int64_t o = 0; o < W; o++) {
            int64_t e = o;
            while (e + 1 < W && lmap[o] >= 0 && lmap[e + 1] == lmap[e] + 1) e++;
            if (lmap[o] >= 0 && e + 1 - o > run1 - run0) run0 = o, run1 = e + 1;
            o = e;
        }
    } else {
        run0 = 0, run1 = W;
    }
    const int nthreads = nn_threads((double)y->numel);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1)
    for (int64_t r = 0; r < rows; r++) {
        /* source offset of this row: walk the output index over dims [0, ndim - 1) */
        int64_t rem = r, src = 0;
        bool filled = false;
        for (int32_t d = ndim - 2; d >= 0; d--) {
            const int64_t o = rem % shape[d];
            rem /= shape[d];
            const int64_t i = d >= ndim - nd ? maps[offsets[d] + o] : o;
            if (i < 0) filled = true;
            else src += i * in_strides[d];
        }
        char* yrow = ys + r * W * es;
        if (filled) {
            for (int64_t o = 0; o < W; o++) copy_elem(yrow + o * es, fv, es);
            continue;
        }
        const char* xrow = xs + src * es;
        if (!last_padded) {
            memcpy(yrow, xrow, (size_t)(W * es));
            continue;
        }
        for (int64_t o = 0; o < run0; o++) copy_elem(yrow + o * es, lmap[o] < 0 ? fv : xrow + lmap[o] * es, es);
        if (run1 > run0) memcpy(yrow + run0 * es, xrow + lmap[run0] * es, (size_t)((run1 - run0) * es));
        for (int64_t o = run1; o < W; o++) copy_elem(yrow + o * es, lmap[o] < 0 ? fv : xrow + lmap[o] * es, es);
    }
#pragma GCC diagnostic pop
done:
    nn_free(maps);
    nn_release(x, fill, NULL, NULL, NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(y);
        return st;
    }
    return nn_deliver(op, y, input->dtype, dst, out);
}
