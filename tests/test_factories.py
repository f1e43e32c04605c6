"""Tensor factories: nabla.tensor dtype inference, zeros/ones/empty/full, arange,
linspace, eye, *_like, the default dtype and size arguments."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
from conftest import NP_OF

ALL_DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8, nabla.int16,
              nabla.int32, nabla.int64, nabla.uint8, nabla.bool]
FLOAT_DTYPES = [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16]


def values(t):
    """t's values as a NumPy array (bfloat16 via float32, which holds it exactly)."""
    return (t.float() if t.dtype is nabla.bfloat16 else t).numpy()


# ---- nabla.tensor: inference ----

@pytest.mark.parametrize("data, dtype", [
    (True, nabla.bool), ([True, False], nabla.bool), ([[False], [True]], nabla.bool),
    (7, nabla.int64), ([1, 2, 3], nabla.int64), ([[-1, 2], [3, -4]], nabla.int64),
    (1.5, nabla.float32), ([0.5, 2.0], nabla.float32),
    ([1, 2.5], nabla.float32), ([[1, 2], [3, 4.0]], nabla.float32),
    ([True, 2], nabla.int64), ([True, 2.5], nabla.float32),
])
def test_tensor_infers_dtype_from_python_values(data, dtype):
    t = nabla.tensor(data)
    assert t.dtype is dtype
    ref = np.asarray(data, dtype=NP_OF[dtype])
    assert tuple(t.shape) == ref.shape
    np.testing.assert_array_equal(t.numpy(), ref)


@pytest.mark.parametrize("np_dtype, dtype", [
    (np.float64, nabla.float64), (np.float32, nabla.float32), (np.float16, nabla.float16),
    (np.int64, nabla.int64), (np.int32, nabla.int32), (np.int16, nabla.int16), (np.int8, nabla.int8),
    (np.uint8, nabla.uint8), (np.bool_, nabla.bool),
])
def test_tensor_keeps_numpy_dtype(np_dtype, dtype, rng):
    a = (rng.standard_normal((3, 4)) * 50).astype(np_dtype)
    t = nabla.tensor(a)
    assert t.dtype is dtype
    assert t.numpy().dtype == a.dtype
    np.testing.assert_array_equal(t.numpy(), a)
    # a NumPy scalar keeps its dtype too
    s = nabla.tensor(a[1, 2])
    assert s.dtype is dtype and s.shape == () and s.item() == a[1, 2].item()


@pytest.mark.parametrize("np_dtype", [np.uint16, np.uint32, np.uint64, np.complex64, np.complex128])
def test_tensor_rejects_unsupported_numpy_dtypes(np_dtype):
    with pytest.raises(TypeError):
        nabla.tensor(np.zeros(3, dtype=np_dtype))


@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1], [2, 3]], [1, [2]], [[[1, 2]], [[1]]]])
def test_tensor_ragged_lists_raise_value_error(data):
    with pytest.raises(ValueError):
        nabla.tensor(data)


def test_tensor_non_numeric_data_raises_type_error():
    with pytest.raises(TypeError):
        nabla.tensor("abc")
    with pytest.raises(TypeError):
        nabla.tensor([1 + 2j])


@pytest.mark.parametrize("data", [2 ** 63, -2 ** 63 - 1, [2 ** 64], [1, 2 ** 63], [-2 ** 63 - 1], [[0], [2 ** 63]],
                                  [[1, 2 ** 64]]])
def test_tensor_python_ints_beyond_int64_raise_overflow(data):
    # PyTorch: "Overflow when unpacking long long"; never a silent float conversion
    with pytest.raises((RuntimeError, ValueError, OverflowError), match="(?i)overflow"):
        nabla.tensor(data)


