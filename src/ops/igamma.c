/* igamma.c: the regularised incomplete gamma functions igamma(a, x) = P(a, x) and
 * igammac(a, x) = Q(a, x) (torch.special.gammainc / gammaincc), and dP/dx for their
 * gradient. Floating inputs only, as PyTorch; every dtype computes in double
 * (igamma_scalar.h, shared with the CUDA kernels). */
#include "igamma.h"

#include "../core/elementwise.h"
#include "igamma_scalar.h"

#define IGAMMA_LOOP(NAME, T, FN)                                                                       \
    static void NAME(char* const* d, const int64_t* s, int64_t n, const void* ctx) {                  \
        (void)ctx;                                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                              \
            const double a = *(const T*)(d[1] + i * s[1]), x = *(const T*)(d[2] + i * s[2]);           \
            *(T*)(d[0] + i * s[0]) = (T)FN(a, x);                                                      \
        }                                                                                              \
    }

IGAMMA_LOOP(igamma_f32, float, nb_scalar_igamma)
IGAMMA_LOOP(igamma_f64, double, nb_scalar_igamma)
IGAMMA_LOOP(igammac_f32, float, nb_scalar_igammac)
IGAMMA_LOOP(igammac_f64, double, nb_scalar_igammac)
IGAMMA_LOOP(igamma_dx_f32, float, nb_scalar_igamma_dx)
IGAMMA_LOOP(igamma_dx_f64, double, nb_scalar_igamma_dx)

#define IGAMMA_OP(VAR, NAME, CODE, TAG)                                                               \
    static const nb_ew_op VAR = {NAME, CODE, 2, NB_EW_SAME, false, false, NB_EW_OUT_CAST,              \
                                 {[NB_F32] = TAG##_f32, [NB_F64] = TAG##_f64}};

IGAMMA_OP(op_igamma, "igamma", NB_BK_IGAMMA, igamma)
IGAMMA_OP(op_igammac, "igammac", NB_BK_IGAMMAC, igammac)
IGAMMA_OP(op_igamma_dx, "igamma_dx", NB_BK_IGAMMA_DX, igamma_dx)

static nb_status run2(const nb_ew_op* op, const nb_tensor* a, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    const nb_tensor* in[2] = {a, x};
    return nb_ew_run(op, in, dst, NULL, out);
}

nb_status nbi_igamma(const nb_tensor* a, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    return run2(&op_igamma, a, x, dst, out);
}

nb_status nbi_igammac(const nb_tensor* a, const nb_tensor* x, nb_tensor* dst, nb_tensor** out) {
    return run2(&op_igammac, a, x, dst, out);
}

nb_status nb_igamma_dx_kernel(const nb_tensor* a, const nb_tensor* x, nb_tensor** out) {
    return run2(&op_igamma_dx, a, x, NULL, out);
}
