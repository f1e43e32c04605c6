/* dlpack_exchange.c: zero-copy exchange with another library through DLPack.
 *
 * The "other library" is written here by hand, as DLPack's spec describes a
 * producer: it owns a float buffer, wraps it in a DLManagedTensorVersioned whose
 * deleter frees it, and hands that to nabla (nb_tensor_from_dlpack_versioned).
 * nabla computes on the same memory (an in-place write shows through), and the
 * deleter runs when nabla drops its last reference. Then the other direction:
 * nabla exports a tensor, and the program reads it as a DLPack consumer would and
 * calls the deleter when done.
 *
 *     cc dlpack_exchange.c $(python -m nabla.config --cflags --libs) -o dlpack_exchange
 */
#include <nabla.h>
#include <nabla/dlpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nb_status st_ = (call);                                                                        \
        if (st_ != NB_OK) {                                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_), nb_last_error_message()); \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

/* ---- the producer: a 2 x 3 float32 matrix it owns ---- */

typedef struct {
    DLManagedTensorVersioned managed;
    int64_t shape[2];
    int64_t strides[2];
    float data[6];
    int* deleted; /* set when the deleter runs, so main can see it */
} producer_tensor;

static void producer_deleter(DLManagedTensorVersioned* self) {
    producer_tensor* t = self->manager_ctx;
    *t->deleted = 1;
    free(t);
}

static DLManagedTensorVersioned* producer_make(int* deleted) {
    producer_tensor* t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    for (int i = 0; i < 6; i++) t->data[i] = (float)(i + 1);
    t->shape[0] = 2, t->shape[1] = 3;
    t->strides[0] = 3, t->strides[1] = 1; /* in elements, as DLPack counts them */
    t->deleted = deleted;
    t->managed.version.major = DLPACK_MAJOR_VERSION;
    t->managed.version.minor = DLPACK_MINOR_VERSION;
    t->managed.manager_ctx = t;
    t->managed.deleter = producer_deleter;
    t->managed.flags = 0; /* writable, not a copy */
    DLTensor* dl = &t->managed.dl_tensor;
    dl->data = t->data;
    dl->device.device_type = kDLCPU;
    dl->device.device_id = 0;
    dl->ndim = 2;
    dl->dtype.code = kDLFloat;
    dl->dtype.bits = 32;
    dl->dtype.lanes = 1;
    dl->shape = t->shape;
    dl->strides = t->strides;
    dl->byte_offset = 0;
    return &t->managed;
}

int main(void) {
    /* 1. Import: nabla wraps the producer's memory without copying. */
    int deleted = 0;
    DLManagedTensorVersioned* managed = producer_make(&deleted);
    if (managed == NULL) return 1;
    const float* producer_data = managed->dl_tensor.data;
    nb_tensor* a = NULL;
    TRY(nb_tensor_from_dlpack_versioned(managed, &a)); /* nabla owns `managed` from here */
    printf("imported a %lld x %lld float32 tensor; same memory: %s\n", (long long)nb_tensor_shape(a)[0],
           (long long)nb_tensor_shape(a)[1], nb_tensor_data_ptr(a) == producer_data ? "yes" : "no");

    /* nabla writes in place: the producer's buffer changes. */
    nb_tensor *two = NULL, *doubled = NULL;
    TRY(nb_scalar(2.0, 2, NB_F32, &two));
    TRY(nb_mul(a, two, a, &doubled)); /* dst = a: in place */
    printf("after a *= 2 in nabla, the producer reads: %g %g %g %g %g %g\n", producer_data[0], producer_data[1],
           producer_data[2], producer_data[3], producer_data[4], producer_data[5]);
    const int shared = producer_data[5] == 12.0f;
    nb_tensor_release(doubled);
    nb_tensor_release(two);
    nb_tensor_release(a); /* the last reference: nabla runs the producer's deleter */
    printf("producer's deleter ran when nabla released the tensor: %s\n", deleted ? "yes" : "no");

    /* 2. Export: a consumer reads nabla's memory through the DLPack structs. */
    const int64_t shape[1] = {4};
    nb_tensor* r = NULL;
    TRY(nb_arange(0.0, 4.0, 1.0, NB_F64, NB_CPU, 0, &r));
    void* out = NULL;
    TRY(nb_tensor_to_dlpack_versioned(r, -1, -1, 0, &out)); /* same device, never copy */
    DLManagedTensorVersioned* exported = out;
    const DLTensor* dl = &exported->dl_tensor;
    const double* values = (const double*)((const char*)dl->data + dl->byte_offset);
    printf("exported: DLPack %u.%u, ndim %d, dtype (code %u, bits %u), shape [%lld], values %g %g %g %g, "
           "zero copy: %s\n",
           exported->version.major, exported->version.minor, dl->ndim, dl->dtype.code, dl->dtype.bits,
           (long long)dl->shape[0], values[0], values[1], values[2], values[3],
           (const void*)values == nb_tensor_data_ptr(r) ? "yes" : "no");
    const int exported_ok = dl->ndim == 1 && dl->shape[0] == shape[0] && values[3] == 3.0;
    nb_tensor_release(r);      /* the export keeps the memory alive ... */
    exported->deleter(exported); /* ... until the consumer calls the deleter */

    const int ok = shared && deleted && exported_ok;
    printf("%s\n", ok ? "DLPack exchange works both ways" : "DLPACK EXCHANGE FAILED");
    return ok ? 0 : 1;
}
