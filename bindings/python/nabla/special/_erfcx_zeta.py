"""erfcx (the scaled complementary error function e^(x^2) erfc(x)) and zeta (the Hurwitz zeta
function) as compositions of PyTorch's algorithms: erfcx by the Faddeeva package's 100 Chebyshev
pieces on y = 400 / (4 + |x|) (a gather of each element's coefficients), the continued fraction above
x = 50 and 2 e^(x^2) - erfcx(-x) below 0; zeta by Cephes' direct sum of (q + k)^-x and the
Euler-Maclaurin tail, each element stopping where PyTorch's loop would. Gradients as PyTorch's: erfcx'
= 2x erfcx - 2/sqrt(pi); zeta's with respect to q, -x zeta(x + 1, q), as PyTorch (none for x)."""
from __future__ import annotations

import math

from . import _cephes_tables as T
from ._cephes import finish, guard, nb
from .._tensor import Tensor

__all__ = ["erfcx", "zeta"]

_ISPI = 0.56418958354775628694807945156  # 1 / sqrt(pi)


def _float(input) -> Tensor:
    from ._cephes import floating
    return floating(input)


def _y100(y: Tensor) -> Tensor:
    """The Chebyshev piece floor(y) of erfcx at y = 400 / (4 + |x|) in [0, 100] (100: |x| < 4 eps, erfcx 1)."""
    n = nb()
    table = n.tensor(list(T.ERFCX) + [(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)], dtype=y.dtype, device=y.device)
    k = y.detach().floor().clamp(0, 100).long()
    coefs = table.index_select(0, k.reshape(-1)).reshape(*y.shape, 7)
    t = 2 * y - (2 * k.to(y.dtype) + 1)
    p = coefs.select(-1, 6)
    for i in range(5, -1, -1):
        p = coefs.select(-1, i) + p * t
    return p


def erfcx(input, *, out=None):
    """e^(x^2) erfc(x), computed without the overflow of either factor; gradient 2x erfcx(x) - 2/sqrt(pi)."""
    from ..autograd import Function

    class Fn(Function):
        @staticmethod
        def forward(ctx, x):
            y = _erfcx(x)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * (2 * x * y - 2 * _ISPI)

    return finish(Fn.apply(_float(input)), out)


def _erfcx(x: Tensor) -> Tensor:
    n = nb()
    ok = ~x.isnan()
    xs = guard(ok, x, 0.0)
    pos = xs >= 0
    xp = guard(pos, xs, 0.0)
    far = xp > 50
    xf = guard(far, xp, 100.0)
    cf = _ISPI * ((xf * xf) * (xf * xf + 4.5) + 2) / (xf * ((xf * xf) * (xf * xf + 5) + 3.75))
    cf = n.where(xf > 5e7, _ISPI / xf, cf)
    right = n.where(far, cf, _y100(400 / (4 + guard(~far, xp, 0.0))))
    xn = guard(~pos & (xs >= -26.7), xs, -1.0)
    left = 2 * (xn * xn).exp() - n.where(xn < -6.1, n.zeros_like(xn), _y100(400 / (4 - guard(xn >= -6.1, xn, -1.0))))
    left = n.where(xs < -26.7, n.full_like(xs, math.inf), left)
    return n.where(ok, n.where(pos, right, left), x)


_MACHEP = 1.11022302462515654042e-16
_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
      -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15, 1.8152105401943546773e17,
      -7.1661652561756670113e18)


def _zeta_value(x: Tensor, q: Tensor) -> Tensor:
    """Cephes' zeta(x, q) for x > 1 (PyTorch's loop, vectorised: `done` marks elements that returned)."""
    n = nb()
    s = q.pow(-x)
    a, b = q, n.zeros_like(q)
    done = n.zeros_like(q, dtype=n.bool)
    # the direct sum runs while i < 9 or a <= 9; after 9 terms only elements with a <= 9 go on
    extra = max(0, int(math.ceil(9.0 - float(q.min())))) if q.numel() else 0
    for i in range(9 + extra):
        live = ~done & ((a <= 9.0) if i >= 9 else n.ones_like(done))
        a = n.where(live, a + 1.0, a)
        bn = a.pow(-x)
        b = n.where(live, bn, b)
        s = n.where(live, s + bn, s)
        done = done | (live & (-_MACHEP * s < bn) & (bn < _MACHEP * s))
    w = a
    tail = s + b * w / (x - 1.0) - 0.5 * b
    s = n.where(done, s, tail)
    a, k = n.ones_like(q), 0.0
    for i in range(12):
        a = a * (x + k)
        b = b / w
        t = a * b / _A[i]
        s = n.where(done, s, s + t)
        done = done | ((t / s).abs() < _MACHEP)
        k += 1.0
        a = a * (x + k)
        b = b / w
        k += 1.0
    return s


class _Zeta:
    """zeta with PyTorch's gradient rule: d/dq = -x zeta(x + 1, q); none for x."""

    @staticmethod
    def apply(x: Tensor, q: Tensor) -> Tensor:
        from ..autograd import Function

        class Fn(Function):
            @staticmethod
            def forward(ctx, x, q):
                ctx.save_for_backward(x, q)
                return _zeta_forward(x, q)

            @staticmethod
            def backward(ctx, grad):
                x, q = ctx.saved_tensors
                return None, grad * -x * _zeta_forward(x + 1.0, q)

        return Fn.apply(x, q)


def _zeta_forward(x: Tensor, q: Tensor) -> Tensor:
    n = nb()
    x, q = n.broadcast_tensors(x, q)
    pole = (q <= 0) & (q == q.floor())
    bad = (x < 1) | ((q <= 0) & ~pole & (x != x.floor()))
    ok = (x > 1) & ~pole & ~bad & ~x.isnan() & ~q.isnan()
    r = _zeta_value(guard(ok, x, 2.0), guard(ok, q, 1.0))
    r = n.where(ok, r, n.full_like(r, math.nan))
    r = n.where(pole & (x >= 1), n.full_like(r, math.inf), r)
    return n.where(x == 1, n.full_like(r, math.inf), r)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function sum_k (other + k)^-input (inf at input == 1 and at the poles other = 0, -1, ...;
    NaN for input < 1)."""
    n = nb()
    x = input if isinstance(input, Tensor) else None
    q = other if isinstance(other, Tensor) else None
    ref = x if x is not None else q
    if ref is None:
        raise TypeError("zeta(): expected at least one Tensor argument")
    dtype = n.result_type(input, other)
    if not dtype.is_floating_point:
        dtype = n.get_default_dtype()
    # computed in float64 and rounded, as PyTorch's CPU kernel accumulates in double
    x = (x if x is not None else n.tensor(input, device=ref.device)).to(n.float64)
    q = (q if q is not None else n.tensor(other, device=ref.device)).to(n.float64)
    return finish(_Zeta.apply(x, q).to(dtype), out)
