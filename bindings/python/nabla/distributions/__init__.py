"""nabla.distributions: torch.distributions' common distributions, transforms and KL
divergences, written over nabla ops (so they run and differentiate on every device).
Sampling draws from nabla's generator: the same seed gives other numbers than PyTorch."""
from . import constraints, transforms  # noqa: F401
from .constraints import Constraint  # noqa: F401
from .continuous import Beta, Dirichlet, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .continuous_more import Cauchy, Chi2, Geometric, Gumbel, HalfCauchy, HalfNormal, Pareto, Weibull
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, PowerTransform,  # noqa: F401
                         SigmoidTransform, SoftplusTransform, TanhTransform, Transform, identity_transform)
from . import utils  # noqa: F401

__all__ = ["AbsTransform", "AffineTransform", "Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Pareto", "Weibull", "ComposeTransform", "Dirichlet",
           "Distribution", "ExpTransform", "Exponential", "Gamma", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "PowerTransform", "SigmoidTransform",
           "SoftplusTransform", "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "constraints",
           "kl_divergence", "register_kl", "transforms"]
