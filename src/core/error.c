/* error.c: thread-local status + message, the version query, status names. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

#define NB_ERROR_CAP 1024
#define NB_SHAPE_RING 4
#define NB_SHAPE_CAP 256

static _Thread_local nb_status tls_status = NB_OK;
static _Thread_local char tls_message[NB_ERROR_CAP];

nb_status nb_error(nb_status status, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    tls_status = status;
    return status;
}

NB_API const char* nb_last_error_message(void) { return tls_message; }
NB_API nb_status nb_last_error_status(void) { return tls_status; }

NB_API void nb_clear_error(void) {
    tls_status = NB_OK;
    tls_message[0] = '\0';
}

NB_API const char* nb_status_name(nb_status status) {
    static const char* const names[] = {
        "NB_OK", "NB_ERR_INVALID_ARGUMENT", "NB_ERR_SHAPE", "NB_ERR_DTYPE", "NB_ERR_DEVICE",
        "NB_ERR_INDEX", "NB_ERR_OUT_OF_MEMORY", "NB_ERR_NOT_IMPLEMENTED", "NB_ERR_AUTOGRAD",
        "NB_ERR_BACKEND", "NB_ERR_ABI_VERSION", "NB_ERR_INTERNAL", "NB_ERR_LINALG",
    };
    _Static_assert(sizeof names / sizeof names[0] == NB_ERR_LINALG + 1, "status name table");
    if (status < 0 || status > NB_ERR_LINALG) return "NB_UNKNOWN_STATUS";
    return names[status];
}

const char* nb_shape_str(const int64_t* shape, int32_t ndim) {
    static _Thread_local char ring[NB_SHAPE_RING][NB_SHAPE_CAP];
    static _Thread_local int next;
    char* buf = ring[next];
    next = (next + 1) % NB_SHAPE_RING;
    size_t len = 0;
    int32_t i = 0;
    buf[len++] = '[';
    for (; shape != NULL && i < ndim && len < NB_SHAPE_CAP - 32; i++) {
        len += (size_t)snprintf(buf + len, NB_SHAPE_CAP - len, i ? ", %lld" : "%lld",
                                (long long)shape[i]);
    }
    if (shape != NULL && i < ndim) len += (size_t)snprintf(buf + len, NB_SHAPE_CAP - len, ", ...");
    snprintf(buf + len, NB_SHAPE_CAP - len, "]");
    return buf;
}

nb_status nb_bad_handle(const char* op, const char* arg, const nb_tensor* t) {
    if (t == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensor '%s' is NULL", op, arg);
    if (t->magic == NB_TENSOR_DEAD)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensor '%s' is not a live nabla tensor: it was released (stale handle %p)",
                        op, arg, (const void*)t);
    return nb_error(NB_ERR_INVALID_ARGUMENT,
                    "%s: tensor '%s' is not a live nabla tensor (released or corrupt handle %p)",
                    op, arg, (const void*)t);
}

void nb_bad_release(const char* fn, const char* kind, const void* h, uint32_t magic) {
    /* The thread's last error survives: a release returns void, and callers release on error paths. */
    nb_status st = nb_last_error_status();
    char saved[NB_ERROR_CAP];
    snprintf(saved, sizeof saved, "%s", nb_last_error_message());
    if (magic == NB_TENSOR_DEAD)
        nb_warn("%s: %s %p was already released (double release; the second one is ignored)", fn, kind, h);
    else
        nb_warn("%s: %p is not a live nabla %s (released long ago or corrupt handle); ignored", fn, h, kind);
    if (st != NB_OK) nb_error(st, "%s", saved);
}

NB_API uint32_t nb_version(void) { return NB_VERSION_NUMBER; }

#define NB_STR2(x) #x
#define NB_STR(x) NB_STR2(x)
NB_API const char* nb_version_string(void) {
    return NB_STR(NB_VERSION_MAJOR) "." NB_STR(NB_VERSION_MINOR) "." NB_STR(NB_VERSION_PATCH);
}

/* ---- blocking hooks (see nb_set_blocking_hooks) ---- */

static _Atomic(nb_blocking_begin_fn) blocking_begin;
static _Atomic(nb_blocking_end_fn) blocking_end;

NB_API void nb_set_blocking_hooks(nb_blocking_begin_fn begin, nb_blocking_end_fn end) {
    atomic_store(&blocking_end, begin ? end : NULL);
    atomic_store(&blocking_begin, end ? begin : NULL);
}

void* nb_blocking_begin(nb_blocking_end_fn* end) {
    nb_blocking_begin_fn begin = atomic_load_explicit(&blocking_begin, memory_order_acquire);
    *end = atomic_load_explicit(&blocking_end, memory_order_acquire);
    return begin != NULL && *end != NULL ? begin() : NULL;
}
