"""Gradients of scaled_dot_product_attention: finite differences in float64 for
q, k, v and a float mask (bool masks, causal, scale, broadcast batch dims,
non-contiguous inputs, dropout with a fixed seed), second derivatives, and a
float32 comparison with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla.autograd import gradcheck, gradgradcheck

sdpa = F.scaled_dot_product_attention


def leaf(rng, *shape):
    return nabla.tensor(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("shapes", [((3, 4), (5, 4), (5, 2)),                 # no batch, Ev != E
                                    ((2, 3, 4), (2, 5, 4), (2, 5, 3)),
                                    ((2, 1, 3, 4), (3, 5, 4), (3, 5, 2))])    # broadcast batch dims
def test_q_k_v(rng, shapes):
    args = tuple(leaf(rng, *s) for s in shapes)
    assert gradcheck(sdpa, args)
    assert gradcheck(lambda q, k, v: sdpa(q, k, v, scale=0.3), args)


def test_second_derivative(rng):
    args = (leaf(rng, 2, 3, 4), leaf(rng, 2, 4, 4), leaf(rng, 2, 4, 2))
    assert gradgradcheck(sdpa, args)
    assert gradgradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True), (args[0], args[1][:, :3], args[2][:, :3]))


def test_causal(rng):
    args = (leaf(rng, 2, 4, 3), leaf(rng, 2, 4, 3), leaf(rng, 2, 4, 2))
    assert gradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True), args)
    assert gradcheck(lambda q, k, v: sdpa(q, k, v, is_causal=True), (leaf(rng, 3, 3), leaf(rng, 5, 3),
                                                                      leaf(rng, 5, 2)))  # L < S


def test_masks(rng):
    q, k, v = leaf(rng, 2, 3, 4), leaf(rng, 2, 5, 4), leaf(rng, 2, 5, 3)
    keep = nabla.tensor(rng.random((3, 5)) < 0.7)
    keep[:, 0] = True  # no row fully masked
    assert gradcheck(lambda q, k, v: sdpa(q, k, v, attn_mask=keep), (q, k, v))
    bias = leaf(rng, 3, 5)  # a float mask broadcast over the batch takes a gradient too
    assert gradcheck(lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), (q, k, v, bias))
    assert gradgradcheck(lambda q, k, v, m: sdpa(q, k, v, attn_mask=m), (q, k, v, bias))
    assert gradgradcheck(lambda q, k, v: sdpa(q, k, v, attn_mask=keep), (q, k, v))


def test_non_contiguous_inputs(rng):
    q, k, v = leaf(rng, 4, 3), leaf(rng, 2, 5, 4), leaf(rng, 3, 5)
    assert gradcheck(lambda q, k, v: sdpa(q.t(), k[:, ::1], v.t()), (q, k, v))
    assert gradcheck(lambda q, k, v: sdpa(q.t(), k[0, ::2], v.t()[::2]), (q, k, v))


def test_partial_grads(rng):
    q = leaf(rng, 2, 3, 4)
    k, v = nabla.tensor(rng.standard_normal((2, 5, 4))), nabla.tensor(rng.standard_normal((2, 5, 3)))
    assert gradcheck(lambda q: sdpa(q, k, v), (q,))
    assert gradcheck(lambda v: sdpa(q.detach(), k, v), (v.requires_grad_(),))


def test_dropout_uses_the_forward_mask(rng):
    """With a fixed seed the recorded forward draws what the plain op draws, and the gradient
    is that of the same dropped weights."""
    args = (leaf(rng, 2, 3, 4), leaf(rng, 2, 5, 4), leaf(rng, 2, 5, 3))

    def f(q, k, v):
        nabla.manual_seed(5)
        return sdpa(q, k, v, dropout_p=0.4)

    with nabla.no_grad():
        plain = f(*args)
    recorded = f(*args)
    np.testing.assert_array_equal(recorded.detach().numpy(), plain.numpy())
    assert gradcheck(f, args)
    assert gradgradcheck(f, args)


def test_node_name_and_saved_check(rng):
    q = leaf(rng, 3, 4)
    y = sdpa(q, q * 1, q * 1)
    assert y.grad_fn.name() == "ScaledDotProductAttentionBackward0"
    k = q * 1
    y = sdpa(q, k, q)
    k.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_against_torch(rng):
    torch = pytest.importorskip("torch")
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    qa, ka, va, ma = f32(2, 2, 5, 8), f32(2, 2, 6, 8), f32(2, 2, 6, 4), f32(5, 6)
    keep = rng.random((5, 6)) < 0.7
    keep[:, 0] = True
    for kw_n, kw_t in [({}, {}), ({"is_causal": True}, {"is_causal": True}), ({"scale": 0.2}, {"scale": 0.2}),
                       ({"attn_mask": nabla.tensor(keep)}, {"attn_mask": torch.tensor(keep)}),
                       ({"mask": True}, {"mask": True})]:
        ns = [nabla.tensor(a).requires_grad_() for a in (qa, ka, va, ma)]
        ts = [torch.tensor(a).requires_grad_() for a in (qa, ka, va, ma)]
        if kw_n.pop("mask", False):  # a float mask with a gradient
            kw_n["attn_mask"], kw_t = ns[3], {"attn_mask": ts[3]}
            n_in = 4
        else:
            n_in = 3
        yn, yt = sdpa(*ns[:3], **kw_n), torch.nn.functional.scaled_dot_product_attention(*ts[:3], **kw_t)
        go = f32(*yt.shape)
        gn = nabla.autograd.grad(yn, ns[:n_in], nabla.tensor(go))
        gt = torch.autograd.grad(yt, ts[:n_in], torch.tensor(go))
        for a, b in zip(gn, gt):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)
