"""Pooling on every device (the `device` fixture: CPU always, CUDA when there is
one) against PyTorch on the CPU: max_pool1d/2d (indices, dilation, ceil_mode,
padding), avg_pool1d/2d (count_include_pad, divisor_override, ceil_mode),
adaptive_avg_pool1d/2d and adaptive_max_pool1d/2d, their gradients computed on
the device; batched and unbatched, channels-last and strided inputs, the float
dtypes (float16/bfloat16 against float32 references of the same values), the
integer dtypes max (and avg, int64) take, NaN inputs, empty batches, the
gradients' public entry points (max without the forward's window) and the
bad-input messages, which do not depend on the device."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla._lib import ffi, lib
from nabla._tensor import _call

torch = pytest.importorskip("torch")
TF = torch.nn.functional

# dtype: (nabla dtype, torch dtype the reference computes in, tolerance)
FLOATS = {
    "float32": (nabla.float32, torch.float32, 1e-5),
    "float64": (nabla.float64, torch.float64, 1e-12),
    "float16": (nabla.float16, torch.float32, 2e-3),
    "bfloat16": (nabla.bfloat16, torch.float32, 1.6e-2),
}
TORCH_OF = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
            "bfloat16": torch.bfloat16}


def _values(shape, dtype, seed=3):
    """Values exact in dtype, distinct in float32 and float64 (no ties, so argmaxes agree)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    steps = {"float16": 512, "bfloat16": 256}.get(dtype, n)
    v = (rng.permutation(max(n, steps))[:n] % steps - steps // 2) / 8.0
    return v.reshape(shape)


def _pair(values, dtype, device, layout):
    """The same values as a nabla leaf on device and a torch CPU leaf; layout: contiguous, channels_last
    (the batched 4-D case) or strided (every other column of a wider tensor)."""
    nd, td, _ = FLOATS[dtype] if dtype in FLOATS else (getattr(nabla, dtype), getattr(torch, dtype), 0)
    t = torch.tensor(values).to(TORCH_OF.get(dtype, td)).to(td)
    if layout == "channels_last" and values.ndim == 4:
        x = nabla.tensor(np.ascontiguousarray(values.transpose(0, 2, 3, 1)), dtype=nd, device=device)
        x = x.permute(0, 3, 1, 2)
    elif layout == "strided":
        wide = np.repeat(values, 2, axis=-1)
        x = nabla.tensor(wide, dtype=nd, device=device)[..., ::2]
    else:
        x = nabla.tensor(values, dtype=nd, device=device)
    assert x.device.type == device
    if dtype in FLOATS:
        x = x.detach().requires_grad_(True)
        t = t.detach().requires_grad_(True)
    return x, t


def _close(ours, theirs, tol):
    a = ours.detach().cpu().float().numpy() if ours.dtype in (nabla.float16, nabla.bfloat16) \
        else ours.detach().cpu().numpy()
    b = theirs.detach().float().numpy() if theirs.dtype in (torch.float16, torch.bfloat16) \
        else theirs.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _check(f_ours, f_torch, shape, dtype, device, layout, indices=None):
    """indices: None (the ops return none), False (returned, not compared: ties), True (compared)."""
    x, t = _pair(_values(shape, dtype), dtype, device, layout)
    y, ty = f_ours(x), f_torch(t)
    if indices is not None:
        (y, i), (ty, ti) = y, ty
        assert i.device.type == device and i.dtype == nabla.int64
        if indices:
            np.testing.assert_array_equal(i.cpu().numpy(), ti.numpy())
    assert y.device.type == device and y.dtype == x.dtype
    tol = FLOATS[dtype][2]
    _close(y, ty, tol)
    up_np = np.linspace(-1, 1, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape))
    up = nabla.tensor(up_np, dtype=x.dtype, device=device)
    (y * up).sum().backward()
    (ty * torch.tensor(up_np, dtype=ty.dtype)).sum().backward()
    assert x.grad.device.type == device
    _close(x.grad, t.grad, tol * 4)


LAYOUTS = ["contiguous", "channels_last", "strided"]

