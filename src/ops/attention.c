/* attention.c: scaled_dot_product_attention, composed from ABI ops (matmul,
 * softmax, masked_fill, add, dropout), so it runs wherever they run; on CUDA the
 * cases the fused kernel covers take it instead (attention_fused.c).
 *   q [..., L, E], k [..., S, E], v [..., S, Ev] -> [..., L, Ev]
 *   softmax(q k^T * scale + mask) v, with dropout on the attention weights. */
#include "attention.h"

#include <math.h>

#define TRY(call) do { if ((st = (call)) != NB_OK) goto done; } while (0)

/* scores[..., i, j] = -inf where keep[..., i, j] is false (keep broadcasts). */
static nb_status mask_out(nb_tensor* scores, const nb_tensor* keep) {
    nb_tensor *drop = NULL, *neg_inf = NULL;
    nb_status st;
    TRY(nb_logical_not(keep, NULL, &drop));
    TRY(nb_scalar(-INFINITY, 0, NB_F64, &neg_inf));
    TRY(nb_masked_fill(scores, drop, neg_inf, scores, NULL));
done:
    nb_tensor_release(neg_inf);
    nb_tensor_release(drop);
    return st;
}

static nb_status causal_mask(nb_tensor* scores, int64_t L, int64_t S) {
    const int64_t shape[2] = {L, S};
    nb_tensor *ones = NULL, *keep = NULL, *on_device = NULL;
    nb_status st;
    TRY(nb_ones(shape, 2, NB_BOOL, NB_CPU, 0, &ones));
    TRY(nb_tril(ones, 0, NULL, &keep));  /* query i sees keys 0..i; built on the host, then moved */
    TRY(nb_tensor_to(keep, NB_BOOL, scores->storage->device_type, scores->storage->device_index, 0, &on_device));
    TRY(mask_out(scores, on_device));
done:
    nb_tensor_release(on_device);
    nb_tensor_release(keep);
    nb_tensor_release(ones);
    return st;
}

nb_status nb_sdpa_check(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask,
                        double dropout_p, int32_t is_causal) {
    static const char* op = "scaled_dot_product_attention";
    NB_CHECK_TENSOR(op, q);
    NB_CHECK_TENSOR(op, k);
    NB_CHECK_TENSOR(op, v);
    if (attn_mask != NULL && !nb_tensor_ok(attn_mask)) return nb_bad_handle(op, "attn_mask", attn_mask);
    if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2)
        return nb_error(NB_ERR_SHAPE, "%s: expected query, key and value with at least 2 dims [..., L, E], got %s, %s "
                        "and %s", op, nb_shape_str(q->shape, q->ndim), nb_shape_str(k->shape, k->ndim),
                        nb_shape_str(v->shape, v->ndim));
    const int64_t E = q->shape[q->ndim - 1], S = k->shape[k->ndim - 2];
    if (k->shape[k->ndim - 1] != E || v->shape[v->ndim - 2] != S)
        return nb_error(NB_ERR_SHAPE, "%s: query %s, key %s and value %s do not fit [..., L, E], [..., S, E], "
                        "[..., S, Ev]", op, nb_shape_str(q->shape, q->ndim), nb_shape_str(k->shape, k->ndim),
                        nb_shape_str(v->shape, v->ndim));
    if (q->dtype != k->dtype || q->dtype != v->dtype || !nb_dtype_is_floating(q->dtype))
        return nb_error(NB_ERR_DTYPE, "%s: expected query, key and value of one floating dtype, got %s, %s and %s", op,
                        nb_dtype_str(q->dtype), nb_dtype_str(k->dtype), nb_dtype_str(v->dtype));
    if (is_causal && attn_mask != NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: an explicit attn_mask should not be set when is_causal is true", op);
    if (!(dropout_p >= 0 && dropout_p <= 1))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: dropout_p must be in [0, 1], got %g", op, dropout_p);
    return NB_OK;
}

double nb_sdpa_scale(const nb_tensor* q, double scale) {
    const int64_t E = q->shape[q->ndim - 1];
    return isnan(scale) ? 1.0 / sqrt((double)(E > 0 ? E : 1)) : scale;
}

nb_status nb_sdpa_forward(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask,
                          double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out,
                          nb_tensor** weights_out, nb_tensor** keep_out) {
    NB_CHECK_OUT("scaled_dot_product_attention", out);
    nb_status st = nb_sdpa_check(q, k, v, attn_mask, dropout_p, is_causal);
    if (st != NB_OK) return st;
    const int64_t L = q->shape[q->ndim - 2], S = k->shape[k->ndim - 2];
    nb_tensor *kt = NULL, *scores = NULL, *factor = NULL, *weights = NULL, *ones = NULL, *keep = NULL,
              *dropped = NULL;
    TRY(nb_tensor_transpose(k, -2, -1, &kt));
    TRY(nb_matmul(q, kt, NULL, &scores));  /* [..., L, S] */
    TRY(nb_scalar(nb_sdpa_scale(q, scale), 0, NB_F64, &factor));
    TRY(nb_mul(scores, factor, scores, NULL));
    if (is_causal) TRY(causal_mask(scores, L, S));
    if (attn_mask != NULL) {
        if (attn_mask->dtype == NB_BOOL) TRY(mask_out(scores, attn_mask));  /* true: take part */
        else TRY(nb_add(scores, attn_mask, 1.0, scores, NULL));            /* float: added */
    }
    TRY(nb_softmax(scores, -1, -1, NULL, &weights));
    if (dropout_p > 0 && keep_out != NULL) {  /* the scale mask itself, from the same draws dropout makes */
        TRY(nb_ones(weights->shape, weights->ndim, weights->dtype, weights->storage->device_type,
                    weights->storage->device_index, &ones));
        TRY(nb_dropout(ones, dropout_p, 1, gen, NULL, &keep));
        TRY(nb_mul(weights, keep, NULL, &dropped));
    } else if (dropout_p > 0) {
        TRY(nb_dropout(weights, dropout_p, 1, gen, NULL, &dropped));
    }
    TRY(nb_matmul(dropped != NULL ? dropped : weights, v, NULL, out));
    if (weights_out != NULL) {
        *weights_out = weights;
        weights = NULL;
    }
    if (keep_out != NULL) {
        *keep_out = keep;
        keep = NULL;
    }
done:
    nb_tensor_release(dropped);
    nb_tensor_release(keep);
    nb_tensor_release(ones);
    nb_tensor_release(weights);
    nb_tensor_release(factor);
    nb_tensor_release(scores);
    nb_tensor_release(kt);
    return st;
}

nb_status nbi_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v,
                                           const nb_tensor* attn_mask, double dropout_p, int32_t is_causal,
                                           double scale, nb_generator* gen, nb_tensor** out) {
    NB_CHECK_OUT("scaled_dot_product_attention", out);
    nb_status st = nb_sdpa_check(q, k, v, attn_mask, dropout_p, is_causal);
    if (st != NB_OK) return st;
    if (nb_sdpa_fused_covers(q, k, v, attn_mask, dropout_p)) {
        nb_tensor* lse = NULL;
        st = nb_sdpa_fused_forward(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out, &lse, NULL);
        nb_tensor_release(lse);
        return st;
    }
    return nb_sdpa_forward(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out, NULL, NULL);
}
