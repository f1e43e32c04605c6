"""nabla.linalg's LAPACK additions: inv_ex, solve_ex, cholesky_ex (info instead of an
exception, check_errors), solve_triangular (every triangle / side / unit diagonal,
broadcast batches) and the gradient of qr, against NumPy in float64 and float32,
finite differences, and PyTorch where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from nabla.autograd import gradcheck, gradgradcheck

LA = nabla.linalg
DT = [nabla.float32, nabla.float64]
TOL = {nabla.float32: 1e-4, nabla.float64: 1e-11}


def np_dtype(dtype):
    return np.float32 if dtype is nabla.float32 else np.float64


def close(t, want, dtype, scale=1.0):
    np.testing.assert_allclose(t.double().numpy(), want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10 * scale)


def leaf(x):
    return nabla.tensor(x, requires_grad=True)


def well_conditioned(rng, shape):
    return rng.standard_normal(shape) + shape[-1] * np.eye(shape[-1])


def singular_batch():
    """Three 3x3 matrices, the middle one singular (U's third diagonal element is zero)."""
    good = np.eye(3) * 2 + 0.5
    return np.stack([good, [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], good])


# ---- inv_ex, solve_ex, cholesky_ex ----

@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2), (0, 0), (2, 0, 0), (0, 3, 3)], ids=str)
def test_ex_match_numpy(dtype, shape, rng):
    a = well_conditioned(rng, shape).astype(np_dtype(dtype))
    r = LA.inv_ex(nabla.tensor(a))
    assert r.info.dtype == nabla.int32 and r.info.shape == shape[:-2] and not r.info.numpy().any()
    close(r.inverse, np.linalg.inv(a.astype(np.float64)), dtype)
    assert r.inverse is r[0] and r.info is r[1] and type(r).__name__ == "linalg_inv_ex"
    b = rng.standard_normal(shape[:-1] + (2,)).astype(np_dtype(dtype))
    x, info = LA.solve_ex(nabla.tensor(a), nabla.tensor(b))
    close(x, np.linalg.solve(a.astype(np.float64), b), dtype, 10)
    assert info.dtype == nabla.int32 and info.shape == shape[:-2]
    xr, _ = LA.solve_ex(nabla.tensor(a), nabla.tensor(np.swapaxes(b, -1, -2)), left=False)
    close(xr, np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2).astype(np.float64), b), -1, -2), dtype, 10)
    s = a @ np.swapaxes(a, -1, -2)
    for upper in (False, True):
        L, info = LA.cholesky_ex(nabla.tensor(s), upper=upper)
        want = np.linalg.cholesky(s.astype(np.float64)) if s.size else s
        close(L, np.swapaxes(want, -1, -2) if upper else want, dtype, s.max(initial=1))
        assert info.shape == shape[:-2] and not info.numpy().any()


def test_inv_ex_singular_gives_info_not_error():
    a = singular_batch()
    r = LA.inv_ex(nabla.tensor(a))
    np.testing.assert_array_equal(r.info.numpy(), [0, 3, 0])
    np.testing.assert_allclose(r.inverse.numpy()[[0, 2]], np.linalg.inv(a[[0, 2]]), rtol=1e-12)
    assert not np.isfinite(r.inverse.numpy()[1]).all()  # solving from a zero pivot, as PyTorch does
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv_ex: \(Batch element 1\): The diagonal element 3 is zero, "
                                             "the inversion could not be completed because the input matrix is "
                                             "singular.$"):
        LA.inv_ex(nabla.tensor(a), check_errors=True)
    with pytest.raises(LA.LinAlgError, match=r"^linalg.inv_ex: The diagonal element 3 is zero"):
        LA.inv_ex(nabla.tensor(a[1]), check_errors=True)
    assert LA.inv_ex(nabla.tensor(a[0]), check_errors=True).info.item() == 0


def test_solve_ex_and_cholesky_ex_info():
    a = singular_batch()
    x, info = LA.solve_ex(nabla.tensor(a), nabla.ones(3, 3, dtype=nabla.float64))
    np.testing.assert_array_equal(info.numpy(), [0, 3, 0])
    np.testing.assert_allclose(x.numpy()[0], np.linalg.solve(a[0], np.ones(3)), rtol=1e-12)
    with pytest.raises(LA.LinAlgError, match=r"^torch.linalg.solve_ex: \(Batch element 1\): The solver failed "
                                             "because the input matrix is singular.$"):
        LA.solve_ex(nabla.tensor(a), nabla.ones(3, 3, dtype=nabla.float64), check_errors=True)
    s = np.stack([np.eye(2), -np.eye(2), [[1.0, 2.0], [2.0, 1.0]]])
    L, info = LA.cholesky_ex(nabla.tensor(s))
    np.testing.assert_array_equal(info.numpy(), [0, 1, 2])
    np.testing.assert_array_equal(L.numpy()[0], np.eye(2))
    np.testing.assert_array_equal(L.numpy()[2], [[1.0, 0.0], [2.0, -3.0]])  # LAPACK's partial work
    with pytest.raises(LA.LinAlgError, match=r"^linalg.cholesky_ex: \(Batch element 1\): The factorization could not "
                                             r"be completed because the input is not positive-definite \(the leading "
                                             r"minor of order 1 is not positive-definite\).$"):
        LA.cholesky_ex(nabla.tensor(s), check_errors=True)