MAX_CASES = [  # (shape, kernel, stride, padding, dilation, ceil_mode)
    ((2, 3, 9, 8), 3, 2, 1, 1, False),
    ((2, 3, 9, 8), (3, 2), (2, 1), (1, 0), (1, 2), True),
    ((1, 2, 10, 11), 2, None, 0, 1, True),
    ((2, 2, 7, 7), 3, 1, 1, 2, False),
    ((3, 8, 6), 2, 2, 1, 1, True),  # unbatched
    ((1, 1, 5, 5), 5, 1, 2, 1, False),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", range(len(MAX_CASES)))
def test_max_pool2d(device, case, dtype, layout):
    shape, k, s, p, d, ceil = MAX_CASES[case]
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True)
    _check(lambda x: F.max_pool2d(x, **kw), lambda t: TF.max_pool2d(t, **kw), shape, dtype, device, layout,
           indices=dtype in ("float32", "float64"))


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", [((2, 3, 11), 3, 2, 1, 2, True), ((4, 9), 2, 1, 0, 1, False)])
def test_max_pool1d(device, case, dtype):
    shape, k, s, p, d, ceil = case
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True)
    _check(lambda x: F.max_pool1d(x, **kw), lambda t: TF.max_pool1d(t, **kw), shape, dtype, device, "strided",
           indices=dtype in ("float32", "float64"))


AVG_CASES = [  # (shape, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)
    ((2, 3, 9, 8), 3, 2, 1, False, True, None),
    ((2, 3, 9, 8), 3, 2, 1, True, False, None),
    ((2, 3, 9, 8), (3, 2), (2, 1), (1, 1), True, True, None),
    ((1, 2, 10, 11), 4, 3, 2, True, True, 5),
    ((3, 7, 6), 2, 2, 1, False, False, 3),  # unbatched
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", range(len(AVG_CASES)))
def test_avg_pool2d(device, case, dtype, layout):
    shape, k, s, p, ceil, cip, div = AVG_CASES[case]
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=cip, divisor_override=div)
    _check(lambda x: F.avg_pool2d(x, **kw), lambda t: TF.avg_pool2d(t, **kw), shape, dtype, device, layout)


@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", [((2, 3, 11), 3, 2, 1, True, False), ((4, 9), 2, 1, 0, False, True)])
def test_avg_pool1d(device, case, dtype):
    shape, k, s, p, ceil, cip = case
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=cip)
    _check(lambda x: F.avg_pool1d(x, **kw), lambda t: TF.avg_pool1d(t, **kw), shape, dtype, device, "contiguous")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", sorted(FLOATS))
@pytest.mark.parametrize("case", [((2, 3, 9, 8), (4, 3)), ((2, 2, 5, 7), (7, 9)), ((3, 6, 5), (1, 1)),
                                  ((1, 2, 6, 6), (3, None))])
def test_adaptive_avg_pool2d(device, case, dtype, layout):
    shape, size = case
    _check(lambda x: F.adaptive_avg_pool2d(x, size), lambda t: TF.adaptive_avg_pool2d(t, size), shape, dtype,
           device, layout)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [((2, 3, 11), 4), ((3, 5), 7)])
def test_adaptive_avg_pool1d(device, case, dtype):
    shape, size = case
    _check(lambda x: F.adaptive_avg_pool1d(x, size), lambda t: TF.adaptive_avg_pool1d(t, size), shape, dtype,
           device, "strided")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adaptive_max_pool(device, dtype):
    _check(lambda x: F.adaptive_max_pool2d(x, (3, 2)), lambda t: TF.adaptive_max_pool2d(t, (3, 2)), (2, 3, 7, 5),
           dtype, device, "channels_last")
    _check(lambda x: F.adaptive_max_pool1d(x, 4), lambda t: TF.adaptive_max_pool1d(t, 4), (2, 3, 9), dtype,
           device, "contiguous")


