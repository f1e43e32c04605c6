"""The CUDA backend's rng, norm and loss slots: random fills on the device give the
CPU's numbers bit for bit (every distribution and dtype, strided targets, the
generator's offset advancing across calls); the fused layer/batch/group norms and
nll_loss / cross_entropy match PyTorch on the CPU for half inputs, odd sizes, rows
longer than one block and non-contiguous inputs, forward and backward; and each
of these is one fused launch with no host-to-device copy (counted by the emulated
device, whose plugin exports nbemu_counters). Sizes are small: the emulator runs
kernels on the CPU."""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-11), "float16": (1e-2, 1e-2), "bfloat16": (6e-2, 6e-2)}


def _emulated():
    return nabla.cuda.is_available() and "emulated" in nabla.cuda.get_device_name()


def _bits(t):
    """A tensor's values as integers that are equal exactly when the values' bits are (half types widen exactly)."""
    t = t.cpu()
    if t.dtype in (nabla.float16, nabla.bfloat16):
        t = t.float()
    a = t.numpy()
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize]) if a.dtype.kind == "f" else a


def _pair(seed=7):
    return nabla.Generator().manual_seed(seed), nabla.Generator("cuda").manual_seed(seed)


def _same(cpu, dev, exact=True):
    assert dev.device.type == "cuda" and dev.dtype == cpu.dtype and dev.shape == cpu.shape
    if exact:
        np.testing.assert_array_equal(_bits(dev), _bits(cpu))
    else:  # float64 normal on a GPU: the device's log / sin / cos, within a few ulp of glibc's
        np.testing.assert_array_max_ulp(dev.cpu().numpy(), cpu.numpy(), maxulp=8)


# ---- random: bitwise the CPU's ----

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_random_floats_are_the_cpus_bits(dtype):
    dt = getattr(nabla, dtype)
    gc, gd = _pair()
    for _ in range(2):  # the second call checks that the offset advanced alike
        _same(nabla.rand(37, dtype=dt, generator=gc), nabla.rand(37, dtype=dt, device="cuda", generator=gd))
        _same(nabla.randn(3, 11, dtype=dt, generator=gc), nabla.randn(3, 11, dtype=dt, device="cuda", generator=gd),
              exact=dtype != "float64" or _emulated())
        a, b = nabla.empty(29, dtype=dt), nabla.empty(29, dtype=dt, device="cuda")
        _same(a.uniform_(-2.5, 3.0, generator=gc), b.uniform_(-2.5, 3.0, generator=gd))
        _same(a.normal_(1.5, 0.25, generator=gc), b.normal_(1.5, 0.25, generator=gd),
              exact=dtype != "float64" or _emulated())
    assert gc.get_state().numpy().tolist() == gd.get_state().numpy().tolist()


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "float32", "float16"])
def test_random_integers_and_bernoulli_are_the_cpus_bits(dtype):
    dt = getattr(nabla, dtype)
    gc, gd = _pair(11)
    for low, high in ((0, 5), (3 if dtype == "uint8" else -3, 100)):
        _same(nabla.randint(low, high, (5, 7), dtype=dt, generator=gc),
              nabla.randint(low, high, (5, 7), dtype=dt, device="cuda", generator=gd))
    if dtype == "int64":  # a span above 2^16: two words per value
        _same(nabla.randint(-(2 ** 40), 2 ** 40, (9,), generator=gc),
              nabla.randint(-(2 ** 40), 2 ** 40, (9,), device="cuda", generator=gd))
    ones_c, ones_d = nabla.ones(6, 5, dtype=dt), nabla.ones(6, 5, dtype=dt, device="cuda")
    _same(nabla.bernoulli(ones_c, 0.3, generator=gc), nabla.bernoulli(ones_d, 0.3, generator=gd))
    p = nabla.rand(4, 9, generator=nabla.Generator().manual_seed(3))
    pd = p.to("cuda")
    _same(nabla.bernoulli(p, generator=gc), nabla.bernoulli(pd, generator=gd))
    # p broadcast along a transposed target, read in place on the device
    tc, td = nabla.empty(9, 4, dtype=dt).t(), nabla.empty(9, 4, dtype=dt, device="cuda").t()
    _same(tc.bernoulli_(p[:1], generator=gc), td.bernoulli_(pd[:1], generator=gd))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_dropout_is_the_cpus_bits(dtype):
    dt = getattr(nabla, dtype)
    gc, gd = _pair(5)
    x = nabla.randn(10, 7, generator=nabla.Generator().manual_seed(1)).to(dt)
    xd = x.to("cuda")
    for p in (0.0, 0.3, 1.0):
        _same(nabla.dropout(x, p, True, generator=gc), nabla.dropout(xd, p, True, generator=gd))
    _same(nabla.dropout(x.t(), 0.5, True, generator=gc), nabla.dropout(xd.t(), 0.5, True, generator=gd))
    a, b = x.clone(), xd.clone()
    _same(nabla.dropout_(a, 0.25, True, generator=gc), nabla.dropout_(b, 0.25, True, generator=gd))


