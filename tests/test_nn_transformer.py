"""Transformer encoder and decoder layers, the stacks and nn.Transformer against
PyTorch with copied weights: options, masks, causal detection, the nested-tensor
path's zeroed padding; outputs and gradients in float32 and float64."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F
from torch_reference import Const, check_module, copy_weights

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(13)
E, HEADS, FF, S, T, N = 8, 2, 16, 5, 4, 3


def _x(*shape):
    return RNG.standard_normal(shape)


def _kpm(n, s):
    m = np.zeros((n, s), dtype=bool)
    m[0, -2:] = True
    return m


def _causal(n):
    return np.triu(np.full((n, n), -np.inf), 1)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


ENCODER_OPTIONS = [{}, {"norm_first": True}, {"activation": "gelu", "bias": False}, {"batch_first": True},
                   {"layer_norm_eps": 1e-3, "activation": "relu"}]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kw", ENCODER_OPTIONS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_encoder_layer_matches_pytorch(kw, dtype):
    ours = nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, **kw)
    theirs = torch.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, **kw)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    x = _x(N, S, E) if kw.get("batch_first") else _x(S, N, E)
    check_module(ours, theirs, x, dtype=dtype, train=True)
    check_module(ours, theirs, x, src_mask=_causal(S) > 0, src_key_padding_mask=_kpm(N, S), dtype=dtype, train=True)
    check_module(ours, theirs, x, src_mask=Const(_causal(S)), is_causal=True, dtype=dtype, train=True)
    check_module(ours, theirs, _x(S, E), src_key_padding_mask=np.array([False] * (S - 1) + [True]), dtype=dtype,
                 train=True)


def test_encoder_layer_activations():
    x = _x(S, N, E)
    for ours_act, theirs_act, code in [(nn.GELU(), torch.nn.GELU(), 2), (F.gelu, torch.nn.functional.gelu, 2),
                                       (nn.ReLU(), torch.nn.ReLU(), 1), (F.silu, torch.nn.functional.silu, 0),
                                       ("relu", "relu", 1)]:
        ours = nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, activation=ours_act)
        theirs = torch.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, activation=theirs_act)
        assert ours.activation_relu_or_gelu == theirs.activation_relu_or_gelu == code
        check_module(ours, theirs, x, train=True)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(E, HEADS, activation="tanh")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_encoder_stack_and_causal_detection(dtype):
    layer = nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0)
    tlayer = torch.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0)
    ours = _quiet(nn.TransformerEncoder, layer, 2, norm=nn.LayerNorm(E))
    theirs = _quiet(torch.nn.TransformerEncoder, tlayer, 2, norm=torch.nn.LayerNorm(E))
    assert repr(ours) == repr(theirs)
    assert ours.layers[0].linear1.weight is not ours.layers[1].linear1.weight
    x = _x(S, N, E)
    for kwargs in [{}, {"mask": Const(_causal(S))}, {"mask": Const(_causal(S)), "is_causal": False},
                   {"mask": _causal(S) > 0, "src_key_padding_mask": _kpm(N, S)},
                   {"src_key_padding_mask": Const(np.where(_kpm(N, S), -np.inf, 0.0))}]:
        check_module(ours, theirs, x, dtype=dtype, train=True, **kwargs)
    check_module(ours, theirs, _x(S, E), mask=Const(_causal(S)), dtype=dtype, train=True)


def test_encoder_nested_tensor_path_zeroes_padding_like_pytorch():
    layer = nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, batch_first=True)
    tlayer = torch.nn.TransformerEncoderLayer(E, HEADS, FF, dropout=0.0, batch_first=True)
    ours, theirs = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E)), torch.nn.TransformerEncoder(tlayer, 2)
    theirs.norm = torch.nn.LayerNorm(E)
    assert ours.use_nested_tensor and theirs.use_nested_tensor
    copy_weights(ours, theirs)
    ours.eval(), theirs.eval()
    x = _x(N, S, E).astype(np.float32)
    kpm = _kpm(N, S)
    kpm[2, 1:] = True
    bad = kpm.copy()
    bad[1, 0] = True  # not left-aligned: no nested path
    for mask in (kpm, bad):
        with nabla.no_grad(), torch.no_grad():
            out = ours(nabla.tensor(x), src_key_padding_mask=nabla.tensor(mask))
            ref = theirs(torch.from_numpy(x), src_key_padding_mask=torch.from_numpy(mask))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    with nabla.no_grad(), torch.no_grad():  # a mask as well: no nested path either
        out = ours(nabla.tensor(x), mask=nabla.tensor(_causal(S).astype(np.float32)),
                   src_key_padding_mask=nabla.tensor(np.where(kpm, -np.inf, 0.0).astype(np.float32)))
        ref = theirs(torch.from_numpy(x), mask=torch.from_numpy(_causal(S).astype(np.float32)),
                     src_key_padding_mask=torch.from_numpy(np.where(kpm, -np.inf, 0.0).astype(np.float32)))
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    # with gradients PyTorch computes every position
    check_module(ours, theirs, x[:2], src_key_padding_mask=kpm[:2], dtype=np.float32)


def test_nested_tensor_warning_matches_pytorch():
    for kw in [{}, {"norm_first": True}, {"batch_first": True, "bias": False}]:
        with warnings.catch_warnings(record=True) as ours_w:
            warnings.simplefilter("always")
            nn.TransformerEncoder(nn.TransformerEncoderLayer(E, HEADS, **kw), 1)
        with warnings.catch_warnings(record=True) as theirs_w:
            warnings.simplefilter("always")
            torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, HEADS, **kw), 1)
        assert [str(w.message) for w in ours_w] == [str(w.message) for w in theirs_w]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not nn.TransformerEncoder(nn.TransformerEncoderLayer(E, HEADS, **kw), 1,
                                             enable_nested_tensor=False).use_nested_tensor


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "batch_first": True}, {"activation": "gelu", "bias": False}],
                         ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_decoder_layer_and_stack_match_pytorch(kw, dtype):
    ours = nn.TransformerDecoderLayer(E, HEADS, FF, dropout=0.0, **kw)
    theirs = torch.nn.TransformerDecoderLayer(E, HEADS, FF, dropout=0.0, **kw)
    assert repr(ours) == repr(theirs)
    bf = kw.get("batch_first", False)
    tgt, mem = (_x(N, T, E), _x(N, S, E)) if bf else (_x(T, N, E), _x(S, N, E))
    check_module(ours, theirs, tgt, mem, dtype=dtype, train=True)
    check_module(ours, theirs, tgt, mem, tgt_mask=Const(_causal(T)), tgt_is_causal=True,
                 memory_key_padding_mask=_kpm(N, S), tgt_key_padding_mask=Const(np.where(_kpm(N, T), -np.inf, 0.0)),
                 dtype=dtype, train=True)
    check_module(ours, theirs, tgt, mem, memory_mask=RNG.random((T, S)) < 0.2, dtype=dtype, train=True)
    ours_s = nn.TransformerDecoder(ours, 2, norm=nn.LayerNorm(E))
    theirs_s = torch.nn.TransformerDecoder(theirs, 2, norm=torch.nn.LayerNorm(E))
    assert repr(ours_s) == repr(theirs_s)
    check_module(ours_s, theirs_s, tgt, mem, tgt_mask=Const(_causal(T)), dtype=dtype, train=True)
    check_module(ours_s, theirs_s, tgt, mem, tgt_mask=_causal(T) > 0, tgt_is_causal=False, dtype=dtype, train=True)
    check_module(ours_s, theirs_s, _x(T, E), _x(S, E), dtype=dtype, train=True)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_matches_pytorch(batch_first):
    kw = dict(d_model=E, nhead=HEADS, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=FF, dropout=0.0,
              batch_first=batch_first)
    ours, theirs = _quiet(nn.Transformer, **kw), _quiet(torch.nn.Transformer, **kw)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    src, tgt = (_x(N, S, E), _x(N, T, E)) if batch_first else (_x(S, N, E), _x(T, N, E))
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(T, dtype=nabla.float64).numpy()
    np.testing.assert_array_equal(tgt_mask, torch.nn.Transformer.generate_square_subsequent_mask(T).numpy())
    for dtype in (np.float64, np.float32):
        check_module(ours, theirs, src, tgt, tgt_mask=Const(tgt_mask), src_key_padding_mask=_kpm(N, S),
                     memory_key_padding_mask=_kpm(N, S), dtype=dtype, train=True)
    def ones(seq, n, e):
        return nabla.ones(n, seq, e) if batch_first else nabla.ones(seq, n, e)

    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        ours(ones(S, N, E), ones(T, N + 1, E))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        ours(ones(S, N, E), ones(T, N, E + 1))


def test_transformer_initialisation_and_custom_parts():
    model = _quiet(nn.Transformer, d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                   dim_feedforward=32)
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (16 + 32))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound  # Xavier-uniform
    assert not np.any(model.encoder.layers[0].self_attn.in_proj_bias.detach().numpy())
    enc, dec = nn.Identity(), nn.Identity()
    custom = nn.Transformer(d_model=16, nhead=4, custom_encoder=enc, custom_decoder=dec)
    assert custom.encoder is enc and custom.decoder is dec
