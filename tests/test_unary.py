"""Elementwise unary ops, clamp and where, differential against NumPy in float64."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

RNG = np.random.default_rng(1234)
NP_OF = {nabla.float32: np.float32, nabla.float64: np.float64, nabla.float16: np.float16,
         nabla.int8: np.int8, nabla.int16: np.int16, nabla.int32: np.int32, nabla.int64: np.int64,
         nabla.uint8: np.uint8, nabla.bool: np.bool_}
RTOL = {nabla.float32: 2e-6, nabla.float64: 1e-13, nabla.float16: 1e-3, nabla.bfloat16: 8e-3}

_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)

# name -> (float64 reference, domain sampler)
WIDE = lambda shape: RNG.uniform(-4, 4, shape)  # noqa: E731
POS = lambda shape: RNG.uniform(0.05, 6, shape)  # noqa: E731
UNIT = lambda shape: RNG.uniform(-0.99, 0.99, shape)  # noqa: E731
FLOAT_OPS = {
    "exp": (np.exp, WIDE), "exp2": (np.exp2, WIDE), "expm1": (np.expm1, WIDE), "log": (np.log, POS),
    "log2": (np.log2, POS), "log10": (np.log10, POS), "log1p": (np.log1p, POS), "sqrt": (np.sqrt, POS),
    "rsqrt": (lambda a: 1 / np.sqrt(a), POS), "sin": (np.sin, WIDE), "cos": (np.cos, WIDE), "tan": (np.tan, UNIT),
    "asin": (np.arcsin, UNIT), "acos": (np.arccos, UNIT), "atan": (np.arctan, WIDE), "sinh": (np.sinh, WIDE),
    "cosh": (np.cosh, WIDE), "tanh": (np.tanh, WIDE), "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), WIDE),
    "erf": (_erf, WIDE), "erfc": (_erfc, WIDE), "reciprocal": (lambda a: 1 / a, POS),
    "neg": (np.negative, WIDE), "abs": (np.abs, WIDE), "sign": (np.sign, WIDE), "relu": (lambda a: np.maximum(a, 0), WIDE),
    "square": (np.square, WIDE), "floor": (np.floor, WIDE), "ceil": (np.ceil, WIDE), "round": (np.round, WIDE),
    "trunc": (np.trunc, WIDE), "silu": (lambda a: a / (1 + np.exp(-a)), WIDE),
}
# The same view taken of a tensor (t.transpose / slicing) and of a NumPy array.
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 1) if isinstance(t, nabla.Tensor) else t.T,
    "sliced": lambda t: t[::2, 1:],
}


def _check(got: nabla.Tensor, want: np.ndarray, dtype) -> None:
    assert got.dtype == dtype
    assert tuple(got.shape) == want.shape
    g = got.float().numpy().astype(np.float64) if dtype == nabla.bfloat16 else got.numpy().astype(np.float64)
    np.testing.assert_allclose(g, want, rtol=RTOL.get(dtype, 0), atol=RTOL.get(dtype, 0) * 4, equal_nan=True)


def _rounded(a: np.ndarray, dtype) -> np.ndarray:
    """a rounded to dtype and back to float64 (the reference's own rounding)."""
    if dtype == nabla.bfloat16:
        return nabla.tensor(a, dtype=nabla.float32).bfloat16().float().numpy().astype(np.float64)
    return a.astype(NP_OF[dtype]).astype(np.float64)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16])
@pytest.mark.parametrize("name", FLOAT_OPS)
def test_float_op_matches_numpy(name, dtype, layout):
    ref, sample = FLOAT_OPS[name]
    base = _rounded(sample((6, 7)), dtype)
    t = LAYOUTS[layout](nabla.tensor(base, dtype=nabla.float64).to(dtype))
    a = LAYOUTS[layout](base)
    want = _rounded(ref(a), dtype)
    _check(getattr(nabla, name)(t), want, dtype)
    _check(getattr(t, name)(), want, dtype)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "sigmoid", "reciprocal", "erf"])
@pytest.mark.parametrize("dtype", [nabla.int32, nabla.int64, nabla.uint8, nabla.bool])
def test_float_math_on_integers_gives_the_default_float(name, dtype):
    a = RNG.integers(1, 5, (4, 3)).astype(NP_OF[dtype])
    r = getattr(nabla, name)(nabla.tensor(a))
    assert r.dtype == nabla.float32
    np.testing.assert_allclose(r.numpy(), FLOAT_OPS[name][0](a.astype(np.float64)), rtol=2e-6)


@pytest.mark.parametrize("name, ref", [("neg", np.negative), ("abs", np.abs), ("sign", np.sign),
                                       ("relu", lambda a: np.maximum(a, 0)), ("square", np.square),
                                       ("floor", lambda a: a), ("round", lambda a: a), ("bitwise_not", np.invert)])
