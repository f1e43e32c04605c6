"""Line ops on every device (the `device` fixture: CPU always, CUDA when there
is one): softmax, log_softmax, their fused backward, cumsum and cumprod along
one dim, for every float dtype at per-dtype tolerances against PyTorch on the
CPU (computed in float64 and rounded into the dtype), and on CUDA against
nabla's own CPU result. Dims first, middle, last and negative; contiguous,
transposed, sliced and expanded inputs; short rows and rows longer than 1024;
empty and 0-dim inputs; -inf, +inf and NaN in softmax rows; integer and bool
scans; dtype= and out=; gradients through autograd; identical results from run
to run; and the bad-input paths with their messages."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from device_views import pair, view

torch = pytest.importorskip("torch")

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 1e-5, 1e-6),
    "float64": (nabla.float64, torch.float64, 1e-12, 1e-12),
    "float16": (nabla.float16, torch.float16, 2e-3, 2e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 1.6e-2, 1e-2),
}

OPS = {  # name: (nabla fn, torch fn)
    "softmax": (lambda x, d: nabla.softmax(x, d), lambda t, d: torch.softmax(t, d)),
    "log_softmax": (lambda x, d: nabla.log_softmax(x, d), lambda t, d: torch.log_softmax(t, d)),
    "cumsum": (lambda x, d: nabla.cumsum(x, d), lambda t, d: torch.cumsum(t, d)),
    "cumprod": (lambda x, d: nabla.cumprod(x, d), lambda t, d: torch.cumprod(t, d)),
}

# (shape, dim, layout): layout "t" transposes the last two dims, "s" takes every
# other row, "e" expands a size-1 dim (stride 0)
CASES = [
    ((5, 7), 1, ""), ((5, 7), 0, ""), ((3, 4, 5), 1, ""), ((3, 4, 5), -1, ""), ((3, 4, 5), -3, ""),
    ((6, 9), 1, "t"), ((6, 9), 0, "t"), ((8, 5), 1, "s"), ((4, 1, 6), 1, "e"),
    ((2, 1500), 1, ""), ((1500, 3), 0, ""), ((1100, 4), 0, "t"), ((3000,), 0, ""), ((3000,), -1, ""),
    ((200, 20), 1, ""), ((5, 33), 1, ""), ((2, 100, 3), 1, ""), ((3, 2500, 2), 1, ""),
]


def make(shape, layout, seed, name):
    """float64 values for the base tensor of shape (before the layout's view)."""
    rng = np.random.default_rng(seed)
    base = shape[:-2] + (shape[-1], shape[-2]) if layout == "t" else \
        (shape[0] * 2,) + shape[1:] if layout == "s" else shape
    if name == "cumprod":  # products near 1 stay finite over long lines
        return np.exp(rng.uniform(-2, 2, size=base) / max(shape))
    return rng.uniform(-3, 3, size=base)


def assert_close(got, want, rtol, atol):
    assert tuple(got.shape) == tuple(want.shape)
    g = got.cpu()
    if want.is_floating_point():
        np.testing.assert_allclose(g.to(nabla.float64).numpy(), want.to(torch.float64).numpy(), rtol=rtol,
                                   atol=atol, equal_nan=True)
    else:
        assert g.dtype == nabla.int64 or want.dtype != torch.int64
        np.testing.assert_array_equal(g.to(nabla.int64).numpy(), want.to(torch.int64).numpy())


def tolerances(name, dtype, shape, dim):
    _, _, rtol, atol = FLOATS[dtype]
    n = shape[dim] if shape else 1
    if name == "cumsum":  # partial sums of n values of up to 3
        return rtol, atol * 3 * n ** 0.5
    if name == "log_softmax":
        return rtol, atol * 8
    return rtol, atol


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", OPS)
def test_lines_match_torch(device, name, dtype, case):
    shape, dim, layout = CASES[case]
    nd, td, _, _ = FLOATS[dtype]
    arr = make(shape, layout, case, name)
    x, t = pair(arr, layout, shape, nd, td, device)
    fn, tfn = OPS[name]
    got = fn(x, dim)
    assert got.device.type == device and got.dtype == nd
    want = tfn(t.to(torch.float64), dim).to(td)
    rtol, atol = tolerances(name, dtype, shape, dim)
    assert_close(got, want, rtol, atol)
    if device == "cuda":  # the CPU kernels, at the same tolerance
        cpu = fn(view(nabla.tensor(arr).to(nd), layout, shape), dim)
        assert_close(got, torch.tensor(cpu.to(nabla.float64).numpy()), rtol, atol)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_backward_data_matches_torch(device, name, dtype):
    nd, td, rtol, atol = FLOATS[dtype]
    ours = nabla._softmax_backward_data if name == "softmax" else nabla._log_softmax_backward_data
    theirs = torch._softmax_backward_data if name == "softmax" else torch._log_softmax_backward_data
    for k, (shape, dim, layout) in enumerate([((5, 7), 1, ""), ((6, 9), 0, "t"), ((3, 1500), -1, ""),
                                              ((40, 3), 0, ""), ((2, 50, 3), 1, "s")]):
        rng = np.random.default_rng(k)
        x = torch.tensor(make(shape, layout, k, name))
        t = view(x, layout, shape)
        y = (torch.softmax if name == "softmax" else torch.log_softmax)(t, dim)
        g = torch.tensor(rng.uniform(-1, 1, size=tuple(t.shape)))
        want = theirs(g, y, dim, torch.float64).to(td)
        yn = nabla.tensor(y.numpy()).to(nd).to(device)
        gn = nabla.tensor(g.numpy()).to(nd).to(device)
        if layout == "t":  # a transposed grad_output
            gn = nabla.tensor(g.numpy().T.copy()).to(nd).to(device).transpose(0, 1)
        got = ours(gn, yn, dim, nd)
        assert got.device.type == device
        assert_close(got, want, rtol * 4, atol * 4 * (shape[dim] ** 0.5))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", OPS)
def test_gradients_on_device(device, name, dtype):
    nd, td, rtol, atol = FLOATS[dtype]
    for k, (shape, dim, layout) in enumerate([((4, 6), 1, ""), ((5, 3), 0, "t"), ((2, 1200), -1, "")]):
        arr = make(shape, layout, k + 10, name)
        w = np.random.default_rng(k).uniform(-1, 1, size=shape)
        t = view(torch.tensor(arr), layout, shape).detach().requires_grad_()
        (OPS[name][1](t, dim) * torch.tensor(w)).sum().backward()
        x = view(nabla.tensor(arr).to(nd).to(device), layout, shape).detach().requires_grad_()
        (OPS[name][0](x, dim) * nabla.tensor(w).to(nd).to(device)).sum().backward()
        assert x.grad is not None and x.grad.device.type == device
        n = shape[dim]
        scale = n if name in ("cumsum", "cumprod") else n ** 0.5
        assert_close(x.grad, t.grad.to(td), rtol * 4, atol * 4 * scale)


def test_zero_dim_and_empty(device):
    s = nabla.tensor(2.5).to(device)
    assert_close(nabla.softmax(s, 0), torch.softmax(torch.tensor(2.5), 0), 0, 0)
    assert_close(nabla.log_softmax(s, -1), torch.log_softmax(torch.tensor(2.5), -1), 0, 0)
    assert_close(nabla.cumsum(s, 0), torch.cumsum(torch.tensor(2.5), 0), 0, 0)
    assert_close(nabla.cumprod(s, -1), torch.cumprod(torch.tensor(2.5), -1), 0, 0)
    for shape in ((3, 0), (0, 4), (0,)):
        e, te = nabla.zeros(*shape).to(device), torch.zeros(*shape)
        for d in range(len(shape)):
            for name, (fn, tfn) in OPS.items():
                got = fn(e, d)
                assert got.device.type == device
                assert_close(got, tfn(te, d), 0, 0)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [5, 40, 1300])
