"""nabla.utils.checkpoint: activation checkpointing (torch.utils.checkpoint).

use_reentrant=True (PyTorch's reentrant variant) runs fn with grad mode off, so
none of its intermediate activations are kept, only its inputs; one custom-function
node (nb_autograd_function_record) re-runs fn with grad mode on in backward and
differentiates that graph at once. Its output requires grad only when an input does
("None of the inputs have requires_grad=True" warning otherwise), and gradients of
the parameters fn uses reach .grad only (not autograd.grad).

use_reentrant=False (the recommended variant) is PyTorch's non-reentrant design on
saved-tensor hooks: fn runs with grad mode on and builds its ordinary graph, but
every tensor that graph saves is packed as its position only. The first unpack in
backward re-runs fn (RNG state restored, so dropout draws the same masks) under
hooks that collect what it saves, position by position, and each unpack hands over
(and lets go of) its recomputed tensor. So gradients reach everything fn used,
parameters included, through .backward() and autograd.grad alike.
"""
from __future__ import annotations

import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import Function
from ..autograd.engine import backward as _backward
from ..autograd.grad_mode import enable_grad
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError"]

_NO_GRAD_INPUTS = "None of the inputs have requires_grad=True. Gradients will be None"
_PASS_REENTRANT = ("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                   "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False"
                   " is recommended, but if you need to preserve the current default behavior, you can pass "
                   "use_reentrant=True. Refer to docs for more details on the differences between the two variants.")


def _rng_state(preserve: bool):
    return _random.get_rng_state() if preserve else None


class _Checkpoint(Function):
    """The reentrant variant: one node whose backward re-runs the function and differentiates it."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _rng_state(preserve_rng_state)
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_slots])
        return run_function(*args)

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
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = [None] * len(ctx.others)
        for slot, d in zip(ctx.tensor_slots, detached):
            grads[slot] = d.grad
        return (None, None) + tuple(grads)


class CheckpointError(RuntimeError):
    """The recomputation in backward did not save what the forward pass saved."""


def _meta(t: Tensor) -> tuple:
    return tuple(t.shape), t.dtype, t.device


class _Recomputation:
    """The saved tensors of one non-reentrant checkpoint: forward keeps each one's position
    (and shape, dtype, device for the determinism check); the first unpack of a position not
    recomputed yet re-runs fn and collects, in order, every tensor it saves."""

    def __init__(self, fn, args, rng, check: bool) -> None:
        self.fn, self.args, self.rng, self.check = fn, args, rng, check
        self.forward_meta: list = []
        self.recomputed: dict[int, Tensor] = {}

    def pack(self, tensor: Tensor) -> int:
        self.forward_meta.append(_meta(tensor))
        return len(self.forward_meta) - 1

    def unpack(self, position: int) -> Tensor:
        if position not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(position)  # backward reads a slot once; a second pass recomputes

    def _recompute(self) -> None:
        collected: list[Tensor] = []

        def keep(t):
            collected.append(t)
            return len(collected) - 1

        def never(_):
            raise RuntimeError("torch.utils.checkpoint: the recomputed graph is not differentiated")

        state = _random.get_rng_state() if self.rng is not None else None
        try:
            if self.rng is not None:
                _random.set_rng_state(self.rng)
            with enable_grad(), saved_tensors_hooks(keep, never):
                self.fn(*self.args)
        finally:
            if state is not None:
                _random.set_rng_state(state)
        if len(collected) < len(self.forward_meta):
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have "
                                  f"different metadata than during the forward pass: the forward pass saved "
                                  f"{len(self.forward_meta)} tensors, the recomputation {len(collected)}")
        if self.check:
            for i, (want, t) in enumerate(zip(self.forward_meta, collected)):
                if _meta(t) != want:
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                        f"metadata than during the forward pass.\ntensor at position {i}:\nsaved metadata: "
                        f"{{'shape': {want[0]}, 'dtype': {want[1]}, 'device': {want[2]}}}\nrecomputed metadata: "
                        f"{{'shape': {tuple(t.shape)}, 'dtype': {t.dtype}, 'device': {t.device}}}")
        self.recomputed = dict(enumerate(collected[:len(self.forward_meta)]))
        collected.clear()  # each recomputed tensor goes with its unpack, not with the recomputed graph


def _checkpoint_without_reentry(fn, args, preserve_rng_state: bool, determinism_check: str):
    if determinism_check not in ("default", "none"):
        raise ValueError(f"torch.utils.checkpoint: determinism_check should be one of ['default', 'none'], "
                         f"but got {determinism_check}")
    saved = _Recomputation(fn, args, _rng_state(preserve_rng_state), determinism_check == "default")
    with saved_tensors_hooks(saved.pack, saved.unpack):
        return fn(*args)


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
    if not use_reentrant:
        return _checkpoint_without_reentry(fn, args, preserve_rng_state, determinism_check)
    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn(_NO_GRAD_INPUTS, stacklevel=2)
    return _Checkpoint.apply(fn, preserve_rng_state, *args)


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
