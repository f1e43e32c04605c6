"""The CPU reductions' fast paths against NumPy float64 and PyTorch: AVX-512 max /
min runs (NaN in every part of a run), the float32 product's float pairs and
their out-of-range fallback, the capped instruction sets, row tiles, and
softmax reading float16 / bfloat16 / strided lines in place; every result
bit-identical for 1, 2 and 3 threads."""
from __future__ import annotations

import numpy as np
import pytest
from capability_runs import arrays_per_level

import nabla

torch = pytest.importorskip("torch")

# run lengths around the vector loops: the first vector, the 4-vector loop, single vectors, the scalar tail
LENGTHS = [16, 63, 64, 80, 129, 1000, 4099]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", LENGTHS)
def test_amax_amin_argmax_with_nan_anywhere(dtype, n):
    rng = np.random.default_rng(n)
    base = rng.standard_normal(n).astype(dtype)
    for pos in sorted({0, 15, 16, n // 2, n - 17, n - 1} & set(range(n))):
        a = base.copy()
        a[pos] = np.nan
        x = nabla.from_numpy(a)
        assert np.isnan(x.amax().item()) and np.isnan(x.amin().item()), pos
        assert x.argmax().item() == pos and x.argmin().item() == pos
    a = base.copy()
    a[n // 3] = np.inf
    a[n - 1] = -np.inf
    x = nabla.from_numpy(a)
    assert x.amax().item() == np.inf and x.amin().item() == -np.inf
    assert x.argmax().item() == n // 3 and x.argmin().item() == n - 1
    m = nabla.from_numpy(np.tile(base, (3, 1)))
    np.testing.assert_array_equal(m.amax(1).numpy(), np.tile(base, (3, 1)).max(1))
    np.testing.assert_array_equal(m.amin(1).numpy(), np.tile(base, (3, 1)).min(1))


@pytest.mark.parametrize("n", [64, 100, 1000, 70000])
def test_float32_prod_accumulates_in_double(n):
    """Products of floats are exact in double: the result is the exact product rounded about once."""
    rng = np.random.default_rng(n)
    a = (1.0 + (rng.random(n) - 0.5) * 2e-3).astype(np.float32)
    exact = np.prod(a.astype(np.float64))
    got = float(nabla.from_numpy(a).prod().item())
    assert abs(got - exact) <= (2.0 ** -24 + n * 2.0 ** -52) * abs(exact), (got, exact)
    ref = float(torch.from_numpy(a).prod().item())
    assert abs(got - exact) <= abs(ref - exact) + 2.0 ** -24 * abs(exact)


@pytest.mark.parametrize("case", ["wide range", "zero", "inf", "nan", "subnormal"])
def test_float32_prod_special_values(case):
    a = np.ones(256, np.float32)
    if case == "wide range":
        a[:8] = 1e30
        a[64:72] = 1e-30  # partial products leave float's range; double's they do not
    elif case == "zero":
        a[100] = 0.0
    elif case == "inf":
        a[3] = np.inf
    elif case == "nan":
        a[200] = np.nan
    else:
        a[:2] = 1e-40
        a[2:4] = 1e20
    want = np.float32(np.prod(a.astype(np.float64)))
    got = nabla.from_numpy(a).prod().numpy()
    if np.isnan(want):
        assert np.isnan(got)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)


_CAPPED = r"""
import numpy as np, nabla, sys
rng = np.random.default_rng(3)
a = rng.standard_normal((37, 1031)).astype(np.float32)
a[5, 700] = np.nan
d = a.astype(np.float64)
x, y = nabla.from_numpy(a), nabla.from_numpy(d)
p = nabla.from_numpy((1 + (a - 0.5) * 1e-3).astype(np.float32))
out = [x.amax(1), x.amin(1), x.argmax(1), y.amax(1), y.amin(1), x.amax(), p.prod(1), p.prod()]
np.savez(sys.argv[1], *[o.numpy() for o in out])
"""


def test_capped_instruction_sets_agree():
    """NABLA_CPU_CAPABILITY=avx2 runs the portable loops: max / min exactly equal, products close."""
    res = arrays_per_level(_CAPPED)
    for level in ("avx2", "default"):
        for i, (g, w) in enumerate(zip(res[level], res["avx512"])):
            if i < 6:
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-6)


def _softmax_inputs():
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((40, 300)) * 6).astype(np.float32)
    a[3, 7] = np.nan
    a[5, :] = -np.inf
    a[:, 11] = -np.inf
    b = (rng.standard_normal((5, 6, 70)) * 6).astype(np.float32)
    return [(a, (1, 0), 1), (a, (0, 1), 1), (a[:, ::3], (0, 1), 1), (b, (2, 0, 1), 2), (b, (1, 2, 0), 2),
            (b, (0, 2, 1), 2), (b, (2, 0, 1), 1)]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_reads_strided_and_half_lines_in_place(dtype, log):
    fn, ft = (nabla.log_softmax, torch.log_softmax) if log else (nabla.softmax, torch.softmax)
    for a, perm, dim in _softmax_inputs():
        tn = nabla.from_numpy(np.asarray(a)).to(getattr(nabla, dtype)).permute(*perm)
        tt = torch.from_numpy(np.asarray(a)).to(getattr(torch, dtype)).permute(*perm)
        got = fn(tn, dim)
        want = ft(tt.double(), dim).to(getattr(torch, dtype))
        assert got.dtype == tn.dtype and list(got.shape) == list(tt.shape)
        tol = {"float32": 1e-5, "bfloat16": 1e-2, "float16": 2e-3}[dtype]
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=tol, atol=tol, equal_nan=True)


