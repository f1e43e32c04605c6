/* test_caching_allocator.c: the device caching allocator against the simulated
 * device: rounding and pools, best fit, splitting and coalescing, trace replays
 * with every invariant checked after every step, the steady state without raw
 * allocations, cross-stream reuse only after events complete, the out-of-memory
 * retry and message, snapshots, and concurrent use.
 *
 * The allocator core depends only on nabla.h and pthreads, so this program
 * compiles it (and the simulated device) in directly: no test-only symbol has to
 * enter the public ABI. */
#include "nbtest.h"

#include "../../src/alloc/caching_allocator.c"
#include "../../src/alloc/sim_device.c"

#include <pthread.h>

#define MiB ((int64_t)1 << 20)
#define GiB ((int64_t)1 << 30)

typedef struct {
    nb_sim_device* sim;
    nb_ca* a;
    void* s0;
    void* s1;
} fixture;

static fixture setup(int64_t capacity) {
    fixture f;
    f.sim = nb_sim_create(capacity);
    nb_ca_device dev = nb_sim_interface(f.sim);
    f.a = nb_ca_create(&dev, "sim:0");
    f.s0 = nb_sim_stream(f.sim, 0);
    f.s1 = nb_sim_stream(f.sim, 1);
    return f;
}

static void teardown(fixture* f) {
    nb_ca_destroy(f->a);
    CHECK_EQ_INT(nb_sim_get_counts(f->sim).in_use_bytes, 0);  /* every segment went back */
    nb_sim_destroy(f->sim);
}

#define CHECK_INVARIANTS(a)                                                 \
    do {                                                                    \
        char inv_msg_[256];                                                 \
        if (!nb_ca_check((a), inv_msg_, sizeof inv_msg_))                   \
            nbt_fail(__FILE__, __LINE__, "invariant: %s", inv_msg_);        \
    } while (0)

static void* must_alloc(nb_ca* a, int64_t n, void* stream) {
    void* p = NULL;
    char msg[512];
    nb_status st = nb_ca_malloc(a, n, stream, &p, msg, sizeof msg);
    if (st != NB_OK) nbt_fail(__FILE__, __LINE__, "nb_ca_malloc(%lld): %s", (long long)n, msg);
    return p;
}

static int64_t block_size(nb_ca* a, void* p) {
    int64_t size = -1;
    CHECK(nb_ca_block_info(a, p, &size, NULL));
    return size;
}

static nb_ca_stats stats(nb_ca* a) {
    nb_ca_stats s;
    nb_ca_get_stats(a, &s);
    return s;
}

/* ---- policy ---- */

TEST(test_sizes_round_to_512_and_pick_segments) {
    fixture f = setup(GiB);
    void* p0 = must_alloc(f.a, 0, f.s0);
    void* p1 = must_alloc(f.a, 1, f.s0);
    void* p2 = must_alloc(f.a, 513, f.s0);
    CHECK_EQ_INT(block_size(f.a, p0), 512);
    CHECK_EQ_INT(block_size(f.a, p1), 512);
    CHECK_EQ_INT(block_size(f.a, p2), 1024);
    CHECK((char*)p1 == (char*)p0 + 512 && (char*)p2 == (char*)p1 + 512);  /* carved from one segment */
    CHECK_EQ_INT(stats(f.a).reserved_bytes, 2 * MiB);                      /* a 2 MiB small segment */
    void* big_small = must_alloc(f.a, MiB, f.s0);                          /* 1 MiB is still small */
    CHECK_EQ_INT(stats(f.a).segments, 1);
    void* l1 = must_alloc(f.a, MiB + 1, f.s0);                             /* large: a 20 MiB segment */
    CHECK_EQ_INT(block_size(f.a, l1), MiB + 512);
    CHECK_EQ_INT(stats(f.a).reserved_bytes, 22 * MiB);
    void* l2 = must_alloc(f.a, 10 * MiB - 512, f.s0);                      /* fits the rest of it */
    CHECK_EQ_INT(stats(f.a).segments, 2);
    void* huge = must_alloc(f.a, 11 * MiB + 7, f.s0);                      /* its own segment, 2 MiB multiple */
    CHECK_EQ_INT(stats(f.a).reserved_bytes, 22 * MiB + 12 * MiB);
    CHECK_EQ_INT(block_size(f.a, huge), 12 * MiB);                         /* the rest (< 1 MiB) is not split off */
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).raw_alloc, 3);
    CHECK_INVARIANTS(f.a);
    void* ptrs[] = {p0, p1, p2, big_small, l1, l2, huge};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) CHECK(nb_ca_free(f.a, ptrs[i]));
    CHECK_INVARIANTS(f.a);
    CHECK_EQ_INT(stats(f.a).allocated_bytes, 0);
    CHECK_EQ_INT(stats(f.a).inactive_split_bytes, 0);  /* everything coalesced back into whole segments */
    teardown(&f);
}

