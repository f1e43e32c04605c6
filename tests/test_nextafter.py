"""nextafter: bit-exact against torch in float32, float64, float16 and bfloat16 (each steps in its
own format: subnormals, binade edges, zeros, infinities, NaN), broadcast, strided, empty and 0-dim
operands, the calling forms, and the errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

R = np.random.default_rng(5)
A = np.concatenate([R.standard_normal(400) * 10, np.exp(R.uniform(-110, 85, 200)), [0.0, -0.0, 1.0, -1.0, 2.0, 0.5,
                    65504.0, 6.1035e-05, 5.96e-08, np.inf, -np.inf, np.nan, 1e-40, 3.4e38, 1e-45, 4.0]])
B = np.concatenate([R.standard_normal(400) * 10, -np.exp(R.uniform(-110, 85, 200)), [1.0, -1.0, 2.0, -2.0, 0.0, 1.0,
                    np.inf, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, np.inf, 0.0, 4.0]])


def _same(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    assert np.all(same | (np.isnan(got) & np.isnan(want))), (got[~same][:5], want[~same][:5])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_bit_exact_against_torch(dtype):
    ta, tb = torch.tensor(A, dtype=getattr(torch, dtype)), torch.tensor(B, dtype=getattr(torch, dtype))
    na = nabla.tensor(ta.double().numpy()).to(getattr(nabla, dtype))
    nb_ = nabla.tensor(tb.double().numpy()).to(getattr(nabla, dtype))
    got = nabla.nextafter(na, nb_)
    assert got.dtype == getattr(nabla, dtype)
    _same(got.double().numpy(), torch.nextafter(ta, tb).double().numpy())


def test_broadcast_strided_empty_and_zero_dim():
    a = R.standard_normal((4, 6))
    na, ta = nabla.tensor(a), torch.tensor(a)
    _same(nabla.nextafter(na[:, ::2], nabla.tensor(0.0, dtype=nabla.float64)).numpy(),
          torch.nextafter(ta[:, ::2], torch.tensor(0.0, dtype=torch.float64)).numpy())
    _same(nabla.nextafter(na.t(), na.t()[:1]).numpy(), torch.nextafter(ta.t(), ta.t()[:1]).numpy())
    assert tuple(nabla.nextafter(nabla.empty(0, 3), nabla.ones(3)).shape) == (0, 3)
    _same(nabla.nextafter(nabla.tensor(1.0), nabla.tensor(2.0)).numpy(), np.nextafter(np.float32(1), np.float32(2)))
    # a float32 tensor and a float64 0-dim tensor step in float32, as torch's promotion says
    _same(nabla.nextafter(nabla.ones(2), nabla.tensor(2.0, dtype=nabla.float64)).numpy(),
          torch.nextafter(torch.ones(2), torch.tensor(2.0, dtype=torch.float64)).numpy())


def test_calling_forms_and_errors():
    a, b = nabla.tensor([1.0, 0.0]), nabla.tensor([2.0, -1.0])
    ref = nabla.nextafter(a, b).numpy()
    _same(a.nextafter(b).numpy(), ref)
    c = a.clone()
    assert c.nextafter_(b) is c
    _same(c.numpy(), ref)
    out = nabla.empty(2)
    assert nabla.nextafter(a, b, out=out) is out
    _same(out.numpy(), ref)
    with pytest.raises(RuntimeError, match="nextafter: not implemented for 'int64'"):
        nabla.nextafter(nabla.tensor([1, 2]), nabla.tensor([2, 3]))
    with pytest.raises(RuntimeError, match="nextafter"):
        nabla.nextafter(nabla.ones(2), nabla.ones(3))
