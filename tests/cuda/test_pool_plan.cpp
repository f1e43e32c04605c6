// test_pool_plan.cpp: host-side pieces of the CUDA pooling family
// (src/cuda/pool_plan.h): plans widened to three spatial dims and malformed
// ones refused; the window arithmetic against brute force (max with dilation,
// average with padding, adaptive): the cells a backward thread visits are
// exactly a superset of those whose window reads its position, in order;
// launch shapes. Host-only: needs no GPU and no nvcc.
#include <cstdio>
#include <cstring>

#include "../../src/cuda/index_plan.h"
#include "../../src/cuda/pool_plan.h"

#include "plan_check.h"

namespace {

using namespace nbcuda;

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
    const int64_t span = (k - 1) * d + 1, num = in + 2 * p - span + (ceil_mode ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && (o - 1) * s >= in + p) o--;
    return o;
}

// Whether output cell o's window reads input position i.
bool reads(const PoolDim& d, int32_t kind, int64_t o, int64_t i) {
    int64_t lo, hi, padded;
    if (kind == NB_PK_MAX) {
        max_window(d, o, &lo, &hi);
        return i >= lo && i < hi && (i - lo) % d.d == 0;
    }
    if (kind == NB_PK_AVG) avg_window(d, o, &lo, &hi, &padded);
    else adaptive_window(d, o, &lo, &hi);
    return i >= lo && i < hi;
}

// For every position, cells_reading covers every cell that reads it (and stays in [0, out)).
void check_cover(const PoolDim& d, int32_t kind) {
    for (int64_t i = 0; i < d.in; i++) {
        int64_t lo, hi;
        cells_reading(d, kind, i, &lo, &hi);
        CHECK(lo >= 0 && hi <= d.out);
        for (int64_t o = 0; o < d.out; o++)
            if (reads(d, kind, o, i)) CHECK(o >= lo && o < hi);
    }
}

}  // namespace

