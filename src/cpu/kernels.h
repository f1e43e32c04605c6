/* kernels.h: the CPU backend's kernels, called by the core after validation. */
#ifndef NABLA_CPU_KERNELS_H_
#define NABLA_CPU_KERNELS_H_

#include "../core/internal.h"

/* Converts n elements: dst[i*ds] = convert(src[i*ss]) (strides in elements). */
typedef void (*nb_convert_fn)(void* dst, int64_t ds, const void* src, int64_t ss, int64_t n);

NB_INTERNAL nb_convert_fn nb_cpu_convert_fn(int32_t src_dtype, int32_t dst_dtype);

/* dst = src elementwise over `shape`, with element strides for each side
 * (a broadcast source has stride 0) and dtype conversion. */
NB_INTERNAL void nb_cpu_copy(void* dst, const int64_t* dst_strides, int32_t dst_dtype,
                             const void* src, const int64_t* src_strides, int32_t src_dtype,
                             const int64_t* shape, int32_t ndim);

/* Fills n contiguous elements with a value given as double or exact int64. */
NB_INTERNAL void nb_cpu_fill(void* dst, int32_t dtype, int64_t n, double fvalue, int64_t ivalue,
                             bool is_int);

/* The CPU backend's reduce slot (src/ops/reduce_engine.c): the plan's input has acc_dtype. */
NB_INTERNAL nb_status nb_cpu_reduce(int32_t device_index, const nb_bk_reduce* plan, void* stream);

/* The CPU backend's lines slot (src/ops/lines_engine.c): contiguous tensors only. */
NB_INTERNAL nb_status nb_cpu_lines(int32_t device_index, const nb_bk_lines* plan, void* stream);

#endif /* NABLA_CPU_KERNELS_H_ */
