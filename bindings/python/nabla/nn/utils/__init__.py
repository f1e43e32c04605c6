"""nabla.nn.utils: gradient clipping, and rnn (packing and padding sequences)."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from . import rnn  # noqa: F401
