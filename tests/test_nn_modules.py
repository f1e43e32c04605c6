"""nn.Module machinery and every layer: forward passes in float64 against PyTorch
(the same weights copied over) or NumPy, default initialisation, state_dict,
hooks, conversion, repr and error messages."""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F

RNG = np.random.default_rng(5)


@pytest.fixture(autouse=True)
def _forward_only():
    """These tests check forward values (gradients are test_training.py's): no graph is recorded."""
    with nabla.no_grad():
        yield


def _np(t):
    return t.detach().numpy()


def _copy_from_torch(ours: nn.Module, theirs) -> None:
    """Loads a PyTorch module's parameters and buffers into ours (by name)."""
    sd = {k: nabla.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(sd)


def _compare(ours, theirs, *inputs, atol=1e-10, train=False):
    torch = pytest.importorskip("torch")
    theirs = theirs.double()
    ours.double()
    _copy_from_torch(ours, theirs)
    ours.train(train)
    theirs.train(train)
    out = ours(*[nabla.tensor(x) if isinstance(x, np.ndarray) else x for x in inputs])
    with torch.no_grad():
        ref = theirs(*[torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in inputs])
    if isinstance(ref, tuple):
        return out, ref
    np.testing.assert_allclose(_np(out), ref.numpy(), atol=atol, rtol=1e-9)
    return out, ref


def _x(*shape):
    return RNG.standard_normal(shape)


# ---- Module machinery ----

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.register_buffer("steps", nabla.zeros(1))
        self.register_buffer("scratch", nabla.zeros(2), persistent=False)
        self.scale = nn.Parameter(nabla.ones(1))

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x):
        return self.b(self.a(x))


def test_parameter_is_a_tensor_sharing_storage():
    data = nabla.ones(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, nabla.Tensor) and isinstance(p, nn.Parameter)
    assert p.data_ptr() == data.data_ptr()
    assert repr(p).startswith("Parameter containing:\ntensor(")


def test_named_parameters_buffers_modules_with_prefixes():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["a.scale", "a.fc.weight", "a.fc.bias", "b.1.weight", "b.1.bias"]
    assert [n for n, _ in net.named_buffers()] == ["a.steps", "a.scratch"]
    assert [n for n, _ in net.named_modules()] == ["", "a", "a.fc", "b", "b.0", "b.1"]
    assert [n for n, _ in net.named_children()] == ["a", "b"]
    assert len(list(net.parameters())) == 5 and len(list(net.parameters(recurse=False))) == 0
    assert [n for n, _ in net.a.named_parameters(prefix="x")] == ["x.scale", "x.fc.weight", "x.fc.bias"]
    assert net.get_submodule("b.1") is net.b[1]
    assert net.get_parameter("a.fc.bias") is net.a.fc.bias


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_state_dict_skips_non_persistent_buffers_and_round_trips():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["a.scale", "a.steps", "a.fc.weight", "a.fc.bias", "b.1.weight", "b.1.bias"]
    other = Net()
    result = other.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    for k, v in other.state_dict().items():
        np.testing.assert_array_equal(_np(v), _np(sd[k]))
    x = nabla.tensor(_x(5, 3), dtype=nabla.float32)
    np.testing.assert_array_equal(_np(net(x)), _np(other(x)))


def test_load_state_dict_reports_missing_unexpected_and_size_mismatch():
    net = Net()
    sd = net.state_dict()
    del sd["a.fc.bias"]
    sd["a.extra"] = nabla.zeros(1)
    sd["b.1.weight"] = nabla.zeros(3, 4)
    with pytest.raises(RuntimeError) as e:
        net.load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "a.fc.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "a.extra".' in msg
    assert ("size mismatch for b.1.weight: copying a param with shape nabla.Size([3, 4]) from checkpoint, the shape "
            "in current model is nabla.Size([2, 4]).") in msg
    del sd["b.1.weight"]
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["a.fc.bias", "b.1.weight"] and result.unexpected_keys == ["a.extra"]


def test_setattr_registers_and_rejects_wrong_types():
    m = nn.Module()
    m.w = nn.Parameter(nabla.zeros(2))
    m.sub = nn.Linear(1, 1)
    assert "w" in m._parameters and "sub" in m._modules
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = nabla.zeros(2)
    m.w = None
    assert m.w is None and list(m.named_parameters()) == [("sub.weight", m.sub.weight), ("sub.bias", m.sub.bias)]
    del m.sub
    assert not hasattr(m, "sub")
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", nabla.zeros(1))