def test_tensor_int64_extremes_are_exact():
    data = [-2 ** 63, 2 ** 63 - 1, 2 ** 53 + 1, -(2 ** 62) - 3]
    t = nabla.tensor(data)
    assert t.dtype is nabla.int64
    assert t.tolist() == data
    assert [x.item() for x in t] == data


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tensor_explicit_dtype(dtype):
    data = [[0, 1, -2], [3.75, 100, -0.5]]
    t = nabla.tensor(data, dtype=dtype)
    assert t.dtype is dtype and t.shape == (2, 3)
    if dtype is nabla.bfloat16:  # every value is exact in bfloat16
        ref = np.asarray(data, dtype=np.float32)
    else:
        ref = np.asarray(data, dtype=np.float64).astype(NP_OF[dtype])
    np.testing.assert_array_equal(values(t), ref)
    # 0-dim with an explicit dtype
    s = nabla.tensor(3, dtype=dtype)
    assert s.dtype is dtype and s.shape == () and s.ndim == 0 and s.numel() == 1
    assert s.item() == (True if dtype is nabla.bool else 3)


def test_tensor_rejects_non_dtype():
    with pytest.raises(TypeError):
        nabla.tensor([1], dtype="float32")
    with pytest.raises(TypeError):
        nabla.tensor([1], dtype=np.float32)


@pytest.mark.parametrize("data, shape, dtype", [
    ([], (0,), nabla.float32), ([[]], (1, 0), nabla.float32), ([[], []], (2, 0), nabla.float32),
    (np.zeros((2, 0), np.int32), (2, 0), nabla.int32), (np.zeros((0, 3, 2)), (0, 3, 2), nabla.float64),
])
def test_tensor_empty_inputs(data, shape, dtype):
    t = nabla.tensor(data)
    assert t.shape == shape and t.dtype is dtype and t.numel() == 0
    assert t.numpy().shape == shape and t.tolist() == np.zeros(shape).tolist()


def test_tensor_zero_dim():
    t = nabla.tensor(2.5)
    assert t.shape == () and t.ndim == 0 and t.dim() == 0 and t.numel() == 1 and t.stride() == ()
    assert t.item() == 2.5 and t.tolist() == 2.5


def test_tensor_copies_its_source(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    t = nabla.tensor(a)
    a[:] = 0
    assert t.numpy().any()
    # a non-contiguous NumPy array is read in logical order
    b = rng.standard_normal((4, 6))[::2, 1::2].T
    np.testing.assert_array_equal(nabla.tensor(b).numpy(), b)
    # tensor(tensor) copies too
    u = nabla.tensor(t)
    assert u.data_ptr() != t.data_ptr()
    u.zero_()
    assert t.numpy().any()
    assert nabla.tensor(t, dtype=nabla.float64).dtype is nabla.float64


def test_tensor_class_constructor():
    # like torch.Tensor: sizes give an uninitialised tensor, data gives a copy; both in the default dtype
    assert nabla.Tensor(2, 3).shape == (2, 3) and nabla.Tensor(2, 3).dtype is nabla.float32
    assert nabla.Tensor(nabla.Size([4, 1])).shape == (4, 1)
    t = nabla.Tensor([1, 2])
    assert t.dtype is nabla.float32 and t.tolist() == [1.0, 2.0]
    t = nabla.Tensor((2, 3))  # a tuple is data, not a size (torch.Tensor((2, 3)) is tensor([2., 3.]))
    assert t.shape == (2,) and t.tolist() == [2.0, 3.0]


# ---- zeros / ones / empty / full ----

@pytest.mark.parametrize("size_args", [(2, 3), ((2, 3),), ([2, 3],), (nabla.Size([2, 3]),),
                                       (np.int64(2), 3), ((np.int32(2), 3),)])
@pytest.mark.parametrize("fn", [nabla.zeros, nabla.ones, nabla.empty])
def test_size_forms(fn, size_args):
    t = fn(*size_args)
    assert t.shape == (2, 3) and isinstance(t.shape, nabla.Size)
    assert t.dtype is nabla.float32 and t.is_contiguous() and t.stride() == (3, 1)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 0, 3), (2, 3, 4), (1, 1, 1, 7)])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_zeros_ones_full_values(shape, dtype):
    z, o = nabla.zeros(shape, dtype=dtype), nabla.ones(shape, dtype=dtype)
    e = nabla.empty(shape, dtype=dtype)
    for t in (z, o, e):
        assert t.shape == shape and t.dtype is dtype and t.numel() == math.prod(shape)
    np.testing.assert_array_equal(values(z), np.zeros(shape))
    np.testing.assert_array_equal(values(o), np.ones(shape))
    f = nabla.full(shape, 1 if dtype is nabla.bool else 5, dtype=dtype)
    np.testing.assert_array_equal(values(f), np.full(shape, 1 if dtype is nabla.bool else 5))


