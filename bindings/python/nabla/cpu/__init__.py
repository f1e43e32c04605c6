"""nabla.cpu: CPU-specific spellings (nabla.cpu.amp.autocast, as torch.cpu.amp)."""
from ..amp import cpu_amp as amp  # noqa: F401
