/* checkpoint.c: named tensors saved to and loaded from safetensors files (nb_save,
 * nb_save_buffer, nb_load, nb_load_buffer and the nb_checkpoint object).
 *
 * Loading reads and checks the header only (safetensors_header.c); each tensor's
 * bytes are read when asked for, with pread from the file, so a large checkpoint
 * is never held twice. Saving writes a temporary file beside the target and
 * renames it over the target, so a crash never leaves half a checkpoint. */
#define _POSIX_C_SOURCE 200809L /* pread, fsync, mkstemp */
#include "safetensors.h"
#include "../alloc/cpu_allocator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECKPOINT_MAGIC 0x6e62636bu /* "nbck" */

struct nb_checkpoint {
    uint32_t magic;
    int fd;                    /* -1 for a caller's buffer */
    const unsigned char* data; /* a buffer's data section */
    int64_t data_start;        /* a file's data section */
    char* source;              /* 'path' or the buffer's name, for messages */
    nb_st_header h;
};

static nb_status bad_checkpoint(const char* op, const nb_checkpoint* ck) {
    if (ck == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: checkpoint is NULL", op);
    return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: checkpoint %p is %s", op, (const void*)ck,
                    ck->magic == NB_TENSOR_DEAD ? "a released checkpoint" : "not a live nb_checkpoint");
}
#define CHECK_CKPT(op, ck) \
    do { if (NB_UNLIKELY((ck) == NULL || (ck)->magic != CHECKPOINT_MAGIC)) return bad_checkpoint(op, ck); } while (0)

static char* dup_source(const char* fmt, const char* s) {
    size_t n = strlen(s) + strlen(fmt);
    char* out = malloc(n);
    if (out != NULL) snprintf(out, n, fmt, s);
    return out;
}

static uint64_t le64(const unsigned char* b) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

/* Checks the 8-byte header length against the file's size. */
static nb_status open_header(const char* op, nb_checkpoint* ck, const unsigned char* head, int64_t size,
                             int64_t* n_out) {
#define CORRUPT(...) nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s is not a valid safetensors file: " __VA_ARGS__)
    if (size < 8)
        return CORRUPT("it has %lld bytes, fewer than the 8-byte header length (truncated?)", op, ck->source,
                       (long long)size);
    uint64_t n = le64(head);
    if (n > (uint64_t)NB_ST_MAX_HEADER)
        return CORRUPT("header length %llu is too large (corrupt?)", op, ck->source, (unsigned long long)n);
    if ((int64_t)n > size - 8)
        return CORRUPT("header length %llu exceeds the file size %lld (truncated?)", op, ck->source,
                       (unsigned long long)n, (long long)size);
    *n_out = (int64_t)n;
    return NB_OK;
#undef CORRUPT
}

static nb_status new_checkpoint(const char* op, const char* fmt, const char* name, nb_checkpoint** out) {
    nb_checkpoint* ck = nb_cpu_alloc(sizeof *ck);
    char* source = dup_source(fmt, name);
    if (ck == NULL || source == NULL) {
        nb_cpu_free(ck, sizeof *ck);
        free(source);
        return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory", op);
    }
    memset(ck, 0, sizeof *ck);
    ck->magic = CHECKPOINT_MAGIC;
    ck->fd = -1;
    ck->source = source;
    *out = ck;
    return NB_OK;
}

NB_API void nb_checkpoint_release(nb_checkpoint* ck) {
    if (ck == NULL) return;
    if (ck->magic != CHECKPOINT_MAGIC) {
        nb_bad_release("nb_checkpoint_release", "checkpoint", ck, ck->magic);
        return;
    }
    ck->magic = NB_TENSOR_DEAD;
    if (ck->fd >= 0) close(ck->fd);
    nb_st_header_free(&ck->h);
    free(ck->source);
    nb_cpu_free_handle(ck, sizeof *ck);
}

