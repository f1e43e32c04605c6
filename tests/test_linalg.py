"""Matrix products (matmul, mm, bmm, mv, dot, outer, addmm, baddbmm, linear, @)
against NumPy in float64: every rank combination of matmul, batch broadcasting,
transposed / sliced / expanded operands, empty dims, integer exactness (with
wraparound), float16/bfloat16 accumulation, alpha/beta, dst/out= and in-place
forms, and every error with PyTorch's message. A last group compares with
PyTorch itself when it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

NP_FLOAT = {nabla.float32: np.float32, nabla.float64: np.float64}
INT_TYPES = {nabla.int8: np.int8, nabla.int16: np.int16, nabla.int32: np.int32, nabla.int64: np.int64,
             nabla.uint8: np.uint8}
EPS = {nabla.float32: 2.0 ** -24, nabla.float64: 2.0 ** -53}


def tensor(a, dtype=None):
    """A nabla tensor from a NumPy array (float16/bfloat16 converted from float32 by nabla)."""
    if dtype in (nabla.float16, nabla.bfloat16):
        return nabla.tensor(np.asarray(a, dtype=np.float32)).to(dtype)
    a = np.asarray(a)
    return nabla.tensor(np.ascontiguousarray(a) if a.ndim else a)  # ascontiguousarray makes 0-dim 1-D


def values(t) -> np.ndarray:
    """t's values in float64 (exact for every float dtype)."""
    return t.to(nabla.float64).numpy()


