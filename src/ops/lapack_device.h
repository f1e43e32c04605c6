/* lapack_device.h: linear algebra of device tensors through the host. nabla has no
 * device solver yet (cuSOLVER loaded at run time is the plan), so an op whose inputs
 * live on a device copies them to the host, runs there as for CPU tensors (the same
 * checks, results and messages) and copies its results back to the inputs' device:
 * one synchronisation per call, the one PyTorch's checked linalg ops also make to
 * read LAPACK's `info`. */
#ifndef NABLA_OPS_LAPACK_DEVICE_H_
#define NABLA_OPS_LAPACK_DEVICE_H_

#include "../core/internal.h"

typedef struct {
    nb_tensor* host[2];            /* host copies of the inputs (NULL for an absent one) */
    int32_t device_type, device_index;
} nb_host_trip;

/* Whether op's inputs a (and b, may be NULL) are on a device: then *go is set and
 * trip holds their host copies. Inputs on two devices are NB_ERR_DEVICE. */
NB_INTERNAL nb_status nb_host_trip_begin(const char* op, const nb_tensor* a, const nb_tensor* b, nb_host_trip* trip,
                                         bool* go);
/* Ends a trip: frees the host inputs and, when the op succeeded (st NB_OK), moves
 * each output *outs[i] (outs[i] may be NULL: not asked for) to the inputs' device.
 * If a move fails, every output is released and *outs[i] restored to prev[i], the
 * value before the call: a failed call leaves its out-parameters untouched. */
NB_INTERNAL nb_status nb_host_trip_end(nb_host_trip* trip, nb_status st, nb_tensor** const* outs,
                                       nb_tensor* const* prev, int nouts);

/* In an op's body, before its CPU path: when the inputs are on a device, returns
 * `call` (the op itself on trip_in[0], trip_in[1]) with the outputs moved back. */
#define NB_LINALG_ON_HOST(op, a, b, call, ...)                                        \
    do {                                                                              \
        nb_host_trip trip_;                                                           \
        bool go_ = false;                                                             \
        nb_status trip_st_ = nb_host_trip_begin(op, a, b, &trip_, &go_);              \
        if (trip_st_ != NB_OK) return trip_st_;                                       \
        if (go_) {                                                                    \
            const nb_tensor* const trip_in[2] = {trip_.host[0], trip_.host[1]};       \
            (void)trip_in;                                                            \
            nb_tensor** const trip_outs_[] = {__VA_ARGS__};                           \
            enum { trip_n_ = sizeof trip_outs_ / sizeof trip_outs_[0] };              \
            nb_tensor* trip_prev_[trip_n_];                                           \
            for (int i_ = 0; i_ < trip_n_; i_++)                                      \
                trip_prev_[i_] = trip_outs_[i_] ? *trip_outs_[i_] : NULL;             \
            trip_st_ = (call);                                                        \
            return nb_host_trip_end(&trip_, trip_st_, trip_outs_, trip_prev_, trip_n_); \
        }                                                                             \
    } while (0)

#endif /* NABLA_OPS_LAPACK_DEVICE_H_ */
