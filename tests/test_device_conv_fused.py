"""The CUDA convolution kernels (src/cuda/conv.cu, implicit GEMMs behind the conv
slot): conv2d / conv1d forward, input and weight gradients and conv_transpose2d /
conv_transpose1d against PyTorch on the CPU in float64 (inputs rounded into the
dtype), in float64, float32, float16 and bfloat16, over strides, asymmetric padding
and dilation, groups (depthwise included), odd sizes, batch 1, channel counts past
the kernel's 64-wide tiles, inputs and upstream gradients that are not contiguous,
an empty batch, and a weight gradient long enough to be reduced in several slices
(bit-identical on repeat). NABLA_CONV_FUSED=0 gives the composed path to compare
with; the profiler shows which path ran. Bad input gives the CPU's messages.
Shapes stay small: the emulated CUDA device runs them in CI."""
from __future__ import annotations

import os
from contextlib import nullcontext
from unittest import mock

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla.profiler import ProfilerActivity, profile

torch = pytest.importorskip("torch")
TF = torch.nn.functional

pytestmark = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

FLOATS = {  # name: (nabla dtype, torch dtype, tolerance relative to the result's largest magnitude)
    "float64": (nabla.float64, torch.float64, 1e-12),
    "float32": (nabla.float32, torch.float32, 2e-6),
    "float16": (nabla.float16, torch.float16, 2e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 1.6e-2),
}

CASES = {  # name: (N, C, H, W, O, (kh, kw), stride, padding, dilation, groups)
    "batch1_odd": (1, 3, 7, 9, 5, (3, 3), 1, 1, 1, 1),
    "stride_asym": (2, 4, 9, 8, 6, (3, 2), (2, 1), (1, 0), 1, 2),
    "depthwise_dilated": (2, 6, 8, 7, 6, (3, 3), 2, 2, 2, 6),
    "channels_past_tile": (1, 70, 3, 4, 66, (1, 1), 1, 0, 1, 1),
    "stride_skips_rows": (2, 3, 10, 10, 4, (3, 3), 3, 0, 1, 1),
    "wide_kernel": (2, 5, 6, 11, 3, (2, 4), (1, 3), (0, 2), (2, 1), 1),
    "one_pixel": (1, 2, 3, 3, 130, (3, 3), 1, 0, 1, 2),
}


def composed():
    """The composed path for the calls inside."""
    return mock.patch.dict(os.environ, {"NABLA_CONV_FUSED": "0"})


def _round(a, dt):
    return torch.tensor(a).to(FLOATS[dt][1]).double().numpy()


def _close(ours, ref, dt):
    got = ours.detach().cpu().double().numpy()
    ref = ref.detach().double().numpy()
    assert got.shape == ref.shape
    scale = max(1.0, float(np.abs(ref).max(initial=0)))
    np.testing.assert_allclose(got, ref, rtol=0, atol=FLOATS[dt][2] * scale)


