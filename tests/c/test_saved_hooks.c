/* test_saved_hooks.c: saved-tensor hooks (nb_saved_tensors_hooks_push/pop). Every
 * tensor a node saves while hooks are pushed goes through pack; backward reads it
 * back through unpack; each packed value is freed once, and the payload destroyed
 * once, when the graph goes. A pack that copies the tensor makes backward immune
 * to later in-place writes; errors from either hook reach the caller. */
#include "nbtest.h"

typedef struct counts {
    int packs, unpacks, frees, destroys;
    int copy;       /* pack keeps a clone instead of the tensor */
    int fail_pack;  /* pack fails */
} counts;

static nb_status pack(void* payload, const nb_tensor* t, void** packed) {
    counts* c = payload;
    if (c->fail_pack) return nb_set_error(NB_ERR_INVALID_ARGUMENT, "pack refused");
    c->packs++;
    if (c->copy) return nb_tensor_clone(t, (nb_tensor**)packed);
    nb_tensor_retain((nb_tensor*)t);
    *packed = (void*)t;
    return NB_OK;
}

static nb_status unpack(void* payload, void* packed, nb_tensor** out) {
    counts* c = payload;
    c->unpacks++;
    nb_tensor_retain(packed);
    *out = packed;
    return NB_OK;
}

static nb_status unpack_nothing(void* payload, void* packed, nb_tensor** out) {
    (void)payload, (void)packed;
    *out = NULL;
    return NB_OK;
}

static void free_packed(void* payload, void* packed) {
    ((counts*)payload)->frees++;
    nb_tensor_release(packed);
}

static void destroy(void* payload) { ((counts*)payload)->destroys++; }

static nb_tensor* vec(const double* v, int64_t n, int requires_grad) {
    nb_tensor* t = NULL;
    if (nb_tensor_from_host(v, &n, 1, NB_F64, NB_CPU, 0, &t) != NB_OK) return NULL;
    if (requires_grad) nb_tensor_set_requires_grad(t, 1);
    return t;
}

/* loss = sum(exp(x * w)); returns x's gradient, weighted by (1, 2, 3) and summed. */
static double grad_of_x(counts* c, int hooks, int write_after) {
    const double xv[3] = {0.5, -1.0, 2.0}, wv[3] = {1.5, 0.25, -0.5};
    nb_tensor *x = vec(xv, 3, 1), *w = vec(wv, 3, 1), *y = NULL, *e = NULL, *s = NULL, *g = NULL;
    if (hooks) CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack, free_packed, c, destroy));
    CHECK_OK(nb_mul(x, w, NULL, &y));
    CHECK_OK(nb_exp(y, NULL, &e));
    if (hooks) CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_OK(nb_sum(e, NULL, 0, 0, -1, NULL, &s));
    if (write_after) { /* w changes after it was saved: only a packed copy keeps the old value */
        nb_tensor* two = NULL;
        CHECK_OK(nb_scalar(2.0, 2, NB_F64, &two));
        int prev = nb_set_grad_enabled(0);
        CHECK_OK(nb_mul(w, two, w, NULL));
        nb_set_grad_enabled(prev);
        nb_tensor_release(two);
    }
    CHECK_OK(nb_tensor_backward(s, NULL, 0, 0));
    CHECK_OK(nb_tensor_get_grad(x, &g));
    double gv[3] = {NAN, NAN, NAN};
    if (g != NULL) CHECK_OK(nb_tensor_copy_to_host(g, gv, sizeof gv));
    double out = gv[0] + 2 * gv[1] + 3 * gv[2];
    nb_tensor_release(g), nb_tensor_release(s), nb_tensor_release(e), nb_tensor_release(y);
    nb_tensor_release(x), nb_tensor_release(w);
    return out;
}

TEST(hooked_graph_gives_the_same_gradient_and_frees_every_packed_value) {
    counts c = {0};
    double plain = grad_of_x(&c, 0, 0), hooked = grad_of_x(&c, 1, 0);
    CHECK_EQ_DBL(hooked, plain);
    CHECK(c.packs >= 3); /* mul saves x and w, exp its result */
    CHECK_EQ_INT(c.unpacks, c.packs);
    CHECK_EQ_INT(c.frees, c.packs);
    CHECK_EQ_INT(c.destroys, 1);
}

