// gemm_cublas.cu: the plugin's GEMM entry. cuBLAS is loaded at first use (the
// system toolkit's libcublas, then the nvidia-cublas wheel's next to nabla's
// package) and takes every problem whose matrices it can read: one cublasGemmEx
// call for a single matrix, one cublasGemmStridedBatchedEx call per run of batch
// dims that merge into one stride (usually one call). float16 and bfloat16 go in
// and come out as they are (CUDA_R_16F / CUDA_R_16BF) and are summed in float32
// (CUBLAS_COMPUTE_32F, reduced-precision reductions disallowed), so they run on
// the tensor cores without a float32 copy. The rest, every problem when
// NABLA_CUBLAS=0 or without the library, goes to nabla's tiled kernel (gemm.cu).
// In emulation the "library" is the emulator's stand-in (a CPU GEMM on the
// stream's worker), so this calling path is tested.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cublas_abi.h"
#include "dtypes.cuh"
#include "kernels.h"
#include "launch.cuh"

namespace nbcuda {
namespace {

struct Cublas {
    nb_cublasCreate_fn create = nullptr;
    nb_cublasSetStream_fn set_stream = nullptr;
    nb_cublasSetMathMode_fn set_math_mode = nullptr;
    nb_cublasGemmStridedBatchedEx_fn gemm = nullptr;
    nb_cublasGemmEx_fn gemm_one = nullptr;   // optional: single matrices then go through gemm with batch 1
    nb_cublasDestroy_fn destroy = nullptr;  // handles live until the process ends (as PyTorch's)
    bool ok = false;
};

Cublas lib;
std::once_flag lib_once;

void* open_cublas() {
    const char* names[] = {"libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.13", "libcublas.so"};
    for (const char* n : names)
        if (void* h = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return h;
    // The nvidia-cublas wheel: site-packages/nvidia/{cu13,cublas}/lib, beside site-packages/nabla/lib/.
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&open_cublas), &info) == 0 || info.dli_fname == nullptr) return nullptr;
    char dir[4096];
    std::snprintf(dir, sizeof dir, "%s", info.dli_fname);
    if (char* slash = std::strrchr(dir, '/')) *slash = '\0';
    const char* rel[] = {"../../nvidia/cu13/lib/libcublas.so.13", "../../nvidia/cublas/lib/libcublas.so.13",
                         "../../nvidia/cublas/lib/libcublas.so.12"};
    for (const char* r : rel) {
        char path[8192];
        std::snprintf(path, sizeof path, "%s/%s", dir, r);
        if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return h;
    }
    return nullptr;
}

// NABLA_CUBLAS=0 selects the tiled kernel; read per call (a getenv is nothing next to a
// launch), so a program, or a test, can switch paths.
bool cublas_wanted() {
    const char* env = std::getenv("NABLA_CUBLAS");
    return env == nullptr || std::strcmp(env, "0") != 0;
}

void load() {
#ifdef NABLA_CUDA_EMULATE
    auto sym = [](const char* name) { return nbemu_cublas_symbol(name); };
#else
    void* h = open_cublas();
    if (h == nullptr) return;
    auto sym = [h](const char* name) { return dlsym(h, name); };
#endif
    lib.create = reinterpret_cast<nb_cublasCreate_fn>(sym("cublasCreate_v2"));
    lib.set_stream = reinterpret_cast<nb_cublasSetStream_fn>(sym("cublasSetStream_v2"));
    lib.set_math_mode = reinterpret_cast<nb_cublasSetMathMode_fn>(sym("cublasSetMathMode"));
    lib.gemm = reinterpret_cast<nb_cublasGemmStridedBatchedEx_fn>(sym("cublasGemmStridedBatchedEx"));
    lib.gemm_one = reinterpret_cast<nb_cublasGemmEx_fn>(sym("cublasGemmEx"));
    lib.destroy = reinterpret_cast<nb_cublasDestroy_fn>(sym("cublasDestroy_v2"));
    lib.ok = lib.create && lib.set_stream && lib.set_math_mode && lib.gemm && lib.destroy;
}

