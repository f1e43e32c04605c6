/* bench_alloc.c: allocate+free latency of the caching allocator core (p50/p99 per
 * pair), against the simulated device, against a real CUDA device (through
 * libcudart, found at run time) and against raw cudaMalloc/cudaFree.
 *
 *   bench_alloc                  the simulated device (and CUDA when a GPU is present)
 *   bench_alloc --snapshot F     writes a snapshot of a fragmented two-stream trace to F
 *
 * Built and run by bench/bench_alloc.py. Each pair is timed alone with
 * CLOCK_MONOTONIC; the timer's own median cost is subtracted. */
#define _POSIX_C_SOURCE 200809L
#include "../src/alloc/caching_allocator.c"
#include "../src/alloc/sim_device.c"

#include <dlfcn.h>
#include <time.h>

#define PAIRS 200000

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return x < y ? -1 : x > y;
}

static int64_t* samples;
static void* volatile sink;  /* keeps the compiler from eliding malloc/free pairs */
static int64_t timer_cost;

static void report(const char* name, int n) {
    qsort(samples, (size_t)n, sizeof *samples, cmp_i64);
    int64_t p50 = samples[n / 2] - timer_cost, p99 = samples[n * 99 / 100] - timer_cost;
    printf("%-44s p50 %8lld ns   p99 %8lld ns\n", name, (long long)(p50 > 0 ? p50 : 0), (long long)(p99 > 0 ? p99 : 0));
}

static void calibrate(void) {
    for (int i = 0; i < PAIRS; i++) {
        int64_t t0 = now_ns();
        samples[i] = now_ns() - t0;
    }
    qsort(samples, PAIRS, sizeof *samples, cmp_i64);
    timer_cost = samples[PAIRS / 2];
}

/* Steady state: one size, or a cycle of sizes (a training step's mix). */
static void bench_ca(const char* name, nb_ca* a, void* stream, const int64_t* sizes, int nsizes, int pairs) {
    char msg[256];
    void* p = NULL;
    for (int i = 0; i < 1000; i++) {  /* warm: segments exist */
        if (nb_ca_malloc(a, sizes[i % nsizes], stream, &p, msg, sizeof msg) != NB_OK) {
            printf("%s: %s\n", name, msg);
            return;
        }
        nb_ca_free(a, p);
    }
    for (int i = 0; i < pairs; i++) {
        int64_t t0 = now_ns();
        nb_ca_malloc(a, sizes[i % nsizes], stream, &p, msg, sizeof msg);
        nb_ca_free(a, p);
        samples[i] = now_ns() - t0;
    }
    report(name, pairs);
}

static const int64_t mixed_sizes[] = {4096, 786432, 3 << 20, 512, 12 << 20, 65536, 1 << 20, 300};
static const int64_t one[] = {1 << 20};

/* ---- CUDA through libcudart, loaded at run time ---- */

typedef int (*cuda_malloc_fn)(void**, size_t);
typedef int (*cuda_free_fn)(void*);
typedef int (*cuda_event_create_fn)(void**, unsigned);
typedef int (*cuda_event_fn)(void*);
typedef int (*cuda_event_record_fn)(void*, void*);
static cuda_malloc_fn c_malloc;
static cuda_free_fn c_free;
static cuda_event_create_fn c_event_create;
static cuda_event_fn c_event_destroy, c_event_query, c_event_sync;
static cuda_event_record_fn c_event_record;

static nb_status cu_alloc(void* ctx, int64_t n, void** out) { (void)ctx; return c_malloc(out, (size_t)n) ? NB_ERR_OUT_OF_MEMORY : NB_OK; }
static void cu_free(void* ctx, void* p, int64_t n) { (void)ctx, (void)n; c_free(p); }
static nb_status cu_ev_create(void* ctx, void** out) { (void)ctx; return c_event_create(out, 2 /* disable timing */) ? NB_ERR_BACKEND : NB_OK; }
static void cu_ev_destroy(void* ctx, void* e) { (void)ctx; c_event_destroy(e); }
static nb_status cu_ev_record(void* ctx, void* e, void* s) { (void)ctx; return c_event_record(e, s) ? NB_ERR_BACKEND : NB_OK; }
static int cu_ev_query(void* ctx, void* e) { (void)ctx; return c_event_query(e) == 0; }
static nb_status cu_ev_sync(void* ctx, void* e) { (void)ctx; return c_event_sync(e) ? NB_ERR_BACKEND : NB_OK; }

static int load_cudart(void) {
    const char* names[] = {getenv("NB_CUDART"), "libcudart.so", "libcudart.so.13", "libcudart.so.12"};
    void* h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && h == NULL; i++)
        if (names[i] != NULL) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return 0;
    c_malloc = (cuda_malloc_fn)dlsym(h, "cudaMalloc");
    c_free = (cuda_free_fn)dlsym(h, "cudaFree");
    c_event_create = (cuda_event_create_fn)dlsym(h, "cudaEventCreateWithFlags");
    c_event_destroy = (cuda_event_fn)dlsym(h, "cudaEventDestroy");
    c_event_query = (cuda_event_fn)dlsym(h, "cudaEventQuery");
    c_event_sync = (cuda_event_fn)dlsym(h, "cudaEventSynchronize");
    c_event_record = (cuda_event_record_fn)dlsym(h, "cudaEventRecord");
    int (*count)(int*) = (int (*)(int*))dlsym(h, "cudaGetDeviceCount");
    int n = 0;
    return c_malloc && c_free && c_event_create && c_event_record && count && count(&n) == 0 && n > 0;
}

