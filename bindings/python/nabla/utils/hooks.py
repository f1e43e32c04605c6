"""nabla.utils.hooks: the handle every register_*_hook returns, and BackwardHook, the machinery
behind nn.Module's full backward hooks (torch.utils.hooks)."""
from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict

from .._tensor import Tensor
from ..autograd import Function
from ..autograd.grad_mode import is_grad_enabled

__all__ = ["RemovableHandle", "BackwardHook"]


class RemovableHandle:
    """Returned by the register_*_hook functions; remove() (or leaving its `with` block) unregisters
    the hook from every registry it was put in."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict, *extra_dicts, extra_dict=None):
        self.id = next(RemovableHandle._next_id)
        if isinstance(extra_dict, dict):
            extra_dicts += (extra_dict,)
        elif extra_dict is not None:
            extra_dicts += tuple(extra_dict)
        self._refs = [weakref.ref(d) if hasattr(d, "__weakref__") else (lambda d=d: d)
                      for d in (hooks_dict, *extra_dicts)]

    def remove(self) -> None:
        for ref in self._refs:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class HookDict(OrderedDict):
    """An OrderedDict that RemovableHandle can hold weakly."""


class _BackwardHookFunction(Function):
    """Identity on the tensors it is given; its backward hands all their gradients to one callback
    at once (which may replace them) and passes the result on."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.on_grads(grads))


def _pack_with_none(indices, values, size) -> tuple:
    res = [None] * size
    for i, v in zip(indices, values):
        res[i] = v
    return tuple(res)


class BackwardHook:
    """One module call's full backward hooks: identity nodes around the call's tensor inputs and
    outputs capture grad_output (the backward pre-hooks may replace it) and then grad_input, and the
    hooks run as hook(module, grad_input, grad_output) once both are known. Non-tensor arguments show
    as None, and tensors that do not require grad as zeros, as in torch."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None
        self.input_requires = self.output_requires = ()

    @staticmethod
    def _wrap(on_grads, args):
        """args with their tensors passed through the identity node, the tensors' positions and which
        of them require grad; args unchanged and None when no tensor requires grad."""
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        requires = tuple(t.requires_grad for t in tensors)
        if not (any(requires) and is_grad_enabled()):
            return args, None, requires
        new = _BackwardHookFunction.apply(on_grads, *tensors)
        out = list(args)
        for i, t in zip(idx, new):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), idx, requires

    def setup_input_hook(self, args):
        res, self.input_tensors_index, self.input_requires = self._wrap(self._on_input_grads, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_tensors_index, self.output_requires = self._wrap(self._on_output_grads, args)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]

    def _on_output_grads(self, grads):
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grads, self.n_outputs)
        for hook in self.user_pre_hooks:
            new = hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(new)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(new)
        local = self.grad_outputs
        if self.input_tensors_index is None:  # no input needs a gradient: the hooks run now
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                          "outputs since no inputs require gradients.", stacklevel=2)
            none = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, none, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                       "always return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return grads
        res = _pack_with_none(self.input_tensors_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = tuple(out)
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_tensors_index)
