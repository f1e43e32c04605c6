"""Gradients of the matrix products (matmul in every rank case, mm, bmm, mv, dot,
outer, addmm, baddbmm, linear): finite differences in float64 over random,
broadcast and non-contiguous operands, second derivatives, and a float32
comparison with PyTorch per op."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla.autograd import gradcheck, gradgradcheck


def leaf(rng, *shape):
    return nabla.tensor(rng.standard_normal(shape)).requires_grad_()


def t_(a):
    """a transposed in its last two dims, as a non-contiguous leaf."""
    return a.detach().transpose(-2, -1).requires_grad_()


# ---- matmul: every rank case ----

MATMUL_SHAPES = [
    ((4,), (4,)),                  # dot
    ((4,), (4, 3)),                # vector @ matrix
    ((3, 4), (4,)),                # matrix @ vector
    ((3, 4), (4, 2)),              # mm
    ((2, 3, 4), (4,)),             # batch @ vector
    ((4,), (2, 4, 3)),             # vector @ batch
    ((2, 3, 4), (4, 2)),           # batch @ matrix (the weight's gradient folds the batch)
    ((3, 4), (2, 4, 2)),           # matrix @ batch (the engine sums the broadcast batch)
    ((2, 1, 3, 4), (3, 4, 2)),     # broadcast batch dims on both sides
    ((1, 3, 4), (2, 4, 2)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_gradcheck_every_rank(rng, sa, sb):
    a, b = leaf(rng, *sa), leaf(rng, *sb)
    assert gradcheck(nabla.matmul, (a, b))
    assert gradgradcheck(nabla.matmul, (a, b))


def sum_to(g: np.ndarray, shape: tuple) -> np.ndarray:
    """g summed down to shape (NumPy broadcasting in reverse)."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape))))
    return g.sum(axis=tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True).reshape(shape)


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_matches_numpy(rng, sa, sb):
    """Random upstream gradients (ones would hide a wrong broadcast reduction)."""
    a, b = leaf(rng, *sa), leaf(rng, *sb)
    y = a @ b
    go = rng.standard_normal(tuple(y.shape))
    ga, gb = nabla.autograd.grad(y, [a, b], nabla.tensor(go))
    A, B = a.detach().numpy(), b.detach().numpy()
    A2 = A[None, :] if A.ndim == 1 else A  # a vector is one row / one column
    B2 = B[:, None] if B.ndim == 1 else B
    G = go[..., None] if B.ndim == 1 else go
    G = G[..., None, :] if A.ndim == 1 else G
    want_a = G @ np.swapaxes(B2, -1, -2)
    want_b = np.swapaxes(A2, -1, -2) @ G
    want_a = want_a[..., 0, :] if A.ndim == 1 else want_a
    want_b = want_b[..., 0] if B.ndim == 1 else want_b
    np.testing.assert_allclose(ga.numpy(), sum_to(want_a, A.shape), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gb.numpy(), sum_to(want_b, B.shape), rtol=1e-12, atol=1e-12)


def test_matmul_non_contiguous_operands(rng):
    a, b = leaf(rng, 4, 3), leaf(rng, 2, 4, 6)
    assert gradcheck(lambda a, b: a.t() @ b[..., ::2], (a, b))
    assert gradcheck(nabla.matmul, (t_(leaf(rng, 2, 4, 3)), t_(leaf(rng, 2, 5, 4))))
    assert gradgradcheck(lambda a, b: a.t() @ b[..., ::2], (a, b))


def test_matmul_operand_without_grad(rng):
    a = nabla.tensor(rng.standard_normal((2, 3, 4)))
    v = leaf(rng, 4)
    assert gradcheck(lambda v: a @ v, (v,))
    assert gradcheck(lambda a: a @ v.detach(), (a.detach().requires_grad_(),))


def test_matmul_node_names(rng):
    a, m, v = leaf(rng, 2, 3, 4), leaf(rng, 3, 4), leaf(rng, 4)
    assert (m @ m.t()).grad_fn.name() == "MmBackward0"
    assert (m @ v).grad_fn.name() == "MvBackward0"
    assert (v @ v).grad_fn.name() == "DotBackward0"
    assert (a @ m.t()).grad_fn.name() == "BmmBackward0"


