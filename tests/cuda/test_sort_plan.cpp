// test_sort_plan.cpp: host-side planning of the CUDA sort family
// (src/cuda/sort_plan.h): the order-preserving keys of every dtype (NaN, inf,
// -0.0, integer extremes), line decomposition and merging, and the launch
// shapes of short, packed and long lines. Host-only: needs no GPU and no nvcc.
#include <cmath>
#include <cstring>

#include "../../src/cuda/sort_plan.h"

#include "plan_check.h"

using namespace nbcuda;

static uint64_t f32key(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    const SortKey k = sort_key_of(NB_F32);
    return sort_key(u, k.width, k.kind, k.nan_above);
}

static uint64_t f64key(double x) {
    uint64_t u;
    std::memcpy(&u, &x, 8);
    const SortKey k = sort_key_of(NB_F64);
    return sort_key(u, k.width, k.kind, k.nan_above);
}

static nb_bk_sort sort_args(int ndim, const int64_t* shape, int dim) {
    nb_bk_sort a;
    std::memset(&a, 0, sizeof a);
    static char dummy[8];
    a.op = NB_SK_SORT, a.dtype = NB_F32, a.ndim = ndim, a.dim = dim, a.in = dummy, a.indices = dummy;
    int64_t st = 1;
    for (int d = ndim - 1; d >= 0; d--) a.shape[d] = shape[d], a.in_strides[d] = a.indices_strides[d] = st, st *= shape[d];
    a.k = shape[dim];
    return a;
}

