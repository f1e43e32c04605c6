"""torch.lobpcg against NumPy/SciPy eigensolvers and torch: the k largest and smallest pairs,
the generalised problem with B, a preconditioner, batches, float32, and torch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import nabla as nb

torch = pytest.importorskip("torch")


def spd(rng, m, shift=0.0):
    M = rng.standard_normal((m, m))
    return M @ M.T + np.diag(np.arange(m, dtype=float) + shift)


def residual(A, E, X, B=None):
    BX = X if B is None else B @ X
    return np.abs(A @ X - BX * E).max() / np.abs(E).max()


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 3])
def test_extreme_pairs_match_numpy_and_torch(largest, k):
    rng = np.random.default_rng(k)
    A = spd(rng, 36)
    E, X = nb.lobpcg(nb.tensor(A), k=k, largest=largest)
    ref = np.linalg.eigvalsh(A)
    ref = ref[::-1][:k] if largest else ref[:k]
    np.testing.assert_allclose(E.numpy(), ref, rtol=1e-8)
    assert residual(A, E.numpy(), X.numpy()) < 1e-6
    tE, _ = torch.lobpcg(torch.tensor(A), k=k, largest=largest)
    np.testing.assert_allclose(E.numpy(), tE.numpy(), rtol=1e-8)


def test_generalised_problem_and_preconditioner():
    sl = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(5)
    A, B = spd(rng, 30), np.diag(rng.uniform(1.0, 2.0, 30))
    E, X = nb.lobpcg(nb.tensor(A), k=2, B=nb.tensor(B))
    np.testing.assert_allclose(E.numpy(), sl.eigh(A, B, eigvals_only=True)[::-1][:2], rtol=1e-8)
    assert residual(A, E.numpy(), X.numpy(), B) < 1e-6
    iK = nb.tensor(np.diag(1.0 / np.diag(A)))
    E2, _ = nb.lobpcg(nb.tensor(A), k=2, B=nb.tensor(B), iK=iK)
    np.testing.assert_allclose(E2.numpy(), E.numpy(), rtol=1e-8)


def test_batches_start_blocks_and_float32():
    rng = np.random.default_rng(2)
    A = np.stack([spd(rng, 24), spd(rng, 24, 5.0)])
    X0 = rng.standard_normal((2, 24, 2))
    E, X = nb.lobpcg(nb.tensor(A), X=nb.tensor(X0))
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 24, 2)
    for i in range(2):
        np.testing.assert_allclose(E[i].numpy(), np.linalg.eigvalsh(A[i])[::-1][:2], rtol=1e-8)
    E32, _ = nb.lobpcg(nb.tensor(A[0].astype(np.float32)), k=2)
    assert E32.dtype == nb.float32
    np.testing.assert_allclose(E32.numpy(), np.linalg.eigvalsh(A[0])[::-1][:2], rtol=1e-4)


def test_errors_match_torch():
    A = nb.tensor(spd(np.random.default_rng(0), 8))
    with pytest.raises(ValueError, match=r"number of A rows \(=8\) is smaller than 3 x the number of requested "
                                         r"eigenpairs \(=3\)"):
        torch.lobpcg(torch.tensor(A.numpy()), k=3)
    with pytest.raises(ValueError, match=r"number of A rows \(=8\) is smaller than 3 x the number of requested "
                                         r"eigenpairs \(=3\)"):
        nb.lobpcg(A, k=3)
    with pytest.raises(AssertionError, match="A must be square"):
        nb.lobpcg(A[:, :5])
    with pytest.raises(AssertionError, match="A and B must have same shape"):
        nb.lobpcg(A, B=A[:4, :4])
