"""torch.* spellings of what nabla has under other names: the *_copy forms of the view functions
(a contiguous copy of the view, gradients included), unsafe_split / unsafe_chunk, torch.t,
inner, chain_matmul, and the legacy linear-algebra names (cholesky, cholesky_solve,
cholesky_inverse, qr, svd, pinverse, nuclear_norm, frobenius_norm) over nabla.linalg, and the
in-place alpha dropouts."""
from __future__ import annotations

import warnings
from collections import namedtuple

from ._tensor import Tensor

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "narrow_copy",
           "permute_copy", "select_copy", "slice_copy", "split_copy", "split_with_sizes_copy", "squeeze_copy",
           "t_copy", "transpose_copy", "unbind_copy", "unsqueeze_copy", "view_copy", "unsafe_split",
           "unsafe_split_with_sizes", "unsafe_chunk", "t", "inner", "chain_matmul", "cholesky", "cholesky_solve",
           "cholesky_inverse", "qr", "svd", "pinverse", "nuclear_norm", "frobenius_norm", "alpha_dropout_", "feature_alpha_dropout_",
           "matrix_exp", "orgqr", "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "poisson_nll_loss",
           "triplet_margin_loss"]

_svd = namedtuple("svd", ["U", "S", "V"])
_qr = namedtuple("qr", ["Q", "R"])


def _nb():
    import nabla
    return nabla


def _copied(view: Tensor) -> Tensor:
    """A contiguous tensor of its own holding view's values (the *_copy contract)."""
    return view.contiguous() if not view.is_contiguous() else view.clone()


def alias_copy(input: Tensor) -> Tensor:
    return _copied(input)


