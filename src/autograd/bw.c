/* bw.c: small expression helpers for backward formulas. Each runs one public op
 * (so, under create_graph, it is recorded too), keeps the result as a temporary
 * of the formula and returns NULL once any step has failed. */
#include "autograd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* legacy_type_name(int32_t dtype) {
    switch (dtype) {
        case NB_F32: return "FloatTensor";
        case NB_F64: return "DoubleTensor";
        case NB_F16: return "HalfTensor";
        case NB_BF16: return "BFloat16Tensor";
        default: return nb_dtype_str(dtype);
    }
}

nb_status bw_fail(nb_bw* b, nb_status st) {
    if (b->st == NB_OK && st != NB_OK) {
        b->st = st;
        snprintf(b->msg, sizeof b->msg, "%s", nb_last_error_message());
    }
    return b->st;
}

void bw_end(nb_bw* b) {
    for (int32_t i = 0; i < b->ntmp; i++) nb_tensor_release(b->tmp[i]);
    if (b->tmp != b->tmp_inline) free(b->tmp);
    b->tmp = b->tmp_inline;
    b->cap_tmp = NB_AG_INLINE_TMP;
    b->ntmp = 0;
}

/* Doubles the temporaries array (the first growth moves it off the inline one). */
static bool bw_grow(nb_bw* b) {
    if (b->cap_tmp > INT32_MAX / 2) return false;
    int32_t cap = b->cap_tmp * 2;
    nb_tensor** t = b->tmp == b->tmp_inline ? malloc((size_t)cap * sizeof *t)
                                            : realloc(b->tmp, (size_t)cap * sizeof *t);
    if (t == NULL) return false;
    if (b->tmp == b->tmp_inline) memcpy(t, b->tmp_inline, (size_t)b->ntmp * sizeof *t);
    b->tmp = t;
    b->cap_tmp = cap;
    return true;
}

nb_tensor* bw_keep(nb_bw* b, nb_status st, nb_tensor* t) {
    if (st == NB_OK && b->ntmp >= b->cap_tmp && !bw_grow(b))
        st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory keeping %d backward temporaries", b->node->name,
                      (int)b->ntmp + 1);
    if (st != NB_OK) {
        bw_fail(b, st);
        nb_tensor_release(t);
        return NULL;
    }
    b->tmp[b->ntmp++] = t;
    return t;
}

void bw_set(nb_bw* b, int32_t i, nb_tensor* t) {
    if (b->st != NB_OK || t == NULL) return;
    nb_tensor_retain(t);
    nb_tensor_release(b->gi[i]);
    b->gi[i] = t;
}

/* The tensor behind a slot filled through saved-tensor hooks: what unpack returns, kept
 * until the formula returns; under create_graph, with the slot's history attached. */
static nb_tensor* saved_unpacked(nb_bw* b, const nb_saved* s) {
    nb_tensor* t = NULL;
    nb_status st = nb_saved_hooks_unpack(s, b->node->name, &t);
    if (st != NB_OK) {
        bw_fail(b, st);
        return NULL;
    }
    nb_node* fn = s->output_nr >= 0 ? b->node : s->grad_fn;
    if (fn == NULL || nb_ag_disabled) return bw_keep(b, NB_OK, t);
    nb_tensor* alias = NULL;
    st = nb_tensor_detach(t, &alias);
    nb_tensor_release(t);
    if (st == NB_OK && nb_ag_meta_get(alias) == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "backward: out of memory");
    if (st == NB_OK) {
        nb_node_retain(fn);
        alias->ag->grad_fn = fn;
        alias->ag->output_nr = s->output_nr >= 0 ? s->output_nr : s->grad_fn_nr;
    }
    return bw_keep(b, st, alias);
}

