// emu_runtime.cpp: devices, errors and memory of the emulated CUDA runtime.
// "Device" memory is host memory from the C heap (so ASan puts redzones
// around every cudaMalloc), recorded in a registry so that copies, memsets and
// kernel pointer arguments are checked against real allocations, the way a GPU
// faults on a bad address. Copies follow CUDA's host-synchronisation rules:
// pageable sources of async copies are staged at the call, pageable
// destinations make the call wait, pinned memory is truly asynchronous.
//
// Environment: NABLA_EMU_DEVICES (device count, default 1), NABLA_EMU_MEMORY_MB
// (memory per device, default 8192).
#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "emu_internal.h"

namespace nbemu {

namespace {

thread_local cudaError_t last_error = cudaSuccess;
thread_local cudaError_t detail_code = cudaSuccess;
thread_local char detail[512];
thread_local int current = 0;

int env_int(const char* name, int fallback, int lo, int hi) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    long x = std::strtol(v, nullptr, 10);
    return static_cast<int>(std::min<long>(hi, std::max<long>(lo, x)));
}

struct Sticky {
    std::mutex mu;
    cudaError_t code[16] = {};
    char detail[16][512] = {};
};

Sticky& sticky() {
    static Sticky* s = new Sticky;
    return *s;
}

struct Alloc {
    size_t size;
    int device;
    Mem kind;
};

struct Memory {
    std::mutex mu;
    std::map<uintptr_t, Alloc> allocs;  // by start address
    size_t used[16] = {};
};

Memory& memory() {
    static Memory* m = new Memory;
    return *m;
}

size_t device_memory() { return static_cast<size_t>(env_int("NABLA_EMU_MEMORY_MB", 8192, 1, 1 << 20)) << 20; }

const char* name_of(cudaError_t e) {
    switch (e) {
#define N(x) \
    case x: return #x;
        N(cudaSuccess) N(cudaErrorInvalidValue) N(cudaErrorMemoryAllocation) N(cudaErrorInitializationError)
        N(cudaErrorInvalidConfiguration) N(cudaErrorInvalidDevice) N(cudaErrorInvalidResourceHandle)
        N(cudaErrorNotReady) N(cudaErrorNoDevice) N(cudaErrorLaunchFailure) N(cudaErrorMisalignedAddress)
        N(cudaErrorIllegalAddress) N(cudaErrorInvalidDevicePointer) N(cudaErrorInvalidMemcpyDirection)
        N(cudaErrorNotSupported) N(cudaErrorInsufficientDriver) N(cudaErrorLaunchOutOfResources)
        N(cudaErrorInvalidDeviceFunction)
#undef N
        default: return "cudaErrorUnknown";
    }
}

const char* string_of(cudaError_t e) {
    switch (e) {
        case cudaSuccess: return "no error";
        case cudaErrorInvalidValue: return "invalid argument";
        case cudaErrorMemoryAllocation: return "out of memory";
        case cudaErrorInvalidConfiguration: return "invalid configuration argument";
        case cudaErrorInvalidDevice: return "invalid device ordinal";
        case cudaErrorInvalidResourceHandle: return "invalid resource handle";
        case cudaErrorNotReady: return "device not ready";
        case cudaErrorNoDevice: return "no CUDA-capable device is detected";
        case cudaErrorLaunchFailure: return "unspecified launch failure";
        case cudaErrorMisalignedAddress: return "misaligned address";
        case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
        case cudaErrorInvalidDevicePointer: return "invalid device pointer";
        case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
        case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
        default: return "unknown error";
    }
}

bool valid_device(int d) { return d >= 0 && d < device_count(); }

}  // namespace

cudaError_t fail(cudaError_t err, const char* fmt, ...) {
    last_error = err;
    detail_code = err;
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return err;
}

void fail_async(int device, cudaError_t err, const char* text) {
    Sticky& s = sticky();
    std::lock_guard<std::mutex> lk(s.mu);
    if (s.code[device] != cudaSuccess) return;  // the first fault is the one to report
    s.code[device] = err;
    std::snprintf(s.detail[device], sizeof s.detail[device], "%s", text);
}

