"""nabla.backends.cuda: torch.backends.cuda's switches. matmul.allow_tf32 mirrors
nabla.get_float32_matmul_precision() as in PyTorch ('highest' <-> False); the
scaled-dot-product switches are recorded for scripts that read them back."""
from __future__ import annotations

import contextlib

from .. import _precision


def is_built() -> bool:
    """Whether this nabla was built with its CUDA plugin."""
    from .. import cuda
    return "could not be loaded" not in cuda.unavailable_reason()


class _Matmul:
    """torch.backends.cuda.matmul: allow_tf32 and the reduced-precision reduction switches."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        return _precision.get() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        _precision.set("high" if value else "highest")

    def __setattr__(self, name: str, value) -> None:
        if not hasattr(type(self), name):
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = _Matmul()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switch(kind: str):
    """The pair (<kind>_sdp_enabled, enable_<kind>_sdp) over one entry of _sdp."""
    def enabled() -> bool:
        return _sdp[kind]

    def enable(value: bool) -> None:
        _sdp[kind] = bool(value)

    enabled.__name__, enable.__name__ = f"{kind}_sdp_enabled", f"enable_{kind}_sdp"
    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """Sets the four switches inside the block and restores them after."""
    saved = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient, cudnn=enable_cudnn)
    try:
        yield
    finally:
        _sdp.update(saved)
