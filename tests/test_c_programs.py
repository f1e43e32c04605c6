"""Builds and runs the C unit tests (tests/c/test_*.c), the C examples
(bindings/c_examples/*.c) and the C++ ones (*.cpp, through nabla.hpp) against the
installed libnabla; runs a subset under valgrind when it is installed; builds an
example through pkg-config."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TEST_DIR = ROOT / "tests" / "c"
EXAMPLE_DIR = ROOT / "bindings" / "c_examples"
TESTS = sorted(TEST_DIR.glob("test_*.c"))
EXAMPLES = sorted(EXAMPLE_DIR.glob("*.c"))
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"]
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
# Programs that valgrind checks (fast ones, with NB_TEST_QUICK=1 to cut iterations).
VALGRIND_PROGRAMS = ["test_basics", "test_creation", "test_views", "test_copy", "test_binary", "test_hooks",
                     "test_random", "test_shape", "test_nn", "test_reduce", "test_linalg", "hello_tensor",
                     "test_caching_allocator", "test_device_runtime", "test_autograd",
                     "custom_function", "test_autograd_reduce", "test_autograd_linalg", "test_autograd_saved", "test_saved_hooks",
                     "autograd_expression",
                     "train_mlp", "dlpack_exchange", "test_dlpack", "test_handles", "test_checkpoint", "test_optim_list"]
RUN_TIMEOUT_S = 300

CPP_EXAMPLES = sorted(EXAMPLE_DIR.glob("*.cpp"))
CPP_PROGRAMS = sorted((ROOT / "tests" / "cpp").glob("test_*.cpp")) + CPP_EXAMPLES  # through nabla.hpp
CXXFLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic-errors", "-O1", "-g"]
CC = shutil.which("cc") or shutil.which("gcc")
CXX = shutil.which("g++") or shutil.which("c++")
VALGRIND = shutil.which("valgrind")
PKG_CONFIG = shutil.which("pkg-config")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc or gcc) on PATH")


def nabla_config(*args: str) -> str:
    """Output of `python -m nabla.config ARGS` for the interpreter running pytest."""
    result = subprocess.run([sys.executable, "-m", "nabla.config", *args], capture_output=True, text=True,
                            check=True)
    return result.stdout.strip()


def compile_program(source: Path, out_dir: Path, flags: list[str]) -> Path:
    exe = out_dir / source.stem
    cmd = [CC, *CFLAGS, f"-I{TEST_DIR}", str(source), *flags, "-lpthread", "-lm", "-o", str(exe)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, f"compile failed: {shlex.join(cmd)}\n{result.stdout}{result.stderr}"
    return exe


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """build(source) -> executable, compiled once per module with nabla.config's flags."""
    out_dir = tmp_path_factory.mktemp("c_programs")
    flags = shlex.split(nabla_config("--cflags", "--libs"))
    built: dict[Path, Path] = {}

    def get(source: Path) -> Path:
        if source not in built:
            built[source] = compile_program(source, out_dir, flags)
        return built[source]

    return get


def run(cmd: list[str], quick: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if quick:
        env["NB_TEST_QUICK"] = "1"
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S)


def check_result(result: subprocess.CompletedProcess, is_test: bool) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"exit status {result.returncode}\n{output}"
    if is_test:
        lines = result.stdout.strip().splitlines()
        match = SUMMARY.match(lines[-1]) if lines else None
        assert match, f"no 'N passed, M failed' summary as the last line\n{output}"
        passed, failed, skipped = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
        assert failed == 0 and passed + skipped > 0, output
        if skipped:  # tests that cannot run here (no GPU): the program counts as skipped, with their reasons
            reasons = [line for line in result.stdout.splitlines() if line.startswith("SKIP ")]
            pytest.skip(f"{skipped} of {passed + skipped} tests skipped ({passed} passed): " + "; ".join(reasons))
    else:
        assert result.stdout.strip(), "the example printed nothing"


@needs_cc
@pytest.mark.parametrize("source", TESTS + EXAMPLES, ids=lambda p: p.stem)
def test_c_program(build, source):
    check_result(run([str(build(source))]), is_test=source.parent == TEST_DIR)


def cuda_available() -> bool:
    import nabla
    return nabla.cuda.is_available()


