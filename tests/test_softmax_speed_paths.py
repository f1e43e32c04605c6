"""The CPU softmax / log_softmax kernels' fast paths against float64 PyTorch: rows of
up to 16 elements done 16 at a time (masked loads of shorter rows, the rows left
over done alone), longer rows, tiles over non-last dims, float16 / bfloat16 read
and rounded in the kernels (rows widened per row, tiles per tile, narrower tiles
for long lines, the cast path past the buffers), transposed and sliced inputs,
NaN / inf / -inf-only lines, empty and 0-dim tensors. A line's result must not
depend on where it sits (its group of 16, a block of rows, a thread): results
are compared bit for bit across row orders, layouts and thread counts, and a
half type's result must be exactly the float32 result of its widened input,
rounded."""
from __future__ import annotations

import numpy as np
import pytest
from capability_runs import arrays_per_level

import nabla

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "bfloat16", "float16"]
TOL = {"float32": 1e-5, "float64": 1e-12, "bfloat16": 1e-2, "float16": 2e-3}
OPS = {"softmax": (nabla.softmax, torch.softmax), "log_softmax": (nabla.log_softmax, torch.log_softmax)}
HALVES = ["bfloat16", "float16"]


def _check(got, xt, dim, op, dtype):
    """got against PyTorch's float64 result on the same (rounded) input, rounded to dtype."""
    want = OPS[op][1](xt.double(), dim).to(getattr(torch, dtype))
    assert got.dtype == getattr(nabla, dtype) and list(got.shape) == list(xt.shape)
    g = got.to(nabla.float64).numpy()
    w = want.double().numpy()
    np.testing.assert_allclose(g, w, rtol=TOL[dtype], atol=TOL[dtype], equal_nan=True)


def _pair(a, dtype):
    return nabla.from_numpy(a).to(getattr(nabla, dtype)), torch.from_numpy(a).to(getattr(torch, dtype))


