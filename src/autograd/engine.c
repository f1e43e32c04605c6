/* engine.c: the backward pass. Nodes reachable from the roots are counted by how
 * many edges lead into them; a node runs once all its gradients have arrived
 * (latest-created first among the ready ones), its results are reduced to the
 * shapes of its inputs and summed into the buffers of the next nodes. Leaves
 * accumulate into .grad through their AccumulateGrad node. */
#include "autograd.h"
#include "../core/autocast.h"
#include "../core/profiler.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t accumulate_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- per-pass node table (open addressing on the node pointer) ---- */

typedef struct task {
    nb_node* node;
    int32_t deps;         /* edges still to deliver a gradient */
    bool exec;            /* run its backward (autograd.grad runs only what leads to inputs) */
    bool seen;
    nb_tensor** buf;      /* [n_outputs] summed incoming gradients */
} task;

typedef struct pass {
    task* tab;
    size_t cap, count;
    nb_node** heap;       /* ready nodes, max-heap on seq */
    size_t heap_n, heap_cap;
    bool create_graph, retain_graph, accumulate;
    /* autograd.grad: where gradients are captured */
    int32_t n_capture;
    const nb_edge* capture;
    nb_tensor** captured;
} pass;

static size_t hash_ptr(const void* p) { return ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull; }

static task* lookup(pass* P, nb_node* n, bool insert) {
    if (insert && (P->count + 1) * 2 > P->cap) {
        size_t ncap = P->cap ? P->cap * 2 : 64;
        task* nt = calloc(ncap, sizeof *nt);
        if (nt == NULL) return NULL;
        for (size_t i = 0; i < P->cap; i++) {
            if (P->tab[i].node == NULL) continue;
            size_t j = hash_ptr(P->tab[i].node) & (ncap - 1);
            while (nt[j].node != NULL) j = (j + 1) & (ncap - 1);
            nt[j] = P->tab[i];
        }
        free(P->tab);
        P->tab = nt;
        P->cap = ncap;
    }
    if (P->cap == 0) return NULL;
    size_t j = hash_ptr(n) & (P->cap - 1);
    while (P->tab[j].node != NULL) {
        if (P->tab[j].node == n) return &P->tab[j];
        j = (j + 1) & (P->cap - 1);
    }
    if (!insert) return NULL;
    P->tab[j].node = n;
    P->count++;
    return &P->tab[j];
}

static bool heap_push(pass* P, nb_node* n) {
    if (P->heap_n == P->heap_cap) {
        size_t ncap = P->heap_cap ? P->heap_cap * 2 : 32;
        nb_node** h = realloc(P->heap, ncap * sizeof *h);
        if (h == NULL) return false;
        P->heap = h;
        P->heap_cap = ncap;
    }
    size_t i = P->heap_n++;
    while (i > 0 && P->heap[(i - 1) / 2]->seq < n->seq) {
        P->heap[i] = P->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    P->heap[i] = n;
    return true;
}

static nb_node* heap_pop(pass* P) {
    nb_node* top = P->heap[0];
    nb_node* last = P->heap[--P->heap_n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= P->heap_n) break;
        if (c + 1 < P->heap_n && P->heap[c + 1]->seq > P->heap[c]->seq) c++;
        if (P->heap[c]->seq <= last->seq) break;
        P->heap[i] = P->heap[c];
        i = c;
    }
    if (P->heap_n > 0) P->heap[i] = last;
    return top;
}

static void pass_free(pass* P) {
    for (size_t i = 0; i < P->cap; i++) {
        task* t = &P->tab[i];
        if (t->node == NULL) continue;
        if (t->buf != NULL) {
            for (int32_t k = 0; k < t->node->n_outputs; k++) nb_tensor_release(t->buf[k]);
            free(t->buf);
        }
    }
    free(P->tab);
    free(P->heap);
}

static nb_status oom(void) { return nb_error(NB_ERR_OUT_OF_MEMORY, "backward: out of memory"); }

