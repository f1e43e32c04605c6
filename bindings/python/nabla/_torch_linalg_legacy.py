"""The linear-algebra names torch.* kept from before torch.linalg: lu, lu_unpack, lu_solve,
triangular_solve, geqrf and ormqr, over nabla.linalg; and those PyTorch removed (solve, lstsq,
symeig, matrix_rank), which raise PyTorch's message naming their replacement.

geqrf is LAPACK's Householder QR as numpy.linalg.qr(mode="raw") computes it (a CPU kernel,
without a gradient, as PyTorch's); ormqr multiplies by the Q of its reflectors through
linalg.householder_product, so it runs on any device and has gradients."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ._tensor import Tensor

__all__ = ["lu", "lu_unpack", "lu_solve", "triangular_solve", "geqrf", "ormqr", "solve", "lstsq", "symeig",
           "matrix_rank"]

_lu_unpack = namedtuple("lu_unpack", ["P", "L", "U"])
_triangular_solve = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
_geqrf = namedtuple("geqrf", ["a", "tau"])

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def _nb():
    import nabla
    return nabla


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None):
    """(LU, pivots), or (LU, pivots, infos) with get_infos: linalg.lu_factor_ex without its check."""
    LU, pivots, infos = _nb().linalg.lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def _permutation(pivots: Tensor, m: int) -> Tensor:
    """perm [..., m] (int64): row i of L U is row perm[i] of A, from LAPACK's 1-based row swaps."""
    nb = _nb()
    batch = pivots.shape[:-1]
    perm = nb.arange(m, device=pivots.device).expand(*batch, m).clone()
    swaps = pivots.to(nb.int64) - 1
    for i in range(pivots.shape[-1]):
        p = swaps.narrow(-1, i, 1)
        here, there = perm.narrow(-1, i, 1).clone(), perm.gather(-1, p)
        perm = perm.scatter(-1, p, here)
        perm.narrow(-1, i, 1).copy_(there)
    return perm


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out=None):
    """(P, L, U) with A = P L U from lu's (LU, pivots); a part not unpacked is an empty tensor."""
    nb = _nb()
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if LU_pivots.dtype != nb.int32:
        raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                           f"dtype. Note: this function is intended to be used with the output produced by "
                           f"torch.linalg.lu_factor")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = nb.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    L = U = P = empty
    if unpack_data:
        L = LU_data.narrow(-1, 0, k).tril(-1) + nb.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        U = LU_data.narrow(-2, 0, k).triu()
    if unpack_pivots:
        perm = _permutation(LU_pivots, m)
        P = nb.zeros(*LU_data.shape[:-2], m, m, dtype=LU_data.dtype, device=LU_data.device)
        P = P.scatter(-2, perm.unsqueeze(-2), 1.0)
    return _lu_unpack(P, L, U)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """X with A X = b, A given by lu's (LU, pivots) (linalg.lu_solve, arguments in the old order)."""
    return _nb().linalg.lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None):
    """(X, A.clone()) with op(A) X = b, op(A) = A or A^T; A triangular (upper by default)."""
    nb = _nb()
    coefficient = A.mT if transpose else A
    X = nb.linalg.solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return _triangular_solve(X, A.clone())


def geqrf(input: Tensor, *, out=None):
    """(a, tau): LAPACK's Householder QR of input [..., m, n]: R on and above a's diagonal, the
    reflectors' vectors below it, their scales in tau [..., min(m, n)]."""
    nb = _nb()
    if input.dim() < 2:
        raise RuntimeError(f"torch.geqrf: Expected tensor with 2 or more dimensions. Got size: {list(input.shape)} "
                           "instead")
    if input.dtype not in (nb.float32, nb.float64):
        raise RuntimeError(f"geqrf: Expected a floating point or complex tensor as input. Got {input.dtype}")
    if input.requires_grad and nb.is_grad_enabled():
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")
    m, n = input.shape[-2:]
    values = input.detach().cpu().numpy().astype(np.float64 if input.dtype == nb.float64 else np.float32)
    flat = values.reshape(int(np.prod(input.shape[:-2], dtype=np.int64)), m, n)
    a, tau = np.empty_like(flat), np.zeros((flat.shape[0], min(m, n)), flat.dtype)
    for i, matrix in enumerate(flat):
        if matrix.size:
            h, t = np.linalg.qr(matrix, mode="raw")
            a[i], tau[i] = h.T, t
    shape = input.shape[:-2]
    return _geqrf(nb.tensor(a.reshape(values.shape), device=input.device),
                  nb.tensor(tau.reshape(*shape, min(m, n)), device=input.device))


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True, transpose: bool = False, *,
          out=None) -> Tensor:
    """op(Q) other (left) or other op(Q): Q the m x m product of geqrf's reflectors, op(Q) = Q^T when transpose."""
    nb = _nb()
    m, k = input.shape[-2], tau.shape[-1]
    if other.shape[-2 if left else -1] != m:
        side = "left" if left else "right"
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2] "
                           f"when {side} is {left}")
    if k > m:
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-2]")
    # Q = H_1 ... H_k, each H_i = I - tau_i v_i v_i^T: reflectors past k (zero scale) are identities
    square = nb.cat([input.narrow(-1, 0, k), nb.zeros(*input.shape[:-1], m - k, dtype=input.dtype,
                                                      device=input.device)], -1)
    scales = nb.cat([tau, nb.zeros(*tau.shape[:-1], m - k, dtype=tau.dtype, device=tau.device)], -1)
    Q = nb.linalg.householder_product(square, scales)
    if transpose:
        Q = Q.mT
    return Q @ other if left else other @ Q


def solve(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
        "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
        "should be replaced with:\nX = torch.linalg.solve(A, B)")


def lstsq(input, A, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
        "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
        "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
        "\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n columns "
        "of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' "
        "of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution"
        "[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")


def symeig(input, eigenvectors: bool = False, upper: bool = True, *, out=None):
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
        "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
        "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def matrix_rank(input, tol=None, symmetric: bool = False, *, out=None):
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
        "renamed in `torch.linalg.matrix_rank()` to 'hermitian'.")


TENSOR_METHODS = {
    "lu": lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos),
    "lu_solve": lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots),
    "triangular_solve": lambda self, A, upper=True, transpose=False, unitriangular=False:
        triangular_solve(self, A, upper, transpose, unitriangular),
    "geqrf": lambda self: geqrf(self),
    "ormqr": lambda self, input2, input3, left=True, transpose=False: ormqr(self, input2, input3, left, transpose),
    "solve": lambda self, A: solve(self, A),
    "lstsq": lambda self, A: lstsq(self, A),
    "symeig": lambda self, eigenvectors=False, upper=True: symeig(self, eigenvectors, upper),
}
