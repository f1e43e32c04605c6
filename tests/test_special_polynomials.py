"""torch.special's orthogonal polynomials and spherical_bessel_j0 against torch 2.13: scalar and
tensor n (truncated, negative, mixed per element), the edge points of x, large n inside (-1, 1)
where the closed forms take over, x outside [-1, 1], dtypes in float32 and float64."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(37)

NAMES = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]
X = np.concatenate([np.linspace(-1.0, 1.0, 21), [-1.5, 1.3, 2.0, 0.0, 0.25, 0.75], RNG.uniform(-1, 1, 8)])
TOL = {np.float64: dict(rtol=1e-8, atol=1e-9), np.float32: dict(rtol=2e-4, atol=2e-4)}


def _compare(name, x, n, dtype):
    xo = nabla.tensor(x.astype(dtype))
    xt = torch.from_numpy(x.astype(dtype))
    no = nabla.tensor(n) if isinstance(n, np.ndarray) else n
    nt = torch.from_numpy(n) if isinstance(n, np.ndarray) else n
    ours = getattr(nabla.special, name)(xo, no)
    theirs = getattr(torch.special, name)(xt, nt)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    ref = theirs.numpy().astype(np.float64)
    scale = np.maximum(np.abs(ref), 1.0)  # high orders grow fast: compare relative to the value's size
    np.testing.assert_allclose(ours.numpy() / scale, ref / scale, **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 7, 10, 13, -1, 2.7])
@pytest.mark.parametrize("name", NAMES)
def test_polynomials_match_torch_for_scalar_n(name, n, dtype):
    _compare(name, X, n, dtype)


@pytest.mark.parametrize("name", NAMES)
def test_polynomials_match_torch_for_tensor_n(name):
    n = RNG.integers(-1, 12, X.shape[0]).astype(np.float64)
    _compare(name, X, n, np.float64)
    _compare(name, X[:6].reshape(6, 1), np.array([0.0, 3.0, 9.0]), np.float64)  # broadcast


def test_polynomial_of_integer_input_is_float():
    ours = nabla.special.legendre_polynomial_p(nabla.tensor([0, 1, 2]), 3)
    theirs = torch.special.legendre_polynomial_p(torch.tensor([0, 1, 2]), 3)
    assert ours.dtype == nabla.float32 and theirs.dtype == torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_spherical_bessel_j0_matches_torch(dtype):
    x = np.concatenate([[0.0, 1e-4, -0.3, 0.49, 0.5, -0.51, 3.0, -20.0, 1e3, np.inf, -np.inf], RNG.normal(0, 5, 20)])
    ours = nabla.special.spherical_bessel_j0(nabla.tensor(x.astype(dtype)))
    theirs = torch.special.spherical_bessel_j0(torch.from_numpy(x.astype(dtype)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), **TOL[dtype])


BESSEL_X = np.array([0.0, 1e-8, -1e-3, 0.5, 1.0, -2.0, 7.5, 10.0, 19.9, 20.0, 20.1, -25.0, 50.0, 200.0, 700.0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1"])
def test_modified_bessel_first_kind_matches_torch(name, dtype):
    x = BESSEL_X if dtype == np.float64 else BESSEL_X[BESSEL_X < 80]
    xo = nabla.tensor(x.astype(dtype), requires_grad=True)
    xt = torch.tensor(x.astype(dtype), requires_grad=True)
    ours, theirs = getattr(nabla.special, name)(xo), getattr(torch.special, name)(xt)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=TOL[dtype]["rtol"] / 10, atol=0)
    if name in ("i0", "i0e", "i1e", "i1"):  # torch has formulas for these gradients
        g = np.ones_like(x).astype(dtype)
        ours.backward(nabla.tensor(g))
        theirs.backward(torch.from_numpy(g))
        np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-6 if dtype == np.float64 else 1e-4,
                                   atol=1e-12)


def test_top_level_i0_kaiser_window():
    x = BESSEL_X[:8]
    np.testing.assert_allclose(nabla.i0(nabla.tensor(x)).numpy(), torch.i0(torch.from_numpy(x)).numpy(), rtol=1e-12)
    t = nabla.tensor(x.copy())
    assert t.i0_() is t
    np.testing.assert_allclose(t.numpy(), torch.from_numpy(x).i0().numpy(), rtol=1e-12)
    assert nabla.special.i0(nabla.tensor([1, 2])).dtype == nabla.float32
    for n, periodic, beta in [(0, True, 12.0), (1, True, 12.0), (5, True, 12.0), (6, False, 8.0), (16, True, 3.0)]:
        for dtype in (nabla.float32, nabla.float64):
            ours = nabla.kaiser_window(n, periodic, beta, dtype=dtype)
            theirs = torch.kaiser_window(n, periodic, beta, dtype=getattr(torch, str(dtype).split(".")[-1]))
            assert tuple(ours.shape) == tuple(theirs.shape)
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-9)
