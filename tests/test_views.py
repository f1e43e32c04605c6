"""View ops (reshape, view, permute, transpose, expand, squeeze, ...), each
compared with the same operation in NumPy on contiguous and non-contiguous
inputs: values, shape, strides, and whether storage is shared."""
from __future__ import annotations

import re

import numpy as np
import pytest

import nabla


def storage_base(t) -> int:
    """Address of t's storage (shared by all views of it)."""
    return t.data_ptr() - t.storage_offset() * t.element_size()


# Every layout is a (2, 3, 4) float64 view `t` of a nabla tensor `tb` that was
# copied from the C-contiguous NumPy array `ab`; `a` is the same view of `ab`.
LAYOUTS = {
    "contiguous": ((2, 3, 4), lambda x: x),
    "transposed": ((4, 3, 2), lambda x: x.transpose(2, 1, 0) if isinstance(x, np.ndarray) else x.permute(2, 1, 0)),
    "stepped": ((4, 7, 9), lambda x: x[1::2, ::3, 1::2]),
    "mixed": ((6, 4, 3), lambda x: x[1::3].swapaxes(1, 2)),
}


@pytest.fixture(params=list(LAYOUTS))
def layout(request, rng):
    base_shape, make = LAYOUTS[request.param]
    ab = rng.standard_normal(base_shape)
    tb = nabla.tensor(ab)
    a, t = make(ab), make(tb)
    assert a.shape == (2, 3, 4) and tuple(t.shape) == (2, 3, 4)
    np.testing.assert_array_equal(t.numpy(), a)
    assert storage_base(t) == storage_base(tb)
    return tb, ab, t, a


def _idx(dim, key):
    return (slice(None),) * dim + (key,)


