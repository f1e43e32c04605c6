"""Copies on every device (the `device` fixture): dtype conversion between every
pair of the ten dtypes, against PyTorch where the conversion is defined (and,
on a GPU, against nabla's CPU conversion for every value, NaN, infinities,
signed zeros and out-of-range floats included); strided sources and destinations (transposes,
steps, expanded broadcasts), 0-dim and empty tensors, and transfers between
the host and the device in both directions with a conversion on the way."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

DTYPES = {
    "float32": (nabla.float32, torch.float32), "float64": (nabla.float64, torch.float64),
    "float16": (nabla.float16, torch.float16), "bfloat16": (nabla.bfloat16, torch.bfloat16),
    "int8": (nabla.int8, torch.int8), "int16": (nabla.int16, torch.int16), "int32": (nabla.int32, torch.int32),
    "int64": (nabla.int64, torch.int64), "uint8": (nabla.uint8, torch.uint8), "bool": (nabla.bool, torch.bool),
}
FLOAT = {"float32", "float64", "float16", "bfloat16"}
SMALL = {"int8", "uint8", "bool"}


def values(src):
    """Values every pair converts without undefined behaviour: within int8 and uint8 for small
    integer targets; fractions (which truncate) and values that round in float16 / bfloat16."""
    v = np.array([0, 1, -1, 2.5, -2.5, 7.75, -100.25, 127, 3, 0.1, 33.3, -0.6])
    if src in ("uint8", "bool"):
        v = np.abs(v)
    if src not in FLOAT:
        v = np.trunc(v)
    if src == "bool":
        v = v != 0
    return v


def as_np(t):
    return t.cpu().to(nabla.float64).numpy() if t.dtype != nabla.bool else t.cpu().numpy()


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_conversion_matches_torch(device, src, dst):
    v = values(src)
    if dst in ("uint8",) and src not in ("uint8", "bool"):
        v = np.abs(v)  # negative floats to uint8 are undefined in C; PyTorch's result is platform-specific
    x = nabla.tensor(v).to(DTYPES[src][0]).to(device)
    t = torch.tensor(v).to(DTYPES[src][1])
    got = x.to(DTYPES[dst][0])
    assert got.dtype == DTYPES[dst][0] and got.device.type == device
    want = t.to(DTYPES[dst][1])
    np.testing.assert_array_equal(as_np(got), want.to(torch.float64).numpy() if dst != "bool" else want.numpy())


@needs_cuda
@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_cuda_conversion_matches_cpu(src, dst):
    v = np.array([0, -0.0, 1, -1, 0.5, -2.5, 1e10, -1e10, 65504, 70000, 3.4e38, np.inf, -np.inf, np.nan, 1e-8,
                  300, -300, 255.9, -129])
    c = nabla.tensor(v).to(DTYPES[src][0])
    want = c.to(DTYPES[dst][0])
    got = c.to("cuda").to(DTYPES[dst][0]).cpu()
    w, g = as_np(want), as_np(got)  # float64 holds every value exactly
    np.testing.assert_array_equal(g, w)  # NaN matches NaN (payloads may differ)
    np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "bool"])
def test_strided_copies(device, dtype):
    nd, td = DTYPES[dtype]
    arr = np.arange(60).reshape(3, 4, 5) % 7
    x, t = nabla.tensor(arr).to(nd).to(device), torch.tensor(arr).to(td)
    checks = [
        (x.transpose(0, 2).contiguous(), t.transpose(0, 2).contiguous()),
        (x[:, ::2, 1::3].contiguous(), t[:, ::2, 1::3].contiguous()),
        (x[1:, :, 2].clone(), t[1:, :, 2].clone()),
        (x.permute(1, 2, 0).to(nabla.float64), t.permute(1, 2, 0).to(torch.float64)),
    ]
    for got, want in checks:
        assert got.device.type == device
        np.testing.assert_array_equal(as_np(got), want.to(torch.float64).numpy() if dtype != "bool" else want.numpy())
    # a strided destination, a broadcast source, a conversion on the way
    dst = nabla.zeros(4, 6, dtype=nabla.float64).to(device)
    tdst = torch.zeros(4, 6, dtype=torch.float64)
    dst[:, ::2].copy_(x[0, :, :3])
    tdst[:, ::2].copy_(t[0, :, :3])
    dst[1:3, 1::2].copy_(x[2, 1, :3])  # expands along the first dim
    tdst[1:3, 1::2].copy_(t[2, 1, :3])
    np.testing.assert_array_equal(as_np(dst), tdst.numpy())


def test_zero_dim_and_empty(device):
    s = nabla.tensor(3.75).to(device)
    assert s.to(nabla.int32).item() == 3 and s.to(nabla.float16).item() == 3.75
    e = nabla.zeros(0, 5).to(device)
    assert tuple(e.to(nabla.int8).shape) == (0, 5)
    assert tuple(e.transpose(0, 1).contiguous().shape) == (5, 0)
    d = nabla.zeros(2, 3).to(device)
    d.copy_(nabla.tensor(1.5))  # a CPU 0-dim source broadcast over a tensor on device
    np.testing.assert_array_equal(as_np(d), np.full((2, 3), 1.5))


@needs_cuda
def test_transfers_convert_and_keep_layout():
    arr = np.random.default_rng(0).standard_normal((6, 7))
    c = nabla.tensor(arr)
    g = nabla.empty(7, 6, dtype=nabla.float16).to("cuda").transpose(0, 1)  # a strided device target
    g.copy_(c)
    np.testing.assert_array_equal(g.cpu().numpy(), c.to(nabla.float16).numpy())
    back = nabla.empty(7, 6, dtype=nabla.float64).transpose(0, 1)  # a strided host target
    back.copy_(g)
    np.testing.assert_array_equal(back.numpy(), c.to(nabla.float16).to(nabla.float64).numpy())
    h = c.to("cuda", nabla.bfloat16)
    np.testing.assert_array_equal(h.cpu().float().numpy(), c.to(nabla.bfloat16).float().numpy())


def into(view, dtype, device):
    """A dense tensor of view's shape on device, written by copy_ (so every layout of view is copied as it is)."""
    out = nabla.empty(tuple(view.shape), dtype=dtype, device=device)
    out.copy_(view)
    return out


