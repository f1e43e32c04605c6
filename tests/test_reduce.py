"""Reductions, scans and softmax: differential tests against NumPy in float64
over 0-3D shapes (empty ones included), every dim / keepdim combination and
contiguous, transposed and sliced inputs; result dtypes; NaN / inf; empty
reductions; out=; errors; accuracy; determinism across thread counts; and,
when PyTorch is installed, result dtypes and values against torch."""
from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import nabla
from conftest import NP_OF

FLOATS = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16]
INTS = [nabla.int8, nabla.int16, nabla.int32, nabla.int64, nabla.uint8]
# relative tolerance per dtype: results are rounded once into the dtype
RTOL = {nabla.float64: 1e-12, nabla.float32: 1e-5, nabla.float16: 2e-3, nabla.bfloat16: 1.6e-2}
SHAPES = [(), (1,), (7,), (0,), (3, 4), (1, 6), (5, 1), (4, 0), (0, 3), (2, 3, 4), (3, 1, 5), (2, 0, 3), (4, 3, 2)]
LAYOUTS = ["contiguous", "transposed", "sliced"]


# ---- helpers ----

def values(t) -> np.ndarray:
    """t's values as a NumPy array (bfloat16 through float32, which holds it exactly)."""
    return (t.float() if t.dtype is nabla.bfloat16 else t).numpy()


def make(a: np.ndarray, dtype, layout: str = "contiguous"):
    """A nabla tensor of dtype holding a's values (rounded to dtype) in the given memory layout,
    and those values as float64 (or the int/bool array) for the reference."""
    if dtype is nabla.bfloat16:
        base = nabla.tensor(a.astype(np.float32)).to(nabla.bfloat16)
    else:
        base = nabla.tensor(a.astype(NP_OF[dtype]))
    exact = values(base)
    ref = exact.astype(np.float64) if dtype.is_floating_point else exact
    if layout == "contiguous" or a.ndim == 0:
        return base, ref
    if layout == "transposed":  # same values, reversed memory order
        rev = tuple(range(a.ndim - 1, -1, -1))
        t = base.permute(rev).contiguous().permute(rev)
        assert a.ndim < 2 or a.size == 0 or not t.is_contiguous() or max(a.shape) == a.size
        return t, ref
    # sliced: every other element of a twice-as-large tensor
    big = nabla.zeros(*[2 * s for s in a.shape], dtype=dtype)
    view = big[tuple(slice(None, None, 2) for _ in a.shape)]
    view.copy_(base)
    return view, ref


def dim_choices(ndim: int):
    """None, every single dim (and its negative form), and every tuple of two or more dims."""
    out = [None]
    if ndim == 0:
        return out + [0, -1]
    out += list(range(ndim)) + [-1]
    for r in range(2, ndim + 1):
        out += list(itertools.combinations(range(ndim), r))
    if ndim >= 2:
        out.append((-1, 0))
    return out


