/* optim_composed.h: the optimizer steps and clip_grad_norm_ composed from in-place
 * elementwise ops and reductions, for devices without optimizer kernels
 * (optim_composed.c). optim.c validates; the formulas are the host kernels'. */
#ifndef NABLA_OPS_OPTIM_COMPOSED_H_
#define NABLA_OPS_OPTIM_COMPOSED_H_

#include "nn_common.h"

/* v[0] = param, v[1] = grad, v[2..] = state (NULL when absent), all validated, on one
 * device; each is updated in place (through a kd copy written back when its dtype
 * differs), with grad mode off for the duration. */
NB_INTERNAL nb_status nn_sgd_composed(nb_tensor* const* v, int32_t kd, double lr, double momentum, double dampening,
                                      double weight_decay, bool nesterov, bool maximize, bool init_buffer);
NB_INTERNAL nb_status nn_adam_composed(nb_tensor* const* v, int32_t kd, double lr, double beta1, double beta2,
                                       double eps, double weight_decay, double step_size, double bc2_sqrt,
                                       bool decoupled, bool amsgrad, bool maximize);
NB_INTERNAL nb_status nn_rmsprop_composed(nb_tensor* const* v, int32_t kd, double lr, double alpha, double eps,
                                          double weight_decay, double momentum, bool centered, bool maximize);
NB_INTERNAL nb_status nn_adagrad_composed(nb_tensor* const* v, int32_t kd, double clr, double eps,
                                          double weight_decay, bool maximize);
/* The part of clip_grad_norm_'s total norm that g contributes (sum |g|^p, max |g| for
 * p = inf, the count of non-zeros for p = 0), read back as a double. */
NB_INTERNAL nb_status nn_norm_part_composed(const nb_tensor* g, double p, double* out);

#endif  /* NABLA_OPS_OPTIM_COMPOSED_H_ */
