"""nabla.utils.checkpoint: recomputed activations give the very same gradients (dropout
included), use less memory, and warn or fail as PyTorch does."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import nabla as nb
from nabla.utils.checkpoint import checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")


def model(depth=4, width=16, p=0.3):
    nb.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nb.nn.Linear(width, width), nb.nn.ReLU(), nb.nn.Dropout(p)]
    return nb.nn.Sequential(*layers)


def grads(m, x, run):
    m.zero_grad()
    x.grad = None
    nb.manual_seed(123)
    out = run(x)
    nb.manual_seed(999)  # the recomputation must not depend on the RNG at backward time
    out.pow(2).sum().backward()
    return [p.grad.clone() for p in m.parameters()] + [x.grad.clone()], out.detach()


def bits(t):
    return t.numpy().view("uint32").tolist()


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_bitwise_equal_with_dropout(reentrant):
    m = model()
    x = nb.randn(6, 16, requires_grad=True)
    want, out = grads(m, x, m)
    got, out_ckpt = grads(m, x, lambda v: checkpoint(m, v, use_reentrant=reentrant))
    assert bits(out) == bits(out_ckpt)
    for a, b in zip(want, got):
        assert bits(a) == bits(b)


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential_bitwise_equal(reentrant):
    m = model(depth=6)
    x = nb.randn(6, 16, requires_grad=True)
    want, _ = grads(m, x, m)
    got, _ = grads(m, x, lambda v: checkpoint_sequential(m, 3, v, use_reentrant=reentrant))
    for a, b in zip(want, got):
        assert bits(a) == bits(b)


def test_without_preserved_rng_state_dropout_differs():
    m = model()
    x = nb.randn(6, 16, requires_grad=True)
    want, _ = grads(m, x, m)
    got, _ = grads(m, x, lambda v: checkpoint(m, v, use_reentrant=True, preserve_rng_state=False))
    assert any(bits(a) != bits(b) for a, b in zip(want, got))


def test_non_reentrant_reaches_parameters_when_no_input_requires_grad():
    m = model(p=0.0)
    x = nb.randn(6, 16)
    m.zero_grad()
    m(x).sum().backward()
    want = [p.grad.clone() for p in m.parameters()]
    m.zero_grad()
    y = checkpoint(m, x, use_reentrant=False)
    assert y.requires_grad
    y.sum().backward()
    for a, p in zip(want, m.parameters()):
        assert bits(a) == bits(p.grad)


def test_kwargs_tuples_and_non_tensor_args():
    a = nb.randn(3, requires_grad=True)

    def f(x, scale, *, shift):
        return x * scale + shift, x.sin()

    u, v = checkpoint(f, a, 2.0, shift=1.0, use_reentrant=False)
    (u.sum() + v.sum()).backward()
    ta = torch.from_numpy(a.detach().numpy()).requires_grad_()
    tu, tv = torch.utils.checkpoint.checkpoint(f, ta, 2.0, shift=1.0, use_reentrant=False)
    (tu.sum() + tv.sum()).backward()
    assert a.grad.numpy().tolist() == pytest.approx(ta.grad.numpy().tolist())
    with pytest.raises(ValueError, match="Unexpected keyword arguments: shift"):
        checkpoint(f, a, 2.0, shift=1.0, use_reentrant=True)


def test_warnings_as_pytorch():
    x = nb.randn(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = checkpoint(lambda t: t.sin(), x, use_reentrant=True)
    assert not y.requires_grad
    assert [str(i.message) for i in w] == ["None of the inputs have requires_grad=True. Gradients will be None"]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        checkpoint(lambda t: t.sin(), nb.randn(3, requires_grad=True))
    assert "use_reentrant parameter should be passed explicitly" in str(w[0].message)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        checkpoint(lambda t: t.sin(), x, use_reentrant=False)
    assert w == []


def test_peak_memory_lower_on_a_deep_mlp():
    nb.manual_seed(0)
    width, depth = 256, 24
    layers = []
    for _ in range(depth):
        layers += [nb.nn.Linear(width, width), nb.nn.Tanh()]
    m = nb.nn.Sequential(*layers)
    x = nb.randn(512, width, requires_grad=True)

    def measure(run):
        """(bytes the forward pass keeps, peak over forward and backward), above the start."""
        m.zero_grad()
        x.grad = None
        nb.memory.reset_peak()
        base = nb.memory.stats()["allocated_bytes"]
        y = run(x).sum()
        kept = nb.memory.stats()["allocated_bytes"] - base
        y.backward()
        return kept, nb.memory.stats()["peak_allocated_bytes"] - base

    plain_kept, plain = measure(m)
    act = 512 * width * 4  # one activation
    for reentrant in (False, True):
        kept, ckpt = measure(lambda v: checkpoint_sequential(m, 6, v, use_reentrant=reentrant))
        print(f"reentrant={reentrant}: kept by forward: plain {plain_kept / 2**20:.1f} MiB, checkpointed "
              f"{kept / 2**20:.1f} MiB; peak: plain {plain / 2**20:.1f} MiB, checkpointed {ckpt / 2**20:.1f} MiB")
        assert kept < 0.45 * plain_kept  # 5 segment inputs and the last segment's 8 layers, against 48 layers
        assert ckpt < 0.75 * plain  # weight gradients (6 MiB) are the same in both
    assert plain_kept >= depth * act  # the plain run keeps one activation per layer (and more)


def test_non_reentrant_autograd_grad_reaches_parameters_inside_like_torch():
    """The non-reentrant variant builds the ordinary graph (its saved tensors recomputed), so
    autograd.grad to the parameters fn uses works, as in PyTorch; the reentrant one cannot."""
    rng = np.random.default_rng(1)
    w0, b0, x0 = (rng.standard_normal(s).astype(np.float32) for s in ((5, 4), (5,), (3, 4)))

    def run(lib, use_reentrant):
        lin = lib.nn.Linear(4, 5)
        with lib.no_grad():
            lin.weight.copy_(lib.from_numpy(w0))
            lin.bias.copy_(lib.from_numpy(b0))
        x = lib.from_numpy(x0).requires_grad_()
        y = lib.utils.checkpoint.checkpoint(lambda v: lin(v).tanh() * v.sum(), x, use_reentrant=use_reentrant)
        return lib.autograd.grad(y.pow(2).sum(), [lin.weight, lin.bias, x])

    ours = run(nb, False)
    theirs = run(torch, False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_non_reentrant_nested_and_retain_graph_match_plain_gradients():
    m = model(depth=3, p=0.0)
    x = nb.randn(4, 16, requires_grad=True)
    want = nb.autograd.grad(m(x).pow(2).sum(), [x] + list(m.parameters()))

    def inner(v):
        return checkpoint(m[3:6], v, use_reentrant=False)

    def outer(v):
        return m[6:](inner(m[:3](v)))

    y = checkpoint(outer, x, use_reentrant=False).pow(2).sum()
    for _ in range(2):  # the second pass recomputes again
        got = nb.autograd.grad(y, [x] + list(m.parameters()), retain_graph=True)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_non_reentrant_recomputation_that_saves_differently_is_an_error():
    calls = []

    def f(v):
        calls.append(1)
        return v.exp() if len(calls) == 1 else v[:2].exp()  # the recomputation differs

    x = nb.randn(3, requires_grad=True)
    y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(nb.utils.checkpoint.CheckpointError, match="different metadata"):
        y.sum().backward()
    assert issubclass(nb.utils.checkpoint.CheckpointError, RuntimeError)
    with pytest.raises(ValueError, match="determinism_check"):
        checkpoint(f, x, use_reentrant=False, determinism_check="bogus")