/* Counts dependencies of every node reachable from the roots. */
static nb_status discover(pass* P, const nb_edge* roots, int32_t n_roots) {
    size_t cap = 64, top = 0;
    nb_node** stack = malloc(cap * sizeof *stack);
    if (stack == NULL) return oom();
    nb_status st = NB_OK;
    for (int32_t i = 0; i < n_roots && st == NB_OK; i++) {
        task* t = lookup(P, roots[i].node, true);
        if (t == NULL) { st = oom(); break; }
        t->deps++;
        if (!t->seen) { t->seen = true; stack[top++] = roots[i].node; }
        while (top > 0 && st == NB_OK) {
            nb_node* n = stack[--top];
            for (int32_t k = 0; k < n->n_inputs; k++) {
                nb_node* next = n->next[k].node;
                if (next == NULL) continue;
                task* c = lookup(P, next, true);
                if (c == NULL) { st = oom(); break; }
                c->deps++;
                if (c->seen) continue;
                c->seen = true;
                if (top == cap) {
                    nb_node** s2 = realloc(stack, (cap *= 2) * sizeof *stack);
                    if (s2 == NULL) { st = oom(); break; }
                    stack = s2;
                }
                stack[top++] = next;
            }
        }
    }
    free(stack);
    return st;
}

static bool is_capture(const pass* P, const nb_node* n) {
    for (int32_t i = 0; i < P->n_capture; i++)
        if (P->capture[i].node == n) return true;
    return false;
}

/* autograd.grad: a node runs only when one of the captured gradients lies behind it.
 * Fixed point over the (acyclic) table: cheap for the graphs backward sees. */
static void mark_exec(pass* P) {
    if (P->accumulate) {
        for (size_t i = 0; i < P->cap; i++) P->tab[i].exec = P->tab[i].node != NULL;
        return;
    }
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t i = 0; i < P->cap; i++) {
            task* t = &P->tab[i];
            if (t->node == NULL || t->exec) continue;
            for (int32_t k = 0; k < t->node->n_inputs; k++) {
                nb_node* next = t->node->next[k].node;
                if (next == NULL) continue;
                task* c = lookup(P, next, false);
                if (is_capture(P, next) || (c != NULL && c->exec)) {
                    t->exec = changed = true;
                    break;
                }
            }
        }
    }
}

/* buf[k] += g (g is a new reference, consumed). */
static nb_status deliver(task* t, int32_t k, nb_tensor* g) {
    if (t->buf == NULL) {
        t->buf = calloc((size_t)t->node->n_outputs, sizeof(nb_tensor*));
        if (t->buf == NULL) { nb_tensor_release(g); return oom(); }
    }
    if (t->buf[k] == NULL) {
        t->buf[k] = g;
        return NB_OK;
    }
    nb_tensor* sum = NULL;
    nb_status st = nb_add(t->buf[k], g, 1.0, NULL, &sum);
    nb_tensor_release(g);
    if (st != NB_OK) return st;
    nb_tensor_release(t->buf[k]);
    t->buf[k] = sum;
    return NB_OK;
}

nb_status nb_ag_conform(const char* node_name, int32_t index, nb_tensor* grad, const nb_tensor_meta* m,
                        nb_tensor** out) {
    nb_tensor* g = grad;
    nb_tensor_retain(g);
    bool same_shape = g->ndim == m->ndim && memcmp(g->shape, m->shape, sizeof(int64_t) * (size_t)m->ndim) == 0;
    if (!same_shape) {
        /* Broadcast reduction: sum the leading dims and the dims the input had as 1. */
        int32_t lead = g->ndim - m->ndim;
        int64_t dims[NB_MAX_DIMS];
        int32_t nd = 0;
        bool ok = lead >= 0;
        for (int32_t d = 0; ok && d < g->ndim; d++) {
            if (d < lead) dims[nd++] = d;
            else if (m->shape[d - lead] == 1 && g->shape[d] != 1) dims[nd++] = d;
            else if (m->shape[d - lead] != g->shape[d]) ok = false;
        }
        if (!ok) {
            nb_tensor_release(g);
            return nb_error(NB_ERR_INTERNAL, "Function %s returned an invalid gradient at index %d - got %s but "
                            "expected shape compatible with %s", node_name, (int)index,
                            nb_shape_str(grad->shape, grad->ndim), nb_shape_str(m->shape, m->ndim));
        }
        nb_tensor* s = NULL;
        nb_status st = nb_sum(g, dims, nd, 1, -1, NULL, &s);
        nb_tensor_release(g);
        if (st != NB_OK) return st;
        st = nb_tensor_reshape(s, m->shape, m->ndim, &g);
        nb_tensor_release(s);
        if (st != NB_OK) return st;
    }
    if (g->dtype != m->dtype || g->storage->device_type != m->device_type ||
        g->storage->device_index != m->device_index) {
        nb_tensor* c = NULL;
        nb_status st = nb_tensor_to(g, m->dtype, m->device_type, m->device_index, 0, &c);
        nb_tensor_release(g);
        if (st != NB_OK) return st;
        g = c;
    }
    *out = g;
    return NB_OK;
}

