"""nabla's special-function compositions (lgamma, digamma, erfinv, xlogy, logit, ...) and
nabla.special against torch / torch.special: values in float64 and float32, gradients,
the reflection branch below 1/2, and the edges (0, negative integers, +-1 for erfinv)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

X = np.array([1e-3, 0.1, 0.5, 0.9, 1.0, 1.5, 2.0, 6.5, 30.0, 1e4, -0.3, -1.5, -7.25])
POS = X[X > 0]


@pytest.mark.parametrize("name", ["lgamma", "digamma"])
@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-9), ("float32", 2e-5)])
def test_gamma_functions_match_torch(name, dtype, rtol):
    a = X.astype(dtype)
    ours = getattr(nabla, name)(nabla.tensor(a)).numpy()
    theirs = getattr(torch, name)(torch.tensor(a)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(getattr(nabla.tensor(a), name)().numpy(), theirs, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name,grad", [("lgamma", "digamma"), ("digamma", "trigamma")])
def test_gamma_function_gradients_match_torch(name, grad):
    x = nabla.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    getattr(nabla, name)(x).sum().backward()
    getattr(torch, name)(t).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


def test_gamma_edges_match_torch():
    edges = np.array([0.0, -1.0, -2.0, np.inf])
    for name in ("lgamma", "digamma"):
        ours = getattr(nabla, name)(nabla.tensor(edges)).numpy()
        theirs = getattr(torch, name)(torch.tensor(edges)).numpy()
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        finite = ~np.isnan(theirs)
        np.testing.assert_array_equal(ours[finite], theirs[finite])


@pytest.mark.parametrize("dtype,atol", [("float64", 1e-12), ("float32", 2e-6)])
def test_erfinv_matches_torch_with_its_gradient(dtype, atol):
    y = np.array([-1.0, -0.999, -0.5, 0.0, 0.2, 0.7, 0.99999, 1.0, 1.5]).astype(dtype)
    ours, theirs = nabla.erfinv(nabla.tensor(y)).numpy(), torch.erfinv(torch.tensor(y)).numpy()
    np.testing.assert_allclose(ours, theirs, atol=atol, rtol=atol)
    inner = y[1:-2].astype(np.float64)
    a, b = nabla.tensor(inner, requires_grad=True), torch.tensor(inner, requires_grad=True)
    nabla.erfinv(a).sum().backward()
    torch.erfinv(b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9)


@pytest.mark.parametrize("name,args", [
    ("xlogy", (np.array([0.0, 1.0, 2.0, 0.0]), np.array([0.0, 3.0, 0.5, np.nan]))),
    ("logit", (np.array([0.1, 0.5, 0.9]),)),
    ("logaddexp", (np.array([1.0, -1000.0, 1000.0]), np.array([2.0, -1000.0, 3.0]))),
    ("logaddexp2", (np.array([1.0, -100.0]), np.array([2.0, -100.0]))),
    ("sinc", (np.array([0.0, 0.5, 2.3]),)),
])
def test_elementwise_compositions_match_torch(name, args):
    ours = getattr(nabla, name)(*[nabla.tensor(a) for a in args]).numpy()
    theirs = getattr(torch, name)(*[torch.tensor(a) for a in args]).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_mvlgamma_and_polygamma_match_torch():
    x = np.array([2.5, 4.0])
    np.testing.assert_allclose(nabla.mvlgamma(nabla.tensor(x), 3).numpy(), torch.mvlgamma(torch.tensor(x), 3).numpy(),
                               rtol=1e-10)
    with pytest.raises(RuntimeError, match="All elements must be greater than"):
        nabla.mvlgamma(nabla.tensor([0.5]), 3)
    np.testing.assert_allclose(nabla.polygamma(1, nabla.tensor(POS)).numpy(),
                               torch.polygamma(1, torch.tensor(POS)).numpy(), rtol=1e-7)
    with pytest.raises(NotImplementedError, match="order 2"):
        nabla.polygamma(2, nabla.tensor(POS))


@pytest.mark.parametrize("name,arg", [("gammaln", POS), ("psi", POS), ("expit", X), ("ndtr", X),
                                      ("ndtri", np.array([0.01, 0.5, 0.97])), ("log_ndtr", np.array([-3.0, 0.0, 2.0])),
                                      ("entr", np.array([-1.0, 0.0, 0.5, 2.0])), ("erfinv", np.array([-0.5, 0.3])),
                                      ("xlog1py", np.array([0.0, 2.0])), ("multigammaln", None)])
def test_special_namespace_matches_torch_special(name, arg):
    if name == "multigammaln":
        ours = nabla.special.multigammaln(nabla.tensor([3.0], dtype=nabla.float64), 2).numpy()
        theirs = torch.special.multigammaln(torch.tensor([3.0], dtype=torch.float64), 2).numpy()
    elif name == "xlog1py":
        ours = nabla.special.xlog1py(nabla.tensor(arg), nabla.tensor([-1.0, 0.5], dtype=nabla.float64)).numpy()
        theirs = torch.special.xlog1py(torch.tensor(arg), torch.tensor([-1.0, 0.5], dtype=torch.float64)).numpy()
    else:
        ours = getattr(nabla.special, name)(nabla.tensor(arg)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(arg)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