def test_strided_targets_and_offsets():
    gc, gd = _pair(19)
    base_c, base_d = nabla.zeros(6, 10), nabla.zeros(6, 10, device="cuda")
    for _ in range(2):
        _same(base_c[:, ::3].t().uniform_(generator=gc), base_d[:, ::3].t().uniform_(generator=gd))
        _same(base_c[1:5, 2:9].normal_(generator=gc), base_d[1:5, 2:9].normal_(generator=gd))
    _same(base_c, base_d)  # nothing written outside the views
    # the offset advances by the blocks each call reserves: a fresh generator skipping them agrees
    g3 = nabla.Generator("cuda").manual_seed(19)
    g3.set_state(gd.get_state())
    _same(nabla.rand(5, generator=gc), nabla.rand(5, device="cuda", generator=g3))
    # 0-dim and empty targets
    _same(nabla.rand((), generator=gc), nabla.rand((), device="cuda", generator=g3))
    assert nabla.rand(0, 3, device="cuda", generator=g3).shape == (0, 3)


def test_bad_probability_fails_at_the_next_sync_and_the_device_recovers():
    p = nabla.tensor([0.5, 1.5, 0.2], device="cuda")
    r = nabla.bernoulli(p)
    with pytest.raises(RuntimeError, match=r"bernoulli: expects all elements of p to be in \[0, 1\], but found "
                                         r"p=1.5 at flat index 1"):
        r.cpu()
    assert nabla.rand(3, device="cuda").cpu().shape == (3,)


# ---- norms and losses against PyTorch ----

def _t(a, dtype, device):
    return nabla.tensor(a, dtype=getattr(nabla, dtype), device=device)


def _check(ours, theirs, dtype):
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(ours.detach().cpu().double().numpy(), theirs.detach().double().numpy(), rtol=rtol,
                               atol=atol)


NORM_CASES = [  # (kind, shape, extra) with odd sizes, rows longer than a block, transposed inputs
    ("layer", (3, 700), (700,)),
    ("layer", (5, 3, 7), (3, 7)),
    ("layer_t", (9, 4), (4,)),
    ("batch", (4, 3, 5), None),
    ("batch_t", (7, 3), None),
    ("group", (2, 6, 33), 3),
    ("group", (3, 4, 2, 5), 2),
]


def _norm(lib, kind, x, w, b, extra, rm=None, rv=None):
    f = F if lib is nabla else TF
    if kind.startswith("layer"):
        return f.layer_norm(x, extra, w, b, eps=1e-5)
    if kind.startswith("batch"):
        return f.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2, eps=1e-5)
    return f.group_norm(x, extra, w, b, eps=1e-5)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", NORM_CASES, ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[1]))}")
