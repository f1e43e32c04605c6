/* dispatch.c: the public entry points of the ops (see abi/gen.py). Generated; do not edit.
 * Each public symbol records a profiler event when a session runs (one relaxed load
 * otherwise) around nbd_<op>: the read-only checks, then autograd or the implementation. */
#include "autograd.h"
#include "../core/autocast.h"
#include "../core/profiler.h"

static inline nb_status nbd_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_view(t, shape, ndim, out);
    return nbi_tensor_view(t, shape, ndim, out);
}

NB_API nb_status nb_tensor_view(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_view", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_view(t, shape, ndim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_view(t, shape, ndim, out);
}

static inline nb_status nbd_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_reshape(t, shape, ndim, out);
    return nbi_tensor_reshape(t, shape, ndim, out);
}

NB_API nb_status nb_tensor_reshape(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_reshape", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_reshape(t, shape, ndim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_reshape(t, shape, ndim, out);
}

static inline nb_status nbd_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_permute(t, dims, ndim, out);
    return nbi_tensor_permute(t, dims, ndim, out);
}

NB_API nb_status nb_tensor_permute(const nb_tensor* t, const int64_t* dims, int32_t ndim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_permute", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_permute(t, dims, ndim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_permute(t, dims, ndim, out);
}

static inline nb_status nbd_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_transpose(t, dim0, dim1, out);
    return nbi_tensor_transpose(t, dim0, dim1, out);
}

NB_API nb_status nb_tensor_transpose(const nb_tensor* t, int64_t dim0, int64_t dim1, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_transpose", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_transpose(t, dim0, dim1, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_transpose(t, dim0, dim1, out);
}

static inline nb_status nbd_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_narrow(t, dim, start, length, out);
    return nbi_tensor_narrow(t, dim, start, length, out);
}

NB_API nb_status nb_tensor_narrow(const nb_tensor* t, int64_t dim, int64_t start, int64_t length, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_narrow", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_narrow(t, dim, start, length, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_narrow(t, dim, start, length, out);
}

static inline nb_status nbd_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_slice(t, dim, start, end, step, out);
    return nbi_tensor_slice(t, dim, start, end, step, out);
}

NB_API nb_status nb_tensor_slice(const nb_tensor* t, int64_t dim, int64_t start, int64_t end, int64_t step, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_slice", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_slice(t, dim, start, end, step, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_slice(t, dim, start, end, step, out);
}

static inline nb_status nbd_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_select(t, dim, index, out);
    return nbi_tensor_select(t, dim, index, out);
}

NB_API nb_status nb_tensor_select(const nb_tensor* t, int64_t dim, int64_t index, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_select", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_select(t, dim, index, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_select(t, dim, index, out);
}

static inline nb_status nbd_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_expand(t, shape, ndim, out);
    return nbi_tensor_expand(t, shape, ndim, out);
}

NB_API nb_status nb_tensor_expand(const nb_tensor* t, const int64_t* shape, int32_t ndim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_expand", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_expand(t, shape, ndim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_expand(t, shape, ndim, out);
}

static inline nb_status nbd_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_squeeze(t, dims, ndims, out);
    return nbi_tensor_squeeze(t, dims, ndims, out);
}

NB_API nb_status nb_tensor_squeeze(const nb_tensor* t, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_squeeze", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_squeeze(t, dims, ndims, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_squeeze(t, dims, ndims, out);
}

static inline nb_status nbd_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_unsqueeze(t, dim, out);
    return nbi_tensor_unsqueeze(t, dim, out);
}

NB_API nb_status nb_tensor_unsqueeze(const nb_tensor* t, int64_t dim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_unsqueeze", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_unsqueeze(t, dim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_unsqueeze(t, dim, out);
}

static inline nb_status nbd_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_flatten(t, start_dim, end_dim, out);
    return nbi_tensor_flatten(t, start_dim, end_dim, out);
}

NB_API nb_status nb_tensor_flatten(const nb_tensor* t, int64_t start_dim, int64_t end_dim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_flatten", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_flatten(t, start_dim, end_dim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_flatten(t, start_dim, end_dim, out);
}

static inline nb_status nbd_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_as_strided(t, shape, strides, ndim, storage_offset, out);
    return nbi_tensor_as_strided(t, shape, strides, ndim, storage_offset, out);
}

NB_API nb_status nb_tensor_as_strided(const nb_tensor* t, const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t storage_offset, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_as_strided", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_as_strided(t, shape, strides, ndim, storage_offset, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_as_strided(t, shape, strides, ndim, storage_offset, out);
}

static inline nb_status nbd_tensor_contiguous(const nb_tensor* t, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_contiguous(t, out);
    return nbi_tensor_contiguous(t, out);
}

NB_API nb_status nb_tensor_contiguous(const nb_tensor* t, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_contiguous", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_contiguous(t, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_contiguous(t, out);
}

static inline nb_status nbd_tensor_clone(const nb_tensor* t, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_clone(t, out);
    return nbi_tensor_clone(t, out);
}

NB_API nb_status nb_tensor_clone(const nb_tensor* t, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_clone", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_clone(t, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_clone(t, out);
}

static inline nb_status nbd_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_to(t, dtype, device_type, device_index, copy, out);
    return nbi_tensor_to(t, dtype, device_type, device_index, copy, out);
}

NB_API nb_status nb_tensor_to(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_to", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_to(t, dtype, device_type, device_index, copy, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_to(t, dtype, device_type, device_index, copy, out);
}

static inline nb_status nbd_tensor_copy_(nb_tensor* dst, const nb_tensor* src) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("tensor_copy_", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst) || nb_ag_requires(src))))
        return nb_agf_tensor_copy_(dst, src);
    return nbi_tensor_copy_(dst, src);
}

NB_API nb_status nb_tensor_copy_(nb_tensor* dst, const nb_tensor* src) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_copy_", (const nb_tensor* const[]){src}, 1);
        nb_status st = nbd_tensor_copy_(dst, src);
        nb_prof_op_end(prof, st, dst);
        return st;
    }
    return nbd_tensor_copy_(dst, src);
}

static inline nb_status nbd_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_agf_tensor_to_v2(t, dtype, device_type, device_index, copy, non_blocking, out);
    return nbi_tensor_to_v2(t, dtype, device_type, device_index, copy, non_blocking, out);
}

NB_API nb_status nb_tensor_to_v2(const nb_tensor* t, int32_t dtype, int32_t device_type, int32_t device_index, int32_t copy, int32_t non_blocking, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_to_v2", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_tensor_to_v2(t, dtype, device_type, device_index, copy, non_blocking, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_tensor_to_v2(t, dtype, device_type, device_index, copy, non_blocking, out);
}

static inline nb_status nbd_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("tensor_copy_v2_", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst) || nb_ag_requires(src))))
        return nb_agf_tensor_copy_v2_(dst, src, non_blocking);
    return nbi_tensor_copy_v2_(dst, src, non_blocking);
}

NB_API nb_status nb_tensor_copy_v2_(nb_tensor* dst, const nb_tensor* src, int32_t non_blocking) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tensor_copy_v2_", (const nb_tensor* const[]){src}, 1);
        nb_status st = nbd_tensor_copy_v2_(dst, src, non_blocking);
        nb_prof_op_end(prof, st, dst);
        return st;
    }
    return nbd_tensor_copy_v2_(dst, src, non_blocking);
}

static inline nb_status nbd_amp_foreach_non_finite_check_and_unscale_(nb_tensor* const* grads, int32_t n, nb_tensor* found_inf, const nb_tensor* inv_scale) {
    if (NB_UNLIKELY(nb_ag_readonly(found_inf))) return nb_readonly_error("amp_foreach_non_finite_check_and_unscale_", "found_inf");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(found_inf))))
        return nb_ag_nondifferentiable_write("amp_foreach_non_finite_check_and_unscale_");
    return nbi_amp_foreach_non_finite_check_and_unscale_(grads, n, found_inf, inv_scale);
}

NB_API nb_status nb_amp_foreach_non_finite_check_and_unscale_(nb_tensor* const* grads, int32_t n, nb_tensor* found_inf, const nb_tensor* inv_scale) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("amp_foreach_non_finite_check_and_unscale_", (const nb_tensor* const[]){inv_scale}, 1);
        nb_status st = nbd_amp_foreach_non_finite_check_and_unscale_(grads, n, found_inf, inv_scale);
        nb_prof_op_end(prof, st, found_inf);
        return st;
    }
    return nbd_amp_foreach_non_finite_check_and_unscale_(grads, n, found_inf, inv_scale);
}

static inline nb_status nbd_amp_update_scale_(nb_tensor* scale, nb_tensor* growth_tracker, const nb_tensor* found_inf, double growth_factor, double backoff_factor, int64_t growth_interval) {
    if (NB_UNLIKELY(nb_ag_readonly(scale))) return nb_readonly_error("amp_update_scale_", "scale");
    if (NB_UNLIKELY(nb_ag_readonly(growth_tracker))) return nb_readonly_error("amp_update_scale_", "growth_tracker");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(scale) || nb_ag_requires(growth_tracker))))
        return nb_ag_nondifferentiable_write("amp_update_scale_");
    return nbi_amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
}

NB_API nb_status nb_amp_update_scale_(nb_tensor* scale, nb_tensor* growth_tracker, const nb_tensor* found_inf, double growth_factor, double backoff_factor, int64_t growth_interval) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("amp_update_scale_", (const nb_tensor* const[]){found_inf}, 1);
        nb_status st = nbd_amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval);
}

static inline nb_status nbd_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(q) || nb_ag_requires(k) || nb_ag_requires(v) || nb_ag_requires(attn_mask))))
        return nb_agf_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
    return nbi_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
}

static nb_status nba_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "scaled_dot_product_attention", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){q, k, v, attn_mask}, 4, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
    st = nbd_scaled_dot_product_attention(ac.t[0], ac.t[1], ac.t[2], ac.t[3], dropout_p, is_causal, scale, gen, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
    return nbd_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
}

NB_API nb_status nb_scaled_dot_product_attention(const nb_tensor* q, const nb_tensor* k, const nb_tensor* v, const nb_tensor* attn_mask, double dropout_p, int32_t is_causal, double scale, nb_generator* gen, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("scaled_dot_product_attention", (const nb_tensor* const[]){q, k, v, attn_mask}, 4);
        nb_status st = nbc_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbc_scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, gen, out);
}

static inline nb_status nbd_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("add", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_add(a, b, alpha, dst, out);
    return nbi_add(a, b, alpha, dst, out);
}

