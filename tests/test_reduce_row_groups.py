"""The CPU reductions' paths for many short rows and for contiguous results: rows summed (or
multiplied) eight at a time with one transpose tree give each row the bits it gets alone; the
results are stored as runs (float32, float64, bfloat16 rounded once through round-to-odd) with
the bits of the one-at-a-time stores; a reduction over dims of size 1 returns its input. Each
against NumPy float64, across instruction sets and thread counts."""
from __future__ import annotations

import numpy as np
import pytest
from capability_runs import arrays_per_level

import nabla

torch = pytest.importorskip("torch")

# row lengths around the vector part: chunks of 16, the partial block's 1..7 chunks, blocks of
# 128, the scalar tail, and the group path's limit (512)
ROW_LENGTHS = [1, 7, 15, 16, 17, 31, 32, 33, 48, 64, 65, 100, 112, 127, 128, 129, 200, 256, 300, 511, 512, 513]
ROW_COUNTS = [8, 13, 70]  # one group, a group and a remainder, tiles of 64 rows and a remainder
U32 = 2.0 ** -24


def _rows(rng, m, n, kind):
    if kind == "cancel":  # large values cancelling: the float stage's error shows
        a = rng.uniform(-1e4, 1e4, (m, n))
        a[:, 1::2] = -a[:, ::2][:, : n // 2]
        return (a + rng.uniform(-1, 1, (m, n))).astype(np.float32)
    return (rng.standard_normal((m, n)) + 0.25).astype(np.float32)


def _as(x, dtype):
    t = nabla.from_numpy(x)
    return t if dtype == "float32" else t.to(getattr(nabla, dtype))


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
@pytest.mark.parametrize("n", ROW_LENGTHS)
@pytest.mark.parametrize("m", ROW_COUNTS)
def test_grouped_row_sums_have_the_bits_of_single_rows(dtype, n, m):
    rng = np.random.default_rng(n * 131 + m)
    kinds = ("normal", "cancel") if dtype == "float32" else ("normal",)
    for kind in kinds:
        x = _as(_rows(rng, m, n, kind), dtype)
        rows = x.sum(1, dtype=nabla.float32).numpy()  # (dtype=float64 would sum a float64 copy)
        for j in sorted({0, 7, 8, m // 2, m - 1} & set(range(m))):
            alone = x[j:j + 1].sum(1, dtype=nabla.float32).numpy()[0]
            assert rows[j] == alone, (kind, j, rows[j], alone)
        # the float32 contract: |s - S| <= ulp(S) / 2 + 8 u A, A the sum of magnitudes
        exact = x.to(nabla.float64).numpy().sum(1)
        got = x.sum(1, dtype=nabla.float32).numpy().astype(np.float64)
        bound = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64) / 2 + \
            8 * U32 * np.abs(x.to(nabla.float64).numpy()).sum(1)
        assert np.all(np.abs(got - exact) <= bound), (kind, np.max(np.abs(got - exact) - bound))


@pytest.mark.parametrize("n", [16, 33, 64, 100, 256, 513])
def test_grouped_row_products_have_the_bits_of_single_rows(n):
    rng = np.random.default_rng(n)
    a = rng.uniform(0.7, 1.4, (19, n)).astype(np.float32)
    a[3, n // 2] = 0.0
    a[4, 0] = np.nan
    a[5, n - 1] = -np.inf
    x = nabla.from_numpy(a)
    rows = x.prod(1).numpy()
    for j in range(19):
        alone = x[j:j + 1].prod(1).numpy()[0]
        assert rows[j] == alone or (np.isnan(rows[j]) and np.isnan(alone)), (j, rows[j], alone)
    want = np.prod(a.astype(np.float64), axis=1)
    np.testing.assert_allclose(x.prod(1).numpy(), want.astype(np.float32), rtol=2 * U32)


def test_rows_of_a_wider_array_and_a_transposed_view():
    """Rows whose stride exceeds their length take the group path; a transposed view reduces
    columns. Both against float64 NumPy and torch."""
    rng = np.random.default_rng(3)
    a = rng.uniform(-1.25, 1.25, (300, 90)).astype(np.float32)
    a[a > 0] += 0.5  # products neither underflow nor overflow float32
    x, t = nabla.from_numpy(a), torch.from_numpy(a)
    for nv, tv in ((x[:, 5:69], t[:, 5:69]), (x[::2, :40], t[::2, :40]), (x.t()[:, :100], t.t()[:, :100])):
        ref = tv.double().sum(1).numpy()
        np.testing.assert_allclose(nv.sum(1).numpy(), ref, rtol=1e-6, atol=1e-5)
        np.testing.assert_allclose(nv.mean(1).numpy(), tv.double().mean(1).numpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(nv.prod(1).numpy(), tv.double().prod(1).numpy(), rtol=1e-5)


def _bf16_round(v: np.ndarray) -> np.ndarray:
    """float64 -> the nearest bfloat16 (ties to even), exactly, as float64."""
    out = np.empty_like(v)
    for i, d in enumerate(v.ravel()):
        if not np.isfinite(d) or d == 0:
            out.flat[i] = d
            continue
        e = np.floor(np.log2(abs(d)))
        ulp = 2.0 ** (e - 7)
        q = d / ulp
        r = np.floor(q)
        frac = q - r
        if frac > 0.5 or (frac == 0.5 and r % 2 == 1):
            r += 1
        out.flat[i] = r * ulp
    return out


@pytest.mark.parametrize("op", ["sum", "mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_run_stores_have_the_bits_of_single_stores(op, dtype):
    """Contiguous results are stored as a run; a strided out= takes the one-at-a-time store."""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((45, 37)) * 100).astype(np.float32)
    a[2] = np.nan
    a[3, 0] = np.inf
    x = nabla.from_numpy(a)
    dt = getattr(nabla, dtype)
    run = getattr(nabla, op)(x, 1, dtype=dt)
    strided = nabla.empty((45, 3), dtype=dt)[:, 1]
    getattr(nabla, op)(x, 1, dtype=dt, out=strided)
    np.testing.assert_array_equal(run.to(nabla.float64).numpy(), strided.to(nabla.float64).numpy())
    cols = getattr(nabla, op)(x, 0, dtype=dt)  # column sums: the run store after the column loop
    np.testing.assert_allclose(cols.to(nabla.float64).numpy(), getattr(a.astype(np.float64), op)(0),
                               rtol={"bfloat16": 2 ** -8}.get(dtype, 1e-6))


def test_bfloat16_results_round_once():
    """A float64 sum halfway between two bfloat16 values plus a little rounds up: a second rounding
    through float32 would lose the little and round to even."""
    half = 1 + 2.0 ** -8  # halfway between 1 and 1 + 2^-7
    a = np.zeros((24, 2), np.float32)
    a[:, 0] = half
    a[:, 1] = np.float32(2.0 ** -40)
    a[1::2, 1] = -np.float32(2.0 ** -40)  # and a little less: rounds down
    a[5] = (-half, 2.0 ** -40)
    x = nabla.from_numpy(a)
    want = _bf16_round(a.astype(np.float64).sum(1))
    assert want[0] == 1 + 2.0 ** -7 and want[1] == 1.0
    for out in (x.sum(1, dtype=nabla.bfloat16), nabla.sum(x, 1, dtype=nabla.bfloat16,
                                                          out=nabla.empty((24, 2), dtype=nabla.bfloat16)[:, 0])):
        np.testing.assert_array_equal(out.to(nabla.float64).numpy(), want)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_bfloat16_extremes_stored_as_a_run(op):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((33, 50)).astype(np.float32)
    a[7, 9] = np.nan
    t = torch.from_numpy(a).to(torch.bfloat16)
    x = nabla.from_dlpack(t)
    for d in (0, 1):
        got = getattr(x, op)(d).to(nabla.float32).numpy()
        want = getattr(t, op)(d).float().numpy()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype,op", [(d, o) for d in ("float32", "float64", "bfloat16", "float16", "int64", "int32",
                                                       "bool")
                                      for o in ("sum", "mean", "prod", "amax", "amin")
                                      if not (o == "mean" and d in ("int64", "int32", "bool"))])
def test_reducing_dims_of_size_one_returns_the_input(dtype, op):
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((1030, 1, 3, 1)) * 50).astype(np.float64)
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    x = nabla.from_dlpack(t.contiguous())
    for dims in ((3,), (1, 3)) if op != "prod" else (3,):
        got = getattr(x, op)(dims)
        want = getattr(t, op)(dims)
        assert got.dtype == getattr(nabla, str(want.dtype).split(".")[1])
        np.testing.assert_array_equal(got.to(nabla.float64).numpy(), want.double().numpy())


_SCRIPT = r"""
import sys, numpy as np, nabla
rng = np.random.default_rng(9)
out = []
for m, n in ((40, 16), (19, 33), (70, 100), (9, 128), (24, 300), (3, 5000)):
    a = (rng.standard_normal((m, n)) * 10 + 1).astype(np.float32)
    x = nabla.from_numpy(a)
    out += [x.sum(1), x.mean(1), x.to(nabla.bfloat16).sum(1, dtype=nabla.float32),
            x.to(nabla.float16).sum(1, dtype=nabla.float32), x.sum(1, dtype=nabla.bfloat16), x.prod(1)]
np.savez(sys.argv[1], *[o.to(nabla.float64).numpy() for o in out])
"""


def test_instruction_sets_agree():
    """The AVX-512 sums add in the portable loops' order (equal bit for bit); products differ in
    the order of their double roundings only."""
    res = arrays_per_level(_SCRIPT)
    for level in ("avx2", "default"):
        for i, (g, w) in enumerate(zip(res[level], res["avx512"])):
            if i % 6 == 5:
                np.testing.assert_allclose(g, w, rtol=1e-6)
            else:
                np.testing.assert_array_equal(g, w)


def test_thread_counts_agree():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5000, 48)).astype(np.float32)
    x = nabla.from_numpy(a)
    before = nabla.get_num_threads()
    try:
        res = []
        for th in (1, 2, 3):
            nabla.set_num_threads(th)
            res.append([x.sum(1).numpy(), x.mean(1).numpy(), x.prod(1).numpy(), x.to(nabla.bfloat16).sum(1).
                        to(nabla.float32).numpy(), x.amax(1).numpy()])
    finally:
        nabla.set_num_threads(before)
    for r in res[1:]:
        for g, w in zip(r, res[0]):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("n", [16, 33, 64, 300])
