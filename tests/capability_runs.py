"""Runs a script under each NABLA_CPU_CAPABILITY level, for tests that the multi-versioned CPU
kernels (AVX-512, AVX2, the portable loops) agree."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

LEVELS = ("avx512", "avx2", "default")


def arrays_per_level(script: str, levels=LEVELS) -> dict[str, list[np.ndarray]]:
    """script saves its results with np.savez(sys.argv[1], *arrays); returns them in order, per level."""
    res = {}
    for level in levels:
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"nabla_capability_{os.getpid()}_{level}.npz")
        env = dict(os.environ, NABLA_CPU_CAPABILITY=level)
        subprocess.run([sys.executable, "-c", script, path], env=env, check=True, timeout=120)
        with np.load(path) as f:
            res[level] = [f[k] for k in sorted(f.files, key=lambda s: int(s.split("_")[1]))]
        os.remove(path)
    return res