TEST(test_large_pool_splits_only_when_the_rest_exceeds_1_MiB) {
    fixture f = setup(GiB);
    void* a = must_alloc(f.a, 19 * MiB + 512, f.s0);   /* rest 512 KiB: kept in the block */
    CHECK_EQ_INT(block_size(f.a, a), 20 * MiB);
    void* b = must_alloc(f.a, 5 * MiB, f.s0);          /* new segment; rest 15 MiB split off */
    CHECK_EQ_INT(block_size(f.a, b), 5 * MiB);
    void* c = must_alloc(f.a, 15 * MiB, f.s0);         /* served by the split-off rest */
    CHECK((char*)c == (char*)b + 5 * MiB);
    CHECK_EQ_INT(stats(f.a).segments, 2);
    CHECK(nb_ca_free(f.a, a) && nb_ca_free(f.a, b) && nb_ca_free(f.a, c));
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

TEST(test_best_fit_takes_the_smallest_block_that_fits) {
    fixture f = setup(GiB);
    int64_t sizes[] = {4096, 512, 8192, 512, 6144, 512, 6144, 512};
    void* p[8];
    for (int i = 0; i < 8; i++) p[i] = must_alloc(f.a, sizes[i], f.s0);
    for (int i = 0; i < 8; i += 2) CHECK(nb_ca_free(f.a, p[i]));  /* holes of 4K, 8K, 6K, 6K */
    CHECK_INVARIANTS(f.a);
    CHECK(must_alloc(f.a, 6000, f.s0) == p[4]);  /* 6K beats 8K; the lower of two 6K holes */
    CHECK(must_alloc(f.a, 4000, f.s0) == p[0]);  /* exactly 4K */
    CHECK(must_alloc(f.a, 7000, f.s0) == p[2]);  /* the 8K hole, split: 7168 + 1024 */
    CHECK_EQ_INT(block_size(f.a, p[2]), 7168);
    CHECK(must_alloc(f.a, 1024, f.s0) == (char*)p[2] + 7168);
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

TEST(test_freed_neighbours_coalesce_in_any_order) {
    static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int o = 0; o < 6; o++) {
        fixture f = setup(GiB);
        void* p[3];
        for (int i = 0; i < 3; i++) p[i] = must_alloc(f.a, 100000, f.s0);
        for (int i = 0; i < 3; i++) {
            CHECK(nb_ca_free(f.a, p[orders[o][i]]));
            CHECK_INVARIANTS(f.a);  /* includes: no two adjacent free blocks */
        }
        CHECK_EQ_INT(nb_ca_largest_free(f.a), 2 * MiB);  /* one block spans the segment again */
        teardown(&f);
    }
}

TEST(test_bad_arguments) {
    fixture f = setup(GiB);
    void* out = (void*)&f;
    char msg[256];
    CHECK_EQ_INT(nb_ca_malloc(f.a, -1, f.s0, &out, msg, sizeof msg), NB_ERR_INVALID_ARGUMENT);
    CHECK(out == (void*)&f && strstr(msg, "negative") != NULL);
    CHECK(!nb_ca_free(f.a, (void*)0x1234));
    CHECK(!nb_ca_free(f.a, NULL));
    CHECK(!nb_ca_record_stream(f.a, (void*)0x1234, f.s1));
    void* p = must_alloc(f.a, 1000, f.s0);
    CHECK(nb_ca_free(f.a, p));
    CHECK(!nb_ca_free(f.a, p));  /* a double free is refused, not corrupting */
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

/* ---- trace replays ---- */

typedef struct {
    char* ptr;
    int64_t n;
} live_t;

/* Live blocks as the caller sees them never overlap. */
static void check_no_overlap(const live_t* live, int n) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const live_t *x = &live[i], *y = &live[j];
            if (x->ptr < y->ptr + (y->n ? y->n : 1) && y->ptr < x->ptr + (x->n ? x->n : 1))
                nbt_fail(__FILE__, __LINE__, "live blocks %p+%lld and %p+%lld overlap", (void*)x->ptr,
                         (long long)x->n, (void*)y->ptr, (long long)y->n);
        }
}

