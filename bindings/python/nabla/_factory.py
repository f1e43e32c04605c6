"""Tensor factories with PyTorch's names and signatures."""
from __future__ import annotations

import numbers

import numpy as np

from . import _dtype, _device
from ._dlpack import from_numpy
from ._lib import error, ffi, lib
from ._size import Size, size_args
from ._tensor import Tensor, _call, _new_object

_CPU_ARGS = (lib.NB_CPU, 0)


_dev = _device.resolve  # (type, index) of device=, or of the default device when None


def _code(dtype, default: _dtype.dtype) -> int:
    if dtype is None:
        return default.code
    if dtype.__class__ is _dtype.dtype:
        return dtype.code
    raise TypeError(f"dtype must be a nabla.dtype, not {type(dtype).__name__}")


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        t.requires_grad_(True)
    return t


def _shaped(fn, fname: str):
    """A factory f(*size, dtype=None, device=None, requires_grad=False) over lib.nbpy_<fn>.
    The common case (int sizes, default dtype, CPU) takes no helper calls."""
    default = _dtype._default
    default_device = _device._default
    cpu = lib.NB_CPU

    def factory(*size, dtype=None, device=None, requires_grad=False):
        if len(size) != 1 or size[0].__class__ is not int:
            size = size_args(size, fname)
        code = default[0].code if dtype is None else _code(dtype, None)
        if device is None and default_device.device is None:
            h = fn(size, len(size), code, cpu, 0)
        else:
            h = fn(size, len(size), code, *_device.resolve(device))
        if not h:
            raise error(lib.nb_last_error_status())
        t = _new_object(Tensor)
        t._h = h
        t._shape = None
        return _finish(t, True) if requires_grad else t

    factory.__name__ = factory.__qualname__ = fname
    return factory


empty = _shaped(lib.nbpy_empty, "empty")
empty.__doc__ = "empty(*size, dtype=None, device=None) -> Tensor: uninitialised values."
zeros = _shaped(lib.nbpy_zeros, "zeros")
zeros.__doc__ = "zeros(*size, dtype=None, device=None) -> Tensor: filled with 0."
ones = _shaped(lib.nbpy_ones, "ones")
ones.__doc__ = "ones(*size, dtype=None, device=None) -> Tensor: filled with 1."


def _scalar_dtype(value) -> _dtype.dtype:
    """The dtype PyTorch infers for a Python scalar."""
    if value.__class__ is float:
        return _dtype._default[0]
    if isinstance(value, (bool, np.bool_)):
        return _dtype.bool_
    if isinstance(value, numbers.Integral):
        return _dtype.int64
    if isinstance(value, numbers.Real):
        return _dtype.get_default_dtype()
    raise TypeError(f"expected a real number, got {type(value).__name__}")


