"""The tensor-core (wmma) kernels for float16 / bfloat16 attention and convolution on
CUDA, against the CUDA-core kernels (NABLA_TENSOR_CORES=0) and PyTorch in float64:
head dims and lengths that are not multiples of 16, causal, bool and float masks,
dropout with the same Philox draws, repeatability bit for bit. On the emulated
device the count of warp-wide mma_sync calls proves which path ran."""
from __future__ import annotations

import ctypes
import os
from unittest import mock

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from test_device_attention import _close, _mask, _np, _round, _run

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")
HALF = ["float16", "bfloat16"]


def tensor_cores(on):
    """The tensor-core kernels (on) or the CUDA-core ones for the calls inside."""
    return mock.patch.dict(os.environ, {"NABLA_TENSOR_CORES": "1" if on else "0"})


def _mma_syncs():
    """Warp-wide mma_sync calls so far on the emulated device (None on a GPU)."""
    path = os.environ.get("NABLA_CUDA_PLUGIN", "")
    if not path or "emulated" not in nabla.cuda.get_device_name():
        return None
    nabla.cuda.synchronize()
    n = ctypes.c_longlong()
    ctypes.CDLL(path).nbemu_mma_syncs(ctypes.byref(n))
    return n.value


def _counted(on, call):
    """call() under the switch, and how many mma_sync calls it made (None on a GPU)."""
    with tensor_cores(on):
        before = _mma_syncs()
        out = call()
        after = _mma_syncs()
    return out, None if before is None else after - before


ATTENTION = {  # name: (batch dims, L, S, E, Ev, causal, mask kind) -- nothing a multiple of 16 but some dims
    "edges": ((2, 1), 37, 45, 40, 24, False, "bool_ls"),
    "causal": ((1, 2), 70, 67, 16, 8, True, None),
    "float_mask": ((2, 3), 19, 21, 72, 100, False, "float_1h"),
    "head128": ((1, 1), 33, 17, 128, 120, True, None),
}


def _attention(case, dt, on, seed=0, **kw):
    batch, L, S, E, Ev, causal, kind = ATTENTION[case]
    rng = np.random.default_rng(seed)
    q, k, v, go = (_round(rng.standard_normal((*batch, n, e)), dt) for n, e in ((L, E), (S, E), (S, Ev), (L, Ev)))
    m = _mask(kind, batch, L, S, rng, dt)
    ours, calls = _counted(on, lambda: _run(nabla, dt, "cuda", q, k, v, go, m, causal, False, **kw)[1])
    return (q, k, v, go, m, causal), [_np(t) for t in ours], calls


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("case", list(ATTENTION))
def test_attention_both_paths_match_torch_and_each_other(dt, case):
    args, tc, calls = _attention(case, dt, True)
    _, cc, none = _attention(case, dt, False)
    if calls is not None:
        assert calls > 0 and none == 0, (calls, none)
    ref = _run(torch, dt, None, *args, False)[1]
    _close(tc, ref, dt, "tensor cores")
    _close(cc, ref, dt, "CUDA cores")
    _close(tc, cc, dt, "tensor cores vs CUDA cores")


@pytest.mark.parametrize("dt", HALF)
def test_attention_repeats_bit_for_bit(dt):
    first = _attention("edges", dt, True)[1]
    again = _attention("edges", dt, True)[1]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_dropout_draws_the_same_weights_on_both_paths(causal):
    """v = I turns the output into the dropped weights: both paths drop the same places."""
    p, L, S = 0.3, 37, 41
    q = nabla.randn(2, L, 24, device="cuda", dtype=nabla.float16)
    k = nabla.randn(2, S, 24, device="cuda", dtype=nabla.float16)
    eye = nabla.eye(S, dtype=nabla.float16, device="cuda").expand(2, S, S)
    kept = []
    for on in (True, False):
        nabla.manual_seed(3)
        w, _ = _counted(on, lambda: F.scaled_dot_product_attention(q, k, eye, dropout_p=p, is_causal=causal))
        kept.append(_np(w) != 0)
    np.testing.assert_array_equal(kept[0], kept[1])
    for dt in HALF:
        outs = []
        for on in (True, False):
            nabla.manual_seed(4)
            outs.append(_attention("causal" if causal else "edges", dt, on, dropout_p=p)[1])
        _close(outs[0], outs[1], dt, "dropout")


def test_float32_never_uses_tensor_cores():
    q = nabla.randn(1, 2, 20, 16, device="cuda")
    _, calls = _counted(True, lambda: F.scaled_dot_product_attention(q, q, q))
    assert calls in (None, 0)


# ---- convolution ----

CONV = ["batch1_odd", "stride_asym", "depthwise_dilated", "channels_past_tile", "stride_skips_rows", "one_pixel"]


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("case", CONV)
def test_conv2d_both_paths_match_torch_and_each_other(case, dt):
    """Forward, input and weight gradients (and bias) through both paths, against PyTorch in float64."""
    import test_device_conv_fused as tc
    x, w, b = tc._inputs(case, dt)
    up = tc._round(np.random.default_rng(1).standard_normal(tc._out_shape(case)), dt)
    on, calls = _counted(True, lambda: tc._nabla_conv2d(case, dt, x, w, b, up))
    off, none = _counted(False, lambda: tc._nabla_conv2d(case, dt, x, w, b, up))
    if calls is not None:
        assert calls > 0 and none == 0, (calls, none)
    theirs = tc._torch_conv2d(case, x, w, b, up)
    for a, c, r in zip(on, off, theirs):
        tc._close(a, r, dt)
        tc._close(c, r, dt)
        tc._close(a, c.detach().cpu().double(), dt)


@pytest.mark.parametrize("dt", HALF)
def test_conv_weight_gradient_in_slices_repeats_bit_for_bit(dt):
    """N * OH * OW long enough for several slices of the weight gradient's reduction."""
    nd = FLOATS_NB[dt]
    x = nabla.randn(4, 5, 40, 40, device="cuda").to(nd).requires_grad_(True)
    w = nabla.randn(7, 5, 3, 3, device="cuda").to(nd).requires_grad_(True)
    grads = []
    for _ in range(2):
        with tensor_cores(True):
            x.grad = w.grad = None
            F.conv2d(x, w, padding=1).sum().backward()
        grads.append((_np(x.grad), _np(w.grad)))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)
    with tensor_cores(False):
        x.grad = w.grad = None
        F.conv2d(x, w, padding=1).sum().backward()
    scale = np.abs(grads[0][1]).max()
    np.testing.assert_allclose(grads[0][1], _np(w.grad), rtol=0, atol=(2e-3 if dt == "float16" else 1.6e-2) * scale)


FLOATS_NB = {"float16": nabla.float16, "bfloat16": nabla.bfloat16}
