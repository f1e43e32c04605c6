"""What tests/fuzz/fuzz_abi.c found from Python's side (the C reproducers are in
tests/c/test_fuzz_regressions.c and tests/c/test_random.c): batches of empty matrices
too many to count, generators released while other objects reuse memory, and graphs
that held themselves through a DLPack capsule."""
import gc
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nabla


def _live():
    gc.collect()
    return nabla.memory.stats()["live_tensors"]


# ---- huge_dims: 2^60 empty matrices are a valid tensor of no bytes ----

def test_linalg_of_a_huge_batch_of_empty_matrices_returns_at_once():
    """The LAPACK loops visited each of the 2^60 matrices (a hang); run apart so a hang fails."""
    code = textwrap.dedent("""
        import nabla
        a = nabla.empty(2**60, 0, 0)
        results = [nabla.linalg.inv(a), nabla.linalg.cholesky(a), nabla.linalg.solve(a, a),
                   nabla.linalg.solve_triangular(a, a, upper=True), nabla.linalg.qr(a)[1], nabla.linalg.eigh(a)[0]]
        print([tuple(r.shape) for r in results])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    h = 2**60
    assert out.stdout.strip() == str([(h, 0, 0)] * 5 + [(h, 0)])


@pytest.mark.parametrize("dim", [0, 1])
def test_reductions_of_a_huge_empty_tensor_match_pytorch(dim):
    torch = pytest.importorskip("torch")
    results = []
    for L in (torch, nabla):
        x = L.empty(2**60, 0, dtype=L.float32)
        try:
            results.append(tuple(x.sum(dim).shape))
        except RuntimeError:
            results.append("error")  # [2^60] floats: more memory than there is
    ours, theirs = results[1], results[0]
    if theirs == "error":
        assert ours == "error"
    else:
        assert ours == theirs


# ---- stale_generator: a released generator's memory stays a generator's ----

def test_generators_made_after_others_were_released_give_their_seeds_stream():
    want = nabla.rand(8, generator=nabla.Generator().manual_seed(11)).numpy()
    for _ in range(50):
        gens = [nabla.Generator().manual_seed(i) for i in range(4)]
        for g in gens:
            nabla.rand(3, generator=g)
        del gens
        _ = [nabla.zeros(1).view(1) for _ in range(16)]  # small objects that once reused a generator's block
        nabla.memory.empty_cache()
        got = nabla.rand(8, generator=nabla.Generator().manual_seed(11)).numpy()
        np.testing.assert_array_equal(got, want)


# ---- copy_alias and inplace: a capsule held the exported tensor's history ----

def _copy_from_own_export(L, into_view):
    b = L.full((3,), 3.0)
    e = L.from_dlpack(b)  # shares b's memory; exported while b has no history
    w = L.full((3,), 2.0, requires_grad=True)
    target = b[0:3] if into_view else b
    target.copy_(e * w)  # the product saved e, whose storage holds the capsule
    return b


def _pow_into_view_from_own_export(L):
    b = L.full((2, 3), 2.0)
    v = b.t()
    a = L.from_dlpack(v)
    w = L.ones(3, 2, requires_grad=True)
    v.pow_(a * w)  # b's history becomes CopySlices over the pow and the product that saved a
    return b


@pytest.mark.parametrize("into_view", [False, True], ids=["tensor", "view"])
def test_copy_from_own_export_matches_pytorch_and_frees_its_graph(into_view):
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(_copy_from_own_export(nabla, into_view).detach().numpy(),
                                  _copy_from_own_export(torch, into_view).detach().numpy())
    _copy_from_own_export(nabla, into_view)
    before = _live()
    for _ in range(50):
        b = _copy_from_own_export(nabla, into_view)
        assert b.requires_grad
        del b
    assert _live() == before


def test_pow_into_a_view_from_own_export_matches_pytorch_and_frees_its_graph():
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(_pow_into_view_from_own_export(nabla).detach().numpy(),
                                  _pow_into_view_from_own_export(torch).detach().numpy())
    _pow_into_view_from_own_export(nabla)
    before = _live()
    for _ in range(50):
        b = _pow_into_view_from_own_export(nabla)
        assert b.grad_fn is not None
        del b
    assert _live() == before