def check_close(got, a, b, dtype, input=None, beta=0.0, alpha=1.0):
    """got ~= beta * input + alpha * (a @ b) computed in float64 from the inputs' own values, within a
    bound that grows with the inner dimension (BLAS sums in the compute precision)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    want = alpha * np.matmul(a, b)
    scale = abs(alpha) * np.matmul(np.abs(a), np.abs(b))
    if input is not None and beta != 0:
        want = want + beta * np.asarray(input, np.float64)
        scale = scale + abs(beta) * np.abs(np.asarray(input, np.float64))
    k = a.shape[-1]
    acc_eps = EPS.get(dtype, 2.0 ** -24)  # float16/bfloat16 accumulate in float32
    out_eps = {nabla.float16: 2.0 ** -11, nabla.bfloat16: 2.0 ** -8}.get(dtype, 0.0)
    tol = scale * (2 * (k + 2) * acc_eps + out_eps) + 1e-300
    g = values(got)
    assert g.shape == want.shape, (g.shape, want.shape)
    err = np.abs(g - want)
    assert np.all(err <= tol), f"max error {err.max()} (tolerance {tol[err > tol].min() if np.any(err > tol) else 0})"


def rand(rng, shape, dtype=nabla.float64):
    """Random values already representable in dtype (so float64 references use the same inputs)."""
    a = rng.standard_normal(shape)
    if dtype == nabla.float16:
        return a.astype(np.float16).astype(np.float64)
    if dtype == nabla.bfloat16:
        return values(tensor(a, nabla.bfloat16))
    if dtype == nabla.float32:
        return a.astype(np.float32).astype(np.float64)
    return a


def np_dtype(dtype):
    return NP_FLOAT.get(dtype, np.float32)


# ---- matmul: every rank combination ----

RANK_CASES = [
    ((5,), (5,)),             # dot -> 0-dim
    ((3, 5), (5,)),           # matrix @ vector
    ((5,), (5, 4)),           # vector @ matrix
    ((3, 5), (5, 4)),         # matrix @ matrix
    ((2, 3, 5), (5, 4)),      # batched @ matrix (folds into one GEMM)
    ((2, 3, 5), (5,)),        # batched @ vector
    ((5,), (2, 5, 4)),        # vector @ batched
    ((3, 5), (2, 5, 4)),      # matrix @ batched
    ((2, 3, 5), (2, 5, 4)),   # batched @ batched
    ((2, 1, 3, 5), (4, 5, 2)),       # batch broadcast (2, 1) x (4,)
    ((1, 3, 5), (6, 5, 4)),          # size-1 batch broadcast
    ((7, 1, 1, 3, 5), (2, 1, 5, 4)), # several broadcast dims
    ((1, 5), (5, 1)),
    ((1, 1, 5), (5,)),
]


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
@pytest.mark.parametrize("sa,sb", RANK_CASES, ids=[f"{a}@{b}" for a, b in RANK_CASES])
def test_matmul_ranks(rng, dtype, sa, sb):
    a, b = rand(rng, sa, dtype), rand(rng, sb, dtype)
    ta, tb = tensor(a.astype(np_dtype(dtype))), tensor(b.astype(np_dtype(dtype)))
    for got in (nabla.matmul(ta, tb), ta @ tb, ta.matmul(tb)):
        assert got.dtype == dtype
        assert tuple(got.shape) == np.matmul(a, b).shape
        assert got.is_contiguous()
        check_close(got, a, b, dtype)


def test_matmul_dot_is_0dim(rng):
    a, b = rng.standard_normal(7), rng.standard_normal(7)
    got = tensor(a) @ tensor(b)
    assert got.shape == () and got.dim() == 0
    assert got.item() == pytest.approx(float(a @ b), rel=1e-14)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
def test_large_gemm_threaded(rng, dtype):
    """Big enough that OpenBLAS uses its threads; odd sizes exercise edge tiles."""
    a, b = rand(rng, (257, 311), dtype), rand(rng, (311, 193), dtype)
    check_close(tensor(a.astype(np_dtype(dtype))) @ tensor(b.astype(np_dtype(dtype))), a, b, dtype)


def test_many_small_batches_in_parallel(rng):
    """Small GEMMs per batch run on OpenMP threads: every batch must land in its own slot."""
    a, b = rand(rng, (64, 16, 12)), rand(rng, (64, 12, 8))
    check_close(nabla.bmm(tensor(a), tensor(b)), a, b, nabla.float64)
    a2, b2 = rand(rng, (8, 8, 64, 64), nabla.float32), rand(rng, (8, 1, 64, 64), nabla.float32)
    check_close(tensor(a2.astype(np.float32)) @ tensor(b2.astype(np.float32)), a2, b2, nabla.float32)


# ---- non-contiguous operands ----

def _layouts(rng, shape, npd=np.float64):
    """(name, NumPy array, nabla tensor) of `shape` laid out in different ways over a larger buffer."""
    def gen(sh):
        if np.issubdtype(npd, np.integer):
            return rng.integers(-9, 10, sh).astype(npd)
        return rng.standard_normal(sh).astype(npd)

    out = []
    a = gen(shape)
    out.append(("contiguous", a, tensor(a)))
    if len(shape) >= 2:  # transposed: the last two dims swapped in memory (column-major matrices)
        base = gen(shape[:-2] + (shape[-1], shape[-2]))
        out.append(("transposed", np.swapaxes(base, -1, -2), tensor(base).transpose(-1, -2)))
    big = gen(tuple(2 * s + 1 for s in shape))  # every other element along every dim
    idx = tuple(slice(1, None, 2) for _ in shape)
    out.append(("stepped", big[idx], tensor(big)[idx]))
    wide = gen(shape[:-1] + (shape[-1] + 3,))  # rows of a wider matrix: a leading dimension > columns
    out.append(("leading_dim", wide[..., 1:shape[-1] + 1], tensor(wide)[..., 1:shape[-1] + 1]))
    one = gen((1,) + shape[1:])  # stride 0 along the first dim
    out.append(("expanded", np.broadcast_to(one, shape), tensor(one).expand(*shape)))
    if len(shape) == 3:  # batch dim innermost in memory
        perm = gen((shape[1], shape[2], shape[0]))
        out.append(("batch_last", perm.transpose(2, 0, 1), tensor(perm).permute(2, 0, 1)))
    return out


@pytest.mark.parametrize("sa,sb", [((4, 6), (6, 5)), ((3, 4, 6), (3, 6, 5)), ((3, 4, 6), (6, 5)), ((6,), (6, 5)),
                                   ((4, 6), (6,)), ((7,), (7,))])
def test_matmul_strided_operands(rng, sa, sb):
    for na, a, ta in _layouts(rng, sa):
        for nb, b, tb in _layouts(rng, sb):
            np.testing.assert_array_equal(ta.numpy(), a)
            got = ta @ tb
            check_close(got, a, b, nabla.float64)
            got32 = ta.float() @ tb.float()
            check_close(got32, a.astype(np.float32), b.astype(np.float32), nabla.float32)


@pytest.mark.parametrize("npd", [np.int64, np.int16, np.uint8])
def test_integer_strided_operands(rng, npd):
    for na, a, ta in _layouts(rng, (3, 4, 5), npd):
        for nb, b, tb in _layouts(rng, (5, 6), npd):
            np.testing.assert_array_equal(ta.numpy(), a)
            want = np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(npd)
            np.testing.assert_array_equal((ta @ tb).numpy(), want, err_msg=f"{na} @ {nb}")


def test_transposed_operands_equal_contiguous(rng):
    a, b = rng.standard_normal((33, 17)), rng.standard_normal((17, 29))
    ref = (tensor(a) @ tensor(b)).numpy()
    at = tensor(np.ascontiguousarray(a.T)).t()
    bt = tensor(np.ascontiguousarray(b.T)).t()
    for x, y in ((at, tensor(b)), (tensor(a), bt), (at, bt)):
        np.testing.assert_allclose((x @ y).numpy(), ref, rtol=1e-13, atol=1e-13)


# ---- empty dims ----

@pytest.mark.parametrize("sa,sb", [((2, 0), (0, 4)), ((3, 2, 0), (3, 0, 4)), ((0,), (0,)), ((3, 0), (0,)),
                                   ((0,), (0, 4))])
@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.int32, nabla.float16])
def test_zero_inner_dim_gives_zeros(sa, sb, dtype):
    a, b = nabla.zeros(*sa, dtype=dtype), nabla.ones(*sb, dtype=dtype)
    got = a @ b
    want = np.matmul(np.zeros(sa), np.ones(sb))
    assert tuple(got.shape) == want.shape and got.dtype == dtype
    np.testing.assert_array_equal(values(got), want)


@pytest.mark.parametrize("sa,sb,shape", [((0, 3), (3, 4), (0, 4)), ((2, 3), (3, 0), (2, 0)), ((0, 2, 3), (3, 4), (0, 2, 4)),
                                         ((0, 2, 3), (1, 3, 4), (0, 2, 4)), ((0, 3), (3,), (0,))])
def test_empty_results(sa, sb, shape):
    got = nabla.ones(*sa) @ nabla.ones(*sb)
    assert tuple(got.shape) == shape and got.numel() == 0


def test_addmm_with_empty_inner_dim_is_beta_input():
    inp = nabla.full((2, 4), 2.0)
    got = nabla.addmm(inp, nabla.ones(2, 0), nabla.ones(0, 4), beta=3)
    np.testing.assert_array_equal(got.numpy(), np.full((2, 4), 6.0, np.float32))
    got = nabla.addmm(nabla.full((2, 4), float("nan")), nabla.ones(2, 0), nabla.ones(0, 4), beta=0)
    np.testing.assert_array_equal(got.numpy(), np.zeros((2, 4), np.float32))


# ---- integers ----

@pytest.mark.parametrize("dtype", list(INT_TYPES))
@pytest.mark.parametrize("sa,sb", [((4, 9), (9, 3)), ((2, 4, 9), (9,)), ((9,), (9,)), ((3, 2, 5), (3, 5, 70)),
                                   ((40, 130), (130, 150))])
def test_integer_matmul_exact(rng, dtype, sa, sb):
    npd = INT_TYPES[dtype]
    info = np.iinfo(npd)
    a = rng.integers(info.min, info.max, size=sa, endpoint=True).astype(npd)
    b = rng.integers(info.min, info.max, size=sb, endpoint=True).astype(npd)
    got = tensor(a) @ tensor(b)
    assert got.dtype == dtype
    # integer products wrap modulo 2**bits, so an int64 (itself wrapping) reference cast down is exact
    with np.errstate(over="ignore"):
        want = np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(npd)
    np.testing.assert_array_equal(got.numpy(), want)


def test_integer_wraparound_like_pytorch():
    a = nabla.tensor([100], dtype=nabla.int8)
    assert nabla.dot(a, a).item() == 16  # 10000 mod 256
    big = nabla.tensor([[2 ** 40]], dtype=nabla.int64)
    assert (big @ big).item() == 0      # 2**80 mod 2**64


def test_integer_addmm_truncates_alpha_and_beta():
    o = lambda *s: nabla.ones(*s, dtype=nabla.int32)  # noqa: E731
    assert nabla.addmm(o(2, 4), o(2, 3), o(3, 4), alpha=0.5).tolist() == [[1] * 4] * 2
    assert nabla.addmm(o(2, 4), o(2, 3), o(3, 4), beta=0.5, alpha=2).tolist() == [[6] * 4] * 2
    assert nabla.addmm(o(2, 4), o(2, 3), o(3, 4), beta=1.7, alpha=2.9).tolist() == [[7] * 4] * 2
    assert nabla.addmm(o(2, 4), o(2, 3), o(3, 4), beta=-1.7, alpha=-2.9).tolist() == [[-7] * 4] * 2


def test_integer_alpha_overflow_is_an_error():
    o = nabla.ones(2, 2, dtype=nabla.int64)
    with pytest.raises(RuntimeError, match="alpha"):
        nabla.addmm(o, o, o, alpha=1e300)


# ---- float16 / bfloat16 ----

@pytest.mark.parametrize("dtype", [nabla.float16, nabla.bfloat16])
@pytest.mark.parametrize("sa,sb", [((3, 40), (40, 5)), ((2, 3, 70), (70,)), ((70,), (70,)), ((4, 8, 16), (4, 16, 8))])
def test_half_precision(rng, dtype, sa, sb):
    a, b = rand(rng, sa, dtype), rand(rng, sb, dtype)
    got = tensor(a, dtype) @ tensor(b, dtype)
    assert got.dtype == dtype
    check_close(got, a, b, dtype)


@pytest.mark.parametrize("dtype", [nabla.float16, nabla.bfloat16])
def test_half_precision_accumulates_in_float32_and_rounds_once(dtype):
    # 2048 + 1 + 1: float16 partial sums would stick at 2048 (bfloat16 at 2048 too); float32 gives 2050,
    # which float16 holds exactly and bfloat16 rounds (once) to 2048.
    a = nabla.tensor([[2048.0, 1.0, 1.0]]).to(dtype)
    b = nabla.tensor([[1.0], [1.0], [1.0]]).to(dtype)
    got = (a @ b).item()
    assert got == (2050.0 if dtype == nabla.float16 else 2048.0)
    a = nabla.tensor([[256.0, 1.0, 1.0]]).to(dtype)  # bfloat16: 256 + 1 + 1 = 258 exactly representable
    assert (a @ b).item() == 258.0


def test_half_addmm_beta_input(rng):
    a, b, c = rand(rng, (5, 7), nabla.float16), rand(rng, (7, 3), nabla.float16), rand(rng, (3,), nabla.float16)
    got = nabla.addmm(tensor(c, nabla.float16), tensor(a, nabla.float16), tensor(b, nabla.float16), beta=0.5, alpha=2)
    check_close(got, a, b, nabla.float16, input=c, beta=0.5, alpha=2)


# ---- mm / bmm / mv / dot / outer ----

def test_mm_bmm_mv_dot(rng):
    a, b = rng.standard_normal((4, 6)), rng.standard_normal((6, 3))
    check_close(nabla.mm(tensor(a), tensor(b)), a, b, nabla.float64)
    check_close(tensor(a).mm(tensor(b)), a, b, nabla.float64)
    a3, b3 = rng.standard_normal((5, 4, 6)), rng.standard_normal((5, 6, 3))
    check_close(nabla.bmm(tensor(a3), tensor(b3)), a3, b3, nabla.float64)
    check_close(tensor(a3).bmm(tensor(b3)), a3, b3, nabla.float64)
    v = rng.standard_normal(6)
    check_close(nabla.mv(tensor(a), tensor(v)), a, v, nabla.float64)
    check_close(tensor(a).mv(tensor(v)), a, v, nabla.float64)
    w = rng.standard_normal(6)
    d = nabla.dot(tensor(v), tensor(w))
    assert d.shape == () and d.item() == pytest.approx(float(v @ w), rel=1e-13)
    assert tensor(v).dot(tensor(w)).item() == pytest.approx(float(v @ w), rel=1e-13)


def test_outer(rng):
    a, b = rng.standard_normal(4), rng.standard_normal(3)
    np.testing.assert_array_equal(nabla.outer(tensor(a), tensor(b)).numpy(), np.outer(a, b))
    np.testing.assert_array_equal(tensor(a).outer(tensor(b)).numpy(), np.outer(a, b))
    np.testing.assert_array_equal(nabla.ger(tensor(a), tensor(b)).numpy(), np.outer(a, b))
    # an elementwise product: dtypes promote and bool works
    i = nabla.tensor([1, 2, 3], dtype=nabla.int32)
    got = nabla.outer(i, nabla.tensor([0.5, 1.5]))
    assert got.dtype == nabla.float32
    np.testing.assert_array_equal(got.numpy(), np.outer([1, 2, 3], [0.5, 1.5]).astype(np.float32))
    bo = nabla.outer(nabla.tensor([True, False]), nabla.tensor([True, True, False]))
    assert bo.dtype == nabla.bool and bo.tolist() == [[True, True, False], [False, False, False]]
    out = nabla.zeros(4, 3, dtype=nabla.float64)
    assert nabla.outer(tensor(a).float(), tensor(b).float(), out=out) is out
    np.testing.assert_allclose(out.numpy(), np.outer(a.astype(np.float32), b.astype(np.float32)), rtol=1e-6)


# ---- addmm / baddbmm ----

@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
@pytest.mark.parametrize("input_shape", [(3, 5), (5,), (1, 5), (3, 1), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 1), (2, 0)])
def test_addmm(rng, dtype, input_shape, beta, alpha):
    a, b, c = rand(rng, (3, 4), dtype), rand(rng, (4, 5), dtype), rand(rng, input_shape, dtype)
    npd = np_dtype(dtype)
    got = nabla.addmm(tensor(c.astype(npd)), tensor(a.astype(npd)), tensor(b.astype(npd)), beta=beta, alpha=alpha)
    assert got.dtype == dtype and tuple(got.shape) == (3, 5)
    check_close(got, a, b, dtype, input=np.broadcast_to(c, (3, 5)), beta=beta, alpha=alpha)
    method = tensor(c.astype(npd)).addmm(tensor(a.astype(npd)), tensor(b.astype(npd)), beta=beta, alpha=alpha)
    np.testing.assert_array_equal(method.numpy(), got.numpy())


def test_addmm_beta_zero_ignores_nan():
    got = nabla.addmm(nabla.full((2, 4), float("nan")), nabla.ones(2, 3), nabla.ones(3, 4), beta=0)
    np.testing.assert_array_equal(got.numpy(), np.full((2, 4), 3.0, np.float32))


def test_addmm_in_place(rng):
    a, b, c = rng.standard_normal((3, 4)), rng.standard_normal((4, 5)), rng.standard_normal((3, 5))
    t = tensor(c)
    v = t._version
    assert t.addmm_(tensor(a), tensor(b), beta=0.5, alpha=3) is t
    assert t._version > v
    check_close(t, a, b, nabla.float64, input=c, beta=0.5, alpha=3)
    # in place on a transposed (column-major) tensor: written through its strides
    base = tensor(np.ascontiguousarray(c.T))
    tt = base.t()
    tt.addmm_(tensor(a), tensor(b))
    check_close(base.t(), a, b, nabla.float64, input=c, beta=1)
    # self as an operand too: a.addmm_(a, a) reads a before writing it
    s = rng.standard_normal((4, 4))
    ts = tensor(s)
    ts.addmm_(ts, ts)
    check_close(ts, s, s, nabla.float64, input=s, beta=1)


@pytest.mark.parametrize("input_shape", [(2, 3, 5), (5,), (3, 1), (1, 1, 5), ()])
def test_baddbmm(rng, input_shape):
    a, b, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal(input_shape)
    got = nabla.baddbmm(tensor(c), tensor(a), tensor(b), beta=-1.5, alpha=0.25)
    check_close(got, a, b, nabla.float64, input=np.broadcast_to(c, (2, 3, 5)), beta=-1.5, alpha=0.25)
    method = tensor(c).baddbmm(tensor(a), tensor(b), beta=-1.5, alpha=0.25)
    np.testing.assert_array_equal(method.numpy(), got.numpy())


def test_baddbmm_in_place(rng):
    a, b, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal((2, 3, 5))
    t = tensor(c)
    assert t.baddbmm_(tensor(a), tensor(b), alpha=2) is t
    check_close(t, a, b, nabla.float64, input=c, beta=1, alpha=2)


# ---- linear ----

@pytest.mark.parametrize("xs,ws,bs", [((3, 4), (5, 4), (5,)), ((3, 4), (5, 4), None), ((2, 3, 4), (5, 4), (5,)),
                                      ((4,), (5, 4), (5,)), ((2, 3, 4), (4,), None), ((4,), (4,), ()),
                                      ((3, 4), (5, 4), (3, 5)), ((6, 2, 3, 4), (5, 4), (1, 5))])
def test_linear(rng, xs, ws, bs):
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    b = None if bs is None else rng.standard_normal(bs)
    got = nabla.linear(tensor(x), tensor(w), None if b is None else tensor(b))
    want_shape = np.matmul(x, w.T).shape
    assert tuple(got.shape) == want_shape
    check_close(got, x, w.T, nabla.float64, input=None if b is None else np.broadcast_to(b, want_shape), beta=1)


def test_linear_float32_transposed_weight(rng):
    x, w, b = rand(rng, (8, 16), nabla.float32), rand(rng, (16, 12), nabla.float32), rand(rng, (12,), nabla.float32)
    # weight given as the transpose of a contiguous [in, out] matrix: BLAS reads it without a copy
    wt = tensor(w.astype(np.float32)).t()
    got = nabla.linear(tensor(x.astype(np.float32)), wt, tensor(b.astype(np.float32)))
    check_close(got, x, w, nabla.float32, input=np.broadcast_to(b, (8, 12)), beta=1)


# ---- dst / out= ----

def test_out_is_written_and_returned(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    for fn in (nabla.matmul, nabla.mm):
        out = nabla.empty(3, 5, dtype=nabla.float64)
        v = out._version
        assert fn(tensor(a), tensor(b), out=out) is out
        assert out._version > v
        check_close(out, a, b, nabla.float64)
    out = nabla.empty(5, 3, dtype=nabla.float64).t()  # column-major destination
    nabla.matmul(tensor(a), tensor(b), out=out)
    check_close(out, a, b, nabla.float64)
    big = nabla.zeros(6, 10, dtype=nabla.float64)  # a strided window of a larger tensor
    win = big[1:4, 2:7]
    nabla.mm(tensor(a), tensor(b), out=win)
    check_close(win, a, b, nabla.float64)
    assert float(np.abs(big.numpy()).sum()) == pytest.approx(float(np.abs(win.numpy()).sum()))
    # every other column: BLAS cannot write it directly, so it is staged and copied
    big2 = nabla.zeros(3, 10, dtype=nabla.float64)
    nabla.mm(tensor(a), tensor(b), out=big2[:, ::2])
    check_close(big2[:, ::2], a, b, nabla.float64)
    np.testing.assert_array_equal(big2.numpy()[:, 1::2], 0)


def test_out_for_every_op(rng):
    a3, b3 = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    out = nabla.empty(2, 3, 5, dtype=nabla.float64)
    nabla.bmm(tensor(a3), tensor(b3), out=out)
    check_close(out, a3, b3, nabla.float64)
    c3 = rng.standard_normal((2, 3, 5))
    nabla.baddbmm(tensor(c3), tensor(a3), tensor(b3), beta=2, out=out)
    check_close(out, a3, b3, nabla.float64, input=c3, beta=2)
    a, v = rng.standard_normal((3, 4)), rng.standard_normal(4)
    out = nabla.empty(3, dtype=nabla.float64)
    nabla.mv(tensor(a), tensor(v), out=out)
    check_close(out, a, v, nabla.float64)
    out = nabla.empty((), dtype=nabla.float64)
    nabla.dot(tensor(v), tensor(v), out=out)
    assert out.item() == pytest.approx(float(v @ v))
    b, c = rng.standard_normal((4, 5)), rng.standard_normal((5,))
    out = nabla.empty(3, 5, dtype=nabla.float64)
    nabla.addmm(tensor(c), tensor(a), tensor(b), out=out)
    check_close(out, a, b, nabla.float64, input=np.broadcast_to(c, (3, 5)), beta=1)
    w = rng.standard_normal((5, 4))
    nabla.linear(tensor(a), tensor(w), tensor(c), out=out)
    check_close(out, a, w.T, nabla.float64, input=np.broadcast_to(c, (3, 5)), beta=1)


def test_out_aliasing_an_operand(rng):
    a, b = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    ta, tb = tensor(a), tensor(b)
    nabla.mm(ta, tb, out=ta)  # reads a fully before writing it
    check_close(ta, a, b, nabla.float64)
    tb2 = tensor(b)
    nabla.matmul(tensor(a), tb2, out=tb2)
    check_close(tb2, a, b, nabla.float64)


def test_out_errors():
    a, b = nabla.zeros(2, 3), nabla.zeros(3, 4)
    with pytest.warns(UserWarning, match=r"had shape \[2, 5\], which does not match the required output shape \[2, 4\]"):
        assert nabla.matmul(a, b, out=nabla.zeros(2, 5)).shape == (2, 4)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        nabla.mm(a, b, out=nabla.zeros(2, 4, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got double instead"):
        nabla.addmm(nabla.zeros(2, 4), a, b, out=nabla.zeros(2, 4, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        nabla.mm(a, b, out=nabla.zeros(1, 4).expand(2, 4))
    with pytest.warns(UserWarning, match=r"had shape \[3, 5\], which does not match the required output shape \[3, 4\]"):
        assert nabla.outer(nabla.zeros(3), nabla.zeros(4), out=nabla.zeros(3, 5)).shape == (3, 4)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        nabla.outer(nabla.zeros(3), nabla.zeros(4), out=nabla.zeros(3, 4, dtype=nabla.int32))
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        nabla.matmul(a, b, out=np.zeros((2, 4)))


# ---- the @ operator ----

def test_operators(rng):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    ta, tb = tensor(a), tensor(b)
    check_close(ta @ tb, a, b, nabla.float64)
    check_close(tb.__rmatmul__(ta), a, b, nabla.float64)
    x = ta
    x @= tb  # rebinds x, as for PyTorch tensors (shape may change)
    assert tuple(x.shape) == (3, 2) and tuple(ta.shape) == (3, 4)
    check_close(x, a, b, nabla.float64)
    with pytest.raises(TypeError):
        ta @ 2
    with pytest.raises(TypeError):
        2 @ ta
    with pytest.raises(TypeError, match=r"matmul\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        nabla.matmul(ta, 3)


# ---- errors ----

F, D, B, I32 = nabla.float32, nabla.float64, nabla.bool, nabla.int32


def z(*shape, dtype=F):
    return nabla.zeros(*shape, dtype=dtype)


# (call, exception type, message regex): PyTorch's messages after nabla's "op: " prefix.
ERRORS = [
    (lambda: nabla.matmul(z(), z(3)), RuntimeError,
     r"matmul: both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    (lambda: nabla.matmul(z(3), z()), RuntimeError, r"but they are 1D and 0D"),
    (lambda: nabla.matmul(z(3), z(4)), RuntimeError,
     r"inconsistent tensor size, expected tensor \[3\] and src \[4\] to have the same number of elements, "
     r"but got 3 and 4 elements respectively"),
    (lambda: nabla.matmul(z(2, 3), z(4)), RuntimeError, r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
    (lambda: nabla.matmul(z(2, 3, 4), z(3)), RuntimeError, r"size mismatch, got input \(6\), mat \(6x4\), vec \(3\)"),
    (lambda: nabla.matmul(z(3), z(4, 5)), RuntimeError, r"mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x5\)"),
    (lambda: nabla.matmul(z(2, 3), z(4, 5)), RuntimeError, r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    (lambda: nabla.matmul(z(2, 3, 4), z(5, 2)), RuntimeError, r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 5x2\)"),
    (lambda: nabla.matmul(z(3, 4), z(2, 5, 2)), RuntimeError,
     r"expected size for first two dimensions of batch2 tensor to be: \[2, 4\] but got: \[2, 5\]\."),
    (lambda: nabla.matmul(z(2, 2, 3, 4), z(2, 5, 2)), RuntimeError, r"to be: \[4, 4\] but got: \[4, 5\]\."),
    (lambda: nabla.matmul(z(3), z(2, 4, 5)), RuntimeError, r"to be: \[2, 3\] but got: \[2, 4\]\."),
    (lambda: nabla.matmul(z(2, 2, 3), z(3, 3, 5)), RuntimeError,
     r"the size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 0"),
    (lambda: nabla.matmul(z(2, 3), z(3, 4, dtype=D)), RuntimeError,
     r"expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: nabla.matmul(z(3), z(3, dtype=D)), RuntimeError,
     r"dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: nabla.matmul(z(2, 3), z(3, dtype=D)), RuntimeError,
     r"addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda: nabla.matmul(z(2, 3, 4), z(2, 4, 2, dtype=D)), RuntimeError, r"expected scalar type Float but found Double"),
    (lambda: nabla.matmul(z(2, 3, dtype=B), z(3, 2, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
    (lambda: nabla.matmul(z(3, dtype=B), z(3, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
    (lambda: nabla.mm(z(3), z(3, 4)), RuntimeError, r"mm: self must be a matrix"),
    (lambda: nabla.mm(z(2, 3), z(3)), RuntimeError, r"mm: mat2 must be a matrix"),
    (lambda: nabla.mm(z(2, 3), z(4, 5)), RuntimeError, r"mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
    (lambda: nabla.mm(z(2, 3), z(3, 4, dtype=D)), RuntimeError,
     r"mm: expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: nabla.mm(z(2, 3), z(3, 4, dtype=nabla.float16)), RuntimeError, r"but got: float != c10::Half"),
    (lambda: nabla.mm(z(2, 3, dtype=I32), z(3, 4, dtype=nabla.int64)), RuntimeError, r"but got: int != long int"),
    (lambda: nabla.mm(z(2, 3, dtype=B), z(3, 4, dtype=B)), NotImplementedError, r"mm: \"mm\" not implemented for 'Bool'"),
    (lambda: nabla.bmm(z(2, 3), z(2, 3, 4)), RuntimeError, r"bmm: batch1 must be a 3D tensor"),
    (lambda: nabla.bmm(z(2, 2, 3), z(3, 4)), RuntimeError, r"bmm: batch2 must be a 3D tensor"),
    (lambda: nabla.bmm(z(2, 2, 3), z(3, 3, 4)), RuntimeError,
     r"bmm: expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[3, 3\]\."),
    (lambda: nabla.bmm(z(2, 2, 3), z(2, 4, 4)), RuntimeError, r"to be: \[2, 3\] but got: \[2, 4\]\."),
    (lambda: nabla.bmm(z(2, 2, 3), z(2, 3, 4, dtype=D)), RuntimeError, r"bmm: expected scalar type Float but found Double"),
    (lambda: nabla.bmm(z(2, 2, 3, dtype=B), z(2, 3, 4, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
    (lambda: nabla.mv(z(2, 3), z(4)), RuntimeError, r"mv: size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
    (lambda: nabla.mv(z(3), z(3)), RuntimeError, r"mv: vector \+ matrix @ vector expected, got 1, 1, 1"),
    (lambda: nabla.mv(z(2, 3), z(3, 1)), RuntimeError, r"vector \+ matrix @ vector expected, got 1, 2, 2"),
    (lambda: nabla.mv(z(2, 3), z(3, dtype=D)), RuntimeError,
     r"addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda: nabla.mv(z(2, 3, dtype=B), z(3, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
    (lambda: nabla.dot(z(3), z(4)), RuntimeError, r"dot: inconsistent tensor size, expected tensor \[3\] and src \[4\]"),
    (lambda: nabla.dot(z(2, 3), z(3)), RuntimeError, r"dot: 1D tensors expected, but got 2D and 1D tensors"),
    (lambda: nabla.dot(z(), z(3)), RuntimeError, r"1D tensors expected, but got 0D and 1D tensors"),
    (lambda: nabla.dot(z(3), z(3, dtype=D)), RuntimeError,
     r"dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: nabla.dot(z(3, dtype=B), z(3, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
    (lambda: nabla.outer(z(2, 3), z(3)), RuntimeError, r"outer: expected 1-D argument self, but got 2-D"),
    (lambda: nabla.outer(z(3), z(2, 3)), RuntimeError, r"outer: expected 1-D argument vec2, but got 2-D"),
    (lambda: nabla.outer(z(), z(3)), RuntimeError, r"expected 1-D argument self, but got 0-D"),
    (lambda: nabla.addmm(z(2, 4), z(3), z(3, 4)), RuntimeError, r"addmm: mat1 must be a matrix, got 1-D tensor"),
    (lambda: nabla.addmm(z(2, 4), z(2, 3), z(3)), RuntimeError, r"addmm: mat2 must be a matrix, got 1-D tensor"),
    (lambda: nabla.addmm(z(2, 4), z(2, 3), z(4, 4)), RuntimeError,
     r"addmm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x4\)"),
    (lambda: nabla.addmm(z(2, 4, dtype=D), z(2, 3), z(3, 4)), RuntimeError,
     r"addmm: self and mat2 must have the same dtype, but got Double and Float"),
    (lambda: nabla.addmm(z(2, 4), z(2, 3, dtype=D), z(3, 4)), RuntimeError,
     r"addmm: mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda: nabla.addmm(z(3), z(2, 3), z(3, 4)), RuntimeError,
     r"addmm: the expanded size of the tensor \(4\) must match the existing size \(3\) at non-singleton dimension 1\.  "
     r"Target sizes: \[2, 4\]\.  Tensor sizes: \[3\]"),
    (lambda: nabla.addmm(z(1, 2, 4), z(2, 3), z(3, 4)), RuntimeError,
     r"the number of sizes provided \(2\) must be greater or equal to the number of dimensions in the tensor \(3\)"),
    (lambda: nabla.addmm(z(2, 4, dtype=B), z(2, 3, dtype=B), z(3, 4, dtype=B)), NotImplementedError,
     r"not implemented for 'Bool'"),
    (lambda: nabla.baddbmm(z(2, 2, 4), z(2, 3), z(2, 3, 4)), RuntimeError, r"baddbmm: batch1 must be a 3D tensor"),
    (lambda: nabla.baddbmm(z(2, 2, 4), z(2, 2, 3), z(3, 3, 4)), RuntimeError,
     r"baddbmm: expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[3, 3\]\."),
    (lambda: nabla.baddbmm(z(3, 2, 4), z(2, 2, 3), z(2, 3, 4)), RuntimeError,
     r"the expanded size of the tensor \(2\) must match the existing size \(3\) at non-singleton dimension 0\.  "
     r"Target sizes: \[2, 2, 4\]\.  Tensor sizes: \[3, 2, 4\]"),
    (lambda: nabla.baddbmm(z(2, 2, 4), z(2, 2, 3, dtype=D), z(2, 3, 4)), RuntimeError,
     r"input dtypes must be the same, got: input float, batch1: double, batch2: float"),
    (lambda: nabla.baddbmm(z(2, 2, 4), z(2, 2, 3), z(2, 3, 4, dtype=D)), RuntimeError,
     r"baddbmm: expected scalar type Float but found Double"),
    (lambda: nabla.baddbmm(z(2, 2, 4, dtype=B), z(2, 2, 3, dtype=B), z(2, 3, 4, dtype=B)), NotImplementedError,
     r"\"baddbmm\" not implemented for 'Bool'"),
    (lambda: nabla.linear(z(), z(4, 3)), RuntimeError,
     r"linear: both arguments to linear need to be at least 1D, but they are 0D and 2D"),
    (lambda: nabla.linear(z(2, 3), z()), RuntimeError, r"but they are 2D and 0D"),
    (lambda: nabla.linear(z(2, 3), z(4, 3, 2)), RuntimeError, r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda: nabla.linear(z(2, 3), z(4, 5)), RuntimeError, r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)"),
    (lambda: nabla.linear(z(2, 3), z(4, 3, dtype=D)), RuntimeError,
     r"expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: nabla.linear(z(2, 3), z(4, 3), z(4, dtype=D)), RuntimeError,
     r"self and mat2 must have the same dtype, but got Double and Float"),
    (lambda: nabla.linear(z(2, 3), z(4, 3), z(5)), RuntimeError,
     r"the expanded size of the tensor \(4\) must match the existing size \(5\) at non-singleton dimension 1"),
    (lambda: nabla.linear(z(4, 3, dtype=B), z(5, 3, dtype=B)), NotImplementedError, r"not implemented for 'Bool'"),
]


@pytest.mark.parametrize("call,exc,pattern", ERRORS, ids=range(len(ERRORS)))
def test_errors(call, exc, pattern):
    with pytest.raises(exc, match=pattern) as info:
        call()
    assert info.value.status_name.startswith("NB_ERR_")


# ---- against PyTorch ----

def _torch_message(torch, call_src):
    try:
        eval(call_src, {"torch": torch, "z": lambda *s, dtype="float32": torch.zeros(s, dtype=getattr(torch, dtype))})
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split("\n")[0]
    return None, None


# Calls spelled the same in both libraries, with messages that must agree (after nabla's "op: " prefix,
# ignoring the case of the first letter).
SAME_MESSAGE = [
    "torch.matmul(z(), z(3))", "torch.matmul(z(3), z(4))", "torch.matmul(z(2, 3), z(4))",
    "torch.matmul(z(2, 3, 4), z(3))", "torch.matmul(z(3), z(4, 5))", "torch.matmul(z(2, 3, 4), z(5, 2))",
    "torch.matmul(z(3, 4), z(2, 5, 2))", "torch.matmul(z(2, 2, 3), z(3, 3, 5))",
    "torch.matmul(z(2, 3), z(3, 4, dtype='float64'))", "torch.matmul(z(3), z(3, dtype='float64'))",
    "torch.matmul(z(2, 3), z(3, dtype='float64'))", "torch.matmul(z(2, 3, 4), z(2, 4, 2, dtype='float64'))",
    "torch.mm(z(3), z(3, 4))", "torch.mm(z(2, 3), z(3))", "torch.mm(z(2, 3), z(4, 5))",
    "torch.mm(z(2, 3), z(3, 4, dtype='int8'))", "torch.mm(z(2, 3), z(3, 4, dtype='bfloat16'))",
    "torch.bmm(z(2, 3), z(2, 3, 4))", "torch.bmm(z(2, 2, 3), z(3, 3, 4))", "torch.bmm(z(2, 2, 3), z(2, 3, 4, dtype='float64'))",
    "torch.mv(z(2, 3), z(4))", "torch.mv(z(3), z(3))", "torch.mv(z(2, 3), z(3, dtype='float64'))",
    "torch.dot(z(3), z(4))", "torch.dot(z(2, 3), z(3))", "torch.dot(z(3), z(3, dtype='float64'))",
    "torch.outer(z(2, 3), z(3))", "torch.outer(z(3), z(2, 3))",
    "torch.addmm(z(2, 4), z(3), z(3, 4))", "torch.addmm(z(2, 4), z(2, 3), z(4, 4))",
    "torch.addmm(z(2, 4, dtype='float64'), z(2, 3), z(3, 4))", "torch.addmm(z(2, 4), z(2, 3, dtype='float64'), z(3, 4))",
    "torch.addmm(z(3), z(2, 3), z(3, 4))",
    "torch.baddbmm(z(2, 2, 4), z(2, 2, 3), z(3, 3, 4))", "torch.baddbmm(z(3, 2, 4), z(2, 2, 3), z(2, 3, 4))",
    "torch.baddbmm(z(2, 2, 4), z(2, 2, 3, dtype='float64'), z(2, 3, 4))",
    "torch.baddbmm(z(2, 2, 4), z(2, 2, 3), z(2, 3, 4, dtype='float64'))",
    "torch.nn.functional.linear(z(), z(4, 3))", "torch.nn.functional.linear(z(2, 3), z(4, 3, 2))",
    "torch.nn.functional.linear(z(2, 3), z(4, 5))", "torch.nn.functional.linear(z(2, 3), z(4, 3, dtype='float64'))",
    "torch.nn.functional.linear(z(2, 3), z(4, 3), z(4, dtype='float64'))",
    "torch.nn.functional.linear(z(2, 3), z(4, 3), z(5))",
]


def _nabla_src(src: str) -> str:
    return src.replace("torch.nn.functional.linear", "nabla.linear").replace("torch.", "nabla.")


@pytest.mark.parametrize("src", SAME_MESSAGE)
def test_messages_match_pytorch(src):
    torch = pytest.importorskip("torch")
    kind, theirs = _torch_message(torch, src)
    assert theirs is not None, f"PyTorch accepts {src}"
    with pytest.raises(Exception) as info:  # noqa: PT011
        eval(_nabla_src(src), {"nabla": nabla, "z": lambda *s, dtype="float32": nabla.zeros(s, dtype=getattr(nabla, dtype))})
    ours = str(info.value).split(": ", 1)[1]  # drop nabla's "op: " prefix
    if theirs.startswith("outer: "):  # PyTorch's own prefix
        theirs = theirs[len("outer: "):]
    assert ours[:1].lower() + ours[1:] == theirs[:1].lower() + theirs[1:]
    assert type(info.value).__name__ == kind


TORCH_CASES = [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)), ((2, 3, 5), (5, 4)), ((2, 3, 5), (5,)),
               ((5,), (2, 5, 4)), ((3, 5), (2, 5, 4)), ((2, 1, 3, 5), (4, 5, 2)), ((0, 5), (5, 3)), ((3, 0), (0, 2))]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16", "bfloat16"])
@pytest.mark.parametrize("sa,sb", TORCH_CASES, ids=[f"{a}@{b}" for a, b in TORCH_CASES])
def test_matmul_matches_pytorch(rng, dtype, sa, sb):
    torch = pytest.importorskip("torch")
    if dtype.startswith("int"):
        a, b = rng.integers(-50, 50, sa), rng.integers(-50, 50, sb)
    else:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    ta, tb = torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(b).to(getattr(torch, dtype))
    want = torch.matmul(ta, tb)
    na = nabla.tensor(ta.double().numpy()).to(getattr(nabla, dtype))
    nb_ = nabla.tensor(tb.double().numpy()).to(getattr(nabla, dtype))
    got = nabla.matmul(na, nb_)
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype).replace("torch.", "nabla.")
    if dtype.startswith("int"):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    else:
        k = sa[-1]
        rtol = {"float32": 1e-6 * max(k, 1), "float64": 1e-14 * max(k, 1), "float16": 2e-3, "bfloat16": 1.6e-2}[dtype]
        np.testing.assert_allclose(values(got), want.double().numpy(), rtol=rtol, atol=rtol * 4)


def test_addmm_baddbmm_linear_match_pytorch(rng):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    a, b, c = rng.standard_normal((6, 7)), rng.standard_normal((7, 5)), rng.standard_normal((5,))
    t = lambda x: torch.tensor(x, dtype=torch.float32)  # noqa: E731
    n = lambda x: nabla.tensor(x.astype(np.float32))  # noqa: E731
    np.testing.assert_allclose(nabla.addmm(n(c), n(a), n(b), beta=0.3, alpha=-1.2).numpy(),
                               torch.addmm(t(c), t(a), t(b), beta=0.3, alpha=-1.2).numpy(), rtol=1e-5, atol=1e-5)
    a3, b3, c3 = rng.standard_normal((3, 6, 7)), rng.standard_normal((3, 7, 5)), rng.standard_normal((6, 1))
    np.testing.assert_allclose(nabla.baddbmm(n(c3), n(a3), n(b3), beta=2, alpha=0.5).numpy(),
                               torch.baddbmm(t(c3), t(a3), t(b3), beta=2, alpha=0.5).numpy(), rtol=1e-5, atol=1e-5)
    x, w = rng.standard_normal((4, 3, 7)), rng.standard_normal((5, 7))
    np.testing.assert_allclose(nabla.linear(n(x), n(w), n(c)).numpy(), F.linear(t(x), t(w), t(c)).numpy(),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(nabla.linear(n(x), n(w)).numpy(), F.linear(t(x), t(w)).numpy(), rtol=1e-5, atol=1e-5)


def test_error_types_are_pytorchs():
    with pytest.raises(NotImplementedError):
        nabla.mm(z(2, 2, dtype=B), z(2, 2, dtype=B))
    with pytest.raises(RuntimeError):
        nabla.mm(z(2, 3), z(2, 3))


# ---- threads and copies ----

_THREADED_SCRIPT = r"""
import numpy as np, nabla
rng = np.random.default_rng(1)
def check(got, a, b):
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    tol = 4 * a.shape[-1] * 2.0 ** -24 * np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
    assert got.shape == want.shape and np.all(np.abs(got - want) <= tol + 1e-30), (got.shape, np.abs(got - want).max())