NB_API nb_status nb_add(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("add", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_add(a, b, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_add(a, b, alpha, dst, out);
}

static inline nb_status nbd_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sub", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_sub(a, b, alpha, dst, out);
    return nbi_sub(a, b, alpha, dst, out);
}

NB_API nb_status nb_sub(const nb_tensor* a, const nb_tensor* b, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sub", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_sub(a, b, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_sub(a, b, alpha, dst, out);
}

static inline nb_status nbd_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("mul", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_mul(a, b, dst, out);
    return nbi_mul(a, b, dst, out);
}

NB_API nb_status nb_mul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("mul", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_mul(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_mul(a, b, dst, out);
}

static inline nb_status nbd_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("div", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_div(a, b, rounding_mode, dst, out);
    return nbi_div(a, b, rounding_mode, dst, out);
}

NB_API nb_status nb_div(const nb_tensor* a, const nb_tensor* b, int32_t rounding_mode, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("div", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_div(a, b, rounding_mode, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_div(a, b, rounding_mode, dst, out);
}

static inline nb_status nbd_floor_divide(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("floor_divide", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("floor_divide");
    return nbi_floor_divide(a, b, dst, out);
}

NB_API nb_status nb_floor_divide(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("floor_divide", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_floor_divide(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_floor_divide(a, b, dst, out);
}

static inline nb_status nbd_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("remainder", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_remainder(a, b, dst, out);
    return nbi_remainder(a, b, dst, out);
}

NB_API nb_status nb_remainder(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("remainder", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_remainder(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_remainder(a, b, dst, out);
}

static inline nb_status nbd_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("fmod", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_fmod(a, b, dst, out);
    return nbi_fmod(a, b, dst, out);
}

NB_API nb_status nb_fmod(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("fmod", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_fmod(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_fmod(a, b, dst, out);
}

static inline nb_status nbd_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("pow", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_pow(a, b, dst, out);
    return nbi_pow(a, b, dst, out);
}

static nb_status nba_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "pow", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_pow(a, b, dst, out);
    st = nbd_pow(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_pow(a, b, dst, out);
    return nbd_pow(a, b, dst, out);
}

NB_API nb_status nb_pow(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("pow", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_pow(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_pow(a, b, dst, out);
}

static inline nb_status nbd_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("maximum", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_maximum(a, b, dst, out);
    return nbi_maximum(a, b, dst, out);
}

NB_API nb_status nb_maximum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("maximum", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_maximum(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_maximum(a, b, dst, out);
}

static inline nb_status nbd_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("minimum", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_minimum(a, b, dst, out);
    return nbi_minimum(a, b, dst, out);
}

NB_API nb_status nb_minimum(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("minimum", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_minimum(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_minimum(a, b, dst, out);
}

static inline nb_status nbd_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("atan2", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_atan2(a, b, dst, out);
    return nbi_atan2(a, b, dst, out);
}

static nb_status nba_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "atan2", NB_AC_NONE, NB_AC_PROMOTE, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_atan2(a, b, dst, out);
    st = nbd_atan2(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_atan2(a, b, dst, out);
    return nbd_atan2(a, b, dst, out);
}

NB_API nb_status nb_atan2(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("atan2", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_atan2(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_atan2(a, b, dst, out);
}

static inline nb_status nbd_igamma(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("igamma", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_igamma(a, b, dst, out);
    return nbi_igamma(a, b, dst, out);
}

NB_API nb_status nb_igamma(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("igamma", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_igamma(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_igamma(a, b, dst, out);
}

static inline nb_status nbd_igammac(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("igammac", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_igammac(a, b, dst, out);
    return nbi_igammac(a, b, dst, out);
}

NB_API nb_status nb_igammac(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("igammac", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_igammac(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_igammac(a, b, dst, out);
}

static inline nb_status nbd_nextafter(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("nextafter", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("nextafter");
    return nbi_nextafter(a, b, dst, out);
}

NB_API nb_status nb_nextafter(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("nextafter", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_nextafter(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_nextafter(a, b, dst, out);
}

static inline nb_status nbd_eq(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("eq", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("eq");
    return nbi_eq(a, b, dst, out);
}

NB_API nb_status nb_eq(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("eq", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_eq(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_eq(a, b, dst, out);
}

static inline nb_status nbd_ne(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("ne", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("ne");
    return nbi_ne(a, b, dst, out);
}

NB_API nb_status nb_ne(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("ne", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_ne(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_ne(a, b, dst, out);
}

static inline nb_status nbd_lt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("lt", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("lt");
    return nbi_lt(a, b, dst, out);
}

NB_API nb_status nb_lt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("lt", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_lt(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_lt(a, b, dst, out);
}

static inline nb_status nbd_le(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("le", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("le");
    return nbi_le(a, b, dst, out);
}

NB_API nb_status nb_le(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("le", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_le(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_le(a, b, dst, out);
}

static inline nb_status nbd_gt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("gt", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("gt");
    return nbi_gt(a, b, dst, out);
}

NB_API nb_status nb_gt(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("gt", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_gt(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_gt(a, b, dst, out);
}

static inline nb_status nbd_ge(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("ge", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("ge");
    return nbi_ge(a, b, dst, out);
}

NB_API nb_status nb_ge(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("ge", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_ge(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_ge(a, b, dst, out);
}

static inline nb_status nbd_logical_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("logical_and", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("logical_and");
    return nbi_logical_and(a, b, dst, out);
}

NB_API nb_status nb_logical_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("logical_and", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_logical_and(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_logical_and(a, b, dst, out);
}

static inline nb_status nbd_logical_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("logical_or", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("logical_or");
    return nbi_logical_or(a, b, dst, out);
}

NB_API nb_status nb_logical_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("logical_or", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_logical_or(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_logical_or(a, b, dst, out);
}

static inline nb_status nbd_logical_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("logical_xor", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("logical_xor");
    return nbi_logical_xor(a, b, dst, out);
}

NB_API nb_status nb_logical_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("logical_xor", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_logical_xor(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_logical_xor(a, b, dst, out);
}

static inline nb_status nbd_bitwise_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_and", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_and");
    return nbi_bitwise_and(a, b, dst, out);
}

NB_API nb_status nb_bitwise_and(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_and", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_bitwise_and(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_and(a, b, dst, out);
}

static inline nb_status nbd_bitwise_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_or", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_or");
    return nbi_bitwise_or(a, b, dst, out);
}

NB_API nb_status nb_bitwise_or(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_or", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_bitwise_or(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_or(a, b, dst, out);
}

static inline nb_status nbd_bitwise_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_xor", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_xor");
    return nbi_bitwise_xor(a, b, dst, out);
}

NB_API nb_status nb_bitwise_xor(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_xor", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_bitwise_xor(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_xor(a, b, dst, out);
}

static inline nb_status nbd_bitwise_left_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_left_shift", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_left_shift");
    return nbi_bitwise_left_shift(a, b, dst, out);
}

NB_API nb_status nb_bitwise_left_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_left_shift", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_bitwise_left_shift(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_left_shift(a, b, dst, out);
}

static inline nb_status nbd_bitwise_right_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_right_shift", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_right_shift");
    return nbi_bitwise_right_shift(a, b, dst, out);
}

NB_API nb_status nb_bitwise_right_shift(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_right_shift", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_bitwise_right_shift(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_right_shift(a, b, dst, out);
}

static inline nb_status nbd_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index))))
        return nb_agf_gather(x, dim, index, out);
    return nbi_gather(x, dim, index, out);
}

NB_API nb_status nb_gather(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("gather", (const nb_tensor* const[]){x, index}, 2);
        nb_status st = nbd_gather(x, dim, index, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_gather(x, dim, index, out);
}

static inline nb_status nbd_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("scatter", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index) || nb_ag_requires(src) || nb_ag_requires(dst))))
        return nb_agf_scatter(x, dim, index, src, dst, out);
    return nbi_scatter(x, dim, index, src, dst, out);
}

NB_API nb_status nb_scatter(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("scatter", (const nb_tensor* const[]){x, index, src}, 3);
        nb_status st = nbd_scatter(x, dim, index, src, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_scatter(x, dim, index, src, dst, out);
}

static inline nb_status nbd_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("scatter_value", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index) || nb_ag_requires(value) || nb_ag_requires(dst))))
        return nb_agf_scatter_value(x, dim, index, value, dst, out);
    return nbi_scatter_value(x, dim, index, value, dst, out);
}

NB_API nb_status nb_scatter_value(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("scatter_value", (const nb_tensor* const[]){x, index, value}, 3);
        nb_status st = nbd_scatter_value(x, dim, index, value, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_scatter_value(x, dim, index, value, dst, out);
}

static inline nb_status nbd_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("scatter_add", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index) || nb_ag_requires(src) || nb_ag_requires(dst))))
        return nb_agf_scatter_add(x, dim, index, src, dst, out);
    return nbi_scatter_add(x, dim, index, src, dst, out);
}

static nb_status nba_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "scatter_add", NB_AC_NONE, NB_AC_PROMOTE, (const nb_tensor* const[]){x, index, src}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_scatter_add(x, dim, index, src, dst, out);
    st = nbd_scatter_add(ac.t[0], dim, ac.t[1], ac.t[2], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_scatter_add(x, dim, index, src, dst, out);
    return nbd_scatter_add(x, dim, index, src, dst, out);
}

NB_API nb_status nb_scatter_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("scatter_add", (const nb_tensor* const[]){x, index, src}, 3);
        nb_status st = nbc_scatter_add(x, dim, index, src, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_scatter_add(x, dim, index, src, dst, out);
}

static inline nb_status nbd_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("scatter_reduce", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index) || nb_ag_requires(src) || nb_ag_requires(dst))))
        return nb_agf_scatter_reduce(x, dim, index, src, reduce, include_self, dst, out);
    return nbi_scatter_reduce(x, dim, index, src, reduce, include_self, dst, out);
}

NB_API nb_status nb_scatter_reduce(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* src, int32_t reduce, int32_t include_self, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("scatter_reduce", (const nb_tensor* const[]){x, index, src}, 3);
        nb_status st = nbd_scatter_reduce(x, dim, index, src, reduce, include_self, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_scatter_reduce(x, dim, index, src, reduce, include_self, dst, out);
}

static inline nb_status nbd_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index))))
        return nb_agf_index_select(x, dim, index, out);
    return nbi_index_select(x, dim, index, out);
}

NB_API nb_status nb_index_select(const nb_tensor* x, int64_t dim, const nb_tensor* index, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("index_select", (const nb_tensor* const[]){x, index}, 2);
        nb_status st = nbd_index_select(x, dim, index, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_index_select(x, dim, index, out);
}

static inline nb_status nbd_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("index_add", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(index) || nb_ag_requires(source) || nb_ag_requires(dst))))
        return nb_agf_index_add(x, dim, index, source, alpha, dst, out);
    return nbi_index_add(x, dim, index, source, alpha, dst, out);
}

NB_API nb_status nb_index_add(const nb_tensor* x, int64_t dim, const nb_tensor* index, const nb_tensor* source, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("index_add", (const nb_tensor* const[]){x, index, source}, 3);
        nb_status st = nbd_index_add(x, dim, index, source, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_index_add(x, dim, index, source, alpha, dst, out);
}

static inline nb_status nbd_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("masked_fill", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(mask) || nb_ag_requires(value) || nb_ag_requires(dst))))
        return nb_agf_masked_fill(x, mask, value, dst, out);
    return nbi_masked_fill(x, mask, value, dst, out);
}

NB_API nb_status nb_masked_fill(const nb_tensor* x, const nb_tensor* mask, const nb_tensor* value, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("masked_fill", (const nb_tensor* const[]){x, mask, value}, 3);
        nb_status st = nbd_masked_fill(x, mask, value, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_masked_fill(x, mask, value, dst, out);
}

static inline nb_status nbd_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(mask))))
        return nb_agf_masked_select(x, mask, out);
    return nbi_masked_select(x, mask, out);
}

NB_API nb_status nb_masked_select(const nb_tensor* x, const nb_tensor* mask, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("masked_select", (const nb_tensor* const[]){x, mask}, 2);
        nb_status st = nbd_masked_select(x, mask, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_masked_select(x, mask, out);
}

static inline nb_status nbd_nonzero(const nb_tensor* x, nb_tensor** out) {
    return nbi_nonzero(x, out);
}

NB_API nb_status nb_nonzero(const nb_tensor* x, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("nonzero", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_nonzero(x, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_nonzero(x, out);
}

static inline nb_status nbd_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(indices))))
        return nb_agf_take_along_dim(x, indices, dim, has_dim, out);
    return nbi_take_along_dim(x, indices, dim, has_dim, out);
}

NB_API nb_status nb_take_along_dim(const nb_tensor* x, const nb_tensor* indices, int64_t dim, int32_t has_dim, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("take_along_dim", (const nb_tensor* const[]){x, indices}, 2);
        nb_status st = nbd_take_along_dim(x, indices, dim, has_dim, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_take_along_dim(x, indices, dim, has_dim, out);
}

static inline nb_status nbd_one_hot(const nb_tensor* x, int64_t num_classes, nb_tensor** out) {
    return nbi_one_hot(x, num_classes, out);
}

NB_API nb_status nb_one_hot(const nb_tensor* x, int64_t num_classes, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("one_hot", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_one_hot(x, num_classes, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_one_hot(x, num_classes, out);
}

static inline nb_status nbd_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires_any(indices, n))))
        return nb_agf_index(x, indices, n, out);
    return nbi_index(x, indices, n, out);
}

NB_API nb_status nb_index(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("index", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_index(x, indices, n, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_index(x, indices, n, out);
}

static inline nb_status nbd_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("index_put", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires_any(indices, n) || nb_ag_requires(values) || nb_ag_requires(dst))))
        return nb_agf_index_put(x, indices, n, values, accumulate, dst, out);
    return nbi_index_put(x, indices, n, values, accumulate, dst, out);
}

static nb_status nba_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "index_put", NB_AC_NONE, NB_AC_PROMOTE, (const nb_tensor* const[]){x, values}, 2, indices, n, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_index_put(x, indices, n, values, accumulate, dst, out);
    st = nbd_index_put(ac.t[0], ac.list, n, ac.t[1], accumulate, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_index_put(x, indices, n, values, accumulate, dst, out);
    return nbd_index_put(x, indices, n, values, accumulate, dst, out);
}

NB_API nb_status nb_index_put(const nb_tensor* x, const nb_tensor* const* indices, int32_t n, const nb_tensor* values, int32_t accumulate, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("index_put", (const nb_tensor* const[]){x, values}, 2);
        nb_status st = nbc_index_put(x, indices, n, values, accumulate, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_index_put(x, indices, n, values, accumulate, dst, out);
}

static inline nb_status nbd_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("matmul", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_matmul(a, b, dst, out);
    return nbi_matmul(a, b, dst, out);
}

static nb_status nba_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "matmul", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_matmul(a, b, dst, out);
    st = nbd_matmul(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_matmul(a, b, dst, out);
    return nbd_matmul(a, b, dst, out);
}

NB_API nb_status nb_matmul(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("matmul", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_matmul(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_matmul(a, b, dst, out);
}

static inline nb_status nbd_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("mm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_mm(a, b, dst, out);
    return nbi_mm(a, b, dst, out);
}

static nb_status nba_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "mm", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_mm(a, b, dst, out);
    st = nbd_mm(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_mm(a, b, dst, out);
    return nbd_mm(a, b, dst, out);
}

NB_API nb_status nb_mm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("mm", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_mm(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_mm(a, b, dst, out);
}

static inline nb_status nbd_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bmm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_bmm(a, b, dst, out);
    return nbi_bmm(a, b, dst, out);
}

static nb_status nba_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "bmm", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_bmm(a, b, dst, out);
    st = nbd_bmm(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_bmm(a, b, dst, out);
    return nbd_bmm(a, b, dst, out);
}

NB_API nb_status nb_bmm(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bmm", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_bmm(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_bmm(a, b, dst, out);
}

static inline nb_status nbd_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("mv", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(v) || nb_ag_requires(dst))))
        return nb_agf_mv(a, v, dst, out);
    return nbi_mv(a, v, dst, out);
}

static nb_status nba_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "mv", NB_AC_NONE, NB_AC_LOWER, (const nb_tensor* const[]){a, v}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_mv(a, v, dst, out);
    st = nbd_mv(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_mv(a, v, dst, out);
    return nbd_mv(a, v, dst, out);
}

NB_API nb_status nb_mv(const nb_tensor* a, const nb_tensor* v, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("mv", (const nb_tensor* const[]){a, v}, 2);
        nb_status st = nbc_mv(a, v, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_mv(a, v, dst, out);
}

static inline nb_status nbd_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("dot", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_dot(a, b, dst, out);
    return nbi_dot(a, b, dst, out);
}

static nb_status nba_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "dot", NB_AC_NONE, NB_AC_PROMOTE, (const nb_tensor* const[]){a, b}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_dot(a, b, dst, out);
    st = nbd_dot(ac.t[0], ac.t[1], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_dot(a, b, dst, out);
    return nbd_dot(a, b, dst, out);
}

NB_API nb_status nb_dot(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("dot", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbc_dot(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_dot(a, b, dst, out);
}

static inline nb_status nbd_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("outer", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_outer(a, b, dst, out);
    return nbi_outer(a, b, dst, out);
}

NB_API nb_status nb_outer(const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("outer", (const nb_tensor* const[]){a, b}, 2);
        nb_status st = nbd_outer(a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_outer(a, b, dst, out);
}

static inline nb_status nbd_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("addmm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(mat1) || nb_ag_requires(mat2) || nb_ag_requires(dst))))
        return nb_agf_addmm(input, mat1, mat2, beta, alpha, dst, out);
    return nbi_addmm(input, mat1, mat2, beta, alpha, dst, out);
}

static nb_status nba_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "addmm", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, mat1, mat2}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_addmm(input, mat1, mat2, beta, alpha, dst, out);
    st = nbd_addmm(ac.t[0], ac.t[1], ac.t[2], beta, alpha, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_addmm(input, mat1, mat2, beta, alpha, dst, out);
    return nbd_addmm(input, mat1, mat2, beta, alpha, dst, out);
}

NB_API nb_status nb_addmm(const nb_tensor* input, const nb_tensor* mat1, const nb_tensor* mat2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("addmm", (const nb_tensor* const[]){input, mat1, mat2}, 3);
        nb_status st = nbc_addmm(input, mat1, mat2, beta, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_addmm(input, mat1, mat2, beta, alpha, dst, out);
}

static inline nb_status nbd_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("baddbmm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(batch1) || nb_ag_requires(batch2) || nb_ag_requires(dst))))
        return nb_agf_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
    return nbi_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
}

static nb_status nba_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "baddbmm", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, batch1, batch2}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
    st = nbd_baddbmm(ac.t[0], ac.t[1], ac.t[2], beta, alpha, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
    return nbd_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
}

NB_API nb_status nb_baddbmm(const nb_tensor* input, const nb_tensor* batch1, const nb_tensor* batch2, double beta, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("baddbmm", (const nb_tensor* const[]){input, batch1, batch2}, 3);
        nb_status st = nbc_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_baddbmm(input, batch1, batch2, beta, alpha, dst, out);
}

static inline nb_status nbd_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("linear", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_linear(input, weight, bias, dst, out);
    return nbi_linear(input, weight, bias, dst, out);
}

static nb_status nba_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linear", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linear(input, weight, bias, dst, out);
    st = nbd_linear(ac.t[0], ac.t[1], ac.t[2], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linear(input, weight, bias, dst, out);
    return nbd_linear(input, weight, bias, dst, out);
}

NB_API nb_status nb_linear(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linear", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_linear(input, weight, bias, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_linear(input, weight, bias, dst, out);
}

static inline nb_status nbd_linalg_inv(const nb_tensor* A, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_inv(A, out);
    return nbi_linalg_inv(A, out);
}

static nb_status nba_linalg_inv(const nb_tensor* A, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_inv", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_inv(A, out);
    st = nbd_linalg_inv(ac.t[0], out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_inv(const nb_tensor* A, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_inv(A, out);
    return nbd_linalg_inv(A, out);
}

NB_API nb_status nb_linalg_inv(const nb_tensor* A, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_inv", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_inv(A, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbc_linalg_inv(A, out);
}

static inline nb_status nbd_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A) || nb_ag_requires(B))))
        return nb_agf_linalg_solve(A, B, left, out);
    return nbi_linalg_solve(A, B, left, out);
}

static nb_status nba_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_solve", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A, B}, 2, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_solve(A, B, left, out);
    st = nbd_linalg_solve(ac.t[0], ac.t[1], left, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_solve(A, B, left, out);
    return nbd_linalg_solve(A, B, left, out);
}

NB_API nb_status nb_linalg_solve(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_solve", (const nb_tensor* const[]){A, B}, 2);
        nb_status st = nbc_linalg_solve(A, B, left, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbc_linalg_solve(A, B, left, out);
}

static inline nb_status nbd_linalg_det(const nb_tensor* A, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_det(A, out);
    return nbi_linalg_det(A, out);
}

NB_API nb_status nb_linalg_det(const nb_tensor* A, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_det", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbd_linalg_det(A, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_linalg_det(A, out);
}

static inline nb_status nbd_linalg_slogdet(const nb_tensor* A, nb_tensor** sign, nb_tensor** logabsdet) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_slogdet(A, sign, logabsdet);
    return nbi_linalg_slogdet(A, sign, logabsdet);
}

NB_API nb_status nb_linalg_slogdet(const nb_tensor* A, nb_tensor** sign, nb_tensor** logabsdet) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_slogdet", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbd_linalg_slogdet(A, sign, logabsdet);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (sign ? *sign : NULL)));
        return st;
    }
    return nbd_linalg_slogdet(A, sign, logabsdet);
}

