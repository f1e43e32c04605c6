/* test_dlpack.c: DLPack export and import through the C ABI (versioned and
 * legacy structs, flags, ownership, deleters on other threads, bad input), the
 * read-only flag, and tensors in shared memory (seen across fork). */
#include "nbtest.h"

#include <nabla/dlpack.h>
#include <pthread.h>

/* ---- a producer for imports: a struct over a caller buffer, counting deleter calls ---- */

typedef struct {
    DLManagedTensorVersioned m;
    int64_t shape[4], strides[4];
    atomic_int deleted;
    pthread_t deleter_thread;
} producer;

static void producer_delete(DLManagedTensorVersioned* self) {
    producer* p = self->manager_ctx;
    p->deleter_thread = pthread_self();
    atomic_fetch_add(&p->deleted, 1);
}

static void producer_init(producer* p, void* data, DLDataType dtype, int32_t ndim, const int64_t* shape,
                          const int64_t* strides, uint64_t flags) {
    memset(p, 0, sizeof *p);
    p->m.version.major = 1;
    p->m.version.minor = 0;
    p->m.manager_ctx = p;
    p->m.deleter = producer_delete;
    p->m.flags = flags;
    p->m.dl_tensor.data = data;
    p->m.dl_tensor.device.device_type = kDLCPU;
    p->m.dl_tensor.ndim = ndim;
    p->m.dl_tensor.dtype = dtype;
    for (int32_t i = 0; i < ndim; i++) {
        p->shape[i] = shape[i];
        if (strides) p->strides[i] = strides[i];
    }
    p->m.dl_tensor.shape = p->shape;
    p->m.dl_tensor.strides = strides ? p->strides : NULL;
}

static const DLDataType F32 = {kDLFloat, 32, 1};

static void* release_on_thread(void* t) {
    nb_tensor_release(t);
    return NULL;
}

/* ---- export ---- */

TEST(test_export_versioned_shares_memory_and_describes_it) {
    int64_t shape[2] = {3, 4};
    nb_tensor *t = NULL, *tt = NULL;
    CHECK_OK(nb_arange(0, 12, 1, NB_F32, NB_CPU, 0, &t));
    nb_tensor* r = NULL;
    CHECK_OK(nb_tensor_view(t, shape, 2, &r));
    CHECK_OK(nb_tensor_transpose(r, 0, 1, &tt));  /* [4, 3] with strides [1, 4] */
    void* out = NULL;
    CHECK_OK(nb_tensor_to_dlpack_versioned(tt, -1, 0, -1, &out));
    DLManagedTensorVersioned* m = out;
    CHECK_EQ_INT(m->version.major, DLPACK_MAJOR_VERSION);
    CHECK_EQ_INT(m->flags, 0);
    CHECK(m->dl_tensor.data == nb_tensor_data_ptr(tt));
    CHECK_EQ_INT(m->dl_tensor.byte_offset, 0);
    CHECK_EQ_INT(m->dl_tensor.device.device_type, kDLCPU);
    CHECK_EQ_INT(m->dl_tensor.device.device_id, 0);
    CHECK_EQ_INT(m->dl_tensor.ndim, 2);
    CHECK(m->dl_tensor.dtype.code == kDLFloat && m->dl_tensor.dtype.bits == 32 && m->dl_tensor.dtype.lanes == 1);
    CHECK(m->dl_tensor.strides != NULL);
    CHECK_EQ_INT(m->dl_tensor.shape[0], 4);
    CHECK_EQ_INT(m->dl_tensor.shape[1], 3);
    CHECK_EQ_INT(m->dl_tensor.strides[0], 1);
    CHECK_EQ_INT(m->dl_tensor.strides[1], 4);
    CHECK_EQ_INT(nb_tensor_refcount(tt), 1);  /* the export holds an alias of the data, not tt and its history */
    nb_tensor_release(tt);
    nb_tensor_release(r);
    nb_tensor_release(t);
    ((float*)m->dl_tensor.data)[m->dl_tensor.strides[1]] = 42.0f;  /* still alive: element [0, 1] is 4 */
    m->deleter(m);
}

