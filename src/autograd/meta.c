/* meta.c: per-thread grad mode and per-tensor autograd state (requires_grad,
 * .grad, retain_grad, detach, hooks), and the ABI that reads and writes them. */
#include "autograd.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Thread_local bool nb_ag_disabled;
static _Thread_local bool grad_off;   /* no_grad */
static _Thread_local bool inference;  /* inference_mode */
static atomic_bool anomaly;

static void update_disabled(void) { nb_ag_disabled = grad_off || inference; }

NB_API int32_t nb_grad_enabled(void) { return !nb_ag_disabled; }
NB_API int32_t nb_set_grad_enabled(int32_t enabled) {
    int32_t prev = !grad_off;
    grad_off = !enabled;
    update_disabled();
    return prev;
}
NB_API int32_t nb_inference_mode_enabled(void) { return inference; }
NB_API int32_t nb_set_inference_mode(int32_t enabled) {
    int32_t prev = inference;
    inference = enabled != 0;
    update_disabled();
    return prev;
}
NB_API int32_t nb_anomaly_mode_enabled(void) { return atomic_load(&anomaly); }
NB_API int32_t nb_set_anomaly_mode(int32_t enabled) { return atomic_exchange(&anomaly, enabled != 0); }

NB_API nb_status nb_set_error(int32_t status, const char* message) {
    return nb_error(status, "%s", message != NULL ? message : "(no message)");
}

nb_ag_meta* nb_ag_meta_get(nb_tensor* t) {
    if (t->ag == NULL) t->ag = calloc(1, sizeof(nb_ag_meta));
    return t->ag;
}

void nb_hooks_free(nb_hook* h) {
    while (h != NULL) {
        nb_hook* next = h->next;
        if (h->destroy != NULL) h->destroy(h->payload);
        if (h->retain != NULL && atomic_fetch_sub(&h->retain->refcount, 1) == 1) {
            nb_tensor_release(h->retain->grad);
            free(h->retain);
        }
        free(h);
        h = next;
    }
}

static void slot_release(nb_grad_slot* s) {
    if (s != NULL && atomic_fetch_sub(&s->refcount, 1) == 1) {
        nb_tensor_release(s->grad);
        free(s);
    }
}

void nb_ag_meta_free(nb_ag_meta* m) {
    nb_tensor_release(m->grad);
    slot_release(m->retained);
    nb_hooks_free(m->hooks);
    nb_node_release(m->grad_fn);
    nb_tensor_release(atomic_load_explicit(&m->data, memory_order_relaxed));
    free(m);
}

#define CHECK_T(op, t) NB_CHECK_TENSOR(op, t)

NB_API int32_t nb_tensor_requires_grad(const nb_tensor* t) {
    if (!nb_tensor_ok(t)) { nb_bad_handle("nb_tensor_requires_grad", "t", t); return -1; }
    return nb_ag_requires(t);
}

NB_API int32_t nb_tensor_is_leaf(const nb_tensor* t) {
    if (!nb_tensor_ok(t)) { nb_bad_handle("nb_tensor_is_leaf", "t", t); return -1; }
    return t->ag == NULL || t->ag->grad_fn == NULL;
}

NB_API nb_status nb_tensor_set_requires_grad(nb_tensor* t, int32_t requires_grad) {
    CHECK_T("requires_grad_", t);
    if (t->ag != NULL && t->ag->grad_fn != NULL) {
        if (requires_grad) return NB_OK;
        return nb_error(NB_ERR_AUTOGRAD, "requires_grad_: you can only change requires_grad flags of leaf variables. "
                        "If you want to use a computed variable in a subgraph that doesn't require differentiation "
                        "use var_no_grad = var.detach().");
    }
    if (requires_grad && !nb_dtype_is_floating(t->dtype))
        return nb_error(NB_ERR_DTYPE, "requires_grad_: only Tensors of floating point and complex dtype can require "
                        "gradients (got %s)", nb_dtype_str(t->dtype));
    if (!requires_grad && t->ag == NULL) return NB_OK;
    nb_ag_meta* m = nb_ag_meta_get(t);
    if (m == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "requires_grad_: out of memory");
    m->requires_grad = requires_grad != 0;
    if (requires_grad && t->base != NULL) {
        /* A leaf view is a leaf of its own: its accumulator holds it, and were it to hold its base
         * too, the cycle would close once the base's history comes to pass through that
         * accumulator (base[2:].copy_(v * 3) gives base a CopySlices over v's AccumulateGrad).
         * PyTorch moves such a leaf into the graph interior and fails in backward; it stays a leaf. */
        nb_tensor_release(t->base);
        t->base = NULL;
        m->is_view = false;
    }
    return NB_OK;
}

