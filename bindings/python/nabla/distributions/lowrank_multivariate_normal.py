"""LowRankMultivariateNormal: the Gaussian with covariance W W^T + diag(D), W [..., n, m] of low rank m;
log-determinant and Mahalanobis distance through the m x m capacitance I + W^T D^-1 W (Woodbury)."""
from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .multivariate_normal import _batch_mahalanobis
from .utils import diagonal_last, lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _nb():
    import nabla
    return nabla


def _batch_capacitance_tril(W, D):
    """Cholesky factor of I + W^T D^-1 W: W [..., n, m], D [..., n] -> [..., m, m]."""
    nb = _nb()
    m = W.size(-1)
    K = (W.mT / D.unsqueeze(-2)) @ W
    return nb.linalg.cholesky(K + nb.eye(m, dtype=K.dtype, device=K.device))


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """log|W W^T + D| = log|C| + log|D| (the matrix determinant lemma)."""
    return 2 * diagonal_last(capacitance_tril).log().sum(-1) + D.log().sum(-1)


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by Woodbury: x/D.x - |C^-1 W^T D^-1 x|^2."""
    Wt_Dinv_x = ((W.mT / D.unsqueeze(-2)) @ x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)


def _batch_trace_XXT(m):
    """trace(M M^T) = the sum of the squares of [..., a, b] -> [...]."""
    return m.pow(2).flatten(-2).sum(-1)


class LowRankMultivariateNormal(_CenteredAtLoc, Distribution):
    """LowRankMultivariateNormal(loc [..., n], cov_factor [..., n, m], cov_diag [..., n])."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None) -> None:
        nb = _nb()
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = Size(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = nb.broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                    cov_diag.unsqueeze(-1))
        except (RuntimeError, ValueError) as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, Size(batch_shape), self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _full(self, *event):
        return tuple(self._batch_shape) + event

    @lazy_property
    def variance(self):
        n = self._event_shape[0]
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag).expand(self._full(n))

    @lazy_property
    def scale_tril(self):
        nb = _nb()
        n = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / d_sqrt
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + nb.eye(n, dtype=d_sqrt.dtype, device=d_sqrt.device)
        return (d_sqrt * nb.linalg.cholesky(K)).expand(self._full(n, n))

    @lazy_property
    def covariance_matrix(self):
        nb = _nb()
        n = self._event_shape[0]
        W = self._unbroadcasted_cov_factor
        return (W @ W.mT + nb.diag_embed(self._unbroadcasted_cov_diag)).expand(self._full(n, n))

    @lazy_property
    def precision_matrix(self):
        nb = _nb()
        n = self._event_shape[0]
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = _solve_lower(self._capacitance_tril, Wt_Dinv)
        return (nb.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A).expand(self._full(n, n))

    def rsample(self, sample_shape=()):
        nb = _nb()
        shape = self._extended_shape(sample_shape)
        eps_W = nb.randn(tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:]), dtype=self.loc.dtype,
                         device=self.loc.device)
        eps_D = nb.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        Weps = (self._unbroadcasted_cov_factor @ eps_W.unsqueeze(-1)).squeeze(-1)
        return self.loc + Weps + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def _logdet(self):
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                     self._capacitance_tril)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag,
                                       value - self.loc, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._logdet() + M)

    def entropy(self):
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._logdet())
        return H.expand(self._batch_shape) if len(self._batch_shape) else H


def _solve_lower(L, B):
    """L^-1 B for lower triangular L [..., m, m] and B [..., m, k], batch dims broadcast."""
    nb = _nb()
    from .utils import broadcast_shapes
    batch = broadcast_shapes(L.shape[:-2], B.shape[:-2])
    return nb.linalg.solve_triangular(L.expand(tuple(batch) + tuple(L.shape[-2:])),
                                      B.expand(tuple(batch) + tuple(B.shape[-2:])), upper=False)
