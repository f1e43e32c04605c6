"""Elementwise binary ops: every op against NumPy (exact float64/int64, rounded to the result dtype)
over every dtype and broadcast, strided, expanded, empty and 0-dim operands; calling forms; Python
semantics; errors; in-place, out= and aliasing rules; versions; handles; PyTorch when installed."""
from __future__ import annotations

import gc
import math
import operator

import numpy as np
import pytest

import nabla

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS, INTS = DTYPES[:4], DTYPES[4:9]
NPT = dict(zip(DTYPES, [np.float32, np.float64, np.float16, np.float32, np.int8, np.int16, np.int32, np.int64,
                        np.uint8, np.bool_]))  # bfloat16 values are held in float32
DT = {n: getattr(nabla, n) for n in DTYPES}
CMP = ["eq", "ne", "lt", "le", "gt", "ge"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
TIES = CMP + LOGICAL + ["maximum", "minimum"]  # ops fed small discrete values, so that ties happen
DIVLIKE = ["div", "div_trunc", "div_floor", "floor_divide", "remainder", "fmod"]
SHIFTS = ["bitwise_left_shift", "bitwise_right_shift"]
RTOL = {"float32": 1.3e-6, "float64": 2e-15}
KIND = {d: "F" if d in FLOATS else "I" if d in INTS else "B" for d in DTYPES}


def bf16_round(a):
    """float32 -> nearest-even bfloat16, held in float32."""
    a = np.asarray(a, np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    r = (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, r)


def rounded(ref, dtype):
    """Exact (float64/int64/bool) values -> dtype (integers wrap, bfloat16 via float32)."""
    with np.errstate(all="ignore"):
        if dtype == "bfloat16":
            return bf16_round(np.asarray(ref, np.float64).astype(np.float32))
        return np.asarray(ref).astype(NPT[dtype])


def make(values, dtype):
    return nabla.tensor(np.array(values, order="C"), dtype=DT[dtype])


def to_np(t):
    return t.float().numpy() if t.dtype is nabla.bfloat16 else t.numpy()


def check(got_t, want, dtype, op="", scale=None, ulps=1):
    """got_t has dtype and want's values: integers and bools exactly; floats with NaN and inf in
    the same places, else within rtol*scale (f32, f64; 4x for pow/atan2) or one ulp (f16, bf16)."""
    assert got_t.dtype is DT[dtype], (got_t.dtype, dtype)
    got, want = to_np(got_t), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if dtype not in FLOATS:
        return np.testing.assert_array_equal(got, want)
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg="NaN positions")
    fin, inf = np.isfinite(w), np.isinf(w)
    np.testing.assert_array_equal(g[inf], w[inf], err_msg="infinities")
    with np.errstate(invalid="ignore"):  # inf - inf outside `fin`
        if dtype in RTOL:
            tol = RTOL[dtype] * ulps * (4 if op in ("pow", "atan2") else 1) * (np.abs(w) if scale is None else scale)
        else:
            spacing = np.spacing(np.abs(w).astype(np.float16 if dtype == "float16" else np.float32))
            tol = spacing.astype(np.float64) * (1 if dtype == "float16" else 65536) * ulps
        tol = np.broadcast_to(tol, w.shape)
        bad = fin & ~(np.abs(g - w) <= tol)
    assert not bad.any(), f"{op}: got {g[bad][:5]} want {w[bad][:5]} (tol {tol[bad][:5]})"


def _shift(x, s, bits, left):
    inside = s < bits
    sc = np.where(inside, s, 0)
    if left:
        return np.where(inside, (x.astype(np.uint64) << sc.astype(np.uint64)).view(np.int64), 0)
    return np.where(inside, x >> sc, np.where(x < 0, -1, 0))


def _tdiv(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y)
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q)


