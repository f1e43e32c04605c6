"""F.ctc_loss: the Connectionist Temporal Classification loss as a composition of nabla ops.

The forward (alpha) recursion runs over time in log space, vectorised over the batch
and the 2S + 1 labels of each extended target (blanks between and around the labels);
its gradient comes from the ops. Unreachable states hold a large finite negative
number instead of -inf, so no 0 * inf appears in backward; a sample whose target no
alignment reaches gets an infinite loss (zero with zero_infinity), as in PyTorch.

PyTorch's own backward returns exp(log_probs) - occupancy for log_probs, the gradient
with respect to the logits under a log_softmax; this composition returns the exact
gradient with respect to log_probs (-occupancy). Through log_softmax, which is how
log_probs are made, both give the same gradients to the logits and everything before.
"""
from __future__ import annotations

from .._dtype import TORCH_NAMES
from .._tensor import Tensor

__all__ = ["ctc_loss"]

_UNREACHED = -1e30  # far below any log-probability sum, above float32's -inf
_IMPOSSIBLE = -1e29


def _nb():
    import nabla
    return nabla


def _lengths(name: str, lengths, n: int) -> list[int]:
    nb = _nb()
    values = lengths.reshape(-1).tolist() if isinstance(lengths, Tensor) else [int(v) for v in lengths]
    if isinstance(lengths, Tensor) and (lengths.dtype.is_floating_point or lengths.dtype == nb.bool):
        raise RuntimeError(f"ctc_loss: {name} must be integral, got {lengths.dtype}")
    if len(values) != n:
        raise RuntimeError(f"ctc_loss: expected {name} to have {n} values (the batch size), got {len(values)}")
    return values


def _padded_targets(targets: Tensor, target_lengths: list[int], n: int) -> Tensor:
    """targets as [N, S] (S the longest target, at least 1): padded rows, or the concatenated 1-d form split."""
    nb = _nb()
    s = max(max(target_lengths), 1)
    if targets.dim() == 2:
        if targets.shape[0] != n:
            raise RuntimeError(f"ctc_loss: targets has batch size {targets.shape[0]} but log_probs has {n}")
        for i, length in enumerate(target_lengths):
            if length > targets.shape[1]:
                raise RuntimeError(f"Expected tensor to have size at least {length} at dimension 1, but got size "
                                   f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                                   f"ctc_loss_cpu)")
        rows = targets.long()
        return rows if rows.shape[1] >= 1 else nb.zeros(n, 1, dtype=nb.int64, device=targets.device)
    if targets.dim() != 1:
        raise RuntimeError(f"ctc_loss: targets must be 1-d (concatenated) or 2-d (padded), got {targets.dim()}-d")
    if sum(target_lengths) != targets.shape[0]:
        raise RuntimeError(f"ctc_loss: the concatenated targets have {targets.shape[0]} labels but target_lengths "
                           f"sum to {sum(target_lengths)}")
    flat = targets.long()
    rows, start = [], 0
    for length in target_lengths:
        row = flat[start:start + length]
        rows.append(nb.cat([row, nb.zeros(s - length, dtype=nb.int64, device=targets.device)]))
        start += length
    return nb.stack(rows)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """-log p(target | input) summed over the alignments of each target to its input (log_probs
    [T, N, C] or [T, C], log_softmax over C). reduction 'mean' divides each loss by its target
    length, then averages over the batch; 'sum' adds; 'none' keeps [N]."""
    nb = _nb()
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not log_probs.dtype.is_floating_point or log_probs.dtype not in (nb.float32, nb.float64):
        raise RuntimeError(f"\"ctc_loss_cpu\" not implemented for '{TORCH_NAMES[log_probs.dtype.code]}'")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
        input_lengths = input_lengths.reshape(1) if isinstance(input_lengths, Tensor) else [int(input_lengths)] \
            if not isinstance(input_lengths, (list, tuple)) else input_lengths
        target_lengths = target_lengths.reshape(1) if isinstance(target_lengths, Tensor) else \
            [int(target_lengths)] if not isinstance(target_lengths, (list, tuple)) else target_lengths
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be 2-d or 3-d (T, N, C), got {log_probs.dim()}-d")
    t_max, n, c = log_probs.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    in_lens = _lengths("input_lengths", input_lengths, n)
    tgt_lens = _lengths("target_lengths", target_lengths, n)
    for length in in_lens:
        if not 0 <= length <= t_max:
            raise RuntimeError(f"Expected input_lengths to have value at most {t_max}, but got value {length} "
                               f"(while checking arguments for ctc_loss_cpu)")
    labels = _padded_targets(targets, tgt_lens, n)  # [N, S]
    s = labels.shape[1]
    dev, dt = log_probs.device, log_probs.dtype
    # extended targets [N, 2S + 1]: blank, l1, blank, l2, ..., blank
    ext = nb.full((n, 2 * s + 1), blank, dtype=nb.int64, device=dev)
    ext[:, 1::2] = labels
    width = 2 * s + 1
    lp = log_probs.gather(2, ext.unsqueeze(0).expand(t_max, n, width))  # [T, N, 2S + 1]
    # a label may follow the label two places back when it is no blank and differs from it
    skip = nb.zeros((n, width), dtype=nb.bool, device=dev)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    unreached = nb.full((n, width), _UNREACHED, dtype=dt, device=dev)
    start = nb.zeros((n, width), dtype=nb.bool, device=dev)
    start[:, 0] = True
    start[:, 1] = nb.tensor([length > 0 for length in tgt_lens], device=dev)
    alpha = nb.where(start, lp[0], unreached)
    lens = nb.tensor(in_lens, device=dev).reshape(n, 1)
    pad1 = nb.full((n, 1), _UNREACHED, dtype=dt, device=dev)
    pad2 = nb.full((n, 2), _UNREACHED, dtype=dt, device=dev)
    for t in range(1, t_max):
        stay = alpha
        step = nb.cat([pad1, alpha[:, :-1]], 1)
        jump = nb.where(skip, nb.cat([pad2, alpha[:, :-2]], 1), unreached)
        top = nb.maximum(nb.maximum(stay, step), jump).detach()
        total = top + ((stay - top).exp() + (step - top).exp() + (jump - top).exp()).log() + lp[t]
        alpha = nb.where(lens > t, total, alpha)  # a sample's input has ended: its alpha stays
    ends = nb.tensor([[2 * length, max(2 * length - 1, 0)] for length in tgt_lens], device=dev)
    last = alpha.gather(1, ends)
    last = nb.where(nb.tensor([[True, length > 0] for length in tgt_lens], device=dev), last,
                    nb.full_like(last, _UNREACHED))
    top = last.amax(1, keepdim=True).detach()
    log_p = (top + (last - top).exp().sum(1, keepdim=True).log()).reshape(n)
    empty_input = nb.tensor([length == 0 for length in in_lens], device=dev)
    # an empty input aligns only with an empty target (probability 1)
    log_p = nb.where(empty_input, nb.where(nb.tensor([length == 0 for length in tgt_lens], device=dev),
                                           nb.zeros_like(log_p), nb.full_like(log_p, _UNREACHED)), log_p)
    impossible = log_p < _IMPOSSIBLE
    loss = nb.where(impossible, nb.full_like(log_p, float("inf")), -log_p)
    if zero_infinity:
        loss = nb.where(impossible, nb.zeros_like(loss), loss)
    if reduction == "none":
        return loss[0] if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    return (loss / nb.tensor(tgt_lens, dtype=dt, device=dev).clamp(min=1)).mean()