static inline nb_status nbd_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_cholesky(A, upper, out);
    return nbi_linalg_cholesky(A, upper, out);
}

static nb_status nba_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_cholesky", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_cholesky(A, upper, out);
    st = nbd_linalg_cholesky(ac.t[0], upper, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_cholesky(A, upper, out);
    return nbd_linalg_cholesky(A, upper, out);
}

NB_API nb_status nb_linalg_cholesky(const nb_tensor* A, int32_t upper, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_cholesky", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_cholesky(A, upper, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbc_linalg_cholesky(A, upper, out);
}

static inline nb_status nbd_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_qr(A, mode, Q, R);
    return nbi_linalg_qr(A, mode, Q, R);
}

static nb_status nba_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_qr", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_qr(A, mode, Q, R);
    st = nbd_linalg_qr(ac.t[0], mode, Q, R);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_qr(A, mode, Q, R);
    return nbd_linalg_qr(A, mode, Q, R);
}

NB_API nb_status nb_linalg_qr(const nb_tensor* A, int32_t mode, nb_tensor** Q, nb_tensor** R) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_qr", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_qr(A, mode, Q, R);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (Q ? *Q : NULL)));
        return st;
    }
    return nbc_linalg_qr(A, mode, Q, R);
}

static inline nb_status nbd_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_eigh(A, upper, eigenvalues, eigenvectors);
    return nbi_linalg_eigh(A, upper, eigenvalues, eigenvectors);
}

static nb_status nba_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_eigh", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_eigh(A, upper, eigenvalues, eigenvectors);
    st = nbd_linalg_eigh(ac.t[0], upper, eigenvalues, eigenvectors);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_eigh(A, upper, eigenvalues, eigenvectors);
    return nbd_linalg_eigh(A, upper, eigenvalues, eigenvectors);
}

NB_API nb_status nb_linalg_eigh(const nb_tensor* A, int32_t upper, nb_tensor** eigenvalues, nb_tensor** eigenvectors) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_eigh", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_eigh(A, upper, eigenvalues, eigenvectors);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (eigenvalues ? *eigenvalues : NULL)));
        return st;
    }
    return nbc_linalg_eigh(A, upper, eigenvalues, eigenvectors);
}

static inline nb_status nbd_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_svd(A, full_matrices, U, S, Vh);
    return nbi_linalg_svd(A, full_matrices, U, S, Vh);
}

static nb_status nba_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_svd", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_svd(A, full_matrices, U, S, Vh);
    st = nbd_linalg_svd(ac.t[0], full_matrices, U, S, Vh);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_svd(A, full_matrices, U, S, Vh);
    return nbd_linalg_svd(A, full_matrices, U, S, Vh);
}

NB_API nb_status nb_linalg_svd(const nb_tensor* A, int32_t full_matrices, nb_tensor** U, nb_tensor** S, nb_tensor** Vh) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_svd", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_svd(A, full_matrices, U, S, Vh);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (U ? *U : NULL)));
        return st;
    }
    return nbc_linalg_svd(A, full_matrices, U, S, Vh);
}

static inline nb_status nbd_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_inv_ex(A, inverse, info);
    return nbi_linalg_inv_ex(A, inverse, info);
}

static nb_status nba_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_inv_ex", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_inv_ex(A, inverse, info);
    st = nbd_linalg_inv_ex(ac.t[0], inverse, info);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_inv_ex(A, inverse, info);
    return nbd_linalg_inv_ex(A, inverse, info);
}

NB_API nb_status nb_linalg_inv_ex(const nb_tensor* A, nb_tensor** inverse, nb_tensor** info) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_inv_ex", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_inv_ex(A, inverse, info);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (inverse ? *inverse : NULL)));
        return st;
    }
    return nbc_linalg_inv_ex(A, inverse, info);
}

static inline nb_status nbd_linalg_solve_ex(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** result, nb_tensor** info) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A) || nb_ag_requires(B))))
        return nb_agf_linalg_solve_ex(A, B, left, result, info);
    return nbi_linalg_solve_ex(A, B, left, result, info);
}

NB_API nb_status nb_linalg_solve_ex(const nb_tensor* A, const nb_tensor* B, int32_t left, nb_tensor** result, nb_tensor** info) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_solve_ex", (const nb_tensor* const[]){A, B}, 2);
        nb_status st = nbd_linalg_solve_ex(A, B, left, result, info);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (result ? *result : NULL)));
        return st;
    }
    return nbd_linalg_solve_ex(A, B, left, result, info);
}

static inline nb_status nbd_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A))))
        return nb_agf_linalg_cholesky_ex(A, upper, L, info);
    return nbi_linalg_cholesky_ex(A, upper, L, info);
}

static nb_status nba_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "linalg_cholesky_ex", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){A}, 1, NULL, 0, false);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_linalg_cholesky_ex(A, upper, L, info);
    st = nbd_linalg_cholesky_ex(ac.t[0], upper, L, info);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_linalg_cholesky_ex(A, upper, L, info);
    return nbd_linalg_cholesky_ex(A, upper, L, info);
}

NB_API nb_status nb_linalg_cholesky_ex(const nb_tensor* A, int32_t upper, nb_tensor** L, nb_tensor** info) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_cholesky_ex", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbc_linalg_cholesky_ex(A, upper, L, info);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (L ? *L : NULL)));
        return st;
    }
    return nbc_linalg_cholesky_ex(A, upper, L, info);
}

static inline nb_status nbd_linalg_solve_triangular(const nb_tensor* A, const nb_tensor* B, int32_t upper, int32_t left, int32_t unitriangular, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(A) || nb_ag_requires(B))))
        return nb_agf_linalg_solve_triangular(A, B, upper, left, unitriangular, out);
    return nbi_linalg_solve_triangular(A, B, upper, left, unitriangular, out);
}

NB_API nb_status nb_linalg_solve_triangular(const nb_tensor* A, const nb_tensor* B, int32_t upper, int32_t left, int32_t unitriangular, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_solve_triangular", (const nb_tensor* const[]){A, B}, 2);
        nb_status st = nbd_linalg_solve_triangular(A, B, upper, left, unitriangular, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_linalg_solve_triangular(A, B, upper, left, unitriangular, out);
}

static inline nb_status nbd_linalg_ldl_factor_ex(const nb_tensor* A, int32_t hermitian, nb_tensor** LD, nb_tensor** pivots, nb_tensor** info) {
    return nbi_linalg_ldl_factor_ex(A, hermitian, LD, pivots, info);
}

NB_API nb_status nb_linalg_ldl_factor_ex(const nb_tensor* A, int32_t hermitian, nb_tensor** LD, nb_tensor** pivots, nb_tensor** info) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_ldl_factor_ex", (const nb_tensor* const[]){A}, 1);
        nb_status st = nbd_linalg_ldl_factor_ex(A, hermitian, LD, pivots, info);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (LD ? *LD : NULL)));
        return st;
    }
    return nbd_linalg_ldl_factor_ex(A, hermitian, LD, pivots, info);
}

