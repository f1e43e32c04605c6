"""nabla.utils: data loading (nabla.utils.data), DLPack helpers (nabla.utils.dlpack) and activation
checkpointing (nabla.utils.checkpoint), hook handles (nabla.utils.hooks)."""
from . import checkpoint, data, dlpack, hooks  # noqa: F401
