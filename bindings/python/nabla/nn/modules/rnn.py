"""RNN, LSTM and GRU: multi-layer, optionally bidirectional, batch_first, dropout
between layers, initial states, unbatched input, PackedSequence input and (LSTM)
proj_size; parameter names, shapes, initialisation and messages as PyTorch's.

Every layer and direction projects the inputs of all time steps with one linear,
then runs the cell step by step (_recurrence.py)."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import overload

from ... import _factory, _shape
from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from . import _recurrence as R
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_STEPS = {"LSTM": R.lstm_step, "GRU": R.gru_step, "RNN_TANH": R.rnn_tanh_step, "RNN_RELU": R.rnn_relu_step}


class RNNBase(Module):
    """The parameters and the layer / direction loop shared by RNN, LSTM and GRU (mode 'RNN_TANH', 'RNN_RELU',
    'LSTM' or 'GRU'). Per layer k and direction: weight_ih_l{k}[_reverse] [gates * H, in], weight_hh_l{k}
    [gates * H, H or proj_size], bias_ih / bias_hh [gates * H], and with proj_size weight_hr_l{k} [proj_size, H];
    all start as U(-1/sqrt(H), 1/sqrt(H))."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]
    _rank_error = "RNN: Expected input to be 2D or 3D, got {}D tensor instead"  # PyTorch words each layer's own

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        self._check_options(dropout)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                layer_in = input_size if layer == 0 else real_hidden * (2 if bidirectional else 1)
                shapes = {"weight_ih": (gate_size, layer_in), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for name, shape in shapes.items():
                    name += f"_l{layer}" + ("_reverse" if direction == 1 else "")
                    setattr(self, name, Parameter(_factory.empty(*shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def _check_options(self, dropout) -> None:
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and self.num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={self.num_layers}", stacklevel=3)
        for name, kind in (("bias", bool), ("batch_first", bool), ("input_size", int), ("hidden_size", int)):
            value = getattr(self, name)
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if self.input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if self.hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if self.num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if self.proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if self.proj_size >= self.hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Nothing to do: nabla keeps no fused weight buffer (PyTorch's is for cuDNN)."""

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ---- argument checks (PyTorch's messages) ----

    def check_input(self, input: Tensor, batch_sizes) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). Convert "
                             f"input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def get_expected_hidden_size(self, input: Tensor, batch_sizes) -> tuple:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.shape[0] if self.batch_first else input.shape[1]
        dirs = 2 if self.bidirectional else 1
        return (self.num_layers * dirs, mini_batch, self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected: tuple, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        return hx if permutation is None else hx.index_select(1, permutation)

    # ---- the computation ----

    def _layer_weights(self, layer: int, direction: int) -> tuple:
        sfx = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = (lambda n: getattr(self, n + sfx) if hasattr(self, n + sfx) else None)
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def _run(self, x: Tensor, batch_sizes, states: list) -> tuple:
        """Runs every layer over x ([T, N, in] padded, or packed [sum, in] with batch_sizes); states[s] is the
        tuple of initial states of layer / direction s ([N, *] each). Returns (the last layer's output, the list
        of final state tuples)."""
        dirs = 2 if self.bidirectional else 1
        packed = batch_sizes is not None
        steps = R.Steps([int(b) for b in batch_sizes] if packed else [x.shape[1]] * x.shape[0], packed)
        if not steps.batch_sizes:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        step = _STEPS[self.mode]
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(layer, d)
                xi = steps.split(F.linear(x, w_ih, b_ih))  # every time step's input projection in one product
                per_step, final = R.run_direction(xi, steps, states[layer * dirs + d], step, w_hh, b_hh, w_hr,
                                                  reverse=d == 1)
                outs.append(steps.join(per_step))
                finals.append(final)
            x = outs[0] if dirs == 1 else _shape.cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _unpack(self, input):
        """(data, batch_sizes, sorted_indices, unsorted_indices, batched) of a PackedSequence or a tensor (an
        unbatched one gets its batch dim)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            return data, batch_sizes, sorted_indices, unsorted_indices, True
        if input.dim() not in (2, 3):
            raise ValueError(self._rank_error.format(input.dim()))
        if input.dim() == 2:
            return input.unsqueeze(0 if self.batch_first else 1), None, None, None, False
        return input, None, None, None, True

    def _forward(self, input, hx):
        """The forward of RNN and GRU (one state tensor)."""
        data, batch_sizes, sorted_indices, unsorted_indices, batched = self._unpack(input)
        if hx is None:
            hx = data.new_zeros(*self.get_expected_hidden_size(data, batch_sizes))
        else:
            if batch_sizes is None and hx.dim() != (3 if batched else 2):
                raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx should also be "
                                   f"{3 if batched else 2}-D but got {hx.dim()}-D tensor")
            hx = self.permute_hidden(hx if batched else hx.unsqueeze(1), sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        out, finals = self._run(self._time_major(data, batch_sizes), batch_sizes,
                                [(hx[i],) for i in range(hx.shape[0])])
        h_n = self.permute_hidden(_shape.stack([s[0] for s in finals]), unsorted_indices)
        return (self._finish(out, batch_sizes, sorted_indices, unsorted_indices, batched),
                h_n if batched else h_n.squeeze(1))

    def _time_major(self, data: Tensor, batch_sizes) -> Tensor:
        return data.transpose(0, 1) if self.batch_first and batch_sizes is None else data

    def _finish(self, out, batch_sizes, sorted_indices, unsorted_indices, batched: bool):
        if batch_sizes is not None:
            return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        if self.batch_first:
            out = out.transpose(0, 1)
        return out if batched else out.squeeze(0 if self.batch_first else 1)


class RNN(RNNBase):
    """Elman RNN, h_t = tanh (or relu) (x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), over input [T, N, input_size]
    ([N, T, input_size] with batch_first, [T, input_size] unbatched, or a PackedSequence):
    forward(input, h_0) -> (output [T, N, dirs * H], h_n [num_layers * dirs, N, H])."""

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None) -> None: ...

    @overload
    def __init__(self, *args, **kwargs) -> None: ...

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input, hx: Tensor | None = None):
        return self._forward(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit (gates r, z, n as in PyTorch) over input [T, N, input_size] ([N, T, input_size] with
    batch_first, [T, input_size] unbatched, or a PackedSequence):
    forward(input, h_0) -> (output [T, N, dirs * H], h_n [num_layers * dirs, N, H])."""

    _rank_error = "GRU: Expected input to be 2D or 3D, got {}D instead"

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device=None,
                 dtype=None) -> None: ...

    @overload
    def __init__(self, *args, **kwargs) -> None: ...

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx: Tensor | None = None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    """Long short-term memory (gates i, f, g, o as in PyTorch) over input [T, N, input_size] ([N, T, input_size]
    with batch_first, [T, input_size] unbatched, or a PackedSequence): forward(input, (h_0, c_0)) ->
    (output [T, N, dirs * H'], (h_n [num_layers * dirs, N, H'], c_n [num_layers * dirs, N, H])), where
    H' = proj_size if set (h is then projected by weight_hr) else hidden_size."""

    _rank_error = "LSTM: Expected input to be 2D or 3D, got {}D instead"

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None: ...

    @overload
    def __init__(self, *args, **kwargs) -> None: ...

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes) -> tuple:
        return self.get_expected_hidden_size(input, batch_sizes)[:2] + (self.hidden_size,)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: tuple, permutation: Tensor | None) -> tuple:
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input, hx: tuple | None = None):
        data, batch_sizes, sorted_indices, unsorted_indices, batched = self._unpack(input)
        if hx is None:
            hx = (data.new_zeros(*self.get_expected_hidden_size(data, batch_sizes)),
                  data.new_zeros(*self.get_expected_cell_size(data, batch_sizes)))
        else:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("LSTM: hx must be a tuple of two tensors (h_0, c_0)")
            if batch_sizes is None:
                rank = 3 if batched else 2
                if hx[0].dim() != rank or hx[1].dim() != rank:
                    raise RuntimeError(f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx should "
                                       f"also be {rank}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                if not batched:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            hx = self.permute_hidden(tuple(hx), sorted_indices)
        self.check_forward_args(data, hx, batch_sizes)
        out, finals = self._run(self._time_major(data, batch_sizes), batch_sizes,
                                [(hx[0][i], hx[1][i]) for i in range(hx[0].shape[0])])
        h_n, c_n = self.permute_hidden((_shape.stack([s[0] for s in finals]), _shape.stack([s[1] for s in finals])),
                                       unsorted_indices)
        if not batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(out, batch_sizes, sorted_indices, unsorted_indices, batched), (h_n, c_n)