// One handle per device and thread (a handle must not be shared by threads).
constexpr int MAX_DEVICES = 64;
thread_local cublasHandle_t handles[MAX_DEVICES];
thread_local int modes[MAX_DEVICES];  // the math mode last set on each handle

// float32/float64: pedantic (no TF32, as PyTorch's default). float16/bfloat16:
// the default math (tensor cores) with float32 sums all the way: no
// reduced-precision split-K reductions, for bfloat16 as for float16.
int math_mode(int32_t dtype) {
    return dtype == NB_F16 || dtype == NB_BF16
               ? NB_CUBLAS_DEFAULT_MATH | NB_CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
               : NB_CUBLAS_PEDANTIC_MATH;
}

cublasHandle_t handle_for(int device, int32_t dtype) {
    if (device < 0 || device >= MAX_DEVICES) return nullptr;
    if (handles[device] == nullptr) {
        cublasHandle_t h = nullptr;
        if (lib.create(&h) != NB_CUBLAS_STATUS_SUCCESS) return nullptr;
        handles[device] = h;
        modes[device] = -1;
    }
    const int mode = math_mode(dtype);
    if (modes[device] != mode) {
        if (lib.set_math_mode(handles[device], mode) != NB_CUBLAS_STATUS_SUCCESS) return nullptr;
        modes[device] = mode;
    }
    return handles[device];
}

// How cuBLAS reads a rows x cols matrix with strides (rs, cs): 'R' row-major,
// 'C' column-major (ld in *ld), or 0.
char layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t* ld) {
    const int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= c1)) return *ld = rows <= 1 ? c1 : rs, 'R';
    if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= r1)) return *ld = cols <= 1 ? r1 : cs, 'C';
    return 0;
}

bool fits32(int64_t v) { return v >= 0 && v <= 2147483647LL; }

cudaDataType_t data_type(int32_t dtype) {
    switch (dtype) {
        case NB_F64: return CUDA_R_64F;
        case NB_F16: return CUDA_R_16F;
        case NB_BF16: return CUDA_R_16BF;
        default: return CUDA_R_32F;
    }
}

// C = addend (broadcast, converted): cuBLAS then applies beta to C. grid-stride over M * N per batch.
template <int Code> __global__ void load_addend(nb_bk_gemm p, int64_t nbatch) {
    using T = typename Storage<Code>::type;
    const int64_t per = p.M * p.N, total = per * nbatch;
    const int64_t in_size = p.in_dtype == NB_F64 ? 8 : p.in_dtype == NB_F32 ? 4 : 2;
    for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
        const int64_t b = e / per, i = (e % per) / p.N, j = e % p.N;
        int64_t cb = 0, ib = 0, r = b;
        for (int32_t d = p.bndim - 1; d >= 0; d--) {
            cb += (r % p.bshape[d]) * p.c.bstrides[d], ib += (r % p.bshape[d]) * p.in.bstrides[d];
            r /= p.bshape[d];
        }
        const char* src = p.in.data + (ib + i * p.in.rs + j * p.in.cs) * in_size;
        double v;
        switch (p.in_dtype) {
            case NB_F64: v = *reinterpret_cast<const double*>(src); break;
            case NB_F16: v = __half2float(*reinterpret_cast<const __half*>(src)); break;
            case NB_BF16: v = __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(src)); break;
            default: v = *reinterpret_cast<const float*>(src); break;
        }
        reinterpret_cast<T*>(p.c.data)[cb + i * p.c.rs + j * p.c.cs] = from_f64<Code>(v);
    }
}

cudaError_t launch_addend(const nb_bk_gemm& p, int64_t nbatch, cudaStream_t s) {
    const int64_t total = p.M * p.N * nbatch;
    const unsigned blocks = static_cast<unsigned>(total / 256 + 1 < 4096 ? total / 256 + 1 : 4096);
    switch (p.dtype) {
        case NB_F64: NB_LAUNCH(blocks, 256, 0, s, load_addend<NB_F64>)(p, nbatch); break;
        case NB_F16: NB_LAUNCH(blocks, 256, 0, s, load_addend<NB_F16>)(p, nbatch); break;
        case NB_BF16: NB_LAUNCH(blocks, 256, 0, s, load_addend<NB_BF16>)(p, nbatch); break;
        default: NB_LAUNCH(blocks, 256, 0, s, load_addend<NB_F32>)(p, nbatch); break;
    }
    return cudaGetLastError();
}

