"""nabla.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

checkpoint(fn, *args) runs fn with grad mode off, so none of its intermediate
activations are kept: only its inputs are. In backward the function runs again
with grad mode on (the RNG state restored, so dropout draws the same masks) and
its graph is differentiated at once. Both variants record one custom-function
node (nb_autograd_function_record) and run the inner backward from inside it;
gradients of the parameters fn uses accumulate into their .grad there.

use_reentrant=True is PyTorch's reentrant variant: its output requires grad
only when an input does ("None of the inputs have requires_grad=True" warning
otherwise). use_reentrant=False also gives gradients to the parameters of fn
when no input requires grad (a hidden input that requires grad keeps the node
recorded). Unlike PyTorch's non-reentrant variant it does not work with
autograd.grad(outputs, params) on the parameters inside fn, which need
.backward() (their gradients go to .grad).
"""
from __future__ import annotations

import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import Function
from ..autograd.engine import backward as _backward
from ..autograd.grad_mode import enable_grad, no_grad

__all__ = ["checkpoint", "checkpoint_sequential"]

_NO_GRAD_INPUTS = "None of the inputs have requires_grad=True. Gradients will be None"
_PASS_REENTRANT = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                   "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False"
                   " is recommended, but if you need to preserve the current default behavior, you can pass "
                   "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")


def _rng_state(preserve: bool):
    return _random.get_rng_state() if preserve else None


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, n_args, *args):
        ctx.run_function = run_function
        ctx.rng = _rng_state(preserve_rng_state)
        real = args[:n_args]  # what follows is the hidden anchor of use_reentrant=False
        ctx.tensor_slots = [i for i, a in enumerate(real) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in real]
        ctx.save_for_backward(*[real[i] for i in ctx.tensor_slots])
        ctx.n_args = n_args
        ctx.n_all = len(args)
        return run_function(*real)

    @staticmethod
    def backward(ctx, *grad_outputs):
        saved = ctx.saved_tensors
        args = list(ctx.others)
        detached = []
        for slot, t in zip(ctx.tensor_slots, saved):
            d = t.detach()
            d.requires_grad_(t.requires_grad)
            args[slot] = d
            detached.append(d)
        state = _random.get_rng_state() if ctx.rng is not None else None
        try:
            if ctx.rng is not None:
                _random.set_rng_state(ctx.rng)
            with enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            if state is not None:
                _random.set_rng_state(state)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs and ctx.n_all == ctx.n_args:  # reentrant; the other variant has nothing to do
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        if pairs:
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = [None] * ctx.n_all
        for slot, d in zip(ctx.tensor_slots, detached):
            grads[slot] = d.grad
        return (None, None, None) + tuple(grads)


def checkpoint(function, *args, use_reentrant: bool | None = None, context_fn=None, determinism_check="default",
               debug: bool = False, preserve_rng_state: bool = True, **kwargs):
    """function(*args, **kwargs), its activations recomputed in backward instead of kept."""
    if use_reentrant is None:
        warnings.warn(_PASS_REENTRANT, stacklevel=2)
        use_reentrant = True
    if context_fn is not None:
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.") \
            if use_reentrant else NotImplementedError("checkpoint: context_fn is not supported by nabla")
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    fn = function
    if kwargs:
        def fn(*a):
            return function(*a, **kwargs)
    extra = ()
    if use_reentrant:
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn(_NO_GRAD_INPUTS, stacklevel=2)
    else:
        from .._factory import zeros
        from ..autograd.grad_mode import is_grad_enabled
        if not is_grad_enabled():
            return fn(*args)
        anchor = zeros(())
        anchor.requires_grad_(True)
        extra = (anchor,)
    return _Checkpoint.apply(fn, preserve_rng_state, len(args), *args, *extra)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Runs a Sequential (or list of modules/functions) in `segments` chunks, all but the last
    checkpointed."""
    if use_reentrant is None:
        warnings.warn(_PASS_REENTRANT, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1, got {segments}")

    def run_function(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)
