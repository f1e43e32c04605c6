"""linalg.ldl_factor / ldl_factor_ex / ldl_solve: the Bunch-Kaufman factorization A = L D L^T of
symmetric (indefinite) matrices and solves with it, over the LAPACK ops nb_linalg_ldl_factor_ex and
nb_linalg_ldl_solve (sytrf / sytrs, lower). LD and pivots follow LAPACK's convention, as PyTorch's:
pivots are int32 and 1-based, negative where D has a 2x2 block. Not differentiable, as in PyTorch."""
from __future__ import annotations

import collections

from ._lib import lib
from ._tensor import Tensor

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

LDLFactorResult = collections.namedtuple("linalg_ldl_factor", ["LD", "pivots"])
LDLFactorExResult = collections.namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_SINGULAR = "The factorization could not be completed because the input is not invertible: D({0}, {0}) is exactly zero."


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """(LD, pivots, info) of A [..., n, n] = L D L^T (its lower triangle read): LD holds L under the diagonal and
    D's blocks, pivots [..., n] LAPACK's interchanges, info 0 or the position of a zero block of D."""
    from .linalg import _call, _check_info, _outs, _tensor  # linalg imports this module
    A = _tensor(A, "linalg_ldl_factor_ex")
    r = LDLFactorExResult(*_call(lib.nb_linalg_ldl_factor_ex, A._h, int(bool(hermitian)), n=3))
    if check_errors:
        _check_info(r.info, "torch.linalg.ldl_factor_ex", _SINGULAR)
    return _outs(r, out, "linalg.ldl_factor_ex", LDLFactorExResult)


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """(LD, pivots) of ldl_factor_ex; a singular D raises LinAlgError (a RuntimeError, as PyTorch's)."""
    from .linalg import _check_info, _outs, _tensor
    LD, pivots, info = ldl_factor_ex(_tensor(A, "linalg_ldl_factor"), hermitian=hermitian)
    _check_info(info, "torch.linalg.ldl_factor", _SINGULAR)
    return _outs(LDLFactorResult(LD, pivots), out, "linalg.ldl_factor", LDLFactorResult)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None) -> Tensor:
    """X with A X = B [..., n, k] from ldl_factor's LD and pivots of A; batch dims broadcast."""
    from .linalg import _call, _out1, _tensor
    fname = "linalg_ldl_solve"
    r = _call(lib.nb_linalg_ldl_solve, _tensor(LD, fname, "LD")._h, _tensor(pivots, fname, "pivots")._h,
              _tensor(B, fname, "B")._h, int(bool(hermitian)))[0]
    return _out1(r, out, "linalg.ldl_solve")
