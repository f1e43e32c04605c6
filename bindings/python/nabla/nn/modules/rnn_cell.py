"""RNNCell, LSTMCell and GRUCell: one time step of the recurrent layers on a batch
[N, input_size] (or one sample [input_size]), with PyTorch's parameters
(weight_ih, weight_hh, bias_ih, bias_hh), initialisation and messages."""
from __future__ import annotations

import math

from ... import _factory
from ..._linalg import linear
from ..._tensor import Tensor
from .. import init
from ..parameter import Parameter
from . import _recurrence as R
from .module import Module

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Module):
    """weight_ih [chunks * H, in], weight_hh [chunks * H, H] and the biases [chunks * H], U(-1/sqrt(H), 1/sqrt(H))."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_factory.empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(_factory.empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(_factory.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_factory.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_rank(self, t: Tensor, what: str) -> None:
        if t.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected {what} to be 1D or 2D, got {t.dim()}D instead")

    def _check_step(self, input: Tensor, hx: tuple) -> None:
        """PyTorch's checks of one step: input width, batch sizes and state widths."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for i, h in enumerate(hx):
            if input.shape[0] != h.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                   f"{h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {h.shape[1]}, expected "
                                   f"{self.hidden_size}")

    def _step(self, input: Tensor, hx, n_states: int, step):
        """Runs step on input [N, in] or [in] from hx (None: zeros; a tensor or a tuple of n_states tensors)."""
        self._check_rank(input, "input")
        states = (hx,) if n_states == 1 and hx is not None else hx
        if states is not None:
            for i, h in enumerate(states):
                self._check_rank(h, "hidden" if n_states == 1 else f"hx[{i}]")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = input.new_zeros(input.shape[0], self.hidden_size)
            states = (zeros,) * n_states
        elif not batched:
            states = tuple(h.unsqueeze(0) for h in states)
        self._check_step(input, states)
        out = step(linear(input, self.weight_ih, self.bias_ih), states, self.weight_hh, self.bias_hh)
        if not batched:
            out = tuple(h.squeeze(0) for h in out)
        return out[0] if n_states == 1 else out


class RNNCell(RNNCellBase):
    """h' = tanh (or relu) (x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._step(input, hx, 1, R.rnn_tanh_step if self.nonlinearity == "tanh" else R.rnn_relu_step)


class LSTMCell(RNNCellBase):
    """(h', c') from (h, c): gates i, f, g, o; c' = f * c + i * g, h' = o * tanh(c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        return self._step(input, hx, 2, R.lstm_step)


class GRUCell(RNNCellBase):
    """h' = (1 - z) * n + z * h with gates r, z, n."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._step(input, hx, 1, R.gru_step)
