"""torch.cuda's readings of the NVIDIA management library (NVML), through the nvidia-ml-py package
(`pynvml`) as PyTorch reads them. Without that package each call raises ModuleNotFoundError and
list_gpu_processes() returns the hint, both with PyTorch's words. A nabla device is matched to its
NVML device by UUID, so CUDA_VISIBLE_DEVICES needs no parsing."""
from __future__ import annotations

from ._cuda_names import SUBJECT_NAMES
from .cuda import _device_index, current_device, get_device_properties

__all__ = list(SUBJECT_NAMES["_cuda_nvml"])


def _pynvml():
    try:
        import pynvml
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be imported.") from e
    return pynvml


def _handle(device, pynvml=None):
    """The NVML handle of a nabla CUDA device (None: the current one)."""
    pynvml = pynvml or _pynvml()
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from e
    idx = _device_index(device)
    u = get_device_properties(current_device() if idx < 0 else idx).uuid
    return pynvml.nvmlDeviceGetHandleByUUID(f"GPU-{u[:8]}-{u[8:12]}-{u[12:16]}-{u[16:20]}-{u[20:]}")


def device_memory_used(device=None) -> int:
    """Bytes of the device's memory in use, by every process (NVML)."""
    return _pynvml().nvmlDeviceGetMemoryInfo(_handle(device)).used


def memory_usage(device=None) -> int:
    """Percent of the last sample period in which device memory was read or written (NVML)."""
    return _pynvml().nvmlDeviceGetUtilizationRates(_handle(device)).memory


def utilization(device=None) -> int:
    """Percent of the last sample period in which a kernel ran on the device (NVML)."""
    return _pynvml().nvmlDeviceGetUtilizationRates(_handle(device)).gpu


def temperature(device=None) -> int:
    """The GPU die's temperature in degrees Celsius (NVML)."""
    return _pynvml().nvmlDeviceGetTemperature(_handle(device), 0)


def power_draw(device=None) -> int:
    """The device's power draw in milliwatts (NVML)."""
    return _pynvml().nvmlDeviceGetPowerUsage(_handle(device))


def clock_rate(device=None) -> int:
    """The SM clock in MHz (NVML)."""
    return _pynvml().nvmlDeviceGetClockInfo(_handle(device), 1)


def list_gpu_processes(device=None) -> str:
    """The processes using the device and their memory, one line each (NVML)."""
    try:
        import pynvml
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded:
        return "cuda driver can't be loaded, is cuda enabled?"
    idx = _device_index(device)
    idx = current_device() if idx < 0 else idx
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(_handle(idx, pynvml))
    lines = [f"GPU:{idx}"] + (["no processes are running"] if not procs else [])
    lines += [f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory" for p in procs]
    return "\n".join(lines)
