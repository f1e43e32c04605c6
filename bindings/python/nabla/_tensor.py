"""nabla.Tensor: a Python handle on a C tensor. Every method is one or a few ABI
calls; the C library owns the memory, and dropping the last Python reference
releases the handle at once."""
from __future__ import annotations

import operator

from . import _dtype, _device, _layout
from ._format import tensor_repr
from ._lib import error, ffi, lib, scratch
from ._size import Size, size_args

_INT64_MIN = -(1 << 63)
_sync_debug = 0  # nabla.cuda.set_sync_debug_mode: 0 quiet, 1 warn, 2 raise at calls that wait for a GPU


def _sync_point() -> None:
    """Reports a call that makes the host wait for a CUDA device, as set_sync_debug_mode asks."""
    if _sync_debug == 1:
        import warnings
        warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=3)
    elif _sync_debug == 2:
        raise RuntimeError("called a synchronizing CUDA operation")
_item_kind, _item_double, _item_int = lib.nbpy_item_kind, lib.nbpy_item_double, lib.nbpy_item_int
_FLOAT_CODES = (lib.NB_F32, lib.NB_F64, lib.NB_F16, lib.NB_BF16)
_new_object = object.__new__


def _from_handle(handle) -> "Tensor":
    """A Tensor owning a handle that a successful call returned (never NULL; see _checked)."""
    t = _new_object(Tensor)
    t._h = handle
    t._shape = None
    return t


def _checked(h) -> "Tensor":
    """A Tensor owning the handle a twin (lib.nbpy_*) returned; NULL means that call failed."""
    if not h:
        raise error(lib.nb_last_error_status())
    t = _new_object(Tensor)
    t._h = h
    t._shape = None
    return t


def _call(fn, *args) -> "Tensor":
    """Calls a handle-returning twin (lib.nbpy_*) and wraps its result."""
    return _checked(fn(*args))


