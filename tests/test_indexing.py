"""Basic indexing (ints, slices with positive steps, None, Ellipsis) against
NumPy, assignment through indices, and the Python protocols len/iter/bool/
float/int/index."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import nabla


def storage_base(t) -> int:
    return t.data_ptr() - t.storage_offset() * t.element_size()


def np_result(a, idx):
    """a[idx] as an array view (NumPy returns a scalar for a full integer index)."""
    r = a[idx]
    if isinstance(r, np.generic):
        full = idx if isinstance(idx, tuple) else (idx,)
        r = a[full + (Ellipsis,)] if Ellipsis not in full else np.asarray(r)
    return r


def check_getitem(t, a, tb, ab, idx):
    r, ra = t[idx], np_result(a, idx)
    assert isinstance(r, nabla.Tensor)
    assert tuple(r.shape) == ra.shape, (idx, r.shape, ra.shape)
    np.testing.assert_array_equal(r.numpy(), ra)
    if ra.size:
        assert storage_base(r) == storage_base(tb)  # indexing always returns a view
        assert r.data_ptr() - tb.data_ptr() == ra.__array_interface__["data"][0] - ab.__array_interface__["data"][0]
        for d in range(ra.ndim):
            if ra.shape[d] > 1:
                assert r.stride(d) == ra.strides[d] // ra.itemsize, (idx, r.stride(), ra.strides)


# ---- hand-picked index expressions ----

A_SHAPE = (4, 5, 6)
INDICES = [
    0, -1, 3, -4, (1, 2), (-1, -2, -3), (0, 0, 0),
    slice(None), slice(1, 3), slice(-3, None), slice(None, -1), slice(None, None, 2), slice(1, None, 3),
    slice(10, 20), slice(-100, 2), slice(3, 1), slice(2, 2), slice(-1, -5), slice(0, 100, 7),
    (slice(None), 1), (slice(None), slice(None), -1), (slice(1, None, 2), slice(None, None, 3), slice(2, 5)),
    None, (None, 0), (0, None), (None, None, 1, None), (slice(None), None, 2), (None,) * 4,
    Ellipsis, (Ellipsis, 0), (0, Ellipsis), (1, Ellipsis, 2), (Ellipsis, None), (None, Ellipsis, None, 1),
    (Ellipsis, slice(None, None, 2), None), (1, 2, 3, Ellipsis), (Ellipsis, 1, 2, 3), (), (np.int64(2), np.int32(-1)),
    (slice(np.int64(1), np.int8(3)), 0),
]


@pytest.mark.parametrize("idx", INDICES, ids=[repr(i) for i in INDICES])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped"])
def test_getitem_matches_numpy(idx, layout, rng):
    if layout == "contiguous":
        ab = rng.standard_normal(A_SHAPE)
        tb = nabla.tensor(ab)
        t, a = tb, ab
    elif layout == "transposed":
        ab = rng.standard_normal(A_SHAPE[::-1])
        tb = nabla.tensor(ab)
        t, a = tb.permute(2, 1, 0), ab.transpose(2, 1, 0)
    else:
        ab = rng.standard_normal((9, 6, 13))
        tb = nabla.tensor(ab)
        t, a = tb[1::2, 1:, ::2], ab[1::2, 1:, ::2]
    check_getitem(t, a, tb, ab, idx)


def _random_index(rng, ndim, shape):
    """A random basic index for an array of this shape: k <= ndim ints/slices, maybe
    one Ellipsis among them, and some Nones anywhere."""
    k = int(rng.integers(0, ndim + 1))
    kinds = [rng.choice(["int", "slice", "slice"]) for _ in range(k)]
    ell = int(rng.integers(0, k + 1)) if rng.random() < 0.4 else None
    dims = list(range(k)) if ell is None else list(range(ell)) + list(range(ndim - (k - ell), ndim))
    items = []
    for kind, d in zip(kinds, dims):
        size = shape[d]
        if kind == "int" and size:
            items.append(int(rng.integers(-size, size)))
        else:
            def bound():
                return None if rng.random() < 0.3 else int(rng.integers(-size - 3, size + 4))
            step = None if rng.random() < 0.3 else int(rng.integers(1, 4))
            items.append(slice(bound(), bound(), step))
    if ell is not None:
        items.insert(ell, Ellipsis)
    for _ in range(int(rng.integers(0, 3))):
        items.insert(int(rng.integers(0, len(items) + 1)), None)
    return items[0] if len(items) == 1 and rng.random() < 0.5 else tuple(items)


def test_getitem_random_expressions_match_numpy():
    rng = np.random.default_rng(1234)
    for trial in range(600):
        ndim = int(rng.integers(1, 5))
        shape = tuple(int(s) for s in rng.integers(0 if trial % 10 == 0 else 1, 6, ndim))
        ab = rng.standard_normal(shape) if trial % 2 else rng.integers(-100, 100, shape)
        tb = nabla.tensor(ab)
        t, a = tb, ab
        if trial % 3 == 0 and ndim > 1:  # a non-contiguous source
            perm = tuple(rng.permutation(ndim))
            t, a = tb.permute(*perm), ab.transpose(perm)
        idx = _random_index(rng, ndim, a.shape)
        check_getitem(t, a, tb, ab, idx)
        # the same expression as an assignment
        ra = np_result(a, idx)
        val = rng.integers(-50, 50, ra.shape[1:] if ra.ndim and trial % 4 == 0 else ra.shape)
        t[idx] = nabla.tensor(val).to(t.dtype)
        a[idx] = val
        np.testing.assert_array_equal(tb.numpy(), ab, err_msg=repr(idx))


# ---- errors ----

@pytest.mark.parametrize("idx", [(0, 0, 0), (Ellipsis, 0, 0, 0), (None, 0, 1, 2), (slice(None),) * 3,
                                 (0, Ellipsis, 0, 0)])
def test_too_many_indices_raise_index_error(idx):
    with pytest.raises(IndexError, match="too many indices"):
        nabla.zeros(2, 3)[idx]


def test_zero_dim_indexing():
    s = nabla.tensor(3.5)
    assert s[()].shape == () and s[()].item() == 3.5
    assert s[...].shape == () and s[None].shape == (1,) and s[None, ..., None].shape == (1, 1)
    with pytest.raises(IndexError):
        s[0]
    with pytest.raises(IndexError):
        s[:]


@pytest.mark.parametrize("idx", [5, -6, (0, 3), (slice(None), -4), (1, Ellipsis, 3), (Ellipsis, 7)])
def test_index_out_of_range_raises_index_error(idx):
    t = nabla.zeros(5, 3)
    with pytest.raises(IndexError, match="out of"):
        t[idx]
    with pytest.raises(IndexError):
        t[idx] = 1.0


@pytest.mark.parametrize("idx", [slice(None, None, 0), slice(None, None, -1), slice(3, 1, -1),
                                 (0, slice(None, None, -2))])
def test_non_positive_step_raises_value_error(idx):
    with pytest.raises(ValueError, match="step"):
        nabla.zeros(5, 3)[idx]


def test_multiple_ellipses_raise():
    with pytest.raises(IndexError):
        nabla.zeros(2, 3)[..., 0, ...]


@pytest.mark.parametrize("idx", [1.0, (0, 1.5), (slice(None), 2.0)])
def test_invalid_index_types_raise_index_error(idx):
    # NumPy and PyTorch: "only integers, slices (`:`), ellipsis (`...`), None ... are valid indices"
    with pytest.raises(IndexError):
        nabla.zeros(3, 3)[idx]


# ---- setitem ----

@pytest.mark.parametrize("dtype, np_dtype", [(nabla.float32, np.float32), (nabla.float64, np.float64),
                                             (nabla.int64, np.int64), (nabla.int16, np.int16),
                                             (nabla.uint8, np.uint8), (nabla.bool, np.bool_),
                                             (nabla.float16, np.float16)])
@pytest.mark.parametrize("idx, value", [
    (0, 7), ((1, 2), -3.75), ((slice(None), 1), 2.5), ((Ellipsis, 0), True), (Ellipsis, 0),
    ((slice(1, None, 2), slice(None, None, 3)), 1), ((None, 2), False), ((), 9),
])
def test_setitem_scalar(dtype, np_dtype, idx, value):
    t = nabla.zeros(4, 5, dtype=dtype)
    a = np.zeros((4, 5), dtype=np_dtype)
    t[idx] = value
    a[idx] = np.asarray(value).astype(np.float64).astype(np_dtype) if np_dtype is not np.bool_ else bool(value)
    np.testing.assert_array_equal(t.numpy(), a)


@pytest.mark.parametrize("idx, shape", [((slice(None),), (5,)), ((slice(None),), (4, 1)),
                                        ((slice(1, 3), slice(None)), (2, 5)), ((slice(1, 3),), (1, 5)),
                                        ((Ellipsis, slice(None, None, 2)), (3,)), ((0,), ()),
                                        ((None, slice(None), 1), (1, 4))])
def test_setitem_broadcasts_tensors_and_lists(idx, shape, rng):
    val = rng.integers(-9, 9, shape)
    t, a = nabla.zeros(4, 5, dtype=nabla.int32), np.zeros((4, 5), np.int32)
    t[idx] = nabla.tensor(val)
    a[idx] = val
    np.testing.assert_array_equal(t.numpy(), a)
    t2, a2 = nabla.zeros(4, 5), np.zeros((4, 5), np.float32)
    t2[idx] = val.tolist()
    a2[idx] = val
    np.testing.assert_array_equal(t2.numpy(), a2)


def test_setitem_converts_dtype():
    t = nabla.zeros(4, dtype=nabla.int32)
    t[:] = nabla.tensor([1.9, -1.9, 2.5, -0.5])
    assert t.tolist() == [1, -1, 2, 0]  # truncation toward zero
    b = nabla.zeros(3, dtype=nabla.bool)
    b[...] = nabla.tensor([0.0, -2.0, 0.25])
    assert b.tolist() == [False, True, True]


def test_setitem_through_views_reaches_base(rng):
    ab = rng.standard_normal((4, 6))
    tb = nabla.tensor(ab)
    v = tb.t()[1::2]  # (3, 4) view over columns 1, 3, 5
    v[0] = 100.0
    v[1:, 2] = nabla.tensor([5.0, 6.0])
    ab.T[1::2][0] = 100.0
    ab.T[1::2][1:, 2] = [5.0, 6.0]
    np.testing.assert_array_equal(tb.numpy(), ab)
    row = tb[2]
    row[...] = -1
    assert tb[2].tolist() == [-1.0] * 6


def test_setitem_shape_mismatch_raises():
    t = nabla.zeros(4, 5)
    with pytest.raises(RuntimeError):
        t[0] = nabla.ones(4)
    with pytest.raises(RuntimeError):
        t[:2] = [1.0, 2.0, 3.0]


def test_inplace_writes_bump_the_shared_version_counter():
    t = nabla.zeros(3, 3)
    v = t[1]
    before = t._version
    assert v._version == before
    v[0] = 1.0
    assert t._version > before and v._version == t._version
    mid = t._version
    t.fill_(2.0)
    assert v._version > mid


# ---- len / iteration ----

@pytest.mark.parametrize("shape", [(3,), (4, 2), (0, 3), (2, 0), (1, 2, 3)])
def test_len_and_iteration(shape, rng):
    ab = rng.standard_normal(shape)
    tb = nabla.tensor(ab)
    assert len(tb) == shape[0]
    rows = list(tb)
    assert len(rows) == shape[0]
    for r, ra in zip(rows, ab):
        assert isinstance(r, nabla.Tensor) and tuple(r.shape) == np.shape(ra)
        np.testing.assert_array_equal(r.numpy(), ra)
        assert storage_base(r) == storage_base(tb)
    if len(shape) == 2:  # iterating a non-contiguous view
        assert [x.tolist() for x in tb.t()] == ab.T.tolist()


def test_len_and_iter_of_zero_dim_raise():
    with pytest.raises(TypeError, match="0-d"):
        len(nabla.tensor(1))
    with pytest.raises(TypeError, match="0-d"):
        iter(nabla.tensor(1))


# ---- bool / float / int / index ----

@pytest.mark.parametrize("data, expected", [(0, False), (3, True), ([0.0], False), ([[-0.5]], True),
                                            (float("nan"), True), ([True], True), ([[[False]]], False)])
def test_bool_of_single_element(data, expected):
    assert bool(nabla.tensor(data)) is expected


@pytest.mark.parametrize("data, what", [([1, 2], "more than one value"), ([], "no values"),
                                        ([[0, 0]], "more than one value")])
def test_bool_of_other_sizes_raises(data, what):
    with pytest.raises(RuntimeError, match=f"^Boolean value of Tensor with {what} is ambiguous$"):
        bool(nabla.tensor(data))


@pytest.mark.parametrize("data, dtype, as_float, as_int", [
    (2.75, nabla.float32, 2.75, 2), (-2.75, nabla.float64, -2.75, -2), ([[7]], nabla.int8, 7.0, 7),
    (True, nabla.bool, 1.0, 1), (2 ** 62 + 1, nabla.int64, float(2 ** 62 + 1), 2 ** 62 + 1),
    (-3.99, nabla.float16, float(np.float16(-3.99)), -3), (1.5, nabla.bfloat16, 1.5, 1),
])
def test_float_and_int_of_single_element(data, dtype, as_float, as_int):
    t = nabla.tensor(data, dtype=dtype)
    f, i = float(t), int(t)
    assert type(f) is float and f == as_float
    assert type(i) is int and i == as_int


@pytest.mark.parametrize("conv", [float, int])
@pytest.mark.parametrize("data", [[1.0, 2.0], []])
def test_float_and_int_of_other_sizes_raise_value_error(conv, data):
    # PyTorch: ValueError("only one element tensors can be converted to Python scalars")
    with pytest.raises(ValueError):
        conv(nabla.tensor(data))


def test_index_protocol():
    seq = list(range(10, 20))
    assert seq[nabla.tensor(3)] == 13
    assert seq[nabla.tensor([[4]], dtype=nabla.int16)] == 14
    assert operator.index(nabla.tensor(200, dtype=nabla.uint8)) == 200
    assert operator.index(nabla.tensor(True)) == 1
    assert seq[nabla.tensor(1):nabla.tensor(3)] == [11, 12]
    assert nabla.arange(10)[nabla.tensor(2, dtype=nabla.int32):][0].item() == 2
    assert "%d" % nabla.tensor(-4) == "-4"


@pytest.mark.parametrize("data, dtype", [(3.0, nabla.float32), (1.0, nabla.float64), ([1, 2], nabla.int64),
                                         ([], nabla.int64), (2.0, nabla.bfloat16)])
def test_index_protocol_rejects_floats_and_non_scalars(data, dtype):
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        operator.index(nabla.tensor(data, dtype=dtype))