def _full(shape: tuple, value, code: int, dt: int, di: int) -> Tensor:
    if value.__class__ is float:
        return _call(lib.nbpy_full, shape, len(shape), value, code, dt, di)
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        value = int(value)
        if not -(1 << 63) <= value < (1 << 63):
            raise RuntimeError(f"value {value} cannot be converted to type int64 without overflow")
        return _call(lib.nbpy_full_int, shape, len(shape), value, code, dt, di)
    if not isinstance(value, numbers.Real):
        raise TypeError(f"full(): fill_value must be a real number, not {type(value).__name__}")
    return _call(lib.nbpy_full, shape, len(shape), float(value), code, dt, di)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with fill_value; the dtype is inferred from it when not given."""
    shape = size if size.__class__ is tuple and all(s.__class__ is int for s in size) else size_args((size,), "full")
    dt, di = _dev(device)
    code = _scalar_dtype(fill_value).code if dtype is None else _code(dtype, None)
    return _finish(_full(shape, fill_value, code, dt, di), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Values from start (default 0) up to, not including, end, spaced by step."""
    if end is None:
        start, end = 0, start
    if start.__class__ is int and end.__class__ is int and step.__class__ is int:
        code = _dtype.int64.code if dtype is None else _code(dtype, None)
    else:
        values = []
        for name, v in (("start", start), ("end", end), ("step", step)):
            if isinstance(v, Tensor) and v.numel() == 1:
                v = v.item()
            if not isinstance(v, numbers.Real):
                raise TypeError(f"arange(): argument '{name}' must be Number, not {type(v).__name__}")
            values.append(v)
        start, end, step = values
        if dtype is None:
            integral = all(isinstance(v, numbers.Integral) for v in values)
            dtype = _dtype.int64 if integral else _dtype.get_default_dtype()
        code = _code(dtype, None)
    dt, di = _dev(device)
    return _finish(_call(lib.nbpy_arange, float(start), float(end), float(step), code, dt, di), requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """steps values evenly spaced from start to end, both included."""
    dt, di = _dev(device)
    code = _code(dtype, _dtype.get_default_dtype())
    return _finish(_call(lib.nbpy_linspace, float(start), float(end), int(steps), code, dt, di), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    dt, di = _dev(device)
    n = int(n)
    m = n if m is None else int(m)
    return _finish(_call(lib.nbpy_eye, n, m, _code(dtype, _dtype.get_default_dtype()), dt, di), requires_grad)


def _like(fn, t: Tensor, dtype, device, *extra) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn.__name__}_like(): argument 'input' must be Tensor, not {type(t).__name__}")
    return fn(t.shape, *extra, dtype=t.dtype if dtype is None else dtype,
              device=t.device if device is None else device)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_like(empty, input, dtype, device), requires_grad)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_like(zeros, input, dtype, device), requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_like(ones, input, dtype, device), requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _finish(_like(full, input, dtype, device, fill_value), requires_grad)


def _int_overflows(data) -> bool:
    """True when nested Python data holds an int outside int64 (NumPy would silently widen it)."""
    if isinstance(data, (list, tuple)):
        return any(_int_overflows(x) for x in data)
    return isinstance(data, int) and not isinstance(data, bool) and not -(1 << 63) <= data < (1 << 63)


def _numpy_source(data, dtype):
    """(C-contiguous array, nabla dtype) for arbitrary data, with PyTorch's inference."""
    explicit = isinstance(data, (np.ndarray, np.generic))
    if not explicit and _int_overflows(data):
        raise RuntimeError("Overflow when unpacking long")
    try:
        arr = np.asarray(data)
    except ValueError as e:  # ragged nested sequences
        raise ValueError(f"expected a sequence of equal-length sequences: {e}") from None
    if arr.dtype == object:
        raise TypeError(f"could not convert data of type {type(data).__name__} to a tensor "
                        "(nested sequences of numbers or tensors are supported)")
    if dtype is None:
        kind = arr.dtype.kind
        if explicit:
            dtype = _dtype.from_numpy_dtype(arr.dtype)
        elif kind == "b":
            dtype = _dtype.bool_
        elif kind in "iu":
            if kind == "u" and arr.size and arr.max() >= (1 << 63):
                raise RuntimeError("Overflow when unpacking long")
            dtype = _dtype.int64
        elif kind == "f":
            dtype = _dtype.get_default_dtype()
        else:
            raise TypeError(f"can't convert data of NumPy kind {arr.dtype} to a nabla tensor")
    staging = dtype if dtype._numpy is not None else _dtype.float32  # bfloat16 goes through float32
    return np.asarray(arr, dtype=staging._numpy, order="C"), staging, dtype


_C_TYPES = {lib.NB_F32: "float[]", lib.NB_F64: "double[]"}


