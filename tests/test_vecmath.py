"""Accuracy of the vectorised float kernels (src/ops/vecmath*.h, unary_float.c):
max error in ulp over dense sweeps against NumPy float64, and exact special
values, for every instruction-set build (NABLA_CPU_CAPABILITY caps the choice, so each
build runs in its own process)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import nabla

TESTS = os.path.dirname(os.path.abspath(__file__))
ISAS = ["native", "avx2", "default"]


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _math(fn):
    """A math-module function over an array (double precision: the float64 bounds
    of erf and erfc allow for it)."""
    return lambda a: np.array([fn(float(v)) for v in a.ravel()]).reshape(a.shape)


# name -> (reference, max ulp for float32, max ulp for float64), references in
# float64 for float32 and in long double for float64. The bounds are those of
# the AVX-512 kernels; the AVX2 and baseline builds call glibc's libmvec
# (documented bound: 4 ulp).
FUNCS = {
    "exp": (np.exp, 1.5, 2), "expm1": (np.expm1, 2, 2.5), "log": (np.log, 1.5, 2), "log1p": (np.log1p, 2, 2),
    "tanh": (np.tanh, 3, 3), "sigmoid": (_sigmoid, 3, 3), "silu": (lambda a: a * _sigmoid(a), 4, 4),
    "sqrt": (np.sqrt, 1, 1), "exp2": (np.exp2, 4, 4), "log2": (np.log2, 4, 4), "log10": (np.log10, 4, 4),
    "sin": (np.sin, 4, 4), "cos": (np.cos, 4, 4), "atan": (np.arctan, 4, 4), "sinh": (np.sinh, 4, 4),
    "cosh": (np.cosh, 4, 4), "erf": (_math(math.erf), 2, 4), "erfc": (_math(math.erfc), 4, 4),
}
SLOW_REF = {"erf", "erfc"}  # swept over every 16th input


def _inputs(np_dtype) -> np.ndarray:
    """Bit patterns spread over the whole type (every sign, exponent, subnormals,
    inf, NaN) plus dense runs around the boundaries of the kernels."""
    if np_dtype == np.float32:
        bits = np.arange(0, 1 << 32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
        edges = [88.72, 88.7228, -87.34, -103.28, -103.97, 9.0, -18.0, 0.0, 1.0, -1.0, 2.0, 0.5, 1e-38]
        width = 1e-3
    else:
        rng = np.random.default_rng(7)
        bits = rng.integers(0, 1 << 63, 1 << 21, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, 1 << 21).astype(np.uint64)
        bits = bits.view(np.float64)
        edges = [709.78, 709.7827, -708.39, -745.13, -745.1332, 19.06, -40.0, 0.0, 1.0, -1.0, 2.0, 0.5, 1e-300]
        width = 1e-9
    runs = [np.linspace(e - width * max(1, abs(e)), e + width * max(1, abs(e)), 20001) for e in edges]
    runs.append(np.linspace(-20, 20, 400001))
    runs.append(np.geomspace(1e-30 if np_dtype == np.float32 else 1e-300, 1e3, 200001))
    return np.concatenate([bits, *(r.astype(np_dtype) for r in runs)])


def _ulps(got: np.ndarray, ref: np.ndarray, np_dtype) -> float:
    """Largest |got - ref| in units of the last place of ref rounded to np_dtype;
    where that rounding is inf or NaN, got must equal it."""
    info = np.finfo(np_dtype)
    ref_r = ref.astype(np_dtype)
    special = ~np.isfinite(ref_r)
    bad = special & ~((got == ref_r) | (np.isnan(got) & np.isnan(ref_r)))
    if bad.any():
        return float("inf")
    g, r = got[~special].astype(ref.dtype), ref[~special]
    bad_nan = ~np.isfinite(g)
    if bad_nan.any():
        return float("inf")
    _, e = np.frexp(r)
    ulp = np.ldexp(ref.dtype.type(1), np.maximum(e - info.nmant - 1, info.minexp - info.nmant))
    return float(np.max(np.abs(g - r) / ulp)) if r.size else 0.0


def measure() -> dict:
    """Max ulp per (function, dtype) in this process (its NABLA_CPU_CAPABILITY)."""
    import nabla.nn.functional as F
    out = {}
    with np.errstate(all="ignore"):
        for np_dtype, dt, ref_dtype in ((np.float32, "float32", np.float64), (np.float64, "float64", np.longdouble)):
            x = _inputs(np_dtype)
            t = nabla.tensor(x)
            for name, (ref, _, _) in FUNCS.items():
                fn = F.silu if name == "silu" else getattr(nabla, name)
                got = fn(t).numpy()
                keep = x > -87 if name == "silu" else slice(None)  # below, x e^x / (1 + e^x) with e^x subnormal
                if name in SLOW_REF:
                    keep = slice(None, None, 16)
                out[f"{name}/{dt}"] = _ulps(got[keep], ref(x[keep].astype(ref_dtype)), np_dtype)
    return out


@pytest.fixture(scope="module", params=ISAS)
def isa_errors(request):
    env = dict(os.environ)
    env.pop("NABLA_CPU_CAPABILITY", None)
    if request.param != "native":
        env["NABLA_CPU_CAPABILITY"] = request.param
    code = "import json, test_vecmath as t; print(json.dumps(t.measure()))"
    res = subprocess.run([sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    return request.param, json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FUNCS)
def test_max_ulp_error(isa_errors, name, dtype):
    isa, errors = isa_errors
    bound = FUNCS[name][1 if dtype == "float32" else 2]
    if isa != "native":
        bound = max(bound, 5 if name == "silu" else 4)
    assert errors[f"{name}/{dtype}"] <= bound, f"{name} {dtype}: {errors[f'{name}/{dtype}']} ulp > {bound}"


INF, NAN = float("inf"), float("nan")
SPECIAL = {
    "exp": [(-INF, 0.0), (INF, INF), (NAN, NAN), (0.0, 1.0), (-0.0, 1.0), (1000.0, INF), (-1000.0, 0.0)],
    "expm1": [(-INF, -1.0), (INF, INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (1000.0, INF), (-1000.0, -1.0)],
    "log": [(0.0, -INF), (-0.0, -INF), (-1.0, NAN), (-INF, NAN), (INF, INF), (NAN, NAN), (1.0, 0.0)],
    "log1p": [(-1.0, -INF), (-2.0, NAN), (-INF, NAN), (INF, INF), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0)],
    "tanh": [(INF, 1.0), (-INF, -1.0), (NAN, NAN), (0.0, 0.0), (-0.0, -0.0), (30.0, 1.0), (-30.0, -1.0)],
    "sigmoid": [(INF, 1.0), (-INF, 0.0), (NAN, NAN), (0.0, 0.5), (200.0, 1.0), (-1000.0, 0.0)],
    "sqrt": [(0.0, 0.0), (-0.0, -0.0), (-1.0, NAN), (INF, INF), (-INF, NAN), (NAN, NAN), (4.0, 2.0)],
}


def _gelu_float32_errors() -> dict:
    """gelu's max ulp over float32 inputs (every 7th of the bit-pattern sweep, the
    dense runs, and -14 to 6 densely), in this process's instruction set: against
    x erfc(-x / sqrt 2) / 2 in float64, tail included (down to -14, where it underflows)."""
    from scipy.special import erfc
    import nabla.nn.functional as F
    x = np.concatenate([_inputs(np.float32)[::7], np.linspace(-14, 6, 1000001, dtype=np.float32)])
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        ref = 0.5 * x64 * erfc(-x64 / np.sqrt(2.0))
        ref[np.isneginf(x64)] = np.nan  # -inf * 0, as in PyTorch
        got = F.gelu(nabla.tensor(x)).numpy()
        return {"gelu": _ulps(got, ref, np.float32)}


@pytest.mark.parametrize("isa", ISAS)
def test_gelu_keeps_its_relative_accuracy_in_the_tail(isa):
    """float32 gelu computes erfc(-x / sqrt 2) with -x^2 / 2 carried exactly, so the
    negative tail (values down to the subnormals) keeps its relative accuracy (PyTorch's
    x/2 (1 + erf(x / sqrt 2)) is 17% off at x = -5 and 0 below -5.5)."""
    env = dict(os.environ)
    env.pop("NABLA_CPU_CAPABILITY", None)
    if isa != "native":
        env["NABLA_CPU_CAPABILITY"] = isa
    code = "import json, test_vecmath as t; print(json.dumps(t._gelu_float32_errors()))"
    res = subprocess.run([sys.executable, "-c", code], cwd=TESTS, env=env, capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr
    errors = json.loads(res.stdout.strip().splitlines()[-1])
    from nabla.backends.cpu import get_cpu_capability
    # AVX-512: nb_gelu16 (measured: 6.5 ulp at most, 0.8 on average); other builds:
    # libmvec's erfcf of a rounded -x / sqrt 2, whose relative error grows as x^2 ulp
    # in the tail (about 100 ulp at x = -14).
    bound = 8 if isa == "native" and get_cpu_capability() == "AVX512" else 256
    assert errors["gelu"] <= bound, errors


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
@pytest.mark.parametrize("name", SPECIAL)
def test_special_values_are_exact(name, dtype):
    xs, want = zip(*SPECIAL[name])
    # Repeated so that both the vector body and the masked tail see every value.
    x = np.array(xs * 5, dtype=np.float64)
    got = getattr(nabla, name)(nabla.tensor(x, dtype=dtype)).numpy().astype(np.float64)
    w = np.array(want * 5)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(w))
    ok = ~np.isnan(w)
    np.testing.assert_array_equal(got[ok], w[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(w[ok]))


@pytest.mark.parametrize("dtype, np_dtype", [(nabla.float32, np.float32), (nabla.float64, np.float64)])
def test_overflow_and_underflow_boundaries(dtype, np_dtype):
    info = np.finfo(np_dtype)
    big = np.log(np.float64(info.max))  # the largest x with a finite exp
    x = np.array([np.nextafter(np_dtype(big), np_dtype(0)), np_dtype(big) * np_dtype(1.0001),
                  np.log(np.float64(info.smallest_subnormal)) + 0.1, -np.log(np.float64(info.max)) * 2], np_dtype)
    got = nabla.exp(nabla.tensor(x)).numpy()
    assert np.isfinite(got[0]) and got[0] > info.max / 2
    assert got[1] == np.inf
    assert 0 < got[2] < info.tiny  # a subnormal, not flushed
    assert got[3] == 0
    sub = np.array([info.smallest_subnormal, info.tiny / 3], np_dtype)
    want = np.log(sub.astype(np.float64))
    np.testing.assert_allclose(nabla.log(nabla.tensor(sub)).numpy(), want, rtol=4 * info.eps)
    np.testing.assert_allclose(nabla.sqrt(nabla.tensor(sub)).numpy(), np.sqrt(sub.astype(np.float64)),
                               rtol=info.eps)


def _same(got, want, exact):
    if exact:
        np.testing.assert_array_equal(got, want)
    else:  # libmvec's scalar remainder loop may differ from its vector lanes by an ulp
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps, atol=0)


@pytest.mark.parametrize("name", ["exp", "tanh", "log", "sqrt", "sigmoid", "expm1", "sin"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_strided_and_contiguous_agree(name, dtype):
    """Strided runs go through a gathered block: the same kernel, the same bits
    for vecmath's kernels (libmvec's: within a few ulp)."""
    exact = name != "sin" and os.environ.get("NABLA_CPU_CAPABILITY", "native") == "native"  # else all libmvec
    base = np.random.default_rng(3).uniform(0.01, 5, (300, 517)).astype(dtype)
    t = nabla.tensor(base)
    fn = getattr(nabla, name)
    _same(fn(t[:, ::3]).numpy(), fn(nabla.tensor(np.ascontiguousarray(base[:, ::3]))).numpy(), exact)
    _same(fn(t.transpose(0, 1)).numpy(), fn(t).numpy().T, exact)
    out = nabla.empty(517, 300, dtype=t.dtype).transpose(0, 1)  # a strided destination
    fn(t, out=out)
    _same(out.numpy(), fn(t).numpy(), exact)
