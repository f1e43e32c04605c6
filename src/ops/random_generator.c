/* random_generator.c: the generator object (seed + offset, a mutex per generator,
 * the process default) and the helpers every random op shares: resolving and
 * reserving from a generator, the OpenMP range driver, and the result plumbing
 * (new tensor or dst). */
#include "random.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define GENERATOR_MAGIC 0x726e6721u /* "rng!" */
#define DEFAULT_SEED UINT64_C(67280421310721) /* PyTorch's default_rng_seed_val */

/* Generators live in slots of their own: a released one keeps its memory, with the
 * magic word cleared, on a free list that only nb_generator_create takes from. A stale
 * handle therefore always points at a generator slot, never at freed memory or at
 * another kind of object (a block of the shared allocator would be reused by any object
 * of its size class, or go back to the system). The list is a FIFO that is taken from
 * only while it holds more than NB_HANDLE_QUARANTINE slots, so a released generator is
 * refused, not silently aliased by a newer one, for that many later releases. */
struct nb_generator {
    uint64_t seed;
    uint32_t magic;
    int32_t is_default;
    uint64_t offset; /* in Philox blocks */
    pthread_mutex_t lock;
    nb_generator* next_free; /* released slots */
};

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static nb_generator* free_slots;      /* oldest released first */
static nb_generator* free_slots_tail;
static int64_t free_count;

static nb_generator default_generator = {.seed = DEFAULT_SEED, .magic = GENERATOR_MAGIC, .is_default = 1,
                                         .offset = 0, .lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- generators ---- */

nb_status nb_rng_resolve(const char* op, nb_generator* gen, nb_generator** out) {
    if (gen == NULL) {
        *out = &default_generator;
        return NB_OK;
    }
    if (gen->magic == NB_TENSOR_DEAD) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: generator was released", op);
    if (gen->magic != GENERATOR_MAGIC)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: generator %p is not a live nb_generator (corrupt handle)", op,
                        (void*)gen);
    *out = gen;
    return NB_OK;
}

nb_philox nb_rng_reserve(nb_generator* gen, uint64_t blocks) {
    pthread_mutex_lock(&gen->lock);
    nb_philox p = nb_philox_make(gen->seed, gen->offset);
    gen->offset += blocks;
    pthread_mutex_unlock(&gen->lock);
    return p;
}

/* Appends a released slot at the young end of the free list. */
static void push_free(nb_generator* g) {
    g->next_free = NULL;
    pthread_mutex_lock(&slots_lock);
    if (free_slots_tail != NULL) free_slots_tail->next_free = g;
    else free_slots = g;
    free_slots_tail = g;
    free_count++;
    pthread_mutex_unlock(&slots_lock);
}

NB_API nb_status nb_generator_create(uint64_t seed, nb_generator** out) {
    NB_CHECK_OUT("generator_create", out);
    pthread_mutex_lock(&slots_lock);
    nb_generator* g = NULL;
    if (free_count > NB_HANDLE_QUARANTINE) {
        g = free_slots;
        free_slots = g->next_free;
        if (free_slots == NULL) free_slots_tail = NULL;
        free_count--;
    }
    pthread_mutex_unlock(&slots_lock);
    if (g == NULL && (g = calloc(1, sizeof *g)) == NULL)
        return nb_error(NB_ERR_OUT_OF_MEMORY, "generator_create: out of memory");
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        g->magic = NB_TENSOR_DEAD;
        push_free(g);
        return nb_error(NB_ERR_INTERNAL, "generator_create: pthread_mutex_init failed");
    }
    g->is_default = 0;
    g->seed = seed;
    g->offset = 0;
    g->next_free = NULL;
    g->magic = GENERATOR_MAGIC;
    *out = g;
    return NB_OK;
}

NB_API void nb_generator_release(nb_generator* gen) {
    if (gen == NULL) return;
    if (gen->magic != GENERATOR_MAGIC) {
        nb_bad_release("nb_generator_release", "generator", gen, gen->magic);
        return;
    }
    if (gen->is_default) return;
    gen->magic = NB_TENSOR_DEAD;
    pthread_mutex_destroy(&gen->lock);
    push_free(gen);
}

NB_API nb_generator* nb_default_generator(void) { return &default_generator; }

