"""scaled_dot_product_attention against a float64 NumPy reference (and PyTorch when installed)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F

RNG = np.random.default_rng(7)


def reference(q, k, v, mask=None, causal=False, scale=None):
    scores = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if causal:
        keep = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
        scores = np.where(keep, scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
    scores = scores - scores.max(-1, keepdims=True)
    w = np.exp(scores)
    return (w / w.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("dtype, tol", [(nabla.float32, 2e-5), (nabla.float64, 1e-12)])
@pytest.mark.parametrize("shape", [((5, 8), (7, 8), (7, 3)), ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 4)),
                                   ((2, 1, 4, 8), (3, 6, 8), (3, 6, 8))])
def test_matches_reference(dtype, tol, shape):
    q, k, v = (RNG.standard_normal(s) for s in shape)
    t = lambda a: nabla.tensor(a).to(dtype)  # noqa: E731
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v)).numpy(), reference(q, k, v),
                               rtol=tol, atol=tol)
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v), scale=0.3).numpy(),
                               reference(q, k, v, scale=0.3), rtol=tol, atol=tol)


def test_causal_and_masks():
    q, k, v = RNG.standard_normal((2, 5, 4)), RNG.standard_normal((2, 5, 4)), RNG.standard_normal((2, 5, 3))
    t = lambda a: nabla.tensor(a, dtype=nabla.float64)  # noqa: E731
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True).numpy(),
                               reference(q, k, v, causal=True), rtol=1e-12, atol=1e-12)
    bool_mask = RNG.random((5, 5)) > 0.3
    bool_mask[:, 0] = True  # every query keeps a key
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=nabla.tensor(bool_mask)).numpy(),
        reference(q, k, v, mask=bool_mask), rtol=1e-12, atol=1e-12)
    float_mask = RNG.standard_normal((5, 5))
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(float_mask)).numpy(),
        reference(q, k, v, mask=float_mask), rtol=1e-12, atol=1e-12)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    q, k, v = (RNG.standard_normal((2, 4, 6, 8)).astype(np.float32) for _ in range(3))
    mask = RNG.random((6, 6)) > 0.2
    mask[:, 0] = True
    ours = F.scaled_dot_product_attention(nabla.tensor(q), nabla.tensor(k), nabla.tensor(v),
                                          attn_mask=nabla.tensor(mask)).numpy()
    theirs = torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v),
                                                              attn_mask=torch.tensor(mask)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    causal = F.scaled_dot_product_attention(nabla.tensor(q), nabla.tensor(k), nabla.tensor(v), is_causal=True)
    np.testing.assert_allclose(causal.numpy(), torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), is_causal=True).numpy(), rtol=1e-5, atol=1e-5)


def test_dropout_is_reproducible_and_scaled():
    q = k = v = nabla.ones(1, 4, 4)
    nabla.manual_seed(3)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    nabla.manual_seed(3)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert a.tolist() == b.tolist()
    assert set(np.round(a.numpy().ravel() * 4) / 4).issubset({0.0, 0.5, 1.0, 1.5, 2.0})  # weights 1/4, kept ones x2


def test_errors():
    q = nabla.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="scaled_dot_product_attention"):
        F.scaled_dot_product_attention(q, nabla.zeros(2, 3, 5), nabla.zeros(2, 3, 4))
    with pytest.raises(RuntimeError, match="is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=nabla.ones(3, 3, dtype=nabla.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="dropout_p"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)
    with pytest.raises(RuntimeError, match="at least 2 dims"):
        F.scaled_dot_product_attention(nabla.zeros(4), q, q)
