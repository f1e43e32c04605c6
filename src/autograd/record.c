/* record.c: what a forward formula calls to put its op into the graph — checks on
 * the write target, the node with its edges, saved tensors, attaching outputs. */
#include "autograd.h"
#include "../alloc/cpu_allocator.h"

#include <stddef.h>
#include <stdlib.h>

nb_status nb_ag_nondifferentiable_write(const char* op) {
    return nb_error(NB_ERR_AUTOGRAD, "%s: the operation is not differentiable, so it cannot write into a tensor "
                    "that requires grad (use it under no_grad, or on a detached tensor)", op);
}

static nb_status check_dst(nb_ag_rec* r, int32_t n_inputs, const nb_tensor* const* inputs) {
    nb_tensor* dst = r->dst;
    for (int32_t i = n_inputs - 1; i >= 0; i--)
        if (inputs[i] == dst) r->inplace = true, r->dst_input = i;
    if (!r->inplace)
        return nb_error(NB_ERR_AUTOGRAD, "%s(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad.", r->op);
    nb_ag_meta* m = dst->ag;
    if (m == NULL) return NB_OK;
    if (m->grad_fn == NULL && m->requires_grad)
        return nb_error(NB_ERR_AUTOGRAD, "%s: a leaf Variable that requires grad is being used in an in-place "
                        "operation.", r->op);
    return NB_OK;
}

/* In place through a view: the base's history will be rebased (see copy_slices.c).
 * PyTorch's rule: a view that requires grad may not be written when its base is a
 * leaf, whether or not the base requires grad (the view may be of a leaf view that
 * was marked requires_grad itself; rebasing it would put that leaf in a cycle). */
static nb_status check_view_dst(nb_ag_rec* r) {
    nb_tensor* base = r->dst->base;
    const bool base_is_leaf = base->ag == NULL || base->ag->grad_fn == NULL;
    if (base_is_leaf && ((base->ag != NULL && base->ag->requires_grad) || nb_ag_requires(r->dst)))
        return nb_error(NB_ERR_AUTOGRAD, "%s: a view of a leaf Variable that requires grad is being used in an "
                        "in-place operation.", r->op);
    if (!base->contiguous)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: in-place operation on a view of a non-contiguous tensor "
                        "(strides %s) that takes part in autograd; call .contiguous() on the base first", r->op,
                        nb_shape_str(base->strides, base->ndim));
    r->copy_slices = true;
    return NB_OK;
}

