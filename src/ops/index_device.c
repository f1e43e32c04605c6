/* index_device.c: nb_bk_index plans for the index family on a device backend
 * (see index_device.h). Operands are given to the kernels as data pointers
 * (offsets included) and element strides over one iteration shape; 0-dim
 * iterations are viewed as [1], which the kernels require. */
#include "index_device.h"
#include "../core/backend.h"
#include "../core/runtime.h"
#include "../cpu/kernels.h"

#include <string.h>

static int32_t dev_type(const nb_tensor* t) { return t->storage->device_type; }
static int32_t dev_index(const nb_tensor* t) { return t->storage->device_index; }

nb_status nb_ixd_same_device(const char* op, const nb_tensor* x, const nb_tensor* t) {
    if (t == NULL || (dev_type(t) == dev_type(x) && dev_index(t) == dev_index(x))) return NB_OK;
    return nb_error(NB_ERR_DEVICE, "%s: expected all tensors to be on the same device, but found at least two "
                    "devices, %s:%d and %s:%d", op, nb_device_type_name(dev_type(x)), (int)dev_index(x),
                    nb_device_type_name(dev_type(t)), (int)dev_index(t));
}

nb_status nb_ixd_value_bytes(const char* op, const nb_tensor* value, int32_t dtype, char* buf) {
    (void)op;
    nb_tensor* host = NULL;
    if (nb_ixd_on_device(value)) {
        nb_status st = nb_tensor_to(value, value->dtype, NB_CPU, 0, 0, &host);
        if (st != NB_OK) return st;
        value = host;
    }
    nb_cpu_convert_fn(value->dtype, dtype)(buf, 1, nb_tensor_data(value), 1, 1);
    nb_tensor_release(host);
    return NB_OK;
}

nb_status nb_ixd_to_device_of(const nb_tensor* t, const nb_tensor* like, const nb_tensor** use, nb_tensor** owned) {
    *owned = NULL;
    *use = t;
    if (dev_type(t) == dev_type(like) && dev_index(t) == dev_index(like)) return NB_OK;
    nb_status st = nb_tensor_to(t, t->dtype, dev_type(like), dev_index(like), 0, owned);
    if (st == NB_OK) *use = *owned;
    return st;
}

/* Queues plan p on `on`'s device and current stream. */
static nb_status launch(const char* op, const nb_tensor* on, nb_bk_index* p) {
    const int32_t dt = dev_type(on), di = dev_index(on);
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_INDEX, &b);
    if (st != NB_OK) return st;
    p->name = op;
    if (p->ndim == 0) p->ndim = 1, p->shape[0] = 1;  /* strides stay 0 */
    st = b->index(di, p, nb_stream_current_of(dt, di)->native);
    if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    return st;
}

static int64_t stride_of(const nb_tensor* t, int32_t map) { return map < 0 ? 0 : t->strides[map]; }

nb_status nb_ixd_take(const char* op, nb_tensor* r, const nb_tensor* x, const nb_tensor* index, int32_t d,
                      const int32_t* xmap, const int32_t* imap) {
    if (r->numel == 0) return NB_OK;
    nb_bk_index p;
    memset(&p, 0, sizeof p);
    p.op = NB_IXK_GATHER, p.dtype = x->dtype, p.idx_dtype = index->dtype, p.ndim = r->ndim;
    p.dim = r->ndim ? d : 0;
    p.dim_size = x->ndim ? x->shape[d] : 1;
    p.out = nb_tensor_data(r), p.src = nb_tensor_data(x), p.idx = nb_tensor_data(index);
    for (int32_t i = 0; i < r->ndim; i++) {
        p.shape[i] = r->shape[i];
        p.out_strides[i] = r->strides[i];
        p.src_strides[i] = i == d ? (x->ndim ? x->strides[d] : 0) : stride_of(x, xmap[i]);
        p.idx_strides[i] = stride_of(index, imap[i]);
    }
    return launch(op, r, &p);
}

static void scatter_mode(nb_bk_index* p, int32_t mode) {
    p->op = mode < 0 ? NB_IXK_SCATTER : (mode == NB_SCATTER_SUM || mode == NB_SCATTER_MEAN) ? NB_IXK_SCATTER_ADD
                                                                                         : NB_IXK_SCATTER_REDUCE;
    p->reduce = mode == NB_SCATTER_PROD ? NB_RK_PROD : mode == NB_SCATTER_AMAX ? NB_RK_AMAX : NB_RK_AMIN;
}