def np_axis(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(d % ndim for d in dim) if ndim else None


def reduced_count(shape, dim) -> int:
    ax = np_axis(dim, len(shape))
    if ax is None:
        return int(np.prod(shape))
    return int(np.prod([shape[d] for d in ax]))


def check_close(got, ref, dtype, scale=None):
    """got (a nabla tensor) matches ref (float64) to dtype's tolerance, NaN where ref is NaN."""
    g = values(got).astype(np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    rtol = RTOL[dtype]
    atol = rtol * (scale if scale is not None else 1.0)
    np.testing.assert_allclose(g, ref, rtol=rtol, atol=atol, equal_nan=True)


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return f(*args, **kwargs)


def np_logsumexp(a, axis, keepdims):
    m = np.max(a, axis=axis, keepdims=True) if a.size else np.full([1] * a.ndim, -np.inf)
    if a.size == 0:
        m = np.full(np.sum(a, axis=axis, keepdims=True).shape, -np.inf)
    m0 = np.where(np.isfinite(m), m, 0.0)
    s = np.sum(np.exp(a - m0), axis=axis, keepdims=True)
    r = np.log(s) + m0
    return r if keepdims else np.squeeze(r, axis=axis) if axis is not None else r.reshape(())


def np_norm(a, p, axis, keepdims):
    x = np.abs(a)
    if p == 0:
        return np.sum(x != 0, axis=axis, keepdims=keepdims).astype(np.float64)
    if p == math.inf:
        return np.max(x, axis=axis, keepdims=keepdims)
    if p == -math.inf:
        return np.min(x, axis=axis, keepdims=keepdims)
    return np.sum(x ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


REFS = {
    "sum": lambda a, ax, k: np.sum(a, axis=ax, keepdims=k),
    "mean": lambda a, ax, k: np.mean(a, axis=ax, keepdims=k),
    "prod": lambda a, ax, k: np.prod(a, axis=ax, keepdims=k),
    "amax": lambda a, ax, k: np.max(a, axis=ax, keepdims=k),
    "amin": lambda a, ax, k: np.min(a, axis=ax, keepdims=k),
    "var": lambda a, ax, k: np.var(a, axis=ax, keepdims=k, ddof=1),
    "std": lambda a, ax, k: np.std(a, axis=ax, keepdims=k, ddof=1),
    "logsumexp": np_logsumexp,
}


def sample(rng, shape, op):
    if op == "prod":  # products of many factors stay in range
        return rng.uniform(0.7, 1.4, shape) * rng.choice([-1.0, 1.0], shape)
    return rng.standard_normal(shape) * 3


# ---- floating point reductions over every dim / keepdim combination ----

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", list(REFS))
def test_float_reductions_match_numpy(op, dtype, layout, rng):
    fn = getattr(nabla, op)
    for shape in SHAPES:
        a = sample(rng, shape, op)
        t, ref_in = make(a, dtype, layout)
        for dim in dim_choices(len(shape)):
            if op == "prod" and isinstance(dim, tuple):
                continue  # torch.prod takes one int dim
            for keepdim in (False, True):
                n = reduced_count(shape, dim)
                ax = np_axis(dim, len(shape))
                if op in ("amax", "amin") and n == 0:
                    with pytest.raises((RuntimeError, IndexError), match=op):
                        fn(t, dim if dim is not None else (), keepdim=keepdim)
                    continue
                if op == "prod" and dim is None:
                    if keepdim:
                        continue
                    r = fn(t)
                elif op in ("amax", "amin", "logsumexp"):
                    r = fn(t, () if dim is None else dim, keepdim=keepdim)
                else:
                    r = fn(t, dim, keepdim=keepdim)
                ref = quiet(REFS[op], ref_in, ax, keepdim)
                assert r.dtype is dtype, (op, dtype, r.dtype)
                assert tuple(r.shape) == np.shape(ref), (op, shape, dim, keepdim, r.shape, np.shape(ref))
                scale = float(np.max(np.abs(ref_in), initial=1.0)) * max(n, 1) if op in ("sum", "mean") else None
                if op == "mean":
                    scale /= max(n, 1)
                check_close(r, ref, dtype, scale)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("p", [2, 1, math.inf, -math.inf, 0, 3, 0.5, -1.5, "fro"])
def test_norm_matches_numpy(p, dtype, layout, rng):
    for shape in SHAPES:
        a = rng.standard_normal(shape)
        a[np.abs(a) < 0.05] = 0.0  # some exact zeros for p = 0 and negative p
        a = a + 0.1 * np.sign(a) if p not in (0,) and isinstance(p, (int, float)) and p < 0 else a
        t, ref_in = make(a, dtype, layout)
        q = 2.0 if p == "fro" else float(p)
        for dim in dim_choices(len(shape)):
            for keepdim in (False, True):
                n = reduced_count(shape, dim)
                if n == 0 and (q < 0 or q == math.inf):
                    with pytest.raises(RuntimeError, match="norm"):
                        nabla.norm(t, p, dim, keepdim)
                    continue
                r = nabla.norm(t, p, dim, keepdim)
                ref = quiet(np_norm, ref_in, q, np_axis(dim, len(shape)), keepdim)
                assert r.dtype is dtype
                assert tuple(r.shape) == np.shape(ref)
                check_close(r, ref, dtype)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [nabla.bool], ids=str)
def test_all_any_match_numpy(dtype, layout, rng):
    for shape in SHAPES:
        a = rng.integers(0, 3, shape) * (rng.random(shape) < 0.8)  # mostly non-zero, some zeros
        if dtype is nabla.bool:
            a = a != 0
        t, ref_in = make(a, dtype, layout)
        for dim in dim_choices(len(shape)):
            for keepdim in (False, True):
                ax = np_axis(dim, len(shape))
                for op in ("all", "any"):
                    r = getattr(nabla, op)(t, dim, keepdim)
                    ref = getattr(np, op)(ref_in != 0, axis=ax, keepdims=keepdim)
                    assert r.dtype is (nabla.uint8 if dtype is nabla.uint8 else nabla.bool)
                    np.testing.assert_array_equal(r.numpy().astype(bool), ref)
                    assert tuple(r.shape) == ref.shape


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", INTS + [nabla.bool], ids=str)
def test_integer_reductions_are_exact(dtype, layout, rng):
    for shape in SHAPES:
        lo, hi = (0, 2) if dtype is nabla.bool else (0, 100) if dtype is nabla.uint8 else (-50, 50)
        a = rng.integers(lo, hi, shape)
        if dtype is nabla.bool:
            a = a.astype(bool)
        t, ref_in = make(a, dtype, layout)
        wide = ref_in.astype(np.int64)
        for dim in dim_choices(len(shape)):
            ax = np_axis(dim, len(shape))
            for keepdim in (False, True):
                r = nabla.sum(t, dim, keepdim)
                assert r.dtype is nabla.int64
                np.testing.assert_array_equal(r.numpy(), np.sum(wide, axis=ax, keepdims=keepdim))
                if dim is None or isinstance(dim, int):
                    if not (dim is None and keepdim):
                        r = nabla.prod(t, dim, keepdim) if dim is not None else nabla.prod(t)
                        ref = np.prod(np.clip(wide, -2, 2) if False else wide, axis=ax,
                                      keepdims=keepdim and dim is not None)
                        assert r.dtype is nabla.int64
                        np.testing.assert_array_equal(r.numpy(), ref)  # int64 wraps alike
                if reduced_count(shape, dim) == 0:
                    continue
                for op, ref_fn in (("amax", np.max), ("amin", np.min)):
                    r = getattr(nabla, op)(t, () if dim is None else dim, keepdim)
                    assert r.dtype is dtype
                    np.testing.assert_array_equal(r.numpy(), ref_fn(ref_in, axis=ax, keepdims=keepdim))


def test_integer_sum_wraps_and_prod_wraps_like_int64():
    big = np.array([2 ** 62, 2 ** 62, 2 ** 62], dtype=np.int64)
    assert nabla.tensor(big).sum().item() == int(np.sum(big))  # wraps modulo 2^64
    f = np.array([3] * 50, dtype=np.int64)
    assert nabla.tensor(f).prod().item() == int(np.prod(f))


# ---- result dtypes and the dtype argument ----

@pytest.mark.parametrize("dtype", FLOATS + INTS + [nabla.bool], ids=str)
def test_default_result_dtypes(dtype):
    t = nabla.ones(2, 3, dtype=dtype)
    is_float = dtype.is_floating_point
    assert nabla.sum(t).dtype is (dtype if is_float else nabla.int64)
    assert nabla.prod(t).dtype is (dtype if is_float else nabla.int64)
    assert nabla.cumsum(t, 1).dtype is (dtype if is_float else nabla.int64)
    assert nabla.cumprod(t, 0).dtype is (dtype if is_float else nabla.int64)
    assert nabla.amax(t).dtype is dtype and nabla.amin(t, 0).dtype is dtype
    assert nabla.max(t, 1).values.dtype is dtype and nabla.max(t, 1).indices.dtype is nabla.int64
    assert nabla.all(t).dtype is (nabla.uint8 if dtype is nabla.uint8 else nabla.bool)
    assert nabla.logsumexp(t, 1).dtype is (dtype if is_float else nabla.float32)
    if dtype is not nabla.bool:
        assert nabla.argmax(t).dtype is nabla.int64 and nabla.argmin(t, 0).dtype is nabla.int64
    if is_float:
        for op in (nabla.mean, nabla.var, nabla.std, nabla.norm):
            assert op(t).dtype is dtype
        assert nabla.softmax(t, 1).dtype is dtype and nabla.log_softmax(t, 0).dtype is dtype
    else:
        for op in (nabla.mean, nabla.var, nabla.std, nabla.norm):
            with pytest.raises(RuntimeError):
                op(t)
        with pytest.raises(RuntimeError, match="softmax"):
            nabla.softmax(t, 1)


def test_dtype_argument_casts_first(rng):
    a = rng.integers(-20, 20, (4, 5))
    t = nabla.tensor(a.astype(np.int32))
    r = nabla.sum(t, 1, dtype=nabla.float64)
    assert r.dtype is nabla.float64
    np.testing.assert_array_equal(r.numpy(), a.sum(1).astype(np.float64))
    assert nabla.sum(t, dtype=nabla.int16).dtype is nabla.int16
    assert nabla.sum(t, dtype=nabla.int8).item() == np.int8(np.sum(a).astype(np.int8))
    r = nabla.mean(t, 0, dtype=nabla.float32)
    assert r.dtype is nabla.float32
    np.testing.assert_allclose(r.numpy(), a.mean(0), rtol=1e-6)
    with pytest.raises(RuntimeError, match="mean"):
        nabla.mean(t, 0, dtype=nabla.int64)
    x = nabla.tensor(rng.standard_normal((3, 4)))
    assert nabla.sum(x, dtype=nabla.float32).dtype is nabla.float32
    assert nabla.sum(x.float(), dtype=nabla.float16).dtype is nabla.float16
    np.testing.assert_array_equal(nabla.sum(nabla.tensor([1.7, 2.9, -1.2]), dtype=nabla.int64).item(), 2)
    assert nabla.cumsum(t, 1, dtype=nabla.float32).dtype is nabla.float32
    assert nabla.cumprod(x, 0, dtype=nabla.float32).dtype is nabla.float32
    s = nabla.softmax(t, 1, dtype=nabla.float64)
    assert s.dtype is nabla.float64
    np.testing.assert_allclose(s.numpy(), np_softmax(a.astype(np.float64), 1), rtol=1e-12)
    assert nabla.norm(x.float(), dtype=nabla.float64).dtype is nabla.float64
    assert nabla.sum(nabla.tensor([True, True, False]), dtype=nabla.bool).dtype is nabla.bool


# ---- max / min / argmax / argmin ----

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [nabla.bool], ids=str)
def test_max_min_dim_and_arg_match_numpy(dtype, layout, rng):
    for shape in SHAPES:
        if dtype.is_floating_point:
            a = np.round(rng.standard_normal(shape) * 2)  # ties on purpose: the first index wins
        elif dtype is nabla.bool:
            a = rng.integers(0, 2, shape).astype(bool)
        else:
            a = rng.integers(0, 5, shape)
        t, ref_in = make(a, dtype, layout)
        nd = len(shape)
        for dim in ([None] + list(range(nd)) + ([-1] if nd else [0, -1])):
            for keepdim in (False, True):
                ax = None if dim is None else dim % max(nd, 1)
                n = ref_in.size if dim is None else (shape[ax] if nd else 1)
                flat = ref_in.reshape(-1) if dim is None else ref_in
                if n == 0:
                    if dim is not None:
                        with pytest.raises((RuntimeError, IndexError), match="max"):
                            nabla.max(t, dim, keepdim)
                    if dtype is not nabla.bool:
                        with pytest.raises((RuntimeError, IndexError), match="argmin"):
                            nabla.argmin(t, dim, keepdim)
                    continue
                npax = None if dim is None else (ax if nd else None)
                for name, vfn, ifn in (("max", np.max, np.argmax), ("min", np.min, np.argmin)):
                    if dim is not None:
                        r = getattr(nabla, name)(t, dim, keepdim)
                        v, i = r
                        assert r.values is v and r.indices is i
                        ref_v = vfn(ref_in, axis=npax, keepdims=keepdim)
                        ref_i = ifn(ref_in, axis=npax, keepdims=keepdim) if nd else np.array(0)
                        assert i.dtype is nabla.int64 and v.dtype is dtype
                        np.testing.assert_array_equal(values(v), ref_v)
                        np.testing.assert_array_equal(i.numpy(), ref_i)
                    if dtype is nabla.bool:
                        continue
                    r = getattr(nabla, "arg" + name)(t, dim, keepdim)
                    ref_i = ifn(flat, axis=npax if dim is not None else None)
                    if keepdim:
                        ref_i = np.reshape(ref_i, [1] * nd) if dim is None else np.expand_dims(ref_i, npax) \
                            if nd else ref_i
                    np.testing.assert_array_equal(r.numpy(), ref_i)
                    assert r.dtype is nabla.int64


def test_max_overloads():
    x = nabla.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]])
    assert nabla.max(x).item() == 7.0 and x.max().item() == 7.0 and x.min().item() == 1.0
    r = nabla.max(x, 1)
    assert type(r) is nabla.return_types.max and r._fields == ("values", "indices")
    assert r.values.tolist() == [5.0, 7.0] and r.indices.tolist() == [1, 0]
    values_, indices = x.max(dim=1, keepdim=True)
    assert values_.shape == (2, 1) and indices.tolist() == [[1], [0]]
    r = x.min(0)
    assert type(r) is nabla.return_types.min and r.values.tolist() == [1.0, 2.0, 3.0]
    y = nabla.tensor([4.0, 4.0, 4.0])
    assert nabla.max(x, y).tolist() == [[4.0, 5.0, 4.0], [7.0, 4.0, 7.0]]
    assert x.min(y).tolist() == [[1.0, 4.0, 3.0], [4.0, 2.0, 4.0]]
    assert nabla.max(x, other=y).shape == (2, 3)
    with pytest.raises(RuntimeError, match="max"):
        nabla.max(nabla.zeros(0))
    with pytest.raises(RuntimeError, match="min"):
        nabla.zeros(2, 0).min()


