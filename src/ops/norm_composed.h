/* norm_composed.h: layer_norm, batch_norm and group_norm, forward and backward,
 * composed from reductions and elementwise ops for devices without norm kernels
 * (norm_composed.c). The callers (norm.c, norm_backward.c) validate first. */
#ifndef NABLA_OPS_NORM_COMPOSED_H_
#define NABLA_OPS_NORM_COMPOSED_H_

#include "nn_common.h"

/* Where a norm takes its statistics and how its parameters broadcast. */
typedef struct {
    int64_t view[NB_MAX_DIMS];  /* the shape the statistics are taken in (a reshape of x) */
    int32_t view_ndim;
    int64_t stat[NB_MAX_DIMS];  /* the dims of view reduced for the statistics */
    int32_t nstat;
    int64_t pshape[NB_MAX_DIMS]; /* the shape weight and bias are read in, broadcasting against x */
    int32_t pndim;
    int64_t pdims[NB_MAX_DIMS]; /* the dims of x their gradients sum over */
    int32_t npdims;
} nn_norm_geom;

/* The geometries: the last ndim dims; every dim but 1 (per channel); groups of channels. */
NB_INTERNAL nn_norm_geom nn_norm_geom_layer(const nb_tensor* x, int32_t ndim);
NB_INTERNAL nn_norm_geom nn_norm_geom_batch(const nb_tensor* x);
NB_INTERNAL nn_norm_geom nn_norm_geom_group(const nb_tensor* x, int64_t groups);

/* y = (x - mean) / sqrt(var + eps) * weight + bias with the batch statistics of g, in
 * dtype kd on x's device. With mean_out / var_out (may be NULL) also the statistics
 * (var unbiased, for running estimates), flattened. */
NB_INTERNAL nb_status nn_norm_composed(const nb_tensor* x, const nn_norm_geom* g, const nb_tensor* weight,
                                       const nb_tensor* bias, double eps, int32_t kd, nb_tensor** out,
                                       nb_tensor** mean_out, nb_tensor** var_out);
/* batch_norm in evaluation mode: the given statistics instead of the batch's. */
NB_INTERNAL nb_status nn_norm_with_stats_composed(const nb_tensor* x, const nn_norm_geom* g, const nb_tensor* mean,
                                                  const nb_tensor* var, const nb_tensor* weight,
                                                  const nb_tensor* bias, double eps, int32_t kd, nb_tensor** out);
/* The gradients of nn_norm_composed for grad_output go: dx (x's shape), dw and db
 * (flattened sums over g->pdims), each NULL when not wanted; in kd. */
NB_INTERNAL nb_status nn_norm_backward_composed(const nb_tensor* go, const nb_tensor* x, const nn_norm_geom* g,
                                                const nb_tensor* weight, double eps, int32_t kd, nb_tensor** dx,
                                                nb_tensor** dw, nb_tensor** db);

#endif  /* NABLA_OPS_NORM_COMPOSED_H_ */
