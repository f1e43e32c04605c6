"""The rest of torch.distributed's surface: object point to point, the *_single collectives, subgroups,
split_group, DeviceMesh, the debug level, breakpoint, record_comm and rendezvous handlers on 2 and 4 ranks
(tests/distributed/surface.py, one mpiexec launch per rank count), and the pieces that need no ranks (the
options classes, BackendConfig, errors) against torch in this process."""
from __future__ import annotations

import datetime
import socket

import pytest

import nabla as nb
import nabla.distributed as dist
from test_distributed import assert_category_passed, run_checks

CATEGORIES = ["rendezvous", "objects", "single", "subgroups", "device_mesh", "debug"]


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def results(request, tmp_path_factory):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return run_checks(request.param, "surface.py", tmp_path_factory.mktemp(f"surface{request.param}"),
                      {"NABLA_TEST_PORT": str(port), "OMP_NUM_THREADS": "1"}, timeout=90)


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_rank_passes(results, category):
    assert_category_passed(results, category)


OPTIONS = ["AllreduceOptions", "AllreduceCoalescedOptions", "BroadcastOptions", "ReduceOptions", "AllToAllOptions",
           "BarrierOptions", "GatherOptions", "ScatterOptions", "ReduceScatterOptions"]


@pytest.mark.parametrize("name", OPTIONS)
def test_options_have_torchs_attributes_and_defaults(name):
    tdist = pytest.importorskip("torch.distributed")
    theirs, ours = getattr(tdist, name)(), getattr(dist, name)()
    attrs = sorted(a for a in dir(theirs) if not a.startswith("_"))
    assert sorted(vars(ours)) == attrs
    for a in attrs:
        want, got = getattr(theirs, a), getattr(ours, a)
        if a == "reduceOp":
            assert int(got) == int(want.op)
        else:
            assert got == want, a
    ours.timeout = datetime.timedelta(seconds=5)
    assert getattr(dist, name)().timeout == datetime.timedelta(milliseconds=-1)  # each instance its own
    with pytest.raises(AttributeError, match="has no attribute 'rootRank'"):
        dist.AllToAllOptions(rootRank=1)


def test_backend_config_and_default_backends():
    assert str(dist.BackendConfig("cpu:gloo,cuda:nccl")) == "cpu:gloo,cuda:nccl"
    assert dist.BackendConfig("nccl").get_device_backend_map() == {"cuda": "nccl"}
    assert str(dist.BackendConfig("MPI")) == "cpu:mpi"
    assert dist.get_default_backend_for_device("cpu") == "mpi"
    assert dist.get_default_backend_for_device(nb.device("cuda:1")) == "nccl"
    with pytest.raises(ValueError, match="Unknown c10d backend type FOO"):
        dist.BackendConfig("foo")
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_backend_config()


def test_names_and_classes_programs_reach():
    assert issubclass(dist.QueueEmptyError, dist.DistStoreError)
    assert dist.GroupName("pg0") == "pg0"
    assert dist.Reducer is nb.nn.parallel._reducer.Reducer
    op = dist._make_nccl_premul_sum(0.5)
    assert op == dist.ReduceOp.PREMUL_SUM and op.factor == 0.5 and op != dist.ReduceOp.SUM
    with pytest.raises(ValueError, match="one element"):
        dist._make_nccl_premul_sum(nb.ones(2))
    with pytest.raises(TypeError, match="factor must be a float"):
        dist._make_nccl_premul_sum("2")


def test_rendezvous_url_errors():
    with pytest.raises(RuntimeError, match="No rendezvous handler for foo://"):
        dist.rendezvous("foo://x")
    with pytest.raises(ValueError, match="tcp:// rendezvous: rank parameter missing"):
        next(dist.rendezvous("tcp://127.0.0.1:1"))
    with pytest.raises(ValueError, match="tcp:// rendezvous: port number missing"):
        next(dist.rendezvous("tcp://127.0.0.1", rank=0, world_size=1))
    with pytest.raises(AssertionError, match="has node-specific arguments"):
        dist.rendezvous("file:///tmp/x?rank=0", rank=0)
    with pytest.raises(RuntimeError, match="`rank` must be an integer"):
        dist.rendezvous("env://", rank="0")


def test_debug_level_from_the_environment(monkeypatch):
    from nabla.distributed import _debug
    monkeypatch.setattr(_debug, "_AT_START", None)
    monkeypatch.delenv("NABLA_DISTRIBUTED_DEBUG", raising=False)
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "INFO")
    dist.set_debug_level(dist.DebugLevel.DETAIL)
    assert dist.get_debug_level() == dist.DebugLevel.DETAIL
    dist.set_debug_level_from_env()
    assert dist.get_debug_level() == dist.DebugLevel.INFO
    monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "LOUD")
    with pytest.raises(ValueError, match="TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL"):
        dist.set_debug_level_from_env()
