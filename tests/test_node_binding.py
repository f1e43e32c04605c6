"""Runs the Node.js binding's own tests (bindings/node/test, Node's built-in runner) against
the installed libnabla, after installing its npm dependencies from package-lock.json; checks
that the declarations generated from the manifest bind every exported function."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "bindings" / "node"
NODE, NPM = shutil.which("node"), shutil.which("npm")

pytestmark = pytest.mark.skipif(NODE is None or NPM is None, reason="node and npm are not installed")


def _env() -> dict:
    # The binding finds libnabla through this interpreter's `python -m nabla.config`.
    return {**os.environ, "NABLA_PYTHON": sys.executable}


@pytest.fixture(scope="module")
def node_modules():
    """npm ci (clean install from the lockfile), skipped when it is already in place."""
    lock, marker = NODE_DIR / "package-lock.json", NODE_DIR / "node_modules" / ".package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
        subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=NODE_DIR,
                       check=True, capture_output=True, text=True, timeout=300)
    return NODE_DIR / "node_modules"


def test_node_test_suite_passes(node_modules):
    result = subprocess.run([NODE, "--test", "test/"], cwd=NODE_DIR, env=_env(), capture_output=True,
                            text=True, timeout=600)
    tail = "\n".join(result.stdout.splitlines()[-12:])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "# fail 0" in tail and "# pass 0" not in tail, tail


def test_binding_loads_and_reports_its_library(node_modules):
    script = ("const nb = require('.'); const fn = nb.native.fn;"
              "if (require('./lib/native.js').missing.length) throw new Error('missing ' + require('./lib/native.js').missing);"
              "console.log(nb.version, Object.keys(fn).length, nb.native.libraryPath)")
    result = subprocess.run([NODE, "-e", script], cwd=NODE_DIR, env=_env(), capture_output=True, text=True,
                            timeout=120, check=True)
    from nabla._lib import ffi, lib
    version, count, path = result.stdout.split()
    assert version == ffi.string(lib.nb_version_string()).decode()
    sys.path.insert(0, str(ROOT / "abi"))
    import gen
    m = gen.load()
    assert int(count) == len(m["functions"]) + len(m["ops"])
    assert Path(path).name.startswith("libnabla")


def _require_cuda():
    import nabla
    if not nabla.cuda.is_available():
        pytest.skip(f"no CUDA device: {nabla.cuda.unavailable_reason()}")


def test_node_device_tests_run_on_cuda(node_modules):
    """The binding's device tests with a CUDA device present: the CUDA round trip runs, not skips."""
    _require_cuda()
    result = subprocess.run([NODE, "--test", "test/device.test.js"], cwd=NODE_DIR, env=_env(), capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "# fail 0" in result.stdout and "# skipped 1" in result.stdout, result.stdout[-3000:]
    assert "ok 4 - tensors round-trip through the CUDA device\n" in result.stdout


def test_node_mlp_example_trains_on_cuda_as_on_cpu(node_modules):
    """examples/mlp.js on the CUDA device: the CPU's losses, step for step, and the same accuracy."""
    _require_cuda()
    script = ("const { main } = require('./examples/mlp.js'); console.log = () => {};"
              "const r = [main(40, 'cpu'), main(40, 'cuda')].map((x) => ({ losses: x.losses, device: x.device,"
              " test: x.testAccuracy })); process.stdout.write(JSON.stringify(r));")
    result = subprocess.run([NODE, "-e", script], cwd=NODE_DIR, env=_env(), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    import json
    cpu, cuda = json.loads(result.stdout)
    assert (cpu["device"], cuda["device"]) == ("cpu", "cuda")
    assert cuda["losses"].keys() == cpu["losses"].keys() == {"1", "40"}
    for step, loss in cpu["losses"].items():
        assert cuda["losses"][step] == pytest.approx(loss, rel=1e-4, abs=1e-5), step
    assert cuda["losses"]["40"] < cuda["losses"]["1"]
    assert cuda["test"] == pytest.approx(cpu["test"], abs=0.01)
