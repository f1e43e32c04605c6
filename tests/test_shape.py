"""Shape ops (cat, stack, split, chunk, unbind, flip, roll, repeat, tile, tril/triu,
movedim, meshgrid) and ordering ops (sort, argsort, topk, unique) against NumPy
over random shapes, every dim, non-contiguous inputs, empty and 0-dim tensors
and several dtypes; every error with its message; PyTorch where installed."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import nabla

DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int16, nabla.int32,
          nabla.int64, nabla.uint8, nabla.bool]
NP = {nabla.float32: np.float32, nabla.float64: np.float64, nabla.float16: np.float16, nabla.bfloat16: np.float32,
      nabla.int8: np.int8, nabla.int16: np.int16, nabla.int32: np.int32, nabla.int64: np.int64,
      nabla.uint8: np.uint8, nabla.bool: np.bool_}
LAYOUTS = ["contiguous", "transposed", "stepped"]


def rand(rng, shape, dtype):
    """Small integral values (exact in every dtype, bfloat16 included)."""
    if dtype is nabla.bool:
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if dtype is nabla.uint8 else -50
    return rng.integers(lo, 50, shape).astype(NP[dtype])


def make(a, dtype, layout="contiguous"):
    """A nabla tensor of dtype holding a's values, laid out as asked (same values whatever the layout)."""
    a = np.asarray(a)
    if layout == "transposed" and a.ndim >= 2:
        return nabla.tensor(np.ascontiguousarray(a.T), dtype=dtype).permute(*range(a.ndim - 1, -1, -1))
    if layout == "stepped" and a.ndim >= 1:
        base = np.zeros(a.shape[:-1] + (2 * a.shape[-1] + 1,), a.dtype)
        base[..., 1::2] = a
        return nabla.tensor(base, dtype=dtype)[..., 1::2]
    return nabla.tensor(a, dtype=dtype)


def values(t):
    """t's values as NumPy (bfloat16 through float32)."""
    return (t.float() if t.dtype is nabla.bfloat16 else t).numpy()


def check(t, expected, dtype=None):
    expected = np.asarray(expected)
    assert isinstance(t, nabla.Tensor)
    assert tuple(t.shape) == expected.shape, (t.shape, expected.shape)
    if dtype is not None:
        assert t.dtype is dtype, (t.dtype, dtype)
    got = values(t)
    np.testing.assert_array_equal(got, expected.astype(got.dtype) if dtype is not None else expected)


def random_shape(rng, ndim, lo=0, hi=5):
    return tuple(int(s) for s in rng.integers(lo, hi, ndim))


# ---- cat / stack ----

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_cat_matches_numpy(dtype, layout, rng):
    for trial in range(40):
        ndim = int(rng.integers(1, 5))
        base = random_shape(rng, ndim, 1 if trial % 5 else 0)
        dim = int(rng.integers(-ndim, ndim))
        arrays = []
        for _ in range(int(rng.integers(1, 5))):
            shape = list(base)
            shape[dim] = int(rng.integers(0, 4))
            arrays.append(rand(rng, shape, dtype))
        ts = [make(a, dtype, layout) for a in arrays]
        check(nabla.cat(ts, dim), np.concatenate(arrays, axis=dim), dtype)
        check(nabla.concat(ts, dim=dim), np.concatenate(arrays, axis=dim), dtype)


@pytest.mark.parametrize("a_dtype, b_dtype, want", [
    (nabla.int32, nabla.float16, nabla.float16), (nabla.uint8, nabla.int8, nabla.int16),
    (nabla.bool, nabla.int32, nabla.int32), (nabla.int64, nabla.float32, nabla.float32),
    (nabla.float16, nabla.bfloat16, nabla.float32), (nabla.bool, nabla.bool, nabla.bool),
    (nabla.float32, nabla.float64, nabla.float64), (nabla.uint8, nabla.bool, nabla.uint8)])
