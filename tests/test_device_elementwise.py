"""Elementwise ops on every device (the `device` fixture: CPU always, CUDA when
there is one), checked against PyTorch on the CPU at per-dtype tolerances, plus
the cross-device check: every op on CUDA against nabla's own CPU result.
Covers broadcasting, strided (transposed) operands, Python and 0-dim scalars,
out=, in-place, mixed dtypes, bool results and empty tensors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
F, TF = nabla.nn.functional, torch.nn.functional

needs_cuda = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

DTYPES = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 1e-5, 1e-6),
    "float64": (nabla.float64, torch.float64, 1e-12, 1e-12),
    "float16": (nabla.float16, torch.float16, 2e-3, 1e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 1.6e-2, 1e-2),
}

# name: (nabla fn, torch fn, input range)
UNARY = {n: (getattr(nabla, n), getattr(torch, n), (-2, 2)) for n in [
    "exp", "exp2", "expm1", "sin", "cos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "neg",
    "abs", "sign", "relu", "square", "floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite",
    "logical_not"]}
UNARY.update({n: (getattr(nabla, n), getattr(torch, n), (0.1, 3)) for n in [
    "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"]})
UNARY.update({n: (getattr(nabla, n), getattr(torch, n), (-0.9, 0.9)) for n in ["asin", "acos", "tan"]})
UNARY.update({
    "silu": (F.silu, TF.silu, (-3, 3)),
    "gelu": (F.gelu, TF.gelu, (-3, 3)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh"), (-3, 3)),
    "softplus": (lambda x: F.softplus(x, beta=2.0, threshold=3.0),
                 lambda x: TF.softplus(x, beta=2.0, threshold=3.0), (-3, 3)),
    "elu": (lambda x: F.elu(x, 0.7), lambda x: TF.elu(x, 0.7), (-3, 3)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda x: TF.leaky_relu(x, 0.1), (-3, 3)),
    "clamp": (lambda x: nabla.clamp(x, -0.5, 0.75), lambda x: torch.clamp(x, -0.5, 0.75), (-2, 2)),
    "nan_to_num": (lambda x: nabla.nan_to_num(nabla.log(x), nan=1.5, posinf=9.0, neginf=-9.0),
                   lambda x: torch.nan_to_num(torch.log(x), nan=1.5, posinf=9.0, neginf=-9.0), (-1, 1)),
})

BINARY = {n: (getattr(nabla, n), getattr(torch, n)) for n in [
    "mul", "div", "maximum", "minimum", "atan2", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor", "floor_divide", "remainder", "fmod"]}
BINARY.update({
    "add": (lambda a, b: nabla.add(a, b, alpha=0.5), lambda a, b: torch.add(a, b, alpha=0.5)),
    "sub": (lambda a, b: nabla.sub(a, b, alpha=2.0), lambda a, b: torch.sub(a, b, alpha=2.0)),
    "pow": (lambda a, b: nabla.pow(nabla.abs(a), b), lambda a, b: torch.pow(torch.abs(a), b)),
})


def make(shape, lo, hi, seed, dtype, device):
    """The same values as a nabla tensor on device and a torch CPU tensor."""
    arr = np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(np.float32)
    if arr.size:
        arr.flat[0] = 0.0  # zeros exercise sign, relu, logical ops, log's -inf
    nd, td = DTYPES[dtype][:2]
    return nabla.tensor(arr).to(nd).to(device), torch.tensor(arr).to(td)


def check(result, expected, dtype):
    rtol, atol = DTYPES[dtype][2:]
    assert tuple(result.shape) == tuple(expected.shape)
    want = expected.to(torch.float64).numpy() if expected.dtype != torch.bool else expected.numpy()
    got = result.cpu()
    if expected.dtype == torch.bool:
        assert got.dtype == nabla.bool
        np.testing.assert_array_equal(got.numpy(), want)
    else:
        np.testing.assert_allclose(got.to(nabla.float64).numpy(), want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_torch(device, name, dtype):
    fn, tfn, (lo, hi) = UNARY[name]
    x, tx = make((3, 37), lo, hi, 1, dtype, device)
    r = fn(x)
    assert r.device.type == device
    check(r, tfn(tx), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_torch(device, name, dtype):
    fn, tfn = BINARY[name]
    a, ta = make((4, 1, 33), -3, 3, 2, dtype, device)  # broadcast against b
    b, tb = make((5, 33), 0.5, 2, 3, dtype, device)
    r = fn(a, b)
    assert r.device.type == device
    check(r, tfn(ta, tb), dtype)


# div's rounding modes are kernels of their own (NB_BK_DIV_TRUNC, NB_BK_DIV_FLOOR). float32 and
# float64 only: for float16 / bfloat16 PyTorch rounds the quotient to the half type before
# truncating it, while nabla (CPU and CUDA alike) truncates the float32 quotient.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_div_rounding_modes_match_torch(device, mode, dtype):
    a, ta = make((4, 1, 33), -3, 3, 2, dtype, device)
    b, tb = make((5, 33), 0.5, 2, 3, dtype, device)
    r = nabla.div(a, b, rounding_mode=mode)
    assert r.device.type == device
    check(r, torch.div(ta, tb, rounding_mode=mode), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_strided_scalar_out_and_inplace(device, dtype):
    base, tbase = make((33, 6), -2, 2, 4, dtype, device)
    x, tx = base.t(), tbase.t()  # non-contiguous
    check(x * 2.5, tx * 2.5, dtype)  # Python scalar
    check(3 - x, 3 - tx, dtype)
    check(nabla.tensor(0.5) + x, torch.tensor(0.5) + tx, dtype)  # 0-dim CPU tensor
    check(x > 0.25, tx > 0.25, dtype)
    out = nabla.empty((6, 33), dtype=DTYPES[dtype][0], device=device)
    nabla.mul(x, x, out=out)
    check(out, tx * tx, dtype)
    y, ty = make((6, 33), -2, 2, 5, dtype, device)
    y.add_(x)
    ty.add_(tx)
    check(y, ty, dtype)
    y.mul_(y)  # exact alias
    ty.mul_(ty)
    check(y, ty, dtype)


def test_mixed_dtypes_and_empty(device):
    a, ta = make((7,), -2, 2, 6, "float32", device)
    b, tb = make((7,), -2, 2, 7, "float64", device)
    r = a + b
    assert r.dtype == nabla.float64
    check(r, ta + tb, "float64")
    out = nabla.empty((7,), dtype=nabla.float64, device=device)
    nabla.exp(a, out=out)  # float32 result written into a float64 out
    check(out, torch.exp(ta).double(), "float32")
    e, te = make((0, 3), 0, 1, 8, "float32", device)
    check(nabla.sin(e) + e, torch.sin(te) + te, "float32")
    z, tz = make((), 0, 1, 9, "float32", device)
    check(nabla.exp(z) * a, torch.exp(tz) * ta, "float32")


@needs_cuda
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY) + sorted(BINARY))
def test_cuda_matches_cpu(name, dtype):
    """The cross-device check: the same op on CUDA and on nabla's CPU."""
    if name in UNARY:
        fn, _, (lo, hi) = UNARY[name]
        args = [make((2, 3, 130), lo, hi, 10, dtype, "cpu")[0]]
    else:
        fn = BINARY[name][0]
        args = [make((2, 1, 130), -3, 3, 11, dtype, "cpu")[0], make((3, 130), 0.5, 2, 12, dtype, "cpu")[0]]
    want = fn(*args)
    got = fn(*[t.to("cuda") for t in args])
    want_t = torch.from_numpy(want.to(nabla.float64).numpy()) if want.dtype != nabla.bool \
        else torch.from_numpy(want.numpy())
    check(got, want_t, dtype)


