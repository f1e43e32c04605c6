"""The fuzzers in CI (tests/fuzz/README.md): the C ABI fuzzer and the nabla.load /
from_dlpack fuzzer run their fixed seeds (20000 episodes, a few seconds each) and must end with no
crash, no violation and no live object; the generated op table covers every op
of the manifest; a planted violation is reported."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tests" / "fuzz"
sys.path.insert(0, str(FUZZ))

import run as fuzz_run  # noqa: E402

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on PATH")
SUMMARY = re.compile(r"^seed (\d+): (\d+) episodes, (\d+) op calls \((\d+) ok\), (\d+) of (\d+) ops succeeded at least "
                     r"once, (\d+) violations, (\d+) calls/s$", re.M)


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory):
    return fuzz_run.build(tmp_path_factory.mktemp("fuzz"))


def _manifest_ops() -> set[str]:
    names = set()
    for path in (ROOT / "abi" / "ops").glob("*.json"):
        names |= {op["name"] for op in json.loads(path.read_text())["ops"] if op["returns"] == "nb_status"}
    return names


def test_generated_table_calls_every_op_of_the_manifest(tmp_path):
    out = tmp_path / "calls.inc"
    subprocess.run([sys.executable, str(FUZZ / "gen_calls.py"), str(out)], check=True)
    table = set(re.findall(r'^    \{"(nb_\w+)", ', out.read_text(), re.M))
    assert table == _manifest_ops() and len(table) > 150


@needs_cc
@pytest.mark.parametrize("seed", fuzz_run.CI_SEEDS)
def test_abi_fuzzer_seed(fuzzer, seed):
    # A fixed number of episodes, not seconds: the same calls on every machine (~5 s here).
    cmd = [str(fuzzer), "--seed", str(seed), "--episodes", str(fuzz_run.CI_EPISODES)] + fuzz_run.exclude_args()
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(cmd)}: exit status {result.returncode}\n{output[-6000:]}"
    m = SUMMARY.search(result.stdout)
    assert m, output[-2000:]
    episodes, calls, ok, reached, nops, violations = (int(g) for g in m.groups()[1:7])
    assert violations == 0 and episodes > 10
    # The arguments are valid often enough to get past validation into the kernels.
    assert ok > calls // 10 and reached > nops // 2, m.group(0)


@needs_cc
def test_abi_fuzzer_reports_a_violation(fuzzer):
    """A planted fault: the episode-end live-object check fires and names the seed."""
    result = subprocess.run([str(fuzzer), "--seed", "5", "--episodes", "2", "--plant-leak"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1
    assert "VIOLATION seed=5 episode=0" in result.stderr and "live tensors" in result.stderr, result.stderr[-2000:]


@pytest.mark.parametrize("seed", fuzz_run.CI_SEEDS)
def test_load_and_dlpack_fuzzer_seed(seed):
    cmd = [sys.executable, str(FUZZ / "fuzz_load.py"), "--seed", str(seed), "--inputs", "20000"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    m = re.search(r"(\d+) inputs \((\d+) accepted\), 0 violations", result.stdout)
    assert m and int(m.group(1)) > 50 and int(m.group(2)) > 5, result.stdout
