"""torch.lobpcg: the k extreme eigenpairs of a symmetric (generalised: A x = lambda B x, B positive
definite) matrix by Knyazev's locally optimal block preconditioned conjugate gradient method:
each step a Rayleigh-Ritz projection onto [X, W, P] (the current vectors, the preconditioned
residuals, the previous update directions), the basis B-orthonormalised first. Convergence as
PyTorch's (Duersch et al. 2018): ||R_j|| / (||X_j|| (||A|| + |lambda_j| ||B||)) < tol for the leading
pairs in order, with ||A|| and ||B|| estimated on the starting block. Composed of nabla ops
(eigh, cholesky, qr), so it runs on any device."""
from __future__ import annotations

from ._tensor import Tensor

__all__ = ["lobpcg"]


def _nb():
    import nabla
    return nabla


def _b_orthonormal(S: Tensor, B, drop: float) -> Tensor:
    """An orthonormal (in the B inner product) basis of S's span, nearly dependent directions dropped."""
    nb = _nb()
    Q = nb.linalg.qr(S).Q
    if B is None:
        return Q
    G = Q.mT @ (B @ Q)
    w, V = nb.linalg.eigh((G + G.mT) / 2)
    keep = w > drop * w.max()
    return Q @ (V[:, keep] / w[keep].sqrt())


def _one(A: Tensor, B, X: Tensor, iK, k: int, niter: int, tol: float, largest: bool):
    nb = _nb()
    n = X.shape[-1]
    drop = 1e3 * nb.finfo(A.dtype).eps
    norm_x = X.norm()
    norm_a = float((A @ X).norm() / norm_x)
    norm_b = 1.0 if B is None else float((B @ X).norm() / norm_x)
    X = _b_orthonormal(X, B, drop)
    P = None
    E = None
    for step in range(niter + 1):
        S = X if step == 0 else nb.cat([X, W] + ([] if P is None else [P]), 1)
        S = _b_orthonormal(S, B, drop) if step else S
        T = S.mT @ (A @ S)
        theta, C = nb.linalg.eigh((T + T.mT) / 2)
        order = nb.argsort(theta, descending=largest)[:n]
        E, C = theta[order], C[:, order]
        X_new = S @ C
        if step:
            # the directions that moved X, orthogonal to it in S's basis: the next P
            P = X_new - X @ (X.mT @ (X_new if B is None else B @ X_new))
        X = X_new
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        rerr = R.norm(dim=0) / (X.norm(dim=0) * (norm_a + E.abs() * norm_b))
        converged = 0
        for ok in (rerr < tol).tolist():
            if not ok:
                break
            converged += 1
        if converged >= k or step == niter:
            break
        W = R if iK is None else iK @ R
    return E[:k], X[:, :k]


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """(E [*, k], X [*, m, k]): the k largest (or smallest) eigenvalues of A x = E B x and their vectors.
    niter: at most this many steps (default 1000, -1 until converged); method "ortho" or "basic" (both
    run the B-orthonormalised iteration here)."""
    nb = _nb()
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"LOBPCG: method must be 'ortho' or 'basic', got {method!r}")
    dtype = A.dtype if A.dtype in (nb.float32, nb.float64) else nb.float32
    if tol is None:
        tol = {nb.float32: 1.2e-07, nb.float64: 2.23e-16}[dtype] ** 0.5
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than "
                         f"3 x the number of requested eigenpairs (={n})")
    niter = 1000 if niter is None else (1 << 30 if niter < 0 else niter)
    largest = True if largest is None else largest
    batch = A.shape[:-2]
    count = 1
    for d in batch:
        count *= d
    As = A.reshape(count, m, m).to(dtype)
    Bs = None if B is None else B.reshape(count, m, m).to(dtype)
    Xs = None if X is None else X.reshape(count, m, n).to(dtype)
    values, vectors = [], []
    for i in range(count):
        start = nb.randn(m, n, dtype=dtype, device=A.device) if Xs is None else Xs[i]
        if tuple(start.shape) != (m, n):
            raise AssertionError(f"X shape mismatch: got {start.shape}, expected {(m, n)}")
        e, x = _one(As[i], None if Bs is None else Bs[i], start, iK, k, niter, tol, largest)
        values.append(e)
        vectors.append(x)
    return nb.stack(values).reshape(*batch, k), nb.stack(vectors).reshape(*batch, m, k)