static nb_status check_nan(const nb_node* n, int32_t i, const nb_tensor* g) {
    bool prev = nb_ag_disabled;
    nb_ag_disabled = true;
    nb_tensor *isnan = NULL, *any = NULL;
    int64_t v = 0;
    nb_status st = nb_isnan(g, NULL, &isnan);
    if (st == NB_OK) st = nb_any(isnan, NULL, 0, 0, NULL, &any);
    if (st == NB_OK) st = nb_tensor_item_int(any, &v);
    nb_tensor_release(isnan);
    nb_tensor_release(any);
    nb_ag_disabled = prev;
    if (st == NB_OK && v)
        st = nb_error(NB_ERR_AUTOGRAD, "Function '%s' returned nan values in its %dth output.", n->name, (int)i);
    return st;
}

/* Runs the hooks on the gradient of output k (in place in *g): user hooks in
 * registration order, then retain_grad, which sees the final gradient. */
static nb_status run_hooks(nb_hook* hooks, int32_t k, nb_tensor** g, bool match_output) {
    for (int32_t pass = 0; pass < 2; pass++) {
        for (nb_hook* h = hooks; h != NULL; h = h->next) {
            if ((match_output && h->output_nr != k) || (h->retain != NULL) != (pass == 1) || h->post_fn != NULL)
                continue;
            nb_status st;
            if (h->retain != NULL) {
                nb_grad_slot* s = h->retain;
                nb_tensor* kept = NULL;
                st = s->grad == NULL ? nb_tensor_clone(*g, &kept) : nb_add(s->grad, *g, 1.0, NULL, &kept);
                if (st != NB_OK) return st;
                nb_tensor_release(s->grad);
                s->grad = kept;
                continue;
            }
            nb_tensor* repl = NULL;
            st = h->fn(h->payload, *g, &repl);
            if (st != NB_OK) return st;
            if (repl != NULL) {
                nb_tensor_release(*g);
                *g = repl;
            }
        }
    }
    return NB_OK;
}

/* The backward of AccumulateGrad: .grad += grad. */
NB_INTERNAL nb_status nb_ag_accumulate_backward(nb_bw* b);
nb_status nb_ag_accumulate_backward(nb_bw* b) {
    nb_tensor* leaf = nb_ag_accumulator_leaf(b->node);
    if (leaf == NULL) return nb_error(NB_ERR_AUTOGRAD, "leaf variable has been moved into the graph interior");
    nb_ag_meta* m = leaf->ag;
    nb_tensor* g = b->go[0];
    nb_tensor_retain(g);
    nb_status st = run_hooks(m->hooks, 0, &g, false);
    if (st != NB_OK) {
        nb_tensor_release(g);
        nb_tensor_release(leaf);
        return st;
    }
    bool create_graph = !nb_ag_disabled;
    pthread_mutex_lock(&accumulate_lock);
    if (m->grad == NULL) {
        /* private: held only by this pass's buffer and the reference taken above */
        bool private_dense = atomic_load(&g->refcount) == (g == b->go[0] ? 2 : 1) &&
                             atomic_load(&g->storage->refcount) == 1 &&
                             memcmp(g->strides, leaf->strides, sizeof(int64_t) * (size_t)leaf->ndim) == 0;
        if (create_graph || private_dense) {
            m->grad = g;
            g = NULL;
        } else {
            nb_tensor* c = NULL;
            st = nb_tensor_new_like("backward", leaf, leaf->dtype, leaf->storage->device_type,
                                    leaf->storage->device_index, &c);
            if (st == NB_OK) st = nbi_tensor_copy_(c, g);
            if (st == NB_OK) m->grad = c;
            else nb_tensor_release(c);
        }
    } else if (create_graph || nb_ag_requires(m->grad)) {
        nb_tensor* sum = NULL;
        st = nb_add(m->grad, g, 1.0, NULL, &sum);
        if (st == NB_OK) {
            nb_tensor_release(m->grad);
            m->grad = sum;
        }
    } else {
        st = nbi_add(m->grad, g, 1.0, m->grad, NULL);
    }
    pthread_mutex_unlock(&accumulate_lock);
    nb_tensor_release(g);
    /* Post-accumulate hooks, which see .grad, in registration order (rising ids): each is looked up
     * after the one before ran, as a hook may remove itself or others. */
    for (int64_t done = 0; st == NB_OK;) {
        nb_hook* h = m->hooks;
        while (h != NULL && (h->post_fn == NULL || h->id <= done)) h = h->next;
        if (h == NULL) break;
        done = h->id;
        st = h->post_fn(h->payload, leaf);
    }
    nb_tensor_release(leaf);
    return st;
}