@pytest.mark.parametrize("dtype", sorted(FLOATS))
def test_max_pool_nan_wins(device, dtype):
    v = _values((2, 2, 6, 7), dtype)
    v[0, 0, 1, 1] = v[0, 1, 4, 5] = v[1, 1, 0, 0] = v[1, 1, 0, 1] = np.nan
    x, t = _pair(v, dtype, device, "contiguous")
    kw = dict(kernel_size=3, stride=2, padding=1, return_indices=True)
    (y, i), (ty, ti) = F.max_pool2d(x, **kw), TF.max_pool2d(t, **kw)
    _close(y, ty, 0)
    np.testing.assert_array_equal(i.cpu().numpy(), ti.numpy())
    _close(F.avg_pool2d(x, 2), TF.avg_pool2d(t, 2), FLOATS[dtype][2])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_max_pool_integers(device, dtype):
    v = _values((2, 3, 7, 6), "float32") * 8 % 100
    x = nabla.tensor(v, dtype=getattr(nabla, dtype), device=device).permute(0, 1, 3, 2)
    t = torch.tensor(v).to(getattr(torch, dtype)).permute(0, 1, 3, 2)
    kw = dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True, return_indices=True)
    (y, i), (ty, ti) = F.max_pool2d(x, **kw), TF.max_pool2d(t, **kw)
    assert y.dtype == x.dtype and y.device.type == device
    np.testing.assert_array_equal(y.cpu().numpy(), ty.numpy())
    np.testing.assert_array_equal(i.cpu().numpy(), ti.numpy())


def test_avg_pool_int64_truncates(device):
    v = (_values((2, 2, 6, 7), "float32") * 8).astype(np.int64)
    y = F.avg_pool2d(nabla.tensor(v, device=device), 3, 2, 1, ceil_mode=True)
    ty = TF.avg_pool2d(torch.tensor(v), 3, 2, 1, ceil_mode=True)
    assert y.dtype == nabla.int64
    np.testing.assert_array_equal(y.cpu().numpy(), ty.numpy())


def test_empty_batch_and_out(device):
    x = nabla.zeros(0, 3, 6, 6, device=device).requires_grad_(True)
    y, i = F.max_pool2d(x, 2, return_indices=True)
    assert tuple(y.shape) == (0, 3, 3, 3) and tuple(i.shape) == (0, 3, 3, 3)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 3, 6, 6)
    assert tuple(F.adaptive_avg_pool2d(nabla.zeros(2, 3, 0, 4, device=device), (0, 2)).shape) == (2, 3, 0, 2)
    # out=: the result lands in a float64 tensor on the device
    v = _values((1, 2, 6, 6), "float32")
    dst = nabla.empty(1, 2, 3, 3, dtype=nabla.float64, device=device)
    x = nabla.tensor(v, device=device)
    _call(lib.nbpy_avg_pool2d, x._h, [2, 2], [2, 2], [0, 0], 0, 1, 0, dst._h)
    np.testing.assert_allclose(dst.cpu().numpy(), TF.avg_pool2d(torch.tensor(v), 2).double().numpy(), rtol=1e-6)


def _raw(fn, args):
    """A gradient entry point (lib.nbpy_*_backward) called directly, no out tensor."""
    return _call(fn, *args, ffi.NULL)


@pytest.mark.parametrize("dtype", sorted(FLOATS))
def test_backward_entry_points(device, dtype):
    """nb_max_pool2d_backward does not know the forward's window: on a device every cell is asked."""
    v = _values((2, 3, 9, 8), dtype)
    x, t = _pair(v, dtype, device, "contiguous")
    kw = dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True, return_indices=True)
    (y, i), (ty, ti) = F.max_pool2d(x, **kw), TF.max_pool2d(t, **kw)
    go_np = np.linspace(-1, 1, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape))
    go = nabla.tensor(go_np, dtype=x.dtype, device=device)
    size = ffi.new("int64_t[2]", [9, 8])
    g = _raw(lib.nbpy_max_pool2d_backward, (go._h, i._h, size))
    assert g.device.type == device and g.dtype == x.dtype
    ty.backward(torch.tensor(go_np, dtype=ty.dtype))
    _close(g, t.grad, FLOATS[dtype][2] * 4)
    k, s, p = ffi.new("int64_t[2]", [3, 3]), ffi.new("int64_t[2]", [2, 2]), ffi.new("int64_t[2]", [1, 1])
    ya = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)
    goa = nabla.tensor(np.ones(tuple(ya.shape)), dtype=x.dtype, device=device).permute(0, 1, 3, 2).contiguous()
    goa = goa.permute(0, 1, 3, 2)  # a strided grad_output
    ga = _raw(lib.nbpy_avg_pool2d_backward, (goa._h, size, k, s, p, 1, 0))
    t.grad = None
    TF.avg_pool2d(t, 3, 2, 1, ceil_mode=True).sum().backward()
    _close(ga, t.grad, FLOATS[dtype][2] * 4)


