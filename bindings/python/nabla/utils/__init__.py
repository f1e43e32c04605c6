"""nabla.utils: data loading (nabla.utils.data) and DLPack helpers (nabla.utils.dlpack)."""
from . import data, dlpack  # noqa: F401
