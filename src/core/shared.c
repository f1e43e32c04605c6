/* shared.c: CPU storage in shared memory, handed between processes as a file
 * descriptor. The memory is an anonymous memfd (no name in /dev/shm, nothing
 * left behind when the last process unmaps it); where memfd_create is missing,
 * a POSIX shm object is unlinked the moment it is created. The storage keeps
 * its descriptor open so the tensor can be sent on again. */
#define _GNU_SOURCE
#include "internal.h"
#include "../alloc/cpu_allocator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    void* addr;
    size_t len;  /* mapped bytes: nbytes rounded up to pages, at least one page */
    int fd;
} shm_region;

static void shm_release(void* payload) {
    shm_region* r = payload;
    munmap(r->addr, r->len);
    close(r->fd);
    nb_cpu_free(r, sizeof *r);
}

static size_t map_len(int64_t nbytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = nbytes > 0 ? (size_t)nbytes : 1;
    return (n + page - 1) / page * page;
}

static int shm_create_fd(void) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
    int fd = memfd_create("nabla", MFD_CLOEXEC);
    if (fd >= 0 || errno != ENOSYS) return fd;
#endif
    char name[64];
    for (int attempt = 0; attempt < 16; attempt++) {
        snprintf(name, sizeof name, "/nabla_%ld_%p_%d", (long)getpid(), (void*)name, attempt);
        int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            shm_unlink(name);
            return fd;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* Maps len bytes of fd (which the region then owns) into a new region. */
static nb_status shm_map(const char* op, int fd, size_t len, shm_region** out) {
    void* addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
        int err = errno;
        close(fd);
        return nb_error(err == ENOMEM ? NB_ERR_OUT_OF_MEMORY : NB_ERR_BACKEND, "%s: mmap of %zu shared bytes failed: %s",
                        op, len, strerror(err));
    }
    shm_region* r = nb_cpu_alloc(sizeof *r);
    if (r == NULL) {
        munmap(addr, len);
        close(fd);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for a shared region", op);
    }
    r->addr = addr;
    r->len = len;
    r->fd = fd;
    *out = r;
    return NB_OK;
}

static nb_status shm_new(const char* op, int64_t nbytes, shm_region** out) {
    size_t len = map_len(nbytes);
    int fd = shm_create_fd();
    if (fd < 0) return nb_error(NB_ERR_BACKEND, "%s: cannot create shared memory: %s", op, strerror(errno));
    if (ftruncate(fd, (off_t)len) != 0) {
        int err = errno;
        close(fd);
        return nb_error(err == ENOSPC || err == ENOMEM ? NB_ERR_OUT_OF_MEMORY : NB_ERR_BACKEND,
                        "%s: cannot size shared memory to %zu bytes: %s", op, len, strerror(err));
    }
    return shm_map(op, fd, len, out);
}

static inline bool storage_is_shared(const nb_storage* s) { return s->deleter == shm_release; }

NB_API nb_status nb_tensor_share_memory_(nb_tensor* t) {
    static const char* op = "share_memory_";
    NB_CHECK_TENSOR(op, t);
    nb_storage* s = t->storage;
    if (storage_is_shared(s)) return NB_OK;
    if (s->device_type != NB_CPU)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: only cpu tensors can move to shared memory, got %s:%d", op,
                        nb_device_type_name(s->device_type), (int)s->device_index);
    if (atomic_load(&s->exports) > 0)  /* a DLPack consumer holds the current address */
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the tensor's memory is exported through DLPack and cannot "
                        "move to shared memory while the export lives", op);
    shm_region* r;
    nb_status st = shm_new(op, s->nbytes, &r);
    if (st != NB_OK) return st;
    if (s->nbytes > 0) memcpy(r->addr, s->data, (size_t)s->nbytes);
    /* Swap the bytes under every view at once, then let the old ones go. */
    void* old_data = s->data;
    nb_deleter_fn old_deleter = s->deleter;
    void* old_payload = s->payload;
    const nb_backend* old_backend = s->backend;
    s->data = r->addr;
    s->deleter = shm_release;
    s->payload = r;
    s->backend = NULL;
    if (old_deleter != NULL) old_deleter(old_payload);
    else if (old_data != nb_storage_inline_tail(s) && old_backend != NULL)
        old_backend->free(s->device_index, old_data, s->nbytes);
    return NB_OK;
}

NB_API int32_t nb_tensor_is_shared(const nb_tensor* t) {
    if (NB_UNLIKELY(!nb_tensor_ok(t))) {
        nb_bad_handle("nb_tensor_is_shared", "t", t);
        return -1;
    }
    return storage_is_shared(t->storage);
}

