// plugin.cu: libnabla_cuda.so, the CUDA backend. libnabla dlopens it at first
// CUDA use and calls nb_plugin_init, which fills the backend table. cudart is
// linked statically, so only the driver is needed at run time; without a driver
// or a device, init fails with the reason and nabla stays CPU-only.
//
// Every entry that takes a device index makes that device current first (the
// core tracks the current device per thread itself). Streams are created
// non-blocking, as PyTorch does: they never wait for the legacy default stream.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include "backend.h"
#include "gpu_archs.h"
#include "index_plan.h"
#include "kernels.h"

namespace {

thread_local char last_error[512];

nb_status fail(cudaError_t err, const char* what) {
    std::snprintf(last_error, sizeof last_error, "%s: %s (%s)", what, cudaGetErrorString(err),
                  cudaGetErrorName(err));
    cudaGetLastError();  // clear a non-sticky error so the next call starts clean
    return err == cudaErrorMemoryAllocation ? NB_ERR_OUT_OF_MEMORY : NB_ERR_BACKEND;
}

#define TRY(call)                                          \
    do {                                                   \
        cudaError_t err_ = (call);                         \
        if (err_ != cudaSuccess) return fail(err_, #call); \
    } while (0)

cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t as_event(void* e) { return static_cast<cudaEvent_t>(e); }

nb_status cuda_alloc(int32_t device, int64_t nbytes, void** out) {
    TRY(cudaSetDevice(device));
    void* p = nullptr;
    // cudaMalloc(0) returns NULL; keep every pointer distinct and non-NULL.
    TRY(cudaMalloc(&p, nbytes > 0 ? static_cast<size_t>(nbytes) : 1));
    *out = p;
    return NB_OK;
}

void cuda_free(int32_t device, void* ptr, int64_t) {
    cudaSetDevice(device);
    cudaFree(ptr);
}

nb_status check_device_error(int32_t device);

nb_status cuda_copy(void* dst, int32_t dst_type, int32_t dst_index, const void* src, int32_t, int32_t src_index,
                    int64_t nbytes) {
    if (nbytes == 0) return NB_OK;
    TRY(cudaSetDevice(dst_type == NB_CUDA ? dst_index : src_index));
    TRY(cudaMemcpy(dst, src, static_cast<size_t>(nbytes), cudaMemcpyDefault));  // unified addressing
    return dst_type == NB_CUDA ? NB_OK : check_device_error(src_index);
}

nb_status cuda_memset(void* dst, int32_t device, int value, int64_t nbytes) {
    if (nbytes == 0) return NB_OK;
    TRY(cudaSetDevice(device));
    TRY(cudaMemset(dst, value, static_cast<size_t>(nbytes)));
    return NB_OK;
}

const char* cuda_last_error() { return last_error; }

// Device error words (index_plan.h): one per device, allocated at the first
// index kernel. `armed` says a kernel that may set it ran since the last check,
// so synchronising calls read the word back only then.
constexpr int kMaxDevices = 64;
nbcuda::DevError* error_words[kMaxDevices];
std::atomic<bool> error_armed[kMaxDevices];
std::mutex error_words_lock;

nb_status error_word(int32_t device, nbcuda::DevError** out) {
    if (device < 0 || device >= kMaxDevices) {
        std::snprintf(last_error, sizeof last_error, "device %d: more devices than the plugin tracks", (int)device);
        return NB_ERR_DEVICE;
    }
    std::lock_guard<std::mutex> hold(error_words_lock);
    if (!error_words[device]) {
        void* p = nullptr;
        TRY(cudaMalloc(&p, sizeof(nbcuda::DevError)));
        cudaError_t err = cudaMemset(p, 0, sizeof(nbcuda::DevError));
        if (err != cudaSuccess) {
            cudaFree(p);
            return fail(err, "cudaMemset");
        }
        error_words[device] = static_cast<nbcuda::DevError*>(p);
    }
    *out = error_words[device];
    return NB_OK;
}

// The device's error word, armed (read back at the next synchronising call) when `arm`.
nb_status armed_word(int32_t device, bool arm, nbcuda::DevError** out) {
    nb_status st = error_word(device, out);
    if (st == NB_OK && arm) error_armed[device].store(true, std::memory_order_release);
    return st;
}

// After a synchronising call on `device` (current): reports and clears a device
// error once the device is idle, so the word is complete and no kernel races the reset.
nb_status check_device_error(int32_t device) {
    if (device < 0 || device >= kMaxDevices || !error_armed[device].load(std::memory_order_acquire)) return NB_OK;
    nbcuda::DevError* w = error_words[device];
    int32_t flag = 0;
    TRY(cudaMemcpy(&flag, &w->flag, sizeof flag, cudaMemcpyDeviceToHost));
    if (!flag) return NB_OK;
    TRY(cudaDeviceSynchronize());
    nbcuda::DevError e;
    TRY(cudaMemcpy(&e, w, sizeof e, cudaMemcpyDeviceToHost));
    TRY(cudaMemset(w, 0, sizeof e));
    nbcuda::dev_error_message(e, last_error, sizeof last_error);
    return nbcuda::dev_error_status(e);
}

nb_status check_current_device_error() {
    int device = 0;
    TRY(cudaGetDevice(&device));
    return check_device_error(device);
}

nb_status device_synchronize(int32_t device) {
    TRY(cudaSetDevice(device));
    TRY(cudaDeviceSynchronize());
    return check_device_error(device);
}

nb_status mem_info(int32_t device, int64_t* free_bytes, int64_t* total_bytes) {
    TRY(cudaSetDevice(device));
    size_t f = 0, t = 0;
    TRY(cudaMemGetInfo(&f, &t));
    *free_bytes = static_cast<int64_t>(f);
    *total_bytes = static_cast<int64_t>(t);
    return NB_OK;
}

// The emulator defines warpSize as a macro (device code reads it); here it is a field.
#pragma push_macro("warpSize")
#undef warpSize
nb_status device_properties(int32_t device, char* buf, size_t cap) {
    cudaDeviceProp p;
    TRY(cudaGetDeviceProperties(&p, device));
    char name[2 * sizeof p.name];  // JSON-escaped
    size_t n = 0;
    for (const char* c = p.name; *c != '\0' && n + 2 < sizeof name; c++) {
        if (*c == '"' || *c == '\\') name[n++] = '\\';
        name[n++] = static_cast<unsigned char>(*c) < 0x20 ? ' ' : *c;
    }
    name[n] = '\0';
    char uuid[33];
    for (int i = 0; i < 16; i++)
        std::snprintf(uuid + 2 * i, 3, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
    int written = std::snprintf(
        buf, cap,
        "{\"name\": \"%s\", \"major\": %d, \"minor\": %d, \"total_memory\": %zu, "
        "\"multi_processor_count\": %d, \"warp_size\": %d, \"max_threads_per_multi_processor\": %d, "
        "\"max_threads_per_block\": %d, \"regs_per_multiprocessor\": %d, \"shared_memory_per_block\": %zu, "
        "\"shared_memory_per_block_optin\": %zu, \"shared_memory_per_multiprocessor\": %zu, "
        "\"L2_cache_size\": %d, \"is_integrated\": %d, \"is_multi_gpu_board\": %d, "
        "\"pci_bus_id\": %d, \"pci_device_id\": %d, \"pci_domain_id\": %d, \"uuid\": \"%s\", "
        "\"gpu_archs\": \"" NB_GPU_ARCHS "\"}",
        name, p.major, p.minor, p.totalGlobalMem, p.multiProcessorCount, p.warpSize,
        p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock, p.regsPerMultiprocessor, p.sharedMemPerBlock,
        p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor, p.l2CacheSize, p.integrated, p.isMultiGpuBoard,
        p.pciBusID, p.pciDeviceID, p.pciDomainID, uuid);
    if (written < 0 || static_cast<size_t>(written) >= cap) {
        std::snprintf(last_error, sizeof last_error, "device properties need %d bytes, have %zu", written, cap);
        return NB_ERR_INTERNAL;
    }
    return NB_OK;
}
#pragma pop_macro("warpSize")

nb_status stream_create(int32_t device, int32_t priority, void** out) {
    TRY(cudaSetDevice(device));
    cudaStream_t s = nullptr;
    TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
    *out = s;
    return NB_OK;
}

void stream_destroy(int32_t device, void* stream) {
    cudaSetDevice(device);
    cudaStreamDestroy(as_stream(stream));  // returns at once; queued work still completes
}

nb_status stream_priority_range(int32_t* least, int32_t* greatest) {
    int l = 0, g = 0;
    TRY(cudaDeviceGetStreamPriorityRange(&l, &g));
    *least = l;
    *greatest = g;
    return NB_OK;
}

// The legacy default stream (NULL) of a device: calls on it need that device current.
nb_status stream_synchronize(int32_t device, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(cudaStreamSynchronize(as_stream(stream)));
    return check_device_error(device);
}

nb_status stream_query(int32_t device, void* stream, int32_t* done) {
    TRY(cudaSetDevice(device));
    cudaError_t err = cudaStreamQuery(as_stream(stream));
    if (err == cudaErrorNotReady) {
        cudaGetLastError();
        *done = 0;
        return NB_OK;
    }
    if (err != cudaSuccess) return fail(err, "cudaStreamQuery");
    *done = 1;
    return NB_OK;
}

nb_status stream_wait_event(int32_t device, void* stream, void* event) {
    TRY(cudaSetDevice(device));
    TRY(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
    return NB_OK;
}

nb_status event_create(int32_t device, int32_t flags, void** out) {
    TRY(cudaSetDevice(device));
    unsigned f = (flags & NB_EVENT_TIMING) ? cudaEventDefault : cudaEventDisableTiming;
    if (flags & NB_EVENT_BLOCKING) f |= cudaEventBlockingSync;
    cudaEvent_t e = nullptr;
    TRY(cudaEventCreateWithFlags(&e, f));
    *out = e;
    return NB_OK;
}

void event_destroy(int32_t device, void* event) {
    cudaSetDevice(device);
    cudaEventDestroy(as_event(event));
}

nb_status event_record(int32_t device, void* event, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(cudaEventRecord(as_event(event), as_stream(stream)));
    return NB_OK;
}

nb_status event_query(void* event, int32_t* done) {
    cudaError_t err = cudaEventQuery(as_event(event));
    if (err == cudaErrorNotReady) {
        cudaGetLastError();
        *done = 0;
        return NB_OK;
    }
    if (err != cudaSuccess) return fail(err, "cudaEventQuery");
    *done = 1;
    return NB_OK;
}

nb_status event_synchronize(void* event) {
    TRY(cudaEventSynchronize(as_event(event)));
    return check_current_device_error();
}

nb_status event_elapsed(void* start, void* end, float* ms) {
    TRY(cudaEventElapsedTime(ms, as_event(start), as_event(end)));
    return NB_OK;
}

nb_status copy_async(int32_t device, void* dst, const void* src, int64_t nbytes, void* stream) {
    if (nbytes == 0) return NB_OK;
    TRY(cudaSetDevice(device));
    TRY(cudaMemcpyAsync(dst, src, static_cast<size_t>(nbytes), cudaMemcpyDefault, as_stream(stream)));
    return NB_OK;
}

nb_status host_alloc(int64_t nbytes, void** out) {
    void* p = nullptr;
    TRY(cudaHostAlloc(&p, nbytes > 0 ? static_cast<size_t>(nbytes) : 1, cudaHostAllocPortable));
    *out = p;
    return NB_OK;
}

void host_free(void* ptr) { cudaFreeHost(ptr); }

nb_status fill(int32_t device, void* dst, const void* pattern, int32_t pattern_size, int64_t count, void* stream) {
    if (count == 0) return NB_OK;
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_fill(dst, pattern, pattern_size, count, as_stream(stream)));
    return NB_OK;
}

nb_status elementwise(int32_t device, const nb_bk_ew* args, void* stream) {
    TRY(cudaSetDevice(device));
    // Integer division and remainder report a zero divisor through the device error word.
    nbcuda::DevError* word = nullptr;
    const bool divides = args->op == NB_BK_DIV_TRUNC || args->op == NB_BK_DIV_FLOOR || args->op == NB_BK_REMAINDER ||
                         args->op == NB_BK_FMOD;
    if (divides && (args->dtype == NB_I64 || args->dtype == NB_BOOL)) {
        nb_status st = error_word(device, &word);
        if (st != NB_OK) return st;
        error_armed[device].store(true, std::memory_order_release);
    }
    TRY(nb_cuda_elementwise(args, word, as_stream(stream)));
    return NB_OK;
}

nb_status copy_strided(int32_t device, const nb_bk_copy* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_copy_strided(plan, as_stream(stream)));
    return NB_OK;
}

nb_status reduce(int32_t device, const nb_bk_reduce* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_reduce(plan, as_stream(stream)));
    return NB_OK;
}

nb_status index(int32_t device, const nb_bk_index* plan, void* stream) {
    TRY(cudaSetDevice(device));
    nbcuda::DevError* word = nullptr;
    nb_status st = armed_word(device, true, &word);
    if (st != NB_OK) return st;
    TRY(nb_cuda_index(plan, word, as_stream(stream)));
    return NB_OK;
}

nb_status pool(int32_t device, const nb_bk_pool* plan, void* stream) {
    TRY(cudaSetDevice(device));
    nbcuda::DevError* word = nullptr;
    nb_status st = armed_word(device, plan->backward && plan->kind == NB_PK_MAX, &word);
    if (st != NB_OK) return st;
    TRY(nb_cuda_pool(plan, word, as_stream(stream)));
    return NB_OK;
}

nb_status gemm(int32_t device, const nb_bk_gemm* plan, void* stream) {
    if (!nb_cuda_gemm_supported(plan->dtype)) {
        std::snprintf(last_error, sizeof last_error, "no CUDA GEMM kernel for dtype %d", (int)plan->dtype);
        return NB_ERR_NOT_IMPLEMENTED;
    }
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_gemm(plan, as_stream(stream)));
    return NB_OK;
}

