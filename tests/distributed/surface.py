"""One rank of tests/test_distributed_surface.py: the rest of torch.distributed's surface under mpiexec (object
point to point, the *_single collectives, subgroups and split_group, DeviceMesh, the debug level, breakpoint,
record_comm, rendezvous handlers), each against NumPy or torch's documented behaviour; rows go to
$NABLA_DIST_OUT/rank<r>.json. The default group is made through a registered rendezvous handler."""
from __future__ import annotations

import datetime
import os
import sys
import urllib.parse

import numpy as np

import nabla as nb
import nabla.distributed as dist

sys.path.insert(0, os.path.dirname(__file__))
import checks  # noqa: E402
from checks import check  # noqa: E402

RANK, SIZE = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
STORE_PATH = os.path.join(os.environ["NABLA_DIST_OUT"], "store")
handled = []


def file_handler(url, timeout=None, **kwargs):
    """A user's rendezvous handler: a FileStore at the URL's path; rank and world size from the query."""
    parsed = urllib.parse.urlparse(url)
    query = dict(p.split("=") for p in parsed.query.split("&"))
    handled.append(url)
    yield dist.FileStore(parsed.path, int(query["world_size"])), int(query["rank"]), int(query["world_size"])


dist.register_rendezvous_handler("nbtest", file_handler)
dist.init_process_group("mpi", init_method=f"nbtest://{STORE_PATH}", timeout=datetime.timedelta(seconds=60))
R, N = dist.get_rank(), dist.get_world_size()


def raises(kind, text, call) -> None:
    """call() raises kind with text in its message."""
    try:
        call()
    except kind as e:
        assert text in str(e), e
        return
    raise AssertionError(f"no {kind.__name__}: {text}")


def all_reduced(group, value):
    t = nb.tensor([float(value)], dtype=nb.float64)
    dist.all_reduce(t, group=group)
    return t.item()


@check("rendezvous", "registered-handler-made-the-default-store")
def _():
    url = urllib.parse.urlparse(handled[0])  # as torch's, the handler gets the URL with rank and world size
    assert len(handled) == 1 and (url.path, url.query) == (STORE_PATH, f"rank={R}&world_size={N}"), handled
    store = dist.distributed_c10d._get_default_store()
    store.set(f"k{R}", str(R * 10))
    assert [int(store.get(f"k{r}")) for r in range(N)] == [r * 10 for r in range(N)]
    try:
        dist.register_rendezvous_handler("nbtest", file_handler)
        raise AssertionError("registered twice")
    except RuntimeError as e:
        assert "Rendezvous handler for nbtest:// already registered" in str(e)


@check("rendezvous", "tcp-and-file-urls")
def _():
    port = int(os.environ["NABLA_TEST_PORT"])
    store, rank, size = next(dist.rendezvous(f"tcp://127.0.0.1:{port}", rank=R, world_size=N,
                                             timeout=datetime.timedelta(seconds=30)))
    assert (rank, size) == (R, N) and isinstance(store, dist.TCPStore)
    assert store.add("count", 1) >= 1
    store.wait(["count"])
    fstore, rank, size = next(dist.rendezvous(f"file://{STORE_PATH}.2?rank={R}&world_size={N}"))
    assert (rank, size) == (R, N) and isinstance(fstore, dist.FileStore)
    dist.barrier()
    assert int(store.get("count")) == N
    dist.barrier()  # rank 0's store serves the others until they are done


@check("objects", "send_object_list-recv_object_list")
def _():
    if R == 0:
        for peer in range(1, N):
            dist.send_object_list([{"to": peer}, "x" * peer, None, [1.5, peer]], dst=peer)
    else:
        got = [None] * 4
        assert dist.recv_object_list(got, src=0) == 0
        assert got == [{"to": R}, "x" * R, None, [1.5, R]], got
    sub = dist.new_group([N - 1, 0])  # group ranks: 0 -> global 0, 1 -> global N-1
    if R == N - 1:
        dist.send_object_list([("back", R)], group=sub, group_dst=0)
    elif R == 0:
        got = [None]
        assert dist.recv_object_list(got, group=sub, group_src=1) == N - 1 and got == [("back", N - 1)]


@check("single", "all_gather_single-and-reduce_scatter_single")
def _():
    x = nb.tensor([R * 2.0, R * 2.0 + 1])
    cat, stack = nb.zeros(2 * N), nb.zeros(N, 2)
    dist.all_gather_single(cat, x)
    dist.all_gather_single(stack, x, async_op=True).wait()
    assert cat.tolist() == [float(v) for v in range(2 * N)] and stack.reshape(-1).tolist() == cat.tolist()
    out = nb.zeros(2)
    dist.reduce_scatter_single(out, (nb.arange(2 * N, dtype=nb.float32) + R).reshape(N, 2))
    full = sum(np.arange(2 * N) + r for r in range(N))
    np.testing.assert_array_equal(out.numpy(), full[2 * R:2 * R + 2])


@check("subgroups", "new_subgroups")
def _():
    size = 2 if N % 2 == 0 else 1
    mine, everyone = dist.new_subgroups(group_size=size)
    members = list(range(R - R % size, R - R % size + size))
    assert len(everyone) == N // size and dist.get_process_group_ranks(mine) == members
    assert all_reduced(mine, R) == sum(members)
    for bad, text in ((N + 1, "must not exceed the world size"), (0, "must be positive")):
        raises(ValueError, text, lambda: dist.new_subgroups(group_size=bad))


