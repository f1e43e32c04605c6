"""nabla.distributions: torch.distributions' common distributions, transforms and KL
divergences, written over nabla ops (so they run and differentiate on every device).
Sampling draws from nabla's generator: the same seed gives other numbers than PyTorch."""
from . import constraints, transforms  # noqa: F401
from .constraints import Constraint  # noqa: F401
from .continuous_bernoulli import ContinuousBernoulli
from .continuous import Beta, Dirichlet, Exponential, Gamma, Laplace, Normal, Uniform
from .discrete import Bernoulli, Categorical, OneHotCategorical
from .continuous_more import Cauchy, Chi2, Geometric, Gumbel, HalfCauchy, HalfNormal, Pareto, Weibull
from .continuous_extra import FisherSnedecor, GeneralizedPareto, InverseGamma, Kumaraswamy, StudentT
from .counts import Binomial, Multinomial, NegativeBinomial, Poisson
from .mixture_same_family import MixtureSameFamily
from .relaxed import LogisticNormal, OneHotCategoricalStraightThrough, RelaxedBernoulli, RelaxedOneHotCategorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from . import (kl_bounded, kl_continuous_bernoulli, kl_infinite, kl_lowrank, kl_positive,  # noqa: F401 - their
               kl_real_line, kl_same_family)  # registrations
from .multivariate_normal import MultivariateNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .von_mises import VonMises
from .wishart import Wishart
from .lkj_cholesky import LKJCholesky
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import *  # noqa: F401,F403 - every transform of torch.distributions.transforms
from .transforms import __all__ as _transforms_all
from . import constraint_registry  # noqa: F401
from .constraint_registry import biject_to, transform_to
from . import utils  # noqa: F401

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "ExponentialFamily", "FisherSnedecor", "GeneralizedPareto", "Geometric",
           "InverseGamma", "Kumaraswamy", "LKJCholesky", "LogisticNormal", "MixtureSameFamily", "Multinomial", "NegativeBinomial",
           "OneHotCategoricalStraightThrough", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "Gumbel", "HalfCauchy", "HalfNormal",
           "Pareto", "Weibull", "Dirichlet", "Distribution", "Exponential", "Gamma", "Independent", "Laplace",
           "LogNormal", "LowRankMultivariateNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "TransformedDistribution", "Uniform", "VonMises", "Wishart",
           "biject_to", "constraints", "kl_divergence", "register_kl", "transform_to", "transforms"] + _transforms_all
