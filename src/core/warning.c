/* warning.c: warnings (PyTorch's TORCH_WARN) go to a process-wide handler that a
 * binding installs to raise them in its own language; without one they go to stderr. */
#include "internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static nb_warning_fn handler;
static void* handler_payload;

NB_API void nb_set_warning_handler(nb_warning_fn fn, void* payload) {
    pthread_mutex_lock(&handler_lock);
    handler = fn;
    handler_payload = fn != NULL ? payload : NULL;
    pthread_mutex_unlock(&handler_lock);
}

nb_status nb_warn(const char* fmt, ...) {
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&handler_lock);
    nb_warning_fn fn = handler;
    void* payload = handler_payload;
    pthread_mutex_unlock(&handler_lock);
    if (fn == NULL) {
        fprintf(stderr, "nabla warning: %s\n", message);
        return NB_OK;
    }
    nb_clear_error();
    nb_status st = fn(payload, message);
    if (st != NB_OK && nb_last_error_status() != st) nb_error(st, "warning raised as an error: %s", message);
    return st;
}
