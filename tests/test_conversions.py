"""dtype conversions (.to and the named casts) against NumPy, float16 and
bfloat16 rounding bit for bit, item/tolist/numpy, copy_, fill_, zero_."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
from conftest import NP_OF

NP_DTYPES = list(NP_OF)  # every dtype NumPy also has
INT_DTYPES = [nabla.int8, nabla.int16, nabla.int32, nabla.int64, nabla.uint8]
FLOAT_NP = [nabla.float16, nabla.float32, nabla.float64]


def source_values(rng, src, dst, n=500):
    """Values of dtype src that convert to dst without overflow or UB."""
    if src is nabla.bool:
        return rng.integers(0, 2, n).astype(np.bool_)
    if src in INT_DTYPES:
        info = np.iinfo(NP_OF[src])
        return rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64).astype(NP_OF[src])
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)
    a[:5] = [0.0, -0.0, 0.5, -0.5, 2.9999]
    if dst in INT_DTYPES:  # float -> int: in-range values only (truncation toward zero)
        info = np.iinfo(NP_OF[dst])
        a = np.clip(a, max(info.min, -60000), min(info.max, 60000))
    if src is nabla.float16 or (src is nabla.float64 and dst is nabla.float16):
        a = a.astype(np.float32)  # exact in the source; avoids double rounding questions
    return a.astype(NP_OF[src])


@pytest.mark.parametrize("dst", NP_DTYPES, ids=str)
@pytest.mark.parametrize("src", NP_DTYPES, ids=str)
@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_to_matches_numpy_astype(src, dst, rng):
    a = source_values(rng, src, dst)
    t = nabla.tensor(a)
    assert t.dtype is src
    r = t.to(dst)
    assert r.dtype is dst and r.shape == a.shape
    ref = a.astype(NP_OF[dst])
    np.testing.assert_array_equal(r.numpy(), ref)
    # through a non-contiguous view and the keyword form
    v = nabla.tensor(a.reshape(20, 25)).t()[::2]
    np.testing.assert_array_equal(v.to(dtype=dst).numpy(), a.reshape(20, 25).T[::2].astype(NP_OF[dst]))


@pytest.mark.parametrize("method, dtype", [
    ("float", nabla.float32), ("double", nabla.float64), ("half", nabla.float16), ("bfloat16", nabla.bfloat16),
    ("char", nabla.int8), ("short", nabla.int16), ("int", nabla.int32), ("long", nabla.int64),
    ("byte", nabla.uint8), ("bool", nabla.bool),
])
def test_named_casts(method, dtype):
    t = nabla.tensor([[0.0, 1.75], [-2.5, 100.0]], dtype=nabla.float64)
    r = getattr(t, method)()
    assert r.dtype is dtype and r.shape == (2, 2)
    if dtype is nabla.bfloat16:
        assert r.tolist() == [[0.0, 1.75], [-2.5, 100.0]]
    elif dtype is nabla.uint8:
        assert r.tolist() == [[0, 1], [254, 100]]  # -2.5 -> -2 -> wraps like NumPy/PyTorch
    else:
        assert r.numpy().tolist() == t.numpy().astype(NP_OF[dtype]).tolist()


@pytest.mark.parametrize("dtype", [nabla.int8, nabla.int16, nabla.int32, nabla.int64])
def test_float_to_int_truncates_toward_zero(dtype):
    vals = [-100.99, -2.9, -2.5, -1.0000001, -0.99, -0.0, 0.0, 0.5, 0.99, 1.5, 2.5, 99.9]
    for fdt in FLOAT_NP + [nabla.bfloat16]:
        t = nabla.tensor(vals, dtype=fdt)
        exact = t.double().tolist()
        assert t.to(dtype).tolist() == [int(v) for v in exact]


def test_to_bool_is_nonzero():
    t = nabla.tensor([0.0, -0.0, 1e-30, -2.0, float("nan"), float("inf")])
    assert t.bool().tolist() == [False, False, True, True, True, True]
    assert nabla.tensor([0, 5, -1, 256], dtype=nabla.int64).bool().tolist() == [False, True, True, True]
    assert nabla.tensor([1e-45], dtype=nabla.float32).bool().item() is True  # a subnormal is non-zero
    assert nabla.tensor([0.0, 0.5]).bfloat16().bool().tolist() == [False, True]


def test_to_variants_and_aliasing():
    t = nabla.tensor([1.0, 2.0])
    assert t.to(nabla.float32) is t  # nothing changes: the tensor itself, as in PyTorch
    assert t.to("cpu") is t and t.cpu() is t and t.to(t) is t and t.float() is t
    copied = t.to(nabla.float32, copy=True)
    assert copied.data_ptr() != t.data_ptr() and copied.tolist() == [1.0, 2.0]
    assert t.to("cpu", nabla.float64).dtype is nabla.float64
    assert t.to(nabla.device("cpu"), dtype=nabla.int16).dtype is nabla.int16
    assert t.to(nabla.tensor([1], dtype=nabla.int8)).dtype is nabla.int8
    assert t.type_as(nabla.zeros(1, dtype=nabla.float16)).dtype is nabla.float16
    assert nabla.float is nabla.float32 and nabla.double is nabla.float64 and nabla.half is nabla.float16
    assert nabla.long is nabla.int64 and nabla.int is nabla.int32 and nabla.short is nabla.int16
    with pytest.raises(TypeError):
        t.to(nabla.float32, bogus=True)
    with pytest.raises(TypeError):
        t.to(3.5)


# ---- float16: bit-exact against NumPy ----

def _f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


F16_SPECIAL = _f32([
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x00000001,
    0x33000000, 0x33000001, 0x337FFFFF, 0x33400000, 0x33C00000, 0x34200000,  # around 2^-25 / 2^-24 (subnormal ties)
    0x387FC000, 0x387FE000, 0x38800000, 0x38000000,  # subnormal/normal boundary (2^-14)
    0x3F801000, 0x3F803000, 0x3F801001, 0x3F802FFF,  # 1 + k*2^-11: ties to even and just off them
    0x477FE000, 0x477FEFFF, 0x477FF000, 0x47800000,  # 65504, 65519.99, 65520 (-> inf), 65536
])


def test_float16_rounding_bit_exact(rng):
    bits = rng.integers(0, 2 ** 32, 100_000, dtype=np.uint64).astype(np.uint32)
    # bias towards the float16 range (exponents 2^-30 .. 2^17)
    near = (rng.integers(97, 145, 100_000).astype(np.uint32) << 23) | (bits & 0x807FFFFF)
    f = np.concatenate([F16_SPECIAL, -F16_SPECIAL, _f32(bits), _f32(near)])
    nan = np.isnan(f)
    got = nabla.tensor(f).half().numpy()
    with np.errstate(over="ignore"):
        ref = f.astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got[~nan].view(np.uint16), ref[~nan].view(np.uint16))
    assert np.isnan(got[nan]).all()
    # also through float64 sources (exact float32 values) and copy_ into a float16 tensor
    got64 = nabla.tensor(f[~nan].astype(np.float64)).half().numpy()
    np.testing.assert_array_equal(got64.view(np.uint16), ref[~nan].view(np.uint16))
    dst = nabla.empty(len(f), dtype=nabla.float16)
    dst.copy_(nabla.tensor(f))
    np.testing.assert_array_equal(dst.numpy()[~nan].view(np.uint16), ref[~nan].view(np.uint16))


def test_float16_widening_is_exact_for_every_value():
    h = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    nan = np.isnan(h)
    t = nabla.tensor(h)
    for dt, np_dt, u in [(nabla.float32, np.float32, np.uint32), (nabla.float64, np.float64, np.uint64)]:
        w = t.to(dt).numpy()
        np.testing.assert_array_equal(w[~nan].view(u), h[~nan].astype(np_dt).view(u))
        assert np.isnan(w[nan]).all()


# ---- bfloat16: against a round-to-nearest-even reference ----

def bf16_reference(f: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, round to nearest even; NaN stays a (quiet) NaN."""
    b = f.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    rounded[nan] = ((b[nan] >> 16) | 0x40).astype(np.uint16)
    return rounded


