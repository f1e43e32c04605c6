"""Random numbers: the Philox stream convention (checked against a NumPy
reimplementation), reproducibility across seeds, generators and thread counts,
statistical checks with fixed seeds, dtype/shape/device/out arguments, and every
error path. Statistical bounds are generous (p-values above 1e-6, means within
6 standard errors) but would catch a wrong distribution or a biased mapping."""
from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from scipy import stats

import nabla
import nabla.nn.functional as F

P_MIN = 1e-6  # smallest p-value a fixed-seed test accepts


# ---- a NumPy reimplementation of the documented stream (src/ops/philox.h) ----

_MASK = np.uint64(0xFFFFFFFF)


def philox_blocks(seed: int, first: int, count: int) -> np.ndarray:
    """Words of blocks first .. first+count-1: shape (count, 4), uint32."""
    b = np.arange(first, first + count, dtype=np.uint64)
    c0, c1 = b & _MASK, b >> np.uint64(32)
    c2 = c3 = np.zeros_like(b)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
        p0, p1 = c0 * np.uint64(0xD2511F53), c2 * np.uint64(0xCD9E8D57)
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & _MASK,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & _MASK)
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def words(seed: int, first_block: int, n: int) -> np.ndarray:
    return philox_blocks(seed, first_block, (n + 3) // 4).reshape(-1)[:n].astype(np.uint64)


def values64(seed: int, first_block: int, n: int) -> np.ndarray:
    w = philox_blocks(seed, first_block, (n + 1) // 2).astype(np.uint64).reshape(-1, 2)
    return ((w[:, 1] << np.uint64(32)) | w[:, 0])[:n]


def state(gen=None) -> tuple[int, int]:
    raw = (gen or nabla.default_generator).get_state().numpy().view("<u8")
    return int(raw[0]), int(raw[1])


def test_philox_reference_matches_the_random123_known_answers():
    w = philox_blocks(0, 0, 1)[0]
    assert [hex(x) for x in w] == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]


@pytest.mark.parametrize("n", [1, 5, 37, 70001])
def test_rand_float32_is_the_documented_stream(n):
    seed = 123456789012345
    g = nabla.Generator().manual_seed(seed)
    got = nabla.rand(n, generator=g).numpy()
    want = (words(seed, 0, n) >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
    np.testing.assert_array_equal(got, want)
    assert state(g) == (seed, (n + 3) // 4)
    # the next call starts at the next unused block
    got2 = nabla.rand(3, generator=g).numpy()
    want2 = (words(seed, (n + 3) // 4, 3) >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
    np.testing.assert_array_equal(got2, want2)


def test_rand_float64_and_randint_are_the_documented_stream():
    g = nabla.Generator().manual_seed(7)
    got = nabla.rand(1001, generator=g, dtype=nabla.float64).numpy()
    np.testing.assert_array_equal(got, (values64(7, 0, 1001) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)
    base = (1001 + 1) // 2
    got = nabla.randint(-5, 95, (999,), generator=g).numpy()  # span 100 <= 2^16: one word each
    np.testing.assert_array_equal(got, -5 + ((words(7, base, 999) * np.uint64(100)) >> np.uint64(32)).astype(np.int64))
    base += (999 + 3) // 4
    got = nabla.randint(0, 1 << 40, (11,), generator=g).numpy()  # wide span: 64 bits each
    want = [(int(v) * (1 << 40)) >> 64 for v in values64(7, base, 11)]
    np.testing.assert_array_equal(got, want)


def test_randperm_is_the_documented_fisher_yates():
    g = nabla.Generator().manual_seed(99)
    n = 1000
    got = nabla.randperm(n, generator=g).numpy()
    vals = values64(99, 0, n)
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = (int(vals[i]) * (i + 1)) >> 64
        a[i], a[j] = a[j], a[i]
    np.testing.assert_array_equal(got, a)


def test_randn_float32_is_box_muller_of_the_stream():
    g = nabla.Generator().manual_seed(5)
    n = 4099
    got = nabla.randn(n, generator=g).numpy().astype(np.float64)
    w = words(5, 0, n + 1).reshape(-1)
    u1 = ((w[0::2] >> np.uint64(8)) + np.uint64(1)).astype(np.float64) * 2.0 ** -24
    u2 = (w[1::2] >> np.uint64(8)).astype(np.float64) * 2.0 ** -24
    r, theta = np.sqrt(-2 * np.log(u1)), 2 * np.pi * u2
    want = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).reshape(-1)[:n]
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6)


def test_randn_float64_is_box_muller_of_the_stream():
    g = nabla.Generator().manual_seed(5)
    n = 301
    got = nabla.randn(n, generator=g, dtype=nabla.float64).numpy()
    w = philox_blocks(5, 0, (n + 1) // 2).astype(np.uint64)
    u1 = (((w[:, 1] << np.uint64(32) | w[:, 0]) >> np.uint64(11)) + np.uint64(1)).astype(np.float64) * 2.0 ** -53
    u2 = ((w[:, 3] << np.uint64(32) | w[:, 2]) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    r, theta = np.sqrt(-2 * np.log(u1)), 2 * np.pi * u2
    want = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).reshape(-1)[:n]
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


# ---- reproducibility ----

DRAWS = {
    "rand": lambda g: nabla.rand(3, 5, generator=g),
    "randn": lambda g: nabla.randn(7, generator=g, dtype=nabla.float64),
    "randint": lambda g: nabla.randint(-3, 1000, (50,), generator=g),
    "randperm": lambda g: nabla.randperm(33, generator=g),
    "uniform_": lambda g: nabla.empty(9).uniform_(-2, 5, generator=g),
    "normal_": lambda g: nabla.empty(9).normal_(1, 3, generator=g),
    "random_": lambda g: nabla.empty(9, dtype=nabla.int16).random_(generator=g),
    "bernoulli": lambda g: nabla.bernoulli(nabla.full((40,), 0.3), generator=g),
    "bernoulli_": lambda g: nabla.zeros(40).bernoulli_(0.7, generator=g),
    "multinomial": lambda g: nabla.multinomial(nabla.tensor([[1.0, 2, 3], [3, 0, 1]]), 4, True, generator=g),
    "multinomial_noreplace": lambda g: nabla.multinomial(nabla.arange(1.0, 11.0), 6, generator=g),
    "normal": lambda g: nabla.normal(nabla.zeros(4), nabla.ones(4), generator=g),
    "dropout": lambda g: nabla.dropout(nabla.ones(30), 0.4, True, generator=g),
}


@pytest.mark.parametrize("name", DRAWS)
def test_same_seed_same_numbers(name):
    draw = DRAWS[name]
    a = draw(nabla.Generator().manual_seed(2024)).numpy()
    b = draw(nabla.Generator().manual_seed(2024)).numpy()
    np.testing.assert_array_equal(a, b)
    g = nabla.Generator().manual_seed(2024)
    first, second = draw(g).numpy(), draw(g).numpy()  # the stream moves on
    np.testing.assert_array_equal(first, a)
    assert not np.array_equal(first, second)


@pytest.mark.parametrize("name", DRAWS)
def test_default_generator_is_reproducible_with_manual_seed(name):
    draw = DRAWS[name]
    assert nabla.manual_seed(31) is nabla.default_generator
    a = draw(None).numpy()
    nabla.manual_seed(31)
    b = draw(None).numpy()
    np.testing.assert_array_equal(a, b)


THREAD_SCRIPT = r"""
import hashlib, nabla
nabla.manual_seed(77)
g = nabla.Generator().manual_seed(78)
x = nabla.ones(300007)
outs = [nabla.rand(300007), nabla.randn(300005), nabla.rand(200003, dtype=nabla.float64),
        nabla.randn(200001, dtype=nabla.float64), nabla.rand(131075, dtype=nabla.float16),
        nabla.randint(0, 7, (300001,)), nabla.randint(-1 << 40, 1 << 40, (200001,), generator=g),
        nabla.empty(700, 500).uniform_(-1, 1).transpose(0, 1), nabla.empty(600, 501).normal_(2, 3),
        nabla.bernoulli(nabla.full((300003,), 0.25)), nabla.dropout(x, 0.3, True),
        nabla.randperm(100003), nabla.multinomial(nabla.ones(300, 1000), 1000, True),
        nabla.multinomial(nabla.rand(100, 700), 50)]
h = hashlib.sha256()
for t in outs:
    h.update(t.contiguous().float().numpy().tobytes() if t.dtype is nabla.float16 else t.contiguous().numpy().tobytes())
print(h.hexdigest())
"""


def test_results_do_not_depend_on_the_thread_count_or_the_simd_path():
    digests = set()
    for threads, no_simd in (("1", "0"), ("2", "0"), ("3", "0"), ("2", "1")):
        env = dict(os.environ, OMP_NUM_THREADS=threads, NABLA_RNG_NO_SIMD=no_simd)
        result = subprocess.run([sys.executable, "-c", THREAD_SCRIPT], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode == 0, result.stderr
        digests.add(result.stdout.strip())
    assert len(digests) == 1, digests


def test_generators_are_independent():
    a, b = nabla.Generator().manual_seed(1), nabla.Generator().manual_seed(2)
    assert not np.array_equal(nabla.rand(100, generator=a).numpy(), nabla.rand(100, generator=b).numpy())
    nabla.manual_seed(5)
    before = state()
    nabla.rand(100, generator=a)  # another generator leaves the default alone
    assert state() == before
    c = nabla.Generator().manual_seed(1)
    nabla.rand(200, generator=c)  # a has drawn 2 x 100
    np.testing.assert_array_equal(nabla.rand(10, generator=a).numpy(), nabla.rand(10, generator=c).numpy())


def test_state_save_and_restore_replays_the_stream():
    g = nabla.Generator().manual_seed(8)
    nabla.randn(13, generator=g)
    saved = g.get_state()
    assert saved.dtype is nabla.uint8 and tuple(saved.shape) == (16,)
    a = [nabla.rand(5, generator=g).numpy(), nabla.randint(9, (4,), generator=g).numpy()]
    g.set_state(saved)
    b = [nabla.rand(5, generator=g).numpy(), nabla.randint(9, (4,), generator=g).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    other = nabla.Generator().set_state(saved)  # a state moves between generators
    assert other.initial_seed() == 8
    np.testing.assert_array_equal(nabla.rand(5, generator=other).numpy(), a[0])
    nabla.set_rng_state(saved)
    np.testing.assert_array_equal(nabla.rand(5).numpy(), a[0])


def test_seeds():
    assert nabla.Generator().initial_seed() == 67280421310721
    assert nabla.manual_seed(-1).initial_seed() == 2 ** 64 - 1
    assert nabla.initial_seed() == 2 ** 64 - 1
    assert nabla.manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    assert nabla.manual_seed(3.0).initial_seed() == 3
    s = nabla.seed()
    assert isinstance(s, int) and nabla.initial_seed() == s
    g = nabla.Generator()
    assert g.manual_seed(10) is g and g.initial_seed() == 10
    s2 = g.seed()
    assert g.initial_seed() == s2 and state(g) == (s2, 0)
    nabla.rand(8, generator=g)
    g.manual_seed(10)
    assert state(g) == (10, 0)  # manual_seed rewinds
    assert g.device == nabla.device("cpu") and "Generator" in repr(g)
    nabla.manual_seed(0)


def test_generator_shared_by_threads_hands_out_disjoint_blocks():
    g = nabla.Generator().manual_seed(3)
    results = []

    def work():
        for _ in range(50):
            results.append(nabla.rand(1000, generator=g).numpy())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert state(g) == (3, 4 * 50 * 250)
    everything = np.sort(np.concatenate(results))
    np.testing.assert_array_equal(everything, np.sort(nabla.rand(200000, generator=nabla.Generator().manual_seed(3)).numpy()))


# ---- statistics (fixed seeds) ----

N = 1_000_000


def mean_within(x: np.ndarray, mean: float, var: float, k: float = 6.0) -> None:
    se = np.sqrt(var / x.size)
    assert abs(x.mean() - mean) < k * se, (x.mean(), mean, se)


def var_within(x: np.ndarray, var: float, kurtosis: float, k: float = 6.0) -> None:
    se = var * np.sqrt((kurtosis - 1) / x.size)  # kurtosis: E[(x-m)^4] / var^2
    assert abs(x.var() - var) < k * se, (x.var(), var, se)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
def test_rand_moments_and_histogram(dtype):
    nabla.manual_seed(11)
    x = nabla.rand(N, dtype=dtype).numpy().astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    mean_within(x, 0.5, 1 / 12)
    var_within(x, 1 / 12, 1.8)
    counts = np.histogram(x, bins=100, range=(0, 1))[0]
    assert stats.chisquare(counts).pvalue > P_MIN


def test_uniform_range_moments():
    x = nabla.empty(N, dtype=nabla.float64).uniform_(-3, 5, generator=nabla.Generator().manual_seed(4)).numpy()
    assert x.min() >= -3 and x.max() < 5
    mean_within(x, 1.0, 64 / 12)
    var_within(x, 64 / 12, 1.8)


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64])
def test_randn_is_standard_normal(dtype):
    nabla.manual_seed(12)
    x = nabla.randn(N, dtype=dtype).numpy().astype(np.float64)
    mean_within(x, 0.0, 1.0)
    var_within(x, 1.0, 3.0)
    assert abs(stats.skew(x)) < 6 * np.sqrt(6 / N)
    assert abs(stats.kurtosis(x)) < 6 * np.sqrt(24 / N)
    assert stats.kstest(x, "norm").pvalue > P_MIN
    # tails: P(|z| > 3) = 0.0027
    tail = np.mean(np.abs(x) > 3)
    assert abs(tail - 0.0026998) < 6 * np.sqrt(0.0027 / N)


def test_normal_mean_std_moments():
    x = nabla.empty(N).normal_(-2.0, 0.5, generator=nabla.Generator().manual_seed(13)).numpy().astype(np.float64)
    mean_within(x, -2.0, 0.25)
    var_within(x, 0.25, 3.0)
    y = nabla.normal(3.0, 2.0, (N,), generator=nabla.Generator().manual_seed(13)).numpy().astype(np.float64)
    mean_within(y, 3.0, 4.0)
    var_within(y, 4.0, 3.0)


@pytest.mark.parametrize("low,high", [(0, 10), (-7, 13), (0, 1 << 20), (-(1 << 40), 1 << 40)])
def test_randint_chi_square(low, high):
    x = nabla.randint(low, high, (N,), generator=nabla.Generator().manual_seed(14)).numpy()
    assert x.min() >= low and x.max() < high
    bins = min(high - low, 64)
    counts = np.bincount(((x - low) * bins // (high - low)).astype(np.int64), minlength=bins)
    assert stats.chisquare(counts).pvalue > P_MIN
    mean_within(x.astype(np.float64), (low + high - 1) / 2, ((high - low) ** 2 - 1) / 12)


def test_randint_reaches_both_ends():
    x = nabla.randint(-2, 3, (10000,), dtype=nabla.int8).numpy()
    assert set(x.tolist()) == {-2, -1, 0, 1, 2}
    b = nabla.randint(0, 2, (1000,), dtype=nabla.bool).numpy()
    assert b.dtype == np.bool_ and b.any() and not b.all()


def test_randperm_is_a_uniform_permutation():
    g = nabla.Generator().manual_seed(15)
    for n in (0, 1, 2, 17, 100000):
        p = nabla.randperm(n, generator=g).numpy()
        assert p.dtype == np.int64 and np.array_equal(np.sort(p), np.arange(n))
    firsts = np.array([nabla.randperm(6, generator=g)[0].item() for _ in range(6000)])
    assert stats.chisquare(np.bincount(firsts, minlength=6)).pvalue > P_MIN
    perms = [tuple(nabla.randperm(3, generator=g).tolist()) for _ in range(6000)]
    counts = [perms.count(p) for p in set(perms)]
    assert len(counts) == 6 and stats.chisquare(counts).pvalue > P_MIN


def test_bernoulli_frequencies():
    g = nabla.Generator().manual_seed(16)
    for p in (0.0, 0.01, 0.5, 0.93, 1.0):
        x = nabla.bernoulli(nabla.full((N,), p), generator=g).numpy()
        assert set(np.unique(x)) <= {0.0, 1.0}
        if p in (0.0, 1.0):
            assert (x == p).all()
        else:
            mean_within(x, p, p * (1 - p))
    probs = np.tile(np.array([0.1, 0.9, 0.5], dtype=np.float32), N // 3)
    x = nabla.bernoulli(nabla.tensor(probs), generator=g).numpy().reshape(-1, 3)
    for c, p in enumerate((0.1, 0.9, 0.5)):
        mean_within(x[:, c], p, p * (1 - p))
    y = nabla.zeros(N, dtype=nabla.int64).bernoulli_(0.25, generator=g).numpy()
    assert y.dtype == np.int64
    mean_within(y.astype(np.float64), 0.25, 0.25 * 0.75)


def test_multinomial_with_replacement_frequencies():
    w = np.array([1.0, 0.0, 3.0, 6.0])
    x = nabla.multinomial(nabla.tensor(w), N, True, generator=nabla.Generator().manual_seed(17)).numpy()
    counts = np.bincount(x, minlength=4)
    assert counts[1] == 0
    exp = w / w.sum() * N
    assert stats.chisquare(counts[[0, 2, 3]], exp[[0, 2, 3]]).pvalue > P_MIN
    rows = nabla.multinomial(nabla.tensor([[5.0, 5.0], [0.0, 1.0], [1.0, 3.0]]), 20000, True,
                             generator=nabla.Generator().manual_seed(18)).numpy()
    assert rows.shape == (3, 20000)
    assert (rows[1] == 1).all()
    assert stats.chisquare(np.bincount(rows[0], minlength=2)).pvalue > P_MIN
    assert stats.chisquare(np.bincount(rows[2], minlength=2), [5000, 15000]).pvalue > P_MIN


def test_multinomial_without_replacement():
    g = nabla.Generator().manual_seed(19)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    draws = nabla.multinomial(nabla.tensor(np.tile(w, (60000, 1))), 2, generator=g).numpy()
    assert draws.shape == (60000, 2) and (draws[:, 0] != draws[:, 1]).all()
    # first pick ~ w / sum; second pick given the first ~ w / (sum - w_first)
    assert stats.chisquare(np.bincount(draws[:, 0], minlength=4), w / w.sum() * 60000).pvalue > P_MIN
    second = draws[draws[:, 0] == 3, 1]
    assert stats.chisquare(np.bincount(second, minlength=3)[:3], w[:3] / w[:3].sum() * second.size).pvalue > P_MIN
    full = nabla.multinomial(nabla.tensor([0.0, 5.0, 1.0, 0.0]), 4, generator=g).numpy()
    assert sorted(full[:2].tolist()) == [1, 2] and full[2:].tolist() == [0, 3]  # zero weights last, in order


def test_dropout_mask_scale_and_expectation():
    x = nabla.ones(N)
    g = nabla.Generator().manual_seed(20)
    y = nabla.dropout(x, 0.25, True, generator=g).numpy()
    kept = y != 0
    np.testing.assert_array_equal(y[kept], np.float32(1 / 0.75))
    mean_within(kept.astype(np.float64), 0.75, 0.75 * 0.25)
    # the keep mask is bernoulli(1 - p) drawn from the same words
    g.manual_seed(20)
    mask = nabla.bernoulli(nabla.full((N,), 0.75), generator=g).numpy()
    np.testing.assert_array_equal(mask != 0, kept)


# ---- arguments: shapes, dtypes, out=, layouts, devices ----

def test_shape_forms():
    for t in (nabla.rand(2, 3), nabla.rand((2, 3)), nabla.rand([2, 3]), nabla.rand(nabla.Size([2, 3])),
              nabla.rand(size=(2, 3)), nabla.randn(2, 3), nabla.randn(size=[2, 3]),
              nabla.randint(5, (2, 3)), nabla.randint(1, 5, size=(2, 3)), nabla.randint(low=1, high=5, size=(2, 3)),
              nabla.normal(0.0, 1.0, (2, 3)), nabla.normal(0.0, 1.0, size=(2, 3))):
        assert tuple(t.shape) == (2, 3)
    assert tuple(nabla.rand(()).shape) == () and tuple(nabla.rand(0, 4).shape) == (0, 4)
    assert nabla.randperm(0).numel() == 0


@pytest.mark.parametrize("dtype", [nabla.float32, nabla.float64, nabla.float16, nabla.bfloat16])
def test_float_dtypes(dtype):
    nabla.manual_seed(21)
    u = nabla.rand(100000, dtype=dtype)
    assert u.dtype is dtype
    v = u.float().numpy().astype(np.float64)
    assert v.min() >= 0 and v.max() < 1  # no rounding up to 1 in the half types
    mean_within(v, 0.5, 1 / 12)
    z = nabla.randn(100000, dtype=dtype)
    assert z.dtype is dtype
    mean_within(z.float().numpy().astype(np.float64), 0.0, 1.0)
    w = nabla.empty(100000, dtype=dtype).uniform_(0.5, 0.75).float().numpy()
    assert w.min() >= 0.5 and w.max() < 0.75


def test_default_dtype_is_followed():
    nabla.set_default_dtype(nabla.float64)
    assert nabla.rand(3).dtype is nabla.float64 and nabla.randn(3).dtype is nabla.float64
    assert nabla.randint(3, (2,)).dtype is nabla.int64


@pytest.mark.parametrize("dtype,low,high", [(nabla.int8, -128, 128), (nabla.uint8, 0, 256), (nabla.int16, -5, 5),
                                            (nabla.int32, -(1 << 31), 1 << 31), (nabla.float32, -100, 100),
                                            (nabla.float16, -2048, 2049), (nabla.bool, 0, 2)])
def test_randint_dtypes(dtype, low, high):
    t = nabla.randint(low, high, (5000,), dtype=dtype)
    assert t.dtype is dtype
    v = t.float().numpy() if dtype is nabla.bfloat16 else t.numpy()
    assert v.min() >= low and v.max() <= high - 1
    assert (v.astype(np.float64) == np.round(v.astype(np.float64))).all()


def test_random_():
    assert (nabla.empty(1000, dtype=nabla.int8).random_().numpy() >= 0).all()
    v = nabla.empty(100000, dtype=nabla.uint8).random_().numpy()
    assert v.min() == 0 and v.max() == 255
    f = nabla.empty(100000).random_().numpy()
    assert f.min() >= 0 and f.max() <= 2 ** 24 and (f == np.round(f)).all() and f.max() > 2 ** 23
    r = nabla.empty(10000).random_(7).numpy()
    assert set(np.unique(r)) == set(range(7))
    r = nabla.empty(10000, dtype=nabla.int64).random_(-3, 3).numpy()
    assert set(np.unique(r)) == set(range(-3, 3))
    r = nabla.empty(10000, dtype=nabla.int64).random_(**{"from": 5, "to": 8}).numpy()
    assert set(np.unique(r)) == {5, 6, 7}
    big = nabla.empty(10000, dtype=nabla.int64).random_().numpy()
    assert big.min() >= 0 and big.max() > 2 ** 62
    assert nabla.empty(50, dtype=nabla.bool).random_().numpy().any()


def test_randperm_dtypes_and_out():
    for dtype in (nabla.int32, nabla.int16, nabla.float32, nabla.float64, nabla.uint8):
        p = nabla.randperm(200, dtype=dtype)
        assert p.dtype is dtype and sorted(p.numpy().tolist()) == list(range(200))
    out = nabla.empty(10, dtype=nabla.int32)
    assert nabla.randperm(10, out=out) is out and sorted(out.numpy().tolist()) == list(range(10))


def test_out_arguments():
    o = nabla.empty(2, 3, dtype=nabla.float64)
    version = o._version
    assert nabla.rand(2, 3, out=o) is o and o._version > version
    assert o.numpy().min() >= 0
    g1, g2 = nabla.Generator().manual_seed(1), nabla.Generator().manual_seed(1)
    nabla.randn(2, 3, out=o, generator=g1)
    np.testing.assert_array_equal(o.numpy(), nabla.randn(2, 3, dtype=nabla.float64, generator=g2).numpy())
    oi = nabla.empty(4, dtype=nabla.int32)
    assert nabla.randint(3, (4,), out=oi) is oi and oi.numpy().max() < 3
    ob = nabla.empty(5)
    assert nabla.bernoulli(nabla.full((5,), 1.0), out=ob) is ob and (ob.numpy() == 1).all()
    assert nabla.bernoulli(nabla.zeros(5), 1.0, out=ob) is ob and (ob.numpy() == 1).all()
    om = nabla.empty(3, dtype=nabla.int64)
    assert nabla.multinomial(nabla.tensor([0.0, 1.0]), 3, True, out=om) is om and (om.numpy() == 1).all()
    on = nabla.empty(4)
    assert nabla.normal(nabla.zeros(4), 0.0, out=on) is on and (on.numpy() == 0).all()


def test_strided_targets_follow_logical_order():
    base = nabla.zeros(6, 4)
    view = base.transpose(0, 1)  # [4, 6], not contiguous
    view.uniform_(generator=nabla.Generator().manual_seed(22))
    want = nabla.rand(4, 6, generator=nabla.Generator().manual_seed(22)).numpy()
    np.testing.assert_array_equal(view.numpy(), want)
    np.testing.assert_array_equal(base.numpy(), want.T)
    half = nabla.zeros(10)
    half[::2].normal_(generator=nabla.Generator().manual_seed(23))
    np.testing.assert_array_equal(half.numpy()[::2], nabla.randn(5, generator=nabla.Generator().manual_seed(23)).numpy())
    assert (half.numpy()[1::2] == 0).all()
    x = nabla.ones(4, 6).transpose(0, 1)
    y = nabla.dropout(x, 0.5, True, generator=nabla.Generator().manual_seed(24))
    np.testing.assert_array_equal(y.numpy(), nabla.dropout(nabla.ones(6, 4), 0.5, True,
                                                           generator=nabla.Generator().manual_seed(24)).numpy())


def test_bernoulli_forms():
    p = nabla.tensor([[0.0, 1.0, 0.0]], dtype=nabla.float64)
    r = nabla.bernoulli(p)
    assert r.dtype is nabla.float64 and r.numpy().tolist() == [[0, 1, 0]]
    assert p.bernoulli().numpy().tolist() == [[0, 1, 0]]
    t = nabla.zeros(2, 3, dtype=nabla.int32).bernoulli_(p)  # p broadcasts to self
    assert t.numpy().tolist() == [[0, 1, 0], [0, 1, 0]]
    s = nabla.bernoulli(nabla.zeros(4, dtype=nabla.float16), 1.0)
    assert s.dtype is nabla.float16 and (s.float().numpy() == 1).all()
    assert (nabla.zeros(3).bernoulli(1.0).numpy() == 1).all()
    assert nabla.bernoulli(nabla.zeros(2, 2), nabla.ones(2)).numpy().tolist() == [[1, 1], [1, 1]]


def test_multinomial_forms():
    p = nabla.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    assert p.multinomial(1).numpy().tolist() == [[2], [0]]
    assert nabla.multinomial(nabla.tensor([0.0, 2.0]), 3, replacement=True).numpy().tolist() == [1, 1, 1]
    assert nabla.multinomial(nabla.tensor([3.0, 0.0, 0.0], dtype=nabla.float16), 1).numpy().tolist() == [0]
    assert tuple(nabla.multinomial(nabla.ones(0, 4), 2).shape) == (0, 2)
    p_strided = nabla.tensor([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]).transpose(0, 1)[:, ::2]  # [[1, 0], [0, 1]]
    assert nabla.multinomial(p_strided, 1).numpy().tolist() == [[0], [1]]


def test_normal_overloads():
    g = nabla.Generator().manual_seed(25)
    mean = nabla.tensor([0.0, 10.0, 100.0])
    r = nabla.normal(mean, 0.0)
    np.testing.assert_array_equal(r.numpy(), mean.numpy())
    r = nabla.normal(mean, nabla.tensor([1.0, 0.0, 0.0]), generator=g)
    assert r.numpy()[1:].tolist() == [10.0, 100.0]
    r = nabla.normal(5.0, nabla.zeros(2, 2))
    assert r.numpy().tolist() == [[5.0, 5.0], [5.0, 5.0]]
    r = nabla.normal(nabla.zeros(3, 1, dtype=nabla.float64), nabla.ones(4))
    assert tuple(r.shape) == (3, 4) and r.dtype is nabla.float64
    r = nabla.normal(1.0, 2.0, (3,), dtype=nabla.float64)
    assert r.dtype is nabla.float64
    g1, g2 = nabla.Generator().manual_seed(9), nabla.Generator().manual_seed(9)
    np.testing.assert_allclose(nabla.normal(nabla.ones(6), 2.0, generator=g1).numpy(),
                               1 + 2 * nabla.randn(6, generator=g2).numpy(), rtol=1e-6)


def test_like_factories():
    x = nabla.zeros(3, 4, dtype=nabla.float64)
    for t in (nabla.rand_like(x), nabla.randn_like(x), nabla.randint_like(x, 10), nabla.randint_like(x, 3, 10)):
        assert tuple(t.shape) == (3, 4) and t.dtype is nabla.float64
    assert nabla.rand_like(x, dtype=nabla.float16).dtype is nabla.float16
    v = nabla.randint_like(nabla.zeros(1000, dtype=nabla.int16), 3, 10).numpy()
    assert v.dtype == np.int16 and v.min() >= 3 and v.max() <= 9
    g1, g2 = nabla.Generator().manual_seed(4), nabla.Generator().manual_seed(4)
    np.testing.assert_array_equal(nabla.rand_like(x, generator=g1).numpy(),
                                  nabla.rand(3, 4, dtype=nabla.float64, generator=g2).numpy())


def test_dropout_forms():
    x = nabla.tensor([1.0, -2.0, 3.0, float("inf")])
    assert F.dropout(x, 0.5, training=False) is x
    assert nabla.dropout(x, 0.5, False) is x
    np.testing.assert_array_equal(F.dropout(x, 0.0).numpy(), x.numpy())
    zeros = F.dropout(x[:3], 1.0).numpy()
    assert (zeros == 0).all()
    y = nabla.ones(1000, dtype=nabla.float64)
    assert F.dropout(y, 0.5, inplace=True) is y
    vals = set(np.unique(y.numpy()))
    assert vals == {0.0, 2.0}
    h = F.dropout(nabla.ones(1000, dtype=nabla.float16), 0.75)
    assert h.dtype is nabla.float16 and set(np.unique(h.float().numpy())) == {0.0, 4.0}
    assert "dropout" in F.__all__


@pytest.mark.skipif(not nabla.cuda.is_available(), reason="no CUDA device")
def test_cuda_gives_the_cpu_numbers():
    g1, g2 = nabla.Generator().manual_seed(26), nabla.Generator("cuda").manual_seed(26)
    a = nabla.rand(1000, generator=g1).numpy()
    b = nabla.rand(1000, device="cuda", generator=g2)
    assert b.device.type == "cuda"
    np.testing.assert_array_equal(b.cpu().numpy(), a)
    c = nabla.zeros(100, device="cuda").normal_(generator=g2)
    np.testing.assert_array_equal(c.cpu().numpy(), nabla.randn(100, generator=g1).numpy())


@pytest.mark.skipif(nabla.cuda.is_available(), reason="checks the message when CUDA is missing")
def test_cuda_request_without_cuda_fails_clearly():
    for call in (lambda: nabla.rand(3, device="cuda"), lambda: nabla.randint(3, (2,), device="cuda"),
                 lambda: nabla.randperm(3, device="cuda")):
        with pytest.raises(RuntimeError, match="cuda|CUDA"):
            call()


def test_requires_grad_makes_a_leaf():
    for t in (nabla.rand(2, requires_grad=True), nabla.randn((2,), requires_grad=True)):
        assert t.requires_grad and t.is_leaf and t.grad_fn is None


# ---- errors ----

ERRORS = [
    (lambda: nabla.rand(3, dtype=nabla.int64), NotImplementedError, "rand"),
    (lambda: nabla.randn(3, dtype=nabla.int32), NotImplementedError, "randn"),
    (lambda: nabla.rand(-1), RuntimeError, "negative dimension -1"),
    (lambda: nabla.randn(2, -3), RuntimeError, "negative dimension -3"),
    (lambda: nabla.rand(3, generator=5), TypeError, "generator"),
    (lambda: nabla.rand(2, out=nabla.empty(2, dtype=nabla.float64), dtype=nabla.float32), RuntimeError,
     "does not match"),
    (lambda: nabla.rand(8, out=nabla.from_numpy(np.zeros(4, np.float32))), RuntimeError,
     "Trying to resize storage that is not resizable"),
    (lambda: nabla.rand("a"), TypeError, "size"),
    (lambda: nabla.randint(5, 3, (2,)), RuntimeError, "low=5 >= high=3"),
    (lambda: nabla.randint(3, 3, (2,)), RuntimeError, "low=3 >= high=3"),
    (lambda: nabla.randint(0, 300, (2,), dtype=nabla.uint8), RuntimeError, "299 is out of bounds for uint8"),
    (lambda: nabla.randint(-1, 3, (2,), dtype=nabla.uint8), RuntimeError, "-1 is out of bounds for uint8"),
    (lambda: nabla.randint(0, 1 << 25, (2,), dtype=nabla.float32), RuntimeError, "out of bounds for float32"),
    (lambda: nabla.randint(0, 3, (-2,)), RuntimeError, "negative dimension"),
    (lambda: nabla.randint(0, 3, 5), TypeError, "size"),
    (lambda: nabla.randint(3), TypeError, "randint()"),
    (lambda: nabla.randint(0, 1 << 64, (2,)), RuntimeError, "int64"),
    (lambda: nabla.randperm(-1), RuntimeError, "n=-1"),
    (lambda: nabla.randperm(300, dtype=nabla.uint8), RuntimeError, "n=300 is too large for dtype uint8"),
    (lambda: nabla.empty(3).uniform_(2, 1), RuntimeError, "from=2 > to=1"),
    (lambda: nabla.empty(3).uniform_(0, float("inf")), RuntimeError, "finite"),
    (lambda: nabla.empty(3, dtype=nabla.float16).uniform_(-60000, 60000), RuntimeError, "to - from"),
    (lambda: nabla.empty(3, dtype=nabla.int64).uniform_(), NotImplementedError, "uniform_"),
    (lambda: nabla.empty(3).normal_(0, -1), RuntimeError, "std >= 0.0"),
    (lambda: nabla.empty(3).normal_(0, float("nan")), RuntimeError, "std"),
    (lambda: nabla.empty(3, dtype=nabla.int64).normal_(), NotImplementedError, "normal_"),
    (lambda: nabla.normal(0.0, -1.0, (3,)), RuntimeError, "std >= 0.0"),
    (lambda: nabla.normal(nabla.zeros(3), nabla.tensor([1.0, -1.0, 1.0])), RuntimeError, "all elements of std"),
    (lambda: nabla.normal(nabla.zeros(3), -2.0), RuntimeError, "std >= 0.0"),
    (lambda: nabla.normal(0.0, 1.0), TypeError, "size"),
    (lambda: nabla.normal(nabla.zeros(2, dtype=nabla.int64)), NotImplementedError, "normal"),
    (lambda: nabla.normal(nabla.zeros(2), nabla.ones(3)), ValueError, "shape"),
    (lambda: nabla.empty(3).random_(5, 3), RuntimeError, "from=5 >= to=3"),
    (lambda: nabla.empty(3, dtype=nabla.uint8).random_(0, 300), RuntimeError, "out of bounds for uint8"),
    (lambda: nabla.bernoulli(nabla.tensor([0.5, 1.5])), RuntimeError, "p=1.5"),
    (lambda: nabla.bernoulli(nabla.tensor([-0.1])), RuntimeError, "[0, 1]"),
    (lambda: nabla.bernoulli(nabla.tensor([float("nan")])), RuntimeError, "[0, 1]"),
    (lambda: nabla.bernoulli(nabla.zeros(3), p=1.5), RuntimeError, "p=1.5"),
    (lambda: nabla.zeros(3).bernoulli_(-0.5), RuntimeError, "p=-0.5"),
    (lambda: nabla.bernoulli(nabla.tensor([1, 0])), NotImplementedError, "bernoulli"),
    (lambda: nabla.bernoulli([0.5]), TypeError, "Tensor"),
    (lambda: nabla.zeros(2, 3).bernoulli_(nabla.full((4,), 0.5)), RuntimeError, "broadcast"),
    (lambda: nabla.multinomial(nabla.tensor([0.5, -0.1]), 1), RuntimeError, "element < 0"),
    (lambda: nabla.multinomial(nabla.tensor([float("nan"), 1.0]), 1), RuntimeError, "nan"),
    (lambda: nabla.multinomial(nabla.tensor([float("inf"), 1.0]), 1), RuntimeError, "inf"),
    (lambda: nabla.multinomial(nabla.tensor([0.5, 0.5]), 3), RuntimeError, "n_sample=3, categories=2"),
    (lambda: nabla.multinomial(nabla.tensor([[1.0, 1.0], [0.0, 0.0]]), 1), RuntimeError, "sum of probabilities <= 0) in row 1"),
    (lambda: nabla.multinomial(nabla.ones(2, 2, 2), 1), RuntimeError, "1 or 2 dim"),
    (lambda: nabla.multinomial(nabla.ones(2), 0), RuntimeError, "n_sample <= 0"),
    (lambda: nabla.multinomial(nabla.ones(2, dtype=nabla.int64), 1), RuntimeError, "floating-point"),
    (lambda: nabla.multinomial(nabla.ones(0), 1, True), RuntimeError, "no categories"),
    (lambda: nabla.multinomial(nabla.ones(2), 1, out=nabla.empty(1)), RuntimeError, "dtype"),
    (lambda: F.dropout(nabla.ones(3), p=1.5), ValueError, "between 0 and 1, but got 1.5"),
    (lambda: F.dropout(nabla.ones(3), p=-0.1), ValueError, "between 0 and 1"),
    (lambda: nabla.dropout(nabla.ones(3), 2.0, True), ValueError, "between 0 and 1"),
    (lambda: F.dropout(nabla.ones(3, dtype=nabla.int64), p=0.5), RuntimeError, "floating point"),
    (lambda: nabla.manual_seed(2 ** 64), ValueError, "Overflow"),
    (lambda: nabla.manual_seed(-2 ** 63 - 1), ValueError, "Overflow"),
    (lambda: nabla.manual_seed("1"), TypeError, "seed"),
    (lambda: nabla.Generator().set_state(nabla.zeros(3, dtype=nabla.uint8)), RuntimeError, "size to be 3"),
    (lambda: nabla.Generator().set_state(nabla.zeros(16)), TypeError, "ByteTensor"),
    (lambda: nabla.Generator().set_state([1, 2]), TypeError, "ByteTensor"),
    (lambda: nabla.Generator("tpu"), RuntimeError, "device"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    fn, exc, text = ERRORS[index]
    with pytest.raises(exc) as info:
        fn()
    assert text in str(info.value), str(info.value)


def test_failed_calls_consume_nothing():
    g = nabla.Generator().manual_seed(1)
    for bad in (lambda: nabla.randint(5, 3, (2,), generator=g), lambda: nabla.rand(-1, generator=g),
                lambda: nabla.multinomial(nabla.tensor([-1.0]), 1, generator=g),
                lambda: nabla.bernoulli(nabla.tensor([2.0]), generator=g),
                lambda: nabla.empty(3).uniform_(1, 0, generator=g)):
        with pytest.raises(RuntimeError):
            bad()
    assert state(g) == (1, 0)


def test_c_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^randint: "):
        nabla.randint(0, 300, (2,), dtype=nabla.uint8)
    with pytest.raises(RuntimeError, match=r"^multinomial: "):
        nabla.multinomial(nabla.tensor([-1.0]), 1)
    with pytest.raises(RuntimeError, match=r"^uniform_: "):
        nabla.empty(2).uniform_(3, 2)


def test_pinned_values_for_seed_zero():
    """The stream is part of the ABI contract: these must never change."""
    nabla.manual_seed(0)
    v = nabla.rand(4).numpy()
    want = (words(0, 0, 4) >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
    np.testing.assert_array_equal(v, want)
    np.testing.assert_array_equal(v, np.array([0.3990464210510254, 0.8805201649665833, 0.7357127666473389,
                                               0.6054818034172058], dtype=np.float32))
    nabla.manual_seed(0)
    np.testing.assert_array_equal(nabla.randn(4).numpy(), np.array(
        [0.9911375045776367, -0.9246627688407898, -0.6176090836524963, -0.48206833004951477], dtype=np.float32))
    assert nabla.randint(0, 1000, (4,)).tolist() == [972, 362, 693, 37]
    assert nabla.randperm(6).tolist() == [2, 0, 4, 1, 3, 5]
