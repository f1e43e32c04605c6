/* custom.c: custom autograd functions. The caller computes the outputs itself
 * (grad mode off) and hands in a closure for the backward: a function pointer, a
 * payload and its destructor. This is how Python's autograd.Function (and any
 * binding's) plugs into the engine. */
#include "autograd.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct custom_fn {
    nb_custom_backward_fn fn;
    void* payload;
    nb_deleter_fn destroy;
    char name[64];
} custom_fn;

static void custom_free(void* p) {
    custom_fn* c = p;
    if (c->destroy != NULL) c->destroy(c->payload);
    free(c);
}

static nb_status custom_bw(nb_bw* b) {
    nb_node* n = b->node;
    custom_fn* c = n->extra;
    nb_status st = c->fn(c->payload, n->n_outputs, b->go, n->n_inputs, b->gi);
    if (st != NB_OK) {
        for (int32_t i = 0; i < n->n_inputs; i++) {
            nb_tensor_release(b->gi[i]);
            b->gi[i] = NULL;
        }
        if (nb_last_error_status() != st) nb_error(st, "%s: backward failed (status %d)", c->name, (int)st);
        return st;
    }
    for (int32_t i = 0; i < n->n_inputs; i++) {
        nb_tensor* g = b->gi[i];
        if (g == NULL) continue;
        if (!nb_tensor_ok(g)) {
            b->gi[i] = NULL;
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: backward returned an invalid tensor for input %d", c->name,
                            (int)i);
        }
        const nb_tensor_meta* m = &n->in_meta[i];
        if (n->next[i].node != NULL && !nb_dtype_is_floating(g->dtype))
            return nb_error(NB_ERR_DTYPE, "%s: backward returned a %s gradient for input %d (expected %s)", c->name,
                            nb_dtype_str(g->dtype), (int)i, nb_dtype_str(m->dtype));
    }
    return NB_OK;
}

NB_API nb_status nb_autograd_function_record(const char* name, const nb_tensor* const* inputs, int32_t n_inputs,
                                             nb_tensor* const* outputs, int32_t n_outputs,
                                             const int32_t* non_differentiable, nb_custom_backward_fn fn,
                                             void* payload, nb_deleter_fn destroy) {
    nb_status st = NB_OK;
    if (fn == NULL) st = nb_error(NB_ERR_INVALID_ARGUMENT, "autograd function: backward fn is NULL");
    else if (n_inputs < 0 || n_outputs < 1 || (n_inputs > 0 && inputs == NULL) || outputs == NULL)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "autograd function: bad input/output counts (%d, %d)", (int)n_inputs,
                      (int)n_outputs);
    for (int32_t i = 0; st == NB_OK && i < n_inputs; i++)
        if (inputs[i] != NULL && !nb_tensor_ok(inputs[i])) st = nb_bad_handle("autograd function", "inputs", inputs[i]);
    for (int32_t i = 0; st == NB_OK && i < n_outputs; i++)
        if (!nb_tensor_ok(outputs[i])) st = nb_bad_handle("autograd function", "outputs", outputs[i]);
    if (st != NB_OK || nb_ag_disabled || !nb_ag_requires_any(inputs, n_inputs)) {
        if (destroy != NULL) destroy(payload);
        return st;
    }
    custom_fn* c = calloc(1, sizeof *c);
    if (c == NULL) {
        if (destroy != NULL) destroy(payload);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "autograd function: out of memory");
    }
    c->fn = fn;
    c->payload = payload;
    c->destroy = destroy;
    snprintf(c->name, sizeof c->name, "%sBackward", name != NULL ? name : "Custom");
    nb_ag_rec r;
    st = nb_ag_begin(&r, c->name, c->name, custom_bw, NULL, n_inputs, inputs, n_outputs);
    if (st != NB_OK) {
        custom_free(c);
        return st;
    }
    r.node->name = c->name;
    r.node->extra = c;
    r.node->extra_free = custom_free;
    nb_tensor* attach[NB_MAX_DIMS * 4];
    nb_tensor** outs = n_outputs <= (int32_t)(sizeof attach / sizeof *attach) ? attach : calloc((size_t)n_outputs,
                                                                                             sizeof *outs);
    if (outs == NULL) return nb_ag_end(&r, nb_error(NB_ERR_OUT_OF_MEMORY, "autograd function: out of memory"), NULL, 0);
    for (int32_t k = 0; k < n_outputs; k++) {
        nb_tensor_meta_of(outputs[k], &r.node->out_meta[k]); /* zeros for outputs that get no gradient */
        bool skip = non_differentiable != NULL && non_differentiable[k];
        for (int32_t i = 0; i < n_inputs; i++) skip |= outputs[k] == inputs[i]; /* returned as is: no new history */
        outs[k] = skip ? NULL : outputs[k];
    }
    st = nb_ag_end(&r, NB_OK, outs, n_outputs);
    if (outs != attach) free(outs);
    return st;
}
