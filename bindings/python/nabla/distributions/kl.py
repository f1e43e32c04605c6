"""kl_divergence(p, q) and register_kl, with the closed forms PyTorch has for same-family pairs; the kl_*.py files
beside it register the rest of PyTorch's pairs (imported by the package)."""
from __future__ import annotations

import math

from .continuous import Beta, Dirichlet, Exponential, Gamma, Laplace, Normal, Uniform
from .counts import Binomial, Poisson
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .exp_family import ExponentialFamily
from .independent import Independent
from .multivariate_normal import MultivariateNormal
from .utils import broadcast_shapes, diagonal_last, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict = {}


def _nb():
    import nabla
    return nabla


def register_kl(type_p, type_q):
    """Decorator: registers fn(p, q) as KL(p || q) for instances of type_p and type_q."""
    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        return fn
    return decorator


def _dispatch(type_p, type_q):
    """The registered rule for the most specific pair of base classes (as PyTorch, by MRO distance)."""
    matches = [(tp, tq) for tp, tq in _KL_REGISTRY if issubclass(type_p, tp) and issubclass(type_q, tq)]
    if not matches:
        return None
    best = min(matches, key=lambda m: (type_p.__mro__.index(m[0]), type_q.__mro__.index(m[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], batched over the distributions' batch shape."""
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fn(p, q)


def _inf_where(cond, x):
    nb = _nb()
    return nb.where(cond, nb.full_like(x, math.inf), x)


def _zero_where(cond, x):
    nb = _nb()
    return nb.where(cond, nb.zeros_like(x), x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    softplus = _nb().nn.functional.softplus
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _zero_where(p.probs == 0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _zero_where(p.probs == 1, _inf_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _inf_where((q.probs == 0).expand_as(t), t)
    t = _zero_where((p.probs == 0).expand_as(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    nb = _nb()
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = nb.lgamma(q.concentration1) + nb.lgamma(q.concentration0) + nb.lgamma(sum_p)
    t2 = nb.lgamma(p.concentration1) + nb.lgamma(p.concentration0) + nb.lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * nb.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * nb.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * nb.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    nb = _nb()
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = nb.lgamma(q.concentration) - nb.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * nb.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    nb = _nb()
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = nb.lgamma(sum_p) - nb.lgamma(sum_q)
    t2 = (nb.lgamma(p.concentration) - nb.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = nb.digamma(p.concentration) - nb.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _nb().where(p.total_count > q.total_count, _nb().full_like(kl, math.inf), kl)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    nb = _nb()
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot be "
                         "computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = diagonal_last(Lq).log().sum(-1) - diagonal_last(Lp).log().sum(-1)
    n = p.event_shape[0]
    batch = broadcast_shapes(Lq.shape[:-2], Lp.shape[:-2])
    Lq_b, Lp_b = Lq.expand(tuple(batch) + (n, n)), Lp.expand(tuple(batch) + (n, n))
    term2 = nb.linalg.solve_triangular(Lq_b, Lp_b, upper=False).pow(2).flatten(-2).sum(-1)
    diff = q.loc - p.loc
    batch_d = broadcast_shapes(Lq.shape[:-2], diff.shape[:-1])
    Lq_d = Lq.expand(tuple(batch_d) + (n, n))
    term3 = nb.linalg.solve_triangular(Lq_d, diff.expand(tuple(batch_d) + (n,)).unsqueeze(-1),
                                       upper=False).squeeze(-1).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normalizer: F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_nparams = [t.detach().requires_grad_() for t in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = _nb().autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