/* One training-like iteration: activations allocated forward, temporaries, then
 * freed in reverse (backward), gradients kept until the end (optimizer step). */
static void training_iteration(fixture* f, int step_checks) {
    static const int64_t act[] = {3 * MiB, 786432, 12 * MiB + 4096, 4096, 65536, 7 * MiB, 300, 25 * MiB};
    enum { N = sizeof act / sizeof act[0] };
    live_t live[2 * N + 1];
    int n = 0;
    for (int i = 0; i < N; i++) {
        live[n++] = (live_t){must_alloc(f->a, act[i], f->s0), act[i]};
        void* tmp = must_alloc(f->a, act[i] / 3 + 1, f->s0);  /* a temporary inside the layer */
        CHECK(nb_ca_free(f->a, tmp));
        if (step_checks) {
            CHECK_INVARIANTS(f->a);
            check_no_overlap(live, n);
        }
    }
    for (int i = N - 1; i >= 0; i--) {
        live[n++] = (live_t){must_alloc(f->a, act[i] / 2 + 512, f->s0), act[i] / 2 + 512}; /* gradient */
        CHECK(nb_ca_free(f->a, live[i].ptr));
        live[i].n = 0, live[i].ptr = (char*)(uintptr_t)(1 + i);  /* gone */
        if (step_checks) CHECK_INVARIANTS(f->a);
    }
    for (int i = N; i < n; i++) CHECK(nb_ca_free(f->a, live[i].ptr));
    if (step_checks) CHECK_INVARIANTS(f->a);
}

