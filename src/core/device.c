/* device.c: the backend registry. CPU is built in; CUDA is the plugin
 * libnabla_cuda.so, looked up next to libnabla and loaded at first use, so the
 * core has no CUDA dependency and CPU-only machines work unchanged. */
#define _GNU_SOURCE
#include "internal.h"
#include "runtime.h"
#include "../alloc/cpu_allocator.h"
#include "../cpu/gemm.h"
#include "../cpu/kernels.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CPU backend ---- */

static nb_status cpu_alloc(int32_t device_index, int64_t nbytes, void** out) {
    (void)device_index;
    void* p = nb_cpu_alloc((size_t)nbytes);
    if (p == NULL) return NB_ERR_OUT_OF_MEMORY;
    *out = p;
    return NB_OK;
}

static void cpu_free(int32_t device_index, void* ptr, int64_t nbytes) {
    (void)device_index;
    nb_cpu_free(ptr, (size_t)nbytes);
}

static nb_status cpu_copy(void* dst, int32_t dst_type, int32_t dst_index, const void* src, int32_t src_type,
                          int32_t src_index, int64_t n) {
    (void)dst_type, (void)src_type, (void)dst_index, (void)src_index;
    nb_blocking_end_fn end = NULL;
    void* token = n >= NB_BLOCKING_WORK_BYTES ? nb_blocking_begin(&end) : NULL;
    if (n > 0) memcpy(dst, src, (size_t)n);
    if (end) end(token);
    return NB_OK;
}

static nb_status cpu_memset(void* dst, int32_t device_index, int value, int64_t n) {
    (void)device_index;
    nb_blocking_end_fn end = NULL;
    void* token = n >= NB_BLOCKING_WORK_BYTES ? nb_blocking_begin(&end) : NULL;
    if (n > 0) memset(dst, value, (size_t)n);
    if (end) end(token);
    return NB_OK;
}

static const char* cpu_last_error(void) { return "out of host memory"; }

static nb_status cpu_copy_strided(int32_t device_index, const nb_bk_copy* p, void* stream) {
    (void)device_index, (void)stream;
    nb_cpu_copy(p->dst, p->dst_strides, p->dst_dtype, p->src, p->src_strides, p->src_dtype, p->shape, p->ndim);
    return NB_OK;
}

const nb_backend nb_cpu_backend = {.name = "cpu", .alloc = cpu_alloc, .free = cpu_free, .copy = cpu_copy,
                                   .memset = cpu_memset, .last_error = cpu_last_error,
                                   .copy_strided = cpu_copy_strided, .reduce = nb_cpu_reduce,
                                   .gemm = nb_cpu_gemm_slot,
                                   .lines = nb_cpu_lines};

/* ---- kernel slots ---- */

static int32_t cuda_count(void);

static const char* const family_names[NB_NUM_FAMILIES] = {
    [NB_FAMILY_COPY] = "copy", [NB_FAMILY_ELEMENTWISE] = "elementwise", [NB_FAMILY_REDUCE] = "reduce",
    [NB_FAMILY_LINES] = "lines", [NB_FAMILY_GEMM] = "gemm", [NB_FAMILY_CONV] = "conv", [NB_FAMILY_POOL] = "pool",
    [NB_FAMILY_NORM] = "norm", [NB_FAMILY_INDEX] = "index", [NB_FAMILY_SORT] = "sort", [NB_FAMILY_RNG] = "rng",
    [NB_FAMILY_OPTIM] = "optim", [NB_FAMILY_LOSS] = "loss", [NB_FAMILY_ATTENTION] = "attention",
    [NB_FAMILY_EMBEDDING] = "embedding",
};

static bool has_slot(const nb_backend* b, int32_t family) {
    switch (family) {
        case NB_FAMILY_COPY: return b->copy_strided != NULL;
        case NB_FAMILY_ELEMENTWISE: return b->elementwise != NULL;
        case NB_FAMILY_REDUCE: return b->reduce != NULL;
        case NB_FAMILY_LINES: return b->lines != NULL;
        case NB_FAMILY_GEMM: return b->gemm != NULL;
        case NB_FAMILY_CONV: return b->conv != NULL;
        case NB_FAMILY_POOL: return b->pool != NULL;
        case NB_FAMILY_NORM: return b->norm != NULL;
        case NB_FAMILY_INDEX: return b->index != NULL;
        case NB_FAMILY_SORT: return b->sort != NULL;
        case NB_FAMILY_RNG: return b->rng != NULL;
        case NB_FAMILY_OPTIM: return b->optim != NULL;
        case NB_FAMILY_LOSS: return b->loss != NULL;
        case NB_FAMILY_ATTENTION: return b->attention != NULL;
        case NB_FAMILY_EMBEDDING: return b->embedding != NULL;
        default: return false;
    }
}

