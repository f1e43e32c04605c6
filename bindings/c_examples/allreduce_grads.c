/* allreduce_grads.c: data-parallel gradients from C. Each process computes the gradient of a
 * least-squares loss on its own equal share of a batch, then averages the gradients with
 * nb_comm_all_reduce; every process must get the gradient of the whole batch, which it also computes
 * alone to check. Without MPI it says how to install it and stops (exit status 0: nothing to show).
 *
 *     cc allreduce_grads.c $(python -m nabla.config --cflags --libs) -lm -o allreduce_grads
 *     mpiexec -n 2 ./allreduce_grads         (mpiexec and libmpi_abi.so.1 come with `pip install mpich`;
 *                                            set NABLA_MPI_LIBRARY when the library is not on the loader path)
 */
#include <nabla.h>

#include <math.h>
#include <stdio.h>

#define TRY(call)                                                                                      \
    do {                                                                                               \
        nb_status st_ = (call);                                                                        \
        if (st_ != NB_OK) {                                                                            \
            fprintf(stderr, "%s failed: %s: %s\n", #call, nb_status_name(st_), nb_last_error_message()); \
            return 1;                                                                                  \
        }                                                                                              \
    } while (0)

enum { N = 8, D = 3 }; /* whole batch of N rows; each of the size ranks takes N / size (1, 2, 4 or 8) */

static double xs(int i, int j) { return 0.1 * (i + 1) * (j + 2) - 0.3 * j; }
static double ys(int i) { return 1.0 - 0.2 * i; }

/* d/dw of mean((x w - y)^2) over rows [lo, hi), through nabla's autograd. */
static int grad_of(int lo, int hi, double* out) {
    double x[N * D], y[N], w0[D] = {0.5, -0.25, 1.0};
    int rows = hi - lo;
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < D; j++) x[i * D + j] = xs(lo + i, j);
        y[i] = ys(lo + i);
    }
    int64_t xshape[2] = {rows, D}, yshape[1] = {rows}, wshape[1] = {D};
    nb_tensor *X, *Y, *W, *pred, *loss, *g;
    TRY(nb_tensor_from_host(x, xshape, 2, NB_F64, NB_CPU, 0, &X));
    TRY(nb_tensor_from_host(y, yshape, 1, NB_F64, NB_CPU, 0, &Y));
    TRY(nb_tensor_from_host(w0, wshape, 1, NB_F64, NB_CPU, 0, &W));
    TRY(nb_tensor_set_requires_grad(W, 1));
    TRY(nb_matmul(X, W, NULL, &pred));
    TRY(nb_mse_loss(pred, Y, NULL, NB_REDUCTION_MEAN, NULL, &loss));
    TRY(nb_backward(&loss, NULL, 1, 0, 0));
    TRY(nb_tensor_get_grad(W, &g));
    TRY(nb_tensor_copy_to_host(g, out, D * (int64_t)sizeof(double)));
    nb_tensor* all[] = {X, Y, W, pred, loss, g};
    for (int i = 0; i < 6; i++) nb_tensor_release(all[i]);
    return 0;
}

int main(void) {
    if (nb_comm_available(NULL) != NB_OK) {
        printf("MPI is not available: %s\n", nb_last_error_message());
        return 0;
    }
    nb_comm* world;
    TRY(nb_comm_init_mpi(NULL, 60.0, &world));
    int rank = nb_comm_rank(world), size = nb_comm_size(world);
    if (N % size != 0) {
        fprintf(stderr, "run with 1, 2, 4 or 8 processes (got %d)\n", size);
        return 1;
    }
    double local[D], whole[D];
    if (grad_of(rank * N / size, (rank + 1) * N / size, local) || grad_of(0, N, whole)) return 1;

    /* average the local gradients: asynchronously, then wait */
    int64_t shape[1] = {D};
    nb_tensor* g;
    nb_work* work;
    TRY(nb_tensor_from_host(local, shape, 1, NB_F64, NB_CPU, 0, &g));
    TRY(nb_comm_all_reduce(world, g, NB_REDUCE_OP_AVG, &work));
    TRY(nb_work_wait(work));
    nb_work_release(work);
    double avg[D];
    TRY(nb_tensor_copy_to_host(g, avg, sizeof avg));
    double worst = 0;
    for (int j = 0; j < D; j++) worst = fmax(worst, fabs(avg[j] - whole[j]));
    printf("rank %d: averaged gradient [%g, %g, %g], whole-batch [%g, %g, %g]: %s\n", rank, avg[0], avg[1], avg[2],
           whole[0], whole[1], whole[2], worst < 1e-12 ? "OK" : "MISMATCH");

    TRY(nb_comm_barrier(world, NULL));
    nb_comm* dead = world;
    nb_comm_release(world);
    /* a released communicator is refused with a message, never used */
    if (nb_comm_all_reduce(dead, g, NB_REDUCE_OP_SUM, NULL) != NB_OK)
        printf("rank %d: %s\n", rank, nb_last_error_message());
    nb_tensor_release(g);
    TRY(nb_comm_finalize());
    return worst < 1e-12 ? 0 : 1;
}
