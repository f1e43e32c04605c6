"""The sort family on every device (the `device` fixture: CPU always, CUDA when
there is one) against PyTorch on the CPU: sort (ascending, descending; indices
equal to torch's stable sort, many ties), argsort, msort, topk, kthvalue and
median (composed from sort), unique (sorted, inverse, counts, dim) and
unique_consecutive; every dtype, dims 0 / -1 / middle, NaN / inf / -0.0, strided
and transposed inputs, empty and 0-dim inputs, lines longer than one block's
tile, many short lines, and gradients computed on the device."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

DTYPES = {
    "float32": (nabla.float32, torch.float32), "float64": (nabla.float64, torch.float64),
    "float16": (nabla.float16, torch.float16), "bfloat16": (nabla.bfloat16, torch.bfloat16),
    "int8": (nabla.int8, torch.int8), "int16": (nabla.int16, torch.int16), "int32": (nabla.int32, torch.int32),
    "int64": (nabla.int64, torch.int64), "uint8": (nabla.uint8, torch.uint8), "bool": (nabla.bool, torch.bool),
}


def data(shape, dtype, seed=0, hi=6):
    """Small integers (exact in every dtype, many ties), float64 numpy; floats get NaN, inf, -0.0."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-hi if dtype not in ("uint8", "bool") else 0, 2 if dtype == "bool" else hi,
                     size=shape).astype(np.float64)
    if dtype.startswith("float") or dtype == "bfloat16":
        flat = a.reshape(-1)
        for j, v in zip(range(0, flat.size, 7), [np.nan, np.inf, -0.0, -np.inf, 0.0, np.nan]):
            flat[j] = v
    return a


def pair(a, dtype, device, layout=""):
    nd, td = DTYPES[dtype]
    t = torch.tensor(a).to(td)
    n = nabla.tensor(a, dtype=nd).to(device)
    if layout == "t":
        t, n = t.t(), n.t()
    elif layout == "s":
        t, n = t[..., ::2], n[..., ::2]
    return n, t


def same(n, t):
    got = torch.from_numpy(np.asarray(n.cpu().float().numpy() if n.dtype in (nabla.bfloat16,) else n.cpu().numpy()))
    want = t.float() if t.dtype == torch.bfloat16 else t
    assert tuple(got.shape) == tuple(want.shape)
    assert torch.equal(got.isnan(), want.isnan()) if want.is_floating_point() else True
    if want.is_floating_point():
        m = ~want.isnan()
        assert torch.equal(got[m], want.to(got.dtype)[m])
    else:
        assert torch.equal(got, want.to(got.dtype))


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("dim,layout", [(-1, ""), (0, ""), (1, ""), (-1, "t"), (1, "s")])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_stable(device, dtype, dim, layout, descending):
    n, t = pair(data((4, 6, 10), dtype) if layout != "t" else data((10, 9), dtype), dtype, device, layout)
    dim = dim if n.dim() == 3 else min(dim, 1)
    v, i = nabla.sort(n, dim=dim, descending=descending, stable=True)
    tv, ti = torch.sort(t, dim=dim, descending=descending, stable=True)
    assert v.device.type == device and i.dtype == nabla.int64
    same(v, tv)
    same(i, ti)
    same(nabla.argsort(n, dim=dim, descending=descending, stable=True), ti)


@pytest.mark.parametrize("length", [1, 2, 3, 2048, 2049, 10000, 70000])
@pytest.mark.parametrize("descending", [False, True])
def test_long_lines(device, length, descending):
    a = data((2, length), "float32", seed=length, hi=50)
    n, t = pair(a, "float32", device)
    v, i = nabla.sort(n, descending=descending)
    tv, ti = torch.sort(t, descending=descending, stable=True)
    same(v, tv)
    same(i, ti)


