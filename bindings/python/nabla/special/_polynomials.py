"""torch.special's orthogonal polynomials as compositions of nabla ops: Chebyshev T, U, V, W (and
their shifted forms on [0, 1]), Hermite H and He, Laguerre L and Legendre P, plus
spherical_bessel_j0. Each follows ATen's Math.h case for case: n is truncated to an integer
(elementwise when a tensor), n < 0 gives 0, the edge values of x are exact, and large n inside
(-1, 1) uses the trigonometric closed form where ATen does; otherwise the three-term recurrence
runs up to the largest n and each element keeps the term of its own n."""
from __future__ import annotations

from .._tensor import Tensor

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "spherical_bessel_j0"]


def _nb():
    import nabla
    return nabla


def _operands(input, n):
    """(x, n truncated, as x's float dtype, both broadcast) for the (tensor or scalar) pair."""
    nb = _nb()
    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise TypeError("expected input or n to be a Tensor")
    like = input if isinstance(input, Tensor) else n
    x = input if isinstance(input, Tensor) else nb.tensor(float(input), device=like.device)
    nt = n if isinstance(n, Tensor) else nb.tensor(float(n), device=like.device)
    dtype = (x + nt).dtype  # PyTorch's promotion (a Python number does not widen a tensor)
    dtype = dtype if dtype.is_floating_point else nb.get_default_dtype()
    x, nt = nb.broadcast_tensors(x.to(dtype), nt.to(dtype).trunc())
    return x, nt


def _recurrence(n: Tensor, first: Tensor, second: Tensor, step) -> Tensor:
    """The term of order n of the sequence P0 = first, P1 = second, P(k+1) = step(k, P(k), P(k-1))."""
    nb = _nb()
    top = int(n.max()) if n.numel() else 0
    result = nb.where(n == 0, first, nb.where(n == 1, second, nb.zeros_like(second)))
    p, q = first, second
    for k in range(1, top):
        p, q = q, step(k, q, p)
        result = nb.where(n == k + 1, q, result)
    return result


def _odd(n: Tensor) -> Tensor:
    return _nb().remainder(n, 2) != 0


def _finish(x: Tensor, n: Tensor, value: Tensor, cases) -> Tensor:
    """value with cases [(condition, replacement), ...] applied, the first listed winning, and n < 0 -> 0."""
    nb = _nb()
    for cond, repl in reversed(cases):
        value = nb.where(cond, repl, value)
    return nb.where(n < 0, nb.zeros_like(value), value)


def _safe_acos(y: Tensor) -> Tensor:
    return y.clamp(-1, 1).acos()


