"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize."""
from __future__ import annotations

from .._factory import zeros_like
from .._lib import lib
from . import _checks
from .optimizer import Optimizer, list_call, with_grads

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba, 2014); decoupled_weight_decay=True is AdamW."""

    _decoupled_default = False

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool | None = None) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        _checks.unsupported(type(self).__name__, capturable=capturable, differentiable=differentiable)
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled_default
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter with a gradient (one C call per group); returns closure() when given."""
        loss = self._closure(closure)
        state = self.state
        for group in self.param_groups:
            b1, b2 = group["betas"]
            amsgrad = int(group["amsgrad"])
            params, grads = with_grads(group["params"])
            for p in params:
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["exp_avg"] = zeros_like(p)
                    st["exp_avg_sq"] = zeros_like(p)
                    if amsgrad:
                        st["max_exp_avg_sq"] = zeros_like(p)
            sts = [state[p] for p in params]
            steps = [st["step"] + 1 for st in sts]
            list_call(lib.nb_adam_step_list, [params, grads, [st["exp_avg"] for st in sts],
                                               [st["exp_avg_sq"] for st in sts],
                                               [st["max_exp_avg_sq"] for st in sts] if amsgrad else None], steps,
                       float(group["lr"]), float(b1), float(b2), float(group["eps"]), float(group["weight_decay"]),
                       int(group["decoupled_weight_decay"]), amsgrad, int(group["maximize"]))
            for st, step in zip(sts, steps):
                st["step"] = step
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2017); weight_decay defaults to 1e-2."""

    _decoupled_default = True

    def __init__(self, params, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach=None,
                 capturable: bool = False, differentiable: bool = False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
