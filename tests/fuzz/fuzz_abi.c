/* fuzz_abi.c: a seeded random-call fuzzer for nabla's C ABI (tests/fuzz/README.md).
 *
 *     fuzz_abi [--seed S] [--seconds T] [--episodes N] [--episode E] [--steps K]
 *              [--exclude NAME[,NAME...]] [--op NAME] [--verbose] [--plant-leak]
 * --exclude takes the families of fuzz.h, op:NAME (never call that op) and known (every family).
 *
 * Each episode calls every kind of ABI entry point at random: the ops of the
 * manifest (fuzz_calls.inc, generated from the abi/ops manifest), views, factories,
 * backward, grad mode, DLPack import and export. After each call: OK, or an error
 * status with a message (never INTERNAL); outputs untouched on failure; results
 * readable in full. After each episode every tensor and capsule has been freed.
 * Prints `N episodes, N calls (N ok), N violations, N calls/s`; exits 1 on any
 * violation. A crash prints the seed, episode and call that caused it. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <signal.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz_calls.inc"

/* ---- the crash report: written with write(2) from a signal or sanitizer death ---- */

static void put(const char* s) { ssize_t r = write(2, s, strlen(s)); (void)r; }

static void put_u(uint64_t v) {
    char b[24];
    int i = 23;
    b[i] = 0;
    do { b[--i] = (char)('0' + v % 10); v /= 10; } while (v);
    put(b + i);
}

static void crash_report(void) {
    put("\nCRASH in ");
    put(fz_current);
    put(" at seed=");
    put_u(FZ.seed);
    put(" episode=");
    put_u((uint64_t)FZ.episode);
    put(" step=");
    put_u((uint64_t)FZ.step);
    put("; replay: fuzz_abi --seed ");
    put_u(FZ.seed);
    put(" --episode ");
    put_u((uint64_t)FZ.episode);
    put(" --verbose\n");
}

