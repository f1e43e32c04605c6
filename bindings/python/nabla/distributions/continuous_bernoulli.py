"""ContinuousBernoulli: the density on [0, 1] proportional to p^x (1-p)^(1-x), with PyTorch's
Taylor expansions inside (lims[0], lims[1]) around p = 1/2, where the closed forms cancel."""
from __future__ import annotations

import math
import numbers

from .._size import Size
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


def _nb():
    import nabla
    return nabla


class ContinuousBernoulli(ExponentialFamily):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)): on [0, 1]."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        given = probs if probs is not None else logits
        is_scalar = isinstance(given, numbers.Number)
        (value,) = broadcast_all(given)
        if probs is not None:
            # checked before the clamp, which would make every probs pass
            if validate_args is not None and not bool(constraints.unit_interval.check(value).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(value)
        else:
            self.logits = value
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = new.__dict__[name]
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        nb = _nb()
        return nb.where(self._outside_unstable_region(), self.probs, nb.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        """log C(p), the log normalizing constant as a function of probs."""
        nb = _nb()
        cut = self._cut_probs()
        below = nb.where(cut <= 0.5, cut, nb.zeros_like(cut))
        above = nb.where(cut >= 0.5, cut, nb.ones_like(cut))
        log_norm = (nb.log1p(-cut) - cut.log()).abs().log() - nb.where(
            cut <= 0.5, nb.log1p(-2.0 * below), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return nb.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        nb = _nb()
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / (nb.log1p(-cut) - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return nb.where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self):
        nb = _nb()
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (nb.log1p(-cut) - cut.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return nb.where(self._outside_unstable_region(), var, taylor)

    def sample(self, sample_shape=()):
        nb = _nb()
        u = nb.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        with nb.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        nb = _nb()
        u = nb.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = nb.nn.functional.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = nb.where(self._outside_unstable_region(), cdfs, value)
        return nb.where(value <= 0.0, nb.zeros_like(unbounded),
                        nb.where(value >= 1.0, nb.ones_like(unbounded), unbounded))

    def icdf(self, value):
        nb = _nb()
        cut = self._cut_probs()
        inverse = (nb.log1p(-cut + value * (2.0 * cut - 1.0)) - nb.log1p(-cut)) / (cut.log() - nb.log1p(-cut))
        return nb.where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        nb = _nb()
        log_probs0, log_probs1 = nb.log1p(-self.probs), self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x):
        """log C as a function of the natural parameter (the logits)."""
        nb = _nb()
        lo, hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        outside = (x <= lo) | (x > hi)
        cut = nb.where(outside, x, nb.full_like(x, lo))
        log_norm = nb.expm1(cut).abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return nb.where(outside, log_norm, taylor)
