"""RMSprop, optionally centered and with momentum."""
from __future__ import annotations

from .._factory import zeros_like
from .._lib import lib
from . import _checks
from .optimizer import Optimizer, list_call, with_grads

__all__ = ["RMSprop"]


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
        """One update of every parameter with a gradient (one C call per group); returns closure() when given."""
        loss = self._closure(closure)
        state = self.state
        for group in self.param_groups:
            momentum, centered = float(group["momentum"]), int(group["centered"])
            params, grads = with_grads(group["params"])
            for p in params:
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["square_avg"] = zeros_like(p)
                    if momentum > 0:
                        st["momentum_buffer"] = zeros_like(p)
                    if centered:
                        st["grad_avg"] = zeros_like(p)
            sts = [state[p] for p in params]
            lists = [params, grads, [st["square_avg"] for st in sts],
                     [st["grad_avg"] for st in sts] if centered else None,
                     [st["momentum_buffer"] for st in sts] if momentum > 0 else None]
            list_call(lib.nb_rmsprop_step_list, lists, None,
                      float(group["lr"]), float(group["alpha"]), float(group["eps"]), float(group["weight_decay"]),
                      momentum, centered, int(group["maximize"]))
            for st in sts:
                st["step"] += 1
        return loss
