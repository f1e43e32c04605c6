"""nn.functional.embedding: the lookup is one C op; max_norm renormalises the
referenced rows of weight in place first (PyTorch's embedding_renorm_), and
scale_grad_by_freq divides each row's gradient by how often the row occurs in
the batch (embedding_dense_backward's flag, one fused kernel on CUDA).
Re-exported by functional.py."""
from __future__ import annotations

from .._unique import unique as _unique
from .._dtype import float64, int32, int64
from .._unary import where
from .._lib import ffi, lib
from .._tensor import Tensor, _call
from ..autograd.function import Function
from ._functional_nn import _int, _tensor
from ._grad_mode import no_grad

__all__ = ["embedding"]


def _padding_index(padding_idx, weight: Tensor) -> int:
    """padding_idx as a row number, or -1 for none."""
    if padding_idx is None:
        return -1
    padding_idx = _int(padding_idx, "embedding", "padding_idx")
    rows = weight.shape[0] if weight.dim() > 0 else 0
    if padding_idx > 0 and padding_idx >= rows or padding_idx < -rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return rows + padding_idx if padding_idx < 0 else padding_idx


def _renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """Scales every row of weight that input references and whose norm_type-norm exceeds max_norm down to
    max_norm / (norm + 1e-7) of itself, in place and outside autograd."""
    if input.dtype not in (int64, int32):
        raise RuntimeError(f"embedding: expected indices of dtype int64 or int32, but got {input.dtype.name}")
    if weight.dim() != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D, but got weight of size {list(weight.shape)}")
    if input.numel() == 0:
        return
    with no_grad():
        idx = _unique(input.reshape(-1).long())  # sorted: the ends are the extremes
        lo, hi = int(idx[0].item()), int(idx[-1].item())
        for bad in (lo, hi):
            if not 0 <= bad < weight.shape[0]:
                raise IndexError(f"embedding: index out of range in self (index {bad}, num_embeddings "
                                 f"{weight.shape[0]})")
        rows = weight.index_select(0, idx)
        norms = rows.norm(p=norm_type, dim=1, keepdim=True).to(float64)
        over = norms > max_norm
        if bool(over.any().item()):
            scale = where(over, max_norm / (norms + 1e-7), 1.0).to(weight.dtype)
            weight.index_put_((idx,), rows * scale)


class _FrequencyScaled(Function):
    """embedding whose weight gradient divides each row's terms by the row's count in input
    (embedding_dense_backward with scale_grad_by_freq: one fused kernel on CUDA)."""

    @staticmethod
    def forward(ctx, weight, input, pad):
        ctx.save_for_backward(input)
        ctx.rows, ctx.pad = weight.shape[0], pad
        return _call(lib.nbpy_embedding, weight._h, input._h, pad, ffi.NULL)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return _call(lib.nbpy_embedding_dense_backward, grad._h, input._h, ctx.rows, ctx.pad, 1, ffi.NULL), None, None


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of weight at the integer indices in input: shape input.shape + [embedding_dim]. The padding_idx row
    gets no gradient; max_norm renormalises the referenced rows in place first; scale_grad_by_freq divides the
    gradient of each row by its number of occurrences in input. sparse is accepted, but the gradient is dense
    (nabla has no sparse tensors)."""
    f = "embedding"
    _tensor(input, f, "input", 1), _tensor(weight, f, "weight", 2)
    pad = _padding_index(padding_idx, weight)
    if max_norm is not None:
        _renorm_(weight, input.contiguous(), float(max_norm), float(norm_type))
    if scale_grad_by_freq and weight.requires_grad:
        return _FrequencyScaled.apply(weight, input, pad)
    return _call(lib.nbpy_embedding, weight._h, input._h, pad, ffi.NULL)
