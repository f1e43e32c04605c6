"""The rest of torch.cuda's names (allocator controls, build and device information, errors, sync
debugging, graphs, NVML readings) and the device-generic nabla.Stream / nabla.Event: on a machine
without a GPU against PyTorch's CPU build, and on the (emulated) device against PyTorch's semantics."""
from __future__ import annotations

import collections
import os
import sys
import types
import warnings

import pytest

import nabla
from nabla._lib import DeviceUnavailableError

torch = pytest.importorskip("torch")

# The emulated-device pass of CI runs this file with libasan preloaded; there, a C++ exception torch
# throws (its CPU Stream/Event refusals) aborts in ASan's __cxa_throw interceptor. The plain pass runs them.
torch_throws = pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""),
                                  reason="torch's C++ exceptions abort under the ASan preload; run in the plain pass")
cuda = nabla.cuda
HAS_CUDA = cuda.is_available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device (set NABLA_CUDA_PLUGIN to the emulated one)")
no_cuda = pytest.mark.skipif(HAS_CUDA, reason="checks the machine without CUDA")
torch_without_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="compares with PyTorch without a GPU")

# ---- without a GPU: what PyTorch's CPU build returns, and where it raises ----

RAISING = {  # name -> the call; PyTorch's CPU build raises AssertionError or (a missing binding) AttributeError
    "reset_accumulated_memory_stats": lambda m: m.reset_accumulated_memory_stats(),
    "caching_allocator_alloc": lambda m: m.caching_allocator_alloc(16),
    "caching_allocator_delete": lambda m: m.caching_allocator_delete(0),
    "caching_allocator_disabled": lambda m: m.caching_allocator_disabled().__enter__(),
    "get_allocator_backend": lambda m: m.get_allocator_backend(),
    "set_per_process_memory_fraction": lambda m: m.set_per_process_memory_fraction(0.5),
    "get_per_process_memory_fraction": lambda m: m.get_per_process_memory_fraction(),
    "reset_accumulated_host_memory_stats": lambda m: m.reset_accumulated_host_memory_stats(),
    "reset_peak_host_memory_stats": lambda m: m.reset_peak_host_memory_stats(),
    "ipc_collect": lambda m: m.ipc_collect(),
    "can_device_access_peer": lambda m: m.can_device_access_peer(0, 0),
    "cudart": lambda m: m.cudart(),
    "current_blas_handle": lambda m: m.current_blas_handle(),
    "current_solver_handle": lambda m: m.current_solver_handle(),
    "get_stream_from_external": lambda m: m.get_stream_from_external(0),
    "set_sync_debug_mode": lambda m: m.set_sync_debug_mode("warn"),
    "get_sync_debug_mode": lambda m: m.get_sync_debug_mode(),
    "is_current_stream_capturing": lambda m: m.is_current_stream_capturing(),
    "make_graphed_callables": lambda m: m.make_graphed_callables(lambda x: x, ()),
}


@no_cuda
@torch_without_cuda
@pytest.mark.parametrize("name", sorted(RAISING))
def test_requests_pytorch_refuses_without_a_gpu_raise_the_reason(name):
    with pytest.raises((AssertionError, AttributeError, RuntimeError)):
        RAISING[name](torch.cuda)
    with pytest.raises(DeviceUnavailableError) as info:
        RAISING[name](cuda)
    assert isinstance(info.value, AssertionError) and isinstance(info.value, RuntimeError)
    assert cuda.unavailable_reason() in str(info.value)


@no_cuda
@torch_without_cuda
def test_values_without_a_gpu_match_pytorch():
    assert cuda.memory_stats_as_nested_dict() == torch.cuda.memory_stats_as_nested_dict() == {}
    assert cuda.host_memory_stats() == torch.cuda.host_memory_stats() == collections.OrderedDict()
    assert isinstance(cuda.host_memory_stats(), collections.OrderedDict)
    assert cuda.host_memory_stats_as_nested_dict() == torch.cuda.host_memory_stats_as_nested_dict() == {}
    assert cuda.get_arch_list() == torch.cuda.get_arch_list() == []
    assert cuda.get_gencode_flags() == torch.cuda.get_gencode_flags() == ""
    assert cuda.is_tf32_supported() is torch.cuda.is_tf32_supported() is False
    assert cuda.default_generators == torch.cuda.default_generators == ()
    assert cuda.caching_allocator_enable() is None and cuda.caching_allocator_enable(False) is None
    cuda.caching_allocator_enable(True)


