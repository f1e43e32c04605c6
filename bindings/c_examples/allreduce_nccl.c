/* allreduce_nccl.c: collectives on CUDA tensors from C, over NCCL bootstrapped through MPI. Each
 * process fills a CUDA tensor with its rank, sums it across processes (asynchronously: the wait makes
 * the current stream wait, not the host) and gathers every rank's piece, then checks both on the host.
 * Without MPI, NCCL or a CUDA device it says what is missing and stops (exit status 0).
 *
 *     cc allreduce_nccl.c $(python -m nabla.config --cflags --libs) -o allreduce_nccl
 *     mpiexec -n 2 ./allreduce_nccl    (NCCL: `pip install nvidia-nccl-cu13`, then point NABLA_NCCL_LIBRARY
 *                                       at its libnccl.so.2 unless it is on the loader path)
 */
#include <nabla.h>

#include <stdio.h>

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nb_status st_ = (call);                                                                        \
        if (st_ != NB_OK) {                                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_), nb_last_error_message()); \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

enum { K = 4 }; /* elements per rank */

int main(void) {
    int32_t devices = 0;
    if (nb_comm_available(NULL) != NB_OK || nb_comm_nccl_available(NULL, NULL) != NB_OK ||
        nb_device_count(NB_CUDA, &devices) != NB_OK) {
        printf("not available: %s\n", nb_last_error_message());
        return 0;
    }
    if (devices == 0) {
        printf("not available: no CUDA device\n");
        return 0;
    }
    nb_comm *world, *gpus;
    TRY(nb_comm_init_mpi(NULL, 60.0, &world));
    TRY(nb_comm_init_nccl(world, NULL, -1, &gpus)); /* -1: the current CUDA device */
    int rank = nb_comm_rank(gpus), size = nb_comm_size(gpus);

    float mine[K];
    for (int i = 0; i < K; i++) mine[i] = (float)(rank + i);
    int64_t shape[1] = {K}, all_shape[1] = {(int64_t)K * size};
    nb_tensor *t, *piece, *all;
    TRY(nb_tensor_from_host(mine, shape, 1, NB_F32, NB_CUDA, 0, &t));
    TRY(nb_tensor_from_host(mine, shape, 1, NB_F32, NB_CUDA, 0, &piece));
    TRY(nb_zeros(all_shape, 1, NB_F32, NB_CUDA, 0, &all));
    nb_work* work;
    TRY(nb_comm_all_reduce(gpus, t, NB_REDUCE_OP_SUM, &work)); /* queued on the current stream */
    TRY(nb_comm_all_gather(gpus, all, piece, NULL));
    TRY(nb_work_wait(work));
    nb_work_release(work);

    float sum[K], gathered[64 * K];
    TRY(nb_tensor_copy_to_host(t, sum, sizeof sum)); /* waits for the device */
    TRY(nb_tensor_copy_to_host(all, gathered, (int64_t)sizeof(float) * K * size));
    int bad = size > 64;
    for (int i = 0; i < K; i++) bad |= sum[i] != (float)(size * (size - 1) / 2 + size * i);
    for (int r = 0; r < size && !bad; r++)
        for (int i = 0; i < K; i++) bad |= gathered[r * K + i] != (float)(r + i);
    printf("rank %d of %d: sum [%g, %g, %g, %g], gathered %d pieces: %s\n", rank, size, sum[0], sum[1], sum[2],
           sum[3], size, bad ? "MISMATCH" : "OK");
    nb_tensor_release(t), nb_tensor_release(piece), nb_tensor_release(all);
    nb_comm_release(gpus);
    nb_comm_release(world);
    TRY(nb_comm_finalize());
    return bad;
}
