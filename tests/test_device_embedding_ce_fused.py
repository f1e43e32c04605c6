"""The CUDA backend's fused embedding backward (the embedding slot: a stable sort of
the indices, then one kernel in which a block owns a weight row) and the loss slot's
cross_entropy over probability targets: values and gradients against PyTorch on the
CPU in the four float dtypes and against the composed path (NABLA_EMBEDDING_FUSED=0,
NABLA_LOSS_FUSED=0); padding_idx, scale_grad_by_freq, duplicates, empty and int32
indices, non-contiguous operands; results that repeat bit for bit; bad input (an
index out of range fails at the next sync with the CPU's message and the device
stays usable; shape and dtype errors as on the CPU); and the launch count with no
host-to-device copy (counted by the emulated device). Sizes are small: the emulator
runs kernels on the CPU."""
from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla._lib import ffi, lib
from nabla._tensor import _call

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

FLOAT_DTYPES = ["float32", "float64", "float16", "bfloat16"]
TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-11), "float16": (1e-2, 1e-2), "bfloat16": (6e-2, 6e-2)}


def _t(a, dtype, device="cuda"):
    return nabla.tensor(a, dtype=getattr(nabla, dtype), device=device)


def _ref(a, dtype):
    """a rounded to dtype, as a float64 torch tensor (the reference computes in float64)."""
    return torch.tensor(np.asarray(a)).to(getattr(torch, dtype)).double()


def _check(ours, theirs, dtype):
    rtol, atol = TOL[dtype]
    assert ours.device.type == "cuda" and ours.dtype == getattr(nabla, dtype)
    np.testing.assert_allclose(ours.detach().cpu().double().numpy(), theirs.detach().double().numpy(), rtol=rtol,
                               atol=atol)


def _bits(t):
    a = t.detach().cpu().double().numpy() if t.dtype in (nabla.float16, nabla.bfloat16) else t.detach().cpu().numpy()
    return a.view({4: np.uint32, 8: np.uint64}[a.itemsize])


def _dense_backward(go, idx, rows, pad=-1, scale=False):
    return _call(lib.nbpy_embedding_dense_backward, go._h, idx._h, rows, pad, int(scale), ffi.NULL)


# ---- embedding backward ----

EMB_CASES = [  # (indices shape, V, D, padding_idx, scale_grad_by_freq, index dtype)
    ((4, 5), 7, 3, None, False, "int64"),
    ((4, 5), 7, 3, 2, True, "int64"),
    ((13,), 5, 300, -1, False, "int32"),   # a row longer than a block's threads; padding_idx from the end
    ((3, 2, 6), 4, 9, 0, True, "int32"),
    ((2100,), 9, 5, None, True, "int64"),  # more indices than one sort tile: the sort's global passes
    ((0,), 6, 4, 1, True, "int64"),        # no indices: every row zero
]