def _bits(t):
    return t.to(nabla.float64).numpy().view(np.uint64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_short_rows_of_every_length(dtype, op):
    """Rows of 1..33 elements: 37 rows are two groups of 16 and 5 left over; 1000 rows span several items."""
    rng = np.random.default_rng(1)
    for n in list(range(1, 34)) + [48, 64, 100]:
        for rows in (37, 1000):
            a = (rng.standard_normal((rows, n)) * 5).astype(np.float32)
            xn, xt = _pair(a, dtype)
            _check(OPS[op][0](xn, 1), xt, 1, op, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_long_rows_tiles_and_middle_dims(dtype, op):
    rng = np.random.default_rng(2)
    cases = [((300, 257), 1), ((3, 4099), 1), ((70, 33), 0), ((5, 64, 300), 1), ((2, 40, 17), 1), ((6, 40, 16), 1),
             ((4097, 20), 0), ((3, 5, 7, 2), 2), ((100, 3), 0), ((200, 300), 0),
             ((300, 100), 0), ((2, 1030, 70), 1)]  # float32 tiles copied into a buffer, a tile's tail  # the last: tiles narrowed for threads
    for shape, dim in cases:
        a = (rng.standard_normal(shape) * 5).astype(np.float32)
        xn, xt = _pair(a, dtype)
        _check(OPS[op][0](xn, dim), xt, dim, op, dtype)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("op", OPS)
def test_transposed_and_sliced_inputs(dtype, op):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((40, 300)) * 5).astype(np.float32)
    b = (rng.standard_normal((6, 16, 50)) * 5).astype(np.float32)
    xn, xt = _pair(a, dtype)
    yn, yt = _pair(b, dtype)
    views = [(xn.t(), xt.t(), 1), (xn.t(), xt.t(), 0), (xn[:, ::3], xt[:, ::3], 1), (xn[:, 5:21], xt[:, 5:21], 1),
             (yn.permute(2, 0, 1), yt.permute(2, 0, 1), 2), (yn.permute(0, 2, 1), yt.permute(0, 2, 1), 2),
             (yn.permute(0, 2, 1), yt.permute(0, 2, 1), 1)]
    for vn, vt, dim in views:
        _check(OPS[op][0](vn, dim), vt, dim, op, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_nan_inf_and_minus_inf_lines(dtype, op):
    """NaN anywhere makes its line NaN, so does a line of -inf or with +inf; -inf elements alone give 0 / -inf."""
    rng = np.random.default_rng(4)
    for shape, dim in [((40, 16), 1), ((40, 10), 1), ((40, 33), 1), ((40, 300), 1), ((33, 40), 0)]:
        a = (rng.standard_normal(shape) * 5).astype(np.float32)
        lines = np.moveaxis(a, dim, -1)  # a view: writes land in a
        lines[0, 3] = np.nan
        lines[17, -1] = np.nan
        lines[5, :] = -np.inf
        lines[20, :] = -np.inf
        lines[7, 1] = np.inf
        lines[9, ::2] = -np.inf
        lines[31, 0] = -np.inf
        xn, xt = _pair(a, dtype)
        got = OPS[op][0](xn, dim)
        _check(got, xt, dim, op, dtype)
        g = np.moveaxis(got.to(nabla.float64).numpy(), dim, -1)
        assert np.isnan(g[[0, 17, 5, 20, 7]]).all()
        assert not np.isnan(g[[9, 31]]).any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_empty_and_0dim(dtype, op):
    for shape, dim in [((0, 16), 1), ((16, 0), 1), ((0, 16), 0), ((3, 0, 5), 2), ((3, 0, 5), 1)]:
        xn, xt = _pair(np.zeros(shape, np.float32), dtype)
        got = OPS[op][0](xn, dim)
        assert list(got.shape) == list(shape) and got.dtype == xn.dtype
    xn = nabla.from_numpy(np.array(2.5, np.float32)).to(getattr(nabla, dtype))
    got = OPS[op][0](xn, 0)
    assert got.shape == () and got.item() == (1.0 if op == "softmax" else 0.0)


@pytest.mark.parametrize("dtype", HALVES)
@pytest.mark.parametrize("op", OPS)
def test_half_results_are_the_rounded_float32_results(dtype, op):
    """float16 / bfloat16 are widened exactly and rounded once: bit-identical to float32 on the widened input."""
    rng = np.random.default_rng(5)
    cases = [((1000, 16), 1), ((300, 13), 1), ((300, 33), 1), ((64, 256), 1), ((3, 5000), 1), ((4, 64, 300), 1),
             ((30, 64, 16), 1),
             ((300, 40), 0), ((200, 300), 0), ((5000, 20), 0), ((70000, 20), 0)]  # narrowed tiles, the cast path
    for shape, dim in cases:
        a = (rng.standard_normal(shape) * 5).astype(np.float32)
        a.flat[::97] = -np.inf
        x = nabla.from_numpy(a).to(getattr(nabla, dtype))
        got = OPS[op][0](x, dim)
        want = OPS[op][0](x.to(nabla.float32), dim).to(getattr(nabla, dtype))
        np.testing.assert_array_equal(_bits(got), _bits(want), err_msg=str(shape))


@pytest.mark.parametrize("n", [1, 3, 10, 16, 17, 33, 256])
@pytest.mark.parametrize("op", OPS)
def test_a_row_does_not_depend_on_its_place(n, op):
    """Rows moved between groups of 16, the rows left over and the blocks of rows, and a transposed
    input's gathered lines, give bit-identical results."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((1037, n)) * 5).astype(np.float32)
    perm = rng.permutation(len(a))
    fn = OPS[op][0]
    want = fn(nabla.from_numpy(a), 1).numpy()
    moved = fn(nabla.from_numpy(a[perm]), 1).numpy()
    np.testing.assert_array_equal(moved, want[perm])
    gathered = fn(nabla.from_numpy(np.ascontiguousarray(a.T)).t(), 1).numpy()
    np.testing.assert_array_equal(gathered, want)
    for dtype in HALVES:
        h = nabla.from_numpy(a).to(getattr(nabla, dtype))
        np.testing.assert_array_equal(_bits(fn(h.t().contiguous().t(), 1)), _bits(fn(h, 1)))


def test_results_do_not_depend_on_the_thread_count():
    rng = np.random.default_rng(6)

    def arr(*shape):
        return (rng.standard_normal(shape) * 5).astype(np.float32)

    inputs = [(nabla.from_numpy(arr(20000, 16)), 1), (nabla.from_numpy(arr(5000, 10)), 1),
              (nabla.from_numpy(arr(3000, 33)), 1), (nabla.from_numpy(arr(400, 256)), 1),
              (nabla.from_numpy(arr(64, 64, 256)), 1), (nabla.from_numpy(arr(4096, 64)), 0),
              (nabla.from_numpy(arr(300, 64, 16)), 1),
              (nabla.from_numpy(arr(300, 1000)).t(), 1)]
    inputs += [(x.to(dt), d) for x, d in inputs for dt in (nabla.bfloat16, nabla.float16)]
    inputs += [(nabla.from_numpy(arr(5000, 40)).to(nabla.bfloat16), 0), (nabla.from_numpy(arr(200, 300)), 0)]

    def run():
        return [fn(x, d) for x, d in inputs for fn in (nabla.softmax, nabla.log_softmax)]

    old = nabla.get_num_threads()
    try:
        nabla.set_num_threads(1)
        want = run()
        nabla.set_num_threads(2)
        got = run()
    finally:
        nabla.set_num_threads(old)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(_bits(g), _bits(w))


_SHORT_ROWS = """
import sys
import numpy as np
import nabla
rng = np.random.default_rng(8)
out = []
for n in (1, 5, 15, 16):
    a = (rng.standard_normal((53, n)) * 5).astype(np.float32)
    a[7, 0], a[20, :] = np.nan, -np.inf
    for dtype in (nabla.float32, nabla.bfloat16, nabla.float16):
        x = nabla.from_numpy(a).to(dtype)
        for fn in (nabla.softmax, nabla.log_softmax):
            out.append(fn(x, 1).to(nabla.float32).numpy())
np.savez(sys.argv[1], *out)
"""


def test_short_rows_have_the_same_bits_at_every_instruction_set_level():
    """Groups of 16 short rows (AVX-512 only) and short rows done one at a time (the other levels)."""
    res = arrays_per_level(_SHORT_ROWS)
    for level in ("avx2", "default"):
        for g, w in zip(res[level], res["avx512"]):
            np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32))


@pytest.mark.parametrize("op", OPS)
def test_buffered_tiles_have_the_bits_of_tiles_run_in_place(op):
    """float32 tiles of lines of 256+ with rows 64+ apart are copied into a buffer first; the
    same columns with rows fewer than 64 apart run in place, with the same arithmetic."""
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((700, 100)) * 5).astype(np.float32)
    a[5, 3], a[:, 7], a[9, 80] = np.nan, -np.inf, np.inf
    fn = OPS[op][0]
    buffered = fn(nabla.from_numpy(a), 0).numpy()
    in_place = fn(nabla.from_numpy(np.ascontiguousarray(a[:, :40])), 0).numpy()
    np.testing.assert_array_equal(buffered[:, :40].view(np.uint32), in_place.view(np.uint32))
    xt = torch.from_numpy(a)
    _check(fn(nabla.from_numpy(a), 0), xt, 0, op, "float32")