def test_train_eval_apply_and_to_dtype_keeps_parameter_identity():
    net = Net()
    net.eval()
    assert all(not m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    names = []
    net.apply(lambda m: names.append(type(m).__name__))
    assert names == ["Linear", "Block", "ReLU", "Linear", "Sequential", "Net"]
    w = net.a.fc.weight
    before = _np(w)
    net.to(nabla.float64)
    assert net.a.fc.weight is w and w.dtype == nabla.float64 and isinstance(w, nn.Parameter)
    np.testing.assert_allclose(_np(w), before)
    assert net.a.steps.dtype == nabla.float64
    with pytest.raises(TypeError, match="floating point"):
        net.to(nabla.int32)


def test_forward_hooks_can_change_input_and_output_and_be_removed():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(nabla.ones(3, 2))
    np.testing.assert_allclose(_np(out), np.broadcast_to(_np(lin.bias) + 1, (3, 2)), rtol=1e-6)
    assert calls == [nabla.Size([3, 2])]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(_np(lin(nabla.zeros(1, 2))), _np(lin.bias)[None], rtol=1e-6)
    kw = lin.register_forward_pre_hook(lambda m, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    np.testing.assert_allclose(_np(lin(nabla.zeros(1, 2))), _np(lin(nabla.zeros(1, 2))), rtol=1e-6)
    kw.remove()


def test_repr_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(16, 10, bias=False), nn.Dropout(0.25), nn.LogSoftmax(dim=1))
    theirs = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                                 torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(16, 10, bias=False),
                                 torch.nn.Dropout(0.25), torch.nn.LogSoftmax(dim=1))
    assert repr(ours) == repr(theirs)
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    tl = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()])
    assert repr(ml) == repr(tl)
    assert repr(nn.LSTM(3, 4, num_layers=2, batch_first=True)) == repr(torch.nn.LSTM(3, 4, num_layers=2,
                                                                                    batch_first=True))


def test_containers():
    seq = nn.Sequential(OrderedDict(fc=nn.Linear(2, 3), act=nn.ReLU()))
    assert isinstance(seq.fc, nn.Linear) and seq[-1] is seq.act and len(seq[:1]) == 1
    seq.append(nn.Identity())
    assert len(seq) == 3
    ml = nn.ModuleList([nn.ReLU()])
    ml += [nn.Tanh()]
    ml.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "ReLU", "Tanh"]
    del ml[0]
    assert [type(m).__name__ for m in ml] == ["ReLU", "Tanh"]
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1)})
    assert list(md.keys()) == ["a", "b"] and "b" in md and len(list(md.parameters())) == 2
    with pytest.raises(IndexError):
        ml[5]


# ---- default initialisation ----

def test_linear_and_conv_default_init_bounds():
    lin = nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    w, b = _np(lin.weight), _np(lin.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(b).max() <= bound
    conv = nn.Conv2d(4, 8, 3)
    bound = 1 / math.sqrt(4 * 9)
    assert np.abs(_np(conv.weight)).max() <= bound and np.abs(_np(conv.weight)).max() > 0.9 * bound
    bn = nn.BatchNorm2d(3)
    assert (_np(bn.weight) == 1).all() and (_np(bn.bias) == 0).all() and (_np(bn.running_var) == 1).all()
    assert bn.num_batches_tracked.dtype == nabla.int64
    emb = nn.Embedding(1000, 8, padding_idx=3)
    e = _np(emb.weight)
    assert (e[3] == 0).all() and abs(e.std() - 1) < 0.05


def test_init_functions():
    nabla.manual_seed(0)
    t = nabla.empty(300, 200)
    nn.init.xavier_uniform_(t, gain=2.0)
    a = 2.0 * math.sqrt(6 / 500)
    assert np.abs(_np(t)).max() <= a and np.abs(_np(t)).max() > 0.99 * a
    nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert abs(_np(t).std() - math.sqrt(2 / 300)) < 0.003
    nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=0.5)
    assert np.abs(_np(t)).max() <= 0.5 and _np(t).std() > 0.25
    q = nn.init.orthogonal_(nabla.empty(4, 6))
    np.testing.assert_allclose(_np(q) @ _np(q).T, np.eye(4), atol=1e-5)
    q = nn.init.orthogonal_(nabla.empty(6, 4), gain=3.0)
    np.testing.assert_allclose(_np(q).T @ _np(q), 9 * np.eye(4), atol=1e-4)
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    assert (_np(nn.init.constant_(nabla.empty(3), 0.5)) == 0.5).all()
    assert (_np(nn.init.eye_(nabla.empty(2, 3))) == np.eye(2, 3)).all()
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(nabla.empty(3))


