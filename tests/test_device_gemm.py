"""Matrix products on every device (the `device` fixture: CPU always, CUDA when
there is one) against PyTorch on the CPU at per-dtype tolerances: mm, bmm,
matmul (every rank case, batch broadcast, vectors), mv, dot, addmm, baddbmm and
linear, with alpha/beta, transposed, sliced and broadcast operands, empty sizes
(k = 0 gives beta * input, or zeros), 0-dim errors, and backward. On CUDA each
case runs twice: through cuBLAS (the emulator's stand-in when emulated) and
through nabla's own tiled kernel (NABLA_CUBLAS=0). float16 and bfloat16 run
natively on CUDA (no float32 copy of an operand; sums in float32): checked by
the memory a product allocates and by sums that would be lost in half precision."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

FLOATS = {  # name: (nabla dtype, torch dtype, rtol, atol); f16/bf16 sum in f32, rounded once
    "float32": (nabla.float32, torch.float32, 1e-5, 1e-5),
    "float64": (nabla.float64, torch.float64, 1e-12, 1e-12),
    "float16": (nabla.float16, torch.float16, 4e-3, 4e-3),
    "bfloat16": (nabla.bfloat16, torch.bfloat16, 2e-2, 2e-2),
}


@pytest.fixture(params=["cublas", "own"])
def dev(request, device, monkeypatch):
    """The device; on CUDA, with the cuBLAS path or the own kernel (NABLA_CUBLAS=0)."""
    if device == "cpu" and request.param == "own":
        pytest.skip("the own/cuBLAS split exists on CUDA only")
    monkeypatch.setenv("NABLA_CUBLAS", "1" if request.param == "cublas" else "0")
    return device


def arr(shape, seed):
    return np.random.default_rng(seed).uniform(-1, 1, size=shape)


def pair(a, dtype, device, layout=""):
    """The same view of float64 values a as nabla on device and torch on the CPU.
    layout "t": stored transposed and viewed back; "s": every other row of a taller array."""
    nd, td = FLOATS[dtype][0], FLOATS[dtype][1]
    if layout == "t":
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return nabla.tensor(base).to(nd).to(device).transpose(-1, -2), torch.tensor(base).to(td).transpose(-1, -2)
    if layout == "s":
        base = np.repeat(a, 2, axis=-2)
        return nabla.tensor(base).to(nd).to(device)[..., ::2, :], torch.tensor(base).to(td)[..., ::2, :]
    return nabla.tensor(a).to(nd).to(device), torch.tensor(a).to(td)


def check(got, want, dtype, device):
    rtol, atol = FLOATS[dtype][2], FLOATS[dtype][3]
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype == FLOATS[dtype][0]
    assert str(got.device).startswith(device)
    np.testing.assert_allclose(got.cpu().to(nabla.float64).numpy(), want.to(torch.float64).numpy(), rtol=rtol,
                               atol=atol)


LAYOUTS = ["", "t", "s"]
MM_SHAPES = [(5, 7, 3), (1, 1, 1), (70, 33, 65), (2, 129, 17), (64, 64, 16)]


@pytest.mark.parametrize("lb", LAYOUTS)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("shape", MM_SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_mm_layouts(dev, dtype, shape, la, lb):
    m, k, n = shape
    a, ta = pair(arr((m, k), 1), dtype, dev, la)
    b, tb = pair(arr((k, n), 2), dtype, dev, lb)
    check(nabla.mm(a, b), torch.mm(ta, tb), dtype, dev)


@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_and_batch_strides(dev, dtype, la):
    a, ta = pair(arr((3, 9, 6), 3), dtype, dev, la)
    b, tb = pair(arr((3, 6, 5), 4), dtype, dev, "t")
    check(nabla.bmm(a, b), torch.bmm(ta, tb), dtype, dev)
    # a batch-sliced operand (batch stride of two matrices)
    a2, ta2 = pair(arr((6, 9, 6), 5), dtype, dev)
    check(nabla.bmm(a2[::2], b), torch.bmm(ta2[::2], tb), dtype, dev)


MATMUL_SHAPES = [
    ((2, 1, 3, 4), (5, 4, 6)),  # batch broadcast both ways
    ((4, 3, 5), (5, 2)),        # batch @ matrix (B shared)
    ((5, 2), (4, 2, 3)),        # matrix @ batch (A shared)
    ((4,), (4, 3)), ((3, 4), (4,)), ((4,), (4,)),  # vectors
    ((2, 3, 4), (4,)), ((4,), (2, 4, 3)),
    ((1, 3, 4), (7, 4, 2)), ((2, 2, 3, 4), (2, 2, 4, 3)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_matmul_ranks_and_broadcast(dev, dtype, shapes):
    a, ta = pair(arr(shapes[0], 6), dtype, dev)
    b, tb = pair(arr(shapes[1], 7), dtype, dev)
    check(nabla.matmul(a, b), torch.matmul(ta, tb), dtype, dev)
    check(a @ b, ta @ tb, dtype, dev)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mv_and_dot(dev, dtype):
    a, ta = pair(arr((6, 5), 8), dtype, dev, "t")
    v, tv = pair(arr((5,), 9), dtype, dev)
    check(nabla.mv(a, v), torch.mv(ta, tv), dtype, dev)
    w, tw = pair(arr((10,), 10), dtype, dev)
    check(nabla.dot(w[::2], v), torch.dot(tw[::2], tv), dtype, dev)


@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, -2.0), (0.0, 1.5), (2.0, 0.0)])
@pytest.mark.parametrize("bias_shape", [(7,), (4, 7), (4, 1), ()])
@pytest.mark.parametrize("dtype", FLOATS)
def test_addmm_alpha_beta(dev, dtype, bias_shape, beta, alpha):
    c, tc = pair(arr(bias_shape, 11), dtype, dev)
    a, ta = pair(arr((4, 6), 12), dtype, dev, "t")
    b, tb = pair(arr((6, 7), 13), dtype, dev)
    check(nabla.addmm(c, a, b, beta=beta, alpha=alpha), torch.addmm(tc, ta, tb, beta=beta, alpha=alpha), dtype, dev)


@pytest.mark.parametrize("dtype", FLOATS)
def test_baddbmm_and_inplace(dev, dtype):
    c, tc = pair(arr((3, 4, 5), 14), dtype, dev)
    a, ta = pair(arr((3, 4, 6), 15), dtype, dev)
    b, tb = pair(arr((3, 6, 5), 16), dtype, dev, "t")
    check(nabla.baddbmm(c, a, b, beta=0.5, alpha=2.0), torch.baddbmm(tc, ta, tb, beta=0.5, alpha=2.0), dtype, dev)
    c.baddbmm_(a, b, beta=-1.0, alpha=0.25)  # C holds the addend: cuBLAS reads it through beta
    check(c, tc.baddbmm(ta, tb, beta=-1.0, alpha=0.25), dtype, dev)


def test_beta_zero_ignores_nan_input(dev):
    c = nabla.full((3, 4), float("nan")).to(dev)
    a, b = nabla.ones(3, 2).to(dev), nabla.ones(2, 4).to(dev)
    np.testing.assert_array_equal(nabla.addmm(c, a, b, beta=0.0).cpu().numpy(), np.full((3, 4), 2.0))


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_with_and_without_bias(dev, dtype):
    x, tx = pair(arr((2, 3, 8), 17), dtype, dev)
    w, tw = pair(arr((5, 8), 18), dtype, dev)
    bias, tbias = pair(arr((5,), 19), dtype, dev)
    F = torch.nn.functional
    check(nabla.nn.functional.linear(x, w, bias), F.linear(tx, tw, tbias), dtype, dev)
    check(nabla.nn.functional.linear(x, w), F.linear(tx, tw), dtype, dev)


def test_empty_sizes(dev):
    # k = 0: the product is zeros, so addmm gives beta * input
    a, b = nabla.ones(3, 0).to(dev), nabla.ones(0, 4).to(dev)
    np.testing.assert_array_equal(nabla.mm(a, b).cpu().numpy(), np.zeros((3, 4)))
    c = nabla.tensor(arr((3, 4), 20)).float().to(dev)
    np.testing.assert_allclose(nabla.addmm(c, a, b, beta=0.5).cpu().numpy(), 0.5 * c.cpu().numpy(), rtol=1e-6)
    assert tuple(nabla.mm(nabla.ones(0, 3).to(dev), nabla.ones(3, 4).to(dev)).shape) == (0, 4)
    assert tuple(nabla.bmm(nabla.ones(0, 2, 3).to(dev), nabla.ones(0, 3, 4).to(dev)).shape) == (0, 2, 4)
    assert tuple(nabla.matmul(nabla.ones(2, 0, 3).to(dev), nabla.ones(3, 5).to(dev)).shape) == (2, 0, 5)


def test_zero_dim_and_shape_errors(dev):
    s, m = nabla.tensor(2.0).to(dev), nabla.ones(2, 2).to(dev)
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D, but they are 0D and 2D"):
        nabla.matmul(s, m)
    with pytest.raises(RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied \(2x2 and 3x2\)"):
        nabla.mm(m, nabla.ones(3, 2).to(dev))
    with pytest.raises(RuntimeError, match="mm: self must be a matrix"):
        nabla.mm(s, m)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward(dev, dtype):
    nd = FLOATS[dtype][0]
    a = nabla.tensor(arr((2, 4, 3), 21)).to(nd).to(dev).requires_grad_(True)
    b = nabla.tensor(arr((3, 5), 22)).to(nd).to(dev).requires_grad_(True)
    w = nabla.tensor(arr((6, 5), 23)).to(nd).to(dev).requires_grad_(True)
    bias = nabla.tensor(arr((6,), 24)).to(nd).to(dev).requires_grad_(True)
    g = nabla.tensor(arr((2, 4, 6), 25)).to(nd).to(dev)
    nabla.nn.functional.linear(nabla.matmul(a, b), w, bias).backward(g)
    ts = [torch.tensor(x.detach().cpu().numpy(), requires_grad=True) for x in (a, b, w, bias)]
    torch.nn.functional.linear(torch.matmul(ts[0], ts[1]), ts[2], ts[3]).backward(torch.tensor(g.cpu().numpy()))
    for x, t in zip((a, b, w, bias), ts):
        assert str(x.grad.device).startswith(dev)
        np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=FLOATS[dtype][2], atol=FLOATS[dtype][3])


@needs_cuda
def test_cuda_device_mismatch_and_integers():
    x = nabla.ones(3, 4).to("cuda")
    with pytest.raises(RuntimeError, match=r"mm: expected all tensors to be on the same device, but found at least "
                                           r"two devices, cuda:0 and cpu:0"):
        nabla.mm(x, nabla.ones(4, 2))
    with pytest.raises(RuntimeError, match="mm: expected all tensors to be on the same device"):
        nabla.mm(x.to(nabla.int32), nabla.ones(4, 2, dtype=nabla.int32))


INTS = ["int8", "int16", "int32", "int64", "uint8"]


def int_pair(shape, dtype, device, seed, layout="", big=False):
    """Integer operands as nabla on device and torch on the CPU; big: values that overflow the sums."""
    rng = np.random.default_rng(seed)
    lo, hi = {"int8": (-128, 128), "int16": (-2**15, 2**15), "int32": (-2**31, 2**31), "int64": (-2**62, 2**62),
              "uint8": (0, 256)}[dtype] if big else ((0, 7) if dtype == "uint8" else (-6, 7))
    a = rng.integers(lo, hi, size=shape, dtype=np.int64).astype(dtype)
    if layout == "t":
        base = np.ascontiguousarray(np.swapaxes(a, -1, -2))
        return nabla.tensor(base).to(device).transpose(-1, -2), torch.tensor(base).transpose(-1, -2)
    if layout == "s":
        base = np.repeat(a, 2, axis=-2)
        return nabla.tensor(base).to(device)[..., ::2, :], torch.tensor(base)[..., ::2, :]
    return nabla.tensor(a).to(device), torch.tensor(a)


def int_check(got, want, device):
    assert str(got.device).startswith(device)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", INTS)
def test_integer_mm_bmm_matmul(device, dtype, layout):
    """Exact against PyTorch's CPU kernels: int64 sums that wrap, narrowed once."""
    for (m, k, n), big in (((5, 7, 3), False), ((70, 33, 65), False), ((9, 40, 6), True)):
        a, ta = int_pair((m, k), dtype, device, 1, layout, big)
        b, tb = int_pair((k, n), dtype, device, 2, "t" if layout == "s" else layout, big)
        int_check(nabla.mm(a, b), torch.mm(ta, tb), device)
        int_check(nabla.matmul(a, b), torch.matmul(ta, tb), device)
    a, ta = int_pair((3, 4, 5), dtype, device, 3, layout)
    b, tb = int_pair((3, 5, 2), dtype, device, 4)
    int_check(nabla.bmm(a, b), torch.bmm(ta, tb), device)
    b2, tb2 = int_pair((5, 2), dtype, device, 5)
    int_check(nabla.matmul(a, b2), torch.matmul(ta, tb2), device)  # broadcast batch


