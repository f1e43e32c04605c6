"""layer_norm, batch_norm (training and evaluation, running statistics) and
group_norm on every device (the `device` fixture: CPU always, CUDA when there is
one), forward and backward, against PyTorch on the CPU (inputs rounded into the
dtype): one and two normalized dims, with and without weight and bias, a 1-D input
(no batch dims), a strided input and an empty batch; the bad-input paths keep
their messages, and nothing outlives the call."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 1e-4, 1e-5),
    "float64": (nabla.float64, torch.float64, 1e-10, 1e-11),
    "float16": (nabla.float16, torch.float16, 1e-2, 1e-2),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 5e-2, 5e-2),
}

CASES = [  # (input shape, normalized_shape, affine, transposed input)
    ((4, 6), (6,), True, False),
    ((4, 6), (6,), False, False),
    ((2, 3, 5), (3, 5), True, False),
    ((7,), (7,), True, False),
    ((5, 8), (8,), True, True),
    ((0, 6), (6,), True, False),
]


def _run(lib, dt, device, shape, ns, affine, transposed, rng_seed):
    rng = np.random.default_rng(rng_seed)
    kw = {"device": device} if lib is nabla else {}
    x0 = torch.tensor(rng.standard_normal(shape[::-1] if transposed else shape)).to(FLOATS_T[dt]).double().numpy()
    w0 = torch.tensor(rng.uniform(0.5, 1.5, ns)).to(FLOATS_T[dt]).double().numpy()
    b0 = torch.tensor(rng.standard_normal(ns)).to(FLOATS_T[dt]).double().numpy()
    up = torch.tensor(rng.standard_normal(shape)).to(FLOATS_T[dt]).double().numpy()
    dtype = FLOATS[dt][0] if lib is nabla else FLOATS[dt][1]
    leaf = lib.tensor(x0, dtype=dtype, **kw).requires_grad_(True)
    x = leaf.t() if transposed else leaf
    w = lib.tensor(w0, dtype=dtype, **kw).requires_grad_(True) if affine else None
    b = lib.tensor(b0, dtype=dtype, **kw).requires_grad_(True) if affine else None
    f = F if lib is nabla else TF
    y = f.layer_norm(x, ns, w, b, eps=1e-5)
    (y * lib.tensor(up, dtype=dtype, **kw)).sum().backward()
    return [y, leaf.grad] + ([w.grad, b.grad] if affine else [])


FLOATS_T = {k: v[1] for k, v in FLOATS.items()}


def _assert_match(ours, theirs, device, dtype):
    _, _, rtol, atol = FLOATS[dtype]
    assert ours[0].device.type == device and ours[0].dtype == FLOATS[dtype][0]
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        scale = max(1.0, float(np.abs(_np(b)).max())) if b.numel() else 1.0
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol * scale)


def _np(t):
    return t.detach().cpu().double().numpy() if isinstance(t, torch.Tensor) else t.detach().cpu().to(nabla.float64).numpy()


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_layer_norm_matches_torch(device, case, dtype):
    shape, ns, affine, transposed = CASES[case]
    ours = _run(nabla, dtype, device, shape, ns, affine, transposed, case)
    theirs = _run(torch, dtype, "cpu", shape, ns, affine, transposed, case)
    _assert_match(ours, theirs, device, dtype)


def test_layer_norm_bad_input_and_memory(device):
    x = nabla.ones(3, 4, device=device)
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[5\\]"):
        F.layer_norm(x, (5,))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        F.layer_norm(x, (4,), nabla.ones(3, device=device))
    if device != "cpu":
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            F.layer_norm(x, (4,), nabla.ones(4))
    xg = nabla.randn(3, 4, device=device, requires_grad=True)
    w = nabla.ones(4, device=device, requires_grad=True)

    def step():
        F.layer_norm(xg, (4,), w, None).pow(2).sum().backward()

    step()
    gc.collect()
    before = nabla.memory.stats()["live_tensors"]
    for _ in range(5):
        step()
    gc.collect()
    assert nabla.memory.stats()["live_tensors"] == before


CHANNEL_CASES = [  # (norm, input shape, groups or training, affine)
    ("batch", (6, 3), True, True),
    ("batch", (4, 3, 5, 2), True, True),
    ("batch", (4, 3, 5), True, False),
    ("batch", (4, 3, 5), False, True),
    ("group", (2, 6, 5), 3, True),
    ("group", (3, 4, 2, 3), 1, True),
    ("group", (2, 4, 3), 4, False),
]


def _channel_run(lib, case, dt, device):
    norm, shape, arg, affine = CHANNEL_CASES[case]
    rng = np.random.default_rng(10 + case)
    kw = {"device": device} if lib is nabla else {}
    dtype = FLOATS[dt][0] if lib is nabla else FLOATS[dt][1]
    rnd = lambda a: torch.tensor(a).to(FLOATS_T[dt]).double().numpy()  # noqa: E731
    C = shape[1]
    x = lib.tensor(rnd(rng.standard_normal(shape) * 2 + 0.5), dtype=dtype, **kw).requires_grad_(True)
    w = lib.tensor(rnd(rng.uniform(0.5, 1.5, C)), dtype=dtype, **kw).requires_grad_(True) if affine else None
    b = lib.tensor(rnd(rng.standard_normal(C)), dtype=dtype, **kw).requires_grad_(True) if affine else None
    up = lib.tensor(rnd(rng.standard_normal(shape)), dtype=dtype, **kw)
    f = F if lib is nabla else TF
    extra = []
    if norm == "batch":
        rm = lib.tensor(rnd(rng.standard_normal(C) * 0.1), dtype=dtype, **kw)
        rv = lib.tensor(rnd(rng.uniform(0.5, 2, C)), dtype=dtype, **kw)
        y = f.batch_norm(x, rm, rv, w, b, training=arg, momentum=0.2, eps=1e-5)
        extra = [rm, rv]
    else:
        y = f.group_norm(x, arg, w, b, eps=1e-5)
    (y * up).sum().backward()
    return [y, x.grad] + ([w.grad, b.grad] if affine else []) + extra


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", range(len(CHANNEL_CASES)))
def test_batch_and_group_norm_match_torch(device, case, dtype):
    ours = _channel_run(nabla, case, dtype, device)
    theirs = _channel_run(torch, case, dtype, "cpu")
    _assert_match(ours, theirs, device, dtype)


def test_channel_norm_bad_input(device):
    x = nabla.ones(2, 4, 3, device=device)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        F.batch_norm(x, nabla.zeros(3, device=device), nabla.ones(3, device=device), training=True)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(nabla.ones(1, 4, device=device), None, None, training=True)
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible by num_groups"):
        F.group_norm(x, 3)
