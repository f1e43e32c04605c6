"""The CPU paths of the statistics reductions (src/ops/reduce_stats.c) against float64 NumPy and PyTorch:
norm's rows path (AVX-512: contiguous runs shorter than 128, eight at a time in exact double lanes) and its
vectorised finish, logsumexp's float64 exp (runs and columns), var / std. Run lengths around the vector
widths (8 doubles, 16 floats) and the 128 limit, one and many rows, strided and transposed views,
float32 / float64 / bfloat16, empty and 0-dim tensors, NaN and infinities, thread counts, and each
instruction set the library can be capped to."""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from capability_runs import arrays_per_level

import nabla

torch = pytest.importorskip("torch")

INF = math.inf
ORDERS = [0, 1, 2, INF, -INF, 3.5]
LENGTHS = list(range(1, 34)) + [63, 64, 65, 100, 127, 128, 129]
DTYPES = {"float32": (nabla.float32, torch.float32), "float64": (nabla.float64, torch.float64),
          "bfloat16": (nabla.bfloat16, torch.bfloat16)}


def _avx512() -> bool:
    """Whether the library takes its AVX-512 paths here (the flags src/cpu/capability.c asks for, and no
    NABLA_CPU_CAPABILITY below it)."""
    if os.environ.get("NABLA_CPU_CAPABILITY") in ("avx2", "default"):
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return all(f in flags for f in ("avx512f", "avx512vl", "avx512bw", "avx512dq"))


def _tensors(a: np.ndarray, dtype: str):
    """The values in dtype as nabla and torch tensors, and their exact float64 values."""
    t = torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype][1])
    return nabla.from_dlpack(t.clone()), t, t.double().numpy()


def _np_norm(a64: np.ndarray, p: float, axis) -> np.ndarray:
    x = np.abs(a64)
    if p == 0:
        return np.sum(x != 0, axis=axis).astype(np.float64)
    if p == INF:
        return np.max(x, axis=axis)
    if p == -INF:
        return np.min(x, axis=axis)
    with np.errstate(over="ignore"):
        return np.sum(x ** p, axis=axis) ** (1.0 / p)


