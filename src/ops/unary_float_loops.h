/* unary_float_loops.h: the float32 / float64 unary loops, included by
 * unary_float.c once per instruction set with NB_V(name) naming the variant and
 * NB_AVX512 telling whether vecmath_avx512.h's kernels are there.
 * No include guard on purpose. */

/* ---- math (ints compute as the default float) ---- */
#if NB_AVX512 /* whole-vector kernels of vecmath_avx512.h */
ARRAYS(exp, nb_exp_f32_avx512, nb_exp_f64_avx512)
ARRAYS(expm1, nb_expm1_f32_avx512, nb_expm1_f64_avx512)
ARRAYS(tanh, nb_tanh_f32_avx512, nb_tanh_f64_avx512)
ARRAYS(sigmoid, nb_sigmoid_f32_avx512, nb_sigmoid_f64_avx512)
ARRAYS(silu, nb_silu_f32_avx512, nb_silu_f64_avx512)
ARRAYS(sqrt, nb_sqrt_f32_avx512, nb_sqrt_f64_avx512)
ARRAYS(rsqrt, nb_rsqrt_f32_avx512, nb_rsqrt_f64_avx512)
ARRAYS(elu, nb_elu_f32_avx512, nb_elu_f64_avx512)
ARRAYS(log, nb_log_f32_avx512, nb_log_f64_avx512)
UNARY_BLOCKED(erf_f32, float, NOTHING, CALL_RUN, nb_erf_f32_avx512)
MATH(double, f64, erf, LIBM(erf, x))
UNARY_BLOCKED(gelu_f32, float, NOTHING, CALL_RUN, nb_gelu_f32_avx512)
MATH(double, f64, gelu, 0.5 * x * erfc(-x * SQRT_HALF))
BINARY_BLOCKED(gelu_backward_f32, float, CALL2_RUN, nb_gelu_backward_f32_avx512)
GRAD(double, f64, gelu_backward, 0.5 * erfc(-x * SQRT_HALF) + x * V_EXP(-0.5 * x * x) * INV_SQRT_2PI)
#else
FLOATS(MATH, exp, V_EXP(x))
FLOATS(MATH, expm1, LIBM(expm1, x))
FLOATS(MATH, tanh, LIBM(tanh, x))
FLOATS(MATH, sigmoid, V_SIGMOID(x))
FLOATS(MATH, silu, x * V_SIGMOID(x))
FLOATS(MATH, sqrt, LIBM(sqrt, x))
FLOATS(MATH, log, LIBM(log, x))
FLOATS(MATH, erf, LIBM(erf, x))
/* erfc(-x / sqrt 2), not 1 + erf(x / sqrt 2): no cancellation for negative x */
FLOATS(MATH, gelu, (T)0.5 * x * LIBM(erfc, -x * (T)SQRT_HALF))
FLOATS(GRAD, gelu_backward,
       (T)0.5 * LIBM(erfc, -x * (T)SQRT_HALF) + x * V_EXP((T)-0.5 * x * x) * (T)INV_SQRT_2PI)
FLOATS(MATH, rsqrt, (T)1 / LIBM(sqrt, x))
FLOATS(LOOP, elu, const T alpha = (T)ctx->alpha, x > 0 ? x : alpha * LIBM(expm1, x))
#endif
FLOATS(MATH, log1p, V_LOG1P(x))
FLOATS(MATH, exp2, LIBM(exp2, x))
FLOATS(MATH, log2, LIBM(log2, x))
FLOATS(MATH, log10, LIBM(log10, x))
FLOATS(MATH, sin, LIBM(sin, x))
FLOATS(MATH, cos, LIBM(cos, x))
FLOATS(MATH, tan, LIBM(tan, x))
FLOATS(MATH, asin, LIBM(asin, x))
FLOATS(MATH, acos, LIBM(acos, x))
FLOATS(MATH, atan, LIBM(atan, x))
FLOATS(MATH, sinh, LIBM(sinh, x))
FLOATS(MATH, cosh, LIBM(cosh, x))
FLOATS(MATH, erfc, LIBM(erfc, x))
FLOATS(MATH, reciprocal, (T)1 / x)

/* ---- activations with parameters, in the input's precision as in PyTorch ---- */
/* (1 + tanh u) / 2 = sigmoid(2u): no cancellation for negative x */
FLOATS(LOOP, gelu_tanh, NOTHING, x * V_SIGMOID((T)(2 * SQRT_2_OVER_PI) * (x + (T)0.044715 * x * x * x)))
/* d/dx x s(w), s = sigmoid, w = 2u = 2k (x + c x^3): s + x s (1 - s) w' (PyTorch's formula,
 * with (1 + tanh u) / 2 = s and 1 - tanh^2 u = 4 s (1 - s)) */
FLOATS(GRAD, gelu_tanh_backward, ({
           const T w = (T)(2 * SQRT_2_OVER_PI) * (x + (T)0.044715 * x * x * x);
           const T sg = V_SIGMOID(w);
           sg + x * sg * ((T)1 - sg) * (T)(2 * SQRT_2_OVER_PI) * ((T)1 + (T)(3 * 0.044715) * x * x);
       }))
FLOATS(LOOP, softplus, const T beta = (T)ctx->alpha; const T threshold = (T)ctx->beta,
       x * beta > threshold ? x : V_LOG1P(V_EXP(beta * x)) / beta)
FLOATS(LOOP, leaky_relu, const T slope = (T)ctx->alpha, x > 0 ? x : x * slope)

/* ---- same-dtype ops ---- */
FLOATS(MATH, neg, -x)
FLOATS(MATH, abs, LIBM(fabs, x))
FLOATS(MATH, sign, x != x ? x : (T)((x > 0) - (x < 0)))
FLOATS(MATH, relu, x != x ? x : x > 0 ? x : 0)
FLOATS(MATH, square, x * x)
FLOATS(MATH, floor, LIBM(floor, x))
FLOATS(MATH, ceil, LIBM(ceil, x))
FLOATS(MATH, round, LIBM(rint, x)) /* half to even, as PyTorch and NumPy */
FLOATS(MATH, trunc, LIBM(trunc, x))
FLOATS(LOOP, nan_to_num, const T vnan = (T)ctx->alpha; const T vpos = (T)ctx->beta; const T vneg = (T)ctx->gamma,
       x != x ? vnan : x == (T)INFINITY ? vpos : x == (T)-INFINITY ? vneg : x)
/* min(max(x, lo), hi): with lo > hi every element becomes hi, as in PyTorch */
FLOATS(LOOP, clamp, const T lo = (T)ctx->alpha; const T hi = (T)ctx->beta,
       x != x ? x : (x < lo ? lo : x) > hi ? hi : (x < lo ? lo : x))
