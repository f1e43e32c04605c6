"""SGD with momentum, dampening, Nesterov momentum and weight decay."""
from __future__ import annotations

from .._factory import zeros_like
from .._lib import error, ffi, lib
from . import _checks
from .optimizer import Optimizer, required

__all__ = ["SGD"]

_NULL = ffi.NULL


class SGD(Optimizer):
    """Stochastic gradient descent (PyTorch's formula: the momentum buffer starts as the first gradient)."""

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None) -> None:
        if lr is not required:
            _checks.check_lr(lr)
        _checks.check_momentum(momentum)
        _checks.check_weight_decay(weight_decay)
        _checks.unsupported("SGD", differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns closure() when given."""
        loss = self._closure(closure)
        state, sgd = self.state, lib.nb_sgd_step
        for group in self.param_groups:
            lr, momentum, dampening = float(group["lr"]), float(group["momentum"]), float(group["dampening"])
            wd, nesterov, maximize = float(group["weight_decay"]), int(group["nesterov"]), int(group["maximize"])
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if momentum != 0:
                    st = state[p]
                    buf = st.get("momentum_buffer")
                    init = buf is None
                    if init:
                        buf = st["momentum_buffer"] = zeros_like(p)
                    status = sgd(p._h, g._h, buf._h, lr, momentum, dampening, wd, nesterov, maximize, init)
                else:
                    status = sgd(p._h, g._h, _NULL, lr, 0.0, dampening, wd, nesterov, maximize, 0)
                if status:
                    raise error(status)
        return loss