def test_ex_errors_and_out():
    with pytest.raises(RuntimeError, match="linalg.inv: A must be batches of square matrices, but they are 2 by 3"):
        LA.inv_ex(nabla.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.cholesky: Expected a floating point or complex tensor as input. "
                                           "Got Long"):
        LA.cholesky_ex(nabla.ones(3, 3, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="linalg.solve: The input tensor A must have at least 2 dimensions."):
        LA.solve_ex(nabla.ones(3), nabla.ones(3))
    with pytest.raises(TypeError, match="argument 'A' must be Tensor"):
        LA.inv_ex([[1.0]])
    inv, info = nabla.empty(0), nabla.empty(0, dtype=nabla.int32)
    r = LA.inv_ex(nabla.eye(2) * 2, out=(inv, info))
    assert r.inverse is inv and r.info is info and inv.shape == (2, 2) and info.shape == ()
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int, but got float instead"):
        LA.cholesky_ex(nabla.eye(2), out=(nabla.empty(0), nabla.empty(0)))


def test_ex_gradients(rng):
    a = well_conditioned(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 2))
    s = a @ np.swapaxes(a, -1, -2)
    assert gradcheck(lambda a: LA.inv_ex(a).inverse, (leaf(a),))
    assert gradgradcheck(lambda a: LA.inv_ex(a).inverse, (leaf(a),))
    assert gradcheck(lambda a, b: LA.solve_ex(a, b).result, (leaf(a), leaf(b)))
    assert gradcheck(lambda a, b: LA.solve_ex(a, b, left=False).result, (leaf(a), leaf(np.swapaxes(b, -1, -2))))
    assert gradcheck(lambda a: LA.cholesky_ex(a + a.mT).L, (leaf(s),))
    assert gradcheck(lambda a: LA.cholesky_ex(a + a.mT, upper=True).L, (leaf(s),))
    x = leaf(a)
    r = LA.inv_ex(x)
    assert r.info.grad_fn is None and not r.info.requires_grad
    assert r.inverse.grad_fn.name() == "LinalgInvExBackward0"
    r.inverse.sum().backward()
    want = -np.swapaxes(np.linalg.inv(a), -1, -2) @ np.ones((3, 3)) @ np.swapaxes(np.linalg.inv(a), -1, -2)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10)


# ---- solve_triangular ----

def tri_np(a, upper, unit):
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t = t - t * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
    return t


CASES = [(u, left, unit) for u in (True, False) for left in (True, False) for unit in (False, True)]


@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("upper, left, unit", CASES)
@pytest.mark.parametrize("sa, sb", [((4, 4), (4, 2)), ((2, 3, 3), (2, 3, 5)), ((3, 3), (2, 1, 3, 2)),
                                    ((2, 1, 3, 3), (4, 3, 1)), ((0, 0), (0, 2)), ((3, 3), (3, 0)), ((0, 2, 2), (2, 3))],
                         ids=str)
def test_solve_triangular_matches_numpy(dtype, upper, left, unit, sa, sb, rng):
    a = well_conditioned(rng, sa) + rng.standard_normal(sa)  # the other triangle must be ignored
    b = rng.standard_normal(sb if left else sb[:-2] + sb[-2:][::-1])
    a, b = a.astype(np_dtype(dtype)), b.astype(np_dtype(dtype))
    x = LA.solve_triangular(nabla.tensor(a), nabla.tensor(b), upper=upper, left=left, unitriangular=unit)
    t = tri_np(a.astype(np.float64), upper, unit)
    want = np.linalg.inv(t) @ b if left else b @ np.linalg.inv(t)
    assert x.dtype == dtype and x.shape == want.shape
    close(x, want, dtype, 10)


def test_solve_triangular_non_contiguous_and_singular(rng):
    a = well_conditioned(rng, (3, 3))
    b = rng.standard_normal((2, 3))
    x = LA.solve_triangular(nabla.tensor(a).mT, nabla.tensor(b).mT, upper=False)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.tril(a.T), b.T), rtol=1e-12)
    z = LA.solve_triangular(nabla.tensor(np.triu(a) * [1.0, 0.0, 1.0]), nabla.tensor(b.T), upper=True)
    assert not np.isfinite(z.numpy()).all()  # no check, as PyTorch's


