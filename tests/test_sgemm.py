"""nabla's own float32 GEMM (src/cpu/sgemm_avx512.c).

On AVX-512 CPUs the large float32 products (at least 64 rows, depth 128, 384
columns per thread and 2^24 multiply-adds) run through nabla's packed,
register-tiled GEMM instead of OpenBLAS. These shapes are chosen to reach it
and to land on every edge of its blocking: rows that are not a multiple of the
8-row tile, columns that are not a multiple of the 48-column panel or of 16,
depths split into uneven steps, more rows than one shared panel holds, every
operand layout, alpha/beta, batches, and a column-major result. Each is
compared with NumPy in float64, on one thread and on two."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import nabla

SHAPES = [  # (M, N, K)
    (64, 768, 342),
    (67, 800, 333),
    (130, 1000, 257),
    (257, 769, 600),
    (3100, 780, 130),
    (96, 2050, 1000),
]


def _check(got, ref, k):
    got = np.asarray(got, dtype=np.float64)
    assert got.shape == ref.shape
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, ref, rtol=0, atol=2e-6 * k * max(1.0, np.abs(ref).max() / np.sqrt(k)))


def _operand(rng, rows, cols, transposed):
    """A rows x cols float32 matrix, stored row-major or (transposed) column-major."""
    if transposed:
        x = rng.standard_normal((cols, rows)).astype(np.float32)
        return x.T, nabla.tensor(x).t()
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    return x, nabla.tensor(x)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_layouts(threads, shape, ta, tb):
    M, N, K = shape
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    a, na = _operand(rng, M, K, ta)
    b, nb = _operand(rng, K, N, tb)
    _check((na @ nb).numpy(), a.astype(np.float64) @ b.astype(np.float64), K)


@pytest.mark.parametrize("shape", SHAPES[:4], ids=lambda s: "x".join(map(str, s)))
def test_addmm_alpha_beta(threads, shape):
    M, N, K = shape
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    ref = 0.5 * c.astype(np.float64) + 2.0 * (a.astype(np.float64) @ b.astype(np.float64))
    got = nabla.addmm(nabla.tensor(c), nabla.tensor(a), nabla.tensor(b), beta=0.5, alpha=2.0)
    _check(got.numpy(), ref, K)
    bias = rng.standard_normal(N).astype(np.float32)  # a broadcast addend, copied into C first
    got = nabla.addmm(nabla.tensor(bias), nabla.tensor(a), nabla.tensor(b))
    _check(got.numpy(), bias + a.astype(np.float64) @ b.astype(np.float64), K)


def test_beta_zero_ignores_nan(threads):
    M, N, K = 70, 800, 300
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    got = nabla.addmm(nabla.tensor(c), nabla.tensor(a), nabla.tensor(b), beta=0)
    _check(got.numpy(), a.astype(np.float64) @ b.astype(np.float64), K)


def test_column_major_result(threads):
    """out= a transposed tensor: C is column-major, computed as C^T = B^T A^T."""
    M, N, K = 800, 780, 200
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    out = nabla.empty(N, M).t()
    nabla.matmul(nabla.tensor(a), nabla.tensor(b), out=out)
    assert out.stride() == (1, M)
    _check(out.numpy(), a.astype(np.float64) @ b.astype(np.float64), K)


def test_batches(threads):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 65, 300)).astype(np.float32)
    b = rng.standard_normal((3, 300, 800)).astype(np.float32)
    c = rng.standard_normal((3, 65, 800)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    _check(nabla.bmm(nabla.tensor(a), nabla.tensor(b)).numpy(), ref, 300)
    got = nabla.baddbmm(nabla.tensor(c), nabla.tensor(a), nabla.tensor(b), beta=-1.0, alpha=0.25)
    _check(got.numpy(), -c + 0.25 * ref, 300)
    # one B for every batch: folded into one (3 * 65) x 800 product
    _check((nabla.tensor(a) @ nabla.tensor(b[0])).numpy(), a.astype(np.float64) @ b[0].astype(np.float64), 300)


def test_gradients_through_the_kernel(threads):
    """linear's backward runs the transposed products (x^T @ grad, grad @ W)."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((128, 900)).astype(np.float32)
    w = rng.standard_normal((800, 900)).astype(np.float32)
    g = rng.standard_normal((128, 800)).astype(np.float32)
    xt, wt = nabla.tensor(x, requires_grad=True), nabla.tensor(w, requires_grad=True)
    nabla.nn.functional.linear(xt, wt).backward(nabla.tensor(g))
    g64 = g.astype(np.float64)
    _check(xt.grad.numpy(), g64 @ w.astype(np.float64), 800)
    _check(wt.grad.numpy(), g64.T @ x.astype(np.float64), 128)


def test_matches_openblas_path():
    """NABLA_CPU_CAPABILITY=avx2 sends the same product to OpenBLAS: both agree."""
    code = (
        "import numpy as np, nabla, sys\n"
        "rng = np.random.default_rng(6)\n"
        "a = rng.standard_normal((300, 400)).astype(np.float32)\n"
        "b = rng.standard_normal((400, 900)).astype(np.float32)\n"
        "np.save(sys.argv[1], (nabla.tensor(a) @ nabla.tensor(b)).numpy())\n"
    )
    results = {}
    for level in ("avx512", "avx2"):
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"nabla_sgemm_{os.getpid()}_{level}.npy")
        env = dict(os.environ, NABLA_CPU_CAPABILITY=level)
        subprocess.run([sys.executable, "-c", code, path], env=env, check=True, timeout=120)
        results[level] = np.load(path)
        os.remove(path)
    np.testing.assert_allclose(results["avx512"], results["avx2"], rtol=0, atol=1e-3)
