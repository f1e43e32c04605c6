/* capability.h: the instruction-set level the CPU kernels may use, chosen once
 * per process: the best the CPU runs, capped by NABLA_CPU_CAPABILITY
 * ("avx512", "avx2" or "default", the names of PyTorch's ATEN_CPU_CAPABILITY),
 * so that tests can run every build of a kernel on one machine. */
#ifndef NABLA_CPU_CAPABILITY_H_
#define NABLA_CPU_CAPABILITY_H_

#include "../core/internal.h"

enum { NB_CPU_DEFAULT = 0, NB_CPU_AVX2 = 1, NB_CPU_AVX512 = 2, NB_CPU_AVX512_BF16 = 3 };

/* NB_CPU_AVX512_BF16: NB_CPU_AVX512 and AVX512_BF16 (vdpbf16ps; "avx512" caps it off);
 * NB_CPU_AVX512: AVX-512 F/VL/BW/DQ and everything below; NB_CPU_AVX2: x86-64-v3 (AVX2, FMA, BMI2, F16C);
 * NB_CPU_DEFAULT otherwise and on other architectures. */
NB_INTERNAL int nb_cpu_capability(void);

/* The same, inline for hot loops: one relaxed load once the level is known. */
#include <stdatomic.h>
NB_INTERNAL extern _Atomic int nb_cpu_level_cache;
static inline int nb_cpu_capability_fast(void) {
    const int level = atomic_load_explicit(&nb_cpu_level_cache, memory_order_relaxed);
    return level >= 0 ? level : nb_cpu_capability();
}

#endif /* NABLA_CPU_CAPABILITY_H_ */
