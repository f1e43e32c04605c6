/* runner.c: nabla's conformance runner in C11 and libc, against the public header.
 *
 *     cc -std=c11 runner.c $(python -m nabla.config --cflags --libs) -lm -o nb_conformance
 *     ./nb_conformance [--device cpu|cuda] [--filter TEXT] CASE_FILE...
 *
 * Prints one line per case and then `N passed, N failed, N skipped`; exits 1 when a
 * case failed. conformance/README.md is the specification of the case files; every
 * op is called through calls.inc, generated from the ABI op table. */
#include <nabla.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<nabla/dlpack.h>)
#include <nabla/dlpack.h>
#define CR_HAVE_DLPACK 1
#endif
#endif

/* ---- the arguments of one call (calls.inc reads them by parameter position) ---- */

typedef struct {
    nb_tensor* t;
    nb_tensor** pt;
    double f;
    int64_t i;
    uint64_t u;
    int64_t* ia;
    nb_tensor** tl;
    nb_generator* g;
    nb_generator** pg;
    uint64_t* pu;
} cr_arg;

typedef struct {
    const char* name;
    const char* kinds;
    int nparams;
    nb_status (*call)(cr_arg* a, void** ret);
} cr_op;

#include "calls.inc"

/* ---- a case, as read from its lines ---- */

#define CR_MAX 32

typedef struct {
    char name[64];
    int32_t dtype;
    int32_t ndim;
    int64_t shape[NB_MAX_DIMS];
    unsigned char* data;
    int64_t nbytes;
} cr_tensor;

typedef struct {
    char kind[16];
    char value[256];
} cr_argtext;

typedef struct {
    char name[64];
    char spec[8];      /* "tensor", "u64", "gen", "notnull" */
    cr_tensor tensor;  /* spec "tensor" */
    uint64_t v[2];     /* u64: v[0]; gen: seed, offset */
} cr_expect;

typedef struct {
    char id[192], call[64], abi[16], kind[16], tol[32], status[48], device[16];
    char needs[4][32];
    int nneeds;
    cr_tensor in[CR_MAX];
    int nin;
    char gen_name[CR_MAX][64];
    uint64_t gen_seed[CR_MAX], gen_offset[CR_MAX];
    int ngen;
    cr_argtext args[CR_MAX];
    int nargs;
    cr_expect expects[CR_MAX];
    int nexpects;
    cr_tensor grad_out[CR_MAX];
    int ngrad_out;
    char requires_grad[CR_MAX][64];
    int nrequires;
    cr_tensor expect_grad[CR_MAX];
    int nexpect_grad;
    char consumes[CR_MAX][64];
    int nconsumes;
} cr_case;

static const char* DTYPE_NAMES[10] = {"f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8", "bool"};

static int32_t dtype_code(const char* s) {
    for (int32_t i = 0; i < 10; i++)
        if (strcmp(s, DTYPE_NAMES[i]) == 0) return i;
    return -1;
}

static void free_case(cr_case* c) {
    for (int i = 0; i < c->nin; i++) free(c->in[i].data);
    for (int i = 0; i < c->nexpects; i++) free(c->expects[i].tensor.data);
    for (int i = 0; i < c->ngrad_out; i++) free(c->grad_out[i].data);
    for (int i = 0; i < c->nexpect_grad; i++) free(c->expect_grad[i].data);
    memset(c, 0, sizeof *c);
}