# name -> (nabla function, kwargs, supported kinds, exact reference on float64/int64/bool operands)
OPS = {
    "add": ("add", {}, "FIB", lambda x, y: x | y if x.dtype == np.bool_ else x + y),
    "add_alpha": ("add", {"alpha": -3}, "FI", lambda x, y: x - 3 * y),
    "sub": ("sub", {}, "FI", np.subtract),
    "sub_alpha": ("sub", {"alpha": 2.5}, "F", lambda x, y: x - 2.5 * y),
    "mul": ("mul", {}, "FIB", lambda x, y: x & y if x.dtype == np.bool_ else x * y),
    "div": ("div", {}, "FIB", lambda x, y: np.divide(x, y, dtype=np.float64)),
    "div_trunc": ("div", {"rounding_mode": "trunc"}, "FI", _tdiv),
    "div_floor": ("div", {"rounding_mode": "floor"}, "FI", np.floor_divide),
    "floor_divide": ("floor_divide", {}, "FI", np.floor_divide),
    "remainder": ("remainder", {}, "FI", np.remainder),
    "fmod": ("fmod", {}, "FI", np.fmod),
    "pow": ("pow", {}, "FI", np.power),
    "maximum": ("maximum", {}, "FIB", np.maximum),
    "minimum": ("minimum", {}, "FIB", np.minimum),
    "atan2": ("atan2", {}, "FIB", lambda x, y: np.arctan2(x, y, dtype=np.float64)),
    **{c: (c, {}, "FIB", f) for c, f in zip(CMP, [np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                                                   np.greater_equal])},
    **{n: (n, {}, "FIB", getattr(np, n)) for n in LOGICAL},
    **{n: (n, {}, "IB", getattr(np, n)) for n in ["bitwise_and", "bitwise_or", "bitwise_xor"]},
    **{n: (n, {}, "I", None) for n in SHIFTS},
}


def result_dtype(op, dtype):
    if op in CMP or op in LOGICAL:
        return "bool"
    return "float32" if op in ("div", "atan2") and dtype not in FLOATS else dtype


def reference(op, x, y, dtype):
    """op on NumPy operands of dtype, computed exactly, rounded to the result dtype."""
    dom = {"F": np.float64, "I": np.int64, "B": np.bool_}[KIND[dtype]]
    x, y = np.broadcast_arrays(np.asarray(x).astype(dom), np.asarray(y).astype(dom))
    with np.errstate(all="ignore"):
        if op in SHIFTS:
            ref = _shift(x, y, np.dtype(NPT[dtype]).itemsize * 8, op == "bitwise_left_shift")
        else:
            ref = OPS[op][3](x, y)
    return rounded(ref, result_dtype(op, dtype))


def values(rng, shape, dtype, op, role):
    """Inputs that exercise op: ties for comparisons, no integer zero divisors, small powers."""
    if KIND[dtype] == "B":
        return rng.random(shape) < 0.5
    if KIND[dtype] == "F":
        if op in TIES:
            v = rng.integers(-2, 3, shape) / 2
        elif op in DIVLIKE and role == "b":
            v = np.where(rng.random(shape) < 0.5, -1, 1) * rng.uniform(0.25, 4, shape)
        elif op == "pow" and role == "b":
            v = np.where(rng.random(shape) < 0.5, rng.integers(-3, 4, shape), rng.uniform(-2, 2, shape))
        else:
            v = rng.uniform(-3, 3, shape) if op == "pow" else rng.standard_normal(shape) * 3
        return rounded(v, dtype)
    info = np.iinfo(NPT[dtype])
    lo, hi = max(info.min, -(2 ** 62)), min(info.max, 2 ** 62)
    if op == "pow":
        v = rng.integers(-4 if lo < 0 else 0, 5, shape) if role == "a" else rng.integers(0, 8, shape)
    elif op in SHIFTS and role == "b":
        v = rng.integers(0, info.bits + 2, shape)  # past the width too
    elif op in TIES:
        v = rng.integers(max(lo, -2), 3, shape)
    else:
        v = rng.integers(lo, hi, shape, endpoint=True)
        if op in DIVLIKE and role == "b":
            v = np.where(rng.random(shape) < 0.5, rng.integers(max(lo, -9), 10, shape), v)
            v[v == 0] = 1
    return v.astype(NPT[dtype])


def _expand(*shape):
    return lambda x: x.expand(*shape) if isinstance(x, nabla.Tensor) else np.broadcast_to(x, shape)