// Calls of the batch dims left of the merged run: more would cost more host time than the own kernel.
constexpr int64_t MAX_OUTER_CALLS = 1024;

// One strided-batched call in cuBLAS's column-major terms over the innermost
// batch dims that merge into one stride (size-1 dims dropped); the batch dims
// left of them (outer, counted in *outer) are looped over by the caller. False
// when cuBLAS cannot take the problem (a layout or size it cannot read).
struct Call {
    int ta, tb, m, n, k, lda, ldb, ldc, batch;
    const void *A, *B;
    long long sa, sb, sc;
    int32_t outer_ndim;  // batch dims [0, outer_ndim) are looped
    bool swapped;        // C is row-major: the call computes C^T = B^T A^T (its A is b's matrix)
};

bool plan_call(const nb_bk_gemm& p, Call* c, int64_t* outer) {
    int64_t bsa = 0, bsb = 0, bsc = 0, run = 1;
    bool have = false;
    int32_t d = p.bndim - 1;
    for (; d >= 0; d--) {
        if (p.bshape[d] == 1) continue;
        if (!have) {
            bsa = p.a.bstrides[d], bsb = p.b.bstrides[d], bsc = p.c.bstrides[d], run = p.bshape[d], have = true;
        } else if (p.a.bstrides[d] == bsa * run && p.b.bstrides[d] == bsb * run && p.c.bstrides[d] == bsc * run) {
            run *= p.bshape[d];
        } else {
            break;
        }
    }
    c->outer_ndim = d + 1;
    *outer = 1;
    for (int32_t e = 0; e <= d; e++) *outer *= p.bshape[e];
    if (*outer > MAX_OUTER_CALLS) return false;
    const int64_t nbatch = run;
    if (nbatch > 1 && bsc == 0) return false;
    int64_t lda = 0, ldb = 0, ldc = 0;  // set by layout() whenever it succeeds
    const char la = layout(p.M, p.K, p.a.rs, p.a.cs, &lda), lb = layout(p.K, p.N, p.b.rs, p.b.cs, &ldb);
    const char lc = layout(p.M, p.N, p.c.rs, p.c.cs, &ldc);
    if (!la || !lb || !lc) return false;
    if (!fits32(p.M) || !fits32(p.N) || !fits32(p.K) || !fits32(lda) || !fits32(ldb) || !fits32(ldc) ||
        !fits32(nbatch))
        return false;
    const int64_t K1 = p.K > 0 ? p.K : 1;
    c->swapped = lc != 'C';
    if (lc == 'C') {  // C (M x N, column-major) = A B
        c->m = static_cast<int>(p.M), c->n = static_cast<int>(p.N);
        c->A = p.a.data, c->ta = la == 'C' ? NB_CUBLAS_OP_N : NB_CUBLAS_OP_T, c->sa = bsa;
        c->B = p.b.data, c->tb = lb == 'C' ? NB_CUBLAS_OP_N : NB_CUBLAS_OP_T, c->sb = bsb;
        c->lda = static_cast<int>(la == 'C' ? (lda > p.M ? lda : (p.M > 1 ? p.M : 1)) : (lda > K1 ? lda : K1));
        c->ldb = static_cast<int>(lb == 'C' ? (ldb > K1 ? ldb : K1) : (ldb > p.N ? ldb : (p.N > 1 ? p.N : 1)));
    } else {  // C row-major: C^T (N x M, column-major) = B^T A^T
        c->m = static_cast<int>(p.N), c->n = static_cast<int>(p.M);
        c->A = p.b.data, c->ta = lb == 'R' ? NB_CUBLAS_OP_N : NB_CUBLAS_OP_T, c->sa = bsb;
        c->B = p.a.data, c->tb = la == 'R' ? NB_CUBLAS_OP_N : NB_CUBLAS_OP_T, c->sb = bsa;
        c->lda = static_cast<int>(lb == 'R' ? (ldb > p.N ? ldb : (p.N > 1 ? p.N : 1)) : (ldb > K1 ? ldb : K1));
        c->ldb = static_cast<int>(la == 'R' ? (lda > K1 ? lda : K1) : (lda > p.M ? lda : (p.M > 1 ? p.M : 1)));
    }
    c->ldc = static_cast<int>(ldc), c->k = static_cast<int>(p.K), c->sc = bsc, c->batch = static_cast<int>(nbatch);
    return true;
}