TEST(test_training_loop_makes_no_raw_allocations_after_the_first_iteration) {
    fixture f = setup(GiB);
    training_iteration(&f, 1);
    const nb_sim_counts first = nb_sim_get_counts(f.sim);
    const nb_ca_stats s1 = stats(f.a);
    CHECK(first.raw_alloc > 0);
    const long iters = nbt_iters(200, 20);
    for (long it = 0; it < iters; it++) training_iteration(&f, it < 5);
    const nb_sim_counts after = nb_sim_get_counts(f.sim);
    CHECK_EQ_INT(after.raw_alloc, first.raw_alloc);  /* the paper's Fig. 2: the cache serves everything */
    CHECK_EQ_INT(after.raw_free, 0);
    const nb_ca_stats s2 = stats(f.a);
    CHECK_EQ_INT(s2.reserved_bytes, s1.reserved_bytes);
    CHECK_EQ_INT(s2.allocated_bytes, 0);
    CHECK_EQ_INT(s2.alloc_count, s1.alloc_count * (iters + 1));
    CHECK_EQ_INT(s2.free_count, s2.alloc_count);
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

static uint64_t rng_next(uint64_t* s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Log-uniform sizes from 1 byte to ~32 MiB, with a few exact repeats. */
static int64_t random_size(uint64_t* rng) {
    int bits = (int)(rng_next(rng) % 26);
    int64_t base = (int64_t)1 << bits;
    return base + (int64_t)(rng_next(rng) % (uint64_t)base);
}

TEST(test_random_trace_on_several_streams_keeps_every_invariant) {
    fixture f = setup(4 * GiB);
    enum { MAX_LIVE = 96, NSTREAMS = 3 };
    live_t live[MAX_LIVE];
    void* live_stream[MAX_LIVE];
    int n = 0;
    uint64_t rng = 0x9e3779b97f4a7c15ULL;
    const long steps = nbt_iters(6000, 600);
    for (long step = 0; step < steps; step++) {
        uint64_t r = rng_next(&rng) % 100;
        if (n < MAX_LIVE && (r < 55 || n == 0)) {
            void* s = nb_sim_stream(f.sim, (int)(rng_next(&rng) % NSTREAMS));
            int64_t size = random_size(&rng);
            live[n] = (live_t){must_alloc(f.a, size, s), size};
            live_stream[n++] = s;
        } else if (r < 60) {  /* used on another stream, whose work completes later */
            int i = (int)(rng_next(&rng) % (uint64_t)n);
            void* other = nb_sim_stream(f.sim, (int)(rng_next(&rng) % NSTREAMS));
            CHECK(nb_ca_record_stream(f.a, live[i].ptr, other));
            nb_sim_launch(f.sim, other);
        } else if (r < 63) {
            nb_sim_complete(f.sim, nb_sim_stream(f.sim, (int)(rng_next(&rng) % NSTREAMS)));
        } else if (r < 64) {
            nb_ca_empty_cache(f.a);
        } else {
            int i = (int)(rng_next(&rng) % (uint64_t)n);
            CHECK(nb_ca_free(f.a, live[i].ptr));
            live[i] = live[--n];
            live_stream[i] = live_stream[n];
        }
        CHECK_INVARIANTS(f.a);
        check_no_overlap(live, n);
        if (atomic_load(&nbt_failed_checks) > 0) break;
    }
    while (n > 0) CHECK(nb_ca_free(f.a, live[--n].ptr));
    for (int s = 0; s < NSTREAMS; s++) nb_sim_complete(f.sim, nb_sim_stream(f.sim, s));
    nb_ca_empty_cache(f.a);
    CHECK_INVARIANTS(f.a);
    nb_ca_stats st = stats(f.a);
    CHECK_EQ_INT(st.allocated_bytes, 0);
    CHECK_EQ_INT(st.active_bytes, 0);
    CHECK_EQ_INT(st.reserved_bytes, 0);
    CHECK_EQ_INT(st.raw_alloc_count, st.raw_free_count);
    (void)live_stream;
    teardown(&f);
}

/* ---- streams ---- */

TEST(test_each_stream_has_its_own_pool) {
    fixture f = setup(GiB);
    void* p = must_alloc(f.a, 4096, f.s0);
    CHECK(nb_ca_free(f.a, p));
    void* q = must_alloc(f.a, 4096, f.s1);  /* s0's cached block is not handed to s1 */
    CHECK(q != p);
    CHECK_EQ_INT(stats(f.a).segments, 2);
    CHECK(must_alloc(f.a, 4096, f.s0) == p);  /* reused at once on its own stream: no event */
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).event_record, 0);
    void* owner = NULL;
    int64_t size = 0;
    CHECK(nb_ca_block_info(f.a, q, &size, &owner) && owner == f.s1 && size == 4096);
    teardown(&f);
}

TEST(test_cross_stream_use_delays_reuse_until_the_event_completes) {
    fixture f = setup(GiB);
    void* p = must_alloc(f.a, 65536, f.s0);
    CHECK(nb_ca_record_stream(f.a, p, f.s1));
    CHECK(nb_ca_record_stream(f.a, p, f.s1));  /* recorded once */
    CHECK(nb_ca_record_stream(f.a, p, f.s0));  /* its own stream: nothing to record */
    nb_sim_launch(f.sim, f.s1);                 /* s1 still reads p */
    CHECK(nb_ca_free(f.a, p));
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).event_record, 1);
    CHECK_EQ_INT(stats(f.a).pending_events, 1);
    CHECK_EQ_INT(stats(f.a).allocated_bytes, 0);
    CHECK_EQ_INT(stats(f.a).active_bytes, 65536);  /* still active until s1 is done */
    CHECK_INVARIANTS(f.a);
    void* q = must_alloc(f.a, 65536, f.s0);
    CHECK(q != p);                               /* not reused while s1 may still run */
    CHECK(nb_ca_free(f.a, q));
    nb_sim_launch(f.sim, f.s1);                  /* later work on s1 does not hold p back */
    nb_sim_complete(f.sim, f.s1);
    void* r = must_alloc(f.a, 65536, f.s0);
    CHECK(r == p);                               /* reused once the event completed */
    CHECK_EQ_INT(stats(f.a).pending_events, 0);
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).event_sync, 0);  /* nobody waited: no device-wide sync */
    CHECK(nb_ca_free(f.a, r));
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