@pytest.mark.parametrize("dst", DTYPES)
@pytest.mark.parametrize("src", DTYPES)
def test_copy_paths_match_torch(device, src, dst):
    """Each path of the device copy for every dtype pair: a dense run (cudaMemcpyAsync for one dtype,
    16-byte rows when converting), a misaligned start, rows of odd length from wider rows, expanded
    rows and columns, transposes with sides not multiples of 32, 3-D permutations, a transposed
    destination, empty and 0-dim copies."""
    v = values(src)
    if dst == "uint8" and src not in ("uint8", "bool"):
        v = np.abs(v)
    arr = np.resize(v, (3, 45, 70))
    x, t = nabla.tensor(arr).to(DTYPES[src][0]).to(device), torch.tensor(arr).to(DTYPES[src][1])
    nd, td = DTYPES[dst]
    views = [
        lambda a: a,                                  # one dense run
        lambda a: a.reshape(-1)[3:],                  # a dense run from a misaligned start
        lambda a: a[:, :, 1:34],                      # rows of 33 inside rows of 70
        lambda a: a[:, 2:40, :64],                    # aligned rows of 64 inside rows of 70
        lambda a: a[1, 4].expand(9, 70),              # one row expanded
        lambda a: a[:, :, 5:6].expand(3, 45, 40),     # one value per row
        lambda a: a[1].t(),                           # a 70 x 45 transpose
        lambda a: a[:, 3:44, 1:68].transpose(1, 2),   # a transpose of a strided view: 3 x 67 x 41
        lambda a: a.permute(2, 0, 1),                 # 70 x 3 x 45: a batched transpose
        lambda a: a.permute(1, 2, 0),                 # 45 x 70 x 3: too thin for a tile
        lambda a: a[:, :0],                           # empty
        lambda a: a[2, 7, 9],                         # 0-dim
    ]
    for i, view in enumerate(views):
        got, want = into(view(x), nd, device), view(t).to(td)
        assert got.device.type == device and tuple(got.shape) == tuple(want.shape), i
        np.testing.assert_array_equal(as_np(got), want.to(torch.float64).numpy() if dst != "bool" else want.numpy(),
                                      err_msg=f"view {i}")
    # a transposed destination written from a dense source
    d = nabla.empty((70, 45), dtype=nd, device=device).t()
    d.copy_(x[0])
    np.testing.assert_array_equal(as_np(d), t[0].to(td).to(torch.float64).numpy() if dst != "bool" else
                                  t[0].to(td).numpy())