def test_nan_propagates_and_wins_argmax():
    nan = float("nan")
    a = np.array([[1.0, nan, 3.0, nan], [2.0, 5.0, -1.0, 0.0], [-np.inf, -np.inf, -np.inf, -np.inf]])
    for dtype in FLOATS:
        t = nabla.tensor(a).to(dtype)
        assert values(nabla.amax(t, 1)).tolist()[1:] == [5.0, -np.inf] and math.isnan(values(nabla.amax(t, 1))[0])
        assert math.isnan(nabla.amax(t).item()) and math.isnan(nabla.amin(t).item())
        assert math.isnan(nabla.amin(t, 1)[0].item())
        assert nabla.argmax(t, 1).tolist() == [1, 1, 0] and nabla.argmin(t, 1).tolist() == [1, 2, 0]
        assert nabla.argmax(t).item() == 1 and nabla.argmin(t).item() == 1
        v, i = nabla.max(t, 0)
        assert i.tolist() == [1, 0, 0, 0] and math.isnan(v[0].item()) is False and math.isnan(v[1].item())
        assert math.isnan(nabla.sum(t).item()) and math.isnan(nabla.mean(t, 1)[0].item())
        assert nabla.sum(t, 1)[1].item() == 6.0
        assert math.isnan(nabla.logsumexp(t, 1)[0].item())
        assert nabla.logsumexp(t, 1)[2].item() == -math.inf
        assert math.isnan(nabla.norm(t, math.inf, 1)[0].item()) and math.isnan(nabla.norm(t, 2, 1)[0].item())
        assert nabla.all(t, 1).tolist() == [True, False, True] and nabla.any(t).item() is True
        s = nabla.softmax(t, 1)
        assert np.isnan(values(s)[0]).all() and np.isnan(values(s)[2]).all()
        assert np.isclose(values(s)[1].sum(), 1.0, rtol=RTOL[dtype] * 4)
    big = nabla.zeros(70000)
    big[12345] = nan
    big[60000] = nan
    assert nabla.argmax(big).item() == 12345 and nabla.argmin(big).item() == 12345
    assert math.isnan(nabla.amax(big).item()) and math.isnan(nabla.max(big, 0).values.item())


