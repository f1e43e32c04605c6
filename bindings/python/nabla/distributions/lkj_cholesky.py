"""LKJCholesky: lower Cholesky factors L of correlation matrices L L^T with density proportional to
det(L L^T)^(concentration - 1); sampled by the onion method (Lewandowski, Kurowicka and Joe, 2009)."""
from __future__ import annotations

import math

from .._size import Size
from . import constraints
from .continuous import Beta
from .distribution import Distribution
from .utils import broadcast_all, diagonal_last

__all__ = ["LKJCholesky"]


def _nb():
    import nabla
    return nabla


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0): [..., dim, dim] factors; concentration 1 is uniform over them."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None) -> None:
        nb = _nb()
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        # row k's off-diagonal squared norm is Beta(k / 2, eta + (dim - 1 - k) / 2) (the onion method's step k;
        # row 0 has none). PyTorch draws Beta(k - 1/2, ...), which widens the marginals of rows 2 and on.
        offset = nb.arange(dim - 1, dtype=c.dtype, device=c.device)
        offset = nb.cat([nb.zeros((1,), dtype=c.dtype, device=c.device), offset])
        k = nb.arange(dim, dtype=c.dtype, device=c.device).clamp(min=1)
        marginal_conc = c + 0.5 * (dim - 2)
        self._beta = Beta(0.5 * k, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(c.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        nb = _nb()
        with nb.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = nb.randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
            norm = u_normal.norm(dim=-1, keepdim=True)
            first_row = nb.arange(self.dim, device=y.device).unsqueeze(-1) == 0  # all zero: no direction
            u_hypersphere = nb.where(first_row, nb.zeros_like(u_normal), u_normal / nb.where(first_row,
                                                                                            nb.ones_like(norm), norm))
            w = y.sqrt() * u_hypersphere
            diag = (1 - w.pow(2).sum(-1)).clamp(min=nb.finfo(w.dtype).tiny).sqrt()
            return w + nb.diag_embed(diag)

    def log_prob(self, value):
        nb = _nb()
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = diagonal_last(value)[..., 1:]
        order = nb.arange(2, self.dim + 1, dtype=self.concentration.dtype, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalize_term = 0.5 * dm1 * math.log(math.pi) + nb.mvlgamma(alpha - 0.5, dm1) - nb.lgamma(alpha) * dm1
        return unnormalized - normalize_term