def _emb_inputs(case):
    ishape, V, D, pad, scale, idt = case
    rng = np.random.default_rng(V * 100 + D)
    idx = rng.integers(0, V, ishape)
    idx.flat[: min(3, idx.size)] = V - 1  # duplicates of one row, first in index order
    w0 = rng.standard_normal((V, D))
    g0 = rng.standard_normal(ishape + (D,))
    return idx, w0, g0


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", EMB_CASES, ids=lambda c: "x".join(map(str, c[0])) + f"-V{c[1]}-D{c[2]}-{c[5]}")
def test_embedding_backward_matches_torch(case, dtype):
    ishape, V, D, pad, scale, idt = case
    idx, w0, g0 = _emb_inputs(case)
    w = _t(w0, dtype).requires_grad_(True)
    i = nabla.tensor(idx, dtype=getattr(nabla, idt), device="cuda")
    go = _t(np.ascontiguousarray(np.moveaxis(g0, -1, 0)), dtype).movedim(0, -1)  # non-contiguous grad_output
    y = F.embedding(i, w, padding_idx=pad, scale_grad_by_freq=scale)
    y.backward(go)
    tw = _ref(w0, dtype).requires_grad_(True)
    ty = TF.embedding(torch.tensor(idx), tw, padding_idx=pad, scale_grad_by_freq=scale)
    ty.backward(_ref(g0, dtype))
    _check(y, ty, dtype)
    _check(w.grad, tw.grad, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("scale", [False, True])
def test_embedding_backward_matches_composed_and_repeats(dtype, scale, monkeypatch):
    idx, _, g0 = _emb_inputs(((3000,), 11, 7, 3, scale, "int64"))
    i = nabla.tensor(idx, device="cuda")
    go = _t(g0, dtype)
    fused = [_dense_backward(go, i, 11, 3, scale) for _ in range(2)]
    np.testing.assert_array_equal(_bits(fused[0]), _bits(fused[1]))  # deterministic
    few, gof = i[:40], go[:40]  # a few terms per row: the composition rounds partial sums of half types
    fused = _dense_backward(gof, few, 11, 3, scale)
    monkeypatch.setenv("NABLA_EMBEDDING_FUSED", "0")
    composed = _dense_backward(gof, few, 11, 3, scale)
    _check(fused, torch.tensor(composed.cpu().double().numpy()), dtype)


def test_embedding_double_backward_matches_torch():
    idx, w0, g0 = _emb_inputs(((4, 5), 7, 3, 2, True, "int64"))
    v0 = np.random.default_rng(3).standard_normal(w0.shape)
    res = {}
    for L in (nabla, torch):
        dev = {"device": "cuda"} if L is nabla else {}
        w = L.tensor(w0, **dev).requires_grad_(True)
        go = L.tensor(g0, **dev).requires_grad_(True)
        f = F if L is nabla else TF
        y = f.embedding(L.tensor(idx, **dev), w, padding_idx=2, scale_grad_by_freq=True)
        (gw,) = L.autograd.grad(y, w, go, create_graph=True)
        (gw * L.tensor(v0, **dev)).sum().backward()
        res[L] = (gw, go.grad)
    for ours, theirs in zip(res[nabla], res[torch]):
        _check(ours, theirs, "float64")


def test_embedding_backward_index_out_of_range_fails_at_the_next_sync():
    go = nabla.ones(3, 4)
    idx = nabla.tensor([1, 9, 2])
    with pytest.raises(IndexError) as cpu:
        _dense_backward(go, idx, 5)
    msg = str(cpu.value)
    assert "embedding_dense_backward: index out of range in self (index 9, num_embeddings 5)" in msg
    r = _dense_backward(go.to("cuda"), idx.to("cuda"), 5)  # queued: the error comes with the next sync
    with pytest.raises(IndexError) as dev:
        r.cpu()
    assert msg in str(dev.value)  # after the name of the synchronising call
    neg = _dense_backward(go.to("cuda"), nabla.tensor([-1, 0, 2], device="cuda"), 5)
    with pytest.raises(IndexError, match=r"index out of range in self \(index -1, num_embeddings 5\)"):
        nabla.cuda.synchronize()
    del neg
    ok = _dense_backward(go.to("cuda"), nabla.tensor([1, 1, 4], device="cuda"), 5)  # the device still works
    np.testing.assert_array_equal(ok.cpu().numpy(), [[0] * 4, [2] * 4, [0] * 4, [0] * 4, [1] * 4])


def _errors(call):
    """The exception type and message of call on the CPU and on CUDA (call takes the device)."""
    out = []
    for dev in ("cpu", "cuda"):
        with pytest.raises(Exception) as e:
            call(dev)
        out.append((type(e.value), str(e.value)))
    return out


@pytest.mark.parametrize("bad", ["grad shape", "grad dtype", "index dtype", "padding_idx", "devices"])
def test_embedding_backward_bad_arguments_fail_as_on_the_cpu(bad):
    def call(dev):
        go, idx, rows, pad = nabla.ones(3, 4, device=dev), nabla.tensor([0, 1, 2], device=dev), 5, -1
        if bad == "grad shape":
            go = nabla.ones(2, 4, device=dev)
        elif bad == "grad dtype":
            go = nabla.ones(3, 4, dtype=nabla.int64, device=dev)
        elif bad == "index dtype":
            idx = idx.float()
        elif bad == "padding_idx":
            pad = 5
        else:
            idx = idx.to("cuda" if dev == "cpu" else "cpu")
        return _dense_backward(go, idx, rows, pad)
    (tc, mc), (td, md) = _errors(call)
    if bad == "devices":  # the same check, naming the devices in the order they were given
        assert tc is td and "expected all tensors to be on the same device" in mc and mc.count("cuda") == 1
        return
    assert (tc, mc) == (td, md)


# ---- cross_entropy with probability targets ----

PROB_CASES = [  # (shape, label_smoothing, weighted, reduction)
    ((6, 5), 0.0, False, "mean"),
    ((6, 5), 0.1, True, "sum"),
    ((4, 3, 5), 0.0, True, "none"),
    ((2, 300, 3), 0.2, False, "mean"),  # more classes than a block's threads
    ((3, 4, 2, 3), 0.05, True, "mean"),
    ((7,), 0.1, True, "none"),         # unbatched
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("case", PROB_CASES, ids=lambda c: "x".join(map(str, c[0])) + f"-{c[3]}")
def test_probability_cross_entropy_matches_torch(case, dtype):
    shape, ls, weighted, reduction = case
    rng = np.random.default_rng(shape[-1] * 7 + len(shape))
    C = shape[1] if len(shape) > 1 else shape[0]
    x0 = rng.standard_normal(shape[::-1]) * 2
    t0 = rng.dirichlet(np.ones(C), size=int(np.prod(shape)) // C)  # [positions, C]
    t0 = np.moveaxis(t0.reshape((shape[0],) + shape[2:] + (C,)), -1, 1) if len(shape) > 1 else t0[0]
    w0 = rng.uniform(0.5, 2, C)
    go0 = rng.standard_normal(shape[:1] + shape[2:] if len(shape) > 1 else ()) if reduction == "none" else 0.7
    nd = len(shape)
    xl = _t(x0, dtype).requires_grad_(True)
    x = xl.permute(*reversed(range(nd)))  # a non-contiguous input
    t = _t(np.ascontiguousarray(np.moveaxis(t0, 0, -1)), dtype).movedim(-1, 0)  # and target
    w = _t(w0, dtype) if weighted else None
    y = F.cross_entropy(x, t, weight=w, reduction=reduction, label_smoothing=ls)
    y.backward(_t(go0, dtype))
    tx = _ref(np.ascontiguousarray(np.moveaxis(x0, range(nd), reversed(range(nd)))), dtype).requires_grad_(True)
    ty = TF.cross_entropy(tx, _ref(t0, dtype), weight=_ref(w0, dtype) if weighted else None, reduction=reduction,
                          label_smoothing=ls)
    ty.backward(_ref(go0, dtype))
    _check(y, ty, dtype)
    _check(xl.grad.permute(*reversed(range(nd))), tx.grad, dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_probability_cross_entropy_matches_composed_and_repeats(dtype, reduction, monkeypatch):
    rng = np.random.default_rng(5)
    x0, t0, w0 = rng.standard_normal((5, 6, 4)), rng.uniform(0, 1, (5, 6, 4)), rng.uniform(0.5, 2, 6)

    def run():
        x = _t(x0, dtype).requires_grad_(True)
        y = F.cross_entropy(x, _t(t0, dtype), weight=_t(w0, dtype), reduction=reduction, label_smoothing=0.1)
        y.backward(nabla.ones_like(y))
        return y, x.grad
    fused = [run() for _ in range(2)]
    for a, b in zip(*fused):
        np.testing.assert_array_equal(_bits(a), _bits(b))  # deterministic
    monkeypatch.setenv("NABLA_LOSS_FUSED", "0")
    for ours, composed in zip(fused[0], run()):
        _check(ours, torch.tensor(composed.detach().cpu().double().numpy()), dtype)


def test_probability_target_gradient_and_empty_input_match_torch():
    rng = np.random.default_rng(2)
    x0, t0 = rng.standard_normal((4, 5)), rng.dirichlet(np.ones(5), 4)
    x, t = nabla.tensor(x0, device="cuda").requires_grad_(True), nabla.tensor(t0, device="cuda").requires_grad_(True)
    tx, tt = torch.tensor(x0).requires_grad_(True), torch.tensor(t0).requires_grad_(True)
    F.cross_entropy(x, t, label_smoothing=0.2).backward()  # the target's gradient: the composed formula
    TF.cross_entropy(tx, tt, label_smoothing=0.2).backward()
    _check(x.grad, tx.grad, "float64")
    _check(t.grad, tt.grad, "float64")
    for reduction in ("mean", "sum", "none"):
        ours = F.cross_entropy(nabla.zeros(0, 3, device="cuda"), nabla.zeros(0, 3, device="cuda"), reduction=reduction)
        theirs = TF.cross_entropy(torch.zeros(0, 3), torch.zeros(0, 3), reduction=reduction)
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs.numpy())


@pytest.mark.parametrize("bad", ["target shape", "ignore_index", "weight shape"])
def test_probability_cross_entropy_bad_arguments_fail_as_on_the_cpu(bad):
    def call(dev):
        x, t, kw = nabla.zeros(3, 4, device=dev), nabla.zeros(3, 4, device=dev), {}
        if bad == "target shape":
            t = nabla.zeros(3, 5, device=dev)
        elif bad == "ignore_index":
            kw["ignore_index"] = 1
        else:
            kw["weight"] = nabla.ones(5, device=dev)
        return F.cross_entropy(x, t, **kw)
    (tc, mc), (td, md) = _errors(call)
    assert (tc, mc) == (td, md)


# ---- launches and host copies (the emulated device counts them) ----

def _counters():
    path = os.environ.get("NABLA_CUDA_PLUGIN", "")
    if not path or "emulated" not in nabla.cuda.get_device_name():
        pytest.skip("launch counts come from the emulated device")
    fn = ctypes.CDLL(path).nbemu_counters
    launches, copies = ctypes.c_longlong(), ctypes.c_longlong()

    def cost(call):
        out = []
        for _ in range(2):
            nabla.cuda.synchronize()
            fn(ctypes.byref(launches), ctypes.byref(copies))
            out.append((launches.value, copies.value))
            if len(out) == 1:
                call()
        return out[1][0] - out[0][0], out[1][1] - out[0][1]
    return cost


def test_fused_paths_launch_few_kernels_without_host_copies(monkeypatch):
    cost = _counters()
    go, idx = nabla.randn(40, 6, device="cuda"), nabla.randint(0, 9, (40,), device="cuda")
    # embedding backward: the indices' sort (one tile), then one kernel writing every row
    assert cost(lambda: _dense_backward(go, idx, 9, 2, True)) == (2, 0)
    monkeypatch.setenv("NABLA_EMBEDDING_FUSED", "0")
    composed = cost(lambda: _dense_backward(go, idx, 9, 2, True))
    assert composed[0] > 2
    x, t = nabla.randn(8, 5, device="cuda"), nabla.rand(8, 5, device="cuda")
    assert cost(lambda: F.cross_entropy(x, t, reduction="none")) == (1, 0)
    assert cost(lambda: F.cross_entropy(x, t)) == (2, 0)  # the positions, then one block summing them
    xs = x.detach().requires_grad_(True)
    loss = F.cross_entropy(xs, t, reduction="sum", label_smoothing=0.1)
    assert cost(lambda: loss.backward()) == (2, 0)  # the seed gradient's fill, then one kernel