static void on_signal(int sig) {
    if (sig == SIGALRM) put("\nHANG: one episode ran for over 60 s");
    crash_report();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Called by ASan/UBSan before they exit (weak: absent without a sanitizer). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* Deprecation warnings (out= resized) are expected by the thousand: not printed. */
static nb_status quiet(void* payload, const char* message) {
    (void)payload, (void)message;
    return NB_OK;
}

/* ---- one op call with random arguments ---- */

/* A tensor for an input of the call: from the pool, fresh with the shape of an
 * earlier input (or broadcast-compatible), a view of an earlier input, or NULL. */
static nb_tensor* input_tensor(nb_tensor* first, int index_like, nb_tensor** owned, int* nowned) {
    int64_t r = fz_below(100);
    if (r < 4) return NULL;
    if (r < 40 && !index_like) return fz_pick();
    nb_tensor* t = NULL;
    if (r < 50 && first != NULL) {
        t = fz_view(first);
    } else {
        int64_t shape[NB_MAX_DIMS];
        int ndim;
        if (first != NULL && fz_chance(70)) {
            ndim = nb_tensor_ndim(first);
            memcpy(shape, nb_tensor_shape(first), sizeof(int64_t) * (size_t)ndim);
            if (ndim > 0 && fz_chance(30)) shape[fz_below(ndim)] = 1;   /* broadcast */
            if (ndim > 0 && fz_chance(15)) { ndim--; memmove(shape, shape + 1, sizeof(int64_t) * (size_t)ndim); }
        } else {
            ndim = fz_shape(shape);
        }
        int32_t dt = index_like ? (fz_chance(25) ? NB_BOOL : fz_chance(85) ? NB_I64 : fz_dtype())
                                : first != NULL && fz_chance(60) ? nb_tensor_dtype(first) : fz_dtype();
        t = fz_tensor(dt, shape, ndim);
        if (t != NULL && !index_like && nb_dtype_is_floating(dt) == 1 && fz_chance(25))
            nb_tensor_set_requires_grad(t, 1);
    }
    if (t != NULL) owned[(*nowned)++] = t;
    return t;
}

/* --verbose: one argument, with a small tensor's values (for writing a reproducer). */
static void print_arg(char k, const fz_arg* a) {
    if (strchr("txmd", k)) {
        const nb_tensor* t = a->t;
        if (t == NULL) { fprintf(stderr, " NULL"); return; }
        int32_t nd = nb_tensor_ndim(t);
        fprintf(stderr, " %s[", nb_dtype_name(nb_tensor_dtype(t)));
        for (int d = 0; d < nd; d++) fprintf(stderr, "%s%lld", d ? "," : "", (long long)nb_tensor_shape(t)[d]);
        fprintf(stderr, "]/s[");
        for (int d = 0; d < nd; d++) fprintf(stderr, "%s%lld", d ? "," : "", (long long)nb_tensor_strides(t)[d]);
        fprintf(stderr, "]+%lld", (long long)nb_tensor_storage_offset(t));
        nb_node* fn = NULL;
        if (nb_tensor_requires_grad(t) == 1 && nb_tensor_grad_fn(t, &fn) == NB_OK)
            fprintf(stderr, "@%s", fn ? nb_node_name(fn) : "leaf");
        nb_node_release(fn);
        nb_tensor* f = NULL;
        double v[16];
        if (nb_tensor_numel(t) <= 16 && nb_tensor_to(t, NB_F64, -1, 0, 0, &f) == NB_OK &&
            nb_tensor_copy_to_host(f, v, nb_tensor_numel(t) * 8) == NB_OK) {
            fprintf(stderr, "{");
            for (int64_t i = 0; i < nb_tensor_numel(t); i++) fprintf(stderr, "%s%g", i ? "," : "", v[i]);
            fprintf(stderr, "}");
        }
        nb_tensor_release(f);
    } else if (k == 'f') fprintf(stderr, " %g", a->f);
    else if (strchr("iynl", k)) fprintf(stderr, " %lld", (long long)a->i);
    else if (k == 'a') fprintf(stderr, a->ia ? " [%lld,%lld,%lld,%lld..]" : " NULL", (long long)(a->ia ? a->ia[0] : 0),
                              (long long)(a->ia ? a->ia[1] : 0), (long long)(a->ia ? a->ia[2] : 0),
                              (long long)(a->ia ? a->ia[3] : 0));
    else fprintf(stderr, " %c", k);
}

static void call_op(const fz_op* op, int op_index) {
    fz_arg a[FZ_MAX_ARGS];
    nb_tensor* outs[FZ_MAX_ARGS];
    nb_tensor* owned[FZ_MAX_ARGS * (FZ_LIST + 1)];
    int64_t arrays[FZ_MAX_ARGS][FZ_ARRAY];
    nb_tensor* lists[FZ_MAX_ARGS][FZ_LIST];
    nb_generator* new_gen = NULL;
    uint64_t us[FZ_MAX_ARGS];
    int nowned = 0, nparams = (int)strlen(op->kinds);
    nb_tensor* first = NULL;
    nb_tensor* inputs[FZ_MAX_ARGS];
    int ninputs = 0;
    memset(a, 0, sizeof a);
    memset(outs, 0, sizeof outs);
    int is_cat = strcmp(op->name, "nb_cat") == 0 || strcmp(op->name, "nb_stack") == 0;
    for (int p = 0; p < nparams; p++) {
        char k = op->kinds[p];
        switch (k) {
        case 't': case 'x': case 'm':
            a[p].t = input_tensor(first, k == 'x', owned, &nowned);
            if (first == NULL && k != 'x') first = a[p].t;
            if (a[p].t) inputs[ninputs++] = a[p].t;
            break;
        case 'd': {  /* out=: mostly none; else an input (in place), a pool tensor or a fresh empty one */
            int64_t r = fz_below(100);
            if (r < 65 || (is_cat && fz_excluded(FZ_X_CAT_OUT))) break;
            if (r < 80 && ninputs > 0 && !fz_excluded(FZ_X_INPLACE)) a[p].t = inputs[fz_below(ninputs)];
            else if (r < 90) a[p].t = fz_pick();
            else { a[p].t = input_tensor(NULL, 0, owned, &nowned); }
            for (int i = 0; i < ninputs && fz_excluded(FZ_X_INPLACE); i++)
                if (a[p].t == inputs[i]) a[p].t = NULL;
            break;
        }
        case 'o': a[p].pt = fz_chance(2) ? NULL : &outs[p]; break;
        case 'f': a[p].f = fz_double(); break;
        case 'i': a[p].i = fz_int32(); break;
        case 'y': a[p].i = fz_chance(40) ? -1 : fz_any_dtype(); break;
        case 'n': {  /* the count of the array or list before it */
            int64_t ndim = first ? nb_tensor_ndim(first) : 2;
            /* never past the array (that is the caller's bug): a count shared with lists stays within them */
            int list = (p > 0 && op->kinds[p - 1] == 'L') || strchr(op->kinds, 'L') != NULL;
            a[p].i = fz_chance(90) ? fz_below((list ? 4 : ndim + 1) + 1)
                                   : (fz_chance(50) ? -1 : list ? FZ_LIST : FZ_ARRAY);
            break;
        }
        case 'l': {
            int64_t ndim = first ? nb_tensor_ndim(first) : 1;
            a[p].i = fz_chance(50) && ndim > 0 ? fz_below(ndim) - (fz_chance(20) ? ndim : 0) : fz_small_int();
            break;
        }
        case 'u': a[p].u = fz_chance(80) ? (uint64_t)fz_below(1000) : fz_next(); break;
        case 'a':
            for (int i = 0; i < FZ_ARRAY; i++) arrays[p][i] = fz_chance(85) ? fz_below(4) : fz_small_int();
            a[p].ia = fz_chance(3) ? NULL : arrays[p];
            break;
        case 'L':
            for (int i = 0; i < FZ_LIST; i++) {
                lists[p][i] = i == 0 || fz_chance(50) ? input_tensor(first, 0, owned, &nowned) : first;
                if (first == NULL) first = lists[p][i];
            }
            a[p].tl = fz_chance(3) ? NULL : lists[p];
            break;
        case 'g': {
            int64_t r = fz_below(100);
            if (r < 35) a[p].g = NULL;
            else if (r < 50) a[p].g = nb_default_generator();
            else if (r < 53 && FZ.stale != NULL) a[p].g = FZ.stale;
            else a[p].g = FZ.gen[fz_below(FZ_GENS)];
            break;
        }
        case 'G': a[p].pg = fz_chance(3) ? NULL : &new_gen; break;
        case 'U': a[p].pu = fz_chance(3) ? NULL : &us[p]; break;
        default: break;
        }
    }
    fz_current = op->name;
    if (FZ.verbose) {
        fprintf(stderr, "  step %lld: %s(%s):", (long long)FZ.step, op->name, op->kinds);
        for (int p = 0; p < nparams; p++) print_arg(op->kinds[p], &a[p]);
        fputc('\n', stderr);
    }
    nb_status st = op->call(a);
    FZ.calls++;
    FZ.op_calls[op_index]++;
    fz_check_status(op->name, st);
    if (FZ.verbose) fprintf(stderr, "    -> %d %s\n", st, st ? nb_last_error_message() : "");
    if (st == NB_OK) {
        FZ.ok_calls++;
        FZ.op_ok[op_index]++;
    }
    for (int p = 0; p < nparams; p++) {
        if (op->kinds[p] != 'o' || outs[p] == NULL) continue;
        if (st != NB_OK) fz_violation(op->name, "failed (%d: %s) but wrote output %d", st, nb_last_error_message(), p);
        else fz_touch(op->name, outs[p]);
        if (fz_chance(60) && st == NB_OK) fz_keep(outs[p]);
        else nb_tensor_release(outs[p]);
    }
    if (new_gen != NULL) {
        if (st != NB_OK) fz_violation(op->name, "failed but wrote the generator");
        int i = (int)fz_below(FZ_GENS);
        nb_generator_release(FZ.gen[i]);
        FZ.gen[i] = new_gen;
    }
    for (int i = 0; i < nowned; i++) {
        if (fz_chance(15)) { nb_tensor_retain(owned[i]); fz_keep(owned[i]); }
        nb_tensor_release(owned[i]);
    }
}

/* ---- the other actions of an episode ---- */

/* backward from a sum of a pool tensor; sometimes twice through the same graph. */
static void backward_step(void) {
    nb_tensor* t = fz_pick();
    if (t == NULL || nb_tensor_requires_grad(t) != 1) return;
    nb_tensor* s = NULL;
    fz_current = "nb_sum";
    nb_status st = nb_sum(t, NULL, 0, 0, -1, NULL, &s);
    fz_check_status("nb_sum", st);
    if (st != NB_OK) return;
    int32_t retain = (int32_t)fz_below(2), create = fz_chance(20);
    nb_tensor* outs[1] = {s};
    if (create) {
        /* Higher order through nb_autograd_grad: nb_backward with create_graph makes the
         * reference cycle leaf -> .grad -> graph -> leaf that PyTorch warns about. */
        nb_tensor* grads[1] = {NULL};
        nb_tensor* ins[1] = {t};
        fz_current = "nb_autograd_grad";
        if (FZ.verbose) fprintf(stderr, "  step %lld: nb_autograd_grad(create)\n", (long long)FZ.step);
        st = nb_autograd_grad(outs, NULL, 1, ins, 1, retain, 1, (int32_t)fz_below(2), grads);
        fz_check_status(fz_current, st);
        if (st != NB_OK && grads[0] != NULL) fz_violation(fz_current, "failed but wrote grads[0]");
        fz_touch(fz_current, grads[0]);
        fz_keep(grads[0]);
        nb_tensor_release(s);
        return;
    }
    fz_current = "nb_backward";
    if (FZ.verbose) fprintf(stderr, "  step %lld: nb_backward(retain=%d)\n", (long long)FZ.step, retain);
    st = nb_backward(outs, NULL, 1, retain, 0);
    fz_check_status("nb_backward", st);
    if (st == NB_OK && !fz_excluded(FZ_X_SECOND_BACKWARD) && fz_chance(40)) {
        fz_current = "nb_backward(second)";
        st = nb_backward(outs, NULL, 1, 0, 0);
        fz_check_status("nb_backward(second)", st);
        /* Either the graph still has what it needs, or PyTorch's "second time" error. */
        if (st != NB_OK && !retain && (st != NB_ERR_AUTOGRAD || !strstr(nb_last_error_message(), "second time")))
            fz_violation("nb_backward(second)", "status %d: %s", st, nb_last_error_message());
    }
    nb_tensor* g = NULL;
    if (nb_tensor_get_grad(t, &g) == NB_OK && g != NULL) {
        fz_touch("nb_tensor_get_grad", g);
        nb_tensor_release(g);
    }
    nb_tensor_release(s);
}

static void generator_step(void) {
    int i = (int)fz_below(FZ_GENS);
    if (FZ.gen[i] == NULL) {
        fz_current = "nb_generator_create";
        fz_check_status(fz_current, nb_generator_create(fz_next(), &FZ.gen[i]));
        return;
    }
    fz_current = "nb_generator_release";
    if (!fz_excluded(FZ_X_STALE_GENERATOR) && FZ.stale == NULL) FZ.stale = FZ.gen[i];  /* kept as a bad handle */
    nb_generator_release(FZ.gen[i]);
    FZ.gen[i] = NULL;
}

static void misc_step(void) {
    nb_tensor* t = fz_pick();
    nb_status st = NB_OK;
    switch (fz_below(6)) {
    case 0: nb_set_grad_enabled(fz_chance(70)); return;
    case 1:
        if (t == NULL) return;
        fz_current = "nb_tensor_set_requires_grad";
        st = nb_tensor_set_requires_grad(t, fz_chance(85));
        break;
    case 2: {
        nb_tensor* src = fz_pick();
        if (t == NULL || fz_excluded(FZ_X_COPY_ALIAS)) return;
        fz_current = "nb_tensor_copy_";
        st = nb_tensor_copy_(t, src);  /* src may alias t or be NULL */
        if (src == NULL && st == NB_OK) fz_violation(fz_current, "accepted a NULL source");
        break;
    }
    case 3: {
        int64_t shape[NB_MAX_DIMS];
        int ndim = fz_shape(shape);
        if (t == NULL) return;
        fz_current = "nb_tensor_resize_";
        st = nb_tensor_resize_(t, shape, ndim);
        break;
    }
    case 4: {
        nb_tensor* c = NULL;
        if (t == NULL) return;
        fz_current = "nb_tensor_contiguous";
        st = nb_tensor_contiguous(t, &c);
        if (st == NB_OK) { fz_touch(fz_current, c); fz_keep(c); }
        break;
    }
    default: {
        nb_tensor* d = NULL;
        if (t == NULL) return;
        fz_current = "nb_tensor_detach";
        st = nb_tensor_detach(t, &d);
        if (st == NB_OK) fz_keep(d);
        break;
    }
    }
    fz_check_status(fz_current, st);
}

static int op_allowed(int i) {
    for (int k = 0; k < FZ.nskip; k++)
        if (strcmp(FZ_OPS[i].name, FZ.skip_op[k]) == 0) return 0;
    return FZ.only_op == NULL || strcmp(FZ_OPS[i].name, FZ.only_op) == 0;
}

static void step(void) {
    int64_t r = fz_below(100);
    if (FZ.verbose && r >= 60) fz_current = "(none)";
    if (r < 60) {
        int i = (int)fz_below(FZ_NOPS);
        if (FZ.only_op != NULL) for (i = 0; i < FZ_NOPS && !op_allowed(i); i++) {}
        if (i < FZ_NOPS && op_allowed(i)) call_op(&FZ_OPS[i], i);
    } else if (r < 70) {
        fz_keep(fz_random_tensor());
    } else if (r < 78) {
        fz_keep(fz_view(fz_pick()));
    } else if (r < 85) {
        backward_step();
    } else if (r < 90) {
        fz_dlpack_step();
    } else if (r < 93) {
        generator_step();
    } else if (r < 97) {
        misc_step();
    } else {
        int i = (int)fz_below(FZ_SLOTS);
        fz_current = "nb_tensor_release";
        nb_tensor_release(FZ.slot[i]);
        FZ.slot[i] = NULL;
    }
    if (FZ.verbose && r >= 60) fprintf(stderr, "  step %lld: action %lld, last call %s\n", (long long)FZ.step,
                                       (long long)r, fz_current);
}

/* Live objects other than the pool's: nothing may outlive an episode. */
static void live_counts(int64_t* tensors, int64_t* storages) {
    nb_memory_stats ms;
    memset(&ms, 0, sizeof ms);
    ms.struct_size = sizeof ms;
    if (nb_memory_stats_get(NB_CPU, 0, &ms) != NB_OK) { *tensors = *storages = -1; return; }
    *tensors = ms.live_tensors;
    *storages = ms.live_storages;
}

static void episode(int64_t e, int64_t steps, int64_t* base_tensors, int64_t* base_storages) {
    FZ.episode = e;
    FZ.s = FZ.seed * 0x100000001B3ull ^ ((uint64_t)e * 0x9E3779B97F4A7C15ull);
    FZ.stale = NULL;
    nb_set_grad_enabled(1);
    nb_manual_seed(FZ.s);  /* the default generator's numbers depend on this episode only */
    if (FZ.verbose) fprintf(stderr, "episode %lld\n", (long long)e);
    alarm(60);  /* an episode takes milliseconds: this long is a hang */
    for (FZ.step = 0; FZ.step < steps; FZ.step++) step();
    alarm(0);
    fz_current = "episode teardown";
    if (FZ.plant_leak && e == 0) {  /* a reference dropped on the floor */
        nb_tensor* leak = NULL;
        int64_t two = 2;
        nb_zeros(&two, 1, NB_F32, NB_CPU, 0, &leak);
    }
    fz_pool_clear();
    for (int i = 0; i < FZ_GENS; i++) { nb_generator_release(FZ.gen[i]); FZ.gen[i] = NULL; }
    nb_set_grad_enabled(1);
    int64_t lt, ls;
    live_counts(&lt, &ls);
    if (lt != *base_tensors || ls != *base_storages) {  /* reported once: the next episode starts from here */
        fz_violation("episode end", "%lld live tensors and %lld storages (start: %lld and %lld)", (long long)lt,
                     (long long)ls, (long long)*base_tensors, (long long)*base_storages);
        *base_tensors = lt;
        *base_storages = ls;
    }
    if (fz_capsules_alive() != 0) fz_violation("episode end", "%lld DLPack capsules were never deleted",
                                               (long long)fz_capsules_alive());
}

static uint32_t parse_exclude(const char* list) {
    static const char* names[] = {"cat_out", "huge_dims", "as_strided", "dlpack_layout", "stale_generator",
                                  "second_backward", "copy_alias", "inplace"};
    static char buf[1024];  /* op: names point into it */
    uint32_t mask = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        if (strncmp(tok, "op:", 3) == 0 && FZ.nskip < FZ_MAX_SKIP_OPS) { FZ.skip_op[FZ.nskip++] = tok + 3; continue; }
        for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strcmp(tok, names[i]) == 0) { mask |= 1u << i; found = 1; }
        if (strcmp(tok, "known") == 0) { mask = ~0u; found = 1; }
        if (!found) { fprintf(stderr, "fuzz_abi: unknown --exclude family %s\n", tok); exit(2); }
    }
    return mask;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Huge but valid calls (an out= resized to a 10 GB result, a broadcast of large views)
 * are not what the fuzzer looks for and would run for minutes: memory is capped, so
 * they fail at allocation with NB_ERR_OUT_OF_MEMORY, a status like any other. Under
 * ASan (whose shadow memory needs a large address space) the same cap is its
 * allocation limit; sanitize.sh makes such a malloc return NULL. */
