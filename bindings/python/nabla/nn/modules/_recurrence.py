"""The arithmetic of the recurrent layers: one step of each cell (composed from
linear and the pointwise ops, so autograd differentiates it), and the time loop
of one layer and direction over a padded [T, N, *] or packed [sum(lengths), *]
sequence. In a packed sequence the batch shrinks as sequences end: a finished
row keeps its last state, which becomes its final state."""
from __future__ import annotations

from ... import _shape
from ..._linalg import linear
from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["rnn_tanh_step", "rnn_relu_step", "lstm_step", "gru_step", "Steps", "run_direction"]


# ---- one step: xi is the input already projected by weight_ih (+ bias_ih) ----

def rnn_tanh_step(xi: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None, w_hr=None) -> tuple:
    return ((xi + linear(state[0], w_hh, b_hh)).tanh(),)


def rnn_relu_step(xi: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None, w_hr=None) -> tuple:
    return ((xi + linear(state[0], w_hh, b_hh)).relu(),)


def lstm_step(xi: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None, w_hr: Tensor | None = None) -> tuple:
    """Gates i, f, g, o; h = o * tanh(c), projected by w_hr when the LSTM has proj_size."""
    h, c = state
    i, f, g, o = (xi + linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return (h if w_hr is None else linear(h, w_hr), c)


def gru_step(xi: Tensor, state: tuple, w_hh: Tensor, b_hh: Tensor | None, w_hr=None) -> tuple:
    """Gates r, z, n: n = tanh(x_n + r * (W_hn h + b_hn)), h' = (1 - z) * n + z * h."""
    h = state[0]
    xr, xz, xn = xi.chunk(3, -1)
    hr, hz, hn = linear(h, w_hh, b_hh).chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (n + z * (h - n),)


# ---- the time loop ----

class Steps:
    """Where each time step's rows sit in a layer's input: padded [T, N, *] (every step has N rows) or packed
    [sum(batch_sizes), *] (step t has batch_sizes[t] rows, the longest sequences first)."""

    def __init__(self, batch_sizes: list, packed: bool) -> None:
        self.batch_sizes, self.packed = batch_sizes, packed
        self.offsets = [0]
        for b in batch_sizes:
            self.offsets.append(self.offsets[-1] + b)

    def split(self, x: Tensor) -> list:
        return list(_StepViews.apply(x, self))

    def join(self, steps: list) -> Tensor:
        return _shape.cat(steps) if self.packed else _shape.stack(steps)


class _StepViews(Function):
    """A layer's input cut into its time steps with one backward node, which joins the steps'
    gradients (zeros where a step got none). One select or narrow per step would give each step a
    full-size gradient to add up: quadratic in the sequence length."""

    @staticmethod
    def forward(ctx, x: Tensor, steps: "Steps"):
        ctx.steps, ctx.shape, ctx.dtype, ctx.device = steps, x.shape, x.dtype, x.device
        ctx.set_materialize_grads(False)
        if steps.packed:
            return tuple(x.narrow(0, o, b) for o, b in zip(steps.offsets, steps.batch_sizes))
        return tuple(x.unbind(0))

    @staticmethod
    def backward(ctx, *grads):
        from ..._factory import zeros
        rest = tuple(ctx.shape[1:])  # padded: a step is [N, *]; packed: [batch_sizes[t], *]
        parts = [g if g is not None else
                 zeros(((b,) + rest) if ctx.steps.packed else rest, dtype=ctx.dtype, device=ctx.device)
                 for g, b in zip(grads, ctx.steps.batch_sizes)]
        return ctx.steps.join(parts), None


def run_direction(xi: list, steps: Steps, state0: tuple, step, w_hh, b_hh, w_hr, reverse: bool):
    """Runs step over the projected inputs xi (one tensor per time step) from state0 (tuple of [N, *], N the
    largest batch size), forward or in reverse; returns (the per-step outputs, the final state tuple)."""
    sizes = steps.batch_sizes
    outs = [None] * len(xi)
    if reverse:
        rows = sizes[-1]
        state = tuple(s.narrow(0, 0, rows) for s in state0)
        for t in range(len(xi) - 1, -1, -1):
            if sizes[t] > rows:  # longer sequences join at their last step, from their initial state
                state = tuple(_shape.cat([s, s0.narrow(0, rows, sizes[t] - rows)]) for s, s0 in zip(state, state0))
                rows = sizes[t]
            state = step(xi[t], state, w_hh, b_hh, w_hr)
            outs[t] = state[0]
        return outs, state
    state, finished = state0, []
    for t in range(len(xi)):
        rows = state[0].shape[0]
        if sizes[t] < rows:  # sequences that ended keep their state
            finished.append(tuple(s.narrow(0, sizes[t], rows - sizes[t]) for s in state))
            state = tuple(s.narrow(0, 0, sizes[t]) for s in state)
        state = step(xi[t], state, w_hh, b_hh, w_hr)
        outs[t] = state[0]
    if finished:
        state = tuple(_shape.cat([s] + [f[j] for f in reversed(finished)]) for j, s in enumerate(state))
    return outs, state