def test_softmax_of_a_transposed_half_matches_the_contiguous_row_kernel():
    """Gathered lines run the contiguous float32 row kernel: bit-identical to softmax of the copied rows."""
    rng = np.random.default_rng(8)
    a = rng.standard_normal((96, 4096)).astype(np.float32)
    for dtype in (nabla.bfloat16, nabla.float32):
        t = nabla.from_numpy(a).to(dtype).t()
        got = nabla.softmax(t, 1)
        want = nabla.softmax(t.contiguous().float(), 1).to(dtype)
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("threads", [2, 3])
def test_results_do_not_depend_on_the_thread_count(threads):
    rng = np.random.default_rng(9)
    rows = nabla.from_numpy(rng.standard_normal((256, 4096)).astype(np.float32))  # narrowed row tiles
    few = nabla.from_numpy(rng.standard_normal((4, 70000)).astype(np.float32))    # rows cut into chunks
    p = nabla.from_numpy((1 + (rng.random(300000) - 0.5) * 1e-3).astype(np.float32))
    h = nabla.from_numpy(rng.standard_normal((300, 1000)).astype(np.float32)).to(nabla.bfloat16).t()

    def run():
        return [rows.sum(1), rows.amax(1), rows.prod(1), few.sum(1), few.amin(1), few.argmax(1), p.prod(),
                p.amax(), nabla.softmax(h, 1), nabla.log_softmax(rows.t(), 1)]

    old = nabla.get_num_threads()
    try:
        nabla.set_num_threads(1)
        want = run()
        nabla.set_num_threads(threads)
        got = run()
    finally:
        nabla.set_num_threads(old)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g.float().numpy(), w.float().numpy())


_COLUMN_PRODUCTS = r"""
import numpy as np, nabla, sys
rng = np.random.default_rng(11)
out = []
for rows, cols in [(300, 256), (33, 131), (1000, 37), (7, 64), (5000, 3), (64, 200)]:
    a = (1 + rng.standard_normal((rows, cols)) * 0.02).astype(np.float32)
    a[3, 1] = np.nan
    a[4, 2] = 0.0
    a[:, -1] = 3.0  # grows past float's range: inf once rounded, not in double meanwhile
    a[rows // 2, -1] = 0.0
    x = nabla.from_numpy(a)
    out += [x.prod(0), x[:, 1:].prod(0), nabla.from_numpy(np.ascontiguousarray(a.T)).t().prod(1),
            nabla.from_numpy(a.reshape(1, rows, cols)).prod(1)]
np.savez(sys.argv[1], *[o.numpy() for o in out])
"""


def test_column_products_equal_the_portable_loop_bit_for_bit():
    """Products down contiguous float32 columns (the AVX-512 kernel keeps 64 or 4 columns in registers,
    the rest in the portable loop) multiply each column in row order, as the portable loops do: the
    same bits at every instruction-set level, and float64's product rounded, within 1e-6."""
    res = arrays_per_level(_COLUMN_PRODUCTS)
    for level in ("avx2", "default"):
        for g, w in zip(res[level], res["avx512"]):
            np.testing.assert_array_equal(g.view(np.uint32), w.view(np.uint32))
    rng = np.random.default_rng(11)
    a = (1 + rng.standard_normal((300, 256)) * 0.02).astype(np.float32)
    a[3, 1], a[4, 2], a[:, -1], a[150, -1] = np.nan, 0.0, 3.0, 0.0
    want = np.prod(a.astype(np.float64), axis=0).astype(np.float32)
    np.testing.assert_allclose(nabla.from_numpy(a).prod(0).numpy(), want, rtol=1e-6, equal_nan=True)


def _sum16_columns_in_order(a):
    """SUM_COLS's arithmetic for a [n, 16] float32 block: rows added four at a time pairwise in float32,
    each group's sum added in float64, leftover rows added one at a time."""
    acc = np.zeros(a.shape[1], np.float64)
    n = len(a) - len(a) % 4
    for i in range(0, n, 4):
        acc += ((a[i] + a[i + 1]) + (a[i + 2] + a[i + 3])).astype(np.float64)
    for i in range(n, len(a)):
        acc += a[i].astype(np.float64)
    return acc


@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 63, 64, 65, 1000])
def test_sums_over_a_dim_followed_by_16_have_the_portable_bits(n):
    """A reduced dim followed by a dim of 16 ([n, 16] along 0, [k, n, 16] along 1) sums its 16 columns
    in registers: exactly the portable loop's order (float32 groups of four rows, then double), so the
    float64 emulation of that order gives the same bits; mean divides that sum once."""
    rng = np.random.default_rng(n)
    a = (rng.standard_normal((3, n, 16)) * 100).astype(np.float32)
    a[0, 0, 3] = 1e30  # cancellation: order matters
    a[0, -1, 3] = -1e30
    want = np.stack([_sum16_columns_in_order(a[k]) for k in range(3)])
    got = nabla.from_numpy(a).sum(1).numpy()
    np.testing.assert_array_equal(got, want.astype(np.float32))
    np.testing.assert_array_equal(nabla.from_numpy(a[1]).sum(0).numpy(), want[1].astype(np.float32))
    np.testing.assert_array_equal(nabla.from_numpy(a).mean(1).numpy(), (want / n).astype(np.float32))
