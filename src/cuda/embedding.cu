// embedding.cu: the fused embedding backward (nb_bk_embedding). The front end
// hands over the indices sorted stably with their positions, so the rows of
// one weight row form one run: a block owns a row r, finds its run [lo, hi)
// by binary search and each thread sums its columns over the run in order
//     grad_weight[r, c] = sum_{k in [lo, hi)} s grad[order[k], c]   (s = 1 / (hi - lo) with scale_grad_by_freq)
// in float32 (float64 for float64), writing zeros for rows without indices
// and for padding_idx. Every row is written once, by one block: no atomics and
// no zero fill. The sorted ends tell whether any index is out of range.
#include "kernels.h"
#include "fused_common.cuh"
#include "launch.cuh"

namespace nbcuda {
namespace {

constexpr int kEmbThreads = 256;
constexpr int64_t kEmbMaxBlocks = 65535 * 8;

// The first k in [0, P) with sorted[k] > r (upper) or >= r (lower).
template <typename I> __device__ int64_t bound(const I* sorted, int64_t P, int64_t r, bool upper) {
    int64_t lo = 0, hi = P;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const int64_t v = sorted[mid];
        if (v < r || (upper && v == r)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

template <int Code, typename I>
__global__ void embedding_backward(nb_bk_embedding a, OpName nm, DevError* err) {
    using A = typename AccOf<Code>::type;
    __shared__ int64_t run[2];
    const I* sorted = static_cast<const I*>(a.sorted);
    if (blockIdx.x == 0 && threadIdx.x == 0 && a.P > 0) {  // the smallest and largest index are the ends
        const int64_t first = sorted[0], last = sorted[a.P - 1];
        if (first < 0 || last >= a.V) claim_error(err, kDevErrorEmbedding, nm, first < 0 ? first : last, a.V);
    }
    for (int64_t r = blockIdx.x; r < a.V; r += gridDim.x) {
        if (threadIdx.x == 0) run[0] = bound<I>(sorted, a.P, r, false), run[1] = bound<I>(sorted, a.P, r, true);
        __syncthreads();
        const int64_t lo = run[0], hi = r == a.padding_idx ? run[0] : run[1];
        const A s = a.scale_grad_by_freq && hi > lo ? A(1) / static_cast<A>(hi - lo) : A(1);
        for (int64_t c = threadIdx.x; c < a.D; c += blockDim.x) {
            A acc = 0;
            for (int64_t k = lo; k < hi; k++) {
                const A v = ld_acc<Code>(a.grad, a.order[k] * a.D + c);
                acc += a.scale_grad_by_freq ? v * s : v;
            }
            st_f64<Code>(a.out, r * a.D + c, static_cast<double>(acc));
        }
        __syncthreads();
    }
}

int threads_for(int64_t D) {
    int t = 32;
    while (t < kEmbThreads && t < D) t *= 2;
    return t;
}

template <int Code> cudaError_t launch(const nb_bk_embedding& a, DevError* err, cudaStream_t s) {
    if (a.V == 0 || a.D == 0) return cudaSuccess;
    const OpName nm = op_name(a.name);
    const unsigned blocks = static_cast<unsigned>(a.V < kEmbMaxBlocks ? a.V : kEmbMaxBlocks);
    if (a.index_dtype == NB_I32)
        NB_LAUNCH(dim3(blocks), dim3(threads_for(a.D)), 0, s, embedding_backward<Code, int32_t>)(a, nm, err);
    else
        NB_LAUNCH(dim3(blocks), dim3(threads_for(a.D)), 0, s, embedding_backward<Code, int64_t>)(a, nm, err);
    return cudaGetLastError();
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_embedding(const nb_bk_embedding* args, void* device_error, cudaStream_t stream) {
    nbcuda::DevError* err = static_cast<nbcuda::DevError*>(device_error);
    if (args->index_dtype != NB_I64 && args->index_dtype != NB_I32) return cudaErrorInvalidValue;
    return nbcuda::by_float_dtype(args->dtype, [&](auto code) {
        return nbcuda::launch<decltype(code)::value>(*args, err, stream);
    });
}
