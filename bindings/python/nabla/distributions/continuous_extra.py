"""StudentT, FisherSnedecor, InverseGamma, Kumaraswamy and GeneralizedPareto with PyTorch's formulas,
reparameterised: StudentT and FisherSnedecor from Gamma / Chi2 draws, InverseGamma and Kumaraswamy as
transformed Gamma and Uniform distributions, GeneralizedPareto by its inverse CDF."""
from __future__ import annotations

import math
import numbers

from .._size import Size
from . import constraints
from .continuous import Gamma, Uniform
from .continuous_more import Chi2, _Params
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["FisherSnedecor", "GeneralizedPareto", "InverseGamma", "Kumaraswamy", "StudentT"]

_EULER = 0.57721566490153286060


def _nb():
    import nabla
    return nabla


def _where_nan(cond, value):
    return _nb().where(cond, _nb().full_like(value, math.nan), value)


class StudentT(Distribution):
    """StudentT(df, loc=0, scale=1): loc + scale * N(0, 1) / sqrt(Chi2(df) / df)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df, new.loc, new.scale = (t.expand(batch_shape) for t in (self.df, self.loc, self.scale))
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return _where_nan(self.df <= 1, self.loc + 0 * self.df)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        nb = _nb()
        df = self.df
        finite = self.scale.pow(2) * df / nb.where(df > 2, df - 2, nb.ones_like(df))
        m = nb.where(df > 2, finite, nb.full_like(finite, math.inf))
        return _where_nan(df <= 1, m)

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape = self._extended_shape(sample_shape)
        x = nb.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
             - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y ** 2.0 / self.df).log1p() - z

    def entropy(self):
        nb = _nb()
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (df + 1) * (nb.digamma(0.5 * (df + 1)) - nb.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)


class FisherSnedecor(Distribution):
    """FisherSnedecor(df1, df2): (Chi2(df1) / df1) / (Chi2(df2) / df2)."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(Size() if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = Size(batch_shape)
        new.df1, new.df2 = self.df1.expand(batch_shape), self.df2.expand(batch_shape)
        new._gamma1, new._gamma2 = self._gamma1.expand(batch_shape), self._gamma2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        df2 = _where_nan(self.df2 <= 2, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self):
        return _where_nan(self.df1 <= 2, (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2))

    @property
    def variance(self):
        df2 = _where_nan(self.df2 <= 4, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = _nb().finfo(x2.dtype).tiny
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate): 1 / Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        c = self.concentration
        return _nb().where(c > 1, self.rate / (c - 1), _nb().full_like(c, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        c = self.concentration
        return _nb().where(c > 2, self.rate.square() / ((c - 1).square() * (c - 2)), _nb().full_like(c, math.inf))

    def entropy(self):
        c = self.concentration
        return c + self.rate.log() + c.lgamma() - (1 + c) * _nb().digamma(c)


def _kumaraswamy_moment(a, b, n):
    arg1 = 1 + n / a
    return b * (arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1, concentration0) on (0, 1): (1 - U^(1/c0))^(1/c1) for U uniform."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None) -> None:
        nb = _nb()
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(nb.full_like(self.concentration0, 0), nb.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        parts = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                 PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, parts, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        c1, c0 = self.concentration1, self.concentration0
        log_mode = c0.reciprocal() * (-c0).log1p() - (-c0 * c1).log1p()  # PyTorch's formula, as written
        return _where_nan((c0 < 1) | (c1 < 1), log_mode).exp()

    @property
    def variance(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = _nb().digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * h0 - self.concentration1.log() - self.concentration0.log()


class GeneralizedPareto(_Params):
    """GeneralizedPareto(loc, scale, concentration): survival (1 + c z)^(-1/c), z = (x - loc) / scale (exp(-z) at c = 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True
    _names = ("loc", "scale", "concentration")

    def __init__(self, loc, scale, concentration, validate_args=None) -> None:
        super().__init__(loc, scale, concentration, validate_args=validate_args)

    def _safe_concentration(self):
        nb = _nb()
        c = self.concentration
        zero = nb.isclose(c, nb.zeros_like(c))
        return zero, nb.where(zero, nb.ones_like(c), c)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_nb().rand(shape, dtype=self.loc.dtype, device=self.loc.device))

    def log_prob(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        y = 1 / c + nb.ones_like(z)
        nonzero = nb.where(y == 0, y, y * (c * z).log1p())
        return -self.scale.log() - nb.where(zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        return _nb().where(zero, -z, -(c * z).log1p() / c)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        zero, c = self._safe_concentration()
        logu = (-value).log1p()
        return _nb().where(zero, self.loc - self.scale * logu, self.loc + self.scale / c * (-c * logu).expm1())

    @property
    def mean(self):
        nb = _nb()
        valid = self.concentration < 1
        c = nb.where(valid, self.concentration, nb.full_like(self.concentration, 0.5))
        return _where_nan(~valid, self.loc + self.scale / (1 - c))

    @property
    def variance(self):
        nb = _nb()
        valid = self.concentration < 0.5
        c = nb.where(valid, self.concentration, nb.full_like(self.concentration, 0.25))
        return _where_nan(~valid, self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c)))

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        nb = _nb()
        upper = nb.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                         nb.full_like(self.loc, math.inf))
        return constraints.interval(self.loc, upper)
