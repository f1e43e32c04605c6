/* random.c: the formula of dropout. Training, the forward draws the scaled keep
 * mask explicitly (dropout of ones: 0 or 1 / (1 - p), from the same generator
 * stream and the same words the fused op would use, so the values are the same)
 * and multiplies; backward is go * mask (saved in slot 0). Not training (or
 * p = 0) dropout is the identity and so is its gradient. */
#include "../autograd.h"

static nb_status mask_bw(nb_bw* b) {
    bw_set(b, 0, bw_mul(b, b->go[0], bw_saved(b, 0)));
    return b->st;
}

static nb_status identity_bw(nb_bw* b) {
    bw_set(b, 0, b->go[0]);
    return b->st;
}

nb_status nb_agf_dropout(const nb_tensor* x, double p, int32_t train, nb_generator* gen, nb_tensor* dst,
                         nb_tensor** out) {
    if (dst == NULL && out == NULL) return nbi_dropout(x, p, train, gen, dst, out);  /* its NULL-out error */
    bool identity = !train || p == 0;
    nb_ag_rec r;
    nb_status st = nb_ag_begin(&r, "dropout", "NativeDropoutBackward0", identity ? identity_bw : mask_bw, dst, 1, &x,
                               1);
    if (st != NB_OK) return st;
    nb_tensor* y = NULL;
    if (identity || !nb_tensor_ok(x) || !(p > 0 && p <= 1) || !nb_dtype_is_floating(x->dtype)) {
        st = nbi_dropout(x, p, train, gen, dst, &y); /* the identity, or the op's own error */
        if (st == NB_OK && y == x) { /* x itself: no node */
            nb_ag_end(&r, NB_OK, NULL, 0);
            if (out != NULL) *out = y;  /* out may be NULL when dst is given */
            else nb_tensor_release(y);
            return NB_OK;
        }
        return nb_ag_finish1(&r, st, y, out);
    }
    nb_tensor *ones = NULL, *mask = NULL;
    st = nb_ones(x->shape, x->ndim, x->dtype, x->storage->device_type, x->storage->device_index, &ones);
    if (st == NB_OK) st = nbi_dropout(ones, p, 1, gen, NULL, &mask);
    if (st == NB_OK) st = nbi_mul(x, mask, dst, &y);
    if (st == NB_OK) st = nb_ag_save_input(&r, 0, mask);
    nb_tensor_release(ones);
    nb_tensor_release(mask);
    return nb_ag_finish1(&r, st, y, out);
}