cudaError_t sticky_error(int device) {
    Sticky& s = sticky();
    std::lock_guard<std::mutex> lk(s.mu);
    cudaError_t err = s.code[device];
    if (err != cudaSuccess) {
        detail_code = err;
        std::snprintf(detail, sizeof detail, "%s", s.detail[device]);
    }
    return err;
}

int current_device() { return current; }

int device_count() {
    static const int n = env_int("NABLA_EMU_DEVICES", 1, 1, 16);
    return n;
}

Mem classify(const void* p, size_t n, bool* inside) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lk(m.mu);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = m.allocs.upper_bound(a);
    if (inside) *inside = true;
    if (it == m.allocs.begin()) return Mem::kPageable;
    --it;
    if (a >= it->first + std::max<size_t>(it->second.size, 1)) return Mem::kPageable;
    if (inside) *inside = a + n <= it->first + it->second.size;
    return it->second.kind;
}

}  // namespace nbemu

using namespace nbemu;

namespace {

void* allocate(size_t n, Mem kind, int device) {
    void* p = nullptr;
    if (posix_memalign(&p, 256, n ? n : 1) != 0) return nullptr;  // cudaMalloc's alignment
    Memory& m = memory();
    std::lock_guard<std::mutex> lk(m.mu);
    m.allocs[reinterpret_cast<uintptr_t>(p)] = Alloc{n, device, kind};
    if (kind == Mem::kDevice) m.used[device] += n;
    return p;
}

// Removes p (which must start an allocation of `kind`) from the registry.
bool release(void* p, Mem kind) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lk(m.mu);
    auto it = m.allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == m.allocs.end() || it->second.kind != kind) return false;
    if (kind == Mem::kDevice) m.used[it->second.device] -= it->second.size;
    m.allocs.erase(it);
    return true;
}

// The device side of a copy or memset must lie inside one device allocation.
cudaError_t check_device_range(const char* api, const char* what, const void* p, size_t n) {
    bool inside = false;
    Mem k = classify(p, n, &inside);
    if (k == Mem::kDevice && inside) return cudaSuccess;
    if (k == Mem::kDevice)
        return fail(cudaErrorInvalidValue, "%s: %s %p + %zu bytes runs past the end of its device allocation", api,
                    what, p, n);
    return fail(cudaErrorInvalidValue, "%s: %s %p is not device memory", api, what, p);
}

cudaError_t check_kind(const char* api, void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    const bool dst_dev = classify(dst, n) == Mem::kDevice, src_dev = classify(src, n) == Mem::kDevice;
    if (kind == cudaMemcpyDefault) {
        if (dst_dev) if (cudaError_t e = check_device_range(api, "destination", dst, n)) return e;
        if (src_dev) if (cudaError_t e = check_device_range(api, "source", src, n)) return e;
        return cudaSuccess;
    }
    const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (want_dst) if (cudaError_t e = check_device_range(api, "destination", dst, n)) return e;
    if (want_src) if (cudaError_t e = check_device_range(api, "source", src, n)) return e;
    if ((!want_dst && dst_dev) || (!want_src && src_dev))
        return fail(cudaErrorInvalidMemcpyDirection, "%s: kind %d does not match the pointers", api, (int)kind);
    return cudaSuccess;
}

std::atomic<long long> launches{0}, host_to_device{0}, mma_syncs{0};

// Queues a copy on s. A pageable source is staged now (the caller may reuse it at
// once); a pageable destination makes the call wait, as cudaMemcpyAsync does.
cudaError_t queue_copy(const char* api, void* dst, const void* src, size_t n, cudaMemcpyKind kind, Stream* s,
                       bool wait) {
    if (cudaError_t e = check_kind(api, dst, src, n, kind)) return e;
    if (n == 0) return cudaSuccess;
    const Mem dk = classify(dst, n), sk = classify(src, n);
    if (dk == Mem::kDevice && sk != Mem::kDevice) host_to_device.fetch_add(1, std::memory_order_relaxed);
    if (sk == Mem::kPageable && !wait) {
        auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                                   static_cast<const unsigned char*>(src) + n);
        enqueue(s, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
    } else {
        enqueue(s, [dst, src, n] { std::memmove(dst, src, n); });
    }
    if (wait || dk == Mem::kPageable) {
        wait_mark(record(s));
        cudaError_t err = sticky_error(stream_device(s));
        if (err != cudaSuccess) return fail(err, "%s", cudaGetErrorString(err));
    }
    return cudaSuccess;
}

}  // namespace

