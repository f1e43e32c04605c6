"""torch functions written as compositions of nabla ops (views, matmul, index_select,
elementwise): einsum (pairwise contractions through bmm), diagonal / diag / diag_embed /
trace (strided views), repeat_interleave, diff, lerp, isclose / allclose / equal,
broadcast_tensors / broadcast_shapes, addcmul / addcdiv, and Tensor.unfold (a strided view).
Gradients come from the ops they are made of."""
from __future__ import annotations

import numbers

import numpy as np

from ._tensor import Tensor

__all__ = ["einsum", "diagonal", "diag", "diag_embed", "trace", "repeat_interleave", "diff", "lerp", "isclose",
           "allclose", "equal", "broadcast_tensors", "broadcast_shapes", "addcmul", "addcdiv", "atanh", "asinh",
           "acosh", "clamp_min", "clamp_max"]


def _nb():
    import nabla
    return nabla


def _as_tensor(x, like: Tensor | None = None) -> Tensor:
    nb = _nb()
    if isinstance(x, Tensor):
        return x
    return nb.tensor(x, dtype=like.dtype if like is not None and isinstance(x, float) else None)


def broadcast_shapes(*shapes) -> tuple:
    """The shape the given shapes broadcast to (RuntimeError, as PyTorch, when they do not)."""
    from .distributions.utils import broadcast_shapes as shapes_of
    from ._size import Size
    return Size(shapes_of(*[(s,) if isinstance(s, int) else tuple(s) for s in shapes]))


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded (as views) to their common shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of dims dim1, dim2 (shifted by offset) as a view, appended as the last dim."""
    nd = input.dim()
    d1, d2 = dim1 % nd if nd else 0, dim2 % nd if nd else 0
    if nd < 2 or not (-nd <= dim1 < nd and -nd <= dim2 < nd):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got "
                         f"{dim1 if not -nd <= dim1 < nd else dim2})")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, stride = list(input.shape), list(input.stride())
    start = input.storage_offset()
    if offset >= 0:
        n = max(min(shape[d1], shape[d2] - offset), 0)
        start += offset * stride[d2] if n else 0
    else:
        n = max(min(shape[d1] + offset, shape[d2]), 0)
        start -= offset * stride[d1] if n else 0
    keep = [i for i in range(nd) if i not in (d1, d2)]
    return input.as_strided([shape[i] for i in keep] + [n], [stride[i] for i in keep] + [stride[d1] + stride[d2]],
                            start)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices whose diagonal (offset) along dim1, dim2 holds input's last dim; zeros elsewhere."""
    nb = _nb()
    n = input.shape[-1] + abs(offset)
    out_nd = input.dim() + 1
    d1, d2 = dim1 % out_nd, dim2 % out_nd
    lead = list(input.shape[:-1])
    out = nb.zeros(*lead, n, n, dtype=input.dtype, device=input.device)
    diagonal(out, offset, -2, -1).copy_(input)
    order = list(range(out_nd - 2))
    dims = [None] * out_nd
    dims[d1], dims[d2] = out_nd - 2, out_nd - 1
    it = iter(order)
    dims = [next(it) if d is None else d for d in dims]
    return out.permute(*dims)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: F811 - PyTorch's parameter name
    """1-D input: the square matrix with input on the given diagonal; 2-D input: that diagonal (a copy)."""
    if input.dim() == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.dim() == 2:
        return globals()["diagonal"](input, diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace(input: Tensor) -> Tensor:
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return diagonal(input).sum()


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeats each element (along dim, or of the flattened input) repeats times (an int or one count each)."""
    nb = _nb()
    if repeats is None:  # repeat_interleave(repeats): indices 0..n-1 repeated
        counts = input.numpy(force=True).astype(np.int64)
        return nb.tensor(np.repeat(np.arange(len(counts)), counts), device=input.device)
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = dim % max(input.dim(), 1)
    if isinstance(repeats, Tensor) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = int(repeats.item())
    if isinstance(repeats, numbers.Integral):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        shape = list(input.shape)
        expanded = input.unsqueeze(dim + 1).expand(*shape[:dim + 1], int(repeats), *shape[dim + 1:])
        return expanded.reshape(*shape[:dim], shape[dim] * int(repeats), *shape[dim + 1:])
    counts = repeats.numpy(force=True).astype(np.int64) if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim != 1 or len(counts) != input.shape[dim]:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size({dim}) = {input.shape[dim]}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    index = nb.tensor(np.repeat(np.arange(len(counts)), counts), device=input.device)
    return input.index_select(dim, index)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along dim (after prepending / appending values)."""
    nb = _nb()
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        parts = [p if p.dim() == input.dim() else p.expand(*input.shape[:dim % input.dim()], -1) for p in
                 (_as_tensor(q, input) for q in parts)]
        input = nb.cat(parts, dim)
    for _ in range(n):
        length = input.shape[dim]
        if length == 0:
            break
        input = input.narrow(dim, 1, length - 1) - input.narrow(dim, 0, length - 1) \
            if input.dtype is not nb.bool else input.narrow(dim, 1, length - 1) ^ input.narrow(dim, 0, length - 1)
    return input


def lerp(input: Tensor, end, weight, *, out=None) -> Tensor:
    """input + weight * (end - input)."""
    result = input + weight * (end - input)
    return result if out is None else out.copy_(result)


def isclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other| elementwise; infinities close only to themselves."""
    nb = _nb()
    other = _as_tensor(other, input)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{input.dtype} did not match {other.dtype}")
    if not input.dtype.is_floating_point:
        return input == other
    same = input == other
    finite = nb.isfinite(input) & nb.isfinite(other)
    close = same | (finite & ((input - other).abs() <= atol + rtol * other.abs()))
    if equal_nan:
        close = close | (nb.isnan(input) & nb.isnan(other))
    return close


def allclose(input: Tensor, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and elements."""
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all())


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    result = input + value * tensor1 * tensor2
    return result if out is None else out.copy_(result)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1, out=None) -> Tensor:
    result = input + value * tensor1 / tensor2
    return result if out is None else out.copy_(result)


