/* ew_codes.h: the elementwise kernel codes (nb_bk_ew.op, nb_ew_op.code). GENERATED from the
 * "ew_kernels" of abi/ops/{binary,unary}.json by abi/gen.py; do not edit. Binary kernels come first,
 * then unary ones. C and C++ (the CUDA plugin includes it through backend.h). */
#ifndef NABLA_EW_CODES_H_
#define NABLA_EW_CODES_H_

enum {
    NB_BK_NONE = -1, /* an op without backend kernels */
    NB_BK_ADD = 0,
    NB_BK_SUB = 1,
    NB_BK_MUL = 2,
    NB_BK_DIV = 3,
    NB_BK_DIV_TRUNC = 4,
    NB_BK_DIV_FLOOR = 5,
    NB_BK_REMAINDER = 6,
    NB_BK_FMOD = 7,
    NB_BK_POW = 8,
    NB_BK_MAXIMUM = 9,
    NB_BK_MINIMUM = 10,
    NB_BK_ATAN2 = 11,
    NB_BK_IGAMMA = 12,
    NB_BK_IGAMMA_DX = 13,
    NB_BK_IGAMMAC = 14,
    NB_BK_NEXTAFTER = 15,
    NB_BK_EQ = 16,
    NB_BK_NE = 17,
    NB_BK_LT = 18,
    NB_BK_LE = 19,
    NB_BK_GT = 20,
    NB_BK_GE = 21,
    NB_BK_LOGICAL_AND = 22,
    NB_BK_LOGICAL_OR = 23,
    NB_BK_LOGICAL_XOR = 24,
    NB_BK_BITWISE_AND = 25,
    NB_BK_BITWISE_OR = 26,
    NB_BK_BITWISE_XOR = 27,
    NB_BK_BITWISE_LEFT_SHIFT = 28,
    NB_BK_BITWISE_RIGHT_SHIFT = 29,
    NB_BK_GELU_BACKWARD = 30,
    NB_BK_GELU_TANH_BACKWARD = 31,
    NB_BK_NUM_BINARY = 32,
    NB_BK_EXP = 32,
    NB_BK_EXP2 = 33,
    NB_BK_EXPM1 = 34,
    NB_BK_LOG = 35,
    NB_BK_LOG2 = 36,
    NB_BK_LOG10 = 37,
    NB_BK_LOG1P = 38,
    NB_BK_SQRT = 39,
    NB_BK_RSQRT = 40,
    NB_BK_SIN = 41,
    NB_BK_COS = 42,
    NB_BK_TAN = 43,
    NB_BK_ASIN = 44,
    NB_BK_ACOS = 45,
    NB_BK_ATAN = 46,
    NB_BK_SINH = 47,
    NB_BK_COSH = 48,
    NB_BK_TANH = 49,
    NB_BK_SIGMOID = 50,
    NB_BK_ERF = 51,
    NB_BK_ERFC = 52,
    NB_BK_RECIPROCAL = 53,
    NB_BK_SILU = 54,
    NB_BK_GELU = 55,
    NB_BK_GELU_TANH = 56,
    NB_BK_LEAKY_RELU = 57,
    NB_BK_ELU = 58,
    NB_BK_SOFTPLUS = 59,
    NB_BK_NEG = 60,
    NB_BK_ABS = 61,
    NB_BK_SIGN = 62,
    NB_BK_RELU = 63,
    NB_BK_SQUARE = 64,
    NB_BK_FLOOR = 65,
    NB_BK_CEIL = 66,
    NB_BK_ROUND = 67,
    NB_BK_TRUNC = 68,
    NB_BK_BITWISE_NOT = 69,
    NB_BK_LOGICAL_NOT = 70,
    NB_BK_ISNAN = 71,
    NB_BK_ISINF = 72,
    NB_BK_ISFINITE = 73,
    NB_BK_NAN_TO_NUM = 74,
    NB_BK_CLAMP = 75,
    NB_BK_NUM_OPS = 76
};

/* X(NAME) for every binary / unary kernel, in code order: kernel tables are built from
 * these and static_assert their length against NB_BK_NUM_BINARY / NB_BK_NUM_OPS. */
#define NB_BK_BINARY(X) \
    X(ADD) X(SUB) X(MUL) X(DIV) X(DIV_TRUNC) X(DIV_FLOOR) X(REMAINDER) X(FMOD) \
    X(POW) X(MAXIMUM) X(MINIMUM) X(ATAN2) X(IGAMMA) X(IGAMMA_DX) X(IGAMMAC) X(NEXTAFTER) \
    X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(LOGICAL_AND) X(LOGICAL_OR) \
    X(LOGICAL_XOR) X(BITWISE_AND) X(BITWISE_OR) X(BITWISE_XOR) X(BITWISE_LEFT_SHIFT) X(BITWISE_RIGHT_SHIFT) X(GELU_BACKWARD) X(GELU_TANH_BACKWARD)
#define NB_BK_UNARY(X) \
    X(EXP) X(EXP2) X(EXPM1) X(LOG) X(LOG2) X(LOG10) X(LOG1P) X(SQRT) \
    X(RSQRT) X(SIN) X(COS) X(TAN) X(ASIN) X(ACOS) X(ATAN) X(SINH) \
    X(COSH) X(TANH) X(SIGMOID) X(ERF) X(ERFC) X(RECIPROCAL) X(SILU) X(GELU) \
    X(GELU_TANH) X(LEAKY_RELU) X(ELU) X(SOFTPLUS) X(NEG) X(ABS) X(SIGN) X(RELU) \
    X(SQUARE) X(FLOOR) X(CEIL) X(ROUND) X(TRUNC) X(BITWISE_NOT) X(LOGICAL_NOT) X(ISNAN) \
    X(ISINF) X(ISFINITE) X(NAN_TO_NUM) X(CLAMP)

/* Whether a kernel writes bool (comparisons, logical ops, predicates). */
#define NB_BK_IS_BOOL(op) \
    ((op) == NB_BK_EQ || (op) == NB_BK_NE || (op) == NB_BK_LT || (op) == NB_BK_LE \
     || (op) == NB_BK_GT || (op) == NB_BK_GE || (op) == NB_BK_LOGICAL_AND || (op) == NB_BK_LOGICAL_OR \
     || (op) == NB_BK_LOGICAL_XOR || (op) == NB_BK_LOGICAL_NOT || (op) == NB_BK_ISNAN || (op) == NB_BK_ISINF \
     || (op) == NB_BK_ISFINITE)

#endif /* NABLA_EW_CODES_H_ */
