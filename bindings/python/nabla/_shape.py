"""Shape and indexing ops with PyTorch's names: cat, stack, split, chunk, flip,
roll, repeat, tile, tril/triu, gather/scatter, index_select/index_add, masks,
nonzero, sort/argsort/topk, meshgrid, movedim. Each C op is one ABI
call; split, chunk, unbind, tile, meshgrid and movedim are views composed here."""
from __future__ import annotations

import collections
import numbers
import operator

from . import _warnings
from ._binary import _make_scalar
from ._lib import error, ffi, lib
from ._size import size_args
from ._tensor import Tensor, _call, _checked, _out, _write_out

_NULL = ffi.NULL

sort_result = collections.namedtuple("sort", ["values", "indices"])
topk_result = collections.namedtuple("topk", ["values", "indices"])


def _tensor_arg(fname: str, t, name: str = "input") -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fname}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    return t


def _int_arg(fname: str, v, name: str) -> int:
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{name}' must be int, not {type(v).__name__}") from None


def _ints(fname: str, v, name: str) -> tuple:
    """An int or a sequence of ints as a tuple."""
    if hasattr(v, "__index__") and not isinstance(v, Tensor):
        return (operator.index(v),)
    if isinstance(v, Tensor) and v.ndim == 0:
        return (operator.index(v),)
    try:
        return tuple(operator.index(x) for x in v)
    except TypeError:
        raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not {type(v).__name__}") from None


