"""Saved tensors and the lifetime of a graph.

A second backward through a node whose saved tensors were freed raises
PyTorch's RuntimeError (and the C status and message agree), for every op
family and for custom Functions; nodes that saved nothing run again, as in
PyTorch. In-place updates computed from the tensor they write (x.copy_(x * w),
v.mul_(v * w) on a view) make no reference cycle: after 200 iterations the
live-tensor count and the allocator's bytes are back at baseline, and their
gradients (or version errors) match PyTorch's."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import nabla
from nabla._lib import ffi, lib

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors after they have "
         "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
         "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
         "you need to access saved tensors after calling backward.")


def _copy_slices(x, w):
    y = x * 1
    y[1:].mul_(w[1:])
    return y


# (name, fn(m, F, x, w) with m = nabla or torch, F its nn.functional; x, w: [4, 6] requiring grad, saves):
# `saves` is whether the graph holds saved tensors, so that a second backward must fail.
CASES = [
    ("mul", lambda m, F, x, w: x * w, True),
    ("div", lambda m, F, x, w: x / (w.abs() + 1), True),
    ("pow", lambda m, F, x, w: x ** 2, True),
    ("atan2", lambda m, F, x, w: m.atan2(x, w), True),
    ("maximum", lambda m, F, x, w: m.maximum(x, w), True),
    ("where", lambda m, F, x, w: m.where(x > 0, x, w), True),
    ("add", lambda m, F, x, w: x + w, False),
    ("exp", lambda m, F, x, w: x.exp(), True),
    ("log", lambda m, F, x, w: (x.abs() + 1).log(), True),
    ("sin", lambda m, F, x, w: x.sin(), True),
    ("tanh", lambda m, F, x, w: x.tanh(), True),
    ("sigmoid", lambda m, F, x, w: x.sigmoid(), True),
    ("sqrt", lambda m, F, x, w: (x.abs() + 1).sqrt(), True),
    ("relu", lambda m, F, x, w: F.relu(x), True),
    ("gelu", lambda m, F, x, w: F.gelu(x), True),
    ("silu", lambda m, F, x, w: F.silu(x), True),
    ("abs", lambda m, F, x, w: x.abs(), True),
    ("clamp", lambda m, F, x, w: x.clamp(-0.5, 0.5), True),
    ("neg", lambda m, F, x, w: -x, False),
    ("prod", lambda m, F, x, w: x.prod(1), True),
    ("norm", lambda m, F, x, w: x.norm(), True),
    ("amax", lambda m, F, x, w: x.amax(1), True),
    ("max_dim", lambda m, F, x, w: x.max(1)[0], True),
    ("std", lambda m, F, x, w: x.std(1), True),
    ("var", lambda m, F, x, w: x.var(1), True),
    ("logsumexp", lambda m, F, x, w: x.logsumexp(1), True),
    ("sum", lambda m, F, x, w: x.sum(1), False),
    ("mean", lambda m, F, x, w: x.mean(1), False),
    ("cumprod", lambda m, F, x, w: x.cumprod(1), True),
    ("cumsum", lambda m, F, x, w: x.cumsum(1), False),
    ("gather", lambda m, F, x, w: x.gather(1, m.tensor([[0, 2], [1, 1], [5, 0], [3, 4]])), True),
    ("index_select", lambda m, F, x, w: x.index_select(1, m.tensor([0, 2, 2])), True),
    ("advanced_index", lambda m, F, x, w: x[m.tensor([0, 2, 2])], True),
    ("take_along_dim", lambda m, F, x, w: m.take_along_dim(x, m.tensor([[0], [1], [2], [3]]), 1), True),
    ("masked_fill", lambda m, F, x, w: x.masked_fill(x > 0, 0.0), True),
    ("cat", lambda m, F, x, w: m.cat([x, w]), False),
    ("transpose", lambda m, F, x, w: x.t(), False),
    ("sort", lambda m, F, x, w: x.sort(1)[0], True),
    ("topk", lambda m, F, x, w: x.topk(2, 1)[0], True),
    ("softmax", lambda m, F, x, w: x.softmax(1), True),
    ("log_softmax", lambda m, F, x, w: x.log_softmax(1), True),
    ("matmul", lambda m, F, x, w: x @ w.t(), True),
    ("inv", lambda m, F, x, w: m.linalg.inv(x[:, :4] + 4 * m.eye(4)), True),
    ("det", lambda m, F, x, w: m.linalg.det(x[:, :4]), True),
    ("linear", lambda m, F, x, w: F.linear(x, w), True),
    ("conv2d", lambda m, F, x, w: F.conv2d(x.reshape(1, 1, 4, 6), w[:3, :3].reshape(1, 1, 3, 3)), True),
    ("max_pool2d", lambda m, F, x, w: F.max_pool2d(x.reshape(1, 1, 4, 6), 2), True),
    ("avg_pool2d", lambda m, F, x, w: F.avg_pool2d(x.reshape(1, 1, 4, 6), 2), False),
    ("layer_norm", lambda m, F, x, w: F.layer_norm(x, (6,), w[0], w[1]), True),
    ("batch_norm", lambda m, F, x, w: F.batch_norm(x, None, None, w[0], w[1], training=True), True),
    ("cross_entropy", lambda m, F, x, w: F.cross_entropy(x, m.tensor([0, 1, 2, 5])), True),
    ("mse_loss", lambda m, F, x, w: F.mse_loss(x, w), True),
    ("embedding", lambda m, F, x, w: F.embedding(m.tensor([0, 3, 3]), x), True),
    ("scaled_dot_product_attention", lambda m, F, x, w: F.scaled_dot_product_attention(x[None], w[None], w[None]),
     True),
    ("copy_slices", lambda m, F, x, w: _copy_slices(x, w), True),
    ("dropout", lambda m, F, x, w: F.dropout(x, 0.5, training=True), True),
    ("scatter_add", lambda m, F, x, w: x.scatter_add(1, m.tensor([[0, 1], [1, 2], [2, 3], [3, 4]]), w[:, :2]), True),
    ("scatter_reduce_prod",
     lambda m, F, x, w: x.scatter_reduce(1, m.tensor([[0, 1], [1, 2], [2, 3], [3, 4]]), w[:, :2], "prod"), True),
    ("index_add", lambda m, F, x, w: x.index_add(0, m.tensor([0, 2]), w[:2]), True),
    ("index_put", lambda m, F, x, w: x.index_put((m.tensor([0, 1]),), w[:2]), True),
    ("masked_select", lambda m, F, x, w: x.masked_select(x > 0), True),
    ("min", lambda m, F, x, w: x.min(), True),
    ("bmm", lambda m, F, x, w: m.bmm(x.reshape(2, 2, 6), w.reshape(2, 6, 2)), True),
    ("outer", lambda m, F, x, w: m.outer(x[0], w[0]), True),
    ("cholesky", lambda m, F, x, w: m.linalg.cholesky(x[:, :4] @ x[:, :4].t() + 4 * m.eye(4)), True),
    ("qr", lambda m, F, x, w: m.linalg.qr(x)[0], True),
    ("svdvals", lambda m, F, x, w: m.linalg.svdvals(x), True),
    ("eigvalsh", lambda m, F, x, w: m.linalg.eigvalsh(x[:, :4] + x[:, :4].t()), True),
    ("solve", lambda m, F, x, w: m.linalg.solve(x[:, :4] + 4 * m.eye(4), w[:, :1]), True),
    ("softplus", lambda m, F, x, w: F.softplus(x), True),
    ("leaky_relu", lambda m, F, x, w: F.leaky_relu(x), True),
    ("elu", lambda m, F, x, w: F.elu(x), True),
    ("group_norm", lambda m, F, x, w: F.group_norm(x.reshape(2, 4, 3), 2), True),
    ("nll_loss", lambda m, F, x, w: F.nll_loss(x, m.tensor([0, 1, 2, 5])), True),
    ("bce_with_logits", lambda m, F, x, w: F.binary_cross_entropy_with_logits(x, w.sigmoid().detach()), True),
    ("smooth_l1_loss", lambda m, F, x, w: F.smooth_l1_loss(x, w), True),
    ("kl_div", lambda m, F, x, w: F.kl_div(x.log_softmax(1), w.softmax(1), reduction="batchmean"), True),
    ("conv1d", lambda m, F, x, w: F.conv1d(x.reshape(1, 4, 6), w[:, :3].reshape(1, 4, 3)), True),
    ("conv_transpose2d",
     lambda m, F, x, w: F.conv_transpose2d(x.reshape(1, 1, 4, 6), w[:2, :2].reshape(1, 1, 2, 2)), True),
    ("causal_attention", lambda m, F, x, w: F.scaled_dot_product_attention(
        x[None, None], w[None, None], w[None, None], is_causal=True), True),
    ("adaptive_avg_pool2d", lambda m, F, x, w: F.adaptive_avg_pool2d(x.reshape(1, 1, 4, 6), 2), False),
    ("pad", lambda m, F, x, w: F.pad(x, (1, 1)), False),
    ("repeat", lambda m, F, x, w: x.repeat(2, 1), False),
    ("expand", lambda m, F, x, w: x[None].expand(3, 4, 6), False),
    ("flip", lambda m, F, x, w: x.flip(0), False),
    ("roll", lambda m, F, x, w: x.roll(1, 0), False),
    ("tril", lambda m, F, x, w: x.tril(), False),
]
IDS = [c[0] for c in CASES]
# nabla's average pooling saves no tensor (its backward needs only shapes), PyTorch's keeps the input: PyTorch
# refuses a second backward there, nabla has nothing to free and runs it.
TORCH_SAVES_MORE = {"avg_pool2d", "adaptive_avg_pool2d"}


def _inputs(m, dtype):
    rng = np.random.default_rng(0)
    x = m.tensor(rng.standard_normal((4, 6)), dtype=dtype, requires_grad=True)
    w = m.tensor(rng.standard_normal((4, 6)), dtype=dtype, requires_grad=True)
    return x, w


def _last_error():
    return lib.nb_last_error_status(), ffi.string(lib.nb_last_error_message()).decode()


@pytest.mark.parametrize("name, fn, saves", CASES, ids=IDS)
def test_second_backward_fails_where_saved_tensors_were_freed(name, fn, saves):
    x, w = _inputs(nabla, nabla.float64)
    y = fn(nabla, nabla.nn.functional, x, w).sum()
    y.backward()
    first = [t.grad.numpy().copy() if t.grad is not None else None for t in (x, w)]
    if not saves:
        y.backward()  # nothing was saved: runs again, gradients accumulate
        for t, g in zip((x, w), first):
            if g is not None:
                np.testing.assert_allclose(t.grad.numpy(), 2 * g)
        return
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert str(info.value) == FREED
    assert info.value.status == lib.NB_ERR_AUTOGRAD
    assert _last_error() == (lib.NB_ERR_AUTOGRAD, FREED)  # the C state agrees (no internal message over it)
    for t, g in zip((x, w), first):  # a failed pass accumulates nothing
        if g is not None:
            np.testing.assert_array_equal(t.grad.numpy(), g)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        nabla.autograd.grad(y, [x])


@pytest.mark.parametrize("name, fn, saves", CASES, ids=IDS)
def test_retain_graph_keeps_saved_tensors_for_another_pass(name, fn, saves):
    x, w = _inputs(nabla, nabla.float64)
    y = fn(nabla, nabla.nn.functional, x, w).sum()
    (gx,) = nabla.autograd.grad(y, [x], retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * gx.numpy())
    if saves:
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.backward()


@pytest.mark.parametrize("name, fn, saves", CASES, ids=IDS)
def test_second_backward_matches_pytorch(name, fn, saves):
    torch = pytest.importorskip("torch")
    x, w = _inputs(torch, torch.float64)
    y = fn(torch, torch.nn.functional, x, w).sum()
    y.backward()
    try:
        y.backward()
        torch_refuses = False
    except RuntimeError as e:
        assert str(e) == FREED
        torch_refuses = True
    assert torch_refuses == (saves or name in TORCH_SAVES_MORE)


class _Square(nabla.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class _Twice(nabla.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return 2 * g


def test_custom_function_saved_tensors_are_freed_by_backward():
    x = nabla.ones(3, requires_grad=True)
    y = _Square.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()  # retained once
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0, 4.0])
    with pytest.raises(RuntimeError) as info:
        y.backward()
    assert str(info.value) == FREED
    # a Function that saved nothing and does not read ctx.saved_tensors runs again, as in PyTorch
    z = _Twice.apply(x).sum()
    z.backward()
    z.backward()
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 8.0, 8.0])


def test_custom_function_inside_autograd_grad_with_and_without_retain():
    x = nabla.tensor([1.0, 2.0], requires_grad=True)
    y = _Square.apply(x).sum()
    (g,) = nabla.autograd.grad(y, [x], retain_graph=True)
    (g2,) = nabla.autograd.grad(y, [x])
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(g2.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        nabla.autograd.grad(y, [x])


# ---- in-place updates computed from the tensor they write ----

def _pattern(m, name, x, w):
    """Applies one pattern to x in place (x: [5, 4], w: [5, 4] or, for views, [4, 4])."""
    if name == "self_copy":
        x.copy_(x * w)
    elif name == "view_mul":
        v = x[1:]
        v.mul_(v * w)
    elif name == "view_copy_exp":
        v = x[1:]
        v.copy_(v.exp() * w)
    elif name == "self_copy_exp":
        x.copy_(x.exp() * w)
    else:
        raise AssertionError(name)


PATTERNS = ["self_copy", "view_mul", "view_copy_exp", "self_copy_exp"]
VERSION_ERROR = {"self_copy", "view_mul"}  # mul saved what the update then overwrote


def _make(m, name, from_leaf, rng):
    a = m.tensor(rng.standard_normal((5, 4)), requires_grad=from_leaf)
    x = a * 1 if from_leaf else a
    rows = 4 if name.startswith("view") else 5
    w = m.tensor(rng.standard_normal((rows, 4)), requires_grad=True)
    return a, x, w


def _live():
    gc.collect()
    s = nabla.memory.stats()
    return s["live_tensors"], s["live_storages"], s["allocated_bytes"]


@pytest.mark.parametrize("from_leaf", [False, True], ids=["plain", "non_leaf"])
@pytest.mark.parametrize("name", PATTERNS)
def test_in_place_update_from_itself_frees_its_graph(name, from_leaf):
    rng = np.random.default_rng(1)
    a, x, w = _make(nabla, name, from_leaf, rng)
    _pattern(nabla, name, x, w)
    del a, x, w
    before = _live()
    for _ in range(200):
        a, x, w = _make(nabla, name, from_leaf, rng)
        _pattern(nabla, name, x, w)
        del a, x, w
    assert _live() == before


@pytest.mark.parametrize("from_leaf", [False, True], ids=["plain", "non_leaf"])
@pytest.mark.parametrize("name", PATTERNS)
def test_in_place_update_from_itself_matches_pytorch(name, from_leaf):
    torch = pytest.importorskip("torch")
    results = []
    for m in (nabla, torch):
        a, x, w = _make(m, name, from_leaf, np.random.default_rng(2))
        _pattern(m, name, x, w)
        try:
            x.sum().backward()
        except RuntimeError as e:
            results.append((x.detach().numpy(), str(e)))
            continue
        results.append((x.detach().numpy(), w.grad.numpy(), a.grad.numpy() if from_leaf else None))
    ours, theirs = results
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    if name in VERSION_ERROR:
        assert isinstance(ours[1], str) and isinstance(theirs[1], str)
        assert "one of the variables needed for gradient computation has been modified by an inplace" in ours[1]
        assert "is at version 1; expected version 0 instead" in ours[1]
        return
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    if from_leaf:
        np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-12)


def _leaf_moved(m, saved):
    """A leaf that took part in a graph, then requires_grad_(False) and an in-place write
    from that graph: it moves into the graph's interior (its accumulator, and a node
    that saved it, would otherwise hold it through its own new history)."""
    w = m.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    y = w * w if saved else w * 2
    w.requires_grad_(False)
    w.copy_(y)
    return w


@pytest.mark.parametrize("saved", [True, False], ids=["saved_leaf", "edge_only"])
def test_leaf_moved_into_its_own_graph_is_freed(saved):
    _leaf_moved(nabla, saved)
    before = _live()
    for _ in range(100):
        _leaf_moved(nabla, saved)
    assert _live() == before


@pytest.mark.parametrize("saved", [True, False], ids=["saved_leaf", "edge_only"])
def test_leaf_moved_into_its_own_graph_backward_matches_pytorch(saved):
    torch = pytest.importorskip("torch")
    errors = []
    for m in (nabla, torch):
        w = _leaf_moved(m, saved)
        assert not w.is_leaf and w.requires_grad
        np.testing.assert_allclose(w.detach().numpy(), np.arange(12.0).reshape(3, 4) ** (2 if saved else 1) *
                                   (1 if saved else 2))
        with pytest.raises(RuntimeError) as info:
            (w * 1).sum().backward()
        errors.append(str(info.value))
    # saved: mul saved w, which the copy_ then overwrote; edge only: the accumulator's leaf moved
    key = "is at version 1; expected version 0 instead" if saved else "leaf variable has been moved into the graph interior"
    assert key in errors[0] and key in errors[1]


def test_saved_leaf_gives_create_graph_gradients_to_the_leaf():
    torch = pytest.importorskip("torch")
    out = []
    for m in (nabla, torch):
        w = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
        y = (w * w * w).sum()  # the muls save the leaf w
        (g,) = m.autograd.grad(y, [w], create_graph=True)
        g.sum().backward()
        out.append((g.detach().numpy(), w.grad.numpy()))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-14)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-14)


def test_saved_non_leaf_keeps_its_history_for_create_graph():
    torch = pytest.importorskip("torch")
    grads = []
    for m in (nabla, torch):
        a = m.tensor([0.3, -1.2, 2.0], dtype=m.float64, requires_grad=True)
        w = m.tensor([1.5, 0.5, -2.0], dtype=m.float64, requires_grad=True)
        x = a.sin()  # saved by the mul below as an input with a history
        y = (x * x * w).sum()
        (g,) = m.autograd.grad(y, [a], create_graph=True)
        g.sum().backward()
        grads.append((g.detach().numpy(), a.grad.numpy(), w.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