def bf16_bits(t) -> np.ndarray:
    w = t.float().numpy().view(np.uint32)
    assert not (w & 0xFFFF).any()  # a bfloat16 widened to float32 has zero low bits
    return (w >> 16).astype(np.uint16)


def test_bfloat16_rounding_matches_reference(rng):
    bits = rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32)
    special = _f32([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0x00008000, 0x00018000,
                    0x3F808000, 0x3F818000, 0x3F808001, 0x3F817FFF, 0x7F7F8000, 0x7F800001, 0xFF800001,
                    0x7FC00000, 0x7F80FFFF, 0x7FFFFFFF])
    f = np.concatenate([special, _f32(bits)])
    nan = np.isnan(f)
    t = nabla.tensor(f).bfloat16()
    assert t.dtype is nabla.bfloat16 and t.element_size() == 2
    got, ref = bf16_bits(t), bf16_reference(f)
    np.testing.assert_array_equal(got[~nan], ref[~nan])
    assert np.isnan(t.float().numpy()[nan]).all()  # NaN stays NaN (never becomes inf)
    # float64 sources holding float32 values round the same way
    np.testing.assert_array_equal(bf16_bits(nabla.tensor(f[~nan].astype(np.float64)).bfloat16()), ref[~nan])


def test_bfloat16_widening_is_exact():
    hi = np.arange(2 ** 16, dtype=np.uint32) << 16
    f = hi.view(np.float32)
    nan = np.isnan(f)
    t = nabla.tensor(f).bfloat16()
    np.testing.assert_array_equal(bf16_bits(t)[~nan], (hi[~nan] >> 16).astype(np.uint16))
    np.testing.assert_array_equal(t.double().numpy()[~nan], f[~nan].astype(np.float64))
    assert np.isnan(t.double().numpy()[nan]).all()


