"""MultivariateNormal: the Gaussian over the last dimension, given by a covariance, a
precision or a lower Cholesky factor of the covariance (exactly one)."""
from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .utils import broadcast_shapes, diagonal_last, lazy_property

__all__ = ["MultivariateNormal"]


def _nb():
    import nabla
    return nabla


def _batch_mahalanobis(L, x):
    """|L^-1 x|^2 over the last dim, L [..., n, n] lower triangular broadcast against x [..., n]."""
    nb = _nb()
    shape = broadcast_shapes(L.shape[:-2], x.shape[:-1])
    n = x.shape[-1]
    L = L.expand(tuple(shape) + (n, n))
    x = x.expand(tuple(shape) + (n,))
    y = nb.linalg.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return y.pow(2).sum(-1)


_MATRICES = ("scale_tril", "covariance_matrix", "precision_matrix")


class _ScaleTrilMatrices:
    """The covariance given as exactly one of scale_tril, covariance_matrix or precision_matrix, kept as the
    unbroadcasted lower Cholesky factor of the covariance (MultivariateNormal, Wishart)."""

    def _matrix_shape(self) -> tuple:
        raise NotImplementedError

    def _set_matrix(self, given: dict, shape) -> None:
        """Keeps the one given matrix expanded to shape."""
        name, matrix = next((k, v) for k, v in given.items() if v is not None)
        setattr(self, name, matrix.expand(tuple(shape)))

    def _factor_matrix(self, given: dict) -> None:
        """The lower factor the given matrix stands for (after validation, as a failed Cholesky is no message)."""
        nb = _nb()
        name, matrix = next((k, v) for k, v in given.items() if v is not None)
        if name == "covariance_matrix":
            matrix = nb.linalg.cholesky(matrix)
        elif name == "precision_matrix":
            matrix = nb.linalg.cholesky(nb.linalg.inv(matrix))
        self._unbroadcasted_scale_tril = matrix

    def _expand_matrices(self, new, shape) -> None:
        for name in _MATRICES:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(tuple(shape)))

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())


def _one_matrix(covariance_matrix, precision_matrix, scale_tril) -> dict:
    """The three matrix arguments by name, once checked that exactly one was given."""
    if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
        raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
    return {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix, "precision_matrix": precision_matrix}


class MultivariateNormal(_CenteredAtLoc, _ScaleTrilMatrices, Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = _one_matrix(covariance_matrix, precision_matrix, scale_tril)
        matrix = next(m for m in given.values() if m is not None)
        if matrix.dim() < 2:
            raise ValueError("scale_tril, covariance_matrix or precision_matrix matrix must be at least "
                             "two-dimensional, with optional leading batch dimensions")
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        n = loc.shape[-1]
        self._set_matrix(given, tuple(batch_shape) + (n, n))
        self.loc = loc.expand(tuple(batch_shape) + (n,))
        super().__init__(Size(batch_shape), Size((n,)), validate_args=validate_args)
        self._factor_matrix(given)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        self._expand_matrices(new, cov_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def precision_matrix(self):
        return _nb().linalg.inv(self.covariance_matrix)

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(tuple(self._batch_shape) +
                                                                      tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape = self._extended_shape(sample_shape)
        eps = nb.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return diagonal_last(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        n = self._event_shape[0]
        H = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H.expand(self._batch_shape) if len(self._batch_shape) else H
