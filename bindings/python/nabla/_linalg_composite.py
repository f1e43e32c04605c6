"""The torch.linalg functions composed from nabla's ops (so autograd comes with them):
pinv, matrix_rank and lstsq from the SVD (or eigh for hermitian input), matrix_power,
multi_dot, cross, vecdot and diagonal. Checks and messages follow PyTorch's."""
from __future__ import annotations

import collections
import numbers
import operator

from . import _dtype
from ._lib import lib
from ._tensor import Tensor, _write_out

LstsqResult = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])

_EPS = {lib.NB_F32: 2.0 ** -23, lib.NB_F64: 2.0 ** -52}
_SAME = "{fname}: Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"


def _nb():
    import nabla
    return nabla


def _out1(result: Tensor, out, fname: str) -> Tensor:
    return result if out is None else _write_out(out, result, fname, _SAME)


def _is_float(A: Tensor) -> bool:
    return A.dtype.code in _EPS


def _square(A: Tensor, fname: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fname}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _tol(S: Tensor, A: Tensor, atol, rtol) -> Tensor:
    """PyTorch's threshold max(atol, rtol * S_max) over each matrix (keepdim), with rtol defaulting to
    eps * max(m, n) unless only a positive atol is given. atol / rtol: numbers or tensors of the batch shape."""
    nb = _nb()
    if rtol is None:
        rtol = _EPS[A.dtype.code] * max(A.shape[-2], A.shape[-1])
        if isinstance(atol, Tensor):
            rtol = nb.where(atol > 0, nb.zeros_like(atol, dtype=S.dtype), nb.full((), rtol, dtype=S.dtype))
        elif atol is not None and float(atol) > 0:
            rtol = 0.0
    smax = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else S.sum(-1, keepdim=True)
    rt = rtol.unsqueeze(-1) if isinstance(rtol, Tensor) else rtol
    tol = smax * rt
    if atol is not None:
        at = atol.unsqueeze(-1) if isinstance(atol, Tensor) else nb.full((), float(atol), dtype=S.dtype)
        tol = nb.maximum(tol, at.to(S.dtype))
    return tol.detach()


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The pseudo-inverse of each matrix of A [..., m, n] -> [..., n, m]: singular values at most
    max(atol, rtol * largest) count as zero (hermitian: from eigh, for symmetric A)."""
    from .linalg import eigh, svd
    if not isinstance(A, Tensor) or A.ndim < 2 or not _is_float(A):
        what = f"{_dtype.TORCH_NAMES[A.dtype.code]}{{{list(A.shape)}}}" if isinstance(A, Tensor) else type(A).__name__
        raise RuntimeError(f"linalg.pinv({what}): expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types")
    nb = _nb()
    if hermitian:
        w, V = eigh(A)
        S = w.abs()
        keep = S > _tol(S, A, atol, rtol)
        winv = nb.where(keep, 1.0 / nb.where(keep, w, nb.ones_like(w)), nb.zeros_like(w))
        r = (V * winv.unsqueeze(-2)) @ V.mT
    else:
        U, S, Vh = svd(A, full_matrices=False)
        keep = S > _tol(S, A, atol, rtol)
        sinv = nb.where(keep, 1.0 / nb.where(keep, S, nb.ones_like(S)), nb.zeros_like(S))
        r = (Vh.mT * sinv.unsqueeze(-2)) @ U.mT
    return _out1(r, out, "linalg.pinv")


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """The number of singular values of each matrix above max(atol, rtol * largest) (int64)."""
    from .linalg import eigvalsh, svdvals
    if not isinstance(A, Tensor) or A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if not _is_float(A):
        raise RuntimeError("linalg.matrix_rank: Expected a floating point tensor as input. Got "
                           f"{_dtype.TORCH_NAMES[A.dtype.code]}")
    A = A.detach()
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    r = (S > _tol(S, A, atol, rtol)).sum(-1)
    return _out1(r, out, "linalg.matrix_rank")


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None) -> LstsqResult:
    """The least-squares (minimum-norm) solution X of A X = B for A [..., m, n] and B [..., m, k] (or [..., m]),
    from the SVD: singular values at most rcond * largest (default eps * max(m, n)) count as zero. The other
    fields follow PyTorch's driver rules (default 'gelsy'): rank for gelsy / gelsd / gelss, singular_values for
    gelsd / gelss, residuals (squared column norms of A X - B) when m > n, the driver is not gelsy and every
    matrix has full rank."""
    from .linalg import svd
    nb = _nb()
    for x, name in ((A, "input"), (B, "other")):
        if not isinstance(x, Tensor):
            raise TypeError(f"linalg_lstsq(): argument '{name}' must be Tensor, not {type(x).__name__}")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {_dtype.TORCH_NAMES[A.dtype.code]} and other's dtype "
                           f"{_dtype.TORCH_NAMES[B.dtype.code]}")
    if not _is_float(A):
        raise RuntimeError("torch.linalg.lstsq: Expected a floating point tensor as input. Got "
                           f"{_dtype.TORCH_NAMES[A.dtype.code]}")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])  # solve's rule
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-{1 if vector else 2})")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None or rcond < 0:
        rcond = _EPS[A.dtype.code] * max(m, n)
    U, S, Vh = svd(A, full_matrices=False)
    keep = S > _tol(S, A, None, float(rcond))
    sinv = nb.where(keep, 1.0 / nb.where(keep, S, nb.ones_like(S)), nb.zeros_like(S))
    X = (Vh.mT * sinv.unsqueeze(-2)) @ (U.mT @ Bm)
    rank = keep.sum(-1)
    residuals = nb.empty(0, dtype=A.dtype)
    if m > n and driver != "gelsy" and (driver == "gels" or bool((rank == n).all().item())):
        residuals = ((A @ X - Bm) ** 2).sum(-2)  # [..., k], k = 1 for a vector B (PyTorch keeps it)
    return LstsqResult(X.squeeze(-1) if vector else X, residuals,
                       rank if driver != "gels" else nb.empty(0, dtype=nb.int64),
                       S.detach() if driver in ("gelsd", "gelss") else nb.empty(0, dtype=A.dtype))


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """A^n for each square matrix (n < 0: the inverse's power; n = 0: the identity), by repeated squaring."""
    from .linalg import inv
    fname = "linalg.matrix_power"
    if not isinstance(A, Tensor):
        raise TypeError(f"linalg_matrix_power(): argument 'input' must be Tensor, not {type(A).__name__}")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"linalg_matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    _square(A, fname)
    n = operator.index(n)
    if n == 0:  # the identity, with a zero gradient for A (PyTorch copies it into a clone of A)
        nb = _nb()
        eye = nb.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape)
        r = nb.where(nb.ones((), dtype=nb.bool, device=A.device), eye, A)
    else:
        if n < 0:
            A, n = inv(A), -n
        r, base = None, A
        while True:  # binary powering: r collects the squares of the set bits
            if n & 1:
                r = base if r is None else r @ base
            n >>= 1
            if not n:
                break
            base = base @ base
        r = r.clone() if r is A else r
    return _out1(r, out, fname)