static inline nb_status nbd_linalg_ldl_solve(const nb_tensor* LD, const nb_tensor* pivots, const nb_tensor* B, int32_t hermitian, nb_tensor** out) {
    return nbi_linalg_ldl_solve(LD, pivots, B, hermitian, out);
}

NB_API nb_status nb_linalg_ldl_solve(const nb_tensor* LD, const nb_tensor* pivots, const nb_tensor* B, int32_t hermitian, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("linalg_ldl_solve", (const nb_tensor* const[]){LD, pivots, B}, 3);
        nb_status st = nbd_linalg_ldl_solve(LD, pivots, B, hermitian, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_linalg_ldl_solve(LD, pivots, B, hermitian, out);
}

static inline nb_status nbd_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("conv1d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
    return nbi_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
}

static nb_status nba_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "conv1d", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
    st = nbd_conv1d(ac.t[0], ac.t[1], ac.t[2], stride, padding_left, padding_right, dilation, groups, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
    return nbd_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
}

NB_API nb_status nb_conv1d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, int64_t stride, int64_t padding_left, int64_t padding_right, int64_t dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("conv1d", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_conv1d(input, weight, bias, stride, padding_left, padding_right, dilation, groups, dst, out);
}

static inline nb_status nbd_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("conv2d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
    return nbi_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
}

static nb_status nba_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "conv2d", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
    st = nbd_conv2d(ac.t[0], ac.t[1], ac.t[2], stride, padding, dilation, groups, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
    return nbd_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
}

NB_API nb_status nb_conv2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("conv2d", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_conv2d(input, weight, bias, stride, padding, dilation, groups, dst, out);
}

static inline nb_status nbd_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("conv_transpose2d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
    return nbi_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
}

static nb_status nba_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "conv_transpose2d", NB_AC_LOWER, NB_AC_LOWER, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
    st = nbd_conv_transpose2d(ac.t[0], ac.t[1], ac.t[2], stride, padding, output_padding, dilation, groups, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
    return nbd_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
}

NB_API nb_status nb_conv_transpose2d(const nb_tensor* input, const nb_tensor* weight, const nb_tensor* bias, const int64_t* stride, const int64_t* padding, const int64_t* output_padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("conv_transpose2d", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_conv_transpose2d(input, weight, bias, stride, padding, output_padding, dilation, groups, dst, out);
}

static inline nb_status nbd_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("max_pool2d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(dst))))
        return nb_agf_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, indices, dst, out);
    return nbi_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, indices, dst, out);
}

NB_API nb_status nb_max_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int32_t ceil_mode, nb_tensor** indices, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("max_pool2d", (const nb_tensor* const[]){input}, 1);
        nb_status st = nbd_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, indices, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (indices ? *indices : NULL)));
        return st;
    }
    return nbd_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, indices, dst, out);
}

static inline nb_status nbd_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("avg_pool2d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(dst))))
        return nb_agf_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst, out);
    return nbi_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst, out);
}

NB_API nb_status nb_avg_pool2d(const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t ceil_mode, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("avg_pool2d", (const nb_tensor* const[]){input}, 1);
        nb_status st = nbd_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_avg_pool2d(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dst, out);
}

static inline nb_status nbd_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("adaptive_avg_pool2d", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(dst))))
        return nb_agf_adaptive_avg_pool2d(input, output_size, dst, out);
    return nbi_adaptive_avg_pool2d(input, output_size, dst, out);
}

NB_API nb_status nb_adaptive_avg_pool2d(const nb_tensor* input, const int64_t* output_size, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adaptive_avg_pool2d", (const nb_tensor* const[]){input}, 1);
        nb_status st = nbd_adaptive_avg_pool2d(input, output_size, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_adaptive_avg_pool2d(input, output_size, dst, out);
}

static inline nb_status nbd_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("layer_norm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
    return nbi_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
}

static nb_status nba_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "layer_norm", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
    st = nbd_layer_norm(ac.t[0], normalized_shape, ndim, ac.t[1], ac.t[2], eps, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
    return nbd_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
}

NB_API nb_status nb_layer_norm(const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("layer_norm", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_layer_norm(input, normalized_shape, ndim, weight, bias, eps, dst, out);
}

static inline nb_status nbd_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var, const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum, double eps, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(running_mean))) return nb_readonly_error("batch_norm", "running_mean");
    if (NB_UNLIKELY(nb_ag_readonly(running_var))) return nb_readonly_error("batch_norm", "running_var");
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("batch_norm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(running_mean) || nb_ag_requires(running_var) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, dst, out);
    return nbi_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, dst, out);
}

NB_API nb_status nb_batch_norm(const nb_tensor* input, nb_tensor* running_mean, nb_tensor* running_var, const nb_tensor* weight, const nb_tensor* bias, int32_t training, double momentum, double eps, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("batch_norm", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbd_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, dst, out);
}

static inline nb_status nbd_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("group_norm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(weight) || nb_ag_requires(bias) || nb_ag_requires(dst))))
        return nb_agf_group_norm(input, num_groups, weight, bias, eps, dst, out);
    return nbi_group_norm(input, num_groups, weight, bias, eps, dst, out);
}

static nb_status nba_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "group_norm", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){input, weight, bias}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_group_norm(input, num_groups, weight, bias, eps, dst, out);
    st = nbd_group_norm(ac.t[0], num_groups, ac.t[1], ac.t[2], eps, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_group_norm(input, num_groups, weight, bias, eps, dst, out);
    return nbd_group_norm(input, num_groups, weight, bias, eps, dst, out);
}

NB_API nb_status nb_group_norm(const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, const nb_tensor* bias, double eps, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("group_norm", (const nb_tensor* const[]){input, weight, bias}, 3);
        nb_status st = nbc_group_norm(input, num_groups, weight, bias, eps, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_group_norm(input, num_groups, weight, bias, eps, dst, out);
}

static inline nb_status nbd_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("nll_loss", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
    return nbi_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
}

static nb_status nba_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "nll_loss", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
    st = nbd_nll_loss(ac.t[0], ac.t[1], ac.t[2], ignore_index, reduction, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
    return nbd_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
}

NB_API nb_status nb_nll_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("nll_loss", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_nll_loss(input, target, weight, ignore_index, reduction, dst, out);
}

static inline nb_status nbd_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cross_entropy", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
    return nbi_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
}

static nb_status nba_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "cross_entropy", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
    st = nbd_cross_entropy(ac.t[0], ac.t[1], ac.t[2], ignore_index, reduction, label_smoothing, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
    return nbd_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
}

NB_API nb_status nb_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int64_t ignore_index, int32_t reduction, double label_smoothing, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cross_entropy", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, dst, out);
}

static inline nb_status nbd_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("mse_loss", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_mse_loss(input, target, weight, reduction, dst, out);
    return nbi_mse_loss(input, target, weight, reduction, dst, out);
}

static nb_status nba_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "mse_loss", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_mse_loss(input, target, weight, reduction, dst, out);
    st = nbd_mse_loss(ac.t[0], ac.t[1], ac.t[2], reduction, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_mse_loss(input, target, weight, reduction, dst, out);
    return nbd_mse_loss(input, target, weight, reduction, dst, out);
}

NB_API nb_status nb_mse_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("mse_loss", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_mse_loss(input, target, weight, reduction, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_mse_loss(input, target, weight, reduction, dst, out);
}

static inline nb_status nbd_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("l1_loss", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_l1_loss(input, target, weight, reduction, dst, out);
    return nbi_l1_loss(input, target, weight, reduction, dst, out);
}

static nb_status nba_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "l1_loss", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_l1_loss(input, target, weight, reduction, dst, out);
    st = nbd_l1_loss(ac.t[0], ac.t[1], ac.t[2], reduction, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_l1_loss(input, target, weight, reduction, dst, out);
    return nbd_l1_loss(input, target, weight, reduction, dst, out);
}

NB_API nb_status nb_l1_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("l1_loss", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_l1_loss(input, target, weight, reduction, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_l1_loss(input, target, weight, reduction, dst, out);
}

static inline nb_status nbd_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("smooth_l1_loss", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(dst))))
        return nb_agf_smooth_l1_loss(input, target, reduction, beta, dst, out);
    return nbi_smooth_l1_loss(input, target, reduction, beta, dst, out);
}

static nb_status nba_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "smooth_l1_loss", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_smooth_l1_loss(input, target, reduction, beta, dst, out);
    st = nbd_smooth_l1_loss(ac.t[0], ac.t[1], reduction, beta, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_smooth_l1_loss(input, target, reduction, beta, dst, out);
    return nbd_smooth_l1_loss(input, target, reduction, beta, dst, out);
}

NB_API nb_status nb_smooth_l1_loss(const nb_tensor* input, const nb_tensor* target, int32_t reduction, double beta, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("smooth_l1_loss", (const nb_tensor* const[]){input, target}, 2);
        nb_status st = nbc_smooth_l1_loss(input, target, reduction, beta, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_smooth_l1_loss(input, target, reduction, beta, dst, out);
}

static inline nb_status nbd_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("huber_loss", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_huber_loss(input, target, weight, reduction, delta, dst, out);
    return nbi_huber_loss(input, target, weight, reduction, delta, dst, out);
}

static nb_status nba_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "huber_loss", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_huber_loss(input, target, weight, reduction, delta, dst, out);
    st = nbd_huber_loss(ac.t[0], ac.t[1], ac.t[2], reduction, delta, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_huber_loss(input, target, weight, reduction, delta, dst, out);
    return nbd_huber_loss(input, target, weight, reduction, delta, dst, out);
}

NB_API nb_status nb_huber_loss(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, double delta, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("huber_loss", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_huber_loss(input, target, weight, reduction, delta, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_huber_loss(input, target, weight, reduction, delta, dst, out);
}

static inline nb_status nbd_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("binary_cross_entropy", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(dst))))
        return nb_agf_binary_cross_entropy(input, target, weight, reduction, dst, out);
    return nbi_binary_cross_entropy(input, target, weight, reduction, dst, out);
}

static nb_status nba_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "binary_cross_entropy", NB_AC_FP32, NB_AC_NONE, (const nb_tensor* const[]){input, target, weight}, 3, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_binary_cross_entropy(input, target, weight, reduction, dst, out);
    st = nbd_binary_cross_entropy(ac.t[0], ac.t[1], ac.t[2], reduction, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_binary_cross_entropy(input, target, weight, reduction, dst, out);
    return nbd_binary_cross_entropy(input, target, weight, reduction, dst, out);
}

NB_API nb_status nb_binary_cross_entropy(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("binary_cross_entropy", (const nb_tensor* const[]){input, target, weight}, 3);
        nb_status st = nbc_binary_cross_entropy(input, target, weight, reduction, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_binary_cross_entropy(input, target, weight, reduction, dst, out);
}

static inline nb_status nbd_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("binary_cross_entropy_with_logits", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(weight) || nb_ag_requires(pos_weight) || nb_ag_requires(dst))))
        return nb_agf_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
    return nbi_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
}

static nb_status nba_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "binary_cross_entropy_with_logits", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target, weight, pos_weight}, 4, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
    st = nbd_binary_cross_entropy_with_logits(ac.t[0], ac.t[1], ac.t[2], ac.t[3], reduction, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
    return nbd_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
}

NB_API nb_status nb_binary_cross_entropy_with_logits(const nb_tensor* input, const nb_tensor* target, const nb_tensor* weight, const nb_tensor* pos_weight, int32_t reduction, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("binary_cross_entropy_with_logits", (const nb_tensor* const[]){input, target, weight, pos_weight}, 4);
        nb_status st = nbc_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction, dst, out);
}

static inline nb_status nbd_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("kl_div", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(target) || nb_ag_requires(dst))))
        return nb_agf_kl_div(input, target, reduction, log_target, dst, out);
    return nbi_kl_div(input, target, reduction, log_target, dst, out);
}

static nb_status nba_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "kl_div", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){input, target}, 2, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_kl_div(input, target, reduction, log_target, dst, out);
    st = nbd_kl_div(ac.t[0], ac.t[1], reduction, log_target, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_kl_div(input, target, reduction, log_target, dst, out);
    return nbd_kl_div(input, target, reduction, log_target, dst, out);
}

