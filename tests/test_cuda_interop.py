"""CUDA tensors exchanged with PyTorch and CuPy through DLPack (both ways,
sharing memory, strided views, the stream argument), and the DataLoader's
pin_memory. Needs a GPU and the other library built with CUDA; skipped otherwise."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

HAS_CUDA = nabla.cuda.is_available()
pytestmark = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch is built without CUDA or sees no GPU")
    return torch


def _cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001 - CuPy raises its own runtime error types
        pytest.skip(f"CuPy sees no GPU: {e}")
    return cupy


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"])
def test_torch_to_nabla_and_back_shares_memory(dtype):
    torch = _torch()
    t = (torch.arange(24, device="cuda") % 5).to(getattr(torch, dtype)).reshape(4, 6)
    n = nabla.from_dlpack(t)
    assert n.device.type == "cuda" and n.dtype == getattr(nabla, dtype)
    assert n.data_ptr() == t.data_ptr() and tuple(n.shape) == (4, 6)
    np.testing.assert_array_equal(n.cpu().to(nabla.float64).numpy(), t.cpu().double().numpy())
    back = torch.from_dlpack(n)
    assert back.data_ptr() == t.data_ptr()
    t.fill_(1)  # torch writes, nabla sees it
    torch.cuda.synchronize()
    assert n.to(nabla.float64).sum().item() == 24


def test_nabla_to_torch_strided_views_and_lifetime():
    torch = _torch()
    base = nabla.arange(60, dtype=nabla.float32, device="cuda").reshape(6, 10)
    view = base.t()[2:7:2]
    t = torch.from_dlpack(view)
    assert t.stride() == tuple(view.stride()) and t.data_ptr() == view.data_ptr()
    np.testing.assert_array_equal(t.cpu().numpy(), view.cpu().numpy())
    del base, view  # torch's tensor keeps the memory alive
    nabla.cuda.synchronize()
    assert t.sum().item() == float(np.arange(60, dtype=np.float32).reshape(6, 10).T[2:7:2].sum())
    tt = torch.randn(5, 7, device="cuda").t()
    n = nabla.from_dlpack(tt)
    assert tuple(n.stride()) == tt.stride()
    np.testing.assert_allclose((n * 2).cpu().numpy(), (tt * 2).cpu().numpy())


def test_nabla_work_on_a_side_stream_is_visible_to_torch():
    """The consumer passes its stream; the exporter orders it after nabla's pending work."""
    torch = _torch()
    s = nabla.cuda.Stream()
    with nabla.cuda.stream(s):
        a = nabla.ones(1 << 24, device="cuda")
        for _ in range(20):
            a = a * 1.0 + 1.0
    t = torch.from_dlpack(a)  # torch passes its current stream
    assert t.min().item() == 21.0


def test_torch_work_on_a_side_stream_is_visible_to_nabla():
    torch = _torch()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.ones(1 << 24, device="cuda")
        for _ in range(20):
            t = t * 1.0 + 1.0
        n = nabla.from_dlpack(t)  # nabla asks the producer to order its stream before nabla's
    assert n.min().item() == 21.0


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_cupy_both_ways(dtype):
    cupy = _cupy()
    c = cupy.arange(12, dtype=dtype).reshape(3, 4)[:, 1:]
    n = nabla.from_dlpack(c)
    assert n.data_ptr() == c.data.ptr and tuple(n.stride()) == tuple(s // c.itemsize for s in c.strides)
    np.testing.assert_array_equal(n.cpu().numpy(), cupy.asnumpy(c))
    m = nabla.arange(10, device="cuda").to(getattr(nabla, dtype))
    back = cupy.from_dlpack(m)
    assert back.data.ptr == m.data_ptr()
    np.testing.assert_array_equal(cupy.asnumpy(back), m.cpu().numpy())


def test_dataloader_pin_memory_gives_pinned_batches_that_copy_non_blocking():
    from nabla.utils.data import DataLoader, TensorDataset
    x = nabla.randn(64, 5)
    y = nabla.arange(64)
    loader = DataLoader(TensorDataset(x, y), batch_size=16, pin_memory=True)
    seen = 0
    for xb, yb in loader:
        assert xb.is_pinned() and yb.is_pinned()
        d = xb.to("cuda", non_blocking=True)
        nabla.cuda.synchronize()
        np.testing.assert_array_equal(d.cpu().numpy(), x[seen:seen + 16].numpy())
        seen += 16
    assert seen == 64