/* Reads exactly n bytes at offset, retrying short reads. */
static bool read_at(int fd, void* dst, int64_t n, int64_t offset) {
    char* p = dst;
    while (n > 0) {
        ssize_t got = pread(fd, p, (size_t)(n < ((int64_t)1 << 30) ? n : ((int64_t)1 << 30)), (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        p += got, n -= got, offset += got;
    }
    return true;
}

NB_API nb_status nb_load(const char* path, nb_checkpoint** out) {
    static const char* op = "nb_load";
    NB_CHECK_OUT(op, out);
    if (path == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: path is NULL", op);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: cannot open '%s': %s", op, path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: '%s' is not a regular file", op, path);
    }
    nb_checkpoint* ck;
    nb_status st = new_checkpoint(op, "'%s'", path, &ck);
    if (st != NB_OK) {
        close(fd);
        return st;
    }
    ck->fd = fd;
    unsigned char head[8] = {0};
    int64_t size = (int64_t)sb.st_size, n = 0;
    char* text = NULL;
    if (size >= 8 && !read_at(fd, head, 8, 0)) size = 0;
    if ((st = open_header(op, ck, head, size, &n)) == NB_OK) {
        text = malloc((size_t)n + 1);
        if (text == NULL) st = nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the header of '%s'", op, path);
        else if (!read_at(fd, text, n, 8))
            st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: reading the header of '%s' failed", op, path);
        else st = nb_st_parse(op, ck->source, text, n, size - 8 - n, &ck->h);
        free(text);
    }
    if (st != NB_OK) {
        nb_checkpoint_release(ck);
        return st;
    }
    ck->data_start = 8 + n;
    *out = ck;
    return NB_OK;
}

NB_API nb_status nb_load_buffer(const void* data, int64_t nbytes, const char* name, nb_checkpoint** out) {
    static const char* op = "nb_load_buffer";
    NB_CHECK_OUT(op, out);
    if (nbytes < 0 || (data == NULL && nbytes > 0))
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: data %p with nbytes %lld", op, data, (long long)nbytes);
    nb_checkpoint* ck;
    nb_status st = new_checkpoint(op, "%s", name != NULL ? name : "the buffer", &ck);
    if (st != NB_OK) return st;
    const unsigned char* bytes = data;
    int64_t n = 0;
    if ((st = open_header(op, ck, bytes, nbytes, &n)) == NB_OK)
        st = nb_st_parse(op, ck->source, (const char*)bytes + 8, n, nbytes - 8 - n, &ck->h);
    if (st != NB_OK) {
        nb_checkpoint_release(ck);
        return st;
    }
    ck->data = bytes + 8 + n;
    *out = ck;
    return NB_OK;
}

NB_API int64_t nb_checkpoint_count(const nb_checkpoint* ck) {
    if (ck == NULL || ck->magic != CHECKPOINT_MAGIC) {
        bad_checkpoint("nb_checkpoint_count", ck);
        return -1;
    }
    return ck->h.n;
}

NB_API const char* nb_checkpoint_name(const nb_checkpoint* ck, int64_t i) {
    static const char* op = "nb_checkpoint_name";
    if (ck == NULL || ck->magic != CHECKPOINT_MAGIC) {
        bad_checkpoint(op, ck);
        return NULL;
    }
    if (i < 0 || i >= ck->h.n) {
        nb_error(NB_ERR_INDEX, "%s: index %lld is out of range for %lld tensors", op, (long long)i, (long long)ck->h.n);
        return NULL;
    }
    return ck->h.entries[i].name;
}

NB_API nb_status nb_checkpoint_tensor(const nb_checkpoint* ck, int64_t i, nb_tensor** out) {
    static const char* op = "nb_checkpoint_tensor";
    CHECK_CKPT(op, ck);
    NB_CHECK_OUT(op, out);
    if (i < 0 || i >= ck->h.n)
        return nb_error(NB_ERR_INDEX, "%s: index %lld is out of range for %lld tensors", op, (long long)i,
                        (long long)ck->h.n);
    const nb_st_entry* e = &ck->h.entries[i];
    nb_tensor* t;
    if (ck->fd < 0)
        return nb_tensor_from_host(ck->data + e->begin, e->shape, e->ndim, e->dtype, NB_CPU, 0, out);
    nb_status st = nb_empty(e->shape, e->ndim, e->dtype, NB_CPU, 0, &t);
    if (st != NB_OK) return st;
    if (e->end > e->begin && !read_at(ck->fd, nb_tensor_data(t), e->end - e->begin, ck->data_start + e->begin)) {
        nb_tensor_release(t);
        return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: reading tensor '%s' from %s failed (the file changed?)", op,
                        e->name, ck->source);
    }
    *out = t;
    return NB_OK;
}

NB_API nb_status nb_checkpoint_get(const nb_checkpoint* ck, const char* name, nb_tensor** out) {
    static const char* op = "nb_checkpoint_get";
    CHECK_CKPT(op, ck);
    NB_CHECK_OUT(op, out);
    if (name == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: name is NULL", op);
    for (int64_t i = 0; i < ck->h.n; i++)
        if (strcmp(ck->h.entries[i].name, name) == 0) return nb_checkpoint_tensor(ck, i, out);
    return nb_error(NB_ERR_INDEX, "%s: %s has no tensor named '%s'", op, ck->source, name);
}

NB_API int64_t nb_checkpoint_metadata_count(const nb_checkpoint* ck) {
    if (ck == NULL || ck->magic != CHECKPOINT_MAGIC) {
        bad_checkpoint("nb_checkpoint_metadata_count", ck);
        return -1;
    }
    return ck->h.n_meta;
}

NB_API nb_status nb_checkpoint_metadata(const nb_checkpoint* ck, int64_t i, const char** key, const char** value) {
    static const char* op = "nb_checkpoint_metadata";
    CHECK_CKPT(op, ck);
    NB_CHECK_OUT(op, key);
    NB_CHECK_OUT(op, value);
    if (i < 0 || i >= ck->h.n_meta)
        return nb_error(NB_ERR_INDEX, "%s: index %lld is out of range for %lld metadata entries", op, (long long)i,
                        (long long)ck->h.n_meta);
    *key = ck->h.meta_keys[i];
    *value = ck->h.meta_values[i];
    return NB_OK;
}

/* ---- saving ---- */

typedef struct {
    char* s;
    size_t n, cap;
    bool oom;
} text;

static void put(text* b, const char* s, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap + n + 1) * 2;
        char* grown = realloc(b->s, cap);
        if (grown == NULL) {
            b->oom = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void puts_(text* b, const char* s) { put(b, s, strlen(s)); }

static void put_json_string(text* b, const char* s) {
    put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(b, e, 2);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            put(b, e, 6);
        } else {
            put(b, (const char*)&c, 1);
        }
    }
    put(b, "\"", 1);
}

typedef struct {
    const char* const* names;
    nb_tensor* const* tensors;
    int64_t n;
    const char* const* meta_keys;
    const char* const* meta_values;
    int64_t n_meta;
} save_args;

static nb_status check_names(const char* op, const char* what, const char* const* names, int64_t n) {
    if (n < 0) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s count %lld is negative", op, what, (long long)n);
    if (n > 0 && names == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s names are NULL", op, what);
    for (int64_t i = 0; i < n; i++) {
        if (names[i] == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s name %lld is NULL", op, what, (long long)i);
        if (!nb_st_utf8(names[i]))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s name %lld is not UTF-8 text", op, what, (long long)i);
        for (int64_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: %s name '%s' appears twice", op, what, names[i]);
    }
    return NB_OK;
}

/* The header text (padded so that the data starts 8-byte aligned) and the data section's size. */
static nb_status build_header(const char* op, const save_args* a, text* h, int64_t* data_size) {
    nb_status st;
    if ((st = check_names(op, "tensor", a->names, a->n)) != NB_OK) return st;
    if ((st = check_names(op, "metadata", a->meta_keys, a->n_meta)) != NB_OK) return st;
    if (a->n > 0 && a->tensors == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: tensors is NULL", op);
    for (int64_t i = 0; i < a->n_meta; i++)
        if (a->meta_values == NULL || a->meta_values[i] == NULL || !nb_st_utf8(a->meta_values[i]))
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: metadata value %lld is NULL or not UTF-8 text", op,
                            (long long)i);
    for (int64_t i = 0; i < a->n; i++) {
        if (strcmp(a->names[i], "__metadata__") == 0)
            return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: '__metadata__' is reserved; it cannot name a tensor", op);
        if (!nb_tensor_ok(a->tensors[i])) return nb_bad_handle(op, a->names[i], a->tensors[i]);
    }
    puts_(h, "{");
    if (a->n_meta > 0) {
        puts_(h, "\"__metadata__\":{");
        for (int64_t i = 0; i < a->n_meta; i++) {
            if (i) puts_(h, ",");
            put_json_string(h, a->meta_keys[i]);
            puts_(h, ":");
            put_json_string(h, a->meta_values[i]);
        }
        puts_(h, "}");
    }
    int64_t offset = 0;
    for (int64_t i = 0; i < a->n; i++) {
        const nb_tensor* t = a->tensors[i];
        int64_t nbytes = t->numel * nb_dtype_sizes[t->dtype];
        char num[64];
        if (i || a->n_meta > 0) puts_(h, ",");
        put_json_string(h, a->names[i]);
        puts_(h, ":{\"dtype\":\"");
        puts_(h, nb_st_dtype_name(t->dtype));
        puts_(h, "\",\"shape\":[");
        for (int32_t d = 0; d < t->ndim; d++) {
            snprintf(num, sizeof num, d ? ",%lld" : "%lld", (long long)t->shape[d]);
            puts_(h, num);
        }
        snprintf(num, sizeof num, "],\"data_offsets\":[%lld,%lld]}", (long long)offset, (long long)(offset + nbytes));
        puts_(h, num);
        offset += nbytes;
    }
    puts_(h, "}");
    while (!h->oom && (h->n % 8) != 0) puts_(h, " ");
    if (h->oom) return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory for the header", op);
    *data_size = offset;
    return NB_OK;
}

static void le64_put(unsigned char* b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
}

NB_API nb_status nb_save_buffer(const char* const* names, nb_tensor* const* tensors, int64_t n,
                                const char* const* meta_keys, const char* const* meta_values, int64_t n_meta,
                                void* buf, int64_t cap, int64_t* needed) {
    static const char* op = "nb_save_buffer";
    NB_CHECK_OUT(op, needed);
    save_args a = {names, tensors, n, meta_keys, meta_values, n_meta};
    text h = {0};
    int64_t data_size = 0;
    nb_status st = build_header(op, &a, &h, &data_size);
    int64_t total = 8 + (int64_t)h.n + data_size;
    if (st == NB_OK && buf != NULL && cap < total)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: the buffer has %lld bytes; the file needs %lld", op,
                      (long long)cap, (long long)total);
    if (st == NB_OK && buf != NULL) {
        unsigned char* p = buf;
        le64_put(p, h.n);
        memcpy(p + 8, h.s, h.n);
        int64_t offset = 8 + (int64_t)h.n;
        for (int64_t i = 0; i < n && st == NB_OK; i++) {
            int64_t nbytes = tensors[i]->numel * nb_dtype_sizes[tensors[i]->dtype];
            st = nb_tensor_copy_to_host(tensors[i], p + offset, nbytes);
            offset += nbytes;
        }
    }
    free(h.s);
    if (st == NB_OK) *needed = total;
    return st;
}

static bool write_all(int fd, const void* src, int64_t n) {
    const char* p = src;
    while (n > 0) {
        ssize_t put = write(fd, p, (size_t)(n < ((int64_t)1 << 30) ? n : ((int64_t)1 << 30)));
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return false;
        p += put, n -= put;
    }
    return true;
}

/* Writes one tensor's bytes: straight from a contiguous CPU tensor, else through a host copy. */
static nb_status write_tensor(const char* op, int fd, const nb_tensor* t, const char* name, const char* path) {
    int64_t nbytes = t->numel * nb_dtype_sizes[t->dtype];
    if (nbytes == 0) return NB_OK;
    void* staged = NULL;
    const void* src = nb_tensor_data(t);
    if (t->storage->device_type != NB_CPU || !t->contiguous) {
        if ((staged = malloc((size_t)nbytes)) == NULL)
            return nb_error(NB_ERR_OUT_OF_MEMORY, "%s: out of memory staging tensor '%s' (%lld bytes)", op, name,
                            (long long)nbytes);
        nb_status st = nb_tensor_copy_to_host(t, staged, nbytes);
        if (st != NB_OK) {
            free(staged);
            return st;
        }
        src = staged;
    }
    bool ok = write_all(fd, src, nbytes);
    free(staged);
    return ok ? NB_OK : nb_error(NB_ERR_INVALID_ARGUMENT, "%s: writing tensor '%s' to '%s' failed: %s", op, name,
                                 path, strerror(errno));
}

NB_API nb_status nb_save(const char* path, const char* const* names, nb_tensor* const* tensors, int64_t n,
                         const char* const* meta_keys, const char* const* meta_values, int64_t n_meta) {
    static const char* op = "nb_save";
    if (path == NULL) return nb_error(NB_ERR_INVALID_ARGUMENT, "%s: path is NULL", op);
    save_args a = {names, tensors, n, meta_keys, meta_values, n_meta};
    text h = {0};
    int64_t data_size = 0;
    nb_status st = build_header(op, &a, &h, &data_size);
    if (st != NB_OK) {
        free(h.s);
        return st;
    }
    char* tmp = dup_source("%s.tmpXXXXXX", path);
    int fd = tmp != NULL ? mkstemp(tmp) : -1;
    if (fd < 0) {
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: cannot create a temporary file beside '%s': %s", op, path,
                      tmp != NULL ? strerror(errno) : "out of memory");
        free(tmp);
        free(h.s);
        return st;
    }
    unsigned char len[8];
    le64_put(len, h.n);
    if (!write_all(fd, len, 8) || !write_all(fd, h.s, (int64_t)h.n))
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: writing '%s' failed: %s", op, path, strerror(errno));
    for (int64_t i = 0; i < n && st == NB_OK; i++) st = write_tensor(op, fd, tensors[i], names[i], path);
    if (st == NB_OK && fsync(fd) != 0)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: flushing '%s' failed: %s", op, path, strerror(errno));
    if (close(fd) != 0 && st == NB_OK)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: closing '%s' failed: %s", op, path, strerror(errno));
    if (st == NB_OK && rename(tmp, path) != 0)
        st = nb_error(NB_ERR_INVALID_ARGUMENT, "%s: renaming the temporary file to '%s' failed: %s", op, path,
                      strerror(errno));
    if (st != NB_OK) unlink(tmp);
    free(tmp);
    free(h.s);
    return st;
}