# (name, nabla op, NumPy op); all on a (2, 3, 4) input.
OPS = [
    ("reshape_flat", lambda t: t.reshape(-1), lambda a: a.reshape(-1)),
    ("reshape_2d", lambda t: t.reshape(6, -1), lambda a: a.reshape(6, -1)),
    ("reshape_split", lambda t: t.reshape(2, 3, 2, 2), lambda a: a.reshape(2, 3, 2, 2)),
    ("reshape_merge_tail", lambda t: t.reshape((2, 12)), lambda a: a.reshape(2, 12)),
    ("reshape_same", lambda t: t.reshape([2, 3, 4]), lambda a: a.reshape(2, 3, 4)),
    ("reshape_ones", lambda t: t.reshape(1, 2, 1, 12, 1), lambda a: a.reshape(1, 2, 1, 12, 1)),
    ("fn_reshape", lambda t, M=nabla: M.reshape(t, (4, 6)), lambda a: a.reshape(4, 6)),
    ("permute", lambda t: t.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("permute_tuple_neg", lambda t: t.permute((-1, -3, -2)), lambda a: a.transpose(2, 0, 1)),
    ("fn_permute", lambda t, M=nabla: M.permute(t, [1, 2, 0]), lambda a: a.transpose(1, 2, 0)),
    ("transpose", lambda t: t.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
    ("transpose_neg", lambda t: t.transpose(-1, 1), lambda a: a.swapaxes(2, 1)),
    ("transpose_same", lambda t: t.transpose(1, 1), lambda a: a),
    ("transpose_np_ints", lambda t: t.transpose(np.int64(2), np.int32(0)), lambda a: a.swapaxes(0, 2)),
    ("unsqueeze_np_int", lambda t: t.unsqueeze(np.int64(1)), lambda a: a[:, None]),
    ("view_np_ints", lambda t: t.reshape(np.int64(3), np.int16(-1)), lambda a: a.reshape(3, 8)),
    ("fn_swapaxes", lambda t, M=nabla: M.swapaxes(t, 0, 1), lambda a: a.swapaxes(0, 1)),
    ("T", lambda t: t.T, lambda a: a.T),
    ("mT", lambda t: t.mT, lambda a: a.swapaxes(-1, -2)),
    ("narrow", lambda t: t.narrow(2, 1, 2), lambda a: a[:, :, 1:3]),
    ("narrow_neg_start", lambda t: t.narrow(-2, -2, 2), lambda a: a[:, 1:3]),
    ("narrow_empty", lambda t: t.narrow(1, 3, 0), lambda a: a[:, 3:3]),
    ("select0", lambda t: t.select(0, 1), lambda a: a[1]),
    ("select_neg", lambda t: t.select(-1, -1), lambda a: a[:, :, -1]),
    ("fn_select", lambda t, M=nabla: M.select(t, 1, 2), lambda a: a[:, 2]),
    ("unsqueeze0", lambda t: t.unsqueeze(0), lambda a: a[None]),
    ("unsqueeze2", lambda t: t.unsqueeze(2), lambda a: a[:, :, None]),
    ("unsqueeze_end", lambda t: t.unsqueeze(3), lambda a: a[..., None]),
    ("unsqueeze_neg1", lambda t: t.unsqueeze(-1), lambda a: a[..., None]),
    ("unsqueeze_neg4", lambda t: t.unsqueeze(-4), lambda a: a[None]),
    ("unsqueeze_neg2", lambda t: t.unsqueeze(-2), lambda a: a[:, :, None]),
    ("squeeze_all", lambda t: t.narrow(1, 1, 1).unsqueeze(0).squeeze(), lambda a: a[None, :, 1:2].squeeze()),
    ("squeeze_dim", lambda t: t.narrow(1, 1, 1).squeeze(1), lambda a: a[:, 1]),
    ("squeeze_noop", lambda t: t.squeeze(0), lambda a: a),
    ("squeeze_tuple", lambda t: t.narrow(1, 0, 1).unsqueeze(0).squeeze((0, 2, 1)), lambda a: a[:, 0]),
    ("squeeze_neg", lambda t: t.narrow(2, 3, 1).squeeze(-1), lambda a: a[:, :, 3]),
    ("fn_squeeze", lambda t, M=nabla: M.squeeze(t.narrow(0, 1, 1)), lambda a: a[1]),
    ("flatten", lambda t: t.flatten(), lambda a: a.reshape(-1)),
    ("flatten_1", lambda t: t.flatten(1), lambda a: a.reshape(2, 12)),
    ("flatten_0_1", lambda t: t.flatten(0, 1), lambda a: a.reshape(6, 4)),
    ("flatten_neg", lambda t: t.flatten(-2, -1), lambda a: a.reshape(2, 12)),
    ("flatten_single", lambda t: t.flatten(1, 1), lambda a: a),
    ("fn_flatten", lambda t, M=nabla: M.flatten(t, 0, -2), lambda a: a.reshape(6, 4)),
    ("ravel", lambda t: t.ravel(), lambda a: a.reshape(-1)),
    ("expand", lambda t: t.narrow(1, 2, 1).expand(2, 5, 4), lambda a: np.broadcast_to(a[:, 2:3], (2, 5, 4))),
    ("expand_minus1", lambda t: t.narrow(0, 0, 1).expand(3, -1, -1), lambda a: np.broadcast_to(a[:1], (3, 3, 4))),
    ("expand_lead", lambda t: t.expand(2, 2, 3, 4), lambda a: np.broadcast_to(a, (2, 2, 3, 4))),
    ("expand_list", lambda t: t.narrow(2, 0, 1).expand([2, 3, 6]), lambda a: np.broadcast_to(a[:, :, :1], (2, 3, 6))),
    ("expand_as", lambda t, M=nabla: t.narrow(0, 1, 1).expand_as(M.empty(4, 3, 4)),
     lambda a: np.broadcast_to(a[1:2], (4, 3, 4))),
    ("contiguous", lambda t: t.contiguous(), lambda a: np.ascontiguousarray(a)),
    ("clone", lambda t: t.clone(), lambda a: a.copy(order="K")),  # keeps the memory order, as torch does
    ("chain", lambda t: t.transpose(0, 1)[1:].flatten(0, 1).unsqueeze(1).select(2, 3),
     lambda a: a.swapaxes(0, 1)[1:].reshape(4, 4)[:, None, 3]),
]


@pytest.mark.parametrize("name, op, np_op", OPS, ids=[o[0] for o in OPS])
def test_view_op_matches_numpy(name, op, np_op, layout, assert_matches, rng):
    tb, ab, t, a = layout
    r, ra = op(t), np_op(a)
    assert_matches(r, ra)
    assert r.ndim == ra.ndim and r.numel() == ra.size and len(r.stride()) == ra.ndim
    if ra.size == 0:  # NumPy reports no sharing for empty arrays; nothing to write either
        return
    shares = np.shares_memory(ra, ab)
    if name in ("clone",):
        assert not shares
    assert (storage_base(r) == storage_base(tb)) == shares, "storage sharing differs from NumPy"
    if shares:
        # data_ptr: the first element's address, like NumPy's data pointer
        assert r.data_ptr() - tb.data_ptr() == \
            ra.__array_interface__["data"][0] - ab.__array_interface__["data"][0]
        if 0 not in ra.strides:
            # writes through the view reach the base (and only the viewed elements)
            new = rng.standard_normal(ra.shape)
            r.copy_(nabla.tensor(new))
            ra[...] = new
            np.testing.assert_array_equal(tb.numpy(), ab)
            np.testing.assert_array_equal(t.numpy(), a)
    else:
        before = ab.copy()
        r.fill_(7.0)
        np.testing.assert_array_equal(tb.numpy(), before)  # a copy: the base is untouched


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name, op, np_op", OPS, ids=[o[0] for o in OPS])
def test_view_op_strides_match_torch(name, op, np_op, rng):
    """All strides, size-1 dims included, follow PyTorch's rules."""
    torch = pytest.importorskip("torch")
    takes_module = "M" in op.__code__.co_varnames  # module-level forms: run torch's own function
    for base_shape, make in LAYOUTS.values():
        ab = rng.standard_normal(base_shape)
        rt = op(make(torch.from_numpy(ab)), torch) if takes_module else op(make(torch.from_numpy(ab)))
        r = op(make(nabla.tensor(ab)))
        assert tuple(r.shape) == tuple(rt.shape)
        assert r.stride() == rt.stride(), (name, r.stride(), rt.stride())
        assert r.storage_offset() == rt.storage_offset()
        assert r.is_contiguous() == rt.is_contiguous()
        np.testing.assert_array_equal(r.numpy(), rt.numpy())


def test_unsqueeze_strides_follow_pytorch_rule():
    # the inserted dim's stride is size*stride of the dim it precedes, or 1 at the end
    t = nabla.zeros(5, 7)[::2, 1::3]  # shape (3, 2), strides (14, 3)
    assert t.stride() == (14, 3)
    assert t.unsqueeze(0).stride() == (42, 14, 3)
    assert t.unsqueeze(1).stride() == (14, 6, 3)
    assert t.unsqueeze(2).stride() == (14, 3, 1)
    assert nabla.tensor(1.0).unsqueeze(0).stride() == (1,)


def test_expand_strides_are_zero():
    t = nabla.arange(3).view(3, 1).expand(3, 4)
    assert t.stride() == (1, 0) and t.shape == (3, 4) and not t.is_contiguous()
    e = nabla.arange(3).expand(2, 2, 3)
    assert e.stride() == (0, 0, 1)
    assert e.tolist() == [[[0, 1, 2]] * 2] * 2


# ---- 2-D specifics: t() and view ----

@pytest.mark.parametrize("make", [lambda x: x, lambda x: x[::2, 1:], lambda x: x.T])
def test_t_on_matrices_vectors_scalars(make, rng, assert_matches):
    base = rng.standard_normal((5, 6))
    tb = nabla.tensor(base)
    t, a = make(tb), make(base)
    assert_matches(t.t(), a.T)
    assert storage_base(t.t()) == storage_base(tb)
    assert_matches(t[1].t(), a[1])
    assert_matches(t[1, 2].t(), a[1, 2])
    assert_matches(nabla.transpose(t, 0, 1), a.T)


@pytest.mark.parametrize("shape", [(6,), (3, 2), (1, 6), (2, 1, 3), (-1, 2), (2, -1, 1)])
def test_view_on_contiguous(shape):
    t = nabla.arange(6)
    v = t.view(*shape)
    ref = np.arange(6).reshape(shape)
    assert v.shape == ref.shape and v.tolist() == ref.tolist()
    assert v.data_ptr() == t.data_ptr()
    assert v.view(6).tolist() == list(range(6))
    assert nabla.arange(6).view(shape).shape == ref.shape


def test_view_as_and_reshape_as():
    t = nabla.arange(12)
    assert t.view_as(nabla.empty(3, 4)).shape == (3, 4)
    assert t.reshape_as(nabla.empty(2, 6)).shape == (2, 6)


def test_view_on_non_contiguous_raises_and_mentions_reshape():
    t = nabla.arange(12).view(3, 4).t()
    with pytest.raises(RuntimeError, match="reshape"):
        t.view(12)
    with pytest.raises(RuntimeError, match="reshape"):
        nabla.arange(12).view(3, 4)[:, :2].view(-1)
    assert nabla.arange(12).view(3, 4)[:, ::2].view(-1).stride() == (2,)  # uniform stride: a view
    # reshape copies instead
    r = t.reshape(12)
    assert r.tolist() == np.arange(12).reshape(3, 4).T.reshape(-1).tolist()
    assert storage_base(r) != storage_base(t)
    # splitting a dim of a non-contiguous tensor is still a view
    v = t.view(2, 2, 3)
    assert storage_base(v) == storage_base(t)
    assert v.tolist() == np.arange(12).reshape(3, 4).T.reshape(2, 2, 3).tolist()


def test_contiguous_returns_same_storage_when_contiguous():
    t = nabla.arange(6.0).view(2, 3)
    c = t.contiguous()
    assert c.data_ptr() == t.data_ptr() and c.is_contiguous()
    n = t.t()
    assert not n.is_contiguous()
    c = n.contiguous()
    assert c.is_contiguous() and c.stride() == (2, 1) and c.data_ptr() != n.data_ptr()
    assert c.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


@pytest.mark.parametrize("make", [lambda: nabla.zeros(3, 4).t().narrow(0, 0, 0), lambda: nabla.zeros(0, 3),
                                  lambda: nabla.zeros(2, 5, 3).transpose(0, 2)[:, 5:]])
def test_empty_tensors_are_contiguous(make):
    # no elements, so any strides describe a row-major layout (PyTorch: True)
    t = make()
    assert t.numel() == 0
    assert t.is_contiguous()


def test_clone_is_independent():
    t = nabla.arange(6).view(2, 3)
    c = t.clone()
    c[0, 0] = 100
    assert t[0, 0].item() == 0 and c.tolist() == [[100, 1, 2], [3, 4, 5]]
    assert nabla.clone(t).tolist() == t.tolist()


# ---- as_strided ----

@pytest.mark.parametrize("size, stride, offset", [((2, 2), (1, 2), 1), ((3, 3), (1, 1), 0), ((4,), (3,), 0),
                                                  ((2, 3), (0, 1), 5), ((), (), 7), ((0, 5), (1, 100), 3),
                                                  ((2, 2, 2), (5, 3, 1), 2), ((3,), (2,), None)])
def test_as_strided_matches_numpy(size, stride, offset, rng, assert_matches):
    ab = rng.standard_normal(12)
    tb = nabla.tensor(ab)
    src = tb[2:]  # as_strided addresses the storage, not the view; offset None keeps the view's
    r = src.as_strided(size, stride) if offset is None else src.as_strided(size, stride, offset)
    off = 2 if offset is None else offset
    ra = np.lib.stride_tricks.as_strided(ab[off:], size, tuple(s * 8 for s in stride))
    assert_matches(r, ra)
    assert r.storage_offset() == off and r.stride() == tuple(stride)
    assert storage_base(r) == storage_base(tb)
    assert nabla.as_strided(tb, size, stride, off).tolist() == ra.tolist()


@pytest.mark.parametrize("size, stride, offset", [((3, 3), (3, 1), 4), ((13,), (1,), 0), ((2,), (1,), 11),
                                                  ((2,), (-1,), 1), ((2, 2), (1,), 0), ((2,), (1,), -1)])
def test_as_strided_out_of_bounds_raises(size, stride, offset):
    with pytest.raises(RuntimeError):
        nabla.arange(12).as_strided(size, stride, offset)


# ---- errors ----

def _dim_msg(lo, hi, got):
    return re.compile(re.escape(f"imension out of range (expected to be in range of [{lo}, {hi}], but got {got})"),
                      re.IGNORECASE)


@pytest.mark.parametrize("call, got", [
    (lambda t: t.transpose(0, 5), 5), (lambda t: t.transpose(-3, 0), -3), (lambda t: t.permute(0, 5), 5),
    (lambda t: t.squeeze(5), 5), (lambda t: t.squeeze((0, -5)), -5), (lambda t: t.flatten(0, 5), 5),
    (lambda t: t.flatten(5), 5), (lambda t: t.select(5, 0), 5), (lambda t: t.narrow(-3, 0, 1), -3),
    (lambda t: t.size(5), 5), (lambda t: t.stride(-3), -3), (lambda t: nabla.transpose(t, 5, 0), 5),
], ids=["transpose", "transpose_neg", "permute", "squeeze", "squeeze_tuple", "flatten_end", "flatten_start",
        "select", "narrow", "size", "stride", "fn_transpose"])
def test_wrong_dim_raises_index_error_with_range(call, got):
    with pytest.raises(IndexError, match=_dim_msg(-2, 1, got)):
        call(nabla.zeros(2, 3))


def test_unsqueeze_wrong_dim_range_counts_the_new_dim():
    with pytest.raises(IndexError, match=_dim_msg(-3, 2, 3)):
        nabla.zeros(2, 3).unsqueeze(3)
    with pytest.raises(IndexError, match=_dim_msg(-3, 2, -4)):
        nabla.zeros(2, 3).unsqueeze(-4)


@pytest.mark.parametrize("call", [
    lambda t: t.view(5), lambda t: t.view(4, -1), lambda t: t.view(-1, -1), lambda t: t.reshape(7),
    lambda t: t.reshape(-1, 4), lambda t: t.view(2, -2),
    lambda t: t.expand(3, 2), lambda t: t.expand(3), lambda t: t.expand(-1, 2, 3),
    lambda t: t.permute(0), lambda t: t.permute(0, 0), lambda t: t.permute(0, 1, 2), lambda t: t.flatten(1, 0),
    lambda t: t.narrow(1, 2, 2), lambda t: t.narrow(1, 0, -1), lambda t: t.t().view(6),
    lambda t: t.as_strided((2, 3), (3,)), lambda t: t.unsqueeze(1).squeeze((1, 1)),
    lambda t: nabla.tensor(1.0).narrow(0, 0, 1),
], ids=["view", "view_infer", "view_two_infer", "reshape", "reshape_infer", "view_neg", "expand_mismatch",
        "expand_fewer", "expand_neg_lead", "permute_short", "permute_dup", "permute_long", "flatten_order",
        "narrow_too_long", "narrow_negative_length", "view_noncontig", "as_strided_len", "squeeze_dup_dims",
        "narrow_zero_dim"])
def test_wrong_sizes_raise_runtime_error(call):
    with pytest.raises(RuntimeError):
        call(nabla.zeros(2, 3))


@pytest.mark.parametrize("call", [lambda t: t.size(0), lambda t: t.size(-1), lambda t: t.stride(0),
                                  lambda t: t.select(0, 0), lambda t: t[0]])
def test_zero_dim_tensor_has_no_dims_to_index(call):
    with pytest.raises(IndexError):
        call(nabla.tensor(1.0))


def test_shape_error_message_names_the_shape():
    with pytest.raises(RuntimeError, match=re.escape("shape '[4, -1]' is invalid for input of size 6")):
        nabla.zeros(2, 3).reshape(4, -1)


@pytest.mark.parametrize("call", [lambda t: t.mT, lambda t: nabla.zeros(2, 3, 4).t()])
def test_matrix_transposes_reject_wrong_ndim(call):
    with pytest.raises(RuntimeError):
        call(nabla.zeros(3))


def test_writing_to_expanded_tensor_raises():
    e = nabla.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.copy_(nabla.ones(2, 3))


def test_unflatten_method_and_function_match_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(24.0).reshape(2, 12)
    for dim, sizes in ((1, (3, 4)), (-1, (2, -1, 3)), (0, [2, 1]), (1, (12,))):
        want = torch.tensor(a).unflatten(dim, sizes)
        got = nabla.tensor(a).unflatten(dim, sizes)
        assert tuple(got.shape) == tuple(want.shape) and got.tolist() == want.tolist()
        assert nabla.unflatten(nabla.tensor(a), dim, sizes).tolist() == want.tolist()
    t = nabla.tensor(a)
    for args, exc in (((1, (5, -1)), RuntimeError), ((1, ()), RuntimeError), ((2, (3, 4)), IndexError),
                      ((1, (-1, -1)), RuntimeError)):
        with pytest.raises(exc):
            t.unflatten(*args)
        with pytest.raises(exc):
            torch.tensor(a).unflatten(*args)


# ---- views of empty tensors keep sane metadata ----

def _sane(t, capacity: int) -> None:
    assert 0 <= t.storage_offset() <= capacity, (t.storage_offset(), capacity)
    assert all(s >= 0 for s in t.stride()), t.stride()
    assert t.numel() >= 0


@pytest.mark.parametrize("view", [
    lambda e: e.narrow(1, 2, 0), lambda e: e[:, 1:2], lambda e: e[:, ::3], lambda e: e.select(1, 1),
    lambda e: e.unsqueeze(1), lambda e: e.view(0), lambda e: e.reshape(2, 0), lambda e: e.flatten(),
    lambda e: e.t(), lambda e: e[:, 1:].unsqueeze(2)[:, :, 0],
], ids=["narrow", "slice", "step", "select", "unsqueeze", "view", "reshape", "flatten", "t", "chain"])
def test_views_of_an_empty_tensor_with_huge_strides_stay_inside_the_storage(view):
    """An empty tensor may have any strides (as_strided takes them without elements); offsets and strides of its
    views used to overflow into negative strides and offsets near INT64_MIN."""
    base = nabla.zeros(4, dtype=nabla.int8)
    e = nabla.as_strided(base, (0, 2), (1, 2**63 - 1), 4)
    _sane(e, 4)
    v = view(e)
    _sane(v, 4)
    nabla.add(nabla.ones(3, dtype=nabla.int8), 1, out=v)  # out= grows the storage from a sane offset
    assert v.shape == (3,) and v.tolist() == [2, 2, 2] and base.tolist() == [0, 0, 0, 0]
    assert v.storage_offset() <= 4 and storage_base(v) == storage_base(base)


@pytest.mark.parametrize("view", [
    lambda z: z.narrow(1, 4, 0), lambda z: z[3:3:2], lambda z: z[:, 4:], lambda z: z[1:1, 2:], lambda z: z[2:2].t(),
    lambda z: z.narrow(0, 3, 0).view(0, 2, 2), lambda z: z[:0].unsqueeze(0),
], ids=["narrow_end", "slice_end", "cols_end", "both", "t", "view", "unsqueeze"])
def test_ordinary_empty_views_keep_pytorchs_offsets_and_strides(view):
    torch = pytest.importorskip("torch")
    n, t = view(nabla.zeros(3, 4)), view(torch.zeros(3, 4))
    assert (n.shape, n.stride(), n.storage_offset()) == (tuple(t.shape), t.stride(), t.storage_offset())
    _sane(n, 12)


def test_an_empty_view_past_its_storage_keeps_its_base_offset():
    """PyTorch's select(0, 2) of a [3, 0] tensor has offset 2 in a storage of 0 elements; nabla keeps the base's
    offset (any offset addresses nothing), so offsets stay within [0, storage elements]."""
    z = nabla.zeros(3, 0)
    v = z.select(0, 2)
    assert v.shape == (0,) and v.storage_offset() == 0
    _sane(z[2:], 0)
    with pytest.raises(RuntimeError, match="storage offset 13 is out of bounds for a storage of 12 elements"):
        nabla.zeros(12).as_strided((0,), (1,), 13)
    assert nabla.zeros(12).as_strided((0, 3), (1, 1), 12).storage_offset() == 12  # the end itself is fine