def test_infinities():
    inf = math.inf
    t = nabla.tensor([[inf, 1.0], [-inf, -inf], [inf, -inf], [-inf, 2.0]])
    assert nabla.logsumexp(t, 1).tolist() == [inf, -inf, inf, 2.0]
    assert nabla.sum(t, 1).tolist()[0] == inf and math.isnan(nabla.sum(t, 1).tolist()[2])
    assert nabla.amax(t, 1).tolist() == [inf, -inf, inf, 2.0] and nabla.amin(t, 1).tolist() == [1.0, -inf, -inf, -inf]
    assert nabla.argmax(t, 1).tolist() == [0, 0, 0, 1]
    assert nabla.norm(t, inf, 1).tolist() == [inf, inf, inf, inf]
    s = nabla.softmax(t, 1).numpy()
    assert s[3].tolist() == [0.0, 1.0] and np.isnan(s[0]).all() and np.isnan(s[1]).all()
    ls = nabla.log_softmax(t, 1).numpy()
    assert ls[3].tolist() == [-inf, 0.0]


# ---- empty and 0-dim tensors ----

def test_empty_reductions_follow_pytorch():
    e = nabla.zeros(0)
    assert nabla.sum(e).item() == 0.0 and nabla.prod(e).item() == 1.0
    assert math.isnan(nabla.mean(e).item()) and math.isnan(nabla.var(e).item()) and math.isnan(nabla.std(e).item())
    assert nabla.logsumexp(e, 0).item() == -math.inf
    assert nabla.all(e).item() is True and nabla.any(e).item() is False
    assert nabla.norm(e).item() == 0.0 and nabla.norm(e, 1).item() == 0.0 and nabla.norm(e, 0).item() == 0.0
    for p in (math.inf, -math.inf, -1):
        with pytest.raises(RuntimeError, match="norm"):
            nabla.norm(e, p)
    with pytest.raises(RuntimeError, match="amax"):
        nabla.amax(e)
    with pytest.raises(IndexError, match=r"amin.*dim 1"):
        nabla.amin(nabla.zeros(2, 0), 1)
    with pytest.raises(RuntimeError, match="argmax"):
        nabla.argmax(e)
    m = nabla.zeros(3, 0)
    assert nabla.sum(m, 1).tolist() == [0.0, 0.0, 0.0] and nabla.sum(m, 0).shape == (0,)
    assert nabla.amax(m, 0).shape == (0,) and nabla.argmax(m, 0).shape == (0,)
    assert nabla.prod(m, 1, keepdim=True).tolist() == [[1.0], [1.0], [1.0]]
    assert nabla.sum(nabla.zeros(0, dtype=nabla.int32)).dtype is nabla.int64
    assert nabla.cumsum(m, 1).shape == (3, 0) and nabla.softmax(m, 0).shape == (3, 0)
    assert nabla.max(m, 0).values.shape == (0,)


def test_zero_dim_tensors():
    s = nabla.tensor(2.5)
    for op in (nabla.sum, nabla.mean, nabla.prod, nabla.amax, nabla.amin):
        assert op(s).item() == 2.5 and op(s).shape == ()
        assert op(s, 0).item() == 2.5 and op(s, -1, True).shape == ()
    assert nabla.max(s, 0).values.item() == 2.5 and nabla.max(s, 0).indices.item() == 0
    assert nabla.argmax(s).item() == 0 and nabla.argmax(s, 0, keepdim=True).shape == ()
    assert math.isnan(nabla.var(s).item()) and nabla.var(s, correction=0).item() == 0.0
    assert nabla.cumsum(s, 0).item() == 2.5 and nabla.cumprod(s, -1).shape == ()
    assert nabla.softmax(s, 0).item() == 1.0 and nabla.log_softmax(s, 0).item() == 0.0
    assert nabla.logsumexp(s, 0).item() == 2.5 and nabla.norm(s).item() == 2.5
    with pytest.raises(IndexError, match="sum"):
        nabla.sum(s, 1)
    with pytest.raises(RuntimeError, match="multiple times"):
        nabla.sum(s, (0, -1))


# ---- var / std arguments ----

def test_var_std_corrections(rng):
    a = rng.standard_normal((5, 6)) + 1000.0  # far from zero: no cancellation allowed
    t = nabla.tensor(a)
    for c in (0, 1, 2, 0.5):
        np.testing.assert_allclose(nabla.var(t, 1, correction=c).numpy(), np.var(a, 1, ddof=c), rtol=1e-10)
        np.testing.assert_allclose(nabla.std(t, correction=c).item(), np.std(a, ddof=c), rtol=1e-10)
    np.testing.assert_allclose(nabla.var(t, unbiased=False).item(), np.var(a), rtol=1e-10)
    np.testing.assert_allclose(nabla.var(t, False).item(), np.var(a), rtol=1e-10)
    np.testing.assert_allclose(nabla.std(t, 0, True, True).numpy(), np.std(a, 0, ddof=1, keepdims=True), rtol=1e-10)
    np.testing.assert_allclose(t.var(1, keepdim=True).numpy(), np.var(a, 1, ddof=1, keepdims=True), rtol=1e-10)
    assert nabla.var(nabla.tensor([1.0, 2.0, 4.0]), correction=5).item() == math.inf
    assert math.isnan(nabla.var(nabla.tensor([1.0])).item())
    with pytest.raises(RuntimeError, match="both"):
        nabla.var(t, unbiased=True, correction=1)
    f = nabla.tensor((rng.standard_normal(100000) + 1e4).astype(np.float32))
    ref = np.var(f.numpy().astype(np.float64), ddof=1)
    np.testing.assert_allclose(nabla.var(f).item(), ref, rtol=1e-6)
    np.testing.assert_allclose(nabla.var(f.view(1000, 100), 0).numpy(),
                               np.var(f.numpy().astype(np.float64).reshape(1000, 100), 0, ddof=1), rtol=1e-5)


