/* node.c: graph nodes — creation, reference counting (iterative release, so a
 * long chain never recurses), gradient edges and leaf accumulators. */
#include "autograd.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static atomic_uint_fast64_t next_seq;

nb_node* nb_node_new(const char* name, nb_backward_fn fn, int32_t n_inputs, int32_t n_outputs) {
    size_t size = sizeof(nb_node) + sizeof(nb_edge) * (size_t)n_inputs +
                  sizeof(nb_tensor_meta) * (size_t)(n_inputs + n_outputs);
    nb_node* n = calloc(1, size);
    if (n == NULL) return NULL;
    atomic_init(&n->refcount, 1);
    n->name = name;
    n->backward = fn;
    n->seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
    n->n_inputs = n_inputs;
    n->n_outputs = n_outputs;
    n->next = (nb_edge*)(n + 1);
    n->in_meta = (nb_tensor_meta*)(n->next + n_inputs);
    n->out_meta = n->in_meta + n_inputs;
    return n;
}

NB_API void nb_node_retain(nb_node* n) {
    if (n != NULL) atomic_fetch_add_explicit(&n->refcount, 1, memory_order_relaxed);
}

/* Nodes whose last reference went, waiting to be destroyed by the outermost release. */
static _Thread_local nb_node* pending;
static _Thread_local bool draining;
static pthread_mutex_t leaf_lock = PTHREAD_MUTEX_INITIALIZER;

void nb_node_release_saved(nb_node* n) {
    bool had = false;
    for (int32_t i = 0; i < n->n_saved; i++) {
        had |= nb_saved_present(&n->saved[i]);
        nb_saved_hooks_free(&n->saved[i]);
        nb_tensor_release(n->saved[i].t);
        n->saved[i].t = NULL;
        nb_node_release(n->saved[i].grad_fn);
        n->saved[i].grad_fn = NULL;
    }
    if (n->inner != NULL) {
        nb_node_release_saved(n->inner);
        had |= n->inner->released;
    }
    n->released |= had; /* a node that saved nothing may run again, as in PyTorch */
}

nb_status nb_ag_freed_error(void) {
    return nb_error(NB_ERR_AUTOGRAD, "Trying to backward through the graph a second time (or directly access saved "
                    "tensors after they have already been freed). Saved intermediate values of the graph are freed "
                    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                    "through the graph a second time or if you need to access saved tensors after calling backward.");
}

static void destroy(nb_node* n) {
    if (n->leaf != NULL) {
        pthread_mutex_lock(&leaf_lock);
        if (n->leaf->ag != NULL && n->leaf->ag->grad_acc == n) n->leaf->ag->grad_acc = NULL;
        pthread_mutex_unlock(&leaf_lock);
        nb_tensor_release(n->leaf);
    }
    nb_node_release_saved(n);
    nb_node_release(n->inner);
    nb_hooks_free(n->hooks);
    if (n->extra_free != NULL) n->extra_free(n->extra);
    for (int32_t i = 0; i < n->n_inputs; i++) nb_node_release(n->next[i].node);
    free(n);
}

NB_API void nb_node_release(nb_node* n) {
    if (n == NULL || atomic_fetch_sub_explicit(&n->refcount, 1, memory_order_acq_rel) != 1) return;
    n->pending_next = pending;
    pending = n;
    if (draining) return;
    draining = true;
    while (pending != NULL) {
        nb_node* m = pending;
        pending = m->pending_next;
        destroy(m);
    }
    draining = false;
}

NB_API const char* nb_node_name(const nb_node* n) { return n != NULL ? n->name : NULL; }
NB_API int32_t nb_node_num_next(const nb_node* n) { return n != NULL ? n->n_inputs : -1; }

