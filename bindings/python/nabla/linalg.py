"""nabla.linalg: PyTorch's torch.linalg over the LAPACK ops of libnabla (inv, solve,
det, slogdet, cholesky, the _ex forms of inv / solve / cholesky, solve_triangular, qr,
eigh, svd: float32 / float64, batched over leading dims), the norms composed from them,
and the functions composed from those (_linalg_composite: pinv, matrix_rank, lstsq,
matrix_power, multi_dot, cross, vecdot, diagonal; _linalg_more: matrix_exp, vander,
tensorinv, tensorsolve, householder_product; _linalg_ldl: ldl_factor / ldl_solve). Failures on the input's values raise
LinAlgError (a RuntimeError), as PyTorch's do."""
from __future__ import annotations

import collections
import math
import numbers
import operator

from . import _dtype
from ._lib import LinAlgError, error, ffi, lib
from ._linalg import matmul
from ._tensor import Tensor, _checked, _write_out, _from_handle

__all__ = ["LinAlgError", "inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "det", "slogdet", "cholesky",
           "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "vector_norm", "matrix_norm", "norm", "matmul",
           "pinv", "matrix_rank", "lstsq", "matrix_power", "multi_dot", "cross", "vecdot", "diagonal",
           "matrix_exp", "vander", "tensorinv", "tensorsolve", "householder_product", "ldl_factor", "ldl_factor_ex",
           "ldl_solve"]

_NULL = ffi.NULL
_SAME = "{fname}: Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"

SlogdetResult = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
QRResult = collections.namedtuple("linalg_qr", ["Q", "R"])
EighResult = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
SVDResult = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
InvExResult = collections.namedtuple("linalg_inv_ex", ["inverse", "info"])
SolveExResult = collections.namedtuple("linalg_solve_ex", ["result", "info"])
CholeskyExResult = collections.namedtuple("linalg_cholesky_ex", ["L", "info"])


def _tensor(x, fname: str, name: str = "A") -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _call(fn, *args, n: int = 1):
    """fn(*args, out_1, ..., out_n) -> the n new tensors."""
    outs = ffi.new("nb_tensor*[]", n)
    status = fn(*args, *[outs + i for i in range(n)])
    if status:
        raise error(status)
    return tuple(_from_handle(outs[i]) for i in range(n))


def _out1(result: Tensor, out, fname: str) -> Tensor:
    return result if out is None else _write_out(out, result, fname, _SAME)


def _outs(result: tuple, out, fname: str, kind):
    if out is None:
        return result
    if not (isinstance(out, (tuple, list)) and len(out) == len(result)):
        raise TypeError(f"{fname}(): argument 'out' must be a tuple of {len(result)} Tensors")
    return kind(*(_write_out(o, r, fname, _SAME) for o, r in zip(out, result)))


# ---- decompositions and solvers ----

def inv(A: Tensor, *, out=None) -> Tensor:
    """The inverse of each square matrix of A [..., n, n]."""
    return _out1(_call(lib.nb_linalg_inv, _tensor(A, "inv")._h)[0], out, "linalg.inv")


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """X with A X = B (left) or X A = B; B is a batch of matrices or of vectors (PyTorch's rule)."""
    _tensor(A, "solve"), _tensor(B, "solve", "B")
    return _out1(_call(lib.nb_linalg_solve, A._h, B._h, int(bool(left)))[0], out, "linalg.solve")


