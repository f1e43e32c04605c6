"""Tensor.exponential_ / cauchy_ / geometric_ / log_normal_ (Kolmogorov-Smirnov against SciPy's
distributions on a fixed seed), fill_diagonal_, Tensor.new, apply_ / map_ / map2_ and
empty_strided against torch 2.13, with the error messages of bad parameters."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize("method,args,dist", [
    ("exponential_", (2.5,), lambda: stats.expon(scale=1 / 2.5)),
    ("cauchy_", (1.0, 0.5), lambda: stats.cauchy(1.0, 0.5)),
    ("log_normal_", (0.5, 0.3), lambda: stats.lognorm(s=0.3, scale=np.exp(0.5))),
])
@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
def test_random_fills_follow_their_distribution(method, args, dist, dtype):
    nabla.manual_seed(5)
    x = nabla.empty(20000, dtype=dtype)
    assert getattr(x, method)(*args) is x
    assert stats.kstest(x.numpy().astype(np.float64), dist().cdf).pvalue > 1e-3


@pytest.mark.parametrize("dtype", [nabla.int64, nabla.float32])
def test_geometric_counts_trials(dtype):
    nabla.manual_seed(6)
    x = nabla.zeros(20000, dtype=dtype).geometric_(0.3)
    v = x.numpy()
    assert x.dtype == dtype and v.min() >= 1 and np.all(v == np.round(v))
    counts = np.bincount(v.astype(np.int64), minlength=30)[1:30]
    expected = stats.geom(0.3).pmf(np.arange(1, 30)) * v.size
    assert stats.chisquare(counts[:12], expected[:12] * counts[:12].sum() / expected[:12].sum()).pvalue > 1e-3


@pytest.mark.parametrize("call", [lambda t: t.exponential_(-1), lambda t: t.geometric_(1.5),
                                  lambda t: t.log_normal_(1, -1), lambda t: t.cauchy_(0, -1)])
def test_random_fill_errors_match_torch(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch.zeros(3))
    with pytest.raises(RuntimeError) as ours:
        call(nabla.zeros(3))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("shape,value,wrap", [((4, 4), 2.0, False), ((3, 5), -1.0, False), ((7, 3), 1.0, True),
                                              ((7, 3), 1.0, False), ((3, 3, 3), 5.0, False), ((2, 2), 3, True)])
def test_fill_diagonal_matches_torch(shape, value, wrap):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    ours, theirs = nabla.tensor(a), torch.from_numpy(a.copy())
    assert ours.fill_diagonal_(value, wrap) is ours
    theirs.fill_diagonal_(value, wrap)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        nabla.zeros(2, 3, 4).fill_diagonal_(1)


def test_new_follows_the_legacy_constructor():
    for dtype, tdtype in ((nabla.float64, torch.float64), (nabla.int32, torch.int32)):
        x, t = nabla.zeros(2, dtype=dtype), torch.zeros(2, dtype=tdtype)
        for args in ((), (2, 3), ([1, 2, 3],), ((4,),)):
            ours, theirs = x.new(*args), t.new(*args)
            assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[-5:] == str(theirs.dtype)[-5:]
        np.testing.assert_array_equal(x.new([1, 2, 3]).numpy(), t.new([1, 2, 3]).numpy())
    assert tuple(nabla.zeros(1).new(nabla.Size([2, 5])).shape) == (2, 5)


def test_apply_and_map_call_python_per_element():
    a, b = np.arange(6.0).reshape(2, 3), np.array([10.0, 20.0, 30.0])
    ours, theirs = nabla.tensor(a), torch.from_numpy(a.copy())
    assert ours.apply_(lambda v: v * v + 1) is ours
    theirs.apply_(lambda v: v * v + 1)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours.map_(nabla.tensor(b), lambda u, v: u - v)
    theirs.map_(torch.from_numpy(b), lambda u, v: u - v)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours.map2_(nabla.tensor(b), nabla.tensor(a), lambda u, v, w: u * w + v)
    theirs.map2_(torch.from_numpy(b), torch.from_numpy(a), lambda u, v, w: u * w + v)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4, 0), (1, 1)), ((2, 2, 2), (0, 2, 1))])
def test_empty_strided_matches_torch(size, stride):
    ours, theirs = nabla.empty_strided(size, stride), torch.empty_strided(size, stride)
    assert tuple(ours.shape) == tuple(theirs.shape) and tuple(ours.stride()) == tuple(theirs.stride())
    leaf = nabla.empty_strided(size, stride, dtype=nabla.float64, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf and leaf.dtype == nabla.float64
