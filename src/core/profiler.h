/* profiler.h: the profiler's hooks inside the core (see profiler.c).
 *
 * nb_prof_flags is the one word every op entry point and storage allocation
 * reads: 0 while no profiling session runs, so a profiler that is off costs a
 * load and a predicted branch per call. */
#ifndef NABLA_PROFILER_H_
#define NABLA_PROFILER_H_

#include "internal.h"

NB_INTERNAL extern _Atomic int32_t nb_prof_flags; /* NB_PROFILE_* bits plus NB_PROF_ON while running */
#define NB_PROF_ON 0x40000000

static inline bool nb_prof_active(void) {
    return NB_UNLIKELY(atomic_load_explicit(&nb_prof_flags, memory_order_relaxed) != 0);
}

/* An op call begins: returns a token for nb_prof_op_end (-1: not recorded). The
 * tensors are the op's inputs, for record_shapes and for finding its device. */
NB_INTERNAL int64_t nb_prof_op_begin(const char* name, const nb_tensor* const* inputs, int32_t n);
/* The call ended with status; result is the tensor it wrote or returned (NULL: none or
 * unknown), whose shape record_shapes keeps as "out_shape" (the FLOP estimates need it). */
NB_INTERNAL void nb_prof_op_end(int64_t token, nb_status status, const nb_tensor* result);
/* A storage allocation (bytes > 0) or free (bytes < 0) on a device. */
NB_INTERNAL void nb_prof_memory(int32_t device_type, int32_t device_index, const void* ptr, int64_t bytes);

/* Opens the range "autograd::engine::evaluate_function: <node>" around a backward node
 * (closed with nb_profiler_range_pop); false when it could not be opened. */
NB_INTERNAL bool nb_prof_node_begin(const char* node_name);

#endif /* NABLA_PROFILER_H_ */
