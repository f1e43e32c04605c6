"""The modified Bessel functions of the first kind I0 and I1 (and the exponentially scaled i0e /
i1e) as compositions: the power series sum (x/2)^(2k+nu) / (k! (k+nu)!) up to |x| = 20 (all terms
positive, so no cancellation; 60 terms reach float64 round-off there) and the asymptotic
expansion e^|x| / sqrt(2 pi |x|) sum (-1)^k a_k(nu) / |x|^k above. Gradients come from the ops
(the series' derivative is I1's series, as PyTorch's formula says)."""
from __future__ import annotations

import math

from .._tensor import Tensor

__all__ = ["i0", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1"]

_SWITCH = 20.0
_SERIES_TERMS = 60
_ASYMPTOTIC_TERMS = 24


def _nb():
    import nabla
    return nabla


def _float(input: Tensor) -> Tensor:
    return input if input.dtype.is_floating_point else input.to(_nb().get_default_dtype())


def _series(x: Tensor, nu: int) -> Tensor:
    """sum_k (x/2)^(2k+nu) / (k! (k+nu)!) by the ratio of consecutive terms."""
    q = (x / 2) * (x / 2)
    term = (x / 2) if nu == 1 else _nb().ones_like(x)
    total = term
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + nu))
        total = total + term
    return total


def _asymptotic_scaled(ax: Tensor, nu: int) -> Tensor:
    """e^-x I_nu(x) for large x > 0: (2 pi x)^(-1/2) sum_k c_k / x^k, c_k = prod_{j<=k} -(4 nu^2 - (2j-1)^2) /
    (8j), in Horner's form (the gradient of a term's power of 1/x would overflow before the term does)."""
    mu = 4.0 * nu * nu
    coefs, c = [1.0], 1.0
    for k in range(1, _ASYMPTOTIC_TERMS):
        c *= -(mu - (2 * k - 1) ** 2) / (k * 8.0)
        coefs.append(c)
    inv = 1.0 / ax
    total = _nb().full_like(ax, coefs[-1])
    for c in reversed(coefs[:-1]):
        total = total * inv + c
    return total / (2 * math.pi * ax).sqrt()


def _bessel(input: Tensor, nu: int, scaled: bool, out) -> Tensor:
    nb = _nb()
    x = _float(input)
    ax = x.abs()
    small = ax <= _SWITCH
    xs = nb.where(small, x, nb.zeros_like(x))  # each branch sees only the inputs it is accurate for
    xl = nb.where(small, nb.full_like(x, _SWITCH + 1), ax)
    series = _series(xs, nu)
    if scaled:
        series = series * (-xs.abs()).exp()
        large = _asymptotic_scaled(xl, nu)
    else:
        large = (xl + _asymptotic_scaled(xl, nu).log()).exp()  # one exp: its gradient overflows only with I
    if nu == 1:
        large = nb.where(x < 0, -large, large)  # I1 is odd
    r = nb.where(small, series, large)
    return r if out is None else out.copy_(r)


def i0(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the first kind of order 0."""
    return _bessel(input, 0, False, out)


def i0e(input: Tensor, *, out=None) -> Tensor:
    """exp(-|x|) * i0(x)."""
    return _bessel(input, 0, True, out)


def i1(input: Tensor, *, out=None) -> Tensor:
    """The modified Bessel function of the first kind of order 1."""
    return _bessel(input, 1, False, out)


def i1e(input: Tensor, *, out=None) -> Tensor:
    """exp(-|x|) * i1(x)."""
    return _bessel(input, 1, True, out)


modified_bessel_i0, modified_bessel_i1 = i0, i1
