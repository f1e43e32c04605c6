/* fuzz_dlpack.c: DLPack import of random capsules (versioned and legacy) and
 * export/import round trips. A capsule's memory is a malloc'd block just large
 * enough for the layout it describes, so ASan sees any read past it. */
#include "fuzz.h"

#include <nabla/dlpack.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
    DLManagedTensorVersioned v;  /* first: the deleter gets this pointer back */
    DLManagedTensor legacy;
    int is_legacy;
    int64_t shape[NB_MAX_DIMS + 4];
    int64_t strides[NB_MAX_DIMS + 4];
    void* buf;
} fz_capsule;

static int64_t capsules_alive;

static void release_capsule(fz_capsule* c) {
    free(c->buf);
    free(c);
    capsules_alive--;
}

static void deleter_v(DLManagedTensorVersioned* self) { release_capsule((fz_capsule*)self->manager_ctx); }
static void deleter_l(DLManagedTensor* self) { release_capsule((fz_capsule*)self->manager_ctx); }

static DLDataType dl_dtype(int32_t dt) {
    static const DLDataType map[] = {{kDLFloat, 32, 1}, {kDLFloat, 64, 1}, {kDLFloat, 16, 1}, {kDLBfloat, 16, 1},
                                     {kDLInt, 8, 1},    {kDLInt, 16, 1},   {kDLInt, 32, 1},   {kDLInt, 64, 1},
                                     {kDLUInt, 8, 1},   {kDLBool, 8, 1}};
    return map[dt];
}

/* A capsule over fresh memory; *must_refuse says whether its layout is one the
 * importer has to reject (negative stride, an extent that overflows int64). */
static fz_capsule* make_capsule(int* must_refuse) {
    fz_capsule* c = calloc(1, sizeof *c);
    c->v.version.major = 1;
    int32_t dt = fz_dtype();
    int64_t es = nb_dtype_size(dt);
    int ndim = fz_shape(c->shape);
    int64_t stride = 1;
    for (int d = ndim - 1; d >= 0; d--) {  /* row-major, sometimes with gaps or broadcast zeros */
        c->strides[d] = fz_chance(10) ? 0 : stride * (fz_chance(20) ? 2 : 1);
        stride = (c->strides[d] ? c->strides[d] : 1) * (c->shape[d] ? c->shape[d] : 1);
    }
    if (ndim >= 2 && fz_chance(25)) {  /* a transposed layout */
        int64_t s = c->strides[0]; c->strides[0] = c->strides[1]; c->strides[1] = s;
    }
    uint64_t byte_offset = fz_chance(70) ? 0 : (uint64_t)(es * fz_below(4));
    *must_refuse = 0;
    if (!fz_excluded(FZ_X_DLPACK_LAYOUT) && ndim > 0 && fz_chance(30)) {
        int d = (int)fz_below(ndim);
        switch (fz_below(4)) {
        case 0: c->strides[d] = -1 - fz_below(3); break;
        case 1: c->strides[d] = (int64_t)1 << 62; c->shape[d] = 3 + fz_below(3); break;
        case 2: c->shape[d] = (int64_t)1 << 61; c->strides[d] = 8 + fz_below(8); break;  /* overflows */
        default: byte_offset = fz_chance(50) ? UINT64_MAX - (uint64_t)fz_below(8) : (uint64_t)1 << 63; break;
        }
    }
    /* The extent in bytes, computed wide; negative strides or an overflow must be refused. */
    __int128 last = 0;
    int empty = 0;
    for (int d = 0; d < ndim; d++) {
        if (c->shape[d] == 0) empty = 1;
        if (c->strides[d] < 0 && c->shape[d] > 1) *must_refuse = 1;
        if (c->shape[d] > 0) last += (__int128)(c->shape[d] - 1) * c->strides[d];
    }
    __int128 bytes = empty ? 0 : (last + 1) * es + (__int128)byte_offset;
    if (bytes > INT64_MAX || (__int128)byte_offset > INT64_MAX) *must_refuse = 1;
    if (!*must_refuse && bytes > (1 << 24)) {  /* valid but too large to back with memory: a scalar instead */
        ndim = 0;
        bytes = es + (__int128)byte_offset;
    }
    size_t alloc = *must_refuse || bytes <= 0 ? 8 : (size_t)bytes;
    c->buf = malloc(alloc);
    memset(c->buf, 0, alloc);
    DLTensor* t = &c->v.dl_tensor;
    t->data = c->buf;
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->ndim = ndim;
    t->dtype = dl_dtype(dt);
    t->shape = c->shape;
    t->strides = fz_chance(20) && !*must_refuse ? NULL : c->strides;
    if (t->strides == NULL && !empty) {  /* row-major then: make sure the buffer covers it */
        int64_t n = 1;
        for (int d = 0; d < ndim; d++) n *= c->shape[d];
        if ((size_t)(n * es) + byte_offset > alloc) t->strides = c->strides;
    }
    t->byte_offset = byte_offset;
    if (fz_chance(10)) {  /* invalid fields every importer checks */
        *must_refuse = 1;
        switch (fz_below(7)) {
        case 0: t->ndim = fz_chance(50) ? -1 : NB_MAX_DIMS + 1 + (int32_t)fz_below(1000); break;
        case 1: t->dtype.lanes = 2 + (uint16_t)fz_below(4); break;
        case 2: t->dtype.bits = (uint8_t)(fz_chance(50) ? 7 : 128); break;
        case 3: t->dtype.code = (uint8_t)(kDLOpaqueHandle + 2 * fz_below(8)); t->dtype.code |= 1; break;
        case 4: t->device.device_type = (DLDeviceType)(fz_chance(50) ? 0 : 99); break;
        case 5: if (ndim > 0) { t->shape = NULL; } else { *must_refuse = 0; } break;
        default: c->v.version.major = fz_chance(50) ? 0 : 2; break;
        }
    }
    c->v.version.minor = (uint32_t)fz_below(3);
    c->v.manager_ctx = c;
    c->v.deleter = deleter_v;
    c->v.flags = fz_chance(20) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    c->legacy.dl_tensor = *t;
    c->legacy.manager_ctx = c;
    c->legacy.deleter = deleter_l;
    capsules_alive++;
    return c;
}

