"""ReduceOp.PREMUL_SUM (torch.distributed._make_nccl_premul_sum): every rank's tensor is multiplied by a factor,
then the group sums. As NCCL's, the factor is first converted to the tensor's dtype and the product is taken in
that dtype (float16/bfloat16 rounded once); the sum is then the backend's SUM. nabla does it in front of the
collective, so both engines (MPI and NCCL) and every dtype get it: floating dtypes with any factor, integer
dtypes with an integral one (exact, wrapping as the dtype does); bool is refused."""
from __future__ import annotations

PREMUL_SUM = 8  # RedOpType.PREMUL_SUM, NB_REDUCE_OP_* numbering
SUM = 0


class PremulSumOp:
    """A ReduceOp of kind PREMUL_SUM with its factor (a Python number or a one-element tensor)."""

    __slots__ = ("factor",)

    def __init__(self, factor) -> None:
        if not hasattr(factor, "numel") and not isinstance(factor, (int, float)) or isinstance(factor, bool):
            raise TypeError(f"_make_nccl_premul_sum: factor must be a float or a one-element tensor, "
                            f"got {type(factor).__name__}")
        if hasattr(factor, "numel") and factor.numel() != 1:
            raise ValueError(f"_make_nccl_premul_sum: a tensor factor must have one element, got {factor.numel()}")
        self.factor = factor

    @property
    def op(self) -> int:
        return PREMUL_SUM

    def __int__(self) -> int:
        return PREMUL_SUM

    def __index__(self) -> int:
        return PREMUL_SUM

    def __eq__(self, other) -> bool:
        try:
            return int(other) == PREMUL_SUM
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:
        return hash(PREMUL_SUM)

    def __repr__(self) -> str:
        return f"ReduceOp.PREMUL_SUM(factor={self.factor!r})"


def _make_nccl_premul_sum(factor) -> PremulSumOp:
    """ReduceOp.PREMUL_SUM with factor: all_reduce, reduce and reduce_scatter sum factor * tensor over the ranks."""
    return PremulSumOp(factor)


def factor_for(op: PremulSumOp, tensor):
    """op's factor as a 0-dim tensor of tensor's dtype and device (an integral value for integer dtypes)."""
    from .. import bool as nb_bool, tensor as new_tensor
    dtype = tensor.dtype
    if dtype == nb_bool:
        raise TypeError("ReduceOp.PREMUL_SUM: bool tensors have no product with a factor; use SUM")
    f = op.factor
    if not dtype.is_floating_point:
        value = float(f.item() if hasattr(f, "item") else f)
        if value != int(value):
            raise TypeError(f"ReduceOp.PREMUL_SUM of a {str(dtype).split('.')[-1]} tensor needs an integral "
                            f"factor, got {value}")
    if hasattr(f, "numel"):
        return f.reshape(()).to(device=tensor.device, dtype=dtype)
    return new_tensor(f, dtype=dtype, device=tensor.device)


def is_premul(op) -> bool:
    return isinstance(op, PremulSumOp)
