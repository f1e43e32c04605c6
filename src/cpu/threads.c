/* threads.c: the size of the CPU thread pool (OpenMP for nabla's kernels,
 * OpenBLAS for GEMM), like torch.set_num_threads. */
#include "kernels.h"

#include <cblas.h>

#ifdef _OPENMP
#include <omp.h>
#endif

NB_API nb_status nb_set_num_threads(int32_t n) {
    if (n < 1) return nb_error(NB_ERR_INVALID_ARGUMENT, "set_num_threads: expected a positive number of threads, got %d", (int)n);
#ifdef _OPENMP
    omp_set_num_threads(n);
#endif
    scipy_openblas_set_num_threads(n);
    return NB_OK;
}

NB_API int32_t nb_get_num_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
