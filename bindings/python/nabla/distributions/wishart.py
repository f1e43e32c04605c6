"""Wishart: distributions over positive definite [..., p, p] matrices with df degrees of freedom and a
scale given by a covariance, a precision or its lower Cholesky factor; samples by Bartlett's decomposition."""
from __future__ import annotations

import math
import numbers
import warnings

from .._size import Size
from . import constraints
from .continuous_more import Chi2
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .multivariate_normal import _one_matrix, _ScaleTrilMatrices
from .utils import broadcast_shapes, diagonal_last, lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _nb():
    import nabla
    return nabla


def _mvdigamma(x, p: int):
    """The multivariate digamma: sum_i digamma(x - i / 2) for i < p."""
    nb = _nb()
    if not bool((x > (p - 1) / 2).all()):
        raise ValueError("Wrong domain for multivariate digamma function.")
    offsets = nb.arange(p, dtype=x.dtype, device=x.device) / 2
    return nb.digamma(x.unsqueeze(-1) - offsets).sum(-1)


def _chi2_of(df, p: int, batch_shape):
    """The Chi2(df - i), i < p, whose square roots are the Bartlett factor's diagonal."""
    nb = _nb()
    offsets = nb.arange(p, dtype=df.dtype, device=df.device).expand(tuple(batch_shape) + (-1,))
    return Chi2(df=df.unsqueeze(-1) - offsets)


class Wishart(_ScaleTrilMatrices, ExponentialFamily):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None): exactly one of the three."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict:
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None) -> None:
        nb = _nb()
        given = _one_matrix(covariance_matrix, precision_matrix, scale_tril)
        param = next(m for m in given.values() if m is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = nb.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = Size(broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = Size(param.shape[-2:])
        p = event_shape[-1]
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        self._set_matrix(given, tuple(batch_shape) + (p, p))
        if bool((self.df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df "
                          "< ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._factor_matrix(given)
        self._dist_chi2 = _chi2_of(self.df, p, batch_shape)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        self._expand_matrices(new, cov_shape)
        new._dist_chi2 = _chi2_of(new.df, self.event_shape[-1], batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def precision_matrix(self):
        nb = _nb()
        L = self._unbroadcasted_scale_tril
        identity = nb.eye(self._event_shape[-1], dtype=L.dtype, device=L.device)
        return nb.cholesky_solve(identity.expand(L.shape), L).expand(self._matrix_shape())

    def _df_matrix(self, df):
        return df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix(self.df) * self.covariance_matrix

    @property
    def mode(self):
        nb = _nb()
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = nb.where(factor <= 0, nb.full_like(factor, math.nan), factor)
        return self._df_matrix(factor) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = diagonal_last(V)
        return self._df_matrix(self.df) * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=()):
        """L A A^T L^T with A lower triangular: sqrt(Chi2(df - i)) on the diagonal, N(0, 1) below it."""
        nb = _nb()
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=nb.finfo(diag.dtype).eps)
        below = nb.randn(tuple(diag.shape) + (p,), dtype=diag.dtype, device=diag.device).tril(-1)
        chol = self._unbroadcasted_scale_tril @ (nb.diag_embed(diag) + below)
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett samples; a singular one (not positive definite) is redrawn up to max_try_correction (10) times."""
        nb = _nb()
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample = self._bartlett_sampling(Size(sample_shape))
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                fresh = self._bartlett_sampling(Size(sample_shape))
                sample = nb.where(singular.unsqueeze(-1).unsqueeze(-1), fresh, sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def _half_log_det(self):
        return diagonal_last(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        batch = broadcast_shapes(value.shape[:-2], L.shape[:-2])
        trace = diagonal_last(nb.cholesky_solve(value.expand(tuple(batch) + (p, p)),
                                                L.expand(tuple(batch) + (p, p)))).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + self._half_log_det()) - nb.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * nb.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nb = _nb()
        nu, p = self.df, self._event_shape[-1]
        return ((p + 1) * (p * _LOG_2 / 2 + self._half_log_det()) + nb.mvlgamma(nu / 2, p=p)
                - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)

    @property
    def _natural_params(self) -> tuple:
        nu, p = self.df, self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        nb = _nb()
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-nb.linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + nb.mvlgamma(
            y + (p + 1) / 2, p=p)