@pytest.mark.parametrize("dtype", [nabla.int8, nabla.int16, nabla.int32, nabla.int64])
def test_integer_ops_keep_the_dtype(name, ref, dtype):
    a = RNG.integers(-9, 9, (5, 4)).astype(NP_OF[dtype])
    r = getattr(nabla, name)(nabla.tensor(a))
    assert r.dtype == dtype
    np.testing.assert_array_equal(r.numpy(), ref(a))


def test_predicates_and_special_values():
    a = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
    t = nabla.tensor(a)
    for name, ref in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite), ("logical_not", np.logical_not)):
        r = getattr(nabla, name)(t)
        assert r.dtype == nabla.bool
        np.testing.assert_array_equal(r.numpy(), ref(a))
    assert nabla.isnan(nabla.arange(3)).tolist() == [False] * 3
    assert nabla.isfinite(nabla.arange(3)).tolist() == [True] * 3
    assert math.isnan(nabla.sign(nabla.tensor(float("nan"))).item())
    assert math.isnan(nabla.relu(nabla.tensor(float("nan"))).item())  # NaN propagates, as in PyTorch
    assert math.copysign(1, nabla.neg(nabla.tensor(0.0)).item()) == -1
    np.testing.assert_array_equal(nabla.round(nabla.tensor([0.5, 1.5, 2.5, -0.5, -1.5])).numpy(),
                                  [0.0, 2.0, 2.0, -0.0, -2.0])  # half to even
    assert nabla.exp(nabla.tensor([1000.0])).item() == math.inf
    assert nabla.sigmoid(nabla.tensor([-1000.0, 1000.0])).tolist() == [0.0, 1.0]


def test_empty_and_zero_dim():
    assert nabla.exp(nabla.empty(0, 3)).shape == (0, 3)
    r = nabla.sqrt(nabla.tensor(16.0))
    assert r.shape == () and r.item() == 4.0


GELU_GRAD_INPUTS = """
import numpy as np
r = np.random.default_rng(5)
x = np.concatenate([r.uniform(-9, 9, 997), [-40, -15, -14.99, -0.7518, 0, 15, 40, np.inf, -np.inf, np.nan]])
g = r.uniform(-2, 2, x.size)
"""
GELU_GRAD_SCRIPT = GELU_GRAD_INPUTS + """
import sys, nabla
import nabla.nn.functional as F
outs = []
for approx in ("none", "tanh"):
    for dt in (nabla.float32, nabla.float64):
        for strided in (False, True):
            xs = np.stack([x, -x], 1) if strided else x  # column 0 of a [n, 2] array: stride 2
            t = nabla.tensor(xs, dtype=dt)[:, 0] if strided else nabla.tensor(xs, dtype=dt)
            t.requires_grad_()
            F.gelu(t, approximate=approx).backward(nabla.tensor(g, dtype=dt))
            outs.append(t.grad.numpy())
np.savez(sys.argv[1], *outs)
"""


def test_gelu_backward_against_pytorch_at_every_instruction_set_level():
    """The fused gelu gradient (nb_gelu_backward) against PyTorch's, exact and tanh forms, float32 and
    float64, contiguous and strided, tails, infinities and NaN; the AVX-512, AVX2 and portable builds."""
    torch = pytest.importorskip("torch")
    from capability_runs import arrays_per_level
    ns: dict = {}
    exec(GELU_GRAD_INPUTS, ns)
    x, g = ns["x"], ns["g"]
    want = []
    for approx in ("none", "tanh"):
        for dt in (torch.float32, torch.float64):
            t = torch.tensor(x, dtype=dt, requires_grad=True)
            torch.nn.functional.gelu(t, approximate=approx).backward(torch.tensor(g, dtype=dt))
            want += [t.grad.numpy()] * 2
    for level, got in arrays_per_level(GELU_GRAD_SCRIPT).items():
        for k, (a, b) in enumerate(zip(got, want)):
            # float32: PyTorch's x/2 (1 + erf) and tanh forms round differently near gelu's zero slope
            atol, rtol = (3e-6, 1e-5) if b.dtype == np.float32 else (1e-14, 1e-12)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{level} case {k}")