def _inputs(case, dt, seed=0):
    N, C, H, W, O, (kh, kw), *_, G = CASES[case]
    rng = np.random.default_rng(seed)
    return (_round(rng.standard_normal((N, C, H, W)), dt), _round(rng.standard_normal((O, C // G, kh, kw)), dt),
            _round(rng.standard_normal(O), dt))


def _nabla_conv2d(case, dt, x, w, b, up):
    """conv2d of a channels-last x and a transposed-view weight, the loss through a permuted output (so dy is a
    non-contiguous view): y and the three gradients."""
    *_, s, p, d, G = CASES[case]
    nd = FLOATS[dt][0]
    xl = nabla.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), dtype=nd, device="cuda")
    xv = xl.permute(0, 3, 1, 2).detach().requires_grad_(True)
    wl = nabla.tensor(np.ascontiguousarray(w.swapaxes(2, 3)), dtype=nd, device="cuda")
    wv = wl.transpose(2, 3).detach().requires_grad_(True)
    bv = nabla.tensor(b, dtype=nd, device="cuda").requires_grad_(True)
    y = F.conv2d(xv, wv, bv, stride=s, padding=p, dilation=d, groups=G)
    upl = nabla.tensor(np.ascontiguousarray(up.transpose(0, 2, 3, 1)), dtype=nd, device="cuda")
    (y.permute(0, 2, 3, 1) * upl).sum().backward()
    return y, xv.grad, wv.grad, bv.grad


def _torch_conv2d(case, x, w, b, up):
    *_, s, p, d, G = CASES[case]
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    y = TF.conv2d(tx, tw, tb, stride=s, padding=p, dilation=d, groups=G)
    (y * torch.tensor(up)).sum().backward()
    return y, tx.grad, tw.grad, tb.grad


def _out_shape(case):
    N, C, H, W, O, (kh, kw), s, p, d, G = CASES[case]
    pair = lambda v: v if isinstance(v, tuple) else (v, v)  # noqa: E731
    (sh, sw), (ph, pw), (dh, dw) = pair(s), pair(p), pair(d)
    return N, O, (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1


@pytest.mark.parametrize("dt", list(FLOATS))
@pytest.mark.parametrize("case", list(CASES))
def test_conv2d_and_gradients_match_torch(case, dt):
    x, w, b = _inputs(case, dt)
    up = _round(np.random.default_rng(1).standard_normal(_out_shape(case)), dt)
    ours = _nabla_conv2d(case, dt, x, w, b, up)
    theirs = _torch_conv2d(case, x, w, b, up)
    assert ours[0].dtype == FLOATS[dt][0] and ours[0].device.type == "cuda"
    for a, r in zip(ours, theirs):
        _close(a, r, dt)


def test_fused_path_runs_no_matmul():
    x = nabla.randn(2, 3, 6, 6, device="cuda").requires_grad_(True)
    w = nabla.randn(4, 3, 3, 3, device="cuda").requires_grad_(True)
    for ctx, expect_matmul in ((nullcontext, False), (composed, True)):
        with ctx(), profile(activities=[ProfilerActivity.CPU]) as prof:
            F.conv2d(x, w, padding=1).sum().backward()
        keys = {e.key for e in prof.key_averages()}
        assert "nabla::conv2d_backward_weight" in keys
        assert ("nabla::matmul" in keys) == expect_matmul
        x.grad = w.grad = None


@pytest.mark.parametrize("case", ["stride_asym", "depthwise_dilated", "wide_kernel"])
def test_fused_and_composed_agree(case):
    x, w, b = _inputs(case, "float32", seed=3)
    up = _round(np.random.default_rng(4).standard_normal(_out_shape(case)), "float32")
    fused = _nabla_conv2d(case, "float32", x, w, b, up)
    with composed():
        comp = _nabla_conv2d(case, "float32", x, w, b, up)
    for a, r in zip(fused, comp):
        scale = max(1.0, float(r.abs().max().item()))
        np.testing.assert_allclose(a.detach().cpu().numpy(), r.detach().cpu().numpy(), rtol=0, atol=2e-6 * scale)


def test_weight_gradient_in_slices_repeats_bit_for_bit():
    """N * OH * OW = 2 * 32 * 32 is reduced in several slices and a second pass; twice the same bits."""
    rng = np.random.default_rng(5)
    x, w, up = rng.standard_normal((2, 3, 32, 32)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal((2, 4, 32, 32))
    grads = []
    for _ in range(2):
        nx = nabla.tensor(x, device="cuda", dtype=nabla.float32)
        nw = nabla.tensor(w, device="cuda", dtype=nabla.float32).requires_grad_(True)
        (F.conv2d(nx, nw, padding=1) * nabla.tensor(up, device="cuda", dtype=nabla.float32)).sum().backward()
        grads.append(nw.grad.cpu().numpy())
    assert np.array_equal(grads[0], grads[1])
    tw = torch.tensor(w, requires_grad=True)
    (TF.conv2d(torch.tensor(x), tw, padding=1) * torch.tensor(up)).sum().backward()
    np.testing.assert_allclose(grads[0], tw.grad.numpy(), rtol=0, atol=2e-6 * float(tw.grad.abs().max()))


def test_empty_batch():
    x = nabla.zeros(0, 3, 5, 5, device="cuda").requires_grad_(True)
    w = nabla.randn(4, 3, 3, 3, device="cuda").requires_grad_(True)
    y = F.conv2d(x, w, padding=1)
    assert tuple(y.shape) == (0, 4, 5, 5)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 5, 5)
    assert np.array_equal(w.grad.cpu().numpy(), np.zeros((4, 3, 3, 3), np.float32))


TRANSPOSED = {  # name: (N, C_in, H, W, C_out, k, stride, padding, output_padding, dilation, groups)
    "grouped_stride": (2, 4, 5, 6, 6, 3, 2, 1, 1, 1, 2),
    "dilated": (1, 3, 4, 4, 5, 2, 1, 0, 0, 2, 1),
    "outpad_below_dilation": (2, 3, 4, 3, 2, 3, 1, 1, 1, 2, 1),
    "depthwise_1x1": (1, 4, 3, 3, 4, 1, 2, 0, 1, 1, 4),
}


@pytest.mark.parametrize("dt", ["float64", "float16"])
@pytest.mark.parametrize("conv1d", [False, True], ids=["2d", "1d"])
@pytest.mark.parametrize("case", list(TRANSPOSED))
def test_conv_transpose_and_gradients_match_torch(case, conv1d, dt):
    N, C, H, W, O, k, s, p, op, d, G = TRANSPOSED[case]
    rng = np.random.default_rng(11)
    xs, ws = ((N, C, W), (C, O // G, k)) if conv1d else ((N, C, H, W), (C, O // G, k, k))
    x, w, b = (_round(rng.standard_normal(sh), dt) for sh in (xs, ws, (O,)))
    args = dict(stride=s, padding=p, output_padding=op, groups=G, dilation=d)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = (TF.conv_transpose1d if conv1d else TF.conv_transpose2d)(tx, tw, tb, **args)
    up = _round(rng.standard_normal(tuple(ty.shape)), dt)
    (ty * torch.tensor(up)).sum().backward()
    nd = FLOATS[dt][0]
    nx, nw, nb_ = (nabla.tensor(a, dtype=nd, device="cuda").requires_grad_(True) for a in (x, w, b))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = (F.conv_transpose1d if conv1d else F.conv_transpose2d)(nx, nw, nb_, **args)
        (y * nabla.tensor(up, dtype=nd, device="cuda")).sum().backward()
    assert "nabla::matmul" not in {e.key for e in prof.key_averages()}
    for a, r in zip((y, nx.grad, nw.grad, nb_.grad), (ty, tx.grad, tw.grad, tb.grad)):
        _close(a, r, dt)


@pytest.mark.parametrize("dt", ["float64", "bfloat16"])
def test_conv1d_and_gradients_match_torch(dt):
    rng = np.random.default_rng(9)
    x, w, b = (_round(rng.standard_normal(s), dt) for s in ((3, 4, 17), (6, 2, 3), (6,)))
    args = dict(stride=2, padding=2, dilation=3, groups=2)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = TF.conv1d(tx, tw, tb, **args)
    up = _round(rng.standard_normal(tuple(ty.shape)), dt)
    (ty * torch.tensor(up)).sum().backward()
    nd = FLOATS[dt][0]
    xv = nabla.tensor(np.ascontiguousarray(x.swapaxes(1, 2)), dtype=nd, device="cuda").transpose(1, 2)
    xv = xv.detach().requires_grad_(True)
    nw = nabla.tensor(w, dtype=nd, device="cuda").requires_grad_(True)
    nb2 = nabla.tensor(np.repeat(b, 2), dtype=nd, device="cuda").requires_grad_(True)
    y = F.conv1d(xv, nw, nb2[::2], **args)  # a strided bias
    (y * nabla.tensor(up, dtype=nd, device="cuda")).sum().backward()
    for a, r in zip((y, xv.grad, nw.grad, nb2.grad[::2]), (ty, tx.grad, tw.grad, tb.grad)):
        _close(a, r, dt)


def _message(fn, device):
    with pytest.raises(RuntimeError) as info:
        fn(device)
    return str(info.value)


@pytest.mark.parametrize("bad", [
    lambda dev: F.conv2d(nabla.ones(1, 3, 5, 5, device=dev), nabla.ones(2, 4, 3, 3, device=dev)),
    lambda dev: F.conv2d(nabla.ones(1, 4, 5, 5, device=dev), nabla.ones(3, 2, 3, 3, device=dev), groups=2),
    lambda dev: F.conv2d(nabla.ones(1, 3, 2, 2, device=dev), nabla.ones(2, 3, 3, 3, device=dev)),
    lambda dev: F.conv2d(nabla.ones(1, 3, 5, 5, device=dev), nabla.ones(2, 3, 3, 3, device=dev),
                         nabla.ones(3, device=dev)),
    lambda dev: F.conv2d(nabla.ones(1, 3, 5, 5, device=dev), nabla.ones(2, 3, 3, 3, device=dev, dtype=nabla.float64)),
    lambda dev: F.conv_transpose2d(nabla.ones(1, 3, 5, 5, device=dev), nabla.ones(2, 2, 3, 3, device=dev)),
], ids=["channels", "groups", "kernel_too_big", "bias_size", "dtypes", "transposed_channels"])
def test_bad_input_gives_the_cpu_message(bad):
    assert _message(bad, "cuda") == _message(bad, "cpu")


def test_mismatched_devices():
    x = nabla.ones(1, 3, 5, 5, device="cuda")
    with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
        F.conv2d(x, nabla.ones(2, 3, 3, 3))
    with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
        F.conv2d(x, nabla.ones(2, 3, 3, 3, device="cuda"), nabla.ones(2))


def test_conv3d_through_the_2d_kernels():
    """conv3d is composed from 2-d convolutions per depth tap (nn/_functional_3d.py): on CUDA they take the kernels."""
    rng = np.random.default_rng(13)
    x, w, b = rng.standard_normal((2, 4, 5, 6, 5)), rng.standard_normal((6, 2, 3, 2, 3)), rng.standard_normal(6)
    args = dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = TF.conv3d(tx, tw, tb, **args)
    up = rng.standard_normal(tuple(ty.shape))
    (ty * torch.tensor(up)).sum().backward()
    nx, nw, nb_ = (nabla.tensor(a, device="cuda").requires_grad_(True) for a in (x, w, b))
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        y = F.conv3d(nx, nw, nb_, **args)
        (y * nabla.tensor(up, device="cuda")).sum().backward()
    assert "nabla::matmul" not in {e.key for e in prof.key_averages()}
    for a, r in zip((y, nx.grad, nw.grad, nb_.grad), (ty, tx.grad, tw.grad, tb.grad)):
        _close(a, r, "float64")