def _ulp(v: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of the result dtype at |v| (bfloat16: 2^-7 relative)."""
    v = np.abs(np.asarray(v, np.float64))
    if dtype == "bfloat16":
        return np.where(v > 0, 2.0 ** (np.floor(np.log2(np.where(v > 0, v, 1.0))) - 7), 2.0 ** -133)
    return np.spacing(v.astype(np.float32 if dtype == "float32" else np.float64)).astype(np.float64)


def _within_ulps(got, ref, dtype: str, ulps: float) -> None:
    got = np.asarray(got, np.float64)
    err = np.abs(got - ref)
    same = (got == ref) | (np.isnan(got) & np.isnan(ref))
    assert np.all(same | (err <= ulps * _ulp(ref, dtype))), np.max(np.where(same, 0, err / _ulp(ref, dtype)))


# ---- norm ----

@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("p", ORDERS)
def test_norm_of_rows_matches_float64(dtype, p):
    """Rows of every length up to 33 and around 128, 1 to 131 of them (the engine hands a task
    ceil(rows / 8) of them below 512 rows: groups of eight and leftovers from 57 rows up):
    within an ulp of the float64 norm of the same values, rounded once (float64: within the roundings
    of two float64 sums)."""
    rng = np.random.default_rng(11)
    for n in LENGTHS:
        for m in (1, 8, 67, 131) if n in (1, 16, 33, 127) else (131,):
            x, _, a64 = _tensors(rng.standard_normal((m, n)), dtype)
            got = nabla.linalg.vector_norm(x, p, dim=1)
            assert got.dtype is DTYPES[dtype][0]
            _within_ulps(got.double().numpy(), _np_norm(a64, p, 1), dtype, 1.0 if dtype != "float64" else 2 + n / 4)


def test_float32_short_rows_are_summed_exactly_in_double():
    """AVX-512: runs shorter than 128 square exactly and add in double, so the result is the float64
    norm rounded once (half an ulp, bar double rounding); summing in float32 would be off by ulps."""
    if not _avx512():
        pytest.skip("the rows path is AVX-512 only; other CPUs sum short runs as long ones")
    rng = np.random.default_rng(12)
    for n in (5, 16, 31, 64, 100, 127):
        a = (rng.standard_normal((200, n)) * 10.0 ** rng.integers(-3, 4, (200, n))).astype(np.float32)
        a64 = a.astype(np.float64)
        x = nabla.from_numpy(a)
        for p in (1, 2):
            ref = _np_norm(a64, p, 1)
            got = nabla.linalg.vector_norm(x, p, dim=1).numpy().astype(np.float64)
            assert np.all(np.abs(got - ref) <= 0.5 * _ulp(ref, "float32") + 1e-15 * ref), (n, p)


RUN_OPS = {"norm1": lambda x, d: nabla.linalg.vector_norm(x, 1, dim=d),
           "norm2": lambda x, d: nabla.linalg.vector_norm(x, 2, dim=d),
           "logsumexp": lambda x, d: nabla.logsumexp(x, d)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", list(RUN_OPS))
def test_a_run_alone_equals_the_same_run_among_others(dtype, op):
    """A run's result does not depend on the runs computed beside it: a row reduced alone (the one-run
    loops), in a group of eight (the rows paths), among leftovers, or in a 3-d view with size-1 dims, is
    bit for bit the same."""
    f = RUN_OPS[op]
    rng = np.random.default_rng(13)
    m = 131  # tasks of 17 rows: two groups of eight and one left over
    for n in (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 127, 128, 200):
        # magnitudes over 16 decades: another order of the additions would round differently
        a = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-8, 8, (m, n))
        if op == "logsumexp":
            a = rng.standard_normal((m, n)) * 10.0 ** rng.integers(-2, 2, (m, n))  # terms that count
        x = nabla.from_numpy(a.astype(dtype))
        rows = f(x, 1).numpy()
        alone = np.array([f(x[j], 0).item() for j in range(m)], dtype)
        np.testing.assert_array_equal(rows, alone)
        np.testing.assert_array_equal(f(x[5:], 1).numpy(), rows[5:])
        np.testing.assert_array_equal(f(x.reshape(m, 1, n, 1), 2).numpy().reshape(m), rows)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("p", ORDERS)
def test_norm_of_strided_and_transposed_views(dtype, p):
    """Columns (a transposed view: outputs contiguous), runs with a stride, rows with a gap between them,
    a middle dim: each as the float64 norm."""
    rng = np.random.default_rng(14)
    a = rng.standard_normal((40, 34))
    x, _, a64 = _tensors(a, dtype)
    cases = [(x.t(), a64.T, 1), (x[:, ::2], a64[:, ::2], 1), (x[::3, 1:18], a64[::3, 1:18], 1),
             (x.t()[3:20], a64.T[3:20], 0), (x.reshape(10, 4, 34), a64.reshape(10, 4, 34), 1)]
    for view, ref_in, dim in cases:
        got = nabla.linalg.vector_norm(view, p, dim=dim).double().numpy()
        _within_ulps(got, _np_norm(ref_in, p, dim), dtype, 1.0 if dtype != "float64" else 16.0)


@pytest.mark.parametrize("n", [5, 16, 33, 127, 300])
def test_norm_special_values(n):
    """NaN anywhere in a run gives NaN for every order; inf gives inf (0 for -inf order only when a zero
    is there); as PyTorch."""
    rng = np.random.default_rng(n)
    base = rng.standard_normal((4, n)).astype(np.float32)
    a = base.copy()
    a[0, n // 2] = np.nan
    a[1, n - 1] = np.inf
    a[2, 0] = -np.inf
    a[3, n // 3] = 0.0
    x, t = nabla.from_numpy(a), torch.from_numpy(a)
    for p in ORDERS:
        got = nabla.linalg.vector_norm(x, p, dim=1).numpy()
        want = torch.linalg.vector_norm(t, p, dim=1).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True, err_msg=str(p))


def test_float32_norm_overflow_follows_the_path():
    """docs/numerics.md: long runs square in float32 as PyTorch (inf once a square overflows); short
    runs on AVX-512, columns and strided runs square exactly in double (the true norm)."""
    big = np.float32(2e19)
    long_run = np.full((2, 200), big, np.float32)
    assert np.isinf(nabla.linalg.vector_norm(nabla.from_numpy(long_run), dim=1).numpy()).all()
    short = np.full((9, 5), big, np.float32)
    want = float(big) * math.sqrt(5)
    cols = nabla.linalg.vector_norm(nabla.from_numpy(short.T.copy()), dim=0).numpy()
    np.testing.assert_allclose(cols, want, rtol=1e-6)
    if _avx512():
        rows = nabla.linalg.vector_norm(nabla.from_numpy(short), dim=1).numpy()
        np.testing.assert_allclose(rows, want, rtol=1e-6)


def test_norm_empty_zero_dim_and_outputs():
    for p in (0, 1, 2, 3.5):
        assert nabla.linalg.vector_norm(nabla.zeros(5, 0), p, dim=1).tolist() == [0.0] * 5
        assert nabla.linalg.vector_norm(nabla.zeros(0), p).item() == 0.0
    assert nabla.linalg.vector_norm(nabla.zeros(0, 5), INF, dim=1).shape == (0,)
    with pytest.raises(RuntimeError, match="norm"):
        nabla.linalg.vector_norm(nabla.zeros(0), INF)
    for p, want in ((0, 1.0), (1, 3.0), (2, 3.0), (INF, 3.0), (-INF, 3.0), (3.5, 3.0)):
        assert nabla.linalg.vector_norm(nabla.tensor(-3.0), p).item() == want
    a = np.random.default_rng(15).standard_normal((6, 20)).astype(np.float32)
    x = nabla.from_numpy(a)
    ref = np.sqrt((a.astype(np.float64) ** 2).sum(1))
    # the finish's other stores: a float64 result, a bfloat16 input, a strided out=, keepdim
    np.testing.assert_allclose(nabla.linalg.vector_norm(x, dim=1, dtype=nabla.float64).numpy(), ref, rtol=1e-15)
    np.testing.assert_allclose(nabla.linalg.vector_norm(x.to(nabla.bfloat16), dim=1).float().numpy(), ref, rtol=1e-2)
    o = nabla.zeros(12)
    nabla.linalg.vector_norm(x, dim=1, out=o[::2])
    np.testing.assert_allclose(o.numpy()[::2], ref, rtol=1e-6)
    assert (o.numpy()[1::2] == 0).all()
    assert nabla.linalg.vector_norm(x, dim=1, keepdim=True).shape == (6, 1)


def test_vector_norm_fast_call_matches_the_general_path():
    """linalg.vector_norm's direct call and its general path give the same results and errors."""
    x = nabla.from_numpy(np.random.default_rng(16).standard_normal((5, 7)))
    for ord_ in (2, 1, 0, 3.5, INF, -INF, 2.0):
        for dim in (None, 0, 1, -1, (0, 1)):
            np.testing.assert_array_equal(nabla.linalg.vector_norm(x, ord_, dim).numpy(),
                                          nabla.norm(x, float(ord_), dim).numpy())
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point"):
        nabla.linalg.vector_norm(nabla.tensor([1, 2]))
    with pytest.raises(IndexError, match="dimension out of range"):
        nabla.linalg.vector_norm(x, dim=2)
    with pytest.raises(TypeError, match="ord"):
        nabla.linalg.vector_norm(x, True)