def test_cat_promotes_dtypes(a_dtype, b_dtype, want, rng):
    a, b = rand(rng, (2, 3), a_dtype), rand(rng, (2, 2), b_dtype)
    r = nabla.cat([make(a, a_dtype), make(b, b_dtype)], 1)
    assert r.dtype is want
    np.testing.assert_array_equal(values(r), np.concatenate([a, b], 1).astype(values(r).dtype))


def test_cat_skips_legacy_empty_1d_tensors():
    x = nabla.arange(6.).view(2, 3)
    check(nabla.cat([nabla.empty(0), x, nabla.empty(0)]), x.numpy())
    check(nabla.cat([x, nabla.empty(0)], dim=-1), x.numpy())
    assert nabla.cat([x, nabla.empty(0, dtype=nabla.float64)], 1).dtype is nabla.float64  # still promotes
    r = nabla.cat([nabla.empty(0), nabla.empty(0, dtype=nabla.int64)])
    assert r.shape == (0,) and r.dtype is nabla.float32
    assert nabla.cat([nabla.empty(0)], dim=5).shape == (0,)  # no dim check when everything is skipped
    check(nabla.cat([nabla.zeros(2, 0), nabla.ones(2, 1)], 1), np.ones((2, 1), np.float32))


def test_cat_out_and_aliasing():
    a, b = nabla.arange(3.), nabla.arange(3., 5.)
    out = nabla.empty(5, dtype=nabla.float64)
    assert nabla.cat([a, b], out=out) is out
    check(out, np.arange(5.), nabla.float64)
    x = nabla.arange(6.)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):  # PyTorch refuses an out= that
        nabla.cat([x[3:], x[:3]], out=x)  # overlaps an input, even one that fits
    check(x, np.arange(6.))
    y = nabla.zeros(2, 3)
    nabla.cat([x[:3], x[3:]], out=y.view(6))  # another storage
    check(y, [[0., 1., 2.], [3., 4., 5.]])
    with pytest.warns(UserWarning, match="was resized"):
        check(nabla.cat([a, b], out=nabla.empty(4)), np.arange(5.))
    with pytest.raises(TypeError, match="can't be cast"):  # PyTorch raises TypeError here
        nabla.cat([a, b], out=nabla.empty(5, dtype=nabla.int64))


def test_cat_errors():
    x = nabla.zeros(2, 3)
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        nabla.cat([])
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        nabla.cat(x)
    with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):
        nabla.cat([x, 1])
    with pytest.raises(RuntimeError, match=r"zero-dimensional tensor \(at position 1\) cannot be concatenated"):
        nabla.cat([x, nabla.tensor(1.)])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        nabla.cat([x, nabla.zeros(3)])
    with pytest.raises(RuntimeError, match=r"Sizes of tensors must match except in dimension 0\. Expected size 3 but "
                                           r"got size 4 for tensor number 1 in the list"):
        nabla.cat([x, nabla.zeros(2, 4)])
    with pytest.raises(IndexError, match=r"(?i)dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        nabla.cat([x, x], 2)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.int64, nabla.bool, nabla.bfloat16], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stack_matches_numpy(dtype, layout, rng):
    for trial in range(30):
        ndim = int(rng.integers(0, 4))
        shape = random_shape(rng, ndim, 0 if trial % 4 == 0 else 1)
        arrays = [rand(rng, shape, dtype) for _ in range(int(rng.integers(1, 4)))]
        ts = [make(a, dtype, layout) for a in arrays]
        for dim in range(-ndim - 1, ndim + 1):
            check(nabla.stack(ts, dim), np.stack(arrays, axis=dim), dtype)


def test_stack_errors_and_out():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
                                           r"and \[2, 4\] at entry 1"):
        nabla.stack([nabla.zeros(2, 3), nabla.zeros(2, 4)])
    with pytest.raises(RuntimeError, match="non-empty TensorList"):
        nabla.stack([])
    with pytest.raises(IndexError, match="(?i)dimension out of range"):
        nabla.stack([nabla.zeros(2)], 2)
    out = nabla.empty(2, 2)
    nabla.stack([nabla.ones(2), nabla.zeros(2)], 1, out=out)
    check(out, [[1., 0.], [1., 0.]])


