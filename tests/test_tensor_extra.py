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


HIST_X = np.random.default_rng(47).standard_normal(200)


@pytest.mark.parametrize("args,kwargs", [
    ((7,), {}), ((5,), {"range": (-1.0, 1.0)}), ((4,), {"density": True}),
    ((6,), {"weight": np.abs(HIST_X)}), ((np.array([-2.0, -0.5, 0.0, 0.3, 2.5]),), {}),
    ((np.array([-2.0, -0.5, 0.0, 0.3, 2.5]),), {"density": True, "weight": np.abs(HIST_X)}),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_histogram_matches_torch(args, kwargs, dtype):
    conv = (lambda lib: (lambda v: (nabla.tensor(v.astype(dtype)) if lib is nabla else torch.from_numpy(v.astype(dtype)))
                         if isinstance(v, np.ndarray) else v))
    co, ct = conv(nabla), conv(torch)
    ours = nabla.histogram(co(HIST_X), *[co(a) for a in args], **{k: co(v) for k, v in kwargs.items()})
    theirs = torch.histogram(ct(HIST_X), *[ct(a) for a in args], **{k: ct(v) for k, v in kwargs.items()})
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.bin_edges.numpy(), theirs.bin_edges.numpy(), rtol=1e-5)
    np.testing.assert_allclose(ours.hist.numpy(), theirs.hist.numpy(), rtol=1e-5, atol=1e-6)


def test_histogram_edge_cases_match_torch():
    for x, bins in ((np.array([1.0, 1.0, 1.0]), 3), (np.array([]), 2)):
        ours, theirs = nabla.histogram(nabla.tensor(x), bins), torch.histogram(torch.from_numpy(x), bins)
        for o, t in zip(ours, theirs):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)
    assert nabla.tensor(HIST_X).histogram(3).hist.sum().item() == 200
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        nabla.histogram(nabla.tensor([1, 2]), 2)
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 3 max 1 for dimension 0"):
        nabla.histogram(nabla.tensor([1.0, 2.0]), 2, range=(3.0, 1.0))


def test_small_torch_functions_match():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        ours = nabla.range(0, 1, 0.25)
    with pytest.warns(UserWarning):
        theirs = torch.range(0, 1, 0.25)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert ours.dtype == nabla.float32
    for x, size, fill in (([0, 1, 0, 2], 3, -1), ([[0, 1], [1, 1]], 1, -5), ([0, 0], 2, 7)):
        np.testing.assert_array_equal(nabla.nonzero_static(nabla.tensor(x), size=size, fill_value=fill).numpy(),
                                      torch.nonzero_static(torch.tensor(x), size=size, fill_value=fill).numpy())
    assert nabla.get_device(nabla.ones(2)) == -1
    x = nabla.ones(2, 3, 4)
    assert nabla.feature_dropout(x, 0.5, False) is x
    nabla.manual_seed(2)
    y = nabla.feature_dropout(nabla.ones(40, 30, 4), 0.5, True).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and np.all(y.min(-1) == y.max(-1))
    z = nabla.ones(2, 3, 4)
    assert nabla.feature_dropout_(z, 0.5, True) is z


def test_tensor_properties_and_small_methods():
    x = nabla.tensor(np.arange(6.0).reshape(2, 3))
    assert repr(x.layout) == repr(torch.ones(1).layout) == "torch.strided" and x.layout is nabla.strided
    assert x.is_meta is False and x.is_nested is False and x.is_distributed() is False
    assert x.const_data_ptr() == x.data_ptr()
    s = x.new_empty_strided((2, 2), (1, 2))
    assert tuple(s.stride()) == (1, 2) and s.dtype == x.dtype
    a = np.array([-1.0, 0.3, 2.0])
    np.testing.assert_allclose(nabla.tensor(a).hardshrink(0.5).numpy(), torch.from_numpy(a).hardshrink(0.5).numpy())
    np.testing.assert_allclose(nabla.tensor(a).prelu(nabla.tensor([0.2])).numpy(),
                               torch.from_numpy(a).prelu(torch.tensor([0.2], dtype=torch.float64)).numpy())
    b = np.array([2.0, 3.5])
    for name, arg in (("mvlgamma_", 2), ("polygamma_", 1), ("float_power_", 2)):
        ours, theirs = nabla.tensor(b), torch.from_numpy(b.copy())
        assert getattr(ours, name)(arg) is ours
        getattr(theirs, name)(arg)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-8)  # polygamma's own accuracy
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        nabla.ones(2).float_power_(2)


def test_clip_grads_with_norm_and_nllloss2d():
    ps_o = [nabla.tensor(np.arange(3.0), requires_grad=True), nabla.tensor(np.ones((2, 2)), requires_grad=True)]
    ps_t = [torch.arange(3.0, dtype=torch.float64, requires_grad=True),
            torch.ones(2, 2, dtype=torch.float64, requires_grad=True)]
    for ps, lib in ((ps_o, nabla), (ps_t, torch)):
        sum((p * p).sum() * 3 for p in ps).backward()
        total = lib.nn.utils.get_total_norm([p.grad for p in ps])
        lib.nn.utils.clip_grads_with_norm_(ps, 1.5, total)
    for o, t in zip(ps_o, ps_t):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        m = nabla.nn.NLLLoss2d()
    assert repr(m) == "NLLLoss2d()" and isinstance(m, nabla.nn.NLLLoss)
    assert nabla.nn.functional.GRID_SAMPLE_PADDING_MODES == torch.nn.functional.GRID_SAMPLE_PADDING_MODES
    assert (nabla.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES
            == torch.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES)


@pytest.mark.parametrize("name,args", [("celu_", (0.5,)), ("selu_", ()), ("i0_", ()), ("addmv_", None)])
def test_top_level_inplace_spellings(name, args):
    a = np.array([[-1.0, 0.5], [2.0, -0.1]])
    ours, theirs = nabla.tensor(a), torch.from_numpy(a.copy())
    if args is None:
        m, v = np.eye(2) * 2, np.array([1.0, -1.0])
        r = getattr(nabla, name)(nabla.tensor(a[0].copy()), nabla.tensor(m), nabla.tensor(v))
        t = getattr(torch, name)(torch.from_numpy(a[0].copy()), torch.from_numpy(m), torch.from_numpy(v))
        np.testing.assert_allclose(r.numpy(), t.numpy())
        return
    assert getattr(nabla, name)(ours, *args) is ours
    getattr(torch, name)(theirs, *args)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
