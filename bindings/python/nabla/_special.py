"""Special functions written as compositions of nabla ops, so they run on every device and
differentiate through the C autograd: lgamma and digamma (shifted asymptotic series with
reflection below 1/2; relative error below 1e-10 in float64), erfinv (an initial rational
guess refined by Newton steps on erf, with its exact gradient), xlogy, xlog1py, logit,
logaddexp, logaddexp2, mvlgamma, sinc, entr."""
from __future__ import annotations

import math

from . import _dtype
from ._tensor import Tensor

__all__ = ["lgamma", "digamma", "erfinv", "xlogy", "logit", "logaddexp", "logaddexp2", "mvlgamma", "sinc",
           "polygamma"]

_SHIFT = 6  # the asymptotic series is used at x + 6 >= 6.5
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _nb():
    import nabla
    return nabla


def _float(x, fname: str) -> Tensor:
    nb = _nb()
    if not isinstance(x, Tensor):
        x = nb.tensor(x)
    if not x.dtype.is_floating_point:
        x = x.to(_dtype.get_default_dtype())
    return x


def _lgamma_right(x: Tensor) -> Tensor:
    """lgamma for x >= 1/2: Stirling's series at y = x + 6, minus log of x (x+1) ... (x+5)."""
    nb = _nb()
    y = x + _SHIFT
    r = 1.0 / y
    r2 = r * r
    series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680))))
    stirling = (y - 0.5) * nb.log(y) - y + _HALF_LOG_2PI + series
    shifts = sum(nb.log(x + k) for k in range(_SHIFT))
    return stirling - shifts


def lgamma(input: Tensor, *, out=None) -> Tensor:
    """log |Gamma(x)| elementwise; reflection log(pi / |sin(pi x)|) - lgamma(1 - x) below 1/2."""
    nb = _nb()
    x = _float(input, "lgamma")
    left = x < 0.5
    right = _lgamma_right(nb.where(left, 1 - x, x))
    safe = nb.where(left, x, 0.25)  # keeps sin(pi x) away from 0 where the branch is unused
    reflected = math.log(math.pi) - nb.log(nb.abs(nb.sin(math.pi * safe))) - right
    result = nb.where(left, reflected, right)
    pole = left & (x == nb.floor(x))  # 0, -1, -2, ...: sin(pi x) is only nearly 0 in floating point
    result = nb.where(pole, nb.full_like(result, math.inf), result)
    return _write(nb.where(x == math.inf, x, result), out)  # the series gives inf - inf there


def _digamma_right(x: Tensor) -> Tensor:
    nb = _nb()
    y = x + _SHIFT
    r = 1.0 / y
    r2 = r * r
    series = r2 * (1 / 12 - r2 * (1 / 120 - r2 * (1 / 252 - r2 * (1 / 240 - r2 * (1 / 132)))))
    return nb.log(y) - 0.5 * r - series - sum(1.0 / (x + k) for k in range(_SHIFT))


def digamma(input: Tensor, *, out=None) -> Tensor:
    """d/dx lgamma(x) elementwise; reflection digamma(1 - x) - pi / tan(pi x) below 1/2 (-inf at 0, nan at
    negative integers, as PyTorch)."""
    nb = _nb()
    x = _float(input, "digamma")
    left = x < 0.5
    right = _digamma_right(nb.where(left, 1 - x, x))
    safe = nb.where(left, x, 0.25)
    reflected = right - math.pi / nb.tan(math.pi * safe)
    result = nb.where(left, reflected, right)
    result = nb.where(left & (x == nb.floor(x)), nb.full_like(result, math.nan), result)  # poles: nan
    result = nb.where(x == 0, nb.full_like(result, -math.inf), result)
    return _write(nb.where(x == math.inf, x, result), out)


def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """polygamma(0, x) = digamma(x); polygamma(1, x) = trigamma(x) (from digamma's gradient rule)."""
    nb = _nb()
    if n == 0:
        return digamma(input, out=out)
    if n != 1:
        raise NotImplementedError(f"polygamma: order {n} is not implemented in nabla (orders 0 and 1 are)")
    x = _float(input, "polygamma").detach().requires_grad_(True)
    with nb.enable_grad():
        d = digamma(x)
        (g,) = nb.autograd.grad(d.sum(), x)
    return _write(g, out)


