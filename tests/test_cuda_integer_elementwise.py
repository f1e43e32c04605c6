"""Integer and bool elementwise ops and where() on the CUDA device, against nabla's
CPU kernels (exact: integers have one right answer) and PyTorch. Integers compute in
int64 on the device and wrap like the CPU; narrower dtypes are narrowed on the way
out. Covers broadcast, transposed and sliced operands, Python scalars (int64 values
past 2**53 stay exact), 0-dim, empty, out= and in-place, and where() of every dtype."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")

INTS = ["int8", "int16", "int32", "int64", "uint8"]
ALL = ["float32", "float64", "float16", "bfloat16", *INTS, "bool"]


def values(shape, dtype, seed, nonzero=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "uint8":
        arr = rng.integers(0, 256, size=shape)
    elif dtype in ("int8",):
        arr = rng.integers(-128, 128, size=shape)
    elif dtype == "int16":
        arr = rng.integers(-300, 300, size=shape)
    elif dtype in ("int32", "int64"):
        arr = rng.integers(-(10**6), 10**6, size=shape)
    else:
        arr = rng.standard_normal(shape) * 4
    if nonzero:
        arr = np.where(arr == 0, 3, arr)
    return arr.astype(np.float32 if dtype in ("float16", "bfloat16") else dtype)


def pair(arr, dtype):
    """A nabla CPU tensor, its CUDA copy and the torch CPU tensor of the same values."""
    cpu = nabla.tensor(arr).to(getattr(nabla, dtype))
    return cpu, cpu.to("cuda"), torch.tensor(arr).to(getattr(torch, dtype))


def same(cuda_result, cpu_result):
    got = cuda_result.cpu()
    assert got.dtype == cpu_result.dtype
    assert tuple(got.shape) == tuple(cpu_result.shape)
    np.testing.assert_array_equal(got.to(nabla.float64).numpy() if got.dtype in (nabla.float16, nabla.bfloat16)
                                  else got.numpy(),
                                  cpu_result.to(nabla.float64).numpy() if got.dtype in (nabla.float16, nabla.bfloat16)
                                  else cpu_result.numpy())


def matches_torch(result, expected):
    got = result.cpu().numpy()
    np.testing.assert_array_equal(got, expected.numpy())
    assert str(result.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]


BINARY = {  # name: (fn taking the module, whether b must be nonzero)
    "add": (lambda m, a, b: m.add(a, b, alpha=3), False),
    "sub": (lambda m, a, b: m.sub(a, b, alpha=2), False),
    "mul": (lambda m, a, b: a * b, False),
    "floor_divide": (lambda m, a, b: m.floor_divide(a, b), True),
    "div_trunc": (lambda m, a, b: m.div(a, b, rounding_mode="trunc"), True),
    "remainder": (lambda m, a, b: m.remainder(a, b), True),
    "fmod": (lambda m, a, b: m.fmod(a, b), True),
    "maximum": (lambda m, a, b: m.maximum(a, b), False),
    "minimum": (lambda m, a, b: m.minimum(a, b), False),
    "eq": (lambda m, a, b: a == b, False),
    "ne": (lambda m, a, b: a != b, False),
    "lt": (lambda m, a, b: a < b, False),
    "le": (lambda m, a, b: a <= b, False),
    "gt": (lambda m, a, b: a > b, False),
    "ge": (lambda m, a, b: a >= b, False),
    "logical_and": (lambda m, a, b: m.logical_and(a, b), False),
    "logical_or": (lambda m, a, b: m.logical_or(a, b), False),
    "logical_xor": (lambda m, a, b: m.logical_xor(a, b), False),
}
BOOL_BINARY = ["add", "mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
               "logical_xor"]

UNARY = {
    "neg": lambda m, x: -x,
    "abs": lambda m, x: m.abs(x),
    "sign": lambda m, x: m.sign(x),
    "square": lambda m, x: m.square(x),
    "floor": lambda m, x: m.floor(x),
    "ceil": lambda m, x: m.ceil(x),
    "round": lambda m, x: m.round(x),
    "trunc": lambda m, x: m.trunc(x),
    "logical_not": lambda m, x: m.logical_not(x),
    "isnan": lambda m, x: m.isnan(x),
    "isinf": lambda m, x: m.isinf(x),
    "isfinite": lambda m, x: m.isfinite(x),
    "clamp": lambda m, x: m.clamp(x, -50, 70),
    "relu": lambda m, x: m.relu(x),
}


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_integer_binary_on_cuda(name, dtype):
    fn, nonzero = BINARY[name]
    a_cpu, a_cuda, a_t = pair(values((7, 33), dtype, 1), dtype)
    b_cpu, b_cuda, b_t = pair(values((7, 33), dtype, 2, nonzero), dtype)
    expect = fn(nabla, a_cpu, b_cpu)
    same(fn(nabla, a_cuda, b_cuda), expect)
    if name not in ("sub",) or dtype != "uint8":
        matches_torch(fn(nabla, a_cuda, b_cuda), fn(torch, a_t, b_t))
    # broadcast row, transposed and sliced operands take the strided kernel
    same(fn(nabla, a_cuda, b_cuda[2]), fn(nabla, a_cpu, b_cpu[2]))
    same(fn(nabla, a_cuda[:, :7].t(), b_cuda[:, 1:8]), fn(nabla, a_cpu[:, :7].t(), b_cpu[:, 1:8]))


@pytest.mark.parametrize("name", BOOL_BINARY)
def test_bool_binary_on_cuda(name):
    fn, _ = BINARY[name]
    a_cpu, a_cuda, a_t = pair(values((5, 40), "bool", 3), "bool")
    b_cpu, b_cuda, b_t = pair(values((5, 40), "bool", 4), "bool")
    same(fn(nabla, a_cuda, b_cuda), fn(nabla, a_cpu, b_cpu))
    matches_torch(fn(nabla, a_cuda, b_cuda), fn(torch, a_t, b_t))
    same(fn(nabla, a_cuda.t(), b_cuda[:1].t()), fn(nabla, a_cpu.t(), b_cpu[:1].t()))


@pytest.mark.parametrize("dtype", [*INTS, "bool"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_integer_unary_on_cuda(name, dtype):
    fn = UNARY[name]
    x_cpu, x_cuda, x_t = pair(values((6, 35), dtype, 5), dtype)
    try:
        expect = fn(nabla, x_cpu)
    except (RuntimeError, TypeError, NotImplementedError) as e:  # the op refuses this dtype on every device
        with pytest.raises(type(e)):
            fn(nabla, x_cuda)
        return
    same(fn(nabla, x_cuda), expect)
    same(fn(nabla, x_cuda[:, ::3]), fn(nabla, x_cpu[:, ::3]))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_overflow_wraps_as_on_cpu(dtype):
    info = np.iinfo(dtype)
    arr = np.array([info.max, info.min, info.max - 1, 0, -1 if info.min < 0 else 1], dtype=dtype)
    cpu = nabla.tensor(arr)
    cuda = cpu.to("cuda")
    for fn in (lambda x: x + x, lambda x: x * x, lambda x: -x, lambda x: x - 1, lambda x: nabla.abs(x),
               lambda x: x * 3 + 7):
        same(fn(cuda), fn(cpu))


def test_int64_scalars_past_2_53_are_exact():
    big = 2**62 + 1
    cpu = nabla.tensor([1, -5, 2**60 + 3], dtype=nabla.int64)
    cuda = cpu.to("cuda")
    same(cuda + big, cpu + big)
    same(cuda == 2**60 + 3, cpu == 2**60 + 3)
    same(nabla.maximum(cuda, nabla.tensor(big)), nabla.maximum(cpu, nabla.tensor(big)))
    assert (cuda + big).cpu().tolist() == [big + 1, big - 5, big + 2**60 + 3]


def test_integer_scalars_0dim_empty_out_and_inplace_on_cuda():
    cpu = nabla.arange(12, dtype=nabla.int32).reshape(3, 4)
    cuda = cpu.to("cuda")
    same(cuda * 3, cpu * 3)
    same(7 - cuda, 7 - cpu)
    same(cuda // 5, cpu // 5)
    same(cuda % -5, cpu % -5)
    same(cuda + nabla.tensor(9, dtype=nabla.int32), cpu + nabla.tensor(9, dtype=nabla.int32))
    zero_dim = nabla.tensor(4, dtype=nabla.int16)
    same(zero_dim.to("cuda") * zero_dim.to("cuda"), zero_dim * zero_dim)
    empty = nabla.zeros(0, 4, dtype=nabla.int64)
    same(empty.to("cuda") + 1, empty + 1)
    out = nabla.empty(3, 4, dtype=nabla.int32, device="cuda")
    r = nabla.mul(cuda, cuda, out=out)
    assert r is out or r.data_ptr() == out.data_ptr()
    same(out, cpu * cpu)
    c2, p2 = cuda.clone(), cpu.clone()
    c2.add_(c2[0])
    p2.add_(p2[0])
    same(c2, p2)
    c3, p3 = cuda.clone(), cpu.clone()
    c3.mul_(c3.t()[:4, :3].t())  # in place from an overlapping transposed view of itself
    p3.mul_(p3.t()[:4, :3].t())
    same(c3, p3)
    # int32 and int64 mix promotes to int64; a Python float makes a float result
    same(cuda + cuda.to(nabla.int64), cpu + cpu.to(nabla.int64))
    same(cuda * 0.5, cpu * 0.5)


def test_integer_division_by_zero_on_cuda_raises_at_the_next_sync():
    """A kernel cannot raise: the quotient is -1 and the remainder the dividend (PyTorch's CUDA
    kernels return a value too), and the device error word makes the next synchronising call
    raise the CPU's ZeroDivisionError, naming the op."""
    a = nabla.tensor([7, -7, 0], dtype=nabla.int64)
    z = nabla.zeros(3, dtype=nabla.int64)
    for fn, want, name in ((nabla.floor_divide, [-1, -1, -1], "div"), (nabla.fmod, [7, -7, 0], "fmod"),
                           (nabla.remainder, [7, -7, 0], "remainder"),
                           (lambda x, y: nabla.div(x, y, rounding_mode="trunc"), [-1, -1, -1], "div")):
        q = fn(a.to("cuda"), z.to("cuda"))
        with pytest.raises(RuntimeError, match=f"{name}: ZeroDivisionError"):
            nabla.cuda.synchronize()
        assert q.cpu().tolist() == want  # the word was cleared: the device stays usable
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(a, z)
    q = nabla.floor_divide(a.to(nabla.int8).to("cuda"), 0)  # a narrow dtype and a scalar divisor
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        q.cpu()
    ok = nabla.floor_divide(a.to("cuda"), nabla.tensor([2, -3, 5], device="cuda"))
    nabla.cuda.synchronize()  # no zero divisor, no error
    assert ok.cpu().tolist() == [3, 2, 0]
    nabla.floor_divide(a.to(nabla.float32).to("cuda"), z.to(nabla.float32).to("cuda"))
    nabla.cuda.synchronize()  # float division by zero is inf / nan, not an error


