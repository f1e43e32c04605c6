"""torch.special's Bessel, Airy, erfcx and Hurwitz zeta functions against torch 2.13 on the same
inputs: float64 to ~1e-13 relative (absolute near the zeros of the oscillating ones) over
|x| <= 1e4, float32 to ~1e-5; inf / NaN at the edges as PyTorch; integer inputs promote; the
gradients PyTorch defines (erfcx; zeta in q); strided and 0-dim inputs."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.special as S

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(67)

X = np.concatenate([np.linspace(-30, 30, 601), np.geomspace(1e-8, 1e4, 120), -np.geomspace(1e-8, 1e3, 60),
                    [0.0, -0.0, 2.09, -2.09, 5.0, 8.3203353, 103.9, 50.0, 60.0, 5e7 + 1, -6.1, -26.8, 1e15]])
EDGES = np.array([np.inf, -np.inf, np.nan])
UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "erfcx"]
TOL = {"float64": (1e-13, 1e-15), "float32": (2e-5, 4e-6)}


def _same(ours: np.ndarray, theirs: np.ndarray, dtype: str) -> None:
    rtol, atol = TOL[dtype]
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    inf = np.isinf(theirs)
    np.testing.assert_array_equal(ours[inf], theirs[inf])
    ok = np.isfinite(theirs)
    # oscillating functions: relative to the envelope max(|f|, 1) near their zeros
    o, t = ours[ok].astype(np.float64), theirs[ok].astype(np.float64)
    bad = np.abs(o - t) > rtol * np.abs(t) + atol * np.maximum(1.0, np.abs(t))
    assert not bad.any(), (o[bad][:5], t[bad][:5])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_functions_match_torch(name, dtype):
    a = np.concatenate([X, EDGES]).astype(dtype)
    with np.errstate(all="ignore"):
        theirs = getattr(torch.special, name)(torch.tensor(a)).numpy()
    ours = getattr(S, name)(nabla.tensor(a))
    assert ours.dtype == getattr(nabla, dtype) and tuple(ours.shape) == a.shape
    _same(ours.numpy(), theirs, dtype)


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_take_views_ints_and_out(name):
    a = RNG.uniform(0.1, 9, (4, 6))
    view = nabla.tensor(a)[:, ::2].t()
    _same(getattr(S, name)(view).numpy(), getattr(torch.special, name)(torch.tensor(a)[:, ::2].t()).numpy(), "float64")
    ints = np.array([1, 2, 7])
    assert getattr(S, name)(nabla.tensor(ints)).dtype == nabla.float32
    _same(getattr(S, name)(nabla.tensor(ints)).numpy(), getattr(torch.special, name)(torch.tensor(ints)).numpy(),
          "float32")
    out = nabla.empty(3, dtype=nabla.float64)
    assert getattr(S, name)(nabla.tensor([0.5, 3.0, 12.0], dtype=nabla.float64), out=out) is out
    _same(out.numpy(), getattr(torch.special, name)(torch.tensor([0.5, 3.0, 12.0], dtype=torch.float64)).numpy(),
          "float64")
    assert getattr(S, name)(nabla.tensor(2.5, dtype=nabla.float64)).dim() == 0


def test_erfcx_gradient_matches_torch():
    a = np.concatenate([np.linspace(-8, 60, 69), [0.0, 1e-9]])
    ours, theirs = nabla.tensor(a).requires_grad_(), torch.tensor(a).requires_grad_()
    S.erfcx(ours).sum().backward()
    torch.special.erfcx(theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-14)


ZX = np.concatenate([RNG.uniform(1, 30, 80), [1.0, 0.5, 2, 2, 3, 1.5, -1, np.nan, 2, 50, 100, 1.0001, 4, 2, 2]])
ZQ = np.concatenate([RNG.uniform(-20, 20, 80), [1, 1, 0, -2, -2.5, -2.5, 1, 1, np.nan, 0.5, 2, 3, 1e-3, 1e5, -40.5]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_zeta_matches_torch(dtype):
    x, q = ZX.astype(dtype), ZQ.astype(dtype)
    ours = S.zeta(nabla.tensor(x), nabla.tensor(q))
    assert ours.dtype == getattr(nabla, dtype)
    _same(ours.numpy(), torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy(), dtype)
    # broadcasting and Python numbers on either side
    np.testing.assert_allclose(S.zeta(2.0, nabla.tensor(q[:5])).numpy(),
                               torch.special.zeta(2.0, torch.tensor(q[:5])).numpy(), rtol=TOL[dtype][0])
    np.testing.assert_allclose(S.zeta(nabla.tensor(x[:5]).reshape(5, 1), 3.0).numpy(),
                               torch.special.zeta(torch.tensor(x[:5]).reshape(5, 1), 3.0).numpy(), rtol=TOL[dtype][0])


def test_zeta_gradient_in_q_matches_torch():
    x, q = RNG.uniform(1.5, 6, 7), RNG.uniform(0.2, 5, 7)
    oq, tq = nabla.tensor(q).requires_grad_(), torch.tensor(q).requires_grad_()
    S.zeta(nabla.tensor(x), oq).sum().backward()
    torch.special.zeta(torch.tensor(x), tq).sum().backward()
    np.testing.assert_allclose(oq.grad.numpy(), tq.grad.numpy(), rtol=1e-12)
