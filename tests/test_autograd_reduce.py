"""Gradients of the reductions, scans and softmax: gradcheck (float64 central
differences) over random inputs in contiguous, transposed and sliced layouts
and the attribute variants (dims, keepdim, correction, p); gradgradcheck where
the backward is itself differentiable; ties, zeros, NaN, 0-dim and empty cases
checked by hand; in-place and out= forms; and float32 gradients against
PyTorch."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
from nabla._reduce import _prod_any
from nabla.autograd import gradcheck, gradgradcheck

LAYOUTS = ["contiguous", "transposed", "sliced"]


def distinct(shape, seed=0, low=0.5, high=1.5) -> np.ndarray:
    """Values with random signs, |v| in [low, high), all distinct (no ties, no zeros)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    mags = np.sort(rng.uniform(low, high, n))
    mags += np.arange(n) * 1e-3  # strictly increasing
    return (rng.permutation(mags) * rng.choice([-1.0, 1.0], n)).reshape(shape)


def leaf(a, layout: str = "contiguous") -> nabla.Tensor:
    """A float64 leaf that requires grad holding a's values, in the given memory layout."""
    a = np.asarray(a, dtype=np.float64)
    if layout == "transposed" and a.ndim >= 2:
        t = nabla.tensor(np.ascontiguousarray(a.transpose())).permute(*reversed(range(a.ndim)))
        assert not t.is_contiguous() or sum(n > 1 for n in a.shape) < 2
    elif layout == "sliced" and a.ndim >= 1:
        t = nabla.tensor(np.repeat(a, 2, axis=-1))[..., ::2]
        assert not t.is_contiguous() or a.shape[-1] <= 1
    else:
        t = nabla.tensor(a)
    return t.detach().requires_grad_()