@torch_without_cuda
@pytest.mark.parametrize("name", ["memory_cached", "max_memory_cached"])
def test_deprecated_cached_names_warn_and_read_reserved(name):
    with pytest.warns(FutureWarning, match="has been renamed to"):
        value = getattr(cuda, name)()
    assert value == getattr(cuda, name.replace("cached", "reserved"))()
    if not HAS_CUDA:
        with pytest.warns(FutureWarning):
            assert getattr(torch.cuda, name)() == value == 0


@no_cuda
def test_reset_max_memory_cached_warns_then_needs_a_device():
    with pytest.warns(FutureWarning, match="resets /all/ peak"), pytest.raises(RuntimeError):
        cuda.reset_max_memory_cached()


def test_nvml_readings_without_nvidia_ml_py_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # import fails, as where the package is missing
    for name in ("device_memory_used", "memory_usage", "utilization", "temperature", "power_draw", "clock_rate"):
        with pytest.raises(ModuleNotFoundError) as ours:
            getattr(cuda, name)()
        with pytest.raises(ModuleNotFoundError) as theirs:
            getattr(torch.cuda, name)()
        assert str(ours.value) == str(theirs.value)
    assert cuda.list_gpu_processes() == "pynvml module not found, please install nvidia-ml-py"


def test_cuda_errors_need_no_device():
    assert cuda.check_error(0) is None
    with pytest.raises(cuda.CudaError, match=r"^out of memory \(2\)$"):
        cuda.check_error(2)
    assert str(cuda.CudaError(12345)) == "unrecognized error code (12345)"
    assert issubclass(cuda.CudaError, RuntimeError)
    assert (cuda.cudaStatus.SUCCESS, cuda.cudaStatus.ERROR_NOT_READY) == (torch.cuda.cudaStatus.SUCCESS,
                                                                          torch.cuda.cudaStatus.ERROR_NOT_READY)
    assert issubclass(cuda.DeferredCudaCallError, Exception)
    assert not issubclass(cuda.DeferredCudaCallError, RuntimeError)
    assert cuda.AcceleratorError is nabla.AcceleratorError and issubclass(nabla.AcceleratorError, RuntimeError)
    assert torch.cuda.AcceleratorError is torch.AcceleratorError


def test_device_requirement_table_matches_pytorch():
    assert set(cuda.DEVICE_REQUIREMENT) == set(torch.cuda.DEVICE_REQUIREMENT)
    for code, rule in cuda.DEVICE_REQUIREMENT.items():
        theirs = torch.cuda.DEVICE_REQUIREMENT[code]
        assert str(rule) == str(theirs), code
        for hardware in range(50, 130):
            assert (hardware in rule) == (hardware in theirs), (code, hardware)


def test_graph_capture_and_green_contexts_raise_clearly():
    for make in (cuda.CUDAGraph, cuda.graph_pool_handle, lambda: cuda.graph(None)):
        with pytest.raises(RuntimeError, match="CUDA graphs are not supported by nabla"):
            make()
    with pytest.raises(RuntimeError, match="green contexts"):
        cuda.GreenContext.create(num_sms=1)


# ---- nabla.Stream / nabla.Event on the CPU, against torch.Stream / torch.Event ----

def _same_repr(ours, theirs) -> None:
    assert repr(ours).replace("nabla.", "torch.", 1) == repr(theirs)


