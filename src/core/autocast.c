/* autocast.c: PyTorch's autocast in the core, so every frontend has it.
 *
 * The state is per thread, as in PyTorch: per device type an on/off bit and a
 * low-precision dtype, a nesting depth, and a cache of weight casts. The op
 * entry points generated in dispatch.c from each op's "autocast" policy call
 * nb_ac_begin / nb_ac_end around the op. Casts are nb_tensor_to calls, so they
 * are differentiable (gradients reach float32 weights in float32) and show in
 * the profiler. A cast of a leaf that requires grad (a weight) is cached until
 * the outermost autocast region ends (nb_autocast_clear_cache). */
#include "autocast.h"
#include "../autograd/autograd.h"

#include <stdlib.h>

_Thread_local int32_t nb_ac_mask;
static _Thread_local int32_t ac_dtype[2] = {NB_BF16, NB_F16}; /* cpu, cuda */
static _Thread_local bool ac_cache_off;
static _Thread_local int32_t ac_nesting;

typedef struct cache_entry {
    nb_tensor* src;  /* strong: its address is the key, so it must not be reused while cached */
    nb_tensor* cast;
    int32_t dtype;
} cache_entry;

#define CACHE_MAX 4096
static _Thread_local cache_entry* cache;
static _Thread_local int32_t cache_n, cache_cap;

static int32_t dev_slot(int32_t device_type) {
    return device_type == NB_CPU ? 0 : device_type == NB_CUDA ? 1 : -1;
}

static nb_status bad_device(const char* op, int32_t device_type) {
    return nb_error(NB_ERR_DEVICE, "%s: autocast supports device types cpu and cuda, got %s (%d)", op,
                    nb_device_type_name(device_type), (int)device_type);
}

NB_API nb_status nb_autocast_set_enabled(int32_t device_type, int32_t enabled) {
    int32_t s = dev_slot(device_type);
    if (s < 0) return bad_device("autocast_set_enabled", device_type);
    nb_ac_mask = enabled ? (nb_ac_mask | (1 << s)) : (nb_ac_mask & ~(1 << s));
    return NB_OK;
}

NB_API int32_t nb_autocast_is_enabled(int32_t device_type) {
    int32_t s = dev_slot(device_type);
    return s >= 0 && (nb_ac_mask >> s & 1);
}

NB_API nb_status nb_autocast_set_dtype(int32_t device_type, int32_t dtype) {
    int32_t s = dev_slot(device_type);
    if (s < 0) return bad_device("autocast_set_dtype", device_type);
    if (dtype != NB_BF16 && dtype != NB_F16)
        return nb_error(NB_ERR_DTYPE, "autocast_set_dtype: %s autocast supports bfloat16 and float16, got %s",
                        nb_device_type_name(device_type), nb_dtype_name(dtype));
    ac_dtype[s] = dtype;
    return NB_OK;
}

NB_API int32_t nb_autocast_get_dtype(int32_t device_type) {
    int32_t s = dev_slot(device_type);
    return s < 0 ? -1 : ac_dtype[s];
}

NB_API void nb_autocast_set_cache_enabled(int32_t enabled) { ac_cache_off = !enabled; }
NB_API int32_t nb_autocast_is_cache_enabled(void) { return !ac_cache_off; }
NB_API int32_t nb_autocast_increment_nesting(void) { return ++ac_nesting; }
NB_API int32_t nb_autocast_decrement_nesting(void) { return ac_nesting > 0 ? --ac_nesting : 0; }

NB_API void nb_autocast_clear_cache(void) {
    for (int32_t i = 0; i < cache_n; i++) {
        nb_tensor_release(cache[i].src);
        nb_tensor_release(cache[i].cast);
    }
    free(cache);
    cache = NULL;
    cache_n = cache_cap = 0;
}

static bool cacheable(const nb_tensor* t) {
    return !ac_cache_off && t->ag != NULL && t->ag->requires_grad && t->ag->grad_fn == NULL;
}

/* t cast to dtype: a new reference, from the weight cache when t is a weight. */
static nb_status cast(const nb_tensor* t, int32_t dtype, nb_tensor** out) {
    bool use_cache = cacheable(t);
    if (use_cache)
        for (int32_t i = 0; i < cache_n; i++)
            if (cache[i].src == t && cache[i].dtype == dtype) {
                nb_tensor_retain(cache[i].cast);
                *out = cache[i].cast;
                return NB_OK;
            }
    nb_status st = nb_tensor_to(t, dtype, t->storage->device_type, t->storage->device_index, 0, out);
    if (st != NB_OK || !use_cache || cache_n >= CACHE_MAX) return st;
    if (cache_n == cache_cap) {
        int32_t cap = cache_cap ? 2 * cache_cap : 32;
        cache_entry* c = realloc(cache, (size_t)cap * sizeof *c);
        if (c == NULL) return NB_OK; /* not cached: still correct */
        cache = c;
        cache_cap = cap;
    }
    nb_tensor_retain((nb_tensor*)t);
    nb_tensor_retain(*out);
    cache[cache_n++] = (cache_entry){(nb_tensor*)t, *out, dtype};
    return NB_OK;
}

static bool is_float(int32_t dt) { return dt == NB_F32 || dt == NB_F16 || dt == NB_BF16 || dt == NB_F64; }

/* PyTorch's is_eligible: a floating tensor on the autocast device that is not float64. */
static bool eligible(const nb_tensor* t, int32_t device_type) {
    return nb_tensor_ok(t) && t->storage->device_type == device_type && is_float(t->dtype) && t->dtype != NB_F64;
}

nb_status nb_ac_begin(nb_ac_frame* f, const char* op, int32_t cpu_policy, int32_t cuda_policy,
                      const nb_tensor* const* inputs, int32_t n, const nb_tensor* const* list, int32_t n_list,
                      bool has_dst) {
    f->active = false;
    f->list_cast = NULL;
    f->list_owned = NULL;
    f->n_list = 0;
    for (int32_t i = 0; i < NB_AC_MAX_IN; i++) {
        f->t[i] = i < n ? inputs[i] : NULL;
        f->owned[i] = NULL;
    }
    f->list = list;
    const nb_tensor* first = NULL;
    for (int32_t i = 0; i < n && first == NULL; i++)
        if (nb_tensor_ok(inputs[i])) first = inputs[i];
    for (int32_t i = 0; list != NULL && i < n_list && first == NULL; i++)
        if (nb_tensor_ok(list[i])) first = list[i];
    if (first == NULL || has_dst) return NB_OK;
    const int32_t device = first->storage->device_type, s = dev_slot(device);
    if (s < 0 || !(nb_ac_mask >> s & 1)) return NB_OK;
    const int32_t policy = s == 0 ? cpu_policy : cuda_policy;
    if (policy == NB_AC_NONE) return NB_OK;
    int32_t target = policy == NB_AC_LOWER ? ac_dtype[s] : NB_F32;
    if (policy == NB_AC_PROMOTE) {
        target = -1;
        for (int32_t i = 0; i < n; i++)
            if (eligible(inputs[i], device)) target = target < 0 ? inputs[i]->dtype : nb_promote_types(target, inputs[i]->dtype);
        for (int32_t i = 0; list != NULL && i < n_list; i++)
            if (eligible(list[i], device)) target = target < 0 ? list[i]->dtype : nb_promote_types(target, list[i]->dtype);
        if (target < 0) return NB_OK;
    }
    nb_status st = NB_OK;
    for (int32_t i = 0; i < n && st == NB_OK; i++)
        if (eligible(inputs[i], device) && inputs[i]->dtype != target && (st = cast(inputs[i], target, &f->owned[i])) == NB_OK)
            f->t[i] = f->owned[i];
    if (st == NB_OK && list != NULL && n_list > 0) {
        bool any = false;
        for (int32_t i = 0; i < n_list; i++) any |= eligible(list[i], device) && list[i]->dtype != target;
        if (any) {
            f->list_cast = calloc((size_t)n_list, sizeof *f->list_cast);
            f->list_owned = calloc((size_t)n_list, sizeof *f->list_owned);
            if (f->list_cast == NULL || f->list_owned == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
            f->n_list = n_list;
            for (int32_t i = 0; i < n_list && st == NB_OK; i++) {
                f->list_cast[i] = list[i];
                if (eligible(list[i], device) && list[i]->dtype != target &&
                    (st = cast(list[i], target, &f->list_owned[i])) == NB_OK)
                    f->list_cast[i] = f->list_owned[i];
            }
            if (st == NB_OK) f->list = f->list_cast;
        }
    }
    f->mask = nb_ac_mask;
    if (st != NB_OK) {
        nb_ac_end(f);
        return st;
    }
    nb_ac_mask = 0; /* what the op calls runs as written (PyTorch excludes the autocast key below it) */
    f->active = true;
    return NB_OK;
}

void nb_ac_end(nb_ac_frame* f) {
    if (f->active) nb_ac_mask = f->mask;
    f->active = false;
    for (int32_t i = 0; i < NB_AC_MAX_IN; i++) {
        nb_tensor_release(f->owned[i]);
        f->owned[i] = NULL;
    }
    for (int32_t i = 0; f->list_owned != NULL && i < f->n_list; i++) nb_tensor_release(f->list_owned[i]);
    free(f->list_owned);
    free(f->list_cast);
    f->list_owned = NULL;
    f->list_cast = NULL;
}
