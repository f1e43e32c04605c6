"""linalg.lu_factor / lu_factor_ex / lu / lu_solve against torch 2.13: the packed LU, LAPACK's
1-based int32 pivots, P L U, solves (left / right, adjoint, batch broadcasting), gradients
through the factors, singular input (info and the error) and bad arguments."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(73)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 5), (5, 3), (1, 1), (0, 3, 3)])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_factors_match_torch(shape, dtype, tol):
    A = RNG.standard_normal(shape).astype(dtype)
    LU, piv = torch.linalg.lu_factor(torch.tensor(A)) if shape[-1] == shape[-2] else (None, None)
    ours = nabla.linalg.lu_factor_ex(nabla.tensor(A))
    ref = torch.linalg.lu_factor_ex(torch.tensor(A))
    np.testing.assert_allclose(ours.LU.numpy(), ref.LU.numpy(), rtol=tol, atol=tol)
    np.testing.assert_array_equal(ours.pivots.numpy(), ref.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), ref.info.numpy())
    assert ours.pivots.dtype == nabla.int32 and ours.info.dtype == nabla.int32
    if LU is not None:
        np.testing.assert_allclose(nabla.linalg.lu_factor(nabla.tensor(A)).LU.numpy(), LU.numpy(), rtol=tol, atol=tol)
    for o, t in zip(nabla.linalg.lu(nabla.tensor(A)), torch.linalg.lu(torch.tensor(A))):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False), (False, True)])
def test_lu_solve_matches_torch(left, adjoint):
    A, B = RNG.standard_normal((2, 4, 4)), RNG.standard_normal((3, 1, 4, 2))
    B = B if left else B.swapaxes(-1, -2)
    LU, piv = torch.linalg.lu_factor(torch.tensor(A))
    ref = torch.linalg.lu_solve(LU, piv, torch.tensor(B), left=left, adjoint=adjoint)
    ours = nabla.linalg.lu_solve(nabla.tensor(LU.numpy()), nabla.tensor(piv.numpy()), nabla.tensor(B), left=left,
                                 adjoint=adjoint)
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.numpy(), ref.numpy(), rtol=1e-11, atol=1e-12)


def test_gradients_match_torch():
    A, B = RNG.standard_normal((2, 4, 4)), RNG.standard_normal((2, 4, 3))
    oa, ta = nabla.tensor(A).requires_grad_(), torch.tensor(A).requires_grad_()
    P, L, U = nabla.linalg.lu(oa)
    tP, tL, tU = torch.linalg.lu(ta)
    ob, tb = nabla.tensor(B).requires_grad_(), torch.tensor(B).requires_grad_()
    lu_, piv = nabla.linalg.lu_factor(oa)
    tlu, tpiv = torch.linalg.lu_factor(ta)
    x, tx = nabla.linalg.lu_solve(lu_, piv, ob), torch.linalg.lu_solve(tlu, tpiv, tb)
    g = [RNG.standard_normal(t.shape) for t in (tL, tU, tx)]
    sum((o * nabla.tensor(w)).sum() for o, w in zip((L, U, x), g)).backward()
    sum((t * torch.tensor(w)).sum() for t, w in zip((tL, tU, tx), g)).backward()
    np.testing.assert_allclose(oa.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(ob.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_singular_and_bad_input():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    ours, ref = nabla.linalg.lu_factor_ex(nabla.tensor(A)), torch.linalg.lu_factor_ex(torch.tensor(A))
    assert int(ours.info) == int(ref.info) == 2
    np.testing.assert_allclose(ours.LU.numpy(), ref.LU.numpy())
    for call, match in [
        (lambda lib: lib.linalg.lu_factor(lib.tensor(A)), r"U\[2,2\] is zero and using it on lu_solve"),
        (lambda lib: lib.linalg.lu_factor(lib.ones(3)), "Expected tensor with 2 or more dimensions"),
        (lambda lib: lib.linalg.lu_factor(lib.eye(2), pivot=False), "LU without pivoting is not implemented"),
    ]:
        with pytest.raises(RuntimeError, match=match):
            call(torch)
        with pytest.raises(RuntimeError, match=match):
            call(nabla)
    with pytest.raises(RuntimeError, match="Incompatible shapes of A and B"):
        lu_, piv = nabla.linalg.lu_factor(nabla.eye(3, dtype=nabla.float64))
        nabla.linalg.lu_solve(lu_, piv, nabla.ones(2, 1, dtype=nabla.float64))