@pytest.mark.parametrize("dtype", ALL)
def test_where_on_cuda_every_dtype(dtype):
    c_cpu, c_cuda, c_t = pair(values((4, 37), "bool", 6), "bool")
    a_cpu, a_cuda, a_t = pair(values((4, 37), dtype, 7), dtype)
    b_cpu, b_cuda, b_t = pair(values((37,), dtype, 8), dtype)
    same(nabla.where(c_cuda, a_cuda, b_cuda), nabla.where(c_cpu, a_cpu, b_cpu))
    matches_torch(nabla.where(c_cuda, a_cuda, b_cuda).to(nabla.float64) if "float16" in dtype else
                  nabla.where(c_cuda, a_cuda, b_cuda),
                  torch.where(c_t, a_t, b_t).to(torch.float64) if "float16" in dtype else torch.where(c_t, a_t, b_t))
    # a broadcast condition column, a transposed value, a scalar value
    same(nabla.where(c_cuda[:, :1], a_cuda, b_cuda), nabla.where(c_cpu[:, :1], a_cpu, b_cpu))
    same(nabla.where(c_cuda[:, :4].t(), a_cuda[:, :4].t(), b_cuda[:4]),
         nabla.where(c_cpu[:, :4].t(), a_cpu[:, :4].t(), b_cpu[:4]))
    if dtype != "bool":
        same(nabla.where(c_cuda, a_cuda, 3), nabla.where(c_cpu, a_cpu, 3))
        same(nabla.where(c_cuda, 2, b_cuda), nabla.where(c_cpu, 2, b_cpu))