def atanh(input: Tensor, *, out=None) -> Tensor:
    nb = _nb()
    result = 0.5 * (nb.log1p(input) - nb.log1p(-input))
    return result if out is None else out.copy_(result)


def asinh(input: Tensor, *, out=None) -> Tensor:
    nb = _nb()
    a = input.abs()
    result = nb.sign(input) * nb.log(a + nb.sqrt(a * a + 1))
    return result if out is None else out.copy_(result)


def acosh(input: Tensor, *, out=None) -> Tensor:
    nb = _nb()
    result = nb.log(input + nb.sqrt(input * input - 1))
    return result if out is None else out.copy_(result)


def clamp_min(input: Tensor, min) -> Tensor:  # noqa: A002 - PyTorch's name
    return input.clamp(min=min)


def clamp_max(input: Tensor, max) -> Tensor:  # noqa: A002 - PyTorch's name
    return input.clamp(max=max)


def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Tensor.unfold: every slice of `size` elements along dimension, `step` apart, as a new last dim (a view)."""
    nd = max(self.dim(), 1)
    d = dimension % nd
    shape = list(self.shape) or [1]
    stride = list(self.stride()) or [1]
    if size > shape[d]:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {shape[d]} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    count = (shape[d] - size) // step + 1
    new_shape = shape[:d] + [count] + shape[d + 1:] + [size]
    new_stride = stride[:d] + [stride[d] * step] + stride[d + 1:] + [stride[d]]
    if self.dim() == 0:
        new_shape, new_stride = [count, size][1:], [1]
    return self.as_strided(new_shape, new_stride, self.storage_offset())


# ---- einsum ----

def _parse_einsum(equation: str, operands) -> tuple:
    """(input label lists, output labels) with '...' spelled as one label per broadcast dim."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError(f"einsum(): {len(terms)} operands in the equation but {len(operands)} were given")
    ell_dims = 0
    for term, op in zip(terms, operands):
        if "..." in term:
            ell_dims = max(ell_dims, op.dim() - (len(term) - 3))
    ell = [chr(0x100 + i) for i in range(ell_dims)]  # labels outside a-zA-Z
    inputs = []
    for term, op in zip(terms, operands):
        if "..." in term:
            before, _, after = term.partition("...")
            k = op.dim() - len(before) - len(after)
            labels = list(before) + ell[ell_dims - k:] + list(after)
        else:
            labels = list(term)
        if len(labels) != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not match "
                               f"the number of dimensions ({op.dim()}) for operand {len(inputs)}")
        inputs.append(labels)
    if arrow:
        before, dots, after = rhs.partition("...")
        output = list(before) + (ell if dots else []) + list(after)
    else:
        counts: dict = {}
        for labels in inputs:
            for c in labels:
                counts[c] = counts.get(c, 0) + 1
        output = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    return inputs, output


