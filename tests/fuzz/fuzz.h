/* fuzz.h: shared state of nabla's C ABI fuzzer (tests/fuzz/README.md).
 *
 * The fuzzer runs episodes: each one starts from an empty pool of tensors and
 * generators, makes a few dozen random calls into the public ABI, then releases
 * everything and checks that the live tensor and storage counts are back where
 * they started. Episode E of seed S is reproducible alone (--seed S --episode E). */
#ifndef NABLA_FUZZ_H
#define NABLA_FUZZ_H

#include <nabla.h>

#include <stdint.h>
#include <stdio.h>

#define FZ_SLOTS 12      /* tensors an episode keeps alive */
#define FZ_GENS 4        /* generators an episode keeps alive */
#define FZ_MAX_ARGS 24   /* parameters of the widest op */
#define FZ_ARRAY 64      /* every int64 array argument has this many elements */
#define FZ_LIST 8        /* every tensor-list argument has this many entries */

/* One argument of a generated call (fuzz_calls.inc reads them by parameter position). */
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
} fz_arg;

typedef struct {
    const char* name;
    const char* family;
    const char* kinds;  /* one letter per parameter: gen_calls.py lists them */
    nb_status (*call)(fz_arg* a);
} fz_op;

/* Input families known to crash or misbehave that can be switched off with
 * --exclude NAME while their fixes are unmerged (CI runs with none excluded). */
enum {
    FZ_X_CAT_OUT = 1 << 0,          /* cat_out: nb_cat/nb_stack given a dst */
    FZ_X_HUGE_DIMS = 1 << 1,        /* huge_dims: shapes with a dim near INT64_MAX */
    FZ_X_AS_STRIDED = 1 << 2,       /* as_strided: random as_strided views and offsets */
    FZ_X_DLPACK_LAYOUT = 1 << 3,    /* dlpack_layout: DLPack capsules with mutated strides/byte_offset */
    FZ_X_STALE_GENERATOR = 1 << 4,  /* stale_generator: a released generator passed again */
    FZ_X_SECOND_BACKWARD = 1 << 5,  /* second_backward: backward twice through a freed graph */
    FZ_X_COPY_ALIAS = 1 << 6,       /* copy_alias: nb_tensor_copy_ between pool tensors (may alias) */
    FZ_X_INPLACE = 1 << 7,          /* inplace: dst never one of the call's inputs */
};
#define FZ_MAX_SKIP_OPS 16

typedef struct {
    uint64_t s;  /* splitmix64 state */
    uint32_t exclude;
    uint64_t seed;
    int64_t episode;
    int64_t step;
    int verbose;
    int plant_leak;  /* leak one tensor in episode 0: proves the live-object check */
    const char* only_op;  /* restrict op calls to one name (minimising) */
    const char* skip_op[FZ_MAX_SKIP_OPS];  /* --exclude op:NAME */
    int nskip;
    nb_tensor* slot[FZ_SLOTS];
    nb_generator* gen[FZ_GENS];
    nb_generator* stale;  /* a released generator (only without FZ_X_STALE_GENERATOR) */
    int64_t calls, ok_calls, violations;
    int64_t op_ok[512], op_calls[512];
} fz_state;

extern fz_state FZ;
extern const char* fz_current;  /* what is running now, for the crash report */

uint64_t fz_next(void);
int64_t fz_below(int64_t n);  /* uniform in [0, n) */
int fz_chance(int percent);
int fz_excluded(uint32_t family);

int32_t fz_dtype(void);         /* a valid dtype, float-leaning */
int32_t fz_any_dtype(void);     /* sometimes invalid */
int64_t fz_small_int(void);     /* mostly in [-2, 6], sometimes huge */
int32_t fz_int32(void);
double fz_double(void);
int fz_shape(int64_t* shape);   /* a random small shape; returns ndim */
nb_tensor* fz_tensor(int32_t dtype, const int64_t* shape, int ndim);  /* random values */
nb_tensor* fz_random_tensor(void);
nb_tensor* fz_view(nb_tensor* t);  /* a random view of t (or NULL) */
nb_tensor* fz_pick(void);       /* a borrowed pool tensor or NULL */
void fz_keep(nb_tensor* t);     /* puts a new reference in the pool (steals it) */
void fz_pool_clear(void);

void fz_violation(const char* what, const char* fmt, ...);
void fz_check_status(const char* what, nb_status st);
void fz_touch(const char* what, const nb_tensor* t);  /* reads every element; checks metadata */

void fz_dlpack_step(void);  /* fuzz_dlpack.c */
int64_t fz_capsules_alive(void);

#endif
