"""The names PyTorch scripts touch at import time or once on their main path, checked
against torch on the same calls: torch.onnx, torch.nn.parallel, torch.cuda's seeding,
torch.backends switches, torch.accelerator, legacy typed constructors and Tensor.type,
finfo/iinfo, the math constants, and the bugs scripts hit right after their first lines
(re-assigned submodules keep their place, f"{t}" of a 0-dim tensor, .cuda() without a GPU)."""
from __future__ import annotations

import math
import subprocess
import sys
from collections import OrderedDict

import numpy as np
import pytest

import nabla
import nabla.nn as nn

torch = pytest.importorskip("torch")


def test_import_paths_scripts_use_exist():
    code = ("import nabla as torch, nabla.onnx, nabla.nn.parallel, nabla.backends.cudnn as cudnn\n"
            "from nabla.nn.parallel import DistributedDataParallel as DDP, DataParallel\n"
            "import nabla.distributions, nabla.accelerator, nabla.special\n"
            "print(cudnn.benchmark)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_onnx_export_raises_a_clear_runtime_error():
    assert nabla.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    with pytest.raises(RuntimeError, match="ONNX export is not available in nabla"):
        nabla.onnx.export(nn.Linear(2, 2), (nabla.ones(1, 2),), "model.onnx")


def test_ddp_without_a_process_group_raises_as_pytorch():
    with pytest.raises(ValueError, match="Default process group has not been initialized") as ours:
        nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
    assert "init_process_group" in str(ours.value)


def test_data_parallel_runs_the_module_unchanged():
    lin = nn.Linear(3, 2)
    dp = nn.parallel.DataParallel(lin)
    x = nabla.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), lin(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert [k for k in torch.nn.DataParallel(torch.nn.Linear(3, 2)).state_dict()] == list(dp.state_dict())


def test_cuda_seeding_without_a_gpu_leaves_the_cpu_stream_alone():
    if nabla.cuda.is_available():
        pytest.skip("checks the no-GPU behaviour")
    nabla.manual_seed(5)
    a = nabla.rand(3)
    nabla.manual_seed(5)
    nabla.cuda.manual_seed(7)
    nabla.cuda.manual_seed_all(7)
    b = nabla.rand(3)
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # torch.cuda.manual_seed never touches the CPU stream
    assert nabla.cuda.is_bf16_supported() in (True, False)
    with pytest.raises(TypeError):
        nabla.cuda.manual_seed("x")


def test_backends_switches_hold_pytorchs_defaults_and_read_back():
    b, tb = nabla.backends, torch.backends
    assert b.cuda.matmul.allow_tf32 == tb.cuda.matmul.allow_tf32
    assert (b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32, b.cudnn.enabled) == \
        (tb.cudnn.benchmark, tb.cudnn.deterministic, tb.cudnn.allow_tf32, tb.cudnn.enabled)
    assert b.mps.is_available() is tb.mps.is_available() is False
    assert b.cudnn.is_available() == nabla.cuda.is_available()
    assert nabla.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    try:
        b.cuda.matmul.allow_tf32 = True
        assert nabla.get_float32_matmul_precision() == "high"
        nabla.set_float32_matmul_precision("medium")
        assert b.cuda.matmul.allow_tf32 is True
        nabla.set_float32_matmul_precision("highest")
        assert b.cuda.matmul.allow_tf32 is False
    finally:
        nabla.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="Invalid precision"):
        nabla.set_float32_matmul_precision("fast")
    with pytest.raises(AttributeError):
        b.cuda.matmul.allow_tf33 = True
    with b.cuda.sdp_kernel(enable_flash=False):
        assert not b.cuda.flash_sdp_enabled()
    assert b.cuda.flash_sdp_enabled()


def test_accelerator_matches_pytorch_without_a_device():
    if nabla.cuda.is_available():
        assert nabla.accelerator.current_accelerator() == nabla.device("cuda")
        return
    assert nabla.accelerator.is_available() is torch.accelerator.is_available() is False
    assert nabla.accelerator.current_accelerator() is torch.accelerator.current_accelerator() is None
    assert nabla.accelerator.device_count() == torch.accelerator.device_count() == 0
    for fn in ("current_device_index", "synchronize"):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
            getattr(nabla.accelerator, fn)()
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
            getattr(torch.accelerator, fn)()
    device = nabla.accelerator.current_accelerator() if nabla.accelerator.is_available() else "cpu"
    assert nabla.ones(2, device=device).device.type == "cpu"


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ByteTensor",
                                  "BoolTensor", "ShortTensor", "CharTensor", "HalfTensor"])
def test_legacy_constructors_match_torch(name):
    ours, theirs = getattr(nabla, name), getattr(torch, name)
    a, b = ours([1, 0, 3]), theirs([1, 0, 3])
    assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert tuple(ours(2, 3).shape) == tuple(theirs(2, 3).shape) == (2, 3)
    assert tuple(ours(4).shape) == tuple(theirs(4).shape) == (4,)
    assert tuple(ours().shape) == tuple(theirs().shape) == (0,)
    assert isinstance(a, ours) and isinstance(b, theirs)
    assert not isinstance(a.to(nabla.int8 if name != "CharTensor" else nabla.int16), ours)
    assert a.type() == b.type() == f"torch.{name}"


