"""RNN, LSTM (with proj_size), GRU, the cells and nn.utils.rnn against PyTorch
with copied weights: every option, unbatched and packed input, initial states,
dropout between layers; outputs and gradients in float32 and float64; messages."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.nn as nn
from nabla.nn.utils import rnn as R
from torch_reference import check_module, copy_weights, flatten

torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn
RNG = np.random.default_rng(7)
T, N, IN, H = 5, 3, 4, 6


def _x(*shape):
    return RNG.standard_normal(shape)


def _pair(cls: str, *args, **kw):
    return getattr(nn, cls)(*args, **kw), getattr(torch.nn, cls)(*args, **kw)


def _states(cls: str, layers: int, dirs: int, n: int | None, proj: int = 0):
    shape = (layers * dirs, n) if n is not None else (layers * dirs,)
    h = _x(*shape, proj or H)
    return (h, _x(*shape, H)) if cls == "LSTM" else h


LAYERS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("GRU", {}), ("LSTM", {}),
    ("LSTM", {"proj_size": 3}), ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
    ("GRU", {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("RNN", {"bidirectional": True, "batch_first": True}), ("LSTM", {"batch_first": True, "bias": False}),
]


def _id(case):
    cls, kw = case
    return cls + "".join(f",{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("case", LAYERS, ids=_id)
def test_layers_match_pytorch(case, dtype):
    cls, kw = case
    ours, theirs = _pair(cls, IN, H, **kw)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    dirs, layers = 2 if kw.get("bidirectional") else 1, kw.get("num_layers", 1)
    x = _x(N, T, IN) if kw.get("batch_first") else _x(T, N, IN)
    check_module(ours, theirs, x, dtype=dtype)
    check_module(ours, theirs, x, _states(cls, layers, dirs, N, kw.get("proj_size", 0)), dtype=dtype)
    u = _x(T, IN)  # unbatched
    check_module(ours, theirs, u, dtype=dtype)
    check_module(ours, theirs, u, _states(cls, layers, dirs, None, kw.get("proj_size", 0)), dtype=dtype)


@pytest.mark.parametrize("case", [("GRU", {"num_layers": 2, "bidirectional": True}),
                                  ("LSTM", {"proj_size": 2, "bidirectional": True}),
                                  ("RNN", {"batch_first": True, "num_layers": 2})], ids=_id)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_match_pytorch(case, enforce_sorted):
    cls, kw = case
    ours, theirs = _pair(cls, IN, H, **kw)
    theirs.double()
    ours.double()
    copy_weights(ours, theirs)
    batch_first = kw.get("batch_first", False)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    x = _x(4, T, IN) if batch_first else _x(T, 4, IN)
    dirs, layers = 2 if kw.get("bidirectional") else 1, kw.get("num_layers", 1)
    hx = _states(cls, layers, dirs, 4, kw.get("proj_size", 0))
    results = []
    for lib_, tensor, mod, utils in ((nabla, nabla.tensor, ours, R), (torch, torch.tensor, theirs, TR)):
        xt = tensor(x, requires_grad=True)
        h = tuple(tensor(a, requires_grad=True) for a in hx) if cls == "LSTM" else tensor(hx, requires_grad=True)
        packed = utils.pack_padded_sequence(xt, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        out, h_n = mod(packed, h)
        assert isinstance(out, utils.PackedSequence)
        padded, out_lengths = utils.pad_packed_sequence(out, batch_first=batch_first, total_length=T + 1)
        g = np.random.default_rng(1).standard_normal(tuple(padded.shape))
        loss = (padded * tensor(g)).sum() + sum(t.sum() for t in flatten(h_n))
        loss.backward()
        grads = [xt.grad] + [t.grad for t in flatten(h)] + [p.grad for p in mod.parameters()]
        results.append([packed.data, packed.batch_sizes, out.data, padded, out_lengths] + flatten(h_n) + grads
                       + [t for t in (packed.sorted_indices, packed.unsorted_indices) if t is not None])
    assert len(results[0]) == len(results[1])
    for o, r in zip(*results):
        np.testing.assert_allclose(o.detach().numpy(), r.detach().numpy(), rtol=1e-9, atol=1e-10)


def test_dropout_between_layers():
    x = _x(T, N, IN)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got dropout=0.5 "
                                         "and num_layers=1"):
        nn.GRU(IN, H, dropout=0.5)
    # dropout=1 zeroes the input of the second layer: deterministic, so comparable
    ours, theirs = _pair("LSTM", IN, H, num_layers=2, dropout=1.0)
    check_module(ours, theirs, x, train=True)
    ours, theirs = _pair("GRU", IN, H, num_layers=3, dropout=0.4)
    check_module(ours, theirs, x, train=False)  # eval: no dropout
    ours.train()
    nabla.manual_seed(0)
    a = ours(nabla.tensor(x))[0].detach().numpy()
    ours.eval()
    b = ours(nabla.tensor(x))[0].detach().numpy()
    assert not np.allclose(a, b)


def test_zero_batch_and_empty_sequence():
    ours, theirs = _pair("LSTM", IN, H, bidirectional=True)
    check_module(ours, theirs, _x(T, 0, IN))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
        ours(nabla.ones(0, N, IN, dtype=nabla.float64))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
                                    ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", {"bias": False})])
def test_cells_match_pytorch(cls, kw, dtype):
    ours, theirs = _pair(cls, IN, H, **kw)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    x = _x(N, IN)
    hx = (_x(N, H), _x(N, H)) if cls == "LSTMCell" else _x(N, H)
    check_module(ours, theirs, x, dtype=dtype)
    check_module(ours, theirs, x, hx, dtype=dtype)
    u = _x(IN)
    check_module(ours, theirs, u, dtype=dtype)
    check_module(ours, theirs, u, (_x(H), _x(H)) if cls == "LSTMCell" else _x(H), dtype=dtype)


def test_cell_unrolled_equals_layer():
    cell, layer = nn.LSTMCell(IN, H), nn.LSTM(IN, H)
    with nabla.no_grad():
        for a, b in (("weight_ih", "weight_ih_l0"), ("weight_hh", "weight_hh_l0"), ("bias_ih", "bias_ih_l0"),
                     ("bias_hh", "bias_hh_l0")):
            getattr(cell, a).copy_(getattr(layer, b))
    x = nabla.tensor(_x(T, N, IN).astype(np.float32))
    out, (h, c) = layer(x)
    state = None
    for t in range(T):
        state = cell(x[t], state)
    np.testing.assert_allclose(state[0].detach().numpy(), h[0].detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(state[1].detach().numpy(), c[0].detach().numpy(), rtol=1e-6, atol=1e-7)


# ---- nn.utils.rnn ----

def _both(fn_name, *args, **kwargs):
    """fn_name of nabla's and of PyTorch's nn.utils.rnn on the same arrays (lists of arrays included)."""
    def conv(make):
        return [[make(a) for a in x] if isinstance(x, list) and isinstance(x[0], np.ndarray)
                else make(x) if isinstance(x, np.ndarray) else x for x in args]
    return getattr(R, fn_name)(*conv(nabla.tensor), **kwargs), getattr(TR, fn_name)(*conv(torch.from_numpy), **kwargs)


def _same(a, b):
    for o, r in zip(flatten(a), flatten(b)):
        if r is None:
            assert o is None
        else:
            assert tuple(o.shape) == tuple(r.shape)
            np.testing.assert_array_equal(o.detach().numpy(), r.detach().numpy())


def test_pad_sequence_matches_pytorch():
    seqs = [_x(3, 2, 2), _x(5, 2, 2), _x(1, 2, 2)]
    for kw in [{}, {"batch_first": True}, {"padding_value": -1.5, "padding_side": "left"},
               {"batch_first": True, "padding_side": "left"}]:
        _same(*_both("pad_sequence", seqs, **kw))
    _same(*_both("pad_sequence", [np.arange(3), np.arange(2)]))  # integer sequences
    _same(*_both("pad_sequence", [_x(0, 2), _x(0, 2)]))
    _same(*_both("pad_sequence", [_x(2), np.arange(3)]))  # the first sequence's dtype
    assert tuple(R.pad_sequence(nabla.ones(2, 3)).shape) == (3, 2)  # a tensor is its rows
    # gradients flow back to every sequence
    a, b = nabla.tensor(_x(2, 3), requires_grad=True), nabla.tensor(_x(4, 3), requires_grad=True)
    R.pad_sequence([a, b], batch_first=True).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(b.grad.numpy(), np.ones((4, 3)))


def test_pack_unpack_helpers_match_pytorch():
    seqs = [_x(4, 2), _x(2, 2), _x(2, 2)]
    _same(*_both("pack_sequence", seqs))
    _same(*_both("pack_sequence", seqs[::-1], enforce_sorted=False))
    ours, theirs = _both("pack_sequence", seqs[::-1], enforce_sorted=False)
    for o, r in zip(R.unpack_sequence(ours), TR.unpack_sequence(theirs)):
        np.testing.assert_array_equal(o.numpy(), r.numpy())
    x = _x(4, 3, 2)
    _same(*_both("pack_padded_sequence", x, [4, 2, 1]))
    _same(*_both("pack_padded_sequence", x, [2, 4, 2], enforce_sorted=False))
    _same(*_both("pack_padded_sequence", x.transpose(1, 0, 2).copy(), [2, 4, 2], batch_first=True,
                 enforce_sorted=False))
    ours = R.pack_padded_sequence(nabla.tensor(x), nabla.tensor([2, 4, 2]), enforce_sorted=False)
    theirs = TR.pack_padded_sequence(torch.from_numpy(x), torch.tensor([2, 4, 2]), enforce_sorted=False)
    _same(ours, theirs)
    for kw in [{}, {"batch_first": True, "padding_value": 9.0}, {"total_length": 6}]:
        _same(R.pad_packed_sequence(ours, **kw), TR.pad_packed_sequence(theirs, **kw))
    padded, lengths = TR.pad_packed_sequence(theirs, batch_first=True)
    for o, r in zip(R.unpad_sequence(nabla.tensor(padded.numpy()), nabla.tensor(lengths.numpy()), batch_first=True),
                    TR.unpad_sequence(padded, lengths, batch_first=True)):
        np.testing.assert_array_equal(o.numpy(), r.numpy())
    perm = np.array([2, 0, 3, 1])
    _same(R.invert_permutation(nabla.tensor(perm)), TR.invert_permutation(torch.from_numpy(perm)))
    assert R.invert_permutation(None) is None
    p = R.pack_sequence([nabla.ones(2, 1), nabla.ones(1, 1)])
    assert p.double().data.dtype == nabla.float64 and p.to(nabla.float64).batch_sizes is p.batch_sizes
    assert not p.is_cuda and R.PackedSequence(p.data, p.batch_sizes) == p
    assert R.PackedSequence((p.data, p.batch_sizes)) == p


def test_packing_messages():
    x = nabla.ones(5, 3, 2)
    with pytest.raises(RuntimeError, match=r"Expected `len\(lengths\)` to be equal to batch_size, but got 2 "
                                           r"\(batch_size=3\)"):
        R.pack_padded_sequence(x, [5, 3])
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order when `enforce_sorted` "
                                           "is True"):
        R.pack_padded_sequence(x, [3, 5, 2])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        R.pack_padded_sequence(x, [5, 3, 0])
    with pytest.raises(RuntimeError, match="a length of 6 exceeds the input's 5 time steps"):
        R.pack_padded_sequence(x, [6, 3, 2])
    with pytest.raises(RuntimeError, match="'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu "
                                           "int64 tensor"):
        R.pack_padded_sequence(x, nabla.tensor([[5, 3, 2]]))
    with pytest.raises(IndexError, match="expected input of at least 2 dims"):
        R.pack_padded_sequence(nabla.ones(5), [5])
    p = R.pack_padded_sequence(x, [5, 3, 2])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest sequence "
                                         "in input, but got total_length=3 and max sequence length being 5"):
        R.pad_packed_sequence(p, total_length=3)
    with pytest.raises(RuntimeError, match="received an empty list of sequences"):
        R.pad_sequence([])
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, but got middle."):
        R.pad_sequence([nabla.ones(2)], padding_side="middle")
    with pytest.raises(RuntimeError, match="pad_sequence: Expected iterable for input sequences, but got arg of type"):
        R.pad_sequence(5)
    with pytest.raises(RuntimeError, match=r"every sequence must have the trailing dims of the first, \[3\], but "
                                           r"sequence 1 has shape \[3, 4\]"):
        R.pad_sequence([nabla.ones(2, 3), nabla.ones(3, 4)])
    with pytest.raises(RuntimeError, match="sequence 0 is 0-D"):
        R.pad_sequence([nabla.ones(()), nabla.ones(())])
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        R.PackedSequence(nabla.ones(3))


def test_layer_messages():
    lstm = nn.LSTM(IN, H)
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        lstm(nabla.ones(1, 2, 3, IN))
    with pytest.raises(ValueError, match="RNN: Expected input to be 2D or 3D, got 1D tensor instead"):
        nn.RNN(IN, H)(nabla.ones(IN))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 3"):
        lstm(nabla.ones(2, 1, 3))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 6\), got \[1, 3, 6\]"):
        lstm(nabla.ones(T, 2, IN), (nabla.ones(1, 3, H), nabla.ones(1, 2, H)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 6\), got \[1, 2, 3\]"):
        nn.LSTM(IN, H, proj_size=3)(nabla.ones(T, 2, IN), (nabla.ones(1, 2, 3), nabla.ones(1, 2, 3)))
    with pytest.raises(RuntimeError,
                       match="For batched 3-D input, hx and cx should also be 3-D but got \\(2-D, 3-D\\)"):
        lstm(nabla.ones(T, 2, IN), (nabla.ones(2, H), nabla.ones(1, 2, H)))
    with pytest.raises(RuntimeError, match="For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"):
        nn.GRU(IN, H)(nabla.ones(T, IN), nabla.ones(1, 1, H))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(2, 2, 6\), got \[1, 2, 6\]"):
        nn.GRU(IN, H, bidirectional=True)(nabla.ones(T, 2, IN), nabla.ones(1, 2, H))
    with pytest.raises(ValueError, match=r"RNN input dtype \(nabla.float64\) does not match weight dtype "
                                         r"\(nabla.float32\)"):
        lstm(nabla.ones(T, 2, IN, dtype=nabla.float64))
    with pytest.raises(RuntimeError, match="input must have 2 dimensions, got 3"):
        lstm(R.PackedSequence(nabla.ones(2, 1, IN), nabla.tensor([1, 1])))
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM, not RNN or GRU"):
        nn.GRU(IN, H, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(IN, H, proj_size=H)
    with pytest.raises(ValueError, match="proj_size should be a positive integer or zero"):
        nn.LSTM(IN, H, proj_size=-1)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."):
        nn.RNN(IN, H, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout should be a number in range \\[0, 1\\]"):
        nn.LSTM(IN, H, num_layers=2, dropout=1.5)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.GRU(IN, 2.0)
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(IN, 0)
    with pytest.raises(ValueError, match="num_layers must be greater than zero"):
        nn.GRU(IN, H, num_layers=0)


def test_cell_messages():
    cell = nn.LSTMCell(IN, H)
    with pytest.raises(ValueError, match="LSTMCell: Expected input to be 1D or 2D, got 3D instead"):
        cell(nabla.ones(1, 2, IN))
    with pytest.raises(ValueError, match=r"LSTMCell: Expected hx\[1\] to be 1D or 2D, got 3D instead"):
        cell(nabla.ones(2, IN), (nabla.ones(2, H), nabla.ones(1, 2, H)))
    with pytest.raises(ValueError, match="GRUCell: Expected hidden to be 1D or 2D, got 3D instead"):
        nn.GRUCell(IN, H)(nabla.ones(2, IN), nabla.ones(1, 2, H))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 4"):
        cell(nabla.ones(2, 3))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        cell(nabla.ones(2, IN), (nabla.ones(3, H), nabla.ones(2, H)))
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 5, expected 6"):
        cell(nabla.ones(2, IN), (nabla.ones(2, H), nabla.ones(2, 5)))
    bad = nn.RNNCell(IN, H)
    bad.nonlinearity = "gelu"
    with pytest.raises(RuntimeError, match="Unknown nonlinearity: gelu"):
        bad(nabla.ones(IN))


def test_weights_follow_reassignment_and_dtype_changes():
    gru = nn.GRU(IN, H, num_layers=2)
    assert [len(w) for w in gru.all_weights] == [4, 4] and gru._flat_weights[0] is gru.weight_ih_l0
    gru.weight_ih_l0 = nn.Parameter(nabla.zeros(3 * H, IN))
    assert gru._flat_weights[0] is gru.weight_ih_l0
    gru.double().flatten_parameters()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, _ = gru(nabla.ones(T, 1, IN, dtype=nabla.float64))
    assert out.dtype == nabla.float64


def test_gradcheck_packed_and_strided_inputs():
    lstm = nn.LSTM(3, 4, proj_size=2, bidirectional=True).double()
    x = nabla.tensor(_x(4, 3, 3), requires_grad=True)
    h0 = nabla.tensor(_x(2, 3, 2), requires_grad=True)
    c0 = nabla.tensor(_x(2, 3, 4), requires_grad=True)

    def run(x, h0, c0):
        out, (h, c) = lstm(R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False), (h0, c0))
        return R.pad_packed_sequence(out)[0], h, c

    assert nabla.autograd.gradcheck(run, (x, h0, c0))
    gru = nn.GRU(3, 4, batch_first=True).double()
    assert nabla.autograd.gradgradcheck(lambda x: gru(x)[0], (nabla.tensor(_x(2, 3, 3), requires_grad=True),))
    # a strided (sliced, transposed) input gives what its contiguous copy gives
    base = nabla.tensor(_x(6, 4, 3))
    xs = base[::2].transpose(0, 1)
    with nabla.no_grad():
        a, b = gru(xs)[0], gru(xs.contiguous())[0]
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("packed", [False, True])
def test_time_steps_share_one_backward_node(packed):
    """The layer input is cut into steps by one node per layer, never one select or narrow per
    step (each would add a full-size gradient: quadratic in the sequence length)."""
    from collections import Counter
    m = nabla.nn.LSTM(4, 5, num_layers=2)
    x = nabla.randn(7, 3, 4, requires_grad=True)
    if packed:
        x = nabla.nn.utils.rnn.pack_padded_sequence(x, [7, 5, 2])
    out, _ = m(x)
    out = out.data if packed else out
    with nabla.profiler.profile() as prof:
        out.sum().backward()
    nodes = Counter(e.name.rsplit(" ", 1)[-1] for e in prof.events() if "evaluate_function" in e.name)
    assert nodes["_StepViewsBackward"] == 2
    assert nodes["SelectBackward0"] == 0 and nodes["NarrowBackward0"] == 0
