/* index_device.h: the index family on a device backend (index.c validates,
 * sizes and allocates; these build the nb_bk_index plans and hand them to the
 * device's index slot). Launches are queued on the current stream; an
 * out-of-range index is found by the kernel and reported at the next
 * synchronising call (NB_ERR_INDEX, PyTorch's wording), so these never read
 * index values on the host. The CPU keeps its own row driver (index_kernels.h). */
#ifndef NABLA_OPS_INDEX_DEVICE_H_
#define NABLA_OPS_INDEX_DEVICE_H_

#include "shape_common.h"

static inline bool nb_ixd_on_device(const nb_tensor* t) { return t->storage->device_type != NB_CPU; }

/* NB_ERR_DEVICE naming op and both devices unless t (may be NULL) is on x's device. */
nb_status nb_ixd_same_device(const char* op, const nb_tensor* x, const nb_tensor* t);

/* The 0-dim value's bytes converted to dtype, read from any device. */
nb_status nb_ixd_value_bytes(const char* op, const nb_tensor* value, int32_t dtype, char* buf);

/* t itself when on `like`'s device, else a copy there (*owned set, the caller releases it). */
nb_status nb_ixd_to_device_of(const nb_tensor* t, const nb_tensor* like, const nb_tensor** use, nb_tensor** owned);

/* r[i] = x[... index[i] along x's dim d ...]: xmap / imap give, per dim of r, the dim of x and
 * of index it walks (-1: none); r's dim d walks index in place of x's. */
nb_status nb_ixd_take(const char* op, nb_tensor* r, const nb_tensor* x, const nb_tensor* index, int32_t d,
                      const int32_t* xmap, const int32_t* imap);

/* Over index's shape (or source's, for index_add: index a vector along d): target[... index ...]
 * combined with src (NULL: the value bytes). mode -1: write; else NB_SCATTER_SUM (also mean's
 * sum), NB_SCATTER_PROD, NB_SCATTER_AMAX, NB_SCATTER_AMIN. */
nb_status nb_ixd_scatter(const char* op, nb_tensor* target, const nb_tensor* src, const char* value,
                         const nb_tensor* index, int32_t d, int32_t mode, double alpha);
nb_status nb_ixd_index_add(const char* op, nb_tensor* target, const nb_tensor* source, const nb_tensor* index,
                           int32_t d, double alpha);

/* target (of shape[nd]) = value where mask (broadcast to shape). */
nb_status nb_ixd_masked_fill(const char* op, nb_tensor* target, const nb_tensor* mask, const int64_t* shape,
                             int32_t nd, const char* value);
/* The elements of x where mask, both broadcast to shape[nd], as a new 1-D tensor on x's device
 * (the count is read back to the host first, as PyTorch does). */
nb_status nb_ixd_masked_select(const char* op, const nb_tensor* x, const nb_tensor* mask, const int64_t* shape,
                               int32_t nd, nb_tensor** out);
/* nonzero's coordinates, computed on the host and copied back to x's device. */
nb_status nb_ixd_nonzero(const char* op, const nb_tensor* x, nb_tensor** out);

/* Advanced indexing over the result shape[ndim] (its dims [bstart, bstart + bnd) the broadcast
 * index dims): src / out strides per result dim (0 inside the index dims), idx[k] broadcast to
 * the index dims (idx_map: per result dim, the dim of idx[j] or -1), pos / size / stride: the
 * dim each selects along in the indexed tensor. put: target = out, values = src. */
typedef struct {
    int32_t ndim, bstart, bnd, k;
    int64_t shape[NB_MAX_DIMS];
    const nb_tensor* idx[NB_MAX_DIMS];
    int32_t idx_map[NB_MAX_DIMS][NB_MAX_DIMS];
    int32_t pos[NB_MAX_DIMS];
    int64_t size[NB_MAX_DIMS], stride[NB_MAX_DIMS];
} nb_ixd_adv;
nb_status nb_ixd_index(const char* op, const nb_ixd_adv* a, nb_tensor* r, const nb_tensor* x,
                       const int64_t* xstrides);
nb_status nb_ixd_index_put(const char* op, const nb_ixd_adv* a, nb_tensor* target, const int64_t* tstrides,
                           const nb_tensor* values, const int64_t* vstrides, bool accumulate);

#endif /* NABLA_OPS_INDEX_DEVICE_H_ */
