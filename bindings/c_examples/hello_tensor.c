/* hello_tensor.c: a first tour of nabla's C ABI.
 *
 * Build and run (the flags point at the installed libnabla, rpath included):
 *
 *     cc hello_tensor.c $(python -m nabla.config --cflags --libs) -o hello_tensor
 *     ./hello_tensor
 *
 * Three rules cover the whole API:
 *   1. Every fallible call returns an nb_status; NB_OK (0) is success. On failure,
 *      nb_last_error_message() says what went wrong, and out-parameters are untouched.
 *   2. Every tensor you receive is a new reference: release it with nb_tensor_release().
 *   3. Views (transpose, select, slice, ...) share memory with their base tensor.
 */
#include <nabla.h>

#include <stdio.h>

/* Stop on error, printing the message nabla recorded for this thread. */
#define TRY(call)                                                                   \
    do {                                                                            \
        nb_status st_ = (call);                                                     \
        if (st_ != NB_OK) {                                                         \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_),      \
                    nb_last_error_message());                                       \
            return 1;                                                               \
        }                                                                           \
    } while (0)

/* Prints shape, strides and values of a float32 tensor of at most 64 elements. */
static int print_tensor(const char* name, const nb_tensor* t) {
    const int32_t ndim = nb_tensor_ndim(t);
    const int64_t* shape = nb_tensor_shape(t);
    const int64_t* strides = nb_tensor_strides(t);
    printf("%s: %s, shape [", name, nb_dtype_name(nb_tensor_dtype(t)));
    for (int32_t i = 0; i < ndim; i++) printf(i ? ", %lld" : "%lld", (long long)shape[i]);
    printf("], strides [");
    for (int32_t i = 0; i < ndim; i++) printf(i ? ", %lld" : "%lld", (long long)strides[i]);
    printf("], %s\n  values:", nb_tensor_is_contiguous(t) ? "contiguous" : "not contiguous");
    /* copy_to_host writes the elements in row-major order, whatever the strides. */
    float values[64];
    const int64_t n = nb_tensor_numel(t);
    if (n > 64) return 1;
    TRY(nb_tensor_copy_to_host(t, values, n * (int64_t)sizeof(float)));
    for (int64_t i = 0; i < n; i++) printf(" %g", values[i]);
    printf("\n");
    return 0;
}

int main(void) {
    printf("nabla %s (version number %u)\n", nb_version_string(), nb_version());

    /* A 2x3 matrix from host data (copied), on the CPU (device index 0). */
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3};
    nb_tensor* m = NULL;
    TRY(nb_tensor_from_host(data, shape, 2, NB_F32, NB_CPU, 0, &m));
    if (print_tensor("m", m)) return 1;

    /* A transposed view: no copy, same storage, swapped strides. */
    nb_tensor* mt = NULL;
    TRY(nb_tensor_transpose(m, 0, 1, &mt));
    if (print_tensor("m.T", mt)) return 1;
    printf("  shares storage with m: %s\n",
           nb_tensor_storage_data_ptr(mt) == nb_tensor_storage_data_ptr(m) ? "yes" : "no");

    /* Row 1 of m, as a view; writing through it changes m. */
    nb_tensor *row = NULL, *zero = NULL;
    TRY(nb_tensor_select(m, 0, 1, &row));
    TRY(nb_zeros(NULL, 0, NB_F32, NB_CPU, 0, &zero));  /* a 0-dim tensor: broadcasts */
    TRY(nb_tensor_copy_(row, zero));
    if (print_tensor("m after m[1] = 0", m)) return 1;

    /* A single element as a C number. */
    nb_tensor* corner = NULL;
    double value = 0;
    TRY(nb_tensor_select(mt, 0, 2, &corner));  /* m.T[2] is column 2 of m */
    nb_tensor* elem = NULL;
    TRY(nb_tensor_select(corner, 0, 0, &elem));
    TRY(nb_tensor_item_double(elem, &value));
    printf("m[0][2] = %g\n", value);

    /* Errors: an impossible reshape fails, leaves `bad` alone and explains why. */
    const int64_t wrong[2] = {4, 2};
    nb_tensor* bad = NULL;
    nb_status st = nb_tensor_reshape(m, wrong, 2, &bad);
    if (st != NB_OK)
        printf("reshape to [4, 2] failed as expected: %s: %s\n", nb_status_name(st), nb_last_error_message());

    /* Memory counters: every handle above is still alive. */
    nb_memory_stats stats = {.struct_size = sizeof stats};
    TRY(nb_memory_stats_get(NB_CPU, 0, &stats));
    printf("live tensors: %lld, live storages: %lld\n", (long long)stats.live_tensors,
           (long long)stats.live_storages);

    /* Release every handle (order does not matter; storage goes with the last view). */
    nb_tensor* handles[] = {elem, corner, zero, row, mt, m, bad /* NULL: release is NULL-safe */};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++) nb_tensor_release(handles[i]);
    TRY(nb_memory_stats_get(NB_CPU, 0, &stats));
    printf("after release: live tensors: %lld, live storages: %lld\n", (long long)stats.live_tensors,
           (long long)stats.live_storages);
    return stats.live_tensors == 0 ? 0 : 1;
}
