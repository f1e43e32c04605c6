"""scaled_dot_product_attention on every device (the `device` fixture: CPU always,
CUDA when there is one), forward and gradients of q, k and v against PyTorch's on
the CPU in float64 (inputs rounded into the dtype): causal and not with L != S,
lengths that are not multiples of the fused kernel's 32-row tiles, head dims 16 to
128, E != Ev, bool and float masks broadcast over batch and heads, q/k/v transposed
from [B, L, H, E], 2-d and 3-d inputs, an empty batch, dropout (its kept fraction
and scale, and gradients against a forward recomputed with the same seed). On CUDA
the fused kernel takes these (checked through grad_fn and the profiler), and
NABLA_SDPA_FUSED=0 gives the composed path to compare with; a float mask that
requires grad, double backward and fully masked rows are covered there too.
Shapes stay small: the emulated CUDA device runs them in CI."""
from __future__ import annotations

import os
from contextlib import contextmanager, nullcontext

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla.profiler import ProfilerActivity, profile

torch = pytest.importorskip("torch")
TF = torch.nn.functional

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol)
    "float32": (nabla.float32, torch.float32, 2e-4, 2e-5),
    "float64": (nabla.float64, torch.float64, 1e-9, 1e-10),
    "float16": (nabla.float16, torch.float16, 1e-2, 1e-2),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 5e-2, 5e-2),
}

CASES = {  # name: (batch dims, L, S, E, Ev, causal, mask kind, transposed)
    "plain": ((2, 2), 5, 7, 16, 16, False, None, False),
    "causal_tails": ((1, 2), 37, 33, 16, 16, True, None, False),
    "causal_long_keys": ((1,), 9, 40, 16, 8, True, None, False),
    "head64": ((2, 1), 33, 35, 64, 64, False, None, True),
    "head128": ((1, 1), 17, 19, 128, 128, True, None, False),
    "e_ne_ev": ((), 8, 9, 24, 40, False, None, False),
    "bool_mask_ls": ((2, 2), 6, 34, 16, 16, False, "bool_ls", False),
    "bool_mask_b11": ((2, 2), 7, 5, 16, 16, False, "bool_b1", True),
    "float_mask_1h": ((2, 3), 5, 6, 16, 16, False, "float_1h", False),
    "bool_mask_keys": ((2,), 6, 9, 16, 16, False, "bool_s", False),
    "3d": ((3,), 4, 6, 16, 16, False, None, False),
}


def _round(a, dt):
    return torch.tensor(a).to(FLOATS[dt][1]).double().numpy()


def _mask(kind, batch, L, S, rng, dt):
    if kind is None:
        return None
    if kind == "bool_ls":
        m = rng.random((L, S)) < 0.7
        m[:, 0] = True  # no row fully masked (the composed path gives NaN there)
        return m
    if kind == "bool_s":  # one key mask [S] for every row, batch and head
        m = rng.random(S) < 0.5
        m[0] = True
        return m
    if kind == "bool_b1":
        m = rng.random((batch[0], 1, L, S)) < 0.6
        m[..., 0] = True
        return m
    return _round(rng.standard_normal((1, batch[1], L, S)), dt)


def _inputs(case, dt, seed=0):
    batch, L, S, E, Ev, causal, kind, transposed = CASES[case]
    rng = np.random.default_rng(seed)
    q, k, v = (_round(rng.standard_normal((*batch, n, e)), dt) for n, e in ((L, E), (S, E), (S, Ev)))
    go = _round(rng.standard_normal((*batch, L, Ev)), dt)
    return q, k, v, go, _mask(kind, batch, L, S, rng, dt), causal, transposed


def _leaf(lib, a, dt, device, transposed):
    """a as a leaf that requires grad, and the view attention reads ([B, L, H, E] transposed for 4-d)."""
    dtype = FLOATS[dt][0] if lib is nabla else torch.float64
    kw = {"device": device} if lib is nabla else {}
    if transposed and a.ndim == 4:
        leaf = lib.tensor(np.ascontiguousarray(a.transpose(0, 2, 1, 3)), dtype=dtype, **kw).requires_grad_(True)
        return leaf, leaf.transpose(1, 2)
    leaf = lib.tensor(a, dtype=dtype, **kw).requires_grad_(True)
    return leaf, leaf


def _run(lib, dt, device, q0, k0, v0, go0, m0, causal, transposed, **kw):
    leaves, views = zip(*(_leaf(lib, a, dt, device, transposed) for a in (q0, k0, v0)))
    dtype = FLOATS[dt][0] if lib is nabla else torch.float64
    dev = {"device": device} if lib is nabla else {}
    mask = None
    if m0 is not None:
        mask = lib.tensor(m0, dtype=lib.bool if m0.dtype == bool else dtype, **dev)
    f = F if lib is nabla else TF
    y = f.scaled_dot_product_attention(*views, attn_mask=mask, is_causal=causal, **kw)
    (y * lib.tensor(go0, dtype=dtype, **dev)).sum().backward()
    return y, [y] + [t.grad for t in leaves]


def _np(t):
    return t.detach().to("cpu").double().numpy() if hasattr(t, "detach") else t


def _close(ours, ref, dt, what=""):
    _, _, rtol, atol = FLOATS[dt]
    for i, (a, b) in enumerate(zip(ours, ref)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, err_msg=f"{what} output {i}")


@contextmanager
def _composed():
    old = os.environ.get("NABLA_SDPA_FUSED")
    os.environ["NABLA_SDPA_FUSED"] = "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["NABLA_SDPA_FUSED"]
        else:
            os.environ["NABLA_SDPA_FUSED"] = old


FUSED = "ScaledDotProductFlashAttentionBackward0"
COMPOSED = "ScaledDotProductAttentionBackward0"


@pytest.mark.parametrize("dt", list(FLOATS))
@pytest.mark.parametrize("case", list(CASES))
def test_forward_and_gradients_match_torch(device, dt, case):
    q, k, v, go, m, causal, transposed = _inputs(case, dt)
    y, ours = _run(nabla, dt, device, q, k, v, go, m, causal, transposed)
    _, ref = _run(torch, dt, None, q, k, v, go, m, causal, transposed)
    assert y.device.type == device and y.dtype == FLOATS[dt][0] and tuple(y.shape) == tuple(ref[0].shape)
    if device == "cuda":
        assert y.grad_fn.name() == FUSED
    _close(ours, ref, dt, case)


def test_scale_and_2d_inputs(device):
    q, k, v, go, m, causal, _ = _inputs("e_ne_ev", "float32", seed=3)
    ours = _run(nabla, "float32", device, q, k, v, go, m, causal, False, scale=0.3)[1]
    ref = _run(torch, "float32", None, q, k, v, go, m, causal, False, scale=0.3)[1]
    _close(ours, ref, "float32")


def test_broadcast_batch_sums_gradients(device):
    """k and v shared by every head (batch dim 1): their gradients sum over the heads."""
    rng = np.random.default_rng(4)
    q = rng.standard_normal((2, 3, 6, 16))
    k, v = rng.standard_normal((2, 1, 7, 16)), rng.standard_normal((2, 1, 7, 8))
    go = rng.standard_normal((2, 3, 6, 8))
    ours = _run(nabla, "float64", device, q, k, v, go, None, False, False)[1]
    ref = _run(torch, "float64", None, q, k, v, go, None, False, False)[1]
    _close(ours, ref, "float64")


def test_empty_batch(device):
    q, k, v = (nabla.zeros(0, 2, n, 16, device=device).requires_grad_(True) for n in (4, 5, 5))
    y = F.scaled_dot_product_attention(q, k, v)
    assert tuple(y.shape) == (0, 2, 4, 16)
    y.sum().backward()
    assert tuple(q.grad.shape) == (0, 2, 4, 16) and tuple(v.grad.shape) == (0, 2, 5, 16)


def test_errors_keep_their_messages(device):
    q = nabla.zeros(2, 4, 8, device=device)
    with pytest.raises(RuntimeError, match=r"do not fit \[\.\.\., L, E\]"):
        F.scaled_dot_product_attention(q, nabla.zeros(2, 5, 6, device=device), nabla.zeros(2, 5, 8, device=device))
    with pytest.raises(RuntimeError, match="one floating dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="should not be set when is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=nabla.ones(4, 4, dtype=nabla.bool, device=device),
                                       is_causal=True)


# ---- dropout ----

