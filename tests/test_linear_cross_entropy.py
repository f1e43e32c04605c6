"""F.linear_cross_entropy and nn.LinearCrossEntropyLoss against torch 2.13: values and gradients
of the reference and the chunked (options=...) paths, K-dimensional and probability targets,
weights, ignore_index, label smoothing, and the errors; the chunked path keeps one chunk's
logits at a time (checked through the autograd saved-tensor hooks)."""
from __future__ import annotations

import numpy as np
import pytest

import nabla as nb

torch = pytest.importorskip("torch")
F, TF = nb.nn.functional, torch.nn.functional


def both(x, grad=False):
    a, b = nb.tensor(x), torch.tensor(x)
    if grad:
        a.requires_grad_(), b.requires_grad_()
    return a, b


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.fixture
def rng():
    return np.random.default_rng(3)


def operands(rng, n=10, d=6, c=7, bias=True):
    x, tx = both(rng.standard_normal((n, d)), True)
    w, tw = both(rng.standard_normal((c, d)), True)
    b, tb = both(rng.standard_normal(c), True) if bias else (None, None)
    target = rng.integers(0, c, n)
    target[1] = -100
    return (x, w, b, nb.tensor(target)), (tx, tw, tb, torch.tensor(target))


def grads_match(ours, theirs, tol=1e-10):
    for a, b in zip(ours, theirs):
        if a is not None:
            close(a.grad, b.grad, tol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("chunk", [None, 3, 64])
def test_values_and_gradients_match_torch(rng, reduction, chunk):
    (x, w, b, t), (tx, tw, tb, tt) = operands(rng)
    cw, tcw = both(rng.uniform(0.5, 2.0, 7))
    opts = None if chunk is None else nb.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk)
    r = F.linear_cross_entropy(x, w, t, linear_bias=b, weight=cw, reduction=reduction, options=opts)
    s = TF.linear_cross_entropy(tx, tw, tt, linear_bias=tb, weight=tcw, reduction=reduction)
    close(r, s)
    (r.sin().sum()).backward()
    (s.sin().sum()).backward()
    grads_match((x, w, b), (tx, tw, tb))


def test_unbatched_smoothing_and_ignore_index(rng):
    (x, w, b, t), (tx, tw, tb, tt) = operands(rng)
    for kw in ({"label_smoothing": 0.2}, {"ignore_index": 3}, {}):
        close(F.linear_cross_entropy(x[0], w, t[0], linear_bias=b, **kw),
              TF.linear_cross_entropy(tx[0], tw, tt[0], linear_bias=tb, **kw))
        close(F.linear_cross_entropy(x, w, t.clamp(0), **kw), TF.linear_cross_entropy(tx, tw, tt.clamp(0), **kw))


def test_k_dimensional_and_probability_targets(rng):
    x, tx = both(rng.standard_normal((5, 4)), True)
    w, tw = both(rng.standard_normal((3, 2, 4)), True)
    b, tb = both(rng.standard_normal((3, 2)), True)
    target = rng.integers(0, 3, (5, 2))
    r = F.linear_cross_entropy(x, w, nb.tensor(target), linear_bias=b)
    s = TF.linear_cross_entropy(tx, tw, torch.tensor(target), linear_bias=tb)
    close(r, s)
    r.backward(), s.backward()
    grads_match((x, w, b), (tx, tw, tb))
    probs = rng.dirichlet(np.ones(3), size=(5, 2)).transpose(0, 2, 1).copy()
    close(F.linear_cross_entropy(x, w, nb.tensor(probs), linear_bias=b, label_smoothing=0.1),
          TF.linear_cross_entropy(tx, tw, torch.tensor(probs), linear_bias=tb, label_smoothing=0.1))


def test_options_falling_back_warn_as_torch(rng):
    (x, w, b, t), (tx, tw, tb, tt) = operands(rng)
    opts = nb.nn.LinearCrossEntropyOptions(batch_chunk_size=4)
    with pytest.warns(UserWarning, match="``options`` ignored"):
        r = F.linear_cross_entropy(x, w, t, label_smoothing=0.1, options=opts)
    close(r, TF.linear_cross_entropy(tx, tw, tt, label_smoothing=0.1))


def test_chunked_path_saves_one_chunk_of_logits_at_a_time(rng):
    n, d, c = 64, 8, 50
    x = nb.tensor(rng.standard_normal((n, d))).requires_grad_()
    w = nb.tensor(rng.standard_normal((c, d))).requires_grad_()
    t = nb.tensor(rng.integers(0, c, n))

    def largest_saved(options):
        sizes = []

        def pack(saved):
            sizes.append(saved.numel())
            return saved

        with nb.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
            loss = F.linear_cross_entropy(x, w, t, options=options)
        loss.backward()
        return max(sizes), loss

    full, ref = largest_saved(None)
    chunked, loss = largest_saved(nb.nn.LinearCrossEntropyOptions(batch_chunk_size=8))
    assert full >= n * c and chunked < n * c
    close(loss, ref)


def test_errors_match_torch(rng):
    (x, w, b, t), (tx, tw, tb, tt) = operands(rng)
    cases = [
        (lambda m, X, W, B, T: m.linear_cross_entropy(X[None], W, T), "expected input with dimensionality 1 or 2"),
        (lambda m, X, W, B, T: m.linear_cross_entropy(X, W[0], T), "expected linear_weight with dimensionality"),
        (lambda m, X, W, B, T: m.linear_cross_entropy(X[:, :3], W, T), "expected equal input and linear_weight"),
        (lambda m, X, W, B, T: m.linear_cross_entropy(X, W, T, linear_bias=B[:3]), "expected linear_bias shape"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError, match=message):
            call(TF, tx, tw, tb, tt)
        with pytest.raises(RuntimeError, match=message):
            call(F, x, w, b, t)
    with pytest.raises(ValueError, match="invalid acc_policy"):
        nb.nn.LinearCrossEntropyOptions(acc_policy="fast")
    with pytest.raises(ValueError, match="invalid chunking_method"):
        nb.nn.LinearCrossEntropyOptions(chunking_method="rows")


def test_module_matches_torch(rng):
    m = nb.nn.LinearCrossEntropyLoss(6, 4, out_features=(2,), bias=True, label_smoothing=0.1, dtype=nb.float64)
    tm = torch.nn.LinearCrossEntropyLoss(6, 4, out_features=(2,), bias=True, label_smoothing=0.1,
                                         dtype=torch.float64)
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    assert list(m.state_dict()) == list(tm.state_dict())
    x, tx = both(rng.standard_normal((5, 6)))
    target = rng.integers(0, 4, (5, 2))
    r, s = m(x, nb.tensor(target)), tm(tx, torch.tensor(target))
    close(r, s)
    r.backward(), s.backward()
    close(m.linear.weight.grad, tm.linear.weight.grad)
    with pytest.raises(RuntimeError, match="expected weight shape to be"):
        nb.nn.LinearCrossEntropyLoss(6, 4, weight=nb.ones(3))
    with pytest.raises(RuntimeError, match="expected label_smoothing to be in range"):
        nb.nn.LinearCrossEntropyLoss(6, 4, label_smoothing=2.0)