_T = operator.attrgetter("T")
# layout -> ((base shape, view) for a, then for b); the views act alike on NumPy arrays and tensors.
LAYOUTS = {
    "same": (((3, 4), None), ((3, 4), None)), "prepended": (((5,), None), ((2, 3, 5), None)),
    "size1": (((2, 1, 4), None), ((3, 1), None)), "size1_both": (((4, 1, 3), None), ((1, 5, 1), None)),
    "transposed": (((4, 3), _T), ((3, 4), None)), "transposed_bcast": (((4, 3), _T), ((1, 4), None)),
    "stepped": (((6, 12), lambda x: x[::2, 1::3]), ((3, 8), lambda x: x[:, ::2])),
    "expanded": (((3, 1), _expand(3, 4)), ((4,), _expand(3, 4))),
    "zerodim": (((), None), ((3, 4), None)), "zerodim_both": (((), None), ((), None)),
    "empty": (((0, 4), None), ((4,), None)), "empty_bcast": (((2, 0, 3), None), ((1, 3), None)),
    "big": (((300, 257), None), ((257,), None)),  # above the threading grain
    "big_transposed": (((257, 300), _T), ((300, 1), None)),
    "random": None,
}


def operands(rng, op, dtype, layout):
    specs = LAYOUTS[layout]
    if specs is None:  # a random broadcast: suffixes of one shape, some dims set to 1
        out = list(rng.integers(1, 6, rng.integers(1, 5)))
        specs = [(tuple(1 if rng.random() < 0.3 else d for d in out[rng.integers(0, len(out) + 1):]), None)
                 for _ in "ab"]
    result = []
    for role, (shape, view) in zip("ab", specs):
        base = values(rng, shape, dtype, op, role)
        t = make(base, dtype)
        result.append((base, t) if view is None else (view(base), view(t)))
    return result


CASES = [(op, d) for op in OPS for d in DTYPES if KIND[d] in OPS[op][2]]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("op,dtype", CASES)
def test_matches_numpy(op, dtype, layout, rng):
    (a, ta), (b, tb) = operands(rng, op, dtype, layout)
    name, kw = OPS[op][:2]
    got, want, res = getattr(nabla, name)(ta, tb, **kw), reference(op, a, b, dtype), result_dtype(op, dtype)
    scale = None  # a - alpha * b rounds alpha * b first: the error scales with the operands
    if res in RTOL and op in ("add", "add_alpha", "sub", "sub_alpha", "remainder"):
        scale = np.abs(want) + np.abs(a.astype(np.float64)) + 3 * np.abs(b.astype(np.float64))
    check(got, want, res, op, scale)
    assert got.is_contiguous()


@pytest.mark.parametrize("op,dtype", [(op, d) for op in OPS if "alpha" not in op for d in DTYPES if (op, d) not in CASES])
def test_unsupported_dtypes_raise(op, dtype):
    name, kw = OPS[op][:2]
    t = make(np.ones(3), dtype)
    with pytest.raises(RuntimeError, match="not implemented for|not supported"):
        getattr(nabla, name)(t, t, **kw)


OPERATORS = {"add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "floor_divide": "floordiv",
             "remainder": "mod", "pow": "pow", "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt",
             "ge": "ge", "bitwise_and": "and_", "bitwise_or": "or_", "bitwise_xor": "xor",
             "bitwise_left_shift": "lshift", "bitwise_right_shift": "rshift"}
MIRROR = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
ALIASES = {"sub": ["subtract"], "mul": ["multiply"], "div": ["divide", "true_divide"], "ne": ["not_equal"],
           "lt": ["less"], "le": ["less_equal"], "gt": ["greater"], "ge": ["greater_equal"], "atan2": ["arctan2"]}


def same(t, u):
    assert t.dtype is u.dtype and tuple(t.shape) == tuple(u.shape)
    np.testing.assert_array_equal(to_np(t), to_np(u))


