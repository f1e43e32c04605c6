"""linalg.matrix_exp, vander, tensorinv, tensorsolve and householder_product (and torch.matrix_exp /
orgqr) against torch 2.13: values and gradients in float64 and float32, batches, large norms that
need scaling and squaring, error messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(41)
TOL = {np.float64: dict(rtol=1e-9, atol=1e-10), np.float32: dict(rtol=2e-4, atol=2e-4)}


def _pair(fn_o, fn_t, arrays, dtype, grad=True):
    to = [nabla.tensor(a.astype(dtype), requires_grad=grad) for a in arrays]
    tt = [torch.tensor(a.astype(dtype), requires_grad=grad) for a in arrays]
    o, t = fn_o(*to), fn_t(*tt)
    assert tuple(o.shape) == tuple(t.shape)
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), **TOL[dtype])
    if grad:
        g = RNG.standard_normal(tuple(t.shape)).astype(dtype)
        (o * nabla.tensor(g)).sum().backward()
        (t * torch.from_numpy(g)).sum().backward()
        for a, b in zip(to, tt):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("scale", [0.1, 1.0, 8.0, 60.0])
def test_matrix_exp_matches_torch(scale, dtype):
    a = RNG.standard_normal((2, 4, 4)) * scale / 4
    tol_scale = 1 if scale < 50 else 0  # values grow like e^|A|: the huge case compares values only
    _pair(nabla.linalg.matrix_exp, torch.linalg.matrix_exp, [a], dtype, grad=bool(tol_scale))
    _pair(nabla.matrix_exp, torch.matrix_exp, [a[0]], dtype, grad=False)


def test_matrix_exp_of_known_matrices():
    rot = nabla.linalg.matrix_exp(nabla.tensor([[0.0, -np.pi / 3], [np.pi / 3, 0.0]], dtype=nabla.float64))
    c, s = np.cos(np.pi / 3), np.sin(np.pi / 3)
    np.testing.assert_allclose(rot.numpy(), [[c, -s], [s, c]], atol=1e-14)
    np.testing.assert_allclose(nabla.linalg.matrix_exp(nabla.zeros(3, 3, dtype=nabla.float64)).numpy(), np.eye(3))
    assert tuple(nabla.linalg.matrix_exp(nabla.zeros(0, 2, 2)).shape) == (0, 2, 2)
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        nabla.linalg.matrix_exp(nabla.ones(2, 3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vander_matches_torch(dtype):
    x = RNG.standard_normal((2, 4))
    _pair(nabla.linalg.vander, torch.linalg.vander, [x], dtype)
    _pair(lambda t: nabla.linalg.vander(t, N=6), lambda t: torch.linalg.vander(t, N=6), [x[0]], dtype)
    ours = nabla.linalg.vander(nabla.tensor([1, 2, 3]))
    assert ours.dtype == nabla.int64
    np.testing.assert_array_equal(ours.numpy(), torch.linalg.vander(torch.tensor([1, 2, 3])).numpy())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tensorinv_and_tensorsolve_match_torch(dtype):
    a = RNG.standard_normal((4, 6, 8, 3)) + 0.0
    a = (a.reshape(24, 24) + 6 * np.eye(24)).reshape(4, 6, 8, 3)
    _pair(lambda t: nabla.linalg.tensorinv(t, 2), lambda t: torch.linalg.tensorinv(t, 2), [a], dtype)
    b = RNG.standard_normal((4, 6))
    _pair(nabla.linalg.tensorsolve, torch.linalg.tensorsolve, [a, b], dtype)
    m = RNG.standard_normal((6, 6)) + 6 * np.eye(6)
    a2 = np.moveaxis(m.reshape(6, 3, 2), 2, 0).copy()  # [2, 6, 3]: dims=(0,) moves the 2 to the end
    _pair(lambda t, u: nabla.linalg.tensorsolve(t, u, dims=(0,)), lambda t, u: torch.linalg.tensorsolve(
        t, u, dims=(0,)), [a2, RNG.standard_normal(6)], dtype)
    with pytest.raises(RuntimeError, match="prod\\(self.shape\\[ind:\\]\\) == prod\\(self.shape\\[:ind\\]\\)"):
        nabla.linalg.tensorinv(nabla.ones(2, 3), 1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((2, 4, 4), 2), ((6, 2), 1)])
def test_householder_product_matches_torch(shape, k, dtype):
    a = RNG.standard_normal(shape)
    tau = RNG.uniform(0.2, 1.8, shape[:-2] + (k,))
    _pair(nabla.linalg.householder_product, torch.linalg.householder_product, [a, tau], dtype)
    _pair(nabla.orgqr, torch.orgqr, [a, tau], dtype, grad=False)


def test_householder_product_of_geqrf_is_q():
    a = RNG.standard_normal((5, 3))
    qr_a, tau = torch.geqrf(torch.from_numpy(a))
    q = nabla.linalg.householder_product(nabla.tensor(qr_a.numpy()), nabla.tensor(tau.numpy()))
    np.testing.assert_allclose(q.numpy(), np.linalg.qr(a)[0] * np.sign(np.diag(np.linalg.qr(a)[0]) *
                                                                        np.diag(q.numpy())), atol=1e-12)
    np.testing.assert_allclose(q.numpy().T @ q.numpy(), np.eye(3), atol=1e-12)
