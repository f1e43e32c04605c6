/* promote.c: PyTorch's type promotion. Operands fall in categories bool <
 * integer < floating; the result's category is the highest present, and within
 * it dimensioned tensors outrank 0-dim tensors, which outrank wrapped numbers
 * (Python scalars): int32_tensor + 2.5 is float32, int32_tensor + tensor(2.5,
 * float64) is float64. */
#include "internal.h"

#define F32 NB_F32
#define F64 NB_F64
#define F16 NB_F16
#define BF NB_BF16
#define I8 NB_I8
#define I16 NB_I16
#define I32 NB_I32
#define I64 NB_I64
#define U8 NB_U8
#define B NB_BOOL

/* promote_table[a][b], in dtype code order: f32 f64 f16 bf16 i8 i16 i32 i64 u8 bool */
static const int8_t promote_table[NB_NUM_DTYPES][NB_NUM_DTYPES] = {
    /* f32 */ {F32, F64, F32, F32, F32, F32, F32, F32, F32, F32},
    /* f64 */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64},
    /* f16 */ {F32, F64, F16, F32, F16, F16, F16, F16, F16, F16},
    /* bf16 */ {F32, F64, F32, BF, BF, BF, BF, BF, BF, BF},
    /* i8 */ {F32, F64, F16, BF, I8, I16, I32, I64, I16, I8},
    /* i16 */ {F32, F64, F16, BF, I16, I16, I32, I64, I16, I16},
    /* i32 */ {F32, F64, F16, BF, I32, I32, I32, I64, I32, I32},
    /* i64 */ {F32, F64, F16, BF, I64, I64, I64, I64, I64, I64},
    /* u8 */ {F32, F64, F16, BF, I16, I16, I32, I64, U8, U8},
    /* bool */ {F32, F64, F16, BF, I8, I16, I32, I64, U8, B},
};

int32_t nb_promote_types(int32_t a, int32_t b) { return promote_table[a][b]; }

static int category(int32_t dtype) {
    if (dtype == NB_BOOL) return 0;
    return nb_dtype_is_floating(dtype) ? 2 : 1;
}

int32_t nb_result_type(const nb_tensor* const* operands, int32_t n) {
    /* Per priority (0 dimensioned, 1 zero-dim, 2 wrapped number): the promoted dtype so far. */
    int32_t best[3] = {-1, -1, -1};
    for (int32_t i = 0; i < n; i++) {
        const nb_tensor* t = operands[i];
        int p = t->wrapped_number ? 2 : t->ndim == 0 ? 1 : 0;
        best[p] = best[p] < 0 ? t->dtype : promote_table[best[p]][t->dtype];
    }
    int32_t result = best[0];
    for (int p = 1; p < 3; p++) {
        if (best[p] < 0) continue;
        if (result < 0) {
            result = best[p];
        } else if (category(best[p]) > category(result)) {
            /* a lower-priority operand lifts the category: a wrapped float gives the
             * default float dtype, a 0-dim tensor its own dtype */
            result = p == 2 && nb_dtype_is_floating(best[p]) ? nb_default_float() : p == 2 ? NB_I64 : best[p];
        }
    }
    return result;
}

static _Atomic int32_t default_float = NB_F32;

int32_t nb_default_float(void) { return atomic_load_explicit(&default_float, memory_order_relaxed); }

NB_API nb_status nb_set_default_dtype(int32_t dtype) {
    if (!nb_dtype_is_floating(dtype))
        return nb_error(NB_ERR_DTYPE, "set_default_dtype: only floating-point types are supported as the default "
                        "type, got %s", nb_dtype_str(dtype));
    atomic_store_explicit(&default_float, dtype, memory_order_relaxed);
    return NB_OK;
}

NB_API int32_t nb_get_default_dtype(void) { return nb_default_float(); }

NB_API int32_t nb_result_dtype(const nb_tensor* a, const nb_tensor* b) {
    if (!nb_tensor_ok(a) || !nb_tensor_ok(b)) {
        nb_bad_handle("nb_result_dtype", nb_tensor_ok(a) ? "b" : "a", nb_tensor_ok(a) ? b : a);
        return -1;
    }
    const nb_tensor* ops[2] = {a, b};
    return nb_result_type(ops, 2);
}

NB_API int32_t nb_promote_dtypes(int32_t a, int32_t b) {
    if (!nb_dtype_valid(a) || !nb_dtype_valid(b)) {
        nb_error(NB_ERR_DTYPE, "promote_types: unknown dtype code %d", (int)(nb_dtype_valid(a) ? b : a));
        return -1;
    }
    return promote_table[a][b];
}