/* src, or a one-element device tensor holding the value bytes (*owned). */
static nb_status src_or_value(const char* op, const nb_tensor* target, const nb_tensor* src, const char* value,
                              const void** data, nb_tensor** owned) {
    *owned = NULL;
    if (src != NULL) {
        *data = nb_tensor_data(src);
        return NB_OK;
    }
    nb_tensor* host = NULL;
    nb_status st = nb_tensor_new(op, NULL, 0, target->dtype, NB_CPU, 0, &host);
    if (st != NB_OK) return st;
    memcpy(nb_tensor_data(host), value, (size_t)nb_dtype_sizes[target->dtype]);
    st = nb_tensor_to(host, target->dtype, dev_type(target), dev_index(target), 0, owned);
    nb_tensor_release(host);
    if (st == NB_OK) *data = nb_tensor_data(*owned);
    return st;
}

nb_status nb_ixd_scatter(const char* op, nb_tensor* target, const nb_tensor* src, const char* value,
                         const nb_tensor* index, int32_t d, int32_t mode, double alpha) {
    if (index->numel == 0) return NB_OK;
    nb_bk_index p;
    memset(&p, 0, sizeof p);
    scatter_mode(&p, mode);
    p.dtype = target->dtype, p.idx_dtype = index->dtype, p.ndim = index->ndim, p.alpha = alpha;
    p.dim = index->ndim ? d : 0;
    p.dim_size = target->ndim ? target->shape[d] : 1;
    p.out = nb_tensor_data(target), p.idx = nb_tensor_data(index);
    for (int32_t i = 0; i < index->ndim; i++) {
        p.shape[i] = index->shape[i];
        p.out_strides[i] = target->ndim ? target->strides[i] : 0;
        p.src_strides[i] = src != NULL && src->ndim ? src->strides[i] : 0;
        p.idx_strides[i] = index->strides[i];
    }
    nb_tensor* owned;
    nb_status st = src_or_value(op, target, src, value, &p.src, &owned);
    if (st == NB_OK) st = launch(op, target, &p);
    nb_tensor_release(owned);
    return st;
}

nb_status nb_ixd_index_add(const char* op, nb_tensor* target, const nb_tensor* source, const nb_tensor* index,
                           int32_t d, double alpha) {
    if (source->numel == 0) return NB_OK;
    nb_bk_index p;
    memset(&p, 0, sizeof p);
    p.op = NB_IXK_SCATTER_ADD, p.dtype = target->dtype, p.idx_dtype = index->dtype, p.ndim = source->ndim;
    p.alpha = alpha;
    p.dim = source->ndim ? d : 0;
    p.dim_size = target->ndim ? target->shape[d] : 1;
    p.out = nb_tensor_data(target), p.src = nb_tensor_data(source), p.idx = nb_tensor_data(index);
    for (int32_t i = 0; i < source->ndim; i++) {
        p.shape[i] = source->shape[i];
        p.out_strides[i] = target->ndim ? target->strides[i] : 0;
        p.src_strides[i] = source->strides[i];
        p.idx_strides[i] = i == d && index->ndim ? index->strides[0] : 0;
    }
    return launch(op, target, &p);
}

/* Strides of t broadcast (right-aligned) to nd dims. */
static void bcast_strides(const nb_tensor* t, int32_t nd, int64_t* s) {
    for (int32_t i = 0; i < nd; i++) {
        int32_t j = i - (nd - t->ndim);
        s[i] = (j < 0 || t->shape[j] == 1) ? 0 : t->strides[j];
    }
}

nb_status nb_ixd_masked_fill(const char* op, nb_tensor* target, const nb_tensor* mask, const int64_t* shape,
                             int32_t nd, const char* value) {
    if (target->numel == 0) return NB_OK;
    nb_bk_index p;
    memset(&p, 0, sizeof p);
    p.op = NB_IXK_MASKED_FILL, p.dtype = target->dtype, p.idx_dtype = NB_BOOL, p.ndim = nd;
    p.out = nb_tensor_data(target), p.src = p.out, p.idx = nb_tensor_data(mask);
    memcpy(p.shape, shape, sizeof(int64_t) * (size_t)nd);
    memcpy(p.out_strides, target->strides, sizeof(int64_t) * (size_t)nd);
    bcast_strides(mask, nd, p.idx_strides);
    memcpy(p.value, value, (size_t)nb_dtype_sizes[target->dtype]);
    return launch(op, target, &p);
}

