"""The margin, embedding and likelihood losses of nn.functional as compositions of nabla ops
(their gradients come from the ops): margin_ranking, hinge_embedding, cosine_embedding,
soft_margin, multilabel_soft_margin, multi_margin, multilabel_margin, triplet_margin
(+ _with_distance), poisson_nll and gaussian_nll. Formulas and checks follow PyTorch's."""
from __future__ import annotations

import math

from .._tensor import Tensor
from .._lib import lib
from ._functional_nn import _reduction

_MEAN, _SUM = lib.NB_REDUCTION_MEAN, lib.NB_REDUCTION_SUM

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "triplet_margin_loss",
           "triplet_margin_with_distance_loss", "poisson_nll_loss", "gaussian_nll_loss"]


def _nb():
    import nabla
    return nabla


def _reduce(loss: Tensor, reduction: str, size_average=None, reduce=None) -> Tensor:
    """loss reduced as reduction (or the legacy size_average / reduce pair) asks."""
    code = _reduction(reduction, size_average, reduce)
    return loss.mean() if code == _MEAN else loss.sum() if code == _SUM else loss


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin)."""
    if not (input1.dim() == input2.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction, size_average, reduce)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """input where target == 1, max(0, margin - input) where target == -1."""
    nb = _nb()
    zeros = nb.zeros_like(input)
    margin_part = nb.where(target != 1, (margin - input).clamp(min=0), zeros)
    self_part = nb.where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction, size_average, reduce)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target == 1, max(0, cos - margin) where target == -1; inputs [N, D] or [D]."""
    nb = _nb()
    if input1.dim() != input2.dim() or input1.dim() not in (1, 2):
        raise RuntimeError(f"cosine_embedding_loss: 1D target tensor expects 2D input tensors, but found inputs "
                           f"with sizes {list(input1.shape)} and {list(input2.shape)}.")
    if target.dim() != input1.dim() - 1:
        raise RuntimeError(f"cosine_embedding_loss: expected target of {input1.dim() - 1} dims for inputs of "
                           f"{input1.dim()} dims, got target with sizes {list(target.shape)}.")
    d = input1.dim() - 1
    eps = 1e-12
    prod = (input1 * input2).sum(d)
    mag1, mag2 = (input1 * input1).sum(d) + eps, (input2 * input2).sum(d) + eps
    cos = prod / (mag1 * mag2).sqrt()
    zeros = nb.zeros_like(cos)
    loss = nb.where(target == 1, 1 - cos, zeros) + nb.where(target == -1, (cos - margin).clamp(min=0), zeros)
    return _reduce(loss, reduction, size_average, reduce)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input))."""
    nb = _nb()
    return _reduce(nb.nn.functional.softplus(-target * input, 1.0, math.inf), reduction, size_average, reduce)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """-mean over classes of target log sigmoid(input) + (1 - target) log sigmoid(-input); input [N, C] or [C]."""
    logsig = _nb().nn.functional.logsigmoid
    loss = -(target * logsig(input) + (1 - target) * logsig(-input))
    if weight is not None:
        loss = loss * weight
    d = input.dim() - 1
    loss = loss.sum(d) / input.shape[d]
    return _reduce(loss, reduction, size_average, reduce)


def _class_rows(fname: str, input: Tensor) -> Tensor:
    """input as [N, C] for the 1-d and 2-d forms PyTorch accepts."""
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0) or (input.dim() < 2 and input.numel() == 0):
        raise RuntimeError(f"{fname}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    return input.reshape(1, -1) if input.dim() < 2 else input


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """sum over i != y of max(0, margin - x[y] + x[i])^p / C, times weight[y]; input [N, C] or [C], target [N]."""
    nb = _nb()
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = _class_rows("multi_margin_loss", input)
    n, c = x.shape
    t = target.reshape(-1).long()
    if t.numel() != n:
        raise RuntimeError(f"multi_margin_loss: inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if n and (bool((t < 0).any()) or bool((t >= c).any())):
        raise RuntimeError("target out of range")
    xy = x.gather(1, t.unsqueeze(1))
    z = (margin - xy + x).clamp(min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, t).unsqueeze(1)
    others = nb.arange(c, device=x.device).unsqueeze(0) != t.unsqueeze(1)
    loss = nb.where(others, z, nb.zeros_like(z)).sum(1) / c
    loss = loss.reshape(target.shape) if input.dim() < 2 else loss
    return _reduce(loss, reduction, size_average, reduce)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])) / C; target holds class
    indices padded with -1 after the last one (what follows the first -1 is ignored)."""
    nb = _nb()
    x = _class_rows("multilabel_margin_loss", input)
    t = target.reshape(x.shape).long() if target.numel() == x.numel() else None
    if t is None or target.dim() != input.dim():
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    n, c = x.shape
    if n and (bool((t < -1).any()) or bool((t >= c).any())):
        raise RuntimeError("target out of range")
    valid = (t >= 0).long().cumprod(1).bool()  # [N, C]: positions before the first -1
    idx = nb.where(valid, t, nb.zeros_like(t))
    classes = nb.arange(c, device=x.device)
    is_target = ((idx.unsqueeze(2) == classes) & valid.unsqueeze(2)).any(1)  # [N, C]
    xj = x.gather(1, idx)  # [N, C]: the score of each listed target
    hinge = (1 - xj.unsqueeze(2) + x.unsqueeze(1)).clamp(min=0)  # [N, j, i]
    keep = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = nb.where(keep, hinge, nb.zeros_like(hinge)).sum((1, 2)) / c
    loss = loss.reshape(()) if input.dim() < 2 else loss
    return _reduce(loss, reduction, size_average, reduce)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm pairwise distance."""
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    dist = _nb().nn.functional.pairwise_distance
    d_pos, d_neg = dist(anchor, positive, p, eps), dist(anchor, negative, p, eps)
    if swap:
        d_neg = _nb().minimum(d_neg, dist(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction, size_average, reduce)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *, distance_function=None,
                                      margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) for any distance function d."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    dist = distance_function if distance_function is not None else _nb().nn.functional.pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = _nb().minimum(d_neg, dist(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """exp(input) - target * input (log_input) or input - target * log(input + eps); full adds Stirling's term."""
    nb = _nb()
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = nb.where(target > 1, target, nb.ones_like(target))
        stirling = safe * safe.log() - safe + 0.5 * (2 * math.pi * safe).log()
        loss = loss + nb.where(target > 1, stirling, nb.zeros_like(stirling))
    return _reduce(loss, reduction, size_average, reduce)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) when full)."""
    nb = _nb()
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * nb.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + (var.clamp(min=eps) - var).detach()  # the clamped value, the gradient of the identity (PyTorch's)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