int main() {
    // window arithmetic, brute force over small geometries
    for (int64_t in = 1; in <= 9; in++)
        for (int64_t k = 1; k <= 4; k++)
            for (int64_t s = 1; s <= 3; s++)
                for (int64_t p = 0; p <= k / 2; p++)
                    for (int64_t dil = 1; dil <= 3; dil++)
                        for (int ceil_mode = 0; ceil_mode < 2; ceil_mode++) {
                            const int64_t out = out_size(in, k, s, p, dil, ceil_mode);
                            if (out < 1) continue;
                            PoolDim d{in, out, k, s, p, dil, 1, 1, 1};
                            check_cover(d, NB_PK_MAX);
                            // every max window starts inside the input (PyTorch's ceil_mode rule)
                            for (int64_t o = 0; o < out; o++) {
                                int64_t lo, hi;
                                max_window(d, o, &lo, &hi);
                                CHECK(lo >= 0 && lo < in + dil);
                            }
                            if (dil == 1) {
                                check_cover(d, NB_PK_AVG);
                                // the padded size counts the padding inside [−p, in + p) only
                                for (int64_t o = 0; o < out; o++) {
                                    int64_t lo, hi, padded;
                                    avg_window(d, o, &lo, &hi, &padded);
                                    CHECK(padded >= 1 && padded <= k && hi - lo <= padded);
                                }
                            }
                        }
    for (int64_t in = 1; in <= 12; in++)
        for (int64_t out = 0; out <= 14; out++) {
            PoolDim d{in, out, 1, 1, 0, 1, 1, 1, 1};
            check_cover(d, NB_PK_ADAPTIVE_AVG);
        }
    {  // adaptive windows as PyTorch's: 5 -> 3 gives [0, 2), [1, 4), [3, 5)
        PoolDim d{5, 3, 1, 1, 0, 1, 1, 1, 1};
        int64_t lo, hi;
        adaptive_window(d, 0, &lo, &hi);
        CHECK(lo == 0 && hi == 2);
        adaptive_window(d, 1, &lo, &hi);
        CHECK(lo == 1 && hi == 4);
        adaptive_window(d, 2, &lo, &hi);
        CHECK(lo == 3 && hi == 5);
    }
    {  // kernel 0: every cell
        PoolDim d{7, 4, 0, 1, 0, 1, 1, 1, 1};
        int64_t lo, hi;
        cells_reading(d, NB_PK_MAX, 3, &lo, &hi);
        CHECK(lo == 0 && hi == 4);
    }

    // plans: a 2-d max widened to three dims
    nb_bk_pool a;
    std::memset(&a, 0, sizeof a);
    a.kind = NB_PK_MAX, a.dtype = NB_F32, a.nspatial = 2;
    a.batch[0] = 2, a.batch[1] = 3;
    a.in_size[0] = 7, a.in_size[1] = 8, a.out_size[0] = 4, a.out_size[1] = 4;
    for (int i = 0; i < 2; i++) a.kernel[i] = 3, a.stride[i] = 2, a.padding[i] = 1, a.dilation[i] = 1;
    const int64_t xs[5] = {168, 56, 8, 1, 0}, ys[5] = {48, 16, 4, 1, 0};
    std::memcpy(a.x_strides, xs, sizeof xs);
    std::memcpy(a.y_strides, ys, sizeof ys);
    PoolGeom g;
    CHECK(pool_geometry(a, &g));
    CHECK(g.dim[0].in == 1 && g.dim[0].out == 1 && g.dim[0].k == 1 && g.dim[0].xs == 0);
    CHECK(g.dim[1].in == 7 && g.dim[1].xs == 8 && g.dim[2].out == 4 && g.dim[2].ys == 1);
    CHECK(g.xb[0] == 168 && g.yb[1] == 16 && g.x_count == 2 * 3 * 7 * 8 && g.y_count == 2 * 3 * 16);
    nb_bk_pool b = a;
    b.nspatial = 0;
    CHECK(!pool_geometry(b, &g));
    b = a, b.nspatial = 4;
    CHECK(!pool_geometry(b, &g));
    b = a, b.kernel[1] = 0;
    CHECK(!pool_geometry(b, &g));
    b = a, b.backward = 1;  // a max backward needs its indices
    CHECK(!pool_geometry(b, &g));
    int64_t dummy = 0;
    b.indices = &dummy, b.kernel[0] = b.kernel[1] = 0;  // windows unknown: allowed backward
    CHECK(pool_geometry(b, &g) && g.dim[1].k == 0 && g.dim[2].k == 0);
    b = a, b.dtype = NB_I32;
    CHECK(!pool_geometry(b, &g));
    b = a, b.dtype = NB_I64, b.backward = 1, b.indices = &dummy;
    CHECK(!pool_geometry(b, &g));
    b = a, b.kind = NB_PK_AVG, b.dilation[0] = 2;
    CHECK(!pool_geometry(b, &g));
    b = a, b.kind = NB_PK_ADAPTIVE_AVG, b.kernel[0] = 0;  // adaptive ignores the window
    CHECK(pool_geometry(b, &g) && g.dim[1].k == 1);
    b.in_size[0] = 0;
    CHECK(!pool_geometry(b, &g));
    b.out_size[0] = 0;
    CHECK(pool_geometry(b, &g) && g.y_count == 0);

    CHECK(pool_launch(0).blocks == 0);
    CHECK(pool_launch(1).blocks == 1 && pool_launch(1).threads == kPoolThreads);
    CHECK(pool_launch(kPoolThreads + 1).blocks == 2);
    CHECK(pool_launch(int64_t(1) << 40).blocks == kPoolMaxBlocks);

    // a saved index outside the plane, as the device error word reports it
    DevError e;
    std::memset(&e, 0, sizeof e);
    e.flag = 1;
    dev_error_fill(&e, "max_pool2d_backward", -1, 99, 56);
    char buf[256];
    CHECK(dev_error_message(e, buf, sizeof buf));
    CHECK(std::strcmp(buf, "max_pool2d_backward: index 99 is out of range for an input plane of 56 elements") == 0);

    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
