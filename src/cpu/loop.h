/* loop.h: the CPU elementwise driver and the kernel signature it calls. */
#ifndef NABLA_CPU_LOOP_H_
#define NABLA_CPU_LOOP_H_

#include "../core/internal.h"

#define NB_LOOP_MAX_OPS 4

/* A kernel processes n elements: data[k] points at operand k's first element,
 * strides[k] is its step in bytes (0 for a broadcast operand). Operand 0 is the
 * output. ctx carries op attributes (alpha, bounds...). */
typedef void (*nb_loop_fn)(char* const* data, const int64_t* strides, int64_t n, const void* ctx);

/* Calls fn over every element of `shape`; strides[k][d] in bytes per operand. */
NB_INTERNAL void nb_cpu_loop(int32_t nops, char* const* base, const int64_t strides[][NB_MAX_DIMS],
                             const int64_t* shape, int32_t ndim, nb_loop_fn fn, const void* ctx);

#endif /* NABLA_CPU_LOOP_H_ */
