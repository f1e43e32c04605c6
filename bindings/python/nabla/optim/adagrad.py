"""Adagrad."""
from __future__ import annotations

from .._factory import full_like
from .._lib import lib
from . import _checks
from .optimizer import Optimizer, list_call, with_grads

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
        """One update of every parameter with a gradient (one C call per group); returns closure() when given."""
        loss = self._closure(closure)
        state = self.state
        for group in self.param_groups:
            params, grads = with_grads(group["params"])
            for p in params:
                st = state[p]
                if not st:
                    st["step"] = 0
                    st["sum"] = full_like(p, group["initial_accumulator_value"])
            sts = [state[p] for p in params]
            steps = [st["step"] + 1 for st in sts]
            list_call(lib.nb_adagrad_step_list, [params, grads, [st["sum"] for st in sts]], steps,
                       float(group["lr"]), float(group["lr_decay"]), float(group["eps"]), float(group["weight_decay"]),
                       int(group["maximize"]))
            for st, step in zip(sts, steps):
                st["step"] = step
        return loss
