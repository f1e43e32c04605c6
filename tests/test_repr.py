"""repr() of tensors: PyTorch's text with 'torch.' replaced by 'nabla.'.

The expected strings are written out by hand (they are what PyTorch 2.x
prints); when torch is importable the repr is also compared with torch's on a
generated set of tensors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla

NAN, INF = float("nan"), float("inf")

CASES = [
    ("zero_dim_float", lambda: nabla.tensor(3.5), "tensor(3.5000)"),
    ("zero_dim_int", lambda: nabla.tensor(7), "tensor(7)"),
    ("zero_dim_f64", lambda: nabla.tensor(0.1, dtype=nabla.float64), "tensor(0.1000, dtype=nabla.float64)"),
    ("zero_dim_sci", lambda: nabla.tensor(1e-5), "tensor(1.0000e-05)"),
    ("ints", lambda: nabla.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    ("negative_ints", lambda: nabla.tensor([-1, 2, -3]), "tensor([-1,  2, -3])"),
    ("int64_extremes", lambda: nabla.tensor([-2 ** 63, 2 ** 63 - 1]),
     "tensor([-9223372036854775808,  9223372036854775807])"),
    ("floats", lambda: nabla.tensor([0.5, 1.25, -3.0]), "tensor([ 0.5000,  1.2500, -3.0000])"),
    ("integer_valued_floats", lambda: nabla.tensor([0.0, 1.0, 2.0]), "tensor([0., 1., 2.])"),
    ("negative_floats_2d", lambda: nabla.tensor([[-1.5, 2.25], [3.125, -40.0]]),
     "tensor([[ -1.5000,   2.2500],\n        [  3.1250, -40.0000]])"),
    ("sci_small", lambda: nabla.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    ("sci_big", lambda: nabla.tensor([1e9, 1.0]), "tensor([1.0000e+09, 1.0000e+00])"),
    ("sci_int_valued_above_1e8", lambda: nabla.tensor([1e8, 1.0]), "tensor([1.0000e+08, 1.0000e+00])"),
    ("bool", lambda: nabla.tensor([True, False]), "tensor([ True, False])"),
    ("bool_2d", lambda: nabla.tensor([[True, False], [False, True]]),
     "tensor([[ True, False],\n        [False,  True]])"),
    ("float64", lambda: nabla.tensor([1.5, 2.5], dtype=nabla.float64), "tensor([1.5000, 2.5000], dtype=nabla.float64)"),
    ("int32", lambda: nabla.tensor([1, 2], dtype=nabla.int32), "tensor([1, 2], dtype=nabla.int32)"),
    ("uint8", lambda: nabla.tensor([0, 255], dtype=nabla.uint8), "tensor([  0, 255], dtype=nabla.uint8)"),
    ("int8", lambda: nabla.tensor([-128, 5], dtype=nabla.int8), "tensor([-128,    5], dtype=nabla.int8)"),
    ("int16", lambda: nabla.tensor([7], dtype=nabla.int16), "tensor([7], dtype=nabla.int16)"),
    ("float16", lambda: nabla.tensor([1.5, 2.5], dtype=nabla.float16), "tensor([1.5000, 2.5000], dtype=nabla.float16)"),
    ("float16_sci", lambda: nabla.tensor([1e-4, 60000.0], dtype=nabla.float16),
     "tensor([1.0002e-04, 6.0000e+04], dtype=nabla.float16)"),
    ("bfloat16", lambda: nabla.tensor([1.5, -2.25, 3.0], dtype=nabla.bfloat16),
     "tensor([ 1.5000, -2.2500,  3.0000], dtype=nabla.bfloat16)"),
    ("empty_1d", lambda: nabla.zeros(0), "tensor([])"),
    ("empty_2d", lambda: nabla.zeros(0, 3), "tensor([], size=(0, 3))"),
    ("empty_f64", lambda: nabla.zeros(0, 3, dtype=nabla.float64), "tensor([], size=(0, 3), dtype=nabla.float64)"),
    ("empty_int64", lambda: nabla.zeros(2, 0, dtype=nabla.int64), "tensor([], size=(2, 0), dtype=nabla.int64)"),
    ("empty_bool", lambda: nabla.zeros(0, dtype=nabla.bool), "tensor([], dtype=nabla.bool)"),
    ("nested_3d", lambda: nabla.arange(24).view(2, 3, 4),
     "tensor([[[ 0,  1,  2,  3],\n"
     "         [ 4,  5,  6,  7],\n"
     "         [ 8,  9, 10, 11]],\n"
     "\n"
     "        [[12, 13, 14, 15],\n"
     "         [16, 17, 18, 19],\n"
     "         [20, 21, 22, 23]]])"),
    ("nested_3d_float", lambda: nabla.tensor((np.arange(12.0) / 4).reshape(2, 3, 2), dtype=nabla.float32),
     "tensor([[[0.0000, 0.2500],\n"
     "         [0.5000, 0.7500],\n"
     "         [1.0000, 1.2500]],\n"
     "\n"
     "        [[1.5000, 1.7500],\n"
     "         [2.0000, 2.2500],\n"
     "         [2.5000, 2.7500]]])"),
    ("wrap_floats", lambda: nabla.tensor(np.arange(30) * 1.5, dtype=nabla.float32),
     "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
     "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
     "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
     "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])"),
    ("wrap_ints", lambda: nabla.arange(100, 130),
     "tensor([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113,\n"
     "        114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,\n"
     "        128, 129])"),
    ("suffix_on_own_line", lambda: nabla.tensor(np.arange(9) / 8),
     "tensor([0.0000, 0.1250, 0.2500, 0.3750, 0.5000, 0.6250, 0.7500, 0.8750, 1.0000],\n"
     "       dtype=nabla.float64)"),
    ("suffix_after_wrap", lambda: nabla.tensor(np.arange(9) * 1000000, dtype=nabla.int32),
     "tensor([      0, 1000000, 2000000, 3000000, 4000000, 5000000, 6000000, 7000000,\n"
     "        8000000], dtype=nabla.int32)"),
    ("summarised", lambda: nabla.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    ("summarised_float", lambda: nabla.arange(1001.0), "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])"),
    ("summarised_rows", lambda: nabla.arange(3000).view(1000, 3),
     "tensor([[   0,    1,    2],\n"
     "        [   3,    4,    5],\n"
     "        [   6,    7,    8],\n"
     "        ...,\n"
     "        [2991, 2992, 2993],\n"
     "        [2994, 2995, 2996],\n"
     "        [2997, 2998, 2999]])"),
    ("summarised_cols_sci", lambda: nabla.arange(2002.0).view(2, 1001),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9800e+02, 9.9900e+02,\n"
     "         1.0000e+03],\n"
     "        [1.0010e+03, 1.0020e+03, 1.0030e+03,  ..., 1.9990e+03, 2.0000e+03,\n"
     "         2.0010e+03]])"),
    ("nan_inf_with_decimals", lambda: nabla.tensor([NAN, INF, -INF, 1.5]), "tensor([   nan,    inf,   -inf, 1.5000])"),
    ("nan_inf_integer_valued", lambda: nabla.tensor([NAN, INF, -INF, 1.0]), "tensor([nan, inf, -inf, 1.])"),
    ("inf_and_int", lambda: nabla.tensor([INF, 2.0]), "tensor([inf, 2.])"),
    ("only_nan", lambda: nabla.tensor([NAN]), "tensor([nan])"),
    ("signed_zeros", lambda: nabla.tensor([-0.0, 0.0]), "tensor([-0., 0.])"),
]


@pytest.mark.parametrize("make, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_repr_matches_pytorch_text(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_repr_follows_default_dtype():
    nabla.set_default_dtype(nabla.float64)
    assert repr(nabla.tensor([1.5, 2.5])) == "tensor([1.5000, 2.5000])"
    assert repr(nabla.tensor([1.5, 2.5], dtype=nabla.float32)) == "tensor([1.5000, 2.5000], dtype=nabla.float32)"
    assert repr(nabla.tensor([1, 2])) == "tensor([1, 2])"


def test_repr_of_views_equals_repr_of_copies():
    t = nabla.arange(12.0).view(3, 4)
    v = t.t()[1:, ::2]
    assert repr(v) == repr(v.contiguous()) == repr(nabla.tensor(v.numpy()))
    assert repr(t[1]) == "tensor([4., 5., 6., 7.])"
    assert repr(nabla.zeros(3).expand(2, 3)) == "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"


def test_format_protocol():
    s = nabla.tensor(3.14159)
    assert f"{s:.2f}" == "3.14"
    assert f"{nabla.tensor(42):>5}" == "   42"
    assert f"{s}" == str(s.item())  # PyTorch formats a 0-dim tensor as its value
    t = nabla.tensor([1, 2])
    assert f"{t}" == "tensor([1, 2])"


def test_dtype_device_size_reprs():
    assert repr(nabla.float32) == "nabla.float32" and repr(nabla.bool) == "nabla.bool"
    assert repr(nabla.bfloat16) == "nabla.bfloat16"
    assert repr(nabla.device("cpu")) == "device(type='cpu')" and str(nabla.device("cpu")) == "cpu"
    assert repr(nabla.device("cuda", 1)) == "device(type='cuda', index=1)" and str(nabla.device("cuda:1")) == "cuda:1"
    assert repr(nabla.zeros(2, 3).shape) == "nabla.Size([2, 3])" and repr(nabla.tensor(1).shape) == "nabla.Size([])"


# ---- differential: the same values through torch ----

DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _generate(rng, n_cases):
    for i in range(n_cases):
        dt = DTYPE_NAMES[i % len(DTYPE_NAMES)]
        nd = int(rng.integers(0, 4))
        shape = tuple(int(s) for s in rng.integers(1 if i % 17 else 0, 7 if nd > 1 else 40, nd))
        if i % 23 == 0:
            shape = (int(rng.integers(1001, 1200)),)
        elif i % 29 == 0:
            shape = (int(rng.integers(30, 40)), int(rng.integers(30, 40)))
        n = math.prod(shape)
        kind = i % 6
        if kind == 0:
            a = rng.standard_normal(n)
        elif kind == 1:
            a = rng.integers(-1000, 1000, n).astype(float)
        elif kind == 2:
            a = rng.standard_normal(n) * 10.0 ** rng.integers(-12, 12, n)
        elif kind == 3:
            a = rng.standard_normal(n) * 10.0 ** int(rng.integers(-8, 10))
        elif kind == 4:
            a = rng.integers(0, 2, n).astype(float)
        else:
            a = np.round(rng.standard_normal(n) * 100, int(rng.integers(0, 3)))
        if dt in ("float32", "float64", "float16", "bfloat16") and n and i % 7 == 0:
            a[rng.integers(0, n, 2)] = rng.choice([NAN, INF, -INF], 2)
        a = a.reshape(shape)
        if dt == "bool":
            a = a != 0
        elif not dt.endswith(("float32", "float64", "float16", "bfloat16")):
            info = np.iinfo(getattr(np, dt))
            a = np.clip(np.nan_to_num(a), info.min, info.max).astype(np.int64)
        yield dt, a


def test_repr_matches_torch_on_generated_tensors():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    mismatches = []
    for dt, a in _generate(rng, 800):
        tt = torch.tensor(a.tolist() if a.ndim else a.item(), dtype=getattr(torch, dt)) if a.size \
            else torch.zeros(a.shape, dtype=getattr(torch, dt))
        src = tt.float().numpy() if dt == "bfloat16" else tt.numpy()  # the exact values torch holds
        nt = nabla.tensor(src).to(getattr(nabla, dt))
        expected = repr(tt).replace("torch.", "nabla.")
        if repr(nt) != expected:
            mismatches.append(f"{dt} {a.shape}:\n{repr(nt)}\n!=\n{expected}")
    assert not mismatches, f"{len(mismatches)} mismatches; first:\n" + "\n\n".join(mismatches[:3])