# ---- split / chunk / unbind ----

@pytest.mark.parametrize("layout", LAYOUTS)
def test_split_chunk_unbind_match_numpy(layout, rng):
    for trial in range(40):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 7)
        a = rand(rng, shape, nabla.float32)
        t = make(a, nabla.float32, layout)
        dim = int(rng.integers(-ndim, ndim))
        size = a.shape[dim]
        step = int(rng.integers(1, size + 2))
        pieces = nabla.split(t, step, dim)
        want = np.split(a, range(step, size, step), axis=dim)
        assert len(pieces) == len(want)
        for p, w in zip(pieces, want):
            check(p, w)
        sizes = list(rng.multinomial(size, [0.3, 0.3, 0.4]))
        for p, w in zip(t.split(sizes, dim), np.split(a, np.cumsum(sizes)[:-1], axis=dim)):
            check(p, w)
        chunks = int(rng.integers(1, size + 3))
        per = -(-size // chunks)
        want = np.split(a, range(per, size, per), axis=dim)
        got = nabla.chunk(t, chunks, dim)
        assert len(got) == len(want)
        for p, w in zip(got, want):
            check(p, w)
        for p, w in zip(nabla.tensor_split(t, chunks, dim), np.array_split(a, chunks, axis=dim)):
            check(p, w)
        unb = t.unbind(dim)
        assert len(unb) == size
        for i, p in enumerate(unb):
            check(p, np.take(a, i, axis=dim))


def test_split_views_share_storage():
    t = nabla.arange(10.)
    a, b = t.split(5)
    a[0] = 100.
    assert t[0].item() == 100. and b.data_ptr() == t.data_ptr() + 5 * 4


def test_split_errors():
    t = nabla.arange(5.)
    with pytest.raises(RuntimeError, match=r"split_with_sizes expects split_sizes to sum exactly to 5 \(input tensor's "
                                           r"size at dimension 0\), but got split_sizes=\[2, 2\]"):
        t.split([2, 2])
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        t.split(0)
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0, got: 0"):
        t.chunk(0)
    assert len(nabla.empty(0).split(0)) == 1


# ---- flip / roll ----

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip_matches_numpy(dtype, layout, rng):
    for trial in range(12):
        ndim = int(rng.integers(0, 4))
        a = rand(rng, random_shape(rng, ndim, 0 if trial % 4 == 0 else 1), dtype)
        t = make(a, dtype, layout)
        for k in range(ndim + 1):
            for dims in itertools.combinations(range(ndim), k):
                check(nabla.flip(t, dims), np.flip(a, dims) if dims else a, dtype)
        if ndim:
            check(t.flip(-1), np.flip(a, -1), dtype)
            check(t.flip(0, -1) if ndim > 1 else t.flip([0]), np.flip(a, (0, -1) if ndim > 1 else 0), dtype)
        if ndim >= 2:
            check(nabla.fliplr(t), np.fliplr(a), dtype)
        if ndim >= 1:
            check(nabla.flipud(t), np.flipud(a), dtype)


def test_flip_errors():
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        nabla.zeros(2, 3).flip(0, -2)
    with pytest.raises(IndexError, match="(?i)dimension out of range"):
        nabla.zeros(2, 3).flip(2)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        nabla.fliplr(nabla.zeros(3))
    check(nabla.tensor(5.).flip(0), np.float32(5.))


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.int8, nabla.bool, nabla.float16], ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll_matches_numpy(dtype, layout, rng):
    for trial in range(40):
        ndim = int(rng.integers(0, 4))
        a = rand(rng, random_shape(rng, ndim, 0 if trial % 5 == 0 else 1), dtype)
        t = make(a, dtype, layout)
        shift = int(rng.integers(-9, 10))
        check(nabla.roll(t, shift), np.roll(a, shift), dtype)
        if ndim:
            k = int(rng.integers(1, 4))
            dims = [int(d) for d in rng.integers(-ndim, ndim, k)]  # repeated dims apply one after the other
            shifts = [int(s) for s in rng.integers(-7, 8, k)]
            check(t.roll(shifts, dims), np.roll(a, shifts, dims), dtype)
            check(t.roll(shifts[0], dims[0]), np.roll(a, shifts[0], dims[0]), dtype)


