"""Runs every benchmark: nabla beside PyTorch and NumPy in one process.

    python bench/run.py            # all
    python bench/run.py tensor     # only bench_tensor.py
"""
from __future__ import annotations

import importlib
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SUITES = ["tensor", "elementwise", "random", "nn", "reduce", "linalg", "gemm", "autograd", "train", "interop", "profiler", "amp"]


def main(argv: list[str]) -> int:
    import numpy
    import nabla
    from harness import try_import
    torch = try_import("torch")
    print(f"# nabla {nabla.__version__} benchmarks")
    print(f"python {platform.python_version()}, numpy {numpy.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed'}, {platform.machine()}")
    for name in argv[1:] or SUITES:
        importlib.import_module(f"bench_{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
