"""VonMises: the circular distribution exp(kappa cos(x - loc)) / (2 pi I0(kappa)), with PyTorch's
polynomial log I0 / log I1 and Best and Fisher's rejection sampler (run in float64, as PyTorch)."""
from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _nb():
    import nabla
    return nabla


def _eval_poly(y, coef):
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
                  0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_COEF_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1,
                  -0.2895312e-1, 0.1787654e-1, -0.420059e-2]
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _log_modified_bessel_fn(x, order: int = 0):
    """log I_order(x) for x > 0 and order 0 or 1 (Abramowitz and Stegun's polynomial fits)."""
    y = (x / 3.75).pow(2)
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return _nb().where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, shape):
    """Best and Fisher (1979): angles in [-pi, pi) around loc, drawn until every one is accepted."""
    nb = _nb()
    x = nb.zeros(shape, dtype=loc.dtype, device=loc.device)
    done = nb.zeros(shape, dtype=nb.bool, device=loc.device)
    while not bool(done.all()):
        u1, u2, u3 = nb.rand((3,) + tuple(shape), dtype=loc.dtype, device=loc.device).unbind()
        z = nb.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        x = nb.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
        done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(_CenteredAtLoc, Distribution):
    """VonMises(loc, concentration): angles (any real, read modulo 2 pi) around loc."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def expand(self, batch_shape, _instance=None):
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * _nb().cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _proposal_r(self):
        nb = _nb()
        kappa = self.concentration.double()
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        return nb.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))

    def sample(self, sample_shape=()):
        """Draws in float64 (float32 hangs for concentrations near 1e-4, as in PyTorch) then casts back."""
        nb = _nb()
        shape = self._extended_shape(sample_shape)
        with nb.no_grad():
            x = _rejection_sample(self.loc.double().expand(shape), self.concentration.double().expand(shape),
                                  self._proposal_r.expand(shape), shape)
            return x.to(self.loc.dtype)

    @lazy_property
    def variance(self):
        """The circular variance, 1 - I1(kappa) / I0(kappa)."""
        k = self.concentration
        return 1 - (_log_modified_bessel_fn(k, order=1) - _log_modified_bessel_fn(k, order=0)).exp()