@pytest.mark.parametrize("fill, dtype", [(True, nabla.bool), (False, nabla.bool), (3, nabla.int64),
                                         (-(2 ** 62) - 1, nabla.int64), (2.5, nabla.float32),
                                         (np.int32(4), nabla.int64), (np.float64(0.25), nabla.float32)])
def test_full_infers_dtype_from_fill_value(fill, dtype):
    t = nabla.full((2, 3), fill)
    assert t.dtype is dtype
    assert t.tolist() == [[fill] * 3] * 2
    assert nabla.full((), fill).item() == fill


def test_full_uses_default_dtype_for_floats():
    nabla.set_default_dtype(nabla.float64)
    t = nabla.full((2,), 0.1)
    assert t.dtype is nabla.float64 and t.tolist() == [0.1, 0.1]
    assert nabla.full((2,), 1).dtype is nabla.int64


@pytest.mark.parametrize("fill, dtype", [(300, nabla.uint8), (-129, nabla.int8), (2 ** 40, nabla.int32),
                                         (1e10, nabla.int32), (40000, nabla.int16)])
def test_full_value_out_of_range_of_dtype_raises(fill, dtype):
    # PyTorch: "value cannot be converted to type ... without overflow", not a silent wrap
    with pytest.raises(RuntimeError, match="overflow"):
        nabla.full((2,), fill, dtype=dtype)


@pytest.mark.parametrize("fn", [lambda s: nabla.zeros(s), lambda s: nabla.ones(s), lambda s: nabla.empty(s),
                                lambda s: nabla.full(s, 1.0), lambda s: nabla.zeros(*s)])
@pytest.mark.parametrize("shape", [(-1,), (2, -3), (0, -1)])
def test_negative_sizes_raise(fn, shape):
    with pytest.raises(RuntimeError, match="negative dimension"):
        fn(shape)


@pytest.mark.parametrize("call", [lambda: nabla.zeros(2.0), lambda: nabla.zeros((2, 3.0)),
                                  lambda: nabla.ones([2.5]), lambda: nabla.empty(2, 3.5),
                                  lambda: nabla.full((2.0,), 1), lambda: nabla.zeros("2")])
def test_float_sizes_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


# ---- arange ----