def _cost_order(shapes: list) -> list:
    """PyTorch's matrix-chain order: split[i][j] is where the best product of matrices i..j splits."""
    p = [shapes[0][0]] + [s[1] for s in shapes]
    k = len(shapes)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = None
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + p[i] * p[s + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s
    return split


def multi_dot(tensors, *, out=None) -> Tensor:
    """The product of a chain of matrices in the cheapest order; the first may be a row vector (1-D) and the
    last a column vector (1-D), which the result drops as PyTorch does."""
    tensors = list(tensors)
    k = len(tensors)
    if k < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {k}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"linalg_multi_dot(): argument 'tensors' must be tuple of Tensors, but found element of "
                            f"type {type(t).__name__} at pos {i}")
    first, last = tensors[0].ndim, tensors[-1].ndim
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i in range(1, k - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].ndim}D")
    code = tensors[0].dtype.code
    for i, t in enumerate(tensors):
        if t.dtype.code != code:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_dtype.CPP_NAMES[code]} and tensor {i} {_dtype.CPP_NAMES[t.dtype.code]}")
    mats = list(tensors)
    if first == 1:
        mats[0] = mats[0].unsqueeze(0)
    if last == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(k - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            a, b = (list(tensors[j].shape) for j in (i, i + 1))
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {a} and {b} cannot be multiplied")
    split = _cost_order([tuple(m.shape) for m in mats])

    def chain(i, j):
        return mats[i] if i == j else chain(i, split[i][j]) @ chain(split[i][j] + 1, j)

    r = chain(0, k - 1)
    if first == 1 and last == 1:
        r = r.reshape(())
    elif first == 1:
        r = r.squeeze(0)
    elif last == 1:
        r = r.squeeze(-1)
    return _out1(r, out, "linalg.multi_dot")


def _broadcast_shape(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    shape = []
    for d, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {d}")
        shape.append(y if x == 1 else x)
    return tuple(shape)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The cross product of 3-vectors along dim (input and other broadcast)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_dtype.TORCH_NAMES[input.dtype.code]} but found "
                           f"{_dtype.TORCH_NAMES[other.dtype.code]}")
    shape = _broadcast_shape(input.shape, other.shape)
    nd = len(shape)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    d = dim % nd
    la = input.shape[d - nd] if d - nd >= -input.ndim else 1
    lb = other.shape[d - nd] if d - nd >= -other.ndim else 1
    if la != 3 or lb != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {la} and {lb}")
    a, b = input.expand(shape), other.expand(shape)
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    r = _nb().cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)
    return _out1(r, out, "linalg.cross")


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """sum(x * y) over dim (x and y broadcast): the dot product of the vectors along dim."""
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.TORCH_NAMES[x.dtype.code]}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_dtype.TORCH_NAMES[x.dtype.code]} and y of type {_dtype.TORCH_NAMES[y.dtype.code]} "
                           "instead")
    return _out1((x * y).sum(dim), out, "linalg.vecdot")


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal (offset above the main one when positive) of the matrices in dims dim1, dim2 of A, as a view
    with the diagonal as the last dim."""
    nd = A.ndim
    for x in (dim1, dim2):
        if not -nd <= x < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {x})")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    st = A.stride()
    length = max(0, min(A.shape[d1] - max(0, -offset), A.shape[d2] - max(0, offset)))
    start = A.storage_offset() + (offset * st[d2] if offset >= 0 else -offset * st[d1]) if length > 0 else \
        A.storage_offset()
    keep = [i for i in range(nd) if i not in (d1, d2)]
    shape = [A.shape[i] for i in keep] + [length]
    strides = [st[i] for i in keep] + [st[d1] + st[d2]]
    return A.as_strided(shape, strides, start)
