"""nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad
variable-length sequences, with PyTorch's names, layouts and messages.

Packing is one index_select of the padded input (rows in time-major order,
longest sequence first) and unpacking one index_select of the packed data plus a
padding row, so both differentiate through autograd; the index maps are built
with NumPy from the lengths."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import _factory, _shape
from ..._dtype import float16, float32, float64, int8, int16, int32, int64, uint8
from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The steps of a batch of sequences, time-major: data [sum(lengths), *] holds step 0 of every sequence, then
    step 1 of those longer than 1, ...; batch_sizes [T] (int64, CPU) counts the rows of each step; sorted_indices
    maps the sorted (longest first) order to the original batch and unsorted_indices back. Made by
    pack_padded_sequence / pack_sequence, consumed by the recurrent layers."""

    def __new__(cls, data: Tensor, batch_sizes: Tensor | None = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn.")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> "PackedSequence":
        """data converted by Tensor.to; the index tensors follow it to its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cuda(self, *args, **kwargs) -> "PackedSequence":
        return self.to(self.data.cuda(*args, **kwargs).device)

    def cpu(self) -> "PackedSequence":
        return self.to("cpu")

    def pin_memory(self) -> "PackedSequence":
        pin = (lambda t: None if t is None else t.pin_memory())
        return type(self)(self.data.pin_memory(), self.batch_sizes, pin(self.sorted_indices),
                          pin(self.unsorted_indices))

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    def half(self):
        return self.to(dtype=float16)

    def long(self):
        return self.to(dtype=int64)

    def int(self):
        return self.to(dtype=int32)

    def short(self):
        return self.to(dtype=int16)

    def char(self):
        return self.to(dtype=int8)

    def byte(self):
        return self.to(dtype=uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of 0..n-1 (None for None)."""
    if permutation is None:
        return None
    n = permutation.numel()
    return _factory.empty_like(permutation).scatter_(0, permutation, _factory.arange(n, device=permutation.device))


def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                               f"{lengths.device.type} {str(lengths.dtype).split('.')[-1]} tensor")
        return lengths.cpu().numpy().astype(np.int64)
    return np.asarray(list(lengths), dtype=np.float64).astype(np.int64)


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Packs input [T, B, *] ([B, T, *] with batch_first) holding sequences of the given lengths. With
    enforce_sorted the lengths must be decreasing; otherwise the batch is sorted (stably) and the permutation kept."""
    lens = _lengths_array(lengths)
    if input.dim() < 2:
        raise IndexError(f"pack_padded_sequence: expected input of at least 2 dims ([T, B, *] or [B, T, *]), got "
                         f"{input.dim()}-D")
    T, B = (input.shape[1], input.shape[0]) if batch_first else (input.shape[0], input.shape[1])
    if len(lens) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={B})")
    if B and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if B and lens.max() > T:
        raise RuntimeError(f"pack_padded_sequence: a length of {lens.max()} exceeds the input's {T} time steps")
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        order, sorted_indices = np.arange(B), None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = _factory.tensor(order, dtype=int64, device=input.device)
    lens = lens[order]
    t, j = np.nonzero(np.arange(T)[:, None] < lens[None, :])  # time-major, longest first
    b = order[j]
    flat = b * T + t if batch_first else t * B + b
    data = input.reshape(T * B, *input.shape[2:]).index_select(0, _factory.tensor(flat, dtype=int64,
                                                                                   device=input.device))
    batch_sizes = _factory.tensor(np.bincount(t, minlength=int(lens.max()) if B else 0), dtype=int64)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of pack_padded_sequence: (padded [T, B, *] or [B, T, *] in the original batch order, the int64
    lengths). total_length pads to that many steps instead of the longest sequence's."""
    sizes = sequence.batch_sizes.cpu().numpy().astype(np.int64)
    T = len(sizes)
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
        T = total_length
    data = sequence.data
    B = int(sizes[0]) if len(sizes) else 0
    lens_sorted = (np.arange(B)[:, None] < sizes[None, :]).sum(1)
    unsort = (np.arange(B) if sequence.unsorted_indices is None
              else sequence.unsorted_indices.cpu().numpy().astype(np.int64))
    # source row of every padded position: its data row, or the padding row appended after the data
    src = np.full((T, B), data.shape[0], dtype=np.int64)
    t, j = np.nonzero(np.arange(T)[:, None] < lens_sorted[None, :])
    src[t, j] = np.arange(len(t))
    src = src[:, unsort]
    if batch_first:
        src = src.T
    pad_row = _factory.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    rows = _shape.cat([data, pad_row]).index_select(0, _factory.tensor(src.reshape(-1), device=data.device))
    padded = rows.reshape(*src.shape, *data.shape[1:])
    return padded, _factory.tensor(lens_sorted[unsort], dtype=int64)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stacks sequences [L_i, *] into [max L, B, *] ([B, max L, *] with batch_first), padding each with
    padding_value on padding_side ('right' or 'left'); the result has the first sequence's dtype."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    first = sequences[0]
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"pad_sequence: expected a sequence of Tensors, but element {i} is {type(s).__name__}")
        if s.dim() == 0:
            raise RuntimeError(f"pad_sequence: sequence {i} is 0-D; every sequence needs a time dim")
        if s.shape[1:] != first.shape[1:]:
            raise RuntimeError(f"pad_sequence: every sequence must have the trailing dims of the first, "
                               f"{list(first.shape[1:])}, but sequence {i} has shape {list(s.shape)}")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        s = s.to(first.dtype)
        missing = longest - s.shape[0]
        if missing:
            fill = _factory.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = _shape.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return _shape.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The sequences of a padded batch [T, B, *] ([B, T, *] with batch_first), each cut to its length (copies)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq.narrow(0, 0, int(n)).clone() for seq, n in zip(padded_sequences.unbind(0), _lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of sequences [L_i, *] (decreasing lengths unless enforce_sorted=False)."""
    lengths = [v.shape[0] for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
