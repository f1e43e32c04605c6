"""nn.functional.embedding_bag as a composition: the rows of weight at input (index_select), scaled by
per_sample_weights, then summed / averaged (index_add into one row per bag) or maxed (scatter_reduce
amax) within each bag; the bag of each index comes from a cumulative sum of the bag starts."""
from __future__ import annotations

from .._tensor import Tensor
from ._functional_embedding import _padding_index, _renorm_

__all__ = ["embedding_bag"]


def _nb():
    import nabla
    return nabla


def _bags(input: Tensor, offsets, include_last_offset: bool):
    """(flat indices [L], bag of each [L], number of bags) for the 1-d-with-offsets and 2-d forms."""
    nb = _nb()
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = input.shape
        bag = nb.arange(b, device=input.device).repeat_interleave(length)
        return input.reshape(-1), bag, b
    if input.dim() != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    offsets = offsets.long()
    nbags = offsets.numel() - 1 if include_last_offset else offsets.numel()
    if nbags < 0:
        raise RuntimeError("embedding_bag: include_last_offset needs at least one offset")
    if offsets.numel() and int(offsets[0]) != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {int(offsets[0])}")
    length = input.numel()
    starts = offsets[1:nbags] if nbags > 1 else offsets[:0]
    if starts.numel() and (bool((starts > length).any()) or bool((starts[1:] < starts[:-1]).any())):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing and at most the input size {length}")
    marks = nb.zeros(length + 1, dtype=nb.int64, device=input.device).index_add(
        0, starts, nb.ones_like(starts))
    return input, marks.cumsum(0)[:length], nbags


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """The sum, mean or max of the rows of weight [V, D] at the indices of each bag: [B, D]. Bags are the rows of
    a 2-d input, or the runs of a 1-d input that start at offsets. padding_idx entries are left out (also of the
    mean's count); an empty bag gives zeros. sparse is accepted, but the gradient is dense."""
    nb = _nb()
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dtype not in (nb.int64, nb.int32):
        raise RuntimeError(f"embedding_bag: expected indices of dtype int64 or int32, but got {input.dtype}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      f"on GitHub.")
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(f"embedding_bag: If per_sample_weights ({list(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({list(input.shape)})")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq is not implemented in nabla")
    pad = _padding_index(padding_idx, weight)
    idx, bag, nbags = _bags(input, offsets, include_last_offset)
    idx = idx.long()
    if idx.numel() and (bool((idx < 0).any()) or bool((idx >= weight.shape[0]).any())):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, idx, float(max_norm), float(norm_type))
    psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
    if pad >= 0:
        keep = (idx != pad).nonzero().reshape(-1)
        idx, bag = idx.index_select(0, keep), bag.index_select(0, keep)
        psw = psw.index_select(0, keep) if psw is not None else None
    rows = weight.index_select(0, idx)  # [L, D]
    if psw is not None:
        rows = rows * psw.unsqueeze(1).to(rows.dtype)
    out = nb.zeros(nbags, weight.shape[1], dtype=weight.dtype, device=weight.device)
    if mode == "max":
        return out.scatter_reduce(0, bag.unsqueeze(1).expand(rows.shape), rows, "amax", include_self=False)
    out = out.index_add(0, bag, rows)
    if mode == "mean":
        counts = nb.zeros(nbags, dtype=weight.dtype, device=weight.device).index_add(
            0, bag, nb.ones(bag.shape[0], dtype=weight.dtype, device=weight.device))
        out = out / counts.clamp(min=1).unsqueeze(1)
    return out