/* Splits `line` in place at spaces into at most `max` tokens. */
static int split(char* line, char** tok, int max) {
    int n = 0;
    for (char* p = line; *p && n < max;) {
        tok[n++] = p;
        while (*p && *p != ' ') p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

/* `DTYPE SHAPE HEX` into t (name set by the caller); 0 on success. */
static int parse_tensor(char** tok, cr_tensor* t) {
    t->dtype = dtype_code(tok[0]);
    if (t->dtype < 0) return 1;
    t->ndim = 0;
    if (strcmp(tok[1], "-") != 0)
        for (char* p = tok[1]; *p && t->ndim < NB_MAX_DIMS; p += (*p == ',')) t->shape[t->ndim++] = strtoll(p, &p, 10);
    const size_t len = strcmp(tok[2], "-") == 0 ? 0 : strlen(tok[2]);
    t->nbytes = (int64_t)(len / 2);
    t->data = malloc(len / 2 + 1);
    if (t->data == NULL) return 1;
    for (size_t i = 0; i < len / 2; i++) {
        const int hi = hexval(tok[2][2 * i]), lo = hexval(tok[2][2 * i + 1]);
        if (hi < 0 || lo < 0) return 1;
        t->data[i] = (unsigned char)(hi * 16 + lo);
    }
    return 0;
}

static void copy_name(char* dst, size_t cap, const char* src) {
    snprintf(dst, cap, "%s", src);
}

/* Reads one line of any length into *buf (grown as needed); 0 at end of file. */
static int read_line(FILE* f, char** buf, size_t* cap) {
    size_t n = 0;
    int ch;
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
        if (n + 2 > *cap) {
            size_t grown = *cap ? *cap * 2 : 4096;
            char* p = realloc(*buf, grown);
            if (p == NULL) return 0;
            *buf = p, *cap = grown;
        }
        (*buf)[n++] = (char)ch;
    }
    if (ch == EOF && n == 0) return 0;
    if (*cap == 0) {
        *buf = malloc(1);
        *cap = 1;
    }
    (*buf)[n] = '\0';
    return 1;
}

/* Applies one line to the case being read; returns 1 at `end`, -1 on a malformed line. */
static int parse_line(char* line, cr_case* c) {
    char* tok[8];
    if (line[0] == '\0' || line[0] == '#') return 0;
    const int n = split(line, tok, 8);
    const char* key = tok[0];
    if (strcmp(key, "case") == 0 && n == 2) {
        free_case(c);
        copy_name(c->id, sizeof c->id, tok[1]);
        copy_name(c->status, sizeof c->status, "NB_OK");
    } else if (strcmp(key, "call") == 0 && n == 2) {
        copy_name(c->call, sizeof c->call, tok[1]);
    } else if (strcmp(key, "abi") == 0 && n == 2) {
        copy_name(c->abi, sizeof c->abi, tok[1]);
    } else if (strcmp(key, "kind") == 0 && n == 2) {
        copy_name(c->kind, sizeof c->kind, tok[1]);
    } else if (strcmp(key, "tol") == 0 && n == 2) {
        copy_name(c->tol, sizeof c->tol, tok[1]);
    } else if (strcmp(key, "device") == 0 && n == 2) {
        copy_name(c->device, sizeof c->device, tok[1]);
    } else if (strcmp(key, "status") == 0 && n == 2) {
        copy_name(c->status, sizeof c->status, tok[1]);
    } else if (strcmp(key, "needs") == 0 && n == 2 && c->nneeds < 4) {
        copy_name(c->needs[c->nneeds++], 32, tok[1]);
    } else if (strcmp(key, "in") == 0 && n == 5 && c->nin < CR_MAX) {
        cr_tensor* t = &c->in[c->nin++];
        copy_name(t->name, sizeof t->name, tok[1]);
        if (parse_tensor(tok + 2, t)) return -1;
    } else if (strcmp(key, "generator") == 0 && n == 4 && c->ngen < CR_MAX) {
        copy_name(c->gen_name[c->ngen], 64, tok[1]);
        c->gen_seed[c->ngen] = strtoull(tok[2], NULL, 10);
        c->gen_offset[c->ngen++] = strtoull(tok[3], NULL, 10);
    } else if (strcmp(key, "arg") == 0 && n >= 2 && c->nargs < CR_MAX) {
        cr_argtext* a = &c->args[c->nargs++];
        copy_name(a->kind, sizeof a->kind, tok[1]);
        copy_name(a->value, sizeof a->value, n > 2 ? tok[2] : "");
    } else if (strcmp(key, "expect") == 0 && n >= 3 && c->nexpects < CR_MAX) {
        cr_expect* e = &c->expects[c->nexpects++];
        copy_name(e->name, sizeof e->name, tok[1]);
        if (strcmp(tok[2], "u64") == 0 && n == 4) {
            copy_name(e->spec, sizeof e->spec, "u64");
            e->v[0] = strtoull(tok[3], NULL, 10);
        } else if (strcmp(tok[2], "gen") == 0 && n == 5) {
            copy_name(e->spec, sizeof e->spec, "gen");
            e->v[0] = strtoull(tok[3], NULL, 10), e->v[1] = strtoull(tok[4], NULL, 10);
        } else if (strcmp(tok[2], "notnull") == 0) {
            copy_name(e->spec, sizeof e->spec, "notnull");
        } else if (n == 5) {
            copy_name(e->spec, sizeof e->spec, "tensor");
            if (parse_tensor(tok + 2, &e->tensor)) return -1;
        } else {
            return -1;
        }
    } else if ((strcmp(key, "grad_output") == 0 || strcmp(key, "expect_grad") == 0) && n == 5) {
        const int go = key[0] == 'g';
        int* count = go ? &c->ngrad_out : &c->nexpect_grad;
        if (*count >= CR_MAX) return -1;
        cr_tensor* t = go ? &c->grad_out[(*count)++] : &c->expect_grad[(*count)++];
        copy_name(t->name, sizeof t->name, tok[1]);
        if (parse_tensor(tok + 2, t)) return -1;
    } else if (strcmp(key, "requires_grad") == 0 && n == 2 && c->nrequires < CR_MAX) {
        copy_name(c->requires_grad[c->nrequires++], 64, tok[1]);
    } else if (strcmp(key, "consumes") == 0 && n == 2 && c->nconsumes < CR_MAX) {
        copy_name(c->consumes[c->nconsumes++], 64, tok[1]);
    } else if (strcmp(key, "end") == 0) {
        return 1;
    } else {
        return -1;
    }
    return 0;
}

/* ---- comparing values ---- */

static const int64_t DTYPE_SIZE[10] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1};

static double half_to_double(uint16_t h) {
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    const double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0) return s * ldexp(m, -24);
    if (e == 31) return m ? NAN : s * INFINITY;
    return s * ldexp(m + 1024, e - 25);
}

