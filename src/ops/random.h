/* random.h: what random.c shares with random_sampling.c (private to the library). */
#ifndef NABLA_OPS_RANDOM_H_
#define NABLA_OPS_RANDOM_H_

#include "../core/internal.h"
#include "../cpu/kernels.h"
#include "philox.h"

/* An elementwise distribution: what a kernel needs to make elements of a result. */
typedef struct nb_rng_dist {
    int32_t compute;    /* dtype the kernel writes (converted to the target's afterwards) */
    int32_t round;      /* the target dtype: float16/bfloat16 uniforms are made exact in it */
    double a, b;        /* from/to, mean/std, p, or (keep probability, scale) for dropout */
    int64_t low;        /* integers: low + [0, span) */
    uint64_t span;      /* 0 stands for 2^64 */
    const void* in;     /* per-element input: probabilities (f64) or the dropout input */
    nb_philox ph;       /* the op's reserved blocks */
    int32_t kind;       /* NB_RNGK_*: what a device backend runs instead of the kernel */
    const nb_tensor* in_t; /* on a device: bernoulli's p or dropout's x, read in place (else NULL) */
} nb_rng_dist;

/* Writes elements [begin, end) of the result to out[0 .. end-begin) (compute dtype). */
typedef void (*nb_rng_kernel)(const nb_rng_dist* d, int64_t begin, int64_t end, void* out);

/* gen, or the default generator for NULL; fails for a released handle. */
NB_INTERNAL nb_status nb_rng_resolve(const char* op, nb_generator* gen, nb_generator** out);
/* Reserves `blocks` Philox blocks: returns the key and the first block, advances the offset. */
NB_INTERNAL nb_philox nb_rng_reserve(nb_generator* gen, uint64_t blocks);
/* fn(ctx, begin, end) over [0, n), split across OpenMP threads when n >= 2 * grain. */
NB_INTERNAL void nb_rng_parallel(int64_t n, void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx,
                                 int64_t grain);
/* Fills target (any layout, dtype, device) in row-major element order. */
NB_INTERNAL nb_status nb_rng_produce(const char* op, nb_tensor* target, const nb_rng_dist* d, nb_rng_kernel fn);
/* The tensor a creation op writes: a new one, or dst after checking shape, dtype and device. */
NB_INTERNAL nb_status nb_rng_target(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype,
                                    int32_t device_type, int32_t device_index, nb_tensor* dst, nb_tensor** out,
                                    nb_tensor** target);
/* Whether target lives on a device whose backend has an rng slot. */
NB_INTERNAL bool nb_rng_device_has_slot(const nb_tensor* target);
/* Fills target on its device through the backend's rng slot (random_device.c). */
NB_INTERNAL nb_status nb_rng_on_device(const char* op, nb_tensor* target, const nb_rng_dist* d);
/* Hands out the result (dst: version bump and an optional new reference); releases it on failure. */
NB_INTERNAL nb_status nb_rng_finish(nb_status st, nb_tensor* target, nb_tensor* dst, nb_tensor** out);

static inline uint64_t nb_mulhi64(uint64_t a, uint64_t b) {
    __extension__ typedef unsigned __int128 nb_u128;
    return (uint64_t)(((nb_u128)a * b) >> 64);
}

#endif /* NABLA_OPS_RANDOM_H_ */
