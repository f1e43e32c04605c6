"""scatter_reduce (sum, prod, mean, amax, amin; include_self both ways), scatter's
reduce='add' / 'multiply', their in-place and out= forms and Tensor methods, against a
NumPy reference loop and PyTorch, over random shapes, every dim, strided operands,
duplicates, empty indices, NaN and integer dtypes; every error with its message; and
the gradients (gradcheck, gradgradcheck, and PyTorch's values at ties and zeros)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
from nabla.autograd import gradcheck, gradgradcheck

from test_shape import LAYOUTS, NP, make, rand, random_shape, values

REDUCTIONS = ["sum", "prod", "mean", "amax", "amin"]
DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int32, nabla.int64,
          nabla.uint8, nabla.bool]


def reference(x, dim, index, src, reduce, include_self):
    """PyTorch's scatter_reduce in NumPy float64 (integers: floor division for mean)."""
    out = x.astype(np.float64).copy()
    integral = not np.issubdtype(x.dtype, np.floating)
    dim %= max(x.ndim, 1)
    got = {}
    for pos in np.ndindex(*index.shape):
        place = list(pos)
        place[dim] = int(index[pos])
        got.setdefault(tuple(place), []).append(float(src[pos]))
    for place, vals in got.items():
        if include_self:
            vals = [float(out[place])] + vals
        if reduce == "sum":
            v = sum(vals)
        elif reduce == "prod":
            v = float(np.prod(vals))
        elif reduce == "mean":
            v = np.floor(sum(vals) / len(vals)) if integral else sum(vals) / len(vals)
        else:
            v = np.nan if any(np.isnan(vals)) else (max(vals) if reduce == "amax" else min(vals))
        out[place] = v
    return out


def random_case(rng, dtype, trial, layout="contiguous", small=False):
    ndim = int(rng.integers(1, 4))
    shape = random_shape(rng, ndim, 1, 5)
    dim = int(rng.integers(-ndim, ndim))
    ishape = [int(rng.integers(1, s + 1)) for s in shape]
    ishape[dim] = int(rng.integers(0 if trial % 6 == 0 else 1, 7))  # duplicates, or nothing at all
    sshape = [s + int(rng.integers(0, 2)) for s in ishape]  # src may be larger than index
    x, src = rand(rng, shape, dtype), rand(rng, sshape, dtype)
    if small or dtype in (nabla.int8, nabla.uint8, nabla.int32, nabla.int64):  # products stay inside the dtype
        lo = 0 if dtype in (nabla.uint8, nabla.bool) else 1
        x, src = (x % 3 - lo).astype(x.dtype), (src % 3 - lo).astype(src.dtype)
    index = rng.integers(0, shape[dim], ishape)
    return make(x, dtype, layout), dim, nabla.tensor(index), make(src, dtype, layout), x, index, src


@pytest.mark.parametrize("dtype, reduce", [(d, r) for d in DTYPES for r in REDUCTIONS
                                            if not (d is nabla.bool and r == "mean")])  # an error, as in PyTorch
@pytest.mark.parametrize("include_self", [True, False])
def test_matches_reference(dtype, reduce, include_self, rng):
    for trial in range(20):
        layout = LAYOUTS[trial % len(LAYOUTS)]
        x, dim, index, src, xa, ia, sa = random_case(rng, dtype, trial, layout, small=reduce == "prod")
        got = nabla.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
        want = reference(xa, dim, ia, sa, reduce, include_self)
        assert got.dtype is dtype and tuple(got.shape) == xa.shape
        if dtype is nabla.bool:
            want = want != 0
        elif not dtype.is_floating_point:
            info = np.iinfo(NP[dtype])
            if dtype is not nabla.int64:  # wraps as C does
                want = (want.astype(np.int64) - info.min) % (info.max - info.min + 1) + info.min
        tol = {nabla.float16: 2e-2, nabla.bfloat16: 5e-2}.get(dtype, 1e-6)
        np.testing.assert_allclose(values(got).astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_matches_pytorch(reduce, include_self, rng):
    torch = pytest.importorskip("torch")
    for trial in range(20):
        x, dim, index, src, xa, ia, sa = random_case(rng, nabla.float64, trial)
        if trial % 4 == 1:  # NaN in x and in src
            xa.flat[0], sa.flat[-1] = np.nan, np.nan
            x, src = nabla.tensor(xa), nabla.tensor(sa)
        got = nabla.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
        want = torch.scatter_reduce(torch.tensor(xa), dim, torch.tensor(ia), torch.tensor(sa), reduce,
                                    include_self=include_self)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, equal_nan=True)
    for reduce_int in ("mean", "sum", "amax"):  # integer mean rounds down
        xi, ii, si = np.array([5, -7, 0]), np.array([0, 0, 1, 1, 1]), np.array([-3, -4, 5, -8, 1])
        got = nabla.scatter_reduce(nabla.tensor(xi), 0, nabla.tensor(ii), nabla.tensor(si), reduce_int,
                                   include_self=include_self)
        want = torch.scatter_reduce(torch.tensor(xi), 0, torch.tensor(ii), torch.tensor(si), reduce_int,
                                    include_self=include_self)
        assert got.tolist() == want.tolist()


