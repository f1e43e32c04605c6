"""nabla.linalg: inv, solve, det, slogdet, cholesky, qr, eigh, eigvalsh, svd, svdvals
and the vector / matrix norms, against NumPy in float64 and PyTorch: batched and
transposed inputs, float32 and float64, empty matrices, every error with PyTorch's
exception type and message (LinAlgError for singular or not positive-definite
input), out=, and the gradients (gradcheck, gradgradcheck, PyTorch's values)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
from nabla.autograd import gradcheck, gradgradcheck

LA = nabla.linalg
TOL = {nabla.float32: 2e-4, nabla.float64: 1e-10}


def mats(rng, shape, dtype=nabla.float64, layout="contiguous"):
    a = rng.standard_normal(shape)
    if layout == "transposed":  # the same values through a transposed view
        t = nabla.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2)), dtype=dtype).mT
    else:
        t = nabla.tensor(a, dtype=dtype)
    return a.astype(np.float32 if dtype is nabla.float32 else np.float64).astype(np.float64), t


def spd(rng, shape, dtype=nabla.float64):
    a = rng.standard_normal(shape)
    s = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    return s, nabla.tensor(s, dtype=dtype)


def close(t, want, dtype, scale=1.0):
    np.testing.assert_allclose(t.double().numpy(), want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10 * scale)


DT = [nabla.float32, nabla.float64]
SHAPES = [(3, 3), (2, 4, 4), (2, 1, 5, 5), (1, 1)]


@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_square_ops_match_numpy(dtype, shape, layout, rng):
    a, t = mats(rng, shape, dtype, layout)
    close(LA.inv(t), np.linalg.inv(a), dtype, np.abs(np.linalg.inv(a)).max())
    close(LA.det(t), np.linalg.det(a), dtype, np.abs(np.linalg.det(a)).max() + 1)
    sign, logabs = LA.slogdet(t)
    wsign, wlog = np.linalg.slogdet(a)
    close(sign, wsign, dtype), close(logabs, wlog, dtype)
    b = rng.standard_normal(shape[:-1] + (2,))
    close(LA.solve(t, nabla.tensor(b, dtype=dtype)), np.linalg.solve(a, b), dtype, 1e3)
    close(LA.solve(t, nabla.tensor(b[..., 0], dtype=dtype)), np.linalg.solve(a, b[..., :1])[..., 0], dtype, 1e3)
    right = LA.solve(t, nabla.tensor(np.swapaxes(b, -1, -2), dtype=dtype), left=False)  # X A = B
    close(right, np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2), dtype, 1e3)
    s, st = spd(rng, shape, dtype)
    low = LA.cholesky(st)
    close(low, np.linalg.cholesky(s), dtype, s.max())
    close(LA.cholesky(st, upper=True), np.swapaxes(np.linalg.cholesky(s), -1, -2), dtype, s.max())
    w, v = LA.eigh(st)
    close(w, np.linalg.eigvalsh(s), dtype, s.max())
    vv = v.double().numpy()
    close(nabla.tensor(vv @ (w.double().numpy()[..., None] * np.swapaxes(vv, -1, -2))), s, dtype, s.max())
    close(LA.eigvalsh(st, UPLO="U"), np.linalg.eigvalsh(s, UPLO="U"), dtype, s.max())


@pytest.mark.parametrize("dtype", DT, ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3), (2, 2, 6, 2), (1, 1)], ids=str)
def test_svd_and_qr_match_numpy(dtype, shape, rng):
    a, t = mats(rng, shape, dtype)
    k = min(shape[-2:])
    for full in (False, True):
        u, s, vh = LA.svd(t, full_matrices=full)
        assert u.shape[-2:] == (shape[-2], shape[-2] if full else k) and vh.shape[-2:] == (shape[-1] if full else k,
                                                                                              shape[-1])
        close(s, np.linalg.svd(a, compute_uv=False), dtype, 10)
        un, vn = u.double().numpy(), vh.double().numpy()
        rebuilt = (un[..., :, :k] * s.double().numpy()[..., None, :]) @ vn[..., :k, :]
        close(nabla.tensor(rebuilt), a, dtype, 10)
        close(nabla.tensor(np.swapaxes(un, -1, -2) @ un), np.broadcast_to(np.eye(un.shape[-1]), un.shape[:-2] +
                                                                           (un.shape[-1],) * 2), dtype)
    close(LA.svdvals(t), np.linalg.svd(a, compute_uv=False), dtype, 10)
    for mode in ("reduced", "complete", "r"):
        q, r = LA.qr(t, mode=mode)
        wr = np.linalg.qr(a, mode=mode if mode != "r" else "r")
        wr = wr if mode == "r" else wr[1]
        close(r.abs(), np.abs(wr), dtype, 10)  # rows of R may differ in sign between LAPACKs
        if mode == "r":
            assert q.shape == (0,)
        else:
            close(nabla.tensor(q.double().numpy() @ r.double().numpy()), a, dtype, 10)


def aligned(v, ref):
    """v with each column's sign flipped to agree with ref's (singular and eigen vectors are defined up to sign)."""
    flip = np.sign(np.sum(v * ref, axis=-2, keepdims=True))
    return v * np.where(flip == 0, 1, flip)


def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 4, 3))
    s = a[..., :3, :] @ np.swapaxes(a[..., :3, :], -1, -2) + 3 * np.eye(3)
    out = {}
    for L in (torch, nabla):
        u, sv, vh = L.linalg.svd(L.tensor(a), full_matrices=False)
        q, r = L.linalg.qr(L.tensor(a))
        w, v = L.linalg.eigh(L.tensor(s))
        sign, logabs = L.linalg.slogdet(L.tensor(a[..., :3, :]))
        out[L] = dict(u=u.numpy(), s=sv.numpy(), v=vh.mT.numpy(), q=q.numpy(), r=r.numpy(), w=w.numpy(), ev=v.numpy(),
                      chol=L.linalg.cholesky(L.tensor(s)).numpy(), inv=L.linalg.inv(L.tensor(s)).numpy(),
                      sign=sign.numpy(), logabs=logabs.numpy())
    got, want = out[nabla], out[torch]
    for key in ("u", "v", "q", "ev"):
        got[key] = aligned(got[key], want[key])
    got["r"] = got["r"] * np.sign(np.sum(got["r"] * want["r"], axis=-1, keepdims=True))  # R's rows follow Q's columns
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-9, atol=1e-9, err_msg=key)


def test_empty_matrices():
    torch = pytest.importorskip("torch")
    for shape in [(0, 0), (2, 0, 0)]:
        for L in (torch, nabla):
            z = L.zeros(shape, dtype=L.float64)
            r = [L.linalg.inv(z), L.linalg.det(z), *L.linalg.slogdet(z), L.linalg.cholesky(z), *L.linalg.eigh(z)]
            if L is torch:
                want = [x.numpy() for x in r]
            else:
                for g, w in zip(r, want):
                    assert g.shape == w.shape and np.array_equal(g.numpy(), w)
    for shape in [(0, 3), (3, 0)]:
        for full in (True, False):
            for L in (torch, nabla):
                r = [*L.linalg.svd(L.zeros(shape), full_matrices=full), *L.linalg.qr(L.zeros(shape), mode="complete")]
                if L is torch:
                    want = [x.numpy() for x in r]
                else:
                    for g, w in zip(r, want):
                        assert g.shape == w.shape and np.array_equal(g.numpy(), w)


ERRORS = [
    (lambda L: L.linalg.inv(L.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])),
     "linalg.inv: The diagonal element 3 is zero, the inversion could not be completed because the input matrix is "
     "singular."),
    (lambda L: L.linalg.inv(L.stack([L.eye(2), L.zeros(2, 2)])),
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero"),
    (lambda L: L.linalg.solve(L.zeros(3, 3), L.ones(3)), "The solver failed because the input matrix is singular."),
    (lambda L: L.linalg.cholesky(L.tensor([[1.0, 2.0], [2.0, 1.0]])),
     "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the "
     "leading minor of order 2 is not positive-definite)."),
    (lambda L: L.linalg.cholesky(L.stack([L.eye(2), -L.eye(2)])),
     "linalg.cholesky: (Batch element 1): The factorization could not be completed"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_linalg_errors_are_linalg_errors(call, message):
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        with pytest.raises(L.linalg.LinAlgError) as info:
            call(L)
        assert message in str(info.value)
        assert isinstance(info.value, RuntimeError)


RUNTIME_ERRORS = [
    (lambda L: L.linalg.inv(L.ones(2, 3)), "linalg.inv: A must be batches of square matrices, but they are 2 by 3 "
                                          "matrices"),
    (lambda L: L.linalg.det(L.ones(3)), "linalg.det: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.linalg.inv(L.ones(3, 3, dtype=L.int64)),
     "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
    (lambda L: L.linalg.inv(L.ones(3, 3, dtype=L.float16)), "linalg.inv: Low precision dtypes not supported. Got Half"),
    (lambda L: L.linalg.solve(L.eye(3), L.ones(4)), "linalg.solve: Incompatible shapes of A and B for the equation "
                                                    "AX = B (3x3 and 4x1)"),
    (lambda L: L.linalg.solve(L.eye(3), L.ones(3, dtype=L.float64)),
     "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double instead"),
    (lambda L: L.linalg.eigh(L.eye(2), UPLO="X"), "Expected UPLO argument to be 'L' or 'U', but got X"),
    (lambda L: L.linalg.qr(L.ones(3, 2), mode="foo"), "qr received unrecognized mode 'foo' but expected one of "
                                                      "'reduced' (default), 'r', or 'complete'"),
    (lambda L: L.linalg.matrix_norm(L.ones(3, 2), ord=3), "linalg.matrix_norm: Order 3 not supported."),
    (lambda L: L.linalg.matrix_norm(L.ones(3)), "linalg.matrix_norm: The input tensor A must have at least 2 "
                                                "dimensions."),
    (lambda L: L.linalg.vector_norm(L.ones(3, dtype=L.int64)),
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda L: L.norm(L.ones(3), p="nuc"), "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    (lambda L: L.linalg.norm(L.ones(2, 2, 2), ord=2), "linalg.norm: If dim is not specified but ord is, the input "
                                                      "must be 1D or 2D. Got 3D."),
]


@pytest.mark.parametrize("call, message", RUNTIME_ERRORS)
def test_other_errors_like_pytorch(call, message):
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        with pytest.raises(RuntimeError) as info:
            call(L)
        assert message in str(info.value)
        assert not isinstance(info.value, nabla.linalg.LinAlgError)


# ---- norms ----

NORMS = [
    lambda L, a: L.linalg.vector_norm(a),
    lambda L, a: L.linalg.vector_norm(a, ord=math.inf, dim=1),
    lambda L, a: L.linalg.vector_norm(a, ord=-math.inf, dim=(0, 2), keepdim=True),
    lambda L, a: L.linalg.vector_norm(a, ord=0, dim=-1),
    lambda L, a: L.linalg.vector_norm(a, ord=3.5, dim=0, dtype=L.float64),
    lambda L, a: L.linalg.vector_norm(a, ord=-1.5),
    *[lambda L, a, o=o: L.linalg.matrix_norm(a, ord=o) for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)],
    *[lambda L, a, o=o: L.linalg.matrix_norm(a, ord=o, dim=(2, 0), keepdim=True)
      for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)],
    lambda L, a: L.linalg.norm(a),
    lambda L, a: L.linalg.norm(a, dim=1),
    lambda L, a: L.linalg.norm(a, ord=1, dim=(0, 1)),
    lambda L, a: L.linalg.norm(a[0], ord="nuc"),
    lambda L, a: L.linalg.norm(a[0, 0], ord=3),
    lambda L, a: L.linalg.norm(a[0], ord=-2, keepdim=True),
    lambda L, a: L.norm(a, p="nuc", dim=(1, 2)),
    lambda L, a: L.norm(a[1], p="nuc", keepdim=True),
    lambda L, a: a.norm(p="nuc", dim=(0, 2)),
]


@pytest.mark.parametrize("case", range(len(NORMS)))
def test_norms_match_pytorch(case, rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4, 5))
    a[0, 0, 0] = 0.0
    for dtype in ("float32", "float64"):
        want = NORMS[case](torch, torch.tensor(a, dtype=getattr(torch, dtype)))
        got = NORMS[case](nabla, nabla.tensor(a, dtype=getattr(nabla, dtype)))
        assert got.dtype.name == str(want.dtype).split(".")[1] and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5 if dtype == "float32" else 1e-12)


def test_out_arguments():
    a = nabla.tensor([[2.0, 1.0], [1.0, 3.0]])
    out = nabla.empty(0)
    assert LA.inv(a, out=out) is out and out.shape == (2, 2)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        LA.det(a, out=nabla.empty(0, dtype=nabla.float64))
    w, v = nabla.empty(0), nabla.empty(0)
    r = LA.eigh(a, out=(w, v))
    assert r.eigenvalues is w and r.eigenvectors is v and w.shape == (2,) and v.shape == (2, 2)
    with pytest.warns(UserWarning, match="was resized"):
        LA.matrix_norm(a, "nuc", out=nabla.zeros(3))
    with pytest.raises(TypeError, match="tuple of 3 Tensors"):
        LA.svd(a, out=nabla.empty(0))


# ---- gradients ----

def leaf(x):
    return nabla.tensor(x, requires_grad=True)


def sym(f):
    """f of the symmetric part, as PyTorch's tests do for ops that read one triangle."""
    return lambda a: f(a + a.mT)