def test_matmul_out_with_grad_is_refused(rng):
    a, b = leaf(rng, 2, 3), leaf(rng, 3, 2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        nabla.matmul(a, b, out=nabla.empty((2, 2), dtype=nabla.float64))


def test_empty_inner_dim_and_half_precision(rng):
    a, b = nabla.zeros((3, 0), requires_grad=True), nabla.zeros((0, 2), requires_grad=True)
    (a @ b).sum().backward()
    assert tuple(a.grad.shape) == (3, 0) and tuple(b.grad.shape) == (0, 2)
    x = nabla.tensor(rng.standard_normal((2, 3, 4))).to(nabla.float16).requires_grad_()
    w = nabla.tensor(rng.standard_normal((5, 4))).to(nabla.float16).requires_grad_()
    F.linear(x, w).sum().backward()
    assert x.grad.dtype == nabla.float16 and w.grad.dtype == nabla.float16
    want = np.broadcast_to(w.detach().float().numpy().sum(0), (2, 3, 4))
    np.testing.assert_allclose(x.grad.float().numpy(), want, rtol=2e-3, atol=2e-3)


def test_outer_out_with_grad_is_refused(rng):
    with pytest.raises(RuntimeError, match=r"outer\(\): functions with out=..."):
        nabla.outer(leaf(rng, 2), leaf(rng, 3), out=nabla.empty((2, 3), dtype=nabla.float64))


def test_matmul_saved_operand_modified_in_place(rng):
    a, b = leaf(rng, 2, 3), leaf(rng, 3, 2)
    a2 = a * 1
    y = a2 @ b
    a2.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---- mm, bmm, mv, dot, outer ----

def test_mm_bmm_mv_dot_outer(rng):
    cases = [
        (nabla.mm, ((3, 4), (4, 2))),
        (nabla.bmm, ((2, 3, 4), (2, 4, 2))),
        (nabla.mv, ((3, 4), (4,))),
        (nabla.dot, ((4,), (4,))),
        (nabla.outer, ((4,), (3,))),
    ]
    for fn, shapes in cases:
        args = tuple(leaf(rng, *s) for s in shapes)
        assert gradcheck(fn, args), fn.__name__
        assert gradgradcheck(fn, args), fn.__name__


def test_products_on_transposed_views(rng):
    assert gradcheck(lambda a, b: nabla.mm(a.t(), b.t()), (leaf(rng, 4, 3), leaf(rng, 2, 4)))
    assert gradcheck(lambda a, b: nabla.bmm(a.transpose(1, 2), b), (leaf(rng, 2, 4, 3), leaf(rng, 2, 4, 2)))
    assert gradcheck(lambda a, v: nabla.mv(a.t(), v[::2]), (leaf(rng, 4, 3), leaf(rng, 8)))
    assert gradcheck(lambda a, b: nabla.dot(a[::2], b[1::2]), (leaf(rng, 7), leaf(rng, 8)))


def test_product_node_names(rng):
    a, b = leaf(rng, 3, 3), leaf(rng, 3)
    assert nabla.mm(a, a).grad_fn.name() == "MmBackward0"
    assert nabla.mv(a, b).grad_fn.name() == "MvBackward0"
    assert nabla.dot(b, b).grad_fn.name() == "DotBackward0"
    assert nabla.outer(b, b).grad_fn.name() == "MulBackward0"  # as in PyTorch: a broadcast product


# ---- addmm, baddbmm ----

@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, 2.0), (0.0, -1.5)])
@pytest.mark.parametrize("ishape", [(3, 2), (2,), (1, 1), ()])
def test_addmm(rng, beta, alpha, ishape):
    args = (leaf(rng, *ishape), leaf(rng, 3, 4), leaf(rng, 4, 2))
    fn = lambda i, a, b: nabla.addmm(i, a, b, beta=beta, alpha=alpha)  # noqa: E731
    assert gradcheck(fn, args)
    if ishape == (2,):
        assert gradgradcheck(fn, args)


@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, 2.0)])
@pytest.mark.parametrize("ishape", [(2, 3, 2), (3, 1), (2,)])
def test_baddbmm(rng, beta, alpha, ishape):
    args = (leaf(rng, *ishape), leaf(rng, 2, 3, 4), leaf(rng, 2, 4, 2))
    fn = lambda i, a, b: nabla.baddbmm(i, a, b, beta=beta, alpha=alpha)  # noqa: E731
    assert gradcheck(fn, args)
    if ishape == (3, 1):
        assert gradgradcheck(fn, args)


def test_addmm_in_place_on_a_non_leaf(rng):
    def f(i, a, b):
        y = i * 1
        return y.addmm_(a, b, beta=0.5, alpha=2.0)
    assert gradcheck(f, (leaf(rng, 3, 2), leaf(rng, 3, 4), leaf(rng, 4, 2)))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf(rng, 3, 2).addmm_(leaf(rng, 3, 4), leaf(rng, 4, 2))


# ---- linear ----

LINEAR_SHAPES = [
    ((5, 4), (3, 4), (3,)),        # the MLP case
    ((2, 5, 4), (3, 4), (3,)),     # batch dims fold into one GEMM for the weight
    ((4,), (3, 4), (3,)),          # one sample
    ((5, 4), (3, 4), None),
    ((5, 4), (4,), ()),            # a vector weight
    ((2, 5, 4), (4,), None),
    ((4,), (4,), None),
    ((5, 4), (3, 4), (1,)),        # a broadcast bias
]


@pytest.mark.parametrize("sx,sw,sb", LINEAR_SHAPES)
def test_linear(rng, sx, sw, sb):
    args = (leaf(rng, *sx), leaf(rng, *sw)) + ((leaf(rng, *sb),) if sb is not None else ())
    assert gradcheck(F.linear, args)
    assert gradgradcheck(F.linear, args)


def test_linear_non_contiguous_and_partial_grads(rng):
    x, w, b = leaf(rng, 4, 5), leaf(rng, 4, 3), leaf(rng, 3)
    assert gradcheck(lambda x, w, b: F.linear(x.t(), w.t(), b), (x, w, b))
    xs = nabla.tensor(rng.standard_normal((2, 5, 4)))
    assert gradcheck(lambda w, b: F.linear(xs[:, ::2], w, b), (leaf(rng, 3, 4), b))
    assert gradcheck(lambda x: F.linear(x, w.detach().t()), (leaf(rng, 2, 5, 4),))


def test_linear_weight_grad_is_dense(rng):
    """The weight's gradient comes out of one GEMM in the weight's own layout: .grad takes it as is."""
    x, w, b = leaf(rng, 8, 4), leaf(rng, 3, 4), leaf(rng, 3)
    F.relu(F.linear(x, w, b)).sum().backward()
    assert w.grad.is_contiguous() and tuple(w.grad.shape) == (3, 4)
    assert tuple(b.grad.shape) == (3,)


# ---- against PyTorch (float32) ----

def _torch_grads(torch, fn_n, fn_t, arrays, rng, kwargs_n=None, kwargs_t=None):
    ns = [nabla.tensor(a).requires_grad_() for a in arrays]
    ts = [torch.tensor(a).requires_grad_() for a in arrays]
    yn, yt = fn_n(*ns), fn_t(*ts)
    go = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
    gn = nabla.autograd.grad(yn, ns, nabla.tensor(go))
    gt = torch.autograd.grad(yt, ts, torch.tensor(go))
    for a, b in zip(gn, gt):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


def test_against_torch(rng):
    torch = pytest.importorskip("torch")
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    cases = [
        (nabla.matmul, torch.matmul, (f32(2, 1, 3, 4), f32(3, 4, 5))),
        (nabla.matmul, torch.matmul, (f32(4), f32(2, 4, 3))),
        (nabla.matmul, torch.matmul, (f32(2, 3, 4), f32(4))),
        (nabla.mm, torch.mm, (f32(3, 4), f32(4, 5))),
        (nabla.bmm, torch.bmm, (f32(2, 3, 4), f32(2, 4, 5))),
        (nabla.mv, torch.mv, (f32(3, 4), f32(4))),
        (nabla.dot, torch.dot, (f32(4), f32(4))),
        (nabla.outer, torch.outer, (f32(4), f32(3))),
        (lambda i, a, b: nabla.addmm(i, a, b, beta=0.5, alpha=2.0),
         lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0), (f32(5), f32(3, 4), f32(4, 5))),
        (lambda i, a, b: nabla.baddbmm(i, a, b, beta=0.5, alpha=2.0),
         lambda i, a, b: torch.baddbmm(i, a, b, beta=0.5, alpha=2.0), (f32(3, 1), f32(2, 3, 4), f32(2, 4, 5))),
        (F.linear, torch.nn.functional.linear, (f32(2, 6, 4), f32(3, 4), f32(3))),
        (F.linear, torch.nn.functional.linear, (f32(6, 4), f32(4))),
    ]
    for fn_n, fn_t, arrays in cases:
        _torch_grads(torch, fn_n, fn_t, arrays, rng)


def test_mlp_against_torch(rng):
    """A 3-layer MLP (linear + relu, batch 32): every parameter's .grad as PyTorch's."""
    torch = pytest.importorskip("torch")
    dims = (20, 16, 16, 4)
    x = rng.standard_normal((32, dims[0])).astype(np.float32)
    params = [(rng.standard_normal((dims[i + 1], dims[i])).astype(np.float32) * 0.3,
               rng.standard_normal(dims[i + 1]).astype(np.float32)) for i in range(3)]

    def run(lib, fn, ps, xin):
        h = xin
        for i, (w, b) in enumerate(ps):
            h = fn.linear(h, w, b)
            h = fn.relu(h) if i < 2 else h
        return (h * h).sum()

    pn = [(nabla.tensor(w).requires_grad_(), nabla.tensor(b).requires_grad_()) for w, b in params]
    pt = [(torch.tensor(w).requires_grad_(), torch.tensor(b).requires_grad_()) for w, b in params]
    for _ in range(2):  # the second pass accumulates into .grad
        run(nabla, F, pn, nabla.tensor(x)).backward()
        run(torch, torch.nn.functional, pt, torch.tensor(x)).backward()
    for (wn, bn), (wt, bt) in zip(pn, pt):
        np.testing.assert_allclose(wn.grad.numpy(), wt.grad.numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(bn.grad.numpy(), bt.grad.numpy(), rtol=1e-4, atol=1e-4)