def _out(out, fname: str):
    """The C handle of an out= tensor. Its cached shape is dropped: the op resizes an
    out tensor of another shape (PyTorch's resize_output)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    out._shape = None
    return out._h


_CAST = "{fname}: result type {result} can't be cast to the desired output type {out}"


def _write_out(out, result: "Tensor", fname: str, same_dtype: str | None = None) -> "Tensor":
    """out= for a result computed aside: out resized to its shape as PyTorch's resize_output
    does (a warning when out had elements), then written. The result dtype must cast to
    out's (no float into an integer, nothing into bool but bool); with same_dtype it must
    be out's, and that message format (PyTorch's wording for the op: {out} and {result}
    are ScalarType names, {out_cpp} and {result_cpp} C++ types) reports otherwise."""
    h = _out(out, fname)
    have, want = lib.nb_tensor_dtype(h), lib.nb_tensor_dtype(result._h)
    if have != want:
        names = dict(fname=fname, out=_dtype.TORCH_NAMES[have], result=_dtype.TORCH_NAMES[want],
                     out_cpp=_dtype.CPP_NAMES[have], result_cpp=_dtype.CPP_NAMES[want])
        if same_dtype is not None:
            raise RuntimeError(same_dtype.format(**names))
        if (lib.nb_dtype_is_floating(want) and not lib.nb_dtype_is_floating(have)) or have == lib.NB_BOOL:
            raise RuntimeError(_CAST.format(**names))
    shape = result.shape
    status = lib.nb_tensor_resize_output(h, shape, len(shape))
    if status:
        raise error(status)
    return out.copy_(result)


def _dim_arg(dim, name: str = "dim") -> int:
    try:
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"argument '{name}' must be int, not {type(dim).__name__}") from None


class Tensor:
    """An n-dimensional array held by libnabla (see nabla.tensor, nabla.zeros, ...)."""

    # _shape caches the Size: a handle's geometry never changes except by resize_;
    # the in-place view ops (_become) swap in another handle. Both reset it.
    __slots__ = ("_h", "_shape", "__weakref__")

    # Tensor(...) (__new__), new_empty, new_zeros, ... are made by _factory.py, type() by _legacy.py.

    def __del__(self, _release=lib.nb_tensor_release):
        _release(self._h)

    __hash__ = object.__hash__  # tensors hash by identity even though == is elementwise
    __array_priority__ = 1000  # numpy_scalar + tensor defers to Tensor.__radd__

    def __deepcopy__(self, memo):
        """copy.deepcopy(tensor): a clone with the same requires_grad (PyTorch's behaviour for leaves)."""
        if id(self) in memo:
            return memo[id(self)]
        result = self.detach().clone()
        if self.requires_grad:
            result.requires_grad_(True)
        memo[id(self)] = result
        return result

    # ---- metadata ----

    @property
    def shape(self) -> Size:
        s = self._shape
        if s is None:
            h = self._h
            s = self._shape = Size(ffi.unpack(lib.nb_tensor_shape(h), lib.nb_tensor_ndim(h)))
        return s

    def size(self, dim=None):
        """The shape, or the size of one dim."""
        s = self._shape
        if s is None:
            s = self.shape
        if dim is None:
            return s
        return s[self._wrap_dim(dim)]

    def stride(self, dim=None):
        """Strides in elements (a tuple), or the stride of one dim."""
        h = self._h
        strides = tuple(ffi.unpack(lib.nb_tensor_strides(h), lib.nb_tensor_ndim(h)))
        if dim is None:
            return strides
        return strides[self._wrap_dim(dim)]

    def _wrap_dim(self, dim) -> int:
        dim = _dim_arg(dim)
        n = max(lib.nb_tensor_ndim(self._h), 1)
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return dim + n if dim < 0 else dim

    @property
    def dtype(self) -> _dtype.dtype:
        return _dtype.BY_CODE[lib.nb_tensor_dtype(self._h)]

    @property
    def device(self) -> _device.device:
        h = self._h
        return _device.from_codes(lib.nb_tensor_device_type(h), lib.nb_tensor_device_index(h))

    @property
    def is_cuda(self) -> bool:
        return lib.nb_tensor_device_type(self._h) == lib.NB_CUDA

    @property
    def is_cpu(self) -> bool:
        return lib.nb_tensor_device_type(self._h) == lib.NB_CPU

    @property
    def ndim(self) -> int:
        return lib.nb_tensor_ndim(self._h)

    def dim(self) -> int:
        return lib.nb_tensor_ndim(self._h)

    ndimension = dim

    def numel(self) -> int:
        return lib.nb_tensor_numel(self._h)

    nelement = numel

    def element_size(self) -> int:
        return lib.nb_dtype_size(lib.nb_tensor_dtype(self._h))

    @property
    def itemsize(self) -> int:
        return self.element_size()

    @property
    def nbytes(self) -> int:
        return self.numel() * self.element_size()

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is not None:
            return _layout.is_contiguous_as(self, _layout.check(memory_format, "is_contiguous"))
        return bool(lib.nb_tensor_is_contiguous(self._h))

    def is_floating_point(self) -> bool:
        return lib.nb_tensor_dtype(self._h) in _FLOAT_CODES

    def data_ptr(self) -> int:
        return int(ffi.cast("uintptr_t", lib.nb_tensor_data_ptr(self._h)))

    def storage_offset(self) -> int:
        return lib.nb_tensor_storage_offset(self._h)

    @property
    def _version(self) -> int:
        return lib.nb_tensor_version(self._h)

    # ---- values ----

    def item(self):
        """The value of a one-element tensor as a Python float, int or bool."""
        h = self._h
        if _sync_debug and lib.nb_tensor_device_type(h) == lib.NB_CUDA:
            _sync_point()
        kind = _item_kind(h)
        if kind == 0:
            v = _item_double(h)
            if v != v and lib.nbpy_failed():
                raise error(lib.nb_last_error_status())
            return v
        if kind < 0:  # not one element: let the C call word the error
            raise error(lib.nb_tensor_item_double(h, scratch.f64))
        v = _item_int(h)
        if v == _INT64_MIN and lib.nbpy_failed():
            raise error(lib.nb_last_error_status())
        return v if kind == 1 else bool(v)

    # numpy(), __array__, __dlpack__, share_memory_ and is_shared live in _dlpack.py.

    def tolist(self):
        """The values as (nested) Python lists of floats, ints or bools."""
        t = self.float() if lib.nb_tensor_dtype(self._h) == lib.NB_BF16 else self
        return t.numpy(force=True).tolist()

    def __len__(self) -> int:
        h = self._h
        if lib.nb_tensor_ndim(h) == 0:
            raise TypeError("len() of a 0-d tensor")
        return lib.nb_tensor_shape(h)[0]

    def __iter__(self):
        if lib.nb_tensor_ndim(self._h) == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self.select(0, i) for i in range(len(self)))

    def __bool__(self) -> bool:
        n = lib.nb_tensor_numel(self._h)
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(self.item())

    def _scalar(self):
        if lib.nb_tensor_numel(self._h) != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        return float(self._scalar())

    def __int__(self) -> int:
        return int(self._scalar())

    def __index__(self) -> int:
        if lib.nb_tensor_dtype(self._h) in _FLOAT_CODES or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    # ---- autograd (the state lives in libnabla; see nabla.autograd) ----

    @property
    def requires_grad(self) -> bool:
        return lib.nb_tensor_requires_grad(self._h) == 1

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        status = lib.nb_tensor_set_requires_grad(self._h, bool(value))
        if status:
            raise error(status)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return lib.nb_tensor_is_leaf(self._h) == 1

    @property
    def grad(self):
        out = scratch.out
        status = lib.nb_tensor_get_grad(self._h, out)
        if status:
            raise error(status)
        h = out[0]
        if h:
            return _from_handle(h)
        if not lib.nb_tensor_is_leaf(self._h) and not lib.nb_tensor_retains_grad(self._h):
            import warnings
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                          "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                          "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.",
                          UserWarning, stacklevel=2)
        return None

    @grad.setter
    def grad(self, value) -> None:
        if value is not None and not isinstance(value, Tensor):
            raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                            f"{type(value).__name__}")
        status = lib.nb_tensor_set_grad(self._h, ffi.NULL if value is None else value._h)
        if status:
            raise error(status)

    @grad.deleter
    def grad(self) -> None:
        lib.nb_tensor_set_grad(self._h, ffi.NULL)

    @property
    def output_nr(self) -> int:
        return lib.nb_tensor_output_nr(self._h)

    @property
    def retains_grad(self) -> bool:
        return lib.nb_tensor_retains_grad(self._h) == 1

    def retain_grad(self) -> None:
        status = lib.nb_tensor_retain_grad(self._h)
        if status:
            raise error(status)

    def detach(self) -> "Tensor":
        """A tensor sharing this one's data with no autograd history."""
        return _call(lib.nbpy_tensor_detach, self._h)

    def detach_(self) -> "Tensor":
        status = lib.nb_tensor_detach_(self._h)
        if status:
            raise error(status)
        return self

    @property
    def data(self) -> "Tensor":
        return self.detach()

    # grad_fn, backward and the gradient hooks live in autograd/graph.py and autograd/engine.py.

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """A 0-dim tensor formats as its value (f"{t}" is '61.0', as PyTorch); others as repr, without a spec."""
        if lib.nb_tensor_ndim(self._h) == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec) if spec else repr(self)

    # ---- views ----

    def view(self, *shape) -> "Tensor":
        if len(shape) != 1 or shape[0].__class__ is not int:
            shape = size_args(shape, "view")
        return _call(lib.nbpy_tensor_view, self._h, shape, len(shape))

    def reshape(self, *shape) -> "Tensor":
        shape = size_args(shape, "reshape")
        return _call(lib.nbpy_tensor_reshape, self._h, shape, len(shape))

    def view_as(self, other: "Tensor") -> "Tensor":
        return self.view(other.shape)

    def reshape_as(self, other: "Tensor") -> "Tensor":
        return self.reshape(other.shape)

    def permute(self, *dims) -> "Tensor":
        dims = size_args(dims, "permute")
        return _call(lib.nbpy_tensor_permute, self._h, dims, len(dims))

    def transpose(self, dim0, dim1) -> "Tensor":
        if dim0.__class__ is not int or dim1.__class__ is not int:
            dim0, dim1 = _dim_arg(dim0, "dim0"), _dim_arg(dim1, "dim1")
        return _call(lib.nbpy_tensor_transpose, self._h, dim0, dim1)

    swapaxes = swapdims = transpose

    def t(self) -> "Tensor":
        """Transposes a tensor of at most 2 dims."""
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return self.transpose(0, -1) if self.ndim == 2 else self.view(self.shape)

    @property
    def T(self) -> "Tensor":
        return self.permute(*range(self.ndim - 1, -1, -1))

    @property
    def mT(self) -> "Tensor":
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
        return self.transpose(-2, -1)

    def expand(self, *sizes) -> "Tensor":
        sizes = size_args(sizes, "expand")
        return _call(lib.nbpy_tensor_expand, self._h, sizes, len(sizes))

    def expand_as(self, other: "Tensor") -> "Tensor":
        return self.expand(other.shape)

    def squeeze(self, dim=None) -> "Tensor":
        if dim is None:
            return _call(lib.nbpy_tensor_squeeze, self._h, ffi.NULL, 0)
        dims = tuple(_dim_arg(d) for d in dim) if isinstance(dim, (tuple, list)) else (_dim_arg(dim),)
        return _call(lib.nbpy_tensor_squeeze, self._h, dims, len(dims))

    def unsqueeze(self, dim) -> "Tensor":
        return _call(lib.nbpy_tensor_unsqueeze, self._h, dim if dim.__class__ is int else _dim_arg(dim))

    def flatten(self, start_dim=0, end_dim=-1) -> "Tensor":
        return _call(lib.nbpy_tensor_flatten, self._h, _dim_arg(start_dim, "start_dim"), _dim_arg(end_dim, "end_dim"))

    def unflatten(self, dim, sizes) -> "Tensor":
        """This tensor with dim split into sizes (one of them may be -1, inferred)."""
        shape, dim = list(self.shape), _dim_arg(dim)
        if not -len(shape) <= dim < max(len(shape), 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], "
                             f"but got {dim})")
        dim %= max(len(shape), 1)
        sizes = list(sizes)
        if not sizes:
            raise RuntimeError("unflatten: sizes must be non-empty")
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = 1
        for s in sizes:
            known *= s if s != -1 else 1
        if -1 in sizes and known and shape[dim] % known == 0:
            sizes[sizes.index(-1)] = shape[dim] // known
        product = 1
        for s in sizes:
            product *= s
        if product != shape[dim] or -1 in sizes:
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                               f"({shape[dim]}) in the input tensor")
        return self.reshape(*shape[:dim], *sizes, *shape[dim + 1:])

    def narrow(self, dim, start, length) -> "Tensor":
        return _call(lib.nbpy_tensor_narrow, self._h, _dim_arg(dim), operator.index(start), operator.index(length))

    def select(self, dim, index) -> "Tensor":
        return _call(lib.nbpy_tensor_select, self._h, _dim_arg(dim), operator.index(index))

    def as_strided(self, size, stride, storage_offset=None) -> "Tensor":
        size, stride = size_args((size,), "as_strided"), size_args((stride,), "as_strided")
        if len(size) != len(stride):
            raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
        offset = self.storage_offset() if storage_offset is None else operator.index(storage_offset)
        return _call(lib.nbpy_tensor_as_strided, self._h, size, stride, len(size), offset)

    # ---- in-place views: self takes the handle of a view of itself ----

    def _become(self, view: "Tensor", op: str) -> "Tensor":
        """The in-place view ops (t_, squeeze_, as_strided_, ...): view, just made from self, was
        recorded by autograd as any view; self takes its C tensor and view the old one (the
        handle swap of Module._apply), so views made before keep their shape. PyTorch counts
        the change as an in-place write: a leaf that requires grad is refused, the version bumped."""
        status = lib.nb_tensor_mark_inplace(self._h, op.encode())
        if status:
            raise error(status)
        keep_leaf = self.is_leaf and self.requires_grad  # only under no_grad: the leaf stays one
        self._h, view._h = view._h, self._h
        self._shape = view._shape = None
        if keep_leaf:
            self.requires_grad_()
        return self

    def t_(self) -> "Tensor":
        return self._become(self.t(), "t_")

    def transpose_(self, dim0, dim1) -> "Tensor":
        return self._become(self.transpose(dim0, dim1), "transpose_")

    swapaxes_ = swapdims_ = transpose_

    def squeeze_(self, dim=None) -> "Tensor":
        return self._become(self.squeeze(dim), "squeeze_")

    def unsqueeze_(self, dim) -> "Tensor":
        return self._become(self.unsqueeze(dim), "unsqueeze_")

    def as_strided_(self, size, stride, storage_offset=None) -> "Tensor":
        return self._become(self.as_strided(size, stride, storage_offset), "as_strided_")

    def contiguous(self, memory_format=None) -> "Tensor":
        if memory_format is not None and memory_format is not _layout.contiguous_format:
            return _layout.to_format(self, memory_format)
        if lib.nb_tensor_is_contiguous(self._h):
            return self  # as PyTorch: the tensor itself
        return _call(lib.nbpy_tensor_contiguous, self._h)

    def clone(self, *, memory_format=None) -> "Tensor":
        """A copy with the same strides (dense tensors) or in memory_format."""
        if memory_format is None or memory_format is _layout.preserve_format:
            return _call(lib.nbpy_tensor_clone, self._h)
        return _layout.copy_in(self, memory_format, "clone")

    # t[index] and t[index] = value live in _indexing.py.

    # ---- copies and conversions ----

    # copy_ (from a tensor, a number or nested lists) lives in _factory.py.

    def resize_(self, *sizes, memory_format=None) -> "Tensor":
        """Gives self the shape (contiguous strides at the same offset), growing its storage
        when needed; the elements are whatever the storage held there."""
        shape = size_args(sizes, "resize_")
        self._shape = None
        status = lib.nb_tensor_resize_(self._h, shape, len(shape))
        if status:
            raise error(status)
        return self

    def resize_as_(self, other: "Tensor", memory_format=None) -> "Tensor":
        return self.resize_(other.shape)

    def fill_(self, value) -> "Tensor":
        if isinstance(value, Tensor) and value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        return self.copy_(value)

    def zero_(self) -> "Tensor":
        return self.copy_(0)

    def to(self, *args, **kwargs) -> "Tensor":
        """to(dtype), to(device), to(device, dtype), to(other); copy=False returns self when nothing changes."""
        dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        copy = bool(kwargs.pop("copy", False))
        non_blocking = bool(kwargs.pop("non_blocking", False))
        fmt = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, _dtype.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, (str, _device.device, int)) and not isinstance(a, bool):
                device = a
            else:
                raise TypeError(f"to() received an invalid combination of arguments: {type(a).__name__}")
        code = (self.dtype if dtype is None else _dtype.check(dtype)).code
        if device is None:
            dev_type, dev_index = lib.nb_tensor_device_type(self._h), lib.nb_tensor_device_index(self._h)
        else:
            dev_type, dev_index = _device.resolve(device)
        if non_blocking:
            h = lib.nbpy_tensor_to_v2(self._h, code, dev_type, dev_index, copy, 1)
        else:
            h = lib.nbpy_tensor_to(self._h, code, dev_type, dev_index, copy)
        if h == self._h:  # nothing changed: PyTorch returns the tensor itself
            lib.nb_tensor_release(h)
            out = self
        else:
            out = _checked(h)
        if fmt is None or fmt is _layout.preserve_format:
            return out
        if out is self and _layout.suggest(self) is _layout.check(fmt, "to"):
            return self  # as PyTorch: no copy when the strides already suggest the format
        return _layout.to_format(out, fmt, "to")

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def cpu(self) -> "Tensor":
        if _sync_debug and lib.nb_tensor_device_type(self._h) == lib.NB_CUDA:
            _sync_point()  # also covers tolist() and numpy(force=True), which copy through here
        return self.to("cpu")

    def cuda(self, device=None, non_blocking: bool = False) -> "Tensor":
        dev = "cuda" if device is None else _device.device("cuda", device) if isinstance(device, int) else device
        return self.to(dev, non_blocking=non_blocking)

