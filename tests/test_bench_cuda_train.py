"""The GPU training benchmark (bench/bench_cuda_train.py) at tiny sizes on whatever CUDA
device is present (the emulated one in CI): every workload trains, and after the
warm-up steps the caching allocator serves every allocation."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import nabla

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_cuda_train.py"


def test_cuda_training_bench_runs_every_workload():
    if not nabla.cuda.is_available():
        pytest.skip(f"no CUDA device: {nabla.cuda.unavailable_reason()}")
    result = subprocess.run([sys.executable, str(BENCH), "--smoke"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "failed" not in result.stdout, result.stdout
    rows = re.findall(r"^  nabla +(\d+) \S+/s .* driver allocations after warm-up (\d+)$", result.stdout, re.M)
    assert len(rows) == 4, result.stdout
    assert all(int(throughput) > 0 and allocs == "0" for throughput, allocs in rows), result.stdout


def test_cuda_training_bench_says_when_there_is_no_device():
    if nabla.cuda.is_available():
        pytest.skip("a CUDA device is present")
    result = subprocess.run([sys.executable, str(BENCH), "--smoke"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("no CUDA device"), result.stdout + result.stderr
