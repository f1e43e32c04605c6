"""nabla.utils: data loading (nabla.utils.data), DLPack helpers (nabla.utils.dlpack) and activation
checkpointing (nabla.utils.checkpoint)."""
from . import checkpoint, data, dlpack  # noqa: F401
