/* loss_composed.h: the pointwise losses composed from elementwise and reduction ops,
 * for devices without loss kernels (loss_composed.c). */
#ifndef NABLA_OPS_LOSS_COMPOSED_H_
#define NABLA_OPS_LOSS_COMPOSED_H_

#include "nn_common.h"

enum { NN_PW_MSE, NN_PW_L1, NN_PW_SMOOTH_L1, NN_PW_HUBER, NN_PW_BCE, NN_PW_BCE_LOGITS, NN_PW_KL, NN_PW_KL_LOG };

/* The loss of ops[0..3] (input, target, weight, pos_weight; the last two optional),
 * validated and broadcast-compatible, all on one device: computed there in dtype kd
 * with the reduction applied. p: smooth_l1's beta or huber's delta. */
NB_INTERNAL nb_status nn_pointwise_loss_composed(const char* op, int kind, const nb_tensor* const* ops,
                                                 int32_t reduction, double p, int32_t kd, nb_tensor** out);

/* nll_loss (logits false: input holds log-probabilities) and cross_entropy (class
 * indices or probabilities), validated by loss.c, on the inputs' device: the loss in
 * dtype kd, with PyTorch's weighting, ignore_index, label smoothing and reductions.
 * A class index out of range fails with NB_ERR_INDEX naming it (one read back). */
NB_INTERNAL nb_status nn_classification_loss_composed(const char* op, bool logits, const nb_tensor* input,
                                                      const nb_tensor* target, const nb_tensor* weight,
                                                      int64_t ignore_index, int32_t reduction, double smoothing,
                                                      int32_t kd, nb_tensor** out);

#endif  /* NABLA_OPS_LOSS_COMPOSED_H_ */