def _check_info(info: Tensor, fname: str, message: str) -> None:
    """check_errors=True of the _ex functions: LinAlgError for the first nonzero info, as PyTorch words it
    (message formatted with the info value)."""
    codes = info.numpy().reshape(-1)
    bad = codes.nonzero()[0]
    if bad.size:
        where = f"(Batch element {bad[0]}): " if info.ndim > 0 else ""
        raise LinAlgError(f"{fname}: {where}{message.format(int(codes[bad[0]]))}")


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """(inverse, info): inv without raising for a singular matrix; info (int32, one per matrix) is 0 or the
    position of the zero diagonal element of U, whose inverse then holds infinities / NaNs."""
    r = InvExResult(*_call(lib.nb_linalg_inv_ex, _tensor(A, "inv_ex")._h, n=2))
    if check_errors:
        _check_info(r.info, "linalg.inv_ex", "The diagonal element {} is zero, the inversion could not be completed "
                    "because the input matrix is singular.")
    return _outs(r, out, "linalg.inv_ex", InvExResult)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """(result, info): solve without raising for a singular A (info > 0 there, the result infinities / NaNs)."""
    _tensor(A, "solve_ex"), _tensor(B, "solve_ex", "B")
    r = SolveExResult(*_call(lib.nb_linalg_solve_ex, A._h, B._h, int(bool(left)), n=2))
    if check_errors:
        _check_info(r.info, "torch.linalg.solve_ex", "The solver failed because the input matrix is singular.")
    return _outs(r, out, "linalg.solve_ex", SolveExResult)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:
    """X with A X = B (left) or X A = B, reading only A's upper (upper=True) or lower triangle (unitriangular:
    ones assumed on its diagonal); B [..., n, k] or [..., k, n], batch dims broadcast. No singularity check."""
    _tensor(A, "solve_triangular"), _tensor(B, "solve_triangular", "B")
    r = _call(lib.nb_linalg_solve_triangular, A._h, B._h, int(bool(upper)), int(bool(left)),
              int(bool(unitriangular)))[0]
    return _out1(r, out, "linalg.solve_triangular")


def det(A: Tensor, *, out=None) -> Tensor:
    return _out1(_call(lib.nb_linalg_det, _tensor(A, "det")._h)[0], out, "linalg.det")


def slogdet(A: Tensor, *, out=None):
    """(sign, log|det|) of each square matrix: -1, 0 or 1 and -inf for a singular one."""
    return _outs(SlogdetResult(*_call(lib.nb_linalg_slogdet, _tensor(A, "slogdet")._h, n=2)), out,
                 "linalg.slogdet", SlogdetResult)


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """L with A = L L^T (upper: U with A = U^T U) for symmetric positive-definite A (its lower triangle is read)."""
    return _out1(_call(lib.nb_linalg_cholesky, _tensor(A, "cholesky")._h, int(bool(upper)))[0], out,
                 "linalg.cholesky")


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """(L, info): cholesky without raising; info (int32, one per matrix) is 0 or the order of the leading minor
    that is not positive-definite (L then holds LAPACK's partial factorization)."""
    r = CholeskyExResult(*_call(lib.nb_linalg_cholesky_ex, _tensor(A, "cholesky_ex")._h, int(bool(upper)), n=2))
    if check_errors:
        _check_info(r.info, "linalg.cholesky_ex", "The factorization could not be completed because the input is not "
                    "positive-definite (the leading minor of order {} is not positive-definite).")
    return _outs(r, out, "linalg.cholesky_ex", CholeskyExResult)


_QR_MODES = {"reduced": lib.NB_QR_REDUCED, "complete": lib.NB_QR_COMPLETE, "r": lib.NB_QR_R}


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """(Q, R) with A = Q R: mode 'reduced', 'complete', or 'r' (R only; Q empty). Differentiable as in PyTorch:
    reduced, and complete when m <= n (backward raises PyTorch's error otherwise)."""
    _tensor(A, "qr")
    code = _QR_MODES.get(mode) if isinstance(mode, str) else None
    if code is None:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return _outs(QRResult(*_call(lib.nb_linalg_qr, A._h, code, n=2)), out, "linalg.qr", QRResult)