@pytest.mark.parametrize("args, dtype", [
    ((5,), nabla.int64), ((2, 9), nabla.int64), ((10, 0, -3), nabla.int64), ((-5, 5, 2), nabla.int64),
    ((5.0,), nabla.float32), ((0, 1, 0.1), nabla.float32), ((1, 2.5, 0.5), nabla.float32),
    ((0, 0.3, 0.1), nabla.float32), ((1.0, -1.0, -0.25), nabla.float32), ((0, 10, 3), nabla.int64),
    ((3, 3), nabla.int64), ((0.5, 0.5, 0.1), nabla.float32), ((-1.2, 3.7, 0.7), nabla.float32),
])
def test_arange_matches_numpy(args, dtype):
    t = nabla.arange(*args)
    assert t.dtype is dtype and t.ndim == 1
    ref = np.arange(*[float(a) for a in args])  # float64 reference; count like numpy/torch
    assert t.shape == ref.shape
    if dtype is nabla.int64:
        assert t.tolist() == [int(v) for v in ref]
    else:
        np.testing.assert_allclose(t.numpy(), ref.astype(np.float32), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("start, end, step", [(0, 1, 0.1), (0, 2, 0.3), (-3, 4, 0.7), (1, 0, -0.13),
                                              (0, 1e6, 12345.6)])
def test_arange_float64_element_count_and_values(start, end, step):
    t = nabla.arange(start, end, step, dtype=nabla.float64)
    ref = np.arange(start, end, step, dtype=np.float64)
    assert t.shape == ref.shape == (math.ceil((end - start) / step),)
    np.testing.assert_allclose(t.numpy(), ref, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("dtype", [nabla.int32, nabla.float64, nabla.float16, nabla.bfloat16, nabla.int8])
def test_arange_explicit_dtype(dtype):
    t = nabla.arange(0, 10, 2, dtype=dtype)
    assert t.dtype is dtype
    np.testing.assert_array_equal(values(t), [0, 2, 4, 6, 8])


def test_arange_uses_default_dtype():
    nabla.set_default_dtype(nabla.float64)
    assert nabla.arange(0.5, 2).dtype is nabla.float64
    assert nabla.arange(3).dtype is nabla.int64


@pytest.mark.parametrize("args", [(0, 10, 0), (0, 10, 0.0), (0, 10, -1), (10, 0, 1), (0.0, -1.0, 0.5)])
def test_arange_bad_step_raises(args):
    with pytest.raises(RuntimeError):
        nabla.arange(*args)


def test_arange_matches_torch():
    torch = pytest.importorskip("torch")
    for args in [(0, 1, 0.1), (-2.5, 7.25, 0.37), (10, -3, -1.5), (0, 5), (1, 100, 7)]:
        ours, theirs = nabla.arange(*args, dtype=nabla.float64), torch.arange(*args, dtype=torch.float64)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14, atol=1e-14)
        assert nabla.arange(*args).shape == tuple(torch.arange(*args).shape)


# ---- linspace ----

@pytest.mark.parametrize("start, end, steps", [(0, 1, 5), (-3, 7, 11), (1, -1, 4), (0, 1, 2), (2.5, 2.5, 3),
                                               (0, 1000, 101), (-1e3, 1e-3, 17)])
def test_linspace_matches_numpy(start, end, steps):
    t = nabla.linspace(start, end, steps)
    assert t.dtype is nabla.float32 and t.shape == (steps,)
    ref = np.linspace(start, end, steps)
    np.testing.assert_allclose(t.numpy(), ref.astype(np.float32), rtol=1e-6, atol=1e-6)
    d = nabla.linspace(start, end, steps, dtype=nabla.float64).numpy()
    np.testing.assert_allclose(d, ref, rtol=1e-14, atol=1e-14)
    assert d[0] == start and d[-1] == end  # both endpoints exact


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linspace_is_bit_exact_with_torch(dtype):
    # one fused multiply-add per value, float32 in float: histogram edges then agree with PyTorch's
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    for _ in range(300):
        start, end = rng.standard_normal(2) * 10.0 ** rng.integers(-3, 4, 2)
        steps = int(rng.integers(1, 70))
        np.testing.assert_array_equal(nabla.linspace(start, end, steps, dtype=getattr(nabla, dtype)).numpy(),
                                      torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).numpy())


@pytest.mark.parametrize("start, end", [(0, 1), (-2.5, 10), (3, 3)])
def test_linspace_steps_zero_and_one(start, end):
    assert nabla.linspace(start, end, 0).shape == (0,)
    one = nabla.linspace(start, end, 1)
    assert one.shape == (1,)
    assert one.tolist() == np.linspace(start, end, 1).tolist() == [start]  # the start, like numpy/torch


def test_linspace_negative_steps_raise():
    with pytest.raises(RuntimeError, match="non-negative"):
        nabla.linspace(0, 1, -1)


def test_linspace_matches_torch_float64():
    torch = pytest.importorskip("torch")
    for args in [(0, 1, 7), (-3.3, 9.1, 50), (5, -5, 13), (0, 1, 1), (0, 1, 0)]:
        ours, theirs = nabla.linspace(*args, dtype=nabla.float64), torch.linspace(*args, dtype=torch.float64)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14, atol=1e-14)


