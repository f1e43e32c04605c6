"""torch.poisson and torch.binomial: counts drawn with PyTorch's algorithms, vectorised over the
tensor in rounds of nabla ops (so they run on the rates' device from nabla's generator): Knuth's
product of uniforms below rate 10 and Hoermann's PTRS above; for the binomial, the geometric-skip
inversion while count * min(p, 1 - p) < 10 and Kachitvichyanukul-Schmeiser's BTRS above (with
the symmetry p -> 1 - p past 1/2). Results are float in the input's dtype, as PyTorch's."""
from __future__ import annotations

import math

from ._tensor import Tensor

__all__ = ["binomial", "poisson"]

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _nb():
    import nabla
    return nabla


def _uniform(like, generator):
    return _nb().rand(like.shape, dtype=like.dtype, device=like.device, generator=generator)


def _rounds(shape, like, draw, limit: int = 100000):
    """Calls draw(pending) until every element is accepted: draw returns (accepted mask, values)."""
    nb = _nb()
    result = nb.zeros(shape, dtype=like.dtype, device=like.device)
    pending = nb.ones(shape, dtype=nb.bool, device=like.device)
    for _ in range(limit):
        if not bool(pending.any()):
            break
        ok, value = draw(pending)
        take = ok & pending
        result = nb.where(take, value, result)
        pending = pending & ~take
    return result


def _knuth(rate, generator):
    """Poisson by multiplying uniforms until the product falls below exp(-rate) (rate < 10)."""
    nb = _nb()
    limit = (-rate).exp()
    count = nb.zeros_like(rate)
    prod = _uniform(rate, generator)
    running = prod > limit
    while bool(running.any()):
        count = count + running.to(rate.dtype)
        prod = nb.where(running, prod * _uniform(rate, generator), prod)
        running = running & (prod > limit)
    return count


def _ptrs(rate, generator):
    """Poisson by Hoermann's transformed rejection with squeeze (rate >= 10)."""
    nb = _nb()
    slam, loglam = rate.sqrt(), rate.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_invalpha = (1.1239 + 1.1328 / (b - 3.4)).log()
    vr = 0.9277 - 3.6224 / (b - 2)

    def draw(pending):
        u = _uniform(rate, generator) - 0.5
        v = _uniform(rate, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + rate + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        kk = k.clamp(min=0)
        exact = v.log() + log_invalpha - (a / (us * us) + b).log() <= -rate + kk * loglam - nb.lgamma(kk + 1)
        return quick | (possible & exact), k

    return _rounds(rate.shape, rate, draw)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson(rate) counts of input's shape and dtype (rates must be >= 0)."""
    nb = _nb()
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"poisson: expected a floating rate tensor, got {input.dtype}")
    with nb.no_grad():
        if bool((input < 0).any()) or bool(input.isnan().any()):
            raise RuntimeError("poisson: invalid Poisson rate, expected rate to be non-negative")
        rate = input.detach().double()
        small = rate < 10
        low = _knuth(nb.where(small, rate, nb.zeros_like(rate)), generator)
        high = _ptrs(nb.where(small, nb.full_like(rate, 10.0), rate), generator) if bool((~small).any()) else low
        return nb.where(small, low, high).to(input.dtype)


def _stirling_tail(k):
    """log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2]."""
    return _nb().lgamma(k + 1) - (k + 0.5) * (k + 1).log() + (k + 1) - _HALF_LOG_2PI


def _inversion(count, prob, generator):
    """Binomial by summing geometric skips until they pass count (count * prob < 10)."""
    nb = _nb()
    logq = (-prob).log1p()
    total = nb.zeros_like(count)
    successes = nb.zeros_like(count)
    running = prob > 0
    while bool(running.any()):
        skip = (_uniform(count, generator).log() / logq).ceil()
        total = total + nb.where(running, skip, nb.zeros_like(skip))
        running = running & (total <= count)
        successes = successes + running.to(count.dtype)
    return successes


def _btrs(count, prob, generator):
    """Binomial by Kachitvichyanukul and Schmeiser's transformed rejection (count * prob >= 10)."""
    stddev = (count * prob * (1 - prob)).sqrt()
    m = ((count + 1) * prob).floor()
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    fixed = ((m + 0.5) * ((m + 1) / (r * (count - m + 1))).log() + _stirling_tail(m) + _stirling_tail(count - m))

    def draw(pending):
        u = _uniform(count, generator) - 0.5
        v = _uniform(count, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= count)
        kk = k.clamp(min=0).minimum(count)
        quick = (us >= 0.07) & (v <= v_r)
        bound = (fixed + (count + 1) * ((count - m + 1) / (count - kk + 1)).log()
                 + (kk + 0.5) * (r * (count - kk + 1) / (kk + 1)).log() - _stirling_tail(kk) - _stirling_tail(count - kk))
        exact = (v * alpha / (a / (us * us) + b)).log() <= bound
        return inside & (quick | exact), k

    return _rounds(count.shape, count, draw)


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Binomial(count, prob) successes, broadcast, in prob's dtype (count >= 0, 0 <= prob <= 1)."""
    nb = _nb()
    if not prob.dtype.is_floating_point:
        raise RuntimeError(f"binomial: expected a floating prob tensor, got {prob.dtype}")
    with nb.no_grad():
        n, p = nb.broadcast_tensors(count.detach().double(), prob.detach().double())
        if bool((n < 0).any()) or bool(((p < 0) | (p > 1) | p.isnan()).any()):
            raise RuntimeError("binomial: expected count >= 0 and 0 <= prob <= 1")
        flip = p > 0.5
        q = nb.where(flip, 1 - p, p)
        small = n * q < 10
        low = _inversion(nb.where(small, n, nb.zeros_like(n)), nb.where(small, q, nb.zeros_like(q)), generator)
        if bool((~small).any()):
            high = _btrs(nb.where(small, nb.full_like(n, 100.0), n), nb.where(small, nb.full_like(q, 0.5), q),
                         generator)
        else:
            high = low
        k = nb.where(small, low, high)
        return nb.where(flip, n - k, k).to(prob.dtype)