NB_API nb_status nb_tensor_get_grad(const nb_tensor* t, nb_tensor** grad) {
    CHECK_T("grad", t);
    NB_CHECK_OUT("grad", grad);
    nb_tensor* g = NULL;
    if (t->ag != NULL) g = t->ag->grad_fn == NULL ? t->ag->grad : t->ag->retained ? t->ag->retained->grad : NULL;
    nb_tensor_retain(g);
    *grad = g;
    return NB_OK;
}

NB_API nb_status nb_tensor_set_grad(nb_tensor* t, const nb_tensor* grad) {
    CHECK_T("grad", t);
    if (grad != NULL) {
        NB_CHECK_TENSOR("grad", grad);
        if (grad->storage->device_type != t->storage->device_type ||
            grad->storage->device_index != t->storage->device_index)
            return nb_error(NB_ERR_DEVICE, "assigned grad has data located on a different device (%s:%d) than the "
                            "tensor (%s:%d)", nb_device_type_name(grad->storage->device_type),
                            (int)grad->storage->device_index, nb_device_type_name(t->storage->device_type),
                            (int)t->storage->device_index);
        if (grad->dtype != t->dtype)
            return nb_error(NB_ERR_DTYPE, "assigned grad has data of a different type (%s) than the tensor (%s)",
                            nb_dtype_str(grad->dtype), nb_dtype_str(t->dtype));
        if (grad->ndim != t->ndim || memcmp(grad->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim) != 0)
            return nb_error(NB_ERR_SHAPE, "assigned grad has data of a different size: %s, expected %s",
                            nb_shape_str(grad->shape, grad->ndim), nb_shape_str(t->shape, t->ndim));
    } else if (t->ag == NULL) {
        return NB_OK;
    }
    nb_ag_meta* m = nb_ag_meta_get(t);
    if (m == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "grad: out of memory");
    nb_tensor_retain((nb_tensor*)grad);
    if (m->grad_fn != NULL) {
        if (m->retained == NULL) {
            nb_tensor_release((nb_tensor*)grad);
            return grad == NULL ? NB_OK : nb_error(NB_ERR_AUTOGRAD, "grad: assigning .grad of a non-leaf tensor "
                                                   "requires retain_grad() first");
        }
        nb_tensor_release(m->retained->grad);
        m->retained->grad = (nb_tensor*)grad;
    } else {
        nb_tensor_release(m->grad);
        m->grad = (nb_tensor*)grad;
    }
    return NB_OK;
}

NB_API nb_status nb_tensor_retain_grad(nb_tensor* t) {
    CHECK_T("retain_grad", t);
    if (!nb_ag_requires(t))
        return nb_error(NB_ERR_AUTOGRAD, "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
    nb_ag_meta* m = t->ag;
    if (m->grad_fn == NULL || m->retained != NULL) return NB_OK;
    nb_grad_slot* slot = calloc(1, sizeof *slot);
    nb_hook* h = calloc(1, sizeof *h);
    if (slot == NULL || h == NULL) {
        free(slot);
        free(h);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "retain_grad: out of memory");
    }
    atomic_init(&slot->refcount, 2);
    h->retain = slot;
    h->output_nr = m->output_nr;
    h->id = -1;
    h->next = m->grad_fn->hooks;
    m->grad_fn->hooks = h;
    m->retained = slot;
    return NB_OK;
}

NB_API int32_t nb_tensor_retains_grad(const nb_tensor* t) {
    if (!nb_tensor_ok(t)) { nb_bad_handle("nb_tensor_retains_grad", "t", t); return -1; }
    return t->ag != NULL && t->ag->grad_fn != NULL && t->ag->retained != NULL;
}

NB_API nb_status nb_tensor_detach(const nb_tensor* t, nb_tensor** out) {
    CHECK_T("detach", t);
    NB_CHECK_OUT("detach", out);
    nb_tensor* d;
    nb_status st = nb_tensor_make("detach", t->storage, t->dtype, t->shape, t->strides, t->ndim, t->offset, &d);
    if (st == NB_OK) *out = d;
    return st;
}

NB_API nb_status nb_tensor_detach_(nb_tensor* t) {
    CHECK_T("detach_", t);
    nb_ag_meta* m = t->ag;
    if (m == NULL) return NB_OK;
    if (m->is_view)
        return nb_error(NB_ERR_AUTOGRAD, "detach_: can't detach views in-place. Use detach() instead.");
    nb_node_release(m->grad_fn);
    m->grad_fn = NULL;
    m->output_nr = 0;
    m->requires_grad = false;
    slot_release(m->retained);
    m->retained = NULL;
    return NB_OK;
}