nb_status nb_ixd_masked_select(const char* op, const nb_tensor* x, const nb_tensor* mask, const int64_t* shape,
                               int32_t nd, nb_tensor** out) {
    nb_tensor *m = NULL, *cnt = NULL, *r = NULL;
    int64_t count = 0;
    nb_status st = nb_tensor_expand(mask, shape, nd, &m);
    if (st == NB_OK) st = nb_sum(m, NULL, 0, 0, NB_I64, NULL, &cnt);
    if (st == NB_OK) st = nb_tensor_item_int(cnt, &count);  /* synchronises, as PyTorch does */
    if (st == NB_OK) st = nb_tensor_new(op, &count, 1, x->dtype, dev_type(x), dev_index(x), &r);
    if (st == NB_OK && count > 0) {
        nb_bk_index p;
        memset(&p, 0, sizeof p);
        p.op = NB_IXK_MASKED_SELECT, p.dtype = x->dtype, p.idx_dtype = NB_BOOL, p.ndim = nd;
        p.out = nb_tensor_data(r), p.src = nb_tensor_data(x), p.idx = nb_tensor_data(mask);
        memcpy(p.shape, shape, sizeof(int64_t) * (size_t)nd);
        p.out_strides[0] = r->strides[0];
        bcast_strides(x, nd, p.src_strides);
        bcast_strides(mask, nd, p.idx_strides);
        st = launch(op, x, &p);
    }
    nb_tensor_release(m);
    nb_tensor_release(cnt);
    if (st == NB_OK) *out = r;
    else nb_tensor_release(r);
    return st;
}

nb_status nb_ixd_nonzero(const char* op, const nb_tensor* x, nb_tensor** out) {
    (void)op;
    nb_tensor *host = NULL, *coords = NULL;
    nb_status st = nb_tensor_to(x, x->dtype, NB_CPU, 0, 0, &host);
    if (st == NB_OK) st = nb_nonzero(host, &coords);
    if (st == NB_OK) st = nb_tensor_to(coords, NB_I64, dev_type(x), dev_index(x), 0, out);
    nb_tensor_release(host);
    nb_tensor_release(coords);
    return st;
}

static nb_status adv_plan(const char* op, const nb_ixd_adv* a, nb_bk_index* p) {
    if (a->k < 1 || a->k > NB_BK_INDEX_MAX_INDICES)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: %d index tensors on a device (at most %d are supported)", op,
                        (int)a->k, NB_BK_INDEX_MAX_INDICES);
    memset(p, 0, sizeof *p);
    p->ndim = a->ndim, p->bstart = a->bstart, p->bnd = a->bnd, p->nidx = a->k, p->wrap = 1;
    memcpy(p->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    for (int32_t j = 0; j < a->k; j++) {
        nb_bk_index_operand* o = &p->idxs[j];
        o->data = nb_tensor_data(a->idx[j]), o->dtype = a->idx[j]->dtype, o->dim = a->pos[j];
        o->size = a->size[j], o->stride = a->stride[j];
        for (int32_t r = 0; r < a->ndim; r++) o->strides[r] = stride_of(a->idx[j], a->idx_map[j][r]);
    }
    return NB_OK;
}

nb_status nb_ixd_index(const char* op, const nb_ixd_adv* a, nb_tensor* r, const nb_tensor* x,
                       const int64_t* xstrides) {
    if (r->numel == 0) return NB_OK;
    nb_bk_index p;
    nb_status st = adv_plan(op, a, &p);
    if (st != NB_OK) return st;
    p.op = NB_IXK_INDEX, p.dtype = x->dtype, p.idx_dtype = NB_I64;
    p.out = nb_tensor_data(r), p.src = nb_tensor_data(x);
    memcpy(p.out_strides, r->strides, sizeof(int64_t) * (size_t)r->ndim);
    memcpy(p.src_strides, xstrides, sizeof(int64_t) * (size_t)a->ndim);
    return launch(op, r, &p);
}

nb_status nb_ixd_index_put(const char* op, const nb_ixd_adv* a, nb_tensor* target, const int64_t* tstrides,
                           const nb_tensor* values, const int64_t* vstrides, bool accumulate) {
    int64_t n = 1;
    for (int32_t i = 0; i < a->ndim; i++) n *= a->shape[i];
    if (n == 0) return NB_OK;
    nb_bk_index p;
    nb_status st = adv_plan(op, a, &p);
    if (st != NB_OK) return st;
    p.op = NB_IXK_INDEX_PUT, p.dtype = target->dtype, p.idx_dtype = NB_I64, p.accumulate = accumulate;
    p.out = nb_tensor_data(target), p.src = nb_tensor_data(values);
    memcpy(p.out_strides, tstrides, sizeof(int64_t) * (size_t)a->ndim);
    memcpy(p.src_strides, vstrides, sizeof(int64_t) * (size_t)a->ndim);
    return launch(op, target, &p);
}
