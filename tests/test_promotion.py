"""Type promotion of binary ops, as PyTorch: categories bool < integer < floating;
dimensioned tensors outrank 0-dim tensors, which outrank Python scalars (wrapped
numbers: a float scalar stands for the default dtype, an int for int64). Checked
against tables written out here and, when installed, torch.result_type; plus the
values that come out, in-place/out= casting rules and Python/NumPy scalars."""
from __future__ import annotations

import math
import operator

import numpy as np
import pytest

import nabla

NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]
SHORT = ["f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8", "b"]
DT = {n: getattr(nabla, n) for n in NAMES}
BY_SHORT = dict(zip(SHORT, NAMES))

# PyTorch's promote_types(row, column), written out.
PROMOTE_TEXT = """
      f32  f64  f16  bf16 i8   i16  i32  i64  u8   b
f32   f32  f64  f32  f32  f32  f32  f32  f32  f32  f32
f64   f64  f64  f64  f64  f64  f64  f64  f64  f64  f64
f16   f32  f64  f16  f32  f16  f16  f16  f16  f16  f16
bf16  f32  f64  f32  bf16 bf16 bf16 bf16 bf16 bf16 bf16
i8    f32  f64  f16  bf16 i8   i16  i32  i64  i16  i8
i16   f32  f64  f16  bf16 i16  i16  i32  i64  i16  i16
i32   f32  f64  f16  bf16 i32  i32  i32  i64  i32  i32
i64   f32  f64  f16  bf16 i64  i64  i64  i64  i64  i64
u8    f32  f64  f16  bf16 i16  i16  i32  i64  u8   u8
b     f32  f64  f16  bf16 i8   i16  i32  i64  u8   b
"""
PROMOTE = {(BY_SHORT[r[0]], BY_SHORT[c]): BY_SHORT[v]
           for r in (line.split() for line in PROMOTE_TEXT.strip().splitlines()[1:])
           for c, v in zip(SHORT, r[1:])}


def category(name):
    return 0 if name == "bool" else 2 if DT[name].is_floating_point else 1


def lower_priority(higher, lower):
    """A 0-dim tensor or scalar of dtype `lower` only matters when its category is higher."""
    return lower if category(lower) > category(higher) else higher


def scalar_dtype(value):
    if isinstance(value, bool):
        return "bool"
    return "int64" if isinstance(value, int) else nabla.get_default_dtype().name


def operand(name, form):
    """A tensor of dtype name: 'tensor' is shape [3], 'zerodim' shape []."""
    values = [1, 0, 1]
    t = nabla.tensor(values, dtype=DT[name])
    return t if form == "tensor" else t[0]


FORMS = [("tensor", "tensor"), ("tensor", "zerodim"), ("zerodim", "tensor"), ("zerodim", "zerodim")]


def expected(a, fa, b, fb):
    if fa == fb:
        return PROMOTE[a, b]
    return lower_priority(a, b) if fa == "tensor" else lower_priority(b, a)


def test_table_is_symmetric_and_idempotent():
    for a in NAMES:
        assert PROMOTE[a, a] == a
        for b in NAMES:
            assert PROMOTE[a, b] == PROMOTE[b, a]


@pytest.mark.parametrize("b", NAMES)
@pytest.mark.parametrize("a", NAMES)
def test_tensor_and_zerodim_pairs(a, b):
    for fa, fb in FORMS:
        ta, tb = operand(a, fa), operand(b, fb)
        want = expected(a, fa, b, fb)
        r = nabla.add(ta, tb)
        assert r.dtype is DT[want], (fa, fb, r.dtype, want)
        assert r.dim() == (0 if fa == fb == "zerodim" else 1)
        assert (ta * tb).dtype is DT[want] and nabla.maximum(ta, tb).dtype is DT[want]
        assert (ta == tb).dtype is nabla.bool
        if category(want) < 2:
            assert (ta / tb).dtype is nabla.float32  # true division of integers: the default float dtype
        x, y = (np.array([1.0, 0.0, 1.0] if f == "tensor" else 1.0) for f in (fa, fb))
        np.testing.assert_array_equal(r.float().numpy(), (x + y != 0) * 1.0 if want == "bool" else x + y)


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("form", ["tensor", "zerodim"])
@pytest.mark.parametrize("scalar", [True, False, 3, -2, 2.5, -0.25])
def test_tensor_and_python_scalar(a, form, scalar):
    t = operand(a, form)
    want = lower_priority(a, scalar_dtype(scalar))
    for r in (t + scalar, scalar + t, nabla.add(t, scalar), nabla.mul(scalar, t), t.maximum(scalar)):
        assert r.dtype is DT[want] and r.dim() == t.dim(), (r.dtype, want)
    assert (t < scalar).dtype is nabla.bool