@pytest.mark.parametrize("dtype", INTS)
def test_integer_mv_dot_addmm(device, dtype):
    a, ta = int_pair((6, 9), dtype, device, 6)
    v, tv = int_pair((9,), dtype, device, 7)
    int_check(nabla.mv(a, v), torch.mv(ta, tv), device)
    int_check(nabla.dot(v, v), torch.dot(tv, tv), device)
    int_check(nabla.matmul(v, a.t()), torch.matmul(tv, ta.t()), device)
    b, tb = int_pair((9, 4), dtype, device, 8)
    c, tc = int_pair((6, 4), dtype, device, 9)
    bias, tbias = int_pair((4,), dtype, device, 10)
    for beta, alpha in ((1, 1), (2, 3), (0, 2), (-1, 1)):
        if dtype == "uint8" and beta < 0:
            continue
        int_check(nabla.addmm(c, a, b, beta=beta, alpha=alpha), torch.addmm(tc, ta, tb, beta=beta, alpha=alpha),
                  device)
        int_check(nabla.addmm(bias, a, b, beta=beta, alpha=alpha), torch.addmm(tbias, ta, tb, beta=beta, alpha=alpha),
                  device)
    c.addmm_(a, b, alpha=2)
    tc.addmm_(ta, tb, alpha=2)
    int_check(c, tc, device)
    e, te = int_pair((0, 9), dtype, device, 11)
    int_check(nabla.mm(e, b), torch.mm(te, tb), device)
    z, tz = int_pair((6, 0), dtype, device, 12)
    z2, tz2 = int_pair((0, 4), dtype, device, 13)
    int_check(nabla.mm(z, z2), torch.mm(tz, tz2), device)  # K = 0: zeros