# ---- layers against PyTorch, float64 ----

def test_linear_conv_pool_layers_match_pytorch():
    torch = pytest.importorskip("torch")
    _compare(nn.Linear(5, 3), torch.nn.Linear(5, 3), _x(4, 2, 5))
    _compare(nn.Linear(5, 3, bias=False), torch.nn.Linear(5, 3, bias=False), _x(4, 5))
    _compare(nn.Conv1d(3, 4, 3, stride=2, padding=1), torch.nn.Conv1d(3, 4, 3, stride=2, padding=1), _x(2, 3, 9))
    _compare(nn.Conv2d(4, 6, 3, padding="same", groups=2), torch.nn.Conv2d(4, 6, 3, padding="same", groups=2),
             _x(2, 4, 7, 6))
    _compare(nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"),
             torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), _x(1, 2, 5, 5))
    _compare(nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
             torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1), _x(2, 3, 4, 4))
    _compare(nn.MaxPool2d(3, 2, padding=1), torch.nn.MaxPool2d(3, 2, padding=1), _x(2, 3, 7, 7))
    _compare(nn.AvgPool2d(2, ceil_mode=True), torch.nn.AvgPool2d(2, ceil_mode=True), _x(2, 3, 5, 5))
    _compare(nn.AdaptiveAvgPool2d((3, None)), torch.nn.AdaptiveAvgPool2d((3, None)), _x(2, 3, 7, 5))
    _compare(nn.Flatten(), torch.nn.Flatten(), _x(2, 3, 4))
    _compare(nn.Unflatten(1, (3, 4)), torch.nn.Unflatten(1, (3, 4)), _x(2, 12))
    _compare(nn.Identity(), torch.nn.Identity(), _x(3))


def test_norm_layers_match_pytorch_in_train_and_eval():
    torch = pytest.importorskip("torch")
    _compare(nn.LayerNorm((4, 5)), torch.nn.LayerNorm((4, 5)), _x(3, 4, 5))
    _compare(nn.LayerNorm(5, elementwise_affine=False), torch.nn.LayerNorm(5, elementwise_affine=False), _x(3, 5))
    _compare(nn.GroupNorm(2, 6), torch.nn.GroupNorm(2, 6), _x(3, 6, 4))
    x = _x(8, 4, 3, 3)
    ours, theirs = nn.BatchNorm2d(4, momentum=0.3), torch.nn.BatchNorm2d(4, momentum=0.3)
    _compare(ours, theirs, x, train=True)
    np.testing.assert_allclose(_np(ours.running_var), theirs.running_var.numpy(), rtol=1e-12)
    np.testing.assert_allclose(_np(ours.running_mean), theirs.running_mean.numpy(), atol=1e-14)
    assert ours.num_batches_tracked.item() == 1
    _compare(ours, theirs, x, train=False)
    ours, theirs = nn.BatchNorm1d(5, momentum=None), torch.nn.BatchNorm1d(5, momentum=None)
    _compare(ours, theirs, _x(6, 5), train=True)
    _compare(ours, theirs, _x(6, 5, 3), train=True)
    np.testing.assert_allclose(_np(ours.running_mean), theirs.running_mean.numpy(), atol=1e-14)


def test_activation_layers_match_pytorch():
    torch = pytest.importorskip("torch")
    x = _x(4, 6)
    for ours, theirs in [(nn.ReLU(), torch.nn.ReLU()), (nn.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2)),
                         (nn.GELU(), torch.nn.GELU()), (nn.GELU("tanh"), torch.nn.GELU("tanh")),
                         (nn.SiLU(), torch.nn.SiLU()), (nn.Tanh(), torch.nn.Tanh()),
                         (nn.Sigmoid(), torch.nn.Sigmoid()), (nn.Softmax(dim=0), torch.nn.Softmax(dim=0)),
                         (nn.LogSoftmax(dim=-1), torch.nn.LogSoftmax(dim=-1))]:
        _compare(ours, theirs, x, atol=1e-12)
        assert repr(ours) == repr(theirs)


