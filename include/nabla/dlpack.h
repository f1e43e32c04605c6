/* dlpack.h: the DLPack 1.1 data structures, written for nabla from the DLPack
 * specification (https://dmlc.github.io/dlpack/latest/). Layout and values are
 * the specification's, so any DLPack producer or consumer can exchange these
 * structs with nabla; the include guard is the standard one, so a program that
 * also includes another copy of dlpack.h gets only one definition.
 *
 * nabla's ABI (nabla.h) passes these structs as void* so that nabla.h stays
 * free of C enums for FFI generators; cast to the types below. */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

/* The version these definitions follow. */
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

/* Prefix for exported functions on Windows (the structs need none). */
#ifdef _WIN32
#ifdef DLPACK_EXPORTS
#define DLPACK_DLL __declspec(dllexport)
#else
#define DLPACK_DLL __declspec(dllimport)
#endif
#else
#define DLPACK_DLL
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A DLPack version: a consumer must not read a struct whose major it does not know. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* Where the memory lives. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,          /* host memory */
    kDLCUDA = 2,         /* CUDA device memory */
    kDLCUDAHost = 3,     /* pinned host memory (cudaMallocHost) */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,      /* reserved for extension devices */
    kDLCUDAManaged = 13, /* CUDA managed (unified) memory */
    kDLOneAPI = 14,      /* Unified Shared Memory of oneAPI (SYCL) */
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
} DLDeviceType;

/* A device: its type and ordinal (0 for the host). */
typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

/* The kind of element (DLDataType.code). */
typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U,
    kDLFloat8_e3m4 = 7U,
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U,
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/* An element type: code (DLDataTypeCode), bits per lane, lanes (1 for scalars).
 * float32 is {kDLFloat, 32, 1}; bool is {kDLBool, 8, 1}; bfloat16 {kDLBfloat, 16, 1}. */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A strided view of memory. The first element is at (char*)data + byte_offset.
 * shape and strides hold ndim values; strides count elements, not bytes, and may
 * be NULL (compact row-major; deprecated, but consumers must accept it). */
typedef struct {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 ownership wrapper (Python capsule name "dltensor"). It carries no
 * version and no flags. The consumer calls deleter(self) once when done with it. */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;  /* the producer's context, for its deleter */
    void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* The memory must not be written by the consumer. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/* The producer made a copy for this exchange: the consumer owns it alone. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/* Sub-byte elements are each padded to a whole byte. */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* The versioned ownership wrapper (capsule name "dltensor_versioned"). version
 * comes first so a consumer can check it before reading anything else. deleter
 * may be NULL when there is nothing to release; it may be called from any thread. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned* self);
    uint64_t flags;  /* DLPACK_FLAG_BITMASK_* */
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif

#endif /* DLPACK_DLPACK_H_ */