/* Element i of raw little-endian data of `dtype` as a double (integers exactly up to 2^53). */
static double element(const unsigned char* p, int32_t dtype, int64_t i) {
    const unsigned char* q = p + i * DTYPE_SIZE[dtype];
    uint64_t u = 0;
    for (int64_t b = DTYPE_SIZE[dtype] - 1; b >= 0; b--) u = (u << 8) | q[b];
    switch (dtype) {
    case NB_F32: { uint32_t w = (uint32_t)u; float f; memcpy(&f, &w, 4); return f; }
    case NB_F64: { double d; memcpy(&d, &u, 8); return d; }
    case NB_F16: return half_to_double((uint16_t)u);
    case NB_BF16: { uint32_t w = (uint32_t)u << 16; float f; memcpy(&f, &w, 4); return f; }
    case NB_I8: return (int8_t)u;
    case NB_I16: return (int16_t)u;
    case NB_I32: return (int32_t)u;
    case NB_I64: return (double)(int64_t)u;
    default: return (double)u;
    }
}

static const int DIGITS[4] = {24, 53, 11, 8}, EMIN[4] = {-126, -1022, -14, -126};
static const double RTOL[2][4] = {{4e-6, 1e-13, 2e-3, 1.6e-2}, {1e-4, 1e-10, 1e-2, 5e-2}};
static const double ATOL[2][4] = {{1e-6, 1e-15, 1e-5, 1e-4}, {1e-5, 1e-12, 1e-3, 1e-2}};

static double ulp(double x, int32_t dtype) {
    int e = EMIN[dtype];
    if (x != 0) {
        frexp(x, &e);
        e -= 1;
    }
    return ldexp(1.0, (e > EMIN[dtype] ? e : EMIN[dtype]) - (DIGITS[dtype] - 1));
}

static int element_ok(double g, double w, const unsigned char* gp, const unsigned char* wp, int32_t dtype,
                      const char* tol) {
    const int floating = dtype <= NB_BF16;
    if (!floating) return g == w;
    if (isnan(w) || isnan(g)) return isnan(w) && isnan(g);
    if (strcmp(tol, "exact") == 0) return memcmp(gp, wp, (size_t)DTYPE_SIZE[dtype]) == 0;
    if (isinf(w) || isinf(g)) return g == w;
    if (strcmp(tol, "correctly_rounded") == 0) return fabs(g - w) <= ulp(w, dtype);
    const int k = strcmp(tol, "accumulate") == 0;
    return fabs(g - w) <= ATOL[k][dtype] + RTOL[k][dtype] * fabs(w);
}

static char why[1024];

static int fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return 1;
}

/* 0 when tensor h matches `want` under the tolerance class, else 1 with `why` set. */
static int compare(const char* what, const nb_tensor* h, const cr_tensor* want, const char* tol) {
    const int32_t dtype = nb_tensor_dtype(h), ndim = nb_tensor_ndim(h);
    if (dtype != want->dtype)
        return fail("%s: dtype %s, expected %s", what, DTYPE_NAMES[dtype < 0 || dtype > 9 ? 0 : dtype],
                    DTYPE_NAMES[want->dtype]);
    int same = ndim == want->ndim;
    for (int32_t d = 0; same && d < ndim; d++) same = nb_tensor_shape(h)[d] == want->shape[d];
    if (!same) return fail("%s: shape differs (ndim %d, expected %d)", what, (int)ndim, (int)want->ndim);
    const int64_t n = nb_tensor_numel(h), nbytes = n * DTYPE_SIZE[dtype];
    unsigned char* got = malloc((size_t)nbytes + 1);
    if (got == NULL) return fail("out of memory");
    if (nb_tensor_copy_to_host(h, got, nbytes) != NB_OK) {
        free(got);
        return fail("%s: nb_tensor_copy_to_host: %s", what, nb_last_error_message());
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++) {
        const double g = element(got, dtype, i), w = element(want->data, dtype, i);
        if (!element_ok(g, w, got + i * DTYPE_SIZE[dtype], want->data + i * DTYPE_SIZE[dtype], dtype, tol)) {
            if (first < 0) first = i;
            bad++;
        }
    }
    if (bad) {
        fail("%s: %lld of %lld elements differ; first at flat index %lld: got %.17g, expected %.17g", what,
             (long long)bad, (long long)n, (long long)first, element(got, dtype, first),
             element(want->data, dtype, first));
    }
    free(got);
    return bad != 0;
}

/* ---- running a case ---- */

#define SENTINEL ((uintptr_t)0x5EB7)
#define U64_SENTINEL 0xDEADBEEFull

typedef struct {
    int32_t device;
    nb_tensor* owned[4 * CR_MAX];
    int nowned;
    nb_tensor* in[CR_MAX];
    nb_generator* gen[2 * CR_MAX];
    char gen_name[2 * CR_MAX][64];
    int ngen;
} cr_state;

static int64_t live_tensors(void) {
    nb_memory_stats s;
    memset(&s, 0, sizeof s);
    s.struct_size = (uint32_t)sizeof s;
    if (nb_memory_stats_get(NB_CPU, 0, &s) != NB_OK) return -1;
    return s.live_tensors;
}

static nb_status status_code(const char* name) {
    for (nb_status s = 0; s < 64; s++)
        if (strcmp(nb_status_name(s), name) == 0) return s;
    return -1;
}