def test_bfloat16_matches_torch(rng):
    torch = pytest.importorskip("torch")
    f = _f32(rng.integers(0, 2 ** 32, 50_000, dtype=np.uint64).astype(np.uint32))
    f = f[~np.isnan(f)]
    ours = bf16_bits(nabla.tensor(f).bfloat16())
    theirs = torch.from_numpy(f).bfloat16().view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(ours, theirs)


# ---- item / tolist / numpy ----

@pytest.mark.parametrize("value, dtype, kind", [
    (2.5, nabla.float32, float), (0.1, nabla.float64, float), (-3.0, nabla.float16, float), (1.5, nabla.bfloat16, float),
    (2 ** 63 - 1, nabla.int64, int), (-2 ** 63, nabla.int64, int), (2 ** 53 + 1, nabla.int64, int),
    (-7, nabla.int8, int), (255, nabla.uint8, int), (-32768, nabla.int16, int), (2 ** 31 - 1, nabla.int32, int),
    (True, nabla.bool, bool), (False, nabla.bool, bool),
])
def test_item_returns_exact_python_scalars(value, dtype, kind):
    t = nabla.tensor([[value]], dtype=dtype)
    v = t.item()
    assert type(v) is kind and v == value
    assert type(t.tolist()[0][0]) is kind and t.tolist() == [[value]]
    assert nabla.tensor(value, dtype=dtype).tolist() == value


def test_item_of_other_sizes_raises():
    for data in ([1, 2], [], [[1.0], [2.0]]):
        with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
            nabla.tensor(data).item()


def test_tolist_nested(rng):
    a = rng.standard_normal((2, 3, 4))
    t = nabla.tensor(a)
    assert t.tolist() == a.tolist()
    assert t.transpose(0, 2)[1:].tolist() == a.transpose(2, 1, 0)[1:].tolist()
    assert nabla.zeros(2, 0).tolist() == [[], []]
    assert nabla.tensor([[1, 2]], dtype=nabla.int16).tolist() == [[1, 2]]
    assert nabla.tensor([0.5, 1.25]).bfloat16().tolist() == [0.5, 1.25]


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=str)
def test_numpy_dtype_mapping_and_sharing_semantics(dtype, rng):
    a = (rng.standard_normal((3, 5)) * 20).astype(NP_OF[dtype])
    t = nabla.tensor(a)  # nabla.tensor copies
    a_copy = a.copy()
    a[...] = 0
    n = t.numpy()
    assert n.dtype == NP_OF[dtype] and n.shape == (3, 5) and n.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(n, a_copy)
    v = t.t()[1:]
    np.testing.assert_array_equal(v.numpy(), a_copy.T[1:])
    np.testing.assert_array_equal(np.asarray(v), a_copy.T[1:])
    np.testing.assert_array_equal(np.array(t, dtype=np.float64), a_copy.astype(np.float64))
    assert nabla.tensor(a[0, 0]).numpy().shape == ()
    n[...] = 0  # numpy() shares memory, as in PyTorch: the tensor sees the write
    assert not t.any().item()