# ---- cumsum / cumprod ----

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS + INTS + [nabla.bool], ids=str)
def test_cumsum_cumprod_match_numpy(dtype, layout, rng):
    for shape in SHAPES:
        if dtype.is_floating_point:
            a = rng.uniform(0.8, 1.25, shape) * rng.choice([-1, 1], shape)
        elif dtype is nabla.bool:
            a = rng.integers(0, 2, shape).astype(bool)
        else:
            a = rng.integers(0, 4, shape) * rng.choice([-1, 1] if dtype is not nabla.uint8 else [1], shape)
        t, ref_in = make(a, dtype, layout)
        nd = len(shape)
        for dim in (list(range(nd)) + [-1]) if nd else [0, -1]:
            for name, ref_fn in (("cumsum", np.cumsum), ("cumprod", np.cumprod)):
                r = getattr(nabla, name)(t, dim)
                ref = ref_fn(ref_in.astype(np.float64 if dtype.is_floating_point else np.int64),
                             axis=dim if nd else None).reshape(shape)
                assert tuple(r.shape) == shape
                if dtype.is_floating_point:
                    assert r.dtype is dtype
                    check_close(r, ref, dtype, scale=float(np.max(np.abs(ref), initial=1.0)))
                else:
                    assert r.dtype is nabla.int64
                    np.testing.assert_array_equal(r.numpy(), ref)


def test_cumsum_inplace_and_out(rng):
    a = rng.integers(0, 10, (3, 5)).astype(np.int32)
    t = nabla.tensor(a)
    v0 = t._version
    assert t.cumsum_(1) is t and t.dtype is nabla.int32 and t._version > v0
    np.testing.assert_array_equal(t.numpy(), np.cumsum(a, 1))
    x = nabla.tensor(rng.standard_normal((4, 3)))
    out = nabla.empty(4, 3, dtype=nabla.float64)
    assert nabla.cumprod(x, 0, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.cumprod(x.numpy(), 0), rtol=1e-12)
    out32 = nabla.empty(4, 3, dtype=nabla.float32)
    nabla.cumsum(x, 1, out=out32)  # out's dtype is the dtype, as PyTorch
    np.testing.assert_allclose(out32.numpy(), np.cumsum(x.numpy(), 1), rtol=1e-6)
    big = nabla.tensor(rng.standard_normal((300, 300)).astype(np.float32))
    np.testing.assert_allclose(big.cumsum(0).numpy(), np.cumsum(big.numpy().astype(np.float64), 0), rtol=1e-4,
                               atol=1e-4)


# ---- softmax / log_softmax ----

def np_softmax(a, dim):
    m = np.max(a, axis=dim, keepdims=True)
    e = np.exp(a - m)
    return e / np.sum(e, axis=dim, keepdims=True)


def np_log_softmax(a, dim):
    m = np.max(a, axis=dim, keepdims=True)
    return (a - m) - np.log(np.sum(np.exp(a - m), axis=dim, keepdims=True))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_softmax_matches_numpy(dtype, layout, rng):
    for shape in SHAPES + [(3, 300), (70, 33), (2, 17, 40)]:
        a = rng.standard_normal(shape) * 4
        t, ref_in = make(a, dtype, layout)
        nd = len(shape)
        for dim in (list(range(nd)) + [-1]) if nd else [0, -1]:
            s = nabla.softmax(t, dim)
            ls = t.log_softmax(dim)
            assert s.dtype is dtype and ls.dtype is dtype and tuple(s.shape) == shape
            if nd == 0:
                assert values(s) == 1.0 and values(ls) == 0.0
                continue
            if a.size == 0:
                continue
            check_close(s, np_softmax(ref_in, dim), dtype, scale=1.0)
            check_close(ls, np_log_softmax(ref_in, dim), dtype, scale=float(np.max(np.abs(ref_in), initial=1.0)))


def test_softmax_extremes_and_out(rng):
    a = np.array([[1000.0, 999.0, -1000.0], [-1e30, 0.0, 1e-30]], dtype=np.float32)
    s = nabla.softmax(nabla.tensor(a), 1).numpy()
    np.testing.assert_allclose(s, np_softmax(a.astype(np.float64), 1), rtol=1e-6, atol=1e-30)
    assert s[0, 2] == 0.0
    ls = nabla.log_softmax(nabla.tensor(a), 1).numpy()
    np.testing.assert_allclose(ls, np_log_softmax(a.astype(np.float64), 1), rtol=1e-6)
    x = nabla.tensor(rng.standard_normal((4, 40)).astype(np.float32))
    out = nabla.empty(4, 40)
    assert nabla.softmax(x, 1, out=out) is out
    np.testing.assert_allclose(out.numpy(), np_softmax(x.numpy().astype(np.float64), 1), rtol=1e-5)
    y = x.clone()
    nabla.log_softmax(y, 0, out=y)  # in place
    np.testing.assert_allclose(y.numpy(), np_log_softmax(x.numpy().astype(np.float64), 0), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="dim"):
        nabla.softmax(x, None)
    with pytest.raises(TypeError):
        x.softmax(None)


# ---- out= ----

