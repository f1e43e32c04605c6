"""The index family on every device (the `device` fixture: CPU always, CUDA when
there is one) against PyTorch on the CPU: gather, scatter (src, value, reduce),
scatter_add, scatter_reduce, index_select, index_add, take_along_dim, advanced
indexing (index, index_put with and without accumulate, setitem), masked_fill,
masked_select and embedding; every dtype the kernels take, negative indices,
strided and transposed operands, index broadcasting, empty and 0-dim inputs,
duplicate indices, and gradients computed on the device. On CUDA also:
out-of-range indices reported at the next synchronisation as IndexError with
PyTorch's message (the device stays usable), device mismatches, and runs that
repeat bit for bit (nabla's scatters have a fixed order; PyTorch's CUDA
scatter_add / index_add with float atomics do not)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

DTYPES = {  # name: (nabla dtype, torch dtype)
    "float32": (nabla.float32, torch.float32), "float64": (nabla.float64, torch.float64),
    "float16": (nabla.float16, torch.float16), "bfloat16": (nabla.bfloat16, torch.bfloat16),
    "int8": (nabla.int8, torch.int8), "int16": (nabla.int16, torch.int16), "int32": (nabla.int32, torch.int32),
    "int64": (nabla.int64, torch.int64), "uint8": (nabla.uint8, torch.uint8), "bool": (nabla.bool, torch.bool),
}
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5}


def values(shape, dtype, seed=0):
    """Small integers (exact in every dtype), as float64 numpy."""
    rng = np.random.default_rng(seed)
    hi = 2 if dtype == "bool" else 6
    return rng.integers(0, hi, size=shape).astype(np.float64)


def pair(a, dtype, device, layout=""):
    """The same view of a as nabla on device and torch on the CPU; layout "t": stored
    transposed and viewed back, "s": every other row of a taller array."""
    nd, td = DTYPES[dtype]
    if layout == "t":
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return (nabla.tensor(base).to(nd).to(device).transpose(-1, -2), torch.tensor(base).to(td).transpose(-1, -2))
    if layout == "s":
        base = np.repeat(a, 2, axis=0)
        return nabla.tensor(base).to(nd).to(device)[::2], torch.tensor(base).to(td)[::2]
    return nabla.tensor(a).to(nd).to(device), torch.tensor(a).to(td)


def ipair(a, device, layout="", dtype=np.int64):
    a = np.asarray(a, dtype=dtype)
    if layout == "t":
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return nabla.tensor(base).to(device).transpose(-1, -2), torch.tensor(base).long().transpose(-1, -2)
    return nabla.tensor(a).to(device), torch.tensor(a).long()


def check(got, want, device, dtype=None):
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.device).startswith(device)
    g = got.detach().cpu()
    if dtype is not None:
        assert g.dtype == DTYPES[dtype][0]
    tol = TOL.get(dtype, 0)
    np.testing.assert_allclose(g.to(nabla.float64).numpy(), want.to(torch.float64).numpy(), rtol=tol, atol=tol)


# ---- gather, index_select, take_along_dim ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["", "t", "s"])
def test_gather(device, dtype, layout):
    x, tx = pair(values((6, 5), dtype), dtype, device, layout)
    idx = np.random.default_rng(1).integers(0, 5, size=(4, 5))
    i, ti = ipair(idx, device, layout)
    check(nabla.gather(x, 1, i[:, :3]), torch.gather(tx, 1, ti[:, :3]), device, dtype)
    i0 = np.random.default_rng(2).integers(0, 6, size=(3, 5))
    j, tj = ipair(i0, device)
    check(nabla.gather(x, 0, j), torch.gather(tx, 0, tj), device, dtype)


def test_gather_int32_index_empty_and_0dim(device):
    x, tx = pair(values((3, 4), "float32"), "float32", device)
    i, ti = ipair([[2, 0], [1, 1]], device, dtype=np.int32)
    check(nabla.gather(x, 0, i), torch.gather(tx, 0, ti), device, "float32")
    e, te = ipair(np.zeros((0, 4)), device)
    check(nabla.gather(x, 0, e), torch.gather(tx, 0, te), device, "float32")
    s, ts = pair(np.array(7.0), "float32", device)
    z, tz = ipair(np.array(0), device)
    check(nabla.gather(s, 0, z), torch.gather(ts, 0, tz), device, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select(device, dtype):
    x, tx = pair(values((5, 4, 3), dtype), dtype, device, "t")
    for d, idx in [(0, [4, 0, 4, 2]), (1, [3]), (2, [1, 0, 2, 2, 1]), (1, [])]:
        i, ti = ipair(idx, device)
        check(nabla.index_select(x, d, i), torch.index_select(tx, d, ti), device, dtype)
    i, ti = ipair(np.array(2), device)  # a 0-dim index
    check(nabla.index_select(x, 0, i), torch.index_select(tx, 0, ti), device, dtype)


def test_take_along_dim(device):
    a = values((4, 5), "float32")
    x, tx = pair(a, "float32", device)
    idx = np.argsort(a, axis=1, kind="stable")
    i, ti = ipair(idx, device)
    check(nabla.take_along_dim(x, i, 1), torch.take_along_dim(tx, ti, 1), device, "float32")
    i, ti = ipair([[0], [3], [1], [2]], device)  # broadcast along the other dim
    check(nabla.take_along_dim(x, i, 1), torch.take_along_dim(tx, ti, 1), device, "float32")
    i, ti = ipair([19, 0, 7], device)
    check(nabla.take_along_dim(x, i), torch.take_along_dim(tx, ti), device, "float32")


# ---- scatter family ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_src_and_value(device, dtype):
    x, tx = pair(values((4, 5), dtype), dtype, device)
    s, ts = pair(values((3, 5), dtype, 3), dtype, device, "t" if dtype != "bool" else "")
    idx = np.array([[0, 1, 2, 3, 0], [2, 0, 3, 1, 1], [3, 3, 0, 0, 2]])  # no duplicates per column
    i, ti = ipair(idx, device)
    check(x.scatter(0, i, s), tx.scatter(0, ti, ts), device, dtype)
    check(x.scatter(0, i, 1), tx.scatter(0, ti, 1), device, dtype)
    j, tj = ipair([[4, 0], [1, 3]], device)  # along dim 1, a smaller index
    check(x.scatter(1, j, s), tx.scatter(1, tj, ts), device, dtype)
    y, ty = x.clone(), tx.clone()
    y.scatter_(0, i, s)
    ty.scatter_(0, ti, ts)
    check(y, ty, device, dtype)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_scatter_add_duplicates(device, dtype):
    x, tx = pair(values((3, 4), dtype), dtype, device)
    s, ts = pair(values((6, 4), dtype, 5), dtype, device, "s")
    idx = np.array([[0, 1, 2, 0], [0, 0, 2, 2], [1, 1, 1, 1], [2, 0, 0, 1], [0, 2, 1, 0], [1, 1, 2, 2]])
    i, ti = ipair(idx, device)
    check(x.scatter_add(0, i, s), tx.scatter_add(0, ti, ts), device, dtype)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64", "uint8"])
def test_scatter_reduce(device, dtype, reduce, include_self):
    x, tx = pair(values((3, 5), dtype) + 1, dtype, device)
    s, ts = pair(values((4, 5), dtype, 7), dtype, device)
    idx = np.array([[0, 1, 2, 0, 1], [0, 0, 2, 2, 1], [1, 1, 1, 1, 1], [2, 0, 0, 1, 1]])
    i, ti = ipair(idx, device)
    got = x.scatter_reduce(0, i, s, reduce, include_self=include_self)
    check(got, tx.scatter_reduce(0, ti, ts, reduce, include_self=include_self), device, dtype)


def test_scatter_nan_reduce(device):
    x, tx = pair(np.array([1.0, 2.0, 3.0]), "float32", device)
    s, ts = pair(np.array([np.nan, 5.0, 0.5, 7.0]), "float32", device)
    i, ti = ipair([0, 0, 1, 2], device)
    for r in ["amax", "amin"]:
        check(x.scatter_reduce(0, i, s, r), tx.scatter_reduce(0, ti, ts, r), device, "float32")


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_index_add(device, dtype):
    x, tx = pair(values((5, 3), dtype), dtype, device)
    s, ts = pair(values((4, 3), dtype, 2), dtype, device, "s")
    i, ti = ipair([4, 0, 4, 2], device)
    alpha = 1 if dtype in ("uint8", "int8") else 2
    check(x.index_add(0, i, s, alpha=alpha), tx.index_add(0, ti, ts, alpha=alpha), device, dtype)
    s1, ts1 = pair(values((5, 2), dtype, 4), dtype, device, "t")
    j, tj = ipair([2, 2], device)
    check(x.index_add(1, j, s1), tx.index_add(1, tj, ts1), device, dtype)


def test_scatter_empty_and_0dim(device):
    x, tx = pair(values((3, 4), "float32"), "float32", device)
    e, te = ipair(np.zeros((0, 4)), device)
    s, ts = pair(values((0, 4), "float32"), "float32", device)
    check(x.scatter_add(0, e, s), tx.scatter_add(0, te, ts), device, "float32")
    z, tz = pair(np.array(2.0), "float32", device)
    zi, tzi = ipair(np.array(0), device)
    zs, tzs = pair(np.array(5.0), "float32", device)
    check(z.scatter_add(0, zi, zs), tz.scatter_add(0, tzi, tzs), device, "float32")
    check(z.scatter(0, zi, 3.0), tz.scatter(0, tzi, 3.0), device, "float32")


# ---- advanced indexing ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_index_getitem(device, dtype):
    x, tx = pair(values((4, 5, 6), dtype), dtype, device, "t")
    i, ti = ipair([[0, -1], [2, 3]], device)
    j, tj = ipair([-2, 4], device)  # broadcasts against i
    cases = [
        lambda a, p, q: a[p], lambda a, p, q: a[p, q], lambda a, p, q: a[:, q], lambda a, p, q: a[p, :, q],
        lambda a, p, q: a[1:, q, ::2], lambda a, p, q: a[..., q],
    ]
    for f in cases:
        check(f(x, i, j), f(tx, ti, tj), device, dtype)


def test_index_masks_empty_int32_and_0dim(device):
    a = values((4, 5), "float32")
    x, tx = pair(a, "float32", device)
    m = a > 2
    check(x[nabla.tensor(m).to(device)], tx[torch.tensor(m)], device, "float32")
    check(x[nabla.tensor(m[:, 0]).to(device), 1:], tx[torch.tensor(m[:, 0]), 1:], device, "float32")
    check(x[[1, -1]], tx[[1, -1]], device, "float32")  # a list becomes an index on x's device
    e, te = ipair(np.zeros(0), device)
    check(x[e], tx[te], device, "float32")
    i, ti = ipair([3, 0], device, dtype=np.int32)
    check(x[:, i], tx[:, ti], device, "float32")
    z, tz = ipair(np.array(-2), device)
    check(x[z, i], tx[tz, ti], device, "float32")
    check(x[nabla.tensor(True).to(device)], tx[torch.tensor(True)], device, "float32")


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_put(device, dtype):
    x, tx = pair(values((4, 5), dtype), dtype, device)
    v, tv = pair(values((3,), dtype, 9), dtype, device)
    i, ti = ipair([0, -1, 2], device)
    j, tj = ipair([1, 2, -5], device)
    check(x.index_put((i, j), v), tx.index_put((ti, tj), tv), device, dtype)
    k, tk = ipair([0, 2, 0, 0, -4], device)  # duplicates: accumulate adds every one
    w, tw = pair(values((5, 5), dtype, 8), dtype, device, "t")
    check(x.index_put((k,), w, accumulate=True), tx.index_put((tk,), tw, accumulate=True), device, dtype)


def test_index_put_broadcast_and_setitem(device):
    x, tx = pair(values((4, 5, 3), "float32"), "float32", device)
    i, ti = ipair([[0], [3]], device)
    j, tj = ipair([1, 4], device)
    v, tv = pair(values((3,), "float32", 4), "float32", device)
    y, ty = x.clone(), tx.clone()
    y[i, j] = v
    ty[ti, tj] = tv
    check(y, ty, device, "float32")
    y[:, j, 1] = 9.5
    ty[:, tj, 1] = 9.5
    check(y, ty, device, "float32")
    y[[0, 2]] = [[1.0, 2.0, 3.0]]
    ty[[0, 2]] = torch.tensor([[1.0, 2.0, 3.0]])
    check(y, ty, device, "float32")
    m = values((4, 5), "float32") > 2
    y[nabla.tensor(m).to(device)] = -1.0
    ty[torch.tensor(m)] = -1.0
    check(y, ty, device, "float32")
    e, te = ipair(np.zeros(0), device)
    y[e] = 4.0
    ty[te] = 4.0
    check(y, ty, device, "float32")


def test_index_put_last_write_wins(device):
    # PyTorch leaves the winner of duplicate plain writes unspecified; nabla writes in index order
    x = nabla.zeros(3).to(device)
    i = nabla.tensor([1, 1, 1, 2]).to(device)
    v = nabla.tensor([5.0, 6.0, 7.0, 8.0]).to(device)
    assert x.index_put((i,), v).cpu().tolist() == [0.0, 7.0, 8.0]


# ---- masks ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill_and_select(device, dtype):
    a = values((4, 5), dtype)
    x, tx = pair(a, dtype, device, "t")
    m = np.random.default_rng(3).integers(0, 2, size=(5,)).astype(bool)  # broadcasts over rows
    mk, tm = nabla.tensor(m).to(device), torch.tensor(m)
    check(x.masked_fill(mk, 1), tx.masked_fill(tm, 1), device, dtype)
    check(x.masked_select(mk), tx.masked_select(tm), device, dtype)
    y, ty = x.clone(), tx.clone()
    y.masked_fill_(mk, nabla.tensor(0).to(device))
    ty.masked_fill_(tm, torch.tensor(0))
    check(y, ty, device, dtype)


def test_masked_select_big_and_empty(device):
    a = np.random.default_rng(0).standard_normal((37, 129))
    x, tx = pair(a, "float32", device)
    m = a > 0.3
    check(x.masked_select(nabla.tensor(m).to(device)), tx.masked_select(torch.tensor(m)), device, "float32")
    none = nabla.zeros((37, 129), dtype=nabla.bool).to(device)
    assert tuple(x.masked_select(none).shape) == (0,)
    e, te = pair(np.zeros((0, 3)), "float32", device)
    em = nabla.zeros((0, 3), dtype=nabla.bool).to(device)
    check(e.masked_select(em), te.masked_select(torch.zeros((0, 3), dtype=torch.bool)), device, "float32")


def test_nonzero(device):
    a = values((3, 4), "float32")
    x, tx = pair(a, "float32", device)
    check(nabla.nonzero(x), torch.nonzero(tx), device)


# ---- embedding ----

def test_embedding_forward_backward(device):
    w0 = np.random.default_rng(0).standard_normal((7, 4))
    w = nabla.tensor(w0).float().to(device).requires_grad_()
    tw = torch.tensor(w0).float().requires_grad_()
    idx = [[0, 3, 3], [6, 0, 2]]
    i, ti = ipair(idx, device)
    y = nabla.nn.functional.embedding(i, w, padding_idx=2)
    ty = torch.nn.functional.embedding(ti, tw, padding_idx=2)
    check(y, ty.detach(), device, "float32")
    g0 = np.random.default_rng(1).standard_normal((2, 3, 4))
    y.backward(nabla.tensor(g0).float().to(device))
    ty.backward(torch.tensor(g0).float())
    check(w.grad, tw.grad, device, "float32")
    z, tz = ipair(np.array(5), device)
    check(nabla.nn.functional.embedding(z, w.detach()), torch.nn.functional.embedding(tz, tw.detach()), device,
          "float32")


# ---- gradients on the device ----

def grads(device, fn, tfn, *arrays):
    xs = [nabla.tensor(a).to(device).requires_grad_() for a in arrays]
    txs = [torch.tensor(a).requires_grad_() for a in arrays]
    y, ty = fn(*xs), tfn(*txs)
    g = np.random.default_rng(5).standard_normal(tuple(ty.shape))
    y.backward(nabla.tensor(g).to(device))
    ty.backward(torch.tensor(g))
    for x, tx in zip(xs, txs):
        assert str(x.grad.device).startswith(device)
        np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_gradients(device):
    a = np.random.default_rng(0).standard_normal((4, 5))
    s = np.random.default_rng(1).standard_normal((3, 5))
    gi = [[0, 1, 1, 3, 0], [2, 2, 0, 1, 1]]
    si = [[0, 1, 2, 3, 0], [2, 0, 3, 1, 1], [3, 3, 0, 0, 2]]
    I = lambda v: nabla.tensor(v).to(device)  # noqa: E731
    T = torch.tensor
    grads(device, lambda x: nabla.gather(x, 0, I(gi)), lambda x: torch.gather(x, 0, T(gi)), a)
    grads(device, lambda x: x.index_select(1, I([4, 0, 4])), lambda x: x.index_select(1, T([4, 0, 4])), a)
    grads(device, lambda x: x[I([1, -1, 1])][:, I([0, 2])], lambda x: x[T([1, -1, 1])][:, T([0, 2])], a)
    grads(device, lambda x, y: x.scatter_add(0, I(si), y), lambda x, y: x.scatter_add(0, T(si), y), a, s)
    grads(device, lambda x, y: x.scatter(0, I(si), y), lambda x, y: x.scatter(0, T(si), y), a, s)
    grads(device, lambda x, y: x.index_add(0, I([3, 3, 0]), y), lambda x, y: x.index_add(0, T([3, 3, 0]), y), a, s)
    grads(device, lambda x, y: x.index_put((I([0, 0, 2]),), y, accumulate=True),
          lambda x, y: x.index_put((T([0, 0, 2]),), y, accumulate=True), a, s)
    m = a > 0
    grads(device, lambda x: x.masked_fill(I(m), 0.5), lambda x: x.masked_fill(T(m), 0.5), a)
    grads(device, lambda x: x.masked_select(I(m)), lambda x: x.masked_select(T(m)), a)


# ---- CUDA only: errors at the next sync, device mismatch, determinism ----

BAD = [
    ("gather", lambda x, i: nabla.gather(x, 0, i.view(1, -1)[:, :1].expand(1, 4)),
     "gather: index {v} is out of bounds for dimension 0 with size 3"),
    ("index_select", lambda x, i: nabla.index_select(x, 0, i), "index_select: index {v} is out of bounds for "
     "dimension 0 with size 3"),
    ("scatter", lambda x, i: x.scatter(0, i.view(1, -1)[:, :1].expand(1, 4), 1.0),
     "scatter: index {v} is out of bounds for dimension 0 with size 3"),
    ("scatter_add", lambda x, i: x.scatter_add(0, i.view(1, -1)[:, :1].expand(1, 4), nabla.ones((1, 4)).to("cuda")),
     "scatter_add: index {v} is out of bounds for dimension 0 with size 3"),
    ("index_add", lambda x, i: x.index_add(0, i, nabla.ones((1, 4)).to("cuda")),
     "index_add: index {v} is out of bounds for dimension 0 with size 3"),
    ("index", lambda x, i: x[:, i], "index: index {v} is out of bounds for dimension 1 with size 4"),
    ("index_put", lambda x, i: x.index_put((i,), nabla.tensor(1.0).to("cuda"), accumulate=True),
     "index_put: index {v} is out of bounds for dimension 0 with size 3"),
    ("embedding", lambda x, i: nabla.nn.functional.embedding(i, x),
     "embedding: index {v} is out of bounds for dimension 0 with size 3"),
]


@needs_cuda
@pytest.mark.parametrize("bad", [7, -4])
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_cuda_out_of_range_is_index_error_at_sync(case, bad):
    name, fn, msg = case
    x = nabla.ones((3, 4)).to("cuda")
    if name == "index" and bad == -4:
        bad = -5  # dim 1 has size 4
    i = nabla.tensor([bad]).to("cuda")
    with pytest.raises(IndexError) as e:
        r = fn(x, i)
        r.cpu()  # the kernel's error surfaces at the copy back, the next sync
    assert msg.format(v=bad) in str(e.value)
    # the device stays usable and the error word is cleared
    assert nabla.gather(x, 0, nabla.zeros((1, 4), dtype=nabla.int64).to("cuda")).cpu().tolist() == [[1.0] * 4]
    nabla.cuda.synchronize()


@needs_cuda
def test_cuda_error_at_synchronize():
    x = nabla.ones(3).to("cuda")
    nabla.index_select(x, 0, nabla.tensor([3]).to("cuda"))
    with pytest.raises(IndexError, match="index_select: index 3 is out of bounds for dimension 0 with size 3"):
        nabla.cuda.synchronize()
    nabla.cuda.synchronize()  # reported once


@needs_cuda
def test_cuda_device_mismatch():
    x = nabla.ones((3, 4)).to("cuda")
    i = nabla.tensor([[0, 1, 2, 0]])
    cases = [
        lambda: nabla.gather(x, 0, i), lambda: nabla.index_select(x, 0, i[0]), lambda: x.scatter(0, i, 1.0),
        lambda: x.scatter_add(0, i, nabla.ones((1, 4))), lambda: x.index_add(0, i[0, :1], nabla.ones((1, 4))),
        lambda: x.masked_fill(nabla.ones(4, dtype=nabla.bool), 0.0),
        lambda: x.masked_select(nabla.ones(4, dtype=nabla.bool)),
        lambda: nabla.nn.functional.embedding(i, x),
    ]
    for k, f in enumerate(cases):
        with pytest.raises(RuntimeError, match=r"expected all tensors to be on the same device.*cuda:0 and cpu:0"):
            f()
    # advanced indexing takes host indices, as PyTorch does
    assert x[nabla.tensor([2, 0])].cpu().tolist() == [[1.0] * 4] * 2


@needs_cuda
def test_cuda_deterministic_accumulation():
    rng = np.random.default_rng(0)
    x = nabla.zeros((8, 16)).to("cuda")
    s = nabla.tensor(rng.standard_normal((2000, 16)).astype(np.float32)).to("cuda")
    i = nabla.tensor(rng.integers(0, 8, size=(2000, 16))).to("cuda")
    first = x.scatter_add(0, i, s).cpu().numpy()
    for _ in range(3):
        assert np.array_equal(x.scatter_add(0, i, s).cpu().numpy(), first)
    j = nabla.tensor(rng.integers(0, 8, size=2000)).to("cuda")
    a = x.index_put((j,), s, accumulate=True).cpu().numpy()
    assert np.array_equal(x.index_put((j,), s, accumulate=True).cpu().numpy(), a)