NB_API nb_status nb_kl_div(const nb_tensor* input, const nb_tensor* target, int32_t reduction, int32_t log_target, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("kl_div", (const nb_tensor* const[]){input, target}, 2);
        nb_status st = nbc_kl_div(input, target, reduction, log_target, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_kl_div(input, target, reduction, log_target, dst, out);
}

static inline nb_status nbd_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("embedding", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(weight) || nb_ag_requires(indices) || nb_ag_requires(dst))))
        return nb_agf_embedding(weight, indices, padding_idx, dst, out);
    return nbi_embedding(weight, indices, padding_idx, dst, out);
}

NB_API nb_status nb_embedding(const nb_tensor* weight, const nb_tensor* indices, int64_t padding_idx, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("embedding", (const nb_tensor* const[]){weight, indices}, 2);
        nb_status st = nbd_embedding(weight, indices, padding_idx, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_embedding(weight, indices, padding_idx, dst, out);
}

static inline nb_status nbd_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("pad", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(input) || nb_ag_requires(dst))))
        return nb_agf_pad(input, pad, npad, mode, value, dst, out);
    return nbi_pad(input, pad, npad, mode, value, dst, out);
}

NB_API nb_status nb_pad(const nb_tensor* input, const int64_t* pad, int32_t npad, int32_t mode, double value, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("pad", (const nb_tensor* const[]){input}, 1);
        nb_status st = nbd_pad(input, pad, npad, mode, value, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_pad(input, pad, npad, mode, value, dst, out);
}

static inline nb_status nbd_conv2d_backward_input(const nb_tensor* grad_output, const nb_tensor* weight, const int64_t* input_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("conv2d_backward_input", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("conv2d_backward_input");
    return nbi_conv2d_backward_input(grad_output, weight, input_size, stride, padding, dilation, groups, dst, out);
}

NB_API nb_status nb_conv2d_backward_input(const nb_tensor* grad_output, const nb_tensor* weight, const int64_t* input_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("conv2d_backward_input", (const nb_tensor* const[]){grad_output, weight}, 2);
        nb_status st = nbd_conv2d_backward_input(grad_output, weight, input_size, stride, padding, dilation, groups, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_conv2d_backward_input(grad_output, weight, input_size, stride, padding, dilation, groups, dst, out);
}

static inline nb_status nbd_conv2d_backward_weight(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("conv2d_backward_weight", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("conv2d_backward_weight");
    return nbi_conv2d_backward_weight(grad_output, input, kernel_size, stride, padding, dilation, groups, dst, out);
}

NB_API nb_status nb_conv2d_backward_weight(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, const int64_t* dilation, int64_t groups, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("conv2d_backward_weight", (const nb_tensor* const[]){grad_output, input}, 2);
        nb_status st = nbd_conv2d_backward_weight(grad_output, input, kernel_size, stride, padding, dilation, groups, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_conv2d_backward_weight(grad_output, input, kernel_size, stride, padding, dilation, groups, dst, out);
}

static inline nb_status nbd_max_pool2d_backward(const nb_tensor* grad_output, const nb_tensor* indices, const int64_t* input_size, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("max_pool2d_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("max_pool2d_backward");
    return nbi_max_pool2d_backward(grad_output, indices, input_size, dst, out);
}

NB_API nb_status nb_max_pool2d_backward(const nb_tensor* grad_output, const nb_tensor* indices, const int64_t* input_size, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("max_pool2d_backward", (const nb_tensor* const[]){grad_output, indices}, 2);
        nb_status st = nbd_max_pool2d_backward(grad_output, indices, input_size, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_max_pool2d_backward(grad_output, indices, input_size, dst, out);
}

static inline nb_status nbd_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("avg_pool2d_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("avg_pool2d_backward");
    return nbi_avg_pool2d_backward(grad_output, input_size, kernel_size, stride, padding, count_include_pad, divisor_override, dst, out);
}

NB_API nb_status nb_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, const int64_t* kernel_size, const int64_t* stride, const int64_t* padding, int32_t count_include_pad, int64_t divisor_override, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("avg_pool2d_backward", (const nb_tensor* const[]){grad_output}, 1);
        nb_status st = nbd_avg_pool2d_backward(grad_output, input_size, kernel_size, stride, padding, count_include_pad, divisor_override, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_avg_pool2d_backward(grad_output, input_size, kernel_size, stride, padding, count_include_pad, divisor_override, dst, out);
}

static inline nb_status nbd_adaptive_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("adaptive_avg_pool2d_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("adaptive_avg_pool2d_backward");
    return nbi_adaptive_avg_pool2d_backward(grad_output, input_size, dst, out);
}

NB_API nb_status nb_adaptive_avg_pool2d_backward(const nb_tensor* grad_output, const int64_t* input_size, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adaptive_avg_pool2d_backward", (const nb_tensor* const[]){grad_output}, 1);
        nb_status st = nbd_adaptive_avg_pool2d_backward(grad_output, input_size, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_adaptive_avg_pool2d_backward(grad_output, input_size, dst, out);
}

static inline nb_status nbd_layer_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("layer_norm_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("layer_norm_backward");
    return nbi_layer_norm_backward(grad_output, input, normalized_shape, ndim, weight, eps, grad_weight, grad_bias, dst, out);
}

NB_API nb_status nb_layer_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const int64_t* normalized_shape, int32_t ndim, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("layer_norm_backward", (const nb_tensor* const[]){grad_output, input, weight}, 3);
        nb_status st = nbd_layer_norm_backward(grad_output, input, normalized_shape, ndim, weight, eps, grad_weight, grad_bias, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (grad_weight ? *grad_weight : NULL)));
        return st;
    }
    return nbd_layer_norm_backward(grad_output, input, normalized_shape, ndim, weight, eps, grad_weight, grad_bias, dst, out);
}

static inline nb_status nbd_batch_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("batch_norm_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("batch_norm_backward");
    return nbi_batch_norm_backward(grad_output, input, weight, eps, grad_weight, grad_bias, dst, out);
}

NB_API nb_status nb_batch_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("batch_norm_backward", (const nb_tensor* const[]){grad_output, input, weight}, 3);
        nb_status st = nbd_batch_norm_backward(grad_output, input, weight, eps, grad_weight, grad_bias, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (grad_weight ? *grad_weight : NULL)));
        return st;
    }
    return nbd_batch_norm_backward(grad_output, input, weight, eps, grad_weight, grad_bias, dst, out);
}

static inline nb_status nbd_group_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("group_norm_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("group_norm_backward");
    return nbi_group_norm_backward(grad_output, input, num_groups, weight, eps, grad_weight, grad_bias, dst, out);
}

NB_API nb_status nb_group_norm_backward(const nb_tensor* grad_output, const nb_tensor* input, int64_t num_groups, const nb_tensor* weight, double eps, nb_tensor** grad_weight, nb_tensor** grad_bias, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("group_norm_backward", (const nb_tensor* const[]){grad_output, input, weight}, 3);
        nb_status st = nbd_group_norm_backward(grad_output, input, num_groups, weight, eps, grad_weight, grad_bias, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (grad_weight ? *grad_weight : NULL)));
        return st;
    }
    return nbd_group_norm_backward(grad_output, input, num_groups, weight, eps, grad_weight, grad_bias, dst, out);
}

static inline nb_status nbd_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("embedding_dense_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(grad_output) || nb_ag_requires(indices) || nb_ag_requires(dst))))
        return nb_agf_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, dst, out);
    return nbi_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, dst, out);
}

NB_API nb_status nb_embedding_dense_backward(const nb_tensor* grad_output, const nb_tensor* indices, int64_t num_weights, int64_t padding_idx, int32_t scale_grad_by_freq, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("embedding_dense_backward", (const nb_tensor* const[]){grad_output, indices}, 2);
        nb_status st = nbd_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, dst, out);
}

static inline nb_status nbd_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("gelu_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(grad_output) || nb_ag_requires(input) || nb_ag_requires(dst))))
        return nb_agf_gelu_backward(grad_output, input, approximate_tanh, dst, out);
    return nbi_gelu_backward(grad_output, input, approximate_tanh, dst, out);
}

NB_API nb_status nb_gelu_backward(const nb_tensor* grad_output, const nb_tensor* input, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("gelu_backward", (const nb_tensor* const[]){grad_output, input}, 2);
        nb_status st = nbd_gelu_backward(grad_output, input, approximate_tanh, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_gelu_backward(grad_output, input, approximate_tanh, dst, out);
}

static inline nb_status nbd_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    if (NB_UNLIKELY(nb_ag_readonly(param))) return nb_readonly_error("sgd_step", "param");
    if (NB_UNLIKELY(nb_ag_readonly(momentum_buffer))) return nb_readonly_error("sgd_step", "momentum_buffer");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(param) || nb_ag_requires(momentum_buffer))))
        return nb_ag_nondifferentiable_write("sgd_step");
    return nbi_sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
}

NB_API nb_status nb_sgd_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* momentum_buffer, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sgd_step", (const nb_tensor* const[]){grad}, 1);
        nb_status st = nbd_sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_sgd_step(param, grad, momentum_buffer, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
}

static inline nb_status nbd_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq, nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    if (NB_UNLIKELY(nb_ag_readonly(param))) return nb_readonly_error("adam_step", "param");
    if (NB_UNLIKELY(nb_ag_readonly(exp_avg))) return nb_readonly_error("adam_step", "exp_avg");
    if (NB_UNLIKELY(nb_ag_readonly(exp_avg_sq))) return nb_readonly_error("adam_step", "exp_avg_sq");
    if (NB_UNLIKELY(nb_ag_readonly(max_exp_avg_sq))) return nb_readonly_error("adam_step", "max_exp_avg_sq");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(param) || nb_ag_requires(exp_avg) || nb_ag_requires(exp_avg_sq) || nb_ag_requires(max_exp_avg_sq))))
        return nb_ag_nondifferentiable_write("adam_step");
    return nbi_adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
}

NB_API nb_status nb_adam_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* exp_avg, nb_tensor* exp_avg_sq, nb_tensor* max_exp_avg_sq, int64_t step, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adam_step", (const nb_tensor* const[]){grad}, 1);
        nb_status st = nbd_adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
}

static inline nb_status nbd_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg, nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) {
    if (NB_UNLIKELY(nb_ag_readonly(param))) return nb_readonly_error("rmsprop_step", "param");
    if (NB_UNLIKELY(nb_ag_readonly(square_avg))) return nb_readonly_error("rmsprop_step", "square_avg");
    if (NB_UNLIKELY(nb_ag_readonly(grad_avg))) return nb_readonly_error("rmsprop_step", "grad_avg");
    if (NB_UNLIKELY(nb_ag_readonly(momentum_buffer))) return nb_readonly_error("rmsprop_step", "momentum_buffer");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(param) || nb_ag_requires(square_avg) || nb_ag_requires(grad_avg) || nb_ag_requires(momentum_buffer))))
        return nb_ag_nondifferentiable_write("rmsprop_step");
    return nbi_rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum, centered, maximize);
}

NB_API nb_status nb_rmsprop_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* square_avg, nb_tensor* grad_avg, nb_tensor* momentum_buffer, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("rmsprop_step", (const nb_tensor* const[]){grad}, 1);
        nb_status st = nbd_rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum, centered, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_rmsprop_step(param, grad, square_avg, grad_avg, momentum_buffer, lr, alpha, eps, weight_decay, momentum, centered, maximize);
}

static inline nb_status nbd_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    if (NB_UNLIKELY(nb_ag_readonly(param))) return nb_readonly_error("adagrad_step", "param");
    if (NB_UNLIKELY(nb_ag_readonly(state_sum))) return nb_readonly_error("adagrad_step", "state_sum");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(param) || nb_ag_requires(state_sum))))
        return nb_ag_nondifferentiable_write("adagrad_step");
    return nbi_adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize);
}

NB_API nb_status nb_adagrad_step(nb_tensor* param, const nb_tensor* grad, nb_tensor* state_sum, int64_t step, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adagrad_step", (const nb_tensor* const[]){grad}, 1);
        nb_status st = nbd_adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_adagrad_step(param, grad, state_sum, step, lr, lr_decay, eps, weight_decay, maximize);
}

static inline nb_status nbd_sgd_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* momentum_buffers, int64_t count, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    return nbi_sgd_step_list(params, grads, momentum_buffers, count, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
}

NB_API nb_status nb_sgd_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* momentum_buffers, int64_t count, double lr, double momentum, double dampening, double weight_decay, int32_t nesterov, int32_t maximize, int32_t init_buffer) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sgd_step_list", grads, count);
        nb_status st = nbd_sgd_step_list(params, grads, momentum_buffers, count, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_sgd_step_list(params, grads, momentum_buffers, count, lr, momentum, dampening, weight_decay, nesterov, maximize, init_buffer);
}

static inline nb_status nbd_adam_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* exp_avgs, nb_tensor* const* exp_avg_sqs, nb_tensor* const* max_exp_avg_sqs, const int64_t* steps, int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    return nbi_adam_step_list(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, count, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
}