// Batch element `outer` (row-major over dims [0, c.outer_ndim)) of operand o: its element offset.
int64_t outer_offset(const nb_bk_gemm& p, const nb_bk_gemm_operand& o, int32_t ndim, int64_t outer) {
    int64_t off = 0;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        off += (outer % p.bshape[d]) * o.bstrides[d];
        outer /= p.bshape[d];
    }
    return off;
}

}  // namespace
}  // namespace nbcuda

cudaError_t nb_cuda_gemm(const nb_bk_gemm* p, cudaStream_t stream) {
    using namespace nbcuda;
    int64_t nbatch = 1;
    for (int32_t d = 0; d < p->bndim; d++) nbatch *= p->bshape[d];
    if (p->M == 0 || p->N == 0 || nbatch == 0) return cudaSuccess;
    if (!cublas_wanted() || !is_float_code(p->dtype)) return nb_cuda_gemm_tiled(p, stream);
    std::call_once(lib_once, load);
    Call c;
    int64_t outer = 1;
    if (!lib.ok || !plan_call(*p, &c, &outer)) return nb_cuda_gemm_tiled(p, stream);
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    cublasHandle_t h = handle_for(device, p->dtype);
    if (h == nullptr || lib.set_stream(h, stream) != NB_CUBLAS_STATUS_SUCCESS) return nb_cuda_gemm_tiled(p, stream);
    if (p->accumulate && p->in_dtype >= 0 && (err = launch_addend(*p, nbatch, stream)) != cudaSuccess) return err;
    const bool f64 = p->dtype == NB_F64;
    const double alpha64 = p->alpha, beta64 = p->accumulate ? p->beta : 0.0;
    const float alpha32 = static_cast<float>(p->alpha), beta32 = static_cast<float>(beta64);
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    const cudaDataType_t t = data_type(p->dtype);
    const int compute = f64 ? NB_CUBLAS_COMPUTE_64F : NB_CUBLAS_COMPUTE_32F;
    const int64_t es = p->dtype == NB_F64 ? 8 : p->dtype == NB_F32 ? 4 : 2;
    for (int64_t o = 0; o < outer; o++) {
        const int64_t oa = outer_offset(*p, p->a, c.outer_ndim, o), ob = outer_offset(*p, p->b, c.outer_ndim, o);
        const int64_t oc = outer_offset(*p, p->c, c.outer_ndim, o);
        const char* A = static_cast<const char*>(c.A) + (c.swapped ? ob : oa) * es;
        const char* B = static_cast<const char*>(c.B) + (c.swapped ? oa : ob) * es;
        char* C = p->c.data + oc * es;
        int st;
        if (c.batch == 1 && lib.gemm_one != nullptr)
            st = lib.gemm_one(h, c.ta, c.tb, c.m, c.n, c.k, alpha, A, t, c.lda, B, t, c.ldb, beta, C, t, c.ldc, compute,
                              NB_CUBLAS_GEMM_DEFAULT);
        else
            st = lib.gemm(h, c.ta, c.tb, c.m, c.n, c.k, alpha, A, t, c.lda, c.sa, B, t, c.ldb, c.sb, beta, C, t, c.ldc,
                          c.sc, c.batch, compute, NB_CUBLAS_GEMM_DEFAULT);
        if (st != NB_CUBLAS_STATUS_SUCCESS) return cudaErrorUnknown;
    }
    return cudaSuccess;
}
