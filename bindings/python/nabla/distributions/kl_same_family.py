"""KL divergences within one family, as PyTorch has them: Cauchy, Gumbel, HalfNormal, Pareto (infinite where
p's support starts below q's), Geometric, TransformedDistribution pairs with equal transforms, and HalfCauchy and
Weibull (where PyTorch's dispatch takes them: its versions are TransformedDistributions)."""
from __future__ import annotations

from .continuous_more import _EULER, Cauchy, Geometric, Gumbel, HalfCauchy, HalfNormal, Pareto, Weibull
from .kl import _inf_where, kl_divergence, register_kl
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(HalfCauchy, HalfCauchy)
def _kl_halfcauchy_halfcauchy(p, q):
    """KL of the underlying Cauchy(0, scale) pair, where PyTorch's TransformedDistribution rule lands."""
    return ((p.scale + q.scale).pow(2)).log() - (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _EULER
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    return t1 + t2 + t3 - (1 + _EULER)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    """KL of the underlying Normal(0, scale) pair: the loc term vanishes."""
    var_ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (var_ratio - 1 - var_ratio.log())


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return _inf_where(p.support.lower_bound < q.support.lower_bound, result)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)



@register_kl(Weibull, Weibull)
def _kl_weibull_weibull(p, q):
    """PyTorch's Weibull is Exponential(1) through x^(1/k) then scale * x: its TransformedDistribution rule gives
    the bases' KL, 0, when both chains are equal, and refuses otherwise."""
    def chain(d):
        return [PowerTransform(d.concentration.reciprocal()), AffineTransform(0, d.scale)]
    if chain(p) != chain(q):
        raise NotImplementedError
    return p.scale.new_zeros(p.scale.shape)