def _flat_list(data: list):
    """A fast path for flat lists of Python floats or ints (no NumPy round trip); None otherwise."""
    n = len(data)
    if n == 0 or n > 4096:
        return None
    kind = data[0].__class__
    if kind is not float and kind is not int:
        return None
    for x in data:
        if x.__class__ is not kind:
            return None
    if kind is float:
        code = _dtype._default[0].code
        ctype = _C_TYPES.get(code)
        if ctype is None:
            return None
    else:
        code, ctype = lib.NB_I64, "int64_t[]"
    try:
        buf = ffi.new(ctype, data)
    except OverflowError:
        raise RuntimeError("Overflow when unpacking long") from None
    return _call(lib.nbpy_tensor_from_host, buf, (n,), 1, code, lib.NB_CPU, 0)


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a copy of data (nested lists, scalars, NumPy arrays or tensors)."""
    if dtype is not None:
        _dtype.check(dtype)
    if isinstance(data, Tensor):
        return _finish(data.to(dtype or data.dtype, device or data.device, copy=True), requires_grad)
    if data.__class__ is list and dtype is None and device is None and _device._default.device is None:
        t = _flat_list(data)
        if t is not None:
            return _finish(t, requires_grad)
    arr, staging, target = _numpy_source(data, dtype)
    dt, di = _dev(device)
    t = _call(lib.nbpy_tensor_from_host, ffi.from_buffer(arr) if arr.size else ffi.NULL, arr.shape,
              arr.ndim, staging.code, dt, di)
    if target is not staging:
        t = t.to(target)
    return _finish(t, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """data itself when it already is a tensor of that dtype and device; a NumPy
    array's memory shared when dtype and device allow (nabla.from_numpy); else
    nabla.tensor(data)."""
    if isinstance(data, Tensor):
        return data.to(dtype or data.dtype, device or data.device)
    if isinstance(data, np.ndarray) and _device.resolve(device)[0] == lib.NB_CPU:
        own = _dtype.FROM_NUMPY.get(data.dtype)
        if own is not None and (dtype is None or dtype is own) and data.dtype.isnative and \
                all(s >= 0 and s % data.itemsize == 0 for s in data.strides):
            return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def _scalar_or_data(value, dtype: _dtype.dtype) -> Tensor:
    """A Python scalar or sequence as a tensor to copy from (for copy_, fill_, setitem)."""
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return _full((), value, dtype.code, *_CPU_ARGS)
    return tensor(value, dtype=dtype, device="cpu")


# ---- Tensor(...), Tensor.copy_ and the Tensor.new_* methods (bound in _tensor_methods.py) ----

def tensor_new(cls, *args, **kwargs):
    """Tensor(*size) is uninitialised, Tensor(data) copies data; both use the default dtype."""
    if len(args) == 1 and not hasattr(args[0], "__index__") and not isinstance(args[0], Size):
        return tensor(args[0], dtype=_dtype.get_default_dtype(), **kwargs)
    return empty(*args, **kwargs)


def tensor_copy_(self, src, non_blocking: bool = False) -> Tensor:
    """Tensor.copy_: copies src into self in place (broadcasting src, converting its dtype)."""
    if not isinstance(src, Tensor):
        src = _scalar_or_data(src, self.dtype)
    status = lib.nb_tensor_copy_v2_(self._h, src._h, 1) if non_blocking else lib.nb_tensor_copy_(self._h, src._h)
    if status:
        raise error(status)
    return self


def new_empty(self, *size, dtype=None, device=None) -> Tensor:
    return empty(*size, dtype=dtype or self.dtype, device=device or self.device)


def new_zeros(self, *size, dtype=None, device=None) -> Tensor:
    return zeros(*size, dtype=dtype or self.dtype, device=device or self.device)


def new_ones(self, *size, dtype=None, device=None) -> Tensor:
    return ones(*size, dtype=dtype or self.dtype, device=device or self.device)


def new_full(self, size, fill_value, *, dtype=None, device=None) -> Tensor:
    return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device)


def new_tensor(self, data, *, dtype=None, device=None) -> Tensor:
    return tensor(data, dtype=dtype or self.dtype, device=device or self.device)