@needs_cuda
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_gelu_keeps_the_negative_tail(approximate, dtype):
    """gelu and its gradient on CUDA keep the CPU's relative accuracy where x/2 (1 + erf) and
    x/2 (1 + tanh) cancel and where 1 / (1 + e^-u) flushes to 0 (x down to -14: values to 1e-43)."""
    x = np.linspace(-14, 3, 1001)
    ref = np.float64 if dtype == "float64" else np.float32
    cpu = nabla.tensor(x, dtype=getattr(nabla, dtype), requires_grad=True)
    dev = nabla.tensor(x, dtype=getattr(nabla, dtype), device="cuda", requires_grad=True)
    outs = []
    for t in (cpu, dev):
        y = F.gelu(t, approximate=approximate)
        y.sum().backward()
        outs.append((y.detach().cpu().numpy().astype(np.float64), t.grad.cpu().numpy().astype(np.float64)))
    # float32: the device rounds x / sqrt 2 before erfc (relative error x^2 ulp at most, 1.2e-5 at
    # x = -14); the cancelling forms were wrong by 100% there. Subnormal results: absolute spacing.
    rtol = 1e-4 if dtype == "float32" else 1e-12
    for want, got in zip(outs[0], outs[1]):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.finfo(ref).tiny)


@needs_cuda
def test_cuda_ops_queue_without_sync():
    """Elementwise ops only queue work: a long chain returns before the device is done.
    The tensor grows until the chain outlasts its own launches (on a fast device the
    smallest sizes finish before the host looks), up to 16M elements."""
    for n in (1 << 16, 1 << 20, 1 << 24):
        x = nabla.ones(n, device="cuda")
        nabla.cuda.synchronize()
        start, end = nabla.cuda.Event(enable_timing=True), nabla.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(50):
            x = nabla.sin(x) * 1.0001
        end.record()
        ran_ahead = not end.query()
        end.synchronize()
        assert np.isfinite(x.cpu().numpy()).all()
        if ran_ahead:
            return
    pytest.fail("the host waited for every elementwise launch (the device finished first at every size)")


