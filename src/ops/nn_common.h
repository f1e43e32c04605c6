/* nn_common.h: helpers shared by the neural-network kernels (conv.c, pool.c,
 * norm.c, loss.c, nnmisc.c): argument checks with PyTorch's wording, contiguous
 * operands in the kernel dtype, delivering a result (new tensor or dst), OpenMP
 * and OpenBLAS threading. Private to src/ops. */
#ifndef NABLA_OPS_NN_COMMON_H_
#define NABLA_OPS_NN_COMMON_H_

#include "../core/internal.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Hot loops get AVX2 and AVX-512 clones chosen at load time (the build targets baseline x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define NN_CLONES __attribute__((target_clones(NB_CLONE_TARGETS)))
#else
#define NN_CLONES
#endif

/* Reduction codes of the loss functions (PyTorch's at::Reduction). */
enum { NN_RED_NONE = NB_REDUCTION_NONE, NN_RED_MEAN = NB_REDUCTION_MEAN, NN_RED_SUM = NB_REDUCTION_SUM };

/* The dtype kernels compute in for a floating dtype (f16/bf16 -> f32); -1 otherwise. */
static inline int32_t nn_kernel_dtype(int32_t dtype) {
    if (dtype == NB_F32 || dtype == NB_F16 || dtype == NB_BF16) return NB_F32;
    if (dtype == NB_F64) return NB_F64;
    return -1;
}

/* t must be a live tensor (NULL allowed when `optional`), on any device. */
NB_INTERNAL nb_status nn_check_handle(const char* op, const char* arg, const nb_tensor* t, bool optional);
/* The non-NULL ts[0..n) (named names[i]) are all on one device. */
NB_INTERNAL nb_status nn_check_same_device(const char* op, const char* const* names, const nb_tensor* const* ts,
                                           int32_t n);
/* As nn_check_out, for ops that run on every device. */
NB_INTERNAL nb_status nn_check_out_any_device(const char* op, const nb_tensor* dst, nb_tensor** out);
/* t must be a live tensor (NULL allowed when `optional`) in host memory. */
NB_INTERNAL nb_status nn_check_tensor(const char* op, const char* arg, const nb_tensor* t, bool optional);
/* input must be floating: "op: not implemented for 'int64'". Writes the kernel dtype. */
NB_INTERNAL nb_status nn_check_float(const char* op, const nb_tensor* input, int32_t* kernel_dtype);
/* t (optional) must have the input's dtype: PyTorch's "expected scalar type" check. */
NB_INTERNAL nb_status nn_check_same_dtype(const char* op, const char* arg, const nb_tensor* t, int32_t dtype);
/* NULL array argument check. */
NB_INTERNAL nb_status nn_check_array(const char* op, const char* arg, const void* p);
NB_INTERNAL nb_status nn_check_out(const char* op, const nb_tensor* dst, nb_tensor** out);

/* A new reference to a contiguous tensor on t's device holding t's values in dtype
 * (t itself when it already is one). */
NB_INTERNAL nb_status nn_contig(const nb_tensor* t, int32_t dtype, nb_tensor** out);
/* As nn_contig for an optional tensor: NULL stays NULL. */
NB_INTERNAL nb_status nn_contig_opt(const nb_tensor* t, int32_t dtype, nb_tensor** out);
/* A new contiguous uninitialised host tensor. */
NB_INTERNAL nb_status nn_empty(const char* op, const int64_t* shape, int32_t ndim, int32_t dtype, nb_tensor** out);

/* The tensor a kernel writes its result into: dst itself when it can take the result directly (contiguous,
 * of shape `shape`, its dtype both the kernel's and the result's, no storage shared with the n inputs), else a
 * fresh contiguous tensor. A new reference either way; pass it to nn_deliver. */
NB_INTERNAL nb_status nn_output(const char* op, const int64_t* shape, int32_t ndim, int32_t kd, int32_t dtype,
                                nb_tensor* dst, const nb_tensor* const* inputs, int32_t n, nb_tensor** y);

/* Hands a computed result over: always consumes `result` (one reference). Without
 * dst, *out gets the result converted to `dtype`; with dst, the result is copied
 * into dst (same shape required, dtype must cast; nothing to copy when the result
 * is dst, from nn_output), dst's version is bumped and *out (when not NULL) gets
 * a new reference to dst. */
NB_INTERNAL nb_status nn_deliver(const char* op, nb_tensor* result, int32_t dtype, nb_tensor* dst,
                                 nb_tensor** out);

/* Releases up to 8 tensors (NULL-safe). */
NB_INTERNAL void nn_release(nb_tensor* a, nb_tensor* b, nb_tensor* c, nb_tensor* d, nb_tensor* e,
                            nb_tensor* f, nb_tensor* g, nb_tensor* h);

/* Whether a fused device path is on: the environment variable env (NABLA_<FAMILY>_FUSED) is not "0". */
NB_INTERNAL bool nn_fused_enabled(const char* env);

/* Scratch memory for kernels (64-byte aligned); NULL on failure (the caller reports). */
NB_INTERNAL void* nn_alloc(size_t bytes);
NB_INTERNAL void nn_free(void* p);

/* While a section is open, OpenBLAS runs single-threaded so that kernels may call
 * GEMM from several OpenMP threads at once (mixing the two thread pools
 * oversubscribes the cores). Sections nest and may be opened from any thread. */
NB_INTERNAL void nn_blas_serial_begin(void);
NB_INTERNAL void nn_blas_serial_end(void);

/* Threads to use for `work` units of roughly a few hundred nanoseconds each. */
static inline int nn_threads(double work) {
#ifdef _OPENMP
    if (work < 32768.0 || omp_in_parallel()) return 1;
    return omp_get_max_threads();
#else
    (void)work;
    return 1;
#endif
}

/* The reductions of the losses: mean of n values whose sum is s. */
static inline double nn_reduce(double sum, int64_t n, int32_t reduction) {
    return reduction == NN_RED_MEAN ? sum / (double)n : sum;
}

NB_INTERNAL nb_status nn_check_reduction(const char* op, int32_t reduction);

/* PyTorch's pooling_output_shape: the output size of a pooling window along one dim. */
NB_INTERNAL int64_t nn_pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode);

#endif /* NABLA_OPS_NN_COMMON_H_ */