nb_status lines(int32_t device, const nb_bk_lines* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_lines(plan, as_stream(stream)));
    return NB_OK;
}

// The random fills: a bernoulli probability tensor may claim the error word.
nb_status rng(int32_t device, const nb_bk_rng* plan, void* stream) {
    TRY(cudaSetDevice(device));
    nbcuda::DevError* word = nullptr;
    nb_status st = armed_word(device, plan->kind == NB_RNGK_BERNOULLI && plan->in, &word);
    if (st != NB_OK) return st;
    TRY(nb_cuda_rng(plan, word, as_stream(stream)));
    return NB_OK;
}

nb_status norm(int32_t device, const nb_bk_norm* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_norm(plan, as_stream(stream)));
    return NB_OK;
}

// The classification losses: a class target out of range claims the error word.
nb_status loss(int32_t device, const nb_bk_loss* plan, void* stream) {
    TRY(cudaSetDevice(device));
    nbcuda::DevError* word = nullptr;
    nb_status st = armed_word(device, true, &word);
    if (st != NB_OK) return st;
    TRY(nb_cuda_loss(plan, word, as_stream(stream)));
    return NB_OK;
}

// The embedding backward: an index out of range claims the error word.
nb_status embedding(int32_t device, const nb_bk_embedding* plan, void* stream) {
    TRY(cudaSetDevice(device));
    nbcuda::DevError* word = nullptr;
    nb_status st = armed_word(device, true, &word);
    if (st != NB_OK) return st;
    TRY(nb_cuda_embedding(plan, word, as_stream(stream)));
    return NB_OK;
}