def test_activations_against_formulas():
    a = RNG.uniform(-5, 5, 50)
    t = nabla.tensor(a, dtype=nabla.float64)
    erfc = np.vectorize(math.erfc)  # 1 + erf(x) cancels for negative x; erfc(-x) does not
    np.testing.assert_allclose(F.gelu(t).numpy(), 0.5 * a * erfc(-a / math.sqrt(2)), rtol=1e-12)
    tanh_ref = a / (1 + np.exp(-2 * math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))  # (1 + tanh u) / 2, no cancellation
    np.testing.assert_allclose(F.gelu(t, approximate="tanh").numpy(), tanh_ref, rtol=1e-12)
    np.testing.assert_allclose(F.softplus(t, beta=2, threshold=3).numpy(),
                               np.where(2 * a > 3, a, np.log1p(np.exp(2 * a)) / 2), rtol=1e-12)
    np.testing.assert_allclose(F.leaky_relu(t, 0.2).numpy(), np.where(a > 0, a, 0.2 * a), rtol=1e-15)
    np.testing.assert_allclose(F.elu(t, alpha=1.5).numpy(), np.where(a > 0, a, 1.5 * np.expm1(a)), rtol=1e-12)
    np.testing.assert_allclose(F.silu(t).numpy(), a / (1 + np.exp(-a)), rtol=1e-12)
    with pytest.raises(RuntimeError, match="approximate"):
        F.gelu(t, approximate="fast")


def test_inplace_forms_write_through_and_bump_the_version():
    t = nabla.tensor([1.0, 4.0, 9.0])
    v = t[1:]
    before = t._version
    v.sqrt_()
    assert t.tolist() == [1.0, 2.0, 3.0]
    assert t._version == before + 1
    x = nabla.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="can't be cast"):
        nabla.arange(3).exp_()  # a float result cannot go into an int64 tensor


def test_out_argument():
    out = nabla.empty(3, dtype=nabla.float64)
    r = nabla.exp(nabla.zeros(3), out=out)
    assert r is out and out.tolist() == [1.0, 1.0, 1.0]
    with pytest.warns(UserWarning, match="was resized since it had shape \\[4\\]"):
        assert nabla.exp(nabla.zeros(3), out=nabla.empty(4)).tolist() == [1.0] * 3


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.int32, nabla.int64, nabla.float16])
def test_clamp_matches_numpy(dtype):
    a = RNG.integers(-10, 10, (4, 5)).astype(np.float64)
    t = nabla.tensor(a).to(dtype)
    np.testing.assert_array_equal(t.clamp(-3, 4).numpy().astype(np.float64), np.clip(a, -3, 4))
    np.testing.assert_array_equal(nabla.clamp(t, min=0).numpy().astype(np.float64), np.maximum(a, 0))
    np.testing.assert_array_equal(nabla.clip(t, max=2).numpy().astype(np.float64), np.minimum(a, 2))
    np.testing.assert_array_equal(t.clamp(5, 1).numpy().astype(np.float64), np.full((4, 5), 1.0))  # min > max: max
    lo, hi = nabla.tensor([-1.0, 0, 1, 2, 3]).to(dtype), 5
    np.testing.assert_array_equal(nabla.clamp(t, lo, hi).numpy().astype(np.float64),
                                  np.minimum(np.maximum(a, [-1, 0, 1, 2, 3]), 5))
    with pytest.raises(RuntimeError, match="At least one"):
        t.clamp()
    assert math.isnan(nabla.tensor([float("nan")]).clamp(0, 1).item())


def test_where_broadcasts_and_promotes():
    cond = nabla.tensor([[True], [False]])
    a = nabla.arange(3, dtype=nabla.int32)
    r = nabla.where(cond, a, 2.5)
    assert r.dtype == nabla.float32 and r.tolist() == [[0.0, 1.0, 2.0], [2.5, 2.5, 2.5]]
    r = nabla.where(cond, a, nabla.tensor([7, 8, 9], dtype=nabla.int64))
    assert r.dtype == nabla.int64 and r.tolist() == [[0, 1, 2], [7, 8, 9]]
    x = nabla.tensor([-1.0, 2.0])
    assert x.where(x > 0, 0.0).tolist() == [0.0, 2.0]
    with pytest.raises(RuntimeError, match="boolean"):
        nabla.where(nabla.tensor([1, 0]), a[:2], a[:2])
    with pytest.raises(RuntimeError, match="must match the size"):
        nabla.where(nabla.tensor([True, False]), nabla.zeros(3), 1.0)


def test_bad_inputs_raise_and_leak_nothing():
    before = nabla.memory.stats()["live_tensors"]
    for call in (lambda: nabla.bitwise_not(nabla.zeros(2)), lambda: F.leaky_relu(nabla.arange(3)),
                 lambda: nabla.exp(nabla.zeros(2), out=nabla.zeros(2, dtype=nabla.int64)), lambda: nabla.exp([1.0, 2.0])):
        with pytest.raises((RuntimeError, TypeError)):
            call()
    assert nabla.memory.stats()["live_tensors"] == before