def test_dropout_keeps_the_right_fraction_with_the_right_scale(device):
    """q = k = 0 gives uniform weights 1/S, and v = I turns the output into the dropped weights themselves."""
    p, L, S = 0.3, 64, 64
    q = nabla.zeros(4, L, 16, device=device)
    v = nabla.eye(S, device=device).expand(4, S, S)
    nabla.manual_seed(7)
    w = F.scaled_dot_product_attention(q, q[:, :S], v, dropout_p=p).to("cpu").numpy()
    kept = w != 0
    assert abs(kept.mean() - (1 - p)) < 0.02  # 16384 draws: 0.02 is over 5 standard deviations
    np.testing.assert_allclose(w[kept], 1 / (S * (1 - p)), rtol=1e-6)
    nabla.manual_seed(7)
    again = F.scaled_dot_product_attention(q, q[:, :S], v, dropout_p=p).to("cpu").numpy()
    np.testing.assert_array_equal(again, w)
    assert (F.scaled_dot_product_attention(q, q[:, :S], v, dropout_p=1.0).to("cpu").numpy() == 0).all()


def _dropout_reference(q0, k0, v0, go0, keep, p, causal):
    """Output and gradients in float64 with a given keep mask (PyTorch's formula with the mask fixed)."""
    q, k, v = (torch.tensor(a, requires_grad=True) for a in (q0, k0, v0))
    s = q @ k.transpose(-2, -1) / np.sqrt(q0.shape[-1])
    if causal:
        s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), float("-inf"))
    y = (torch.softmax(s, -1) * torch.tensor(keep) / (1 - p)) @ v
    (y * torch.tensor(go0)).sum().backward()
    return [y, q.grad, k.grad, v.grad]


@pytest.mark.parametrize("dt", ["float32", "float16"])
@pytest.mark.parametrize("causal", [False, True])
def test_dropout_gradients_use_the_forward_mask(device, dt, causal):
    """The keep mask is read back with the same seed (v = I gives the dropped weights, whose zeros are
    the dropped places), then output and gradients are checked against PyTorch with that mask."""
    p, L, S = 0.25, 35, 33
    rng = np.random.default_rng(11)
    q0, k0 = _round(rng.standard_normal((2, L, 16)), dt), _round(rng.standard_normal((2, S, 16)), dt)
    v0, go0 = _round(rng.standard_normal((2, S, 8)), dt), _round(rng.standard_normal((2, L, 8)), dt)
    nb_dt = FLOATS[dt][0]
    eye = nabla.eye(S, dtype=nb_dt, device=device).expand(2, S, S)
    qn, kn = nabla.tensor(q0, dtype=nb_dt, device=device), nabla.tensor(k0, dtype=nb_dt, device=device)
    nabla.manual_seed(5)
    keep = F.scaled_dot_product_attention(qn, kn, eye, dropout_p=p, is_causal=causal).to("cpu").double().numpy() != 0
    if causal:  # masked places read as zero too; keep them (their weight is 0 either way)
        keep |= ~np.tril(np.ones((L, S), dtype=bool))
    nabla.manual_seed(5)
    y, ours = _run(nabla, dt, device, q0, k0, v0, go0, None, causal, False, dropout_p=p)
    if device == "cuda":
        assert y.grad_fn.name() == FUSED
    _close(ours, _dropout_reference(q0, k0, v0, go0, keep, p, causal), dt)


# ---- the fused path (CUDA) ----

cuda_only = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")


@cuda_only
def test_fused_path_is_taken_and_can_be_turned_off():
    q = nabla.randn(1, 2, 5, 16, device="cuda")
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        F.scaled_dot_product_attention(q, q, q)
    keys = {e.key for e in prof.key_averages()}
    assert "nabla::_scaled_dot_product_flash_attention" in keys and "nabla::matmul" not in keys
    leaf = q.detach().requires_grad_(True)
    assert F.scaled_dot_product_attention(leaf, leaf, leaf).grad_fn.name() == FUSED
    with _composed():
        assert F.scaled_dot_product_attention(leaf, leaf, leaf).grad_fn.name() == COMPOSED
    big = nabla.randn(1, 3, 256, device="cuda", requires_grad=True)  # head dim over the kernel's 128
    assert F.scaled_dot_product_attention(big, big, big).grad_fn.name() == COMPOSED


