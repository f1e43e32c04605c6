"""Communication hooks for DistributedDataParallel.register_comm_hook (torch's ddp_comm_hooks)."""
from . import default_hooks  # noqa: F401
from .default_hooks import (  # noqa: F401
    allreduce_hook, bf16_compress_hook, bf16_compress_wrapper, fp16_compress_hook, fp16_compress_wrapper,
)