def test_where_on_cuda_promotes_out_empty_and_grad():
    c = nabla.tensor([True, False, True])
    a = nabla.tensor([1, 2, 3], dtype=nabla.int32)
    b = nabla.tensor([0.5, 1.5, 2.5])
    same(nabla.where(c.to("cuda"), a.to("cuda"), b.to("cuda")), nabla.where(c, a, b))
    out = nabla.empty(3, device="cuda")
    nabla.where(c.to("cuda"), b.to("cuda"), -b.to("cuda"), out=out)
    same(out, nabla.where(c, b, -b))
    e = nabla.zeros(0, 3)
    same(nabla.where(e.to("cuda") > 0, e.to("cuda"), 1.0), nabla.where(e > 0, e, 1.0))
    x = nabla.tensor([1.0, -2.0, 3.0], device="cuda", requires_grad=True)
    y = nabla.where(x > 0, x * 2, x * x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, -4.0, 2.0])
    with pytest.raises(RuntimeError, match="condition"):
        nabla.where(a.to("cuda"), a.to("cuda"), a.to("cuda"))


BITWISE = {
    "bitwise_and": lambda m, a, b: m.bitwise_and(a, b),
    "bitwise_or": lambda m, a, b: m.bitwise_or(a, b),
    "bitwise_xor": lambda m, a, b: m.bitwise_xor(a, b),
    "bitwise_left_shift": lambda m, a, b: m.bitwise_left_shift(a, b),
    "bitwise_right_shift": lambda m, a, b: m.bitwise_right_shift(a, b),
}