TEST(test_events_are_pooled_and_several_streams_must_all_finish) {
    fixture f = setup(GiB);
    void* s2 = nb_sim_stream(f.sim, 2);
    for (int round = 0; round < 3; round++) {
        void* p = must_alloc(f.a, 4096, f.s0);
        CHECK(nb_ca_record_stream(f.a, p, f.s1) && nb_ca_record_stream(f.a, p, s2));
        nb_sim_launch(f.sim, f.s1);
        nb_sim_launch(f.sim, s2);
        CHECK(nb_ca_free(f.a, p));
        nb_sim_complete(f.sim, f.s1);
        void* q = must_alloc(f.a, 4096, f.s0);
        CHECK(q != p);  /* s2 has not finished */
        CHECK(nb_ca_free(f.a, q));
        nb_sim_complete(f.sim, s2);
        void* r = must_alloc(f.a, 4096, f.s0);
        CHECK(r == p);
        CHECK(nb_ca_free(f.a, r));
        CHECK_INVARIANTS(f.a);
    }
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).event_create, 2);  /* reused across rounds */
    teardown(&f);
}

TEST(test_record_at_use_mode_waits_for_each_use) {
    nb_sim_device* sim = nb_sim_create(GiB);
    nb_ca_device dev = nb_sim_interface(sim);
    dev.record_at_use = 1;  /* pinned host memory: an event per copy, recorded at once */
    nb_ca* a = nb_ca_create(&dev, "pinned");
    void* host = nb_sim_stream(sim, 15);  /* the allocation "stream" no device stream equals */
    void *s1 = nb_sim_stream(sim, 1), *s2 = nb_sim_stream(sim, 2);
    void* p = must_alloc(a, 8192, host);
    nb_sim_launch(sim, s1);
    CHECK(nb_ca_record_stream(a, p, s1));   /* copy 1 queued on s1 */
    CHECK_EQ_INT(nb_sim_get_counts(sim).event_record, 1);
    nb_sim_complete(sim, s1);
    nb_sim_launch(sim, s1);                  /* later work on s1 is not waited for */
    nb_sim_launch(sim, s2);
    CHECK(nb_ca_record_stream(a, p, s2));   /* copy 2 on s2, still running */
    CHECK(nb_ca_free(a, p));
    CHECK_EQ_INT(nb_sim_get_counts(sim).event_record, 2);  /* nothing more recorded at free */
    void* q = must_alloc(a, 8192, host);
    CHECK(q != p);
    nb_sim_complete(sim, s2);
    CHECK(nb_ca_free(a, q));
    CHECK(must_alloc(a, 8192, host) == p);
    CHECK_INVARIANTS(a);
    void* r = must_alloc(a, 100, host);
    CHECK(nb_ca_record_stream(a, r, s1));  /* destroyed while live: its event is released */
    nb_ca_destroy(a);
    nb_sim_counts c = nb_sim_get_counts(sim);
    CHECK_EQ_INT(c.event_create, c.event_destroy);
    CHECK_EQ_INT(c.in_use_bytes, 0);
    nb_sim_destroy(sim);
}

/* ---- out of memory ---- */

