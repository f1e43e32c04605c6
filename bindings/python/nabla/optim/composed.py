"""Optimizers written as compositions of nabla ops (several C calls per parameter, where
SGD/Adam/... are one fused call): Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop and LBFGS,
each with PyTorch's single-tensor update rule and defaults."""
from __future__ import annotations

import math

import numpy as np

from .._factory import full_like, zeros_like
from ..autograd.grad_mode import no_grad
from . import _checks
from .optimizer import Optimizer

__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS"]


def _nb():
    import nabla
    return nabla


class _Composed(Optimizer):
    """Runs update(p, grad, state, group) for every parameter with a gradient, under no_grad."""

    def _grad(self, p, group):
        g = p.grad
        if group.get("maximize", False):
            g = -g
        wd = group.get("weight_decay", 0)
        if wd and not group.get("decoupled_weight_decay", False):
            g = g + wd * p
        return g

    def step(self, closure=None):
        loss = self._closure(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self.update(p, self._grad(p, group), self.state[p], group)
        return loss

    def update(self, p, grad, state: dict, group: dict) -> None:
        raise NotImplementedError


class Adadelta(_Composed):
    """Adadelta (Zeiler): steps scaled by the ratio of running RMS of updates and of gradients."""

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach=None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_weight_decay(weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _checks.unsupported("Adadelta", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable, differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        if not state:
            state.update(step=0, square_avg=zeros_like(p), acc_delta=zeros_like(p))
        rho, eps = group["rho"], group["eps"]
        state["step"] += 1
        sq, acc = state["square_avg"], state["acc_delta"]
        sq.mul_(rho).add_((1 - rho) * grad * grad)
        delta = (acc + eps).sqrt() / (sq + eps).sqrt() * grad
        acc.mul_(rho).add_((1 - rho) * delta * delta)
        p.sub_(group["lr"] * delta)


class Adamax(_Composed):
    """Adamax: Adam with the infinity norm of past gradients."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        _checks.unsupported("Adamax", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable, differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        nb = _nb()
        if not state:
            state.update(step=0, exp_avg=zeros_like(p), exp_inf=zeros_like(p))
        b1, b2 = group["betas"]
        state["step"] += 1
        ea, ei = state["exp_avg"], state["exp_inf"]
        ea.mul_(b1).add_((1 - b1) * grad)
        ei.copy_(nb.maximum(ei * b2, grad.abs() + group["eps"]))
        clr = group["lr"] / (1 - b1 ** state["step"])
        p.sub_(clr * ea / ei)


class NAdam(_Composed):
    """Adam with Nesterov momentum (Dozat), with momentum decay."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _checks.unsupported("NAdam", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        if not state:
            state.update(step=0, mu_product=1.0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
        b1, b2 = group["betas"]
        lr, md = group["lr"], group["momentum_decay"]
        state["step"] += 1
        step = state["step"]
        if group["decoupled_weight_decay"] and group["weight_decay"]:
            p.mul_(1 - lr * group["weight_decay"])
        bc2 = 1 - b2 ** step
        mu = b1 * (1.0 - 0.5 * 0.96 ** (step * md))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
        state["mu_product"] *= mu
        mu_product = state["mu_product"]
        ea, easq = state["exp_avg"], state["exp_avg_sq"]
        ea.mul_(b1).add_((1 - b1) * grad)
        easq.mul_(b2).add_((1 - b2) * grad * grad)
        denom = (easq / bc2).sqrt() + group["eps"]
        p.sub_(lr * (1.0 - mu) / (1.0 - mu_product) * grad / denom)
        p.sub_(lr * mu_next / (1.0 - mu_product * mu_next) * ea / denom)


class RAdam(_Composed):
    """Rectified Adam (Liu et al.): plain momentum steps until the variance estimate is tractable."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_eps(eps)
        _checks.check_betas(betas)
        _checks.check_weight_decay(weight_decay)
        _checks.unsupported("RAdam", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable, differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        if not state:
            state.update(step=0, exp_avg=zeros_like(p), exp_avg_sq=zeros_like(p))
        b1, b2 = group["betas"]
        lr = group["lr"]
        state["step"] += 1
        step = state["step"]
        if group["decoupled_weight_decay"] and group["weight_decay"]:
            p.mul_(1 - lr * group["weight_decay"])
        ea, easq = state["exp_avg"], state["exp_avg_sq"]
        ea.mul_(b1).add_((1 - b1) * grad)
        easq.mul_(b2).add_((1 - b2) * grad * grad)
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        corrected = ea / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2 ** step) / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(bc2) / (easq.sqrt() + group["eps"])
            p.sub_(corrected * lr * adaptive * rect)
        else:
            p.sub_(corrected * lr)


def _f32(x: float) -> float:
    """x rounded to float32: PyTorch keeps ASGD's eta and mu as float32 scalar tensors."""
    return float(np.float32(x))


class ASGD(_Composed):
    """Averaged SGD (Polyak and Juditsky): keeps the running average of the iterates in state['ax']."""

    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _checks.check_lr(lr)
        _checks.check_weight_decay(weight_decay)
        _checks.unsupported("ASGD", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize, capturable=capturable,
                                      differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        if not state:
            state.update(step=0, eta=_f32(group["lr"]), mu=1.0, ax=zeros_like(p))
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        state["step"] += 1
        eta = state["eta"]
        p.mul_(1 - lambd * eta)
        p.sub_(eta * grad)
        if state["mu"] != 1:
            state["ax"].add_((p - state["ax"]) * state["mu"])
        else:
            state["ax"].copy_(p)
        state["eta"] = _f32(lr / ((1 + lambd * lr * state["step"]) ** alpha))
        state["mu"] = _f32(1 / max(1, state["step"] - t0))


class Rprop(_Composed):
    """Resilient backpropagation: per-element step sizes grown or shrunk by the sign of successive gradients."""

    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _checks.check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _checks.unsupported("Rprop", capturable=capturable, differentiable=differentiable)
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                                      capturable=capturable, differentiable=differentiable))

    def update(self, p, grad, state, group) -> None:
        nb = _nb()
        if not state:
            state.update(step=0, prev=zeros_like(p), step_size=full_like(grad, group["lr"]))
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        state["step"] += 1
        sign = (grad * state["prev"]).sign()
        factor = nb.where(sign > 0, nb.full_like(sign, etaplus),
                          nb.where(sign < 0, nb.full_like(sign, etaminus), nb.ones_like(sign)))
        step_size = state["step_size"]
        step_size.copy_((step_size * factor).clamp(lo, hi))
        grad = nb.where(sign < 0, nb.zeros_like(grad), grad)
        p.sub_(grad.sign() * step_size)
        state["prev"].copy_(grad)


class LBFGS(Optimizer):
    """L-BFGS (PyTorch's implementation, without line search): step(closure) runs up to max_iter iterations,
    each re-evaluating closure(); one parameter group."""

    def __init__(self, params, lr: float = 1, max_iter: int = 20, max_eval=None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100, line_search_fn=None) -> None:
        _checks.check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn is not None:
            raise NotImplementedError(f"LBFGS: line_search_fn={line_search_fn!r} is not implemented in nabla "
                                      "(use line_search_fn=None)")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        nb = _nb()
        return nb.cat([(p.grad if p.grad is not None else zeros_like(p)).reshape(-1) for p in self._params])

    def _add_grad(self, step_size: float, update) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(step_size * update[offset:offset + n].view_as(p))
            offset += n

    def step(self, closure):
        nb = _nb()
        if closure is None:
            raise RuntimeError("LBFGS requires a closure that re-evaluates the model and returns the loss")
        closure = nb.enable_grad()(closure)
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        history_size = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        with no_grad():
            flat_grad = self._gather_flat_grad()
            if float(flat_grad.abs().max()) <= tolerance_grad:
                return orig_loss
            d, t = state.get("d"), state.get("t")
            old_dirs, old_stps, ro = state.get("old_dirs", []), state.get("old_stps", []), state.get("ro", [])
            H_diag = state.get("H_diag")
            prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
            n_iter = 0
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d = -flat_grad
                    old_dirs, old_stps, ro = [], [], []
                    H_diag = 1
                else:
                    y = flat_grad - prev_flat_grad
                    s = d * t
                    ys = float((y * s).sum())
                    if ys > 1e-10:
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0)
                            old_stps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_stps.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / float((y * y).sum())
                    num_old = len(old_dirs)
                    al = [None] * num_old
                    q = -flat_grad
                    for i in range(num_old - 1, -1, -1):
                        al[i] = float((old_stps[i] * q).sum()) * ro[i]
                        q = q - al[i] * old_dirs[i]
                    d = q * H_diag
                    for i in range(num_old):
                        be_i = float((old_dirs[i] * d).sum()) * ro[i]
                        d = d + old_stps[i] * (al[i] - be_i)
                prev_flat_grad = flat_grad.clone()
                prev_loss = loss
                t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
                gtd = float((flat_grad * d).sum())
                if gtd > -tolerance_change:
                    break
                self._add_grad(t, d)
                ls_func_evals = 0
                if n_iter != max_iter:
                    with nb.enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    ls_func_evals = 1
                current_evals += ls_func_evals
                state["func_evals"] += ls_func_evals
                if n_iter == max_iter or current_evals >= max_eval:
                    break
                if float(flat_grad.abs().max()) <= tolerance_grad:
                    break
                if float((d * t).abs().max()) <= tolerance_change:
                    break
                if abs(loss - prev_loss) < tolerance_change:
                    break
            state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                         prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
