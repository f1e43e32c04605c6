/* test_handles.c: released handles are recognised, never silently reused, and a
 * double release is reported through the warning channel (tensors, streams, events,
 * generators). Reading a released handle is defined here: its block stays in nabla's
 * quarantine (see nb_tensor_release), so this runs under memory checkers too. */
#include "nbtest.h"

static const int64_t S3[1] = {3};
static int warnings;
static char last_warning[512];

static nb_status count_warning(void* payload, const char* message) {
    (void)payload;
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", message);
    return NB_OK;
}

static nb_tensor* ones3(void) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_ones(S3, 1, NB_F32, NB_CPU, 0, &t));
    return t;
}

/* The case: release, create, use the old handle. It used to alias the new tensor. */
TEST(test_stale_tensor_is_not_the_next_tensor) {
    nb_tensor* a = ones3();
    nb_tensor* gone = ones3();
    nb_tensor_release(gone);
    nb_tensor* fresh[1000];
    for (int i = 0; i < 1000; i++) {
        fresh[i] = ones3();
        CHECK(fresh[i] != gone);
    }
    nb_tensor* out = NULL;
    CHECK_STATUS(nb_add(gone, a, 1.0, NULL, &out), NB_ERR_INVALID_ARGUMENT, "add: tensor 'a' is not a live nabla tensor: it was released");
    CHECK(out == NULL);
    CHECK_STATUS(nb_add(a, a, 1.0, gone, &out), NB_ERR_INVALID_ARGUMENT, "was released");
    CHECK_EQ_INT(nb_tensor_numel(gone), -1);
    for (int i = 0; i < 1000; i++) nb_tensor_release(fresh[i]);
    /* released in between: still recognised after the blocks of 1000 others were recycled */
    CHECK_STATUS(nb_mul(a, gone, NULL, &out), NB_ERR_INVALID_ARGUMENT, "tensor 'b' is not a live nabla tensor");
    nb_tensor_release(a);
}

/* A churning loop (results made and dropped) never hands out a handle released before it. */
TEST(test_stale_tensor_in_a_loop) {
    nb_tensor *a = ones3(), *gone = ones3();
    nb_tensor_release(gone);
    for (int i = 0; i < 3000; i++) {
        nb_tensor* r = NULL;
        CHECK_OK(nb_add(a, a, 1.0, NULL, &r));
        CHECK(r != gone);
        nb_tensor_release(r);
    }
    CHECK_EQ_INT(nb_tensor_ndim(gone), -1);
    CHECK_MSG("was released");
    nb_tensor_release(a);
}

TEST(test_double_release_warns) {
    nb_set_warning_handler(count_warning, NULL);
    warnings = 0;
    nb_tensor* t = ones3();
    nb_tensor_retain(t);
    nb_tensor_release(t);
    nb_tensor_release(t);  /* the last reference */
    CHECK_EQ_INT(warnings, 0);
    const nb_memory_stats before = nbt_stats();
    nb_tensor_release(t);  /* one too many */
    CHECK_EQ_INT(warnings, 1);
    CHECK(strstr(last_warning, "nb_tensor_release: tensor") != NULL);
    CHECK(strstr(last_warning, "was already released (double release") != NULL);
    const nb_memory_stats after = nbt_stats();
    CHECK_EQ_INT(after.live_tensors, before.live_tensors);
    CHECK_EQ_INT(after.free_count, before.free_count);  /* nothing freed twice */
    nb_tensor_release(NULL);  /* NULL stays silent */
    CHECK_EQ_INT(warnings, 1);
    /* an error set before survives the warning: callers release on error paths */
    nb_tensor* u = ones3();
    nb_tensor_release(u);
    nb_tensor* out = NULL;
    CHECK(nb_tensor_view(u, S3, 1, &out) != NB_OK);
    nb_tensor_release(u);
    CHECK_EQ_INT(warnings, 2);
    CHECK_EQ_INT(nb_last_error_status(), NB_ERR_INVALID_ARGUMENT);
    CHECK_MSG("view");
    nb_set_warning_handler(NULL, NULL);
}

TEST(test_stale_stream_and_event) {
    nb_set_warning_handler(count_warning, NULL);
    warnings = 0;
    nb_stream* s = NULL;
    CHECK_OK(nb_stream_create(NB_CPU, 0, 0, &s));
    nb_stream_release(s);
    nb_stream* fresh = NULL;
    CHECK_OK(nb_stream_create(NB_CPU, 0, 0, &fresh));
    CHECK(fresh != s);
    CHECK_STATUS(nb_stream_synchronize(s), NB_ERR_INVALID_ARGUMENT, "a released stream");
    nb_stream_release(s);
    CHECK_EQ_INT(warnings, 1);
    CHECK(strstr(last_warning, "nb_stream_release: stream") != NULL);
    nb_stream_release(fresh);

    nb_event* e = NULL;
    CHECK_OK(nb_event_create(NB_CPU, 0, 0, &e));
    nb_event_release(e);
    nb_event* e2 = NULL;
    CHECK_OK(nb_event_create(NB_CPU, 0, 0, &e2));
    CHECK(e2 != e);
    int32_t done = -1;
    CHECK_STATUS(nb_event_query(e, &done), NB_ERR_INVALID_ARGUMENT, "a released event");
    CHECK_EQ_INT(done, -1);
    nb_event_release(e);
    CHECK_EQ_INT(warnings, 2);
    CHECK(strstr(last_warning, "nb_event_release: event") != NULL);
    nb_event_release(e2);
    nb_set_warning_handler(NULL, NULL);
}

TEST(test_stale_generator) {
    nb_set_warning_handler(count_warning, NULL);
    warnings = 0;
    nb_generator* g = NULL;
    CHECK_OK(nb_generator_create(1, &g));
    nb_generator_release(g);
    nb_generator* fresh[100];
    for (int i = 0; i < 100; i++) {
        CHECK_OK(nb_generator_create(2, &fresh[i]));
        CHECK(fresh[i] != g);
    }
    uint64_t seed = 0;
    CHECK_STATUS(nb_generator_seed(g, &seed), NB_ERR_INVALID_ARGUMENT, "generator was released");
    nb_generator_release(g);
    CHECK_EQ_INT(warnings, 1);
    CHECK(strstr(last_warning, "nb_generator_release: generator") != NULL);
    for (int i = 0; i < 100; i++) nb_generator_release(fresh[i]);
    CHECK_EQ_INT(warnings, 1);
    nb_set_warning_handler(NULL, NULL);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_stale_tensor_is_not_the_next_tensor);
    RUN(test_stale_tensor_in_a_loop);
    RUN(test_double_release_warns);
    RUN(test_stale_stream_and_event);
    RUN(test_stale_generator);
    return NBT_END();
}
