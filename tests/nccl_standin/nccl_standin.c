/* nccl_standin.c: a test-only stand-in for libnccl.so.2 on nabla's emulated CUDA device, where
 * "device" memory is host memory of each process. It exports the part of NCCL's API nabla loads
 * and runs each call in stream order: the call is queued on the emulated stream (through the
 * emulated plugin's nbemu_launch_host_func hook) and runs there when the stream reaches it.
 *
 * Ranks exchange data through POSIX shared memory: every message is its own object, named from
 * the unique id, the sender, the receiver and a per-pair sequence number taken when the call is
 * queued (NCCL requires every rank to issue a communicator's calls in the same order, so the
 * numbers agree). Sends never wait (the object is the buffer); receives poll until the object is
 * complete, then unlink it. Collectives are sends to every peer that needs the data, then the
 * receives, reduced in rank order so that every rank gets bit-identical results.
 *
 * Never installed; point nabla at it with NABLA_NCCL_LIBRARY. Environment:
 * NABLA_NCCL_STANDIN_TIMEOUT (seconds a receive waits, 120 by default; then the communicator's
 * asynchronous error is ncclRemoteError). A receive whose peer never sends is how a hang looks:
 * ncclCommAbort ends it at once, as NCCL's abort does on a GPU. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3,
               ncclInvalidArgument = 4, ncclInvalidUsage = 5, ncclRemoteError = 6, ncclInProgress = 7 } ncclResult_t;
typedef enum { ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
               ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9, ncclNumTypes = 10 } ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4, ncclNumOps = 5 } ncclRedOp_t;
typedef struct { char internal[128]; } ncclUniqueId;

typedef struct ncclComm {
    char name[40];            /* "/nbnccl-<16 hex digits of the id>" */
    int rank, nranks;
    uint64_t* send_seq;       /* next message number to each peer */
    uint64_t* recv_seq;       /* next message number from each peer */
    atomic_int async_error;   /* set by a failed queued call */
    atomic_int aborted;       /* ncclCommAbort: pending and queued calls return at once */
    atomic_int refs;          /* the handle + queued calls */
} *ncclComm_t;

/* ---- element types and reductions ---- */