GRADS = [
    ("inv", lambda a: LA.inv(a), "square", True),
    ("det", lambda a: LA.det(a), "square", True),
    ("slogdet", lambda a: LA.slogdet(a).logabsdet, "square", True),
    ("logdet", lambda a: nabla.logdet(a @ a.mT), "square", False),
    ("cholesky", sym(lambda a: LA.cholesky(a)), "spd", True),
    ("cholesky_upper", sym(lambda a: LA.cholesky(a, upper=True)), "spd", False),
    ("eigh", sym(lambda a: LA.eigh(a).eigenvalues), "spd", True),
    ("eigh_vectors", sym(lambda a: LA.eigh(a).eigenvectors.abs()), "spd", False),
    ("eigvalsh", sym(lambda a: LA.eigvalsh(a, UPLO="U")), "spd", False),
    ("svdvals", lambda a: LA.svdvals(a), "tall", True),
    ("svd_vectors", lambda a: [x.abs() for x in LA.svd(a, full_matrices=False)], "tall", False),
    ("svd_wide", lambda a: [x.abs() for x in LA.svd(a, full_matrices=False)], "wide", False),
    ("svd_full_s", lambda a: LA.svd(a).S, "wide", False),
    ("nuc", lambda a: LA.matrix_norm(a, "nuc"), "tall", True),
    ("spectral", lambda a: LA.matrix_norm(a, -2), "wide", False),
]


