"""searchsorted (the C op nb_searchsorted, a binary search per value) and what builds on it
(bucketize, isin, histogram) against PyTorch on every device: every dtype, 1-d and batched
boundaries, strided and broadcast operands, 0-dim and empty ones, duplicates, NaN and -0.0,
both sides, int32 results, sorter; PyTorch's promotion and errors; result_type, promote_types
and can_cast."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8"]


def _pair(a: np.ndarray, dtype: str, device: str):
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    return nabla.from_dlpack(t.clone()).to(device) if dtype == "bfloat16" else \
        nabla.tensor(a, dtype=getattr(nabla, dtype), device=device), t


def _check(ours, theirs):
    assert ours.device.type in ("cpu", "cuda")
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


def _boundaries(rng, dtype, shape):
    low, high = (0, 40) if dtype == "uint8" else (-40, 40)
    return np.sort(rng.integers(low, high, shape), axis=-1).astype(np.float64)  # duplicates included


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("right", [False, True])
def test_one_line_for_all_values(device, dtype, right, rng):
    b = _boundaries(rng, dtype, 17)
    v = rng.integers(0 if dtype == "uint8" else -45, 45, (3, 5)).astype(np.float64)
    v[0, :3] = b[:3]  # values equal to boundaries
    (nb_b, t_b), (nb_v, t_v) = _pair(b, dtype, device), _pair(v, dtype, device)
    _check(nabla.searchsorted(nb_b, nb_v, right=right), torch.searchsorted(t_b, t_v, right=right))
    _check(nabla.bucketize(nb_v, nb_b, right=right, out_int32=True),
           torch.bucketize(t_v, t_b, right=right, out_int32=True))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_batched_and_strided_lines(device, dtype, side, rng):
    b = _boundaries(rng, dtype, (4, 3, 9))
    v = rng.integers(-45, 45, (4, 3, 6)).astype(np.float64)
    (nb_b, t_b), (nb_v, t_v) = _pair(b, dtype, device), _pair(v, dtype, device)
    _check(nabla.searchsorted(nb_b, nb_v, side=side), torch.searchsorted(t_b, t_v, side=side))
    # lines and values read through transposed views (non-unit strides along the searched dim)
    bt = nabla.tensor(np.ascontiguousarray(b.transpose(2, 1, 0)), dtype=nb_b.dtype, device=device).permute(2, 1, 0)
    vt = nb_v.transpose(0, 1).contiguous().transpose(0, 1)
    assert not bt.is_contiguous() and not vt.is_contiguous()
    _check(nabla.searchsorted(bt, vt, side=side), torch.searchsorted(t_b, t_v, side=side))


def test_nan_signed_zero_and_infinities_like_torch(device):
    b = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    v = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 2.0, 5.0])
    for dtype in ("float32", "float64", "float16"):
        (nb_b, t_b), (nb_v, t_v) = _pair(b, dtype, device), _pair(v, dtype, device)
        for right in (False, True):
            _check(nabla.searchsorted(nb_b, nb_v, right=right), torch.searchsorted(t_b, t_v, right=right))


def test_scalars_empty_and_zero_dim(device):
    b = nabla.tensor([1.0, 3.0, 5.0], device=device)
    tb = torch.tensor([1.0, 3.0, 5.0])
    _check(nabla.searchsorted(b, 3.0), torch.searchsorted(tb, 3.0))
    _check(nabla.searchsorted(b, nabla.tensor(4.0, device=device)), torch.searchsorted(tb, torch.tensor(4.0)))
    _check(nabla.searchsorted(b, nabla.zeros(0, 2, device=device)), torch.searchsorted(tb, torch.zeros(0, 2)))
    empty = nabla.zeros(0, device=device)
    _check(nabla.searchsorted(empty, nabla.tensor([1.0, -1.0], device=device)),
           torch.searchsorted(torch.zeros(0), torch.tensor([1.0, -1.0])))
    _check(nabla.searchsorted(nabla.zeros(2, 0, device=device), nabla.ones(2, 3, device=device)),
           torch.searchsorted(torch.zeros(2, 0), torch.ones(2, 3)))


def test_promotion_and_sorter(device, rng):
    b = np.array([1, 4, 9, 16])
    v = np.array([2.5, 16.0, 0.5])
    _check(nabla.searchsorted(nabla.tensor(b, device=device), nabla.tensor(v, device=device)),
           torch.searchsorted(torch.from_numpy(b), torch.from_numpy(v)))
    unsorted = rng.permutation(20).astype(np.float32)
    order = np.argsort(unsorted)
    q = np.array([3.5, 0.0, 19.0, 25.0], np.float32)
    _check(nabla.searchsorted(nabla.tensor(unsorted, device=device), nabla.tensor(q, device=device),
                              sorter=nabla.tensor(order, device=device)),
           torch.searchsorted(torch.from_numpy(unsorted), torch.from_numpy(q), sorter=torch.from_numpy(order)))


@pytest.mark.parametrize("invert", [False, True])
def test_isin_and_histogram_match_torch(device, invert, rng):
    e = rng.integers(-5, 6, (4, 7))
    t = rng.integers(-3, 4, 9)
    _check(nabla.isin(nabla.tensor(e, device=device), nabla.tensor(t, device=device), invert=invert),
           torch.isin(torch.from_numpy(e), torch.from_numpy(t), invert=invert))
    ef = np.array([1.0, np.nan, 2.5, -0.0])
    _check(nabla.isin(nabla.tensor(ef, device=device), nabla.tensor([0.0, 2.5, np.nan], device=device)),
           torch.isin(torch.from_numpy(ef), torch.tensor([0.0, 2.5, np.nan], dtype=torch.float64)))
    with pytest.raises(RuntimeError, match=r"Unsupported input type encountered for isin\(\): Bool"):
        nabla.isin(nabla.tensor([True, False], device=device), nabla.tensor([1], device=device))
    x = rng.standard_normal(200)
    edges = np.array([-3.0, -1.0, -0.5, 0.0, 0.25, 2.0])
    hist, got_edges = nabla.histogram(nabla.tensor(x), nabla.tensor(edges))
    want, _ = torch.histogram(torch.from_numpy(x), torch.from_numpy(edges))
    np.testing.assert_array_equal(hist.numpy(), want.numpy())


def test_bad_input_raises_like_torch(device):
    with pytest.raises(RuntimeError, match="positive dimension, but got 0 dimension"):
        nabla.searchsorted(nabla.tensor(1.0, device=device), nabla.tensor([1.0], device=device))
    with pytest.raises(RuntimeError, match=r"first N-1 dimensions.*\[2, 2\].*\[3, 1\]"):
        nabla.searchsorted(nabla.zeros(2, 2, device=device), nabla.zeros(3, 1, device=device))
    with pytest.raises(RuntimeError, match="scalar only when boundaries tensor dimension is 1"):
        nabla.searchsorted(nabla.zeros(2, 2, device=device), nabla.tensor(1.0, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        nabla.searchsorted(nabla.tensor([False, True], device=device), nabla.tensor([True], device=device))
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right'"):
        nabla.searchsorted(nabla.zeros(2, device=device), nabla.zeros(1, device=device), side="middle")
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        nabla.bucketize(nabla.zeros(2, device=device), nabla.zeros(2, 2, device=device))
    if device == "cuda":
        with pytest.raises(RuntimeError, match="same device"):
            nabla.searchsorted(nabla.zeros(3), nabla.zeros(2, device="cuda"))


def test_the_c_op_refuses_mixed_dtypes_with_its_status():
    from nabla._lib import ffi, lib
    a, b = nabla.zeros(3), nabla.zeros(2, dtype=nabla.int64)
    out = ffi.new("nb_tensor**")
    assert lib.nb_searchsorted(a._h, b._h, 0, 0, out) == lib.NB_ERR_DTYPE
    assert b"dtype" in ffi.string(lib.nb_last_error_message())


VALUES = [lambda L: L.tensor([1, 2]), lambda L: L.tensor(1.5), lambda L: L.tensor([True]),
          lambda L: L.tensor(3, dtype=L.int8), lambda L: L.tensor([1.0], dtype=L.float16),
          lambda L: L.tensor([1], dtype=L.uint8), lambda L: 2.5, lambda L: 3, lambda L: True,
          lambda L: L.tensor(2.0, dtype=L.float64), lambda L: L.tensor([1.0], dtype=L.bfloat16)]
NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def test_result_type_promote_types_and_can_cast_match_torch():
    for a, b in itertools.product(VALUES, VALUES):
        if not any(isinstance(f(nabla), nabla.Tensor) for f in (a, b)):
            continue
        assert str(nabla.result_type(a(nabla), b(nabla))) == str(torch.result_type(a(torch), b(torch))).replace(
            "torch", "nabla"), (a(torch), b(torch))
    for x, y in itertools.product(NAMES, NAMES):
        dx, dy, tx, ty = getattr(nabla, x), getattr(nabla, y), getattr(torch, x), getattr(torch, y)
        assert str(nabla.promote_types(dx, dy)) == str(torch.promote_types(tx, ty)).replace("torch", "nabla")
        assert nabla.can_cast(dx, dy) == torch.can_cast(tx, ty), (x, y)
    with pytest.raises(TypeError):
        nabla.result_type(nabla.zeros(1), "x")
