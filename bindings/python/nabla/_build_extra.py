"""torch functions that build, split or count, written as compositions of nabla ops: block_diag,
cartesian_prod, combinations, vander, rot90, diagflat, the window functions (hann, hamming,
blackman, bartlett), histc, bincount, bucketize / searchsorted (the C op nb_searchsorted, a
binary search per value) and isin (a sort and a search), hsplit / vsplit /
dsplit, split_with_sizes, ravel, scalar_tensor, asarray, kaiser_window and torch.i0 (special's
composition), and the in-place spellings of
elementwise functions (acosh_, deg2rad_, frac_, clamp_min_, ...) as Tensor methods."""
from __future__ import annotations

import itertools
import math
import numbers

from ._dtype import bool_ as _bool
from ._lib import lib
from ._tensor import Tensor, _call
from .special._bessel import i0

__all__ = ["block_diag", "cartesian_prod", "combinations", "vander", "rot90", "diagflat", "hann_window",
           "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "i0", "histc", "bincount", "bucketize", "searchsorted",
           "isin", "hsplit", "vsplit", "dsplit", "split_with_sizes", "ravel", "scalar_tensor", "asarray", "positive"]


def _nb():
    import nabla
    return nabla


def _torch_name(dtype) -> str:
    """PyTorch's C++ name of a dtype, as its 'not implemented for' messages print it."""
    from ._dtype import TORCH_NAMES
    return TORCH_NAMES[dtype.code]


def block_diag(*tensors) -> Tensor:
    """The tensors (0-, 1- or 2-d) as the diagonal blocks of one matrix, zeros elsewhere."""
    nb = _nb()
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    if not mats:
        return nb.empty(1, 0)
    dtype = mats[0].dtype
    for m in mats[1:]:  # the promoted dtype, as a binary op finds it
        dtype = (nb.zeros(1, dtype=dtype) + nb.zeros(1, dtype=m.dtype)).dtype
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        c = m.shape[1]
        rows.append(nb.nn.functional.pad(m.to(dtype), [left, width - left - c]))
        left += c
    return nb.cat(rows, 0)


def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element of each 1-d tensor, as rows [prod(n_i), len(tensors)]."""
    nb = _nb()
    if len(tensors) == 1:
        return tensors[0]
    grids = nb.meshgrid(*tensors, indexing="ij")
    return nb.stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The r-length combinations of the elements of a 1-d tensor, as rows (itertools' order)."""
    nb = _nb()
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return nb.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(pick(range(input.shape[0]), r))
    if not idx:
        return nb.empty(0, r, dtype=input.dtype, device=input.device)
    flat = nb.tensor([i for row in idx for i in row], dtype=nb.int64, device=input.device)
    return input.index_select(0, flat).reshape(len(idx), r)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-d x: columns x^(N-1) ... x^0 (or increasing)."""
    nb = _nb()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype.is_floating_point else x.long()
    if n == 0:
        return nb.empty(x.shape[0], 0, dtype=base.dtype, device=x.device)
    cols = [nb.ones_like(base)]
    for _ in range(1, n):
        cols.append(cols[-1] * base)
    out = nb.stack(cols, 1)
    return out if increasing else out.flip(1)


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """input rotated by 90 degrees k times in the plane dims, from the first towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    a, b = dims[0] % input.dim(), dims[1] % input.dim()
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return input.flip(b).transpose(a, b)
    if k == 2:
        return input.flip(a, b)
    if k == 3:
        return input.flip(a).transpose(a, b)
    return input.clone()


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input as the (offset) diagonal of a square matrix."""
    return _nb().diag(input.reshape(-1), offset)


def _window(name: str, n: int, periodic: bool, dtype, device, requires_grad: bool, fn) -> Tensor:
    nb = _nb()
    dtype = dtype or nb.get_default_dtype()
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if n == 0:
        w = nb.empty(0, dtype=dtype, device=device)
    elif n == 1:
        w = nb.ones(1, dtype=dtype, device=device)
    else:
        m = n if periodic else n - 1  # the periodic window is the symmetric one of n + 1 points, less its last
        t = nb.arange(n, dtype=nb.float64, device=device)
        w = fn(t, m).to(dtype)
    return w.requires_grad_(True) if requires_grad else w


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """0.5 - 0.5 cos(2 pi n / (N - 1)) (N + 1 points, less the last, when periodic)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda t, m: 0.5 - 0.5 * (t * (2 * math.pi / m)).cos())


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, pin_memory: bool = False,
                   requires_grad: bool = False) -> Tensor:
    """alpha - beta cos(2 pi n / (N - 1))."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda t, m: alpha - beta * (t * (2 * math.pi / m)).cos())


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda t, m: 0.42 - 0.5 * (t * (2 * math.pi / m)).cos() + 0.08 * (t * (4 * math.pi / m)).cos())


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """1 - |2 n / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda t, m: 1 - (t * (2 / m) - 1).abs())


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """I0(beta sqrt(1 - ((n - N/2) / (N/2))^2)) / I0(beta)."""
    def fn(t, m):
        r = ((t - m / 2) / (m / 2)).clamp(-1, 1)
        return i0(beta * (1 - r * r).clamp(min=0).sqrt()) / i0(t.new_full((), beta))
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, fn)


