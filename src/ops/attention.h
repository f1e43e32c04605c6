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

/* The op's argument checks (every path; the messages of the composed one). */
NB_INTERNAL nb_status nb_sdpa_check(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                    const nb_tensor* attn_mask, double dropout_p, int32_t is_causal);
/* scale, or 1 / sqrt(E) for NaN. */
NB_INTERNAL double nb_sdpa_scale(const nb_tensor* q, double scale);

/* ---- the fused kernel (attention_fused.c) ---- */

/* Whether the device's fused kernel takes these (checked) arguments: CUDA, a float
 * dtype, head dims up to NB_BK_ATTENTION_MAX_HEAD_DIM, no empty dim, at most
 * NB_BK_ATTENTION_MAX_BATCH batch dims, a bool mask or one of q's dtype that
 * broadcasts to [..., L, S] and, with dropout, weights of the batch shape of the
 * result. NABLA_SDPA_FUSED=0 turns it off (the composed path then runs). */
NB_INTERNAL bool nb_sdpa_fused_covers(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                      const nb_tensor* attn_mask, double dropout_p);
/* The fused forward: *out [..., L, Ev] and *lse [..., L] (float; double for float64);
 * rng (may be NULL) receives the dropout's Philox seed and first block. */
NB_INTERNAL nb_status nb_sdpa_fused_forward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                            const nb_tensor* attn_mask, double dropout_p, int32_t is_causal,
                                            double scale, nb_generator* gen, nb_tensor** out, nb_tensor** lse,
                                            uint64_t rng[2]);
/* The fused backward: gradients of q, k and v in the broadcast batch shape, from
 * the forward's out and lse; scale resolved, rng as the forward returned it. */
NB_INTERNAL nb_status nb_sdpa_fused_backward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                             const nb_tensor* attn_mask, const nb_tensor* out, const nb_tensor* lse,
                                             const nb_tensor* grad_out, int32_t is_causal, double scale,
                                             double dropout_p, const uint64_t rng[2], nb_tensor** dq,
                                             nb_tensor** dk, nb_tensor** dv);

#endif /* NABLA_OPS_ATTENTION_H_ */