def test_fused_norms_match_torch(case, dtype):
    kind, shape, extra = case
    rng = np.random.default_rng(len(shape) * 7 + shape[-1])
    transposed = kind.endswith("_t")
    x0 = rng.standard_normal(shape[::-1] if transposed else shape) * 3 + 2
    C = extra if kind.startswith("layer") else (shape[1],)
    w0, b0 = rng.uniform(0.5, 1.5, C), rng.standard_normal(C)
    go = rng.standard_normal(shape)
    tdt = getattr(torch, dtype)
    res = {}
    for lib, dev in ((nabla, "cuda"), (torch, None)):
        mk = (lambda a: _t(a, dtype, dev)) if lib is nabla else (lambda a: torch.tensor(a).to(tdt))
        xl = mk(x0).requires_grad_(True)
        w, b = mk(w0).requires_grad_(True), mk(b0).requires_grad_(True)
        rm, rv = (mk(np.zeros(C)), mk(np.ones(C))) if kind.startswith("batch") else (None, None)
        x = xl.t() if transposed else xl
        y = _norm(lib, kind, x, w, b, extra, rm, rv)
        (y * mk(go)).sum().backward()
        res[lib] = [y, xl.grad, w.grad, b.grad] + ([rm, rv] if rm is not None else [])
    for ours, theirs in zip(res[nabla], res[torch]):
        assert ours.device.type == "cuda" and ours.dtype == getattr(nabla, dtype)
        _check(ours, theirs.float() if dtype in ("float16", "bfloat16") else theirs, dtype)


def test_batch_norm_eval_and_no_affine_match_torch():
    rng = np.random.default_rng(2)
    x0, rm0, rv0 = rng.standard_normal((4, 3, 6)), rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    y = F.batch_norm(_t(x0, "float32", "cuda"), _t(rm0, "float32", "cuda"), _t(rv0, "float32", "cuda"),
                     training=False, eps=1e-3)
    ref = TF.batch_norm(torch.tensor(x0).float(), torch.tensor(rm0).float(), torch.tensor(rv0).float(), eps=1e-3)
    _check(y, ref, "float32")


LOSS_CASES = [  # (input shape, smoothing, weighted, reduction)
    ((6, 5), 0.0, False, "mean"),
    ((4, 300), 0.1, True, "mean"),
    ((3, 7, 2, 3), 0.0, True, "sum"),
    ((5, 4), 0.2, False, "none"),
    ((9,), 0.0, True, "mean"),
]


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", LOSS_CASES, ids=lambda c: "x".join(map(str, c[0])) + f"-{c[3]}")
def test_fused_losses_match_torch(case, dtype, fn):
    shape, ls, weighted, reduction = case
    if fn == "nll_loss" and ls:
        ls = 0.0
    rng = np.random.default_rng(shape[-1])
    C = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    x0 = rng.standard_normal(shape[::-1]) * 2  # transposed: a non-contiguous input
    t0 = rng.integers(0, C, tshape)
    if len(shape) > 1:
        t0.flat[0] = -100  # ignored
    w0 = rng.uniform(0.5, 2, C)
    tdt = getattr(torch, dtype)
    res = {}
    for lib in (nabla, torch):
        if lib is nabla:
            xl = _t(x0, dtype, "cuda").requires_grad_(True)
            t = nabla.tensor(t0, dtype=nabla.int64, device="cuda")
            w = _t(w0, dtype, "cuda") if weighted else None
        else:
            xl = torch.tensor(x0).to(tdt).requires_grad_(True)
            t, w = torch.tensor(t0), (torch.tensor(w0).to(tdt) if weighted else None)
        x = xl.permute(*reversed(range(len(shape))))
        if lib is torch:
            x = x.contiguous()  # torch's CPU nll_loss2d backward refuses a non-contiguous input
        f = getattr(F if lib is nabla else TF, fn)
        kw = {"label_smoothing": ls} if fn == "cross_entropy" else {}
        y = f(x, t, weight=w, reduction=reduction, **kw)
        go = lib.ones(y.shape, dtype=y.dtype) * 0.5 if lib is torch else nabla.ones(y.shape, dtype=y.dtype,
                                                                                      device="cuda") * 0.5
        (y * go).sum().backward()
        res[lib] = (y, xl.grad)
    for ours, theirs in zip(res[nabla], res[torch]):
        assert ours.device.type == "cuda" and ours.dtype == getattr(nabla, dtype)
        _check(ours, theirs.float() if dtype in ("float16", "bfloat16") else theirs, dtype)


