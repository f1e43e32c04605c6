/* nbtest.h: a tiny single-header test framework for nabla's C tests.
 *
 *   TEST(test_name) { CHECK(x); CHECK_EQ_INT(a, b); CHECK_OK(call);
 *                     CHECK_STATUS(call, NB_ERR_SHAPE, "substring"); }
 *   int main(int argc, char** argv) {
 *       NBT_BEGIN(argc, argv);
 *       RUN(test_name);
 *       return NBT_END();
 *   }
 *
 * Every failed check prints "file:line: expression" (plus values). A test that
 * cannot run here calls SKIP("why") and returns; it prints "SKIP name: why".
 * The last line of output is always "N passed, M failed" (N, M count test
 * functions), followed by ", K skipped" when K > 0, and the exit status is 0
 * only when nothing failed. Checks may run on any thread.
 * Command line: plain arguments filter tests by substring of their name;
 * "--skip=NAME" skips a test. NB_TEST_QUICK=1 in the environment asks programs
 * for fewer iterations (see nbt_iters). */
#ifndef NBTEST_H_
#define NBTEST_H_

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */
#endif

#include "nabla.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_int nbt_failed_checks;
static int nbt_passed, nbt_failed, nbt_skipped, nbt_argc;
static char nbt_skip_reason[256];
static char** nbt_argv;

static inline void nbt_fail(const char* file, int line, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void nbt_fail(const char* file, int line, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s:%d: FAILED %s\n", file, line, buf);  /* one printf: lines don't interleave */
    fflush(stdout);
    atomic_fetch_add(&nbt_failed_checks, 1);
}

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) nbt_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);    \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                    \
        long long nbt_a_ = (long long)(a), nbt_b_ = (long long)(b);                         \
        if (nbt_a_ != nbt_b_)                                                               \
            nbt_fail(__FILE__, __LINE__, "CHECK_EQ_INT(%s, %s): %lld != %lld", #a, #b,      \
                     nbt_a_, nbt_b_);                                                       \
    } while (0)

/* Exact comparison of doubles (NaN never equals); use for values nabla must get exactly. */
#define CHECK_EQ_DBL(a, b)                                                                  \
    do {                                                                                    \
        double nbt_a_ = (double)(a), nbt_b_ = (double)(b);                                  \
        if (!(nbt_a_ == nbt_b_))                                                            \
            nbt_fail(__FILE__, __LINE__, "CHECK_EQ_DBL(%s, %s): %.17g != %.17g", #a, #b,    \
                     nbt_a_, nbt_b_);                                                       \
    } while (0)

#define CHECK_STR(a, b)                                                                     \
    do {                                                                                    \
        const char *nbt_a_ = (a), *nbt_b_ = (b);                                            \
        if (nbt_a_ == NULL || nbt_b_ == NULL || strcmp(nbt_a_, nbt_b_) != 0)                \
            nbt_fail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" != \"%s\"", #a, #b,     \
                     nbt_a_ ? nbt_a_ : "(null)", nbt_b_ ? nbt_b_ : "(null)");               \
    } while (0)

/* A call that must succeed; on failure prints the status name and message. */
#define CHECK_OK(call)                                                                      \
    do {                                                                                    \
        nb_status nbt_s_ = (call);                                                          \
        if (nbt_s_ != NB_OK)                                                                \
            nbt_fail(__FILE__, __LINE__, "CHECK_OK(%s): %s: %s", #call,                     \
                     nb_status_name(nbt_s_), nb_last_error_message());                      \
    } while (0)

/* The last error message contains substr. */
#define CHECK_MSG(substr)                                                                   \
    do {                                                                                    \
        const char* nbt_m_ = nb_last_error_message();                                       \
        if (nbt_m_ == NULL || strstr(nbt_m_, (substr)) == NULL)                             \
            nbt_fail(__FILE__, __LINE__, "CHECK_MSG(\"%s\"): message is \"%s\"", (substr),  \
                     nbt_m_ ? nbt_m_ : "(null)");                                           \
    } while (0)

/* A call that must fail with `expected`, recording that status as the thread's
 * last error with a non-empty message containing substr. */