# ---- logsumexp ----

def _lse_ref(a64: np.ndarray, axis: int) -> np.ndarray:
    """m + log(fsum(exp(x - m))) along axis, with PyTorch's special values."""
    def one(v):
        if np.isnan(v).any():
            return np.nan
        m = v.max()
        if not np.isfinite(m):
            return m
        return m + math.log(math.fsum(np.exp(v - m)))
    return np.apply_along_axis(one, axis, a64)


def _lse_check(got, ref):
    got = np.asarray(got, np.float64)
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(got[~finite], ref[~finite])
    # nb_exp8 is within 1 ulp; the sum and the log add a few roundings
    assert np.all(np.abs(got - ref)[finite] <= 4 * np.spacing(np.abs(ref[finite])) + 4e-16)


def test_float64_logsumexp_runs():
    """Run lengths around the 8-lane vectors and the 32-element loop, long runs cut into chunks; a wide
    range of values."""
    rng = np.random.default_rng(21)
    for n in list(range(1, 34)) + [95, 96, 97, 1000, 200003]:
        m = 1 if n > 1000 else 5
        a = rng.standard_normal((m, n)) * 30
        _lse_check(nabla.logsumexp(nabla.from_numpy(a), 1).numpy(), _lse_ref(a, 1))
    a = rng.standard_normal(300000) * 5
    got = nabla.logsumexp(nabla.from_numpy(a), 0).item()
    assert got == pytest.approx(torch.logsumexp(torch.from_numpy(a), 0).item(), rel=1e-15)


