"""The modified Bessel functions of the second kind K0, K1 and their exponentially scaled forms
e^x K0, e^x K1 as PyTorch's Cephes formulas (ATen/native/Math.h): a Chebyshev series in x^2 - 2 plus
the log(x/2) I_nu(x) term up to x = 2, a Chebyshev series in 8/x - 2 times e^-x / sqrt(x) above.
inf at 0, NaN below 0. No gradients (PyTorch has none for these)."""
from __future__ import annotations

import math

from . import _cephes_tables as T
from ._bessel import modified_bessel_i0, modified_bessel_i1
from ._cephes import chbevl, finish, floating, guard, nb

__all__ = ["modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]


def _k(input, order: int, scaled: bool, out):
    n = nb()
    x = floating(input)
    small = x <= 2.0
    xs = guard(small & (x > 0), x, 1.0)
    a = chbevl(xs * xs - 2.0, T.K0_A if order == 0 else T.K1_A)
    if order == 0:
        near = a - (0.5 * xs).log() * modified_bessel_i0(xs)
    else:
        near = (0.5 * xs).log() * modified_bessel_i1(xs) + a / xs
    xl = guard(~small, x, 3.0)
    far = chbevl(8.0 / xl - 2.0, T.K0_B if order == 0 else T.K1_B) / xl.sqrt()
    r = n.where(small, near * xs.exp() if scaled else near, far if scaled else (-xl).exp() * far)
    r = n.where(x == 0, n.full_like(x, math.inf), n.where(x < 0, n.full_like(x, math.nan), r))
    return finish(r, out)


def modified_bessel_k0(input, *, out=None):
    """The modified Bessel function of the second kind of order 0."""
    return _k(input, 0, False, out)


def modified_bessel_k1(input, *, out=None):
    """The modified Bessel function of the second kind of order 1."""
    return _k(input, 1, False, out)


def scaled_modified_bessel_k0(input, *, out=None):
    """e^x K0(x)."""
    return _k(input, 0, True, out)


def scaled_modified_bessel_k1(input, *, out=None):
    """e^x K1(x)."""
    return _k(input, 1, True, out)
