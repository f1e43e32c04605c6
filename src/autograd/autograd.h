/* autograd.h: the autograd core's private interface.
 *
 * A tensor that takes part in autograd carries an nb_ag_meta: the leaf flag
 * requires_grad and .grad, or the node that produced it (grad_fn). Nodes form the
 * graph: each holds edges to the nodes of its inputs, the tensors its backward
 * formula needs (with the version each had when saved), and small attributes.
 * Forward formulas (formulas/, one nb_agf_<op> per differentiable op) record
 * nodes with nb_ag_begin / nb_ag_end; backward formulas compute input gradients
 * from output gradients through the public ops, so they run on every device and,
 * under create_graph, record a graph of their own. */
#ifndef NABLA_AUTOGRAD_H_
#define NABLA_AUTOGRAD_H_

#include "../core/internal.h"

#define NB_AG_MAX_SAVED 8
/* Temporaries a formula keeps inline; more (cat of 999 inputs) grow on the heap. */
#define NB_AG_INLINE_TMP 96
#define NB_AG_NUM_IATTR (2 * NB_MAX_DIMS + 8)

typedef struct nb_bw nb_bw;
typedef nb_status (*nb_backward_fn)(nb_bw* b);

typedef struct nb_hook {
    int64_t id;
    int32_t output_nr;          /* node hooks: the output whose gradient it sees */
    nb_grad_hook_fn fn;
    nb_post_accumulate_hook_fn post_fn; /* leaves: runs after accumulation instead of fn */
    void* payload;
    nb_deleter_fn destroy;
    struct nb_grad_slot* retain; /* retain_grad: stores the gradient instead of calling fn */
    struct nb_hook* next;
} nb_hook;

/* A retained gradient, shared by a non-leaf tensor and the hook that fills it. */
typedef struct nb_grad_slot {
    atomic_int_fast64_t refcount;
    nb_tensor* grad;
} nb_grad_slot;

typedef struct nb_ag_meta {
    bool requires_grad;      /* leaves only; a tensor with grad_fn requires grad implicitly */
    bool is_view;            /* made by a recorded view op (its base is nb_tensor.base) */
    int64_t view_version;    /* storage version when grad_fn was last set for this view */
    nb_node* grad_fn;        /* strong reference */
    int32_t output_nr;
    nb_node* grad_acc;       /* weak: the leaf's AccumulateGrad node while one lives */
    nb_tensor* grad;         /* leaves */
    nb_grad_slot* retained;  /* non-leaves after retain_grad */
    nb_hook* hooks;          /* leaves, post-accumulate hooks included (non-leaf hooks live on grad_fn) */
    _Atomic(nb_tensor*) data;/* strong: the alias of this tensor's data that the nodes saving it share
                              * (nb_saved); set once, kept while its metadata still matches */
} nb_ag_meta;

typedef struct nb_edge {
    nb_node* node;           /* NULL: this input needs no gradient */
    int32_t input_nr;        /* which of node's outputs the gradient is for */
} nb_edge;

/* What a gradient must look like: the metadata of a node's input or output. */
typedef struct nb_tensor_meta {
    int32_t ndim, dtype, device_type, device_index;
    int64_t shape[NB_MAX_DIMS];
} nb_tensor_meta;

/* A saved tensor never holds the autograd state of the tensor it came from: a
 * node holding t would keep t's grad_fn alive, and once an in-place op makes this
 * node part of t's history (x.copy_(x * w)), neither could ever be freed. So it is
 * the data (an alias sharing storage and version counter, without history) plus,
 * for inputs, the history they had when saved, which create_graph reattaches. */
typedef struct nb_saved_hooks nb_saved_hooks; /* saved_hooks.c */

typedef struct nb_saved {
    nb_tensor* t;            /* an alias without history; a leaf that requires grad: the leaf itself */
    int64_t version;
    int32_t output_nr;       /* outputs: which one (this node is their history); -1 for inputs */
    nb_node* grad_fn;        /* inputs: their grad_fn when saved (strong; NULL for none) */
    int32_t grad_fn_nr;      /* ... and which of its outputs they were */
    nb_saved_hooks* hooks;   /* saved through saved-tensor hooks (then t is NULL): the set (strong) */
    void* packed;            /* ... and what its pack function returned */
} nb_saved;

struct nb_node {
    atomic_int_fast64_t refcount;
    const char* name;        /* "MulBackward0" */
    nb_backward_fn backward;
    uint64_t seq;            /* creation order: later nodes run first */
    int32_t n_inputs, n_outputs;
    nb_edge* next;           /* [n_inputs] */
    nb_tensor_meta* in_meta; /* [n_inputs] */
    nb_tensor_meta* out_meta;/* [n_outputs] */
    nb_saved saved[NB_AG_MAX_SAVED];
    int32_t n_saved;
    bool released;           /* had saved tensors, dropped by a backward without retain_graph:
                              * running it again fails (nb_ag_freed_error) */
    int64_t ia[NB_AG_NUM_IATTR];
    double fa[4];
    nb_hook* hooks;          /* hooks on this node's outputs (tensor hooks, retain_grad) */
    nb_tensor* leaf;         /* AccumulateGrad: the leaf (strong) */
    nb_node* inner;          /* CopySlices: the in-place op's node (strong); its saved tensors go with ours */
    void* extra;             /* formula-owned data, freed with extra_free */
    void (*extra_free)(void*);
    nb_node* pending_next;   /* release worklist */
};

/* ---- grad mode (meta.c) ---- */

NB_INTERNAL extern _Thread_local bool nb_ag_disabled; /* no-grad or inference mode */
static inline bool nb_ag_requires(const nb_tensor* t) {
    return t != NULL && t->ag != NULL && t->magic == NB_TENSOR_MAGIC &&
           (t->ag->grad_fn != NULL || t->ag->requires_grad);
}
static inline bool nb_ag_requires_any(const nb_tensor* const* ts, int32_t n) {
    if (ts == NULL) return false;
    for (int32_t i = 0; i < n; i++)
        if (nb_ag_requires(ts[i])) return true;
    return false;
}
static inline bool nb_ag_readonly(const nb_tensor* t) {
    return t != NULL && t->magic == NB_TENSOR_MAGIC && t->storage->readonly;
}
/* The error of a non-differentiable op asked to write into a tensor that requires grad. */
NB_INTERNAL nb_status nb_ag_nondifferentiable_write(const char* op);

NB_INTERNAL nb_ag_meta* nb_ag_meta_get(nb_tensor* t); /* creates it; NULL when out of memory */
NB_INTERNAL void nb_ag_meta_free(nb_ag_meta* m);
NB_INTERNAL void nb_hooks_free(nb_hook* h);

/* ---- nodes (node.c) ---- */

NB_INTERNAL nb_node* nb_node_new(const char* name, nb_backward_fn fn, int32_t n_inputs, int32_t n_outputs);
/* nb_node_release (public) is iterative: dropping the end of a long chain does not recurse. */
NB_INTERNAL void nb_node_release_saved(nb_node* n);
/* PyTorch's error for running a node whose saved tensors were freed (status NB_ERR_AUTOGRAD). */
NB_INTERNAL nb_status nb_ag_freed_error(void);
/* The edge a gradient for t flows along: its grad_fn, or its leaf's AccumulateGrad. */
NB_INTERNAL nb_status nb_ag_gradient_edge(nb_tensor* t, nb_edge* out);
NB_INTERNAL void nb_ag_leaf_moved(nb_ag_meta* m);                /* a leaf takes a history in place */
NB_INTERNAL nb_tensor* nb_ag_accumulator_leaf(nb_node* acc);      /* new reference, or NULL once moved */
NB_INTERNAL void nb_tensor_meta_of(const nb_tensor* t, nb_tensor_meta* m);
NB_INTERNAL extern const char* nb_ag_leaf_accumulate_name;

/* ---- saved-tensor hooks (saved_hooks.c) ---- */

/* Packs a just-filled slot through this thread's innermost hooks, if any: on success
 * the slot holds the packed value instead of s->t. */
NB_INTERNAL nb_status nb_saved_hooks_pack(nb_saved* s);
/* *out = a new reference to the tensor a packed slot unpacks to. */
NB_INTERNAL nb_status nb_saved_hooks_unpack(const nb_saved* s, const char* node_name, nb_tensor** out);
NB_INTERNAL void nb_saved_hooks_free(nb_saved* s); /* frees a packed slot's value; no-op otherwise */
static inline bool nb_saved_present(const nb_saved* s) { return s->t != NULL || s->hooks != NULL; }

/* ---- recording a forward op (record.c) ---- */

typedef struct nb_ag_rec {
    const char* op;
    nb_node* node;
    nb_tensor* dst;
    bool inplace;            /* dst is one of the inputs */
    int32_t dst_input;       /* which input dst is */
    bool copy_slices;        /* dst is a view: the history of its base is rebased (CopySlices) */
} nb_ag_rec;

