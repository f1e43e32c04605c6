"""The pointwise losses on every device (the `device` fixture: CPU always, CUDA when
there is one): mse, l1, smooth_l1, huber, binary_cross_entropy(_with_logits) and
kl_div, for each reduction, float dtype and optional weight, against PyTorch on the
CPU (float64 inputs rounded into the dtype); gradients of input and target through
autograd; broadcast and strided operands; and the bad-input paths with their
messages (out-of-range probabilities, operands on different devices)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 2e-5, 2e-6),
    "float64": (nabla.float64, torch.float64, 1e-11, 1e-12),
    "float16": (nabla.float16, torch.float16, 4e-3, 4e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 3e-2, 3e-2),
}

# name: (fn(F, input, target, weight, **kw), input maker, target maker, takes a weight, extra kwargs)
LOSSES = {
    "mse": (lambda f, x, t, w, **kw: f.mse_loss(x, t, **kw), "any", "any", False, {}),
    "l1": (lambda f, x, t, w, **kw: f.l1_loss(x, t, **kw), "any", "any", False, {}),
    "smooth_l1": (lambda f, x, t, w, **kw: f.smooth_l1_loss(x, t, beta=0.7, **kw), "any", "any", False, {}),
    "smooth_l1_beta0": (lambda f, x, t, w, **kw: f.smooth_l1_loss(x, t, beta=0.0, **kw), "any", "any", False, {}),
    "huber": (lambda f, x, t, w, **kw: f.huber_loss(x, t, delta=0.6, **kw), "any", "any", False, {}),
    "bce": (lambda f, x, t, w, **kw: f.binary_cross_entropy(x, t, weight=w, **kw), "prob", "prob", True, {}),
    "bce_logits": (lambda f, x, t, w, **kw: f.binary_cross_entropy_with_logits(x, t, weight=w, **kw),
                   "any", "prob", True, {}),
    "bce_logits_pos": (lambda f, x, t, w, **kw: f.binary_cross_entropy_with_logits(
        x, t, pos_weight=w[0] * 2 if w is not None else None, **kw), "any", "prob", True, {}),
    "kl": (lambda f, x, t, w, **kw: f.kl_div(x, t, **kw), "logprob", "prob", False, {}),
    "kl_log": (lambda f, x, t, w, **kw: f.kl_div(x, t, log_target=True, **kw), "logprob", "logprob", False, {}),
}
REDUCTIONS = ["none", "mean", "sum"]


def _values(kind, shape, rng):
    x = rng.standard_normal(shape)
    if kind == "prob":
        return 1 / (1 + np.exp(-x))
    if kind == "logprob":
        return -np.abs(x) - 0.1
    return x


def _make(name, shape, rng):
    fn, xk, tk, weighted, _ = LOSSES[name]
    x, t = _values(xk, shape, rng), _values(tk, shape, rng)
    w = rng.uniform(0.5, 2.0, shape[-1:]) if weighted else None  # broadcast along the last dim
    return fn, x, t, w


def _run(lib, fn, x, t, w, dtype, device, reduction, grad=True):
    f = F if lib is nabla else TF
    kw = {"device": device} if lib is nabla else {}
    xt = lib.tensor(x, dtype=dtype, **kw).requires_grad_(grad)
    tt = lib.tensor(t, dtype=dtype, **kw).requires_grad_(grad)
    wt = lib.tensor(w, dtype=dtype, **kw) if w is not None else None
    y = fn(f, xt, tt, wt, reduction=reduction)
    if grad:
        up = lib.tensor(np.linspace(-1, 1, max(1, int(np.prod(y.shape)))).reshape(tuple(y.shape)), dtype=dtype, **kw)
        (y * up).sum().backward()
    return y, xt.grad if grad else None, tt.grad if grad else None


def _np(t):
    return None if t is None else t.detach().cpu().to(torch.float64 if isinstance(t, torch.Tensor) else nabla.float64).numpy()


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_match_torch(device, name, dtype, reduction):
    nd, td, rtol, atol = FLOATS[dtype]
    rng = np.random.default_rng(abs(hash((name, dtype, reduction))) % 2**32)
    fn, x, t, w = _make(name, (4, 7), rng)
    if dtype in ("float16", "bfloat16"):  # round the inputs as the dtype does, so both sides see the same values
        x, t = (torch.tensor(a).to(td).double().numpy() for a in (x, t))
        w = None if w is None else torch.tensor(w).to(td).double().numpy()
    ours = _run(nabla, fn, x, t, w, nd, device, reduction)
    theirs = _run(torch, fn, x, t, w, td, "cpu", reduction)
    assert ours[0].device.type == device and ours[0].dtype == nd
    assert tuple(ours[0].shape) == tuple(theirs[0].shape)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None or not _np(a).any()
            continue
        scale = max(1.0, float(np.abs(_np(b)).max()))
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol * scale)


@pytest.mark.parametrize("name", ["mse", "bce_logits", "kl"])
def test_broadcast_strided_operands_and_out(device, name):
    rng = np.random.default_rng(7)
    fn, x, t, w = _make(name, (6, 5), rng)
    if name == "kl":
        t[:, ::2] = 0  # 0 log 0 = 0
    xs = nabla.tensor(x.T.copy(), device=device).t()  # transposed storage
    ts = nabla.tensor(t[:1], device=device)  # broadcast along dim 0 (a warning where PyTorch warns)
    kwargs = {"weight": nabla.tensor(w, device=device)} if w is not None else {}
    if name == "bce_logits":
        got = F.binary_cross_entropy_with_logits(xs, ts.expand(6, 5), reduction="none", **kwargs)
        want = TF.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(t[:1]).expand(6, 5), reduction="none",
                                                   weight=torch.tensor(w))
    elif name == "mse":
        with warnings.catch_warnings():  # PyTorch warns about the broadcast target; nabla may too
            warnings.simplefilter("ignore")
            got = F.mse_loss(xs, ts, reduction="none")
        want = TF.mse_loss(torch.tensor(x), torch.tensor(t[:1]).expand(6, 5), reduction="none")
    else:
        got = F.kl_div(xs, ts.expand(6, 5), reduction="none")
        want = TF.kl_div(torch.tensor(x), torch.tensor(t[:1]).expand(6, 5), reduction="none")
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_bad_input(device):
    x = nabla.tensor([0.2, 1.5, 0.3], device=device)
    t = nabla.tensor([0.0, 1.0, 1.0], device=device)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(x, t)
    with pytest.raises(ValueError, match="different to the input size"):
        F.binary_cross_entropy(x.clamp(0, 1), t[:2])
    with pytest.raises(RuntimeError, match="does not support negative values for beta"):
        F.smooth_l1_loss(x, t, beta=-1.0)
    if device != "cpu":
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            F.mse_loss(x, t.cpu())


def test_no_tensor_outlives_the_call(device):
    import gc
    x = nabla.tensor(np.linspace(0.1, 0.9, 12).reshape(3, 4), device=device, requires_grad=True)
    t = nabla.tensor(np.linspace(0.9, 0.1, 12).reshape(3, 4), device=device)

    def step():
        for fn in (F.mse_loss, F.l1_loss, F.binary_cross_entropy, F.binary_cross_entropy_with_logits,
                   lambda a, b: F.huber_loss(a, b, delta=0.3), lambda a, b: F.kl_div(a, b, reduction="batchmean")):
            fn(x, t).backward()
        with pytest.raises(RuntimeError):
            F.binary_cross_entropy(x * 3, t)
        labels = nabla.tensor([0, 3, -100], device=device)
        F.cross_entropy(x, labels, label_smoothing=0.1).backward()
        F.cross_entropy(x, t.softmax(1)).backward()
        with pytest.raises(IndexError):  # on a device, at the next synchronising call
            F.nll_loss(x, nabla.tensor([0, 9, 1], device=device)).cpu()

    step()
    gc.collect()
    before = nabla.memory.stats()["live_tensors"]
    for _ in range(5):
        step()
    gc.collect()
    assert nabla.memory.stats()["live_tensors"] == before


# (shape of the input, target kind, kwargs): class indices (with ignore_index hits) or probabilities
CLASSIFICATION = [
    ((5, 4), "index", {}),
    ((5, 4), "index", {"weight": True}),
    ((5, 4), "index", {"ignore_index": 1}),
    ((5, 4), "index", {"weight": True, "ignore_index": 2, "label_smoothing": 0.2}),
    ((3, 4, 6), "index", {"weight": True, "label_smoothing": 0.1}),
    ((4,), "index", {}),
    ((5, 4), "prob", {}),
    ((5, 4), "prob", {"weight": True, "label_smoothing": 0.3}),
    ((2, 4, 3), "prob", {}),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("case", range(len(CLASSIFICATION)))
def test_classification_losses_match_torch(device, case, fn, dtype, reduction):
    shape, kind, kwargs = CLASSIFICATION[case]
    if fn == "nll_loss" and (kind == "prob" or "label_smoothing" in kwargs):
        pytest.skip("nll_loss takes class indices and no label smoothing")
    nd, td, rtol, atol = FLOATS[dtype]
    rng = np.random.default_rng(case)
    C = shape[1] if len(shape) >= 2 else shape[0]
    x = torch.tensor(rng.standard_normal(shape)).to(td).double().numpy()
    if kind == "index":
        tshape = (shape[0],) + shape[2:] if len(shape) >= 2 else ()
        t = rng.integers(0, C, tshape)
    else:
        t = torch.tensor(rng.random(shape)).softmax(1 if len(shape) >= 2 else 0).to(td).double().numpy()
    w = rng.uniform(0.5, 2.0, C) if kwargs.get("weight") else None
    extra = {k: v for k, v in kwargs.items() if k != "weight"}

    def run(lib, f, dt, dev):
        kw = {"device": dev} if lib is nabla else {}
        xt = lib.tensor(x, dtype=dt, **kw).requires_grad_(True)
        inp = xt.log_softmax(1 if len(shape) >= 2 else 0) if fn == "nll_loss" else xt
        tt = lib.tensor(t, **kw) if kind == "index" else lib.tensor(t, dtype=dt, **kw)
        wt = lib.tensor(w, dtype=dt, **kw) if w is not None else None
        y = getattr(f, fn)(inp, tt, weight=wt, reduction=reduction, **extra)
        up = lib.tensor(np.linspace(0.5, 1.5, max(1, int(np.prod(y.shape)))).reshape(tuple(y.shape)), dtype=dt, **kw)
        (y * up).sum().backward()
        return y, xt.grad

    ours = run(nabla, F, nd, device)
    theirs = run(torch, TF, td, "cpu")
    assert ours[0].dtype == nd and ours[0].device.type == device
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol * max(1.0, float(np.abs(_np(b)).max())))


def test_classification_bad_input(device):
    x = nabla.zeros(3, 4, device=device)
    # on a device the kernel's error word surfaces at the next synchronising call (.cpu())
    with pytest.raises(IndexError, match="cross_entropy: Target 7 is out of bounds"):
        F.cross_entropy(x, nabla.tensor([0, 7, 1], device=device)).cpu()
    with pytest.raises(IndexError, match="nll_loss: Target -3 is out of bounds"):
        F.nll_loss(x, nabla.tensor([0, -3, 1], device=device), ignore_index=1).cpu()
    assert float(F.cross_entropy(x, nabla.tensor([0, -100, 1], device=device))) == pytest.approx(np.log(4))
    with pytest.raises(ValueError, match="Expected input batch_size"):
        F.cross_entropy(x, nabla.tensor([0, 1], device=device))
    if device != "cpu":
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            F.cross_entropy(x, nabla.tensor([0, 1, 2]))
