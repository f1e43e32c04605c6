/* capability.c: see capability.h. */
#include "capability.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static int detect(void) {
    int level = NB_CPU_DEFAULT;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
        __builtin_cpu_supports("f16c"))
        level = NB_CPU_AVX2;
    if (level == NB_CPU_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
        level = NB_CPU_AVX512;
    if (level == NB_CPU_AVX512 && __builtin_cpu_supports("avx512bf16")) level = NB_CPU_AVX512_BF16;
#endif
    const char* cap = getenv("NABLA_CPU_CAPABILITY");
    if (cap != NULL && strcmp(cap, "avx512") == 0 && level > NB_CPU_AVX512) level = NB_CPU_AVX512;
    if (cap != NULL && strcmp(cap, "avx2") == 0 && level > NB_CPU_AVX2) level = NB_CPU_AVX2;
    if (cap != NULL && strcmp(cap, "default") == 0) level = NB_CPU_DEFAULT;
    return level;
}

_Atomic int nb_cpu_level_cache = -1;

int nb_cpu_capability(void) {
    int level = atomic_load_explicit(&nb_cpu_level_cache, memory_order_relaxed);
    if (level < 0) {  /* racing first calls compute the same value */
        level = detect();
        atomic_store_explicit(&nb_cpu_level_cache, level, memory_order_relaxed);
    }
    return level;
}