static void import_random_capsule(void) {
    int must_refuse = 0;
    fz_capsule* c = make_capsule(&must_refuse);
    c->is_legacy = c->v.version.major == 1 && fz_chance(30);
    if (c->is_legacy) c->legacy.dl_tensor = c->v.dl_tensor;
    nb_tensor* t = NULL;
    nb_status st;
    if (c->is_legacy) {
        fz_current = "nb_tensor_from_dlpack";
        st = nb_tensor_from_dlpack(&c->legacy, &t);
    } else {
        fz_current = "nb_tensor_from_dlpack_versioned";
        st = nb_tensor_from_dlpack_versioned(&c->v, &t);
    }
    fz_check_status(fz_current, st);
    if (st != NB_OK) {
        if (t != NULL) fz_violation(fz_current, "failed (%d) but wrote *out", st);
        release_capsule(c);  /* on failure the caller keeps the capsule */
        return;
    }
    if (must_refuse) {
        const DLTensor* d = &c->v.dl_tensor;
        fz_violation(fz_current, "accepted a capsule it must refuse (ndim %d, dtype %u/%u/%u, byte_offset %llu, "
                     "shape[0] %lld, strides[0] %lld)", d->ndim, d->dtype.code, d->dtype.bits, d->dtype.lanes,
                     (unsigned long long)d->byte_offset, d->ndim > 0 && d->shape ? (long long)d->shape[0] : 0LL,
                     d->ndim > 0 && d->strides ? (long long)d->strides[0] : 0LL);
        nb_tensor_release(t);  /* not read: its layout lies outside the buffer */
        return;
    }
    fz_touch(fz_current, t);
    fz_keep(t);
}

/* Export a pool tensor and import it back, or drop the capsule through its deleter. */
static void round_trip(void) {
    nb_tensor* src = fz_pick();
    if (src == NULL) return;
    void* cap = NULL;
    int legacy = fz_chance(30);
    int32_t copy = (int32_t)fz_below(3) - 1;
    fz_current = legacy ? "nb_tensor_to_dlpack" : "nb_tensor_to_dlpack_versioned";
    nb_status st = legacy ? nb_tensor_to_dlpack(src, -1, 0, copy, &cap)
                          : nb_tensor_to_dlpack_versioned(src, -1, 0, copy, &cap);
    fz_check_status(fz_current, st);
    if (st != NB_OK) return;
    if (fz_chance(30)) {
        if (legacy) ((DLManagedTensor*)cap)->deleter((DLManagedTensor*)cap);
        else ((DLManagedTensorVersioned*)cap)->deleter((DLManagedTensorVersioned*)cap);
        return;
    }
    nb_tensor* t = NULL;
    fz_current = legacy ? "nb_tensor_from_dlpack" : "nb_tensor_from_dlpack_versioned";
    st = legacy ? nb_tensor_from_dlpack(cap, &t) : nb_tensor_from_dlpack_versioned(cap, &t);
    fz_check_status(fz_current, st);
    if (st != NB_OK) {
        if (legacy) ((DLManagedTensor*)cap)->deleter((DLManagedTensor*)cap);
        else ((DLManagedTensorVersioned*)cap)->deleter((DLManagedTensorVersioned*)cap);
        return;
    }
    fz_touch(fz_current, t);
    fz_keep(t);
}

void fz_dlpack_step(void) {
    if (fz_chance(60)) import_random_capsule();
    else round_trip();
}

int64_t fz_capsules_alive(void) { return capsules_alive; }
