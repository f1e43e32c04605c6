// emu_wmma.h: the warp-level matrix API of <mma.h> (nvcuda::wmma) for the emulated
// device, included by cuda_emu.h (the toolkit's <mma.h> is empty outside nvcc).
// The 16x16x16 shape with __half or __nv_bfloat16 inputs and float or __half
// accumulators: fragment (x[], num_elements), fill_fragment, load_matrix_sync,
// store_matrix_sync and mma_sync.
//
// As on a GPU, the *_sync calls are warp-collective: every lane of the warp must
// reach them (a lane that does not deadlocks the block, which fails the launch),
// each converges the warp first as __syncwarp does, and a pointer that is not
// 32-byte aligned or a leading dimension that is not a multiple of 16 bytes
// faults (cudaErrorMisalignedAddress). A lane holds 8 elements of the 16x16 tile;
// the API leaves which ones unspecified, and here matrix_a, matrix_b and the
// accumulator each map them differently, so a kernel that relies on a mapping
// (anything but the same operation on every element) computes garbage here.
// mma_sync exchanges the warp's A and B through a per-warp buffer and sums the
// 16 exact products into the accumulator in k order in float.
#ifndef NABLA_CUDA_EMU_WMMA_H_
#define NABLA_CUDA_EMU_WMMA_H_

namespace nbemu {
// A 512-float buffer of the calling lane's warp for its next mma_sync (two
// alternate, so the lanes' reads of one never race the writes of the next).
float* warp_mma_buffer();
void count_mma();  // once per warp-wide mma_sync; read through nbemu_mma_syncs
// Fails the grid as a misaligned wmma access does on a GPU.
void wmma_misaligned(const char* op, const void* p, unsigned ldm);
}  // namespace nbemu

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
    static_assert(M == 16 && N == 16 && K == 16, "the emulated wmma has the 16x16x16 shape only");
    static_assert(std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value ||
                      (std::is_same<Use, accumulator>::value && std::is_same<T, float>::value),
                  "wmma fragments hold __half or __nv_bfloat16 (and float accumulators)");

   public:
    enum { num_elements = 8 };
    using element_type = T;
    using storage_element_type = T;
    T x[num_elements];
};

namespace emu {
// The tile position (row * 16 + col; for matrix_b k * 16 + n) of element i of lane.
inline int tile_at(matrix_a, int lane, int i) { return lane * 8 + i; }                    // lane's half-row
inline int tile_at(matrix_b, int lane, int i) { return ((lane & 1) * 8 + i) * 16 + (lane >> 1); }  // half-column
inline int tile_at(accumulator, int lane, int i) { return i * 32 + lane; }                 // strided over rows

template <class T>
void check(const char* op, const T* p, unsigned ldm) {
    if (reinterpret_cast<uintptr_t>(p) % 32 != 0 || ldm * sizeof(T) % 16 != 0) ::nbemu::wmma_misaligned(op, p, ldm);
    ::nbemu::sync_warp(0xffffffffu);
}
// Offset of tile position (r, c) in memory of leading dimension ldm.
inline size_t at(int r, int c, unsigned ldm, bool row_major) {
    return row_major ? static_cast<size_t>(r) * ldm + c : static_cast<size_t>(c) * ldm + r;
}
template <class V> float to_float(V v) { return static_cast<float>(v); }
inline float to_float(__half v) { return __half2float(v); }
inline float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> T from_float(float v) { return v; }
template <> inline __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <class U, class T, class L>
void load(fragment<U, 16, 16, 16, T, L>& f, const T* p, unsigned ldm, bool row_major) {
    check("load_matrix_sync", p, ldm);
    const int lane = static_cast<int>(::nbemu::lane_id());
    for (int i = 0; i < 8; i++) {
        const int t = tile_at(U{}, lane, i);
        f.x[i] = p[at(t / 16, t % 16, ldm, row_major)];
    }
}
}  // namespace emu

template <class U, class T, class L, class V>
inline void fill_fragment(fragment<U, 16, 16, 16, T, L>& f, const V& v) {
    const T t = emu::from_float<T>(emu::to_float(v));
    for (int i = 0; i < 8; i++) f.x[i] = t;
}

template <class U, class T>
inline void load_matrix_sync(fragment<U, 16, 16, 16, T, row_major>& f, const T* p, unsigned ldm) {
    emu::load(f, p, ldm, true);
}
template <class U, class T>
inline void load_matrix_sync(fragment<U, 16, 16, 16, T, col_major>& f, const T* p, unsigned ldm) {
    emu::load(f, p, ldm, false);
}
template <class T>
inline void load_matrix_sync(fragment<accumulator, 16, 16, 16, T>& f, const T* p, unsigned ldm, layout_t layout) {
    emu::load(f, p, ldm, layout == mem_row_major);
}

template <class T>
inline void store_matrix_sync(T* p, const fragment<accumulator, 16, 16, 16, T>& f, unsigned ldm, layout_t layout) {
    emu::check("store_matrix_sync", p, ldm);
    const int lane = static_cast<int>(::nbemu::lane_id());
    for (int i = 0; i < 8; i++) {
        const int t = emu::tile_at(accumulator{}, lane, i);
        p[emu::at(t / 16, t % 16, ldm, layout == mem_row_major)] = f.x[i];
    }
}

// d = a b + c for the warp's 16x16 tiles (d may be c).
template <class T, class LA, class LB, class D, class C>
inline void mma_sync(fragment<accumulator, 16, 16, 16, D>& d, const fragment<matrix_a, 16, 16, 16, T, LA>& a,
                     const fragment<matrix_b, 16, 16, 16, T, LB>& b, const fragment<accumulator, 16, 16, 16, C>& c) {
    const int lane = static_cast<int>(::nbemu::lane_id());
    float* buf = ::nbemu::warp_mma_buffer();  // [0, 256): A row-major; [256, 512): B (k, n) row-major
    for (int i = 0; i < 8; i++) {
        buf[emu::tile_at(matrix_a{}, lane, i)] = emu::to_float(a.x[i]);
        buf[256 + emu::tile_at(matrix_b{}, lane, i)] = emu::to_float(b.x[i]);
    }
    ::nbemu::sync_warp(0xffffffffu);
    if (lane == 0) ::nbemu::count_mma();
    for (int i = 0; i < 8; i++) {
        const int t = emu::tile_at(accumulator{}, lane, i), r = t / 16, col = t % 16;
        float s = emu::to_float(c.x[i]);
        for (int k = 0; k < 16; k++) s += buf[r * 16 + k] * buf[256 + k * 16 + col];  // the products are exact
        d.x[i] = emu::from_float<D>(s);
    }
}

}  // namespace wmma
}  // namespace nvcuda

#endif  // NABLA_CUDA_EMU_WMMA_H_
