/* saved_hooks.c: saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks).
 *
 * A thread-local stack of hook sets. While a set is on top, every tensor a node
 * saves goes through its pack function, and the slot keeps what pack returned
 * instead of the tensor; backward calls unpack each time it reads the slot, and
 * free_packed when the slot goes. A slot holds a reference to its set, so a set
 * outlives its pop for as long as a graph saved with it does. As in PyTorch, a
 * slot filled through hooks is not checked against in-place writes (the hooks
 * decide what is kept), and tensors saved while pack runs are not packed again. */
#include "autograd.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct nb_saved_hooks {
    atomic_int refcount;
    nb_saved_pack_fn pack;
    nb_saved_unpack_fn unpack;
    nb_saved_free_fn free_packed;
    void* payload;
    nb_deleter_fn destroy;
    nb_saved_hooks* below; /* the set under this one while it is pushed (the stack holds a reference to each) */
};

static _Thread_local nb_saved_hooks* top;
static _Thread_local bool packing;
static _Thread_local bool disabled;
static _Thread_local char disabled_message[512];

static void hooks_release(nb_saved_hooks* h) {
    if (h != NULL && atomic_fetch_sub_explicit(&h->refcount, 1, memory_order_acq_rel) == 1) {
        if (h->destroy != NULL) h->destroy(h->payload);
        free(h);
    }
}

NB_API nb_status nb_saved_tensors_hooks_push(nb_saved_pack_fn pack, nb_saved_unpack_fn unpack,
                                             nb_saved_free_fn free_packed, void* payload, nb_deleter_fn destroy) {
    if (pack == NULL || unpack == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "saved_tensors_hooks: pack and unpack must not be NULL");
    if (disabled) return nb_error(NB_ERR_AUTOGRAD, "%s", disabled_message);
    nb_saved_hooks* h = malloc(sizeof *h);
    if (h == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "saved_tensors_hooks: out of memory");
    atomic_init(&h->refcount, 1);
    h->pack = pack;
    h->unpack = unpack;
    h->free_packed = free_packed;
    h->payload = payload;
    h->destroy = destroy;
    h->below = top;
    top = h;
    return NB_OK;
}

NB_API nb_status nb_saved_tensors_hooks_pop(void) {
    if (top == NULL)
        return nb_error(NB_ERR_AUTOGRAD, "saved_tensors_hooks: pop without a matching push on this thread");
    nb_saved_hooks* h = top;
    top = h->below;
    hooks_release(h);
    return NB_OK;
}

NB_API nb_status nb_saved_tensors_hooks_disable(const char* message) {
    if (message == NULL) {
        disabled = false;
        return NB_OK;
    }
    if (top != NULL) return nb_error(NB_ERR_AUTOGRAD, "%s", message);
    snprintf(disabled_message, sizeof disabled_message, "%s", message);
    disabled = true;
    return NB_OK;
}

NB_API const char* nb_saved_tensors_hooks_disabled_message(void) { return disabled ? disabled_message : NULL; }

nb_status nb_saved_hooks_pack(nb_saved* s) {
    if (top == NULL || packing) return NB_OK;
    nb_saved_hooks* h = top;
    void* packed = NULL;
    packing = true;
    nb_status st = h->pack(h->payload, s->t, &packed);
    packing = false;
    if (st != NB_OK) return st;
    atomic_fetch_add_explicit(&h->refcount, 1, memory_order_relaxed);
    nb_tensor_release(s->t);
    s->t = NULL;
    s->hooks = h;
    s->packed = packed;
    return NB_OK;
}

nb_status nb_saved_hooks_unpack(const nb_saved* s, const char* node_name, nb_tensor** out) {
    nb_tensor* t = NULL;
    nb_status st = s->hooks->unpack(s->hooks->payload, s->packed, &t);
    if (st != NB_OK) {
        nb_tensor_release(t);
        return st;
    }
    if (t == NULL || t->magic != NB_TENSOR_MAGIC)
        return nb_bad_handle(node_name, "returned by the saved tensor unpack hook", t);
    *out = t;
    return NB_OK;
}

void nb_saved_hooks_free(nb_saved* s) {
    if (s->hooks == NULL) return;
    if (s->hooks->free_packed != NULL) s->hooks->free_packed(s->hooks->payload, s->packed);
    hooks_release(s->hooks);
    s->hooks = NULL;
    s->packed = NULL;
}