def _uplo(UPLO) -> int:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return int(UPLO == "U")


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix (its UPLO triangle is read)."""
    r = _call(lib.nb_linalg_eigh, _tensor(A, "eigh")._h, _uplo(UPLO), n=2)
    return _outs(EighResult(*r), out, "linalg.eigh", EighResult)


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    w = _from_handle(_one(lambda v: lib.nb_linalg_eigh(_tensor(A, "eigvalsh")._h, _uplo(UPLO), v, _NULL)))
    return _out1(w, out, "linalg.eigvalsh")


def _one(call):
    """call(out_slot) -> the handle it wrote."""
    slot = ffi.new("nb_tensor*[1]")
    status = call(slot)
    if status:
        raise error(status)
    return slot[0]


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """(U, S, Vh) with A = U diag(S) Vh; S descending. full_matrices: square U and Vh."""
    r = _call(lib.nb_linalg_svd, _tensor(A, "svd")._h, int(bool(full_matrices)), n=3)
    return _outs(SVDResult(*r), out, "linalg.svd", SVDResult)


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    s = _from_handle(_one(lambda v: lib.nb_linalg_svd(_tensor(A, "svdvals")._h, 0, _NULL, v, _NULL)))
    return _out1(s, out, "linalg.svdvals")


# ---- norms ----

def _float_input(x: Tensor, fname: str) -> None:
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.TORCH_NAMES[x.dtype.code]}")


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The ord-norm of x over dim (None: every element): ord a number, inf or -inf (0 counts nonzeros)."""
    # The common call goes straight to the C op: the general path's checks cost as much as the norm of
    # 1000 elements. A failed call (an integer tensor, a bad dim) takes the general path for torch's error.
    if (x.__class__ is Tensor and ord.__class__ in (int, float) and dtype is None and out is None
            and (dim is None or dim.__class__ is int)):
        h = lib.nbpy_norm(x._h, ord, _NULL if dim is None else [dim], dim is not None, bool(keepdim), -1, _NULL)
        if h:
            return _checked(h)
    from ._reduce import norm as _norm
    _float_input(_tensor(x, "vector_norm", "x"), "linalg.vector_norm")
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"linalg.vector_norm(): argument 'ord' must be a number, not {type(ord).__name__}")
    return _out1(_norm(x, float(ord), dim, keepdim, dtype=dtype), out, "linalg.vector_norm")


def _two_dims(A: Tensor, dim, fname: str) -> tuple:
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if not (isinstance(dim, (tuple, list)) and len(dim) == 2):
        raise RuntimeError(f"{fname}: dim must be a 2-tuple. Got {dim}")
    d = tuple(A._wrap_dim(operator.index(x)) for x in dim)
    if d[0] == d[1]:
        raise RuntimeError(f"{fname}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The matrix norm of the matrices in dims dim of A: ord 'fro', 'nuc', 2, -2 (largest / smallest
    singular value), 1, -1 (max / min column sum of |A|), inf, -inf (max / min row sum)."""
    fname = "linalg.matrix_norm"
    _float_input(_tensor(A, "matrix_norm"), fname)
    d0, d1 = _two_dims(A, dim, fname)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        r = vector_norm(A, 2, (d0, d1), keepdim)
    elif ord == "nuc" or ord in (2, -2):
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = s.sum(-1) if ord == "nuc" else s.amax(-1) if ord == 2 else s.amin(-1)
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    elif ord in (1, -1, math.inf, -math.inf):
        rows, cols = (d0, d1) if ord in (1, -1) else (d1, d0)  # 1: sums over rows (per column)
        r = A.abs().sum(rows, keepdim=True)
        r = r.amax(cols, keepdim=True) if ord > 0 else r.amin(cols, keepdim=True)
        if not keepdim:
            r = r.squeeze((d0, d1))
    else:
        raise RuntimeError(f"{fname}: Order {ord} not supported.")
    return _out1(r, out, fname)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, out=None, dtype=None) -> Tensor:
    """A vector norm (dim an int, or ord None, or A 1-D) or a matrix norm (dim a 2-tuple, ord a string, or A
    2-D with ord given), as torch.linalg.norm decides."""
    fname = "linalg.norm"
    _tensor(A, "norm")
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if dim is not None:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.ndim == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"{fname}: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")


# ---- PyTorch's top-level names and Tensor methods ----

def inverse(input: Tensor, *, out=None) -> Tensor:
    return inv(input, out=out)


def logdet(input: Tensor) -> Tensor:
    """log det: nan for a negative determinant, -inf for a singular matrix."""
    sign, logabs = slogdet(input)
    return logabs + sign.log()  # log(-1) = nan, log(0) = -inf, log(1) = 0


from ._linalg_composite import cross, diagonal, lstsq, matrix_power, matrix_rank, multi_dot, pinv, vecdot  # noqa: E402
from ._linalg_more import householder_product, matrix_exp, tensorinv, tensorsolve, vander  # noqa: E402
from ._linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve  # noqa: E402,F401
from ._linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: E402,F401
