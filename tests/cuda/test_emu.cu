// test_emu.cu: the CUDA emulator's own tests (src/cuda/emu), built by
// -Demulate_cuda=true as build-emu/src/cuda/test_emu and run by
// tools/cuda_emu_check.sh. Kernels launch through NB_LAUNCH, so the file also
// builds with nvcc; on a real GPU the checks that only the emulator makes
// (deadlock, host pointers) are skipped. Run with NABLA_EMU_DEVICES=2: the
// faults that are sticky for a device use devices 0 and 1 at the very end.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "launch.cuh"

static int failed_checks = 0, passed = 0, failed = 0;
static bool emulated = false;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            std::printf("%s:%d: FAILED CHECK(%s)\n", __FILE__, __LINE__, #cond); \
            failed_checks++;                                                 \
        }                                                                    \
    } while (0)
#define CHECK_CUDA(call) CHECK((call) == cudaSuccess)
// The call fails with err and cudaGetErrorString names what went wrong.
#define CHECK_FAILS(call, err, substr)                                                                    \
    do {                                                                                                  \
        cudaError_t e_ = (call);                                                                          \
        const char* m_ = cudaGetErrorString(e_);                                                          \
        if (e_ != (err) || (emulated && std::strstr(m_, substr) == nullptr)) {                            \
            std::printf("%s:%d: FAILED %s: got %s (%s), want %s with \"%s\"\n", __FILE__, __LINE__, #call, \
                        cudaGetErrorName(e_), m_, #err, substr);                                          \
            failed_checks++;                                                                              \
        }                                                                                                 \
    } while (0)

static void run(const char* name, void (*fn)()) {
    int before = failed_checks;
    fn();
    cudaGetLastError();
    if (failed_checks == before) {
        passed++;
    } else {
        failed++;
        std::printf("FAIL %s\n", name);
    }
}
#define RUN(fn) run(#fn, fn)

// ---- kernels ----

__global__ void block_sum(const float* x, float* out, int n) {  // out[blockIdx.x] = sum of its 256 elements
    __shared__ float s[256];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if ((int)threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

__global__ void warp_ops(const int* x, int* sum_down, int* sum_xor, unsigned* ballot, int* bcast) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = x[i], w = x[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    for (int m = 16; m > 0; m /= 2) w += __shfl_xor_sync(0xffffffffu, w, m);
    const unsigned b = __ballot_sync(0xffffffffu, x[i] % 2);
    const int first = __shfl_sync(0xffffffffu, x[i], 3);
    if (threadIdx.x % 32 == 0) sum_down[i / 32] = v, ballot[i / 32] = b;
    sum_xor[i] = w;
    bcast[i] = first;
}

__global__ void dynamic_reverse(float* x, int n) {  // reverses x (n <= the block) through dynamic shared memory
    NB_DYNAMIC_SHARED(float, s);
    const int t = threadIdx.x;
    if (t < n) s[t] = x[t];
    __syncthreads();
    if (t < n) x[t] = s[n - 1 - t];
}

__global__ void count_atomic(float* total, int* hits) {
    atomicAdd(total, 1.0f);
    atomicAdd(hits, 1);
}

__global__ void block_2d(int* out) {  // out[linear thread] = its (x, y) packed
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    __syncthreads();  // indices survive a barrier
    out[t] = threadIdx.x * 100 + threadIdx.y;
}

__global__ void spin(float* x, int n, int rounds) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        for (int r = 0; r < rounds; r++) x[i] = x[i] * 0.999f + 1.0f;
}

__global__ void add_one(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void stuck(int* out) {  // lanes 0-15 wait for 16-31 at __syncwarp; they wait at __syncthreads
    if (threadIdx.x % 32 < 16) __syncwarp();
    __syncthreads();
    out[threadIdx.x] = 1;
}

__global__ void misaligned_load(const float* x, float* out) {
    const float4 v = reinterpret_cast<const float4*>(x + 1)[0];  // x + 1 is only 4-byte aligned
    out[0] = v.x + v.y + v.z + v.w;
}

// out[c][r] = in[r][c] for in [rows, cols]: 32x32 tiles of a 2-D static shared array in a template,
// a block (32, 8) looping over several tiles with a barrier before the tile is reused.
template <typename T>
__global__ void tiled_transpose(const T* in, T* out, int rows, int cols) {
    __shared__ T tile[32][33];
    const int tiles_c = (cols + 31) / 32, ntiles = tiles_c * ((rows + 31) / 32);
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const int r0 = t / tiles_c * 32, c0 = t % tiles_c * 32;
        for (int k = threadIdx.y; k < 32; k += 8)
            if (r0 + k < rows && c0 + (int)threadIdx.x < cols) tile[k][threadIdx.x] = in[(r0 + k) * cols + c0 + threadIdx.x];
        __syncthreads();
        for (int k = threadIdx.y; k < 32; k += 8)
            if (c0 + k < cols && r0 + (int)threadIdx.x < rows) out[(c0 + k) * rows + r0 + threadIdx.x] = tile[threadIdx.x][k];
        __syncthreads();
    }
}

// Warp w of the block: d[w] = a[w] b[w] + scale * c[w], a [16][32] and b [32][16] in the layouts LA and LB
// (two k steps, so mma_sync accumulates), c and d [16][16] row- or column-major; leading dims lda, ldb, ldc.
template <typename T, typename LA, typename LB>
__global__ void wmma_product(const T* a, const T* b, const float* c, float* d, int lda, int ldb, int ldc, int c_rows,
                             float scale) {
    using namespace nvcuda;
    const int w = threadIdx.x / 32;
    const bool a_row = std::is_same<LA, wmma::row_major>::value, b_row = std::is_same<LB, wmma::row_major>::value;
    const wmma::layout_t lc = c_rows ? wmma::mem_row_major : wmma::mem_col_major;
    a += w * 32 * lda, b += w * 32 * ldb, c += w * 16 * ldc, d += w * 16 * ldc;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c, ldc, lc);
    for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= scale;  // the same operation on every element
    for (int k = 0; k < 32; k += 16) {
        wmma::load_matrix_sync(fa, a + (a_row ? k : k * lda), lda);  // (m, k) at m * lda + k, or k * lda + m
        wmma::load_matrix_sync(fb, b + (b_row ? k * ldb : k), ldb);  // (k, n) at k * ldb + n, or n * ldb + k
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(d, acc, ldc, lc);
}

// ---- tests ----

// Two warps, each its own product, against a float64 reference of the rounded inputs (the products are
// exact in float, so only the order of the 32 additions differs).
template <typename T, typename LA, typename LB>
static void check_wmma(bool c_rows, T (*from)(float)) {
    const int lda = 40, ldb = 24, ldc = 20, warps = 2;  // padded: leading dims need only be multiples of 16 bytes
    const int na = warps * 32 * lda, nb = warps * 32 * ldb, nc = warps * 16 * ldc;
    std::vector<T> ha(na), hb(nb);
    std::vector<float> hc(nc), got(nc);
    for (int i = 0; i < na; i++) ha[i] = from(static_cast<float>((i * 7919) % 61 - 30) / 16.0f);
    for (int i = 0; i < nb; i++) hb[i] = from(static_cast<float>((i * 104729) % 53 - 26) / 8.0f);
    for (int i = 0; i < nc; i++) hc[i] = static_cast<float>(i % 13) - 6.5f;
    T *a, *b;
    float *c, *d;
    CHECK_CUDA(cudaMalloc(&a, na * sizeof(T)));
    CHECK_CUDA(cudaMalloc(&b, nb * sizeof(T)));
    CHECK_CUDA(cudaMalloc(&c, nc * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&d, nc * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(a, ha.data(), na * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(b, hb.data(), nb * sizeof(T), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(c, hc.data(), nc * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(d, 0, nc * sizeof(float)));
    NB_LAUNCH(1, 32 * warps, 0, nullptr, wmma_product<T, LA, LB>)(a, b, c, d, lda, ldb, ldc, c_rows ? 1 : 0, 0.5f);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(got.data(), d, nc * sizeof(float), cudaMemcpyDeviceToHost));
    const bool a_row = std::is_same<LA, nvcuda::wmma::row_major>::value;
    const bool b_row = std::is_same<LB, nvcuda::wmma::row_major>::value;
    int wrong = 0;
    for (int w = 0; w < warps; w++)
        for (int m = 0; m < 16; m++)
            for (int n = 0; n < 16; n++) {
                const int at = w * 16 * ldc + (c_rows ? m * ldc + n : n * ldc + m);
                double want = 0.5 * hc[at], mag = std::fabs(want);
                for (int k = 0; k < 32; k++) {
                    const double x = static_cast<float>(ha[w * 32 * lda + (a_row ? m * lda + k : k * lda + m)]);
                    const double y = static_cast<float>(hb[w * 32 * ldb + (b_row ? k * ldb + n : n * ldb + k)]);
                    want += x * y, mag += std::fabs(x * y);
                }
                wrong += std::fabs(got[at] - want) > 1e-6 * mag;
            }
    CHECK(wrong == 0);
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d);
}

static __half to_half(float x) { return __float2half_rn(x); }
static __nv_bfloat16 to_bf16(float x) { return __float2bfloat16_rn(x); }

static void test_wmma_half_every_layout() {
    using namespace nvcuda::wmma;
    check_wmma<__half, row_major, row_major>(true, to_half);
    check_wmma<__half, row_major, col_major>(false, to_half);
    check_wmma<__half, col_major, row_major>(true, to_half);
    check_wmma<__half, col_major, col_major>(false, to_half);
}

static void test_wmma_bf16_every_layout() {
    using namespace nvcuda::wmma;
    check_wmma<__nv_bfloat16, row_major, row_major>(false, to_bf16);
    check_wmma<__nv_bfloat16, row_major, col_major>(true, to_bf16);
    check_wmma<__nv_bfloat16, col_major, row_major>(false, to_bf16);
    check_wmma<__nv_bfloat16, col_major, col_major>(true, to_bf16);
}

static void test_block_reduction_with_shared_memory_and_barriers() {
    const int n = 1000, blocks = (n + 255) / 256;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = static_cast<float>(i % 7);
    float *x, *out;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, blocks * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    NB_LAUNCH(blocks, 256, 0, nullptr, block_sum)(x, out, n);
    CHECK_CUDA(cudaGetLastError());
    std::vector<float> got(blocks);
    CHECK_CUDA(cudaMemcpy(got.data(), out, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        float want = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; i++) want += h[i];
        CHECK(got[b] == want);
    }
    cudaFree(x);
    cudaFree(out);
}

static void test_tiled_transpose_through_static_shared_tiles() {
    const int rows = 70, cols = 45, n = rows * cols;
    std::vector<double> h(n);
    for (int i = 0; i < n; i++) h[i] = i * 0.5;
    double *in, *out;
    CHECK_CUDA(cudaMalloc(&in, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&out, n * sizeof(double)));
    CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    NB_LAUNCH(2, dim3(32, 8), 0, nullptr, tiled_transpose<double>)(in, out, rows, cols);  // 6 tiles, 2 blocks
    CHECK_CUDA(cudaGetLastError());
    std::vector<double> got(n);
    CHECK_CUDA(cudaMemcpy(got.data(), out, n * sizeof(double), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) wrong += got[c * rows + r] != h[r * cols + c];
    CHECK(wrong == 0);
    cudaFree(in);
    cudaFree(out);
}

static void test_warp_shuffles_and_ballot() {
    const int n = 128;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = i * 3 + 1;
    int *x, *down, *xr, *bc;
    unsigned* ballot;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&down, 4 * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&xr, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&bc, n * sizeof(int)));
    CHECK_CUDA(cudaMalloc(&ballot, 4 * sizeof(unsigned)));
    CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    NB_LAUNCH(2, 64, 0, nullptr, warp_ops)(x, down, xr, ballot, bc);
    CHECK_CUDA(cudaGetLastError());
    std::vector<int> gd(4), gx(n), gb(n);
    std::vector<unsigned> gbal(4);
    CHECK_CUDA(cudaMemcpy(gd.data(), down, 4 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gx.data(), xr, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gb.data(), bc, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(gbal.data(), ballot, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int w = 0; w < 4; w++) {
        int sum = 0;
        unsigned bits = 0;
        for (int l = 0; l < 32; l++) sum += h[w * 32 + l], bits |= (unsigned)(h[w * 32 + l] % 2) << l;
        CHECK(gd[w] == sum);
        CHECK(gbal[w] == bits);
        for (int l = 0; l < 32; l++) CHECK(gx[w * 32 + l] == sum && gb[w * 32 + l] == h[w * 32 + 3]);
    }
    cudaFree(x), cudaFree(down), cudaFree(xr), cudaFree(bc), cudaFree(ballot);
}

static void test_2d_block_indices() {
    int* out;
    CHECK_CUDA(cudaMalloc(&out, 8 * 4 * sizeof(int)));
    NB_LAUNCH(1, dim3(8, 4), 0, nullptr, block_2d)(out);
    std::vector<int> got(32);
    CHECK_CUDA(cudaMemcpy(got.data(), out, 32 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) CHECK(got[y * 8 + x] == x * 100 + y);
    cudaFree(out);
}

static void test_dynamic_shared_memory_and_its_limit() {
    const int n = 1000;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = static_cast<float>(i);
    float* x;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    NB_LAUNCH(1, 1024, n * sizeof(float), nullptr, dynamic_reverse)(x, n);
    CHECK_CUDA(cudaGetLastError());
    std::vector<float> got(n);
    CHECK_CUDA(cudaMemcpy(got.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) CHECK(got[i] == h[n - 1 - i]);
    // 64 KiB needs the opt-in attribute; more than the opt-in limit never launches
    NB_LAUNCH(1, 32, 64 << 10, nullptr, dynamic_reverse)(x, 0);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidValue, "dynamic shared memory");
    CHECK_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(dynamic_reverse),
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
    NB_LAUNCH(1, 32, 64 << 10, nullptr, dynamic_reverse)(x, 0);
    CHECK_CUDA(cudaGetLastError());
    CHECK_FAILS(cudaFuncSetAttribute(reinterpret_cast<const void*>(dynamic_reverse),
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, 300 << 10),
                cudaErrorInvalidValue, "at most");
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaFree(x);
}

static void test_atomics_across_blocks() {
    float* total;
    int* hits;
    CHECK_CUDA(cudaMalloc(&total, sizeof(float)));
    CHECK_CUDA(cudaMalloc(&hits, sizeof(int)));
    CHECK_CUDA(cudaMemset(total, 0, sizeof(float)));
    CHECK_CUDA(cudaMemset(hits, 0, sizeof(int)));
    NB_LAUNCH(64, 256, 0, nullptr, count_atomic)(total, hits);
    float t = 0;
    int k = 0;
    CHECK_CUDA(cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(&k, hits, sizeof k, cudaMemcpyDeviceToHost));
    CHECK(t == 64 * 256 && k == 64 * 256);
    cudaFree(total), cudaFree(hits);
}

static void test_launch_limits_fail_with_a_message() {
    float* x;
    CHECK_CUDA(cudaMalloc(&x, 16));
    NB_LAUNCH(1, 2048, 0, nullptr, add_one)(x, 4);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidConfiguration, "at most 1024 threads");
    NB_LAUNCH(1, dim3(1, 1, 65), 0, nullptr, add_one)(x, 4);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidConfiguration, "(1, 1, 65)");
    NB_LAUNCH(dim3(1, 70000), 32, 0, nullptr, add_one)(x, 4);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidConfiguration, "not a valid CUDA grid");
    NB_LAUNCH(0, 32, 0, nullptr, add_one)(x, 4);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidConfiguration, "grid (0, 1, 1)");
    CHECK(cudaGetLastError() == cudaSuccess);  // launch errors are not sticky
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaFree(x);
}

static void test_host_pointers_and_bad_copies_fail() {
    if (!emulated) return;  // a GPU with HMM may accept host pointers
    std::vector<float> host(16, 0.0f);
    NB_LAUNCH(1, 32, 0, nullptr, add_one)(host.data(), 16);
    CHECK_FAILS(cudaGetLastError(), cudaErrorInvalidValue, "neither device nor pinned");
    float* x;
    CHECK_CUDA(cudaMalloc(&x, 16 * sizeof(float)));
    CHECK_FAILS(cudaMemcpy(x, host.data(), 32 * sizeof(float), cudaMemcpyHostToDevice), cudaErrorInvalidValue,
                "runs past the end");
    CHECK_FAILS(cudaMemset(host.data(), 0, 4), cudaErrorInvalidValue, "is not device memory");
    cudaFree(x);
}

static void test_streams_run_asynchronously_in_order() {
    const int n = 1 << 20;
    float *x, *pinned;
    cudaStream_t s1, s2;
    cudaEvent_t done, start, stop;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&pinned), n * sizeof(float), cudaHostAllocDefault));
    CHECK_CUDA(cudaMemsetAsync(x, 0, n * sizeof(float), s1));
    CHECK_CUDA(cudaEventRecord(start, s1));
    NB_LAUNCH(256, 256, 0, s1, spin)(x, n, 200);
    CHECK_CUDA(cudaEventRecord(stop, s1));
    CHECK_CUDA(cudaEventRecord(done, s1));
    CHECK(cudaStreamQuery(s1) == cudaErrorNotReady);  // the host ran ahead
    CHECK(cudaEventQuery(done) == cudaErrorNotReady);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady);
    // s2 reads x only after the event: the copy sees the finished values
    CHECK_CUDA(cudaStreamWaitEvent(s2, done, 0));
    NB_LAUNCH((n + 255) / 256, 256, 0, s2, add_one)(x, n);
    CHECK_CUDA(cudaMemcpyAsync(pinned, x, n * sizeof(float), cudaMemcpyDeviceToHost, s2));
    CHECK_CUDA(cudaStreamSynchronize(s2));
    CHECK(cudaEventQuery(done) == cudaSuccess);
    float want = 0;
    for (int r = 0; r < 200; r++) want = want * 0.999f + 1.0f;
    CHECK(pinned[0] == want + 1.0f && pinned[n - 1] == want + 1.0f);
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms > 0);
    CHECK_FAILS(cudaEventElapsedTime(&ms, done, stop), cudaErrorInvalidResourceHandle, "without timing");
    cudaStreamDestroy(s1), cudaStreamDestroy(s2);
    cudaEventDestroy(done), cudaEventDestroy(start), cudaEventDestroy(stop);
    cudaFreeHost(pinned);
    cudaFree(x);
}

