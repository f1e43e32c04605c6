"""torch.mode, torch.gradient and torch.histogramdd against PyTorch: random, strided, 0-dim and empty
inputs, keepdim, ties, every spacing form and edge order, bins / range / weight / density, the
gradients PyTorch defines, and the errors with PyTorch's types and messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)


def _both(a: np.ndarray):
    return nabla.tensor(a), torch.from_numpy(a.copy())


def _same_error(ours, theirs):
    with pytest.raises(Exception) as t:
        theirs()
    with pytest.raises(type(t.value)) as o:
        ours()
    assert str(o.value) == str(t.value)


# ---- mode ----

@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64, np.int32, np.uint8])
@pytest.mark.parametrize("shape, dim", [((9,), 0), ((4, 7), 1), ((4, 7), 0), ((3, 5, 6), -2), ((2, 15), 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode_matches_torch_with_ties(dtype, shape, dim, keepdim):
    a = RNG.integers(0, 4, shape).astype(dtype)  # few distinct values: ties on count and repeated values
    o, t = _both(a)
    ours, theirs = nabla.mode(o, dim, keepdim), torch.mode(t, dim, keepdim)
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
    assert ours.values.dtype == o.dtype and ours.indices.dtype == nabla.int64


def test_mode_tie_takes_the_smallest_value_and_its_last_index():
    x = nabla.tensor([3.0, 1.0, 3.0, 1.0, 2.0, 1.0, 3.0])
    assert x.mode() == (1.0, 5) and tuple(nabla.mode(nabla.tensor([True, False, True]))) == (True, 2)
    v, i = nabla.tensor([-0.0, 0.0, 1.0, 1.0]).mode()
    assert (v.item(), i.item()) == (0.0, 1) and not np.signbit(v.item())


def test_mode_on_large_rows_gives_torch_values_at_a_matching_index():
    a = RNG.integers(0, 50, (3, 5000)).astype(np.float32)
    o, t = _both(a)
    ours, theirs = o.mode(1), t.mode(1)
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(np.take_along_axis(a, ours.indices.numpy()[:, None], 1)[:, 0], ours.values.numpy())


def test_mode_of_strided_zero_dim_and_empty_inputs():
    a = RNG.integers(0, 3, (6, 8)).astype(np.float64)
    o, t = _both(a)
    for ours, theirs in [(o.t().mode(1), t.t().mode(1)), (o[::2, 1::3].mode(0), t[::2, 1::3].mode(0)),
                         (nabla.tensor(4.0).mode(), torch.tensor(4.0).mode()),
                         (nabla.zeros(0, 3).mode(1, keepdim=True), torch.zeros(0, 3).mode(1, keepdim=True))]:
        for x, y in zip(ours, theirs):
            assert tuple(x.shape) == tuple(y.shape)
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    _same_error(lambda: nabla.zeros(3, 0).mode(1), lambda: torch.zeros(3, 0).mode(1))
    _same_error(lambda: nabla.zeros(2).mode(3), lambda: torch.zeros(2).mode(3))


def test_mode_gradient_flows_to_the_returned_index():
    a = RNG.integers(0, 3, (4, 5)).astype(np.float64)
    o, t = _both(a)
    o.requires_grad_(True)
    t.requires_grad_(True)
    (nabla.mode(o, 0).values * nabla.arange(1.0, 6.0, dtype=nabla.float64)).sum().backward()
    (torch.mode(t, 0).values * torch.arange(1.0, 6.0, dtype=torch.float64)).sum().backward()
    np.testing.assert_array_equal(o.grad.numpy(), t.grad.numpy())


# ---- gradient ----

COORDS = np.array([0.0, 0.5, 1.75, 2.0, 3.5, 4.0, 6.0])


@pytest.mark.parametrize("dtype, tol", [(np.float32, 0), (np.float64, 0), (np.int64, 0)])
@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("kwargs", [{}, dict(spacing=2), dict(spacing=0.5, dim=1), dict(spacing=[2.0, 0.25, 3.0]),
                                    dict(dim=[2, 0], spacing=(1.5, 2)), dict(dim=-1, spacing=[COORDS[:5]]),
                                    dict(spacing=[COORDS[:4], COORDS[1:7], COORDS[2:7]]),
                                    dict(spacing=[COORDS[:4].astype(np.int64) * 0 + np.arange(4) ** 2,
                                                  COORDS[:6], COORDS[:5]])])
def test_gradient_matches_torch(dtype, tol, edge_order, kwargs):
    a = (RNG.standard_normal((4, 6, 5)) * 10).astype(dtype)
    o, t = _both(a)
    conv = (lambda lib: lambda s: ([(nabla.tensor(x) if lib is nabla else torch.from_numpy(x)) if isinstance(x, np.ndarray)
                                    else x for x in s] if isinstance(s, (list, tuple)) else s))
    ko = {k: conv(nabla)(v) if k == "spacing" else v for k, v in kwargs.items()}
    kt = {k: conv(torch)(v) if k == "spacing" else v for k, v in kwargs.items()}
    ours, theirs = nabla.gradient(o, edge_order=edge_order, **ko), torch.gradient(t, edge_order=edge_order, **kt)
    assert len(ours) == len(theirs)
    for x, y in zip(ours, theirs):
        assert x.dtype.name == str(y.dtype).removeprefix("torch.") and tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6 if dtype == np.float32 else 1e-13)


def test_gradient_of_strided_and_zero_dim_inputs_and_scalar_tensor_spacing():
    a = RNG.standard_normal((6, 8))
    o, t = _both(a)
    for x, y in zip(nabla.gradient(o.t()[:, ::2], spacing=nabla.tensor(2.0)),
                    torch.gradient(t.t()[:, ::2], spacing=torch.tensor(2.0))):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-14)
    assert nabla.gradient(nabla.tensor(1.0)) == ()


def test_gradient_backward_matches_torch():
    a = RNG.standard_normal((5, 4))
    o, t = _both(a)
    o.requires_grad_(True)
    t.requires_grad_(True)
    w = RNG.standard_normal((5, 4))
    for lib, x in ((nabla, o), (torch, t)):
        gs = lib.gradient(x, spacing=[lib.tensor(COORDS[:5]), lib.tensor(COORDS[2:6])], edge_order=2)
        (gs[0] * lib.tensor(w) + gs[1] ** 2).sum().backward()
    np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape, kwargs", [
    ((3, 4), dict(edge_order=3)), ((3, 4), dict(spacing=[1.0, 2.0, 3.0])), ((3, 4), dict(dim=1, spacing=[1.0, 2.0])),
    ((3, 4), dict(spacing="2d")), ((3, 4), dict(dim=(0, 0))), ((3, 4), dict(dim=3)), ((2, 5), dict(edge_order=2)),
    ((1, 5), {}), ((), dict(dim=0))])
def test_gradient_errors_match_torch(shape, kwargs):
    def call(lib):
        kw = dict(kwargs)
        if kw.get("spacing") == "2d":
            kw["spacing"] = [lib.ones(3, 1), lib.ones(4)]
        return lib.gradient(lib.zeros(shape), **kw)
    _same_error(lambda: call(nabla), lambda: call(torch))


# ---- histogramdd ----

POINTS = RNG.standard_normal((40, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bins, kwargs", [
    (4, {}), ([2, 3, 5], {}), ((3, 1, 2), dict(range=[-1.0, 1.0, -2.0, 0.5, 0.0, 3.0])),
    (3, dict(density=True)), ([2, 4, 3], dict(weight=True, density=True)), (5, dict(weight=True)),
    ("edges", {}), ("edges", dict(weight=True, density=True))])
def test_histogramdd_matches_torch(dtype, bins, kwargs):
    a = POINTS.astype(dtype)
    w = np.abs(RNG.standard_normal(40)).astype(dtype)
    edges = [np.array(e, dtype=dtype) for e in ([-2.0, -0.5, 0.0, 0.3, 2.5], [-1.0, 1.0], [-3.0, 0.0, 0.1, 3.0])]
    results = []
    for lib in (nabla, torch):
        conv = nabla.tensor if lib is nabla else (lambda v: torch.from_numpy(v.copy()))
        kw = dict(kwargs)
        if kw.get("weight"):
            kw["weight"] = conv(w)
        b = [conv(e) for e in edges] if bins == "edges" else bins
        results.append(lib.histogramdd(conv(a), b, **kw))
    ours, theirs = results
    assert type(ours).__name__ == "histogramdd" and len(ours.bin_edges) == 3
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=rtol)
    for x, y in zip(ours.bin_edges, theirs.bin_edges):
        np.testing.assert_array_equal(x.numpy(), y.numpy())


def test_histogramdd_batched_strided_and_empty_inputs():
    a = RNG.standard_normal((4, 6, 2))
    o, t = _both(a)
    for ours, theirs in [(nabla.histogramdd(o.transpose(0, 1), 3), torch.histogramdd(t.transpose(0, 1), 3)),
                         (nabla.histogramdd(o[:, ::2], [2, 2]), torch.histogramdd(t[:, ::2], [2, 2])),
                         (nabla.histogramdd(nabla.zeros(0, 2), 2), torch.histogramdd(torch.zeros(0, 2), 2)),
                         (nabla.histogramdd(nabla.ones(3, 2), 2, range=[1.0, 1.0, 0.0, 2.0]),
                          torch.histogramdd(torch.ones(3, 2), 2, range=[1.0, 1.0, 0.0, 2.0]))]:
        np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-14)
        for x, y in zip(ours.bin_edges, theirs.bin_edges):
            np.testing.assert_array_equal(x.numpy(), y.numpy())


@pytest.mark.parametrize("args, kwargs", [
    ((6, 2), dict(bins=[2])), ((6, 2), dict(bins=2, range=[0.0, 1.0])), ((6, 2), dict(bins=0)),
    ((6, 2), dict(bins=2, range=[1.0, 0.0, 0.0, 1.0])), ((6, 2), dict(bins=2, range=[0.0, float("inf"), 0.0, 1.0])),
    ((6, 2), dict(bins="2d")), ((6, 2), dict(bins="f64")), ((6, 2), dict(bins=2, weight=(5,))),
    ((6, 2), dict(bins=2, weight="f64")), ((3,), dict(bins=2)), ((6, 2), dict(bins=2, dtype="long"))])
def test_histogramdd_errors_match_torch(args, kwargs):
    def call(lib):
        kw = dict(kwargs)
        x = lib.rand(*args)
        if kw.pop("dtype", None) == "long":
            x = x.long()
        if kw["bins"] == "2d":
            kw["bins"] = [lib.zeros(1, 2), lib.zeros(2)]
        elif kw["bins"] == "f64":
            kw["bins"] = [lib.zeros(2), lib.zeros(2, dtype=lib.float64)]
        if kw.get("weight") == "f64":
            kw["weight"] = lib.ones(6, dtype=lib.float64)
        elif isinstance(kw.get("weight"), tuple):
            kw["weight"] = lib.ones(*kw["weight"])
        return lib.histogramdd(x, **kw)
    _same_error(lambda: call(nabla), lambda: call(torch))
