"""Gradients of the shape ops (cat, stack, flip, roll, repeat, tril/triu), of
sort / topk and dropout, and of the Python compositions built on views and C
ops (split, chunk, unbind, tensor_split, tile, movedim, meshgrid, fliplr,
msort): gradcheck over random, non-contiguous and attribute variants,
gradgradcheck for the linear ops, dropout's mask checked against the op
without grad, and float32 gradients against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import nabla
import nabla.nn.functional as F
from nabla.autograd import gradcheck, gradgradcheck
from test_autograd_reduce import LAYOUTS, distinct, leaf

CASES = [
    ("cat", lambda a, b: nabla.cat([a, b], 1), [(2, 3), (2, 2)]),
    ("cat_neg_dim", lambda a, b: nabla.cat([a, b, a], -2), [(2, 3), (1, 3)]),
    ("stack", lambda a, b: nabla.stack([a, b]), [(2, 3), (2, 3)]),
    ("stack_last", lambda a, b: nabla.stack([a, b, a], -1), [(2, 3), (2, 3)]),
    ("flip", lambda x: x.flip(0, 1), [(2, 3)]),
    ("flip_one", lambda x: nabla.flip(x, (-1,)), [(2, 3, 2)]),
    ("roll", lambda x: x.roll((1, -1), (0, 1)), [(2, 3)]),
    ("roll_flat", lambda x: x.roll(4), [(2, 3)]),
    ("repeat", lambda x: x.repeat(2, 1, 3), [(2, 3)]),
    ("repeat_size1", lambda x: x.repeat(2, 3), [(1, 3)]),
    ("tile", lambda x: x.tile((2,)), [(2, 3)]),
    ("tril", lambda x: x.tril(), [(3, 3)]),
    ("tril_neg", lambda x: nabla.tril(x, -1), [(2, 3, 4)]),
    ("triu", lambda x: x.triu(1), [(3, 4)]),
    ("sort", lambda x: x.sort(1).values, [(2, 4)]),
    ("sort_desc", lambda x: nabla.sort(x, 0, descending=True)[0], [(3, 2)]),
    ("msort", lambda x: nabla.msort(x), [(3, 2)]),
    ("topk", lambda x: x.topk(2).values, [(2, 4)]),
    ("topk_smallest", lambda x: nabla.topk(x, 2, 0, largest=False).values, [(3, 2)]),
    ("split", lambda x: x.split(2, 1), [(2, 5)]),
    ("split_sizes", lambda x: nabla.split(x, [1, 3], 1)[1], [(2, 4)]),
    ("chunk", lambda x: x.chunk(2, 0), [(3, 2)]),
    ("unbind", lambda x: x.unbind(1), [(2, 3)]),
    ("tensor_split", lambda x: nabla.tensor_split(x, [1, 2], 1), [(2, 4)]),
    ("movedim", lambda x: nabla.movedim(x, 0, -1), [(2, 3, 2)]),
    ("meshgrid", lambda a, b: nabla.meshgrid(a, b, indexing="xy"), [(2,), (3,)]),
    ("fliplr", lambda x: nabla.fliplr(x), [(2, 3)]),
    ("flipud", lambda x: x.flipud(), [(2, 3)]),
]
SORTING = {"sort", "sort_desc", "msort", "topk", "topk_smallest"}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_gradcheck(name, fn, shapes, layout):
    xs = tuple(leaf(distinct(s, seed=i + len(name)), layout) for i, s in enumerate(shapes))
    assert gradcheck(fn, xs)
    if layout == "contiguous" and name not in SORTING:  # sort/topk: scatter's own formula makes the second
        assert gradgradcheck(fn, xs)


def test_cat_with_inputs_that_need_no_grad_and_legacy_empty():
    a = leaf(distinct((2, 3)))
    b = nabla.tensor(distinct((2, 2), seed=1))
    e = nabla.zeros(0, dtype=nabla.float64).requires_grad_()
    y = nabla.cat([b, e, a, b], 1)
    assert tuple(y.shape) == (2, 7)
    go = nabla.tensor(np.arange(14.0).reshape(2, 7))
    y.backward(go)
    np.testing.assert_array_equal(a.grad.numpy(), go.numpy()[:, 2:5])
    assert tuple(e.grad.shape) == (0,)
    assert b.grad is None
    assert gradcheck(lambda t, u: nabla.cat([u, b, t], 0), (leaf(distinct((1, 2))), leaf(distinct((3, 2)))))


def test_tril_inplace_and_repeat_of_broadcast():
    x = leaf(distinct((3, 3)))

    def f(t):
        y = t * 1
        y.triu_(1)
        return y
    assert gradcheck(f, (x,))
    col = leaf(distinct((3, 1)))
    assert gradcheck(lambda t: t.expand(3, 2).repeat(1, 2), (col,))


def test_sort_and_topk_gradients_follow_the_indices():
    a = np.array([[3.0, 1.0, 2.0], [0.5, 2.5, 1.5]])
    x = nabla.tensor(a).requires_grad_()
    v, i = x.sort(1)
    assert i.grad_fn is None
    v.backward(nabla.tensor([[10.0, 20.0, 30.0], [1.0, 2.0, 3.0]]))
    np.testing.assert_array_equal(x.grad.numpy(), [[30, 10, 20], [1, 3, 2]])
    x.grad = None
    x.topk(1, 1).values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 0, 0], [0, 1, 0]])


def test_node_names():
    x = leaf(distinct((2, 3)))
    names = {"CatBackward0": nabla.cat([x, x]), "StackBackward0": nabla.stack([x, x]), "FlipBackward0": x.flip(0),
             "RollBackward0": x.roll(1, 0), "RepeatBackward0": x.repeat(2, 1), "TrilBackward0": x.tril(),
             "TriuBackward0": x.triu(), "SortBackward0": x.sort().values, "TopkBackward0": x.topk(1).values}
    for name, t in names.items():
        assert t.grad_fn.name() == name


# ---- dropout ----

def test_dropout_gradient_is_the_forward_mask():
    x = nabla.randn(6, 7, requires_grad=True)
    y = nabla.dropout(x, 0.3, True, generator=nabla.Generator().manual_seed(5))
    with nabla.no_grad():  # the op without grad, same generator state: the same values
        ref = nabla.dropout(x, 0.3, True, generator=nabla.Generator().manual_seed(5))
    np.testing.assert_array_equal(y.detach().numpy(), ref.numpy())
    assert y.grad_fn.name() == "NativeDropoutBackward0"
    go = nabla.randn(6, 7)
    y.backward(go)
    keep = (ref.numpy() != 0) / np.float32(0.7)
    np.testing.assert_allclose(x.grad.numpy(), go.numpy() * keep, rtol=1e-6)
    assert 0 < (ref.numpy() == 0).sum() < 42


def test_dropout_eval_p0_p1_and_inplace():
    x = leaf(distinct((2, 3)))
    assert F.dropout(x, 0.5, training=False) is x
    assert gradcheck(lambda t: F.dropout(t, 0.0), (x,))
    y = F.dropout(x, 1.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
    x.grad = None
    h = x * 2
    out = F.dropout(h, 0.5, inplace=True)
    assert out is h and h.grad_fn.name() == "NativeDropoutBackward0"
    h.sum().backward()
    g = x.grad.numpy()
    assert set(np.unique(g)).issubset({0.0, 4.0})
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.dropout(x, 0.5, inplace=True)
    gen = nabla.Generator()
    assert gradcheck(lambda t: nabla.dropout(t, 0.4, True, generator=gen.manual_seed(1)), (x,))
    assert gradgradcheck(lambda t: nabla.dropout(t, 0.4, True, generator=gen.manual_seed(1)) ** 2, (x,))


# ---- against PyTorch (float32) ----

TORCH_CASES = [
    ("cat", lambda m, x: m.cat([x, x[:, :2]], 1)),
    ("stack", lambda m, x: m.stack([x, x * 2], 1)),
    ("flip", lambda m, x: m.flip(x, (0, 2))),
    ("roll", lambda m, x: m.roll(x, (2, -1), (1, 2))),
    ("roll_flat", lambda m, x: m.roll(x, 7)),
    ("repeat", lambda m, x: x.repeat(2, 1, 1, 3)),
    ("tril", lambda m, x: m.tril(x, 1)),
    ("triu", lambda m, x: m.triu(x, -1)),
    ("sort", lambda m, x: m.sort(x, 1, descending=True).values),
    ("topk", lambda m, x: m.topk(x, 3, 2).values),
    ("split", lambda m, x: m.split(x, 2, 2)[1]),
    ("unbind", lambda m, x: m.unbind(x, 1)[2]),
]


@pytest.mark.parametrize("name,fn", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_against_torch(name, fn):
    torch = pytest.importorskip("torch")
    a = distinct((3, 4, 5), seed=4).astype(np.float32)
    x, tx = nabla.tensor(a).requires_grad_(), torch.tensor(a, requires_grad=True)
    y, ty = fn(nabla, x), fn(torch, tx)
    go = np.random.default_rng(2).standard_normal(tuple(ty.shape)).astype(np.float32)
    y.backward(nabla.tensor(go))
    ty.backward(torch.tensor(go))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_cat_and_stack_of_999_inputs_match_torch(op):
    """A formula with one temporary per input has no fixed cap (an episode's 999 log-probs)."""
    torch = pytest.importorskip("torch")
    values = np.random.default_rng(7).standard_normal((999, 3))
    ours = [nabla.tensor(v, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    weight = np.random.default_rng(8).standard_normal(2997)
    y = getattr(nabla, op)(ours).reshape(-1)
    (y * nabla.tensor(weight)).sum().backward()
    z = getattr(torch, op)(theirs).reshape(-1)
    (z * torch.tensor(weight)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