/* Runs one ready node and delivers its input gradients. */
static nb_status run_node(pass* P, task* t) {
    nb_node* n = t->node;
    nb_status st = NB_OK;
    bool any = false;
    for (int32_t k = 0; t->buf != NULL && k < n->n_outputs; k++) any |= t->buf[k] != NULL;
    nb_tensor** gi = NULL;
    uint32_t zero = 0;
    if (any && t->exec) {
        for (int32_t k = 0; k < n->n_outputs && st == NB_OK; k++) {
            if (t->buf[k] == NULL) {
                const nb_tensor_meta* m = &n->out_meta[k];
                if (k < 32) zero |= 1u << k;
                st = nb_zeros(m->shape, m->ndim, m->dtype, m->device_type, m->device_index, &t->buf[k]);
            }
            if (st == NB_OK && n->hooks != NULL) st = run_hooks(n->hooks, k, &t->buf[k], true);
        }
        if (st == NB_OK && n->n_inputs > 0 && (gi = calloc((size_t)n->n_inputs, sizeof *gi)) == NULL) st = oom();
        if (st == NB_OK && n->released) st = nb_ag_freed_error(); /* every node type, before its formula runs */
        if (st == NB_OK) {
            /* Field by field: an initializer would zero tmp_inline[] and msg[] (1.8 KB) for every node. */
            nb_bw b;
            b.node = n;
            b.go = t->buf;
            b.go_zero = zero;
            b.gi = gi;
            bw_begin(&b);
            bool prof = nb_prof_active() && nb_prof_node_begin(n->name);
            const int32_t autocast = nb_ac_mask; /* backward runs in the dtypes forward chose */
            nb_ac_mask = 0;
            st = n->backward(&b);
            nb_ac_mask = autocast;
            if (prof) nb_profiler_range_pop();
            if (st == NB_OK) st = b.st;
            else if (st == b.st && b.msg[0] != '\0') nb_error(st, "%s", b.msg); /* the first failure's message */
            bw_end(&b);
        }
        if (!P->retain_graph) nb_node_release_saved(n);
    }
    for (int32_t i = 0; i < n->n_inputs; i++) {
        nb_edge e = n->next[i];
        nb_tensor* g = gi != NULL ? gi[i] : NULL;
        if (gi != NULL) gi[i] = NULL;
        if (e.node == NULL) {
            nb_tensor_release(g);
            continue;
        }
        if (st == NB_OK && g != NULL) {
            nb_tensor* c = NULL;
            st = nb_ag_conform(n->name, i, g, &n->in_meta[i], &c);
            nb_tensor_release(g);
            g = st == NB_OK ? c : NULL;
            if (st == NB_OK && nb_anomaly_mode_enabled()) st = check_nan(n, i, g);
        }
        task* c = lookup(P, e.node, false);
        if (st == NB_OK && g != NULL) {
            st = deliver(c, e.input_nr, g);
            g = NULL;
        }
        nb_tensor_release(g);
        if (st == NB_OK && --c->deps == 0 && !heap_push(P, e.node)) st = oom();
    }
    free(gi);
    /* The node has run: its incoming gradients go now, not with the pass, so a pass holds
     * only the gradients still waiting for their node (as PyTorch's engine). */
    if (t->buf != NULL) {
        for (int32_t k = 0; k < n->n_outputs; k++) nb_tensor_release(t->buf[k]);
        free(t->buf);
        t->buf = NULL;
    }
    return st;
}