def test_dropout_and_embedding():
    torch = pytest.importorskip("torch")
    d = nn.Dropout(0.5)
    x = nabla.ones(1000)
    y = _np(d(x))
    assert set(np.unique(y)) <= {0.0, 2.0} and 400 < (y == 0).sum() < 600
    d.eval()
    assert d(x) is x
    idx = np.array([[1, 0, 4], [4, 4, 2]])
    ours, theirs = nn.Embedding(5, 3, padding_idx=0), torch.nn.Embedding(5, 3, padding_idx=0)
    _compare(ours, theirs, nabla.tensor(idx), atol=0) if False else None
    theirs = theirs.double()
    ours.double()
    _copy_from_torch(ours, theirs)
    np.testing.assert_array_equal(_np(ours(nabla.tensor(idx))), theirs(torch.from_numpy(idx)).detach().numpy())
    pre = nn.Embedding.from_pretrained(nabla.tensor([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(_np(pre(nabla.tensor([1]))), [[3.0, 4.0]])


def test_multihead_attention_matches_pytorch_with_masks():
    torch = pytest.importorskip("torch")
    L, S, N, E = 5, 6, 3, 8
    q, k, v = _x(L, N, E), _x(S, N, E), _x(S, N, E)
    ours, theirs = nn.MultiheadAttention(E, 2), torch.nn.MultiheadAttention(E, 2)
    attn_mask = RNG.random((L, S)) < 0.3
    attn_mask[:, 0] = False
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, -2:] = True
    for kwargs in [{}, {"need_weights": False}, {"average_attn_weights": False}]:
        theirs_d, ours_d = theirs.double(), ours.double()
        _copy_from_torch(ours_d, theirs_d)
        out, w = ours_d(nabla.tensor(q), nabla.tensor(k), nabla.tensor(v), key_padding_mask=nabla.tensor(kpm),
                        attn_mask=nabla.tensor(attn_mask), **kwargs)
        with torch.no_grad():
            ref, ref_w = theirs_d(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
                                  key_padding_mask=torch.from_numpy(kpm), attn_mask=torch.from_numpy(attn_mask),
                                  **kwargs)
        np.testing.assert_allclose(_np(out), ref.numpy(), atol=1e-10)
        if ref_w is None:
            assert w is None
        else:
            np.testing.assert_allclose(_np(w), ref_w.numpy(), atol=1e-10)
    ours_b, theirs_b = nn.MultiheadAttention(E, 4, batch_first=True), torch.nn.MultiheadAttention(E, 4,
                                                                                                   batch_first=True)
    x = _x(N, L, E)
    out, ref = _compare(ours_b, theirs_b, x, x, x)
    np.testing.assert_allclose(_np(out[0]), ref[0].numpy(), atol=1e-10)
    np.testing.assert_allclose(_np(out[1]), ref[1].numpy(), atol=1e-10)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_matches_pytorch(norm_first):
    torch = pytest.importorskip("torch")
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True,
                                       norm_first=norm_first)
    ours = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16), enable_nested_tensor=False)
    tlayer = torch.nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.0, batch_first=True,
                                              norm_first=norm_first)
    theirs = torch.nn.TransformerEncoder(tlayer, 2, norm=torch.nn.LayerNorm(16), enable_nested_tensor=False)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = _x(3, 7, 16)
    mask = np.triu(np.full((7, 7), -np.inf), 1)
    theirs, ours = theirs.double(), ours.double()
    _copy_from_torch(ours, theirs)
    ours.eval(), theirs.eval()
    kpm = np.zeros((3, 7), dtype=bool)
    kpm[0, -1] = True
    out = ours(nabla.tensor(x), mask=nabla.tensor(mask), src_key_padding_mask=nabla.tensor(kpm))
    with torch.no_grad():
        ref = theirs(torch.from_numpy(x), mask=torch.from_numpy(mask), src_key_padding_mask=torch.from_numpy(kpm))
    np.testing.assert_allclose(_np(out), ref.numpy(), atol=1e-9)
    # deep copies: the layers do not share parameters
    assert ours.layers[0].linear1.weight is not ours.layers[1].linear1.weight


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
@pytest.mark.parametrize("batch_first,bidirectional", [(False, False), (True, True)])
def test_recurrent_layers_match_pytorch(cls, batch_first, bidirectional):
    torch = pytest.importorskip("torch")
    ours = getattr(nn, cls)(4, 5, num_layers=2, batch_first=batch_first, bidirectional=bidirectional)
    theirs = getattr(torch.nn, cls)(4, 5, num_layers=2, batch_first=batch_first, bidirectional=bidirectional)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = _x(3, 6, 4)
    dirs = 2 if bidirectional else 1
    h0, c0 = _x(2 * dirs, 3 if batch_first else 6, 5), _x(2 * dirs, 3 if batch_first else 6, 5)
    theirs, ours = theirs.double(), ours.double()
    _copy_from_torch(ours, theirs)
    if cls == "LSTM":
        out, (h, c) = ours(nabla.tensor(x), (nabla.tensor(h0), nabla.tensor(c0)))
        with torch.no_grad():
            ref, (rh, rc) = theirs(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
        np.testing.assert_allclose(_np(c), rc.numpy(), atol=1e-12)
    else:
        out, h = ours(nabla.tensor(x), nabla.tensor(h0))
        with torch.no_grad():
            ref, rh = theirs(torch.from_numpy(x), torch.from_numpy(h0))
    np.testing.assert_allclose(_np(out), ref.numpy(), atol=1e-12)
    np.testing.assert_allclose(_np(h), rh.numpy(), atol=1e-12)
    # unbatched input and zero initial state
    out = ours(nabla.tensor(x[0]))[0]
    with torch.no_grad():
        ref = theirs(torch.from_numpy(x[0]))[0]
    np.testing.assert_allclose(_np(out), ref.numpy(), atol=1e-12)


def test_loss_modules_match_pytorch():
    torch = pytest.importorskip("torch")
    logits, target = _x(6, 4), RNG.integers(0, 4, 6)
    w = np.abs(_x(4)) + 0.1
    cases = [
        (nn.CrossEntropyLoss(weight=nabla.tensor(w), label_smoothing=0.1),
         torch.nn.CrossEntropyLoss(weight=torch.from_numpy(w), label_smoothing=0.1), logits, target),
        (nn.NLLLoss(reduction="sum", ignore_index=2), torch.nn.NLLLoss(reduction="sum", ignore_index=2),
         logits, target),
    ]
    a, b = _x(5, 3), _x(5, 3)
    p, y = 1 / (1 + np.exp(-a)), (RNG.random((5, 3)) > 0.5).astype(np.float64)
    cases += [(nn.MSELoss(), torch.nn.MSELoss(), a, b), (nn.L1Loss(reduction="none"), torch.nn.L1Loss(reduction="none"),
                                                          a, b),
              (nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5), a, b),
              (nn.HuberLoss(delta=0.7), torch.nn.HuberLoss(delta=0.7), a, b),
              (nn.BCELoss(), torch.nn.BCELoss(), p, y),
              (nn.BCEWithLogitsLoss(pos_weight=nabla.tensor(np.array([1.0, 2.0, 0.5]))),
               torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)), a, y),
              (nn.KLDivLoss(reduction="batchmean"), torch.nn.KLDivLoss(reduction="batchmean"),
               np.log(p / p.sum(1, keepdims=True)), y / 3 + 0.1)]
    for ours, theirs, i, t in cases:
        out = ours(nabla.tensor(i), nabla.tensor(t))
        ref = theirs(torch.from_numpy(i), torch.from_numpy(t))
        np.testing.assert_allclose(_np(out), ref.numpy(), rtol=1e-10, atol=1e-12)