#define CHECK_STATUS(call, expected, substr)                                                \
    do {                                                                                    \
        nb_clear_error();                                                                   \
        nb_status nbt_s_ = (call);                                                          \
        const char* nbt_m_ = nb_last_error_message();                                       \
        if (nbt_s_ != (expected))                                                           \
            nbt_fail(__FILE__, __LINE__, "CHECK_STATUS(%s): got %s, want %s (message \"%s\")", \
                     #call, nb_status_name(nbt_s_), nb_status_name(expected),               \
                     nbt_m_ ? nbt_m_ : "(null)");                                           \
        else if (nb_last_error_status() != (expected))                                      \
            nbt_fail(__FILE__, __LINE__, "CHECK_STATUS(%s): nb_last_error_status() is %s",  \
                     #call, nb_status_name(nb_last_error_status()));                        \
        else if (nbt_m_ == NULL || nbt_m_[0] == '\0')                                       \
            nbt_fail(__FILE__, __LINE__, "CHECK_STATUS(%s): empty error message", #call);   \
        else if (strstr(nbt_m_, (substr)) == NULL)                                          \
            nbt_fail(__FILE__, __LINE__, "CHECK_STATUS(%s): message \"%s\" lacks \"%s\"",   \
                     #call, nbt_m_, (substr));                                              \
    } while (0)

/* Runs the statements in a forked child, so that a crash fails this check (with the
 * signal number) instead of ending the whole program. The child's failed checks
 * print their own lines and fail the check too. */
#define CHECK_NO_CRASH(...)                                                                 \
    do {                                                                                    \
        fflush(stdout);                                                                     \
        pid_t nbt_pid_ = fork();                                                            \
        if (nbt_pid_ == 0) {                                                                \
            int nbt_before_ = atomic_load(&nbt_failed_checks);                              \
            __VA_ARGS__;                                                                    \
            fflush(stdout);                                                                 \
            _exit(atomic_load(&nbt_failed_checks) == nbt_before_ ? 0 : 1);                  \
        }                                                                                   \
        nbt_wait_child(__FILE__, __LINE__, #__VA_ARGS__, nbt_pid_);                         \
    } while (0)

static inline void nbt_wait_child(const char* file, int line, const char* what, pid_t pid) {
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        nbt_fail(file, line, "CHECK_NO_CRASH(%s): fork/waitpid failed", what);
    } else if (WIFSIGNALED(status)) {
        nbt_fail(file, line, "CHECK_NO_CRASH(%s): crashed with signal %d", what, WTERMSIG(status));
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        nbt_fail(file, line, "CHECK_NO_CRASH(%s): checks failed in the child", what);
    }
}

/* Marks the running test skipped (the caller returns right after). */
#define SKIP(...) snprintf(nbt_skip_reason, sizeof nbt_skip_reason, __VA_ARGS__)

/* ---- the runner ---- */

#define TEST(name) static void name(void)
#define RUN(name) nbt_run(#name, name)
#define NBT_BEGIN(argc, argv) (nbt_argc = (argc), nbt_argv = (argv), setvbuf(stdout, NULL, _IOLBF, 0))
#define NBT_END() nbt_end()

static inline int nbt_selected(const char* name) {
    int has_filter = 0, match = 0;
    for (int i = 1; i < nbt_argc; i++) {
        const char* a = nbt_argv[i];
        if (strncmp(a, "--skip=", 7) == 0) {
            if (strcmp(a + 7, name) == 0) return 0;
        } else if (strncmp(a, "--", 2) != 0) {
            has_filter = 1;
            if (strstr(name, a) != NULL) match = 1;
        }
    }
    return !has_filter || match;
}

static inline void nbt_run(const char* name, void (*fn)(void)) {
    if (!nbt_selected(name)) return;
    int before = atomic_load(&nbt_failed_checks);
    nbt_skip_reason[0] = '\0';
    fn();
    if (atomic_load(&nbt_failed_checks) == before && nbt_skip_reason[0] != '\0') {
        nbt_skipped++;
        printf("SKIP %s: %s\n", name, nbt_skip_reason);
    } else if (atomic_load(&nbt_failed_checks) == before) {
        nbt_passed++;
    } else {
        nbt_failed++;
        printf("FAIL %s\n", name);
    }
}

static inline int nbt_end(void) {
    if (nbt_skipped > 0)
        printf("%d passed, %d failed, %d skipped\n", nbt_passed, nbt_failed, nbt_skipped);
    else
        printf("%d passed, %d failed\n", nbt_passed, nbt_failed);
    fflush(stdout);
    return nbt_failed == 0 && atomic_load(&nbt_failed_checks) == 0 ? 0 : 1;
}

/* `full` normally, `quick` when NB_TEST_QUICK is set to a non-empty value other than "0". */
static inline long nbt_iters(long full, long quick) {
    const char* q = getenv("NB_TEST_QUICK");
    return (q != NULL && q[0] != '\0' && strcmp(q, "0") != 0) ? quick : full;
}

/* ---- nabla helpers ---- */

/* CPU allocator counters (all zero if the call fails, which a check reports). */
static inline nb_memory_stats nbt_stats(void) {
    nb_memory_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    nb_status st = nb_memory_stats_get(NB_CPU, 0, &s);
    if (st != NB_OK) nbt_fail(__FILE__, __LINE__, "nb_memory_stats_get: %s", nb_last_error_message());
    return s;
}

/* A CPU tensor of `dtype` holding `values` (given as doubles, converted by nabla). */
static inline nb_tensor* nbt_tensor(const double* values, const int64_t* shape, int32_t ndim,
                                    int32_t dtype) {
    nb_tensor *f64 = NULL, *t = NULL;
    if (nb_tensor_from_host(values, shape, ndim, NB_F64, NB_CPU, 0, &f64) != NB_OK ||
        nb_tensor_to(f64, dtype, NB_CPU, 0, 0, &t) != NB_OK)
        nbt_fail(__FILE__, __LINE__, "nbt_tensor: %s", nb_last_error_message());
    nb_tensor_release(f64);
    return t;
}

/* arange(0, n) as float32, viewed as shape (the handy test input). */
static inline nb_tensor* nbt_iota(const int64_t* shape, int32_t ndim, int32_t dtype) {
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) n *= shape[i];
    nb_tensor *flat = NULL, *t = NULL;
    if (nb_arange(0, (double)n, 1, dtype, NB_CPU, 0, &flat) != NB_OK ||
        nb_tensor_view(flat, shape, ndim, &t) != NB_OK)
        nbt_fail(__FILE__, __LINE__, "nbt_iota: %s", nb_last_error_message());
    nb_tensor_release(flat);
    return t;
}

/* Copies t's elements (row-major) out as doubles; returns the count, or -1. */
static inline int64_t nbt_values(const nb_tensor* t, double* out, int64_t cap) {
    nb_tensor* f64 = NULL;
    int64_t n = nb_tensor_numel(t);
    if (n < 0 || n > cap || nb_tensor_to(t, NB_F64, NB_CPU, 0, 1, &f64) != NB_OK ||
        nb_tensor_copy_to_host(f64, out, n * 8) != NB_OK) {
        nbt_fail(__FILE__, __LINE__, "nbt_values: %s", nb_last_error_message());
        n = -1;
    }
    nb_tensor_release(f64);
    return n;
}

/* t's values equal expected[0..n) exactly. */
#define CHECK_VALUES(t, expected, n)                                                        \
    do {                                                                                    \
        double nbt_v_[4096];                                                                \
        int64_t nbt_n_ = nbt_values((t), nbt_v_, 4096);                                     \
        if (nbt_n_ != (int64_t)(n)) {                                                       \
            nbt_fail(__FILE__, __LINE__, "CHECK_VALUES(%s): %lld elements, want %lld", #t,  \
                     (long long)nbt_n_, (long long)(n));                                    \
            break;                                                                          \
        }                                                                                   \
        for (int64_t nbt_i_ = 0; nbt_i_ < nbt_n_; nbt_i_++)                                 \
            if (!(nbt_v_[nbt_i_] == (expected)[nbt_i_])) {                                  \
                nbt_fail(__FILE__, __LINE__, "CHECK_VALUES(%s)[%lld]: %.17g != %.17g", #t,  \
                         (long long)nbt_i_, nbt_v_[nbt_i_], (double)(expected)[nbt_i_]);    \
                break;                                                                      \
            }                                                                               \
    } while (0)

/* t has exactly this shape. */
#define CHECK_SHAPE(t, ...)                                                                 \
    do {                                                                                    \
        const int64_t nbt_want_[] = {__VA_ARGS__};                                          \
        nbt_check_dims(__FILE__, __LINE__, #t, "shape", nb_tensor_ndim(t), nb_tensor_shape(t), \
                       nbt_want_, (int32_t)(sizeof nbt_want_ / sizeof nbt_want_[0]));       \
    } while (0)
#define CHECK_STRIDES(t, ...)                                                               \
    do {                                                                                    \
        const int64_t nbt_want_[] = {__VA_ARGS__};                                          \
        nbt_check_dims(__FILE__, __LINE__, #t, "strides", nb_tensor_ndim(t),                \
                       nb_tensor_strides(t), nbt_want_,                                     \
                       (int32_t)(sizeof nbt_want_ / sizeof nbt_want_[0]));                  \
    } while (0)

static inline void nbt_check_dims(const char* file, int line, const char* expr, const char* what,
                                  int32_t ndim, const int64_t* got, const int64_t* want,
                                  int32_t want_ndim) {
    int ok = ndim == want_ndim && (ndim == 0 || got != NULL);
    for (int32_t i = 0; ok && i < ndim; i++) ok = got[i] == want[i];
    if (ok) return;
    char g[256] = "", w[256] = "";
    size_t gl = 0, wl = 0;
    for (int32_t i = 0; got != NULL && i < ndim && i < 16; i++)
        gl += (size_t)snprintf(g + gl, sizeof g - gl, "%s%lld", i ? ", " : "", (long long)got[i]);
    for (int32_t i = 0; i < want_ndim && i < 16; i++)
        wl += (size_t)snprintf(w + wl, sizeof w - wl, "%s%lld", i ? ", " : "", (long long)want[i]);
    nbt_fail(file, line, "%s of %s: [%s] (ndim %d), want [%s]", what, expr, g, (int)ndim, w);
}

#endif /* NBTEST_H_ */
