"""svd_lowrank and pca_lowrank: the randomized range finder of Halko, Martinsson and Tropp
(2009, Algorithm 4.4 with niter power iterations, then Algorithm 5.1), as PyTorch's; composed of
nabla ops, so it runs on any device and has gradients. The random start comes from nabla's
generator, so results equal PyTorch's where the answer is unique (a matrix of rank at most q)."""
from __future__ import annotations

from ._tensor import Tensor

__all__ = ["svd_lowrank", "pca_lowrank"]


def _nb():
    import nabla
    return nabla


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """Q [..., m, q] with orthonormal columns spanning about the range of A - M."""
    nb = _nb()
    R = nb.randn(A.shape[-1], q, dtype=A.dtype, device=A.device)

    def times(X: Tensor, B: Tensor, C: Tensor | None) -> Tensor:
        return X @ B if C is None else X @ B - C @ B

    Q = nb.linalg.qr(times(A, R, M)).Q
    for _ in range(niter):
        Q = nb.linalg.qr(times(A.mT, Q, None if M is None else M.mT)).Q
        Q = nb.linalg.qr(times(A, Q, M)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None):
    nb = _nb()
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # the algorithm takes a tall matrix
        A = A.mT
        M = None if M is None else M.mT
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mT @ A if M is None else Q.mT @ A - Q.mT @ M
    U, S, Vh = nb.linalg.svd(B, full_matrices=False)
    U, V = Q @ U, Vh.mT
    return (V, S, U) if m < n else (U, S, V)


def _check(A, fname: str) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{fname}: expected a tensor with 2 or more dimensions, got {A.dim()}")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: expected a floating point tensor, got {A.dtype}")


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """(U, S, V) with A - M ~ U diag(S) V^T, of rank q: an approximate truncated SVD."""
    _check(A, "svd_lowrank")
    return _svd_lowrank(A, 6 if q is None else q, 2 if niter is None else niter, M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """(U, S, V) of the (column-centred, with center) data A: its q principal directions are V's columns."""
    _check(A, "pca_lowrank")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)
