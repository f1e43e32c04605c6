"""bfloat16 matrix products on the CPU (src/cpu/bgemm_avx512bf16.c).

On CPUs with AVX512_BF16 nabla multiplies bfloat16 operands itself: pairs of K
per vdpbf16ps, every product summed in float32, each result rounded to
bfloat16 once (after alpha and beta). Elsewhere, and under
NABLA_CPU_CAPABILITY=avx512, the operands go to float32 and the float32 GEMM.
Both paths are checked here against float64 NumPy on the same bfloat16 values:
every result within one bfloat16 rounding of the exact one, plus float32
accumulation error. The shapes land on every edge of the kernel's blocking:
1..129 rows/columns (8-row and 16/48-column tiles), odd depths (a pair padded
with zero), depths split into several steps (partial sums kept in float32),
more rows than one block, every transpose, strided views, batches."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import nabla

SIZES = [1, 7, 17, 31, 65, 129]
# (M, N, K) on the blocking's edges: K > 2048 takes several steps (uneven splits, an odd last
# pair) whose float32 sums wait in a buffer, M > 1024 several row blocks, wide N several column blocks.
BLOCKING = [(9, 50, 2049), (33, 97, 4103), (1030, 40, 2100), (130, 600, 2500), (1030, 40, 63)]


def bf16(rng, *shape):
    """(nabla bfloat16 tensor, the same values as float64 NumPy)."""
    t = nabla.tensor(rng.standard_normal(shape).astype(np.float32)).to(nabla.bfloat16)
    return t, t.float().numpy().astype(np.float64)


def check(got, a, b, alpha=1.0, addend=None):
    """got (bfloat16) against alpha * a @ b (+ addend) in float64: one bfloat16
    rounding (2^-8 relative) plus float32 sums (2^-22 * K of |a| @ |b|)."""
    assert got.dtype == nabla.bfloat16
    got = got.detach().float().numpy().astype(np.float64)
    ref = alpha * (a @ b)
    if addend is not None:
        ref = ref + addend
    k = a.shape[-1]
    bound = 2.0 ** -8 * np.abs(ref) + 2.0 ** -22 * (k + 2) * (abs(alpha) * (np.abs(a) @ np.abs(b)) + (
        0 if addend is None else np.abs(addend))) + 1e-30
    assert got.shape == ref.shape
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"max error {err.max()} (bound {bound[err > bound].min()}) of {got.shape}"


@pytest.mark.parametrize("m", SIZES)
@pytest.mark.parametrize("n", SIZES)
def test_odd_sizes(threads, m, n):
    rng = np.random.default_rng(m * 131 + n)
    for k in (1, 2, 31, 130):
        (ta, a), (tb, b) = bf16(rng, m, k), bf16(rng, k, n)
        check(ta @ tb, a, b)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)], ids=["nn", "tn", "nt", "tt"])
@pytest.mark.parametrize("shape", [(17, 65, 33), (129, 100, 257), (64, 256, 128)] + BLOCKING,
                         ids=lambda s: "x".join(map(str, s)))
def test_transposes(threads, shape, ta, tb):
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    (xa, a), (xb, b) = bf16(rng, *((k, m) if ta else (m, k))), bf16(rng, *((n, k) if tb else (k, n)))
    if ta:
        xa, a = xa.t(), a.T
    if tb:
        xb, b = xb.t(), b.T
    check(xa @ xb, a, b)


def test_strided_views(threads):
    rng = np.random.default_rng(3)
    (xa, a), (xb, b) = bf16(rng, 80, 150), bf16(rng, 200, 90)
    check(xa[::2, 1::3] @ xb[:50, ::2], a[::2, 1::3], b[:50, ::2])  # no BLAS layout: copied first
    check(xa[3:40, 7:107] @ xb[10:110, 5:60], a[3:40, 7:107], b[10:110, 5:60])  # leading dims wider than the rows
    check(xa[:, 10:110].t() @ xa[:, :70], a[:, 10:110].T, a[:, :70])
    # A read in place (rows along K, an even depth): an odd row stride puts the pairs of every
    # other row off 4-byte boundaries; depth 2100 takes two steps, 2049 an odd last one (packed)
    (xa, a), (xb, b) = bf16(rng, 1030, 2101), bf16(rng, 2101, 60)
    check(xa[:, :2100] @ xb[:2100], a[:, :2100], b[:2100])
    check(xa[1:, 1:2050] @ xb[:2049], a[1:, 1:2050], b[:2049])


def test_column_major_result(threads):
    """out= a transposed tensor: computed as C^T = B^T A^T."""
    rng = np.random.default_rng(4)
    (xa, a), (xb, b) = bf16(rng, 70, 90), bf16(rng, 90, 50)
    out = nabla.empty(50, 70, dtype=nabla.bfloat16).t()
    nabla.matmul(xa, xb, out=out)
    assert out.stride() == (1, 70)
    check(out, a, b)


def test_vectors(threads):
    rng = np.random.default_rng(5)
    (xm, m), (xv, v), (xw, w) = bf16(rng, 70, 300), bf16(rng, 300), bf16(rng, 70)
    check(xm @ xv, m, v)
    check(xw @ xm, w, m)
    check(nabla.dot(xv, xv).reshape(1), v.reshape(1, -1), v.reshape(-1, 1).reshape(-1))
    (xb, b) = bf16(rng, 3, 70, 300)
    check(xb @ xv, b, v)  # batched matrix-vector products: computed as rows, C^T = v^T B^T
    check(xb.transpose(1, 2) @ xw, b.transpose(0, 2, 1), w)


def test_batches(threads):
    rng = np.random.default_rng(6)
    (xa, a), (xb, b) = bf16(rng, 6, 33, 70), bf16(rng, 6, 70, 40)
    check(nabla.bmm(xa, xb), a, b)
    (xc, c), (xd, d) = bf16(rng, 3, 300, 200), bf16(rng, 3, 200, 300)  # big: one after another, on every thread
    check(xc @ xd, c, d)
    check(xa @ xb[0], a, b[0])  # one B for every batch: folded into one (6 * 33) x 40 product
    check(xa[:, :, :20].transpose(1, 2) @ xa[:, :, 20:], a[:, :, :20].transpose(0, 2, 1), a[:, :, 20:])
    (xe, e) = bf16(rng, 2, 1, 70, 40)
    check(xa.reshape(2, 3, 33, 70) @ xe, a.reshape(2, 3, 33, 70), e)  # broadcast batch dims


def test_addmm_alpha_beta(threads):
    rng = np.random.default_rng(7)
    (xa, a), (xb, b), (xc, c), (xbias, bias) = bf16(rng, 65, 130), bf16(rng, 130, 70), bf16(rng, 65, 70), bf16(rng, 70)
    check(nabla.addmm(xc, xa, xb, beta=0.5, alpha=2.0), a, b, alpha=2.0, addend=0.5 * c)
    check(nabla.addmm(xbias, xa, xb), a, b, addend=bias)
    check(nabla.baddbmm(xc[None], xa[None], xb[None], beta=-1.0, alpha=0.25)[0], a, b, alpha=0.25, addend=-c)
    nan = nabla.full((65, 70), float("nan"), dtype=nabla.bfloat16)
    check(nabla.addmm(nan, xa, xb, beta=0), a, b)  # beta = 0 never reads the addend
    x = xc.clone()
    x.addmm_(xa, xb, beta=2.0)
    check(x, a, b, addend=2.0 * c)


def test_empty_and_zero_depth(threads):
    rng = np.random.default_rng(8)
    (xa, a), (xb, b), (xc, c) = bf16(rng, 5, 0), bf16(rng, 0, 7), bf16(rng, 5, 7)
    got = xa @ xb
    assert got.dtype == nabla.bfloat16 and tuple(got.shape) == (5, 7)
    assert (got.float().numpy() == 0).all()
    check(nabla.addmm(xc, xa, xb, beta=3.0), a, b, addend=3.0 * c)
    assert tuple((bf16(rng, 0, 4)[0] @ bf16(rng, 4, 3)[0]).shape) == (0, 3)
    assert tuple((bf16(rng, 2, 0, 4)[0] @ bf16(rng, 2, 4, 3)[0]).shape) == (2, 0, 3)


def test_nan_and_inf_propagate(threads):
    rng = np.random.default_rng(9)
    (xa, a), (xb, b) = bf16(rng, 20, 40), bf16(rng, 40, 30)
    a[3, 5], a[7, 0], b[2, 11] = np.nan, np.inf, np.inf
    got = (nabla.tensor(a).to(nabla.bfloat16) @ nabla.tensor(b).to(nabla.bfloat16)).float().numpy()
    with np.errstate(invalid="ignore"):
        ref = a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref))


def test_linear_and_its_gradients(threads):
    """linear's backward runs the transposed products (grad @ W, grad^T @ x)."""
    rng = np.random.default_rng(10)
    (x, xn), (w, wn), (bias, bn), (g, gn) = bf16(rng, 33, 130), bf16(rng, 70, 130), bf16(rng, 70), bf16(rng, 33, 70)
    x.requires_grad_(True)
    w.requires_grad_(True)
    y = nabla.nn.functional.linear(x, w, bias)
    check(y, xn, wn.T, addend=bn)
    y.backward(g)
    check(x.grad, gn, wn)
    check(w.grad, gn.T, xn)


