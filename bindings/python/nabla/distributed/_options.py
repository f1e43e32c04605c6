"""Backend configuration (BackendConfig, get_backend_config, get_default_backend_for_device) and torch's
per-collective options classes, which nabla's collectives do not take (their arguments say the same): plain
holders of torch's attributes and defaults, for code that builds them."""
from __future__ import annotations

import datetime
import typing

from . import _backends
from . import distributed_c10d as c10d

GroupName = typing.NewType("GroupName", str)

# torch's kUnsetTimeout: the group's own timeout applies
_UNSET_TIMEOUT = datetime.timedelta(milliseconds=-1)
_DEFAULT_DEVICE_BACKEND = {"cpu": "mpi", "cuda": "nccl"}


class BackendConfig:
    """Which backend serves each device type of a group: BackendConfig("cpu:gloo,cuda:nccl"); str() gives
    "cpu:gloo,cuda:nccl"."""

    def __init__(self, backend) -> None:
        name = str(backend)
        if name == c10d.Backend.UNDEFINED:
            name = _backends.default_backend()
        self.device_backend_map = {d: c10d.Backend(b) for d, b in _backends.names(name.lower()).items()}

    def __repr__(self) -> str:
        return ",".join(f"{device}:{backend}" for device, backend in self.device_backend_map.items())

    def get_device_backend_map(self) -> dict:
        return self.device_backend_map


def get_backend_config(group=None) -> str:
    """The device:backend pairs of group (the default group), as "cpu:mpi" or "cpu:gloo,cuda:nccl"."""
    if group is c10d.GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return str(BackendConfig(c10d._group(group)._backend))


def get_default_backend_for_device(device) -> str:
    """The backend nabla uses for device's tensors by default: "mpi" for CPU, "nccl" for CUDA."""
    from .. import device as as_device
    kind = device.type if hasattr(device, "type") else as_device(device).type
    if kind not in _DEFAULT_DEVICE_BACKEND:
        raise ValueError(f"Default backend not registered for device : {device}")
    return _DEFAULT_DEVICE_BACKEND[kind]


class _Options:
    """Attributes with torch's defaults; keyword arguments override them."""
    _defaults: dict = {}

    def __init__(self, **kwargs) -> None:
        for name, value in {"timeout": _UNSET_TIMEOUT, "asyncOp": True, **self._defaults}.items():
            setattr(self, name, list(value) if isinstance(value, list) else value)
        for name, value in kwargs.items():
            if not hasattr(self, name):
                raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"


class AllreduceOptions(_Options):
    _defaults = {"reduceOp": c10d.ReduceOp.SUM}


class AllreduceCoalescedOptions(AllreduceOptions):
    pass


class ReduceScatterOptions(AllreduceOptions):
    pass


class BroadcastOptions(_Options):
    _defaults = {"rootRank": 0, "rootTensor": 0}


class ReduceOptions(_Options):
    _defaults = {"reduceOp": c10d.ReduceOp.SUM, "rootRank": 0, "rootTensor": 0}


class GatherOptions(_Options):
    _defaults = {"rootRank": 0}


class ScatterOptions(GatherOptions):
    pass


class AllToAllOptions(_Options):
    pass


class BarrierOptions(_Options):
    _defaults = {"device": None, "device_ids": []}
