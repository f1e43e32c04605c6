"""Families working together: the forward pass of small models written once
against the PyTorch API and run with nabla and with NumPy/PyTorch references."""
from __future__ import annotations

import numpy as np
import pytest

import nabla

RNG = np.random.default_rng(11)


def mlp_forward(torch, x, w1, b1, w2, b2, target):
    """A two-layer MLP with cross-entropy, written against the PyTorch API."""
    F = torch.nn.functional
    h = F.gelu(F.linear(x, w1, b1))
    logits = F.linear(F.layer_norm(h, (h.shape[-1],)), w2, b2)
    return logits, F.cross_entropy(logits, target, label_smoothing=0.1)


def cnn_forward(torch, x, kernel, bias):
    F = torch.nn.functional
    y = F.max_pool2d(F.relu(F.conv2d(x, kernel, bias, padding=1)), 2)
    return torch.flatten(y, 1).softmax(-1).sum(dim=0)


def attention_block(torch, x, wq, wk, wv):
    F = torch.nn.functional
    q, k, v = x @ wq, x @ wk, x @ wv
    return F.scaled_dot_product_attention(q, k, v, is_causal=True) + x


def _inputs():
    x = RNG.standard_normal((16, 12)).astype(np.float32)
    w1, b1 = RNG.standard_normal((32, 12)).astype(np.float32) * 0.3, RNG.standard_normal(32).astype(np.float32)
    w2, b2 = RNG.standard_normal((5, 32)).astype(np.float32) * 0.3, RNG.standard_normal(5).astype(np.float32)
    target = RNG.integers(0, 5, 16)
    return x, w1, b1, w2, b2, target


def test_mlp_forward_matches_a_numpy_reference():
    x, w1, b1, w2, b2, target = _inputs()
    logits, loss = mlp_forward(nabla, *(nabla.tensor(a) for a in (x, w1, b1, w2, b2, target)))
    from math import erf, sqrt
    h = x.astype(np.float64) @ w1.T + b1
    h = 0.5 * h * (1 + np.vectorize(erf)(h / sqrt(2)))
    h = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
    ref = h @ w2.T + b2
    np.testing.assert_allclose(logits.numpy(), ref, rtol=1e-4, atol=1e-4)
    logp = ref - ref.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    smooth = 0.9 * -logp[np.arange(16), target] + 0.1 * -logp.mean(-1)
    assert abs(loss.item() - smooth.mean()) < 1e-4


def test_models_match_pytorch():
    torch = pytest.importorskip("torch")
    x, w1, b1, w2, b2, target = _inputs()
    ours = mlp_forward(nabla, *(nabla.tensor(a) for a in (x, w1, b1, w2, b2, target)))
    theirs = mlp_forward(torch, *(torch.tensor(a) for a in (x, w1, b1, w2, b2, target)))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)

    img = RNG.standard_normal((4, 3, 8, 8)).astype(np.float32)
    kernel, bias = RNG.standard_normal((6, 3, 3, 3)).astype(np.float32), RNG.standard_normal(6).astype(np.float32)
    np.testing.assert_allclose(cnn_forward(nabla, *(nabla.tensor(a) for a in (img, kernel, bias))).numpy(),
                               cnn_forward(torch, *(torch.tensor(a) for a in (img, kernel, bias))).numpy(),
                               rtol=1e-4, atol=1e-5)

    seq = RNG.standard_normal((2, 7, 8)).astype(np.float32)
    ws = [RNG.standard_normal((8, 8)).astype(np.float32) * 0.4 for _ in range(3)]
    np.testing.assert_allclose(attention_block(nabla, *(nabla.tensor(a) for a in (seq, *ws))).numpy(),
                               attention_block(torch, *(torch.tensor(a) for a in (seq, *ws))).numpy(),
                               rtol=1e-4, atol=1e-5)


def test_a_long_chain_returns_every_tensor():
    before = nabla.memory.stats()["live_tensors"]
    x, w1, b1, w2, b2, target = _inputs()
    for _ in range(50):
        logits, loss = mlp_forward(nabla, *(nabla.tensor(a) for a in (x, w1, b1, w2, b2, target)))
    del logits, loss
    assert nabla.memory.stats()["live_tensors"] == before
