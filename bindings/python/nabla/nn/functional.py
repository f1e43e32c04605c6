"""nabla.nn.functional: activation functions with PyTorch's signatures; convolutions,
pooling, normalization, losses and pad come from _functional_nn.py, embedding,
multi_head_attention_forward, softmax & co., the margin losses, unfold / fold, grid_sample and
embedding_bag from the other _functional_* files."""
from __future__ import annotations

from .._tensor import _checked as _wrap
from .._lib import error, ffi, lib
from .._linalg import linear  # defined with the linear-algebra family
from .._random import functional_dropout as dropout  # defined with the random family
from .._tensor import Tensor, _call
from .._unary import relu as _relu, sigmoid, silu as _silu, tanh
from ._functional_nn import *  # noqa: F401,F403 - conv2d, max_pool2d, layer_norm, cross_entropy, ...
from ._functional_nn import __all__ as _nn_all
from ._functional_layers import *  # noqa: F401,F403 - softmax, log_softmax, softmin, logsigmoid
from ._functional_layers import __all__ as _layers_all
from ._functional_embedding import embedding  # noqa: F401
from ._functional_extra import *  # noqa: F401,F403 - normalize, interpolate, rms_norm, dropout2d, hardtanh, ...
from ._functional_extra import __all__ as _extra_all
from ._functional_losses import *  # noqa: F401,F403 - margin, embedding and likelihood losses
from ._functional_losses import __all__ as _losses_all
from ._functional_ctc import ctc_loss  # noqa: F401
from ._functional_3d import *  # noqa: F401,F403 - conv3d, max_pool3d, avg_pool3d, adaptive_{avg,max}_pool3d
from ._functional_3d import __all__ as _volumetric_all
from ._functional_activations import *  # noqa: F401,F403 - hardshrink, prelu, rrelu, gumbel_softmax, elu_, ...
from ._functional_activations import __all__ as _activations_all
from ._functional_spatial import *  # noqa: F401,F403 - unfold, fold, grid_sample, conv_transpose1d, max_unpool2d, ...
from ._functional_spatial import __all__ as _spatial_all
from ._functional_embedding_bag import embedding_bag  # noqa: F401
from ._functional_linear_xent import linear_cross_entropy  # noqa: F401
from ._functional_pool_extra import *  # noqa: F401,F403 - max_unpool3d, lp_pool3d, fractional_max_pool2d/3d
from ._functional_pool_extra import __all__ as _pool_extra_all
from ._functional_attention import multi_head_attention_forward, _canonical_mask, _none_or_dtype  # noqa: F401

_NULL = ffi.NULL

__all__ = ["relu", "gelu", "silu", "softplus", "leaky_relu", "elu", "sigmoid", "tanh", "dropout", "one_hot", "linear",
           "embedding", "embedding_bag", "linear_cross_entropy", "multi_head_attention_forward"]
__all__ += _nn_all + _layers_all + _extra_all
__all__ += _losses_all + ["ctc_loss"] + _volumetric_all + _activations_all + _spatial_all + _pool_extra_all


def _apply(twin, raw, input: Tensor, args: tuple, inplace: bool) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"expected a Tensor, got {type(input).__name__}")
    if not inplace:
        return _wrap(twin(input._h, *args, _NULL))
    status = raw(input._h, *args, input._h, _NULL)
    if status:
        raise error(status)
    return input


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0)."""
    return input.relu_() if inplace else _relu(input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """input * sigmoid(input)."""
    return input.silu_() if inplace else _silu(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """input * Phi(input); approximate='tanh' uses the tanh formula."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got {approximate!r}")
    return _apply(lib.nbpy_gelu, lib.nb_gelu, input, (1 if approximate == "tanh" else 0,), False)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * input)) / beta, linear above threshold."""
    return _apply(lib.nbpy_softplus, lib.nb_softplus, input, (float(beta), float(threshold)), False)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """input if input > 0 else negative_slope * input."""
    return _apply(lib.nbpy_leaky_relu, lib.nb_leaky_relu, input, (float(negative_slope),), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """input if input > 0 else alpha * (exp(input) - 1)."""
    return _apply(lib.nbpy_elu, lib.nb_elu, input, (float(alpha),), inplace)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding of int64 class values: shape tensor.shape + (num_classes,); -1 infers max + 1."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"one_hot(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return _call(lib.nbpy_one_hot, tensor._h, int(num_classes))


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(query @ key^T * scale + mask) @ value; query [..., L, E], key [..., S, E], value [..., S, Ev]."""
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention: enable_gqa is not supported yet")
    mask = ffi.NULL if attn_mask is None else attn_mask._h
    return _wrap(lib.nbpy_scaled_dot_product_attention(query._h, key._h, value._h, mask, float(dropout_p),
                                                       1 if is_causal else 0,
                                                       float("nan") if scale is None else float(scale), ffi.NULL))


__all__.append("scaled_dot_product_attention")
