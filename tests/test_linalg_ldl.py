"""linalg.ldl_factor / ldl_factor_ex / ldl_solve against PyTorch (LD and LAPACK's pivots, 2x2
blocks included, info codes) and NumPy's solve in float64: batched, broadcast, strided and empty
inputs, hermitian=, and the errors with PyTorch's exception types."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(23)
TOL = {np.float32: 2e-5, np.float64: 1e-12}


def _symmetric(shape, dtype, zero_diagonal=False):
    a = RNG.standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)
    if zero_diagonal:  # forces 2x2 pivot blocks (negative pivots)
        a[..., np.arange(shape[-1]), np.arange(shape[-1])] = 0
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 6, 6), (2, 2, 4, 4), (40, 40)])
@pytest.mark.parametrize("zero_diagonal", [False, True])
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_matches_torch(dtype, shape, zero_diagonal, hermitian):
    a = _symmetric(shape, dtype, zero_diagonal)
    ours = nabla.linalg.ldl_factor_ex(nabla.tensor(a), hermitian=hermitian)
    theirs = torch.linalg.ldl_factor_ex(torch.from_numpy(a), hermitian=hermitian)
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    scale = np.abs(theirs.LD.numpy()).max()
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=0, atol=TOL[dtype] * scale * shape[-1])
    assert ours.pivots.dtype == nabla.int32 and ours.LD.dtype.name == np.dtype(dtype).name
    assert not np.triu(ours.LD.numpy(), 1).any()
    if zero_diagonal and shape[-1] > 1:
        assert (ours.pivots.numpy() < 0).any()
    if ours.info.numpy().any():  # a 1x1 zero matrix
        return
    two = nabla.linalg.ldl_factor(nabla.tensor(a), hermitian=hermitian)
    assert type(two).__name__ == "linalg_ldl_factor" and np.array_equal(two.pivots.numpy(), ours.pivots.numpy())


@pytest.mark.parametrize("zero_diagonal", [False, True])
@pytest.mark.parametrize("ashape, bshape", [((5, 5), (5, 3)), ((3, 4, 4), (3, 4, 2)), ((4, 4), (2, 4, 1)),
                                            ((2, 1, 3, 3), (4, 3, 5))])
def test_ldl_solve_matches_numpy_solve(zero_diagonal, ashape, bshape):
    a = _symmetric(ashape, np.float64, zero_diagonal)
    b = RNG.standard_normal(bshape)
    LD, pivots = nabla.linalg.ldl_factor(nabla.tensor(a))
    x = nabla.linalg.ldl_solve(LD, pivots, nabla.tensor(b))
    want = np.linalg.solve(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + a.shape[-2:]), b)
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-9, atol=1e-10)
    if ashape[:-2] == bshape[:-2]:  # PyTorch 2.13's CPU ldl_solve crashes on broadcast batches
        tld, tpiv = torch.linalg.ldl_factor(torch.from_numpy(a))
        np.testing.assert_allclose(x.numpy(), torch.linalg.ldl_solve(tld, tpiv, torch.from_numpy(b)).numpy(),
                                   rtol=1e-9, atol=1e-10)
    # int64 pivots are accepted, as PyTorch does
    np.testing.assert_array_equal(nabla.linalg.ldl_solve(LD, pivots.long(), nabla.tensor(b)).numpy(), x.numpy())


def test_ldl_solve_float32():
    a = _symmetric((6, 6), np.float32, True)
    b = RNG.standard_normal((6, 2)).astype(np.float32)
    x = nabla.linalg.ldl_solve(*nabla.linalg.ldl_factor(nabla.tensor(a)), nabla.tensor(b))
    assert x.dtype == nabla.float32
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.astype(np.float64), b), rtol=1e-3, atol=1e-4)


def test_strided_and_empty_inputs():
    a = _symmetric((3, 5, 5), np.float64)
    big = nabla.tensor(np.concatenate([a, a], axis=0))[::2].transpose(-1, -2)
    ours = nabla.linalg.ldl_factor_ex(big)
    theirs = torch.linalg.ldl_factor_ex(torch.from_numpy(np.concatenate([a, a], axis=0))[::2].mT)
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-12)
    b = nabla.tensor(RNG.standard_normal((3, 2, 5))).transpose(-1, -2)
    np.testing.assert_allclose(nabla.linalg.ldl_solve(ours.LD, ours.pivots, b).numpy(),
                               np.linalg.solve(np.swapaxes(np.concatenate([a, a])[::2], -1, -2), b.numpy()), atol=1e-9)
    for shape in [(0, 0), (2, 0, 0)]:
        o, t = nabla.linalg.ldl_factor_ex(nabla.zeros(shape)), torch.linalg.ldl_factor_ex(torch.zeros(shape))
        for x, y in zip(o, t):
            assert tuple(x.shape) == tuple(y.shape) and x.dtype.name == str(y.dtype).removeprefix("torch.")
    assert tuple(nabla.linalg.ldl_solve(nabla.zeros(2, 0, 0), nabla.zeros(2, 0, dtype=nabla.int32),
                                        nabla.zeros(2, 0, 3)).shape) == (2, 0, 3)


def test_info_of_singular_matrices_matches_torch():
    for a in ([[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]], [[[1.0, 0.0], [0.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]]],
              [[4.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]):
        ours = nabla.linalg.ldl_factor_ex(nabla.tensor(a))
        theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
        for x, y in zip(ours, theirs):
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    with pytest.raises(RuntimeError, match=r"\(Batch element 1\).*D\(2, 2\) is exactly zero"):
        nabla.linalg.ldl_factor(nabla.tensor([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 2.0], [2.0, 2.0]]]))
    with pytest.raises(RuntimeError):
        nabla.linalg.ldl_factor_ex(nabla.zeros(2, 2), check_errors=True)


def _same_error_type(ours, theirs, phrase):
    with pytest.raises(Exception) as t:
        theirs()
    with pytest.raises(type(t.value)) as o:
        ours()
    assert phrase in str(o.value) and phrase in str(t.value), (str(o.value), str(t.value))


@pytest.mark.parametrize("make, phrase", [
    (lambda lib: lib.zeros(2, 3), "must be batches of square matrices"),
    (lambda lib: lib.zeros(3), "must have at least 2 dimensions"),
    (lambda lib: lib.zeros(2, 2, dtype=lib.int64), "Expected a floating point or complex tensor as input. Got Long")])
def test_factor_errors_match_torch(make, phrase):
    _same_error_type(lambda: nabla.linalg.ldl_factor_ex(make(nabla)), lambda: torch.linalg.ldl_factor_ex(make(torch)),
                     phrase)


@pytest.mark.parametrize("case, phrase", [
    ("dtype", "Expected b and A to have the same dtype"), ("rows", "Incompatible matrix sizes"),
    ("pivots", "Expected LD.shape[:-1] and pivots.shape to be the same"),
    ("float_pivots", "Expected pivots to be integers. Got Float"), ("vector", "Dimension out of range"),
    ("square", "must be batches of square matrices"), ("batch", "must match the size of tensor b")])
def test_solve_errors_match_torch(case, phrase):
    a = _symmetric((2, 3, 3), np.float64)

    def run(lib):
        LD, piv = lib.linalg.ldl_factor(lib.tensor(a))
        b = lib.ones(2, 3, 2, dtype=lib.float64)
        if case == "dtype":
            b = b.float()
        elif case == "rows":
            b = lib.ones(2, 4, 2, dtype=lib.float64)
        elif case == "pivots":
            piv = piv[:, :2]
        elif case == "float_pivots":
            piv = piv.float()
        elif case == "vector":
            b = lib.ones(3, dtype=lib.float64)
        elif case == "square":
            LD = LD[..., :2]
        elif case == "batch":
            b = lib.ones(3, 3, 2, dtype=lib.float64)
        return lib.linalg.ldl_solve(LD, piv, b)
    _same_error_type(lambda: run(nabla), lambda: run(torch), phrase)


def test_not_differentiable_and_half_refused():
    a = nabla.tensor(_symmetric((3, 3), np.float64), requires_grad=True)
    assert not nabla.linalg.ldl_factor(a).LD.requires_grad
    with pytest.raises((NotImplementedError, RuntimeError, TypeError)):
        nabla.linalg.ldl_factor(nabla.eye(2, dtype=nabla.float16))


@pytest.mark.parametrize("bad", [[0, 2, 3], [4, 2, 3], [-2, 2, 3], [1, -2, 3], [1, 2, -3], [-1, -2, 3]])
def test_solve_refuses_pivots_ldl_factor_cannot_return(bad):
    """Pivots out of 1..n, or a negative one not paired with the same value next to it, would make
    LAPACK's sytrs read outside the matrix: refused with the place and the value."""
    a = _symmetric((3, 3), np.float64)
    LD, piv = nabla.linalg.ldl_factor(nabla.tensor(a))
    place = next(i for i, v in enumerate(bad) if not (1 <= v <= 3 or (v < 0 and (
        (i + 1 < 3 and bad[i + 1] == v) or (i > 0 and bad[i - 1] == v)))))
    with pytest.raises(RuntimeError, match=rf"ldl_solve.*pivots\[\.\.\., {place}\] = {bad[place]} "
                                           r"\(expected 1\.\.3, or the same negative value"):
        nabla.linalg.ldl_solve(LD, nabla.tensor(np.array(bad, np.int32)), nabla.ones(3, 2, dtype=nabla.float64))
    good = nabla.linalg.ldl_solve(LD, piv, nabla.ones(3, 2, dtype=nabla.float64))
    np.testing.assert_allclose(good.numpy(), np.linalg.solve(a, np.ones((3, 2))), rtol=1e-10)
