/* embedding_fused.h: embedding's weight gradient through a device's embedding
 * kernel (nb_bk_embedding; on CUDA src/cuda/embedding.cu), chosen by
 * embedding_backward.c over its composition whenever it takes the operands. */
#ifndef NABLA_OPS_EMBEDDING_FUSED_H_
#define NABLA_OPS_EMBEDDING_FUSED_H_

#include "nn_common.h"

/* Whether grad_output's device has embedding and sort kernels, grad_output is
 * float32/64, float16 or bfloat16, and NABLA_EMBEDDING_FUSED is not "0". */
NB_INTERNAL bool nn_embedding_fused_takes(const nb_tensor* grad_output);

/* grad_weight [V, D] in grad_output's dtype (validated by embedding_backward.c:
 * grad_output [*indices.shape, D], indices int64 or int32 on the same device):
 * a stable sort of the indices, then one kernel. */
NB_INTERNAL nb_status nn_embedding_backward_fused(const char* op, const nb_tensor* grad_output,
                                                  const nb_tensor* indices, int64_t V, int64_t padding_idx,
                                                  bool scale_grad_by_freq, nb_tensor** out);

#endif /* NABLA_OPS_EMBEDDING_FUSED_H_ */
