/* sort_device.h: the sort family on a device backend (sort.c and unique.c
 * validate and size; these build nb_bk_sort plans and hand them to the device's
 * sort slot). The CPU keeps its own kernels in sort.c. */
#ifndef NABLA_OPS_SORT_DEVICE_H_
#define NABLA_OPS_SORT_DEVICE_H_

#include "shape_common.h"

static inline bool nb_sortd_on_device(const nb_tensor* t) { return t->storage->device_type != NB_CPU; }

/* The first k of every line of x along d sorted (stably) into values (x's dtype)
 * and indices (int64), on x's device, size k along d; either may be NULL. */
nb_status nb_sortd_lines(const char* op, const nb_tensor* x, int32_t d, bool descending, int64_t k,
                         nb_tensor* values, nb_tensor* indices);

/* The stable sort of the n contiguous elements of c (any shape) on its device:
 * *sorted (c's dtype, [n]) and *order (int64, [n]: their positions in c). */
nb_status nb_sortd_flat(const char* op, const nb_tensor* c, int64_t n, nb_tensor** sorted, nb_tensor** order);

/* unique (sorted) or unique_consecutive (not) of the flattened x on its device:
 * values, inverse (x's shape) and counts, each asked for by a non-NULL pointer.
 * Reads the number of groups back to the host once. */
nb_status nb_sortd_unique(const char* op, const nb_tensor* x, bool sorted, nb_tensor** values, nb_tensor** inverse,
                          nb_tensor** counts);

/* searchsorted on sorted's device: out (int64 or int32, values' shape, contiguous)
 * from sorted (1-d, or values' leading dims) and values of the same dtype. */
nb_status nb_sortd_search(const char* op, const nb_tensor* sorted, const nb_tensor* values, bool right,
                          nb_tensor* out);

#endif /* NABLA_OPS_SORT_DEVICE_H_ */
