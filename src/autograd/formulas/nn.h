/* nn.h: what the formulas of the neural-network ops (nn_*.c) share. */
#ifndef NABLA_AUTOGRAD_FORMULAS_NN_H_
#define NABLA_AUTOGRAD_FORMULAS_NN_H_

#include "../autograd.h"

/* Under create_graph, gives the n results of a gradient computed by a backward kernel
 * (not itself differentiable) a node that refuses to be differentiated, as PyTorch's
 * once_differentiable: a second backward through them fails instead of silently
 * missing terms. deps: the tensors the results depend on. */
NB_INTERNAL void bw_once(nb_bw* b, const nb_tensor* const* deps, int32_t ndeps, nb_tensor* const* results,
                         int32_t n);

/* Whether ops run by this backward formula are being recorded (create_graph) for any of ts. */
static inline bool bw_recording(const nb_tensor* const* ts, int32_t n) {
    return !nb_ag_disabled && nb_ag_requires_any(ts, n);
}

/* t with a dim of size 1 inserted at dim. */
NB_INTERNAL nb_tensor* bw_unsqueeze(nb_bw* b, const nb_tensor* t, int64_t dim);
/* Sum over every dim except `keep` (of a tensor with ndim dims), to shape [size of keep]. */
NB_INTERNAL nb_tensor* bw_sum_except(nb_bw* b, const nb_tensor* t, int32_t ndim, int32_t keep);

#endif /* NABLA_AUTOGRAD_FORMULAS_NN_H_ */
