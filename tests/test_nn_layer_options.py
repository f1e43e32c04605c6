"""Every option of the convolution, pooling, normalization, shape and activation
layers against PyTorch with copied weights (outputs and gradients, float32 and
float64, batched and unbatched), running statistics, and the messages of bad
inputs compared with PyTorch's."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import nabla
import nabla.nn as nn
from torch_reference import check_module

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(17)


def _x(*shape):
    return RNG.standard_normal(shape)


CASES = [
    ("Conv1d", (2, 4, 4), {"padding": "same", "padding_mode": "reflect", "dilation": 2}, (2, 2, 9)),
    ("Conv1d", (2, 4, 3), {"padding": 2, "padding_mode": "circular"}, (2, 2, 9)),
    ("Conv1d", (2, 4, 3), {"padding": 1, "padding_mode": "replicate"}, (2, 9)),
    ("Conv1d", (4, 4, 3), {"stride": 2, "groups": 2, "bias": False}, (2, 4, 9)),
    ("Conv2d", (2, 4, (3, 4)), {"padding": "same", "padding_mode": "replicate"}, (2, 2, 7, 8)),
    ("Conv2d", (2, 4, 4), {"padding": "same", "dilation": (1, 2)}, (2, 2, 7, 8)),
    ("Conv2d", (2, 4, 3), {"padding": (1, 2), "padding_mode": "circular", "stride": 2}, (1, 2, 7, 8)),
    ("Conv2d", (2, 4, 3), {"padding": "valid", "padding_mode": "reflect"}, (1, 2, 7, 8)),
    ("Conv2d", (2, 4, 3), {"padding": 1, "padding_mode": "zeros"}, (2, 7, 8)),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "groups": 2, "dilation": 2, "bias": False}, (1, 4, 5, 5)),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (4, 5, 5)),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1, "dilation": 2, "ceil_mode": True}, (2, 3, 9, 9)),
    ("MaxPool2d", (2,), {"return_indices": True}, (2, 3, 6, 6)),
    ("MaxPool2d", ((2, 3),), {"stride": (1, 2)}, (3, 6, 7)),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}, (2, 3, 8, 8)),
    ("AvgPool2d", (3,), {"padding": 1, "divisor_override": 4}, (2, 3, 8, 8)),
    ("AvgPool2d", ((2, 3),), {"stride": 1}, (3, 5, 6)),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, (2, 3, 7, 8)),
    ("AdaptiveAvgPool2d", ((None, 2),), {}, (3, 5, 5)),
    ("LayerNorm", ((3, 4),), {"bias": False}, (2, 3, 4)),
    ("LayerNorm", (4,), {"elementwise_affine": False, "eps": 1e-3}, (2, 3, 4)),
    ("GroupNorm", (2, 4), {"affine": False}, (2, 4, 3)),
    ("GroupNorm", (2, 4), {"bias": False, "eps": 1e-3}, (2, 4, 3, 2)),
    ("Flatten", (0, -2), {}, (2, 3, 4)),
    ("Unflatten", (-1, (2, -1)), {}, (2, 3, 4)),
    ("Unflatten", (1, [1, 3, 1]), {}, (2, 3)),
    ("Softmax", (), {}, (2, 3, 4)),
    ("LogSoftmax", (), {}, (3, 4)),
    ("LeakyReLU", (0.2,), {}, (3, 4)),
    ("GELU", ("tanh",), {}, (3, 4)),
    ("SiLU", (), {}, (3, 4)),
    ("Linear", (4, 3), {}, (4,)),
    ("Identity", (), {}, (2, 3)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,args,kwargs,shape", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_layer_options_match_pytorch(name, args, kwargs, shape, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the implicit softmax dim
        ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
        assert repr(ours) == repr(theirs)
        check_module(ours, theirs, _x(*shape), dtype=dtype)


@pytest.mark.parametrize("kwargs,shape", [({"track_running_stats": False}, (4, 3)), ({"momentum": None}, (4, 3, 5)),
                                          ({"affine": False}, (4, 3, 5)), ({"bias": False, "eps": 1e-3}, (4, 3))])
@pytest.mark.parametrize("cls", ["BatchNorm1d", "BatchNorm2d"])
def test_batch_norm_options_and_running_statistics(cls, kwargs, shape):
    if cls == "BatchNorm2d":
        shape = shape[:2] + (2, 3)
    ours, theirs = getattr(nn, cls)(3, **kwargs), getattr(torch.nn, cls)(3, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    x = _x(*shape)
    check_module(ours, theirs, x, train=True)
    for _ in range(2):  # further batches update the statistics the same way (cumulative with momentum=None)
        with torch.no_grad(), nabla.no_grad():
            ours(nabla.tensor(x * 2 + 1))
            theirs(torch.from_numpy(x * 2 + 1))
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    check_module(ours, theirs, x, train=False)


def _messages(name, args, kwargs, shape):
    """The exception type and message of nabla's and PyTorch's layer on ones(shape)."""
    out = []
    for lib_, ones in ((nn, nabla.ones), (torch.nn, torch.ones)):
        with pytest.raises(Exception) as info:
            getattr(lib_, name)(*args, **kwargs)(ones(*shape))
        out.append(info.value)
    return out


@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("Conv1d", (3, 4, 3), {}, (1, 2, 5)), ("Conv1d", (3, 4, 3), {}, (1, 3, 2)), ("Conv2d", (3, 4, 3), {}, (1, 3, 5)),
    ("ConvTranspose2d", (3, 4, 3), {}, (1, 2, 5, 5)), ("MaxPool2d", (3,), {}, (1, 1, 2, 2)),
    ("AvgPool2d", (3,), {}, (1, 1, 2, 2)), ("BatchNorm1d", (3,), {}, (2, 4)), ("BatchNorm1d", (3,), {}, (1, 3)),
    ("BatchNorm2d", (3,), {}, (2, 3, 4)), ("GroupNorm", (2, 4), {}, (2, 6, 3)), ("LayerNorm", ((3, 4),), {}, (2, 4, 3)),
    ("Linear", (4, 3), {}, (2, 5)), ("Unflatten", (1, (2, 3)), {}, (2, 5)), ("Softmax", (3,), {}, (2, 5)),
    ("Dropout", (1.5,), {}, (2,)),
])
def test_bad_inputs_raise_pytorchs_exception_and_message(name, args, kwargs, shape):
    ours, theirs = _messages(name, args, kwargs, shape)
    assert type(ours) is type(theirs)
    # nabla's C messages start with the op's name ("softmax: dimension ..."); the rest is PyTorch's wording
    def plain(m) -> str:
        m = re.sub(r"^\w+: ", "", str(m)).replace("torch.Size", "nabla.Size")
        return m[:1].lower() + m[1:]

    assert plain(ours) == plain(theirs), (str(ours), str(theirs))


def test_unflatten_arguments():
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints, but found element of type float at "
                                        "pos 1"):
        nn.Unflatten(1, (2, 3.0))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints, but found type int"):
        nn.Unflatten(1, 6)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        nn.Unflatten(1, (-1, -1))(nabla.ones(2, 6))
    with pytest.raises(RuntimeError, match="unflatten: sizes must be non-empty"):
        nn.Unflatten(1, ())(nabla.ones(2, 6))
    with pytest.raises(RuntimeError, match=r"Provided sizes \[4, -1\] don't multiply up to the size of dim 1 \(6\)"):
        nn.Unflatten(1, (4, -1))(nabla.ones(2, 6))
    with pytest.raises(IndexError, match="Dimension out of range"):
        nn.Unflatten(2, (2, 3))(nabla.ones(2, 6))


def test_conv_padding_mode_arguments():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose2d'):
        nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv1d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv1d(1, 1, 3, padding="full")
    conv = nn.Conv1d(1, 1, 4, padding="same", padding_mode="circular", dilation=3)
    theirs = torch.nn.Conv1d(1, 1, 4, padding="same", dilation=3, padding_mode="circular")
    assert conv._reversed_padding_repeated_twice == theirs._reversed_padding_repeated_twice
