"""PyTorch's legacy typed-tensor names that scripts still use: nabla.LongTensor(...),
nabla.FloatTensor, ..., isinstance(t, nabla.LongTensor), Tensor.type() and
Tensor.type(dtype_or_name). Type strings read 'torch.FloatTensor' as PyTorch's,
so code comparing them keeps working."""
from __future__ import annotations

from . import _dtype
from ._tensor import Tensor

# (legacy name, dtype), in PyTorch's order
_NAMES = (("FloatTensor", _dtype.float32), ("DoubleTensor", _dtype.float64), ("HalfTensor", _dtype.float16),
          ("BFloat16Tensor", _dtype.bfloat16), ("CharTensor", _dtype.int8), ("ShortTensor", _dtype.int16),
          ("IntTensor", _dtype.int32), ("LongTensor", _dtype.int64), ("ByteTensor", _dtype.uint8),
          ("BoolTensor", _dtype.bool_))
_BY_DTYPE = {d: n for n, d in _NAMES}


class _LegacyMeta(type):
    """isinstance(t, nabla.LongTensor) checks the dtype and device, as PyTorch's tensor types do."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == cls.device_type

    def __call__(cls, *args, device=None):
        """T(*sizes) is uninitialised; T(data) copies data; T() is empty; T(tensor) converts without copying."""
        from ._factory import empty, tensor
        dev = cls.device_type if device is None else device
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0].to(cls.dtype)
        if len(args) == 1 and not hasattr(args[0], "__index__") and not isinstance(args[0], tuple):
            return tensor(args[0], dtype=cls.dtype, device=dev)
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        if not args:
            args = (0,)
        return empty(*args, dtype=cls.dtype, device=dev)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}'>"


def _make(name: str, dt: _dtype.dtype, device_type: str, module: str):
    cls = _LegacyMeta(name, (), {"dtype": dt, "device_type": device_type, "is_cuda": device_type == "cuda",
                                 "__doc__": f"{name}(*sizes) or {name}(data): a {dt!r} tensor (legacy constructor)."})
    cls.__module__ = module
    return cls


CPU_TYPES = {n: _make(n, d, "cpu", "nabla") for n, d in _NAMES}
CUDA_TYPES = {n: _make(n, d, "cuda", "nabla.cuda") for n, d in _NAMES}


def type_name(t: Tensor) -> str:
    """'torch.FloatTensor', 'torch.cuda.LongTensor': PyTorch's type string of t."""
    return f"torch.{'cuda.' if t.is_cuda else ''}{_BY_DTYPE[t.dtype]}"


def _parse(name: str):
    """A type string ('torch.LongTensor', 'nabla.cuda.FloatTensor', 'LongTensor') -> (dtype, device type)."""
    parts = name.split(".")
    if parts[0] in ("torch", "nabla"):
        parts = parts[1:]
    cuda = len(parts) == 2 and parts[0] == "cuda"
    table = CUDA_TYPES if cuda else CPU_TYPES
    if len(parts) - cuda != 1 or parts[-1] not in table:
        raise ValueError(f"invalid type: '{name}'")
    cls = table[parts[-1]]
    return cls.dtype, cls.device_type


def tensor_type(t: Tensor, dtype=None, non_blocking: bool = False, **kwargs):
    """t.type() -> its type string; t.type(dtype | legacy class | type string) -> t converted (t itself if same)."""
    if dtype is None:
        if kwargs:
            raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return type_name(t)
    if isinstance(dtype, _dtype.dtype):
        return t.to(dtype, non_blocking=non_blocking)
    if isinstance(dtype, _LegacyMeta):
        target, device = dtype.dtype, dtype.device_type
    elif isinstance(dtype, str):
        target, device = _parse(dtype)
    else:
        raise TypeError(f"type(): expected a dtype, a tensor type or a type string, got {type(dtype).__name__}")
    if device == t.device.type:
        return t.to(target, non_blocking=non_blocking)
    return t.to(device, target, non_blocking=non_blocking)


def set_default_tensor_type(t) -> None:
    """set_default_tensor_type(nabla.DoubleTensor | 'torch.cuda.FloatTensor'): the default dtype, and the
    default device for a CUDA type (deprecated in PyTorch, with its warning)."""
    import warnings
    from ._device import set_default_device
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    dt, device = _parse(t) if isinstance(t, str) else (t.dtype, t.device_type) if isinstance(t, _LegacyMeta) \
        else (None, None)
    if dt is None:
        raise TypeError(f"invalid type object: only floating-point types are supported as the default type")
    if not dt.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type")
    _dtype.set_default_dtype(dt)
    set_default_device(device if device == "cuda" else None)