def test_tensor_type_converts_like_torch():
    a, b = nabla.tensor([1.5, -2.0]), torch.tensor([1.5, -2.0])
    for target in ("torch.LongTensor", "torch.DoubleTensor"):
        np.testing.assert_array_equal(a.type(target).numpy(), b.type(target).numpy())
    np.testing.assert_array_equal(a.type(nabla.LongTensor).numpy(), b.type(torch.LongTensor).numpy())
    np.testing.assert_array_equal(a.type(nabla.int32).numpy(), b.type(torch.int32).numpy())
    assert a.type(nabla.float32) is a and b.type(torch.float32) is b
    with pytest.raises(ValueError, match="invalid type: 'torch.NoTensor'"):
        a.type("torch.NoTensor")
    with pytest.raises(ValueError):
        b.type("torch.NoTensor")


@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_finfo_matches_torch(name):
    a, b = nabla.finfo(getattr(nabla, name)), torch.finfo(getattr(torch, name))
    for f in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(a, f) == getattr(b, f), f
    assert a.dtype == b.dtype and repr(a) == repr(b)


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
def test_iinfo_matches_torch(name):
    a, b = nabla.iinfo(getattr(nabla, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.min, a.max, a.dtype, repr(a)) == (b.bits, b.min, b.max, b.dtype, repr(b))


def test_finfo_iinfo_refuse_the_other_kind_as_torch():
    assert nabla.finfo().dtype == torch.finfo().dtype == "float32"
    for ours, theirs, arg in ((nabla.finfo, torch.finfo, "int32"), (nabla.iinfo, torch.iinfo, "float32"),
                              (nabla.iinfo, torch.iinfo, "bool")):
        with pytest.raises(TypeError) as a:
            ours(getattr(nabla, arg))
        with pytest.raises(TypeError) as b:
            theirs(getattr(torch, arg))
        assert str(b.value).split(" (")[0] in str(a.value)


def test_math_constants():
    assert (nabla.pi, nabla.e, nabla.inf) == (torch.pi, torch.e, torch.inf) == (math.pi, math.e, math.inf)
    assert math.isnan(nabla.nan) and math.isnan(torch.nan)


def test_format_of_a_zero_dim_tensor_is_its_value():
    for v in (61.0, 3, True, -0.125):
        assert f"{nabla.tensor(v)}" == f"{torch.tensor(v)}"
        assert f"{nabla.tensor(v):>9}" == f"{torch.tensor(v):>9}"
    assert f"{nabla.tensor(2.0 / 3):.3f}" == f"{torch.tensor(2.0 / 3):.3f}" == "0.667"
    assert f"{nabla.tensor([1.0, 2.0])}" == "tensor([1., 2.])"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{nabla.tensor([1.0, 2.0]):.2f}"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{torch.tensor([1.0, 2.0]):.2f}"


def test_cuda_without_a_gpu_raises_pytorchs_type_with_the_reason():
    if nabla.cuda.is_available():
        pytest.skip("needs a machine without a usable GPU")
    t = nabla.ones(2)
    for call in (t.cuda, lambda: t.to("cuda"), lambda: nabla.ones(2, device="cuda"), nn.Linear(2, 2).cuda):
        with pytest.raises(AssertionError, match="CUDA is not available: ") as e:
            call()
        assert isinstance(e.value, RuntimeError)  # code written for nabla's earlier RuntimeError still catches it
    with pytest.raises(AssertionError):
        torch.ones(2).cuda()


def _base(m):
    """The same parent module built with nabla.nn or torch.nn (m)."""
    class Base(m.Module):
        def __init__(self):
            super().__init__()
            self.encoder = m.Linear(2, 3)
            self.decoder = m.Linear(3, 2)
            self.scale = m.Parameter(m.Linear(1, 1).weight.detach().new_ones(1))
            self.register_buffer("steps", self.scale.detach().new_zeros(1))
            self.head = m.Linear(2, 1)

    class Derived(Base):
        def __init__(self):
            super().__init__()
            self.decoder = m.Linear(3, 4)  # over the parent's
            self.scale = m.Parameter(self.scale.detach() * 2)
            self.steps = self.steps.detach() + 1

    return Base, Derived


def test_reassigned_submodule_parameter_and_buffer_keep_their_position_as_torch():
    ours, theirs = _base(nn)[1](), _base(torch.nn)[1]()
    sd = ours.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert tuple(ours.decoder.weight.shape) == (4, 3) and ours.scale.item() == 2.0 and ours.steps.item() == 1.0
    assert repr(ours).splitlines()[1:] == repr(theirs).splitlines()[1:]


def test_replacing_a_submodule_by_a_parameter_moves_it_as_torch():
    ours, theirs = _base(nn)[0](), _base(torch.nn)[0]()
    ours.decoder = nn.Parameter(nabla.ones(1))
    theirs.decoder = torch.nn.Parameter(torch.ones(1))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
