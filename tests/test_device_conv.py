"""conv1d / conv2d and conv_transpose1d / conv_transpose2d forward and their
input, weight and bias gradients on every device (the `device` fixture: CPU
always, CUDA when there is one) against PyTorch on the CPU: stride, padding
(symmetric and "same"), output_padding, dilation, groups (depthwise included),
1x1 kernels and a strided input; and the bad-input paths."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

torch = pytest.importorskip("torch")

CASES = [  # (N, C, H, W, O, k, stride, padding, dilation, groups)
    (2, 3, 7, 6, 4, 3, 1, 1, 1, 1),
    (2, 4, 9, 8, 6, 3, 2, 0, 1, 2),
    (1, 4, 8, 8, 4, 3, 1, 2, 2, 4),
    (2, 3, 5, 5, 5, 1, 1, 0, 1, 1),
    (2, 2, 7, 7, 3, 3, 2, 1, 1, 1),
    (1, 2, 6, 5, 2, 3, 1, "same", 1, 1),
]
DTYPES = {"float32": (nabla.float32, torch.float32, 2e-5), "float64": (nabla.float64, torch.float64, 1e-12)}


def _run(lib, case, dtype, device, conv1d=False):
    N, C, H, W, O, k, s, p, d, G = case
    rng = np.random.default_rng(7)
    kw = {"device": device} if lib is nabla else {}
    f = F if lib is nabla else torch.nn.functional
    xs = (N, C, W) if conv1d else (N, C, H, W)
    ws = (O, C // G, k) if conv1d else (O, C // G, k, k)
    x = lib.tensor(rng.standard_normal(xs[::-1]), dtype=dtype, **kw).permute(*range(len(xs) - 1, -1, -1))
    x = x.detach().requires_grad_(True)  # a non-contiguous leaf
    w = lib.tensor(rng.standard_normal(ws), dtype=dtype, **kw).requires_grad_(True)
    b = lib.tensor(rng.standard_normal(O), dtype=dtype, **kw).requires_grad_(True)
    y = (f.conv1d if conv1d else f.conv2d)(x, w, b, stride=1 if p == "same" else s, padding=p, dilation=d, groups=G)
    up = lib.tensor(np.linspace(-1, 1, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)), dtype=dtype, **kw)
    (y * up).sum().backward()
    return y, x.grad, w.grad, b.grad


@pytest.mark.parametrize("conv1d", [False, True], ids=["2d", "1d"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("case", range(len(CASES)))
def test_conv_and_gradients_match_torch(device, case, dtype, conv1d):
    nd, td, tol = DTYPES[dtype]
    ours = _run(nabla, CASES[case], nd, device, conv1d)
    theirs = _run(torch, CASES[case], td, "cpu", conv1d)
    assert ours[0].device.type == device and ours[0].dtype == nd
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def test_bad_input(device):
    x = nabla.ones(1, 3, 5, 5, device=device)
    with pytest.raises(RuntimeError, match="expected input.*to have 4 channels, but got 3"):
        F.conv2d(x, nabla.ones(2, 4, 3, 3, device=device))
    if device != "cpu":
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            F.conv2d(x, nabla.ones(2, 3, 3, 3))
        with pytest.raises(RuntimeError, match="expected all tensors to be on the same device"):
            F.conv_transpose2d(x, nabla.ones(3, 2, 3, 3))
    with pytest.raises(RuntimeError, match="expected input.*to have 2 channels, but got 3"):
        F.conv_transpose2d(x, nabla.ones(2, 2, 3, 3, device=device))
    with pytest.raises(RuntimeError, match="output padding must be smaller than either stride or dilation"):
        F.conv_transpose2d(x, nabla.ones(3, 2, 3, 3, device=device), stride=2, output_padding=2)


TRANSPOSED_CASES = [  # (N, C_in, H, W, C_out, k, stride, padding, output_padding, dilation, groups)
    (2, 4, 5, 6, 6, 3, 2, 1, 1, 1, 2),
    (1, 2, 4, 4, 3, 2, 1, 0, 0, 2, 1),
    (2, 2, 3, 5, 4, 3, 3, 1, 2, 1, 2),
    (2, 3, 4, 3, 2, 3, 1, 1, 1, 2, 1),  # output_padding >= stride (below the dilation)
    (1, 4, 3, 3, 4, 1, 2, 0, 1, 1, 4),  # 1x1 depthwise
]


def _run_transposed(lib, case, dtype, device, conv1d=False):
    N, C, H, W, O, k, s, p, op, d, G = case
    rng = np.random.default_rng(11)
    kw = {"device": device} if lib is nabla else {}
    f = F if lib is nabla else torch.nn.functional
    xs = (N, C, W) if conv1d else (N, C, H, W)
    ws = (C, O // G, k) if conv1d else (C, O // G, k, k)
    x = lib.tensor(rng.standard_normal(xs[::-1]), dtype=dtype, **kw).permute(*range(len(xs) - 1, -1, -1))
    x = x.detach().requires_grad_(True)  # a non-contiguous leaf
    w = lib.tensor(rng.standard_normal(ws), dtype=dtype, **kw).requires_grad_(True)
    b = lib.tensor(rng.standard_normal(O), dtype=dtype, **kw).requires_grad_(True)
    y = (f.conv_transpose1d if conv1d else f.conv_transpose2d)(x, w, b, stride=s, padding=p, output_padding=op,
                                                               groups=G, dilation=d)
    up = lib.tensor(np.linspace(-1, 1, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)), dtype=dtype, **kw)
    (y * up).sum().backward()
    return y, x.grad, w.grad, b.grad


@pytest.mark.parametrize("conv1d", [False, True], ids=["2d", "1d"])
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("case", range(len(TRANSPOSED_CASES)))
def test_conv_transpose_and_gradients_match_torch(device, case, dtype, conv1d):
    nd, td, tol = DTYPES[dtype]
    ours = _run_transposed(nabla, TRANSPOSED_CASES[case], nd, device, conv1d)
    theirs = _run_transposed(torch, TRANSPOSED_CASES[case], td, "cpu", conv1d)
    assert ours[0].device.type == device and ours[0].dtype == nd
    for a, b in zip(ours, theirs):
        assert a.device.type == device and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().cpu().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv_transpose_half(device, dtype):
    """float16 / bfloat16 compute in float32 and round once: against torch in float32 on the same values."""
    rng = np.random.default_rng(5)
    xv = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    wv = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    x = nabla.tensor(xv, device=device).to(getattr(nabla, dtype))
    w = nabla.tensor(wv, device=device).to(getattr(nabla, dtype))
    y = F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)
    assert y.dtype == getattr(nabla, dtype) and y.device.type == device
    ref = torch.nn.functional.conv_transpose2d(torch.tensor(x.float().cpu().numpy()),
                                               torch.tensor(w.float().cpu().numpy()), stride=2, padding=1,
                                               output_padding=1)
    tol = 1e-2 if dtype == "float16" else 6e-2
    np.testing.assert_allclose(y.float().cpu().numpy(), ref.numpy(), rtol=tol, atol=tol)