@needs_cuda
def test_unsupported_dtype_on_cuda_is_clear():
    """A dtype an op has no kernel for says so, naming the op, as on the CPU."""
    a = nabla.arange(4, device="cuda")
    assert (a & a).cpu().tolist() == [0, 1, 2, 3]
    with pytest.raises(RuntimeError, match="bitwise_and: not implemented for 'float32'"):
        a.float() & a.float()


ROW_CASES = {  # name: (a shape or view, b shape or view): each a row-wise layout of the device kernels
    "m + row": (lambda m: m, lambda m: m[0]),
    "odd rows": (lambda m: m[:, :33], lambda m: m[1, 5:38]),
    "misaligned rows": (lambda m: m[1:, 1:], lambda m: m[0, 1:]),
    "m + col": (lambda m: m[:, :64], lambda m: m[:, 3:4]),
    "3-d rows": (lambda m: m[:6].reshape(2, 3, 72), lambda m: m[2:4].reshape(2, 1, 72)),
    "empty rows": (lambda m: m[:0], lambda m: m[0]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(ROW_CASES))
def test_row_layouts_match_torch(device, case, dtype):
    """Inputs dense along the output's rows or broadcast along them (the device row kernel): odd row
    lengths, misaligned row starts, columns, 3-D and empty, with a float and a bool result."""
    m, tm = make((7, 72), -2, 2, 13, dtype, device)
    fa, fb = ROW_CASES[case]
    a, b, ta, tb = fa(m), fb(m), fa(tm), fb(tm)
    check(nabla.add(a, b, alpha=0.5), torch.add(ta, tb, alpha=0.5), dtype)
    check(a > b, ta > tb, dtype)
    check(nabla.exp(a) * 3, torch.exp(ta) * 3, dtype)


TILE_CASES = {  # name: (view of m [45, 70] or of its 3-D reshape, operation)
    "m.t() * 2": lambda m, n: m.t() * 2,
    "exp(m.t())": lambda m, n: m.t().exp(),
    "m.t() + n": lambda m, n: m.t() + n,
    "n - m.t()": lambda m, n: n - m.t(),
    "m.t() * m.t()": lambda m, n: m.t() * m.t(),
    "m.t() > n": lambda m, n: m.t() > n,
    "strided m.t()": lambda m, n: m[2:43, 3:68].t() + n[3:68, 2:43],
    "permute(2, 0, 1)": lambda m, n: m.reshape(5, 9, 70).permute(2, 0, 1) * 3,
    "permute(1, 2, 0)": lambda m, n: m.reshape(5, 9, 70).permute(1, 2, 0) + 1,
    "permute + row": lambda m, n: m.reshape(5, 9, 70).permute(0, 2, 1) + n[0, :9],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(TILE_CASES))
def test_transposed_inputs_match_torch(device, case, dtype):
    """Inputs whose unit-stride dim is not the output's (the device tile kernel): sides not multiples of
    32, a second dense or transposed input, strided views, 3-D permutations, a bool result."""
    m, tm = make((45, 70), -2, 2, 14, dtype, device)
    n, tn = make((70, 45), -2, 2, 15, dtype, device)
    fn = TILE_CASES[case]
    check(fn(m, n), fn(tm, tn), dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_transposed_out_matches_torch(device, dtype):
    """A transposed out= with dense inputs: the output's layout orders the kernel's dims."""
    a, ta = make((37, 50), -2, 2, 16, dtype, device)
    b, tb = make((37, 50), -2, 2, 17, dtype, device)
    out = nabla.empty((50, 37), dtype=DTYPES[dtype][0], device=device).t()
    nabla.mul(a, b, out=out)
    check(out, ta * tb, dtype)