def as_strided_copy(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _copied(input.as_strided(size, stride, storage_offset))


def detach_copy(input: Tensor) -> Tensor:
    return _copied(input.detach())


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return _copied(input.diagonal(offset, dim1, dim2))


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    return _copied(input.expand(*size))


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return _copied(input.narrow(dim, start, length))


def permute_copy(input: Tensor, dims) -> Tensor:
    return _copied(input.permute(*dims))


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    return _copied(input.select(dim, index))


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    index = [slice(None)] * input.dim()
    index[dim] = slice(start, end, step)
    return _copied(input[tuple(index)])


def split_copy(input: Tensor, split_size, dim: int = 0) -> tuple:
    return tuple(_copied(p) for p in input.split(split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return tuple(_copied(p) for p in _nb().split_with_sizes(input, split_sizes, dim))


def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    return _copied(input.squeeze() if dim is None else input.squeeze(dim))


def t_copy(input: Tensor) -> Tensor:
    return _copied(input.t())


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return _copied(input.transpose(dim0, dim1))


def unbind_copy(input: Tensor, dim: int = 0) -> tuple:
    return tuple(_copied(p) for p in input.unbind(dim))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    return _copied(input.unsqueeze(dim))


def view_copy(input: Tensor, size) -> Tensor:
    return _copied(input.view(size) if not isinstance(size, int) else input.view(size))


def unsafe_split(input: Tensor, split_size, dim: int = 0) -> tuple:
    return input.split(split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    return _nb().split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    return input.chunk(chunks, dim)


def t(input: Tensor) -> Tensor:
    """input.t(): the transpose of a matrix (vectors and scalars unchanged)."""
    return input.t()


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The sum of products over the last dims (a product when either is 0-d): [*a, n], [*b, n] -> [*a, *b]."""
    nb = _nb()
    if input.dim() == 0 or other.dim() == 0:
        result = input * other
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                               f"{list(input.shape)} and {list(other.shape)}")
        result = nb.tensordot(input, other, dims=([-1], [-1]))
    return result if out is None else out.copy_(result)


def chain_matmul(*matrices, out=None) -> Tensor:
    """linalg.multi_dot of the matrices (deprecated in PyTorch, with its warning)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        return matrices[0].clone()
    result = _nb().linalg.multi_dot(list(matrices))
    return result if out is None else out.copy_(result)


def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """The Cholesky factor L (or U = L^T with upper) of symmetric positive-definite matrices."""
    L = _nb().linalg.cholesky(input)
    result = L.transpose(-2, -1).contiguous() if upper else L
    return result if out is None else out.copy_(result)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """X with A X = B for A = L L^T (or U^T U), given the Cholesky factor."""
    solve = _nb().linalg.solve_triangular
    if B.dim() < 2 or L.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead"
                           if B.dim() < 2 else
                           f"u should have at least 2 dimensions, but has {L.dim()} dimensions instead")
    lower = L.transpose(-2, -1) if upper else L
    y = solve(lower, B, upper=False)
    result = solve(lower.transpose(-2, -1), y, upper=True)
    return result if out is None else out.copy_(result)


def cholesky_inverse(L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """(L L^T)^-1 (or (U^T U)^-1) from the Cholesky factor."""
    nb = _nb()
    eye = nb.eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
    result = cholesky_solve(eye, L, upper)
    return result if out is None else out.copy_(result)


def qr(input: Tensor, some: bool = True, *, out=None):
    """(Q, R) of linalg.qr, reduced when some, complete otherwise."""
    Q, R = _nb().linalg.qr(input, "reduced" if some else "complete")
    return _qr(Q, R)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """(U, S, V) with input = U diag(S) V^T (V, not V^T as linalg.svd returns); without compute_uv, U and V
    are zeros of the full shapes, as PyTorch."""
    nb = _nb()
    if not compute_uv:
        S = nb.linalg.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        lead = tuple(input.shape[:-2])
        return _svd(nb.zeros(*lead, m, m, dtype=input.dtype), S, nb.zeros(*lead, n, n, dtype=input.dtype))
    U, S, Vh = nb.linalg.svd(input, full_matrices=not some)
    return _svd(U, S, Vh.transpose(-2, -1))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """The pseudo-inverse, singular values below rcond * the largest treated as zero."""
    return _nb().linalg.pinv(input, rtol=rcond)


def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *, out=None, dtype=None) -> Tensor:
    """The sum of singular values of the matrices in dims (the last two by default)."""
    result = _nb().linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else dim, keepdim=keepdim)
    return result if out is None else out.copy_(result)


def frobenius_norm(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """sqrt of the sum of squares over dim."""
    result = _nb().linalg.vector_norm(input, 2, dim=dim, keepdim=keepdim)
    return result if out is None else out.copy_(result)


def matrix_exp(input: Tensor) -> Tensor:
    return _nb().linalg.matrix_exp(input)


def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    return _nb().linalg.householder_product(input, input2)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _nb().nn.functional.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    return _nb().nn.functional.feature_alpha_dropout(input, p, train, inplace=True)


# torch.*_loss take the reduction as ATen's enum (0 none, 1 mean, 2 sum), where nn.functional takes a string;
# left out, it is 0 (no reduction) at this level
_REDUCTION = {0: "none", 1: "mean", 2: "sum"}


def _loss(fn_name: str, names: tuple, defaults: tuple):
    def loss(*args, reduction=0, **kwargs):
        bound = dict(zip(names, args))
        bound.update(kwargs)
        for name, default in zip(names[len(names) - len(defaults):], defaults):
            bound.setdefault(name, default)
        if len(args) > len(names):
            reduction = args[len(names)]
        fn = getattr(_nb().nn.functional, fn_name)
        return fn(**bound, reduction=_REDUCTION.get(reduction, reduction))
    loss.__name__ = fn_name
    loss.__doc__ = f"nn.functional.{fn_name} with the reduction given as 0 (none), 1 (mean) or 2 (sum)."
    return loss


margin_ranking_loss = _loss("margin_ranking_loss", ("input1", "input2", "target", "margin"), (0.0,))
hinge_embedding_loss = _loss("hinge_embedding_loss", ("input", "target", "margin"), (1.0,))
cosine_embedding_loss = _loss("cosine_embedding_loss", ("input1", "input2", "target", "margin"), (0.0,))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """nn.functional.poisson_nll_loss with every option given and the reduction as 0, 1 or 2."""
    return _nb().nn.functional.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                                reduction=_REDUCTION.get(reduction, reduction))


triplet_margin_loss = _loss("triplet_margin_loss", ("anchor", "positive", "negative", "margin", "p", "eps", "swap"),
                            (1.0, 2.0, 1e-6, False))
