"""The evaluation helpers of the Cephes approximations (_cephes_tables.py), over nabla tensors:
Horner's rule and Clenshaw's recurrence for Chebyshev series, in the order PyTorch's Math.h runs
them so float64 results agree to rounding; and the branch guard that feeds each piece of a
piecewise formula only the inputs it is meant for (no inf / NaN from the unused piece)."""
from __future__ import annotations

from .._tensor import Tensor


def nb():
    import nabla
    return nabla


def floating(input) -> Tensor:
    """input as a floating tensor (integers and bools promote to the default dtype, as PyTorch's unary ops)."""
    n = nb()
    x = input if isinstance(input, Tensor) else n.tensor(input)
    return x if x.dtype.is_floating_point else x.to(n.get_default_dtype())


def horner(z: Tensor, coefs) -> Tensor:
    """c0 z^(n-1) + ... + c(n-1): p = p * z + c, from p = 0 (Cephes' polevl)."""
    p = None
    for c in coefs:
        p = nb().full_like(z, c) if p is None else p * z + c
    return p


def chbevl(x: Tensor, coefs) -> Tensor:
    """sum' c_i T_i(x / 2) by Clenshaw's recurrence (Cephes' chbevl)."""
    b0, b1, b2 = nb().full_like(x, coefs[0]), nb().zeros_like(x), None
    for c in coefs[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def guard(mask: Tensor, x: Tensor, safe: float) -> Tensor:
    """x where mask, else safe (a point the branch evaluates without overflow)."""
    return nb().where(mask, x, nb().full_like(x, safe))


def finish(r: Tensor, out) -> Tensor:
    return r if out is None else out.copy_(r)