int main() {
    // floats: -inf < -1 < -0.0 == 0.0 < 1e-45 < 1 < inf < NaN (every NaN alike)
    CHECK(f32key(-INFINITY) < f32key(-1.0f) && f32key(-1.0f) < f32key(-0.0f));
    CHECK(f32key(-0.0f) == f32key(0.0f) && f32key(0.0f) < f32key(1e-45f) && f32key(1.0f) < f32key(INFINITY));
    CHECK(f32key(INFINITY) < f32key(NAN) && f32key(NAN) == f32key(-NAN) && sort_key_is_nan(f32key(NAN), 4, kKeyFloat));
    CHECK(!sort_key_is_nan(f32key(INFINITY), 4, kKeyFloat));
    CHECK(f64key(-2.0) < f64key(-1.5) && f64key(-0.0) == f64key(0.0) && f64key(1e300) < f64key(INFINITY));
    CHECK(f64key(INFINITY) < f64key(NAN) && f64key(NAN) == ~0ull);
    // half and bfloat16 bits: 0xfc00 -inf, 0x8000 -0, 0x3c00 1, 0x7c00 inf, 0x7e00 NaN
    const SortKey h = sort_key_of(NB_F16), bf = sort_key_of(NB_BF16);
    CHECK(sort_key(0xfc00, 2, h.kind, h.nan_above) < sort_key(0xbc00, 2, h.kind, h.nan_above));
    CHECK(sort_key(0x8000, 2, h.kind, h.nan_above) == sort_key(0, 2, h.kind, h.nan_above));
    CHECK(sort_key(0x3c00, 2, h.kind, h.nan_above) < sort_key(0x7c00, 2, h.kind, h.nan_above));
    CHECK(sort_key(0x7c00, 2, h.kind, h.nan_above) < sort_key(0x7e00, 2, h.kind, h.nan_above));
    CHECK(sort_key(0x7e00, 2, h.kind, h.nan_above) == 0xffff && sort_key(0xfe01, 2, h.kind, h.nan_above) == 0xffff);
    CHECK(sort_key(0x7f80, 2, bf.kind, bf.nan_above) < sort_key(0x7fc0, 2, bf.kind, bf.nan_above));
    CHECK(sort_key(0xff80, 2, bf.kind, bf.nan_above) < sort_key(0x3f80, 2, bf.kind, bf.nan_above));
    // integers: sign flipped; unsigned and bool as they are
    CHECK(sort_key(0x80, 1, kKeySigned, 0) == 0 && sort_key(0x7f, 1, kKeySigned, 0) == 0xff);
    CHECK(sort_key(0xffffffffffffffffull, 8, kKeySigned, 0) < sort_key(0, 8, kKeySigned, 0));
    CHECK(sort_key(0x8000000000000000ull, 8, kKeySigned, 0) == 0);
    CHECK(sort_key(200, 1, kKeyUnsigned, 0) == 200 && sort_key_of(NB_BOOL).width == 1);
    CHECK(sort_key_of(NB_I16).width == 2 && sort_key_of(NB_I64).width == 8 && sort_key_of(99).width == 0);
    CHECK(sort_key_mask(1) == 0xff && sort_key_mask(8) == ~0ull);

    SortPlan pl;
    {  // a short line per block, packed: 1000 lines of 5 -> P 8, 256 lines per tile
        const int64_t s[2] = {1000, 5};
        nb_bk_sort a = sort_args(2, s, 1);
        CHECK(sort_plan(a, pl) && !pl.global && pl.padded == 8 && pl.lines == 1000 && pl.tile == NB_BK_SORT_TILE);
        CHECK(pl.blocks == (1000 * 8 + NB_BK_SORT_TILE - 1) / NB_BK_SORT_TILE && pl.threads == kSortThreads);
        CHECK(pl.no == 1 && pl.oshape[0] == 1000 && pl.oin[0] == 5 && pl.in_ls == 1);
        CHECK(nb_bk_sort_workspace_bytes(NB_SK_SORT, 1000, 5, 4) == 0);
    }
    {  // few lines: the tile shrinks to them
        const int64_t s[2] = {3, 5};
        nb_bk_sort a = sort_args(2, s, 1);
        CHECK(sort_plan(a, pl) && pl.tile == 32 && pl.blocks == 1 && pl.threads == 16);
    }
    {  // one element: tile 2, one thread
        const int64_t s[1] = {1};
        nb_bk_sort a = sort_args(1, s, 0);
        CHECK(sort_plan(a, pl) && pl.padded == 1 && pl.tile == 2 && pl.threads == 1 && pl.blocks == 1);
    }
    {  // long lines: global passes, a workspace
        const int64_t s[2] = {70000, 3};
        nb_bk_sort a = sort_args(2, s, 0);
        CHECK(sort_plan(a, pl) && pl.global && pl.padded == 131072 && pl.tile == NB_BK_SORT_TILE);
        CHECK(pl.lines == 3 && pl.blocks == 3 * 131072 / NB_BK_SORT_TILE && pl.in_ls == 3);
        CHECK(nb_bk_sort_workspace_bytes(NB_SK_SORT, 3, 70000, 4) == 3 * 131072 * 8 + 8);
    }
    {  // middle dim: the outer dims do not merge across it; size-1 dims drop
        const int64_t s[4] = {2, 6, 1, 4};
        nb_bk_sort a = sort_args(4, s, 1);
        CHECK(sort_plan(a, pl) && pl.lines == 8 && pl.no == 2 && pl.oshape[0] == 2 && pl.oshape[1] == 4);
        CHECK(pl.oin[0] == 24 && pl.oin[1] == 1 && pl.in_ls == 4);
    }
    {  // contiguous outer dims merge
        const int64_t s[3] = {2, 3, 4};
        nb_bk_sort a = sort_args(3, s, 2);
        CHECK(sort_plan(a, pl) && pl.no == 1 && pl.oshape[0] == 6 && pl.oin[0] == 4 && pl.oidx[0] == 4);
    }
    {  // empty line set, bad requests
        const int64_t s[2] = {0, 4};
        nb_bk_sort a = sort_args(2, s, 1);
        CHECK(sort_plan(a, pl) && pl.blocks == 0);
        const int64_t t[1] = {4};
        a = sort_args(1, t, 0);
        a.k = 5;
        CHECK(!sort_plan(a, pl));
        a.k = 0;
        CHECK(!sort_plan(a, pl));
        a = sort_args(1, t, 0);
        a.indices = nullptr;
        CHECK(!sort_plan(a, pl));
        a = sort_args(1, t, 0);
        a.dtype = 42;
        CHECK(!sort_plan(a, pl));
        a = sort_args(1, t, 0);
        a.op = NB_SK_GROUPS;
        CHECK(!sort_plan(a, pl));
    }
    CHECK(groups_blocks(1) == 1 && groups_blocks(NB_BK_SORT_TILE) == 1 && groups_blocks(NB_BK_SORT_TILE + 1) == 2);
    CHECK(nb_bk_sort_workspace_bytes(NB_SK_GROUPS, 1, 5000, 4) == 3 * 8);
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
