"""The modules over the newer nn.functional compositions (margin / likelihood losses, Hardshrink,
RReLU, AlphaDropout, Unfold / Fold, Bilinear, LocalResponseNorm, LPPool, ChannelShuffle, Softmax2d,
ConvTranspose1d, MaxUnpool, EmbeddingBag) and nn.init.dirac_ against torch 2.13: reprs, outputs,
input and parameter gradients, constructor errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.nn as nn
from torch_reference import Const, check_module

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(29)


def _x(*shape):
    return RNG.standard_normal(shape)


SIGNS = Const(np.where(RNG.random(6) > 0.5, 1.0, -1.0))
CASES = [
    ("MarginRankingLoss", (0.3,), {}, (_x(6), _x(6), SIGNS)),
    ("HingeEmbeddingLoss", (), {"margin": 0.5, "reduction": "sum"}, (_x(6), SIGNS)),
    ("CosineEmbeddingLoss", (), {"margin": 0.1}, (_x(6, 3), _x(6, 3), SIGNS)),
    ("SoftMarginLoss", (), {"reduction": "none"}, (_x(6), SIGNS)),
    ("MultiLabelSoftMarginLoss", (), {"weight": np.abs(_x(4))}, (_x(3, 4), Const((_x(3, 4) > 0) * 1.0))),
    ("MultiMarginLoss", (), {"p": 2, "margin": 0.5, "weight": np.abs(_x(4))}, (_x(5, 4), RNG.integers(0, 4, 5))),
    ("MultiLabelMarginLoss", (), {}, (_x(2, 4), np.array([[3, 1, -1, 0], [0, 1, 2, 3]]))),
    ("TripletMarginLoss", (), {"margin": 0.5, "p": 1.0, "swap": True}, (_x(4, 3), _x(4, 3), _x(4, 3))),
    ("TripletMarginWithDistanceLoss", (), {"margin": 2.0}, (_x(4, 3), _x(4, 3), _x(4, 3))),
    ("PoissonNLLLoss", (), {"full": True}, (_x(4, 3), Const(RNG.integers(0, 5, (4, 3)) * 1.0))),
    ("GaussianNLLLoss", (), {"full": True, "eps": 1e-3}, (_x(4, 3), _x(4, 3), np.abs(_x(4, 3)))),
    ("Hardshrink", (0.3,), {}, (_x(3, 4),)),
    ("Softshrink", (), {"lambd": 0.2}, (_x(3, 4),)),
    ("RReLU", (0.1, 0.3), {}, (_x(3, 4),)),
    ("AlphaDropout", (0.2,), {}, (_x(3, 4),)),
    ("FeatureAlphaDropout", (), {}, (_x(2, 3, 4),)),
    ("Softmax2d", (), {}, (_x(2, 3, 4, 2),)),
    ("LocalResponseNorm", (3,), {"alpha": 0.1}, (_x(2, 5, 3, 3),)),
    ("LPPool1d", (2, 3), {}, (np.abs(_x(2, 3, 9)),)),
    ("LPPool2d", (1.5, 2), {"stride": 1}, (np.abs(_x(2, 3, 5, 5)),)),
    ("Unfold", (3,), {"padding": 1, "stride": 2}, (_x(2, 3, 5, 6),)),
    ("Fold", ((4, 5), 2), {}, (_x(2, 12, 12),)),
    ("ChannelShuffle", (2,), {}, (_x(2, 4, 3, 3),)),
    ("Bilinear", (3, 4, 5), {}, (_x(6, 3), _x(6, 4))),
    ("Bilinear", (3, 4, 5), {"bias": False}, (_x(2, 6, 3), _x(2, 6, 4))),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2}, (_x(2, 4, 7),)),
    ("ConvTranspose1d", (4, 2, 2), {"bias": False, "dilation": 2}, (_x(4, 5),)),
    ("EmbeddingBag", (10, 3), {}, (RNG.integers(0, 10, (4, 3)),)),
    ("EmbeddingBag", (10, 3), {"mode": "max", "padding_idx": 2}, (np.array([1, 2, 3, 2, 5, 9]), np.array([0, 2, 2]))),
    ("EmbeddingBag", (10, 3), {"mode": "sum", "include_last_offset": True},
     (np.array([1, 2, 3, 2, 5, 9]), np.array([0, 2, 5, 6]), Const(_x(6)))),
]


def _build(lib_, name, args, kwargs, tensor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib_.nn, name)(*args, **{k: tensor(v) if isinstance(v, np.ndarray) else v
                                                for k, v in kwargs.items()})


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,args,kwargs,inputs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_modules_match_torch(name, args, kwargs, inputs, dtype):
    ours = _build(nabla, name, args, kwargs, lambda a: nabla.tensor(a.astype(dtype)))
    theirs = _build(torch, name, args, kwargs, lambda a: torch.from_numpy(a.astype(dtype)))
    assert repr(ours) == repr(theirs)
    assert sorted(n for n, _ in ours.named_parameters()) == sorted(n for n, _ in theirs.named_parameters())
    check_module(ours, theirs, *inputs, dtype=dtype)


def test_conv_transpose1d_output_size():
    ours, theirs = nabla.nn.ConvTranspose1d(3, 2, 3, stride=2), torch.nn.ConvTranspose1d(3, 2, 3, stride=2)
    check_module(ours, theirs, _x(1, 3, 5), output_size=[12])
    with pytest.raises(ValueError, match="requested an output size of \\[14\\]"):
        ours(nabla.tensor(_x(1, 3, 5)), output_size=[14])


def test_max_unpool_modules_invert_pooling():
    x = torch.randn(2, 3, 6, 8)
    y, idx = torch.nn.MaxPool2d(2, return_indices=True)(x)
    ours, theirs = nabla.nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(ours) == repr(theirs)
    out = ours(nabla.tensor(y.numpy()), nabla.tensor(idx.numpy()))
    np.testing.assert_array_equal(out.numpy(), theirs(y, idx).numpy())
    y1, idx1 = torch.nn.MaxPool1d(3, 2, 1, return_indices=True)(torch.randn(2, 3, 9))
    ours1, theirs1 = nabla.nn.MaxUnpool1d(3, 2, 1), torch.nn.MaxUnpool1d(3, 2, 1)
    assert repr(ours1) == repr(theirs1)
    np.testing.assert_array_equal(ours1(nabla.tensor(y1.numpy()), nabla.tensor(idx1.numpy())).numpy(),
                                  theirs1(y1, idx1).numpy())


def test_embedding_bag_from_pretrained_is_frozen():
    w = _x(5, 2)
    bag = nabla.nn.EmbeddingBag.from_pretrained(nabla.tensor(w), mode="sum")
    ref = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(w), mode="sum")
    assert not bag.weight.requires_grad and repr(bag) == repr(ref)
    idx = np.array([[0, 4], [3, 3]])
    np.testing.assert_allclose(bag(nabla.tensor(idx)).numpy(), ref(torch.from_numpy(idx)).numpy(), rtol=1e-12)


@pytest.mark.parametrize("name,args,kwargs", [
    ("TripletMarginLoss", (), {"margin": 0.0}),
    ("TripletMarginWithDistanceLoss", (), {"margin": -1.0}),
    ("MultiMarginLoss", (), {"p": 3}),
    ("Bilinear", (0, 2, 3), {}),
])
def test_constructor_errors_match_torch(name, args, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(torch.nn, name)(*args, **kwargs)
    with pytest.raises(theirs.type) as ours:
        getattr(nabla.nn, name)(*args, **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_softmax2d_rejects_2d_input():
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nabla.nn.Softmax2d()(nabla.ones(2, 3))


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 2, 3, 3), 2), ((2, 5, 3), 1)])
def test_dirac_matches_torch(shape, groups):
    ours = nabla.nn.init.dirac_(nabla.tensor(_x(*shape)), groups)
    theirs = torch.nn.init.dirac_(torch.from_numpy(_x(*shape)), groups)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        nabla.nn.init.dirac_(nabla.ones(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        nabla.nn.init.dirac_(nabla.ones(3, 2, 2), 2)
    with pytest.warns(FutureWarning, match="nn.init.dirac is now deprecated in favor of nn.init.dirac_"):
        nabla.nn.init.dirac(nabla.ones(2, 2, 3))
    with pytest.warns(FutureWarning, match="nn.init.eye is now deprecated in favor of nn.init.eye_"):
        np.testing.assert_array_equal(nabla.nn.init.eye(nabla.ones(2, 3)).numpy(), np.eye(2, 3))