# The common cases, spelled out: (a dtype, a form, b, b form or "scalar", result).
COMMON = [
    ("int32", "tensor", 2.5, "scalar", "float32"),
    ("int32", "tensor", 2, "scalar", "int32"),
    ("uint8", "tensor", 300, "scalar", "uint8"),
    ("int8", "tensor", -1000, "scalar", "int8"),
    ("bool", "tensor", 1, "scalar", "int64"),
    ("bool", "tensor", True, "scalar", "bool"),
    ("bool", "tensor", 1.5, "scalar", "float32"),
    ("float16", "tensor", 2.5, "scalar", "float16"),
    ("bfloat16", "tensor", 7, "scalar", "bfloat16"),
    ("int32", "tensor", "float64", "zerodim", "float64"),
    ("int32", "tensor", "int64", "zerodim", "int32"),
    ("uint8", "tensor", "int8", "zerodim", "uint8"),
    ("float16", "tensor", "float64", "zerodim", "float16"),
    ("bool", "tensor", "int8", "zerodim", "int8"),
    ("float16", "tensor", "bfloat16", "tensor", "float32"),
    ("uint8", "tensor", "int8", "tensor", "int16"),
    ("int8", "tensor", "uint8", "tensor", "int16"),
    ("int32", "tensor", "int64", "tensor", "int64"),
    ("bool", "tensor", "uint8", "tensor", "uint8"),
    ("int64", "tensor", "float16", "tensor", "float16"),
    ("int64", "zerodim", 2.5, "scalar", "float32"),
    ("int8", "zerodim", 1000, "scalar", "int8"),
    ("bool", "zerodim", 2, "scalar", "int64"),
    ("float64", "zerodim", 2, "scalar", "float64"),
    ("int16", "zerodim", "float16", "zerodim", "float16"),
]


@pytest.mark.parametrize("a,fa,b,fb,want", COMMON)
def test_common_cases(a, fa, b, fb, want):
    ta = operand(a, fa)
    tb = b if fb == "scalar" else operand(b, fb)
    assert (ta + tb).dtype is DT[want]
    assert (tb + ta).dtype is DT[want]


def test_promoted_values():
    u8 = nabla.tensor([0, 1, 200], dtype=nabla.uint8)
    assert (u8 + 300).tolist() == [44, 45, 244]  # 300 wraps to 44 in uint8, as in PyTorch
    assert (u8 + -1).tolist() == [255, 0, 199]
    assert (nabla.tensor([1, 2], dtype=nabla.int8) + 1000).tolist() == [-23, -22]
    assert (nabla.tensor([1, 2], dtype=nabla.int32) + 2.5).tolist() == [3.5, 4.5]
    assert (nabla.tensor([2, 3], dtype=nabla.int32) < 2.5).tolist() == [True, False]  # compared as float
    i8, u = nabla.tensor([-1, 100], dtype=nabla.int8), nabla.tensor([255, 200], dtype=nabla.uint8)
    assert (i8 < u).tolist() == [True, True] and (i8 + u).tolist() == [254, 300]  # in int16
    big = nabla.tensor([2 ** 40 + 1])
    assert (big + nabla.tensor(1.0, dtype=nabla.float64)).tolist() == [2.0 ** 40 + 2]
    assert (nabla.tensor([1.0], dtype=nabla.float16) + 70000).tolist() == [math.inf]
    assert (nabla.tensor([1], dtype=nabla.int32) / nabla.tensor([4], dtype=nabla.int32)).tolist() == [0.25]
    with pytest.raises((RuntimeError, OverflowError)):
        nabla.tensor([1]) + 2 ** 64


