"""The conformance suite in CI: the case files are fresh and cover every op of the
ABI op table, the Python, C and Node runners pass every case on the CPU and on a
CUDA device where one is (the emulated device in CI: tools/cuda_emu_check.sh), and
a runner notices a wrong value, a wrong status and a leak."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "conformance"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
needs_node = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="node and npm are not installed")
RUNNERS = ["python", pytest.param("c", marks=needs_cc), pytest.param("node", marks=needs_node)]
FLAG = {"python": [], "c": ["--c"], "node": ["--node"]}


@pytest.fixture(scope="module", autouse=True)
def _node_modules():
    """The Node.js runner needs koffi: npm ci from the lockfile, when node is there."""
    node_dir = ROOT / "bindings" / "node"
    if shutil.which("npm") and not (node_dir / "node_modules" / ".package-lock.json").exists():
        subprocess.run([shutil.which("npm"), "ci", "--no-audit", "--no-fund", "--prefer-offline"], cwd=node_dir,
                       check=True, capture_output=True, timeout=300)


def run(*args: str, cases: Path | None = None) -> tuple[int, list[str]]:
    cmd = [sys.executable, str(SUITE / "run.py"), *args] + (["--cases", str(cases)] if cases else [])
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return result.returncode, (result.stdout + result.stderr).strip().splitlines()


def summary(lines: list[str]) -> tuple[int, int, int]:
    match = SUMMARY.match(lines[-1]) if lines else None
    assert match, "no 'N passed, N failed, N skipped' line:\n" + "\n".join(lines[-20:])
    return tuple(int(g) for g in match.groups())


def test_cases_are_fresh_and_cover_every_op():
    result = subprocess.run([sys.executable, str(SUITE / "generate.py"), "--check"], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr


def _cuda_available() -> bool:
    import nabla
    return nabla.cuda.is_available()


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not _cuda_available(), reason="no CUDA device"))]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("runner", RUNNERS)
def test_every_case_passes(runner, device):
    """Every case, its inputs made on `device` (cuda: the emulated device in CI)."""
    code, lines = run(*FLAG[runner], "--device", device)
    passed, failed, skipped = summary(lines)
    failures = [line for line in lines if line.startswith("FAIL")]
    assert code == 0 and failed == 0, "\n".join(failures[:40])
    assert passed > 1000
    assert all(line.split(" ", 1)[0] in ("PASS", "FAIL", "SKIP") for line in lines[:-1])


@needs_cc
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_c_runner_under_valgrind():
    """Every case's calls, error paths included, without a leak or an invalid access."""
    code, lines = run("--c", "--valgrind")
    assert code == 0 and summary(lines)[1] == 0, "\n".join(lines[-40:])


def _mutated(tmp_path: Path, case_id: str, edit) -> Path:
    """A case folder holding one case of the suite, changed by edit(lines)."""
    for path in sorted((SUITE / "cases").glob("*.txt")):
        text = path.read_text()
        start = text.find(f"case {case_id}\n")
        if start >= 0:
            block = text[start:text.index("\nend\n", start) + 5].splitlines()
            (tmp_path / "one.txt").write_text("\n".join(edit(block)) + "\n")
            return tmp_path
    raise AssertionError(f"no case {case_id}")


def _flip_last_hex_digit(lines, prefix):
    out = []
    for line in lines:
        if line.startswith(prefix):
            digit = line[-1]
            line = line[:-1] + ("0" if digit != "0" else "1")
        out.append(line)
    return out


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize("case_id, edit, why", [
    ("add/f32/basic", lambda ls: [l.replace("tol correctly_rounded", "tol exact") for l in _flip_last_hex_digit(
        ls, "expect out")], "elements differ"),
    ("sum/f32/dim1", lambda ls: [l.replace("f32 3,5", "f32 5,3") if l.startswith("expect") else l for l in ls],
     "shape"),
    ("add/f32/shape", lambda ls: [l.replace("NB_ERR_SHAPE", "NB_ERR_DTYPE") for l in ls], "status"),
    ("exp/f32/basic-grad", lambda ls: [l[:-8] + "0000c0c3" if l.startswith("expect_grad") else l for l in ls],
     "gradient of x"),
])
def test_runner_notices_a_wrong_expectation(tmp_path, runner, case_id, edit, why):
    code, lines = run(*FLAG[runner], cases=_mutated(tmp_path, case_id, edit))
    assert code == 1 and summary(lines)[1] == 1, lines
    assert lines[0].startswith(f"FAIL {case_id}") and why in lines[0], lines[0]


@pytest.mark.parametrize("runner", RUNNERS)
def test_runner_skips_a_newer_abi_with_the_reason(tmp_path, runner):
    cases = _mutated(tmp_path, "add/f32/basic", lambda ls: [l.replace("abi 0.1", "abi 0.99") for l in ls])
    code, lines = run(*FLAG[runner], cases=cases)
    assert code == 0 and summary(lines) == (0, 0, 1)
    assert lines[0].startswith("SKIP add/f32/basic: needs ABI 0.99"), lines[0]
