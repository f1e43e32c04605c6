"""igamma / igammac (torch.special.gammainc / gammaincc): float64 accuracy against mpmath, values
against torch over dtypes and broadcast, strided, empty and 0-dim operands, SciPy's edges, the
gradient in x (first and second order) against torch, a's gradient refused as in torch, the
calling forms (torch.*, special.*, Tensor methods, in place, out=), and Gamma / Chi2 cdf."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
mpmath = pytest.importorskip("mpmath")

# torch computes float32 in float32 and uses a float32 pi in Temme's expansion (~1e-9 relative in
# float64); nabla computes in double with the exact constant, so torch is the reference to 1e-8 and
# float64 accuracy is checked against mpmath.
RTOL = {"float32": 1e-6, "float64": 1e-8}
OPS = ["igamma", "igammac"]


def _mp(op, a, x):
    lo, hi = (x, mpmath.inf) if op == "igammac" else (0, x)
    return float(mpmath.gammainc(a, lo, hi, regularized=True))


def _pair(dtype, shape_a, shape_x, seed=0):
    r = np.random.default_rng(seed)
    return r.uniform(0.1, 40.0, shape_a), r.uniform(0.01, 60.0, shape_x)


def _both(a, x, dtype):
    n = (nabla.tensor(a, dtype=getattr(nabla, dtype)), nabla.tensor(x, dtype=getattr(nabla, dtype)))
    t = (torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(x, dtype=getattr(torch, dtype)))
    return n, t


@pytest.mark.parametrize("op", OPS)
def test_float64_accuracy_against_mpmath(op):
    """Series, continued fraction, small-x series and Temme's expansion (a up to 1e5 near x)."""
    a = np.array([0.5, 1.0, 2.5, 10.0, 25.0, 30.0, 150.0, 250.0, 1000.0, 1e5, 0.01, 3.0])
    x = np.array([0.3, 1e-5, 2.5, 11.0, 27.0, 20.0, 140.0, 260.0, 1010.0, 1.003e5, 0.7, 0.9])
    got = getattr(nabla, op)(nabla.tensor(a, dtype=nabla.float64), nabla.tensor(x, dtype=nabla.float64)).numpy()
    want = np.array([_mp(op, ai, xi) for ai, xi in zip(a, x)])
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("op", OPS)
def test_float64_accuracy_on_a_random_grid(op):
    r = np.random.default_rng(11)
    a, x = np.exp(r.uniform(-3, 7, 150)), np.exp(r.uniform(-4, 7, 150))
    got = getattr(nabla, op)(nabla.tensor(a, dtype=nabla.float64), nabla.tensor(x, dtype=nabla.float64)).numpy()
    want = np.array([_mp(op, ai, xi) for ai, xi in zip(a, x)])
    keep = want > 1e-290  # below that the result is subnormal or 0
    np.testing.assert_allclose(got[keep], want[keep], rtol=5e-13)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 3, 1), (4,)), ((), (5,)), ((0, 3), (3,)), ((), ())])
def test_matches_torch(op, dtype, shapes):
    a, x = _pair(dtype, *shapes)
    (na, nx), (ta, tx) = _both(a, x, dtype)
    got, want = getattr(nabla, op)(na, nx), getattr(torch, op)(ta.double(), tx.double())
    assert tuple(got.shape) == tuple(want.shape) and str(got.dtype).split(".")[-1] == dtype
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=RTOL[dtype], atol=1e-30)


