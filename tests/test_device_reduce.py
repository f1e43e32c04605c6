"""Reductions on every device (the `device` fixture: CPU always, CUDA when there
is one) against PyTorch on the CPU at per-dtype tolerances: sum, mean, prod,
amax, amin, max / min with indices, argmax, argmin, var, std, vector norms,
logsumexp, all, any; over one dim, several dims, every dim, with keepdim and a
dtype, on contiguous, transposed, sliced, broadcast (expanded), empty and 0-dim
inputs, and out=. On a GPU also: every op on CUDA against nabla's own CPU
result, identical results from run to run, and the gradient of a broadcast
product (whose backward sums over the broadcast dims on the device)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from device_views import pair

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 1e-5, 1e-5),
    "float64": (nabla.float64, torch.float64, 1e-12, 1e-12),
    "float16": (nabla.float16, torch.float16, 2e-3, 2e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 1.6e-2, 1e-2),
}
INTS = {
    "int8": (nabla.int8, torch.int8), "int16": (nabla.int16, torch.int16), "int32": (nabla.int32, torch.int32),
    "int64": (nabla.int64, torch.int64), "uint8": (nabla.uint8, torch.uint8), "bool": (nabla.bool, torch.bool),
}

# name: (nabla fn, torch fn); fn(x, dim, keepdim)
FLOAT_OPS = {
    "sum": (lambda x, d, k: nabla.sum(x, d, k), lambda x, d, k: torch.sum(x, d, k)),
    "mean": (lambda x, d, k: nabla.mean(x, d, k), lambda x, d, k: torch.mean(x, d, k)),
    "amax": (lambda x, d, k: nabla.amax(x, d, k), lambda x, d, k: torch.amax(x, d, k)),
    "amin": (lambda x, d, k: nabla.amin(x, d, k), lambda x, d, k: torch.amin(x, d, k)),
    "var": (lambda x, d, k: nabla.var(x, d, keepdim=k), lambda x, d, k: torch.var(x, d, keepdim=k)),
    "std": (lambda x, d, k: nabla.std(x, d, correction=0, keepdim=k),
            lambda x, d, k: torch.std(x, d, correction=0, keepdim=k)),
    "norm2": (lambda x, d, k: nabla.linalg.vector_norm(x, 2, d, k), lambda x, d, k: torch.linalg.vector_norm(x, 2, d, k)),
    "norm1": (lambda x, d, k: nabla.linalg.vector_norm(x, 1, d, k), lambda x, d, k: torch.linalg.vector_norm(x, 1, d, k)),
    "norm3": (lambda x, d, k: nabla.linalg.vector_norm(x, 3, d, k), lambda x, d, k: torch.linalg.vector_norm(x, 3, d, k)),
    "norm0": (lambda x, d, k: nabla.linalg.vector_norm(x, 0, d, k), lambda x, d, k: torch.linalg.vector_norm(x, 0, d, k)),
    "norminf": (lambda x, d, k: nabla.linalg.vector_norm(x, float("inf"), d, k),
                lambda x, d, k: torch.linalg.vector_norm(x, float("inf"), d, k)),
    "normninf": (lambda x, d, k: nabla.linalg.vector_norm(x, float("-inf"), d, k),
                 lambda x, d, k: torch.linalg.vector_norm(x, float("-inf"), d, k)),
    "logsumexp": (lambda x, d, k: nabla.logsumexp(x, d, k), lambda x, d, k: torch.logsumexp(x, d, k)),
    "prod": (lambda x, d, k: nabla.prod(x, d[0], k), lambda x, d, k: torch.prod(x, d[0], k)),
    "all": (lambda x, d, k: nabla.all(x, d[0], k), lambda x, d, k: torch.all(x, d[0], k)),
    "any": (lambda x, d, k: nabla.any(x, d[0], k), lambda x, d, k: torch.any(x, d[0], k)),
}
# ops whose dim argument takes one int only (prod, all, any) get the first dim of a case
ONE_DIM = {"prod", "all", "any"}
INT_OPS = ["sum", "prod", "amax", "amin", "all", "any"]

# (shape, dims, layout): layout "t" transposes the last two dims, "s" takes every other row,
# "e" expands a size-1 dim (stride 0)
CASES = [
    ((5, 7), (1,), ""), ((5, 7), (0,), ""), ((3, 4, 5), (0, 2), ""), ((3, 4, 5), (0, 1, 2), ""),
    ((6, 9), (1,), "t"), ((6, 9), (0,), "t"), ((8, 5), (1,), "s"), ((4, 1, 6), (1, 2), "e"),
    ((2, 300), (1,), ""), ((3000,), (0,), ""),
]


def make(shape, layout, seed, lo=-2.0, hi=2.0):
    """float64 values for shape (after the layout's view) as a NumPy array."""
    rng = np.random.default_rng(seed)
    if layout == "t":
        base = rng.uniform(lo, hi, size=shape[:-2] + (shape[-1], shape[-2]))
    elif layout == "s":
        base = rng.uniform(lo, hi, size=(shape[0] * 2,) + shape[1:])
    elif layout == "e":
        base = rng.uniform(lo, hi, size=shape)
    else:
        base = rng.uniform(lo, hi, size=shape)
    return base


def assert_close(got, want, rtol, atol):
    assert tuple(got.shape) == tuple(want.shape)
    g = got.cpu()
    if want.dtype == torch.bool:
        assert g.dtype == nabla.bool
        np.testing.assert_array_equal(g.numpy(), want.numpy())
    elif want.is_floating_point():
        np.testing.assert_allclose(g.to(nabla.float64).numpy(), want.to(torch.float64).numpy(), rtol=rtol, atol=atol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(g.to(nabla.int64).numpy(), want.to(torch.int64).numpy())


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(FLOAT_OPS))
def test_float_reductions_match_torch(device, name, dtype, case):
    shape, dims, layout = CASES[case]
    nd, td, rtol, atol = FLOATS[dtype]
    lo = 0.5 if name in ("prod", "logsumexp") else -2.0
    arr = make(shape, layout, case, lo, 2.0)
    if name == "prod":  # keep long products finite
        arr = np.exp(np.random.default_rng(case).uniform(-2, 2, size=arr.shape) / max(shape))
    x, t = pair(arr, layout, shape, nd, td, device)
    fn, tfn = FLOAT_OPS[name]
    for keepdim in (False, True):
        got, want = fn(x, dims, keepdim), tfn(t.to(torch.float64), dims, keepdim)
        if want.is_floating_point():
            want = want.to(td)
        scale = rtol * (max(shape) ** 0.5 if dtype in ("float16", "bfloat16") else 1)
        assert_close(got, want, scale, atol * (max(shape) if name in ("sum", "norm1", "norm0") else 1))


@pytest.mark.parametrize("case", [0, 2, 4, 6, 7])
@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", INT_OPS)
def test_integer_reductions_match_torch(device, name, dtype, case):
    shape, dims, layout = CASES[case]
    nd, td = INTS[dtype]
    arr = np.round(make(shape, layout, case, -3, 3))
    if dtype in ("uint8", "bool"):
        arr = np.abs(arr) if dtype == "uint8" else (arr > 0)
    x, t = pair(arr, layout, shape, nd, td, device)
    fn, tfn = FLOAT_OPS[name]
    for keepdim in (False, True):
        assert_close(fn(x, dims, keepdim), tfn(t, dims, keepdim), 0, 0)


@pytest.mark.parametrize("dtype", list(FLOATS) + ["int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("case", [0, 1, 4, 6, 8])
def test_max_min_with_indices(device, dtype, case):
    shape, dims, layout = CASES[case]
    nd, td = (FLOATS[dtype][:2] if dtype in FLOATS else INTS[dtype])
    arr = np.round(make(shape, layout, case, -3, 3) * 2) / 2  # ties: the first index wins
    if dtype in ("uint8", "bool"):
        arr = np.abs(arr) if dtype == "uint8" else (arr > 0)
    x, t = pair(arr, layout, shape, nd, td, device)
    d = dims[0]
    for keepdim in (False, True):
        for ours, theirs in ((nabla.max, torch.max), (nabla.min, torch.min)):
            v, i = ours(x, d, keepdim)
            tv, ti = theirs(t, d, keepdim)
            assert_close(v, tv, 0, 0)
            assert_close(i, ti, 0, 0)
        if dtype != "bool":
            assert_close(nabla.argmax(x, d, keepdim), torch.argmax(t, d, keepdim), 0, 0)
            assert_close(nabla.argmin(x, d, keepdim), torch.argmin(t, d, keepdim), 0, 0)
    if dtype != "bool":
        assert nabla.argmax(x).item() == torch.argmax(t).item()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_propagates_and_wins_argmax(device, dtype):
    nd, td = FLOATS[dtype][:2]
    arr = np.array([[1.0, np.nan, 3.0, np.nan], [4.0, 2.0, 4.0, 0.0]])
    x, t = nabla.tensor(arr).to(nd).to(device), torch.tensor(arr).to(td)
    for ours, theirs in ((nabla.amax, torch.amax), (nabla.amin, torch.amin), (nabla.sum, torch.sum)):
        assert_close(ours(x, (1,)), theirs(t, (1,)), 0, 0)
    assert_close(nabla.argmax(x, 1), torch.argmax(t, 1), 0, 0)
    assert_close(nabla.argmin(x, 1), torch.argmin(t, 1), 0, 0)
    assert_close(nabla.logsumexp(x, 1), torch.logsumexp(t, 1), 1e-6, 1e-6)


def test_empty_and_zero_dim(device):
    e = nabla.zeros(3, 0).to(device)
    te = torch.zeros(3, 0)
    assert_close(nabla.sum(e, (1,)), torch.sum(te, 1), 0, 0)
    assert_close(nabla.prod(e, 1), torch.prod(te, 1), 0, 0)
    assert_close(nabla.mean(e, (1,)), torch.mean(te, 1), 0, 0)  # NaN
    assert_close(nabla.all(e, 1), torch.all(te, 1), 0, 0)
    assert_close(nabla.any(e, 1), torch.any(te, 1), 0, 0)
    assert_close(nabla.sum(e, (0,)), torch.sum(te, 0), 0, 0)  # no outputs
    assert_close(nabla.linalg.vector_norm(e, 2, (1,)), torch.linalg.vector_norm(te, 2, (1,)), 0, 0)
    s = nabla.tensor(2.5).to(device)
    ts = torch.tensor(2.5, dtype=torch.float32)
    for ours, theirs in ((nabla.sum, torch.sum), (nabla.amax, torch.amax), (nabla.mean, torch.mean)):
        assert_close(ours(s), theirs(ts), 0, 0)
    assert nabla.argmax(s).item() == 0
    with pytest.raises(IndexError, match="amax"):
        nabla.amax(e, 1)


def test_dtype_argument_and_out(device):
    arr = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 7
    x = nabla.tensor(arr).to(nabla.int32).to(device)
    t = torch.tensor(arr).to(torch.int32)
    assert_close(nabla.sum(x, (2,), dtype=nabla.float64), torch.sum(t, 2, dtype=torch.float64), 0, 0)
    assert_close(nabla.mean(x, (0, 2), dtype=nabla.float32), torch.mean(t, (0, 2), dtype=torch.float32), 1e-6, 0)
    xf = nabla.tensor(arr).to(nabla.float16).to(device)
    assert_close(nabla.sum(xf, (1,), dtype=nabla.float32), torch.tensor(arr).half().sum(1, dtype=torch.float32),
                 1e-6, 0)
    out = nabla.empty(2, 4, dtype=nabla.float64).to(device)
    r = nabla.sum(x.to(nabla.float64), 1, out=out)
    assert r is out or r._h == out._h or np.array_equal(r.cpu().numpy(), out.cpu().numpy())
    np.testing.assert_array_equal(out.cpu().numpy(), arr.sum(1))
    idx = nabla.empty(3, dtype=nabla.int64).to(device)
    vals = nabla.empty(3, dtype=nabla.int32).to(device)
    nabla.max(x[1], 1, out=(vals, idx))
    np.testing.assert_array_equal(idx.cpu().numpy(), np.argmax(arr[1], 1))
    np.testing.assert_array_equal(vals.cpu().numpy(), arr[1].max(1))


@needs_cuda
@pytest.mark.parametrize("dtype", FLOATS)
def test_cuda_matches_cpu_and_repeats_bit_for_bit(dtype):
    nd = FLOATS[dtype][0]
    rtol = FLOATS[dtype][2]
    arr = np.random.default_rng(7).standard_normal((64, 1000))
    c = nabla.tensor(arr).to(nd)
    g = c.to("cuda")
    for name, (fn, _) in sorted(FLOAT_OPS.items()):
        if name in ONE_DIM:
            continue
        for dims in ((1,), (0,), (0, 1)):
            want = fn(c, dims, False)
            a, b = fn(g, dims, False).cpu(), fn(g, dims, False).cpu()
            np.testing.assert_array_equal(a.to(nabla.float64).numpy(), b.to(nabla.float64).numpy())
            np.testing.assert_allclose(a.to(nabla.float64).numpy(), want.to(nabla.float64).numpy(),
                                       rtol=rtol * 10, atol=rtol * 10)


def test_broadcast_mul_backward(device):
    a = nabla.tensor(np.random.default_rng(1).standard_normal((4, 1, 3))).to(device)
    b = nabla.tensor(np.random.default_rng(2).standard_normal((5, 1))).to(device)
    a.requires_grad_(True)
    b.requires_grad_(True)
    g = nabla.tensor(np.random.default_rng(3).standard_normal((4, 5, 3))).to(device)
    (a * b).backward(g)
    ta = torch.tensor(a.detach().cpu().numpy(), requires_grad=True)
    tb = torch.tensor(b.detach().cpu().numpy(), requires_grad=True)
    (ta * tb).backward(torch.tensor(g.cpu().numpy()))
    np.testing.assert_allclose(a.grad.cpu().numpy(), ta.grad.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.grad.cpu().numpy(), tb.grad.numpy(), rtol=1e-6, atol=1e-6)
    assert a.grad.device == a.device and b.grad.device == b.device


@needs_cuda
def test_device_mismatch_names_both_devices():
    x = nabla.ones(3, 4).to("cuda")
    out = nabla.empty(3)
    with pytest.raises(RuntimeError, match=r"sum: the output is on cpu:0 but the input is on cuda:0"):
        nabla.sum(x, 1, out=out)
    with pytest.raises(RuntimeError, match=r"softmax: the output is on cpu:0 but the input is on cuda:0"):
        nabla.softmax(x, 1, out=nabla.empty(3, 4))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_long_reductions(device, dtype):
    """Few outputs over long ranges (on a GPU: split over several blocks, then combined in order)."""
    nd, td, rtol, atol = FLOATS[dtype]
    arr = np.random.default_rng(5).uniform(-1, 1, size=(3, 70001))
    x, t = nabla.tensor(arr).to(nd).to(device), torch.tensor(arr).to(td)
    for ours, theirs in ((nabla.sum, torch.sum), (nabla.amax, torch.amax), (nabla.logsumexp, torch.logsumexp)):
        want = theirs(t.to(torch.float64), (1,)).to(td)
        assert_close(ours(x, (1,)), want, rtol * 30, atol * 300)
    assert_close(nabla.var(x, (1,)), torch.var(t.to(torch.float64), 1).to(td), rtol * 30, atol)
    assert_close(nabla.argmax(x, 1), torch.argmax(t, 1), 0, 0)
    assert_close(nabla.sum(x), torch.sum(t.to(torch.float64)).to(td), rtol * 30, atol * 500)


# The CUDA launch shapes (src/cuda/reduce_plan.h), each against PyTorch: (shape, dims, view). View "o"
# drops the first element of the last dim (rows and vectors start off 16-byte alignment), "t" transposes.
PATHS = {
    "rows_warp": ((500, 300), (1,), ""),
    "rows_block": ((20, 5000), (1,), ""),
    "rows_pieces": ((2, 150001), (1,), ""),
    "full_pieces": ((300001,), (0,), ""),
    "rows_odd_misaligned": ((37, 333), (1,), "o"),
    "cols": ((300, 257), (0,), ""),
    "cols_misaligned": ((300, 257), (0,), "o"),
    "cols_few": ((4000, 6), (0,), ""),
    "cols_pieces": ((20000, 64), (0,), ""),
    "cols_planes": ((30, 3, 40), (1,), ""),
    "cols_two_dims": ((6, 50, 40), (0, 1), ""),
    "rows_two_dims": ((6, 50, 40), (1, 2), ""),
    "generic_two_dims": ((6, 50, 40), (0, 2), ""),
    "transposed": ((300, 200), (0,), "t"),
}
PATH_OPS = ["sum", "mean", "amax", "var", "norm2", "logsumexp"]


def path_view(x, view):
    if view == "o":
        return x[..., 1:]
    if view == "t":
        return x.transpose(-1, -2)
    return x


def path_input(shape, view, dtype, seed, lo=-1.0, hi=1.0):
    """A nabla tensor on device (the view of `view`) and the same values as a float64 torch tensor."""
    base = shape[:-1] + (shape[-1] + 1,) if view == "o" else (shape[::-1] if view == "t" else shape)
    arr = np.random.default_rng(seed).uniform(lo, hi, size=base)
    if dtype in INTS:
        arr = np.round(arr * 3)
        if dtype in ("uint8", "bool"):
            arr = np.abs(arr) if dtype == "uint8" else arr > 0
    nd, td = (FLOATS[dtype][:2] if dtype in FLOATS else INTS[dtype])
    t = torch.tensor(arr).to(td)
    return path_view(nabla.tensor(arr).to(nd), view), path_view(t, view)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("path", PATHS)
def test_launch_shapes_match_torch(device, path, dtype):
    shape, dims, view = PATHS[path]
    nd, td, rtol, atol = FLOATS[dtype]
    x, t = path_input(shape, view, dtype, len(path))
    x = x.to(device)
    n = int(np.prod([t.shape[d] for d in dims]))
    for name in PATH_OPS:
        fn, tfn = FLOAT_OPS[name]
        for keepdim in (False, True):
            want = tfn(t.to(torch.float64), dims, keepdim).to(td)
            grow = n ** 0.5 if name in ("sum", "norm2") else 1
            assert_close(fn(x, dims, keepdim), want, rtol * 30, atol * 30 * grow)
    d = dims[0]
    v, i = nabla.max(x, d)
    tv, ti = torch.max(t, d)
    assert_close(v, tv, 0, 0)
    assert_close(i, ti, 0, 0)
    assert_close(nabla.argmin(x, d, True), torch.argmin(t, d, True), 0, 0)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("path", ["rows_warp", "rows_pieces", "full_pieces", "rows_odd_misaligned", "cols",
                                  "cols_misaligned", "cols_few", "cols_pieces", "transposed"])
def test_launch_shapes_integers(device, path, dtype):
    shape, dims, view = PATHS[path]
    x, t = path_input(shape, view, dtype, len(path))
    x = x.to(device)
    for name in ("sum", "amax", "amin", "all", "any"):
        fn, tfn = FLOAT_OPS[name]
        assert_close(fn(x, dims, False), tfn(t, dims, False), 0, 0)
    d = dims[0]
    if dtype != "bool":
        assert_close(nabla.argmax(x, d), torch.argmax(t, d), 0, 0)
    v, i = nabla.min(x, d, True)
    tv, ti = torch.min(t, d, True)
    assert_close(v, tv, 0, 0)
    assert_close(i, ti, 0, 0)


@pytest.mark.parametrize("path", ["rows_warp", "rows_pieces", "full_pieces", "cols", "cols_pieces", "cols_few"])
def test_launch_shapes_repeat_bit_for_bit(device, path):
    """The same input twice gives the same bits; so does the same data from an aligned and a misaligned
    address (the order of combination depends on shapes and strides only)."""
    shape, dims, _ = PATHS[path]
    arr = np.random.default_rng(11).standard_normal(shape)
    x = nabla.tensor(arr).to(nabla.float32).to(device)
    shifted = nabla.tensor(np.concatenate([[0.0], arr.ravel()])).to(nabla.float32).to(device)[1:].reshape(shape)
    for name in ("sum", "var", "amax", "logsumexp"):
        fn = FLOAT_OPS[name][0]
        a, b, c = (fn(y, dims, False).cpu().numpy() for y in (x, x, shifted))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_var_of_large_offset_is_accurate(device):
    """var / std over data far from zero (the chunked one-pass form keeps its precision)."""
    arr = 1000.0 + np.random.default_rng(3).standard_normal((64, 8192))
    x = nabla.tensor(arr).to(nabla.float32).to(device)
    t = torch.tensor(arr).to(torch.float32).to(torch.float64)
    for dims in ((1,), (0,), (0, 1)):
        assert_close(nabla.var(x, dims), torch.var(t, dims).to(torch.float32), 1e-3, 0)
        assert_close(nabla.std(x, dims, correction=0), torch.std(t, dims, correction=0).to(torch.float32), 1e-3, 0)
