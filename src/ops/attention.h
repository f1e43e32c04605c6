/* attention.h: scaled_dot_product_attention's forward with its intermediates,
 * for the gradient formula. */
#ifndef NABLA_OPS_ATTENTION_H_
#define NABLA_OPS_ATTENTION_H_

#include "../core/internal.h"

/* The op; with weights_out non-NULL also the attention weights after the
 * softmax, before dropout [..., L, S], and with keep_out the dropout's scale
 * mask (0 or 1 / (1 - p); NULL without dropout): result = (weights * keep) @ v. */
NB_INTERNAL nb_status nb_sdpa_forward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                      const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale,
                                      nb_generator* gen, nb_tensor** out, nb_tensor** weights_out,
                                      nb_tensor** keep_out);

#endif /* NABLA_OPS_ATTENTION_H_ */
