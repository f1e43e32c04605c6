"""nabla.backends.cpu: the CPU's capability string, as torch.backends.cpu."""
from __future__ import annotations


def get_cpu_capability() -> str:
    """The widest vector ISA nabla's CPU kernels may use ('AVX2', 'AVX512' or 'DEFAULT')."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        return "DEFAULT"
    if " avx512f" in flags:
        return "AVX512"
    return "AVX2" if " avx2" in flags else "DEFAULT"
