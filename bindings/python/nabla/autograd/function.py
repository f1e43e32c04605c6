"""autograd.Function: custom differentiable operations written in Python.

forward runs with grad mode off; the outputs are then recorded as one node
whose backward is a closure calling the class's backward (through the C ABI's
nb_autograd_function_record, the path every binding uses)."""
from __future__ import annotations

import functools

from .._lib import ffi, lib
from .._tensor import Tensor, _from_handle
from . import _callbacks
from .grad_mode import no_grad


class FunctionCtx:
    """The ctx argument: what forward leaves for backward."""

    def __init__(self) -> None:
        self._saved = ()
        self._saved_versions = ()
        self._saved_hooks = None  # the saved-tensor hooks _saved was packed with
        self._non_differentiable = set()
        self._materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {tensors.index(t)} is "
                                f"of type {type(t).__name__}")
        from .graph import _current_hooks
        pair = _current_hooks()
        if pair is not None:  # saved-tensor hooks: keep what pack returns (not version-checked, as in PyTorch)
            self._saved_hooks = pair
            self._saved = tuple(None if t is None else pair.pack(t) for t in tensors)
            self._saved_versions = tuple(None for _ in tensors)
            return
        self._saved_hooks = None
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed). Saved intermediate values of the graph "
                               "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
                               "you need to backward through the graph a second time or if you need to access saved "
                               "tensors after calling backward.")
        if self._saved_hooks is not None:
            from .graph import _unpack_value
            return tuple(None if v is None else _unpack_value(self._saved_hooks, v) for v in self._saved)
        for i, (t, v) in enumerate(zip(self._saved, self._saved_versions)):
            if t is not None and t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.dtype} {list(t.shape)}], which is saved tensor {i} of a custom Function, "
                    f"is at version {t._version}; expected version {v} instead.")
        return self._saved

    def mark_non_differentiable(self, *outputs) -> None:
        self._non_differentiable.update(id(t) for t in outputs)

    def mark_dirty(self, *tensors) -> None:
        """Accepted for compatibility: in-place outputs are recorded as new results."""

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize_grads = bool(value)


class _Record:
    """The payload of one recorded node: the ctx, the class and where the tensor args sat."""

    __slots__ = ("ctx", "cls", "arg_slots", "n_args", "retain")

    def __init__(self, ctx, cls, arg_slots, n_args, retain):
        self.ctx, self.cls, self.arg_slots, self.n_args, self.retain = ctx, cls, arg_slots, n_args, retain


class FunctionMeta(type):
    pass


class Function(metaclass=FunctionMeta):
    """Subclass with static forward(ctx, *args) and backward(ctx, *grad_outputs); call apply()."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        if not lib.nb_grad_enabled() or not any(ctx.needs_input_grad):
            return result
        arg_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = [args[i] for i in arg_slots]
        fixed = []
        for o in outputs:  # an input returned as is becomes a fresh alias, so it can carry the new history
            if isinstance(o, Tensor) and any(o is x for x in inputs):
                with no_grad():
                    o = o.view_as(o)
            fixed.append(o)
        tensor_outs = [o for o in fixed if isinstance(o, Tensor)]
        if not tensor_outs:
            return result
        # A saved output would hold its own node alive through the ctx: keep an alias without history.
        ctx._saved = tuple(t.detach() if t is not None and any(t is o for o in outputs) else t for t in ctx._saved)
        nondiff = ffi.new("int32_t[]", [id(o) in ctx._non_differentiable or id(orig) in ctx._non_differentiable
                                        for o, orig in zip(fixed, outputs) if isinstance(o, Tensor)])
        record = _Record(ctx, cls, arg_slots, len(args), [type(o) for o in fixed])
        payload = _callbacks.new_payload(record)
        status = lib.nb_autograd_function_record(
            cls.__name__.encode(), ffi.new("nb_tensor*[]", [x._h for x in inputs]), len(inputs),
            ffi.new("nb_tensor*[]", [o._h for o in tensor_outs]), len(tensor_outs), nondiff,
            lib.nbpy_custom_backward, payload, lib.nbpy_payload_release)
        if status:
            _callbacks.raise_for(status)
        return tuple(fixed) if is_tuple else fixed[0]


def _borrow(h) -> Tensor:
    lib.nb_tensor_retain(h)
    return _from_handle(h)


@ffi.def_extern()
def nbpy_custom_backward(payload, n_grad_outputs, grad_outputs, n_grad_inputs, grad_inputs):
    try:
        record = ffi.from_handle(payload)
        grads = [_borrow(grad_outputs[i]) for i in range(n_grad_outputs)]
        try:
            result = record.cls.backward(record.ctx, *grads)
        finally:
            if not _callbacks.retains_graph():  # as the engine frees the saved tensors of built-in nodes
                record.ctx._saved = None
        if not isinstance(result, tuple):
            result = (result,)
        if len(result) != record.n_args:
            if len(result) > record.n_args and all(r is None for r in result[record.n_args:]):
                result = result[:record.n_args]
            else:
                raise RuntimeError(f"function {record.cls.__name__}Backward returned an incorrect number of "
                                   f"gradients (expected {record.n_args}, got {len(result)})")
        for slot, arg in enumerate(record.arg_slots):
            g = result[arg]
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"function {record.cls.__name__}Backward returned a gradient of type "
                                f"{type(g).__name__} for input {arg}; expected a Tensor or None")
            lib.nb_tensor_retain(g._h)
            grad_inputs[slot] = g._h
        return lib.NB_OK
    except BaseException as exc:  # noqa: BLE001 - re-raised in the caller of backward
        return _callbacks.park(exc)


def once_differentiable(fn):
    """Marks a backward that is not itself differentiable: it runs with grad mode off."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