def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:  # noqa: A002 - PyTorch's names
    """The counts of input's elements in bins equal bins over [min, max] (the data's range when both are 0);
    elements outside are ignored, max falls in the last bin."""
    nb = _nb()
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{_torch_name(input.dtype)}'")
    x = input.detach().reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.amin()), float(x.amax())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    inside = (x >= lo) & (x <= hi)
    pos = ((x.double() - lo) * (bins / (hi - lo))).floor().long().clamp(0, bins - 1)
    pos = nb.where(inside, pos, nb.full_like(pos, bins))  # the ignored ones go to a bin that is dropped
    counts = nb.zeros(bins + 1, dtype=input.dtype, device=input.device).index_add(
        0, pos, nb.ones(x.numel(), dtype=input.dtype, device=input.device))
    result = counts[:bins]
    return result if out is None else out.copy_(result)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """The number of occurrences (or the summed weights) of each value 0 .. max(input) of a 1-d int tensor."""
    nb = _nb()
    if input.dim() != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if input.dtype.is_floating_point or input.dtype == nb.bool:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_torch_name(input.dtype)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.numel() and bool((input < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    size = builtins_max(int(input.max()) + 1 if input.numel() else 0, minlength)
    if weights is None:
        values, dtype = nb.ones(input.shape[0], dtype=nb.int64, device=input.device), nb.int64
    else:
        dtype = weights.dtype if weights.dtype.is_floating_point else nb.float64  # PyTorch's choice
        values = weights.to(dtype)
    return nb.zeros(size, dtype=dtype, device=input.device).index_add(0, input.long(), values)


builtins_max = max


def _search(op: str, boundaries: Tensor, values, right: bool, out_int32: bool) -> Tensor:
    """nb_searchsorted after PyTorch's promotion of the two dtypes (a Python number is a 0-dim value)."""
    if isinstance(values, Tensor) and values.dtype is boundaries.dtype and values.dtype is not _bool:
        return _call(lib.nbpy_searchsorted, boundaries._h, values._h, int(bool(right)), int(bool(out_int32)))
    nb = _nb()
    if not isinstance(values, Tensor):
        values = nb.tensor(values, device=boundaries.device)
    common = nb.result_type(boundaries, values)
    if common == nb.bool:
        raise NotImplementedError(f"\"{op}_out_cpu\" not implemented for 'Bool'")
    boundaries, values = boundaries.to(common), values.to(common)  # held until the call returns
    return _call(lib.nbpy_searchsorted, boundaries._h, values._h, int(bool(right)), int(bool(out_int32)))


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None) -> Tensor:
    """The index of the bucket of boundaries (1-d, increasing) each element of input falls in."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    result = _search("bucketize", boundaries, input, right, out_int32)
    return result if out is None else out.copy_(result)


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 out=None, sorter: Tensor | None = None) -> Tensor:
    """Where each value of input would be inserted into sorted_sequence's last dim to keep it sorted (the leftmost
    place, or the rightmost with right=True / side='right')."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter.long())
    result = _search("searchsorted", sorted_sequence, input, right, out_int32)
    return result if out is None else out.copy_(result)


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Whether each element of elements occurs in test_elements (bool, shaped as elements)."""
    nb = _nb()
    e = elements if isinstance(elements, Tensor) else nb.tensor(elements)
    t = test_elements if isinstance(test_elements, Tensor) else nb.tensor(test_elements)
    if nb.bool in (e.dtype, t.dtype):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    if t.numel() == 0:
        found = nb.zeros(e.shape, dtype=nb.bool, device=e.device)
    else:  # each element's place among the sorted test elements holds it, or it is absent
        common = nb.result_type(e, t)
        table = t.reshape(-1).to(common).sort().values
        e = e.to(common)
        pos = _search("isin", table, e, False, False).clamp(max=table.numel() - 1)
        found = table[pos] == e
    return ~found if invert else found


def _split_at(name: str, input: Tensor, sections, dim: int, min_dim: int) -> tuple:
    nb = _nb()
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(sections, numbers.Integral):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
    return nb.tensor_split(input, sections if isinstance(sections, numbers.Integral) else list(sections), dim)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 1 (dim 0 for 1-d tensors), equal sections only when an int."""
    return _split_at("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 0, equal sections only when an int."""
    return _split_at("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """tensor_split along dim 2, equal sections only when an int."""
    return _split_at("dsplit", input, indices_or_sections, 2, 3)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Views of the given sizes along dim (they must add up to its size)."""
    total = input.shape[dim]
    if sum(split_sizes) != total:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {total} (input tensor's size at "
                           f"dimension {dim % input.dim()}), but got split_sizes={list(split_sizes)}")
    return _nb().split(input, list(split_sizes), dim)


def ravel(input: Tensor) -> Tensor:
    """input flattened to 1-d (a view when contiguous)."""
    return input.reshape(-1)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding s, of the default float dtype unless dtype is given."""
    nb = _nb()
    t = nb.tensor(float(s) if not isinstance(s, bool) or dtype is None else s, dtype=dtype or nb.get_default_dtype(),
                  device=device)
    return t.requires_grad_(True) if requires_grad else t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """obj as a tensor: shared with obj when it is a tensor (or DLPack / buffer object) and no conversion is
    asked for, copied otherwise (always when copy=True; copy=False raises when a copy is needed)."""
    nb = _nb()
    if isinstance(obj, Tensor):
        same = (dtype is None or dtype == obj.dtype) and (device is None or nb.device(device) == obj.device)
        if copy is False and not same:
            raise ValueError("can't alias tensor from a different dtype or device without a copy")
        result = obj.to(dtype=dtype or obj.dtype, device=device or obj.device)
        if copy:
            result = result.clone() if result is obj else result
    else:
        if hasattr(obj, "__dlpack__") and not copy:
            result = nb.from_dlpack(obj)
            result = result.to(dtype=dtype or result.dtype, device=device or result.device)
        else:
            if copy is False and not hasattr(obj, "__array_interface__"):
                raise ValueError("can't alias Python sequence without a copy")
            result = nb.as_tensor(obj, dtype=dtype, device=device)
            if copy:
                result = result.clone()
    return result.requires_grad_(True) if requires_grad else result


def positive(input: Tensor) -> Tensor:
    """input itself (bool raises, as PyTorch)."""
    if input.dtype.name == "bool":
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _sum_to_size(self: Tensor, *size) -> Tensor:
    """self summed over the dims it would have been broadcast along from size."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else tuple(size)
    nb = _nb()
    if tuple(nb.broadcast_shapes(size, self.shape)) != tuple(self.shape):
        raise RuntimeError(f"size {{{', '.join(str(s) for s in size)}}} is not expandable to size "
                           f"{{{', '.join(str(s) for s in self.shape)}}}.")
    lead = self.dim() - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and self.shape[lead + i] != 1]
    out = self.sum(dims, keepdim=True) if dims else self
    return out.reshape(size)


def _get_device(self: Tensor) -> int:
    """-1 on the CPU, the device index on a GPU."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)