nb_status nb_not_implemented_on(const char* op, int32_t device_type, int32_t family) {
    const char* dev = nb_device_type_name(device_type);
    const char* fam = family >= 0 && family < NB_NUM_FAMILIES ? family_names[family] : "unknown";
    return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: not implemented on %s (no %s kernel)", op, dev ? dev : "?", fam);
}

nb_status nb_backend_slot(const char* op, int32_t device_type, int32_t family, const nb_backend** out) {
    const nb_backend* b = device_type == NB_CPU ? &nb_cpu_backend
                        : device_type == NB_CUDA && cuda_count() > 0 ? &nb_cuda_storage_backend : NULL;
    if (NB_UNLIKELY(b == NULL || !has_slot(b, family))) return nb_not_implemented_on(op, device_type, family);
    *out = b;
    return NB_OK;
}

/* ---- CUDA plugin ---- */

static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;
static nb_backend cuda_plugin;  /* the plugin's table; storages use nb_cuda_storage_backend */
static int32_t cuda_device_count;
static char cuda_reason[512];

/* The plugin next to libnabla, or the one NABLA_CUDA_PLUGIN names (how CI loads the
 * emulated plugin, built with -Demulate_cuda=true, into an installed nabla). */
static void cuda_load(void) {
    Dl_info info;
    char path[4096];
    const char* forced = getenv("NABLA_CUDA_PLUGIN");
    if (forced != NULL && forced[0] != '\0') {
        snprintf(path, sizeof path, "%s", forced);
    } else {
        if (dladdr((void*)&cuda_load, &info) == 0 || info.dli_fname == NULL) {
            snprintf(cuda_reason, sizeof cuda_reason, "cannot locate libnabla to find the CUDA plugin");
            return;
        }
        const char* slash = strrchr(info.dli_fname, '/');
        int dir_len = slash ? (int)(slash - info.dli_fname) : 1;
        snprintf(path, sizeof path, "%.*s/libnabla_cuda.so", dir_len, slash ? info.dli_fname : ".");
    }
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(cuda_reason, sizeof cuda_reason,
                 "the CUDA plugin could not be loaded (nabla was built without CUDA, or %.200s is missing): %.200s",
                 path, dlerror());
        return;
    }
    nb_plugin_init_fn init = (nb_plugin_init_fn)dlsym(handle, "nb_plugin_init");
    if (init == NULL) {
        snprintf(cuda_reason, sizeof cuda_reason, "%.400s has no nb_plugin_init symbol", path);
        dlclose(handle);
        return;
    }
    int32_t count = 0;
    if (init(NB_PLUGIN_ABI, &cuda_plugin, &count, cuda_reason, sizeof cuda_reason) != NB_OK) {
        cuda_device_count = 0;
        return;  /* the plugin stays loaded: its code may be referenced by the reason */
    }
    nb_cuda_memory_init(&cuda_plugin);
    cuda_device_count = count;
    if (count == 0) snprintf(cuda_reason, sizeof cuda_reason, "no CUDA device found");
}

static int32_t cuda_count(void) {
    pthread_once(&cuda_once, cuda_load);
    return cuda_device_count;
}

const nb_backend* nb_backend_of(int32_t device_type) {
    return device_type == NB_CUDA ? &nb_cuda_storage_backend : &nb_cpu_backend;
}

const nb_backend* nb_cuda_plugin(void) { return cuda_count() > 0 ? &cuda_plugin : NULL; }

nb_status nb_device_resolve(const char* op, int32_t device_type, int32_t* device_index,
                            const nb_backend** out) {
    if (NB_LIKELY(device_type == NB_CPU)) {
        if (*device_index != 0 && *device_index != -1)
            return nb_error(NB_ERR_DEVICE, "%s: cpu device index must be 0 or -1, got %d", op,
                            (int)*device_index);
        *device_index = 0;
        *out = &nb_cpu_backend;
        return NB_OK;
    }
    if (device_type == NB_CUDA) {
        int32_t count = cuda_count();
        if (count == 0) return nb_error(NB_ERR_DEVICE, "%s: CUDA is not available: %s", op, cuda_reason);
        if (*device_index == -1) nb_device_current(NB_CUDA, device_index);
        if (*device_index < 0 || *device_index >= count)
            return nb_error(NB_ERR_DEVICE, "%s: invalid CUDA device index %d (%d device%s available)",
                            op, (int)*device_index, (int)count, count == 1 ? "" : "s");
        *out = &nb_cuda_storage_backend;
        return NB_OK;
    }
    if (device_type == NB_CUDA_HOST)
        return nb_error(NB_ERR_NOT_IMPLEMENTED, "%s: pinned host memory (cuda_host) is not supported yet", op);
    return nb_error(NB_ERR_DEVICE, "%s: unknown device type %d", op, (int)device_type);
}

