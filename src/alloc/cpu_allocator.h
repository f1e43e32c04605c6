/* cpu_allocator.h: 64-byte aligned host memory with size-class free lists. */
#ifndef NABLA_CPU_ALLOCATOR_H_
#define NABLA_CPU_ALLOCATOR_H_

#include "../core/internal.h"

/* Never returns NULL for size 0; NULL only when the system is out of memory. */
NB_INTERNAL void* nb_cpu_alloc(size_t nbytes);
/* nbytes must be the size passed to nb_cpu_alloc. NULL-safe. */
NB_INTERNAL void nb_cpu_free(void* ptr, size_t nbytes);
/* nb_cpu_free for a handle object (tensor, stream, event) whose magic word was cleared: the
 * block stays untouched in the calling thread's quarantine for the next NB_HANDLE_QUARANTINE
 * such releases, so a stale handle reads a dead magic word instead of a newer object. */
NB_INTERNAL void nb_cpu_free_handle(void* ptr, size_t nbytes);
NB_INTERNAL void nb_cpu_stats(nb_memory_stats* out);
NB_INTERNAL void nb_cpu_reset_peak(void);
NB_INTERNAL void nb_cpu_empty_cache(void);
/* nbytes (> 0) of system memory aligned to 2 MiB and advised MADV_HUGEPAGE, outside the
 * caches (the big blocks of nb_cpu_alloc, the GEMMs' packing buffers); free() releases it.
 * NULL when the system is out of memory. */
NB_INTERNAL void* nb_huge_page_alloc(size_t nbytes);

/* Live-object counters reported by nb_memory_stats_get (per thread, summed on query). */
#define NB_LIVE_TENSOR 0
#define NB_LIVE_STORAGE 1
NB_INTERNAL void nb_count_live(int32_t kind, int64_t delta);

#endif /* NABLA_CPU_ALLOCATOR_H_ */