@needs_cuda
@pytest.mark.parametrize("dtype", FLOATS)
def test_cuda_paths_agree_and_repeat(dtype, monkeypatch):
    a = nabla.tensor(arr((3, 37, 45), 26)).to(FLOATS[dtype][0]).to("cuda")
    b = nabla.tensor(arr((45, 29), 27)).to(FLOATS[dtype][0]).to("cuda")
    monkeypatch.setenv("NABLA_CUBLAS", "0")
    own1, own2 = nabla.matmul(a, b).cpu(), nabla.matmul(a, b).cpu()
    np.testing.assert_array_equal(own1.to(nabla.float64).numpy(), own2.to(nabla.float64).numpy())
    monkeypatch.setenv("NABLA_CUBLAS", "1")
    lib = nabla.matmul(a, b).cpu()
    cpu = nabla.matmul(a.cpu(), b.cpu())
    for got in (own1, lib):
        np.testing.assert_allclose(got.to(nabla.float64).numpy(), cpu.to(nabla.float64).numpy(),
                                   rtol=FLOATS[dtype][2], atol=FLOATS[dtype][3])


HALVES = ["float16", "bfloat16"]


@pytest.mark.parametrize("la,lb", [("", ""), ("t", ""), ("", "t"), ("s", "t"), ("t", "s")])
@pytest.mark.parametrize("shape", [(133, 257, 71), (1, 300, 1), (65, 17, 1), (3, 1, 129)])
@pytest.mark.parametrize("dtype", HALVES)
def test_half_mm_odd_sizes(dev, dtype, shape, la, lb):
    m, k, n = shape  # sizes that cross the own kernel's 64 x 64 x 16 tiles unevenly
    a, ta = pair(arr((m, k), 30), dtype, dev, la)
    b, tb = pair(arr((k, n), 31), dtype, dev, lb)
    got = nabla.mm(a, b)
    # the reference sums float32 products of the same rounded values, rounded once (as cuBLAS and PyTorch on GPU)
    want = torch.mm(ta.float(), tb.float()).to(FLOATS[dtype][1])
    check(got, want, dtype, dev)
    np.testing.assert_allclose(got.cpu().to(nabla.float64).numpy(), nabla.mm(a.cpu(), b.cpu()).to(nabla.float64).numpy(),
                               rtol=FLOATS[dtype][2], atol=FLOATS[dtype][3])