NB_API nb_status nb_tensor_grad_fn(const nb_tensor* t, nb_node** out) {
    CHECK_T("grad_fn", t);
    NB_CHECK_OUT("grad_fn", out);
    nb_node* n = t->ag != NULL ? t->ag->grad_fn : NULL;
    nb_node_retain(n);
    *out = n;
    return NB_OK;
}

NB_API int32_t nb_tensor_output_nr(const nb_tensor* t) {
    if (!nb_tensor_ok(t)) { nb_bad_handle("nb_tensor_output_nr", "t", t); return -1; }
    return t->ag != NULL ? t->ag->output_nr : 0;
}

static atomic_int_fast64_t next_hook_id = 1;

NB_API nb_status nb_tensor_register_hook(nb_tensor* t, nb_grad_hook_fn fn, void* payload, nb_deleter_fn destroy,
                                         int64_t* id) {
    CHECK_T("register_hook", t);
    if (fn == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "register_hook: fn is NULL");
    if (!nb_ag_requires(t))
        return nb_error(NB_ERR_AUTOGRAD, "register_hook: cannot register a hook on a tensor that doesn't require "
                        "gradient");
    nb_hook* h = calloc(1, sizeof *h);
    if (h == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "register_hook: out of memory");
    h->fn = fn;
    h->payload = payload;
    h->destroy = destroy;
    h->id = atomic_fetch_add(&next_hook_id, 1);
    nb_ag_meta* m = t->ag;
    h->output_nr = m->output_nr;
    nb_hook** list = m->grad_fn != NULL ? &m->grad_fn->hooks : &m->hooks;
    while (*list != NULL) list = &(*list)->next; /* hooks run in registration order */
    *list = h;
    if (id != NULL) *id = h->id;
    return NB_OK;
}

NB_API nb_status nb_tensor_register_post_accumulate_grad_hook(nb_tensor* t, nb_post_accumulate_hook_fn fn,
                                                              void* payload, nb_deleter_fn destroy, int64_t* id) {
    static const char* op = "register_post_accumulate_grad_hook";
    CHECK_T(op, t);
    if (fn == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: fn is NULL", op);
    if (!nb_ag_requires(t))
        return nb_error(NB_ERR_AUTOGRAD, "cannot register a hook on a tensor that doesn't require gradient");
    if (t->ag->grad_fn != NULL)
        return nb_error(NB_ERR_AUTOGRAD, "post accumulate grad hooks cannot be registered on non-leaf tensors");
    nb_hook* h = calloc(1, sizeof *h);
    if (h == NULL) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    h->post_fn = fn;
    h->payload = payload;
    h->destroy = destroy;
    h->id = atomic_fetch_add(&next_hook_id, 1);
    nb_hook** list = &t->ag->hooks;
    while (*list != NULL) list = &(*list)->next; /* registration order */
    *list = h;
    if (id != NULL) *id = h->id;
    return NB_OK;
}

NB_API nb_status nb_tensor_mark_inplace(nb_tensor* t, const char* op) {
    if (op == NULL) op = "mark_inplace";
    CHECK_T(op, t);
    if (!nb_ag_disabled) { /* PyTorch's checks for an in-place op (nb_ag_begin's, without the write) */
        if (t->ag != NULL && t->ag->grad_fn == NULL && t->ag->requires_grad)
            return nb_error(NB_ERR_AUTOGRAD, "%s: a leaf Variable that requires grad is being used in an in-place "
                            "operation.", op);
        nb_tensor* base = t->base;
        if (base != NULL && (base->ag == NULL || base->ag->grad_fn == NULL) &&
            ((base->ag != NULL && base->ag->requires_grad) || nb_ag_requires(t)))
            return nb_error(NB_ERR_AUTOGRAD, "%s: a view of a leaf Variable that requires grad is being used in an "
                            "in-place operation.", op);
    }
    nb_tensor_bump_version(t);
    return NB_OK;
}

static bool unlink_hook(nb_hook** list, int64_t id) {
    for (; *list != NULL; list = &(*list)->next) {
        if ((*list)->id == id) {
            nb_hook* h = *list;
            *list = h->next;
            h->next = NULL;
            nb_hooks_free(h);
            return true;
        }
    }
    return false;
}

NB_API nb_status nb_tensor_remove_hook(nb_tensor* t, int64_t id) {
    CHECK_T("remove_hook", t);
    if (t->ag == NULL || id <= 0) return NB_OK;
    if (!unlink_hook(&t->ag->hooks, id) && t->ag->grad_fn != NULL) unlink_hook(&t->ag->grad_fn->hooks, id);
    return NB_OK;
}