NB_API nb_status nb_adam_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* exp_avgs, nb_tensor* const* exp_avg_sqs, nb_tensor* const* max_exp_avg_sqs, const int64_t* steps, int64_t count, double lr, double beta1, double beta2, double eps, double weight_decay, int32_t decoupled_weight_decay, int32_t amsgrad, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adam_step_list", grads, count);
        nb_status st = nbd_adam_step_list(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, count, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_adam_step_list(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, count, lr, beta1, beta2, eps, weight_decay, decoupled_weight_decay, amsgrad, maximize);
}

static inline nb_status nbd_rmsprop_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* square_avgs, nb_tensor* const* grad_avgs, nb_tensor* const* momentum_buffers, int64_t count, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) {
    return nbi_rmsprop_step_list(params, grads, square_avgs, grad_avgs, momentum_buffers, count, lr, alpha, eps, weight_decay, momentum, centered, maximize);
}

NB_API nb_status nb_rmsprop_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* square_avgs, nb_tensor* const* grad_avgs, nb_tensor* const* momentum_buffers, int64_t count, double lr, double alpha, double eps, double weight_decay, double momentum, int32_t centered, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("rmsprop_step_list", grads, count);
        nb_status st = nbd_rmsprop_step_list(params, grads, square_avgs, grad_avgs, momentum_buffers, count, lr, alpha, eps, weight_decay, momentum, centered, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_rmsprop_step_list(params, grads, square_avgs, grad_avgs, momentum_buffers, count, lr, alpha, eps, weight_decay, momentum, centered, maximize);
}

static inline nb_status nbd_adagrad_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* state_sums, const int64_t* steps, int64_t count, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    return nbi_adagrad_step_list(params, grads, state_sums, steps, count, lr, lr_decay, eps, weight_decay, maximize);
}

NB_API nb_status nb_adagrad_step_list(nb_tensor* const* params, const nb_tensor* const* grads, nb_tensor* const* state_sums, const int64_t* steps, int64_t count, double lr, double lr_decay, double eps, double weight_decay, int32_t maximize) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("adagrad_step_list", grads, count);
        nb_status st = nbd_adagrad_step_list(params, grads, state_sums, steps, count, lr, lr_decay, eps, weight_decay, maximize);
        nb_prof_op_end(prof, st, NULL);
        return st;
    }
    return nbd_adagrad_step_list(params, grads, state_sums, steps, count, lr, lr_decay, eps, weight_decay, maximize);
}

static inline nb_status nbd_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("rand", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("rand");
    return nbi_rand(shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_rand(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("rand", NULL, 0);
        nb_status st = nbd_rand(shape, ndim, dtype, device_type, device_index, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_rand(shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

static inline nb_status nbd_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("randn", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("randn");
    return nbi_randn(shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_randn(const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("randn", NULL, 0);
        nb_status st = nbd_randn(shape, ndim, dtype, device_type, device_index, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_randn(shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

static inline nb_status nbd_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("randint", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("randint");
    return nbi_randint(low, high, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_randint(int64_t low, int64_t high, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("randint", NULL, 0);
        nb_status st = nbd_randint(low, high, shape, ndim, dtype, device_type, device_index, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_randint(low, high, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

static inline nb_status nbd_randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("randperm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("randperm");
    return nbi_randperm(n, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_randperm(int64_t n, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("randperm", NULL, 0);
        nb_status st = nbd_randperm(n, dtype, device_type, device_index, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_randperm(n, dtype, device_type, device_index, gen, dst, out);
}

static inline nb_status nbd_uniform_(nb_tensor* t, double from, double to, nb_generator* gen) {
    if (NB_UNLIKELY(nb_ag_readonly(t))) return nb_readonly_error("uniform_", "t");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_ag_nondifferentiable_write("uniform_");
    return nbi_uniform_(t, from, to, gen);
}

NB_API nb_status nb_uniform_(nb_tensor* t, double from, double to, nb_generator* gen) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("uniform_", NULL, 0);
        nb_status st = nbd_uniform_(t, from, to, gen);
        nb_prof_op_end(prof, st, t);
        return st;
    }
    return nbd_uniform_(t, from, to, gen);
}

static inline nb_status nbd_normal_(nb_tensor* t, double mean, double std, nb_generator* gen) {
    if (NB_UNLIKELY(nb_ag_readonly(t))) return nb_readonly_error("normal_", "t");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_ag_nondifferentiable_write("normal_");
    return nbi_normal_(t, mean, std, gen);
}

NB_API nb_status nb_normal_(nb_tensor* t, double mean, double std, nb_generator* gen) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("normal_", NULL, 0);
        nb_status st = nbd_normal_(t, mean, std, gen);
        nb_prof_op_end(prof, st, t);
        return st;
    }
    return nbd_normal_(t, mean, std, gen);
}

static inline nb_status nbd_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen) {
    if (NB_UNLIKELY(nb_ag_readonly(t))) return nb_readonly_error("random_", "t");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t))))
        return nb_ag_nondifferentiable_write("random_");
    return nbi_random_(t, low, high_inclusive, gen);
}

NB_API nb_status nb_random_(nb_tensor* t, int64_t low, int64_t high_inclusive, nb_generator* gen) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("random_", NULL, 0);
        nb_status st = nbd_random_(t, low, high_inclusive, gen);
        nb_prof_op_end(prof, st, t);
        return st;
    }
    return nbd_random_(t, low, high_inclusive, gen);
}

static inline nb_status nbd_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bernoulli", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bernoulli");
    return nbi_bernoulli(p, gen, dst, out);
}

NB_API nb_status nb_bernoulli(const nb_tensor* p, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bernoulli", (const nb_tensor* const[]){p}, 1);
        nb_status st = nbd_bernoulli(p, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bernoulli(p, gen, dst, out);
}

static inline nb_status nbd_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bernoulli_scalar", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bernoulli_scalar");
    return nbi_bernoulli_scalar(p, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

NB_API nb_status nb_bernoulli_scalar(double p, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type, int32_t device_index, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bernoulli_scalar", NULL, 0);
        nb_status st = nbd_bernoulli_scalar(p, shape, ndim, dtype, device_type, device_index, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bernoulli_scalar(p, shape, ndim, dtype, device_type, device_index, gen, dst, out);
}

static inline nb_status nbd_multinomial(const nb_tensor* probs, int64_t num_samples, int32_t replacement, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("multinomial", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("multinomial");
    return nbi_multinomial(probs, num_samples, replacement, gen, dst, out);
}

NB_API nb_status nb_multinomial(const nb_tensor* probs, int64_t num_samples, int32_t replacement, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("multinomial", (const nb_tensor* const[]){probs}, 1);
        nb_status st = nbd_multinomial(probs, num_samples, replacement, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_multinomial(probs, num_samples, replacement, gen, dst, out);
}

static inline nb_status nbd_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("dropout", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_dropout(x, p, train, gen, dst, out);
    return nbi_dropout(x, p, train, gen, dst, out);
}

NB_API nb_status nb_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("dropout", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_dropout(x, p, train, gen, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_dropout(x, p, train, gen, dst, out);
}

static inline nb_status nbd_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sum", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_sum(t, dims, ndims, keepdim, dtype, dst, out);
    return nbi_sum(t, dims, ndims, keepdim, dtype, dst, out);
}

static nb_status nba_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "sum", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_sum(t, dims, ndims, keepdim, dtype, dst, out);
    st = nbd_sum(ac.t[0], dims, ndims, keepdim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_sum(t, dims, ndims, keepdim, dtype, dst, out);
    return nbd_sum(t, dims, ndims, keepdim, dtype, dst, out);
}

NB_API nb_status nb_sum(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sum", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_sum(t, dims, ndims, keepdim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_sum(t, dims, ndims, keepdim, dtype, dst, out);
}

static inline nb_status nbd_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("mean", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_mean(t, dims, ndims, keepdim, dtype, dst, out);
    return nbi_mean(t, dims, ndims, keepdim, dtype, dst, out);
}

NB_API nb_status nb_mean(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("mean", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_mean(t, dims, ndims, keepdim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_mean(t, dims, ndims, keepdim, dtype, dst, out);
}

static inline nb_status nbd_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("prod", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_prod(t, dims, ndims, keepdim, dtype, dst, out);
    return nbi_prod(t, dims, ndims, keepdim, dtype, dst, out);
}

static nb_status nba_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "prod", NB_AC_FP32, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_prod(t, dims, ndims, keepdim, dtype, dst, out);
    st = nbd_prod(ac.t[0], dims, ndims, keepdim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_prod(t, dims, ndims, keepdim, dtype, dst, out);
    return nbd_prod(t, dims, ndims, keepdim, dtype, dst, out);
}

NB_API nb_status nb_prod(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("prod", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_prod(t, dims, ndims, keepdim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_prod(t, dims, ndims, keepdim, dtype, dst, out);
}

static inline nb_status nbd_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("amax", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_amax(t, dims, ndims, keepdim, dst, out);
    return nbi_amax(t, dims, ndims, keepdim, dst, out);
}

NB_API nb_status nb_amax(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("amax", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_amax(t, dims, ndims, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_amax(t, dims, ndims, keepdim, dst, out);
}

static inline nb_status nbd_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("amin", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_amin(t, dims, ndims, keepdim, dst, out);
    return nbi_amin(t, dims, ndims, keepdim, dst, out);
}

NB_API nb_status nb_amin(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("amin", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_amin(t, dims, ndims, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_amin(t, dims, ndims, keepdim, dst, out);
}

static inline nb_status nbd_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    if (NB_UNLIKELY(nb_ag_readonly(dst_values))) return nb_readonly_error("max_dim", "dst_values");
    if (NB_UNLIKELY(nb_ag_readonly(dst_indices))) return nb_readonly_error("max_dim", "dst_indices");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst_values) || nb_ag_requires(dst_indices))))
        return nb_agf_max_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
    return nbi_max_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
}

NB_API nb_status nb_max_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("max_dim", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_max_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_max_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
}

static inline nb_status nbd_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    if (NB_UNLIKELY(nb_ag_readonly(dst_values))) return nb_readonly_error("min_dim", "dst_values");
    if (NB_UNLIKELY(nb_ag_readonly(dst_indices))) return nb_readonly_error("min_dim", "dst_indices");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst_values) || nb_ag_requires(dst_indices))))
        return nb_agf_min_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
    return nbi_min_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
}

NB_API nb_status nb_min_dim(const nb_tensor* t, int64_t dim, int32_t keepdim, nb_tensor* dst_values, nb_tensor* dst_indices, nb_tensor** values, nb_tensor** indices) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("min_dim", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_min_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_min_dim(t, dim, keepdim, dst_values, dst_indices, values, indices);
}

static inline nb_status nbd_argmax(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("argmax", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("argmax");
    return nbi_argmax(t, dim, keepdim, dst, out);
}

NB_API nb_status nb_argmax(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("argmax", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_argmax(t, dim, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_argmax(t, dim, keepdim, dst, out);
}

static inline nb_status nbd_argmin(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("argmin", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("argmin");
    return nbi_argmin(t, dim, keepdim, dst, out);
}

NB_API nb_status nb_argmin(const nb_tensor* t, const int64_t* dim, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("argmin", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_argmin(t, dim, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_argmin(t, dim, keepdim, dst, out);
}

static inline nb_status nbd_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("var", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_var(t, dims, ndims, correction, keepdim, dst, out);
    return nbi_var(t, dims, ndims, correction, keepdim, dst, out);
}

NB_API nb_status nb_var(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("var", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_var(t, dims, ndims, correction, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_var(t, dims, ndims, correction, keepdim, dst, out);
}

static inline nb_status nbd_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("std", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_std(t, dims, ndims, correction, keepdim, dst, out);
    return nbi_std(t, dims, ndims, correction, keepdim, dst, out);
}

NB_API nb_status nb_std(const nb_tensor* t, const int64_t* dims, int32_t ndims, double correction, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("std", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_std(t, dims, ndims, correction, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_std(t, dims, ndims, correction, keepdim, dst, out);
}

static inline nb_status nbd_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("norm", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
    return nbi_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
}

static nb_status nba_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "norm", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
    st = nbd_norm(ac.t[0], p, dims, ndims, keepdim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
    return nbd_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
}

NB_API nb_status nb_norm(const nb_tensor* t, double p, const int64_t* dims, int32_t ndims, int32_t keepdim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("norm", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_norm(t, p, dims, ndims, keepdim, dtype, dst, out);
}

static inline nb_status nbd_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("logsumexp", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_logsumexp(t, dims, ndims, keepdim, dst, out);
    return nbi_logsumexp(t, dims, ndims, keepdim, dst, out);
}

static nb_status nba_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "logsumexp", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_logsumexp(t, dims, ndims, keepdim, dst, out);
    st = nbd_logsumexp(ac.t[0], dims, ndims, keepdim, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_logsumexp(t, dims, ndims, keepdim, dst, out);
    return nbd_logsumexp(t, dims, ndims, keepdim, dst, out);
}

NB_API nb_status nb_logsumexp(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("logsumexp", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_logsumexp(t, dims, ndims, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_logsumexp(t, dims, ndims, keepdim, dst, out);
}

static inline nb_status nbd_all(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("all", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("all");
    return nbi_all(t, dims, ndims, keepdim, dst, out);
}

NB_API nb_status nb_all(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("all", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_all(t, dims, ndims, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_all(t, dims, ndims, keepdim, dst, out);
}

static inline nb_status nbd_any(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("any", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("any");
    return nbi_any(t, dims, ndims, keepdim, dst, out);
}

NB_API nb_status nb_any(const nb_tensor* t, const int64_t* dims, int32_t ndims, int32_t keepdim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("any", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbd_any(t, dims, ndims, keepdim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_any(t, dims, ndims, keepdim, dst, out);
}

static inline nb_status nbd_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cumsum", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_cumsum(t, dim, dtype, dst, out);
    return nbi_cumsum(t, dim, dtype, dst, out);
}

static nb_status nba_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "cumsum", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_cumsum(t, dim, dtype, dst, out);
    st = nbd_cumsum(ac.t[0], dim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_cumsum(t, dim, dtype, dst, out);
    return nbd_cumsum(t, dim, dtype, dst, out);
}

NB_API nb_status nb_cumsum(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cumsum", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_cumsum(t, dim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_cumsum(t, dim, dtype, dst, out);
}

static inline nb_status nbd_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cumprod", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_cumprod(t, dim, dtype, dst, out);
    return nbi_cumprod(t, dim, dtype, dst, out);
}

static nb_status nba_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "cumprod", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_cumprod(t, dim, dtype, dst, out);
    st = nbd_cumprod(ac.t[0], dim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_cumprod(t, dim, dtype, dst, out);
    return nbd_cumprod(t, dim, dtype, dst, out);
}

NB_API nb_status nb_cumprod(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cumprod", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_cumprod(t, dim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_cumprod(t, dim, dtype, dst, out);
}

static inline nb_status nbd_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("softmax", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_softmax(t, dim, dtype, dst, out);
    return nbi_softmax(t, dim, dtype, dst, out);
}

static nb_status nba_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "softmax", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_softmax(t, dim, dtype, dst, out);
    st = nbd_softmax(ac.t[0], dim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_softmax(t, dim, dtype, dst, out);
    return nbd_softmax(t, dim, dtype, dst, out);
}

NB_API nb_status nb_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("softmax", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_softmax(t, dim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_softmax(t, dim, dtype, dst, out);
}

static inline nb_status nbd_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log_softmax", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(t) || nb_ag_requires(dst))))
        return nb_agf_log_softmax(t, dim, dtype, dst, out);
    return nbi_log_softmax(t, dim, dtype, dst, out);
}

static nb_status nba_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "log_softmax", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){t}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_log_softmax(t, dim, dtype, dst, out);
    st = nbd_log_softmax(ac.t[0], dim, dtype, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_log_softmax(t, dim, dtype, dst, out);
    return nbd_log_softmax(t, dim, dtype, dst, out);
}

NB_API nb_status nb_log_softmax(const nb_tensor* t, int64_t dim, int32_t dtype, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log_softmax", (const nb_tensor* const[]){t}, 1);
        nb_status st = nbc_log_softmax(t, dim, dtype, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_log_softmax(t, dim, dtype, dst, out);
}

static inline nb_status nbd_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cat", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires_any(tensors, n) || nb_ag_requires(dst))))
        return nb_agf_cat(tensors, n, dim, dst, out);
    return nbi_cat(tensors, n, dim, dst, out);
}

static nb_status nba_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "cat", NB_AC_PROMOTE, NB_AC_PROMOTE, NULL, 0, tensors, n, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_cat(tensors, n, dim, dst, out);
    st = nbd_cat(ac.list, n, dim, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_cat(tensors, n, dim, dst, out);
    return nbd_cat(tensors, n, dim, dst, out);
}

NB_API nb_status nb_cat(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cat", tensors, n);
        nb_status st = nbc_cat(tensors, n, dim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_cat(tensors, n, dim, dst, out);
}

static inline nb_status nbd_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("stack", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires_any(tensors, n) || nb_ag_requires(dst))))
        return nb_agf_stack(tensors, n, dim, dst, out);
    return nbi_stack(tensors, n, dim, dst, out);
}

static nb_status nba_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "stack", NB_AC_PROMOTE, NB_AC_PROMOTE, NULL, 0, tensors, n, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_stack(tensors, n, dim, dst, out);
    st = nbd_stack(ac.list, n, dim, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_stack(tensors, n, dim, dst, out);
    return nbd_stack(tensors, n, dim, dst, out);
}

NB_API nb_status nb_stack(const nb_tensor* const* tensors, int32_t n, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("stack", tensors, n);
        nb_status st = nbc_stack(tensors, n, dim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_stack(tensors, n, dim, dst, out);
}

static inline nb_status nbd_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x))))
        return nb_agf_flip(x, dims, ndims, out);
    return nbi_flip(x, dims, ndims, out);
}

NB_API nb_status nb_flip(const nb_tensor* x, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("flip", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_flip(x, dims, ndims, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_flip(x, dims, ndims, out);
}

static inline nb_status nbd_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x))))
        return nb_agf_roll(x, shifts, nshifts, dims, ndims, out);
    return nbi_roll(x, shifts, nshifts, dims, ndims, out);
}

NB_API nb_status nb_roll(const nb_tensor* x, const int64_t* shifts, int32_t nshifts, const int64_t* dims, int32_t ndims, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("roll", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_roll(x, shifts, nshifts, dims, ndims, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_roll(x, shifts, nshifts, dims, ndims, out);
}

static inline nb_status nbd_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x))))
        return nb_agf_repeat(x, repeats, n, out);
    return nbi_repeat(x, repeats, n, out);
}

NB_API nb_status nb_repeat(const nb_tensor* x, const int64_t* repeats, int32_t n, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("repeat", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_repeat(x, repeats, n, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_repeat(x, repeats, n, out);
}

static inline nb_status nbd_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("tril", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_tril(x, diagonal, dst, out);
    return nbi_tril(x, diagonal, dst, out);
}

NB_API nb_status nb_tril(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tril", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_tril(x, diagonal, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_tril(x, diagonal, dst, out);
}

static inline nb_status nbd_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("triu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_triu(x, diagonal, dst, out);
    return nbi_triu(x, diagonal, dst, out);
}

NB_API nb_status nb_triu(const nb_tensor* x, int64_t diagonal, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("triu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_triu(x, diagonal, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_triu(x, diagonal, dst, out);
}

static inline nb_status nbd_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values, nb_tensor** indices) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x))))
        return nb_agf_sort(x, dim, descending, stable, values, indices);
    return nbi_sort(x, dim, descending, stable, values, indices);
}

NB_API nb_status nb_sort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** values, nb_tensor** indices) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sort", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_sort(x, dim, descending, stable, values, indices);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_sort(x, dim, descending, stable, values, indices);
}

static inline nb_status nbd_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out) {
    return nbi_argsort(x, dim, descending, stable, out);
}

NB_API nb_status nb_argsort(const nb_tensor* x, int64_t dim, int32_t descending, int32_t stable, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("argsort", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_argsort(x, dim, descending, stable, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_argsort(x, dim, descending, stable, out);
}

static inline nb_status nbd_searchsorted(const nb_tensor* sorted_sequence, const nb_tensor* values, int32_t right, int32_t out_int32, nb_tensor** out) {
    return nbi_searchsorted(sorted_sequence, values, right, out_int32, out);
}

NB_API nb_status nb_searchsorted(const nb_tensor* sorted_sequence, const nb_tensor* values, int32_t right, int32_t out_int32, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("searchsorted", (const nb_tensor* const[]){sorted_sequence, values}, 2);
        nb_status st = nbd_searchsorted(sorted_sequence, values, right, out_int32, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (out ? *out : NULL)));
        return st;
    }
    return nbd_searchsorted(sorted_sequence, values, right, out_int32, out);
}

static inline nb_status nbd_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted, nb_tensor** values, nb_tensor** indices) {
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x))))
        return nb_agf_topk(x, k, dim, largest, sorted, values, indices);
    return nbi_topk(x, k, dim, largest, sorted, values, indices);
}