def test_independent_of_thread_count():
    rng = np.random.default_rng(11)
    xa, xb = bf16(rng, 300, 1500)[0], bf16(rng, 1500, 500)[0]
    before = nabla.get_num_threads()
    try:
        results = []
        for n in (1, 2, 3):
            nabla.set_num_threads(n)
            results.append((xa @ xb).float().numpy())
    finally:
        nabla.set_num_threads(before)
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def test_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    for m, n, k in [(64, 96, 200), (129, 65, 1031)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((n, k)).astype(np.float32)
        got = nabla.tensor(a).to(nabla.bfloat16) @ nabla.tensor(b).to(nabla.bfloat16).t()
        ref = torch.from_numpy(a).bfloat16() @ torch.from_numpy(b).bfloat16().t()
        torch.testing.assert_close(torch.from_numpy(got.float().numpy()), ref.float())


_BOTH_PATHS = """
import sys, numpy as np, nabla
rng = np.random.default_rng(13)
out = {}
for m, n, k in [(1, 1, 5), (7, 17, 31), (65, 129, 1025), (300, 200, 150)]:
    for tr in ("nn", "tn", "nt"):
        a = rng.standard_normal((k, m) if tr == "tn" else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if tr == "nt" else (k, n)).astype(np.float32)
        xa, xb = nabla.tensor(a).to(nabla.bfloat16), nabla.tensor(b).to(nabla.bfloat16)
        if tr == "tn": xa = xa.t()
        if tr == "nt": xb = xb.t()
        key = f"{m}x{n}x{k}{tr}"
        out[key + "a"], out[key + "b"] = xa.float().numpy(), xb.float().numpy()
        c = xa[:, :1] @ xb[:1]
        out[key + "c"], out[key] = c.float().numpy(), nabla.addmm(c, xa, xb, beta=0.5, alpha=1.5).float().numpy()
np.savez(sys.argv[1], **out)
"""


def test_both_paths(tmp_path):
    """The same products with the bfloat16 kernel (where the CPU has it) and
    with it capped off (NABLA_CPU_CAPABILITY=avx512: float32 copies and the
    float32 GEMM): each within bounds of the exact result, and the two within
    one bfloat16 rounding of each other."""
    results = {}
    for level in ("native", "avx512"):
        path = tmp_path / f"{level}.npz"
        env = dict(os.environ)
        env.pop("NABLA_CPU_CAPABILITY", None)
        if level != "native":
            env["NABLA_CPU_CAPABILITY"] = level
        subprocess.run([sys.executable, "-c", _BOTH_PATHS, str(path)], env=env, check=True, timeout=300)
        results[level] = dict(np.load(path))
    native, capped = results["native"], results["avx512"]
    for key in native:
        if key.endswith(("a", "b", "c")):
            continue
        a, b = native[key + "a"].astype(np.float64), native[key + "b"].astype(np.float64)
        for res in (native, capped):
            c = res[key + "c"].astype(np.float64)
            ref = 0.5 * c + 1.5 * (a @ b)
            bound = 2.0 ** -8 * np.abs(ref) + 2.0 ** -21 * (a.shape[1] + 2) * (np.abs(a) @ np.abs(b) + np.abs(c))
            assert (np.abs(res[key] - ref) <= bound).all(), key
        np.testing.assert_allclose(native[key], capped[key], rtol=2.0 ** -7, atol=1e-3 * np.abs(capped[key]).max())
