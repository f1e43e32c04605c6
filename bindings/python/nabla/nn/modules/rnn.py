"""LSTM and GRU: multi-layer, optionally bidirectional, batch_first, initial states.

The input projection of every time step is one matmul per layer and direction;
the recurrence is one linear plus the gate math per step."""
from __future__ import annotations

import math

from ... import _factory, _shape
from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["LSTM", "GRU"]


class _RNNBase(Module):
    _gates = 1
    _mode = ""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0:
            raise NotImplementedError(f"{self._mode}: proj_size is not supported yet")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        dirs = 2 if bidirectional else 1
        gate = self._gates * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else hidden_size * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
                shapes = [("weight_ih", (gate, layer_in)), ("weight_hh", (gate, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate,)), ("bias_hh", (gate,))]
                for name, shape in shapes:
                    setattr(self, name + sfx, Parameter(_factory.empty(*shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name + sfx)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names[i:i + (4 if self.bias else 2)]]
                for i in range(0, len(self._flat_weights_names), 4 if self.bias else 2)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    def _check_input(self, input: Tensor) -> tuple[Tensor, bool]:
        """input as [T, N, in] and whether it was unbatched."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{self._mode}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        if input.dim() == 2:
            return input.unsqueeze(1), True
        return (input.transpose(0, 1) if self.batch_first else input), False

    def _check_hidden(self, h: Tensor, n: int, unbatched: bool, what: str) -> Tensor:
        dirs = 2 if self.bidirectional else 1
        expected = (self.num_layers * dirs, n, self.hidden_size)
        if unbatched:
            if h.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, {what} should also be 2-D but got {h.dim()}-D tensor")
            h = h.unsqueeze(1)
        elif h.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, {what} should also be 3-D but got {h.dim()}-D tensor")
        if tuple(h.shape) != expected:
            raise RuntimeError(f"Expected hidden size {expected}, got {list(h.shape)}")
        return h

    def _weights(self, layer: int, d: int):
        sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
        w_ih, w_hh = getattr(self, "weight_ih" + sfx), getattr(self, "weight_hh" + sfx)
        b_ih = getattr(self, "bias_ih" + sfx) if self.bias else None
        b_hh = getattr(self, "bias_hh" + sfx) if self.bias else None
        return w_ih, w_hh, b_ih, b_hh

    def _run(self, x: Tensor, states: list, cell) -> tuple[Tensor, list]:
        """Runs every layer and direction over x [T, N, in]; states[i] is the initial state tuple of layer/direction
        i; returns the last layer's output [T, N, dirs * H] and the final states."""
        dirs = 2 if self.bidirectional else 1
        T = x.shape[0]
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                xi = F.linear(x, w_ih, b_ih)  # [T, N, gates * H], every step at once
                state = states[layer * dirs + d]
                steps = [None] * T
                for t in (range(T - 1, -1, -1) if d == 1 else range(T)):
                    state = cell(xi[t], state, w_hh, b_hh)
                    steps[t] = state[0]
                outs.append(_shape.stack(steps) if T else x.new_zeros(0, x.shape[1], self.hidden_size))
                finals.append(state)
            x = outs[0] if dirs == 1 else _shape.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _output(self, out: Tensor, unbatched: bool) -> Tensor:
        if unbatched:
            return out.squeeze(1)
        return out.transpose(0, 1) if self.batch_first else out


def _lstm_cell(xt: Tensor, state, w_hh: Tensor, b_hh: Tensor | None):
    h, c = state
    gates = xt + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_cell(xt: Tensor, state, w_hh: Tensor, b_hh: Tensor | None):
    h = state[0]
    xr, xz, xn = xt.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (n + z * (h - n),)


class LSTM(_RNNBase):
    """Long short-term memory over input [T, N, input_size] ([N, T, input_size] with batch_first, or [T, input_size]):
    forward(input, (h_0, c_0)) -> (output [T, N, dirs * H], (h_n, c_n)), states [num_layers * dirs, N, H].
    Gates i, f, g, o as in PyTorch."""
    _gates = 4
    _mode = "LSTM"

    def forward(self, input: Tensor, hx=None):
        x, unbatched = self._check_input(input)
        n = x.shape[1]
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            zeros = x.new_zeros(self.num_layers * dirs, n, self.hidden_size)
            h0, c0 = zeros, zeros
        else:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0)")
            h0 = self._check_hidden(hx[0], n, unbatched, "hx[0]")
            c0 = self._check_hidden(hx[1], n, unbatched, "hx[1]")
        out, finals = self._run(x, [(h0[i], c0[i]) for i in range(h0.shape[0])], _lstm_cell)
        h_n = _shape.stack([s[0] for s in finals])
        c_n = _shape.stack([s[1] for s in finals])
        if unbatched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._output(out, unbatched), (h_n, c_n)


class GRU(_RNNBase):
    """Gated recurrent unit over input [T, N, input_size] ([N, T, input_size] with batch_first, or [T, input_size]):
    forward(input, h_0) -> (output [T, N, dirs * H], h_n [num_layers * dirs, N, H]). Gates r, z, n as in PyTorch."""
    _gates = 3
    _mode = "GRU"

    def forward(self, input: Tensor, hx: Tensor | None = None):
        x, unbatched = self._check_input(input)
        n = x.shape[1]
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            h0 = x.new_zeros(self.num_layers * dirs, n, self.hidden_size)
        else:
            h0 = self._check_hidden(hx, n, unbatched, "hx")
        out, finals = self._run(x, [(h0[i],) for i in range(h0.shape[0])], _gru_cell)
        h_n = _shape.stack([s[0] for s in finals])
        if unbatched:
            h_n = h_n.squeeze(1)
        return self._output(out, unbatched), h_n
