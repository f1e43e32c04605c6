/* sim_device.h: a simulated device for testing the caching allocator on a CPU.
 *
 * Memory is address space only (never touched): segments get fresh, 2 MiB
 * aligned addresses and count against a capacity, so out-of-memory can be
 * provoked, or injected for the next n raw allocations. Streams are queues of
 * work items that complete only when the test says so; an event completes when
 * its stream has finished the work queued before it was recorded. Every raw
 * call is counted, so tests can prove the steady state makes none. */
#ifndef NABLA_SIM_DEVICE_H_
#define NABLA_SIM_DEVICE_H_

#include "caching_allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_SIM_MAX_STREAMS 16

typedef struct nb_sim_counts {
    int64_t raw_alloc, raw_free, raw_alloc_failed;
    int64_t event_create, event_destroy, event_record, event_query, event_sync;
    int64_t in_use_bytes;  /* raw bytes currently allocated */
} nb_sim_counts;

typedef struct nb_sim_device nb_sim_device;

NB_CA_HIDDEN nb_sim_device* nb_sim_create(int64_t capacity_bytes);
NB_CA_HIDDEN void nb_sim_destroy(nb_sim_device* sim);
/* The interface to hand to nb_ca_create. */
NB_CA_HIDDEN nb_ca_device nb_sim_interface(nb_sim_device* sim);
/* The handle of simulated stream i (0 <= i < NB_SIM_MAX_STREAMS); stream 0 is the default. */
NB_CA_HIDDEN void* nb_sim_stream(nb_sim_device* sim, int i);
/* Queues one work item on the stream (a kernel that has not run yet). */
NB_CA_HIDDEN void nb_sim_launch(nb_sim_device* sim, void* stream);
/* Finishes every work item queued on the stream so far. */
NB_CA_HIDDEN void nb_sim_complete(nb_sim_device* sim, void* stream);
/* The next n raw allocations fail with out-of-memory. */
NB_CA_HIDDEN void nb_sim_fail_next(nb_sim_device* sim, int n);
NB_CA_HIDDEN void nb_sim_set_capacity(nb_sim_device* sim, int64_t capacity_bytes);
NB_CA_HIDDEN nb_sim_counts nb_sim_get_counts(nb_sim_device* sim);

#ifdef __cplusplus
}
#endif

#endif /* NABLA_SIM_DEVICE_H_ */