static void bench_cuda(void) {
    if (!load_cudart()) {
        printf("(no CUDA device or libcudart: the CUDA rows are skipped)\n");
        return;
    }
    nb_ca_device dev = {NULL, cu_alloc, cu_free, cu_ev_create, cu_ev_destroy, cu_ev_record, cu_ev_query, cu_ev_sync,
                        NULL, 0};
    nb_ca* a = nb_ca_create(&dev, "cuda:0");
    bench_ca("caching allocator, CUDA, 1 MiB", a, NULL, one, 1, PAIRS);
    bench_ca("caching allocator, CUDA, mixed sizes", a, NULL, mixed_sizes, 8, PAIRS);
    nb_ca_destroy(a);
    const int raw = 2000;
    for (int k = 0; k < 2; k++) {
        const int64_t size = k == 0 ? (1 << 20) : (12 << 20);
        for (int i = 0; i < raw; i++) {
            void* p = NULL;
            int64_t t0 = now_ns();
            c_malloc(&p, (size_t)size);
            c_free(p);
            samples[i] = now_ns() - t0;
        }
        report(k == 0 ? "raw cudaMalloc+cudaFree, 1 MiB" : "raw cudaMalloc+cudaFree, 12 MiB", raw);
    }
}

/* ---- a snapshot worth looking at ---- */

static int write_snapshot(const char* path) {
    nb_sim_device* sim = nb_sim_create((int64_t)1 << 34);
    nb_ca_device dev = nb_sim_interface(sim);
    nb_ca* a = nb_ca_create(&dev, "cuda:0 (simulated)");
    void *s0 = nb_sim_stream(sim, 0), *s1 = nb_sim_stream(sim, 1);
    char msg[256];
    void* keep[256];
    int nkeep = 0;
    uint64_t rng = 12345;
    for (int i = 0; i < 400; i++) {  /* a long-lived/short-lived mix leaves holes */
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        int64_t size = (int64_t)(rng % 6 == 0 ? (rng % (24u << 20)) : (rng % (600u << 10))) + 512;
        void* s = (rng >> 8) % 4 == 0 ? s1 : s0;
        void* p = NULL;
        if (nb_ca_malloc(a, size, s, &p, msg, sizeof msg) != NB_OK) continue;
        if ((rng >> 16) % 3 == 0 && nkeep < 256) keep[nkeep++] = p;
        else if ((rng >> 20) % 5 == 0) {
            nb_ca_record_stream(a, p, s == s0 ? s1 : s0);  /* used on the other stream, still running */
            nb_sim_launch(sim, s == s0 ? s1 : s0);
            nb_ca_free(a, p);
        } else {
            nb_ca_free(a, p);
        }
    }
    int64_t need = nb_ca_snapshot_json(a, NULL, 0);
    char* buf = malloc((size_t)need + 1);
    nb_ca_snapshot_json(a, buf, need + 1);
    FILE* f = fopen(path, "w");
    if (f == NULL) return 1;
    fputs(buf, f);
    fclose(f);
    free(buf);
    printf("wrote %s (%d blocks kept)\n", path, nkeep);
    for (int i = 0; i < nkeep; i++) nb_ca_free(a, keep[i]);
    nb_sim_complete(sim, s0), nb_sim_complete(sim, s1);
    nb_ca_destroy(a);
    nb_sim_destroy(sim);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && strcmp(argv[1], "--snapshot") == 0) return write_snapshot(argv[2]);
    samples = malloc(sizeof *samples * PAIRS);
    calibrate();
    printf("timer overhead %lld ns (subtracted)\n", (long long)timer_cost);
    nb_sim_device* sim = nb_sim_create((int64_t)1 << 40);
    nb_ca_device dev = nb_sim_interface(sim);
    nb_ca* a = nb_ca_create(&dev, "sim:0");
    bench_ca("caching allocator, simulated device, 1 MiB", a, nb_sim_stream(sim, 0), one, 1, PAIRS);
    bench_ca("caching allocator, simulated device, mixed", a, nb_sim_stream(sim, 0), mixed_sizes, 8, PAIRS);
    nb_sim_counts c = nb_sim_get_counts(sim);
    printf("simulated raw allocations during the runs: %lld (all in warm-up)\n", (long long)c.raw_alloc);
    nb_ca_destroy(a);
    nb_sim_destroy(sim);
    for (int i = 0; i < PAIRS; i++) {
        int64_t t0 = now_ns();
        sink = malloc(1 << 20);
        free(sink);
        samples[i] = now_ns() - t0;
    }
    report("glibc malloc+free, 1 MiB (host, reference)", PAIRS);
    bench_cuda();
    free(samples);
    return 0;
}