@pytest.mark.parametrize("op,dtype", [(op, d) for op, d in CASES if d in ("float64", "int32", "bool")])
def test_every_calling_form_agrees(op, dtype, rng):
    """nabla.op, Tensor.op, out=, Tensor.op_ and the operators (reflected, in-place) agree."""
    (a, ta), (b, tb) = operands(rng, op, dtype, "size1")
    ta = ta.expand(2, 3, 4).contiguous()
    name, kw = OPS[op][:2]
    want = getattr(nabla, name)(ta, tb, **kw)
    for n in [name] + ALIASES.get(name, []):
        assert getattr(nabla, n) is getattr(nabla, name)
        same(getattr(ta, n)(tb, **kw), want)
    out = nabla.empty(2, 3, 4, dtype=want.dtype)
    assert getattr(nabla, name)(ta, tb, out=out, **kw) is out and out._version == 1
    same(out, want)
    c = ta.clone()
    if op in ("div", "atan2") and dtype != "float64":
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            getattr(c, name + "_")(tb, **kw)
        same(c, ta)
    else:
        assert getattr(c, name + "_")(tb, **kw) is c and c._version == 1
        same(c, want.to(ta.dtype))
    if kw or op not in OPERATORS:
        return
    f, s = getattr(operator, OPERATORS[op]), True if dtype == "bool" else 2
    same(f(ta, tb), want)
    same(f(ta, s), getattr(nabla, name)(ta, s))
    if op in CMP:
        return same(f(s, ta), getattr(nabla, MIRROR.get(op, op))(ta, s))
    c = alias = ta.clone()
    if c.dtype is want.dtype:
        c = getattr(operator, "i" + OPERATORS[op].rstrip("_"))(c, tb)
        assert c is alias and c._version == 1
        same(c, want)
    r = f(s, tb)  # reflected; tb holds b's values (nonzero divisors, exponents)
    same(r, getattr(nabla, name)(s, tb))
    check(r, reference(op, np.full(b.shape, s, b.dtype), b, dtype), result_dtype(op, dtype))


# ---- Python semantics, errors and special values ----