def test_numpy_of_bfloat16_raises_type_error():
    with pytest.raises(TypeError, match="BFloat16"):
        nabla.ones(2, dtype=nabla.bfloat16).numpy()
    with pytest.raises(TypeError):
        np.asarray(nabla.ones(2, dtype=nabla.bfloat16))


# ---- copy_ / fill_ / zero_ ----

@pytest.mark.parametrize("dst_dtype", [nabla.float32, nabla.int32, nabla.float16, nabla.uint8, nabla.bool])
@pytest.mark.parametrize("src_shape", [(3, 4), (4,), (1, 4), (3, 1), ()])
def test_copy_converts_and_broadcasts(dst_dtype, src_shape, rng):
    src = rng.uniform(-0.5, 200, src_shape).astype(np.float32).astype(np.float64)  # in range for uint8
    dst = nabla.zeros(4, 3, dtype=dst_dtype).t()  # a non-contiguous destination (3, 4)
    r = dst.copy_(nabla.tensor(src))
    assert r is dst
    np.testing.assert_array_equal(dst.numpy(), np.broadcast_to(src, (3, 4)).astype(NP_OF[dst_dtype]))


def test_copy_from_non_contiguous_and_python_values(rng):
    a = rng.standard_normal((5, 6))
    src = nabla.tensor(a)[::2, 1::2]  # (3, 3)
    dst = nabla.empty(3, 3, dtype=nabla.float64)
    dst.copy_(src.t())
    np.testing.assert_array_equal(dst.numpy(), a[::2, 1::2].T)
    dst.copy_(1.5)
    assert dst.tolist() == [[1.5] * 3] * 3
    dst.copy_([1, 2, 3])
    assert dst.tolist() == [[1.0, 2.0, 3.0]] * 3


@pytest.mark.parametrize("src_shape", [(5,), (2, 3, 4), (3, 2)])
def test_copy_incompatible_shape_raises(src_shape):
    with pytest.raises(RuntimeError, match="broadcast"):
        nabla.zeros(3, 4).copy_(nabla.ones(src_shape))


@pytest.mark.parametrize("dtype", NP_DTYPES + [nabla.bfloat16], ids=str)
def test_fill_and_zero(dtype):
    t = nabla.ones(4, 5, dtype=dtype)
    v = t[1:3, ::2]
    assert v.fill_(3) is v
    ref = np.ones((4, 5))
    ref[1:3, ::2] = 1 if dtype is nabla.bool else 3
    assert t.double().tolist() == ref.tolist()
    t.t()[0].fill_(nabla.tensor(0.0))  # a 0-dim tensor value
    ref[:, 0] = 0
    assert t.double().tolist() == ref.tolist()
    assert t.zero_() is t
    assert t.double().tolist() == np.zeros((4, 5)).tolist()


def test_fill_converts_like_a_cast():
    assert nabla.zeros(2, dtype=nabla.int32).fill_(-2.9).tolist() == [-2, -2]
    assert nabla.zeros(2, dtype=nabla.bool).fill_(0.25).tolist() == [True, True]
    # PyTorch refuses a fill value the dtype cannot hold ("value cannot be converted ... without overflow")
    with pytest.raises(RuntimeError, match="overflow"):
        nabla.zeros(1, dtype=nabla.float16).fill_(65520.0)
    assert nabla.zeros(1, dtype=nabla.float16).fill_(65504.0).item() == 65504.0
    assert nabla.zeros(1, dtype=nabla.uint8).fill_(-3).item() == 253  # negative values down to -255 wrap
    assert nabla.zeros(1, dtype=nabla.int64).fill_(2 ** 62 + 1).item() == 2 ** 62 + 1


@pytest.mark.parametrize("value", [nabla.tensor([2.5]), nabla.tensor([1.0, 2.0, 3.0])])
def test_fill_rejects_non_zero_dim_tensors(value):
    # PyTorch: "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions."
    with pytest.raises(RuntimeError):
        nabla.zeros(3).fill_(value)