nb_tensor* bw_saved(nb_bw* b, int32_t slot) {
    if (b->st != NB_OK) return NULL;
    nb_node* n = b->node;
    nb_saved* s = &n->saved[slot];
    if (n->released || !nb_saved_present(s)) { /* the engine refuses released nodes first; a slot never filled lands here */
        bw_fail(b, nb_ag_freed_error());
        return NULL;
    }
    if (s->hooks != NULL) return saved_unpacked(b, s);
    int64_t now = atomic_load_explicit(&s->t->storage->version, memory_order_relaxed);
    if (now != s->version) {
        char which[160] = "";
        if (s->output_nr >= 0)
            snprintf(which, sizeof which, ", which is output %d of %s,", (int)s->output_nr, n->name);
        else if (s->grad_fn != NULL && s->grad_fn->name != nb_ag_leaf_accumulate_name)
            snprintf(which, sizeof which, ", which was output %d of %s when saved,", (int)s->grad_fn_nr,
                     s->grad_fn->name);
        bw_fail(b, nb_error(NB_ERR_AUTOGRAD, "one of the variables needed for gradient computation has been "
                            "modified by an inplace operation: [nabla.%s %s]%s is at version %lld; expected version "
                            "%lld instead. Hint: the backward of %s needs it unchanged; avoid the in-place operation "
                            "or clone() the tensor first.", legacy_type_name(s->t->dtype),
                            nb_shape_str(s->t->shape, s->t->ndim), which, (long long)now, (long long)s->version,
                            n->name));
        return NULL;
    }
    nb_node* fn = s->output_nr >= 0 ? n : s->grad_fn;
    if (fn == NULL || nb_ag_disabled) return s->t;
    /* create_graph: the saved tensor must carry its history (an output's is this node). */
    nb_tensor* alias = NULL;
    nb_status st = nb_tensor_detach(s->t, &alias);
    if (st == NB_OK && nb_ag_meta_get(alias) == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "backward: out of memory");
    if (st == NB_OK) {
        alias->wrapped_number = s->t->wrapped_number;
        nb_node_retain(fn);
        alias->ag->grad_fn = fn;
        alias->ag->output_nr = s->output_nr >= 0 ? s->output_nr : s->grad_fn_nr;
    }
    return bw_keep(b, st, alias);
}

nb_tensor* bw_scalar(nb_bw* b, double v) { return BW_OP(b, nb_scalar(v, (int64_t)v, NB_F64, &bw_r_)); }

nb_tensor* bw_add(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_add(x, y, 1.0, NULL, &bw_r_));
}
nb_tensor* bw_sub(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_sub(x, y, 1.0, NULL, &bw_r_));
}
nb_tensor* bw_mul(nb_bw* b, const nb_tensor* x, const nb_tensor* y) { return BW_OP(b, nb_mul(x, y, NULL, &bw_r_)); }
nb_tensor* bw_div(nb_bw* b, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_div(x, y, NB_ROUND_NONE, NULL, &bw_r_));
}
nb_tensor* bw_muls(nb_bw* b, const nb_tensor* x, double s) { return bw_mul(b, x, bw_scalar(b, s)); }
nb_tensor* bw_adds(nb_bw* b, const nb_tensor* x, double s) { return bw_add(b, x, bw_scalar(b, s)); }
nb_tensor* bw_rsubs(nb_bw* b, double s, const nb_tensor* x) { return bw_sub(b, bw_scalar(b, s), x); }
nb_tensor* bw_neg(nb_bw* b, const nb_tensor* x) { return BW_OP(b, nb_neg(x, NULL, &bw_r_)); }

nb_tensor* bw_unary(nb_bw* b, nb_status (*fn)(const nb_tensor*, nb_tensor*, nb_tensor**), const nb_tensor* x) {
    return BW_OP(b, fn(x, NULL, &bw_r_));
}

nb_tensor* bw_where(nb_bw* b, const nb_tensor* c, const nb_tensor* x, const nb_tensor* y) {
    return BW_OP(b, nb_where(c, x, y, NULL, &bw_r_));
}

nb_tensor* bw_zeros_like_meta(nb_bw* b, const nb_tensor_meta* m) {
    return BW_OP(b, nb_zeros(m->shape, m->ndim, m->dtype, m->device_type, m->device_index, &bw_r_));
}

nb_tensor* bw_zeros_like(nb_bw* b, const nb_tensor* t) {
    if (b->st != NB_OK) return NULL;
    nb_tensor_meta m;
    nb_tensor_meta_of(t, &m);
    return bw_zeros_like_meta(b, &m);
}

nb_tensor* bw_sum(nb_bw* b, const nb_tensor* x, const int64_t* dims, int32_t ndims, int32_t keepdim) {
    return BW_OP(b, nb_sum(x, dims, ndims, keepdim, -1, NULL, &bw_r_));
}

nb_tensor* bw_reshape(nb_bw* b, const nb_tensor* x, const int64_t* shape, int32_t ndim) {
    return BW_OP(b, nb_tensor_reshape(x, shape, ndim, &bw_r_));
}

nb_tensor* bw_expand(nb_bw* b, const nb_tensor* x, const int64_t* shape, int32_t ndim) {
    return BW_OP(b, nb_tensor_expand(x, shape, ndim, &bw_r_));
}

nb_tensor* bw_cmp_gt0(nb_bw* b, const nb_tensor* x) { return BW_OP(b, nb_gt(x, bw_scalar(b, 0.0), NULL, &bw_r_)); }