NB_API const char* nb_device_type_name(int32_t device_type) {
    switch (device_type) {
        case NB_CPU: return "cpu";
        case NB_CUDA: return "cuda";
        case NB_CUDA_HOST: return "cuda_host";
        default: return NULL;
    }
}

NB_API nb_status nb_device_count(int32_t device_type, int32_t* out) {
    NB_CHECK_OUT("nb_device_count", out);
    switch (device_type) {
        case NB_CPU: *out = 1; return NB_OK;
        case NB_CUDA: *out = cuda_count(); return NB_OK;
        case NB_CUDA_HOST: *out = 0; return NB_OK;
        default: return nb_error(NB_ERR_DEVICE, "nb_device_count: unknown device type %d", (int)device_type);
    }
}

NB_API const char* nb_device_unavailable_reason(int32_t device_type) {
    switch (device_type) {
        case NB_CPU: return "";
        case NB_CUDA: return cuda_count() > 0 ? "" : cuda_reason;
        case NB_CUDA_HOST: return "pinned host memory (cuda_host) is not supported yet";
        default: return "unknown device type";
    }
}

/* ---- memory statistics ---- */

static nb_status memory_device(const char* op, int32_t device_type, int32_t* device_index) {
    const nb_backend* backend;
    return nb_device_resolve(op, device_type, device_index, &backend);
}

NB_API nb_status nb_memory_stats_get(int32_t device_type, int32_t device_index, nb_memory_stats* out) {
    static const char* op = "nb_memory_stats_get";
    NB_CHECK_OUT(op, out);
    if (out->struct_size < 2 * sizeof(uint32_t))
        return nb_error(NB_ERR_ABI_VERSION, "%s: struct_size %u is too small (set it to sizeof(nb_memory_stats))",
                        op, (unsigned)out->struct_size);
    nb_status st = device_type == NB_CUDA_HOST ? NB_OK : memory_device(op, device_type, &device_index);
    if (st != NB_OK) return st;
    nb_memory_stats full = {0};
    if (device_type == NB_CUDA_HOST) {
        nb_pinned_memory_stats(&full);
    } else if (device_type == NB_CUDA) {
        nb_cuda_memory_stats(device_index, &full);
    } else {
        nb_cpu_stats(&full);
        full.reserved_bytes = full.allocated_bytes + full.cached_bytes;
        full.active_bytes = full.requested_bytes = full.allocated_bytes;
        full.peak_active_bytes = full.peak_requested_bytes = full.peak_allocated_bytes;
        full.peak_reserved_bytes = full.reserved_bytes > full.peak_allocated_bytes ? full.reserved_bytes
                                                                                   : full.peak_allocated_bytes;
    }
    size_t n = out->struct_size < sizeof full ? out->struct_size : sizeof full;
    uint32_t caller_size = out->struct_size;
    memcpy(out, &full, n);
    out->struct_size = caller_size;
    return NB_OK;
}

NB_API nb_status nb_memory_reset_peak(int32_t device_type, int32_t device_index) {
    if (device_type == NB_CUDA_HOST) {
        nb_pinned_memory_reset_peak();
        return NB_OK;
    }
    nb_status st = memory_device("nb_memory_reset_peak", device_type, &device_index);
    if (st != NB_OK) return st;
    if (device_type == NB_CUDA) nb_cuda_memory_reset_peak(device_index);
    else nb_cpu_reset_peak();
    return NB_OK;
}

NB_API nb_status nb_memory_empty_cache(int32_t device_type, int32_t device_index) {
    nb_status st = memory_device("nb_memory_empty_cache", device_type, &device_index);
    if (st != NB_OK) return st;
    if (device_type == NB_CUDA) nb_cuda_memory_empty_cache(device_index);
    else nb_cpu_empty_cache();
    return NB_OK;
}
