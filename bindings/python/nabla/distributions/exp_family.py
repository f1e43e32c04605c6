"""ExponentialFamily: the base class of the distributions with density exp(<t(x), theta> - F(theta) + k(x)),
whose entropy (and same-family KL) follow from the log normalizer F by a Bregman divergence."""
from __future__ import annotations

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


def _nb():
    import nabla
    return nabla


class ExponentialFamily(Distribution):
    """A distribution given by natural parameters theta, a log normalizer F(theta) and a carrier measure k(x)."""

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters theta, one tensor each."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta), batched over the batch shape."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """E[k(x)], needed for the entropy."""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)], with grad F by autograd."""
        nb = _nb()
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = nb.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
