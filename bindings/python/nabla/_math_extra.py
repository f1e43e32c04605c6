"""torch math functions written as compositions of nabla ops: gcd / lcm (Euclid's steps on
whole tensors), ldexp / frexp, rsub, dist, renorm, cross, cdist, tensordot, addmv / addr /
addbmm, cov / corrcoef and trapezoid / cumulative_trapezoid. Gradients come from
the ops they are made of."""
from __future__ import annotations

import math
import numbers
from collections import namedtuple

from ._tensor import Tensor

__all__ = ["gcd", "lcm", "ldexp", "frexp", "rsub", "dist", "renorm", "cross", "cdist", "tensordot", "addmv", "addr",
           "addbmm", "matrix_power", "cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


def _nb():
    import nabla
    return nabla


def _integral(fname: str, *ts: Tensor) -> None:
    from ._build_extra import _torch_name
    for t in ts:
        if t.dtype.is_floating_point or t.dtype.name == "bool":
            raise NotImplementedError(f"\"{fname}_cpu\" not implemented for '{_torch_name(t.dtype)}'")


def gcd(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The greatest common divisor (non-negative) of integer tensors, elementwise."""
    nb = _nb()
    other = other if isinstance(other, Tensor) else nb.tensor(other)
    _integral("gcd", input, other)
    a, b = nb.broadcast_tensors(input.abs(), other.abs())
    while bool((b != 0).any()):
        nz = b != 0
        safe = nb.where(nz, b, nb.ones_like(b))
        a, b = nb.where(nz, b, a), nb.where(nz, nb.remainder(a, safe), b)
    return a if out is None else out.copy_(a)


def lcm(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The least common multiple (non-negative) of integer tensors, elementwise (0 when either is 0)."""
    nb = _nb()
    other = other if isinstance(other, Tensor) else nb.tensor(other)
    g = gcd(input, other)
    safe = nb.where(g == 0, nb.ones_like(g), g)
    result = nb.where(g == 0, nb.zeros_like(g), (input.abs() // safe * other.abs()))
    return result if out is None else out.copy_(result)


def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """input * 2 ** other."""
    nb = _nb()
    other = other if isinstance(other, Tensor) else nb.tensor(other)
    scale = nb.pow(2.0, other.to(input.dtype) if input.dtype.is_floating_point else other.to(nb.get_default_dtype()))
    result = input * scale
    return result if out is None else out.copy_(result)


_frexp = namedtuple("frexp", ["mantissa", "exponent"])


def _scale(x: Tensor, e: Tensor) -> Tensor:
    """x * 2^-e exactly, in two factors so neither overflows float64 (e reaches -1074 for subnormals)."""
    nb = _nb()
    half = (e / 2).floor()
    return x * nb.pow(2.0, -half) * nb.pow(2.0, half - e)


def frexp(input: Tensor, *, out=None):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, 0.5 <= |mantissa| < 1 (0, inf and NaN keep
    exponent 0 and mantissa = input); exponent is int32."""
    nb = _nb()
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = input.detach().double()
    finite = nb.isfinite(x) & (x != 0)
    mag = nb.where(finite, x.abs(), nb.ones_like(x))
    e = nb.floor(nb.log2(mag)) + 1  # then the rounding of log2 is fixed by halving / doubling
    for _ in range(2):
        m = _scale(x, e).abs()
        e = nb.where(finite & (m >= 1), e + 1, nb.where(finite & (m < 0.5), e - 1, e))
    e = nb.where(finite, e, nb.zeros_like(e))
    mantissa = _scale(input.double(), e).to(input.dtype)  # differentiable: its gradient is 2^-e
    return _frexp(mantissa, e.to(nb.int32))


def rsub(input: Tensor, other, alpha=1) -> Tensor:
    """other - alpha * input."""
    nb = _nb()
    other = other if isinstance(other, Tensor) else nb.tensor(other, dtype=input.dtype if isinstance(
        other, float) and input.dtype.is_floating_point else None)
    return nb.sub(other, input, alpha=alpha)


def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The p-norm of input - other (broadcast) over all elements."""
    return _nb().linalg.vector_norm(input - other, p)


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """input with each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm."""
    nb = _nb()
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    d = dim % input.dim()
    others = [i for i in range(input.dim()) if i != d]
    norms = nb.linalg.vector_norm(input, p, dim=others, keepdim=True)
    factor = nb.where(norms > maxnorm, maxnorm / (norms + 1e-7), nb.ones_like(norms))
    return input * factor


def cross(input: Tensor, other: Tensor, dim=None, *, out=None) -> Tensor:
    """The 3-vector cross product along dim (the first dim of size 3 when None, with a warning, as PyTorch)."""
    nb = _nb()
    a, b = nb.broadcast_tensors(input, other)
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dims = [i for i, s in enumerate(a.shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return nb.linalg.cross(a, b, dim=dim) if out is None else out.copy_(nb.linalg.cross(a, b, dim=dim))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of x1 [*, P, M] and of x2 [*, R, M]: [*, P, R]."""
    nb = _nb()
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return nb.linalg.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """The contraction of a's dims_a with b's dims_b (the last / first dims of each when dims is an int)."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, numbers.Integral) else list(da)
        db = [db] if isinstance(db, numbers.Integral) else list(db)
    if len(da) != len(db):
        raise RuntimeError(f"both dimension lists should have same length, but got {len(da)} and {len(db)}")
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    da, db = [d % a.dim() for d in da], [d % b.dim() for d in db]
    free_a = [d for d in range(a.dim()) if d not in da]
    free_b = [d for d in range(b.dim()) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    left = a.permute(*free_a, *da).reshape(math.prod(a.shape[d] for d in free_a), k)
    right = b.permute(*db, *free_b).reshape(k, math.prod(b.shape[d] for d in free_b))
    result = left.matmul(right).reshape(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])
    return result if out is None else out.copy_(result)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * (mat @ vec)."""
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.dim() else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    return _beta_alpha(input, mat.mv(vec), beta, alpha, out)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * outer(vec1, vec2)."""
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.dim()}-D" if vec1.dim() != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return _beta_alpha(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha, out)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """beta * input + alpha * sum_i batch1[i] @ batch2[i]."""
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    return _beta_alpha(input, batch1.bmm(batch2).sum(0), beta, alpha, out)


def _beta_alpha(input: Tensor, product: Tensor, beta, alpha, out) -> Tensor:
    """beta * input + alpha * product, with beta == 0 ignoring input (NaN included), as BLAS."""
    nb = _nb()
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:  # input's NaN and inf do not reach the result; its gradient is zero
        result = nb.where(nb.ones((), dtype=nb.bool, device=input.device), scaled, input)
    else:
        result = (input if beta == 1 else input * beta) + scaled
    return result if out is None else out.copy_(result)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """torch.matrix_power: linalg.matrix_power."""
    return _nb().linalg.matrix_power(input, n)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance of the variables in the rows of input [vars, observations] (PyTorch's weighted formula)."""
    nb = _nb()
    if input.dim() > 2:
        raise ValueError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                         f"{input.dim()} dimensions")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.dtype.is_floating_point:
        x = x.to(nb.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        w_sum = nb.tensor(float(n), dtype=x.dtype, device=x.device)
        norm = w_sum - correction
    else:
        w = w.to(x.dtype)
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    norm = norm.clamp(min=0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    return (xw.matmul(xm.transpose(0, 1)) / norm).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of input, clipped to [-1, 1]."""
    nb = _nb()
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = d.sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)


def _spacing(y: Tensor, x, dx, dim: int):
    """The interval widths along dim: diff(x) (broadcast) or the constant dx."""
    nb = _nb()
    if x is not None and dx is not None:
        raise RuntimeError("trapezoid: cannot pass both x and dx")
    if x is None:
        return 1.0 if dx is None else dx
    if x.dim() == 1:
        shape = [1] * y.dim()
        shape[dim] = -1
        return nb.diff(x).reshape(shape)
    return nb.diff(x, dim=dim)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoid rule integral of y along dim (x the sample points, or the constant spacing dx)."""
    nb = _nb()
    d = dim % max(y.dim(), 1)
    n = y.shape[d] if y.dim() else 0
    if n == 0:
        return y.sum(d) if y.dim() else y * 0
    widths = _spacing(y, x, dx, d)
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    return (mid * widths).sum(d)


trapz = trapezoid


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoid rule integral of y along dim: n - 1 values."""
    d = dim % max(y.dim(), 1)
    n = y.shape[d]
    widths = _spacing(y, x, dx, d)
    if n == 0:
        return y
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    return (mid * widths).cumsum(d)
