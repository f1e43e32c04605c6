"""Memory formats and the factory arguments past dtype and device, against torch: the strides
of contiguous / to / clone / the *_like factories / empty in each format, is_contiguous with a
format (size-1 dims), preserve_format, Module.to(memory_format=), a channels-last conv net
forward and backward, out= / layout= / pin_memory= on factories, and the errors."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import nabla as nb

torch = pytest.importorskip("torch")

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def pair(shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return nb.tensor(x), torch.tensor(x)


def views(m):
    """Dense and non-dense 4-d inputs in both libraries (m is nabla or torch)."""
    def make(x):
        return {
            "contiguous": x,
            "channels_last": x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
            "transposed": x.transpose(2, 3),
            "sliced": x[:, :, ::2],
            "size1": x[:, :1],
            "expanded": x[:1].expand(3, -1, -1, -1),
        }
    return make


@pytest.mark.parametrize("view", ["contiguous", "channels_last", "transposed", "sliced", "size1", "expanded"])
@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last"])
def test_is_contiguous_and_conversions_match_torch(view, fmt):
    a, b = pair((3, 4, 5, 6))
    x, y = views(nb)(a)[view], views(torch)(b)[view]
    assert x.stride() == y.stride()
    assert x.is_contiguous(memory_format=getattr(nb, fmt)) == y.is_contiguous(memory_format=getattr(torch, fmt))
    for op in ("contiguous", "to"):
        r = getattr(x, op)(memory_format=getattr(nb, fmt))
        s = getattr(y, op)(memory_format=getattr(torch, fmt))
        assert r.stride() == s.stride(), (op, view, fmt)
        np.testing.assert_array_equal(r.numpy(), s.numpy())
        assert (r is x) == (s is y), (op, view, fmt)
    r, s = x.clone(memory_format=getattr(nb, fmt)), y.clone(memory_format=getattr(torch, fmt))
    assert r.stride() == s.stride()
    np.testing.assert_array_equal(r.numpy(), s.numpy())


@pytest.mark.parametrize("view", ["contiguous", "channels_last", "transposed", "sliced", "size1", "expanded"])
@pytest.mark.parametrize("fmt", [None] + FORMATS[:2])
@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "full_like"])
def test_like_factories_keep_or_set_the_strides_as_torch(view, fmt, fn):
    a, b = pair((3, 4, 5, 6))
    x, y = views(nb)(a)[view], views(torch)(b)[view]
    extra = (2.5,) if fn == "full_like" else ()
    kw_nb = {} if fmt is None else {"memory_format": getattr(nb, fmt)}
    kw_t = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
    r, s = getattr(nb, fn)(x, *extra, **kw_nb), getattr(torch, fn)(y, *extra, **kw_t)
    assert r.stride() == s.stride() and r.shape == s.shape and r.dtype.name == str(s.dtype)[6:]
    if fn != "empty_like":
        np.testing.assert_array_equal(r.numpy(), s.numpy())


def test_like_factories_take_dtype_and_requires_grad_with_a_format():
    a, _ = pair((2, 3, 4, 5))
    r = nb.zeros_like(a, dtype=nb.float64, memory_format=nb.channels_last, requires_grad=True)
    assert r.dtype == nb.float64 and r.requires_grad and r.stride() == (60, 1, 15, 3)


def test_channels_last_3d_and_the_rank_errors():
    a, b = pair((2, 3, 4, 5, 6))
    r, s = a.contiguous(memory_format=nb.channels_last_3d), b.contiguous(memory_format=torch.channels_last_3d)
    assert r.stride() == s.stride() and r.is_contiguous(memory_format=nb.channels_last_3d)
    np.testing.assert_array_equal(r.numpy(), s.numpy())
    x, y = pair((2, 3))
    for fmt, rank in (("channels_last", 4), ("channels_last_3d", 5)):
        with pytest.raises(RuntimeError, match=f"required rank {rank} tensor to use {fmt} format"):
            y.contiguous(memory_format=getattr(torch, fmt))
        with pytest.raises(RuntimeError, match=f"required rank {rank} tensor to use {fmt} format"):
            x.contiguous(memory_format=getattr(nb, fmt))
        with pytest.raises(RuntimeError, match=f"required rank {rank}"):
            nb.empty_like(x, memory_format=getattr(nb, fmt))
        assert x.is_contiguous(memory_format=getattr(nb, fmt)) is False


def test_preserve_format_and_bad_format_arguments():
    x, y = pair((3, 4))
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        y.t().contiguous(memory_format=torch.preserve_format)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        x.t().contiguous(memory_format=nb.preserve_format)
    assert x.t().is_contiguous(memory_format=nb.preserve_format) == y.t().is_contiguous(memory_format=torch.preserve_format)
    with pytest.raises(TypeError, match="must be torch.memory_format, not int"):
        y.contiguous(memory_format=1)
    with pytest.raises(TypeError, match="must be torch.memory_format, not int"):
        x.contiguous(memory_format=1)


def test_formats_are_singletons_with_torch_reprs():
    for name in FORMATS:
        fmt = getattr(nb, name)
        assert repr(fmt) == repr(getattr(torch, name)) and isinstance(fmt, nb.memory_format)
        assert pickle.loads(pickle.dumps(fmt)) is fmt
    assert nb.legacy_contiguous_format is nb.contiguous_format
    assert pickle.loads(pickle.dumps(nb.strided)) is nb.strided


def test_module_to_channels_last_trains_as_torch():
    nb.manual_seed(0)
    m = nb.nn.Sequential(nb.nn.Conv2d(3, 4, 3, padding=1), nb.nn.BatchNorm2d(4), nb.nn.ReLU(), nb.nn.Conv2d(4, 2, 3))
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                             torch.nn.Conv2d(4, 2, 3))
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    m, tm = m.to(memory_format=nb.channels_last), tm.to(memory_format=torch.channels_last)
    for p, q in zip(m.parameters(), tm.parameters()):
        assert p.stride() == q.stride() and isinstance(p, nb.nn.Parameter)
    a, b = pair((2, 3, 8, 8), seed=1)
    x = a.to(memory_format=nb.channels_last).requires_grad_()
    y = b.to(memory_format=torch.channels_last).requires_grad_()
    m(x).square().sum().backward()
    tm(y).square().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-4, atol=1e-4)
    for p, q in zip(m.parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fn,args", [("zeros", ((2, 3),)), ("ones", ((2, 3),)), ("empty", ((2, 3),)),
                                     ("full", ((2, 3), 7)), ("arange", (5,)), ("linspace", (0, 1, 5)),
                                     ("eye", (3,))])
def test_factories_write_into_out_as_torch(fn, args):
    out_nb, out_t = nb.empty(1, dtype=nb.int64), torch.empty(1, dtype=torch.int64)
    r = getattr(nb, fn)(*args, out=out_nb)
    s = getattr(torch, fn)(*args, out=out_t)
    assert r is out_nb and s is out_t and r.shape == s.shape and r.dtype == nb.int64
    if fn != "empty":
        np.testing.assert_array_equal(r.numpy(), s.numpy())
    with pytest.raises(RuntimeError, match="dtype Float does not match dtype of out parameter \\(Long\\)"):
        getattr(torch, fn)(*args, out=out_t, dtype=torch.float32)
    with pytest.raises(RuntimeError, match="dtype Float does not match dtype of out parameter \\(Long\\)"):
        getattr(nb, fn)(*args, out=out_nb, dtype=nb.float32)


def test_factories_take_layout_pin_memory_and_memory_format():
    assert nb.zeros(2, 3, layout=nb.strided, pin_memory=False).shape == (2, 3)
    assert nb.full((2,), 1.5, layout=nb.strided).tolist() == [1.5, 1.5]
    assert nb.empty(2, 3, 4, 5, memory_format=nb.channels_last).stride() == \
        torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()
    with pytest.raises(TypeError, match="unexpected keyword argument 'memory_format'"):
        torch.zeros(3, memory_format=torch.contiguous_format)
    with pytest.raises(TypeError, match="unexpected keyword argument 'memory_format'"):
        nb.zeros(3, memory_format=nb.contiguous_format)
    with pytest.raises(RuntimeError, match="layout=.*not supported"):
        nb.zeros(3, layout="sparse")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        nb.ones(3, bogus=1)