static nb_status run(pass* P, const nb_edge* roots, nb_tensor* const* root_grads, int32_t n_roots) {
    nb_status st = discover(P, roots, n_roots);
    if (st != NB_OK) return st;
    mark_exec(P);
    for (int32_t i = 0; i < n_roots && st == NB_OK; i++) {
        task* t = lookup(P, roots[i].node, false);
        nb_tensor_retain(root_grads[i]);
        st = deliver(t, roots[i].input_nr, root_grads[i]);
        if (st == NB_OK && --t->deps == 0 && !heap_push(P, roots[i].node)) st = oom();
    }
    while (st == NB_OK && P->heap_n > 0) {
        nb_node* n = heap_pop(P);
        task* t = lookup(P, n, false);
        for (int32_t c = 0; c < P->n_capture; c++) {
            if (P->capture[c].node != n || t->buf == NULL) continue;
            nb_tensor* g = t->buf[P->capture[c].input_nr];
            nb_tensor_retain(g);
            nb_tensor_release(P->captured[c]);
            P->captured[c] = g;
        }
        st = run_node(P, t);
    }
    return st;
}

/* The roots' edges and seed gradients (checked as PyTorch checks them). */
static nb_status prepare_roots(const char* op, const nb_tensor* const* outputs, const nb_tensor* const* grad_outputs,
                               int32_t n, nb_edge* edges, nb_tensor** grads) {
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = outputs[i];
        NB_CHECK_TENSOR(op, t);
        if (!nb_ag_requires(t))
            return nb_error(NB_ERR_AUTOGRAD, "element %d of tensors does not require grad and does not have a "
                            "grad_fn", (int)i);
        const nb_tensor* g = grad_outputs != NULL ? grad_outputs[i] : NULL;
        if (g == NULL) {
            if (t->numel != 1)
                return nb_error(NB_ERR_AUTOGRAD, "grad can be implicitly created only for scalar outputs "
                                "(output %d has shape %s)", (int)i, nb_shape_str(t->shape, t->ndim));
            nb_status st = nb_ones(t->shape, t->ndim, t->dtype, t->storage->device_type, t->storage->device_index,
                                   &grads[i]);
            if (st != NB_OK) return st;
        } else {
            NB_CHECK_TENSOR(op, g);
            if (g->ndim != t->ndim || memcmp(g->shape, t->shape, sizeof(int64_t) * (size_t)t->ndim) != 0)
                return nb_error(NB_ERR_SHAPE, "Mismatch in shape: grad_output[%d] has a shape of %s and output[%d] "
                                "has a shape of %s.", (int)i, nb_shape_str(g->shape, g->ndim), (int)i,
                                nb_shape_str(t->shape, t->ndim));
            if (!nb_dtype_is_floating(g->dtype))
                return nb_error(NB_ERR_DTYPE, "%s: grad_output[%d] has dtype %s, but output[%d] has dtype %s; "
                                "gradients must be floating point", op, (int)i, nb_dtype_str(g->dtype), (int)i,
                                nb_dtype_str(t->dtype));
            if (g->storage->device_type != t->storage->device_type ||
                g->storage->device_index != t->storage->device_index)
                return nb_error(NB_ERR_DEVICE, "%s: grad_output[%d] is on %s but output[%d] is on %s", op, (int)i,
                                nb_device_type_name(g->storage->device_type), (int)i,
                                nb_device_type_name(t->storage->device_type));
            if (g->dtype != t->dtype) {
                nb_status st = nb_tensor_to(g, t->dtype, t->storage->device_type, t->storage->device_index, 0,
                                            &grads[i]);
                if (st != NB_OK) return st;
            } else {
                nb_tensor_retain((nb_tensor*)g);
                grads[i] = (nb_tensor*)g;
            }
        }
        nb_status st = nb_ag_gradient_edge((nb_tensor*)t, &edges[i]);
        if (st != NB_OK) return st;
    }
    return NB_OK;
}