class _Erfinv:
    """erfinv as an autograd.Function: Newton steps (run without grad) and the exact derivative
    d/dy erfinv(y) = sqrt(pi) / 2 * exp(erfinv(y)^2)."""

    fn = None

    @classmethod
    def get(cls):
        if cls.fn is None:
            from .autograd import Function

            class ErfinvBackward(Function):
                @staticmethod
                def forward(ctx, y):
                    x = _erfinv_value(y)
                    ctx.save_for_backward(x)
                    return x

                @staticmethod
                def backward(ctx, grad):
                    (x,) = ctx.saved_tensors
                    return grad * (math.sqrt(math.pi) / 2) * _nb().exp(x * x)

            cls.fn = ErfinvBackward
        return cls.fn


def _erfinv_value(y: Tensor) -> Tensor:
    nb = _nb()
    w = -nb.log((1.0 - y) * (1.0 + y))  # Giles' single-precision approximation as the first guess
    small = w < 5.0
    ws = nb.where(small, w - 2.5, nb.sqrt(nb.where(small, 5.0, w)) - 3.0)
    p_small = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
               -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
    p_big = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
             -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
    a = nb.full_like(ws, p_small[0])
    b = nb.full_like(ws, p_big[0])
    for cs, cb in zip(p_small[1:], p_big[1:]):
        a = a * ws + cs
        b = b * ws + cb
    x = nb.where(small, a, b) * y
    for _ in range(2):  # Newton on erf(x) = y
        err = nb.erf(x) - y
        x = x - err / (2 / math.sqrt(math.pi) * nb.exp(-x * x))
    x = nb.where(y == 1, math.inf, x)
    return nb.where(y == -1, -math.inf, x)


def erfinv(input: Tensor, *, out=None) -> Tensor:
    """The inverse of erf on (-1, 1): +-inf at +-1, nan outside."""
    x = _float(input, "erfinv")
    return _write(_Erfinv.get().apply(x), out)


def xlogy(input, other, *, out=None) -> Tensor:
    """input * log(other), 0 where input == 0 (nan where other is nan)."""
    nb = _nb()
    x, y = _float(input, "xlogy"), _float(other, "xlogy")
    r = x * nb.log(nb.where(x == 0, nb.ones_like(y), y))
    return _write(nb.where(nb.isnan(y), y, r) if y.dtype.is_floating_point else r, out)


def logit(input: Tensor, eps=None, *, out=None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given."""
    nb = _nb()
    p = _float(input, "logit")
    if eps is not None:
        p = nb.clamp(p, eps, 1 - eps)
    return _write(nb.log(p) - nb.log1p(-p), out)


def logaddexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """log(exp(x) + exp(y)) without overflow."""
    nb = _nb()
    x, y = _float(input, "logaddexp"), _float(other, "logaddexp")
    m = nb.maximum(x, y).detach()
    m = nb.where(nb.isfinite(m), m, nb.zeros_like(m))
    return _write(m + nb.log(nb.exp(x - m) + nb.exp(y - m)), out)


def logaddexp2(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """log2(2**x + 2**y) without overflow."""
    ln2 = math.log(2)
    return _write(logaddexp(_float(input, "logaddexp2") * ln2, _float(other, "logaddexp2") * ln2) / ln2, out)


def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """The multivariate log-gamma of dimension p: sum_i lgamma(x - i/2) + p (p-1)/4 log(pi)."""
    x = _float(input, "mvlgamma")
    if not (x > (p - 1) / 2).all():
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2}")
    total = sum(lgamma(x - i / 2) for i in range(p))
    return _write(total + p * (p - 1) / 4 * math.log(math.pi), out)


def sinc(input: Tensor, *, out=None) -> Tensor:
    """sin(pi x) / (pi x), 1 at 0."""
    nb = _nb()
    x = _float(input, "sinc")
    zero = x == 0
    safe = nb.where(zero, nb.ones_like(x), x)
    return _write(nb.where(zero, nb.ones_like(x), nb.sin(math.pi * safe) / (math.pi * safe)), out)


def _write(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    out.resize_(result.shape)
    return out.copy_(result)
