"""More torch.linalg functions composed from nabla ops: matrix_exp (Pade 13 with scaling and
squaring, Higham 2005), vander, tensorinv, tensorsolve and householder_product (the product of
the Householder reflectors geqrf returns; torch.orgqr). Gradients come from the ops."""
from __future__ import annotations

import math

from ._tensor import Tensor

__all__ = ["matrix_exp", "vander", "tensorinv", "tensorsolve", "householder_product"]

# Pade 13 numerator coefficients b0..b13 and the 1-norm below which no scaling is needed
_B13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
        10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _nb():
    import nabla
    return nabla


def _square(A: Tensor, fname: str) -> None:
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 0} by {A.shape[-1] if A.dim() else 0} matrices")


def matrix_exp(A: Tensor) -> Tensor:
    """exp(A) = sum A^k / k! of each square matrix: [*, n, n]."""
    nb = _nb()
    _square(A, "linalg.matrix_exp")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point tensor, but got {A.dtype}")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax()) if n else 0.0  # the largest 1-norm in the batch
    s = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 and math.isfinite(norm) else 0
    X = A / (2 ** s) if s else A
    eye = nb.eye(n, dtype=A.dtype, device=A.device).expand(A.shape)
    b = _B13
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = nb.linalg.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrices of x [*, n]: columns x^0, x^1, ..., x^(N-1) (increasing powers)."""
    nb = _nb()
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    cols = [nb.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    return nb.stack(cols, -1)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The inverse of A seen as the matrix prod(shape[:ind]) x prod(shape[ind:]): shape[ind:] + shape[:ind]."""
    nb = _nb()
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    result = nb.linalg.inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])
    return result if out is None else out.copy_(result)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B; dims of A are moved to the end first. X has A.shape[B.ndim:]."""
    nb = _nb()
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute(*[d for d in range(A.dim()) if d not in dims], *dims)
    rest = A.shape[B.dim():]
    rows, cols = B.numel(), math.prod(rest)
    if tuple(A.shape[:B.dim()]) != tuple(B.shape) or rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    result = nb.linalg.solve(A.reshape(rows, cols), B.reshape(rows)).reshape(rest)
    return result if out is None else out.copy_(result)


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0, .., 0, 1, A[i+1:, i]):
    A [*, m, n] (m >= n), tau [*, k] (k <= n)."""
    nb = _nb()
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    rows = nb.arange(m, device=A.device).unsqueeze(-1)  # [m, 1]
    Q = nb.eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in range(k - 1, -1, -1):  # Q = H_i Q, the last reflector applied first
        col = A[..., :, i:i + 1]
        v = nb.where(rows > i, col, (rows == i).to(A.dtype))  # [*, m, 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.transpose(-2, -1) @ Q))
    return Q if out is None else out.copy_(Q)
