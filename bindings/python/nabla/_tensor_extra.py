"""Tensor methods composed from nabla ops: the remaining in-place random fills (exponential_,
cauchy_, geometric_, log_normal_, by inverse transform of uniform_ / normal_ draws of nabla's
generator), fill_diagonal_, the legacy constructor Tensor.new, the CPU-only apply_ / map_ /
map2_ (a Python callable per element), Tensor.new_empty_strided, mvlgamma_ / polygamma_ /
float_power_, and the torch functions empty_strided,
get_device, range, nonzero_static and feature_dropout(_)."""
from __future__ import annotations

import builtins  # this module defines torch.range
import math

from ._tensor import Tensor

__all__ = ["empty_strided", "get_device", "range", "nonzero_static", "feature_dropout",
           "feature_dropout_"]


def _nb():
    import nabla
    return nabla


def _fmt(v) -> str:
    """A number as PyTorch's messages print it (-1, 0.5)."""
    return f"{v:g}"


def _uniform_like(self: Tensor, generator) -> Tensor:
    """U[0, 1) draws of self's shape in its float dtype (float32 for integer tensors)."""
    nb = _nb()
    dtype = self.dtype if self.dtype.is_floating_point else nb.float32
    return nb.empty(self.shape, dtype=dtype, device=self.device).uniform_(generator=generator)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fills self with draws of Exp(lambd): -log(1 - U) / lambd."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    u = _uniform_like(self, generator)
    return self.copy_(-(1 - u).log() / lambd)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fills self with draws of Cauchy(median, sigma): median + sigma tan(pi (U - 1/2))."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    u = _uniform_like(self, generator)
    return self.copy_(median + sigma * (math.pi * (u - 0.5)).tan())


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fills self with the number of Bernoulli(p) trials up to the first success (>= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    u = _uniform_like(self, generator).double()
    trials = ((1 - u).log() / math.log1p(-p)).ceil().clamp(min=1)
    return self.copy_(trials)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fills self with exp of N(mean, std) draws."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    return self.normal_(mean, std, generator=generator).exp_()


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Writes fill_value on the main diagonal (every dim equal beyond 2-d); wrap continues a tall matrix's
    diagonal after each block of columns + 1 rows, as NumPy's fill_diagonal."""
    nb = _nb()
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = list(self.shape)
    if self.dim() > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    numel = self.numel()
    if self.dim() == 2:
        rows, cols = shape
        step = cols + 1
        end = numel if wrap and rows > cols else min(rows, cols) * cols
    else:
        step = sum(math.prod(shape[d + 1:]) for d in builtins.range(len(shape)))
        end = numel
    positions = nb.arange(0, end, step, device=self.device)
    return self.copy_(self.reshape(-1).index_fill(0, positions, fill_value).reshape(shape))


def new(self: Tensor, *args, **kwargs) -> Tensor:
    """The legacy constructor: new() is empty, new(sizes...) uninitialized of self's dtype and device,
    new(sequence) a copy of the data in self's dtype."""
    nb = _nb()
    device = kwargs.pop("device", self.device)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not args:
        return nb.empty(0, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != self.dtype:
            raise TypeError(f"expected {self.type()} (got {args[0].type()})")
        return args[0].detach()
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
        return nb.empty(*args, dtype=self.dtype, device=device)
    if len(args) == 1 and isinstance(args[0], nb.Size):
        return nb.empty(tuple(args[0]), dtype=self.dtype, device=device)
    if len(args) == 1:
        return nb.tensor(args[0], dtype=self.dtype, device=device)
    raise TypeError(f"new() received an invalid combination of arguments: {args}")


def _cpu_only(self: Tensor, name: str) -> None:
    if self.device.type != "cpu":
        raise TypeError(f"{name} is only implemented on CPU tensors")


def apply_(self: Tensor, callable) -> Tensor:
    """self[i] = callable(self[i]) for every element, in Python (CPU tensors only; slow, as PyTorch's)."""
    _cpu_only(self, "apply_")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    return self.copy_(_nb().tensor(values, dtype=self.dtype).reshape(self.shape))


def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    """self[i] = callable(self[i], tensor[i]) with tensor broadcast to self (CPU tensors only)."""
    _cpu_only(self, "map_")
    other = tensor.expand(self.shape).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    return self.copy_(_nb().tensor(values, dtype=self.dtype).reshape(self.shape))


def map2_(self: Tensor, x: Tensor, y: Tensor, callable) -> Tensor:
    """self[i] = callable(self[i], x[i], y[i]) with x, y broadcast to self (CPU tensors only)."""
    _cpu_only(self, "map2_")
    xs, ys = x.expand(self.shape).reshape(-1).tolist(), y.expand(self.shape).reshape(-1).tolist()
    values = [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)]
    return self.copy_(_nb().tensor(values, dtype=self.dtype).reshape(self.shape))


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialized tensor of the given size and strides (over the smallest storage that holds them)."""
    nb = _nb()
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    storage = 0 if 0 in size else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    t = nb.empty(storage, dtype=dtype, device=device).as_strided(size, stride).detach()
    return t.requires_grad_(True) if requires_grad else t


def get_device(input: Tensor) -> int:
    """-1 for a CPU tensor, the GPU index otherwise."""
    return input.get_device()


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A001
    """[start, end] with step, end included (deprecated in PyTorch, with its warning)."""
    import warnings
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    nb = _nb()
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    count = int(math.floor((end - start) / step)) + 1
    t = nb.arange(count, dtype=nb.float64, device=device) * step + start
    t = t.to(dtype or nb.get_default_dtype())
    return t.requires_grad_(True) if requires_grad else t


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero(input) cut or padded (with fill_value rows) to exactly size rows: [size, input.dim()]."""
    nb = _nb()
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size]
    pad = nb.full((size - found.shape[0], input.dim()), fill_value, dtype=nb.int64, device=input.device)
    return nb.cat([found, pad], 0)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Zeroes whole channels (dim 1 of [N, C, *]) with probability p while training, scaling the rest."""
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _feature_dropout(input, p, train, True)


def _feature_dropout(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    nb = _nb()
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0 or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    keep = nb.bernoulli(nb.full(shape, 1 - p, dtype=input.dtype, device=input.device))
    result = input * keep / (1 - p) if p < 1 else input * keep
    return input.copy_(result) if inplace else result


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False,
                      layout=None, pin_memory: bool = False) -> Tensor:
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad)


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    return self.copy_(_nb().mvlgamma(self, p))


def polygamma_(self: Tensor, n: int) -> Tensor:
    return self.copy_(_nb().polygamma(n, self))


def float_power_(self: Tensor, exponent) -> Tensor:
    """self = self ** exponent in float64 (self must already be float64, as PyTorch requires)."""
    nb = _nb()
    if self.dtype != nb.float64:
        from ._build_extra import _torch_name
        raise RuntimeError(f"the base given to float_power_ has dtype {_torch_name(self.dtype)} but the operation's "
                           f"result requires dtype Double")
    return self.copy_(nb.float_power(self, exponent))