#define FZ_MEMORY_CAP_MB 8192
#if defined(__SANITIZE_ADDRESS__)
const char* __asan_default_options(void);
const char* __asan_default_options(void) { return "max_allocation_size_mb=8192"; }
static void cap_memory(void) {}
#else
static void cap_memory(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0) return;
    const rlim_t cap = (rlim_t)FZ_MEMORY_CAP_MB << 20;
    if (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > cap) r.rlim_cur = cap;
    setrlimit(RLIMIT_AS, &r);
}
#endif

int main(int argc, char** argv) {
    double seconds = 10;
    int64_t episodes = -1, only_episode = -1, steps = 40;
    FZ.seed = 1;
    for (int i = 1; i < argc; i++) {
        const char* v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--seed")) FZ.seed = strtoull(v, NULL, 10), i++;
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(v), i++;
        else if (!strcmp(argv[i], "--episodes")) episodes = atoll(v), i++;
        else if (!strcmp(argv[i], "--episode")) only_episode = atoll(v), i++;
        else if (!strcmp(argv[i], "--steps")) steps = atoll(v), i++;
        else if (!strcmp(argv[i], "--exclude")) FZ.exclude = parse_exclude(v), i++;
        else if (!strcmp(argv[i], "--op")) FZ.only_op = v, i++;
        else if (!strcmp(argv[i], "--verbose")) FZ.verbose = 1;
        else if (!strcmp(argv[i], "--plant-leak")) FZ.plant_leak = 1;
        else { fprintf(stderr, "usage: see the top of tests/fuzz/fuzz_abi.c (%s)\n", argv[i]); return 2; }
    }
    cap_memory();
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGILL, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGALRM, on_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(crash_report);
    nb_set_warning_handler(quiet, NULL);
    nb_set_num_threads(1);  /* one thread: a run replays exactly */
    int64_t base_tensors, base_storages;
    live_counts(&base_tensors, &base_storages);
    double start = now();
    int64_t done = 0;
    for (int64_t e = only_episode >= 0 ? only_episode : 0;; e++) {
        if (only_episode >= 0 && done == 1) break;
        if (only_episode < 0 && episodes >= 0 && done >= episodes) break;
        if (only_episode < 0 && episodes < 0 && now() - start >= seconds) break;
        episode(e, steps, &base_tensors, &base_storages);
        done++;
    }
    double dt = now() - start;
    int64_t reached = 0;
    for (int i = 0; i < FZ_NOPS; i++) reached += FZ.op_ok[i] > 0;
    printf("seed %llu: %lld episodes, %lld op calls (%lld ok), %lld of %d ops succeeded at least once, "
           "%lld violations, %.0f calls/s\n", (unsigned long long)FZ.seed, (long long)done, (long long)FZ.calls,
           (long long)FZ.ok_calls, (long long)reached, FZ_NOPS, (long long)FZ.violations,
           dt > 0 ? (double)FZ.calls / dt : 0.0);
    if (FZ.verbose)
        for (int i = 0; i < FZ_NOPS; i++)
            if (FZ.op_ok[i] == 0) fprintf(stderr, "never succeeded: %s (%lld calls)\n", FZ_OPS[i].name,
                                          (long long)FZ.op_calls[i]);
    return FZ.violations ? 1 : 0;
}