@pytest.mark.parametrize("dtype", HALVES)
def test_half_bmm_matmul_batches(dev, dtype):
    a, ta = pair(arr((4, 33, 20), 32), dtype, dev, "t")
    b, tb = pair(arr((4, 20, 18), 33), dtype, dev, "s")
    check(nabla.bmm(a, b), torch.bmm(ta.float(), tb.float()).to(FLOATS[dtype][1]), dtype, dev)
    # batch dims that do not merge into one stride: [3, 4, 2] with a broadcast over 4 and b over 3 and 2
    a, ta = pair(arr((3, 1, 2, 5, 7), 34), dtype, dev)
    b, tb = pair(arr((4, 1, 7, 6), 35), dtype, dev, "t")
    check(nabla.matmul(a, b), torch.matmul(ta.float(), tb.float()).to(FLOATS[dtype][1]), dtype, dev)
    # a batch of matrices times one matrix, and one matrix times a batch
    a, ta = pair(arr((2, 3, 9, 8), 36), dtype, dev, "t")
    w, tw = pair(arr((8, 5), 37), dtype, dev)
    check(a @ w, (ta.float() @ tw.float()).to(FLOATS[dtype][1]), dtype, dev)
    check(w.t() @ a.transpose(-1, -2), (tw.float().t() @ ta.float().transpose(-1, -2)).to(FLOATS[dtype][1]), dtype, dev)