nb_status nb_ag_begin(nb_ag_rec* r, const char* op, const char* node_name, nb_backward_fn fn, nb_tensor* dst,
                      int32_t n_inputs, const nb_tensor* const* inputs, int32_t n_outputs) {
    r->op = op;
    r->dst = dst;
    r->node = NULL;
    r->inplace = false;
    r->dst_input = -1;
    r->copy_slices = false;
    if (dst != NULL && nb_tensor_ok(dst)) {
        nb_status st = check_dst(r, n_inputs, inputs);
        if (st == NB_OK && dst->base != NULL) st = check_view_dst(r);
        if (st != NB_OK) return st;
    }
    nb_node* n = nb_node_new(node_name, fn, n_inputs, n_outputs);
    if (n == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a graph node", op);
    for (int32_t i = 0; i < n_inputs; i++) {
        nb_tensor* t = (nb_tensor*)inputs[i];
        if (!nb_ag_requires(t)) continue;
        nb_status st = nb_ag_gradient_edge(t, &n->next[i]);
        if (st != NB_OK) {
            nb_node_release(n);
            return st;
        }
        nb_tensor_meta_of(t, &n->in_meta[i]);
    }
    r->node = n;
    nb_ag_disabled = true; /* the forward computation itself is not recorded */
    return NB_OK;
}

bool nb_ag_needs(const nb_ag_rec* r, int32_t input) { return r->node->next[input].node != NULL; }

static nb_status save(nb_node* n, int32_t slot, nb_tensor* t, int32_t output_nr, nb_edge fn) {
    nb_saved* s = &n->saved[slot];
    s->t = t;
    s->version = atomic_load_explicit(&t->storage->version, memory_order_relaxed);
    s->output_nr = output_nr;
    s->grad_fn = fn.node;
    s->grad_fn_nr = fn.input_nr;
    if (slot >= n->n_saved) n->n_saved = slot + 1;
    return nb_saved_hooks_pack(s); /* on failure the slot keeps t, released with the node */
}

/* A new alias of t's data without history: t's metadata as is (it is valid already,
 * so nb_tensor_detach's checks are skipped), its storage and version counter. */
static nb_tensor* alias_new(const nb_tensor* t) {
    nb_tensor* a = nb_cpu_alloc(sizeof *a);
    if (a == NULL) return NULL;
    memcpy(a, t, offsetof(nb_tensor, shape));
    atomic_init(&a->refcount, 1);
    for (int32_t i = 0; i < t->ndim; i++) {
        a->shape[i] = t->shape[i];
        a->strides[i] = t->strides[i];
    }
    a->ag = NULL;
    a->base = NULL;
    atomic_fetch_add_explicit(&t->storage->refcount, 1, memory_order_relaxed);
    nb_count_live(NB_LIVE_TENSOR, 1);
    return a; /* wrapped_number comes along: it promotes the same way in backward */
}

static bool alias_matches(const nb_tensor* a, const nb_tensor* t) {
    if (a->storage != t->storage || a->offset != t->offset || a->dtype != t->dtype || a->ndim != t->ndim ||
        a->wrapped_number != t->wrapped_number)
        return false;
    for (int32_t i = 0; i < t->ndim; i++)
        if (a->shape[i] != t->shape[i] || a->strides[i] != t->strides[i]) return false;
    return true;
}

/* The data of t without its history (see nb_saved), as a new reference. A tensor
 * with autograd state keeps one alias that every node saving it shares: saving is
 * then a retain. The alias is set once (atomically, as two threads may save the same
 * tensor); after an in-place metadata change (resize_, squeeze_, set_) it no longer
 * matches and each save makes its own. */
static nb_status data_alias(const nb_tensor* t, nb_ag_meta* m, nb_tensor** out) {
    nb_tensor* a = m != NULL ? atomic_load_explicit(&m->data, memory_order_acquire) : NULL;
    if (a != NULL && alias_matches(a, t)) {
        atomic_fetch_add_explicit(&a->refcount, 1, memory_order_relaxed);
        *out = a;
        return NB_OK;
    }
    nb_tensor* fresh = alias_new(t);
    if (fresh == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd: out of memory saving a tensor for backward");
    nb_tensor* none = NULL;
    if (m != NULL && a == NULL &&
        atomic_compare_exchange_strong_explicit(&m->data, &none, fresh, memory_order_acq_rel, memory_order_acquire))
        atomic_fetch_add_explicit(&fresh->refcount, 1, memory_order_relaxed); /* the meta's reference */
    *out = fresh;
    return NB_OK;
}

nb_status nb_ag_save_input(nb_ag_rec* r, int32_t slot, const nb_tensor* t) {
    if (t == NULL) return NB_OK;
    nb_tensor* keep = (nb_tensor*)t;
    nb_edge fn = {NULL, 0};
    nb_status st = NB_OK;
    if (r->dst != NULL && r->dst->storage == t->storage) {
        /* The op is about to overwrite it: keep the value as it was. */
        st = nbi_tensor_clone(t, &keep);
    } else {
        /* The data and, for create_graph, the edge the tensor's gradient takes: its
         * grad_fn, or a leaf's accumulator (holding the leaf itself would make a cycle
         * once it takes a history in place after requires_grad_(False)). No autograd
         * state (plain data): no alias is cached, as making the state would write to a
         * tensor other threads may be reading. */
        if (nb_ag_requires(t)) st = nb_ag_gradient_edge(keep, &fn);
        if (st == NB_OK) st = data_alias(t, t->ag, &keep);
        if (st != NB_OK) nb_node_release(fn.node);
    }
    if (st != NB_OK) return st;
    return save(r->node, slot, keep, -1, fn);
}

nb_status nb_ag_save_output(nb_ag_rec* r, int32_t slot, const nb_tensor* t, int32_t output_nr) {
    /* The output's history is this node: bw_saved reattaches it under create_graph.
     * A floating output gets autograd state from nb_ag_end anyway, so it is made now
     * to hold the shared alias (the output is this thread's alone). */
    nb_tensor* alias;
    nb_ag_meta* m = nb_dtype_is_floating(t->dtype) ? nb_ag_meta_get((nb_tensor*)t) : t->ag;
    nb_status st = data_alias(t, m, &alias);
    if (st != NB_OK) return st;
    return save(r->node, slot, alias, output_nr, (nb_edge){NULL, 0});
}

void nb_ag_mark_view(nb_tensor* view) {
    if (view != NULL && view->ag != NULL) {
        view->ag->is_view = true;
        view->ag->view_version = atomic_load_explicit(&view->storage->version, memory_order_relaxed);
    }
}

nb_status nb_ag_attach(nb_node* n, nb_tensor* t, int32_t output_nr) {
    nb_ag_meta* m = nb_ag_meta_get(t);
    if (m == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd: out of memory");
    if (m->grad_fn == NULL) nb_ag_leaf_moved(m);
    nb_node_retain(n);
    nb_node_release(m->grad_fn); /* in place: the old history is this node's input now */
    m->grad_fn = n;
    m->output_nr = output_nr;
    m->requires_grad = false;
    if (m->retained != NULL) { /* retain_grad referred to the old value */
        if (atomic_fetch_sub(&m->retained->refcount, 1) == 1) {
            nb_tensor_release(m->retained->grad);
            free(m->retained);
        }
        m->retained = NULL;
    }
    nb_tensor_meta_of(t, &n->out_meta[output_nr]);
    return NB_OK;
}

nb_status nb_ag_end(nb_ag_rec* r, nb_status st, nb_tensor* const* outputs, int32_t n_outputs) {
    nb_ag_disabled = false;
    nb_node* n = r->node;
    r->node = NULL;
    for (int32_t k = 0; st == NB_OK && k < n_outputs; k++) {
        nb_tensor* t = outputs[k];
        if (t == NULL) continue;
        if (r->copy_slices && t == r->dst) st = nb_ag_copy_slices(n, r->dst_input, t);
        else if (nb_dtype_is_floating(t->dtype)) st = nb_ag_attach(n, t, k);
        else nb_tensor_meta_of(t, &n->out_meta[k]);
    }
    nb_node_release(n);
    return st;
}

nb_status nb_ag_finish(nb_ag_rec* r, nb_status st, nb_tensor* const* results, nb_tensor** const* outs,
                       int32_t n) {
    st = nb_ag_end(r, st, results, n);
    for (int32_t k = 0; k < n; k++) {
        if (st == NB_OK && outs[k] != NULL) *outs[k] = results[k];
        else nb_tensor_release(results[k]);
    }
    return st;
}