def test_out_arguments(rng):
    a = rng.standard_normal((3, 4))
    x = nabla.tensor(a)
    out = nabla.empty(4, dtype=nabla.float64)
    v0 = out._version
    assert nabla.sum(x, 0, out=out) is out and out._version > v0
    np.testing.assert_allclose(out.numpy(), a.sum(0), rtol=1e-12)
    out32 = nabla.empty(3)  # sum takes out's dtype when dtype is not given
    nabla.sum(x, 1, out=out32)
    np.testing.assert_allclose(out32.numpy(), a.sum(1), rtol=1e-6)
    outi = nabla.empty(3, dtype=nabla.int64)
    nabla.sum(nabla.tensor(a.astype(np.int64)), 1, out=outi)
    np.testing.assert_array_equal(outi.numpy(), a.astype(np.int64).sum(1))
    with pytest.raises(RuntimeError, match=r"amax: Expected the dtype for input and out to match, but got Double for "
                       r"input.s dtype and Float for out.s dtype"):
        nabla.amax(x, 0, out=nabla.empty(4))
    with pytest.warns(UserWarning, match=r"had shape \[5\], which does not match the required output shape \[4\]"):
        np.testing.assert_allclose(nabla.sum(x, 0, out=nabla.empty(5, dtype=nabla.float64)).numpy(), a.sum(0))
    v, i = nabla.empty(3, dtype=nabla.float64), nabla.empty(3, dtype=nabla.int64)
    r = nabla.max(x, 1, out=(v, i))
    assert r.values is v and r.indices is i
    np.testing.assert_array_equal(v.numpy(), a.max(1))
    np.testing.assert_array_equal(i.numpy(), a.argmax(1))
    with pytest.raises(TypeError, match="out"):
        nabla.max(x, 1, out=v)
    strided = nabla.zeros(4, 2, dtype=nabla.float64)[:, 1]  # a non-contiguous out
    nabla.mean(x, 0, out=strided)
    np.testing.assert_allclose(strided.numpy(), a.mean(0), rtol=1e-12)
    ai = nabla.empty(4, dtype=nabla.int64)
    nabla.argmin(x, 0, out=ai)
    np.testing.assert_array_equal(ai.numpy(), a.argmin(0))
    y = x.clone()
    nabla.sum(y, 0, keepdim=True, out=y[0:1])  # out overlaps the input: computed first, then copied
    np.testing.assert_allclose(y.numpy()[0], a.sum(0), rtol=1e-12)


# ---- errors ----

@pytest.mark.parametrize("call, exc, message", [
    (lambda x: nabla.sum(x, 3), IndexError, r"sum: dimension out of range .*\[-2, 1\].* 3"),
    (lambda x: nabla.mean(x, (0, -2)), RuntimeError, "mean: dim 0 appears multiple times"),
    (lambda x: nabla.amax(x, (1, 1)), RuntimeError, "amax: dim 1 appears multiple times"),
    (lambda x: nabla.var(x, -3), IndexError, "var: dimension out of range"),
    (lambda x: nabla.max(x, 2), IndexError, "max: dimension out of range"),
    (lambda x: nabla.argmax(x, -5), IndexError, "argmax: dimension out of range"),
    (lambda x: nabla.cumsum(x, 2), IndexError, "cumsum: dimension out of range"),
    (lambda x: nabla.softmax(x, 7), IndexError, "softmax: dimension out of range .* 7"),
    (lambda x: nabla.logsumexp(x, (0, 9)), IndexError, "logsumexp: dimension out of range"),
    (lambda x: nabla.mean(x.long()), RuntimeError, "mean.*floating point.*Long"),
    (lambda x: nabla.var(x.int()), RuntimeError, "var: std and var only support floating point.*int32"),
    (lambda x: nabla.norm(x.long()), RuntimeError, "norm.*floating point.*int64"),
    (lambda x: nabla.softmax(x.long(), 0), RuntimeError, "softmax: not implemented for 'int64'"),
    (lambda x: nabla.argmax(x.bool()), RuntimeError, "argmax.*bool"),
    (lambda x: nabla.norm(x, float("nan")), RuntimeError, "norm: .*nan"),
    (lambda x: nabla.max(nabla.zeros(2, 0), 1), IndexError, r"max\(\): Expected reduction dim 1 to have non-zero"),
])
def test_errors_name_the_op_and_values(call, exc, message):
    x = nabla.ones(2, 3)
    with pytest.raises(exc, match=message):
        call(x)


def test_c_level_bad_arguments_give_status_not_crash():
    from nabla._lib import ffi, lib
    x = nabla.ones(2, 3)
    out = ffi.new("nb_tensor*[2]")
    null = ffi.NULL
    cases = [
        (lambda: lib.nb_sum(null, null, 0, 0, -1, null, out), "sum: tensor 't' is NULL"),
        (lambda: lib.nb_sum(x._h, null, 0, 0, -1, null, null), "sum: output pointer 'out' is NULL"),
        (lambda: lib.nb_sum(x._h, null, 2, 0, -1, null, out), "sum: dims is NULL but ndims is 2"),
        (lambda: lib.nb_sum(x._h, [0], -1, 0, -1, null, out), "sum: ndims must be in"),
        (lambda: lib.nb_sum(x._h, null, 0, 0, 42, null, out), "sum: unknown dtype code 42"),
        (lambda: lib.nb_prod(x._h, null, 0, 0, -2, null, out), "prod: unknown dtype code -2"),
        (lambda: lib.nb_max_dim(x._h, 0, 0, null, null, out, null), "max: output pointer 'indices' is NULL"),
        (lambda: lib.nb_min_dim(null, 0, 0, null, null, out, out + 1), "min: tensor 't' is NULL"),
        (lambda: lib.nb_argmax(x._h, null, 0, null, null), "argmax: output pointer 'out' is NULL"),
        (lambda: lib.nb_cumsum(x._h, 0, 99, null, out), "cumsum: unknown dtype code 99"),
        (lambda: lib.nb_softmax(null, 0, -1, null, out), "softmax: tensor 't' is NULL"),
        (lambda: lib.nb_log_softmax(x._h, 0, 11, null, out), "log_softmax: unknown dtype code 11"),
        (lambda: lib.nb_var(x._h, null, 0, float("nan"), 0, null, out), "var: correction must be a number"),
        (lambda: lib.nb_norm(x._h, 2.0, null, 0, 0, lib.NB_I32, null, out), "norm: dtype should be floating"),
        (lambda: lib.nb_logsumexp(x._h, [5], 1, 0, null, out), "logsumexp: dimension out of range"),
        (lambda: lib.nb_all(x._h, null, 17, 0, null, out), "all: ndims must be in [0, 16], got 17"),
    ]
    for call, message in cases:
        out[0] = out[1] = null
        status = call()
        assert status != 0, message
        assert message in ffi.string(lib.nb_last_error_message()).decode(), message
        assert out[0] == null and out[1] == null  # untouched on failure


