"""SGD with momentum, dampening, Nesterov momentum and weight decay."""
from __future__ import annotations

from .._factory import zeros_like
from .._lib import lib
from . import _checks
from .optimizer import Optimizer, list_call, required, with_grads

__all__ = ["SGD"]


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
        """One update of every parameter with a gradient (one C call per group, two when some momentum
        buffers start now); returns closure() when given."""
        loss = self._closure(closure)
        state, sgd = self.state, lib.nb_sgd_step_list
        for group in self.param_groups:
            lr, momentum, dampening = float(group["lr"]), float(group["momentum"]), float(group["dampening"])
            wd, nesterov, maximize = float(group["weight_decay"]), int(group["nesterov"]), int(group["maximize"])
            hyper = (lr, momentum, dampening, wd, nesterov, maximize)
            params, grads = with_grads(group["params"])
            if momentum == 0:
                list_call(sgd, [params, grads, None], None, *hyper, 0)
                continue
            bufs = [state[p].get("momentum_buffer") for p in params]
            fresh = [i for i, b in enumerate(bufs) if b is None]
            for i in fresh:
                bufs[i] = state[params[i]]["momentum_buffer"] = zeros_like(params[i])
            if not fresh or len(fresh) == len(params):
                list_call(sgd, [params, grads, bufs], None, *hyper, int(bool(fresh)))
                continue
            for init, idx in ((0, sorted(set(range(len(params))) - set(fresh))), (1, fresh)):
                list_call(sgd, [[params[i] for i in idx], [grads[i] for i in idx], [bufs[i] for i in idx]], None,
                          *hyper, init)
        return loss