# ---- functional extras ----

def test_functional_softmax_implicit_dim_warns_like_pytorch():
    x = nabla.tensor(_x(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = F.softmax(x)
    np.testing.assert_allclose(_np(y).sum(1), 1.0)
    np.testing.assert_allclose(np.exp(_np(F.log_softmax(x, 1))), _np(F.softmax(x, 1)), rtol=1e-6)
    np.testing.assert_allclose(_np(F.logsigmoid(x)), -np.log1p(np.exp(-_np(x))), rtol=1e-5)


# ---- bad input ----

def test_wrong_shaped_inputs_name_the_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x5 and 4x3\)"):
        nn.Linear(4, 3)(nabla.ones(2, 5))
    with pytest.raises(RuntimeError, match="expected input.* to have 3 channels, but got 2 channels"):
        nn.Conv2d(3, 4, 3)(nabla.ones(1, 2, 5, 5))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.BatchNorm2d(3)(nabla.ones(2, 3, 4))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 3"):
        nn.LSTM(4, 5)(nabla.ones(2, 1, 3))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 5\), got \[1, 2, 5\]"):
        nn.GRU(4, 5)(nabla.ones(2, 1, 4), nabla.ones(1, 2, 5))
    with pytest.raises(RuntimeError, match="normalized_shape=\\[4\\]"):
        nn.LayerNorm(4)(nabla.ones(2, 5))
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)