@pytest.mark.parametrize("default", ["float64", "float16", "bfloat16"])
def test_default_dtype_changes_float_scalars(default):
    i, f, b = nabla.tensor([1, 2], dtype=nabla.int32), nabla.tensor([1.0]), nabla.tensor([True])
    nabla.set_default_dtype(DT[default])
    try:
        assert (i + 2.5).dtype is DT[default] and (2.5 * i).dtype is DT[default]
        assert (b + 0.5).dtype is DT[default] and (i / i).dtype is DT[default]
        assert nabla.atan2(i, i).dtype is DT[default]
        assert (f + 2.5).dtype is nabla.float32 and (i + 2).dtype is nabla.int32
        assert (i + nabla.tensor(2.5, dtype=nabla.float32)).dtype is nabla.float32  # a 0-dim tensor keeps its dtype
    finally:
        nabla.set_default_dtype(nabla.float32)
    assert (i + 2.5).dtype is nabla.float32


def can_cast(src, dst):
    """PyTorch's can_cast: no floating -> integral, no non-bool -> bool."""
    return not (category(src) == 2 and category(dst) < 2) and not (src != "bool" and dst == "bool")


@pytest.mark.parametrize("b", NAMES)
@pytest.mark.parametrize("a", NAMES)
def test_inplace_and_out_casting(a, b):
    """a.add_(b) and add(x, y, out=o) succeed exactly when the promoted type casts to the destination."""
    ta, tb = operand(a, "tensor"), operand(b, "tensor")
    res = PROMOTE[a, b]
    v = ta._version
    if can_cast(res, a):
        assert ta.add_(tb) is ta and ta.dtype is DT[a] and ta._version == v + 1
        assert ta.float().tolist() == [1.0, 0.0, 1.0] if a == "bool" else ta.float().tolist() == [2.0, 0.0, 2.0]
    else:
        with pytest.raises(RuntimeError, match=f"result type {res} can't be cast to the desired output type {a}"):
            ta.add_(tb)
        assert ta._version == v
    for dst in NAMES:
        out = nabla.empty(3, dtype=DT[dst])
        if can_cast(res, dst):
            assert nabla.add(operand(a, "tensor"), tb, out=out) is out and out.dtype is DT[dst]
        else:
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
                nabla.add(operand(a, "tensor"), tb, out=out)


def test_inplace_dtype_rules():
    """The destination keeps its dtype: int32 += 2.5 is refused, int8 += int64 wraps."""
    i = nabla.tensor([1, 2, 3], dtype=nabla.int32)
    for call in (lambda: i.__iadd__(2.5), lambda: i.div_(2), lambda: i.add_(nabla.ones(3)),
                 lambda: nabla.tensor([True]).add_(1), lambda: nabla.add(i, 0.5, out=nabla.empty(3, dtype=nabla.int64))):
        with pytest.raises(RuntimeError, match=r"result type \w+ can't be cast to the desired output type"):
            call()
    assert i.tolist() == [1, 2, 3] and i._version == 0
    i8, u = nabla.tensor([100, -100], dtype=nabla.int8), nabla.tensor([0, 5], dtype=nabla.uint8)
    i8 += nabla.tensor([100, -100])  # int64 result cast down into int8 wraps
    u -= 1
    assert i8.dtype is nabla.int8 and i8.tolist() == [-56, 56] and u.tolist() == [255, 4]
    f16 = nabla.tensor([1.0], dtype=nabla.float16)
    f16 += nabla.tensor([1e-4], dtype=nabla.float64)
    assert f16.dtype is nabla.float16 and f16.tolist() == [1.0]
    f = nabla.tensor([1.0, 2.0])
    assert f.eq_(1.0).tolist() == [1.0, 0.0] and f.dtype is nabla.float32



