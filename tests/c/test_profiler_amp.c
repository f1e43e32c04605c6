/* test_profiler_amp.c: the profiler, autocast and the loss-scaling ops from C, through the
 * public header alone: what a binding other than Python gets. Op events with shapes,
 * user ranges, allocator events, the start/stop errors, a stack source; autocast casting a matmul to
 * bfloat16 and a loss to float32 on this thread only; unscale finding an inf; no leaks. */
#include "nbtest.h"

#include <pthread.h>

static char* events(void) {
    int64_t needed = 0;
    CHECK_OK(nb_profiler_events(NULL, 0, &needed));
    char* buf = malloc((size_t)needed + 1);
    CHECK_OK(nb_profiler_events(buf, needed + 1, &needed));
    return buf;
}

static int count(const char* text, const char* what) {
    int n = 0;
    for (const char* p = text; (p = strstr(p, what)) != NULL; p++) n++;
    return n;
}

TEST(test_profiler_records_ops_ranges_and_memory) {
    nb_memory_stats before = nbt_stats();
    const int64_t s8[1] = {8};
    nb_tensor *a = nbt_iota(s8, 1, NB_F32), *b = NULL, *c = NULL;
    CHECK_OK(nb_profiler_start(NB_PROFILE_SHAPES | NB_PROFILE_MEMORY));
    CHECK_EQ_INT(nb_profiler_enabled(), NB_PROFILE_SHAPES | NB_PROFILE_MEMORY);
    CHECK_STATUS(nb_profiler_start(0), NB_ERR_INVALID_ARGUMENT, "already running");
    CHECK_OK(nb_profiler_range_push("step \"one\""));
    CHECK_OK(nb_add(a, a, 1.0, NULL, &b));
    CHECK_OK(nb_mul(a, b, NULL, &c));
    CHECK_OK(nb_profiler_range_pop());
    CHECK_STATUS(nb_mul(a, NULL, NULL, &c), NB_ERR_INVALID_ARGUMENT, "mul"); /* a failed call is recorded too */
    CHECK_OK(nb_profiler_stop());
    CHECK_EQ_INT(nb_profiler_enabled(), 0);
    CHECK_STATUS(nb_profiler_stop(), NB_ERR_INVALID_ARGUMENT, "not running");
    CHECK_STATUS(nb_profiler_range_pop(), NB_ERR_INVALID_ARGUMENT, "no range is open");
    char* json = events();
    CHECK_EQ_INT(count(json, "\"kind\":\"op\",\"name\":\"add\""), 1);
    CHECK_EQ_INT(count(json, "\"kind\":\"op\",\"name\":\"mul\""), 2);
    CHECK_EQ_INT(count(json, "\"shapes\":[[8],[8]],\"dtypes\":[\"float32\",\"float32\"]"), 2);
    CHECK_EQ_INT(count(json, "\"shapes\":[[8],[]],\"dtypes\":[\"float32\",\"\"]"), 1); /* the NULL argument */
    CHECK_EQ_INT(count(json, "\"kind\":\"range\",\"name\":\"step \\\"one\\\"\""), 1);
    CHECK_EQ_INT(count(json, "\"kind\":\"memory\""), 2); /* b and c: 32 bytes each */
    CHECK_EQ_INT(count(json, "\"bytes\":32"), 2);
    free(json);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(c);
    nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.live_storages, before.live_storages);
}

/* A stack source: two frames, or with a long first frame (past the core's first buffer) when
 * payload says so; it also calls an op itself, which the core records without a stack. */
static int src_calls, src_destroyed;
static int64_t stack_src(void* payload, char* buf, int64_t cap) {
    src_calls++;
    char text[5000];
    if (*(int*)payload) {
        memset(text, 'x', 3000);
        snprintf(text + 3000, sizeof text - 3000, "\nouter.c(2): main");
    } else {
        snprintf(text, sizeof text, "inner.c(7): helper\nouter.c(2): \"main\"");
        const int64_t s1[1] = {1};
        nb_tensor *t = nbt_iota(s1, 1, NB_F32), *u = NULL;
        CHECK_OK(nb_neg(t, NULL, &u));
        nb_tensor_release(t);
        nb_tensor_release(u);
    }
    return snprintf(buf, (size_t)cap, "%s", text);
}
static void src_destroy(void* payload) {
    (void)payload;
    src_destroyed++;
}

