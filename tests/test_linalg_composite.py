"""nabla.linalg's composed functions: pinv, matrix_rank, lstsq, matrix_power, multi_dot,
cross, vecdot, diagonal: against NumPy in float64 and float32 (batched, empty and
rank-deficient inputs), PyTorch's errors, finite-difference gradients, and PyTorch's
values where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from nabla.autograd import gradcheck, gradgradcheck

LA = nabla.linalg
DT = [nabla.float32, nabla.float64]
TOL = {nabla.float32: 1e-4, nabla.float64: 1e-11}


def t(a, dtype=nabla.float64):
    return nabla.tensor(a, dtype=dtype)


def close(x, want, dtype, scale=1.0):
    np.testing.assert_allclose(x.double().numpy(), want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10 * scale)


def leaf(x):
    return nabla.tensor(x, requires_grad=True)


def rank_deficient(rng, shape, rank):
    """Random [..., m, n] matrices of the given rank."""
    return rng.standard_normal(shape[:-1] + (rank,)) @ rng.standard_normal(shape[:-2] + (rank, shape[-1]))


# ---- pinv, matrix_rank ----

@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (2, 1, 3, 2), (0, 3), (3, 0), (2, 0, 0)], ids=str)
def test_pinv_and_rank_match_numpy(dtype, shape, rng):
    a = rng.standard_normal(shape).astype(np.float32 if dtype is nabla.float32 else np.float64)
    close(LA.pinv(t(a, dtype)), np.linalg.pinv(a.astype(np.float64)), dtype, 10)
    rank = LA.matrix_rank(t(a, dtype))
    assert rank.dtype == nabla.int64
    np.testing.assert_array_equal(rank.numpy(), np.linalg.matrix_rank(a) if a.size else np.zeros(shape[:-2]))
    s = a @ np.swapaxes(a, -1, -2) + shape[-2] * np.eye(shape[-2], dtype=a.dtype)  # well conditioned
    close(LA.pinv(t(s, dtype), hermitian=True), np.linalg.pinv(s.astype(np.float64), hermitian=True), dtype, 10)


def test_pinv_and_rank_of_rank_deficient_input(rng):
    a = rank_deficient(rng, (2, 5, 4), 2)
    np.testing.assert_allclose(LA.pinv(t(a)).numpy(), np.linalg.pinv(a), rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(LA.matrix_rank(t(a)).numpy(), [2, 2])
    np.testing.assert_array_equal(LA.matrix_rank(t(a @ np.swapaxes(a, -1, -2)), hermitian=True).numpy(), [2, 2])
    # tolerances: atol cuts absolutely, rtol relative to the largest singular value, atol > 0 alone drops rtol
    s = np.diag([10.0, 1.0, 1e-3])
    for kw, want in [({}, 3), ({"atol": 0.5}, 2), ({"rtol": 0.05}, 2), ({"atol": 0.5, "rtol": 0.5}, 1),
                     ({"atol": 20.0}, 0), ({"atol": t([0.5])}, 2), ({"rtol": t([1e-5])}, 3)]:
        batched = any(isinstance(v, nabla.Tensor) for v in kw.values())
        a3 = t(s[None]) if batched else t(s)
        np.testing.assert_array_equal(LA.matrix_rank(a3, **kw).numpy(), [want] if batched else want, err_msg=str(kw))
        inverse = np.diag(([0.1, 1.0, 1e3][:want] + [0.0] * 3)[:3])
        np.testing.assert_allclose(LA.pinv(a3, **kw).numpy().reshape(3, 3), inverse, rtol=1e-12, err_msg=str(kw))


def test_pinv_gradcheck(rng):
    for shape in [(4, 3), (2, 3, 5)]:
        assert gradcheck(lambda a: LA.pinv(a), (leaf(rng.standard_normal(shape)),))
    assert gradgradcheck(lambda a: LA.pinv(a), (leaf(rng.standard_normal((3, 2))),))
    s = rng.standard_normal((3, 3))
    assert gradcheck(lambda a: LA.pinv(a + a.mT, hermitian=True), (leaf(s + 4 * np.eye(3)),))


def test_pinv_and_rank_errors():
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Float\{\[3\]\}\): expected a tensor with 2 or more "
                                           "dimensions of float, double, cfloat or cdouble types"):
        LA.pinv(nabla.ones(3))
    with pytest.raises(RuntimeError, match=r"linalg.pinv\(Long\{\[3, 2\]\}\)"):
        LA.pinv(nabla.ones(3, 2, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="torch.linalg.matrix_rank: The input tensor input must have at least 2 "
                                           "dimensions."):
        LA.matrix_rank(nabla.ones(3))
    with pytest.raises(RuntimeError, match="Expected a floating point tensor as input. Got Long"):
        LA.matrix_rank(nabla.ones(3, 3, dtype=nabla.int64))


# ---- lstsq ----

@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("sa, sb", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 6, 4), (2, 6, 3)), ((3, 5), (3, 2)),
                                    ((2, 4, 4), (2, 4)), ((2, 5, 3), (5, 1)), ((0, 3), (0, 2)), ((3, 0), (3, 2))],
                         ids=str)
def test_lstsq_matches_numpy(dtype, sa, sb, rng):
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    if dtype is nabla.float32:
        a, b = a.astype(np.float32).astype(np.float64), b.astype(np.float32).astype(np.float64)
    for driver in (None, "gels", "gelsy", "gelsd", "gelss"):
        r = LA.lstsq(t(a, dtype), t(b, dtype), driver=driver)
        vector = len(sb) == 1 or sb == sa[:-1]  # solve's rule: (5, 1) against (2, 5, 3) is a matrix
        bm = b[..., None] if vector else b
        want = np.linalg.pinv(a) @ bm if a.size else np.zeros(sa[:-2] + (sa[-1], bm.shape[-1]))
        close(r.solution, want[..., 0] if vector else want, dtype, 100)
        m, n = sa[-2:]
        if driver in (None, "gelsy", "gelsd", "gelss"):
            assert r.rank.dtype == nabla.int64
            np.testing.assert_array_equal(r.rank.numpy(), np.full(sa[:-2], min(m, n)))
        else:
            assert r.rank.shape == (0,)
        if driver in ("gelsd", "gelss"):
            close(r.singular_values, np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(sa[:-2] + (0,)),
                  dtype, 10)
        else:
            assert r.singular_values.shape == (0,)
        if m > n and driver in ("gels", "gelsd", "gelss"):
            close(r.residuals, ((a @ want - bm) ** 2).sum(-2), dtype, 100)
        else:
            assert r.residuals.shape == (0,)


def test_lstsq_rank_deficient_and_rcond(rng):
    a, b = rank_deficient(rng, (6, 4), 2), rng.standard_normal((6, 2))
    r = LA.lstsq(t(a), t(b), driver="gelsd")
    np.testing.assert_allclose(r.solution.numpy(), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-8, atol=1e-10)
    assert r.rank.item() == 2 and r.residuals.shape == (0,)  # not full rank: no residuals
    d = np.diag([1.0, 1e-3, 1.0])
    np.testing.assert_allclose(LA.lstsq(t(d), t(np.ones((3, 1))), rcond=1e-2).solution.numpy(), [[1.0], [0.0], [1.0]])


def test_lstsq_gradcheck(rng):
    assert gradcheck(lambda a, b: LA.lstsq(a, b).solution, (leaf(rng.standard_normal((5, 3))),
                                                            leaf(rng.standard_normal((5, 2)))))
    assert gradcheck(lambda a, b: LA.lstsq(a, b).solution, (leaf(rng.standard_normal((2, 3, 4))),
                                                            leaf(rng.standard_normal((2, 3)))))


def test_lstsq_errors():
    with pytest.raises(RuntimeError, match="torch.linalg.lstsq: input must have at least 2 dimensions."):
        LA.lstsq(nabla.ones(3), nabla.ones(3, 1))
    with pytest.raises(RuntimeError, match=r"torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)"):
        LA.lstsq(nabla.ones(3, 2), nabla.ones(4, 1))
    with pytest.raises(RuntimeError, match=r"parameter `driver` should be one of \(gels, gelsy, gelsd, gelss\)"):
        LA.lstsq(nabla.ones(3, 2), nabla.ones(3, 1), driver="foo")
    with pytest.raises(RuntimeError, match="Expected input and other to have the same dtype, but got input's dtype "
                                           "Float and other's dtype Double"):
        LA.lstsq(nabla.ones(3, 2), nabla.ones(3, 1, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match="Got Long"):
        LA.lstsq(nabla.ones(3, 2, dtype=nabla.int64), nabla.ones(3, 1, dtype=nabla.int64))


# ---- matrix_power, multi_dot ----

@pytest.mark.parametrize("dtype", DT + [nabla.int64], ids=str)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, -1, -3])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 0), (2, 0, 0)], ids=str)
def test_matrix_power_matches_numpy(dtype, n, shape, rng):
    if dtype is nabla.int64:
        a = rng.integers(-2, 3, shape)
        if n < 0:
            with pytest.raises(RuntimeError, match="linalg.inv: Expected a floating point or complex tensor as input. "
                                                   "Got Long"):
                LA.matrix_power(t(a, dtype), n)
            return
        got = LA.matrix_power(t(a, dtype), n)
        assert got.dtype == nabla.int64
        np.testing.assert_array_equal(got.numpy(), np.linalg.matrix_power(a, n))
        return
    a = (rng.standard_normal(shape) / 2 + np.eye(shape[-1])).astype(np.float32 if dtype is nabla.float32 else float)
    want = np.linalg.matrix_power(a.astype(np.float64), n)
    got = LA.matrix_power(t(a, dtype), n)
    assert got.dtype == dtype and got.shape == shape
    close(got, want, dtype, 10 * (1 + np.abs(want).max(initial=0)))


def test_matrix_power_result_is_new_and_differentiable(rng):
    a = t(rng.standard_normal((3, 3)))
    r = LA.matrix_power(a, 1)
    r.add_(1)
    assert not np.array_equal(r.numpy(), a.numpy())
    for n in (0, 1, 2, 3, 6, -2):
        assert gradcheck(lambda x: LA.matrix_power(x, n), (leaf(rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)),))
    with pytest.raises(RuntimeError, match="linalg.matrix_power: A must be batches of square matrices, but they are "
                                           "2 by 3 matrices"):
        LA.matrix_power(nabla.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="linalg.matrix_power: The input tensor A must have at least 2 dimensions."):
        LA.matrix_power(nabla.ones(3), 2)
    with pytest.raises(TypeError, match="argument 'n' must be int"):
        LA.matrix_power(nabla.eye(2), 2.0)


def chains(rng):
    return [[rng.standard_normal((3, 4)), rng.standard_normal((4, 10)), rng.standard_normal((10, 2))],
            [rng.standard_normal(4), rng.standard_normal((4, 6)), rng.standard_normal((6, 3)), rng.standard_normal(3)],
            [rng.standard_normal(5), rng.standard_normal((5, 2))],
            [rng.standard_normal((7, 5)), rng.standard_normal(5)],
            [rng.standard_normal((2, 30)), rng.standard_normal((30, 1)), rng.standard_normal((1, 40)),
             rng.standard_normal((40, 3)), rng.standard_normal((3, 8))],
            [rng.standard_normal((3, 0)), rng.standard_normal((0, 4)), rng.standard_normal((4, 2))]]


@pytest.mark.parametrize("dtype", DT, ids=str)
def test_multi_dot_matches_numpy(dtype, rng):
    for ms in chains(rng):
        got = LA.multi_dot([t(m, dtype) for m in ms])
        want = np.linalg.multi_dot(ms)
        assert got.shape == np.shape(want) and got.dtype == dtype
        close(got, want, dtype, 10 * (1 + np.abs(want).max(initial=0)))


def test_multi_dot_gradcheck_and_errors(rng):
    for ms in chains(rng)[:5]:
        assert gradcheck(lambda *xs: LA.multi_dot(xs), tuple(leaf(m) for m in ms))
    for call, message in [
            (lambda: LA.multi_dot([nabla.ones(3)]), r"multi_dot\(\): expected at least 2 tensors but got 1"),
            (lambda: LA.multi_dot([]), r"multi_dot\(\): expected at least 2 tensors but got 0"),
            (lambda: LA.multi_dot([nabla.ones(3, 2), nabla.ones(3, 2)]),
             r"multi_dot\(\): tensors 0 and 1 with shapes \[3, 2\] and \[3, 2\] cannot be multiplied"),
            (lambda: LA.multi_dot([nabla.ones(3, 2), nabla.ones(2, 2, 2)]),
             r"multi_dot\(\): the last tensor must be 1D or 2D but got 3D"),
            (lambda: LA.multi_dot([nabla.ones(2, 2, 2), nabla.ones(2, 2)]),
             r"multi_dot\(\): the first tensor must be 1D or 2D but got 3D"),
            (lambda: LA.multi_dot([nabla.ones(2, 2), nabla.ones(2), nabla.ones(2)]),
             r"multi_dot\(\): tensor 1 must be 2D but got 1D"),
            (lambda: LA.multi_dot([nabla.ones(3, 2), nabla.ones(2, 2, dtype=nabla.float64)]),
             r"multi_dot\(\): all tensors must have be the same dtype but tensor 0 is float and tensor 1 double")]:
        with pytest.raises(RuntimeError, match=message):
            call()


# ---- cross, vecdot, diagonal ----

@pytest.mark.parametrize("dtype", DT + [nabla.int64], ids=str)
def test_cross_and_vecdot_match_numpy(dtype, rng):
    for sa, sb, dim in [((3,), (3,), -1), ((4, 3), (4, 3), -1), ((2, 1, 3), (4, 3), -1), ((3, 5), (3, 1), 0),
                        ((2, 3, 4), (2, 3, 4), 1), ((0, 3), (0, 3), -1)]:
        a, b = rng.integers(-5, 6, sa), rng.integers(-5, 6, sb)
        got = LA.cross(t(a, dtype), t(b, dtype), dim=dim)
        want = np.cross(*np.broadcast_arrays(a, b), axis=dim)
        assert got.dtype == dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
        if dtype is not nabla.int64:
            got = LA.vecdot(t(a, dtype), t(b, dtype), dim=dim)
            np.testing.assert_allclose(got.numpy(), (a * b).sum(dim))
    assert gradcheck(lambda x, y: LA.cross(x, y), (leaf(rng.standard_normal((2, 3))), leaf(rng.standard_normal(3))))
    assert gradcheck(lambda x, y: LA.vecdot(x, y, dim=0), (leaf(rng.standard_normal((4, 2))),
                                                           leaf(rng.standard_normal((4, 1)))))


def test_cross_and_vecdot_errors():
    with pytest.raises(RuntimeError, match="linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"):
        LA.cross(nabla.ones(3, 2), nabla.ones(3, 2))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(4\) at "
                                           "non-singleton dimension 0"):
        LA.cross(nabla.ones(2, 3), nabla.ones(4, 3))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        LA.cross(nabla.ones(2, 3), nabla.ones(2, 3, dtype=nabla.float64))
    with pytest.raises(IndexError, match="Dimension out of range"):
        LA.cross(nabla.ones(3), nabla.ones(3), dim=1)
    with pytest.raises(RuntimeError, match="linalg.vecdot: Expected a floating point or complex tensor as input. "
                                           "Got Long"):
        LA.vecdot(nabla.ones(3, dtype=nabla.int64), nabla.ones(3, dtype=nabla.int64))
    with pytest.raises(RuntimeError, match="linalg.vecdot: Expected x and y to have the same dtype, but found x of "
                                           "type Float and y of type Double instead"):
        LA.vecdot(nabla.ones(3), nabla.ones(3, dtype=nabla.float64))


def test_diagonal_is_a_view(rng):
    a = rng.standard_normal((2, 4, 5))
    for off, d1, d2 in [(0, -2, -1), (1, -2, -1), (-2, -2, -1), (3, 1, 2), (-1, 2, 1), (0, 0, 2), (7, -2, -1),
                        (-9, -2, -1)]:
        got = LA.diagonal(t(a), offset=off, dim1=d1, dim2=d2)
        want = np.diagonal(a, offset=off, axis1=d1, axis2=d2)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
    base = t(a)
    view = LA.diagonal(base[:, 1:], offset=1)  # of a non-contiguous view
    np.testing.assert_array_equal(view.numpy(), np.diagonal(a[:, 1:], offset=1, axis1=-2, axis2=-1))
    view.zero_()
    assert base.numpy()[0, 1, 1] == 0 and base.numpy()[0, 2, 2] == 0
    assert gradcheck(lambda x: LA.diagonal(x, offset=-1), (leaf(a),))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical -1, 2"):
        LA.diagonal(t(a), dim1=-1, dim2=2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        LA.diagonal(t(a[0, 0]))


def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 5, 3))
    b = rng.standard_normal((2, 5, 2))
    calls = [lambda L, x, y: L.linalg.pinv(x), lambda L, x, y: L.linalg.pinv(x @ x.mT, hermitian=True, atol=1e-6),
             lambda L, x, y: L.linalg.lstsq(x, y).solution,
             lambda L, x, y: L.linalg.lstsq(x, y, driver="gelsd").residuals,
             lambda L, x, y: L.linalg.matrix_power(x[..., :3, :], -3),
             lambda L, x, y: L.linalg.multi_dot([x[0], x[1].mT, y[0]]),
             lambda L, x, y: L.linalg.cross(x, x.flip(-1)), lambda L, x, y: L.linalg.vecdot(x, y[..., :1], dim=-2),
             lambda L, x, y: L.linalg.diagonal(x, offset=-1) * 2]
    for k, call in enumerate(calls):
        res = []
        for L in (torch, nabla):
            x, y = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
            out = call(L, x, y)
            out.sum().backward()
            res.append([out.detach().numpy()] + [v.grad.numpy() if v.grad is not None else np.zeros(v.shape)
                                                 for v in (x, y)])
        for got, want in zip(res[1], res[0]):
            np.testing.assert_allclose(got, want, rtol=1e-8, atol=1e-10, err_msg=str(k))
    for kw in ({}, {"hermitian": True}, {"atol": 0.5}, {"rtol": 0.3}):
        s = rank_deficient(rng, (3, 4, 4), 2)
        s = s @ np.swapaxes(s, -1, -2)
        np.testing.assert_array_equal(LA.matrix_rank(t(s), **kw).numpy(),
                                      torch.linalg.matrix_rank(torch.tensor(s), **kw).numpy())
