"""One rank of tests/test_distributed_nccl.py's checks of what the nccl backend adds: stream semantics of
Work, routing by device (nccl, mpi and "cpu:gloo,cuda:nccl" groups), point-to-point rings and the errors.
Writes [category, name, ok, message] rows to $NABLA_DIST_OUT/rank<r>.json."""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

import nabla as nb
import nabla.distributed as dist

dist.init_process_group("nccl", device_id=nb.device("cuda:0"))  # device_id: the communicator is made now
R, N = dist.get_rank(), dist.get_world_size()
RESULTS = []


def check(name):
    def run(fn):
        try:
            fn()
            RESULTS.append(["nccl", name, True, ""])
        except Exception:
            RESULTS.append(["nccl", name, False, traceback.format_exc()])
            print(f"rank {R} {name} failed:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        return fn
    return run


def raises(cls, text, fn):
    try:
        fn()
    except cls as e:
        assert text in str(e), f"{text!r} not in {e!r}"
        return
    raise AssertionError(f"no {cls.__name__}, expected {text!r}")


def cuda(values, dtype=nb.float32):
    return nb.tensor(values, dtype=dtype, device="cuda")


@check("backend-and-availability")
def _():
    assert dist.get_backend() == "nccl" and dist.is_nccl_available()
    assert dist.is_backend_available("nccl") and dist.is_backend_available("cpu:gloo,cuda:nccl")
    assert dist.group.WORLD._nccl, "device_id did not make the communicator at init"


@check("wait-makes-the-stream-wait-not-the-host")
def _():
    t = cuda([float(R + 1)] * 4)
    side = nb.cuda.Stream()
    side.wait_stream(nb.cuda.current_stream())
    if R == 1:
        time.sleep(1.0)  # the others' collective waits for this rank on their side stream
    with nb.cuda.stream(side):
        work = dist.all_reduce(t, async_op=True)
    if R == 0:
        assert not work.is_completed(), "completed before rank 1 took part"
    t0 = time.monotonic()
    work.wait()  # the current (default) stream waits for the side stream's collective
    if R == 0:
        assert time.monotonic() - t0 < 0.5, "wait() blocked the host"
    assert t.tolist() == [N * (N + 1) / 2] * 4, t.tolist()  # read on the default stream
    assert work.is_completed()


@check("cpu-tensors-are-refused-as-pytorch")
def _():
    raises(RuntimeError, "No backend type associated with device type cpu", lambda: dist.all_reduce(nb.ones(2)))
    raises(RuntimeError, "No backend type associated with device type cpu",
           lambda: dist.broadcast(nb.ones(2), src=0, async_op=True))
    raises(RuntimeError, "all_gather: this NCCL communicator takes tensors on cuda:0; 'output' is on cpu:0",
           lambda: dist.all_gather_into_tensor(nb.zeros(2 * N), cuda([1.0, 2.0])))


@check("reduce-ops-nccl-lacks")
def _():
    raises(RuntimeError, "all_reduce: ReduceOp.BAND is not supported by the NCCL backend",
           lambda: dist.all_reduce(cuda([1, 2], nb.int32), op=dist.ReduceOp.BAND))
    raises(RuntimeError, "ReduceOp.AVG is not supported for int64 tensors",
           lambda: dist.all_reduce(cuda([1, 2], nb.int64), op=dist.ReduceOp.AVG))


@check("init-nccl-errors-in-the-c-abi")
def _():
    from nabla._lib import ffi, lib
    out, world = ffi.new("nb_comm**"), dist.group.WORLD
    for bootstrap, device, status, text in [
            (ffi.NULL, -1, lib.NB_ERR_INVALID_ARGUMENT, "nb_comm_init_nccl: communicator is NULL"),
            (world._c, 7, lib.NB_ERR_DEVICE, "nb_comm_init_nccl: CUDA device 7 does not exist (1 device)"),
            (world._nccl[0], -1, lib.NB_ERR_INVALID_ARGUMENT, "the bootstrap communicator must be an MPI one")]:
        assert lib.nb_comm_init_nccl(bootstrap, ffi.NULL, device, out) == status
        assert text in ffi.string(lib.nb_last_error_message()).decode()
        assert out[0] == ffi.NULL


@check("mpi-group-refuses-cuda-tensors")
def _():
    g = dist.new_group(backend="mpi")
    assert dist.get_backend(g) == "mpi"
    raises(RuntimeError, "the MPI backend takes CPU tensors", lambda: dist.all_reduce(cuda([1.0]), group=g))
    t = nb.ones(3)
    dist.all_reduce(t, group=g)
    assert t.tolist() == [N] * 3
    dist.destroy_process_group(g)


@check("mixed-group-routes-by-device")
def _():
    g = dist.new_group(backend="cpu:gloo,cuda:nccl")
    assert dist.get_backend(g) == "cpu:gloo,cuda:nccl"
    a, b = nb.full((5,), float(R)), cuda([float(R)] * 5)
    dist.all_reduce(a, op=dist.ReduceOp.MAX, group=g)
    dist.all_reduce(b, op=dist.ReduceOp.SUM, group=g)
    assert a.tolist() == [N - 1.0] * 5 and b.tolist() == [N * (N - 1) / 2] * 5
    assert list(g._nccl) == [0] and g._c is not None  # NCCL for the CUDA tensor, MPI for the CPU one
    dist.barrier(group=g)
    dist.destroy_process_group(g)


@check("p2p-ring-batch")
def _():
    nxt, prv = (R + 1) % N, (R - 1) % N
    out, got = cuda([float(R)] * 3), nb.zeros(3, device="cuda")
    ops = [dist.P2POp(dist.isend, out, nxt), dist.P2POp(dist.irecv, got, prv)]
    for w in dist.batch_isend_irecv(ops):
        w.wait()
    assert got.tolist() == [float(prv)] * 3, got.tolist()


@check("barrier-and-objects")
def _():
    dist.barrier()
    objs = [None] * N
    dist.all_gather_object(objs, ("rank", R))
    assert objs == [("rank", r) for r in range(N)]
    gathered = [None] * N if R == 0 else None
    dist.gather_object({"r": R}, gathered, dst=0)
    assert R != 0 or gathered == [{"r": r} for r in range(N)]


def failure_check(fn):
    """Only with the stand-in: a real NCCL hangs or faults on mismatched calls instead of reporting them."""
    return check(fn.__name__)(fn) if "nccl_standin" in os.environ.get("NABLA_NCCL_LIBRARY", "") else fn


@failure_check
def a_failed_nccl_call_breaks_only_its_group():
    g = dist.new_group()
    try:  # sizes disagree: NCCL fails on the device, reported by the next call that looks (the barrier at last)
        dist.all_reduce(cuda([1.0, 2.0, 3.0][:2 + (R % 2)]), group=g)
        dist.barrier(group=g)
        raise AssertionError("the failure was not reported")
    except dist.DistBackendError as e:
        assert f"NCCL failed on rank {R} of {N}: invalid usage" in str(e), e
    raises(dist.DistBackendError, "the communicator is unusable: NCCL failed in an earlier call",
           lambda: dist.all_reduce(cuda([1.0]), group=g))
    dist.destroy_process_group(g)
    t = cuda([1.0])
    dist.all_reduce(t)  # the default group still works
    assert t.tolist() == [float(N)]


def timeout_group(seconds, blocking_wait=False):
    """A new group whose NCCL communicator every rank made (one all_reduce), with rank 0's timeout set to seconds
    only then (a late rank must not fail the bootstrap)."""
    if blocking_wait:
        os.environ["TORCH_NCCL_BLOCKING_WAIT"] = "1"  # read when the communicator is made
    g = dist.new_group()
    dist.all_reduce(cuda([1.0]), group=g)
    os.environ.pop("TORCH_NCCL_BLOCKING_WAIT", None)
    if R == 0:
        from nabla._lib import lib
        lib.nb_comm_set_timeout(g._nccl[0], seconds)
    return g


def only_rank0_then_rejoin(g, fn):
    """Rank 0 runs fn while the other ranks skip it; then every rank meets in the default group (so rank 0's
    messages are there before the others destroy g and unlink them) and the default group still works."""
    try:
        if R == 0:
            side = nb.cuda.Stream()
            with nb.cuda.stream(side):
                fn()
            side.synchronize()  # the aborted communicator's calls ended: the stream moves on
    finally:  # also after a failed check, so the others do not wait for rank 0
        dist.barrier()
        dist.destroy_process_group(g)
        t = cuda([1.0])
        dist.all_reduce(t)
        assert t.tolist() == [float(N)]


@failure_check
def the_watchdog_aborts_a_collective_a_rank_skipped():
    g = timeout_group(1.5)

    def rank0():
        work = dist.all_reduce(cuda([1.0]), group=g, async_op=True)  # the other ranks never join
        t0 = time.monotonic()
        work.wait()  # stream semantics: the host does not block...
        assert time.monotonic() - t0 < 0.5
        while not work.is_completed():  # ...and the watchdog ends the work after the timeout
            time.sleep(0.05)
        waited = time.monotonic() - t0
        assert 1.3 < waited < 3.5, waited
        text = f"all_reduce timed out on rank 0 of {N}: the NCCL watchdog found it still running after"
        assert isinstance(work.exception(), dist.DistBackendError) and text in str(work.exception())
        raises(dist.DistBackendError, "the process group is now unusable", work.wait)
        raises(dist.DistBackendError, f"broadcast: the communicator is unusable: NCCL failed in an earlier call: {text}",
               lambda: dist.broadcast(cuda([1.0]), src=0, group=g))
    only_rank0_then_rejoin(g, rank0)


@failure_check
def blocking_wait_raises_after_the_timeout():
    g = timeout_group(1.5, blocking_wait=True)

    def rank0():
        t0 = time.monotonic()
        raises(dist.DistBackendError, f"all_reduce: all_reduce timed out on rank 0 of {N}",
               lambda: dist.all_reduce(cuda([1.0]), group=g))  # TORCH_NCCL_BLOCKING_WAIT: the host waits
        assert 1.3 < time.monotonic() - t0 < 3.5, time.monotonic() - t0
    only_rank0_then_rejoin(g, rank0)


@failure_check
def a_rank_that_never_joins_times_the_barrier_out():
    g = timeout_group(2.0)

    def rank0():
        os.environ["NABLA_NCCL_STANDIN_TIMEOUT"] = "4"  # the stand-in's own wait for the missing ranks ends later
        dist.all_reduce(cuda([1.0]), group=g)  # the other ranks never join
        t0 = time.monotonic()  # the barrier's wait for the device or the watchdog, whichever sees it first
        raises(dist.DistBackendError, f"timed out on rank 0 of {N}", lambda: dist.barrier(group=g))
        assert 1.9 < time.monotonic() - t0 < 3.5, time.monotonic() - t0
        os.environ["NABLA_NCCL_STANDIN_TIMEOUT"] = "60"
    only_rank0_then_rejoin(g, rank0)


out = os.environ["NABLA_DIST_OUT"]
with open(os.path.join(out, f"rank{R}.json"), "w") as f:
    json.dump(RESULTS, f)
dist.destroy_process_group()
sys.exit(0)
