"""Adagrad."""
from __future__ import annotations

from .._factory import full_like
from .._lib import error, lib
from . import _checks
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al., 2011): per-element rates from the accumulated squared gradients."""

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_weight_decay(weight_decay)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        _checks.unsupported("Adagrad", differentiable=differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:  # PyTorch creates Adagrad's state eagerly
            for p in group["params"]:
                st = self.state[p]
                st["step"] = 0
                st["sum"] = full_like(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns closure() when given."""
        loss = self._closure(closure)
        state, adagrad = self.state, lib.nb_adagrad_step
        for group in self.param_groups:
            lr, lr_decay, eps = float(group["lr"]), float(group["lr_decay"]), float(group["eps"])
            wd, maximize = float(group["weight_decay"]), int(group["maximize"])
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["sum"] = full_like(p, group["initial_accumulator_value"])
                step = st["step"] = st["step"] + 1
                status = adagrad(p._h, g._h, st["sum"]._h, step, lr, lr_decay, eps, wd, maximize)
                if status:
                    raise error(status)
        return loss