void nbemu::count_launch() { launches.fetch_add(1, std::memory_order_relaxed); }
void nbemu::count_mma() { mma_syncs.fetch_add(1, std::memory_order_relaxed); }

extern "C" {

// Test hook (exported from the emulated plugin only): kernels launched and copies
// from host memory to a device since the process started.
__attribute__((visibility("default"))) void nbemu_counters(long long* kernel_launches, long long* host_copies) {
    *kernel_launches = launches.load(std::memory_order_relaxed);
    *host_copies = host_to_device.load(std::memory_order_relaxed);
}

// Test hook: warp-wide wmma::mma_sync calls since the process started (emu_wmma.h).
__attribute__((visibility("default"))) void nbemu_mma_syncs(long long* count) {
    *count = mma_syncs.load(std::memory_order_relaxed);
}

cudaError_t cudaGetLastError(void) {
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char* cudaGetErrorName(cudaError_t e) { return name_of(e); }

// The standard text, followed by what the emulator found when this thread's latest
// error of this code was raised.
const char* cudaGetErrorString(cudaError_t e) {
    thread_local char buf[640];
    if (e != cudaSuccess && e == detail_code && detail[0]) {
        if (std::strncmp(detail, string_of(e), std::strlen(string_of(e))) == 0) return detail;
        std::snprintf(buf, sizeof buf, "%s: %s", string_of(e), detail);
        return buf;
    }
    return string_of(e);
}

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return fail(cudaErrorInvalidValue, "cudaGetDeviceCount: NULL count");
    *count = device_count();
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* d) {
    if (!d) return fail(cudaErrorInvalidValue, "cudaGetDevice: NULL device");
    *d = current;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int d) {
    if (!valid_device(d))
        return fail(cudaErrorInvalidDevice, "cudaSetDevice: device %d of %d emulated devices", d, device_count());
    current = d;
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
    synchronize_device(current);
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* v) {
    *v = CUDART_VERSION;
    return cudaSuccess;
}

// An sm_90-like device with the CPU's core count as its multiprocessors.
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
    if (!p) return fail(cudaErrorInvalidValue, "cudaGetDeviceProperties: NULL prop");
    if (!valid_device(d)) return fail(cudaErrorInvalidDevice, "cudaGetDeviceProperties: device %d", d);
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "nabla emulated CUDA device");
    p->totalGlobalMem = device_memory();
    p->sharedMemPerBlock = 48 << 10;
    p->sharedMemPerBlockOptin = 227 << 10;
    p->sharedMemPerMultiprocessor = 228 << 10;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 64 << 10;
    p->major = 9, p->minor = 0;
    p->multiProcessorCount = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    p->maxThreadsPerMultiProcessor = 2048;
    p->l2CacheSize = 50 << 20;
    p->unifiedAddressing = 1;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 2;
    p->pciDeviceID = d;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr attr, int d) {
    cudaDeviceProp p;
    if (cudaError_t e = cudaGetDeviceProperties(&p, d)) return e;
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *v = static_cast<int>(p.sharedMemPerBlock); break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = static_cast<int>(p.sharedMemPerBlockOptin); break;
        case cudaDevAttrWarpSize: *v = 32; break;
        case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
        case cudaDevAttrComputeCapabilityMajor: *v = p.major; break;
        case cudaDevAttrComputeCapabilityMinor: *v = p.minor; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrUnifiedAddressing: *v = 1; break;
        default: return fail(cudaErrorNotSupported, "cudaDeviceGetAttribute: attribute %d is not emulated", (int)attr);
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
    *can = 1;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int) { return cudaSuccess; }

