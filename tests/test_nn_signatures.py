"""nabla.nn against torch.nn, programmatically: every layer's constructor and
forward signature (names, kinds, defaults), the functional forms and
nn.utils.rnn, and the repr of each layer across its options."""
from __future__ import annotations

import inspect
import typing
import warnings

import pytest

import nabla.nn as nn
import nabla.nn.functional as F
from nabla.nn.utils import rnn as R

torch = pytest.importorskip("torch")

LAYERS = ["Linear", "Identity", "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d",
          "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Embedding", "ReLU", "LeakyReLU", "GELU",
          "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Flatten", "Unflatten", "Sequential", "ModuleList",
          "ModuleDict", "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
          "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "RNNBase", "RNN", "LSTM", "GRU",
          "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss",
          "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]

FUNCTIONAL = ["multi_head_attention_forward", "softmax", "log_softmax", "softmin", "dropout", "relu", "silu",
              "leaky_relu", "elu", "embedding", "pad", "layer_norm", "batch_norm", "group_norm", "cross_entropy",
              "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
              "binary_cross_entropy_with_logits", "kl_div"]


def _default(value):
    """A comparable form of a default: functions by name, everything else by repr."""
    if value is inspect.Parameter.empty:
        return "<required>"
    if callable(value):
        return f"<function {value.__name__}>"
    return repr(value)


def _describe(fn) -> list:
    return [(p.name, p.kind.name, _default(p.default)) for p in inspect.signature(fn).parameters.values()]


def _signatures(fn) -> list:
    """The signature of fn and, when that only forwards *args / **kwargs (PyTorch's RNN, LSTM, GRU), the first
    typing.overload, which documents the real one."""
    sig = _describe(fn)
    if all(kind in ("VAR_POSITIONAL", "VAR_KEYWORD") for name, kind, _ in sig[1:]):
        overloads = typing.get_overloads(fn) if hasattr(typing, "get_overloads") else []
        if overloads:
            return [sig, _describe(overloads[0])]
    return [sig]


@pytest.mark.parametrize("name", LAYERS)
def test_layer_signatures_match_pytorch(name):
    ours, theirs = getattr(nn, name), getattr(torch.nn, name)
    for method in ("__init__", "forward"):
        assert _signatures(getattr(ours, method)) == _signatures(getattr(theirs, method)), (name, method)


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_functional_signatures_match_pytorch(name):
    assert _describe(getattr(F, name)) == _describe(getattr(torch.nn.functional, name))


@pytest.mark.parametrize("name", R.__all__)
def test_rnn_utils_signatures_match_pytorch(name):
    ours, theirs = getattr(R, name), getattr(torch.nn.utils.rnn, name)
    assert _describe(ours) == _describe(theirs)


REPRS = [
    ("Linear", (3, 4), {}), ("Linear", (3, 4), {"bias": False}), ("Identity", (3,), {"unused": 1}),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2, "bias": False,
                           "padding_mode": "circular"}),
    ("Conv1d", (2, 4, 3), {"padding": "same"}), ("Conv2d", (2, 4, (3, 2)), {"stride": (2, 1), "padding": (1, 0)}),
    ("Conv2d", (2, 4, 3), {"padding": "valid", "padding_mode": "reflect"}),
    ("ConvTranspose2d", (2, 4, 3), {"stride": 2, "output_padding": 1, "dilation": 2, "groups": 2}),
    ("MaxPool2d", (3,), {}), ("MaxPool2d", (3, 2, 1, 2, True, True), {}),
    ("AvgPool2d", (3,), {}), ("AvgPool2d", (3, 2, 1, True, False, 2), {}),
    ("AdaptiveAvgPool2d", ((3, None),), {}), ("AdaptiveAvgPool2d", (3,), {}),
    ("BatchNorm1d", (3,), {}), ("BatchNorm2d", (3,), {"momentum": None, "affine": False,
                                                     "track_running_stats": False}),
    ("BatchNorm2d", (3,), {"eps": 1e-3, "bias": False}),
    ("LayerNorm", (3,), {}), ("LayerNorm", ((3, 4),), {"elementwise_affine": False, "bias": False, "eps": 1e-6}),
    ("LayerNorm", (3,), {"bias": False}), ("GroupNorm", (2, 4), {}), ("GroupNorm", (2, 4), {"affine": False}),
    ("GroupNorm", (2, 4), {"bias": False}), ("Dropout", (), {}), ("Dropout", (0.2, True), {}),
    ("Embedding", (5, 3), {}),
    ("Embedding", (5, 3), {"padding_idx": -1, "max_norm": 1.0, "norm_type": 1.0, "scale_grad_by_freq": True,
                           "sparse": True}),
    ("ReLU", (True,), {}), ("LeakyReLU", (0.1, True), {}), ("GELU", ("tanh",), {}), ("SiLU", (True,), {}),
    ("Tanh", (), {}), ("Sigmoid", (), {}), ("Softmax", (), {}), ("LogSoftmax", (1,), {}), ("Flatten", (0, 2), {}),
    ("Unflatten", (1, (2, 3)), {}), ("MultiheadAttention", (8, 2), {}),
    ("MultiheadAttention", (8, 2), {"kdim": 3, "vdim": 5, "bias": False, "batch_first": True, "dropout": 0.1,
                                    "add_bias_kv": True, "add_zero_attn": True}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16, "bias": False, "activation": "gelu"}),
    ("TransformerDecoderLayer", (8, 2), {"dim_feedforward": 16, "norm_first": True}),
    ("Transformer", (8, 2, 1, 1, 16), {}),
    ("RNN", (3, 4, 2, "relu"), {"bidirectional": True}), ("GRU", (3, 4), {"bias": False, "batch_first": True}),
    ("LSTM", (3, 4), {"num_layers": 2, "dropout": 0.5, "bidirectional": True, "proj_size": 2}),
    ("RNNCell", (3, 4), {"nonlinearity": "relu", "bias": False}), ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {}),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.1}), ("NLLLoss", (), {"ignore_index": 3}), ("MSELoss", (), {}),
    ("L1Loss", (), {"reduction": "sum"}), ("SmoothL1Loss", (), {"beta": 0.5}), ("HuberLoss", (), {}),
    ("BCELoss", (), {}), ("BCEWithLogitsLoss", (), {}), ("KLDivLoss", (), {"log_target": True}),
]


@pytest.mark.parametrize("name,args,kwargs", REPRS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(REPRS)])
def test_reprs_match_pytorch(name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(getattr(nn, name)(*args, **kwargs)) == repr(getattr(torch.nn, name)(*args, **kwargs))


def test_container_reprs_match_pytorch():
    def build(m):
        return m.Sequential(m.ModuleDict({"a": m.Linear(2, 2), "b": m.ModuleList([m.ReLU(), m.ReLU(), m.Tanh()])}),
                            m.TransformerEncoder(m.TransformerEncoderLayer(4, 2, 8), 2, enable_nested_tensor=False))
    assert repr(build(nn)) == repr(build(torch.nn))