NB_API nb_status nb_generator_set_state(nb_generator* gen, uint64_t seed, uint64_t offset) {
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve("generator_set_state", gen, &g);
    if (st != NB_OK) return st;
    pthread_mutex_lock(&g->lock);
    g->seed = seed;
    g->offset = offset;
    pthread_mutex_unlock(&g->lock);
    return NB_OK;
}

NB_API nb_status nb_generator_manual_seed(nb_generator* gen, uint64_t seed) {
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve("generator_manual_seed", gen, &g);
    return st != NB_OK ? st : nb_generator_set_state(g, seed, 0);
}

NB_API nb_status nb_manual_seed(uint64_t seed) { return nb_generator_set_state(&default_generator, seed, 0); }

NB_API nb_status nb_generator_get_state(nb_generator* gen, uint64_t* seed, uint64_t* offset) {
    static const char* op = "generator_get_state";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    if (seed == NULL || offset == NULL)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: output pointer '%s' is NULL", op, seed ? "offset" : "seed");
    pthread_mutex_lock(&g->lock);
    *seed = g->seed;
    *offset = g->offset;
    pthread_mutex_unlock(&g->lock);
    return NB_OK;
}

NB_API nb_status nb_generator_seed(nb_generator* gen, uint64_t* out) {
    static const char* op = "generator_seed";
    nb_generator* g = NULL;
    nb_status st = nb_rng_resolve(op, gen, &g);
    if (st != NB_OK) return st;
    NB_CHECK_OUT(op, out);
    uint64_t offset;
    return nb_generator_get_state(g, out, &offset);
}

/* ---- shared helpers ---- */

void nb_rng_parallel(int64_t n, void (*fn)(void* ctx, int64_t begin, int64_t end), void* ctx, int64_t grain) {
    if (n <= 0) return;
#ifdef _OPENMP
    if (n >= 2 * grain && omp_get_max_threads() > 1 && !omp_in_parallel()) {
        const int64_t max_chunks = n / grain;
#pragma omp parallel
        {
            int64_t nt = omp_get_num_threads() < max_chunks ? omp_get_num_threads() : max_chunks;
            int64_t t = omp_get_thread_num();
            if (t < nt) fn(ctx, n * t / nt, n * (t + 1) / nt);
        }
        return;
    }
#endif
    (void)grain;
    fn(ctx, 0, n);
}

nb_status nb_rng_target(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, int32_t device_type,
                        int32_t device_index, nb_tensor* dst, nb_tensor** out, nb_tensor** target) {
    int64_t numel;
    nb_status st = nb_check_shape(op, shape, ndim, &numel);
    if (st != NB_OK) return st;
    const nb_backend* backend;
    if ((st = nb_device_resolve(op, device_type, &device_index, &backend)) != NB_OK) return st;
    if (dst == NULL) {
        NB_CHECK_OUT(op, out);
        return nb_tensor_new(op, shape, ndim, dtype, device_type, device_index, target);
    }
    if (!nb_tensor_ok(dst)) return nb_bad_handle(op, "dst", dst);
    NB_CHECK_WRITABLE(op, dst);
    if (dst->dtype != dtype)
        return nb_error(NB_ERR_DTYPE, "%s: dtype %s does not match the dtype of the output (%s)", op,
                        nb_dtype_str(dtype), nb_dtype_str(dst->dtype));
    if (dst->storage->device_type != device_type || dst->storage->device_index != device_index)
        return nb_error(NB_ERR_DEVICE, "%s: the output is on %s:%d but the result was asked on %s:%d", op,
                        nb_device_type_name(dst->storage->device_type), (int)dst->storage->device_index,
                        nb_device_type_name(device_type), (int)device_index);
    /* PyTorch's random factories resize their out= tensor without a warning */
    if ((st = nb_resize(op, dst, shape, ndim)) != NB_OK) return st;
    *target = dst;
    return NB_OK;
}

nb_status nb_rng_finish(nb_status st, nb_tensor* target, nb_tensor* dst, nb_tensor** out) {
    if (st != NB_OK) {
        if (dst == NULL) nb_tensor_release(target);
        return st;
    }
    if (dst == NULL) {
        *out = target;
        return NB_OK;
    }
    nb_tensor_bump_version(dst);
    if (out != NULL) {
        nb_tensor_retain(dst);
        *out = dst;
    }
    return NB_OK;
}

