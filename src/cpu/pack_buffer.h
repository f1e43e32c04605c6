/* pack_buffer.h: the packing memory of nabla's own GEMMs (sgemm_avx512.c,
 * bgemm_avx512bf16.c), kept per calling thread and grown on demand. */
#ifndef NABLA_CPU_PACK_BUFFER_H_
#define NABLA_CPU_PACK_BUFFER_H_

#include "../core/internal.h"

/* At least `bytes` of 2 MiB-aligned memory owned by the calling thread (freed
 * when it exits); the same memory on every call that needs no more. NULL when
 * it could not be had. */
NB_INTERNAL void* nb_pack_buffer(size_t bytes);

#endif /* NABLA_CPU_PACK_BUFFER_H_ */
