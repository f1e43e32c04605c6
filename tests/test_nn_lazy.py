"""Lazy modules and the uninitialized placeholders against torch 2.13: reprs before and after the
first forward, the class they turn into, the materialized shapes, outputs and gradients once the
weights match, dtype conversion before initialization, and the errors of bad first inputs."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from torch_reference import check_module

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(43)

CASES = [
    ("LazyLinear", (4,), {}, (2, 5)),
    ("LazyLinear", (3,), {"bias": False}, (2, 6, 5)),
    ("LazyConv1d", (5, 3), {"stride": 2, "padding": 1, "bias": False}, (2, 4, 9)),
    ("LazyConv2d", (4, 3), {"groups": 2, "dilation": 2}, (2, 6, 8, 8)),
    ("LazyConv2d", (4, 3), {}, (3, 6, 6)),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), {"groups": 2}, (1, 6, 5, 5)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm1d", (), {"affine": False}, (4, 3, 5)),
    ("LazyBatchNorm2d", (), {"momentum": None}, (2, 3, 4, 4)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 6)),
    ("LazyInstanceNorm2d", (), {"affine": False, "track_running_stats": False}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 2)),
    ("LazyConv3d", (4, 2), {"padding": 1, "groups": 2}, (2, 4, 3, 4, 3)),
    ("LazyConvTranspose3d", (2, 2), {"stride": 2}, (1, 3, 2, 3, 2)),
    ("LazyBatchNorm3d", (), {}, (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lazy_modules_match_torch(name, args, kwargs, shape):
    ours, theirs = getattr(nabla.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.has_uninitialized_params() == theirs.has_uninitialized_params()
    x = RNG.standard_normal(shape)
    ours(nabla.tensor(x.astype(np.float32)))
    theirs(torch.from_numpy(x.astype(np.float32)))
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert not any(nabla.nn.parameter.is_lazy(t) for t in list(ours.parameters()) + list(ours.buffers()))
    ours_shapes = {k: tuple(v.shape) for k, v in ours.state_dict().items()}
    assert ours_shapes == {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert all(type(p).__name__ == "Parameter" for p in ours.parameters())
    check_module(ours, theirs, x, dtype=np.float64, train=True)


def test_lazy_linear_initializes_like_linear():
    nabla.manual_seed(3)
    m = nabla.nn.LazyLinear(64)
    m(nabla.ones(2, 100))
    bound = 1 / np.sqrt(100)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound and np.abs(b).max() <= bound
    assert m.weight.requires_grad and m.weight.grad is None


def test_conversion_before_first_forward_sets_the_dtype():
    m = nabla.nn.LazyLinear(3).double()
    y = m(nabla.ones(2, 4, dtype=nabla.float64))
    assert m.weight.dtype == nabla.float64 and y.dtype == nabla.float64
    bn = nabla.nn.LazyBatchNorm1d(dtype=nabla.float64)
    bn(nabla.ones(4, 2, dtype=nabla.float64))
    assert bn.running_mean.dtype == nabla.float64


def test_optimizer_after_dry_run_trains():
    model = nabla.nn.Sequential(nabla.nn.LazyLinear(8), nabla.nn.ReLU(), nabla.nn.LazyLinear(1))
    x, y = nabla.randn(32, 5), nabla.randn(32, 1)
    model(x)
    opt = nabla.optim.SGD(model.parameters(), lr=0.05)
    first = None
    for _ in range(20):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first


def test_uninitialized_placeholders():
    p = nabla.nn.UninitializedParameter()
    assert repr(p) == repr(torch.nn.UninitializedParameter()) == "<UninitializedParameter>"
    assert p.requires_grad
    p.materialize((2, 3))
    assert type(p) is nabla.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
    b = nabla.nn.UninitializedBuffer()
    assert repr(b) == "<UninitializedBuffer>"
    b.materialize(4, dtype=nabla.float64)
    assert isinstance(b, nabla.Tensor) and tuple(b.shape) == (4,) and b.dtype == nabla.float64


def test_bad_first_input_errors_match_torch():
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
        nabla.nn.LazyConv2d(4, 3)(nabla.ones(5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nabla.nn.LazyConv1d(4, 3, groups=2)(nabla.ones(1, 3, 5))