def _tensor_list(fname: str, tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return ffi.new("nb_tensor*[]", [t._h for t in tensors]) if tensors else _NULL


def _value_tensor(value, fname: str) -> Tensor:
    """A 0-dim tensor (or a wrapped Python number) for a fill value."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return _make_scalar(value)
    raise TypeError(f"{fname}(): value must be a number or a 0-dim Tensor, not {type(value).__name__}")


def _run_into(raw, args: tuple, dst: Tensor, fname: str = "out") -> Tensor:
    """raw(*args, dst): in place (dst is the input) or out=, which may resize dst."""
    status = raw(*args, _out(dst, fname), _NULL)
    if status:
        raise error(status)
    return dst


# PyTorch's messages for an out= tensor of the wrong dtype
_SAME_CPP = "{fname}: Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"
_SAME_SCALAR = "{fname}(): self and result must have the same scalar type"


def _check_cat_out(tensors, out) -> None:
    """PyTorch's check (a TypeError) that the promoted dtype of cat's inputs casts to out's."""
    code = lib.nb_tensor_dtype(tensors[0]._h)
    for t in tensors[1:]:
        code = lib.nb_promote_dtypes(code, lib.nb_tensor_dtype(t._h))
    have = lib.nb_tensor_dtype(_out(out, "cat"))
    if (lib.nb_dtype_is_floating(code) and not lib.nb_dtype_is_floating(have)) or (
            have == lib.NB_BOOL and code != lib.NB_BOOL):
        from ._dtype import TORCH_NAMES
        raise TypeError(f"cat(): input types can't be cast to the desired output type {TORCH_NAMES[have]}")


def _write_pair(out, result, fname: str, pair_type):
    """out=(values, indices) for sort / topk: values of the input's dtype, int64 indices."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2 and all(isinstance(o, Tensor) for o in out)):
        raise TypeError(f"{fname}(): argument 'out' must be a tuple of two Tensors (values, indices)")
    _write_out(out[0], result[0], fname, _SAME_CPP)
    _write_out(out[1], result[1], fname, _SAME_CPP)
    return pair_type(*out)


# ---- joining and splitting ----

def cat(tensors, dim=0, *, out=None) -> Tensor:
    """Concatenates tensors along an existing dim (1-D empty tensors are skipped, as in PyTorch)."""
    arr = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    dim = _int_arg("cat", dim, "dim")
    if out is None:
        return _call(lib.nbpy_cat, arr, len(tensors), dim, _NULL)
    _check_cat_out(tensors, out)
    return _run_into(lib.nb_cat, (arr, len(tensors), dim), out, "cat")


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None) -> Tensor:
    """Joins tensors of one shape along a new dim."""
    arr = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = _int_arg("stack", dim, "dim")
    if out is None:
        return _call(lib.nbpy_stack, arr, len(tensors), dim, _NULL)
    _check_cat_out(tensors, out)
    return _run_into(lib.nb_stack, (arr, len(tensors), dim), out, "stack")


def split(tensor: Tensor, split_size_or_sections, dim=0) -> tuple:
    """Views of consecutive pieces along dim: of split_size each (the last may be smaller), or of the given sizes."""
    _tensor_arg("split", tensor, "tensor")
    dim = tensor._wrap_dim(dim)
    size = tensor.shape[dim] if tensor.ndim else 1
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = _ints("split", split_size_or_sections, "split_size")
        if any(s < 0 for s in sizes) or sum(sizes) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                               f"dimension {dim}), but got split_sizes={list(sizes)}")
    else:
        step = _int_arg("split", split_size_or_sections, "split_size")
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0:
            if size != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
            sizes = (0,)
        else:
            sizes = tuple(min(step, size - s) for s in range(0, size, step)) or (0,)
    pieces, start = [], 0
    for s in sizes:
        pieces.append(tensor.narrow(dim, start, s))
        start += s
    return tuple(pieces)


def tensor_split(input: Tensor, indices_or_sections, dim=0) -> tuple:
    """NumPy's array_split: n nearly equal pieces, or pieces cut at the given indices."""
    dim = input._wrap_dim(dim)
    size = input.shape[dim]
    if isinstance(indices_or_sections, (list, tuple)):
        cuts = [min(max(operator.index(i) + (size if operator.index(i) < 0 else 0), 0), size)
                for i in indices_or_sections]
        bounds = [0, *cuts, size]
        return tuple(input.narrow(dim, a, max(b - a, 0)) for a, b in zip(bounds, bounds[1:]))
    n = _int_arg("tensor_split", indices_or_sections, "sections")
    if n <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {n}")
    q, r = divmod(size, n)
    sizes = [q + 1] * r + [q] * (n - r)
    return split(input, sizes, dim)


def chunk(input: Tensor, chunks, dim=0) -> tuple:
    """At most `chunks` views of equal size along dim (the last may be smaller)."""
    _tensor_arg("chunk", input)
    chunks = _int_arg("chunk", chunks, "chunks")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    size = input.shape[input._wrap_dim(dim)]
    return split(input, (size + chunks - 1) // chunks, dim)


def unbind(input: Tensor, dim=0) -> tuple:
    """The views input.select(dim, i) for every i."""
    _tensor_arg("unbind", input)
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = input._wrap_dim(dim)
    return tuple(input.select(dim, i) for i in range(input.shape[dim]))


# ---- rearranging ----

def flip(input: Tensor, dims) -> Tensor:
    """A copy with the order of elements reversed along dims."""
    _tensor_arg("flip", input)
    dims = _ints("flip", dims, "dims")
    return _call(lib.nbpy_flip, input._h, dims, len(dims))


def fliplr(input: Tensor) -> Tensor:
    if _tensor_arg("fliplr", input).ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if _tensor_arg("flipud", input).ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shifts elements circularly along dims (or the flattened tensor when dims is None)."""
    _tensor_arg("roll", input)
    shifts = _ints("roll", shifts, "shifts")
    dims = () if dims is None else _ints("roll", dims, "dims")
    return _call(lib.nbpy_roll, input._h, shifts, len(shifts), dims, len(dims))


def _repeat(self: Tensor, *sizes) -> Tensor:
    sizes = size_args(sizes, "repeat")
    return _call(lib.nbpy_repeat, self._h, sizes, len(sizes))


def tile(input: Tensor, dims) -> Tensor:
    """input repeated dims[i] times along each dim; missing leading dims count as 1."""
    _tensor_arg("tile", input)
    dims = _ints("tile", dims, "dims")
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return _repeat(input, dims)


TENSOR_METHODS: dict = {}  # tril_ and triu_; _tensor_methods binds them


def _tri(name: str):
    twin, raw = getattr(lib, "nbpy_" + name), getattr(lib, "nb_" + name)

    def fn(input: Tensor, diagonal=0, *, out=None) -> Tensor:
        _tensor_arg(name, input)
        diagonal = _int_arg(name, diagonal, "diagonal")
        if out is None:
            return _call(twin, input._h, diagonal, _NULL)
        return _run_into(raw, (input._h, diagonal), out, name)

    def method_(self: Tensor, diagonal=0) -> Tensor:
        return _run_into(raw, (self._h, _int_arg(name + "_", diagonal, "diagonal")), self)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(input, diagonal=0) -> Tensor: the {'lower' if name == 'tril' else 'upper'} triangle."
    TENSOR_METHODS[name + "_"] = method_
    return fn


tril = _tri("tril")
triu = _tri("triu")


def movedim(input: Tensor, source, destination) -> Tensor:
    """A view with the dims at `source` moved to `destination`, the others in order."""
    _tensor_arg("movedim", input)
    src, dst = _ints("movedim", source, "source"), _ints("movedim", destination, "destination")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain the "
                           f"same number of dims as destination ({list(dst)} dims)")
    src = tuple(input._wrap_dim(d) for d in src)
    dst = tuple(input._wrap_dim(d) for d in dst)
    for name, ds, orig in (("source", src, source), ("destination", dst, destination)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(_ints('movedim', orig, name))})")
    n = input.ndim
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    order = [next(rest) if o is None else o for o in order]
    return input.permute(order) if n else input.view(())


moveaxis = movedim


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """Coordinate grids (expanded views) from 0-D or 1-D tensors; indexing 'ij' (matrix) or 'xy' (Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        _tensor_arg("meshgrid", t, "tensors")
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    swap = indexing == "xy" and len(tensors) >= 2
    ts = list(tensors)
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(view).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ---- gather / scatter / index_select / index_add ----

def gather(input: Tensor, dim, index: Tensor, *, sparse_grad: bool = False, out=None) -> Tensor:
    """out[i][j] = input[index[i][j]][j] along dim 0 (likewise for other dims)."""
    _tensor_arg("gather", input)
    _tensor_arg("gather", index, "index")
    r = _call(lib.nbpy_gather, input._h, _int_arg("gather", dim, "dim"), index._h)
    return r if out is None else _write_out(out, r, "gather", _SAME_CPP)


# scatter's reduce= strings and scatter_reduce's, as nb_scatter_reduce codes
_SCATTER_REDUCE = {"add": lib.NB_SCATTER_SUM, "multiply": lib.NB_SCATTER_PROD}
_REDUCTIONS = {"sum": lib.NB_SCATTER_SUM, "prod": lib.NB_SCATTER_PROD, "mean": lib.NB_SCATTER_MEAN,
               "amax": lib.NB_SCATTER_AMAX, "amin": lib.NB_SCATTER_AMIN}
_SCATTER_REDUCE_DEPRECATED = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                              "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                              "options.")


def _scatter(fname: str, input: Tensor, dim, index: Tensor, src, value, dst=None, reduce=None) -> Tensor:
    """scatter / scatter_ (dst: None, the input, or out=); reduce 'add' / 'multiply' reduce
    into the target instead of overwriting it."""
    _tensor_arg(fname, input)
    _tensor_arg(fname, index, "index")
    dim = _int_arg(fname, dim, "dim")
    if src is None and value is None:
        raise TypeError(f"{fname}(): expected a 'src' tensor or a 'value'")
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    if reduce is not None:
        code = _SCATTER_REDUCE.get(reduce)
        if code is None:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if src is not None:
            _warnings.warn(_SCATTER_REDUCE_DEPRECATED)
        else:  # the value, in input's dtype, at every place of index
            src = _value_tensor(value, fname).to(input.dtype).expand(index.shape)
        args, twin, raw = (input._h, dim, index._h, src._h, code, 1), lib.nbpy_scatter_reduce, lib.nb_scatter_reduce
    elif src is not None:
        args, twin, raw = (input._h, dim, index._h, src._h), lib.nbpy_scatter, lib.nb_scatter
    else:
        v = _value_tensor(value, fname)
        args, twin, raw = (input._h, dim, index._h, v._h), lib.nbpy_scatter_value, lib.nb_scatter_value
    if dst is not None:
        return _run_into(raw, args, dst, fname)
    return _call(twin, *args, _NULL)


def scatter(input: Tensor, dim, index: Tensor, src=None, *, value=None, reduce=None, out=None) -> Tensor:
    """A copy of input with input[index[i][j]][j] = src[i][j] (dim 0); src may be a tensor or a number.
    reduce='add' / 'multiply' adds / multiplies src into input instead."""
    return _scatter("scatter", input, dim, index, src, value, out, reduce)


def _scatter_add(input: Tensor, dim, index: Tensor, src: Tensor, dst=None) -> Tensor:
    _tensor_arg("scatter_add", input)
    _tensor_arg("scatter_add", index, "index")
    _tensor_arg("scatter_add", src, "src")
    args = (input._h, _int_arg("scatter_add", dim, "dim"), index._h, src._h)
    if dst is not None:
        return _run_into(lib.nb_scatter_add, args, dst, "scatter_add")
    return _call(lib.nbpy_scatter_add, *args, _NULL)


def scatter_add(input: Tensor, dim, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """A copy of input with input[index[i][j]][j] += src[i][j] (dim 0)."""
    return _scatter_add(input, dim, index, src, out)


def _scatter_reduce(fname: str, input: Tensor, dim, index: Tensor, src: Tensor, reduce: str, include_self: bool,
                    dst=None) -> Tensor:
    _tensor_arg(fname, input)
    _tensor_arg(fname, index, "index")
    _tensor_arg(fname, src, "src")
    code = _REDUCTIONS.get(reduce) if isinstance(reduce, str) else None
    if code is None:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    args = (input._h, _int_arg(fname, dim, "dim"), index._h, src._h, code, int(bool(include_self)))
    if dst is not None:
        return _run_into(lib.nb_scatter_reduce, args, dst, fname)
    return _call(lib.nbpy_scatter_reduce, *args, _NULL)


def scatter_reduce(input: Tensor, dim, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True,
                   out=None) -> Tensor:
    """A copy of input with each src[i][j] reduced into input[index[i][j]][j] (dim 0) by reduce: 'sum',
    'prod', 'mean', 'amax' or 'amin'; include_self=False leaves input's own values out of the places
    that receive some."""
    return _scatter_reduce("scatter_reduce", input, dim, index, src, reduce, include_self, out)


def index_select(input: Tensor, dim, index: Tensor, *, out=None) -> Tensor:
    """The entries of input at the 1-D index along dim."""
    _tensor_arg("index_select", input)
    _tensor_arg("index_select", index, "index")
    r = _call(lib.nbpy_index_select, input._h, _int_arg("index_select", dim, "dim"), index._h)
    return r if out is None else _write_out(out, r, "index_select", _SAME_SCALAR)


def _index_add(input: Tensor, dim, index: Tensor, source: Tensor, alpha, dst=None) -> Tensor:
    _tensor_arg("index_add", input)
    _tensor_arg("index_add", index, "index")
    _tensor_arg("index_add", source, "source")
    if not input.is_floating_point() and isinstance(alpha, float) and not alpha.is_integer():
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    args = (input._h, _int_arg("index_add", dim, "dim"), index._h, source._h, float(alpha))
    if dst is not None:
        return _run_into(lib.nb_index_add, args, dst, "index_add")
    return _call(lib.nbpy_index_add, *args, _NULL)


def index_add(input: Tensor, dim, index: Tensor, source: Tensor, *, alpha=1, out=None) -> Tensor:
    """A copy of input with input.select(dim, index[i]) += alpha * source.select(dim, i)."""
    return _index_add(input, dim, index, source, alpha, out)


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """Gathers along dim after broadcasting input and indices (apart from dim); along the flattened input
    when dim is None."""
    _tensor_arg("take_along_dim", input)
    _tensor_arg("take_along_dim", indices, "indices")
    if dim is None:
        return _call(lib.nbpy_take_along_dim, input._h, indices._h, 0, 0)
    return _call(lib.nbpy_take_along_dim, input._h, indices._h, _int_arg("take_along_dim", dim, "dim"), 1)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy of input with input[indices] = values (or += with accumulate)."""
    return _index_put(input, indices, values, accumulate, False)


def _index_put(input: Tensor, indices, values, accumulate: bool, inplace: bool) -> Tensor:
    _tensor_arg("index_put", input)
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors")
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not {type(values).__name__}")
    arr = ffi.new("nb_tensor*[]", [_NULL if i is None else i._h for i in indices]) if indices else _NULL
    args = (input._h, arr, len(indices), values._h, int(bool(accumulate)))
    if inplace:
        return _run_into(lib.nb_index_put, args, input)
    return _call(lib.nbpy_index_put, *args, _NULL)


# ---- masks ----

def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """input with value where the bool mask (broadcast) is True."""
    _tensor_arg("masked_fill", input)
    _tensor_arg("masked_fill", mask, "mask")
    v = _value_tensor(value, "masked_fill")
    return _call(lib.nbpy_masked_fill, input._h, mask._h, v._h, _NULL)


def _masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    _tensor_arg("masked_fill_", mask, "mask")
    v = _value_tensor(value, "masked_fill_")
    return _run_into(lib.nb_masked_fill, (self._h, mask._h, v._h), self)


def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The 1-D tensor of the elements of input where the bool mask (broadcast) is True."""
    _tensor_arg("masked_select", input)
    _tensor_arg("masked_select", mask, "mask")
    r = _call(lib.nbpy_masked_select, input._h, mask._h)
    return r if out is None else _write_out(out, r, "masked_select", _SAME_SCALAR)


def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """[n, ndim] int64 coordinates of the nonzero elements; as_tuple: one 1-D tensor per dim."""
    _tensor_arg("nonzero", input)
    r = _call(lib.nbpy_nonzero, input._h)
    if as_tuple:
        if input.ndim == 0:
            return (_zeros_int64(r.shape[0]),)  # PyTorch treats a 0-dim input as 1-D here
        return tuple(r.select(1, i) for i in range(input.ndim))
    return r if out is None else _write_out(
        out, r, "nonzero", "{fname}: Expected out tensor to have scalar type Long but got scalar type{out}")


def _zeros_int64(n: int) -> Tensor:
    from ._factory import zeros
    from ._dtype import int64
    return zeros(n, dtype=int64)


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    if dim is not None:
        raise NotImplementedError("count_nonzero(dim=...) needs reductions")
    from ._factory import tensor
    from ._dtype import int64
    return tensor(nonzero(input).shape[0], dtype=int64)


# ---- ordering ----

def sort(input: Tensor, dim=-1, descending: bool = False, stable: bool = False, *, out=None):
    """(values, indices) sorted along dim; the sort is stable, NaN sorts last (first when descending)."""
    _tensor_arg("sort", input)
    pair = ffi.new("nb_tensor*[2]")
    status = lib.nb_sort(input._h, _int_arg("sort", dim, "dim"), int(bool(descending)), int(bool(stable)),
                         pair, pair + 1)
    if status:
        raise error(status)
    result = sort_result(_checked(pair[0]), _checked(pair[1]))
    return result if out is None else _write_pair(out, result, "sort", sort_result)


def argsort(input: Tensor, dim=-1, descending: bool = False, stable: bool = False) -> Tensor:
    """The int64 indices that sort input along dim."""
    _tensor_arg("argsort", input)
    return _call(lib.nbpy_argsort, input._h, _int_arg("argsort", dim, "dim"), int(bool(descending)),
                 int(bool(stable)))


def msort(input: Tensor) -> Tensor:
    return sort(input, 0).values


def topk(input: Tensor, k, dim=-1, largest: bool = True, sorted: bool = True, *, out=None):  # noqa: A002
    """(values, indices) of the k largest (or smallest) elements along dim."""
    _tensor_arg("topk", input)
    pair = ffi.new("nb_tensor*[2]")
    status = lib.nb_topk(input._h, _int_arg("topk", k, "k"), _int_arg("topk", dim, "dim"), int(bool(largest)),
                         int(bool(sorted)), pair, pair + 1)
    if status:
        raise error(status)
    result = topk_result(_checked(pair[0]), _checked(pair[1]))
    return result if out is None else _write_pair(out, result, "topk", topk_result)


__all__ = ["cat", "concat", "concatenate", "stack", "split",
           "tensor_split", "chunk", "unbind", "flip", "fliplr", "flipud", "roll", "tile", "tril", "triu", "movedim",
           "moveaxis", "meshgrid", "gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_put",
           "take_along_dim", "masked_fill", "masked_select", "nonzero", "argwhere", "count_nonzero", "sort",
           "argsort", "msort", "topk"]