def test_forms_in_place_out_and_methods():
    x = nabla.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = nabla.tensor([[0, 1, 0], [0, 0, 1]])
    src = nabla.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    want = [[51.0, 52.0, 33.0], [4.0, 25.0, 66.0]]
    assert nabla.scatter_reduce(x, 0, index, src, "sum").tolist() == want
    assert x.scatter_reduce(0, index, src, "sum").tolist() == want
    out = nabla.empty(0)
    assert nabla.scatter_reduce(x, 0, index, src, "sum", out=out) is out and out.tolist() == want
    y = x.clone()
    v = y._version
    assert y.scatter_reduce_(0, index, src, "amax", include_self=False) is y and y._version > v
    assert y.tolist() == [[40.0, 50.0, 30.0], [4.0, 20.0, 60.0]]
    # scatter's reduce= (value and tensor forms, in place and not, out=)
    assert x.scatter(0, index, 2.0, reduce="multiply").tolist() == [[4.0, 4.0, 6.0], [4.0, 10.0, 12.0]]
    with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
        assert nabla.scatter(x, 0, index, src, reduce="add").tolist() == want
    z = x.clone()
    assert z.scatter_(0, index, 1.0, reduce="add") is z and z.tolist() == [[3.0, 3.0, 4.0], [4.0, 6.0, 7.0]]
    out = nabla.zeros(5)
    with pytest.warns(UserWarning, match="was resized"):
        nabla.scatter(x, 0, index, 1.0, reduce="add", out=out)
    assert out.tolist() == [[3.0, 3.0, 4.0], [4.0, 6.0, 7.0]]
    out = nabla.zeros(0, dtype=nabla.float64)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        nabla.scatter_add(x, 0, index, src, out=out)
    assert nabla.scatter_add(x, 0, index, src, out=nabla.empty(0)).tolist() == want
    assert nabla.index_add(x, 1, nabla.tensor([2, 2]), nabla.ones(2, 2), out=nabla.empty(0)).tolist() == \
        [[1.0, 2.0, 5.0], [4.0, 5.0, 8.0]]


def test_against_pytorch_forms():
    torch = pytest.importorskip("torch")
    for L in (torch, nabla):
        x = L.arange(6.0).reshape(2, 3)
        i = L.tensor([[1, 0, 1]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = (x.scatter(0, i, L.tensor([[2.0, 3.0, 4.0]]), reduce="multiply"), x.scatter(1, i, 5.0, reduce="add"))
        if L is torch:
            want = [t.tolist() for t in r]
        else:
            assert [t.tolist() for t in r] == want


def test_errors():
    x, i, s = nabla.zeros(2, 3), nabla.tensor([[0, 1, 1]]), nabla.ones(1, 3)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got add"):
        nabla.scatter_reduce(x, 0, i, s, "add")
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        x.scatter(0, i, s, reduce="sum")
    with pytest.raises(RuntimeError, match=r"scatter_reduce\(\): Expected self.dtype to be equal to src.dtype"):
        nabla.scatter_reduce(x, 0, i, s.double(), "sum")
    with pytest.raises(NotImplementedError, match="\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"):
        nabla.scatter_reduce(x.bool(), 0, i, s.bool(), "mean")
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        nabla.scatter_reduce(x, 0, nabla.tensor([[0, 5, 1]]), s, "amax")
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        nabla.scatter_reduce(x, 0, nabla.tensor([0]), s, "sum")
    before = x.clone()
    with pytest.raises(IndexError):  # a failed in-place op writes nothing
        x.scatter_reduce_(0, nabla.tensor([[1, 0, 7]]), s, "prod")
    assert x.tolist() == before.tolist()


# ---- gradients ----

def distinct(rng, shape):
    """float64 values far from each other (no ties, nothing near zero)."""
    n = int(np.prod(shape))
    v = (rng.permutation(n) + 1.0) * 0.37 * rng.choice([-1.0, 1.0], n)
    return nabla.tensor(v.reshape(shape), requires_grad=True)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_gradcheck(reduce, include_self, rng):
    for trial in range(4):
        shape = (3, 4) if trial < 3 else (4,)
        dim = trial % len(shape)
        ishape = list(shape)
        ishape[dim] = 5
        if trial == 1:
            ishape[1 - dim] -= 1  # index smaller than src
        index = nabla.tensor(rng.integers(0, shape[dim], ishape))
        x, src = distinct(rng, shape), distinct(rng, [s + (trial == 1) for s in ishape])

        def f(x, src):
            return nabla.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
        assert gradcheck(f, (x, src))
        if reduce in ("sum", "mean", "amax"):
            assert gradgradcheck(f, (x, src))


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("include_self", [True, False])
def test_gradients_match_pytorch_at_ties_and_zeros(reduce, include_self):
    torch = pytest.importorskip("torch")
    x = np.array([[2.0, 0.0, 3.0], [1.0, 5.0, 0.0]])
    src = np.array([[2.0, 1.0, 0.0], [2.0, 5.0, 4.0], [0.0, 0.5, 4.0]])
    index = np.array([[0, 1, 1], [0, 1, 1], [1, 1, 0]])
    go = np.arange(1.0, 7.0).reshape(2, 3)
    grads = []
    for L in (torch, nabla):
        a, s = L.tensor(x, requires_grad=True), L.tensor(src, requires_grad=True)
        y = L.scatter_reduce(a, 0, L.tensor(index), s, reduce, include_self=include_self)
        y.backward(L.tensor(go))
        grads.append((a.grad.numpy(), s.grad.numpy(), y.detach().numpy()))
        if L is nabla:
            assert type(y.grad_fn).__name__ == "ScatterReduceBackward0" or "ScatterReduce" in str(y.grad_fn)
    for want, got in zip(grads[0], grads[1]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_in_place_gradient_and_scatter_reduce_of_add():
    torch = pytest.importorskip("torch")
    out = []
    for L in (torch, nabla):
        w = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        s = L.tensor([[5.0, 1.0]], requires_grad=True)
        y = w * 1
        y.scatter_reduce_(0, L.tensor([[1, 0]]), s, "amax")
        (y * L.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        out.append((w.grad.tolist(), s.grad.tolist()))
    assert out[0] == out[1]
