"""More univariate distributions with PyTorch's formulas: Cauchy, HalfNormal, HalfCauchy, Gumbel,
Weibull, Pareto and Chi2 (a Gamma), all reparameterised (rsample through the inverse CDF of a
uniform draw from nabla's generator), and the discrete Geometric."""
from __future__ import annotations

import math
import numbers

from .._size import Size
from . import constraints
from .continuous import Gamma, _eps_shape, _expand_params
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy", "HalfNormal", "HalfCauchy", "Gumbel", "Weibull", "Pareto", "Chi2", "Geometric"]

_EULER = 0.57721566490153286060


def _nb():
    import nabla
    return nabla


class _Params(Distribution):
    """A distribution over broadcast tensor parameters named by _names (in constructor order)."""

    _names: tuple = ()

    def __init__(self, *params, validate_args=None) -> None:
        values = broadcast_all(*params)
        for name, v in zip(self._names, values):
            setattr(self, name, v)
        scalar = all(isinstance(p, numbers.Number) for p in params)
        super().__init__(Size() if scalar else values[0].size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, type(self), self._names, batch_shape, _instance)

    def _uniform(self, sample_shape):
        """U(0, 1) in the batch's dtype, kept off 0 and 1 so the inverse CDFs stay finite."""
        nb = _nb()
        shape, dtype, device = _eps_shape(self, sample_shape)
        fi = nb.finfo(dtype)
        return nb.rand(shape, dtype=dtype, device=device).clamp(fi.tiny, 1 - fi.eps)

    def _check(self, value):
        if self._validate_args:
            self._validate_sample(value)


class Cauchy(_Params):
    """Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2))."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _names = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        return _nb().full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _nb().full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=()):
        return self.icdf(self._uniform(sample_shape))

    def log_prob(self, value):
        self._check(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        self._check(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class HalfNormal(_Params):
    """|X| for X ~ Normal(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _names = ("scale",)

    def __init__(self, scale, validate_args=None) -> None:
        super().__init__(scale, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _nb().zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape, dtype, device = _eps_shape(self, sample_shape)
        return (nb.randn(shape, dtype=dtype, device=device) * self.scale).abs()

    def log_prob(self, value):
        self._check(value)
        nb = _nb()
        lp = -(value ** 2) / (2 * self.scale ** 2) - self.scale.log() - math.log(math.sqrt(2 * math.pi)) + math.log(2)
        return nb.where(value >= 0, lp, nb.full_like(lp, -math.inf))

    def cdf(self, value):
        self._check(value)
        return _nb().erf(value / (self.scale * math.sqrt(2)))

    def icdf(self, prob):
        return self.scale * math.sqrt(2) * _nb().erfinv(prob)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log() - math.log(2)


class HalfCauchy(_Params):
    """|X| for X ~ Cauchy(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _names = ("scale",)

    def __init__(self, scale, validate_args=None) -> None:
        super().__init__(scale, validate_args=validate_args)

    @property
    def mean(self):
        return _nb().full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self):
        return _nb().zeros_like(self.scale)

    @property
    def variance(self):
        return _nb().full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    def rsample(self, sample_shape=()):
        return self.icdf(self._uniform(sample_shape))

    def log_prob(self, value):
        self._check(value)
        nb = _nb()
        value = nb.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        lp = math.log(2) - math.log(math.pi) - self.scale.log() - ((value / self.scale) ** 2).log1p()
        return nb.where(value >= 0, lp, nb.full_like(lp, -math.inf))

    def cdf(self, value):
        self._check(value)
        return 2 * ((value / self.scale).atan() / math.pi + 0.5) - 1

    def icdf(self, prob):
        return (math.pi * ((prob + 1) / 2 - 0.5)).tan() * self.scale

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log() - math.log(2)


class Gumbel(_Params):
    """Gumbel(loc, scale): cdf exp(-exp(-(x - loc) / scale))."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _names = ("loc", "scale")

    def __init__(self, loc, scale, validate_args=None) -> None:
        super().__init__(loc, scale, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        return self.icdf(self._uniform(sample_shape))

    def log_prob(self, value):
        self._check(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    def cdf(self, value):
        self._check(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER)


class Weibull(_Params):
    """Weibull(scale, concentration k): cdf 1 - exp(-(x / scale)^k)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _names = ("scale", "concentration")

    def __init__(self, scale, concentration, validate_args=None) -> None:
        super().__init__(scale, concentration, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * (1 + self.concentration.reciprocal()).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal().clamp(min=0)

    @property
    def variance(self):
        k = self.concentration
        return self.scale.pow(2) * ((1 + 2 / k).lgamma().exp() - (2 * (1 + 1 / k).lgamma()).exp())

    def rsample(self, sample_shape=()):
        return self.scale * (-self._uniform(sample_shape).log()).pow(self.concentration.reciprocal())

    def log_prob(self, value):
        self._check(value)
        k, z = self.concentration, value / self.scale
        return (k / self.scale).log() + (k - 1) * z.log() - z.pow(k)

    def cdf(self, value):
        self._check(value)
        return 1 - (-(value / self.scale).pow(self.concentration)).exp()

    def icdf(self, value):
        return self.scale * (-(-value).log1p()).pow(self.concentration.reciprocal())

    def entropy(self):
        k = self.concentration
        return _EULER * (1 - k.reciprocal()) + (self.scale / k).log() + 1


class Pareto(_Params):
    """Pareto(scale, alpha): density alpha scale^alpha / x^(alpha + 1) on x >= scale."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True
    _names = ("scale", "alpha")

    def __init__(self, scale, alpha, validate_args=None) -> None:
        super().__init__(scale, alpha, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def rsample(self, sample_shape=()):
        return self.scale * (-self._uniform(sample_shape).log() / self.alpha).exp()

    def log_prob(self, value):
        self._check(value)
        return self.alpha.log() + self.alpha * self.scale.log() - (self.alpha + 1) * _nb().as_tensor(value).log()

    def cdf(self, value):
        self._check(value)
        return 1 - (self.scale / value).pow(self.alpha)

    def icdf(self, value):
        return self.scale * (1 - value).pow(-self.alpha.reciprocal())

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class Chi2(Gamma):
    """Chi2(df): Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None) -> None:
        nb = _nb()
        df = df if isinstance(df, nb.Tensor) else nb.tensor(float(df))
        super().__init__(0.5 * df, nb.full_like(df, 0.5), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self):
        return self.concentration * 2


class Geometric(_Params):
    """The number of failures before the first success of Bernoulli(probs) trials (or logits)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        nb = _nb()
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self.logits = self.probs.log() - (-self.probs).log1p()
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = nb.sigmoid(self.logits)
        param = probs if probs is not None else logits
        Distribution.__init__(self, Size() if isinstance(param, numbers.Number) else self.probs.size(),
                              validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Geometric, ("probs", "logits"), batch_shape, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _nb().zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        nb = _nb()
        with nb.no_grad():
            u = self._uniform(sample_shape)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._check(value)
        nb = _nb()
        value, probs = broadcast_all(value, self.probs)
        probs = nb.where((probs == 1) & (value == 0), nb.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        nb = _nb()
        bce = nb.nn.functional.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