# ---- eye ----

@pytest.mark.parametrize("n, m", [(0, None), (1, None), (4, None), (2, 5), (5, 2), (3, 0)])
@pytest.mark.parametrize("dtype", [None, nabla.int64, nabla.bool, nabla.float16, nabla.bfloat16])
def test_eye(n, m, dtype):
    t = nabla.eye(n, m, dtype=dtype) if m is not None else nabla.eye(n, dtype=dtype)
    assert t.dtype is (dtype or nabla.float32)
    np.testing.assert_array_equal(values(t), np.eye(n, m))


def test_eye_negative_raises():
    with pytest.raises(RuntimeError):
        nabla.eye(-1)
    with pytest.raises(RuntimeError):
        nabla.eye(2, -3)


# ---- *_like ----

@pytest.mark.parametrize("dtype", [nabla.float64, nabla.int32, nabla.bool, nabla.bfloat16])
def test_like_factories(dtype, rng):
    src = nabla.tensor(rng.standard_normal((3, 4, 2))).to(dtype).transpose(0, 2)  # non-contiguous
    for t in (nabla.zeros_like(src), nabla.ones_like(src), nabla.empty_like(src), nabla.full_like(src, 1)):
        # preserve_format (torch's default): a dense input's strides are kept
        assert t.shape == (2, 4, 3) and t.dtype is dtype and t.stride() == src.stride()
        assert t.data_ptr() != src.data_ptr()
    np.testing.assert_array_equal(values(nabla.zeros_like(src)), np.zeros((2, 4, 3)))
    np.testing.assert_array_equal(values(nabla.ones_like(src)), np.ones((2, 4, 3)))
    np.testing.assert_array_equal(values(nabla.full_like(src, 1)), np.ones((2, 4, 3)))
    assert nabla.zeros_like(src, dtype=nabla.int8).dtype is nabla.int8
    assert nabla.full_like(src, 7, dtype=nabla.int16).tolist() == np.full((2, 4, 3), 7).tolist()


def test_like_requires_a_tensor():
    with pytest.raises(TypeError):
        nabla.zeros_like(np.zeros(3))


# ---- default dtype ----

@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_set_default_dtype(dtype):
    assert nabla.get_default_dtype() is nabla.float32
    nabla.set_default_dtype(dtype)
    assert nabla.get_default_dtype() is dtype
    for t in (nabla.tensor(1.5), nabla.tensor([1, 2.5]), nabla.tensor([0.5, 1.5]), nabla.tensor([0.25] * 5000),
              nabla.tensor([[0.5]]), nabla.zeros(2), nabla.ones(1), nabla.empty(3),
              nabla.arange(0.0, 2.0), nabla.linspace(0, 1, 3), nabla.eye(2), nabla.full((1,), 0.5)):
        assert t.dtype is dtype
    assert nabla.tensor(3).dtype is nabla.int64 and nabla.tensor([3, 4]).dtype is nabla.int64
    vals = [0.1, -2.7, 1e-3, 12345.678]
    expect = np.asarray(vals, dtype=np.float32 if dtype is nabla.bfloat16 else np.float64)
    if dtype is nabla.bfloat16:  # reference: float32 then round to nearest even on the top 16 bits
        b = expect.view(np.uint32).astype(np.uint64)
        expect = (((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)
    else:
        expect = expect.astype(NP_OF[dtype])
    assert nabla.tensor(vals).tolist() == expect.astype(np.float64).tolist()
    assert nabla.tensor(np.zeros(2, np.float32)).dtype is nabla.float32  # NumPy keeps its own dtype
    assert nabla.tensor(np.zeros(2)).dtype is nabla.float64


@pytest.mark.parametrize("bad", [nabla.int32, nabla.int64, nabla.bool, "float64", np.float64])
def test_set_default_dtype_rejects_non_float(bad):
    with pytest.raises(TypeError):
        nabla.set_default_dtype(bad)
    assert nabla.get_default_dtype() is nabla.float32