# (name, fn, shape, twice): twice = also gradgradcheck
CASES = [
    ("prod_all", lambda x: x.prod(), (2, 3), True),
    ("prod_dim", lambda x: x.prod(1), (2, 3), True),
    ("prod_keepdim", lambda x: x.prod(-1, keepdim=True), (2, 3, 2), True),
    ("prod_dims", lambda x: _prod_any(x, (0, 2)), (2, 3, 2), True),
    ("amax", lambda x: x.amax((0, 2)), (2, 3, 2), True),
    ("amax_keepdim", lambda x: x.amax(1, keepdim=True), (2, 3), True),
    ("amin_all", lambda x: x.amin(), (2, 3), True),
    ("max_all", lambda x: x.max(), (2, 3), True),
    ("min_all", lambda x: x.min(), (2, 3), True),
    ("max_dim", lambda x: x.max(1).values, (2, 3), True),
    ("max_dim_keepdim", lambda x: x.max(0, keepdim=True).values, (2, 3, 2), True),
    ("min_dim", lambda x: x.min(-1).values, (2, 3), True),
    ("var", lambda x: x.var(1), (2, 3), True),
    ("var_all", lambda x: x.var(), (2, 3), True),
    ("var_pop_keepdim", lambda x: x.var((0, 2), correction=0, keepdim=True), (2, 3, 2), True),
    ("var_correction2", lambda x: x.var(0, correction=2), (4, 2), True),
    ("std", lambda x: x.std(1), (2, 3), True),
    ("std_all_keepdim", lambda x: x.std((0, 1), keepdim=True), (2, 3), True),
    ("norm_fro", lambda x: x.norm(), (2, 3), True),
    ("norm2_dim", lambda x: x.norm(2, dim=1, keepdim=True), (2, 3), True),
    ("norm1", lambda x: x.norm(1, dim=0), (2, 3), True),
    ("norm_inf", lambda x: x.norm(math.inf, dim=1), (2, 3), True),
    ("norm_ninf", lambda x: x.norm(-math.inf), (2, 3), True),
    ("norm3", lambda x: x.norm(3, dim=(0, 2)), (2, 3, 2), True),
    ("norm1.5", lambda x: x.norm(1.5, dim=1), (2, 3), True),
    ("norm0.5", lambda x: x.norm(0.5), (2, 3), True),
    ("norm0", lambda x: x.norm(0, dim=1), (2, 3), False),
    ("logsumexp", lambda x: x.logsumexp(1), (2, 3), True),
    ("logsumexp_all", lambda x: x.logsumexp((0, 1), keepdim=True), (2, 3), True),
    ("logsumexp_two_of_three", lambda x: x.logsumexp((0, 2)), (2, 3, 2), True),
    ("logsumexp_1d", lambda x: x.logsumexp(()), (4,), True),
    ("cumsum0", lambda x: x.cumsum(0), (3, 2), True),
    ("cumsum_last", lambda x: x.cumsum(-1), (2, 3), True),
    ("cumprod", lambda x: x.cumprod(1), (2, 3), True),
    ("cumprod_neg", lambda x: x.cumprod(-2), (3, 2), True),
    ("softmax", lambda x: x.softmax(1), (2, 3), True),
    ("softmax0", lambda x: nabla.softmax(x, 0), (2, 3, 2), True),
    ("log_softmax", lambda x: x.log_softmax(-1), (2, 3), True),
    ("log_softmax0", lambda x: nabla.log_softmax(x, 0), (3, 2), True),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,shape,twice", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, shape, twice, layout):
    x = leaf(distinct(shape, seed=len(name)), layout)
    assert gradcheck(fn, (x,))
    if twice and layout == "contiguous":
        assert gradgradcheck(fn, (x,))


def test_gradient_of_reduction_of_broadcast_input():
    """A broadcast (expanded) input: the engine sums the gradient back to the input's shape."""
    x = leaf(distinct((3, 1)))
    assert gradcheck(lambda t: t.expand(3, 4).softmax(1).amax(0), (x,))
    assert gradcheck(lambda t: (t + leaf(distinct((1, 4), seed=1))).prod(0), (x,))


# ---- ties, zeros, NaN ----

def grad_of(fn, a, go=None):
    x = nabla.tensor(np.asarray(a, dtype=np.float64)).requires_grad_()
    y = fn(x)
    y.backward(nabla.ones(y.shape, dtype=y.dtype) if go is None else go)
    return x.grad.numpy()


def test_amax_splits_ties_evenly():
    a = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    np.testing.assert_allclose(grad_of(lambda x: x.amax(1), a), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(grad_of(lambda x: x.max(), a), [[0, 0.5, 0.5], [0, 0, 0]])
    np.testing.assert_allclose(grad_of(lambda x: x.amin(), a), [[1, 0, 0], [0, 0, 0]])


def test_max_dim_gives_the_gradient_to_the_returned_index():
    a = [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]
    x = nabla.tensor(a, dtype=nabla.float64).requires_grad_()
    v, i = x.max(1)
    assert i.tolist() == [1, 0]
    v.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(grad_of(lambda t: t.min(0).values, a), [[1, 0, 0], [0, 1, 1]])


def test_amax_with_nan_sends_the_gradient_to_the_nans():
    g = grad_of(lambda x: x.amax(1), [[1.0, math.nan, 5.0], [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(g, [[0, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("a", [[[1.0, 0.0, 2.0, 3.0], [0.0, 2.0, 0.0, 4.0], [1.5, 2.0, 3.0, 0.5]],
                               [[0.0, 0.0, 0.0, 2.0], [3.0, 0.0, 0.5, 0.0], [0.0, 1.0, 1.0, 1.0]]],
                         ids=["one_zero", "several_zeros"])
def test_prod_and_cumprod_with_zeros(a):
    x = leaf(a)
    for fn in (lambda t: t.prod(), lambda t: t.prod(1), lambda t: t.prod(0, keepdim=True),
               lambda t: _prod_any(t.reshape(3, 2, 2), (0, 2))):
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))
    for fn in (lambda t: t.cumprod(1), lambda t: t.cumprod(0)):
        assert gradcheck(fn, (x,))


def test_zero_norm_and_constant_std_have_zero_gradients():
    for fn in (lambda x: x.norm(), lambda x: x.norm(3), lambda x: x.norm(1.5), lambda x: x.std()):
        g = grad_of(fn, np.zeros((2, 3)))
        np.testing.assert_array_equal(g, np.zeros((2, 3)))
    np.testing.assert_array_equal(grad_of(lambda x: x.std(1), np.full((2, 3), 4.0)), np.zeros((2, 3)))


def test_norm_inf_splits_ties_and_keeps_signs():
    g = grad_of(lambda x: x.norm(math.inf), [[-2.0, 1.0], [2.0, 0.5]])
    np.testing.assert_allclose(g, [[-0.5, 0], [0.5, 0]])


def test_var_with_too_few_elements_follows_pytorch():
    """N - correction <= 0: the forward divides by zero, the gradient by the same dof (inf/nan)."""
    g = grad_of(lambda x: x.var(), [[1.0, 2.0]])
    np.testing.assert_allclose(g, [[-1.0, 1.0]])  # dof 1: 2 / 1 * (x - mean)
    g = grad_of(lambda x: x.var(0), [[1.0, 2.0]])  # dof 0: inf * 0
    assert np.isnan(g).all()


# ---- 0-dim, empty, in place, out= ----

def test_zero_dim_and_empty_inputs():
    s = nabla.tensor(1.5, dtype=nabla.float64).requires_grad_()
    for fn in (lambda t: t.softmax(0), lambda t: t.log_softmax(-1), lambda t: t.cumsum(0), lambda t: t.cumprod(0),
               lambda t: t.max(0).values, lambda t: t.prod(), lambda t: t.amax(), lambda t: t.logsumexp(0)):
        assert gradcheck(fn, (s,))
    e = nabla.zeros((2, 0), dtype=nabla.float64).requires_grad_()
    y = e.prod(1)
    assert y.tolist() == [1.0, 1.0]
    y.sum().backward()
    assert tuple(e.grad.shape) == (2, 0)
    e.grad = None
    e.cumsum(1).sum().backward()
    assert tuple(e.grad.shape) == (2, 0)


def test_inplace_scan_and_out_with_grad():
    x = leaf(distinct((2, 3)))

    def f(t):
        y = t * 2
        y.cumsum_(1)
        return y
    assert gradcheck(f, (x,))
    y = x * 1
    nabla.softmax(y, 1, out=y)
    assert y.grad_fn.name() == "SoftmaxBackward0"
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        nabla.cumsum(x, 0, out=nabla.zeros((2, 3), dtype=nabla.float64))
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        nabla.max(x, 1, out=(nabla.zeros(2, dtype=nabla.float64), nabla.zeros(2, dtype=nabla.int64)))
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.cumsum_(0)


def test_saved_tensor_modified_in_place_is_detected():
    x = leaf(distinct((2, 3)))
    y = x * 1
    z = y.prod(1)
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_node_names():
    x = leaf(distinct((2, 3)))
    names = {
        "ProdBackward1": x.prod(1), "AmaxBackward0": x.amax(1), "AminBackward0": x.amin(1),
        "MaxBackward0": x.max(1).values, "MinBackward0": x.min(1).values, "VarBackward0": x.var(1),
        "StdBackward0": x.std(1), "NormBackward1": x.norm(dim=1), "LogsumexpBackward0": x.logsumexp(1),
        "CumsumBackward0": x.cumsum(1), "CumprodBackward0": x.cumprod(1), "SoftmaxBackward0": x.softmax(1),
        "LogSoftmaxBackward0": x.log_softmax(1),
    }
    for name, t in names.items():
        assert t.grad_fn.name() == name
    assert x.max(1).indices.grad_fn is None and not x.max(1).indices.requires_grad


# ---- against PyTorch (float32) ----

TORCH_CASES = [
    ("prod", lambda m, x: m.prod(x, 1)),
    ("prod_all", lambda m, x: m.prod(x)),
    ("amax", lambda m, x: m.amax(x, (0, 2))),
    ("amin", lambda m, x: m.amin(x, 1, keepdim=True)),
    ("max_dim", lambda m, x: m.max(x, 2).values),
    ("min_dim", lambda m, x: m.min(x, 0, keepdim=True).values),
    ("max_all", lambda m, x: m.max(x)),
    ("var", lambda m, x: m.var(x, 1)),
    ("var_pop", lambda m, x: m.var(x, (0, 2), correction=0)),
    ("std", lambda m, x: m.std(x, 2, keepdim=True)),
    ("norm", lambda m, x: m.norm(x, dim=1)),
    ("norm1", lambda m, x: m.norm(x, 1, dim=(0, 1))),
    ("norm_inf", lambda m, x: m.norm(x, math.inf, dim=2)),
    ("norm3", lambda m, x: m.norm(x, 3)),
    ("norm0.5", lambda m, x: m.norm(x, 0.5, dim=0)),
    ("logsumexp", lambda m, x: m.logsumexp(x, 1)),
    ("cumsum", lambda m, x: m.cumsum(x, 1)),
    ("cumprod", lambda m, x: m.cumprod(x, 2)),
    ("softmax", lambda m, x: m.softmax(x, 2)),
    ("log_softmax", lambda m, x: m.log_softmax(x, 0)),
]


@pytest.mark.parametrize("name,fn", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_against_torch(name, fn):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a = distinct((3, 4, 5), seed=3).astype(np.float32)
    if name.startswith("prod") or name == "cumprod":
        a[0, 1, 2] = 0.0  # the zero-aware paths
    x, tx = nabla.tensor(a).requires_grad_(), torch.tensor(a, requires_grad=True)
    y, ty = fn(nabla, x), fn(torch, tx)
    go = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
    y.backward(nabla.tensor(go))
    ty.backward(torch.tensor(go))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


# ---- the fused backward kernels of softmax / log_softmax ----

@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16])
@pytest.mark.parametrize("shape,dim", [((3, 37), 1), ((4, 5, 300), 1), ((2, 3, 4), 0), ((5,), 0), ((), 0),
                                       ((3, 0), 1)])
def test_fused_backward_kernels_against_numpy(shape, dim, dtype):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape)
    g = rng.standard_normal(shape)
    tol = {nabla.float64: 1e-12, nabla.float32: 2e-5, nabla.float16: 4e-3, nabla.bfloat16: 3e-2}[dtype]
    for log, fused in ((False, nabla._softmax_backward_data), (True, nabla._log_softmax_backward_data)):
        xt = nabla.tensor(x, dtype=dtype)
        y = (nabla.log_softmax if log else nabla.softmax)(xt, dim)
        gt = nabla.tensor(g, dtype=dtype)
        got = fused(gt, y, dim, dtype)
        assert got.dtype is dtype and tuple(got.shape) == shape
        yv, gv = y.double().numpy(), gt.double().numpy()
        if log:
            want = gv - np.exp(yv) * gv.sum(axis=dim if shape else None, keepdims=True)
        else:
            want = yv * (gv - (gv * yv).sum(axis=dim if shape else None, keepdims=True))
        np.testing.assert_allclose(got.double().numpy(), want, rtol=tol, atol=tol)


def test_fused_backward_kernels_take_strided_inputs_and_check_arguments():
    torch = pytest.importorskip("torch")
    a = distinct((6, 4), seed=5).astype(np.float32)
    g = distinct((4, 6), seed=6).astype(np.float32)
    y = nabla.softmax(nabla.tensor(a), 0)
    got = nabla._softmax_backward_data(nabla.tensor(g).t(), y, 0, nabla.float32)
    want = torch._softmax_backward_data(torch.tensor(g).t(), torch.softmax(torch.tensor(a), 0), 0, torch.float32)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    ly = nabla.log_softmax(nabla.tensor(a), 1)
    got = nabla._log_softmax_backward_data(nabla.tensor(g).t()[:, ::2], ly[:, ::2], 1, nabla.float32)
    want = torch._log_softmax_backward_data(torch.tensor(g).t()[:, ::2], torch.log_softmax(torch.tensor(a), 1)[:, ::2],
                                            1, torch.float32)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match=r"softmax_backward: grad_output has shape \[6, 3\] but output has shape"):
        nabla._softmax_backward_data(nabla.zeros(6, 3), y, 0, nabla.float32)
    with pytest.raises(RuntimeError, match="softmax_backward: expected grad_output and output of one floating dtype"):
        nabla._softmax_backward_data(nabla.zeros(6, 4, dtype=nabla.float64), y, 0, nabla.float32)
    with pytest.raises(IndexError, match="log_softmax_backward"):
        nabla._log_softmax_backward_data(ly, ly, 2, nabla.float32)


def test_fused_backward_kernels_differentiate_in_both_inputs():
    x = leaf(distinct((2, 4)))
    g = leaf(distinct((2, 4), seed=2))
    assert gradcheck(lambda t, u: nabla._softmax_backward_data(u, t.softmax(1), 1, nabla.float64), (x, g))
    assert gradcheck(lambda t, u: nabla._log_softmax_backward_data(u, t.log_softmax(0), 0, nabla.float64), (x, g))
    assert gradgradcheck(lambda t: t.softmax(1), (x,))  # third order through the backward's formula
    assert gradgradcheck(lambda t, u: nabla._log_softmax_backward_data(u, t.log_softmax(1), 1, nabla.float64),
                         (x, g))
