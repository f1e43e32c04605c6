"""The univariate continuous distributions: Normal, Uniform, Exponential, Laplace, Gamma,
Beta, Dirichlet (multivariate, with Gamma's sampler), with PyTorch's formulas."""
from __future__ import annotations

import math
import numbers

from .._size import Size
from . import constraints
from ._gamma import standard_gamma
from .distribution import Distribution, _CenteredAtLoc
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "Gamma", "Beta", "Dirichlet"]


def _nb():
    import nabla
    return nabla


def _expand_params(self, cls, names: tuple, batch_shape, _instance):
    """The expand() of a distribution whose parameters all share the batch shape."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(self, name).expand(batch_shape))
    Distribution.__init__(new, batch_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


def _eps_shape(self, sample_shape):
    ref = next(iter(self.arg_constraints))
    p = getattr(self, ref)
    return self._extended_shape(sample_shape), p.dtype, p.device


class _LocScale(_CenteredAtLoc, Distribution):
    """A real distribution given by a location and a positive scale (Normal, Laplace)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        batch = Size() if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, type(self), ("loc", "scale"), batch_shape, _instance)


class Normal(_LocScale, ExponentialFamily):
    """Normal(loc, scale): the Gaussian with mean loc and standard deviation scale."""

    _mean_carrier_measure = 0

    @property
    def _natural_params(self) -> tuple:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        nb = _nb()
        return -0.25 * x.pow(2) / y + 0.5 * nb.log(-math.pi / y)

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape, dtype, device = _eps_shape(self, sample_shape)
        return self.loc + _nb().randn(shape, dtype=dtype, device=device) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + _nb().erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * _nb().erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()


class Uniform(Distribution):
    """Uniform(low, high): uniform on the half-open interval [low, high)."""

    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low, high, validate_args=None) -> None:
        self.low, self.high = broadcast_all(low, high)
        batch = Size() if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) else self.low.size()
        super().__init__(batch, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, ("low", "high"), batch_shape, _instance)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return self.high * float("nan")

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=()):
        shape, dtype, device = _eps_shape(self, sample_shape)
        return self.low + _nb().rand(shape, dtype=dtype, device=device) * (self.high - self.low)

    def _check_inside(self, value) -> None:
        if self._validate_args:
            self._validate_sample(value)

    def log_prob(self, value):
        self._check_inside(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return (lb * ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        self._check_inside(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Exponential(ExponentialFamily):
    """Exponential(rate): density rate * exp(-rate x) on x >= 0."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Exponential, ("rate",), batch_shape, _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _nb().zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape, dtype, device = _eps_shape(self, sample_shape)
        u = nb.rand(shape, dtype=dtype, device=device)
        return -nb.log1p(-u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - _nb().exp(-self.rate * value)

    def icdf(self, value):
        return -_nb().log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    _mean_carrier_measure = 0

    @property
    def _natural_params(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()


class Laplace(_LocScale):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape, dtype, device = _eps_shape(self, sample_shape)
        eps = nb.finfo(dtype).eps
        u = nb.rand(shape, dtype=dtype, device=device) * (2 - eps) + (-1 + eps)  # uniform on (-1, 1)
        return self.loc - self.scale * u.sign() * nb.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * _nb().expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * _nb().log1p(-2 * term.abs())

    def entropy(self):
        return 1 + (2 * self.scale).log()


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^c x^(c-1) exp(-rate x) / Gamma(c) on x >= 0."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(Size() if scalar else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Gamma, ("concentration", "rate"), batch_shape, _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return (self.concentration - 1).clamp(min=0) / self.rate

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=_nb().finfo(value.dtype).tiny)

    def log_prob(self, value):
        nb = _nb()
        if not isinstance(value, nb.Tensor):
            value = nb.tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return nb.xlogy(c, self.rate) + nb.xlogy(c - 1, value) - self.rate * value - nb.lgamma(c)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _nb().special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        nb = _nb()
        c = self.concentration
        return c - self.rate.log() + nb.lgamma(c) + (1.0 - c) * nb.digamma(c)

    _mean_carrier_measure = 0

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _nb().lgamma(x + 1) + (x + 1) * (-y.reciprocal()).log()


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): distributions over the simplex of the last dimension's size."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return nb.xlogy(c - 1.0, value).sum(-1) + nb.lgamma(c.sum(-1)) - nb.lgamma(c).sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = (self.concentration - 1).clamp(min=0.0)
        m = c / c.sum(-1, keepdim=True)
        nb = _nb()
        one_hot = (self.concentration == self.concentration.max(-1, keepdim=True).values).to(m.dtype)
        return nb.where((self.concentration < 1).any(-1, keepdim=True), one_hot, m)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        nb = _nb()
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return nb.lgamma(c).sum(-1) - nb.lgamma(a0) - (k - a0) * nb.digamma(a0) - ((c - 1.0) * nb.digamma(c)).sum(-1)

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _nb().lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    """Beta(concentration1, concentration0): on [0, 1], the first coordinate of a Dirichlet of the two."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None) -> None:
        nb = _nb()
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            concentration = nb.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            concentration = nb.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(concentration, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = _nb().stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        nb = _nb()
        return nb.lgamma(x) + nb.lgamma(y) - nb.lgamma(x + y)