@pytest.mark.parametrize("name", list(BITWISE))
@pytest.mark.parametrize("dtype", [*INTS, "bool"])
def test_bitwise_on_cuda(name, dtype):
    if dtype == "bool" and "shift" in name:
        pytest.skip("shifts take integers only")
    fn = BITWISE[name]
    a_cpu, a_cuda, a_t = pair(values((7, 33), dtype, 1), dtype)
    b_cpu, b_cuda, b_t = pair(values((7, 33), dtype, 2), dtype)
    same(fn(nabla, a_cuda, b_cuda), fn(nabla, a_cpu, b_cpu))
    matches_torch(fn(nabla, a_cuda, b_cuda), fn(torch, a_t, b_t))
    # broadcast row, transposed operands, empty, 0-dim
    same(fn(nabla, a_cuda, b_cuda[:1]), fn(nabla, a_cpu, b_cpu[:1]))
    same(fn(nabla, a_cuda.t(), b_cuda.t()), fn(nabla, a_cpu.t(), b_cpu.t()))
    same(fn(nabla, a_cuda[:0], b_cuda[:0]), fn(nabla, a_cpu[:0], b_cpu[:0]))
    same(fn(nabla, a_cuda[0, 0], b_cuda[1, 1]), fn(nabla, a_cpu[0, 0], b_cpu[1, 1]))


@pytest.mark.parametrize("dtype", INTS)
def test_shifts_past_the_width_and_negative_on_cuda(dtype):
    """PyTorch CPU's rules: a count < 0 or >= the width gives 0 to the left and the sign to the right."""
    width = np.dtype(dtype).itemsize * 8
    if dtype == "uint8":
        x = np.array([0, 1, 5, 127, 128, 200, 255, 77, 3], dtype=np.uint8)
        s = np.array([0, 1, 3, 7, 8, 9, 63, 64, 255], dtype=np.uint8)
    else:
        info = np.iinfo(dtype)
        x = np.array([0, 1, -1, 5, -5, info.max, info.min, 77, -77, 3, -3, 9], dtype=dtype)
        s = np.array([0, 1, 3, width - 1, width, width + 1, 63, 64, -1, -width, 100 % (info.max + 1), 2], dtype=dtype)
    x_cpu, x_cuda, x_t = pair(x, dtype)
    s_cpu, s_cuda, s_t = pair(s, dtype)
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        fn = BITWISE[name]
        matches_torch(fn(nabla, x_cuda, s_cuda), fn(torch, x_t, s_t))
        same(fn(nabla, x_cuda, s_cuda), fn(nabla, x_cpu, s_cpu))
        same(fn(nabla, x_cuda, 3), fn(nabla, x_cpu, 3))  # a Python scalar count
    matches_torch(x_cuda << s_cuda, x_t << s_t)
    matches_torch(x_cuda >> s_cuda, x_t >> s_t)


@pytest.mark.parametrize("dtype", [*INTS, "bool"])
def test_bitwise_not_and_operators_on_cuda(dtype):
    a_cpu, a_cuda, a_t = pair(values((5, 40), dtype, 3), dtype)
    b_cpu, b_cuda, b_t = pair(values((40,), dtype, 4), dtype)
    matches_torch(nabla.bitwise_not(a_cuda), torch.bitwise_not(a_t))
    matches_torch(~a_cuda.t(), ~a_t.t())
    matches_torch(a_cuda & b_cuda, a_t & b_t)
    matches_torch(a_cuda | b_cuda, a_t | b_t)
    matches_torch(a_cuda ^ b_cuda, a_t ^ b_t)
    out = a_cuda.clone()
    out &= b_cuda
    matches_torch(out, a_t & b_t)
    res = nabla.empty(5, 40, dtype=getattr(nabla, dtype), device="cuda")
    nabla.bitwise_or(a_cuda, b_cuda, out=res)
    matches_torch(res, a_t | b_t)


def test_bitwise_on_cuda_rejects_floats_as_on_cpu():
    for dev in ("cpu", "cuda"):
        x = nabla.tensor([1.0, 2.0], device=dev)
        with pytest.raises(RuntimeError, match="bitwise_and: not implemented for 'float32'"):
            x & x
        with pytest.raises(RuntimeError, match="bitwise_not: not implemented for 'float32'"):
            ~x
        with pytest.raises(RuntimeError, match="bitwise_left_shift: not implemented for 'bool'"):
            x.bool() << x.bool()