TEST(test_profiler_stack_source) {
    static int short_stack = 0, long_stack = 1;
    const int64_t s4[1] = {4};
    nb_tensor *a = nbt_iota(s4, 1, NB_F32), *b = NULL, *c = NULL;
    CHECK_OK(nb_profiler_set_stack_source(stack_src, &short_stack, src_destroy));
    CHECK_OK(nb_profiler_start(0)); /* without NB_PROFILE_STACK the source is not called */
    CHECK_OK(nb_add(a, a, 1.0, NULL, &b));
    CHECK_OK(nb_profiler_stop());
    CHECK_EQ_INT(src_calls, 0);
    char* json = events();
    CHECK_EQ_INT(count(json, "\"stack\""), 0);
    free(json);
    CHECK_OK(nb_profiler_start(NB_PROFILE_STACK));
    CHECK_EQ_INT(nb_profiler_enabled(), NB_PROFILE_STACK);
    CHECK_OK(nb_mul(a, b, NULL, &c));
    CHECK_OK(nb_profiler_stop());
    CHECK_EQ_INT(src_calls, 1);
    json = events();
    CHECK_EQ_INT(count(json, "\"name\":\"mul\""), 1);
    CHECK_EQ_INT(count(json, "\"stack\":[\"inner.c(7): helper\",\"outer.c(2): \\\"main\\\"\"]"), 1);
    CHECK_EQ_INT(count(json, "\"name\":\"neg\""), 1); /* the source's own op: no stack */
    CHECK_EQ_INT(count(json, "\"stack\""), 1);
    free(json);
    CHECK_OK(nb_profiler_set_stack_source(stack_src, &long_stack, src_destroy)); /* replacing destroys */
    CHECK_EQ_INT(src_destroyed, 1);
    nb_tensor_release(c);
    c = NULL;
    CHECK_OK(nb_profiler_start(NB_PROFILE_STACK));
    CHECK_OK(nb_mul(a, b, NULL, &c));
    CHECK_OK(nb_profiler_stop());
    CHECK_EQ_INT(src_calls, 3); /* too long for the first buffer: asked again with room */
    json = events();
    CHECK_EQ_INT(count(json, "xxx\",\"outer.c(2): main\"]"), 1);
    free(json);
    CHECK_OK(nb_profiler_set_stack_source(NULL, NULL, NULL)); /* clears */
    CHECK_EQ_INT(src_destroyed, 2);
    nb_tensor_release(c);
    c = NULL;
    CHECK_OK(nb_profiler_start(NB_PROFILE_STACK));
    CHECK_OK(nb_mul(a, b, NULL, &c));
    CHECK_OK(nb_profiler_stop());
    CHECK_EQ_INT(src_calls, 3);
    json = events();
    CHECK_EQ_INT(count(json, "\"stack\""), 0);
    free(json);
    nb_tensor_release(a);
    nb_tensor_release(b);
    nb_tensor_release(c);
}

static void* other_thread(void* arg) {
    nb_tensor* x = arg;
    nb_tensor* y = NULL;
    CHECK_EQ_INT(nb_autocast_is_enabled(NB_CPU), 0);
    CHECK_OK(nb_matmul(x, x, NULL, &y));
    CHECK_EQ_INT(nb_tensor_dtype(y), NB_F32);
    nb_tensor_release(y);
    return NULL;
}

TEST(test_autocast_per_thread) {
    const int64_t s22[2] = {2, 2};
    nb_tensor *x = nbt_iota(s22, 2, NB_F32), *y = NULL, *l = NULL, *z = NULL;
    CHECK_EQ_INT(nb_autocast_get_dtype(NB_CPU), NB_BF16);
    CHECK_OK(nb_autocast_set_enabled(NB_CPU, 1));
    CHECK_OK(nb_matmul(x, x, NULL, &y));
    CHECK_EQ_INT(nb_tensor_dtype(y), NB_BF16);
    CHECK_OK(nb_mse_loss(y, y, NULL, NB_REDUCTION_MEAN, NULL, &l));
    CHECK_EQ_INT(nb_tensor_dtype(l), NB_F32);
    pthread_t th;
    pthread_create(&th, NULL, other_thread, x);
    pthread_join(th, NULL);
    CHECK_OK(nb_autocast_set_dtype(NB_CPU, NB_F16));
    CHECK_OK(nb_matmul(x, x, NULL, &z));
    CHECK_EQ_INT(nb_tensor_dtype(z), NB_F16);
    CHECK_STATUS(nb_autocast_set_dtype(NB_CPU, NB_F32), NB_ERR_DTYPE, "bfloat16 and float16");
    CHECK_STATUS(nb_autocast_set_enabled(7, 1), NB_ERR_DEVICE, "cpu and cuda");
    CHECK_OK(nb_autocast_set_dtype(NB_CPU, NB_BF16));
    CHECK_OK(nb_autocast_set_enabled(NB_CPU, 0));
    nb_autocast_clear_cache();
    nb_tensor_release(x);
    nb_tensor_release(y);
    nb_tensor_release(l);
    nb_tensor_release(z);
}

TEST(test_unscale_finds_inf_and_scale_backs_off) {
    const double g[3] = {4, 1.0 / 0.0, 8}, one[1] = {0.25}, zero[1] = {0}, big[1] = {1024};
    const int64_t s3[1] = {3}, s1[1] = {1};
    nb_tensor *grad = nbt_tensor(g, s3, 1, NB_F32), *inv = nbt_tensor(one, s1, 1, NB_F32);
    nb_tensor *found = nbt_tensor(zero, s1, 1, NB_F32), *scale = nbt_tensor(big, s1, 1, NB_F32);
    nb_tensor* tracker = nbt_tensor(zero, s1, 1, NB_I32);
    nb_tensor* grads[1] = {grad};
    CHECK_OK(nb_amp_foreach_non_finite_check_and_unscale_(grads, 1, found, inv));
    double v = 0;
    CHECK_OK(nb_tensor_item_double(found, &v));
    CHECK_EQ_DBL(v, 1.0);
    CHECK_OK(nb_amp_update_scale_(scale, tracker, found, 2.0, 0.5, 2000));
    CHECK_OK(nb_tensor_item_double(scale, &v));
    CHECK_EQ_DBL(v, 512.0);
    CHECK_STATUS(nb_amp_update_scale_(scale, found, found, 2.0, 0.5, 10), NB_ERR_DTYPE, "growth_tracker");
    nb_tensor* all[] = {grad, inv, found, scale, tracker};
    for (int i = 0; i < 5; i++) nb_tensor_release(all[i]);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_profiler_records_ops_ranges_and_memory);
    RUN(test_profiler_stack_source);
    RUN(test_autocast_per_thread);
    RUN(test_unscale_finds_inf_and_scale_backs_off);
    return NBT_END();
}