NB_API nb_status nb_topk(const nb_tensor* x, int64_t k, int64_t dim, int32_t largest, int32_t sorted, nb_tensor** values, nb_tensor** indices) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("topk", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_topk(x, k, dim, largest, sorted, values, indices);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_topk(x, k, dim, largest, sorted, values, indices);
}

static inline nb_status nbd_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    return nbi_unique(x, sorted, values, inverse, counts);
}

NB_API nb_status nb_unique(const nb_tensor* x, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("unique", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_unique(x, sorted, values, inverse, counts);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_unique(x, sorted, values, inverse, counts);
}

static inline nb_status nbd_unique_dim(const nb_tensor* x, int64_t dim, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    return nbi_unique_dim(x, dim, sorted, values, inverse, counts);
}

NB_API nb_status nb_unique_dim(const nb_tensor* x, int64_t dim, int32_t sorted, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("unique_dim", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_unique_dim(x, dim, sorted, values, inverse, counts);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_unique_dim(x, dim, sorted, values, inverse, counts);
}

static inline nb_status nbd_unique_consecutive(const nb_tensor* x, int64_t dim, int32_t has_dim, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    return nbi_unique_consecutive(x, dim, has_dim, values, inverse, counts);
}

NB_API nb_status nb_unique_consecutive(const nb_tensor* x, int64_t dim, int32_t has_dim, nb_tensor** values, nb_tensor** inverse, nb_tensor** counts) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("unique_consecutive", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_unique_consecutive(x, dim, has_dim, values, inverse, counts);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : (values ? *values : NULL)));
        return st;
    }
    return nbd_unique_consecutive(x, dim, has_dim, values, inverse, counts);
}

static inline nb_status nbd_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("softmax_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(grad_output) || nb_ag_requires(output) || nb_ag_requires(dst))))
        return nb_agf_softmax_backward(grad_output, output, dim, dst, out);
    return nbi_softmax_backward(grad_output, output, dim, dst, out);
}

NB_API nb_status nb_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("softmax_backward", (const nb_tensor* const[]){grad_output, output}, 2);
        nb_status st = nbd_softmax_backward(grad_output, output, dim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_softmax_backward(grad_output, output, dim, dst, out);
}

static inline nb_status nbd_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log_softmax_backward", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(grad_output) || nb_ag_requires(output) || nb_ag_requires(dst))))
        return nb_agf_log_softmax_backward(grad_output, output, dim, dst, out);
    return nbi_log_softmax_backward(grad_output, output, dim, dst, out);
}

