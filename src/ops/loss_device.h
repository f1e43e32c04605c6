/* loss_device.h: nll_loss and cross_entropy (class indices or probabilities) through a device's
 * loss slot (loss_device.c), for loss.c and the autograd formulas (nn_xent.c). */
#ifndef NABLA_OPS_LOSS_DEVICE_H_
#define NABLA_OPS_LOSS_DEVICE_H_

#include "nn_common.h"

/* Whether input's device has a loss slot and the operands suit it: class-index
 * targets or (validated by loss.c) probability targets of the input's shape, a
 * non-empty input, weight (if any) in input's dtype; NABLA_LOSS_FUSED not "0". */
NB_INTERNAL bool nn_cls_fusable(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight);

/* The loss (validated by loss.c): [N, d1, ...] for reduction none, else a 0-dim
 * tensor, in input's dtype; logits: cross_entropy (else nll_loss). */
NB_INTERNAL nb_status nn_cls_loss_fused(const char* op, bool logits, const nb_tensor* input, const nb_tensor* target,
                                        const nb_tensor* weight, int64_t ignore_index, int32_t reduction,
                                        double smoothing, nb_tensor** out);

/* d loss / d input for grad_output go (the loss's shape), in input's dtype. */
NB_INTERNAL nb_status nn_cls_loss_backward_fused(const char* op, bool logits, const nb_tensor* go,
                                                 const nb_tensor* input, const nb_tensor* target,
                                                 const nb_tensor* weight, int64_t ignore_index, int32_t reduction,
                                                 double smoothing, nb_tensor** grad_input);

#endif  /* NABLA_OPS_LOSS_DEVICE_H_ */