def test_solve_triangular_errors_and_out():
    with pytest.raises(RuntimeError, match="linalg.solve_triangular: The input tensor B must have at least 2 "
                                           "dimensions."):
        LA.solve_triangular(nabla.eye(3), nabla.ones(3), upper=True)
    with pytest.raises(RuntimeError, match="linalg.solve_triangular: A must be batches of square matrices, but they "
                                           "are 2 by 3 matrices"):
        LA.solve_triangular(nabla.ones(2, 3), nabla.ones(3, 1), upper=True)
    with pytest.raises(RuntimeError, match=r"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                                           r"AX = B \(3x3 and 4x1\)"):
        LA.solve_triangular(nabla.eye(3), nabla.ones(4, 1), upper=True)
    with pytest.raises(RuntimeError, match="Expected A and B to have the same dtype"):
        LA.solve_triangular(nabla.eye(3), nabla.ones(3, 1, dtype=nabla.float64), upper=True)
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        LA.solve_triangular(nabla.eye(3, dtype=nabla.int64), nabla.ones(3, 1, dtype=nabla.int64), upper=True)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        LA.solve_triangular(nabla.ones(2, 3, 3), nabla.ones(4, 3, 1), upper=True)
    with pytest.raises(TypeError):
        LA.solve_triangular(nabla.eye(3), nabla.ones(3, 1))  # upper is required, as in PyTorch
    out = nabla.empty(0)
    assert LA.solve_triangular(nabla.eye(2) * 2, nabla.ones(2, 1), upper=True, out=out) is out
    np.testing.assert_array_equal(out.numpy(), [[0.5], [0.5]])


@pytest.mark.parametrize("upper, left, unit", CASES)
def test_solve_triangular_gradcheck(upper, left, unit, rng):
    a = well_conditioned(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 2) if left else (2, 2, 3))
    f = lambda a, b: LA.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)  # noqa: E731
    assert gradcheck(f, (leaf(a), leaf(b)))
    assert gradgradcheck(f, (leaf(a), leaf(b)))
    assert gradcheck(f, (leaf(a[0]), leaf(rng.standard_normal((4,) + b.shape[1:]))))  # A broadcast over B's batch


# ---- qr gradient ----

QR_SHAPES = [(5, 3), (4, 4), (3, 5), (2, 5, 3), (2, 3, 3), (2, 1, 3, 6), (1, 1), (4, 1), (1, 4), (0, 3), (3, 0)]


QR_CASES = [(s, mode) for s in QR_SHAPES for mode in ("reduced", "complete") if mode == "reduced" or s[-2] <= s[-1]]


@pytest.mark.parametrize("shape, mode", QR_CASES, ids=str)
def test_qr_gradcheck(shape, mode, rng):
    a = leaf(rng.standard_normal(shape))
    assert gradcheck(lambda a: list(LA.qr(a, mode=mode)), (a,))
    assert gradcheck(lambda a: LA.qr(a, mode=mode).Q, (a,))
    assert gradcheck(lambda a: LA.qr(a, mode=mode).R, (a,))


def test_qr_gradgradcheck(rng):
    for shape in [(4, 3), (3, 4)]:
        assert gradgradcheck(lambda a: list(LA.qr(a)), (leaf(rng.standard_normal(shape)),))


def test_qr_gradient_errors(rng):
    a = leaf(rng.standard_normal((4, 3)))
    q, r = LA.qr(a, mode="r")
    assert q.shape == (0,)
    with pytest.raises(RuntimeError, match=r"The derivative of linalg.qr depends on Q, which is not computed when "
                                           r"mode='r'. Please use linalg.qr\(A, mode='reduced'\) if you are going to "
                                           "differentiate through linalg.qr."):
        r.sum().backward()
    q, r = LA.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="The QR decomposition is not differentiable when mode='complete' and "
                                           "nrows > ncols."):
        (q.sum() + r.sum()).backward()
    assert LA.qr(a)[0].grad_fn.name() == "LinalgQrBackward0"


def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 4, 3))
    sq = well_conditioned(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 2))
    go = rng.standard_normal((2, 4, 3))
    calls = [lambda L, x, s, y: L.linalg.qr(x).Q * L.tensor(go),
             lambda L, x, s, y: L.linalg.qr(x).R.sum() + L.linalg.qr(x.mT).Q.sum(),
             lambda L, x, s, y: L.linalg.qr(x.mT, mode="complete").R * 3,
             lambda L, x, s, y: L.linalg.inv_ex(s).inverse,
             lambda L, x, s, y: L.linalg.solve_ex(s, y, left=True).result,
             lambda L, x, s, y: L.linalg.cholesky_ex(s @ s.mT, upper=True).L,
             lambda L, x, s, y: L.linalg.solve_triangular(s, y, upper=False),
             lambda L, x, s, y: L.linalg.solve_triangular(s, y.mT, upper=True, left=False, unitriangular=True)]
    for k, call in enumerate(calls):
        res = []
        for L in (torch, nabla):
            x, s, y = (L.tensor(v, requires_grad=True) for v in (a, sq, b))
            out = call(L, x, s, y)
            out.sum().backward()
            res.append([out.detach().numpy()] + [t.grad.numpy() if t.grad is not None else np.zeros(t.shape)
                                                 for t in (x, s, y)])
        for got, want in zip(res[1], res[0]):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10, err_msg=str(k))