@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "float32", "float64", "float16", "bfloat16"])
def test_python_floor_division_and_remainder(dtype):
    pairs = [(x, y) for x in [-7, -6, -5, -1, 0, 1, 5, 6, 7] for y in [-3, -2, -1, 1, 2, 3]]
    if dtype in FLOATS:
        pairs = [(float(x), float(y)) for x, y in pairs] + [(-7.5, 2.0), (7.5, -2.0), (-0.5, 4.0), (0.5, -4.0)]
    xs, ys = zip(*pairs)
    a, b = nabla.tensor(xs, dtype=DT[dtype]), nabla.tensor(ys, dtype=DT[dtype])
    assert (a // b).tolist() == [x // y for x, y in pairs] == nabla.div(a, b, rounding_mode="floor").tolist()
    assert (a % b).tolist() == [x % y for x, y in pairs]
    assert nabla.div(a, b, rounding_mode="trunc").tolist() == [math.trunc(x / y) for x, y in pairs]
    assert nabla.fmod(a, b).tolist() == [math.fmod(x, y) for x, y in pairs]
    assert (a // 2).tolist() == [x // 2 for x in xs] and (a % -2).tolist() == [x % -2 for x in xs]


@pytest.mark.parametrize("dtype", INTS)
def test_integer_wraparound(dtype):
    info = np.iinfo(NPT[dtype])
    t = nabla.tensor([info.max, info.min], dtype=DT[dtype])
    assert (t + 1).tolist() == [info.min, info.min + 1]
    assert (t * 2).tolist() == (np.array([info.max, info.min], NPT[dtype]) * 2).tolist()
    if info.min < 0:  # MIN // -1 wraps, like PyTorch
        assert (t // -1).tolist() == [-info.max, info.min] == nabla.div(t, -1, rounding_mode="trunc").tolist()
        assert (t % -1).tolist() == [0, 0] == nabla.fmod(t, -1).tolist()
    else:  # ... and 255 is not -1 for an unsigned type
        t, d = nabla.tensor([135, 255, 7, 0], dtype=nabla.uint8), nabla.tensor(255, dtype=nabla.uint8)
        assert (t // d).tolist() == [0, 1, 0, 0] == nabla.div(t, d, rounding_mode="trunc").tolist()
        assert (t % d).tolist() == [135, 0, 7, 0] == nabla.fmod(t, d).tolist()


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("form", ["floor_divide", "div_trunc", "div_floor", "remainder", "fmod", "scalar", "big"])
def test_integer_division_by_zero_raises(dtype, form):
    a, b = nabla.tensor([5, 0, 3], dtype=DT[dtype]), nabla.tensor([1, 2, 0], dtype=DT[dtype])
    if form == "big":  # one zero at the end of a threaded loop
        z = np.ones(200_000, NPT[dtype])
        z[-1] = 0
        a = b = make(z, dtype)
    name, kw = OPS.get(form, ("remainder", {}))[:2]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        a // 0 if form == "scalar" else getattr(nabla, name)(a, b, **kw)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint8"])
def test_integer_pow(dtype):
    t = nabla.tensor([0, 1, 2, 3], dtype=DT[dtype])
    assert (t ** 2).tolist() == [0, 1, 4, 9] and (t ** 0).tolist() == [1, 1, 1, 1] and (2 ** t).tolist() == [1, 2, 4, 8]
    assert (t ** 2.5).dtype is nabla.float32
    assert (nabla.tensor([2, 3], dtype=DT[dtype]) ** 7).tolist() == rounded([128, 2187], dtype).tolist()  # wraps
    if dtype != "uint8":  # negative tensor exponents: 0 except for bases 1 and -1, as in PyTorch
        assert (t ** nabla.tensor([1, 1, -1, -2], dtype=DT[dtype])).tolist() == [0, 1, 0, 0]
        s = nabla.tensor([1, -1, -1, 1], dtype=DT[dtype])
        assert (s ** nabla.tensor([-3, -3, -2, -1], dtype=DT[dtype])).tolist() == [1, -1, 1, 1]
    # A negative Python exponent is checked before any cast, as in PyTorch: every base raises,
    # 1 and -1 included, and uint8 too (where -1 would wrap to 255).
    for base in ([2, 3], [1], [-1]) if dtype != "uint8" else ([2, 3], [1]):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
            nabla.tensor(base, dtype=DT[dtype]) ** -3


def test_special_values():
    nan, inf = math.nan, math.inf
    a, b = nabla.tensor([nan, 1.0, nan, -inf, inf, -0.0]), nabla.tensor([1.0, nan, nan, 2.0, 3.0, 0.0])
    for r in (nabla.maximum(a, b), nabla.minimum(a, b)):  # NaN propagates from either side
        assert [math.isnan(v) for v in r.tolist()] == [True, True, True, False, False, False]
    assert nabla.maximum(a, b).tolist()[3:5] == [2.0, inf] and nabla.minimum(a, b).tolist()[3:5] == [-inf, 3.0]
    x, z = nabla.tensor([1.0, -1.0, 0.0, inf]), nabla.zeros(4)
    assert str((x / z).tolist()) == str([inf, -inf, nan, inf]) and str((x // z).tolist()) == str([inf, -inf, nan, inf])
    assert all(math.isnan(v) for v in (x % z).tolist() + nabla.fmod(x, z).tolist())
    assert (nabla.tensor([1, 0]) / nabla.tensor(0)).tolist()[0] == inf  # integer true division is float
    assert math.isnan((nabla.tensor([inf]) - nabla.tensor(inf)).item())
    assert (nabla.tensor([1.0]) / nabla.tensor(-0.0)).item() == -inf
    assert math.copysign(1, (nabla.tensor([-0.0]) * nabla.tensor([0.0])).item()) == -1
    assert (nabla.tensor([-0.5]) // 1.0).item() == -1 and (nabla.tensor([0.5]) // -1.0).item() == -1
    assert math.copysign(1, (nabla.tensor([0.0]) // -1.0).item()) == -1
    assert math.copysign(1, nabla.fmod(nabla.tensor([-4.0]), 2.0).item()) == -1
    y = nabla.atan2(nabla.tensor([0.0, -0.0, 0.0], dtype=nabla.float64), nabla.tensor([-0.0, -0.0, 0.0]))
    assert y.tolist() == [math.pi, -math.pi, 0.0]
    n = nabla.tensor([nan])
    assert (n == n).item() is False and (n != n).item() is True and (n < n).item() is False
    assert nabla.logical_and(nabla.tensor([nan, -0.0]), 1.0).tolist() == [True, False]


def test_bool_arithmetic():
    a, b = nabla.tensor([True, True, False, False]), nabla.tensor([True, False, True, False])
    for r, want in [(a + b, [True, True, True, False]), (a * b, [True, False, False, False]),
                    (nabla.maximum(a, b), [True, True, True, False]), (a ^ b, [False, True, True, False])]:
        assert r.dtype is nabla.bool and r.tolist() == want
    assert (a / b).dtype is nabla.float32 and (a + 1).dtype is nabla.int64
    for call in (lambda: a - b, lambda: a.sub_(b), lambda: a - True, lambda: True - a, lambda: a - nabla.tensor(True)):
        with pytest.raises(RuntimeError, match="(?i)subtraction, the `-` operator, with two bool tensors"):
            call()
    i = nabla.tensor([1, 2])  # one bool operand is refused too (PyTorch: "... with a bool tensor ...")
    for x, y in [(a, 1), (i[:1], a), (a, 1.5), (nabla.ones(2), True), (i, nabla.tensor(True))]:
        with pytest.raises(RuntimeError, match="(?i)subtraction, the `-` operator, with a bool tensor"):
            nabla.sub(x, y)


def test_alpha_and_keywords():
    i, f = nabla.tensor([1, 2], dtype=nabla.int32), nabla.tensor([1.0, 2.0])
    assert nabla.add(i, i, alpha=3).tolist() == [4, 8] and i.sub(i, alpha=2).tolist() == [-1, -2]
    assert f.add(f, alpha=0.5).tolist() == [1.5, 3.0] and nabla.add(i, f, alpha=2.5).tolist() == [3.5, 7.0]
    for call in (lambda: i.add(i, alpha=2.5), lambda: i.sub(2, alpha=0.5), lambda: i.clone().add_(i, alpha=1.5)):
        with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
            call()
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        f.add(f, beta=2)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        nabla.div(f, f, rounding_mode="round")
    for bad in ("a", [1, 2], None):
        with pytest.raises(TypeError):
            f + bad
    assert (f == None) is False and (f != "x") is True  # noqa: E711
    with pytest.raises(RuntimeError, match="without overflow"):  # PyTorch: alpha must fit the integer result
        nabla.ones(2, dtype=nabla.int8).add(nabla.ones(2, dtype=nabla.int8), alpha=300)


# ---- in-place and out= rules ----

def test_inplace_and_out_shape_rules():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        t = nabla.ones(3)
        t += nabla.ones(2, 3)
    a = nabla.ones(3)
    for call in (lambda: nabla.tensor(1.0).add_(nabla.ones(3)), lambda: nabla.ones(1, 3).mul_(nabla.ones(2, 3)),
                 lambda: nabla.add(a, nabla.ones(2, 3), out=a)):  # out= an input is in place: it must fit
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            call()
    # out= of another shape is resized (tests/test_out_resize.py has the rules)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        assert nabla.add(nabla.ones(2, 3), 1, out=nabla.empty(5)).shape == (2, 3)
    t = nabla.ones(2, 3)
    t += nabla.arange(3.0)
    assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
    for a, b, call in [((2, 3), (4,), operator.add), ((2, 3), (3, 2), operator.mul), ((5,), (2, 4), nabla.atan2),
                       ((2, 3), (2,), operator.iadd)]:
        with pytest.raises(RuntimeError, match=r"must match the size of tensor .* at non-singleton dimension") as e:
            call(nabla.ones(*a), nabla.ones(*b))
        assert str(list(a)) in str(e.value) and str(list(b)) in str(e.value)  # both shapes named


def test_aliasing_and_versions():
    """Exact aliases are computed in place; partial overlaps as if the inputs were read first
    (nabla computes into a temporary; PyTorch refuses partial overlap outright)."""
    x = nabla.arange(6.0)
    x += x
    assert x.tolist() == [0, 2, 4, 6, 8, 10] and x._version == 1
    x = nabla.arange(6.0)
    x[1:] += x[:-1]
    assert x.tolist() == [0, 1, 3, 5, 7, 9]
    x = nabla.arange(6.0)
    x[:-1] += x[1:]
    assert x.tolist() == [1, 3, 5, 7, 9, 5]
    x = nabla.arange(4.0)
    nabla.mul(x[:2], x[2:], out=x[1:3])
    assert x.tolist() == [0, 0, 3, 3]
    m, want = nabla.arange(9.0).reshape(3, 3), np.arange(9.0).reshape(3, 3)
    m.T.add_(m)
    np.testing.assert_array_equal(m.numpy(), want + want.T)
    x = nabla.arange(6, dtype=nabla.int32)
    x[::2].add_(x[1::2])
    assert x.tolist() == [1, 1, 5, 3, 9, 5]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        nabla.zeros(1).expand(3).add_(nabla.arange(3.0))
    base = nabla.zeros(2, 3)  # versions: shared by views, bumped once per in-place op
    row = base[1]
    row.add_(nabla.arange(3.0))
    assert base.tolist() == [[0, 0, 0], [0, 1, 2]] and base._version == row._version == 1
    col = base[:, 2]
    col *= 10
    assert base.tolist() == [[0, 0, 0], [0, 1, 20]] and base._version == 2
    _ = base + base, nabla.mul(base, 2), base == 1  # reading does not bump
    assert base._version == 2
    for k in range(3, 8):
        base.mul_(2)
        assert base._version == k
    with pytest.raises(RuntimeError):
        base.add_(nabla.ones(4))
    assert base._version == 7


def test_handles_return_to_baseline():
    a, b, i = nabla.ones(4, 3), nabla.arange(3.0), nabla.tensor([1, 2, 0])
    failing = (lambda: a + nabla.ones(2), lambda: i // i, lambda: i.add_(2.5), lambda: i ** -1,
               lambda: nabla.tensor([True]) - True, lambda: a & a, lambda: a.div(a, rounding_mode="x"),
               lambda: nabla.add(a, b, out=nabla.empty(4, 3, dtype=nabla.int64)), lambda: a + "x", lambda: i.add(i, alpha=0.5))

    def work():
        for _ in range(20):
            _ = (a + b, 2.5 - a, a * 3, a / b, a // 2, a % 2.0, a ** 2, a == b, b < 1, i & 3, i << 1)
            c = a.clone()
            c += b
            nabla.atan2(a, b, out=c)
            for bad in failing:
                with pytest.raises((RuntimeError, TypeError)):
                    bad()
        gc.collect()

    work()  # warms the frontend's scalar cache
    before = nabla.memory.stats()["live_tensors"]
    work()
    assert nabla.memory.stats()["live_tensors"] == before


# ---- PyTorch as a second reference ----

@pytest.mark.parametrize("op,dtype", CASES)
def test_matches_torch(op, dtype, rng):
    torch = pytest.importorskip("torch")
    (a, ta), (b, tb) = operands(rng, op, dtype, "transposed_bcast")
    name, kw = OPS[op][:2]
    x, y = (torch.from_numpy(np.array(v, order="C")).to(getattr(torch, dtype)) for v in (a, b))
    want, res = getattr(torch, name)(x, y, **kw), result_dtype(op, dtype)
    assert str(want.dtype) == f"torch.{res}"
    scale = np.abs(a.astype(np.float64)) + 3 * np.abs(b.astype(np.float64)) if res in RTOL else None
    check(getattr(nabla, name)(ta, tb, **kw), want.float().numpy() if res == "bfloat16" else want.numpy(), res, op,
          scale, ulps=2)  # two roundings apart at most


SPECIAL_A = [1.0, -1.0, 0.0, -0.0, math.inf, -math.inf, math.nan, 5.0, -5.0, 0.5, -0.5, 2.0]
SPECIAL_B = [0.0, -0.0, 0.0, 1.0, 2.0, math.inf, 1.0, -math.inf, math.inf, -1.0, 1.0, math.nan]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder", "fmod", "pow",
                                "maximum", "minimum", "atan2", "eq", "lt", "logical_xor"])
def test_special_values_match_torch_bitwise(op, dtype):
    """NaN, inf and signed zeros exactly as PyTorch, sign of zero included."""
    torch = pytest.importorskip("torch")
    name, kw = OPS[op][:2]
    for x, y in ((SPECIAL_A, SPECIAL_B), (SPECIAL_B, SPECIAL_A)):
        want = getattr(torch, name)(*(torch.tensor(v, dtype=getattr(torch, dtype)) for v in (x, y)), **kw)
        got = getattr(nabla, name)(*(nabla.tensor(v, dtype=DT[dtype]) for v in (x, y)), **kw).double().numpy()
        want = want.double().numpy()
        np.testing.assert_array_equal(got, want)
        num = ~np.isnan(want)  # the sign of NaN is unspecified
        np.testing.assert_array_equal(np.signbit(got[num]), np.signbit(want[num]), err_msg=f"{got} {want}")
