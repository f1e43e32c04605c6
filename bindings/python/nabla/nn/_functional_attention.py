"""nn.functional.multi_head_attention_forward and the mask helpers it shares with
MultiheadAttention and the transformer layers. Follows PyTorch's reference path:
projections (packed or separate weights), bias_k / bias_v, static keys and
values, add_zero_attn, one additive float mask [N * heads, L, S], then either an
explicit softmax (when the weights are wanted) or scaled_dot_product_attention."""
from __future__ import annotations

import math
import warnings

from .. import _factory, _reduce, _shape
from .._dtype import bool_
from .._linalg import baddbmm, bmm, linear
from .._random import functional_dropout as _dropout
from .._tensor import Tensor

__all__ = ["multi_head_attention_forward"]


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True) -> Tensor | None:
    """A bool mask (True: not allowed) as an additive float mask of target_type; float masks pass through.
    Warns, as PyTorch does, when the mask's dtype differs from the other mask's."""
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != bool_ and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not is_float:
        mask = _factory.zeros(mask.shape, dtype=target_type, device=mask.device).masked_fill_(mask, float("-inf"))
    return mask


def _none_or_dtype(t: Tensor | None):
    if t is None:
        return None
    if isinstance(t, Tensor):
        return t.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads: int) -> bool:
    """Whether the inputs are batched; PyTorch's messages for inconsistent ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    """Separate projections (kdim / vdim may differ from embed_dim), shapes checked as PyTorch does."""
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection_packed(q, k, v, w, b):
    """Projections through the packed [3E, E] weight: one product for self-attention, two when key is value."""
    E = q.shape[-1]
    if k is v:
        if q is k:
            return linear(q, w, b).chunk(3, -1)
        w_q, w_kv = w.split([E, 2 * E])
        b_q, b_kv = (None, None) if b is None else b.split([E, 2 * E])
        return (linear(q, w_q, b_q), *linear(k, w_kv, b_kv).chunk(2, -1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _pad_last(mask: Tensor | None) -> Tensor | None:
    """One more (allowed) key column for a float mask."""
    if mask is None:
        return None
    return _shape.cat([mask, mask.new_zeros(*mask.shape[:-1], 1)], -1)


def _static(t: Tensor, name: str, bh: int, head_dim: int) -> Tensor:
    if t.shape[0] != bh:
        raise AssertionError(f"expecting {name}.size(0) of {bh}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def _project(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight, q_proj_weight,
             k_proj_weight, v_proj_weight):
    """(q, k, v) projected by the packed in_proj_weight or the separate q / k / v weights."""
    if not use_separate_proj_weight:
        if key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        return _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                             f"{value.shape[:2]}")
    for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                    ("v_proj_weight", v_proj_weight)):
        if w is None:
            raise AssertionError(f"use_separate_proj_weight is True but {name} is None")
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    return _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)


def _check_attn_mask(attn_mask: Tensor, L: int, S: int, bh: int) -> Tensor:
    """attn_mask as [1 or N * heads, L, S]."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (L, S):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(L, S)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bh, L, S):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be {(bh, L, S)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None, training: bool = True,
                                 key_padding_mask: Tensor | None = None, need_weights: bool = True,
                                 attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
                                 static_v: Tensor | None = None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Multi-head attention on query [L, N, E], key [S, N, Ek], value [S, N, Ev] (or unbatched [L, E]):
    (output [L, N, E], weights [N, L, S] averaged over heads, or [N, heads, L, S], or None).
    attn_mask [L, S] or [N * heads, L, S] and key_padding_mask [N, S] are bool (True: not allowed) or float
    (added to the scores); static_k / static_v [N * heads, S, E / heads] replace the projected keys / values."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone drives scaled_dot_product_attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    H = num_heads
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, use_separate_proj_weight,
                       q_proj_weight, k_proj_weight, v_proj_weight)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, L, S, N * H)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = _shape.cat([k, bias_k.repeat(1, N, 1)])
        v = _shape.cat([v, bias_v.repeat(1, N, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    # heads into the batch: [T, N, E] -> [N * H, T, hd]
    q = q.reshape(L, N * H, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * H, hd).transpose(0, 1) if static_k is None else _static(static_k, "static_k",
                                                                                           N * H, hd)
    v = v.reshape(v.shape[0], N * H, hd).transpose(0, 1) if static_v is None else _static(static_v, "static_v",
                                                                                           N * H, hd)
    if add_zero_attn:
        k = _shape.cat([k, k.new_zeros(N * H, 1, hd)], 1)
        v = _shape.cat([v, v.new_zeros(N * H, 1, hd)], 1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    S = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != N:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {N}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != S:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {S}, but got {key_padding_mask.shape[1]}")
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    p = dropout_p if training else 0.0
    if need_weights:
        scores = (bmm(q * math.sqrt(1.0 / hd), k.transpose(-2, -1)) if attn_mask is None
                  else baddbmm(attn_mask, q * math.sqrt(1.0 / hd), k.transpose(-2, -1)))
        weights = _reduce.softmax(scores, -1)
        if p > 0.0:
            weights = _dropout(weights, p)
        out = bmm(weights, v)
        weights = weights.reshape(N, H, L, S)
        if average_attn_weights:
            weights = weights.mean(1)
    else:
        from .functional import scaled_dot_product_attention
        if attn_mask is not None:
            attn_mask = (attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1
                         else attn_mask.reshape(N, H, attn_mask.shape[1], S))
        out = scaled_dot_product_attention(q.reshape(N, H, L, hd), k.reshape(N, H, S, hd), v.reshape(N, H, S, hd),
                                           attn_mask, p, is_causal)
        out = out.reshape(N * H, L, hd)
        weights = None
    out = linear(out.transpose(0, 1).reshape(L, N, E), out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights
