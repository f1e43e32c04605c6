"""unique(dim=...) and unique_consecutive (flattened and along a dim) with inverse
and counts: against NumPy's unique(axis=) and a run-length reference over random
shapes, every dim, strided inputs and many dtypes; PyTorch's ordering of NaN rows,
-0.0, empty tensors and its errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

from test_shape import LAYOUTS, NP, make, random_shape, values

DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int32, nabla.int64,
          nabla.uint8, nabla.bool]


def few_values(rng, shape, dtype):
    """Values from a small set, so that equal slices and runs are common."""
    a = rng.integers(0, 3, shape)
    return a.astype(bool) if dtype is nabla.bool else (a - (0 if dtype is nabla.uint8 else 1)).astype(NP[dtype])


def runs(a2d):
    """Consecutive unique rows of a 2-D array: (first rows, inverse, counts)."""
    keep, inverse, counts = [], [], []
    for j, row in enumerate(a2d):
        if not keep or not np.array_equal(a2d[keep[-1]], row):
            keep.append(j)
            counts.append(0)
        counts[-1] += 1
        inverse.append(len(keep) - 1)
    return keep, np.array(inverse, np.int64), np.array(counts, np.int64)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_dim_matches_numpy(dtype, rng):
    for trial in range(30):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 5)
        dim = int(rng.integers(-ndim, ndim))
        a = few_values(rng, shape, dtype)
        t = make(a, dtype, LAYOUTS[trial % len(LAYOUTS)])
        v, inv, c = nabla.unique(t, dim=dim, return_inverse=True, return_counts=True)
        wv, winv, wc = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
        assert v.dtype is dtype and inv.dtype is nabla.int64 and c.dtype is nabla.int64
        np.testing.assert_array_equal(values(v), wv)
        np.testing.assert_array_equal(inv.numpy(), winv.reshape(-1))
        np.testing.assert_array_equal(c.numpy(), wc)
        np.testing.assert_array_equal(values(t.unique(dim=dim)), wv)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unique_consecutive_matches_runs(dtype, rng):
    for trial in range(30):
        ndim = int(rng.integers(1, 4))
        shape = random_shape(rng, ndim, 1, 6)
        a = few_values(rng, shape, dtype)
        t = make(a, dtype, LAYOUTS[trial % len(LAYOUTS)])
        v, inv, c = nabla.unique_consecutive(t, return_inverse=True, return_counts=True)
        keep, winv, wc = runs(a.reshape(-1, 1))
        np.testing.assert_array_equal(values(v), a.reshape(-1)[keep])
        np.testing.assert_array_equal(inv.numpy(), winv.reshape(shape))
        np.testing.assert_array_equal(c.numpy(), wc)
        dim = int(rng.integers(-ndim, ndim))
        v, inv, c = t.unique_consecutive(return_inverse=True, return_counts=True, dim=dim)
        moved = np.moveaxis(a, dim, 0)
        keep, winv, wc = runs(moved.reshape(moved.shape[0], -1))
        np.testing.assert_array_equal(values(v), np.moveaxis(moved[keep], 0, dim))
        np.testing.assert_array_equal(inv.numpy(), winv)
        np.testing.assert_array_equal(c.numpy(), wc)


def test_outputs_on_request():
    x = nabla.tensor([[1, 2], [1, 2], [0, 5]])
    assert nabla.unique(x, dim=0).tolist() == [[0, 5], [1, 2]]
    v, c = nabla.unique(x, dim=0, return_counts=True)
    assert c.tolist() == [1, 2]
    v, i = nabla.unique_consecutive(x, dim=0, return_inverse=True)
    assert v.tolist() == [[1, 2], [0, 5]] and i.tolist() == [0, 0, 1]
    assert nabla.unique_consecutive(nabla.tensor(3.0)).tolist() == [3.0]
    v, i, c = nabla.unique_consecutive(nabla.tensor(3.0), return_inverse=True, return_counts=True)
    assert i.ndim == 0 and i.item() == 0 and c.tolist() == [1]


CASES = [
    lambda L: L.unique(L.tensor([[1, 2, 1], [0, 0, 0], [1, 2, 1], [3, -1, 3]]), dim=0, return_inverse=True,
                       return_counts=True),
    lambda L: L.unique(L.tensor([[1, 2, 1], [0, 0, 0], [1, 2, 1], [3, -1, 3]]), dim=1, return_inverse=True,
                       return_counts=True),
    lambda L: L.unique(L.tensor([[float("nan"), 1.0], [float("nan"), 1.0], [0.0, 2.0], [-0.0, 2.0], [0.0, 1.0]]),
                       dim=0, return_inverse=True, return_counts=True),
    lambda L: L.unique_consecutive(L.tensor([float("nan"), float("nan"), 1.0, 1.0, -0.0, 0.0]), return_inverse=True,
                                   return_counts=True),
    lambda L: L.unique_consecutive(L.tensor([[1, 1], [2, 2], [2, 2]]), return_inverse=True, return_counts=True),
    lambda L: L.unique(L.tensor([[3, 1], [0, 1], [3, 1]]), dim=0, sorted=False),
    lambda L: L.unique(L.tensor([True, False, True]), dim=0, return_counts=True),
    lambda L: L.unique(L.zeros(0, 3), dim=0, return_inverse=True, return_counts=True),
    lambda L: L.unique(L.zeros(3, 0), dim=1, return_inverse=True, return_counts=True),
    lambda L: L.unique_consecutive(L.zeros(0, 2), dim=0, return_inverse=True, return_counts=True),
    lambda L: L.unique_consecutive(L.zeros(2, 0, 3), return_inverse=True, return_counts=True),
    lambda L: L.unique(L.tensor([[1.0, 2.0], [1.0, 2.0]]), dim=-1, return_inverse=True),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_pytorch(case):
    torch = pytest.importorskip("torch")
    want, got = CASES[case](torch), CASES[case](nabla)
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_array_equal(g.numpy(), w.numpy())
        if w.dtype.is_floating_point:  # the sign of zero too
            np.testing.assert_array_equal(np.signbit(g.numpy()), np.signbit(w.numpy()))


ERRORS = [
    (lambda L: L.unique(L.tensor(3.0), dim=0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda L: L.unique_consecutive(L.tensor(3.0), dim=0), IndexError,
     "Dimension specified as 0 but tensor has no dimensions"),
    (lambda L: L.unique(L.ones(2, 3), dim=5), IndexError, r"[Dd]imension out of range \(expected to be in range of "
                                                          r"\[-2, 1\], but got 5\)"),
    (lambda L: L.unique(L.zeros(2, 0), dim=0), RuntimeError, "There are 0 sized dimensions, and they aren't "
                                                             "selected, so unique cannot be applied"),
    (lambda L: L.unique_consecutive(L.zeros(3, 0), dim=0), RuntimeError, "There are 0 sized dimensions"),
]


@pytest.mark.parametrize("call, exc, message", ERRORS)
def test_errors_like_pytorch(call, exc, message):
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        with pytest.raises(exc, match=message):
            call(L)
    with pytest.raises(TypeError, match="must be Tensor"):
        nabla.unique([1, 2], dim=0)