@torch_throws
def test_cpu_stream_behaves_as_torch_stream():
    ours, theirs = nabla.Stream("cpu", priority=-1), torch.Stream("cpu", priority=-1)
    _same_repr(ours, theirs)
    assert (ours.device_type, ours.device_index, ours.stream_id) == (theirs.device_type, theirs.device_index,
                                                                    theirs.stream_id)
    assert str(ours.device) == str(theirs.device) == "cpu"
    assert ours.query() is theirs.query() is True
    assert ours.synchronize() is None
    assert ours == nabla.Stream("cpu") and hash(ours) == hash(nabla.Stream("cpu")) and ours != 1
    ours.wait_event(nabla.Event("cpu"))
    for mine, torchs in ((lambda s: s.record_event(), lambda s: s.record_event()),
                         (lambda s: s.wait_stream(nabla.Stream("cpu")), lambda s: s.wait_stream(torch.Stream("cpu")))):
        with pytest.raises(RuntimeError) as a:
            mine(ours)
        with pytest.raises(RuntimeError) as b:
            torchs(theirs)
        assert str(a.value) == str(b.value) == "cpu backend doesn't support events."
    with ours as entered:
        assert entered is ours
    with pytest.raises(RuntimeError, match="native handle"):
        ours.native_handle
    with pytest.raises(TypeError):
        nabla.Stream("cpu", 0)  # priority is keyword-only


@torch_throws
def test_cpu_event_behaves_as_torch_event():
    ours, theirs = nabla.Event("cpu", enable_timing=True), torch.Event("cpu", enable_timing=True)
    _same_repr(ours, theirs)
    _same_repr(nabla.Event("cpu", blocking=True, interprocess=True), torch.Event("cpu", blocking=True,
                                                                                 interprocess=True))
    assert ours.event_id == theirs.event_id == 0 and str(ours.device) == "cpu"
    assert ours.query() is True and ours.synchronize() is None and ours.wait() is None
    ours.wait(nabla.Stream("cpu"))
    with pytest.raises(RuntimeError, match="^cpu backend doesn't support events.$"):
        ours.record()
    for a, b in ((nabla.Event("cpu"), torch.Event("cpu")), (ours, theirs)):
        with pytest.raises(ValueError) as mine:
            a.elapsed_time(ours)
        with pytest.raises(ValueError) as torchs:
            b.elapsed_time(theirs)
        assert str(mine.value) == str(torchs.value)
    with pytest.raises(NotImplementedError):
        ours.ipc_handle()


@no_cuda
def test_default_and_index_devices_without_a_gpu():
    assert str(nabla.Stream().device) == str(torch.Stream().device) == "cpu"
    assert str(nabla.Event().device) == "cpu"
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        nabla.Stream(0)
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        nabla.Stream("cuda")
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        nabla.Event("cuda")


# ---- on the device ----

@needs_cuda
def test_generic_stream_and_event_on_cuda():
    assert issubclass(cuda.Stream, nabla.Stream) and issubclass(cuda.Event, nabla.Event)
    s = nabla.Stream()
    assert s.device == nabla.device("cuda", cuda.current_device()) and (s.device_type, s.device_index) == (1, 0)
    assert s.native_handle != 0 and s != cuda.default_stream()
    start, end = nabla.Event(enable_timing=True), nabla.Event("cuda:0", enable_timing=True)
    with pytest.raises(ValueError, match="recorded"):
        start.elapsed_time(end)
    with s:
        assert cuda.current_stream() == s
        start.record()
        x = nabla.full((1 << 16,), 2.0, device="cuda") * 3.0
        e = s.record_event()
        end.record(s)
    assert cuda.current_stream() == cuda.default_stream()
    assert type(e) is nabla.Event and e.device == s.device and e.event_id != 0
    cuda.default_stream().wait_stream(s)
    e.wait()
    s.synchronize()
    assert s.query() and e.query() and end.query()
    assert start.elapsed_time(end) >= 0
    assert x[-1].item() == 6.0
    assert type(cuda.Stream().record_event()) is cuda.Event
    with pytest.raises(RuntimeError, match="enable_timing"):
        cuda.Event().elapsed_time(end)
    with pytest.raises(NotImplementedError):
        nabla.Event("cuda", interprocess=True)