def test_many_short_lines_and_dim0(device):
    n, t = pair(data((3000, 3), "int32", hi=3), "int32", device)
    for d in (0, 1):
        v, i = nabla.sort(n, dim=d)
        tv, ti = torch.sort(t, dim=d, stable=True)
        same(v, tv)
        same(i, ti)
    same(nabla.msort(n), torch.msort(t))


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), ()])
def test_empty_and_scalar(device, shape):
    n, t = pair(data(shape, "float32"), "float32", device)
    v, i = nabla.sort(n, dim=-1 if shape else 0)
    tv, ti = torch.sort(t, dim=-1 if shape else 0)
    same(v, tv)
    same(i, ti)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(device, dtype, largest):
    n, t = pair(data((5, 40), dtype, hi=100), dtype, device)
    for k in (0, 1, 7, 40):
        v, i = nabla.topk(n, k, dim=1, largest=largest)
        tv, ti = torch.sort(t, dim=1, descending=largest, stable=True)
        same(v, tv[:, :k])
        same(i, ti[:, :k])
    with pytest.raises(RuntimeError, match="k"):
        nabla.topk(n, 41, dim=1)


def test_kthvalue_median(device):
    n, t = pair(data((4, 9), "float64", hi=100), "float64", device)
    n, t = n.nan_to_num(), t.nan_to_num()
    same(nabla.kthvalue(n, 3, dim=1).values, torch.kthvalue(t, 3, dim=1).values)
    same(nabla.median(n, dim=1).values, torch.median(t, dim=1).values)


def test_sort_topk_gradients(device):
    a = np.random.default_rng(1).standard_normal((3, 8))
    x = nabla.tensor(a, dtype=nabla.float32).to(device).requires_grad_()
    tx = torch.tensor(a, dtype=torch.float32, requires_grad=True)
    w = np.arange(24, dtype=np.float32).reshape(3, 8)
    (nabla.sort(x, dim=1, descending=True).values * nabla.tensor(w).to(device)).sum().backward()
    (torch.sort(tx, dim=1, descending=True).values * torch.tensor(w)).sum().backward()
    assert x.grad.device.type == device
    same(x.grad, tx.grad)
    x.grad = None
    tx.grad = None
    nabla.topk(x, 3, dim=1).values.sum().backward()
    torch.topk(tx, 3, dim=1).values.sum().backward()
    same(x.grad, tx.grad)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_unique(device, dtype):
    n, t = pair(data((7, 30), dtype), dtype, device, "t")
    got = nabla.unique(n, return_inverse=True, return_counts=True)
    want = torch.unique(t, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        same(g, w)
    same(nabla.unique(n), torch.unique(t))
    got = nabla.unique_consecutive(n, return_inverse=True, return_counts=True)
    want = torch.unique_consecutive(t, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        same(g, w)


def test_unique_long_and_empty(device):
    n, t = pair(data((5000,), "int64", hi=300), "int64", device)
    for g, w in zip(nabla.unique(n, return_inverse=True, return_counts=True),
                    torch.unique(t, return_inverse=True, return_counts=True)):
        same(g, w)
    n, t = pair(np.zeros((0, 3)), "float32", device)
    for g, w in zip(nabla.unique(n, return_inverse=True, return_counts=True),
                    torch.unique(t, return_inverse=True, return_counts=True)):
        same(g, w)


@pytest.mark.parametrize("dim", [0, 1])
def test_unique_dim(device, dim):
    n, t = pair(data((8, 3), "int32", hi=2), "int32", device)
    got = nabla.unique(n, dim=dim, return_inverse=True, return_counts=True)
    want = torch.unique(t, dim=dim, return_inverse=True, return_counts=True)
    assert got[0].device.type == device and got[1].device.type == device
    for g, w in zip(got, want):
        same(g, w)
    got = nabla.unique_consecutive(n, dim=dim, return_inverse=True, return_counts=True)
    want = torch.unique_consecutive(t, dim=dim, return_inverse=True, return_counts=True)
    for g, w in zip(got, want):
        same(g, w)
