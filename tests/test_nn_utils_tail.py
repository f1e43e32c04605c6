"""nn.utils.spectral_norm / remove_spectral_norm (the hook form), skip_init and the conv weight
memory-format converters against torch 2.13: the power iteration's u / v buffers, the normalized
weight, outputs and gradients over several training steps, eval mode, state_dict keys, removal,
and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(61)


def _twins(make, tmake, **kw):
    theirs = torch.nn.utils.spectral_norm(tmake().double(), **kw)
    ours = nabla.nn.utils.spectral_norm(make().double(), **kw)
    ours.load_state_dict({k: nabla.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("kind", ["linear", "conv", "convT"])
@pytest.mark.parametrize("n_power_iterations", [1, 3])
def test_spectral_norm_matches_torch(kind, n_power_iterations):
    make, tmake, shape = {
        "linear": (lambda: nabla.nn.Linear(5, 4), lambda: torch.nn.Linear(5, 4), (3, 5)),
        "conv": (lambda: nabla.nn.Conv2d(3, 4, 2), lambda: torch.nn.Conv2d(3, 4, 2), (2, 3, 4, 4)),
        "convT": (lambda: nabla.nn.ConvTranspose2d(3, 4, 2), lambda: torch.nn.ConvTranspose2d(3, 4, 2), (2, 3, 3, 3)),
    }[kind]
    ours, theirs = _twins(make, tmake, n_power_iterations=n_power_iterations)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    assert "weight" not in dict(ours.named_parameters()) and "weight_orig" in dict(ours.named_parameters())
    for step in range(3):  # u and v move on every training forward
        x = RNG.standard_normal(shape)
        ox, tx = nabla.tensor(x).requires_grad_(), torch.tensor(x).requires_grad_()
        y, ty = ours(ox), theirs(tx)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
        for name in ("weight_u", "weight_v"):
            np.testing.assert_allclose(getattr(ours, name).numpy(), getattr(theirs, name).numpy(), rtol=1e-10,
                                       atol=1e-12)
        y.sum().backward()
        ty.sum().backward()
        np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy(), rtol=1e-9,
                                   atol=1e-12)
    ours.eval(), theirs.eval()
    u = ours.weight_u.numpy().copy()
    x = RNG.standard_normal(shape)
    np.testing.assert_allclose(ours(nabla.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(ours.weight_u.numpy(), u)  # no power iteration in eval
    nabla.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-10)
    assert isinstance(ours.weight, nabla.nn.Parameter)


def test_spectral_norm_estimates_the_largest_singular_value():
    nabla.manual_seed(0)
    m = nabla.nn.utils.spectral_norm(nabla.nn.Linear(6, 5).double(), n_power_iterations=30)
    m(nabla.zeros(1, 6, dtype=nabla.float64))
    assert abs(np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)[0] - 1) < 1e-8


def test_spectral_norm_errors():
    m = nabla.nn.utils.spectral_norm(nabla.nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nabla.nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
        nabla.nn.utils.spectral_norm(nabla.nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="`SpectralNorm` cannot be applied as parameter `bias` is None"):
        nabla.nn.utils.spectral_norm(nabla.nn.Linear(3, 2, bias=False), name="bias")
    with pytest.raises(ValueError, match="can't have uninitialized parameters"):
        nabla.nn.utils.spectral_norm(nabla.nn.LazyLinear(2))
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nabla.nn.utils.remove_spectral_norm(nabla.nn.Linear(3, 2))


def test_skip_init_builds_the_module():
    m = nabla.nn.utils.skip_init(nabla.nn.Linear, 4, 3, bias=False, dtype=nabla.float64)
    t = torch.nn.utils.skip_init(torch.nn.Linear, 4, 3, bias=False, dtype=torch.float64)
    assert repr(m) == repr(t) and m.weight.dtype == nabla.float64 and m.weight.shape == (3, 4)
    with pytest.raises(RuntimeError, match="Expected a Module; got"):
        nabla.nn.utils.skip_init(int)

    class NoDevice(nabla.nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        nabla.nn.utils.skip_init(NoDevice, 2)


@pytest.mark.parametrize("name", ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"])
def test_memory_format_converters_return_the_module(name):
    net = nabla.nn.Sequential(nabla.nn.Conv2d(2, 3, 1), nabla.nn.Conv3d(3, 2, 1))
    before = [p.detach().numpy().copy() for p in net.parameters()]
    assert getattr(nabla.nn.utils, name)(net, None) is net
    assert all(np.array_equal(a, p.detach().numpy()) and p.is_contiguous() for a, p in zip(before, net.parameters()))
    with pytest.raises(TypeError, match=f"{name}\\(\\): expected an nn.Module, got int"):
        getattr(nabla.nn.utils, name)(3, None)