TEST(test_oom_releases_cached_segments_and_retries) {
    fixture f = setup(64 * MiB);
    void* a = must_alloc(f.a, 15 * MiB, f.s0);
    void* b = must_alloc(f.a, 15 * MiB, f.s0);
    void* a2 = must_alloc(f.a, 15 * MiB, f.s0);  /* three 16 MiB segments of their own */
    CHECK(nb_ca_free(f.a, a) && nb_ca_free(f.a, b) && nb_ca_free(f.a, a2));
    CHECK_EQ_INT(stats(f.a).reserved_bytes, 48 * MiB);
    void* c = must_alloc(f.a, 30 * MiB, f.s0);    /* needs 30 MiB more: only after the cache is emptied */
    CHECK(c != NULL);
    nb_ca_stats st = stats(f.a);
    CHECK_EQ_INT(st.alloc_retries, 1);
    CHECK_EQ_INT(st.oom_count, 0);
    CHECK_EQ_INT(st.reserved_bytes, 30 * MiB);
    CHECK_EQ_INT(nb_sim_get_counts(f.sim).raw_free, 3);
    CHECK_INVARIANTS(f.a);
    nb_sim_fail_next(f.sim, 1);                   /* a transient failure: the retry succeeds */
    void* d = must_alloc(f.a, 20 * MiB, f.s0);
    CHECK_EQ_INT(stats(f.a).alloc_retries, 2);
    CHECK(nb_ca_free(f.a, c) && nb_ca_free(f.a, d));
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

TEST(test_oom_waits_for_pending_frees_before_giving_up) {
    fixture f = setup(24 * MiB);
    void* a = must_alloc(f.a, 15 * MiB, f.s0);
    CHECK(nb_ca_record_stream(f.a, a, f.s1));
    nb_sim_launch(f.sim, f.s1);
    CHECK(nb_ca_free(f.a, a));                    /* pending on s1 */
    void* b = must_alloc(f.a, 16 * MiB, f.s1);   /* only fits once a's segment is released */
    CHECK(b != NULL);
    CHECK(nb_sim_get_counts(f.sim).event_sync >= 1);  /* the out-of-memory path may wait; no other path does */
    CHECK(nb_ca_free(f.a, b));
    CHECK_INVARIANTS(f.a);
    teardown(&f);
}

TEST(test_oom_message_breaks_down_fragmentation) {
    fixture f = setup(8 * MiB);
    enum { N = 16 };
    void* p[N];
    for (int i = 0; i < N; i++) p[i] = must_alloc(f.a, 512 * 1024, f.s0);  /* four full 2 MiB segments */
    for (int i = 0; i < N; i += 2) CHECK(nb_ca_free(f.a, p[i]));          /* eight 512 KiB holes */
    CHECK_INVARIANTS(f.a);
    void* out = (void*)&f;
    char msg[1024];
    nb_status st = nb_ca_malloc(f.a, 3 * MiB, f.s0, &out, msg, sizeof msg);
    CHECK_EQ_INT(st, NB_ERR_OUT_OF_MEMORY);
    CHECK(out == (void*)&f);
    printf("    message: %s\n", msg);
    CHECK(strstr(msg, "sim:0 out of memory: tried to allocate 3.00 MiB") != NULL);
    CHECK(strstr(msg, "4.00 MiB allocated, 8.00 MiB reserved") != NULL);
    CHECK(strstr(msg, "4.00 MiB is free but fragmented over 8 blocks (largest free block 512.00 KiB)") != NULL);
    CHECK(strstr(msg, "new 20.00 MiB segment") != NULL);
    CHECK(strstr(msg, "simulated device: ") != NULL);  /* the device's own reason */
    nb_ca_stats s = stats(f.a);
    CHECK_EQ_INT(s.oom_count, 1);
    CHECK_EQ_INT(s.alloc_retries, 1);
    CHECK_EQ_INT(s.inactive_split_bytes, 4 * MiB);
    CHECK_INVARIANTS(f.a);                                  /* a failed call leaves nothing behind */
    for (int i = 1; i < N; i += 2) CHECK(nb_ca_free(f.a, p[i]));
    CHECK(must_alloc(f.a, MiB, f.s0) != NULL);              /* usable again */
    teardown(&f);
}

/* ---- cache control, statistics, snapshot ---- */

TEST(test_empty_cache_keeps_segments_in_use) {
    fixture f = setup(GiB);
    void* a = must_alloc(f.a, 4096, f.s0);
    void* b = must_alloc(f.a, 4096, f.s0);
    void* c = must_alloc(f.a, 5 * MiB, f.s0);
    CHECK(nb_ca_free(f.a, b) && nb_ca_free(f.a, c));
    nb_ca_empty_cache(f.a);
    nb_ca_stats st = stats(f.a);
    CHECK_EQ_INT(st.reserved_bytes, 2 * MiB);  /* the 20 MiB segment went; a's segment stays */
    CHECK_EQ_INT(st.raw_free_count, 1);
    CHECK_INVARIANTS(f.a);
    CHECK(nb_ca_free(f.a, a));
    nb_ca_empty_cache(f.a);
    CHECK_EQ_INT(stats(f.a).reserved_bytes, 0);
    teardown(&f);
}

TEST(test_statistics_and_peaks) {
    fixture f = setup(GiB);
    void* a = must_alloc(f.a, 1000, f.s0);
    void* b = must_alloc(f.a, 3 * MiB, f.s0);
    nb_ca_stats st = stats(f.a);
    CHECK_EQ_INT(st.allocated_bytes, 1024 + 3 * MiB);
    CHECK_EQ_INT(st.requested_bytes, 1000 + 3 * MiB);
    CHECK_EQ_INT(st.reserved_bytes, 22 * MiB);
    CHECK_EQ_INT(st.allocated_blocks, 2);
    CHECK(nb_ca_free(f.a, b));
    st = stats(f.a);
    CHECK_EQ_INT(st.allocated_bytes, 1024);
    CHECK_EQ_INT(st.peak_allocated_bytes, 1024 + 3 * MiB);
    CHECK_EQ_INT(st.peak_requested_bytes, 1000 + 3 * MiB);
    nb_ca_reset_peak(f.a);
    st = stats(f.a);
    CHECK_EQ_INT(st.peak_allocated_bytes, 1024);
    CHECK_EQ_INT(st.peak_reserved_bytes, 22 * MiB);
    CHECK_EQ_INT(st.alloc_count, 2);
    CHECK_EQ_INT(st.free_count, 1);
    CHECK_EQ_INT(st.raw_alloc_count, 2);
    CHECK(nb_ca_free(f.a, a));
    teardown(&f);
}

TEST(test_snapshot_lists_segments_and_blocks) {
    fixture f = setup(GiB);
    void* a = must_alloc(f.a, 1000, f.s0);
    void* b = must_alloc(f.a, 2048, f.s0);
    void* c = must_alloc(f.a, 3 * MiB, f.s1);
    CHECK(nb_ca_record_stream(f.a, b, f.s1));
    nb_sim_launch(f.sim, f.s1);
    CHECK(nb_ca_free(f.a, b));
    int64_t need = nb_ca_snapshot_json(f.a, NULL, 0);
    CHECK(need > 100);
    char* buf = malloc((size_t)need + 1);
    CHECK_EQ_INT(nb_ca_snapshot_json(f.a, buf, need + 1), need);
    CHECK_EQ_INT((int64_t)strlen(buf), need);
    CHECK(strstr(buf, "\"device\": \"sim:0\"") != NULL);
    CHECK(strstr(buf, "\"segment_type\": \"small\"") != NULL && strstr(buf, "\"segment_type\": \"large\"") != NULL);
    CHECK(strstr(buf, "\"size\": 1024, \"requested_size\": 1000, \"state\": \"active_allocated\"") != NULL);
    CHECK(strstr(buf, "\"size\": 2048, \"requested_size\": 0, \"state\": \"active_pending_free\"") != NULL);
    CHECK(strstr(buf, "\"state\": \"inactive\"") != NULL);
    CHECK(strstr(buf, "\"stream\": 2,") != NULL);  /* s1's handle */
    char small[16];
    CHECK_EQ_INT(nb_ca_snapshot_json(f.a, small, sizeof small), need);  /* truncated, still terminated */
    CHECK_EQ_INT((int64_t)strlen(small), (int64_t)sizeof small - 1);
    free(buf);
    nb_sim_complete(f.sim, f.s1);
    CHECK(nb_ca_free(f.a, a) && nb_ca_free(f.a, c));
    teardown(&f);
}

/* ---- concurrency ---- */

typedef struct {
    fixture* f;
    int id;
} worker_arg;

static void* worker(void* p) {
    worker_arg* w = p;
    fixture* f = w->f;
    void* own = nb_sim_stream(f->sim, 2 + w->id);
    live_t live[32];
    int n = 0;
    uint64_t rng = 0x1234567ULL * (uint64_t)(w->id + 1);
    const long steps = nbt_iters(20000, 2000);
    for (long i = 0; i < steps; i++) {
        uint64_t r = rng_next(&rng) % 10;
        if (n < 32 && r < 5) {
            int64_t size = (int64_t)(rng_next(&rng) % (3 * (uint64_t)MiB));
            live[n++] = (live_t){must_alloc(f->a, size, own), size};
        } else if (n > 0 && r < 6) {
            CHECK(nb_ca_record_stream(f->a, live[rng_next(&rng) % (uint64_t)n].ptr, f->s1));
        } else if (n > 0) {
            int k = (int)(rng_next(&rng) % (uint64_t)n);
            CHECK(nb_ca_free(f->a, live[k].ptr));
            live[k] = live[--n];
        }
    }
    while (n > 0) CHECK(nb_ca_free(f->a, live[--n].ptr));
    return NULL;
}

TEST(test_concurrent_threads_on_their_own_streams) {
    fixture f = setup(16 * GiB);
    enum { T = 4 };
    pthread_t th[T];
    worker_arg args[T];
    for (int i = 0; i < T; i++) {
        args[i] = (worker_arg){&f, i};
        CHECK(pthread_create(&th[i], NULL, worker, &args[i]) == 0);
    }
    for (int k = 0; k < 200; k++) {  /* s1's work finishes now and then, concurrently */
        nb_sim_launch(f.sim, f.s1);
        nb_sim_complete(f.sim, f.s1);
        CHECK_INVARIANTS(f.a);
    }
    for (int i = 0; i < T; i++) pthread_join(th[i], NULL);
    nb_sim_complete(f.sim, f.s1);
    nb_ca_empty_cache(f.a);
    CHECK_INVARIANTS(f.a);
    nb_ca_stats st = stats(f.a);
    CHECK_EQ_INT(st.allocated_bytes, 0);
    CHECK_EQ_INT(st.reserved_bytes, 0);
    CHECK_EQ_INT(st.alloc_count, st.free_count);
    teardown(&f);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_sizes_round_to_512_and_pick_segments);
    RUN(test_large_pool_splits_only_when_the_rest_exceeds_1_MiB);
    RUN(test_best_fit_takes_the_smallest_block_that_fits);
    RUN(test_freed_neighbours_coalesce_in_any_order);
    RUN(test_bad_arguments);
    RUN(test_training_loop_makes_no_raw_allocations_after_the_first_iteration);
    RUN(test_random_trace_on_several_streams_keeps_every_invariant);
    RUN(test_each_stream_has_its_own_pool);
    RUN(test_cross_stream_use_delays_reuse_until_the_event_completes);
    RUN(test_events_are_pooled_and_several_streams_must_all_finish);
    RUN(test_record_at_use_mode_waits_for_each_use);
    RUN(test_oom_releases_cached_segments_and_retries);
    RUN(test_oom_waits_for_pending_frees_before_giving_up);
    RUN(test_oom_message_breaks_down_fragmentation);
    RUN(test_empty_cache_keeps_segments_in_use);
    RUN(test_statistics_and_peaks);
    RUN(test_snapshot_lists_segments_and_blocks);
    RUN(test_concurrent_threads_on_their_own_streams);
    return NBT_END();
}
