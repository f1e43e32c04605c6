"""How much of torch 2.13's public surface nabla has, per namespace (tests/api_coverage.py
counts it; docs/coverage.md shows the table and the rules for what is left out on purpose).
The floors catch a name that disappears; raise them when coverage grows."""
from __future__ import annotations

import pathlib

import pytest

pytest.importorskip("torch")
import api_coverage  # noqa: E402

# coverage (%) measured when the floors were set; a drop below them is a regression
FLOORS = {"torch": 100.0, "torch.Tensor": 100.0, "torch.nn": 100.0, "torch.nn.functional": 100.0, "torch.nn.init": 100.0,
          "torch.nn.utils": 100.0, "torch.optim": 100.0, "torch.optim.lr_scheduler": 100.0, "torch.special": 100.0,
          "torch.distributions": 100.0, "torch.linalg": 100.0, "torch.cuda": 100.0,
          "torch.distributed": 100.0}

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "coverage.md"


@pytest.fixture(scope="module")
def cov():
    return api_coverage.coverage()


def test_every_namespace_keeps_its_floor(cov):
    assert set(cov) == set(FLOORS)
    for ns, (have, total, _, missing) in cov.items():
        pct = 100.0 * have / total
        assert pct >= FLOORS[ns], f"{ns}: {pct:.1f}% < {FLOORS[ns]}% (now missing: {missing})"


def test_the_names_programs_needed_are_all_there(cov):
    """The names issue 19 lists by name never go missing again."""
    import nabla
    wanted = ["onnx", "accelerator", "distributions", "einsum", "allclose", "diag", "LongTensor", "FloatTensor",
              "finfo", "iinfo", "pi", "e", "inf", "nan", "repeat_interleave", "diff", "lerp", "compile", "jit",
              "testing", "futures", "multiprocessing", "backends"]
    assert [n for n in wanted if not hasattr(nabla, n)] == []
    F = nabla.nn.functional
    assert [n for n in ("normalize", "interpolate", "adaptive_max_pool2d", "rms_norm", "cosine_similarity")
            if not hasattr(F, n)] == []
    assert [n for n in ("RMSNorm", "InstanceNorm1d", "InstanceNorm2d", "Dropout1d", "Dropout2d", "ReflectionPad2d",
                        "ZeroPad2d", "ReplicationPad2d", "ConstantPad2d") if not hasattr(nabla.nn, n)] == []
    assert [n for n in ("Adadelta", "NAdam", "RAdam", "Adamax", "ASGD", "Rprop", "LBFGS")
            if not hasattr(nabla.optim, n)] == []
    assert [n for n in ("SequentialLR", "ChainedScheduler", "LinearLR", "ConstantLR", "PolynomialLR",
                        "CosineAnnealingWarmRestarts", "CyclicLR", "OneCycleLR")
            if not hasattr(nabla.optim.lr_scheduler, n)] == []
    assert hasattr(nabla.Tensor, "unfold") and hasattr(nabla.Tensor, "type")


def test_docs_table_lists_every_rule():
    text = DOC.read_text()
    for _, reason in api_coverage.LEFT_OUT + api_coverage.LEFT_OUT_TOP_LEVEL:
        assert reason.split(":")[0].split("(")[0].strip()[:40] in text, reason
    for ns in FLOORS:
        assert f"`{ns}`" in text


def test_the_distributed_names_issue_20_lists_are_there():
    import nabla.distributed as dist
    wanted = ["send_object_list", "recv_object_list", "all_gather_single", "reduce_scatter_single", "new_subgroups",
              "new_subgroups_by_enumeration", "split_group", "get_default_backend_for_device", "get_backend_config",
              "set_debug_level", "set_debug_level_from_env", "breakpoint", "QueueEmptyError", "GroupName",
              "AllreduceOptions", "BroadcastOptions", "ReduceOptions", "AllToAllOptions", "AllreduceCoalescedOptions",
              "BarrierOptions", "GatherOptions", "ScatterOptions", "ReduceScatterOptions", "BackendConfig", "Logger",
              "Reducer", "record_comm", "register_rendezvous_handler", "rendezvous", "DeviceMesh", "init_device_mesh",
              "_make_nccl_premul_sum"]
    assert [n for n in wanted if not hasattr(dist, n)] == []