def test_float32_logsumexp_rows_match_float64():
    """Rows of every length up to 33 and around 128, in groups of eight and alone: exp in float lanes
    (about 1 ulp), sums in float then double, so a few float32 roundings of the result."""
    rng = np.random.default_rng(23)
    for n in LENGTHS:
        for m in (1, 131):
            a = (rng.standard_normal((m, n)) * 10).astype(np.float32)
            got = nabla.logsumexp(nabla.from_numpy(a), 1).numpy().astype(np.float64)
            ref = _lse_ref(a.astype(np.float64), 1)
            assert np.all(np.abs(got - ref) <= _ulp(ref, "float32") + 8 * 2.0 ** -24 * np.maximum(np.abs(ref), 1)), n


@pytest.mark.parametrize("rows", [1, 7, 300])
@pytest.mark.parametrize("cols", [8, 9, 15, 16, 17, 83, 300])
def test_float64_logsumexp_columns(rows, cols):
    """Columns (outputs contiguous), 8 at a time and the ones left over, and a strided view of them."""
    rng = np.random.default_rng(rows * 1000 + cols)
    a = rng.standard_normal((rows, cols)) * 30
    a[rows // 2, 1] = 700.0
    a[:, cols - 1] = -800.0
    got = nabla.logsumexp(nabla.from_numpy(a), 0).numpy()
    _lse_check(got, _lse_ref(a, 0))
    _lse_check(nabla.logsumexp(nabla.from_numpy(a)[:, 1:], 0).numpy(), _lse_ref(a[:, 1:], 0))
    _lse_check(nabla.logsumexp(nabla.from_numpy(a.T.copy()).t(), 0).numpy(), _lse_ref(a, 0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["rows", "columns"])
def test_logsumexp_special_values(dtype, layout):
    """-inf rows give -inf, +inf gives +inf, NaN wins over both; -inf entries add nothing."""
    rng = np.random.default_rng(22)
    for n in (3, 8, 13, 16, 17, 40, 127, 128, 200):
        a = rng.standard_normal((70, n)).astype(dtype)  # 70 rows: tasks of 9, a group of eight each
        for r in (0, 62):
            a[r] = -np.inf
            a[r + 1, n - 1] = np.inf
            a[r + 2, 0] = np.nan
            a[r + 3, n // 2] = -np.inf
            a[r + 4, 0], a[r + 4, n - 1] = np.inf, np.nan
            a[r + 5, 1 % n] = np.inf
            a[r + 5, 2 % n] = -np.inf
            a[r + 6] = 88.0
            a[r + 7, 0] = -100.0
        x = nabla.from_numpy(a if layout == "rows" else a.T.copy())
        d = 1 if layout == "rows" else 0
        got = nabla.logsumexp(x, d).numpy()
        want = torch.logsumexp(torch.from_numpy(a), 1).numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)
        for r in (0, 62):
            assert got[r] == -np.inf and got[r + 1] == np.inf and np.isnan(got[r + 2]) and np.isnan(got[r + 4])


def test_logsumexp_empty_and_zero_dim():
    for dt in (nabla.float32, nabla.float64):
        assert nabla.logsumexp(nabla.zeros(4, 0, dtype=dt), 1).tolist() == [-INF] * 4
        assert nabla.logsumexp(nabla.tensor(2.5, dtype=dt), 0).item() == 2.5
        assert nabla.logsumexp(nabla.zeros(0, 3, dtype=dt), 1).shape == (0,)


# ---- var / std ----

@pytest.mark.filterwarnings("ignore:Degrees of freedom")  # NumPy's, for rows of one with correction 1
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_rows_columns_and_views(dtype, correction):
    rng = np.random.default_rng(31)
    for n in (1, 2, 7, 16, 17, 33, 129):
        a = rng.standard_normal((11, n)) + 100.0  # far from zero: no cancellation allowed
        x, _, a64 = _tensors(a, dtype)
        for view, ref_in, dim in ((x, a64, 1), (x.t(), a64.T, 0), (x.t(), a64.T, 1), (x[::2], a64[::2], 1)):
            with np.errstate(divide="ignore", invalid="ignore"):
                want = np.var(ref_in, axis=dim, ddof=correction)  # rows of one, correction 1: inf or nan
            # float32 / bfloat16: the double result rounded once; float64: the offset of 100 costs
            # NumPy's reference and nabla about 100 ulps of the variance each
            ulps = 4.0 if dtype != "float64" else 2.0 ** 12
            _within_ulps(view.var(dim, correction=correction).double().numpy(), want, dtype, ulps)
            _within_ulps(view.std(dim, correction=correction).double().numpy(), np.sqrt(want), dtype, ulps)


# ---- threads and instruction sets ----

def _stats_results(nb):
    """The results of every new path on fixed inputs (nb: the nabla module)."""
    rng = np.random.default_rng(41)
    r16 = nb.from_numpy(rng.standard_normal((70000, 16)).astype(np.float32))
    r37 = nb.from_numpy(rng.standard_normal((3000, 37)))
    f64 = nb.from_numpy(rng.standard_normal(300001) * 20)
    cols = nb.from_numpy(rng.standard_normal((50000, 24)) * 20)
    return [nb.linalg.vector_norm(r16, 2, dim=1), nb.linalg.vector_norm(r16, 1, dim=1),
            nb.linalg.vector_norm(r37, 2, dim=1), nb.linalg.vector_norm(r16.reshape(4375, 16, 16), dim=1),
            nb.logsumexp(f64, 0), nb.logsumexp(cols, 0), nb.logsumexp(r16, 1),
            r16.var(1, correction=0), r37.std(1), f64.var()]


@pytest.mark.parametrize("threads", [2, 3])
def test_results_do_not_depend_on_the_thread_count(threads):
    old = nabla.get_num_threads()
    try:
        nabla.set_num_threads(1)
        want = [r.numpy() for r in _stats_results(nabla)]
        nabla.set_num_threads(threads)
        got = [r.numpy() for r in _stats_results(nabla)]
    finally:
        nabla.set_num_threads(old)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


_LEVELS = r"""
import sys
import numpy as np
import nabla
sys.path.insert(0, %r)
from test_reduce_stats_paths import _stats_results
np.savez(sys.argv[1], *[r.numpy() for r in _stats_results(nabla)])
"""


def test_instruction_sets_agree():
    """AVX-512 (rows path, nb_exp8), AVX2 and the portable loops: the same results within a few
    roundings (their orders of addition and exp differ)."""
    res = arrays_per_level(_LEVELS % os.path.dirname(os.path.abspath(__file__)))
    for level in ("avx2", "default"):
        for k, (g, w) in enumerate(zip(res[level], res["avx512"])):
            rtol = 1e-13 if w.dtype == np.float64 else 2e-6
            np.testing.assert_allclose(g, w, rtol=rtol, err_msg=f"{level} result {k}")