def test_roll_errors():
    with pytest.raises(RuntimeError, match="shifts and dimensions must align. shifts: 2, dims:1"):
        nabla.zeros(2, 3).roll((1, 2), (0,))
    with pytest.raises(RuntimeError, match="`shifts` required"):
        nabla.zeros(2, 3).roll(())
    with pytest.raises(IndexError, match="(?i)dimension out of range"):
        nabla.zeros(2, 3).roll(1, 2)


# ---- repeat / tile ----

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_and_tile_match_numpy(dtype, layout, rng):
    for trial in range(25):
        ndim = int(rng.integers(0, 4))
        a = rand(rng, random_shape(rng, ndim, 0 if trial % 6 == 0 else 1, 4), dtype)
        t = make(a, dtype, layout)
        reps = tuple(int(r) for r in rng.integers(0 if trial % 7 == 0 else 1, 4, ndim + int(rng.integers(0, 3))))
        check(t.repeat(*reps) if reps else t.repeat(()), np.tile(a, reps) if reps else a, dtype)
        short = reps[:max(ndim - 1, 0)]
        check(nabla.tile(t, short), np.tile(a, short) if short else a, dtype)
        check(t.tile(reps) if reps else t.tile(()), np.tile(a, reps) if reps else a, dtype)


def test_repeat_large_and_many_dims():
    a = np.arange(2 * 3 * 2 * 2 * 2 * 2 * 2 * 2, dtype=np.int16).reshape(2, 3, 2, 2, 2, 2, 2, 2)
    reps = (2, 1, 3, 2, 1, 2, 2, 3)
    check(nabla.tensor(a).repeat(*reps), np.tile(a, reps))
    big = np.arange(1000, dtype=np.float32).reshape(10, 100)
    check(nabla.tensor(big).repeat(30, 20), np.tile(big, (30, 20)))  # parallel copies
    sixteen = np.arange(4, dtype=np.int64).reshape((1,) * 14 + (2, 2))
    check(nabla.tensor(sixteen).repeat(*([2] * 16)), np.tile(sixteen, [2] * 16))


def test_repeat_errors():
    with pytest.raises(RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of "
                                           "dimensions of tensor"):
        nabla.zeros(2, 3).repeat(2)
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -2: \[-2, 3\]"):
        nabla.zeros(2, 3).repeat(-1, 1)


# ---- tril / triu ----

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu_match_numpy(dtype, layout, rng):
    for trial in range(10):
        ndim = int(rng.integers(2, 5))
        a = rand(rng, random_shape(rng, ndim, 0 if trial % 5 == 0 else 1, 6), dtype)
        t = make(a, dtype, layout)
        for k in range(-6, 7, 2 if trial % 2 else 3):
            check(nabla.tril(t, k), np.tril(a, k), dtype)
            check(t.triu(k), np.triu(a, k), dtype)
        c = t.clone()
        assert c.tril_(1) is c
        check(c, np.tril(a, 1), dtype)
        out = nabla.empty(*a.shape, dtype=dtype)
        assert nabla.triu(t, -1, out=out) is out
        check(out, np.triu(a, -1), dtype)


