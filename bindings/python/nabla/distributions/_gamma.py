"""Standard gamma samples with reparameterised gradients (what Gamma, Beta and Dirichlet
rsample from). Samples: Marsaglia and Tsang's method run with nabla ops on the parameters'
device. Gradient: the implicit one, dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha), with
the regularised incomplete gamma P computed on the host in float64 (series or continued
fraction) and differentiated by a central difference."""
from __future__ import annotations

import math

import numpy as np

_TINY = 1e-300


def _nb():
    import nabla
    return nabla


def _log_gamma(a: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma, otypes=[np.float64])(a)


def _regularized_gamma_p(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(a, x) elementwise, float64: the series below x = a + 1, Lentz's continued fraction above."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.zeros(a.shape)
    prefix = np.exp(-x + a * np.log(np.maximum(x, _TINY)) - _log_gamma(a))
    series = x < a + 1
    if series.any():
        aa, xx = a[series], x[series]
        term = 1.0 / aa
        total = term.copy()
        ap = aa.copy()
        for _ in range(2000):
            ap += 1
            term *= xx / ap
            total += term
            if np.all(np.abs(term) < np.abs(total) * 1e-16):
                break
        out[series] = total * prefix[series]
    cf = ~series
    if cf.any():
        aa, xx = a[cf], x[cf]
        b = xx + 1 - aa
        c = np.full_like(b, 1 / 1e-300)
        d = 1 / b
        h = d.copy()
        for i in range(1, 2000):
            an = -i * (i - aa)
            b += 2
            d = an * d + b
            d = np.where(np.abs(d) < 1e-300, 1e-300, d)
            c = b + an / c
            c = np.where(np.abs(c) < 1e-300, 1e-300, c)
            d = 1 / d
            delta = d * c
            h *= delta
            if np.all(np.abs(delta - 1) < 1e-16):
                break
        out[cf] = 1 - prefix[cf] * h
    out[x <= 0] = 0.0
    return out


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """d x / d alpha for x ~ Gamma(alpha, 1) held at its quantile (float64 arrays)."""
    alpha, x = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    h = 1e-5 * np.maximum(alpha, 1.0)
    h = np.minimum(h, alpha / 2)
    dp = (_regularized_gamma_p(alpha + h, x) - _regularized_gamma_p(alpha - h, x)) / (2 * h)
    log_pdf = (alpha - 1) * np.log(np.maximum(x, _TINY)) - x - _log_gamma(alpha)
    return -dp / np.exp(log_pdf)


def _sample(alpha):
    """Gamma(alpha, 1) samples of alpha's shape (no gradient), by Marsaglia and Tsang."""
    nb = _nb()
    small = alpha < 1
    a = nb.where(small, alpha + 1, alpha)  # alpha < 1: sample alpha + 1, then scale by U^(1/alpha)
    d = a - 1 / 3
    c = 1 / nb.sqrt(9 * d)
    result = nb.zeros_like(alpha)
    done = nb.zeros_like(alpha, dtype=nb.bool)
    for _ in range(64):  # the acceptance rate is above 95%: 64 rounds leave nothing undrawn
        x = nb.randn(alpha.shape, dtype=alpha.dtype, device=alpha.device)
        v = (1 + c * x) ** 3
        u = nb.rand(alpha.shape, dtype=alpha.dtype, device=alpha.device)
        ok = (v > 0) & (nb.log(u) < 0.5 * x * x + d - d * v + d * nb.log(nb.where(v > 0, v, nb.ones_like(v))))
        take = ok & ~done
        result = nb.where(take, d * v, result)
        done = done | ok
        if bool(done.all()):
            break
    u = nb.rand(alpha.shape, dtype=alpha.dtype, device=alpha.device)
    boost = nb.where(small, u ** (1 / nb.where(small, alpha, nb.ones_like(alpha))), nb.ones_like(alpha))
    tiny = nb.finfo(alpha.dtype).tiny
    return (result * boost).clamp(min=tiny)


_function = []


def standard_gamma(alpha):
    """Gamma(alpha, 1) samples of alpha's shape, differentiable in alpha (implicit reparameterisation)."""
    if not _function:
        from ..autograd import Function

        class StandardGamma(Function):
            @staticmethod
            def forward(ctx, concentration):
                x = _sample(concentration)
                ctx.save_for_backward(concentration, x)
                return x

            @staticmethod
            def backward(ctx, grad):
                concentration, x = ctx.saved_tensors
                g = standard_gamma_grad(concentration.detach().numpy(force=True), x.detach().numpy(force=True))
                nb = _nb()
                return grad * nb.tensor(g, dtype=grad.dtype, device=grad.device)

        _function.append(StandardGamma)
    return _function[0].apply(alpha)