for sa, sb in [((300, 200), (200, 260)), ((3, 130, 90), (3, 90, 110)), ((5, 70, 64), (64, 96)), ((1000, 64), (64, 1000))]:
    a = rng.standard_normal(sa).astype(np.float32); b = rng.standard_normal(sb).astype(np.float32)
    check((nabla.tensor(a) @ nabla.tensor(b)).numpy(), a, b)
    out = nabla.empty(*np.matmul(a, b).shape[:-2], np.matmul(a, b).shape[-1], np.matmul(a, b).shape[-2]).transpose(-1, -2)
    nabla.matmul(nabla.tensor(a), nabla.tensor(b), out=out)  # column-major C: computed as C^T = B^T A^T
    check(out.numpy(), a, b)
    at = nabla.tensor(np.ascontiguousarray(np.swapaxes(a, -1, -2))).transpose(-1, -2)
    check((at @ nabla.tensor(b)).numpy(), a, b)
x = rng.standard_normal((6, 50, 200)).astype(np.float32); w = rng.standard_normal((260, 200)).astype(np.float32)
bias = rng.standard_normal(260).astype(np.float32)
got = nabla.linear(nabla.tensor(x), nabla.tensor(w), nabla.tensor(bias)).numpy()
check(got - bias, x, w.T)  # the bias is copied into each block of C before its product
c = rng.standard_normal((3, 1, 110)).astype(np.float32)
a3 = rng.standard_normal((3, 130, 90)).astype(np.float32); b3 = rng.standard_normal((3, 90, 110)).astype(np.float32)
got = nabla.baddbmm(nabla.tensor(c), nabla.tensor(a3), nabla.tensor(b3), beta=2.0).numpy()
check(got - 2 * c, a3, b3)
ai = rng.integers(-100, 100, (3, 70, 50)); bi = rng.integers(-100, 100, (50, 40)); ci = rng.integers(-100, 100, (40,))
assert np.array_equal(nabla.addmm(nabla.tensor(ci), nabla.tensor(ai[0]), nabla.tensor(bi), beta=3).numpy(), 3 * ci + ai[0] @ bi)
assert np.array_equal((nabla.tensor(ai) @ nabla.tensor(bi)).numpy(), ai @ bi)
print("ok")
"""


@pytest.mark.parametrize("threads", ["1", "3", "4", "7"])
def test_results_do_not_depend_on_thread_count(threads):
    """Big GEMMs are split into blocks over OpenMP threads (2-D grids for 4 threads, uneven ones for 3 and 7)."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, OMP_NUM_THREADS=threads)
    r = subprocess.run([sys.executable, "-c", _THREADED_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_blas_reads_strided_operands_without_copies(rng):
    """Transposed operands and windows of wider matrices go to BLAS as they lie: the only new memory is the result."""
    n = 256
    base_a = tensor(rng.standard_normal((n, n + 64)).astype(np.float32))
    base_b = tensor(rng.standard_normal((n, n)).astype(np.float32))
    for a, b in ((base_a[:, 32:32 + n], base_b.t()), (base_a[:, :n].t(), base_b)):
        r = a @ b  # warm the allocator's size classes
        del r
        before = nabla.memory.stats()["allocated_bytes"]
        nabla.memory.reset_peak()
        r = a @ b
        peak = nabla.memory.stats()["peak_allocated_bytes"]
        assert peak - before <= r.nbytes * 1.25 + 4096, (peak - before, r.nbytes)
        check_close(r, values(a), values(b), nabla.float32)
    # every other column cannot be read by BLAS: that operand is copied once
    a = base_a[:, ::2][:, :n // 2]
    before = nabla.memory.stats()["allocated_bytes"]
    nabla.memory.reset_peak()
    r = a @ base_b[: n // 2]
    assert nabla.memory.stats()["peak_allocated_bytes"] - before >= r.nbytes + a.numel() * 4
    check_close(r, values(a), values(base_b[: n // 2]), nabla.float32)