def test_tril_inplace_through_a_view_and_errors():
    base = nabla.ones(4, 4)
    v = base.t()
    v.tril_()
    check(base, np.triu(np.ones((4, 4), np.float32)))
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        nabla.tril(nabla.zeros(3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        nabla.zeros(1, 3).expand(3, 3).triu_()


# ---- movedim / meshgrid ----

def test_movedim_matches_numpy(rng):
    a = rng.standard_normal((2, 3, 4, 5))
    t = nabla.tensor(a)
    for src, dst in [(0, 3), (-1, 0), ((0, 1), (2, 3)), ((3, 0), (0, 3)), ([1, 2, 3], [0, 1, 2]), ((), ())]:
        r = nabla.movedim(t, src, dst)
        check(r, np.moveaxis(a, src, dst))
        assert r.data_ptr() == t.data_ptr()  # a view
    check(t.moveaxis(1, -1), np.moveaxis(a, 1, -1))
    with pytest.raises(RuntimeError, match="movedim: Invalid source or destination dims"):
        nabla.movedim(t, (0, 1), (0,))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        nabla.movedim(t, (0, 0), (1, 2))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(indexing):
    xs = [np.arange(3.), np.arange(10., 14.), np.array([7.]), np.arange(2.)]
    for n in range(1, 5):
        got = nabla.meshgrid(*[nabla.tensor(x) for x in xs[:n]], indexing=indexing)
        want = np.meshgrid(*xs[:n], indexing=indexing)
        assert len(got) == n
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.numpy(), w.astype(np.float32))
    g = nabla.meshgrid([nabla.tensor(1.), nabla.arange(2.)], indexing=indexing)
    assert all(x.shape == ((1, 2) if indexing == "ij" else (2, 1)) for x in g)
    with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor"):
        nabla.meshgrid(nabla.zeros(2, 2))
    with pytest.raises(RuntimeError, match="same dtype"):
        nabla.meshgrid(nabla.zeros(2), nabla.zeros(2, dtype=nabla.int64))


# ---- sort / argsort / topk ----

def ref_sort(a, axis, descending):
    """Stable sort with NaN above every number (last ascending, first descending), as PyTorch."""
    def one(v):
        vals = v.tolist()
        if descending:
            key = (lambda i: (0 if vals[i] != vals[i] else 1, -vals[i])) if v.dtype != bool else (lambda i: -int(vals[i]))
        else:
            key = (lambda i: (1 if vals[i] != vals[i] else 0, vals[i]))
        return np.array(sorted(range(len(vals)), key=key), dtype=np.int64)
    a = np.asarray(a)
    if a.ndim == 0:
        return a, np.array(0)
    idx = np.apply_along_axis(one, axis, a) if a.size else np.zeros(a.shape, np.int64)
    return np.take_along_axis(a, idx, axis), idx


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_sort_matches_stable_reference(dtype, layout, rng):
    for trial in range(15):
        ndim = int(rng.integers(0, 4))
        shape = random_shape(rng, ndim, 0 if trial % 6 == 0 else 1, 7)
        a = rand(rng, shape, dtype) if dtype is nabla.bool else (rand(rng, shape, dtype) % 7).astype(NP[dtype])
        if dtype.is_floating_point and a.size:
            a.flat[rng.integers(0, a.size, max(a.size // 4, 1))] = np.nan
            a.flat[rng.integers(0, a.size, max(a.size // 5, 1))] = -0.0
        t = make(a, dtype, layout)
        for dim in range(-max(ndim, 1), max(ndim, 1)):
            for desc in (False, True):
                wv, wi = ref_sort(a, dim, desc)
                v, i = nabla.sort(t, dim, descending=desc, stable=True)
                check(v, wv, dtype)
                check(i, wi, nabla.int64)
                check(t.argsort(dim, descending=desc), wi, nabla.int64)
                if not desc and dtype is not nabla.bool and not dtype.is_floating_point:
                    np.testing.assert_array_equal(i.numpy(), np.argsort(a, axis=dim, kind="stable"))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_long_slices_radix_sort_heap_topk_and_unique(dtype, rng):
    """Slices of hundreds of elements take the radix sort, topk of a few the heap: same results."""
    for shape, dim in [((3, 700), 1), ((520, 2), 0), ((300,), 0), ((2, 260, 3), 1)]:
        if dtype is nabla.bool:
            a = rand(rng, shape, dtype)
        elif dtype in (nabla.int8, nabla.uint8):
            a = rand(rng, shape, dtype)  # the full range, signs mixed
        else:
            a = (rand(rng, shape, dtype) % 23 - 11).astype(NP[dtype])
            if dtype is nabla.int64:
                a = a * np.int64(1 << 40) + rng.integers(-3, 3, shape)  # wide keys crossing byte boundaries
        if dtype.is_floating_point:
            flat = a.reshape(-1)
            flat[rng.integers(0, a.size, a.size // 10)] = np.nan
            flat[rng.integers(0, a.size, a.size // 10)] = -0.0
            flat[rng.integers(0, a.size, a.size // 20)] = np.inf
            flat[rng.integers(0, a.size, a.size // 20)] = -np.inf
        t = make(a, dtype, "transposed" if a.ndim > 1 else "stepped")
        for desc in (False, True):
            wv, wi = ref_sort(a, dim, desc)
            v, i = t.sort(dim, descending=desc)
            check(v, wv, dtype)
            check(i, wi, nabla.int64)
            for k in (1, 5, a.shape[dim] // 9, a.shape[dim] // 2):
                tv, ti = t.topk(k, dim, largest=desc)
                sl = [slice(None)] * a.ndim
                sl[dim] = slice(0, k)
                check(tv, wv[tuple(sl)], dtype)
                check(ti, wi[tuple(sl)], nabla.int64)
        v, inv, c = nabla.unique(t, return_inverse=True, return_counts=True)
        got = values(v)
        nan = np.isnan(got) if dtype.is_floating_point else np.zeros(got.shape, bool)
        wv, winv, wc = np.unique(a[~np.isnan(a)] if dtype.is_floating_point else a, return_inverse=True,
                                 return_counts=True)
        np.testing.assert_array_equal(got[~nan], wv.astype(got.dtype))
        np.testing.assert_array_equal(c.numpy()[~nan], wc)
        assert nan.sum() == (np.isnan(a).sum() if dtype.is_floating_point else 0)  # every NaN distinct
        np.testing.assert_array_equal(got[inv.numpy()][~np.isnan(values(t))] if dtype.is_floating_point
                                      else got[inv.numpy()], (a[~np.isnan(a)] if dtype.is_floating_point else a)
                                      .astype(got.dtype))


def test_sort_namedtuple_and_defaults():
    r = nabla.tensor([[3., 1., 2.], [0., -1., 5.]]).sort()
    assert r.values.tolist() == [[1., 2., 3.], [-1., 0., 5.]] and r.indices.tolist() == [[1, 2, 0], [1, 0, 2]]
    v, i = r
    assert v is r[0] and i is r.indices
    assert nabla.msort(nabla.tensor([[2, 1], [1, 2]])).tolist() == [[1, 1], [2, 2]]
    s = nabla.tensor(4.5).sort()
    assert s.values.shape == () and s.values.item() == 4.5 and s.indices.item() == 0
    big = np.random.default_rng(5).standard_normal(200_000).astype(np.float32)
    np.testing.assert_array_equal(nabla.tensor(big).sort().values.numpy(), np.sort(big))
    rows = np.random.default_rng(6).integers(-1000, 1000, (3000, 70))
    np.testing.assert_array_equal(nabla.tensor(rows).argsort(0).numpy(), np.argsort(rows, 0, kind="stable"))


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.int32, nabla.uint8, nabla.float16], ids=str)
def test_topk_values_and_indices(dtype, rng):
    for trial in range(20):
        ndim = int(rng.integers(1, 4))
        a = rand(rng, random_shape(rng, ndim, 1, 7), dtype)
        t = make(a, dtype, LAYOUTS[trial % 3])
        dim = int(rng.integers(-ndim, ndim))
        k = int(rng.integers(0, a.shape[dim] + 1))
        for largest in (True, False):
            v, i = nabla.topk(t, k, dim, largest=largest)
            wv, wi = ref_sort(a, dim, largest)
            sl = [slice(None)] * ndim
            sl[dim] = slice(0, k)
            check(v, wv[tuple(sl)], dtype)
            check(i, wi[tuple(sl)], nabla.int64)  # ties keep the earlier index first
            check(t.gather(dim, i), wv[tuple(sl)], dtype)


def test_topk_errors_and_nan():
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        nabla.zeros(3).topk(4)
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        nabla.zeros(3).topk(-1)
    r = nabla.tensor([1., float("nan"), 0.]).topk(2)
    assert math.isnan(r.values[0].item()) and r.values[1].item() == 1. and r.indices.tolist() == [1, 0]
    with pytest.raises(IndexError, match="(?i)dimension out of range"):
        nabla.zeros(3).sort(1)


# ---- unique ----

@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_unique_matches_numpy(dtype, layout, rng):
    for trial in range(10):
        ndim = int(rng.integers(0, 4))
        shape = random_shape(rng, ndim, 0 if trial % 4 == 0 else 1, 6)
        a = rand(rng, shape, dtype) if dtype is nabla.bool else (rand(rng, shape, dtype) % 9).astype(NP[dtype])
        t = make(a, dtype, layout)
        wv, winv, wc = np.unique(a, return_inverse=True, return_counts=True)
        check(nabla.unique(t), wv, dtype)
        v, inv, c = t.unique(return_inverse=True, return_counts=True)
        check(v, wv, dtype)
        check(inv, winv.reshape(a.shape), nabla.int64)
        check(c, wc, nabla.int64)
        v2, c2 = nabla.unique(t, return_counts=True)
        check(c2, wc, nabla.int64)
        v3, inv3 = nabla.unique(t, sorted=False, return_inverse=True)
        check(inv3, winv.reshape(a.shape), nabla.int64)


def test_unique_nan_and_dim():
    v, c = nabla.unique(nabla.tensor([float("nan"), 1., float("nan"), 1.]), return_counts=True)
    assert v.numpy()[0] == 1. and np.isnan(v.numpy()[1:]).all() and c.tolist() == [2, 1, 1]  # every NaN distinct
    assert nabla.unique(nabla.zeros(2, 2), dim=0).tolist() == [[0.0, 0.0]]  # tests/test_unique.py has the rest


# ---- PyTorch as the reference ----

def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((4, 5, 3)).astype(np.float32)
    a[0, 1, 2] = np.nan
    t, p = nabla.tensor(a), torch.tensor(a)
    pairs = [
        (nabla.cat([t, t[:2]], 0), torch.cat([p, p[:2]], 0)),
        (nabla.stack([t, t], -1), torch.stack([p, p], -1)),
        (t.flip(0, 2), p.flip(0, 2)), (t.roll((2, -1), (0, 2)), p.roll((2, -1), (0, 2))), (t.roll(7), p.roll(7)),
        (t.repeat(2, 1, 1, 3), p.repeat(2, 1, 1, 3)), (t.tile((2,)), p.tile((2,))),
        (t.tril(-1), p.tril(-1)), (t.triu(2), p.triu(2)),
        (t.movedim((0, 1), (2, 0)), p.movedim((0, 1), (2, 0))),
    ]
    for dim in range(3):
        for desc in (False, True):
            pairs += list(zip(t.sort(dim, desc, stable=True), p.sort(dim=dim, descending=desc, stable=True)))
        pairs += list(zip(t.topk(2, dim), p.topk(2, dim)))
        pairs += list(zip(t.topk(2, dim, largest=False), p.topk(2, dim, largest=False)))
    for ours, theirs in pairs:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for ours, theirs in [(t.split(2, 1), p.split(2, 1)), (t.chunk(3, 0), p.chunk(3, 0)), (t.unbind(2), p.unbind(2)),
                         (t.tensor_split(3, 1), p.tensor_split(3, 1)), (t.split([1, 3, 1], 1), p.split([1, 3, 1], 1))]:
        assert len(ours) == len(theirs)
        for o, q in zip(ours, theirs):
            np.testing.assert_array_equal(o.numpy(), q.numpy())
    u = rng.integers(0, 5, 30)
    for o, q in zip(nabla.unique(nabla.tensor(u), return_inverse=True, return_counts=True),
                    torch.unique(torch.tensor(u), return_inverse=True, return_counts=True)):
        np.testing.assert_array_equal(o.numpy(), q.numpy())
    for o, q in zip(nabla.meshgrid(nabla.arange(3), nabla.arange(2), indexing="xy"),
                    torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xy")):
        np.testing.assert_array_equal(o.numpy(), q.numpy())