def test_bad_saved_index(device):
    go = nabla.ones(1, 1, 2, 2, device=device)
    idx = nabla.tensor([[[[0, 1], [2, 99]]]], device=device)
    size = ffi.new("int64_t[2]", [4, 4])
    with pytest.raises(Exception, match="max_pool2d_backward: index 99 is out of range"):
        _raw(lib.nbpy_max_pool2d_backward, (go._h, idx._h, size)).cpu()


def _message(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value), str(e.value)


BAD = [
    lambda d: F.max_pool2d(nabla.ones(1, 2, 5, 5, device=d), 0),
    lambda d: F.max_pool2d(nabla.ones(1, 2, 5, 5, device=d), 2, padding=2),
    lambda d: F.max_pool2d(nabla.ones(1, 2, 5, 5, device=d), 2, dilation=0),
    lambda d: F.max_pool2d(nabla.ones(1, 2, 2, 2, device=d), 3),
    lambda d: F.max_pool2d(nabla.ones(1, 2, 3, 5, 5, device=d), 2),
    lambda d: F.max_pool2d(nabla.ones(1, 2, 5, 5, dtype=nabla.bool, device=d), 2),
    lambda d: F.avg_pool2d(nabla.ones(1, 2, 5, 5, dtype=nabla.int32, device=d), 2),
    lambda d: F.avg_pool2d(nabla.ones(1, 2, 5, 5, device=d), 2, stride=-1),
    lambda d: F.adaptive_avg_pool2d(nabla.ones(1, 2, 5, 5, dtype=nabla.int64, device=d), 2),
    lambda d: F.adaptive_avg_pool2d(nabla.ones(1, 2, 0, 5, device=d), 2),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input_same_message_on_every_device(device, case):
    assert _message(lambda: BAD[case](device)) == _message(lambda: BAD[case]("cpu"))


def test_mixed_devices(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    go = nabla.ones(1, 1, 2, 2, device=device)
    idx = nabla.zeros(1, 1, 2, 2, dtype=nabla.int64)
    size = ffi.new("int64_t[2]", [4, 4])
    with pytest.raises(Exception, match="max_pool2d_backward: expected all tensors to be on the same device"):
        _raw(lib.nbpy_max_pool2d_backward, (go._h, idx._h, size))


@pytest.mark.parametrize("kind", ["max", "avg", "adaptive"])
def test_double_backward(device, kind):
    f = {"max": lambda m, a: m.max_pool2d(a, 3, 2, 1, dilation=2),
         "avg": lambda m, a: m.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False),
         "adaptive": lambda m, a: m.adaptive_avg_pool2d(a, (3, 5))}[kind]
    v = _values((2, 3, 7, 8), "float64")
    a = nabla.tensor(v, device=device).requires_grad_(True)
    t = torch.tensor(v, requires_grad=True)
    g, = nabla.autograd.grad((f(F, a) ** 2).sum(), a, create_graph=True)
    tg, = torch.autograd.grad((f(TF, t) ** 2).sum(), t, create_graph=True)
    gg, = nabla.autograd.grad((g * g).sum(), a)
    tgg, = torch.autograd.grad((tg * tg).sum(), t)
    assert gg.device.type == device
    _close(gg, tgg, 1e-12)
