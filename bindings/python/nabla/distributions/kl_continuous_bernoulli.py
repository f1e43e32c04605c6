"""KL divergences with a ContinuousBernoulli on either side, as PyTorch has them: closed forms against
itself, Beta, Exponential, Normal and Uniform; infinite where q's support misses part of p's."""
from __future__ import annotations

import math

from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .continuous_bernoulli import ContinuousBernoulli
from .continuous_more import Gumbel, Pareto
from .kl import register_kl
from .kl_infinite import register_infinite


def _nb():
    import nabla
    return nabla


def _infinite_like(t):
    return _nb().full_like(t, math.inf)


def _cross_term(p, q):
    """-E_p[log q(x)] for q continuous Bernoulli, given p's mean."""
    return -p.mean * q.logits - _nb().log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    nb = _nb()
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + nb.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - nb.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cross_term(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    nb = _nb()
    result = -p.entropy() + _cross_term(p, q)
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)  # PyTorch's test, bounds included
    return nb.where(outside, _infinite_like(result), result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale).pow(2)) + q.scale.log()
    t3 = (p.variance + p.mean.pow(2) - 2.0 * q.loc * p.mean) / (2.0 * q.scale.pow(2))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    nb = _nb()
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)  # PyTorch's test, as written
    return nb.where(outside, _infinite_like(result), result)


register_infinite(ContinuousBernoulli, "probs", Pareto)
register_infinite(Exponential, "rate", ContinuousBernoulli)
register_infinite(Gamma, "concentration", ContinuousBernoulli)
register_infinite(Gumbel, "loc", ContinuousBernoulli)
register_infinite(Laplace, "loc", ContinuousBernoulli)
register_infinite(Normal, "loc", ContinuousBernoulli)
register_infinite(Pareto, "scale", ContinuousBernoulli)