/* Checks dst (in-place on a leaf or a graph view, out= with grad), makes the node
 * with an edge per input that requires grad, and turns grad mode off for the
 * forward computation. On failure nothing is left to undo. */
NB_INTERNAL nb_status nb_ag_begin(nb_ag_rec* r, const char* op, const char* node_name, nb_backward_fn fn,
                                  nb_tensor* dst, int32_t n_inputs, const nb_tensor* const* inputs,
                                  int32_t n_outputs);
/* Saves input t for backward (a clone when the op will overwrite it in place). */
NB_INTERNAL nb_status nb_ag_save_input(nb_ag_rec* r, int32_t slot, const nb_tensor* t);
NB_INTERNAL nb_status nb_ag_save_output(nb_ag_rec* r, int32_t slot, const nb_tensor* t, int32_t output_nr);
/* Turns grad mode back on; on success attaches the node to outputs (floating ones;
 * NULL entries skipped), else frees it. Returns st. */
NB_INTERNAL nb_status nb_ag_end(nb_ag_rec* r, nb_status st, nb_tensor* const* outputs, int32_t n_outputs);
static inline nb_status nb_ag_end1(nb_ag_rec* r, nb_status st, nb_tensor* output) {
    return nb_ag_end(r, st, &output, 1);
}
/* nb_ag_end, then hands results[k] to *outs[k] (or drops them: outs[k] NULL, or failure). */
NB_INTERNAL nb_status nb_ag_finish(nb_ag_rec* r, nb_status st, nb_tensor* const* results, nb_tensor** const* outs,
                                   int32_t n);
static inline nb_status nb_ag_finish1(nb_ag_rec* r, nb_status st, nb_tensor* result, nb_tensor** out) {
    return nb_ag_finish(r, st, &result, &out, 1);
}
/* Makes n the grad_fn of t (output output_nr). */
NB_INTERNAL nb_status nb_ag_attach(nb_node* n, nb_tensor* t, int32_t output_nr);
/* copy_slices.c: an in-place op f on view dst rebases dst's base (CopySlices) and
 * gives dst a fresh grad_fn as a view of it. */
NB_INTERNAL nb_status nb_ag_copy_slices(nb_node* f, int32_t dst_input, nb_tensor* dst);
/* Rebuilds a view's grad_fn from its base's current history. */
NB_INTERNAL nb_status nb_ag_view_refresh(nb_tensor* view);
NB_INTERNAL nb_status nb_ag_view_scatter_backward(nb_bw* b);
/* Marks the outputs of a view op (in-place writes through them are then refused). */
NB_INTERNAL void nb_ag_mark_view(nb_tensor* view);
/* The tensor an op's result went to: dst when given, else *out. */
static inline nb_tensor* nb_ag_result(nb_tensor* dst, nb_tensor** out) { return dst != NULL ? dst : *out; }
NB_INTERNAL bool nb_ag_needs(const nb_ag_rec* r, int32_t input);

/* ---- backward formulas (bw.c) ---- */

struct nb_bw {
    nb_node* node;
    nb_tensor* const* go;    /* [n_outputs]: gradients of the outputs (never NULL) */
    uint32_t go_zero;        /* bit k: nothing reached output k, go[k] is zeros made for the formula */
    nb_tensor** gi;          /* [n_inputs]: gradients of the inputs to fill (NULL: none) */
    nb_status st;            /* first failure; helpers return NULL once it is set */
    int32_t ntmp;
    int32_t cap_tmp;         /* capacity of tmp: NB_AG_INLINE_TMP while tmp == tmp_inline */
    nb_tensor** tmp;         /* tmp_inline, or a heap array once a formula keeps more */
    nb_tensor* tmp_inline[NB_AG_INLINE_TMP];
    /* The first failure's message: a helper that failed yields NULL, and the op that
     * receives it writes "tensor is NULL" over the message, so the engine restores it. */
    char msg[1024];
};

/* Prepares b for one formula: no temporaries, no failure (the large arrays stay uninitialised). */
static inline void bw_begin(nb_bw* b) {
    b->st = NB_OK;
    b->ntmp = 0;
    b->cap_tmp = NB_AG_INLINE_TMP;
    b->tmp = b->tmp_inline;
    b->msg[0] = '\0';
}
/* Releases the formula's temporaries (and their heap array). */
NB_INTERNAL void bw_end(nb_bw* b);
/* Records failure st (with the current message) unless an earlier one was recorded; returns b->st. */
NB_INTERNAL nb_status bw_fail(nb_bw* b, nb_status st);