static int own(cr_state* st, nb_tensor* t) {
    if (st->nowned >= 4 * CR_MAX) return fail("too many tensors in one case");
    st->owned[st->nowned++] = t;
    return 0;
}

static int make_tensor(cr_state* st, const cr_tensor* t, int32_t device, nb_tensor** out) {
    const nb_status s = nb_tensor_from_host(t->nbytes ? (const void*)t->data : (const void*)"", t->shape, t->ndim,
                                            t->dtype, device, 0, out);
    if (s != NB_OK) return fail("nb_tensor_from_host: %s: %s", nb_status_name(s), nb_last_error_message());
    return own(st, *out);
}

static int find(const char names[][64], int n, const char* name) {
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

static int input_index(const cr_case* c, const char* name) {
    for (int i = 0; i < c->nin; i++)
        if (strcmp(c->in[i].name, name) == 0) return i;
    return -1;
}

typedef struct {
    cr_arg a[CR_MAX];
    nb_tensor* slot[CR_MAX];    /* out-parameters */
    nb_generator* gslot[CR_MAX];
    uint64_t uslot[CR_MAX];
    int64_t ints[CR_MAX][NB_MAX_DIMS * 2];
    nb_tensor* lists[CR_MAX][CR_MAX];
    void* ret;
} cr_call;

/* Reads the case's arguments into call->a, checking them against the parameter kinds. */
static int build_args(const cr_case* c, const cr_op* op, cr_state* st, cr_call* call) {
    if (c->nargs != op->nparams) return fail("%d arguments for %d parameters", c->nargs, op->nparams);
    const char* kinds = op->kinds;
    for (int i = 0; i < c->nargs; i++) {
        const cr_argtext* t = &c->args[i];
        char want[16];
        size_t k = strcspn(kinds, " ");
        snprintf(want, sizeof want, "%.*s", (int)k, kinds);
        kinds += k + (kinds[k] == ' ');
        cr_arg* a = &call->a[i];
        if (strcmp(t->kind, "null") == 0) continue; /* every pointer kind takes NULL: zeroed */
        if (strcmp(t->kind, want) != 0) return fail("argument %d is %s, the parameter takes %s", i, t->kind, want);
        if (strcmp(want, "t") == 0) {
            const int j = input_index(c, t->value);
            if (j < 0) return fail("no input %s", t->value);
            a->t = st->in[j];
        } else if (strcmp(want, "f64") == 0) {
            uint64_t u = strtoull(t->value, NULL, 16);
            memcpy(&a->f, &u, 8);
        } else if (strcmp(want, "i32") == 0 || strcmp(want, "i64") == 0) {
            a->i = strtoll(t->value, NULL, 10);
        } else if (strcmp(want, "u64") == 0) {
            a->u = strtoull(t->value, NULL, 10);
        } else if (strcmp(want, "i64s") == 0) {
            int n = 0;
            if (strcmp(t->value, "-") != 0)
                for (const char* p = t->value; *p && n < NB_MAX_DIMS * 2; p += (*p == ','))
                    call->ints[i][n++] = strtoll(p, (char**)&p, 10);
            a->ia = call->ints[i];
        } else if (strcmp(want, "ts") == 0) {
            char names[256];
            copy_name(names, sizeof names, t->value);
            char* tok[CR_MAX];
            int n = 0;
            for (char* p = names; *p && n < CR_MAX;) {
                tok[n++] = p;
                while (*p && *p != ',') p++;
                if (*p) *p++ = '\0';
            }
            for (int j = 0; j < n; j++) {
                const int k2 = input_index(c, tok[j]);
                if (strcmp(tok[j], "_") != 0 && k2 < 0) return fail("no input %s", tok[j]);
                call->lists[i][j] = strcmp(tok[j], "_") == 0 ? NULL : st->in[k2];
            }
            a->tl = call->lists[i];
        } else if (strcmp(want, "gen") == 0) {
            const int j = find(st->gen_name, st->ngen, t->value);
            if (j < 0) return fail("no generator %s", t->value);
            a->g = st->gen[j];
        } else if (strcmp(want, "out") == 0) {
            call->slot[i] = (nb_tensor*)SENTINEL;
            a->pt = &call->slot[i];
        } else if (strcmp(want, "genout") == 0) {
            call->gslot[i] = (nb_generator*)SENTINEL;
            a->pg = &call->gslot[i];
        } else if (strcmp(want, "u64out") == 0) {
            call->uslot[i] = U64_SENTINEL;
            a->pu = &call->uslot[i];
        } else {
            return fail("unknown argument kind %s", want);
        }
    }
    return 0;
}

/* The tensor named `name`: an output (out-parameter) or an input. */
static nb_tensor* resolve(const cr_case* c, const cr_state* st, const cr_call* call, const char* name) {
    for (int i = 0; i < c->nargs; i++)
        if (strcmp(c->args[i].kind, "out") == 0 && strcmp(c->args[i].value, name) == 0) return call->slot[i];
    const int j = input_index(c, name);
    return j < 0 ? NULL : st->in[j];
}

static int arg_index(const cr_case* c, const char* kind, const char* name) {
    for (int i = 0; i < c->nargs; i++)
        if (strcmp(c->args[i].kind, kind) == 0 && strcmp(c->args[i].value, name) == 0) return i;
    return -1;
}

static int check_error_status(const cr_case* c, nb_status s) {
    const nb_status want = status_code(c->status);
    if (s != want)
        return fail("status %s, expected %s (%s)", nb_status_name(s), c->status, s ? nb_last_error_message() : "");
    if (nb_last_error_status() != want) return fail("nb_last_error_status() disagrees with the returned status");
    if (nb_last_error_message()[0] == '\0') return fail("empty error message");
    return 0;
}

static int check_error(const cr_case* c, nb_status s, const cr_call* call) {
    if (check_error_status(c, s)) return 1;
    for (int i = 0; i < c->nargs; i++) {
        const char* k = c->args[i].kind;
        if ((strcmp(k, "out") == 0 && call->slot[i] != (nb_tensor*)SENTINEL) ||
            (strcmp(k, "genout") == 0 && call->gslot[i] != (nb_generator*)SENTINEL) ||
            (strcmp(k, "u64out") == 0 && call->uslot[i] != U64_SENTINEL))
            return fail("out-parameter %s was written although the call failed", c->args[i].value);
    }
    return 0;
}

static int check_expect(const cr_case* c, const cr_expect* e, cr_state* st, const cr_call* call) {
    if (strcmp(e->spec, "u64") == 0) {
        const int i = arg_index(c, "u64out", e->name);
        if (i < 0) return fail("no u64 output %s", e->name);
        if (call->uslot[i] != e->v[0])
            return fail("%s = %llu, expected %llu", e->name, (unsigned long long)call->uslot[i],
                        (unsigned long long)e->v[0]);
        return 0;
    }
    if (strcmp(e->spec, "gen") == 0) {
        const int j = find(st->gen_name, st->ngen, e->name);
        const int is_default = strcmp(e->name, "default") == 0;
        if (j < 0 && !is_default) return fail("no generator %s", e->name);
        uint64_t seed = 0, offset = 0;
        if (nb_generator_get_state(is_default ? nb_default_generator() : st->gen[j], &seed, &offset) != NB_OK)
            return fail("nb_generator_get_state failed");
        if (seed != e->v[0] || offset != e->v[1])
            return fail("generator %s at (seed %llu, offset %llu), expected (%llu, %llu)", e->name,
                        (unsigned long long)seed, (unsigned long long)offset, (unsigned long long)e->v[0],
                        (unsigned long long)e->v[1]);
        return 0;
    }
    if (strcmp(e->spec, "notnull") == 0) return call->ret == NULL ? fail("%s returned NULL", c->call) : 0;
    nb_tensor* h = resolve(c, st, call, e->name);
    if (h == NULL) return fail("the case names no output or input %s", e->name);
    return compare(e->name, h, &e->tensor, c->tol);
}

static int check_grads(const cr_case* c, cr_state* st, const cr_call* call) {
    nb_tensor *outs[CR_MAX], *gouts[CR_MAX], *wrt[CR_MAX], *grads[CR_MAX];
    for (int i = 0; i < c->ngrad_out; i++) {
        outs[i] = resolve(c, st, call, c->grad_out[i].name);
        if (outs[i] == NULL) return fail("no output %s", c->grad_out[i].name);
        if (make_tensor(st, &c->grad_out[i], st->device, &gouts[i])) return 1;
    }
    for (int i = 0; i < c->nrequires; i++) {
        const int j = input_index(c, c->requires_grad[i]);
        if (j < 0) return fail("no input %s", c->requires_grad[i]);
        wrt[i] = st->in[j];
        grads[i] = NULL;
    }
    const nb_status s = nb_autograd_grad((nb_tensor* const*)outs, (nb_tensor* const*)gouts, c->ngrad_out,
                                         (nb_tensor* const*)wrt, c->nrequires, 0, 0, 1, grads);
    if (s != NB_OK) return fail("nb_autograd_grad: %s: %s", nb_status_name(s), nb_last_error_message());
    for (int i = 0; i < c->nrequires; i++)
        if (grads[i] != NULL && own(st, grads[i])) return 1;
    for (int i = 0; i < c->nrequires; i++) {
        const cr_tensor* want = NULL;
        for (int k = 0; k < c->nexpect_grad; k++)
            if (strcmp(c->expect_grad[k].name, c->requires_grad[i]) == 0) want = &c->expect_grad[k];
        if (want == NULL) return fail("no expected gradient for %s", c->requires_grad[i]);
        nb_tensor* g = grads[i];
        if (g == NULL) { /* an unused input: its gradient is zero */
            if (nb_zeros(want->shape, want->ndim, want->dtype, NB_CPU, 0, &g) != NB_OK || own(st, g))
                return fail("nb_zeros failed");
        }
        char what[96];
        snprintf(what, sizeof what, "gradient of %s", c->requires_grad[i]);
        if (compare(what, g, want, c->tol)) return 1;
    }
    return 0;
}

static int add_gen(cr_state* st, const char* name, nb_generator* g) {
    if (st->ngen >= 2 * CR_MAX) return fail("too many generators");
    copy_name(st->gen_name[st->ngen], 64, name);
    st->gen[st->ngen++] = g;
    return 0;
}

static int call_case(const cr_case* c, cr_state* st) {
    const cr_op* op = NULL;
    for (size_t i = 0; i < sizeof CR_OPS / sizeof CR_OPS[0]; i++)
        if (strcmp(CR_OPS[i].name, c->call) == 0) op = &CR_OPS[i];
    if (op == NULL) return fail("this runner was built without %s", c->call);
    for (int i = 0; i < c->nin; i++)
        if (make_tensor(st, &c->in[i], st->device, &st->in[i])) return 1;
    for (int i = 0; i < c->ngen; i++) {
        nb_generator* g = NULL;
        if (nb_generator_create(c->gen_seed[i], &g) != NB_OK) return fail("nb_generator_create failed");
        if (add_gen(st, c->gen_name[i], g)) return 1;
        if (nb_generator_set_state(g, c->gen_seed[i], c->gen_offset[i]) != NB_OK) return fail("set_state failed");
    }
    for (int i = 0; i < c->nrequires; i++) {
        const int j = input_index(c, c->requires_grad[i]);
        if (j < 0 || nb_tensor_set_requires_grad(st->in[j], 1) != NB_OK) return fail("set_requires_grad failed");
    }
    cr_call* call = calloc(1, sizeof *call);
    if (call == NULL) return fail("out of memory");
    int r = build_args(c, op, st, call);
    if (r == 0) {
        const nb_status s = op->call(call->a, &call->ret);
        for (int i = 0; i < c->nargs; i++) { /* take ownership of results */
            if (strcmp(c->args[i].kind, "out") == 0 && call->slot[i] && call->slot[i] != (nb_tensor*)SENTINEL)
                r = r || own(st, call->slot[i]);
            if (strcmp(c->args[i].kind, "genout") == 0 && call->gslot[i] &&
                call->gslot[i] != (nb_generator*)SENTINEL)
                r = r || add_gen(st, c->args[i].value, call->gslot[i]);
        }
        if (r == 0 && strcmp(c->kind, "error") == 0 && s == NB_OK &&
            (strcmp(c->status, "NB_ERR_INDEX") == 0 || strcmp(c->status, "NB_ERR_INVALID_ARGUMENT") == 0) &&
            st->device == NB_CUDA) {
            /* a kernel's out-of-range index or zero divisor arrives at the next synchronisation */
            r = check_error_status(c, nb_device_synchronize(NB_CUDA, 0));
        } else if (r == 0 && strcmp(c->kind, "error") == 0) {
            r = check_error(c, s, call);
        } else if (r == 0 && s != NB_OK) {
            r = fail("%s: %s: %s", c->call, nb_status_name(s), nb_last_error_message());
        } else if (r == 0 && strcmp(c->kind, "grad") == 0) {
            r = check_grads(c, st, call);
        } else {
            for (int i = 0; r == 0 && i < c->nexpects; i++) r = check_expect(c, &c->expects[i], st, call);
        }
    }
    free(call);
    return r;
}

/* ---- ABI-level procedures (README, "ABI-level cases") ---- */

static const cr_tensor* named_input(const cr_case* c, const char* name) {
    const int j = input_index(c, name);
    return j < 0 ? NULL : &c->in[j];
}

static int abi_version(const cr_case* c) {
    const uint32_t v = nb_version();
    char text[64];
    snprintf(text, sizeof text, "%u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    if (strcmp(text, nb_version_string()) != 0)
        return fail("nb_version_string() %s disagrees with nb_version() %u", nb_version_string(), v);
    unsigned major = 0, minor = 0;
    sscanf(c->abi, "%u.%u", &major, &minor);
    if (v / 10000 != major || v / 100 % 100 < minor) return fail("version %s does not serve ABI %s", text, c->abi);
    if (v / 10000 != NB_VERSION_MAJOR) return fail("the header and the library disagree on the major version");
    return 0;
}

static int expect_live(int64_t n, const char* when) {
    const int64_t live = live_tensors();
    return live == n ? 0 : fail("%lld live tensors %s, expected %lld", (long long)live, when, (long long)n);
}

static int abi_refcount(const cr_case* c, cr_state* st) {
    const cr_tensor* xt = named_input(c, "x");
    if (xt == NULL) return fail("no input x");
    const int64_t base = live_tensors();
    nb_tensor *x = NULL, *v = NULL;
    if (nb_tensor_from_host(xt->data, xt->shape, xt->ndim, xt->dtype, st->device, 0, &x) != NB_OK)
        return fail("nb_tensor_from_host failed");
    int r = expect_live(base + 1, "after creating x");
    if (!r && nb_tensor_refcount(x) != 1) r = fail("refcount %lld, expected 1", (long long)nb_tensor_refcount(x));
    nb_tensor_retain(x);
    if (!r && nb_tensor_refcount(x) != 2) r = fail("refcount after retain is not 2");
    nb_tensor_release(x);
    if (!r && nb_tensor_refcount(x) != 1) r = fail("refcount after release is not 1");
    if (!r && nb_tensor_unsqueeze(x, 0, &v) != NB_OK) r = fail("nb_tensor_unsqueeze failed");
    if (!r) r = expect_live(base + 2, "after a view of x");
    nb_tensor_release(x); /* the view keeps the memory alive */
    if (!r && v != NULL) {
        unsigned char* got = malloc((size_t)xt->nbytes + 1);
        if (got == NULL || nb_tensor_copy_to_host(v, got, xt->nbytes) != NB_OK ||
            memcmp(got, xt->data, (size_t)xt->nbytes) != 0)
            r = fail("a view read different values once its base was released");
        free(got);
    }
    nb_tensor_release(v);
    return r ? r : expect_live(base, "after releasing x and its view");
}

static int abi_refcount_autograd(const cr_case* c, cr_state* st) {
    const cr_tensor* xt = named_input(c, "x");
    if (xt == NULL) return fail("no input x");
    const int64_t base = live_tensors();
    nb_tensor *x = NULL, *y = NULL, *s = NULL, *g = NULL;
    int r = nb_tensor_from_host(xt->data, xt->shape, xt->ndim, xt->dtype, st->device, 0, &x) != NB_OK;
    r = r || nb_tensor_set_requires_grad(x, 1) != NB_OK;
    r = r || nb_exp(x, NULL, &y) != NB_OK;
    r = r || nb_sum(y, NULL, 0, 0, -1, NULL, &s) != NB_OK;
    r = r || nb_backward((nb_tensor* const*)&s, NULL, 1, 0, 0) != NB_OK;
    r = r || nb_tensor_get_grad(x, &g) != NB_OK || g == NULL;
    if (r) fail("exp, sum and backward failed: %s", nb_last_error_message());
    nb_tensor_release(g);
    nb_tensor_release(s);
    nb_tensor_release(y);
    nb_tensor_release(x);
    return r ? r : expect_live(base, "after releasing x, its graph and its gradient");
}

static int abi_error(const cr_case* c, cr_state* st) {
    const cr_tensor *at = named_input(c, "a"), *bt = named_input(c, "b");
    if (at == NULL || bt == NULL) return fail("no inputs a and b");
    nb_tensor *a, *b, *out = (nb_tensor*)SENTINEL;
    if (make_tensor(st, at, st->device, &a) || make_tensor(st, bt, st->device, &b)) return 1;
    const nb_status s = nb_add(a, b, 1.0, NULL, &out), want = status_code(c->status);
    if (s != want || nb_last_error_status() != want)
        return fail("status %s / last %s, expected %s", nb_status_name(s), nb_status_name(nb_last_error_status()),
                    c->status);
    if (out != (nb_tensor*)SENTINEL) return fail("out-parameter written by a failed call");
    if (nb_last_error_message()[0] == '\0') return fail("empty error message");
    if (strcmp(nb_status_name(s), c->status) != 0) return fail("nb_status_name(%d) is not %s", (int)s, c->status);
    nb_clear_error();
    if (nb_last_error_status() != NB_OK || nb_last_error_message()[0] != '\0')
        return fail("nb_clear_error left a status or a message");
    return 0;
}

static int abi_dlpack(const cr_case* c, cr_state* st) {
#ifdef CR_HAVE_DLPACK
    const cr_tensor* xt = named_input(c, "x");
    if (xt == NULL) return fail("no input x");
    const int versioned = strstr(c->id, "versioned") != NULL;
    const int64_t base = live_tensors();
    nb_tensor *x = NULL, *y = NULL;
    void* m = NULL;
    if (nb_tensor_from_host(xt->data, xt->shape, xt->ndim, xt->dtype, NB_CPU, 0, &x) != NB_OK)
        return fail("nb_tensor_from_host failed");
    nb_status s = versioned ? nb_tensor_to_dlpack_versioned(x, -1, -1, 0, &m) : nb_tensor_to_dlpack(x, -1, -1, 0, &m);
    if (s != NB_OK) {
        nb_tensor_release(x);
        return fail("export: %s: %s", nb_status_name(s), nb_last_error_message());
    }
    const DLTensor* dl = versioned ? &((DLManagedTensorVersioned*)m)->dl_tensor : &((DLManagedTensor*)m)->dl_tensor;
    static const uint8_t CODE[10] = {kDLFloat, kDLFloat, kDLFloat, kDLBfloat, kDLInt, kDLInt, kDLInt, kDLInt, kDLUInt,
                                     kDLBool};
    int r = 0;
    if (versioned && ((DLManagedTensorVersioned*)m)->version.major != 1) r = fail("DLPack major version is not 1");
    if (!r && ((char*)dl->data + dl->byte_offset != (char*)nb_tensor_data_ptr(x) || dl->ndim != xt->ndim ||
               (int)dl->device.device_type != NB_CPU))
        r = fail("the exported DLTensor does not describe x (data, ndim or device)");
    for (int32_t d = 0; !r && d < xt->ndim; d++)
        if (dl->shape[d] != xt->shape[d]) r = fail("exported shape differs at dim %d", (int)d);
    if (!r && (dl->dtype.code != CODE[xt->dtype] || dl->dtype.bits != 8 * DTYPE_SIZE[xt->dtype] || dl->dtype.lanes != 1))
        r = fail("exported dtype (%d, %d, %d)", dl->dtype.code, dl->dtype.bits, dl->dtype.lanes);
    s = versioned ? nb_tensor_from_dlpack_versioned(m, &y) : nb_tensor_from_dlpack(m, &y);
    if (s != NB_OK) { /* the producer keeps it: run its deleter ourselves */
        if (versioned) ((DLManagedTensorVersioned*)m)->deleter((DLManagedTensorVersioned*)m);
        else ((DLManagedTensor*)m)->deleter((DLManagedTensor*)m);
        nb_tensor_release(x);
        return r ? r : fail("import: %s: %s", nb_status_name(s), nb_last_error_message());
    }
    if (!r && nb_tensor_data_ptr(y) != nb_tensor_data_ptr(x)) r = fail("the round trip copied the memory");
    nb_tensor_release(x);
    if (!r) {
        unsigned char* got = malloc((size_t)xt->nbytes + 1);
        if (got == NULL || nb_tensor_copy_to_host(y, got, xt->nbytes) != NB_OK ||
            memcmp(got, xt->data, (size_t)xt->nbytes) != 0)
            r = fail("values changed in the round trip");
        free(got);
    }
    nb_tensor_release(y);
    (void)st;
    return r ? r : expect_live(base, "after releasing both ends (the deleter ran)");
#else
    (void)c, (void)st;
    return fail("built without nabla/dlpack.h");
#endif
}

/* ---- the driver ---- */

static int has_cuda(void) {
    int32_t n = 0;
    return nb_device_count(NB_CUDA, &n) == NB_OK && n > 0;
}

/* "PASS", "FAIL" or "SKIP" for one case, with `why` set for the last two. */
static const char* run_case(const cr_case* c, int32_t device) {
    why[0] = '\0';
    unsigned major = 0, minor = 0;
    sscanf(c->abi, "%u.%u", &major, &minor);
    const uint32_t v = nb_version();
    if (major != v / 10000 || minor > v / 100 % 100) {
        snprintf(why, sizeof why, "needs ABI %s, the library has %u.%u", c->abi, v / 10000, v / 100 % 100);
        return "SKIP";
    }
    for (int i = 0; i < c->nneeds; i++) {
        if (strcmp(c->needs[i], "cuda") == 0 && !has_cuda()) {
            snprintf(why, sizeof why, "needs cuda: %s", nb_device_unavailable_reason(NB_CUDA));
            return "SKIP";
        }
        if (strcmp(c->needs[i], "cuda") != 0 && strcmp(c->needs[i], "f16") != 0 && strcmp(c->needs[i], "bf16") != 0) {
            snprintf(why, sizeof why, "needs %s: not supported by this runner", c->needs[i]);
            return "SKIP";
        }
    }
    if (device == NB_CUDA && !has_cuda()) {
        snprintf(why, sizeof why, "no CUDA device");
        return "SKIP";
    }
    const int64_t base = live_tensors();
    cr_state* st = calloc(1, sizeof *st);
    if (st == NULL) return "FAIL";
    st->device = strcmp(c->device, "cuda") == 0 ? NB_CUDA : strcmp(c->device, "cpu") == 0 ? NB_CPU : device;
    int r;
    if (strcmp(c->kind, "abi") != 0) r = call_case(c, st);
    else if (strcmp(c->call, "version") == 0) r = abi_version(c);
    else if (strcmp(c->call, "refcount") == 0) r = abi_refcount(c, st);
    else if (strcmp(c->call, "refcount_autograd") == 0) r = abi_refcount_autograd(c, st);
    else if (strcmp(c->call, "error") == 0) r = abi_error(c, st);
    else if (strcmp(c->call, "dlpack") == 0) r = abi_dlpack(c, st);
    else r = fail("unknown ABI procedure %s", c->call);
    for (int i = 0; i < st->nowned; i++) nb_tensor_release(st->owned[i]);
    for (int i = 0; i < st->ngen; i++)
        if (find(c->consumes, c->nconsumes, st->gen_name[i]) < 0) nb_generator_release(st->gen[i]);
    free(st);
    nb_clear_error();
    const int64_t leaked = live_tensors() - base;
    if (r == 0 && leaked != 0) r = fail("%lld tensors still alive after every handle was released", (long long)leaked);
    return r ? "FAIL" : "PASS";
}

int main(int argc, char** argv) {
    int32_t device = NB_CPU;
    const char* filter = "";
    long passed = 0, failed = 0, skipped = 0;
    cr_case* c = calloc(1, sizeof *c);
    char* line = NULL;
    size_t cap = 0;
    if (c == NULL) return 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            device = strcmp(argv[++i], "cuda") == 0 ? NB_CUDA : NB_CPU;
            continue;
        }
        if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
            filter = argv[++i];
            continue;
        }
        FILE* f = fopen(argv[i], "r");
        if (f == NULL) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 2;
        }
        long lineno = 0;
        while (read_line(f, &line, &cap)) {
            lineno++;
            const int r = parse_line(line, c);
            if (r < 0) {
                fprintf(stderr, "%s:%ld: malformed line\n", argv[i], lineno);
                return 2;
            }
            if (r == 0 || strstr(c->id, filter) == NULL) continue;
            const char* verdict = run_case(c, device);
            printf("%s %s%s%s\n", verdict, c->id, why[0] ? ": " : "", why[0] ? why : "");
            fflush(stdout);
            passed += verdict[0] == 'P';
            failed += verdict[0] == 'F';
            skipped += verdict[0] == 'S';
        }
        fclose(f);
    }
    free_case(c);
    free(c);
    free(line);
    printf("%ld passed, %ld failed, %ld skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
