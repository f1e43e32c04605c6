"""The optimizers' update steps and clip_grad_norm_ on every device (the `device`
fixture: CPU always, CUDA when there is one), against PyTorch on the CPU: SGD
(momentum, dampening, nesterov, weight decay, maximize), Adam / AdamW (amsgrad),
RMSprop (centered, momentum) and Adagrad (lr decay), three steps each on float32
and float64 parameters of two shapes, including a strided one; clip_grad_norm_ for
norm types 2, 1, inf, 0 (PyTorch's: the count of gradients with a non-zero entry) and 3,
returning the norm on the gradients' device."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

OPTIMIZERS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "sgd_momentum": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    "sgd_nesterov": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_l2_amsgrad": ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    "adamw": ("AdamW", dict(lr=0.01, weight_decay=0.05, maximize=True)),
    "rmsprop": ("RMSprop", dict(lr=0.01)),
    "rmsprop_centered": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.01)),
    "adagrad": ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.02)),
}
DTYPES = {"float32": (nabla.float32, torch.float32, 1e-5), "float64": (nabla.float64, torch.float64, 1e-12)}


def _train(lib, name, dtype, device, steps=3):
    cls, kwargs = OPTIMIZERS[name]
    rng = np.random.default_rng(3)
    kw = {"device": device} if lib is nabla else {}
    a = lib.tensor(rng.standard_normal((4, 3)), dtype=dtype, **kw).requires_grad_(True)
    b = lib.tensor(rng.standard_normal((3, 5)), dtype=dtype, **kw).t().requires_grad_(True)  # strided
    opt = getattr(lib.optim, cls)([a, b], **kwargs)
    for s in range(steps):
        opt.zero_grad()
        ((a.sum(0) - 1) ** 2).sum().backward()
        ((b * (s + 1)).sin().sum()).backward()
        opt.step()
    return a, b


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_steps_match_torch(device, name, dtype):
    nd, td, tol = DTYPES[dtype]
    ours = _train(nabla, name, nd, device)
    theirs = _train(torch, name, td, "cpu")
    for x, y in zip(ours, theirs):
        assert x.device.type == device and x.dtype == nd
        np.testing.assert_allclose(x.detach().cpu().numpy(), y.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 0.0, 3.0])
def test_clip_grad_norm_matches_torch(device, norm_type):
    def run(lib, dev):
        kw = {"device": dev} if lib is nabla else {}
        ps = [lib.tensor(np.linspace(-2, 3, 12).reshape(3, 4), **kw).requires_grad_(True),
              lib.tensor(np.array([0.0, 5.0, -1.0]), **kw).requires_grad_(True),
              lib.tensor(np.zeros(2), **kw).requires_grad_(True)]  # no contribution (L0: not counted)
        (ps[0] ** 2).sum().backward()
        (ps[1] * 3).sum().backward()
        (ps[2] * 0).sum().backward()
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm=1.5, norm_type=norm_type)
        return total, [p.grad for p in ps]

    total, grads = run(nabla, device)
    ttotal, tgrads = run(torch, "cpu")
    assert total.device.type == device
    np.testing.assert_allclose(float(total), float(ttotal), rtol=1e-12)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.cpu().numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


def test_bad_input(device):
    p = nabla.zeros(3, device=device, requires_grad=True)
    p.grad = nabla.ones(3, device=device)
    if device != "cpu":
        p2 = nabla.zeros(3, requires_grad=True)
        p2.grad = nabla.ones(3)
        with pytest.raises(RuntimeError, match="same device"):
            nabla.nn.utils.clip_grad_norm_([p, p2], 1.0)
    with pytest.raises(RuntimeError, match="non-finite"):
        p.grad = nabla.tensor([1.0, float("inf"), 0.0], device=device)
        nabla.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