def test_softmax_infinities_and_nan(device, dtype, n):
    nd, td, rtol, atol = FLOATS[dtype]
    rng = np.random.default_rng(n)
    arr = rng.uniform(-3, 3, size=(6, n))
    arr[0, ::3] = -np.inf         # some -inf: they get 0
    arr[1, :] = -np.inf           # all -inf: NaN (as PyTorch)
    arr[2, n // 2] = np.inf       # +inf: NaN
    arr[3, n - 1] = np.nan        # NaN: the row is NaN
    arr[4, 0] = -np.inf           # -inf first
    for dim, a in ((1, arr), (0, arr.T.copy())):
        x, t = nabla.tensor(a).to(nd).to(device), torch.tensor(a).to(td)
        for fn, tfn in ((nabla.softmax, torch.softmax), (nabla.log_softmax, torch.log_softmax)):
            want = tfn(t.to(torch.float64), dim).to(td)
            assert_close(fn(x, dim), want, rtol, atol * 8)


@pytest.mark.parametrize("src", ["int32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_integer_scans(device, name, src):
    nd, td = getattr(nabla, src), getattr(torch, src)
    rng = np.random.default_rng(3)
    arr = rng.integers(0 if src in ("uint8", "bool") else -3, 2 if src == "bool" else 4, size=(4, 300))
    x, t = nabla.tensor(arr).to(nd).to(device), torch.tensor(arr).to(td)
    fn, tfn = OPS[name]
    for dim in (0, 1, -1):
        got = fn(x, dim)
        assert got.dtype == nabla.int64 and got.device.type == device
        assert_close(got, tfn(t, dim), 0, 0)
    # dtype= narrows after an int64 scan (wrapping as PyTorch)
    got = getattr(nabla, name)(x, 1, dtype=nabla.int16)
    assert got.dtype == nabla.int16
    assert_close(got, getattr(torch, name)(t, 1, dtype=torch.int16), 0, 0)


def test_dtype_argument_and_out(device):
    arr = np.random.default_rng(0).uniform(-2, 2, size=(3, 70))
    x = nabla.tensor(arr).to(nabla.float16).to(device)
    t = torch.tensor(arr).to(torch.float16)
    assert_close(nabla.softmax(x, 1, dtype=nabla.float32), torch.softmax(t.double(), 1).float(), 1e-5, 1e-6)
    assert_close(nabla.cumsum(x, 1, dtype=nabla.float64), torch.cumsum(t.double(), 1), 1e-12, 1e-12)
    o = nabla.empty(70, 3).to(device).transpose(0, 1)  # a strided out
    r = nabla.log_softmax(x.float(), 1, out=o)
    assert r is o or r.data_ptr() == o.data_ptr()
    assert_close(o, torch.log_softmax(t.double(), 1).float(), 1e-5, 1e-5)
    o2 = nabla.empty(3, 70, dtype=nabla.float64).to(device)
    nabla.cumprod(x.double(), 0, out=o2)
    assert_close(o2, torch.cumprod(t.double(), 0), 1e-12, 1e-12)
    y = x.float().clone()  # in place: out is the input
    nabla.softmax(y, 1, out=y)
    assert_close(y, torch.softmax(t.double(), 1).float(), 1e-5, 1e-6)
    z = x.double().clone()
    z.cumsum_(1)
    assert_close(z, torch.cumsum(t.double(), 1), 1e-12, 1e-12)


def test_deterministic(device):
    arr = np.random.default_rng(1).uniform(-3, 3, size=(3, 5000))
    x = nabla.tensor(arr).to(nabla.float32).to(device)
    for fn in (nabla.softmax, nabla.log_softmax, nabla.cumsum):
        a, b = fn(x, 1).cpu().numpy(), fn(x, 1).cpu().numpy()
        assert np.array_equal(a, b)


def test_bad_inputs(device):
    x = nabla.ones(3, 4).to(device)
    with pytest.raises(IndexError, match="softmax"):
        nabla.softmax(x, 2)
    with pytest.raises(IndexError, match="cumsum"):
        nabla.cumsum(x, -3)
    with pytest.raises(RuntimeError, match="softmax: not implemented for 'int64'"):
        nabla.softmax(nabla.ones(3, 4, dtype=nabla.int64).to(device), 1)
    with pytest.raises(NotImplementedError, match=f"cumsum_out_{device}\" not implemented for 'Bool'"):
        nabla.cumsum(x, 1, dtype=nabla.bool)
    y = nabla.softmax(x, 1)
    with pytest.raises(RuntimeError, match="expected grad_output and output of one floating dtype"):
        nabla._softmax_backward_data(y.double(), y, 1, nabla.float32)
    with pytest.raises(RuntimeError, match=r"grad_output has shape \[3, 3\]"):
        nabla._log_softmax_backward_data(nabla.ones(3, 3).to(device), y, 1, nabla.float32)


@pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")
def test_device_mismatch_messages():
    x = nabla.ones(3, 4).to("cuda")
    y = nabla.softmax(x, 1)
    with pytest.raises(RuntimeError, match=r"softmax_backward: grad_output is on cpu:0 but output is on cuda:0"):
        nabla._softmax_backward_data(nabla.ones(3, 4), y, 1, nabla.float32)
    with pytest.raises(RuntimeError, match=r"log_softmax: the output is on cpu:0 but the input is on cuda:0"):
        nabla.log_softmax(x, 1, out=nabla.empty(3, 4))
    with pytest.raises(RuntimeError, match=r"cumsum: the output is on cuda:0 but the input is on cpu:0"):
        nabla.cumsum(nabla.ones(3, 4), 1, out=nabla.empty(3, 4).to("cuda"))
    with pytest.raises(RuntimeError, match=r"cumprod: the output is on cpu:0 but the input is on cuda:0"):
        nabla.cumprod(x, 0, out=nabla.empty(3, 4))