static size_t type_size(int t) {
    static const size_t sizes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
    return t >= 0 && t < ncclNumTypes ? sizes[t] : 0;
}

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023, bits;
    if (exp == 31) bits = sign | 0x7f800000u | (man << 13);
    else if (exp != 0) bits = sign | ((exp + 112) << 23) | (man << 13);
    else if (man == 0) bits = sign;
    else {  /* subnormal: normalise */
        int e = -1;
        do { e++, man <<= 1; } while (!(man & 1024));
        bits = sign | ((uint32_t)(112 - e) << 23) | ((man & 1023) << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_half(float f) {  /* round to nearest even */
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0);
    if (ax >= 0x477ff000u) return sign | 0x7c00;  /* rounds past the largest half */
    if (ax < 0x38800000u) {                       /* subnormal or zero */
        float a;
        memcpy(&a, &ax, 4);
        return sign | (uint16_t)lrintf(a * 16777216.0f);  /* 2^24 */
    }
    uint32_t m = ax + 0xc8000fffu + ((ax >> 13) & 1);  /* rebias the exponent and round */
    return sign | (uint16_t)(m >> 13);
}

static float bf16_to_float(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

#define COMBINE(a, b, op) ((op) == ncclProd ? (a) * (b) : (op) == ncclMax ? ((a) > (b) ? (a) : (b)) \
                           : (op) == ncclMin ? ((a) < (b) ? (a) : (b)) : (a) + (b))
#define REDUCE_INT(T)                                                      \
    do {                                                                   \
        T* a = acc;                                                        \
        const T* b = in;                                                   \
        for (size_t i = 0; i < n; i++) a[i] = (T)COMBINE(a[i], b[i], op);  \
    } while (0)
#define REDUCE_16(to_f, from_f)                                                            \
    do {                                                                                   \
        uint16_t* a = acc;                                                                 \
        const uint16_t* b = in;                                                            \
        for (size_t i = 0; i < n; i++) {                                                   \
            float x = to_f(a[i]), y = to_f(b[i]);                                          \
            a[i] = from_f(op == ncclMax ? fmaxf(x, y) : op == ncclMin ? fminf(x, y) : COMBINE(x, y, op)); \
        }                                                                                  \
    } while (0)

/* acc[i] = acc[i] op in[i] for n elements (ncclAvg sums; the division comes last). */
static void reduce_into(void* acc, const void* in, size_t n, int type, int op) {
    switch (type) {
    case ncclInt8: REDUCE_INT(int8_t); break;
    case ncclUint8: REDUCE_INT(uint8_t); break;
    case ncclInt32: REDUCE_INT(int32_t); break;
    case ncclUint32: REDUCE_INT(uint32_t); break;
    case ncclInt64: REDUCE_INT(int64_t); break;
    case ncclUint64: REDUCE_INT(uint64_t); break;
    case ncclFloat32: REDUCE_INT(float); break;
    case ncclFloat64: REDUCE_INT(double); break;
    case ncclFloat16: REDUCE_16(half_to_float, float_to_half); break;
    case ncclBfloat16: REDUCE_16(bf16_to_float, float_to_bf16); break;
    }
}

static void divide(void* acc, size_t n, int type, int by) {
    for (size_t i = 0; i < n; i++) {
        switch (type) {
        case ncclFloat32: ((float*)acc)[i] /= (float)by; break;
        case ncclFloat64: ((double*)acc)[i] /= by; break;
        case ncclFloat16: ((uint16_t*)acc)[i] = float_to_half(half_to_float(((uint16_t*)acc)[i]) / (float)by); break;
        case ncclBfloat16: ((uint16_t*)acc)[i] = float_to_bf16(bf16_to_float(((uint16_t*)acc)[i]) / (float)by); break;
        case ncclInt8: ((int8_t*)acc)[i] /= by; break;
        case ncclUint8: ((uint8_t*)acc)[i] /= by; break;
        case ncclInt32: ((int32_t*)acc)[i] /= by; break;
        case ncclUint32: ((uint32_t*)acc)[i] /= (uint32_t)by; break;
        case ncclInt64: ((int64_t*)acc)[i] /= by; break;
        case ncclUint64: ((uint64_t*)acc)[i] /= (uint64_t)by; break;
        }
    }
}

/* ---- messages through shared memory ---- */

typedef struct { atomic_int ready; int pad; uint64_t bytes; } msg_header;
#define HEADER 64

static void msg_name(char* out, size_t cap, const struct ncclComm* c, int src, int dst, uint64_t seq) {
    snprintf(out, cap, "%s-%d-%d-%llu", c->name, src, dst, (unsigned long long)seq);
}

static ncclResult_t msg_send(struct ncclComm* c, const void* buf, size_t bytes, int dst, uint64_t seq) {
    char name[96];
    msg_name(name, sizeof name, c, c->rank, dst, seq);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return ncclSystemError;
    ncclResult_t rc = ncclSuccess;
    void* p = MAP_FAILED;
    if (ftruncate(fd, (off_t)(HEADER + bytes)) != 0 ||
        (p = mmap(NULL, HEADER + bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        rc = ncclSystemError;
        shm_unlink(name);
    } else {
        msg_header* h = p;
        h->bytes = bytes;
        memcpy((char*)p + HEADER, buf, bytes);
        atomic_store_explicit(&h->ready, 1, memory_order_release);
        munmap(p, HEADER + bytes);
    }
    close(fd);
    return rc;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double timeout_s(void) {
    const char* v = getenv("NABLA_NCCL_STANDIN_TIMEOUT");
    return v != NULL && atof(v) > 0 ? atof(v) : 120.0;
}

/* Waits for message seq from src and copies its bytes (which must be `bytes`) into buf. */
static ncclResult_t msg_recv(struct ncclComm* c, void* buf, size_t bytes, int src, uint64_t seq) {
    char name[96];
    msg_name(name, sizeof name, c, src, c->rank, seq);
    const double deadline = now_s() + timeout_s();
    for (long spins = 0;; spins++) {
        int fd = shm_open(name, O_RDWR, 0600);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= HEADER) {
            void* p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (p == MAP_FAILED) return ncclSystemError;
            msg_header* h = p;
            if (atomic_load_explicit(&h->ready, memory_order_acquire)) {
                ncclResult_t rc = h->bytes == bytes ? ncclSuccess : ncclInvalidUsage;  /* sizes disagree */
                if (rc == ncclSuccess) memcpy(buf, (char*)p + HEADER, bytes);
                munmap(p, (size_t)st.st_size);
                shm_unlink(name);
                return rc;
            }
            munmap(p, (size_t)st.st_size);
        } else if (fd >= 0) {
            close(fd);
        }
        if (now_s() > deadline || atomic_load(&c->aborted)) return ncclRemoteError;
        struct timespec pause = {0, spins < 100 ? 20000 : 500000};
        nanosleep(&pause, NULL);
    }
}

/* ---- queued calls ---- */

enum { K_ALL_REDUCE, K_BROADCAST, K_REDUCE, K_ALL_GATHER, K_REDUCE_SCATTER, K_SEND, K_RECV };

typedef struct call {
    int kind, type, op, root, peer;
    const void* send;
    void* recv;
    size_t count;               /* elements: of each rank's piece for gathers and scatters */
    struct ncclComm* comm;
    uint64_t* send_seq;         /* the number of this call's message to each rank (or -1) */
    uint64_t* recv_seq;         /* the number of this call's message from each rank (or -1) */
    void* scratch;              /* the other ranks' pieces, one after the other */
    struct call* next;
} call;

/* Unlinks the messages to this rank it never received (a failed call, or a peer's call this rank never
 * made, leaves them); the communicator is gone, so no call of this rank waits for them. */
static void unlink_leftovers(const struct ncclComm* c) {
    DIR* d = opendir("/dev/shm");
    if (d == NULL) return;
    const size_t prefix = strlen(c->name + 1);
    for (struct dirent* e; (e = readdir(d)) != NULL;) {
        const char* rest = e->d_name + prefix;
        int src = 0, dst = -1, used = 0;
        if (strncmp(e->d_name, c->name + 1, prefix) != 0 || sscanf(rest, "-%d-%d-%*u%n", &src, &dst, &used) < 2 ||
            dst != c->rank || rest[used] != '\0')
            continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        shm_unlink(name);
    }
    closedir(d);
}

static void comm_unref(struct ncclComm* c) {
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        unlink_leftovers(c);
        free(c->send_seq), free(c->recv_seq);
        free(c);
    }
}

static void call_free(call* k) {
    while (k != NULL) {
        call* next = k->next;
        comm_unref(k->comm);
        free(k->send_seq), free(k->recv_seq), free(k->scratch);
        free(k);
        k = next;
    }
}

/* Which ranks this call sends to and receives from; numbers its messages (host order). */
static void plan(call* k) {
    struct ncclComm* c = k->comm;
    const int me = c->rank, n = c->nranks;
    for (int r = 0; r < n; r++) {
        bool to = false, from = false;
        switch (k->kind) {
        case K_ALL_REDUCE: case K_ALL_GATHER: case K_REDUCE_SCATTER: to = from = r != me; break;
        case K_BROADCAST: to = me == k->root && r != me, from = r == k->root && r != me; break;
        case K_REDUCE: to = r == k->root && r != me, from = me == k->root && r != me; break;
        case K_SEND: to = r == k->peer; break;
        case K_RECV: from = r == k->peer; break;
        }
        k->send_seq[r] = to ? c->send_seq[r]++ : UINT64_MAX;
        k->recv_seq[r] = from ? c->recv_seq[r]++ : UINT64_MAX;
    }
}

/* The bytes this call moves in one message. */
static size_t piece_bytes(const call* k) { return k->count * type_size(k->type); }

/* Phase 1: the messages out (never waits). */
static ncclResult_t run_sends(call* k) {
    struct ncclComm* c = k->comm;
    const size_t b = piece_bytes(k);
    ncclResult_t rc = ncclSuccess;
    for (int r = 0; rc == ncclSuccess && r < c->nranks; r++) {
        if (k->send_seq[r] == UINT64_MAX) continue;
        const char* src = k->kind == K_REDUCE_SCATTER ? (const char*)k->send + (size_t)r * b : k->send;
        rc = msg_send(c, src, b, r, k->send_seq[r]);
    }
    return rc;
}

/* Phase 2: the messages in, and the result. */
static ncclResult_t run_recvs(call* k) {
    struct ncclComm* c = k->comm;
    const int me = c->rank, n = c->nranks;
    const size_t b = piece_bytes(k);
    ncclResult_t rc = ncclSuccess;
    char* scratch = k->scratch;
    for (int r = 0; rc != ncclRemoteError && r < n; r++) {  /* after a bad message, still take the others */
        if (k->recv_seq[r] == UINT64_MAX) continue;
        char* into = k->kind == K_ALL_GATHER ? (char*)k->recv + (size_t)r * b
                     : k->kind == K_RECV || k->kind == K_BROADCAST ? k->recv : scratch + (size_t)r * b;
        ncclResult_t got = msg_recv(c, into, b, r, k->recv_seq[r]);
        if (rc == ncclSuccess) rc = got;
    }
    if (rc != ncclSuccess) return rc;
    const char* mine = k->kind == K_REDUCE_SCATTER ? (const char*)k->send + (size_t)me * b : k->send;
    switch (k->kind) {
    case K_BROADCAST: case K_ALL_GATHER:
        if (k->kind == K_ALL_GATHER || me == k->root) {
            char* dst = k->kind == K_ALL_GATHER ? (char*)k->recv + (size_t)me * b : k->recv;
            if (dst != mine) memmove(dst, mine, b);
        }
        break;
    case K_ALL_REDUCE: case K_REDUCE: case K_REDUCE_SCATTER:
        if (k->kind == K_REDUCE && me != k->root) break;
        memcpy(scratch + (size_t)me * b, mine, b);  /* every piece in rank order, then one reduction */
        for (int r = 1; r < n; r++) reduce_into(scratch, scratch + (size_t)r * b, k->count, k->type, k->op);
        if (k->op == ncclAvg) divide(scratch, k->count, k->type, n);
        memcpy(k->recv, scratch, b);
        break;
    }
    return rc;
}

/* Runs a list of calls on the stream: every send first, so a group's receives cannot wait on it. */
static void run_calls(void* data) {
    call* head = data;
    ncclResult_t rc = atomic_load(&head->comm->aborted) ? ncclRemoteError : ncclSuccess;
    for (call* k = head; rc == ncclSuccess && k != NULL; k = k->next) rc = run_sends(k);
    for (call* k = head; rc != ncclRemoteError && k != NULL; k = k->next) {
        ncclResult_t got = run_recvs(k);
        if (rc == ncclSuccess) rc = got;
    }
    if (rc != ncclSuccess) {
        int none = ncclSuccess;
        atomic_compare_exchange_strong(&head->comm->async_error, &none, (int)rc);
    }
    call_free(head);
}

/* ---- the emulated stream ---- */

typedef int (*launch_fn)(void* stream, void (*fn)(void*), void* data);

static launch_fn find_launch(void) {
    static launch_fn f;
    static atomic_int looked;
    if (atomic_load(&looked)) return f;
    const char* names[] = {"libnabla_cuda.so", getenv("NABLA_CUDA_PLUGIN")};
    for (int i = 0; f == NULL && i < 2; i++) {
        if (names[i] == NULL || names[i][0] == '\0') continue;
        void* lib = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
        if (lib != NULL) f = (launch_fn)dlsym(lib, "nbemu_launch_host_func");
    }
    atomic_store(&looked, 1);
    return f;
}

static _Thread_local int group_depth;
static _Thread_local call* group_head;
static _Thread_local call* group_tail;
static _Thread_local void* group_stream;

static ncclResult_t launch(call* head, void* stream) {
    launch_fn f = find_launch();
    if (f == NULL) {
        call_free(head);
        return ncclUnhandledCudaError;  /* not on nabla's emulated device */
    }
    if (f(stream, run_calls, head) != 0) {
        call_free(head);
        return ncclUnhandledCudaError;
    }
    return ncclSuccess;
}

static ncclResult_t submit(int kind, const void* send, void* recv, size_t count, int type, int op, int root, int peer,
                           struct ncclComm* c, void* stream) {
    if (c == NULL) return ncclInvalidArgument;
    if (type_size(type) == 0 || op < 0 || op >= ncclNumOps) return ncclInvalidArgument;
    if ((kind == K_BROADCAST || kind == K_REDUCE) && (root < 0 || root >= c->nranks)) return ncclInvalidArgument;
    if ((kind == K_SEND || kind == K_RECV) && (peer < 0 || peer >= c->nranks)) return ncclInvalidArgument;
    if (count == 0) return ncclSuccess;
    call* k = calloc(1, sizeof *k);
    const size_t n = (size_t)c->nranks;
    if (k != NULL) {
        k->send_seq = malloc(n * sizeof(uint64_t));
        k->recv_seq = malloc(n * sizeof(uint64_t));
        if (kind == K_ALL_REDUCE || kind == K_REDUCE || kind == K_REDUCE_SCATTER)
            k->scratch = malloc(n * count * type_size(type));
    }
    if (k == NULL || k->send_seq == NULL || k->recv_seq == NULL ||
        ((kind == K_ALL_REDUCE || kind == K_REDUCE || kind == K_REDUCE_SCATTER) && k->scratch == NULL)) {
        if (k) free(k->send_seq), free(k->recv_seq), free(k->scratch);
        free(k);
        return ncclSystemError;
    }
    k->kind = kind, k->type = type, k->op = op, k->root = root, k->peer = peer;
    k->send = send, k->recv = recv, k->count = count, k->comm = c;
    atomic_fetch_add(&c->refs, 1);
    plan(k);
    if (group_depth == 0) return launch(k, stream);
    if (group_head == NULL) group_head = k, group_stream = stream;
    else group_tail->next = k;
    group_tail = k;
    return ncclSuccess;
}

/* ---- the API ---- */

EXPORT ncclResult_t ncclGetVersion(int* version) {
    if (version == NULL) return ncclInvalidArgument;
    *version = 22703;
    return ncclSuccess;
}

EXPORT const char* ncclGetErrorString(ncclResult_t rc) {
    switch (rc) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (the NCCL stand-in runs only on nabla's emulated device)";
    case ncclSystemError: return "unhandled system error (shared memory)";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage (the ranks disagree on a message's size)";
    case ncclRemoteError: return "remote process exited or there was a network error (stand-in receive timed out)";
    case ncclInProgress: return "NCCL operation in progress";
    }
    return "unknown result code";
}

EXPORT const char* ncclGetLastError(ncclComm_t comm) {
    (void)comm;
    return "";
}

EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
    if (id == NULL) return ncclInvalidArgument;
    memset(id, 0, sizeof *id);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t v = ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec;
    v = v * 0x9e3779b97f4a7c15ull + 1;
    snprintf(id->internal, sizeof id->internal, "%016llx", (unsigned long long)v);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommInitRank(ncclComm_t* out, int nranks, ncclUniqueId id, int rank) {
    if (out == NULL || nranks < 1 || rank < 0 || rank >= nranks || id.internal[0] == '\0') return ncclInvalidArgument;
    struct ncclComm* c = calloc(1, sizeof *c);
    if (c == NULL) return ncclSystemError;
    c->send_seq = calloc((size_t)nranks, sizeof(uint64_t));
    c->recv_seq = calloc((size_t)nranks, sizeof(uint64_t));
    if (c->send_seq == NULL || c->recv_seq == NULL) {
        free(c->send_seq), free(c->recv_seq), free(c);
        return ncclSystemError;
    }
    snprintf(c->name, sizeof c->name, "/nbnccl-%.16s", id.internal);
    c->rank = rank, c->nranks = nranks;
    atomic_init(&c->async_error, ncclSuccess);
    atomic_init(&c->aborted, 0);
    atomic_init(&c->refs, 1);
    *out = c;
    return ncclSuccess;
}

/* The handle goes; calls still queued keep the communicator until they ran. */
EXPORT ncclResult_t ncclCommDestroy(ncclComm_t c) {
    if (c == NULL) return ncclInvalidArgument;
    comm_unref(c);
    return ncclSuccess;
}

/* As NCCL's: a receive waiting on the device (a peer that never sends) returns, and so do the calls queued
 * behind it, so the stream moves on. */
EXPORT ncclResult_t ncclCommAbort(ncclComm_t c) {
    if (c == NULL) return ncclInvalidArgument;
    atomic_store(&c->aborted, 1);
    return ncclCommDestroy(c);
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t* error) {
    if (c == NULL || error == NULL) return ncclInvalidArgument;
    *error = (ncclResult_t)atomic_load(&c->async_error);
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t c, int* count) {
    if (c == NULL || count == NULL) return ncclInvalidArgument;
    *count = c->nranks;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t c, int* rank) {
    if (c == NULL || rank == NULL) return ncclInvalidArgument;
    *rank = c->rank;
    return ncclSuccess;
}

EXPORT ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                                  ncclComm_t c, void* stream) {
    return submit(K_ALL_REDUCE, send, recv, count, type, op, 0, 0, c, stream);
}

EXPORT ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                                  ncclComm_t c, void* stream) {
    return submit(K_BROADCAST, send, recv, count, type, ncclSum, root, 0, c, stream);
}

EXPORT ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                               int root, ncclComm_t c, void* stream) {
    return submit(K_REDUCE, send, recv, count, type, op, root, 0, c, stream);
}

EXPORT ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t c,
                                  void* stream) {
    return submit(K_ALL_GATHER, send, recv, count, type, ncclSum, 0, 0, c, stream);
}

EXPORT ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t type,
                                      ncclRedOp_t op, ncclComm_t c, void* stream) {
    return submit(K_REDUCE_SCATTER, send, recv, count, type, op, 0, 0, c, stream);
}

EXPORT ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t type, int peer, ncclComm_t c,
                             void* stream) {
    return submit(K_SEND, send, NULL, count, type, ncclSum, 0, peer, c, stream);
}

EXPORT ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t type, int peer, ncclComm_t c, void* stream) {
    return submit(K_RECV, NULL, recv, count, type, ncclSum, 0, peer, c, stream);
}

EXPORT ncclResult_t ncclGroupStart(void) {
    group_depth++;
    return ncclSuccess;
}

/* The outermost end queues the group's calls as one item on the first call's stream. */
EXPORT ncclResult_t ncclGroupEnd(void) {
    if (group_depth == 0) return ncclInvalidUsage;
    if (--group_depth > 0) return ncclSuccess;
    call* head = group_head;
    void* stream = group_stream;
    group_head = group_tail = NULL;
    return head == NULL ? ncclSuccess : launch(head, stream);
}
