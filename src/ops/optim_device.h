/* optim_device.h: lists of tensors on a device as one multi-tensor plan (nb_bk_optim) for
 * the device's optim slot: the optimizer steps, clip_grad_norm_'s norm and scaling,
 * clip_grad_value_ and the GradScaler's unscale (optim_device.c). */
#ifndef NABLA_OPS_OPTIM_DEVICE_H_
#define NABLA_OPS_OPTIM_DEVICE_H_

#include "../core/backend.h"
#include "../core/internal.h"

/* Runs plan p (op, hyperparameters and, for NORM / SCALE, the workspace set) over count
 * validated tensors on one device: operand k of tensor i is v[k][i] (v[k] NULL: absent),
 * n operands. Non-contiguous operands go through a contiguous copy, written back for the
 * operands marked written; written operands get their versions bumped. Nothing is read
 * back to the host. */
NB_INTERNAL nb_status nn_mt_run(const char* op, nb_bk_optim* p, nb_tensor* const* const* v, int n,
                                const bool* written, int64_t count);

#endif  /* NABLA_OPS_OPTIM_DEVICE_H_ */