TEST(test_export_zero_dim_has_non_null_shape_and_strides) {
    nb_tensor* t = NULL;
    CHECK_OK(nb_full(NULL, 0, 2.5, NB_F64, NB_CPU, 0, &t));
    void* out = NULL;
    CHECK_OK(nb_tensor_to_dlpack(t, -1, 0, -1, &out));
    DLManagedTensor* m = out;
    CHECK_EQ_INT(m->dl_tensor.ndim, 0);
    CHECK(m->dl_tensor.shape != NULL && m->dl_tensor.strides != NULL);
    CHECK_EQ_DBL(*(double*)m->dl_tensor.data, 2.5);
    m->deleter(m);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    nb_tensor_release(t);
}

TEST(test_export_copy_sets_is_copied_and_owns_new_memory) {
    nb_tensor* t = NULL;
    int64_t n = 5;
    CHECK_OK(nb_ones(&n, 1, NB_I32, NB_CPU, 0, &t));
    void* out = NULL;
    CHECK_OK(nb_tensor_to_dlpack_versioned(t, NB_CPU, 0, 1, &out));
    DLManagedTensorVersioned* m = out;
    CHECK(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
    CHECK(m->dl_tensor.data != nb_tensor_data_ptr(t));
    CHECK_EQ_INT(((int32_t*)m->dl_tensor.data)[4], 1);
    CHECK_EQ_INT(nb_tensor_refcount(t), 1);
    m->deleter(m);
    nb_tensor_release(t);
}

TEST(test_export_errors) {
    nb_tensor* t = NULL;
    int64_t n = 2;
    CHECK_OK(nb_zeros(&n, 1, NB_F32, NB_CPU, 0, &t));
    void* out = (void*)0x1;
    CHECK_STATUS(nb_tensor_to_dlpack_versioned(t, -1, 0, 7, &out), NB_ERR_INVALID_ARGUMENT, "copy must be");
    CHECK_STATUS(nb_tensor_to_dlpack_versioned(t, NB_CUDA, 0, 0, &out), NB_ERR_DEVICE, "");
    CHECK_STATUS(nb_tensor_to_dlpack(NULL, -1, 0, -1, &out), NB_ERR_INVALID_ARGUMENT, "to_dlpack");
    CHECK_STATUS(nb_tensor_to_dlpack(t, -1, 0, -1, NULL), NB_ERR_INVALID_ARGUMENT, "out");
    CHECK(out == (void*)0x1);  /* untouched on failure */
    nb_tensor_release(t);
}

/* Every dtype goes out and comes back with its type and values. */
TEST(test_every_dtype_round_trips_through_both_structs) {
    for (int32_t d = 0; d < 10; d++) {
        for (int versioned = 0; versioned < 2; versioned++) {
            nb_tensor *t = NULL, *back = NULL;
            CHECK_OK(nb_arange(0, 6, 1, d == NB_BOOL ? NB_I64 : d, NB_CPU, 0, &t));
            if (d == NB_BOOL) {
                nb_tensor* b = NULL;
                CHECK_OK(nb_tensor_to(t, NB_BOOL, NB_CPU, 0, 0, &b));
                nb_tensor_release(t);
                t = b;
            }
            void* out = NULL;
            if (versioned) {
                CHECK_OK(nb_tensor_to_dlpack_versioned(t, -1, 0, -1, &out));
                CHECK_OK(nb_tensor_from_dlpack_versioned(out, &back));
            } else {
                CHECK_OK(nb_tensor_to_dlpack(t, -1, 0, -1, &out));
                CHECK_OK(nb_tensor_from_dlpack(out, &back));
            }
            CHECK_EQ_INT(nb_tensor_dtype(back), d);
            CHECK(nb_tensor_data_ptr(back) == nb_tensor_data_ptr(t));
            double v = 0;
            nb_tensor* last = NULL;
            CHECK_OK(nb_tensor_select(back, 0, 5, &last));
            CHECK_OK(nb_tensor_item_double(last, &v));
            CHECK_EQ_DBL(v, d == NB_BOOL ? 1.0 : 5.0);
            CHECK_EQ_INT(nb_tensor_refcount(t), 1);  /* back's storage holds an alias of t's data, not t */
            nb_tensor_release(last);
            nb_tensor_release(back);
            nb_tensor_release(t);
        }
    }
}

/* ---- import ---- */

TEST(test_import_takes_ownership_and_deleter_runs_on_the_releasing_thread) {
    float data[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    producer p;
    producer_init(&p, data, F32, 2, shape, NULL, 0);  /* NULL strides: row-major */
    nb_tensor* t = NULL;
    CHECK_OK(nb_tensor_from_dlpack_versioned(&p.m, &t));
    CHECK(nb_tensor_data_ptr(t) == data);
    CHECK_EQ_INT(nb_tensor_strides(t)[0], 3);
    CHECK_EQ_INT(nb_tensor_is_readonly(t), 0);
    nb_tensor* v = NULL;
    CHECK_OK(nb_tensor_select(t, 1, 2, &v));  /* a view keeps the memory too */
    nb_tensor_release(t);
    CHECK_EQ_INT(atomic_load(&p.deleted), 0);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, release_on_thread, v) == 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(atomic_load(&p.deleted), 1);
    CHECK(pthread_equal(p.deleter_thread, th));
}

TEST(test_import_honours_byte_offset_and_strides) {
    double data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int64_t shape[1] = {3}, strides[1] = {2};
    producer p;
    producer_init(&p, data, (DLDataType){kDLFloat, 64, 1}, 1, shape, strides, 0);
    p.m.dl_tensor.byte_offset = sizeof(double);  /* starts at 1.0: values 1, 3, 5 */
    nb_tensor *t = NULL, *e = NULL;
    CHECK_OK(nb_tensor_from_dlpack_versioned(&p.m, &t));
    CHECK_OK(nb_tensor_select(t, 0, 2, &e));
    double v = 0;
    CHECK_OK(nb_tensor_item_double(e, &v));
    CHECK_EQ_DBL(v, 5.0);
    nb_tensor_release(e);
    nb_tensor_release(t);
    CHECK_EQ_INT(atomic_load(&p.deleted), 1);
}

TEST(test_import_refuses_bad_structs_and_leaves_ownership_with_the_caller) {
    float data[4] = {0};
    int64_t shape[1] = {4};
    nb_tensor* t = (nb_tensor*)0x1;
    producer p;
    producer_init(&p, data, F32, 1, shape, NULL, 0);
    p.m.version.major = 2;
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_ABI_VERSION, "DLPack 2.0");
    producer_init(&p, data, (DLDataType){kDLComplex, 64, 1}, 1, shape, NULL, 0);
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_DTYPE, "complex");
    producer_init(&p, data, (DLDataType){kDLFloat, 32, 4}, 1, shape, NULL, 0);
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_DTYPE, "4 lanes");
    producer_init(&p, data, F32, 1, shape, NULL, 0);
    p.m.dl_tensor.device.device_type = kDLOpenCL;
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_DEVICE, "OpenCL");
    producer_init(&p, data, F32, 1, shape, (int64_t[]){-1}, 0);
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_INVALID_ARGUMENT, "negative strides");
    producer_init(&p, data, F32, 1, shape, NULL, 0);
    p.m.dl_tensor.byte_offset = 2;
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_INVALID_ARGUMENT, "aligned");
    producer_init(&p, data, F32, 1, shape, NULL, 0);
    p.m.dl_tensor.ndim = 17;
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), NB_ERR_INVALID_ARGUMENT, "17 dims");
    CHECK_STATUS(nb_tensor_from_dlpack_versioned(NULL, &t), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK_STATUS(nb_tensor_from_dlpack(NULL, &t), NB_ERR_INVALID_ARGUMENT, "NULL");
    CHECK(t == (nb_tensor*)0x1);
    CHECK_EQ_INT(atomic_load(&p.deleted), 0);
}

