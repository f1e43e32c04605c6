/* threads.c: the size of the CPU thread pool, like torch.set_num_threads. One
 * pool serves everything: GEMM too runs on OpenMP threads, with OpenBLAS itself
 * single-threaded (see gemm.c), so the two never compete for cores. */
#include "kernels.h"

#ifdef _OPENMP
#include <omp.h>
#endif

NB_API nb_status nb_set_num_threads(int32_t n) {
    if (n < 1) return nb_error(NB_ERR_INVALID_ARGUMENT, "set_num_threads: expected a positive number of threads, got %d", (int)n);
#ifdef _OPENMP
    omp_set_num_threads(n);
#endif
    return NB_OK;
}

NB_API int32_t nb_get_num_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
