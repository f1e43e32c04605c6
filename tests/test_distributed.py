"""nabla.distributed over MPI: every collective and dtype against NumPy, DistributedDataParallel against
single-process training, the launcher and the faults, with 2 and 4 ranks started by the mpich wheel's
mpiexec. Each rank count is one launch of tests/distributed/worker.py, which records every check."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import nabla as nb
import nabla.distributed as dist
from nabla.distributed import _mpi

HERE = Path(__file__).parent / "distributed"
MPIEXEC = _mpi.mpiexec()
HAVE_MPI = MPIEXEC is not None and _mpi.library() is not None
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpich is not installed (pip install mpich, in the test extra)")
CATEGORIES = ["all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "gather_scatter", "all_to_all",
              "send_recv", "batch_p2p", "misc", "errors", "ddp", "comm_hooks", "join", "premul_sum", "ddp_views"]


def _launch(n, script, *args, timeout=120, env=None):
    cmd = [MPIEXEC, "-n", str(n), sys.executable, str(script), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ, **(env or {})))


def run_checks(n, script, out, env=None, timeout=120):
    """Runs a checks script (tests/distributed/checks.py records) on n ranks; returns (n, each rank's rows)."""
    if not HAVE_MPI:
        pytest.skip("mpich is not installed (pip install mpich, in the test extra)")
    proc = _launch(n, HERE / script, env={"NABLA_DIST_OUT": str(out), **(env or {})}, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return n, [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def results(request, tmp_path_factory):
    return run_checks(request.param, "worker.py", tmp_path_factory.mktemp(f"dist{request.param}"))


def assert_category_passed(results, category):
    """Every rank ran checks of the category and none failed (also used by test_distributed_nccl.py)."""
    n, rows = results
    mine = [(r, row) for r in range(n) for row in rows[r] if row[0] == category]
    assert mine, f"no {category} checks ran"
    failed = [f"rank {r} {row[1]}:\n{row[3]}" for r, row in mine if not row[2]]
    assert not failed, "\n".join(failed)


def assert_every_dtype_and_op_checked(results):
    _, rows = results
    names = {row[1] for row in rows[0] if row[0] == "all_reduce"}
    for dtype in ("float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool"):
        assert {f"SUM-{dtype}", f"MIN-{dtype}", f"MAX-{dtype}", f"PRODUCT-{dtype}", f"strided-async-{dtype}"} <= names
    assert {"AVG-float16", "AVG-bfloat16", "AVG-float32", "AVG-float64"} <= names


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_rank_passes(results, category):
    assert_category_passed(results, category)


def test_every_dtype_and_op_was_checked(results):
    assert_every_dtype_and_op_checked(results)


@needs_mpi
def test_a_rank_that_never_joins_fails_the_others_after_the_timeout():
    t0 = time.monotonic()
    proc = _launch(2, HERE / "faults.py", "timeout", timeout=60)
    assert proc.returncode != 0
    assert "rank 0 failed after" in proc.stdout, proc.stdout + proc.stderr
    waited = float(proc.stdout.split("failed after ")[1].split(" s")[0])
    assert 1.9 <= waited < 6, waited
    assert "all_reduce: timed out after 2 s waiting for the other ranks (rank 0 of 2)" in proc.stdout
    assert "then: all_reduce: the communicator is unusable: an earlier collective timed out" in proc.stdout
    assert time.monotonic() - t0 < 40


@needs_mpi
def test_a_rank_that_raises_stops_the_others():
    t0 = time.monotonic()
    proc = _launch(2, HERE / "faults.py", "raise", timeout=60)
    assert proc.returncode != 0
    assert "rank 1 failed on purpose" in proc.stderr
    assert "rank 0 was not stopped" not in proc.stdout
    assert time.monotonic() - t0 < 30


@needs_mpi
def test_launcher_sets_torchruns_variables(tmp_path):
    script = tmp_path / "show.py"
    # each rank writes its own file: mpiexec interleaves the ranks' output byte by byte
    script.write_text("import os, sys\nimport nabla.distributed as dist\ndist.init_process_group()\n"
                      f"path = {str(tmp_path)!r} + '/rank' + os.environ['RANK']\n"
                      "open(path, 'w').write(' '.join(map(str, ['R', dist.get_rank(), dist.get_world_size(), "
                      "os.environ['RANK'], os.environ['LOCAL_RANK'], os.environ['WORLD_SIZE'], "
                      "os.environ['MASTER_ADDR'], os.environ['MASTER_PORT'], sys.argv[1:]])))\n")
    proc = subprocess.run([sys.executable, "-m", "nabla.distributed.run", "--nproc-per-node", "2", str(script),
                           "--lr", "0.1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [(tmp_path / f"rank{r}").read_text() for r in range(2)]
    assert lines == [f"R {r} 2 {r} {r} 2 127.0.0.1 29500 ['--lr', '0.1']" for r in range(2)]
    bad = subprocess.run([sys.executable, "-m", "nabla.distributed.run", "--nnodes", "2", str(script)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "host file" in bad.stderr


@needs_mpi
def test_world_size_from_the_environment_must_match_mpi():
    proc = subprocess.run([sys.executable, "-c", "import nabla.distributed as d; d.init_process_group()"],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, WORLD_SIZE="2", RANK="0"))
    assert proc.returncode != 0
    assert "WORLD_SIZE is 2 but MPI started this process as rank 0 of 1" in proc.stderr


def test_without_mpi_init_raises_how_to_install_and_nabla_still_works():
    code = ("import nabla as nb, nabla.distributed as dist\n"
            "assert dist.is_available() and not dist.is_mpi_available()\n"
            "print((nb.ones(2) + 1).tolist())\n"
            "try:\n    dist.init_process_group('mpi')\nexcept dist.DistBackendError as e:\n    print('ERR', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, NABLA_MPI_LIBRARY="/nonexistent/libmpi_abi.so.1"))
    assert proc.returncode == 0, proc.stderr
    assert "[2.0, 2.0]" in proc.stdout
    assert "MPI library not found" in proc.stdout and "pip install mpich" in proc.stdout


def test_uninitialised_group_raises_as_pytorch():
    assert not dist.is_initialized()
    for call in (lambda: dist.get_rank(), lambda: dist.all_reduce(nb.ones(1)), lambda: dist.barrier(),
                 lambda: dist.destroy_process_group()):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            call()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nb.nn.parallel.DistributedDataParallel(nb.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Unknown c10d backend type FOO"):
        dist.init_process_group("foo")
    assert int(dist.ReduceOp.SUM) == 0 and int(dist.ReduceOp.MAX) == 4


@pytest.mark.parametrize("n,size,drop_last", [(2, 10, False), (3, 10, False), (3, 10, True), (4, 3, False),
                                              (4, 7, True), (1, 5, False)])
def test_distributed_sampler_matches_pytorch(n, size, drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    for rank in range(n):
        ours = nb.utils.data.DistributedSampler(range(size), num_replicas=n, rank=rank, shuffle=False,
                                                drop_last=drop_last)
        theirs = torch_data.DistributedSampler(range(size), num_replicas=n, rank=rank, shuffle=False,
                                               drop_last=drop_last)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
        assert ours.total_size == theirs.total_size
    parts = [list(nb.utils.data.DistributedSampler(range(size), n, r, seed=4, drop_last=drop_last)) for r in range(n)]
    flat = [i for p in parts for i in p]
    if not drop_last:
        assert set(flat) == set(range(size))
    assert len({len(p) for p in parts}) == 1
    s = nb.utils.data.DistributedSampler(range(size), n, 0, seed=4)
    first = list(s)
    assert list(s) == first
    s.set_epoch(1)
    assert size < 4 or list(s) != first
    with pytest.raises(ValueError, match=r"Invalid rank 5, rank should be in the interval \[0, 1\]"):
        nb.utils.data.DistributedSampler(range(4), num_replicas=2, rank=5)


@needs_mpi
def test_c_example_all_reduces_gradients(tmp_path):
    import shutil
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    cfg = subprocess.run([sys.executable, "-m", "nabla.config", "--cflags", "--libs"], capture_output=True,
                         text=True, check=True).stdout.split()
    exe = tmp_path / "allreduce_grads"
    src = Path(__file__).parent.parent / "bindings" / "c_examples" / "allreduce_grads.c"
    subprocess.run([cc, "-std=c11", "-Wall", "-Werror", str(src), "-o", str(exe), *cfg, "-lm"], check=True)
    proc = subprocess.run([MPIEXEC, "-n", "2", str(exe)], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, NABLA_MPI_LIBRARY=_mpi.library()))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OK" in proc.stdout and "MISMATCH" not in proc.stdout, proc.stdout  # each rank exits 1 on a mismatch
    assert "destroyed" in proc.stdout


def test_nccl_not_found_says_how_to_install_it():
    code = ("import nabla.distributed as dist\n"
            "assert not dist.is_nccl_available()\n"
            "try:\n    dist.init_process_group('nccl')\nexcept dist.DistBackendError as e:\n    print('ERR', e)\n"
            "assert not dist.is_initialized()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, NABLA_NCCL_LIBRARY="/nonexistent/libnccl.so.2"))
    assert proc.returncode == 0, proc.stderr
    assert "ERR init_process_group: nb_comm_nccl_available: NCCL not found (/nonexistent/libnccl.so.2" in proc.stdout
    assert "pip install nvidia-nccl-cu13" in proc.stdout


def test_a_library_that_is_not_mpi_or_nccl_is_refused_by_name():
    code = ("from nabla._lib import ffi, lib\n"
            "for fn in (lambda: lib.nb_comm_available(b'libm.so.6'),\n"
            "           lambda: lib.nb_comm_nccl_available(b'libm.so.6', ffi.NULL)):\n"
            "    assert fn() == lib.NB_ERR_BACKEND\n"
            "    print(ffi.string(lib.nb_last_error_message()).decode())\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "libm.so.6 lacks MPI_Initialized: it is not an MPI-5 ABI library" in proc.stdout
    assert "libm.so.6 lacks ncclGetVersion: it is not an NCCL library" in proc.stdout