NB_API nb_status nb_log_softmax_backward(const nb_tensor* grad_output, const nb_tensor* output, int64_t dim, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log_softmax_backward", (const nb_tensor* const[]){grad_output, output}, 2);
        nb_status st = nbd_log_softmax_backward(grad_output, output, dim, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_log_softmax_backward(grad_output, output, dim, dst, out);
}

static inline nb_status nbd_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("exp", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_exp(x, dst, out);
    return nbi_exp(x, dst, out);
}

static nb_status nba_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "exp", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_exp(x, dst, out);
    st = nbd_exp(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_exp(x, dst, out);
    return nbd_exp(x, dst, out);
}

NB_API nb_status nb_exp(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("exp", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_exp(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_exp(x, dst, out);
}

static inline nb_status nbd_exp2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("exp2", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_exp2(x, dst, out);
    return nbi_exp2(x, dst, out);
}

NB_API nb_status nb_exp2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("exp2", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_exp2(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_exp2(x, dst, out);
}

static inline nb_status nbd_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("expm1", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_expm1(x, dst, out);
    return nbi_expm1(x, dst, out);
}

static nb_status nba_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "expm1", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_expm1(x, dst, out);
    st = nbd_expm1(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_expm1(x, dst, out);
    return nbd_expm1(x, dst, out);
}

NB_API nb_status nb_expm1(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("expm1", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_expm1(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_expm1(x, dst, out);
}

static inline nb_status nbd_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_log(x, dst, out);
    return nbi_log(x, dst, out);
}

static nb_status nba_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "log", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_log(x, dst, out);
    st = nbd_log(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_log(x, dst, out);
    return nbd_log(x, dst, out);
}

NB_API nb_status nb_log(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_log(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_log(x, dst, out);
}

static inline nb_status nbd_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log2", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_log2(x, dst, out);
    return nbi_log2(x, dst, out);
}

static nb_status nba_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "log2", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_log2(x, dst, out);
    st = nbd_log2(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_log2(x, dst, out);
    return nbd_log2(x, dst, out);
}

NB_API nb_status nb_log2(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log2", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_log2(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_log2(x, dst, out);
}

static inline nb_status nbd_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log10", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_log10(x, dst, out);
    return nbi_log10(x, dst, out);
}

static nb_status nba_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "log10", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_log10(x, dst, out);
    st = nbd_log10(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_log10(x, dst, out);
    return nbd_log10(x, dst, out);
}

NB_API nb_status nb_log10(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log10", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_log10(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_log10(x, dst, out);
}

static inline nb_status nbd_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("log1p", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_log1p(x, dst, out);
    return nbi_log1p(x, dst, out);
}

static nb_status nba_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "log1p", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_log1p(x, dst, out);
    st = nbd_log1p(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_log1p(x, dst, out);
    return nbd_log1p(x, dst, out);
}

NB_API nb_status nb_log1p(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("log1p", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_log1p(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_log1p(x, dst, out);
}

static inline nb_status nbd_sqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sqrt", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_sqrt(x, dst, out);
    return nbi_sqrt(x, dst, out);
}

NB_API nb_status nb_sqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sqrt", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_sqrt(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_sqrt(x, dst, out);
}

static inline nb_status nbd_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("rsqrt", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_rsqrt(x, dst, out);
    return nbi_rsqrt(x, dst, out);
}

static nb_status nba_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "rsqrt", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_rsqrt(x, dst, out);
    st = nbd_rsqrt(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_rsqrt(x, dst, out);
    return nbd_rsqrt(x, dst, out);
}

NB_API nb_status nb_rsqrt(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("rsqrt", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_rsqrt(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_rsqrt(x, dst, out);
}

static inline nb_status nbd_sin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sin", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_sin(x, dst, out);
    return nbi_sin(x, dst, out);
}

NB_API nb_status nb_sin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sin", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_sin(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_sin(x, dst, out);
}

static inline nb_status nbd_cos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cos", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_cos(x, dst, out);
    return nbi_cos(x, dst, out);
}

NB_API nb_status nb_cos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cos", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_cos(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_cos(x, dst, out);
}

static inline nb_status nbd_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("tan", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_tan(x, dst, out);
    return nbi_tan(x, dst, out);
}

static nb_status nba_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "tan", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_tan(x, dst, out);
    st = nbd_tan(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_tan(x, dst, out);
    return nbd_tan(x, dst, out);
}

NB_API nb_status nb_tan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tan", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_tan(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_tan(x, dst, out);
}

static inline nb_status nbd_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("asin", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_asin(x, dst, out);
    return nbi_asin(x, dst, out);
}

static nb_status nba_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "asin", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_asin(x, dst, out);
    st = nbd_asin(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_asin(x, dst, out);
    return nbd_asin(x, dst, out);
}

NB_API nb_status nb_asin(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("asin", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_asin(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_asin(x, dst, out);
}

static inline nb_status nbd_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("acos", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_acos(x, dst, out);
    return nbi_acos(x, dst, out);
}

static nb_status nba_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "acos", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_acos(x, dst, out);
    st = nbd_acos(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_acos(x, dst, out);
    return nbd_acos(x, dst, out);
}

NB_API nb_status nb_acos(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("acos", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_acos(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_acos(x, dst, out);
}

static inline nb_status nbd_atan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("atan", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_atan(x, dst, out);
    return nbi_atan(x, dst, out);
}

NB_API nb_status nb_atan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("atan", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_atan(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_atan(x, dst, out);
}

static inline nb_status nbd_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sinh", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_sinh(x, dst, out);
    return nbi_sinh(x, dst, out);
}

static nb_status nba_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "sinh", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_sinh(x, dst, out);
    st = nbd_sinh(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_sinh(x, dst, out);
    return nbd_sinh(x, dst, out);
}

NB_API nb_status nb_sinh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sinh", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_sinh(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_sinh(x, dst, out);
}

static inline nb_status nbd_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("cosh", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_cosh(x, dst, out);
    return nbi_cosh(x, dst, out);
}

static nb_status nba_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "cosh", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_cosh(x, dst, out);
    st = nbd_cosh(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_cosh(x, dst, out);
    return nbd_cosh(x, dst, out);
}

NB_API nb_status nb_cosh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("cosh", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_cosh(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_cosh(x, dst, out);
}

static inline nb_status nbd_tanh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("tanh", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_tanh(x, dst, out);
    return nbi_tanh(x, dst, out);
}

NB_API nb_status nb_tanh(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("tanh", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_tanh(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_tanh(x, dst, out);
}

static inline nb_status nbd_sigmoid(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sigmoid", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_sigmoid(x, dst, out);
    return nbi_sigmoid(x, dst, out);
}

NB_API nb_status nb_sigmoid(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sigmoid", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_sigmoid(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_sigmoid(x, dst, out);
}

static inline nb_status nbd_erf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("erf", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_erf(x, dst, out);
    return nbi_erf(x, dst, out);
}

NB_API nb_status nb_erf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("erf", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_erf(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_erf(x, dst, out);
}

static inline nb_status nbd_erfc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("erfc", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_erfc(x, dst, out);
    return nbi_erfc(x, dst, out);
}

NB_API nb_status nb_erfc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("erfc", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_erfc(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_erfc(x, dst, out);
}

static inline nb_status nbd_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("reciprocal", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_reciprocal(x, dst, out);
    return nbi_reciprocal(x, dst, out);
}

static nb_status nba_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "reciprocal", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_reciprocal(x, dst, out);
    st = nbd_reciprocal(ac.t[0], dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_reciprocal(x, dst, out);
    return nbd_reciprocal(x, dst, out);
}

NB_API nb_status nb_reciprocal(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("reciprocal", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_reciprocal(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_reciprocal(x, dst, out);
}

static inline nb_status nbd_silu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("silu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_silu(x, dst, out);
    return nbi_silu(x, dst, out);
}

NB_API nb_status nb_silu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("silu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_silu(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_silu(x, dst, out);
}

static inline nb_status nbd_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("gelu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_gelu(x, approximate_tanh, dst, out);
    return nbi_gelu(x, approximate_tanh, dst, out);
}

NB_API nb_status nb_gelu(const nb_tensor* x, int32_t approximate_tanh, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("gelu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_gelu(x, approximate_tanh, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_gelu(x, approximate_tanh, dst, out);
}

static inline nb_status nbd_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("leaky_relu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_leaky_relu(x, negative_slope, dst, out);
    return nbi_leaky_relu(x, negative_slope, dst, out);
}

NB_API nb_status nb_leaky_relu(const nb_tensor* x, double negative_slope, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("leaky_relu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_leaky_relu(x, negative_slope, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_leaky_relu(x, negative_slope, dst, out);
}

static inline nb_status nbd_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("elu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_elu(x, alpha, dst, out);
    return nbi_elu(x, alpha, dst, out);
}

NB_API nb_status nb_elu(const nb_tensor* x, double alpha, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("elu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_elu(x, alpha, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_elu(x, alpha, dst, out);
}

static inline nb_status nbd_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("softplus", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_softplus(x, beta, threshold, dst, out);
    return nbi_softplus(x, beta, threshold, dst, out);
}

static nb_status nba_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    nb_ac_frame ac;
    nb_status st = nb_ac_begin(&ac, "softplus", NB_AC_NONE, NB_AC_FP32, (const nb_tensor* const[]){x}, 1, NULL, 0, dst != NULL);
    if (st != NB_OK || !ac.active) return st != NB_OK ? st : nbd_softplus(x, beta, threshold, dst, out);
    st = nbd_softplus(ac.t[0], beta, threshold, dst, out);
    nb_ac_end(&ac);
    return st;
}

static inline nb_status nbc_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ac_mask != 0)) return nba_softplus(x, beta, threshold, dst, out);
    return nbd_softplus(x, beta, threshold, dst, out);
}

NB_API nb_status nb_softplus(const nb_tensor* x, double beta, double threshold, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("softplus", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbc_softplus(x, beta, threshold, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbc_softplus(x, beta, threshold, dst, out);
}

static inline nb_status nbd_neg(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("neg", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_neg(x, dst, out);
    return nbi_neg(x, dst, out);
}

NB_API nb_status nb_neg(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("neg", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_neg(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_neg(x, dst, out);
}

static inline nb_status nbd_abs(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("abs", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_abs(x, dst, out);
    return nbi_abs(x, dst, out);
}

NB_API nb_status nb_abs(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("abs", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_abs(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_abs(x, dst, out);
}

static inline nb_status nbd_sign(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("sign", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_sign(x, dst, out);
    return nbi_sign(x, dst, out);
}

NB_API nb_status nb_sign(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("sign", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_sign(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_sign(x, dst, out);
}

static inline nb_status nbd_relu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("relu", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_relu(x, dst, out);
    return nbi_relu(x, dst, out);
}

NB_API nb_status nb_relu(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("relu", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_relu(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_relu(x, dst, out);
}

static inline nb_status nbd_square(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("square", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_square(x, dst, out);
    return nbi_square(x, dst, out);
}

NB_API nb_status nb_square(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("square", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_square(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_square(x, dst, out);
}

static inline nb_status nbd_floor(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("floor", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_floor(x, dst, out);
    return nbi_floor(x, dst, out);
}

NB_API nb_status nb_floor(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("floor", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_floor(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_floor(x, dst, out);
}

static inline nb_status nbd_ceil(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("ceil", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_ceil(x, dst, out);
    return nbi_ceil(x, dst, out);
}

NB_API nb_status nb_ceil(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("ceil", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_ceil(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_ceil(x, dst, out);
}

static inline nb_status nbd_round(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("round", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_round(x, dst, out);
    return nbi_round(x, dst, out);
}

NB_API nb_status nb_round(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("round", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_round(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_round(x, dst, out);
}

static inline nb_status nbd_trunc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("trunc", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_trunc(x, dst, out);
    return nbi_trunc(x, dst, out);
}

NB_API nb_status nb_trunc(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("trunc", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_trunc(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_trunc(x, dst, out);
}

static inline nb_status nbd_bitwise_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("bitwise_not", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("bitwise_not");
    return nbi_bitwise_not(x, dst, out);
}

NB_API nb_status nb_bitwise_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("bitwise_not", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_bitwise_not(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_bitwise_not(x, dst, out);
}

static inline nb_status nbd_logical_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("logical_not", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("logical_not");
    return nbi_logical_not(x, dst, out);
}

NB_API nb_status nb_logical_not(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("logical_not", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_logical_not(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_logical_not(x, dst, out);
}

static inline nb_status nbd_isnan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("isnan", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("isnan");
    return nbi_isnan(x, dst, out);
}

NB_API nb_status nb_isnan(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("isnan", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_isnan(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_isnan(x, dst, out);
}

static inline nb_status nbd_isinf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("isinf", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("isinf");
    return nbi_isinf(x, dst, out);
}

NB_API nb_status nb_isinf(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("isinf", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_isinf(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_isinf(x, dst, out);
}

static inline nb_status nbd_isfinite(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("isfinite", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(dst))))
        return nb_ag_nondifferentiable_write("isfinite");
    return nbi_isfinite(x, dst, out);
}

NB_API nb_status nb_isfinite(const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("isfinite", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_isfinite(x, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_isfinite(x, dst, out);
}

static inline nb_status nbd_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("nan_to_num", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_nan_to_num(x, nan, posinf, neginf, dst, out);
    return nbi_nan_to_num(x, nan, posinf, neginf, dst, out);
}

NB_API nb_status nb_nan_to_num(const nb_tensor* x, double nan, double posinf, double neginf, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("nan_to_num", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_nan_to_num(x, nan, posinf, neginf, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_nan_to_num(x, nan, posinf, neginf, dst, out);
}

static inline nb_status nbd_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("clamp", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(x) || nb_ag_requires(dst))))
        return nb_agf_clamp(x, min, max, dst, out);
    return nbi_clamp(x, min, max, dst, out);
}

NB_API nb_status nb_clamp(const nb_tensor* x, double min, double max, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("clamp", (const nb_tensor* const[]){x}, 1);
        nb_status st = nbd_clamp(x, min, max, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_clamp(x, min, max, dst, out);
}

static inline nb_status nbd_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (NB_UNLIKELY(nb_ag_readonly(dst))) return nb_readonly_error("where", "dst");
    if (NB_UNLIKELY(!nb_ag_disabled && (nb_ag_requires(condition) || nb_ag_requires(a) || nb_ag_requires(b) || nb_ag_requires(dst))))
        return nb_agf_where(condition, a, b, dst, out);
    return nbi_where(condition, a, b, dst, out);
}

NB_API nb_status nb_where(const nb_tensor* condition, const nb_tensor* a, const nb_tensor* b, nb_tensor* dst, nb_tensor** out) {
    if (nb_prof_active()) {
        int64_t prof = nb_prof_op_begin("where", (const nb_tensor* const[]){condition, a, b}, 3);
        nb_status st = nbd_where(condition, a, b, dst, out);
        nb_prof_op_end(prof, st, (st != NB_OK ? NULL : dst ? dst : (out ? *out : NULL)));
        return st;
    }
    return nbd_where(condition, a, b, dst, out);
}