# ---- Python and NumPy scalars as operands ----

@pytest.mark.parametrize("scalar", [2, -3, 2.5, -0.5])
@pytest.mark.parametrize("op", ["sub", "div", "floor_divide", "remainder", "pow", "atan2", "lt", "maximum"])
def test_scalar_first(op, scalar):
    """2 - t and friends: the scalar is the left operand, numerically, and keeps t's dtype."""
    x = np.array([1.0, -2.0, 0.5, 3.0])
    t = nabla.tensor(x, dtype=nabla.float64)
    ref = {"sub": np.subtract, "div": np.divide, "floor_divide": np.floor_divide, "remainder": np.remainder,
           "pow": np.power, "atan2": np.arctan2, "lt": np.less, "maximum": np.maximum}[op]
    with np.errstate(all="ignore"):
        want = ref(np.full(4, float(scalar)), x)
    got = getattr(nabla, op)(scalar, t)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-15)
    pyop = {"sub": "sub", "div": "truediv", "floor_divide": "floordiv", "remainder": "mod", "pow": "pow",
            "lt": "lt"}.get(op)
    if pyop:
        np.testing.assert_array_equal(getattr(operator, pyop)(scalar, t).numpy(), got.numpy())


@pytest.mark.parametrize("value", [0.0, -0.0, math.nan])
def test_uncached_float_scalars_in_operators(value):
    """0.0, -0.0 and NaN bypass the frontend's scalar cache; the operators must keep them alive."""
    t = nabla.tensor([1.0, -2.0])
    want = str(nabla.add(t, value).tolist())
    assert str((t + value).tolist()) == want and str((value + t).tolist()) == want
    assert str((t * value).tolist()) == str(nabla.mul(t, value).tolist())
    assert (t == value).tolist() == [False, False]


def test_numpy_scalars_are_scalars():
    """NumPy scalars on either side give nabla tensors with scalar promotion (PyTorch does the same)."""
    t = nabla.tensor([1.0, 2.0])
    for r in (t - np.float64(2), np.float64(2) - t, np.int64(3) * t, t + np.bool_(True), np.float32(1) < t):
        assert isinstance(r, nabla.Tensor), type(r)
    assert (np.float64(2) - t).dtype is nabla.float32 and (np.float64(2) - t).tolist() == [1.0, 0.0]
    assert (nabla.tensor([1, 2], dtype=nabla.int8) + np.int64(1)).dtype is nabla.int8


# ---- PyTorch as the reference ----

def test_table_matches_torch():
    torch = pytest.importorskip("torch")
    for (a, b), want in PROMOTE.items():
        assert str(torch.promote_types(getattr(torch, a), getattr(torch, b))) == f"torch.{want}", (a, b)


@pytest.mark.parametrize("a", NAMES)
def test_result_type_matches_torch(a):
    torch = pytest.importorskip("torch")

    def torch_operand(name, form):
        t = torch.tensor([1, 0, 1]).to(getattr(torch, name))
        return t if form == "tensor" else t[0]

    for b in NAMES:
        for fa, fb in FORMS:
            want = torch.result_type(torch_operand(a, fa), torch_operand(b, fb))
            assert f"torch.{nabla.add(operand(a, fa), operand(b, fb)).dtype.name}" == str(want), (a, fa, b, fb)
    for form in ("tensor", "zerodim"):
        for s in (True, 3, 2.5):
            want = torch.result_type(torch_operand(a, form), s)
            assert f"torch.{(operand(a, form) + s).dtype.name}" == str(want), (a, form, s)
    for d in ("float64", "float16", "bfloat16"):
        torch.set_default_dtype(getattr(torch, d))
        nabla.set_default_dtype(DT[d])
        try:
            want = torch.result_type(torch_operand(a, "tensor"), 2.5)
            assert f"torch.{(operand(a, 'tensor') + 2.5).dtype.name}" == str(want)
        finally:
            torch.set_default_dtype(torch.float32)
            nabla.set_default_dtype(nabla.float32)
