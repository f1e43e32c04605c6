/* pool_device.h: the pooling family on a device backend. pool.c and
 * pool_backward.c validate and size everything; these fill an nb_bk_pool from
 * the operands and hand it to the device's pool slot, queued on the current
 * stream. The CPU keeps its own kernels (pool.c, pool_backward.c). */
#ifndef NABLA_OPS_POOL_DEVICE_H_
#define NABLA_OPS_POOL_DEVICE_H_

#include "../core/backend.h"
#include "../core/internal.h"

static inline bool nn_pool_on_device(const nb_tensor* t) { return t->storage->device_type != NB_CPU; }

/* Completes plan p (kind, backward and the window attributes already set) from
 * x (the input side: [N, C, *in_size]), y (the output side: [N, C, *out_size])
 * and indices (NULL, or int64 of y's shape): dtype (x's), sizes, data and
 * strides; then queues it on x's device. */
NB_INTERNAL nb_status nn_pool_launch(const char* op, nb_bk_pool* p, const nb_tensor* x, const nb_tensor* y,
                                     const nb_tensor* indices);

/* A new uninitialised tensor on like's device. */
NB_INTERNAL nb_status nn_pool_empty_like_device(const char* op, const nb_tensor* like, const int64_t* shape,
                                                int32_t ndim, int32_t dtype, nb_tensor** out);

/* nb_max_pool2d_backward given the forward's window (kernel_size, stride, padding, dilation: pairs, all
 * NULL when unknown), which lets a device gather each input position from the few cells covering it;
 * the CPU kernel does not need it. */
NB_INTERNAL nb_status nn_max_pool2d_backward_window(const nb_tensor* grad_output, const nb_tensor* indices,
                                                    const int64_t* input_size, const int64_t* kernel_size,
                                                    const int64_t* stride, const int64_t* padding,
                                                    const int64_t* dilation, nb_tensor* dst, nb_tensor** out);

#endif /* NABLA_OPS_POOL_DEVICE_H_ */
