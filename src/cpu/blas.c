/* blas.c: the OpenBLAS binding (scipy-openblas32, whose CBLAS symbols carry a
 * "scipy_" prefix). GEMM kernels build on this; for now it reports the build. */
#include "kernels.h"

#include <cblas.h>

NB_API const char* nb_blas_info(void) { return scipy_openblas_get_config(); }