def chebyshev_polynomial_t(input, n, *, out=None) -> Tensor:
    """T_n(x): T0 = 1, T1 = x, T(k+1) = 2x Tk - T(k-1); cos(n acos x) for n > 6 inside (-1, 1)."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, x, lambda k, q, p: (x + x) * q - p)
    edge = x.abs() == 1
    r = _finish(x, n, rec, [(edge, nb.where((x > 0) | ~_odd(n), one, -one)),
                            ((n > 6) & (x.abs() < 1), (n * _safe_acos(x)).cos())])
    return r if out is None else out.copy_(r)


def chebyshev_polynomial_u(input, n, *, out=None) -> Tensor:
    """U_n(x): U0 = 1, U1 = 2x, U(k+1) = 2x Uk - U(k-1); sin((n+1) t) / sin t (t = acos x) for n > 8."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, x + x, lambda k, q, p: (x + x) * q - p)
    t = _safe_acos(x)
    s = t.sin()
    trig = nb.where(s != 0, ((n + 1) * t).sin() / nb.where(s != 0, s, one), (n + 1) * ((n + 1) * t).cos() / x)
    r = _finish(x, n, rec, [(x.abs() == 1, nb.where((x > 0) | ~_odd(n), n + 1, -(n + 1))),
                            ((n > 8) & (x.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def chebyshev_polynomial_v(input, n, *, out=None) -> Tensor:
    """V_n(x): V0 = 1, V1 = 2x - 1, V(k+1) = 2x Vk - V(k-1); cos((n + 1/2) t) / cos(t / 2) for n > 8."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, x + x - 1, lambda k, q, p: (x + x) * q - p)
    t = _safe_acos(x)
    signed = nb.where(_odd(n), -(n + n + 1), n + n + 1)
    half = (t / 2).sin()
    trig = nb.where(half != 1, ((n + 0.5) * t).cos() / (t / 2).cos(), signed)
    r = _finish(x, n, rec, [(x.abs() == 1, nb.where(x > 0, one, signed)), ((n > 8) & (x.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def chebyshev_polynomial_w(input, n, *, out=None) -> Tensor:
    """W_n(x): W0 = 1, W1 = 2x + 1, W(k+1) = 2x Wk - W(k-1); sin((n + 1/2) t) / sin(t / 2) for n > 8."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, x + x + 1, lambda k, q, p: (x + x) * q - p)
    t = _safe_acos(x)
    parity = nb.where(_odd(n), -one, one)
    half = (t / 2).cos()
    trig = nb.where(half != 1, ((n + 0.5) * t).sin() / (t / 2).sin(), nb.where(x > 0, n + n + 1, parity))
    r = _finish(x, n, rec, [(x.abs() == 1, nb.where(x > 0, n + n + 1, parity)), ((n > 8) & (x.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def shifted_chebyshev_polynomial_t(input, n, *, out=None) -> Tensor:
    """T_n(2x - 1)."""
    nb = _nb()
    x, n = _operands(input, n)
    y = x + x - 1
    one = nb.ones_like(x)
    rec = _recurrence(n, one, y, lambda k, q, p: (y + y) * q - p)
    r = _finish(x, n, rec, [(x == 1, one), (x == 0, nb.where(_odd(n), -one, one)),
                            ((n > 6) & (y.abs() < 1), (n * _safe_acos(y)).cos())])
    return r if out is None else out.copy_(r)


def shifted_chebyshev_polynomial_u(input, n, *, out=None) -> Tensor:
    """U_n(2x - 1)."""
    nb = _nb()
    x, n = _operands(input, n)
    y = x + x - 1
    one = nb.ones_like(x)
    rec = _recurrence(n, one, y + y, lambda k, q, p: (y + y) * q - p)
    t = _safe_acos(y)
    s = t.sin()
    trig = nb.where(s != 0, ((n + 1) * t).sin() / nb.where(s != 0, s, one), (n + 1) * ((n + 1) * t).cos() / y)
    r = _finish(x, n, rec, [(x == 1, n + 1), (x == 0, nb.where(_odd(n), -(n + 1), n + 1)),
                            ((n > 6) & (y.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def shifted_chebyshev_polynomial_v(input, n, *, out=None) -> Tensor:
    """V_n(2x - 1)."""
    nb = _nb()
    x, n = _operands(input, n)
    y = x + x - 1
    one = nb.ones_like(x)
    rec = _recurrence(n, one, y + y - 1, lambda k, q, p: (y + y) * q - p)
    t = _safe_acos(y)
    signed = nb.where(_odd(n), -(n + n + 1), n + n + 1)
    trig = nb.where((t / 2).sin() != 1, ((n + 0.5) * t).cos() / (t / 2).cos(), signed)
    r = _finish(x, n, rec, [(x == 1, one), (x == 0, signed), ((n > 6) & (y.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def shifted_chebyshev_polynomial_w(input, n, *, out=None) -> Tensor:
    """W_n(2x - 1)."""
    nb = _nb()
    x, n = _operands(input, n)
    y = x + x - 1
    one = nb.ones_like(x)
    rec = _recurrence(n, one, y + y + 1, lambda k, q, p: (y + y) * q - p)
    t = _safe_acos(y)
    parity = nb.where(_odd(n), -one, one)
    trig = nb.where((t / 2).cos() != 1, ((n + 0.5) * t).sin() / (t / 2).sin(), parity)
    r = _finish(x, n, rec, [(x == 1, n + n + 1), (x == 0, parity), ((n > 4) & (y.abs() < 1), trig)])
    return r if out is None else out.copy_(r)


def hermite_polynomial_h(input, n, *, out=None) -> Tensor:
    """The physicists' H_n(x): H0 = 1, H1 = 2x, H(k+1) = 2x Hk - 2k H(k-1)."""
    nb = _nb()
    x, n = _operands(input, n)
    r = _finish(x, n, _recurrence(n, nb.ones_like(x), x + x, lambda k, q, p: (x + x) * q - (2 * k) * p), [])
    return r if out is None else out.copy_(r)


def hermite_polynomial_he(input, n, *, out=None) -> Tensor:
    """The probabilists' He_n(x): He0 = 1, He1 = x, He(k+1) = x Hek - k He(k-1)."""
    nb = _nb()
    x, n = _operands(input, n)
    r = _finish(x, n, _recurrence(n, nb.ones_like(x), x, lambda k, q, p: x * q - k * p), [])
    return r if out is None else out.copy_(r)


def laguerre_polynomial_l(input, n, *, out=None) -> Tensor:
    """L_n(x): L0 = 1, L1 = 1 - x, L(k+1) = ((2k + 1 - x) Lk - k L(k-1)) / (k + 1); 1 at x = 0."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, 1 - x, lambda k, q, p: ((2 * k + 1 - x) * q - k * p) / (k + 1))
    r = _finish(x, n, rec, [(x == 0, one)])
    return r if out is None else out.copy_(r)


def legendre_polynomial_p(input, n, *, out=None) -> Tensor:
    """P_n(x): P0 = 1, P1 = x, P(k+1) = ((2k + 1) x Pk - k P(k-1)) / (k + 1); +-1 at x = +-1."""
    nb = _nb()
    x, n = _operands(input, n)
    one = nb.ones_like(x)
    rec = _recurrence(n, one, x, lambda k, q, p: ((2 * k + 1) * x * q - k * p) / (k + 1))
    r = _finish(x, n, rec, [(x.abs() == 1, nb.where((x > 0) | ~_odd(n), one, -one))])
    return r if out is None else out.copy_(r)


def spherical_bessel_j0(input: Tensor, *, out=None) -> Tensor:
    """sin(x) / x, by its Taylor series below |x| = 0.5 (ATen's), 0 at +-inf."""
    nb = _nb()
    x = input if input.dtype.is_floating_point else input.to(nb.get_default_dtype())
    x2 = x * x
    series = 1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110 * (1 - x2 / 156)))))
    safe = nb.where(x.abs() < 0.5, nb.ones_like(x), x)
    r = nb.where(x.abs() < 0.5, series, safe.sin() / safe)
    r = nb.where(nb.isinf(x), nb.zeros_like(x), r)
    return r if out is None else out.copy_(r)

