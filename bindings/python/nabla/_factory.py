"""Tensor factories with PyTorch's names and signatures."""
from __future__ import annotations

import numbers

import numpy as np

from . import _dtype, _device, _layout
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


def _out_dtype(out, dtype):
    """The dtype a factory writing into out makes: out's, which an explicit dtype must equal."""
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and dtype != out.dtype:
        names = _dtype.TORCH_NAMES
        raise RuntimeError(f"dtype {names[_dtype.check(dtype).code]} does not match dtype of out parameter "
                           f"({names[out.dtype.code]})")
    return out.dtype


def _options(t: Tensor, fname: str, out, layout, pin_memory: bool, memory_format=None) -> Tensor:
    """The factory arguments past dtype and device: layout (strided only), memory_format,
    pin_memory and out (resized to the result's shape, then written)."""
    _layout.check_layout(layout, fname)
    if memory_format is not None and memory_format is not _layout.preserve_format:
        t = _layout.to_format(t, memory_format, fname)
    if pin_memory:
        t = t.pin_memory()
    if out is None:
        return t
    if out.shape != t.shape:
        out.resize_(t.shape)
    return out.copy_(t)


def _shaped(fn, fname: str, formats: bool = False):
    """A factory f(*size, dtype=None, device=None, requires_grad=False, ...) over lib.nbpy_<fn>
    (formats: it takes memory_format, as empty). The common case (int sizes, default dtype,
    CPU) takes no helper calls."""
    default = _dtype._default
    default_device = _device._default
    cpu = lib.NB_CPU

    def factory(*size, out=None, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False,
                **kwargs):
        if kwargs and (not formats or set(kwargs) != {"memory_format"}):
            bad = next(k for k in kwargs if k != "memory_format" or not formats)
            raise TypeError(f"{fname}() got an unexpected keyword argument '{bad}'")
        if len(size) != 1 or size[0].__class__ is not int:
            size = size_args(size, fname)
        if out is not None:
            dtype = _out_dtype(out, dtype)
            device = out.device if device is None else device
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
        if out is not None or layout is not None or pin_memory or kwargs:
            t = _options(t, fname, out, layout, pin_memory, kwargs.get("memory_format"))
        return _finish(t, True) if requires_grad else t

    factory.__name__ = factory.__qualname__ = fname
    return factory


empty = _shaped(lib.nbpy_empty, "empty", formats=True)
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


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, pin_memory: bool = False,
         requires_grad: bool = False) -> Tensor:
    """A tensor filled with fill_value; the dtype is inferred from it when not given."""
    shape = size if size.__class__ is tuple and all(s.__class__ is int for s in size) else size_args((size,), "full")
    if out is not None:
        dtype, device = _out_dtype(out, dtype), out.device if device is None else device
    dt, di = _dev(device)
    code = _scalar_dtype(fill_value).code if dtype is None else _code(dtype, None)
    t = _full(shape, fill_value, code, dt, di)
    return _finish(_options(t, "full", out, layout, pin_memory), requires_grad)


def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, pin_memory: bool = False,
           requires_grad: bool = False) -> Tensor:
    """Values from start (default 0) up to, not including, end, spaced by step."""
    if out is not None:
        dtype, device = _out_dtype(out, dtype), out.device if device is None else device
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
    t = _call(lib.nbpy_arange, float(start), float(end), float(step), code, dt, di)
    return _finish(_options(t, "arange", out, layout, pin_memory), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, pin_memory: bool = False,
             requires_grad: bool = False) -> Tensor:
    """steps values evenly spaced from start to end, both included."""
    if out is not None:
        dtype, device = _out_dtype(out, dtype), out.device if device is None else device
    dt, di = _dev(device)
    code = _code(dtype, _dtype.get_default_dtype())
    t = _call(lib.nbpy_linspace, float(start), float(end), int(steps), code, dt, di)
    return _finish(_options(t, "linspace", out, layout, pin_memory), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, pin_memory: bool = False,
        requires_grad: bool = False) -> Tensor:
    """A 2-D tensor with ones on the diagonal and zeros elsewhere."""
    if out is not None:
        dtype, device = _out_dtype(out, dtype), out.device if device is None else device
    dt, di = _dev(device)
    n = int(n)
    m = n if m is None else int(m)
    t = _call(lib.nbpy_eye, n, m, _code(dtype, _dtype.get_default_dtype()), dt, di)
    return _finish(_options(t, "eye", out, layout, pin_memory), requires_grad)


def _like(fn, fname: str, t: Tensor, dtype, device, layout, memory_format, pin_memory: bool, *fill) -> Tensor:
    """fn(t.shape, *fill) with t's dtype and device unless given, and t's strides when t is dense
    (memory_format=preserve_format, the default) or those of memory_format."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument 'input' must be Tensor, not {type(t).__name__}")
    _layout.check_layout(layout, fname)
    dtype = t.dtype if dtype is None else dtype
    device = t.device if device is None else device
    if t.ndim > 1 and (memory_format is not None or not t.is_contiguous()):
        strides = _layout.like_strides(t, memory_format)
        if strides != _layout.format_strides(t.shape, _layout.contiguous_format):
            from ._tensor_extra import empty_strided
            out = empty_strided(t.shape, strides, dtype=dtype, device=device, pin_memory=pin_memory)
            return out.fill_(fill[-1]) if fill else out
    return fn(t.shape, *fill, dtype=dtype, device=device, pin_memory=pin_memory)


def empty_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, pin_memory: bool = False) -> Tensor:
    return _finish(_like(empty, "empty_like", input, dtype, device, layout, memory_format, pin_memory), requires_grad)


def zeros_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
               memory_format=None, pin_memory: bool = False) -> Tensor:
    return _finish(_like(_zeros_of, "zeros_like", input, dtype, device, layout, memory_format, pin_memory, 0),
                   requires_grad)


def ones_like(input: Tensor, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, pin_memory: bool = False) -> Tensor:
    return _finish(_like(_ones_of, "ones_like", input, dtype, device, layout, memory_format, pin_memory, 1),
                   requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
              memory_format=None, pin_memory: bool = False) -> Tensor:
    return _finish(_like(full, "full_like", input, dtype, device, layout, memory_format, pin_memory, fill_value),
                   requires_grad)


def _zeros_of(shape, _value, **kw) -> Tensor:
    return zeros(shape, **kw)


def _ones_of(shape, _value, **kw) -> Tensor:
    return ones(shape, **kw)


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