def test_target_out_of_range_fails_at_the_next_sync_and_the_device_recovers():
    x = nabla.zeros(3, 4, device="cuda")
    t = nabla.tensor([1, 7, 2], device="cuda")
    for fn in (F.cross_entropy, F.nll_loss):
        loss = fn(x, t)
        name = fn.__name__
        with pytest.raises(IndexError, match=f"{name}: Target 7 is out of bounds."):
            loss.item()
    assert F.cross_entropy(x, nabla.tensor([1, 0, 2], device="cuda")).item() == pytest.approx(np.log(4), rel=1e-6)


# ---- one fused launch, no host-to-device copy (the emulated device counts them) ----

def _counters():
    path = os.environ.get("NABLA_CUDA_PLUGIN", "")
    if not path or not _emulated():
        pytest.skip("launch counts come from the emulated device")
    fn = ctypes.CDLL(path).nbemu_counters
    launches, copies = ctypes.c_longlong(), ctypes.c_longlong()

    def read():
        nabla.cuda.synchronize()
        fn(ctypes.byref(launches), ctypes.byref(copies))
        return launches.value, copies.value
    return read


def _cost(read, call):
    l0, c0 = read()
    call()
    l1, c1 = read()
    return l1 - l0, c1 - c0


def test_each_fused_op_is_one_launch_without_host_copies():
    read = _counters()
    x = nabla.randn(8, 33, device="cuda")
    w, b = nabla.ones(33, device="cuda"), nabla.zeros(33, device="cuda")
    x4 = nabla.randn(4, 6, 5, device="cuda")
    rm, rv = nabla.zeros(6, device="cuda"), nabla.ones(6, device="cuda")
    t = nabla.tensor([1, 0, 3, 2, 5, 4, 0, 1], device="cuda")
    g = nabla.Generator("cuda").manual_seed(1)
    p = nabla.full((5,), 0.5, device="cuda")
    cases = {
        "rand": (lambda: nabla.rand(100, device="cuda", generator=g), 1),
        "randn": (lambda: nabla.randn(7, 9, dtype=nabla.float16, device="cuda", generator=g), 1),
        "normal_ strided": (lambda: x[:, ::2].normal_(generator=g), 1),
        "bernoulli": (lambda: nabla.bernoulli(p, generator=g), 1),
        "dropout": (lambda: F.dropout(x, 0.3, training=True), 1),
        "layer_norm": (lambda: F.layer_norm(x, (33,), w, b), 1),
        "batch_norm": (lambda: F.batch_norm(x4, rm, rv, training=True), 1),
        "group_norm": (lambda: F.group_norm(x4, 3), 1),
        "cross_entropy none": (lambda: F.cross_entropy(x, t, reduction="none"), 1),
        "cross_entropy mean": (lambda: F.cross_entropy(x, t), 2),
        "nll_loss sum": (lambda: F.nll_loss(x, t, reduction="sum"), 2),
    }
    for name, (call, launches) in cases.items():
        assert _cost(read, call) == (launches, 0), name
    # backward: layer_norm two kernels (dx, then dw and db); cross_entropy one, after the fill of the
    # seed gradient (composed, each would be a dozen launches or more)
    xl = x.detach().requires_grad_(True)
    wl, bl = w.detach().requires_grad_(True), b.detach().requires_grad_(True)
    y = F.layer_norm(xl, (33,), wl, bl)
    go = nabla.ones(8, 33, device="cuda")
    assert _cost(read, lambda: y.backward(go)) == (2, 0)
    xs = x.detach().requires_grad_(True)
    loss = F.cross_entropy(xs, t, reduction="sum")
    assert _cost(read, lambda: loss.backward()) == (2, 0)