NB_API nb_status nb_node_next(const nb_node* n, int32_t i, nb_node** next, int32_t* input_nr) {
    if (n == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "nb_node_next: node is NULL");
    if (i < 0 || i >= n->n_inputs)
        return nb_error(NB_ERR_INDEX, "nb_node_next: index %d out of range for %s with %d inputs", (int)i, n->name,
                        (int)n->n_inputs);
    NB_CHECK_OUT("nb_node_next", next);
    nb_node_retain(n->next[i].node);
    *next = n->next[i].node;
    if (input_nr != NULL) *input_nr = n->next[i].input_nr;
    return NB_OK;
}

void nb_tensor_meta_of(const nb_tensor* t, nb_tensor_meta* m) {
    m->ndim = t->ndim;
    m->dtype = t->dtype;
    m->device_type = t->storage->device_type;
    m->device_index = t->storage->device_index;
    memcpy(m->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
}

/* Takes a reference unless the count already reached zero (the node is being destroyed). */
static bool retain_if_alive(nb_node* n) {
    int_fast64_t cur = atomic_load(&n->refcount);
    while (cur > 0)
        if (atomic_compare_exchange_weak(&n->refcount, &cur, cur + 1)) return true;
    return false;
}

const char* nb_ag_leaf_accumulate_name = "AccumulateGrad";
NB_INTERNAL nb_status nb_ag_accumulate_backward(nb_bw* b); /* engine.c */

/* A leaf that takes a history in place (its requires_grad was switched off first)
 * is no leaf any more: its accumulator lets go of it, or the tensor would hold its
 * own accumulator through that history — a cycle. Backward into the old accumulator
 * then fails as in PyTorch ("moved into the graph interior"). */
void nb_ag_leaf_moved(nb_ag_meta* m) {
    pthread_mutex_lock(&leaf_lock);
    nb_node* acc = m->grad_acc;
    nb_tensor* leaf = NULL;
    if (acc != NULL) {
        m->grad_acc = NULL;
        leaf = acc->leaf;
        acc->leaf = NULL;
    }
    pthread_mutex_unlock(&leaf_lock);
    nb_tensor_release(leaf); /* the caller holds its own reference */
}

nb_tensor* nb_ag_accumulator_leaf(nb_node* acc) {
    pthread_mutex_lock(&leaf_lock);
    nb_tensor* leaf = acc->leaf;
    nb_tensor_retain(leaf);
    pthread_mutex_unlock(&leaf_lock);
    return leaf;
}

nb_status nb_ag_gradient_edge(nb_tensor* t, nb_edge* out) {
    nb_ag_meta* m = t->ag;
    if (m->is_view && t->base != NULL &&
        m->view_version != atomic_load_explicit(&t->storage->version, memory_order_relaxed)) {
        nb_status st = nb_ag_view_refresh(t); /* the base was written since: follow its history */
        if (st != NB_OK) return st;
    }
    if (m->grad_fn != NULL) {
        nb_node_retain(m->grad_fn);
        out->node = m->grad_fn;
        out->input_nr = m->output_nr;
        return NB_OK;
    }
    /* A leaf: its accumulator lives as long as some graph uses it (the tensor only
     * points to it weakly, the node holds the tensor). */
    pthread_mutex_lock(&leaf_lock);
    nb_node* acc = m->grad_acc;
    if (acc != NULL && !retain_if_alive(acc)) acc = NULL;
    if (acc == NULL) {
        acc = nb_node_new(nb_ag_leaf_accumulate_name, nb_ag_accumulate_backward, 0, 1);
        if (acc != NULL) {
            nb_tensor_retain(t);
            acc->leaf = t;
            nb_tensor_meta_of(t, &acc->out_meta[0]);
            acc->seq = UINT64_MAX; /* accumulate as soon as the gradient is complete */
            m->grad_acc = acc;
        }
    }
    pthread_mutex_unlock(&leaf_lock);
    if (acc == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd: out of memory for a graph node");
    out->node = acc;
    out->input_nr = 0;
    return NB_OK;
}
