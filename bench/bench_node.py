"""Host overhead of the Node.js binding (koffi) beside the Python one (cffi) and PyTorch, in
one run: small ops where the call, not the kernel, is the cost.

    python bench/bench_node.py        (needs node and `npm ci` in bindings/node)
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N = 200_000

# Each workload releases what it makes at once: dispose() in JavaScript, refcounting in Python.
JS = r"""
const nb = require(process.argv[1]);
const a = nb.ones(8), b = nb.ones(8), s = nb.tensor(1.5), x = nb.zeros(8);
const raw = nb.native.fn, slot = new BigUint64Array(1), ah = a.handle, bh = b.handle;
const work = {
  'zeros(8)': () => nb.zeros(8).dispose(),
  'a + b, 8 elements': () => a.add(b).dispose(),
  'a + b, raw nb_add': () => { raw.nb_add(ah, bh, 1, null, slot); raw.nb_tensor_release(slot[0]); },
  'x.view(8)': () => x.view(8).dispose(),
  's.item()': () => s.item(),
};
const out = {};
for (const [name, f] of Object.entries(work)) {
  for (let i = 0; i < 20000; i++) f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < %N%; i++) f();
  out[name] = Number(process.hrtime.bigint() - t) / %N% / 1000;
}
console.log(JSON.stringify(out));
"""


def node_times() -> dict:
    env = {**os.environ, "NABLA_PYTHON": sys.executable}
    r = subprocess.run(["node", "-e", JS.replace("%N%", str(N)), str(ROOT / "bindings" / "node")],
                       capture_output=True, text=True, check=True, env=env)
    return json.loads(r.stdout)


def python_times(mod) -> dict:
    a, b, s, x = mod.ones(8), mod.ones(8), mod.tensor(1.5), mod.zeros(8)
    work = {"zeros(8)": lambda: mod.zeros(8), "a + b, 8 elements": lambda: a + b, "x.view(8)": lambda: x.view(8),
            "s.item()": lambda: s.item()}
    return {k: min(timeit.repeat(f, number=N // 4, repeat=3)) / (N // 4) * 1e6 for k, f in work.items()}


def main() -> None:
    if shutil.which("node") is None:
        print("node is not installed")
        return
    import nabla
    js, py = node_times(), python_times(nabla)
    try:
        import torch
        pt = python_times(torch)
    except ImportError:
        pt = {}
    print(f"{'workload':<22} {'node':>9} {'python':>9} {'torch':>9}   (µs per call)")
    for k, v in js.items():
        print(f"{k:<22} {v:9.2f} {py.get(k, float('nan')):9.2f} {pt.get(k, float('nan')):9.2f}")


if __name__ == "__main__":
    main()
