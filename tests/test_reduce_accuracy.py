"""The accuracy contract of the CPU reductions (docs/numerics.md), checked on
adversarial inputs against the exact value (math.fsum over the float64 values)
and against PyTorch's error on the same inputs: nabla's error must be within the
written bound and never above PyTorch's (give or take the final rounding)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

U32 = 2.0 ** -24  # unit roundoff of float32
U64 = 2.0 ** -53


def _ulp(v: float, dtype) -> float:
    return float(np.spacing(np.abs(dtype(v)))) if math.isfinite(v) else 0.0


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2024)
    n = 1 << 20
    big = np.float32(1e8)
    cases = {
        # a big term then many small ones: naive float32 summation loses every small term
        "big then small": np.concatenate([[big], np.ones(n, np.float32)]),
        # exact cancellation of large terms around small ones, shuffled
        "cancellation": rng.permutation(np.concatenate([
            np.full(n // 4, 1e7, np.float32), np.full(n // 4, -1e7, np.float32),
            rng.random(n // 2, dtype=np.float32)])),
        # more than 2^24 equal terms: a float32 running sum stalls at 2^24
        "long ones": np.ones((1 << 24) + 4096, np.float32),
        # magnitudes across the float32 range
        "wide range": (rng.standard_normal(n) * 10.0 ** rng.integers(-20, 20, n)).astype(np.float32),
        "normal": rng.standard_normal(n).astype(np.float32),
        "positive offset": (1000.0 + rng.random(n)).astype(np.float32),
    }
    return cases


CASES = _inputs()


def _exact_sum(a: np.ndarray, axis=None) -> np.ndarray | float:
    a64 = a.astype(np.float64)
    if axis is None:
        return math.fsum(a64.ravel())
    return np.apply_along_axis(math.fsum, axis, a64)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_sum_within_bound_and_no_worse_than_torch(name):
    a = CASES[name]
    exact = _exact_sum(a)
    got = float(nabla.from_numpy(a).sum().item())
    ref = float(torch.from_numpy(a).sum().item())
    err, terr = abs(got - exact), abs(ref - exact)
    bound = 0.5 * _ulp(exact, np.float32) + 8 * U32 * float(np.abs(a.astype(np.float64)).sum())
    assert err <= bound, (name, got, exact, bound)
    assert err <= terr + _ulp(exact, np.float32), (name, got, ref, exact)


@pytest.mark.parametrize("name", ["big then small", "cancellation", "normal", "positive offset"])
@pytest.mark.parametrize("inner", [1, 16, 256, 4096])
@pytest.mark.parametrize("dim", [0, 1])
def test_float32_dim_sum_within_bound_and_no_worse_than_torch(name, inner, dim):
    a = CASES[name]
    a = a[: a.size // inner * inner].reshape(-1, inner)
    if dim == 1 and inner == 1:
        a = a.T.copy()  # one long row
    exact = _exact_sum(a, dim)
    got = nabla.from_numpy(a).sum(dim).numpy().astype(np.float64)
    ref = torch.from_numpy(a).sum(dim).numpy().astype(np.float64)
    scale = np.abs(a.astype(np.float64)).sum(dim)
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    err, terr = np.abs(got - exact), np.abs(ref - exact)
    assert np.all(err <= 0.5 * ulp + 8 * U32 * scale), (name, inner, dim, float(np.max(err - 8 * U32 * scale)))
    # over all outputs, relative to sum |x| (single outputs' rounding errors are random)
    assert np.max(err / scale) <= np.max(terr / scale) + U32, (name, inner, dim, np.max(err / scale), np.max(terr / scale))


def test_float64_sum_within_bound_and_no_worse_than_torch():
    """Single float64 rounding errors are random: compare the median over inputs."""
    rng = np.random.default_rng(7)
    errs, terrs = [], []
    for _ in range(12):
        n = 1 << 18
        a = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        exact = math.fsum(a)
        got = float(nabla.from_numpy(a).sum().item())
        ref = float(torch.from_numpy(a).sum().item())
        scale = float(np.abs(a).sum())
        assert abs(got - exact) <= 0.5 * _ulp(exact, np.float64) + (20 + math.log2(n)) * U64 * scale
        errs.append(abs(got - exact) / scale)
        terrs.append(abs(ref - exact) / scale)
    assert np.median(errs) <= np.median(terrs) + U64, (np.median(errs), np.median(terrs))


@pytest.mark.parametrize("name", ["positive offset", "normal", "cancellation"])
def test_float32_mean_var_std_no_worse_than_torch(name):
    a = CASES[name]
    a64 = a.astype(np.float64)
    x, t = nabla.from_numpy(a), torch.from_numpy(a)
    exact = {"mean": math.fsum(a64) / a.size, "var": float(np.var(a64, ddof=1)), "std": float(np.std(a64, ddof=1))}
    # mean: the sum's bound over n; var / std: accumulated in double, a few roundings of the result
    scale = {"mean": float(np.abs(a64).mean()), "var": abs(exact["var"]), "std": abs(exact["std"])}
    for op, e in exact.items():
        got, ref = float(getattr(x, op)().item()), float(getattr(t, op)().item())
        assert abs(got - e) <= 0.5 * _ulp(e, np.float32) + 8 * U32 * scale[op], (op, got, e)
        assert abs(got - e) <= abs(ref - e) + _ulp(e, np.float32), (op, got, ref, e)


@pytest.mark.parametrize("name", ["big then small", "normal", "long ones"])
def test_float32_norm_and_logsumexp_no_worse_than_torch(name):
    a = CASES[name]
    a64 = a.astype(np.float64)
    x, t = nabla.from_numpy(a), torch.from_numpy(a)
    e = math.sqrt(math.fsum(a64 * a64))
    got = float(nabla.linalg.vector_norm(x).item())
    ref = float(torch.linalg.vector_norm(t).item())
    assert abs(got - e) <= _ulp(e, np.float32) + 8 * U32 * e
    assert abs(got - e) <= abs(ref - e) + _ulp(e, np.float32)
    m = float(a64.max())
    e = m + math.log(math.fsum(np.exp(a64 - m)))
    got = float(nabla.logsumexp(x, 0).item())
    ref = float(torch.logsumexp(t, 0).item())
    assert abs(got - e) <= _ulp(e, np.float32) + 8 * U32 * abs(e)
    assert abs(got - e) <= abs(ref - e) + _ulp(e, np.float32)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_results_do_not_depend_on_the_thread_count(threads):
    a = CASES["wide range"]
    x = nabla.from_numpy(a)
    m = x.reshape(-1, 64)
    old = nabla.get_num_threads()
    try:
        nabla.set_num_threads(1)
        want = [x.sum(), x.var(), m.sum(0), m.sum(1), nabla.logsumexp(m, 0)]
        nabla.set_num_threads(threads)
        got = [x.sum(), x.var(), m.sum(0), m.sum(1), nabla.logsumexp(m, 0)]
    finally:
        nabla.set_num_threads(old)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("rows", [1, 7, 300])
def test_float32_logsumexp_over_columns_matches_torch_with_special_values(rows):
    """The column kernel (outputs contiguous): vector tails, -inf / inf / NaN columns, large values."""
    rng = np.random.default_rng(rows)
    a = (rng.standard_normal((rows, 83)) * 30).astype(np.float32)
    a[:, 3] = -np.inf
    a[rows // 2, 4] = np.inf
    a[rows - 1, 5] = np.nan
    a[:, 80] = 88.0
    a[:, 81] = -100.0
    a[0, 70] = -np.inf
    got = nabla.logsumexp(nabla.from_numpy(a), 0).numpy()
    want = torch.logsumexp(torch.from_numpy(a), 0).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-5)
    strided = nabla.logsumexp(nabla.from_numpy(a)[:, 1:], 0).numpy()
    np.testing.assert_allclose(strided, want[1:], rtol=2e-6, atol=1e-5)
