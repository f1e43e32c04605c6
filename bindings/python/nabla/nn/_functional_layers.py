"""nn.functional: softmax and log_softmax with PyTorch's implicit-dim rule, and
multi_head_attention_forward (composed from linear, scaled_dot_product_attention
or an explicit softmax when the weights are wanted). Re-exported by functional.py."""
from __future__ import annotations

import math
import warnings

from .. import _reduce
from .._tensor import Tensor
from .._linalg import linear
from .._random import functional_dropout as _dropout

__all__ = ["softmax", "log_softmax", "softmin", "logsigmoid", "multi_head_attention_forward"]


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _reduce.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _reduce.log_softmax(input, dim, dtype=dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-x) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return _reduce.softmax(-input, dim, dtype=dtype)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    from .functional import softplus
    return -softplus(-input)


def _float_mask(mask: Tensor | None, dtype, name: str) -> Tensor | None:
    """A bool mask (True: not allowed) as an additive float mask; float masks pass through."""
    if mask is None:
        return None
    if mask.is_floating_point():
        return mask
    from .._dtype import bool_
    if mask.dtype != bool_:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    from .._factory import zeros
    return zeros(mask.shape, dtype=dtype).masked_fill_(mask, float("-inf"))


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k, bias_v,
                                 add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
                                 out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """Multi-head attention on query [L, N, E], key [S, N, Ek], value [S, N, Ev] (or unbatched [L, E]):
    (output [L, N, E], weights [N, L, S] averaged over heads, or [N, heads, L, S], or None)."""
    if bias_k is not None or bias_v is not None or add_zero_attn or static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: bias_k/bias_v, add_zero_attn and static_k/v are "
                                  "not supported yet")
    unbatched = query.dim() == 2
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                             "tensor")
    if key.dim() != query.dim() or value.dim() != query.dim():
        raise AssertionError(f"For {'unbatched (2-D)' if unbatched else 'batched (3-D)'} `query`, expected `key` and "
                             f"`value` to be {query.dim()}-D but found {key.dim()}-D and {value.dim()}-D tensors "
                             "respectively")
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S = key.shape[0]
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    H = num_heads
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    # projections: [T, N, E] -> [N, H, T, hd]
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q, k, v = linear(query, q_proj_weight, bq), linear(key, k_proj_weight, bk), linear(value, v_proj_weight, bv)
    elif query is key and key is value:
        q, k, v = linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        wq, wk, wv = in_proj_weight.chunk(3)
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = in_proj_bias.chunk(3)
        q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    q = q.reshape(L, N, H, hd).permute(1, 2, 0, 3)
    k = k.reshape(S, N, H, hd).permute(1, 2, 0, 3)
    v = v.reshape(S, N, H, hd).permute(1, 2, 0, 3)
    # masks: one additive float mask broadcast to [N, H, L, S]
    mask = _float_mask(attn_mask, q.dtype, "attn_mask")
    if mask is not None:
        if mask.dim() == 2:
            if tuple(mask.shape) != (L, S):
                raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should be {(L, S)}.")
        elif mask.dim() == 3:
            if tuple(mask.shape) != (N * H, L, S):
                raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be {(N * H, L, S)}.")
            mask = mask.reshape(N, H, L, S)
        else:
            raise RuntimeError(f"attn_mask's dimension {mask.dim()} is not supported")
    kpm = _float_mask(key_padding_mask, q.dtype, "key_padding_mask")
    if kpm is not None:
        if tuple(kpm.shape) != (N, S):
            raise AssertionError(f"expecting key_padding_mask shape of {(N, S)}, but got {kpm.shape}")
        kpm = kpm.reshape(N, 1, 1, S)
        mask = kpm if mask is None else mask + kpm
    p = dropout_p if training else 0.0
    if need_weights:
        scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        if mask is not None:
            scores = scores + mask
        weights = _reduce.softmax(scores, -1)
        if p > 0.0:
            weights = _dropout(weights, p, True)
        out = weights.matmul(v)
        weights = weights.mean(1) if average_attn_weights else weights
    else:
        from .functional import scaled_dot_product_attention
        out = scaled_dot_product_attention(q, k, v, mask, p, False)
        weights = None
    out = linear(out.permute(2, 0, 1, 3).reshape(L, N, E), out_proj_weight, out_proj_bias)
    if unbatched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights
