"""The KL pairs PyTorch registers as infinite: q's support misses part of p's, so KL(p || q) = inf, shaped by
one of p's parameters (p's batch shape, not broadcast against q's, as PyTorch returns it)."""
from __future__ import annotations

import math

from .continuous import Beta, Exponential, Gamma, Laplace, Normal, Uniform
from .continuous_more import Gumbel, Pareto
from .counts import Binomial, Poisson
from .discrete import Bernoulli
from .kl import register_kl


def register_infinite(type_p, param: str, *types_q) -> None:
    """Registers KL(type_p || q) = inf shaped like p.<param> for each q type."""
    def kl_infinity(p, q):
        import nabla
        return nabla.full_like(getattr(p, param), math.inf)
    kl_infinity.__name__ = f"_kl_{type_p.__name__.lower()}_infinity"
    for type_q in types_q:
        register_kl(type_p, type_q)(kl_infinity)


register_infinite(Beta, "concentration1", Pareto)
register_infinite(Exponential, "rate", Beta, Pareto, Uniform)
register_infinite(Gamma, "concentration", Beta, Pareto, Uniform)
register_infinite(Gumbel, "loc", Beta, Exponential, Gamma, Pareto, Uniform)
register_infinite(Laplace, "loc", Beta, Exponential, Gamma, Pareto, Uniform)
register_infinite(Normal, "loc", Beta, Exponential, Gamma, Pareto, Uniform)
register_infinite(Pareto, "scale", Beta, Uniform)
register_infinite(Poisson, "rate", Bernoulli, Binomial)