@needs_cuda
def test_raw_blocks_come_from_the_caching_allocator():
    base = cuda.memory_allocated()
    ptr = cuda.caching_allocator_alloc(1 << 20)
    assert ptr != 0 and cuda.memory_allocated() == base + (1 << 20)
    side = cuda.Stream()
    p2 = cuda.caching_allocator_alloc(1000, device=0, stream=side)
    p3 = cuda.caching_allocator_alloc(1000, stream=side.cuda_stream)
    assert len({ptr, p2, p3}) == 3
    for p in (ptr, p2, p3):
        cuda.caching_allocator_delete(p)
    assert cuda.memory_allocated() == base
    assert cuda.caching_allocator_alloc(0) == 0
    cuda.caching_allocator_delete(0)
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        cuda.caching_allocator_delete(ptr)
    with pytest.raises(TypeError, match="Invalid type for stream argument"):
        cuda.caching_allocator_alloc(16, stream="s")


@needs_cuda
def test_statistics_nesting_accumulated_reset_and_cached_names():
    kept = [nabla.empty(1024, device="cuda") for _ in range(3)]
    flat = cuda.memory_stats()
    nested = cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == flat["allocated_bytes.all.current"]
    assert nested["num_ooms"] == flat["num_ooms"]
    cuda.reset_accumulated_memory_stats()
    after = cuda.memory_stats()
    assert after["allocation.all.allocated"] == after["allocation.all.freed"] == after["num_device_alloc"] == 0
    assert after["allocation.all.current"] == flat["allocation.all.current"]  # not an accumulated counter
    del kept[0]
    again = cuda.memory_stats()
    assert again["allocation.all.freed"] == 1 and again["allocation.all.current"] == flat["allocation.all.current"] - 1
    with pytest.warns(FutureWarning):
        cuda.reset_max_memory_cached()
    assert cuda.max_memory_reserved() >= cuda.memory_reserved()


@needs_cuda
def test_pinned_host_memory_statistics():
    cuda.reset_peak_host_memory_stats()
    before = cuda.host_memory_stats()
    p = nabla.ones(1 << 18).pin_memory()  # 1 MiB
    during = cuda.host_memory_stats_as_nested_dict()
    assert during["active_bytes"]["current"] >= before.get("active_bytes.current", 0) + (1 << 20)
    assert during["allocated_bytes"]["current"] >= during["active_bytes"]["current"]
    assert during["active_requests"]["current"] >= 1 and during["num_host_alloc"] >= 1
    flat = cuda.host_memory_stats()
    assert isinstance(flat, collections.OrderedDict) and list(flat) == sorted(flat)
    assert flat["active_bytes.peak"] == during["active_bytes"]["peak"]
    del p
    cuda.reset_peak_host_memory_stats()
    assert cuda.host_memory_stats()["active_bytes.peak"] == cuda.host_memory_stats()["active_bytes.current"]
    cuda.reset_accumulated_host_memory_stats()
    assert cuda.host_memory_stats()["active_requests.allocated"] == 0


@needs_cuda
def test_allocator_controls_on_the_device():
    assert cuda.get_allocator_backend() == "native"
    assert cuda.get_per_process_memory_fraction() == 1.0
    cuda.set_per_process_memory_fraction(0.25)
    assert cuda.get_per_process_memory_fraction(0) == 0.25
    with pytest.raises(TypeError, match="must be `float`"):
        cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        cuda.set_per_process_memory_fraction(1.5)
    cuda.set_per_process_memory_fraction(1.0)
    with cuda.caching_allocator_disabled():
        nabla.ones(4, device="cuda")
    assert cuda.ipc_collect() is None


