"""F.linear_cross_entropy: cross_entropy(linear(input, W, b), target) with torch 2.13's checks,
and its chunked form (options=LinearCrossEntropyOptions(...)): the batch is processed in chunks,
each chunk's logits recomputed in backward (activation checkpointing), so the full
[batch, num_classes] logits never stay in memory -- what an LLM's vocabulary head needs."""
from __future__ import annotations

import dataclasses
import math
import warnings

from .._tensor import Tensor

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]

_POLICIES = {"auto", "accurate", "balanced", "compact"}


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Configuration of the chunked linear_cross_entropy. batch_chunk_size: rows per chunk (None: from
    chunking_method, "aspect_ratio:k" = k * in_features rows, "auto" = 2 * in_features); acc_dtype: the
    dtype the chunk logits are computed in (None: the input's); acc_policy is accepted for torch's
    interface (nabla's chunks always accumulate in float32 or wider, as its cross_entropy)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if name != "aspect_ratio" or not sep or not factor.replace(".", "", 1).isdigit() or float(factor) <= 0:
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if self.batch_chunk_size is not None and self.batch_chunk_size < 1:
            raise ValueError(f"batch_chunk_size must be positive, got {self.batch_chunk_size}")

    def chunk_rows(self, in_features: int) -> int:
        if self.batch_chunk_size is not None:
            return self.batch_chunk_size
        factor = 2.0
        if self.chunking_method not in (None, "auto"):
            factor = float(self.chunking_method.partition(":")[2])
        return max(1, int(factor * in_features))


def _nb():
    import nabla
    return nabla


def _check(input: Tensor, linear_weight: Tensor, linear_bias, target: Tensor, ignore_index):
    """(logits shape, out_features, whether target holds probabilities), with torch's errors."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    batches = tuple(input.shape[:-1])
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*batches, num_classes, *out_features)
    probabilities = tuple(target.shape) == logits_shape
    if probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    return logits_shape, out_features, probabilities


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options):
    """The loss over chunks of rows, each checkpointed: only one chunk's logits live at a time."""
    nb = _nb()
    F = nb.nn.functional
    from ..utils.checkpoint import checkpoint
    unbatched = input.dim() == 1
    if unbatched:
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    rows = options.chunk_rows(input.shape[-1])
    acc = options.acc_dtype

    def chunk_loss(x, t, w, b):
        if acc is not None:
            x, w, b = x.to(acc), w.to(acc), None if b is None else b.to(acc)
        return F.cross_entropy(F.linear(x, w, b), t, weight=weight, ignore_index=ignore_index,
                               reduction="none" if reduction == "none" else "sum")

    parts = [checkpoint(chunk_loss, input[i:i + rows], target[i:i + rows], linear_weight, linear_bias,
                        use_reentrant=False) for i in range(0, input.shape[0], rows)]
    if reduction == "none":
        out = nb.cat(parts) if parts else input.new_zeros(0)
        out = out.to(input.dtype)
        return out.squeeze(0) if unbatched else out
    total = nb.stack(parts).sum() if parts else input.new_zeros(())
    if reduction == "sum":
        return total.to(input.dtype)
    kept = target != ignore_index
    count = (weight[target.clamp(0, weight.shape[0] - 1)] * kept).sum() if weight is not None else kept.sum()
    return (total / count).to(input.dtype)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *, linear_bias: Tensor | None = None,
                         weight: Tensor | None = None, reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: LinearCrossEntropyOptions | None = None) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...); linear_weight may be
    [C, d1, ..., dK, in_features] for a K-dimensional loss (logits [N, C, d1, ..., dK])."""
    nb = _nb()
    F = nb.nn.functional
    logits_shape, out_features, _ = _check(input, linear_weight, linear_bias, target, ignore_index)
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        if (out_features or reduction not in {"mean", "sum", "none"} or label_smoothing != 0.0
                or target.dtype != nb.int64):
            warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                          "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). "
                          f"Got reduction={reduction!r}, label_smoothing={label_smoothing}, "
                          f"target.dtype={target.dtype}, out_features={out_features}.", stacklevel=2)
        else:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
    if out_features:
        rows = math.prod(out_features, start=linear_weight.shape[0])
        linear_weight = linear_weight.reshape(rows, input.shape[-1])
        linear_bias = None if linear_bias is None else linear_bias.reshape(rows)
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                           label_smoothing=label_smoothing)