/* The producer's numbers are untrusted: strides that reach past int64, a byte_offset that wraps
 * the pointer to before the buffer, negative or overflowing shapes, NULL data, bad ndim and dtypes
 * are each refused with a status and a message, the deleter is not called and *out is untouched.
 * (strides {3, INT64_MAX} and byte_offset UINT64_MAX - 3 used to be accepted.) */
TEST(test_import_checks_the_extent_and_offsets_of_untrusted_structs) {
    float data[16] = {0};
    nb_tensor* t = (nb_tensor*)0x1;
    producer p;
    const int64_t s22[2] = {2, 2}, s4[1] = {4};
#define REFUSED(status, substr)                                                         \
    do {                                                                                \
        CHECK_STATUS(nb_tensor_from_dlpack_versioned(&p.m, &t), status, substr);        \
        CHECK(t == (nb_tensor*)0x1);                                                    \
        CHECK_EQ_INT(atomic_load(&p.deleted), 0);                                       \
    } while (0)
    producer_init(&p, data, F32, 2, s22, (int64_t[]){3, INT64_MAX}, 0);
    REFUSED(NB_ERR_INVALID_ARGUMENT, "reach past 2^63 - 1 bytes");
    producer_init(&p, data, F32, 2, s22, (int64_t[]){INT64_MAX / 2, 1}, 0);  /* fits int64; the bytes do not */
    REFUSED(NB_ERR_INVALID_ARGUMENT, "reach past 2^63 - 1 bytes");
    producer_init(&p, data, F32, 1, s4, NULL, 0);
    p.m.dl_tensor.byte_offset = UINT64_MAX - 3;
    REFUSED(NB_ERR_INVALID_ARGUMENT, "wraps the data pointer");
    producer_init(&p, (void*)(UINTPTR_MAX - 15), F32, 1, s4, (int64_t[]){2}, 0);  /* 28 bytes past the top */
    REFUSED(NB_ERR_INVALID_ARGUMENT, "wrap around the address space");
    producer_init(&p, data, F32, 1, (int64_t[]){-4}, NULL, 0);
    REFUSED(NB_ERR_INVALID_ARGUMENT, "negative dimension -4");
    producer_init(&p, data, F32, 3, (int64_t[]){INT64_MAX, 0, 6}, NULL, 0);
    REFUSED(NB_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed");
    producer_init(&p, data, F32, 2, (int64_t[]){INT64_C(1) << 62, 4}, NULL, 0);
    REFUSED(NB_ERR_INVALID_ARGUMENT, "overflows int64");
    producer_init(&p, NULL, F32, 1, s4, NULL, 0);
    REFUSED(NB_ERR_INVALID_ARGUMENT, "data is NULL");
    producer_init(&p, data, F32, 1, s4, NULL, 0);
    p.m.dl_tensor.ndim = -1;
    REFUSED(NB_ERR_INVALID_ARGUMENT, "-1 dims");
    producer_init(&p, data, F32, 1, s4, NULL, 0);
    p.m.dl_tensor.shape = NULL;
    REFUSED(NB_ERR_INVALID_ARGUMENT, "shape is NULL");
    producer_init(&p, data, (DLDataType){kDLFloat, 12, 1}, 1, s4, NULL, 0);
    REFUSED(NB_ERR_DTYPE, "12 bits");
    producer_init(&p, data, (DLDataType){kDLInt, 32, 0}, 1, s4, NULL, 0);
    REFUSED(NB_ERR_DTYPE, "0 lanes");
    producer_init(&p, data, (DLDataType){200, 32, 1}, 1, s4, NULL, 0);
    REFUSED(NB_ERR_DTYPE, "code 200");
#undef REFUSED
    /* the legacy struct goes through the same checks */
    DLManagedTensor legacy = {0};
    legacy.dl_tensor.data = data;
    legacy.dl_tensor.device.device_type = kDLCPU;
    legacy.dl_tensor.ndim = 2;
    legacy.dl_tensor.dtype = F32;
    legacy.dl_tensor.shape = (int64_t*)s22;
    legacy.dl_tensor.strides = (int64_t[]){3, INT64_MAX};
    CHECK_STATUS(nb_tensor_from_dlpack(&legacy, &t), NB_ERR_INVALID_ARGUMENT, "reach past 2^63 - 1 bytes");
    CHECK(t == (nb_tensor*)0x1);
    /* what is valid still imports: an empty tensor over NULL data, huge strides that address nothing,
     * a strided view that ends exactly at the buffer's end */
    producer_init(&p, NULL, F32, 2, (int64_t[]){0, 3}, (int64_t[]){INT64_MAX, INT64_MAX}, 0);
    CHECK_OK(nb_tensor_from_dlpack_versioned(&p.m, &t));
    CHECK_EQ_INT(nb_tensor_numel(t), 0);
    CHECK_EQ_INT(nb_tensor_storage_offset(t), 0);
    nb_tensor_release(t);
    CHECK_EQ_INT(atomic_load(&p.deleted), 1);
    producer_init(&p, data, F32, 2, (int64_t[]){2, 4}, (int64_t[]){8, 2}, 0);
    p.m.dl_tensor.byte_offset = sizeof(float);  /* elements 1 .. 15 of 16 */
    CHECK_OK(nb_tensor_from_dlpack_versioned(&p.m, &t));
    CHECK_EQ_INT(nb_tensor_storage_nbytes(t), 15 * (int64_t)sizeof(float));
    nb_tensor_release(t);
    CHECK_EQ_INT(atomic_load(&p.deleted), 1);
}

/* ---- read-only ---- */

TEST(test_read_only_import_refuses_writes_and_exports_the_flag) {
    float data[4] = {1, 2, 3, 4};
    int64_t shape[1] = {4};
    producer p;
    producer_init(&p, data, F32, 1, shape, NULL, DLPACK_FLAG_BITMASK_READ_ONLY);
    nb_tensor *t = NULL, *v = NULL, *one = NULL, *sum = NULL;
    CHECK_OK(nb_tensor_from_dlpack_versioned(&p.m, &t));
    CHECK_EQ_INT(nb_tensor_is_readonly(t), 1);
    CHECK_OK(nb_tensor_narrow(t, 0, 1, 2, &v));
    CHECK_EQ_INT(nb_tensor_is_readonly(v), 1);  /* views share the flag */
    CHECK_OK(nb_full(NULL, 0, 9, NB_F32, NB_CPU, 0, &one));
    CHECK_STATUS(nb_tensor_copy_(v, one), NB_ERR_INVALID_ARGUMENT, "read-only");
    CHECK_STATUS(nb_add(t, one, 1.0, t, NULL), NB_ERR_INVALID_ARGUMENT, "add: cannot write into 'dst'");
    CHECK_STATUS(nb_uniform_(t, 0, 1, NULL), NB_ERR_INVALID_ARGUMENT, "read-only");
    CHECK_OK(nb_add(t, one, 1.0, NULL, &sum));  /* reading is fine */
    CHECK_EQ_INT(nb_tensor_is_readonly(sum), 0);
    CHECK_EQ_DBL(data[1], 2.0f);
    CHECK_EQ_INT(nb_tensor_version(t), 0);
    void* out = NULL;
    CHECK_STATUS(nb_tensor_to_dlpack(t, -1, 0, -1, &out), NB_ERR_INVALID_ARGUMENT, "read-only");
    CHECK_OK(nb_tensor_to_dlpack_versioned(t, -1, 0, -1, &out));
    CHECK(((DLManagedTensorVersioned*)out)->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
    ((DLManagedTensorVersioned*)out)->deleter(out);
    CHECK_OK(nb_tensor_to_dlpack(t, -1, 0, 1, &out));  /* a copy is writable: legacy is fine */
    ((DLManagedTensor*)out)->deleter(out);
    nb_tensor_release(sum);
    nb_tensor_release(one);
    nb_tensor_release(v);
    nb_tensor_release(t);
    CHECK_EQ_INT(atomic_load(&p.deleted), 1);
}

/* ---- shared memory ---- */

TEST(test_share_memory_keeps_values_and_moves_every_view) {
    nb_tensor *t = NULL, *v = NULL, *e = NULL;
    CHECK_OK(nb_arange(0, 10, 1, NB_I64, NB_CPU, 0, &t));  /* small: inline storage */
    CHECK_OK(nb_tensor_narrow(t, 0, 5, 5, &v));
    CHECK_EQ_INT(nb_tensor_is_shared(t), 0);
    int32_t fd = -1;
    CHECK_STATUS(nb_tensor_shared_fd(t, &fd), NB_ERR_INVALID_ARGUMENT, "not in shared memory");
    CHECK_OK(nb_tensor_share_memory_(v));
    CHECK_EQ_INT(nb_tensor_is_shared(t), 1);
    CHECK_OK(nb_tensor_share_memory_(t));  /* already shared: nothing changes */
    CHECK_OK(nb_tensor_select(v, 0, 4, &e));
    int64_t x = 0;
    CHECK_OK(nb_tensor_item_int(e, &x));
    CHECK_EQ_INT(x, 9);
    CHECK_OK(nb_tensor_shared_fd(t, &fd));
    CHECK(fd >= 0);

    /* another mapping of the same memory sees writes both ways */
    nb_tensor* other = NULL;
    int64_t shape[1] = {10}, strides[1] = {1};
    CHECK_OK(nb_tensor_from_shared_fd(fd, nb_tensor_storage_nbytes(t), shape, strides, 1, 0, NB_I64, 0, &other));
    CHECK(nb_tensor_data_ptr(other) != nb_tensor_data_ptr(t));
    ((int64_t*)nb_tensor_data_ptr(other))[9] = -7;
    CHECK_OK(nb_tensor_item_int(e, &x));
    CHECK_EQ_INT(x, -7);
    CHECK_EQ_INT(nb_tensor_is_shared(other), 1);
    nb_tensor* bad = (nb_tensor*)0x1;
    CHECK_STATUS(nb_tensor_from_shared_fd(fd, 80, shape, (int64_t[]){2}, 1, 0, NB_I64, 0, &bad),
                 NB_ERR_INVALID_ARGUMENT, "needs more than 80 bytes");
    CHECK_STATUS(nb_tensor_from_shared_fd(-1, 80, shape, strides, 1, 0, NB_I64, 0, &bad), NB_ERR_INVALID_ARGUMENT,
                 "bad file descriptor");
    /* the geometry's end is checked with overflow checks for 1-byte dtypes too (INT64_MAX - 1 + 2 wrapped
     * negative and passed), and even without elements the offset must lie inside nbytes */
    CHECK_STATUS(nb_tensor_from_shared_fd(fd, 80, (int64_t[]){2}, strides, 1, INT64_MAX - 1, NB_U8, 0, &bad),
                 NB_ERR_INVALID_ARGUMENT, "needs more than 80 bytes");
    CHECK_STATUS(nb_tensor_from_shared_fd(fd, 80, (int64_t[]){0}, strides, 1, 81, NB_I8, 0, &bad),
                 NB_ERR_INVALID_ARGUMENT, "needs more than 80 bytes");
    CHECK_STATUS(nb_tensor_from_shared_fd(fd, 80, (int64_t[]){INT64_MAX, 0}, (int64_t[]){1, 1}, 2, 0, NB_I64, 0, &bad),
                 NB_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed");
    CHECK(bad == (nb_tensor*)0x1);
    nb_tensor_release(other);
    nb_tensor_release(e);
    nb_tensor_release(v);
    nb_tensor_release(t);
}

TEST(test_shared_tensor_write_in_a_forked_child_is_seen_by_the_parent) {
    int64_t shape[2] = {256, 256};
    nb_tensor* t = NULL;
    CHECK_OK(nb_empty_shared(shape, 2, NB_F32, &t));
    CHECK_EQ_INT(nb_tensor_is_shared(t), 1);
    float* data = nb_tensor_data_ptr(t);
    data[65535] = 0;
    pid_t pid = fork();
    if (pid == 0) {
        ((float*)nb_tensor_data_ptr(t))[65535] = 3.5f;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_DBL(data[65535], 3.5f);
    nb_tensor_release(t);
}

int main(int argc, char** argv) {
    NBT_BEGIN(argc, argv);
    RUN(test_export_versioned_shares_memory_and_describes_it);
    RUN(test_export_zero_dim_has_non_null_shape_and_strides);
    RUN(test_export_copy_sets_is_copied_and_owns_new_memory);
    RUN(test_export_errors);
    RUN(test_every_dtype_round_trips_through_both_structs);
    RUN(test_import_takes_ownership_and_deleter_runs_on_the_releasing_thread);
    RUN(test_import_honours_byte_offset_and_strides);
    RUN(test_import_refuses_bad_structs_and_leaves_ownership_with_the_caller);
    RUN(test_import_checks_the_extent_and_offsets_of_untrusted_structs);
    RUN(test_read_only_import_refuses_writes_and_exports_the_flag);
    RUN(test_share_memory_keeps_values_and_moves_every_view);
    RUN(test_shared_tensor_write_in_a_forked_child_is_seen_by_the_parent);
    return NBT_END();
}