@needs_cuda
def test_build_and_device_information():
    archs = sorted(int(a) for a in cuda.get_device_properties().gpu_archs.split(","))
    assert cuda.get_arch_list() == [f"sm_{a}" for a in archs] + [f"compute_{archs[0]}"]
    flags = cuda.get_gencode_flags().split(" -gencode ")
    assert flags[0] == f"-gencode compute=compute_{archs[0]},code=sm_{archs[0]}"
    assert flags[-1] == f"compute=compute_{archs[0]},code=compute_{archs[0]}"
    assert cuda.is_tf32_supported() is (cuda.get_device_capability()[0] >= 8)
    assert cuda.can_device_access_peer(0, 0) is False
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        cuda.can_device_access_peer(0, cuda.device_count())
    rt = cuda.cudart()
    cuda.check_error(rt.cudaProfilerStart())
    cuda.check_error(rt.cudaProfilerStop())
    assert rt.cudaGetErrorString(rt.cudaError.success) == "no error"
    with pytest.raises(RuntimeError, match="cuBLAS"):
        cuda.current_blas_handle()
    with pytest.raises(RuntimeError, match="cuSOLVER"):
        cuda.current_solver_handle()
    owner = cuda.Stream()
    ext = cuda.get_stream_from_external(owner.cuda_stream)
    assert isinstance(ext, cuda.Stream) and ext.cuda_stream == owner.cuda_stream
    assert cuda.default_generators == (nabla.default_generator,) * cuda.device_count()
    assert cuda.is_current_stream_capturing() is False
    model = nabla.nn.Linear(2, 2).cuda()
    assert cuda.make_graphed_callables(model, (nabla.ones(1, 2, device="cuda"),)) is model


@needs_cuda
def test_sync_debug_mode_reports_host_waits():
    x = nabla.ones(3, device="cuda")
    try:
        assert cuda.get_sync_debug_mode() == 0
        cuda.set_sync_debug_mode("warn")
        assert cuda.get_sync_debug_mode() == 1
        for wait in (lambda: x[0].item(), x.cpu, x.tolist, cuda.Stream().synchronize):
            with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
                wait()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            nabla.ones(1).item()  # CPU tensors never wait
            cuda.synchronize()  # an explicit wait is not reported
        cuda.set_sync_debug_mode(2)
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            x.sum().item()
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
            cuda.set_sync_debug_mode("loud")
        with pytest.raises(RuntimeError, match="expected one of 0,1, or 2"):
            cuda.set_sync_debug_mode(3)
    finally:
        cuda.set_sync_debug_mode("default")
    assert x.sum().item() == 3.0


@needs_cuda
def test_nvml_readings_through_nvidia_ml_py(monkeypatch):
    uuid = cuda.get_device_properties(0).uuid
    calls = []
    fake = types.SimpleNamespace(
        NVMLError_DriverNotLoaded=type("NVMLError_DriverNotLoaded", (Exception,), {}),
        nvmlInit=lambda: None,
        nvmlDeviceGetHandleByUUID=lambda u: calls.append(u) or "handle",
        nvmlDeviceGetMemoryInfo=lambda h: types.SimpleNamespace(used=123),
        nvmlDeviceGetUtilizationRates=lambda h: types.SimpleNamespace(gpu=40, memory=7),
        nvmlDeviceGetTemperature=lambda h, sensor: 55 + sensor,
        nvmlDeviceGetPowerUsage=lambda h: 70000,
        nvmlDeviceGetClockInfo=lambda h, clock: 1000 + clock,
        nvmlDeviceGetComputeRunningProcesses=lambda h: [types.SimpleNamespace(pid=42, usedGpuMemory=3 << 20)])
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    assert (cuda.device_memory_used(), cuda.memory_usage(), cuda.utilization(), cuda.temperature(),
            cuda.power_draw(), cuda.clock_rate("cuda:0")) == (123, 7, 40, 55, 70000, 1001)
    assert calls[0] == f"GPU-{uuid[:8]}-{uuid[8:12]}-{uuid[12:16]}-{uuid[16:20]}-{uuid[20:]}"
    assert cuda.list_gpu_processes() == "GPU:0\nprocess         42 uses        3.000 MB GPU memory"


def test_star_import_has_every_subject_name():
    """`from nabla.cuda import *` gives the names nabla.cuda looks up lazily, each the subject
    module's own object."""
    from nabla._cuda_names import SUBJECT_NAMES
    scope: dict = {}
    exec("from nabla.cuda import *", scope)
    for subject, names in SUBJECT_NAMES.items():
        module = __import__(f"nabla.{subject}", fromlist=["_"])
        assert module.__all__ == list(names)
        for name in names:
            assert scope[name] is getattr(module, name) is getattr(nabla.cuda, name), name
            assert name in dir(nabla.cuda)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        nabla.cuda.no_such_name