NB_API nb_status nb_tensor_shared_fd(const nb_tensor* t, int32_t* out) {
    static const char* op = "shared_fd";
    NB_CHECK_TENSOR(op, t);
    NB_CHECK_OUT(op, out);
    if (!storage_is_shared(t->storage))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the tensor is not in shared memory (call share_memory_ first)", op);
    *out = ((const shm_region*)t->storage->payload)->fd;
    return NB_OK;
}

/* A tensor over a fresh shared region; shape already validated. */
static nb_status shared_tensor(const char* op, shm_region* r, int64_t nbytes, int32_t dtype, const int64_t* shape,
                               const int64_t* strides, int32_t ndim, int64_t offset, nb_tensor** out) {
    nb_storage* s;
    nb_status st = nb_storage_wrap(op, r->addr, nbytes, NB_CPU, 0, shm_release, r, &s);
    if (st != NB_OK) {
        shm_release(r);
        return st;
    }
    st = nb_tensor_make(op, s, dtype, shape, strides, ndim, offset, out);
    nb_storage_release(s);  /* on failure this unmaps the region */
    return st;
}

NB_API nb_status nb_empty_shared(const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out) {
    static const char* op = "empty_shared";
    NB_CHECK_OUT(op, out);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, dtype, &numel);  /* numel * itemsize fits int64 */
    if (st != NB_OK) return st;
    const int64_t nbytes = numel * nb_dtype_sizes[dtype];
    shm_region* r;
    if ((st = shm_new(op, nbytes, &r)) != NB_OK) return st;
    int64_t strides[NB_MAX_DIMS];
    nb_contiguous_strides(shape, ndim, strides);
    return shared_tensor(op, r, nbytes, dtype, shape, strides, ndim, 0, out);
}

NB_API nb_status nb_tensor_from_shared_fd(int32_t fd, int64_t nbytes, const int64_t* shape, const int64_t* strides,
                                          int32_t ndim, int64_t storage_offset, int32_t dtype, int32_t readonly,
                                          nb_tensor** out) {
    static const char* op = "from_shared_fd";
    NB_CHECK_OUT(op, out);
    if (!nb_dtype_valid(dtype)) return nb_error(NB_ERR_DTYPE, "%s: unknown dtype code %d", op, (int)dtype);
    int64_t numel;
    nb_status st = nb_check_extent(op, shape, ndim, dtype, &numel);
    if (st != NB_OK) return st;
    if (ndim > 0 && strides == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: strides is NULL", op);
    if (nbytes < 0 || storage_offset < 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: nbytes (%lld) and storage_offset (%lld) must be >= 0", op,
                        (long long)nbytes, (long long)storage_offset);
    for (int32_t i = 0; i < ndim && numel > 0; i++)
        if (strides[i] < 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: negative strides are not supported, got %s", op,
                            nb_shape_str(strides, ndim));
    /* as as_strided: the end of what the geometry reaches (its offset, without elements) lies inside nbytes,
     * computed with overflow checks for every item size */
    int64_t end, end_bytes;
    if (!nb_extent_end(shape, strides, ndim, storage_offset, &end) ||
        __builtin_mul_overflow(end, nb_dtype_sizes[dtype], &end_bytes) || end_bytes > nbytes)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: shape %s with strides %s at offset %lld needs more than %lld bytes",
                        op, nb_shape_str(shape, ndim), nb_shape_str(strides, ndim), (long long)storage_offset,
                        (long long)nbytes);
    struct stat info;
    size_t len = map_len(nbytes);
    if (fstat(fd, &info) != 0)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: bad file descriptor %d: %s", op, (int)fd, strerror(errno));
    if ((size_t)info.st_size < len)
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: descriptor %d holds %lld bytes, fewer than the %lld requested", op,
                        (int)fd, (long long)info.st_size, (long long)nbytes);
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);  /* the caller keeps its descriptor */
    if (own < 0) return nb_error(NB_ERR_BACKEND, "%s: cannot duplicate descriptor %d: %s", op, (int)fd, strerror(errno));
    shm_region* r;
    if ((st = shm_map(op, own, len, &r)) != NB_OK) return st;
    if ((st = shared_tensor(op, r, nbytes, dtype, shape, strides, ndim, storage_offset, out)) != NB_OK) return st;
    (*out)->storage->readonly = readonly != 0;
    return NB_OK;
}
