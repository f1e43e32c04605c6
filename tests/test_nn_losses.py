"""The loss modules against PyTorch: every option (weights, ignore_index,
label_smoothing, class probabilities, pos_weight, log_target, the legacy
size_average / reduce arguments and their warning), outputs and gradients."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla
import nabla.nn as nn
from torch_reference import Const, check_module

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(19)


def _x(*shape):
    return RNG.standard_normal(shape)


LOGITS, TARGET = _x(6, 4), RNG.integers(0, 4, 6)
LOGITS3, TARGET3 = _x(2, 4, 3), RNG.integers(0, 4, (2, 3))
WEIGHT = np.abs(_x(4)) + 0.1
A, B = _x(5, 3), _x(5, 3)
P, Y = 1 / (1 + np.exp(-A)), (RNG.random((5, 3)) > 0.5).astype(np.float64)
PROBS = np.exp(_x(6, 4))
PROBS /= PROBS.sum(1, keepdims=True)

CASES = [
    ("CrossEntropyLoss", {"weight": WEIGHT, "label_smoothing": 0.2, "reduction": "sum"}, (LOGITS, TARGET)),
    ("CrossEntropyLoss", {"ignore_index": 1}, (LOGITS3, TARGET3)),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, (LOGITS, PROBS)),
    ("CrossEntropyLoss", {"weight": WEIGHT, "reduction": "none"}, (LOGITS3, TARGET3)),
    ("CrossEntropyLoss", {"size_average": False}, (LOGITS, TARGET)),
    ("NLLLoss", {"weight": WEIGHT, "ignore_index": 2}, (LOGITS, TARGET)),
    ("NLLLoss", {"reduce": False}, (LOGITS3, TARGET3)),
    ("MSELoss", {"reduction": "sum"}, (A, B)),
    ("MSELoss", {"size_average": True, "reduce": True}, (A, B)),
    ("L1Loss", {}, (A, B)),
    ("SmoothL1Loss", {"beta": 0.3, "reduction": "none"}, (A, B)),
    ("HuberLoss", {"delta": 0.5, "reduction": "sum"}, (A, B)),
    ("BCELoss", {"weight": np.abs(_x(3))}, (P, Const(Y))),
    ("BCEWithLogitsLoss", {"pos_weight": np.abs(_x(3)), "weight": np.abs(_x(5, 3))}, (A, Const(Y))),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, (np.log(PROBS), np.log(PROBS[::-1].copy()))),
    ("KLDivLoss", {"reduction": "sum"}, (np.log(PROBS), PROBS[::-1].copy())),
]


def _build(lib_, name, kwargs, tensor):
    """The loss module and the warnings its construction raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = getattr(lib_.nn, name)(**{k: tensor(v) if isinstance(v, np.ndarray) else v
                                          for k, v in kwargs.items()})
    return module, [str(w.message) for w in caught]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,kwargs,args", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_losses_match_pytorch(name, kwargs, args, dtype):
    ours, ours_warnings = _build(nabla, name, kwargs, lambda a: nabla.tensor(a.astype(dtype)))
    theirs, their_warnings = _build(torch, name, kwargs, lambda a: torch.from_numpy(a.astype(dtype)))
    assert ours_warnings == their_warnings
    assert repr(ours) == repr(theirs)
    check_module(ours, theirs, *args, dtype=dtype)


def test_functional_legacy_reduction_arguments_warn():
    x, t = nabla.tensor(A), nabla.tensor(B)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='none' instead."):
        out = nn.functional.mse_loss(x, t, reduce=False)
    assert tuple(out.shape) == (5, 3)
