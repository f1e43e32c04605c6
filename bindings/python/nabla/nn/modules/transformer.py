"""TransformerEncoderLayer and TransformerEncoder (post-norm by default, pre-norm
with norm_first), and the helpers the decoder shares: clones, the activation by
name, the causal mask and its detection."""
from __future__ import annotations

import copy
import warnings
from typing import Callable

from ... import _factory
from ..._tensor import Tensor
from .. import functional as F
from ...autograd import is_grad_enabled
from .activation import GELU, MultiheadAttention, ReLU
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["TransformerEncoderLayer", "TransformerEncoder"]


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
    """A float [sz, sz] causal mask: -inf above the diagonal, 0 elsewhere."""
    return _factory.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_activation_fn(activation: str) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_seq_len(src: Tensor, batch_first: bool) -> int:
    return src.shape[0] if src.dim() == 2 else src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask: Tensor | None, is_causal: bool | None = None, size: int | None = None) -> bool:
    """is_causal when given; otherwise whether mask is exactly the causal mask of size (PyTorch's detection)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = mask.shape == causal.shape and bool((mask == causal).all().item())
    return make_causal


def _add_blocks(layer: Module, d_model: int, dim_feedforward: int, dropout: float, activation, layer_norm_eps: float,
                norm_first: bool, bias: bool, blocks: int, kw: dict) -> None:
    """The feed-forward block and, for each of the layer's `blocks` residual blocks, a LayerNorm and a Dropout
    (norm1.., dropout1..), registered in PyTorch's order; activation as a callable."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
    layer.norm_first = norm_first
    for i in range(1, blocks + 1):
        setattr(layer, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
    for i in range(1, blocks + 1):
        setattr(layer, f"dropout{i}", Dropout(dropout))
    layer.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation


def _feed_forward(layer: Module, x: Tensor, out_dropout: Dropout) -> Tensor:
    return out_dropout(layer.linear2(layer.dropout(layer.activation(layer.linear1(x)))))


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and LayerNorm
    (after each block, or before it with norm_first). src [S, N, E] ([N, S, E] with batch_first, or [S, E]).
    activation is 'relu', 'gelu' or a callable."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, bias: bool = True, device=None,
                 dtype=None) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        _add_blocks(self, d_model, dim_feedforward, dropout, activation, layer_norm_eps, norm_first, bias, 2, kw)
        if self.activation is F.relu or isinstance(self.activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif self.activation is F.gelu or isinstance(self.activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = F._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask, key_padding_mask, is_causal: bool = False) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return _feed_forward(self, x, self.dropout2)


def _why_not_nested(layer) -> str:
    """PyTorch's reason for not using nested tensors with this encoder layer ('' when it would)."""
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if not layer.self_attn._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then an optional norm.

    Where PyTorch would run on nested tensors (use_nested_tensor, evaluation without gradients, batched input,
    a left-aligned src_key_padding_mask and no mask), the padded positions of the output are zeros before the
    final norm, as PyTorch's nested path leaves them; everything else is computed the same way."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_not_nested(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        src_key_padding_mask = F._canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                                 F._none_or_dtype(mask), "mask", src.dtype)
        mask = F._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        zero_padding = self._nested_path(src, mask, src_key_padding_mask)
        first = self.layers[0]
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, first.self_attn.batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if zero_padding:
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1) != 0, 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _nested_path(self, src: Tensor, mask, key_padding_mask) -> bool:
        """Whether PyTorch would take its nested-tensor path for these arguments."""
        first = self.layers[0]
        if (not getattr(self, "use_nested_tensor", False) or first.training or src.dim() != 3
                or key_padding_mask is None or mask is not None):
            return False
        if getattr(self, "mask_check", True):
            valid = (key_padding_mask == 0).long()
            if bool((valid[:, 1:] > valid[:, :-1]).any().item()):  # not left-aligned
                return False
        attn, ff = first.self_attn, (first.linear1, first.linear2, first.norm1, first.norm2)
        args = [src, attn.in_proj_weight, attn.in_proj_bias, attn.out_proj.weight, attn.out_proj.bias]
        args += [p for m in ff for p in (m.weight, m.bias)]
        return not (is_grad_enabled() and any(a is not None and a.requires_grad for a in args))