@pytest.mark.parametrize("op", OPS)
def test_strided_and_expanded_operands(op):
    a, x = _pair("float64", (6, 8), (8, 6), seed=3)
    (na, nx), (ta, tx) = _both(a, x, "float64")
    got = getattr(nabla, op)(na[::2, 1::2], nx.t()[::2, 1::2])
    want = getattr(torch, op)(ta[::2, 1::2], tx.t()[::2, 1::2])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-8)
    got = getattr(nabla, op)(na[:1].expand(6, 8), nx.t())
    np.testing.assert_allclose(got.numpy(), getattr(torch, op)(ta[:1].expand(6, 8), tx.t()).numpy(), rtol=1e-8)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_computes_in_double(dtype):
    a, x = _pair(dtype, (16,), (16,), seed=5)
    (na, nx), (ta, tx) = _both(a, x, dtype)
    got = nabla.igamma(na, nx).float().numpy()
    exact = np.array([_mp("igamma", float(ai), float(xi)) for ai, xi in zip(na.float().numpy(), nx.float().numpy())])
    tol = 4e-3 if dtype == "float16" else 8e-3
    np.testing.assert_allclose(got, exact, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", OPS)
def test_edges_as_torch(op):
    a = [-1.0, 1.0, 0.0, 0.0, 2.0, np.inf, np.inf, 3.0, np.nan, 2.0]
    x = [1.0, -1.0, 0.0, 2.0, 0.0, 1.0, np.inf, np.inf, 1.0, np.nan]
    (na, nx), (ta, tx) = _both(a, x, "float64")
    np.testing.assert_array_equal(getattr(nabla, op)(na, nx).numpy(), getattr(torch, op)(ta, tx).numpy())


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_in_x_matches_torch(op, dtype):
    a, x = _pair(dtype, (3, 1), (4,), seed=7)
    (na, nx), (ta, tx) = _both(a, x, dtype)
    nx.requires_grad_()
    tx.requires_grad_()
    g = np.random.default_rng(1).standard_normal((3, 4))
    ng, = nabla.autograd.grad((getattr(nabla, op)(na, nx) * nabla.tensor(g, dtype=na.dtype)).sum(), nx,
                              create_graph=True)
    tg, = torch.autograd.grad((getattr(torch, op)(ta, tx) * torch.tensor(g, dtype=ta.dtype)).sum(), tx,
                              create_graph=True)
    np.testing.assert_allclose(ng.detach().numpy(), tg.detach().numpy(), rtol=RTOL[dtype] * 10, atol=1e-30)
    ngg, = nabla.autograd.grad(ng.sum(), nx)
    tgg, = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(ngg.numpy(), tgg.numpy(), rtol=RTOL[dtype] * 10, atol=1e-30)


def test_gradient_against_finite_differences():
    a = nabla.tensor([0.7, 3.0, 40.0], dtype=nabla.float64)
    x = nabla.tensor([0.4, 2.0, 38.0], dtype=nabla.float64, requires_grad=True)
    g, = nabla.autograd.grad(nabla.special.gammaincc(a, x).sum(), x)
    h = 1e-6
    fd = (nabla.igammac(a, x.detach() + h) - nabla.igammac(a, x.detach() - h)) / (2 * h)
    np.testing.assert_allclose(g.numpy(), fd.numpy(), rtol=1e-7)


@pytest.mark.parametrize("op", OPS)
def test_gradient_in_a_is_refused_as_in_torch(op):
    a = nabla.tensor([2.0, 3.0], requires_grad=True)
    y = getattr(nabla, op)(a, nabla.tensor([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match=f"derivative for '{op}: input' is not implemented"):
        y.sum().backward()


def test_calling_forms():
    a, x = nabla.tensor([2.0, 3.0]), nabla.tensor([1.0, 4.0])
    ref = nabla.igamma(a, x)
    np.testing.assert_array_equal(nabla.special.gammainc(a, x).numpy(), ref.numpy())
    np.testing.assert_array_equal(a.igamma(x).numpy(), ref.numpy())
    np.testing.assert_allclose(nabla.special.gammaincc(a, x).numpy(), 1 - ref.numpy(), rtol=1e-6)
    out = nabla.empty(2)
    assert nabla.igammac(a, x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), a.igammac(x).numpy())
    b = a.clone()
    assert b.igamma_(x) is b
    np.testing.assert_array_equal(b.numpy(), ref.numpy())
    b = a.clone()
    b.igammac_(x)
    np.testing.assert_array_equal(b.numpy(), nabla.igammac(a, x).numpy())


def test_errors_name_the_op():
    with pytest.raises(RuntimeError, match="igamma: not implemented for 'int64'"):
        nabla.igamma(nabla.tensor([1, 2]), nabla.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="igammac"):
        nabla.igammac(nabla.ones(2, 3), nabla.ones(4))


@pytest.mark.parametrize("name,params", [("Gamma", ([0.5, 2.0, 30.0], [1.5, 0.3, 2.0])), ("Chi2", ([1.0, 3.0, 40.0],))])
def test_gamma_and_chi2_cdf_match_torch(name, params):
    value = np.array([0.2, 4.0, 18.0])
    ours = getattr(nabla.distributions, name)(*[nabla.tensor(p, dtype=nabla.float64) for p in params])
    theirs = getattr(torch.distributions, name)(*[torch.tensor(p, dtype=torch.float64) for p in params])
    v = nabla.tensor(value, dtype=nabla.float64, requires_grad=True)
    tv = torch.tensor(value, dtype=torch.float64, requires_grad=True)
    got, want = ours.cdf(v), theirs.cdf(tv)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-8)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-11)
    with pytest.raises(ValueError):
        getattr(nabla.distributions, name)(*[nabla.tensor(p) for p in params], validate_args=True).cdf(
            nabla.tensor([-1.0, 1.0, 1.0]))