static inline bool bw_needs(const nb_bw* b, int32_t i) { return b->node->next[i].node != NULL; }
/* Saved tensor `slot`, checked against its saved version (borrowed until the formula returns). */
NB_INTERNAL nb_tensor* bw_saved(nb_bw* b, int32_t slot);
/* Registers a new reference as a temporary of this formula; returns it. */
NB_INTERNAL nb_tensor* bw_keep(nb_bw* b, nb_status st, nb_tensor* t);
/* gi[i] = t (a new reference). */
NB_INTERNAL void bw_set(nb_bw* b, int32_t i, nb_tensor* t);

/* BW_OP(b, nb_exp(x, NULL, &bw_r_)): runs an op writing bw_r_ unless an earlier
 * step failed, keeps its result as a temporary and yields it (NULL on failure). */
#define BW_OP(b, call)                                                            \
    ({                                                                            \
        nb_tensor* bw_r_ = NULL;                                                  \
        nb_status bw_s_ = (b)->st == NB_OK ? (call) : (b)->st;                    \
        bw_keep((b), bw_s_, bw_r_);                                               \
    })

NB_INTERNAL nb_tensor* bw_scalar(nb_bw* b, double v);
NB_INTERNAL nb_tensor* bw_add(nb_bw* b, const nb_tensor* x, const nb_tensor* y);
NB_INTERNAL nb_tensor* bw_sub(nb_bw* b, const nb_tensor* x, const nb_tensor* y);
NB_INTERNAL nb_tensor* bw_mul(nb_bw* b, const nb_tensor* x, const nb_tensor* y);
NB_INTERNAL nb_tensor* bw_div(nb_bw* b, const nb_tensor* x, const nb_tensor* y);
NB_INTERNAL nb_tensor* bw_muls(nb_bw* b, const nb_tensor* x, double s);
NB_INTERNAL nb_tensor* bw_adds(nb_bw* b, const nb_tensor* x, double s);
NB_INTERNAL nb_tensor* bw_rsubs(nb_bw* b, double s, const nb_tensor* x); /* s - x */
NB_INTERNAL nb_tensor* bw_neg(nb_bw* b, const nb_tensor* x);
NB_INTERNAL nb_tensor* bw_unary(nb_bw* b, nb_status (*fn)(const nb_tensor*, nb_tensor*, nb_tensor**),
                                const nb_tensor* x);
NB_INTERNAL nb_tensor* bw_where(nb_bw* b, const nb_tensor* c, const nb_tensor* x, const nb_tensor* y);
NB_INTERNAL nb_tensor* bw_zeros_like_meta(nb_bw* b, const nb_tensor_meta* m);
NB_INTERNAL nb_tensor* bw_zeros_like(nb_bw* b, const nb_tensor* t);
NB_INTERNAL nb_tensor* bw_sum(nb_bw* b, const nb_tensor* x, const int64_t* dims, int32_t ndims, int32_t keepdim);
NB_INTERNAL nb_tensor* bw_reshape(nb_bw* b, const nb_tensor* x, const int64_t* shape, int32_t ndim);
NB_INTERNAL nb_tensor* bw_expand(nb_bw* b, const nb_tensor* x, const int64_t* shape, int32_t ndim);
NB_INTERNAL nb_tensor* bw_cmp_gt0(nb_bw* b, const nb_tensor* x); /* x > 0 */
/* A gradient of the input's shape that is zero outside the view: zeros, then grad
 * written through the same view (recorded as one differentiable step). */
NB_INTERNAL nb_tensor* bw_view_scatter(nb_bw* b, const nb_tensor* grad, const nb_tensor_meta* in,
                                        int32_t kind, const int64_t* attrs);

/* View kinds for bw_view_scatter (attrs as the view function takes them). */
enum { NB_VIEW_SLICE, NB_VIEW_SELECT, NB_VIEW_NARROW, NB_VIEW_AS_STRIDED };

/* ---- the engine (engine.c) ---- */

/* Sums grad down to meta's shape (broadcast reduction) and converts dtype/device. */
NB_INTERNAL nb_status nb_ag_conform(const char* node_name, int32_t index, nb_tensor* grad,
                                    const nb_tensor_meta* meta, nb_tensor** out);

#endif /* NABLA_AUTOGRAD_H_ */
