/* autocast.h: autocast in the op entry points (see autocast.c).
 *
 * nb_ac_mask is the calling thread's set of device types with autocast on (bit
 * NB_AC_CPU, NB_AC_CUDA): 0 on every thread that never enables it, so an op with
 * an autocast policy pays one thread-local load while it is off. */
#ifndef NABLA_AUTOCAST_H_
#define NABLA_AUTOCAST_H_

#include "internal.h"

NB_INTERNAL extern _Thread_local int32_t nb_ac_mask;
#define NB_AC_CPU 1
#define NB_AC_CUDA 2

enum { NB_AC_NONE = 0, NB_AC_LOWER = 1, NB_AC_FP32 = 2, NB_AC_PROMOTE = 3 };

#define NB_AC_MAX_IN 8

/* One autocast op call: the inputs it runs with, the casts it made, the mask to restore. */
typedef struct nb_ac_frame {
    bool active;
    int32_t mask;
    const nb_tensor* t[NB_AC_MAX_IN];
    nb_tensor* owned[NB_AC_MAX_IN];
    const nb_tensor* const* list;       /* the tensor list argument, cast where needed */
    const nb_tensor** list_cast;
    nb_tensor** list_owned;
    int32_t n_list;
} nb_ac_frame;

/* Casts an op's inputs by its policy for the device of its first tensor, then turns
 * autocast off for the call; inactive (inputs as given) when autocast is off for that
 * device, the op has no policy there, or it writes into dst (out=). n <= NB_AC_MAX_IN. */
NB_INTERNAL nb_status nb_ac_begin(nb_ac_frame* f, const char* op, int32_t cpu_policy, int32_t cuda_policy,
                                  const nb_tensor* const* inputs, int32_t n, const nb_tensor* const* list,
                                  int32_t n_list, bool has_dst);
NB_INTERNAL void nb_ac_end(nb_ac_frame* f);

#endif /* NABLA_AUTOCAST_H_ */