@check("subgroups", "new_subgroups_by_enumeration")
def _():
    evens, odds = list(range(0, N, 2)), list(range(1, N, 2))
    mine, groups = dist.new_subgroups_by_enumeration([evens, odds])
    assert len(groups) == 2 and all_reduced(mine, R) == sum(evens if R % 2 == 0 else odds)
    raises(ValueError, "Rank 1 has appeared in both subgroup [0, 1] and [1]",
           lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]))


@check("subgroups", "split_group")
def _():
    half = N // 2
    low = list(range(half))
    g = dist.split_group(split_ranks=[low])  # the others are in no split: None
    if R < half:
        assert dist.get_process_group_ranks(g) == low and all_reduced(g, R + 1) == sum(r + 1 for r in low)
    else:
        assert g is None
    # a split of a subgroup: its group ranks, reversed order in the list does not matter
    parent = dist.new_group(list(range(N - 1, -1, -1)))
    pieces = [[1, 0]] + ([list(range(2, N))] if N > 2 else [])
    sub = dist.split_group(parent, pieces)
    want = [0, 1] if R < 2 else list(range(2, N))
    assert dist.get_process_group_ranks(sub) == want and all_reduced(sub, 1) == len(want)
    for bad, text in (([[0, 0]], "duplicate ranks"), ([[]], "cannot be empty"), ([[0, N]], "group ranks")):
        raises(ValueError, text, lambda: dist.split_group(split_ranks=bad))


@check("device_mesh", "1-D")
def _():
    mesh = dist.init_device_mesh("cpu", (N,))
    assert mesh.size() == N and mesh.ndim == 1 and mesh.get_local_rank() == R and mesh.get_rank() == R
    assert mesh.mesh.tolist() == list(range(N)) and all_reduced(mesh.get_group(), R) == sum(range(N))


@check("device_mesh", "2-D-all_reduce-per-dim")
def _():
    rows = 2 if N % 2 == 0 else 1
    shape = (rows, N // rows)
    mesh = dist.init_device_mesh("cpu", shape, mesh_dim_names=("dp", "tp"))
    layout = np.arange(N).reshape(shape)
    i, j = map(int, np.argwhere(layout == R)[0])
    assert mesh.shape == shape and mesh.size(0) == shape[0] and mesh.size("tp") == shape[1]
    assert mesh.get_coordinate() == [i, j] and mesh.get_local_rank("dp") == i and mesh.get_local_rank(1) == j
    assert mesh.mesh.tolist() == layout.tolist() and mesh.mesh_dim_names == ("dp", "tp")
    values = (np.arange(6, dtype=np.float64) + 1) * (R + 1)
    for dim, name in enumerate(("dp", "tp")):
        t = nb.from_numpy(values.copy())
        dist.all_reduce(t, group=mesh.get_group(name))
        line = layout[:, j] if dim == 0 else layout[i, :]
        np.testing.assert_array_equal(t.numpy(), sum((np.arange(6) + 1.0) * (r + 1) for r in line))
        assert dist.get_process_group_ranks(mesh.get_group(dim)) == line.tolist()
    dp = mesh["dp"]
    assert dp.mesh.tolist() == layout[:, j].tolist() and dp.get_group() is mesh.get_group("dp")
    assert dp.get_local_rank() == i and dp.mesh_dim_names == ("dp",)
    assert mesh["dp", "tp"] == mesh
    for call, kind, text in ((lambda: mesh["pp"], KeyError, "Mesh dimension 'pp' does not exist"),
                             (lambda: mesh.get_group(), RuntimeError, "needs to be specified"),
                             (lambda: dist.init_device_mesh("cpu", (N, 2)), RuntimeError, "holds"),
                             (lambda: dist.init_device_mesh("cpu", (N,), mesh_dim_names=("a", "b")), RuntimeError,
                              "should have same length"),
                             (lambda: dist.init_device_mesh("cuda:0", (N,)), ValueError, "with index")):
        raises(kind, text, call)


@check("debug", "set_debug_level-checks-groups-made-after")
def _():
    dist.set_debug_level(dist.DebugLevel.DETAIL)
    assert dist.get_debug_level() == dist.DebugLevel.DETAIL
    checked = dist.new_group()
    dist.set_debug_level_from_env()
    assert dist.get_debug_level() == dist.DebugLevel.OFF
    try:
        dist.all_reduce(nb.ones(3 + (R == 1)), group=checked)
        raise AssertionError("the mismatch went unnoticed")
    except RuntimeError as e:
        assert "tensor mismatch" in str(e), e


@check("debug", "breakpoint-on-one-rank")
def _():
    from nabla.distributed import _debug
    stops = []

    class FakePdb:
        def message(self, text):
            stops.append(text)

        def set_trace(self, frame):
            stops.append(frame.f_code.co_name)

    real, _debug._DistributedPdb = _debug._DistributedPdb, FakePdb
    try:
        dist.breakpoint(rank=N - 1, timeout_s=120)
        dist.breakpoint(rank=N - 1, skip=1)  # the first call with skip is passed over
    finally:
        _debug._DistributedPdb = real
    if R == N - 1:  # one stop, in the caller's frame (this check)
        assert len(stops) == 2 and f"dist.breakpoint(rank={N - 1})" in stops[0] and stops[1] == "_", stops
    else:
        assert stops == [], stops
    assert dist.group.WORLD._timeout == datetime.timedelta(seconds=120)


@check("debug", "record_comm-names-the-collectives")
def _():
    with nb.profiler.profile() as prof:
        with dist.record_comm("grads all_reduce"):
            dist.all_reduce(nb.ones(4))
    assert "grads all_reduce" in {e.key for e in prof.key_averages()}


checks.write(R)
dist.destroy_process_group()
sys.exit(0)