cudaError_t cudaMalloc(void** out, size_t n) {
    if (!out) return fail(cudaErrorInvalidValue, "cudaMalloc: NULL out");
    const int d = current;
    {
        Memory& m = memory();
        std::lock_guard<std::mutex> lk(m.mu);
        if (n > device_memory() - m.used[d])
            return fail(cudaErrorMemoryAllocation, "cudaMalloc: %zu bytes requested, %zu of %zu free on device %d", n,
                        device_memory() - m.used[d], device_memory(), d);
    }
    void* p = allocate(n, Mem::kDevice, d);
    if (!p) return fail(cudaErrorMemoryAllocation, "cudaMalloc: the host could not provide %zu bytes", n);
    *out = p;
    return cudaSuccess;
}

// Like the real one, waits for the device first: queued kernels may still use p.
cudaError_t cudaFree(void* p) {
    if (!p) return cudaSuccess;
    synchronize_all();
    if (!release(p, Mem::kDevice)) return fail(cudaErrorInvalidValue, "cudaFree: %p is not a device allocation", p);
    std::free(p);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
    Memory& m = memory();
    std::lock_guard<std::mutex> lk(m.mu);
    *total = device_memory();
    *free_bytes = device_memory() - m.used[current];
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** out, size_t n, unsigned int) {
    if (!out) return fail(cudaErrorInvalidValue, "cudaHostAlloc: NULL out");
    void* p = allocate(n, Mem::kPinned, current);
    if (!p) return fail(cudaErrorMemoryAllocation, "cudaHostAlloc: the host could not provide %zu bytes", n);
    *out = p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void** out, size_t n) { return cudaHostAlloc(out, n, 0); }

cudaError_t cudaFreeHost(void* p) {
    if (!p) return cudaSuccess;
    synchronize_all();
    if (!release(p, Mem::kPinned)) return fail(cudaErrorInvalidValue, "cudaFreeHost: %p is not pinned memory", p);
    std::free(p);
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
    std::memset(a, 0, sizeof *a);
    Mem k = classify(p, 1);
    a->type = k == Mem::kDevice ? cudaMemoryTypeDevice : k == Mem::kPinned ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered;
    a->device = current;
    a->devicePointer = k == Mem::kPageable ? nullptr : const_cast<void*>(p);
    a->hostPointer = k == Mem::kDevice ? nullptr : const_cast<void*>(p);
    return cudaSuccess;
}

// CUDA's host-synchronisation rules for the legacy stream: device to device returns
// at once; from pageable host memory the stream drains, the source is staged and
// the call returns; everything else returns when the copy is done.
cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    Stream* s = resolve(nullptr);
    const Mem dk = classify(dst, n), sk = classify(src, n);
    if (dk == Mem::kDevice && sk != Mem::kDevice) host_to_device.fetch_add(1, std::memory_order_relaxed);
    if (dk == Mem::kDevice && sk == Mem::kDevice) return queue_copy("cudaMemcpy", dst, src, n, kind, s, false);
    if (dk == Mem::kDevice && sk == Mem::kPageable) {
        wait_mark(record(s));
        return queue_copy("cudaMemcpy", dst, src, n, kind, s, false);
    }
    return queue_copy("cudaMemcpy", dst, src, n, kind, s, true);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t h) {
    Stream* s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle, "cudaMemcpyAsync: %p is not a live stream", (void*)h);
    return queue_copy("cudaMemcpyAsync", dst, src, n, kind, s, false);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t n, cudaStream_t h) {
    return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, h);
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t n, cudaStream_t h) {
    Stream* s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle, "cudaMemsetAsync: %p is not a live stream", (void*)h);
    if (n == 0) return cudaSuccess;
    if (cudaError_t e = check_device_range("cudaMemsetAsync", "destination", dst, n)) return e;
    enqueue(s, [dst, value, n] { std::memset(dst, value, n); });
    return cudaSuccess;
}

cudaError_t cudaMemset(void* dst, int value, size_t n) {
    return cudaMemsetAsync(dst, value, n, nullptr);  // asynchronous for device memory, as in CUDA
}

}  // extern "C"
