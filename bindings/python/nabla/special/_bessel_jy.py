"""The Bessel functions of the first and second kind J0, J1, Y0, Y1 and the Airy function Ai as
compositions of PyTorch's Cephes formulas (ATen/native/Math.h): rational approximations in x^2 up to
|x| = 5 and the Hankel asymptotic form P cos(x - phase) - Q sin(x - phase) above; Ai by its power
series on [-2.09, 2.09], the exp-decaying rational form above and the oscillating one below. No
gradients (PyTorch has none for these)."""
from __future__ import annotations

import math

from . import _cephes_tables as T
from ._cephes import finish, floating, guard, horner, nb

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"]

_SQRT_2_PI = 0.797884560802865355879892119868763737  # sqrt(2 / pi)
_TWO_OVER_PI = 0.636619772367581343075535053490057448


def _hankel(x: Tensor, tab: str, phase: float, sine: bool) -> "Tensor":
    """sqrt(2 / (pi x)) (P cos(x - phase) - 5/x Q sin(x - phase)) for x > 5 (sine: the Y form)."""
    j1 = tab in ("J1", "Y1")
    z = (5.0 / x) * (5.0 / x) if j1 else 25.0 / (x * x)
    p = horner(z, getattr(T, tab + "_PP")) / horner(z, getattr(T, tab + "_PQ"))
    q = horner(z, getattr(T, tab + "_QP")) / horner(z, getattr(T, tab + "_QQ"))
    c, s = (x - phase).cos(), (x - phase).sin()
    r = p * s + 5.0 / x * q * c if sine else p * c - 5.0 / x * q * s
    return r * _SQRT_2_PI / x.sqrt()


def _j0_abs(ax):
    """J0(|x|)."""
    small = ax <= 5.0
    xs = guard(small, ax, 1.0)
    z = xs * xs
    near = (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) * horner(z, T.J0_RP) / horner(z, T.J0_RQ)
    near = nb().where(xs < 0.00001, 1.0 - z / 4.0, near)
    return nb().where(small, near, _hankel(guard(~small, ax, 6.0), "J0", math.pi / 4, False))


def _j1_abs(ax):
    """J1(|x|)."""
    small = ax <= 5.0
    xs = guard(small, ax, 1.0)
    z = xs * xs
    near = horner(z, T.J1_RP) / horner(z, T.J1_RQ) * xs * (z - 1.46819706421238932572e+01) * \
        (z - 4.92184563216946036703e+01)
    return nb().where(small, near, _hankel(guard(~small, ax, 6.0), "J1", 3 * math.pi / 4, False))


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind of order 0."""
    x = floating(input)
    return finish(_j0_abs(x.abs()), out)


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind of order 1 (odd)."""
    x = floating(input)
    r = _j1_abs(x.abs())
    return finish(nb().where(x < 0, -r, r), out)


def _y(x, order: int):
    n = nb()
    small = x <= 5.0
    xs = guard(small & (x > 0), x, 1.0)
    z = xs * xs
    if order == 0:
        near = horner(z, T.Y0_YP) / horner(z, T.Y0_YQ) + _TWO_OVER_PI * xs.log() * _j0_abs(xs)
    else:
        near = xs * (horner(z, T.Y1_YP) / horner(z, T.Y1_YQ)) + _TWO_OVER_PI * (_j1_abs(xs) * xs.log() - 1.0 / xs)
    near = n.where(x == 0, n.full_like(x, -math.inf), n.where(x < 0, n.full_like(x, math.nan), near))
    far = _hankel(guard(~small, x, 6.0), f"Y{order}", (1 + 2 * order) * math.pi / 4, True)
    return n.where(small, near, far)


def bessel_y0(input, *, out=None):
    """The Bessel function of the second kind of order 0 (-inf at 0, NaN below)."""
    return finish(_y(floating(input), 0), out)


def bessel_y1(input, *, out=None):
    """The Bessel function of the second kind of order 1 (-inf at 0, NaN below)."""
    return finish(_y(floating(input), 1), out)


_AIRY_TERMS = 40  # the power series' terms reach float64 round-off on [-2.09, 2.09] well before this


def airy_ai(input, *, out=None):
    """The Airy function Ai (NaN at +-inf, as PyTorch)."""
    n = nb()
    x = floating(input)
    # x < -2.09: the oscillating asymptotic form
    neg = x < -2.09
    xn = guard(neg, x, -3.0)
    zeta = -2.0 * xn * (-xn).sqrt() / 3.0
    zi = 1.0 / zeta
    z2 = zi * zi
    f = 1.0 + z2 * horner(z2, T.AIRY_AFN) / horner(z2, T.AIRY_AFD)
    g = zi * horner(z2, T.AIRY_AGN) / horner(z2, T.AIRY_AGD)
    t = zeta + 0.25 * math.pi
    left = 5.64189583547756286948e-01 / (-xn).sqrt().sqrt() * (t.sin() * f - t.cos() * g)
    # x >= 2.09: the decaying rational form
    pos = x >= 2.09
    xp = guard(pos, x, 3.0)
    zp = 2.0 * xp * xp.sqrt() / 3.0
    right = 5.64189583547756286948e-01 * (horner(1.0 / zp, T.AIRY_AN) / horner(1.0 / zp, T.AIRY_AD)) / \
        (2.0 * xp.sqrt().sqrt() * zp.exp())
    # in between: c1 f(x) - c2 g(x), f and g the Maclaurin series in x^3
    xm = guard(~neg & ~pos, x, 0.0)
    z = xm * xm * xm
    fs, gs = n.ones_like(xm), xm
    m, nn, k = n.ones_like(xm), xm, 1.0
    for _ in range(_AIRY_TERMS):
        m = m * z / (k + 1.0) / (k + 2.0)
        nn = nn * z / (k + 2.0) / (k + 3.0)
        fs, gs, k = fs + m, gs + nn, k + 3.0
    middle = 0.355028053887817239260 * fs - 0.258819403792806798405 * gs
    r = n.where(neg, left, n.where(pos, right, middle))
    r = n.where(x > 103.892, n.zeros_like(x), r)
    return finish(n.where(x.isinf(), n.full_like(x, math.nan), r), out)