@pytest.mark.parametrize("dtype", HALVES)
def test_half_linear_addmm_baddbmm(dev, dtype):
    x, tx = pair(arr((2, 5, 24), 38), dtype, dev)
    w, tw = pair(arr((13, 24), 39), dtype, dev)
    bias, tbias = pair(arr((13,), 40), dtype, dev)
    F = torch.nn.functional
    check(nabla.nn.functional.linear(x, w, bias), F.linear(tx.float(), tw.float(), tbias.float()).to(FLOATS[dtype][1]),
          dtype, dev)
    check(nabla.nn.functional.linear(x[:, 1], w), F.linear(tx[:, 1].float(), tw.float()).to(FLOATS[dtype][1]), dtype, dev)
    c, tc = pair(arr((5, 13), 41), dtype, dev)
    check(nabla.addmm(c, x[0], w.t(), beta=0.5, alpha=-2.0),
          torch.addmm(tc.float(), tx[0].float(), tw.float().t(), beta=0.5, alpha=-2.0).to(FLOATS[dtype][1]), dtype, dev)
    c3, tc3 = pair(arr((2, 5, 13), 42), dtype, dev)
    wt = w.t().unsqueeze(0).expand(2, 24, 13)  # a batch-broadcast operand (stride 0)
    check(nabla.baddbmm(c3, x, wt, beta=1.0, alpha=1.0),
          torch.baddbmm(tc3.float(), tx.float(), tw.float().t().expand(2, 24, 13)).to(FLOATS[dtype][1]), dtype, dev)
    c3.baddbmm_(x, wt, beta=-1.0, alpha=0.5)  # C holds the addend
    check(c3, tc3.float().baddbmm(tx.float(), tw.float().t().expand(2, 24, 13), beta=-1.0, alpha=0.5)
          .to(FLOATS[dtype][1]), dtype, dev)


@pytest.mark.parametrize("dtype", HALVES)
def test_half_empty_and_k_zero(dev, dtype):
    nd = FLOATS[dtype][0]
    a, b = nabla.ones(3, 0, dtype=nd).to(dev), nabla.ones(0, 4, dtype=nd).to(dev)
    z = nabla.mm(a, b)
    assert z.dtype == nd and tuple(z.shape) == (3, 4)
    np.testing.assert_array_equal(z.cpu().to(nabla.float64).numpy(), np.zeros((3, 4)))
    c, tc = pair(arr((3, 4), 43), dtype, dev)
    check(nabla.addmm(c, a, b, beta=0.5), (0.5 * tc.float()).to(FLOATS[dtype][1]), dtype, dev)
    check(nabla.bmm(nabla.ones(2, 3, 0, dtype=nd).to(dev), nabla.ones(2, 0, 5, dtype=nd).to(dev)),
          torch.zeros(2, 3, 5, dtype=FLOATS[dtype][1]), dtype, dev)
    for x, y, shape in [((0, 3), (3, 4), (0, 4)), ((2, 0, 3), (3, 5), (2, 0, 5)), ((4, 3), (3, 0), (4, 0))]:
        r = nabla.matmul(nabla.ones(*x, dtype=nd).to(dev), nabla.ones(*y, dtype=nd).to(dev))
        assert r.dtype == nd and tuple(r.shape) == shape and str(r.device).startswith(dev)


