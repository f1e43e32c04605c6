/* norm_device.h: layer_norm, batch_norm and group_norm through a device's norm
 * slot (norm_device.c), for norm.c and norm_backward.c after their checks. */
#ifndef NABLA_OPS_NORM_DEVICE_H_
#define NABLA_OPS_NORM_DEVICE_H_

#include "nn_common.h"

/* Where the statistics are taken: kind NB_NK_* with its group count (GROUP) and, for
 * LAYER, the number of trailing dims normalised. */
typedef struct {
    int32_t kind;
    int32_t ndim;     /* LAYER: normalized dims */
    int64_t groups;   /* GROUP */
} nn_norm_kind;

/* Whether x's device has a norm slot and these operands suit it (non-empty x; the
 * parameters and running statistics in x's dtype / one float dtype, the latter
 * contiguous); otherwise the caller composes. */
NB_INTERNAL bool nn_norm_fusable(const nb_tensor* x, const nb_tensor* weight, const nb_tensor* bias,
                                 const nb_tensor* running_mean, const nb_tensor* running_var);

/* The forward: *y (a new tensor of x's shape and dtype). BATCH: training takes batch
 * statistics and updates the running ones given (in place, version bumped); else
 * reads them. */
NB_INTERNAL nb_status nn_norm_fused(const char* op, const nn_norm_kind* k, const nb_tensor* x,
                                    const nb_tensor* weight, const nb_tensor* bias, nb_tensor* running_mean,
                                    nb_tensor* running_var, bool training, double momentum, double eps,
                                    nb_tensor** y);

/* The backward (batch statistics recomputed): dx (x's shape), dw and db (contiguous, the
 * parameter's C or normalized elements, flat) in x's dtype; NULL pointers: not wanted. */
NB_INTERNAL nb_status nn_norm_backward_fused(const char* op, const nn_norm_kind* k, const nb_tensor* go,
                                             const nb_tensor* x, const nb_tensor* weight, double eps,
                                             nb_tensor** dx, nb_tensor** dw, nb_tensor** db);

#endif  /* NABLA_OPS_NORM_DEVICE_H_ */
