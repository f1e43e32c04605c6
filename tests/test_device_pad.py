"""F.pad on every device (the `device` fixture: CPU always, CUDA when there is
one) against PyTorch: constant (with a value, negative pads that crop, integer
dtypes), reflect, replicate and circular over one, two and three dims; gradients;
empty inputs; and the bad-input messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

torch = pytest.importorskip("torch")

CASES = [  # (shape, pad, mode, value)
    ((2, 3, 5), (1, 2), "constant", 0.0),
    ((2, 3, 5), (2, 0, 1, 1), "constant", -1.5),
    ((2, 3, 5), (-1, 2, 0, -1), "constant", 3.0),
    ((4, 5), (1, 1, 2, 2), "constant", 0.5),
    ((2, 3, 6), (2, 3), "reflect", 0.0),
    ((1, 2, 4, 5), (1, 2, 3, 1), "reflect", 0.0),
    ((2, 3, 6), (3, 1), "replicate", 0.0),
    ((1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2), "replicate", 0.0),
    ((2, 2, 5), (2, 3), "circular", 0.0),
    ((1, 2, 4, 5), (-1, 2, 3, 1), "circular", 0.0),
    ((0, 3, 5), (1, 1), "constant", 2.0),
    ((2, 0, 5), (0, 0, 1, 1), "constant", 2.0),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_pad_matches_torch(device, case, dtype):
    shape, pad, mode, value = CASES[case]
    x = np.random.default_rng(case).standard_normal(shape)
    a = nabla.tensor(x, dtype=getattr(nabla, dtype), device=device).requires_grad_(True)
    b = torch.tensor(x, dtype=getattr(torch, dtype)).requires_grad_(True)
    ya, yb = F.pad(a, pad, mode=mode, value=value), torch.nn.functional.pad(b, pad, mode=mode, value=value)
    assert ya.device.type == device and tuple(ya.shape) == tuple(yb.shape)
    np.testing.assert_array_equal(ya.detach().cpu().numpy(), yb.detach().numpy())
    up = np.random.default_rng(99).standard_normal(tuple(yb.shape))
    (ya * nabla.tensor(up, dtype=ya.dtype, device=device)).sum().backward()
    (yb * torch.tensor(up, dtype=yb.dtype)).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_constant_pad_of_integers(device):
    x = np.arange(12).reshape(3, 4)
    ya = F.pad(nabla.tensor(x, device=device), (1, 1, 0, 2), value=7)
    yb = torch.nn.functional.pad(torch.tensor(x), (1, 1, 0, 2), value=7)
    assert ya.dtype == nabla.int64
    np.testing.assert_array_equal(ya.cpu().numpy(), yb.numpy())


def test_bad_input(device):
    x = nabla.ones(1, 2, 3, device=device)
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(x, (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