def test_errors_and_calls_do_not_leak():
    x = nabla.ones(3, 4)
    i = nabla.ones(3, 4, dtype=nabla.int32)

    def work():
        for f in (lambda: nabla.sum(x, 9), lambda: nabla.mean(i), lambda: nabla.amax(nabla.zeros(0)),
                  lambda: nabla.sum(x, 0, dtype=nabla.float64, out=nabla.empty(4)),
                  lambda: nabla.softmax(i, 0),
                  lambda: nabla.max(x, 5), lambda: nabla.var(x, (0, 0))):
            with pytest.raises((RuntimeError, IndexError)):
                f()
        nabla.sum(x, 1)
        nabla.max(x, 0)
        nabla.softmax(x.half(), 1)
        nabla.cumsum(i, 0)
        nabla.sum(x, 0, out=nabla.empty(4))
        nabla.max(x, 1, out=(nabla.empty(3), nabla.empty(3, dtype=nabla.int64)))
        nabla.var(x.t(), 1)
        nabla.argmax(x)

    work()
    before = nabla.memory.stats()
    for _ in range(20):
        work()
    after = nabla.memory.stats()
    assert after["live_tensors"] == before["live_tensors"]
    assert after["live_storages"] == before["live_storages"]
    assert after["allocated_bytes"] == before["allocated_bytes"]


# ---- accuracy, big inputs, determinism ----

def test_float32_sum_accuracy(rng):
    a = (rng.standard_normal(3_000_001) + 0.5).astype(np.float32)
    exact = math.fsum(a.astype(np.float64))
    got = nabla.tensor(a).sum().item()
    assert abs(got - exact) <= 1e-6 * abs(exact)
    np_err = abs(float(np.sum(a)) - exact)
    assert abs(got - exact) <= max(np_err, 2 ** -24 * abs(exact))  # at least as accurate as NumPy
    # many same-sign values: naive float accumulation would drift by ~1e-2
    ones = nabla.full((10_000_000,), 0.1)
    assert abs(ones.sum().item() - 1e6 * np.float64(np.float32(0.1)) * 10) <= 1e-6 * 1e6
    col = nabla.full((100_000, 3), 0.1)
    np.testing.assert_allclose(col.sum(0).numpy(), np.float64(np.float32(0.1)) * 100_000, rtol=1e-7)


def test_float64_sum_is_pairwise(rng):
    a = rng.standard_normal(2_000_000) * 1e3
    exact = math.fsum(a)
    assert abs(nabla.tensor(a).sum().item() - exact) <= 1e-13 * np.sum(np.abs(a))


@pytest.mark.parametrize("shape, dim", [((1 << 20,), None), ((300, 2000), 0), ((2000, 300), 1), ((7, 50000), 1),
                                        ((50000, 7), 0), ((40, 30, 500), (0, 2)), ((3, 200000), None)])
