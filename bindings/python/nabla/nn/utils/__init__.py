"""nabla.nn.utils: gradient clipping."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
