"""nabla.distributed's nccl backend on CUDA tensors: every collective and dtype against NumPy,
DistributedDataParallel against single-process training (tests/distributed/worker.py with
NABLA_DIST_DEVICE=cuda), stream semantics, routing and errors (tests/distributed/nccl_checks.py).

The ranks run on the emulated CUDA device (NABLA_CUDA_PLUGIN, tools/cuda_emu_check.sh) with the
test-only NCCL stand-in (tests/nccl_standin, built beside the plugin), started by the mpich wheel's
mpiexec. Every test name says cuda, so `-k cuda` selects them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import nabla as nb
from nabla.distributed import _mpi
from test_distributed import CATEGORIES, assert_category_passed, assert_every_dtype_and_op_checked

HERE = Path(__file__).parent / "distributed"
ROOT = Path(__file__).parent.parent
MPIEXEC = _mpi.mpiexec()


def _standin() -> Path | None:
    """The stand-in libnccl: $NABLA_NCCL_STANDIN, else beside the emulated plugin, else in build-dev."""
    if os.environ.get("NABLA_NCCL_STANDIN"):
        return Path(os.environ["NABLA_NCCL_STANDIN"])
    rel = Path("tests") / "nccl_standin" / "libnccl_standin.so"
    plugin = os.environ.get("NABLA_CUDA_PLUGIN")
    candidates = [Path(plugin).resolve().parents[2] / rel] if plugin else []
    candidates += [ROOT / "build-dev" / rel, ROOT / "build-emu" / rel]
    return next((c for c in candidates if c.exists()), None)


STANDIN = _standin()


def _skip_reason() -> str | None:
    if MPIEXEC is None or _mpi.library() is None:
        return "mpich is not installed (pip install mpich, in the test extra)"
    if not nb.cuda.is_available():
        return f"no CUDA device (the emulated one: NABLA_CUDA_PLUGIN, tools/cuda_emu_check.sh): " \
               f"{nb.cuda.unavailable_reason()}"
    if STANDIN is None:
        return "the NCCL stand-in is not built (ninja -C <build> tests/nccl_standin/libnccl_standin.so)"
    if os.environ.get("NABLA_CUDA_PLUGIN") is None and not os.environ.get("NABLA_NCCL_STANDIN"):
        return "on a real GPU set NABLA_NCCL_STANDIN to a real libnccl.so.2 (the stand-in needs the emulated device)"
    return None


SKIP = _skip_reason()
needs_nccl = pytest.mark.skipif(SKIP is not None, reason=SKIP or "")


def _launch(n, script, out, timeout=240):
    env = dict(os.environ, NABLA_DIST_OUT=str(out), NABLA_DIST_DEVICE="cuda", NABLA_NCCL_LIBRARY=str(STANDIN),
               NABLA_NCCL_STANDIN_TIMEOUT="60", OMP_NUM_THREADS="1")
    cmd = [MPIEXEC, "-n", str(n), sys.executable, str(script)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def results(request, tmp_path_factory):
    if SKIP is not None:
        pytest.skip(SKIP)
    n = request.param
    return n, _launch(n, HERE / "worker.py", tmp_path_factory.mktemp(f"nccl{n}"))


@needs_nccl
@pytest.mark.parametrize("category", CATEGORIES)
def test_cuda_nccl_every_rank_passes(results, category):
    assert_category_passed(results, category)


@needs_nccl
def test_cuda_nccl_every_dtype_and_op_was_checked(results):
    assert_every_dtype_and_op_checked(results)


@needs_nccl
@pytest.mark.parametrize("n", [2, 3])
def test_cuda_nccl_streams_routing_and_errors(n, tmp_path):
    rows = _launch(n, HERE / "nccl_checks.py", tmp_path)
    failed = [f"rank {r} {row[1]}:\n{row[3]}" for r in range(n) for row in rows[r] if not row[2]]
    assert not failed, "\n".join(failed)
    assert len(rows[0]) >= 8, rows[0]


def test_cuda_nccl_absent_raises_how_to_install_it_and_nabla_still_works():
    code = ("import nabla as nb, nabla.distributed as dist\n"
            "assert not dist.is_nccl_available() and not dist.is_backend_available('nccl')\n"
            "print((nb.ones(2) + 1).tolist())\n"
            "for backend in ('nccl', 'cpu:gloo,cuda:nccl'):\n"
            "    try:\n        dist.init_process_group(backend)\n"
            "    except RuntimeError as e:\n        print('ERR', type(e).__name__, e)\n"
            "assert not dist.is_initialized()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, NABLA_NCCL_LIBRARY="/nonexistent/libnccl.so.2"))
    assert proc.returncode == 0, proc.stderr
    assert "[2.0, 2.0]" in proc.stdout
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("ERR")]
    assert len(lines) == 2, proc.stdout
    for line in lines:
        assert line.startswith("ERR DistBackendError init_process_group: nb_comm_nccl_available: NCCL not found "
                               "(/nonexistent/libnccl.so.2"), line
        assert "pip install nvidia-nccl-cu13" in line and "NABLA_NCCL_LIBRARY" in line, line


def test_cuda_nccl_backend_names_parse_as_pytorch():
    from nabla.distributed import Backend, _backends
    assert _backends.parse("nccl") == {"cuda": "nccl"}
    assert _backends.parse("gloo") == {"cpu": "mpi"} == _backends.parse("mpi")
    assert _backends.parse("cpu:gloo,cuda:nccl") == {"cpu": "mpi", "cuda": "nccl"}
    assert Backend("CPU:GLOO,CUDA:NCCL") == "cpu:gloo,cuda:nccl"
    for bad, shown in (("foo", "FOO"), ("cpu:foo", "CPU:FOO"), ("tpu:nccl", "TPU:NCCL")):
        with pytest.raises(ValueError, match=f"Unknown c10d backend type {shown}"):
            Backend(bad)


def test_cuda_nccl_standin_without_the_emulated_device_reports_it(tmp_path):
    """The stand-in refuses to run where nabla's emulated plugin is not loaded (it has no stream to queue on)."""
    if STANDIN is None:
        pytest.skip("the NCCL stand-in is not built")
    code = ("import ctypes\n"
            f"lib = ctypes.CDLL({str(STANDIN)!r})\n"
            "class Uid(ctypes.Structure):\n    _fields_ = [('internal', ctypes.c_char * 128)]\n"
            "uid = Uid()\n"
            "assert lib.ncclGetUniqueId(ctypes.byref(uid)) == 0\n"
            "comm = ctypes.c_void_p()\n"
            "assert lib.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0) == 0\n"
            "buf = (ctypes.c_float * 4)()\n"
            "rc = lib.ncclAllReduce(buf, buf, 4, 7, 0, comm, None)\n"
            "lib.ncclGetErrorString.restype = ctypes.c_char_p\n"
            "print(rc, lib.ncclGetErrorString(rc).decode())\n"
            "assert lib.ncclCommDestroy(comm) == 0\n")
    env = {k: v for k, v in os.environ.items() if k != "NABLA_CUDA_PLUGIN"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("1 unhandled cuda error (the NCCL stand-in runs only on nabla's emulated device)")


@needs_nccl
def test_cuda_nccl_c_example_sums_and_gathers(tmp_path):
    import shutil
    cc = shutil.which("cc") or shutil.which("gcc")
    include = subprocess.run([sys.executable, "-m", "nabla.config", "--includedir"], capture_output=True,
                             text=True, check=True).stdout.strip()
    if cc is None or not (Path(include) / "nabla.h").exists():
        pytest.skip("no C compiler, or nabla's header is not installed (an editable install: use pip install .)")
    cfg = subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"], capture_output=True,
                         text=True, check=True).stdout.split()
    exe = tmp_path / "allreduce_nccl"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", str(ROOT / "bindings" / "c_examples" / "allreduce_nccl.c"),
                    "-o", str(exe), *cfg], check=True)
    env = dict(os.environ, NABLA_MPI_LIBRARY=_mpi.library(), NABLA_NCCL_LIBRARY=str(STANDIN))
    proc = subprocess.run([MPIEXEC, "-n", "2", str(exe)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # each rank exits 1 on a mismatch
    assert proc.stdout.count(": OK") == 2 and "rank 1 of 2: sum [1, 3, 5, 7]" in proc.stdout, proc.stdout