// Sticky faults: the device stays failed, so each gets a device of its own.
static void test_deadlocked_block_fails_the_launch() {
    if (!emulated) return;  // it would hang a GPU
    int count = 0;
    cudaGetDeviceCount(&count);
    if (count < 1) return;
    CHECK_CUDA(cudaSetDevice(0));
    int* out;
    CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(int)));
    NB_LAUNCH(1, 64, 0, nullptr, stuck)(out);
    CHECK_CUDA(cudaGetLastError());
    CHECK_FAILS(cudaDeviceSynchronize(), cudaErrorLaunchFailure, "never reach");
    CHECK_FAILS(cudaDeviceSynchronize(), cudaErrorLaunchFailure, "stuck");  // sticky, with the kernel's name
}

static void test_misaligned_vector_load_fails_the_launch() {
    int count = 0;
    cudaGetDeviceCount(&count);
    if (count < 2) {
        std::printf("note: misaligned-load check needs NABLA_EMU_DEVICES=2\n");
        return;
    }
    CHECK_CUDA(cudaSetDevice(1));
    float *x, *out;
    CHECK_CUDA(cudaMalloc(&x, 64 * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
    CHECK_CUDA(cudaMemset(x, 0, 64 * sizeof(float)));
    NB_LAUNCH(1, 1, 0, nullptr, misaligned_load)(x, out);
    CHECK_FAILS(cudaDeviceSynchronize(), cudaErrorMisalignedAddress, "16-byte alignment");
}

// `test_emu --out-of-bounds` writes past a cudaMalloc'ed buffer on purpose: under
// ASan it must die with a heap-buffer-overflow (what compute-sanitizer reports on a GPU).
static int write_out_of_bounds() {
    float* x;
    if (cudaMalloc(&x, 16 * sizeof(float)) != cudaSuccess) return 2;
    NB_LAUNCH(1, 32, 0, nullptr, add_one)(x, 17);
    cudaDeviceSynchronize();
    std::printf("wrote x[16] of a 16-element buffer\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--out-of-bounds") == 0) return write_out_of_bounds();
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        std::printf("SKIP: no CUDA device\n0 passed, 0 failed\n");
        return 0;
    }
    emulated = std::strstr(prop.name, "emulated") != nullptr;
    std::printf("note: device %s\n", prop.name);
    RUN(test_block_reduction_with_shared_memory_and_barriers);
    RUN(test_warp_shuffles_and_ballot);
    RUN(test_2d_block_indices);
    RUN(test_tiled_transpose_through_static_shared_tiles);
    RUN(test_dynamic_shared_memory_and_its_limit);
    RUN(test_atomics_across_blocks);
    RUN(test_launch_limits_fail_with_a_message);
    RUN(test_host_pointers_and_bad_copies_fail);
    RUN(test_streams_run_asynchronously_in_order);
    RUN(test_wmma_half_every_layout);
    RUN(test_wmma_bf16_every_layout);
    RUN(test_deadlocked_block_fails_the_launch);
    RUN(test_misaligned_vector_load_fails_the_launch);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
