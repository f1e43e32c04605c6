// plugin.cu: libnabla_cuda.so, the CUDA backend. libnabla dlopens it at first
// CUDA use and calls nb_plugin_init, which fills the backend table. cudart is
// linked statically, so only the driver is needed at run time; without a driver
// or a device, init fails with the reason and nabla stays CPU-only.
#include <cuda_runtime.h>

#include <cstdio>

#include "backend.h"

namespace {

thread_local char last_error[512];

nb_status fail(cudaError_t err, const char* what) {
    std::snprintf(last_error, sizeof last_error, "%s: %s (%s)", what, cudaGetErrorString(err),
                  cudaGetErrorName(err));
    return err == cudaErrorMemoryAllocation ? NB_ERR_OUT_OF_MEMORY : NB_ERR_BACKEND;
}

nb_status cuda_alloc(int32_t device_index, int64_t nbytes, void** out) {
    cudaError_t err = cudaSetDevice(device_index);
    if (err != cudaSuccess) return fail(err, "cudaSetDevice");
    void* p = nullptr;
    // cudaMalloc(0) returns NULL; keep every storage pointer distinct and non-NULL.
    err = cudaMalloc(&p, nbytes > 0 ? static_cast<size_t>(nbytes) : 1);
    if (err != cudaSuccess) return fail(err, "cudaMalloc");
    *out = p;
    return NB_OK;
}

void cuda_free(int32_t device_index, void* ptr, int64_t nbytes) {
    (void)nbytes;
    cudaSetDevice(device_index);
    cudaFree(ptr);
}

nb_status cuda_copy(void* dst, int32_t dst_type, const void* src, int32_t src_type, int64_t nbytes) {
    if (nbytes == 0) return NB_OK;
    cudaMemcpyKind kind = cudaMemcpyDefault;  // unified addressing tells the directions apart
    (void)dst_type, (void)src_type;
    cudaError_t err = cudaMemcpy(dst, src, static_cast<size_t>(nbytes), kind);
    return err == cudaSuccess ? NB_OK : fail(err, "cudaMemcpy");
}

nb_status cuda_memset(void* dst, int value, int64_t nbytes) {
    if (nbytes == 0) return NB_OK;
    cudaError_t err = cudaMemset(dst, value, static_cast<size_t>(nbytes));
    return err == cudaSuccess ? NB_OK : fail(err, "cudaMemset");
}

const char* cuda_last_error() { return last_error; }

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
    backend->name = "cuda";
    backend->alloc = cuda_alloc;
    backend->free = cuda_free;
    backend->copy = cuda_copy;
    backend->memset = cuda_memset;
    backend->last_error = cuda_last_error;
    *device_count = count;
    return NB_OK;
}