def losses(output: str) -> dict[int, float]:
    """{step: loss} from train_mlp's "step N  loss X" lines."""
    return {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^step +(\d+) +loss ([0-9.]+)$", output, re.M)}


@needs_cc
def test_train_mlp_on_cuda_matches_cpu(build):
    """The C training example on the CUDA device: the same losses as on the CPU, step for step."""
    if not cuda_available():
        import nabla
        pytest.skip(f"no CUDA device: {nabla.cuda.unavailable_reason()}")
    exe = str(build(EXAMPLE_DIR / "train_mlp.c"))
    on_cpu, on_cuda = run([exe, "cpu"], quick=True), run([exe, "cuda"], quick=True)
    check_result(on_cpu, is_test=False)
    check_result(on_cuda, is_test=False)
    cpu_losses, cuda_losses = losses(on_cpu.stdout), losses(on_cuda.stdout)
    assert "on cuda:" in on_cuda.stdout and len(cpu_losses) == 5, on_cuda.stdout
    assert cuda_losses.keys() == cpu_losses.keys()
    for step, loss in cpu_losses.items():
        assert cuda_losses[step] == pytest.approx(loss, rel=1e-4, abs=1e-5), (step, on_cpu.stdout, on_cuda.stdout)
    assert cuda_losses[40] < cuda_losses[1]


@needs_cc
def test_train_mlp_refuses_an_unknown_device(build):
    result = run([str(build(EXAMPLE_DIR / "train_mlp.c")), "gpu"])
    assert result.returncode == 2 and "usage:" in result.stderr


@needs_cc
@pytest.mark.skipif(VALGRIND is None, reason="valgrind is not installed")
@pytest.mark.parametrize("name", VALGRIND_PROGRAMS)
def test_c_program_under_valgrind(build, name):
    source = next(p for p in TESTS + EXAMPLES if p.stem == name)
    cmd = [VALGRIND, "-q", "--error-exitcode=99", "--leak-check=full",
           "--errors-for-leak-kinds=definite,indirect", str(build(source))]
    check_result(run(cmd, quick=True), is_test=source.parent == TEST_DIR)


@needs_cc
@pytest.mark.skipif(PKG_CONFIG is None, reason="pkg-config is not installed")
def test_example_builds_with_pkg_config(tmp_path):
    env = dict(os.environ, PKG_CONFIG_PATH=nabla_config("--pkgconfigdir"))
    result = subprocess.run([PKG_CONFIG, "--cflags", "--libs", "nabla"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    exe = compile_program(EXAMPLE_DIR / "hello_tensor.c", tmp_path, shlex.split(result.stdout))
    check_result(run([str(exe)]), is_test=False)


@needs_cc
@pytest.mark.parametrize("source", [TEST_DIR / "test_backward_api.c", EXAMPLE_DIR / "train_mlp.c"], ids=lambda p: p.stem)
def test_training_calls_compile_without_casts_under_pedantic_errors(tmp_path, source):
    """nb_backward(&loss, ...) and parameter arrays type-check as written: no cast, no warning."""
    flags = ["-Wall", "-Wextra", "-pedantic-errors", "-Werror", *shlex.split(nabla_config("--cflags", "--libs"))]
    exe = compile_program(source, tmp_path, flags)
    check_result(run([str(exe)]), is_test=source.parent == TEST_DIR)


@needs_cc
def test_c_guide_example_compiles_and_trains(tmp_path):
    """docs/c_guide.md's complete program, as printed there: -pedantic-errors, then run (under valgrind
    when it is installed) in a scratch directory, where it writes and removes its checkpoint."""
    text = (ROOT / "docs" / "c_guide.md").read_text()
    source = tmp_path / "c_guide.c"
    source.write_text(re.search(r"```c\n(.*?)```", text, re.S).group(1))
    flags = ["-Wall", "-Wextra", "-pedantic-errors", "-Werror", *shlex.split(nabla_config("--cflags", "--libs"))]
    exe = compile_program(source, tmp_path, flags)
    cmd = [str(exe)] if VALGRIND is None else [VALGRIND, "-q", "--error-exitcode=99", "--leak-check=full",
                                               "--errors-for-leak-kinds=definite,indirect", str(exe)]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=RUN_TIMEOUT_S)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "weight read back: 2.000 -3.000" in result.stdout and "0 before, 0 after" in result.stdout
    assert "regression.safetensors" not in os.listdir(tmp_path)


@pytest.fixture(scope="module")
def build_cpp(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("cpp_programs")
    flags = shlex.split(nabla_config("--cflags", "--libs"))

    def get(source: Path) -> Path:
        exe = out_dir / (source.stem + "_cpp")
        if not exe.exists():
            cmd = [CXX, *CXXFLAGS, str(source), *flags, "-o", str(exe)]
            result = subprocess.run(cmd, capture_output=True, text=True)
            assert result.returncode == 0, f"compile failed: {shlex.join(cmd)}\n{result.stdout}{result.stderr}"
        return exe

    return get


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++ or c++) on PATH")
@pytest.mark.parametrize("source", CPP_PROGRAMS, ids=lambda p: p.stem)
def test_cpp_program(build_cpp, source):
    """-std=c++17 -Wall -Wextra -Werror -pedantic-errors against nabla.hpp, then the full run."""
    check_result(run([str(build_cpp(source))]), is_test=source not in CPP_EXAMPLES)


@pytest.mark.skipif(CXX is None or VALGRIND is None, reason="needs a C++ compiler and valgrind")
@pytest.mark.parametrize("source", CPP_PROGRAMS, ids=lambda p: p.stem)
def test_cpp_program_under_valgrind(build_cpp, source):
    cmd = [VALGRIND, "-q", "--error-exitcode=99", "--leak-check=full",
           "--errors-for-leak-kinds=definite,indirect", str(build_cpp(source))]
    check_result(run(cmd, quick=True), is_test=source not in CPP_EXAMPLES)


def test_every_program_is_collected():
    names = {p.stem for p in TESTS}
    assert {"test_basics", "test_creation", "test_views", "test_copy", "test_errors", "test_memory",
            "test_threads"} <= names
    assert set(VALGRIND_PROGRAMS) <= names | {p.stem for p in EXAMPLES}
    assert {"train_mlp", "test_hpp"} <= {p.stem for p in CPP_PROGRAMS}
