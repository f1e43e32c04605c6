"""RMSprop, optionally centered and with momentum."""
from __future__ import annotations

from .._factory import zeros_like
from .._lib import error, ffi, lib
from . import _checks
from .optimizer import Optimizer

__all__ = ["RMSprop"]

_NULL = ffi.NULL


class RMSprop(Optimizer):
    """RMSprop (Hinton): divides the gradient by a running root mean square."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_momentum(momentum)
        _checks.check_weight_decay(weight_decay)
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _checks.unsupported("RMSprop", capturable=capturable, differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns closure() when given."""
        loss = self._closure(closure)
        state, rmsprop = self.state, lib.nb_rmsprop_step
        for group in self.param_groups:
            lr, alpha, eps = float(group["lr"]), float(group["alpha"]), float(group["eps"])
            wd, momentum = float(group["weight_decay"]), float(group["momentum"])
            centered, maximize = int(group["centered"]), int(group["maximize"])
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        st["momentum_buffer"] = zeros_like(p)
                    if centered:
                        st["grad_avg"] = zeros_like(p)
                st["step"] += 1
                ga = st["grad_avg"]._h if centered else _NULL
                buf = st["momentum_buffer"]._h if momentum > 0 else _NULL
                status = rmsprop(p._h, g._h, st["square_avg"]._h, ga, buf, lr, alpha, eps, wd, momentum, centered,
                                 maximize)
                if status:
                    raise error(status)
        return loss