nb_status sort(int32_t device, const nb_bk_sort* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_sort(plan, as_stream(stream)));
    return NB_OK;
}

nb_status conv(int32_t device, const nb_bk_conv* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_conv(plan, as_stream(stream)));
    return NB_OK;
}

nb_status attention(int32_t device, const nb_bk_attention* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_attention(plan, as_stream(stream)));
    return NB_OK;
}

nb_status optim(int32_t device, const nb_bk_optim* plan, void* stream) {
    TRY(cudaSetDevice(device));
    TRY(nb_cuda_optim(plan, as_stream(stream)));
    return NB_OK;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) nb_status nb_plugin_init(
    uint32_t plugin_abi, nb_backend* backend, int32_t* device_count, char* reason, size_t reason_cap) {
    if (plugin_abi != NB_PLUGIN_ABI) {
        std::snprintf(reason, reason_cap, "plugin ABI mismatch: libnabla expects %u, plugin has %u",
                      plugin_abi, NB_PLUGIN_ABI);
        return NB_ERR_ABI_VERSION;
    }
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        const char* why = err == cudaErrorInsufficientDriver ? "the CUDA driver is missing or too old"
                          : err == cudaErrorNoDevice         ? "no CUDA device found"
                                                             : cudaGetErrorString(err);
        std::snprintf(reason, reason_cap, "%s (%s)", why, cudaGetErrorName(err));
        return NB_ERR_DEVICE;
    }
    *backend = nb_backend{};
    backend->name = "cuda";
    backend->alloc = cuda_alloc;
    backend->free = cuda_free;
    backend->copy = cuda_copy;
    backend->memset = cuda_memset;
    backend->last_error = cuda_last_error;
    backend->device_synchronize = device_synchronize;
    backend->mem_info = mem_info;
    backend->device_properties = device_properties;
    backend->stream_create = stream_create;
    backend->stream_destroy = stream_destroy;
    backend->stream_priority_range = stream_priority_range;
    backend->stream_synchronize = stream_synchronize;
    backend->stream_query = stream_query;
    backend->stream_wait_event = stream_wait_event;
    backend->event_create = event_create;
    backend->event_destroy = event_destroy;
    backend->event_record = event_record;
    backend->event_query = event_query;
    backend->event_synchronize = event_synchronize;
    backend->event_elapsed = event_elapsed;
    backend->copy_async = copy_async;
    backend->host_alloc = host_alloc;
    backend->host_free = host_free;
    backend->fill = fill;
    backend->elementwise = elementwise;
    backend->copy_strided = copy_strided;
    backend->reduce = reduce;
    backend->index = index;
    backend->gemm = gemm;
    backend->lines = lines;
    backend->pool = pool;
    backend->sort = sort;
    backend->conv = conv;
    backend->attention = attention;
    backend->rng = rng;
    backend->norm = norm;
    backend->loss = loss;
    backend->embedding = embedding;
    backend->optim = optim;
    *device_count = count;
    return NB_OK;
}
