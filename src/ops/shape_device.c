/* shape_device.c: repeat, tril/triu and one_hot on a device backend, composed of
 * the device's copy, elementwise, index and reduce kernels (shape_device.h). */
#include "shape_device.h"
#include "index_device.h"
#include "../autograd/dispatch.h"

/* ---- repeat ---- */

nb_status nb_shd_repeat(const char* op, nb_tensor* r, const nb_tensor* x, const int64_t* in_shape,
                        const int64_t* in_strides, const int64_t* repeats, int32_t n) {
    if (r->numel == 0) return NB_OK;
    /* r viewed as (repeats[d], in_shape[d]) pairs, read from x with stride 0 along each repeat;
     * pairs of size 1 are left out, so the view has at most 2n (usually far fewer) dims */
    int64_t shape[NB_MAX_DIMS], src_strides[NB_MAX_DIMS], dst_strides[NB_MAX_DIMS];
    int32_t nd = 0;
    bool fits = true;
    for (int32_t d = 0; d < n && fits; d++) {
        const int64_t block = in_shape[d] * r->strides[d];
        if (repeats[d] != 1) {
            if (nd == NB_MAX_DIMS) { fits = false; break; }
            shape[nd] = repeats[d], src_strides[nd] = 0, dst_strides[nd++] = block;
        }
        if (in_shape[d] != 1) {
            if (nd == NB_MAX_DIMS) { fits = false; break; }
            shape[nd] = in_shape[d], src_strides[nd] = in_strides[d], dst_strides[nd++] = r->strides[d];
        }
    }
    nb_tensor src, dst;
    if (fits) {
        nb_local_view(&src, x, shape, src_strides, nd, x->offset);
        nb_local_view(&dst, r, shape, dst_strides, nd, r->offset);
        return nb_copy_into(op, &dst, &src);
    }
    /* the first block, then double the filled region along each dim, innermost first */
    nb_local_view(&src, x, in_shape, in_strides, n, x->offset);
    nb_local_view(&dst, r, in_shape, r->strides, n, r->offset);
    nb_status st = nb_copy_into(op, &dst, &src);
    int64_t region[NB_MAX_DIMS];
    memcpy(region, in_shape, sizeof(int64_t) * (size_t)n);
    for (int32_t d = n - 1; d >= 0 && st == NB_OK; d--) {
        for (int64_t filled = 1; filled < repeats[d] && st == NB_OK;) {
            const int64_t k = filled < repeats[d] - filled ? filled : repeats[d] - filled;
            region[d] = k * in_shape[d];
            nb_local_view(&dst, r, region, r->strides, n, r->offset + filled * in_shape[d] * r->strides[d]);
            nb_local_view(&src, r, region, r->strides, n, r->offset);
            st = nb_copy_into(op, &dst, &src);
            filled += k;
        }
        region[d] = r->shape[d];
    }
    return st;
}

/* ---- tril / triu ---- */

nb_status nb_shd_tri_zero(const char* op, nb_tensor* r, int64_t k, bool lower) {
    const int32_t nd = r->ndim, dev = r->storage->device_type, di = r->storage->device_index;
    const int64_t rows = r->shape[nd - 2], cols = r->shape[nd - 1];
    if (r->numel == 0) return NB_OK;
    /* beyond these bounds every row keeps (or loses) all of its columns alike */
    if (k < -rows - 1) k = -rows - 1;
    if (k > cols + 1) k = cols + 1;
    /* tril zeroes column j of row i where j > i + k, triu where j < i + k */
    nb_tensor *row = NULL, *row_col = NULL, *col = NULL, *mask = NULL;
    nb_status st = nb_arange((double)k, (double)(rows + k), 1.0, NB_I64, dev, di, &row);
    if (st == NB_OK) st = nbi_tensor_unsqueeze(row, 1, &row_col);
    if (st == NB_OK) st = nb_arange(0.0, (double)cols, 1.0, NB_I64, dev, di, &col);
    if (st == NB_OK) st = lower ? nbi_gt(col, row_col, NULL, &mask) : nbi_lt(col, row_col, NULL, &mask);
    if (st == NB_OK) {
        const char zero[8] = {0};
        st = nb_ixd_masked_fill(op, r, mask, r->shape, nd, zero);
    }
    nb_tensor_release(mask);
    nb_tensor_release(col);
    nb_tensor_release(row_col);
    nb_tensor_release(row);
    return st;
}

/* ---- one_hot ---- */

nb_status nb_shd_one_hot(const char* op, const nb_tensor* x, int64_t num_classes, nb_tensor** out) {
    const int32_t dev = x->storage->device_type, di = x->storage->device_index;
    nb_status st = NB_OK;
    if (x->numel > 0) {  /* the class checks need the range: one read back, as PyTorch on CUDA */
        nb_tensor *lo_t = NULL, *hi_t = NULL;
        int64_t lo = 0, hi = 0;
        st = nbi_amin(x, NULL, 0, 0, NULL, &lo_t);
        if (st == NB_OK) st = nbi_amax(x, NULL, 0, 0, NULL, &hi_t);
        if (st == NB_OK) st = nb_tensor_item_int(lo_t, &lo);
        if (st == NB_OK) st = nb_tensor_item_int(hi_t, &hi);
        nb_tensor_release(lo_t);
        nb_tensor_release(hi_t);
        if (st != NB_OK) return st;
        if (lo < 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Class values must be non-negative.", op);
        if (num_classes == -1) num_classes = hi + 1;
        if (hi >= num_classes)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: Class values must be smaller than num_classes.", op);
    }
    nb_tensor *classes = NULL, *column = NULL, *hits = NULL;
    st = nb_arange(0.0, (double)num_classes, 1.0, NB_I64, dev, di, &classes);
    if (st == NB_OK) st = nbi_tensor_unsqueeze(x, x->ndim, &column);
    if (st == NB_OK) st = nbi_eq(column, classes, NULL, &hits);
    if (st == NB_OK) st = nbi_tensor_to(hits, NB_I64, dev, di, 0, out);
    nb_tensor_release(hits);
    nb_tensor_release(column);
    nb_tensor_release(classes);
    return st;
}