def _take_diagonals(op: Tensor, labels: list) -> tuple:
    """Repeated labels within one operand ('ii'): their diagonal, once."""
    labels = list(labels)
    while True:
        seen = {}
        for i, c in enumerate(labels):
            if c in seen:
                op = diagonal(op, 0, seen[c], i)
                labels = [x for k, x in enumerate(labels) if k not in (seen[c], i)] + [c]
                break
            seen[c] = i
        else:
            return op, labels


def _contract(a: Tensor, la: list, b: Tensor, lb: list, keep: set) -> tuple:
    """a and b contracted over their shared labels not in keep, through one bmm."""
    nb = _nb()
    sizes = {}
    for t, ls in ((a, la), (b, lb)):
        for c, n in zip(ls, t.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    left = [c for c in la if c not in lb]
    right = [c for c in lb if c not in la]
    a = a.permute(*[la.index(c) for c in batch + left + summed])
    b = b.permute(*[lb.index(c) for c in batch + summed + right])
    a = a.expand(*[sizes[c] for c in batch], *a.shape[len(batch):len(batch) + len(left)],
                 *[sizes[c] for c in summed])
    b = b.expand(*[sizes[c] for c in batch], *[sizes[c] for c in summed], *b.shape[len(batch) + len(summed):])
    nbat = int(np.prod([sizes[c] for c in batch], dtype=np.int64))
    nl = int(np.prod([a.shape[len(batch) + i] for i in range(len(left))], dtype=np.int64))
    ns = int(np.prod([sizes[c] for c in summed], dtype=np.int64))
    nr = int(np.prod([b.shape[len(batch) + len(summed) + i] for i in range(len(right))], dtype=np.int64))
    out = nb.bmm(a.reshape(nbat, nl, ns), b.reshape(nbat, ns, nr))
    shape = [sizes[c] for c in batch] + [a.shape[len(batch) + i] for i in range(len(left))] + \
            [b.shape[len(batch) + len(summed) + i] for i in range(len(right))]
    return out.reshape(*shape), batch + left + right


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation: 'ij,jk->ik', batch and broadcast dims ('...'), traces ('ii'), implicit outputs."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    inputs, output = _parse_einsum(equation, operands)
    if len(set(output)) != len(output):
        raise RuntimeError(f"einsum(): output subscript appears more than once in the output: {equation}")
    ops = []
    for op, labels in zip(operands, inputs):
        op, labels = _take_diagonals(op, labels)
        ops.append((op, labels))
    for c in output:
        if not any(c in ls for _, ls in ops):
            raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                               "operand")
    # sum out labels that appear in one operand only and not in the output
    reduced = []
    for i, (op, labels) in enumerate(ops):
        others = set(output).union(*(set(ls) for j, (_, ls) in enumerate(ops) if j != i))
        drop = [k for k, c in enumerate(labels) if c not in others]
        if drop:
            op = op.sum(drop)
            labels = [c for k, c in enumerate(labels) if k not in drop]
        reduced.append((op, labels))
    result, labels = reduced[0]
    for j, (op, ls) in enumerate(reduced[1:], 1):
        keep = set(output).union(*(set(l2) for _, l2 in reduced[j + 1:]))
        result, labels = _contract(result, labels, op, ls, keep)
    extra = [k for k, c in enumerate(labels) if c not in output]
    if extra:
        result = result.sum(extra)
        labels = [c for k, c in enumerate(labels) if k not in extra]
    return result.permute(*[labels.index(c) for c in output]) if labels else result


arctanh, arcsinh, arccosh = atanh, asinh, acosh
