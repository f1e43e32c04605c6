"""Runs the PyTorch programs in examples/dropin with torch and, with only their import lines
rewritten (`import torch...` -> `import nabla...`), with nabla; prints both outputs."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "dropin"


def swap_imports(source: str) -> str:
    """Only import statements change: `import torch`, `import torch.x as y`, `from torch.x import y`."""
    source = re.sub(r"^import torch$", "import nabla as torch", source, flags=re.M)
    source = re.sub(r"^import torch(\.\S+) as (\w+)$", r"import nabla\1 as \2", source, flags=re.M)
    return re.sub(r"^from torch(\S*) import", r"from nabla\1 import", source, flags=re.M)


def run(path: pathlib.Path, source: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(source)
    r = subprocess.run([sys.executable, f.name], capture_output=True, text=True, cwd=path.parent, timeout=1800)
    return r.stdout + (r.stderr[-2000:] if r.returncode else "")


if __name__ == "__main__":
    for path in sorted(HERE.glob("*.py")) if len(sys.argv) < 2 else [pathlib.Path(a) for a in sys.argv[1:]]:
        source = path.read_text()
        for name, text in (("torch", source), ("nabla", swap_imports(source))):
            print(f"== {path.name} with {name}")
            print(run(path, text), end="")
