"""KL divergences between LowRankMultivariateNormal and MultivariateNormal (both ways and with itself),
with PyTorch's Woodbury expansions of trace(Sigma_q^-1 Sigma_p)."""
from __future__ import annotations

from .kl import register_kl
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis, _batch_trace_XXT, _solve_lower)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .utils import broadcast_shapes, diagonal_last


def _nb():
    import nabla
    return nabla


def _check_events(p, q) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two (Low Rank) Multivariate Normals with different event shapes "
                         "cannot be computed")


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_terms(p, q):
    """log|Sigma_q|, the Mahalanobis term of q's loc - p's loc under q, and A = C_q^-1 W_q^T D_q^-1."""
    term3 = _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, q.loc - p.loc,
                                       q._capacitance_tril)
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return _lowrank_logdet(q), term3, _solve_lower(q._capacitance_tril, qWt_qDinv)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _check_events(p, q)
    logdet_q, term3, A = _lowrank_terms(p, q)
    qD, pD, pW = q._unbroadcasted_cov_diag, p._unbroadcasted_cov_diag, p._unbroadcasted_cov_factor
    term21 = (pD / qD).sum(-1)
    term22 = _batch_trace_XXT(pW * qD.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * pD.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A @ pW)
    return 0.5 * (logdet_q - _lowrank_logdet(p) + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_events(p, q)
    logdet_q, term3, A = _lowrank_terms(p, q)
    pL = p._unbroadcasted_scale_tril
    term1 = logdet_q - 2 * diagonal_last(pL).log().sum(-1)
    term21 = _batch_trace_XXT(pL * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A @ pL)
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    nb = _nb()
    _check_events(p, q)
    qL = q._unbroadcasted_scale_tril
    term1 = 2 * diagonal_last(qL).log().sum(-1) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    n, m = p.event_shape[0], p.cov_factor.size(-1)
    # cov_diag's batch joins too (PyTorch leaves it out and fails when it is wider than cov_factor's)
    batch = tuple(broadcast_shapes(qL.shape[:-2], p._unbroadcasted_cov_factor.shape[:-2],
                                   p._unbroadcasted_cov_diag.shape[:-1]))
    q_scale_tril = qL.expand(batch + (n, n))
    p_cov_factor = p._unbroadcasted_cov_factor.expand(batch + (n, m))
    p_cov_diag = nb.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_XXT(nb.linalg.solve_triangular(q_scale_tril, p_cov_factor, upper=False))
    term22 = _batch_trace_XXT(nb.linalg.solve_triangular(q_scale_tril, p_cov_diag, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])
