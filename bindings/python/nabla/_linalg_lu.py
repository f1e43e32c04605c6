"""linalg.lu_factor / lu_factor_ex / lu / lu_solve: LU with partial pivoting (LAPACK getrf's
choice: the first largest |entry| of each column) composed of nabla ops, one column step at a time
over the whole batch, so gradients come from the ops. pivots are int32 and 1-based as LAPACK's;
info is the first (1-based) zero pivot, 0 if none."""
from __future__ import annotations

import collections

from ._tensor import Tensor

LUFactorResult = collections.namedtuple("LUFactorResult", ["LU", "pivots"])
LUFactorExResult = collections.namedtuple("LUFactorExResult", ["LU", "pivots", "info"])
LUResult = collections.namedtuple("LUResult", ["P", "L", "U"])

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve"]


def _nb():
    import nabla
    return nabla


def _check(A, fname: str, pivot: bool) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} "
                           "instead")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: Expected a floating point tensor as input")
    if not pivot:
        raise RuntimeError(f"{fname}: LU without pivoting is not implemented on the CPU")


def _factor(A: Tensor):
    """(LU [..., m, n], perm [..., m] int64 (row i of LU is row perm[i] of A), pivots, info)."""
    nb = _nb()
    m, n = A.shape[-2:]
    batch = A.shape[:-2]
    rows = nb.arange(m, device=A.device).expand(*batch, m)
    perm, a = rows, A
    pivots, info = [], nb.zeros(batch, dtype=nb.int32, device=A.device)
    for k in range(min(m, n)):
        p = a.narrow(-2, k, m - k).select(-1, k).detach().abs().argmax(-1, keepdim=True) + k  # [..., 1]
        swap = nb.where(rows == k, p, nb.where(rows == p, nb.full_like(rows, k), rows))
        a = a.gather(-2, swap.unsqueeze(-1).expand(*batch, m, n))
        perm = perm.gather(-1, swap)
        pivots.append(p.squeeze(-1) + 1)
        piv = a.narrow(-2, k, 1).narrow(-1, k, 1)  # [..., 1, 1]
        zero = piv == 0
        info = nb.where((info == 0) & zero.reshape(batch), nb.full_like(info, k + 1), info)
        if k + 1 == m:
            break
        below = a.narrow(-2, k + 1, m - k - 1)
        l = nb.where(zero, below.narrow(-1, k, 1), below.narrow(-1, k, 1) / nb.where(zero, nb.ones_like(piv), piv))
        rest = below.narrow(-1, k + 1, n - k - 1) - l * a.narrow(-2, k, 1).narrow(-1, k + 1, n - k - 1)
        below = nb.cat([below.narrow(-1, 0, k), l, rest], -1)
        a = nb.cat([a.narrow(-2, 0, k + 1), below], -2)
    piv = nb.stack(pivots, -1).to(nb.int32) if pivots else nb.zeros((*batch, 0), dtype=nb.int32, device=A.device)
    return a, perm, piv, info


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None) -> LUFactorExResult:
    """(LU, pivots, info) of A [..., m, n]: L (unit diagonal, below) and U (on and above) packed in LU."""
    _check(A, "linalg.lu_factor_ex", pivot)
    lu_, _, piv, info = _factor(A)
    if check_errors and bool((info > 0).any()):
        raise RuntimeError(f"torch.linalg.lu_factor_ex: U[{int(info.max())},{int(info.max())}] is zero")
    return LUFactorExResult(lu_, piv, info)


def lu_factor(A: Tensor, *, pivot: bool = True, out=None) -> LUFactorResult:
    """(LU, pivots) of A [..., m, n]; an exactly singular matrix is an error (lu_factor_ex reports it instead)."""
    _check(A, "linalg.lu_factor", pivot)
    lu_, _, piv, info = _factor(A)
    if info.numel() and bool((info > 0).any()):
        k = int(info.reshape(-1)[(info.reshape(-1) > 0).nonzero().reshape(-1)[0]])
        raise RuntimeError(f"torch.linalg.lu_factor: U[{k},{k}] is zero and using it on lu_solve would result in a "
                           "division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LUFactorResult(lu_, piv)


def _unpack(lu_: Tensor, perm: Tensor):
    nb = _nb()
    m, n = lu_.shape[-2:]
    k = min(m, n)
    L = lu_.narrow(-1, 0, k).tril(-1) + nb.eye(m, k, dtype=lu_.dtype, device=lu_.device)
    U = lu_.narrow(-2, 0, k).triu()
    P = nb.nn.functional.one_hot(perm, m).to(lu_.dtype).transpose(-2, -1)  # P[perm[i], i] = 1: A = P L U
    return P, L, U


def lu(A: Tensor, *, pivot: bool = True, out=None) -> LUResult:
    """(P, L, U) with A = P L U: P [..., m, m] a permutation, L [..., m, k] unit lower, U [..., k, n]."""
    _check(A, "linalg.lu", pivot)
    lu_, perm, _, _ = _factor(A)
    return LUResult(*_unpack(lu_, perm))


def _perm_from_pivots(pivots: Tensor, m: int) -> Tensor:
    nb = _nb()
    batch = pivots.shape[:-1]
    rows = nb.arange(m, device=pivots.device).expand(*batch, m)
    perm = rows
    for k in range(pivots.shape[-1]):
        p = pivots.narrow(-1, k, 1).long() - 1
        swap = nb.where(rows == k, p, nb.where(rows == p, nb.full_like(rows, k), rows))
        perm = perm.gather(-1, swap)
    return perm


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, out=None) -> Tensor:
    """X with A X = B (left; A^T X = B with adjoint) or X A = B, A = P L U given by lu_factor's (LU, pivots)."""
    from .linalg import solve_triangular
    nb = _nb()
    n = LU.shape[-1]
    if LU.dim() < 2 or LU.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: Expected LU to be batches of square matrices, but they are "
                           f"{LU.shape[-2] if LU.dim() > 1 else 1} by {n} matrices")
    if pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix")
    if B.dim() < 2 or B.shape[-2 if left else -1] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {'x'.join(map(str, B.shape[-2:]))})")
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return lu_solve(LU, pivots, B.transpose(-2, -1), adjoint=not adjoint).transpose(-2, -1)
    perm = _perm_from_pivots(pivots, n)
    batch = tuple(nb.broadcast_shapes(tuple(perm.shape[:-1]), tuple(B.shape[:-2]), tuple(LU.shape[:-2])))
    k = B.shape[-1]
    index = perm.expand(*batch, n).unsqueeze(-1).expand(*batch, n, k)
    if not adjoint:  # L U X = P^T B: B's rows in perm's order
        y = solve_triangular(LU, B.expand(*batch, n, k).gather(-2, index), upper=False, unitriangular=True)
        return solve_triangular(LU, y, upper=True)
    # U^T L^T P^T X = B: X = P (L^-T U^-T B), row perm[i] of X is row i of the solve
    lut = LU.transpose(-2, -1)
    z = solve_triangular(lut, solve_triangular(lut, B, upper=False), upper=True, unitriangular=True)
    return nb.zeros_like(z.expand(*batch, n, k)).scatter(-2, index, z.expand(*batch, n, k))
