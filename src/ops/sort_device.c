/* sort_device.c: nb_bk_sort plans for the sort family on a device backend (see
 * sort_device.h). Pointers include the tensors' offsets; strides count elements;
 * a 0-dim input is planned as shape {1}. */
#include "sort_device.h"
#include "../core/backend.h"
#include "../core/runtime.h"

/* Queues plan p on `on`'s device and current stream with a workspace of the bytes it needs. */
static nb_status launch(const char* op, const nb_tensor* on, nb_bk_sort* p, int64_t ws_bytes) {
    const int32_t dt = on->storage->device_type, di = on->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_SORT, &b);
    if (st != NB_OK) return st;
    nb_tensor* ws = NULL;
    if (ws_bytes > 0 && (st = nb_tensor_new(op, &ws_bytes, 1, NB_U8, dt, di, &ws)) != NB_OK) return st;
    p->name = op;
    p->workspace = ws ? nb_tensor_data(ws) : NULL, p->workspace_bytes = ws ? ws_bytes : 0;
    st = b->sort(di, p, nb_stream_current_of(dt, di)->native);
    if (st != NB_OK) st = nb_error(st, "%s: %s", op, b->last_error());
    nb_tensor_release(ws);  /* reused only by later work on this stream */
    return st;
}

nb_status nb_sortd_lines(const char* op, const nb_tensor* x, int32_t d, bool descending, int64_t k,
                         nb_tensor* values, nb_tensor* indices) {
    const nb_tensor* o = values ? values : indices;
    if (o->numel == 0) return NB_OK;
    nb_bk_sort p;
    memset(&p, 0, sizeof p);
    p.op = NB_SK_SORT, p.dtype = x->dtype, p.descending = descending, p.k = k;
    p.in = nb_tensor_data(x);
    p.values = values ? nb_tensor_data(values) : NULL;
    p.indices = indices ? nb_tensor_data(indices) : NULL;
    if (x->ndim == 0) {
        p.ndim = 1, p.dim = 0, p.shape[0] = 1;
    } else {
        p.ndim = x->ndim, p.dim = d;
        for (int32_t i = 0; i < x->ndim; i++) {
            p.shape[i] = x->shape[i], p.in_strides[i] = x->strides[i];
            if (values) p.values_strides[i] = values->strides[i];
            if (indices) p.indices_strides[i] = indices->strides[i];
        }
    }
    int64_t lines = 1;
    for (int32_t i = 0; i < p.ndim; i++)
        if (i != p.dim) lines *= p.shape[i];
    return launch(op, x, &p, nb_bk_sort_workspace_bytes(NB_SK_SORT, lines, p.shape[p.dim], nb_dtype_sizes[x->dtype]));
}

nb_status nb_sortd_flat(const char* op, const nb_tensor* c, int64_t n, nb_tensor** sorted, nb_tensor** order) {
    const int32_t dt = c->storage->device_type, di = c->storage->device_index;
    nb_tensor flat;
    const int64_t one = 1;
    nb_local_view(&flat, c, &n, &one, 1, c->offset);
    nb_status st = nb_tensor_new(op, &n, 1, c->dtype, dt, di, sorted);
    if (st == NB_OK) st = nb_tensor_new(op, &n, 1, NB_I64, dt, di, order);
    if (st == NB_OK) st = nb_sortd_lines(op, &flat, 0, false, n, *sorted, *order);
    return st;
}

nb_status nb_sortd_unique(const char* op, const nb_tensor* x, bool sorted, nb_tensor** values, nb_tensor** inverse,
                          nb_tensor** counts) {
    const int32_t dt = x->storage->device_type, di = x->storage->device_index;
    const int64_t n = x->numel;
    nb_tensor *c = NULL, *s = NULL, *order = NULL, *group = NULL, *v = NULL, *inv = NULL, *cnt = NULL;
    nb_status st = nb_tensor_contiguous(x, &c);
    if (st == NB_OK && sorted && n > 0) st = nb_sortd_flat(op, c, n, &s, &order);
    const nb_tensor* in = s ? s : c;
    nb_bk_sort p;
    memset(&p, 0, sizeof p);
    p.dtype = x->dtype, p.n = n;
    int64_t groups = 0;
    if (st == NB_OK && n > 0) {
        st = nb_tensor_new(op, &n, 1, NB_I64, dt, di, &group);
        if (st == NB_OK) {
            p.op = NB_SK_GROUPS, p.in = nb_tensor_data(in), p.group = nb_tensor_data(group);
            st = launch(op, x, &p, nb_bk_sort_workspace_bytes(NB_SK_GROUPS, 1, n, nb_dtype_sizes[x->dtype]));
        }
        nb_tensor last;
        if (st == NB_OK) {
            nb_local_view(&last, group, NULL, NULL, 0, group->offset + n - 1);
            st = nb_tensor_item_int(&last, &groups);  /* synchronises, as PyTorch does */
            groups += 1;
        }
    }
    if (st == NB_OK) st = nb_tensor_new(op, &groups, 1, x->dtype, dt, di, &v);
    if (st == NB_OK && inverse) st = nb_tensor_new(op, x->shape, x->ndim, NB_I64, dt, di, &inv);
    if (st == NB_OK && counts) st = nb_tensor_new(op, &groups, 1, NB_I64, dt, di, &cnt);
    if (st == NB_OK && n > 0) {
        p.op = NB_SK_GROUPS_WRITE, p.order = order ? nb_tensor_data(order) : NULL;
        p.values = nb_tensor_data(v), p.counts = cnt ? nb_tensor_data(cnt) : NULL;
        p.indices = inv ? nb_tensor_data(inv) : NULL;
        st = launch(op, x, &p, 0);
    }
    nb_tensor_release(c);
    nb_tensor_release(s);
    nb_tensor_release(order);
    nb_tensor_release(group);
    if (st != NB_OK) {
        nb_tensor_release(v);
        nb_tensor_release(inv);
        nb_tensor_release(cnt);
        return st;
    }
    *values = v;
    if (inverse) *inverse = inv;
    if (counts) *counts = cnt;
    return NB_OK;
}

nb_status nb_sortd_search(const char* op, const nb_tensor* sorted, const nb_tensor* values, bool right,
                          nb_tensor* out) {
    nb_bk_sort p;
    memset(&p, 0, sizeof p);
    p.op = NB_SK_SEARCH, p.dtype = values->dtype, p.right = right, p.index_dtype = out->dtype;
    p.in = nb_tensor_data(sorted), p.values = (void*)nb_tensor_data(values), p.indices = nb_tensor_data(out);
    p.n = sorted->shape[sorted->ndim - 1];
    if (values->ndim == 0) {  /* one value, one line (sorted is 1-d) */
        p.ndim = 1, p.shape[0] = 1;
    } else {
        p.ndim = values->ndim;
        for (int32_t i = 0; i < values->ndim; i++) {
            p.shape[i] = values->shape[i], p.values_strides[i] = values->strides[i], p.indices_strides[i] = out->strides[i];
            if (sorted->ndim > 1 && i < values->ndim - 1) p.in_strides[i] = sorted->strides[i];
        }
    }
    p.dim = p.ndim - 1;
    p.in_strides[p.dim] = sorted->strides[sorted->ndim - 1];
    return launch(op, sorted, &p, 0);
}
