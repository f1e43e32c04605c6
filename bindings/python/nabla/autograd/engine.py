"""backward() and grad(): thin calls into libnabla's engine."""
from __future__ import annotations

from collections.abc import Sequence

from .._lib import ffi, lib, queued, scratch
from .._tensor import Tensor, _from_handle
from . import _callbacks
from .grad_mode import no_grad


def _as_tuple(x, what: str) -> tuple:
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, Sequence):
        for t in x:
            if not isinstance(t, Tensor):
                raise TypeError(f"{what} must be Tensors, but got {type(t).__name__}")
        return tuple(x)
    raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, but got {type(x).__name__}")


def _grad_handles(grads, n: int):
    if grads is None:
        return ffi.NULL
    grads = (grads,) if isinstance(grads, Tensor) else tuple(grads)
    if len(grads) != n:
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs; got {len(grads)} gradients "
                           f"for {n} outputs")
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"gradients must be Tensors or None, but got {type(g).__name__}")
    return ffi.new("nb_tensor*[]", [g._h if g is not None else ffi.NULL for g in grads])


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Accumulates the gradients of tensors into the .grad of the leaves (or only of `inputs`)."""
    tensors = _as_tuple(tensors, "tensors")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _as_tuple(inputs, "inputs")
        grads = grad(tensors, inputs, grad_tensors, retain_graph=retain_graph, create_graph=create_graph,
                     allow_unused=True)
        with no_grad():
            for x, g in zip(inputs, grads):
                if g is not None:
                    x.grad = g if x.grad is None else x.grad + g
        return
    outs = ffi.new("nb_tensor*[]", [t._h for t in tensors])
    with _callbacks.retaining(retain_graph):
        status = lib.nb_backward(outs, _grad_handles(grad_tensors, len(tensors)), len(tensors), bool(retain_graph),
                                 bool(create_graph))
    _callbacks.run_queued(not status)
    if status:
        _callbacks.raise_for(status)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused=None, is_grads_batched: bool = False, materialize_grads: bool = False) -> tuple:
    """The gradients of outputs with respect to inputs; .grad fields are left untouched."""
    if is_grads_batched:
        raise NotImplementedError("grad: is_grads_batched=True is not supported by nabla")
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got "
                         "allow_unused=False.")
    outputs = _as_tuple(outputs, "outputs")
    inputs = _as_tuple(inputs, "inputs")
    if retain_graph is None:
        retain_graph = create_graph
    outs = ffi.new("nb_tensor*[]", [t._h for t in outputs])
    ins = ffi.new("nb_tensor*[]", [t._h for t in inputs])
    res = ffi.new("nb_tensor*[]", len(inputs))
    with _callbacks.retaining(retain_graph):
        status = lib.nb_autograd_grad(outs, _grad_handles(grad_outputs, len(outputs)), len(outputs), ins,
                                      len(inputs), bool(retain_graph), bool(create_graph), bool(allow_unused), res)
    if status:
        _callbacks.raise_for(status)
    grads = tuple(_from_handle(h) if h else None for h in res)
    if materialize_grads:
        from .._factory import zeros_like
        grads = tuple(zeros_like(x) if g is None else g for g, x in zip(grads, inputs))
    return grads


def tensor_backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Tensor.backward: accumulates the gradient of this tensor into the leaves' .grad (bound in
    _tensor_methods.py). The common call, loss.backward(), goes straight to nb_backward."""
    if gradient is None and inputs is None and not create_graph and not retain_graph:
        buf = scratch.out
        buf[0] = self._h
        status = lib.nb_backward(buf, ffi.NULL, 1, 0, 0)
        if queued.items is not None:
            _callbacks.run_queued(not status)
        if status:
            _callbacks.raise_for(status)
        return
    backward(self, gradient, retain_graph, create_graph, inputs)