@pytest.mark.parametrize("dtype", HALVES)
def test_half_sums_in_float32(dev, dtype):
    # Partial sums that half precision would lose: float16 overflows past 65504, and
    # bfloat16 has 8 significant bits (256 + 1 rounds back to 256).
    big = 60000.0 if dtype == "float16" else 256.0
    row = [big, 1.0, 1.0, 1.0, 1.0, -big] if dtype == "bfloat16" else [big, big, -big, -big, 1.0, 1.0]
    want = 4.0 if dtype == "bfloat16" else 2.0
    nd = FLOATS[dtype][0]
    a = nabla.tensor([row, row[::-1]]).to(nd).to(dev)
    b = nabla.ones(len(row), 3, dtype=nd).to(dev)
    np.testing.assert_array_equal(nabla.mm(a, b).cpu().to(nabla.float64).numpy(), np.full((2, 3), want))
    np.testing.assert_array_equal(nabla.matmul(a.unsqueeze(0).expand(2, 2, 6), b).cpu().to(nabla.float64).numpy(),
                                  np.full((2, 2, 3), want))


@pytest.mark.parametrize("dtype", HALVES)
def test_half_backward(dev, dtype):
    nd, td = FLOATS[dtype][0], FLOATS[dtype][1]
    a = nabla.tensor(arr((2, 4, 3), 44)).to(nd).to(dev).requires_grad_(True)
    b = nabla.tensor(arr((3, 5), 45)).to(nd).to(dev).requires_grad_(True)
    w = nabla.tensor(arr((6, 5), 46)).to(nd).to(dev).requires_grad_(True)
    bias = nabla.tensor(arr((6,), 47)).to(nd).to(dev).requires_grad_(True)
    g = nabla.tensor(arr((2, 4, 6), 48)).to(nd).to(dev)
    y = nabla.nn.functional.linear(nabla.bmm(a, b.unsqueeze(0).expand(2, 3, 5)), w, bias)
    assert y.dtype == nd
    y.backward(g)
    ts = [torch.tensor(x.detach().cpu().to(nabla.float32).numpy()).to(td).requires_grad_(True) for x in (a, b, w, bias)]
    torch.nn.functional.linear(torch.bmm(ts[0], ts[1].unsqueeze(0).expand(2, 3, 5)), ts[2], ts[3]).backward(
        torch.tensor(g.cpu().to(nabla.float32).numpy()).to(td))
    tol = 1e-2 if dtype == "float16" else 6e-2  # two rounded products in a row
    for x, t in zip((a, b, w, bias), ts):
        assert x.grad.dtype == nd and str(x.grad.device).startswith(dev)
        np.testing.assert_allclose(x.grad.cpu().to(nabla.float64).numpy(), t.grad.to(torch.float64).numpy(),
                                   rtol=tol, atol=tol)


@needs_cuda
@pytest.mark.parametrize("path", ["1", "0"])
@pytest.mark.parametrize("dtype", HALVES)
def test_cuda_half_products_make_no_float32_copies(dtype, path, monkeypatch):
    # The result is the only memory a product allocates: no float32 copies of the
    # operands and no float32 result to round afterwards.
    monkeypatch.setenv("NABLA_CUBLAS", path)
    nd = FLOATS[dtype][0]
    a = nabla.tensor(arr((128, 192), 49)).to(nd).to("cuda").t()  # transposed: read as it is
    b = nabla.tensor(arr((256, 160), 50)).to(nd).to("cuda")[::2]  # every other row: read as it is
    bias = nabla.tensor(arr((160,), 51)).to(nd).to("cuda")
    nabla.cuda.synchronize()
    products = [lambda x, y, c: nabla.mm(x, y), lambda x, y, c: nabla.addmm(c, x, y),
                lambda x, y, c: x.unsqueeze(0).expand(3, 192, 128) @ y]
    for f in products:
        before = nabla.cuda.memory_allocated()
        nabla.cuda.reset_peak_memory_stats()
        out = f(a, b, bias)
        nabla.cuda.synchronize()
        grew = nabla.cuda.max_memory_allocated() - before
        assert grew <= out.numel() * 2 + 512, (grew, out.numel() * 2)
        np.testing.assert_allclose(out.cpu().to(nabla.float64).numpy(),
                                   f(a.cpu(), b.cpu(), bias.cpu()).to(nabla.float64).numpy(),
                                   rtol=FLOATS[dtype][2], atol=FLOATS[dtype][3])
