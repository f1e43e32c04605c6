/* loss_device.c: nb_bk_loss plans for nll_loss and cross_entropy (class
 * indices or probabilities) on a device backend (see loss_device.h): operands
 * made contiguous on the device (a device copy only when they are not), one
 * slot call; an out-of-range class index fails at the next synchronising call.
 * NABLA_LOSS_FUSED=0 leaves them to the composed path. */
#include "loss_device.h"

#include "../core/runtime.h"

#include <string.h>

bool nn_cls_fusable(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight) {
    const nb_backend* b = nb_backend_of(input->storage->device_type);
    if (input->storage->device_type == NB_CPU || b == NULL || b->loss == NULL || input->numel == 0 ||
        !nn_fused_enabled("NABLA_LOSS_FUSED"))
        return false;
    const bool probs = nb_dtype_is_floating(target->dtype);  /* loss.c checked the shape */
    return (probs || target->dtype == NB_I64 || target->dtype == NB_U8) &&
           (weight == NULL || weight->dtype == input->dtype);
}

/* The plan's geometry and operands; *keep gets the contiguous copies to release after the call. */
static nb_status plan(const char* op, bool logits, const nb_tensor* input, const nb_tensor* target,
                      const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double smoothing,
                      nb_bk_loss* p, nb_tensor** keep) {
    memset(p, 0, sizeof *p);
    p->name = op;
    const bool probs = nb_dtype_is_floating(target->dtype);
    p->kind = probs ? NB_XK_CROSS_ENTROPY_PROBS : logits ? NB_XK_CROSS_ENTROPY : NB_XK_NLL;
    p->dtype = input->dtype, p->target_dtype = target->dtype, p->reduction = reduction;
    const bool batched = input->ndim >= 2;
    p->N = batched ? input->shape[0] : 1;
    p->C = input->shape[batched ? 1 : 0];
    p->S = p->C > 0 && p->N > 0 ? input->numel / (p->N * p->C) : 0;
    p->ignore_index = ignore_index, p->smoothing = smoothing;
    nb_status st = nn_contig(input, input->dtype, &keep[0]);
    if (st == NB_OK) st = nn_contig(target, probs ? input->dtype : target->dtype, &keep[1]);
    if (st == NB_OK) st = nn_contig_opt(weight, input->dtype, &keep[2]);
    const int64_t bytes = nb_bk_loss_workspace_bytes(p->N, p->S);
    if (st == NB_OK)
        st = nb_tensor_new(op, &bytes, 1, NB_U8, input->storage->device_type, input->storage->device_index, &keep[3]);
    if (st != NB_OK) return st;
    p->input = nb_tensor_data(keep[0]), p->target = nb_tensor_data(keep[1]);
    p->weight = keep[2] != NULL ? nb_tensor_data(keep[2]) : NULL;
    p->workspace = nb_tensor_data(keep[3]), p->workspace_bytes = bytes;
    return NB_OK;
}

static nb_status run(const char* op, const nb_bk_loss* p, const nb_tensor* input) {
    const int32_t dt = input->storage->device_type, di = input->storage->device_index;
    const nb_backend* b;
    nb_status st = nb_backend_slot(op, dt, NB_FAMILY_LOSS, &b);
    if (st == NB_OK && (st = b->loss(di, p, nb_stream_current_of(dt, di)->native)) != NB_OK)
        st = nb_error(st, "%s: %s", op, b->last_error());
    return st;
}

nb_status nn_cls_loss_fused(const char* op, bool logits, const nb_tensor* input, const nb_tensor* target,
                            const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double smoothing,
                            nb_tensor** out) {
    nb_bk_loss p;
    nb_tensor* keep[4] = {NULL, NULL, NULL, NULL};
    nb_tensor* r = NULL;
    nb_status st = plan(op, logits, input, target, weight, ignore_index, reduction, smoothing, &p, keep);
    int64_t shape[NB_MAX_DIMS];  /* the loss per position: the input's shape without the class dim */
    int32_t ndim = 0;
    for (int32_t d = 0; d < input->ndim; d++)
        if (d != (input->ndim >= 2 ? 1 : 0)) shape[ndim++] = input->shape[d];
    if (st == NB_OK)
        st = reduction == NN_RED_NONE ? nb_tensor_new(op, shape, ndim, input->dtype,
                                                      input->storage->device_type, input->storage->device_index, &r)
                                      : nb_tensor_new(op, NULL, 0, input->dtype, input->storage->device_type,
                                                      input->storage->device_index, &r);
    if (st == NB_OK) {
        p.out = nb_tensor_data(r);
        st = run(op, &p, input);
    }
    nn_release(keep[0], keep[1], keep[2], keep[3], NULL, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *out = r;
    return NB_OK;
}

nb_status nn_cls_loss_backward_fused(const char* op, bool logits, const nb_tensor* go, const nb_tensor* input,
                                     const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index,
                                     int32_t reduction, double smoothing, nb_tensor** grad_input) {
    nb_bk_loss p;
    nb_tensor* keep[4] = {NULL, NULL, NULL, NULL};
    nb_tensor *g = NULL, *r = NULL;
    nb_status st = plan(op, logits, input, target, weight, ignore_index, reduction, smoothing, &p, keep);
    if (st == NB_OK) st = nn_contig(go, input->dtype, &g);
    if (st == NB_OK)
        st = nb_tensor_new(op, input->shape, input->ndim, input->dtype, input->storage->device_type,
                           input->storage->device_index, &r);
    if (st == NB_OK) {
        p.backward = 1;
        p.grad = nb_tensor_data(g);
        p.out = nb_tensor_data(r);
        st = run(op, &p, input);
    }
    nn_release(keep[0], keep[1], keep[2], keep[3], g, NULL, NULL, NULL);
    if (st != NB_OK) {
        nb_tensor_release(r);
        return st;
    }
    *grad_input = r;
    return NB_OK;
}