@cuda_only
@pytest.mark.parametrize("causal", [False, True])
def test_fused_dropout_matches_the_composed_path(causal):
    """The fused kernel draws the weights nb_dropout draws for the composed path: same seed, same result."""
    rng = np.random.default_rng(2)
    q0, k0, v0, go0 = (rng.standard_normal(s) for s in ((2, 2, 9, 16), (2, 2, 40, 16), (2, 2, 40, 16),
                                                         (2, 2, 9, 16)))
    runs = []
    for composed in (False, True):
        nabla.manual_seed(9)
        with _composed() if composed else nullcontext():
            y, res = _run(nabla, "float64", "cuda", q0, k0, v0, go0, None, causal, False, dropout_p=0.4)
        assert y.grad_fn.name() == (COMPOSED if composed else FUSED)
        runs.append(res)
    _close(runs[0], runs[1], "float64", "fused vs composed")


@cuda_only
def test_fused_results_repeat_bit_for_bit():
    q, k, v, go, m, causal, transposed = _inputs("causal_tails", "float32")
    first = [_np(t) for t in _run(nabla, "float32", "cuda", q, k, v, go, m, causal, transposed)[1]]
    second = [_np(t) for t in _run(nabla, "float32", "cuda", q, k, v, go, m, causal, transposed)[1]]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


@cuda_only
def test_float_mask_requiring_grad_takes_the_composed_path():
    q, k, v, go, m, causal, _ = _inputs("float_mask_1h", "float32")
    qs, ks, vs = (nabla.tensor(a, dtype=nabla.float32, device="cuda") for a in (q, k, v))
    mask = nabla.tensor(m, dtype=nabla.float32, device="cuda").requires_grad_(True)
    y = F.scaled_dot_product_attention(qs, ks, vs, attn_mask=mask)
    assert y.grad_fn.name() == COMPOSED
    (y * nabla.tensor(go, device="cuda")).sum().backward()
    tm = torch.tensor(m, requires_grad=True)
    ty = TF.scaled_dot_product_attention(*(torch.tensor(a) for a in (q, k, v)), attn_mask=tm)
    (ty * torch.tensor(go)).sum().backward()
    _close([y, mask.grad], [ty, tm.grad], "float32")


@cuda_only
def test_fully_masked_rows_give_zeros_as_in_torch():
    rng = np.random.default_rng(6)
    q0, k0, v0, go0 = (rng.standard_normal(s) for s in ((2, 4, 16), (2, 5, 16), (2, 5, 16), (2, 4, 16)))
    m = np.ones((4, 5), dtype=bool)
    m[2] = False
    ours = _run(nabla, "float64", "cuda", q0, k0, v0, go0, m, False, False)[1]
    ref = _run(torch, "float64", None, q0, k0, v0, go0, m, False, False)[1]
    _close(ours, ref, "float64")


@cuda_only
@pytest.mark.parametrize("p", [0.0, 0.3])
def test_double_backward_through_the_fused_node(p):
    """create_graph runs the composed formula (with the forward's dropout mask), so it is differentiable."""
    rng = np.random.default_rng(8)
    arrays = [rng.standard_normal(s) for s in ((1, 2, 6, 8), (1, 2, 7, 8), (1, 2, 7, 8))]
    results = []
    for composed in (False, True):
        nabla.manual_seed(3)
        with _composed() if composed else nullcontext():
            q, k, v = (nabla.tensor(a, device="cuda").requires_grad_(True) for a in arrays)
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
            gq, gk, gv = nabla.autograd.grad((y * y).sum(), (q, k, v), create_graph=True)
            (gq.sum() + (gk * gk).sum() + gv.sum()).backward()
            results.append([y, gq, gk, gv, q.grad, k.grad, v.grad])
    _close(results[0], results[1], "float64", "fused vs composed")
    if p == 0:
        tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in arrays)
        s = (tq @ tk.transpose(-2, -1) / np.sqrt(8)).masked_fill(~torch.ones(6, 7, dtype=torch.bool).tril(),
                                                                 float("-inf"))
        ty = torch.softmax(s, -1) @ tv  # the math formula: torch's CPU flash kernel has no double backward
        tg = torch.autograd.grad((ty * ty).sum(), (tq, tk, tv), create_graph=True)
        (tg[0].sum() + (tg[1] * tg[1]).sum() + tg[2].sum()).backward()
        _close(results[0], [ty, *tg, tq.grad, tk.grad, tv.grad], "float64", "torch")