static nb_status engine(const char* op, const nb_tensor* const* outputs, const nb_tensor* const* grad_outputs,
                        int32_t n, const nb_tensor* const* inputs, int32_t n_inputs, bool retain_graph,
                        bool create_graph, bool allow_unused, nb_tensor** grads) {
    if (n <= 0 || outputs == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: expected at least one output tensor", op);
    nb_edge* edges = calloc((size_t)n + (size_t)n_inputs, sizeof *edges);
    nb_tensor** seeds = calloc((size_t)n + (size_t)n_inputs, sizeof *seeds);
    if (edges == NULL || seeds == NULL) {
        free(edges);
        free(seeds);
        return oom();
    }
    nb_edge* capture = edges + n;
    nb_tensor** captured = seeds + n;
    nb_status st = prepare_roots(op, outputs, grad_outputs, n, edges, seeds);
    for (int32_t i = 0; i < n_inputs && st == NB_OK; i++) {
        const nb_tensor* t = inputs[i];
        NB_CHECK_TENSOR(op, t);
        if (!nb_ag_requires(t)) st = nb_error(NB_ERR_AUTOGRAD, "One of the differentiated Tensors does not require grad");
        else st = nb_ag_gradient_edge((nb_tensor*)t, &capture[i]);
    }
    if (st == NB_OK) {
        pass P = {.create_graph = create_graph, .retain_graph = retain_graph, .accumulate = inputs == NULL,
                  .n_capture = n_inputs, .capture = capture, .captured = captured};
        int32_t prev = nb_set_grad_enabled(create_graph);
        st = run(&P, edges, seeds, n);
        nb_set_grad_enabled(prev);
        pass_free(&P);
    }
    for (int32_t i = 0; i < n_inputs && st == NB_OK; i++)
        if (captured[i] == NULL && !allow_unused)
            st = nb_error(NB_ERR_AUTOGRAD, "One of the differentiated Tensors appears to not have been used in the "
                          "graph. Set allow_unused=True if this is the desired behavior.");
    for (int32_t i = 0; i < n_inputs; i++) {
        if (st == NB_OK) grads[i] = captured[i];
        else nb_tensor_release(captured[i]);
    }
    for (int32_t i = 0; i < n + n_inputs; i++) nb_node_release(edges[i].node);
    for (int32_t i = 0; i < n; i++) nb_tensor_release(seeds[i]);
    free(edges);
    free(seeds);
    return st;
}

/* The handle arrays are nb_tensor* const* so that C callers pass &loss without a cast; nothing is written through them. */
NB_API nb_status nb_backward(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n, int32_t retain_graph,
                             int32_t create_graph) {
    return engine("backward", (const nb_tensor* const*)outputs, (const nb_tensor* const*)grad_outputs, n, NULL, 0,
                  retain_graph != 0, create_graph != 0, false, NULL);
}

NB_API nb_status nb_tensor_backward(nb_tensor* t, nb_tensor* grad, int32_t retain_graph, int32_t create_graph) {
    const nb_tensor* g = grad;
    return engine("backward", (const nb_tensor* const*)&t, &g, 1, NULL, 0, retain_graph != 0, create_graph != 0, false,
                  NULL);
}

NB_API nb_status nb_autograd_grad(nb_tensor* const* outputs, nb_tensor* const* grad_outputs, int32_t n,
                                  nb_tensor* const* inputs, int32_t n_inputs, int32_t retain_graph,
                                  int32_t create_graph, int32_t allow_unused, nb_tensor** grads) {
    if (n_inputs <= 0 || inputs == NULL || grads == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "grad: expected at least one input tensor and a grads array");
    return engine("grad", (const nb_tensor* const*)outputs, (const nb_tensor* const*)grad_outputs, n,
                  (const nb_tensor* const*)inputs, n_inputs, retain_graph != 0, create_graph != 0, allow_unused != 0,
                  grads);
}