def test_bfloat16_rows_of_the_stats_kernels(n):
    """bfloat16 rows widened several at a time reach the float32 kernels' row groups: norm, var,
    logsumexp and amax against float64, and the run store against a strided out=."""
    rng = np.random.default_rng(n)
    t = torch.from_numpy(rng.standard_normal((70, n)).astype(np.float32)).to(torch.bfloat16)
    x = nabla.from_dlpack(t)
    a = t.double().numpy()
    got = nabla.linalg.vector_norm(x, dim=1)
    np.testing.assert_allclose(got.to(nabla.float64).numpy(), np.sqrt((a * a).sum(1)), rtol=2 ** -8)
    strided = nabla.empty((70, 2), dtype=nabla.bfloat16)[:, 1]
    nabla.linalg.vector_norm(x, dim=1, out=strided)
    np.testing.assert_array_equal(strided.to(nabla.float64).numpy(), got.to(nabla.float64).numpy())
    np.testing.assert_allclose(x.var(1).to(nabla.float64).numpy(), a.var(1, ddof=1), rtol=2 ** -7)
    lse = np.log(np.exp(a).sum(1))
    np.testing.assert_allclose(nabla.logsumexp(x, 1).to(nabla.float64).numpy(), lse, rtol=2 ** -8)
    np.testing.assert_array_equal(x.amax(1).to(nabla.float64).numpy(), a.max(1))