TEST(a_packed_copy_survives_an_in_place_write) {
    counts c = {.copy = 1};
    double before = grad_of_x(&c, 0, 0);
    double hooked = grad_of_x(&c, 1, 1);
    CHECK_EQ_DBL(hooked, before); /* unhooked, the same write is refused by the version check */
    counts none = {0};
    const double xv[1] = {0.5};
    nb_tensor *x = vec(xv, 1, 1), *w = vec(xv, 1, 1), *y = NULL, *two = NULL;
    CHECK_OK(nb_mul(x, w, NULL, &y));
    CHECK_OK(nb_scalar(2.0, 2, NB_F64, &two));
    int prev = nb_set_grad_enabled(0);
    CHECK_OK(nb_mul(w, two, w, NULL));
    nb_set_grad_enabled(prev);
    CHECK_STATUS(nb_tensor_backward(y, NULL, 0, 0), NB_ERR_AUTOGRAD, "modified by an inplace operation");
    nb_tensor_release(two), nb_tensor_release(y), nb_tensor_release(x), nb_tensor_release(w);
    CHECK_EQ_INT(none.packs, 0);
}

TEST(inner_hooks_apply_and_outlive_their_pop) {
    counts outer = {0}, inner = {0};
    const double xv[2] = {1.0, 2.0};
    nb_tensor *x = vec(xv, 2, 1), *a = NULL, *b = NULL;
    CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack, free_packed, &outer, destroy));
    CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack, free_packed, &inner, destroy));
    CHECK_OK(nb_exp(x, NULL, &a));
    CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_EQ_INT(inner.destroys, 0); /* a's graph still holds the inner set */
    CHECK_OK(nb_sin(a, NULL, &b));
    CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_EQ_INT(inner.packs, 1);
    CHECK_EQ_INT(outer.packs, 1);
    CHECK_EQ_INT(outer.destroys, 0);
    nb_tensor_release(b);
    CHECK_EQ_INT(outer.frees, 1);
    CHECK_EQ_INT(outer.destroys, 1);
    nb_tensor_release(a);
    CHECK_EQ_INT(inner.frees, 1);
    CHECK_EQ_INT(inner.destroys, 1);
    nb_tensor_release(x);
}

TEST(hook_errors_reach_the_caller) {
    counts c = {.fail_pack = 1};
    const double xv[2] = {1.0, 2.0};
    nb_tensor *x = vec(xv, 2, 1), *y = NULL;
    CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack, free_packed, &c, destroy));
    CHECK_STATUS(nb_exp(x, NULL, &y), NB_ERR_INVALID_ARGUMENT, "pack refused");
    CHECK(y == NULL);
    CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_EQ_INT(c.destroys, 1);

    counts d = {0};
    nb_tensor* s = NULL;
    CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack_nothing, free_packed, &d, destroy));
    CHECK_OK(nb_exp(x, NULL, &y));
    CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_OK(nb_sum(y, NULL, 0, 0, -1, NULL, &s));
    CHECK_STATUS(nb_tensor_backward(s, NULL, 0, 0), NB_ERR_INVALID_ARGUMENT, "unpack hook");
    nb_tensor_release(s), nb_tensor_release(y);
    CHECK_EQ_INT(d.frees, 1);
    nb_tensor_release(x);

    CHECK_STATUS(nb_saved_tensors_hooks_pop(), NB_ERR_AUTOGRAD, "pop without a matching push");
    CHECK_STATUS(nb_saved_tensors_hooks_push(NULL, unpack, NULL, NULL, NULL), NB_ERR_INVALID_ARGUMENT, "NULL");
}

TEST(disabled_hooks_refuse_a_push) {
    CHECK(nb_saved_tensors_hooks_disabled_message() == NULL);
    CHECK_OK(nb_saved_tensors_hooks_disable("no hooks in this region"));
    CHECK_STR(nb_saved_tensors_hooks_disabled_message(), "no hooks in this region");
    counts c = {0};
    CHECK_STATUS(nb_saved_tensors_hooks_push(pack, unpack, free_packed, &c, destroy), NB_ERR_AUTOGRAD,
                 "no hooks in this region");
    CHECK_OK(nb_saved_tensors_hooks_disable(NULL));
    CHECK_OK(nb_saved_tensors_hooks_push(pack, unpack, free_packed, &c, destroy));
    CHECK_STATUS(nb_saved_tensors_hooks_disable("late"), NB_ERR_AUTOGRAD, "late");
    CHECK(nb_saved_tensors_hooks_disabled_message() == NULL);
    CHECK_OK(nb_saved_tensors_hooks_pop());
    CHECK_EQ_INT(c.destroys, 1);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(hooked_graph_gives_the_same_gradient_and_frees_every_packed_value);
    RUN(a_packed_copy_survives_an_in_place_write);
    RUN(inner_hooks_apply_and_outlive_their_pop);
    RUN(hook_errors_reach_the_caller);
    RUN(disabled_hooks_refuse_a_push);
    return NBT_END();
}