@pytest.mark.parametrize("name, f, kind, second", GRADS, ids=[g[0] for g in GRADS])
def test_gradcheck(name, f, kind, second, rng):
    shape = {"square": (2, 3, 3), "spd": (2, 3, 3), "tall": (2, 4, 3), "wide": (3, 5)}[kind]
    x = rng.standard_normal(shape)
    if kind == "spd":
        x = x @ np.swapaxes(x, -1, -2) / 2 + 2 * np.eye(3)
    assert gradcheck(f, (leaf(x),))
    if second:
        assert gradgradcheck(f, (leaf(x),))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("vector", [True, False])
def test_solve_gradcheck(left, vector, rng):
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3) if vector else ((2, 3, 2) if left else (2, 2, 3)))
    f = lambda a, b: LA.solve(a, b, left=left)  # noqa: E731
    assert gradcheck(f, (leaf(a), leaf(b)))
    assert gradgradcheck(f, (leaf(a), leaf(b)))
    # broadcast batch dims: A's gradient sums over the batch it was broadcast to
    assert gradcheck(lambda a, b: LA.solve(a, b), (leaf(a[0]), leaf(rng.standard_normal((4, 3, 2)))))


def test_gradients_match_pytorch(rng):
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((2, 3, 3))
    s = x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)
    go = rng.standard_normal((2, 3, 3))
    calls = [lambda L, a: L.linalg.eigh(a)[1] ** 2 * L.tensor(go), lambda L, a: L.linalg.eigh(a)[0],  # signless
             lambda L, a: L.linalg.cholesky(a) * L.tensor(go), lambda L, a: L.linalg.cholesky(a, upper=True),
             lambda L, a: L.linalg.svd(a, full_matrices=False)[0] ** 2 * L.tensor(go),
             lambda L, a: L.linalg.svd(a, full_matrices=False)[2] ** 2 * 2, lambda L, a: L.linalg.inv(a),
             lambda L, a: L.linalg.det(a), lambda L, a: L.linalg.solve(a, L.tensor(go[..., 0]))]
    for call in calls:
        grads = []
        for L in (torch, nabla):
            a = L.tensor(s, requires_grad=True)
            call(L, a).sum().backward()
            grads.append(a.grad.numpy())
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-8, atol=1e-10)


def test_svd_full_matrices_vector_gradient_is_refused():
    a = leaf(np.arange(6.0).reshape(2, 3) + np.eye(2, 3))
    u, s, vh = LA.svd(a)
    with pytest.raises(NotImplementedError, match="full_matrices=True"):
        vh.sum().backward()
