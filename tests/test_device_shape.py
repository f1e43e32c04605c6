"""flip, roll, repeat, tril/triu and one_hot on every device (the `device` fixture: CPU
always, CUDA when the plugin loads), against PyTorch on the CPU: every dtype, strided
(transposed, sliced, expanded) inputs, empty and 0-dim tensors, negative dims and shifts,
and gradients computed on the device. These move data only, so results are exact."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def make(shape, dtype, device, layout="", seed=0):
    """The same view as a nabla tensor on device and a torch CPU tensor; layout "t": the last two
    dims transposed, "s": every other element of the first dim, "e": a size-1 first dim expanded."""
    rng = np.random.default_rng(seed)
    base = list(shape)
    if layout == "s":
        base[0] *= 2
    if layout == "e":
        base[0] = 1
    if layout == "t":
        base[-1], base[-2] = base[-2], base[-1]
    a = rng.integers(0, 2, size=base).astype(bool) if dtype == "bool" else rng.integers(-50, 50, size=base)
    if dtype == "uint8":
        a = a % 256
    x = nabla.tensor(a).to(getattr(nabla, dtype)).to(device)
    t = torch.tensor(a).to(getattr(torch, dtype))
    if layout == "t":
        x, t = x.transpose(-1, -2), t.transpose(-1, -2)
    elif layout == "s":
        x, t = x[::2], t[::2]
    elif layout == "e":
        x, t = x.expand(*shape), t.expand(*shape)
    return x, t


def same(got, want, device):
    assert str(got.device).startswith(device)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g = got.cpu()
    if want.dtype in (torch.float16, torch.bfloat16):
        g, want = g.to(nabla.float64), want.to(torch.float64)
    np.testing.assert_array_equal(g.numpy(), want.numpy())


def grad_check(device, fn_nb, fn_t, shape=(3, 4, 5)):
    """fn's gradient, computed on device, against torch's (a weighted sum makes every slot count)."""
    a = np.random.default_rng(7).standard_normal(shape)
    x = nabla.tensor(a, device=device, requires_grad=True)
    t = torch.tensor(a, requires_grad=True)
    y, yt = fn_nb(x), fn_t(t)
    w = np.random.default_rng(8).standard_normal(tuple(yt.shape))
    (y * nabla.tensor(w, device=device)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    assert str(x.grad.device).startswith(device)
    np.testing.assert_allclose(x.grad.cpu().numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


LAYOUTS = ["", "t", "s", "e"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flip(device, dtype, layout):
    x, t = make((3, 4, 5), dtype, device, layout)
    for dims in ([0], [-1], [0, 2], [2, -2, 0], []):
        same(nabla.flip(x, dims), torch.flip(t, dims), device)
    same(x.fliplr(), t.fliplr(), device)
    same(x.flipud(), t.flipud(), device)
    same(nabla.rot90(x, 1, [1, 2]), torch.rot90(t, 1, [1, 2]), device)
    same(nabla.rot90(x, -1, [0, 2]), torch.rot90(t, -1, [0, 2]), device)
    e, te = make((0, 4), dtype, device)
    same(nabla.flip(e, [0, 1]), torch.flip(te, [0, 1]), device)
    z, tz = make((), dtype, device)
    same(nabla.flip(z, []), torch.flip(tz, []), device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_roll(device, dtype, layout):
    x, t = make((3, 4, 5), dtype, device, layout)
    for shifts, dims in ((1, 0), (-2, -1), (7, 2), ((1, -3), (0, 2)), ((2, 2, -9), (2, 1, 0)), (0, 1)):
        same(nabla.roll(x, shifts, dims), torch.roll(t, shifts, dims), device)
    for shifts in (5, -13, 60, 0):  # flattened
        same(nabla.roll(x, shifts), torch.roll(t, shifts), device)
    e, te = make((0, 4), dtype, device)
    same(nabla.roll(e, 2, 1), torch.roll(te, 2, 1), device)
    same(nabla.roll(e, 3), torch.roll(te, 3), device)
    z, tz = make((), dtype, device)
    same(nabla.roll(z, 3), torch.roll(tz, 3), device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_repeat_and_tile(device, dtype, layout):
    x, t = make((3, 1, 4), dtype, device, layout)
    for reps in ((1, 1, 1), (2, 3, 1), (2, 1, 2, 3), (1, 0, 2), (3, 2, 1, 1, 2)):
        same(x.repeat(*reps), t.repeat(*reps), device)
    same(nabla.tile(x, (2, 2)), torch.tile(t, (2, 2)), device)
    same(x.repeat_interleave(2, dim=-1), t.repeat_interleave(2, dim=-1), device)
    z, tz = make((), dtype, device)
    same(z.repeat(2, 3), tz.repeat(2, 3), device)
    e, te = make((0, 2), dtype, device)
    same(e.repeat(3, 2), te.repeat(3, 2), device)


def test_repeat_of_many_dims_doubles_blocks(device):
    """16 dims each repeated: the (repeat, size) view would need 32 dims, so the copies double blocks."""
    shape = (2,) * 8 + (1,) * 8
    x, t = make(shape, "int32", device)
    reps = (2, 1) * 4 + (3,) * 8
    same(x.repeat(*reps), t.repeat(*reps), device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_tril_triu(device, dtype, layout):
    x, t = make((2, 4, 6), dtype, device, layout)
    for k in (0, 1, -1, 3, -3, 7, -7, 2**62, -2**62):
        same(nabla.tril(x, k), torch.tril(t, k), device)
        same(nabla.triu(x, k), torch.triu(t, k), device)
    w, tw = make((6, 3), dtype, device, layout)
    same(w.tril(-1), tw.tril(-1), device)
    same(w.triu(1), tw.triu(1), device)
    e, te = make((0, 3, 3), dtype, device)
    same(nabla.tril(e), torch.tril(te), device)
    same(nabla.triu(make((3, 0), dtype, device)[0]), torch.triu(make((3, 0), dtype, device)[1]), device)


def test_tril_triu_in_place_and_out(device):
    x, t = make((4, 5), "float32", device)
    y, ty = x.clone(), t.clone()
    y.tril_(1)
    ty.tril_(1)
    same(y, ty, device)
    y.triu_(-1)
    ty.triu_(-1)
    same(y, ty, device)
    out = nabla.empty(5, 4, device=device).t()  # a strided out
    nabla.triu(x, 2, out=out)
    same(out, torch.triu(t, 2), device)
    v = x.clone()
    v[1:].t().tril_()  # through a transposed view into its base
    tv = t.clone()
    tv[1:].t().tril_()
    same(v, tv, device)
    with pytest.raises(RuntimeError, match="tril: input tensor must have at least 2 dimensions"):
        nabla.tril(nabla.ones(3, device=device))


@pytest.mark.parametrize("num_classes", [-1, 6])
def test_one_hot(device, num_classes):
    a = np.array([[0, 3, 1], [4, 4, 2]])
    x, t = nabla.tensor(a, device=device), torch.tensor(a)
    F, TF = nabla.nn.functional, torch.nn.functional
    same(F.one_hot(x, num_classes), TF.one_hot(t, num_classes), device)
    same(F.one_hot(x.t(), num_classes), TF.one_hot(t.t(), num_classes), device)  # strided
    same(F.one_hot(x[0, 1], num_classes), TF.one_hot(t[0, 1], num_classes), device)  # 0-dim
    if num_classes > 0:
        e = nabla.zeros(0, 2, dtype=nabla.int64, device=device)
        same(F.one_hot(e, num_classes), TF.one_hot(torch.zeros(0, 2, dtype=torch.int64), num_classes), device)


def test_one_hot_errors(device):
    F = nabla.nn.functional
    x = nabla.tensor([1, 5, 2], device=device)
    with pytest.raises(RuntimeError, match="one_hot: Class values must be smaller than num_classes."):
        F.one_hot(x, 5)
    with pytest.raises(RuntimeError, match="one_hot: Class values must be non-negative."):
        F.one_hot(nabla.tensor([1, -1], device=device), 3)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor"):
        F.one_hot(nabla.zeros(0, dtype=nabla.int64, device=device))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(nabla.tensor([1.0], device=device), 3)


def test_errors_name_the_op(device):
    x = nabla.ones(2, 3, device=device)
    with pytest.raises(IndexError, match="flip"):
        nabla.flip(x, [2])
    with pytest.raises(RuntimeError, match="flip: dim 0 appears multiple times"):
        nabla.flip(x, [0, -2])
    with pytest.raises(IndexError, match="roll"):
        nabla.roll(x, 1, 3)
    with pytest.raises(RuntimeError, match="roll: shifts and dimensions must align"):
        nabla.roll(x, (1, 2), 0)
    with pytest.raises(RuntimeError, match="repeat: Number of dimensions of repeat dims can not be smaller"):
        x.repeat(2)


def test_gradients(device):
    grad_check(device, lambda x: x.flip([0, -1]), lambda t: t.flip([0, -1]))
    grad_check(device, lambda x: x.roll((1, -2), (0, 2)), lambda t: t.roll((1, -2), (0, 2)))
    grad_check(device, lambda x: x.roll(7), lambda t: t.roll(7))
    grad_check(device, lambda x: x.repeat(2, 1, 3, 1), lambda t: t.repeat(2, 1, 3, 1))
    grad_check(device, lambda x: x.tril(1), lambda t: t.tril(1))
    grad_check(device, lambda x: x.triu(-1), lambda t: t.triu(-1))
    grad_check(device, lambda x: x.transpose(0, 2).triu(), lambda t: t.transpose(0, 2).triu())
    grad_check(device, lambda x: nabla.rot90(x, 1, [1, 2]), lambda t: torch.rot90(t, 1, [1, 2]))
