"""clip_grad_norm_ and clip_grad_value_ (one C call over every gradient; on a device nothing is read back),
get_total_norm and clip_grads_with_norm_."""
from __future__ import annotations

from typing import Iterable

from ..._lib import error, ffi, lib
from ..._tensor import Tensor, _call
from .._grad_mode import no_grad


def _grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if getattr(p, "grad", None) is not None]


def _norm(tensors: list, max_norm: float, norm_type: float, error_if_nonfinite: bool) -> Tensor:
    arr = ffi.new("nb_tensor*[]", [t._h for t in tensors]) if tensors else ffi.NULL
    with no_grad():
        return _call(lib.nbpy_clip_grad_norm_, arr, len(tensors), float(max_norm), float(norm_type),
                     int(bool(error_if_nonfinite)))


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scales the gradients so that their joint norm is at most max_norm; returns the norm before clipping."""
    return _norm(_grads(parameters), max_norm, norm_type, error_if_nonfinite)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the given tensors taken together (as if concatenated)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    return _norm(list(tensors), float("inf"), norm_type, error_if_nonfinite)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, total_norm: Tensor,
                          foreach: bool | None = None) -> None:
    """Scales every gradient by min(1, max_norm / (total_norm + 1e-6)), total_norm computed by the caller
    (get_total_norm), without a host synchronisation."""
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamps every gradient element to [-clip_value, clip_value] in place."""
    grads = _grads(parameters)
    if not grads:
        return
    with no_grad():
        status = lib.nb_clip_grad_value_(ffi.new("nb_tensor*[]", [g._h for g in grads]), len(grads),
                                         float(clip_value))
    if status:
        raise error(status)
