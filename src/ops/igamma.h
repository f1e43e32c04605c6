/* igamma.h: the incomplete gamma kernels the library uses outside the ABI. */
#ifndef NABLA_OPS_IGAMMA_H_
#define NABLA_OPS_IGAMMA_H_

#include "../core/internal.h"

/* out = dP(a, x)/dx = x^(a-1) e^-x / Gamma(a), broadcast (no graph recorded): the gradient of igamma / igammac. */
NB_INTERNAL nb_status nb_igamma_dx_kernel(const nb_tensor* a, const nb_tensor* x, nb_tensor** out);

#endif /* NABLA_OPS_IGAMMA_H_ */
