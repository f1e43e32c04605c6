"""The 3-d layers (conv3d, max_pool3d, avg_pool3d, adaptive pools, BatchNorm3d and their
modules) against PyTorch on every device: values and gradients of the input, weight and
bias over strides, paddings ('same' with even kernels included), dilations, groups,
ceil_mode, count_include_pad, divisor_override and unbatched input; PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

F, TF = nabla.nn.functional, torch.nn.functional


def _pair(a, device, grad=True):
    ours = nabla.tensor(a, device=device).requires_grad_(grad)
    theirs = torch.tensor(a).requires_grad_(grad)
    return ours, theirs


def _compare(ours_fn, theirs_fn, arrays, device, rtol=1e-9):
    ours = [_pair(a, device) for a in arrays]
    y = ours_fn(*[o for o, _ in ours])
    ty = theirs_fn(*[t for _, t in ours])
    assert y.device.type == device
    np.testing.assert_allclose(y.detach().cpu().numpy(), ty.detach().numpy(), rtol=rtol, atol=rtol)
    g = np.random.default_rng(7).standard_normal(tuple(ty.shape))
    y.backward(nabla.tensor(g, device=device))
    ty.backward(torch.tensor(g))
    for (o, t) in ours:
        np.testing.assert_allclose(o.grad.cpu().numpy(), t.grad.numpy(), rtol=rtol, atol=rtol)


CONV = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(1, 2, 1), padding=(2, 0, 1), dilation=(2, 1, 1)),
    dict(padding="same"),
    dict(padding="valid", dilation=2),
    dict(groups=2, padding=1),
]


@pytest.mark.parametrize("kw", CONV, ids=[str(i) for i in range(len(CONV))])
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d_matches_torch(device, kw, bias, rng):
    kernel = (2, 3, 2) if kw.get("padding") == "same" else (3, 2, 3)
    x = rng.standard_normal((2, 4, 6, 7, 5))
    w = rng.standard_normal((6, 4 // kw.get("groups", 1), *kernel))
    arrays = [x, w] + ([rng.standard_normal(6)] if bias else [])
    _compare(lambda *a: F.conv3d(*a[:2], a[2] if bias else None, **kw),
             lambda *a: TF.conv3d(*a[:2], a[2] if bias else None, **kw), arrays, device)


def test_conv3d_unbatched_and_module(device, rng):
    x = rng.standard_normal((3, 5, 5, 5))
    w = rng.standard_normal((2, 3, 3, 3, 3))
    _compare(lambda a, b: F.conv3d(a, b, padding=1), lambda a, b: TF.conv3d(a, b, padding=1), [x, w], device)
    m = nabla.nn.Conv3d(3, 2, 3, padding=1, padding_mode="replicate", device=device, dtype=nabla.float64)
    tm = torch.nn.Conv3d(3, 2, 3, padding=1, padding_mode="replicate", dtype=torch.float64)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(m.weight.detach().cpu().numpy()))
        tm.bias.copy_(torch.tensor(m.bias.detach().cpu().numpy()))
    xb = rng.standard_normal((1, 3, 4, 5, 6))
    np.testing.assert_allclose(m(nabla.tensor(xb, device=device)).detach().cpu().numpy(),
                               tm(torch.tensor(xb)).detach().numpy(), rtol=1e-9, atol=1e-9)
    assert str(m) == str(tm)


POOL = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0), ceil_mode=True),
    dict(kernel_size=3, stride=2, ceil_mode=True),
]


@pytest.mark.parametrize("kw", POOL, ids=[str(i) for i in range(len(POOL))])
def test_max_pool3d_indices_match_torch(device, kw, rng):
    x = rng.standard_normal((2, 2, 5, 6, 5))
    x[0, 0, :2, :2, :2] = 1.5  # a tie: the first maximum in (d, h, w) order wins
    y, i = F.max_pool3d(nabla.tensor(x, device=device), return_indices=True, **kw)
    ty, ti = TF.max_pool3d(torch.tensor(x), return_indices=True, **kw)
    np.testing.assert_array_equal(y.cpu().numpy(), ty.numpy())
    np.testing.assert_array_equal(i.cpu().numpy(), ti.numpy())
    assert i.dtype == nabla.int64
    m, tm = nabla.nn.MaxPool3d(return_indices=True, **kw), torch.nn.MaxPool3d(return_indices=True, **kw)
    np.testing.assert_array_equal(m(nabla.tensor(x[0], device=device))[1].cpu().numpy(), tm(torch.tensor(x[0]))[1])
    out = F.max_unpool3d(y, i, kw["kernel_size"], kw.get("stride"), kw.get("padding", 0), output_size=x.shape[2:])
    np.testing.assert_array_equal(out.cpu().numpy(),
                                  TF.max_unpool3d(ty, ti, kw["kernel_size"], kw.get("stride"), kw.get("padding", 0),
                                                  output_size=x.shape[2:]).numpy())


@pytest.mark.parametrize("kw", POOL, ids=[str(i) for i in range(len(POOL))])
def test_max_pool3d_matches_torch(device, kw, rng):
    x = rng.standard_normal((2, 3, 7, 6, 5))
    _compare(lambda a: F.max_pool3d(a, **kw), lambda a: TF.max_pool3d(a, **kw), [x], device)
    dil = dict(kw, dilation=2) if not kw.get("ceil_mode") else kw
    _compare(lambda a: F.max_pool3d(a, **dil), lambda a: TF.max_pool3d(a, **dil), [x], device)


@pytest.mark.parametrize("kw", POOL, ids=[str(i) for i in range(len(POOL))])
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool3d_matches_torch(device, kw, include_pad, rng):
    x = rng.standard_normal((2, 3, 7, 6, 5))
    _compare(lambda a: F.avg_pool3d(a, count_include_pad=include_pad, **kw),
             lambda a: TF.avg_pool3d(a, count_include_pad=include_pad, **kw), [x], device)
    _compare(lambda a: F.avg_pool3d(a, divisor_override=3, **kw),
             lambda a: TF.avg_pool3d(a, divisor_override=3, **kw), [x], device)


@pytest.mark.parametrize("out", [1, (3, 2, 4), (None, 3, 2), 5])
def test_adaptive_pools_match_torch(device, out, rng):
    x = rng.standard_normal((2, 3, 7, 5, 6))
    _compare(lambda a: F.adaptive_avg_pool3d(a, out), lambda a: TF.adaptive_avg_pool3d(a, out), [x], device)
    _compare(lambda a: F.adaptive_max_pool3d(a, out), lambda a: TF.adaptive_max_pool3d(a, out), [x], device)
    xu = rng.standard_normal((3, 4, 5, 6))
    _compare(lambda a: nabla.nn.AdaptiveAvgPool3d(out)(a), lambda a: torch.nn.AdaptiveAvgPool3d(out)(a), [xu], device)


def test_pool_modules_and_batch_norm3d(device, rng):
    x = rng.standard_normal((2, 3, 4, 5, 6))
    for ours, theirs in [(nabla.nn.MaxPool3d(2, stride=1), torch.nn.MaxPool3d(2, stride=1)),
                         (nabla.nn.AvgPool3d(3, padding=1, count_include_pad=False),
                          torch.nn.AvgPool3d(3, padding=1, count_include_pad=False)),
                         (nabla.nn.AdaptiveMaxPool3d((2, 2, 3)), torch.nn.AdaptiveMaxPool3d((2, 2, 3)))]:
        _compare(ours, theirs, [x], device)
    bn = nabla.nn.BatchNorm3d(3, device=device, dtype=nabla.float64)
    tbn = torch.nn.BatchNorm3d(3, dtype=torch.float64)
    _compare(bn, tbn, [x], device)
    np.testing.assert_allclose(bn.running_var.cpu().numpy(), tbn.running_var.numpy(), rtol=1e-9)
    bn.eval(), tbn.eval()
    np.testing.assert_allclose(bn(nabla.tensor(x, device=device)).detach().cpu().numpy(),
                               tbn(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="expected 5D input"):
        bn(nabla.zeros(2, 3, 4, device=device, dtype=nabla.float64))


def test_bad_input_raises_like_torch(device):
    x = nabla.zeros(1, 2, 3, 3, 3, device=device)
    with pytest.raises(RuntimeError, match="Expected 4D"):
        F.max_pool3d(nabla.zeros(2, 3, 3, device=device), 2)
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.avg_pool3d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match="Kernel size can't be greater"):
        F.conv3d(x, nabla.zeros(1, 2, 5, 1, 1, device=device))
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(x, 2, divisor_override=0)


TRANSPOSED = [
    dict(),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 1, 2), padding=(1, 0, 1), dilation=(1, 2, 1)),
    dict(groups=2, stride=2, output_padding=(1, 0, 1)),
]


@pytest.mark.parametrize("kw", TRANSPOSED, ids=[str(i) for i in range(len(TRANSPOSED))])
@pytest.mark.parametrize("bias", [True, False])
def test_conv_transpose3d_matches_torch(device, kw, bias, rng):
    x = rng.standard_normal((2, 4, 3, 4, 3))
    w = rng.standard_normal((4, 6 // kw.get("groups", 1), 3, 2, 3))
    arrays = [x, w] + ([rng.standard_normal(6 // kw.get("groups", 1) * kw.get("groups", 1))] if bias else [])
    _compare(lambda *a: F.conv_transpose3d(*a[:2], a[2] if bias else None, **kw),
             lambda *a: TF.conv_transpose3d(*a[:2], a[2] if bias else None, **kw), arrays, device)


def test_conv_transpose3d_module_with_output_size(device, rng):
    m = nabla.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1, device=device, dtype=nabla.float64)
    tm = torch.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1, dtype=torch.float64)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(m.weight.detach().cpu().numpy()))
        tm.bias.copy_(torch.tensor(m.bias.detach().cpu().numpy()))
    x = rng.standard_normal((1, 2, 3, 4, 3))
    ours = m(nabla.tensor(x, device=device), output_size=[6, 8, 6])
    theirs = tm(torch.tensor(x), output_size=[6, 8, 6])
    assert tuple(ours.shape) == tuple(theirs.shape) == (1, 3, 6, 8, 6)
    np.testing.assert_allclose(ours.detach().cpu().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-9)
    with pytest.raises(RuntimeError, match="output padding must be smaller"):
        F.conv_transpose3d(nabla.zeros(1, 2, 3, 3, 3, device=device), nabla.zeros(2, 1, 2, 2, 2, device=device),
                           output_padding=1)