def test_large_reductions_match_numpy(shape, dim, rng):
    a = rng.standard_normal(shape).astype(np.float32)
    t = nabla.tensor(a)
    ax = np_axis(dim, len(shape))
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(nabla.sum(t, dim).numpy(), a64.sum(axis=ax), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(nabla.mean(t.t() if len(shape) == 2 else t, None).item(), a64.mean(), rtol=1e-5,
                               atol=1e-7)
    np.testing.assert_allclose(nabla.amax(t, () if dim is None else dim).numpy(), a64.max(axis=ax))
    np.testing.assert_allclose(nabla.var(t, dim).numpy(), a64.var(axis=ax, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(nabla.norm(t, 2, dim).numpy(), np.sqrt((a64 ** 2).sum(axis=ax)), rtol=1e-5)
    np.testing.assert_allclose(nabla.logsumexp(t, () if dim is None else dim).numpy(),
                               np_logsumexp(a64, ax, False), rtol=1e-5)
    np.testing.assert_allclose(nabla.prod(nabla.tensor(np.full(shape, 1.0000001, np.float32))).item(),
                               np.float64(np.float32(1.0000001)) ** a.size, rtol=1e-5)
    if dim is None:
        assert nabla.argmax(t).item() == int(np.argmax(a)) and nabla.argmin(t).item() == int(np.argmin(a))
    elif isinstance(dim, int):
        np.testing.assert_array_equal(nabla.argmax(t, dim).numpy(), np.argmax(a, dim))
        v, i = nabla.min(t, dim)
        np.testing.assert_array_equal(i.numpy(), np.argmin(a, dim))


DETERMINISM_SCRIPT = r"""
import sys, numpy as np, nabla
rng = np.random.default_rng(7)
a = nabla.tensor(rng.standard_normal(3_000_000).astype(np.float32))
b = nabla.tensor(rng.standard_normal((2000, 1500)))
c = nabla.tensor(rng.standard_normal((300, 4000)).astype(np.float32))
vals = [a.sum(), a.mean(), a.var(), a.norm(), a.logsumexp(0), a.prod(), b.sum(), b.sum(0), b.sum(1), b.var(0),
        c.sum(0), c.std(1), c.logsumexp(0), c.softmax(1), c.log_softmax(0), c.cumsum(1), a.argmax(), c.amax(0)]
sys.stdout.write(";".join(v.numpy().tobytes().hex()[:4000] + str(v.numpy().sum()) for v in vals))
"""


def test_results_do_not_depend_on_thread_count():
    outs = []
    for threads in ("1", "2", "3"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        r = subprocess.run([sys.executable, "-c", DETERMINISM_SCRIPT], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] == outs[2]


# ---- module functions and methods ----

def test_methods_and_keywords(rng):
    a = rng.standard_normal((3, 4, 5))
    t = nabla.tensor(a)
    np.testing.assert_allclose(t.sum(dim=(0, 2), keepdim=True).numpy(), a.sum((0, 2), keepdims=True))
    np.testing.assert_allclose(t.mean([1]).numpy(), a.mean(1))
    np.testing.assert_allclose(t.prod(2, dtype=nabla.float32).numpy(), a.prod(2), rtol=1e-5)
    np.testing.assert_allclose(t.amax(dim=(1, 2)).numpy(), a.max((1, 2)))
    np.testing.assert_allclose(t.std(dim=1, correction=0).numpy(), a.std(1))
    np.testing.assert_allclose(t.norm(p=1, dim=2).numpy(), np.abs(a).sum(2))
    np.testing.assert_allclose(t.norm("fro", (0, 1)).numpy(), np.sqrt((a ** 2).sum((0, 1))))
    np.testing.assert_allclose(t.logsumexp(dim=-1).numpy(), np_logsumexp(a, -1, False))
    assert t.all().item() is True and (t > 10).any().item() is False
    assert nabla.all(t > 0, dim=()).shape == (3, 4, 5)  # torch: dim=() reduces nothing for all / any
    np.testing.assert_allclose(t.cumsum(dim=1).numpy(), a.cumsum(1))
    np.testing.assert_allclose(t.cumprod(-1).numpy(), a.cumprod(-1))
    np.testing.assert_allclose(t.softmax(dim=0).numpy(), np_softmax(a, 0))
    np.testing.assert_allclose(t.log_softmax(-1, dtype=nabla.float32).numpy(), np_log_softmax(a, -1), rtol=1e-5)
    assert t.argmax(dim=2, keepdim=True).shape == (3, 4, 1) and t.argmin().shape == ()
    np.testing.assert_allclose(t.norm("nuc").numpy(), np.linalg.norm(a, "nuc", axis=(-2, -1)))  # the last two dims
    with pytest.raises(TypeError):
        nabla.sum([1, 2, 3])
    with pytest.raises(TypeError, match="prod"):
        t.prod((0, 1))
    with pytest.raises(TypeError, match="dim"):
        nabla.cumsum(t, None)
    with pytest.raises(TypeError, match="dim"):
        t.sum(1.5)
    assert nabla.sum.__name__ == "sum" and "dim" in nabla.sum.__doc__


@pytest.mark.parametrize("call", [
    lambda t: t.prod(dim=None), lambda t: t.max(dim=None), lambda t: nabla.min(t, None), lambda t: t.std(0, 0),
    lambda t: t.logsumexp(dim=None), lambda t: t.cumsum(None), lambda t: t.softmax(None), lambda t: t.sum(dim=1.0),
    lambda t: nabla.argmax(t, dim=(0, 1)), lambda t: t.max(keepdim=True),
])
def test_rejected_signatures_raise_type_error_like_pytorch(call):
    with pytest.raises(TypeError):
        call(nabla.ones(2, 3))


def test_signatures_match_pytorch(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    calls = ["x.sum(None, True)", "x.sum(dim=[0, 2])", "x.sum(())", "x.prod(1, True)", "x.amax(dim=[])",
             "x.max(1, True)", "x.argmax(dim=None, keepdim=True)", "x.var(None, correction=0)", "x.var(1, True, True)",
             "x.var(True)", "x.std(dim=(0, 1), keepdim=True)", "x.norm(2, 1, True)", "x.norm('fro', None, True)",
             "x.logsumexp(dim=(0, 1))", "x.any(dim=(0, 2), keepdim=True)", "x.cumprod(dim=-1, dtype=X.float64)",
             "x.log_softmax(0, X.float64)", "X.max(x, dim=1, keepdim=True)", "X.min(x, other=x)",
             "X.std(x, (0, 1), True)", "X.norm(x, p='fro', dim=(0, 1))", "X.mean(x, dtype=X.float64)"]
    for expr in calls:
        got = eval(expr, {"X": nabla, "x": nabla.tensor(a)})
        want = eval(expr, {"X": torch, "x": torch.tensor(a)})
        if isinstance(want, tuple):
            for g, w in zip(got, want):
                np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, err_msg=expr)
        else:
            assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], expr
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, err_msg=expr)


def test_float16_bfloat16_round_once():
    # 1 + 2^-11 + 2^-12 ... sums that a float16 accumulator would get wrong
    x = nabla.full((4096,), 1.0, dtype=nabla.float16)
    assert x.sum().item() == 4096.0  # exact in float16
    h = nabla.tensor(np.full(3000, 0.1, np.float16))
    ref = np.float16(np.sum(np.full(3000, 0.1, np.float16).astype(np.float64)))
    assert h.sum().item() == float(ref)
    b = nabla.full((1000,), 0.01).to(nabla.bfloat16)
    exact = 1000 * float(nabla.full((1,), 0.01).to(nabla.bfloat16).float().item())
    got = b.sum().float().item()
    assert abs(got - exact) <= 2 ** -8 * exact


# ---- against PyTorch ----

def test_against_pytorch(rng):
    torch = pytest.importorskip("torch")
    T = {nabla.float32: torch.float32, nabla.float64: torch.float64, nabla.float16: torch.float16,
         nabla.bfloat16: torch.bfloat16, nabla.int8: torch.int8, nabla.int16: torch.int16, nabla.int32: torch.int32,
         nabla.int64: torch.int64, nabla.uint8: torch.uint8, nabla.bool: torch.bool}
    a = rng.standard_normal((4, 5, 6)) * 3
    for dtype in FLOATS + INTS + [nabla.bool]:
        src = (a > 0) if dtype is nabla.bool else a if dtype.is_floating_point else np.round(a)
        if dtype is nabla.uint8:
            src = np.abs(src)
        nt = nabla.tensor(src).to(dtype)
        tt = torch.tensor(src).to(T[dtype])
        calls = [("sum", (), {}), ("sum", ((0, 2),), {"keepdim": True}), ("prod", (1,), {}), ("amax", ((1, 2),), {}),
                 ("amin", (0,), {}), ("all", (1,), {}), ("any", ((0, 1),), {}), ("cumsum", (2,), {}),
                 ("cumprod", (0,), {}), ("logsumexp", (1,), {})]
        if dtype is not nabla.bool:
            calls += [("argmax", (), {}), ("argmin", (2,), {"keepdim": True})]
        if dtype.is_floating_point:
            calls += [("mean", ((0, 1),), {}), ("var", (2,), {}), ("std", (), {"correction": 0}),
                      ("norm", (), {}), ("norm", (1, (0, 2)), {}), ("softmax", (1,), {}), ("log_softmax", (0,), {})]
        for name, args, kwargs in calls:
            n = getattr(nabla, name)(nt, *args, **kwargs)
            t = getattr(torch, name)(tt, *args, **kwargs)
            assert n.dtype is {v: k for k, v in T.items()}[t.dtype], (name, dtype, n.dtype, t.dtype)
            assert tuple(n.shape) == tuple(t.shape), (name, dtype)
            tv = t.float().numpy() if t.dtype is torch.bfloat16 else t.numpy()
            rtol = RTOL.get(dtype, 1e-6) * 4 if dtype in RTOL else 1e-6
            np.testing.assert_allclose(values(n).astype(np.float64), tv.astype(np.float64), rtol=max(rtol, 1e-6),
                                       atol=rtol * 10)
        for name in ("max", "min"):
            nv, ni = getattr(nabla, name)(nt, 1)
            tv, ti = getattr(torch, name)(tt, 1)
            np.testing.assert_array_equal(ni.numpy(), ti.numpy())
            assert nv.dtype is dtype
