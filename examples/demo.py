"""A first look at nabla: tensors from Python, then a C program built against
the installed library. Run: python examples/demo.py"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import nabla as nb
from nabla import config

ROOT = Path(__file__).resolve().parent.parent


def python_tour() -> None:
    print(f"nabla {nb.__version__}; BLAS: {nb._ffi.string(nb._lib.nb_blas_info()).decode()[:60]}...")
    x = nb.arange(12, dtype=nb.float32).reshape(3, 4)
    print("x =", x)
    print("x.shape:", x.shape, " x.stride():", x.stride(), " x.dtype:", x.dtype)
    print("x.T (a view, no copy) =", x.T)
    print("x[1:, ::2] =", x[1:, ::2])
    x[0] = nb.tensor([10.0, 20.0, 30.0, 40.0])  # writes through to x's storage
    print("after x[0] = [...]: x[0] =", x[0])
    print("x.half() =", x.half())
    print("nb.linspace(0, 1, 5) =", nb.linspace(0, 1, 5))
    print("nb.eye(3, dtype=nb.int32) =", nb.eye(3, dtype=nb.int32))
    try:
        x.view(5)
    except RuntimeError as e:  # errors carry the C library's message
        print("x.view(5) raised RuntimeError:", e)
    print("CUDA available:", nb.cuda.is_available(),
          "" if nb.cuda.is_available() else f"({nb.cuda.unavailable_reason()})")
    stats = nb.memory.stats()
    print(f"allocator: {stats['live_tensors']} live tensors, {stats['allocated_bytes']} bytes in use")


def c_tour() -> None:
    src = ROOT / "bindings" / "c_examples" / "hello_tensor.c"
    flags = subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"],
                           capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "hello_tensor"
        cmd = ["cc", "-std=c11", str(src), *flags, "-o", str(exe)]
        print("\n$", " ".join(["cc", "-std=c11", "bindings/c_examples/hello_tensor.c",
                                "$(python -m nabla.config --cflags --libs)", "-o", "hello_tensor"]))
        subprocess.run(cmd, check=True)
        print("$ ./hello_tensor")
        sys.stdout.flush()
        subprocess.run([str(exe)], check=True)


if __name__ == "__main__":
    python_tour()
    c_tour()
    print(f"\n(headers in {config.INCLUDE_DIR}, library in {config.LIB_DIR})")
