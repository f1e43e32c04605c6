"""nabla.nn.utils: gradient clipping, rnn (packing and padding sequences), weight / spectral norm, fusion, skip_init."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm  # noqa: F401
from . import rnn  # noqa: F401
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401
clip_grad_norm = clip_grad_norm_  # PyTorch's deprecated spelling
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401
from .init_utils import skip_init, convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: F401
