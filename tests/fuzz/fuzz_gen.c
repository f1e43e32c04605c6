/* fuzz_gen.c: random values, shapes, tensors and views for the ABI fuzzer, the
 * tensor pool of an episode, and the checks made after every call. */
#include "fuzz.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

fz_state FZ;
const char* fz_current = "start";

uint64_t fz_next(void) {  /* splitmix64 */
    uint64_t z = (FZ.s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int64_t fz_below(int64_t n) { return n <= 1 ? 0 : (int64_t)(fz_next() % (uint64_t)n); }
int fz_chance(int percent) { return fz_below(100) < percent; }
int fz_excluded(uint32_t family) { return (FZ.exclude & family) != 0; }

int32_t fz_dtype(void) {
    static const int32_t d[] = {NB_F32, NB_F32, NB_F32, NB_F64, NB_F16, NB_BF16, NB_I8, NB_I16,
                                NB_I32, NB_I64, NB_I64, NB_U8, NB_BOOL};
    return d[fz_below(sizeof d / sizeof d[0])];
}

int32_t fz_any_dtype(void) {
    if (fz_chance(90)) return fz_dtype();
    static const int32_t bad[] = {-1, 10, 11, 255, INT32_MAX, INT32_MIN};
    return bad[fz_below(6)];
}

int64_t fz_small_int(void) {
    if (fz_chance(93)) return fz_below(9) - 2;
    /* Sizes no allocation can satisfy, never merely large ones: 2^31 elements is valid and slow. */
    static const int64_t huge[] = {INT64_MAX, INT64_MIN, INT64_MAX - 1, (int64_t)1 << 50, -((int64_t)1 << 40),
                                   (int64_t)1 << 62, -(int64_t)INT32_MAX, (int64_t)1 << 61, 17, 64};
    return huge[fz_below(10)];
}

int32_t fz_int32(void) {
    if (fz_chance(92)) return (int32_t)(fz_below(6) - 1);
    static const int32_t odd[] = {INT32_MAX, INT32_MIN, -2, 7, 16, 17, 100, 1000};
    return odd[fz_below(8)];
}

double fz_double(void) {
    static const double v[] = {0.0, 1.0, -1.0, 0.5, 2.0, 0.1, 1e-5, 3.0, -0.0, -2.5, 0.9, 10.0,
                               NAN, INFINITY, -INFINITY, 1e308, -1e308, 5e-324, 1e20, 255.0};
    return v[fz_chance(85) ? fz_below(12) : 12 + fz_below(8)];
}

int fz_shape(int64_t* shape) {
    static const int64_t dims[] = {1, 1, 2, 2, 3, 3, 4, 5, 0};
    int ndim = (int)fz_below(5);
    for (int d = 0; d < ndim; d++) shape[d] = dims[fz_below(fz_chance(90) ? 8 : 9)];
    return ndim;
}

/* f32 values that make ops interesting: small integers (valid indices), fractions,
 * and now and then NaN, infinities and signed zeros. */
static float fz_value(int32_t dtype) {
    if (dtype == NB_BOOL) return (float)fz_below(2);
    if (dtype != NB_F32 && dtype != NB_F64 && dtype != NB_F16 && dtype != NB_BF16) return (float)(fz_below(8) - 2);
    if (fz_chance(4)) {
        static const float odd[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e30f, -1e-30f};
        return odd[fz_below(6)];
    }
    return fz_chance(50) ? (float)(fz_below(8) - 2) : (float)(fz_below(2001) - 1000) / 300.0f;
}

nb_tensor* fz_tensor(int32_t dtype, const int64_t* shape, int ndim) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= shape[d];
    if (n > 4096) return NULL;
    float buf[4096];
    for (int64_t i = 0; i < n; i++) buf[i] = fz_value(dtype);
    nb_tensor *f = NULL, *t = NULL;
    fz_current = "nb_tensor_from_host";
    nb_status st = nb_tensor_from_host(buf, shape, ndim, NB_F32, NB_CPU, 0, &f);
    fz_check_status("nb_tensor_from_host", st);
    if (st != NB_OK) return NULL;
    if (dtype == NB_F32) return f;
    fz_current = "nb_tensor_to";
    st = nb_tensor_to(f, dtype, -1, 0, 0, &t);
    fz_check_status("nb_tensor_to", st);
    nb_tensor_release(f);
    return st == NB_OK ? t : NULL;
}

/* A tensor made through one of the factories; some shapes are empty or huge. */
nb_tensor* fz_random_tensor(void) {
    int64_t shape[NB_MAX_DIMS];
    int ndim = fz_shape(shape);
    int32_t dtype = fz_dtype();
    nb_tensor* t = NULL;
    nb_status st;
    if (!fz_excluded(FZ_X_HUGE_DIMS) && fz_chance(3)) {  /* a 0 next to a huge dim: numel 0 */
        ndim = 2 + (int)fz_below(2);
        shape[0] = 0;
        shape[1] = fz_chance(50) ? INT64_MAX : ((int64_t)1 << 62);
        if (ndim == 3) shape[2] = fz_below(3);
        if (fz_chance(50)) { int64_t s = shape[0]; shape[0] = shape[1]; shape[1] = s; }
        fz_current = "nb_empty";
        st = nb_empty(shape, ndim, dtype, NB_CPU, 0, &t);
        fz_check_status("nb_empty(huge)", st);
        return st == NB_OK ? t : NULL;
    }
    switch (fz_below(5)) {
    case 0:
        fz_current = "nb_zeros";
        st = nb_zeros(shape, ndim, dtype, NB_CPU, 0, &t);
        fz_check_status("nb_zeros", st);
        return st == NB_OK ? t : NULL;
    case 1:
        fz_current = "nb_full";
        st = nb_full(shape, ndim, fz_double(), dtype, NB_CPU, 0, &t);
        fz_check_status("nb_full", st);
        return st == NB_OK ? t : NULL;
    case 2:
        fz_current = "nb_arange";
        st = nb_arange(fz_double(), fz_double(), fz_chance(80) ? 1.0 : fz_double(), fz_any_dtype(), NB_CPU, 0, &t);
        fz_check_status("nb_arange", st);
        if (st == NB_OK && nb_tensor_numel(t) > 100000) { nb_tensor_release(t); return NULL; }
        return st == NB_OK ? t : NULL;
    default:
        return fz_tensor(dtype, shape, ndim);
    }
}

/* A random view of t: transposed, sliced with a step, selected, broadcast, permuted,
 * or as_strided; NULL when the random arguments are refused (that must be an error). */
nb_tensor* fz_view(nb_tensor* t) {
    if (t == NULL) return NULL;
    int32_t nd = nb_tensor_ndim(t);
    const int64_t* sh = nb_tensor_shape(t);
    nb_tensor* v = NULL;
    nb_status st;
    int64_t a[NB_MAX_DIMS + 2], b[NB_MAX_DIMS + 2];
    int64_t d0 = nd > 0 ? fz_below(nd) : 0;
    switch (fz_below(8)) {
    case 0:
        fz_current = "nb_tensor_transpose";
        st = nb_tensor_transpose(t, d0, nd > 0 ? fz_below(nd) : fz_small_int(), &v);
        break;
    case 1:
        fz_current = "nb_tensor_slice";
        st = nb_tensor_slice(t, fz_chance(90) ? d0 : fz_small_int(), fz_small_int(), fz_chance(30) ? INT64_MAX
                             : fz_small_int(), 1 + fz_below(3), &v);
        break;
    case 2:
        fz_current = "nb_tensor_select";
        st = nb_tensor_select(t, d0, nd > 0 ? fz_below(sh[d0] < INT64_MAX ? sh[d0] + 1 : sh[d0]) - (fz_chance(30) ? sh[d0] : 0) : 0, &v);
        break;
    case 3: {  /* broadcast: a leading dim and some 1s grow */
        int n = nd + (int)fz_below(2);
        if (n > NB_MAX_DIMS) n = NB_MAX_DIMS;
        for (int i = 0; i < n; i++) {
            int src = i - (n - nd);
            a[i] = src < 0 ? 1 + fz_below(3) : (sh[src] == 1 ? 1 + fz_below(3) : (fz_chance(80) ? sh[src] : -1));
        }
        fz_current = "nb_tensor_expand";
        st = nb_tensor_expand(t, a, n, &v);
        break;
    }
    case 4:
        for (int i = 0; i < nd; i++) a[i] = i;
        for (int i = nd - 1; i > 0; i--) { int64_t j = fz_below(i + 1), s = a[i]; a[i] = a[j]; a[j] = s; }
        fz_current = "nb_tensor_permute";
        st = nb_tensor_permute(t, a, nd, &v);
        break;
    case 5:
        fz_current = "nb_tensor_unsqueeze";
        st = nb_tensor_unsqueeze(t, fz_below(nd + 1), &v);
        break;
    case 6:
        fz_current = "nb_tensor_narrow";
        st = nb_tensor_narrow(t, d0, fz_below(3), fz_below(3), &v);
        break;
    default: {
        if (fz_excluded(FZ_X_AS_STRIDED)) return NULL;
        /* as_strided: shapes and strides that may or may not fit the storage; an
         * accepted view must lie inside it (fz_touch reads all of it). */
        int n = (int)fz_below(4);
        for (int i = 0; i < n; i++) {
            a[i] = fz_chance(90) ? fz_below(4) : fz_small_int();
            b[i] = fz_chance(90) ? fz_below(4) : fz_small_int();
        }
        /* A huge dim stays beside a 0: a non-empty view of 2^50 elements (stride 0) is valid,
         * but an op that reads it runs for days, in nabla as in PyTorch. */
        int64_t numel = 1;
        for (int i = 0; i < n; i++)
            if (a[i] > 0 && numel <= INT64_MAX / a[i]) numel *= a[i];
            else numel = a[i] < 0 ? numel : INT64_MAX;
        if (numel > (1 << 16)) a[fz_below(n)] = 0;
        int64_t off = fz_chance(85) ? fz_below(4) : fz_small_int();
        fz_current = "nb_tensor_as_strided";
        st = nb_tensor_as_strided(t, a, b, n, off, &v);
        break;
    }
    }
    fz_check_status(fz_current, st);
    if (st != NB_OK) return NULL;
    fz_touch(fz_current, v);
    return v;
}

nb_tensor* fz_pick(void) {  /* a filled slot when there is one */
    int start = (int)fz_below(FZ_SLOTS);
    for (int i = 0; i < FZ_SLOTS; i++)
        if (FZ.slot[(start + i) % FZ_SLOTS] != NULL) return FZ.slot[(start + i) % FZ_SLOTS];
    return NULL;
}

void fz_keep(nb_tensor* t) {
    if (t == NULL) return;
    int i = (int)fz_below(FZ_SLOTS);
    nb_tensor_release(FZ.slot[i]);
    FZ.slot[i] = t;
}

void fz_pool_clear(void) {
    for (int i = 0; i < FZ_SLOTS; i++) { nb_tensor_release(FZ.slot[i]); FZ.slot[i] = NULL; }
}

void fz_violation(const char* what, const char* fmt, ...) {
    FZ.violations++;
    fprintf(stderr, "VIOLATION seed=%llu episode=%lld step=%lld %s: ", (unsigned long long)FZ.seed,
            (long long)FZ.episode, (long long)FZ.step, what);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Every failure names itself: a known status, a non-empty message; never INTERNAL. */
void fz_check_status(const char* what, nb_status st) {
    if (st == NB_OK) return;
    const char* msg = nb_last_error_message();
    if (msg == NULL || msg[0] == '\0') fz_violation(what, "status %d with an empty error message", st);
    if (st < 0 || st > NB_ERR_LINALG) fz_violation(what, "unknown status %d (%s)", st, msg ? msg : "");
    if (st == NB_ERR_INTERNAL) fz_violation(what, "NB_ERR_INTERNAL: %s", msg ? msg : "");
}

/* Consistent metadata, and every element readable (ASan sees a view that leaves
 * its storage). Large results are only checked, not copied. */
void fz_touch(const char* what, const nb_tensor* t) {
    if (t == NULL) return;
    int32_t nd = nb_tensor_ndim(t), dt = nb_tensor_dtype(t);
    if (nd < 0 || nd > NB_MAX_DIMS) { fz_violation(what, "result ndim %d", nd); return; }
    if (dt < 0 || dt > NB_BOOL) { fz_violation(what, "result dtype %d", dt); return; }
    const int64_t* sh = nb_tensor_shape(t);
    int64_t n = 1;
    for (int d = 0; d < nd; d++) {
        if (sh[d] < 0) { fz_violation(what, "result dim %d is %lld", d, (long long)sh[d]); return; }
        if (sh[d] != 0 && n > INT64_MAX / sh[d]) n = INT64_MAX; else n *= sh[d];
    }
    for (int d = 0; d < nd; d++) if (sh[d] == 0) n = 0;
    if (nb_tensor_numel(t) != n) fz_violation(what, "numel %lld, shape product %lld",
                                              (long long)nb_tensor_numel(t), (long long)n);
    if (n > ((int64_t)1 << 20)) return;
    size_t nbytes = (size_t)n * (size_t)nb_dtype_size(dt);
    void* buf = malloc(nbytes ? nbytes : 1);
    if (buf == NULL) return;
    const char* prev = fz_current;
    fz_current = "nb_tensor_copy_to_host";
    nb_status st = nb_tensor_copy_to_host(t, buf, (int64_t)nbytes);
    fz_current = prev;
    if (st != NB_OK) fz_violation(what, "copy_to_host of the result failed: %s", nb_last_error_message());
    free(buf);
}
